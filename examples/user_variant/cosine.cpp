// cosine: scaled cosine attention, a variant that lives outside the zoo
// (examples/README.md, "Your own variant").  `make USER_DIR=examples/user_variant`
// builds it into an attnzoo of its own; `make test` holds it to the conformance
// suite (tests/test_conformance.cpp) beside the zoo's own variants.
//
// Every query attends to every key, as in full attention, but a score is the
// cosine of the query and the key times a learned temperature, one per head:
//   s_ij = tau_h * (q_i . k_j) / (|q_i| |k_j|),   tau_h = exp(t_h),
// so a score stays in [-tau_h, tau_h] however large the activations grow.
// Swin Transformer V2 (Liu et al. 2022, section 3.2) uses it against the
// attention logits that blow up in large models; Henry et al. 2020
// ("Query-Key Normalization for Transformers") proposed it first.  All N x N
// entries are computed: time and memory N^2.  Departure: Swin V2's code caps
// tau at 100; here --tau is its starting value and nothing caps it.
#include <cmath>

#include "attention/common.h"

namespace az {
namespace {

class CosineAttention : public Attention {
 public:
  explicit CosineAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
    // t = log tau, one per head; not weight-decayed (it is a scale, as a norm's gain is)
    log_tau_ = register_parameter("log_tau", Tensor::full({c.heads}, std::log(float(knob("tau")))), Decay::no);
  }

  // The reference form: the cosines, times tau, a softmax over the allowed keys, a weighted sum.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);                                          // q, k, v [B,H,N,d]
    Tensor q = unit_rows(h.q), k = unit_rows(h.k);                      // q_i / |q_i|, k_j / |k_j|
    Tensor cosines = matmul(q, k, /*trans_a=*/false, /*trans_b=*/true);  // [B,H,N,N]
    Tensor s = mul(cosines, tau());                                      // times tau_h
    Tensor p = softmax(s, excluded_keys(key_pad, cfg_.causal, x.size(1)), /*mask_is_bool=*/true);
    p = dropout(p, cfg_.dropout, is_training());                         // attention dropout (training only)
    return proj_->output(matmul(p, h.v));                                // [B,H,N,d] -> [B,N,D]
  }

  // The fast form: the unit queries scaled by tau, then the fused softmax attention
  // (common.h) at scale 1, which draws the same dropout mask as reference()'s.
  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);
    Tensor q = mul(unit_rows(h.q), tau());
    Tensor out = dense_attention(q, unit_rows(h.k), h.v, excluded_keys(key_pad, cfg_.causal, x.size(1)), 1.0f,
                                 cfg_.dropout, is_training());
    return proj_->output(out);
  }

 private:
  // [B,H,N,d] -> each row divided by its length (eps keeps a zero row finite)
  static Tensor unit_rows(const Tensor& t) { return div(t, sqrt(add_scalar(sum(mul(t, t), 3, true), 1e-6f))); }
  Tensor tau() const { return reshape(exp(log_tau_), {1, cfg_.heads, 1, 1}); }  // [1,H,1,1]

  std::shared_ptr<QKVProjection> proj_;
  Tensor log_tau_;
};

// The registration, field by field: the name, a line for `attnzoo models`, its one
// setting (a Knob row: flag, default, range, help), the factory, and what it promises.
AttentionInfo cosine_info() {
  AttentionInfo i;
  i.name = "cosine";
  i.summary = "scaled cosine attention: tau * cos(q_i, k_j), tau learned per head (Liu et al. 2022, Swin V2)";
  i.knobs = {{"tau", 10, 0.01, 1000, "starting temperature tau (learned, one per head)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<CosineAttention>(c); };
  i.causal_ok = true;  // later keys masked as full attention masks them
  i.family = "dense";
  return i;
}
RegisterAttention reg(cosine_info());

}  // namespace
}  // namespace az
