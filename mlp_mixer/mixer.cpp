// mixer: MLP-Mixer's token-mixing MLP (Tolstikhin et al. 2021, "MLP-Mixer: An
// all-MLP Architecture for Vision"; google-research/vision_transformer
// models_mixer.py, MixerBlock's token_mixing MlpBlock).
//
// What mixes what: each channel is mixed across positions by one MLP shared by
// all channels,  Y = W2 gelu(W1^T X + b1) + b2  with X [N,D] per example,
// W1 [N,D_S], W2 [N,D_S] (Mixer writes it as transpose -> Dense -> GELU ->
// Dense -> transpose; here the two products contract the position axis
// directly, so nothing is transposed or copied).  gelu is the tanh form,
// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as the official Mixer code
// uses (flax nn.gelu, approximate=True by default), not the erf form; the two
// differ by at most 5e-4.  Every output position
// depends on every input position through a learned, input-independent map;
// there is no attention matrix.  Cost O(N D_S D) per example: linear in N.
//
// The block around it is the model's (train/model.cpp): x + mixer(LN(x)), then
// x + FFN(LN(x)) = Mixer's channel-mixing MLP (hidden --ffn, = D_C).
//
// Lengths: the weights are sized for --seq-len (max_len) positions and the
// first N rows are used for a shorter input, which is the same as padding the
// input with zero rows up to max_len.  Padding: padded rows are zeroed before
// the mixing, so they contribute nothing to any output (their own outputs are
// b2 plus the mixture: finite, unspecified).
//
// Causal form (--causal, e.g. --task lm): one hidden unit per position, D_S =
// N, hidden unit h reading positions j <= h (W1[j,h] = 0 for j > h) and output
// i reading hidden units h <= i (W2[i,h] = 0 for h > i): both token-mixing
// weights are masked triangular, as gMLP masks its spatial weights, so output
// i depends only on positions <= i.  Cost O(N^2 D) per example, like gMLP's;
// --token_hidden must then be 0 (= --seq-len).  Decoding (Decode below) keeps
// the past inputs x_j and the finished hidden units gelu(h): hidden unit t is
// complete once x_t arrives, and output t reads units h <= t only.  State
// 2 t D floats, cost O(t D) per token, like gMLP's cache.
//
// forward() runs the fused token MLP (token_mlp.h); reference() writes its two
// products in composed ops.
#include "attention/attention.h"
#include "attention/common.h"
#include "attention/decode/decode.h"
#include "mlp_mixer/token_mlp.h"

namespace az {
namespace {

class MlpMixer : public Attention {
 public:
  explicit MlpMixer(const AttentionConfig& c) : Attention(c) {
    int64_t ds = knob_int("token_hidden");
    if (c.causal && ds > 0 && ds != c.max_len)
      fail("mixer: the causal form has one hidden unit per position: --token_hidden must be 0 (= --seq-len " +
           std::to_string(c.max_len) + "), got " + std::to_string(ds));
    ds_ = c.causal ? c.max_len : ds > 0 ? ds : std::max<int64_t>(1, c.dim / 2);
    // Dense layers over positions, Xavier-uniform like every Linear here (fan
    // in/out = max_len and D_S for both).  W2 is stored [max_len, D_S], row i
    // = output position i, so slicing to N positions keeps the first N rows.
    w1_ = register_parameter("token_fc1.weight", init_xavier_uniform(c.max_len, ds_));  // [max_len, D_S]
    b1_ = register_parameter("token_fc1.bias", Tensor::zeros({ds_}), Decay::no);            // [D_S]
    w2_ = register_parameter("token_fc2.weight", init_xavier_uniform(c.max_len, ds_));  // [max_len, D_S]
    b2_ = register_parameter("token_fc2.bias", Tensor::zeros({c.max_len}), Decay::no);      // [max_len]
  }

 private:
  // The token-mixing weights for N positions: W1, W2 [N, D_S], b1 [D_S], b2 [N].
  struct Weights {
    Tensor w1, b1, w2, b2;
  };
  Weights weights(int64_t N) const {
    Weights w{rows(w1_, N), b1_, rows(w2_, N), rows(b2_, N)};
    if (cfg_.causal) {  // hidden units 0..N-1 only (the later ones reach no output), both maps triangular
      if (N < ds_) w.w1 = narrow(w.w1, 1, 0, N), w.w2 = narrow(w.w2, 1, 0, N), w.b1 = narrow(w.b1, 0, 0, N);
      Tensor later = causal_mask(N);                           // [N,N]: 1 where column > row
      w.w1 = masked_fill(w.w1, transpose(later, 0, 1), 0.0f);  // W1[j,h] = 0 for j > h
      w.w2 = masked_fill(w.w2, later, 0.0f);                   // W2[i,h] = 0 for h > i
    }
    return w;
  }
  static Tensor padding_zeroed(const Tensor& x, const Tensor& key_pad) {  // padded rows -> 0
    return key_pad.defined() ? mul(x, keep_rows(key_pad)) : x;
  }
  int64_t check_input(const Tensor& x) const {
    if (x.dim() != 3 || x.size(2) != cfg_.dim)
      fail("mixer: input must be [B,N," + std::to_string(cfg_.dim) + "], got " + shape_str(x.shape()));
    if (x.size(1) > cfg_.max_len)
      fail("mixer: sequence of " + std::to_string(x.size(1)) + " positions exceeds --seq-len " +
           std::to_string(cfg_.max_len) + " (the token-mixing weights have one row per position)");
    return x.size(1);
  }
  // The first n rows of a [max_len, ..] parameter (a copy; the parameter itself when n = max_len).
  Tensor rows(const Tensor& w, int64_t n) const { return n == w.size(0) ? w : narrow(w, 0, 0, n); }
  // key_pad [B,N] -> keep [B,N,1], 1 at real positions.
  static Tensor keep_rows(const Tensor& key_pad) {
    Tensor k = Tensor::empty({key_pad.size(0), key_pad.size(1), 1});
    for (int64_t i = 0; i < key_pad.numel(); ++i) k.data()[i] = key_pad.data()[i] != 0 ? 0.0f : 1.0f;
    return k;
  }

