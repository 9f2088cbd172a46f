// Shared attention pieces (see common.h).
#include "attention/kernels/common.h"

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

Tensor causal_mask(int64_t n) {
  Tensor m = Tensor::zeros({n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) m.data()[i * n + j] = 1.0f;
  return m;
}

Tensor dense_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float scale,
                       float dropout_p, bool training, Tensor* weights) {
  Tensor s = matmul(mul_scalar(q, scale), k, false, true);  // [B,H,N,M]
  Tensor p = softmax(s, mask, true);
  if (weights) *weights = p;
  return matmul(dropout(p, dropout_p, training), v);
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
