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
// cost is N d^2 per head in time and N d in memory.  forward() runs the fused
// kernel (kernels/kernel_util.h: chunked prefix sums, hand-written backward);
// reference() below is the same in composed ops.
#include "attention/common.h"
#include "attention/decode/decode.h"
#include "attention/kernels/kernel_util.h"

namespace az {
namespace {

class LinearAttention : public FeatureMapAttention {
 public:
  // The fast form, forward(), and the projections proj_ come from FeatureMapAttention
  // (attention/kernels/kernel_util.h): this class gives only its feature map phi (feature_map());
  // the kernel is kernel_attention, the chunked prefix sums.
  explicit LinearAttention(const AttentionConfig& c)
      : FeatureMapAttention(c, "kernel elu(q)+1 . elu(k)+1", 1e-6f) {}

  // The reference form: phi = elu + 1 on queries and keys, then phi(Q) (phi(K)^T V) / (phi(Q) phi(K)^T 1 + 1e-6).
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);                                         // q, k, v [B,H,N,d]
    Tensor phi_q = elu(h.q) + 1.0f, phi_k = elu(h.k) + 1.0f;            // [B,H,N,d], positive
    if (key_pad.defined()) phi_k = phi_k * key_keep(key_pad);           // padded keys add nothing to the sums
    return proj_->output(feature_map_attention(phi_q, phi_k, h.v, cfg_.causal, 1e-6f, KernelNorm::add_eps));
  }

  // Generation: the recurrent state S, z (decode.h), constant cost per token.
  std::unique_ptr<DecodeState> decoder() override {
    return recurrent_state(proj_, [this](const Tensor& x) { return feature_map(x, Tensor()); }, 1e-6f, KernelNorm::add_eps);
  }

 private:
  // phi(q), phi(k) [B,H,N,d] (phi(k) zero at padding) and v.
  QKVProjection::Heads feature_map(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);
    h.q = elu1_features(h.q, Tensor());
    h.k = elu1_features(h.k, key_pad);  // zero at padding: padded keys add nothing to the sums
    return h;
  }
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "linear";
  i.summary = "phi(Q)(phi(K)^T V) with phi = elu+1, causal by prefix sums (Katharopoulos et al. 2020)";
  i.make = [](const AttentionConfig& c) { return std::make_shared<LinearAttention>(c); };
  i.causal_ok = true;
  i.family = "low-rank/kernel";
  i.lecture = {10, 1};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
