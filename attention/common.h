// Pieces shared by the attention variants: the Q/K/V/output projections,
// splitting into heads, padding and causal masks, the plain dense attention
// that is the `full` variant's core, and what the reference forms (each
// variant's reference(), attention.h) build their masks with.
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
// key_pad [B,N] -> [B,1,N,1] with 1 at real tokens (multiplies [B,H,N,d]).
Tensor key_keep(const Tensor& key_pad);
// The boolean causal mask [N,N]: 1 above the diagonal (a query may not see later keys).
Tensor causal_mask(int64_t n);
// Both, as softmax attention excludes them: padded keys and (causal) later keys,
// broadcasting to [B,H,N,N], nonzero = excluded; undefined when nothing is.
Tensor excluded_keys(const Tensor& key_pad, bool causal, int64_t n);
// A pattern written as its rule: the mask [N,N] (nonzero = excluded) of the
// entries allowed(i, j) leaves out.  The reference forms of the fixed patterns
// (local, strided, global, longformer, bigbird) state their rule with it.
Tensor mask_from_rule(int64_t n, const std::function<bool(int64_t i, int64_t j)>& allowed);

// softmax(q k^T * scale, excluded where mask != 0) v, with the mask
// broadcasting to [B,H,N,M].  q [B,H,N,d], k and v [B,H,M,d(v)].
// Optionally returns the weights [B,H,N,M].
Tensor dense_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float scale,
                       float dropout_p = 0.0f, bool training = false, Tensor* weights = nullptr);

// The reference form of a fixed pattern: softmax attention through `proj`
// over the entries `mask` allows ([N,N] for every head, or [H,N,N] one per
// head; nonzero = excluded) and the keys key_pad does not pad.  x [B,N,D] ->
// [B,N,D].  Every one of the N x N scores is computed, then most are
// excluded: the plain statement of a pattern, not an efficient variant.
Tensor masked_attention(const QKVProjection& proj, const Tensor& x, const Tensor& mask, const Tensor& key_pad,
                        float dropout_p = 0.0f, bool training = false);

// How the row normaliser den_i = sum_j A_ij is protected: den + eps (linear:
// A >= 0, eps = 1e-6 as fast-transformers), or max(den, eps) (RFA: sin/cos
// features can give den <= 0, and the RFA code clamps it; Performer: eps =
// FLT_MIN, which no real denominator falls below, so the ratio is exact and only
// 0/0, a row whose keys are all padding, is guarded: it gives 0).
enum class KernelNorm { add_eps, clamp };

// The reference form of the feature-map variants (linear, performer, rfa):
//   out_i = phi(q_i)^T S / norm(phi(q_i)^T z),  S = sum_j phi(k_j) v_j^T [m,d],  z = sum_j phi(k_j) [m],
// the sums over every key, or (causal) over j <= i as prefix sums (cumsum over
// positions of the outer products: an [N,m,d] array per head, the RNN view of
// Katharopoulos et al.).  norm: den + eps, or max(den, eps).  phi_q, phi_k
// [B,H,N,m] (phi_k zero at padded keys), v [B,H,N,d] -> [B,H,N,d].
Tensor feature_map_attention(const Tensor& phi_q, const Tensor& phi_k, const Tensor& v, bool causal, float eps,
                             KernelNorm norm);

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
