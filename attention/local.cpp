// local: sliding-window attention, computed blockwise.
//
// Query i attends to the keys j with |i - j| <= w (2w+1 keys; causal: the w+1
// keys i-w..i).  Queries go in blocks of b; each block scores its own keys and
// the w neighbours on either side (b + 2w keys, a run of the neighbouring
// blocks) with two small products (scores, then weights times values), and
// the band outside |i - j| <= w is masked inside that block (the kernel:
// attention/kernels/blocksparse.h).  Time and memory grow as N (b + 2w), never
// N^2.  reference() below states the rule alone, over all N x N entries.
//   Knobs: --window w (default 64: 129 keys per query), --block b (default 64).
//   w >= N - 1 gives full attention (causal: causal full attention).
// Papers: Parmar et al. 2018 (Image Transformer, local 1-D attention); LRA's
// "Local Attention" baseline.  Blockwise form as in lucidrains/local-attention
// (own block + neighbours), but with the exact band |i - j| <= w masked in, so
// every query sees the same number of keys wherever it sits in its block.
#include <cstdlib>
#include <map>

#include "attention/kernels/blocksparse.h"
#include "attention/decode/decode.h"

namespace az {
namespace {

class LocalAttention : public BlockSparseAttention {
 public:
  // The fast form, forward(), and the projections proj_ come from BlockSparseAttention
  // (attention/kernels/blocksparse.h): this class gives only its layouts (which key blocks each
  // query block sees) and its legend; the kernel is sparse_attention_merged.
  explicit LocalAttention(const AttentionConfig& c) : BlockSparseAttention(c) {}

  // The reference form: the window as a rule over all N x N entries, then softmax attention.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    int64_t w = knob_int("window");
    bool causal = cfg_.causal;
    Tensor band = mask_from_rule(x.size(1), [&](int64_t i, int64_t j) {  // query i sees key j when
      return std::abs(i - j) <= w && !(causal && j > i);                // it is within w of i (and not later)
    });
    return masked_attention(*proj_, x, band, key_pad, cfg_.dropout, is_training());
  }

  // Generation: only the keys the causal window reads are kept (decode.h).
  std::unique_ptr<DecodeState> decoder() override {
    return kv_cache_state(proj_, cfg_.heads, knob_int("window"), 1);
  }

 protected:
  Layouts layouts(int64_t n) override {
    auto it = cache_.find(n);
    if (it != cache_.end()) return it->second;
    BandSpec s;
    s.n = n, s.block = knob_int("block"), s.radius = knob_int("window"), s.stride = 1, s.causal = cfg_.causal;
    return cache_[n] = Layouts{band_layout(s)};
  }
  std::vector<std::string> legend() const override { return {"window"}; }

 private:
  std::map<int64_t, Layouts> cache_;  // by sequence length
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "local";
  i.summary = "sliding window: each query sees the keys within --window positions, blockwise (cost N*w)";
  i.knobs = {{"window", 64, 1, 1 << 20, "keys within this distance on each side (causal: before)"},
             {"block", 64, 1, 1 << 16, "queries per block (one pair of small products each)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<LocalAttention>(c); };
  i.causal_ok = true;
  i.family = "fixed";
  i.lecture = {2, 1};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