 public:
  // The reference form: Y = W2 gelu(W1^T X + b1) + b2 for each example's X [N,D], hidden units
  // across positions, per channel.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    Weights w = weights(check_input(x));
    Tensor X = padding_zeroed(x, key_pad);                                        // [B,N,D]
    Tensor hidden = gelu(matmul(w.w1, X, true) + reshape(w.b1, {w.b1.size(0), 1}));  // [B,D_S,D]
    return matmul(w.w2, hidden) + reshape(w.b2, {w.b2.size(0), 1});                // [B,N,D]
  }

  // x [B,N,D] -> [B,N,D]; key_pad [B,N] (1 = padding) or undefined.  The fast form: one fused op
  // (token_mlp.h: each example's products, bias adds and GELU back to back, in cache).
  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    Weights w = weights(check_input(x));
    return token_mlp(padding_zeroed(x, key_pad), w.w1, w.b1, w.w2, w.b2);
  }

  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {  // padded positions contribute nothing
    return all_keys_pattern(x.size(1), key_pad, cfg_.causal, "token MLP");
  }

  // Generation (causal): the past inputs and finished hidden units (Decode below).
  std::unique_ptr<DecodeState> decoder() override;

 private:
  class Decode;
  int64_t ds_;
  Tensor w1_, b1_, w2_, b2_;
};

// Position t (causal, D_S = max_len): x_t joins the input cache; hidden unit t, the last one
// output t reads, is now complete:  H_t = gelu(sum_{j<=t} W1[j,t] x_j + b1[t]),
//   y_t = sum_{h<=t} W2[t,h] H_h + b2[t].          O(t D) per token; state 2 t D floats.
class MlpMixer::Decode : public DecodeState {
 public:
  explicit Decode(MlpMixer& m) : m_(m) {}
  Tensor step(const Tensor& x) override {
    NoGradGuard ng;
    const int64_t t = t_++, D = m_.cfg_.dim, L = m_.cfg_.max_len, S = m_.ds_;
    if (t >= L) fail("mixer: position " + std::to_string(t) + " is past --seq-len " + std::to_string(L));
    X_.insert(X_.end(), x.data(), x.data() + D);
    Tensor pre = Tensor::zeros({1, 1, D});  // hidden unit t before its GELU
    float* p = pre.data();
    const float* w1 = m_.w1_.data();
    for (int64_t j = 0; j <= t; ++j)
      for (int64_t e = 0; e < D; ++e) p[e] += w1[j * S + t] * X_[size_t(j * D + e)];
    for (int64_t e = 0; e < D; ++e) p[e] += m_.b1_.data()[t];
    Tensor hidden = gelu(pre);
    H_.insert(H_.end(), hidden.data(), hidden.data() + D);
    Tensor y = Tensor::zeros({1, 1, D});
    const float* w2 = m_.w2_.data() + t * S;  // row t of W2
    for (int64_t h = 0; h <= t; ++h)
      for (int64_t e = 0; e < D; ++e) y.data()[e] += w2[h] * H_[size_t(h * D + e)];
    for (int64_t e = 0; e < D; ++e) y.data()[e] += m_.b2_.data()[t];
    return y;
  }
  int64_t state_bytes() const override { return int64_t((X_.size() + H_.size()) * sizeof(float)); }
  std::string kind() const override { return "cache of inputs and hidden units"; }

 private:
  MlpMixer& m_;
  std::vector<float> X_, H_;  // [t, D] each: past inputs, finished hidden units
  int64_t t_ = 0;
};

std::unique_ptr<DecodeState> MlpMixer::decoder() { return std::make_unique<Decode>(*this); }

AttentionInfo info() {
  AttentionInfo i;
  i.name = "mixer";
  i.summary = "MLP-Mixer token mixing: an MLP across positions, shared by channels (Tolstikhin et al. 2021)";
  i.knobs = {{"token_hidden", 0, 0, 65536, "hidden width D_S of the token-mixing MLP; 0 = dim/2 (Mixer's ratio)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<MlpMixer>(c); };
  i.causal_ok = true;
  i.family = "attention-free";
  i.lecture = {12, 1};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
