// performer: FAVOR+ (Choromanski et al., "Rethinking Attention with
// Performers", ICLR 2021; conventions of lucidrains/performer-pytorch and
// google-research's fast_attention.py).
//
// softmax attention's kernel exp(q.k / sqrt(d)) is estimated without bias by
// positive random features
//   phi(x) = m^-1/2 exp(W x^ - |x^|^2 / 2),   x^ = d^-1/4 x,
// with W [m,d] made of orthogonal Gaussian blocks (lower variance than i.i.d.),
// so E[phi(q).phi(k)] = exp(q.k / sqrt(d)).  The implied N x N matrix is the
// (dense, or lower-triangular when causal) estimate of softmax(QK^T/sqrt(d)),
// never formed: out = phi(Q)(phi(K)^T V) / phi(Q)(phi(K)^T 1), causal by
// prefix sums (kernel_util.h).  Cost N m d per head; m defaults to d ln d.
//
// Stabiliser: the largest exponent c is subtracted inside exp (per row for
// queries; over the non-padded keys of a head for keys), a constant factor
// that cancels exactly in the ratio, so no epsilon is added to the features
// and the normaliser is guarded only against 0/0 (max(den, FLT_MIN)).  Causal
// keys are not shifted (a max over keys would span later keys); their
// exponent is bounded by |w_j|^2/2 anyway.  W (projection_ below, the
// paper's omega; saved in checkpoints as the buffer "features") is redrawn
// every --redraw training steps, once per step before its forward passes
// (before_step), and fixed in eval; the --features setting is m, its rows.
// forward() runs the fused features and kernel (kernels/kernel_util.h, with a
// hand-written backward); reference() below is FAVOR+ in composed ops.  Both
// are functions of their input, parameters and buffers: neither redraws.
// Deviation from the paper: W is redrawn every --redraw steps (1000), not at
// every step.  How the other choices differ from the public code, and why:
// docs/performer.md.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attention/common.h"
#include "attention/decode/decode.h"
#include "attention/kernels/kernel_util.h"

namespace az {

// ---- 1. W: orthogonal random features -------------------------------------------------------
// FAVOR+'s "orthogonal": the m rows of W come in blocks of d mutually orthogonal rows (a Gaussian
// d x d block orthonormalised: Q of its QR, by modified Gram-Schmidt), each row then scaled to the
// norm a Gaussian row would have had (chi with d degrees of freedom).  Orthogonal rows keep the
// estimate unbiased and lower its variance against i.i.d. Gaussian rows (the paper's section 2.4).
// Shown on the model's page beside reference().
Tensor orthogonal_gaussian(int64_t m, int64_t d, Rng& rng) {
  if (m < 1 || d < 1) fail("orthogonal_gaussian: sizes " + std::to_string(m) + "x" + std::to_string(d) + " must be positive");
  Tensor w = Tensor::empty({m, d});
  std::vector<double> blk(size_t(d * d));
  for (int64_t b0 = 0; b0 < m; b0 += d) {
    // Gram-Schmidt (modified) on the rows of a Gaussian d x d block: Q of its QR.
    for (auto& v : blk) v = rng.normal();
    for (int64_t i = 0; i < d; ++i) {
      double* ri = &blk[size_t(i * d)];
      for (int64_t j = 0; j < i; ++j) {
        const double* rj = &blk[size_t(j * d)];
        double dot = 0;
        for (int64_t t = 0; t < d; ++t) dot += ri[t] * rj[t];
        for (int64_t t = 0; t < d; ++t) ri[t] -= dot * rj[t];
      }
      double nn = 0;
      for (int64_t t = 0; t < d; ++t) nn += ri[t] * ri[t];
      nn = std::sqrt(nn);
      for (int64_t t = 0; t < d; ++t) ri[t] /= nn;
    }
    for (int64_t i = 0; i < d && b0 + i < m; ++i) {
      double chi = 0;  // the norm a Gaussian row would have had
      for (int64_t t = 0; t < d; ++t) {
        double z = rng.normal();
        chi += z * z;
      }
      chi = std::sqrt(chi);
      for (int64_t t = 0; t < d; ++t) w.data()[(b0 + i) * d + t] = float(blk[size_t(i * d + t)] * chi);
    }
  }
  return w;
}

namespace {

class Performer : public FeatureMapAttention {
 public:
  // The projections proj_ and the fast form's body come from FeatureMapAttention
  // (attention/kernels/kernel_util.h): this class gives its feature map phi (feature_map()) and
  // the redraw schedule; the kernel is kernel_attention, the chunked prefix sums.
  explicit Performer(const AttentionConfig& c)
      : FeatureMapAttention(c, "FAVOR+ estimate of exp(q.k/sqrt(d))", std::numeric_limits<float>::min(),
                            KernelNorm::clamp) {  // max(den, FLT_MIN): only 0/0 is guarded
    int64_t d = c.head_dim(), m = knob_int("features");
    if (m == 0) m = std::max<int64_t>(d, int64_t(double(d) * std::log(double(d))));  // d ln d, as performer-pytorch
    projection_ = register_buffer("features", orthogonal_gaussian(m, d, global_rng()));  // W [m,d]
    calls_ = register_buffer("calls", Tensor::zeros({1}));  // training calls since the last draw
  }

