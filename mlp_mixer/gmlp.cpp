// gmlp: a gMLP block with its spatial gating unit (Liu et al. 2021, "Pay
// Attention to MLPs"; lucidrains/g-mlp-pytorch SpatialGatingUnit).
//
//   Z = gelu(X U) split into Z1, Z2 [N,h]     (U: D -> 2h, here two D -> h halves)
//   gate = W_s LN(Z2) + b                     W_s [N,N], b [N], over positions
//   out  = (Z1 * gate) V                      V: h -> D
//
// What mixes what: W_s is a learned, input-independent N x N matrix over
// positions (the whole "attention matrix", lower-triangular when causal); it
// mixes the normalised Z2 and the result multiplies Z1 elementwise.  Cost
// O(N^2 h) per example: quadratic in N, like full attention.  gelu is the tanh
// form, as in mixer.cpp (lucidrains uses the erf form; they differ by < 5e-4).
// W_s starts near zero, U(+-1e-3/max_len), and b at 1, so the gate starts
// near 1 and the block near a plain MLP (out ~ Z1 V).
//
// This is a whole block, so replaces_ffn() is true: the model adds only
// x + gmlp(LN(x)) and skips its FFN.  Lengths: W_s and b are sized for
// --seq-len (max_len) and their leading N x N / N part is used.  Padding:
// padded rows of LN(Z2) are zeroed, i.e. the padded columns of W_s are not used.
//
// gMLP has no fused kernel: forward() uses the fused layer norm op, and
// reference() writes the gating unit with its layer norm spelled out.
#include "attention/common.h"
#include "attention/decode/decode.h"

namespace az {
namespace {

class GMlp : public Attention {
 public:
  explicit GMlp(const AttentionConfig& c) : Attention(c) {
    int64_t h = knob_int("hidden");
    h_ = h > 0 ? h : 3 * c.dim;
    // The paper's U (D -> 2h) as its two halves: U1 makes Z1, U2 makes Z2; V (h -> D) is the output.
    // (Their checkpoint names, proj_u, proj_v and proj_out, predate these and stay, so that saved
    // models load: proj_v is U2, not V.)
    u1_ = register_module("proj_u", std::make_shared<Linear>(c.dim, h_));  // U1: Z1 = gelu(X U1)
    u2_ = register_module("proj_v", std::make_shared<Linear>(c.dim, h_));  // U2: Z2 = gelu(X U2)
    norm_ = register_module("norm", std::make_shared<LayerNorm>(h_));
    float eps = 1e-3f / float(c.max_len);
    ws_ = register_parameter("spatial.weight", Tensor::uniform({c.max_len, c.max_len}, -eps, eps));  // [max_len,max_len]
    bs_ = register_parameter("spatial.bias", Tensor::ones({c.max_len}), Decay::no);                     // [max_len]
    v_ = register_module("proj_out", std::make_shared<Linear>(h_, c.dim));  // V: out = (Z1 * gate) V
  }

  bool replaces_ffn() const override { return true; }

  // Generation (causal): the past rows of LN(Z2); position t's gate is row t of W_s times them.
  std::unique_ptr<DecodeState> decoder() override;

 private:
  int64_t check_input(const Tensor& x) const {
    if (x.dim() != 3 || x.size(2) != cfg_.dim)
      fail("gmlp: input must be [B,N," + std::to_string(cfg_.dim) + "], got " + shape_str(x.shape()));
    if (x.size(1) > cfg_.max_len)
      fail("gmlp: sequence of " + std::to_string(x.size(1)) + " positions exceeds --seq-len " +
           std::to_string(cfg_.max_len) + " (the spatial weights are max_len x max_len)");
    return x.size(1);
  }
  // W_s[:N,:N], with the entries above the diagonal zeroed when causal.
  Tensor spatial(int64_t N) const {
    Tensor w = N == cfg_.max_len ? ws_ : narrow(narrow(ws_, 0, 0, N), 1, 0, N);
    return cfg_.causal ? masked_fill(w, causal_mask(N), 0.0f) : w;
  }
  static Tensor keep_rows(const Tensor& key_pad) {  // [B,N] -> [B,N,1], 1 at real positions
    Tensor k = Tensor::empty({key_pad.size(0), key_pad.size(1), 1});
    for (int64_t i = 0; i < key_pad.numel(); ++i) k.data()[i] = key_pad.data()[i] != 0 ? 0.0f : 1.0f;
    return k;
  }

