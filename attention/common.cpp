// Shared attention pieces (see common.h).
#include "attention/common.h"

#include <cmath>

namespace az {

Tensor split_heads(const Tensor& x, int64_t heads) {
  if (x.dim() != 3 || x.size(2) % heads)
    fail("split_heads: input " + shape_str(x.shape()) + " must be [B,N,D] with D divisible by " + std::to_string(heads));
  int64_t B = x.size(0), N = x.size(1), D = x.size(2);
  return permute(reshape(x, {B, N, heads, D / heads}), {0, 2, 1, 3});
}

Tensor merge_heads(const Tensor& x) {
  if (x.dim() != 4) fail("merge_heads: input " + shape_str(x.shape()) + " must be [B,H,N,d]");
  int64_t B = x.size(0), H = x.size(1), N = x.size(2), d = x.size(3);
  return reshape(permute(x, {0, 2, 1, 3}), {B, N, H * d});
}

QKVProjection::QKVProjection(int64_t dim, int64_t heads, bool shared_qk) : heads_(heads) {
  q = register_module("q", std::make_shared<Linear>(dim, dim));
  if (!shared_qk) k = register_module("k", std::make_shared<Linear>(dim, dim));
  v = register_module("v", std::make_shared<Linear>(dim, dim));
  o = register_module("o", std::make_shared<Linear>(dim, dim));
}

QKVProjection::Heads QKVProjection::project(const Tensor& x) const {
  Heads h;
  h.q = split_heads(q->forward(x), heads_);
  h.k = k ? split_heads(k->forward(x), heads_) : h.q;
  h.v = split_heads(v->forward(x), heads_);
  return h;
}

Tensor QKVProjection::output(const Tensor& heads) const { return o->forward(merge_heads(heads)); }

Tensor key_mask(const Tensor& key_pad) {
  if (key_pad.dim() != 2) fail("key padding mask must be [B,N], got " + shape_str(key_pad.shape()));
  return reshape(key_pad, {key_pad.size(0), 1, 1, key_pad.size(1)});
}

Tensor key_keep(const Tensor& key_pad) {
  if (key_pad.dim() != 2) fail("key padding mask must be [B,N], got " + shape_str(key_pad.shape()));
  Tensor k = Tensor::empty({key_pad.size(0), 1, key_pad.size(1), 1});
  for (int64_t i = 0; i < key_pad.numel(); ++i) k.data()[i] = key_pad.data()[i] != 0 ? 0.0f : 1.0f;
  return k;
}

Tensor causal_mask(int64_t n) {
  Tensor m = Tensor::zeros({n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) m.data()[i * n + j] = 1.0f;
  return m;
}

Tensor excluded_keys(const Tensor& key_pad, bool causal, int64_t n) {
  Tensor mask;
  if (key_pad.defined()) mask = key_mask(key_pad);  // [B,1,1,N]
  if (causal) {
    Tensor c = reshape(causal_mask(n), {1, 1, n, n});
    mask = mask.defined() ? add(mask, c) : c;
  }
  return mask;
}

Tensor mask_from_rule(int64_t n, const std::function<bool(int64_t i, int64_t j)>& allowed) {
  Tensor m = Tensor::empty({n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) m.data()[i * n + j] = allowed(i, j) ? 0.0f : 1.0f;
  return m;
}

Tensor dense_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float scale,
                       float dropout_p, bool training, Tensor* weights) {
  Tensor s = matmul(mul_scalar(q, scale), k, /*trans_a=*/false, /*trans_b=*/true);  // [B,H,N,M]
  Tensor p = softmax(s, mask, /*mask_is_bool=*/true);
  if (weights) *weights = p;
  return matmul(dropout(p, dropout_p, training), v);
}

Tensor masked_attention(const QKVProjection& proj, const Tensor& x, const Tensor& mask, const Tensor& key_pad,
                        float dropout_p, bool training) {
  auto h = proj.project(x);  // q, k, v [B,H,N,d]
  int64_t N = x.size(1), heads = mask.dim() == 3 ? mask.size(0) : 1;
  Tensor m = reshape(mask, {1, heads, N, N});
  if (key_pad.defined()) m = add(m, key_mask(key_pad));  // [B,H,N,N]
  return proj.output(dense_attention(h.q, h.k, h.v, m, 1.0f / std::sqrt(float(h.q.size(3))), dropout_p, training));
}

Tensor feature_map_attention(const Tensor& phi_q, const Tensor& phi_k, const Tensor& v, bool causal, float eps,
                             KernelNorm norm) {
  int64_t B = v.size(0), H = v.size(1), N = v.size(2), d = v.size(3), m = phi_k.size(3);
  Tensor num, den;
  if (!causal) {
    Tensor S = matmul(phi_k, v, /*trans_a=*/true, /*trans_b=*/false);  // [B,H,m,d]  phi(K)^T V
    Tensor z = sum(phi_k, 2, /*keepdim=*/true);            // [B,H,1,m]  phi(K)^T 1
    num = matmul(phi_q, S);                    // [B,H,N,d]
    den = sum(phi_q * z, 3, /*keepdim=*/true);             // [B,H,N,1]
  } else {
    Tensor outer = reshape(phi_k, {B, H, N, m, 1}) * reshape(v, {B, H, N, 1, d});  // phi(k_j) v_j^T [B,H,N,m,d]
    Tensor S = cumsum(outer, 2);                                                   // S_i = sum_{j<=i}
    Tensor z = cumsum(phi_k, 2);                                                   // z_i = sum_{j<=i} phi(k_j)
    num = sum(reshape(phi_q, {B, H, N, m, 1}) * S, 3);                             // phi(q_i)^T S_i [B,H,N,d]
    den = sum(phi_q * z, 3, /*keepdim=*/true);                                                 // phi(q_i)^T z_i [B,H,N,1]
  }
  den = norm == KernelNorm::add_eps ? den + eps : relu(den - eps) + eps;  // den + eps, or max(den, eps)
  return num / den;
}

Tensor dense_reference(const Module& att, const Tensor& x, const Tensor& mask, int64_t heads, const std::string& prefix,
                       bool shared_qk) {
  auto param = [&](const std::string& name) {
    for (auto& p : att.named_parameters())
      if (p.name == name) return p.tensor;
    fail("dense_reference: the module has no parameter named " + name);
  };
  auto lin = [&](const std::string& n, const Tensor& in) {
    return add(matmul(in, param(prefix + n + ".weight")), param(prefix + n + ".bias"));
  };
  Tensor q = split_heads(lin("q", x), heads);
  Tensor k = shared_qk ? q : split_heads(lin("k", x), heads);
  Tensor v = split_heads(lin("v", x), heads);
  float scale = 1.0f / std::sqrt(float(q.size(3)));
  return lin("o", merge_heads(dense_attention(q, k, v, mask, scale)));
}

}  // namespace az