  // ---- 2. the redraw: a fresh W every --redraw training steps --------------------------------
  // redraw_due (kernels/kernel_util.h, shared with RFA) counts training steps in the buffer calls_,
  // so a resumed run keeps the schedule.  The draw is made once a step, before the step's shards
  // run (train/parallel.h); the shards never draw, and neither form does.
  void before_step() override {
    if (redraw_due(calls_, knob_int("redraw"), is_training())) redraw();
  }
  // A fresh draw written into the same buffer, so the registered handle stays valid.
  // Shown on the model's page beside reference().
  void redraw() {
    Tensor w = orthogonal_gaussian(projection_.size(0), projection_.size(1), global_rng());
    std::memcpy(projection_.data(), w.data(), sizeof(float) * size_t(w.numel()));
  }

 private:
  // The stabiliser c, subtracted inside exp: a constant factor e^-c that cancels in the ratio, so it
  // takes no gradient (detached, as the public code does).  Queries: each row's max.  Keys: the max
  // over the example's real keys and features, or none when causal (a max over keys would span later
  // keys); 0 for an example with no real key.
  static Tensor query_stabiliser(const Tensor& eq) { return max(eq, 3, /*keepdim=*/true).detach(); }
  Tensor key_stabiliser(const Tensor& ek) const {
    if (cfg_.causal) return Tensor::zeros({1});
    Tensor ck = max(max(ek, 3, /*keepdim=*/true), 2, /*keepdim=*/true).detach();
    for (int64_t i = 0; i < ck.numel(); ++i)
      if (!std::isfinite(ck.data()[i])) ck.data()[i] = 0;
    return ck;
  }
  // -inf at padded keys' exponents [B,H,N,m], so their phi is exp(-inf) = 0.
  static Tensor without_padded_keys(const Tensor& ek, const Tensor& key_pad) {
    if (!key_pad.defined()) return ek;
    return masked_fill(ek, reshape(key_pad, {ek.size(0), 1, ek.size(2), 1}), -INFINITY);
  }

 public:
  // ---- 3. FAVOR+: positive features, then linear attention -----------------------------------
  // The reference form: FAVOR+'s features phi(x) = m^-1/2 exp(W x^ - |x^|^2/2 - c), then linear attention.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);                                 // q, k, v [B,H,N,d]
    int64_t m = projection_.size(0);
    float s = std::pow(float(cfg_.head_dim()), -0.25f);         // x^ = d^-1/4 x
    auto exponent = [&](const Tensor& t) {                      // W x^ - |x^|^2 / 2   [B,H,N,m]
      Tensor xs = t * s;
      return matmul(xs, projection_, /*trans_a=*/false, /*trans_b=*/true) - sum(xs * xs, 3, /*keepdim=*/true) * 0.5f;
    };
    Tensor eq = exponent(h.q), ek = without_padded_keys(exponent(h.k), key_pad);  // a padded key: phi = 0
    Tensor phi_q = exp(eq - query_stabiliser(eq)) * (1.0f / std::sqrt(float(m)));
    Tensor phi_k = exp(ek - key_stabiliser(ek)) * (1.0f / std::sqrt(float(m)));
    return proj_->output(feature_map_attention(phi_q, phi_k, h.v, cfg_.causal, std::numeric_limits<float>::min(),
                                               KernelNorm::clamp));
  }

  // ---- 4. the fast form: the same phi fused (favor_features, with its own backward) ----------
  // (FeatureMapAttention::forward, kernels/kernel_util.h.)  What a model calls (Attention::call): a
  // training call outside a step (a script driving the layer, no trainer) keeps the schedule here,
  // before either form; inside a step redraw_due says no and counts nothing: before_step drew.
  Tensor call(const Tensor& x, const Tensor& key_pad, Impl impl) override {
    if (redraw_due(calls_, knob_int("redraw"), is_training())) redraw();
    return Attention::call(x, key_pad, impl);
  }
  // Generation: the recurrent state S, z (decode.h); causal keys are never shifted, so phi is per position.
  std::unique_ptr<DecodeState> decoder() override {
    return recurrent_state(proj_, [this](const Tensor& x) { return feature_map(x, Tensor()); },
                           std::numeric_limits<float>::min(), KernelNorm::clamp);
  }

 private:
  // phi(q), phi(k) [B,H,N,m] (phi(k) zero at padding) and v [B,H,N,d].
  QKVProjection::Heads feature_map(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);
    float s = std::pow(float(cfg_.head_dim()), -0.25f);
    Tensor w = mul_scalar(projection_, s);      // [m,d], no gradient: a buffer
    Tensor uq = matmul(h.q, w, /*trans_a=*/false, /*trans_b=*/true);    // [B,H,N,m] = x^ W^T
    Tensor uk = matmul(h.k, w, /*trans_a=*/false, /*trans_b=*/true);
    h.q = favor_features(uq, h.q, s, true, Tensor());
    // causal: no max over keys, which would let later tokens move earlier outputs;
    // the exponent is bounded anyway, u - |x^|^2/2 <= |w|^2/2 (about d/2)
    h.k = favor_features(uk, h.k, s, false, key_pad, !cfg_.causal);
    return h;
  }

  Tensor projection_;  // W [m,d], the paper's omega: a buffer, saved as "features" (checkpoints keep the name)
  Tensor calls_;       // [1]: training steps (or calls outside a step) since the last draw
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "performer";
  i.summary = "FAVOR+: positive orthogonal random features estimate softmax, linear in N (Choromanski et al. 2021)";
  i.knobs = {{"features", 0, 0, 8192, "random features m (0 = d ln d of the head size d)"},
             {"redraw", 1000, 0, 1e9, "redraw the features every this many training steps (0 = never)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<Performer>(c); };
  i.causal_ok = true;
  i.family = "low-rank/kernel";
  i.lecture = {10, 4};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