 public:
  // The reference form: the spatial gating unit with its layer norm written out.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    int64_t N = check_input(x);
    Tensor z1 = gelu(u1_->forward(x)), z2 = gelu(u2_->forward(x));      // Z = gelu(X U), two halves [B,N,h]
    Tensor centred = z2 - mean(z2, 2, /*keepdim=*/true);                          // LN(Z2) over the h channels
    Tensor normed = centred / sqrt(mean(centred * centred, 2, /*keepdim=*/true) + norm_->eps_) * norm_->gamma + norm_->beta;
    if (key_pad.defined()) normed = normed * keep_rows(key_pad);     // padded positions mix nothing in
    Tensor b = reshape(N == cfg_.max_len ? bs_ : narrow(bs_, 0, 0, N), {N, 1});
    Tensor gate = matmul(spatial(N), normed) + b;                     // W_s LN(Z2) + b  [B,N,h]
    return v_->forward(z1 * gate);                                  // (Z1 * gate) V
  }

  // x [B,N,D] -> [B,N,D]; key_pad [B,N] (1 = padding) or undefined.
  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    int64_t N = check_input(x);
    Tensor z1 = gelu(u1_->forward(x));                    // [B,N,h]
    Tensor z2 = norm_->forward(gelu(u2_->forward(x)));    // [B,N,h]
    if (key_pad.defined()) z2 = mul(z2, keep_rows(key_pad));
    Tensor b = reshape(N == cfg_.max_len ? bs_ : narrow(bs_, 0, 0, N), {N, 1});
    Tensor gate = add(matmul(spatial(N), z2), b);        // W_s Z2 + b [B,N,h]
    return v_->forward(mul(z1, gate));
  }

  // The learned position-mixing matrix W_s [1,N,N] for x [1,N,D]: zero above
  // the diagonal when causal and in padded columns.
  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    int64_t N = check_input(x);
    Tensor w = spatial(N).clone();
    if (key_pad.defined())
      for (int64_t i = 0; i < N; ++i)
        for (int64_t j = 0; j < N; ++j)
          if (key_pad.data()[j] != 0) w.data()[i * N + j] = 0;
    return reshape(w, {1, N, N});
  }

  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {  // padded positions contribute nothing
    return all_keys_pattern(x.size(1), key_pad, cfg_.causal, "spatial gating");
  }

 private:
  class Decode;
  int64_t h_;
  std::shared_ptr<Linear> u1_, u2_, v_;
  std::shared_ptr<LayerNorm> norm_;
  Tensor ws_, bs_;
};

// Position t: LN(Z2)_t joins the cache; gate = sum_{j<=t} W_s[t,j] LN(Z2)_j + b_t.  O(t h) per token.
class GMlp::Decode : public DecodeState {
 public:
  explicit Decode(GMlp& g) : g_(g) {}
  Tensor step(const Tensor& x) override {
    NoGradGuard ng;
    const int64_t t = t_++, h = g_.h_, L = g_.cfg_.max_len;
    if (t >= L) fail("gmlp: position " + std::to_string(t) + " is past --seq-len " + std::to_string(L));
    Tensor z1 = gelu(g_.u1_->forward(x));                    // [1,1,h]
    Tensor z2 = g_.norm_->forward(gelu(g_.u2_->forward(x)));  // [1,1,h]
    Z2_.insert(Z2_.end(), z2.data(), z2.data() + h);
    Tensor gate = Tensor::zeros({1, 1, h});
    const float* w = g_.ws_.data() + t * L;  // row t of W_s
    for (int64_t j = 0; j <= t; ++j)
      for (int64_t e = 0; e < h; ++e) gate.data()[e] += w[j] * Z2_[size_t(j * h + e)];
    for (int64_t e = 0; e < h; ++e) gate.data()[e] += g_.bs_.data()[t];
    return g_.v_->forward(mul(z1, gate));
  }
  int64_t state_bytes() const override { return int64_t(Z2_.size() * sizeof(float)); }
  std::string kind() const override { return "cache of the gated half"; }

 private:
  GMlp& g_;
  std::vector<float> Z2_;  // [t, h]
  int64_t t_ = 0;
};

std::unique_ptr<DecodeState> GMlp::decoder() { return std::make_unique<Decode>(*this); }

AttentionInfo info() {
  AttentionInfo i;
  i.name = "gmlp";
  i.summary = "gMLP block: spatial gating unit, gate = W_s LN(Z2) + 1 over positions (Liu et al. 2021)";
  i.knobs = {{"hidden", 0, 0, 65536, "width h of each half Z1, Z2 (projection D -> 2h); 0 = 3*dim (the paper's d_ffn = 6*d_model)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<GMlp>(c); };
  i.causal_ok = true;
  i.family = "attention-free";
  i.lecture = {12, 2};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
