// strided: dilated sliding window, the Sparse Transformer's strided pattern.
//
// Query i attends to the keys j = i + k*s with |k| <= w (2w+1 keys spread over
// 2ws positions; causal: -w <= k <= 0).  Keys at distance k*s share i's residue
// class i mod s, so the sequence is regrouped by class and each class is a
// plain local band: queries go in blocks of b class members, each scoring b+2w
// class members with one small sgemm.  Time and memory grow as N (b + 2w).
//   Knobs: --window w (default 32), --stride s (default 8: each query sees 65
//   keys over 513 positions), --block b (default 64).  s = 1 is `local`.
// Paper: Child et al. 2019, "Generating Long Sequences with Sparse
// Transformers" (openai/sparse_attention, the "strided" pattern: every s-th
// key).  The Sparse Transformer pairs these heads with local ones in alternate
// layers or heads; here that pairing is the `longformer` variant's head split,
// and this variant is the dilated half on its own, with the distance bounded
// by w so the cost stays linear (the paper's unbounded version costs N*N/s).
//
// forward() runs the block-sparse kernel (kernels/blocksparse.h);
// reference() states the rule over all N x N entries.
#include <cstdlib>
#include <map>

#include "attention/kernels/blocksparse.h"
#include "attention/decode/decode.h"

namespace az {
namespace {

class StridedAttention : public BlockSparseAttention {
 public:
  // The fast form, forward(), and the projections proj_ come from BlockSparseAttention
  // (attention/kernels/blocksparse.h): this class gives only its layouts (which key blocks each
  // query block sees) and its legend; the kernel is sparse_attention_merged.
  explicit StridedAttention(const AttentionConfig& c) : BlockSparseAttention(c) {}

  // The reference form: the dilated window as a rule over all N x N entries, then softmax attention.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    int64_t w = knob_int("window"), s = knob_int("stride");
    bool causal = cfg_.causal;
    Tensor band = mask_from_rule(x.size(1), [&](int64_t i, int64_t j) {  // query i sees key j = i + k s when
      int64_t k = (j - i) / s;
      return (j - i) % s == 0 && std::abs(k) <= w && !(causal && k > 0);  // |k| <= w (causal: k <= 0)
    });
    return masked_attention(*proj_, x, band, key_pad, cfg_.dropout, is_training());
  }

  // Generation: only the keys the causal window reads are kept (decode.h).
  std::unique_ptr<DecodeState> decoder() override {
    return kv_cache_state(proj_, cfg_.heads, knob_int("window"), knob_int("stride"));
  }

 protected:
  Layouts layouts(int64_t n) override {
    auto it = cache_.find(n);
    if (it != cache_.end()) return it->second;
    BandSpec s;
    s.n = n, s.block = knob_int("block"), s.radius = knob_int("window"), s.stride = knob_int("stride");
    s.causal = cfg_.causal;
    return cache_[n] = Layouts{band_layout(s)};
  }
  std::vector<std::string> legend() const override { return {"stride"}; }

 private:
  std::map<int64_t, Layouts> cache_;  // by sequence length
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "strided";
  i.summary = "dilated window: each query sees keys i+k*s, |k| <= --window (Sparse Transformer, cost N*w)";
  i.knobs = {{"window", 32, 1, 1 << 20, "keys on each side (causal: before), counted in strides"},
             {"stride", 8, 1, 1 << 16, "distance between attended keys"},
             {"block", 64, 1, 1 << 16, "queries per block (one sgemm each)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<StridedAttention>(c); };
  i.causal_ok = true;
  i.family = "fixed";
  i.lecture = {3, 1};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
