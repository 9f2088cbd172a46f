// full: the Transformer's softmax attention (Vaswani et al., 2017).
//
// Every query attends to every key: all N x N entries of softmax(QK^T/sqrt(d))
// are computed and stored, so time and memory grow as N^2 (per head, per
// example).  This is the plain textbook version and the baseline that every
// other variant is measured against; keep it simple.
#include <cmath>

#include "attention/kernels/common.h"
#include "attention/decode/decode.h"

namespace az {
namespace {

class FullAttention : public Attention {
 public:
  explicit FullAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
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
    int64_t N = x.size(1);
    Tensor mask;
    if (key_pad.defined()) mask = key_mask(key_pad);                 // [B,1,1,N]
    if (cfg_.causal) {
      Tensor c = reshape(causal_mask(N), {1, 1, N, N});
      mask = mask.defined() ? add(mask, c) : c;                      // nonzero = excluded
    }
    float scale = 1.0f / std::sqrt(float(cfg_.head_dim()));
    Tensor out = dense_attention(h.q, h.k, h.v, mask, scale, cfg_.dropout, is_training(), weights);
    return proj_->output(out);
  }
  std::shared_ptr<QKVProjection> proj_;
};

RegisterAttention reg({"full", "softmax(QK^T/sqrt(d))V over all N x N pairs (Vaswani et al. 2017)", {},
                       [](const AttentionConfig& c) { return std::make_shared<FullAttention>(c); }, true, "dense"});

}  // namespace
}  // namespace az
