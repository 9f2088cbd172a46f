// local: sliding-window attention, computed blockwise.
//
// Query i attends to the keys j with |i - j| <= w (2w+1 keys; causal: the w+1
// keys i-w..i).  Queries go in blocks of b; each block scores its own keys and
// the w neighbours on either side (b + 2w keys, a run of the neighbouring
// blocks) with one small sgemm, and the band outside |i - j| <= w is masked
// inside that block.  Time and memory grow as N (b + 2w), never N^2.
//   Knobs: --window w (default 64: 129 keys per query), --block b (default 64).
//   w >= N - 1 gives full attention (causal: causal full attention).
// Papers: Parmar et al. 2018 (Image Transformer, local 1-D attention); LRA's
// "Local Attention" baseline.  Blockwise form as in lucidrains/local-attention
// (own block + neighbours), but with the exact band |i - j| <= w masked in, so
// every query sees the same number of keys wherever it sits in its block.
#include <map>

#include "attention/kernels/blocksparse.h"
#include "attention/decode/decode.h"

namespace az {
namespace {

class LocalAttention : public BlockSparseAttention {
 public:
  explicit LocalAttention(const AttentionConfig& c) : BlockSparseAttention(c) {}

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

RegisterAttention reg({"local",
                       "sliding window: each query sees the keys within --window positions, blockwise (cost N*w)",
                       {{"window", 64, 1, 1 << 20, "keys within this distance on each side (causal: before)"},
                        {"block", 64, 1, 1 << 16, "queries per block (one sgemm each)"}},
                       [](const AttentionConfig& c) { return std::make_shared<LocalAttention>(c); }, true, "fixed"});

}  // namespace
}  // namespace az
