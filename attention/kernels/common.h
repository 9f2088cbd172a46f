// Pieces shared by the attention variants: the Q/K/V/output projections,
// splitting into heads, padding masks, and the plain dense attention that is
// both the `full` variant's core and every fast variant's test reference.
#pragma once
#include "attention/attention.h"

namespace az {

// x [B,N,D] -> [B,H,N,d]  and back.
Tensor split_heads(const Tensor& x, int64_t heads);
Tensor merge_heads(const Tensor& x);

// Q, K, V and output projections (Linear D -> D each).  With shared_qk the
// keys are the queries (Reformer).
class QKVProjection : public Module {
 public:
  QKVProjection(int64_t dim, int64_t heads, bool shared_qk = false);
  struct Heads {
    Tensor q, k, v;  // [B,H,N,d]
  };
  Heads project(const Tensor& x) const;         // x [B,N,D]
  Tensor output(const Tensor& heads) const;     // [B,H,N,d] -> merged -> Linear -> [B,N,D]
  std::shared_ptr<Linear> q, k, v, o;
  int64_t heads_;
};

// key_pad [B,N] (1 = padding) -> boolean mask [B,1,1,N] for scores [B,H,N,N].
Tensor key_mask(const Tensor& key_pad);
// The boolean causal mask [N,N]: 1 above the diagonal (a query may not see later keys).
Tensor causal_mask(int64_t n);

// softmax(q k^T * scale, excluded where mask != 0) v, with the mask
// broadcasting to [B,H,N,M].  q [B,H,N,d], k and v [B,H,M,d(v)].
// Optionally returns the weights [B,H,N,M].
Tensor dense_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float scale,
                       float dropout_p = 0.0f, bool training = false, Tensor* weights = nullptr);

// The plain composed reference every fast variant is tested against
// (tests/attention_check.h): the variant's own projections, registered as
// "<prefix>q", "k", "v", "o" (QKVProjection), around dense_attention with the
// variant's pattern as a mask (broadcasting to [B,H,N,N], nonzero = excluded).
// Every entry outside the mask is computed, so it is only for small N: the
// fast variant computes only the entries the mask keeps.  shared_qk: keys are
// the queries (Reformer).  x [B,N,D] -> [B,N,D].
Tensor dense_reference(const Module& att, const Tensor& x, const Tensor& mask, int64_t heads,
                       const std::string& prefix = "proj.", bool shared_qk = false);

}  // namespace az
