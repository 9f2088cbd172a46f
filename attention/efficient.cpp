// efficient: Efficient Attention (Shen et al., "Efficient Attention: Attention
// with Linear Complexities", WACV 2021; conventions of cmsflash/efficient-attention).
//
// Instead of one softmax over the N x N scores, two cheap ones:
//   rho_q(Q) = softmax of each query over its d features,
//   rho_k(K) = softmax of each key feature over the N positions (padding excluded),
//   out = rho_q(Q) (rho_k(K)^T V).
// The implied matrix rho_q(Q) rho_k(K)^T is dense over the non-padded keys and
// exactly row-stochastic (each row sums to sum_t rho_q_it = 1), but it is never
// formed: rho_k(K)^T V is d x d, so the cost is N d^2 per head.  No causal form
// (the softmax over positions sees every key).
//
// forward() uses the fused position softmax (kernels/kernel_util.h);
// reference() writes both softmaxes with the plain softmax op.
#include "attention/common.h"
#include "attention/kernels/kernel_util.h"

namespace az {
namespace {

class EfficientAttention : public Attention {
 public:
  explicit EfficientAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
  }

  // The reference form: each query softmaxed over its features, each key feature softmaxed over the
  // positions (padding excluded), then rho_q(Q) (rho_k(K)^T V).
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);                                              // q, k, v [B,H,N,d]
    Tensor rq = softmax(h.q);                                                // rho_q: over the d features
    Tensor pad = key_pad.defined() ? key_mask(key_pad) : Tensor();           // [B,1,1,N]
    Tensor rk_t = softmax(transpose(h.k, 2, 3), pad, /*mask_is_bool=*/true);                  // rho_k^T [B,H,d,N]: over positions
    return proj_->output(matmul(rq, matmul(rk_t, h.v)));                     // [B,H,N,d] (d x d context)
  }

  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    Tensor rq, rk, v;
    normalised(x, key_pad, rq, rk, v);
    Tensor context = matmul(rk, v, /*trans_a=*/true, /*trans_b=*/false);  // rho_k^T V: [B,H,d,N] x [B,H,N,d] -> [B,H,d,d]
    return proj_->output(matmul(rq, context));
  }

  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {
    return all_keys_pattern(x.size(1), key_pad, false, "softmax_d(q) . softmax_N(k)");
  }

  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    Tensor rq, rk, v;
    normalised(x, key_pad, rq, rk, v);
    Tensor w = matmul(rq, rk, /*trans_a=*/false, /*trans_b=*/true);  // [1,H,N,N]
    return reshape(w, {w.size(1), w.size(2), w.size(3)});
  }

 private:
  // rq (softmax over features), rk (softmax over positions, padding excluded), v: all [B,H,N,d].
  void normalised(const Tensor& x, const Tensor& key_pad, Tensor& rq, Tensor& rk, Tensor& v) {
    auto h = proj_->project(x);
    rq = softmax(h.q);
    rk = softmax_positions(h.k, key_pad);
    v = h.v;
  }

  std::shared_ptr<QKVProjection> proj_;
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "efficient";
  i.summary = "softmax_d(Q) (softmax_N(K)^T V), linear in N (Shen et al. 2021)";
  i.make = [](const AttentionConfig& c) { return std::make_shared<EfficientAttention>(c); };
  i.causal_ok = false;
  i.family = "low-rank/kernel";
  i.lecture = {10, 2};
  i.why_not_causal = "its softmax over positions normalises every key by later ones";
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
