// rfa: Random Feature Attention (Peng et al., ICLR 2021; conventions of the
// authors' fairseq RFA code: normalise, random Fourier features, clamped
// normaliser).
//
// Queries and keys are L2-normalised, then mapped by random Fourier features
//   phi(x) = m^-1/2 [sin(W (sigma * x)), cos(W (sigma * x))],   W [m,d] ~ N(0, I),
// an unbiased estimate of the Gaussian kernel: E[phi(x).phi(y)] =
// exp(-|sigma * (x - y)|^2 / 2), which for unit vectors is proportional to
// exp(sigma^2 x.y) (the softmax kernel at temperature 1/sigma^2 when sigma is
// a scalar).  sigma [H,d] is learned (RFA's reparameterised random matrices),
// starting at 1.  The implied N x N matrix is dense (lower-triangular when
// causal), never formed: out = phi(Q)(phi(K)^T V) / max(phi(Q)(phi(K)^T 1), 1),
// causal by prefix sums; cost N m d per head.
//
// Sin/cos features can make the normaliser small or negative; like the RFA code
// we clamp it from below (its EPS over its feature scale is a floor of about
// one key's worth of kernel mass; we use exactly 1).  W is a registered buffer
// redrawn every --redraw training steps like the Performer's, fixed in eval.
//
// Where this differs from the paper:
//   - The redraw schedule.  The paper samples fresh random matrices at every
//     training step (from a set drawn ahead, its appendix) and fixes them for
//     evaluation; here W is redrawn every --redraw steps, by default 1000
//     (Performer's schedule, so the two feature-map variants train alike).
//     --redraw 1 is the paper's every-step draw.
//   - The paper's optional recency gate is not implemented.
//
// forward() runs the fused features and kernel (kernels/kernel_util.h);
// reference() writes the features and the linear attention in composed ops.
#include <cmath>
#include <cstring>

#include "attention/common.h"
#include "attention/decode/decode.h"
#include "attention/kernels/kernel_util.h"

namespace az {
namespace {

class RandomFeatureAttention : public FeatureMapAttention {
 public:
  // The projections proj_ and the fast form's body come from FeatureMapAttention
  // (attention/kernels/kernel_util.h): this class gives its feature map phi (feature_map()) and the
  // redraw schedule; the kernel is kernel_attention, the chunked prefix sums.
  explicit RandomFeatureAttention(const AttentionConfig& c)
      : FeatureMapAttention(c, "random Fourier estimate of a Gaussian kernel", 1.0f, KernelNorm::clamp) {  // max(den, 1)
    int64_t d = c.head_dim(), m = knob_int("features");
    sigma_ = register_parameter("sigma", Tensor::ones({c.heads, d}), Decay::no);
    features_ = register_buffer("features", Tensor::randn({m, d}, 1.0f, global_rng()));  // W [m,d]
    calls_ = register_buffer("calls", Tensor::zeros({1}));  // training calls since the last draw
  }

  // In a training step the schedule counts steps, and the draw is made once, before the shards run.
  void before_step() override {
    if (redraw_due(calls_, knob_int("redraw"), is_training())) redraw();
  }

  // The reference form: random Fourier features of the unit-length, sigma-scaled queries and keys,
  // phi(x) = m^-1/2 [sin W(sigma x), cos W(sigma x)], then linear attention with max(den, 1).
  // W is only read here: the redraw is before_step's (once a step), so reference() is a function of
  // its input, parameters and buffers.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);                                    // q, k, v [B,H,N,d]
    int64_t H = cfg_.heads, d = cfg_.head_dim(), m = features_.size(0);
    auto phi = [&](const Tensor& t) {
      Tensor unit = t / sqrt(sum(t * t, 3, /*keepdim=*/true) + 1e-6f);       // x / sqrt(|x|^2 + 1e-3^2)
      Tensor u = matmul(unit * reshape(sigma_, {1, H, 1, d}), features_, /*trans_a=*/false, /*trans_b=*/true);  // W (sigma x) [B,H,N,m]
      return concat({sin(u), cos(u)}, 3) * (1.0f / std::sqrt(float(m)));              // [B,H,N,2m]
    };
    Tensor phi_q = phi(h.q), phi_k = phi(h.k);
    if (key_pad.defined()) phi_k = phi_k * key_keep(key_pad);      // padded keys add nothing to the sums
    return proj_->output(feature_map_attention(phi_q, phi_k, h.v, cfg_.causal, 1.0f, KernelNorm::clamp));
  }

  // The fast form is FeatureMapAttention::forward (kernels/kernel_util.h).  What a model calls: a
  // training call outside a step keeps the schedule here, before either form (before_step's in one).
  Tensor call(const Tensor& x, const Tensor& key_pad, Impl impl) override {
    if (redraw_due(calls_, knob_int("redraw"), is_training())) redraw();
    return Attention::call(x, key_pad, impl);
  }

  // Generation: the recurrent state S, z (decode.h), constant cost per token.
  std::unique_ptr<DecodeState> decoder() override {
    return recurrent_state(proj_, [this](const Tensor& x) { return feature_map(x, Tensor()); }, 1.0f, KernelNorm::clamp);
  }

 private:
  // A fresh draw of W written into the same buffer, so the registered handle stays valid.
  void redraw() {
    Tensor w = Tensor::randn(features_.shape(), 1.0f, global_rng());
    std::memcpy(features_.data(), w.data(), sizeof(float) * size_t(w.numel()));
  }

  // phi(q), phi(k) [B,H,N,2m] (phi(k) zero at padding) and v [B,H,N,d].
  QKVProjection::Heads feature_map(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);
    int64_t B = x.size(0), H = cfg_.heads, d = cfg_.head_dim(), m = features_.size(0);
    // W (sigma * x) = (W diag(sigma)) x: scale the small [H,m,d] matrices, not the [B,H,N,d] inputs
    Tensor w = mul(reshape(sigma_, {1, H, 1, d}), reshape(features_, {1, 1, m, d}));  // [1,H,m,d]
    if (B > 1) w = concat(std::vector<Tensor>(size_t(B), w), 0);                       // [B,H,m,d]
    Tensor uq = matmul(l2_normalize(h.q), w, /*trans_a=*/false, /*trans_b=*/true);  // [B,H,N,m]
    Tensor uk = matmul(l2_normalize(h.k), w, /*trans_a=*/false, /*trans_b=*/true);
    h.q = sincos_features(uq, Tensor());
    h.k = sincos_features(uk, key_pad);
    return h;
  }

  Tensor sigma_, features_, calls_;
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "rfa";
  i.summary = "random feature attention: sin/cos features of normalised Q, K, linear in N (Peng et al. 2021)";
  i.knobs = {{"features", 64, 1, 8192, "random vectors m (2m features)"},
             {"redraw", 1000, 0, 1e9, "redraw the features every this many training steps (0 = never)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<RandomFeatureAttention>(c); };
  i.causal_ok = true;
  i.family = "low-rank/kernel";
  i.lecture = {10, 3};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
