// full: the Transformer's softmax attention (Vaswani et al., 2017).
//
// Every query attends to every key: all N x N entries of softmax(QK^T/sqrt(d))
// are computed and stored, so time and memory grow as N^2 (per head, per
// example).  This is the plain textbook version and the baseline that every
// other variant is measured against; keep it simple.  It has no fused kernel
// (flash is its fused form): forward() runs dense_attention (common.h), and
// reference() below writes the same three steps out.
#include <cmath>

#include "attention/common.h"
#include "attention/decode/decode.h"

namespace az {
namespace {

class FullAttention : public Attention {
 public:
  explicit FullAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
  }

  // The reference form: every score, a softmax over the allowed keys, a weighted sum of values.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);                                          // q, k, v [B,H,N,d]
    int64_t N = x.size(1), d = cfg_.head_dim();
    Tensor s = matmul(h.q, h.k, /*trans_a=*/false, /*trans_b=*/true) * (1.0f / std::sqrt(float(d)));  // [B,H,N,N] s_ij = q_i.k_j / sqrt(d)
    Tensor p = softmax(s, excluded_keys(key_pad, cfg_.causal, N), /*mask_is_bool=*/true);       // rows sum to 1 over allowed keys
    p = dropout(p, cfg_.dropout, is_training());                        // attention dropout (training only)
    return proj_->output(matmul(p, h.v));                               // [B,H,N,d] -> [B,N,D]
  }

  Tensor forward(const Tensor& x, const Tensor& key_pad) override { return run(x, key_pad, nullptr); }

  // Generation: a KV cache of every past key and value (decode.h).
  std::unique_ptr<DecodeState> decoder() override { return kv_cache_state(proj_, cfg_.heads, -1, 1); }

  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    Tensor w;
    run(x, key_pad, &w);
    return reshape(w, {w.size(1), w.size(2), w.size(3)});
  }

 private:
  Tensor run(const Tensor& x, const Tensor& key_pad, Tensor* weights) {
    auto h = proj_->project(x);  // q, k, v [B,H,N,d]
    Tensor mask = excluded_keys(key_pad, cfg_.causal, x.size(1));  // nonzero = excluded
    float scale = 1.0f / std::sqrt(float(cfg_.head_dim()));
    Tensor out = dense_attention(h.q, h.k, h.v, mask, scale, cfg_.dropout, is_training(), weights);
    return proj_->output(out);
  }
  std::shared_ptr<QKVProjection> proj_;
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "full";
  i.summary = "softmax(QK^T/sqrt(d))V over all N x N pairs (Vaswani et al. 2017)";
  i.make = [](const AttentionConfig& c) { return std::make_shared<FullAttention>(c); };
  i.causal_ok = true;
  i.family = "dense";
  i.lecture = {1, 1};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
