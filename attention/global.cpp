// global: a few global tokens carry all the traffic.
//
// g global tokens attend to every token and every token attends to them; used
// alone (this variant), the other tokens attend only to the global ones: the
// computed entries are the g global rows and the g global columns of the N x N
// matrix.  Two modes (--learned):
//   0 (default): the first g positions of the sequence are global (a CLS token
//     is position 0), as ETC/BigBird-ITC and Longformer choose positions;
//   1: g learned tokens are prepended in this layer and dropped from its
//     output (the "extra tokens" of ETC/BigBird-ETC).  Used alone, a token then
//     sees only those learned keys and values, not the other tokens (a memory
//     of learned key/value pairs; the tokens' own outputs are dropped), so
//     pattern() and attention_weights() among the N real tokens are empty.
// Non-global queries go in blocks of --block, each scoring the g global keys
// with one sgemm; the global rows score all keys.  Cost N*g (time and memory).
// With g >= N every token is global: full attention.  On the mini preset's
// Retrieval the choice of g matters: 8 or 16 positional globals beat full
// attention (59-60% against 54%), 1 or 4 and 16 learned tokens stay at chance
// (docs/lra/retrieval-global/README.md).
// Papers: Ainslie et al. 2020 (ETC), Zaheer et al. 2020 (BigBird), Beltagy et
// al. 2020 (Longformer); pattern as in xformers' global_tokens mask (global
// rows and global columns, nothing else).
//
// forward() runs the block-sparse kernel (kernels/blocksparse.h);
// reference() states the rule over all N x N entries (mask_from_rule and
// masked_attention, attention/common.h).
#include <map>

#include "attention/common.h"
#include "attention/kernels/blocksparse.h"

namespace az {
namespace {

class GlobalAttention : public BlockSparseAttention {
 public:
  // The fast form, forward(), and the projections proj_ come from BlockSparseAttention
  // (attention/kernels/blocksparse.h): this class gives only its layouts (which key blocks each
  // query block sees) and its legend; the kernel is sparse_attention_merged.
  explicit GlobalAttention(const AttentionConfig& c) : BlockSparseAttention(c), g_(knob_int("globals")) {
    learned_ = knob_int("learned") != 0;
    if (learned_) tokens_ = register_parameter("tokens", Tensor::randn({g_, c.dim}, 0.02f), Decay::no);
  }

 private:
  // [tokens ; x] with its padding mask (the tokens are never padding).
  Tensor extend(const Tensor& x, const Tensor& key_pad, Tensor* pad) const {
    if (x.dim() != 3 || x.size(2) != cfg_.dim)
      fail("attention input " + shape_str(x.shape()) + " must be [B,N," + std::to_string(cfg_.dim) + "]");
    int64_t B = x.size(0);
    Tensor t = add(Tensor::zeros({B, g_, cfg_.dim}), reshape(tokens_, {1, g_, cfg_.dim}));  // [B,g,D]
    if (key_pad.defined()) *pad = concat({Tensor::zeros({B, g_}), key_pad}, 1);
    return concat({t, x}, 1);
  }

 public:
  // The reference form: the global rows and columns as a rule over all N x N
  // entries, then softmax attention (with learned tokens, over [tokens ; x]).
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    Tensor in = x, pad = key_pad;
    if (learned_) in = extend(x, key_pad, &pad);  // [B,g+N,D]: the tokens are positions 0..g-1
    Tensor rule = mask_from_rule(in.size(1), [&](int64_t i, int64_t j) {
      return i < g_ || j < g_;  // a global query sees every key; every query sees the global keys
    });
    Tensor y = masked_attention(*proj_, in, rule, pad, cfg_.dropout, is_training());
    return learned_ ? narrow(y, 1, g_, x.size(1)) : y;  // the tokens' own outputs are dropped
  }

  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    if (!learned_) return run(x, key_pad, nullptr);
    Tensor pad;
    Tensor y = run(extend(x, key_pad, &pad), pad, nullptr);
    return narrow(y, 1, g_, x.size(1));
  }

  // With learned tokens: the entries among the N real tokens (none: they attend only to the tokens).
  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {
    int64_t N = x.size(1), g = learned_ ? g_ : 0;
    Pattern full = layouts_pattern({layouts(N + g)[0].get()}, legend()), p;
    p.n = N, p.legend = full.legend, p.cell.resize(size_t(N * N));
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < N; ++j) p.cell[size_t(i * N + j)] = full.cell[size_t((i + g) * (N + g) + j + g)];
    return p;
  }
  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    if (!learned_) return BlockSparseAttention::attention_weights(x, key_pad);
    NoGradGuard ng;
    Tensor w, pad;
    run(extend(x, key_pad, &pad), pad, &w);  // [H, g+N, g+N]
    return narrow(narrow(w, 1, g_, x.size(1)), 2, g_, x.size(1)).clone();
  }

 protected:
  Layouts layouts(int64_t n) override {
    auto it = cache_.find(n);
    if (it != cache_.end()) return it->second;
    BandSpec s;
    s.n = n, s.block = knob_int("block"), s.radius = -1;  // no window
    for (int64_t i = 0; i < std::min(g_, n); ++i) s.globals.push_back(int32_t(i));
    s.global_label = 1;
    return cache_[n] = Layouts{band_layout(s)};
  }
  std::vector<std::string> legend() const override { return {"global"}; }

 private:
  int64_t g_;
  bool learned_ = false;
  Tensor tokens_;                     // [g, D] when learned
  std::map<int64_t, Layouts> cache_;  // by sequence length
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "global";
  i.summary = "global tokens only: g tokens attend to all and all attend to them (cost N*g)";
  i.knobs = {{"globals", 16, 1, 1 << 20, "number of global tokens"},
             {"learned", 0, 0, 1, "1: prepend g learned tokens; 0: the first g positions are global"},
             {"block", 256, 1, 1 << 16, "non-global queries per block (one sgemm each)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<GlobalAttention>(c); };
  i.causal_ok = false;
  i.family = "fixed";
  i.lecture = {4, 1};
  i.why_not_causal = "global tokens read every position, later ones included";
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
