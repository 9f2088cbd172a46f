// linear: the Linear Transformer (Katharopoulos et al., "Transformers are
// RNNs", ICML 2020; conventions of idiap/fast-transformers LinearAttention and
// CausalLinearAttention).
//
// exp(q.k) is replaced by the kernel phi(q).phi(k) with phi(x) = elu(x) + 1 > 0.
// The implied N x N matrix is dense (every non-padded key, or every earlier
// key when causal), A_ij = phi(q_i).phi(k_j) / sum_j' phi(q_i).phi(k_j'), but
// it is never formed: by associativity
//   out_i = phi(q_i)^T (sum_j phi(k_j) v_j^T) / (phi(q_i)^T sum_j phi(k_j) + 1e-6),
// both sums are computed once (non-causal) or as prefix sums (causal), so the
// cost is N d^2 per head in time and N d in memory.
#include "attention/common.h"
#include "attention/kernel_util.h"

namespace az {
namespace {

class LinearAttention : public Attention {
 public:
  explicit LinearAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
  }

  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    auto h = features(x, key_pad);
    return proj_->output(kernel_attention(h.q, h.k, h.v, cfg_.causal, kEps));
  }

  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {
    return all_keys_pattern(x.size(1), key_pad, cfg_.causal, "kernel elu(q)+1 . elu(k)+1");
  }

  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    auto h = features(x, key_pad);
    Tensor w = kernel_weights(h.q, h.k, cfg_.causal, kEps);
    return reshape(w, {w.size(1), w.size(2), w.size(3)});
  }

 private:
  static constexpr float kEps = 1e-6f;

  // phi(q), phi(k) [B,H,N,d] (phi(k) zero at padding) and v.
  QKVProjection::Heads features(const Tensor& x, const Tensor& key_pad) {
    auto h = proj_->project(x);
    h.q = elu1_features(h.q, Tensor());
    h.k = elu1_features(h.k, key_pad);  // zero at padding: padded keys add nothing to the sums
    return h;
  }

  std::shared_ptr<QKVProjection> proj_;
};

RegisterAttention reg({"linear",
                       "phi(Q)(phi(K)^T V) with phi = elu+1, causal by prefix sums (Katharopoulos et al. 2020)",
                       {},
                       [](const AttentionConfig& c) { return std::make_shared<LinearAttention>(c); }, true,
                       "low-rank/kernel"});

}  // namespace
}  // namespace az
