// Block-sparse softmax attention: the one fused kernel behind the fixed
// patterns (local, strided, global, longformer, bigbird).
//
// A SparseLayout describes, for one head, which entries of the N x N matrix are
// computed: groups of query rows that share one list of key columns, and a label
// per (row, column) of the group (0 = not computed, k = component k of the
// pattern's legend: "window", "stride", "global", "random").  For each (example,
// head, group) the kernel computes S = Q_rows K_cols^T * scale with two small
// sgemms, excludes unlabelled entries and padded keys, takes the row softmax and
// O_rows = P V_cols.  Work and memory are sum(rows x cols) per head, never N^2.
// The backward is hand-written (with dS = P * (dP - rowsum(dO * O))).
#pragma once
#include <memory>
#include <string>
#include <mutex>
#include <vector>

#include "attention/common.h"

namespace az {

struct SparseGroup {
  std::vector<int32_t> rows;   // query positions; a position sits in at most one group of a layout
  std::vector<int32_t> cols;   // key positions, distinct
  std::vector<uint8_t> label;  // rows x cols, or just cols when per_column; 0 = not computed
  bool per_column = false;     // the label depends on the column only (saves rows x cols bytes)
};

struct SparseLayout {
  int64_t n = 0;  // sequence length
  std::vector<SparseGroup> groups;
  // Filled by finish(): where each group's probabilities start in the head's
  // buffer, and the first position of rows / cols when they are a contiguous
  // run (then the kernel reads Q, K, V in place), else -1.
  std::vector<int64_t> offset;
  std::vector<int32_t> row0, col0;
  int64_t entries = 0, max_rows = 0, max_cols = 0, covered = 0;  // covered: rows in some group
  void finish();  // validates; must be called before use
  uint8_t label_at(size_t g, size_t r, size_t c) const {
    const SparseGroup& G = groups[g];
    return G.per_column ? G.label[c] : G.label[r * G.cols.size() + c];
  }
};

// One layout shared by every head, or one per head.
using Layouts = std::vector<std::shared_ptr<const SparseLayout>>;

// q, k [B,H,N,d], v [B,H,N,dv] -> [B,H,N,dv].  key_pad [B,N] (1 = padding) or
// undefined.  Rows of no group, or whose every entry is excluded, give zeros.
// Attention dropout (training, p > 0) uses a counter-based mask from one draw
// of rng.  dense_weights (B = 1 only): the [H,N,N] probabilities before dropout.
Tensor sparse_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Layouts& layouts,
                        const Tensor& key_pad, float scale, float dropout_p = 0.0f, bool training = false,
                        Rng& rng = global_rng(), Tensor* dense_weights = nullptr);

// The same with heads merged in the last axis, as the projections make them:
// q, k [B,N,H*d], v [B,N,H*dv] -> [B,N,H*dv]; each head is read in place.
Tensor sparse_attention_merged(const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads,
                               const Layouts& layouts, const Tensor& key_pad, float scale, float dropout_p = 0.0f,
                               bool training = false, Rng& rng = global_rng(), Tensor* dense_weights = nullptr);

// The sliding-window family, with queries grouped by residue class i mod stride
// (then keys at distance k*stride are neighbours in the class, as in the Sparse
// Transformer's strided pattern): query i sees keys j = i + k*stride with
// |k| <= radius (-radius <= k <= 0 when causal), plus every global position;
// global positions' rows see every key.  radius < 0: no window (global only).
// Queries go in groups of `block` consecutive class members.
struct BandSpec {
  int64_t n = 0, block = 64, radius = 0, stride = 1;
  bool causal = false;
  std::vector<int32_t> globals;  // sorted, distinct
  uint8_t window_label = 1, global_label = 2;
};
std::shared_ptr<SparseLayout> band_layout(const BandSpec& s);

// The pattern of the given layouts laid over each other (the smallest nonzero
// label wins where they overlap, so order the legend by priority).
Pattern layouts_pattern(const std::vector<const SparseLayout*>& layouts, std::vector<std::string> legend);

// Base of the fixed-pattern variants: Q/K/V/output projections registered as
// "proj", the kernel in between, pattern() and attention_weights() from the
// layouts.  A variant supplies its layouts for a length and its legend.
class BlockSparseAttention : public Attention {
 public:
  explicit BlockSparseAttention(const AttentionConfig& c);
  Tensor forward(const Tensor& x, const Tensor& key_pad) override { return run(x, key_pad, nullptr); }
  Pattern pattern(const Tensor& x, const Tensor& key_pad) override;
  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override;

 protected:
  virtual Layouts layouts(int64_t n) = 0;               // one, or one per head
  virtual std::vector<std::string> legend() const = 0;  // label k is legend[k-1]
  virtual std::vector<int64_t> pattern_heads() const { return {0}; }
  Tensor run(const Tensor& x, const Tensor& key_pad, Tensor* weights);
  std::shared_ptr<QKVProjection> proj_;

 private:
  Layouts locked_layouts(int64_t n);  // layouts(n) under a lock: a variant's cache is shared by a step's threads
  std::mutex layouts_mu_;
};

}  // namespace az
