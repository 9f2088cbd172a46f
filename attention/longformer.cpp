// longformer: sliding windows, dilated on some heads, plus global tokens.
//
// Heads are split: on the local heads query i sees keys |i - j| <= w; on the
// dilated heads it sees j = i + k*s, |k| <= w (reaching w*s positions away).
// On every head the g global positions (the first g, e.g. a CLS token) attend to
// all keys and all queries attend to them.  Computed blockwise like `local`
// and `strided` (dilated heads regroup the sequence by residue class i mod s),
// with the global keys appended to each block's key list and the global rows
// computed as one dense strip.  Cost N*(b + 2w + g) + g*N.
//   Knobs: --window w (default 64), --dilation s (default 2), --dilated-heads
//   (default -1: half the heads, rounded down), --globals g (default 1), --block b (default 64).
// Paper: Beltagy et al. 2020, "Longformer" (allenai/longformer; HF
// modeling_longformer: window band, global keys in front of the band, global
// query rows recomputed over all keys).  Deviations: the paper varies window
// and dilation per layer (and uses dilation on 2 heads of the upper layers
// only); here both are one setting per model.  Global positions are the first
// g; the paper picks them per task (CLS, question tokens).  The global
// attention shares the window's projections: the paper (section 3.1) gives it
// its own Q_g, K_g, V_g (initialised as copies of Q_s, K_s, V_s); here one set
// of Q, K, V serves both, so a global token's scores use the same vectors as
// its window's.
// Causal form (--causal, --globals 0): the local and dilated heads see only
// the keys before them (-w <= k <= 0), as the paper's autoregressive
// character-level model does; global tokens, which read every position, have none.
//
// forward() runs the block-sparse kernel (kernels/blocksparse.h);
// reference() states each head's rule over all N x N entries.
#include <cstdlib>
#include <map>

#include "attention/kernels/blocksparse.h"
#include "attention/decode/decode.h"

namespace az {
namespace {

class LongformerAttention : public BlockSparseAttention {
 public:
  // The fast form, forward(), and the projections proj_ come from BlockSparseAttention
  // (attention/kernels/blocksparse.h): this class gives only its layouts (which key blocks each
  // query block sees) and its legend; the kernel is sparse_attention_merged.
  explicit LongformerAttention(const AttentionConfig& c) : BlockSparseAttention(c) {
    dilated_ = knob_int("dilated_heads");
    if (dilated_ < 0) dilated_ = c.heads / 2;
    if (dilated_ > c.heads)
      fail("--dilated-heads " + std::to_string(dilated_) + " must be at most --heads " + std::to_string(c.heads));
    if (c.causal && knob_int("globals") > 0)
      fail("longformer --causal: global tokens read every position, later ones included; give --globals 0 (the causal "
           "form keeps the local and dilated heads, each query seeing its window before it)");
  }

  // The reference form: each head's rule over all N x N entries ([H,N,N]), then softmax attention.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    int64_t N = x.size(1), H = cfg_.heads, w = knob_int("window"), g = knob_int("globals");
    std::vector<Tensor> heads;
    for (int64_t h = 0; h < H; ++h) {
      int64_t s = h < H - dilated_ ? 1 : knob_int("dilation");  // local heads first, then dilated ones
      heads.push_back(mask_from_rule(N, [&](int64_t i, int64_t j) {
        int64_t k = (j - i) / s;
        bool window = (j - i) % s == 0 && std::abs(k) <= w && !(cfg_.causal && k > 0);  // j = i + k s, |k| <= w
        return window || i < g || j < g;  // the first g positions are global: they see all, all see them
      }));
    }
    Tensor rule = reshape(concat(heads, 0), {H, N, N});
    return masked_attention(*proj_, x, rule, key_pad, cfg_.dropout, is_training());
  }

  // Generation (causal): a KV cache of the last w*s+1 positions; local heads read w+1 of them, dilated heads every s-th.
  std::unique_ptr<DecodeState> decoder() override {
    std::vector<int64_t> windows(size_t(cfg_.heads), knob_int("window")), strides(size_t(cfg_.heads), 1);
    for (int64_t h = cfg_.heads - dilated_; h < cfg_.heads; ++h) strides[size_t(h)] = knob_int("dilation");
    return kv_cache_state(proj_, windows, strides);
  }

 protected:
  Layouts layouts(int64_t n) override {
    auto it = cache_.find(n);
    if (it != cache_.end()) return it->second;
    BandSpec s;
    s.n = n, s.block = knob_int("block"), s.radius = knob_int("window"), s.causal = cfg_.causal;
    for (int64_t i = 0; i < std::min(knob_int("globals"), n); ++i) s.globals.push_back(int32_t(i));
    s.global_label = 1, s.window_label = 2;
    Layouts L(size_t(cfg_.heads));
    auto local = band_layout(s);
    s.stride = knob_int("dilation"), s.window_label = 3;
    auto dilated = dilated_ ? band_layout(s) : local;
    for (int64_t h = 0; h < cfg_.heads; ++h) L[size_t(h)] = h < cfg_.heads - dilated_ ? local : dilated;
    return cache_[n] = L;
  }
  std::vector<std::string> legend() const override { return {"global", "window", "stride"}; }
  std::vector<int64_t> pattern_heads() const override { return {0, cfg_.heads - 1}; }  // a local and a dilated head

 private:
  int64_t dilated_;
  std::map<int64_t, Layouts> cache_;  // by sequence length
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "longformer";
  i.summary = "local and dilated window heads plus global tokens (Beltagy et al. 2020, cost N*(w+g))";
  i.knobs = {{"window", 64, 1, 1 << 20, "keys on each side, in positions (local heads) or strides (dilated)"},
             {"dilation", 2, 1, 1 << 16, "distance between attended keys on the dilated heads"},
             {"dilated_heads", -1, -1, 1 << 16, "heads with the dilated window (-1: half of them)"},
             {"globals", 1, 0, 1 << 20, "the first g positions are global"},
             {"block", 64, 1, 1 << 16, "queries per block (one sgemm each)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<LongformerAttention>(c); };
  i.causal_ok = true;
  i.family = "fixed";
  i.lecture = {5, 1};
  i.causal_knobs = {{"globals", 0}};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
