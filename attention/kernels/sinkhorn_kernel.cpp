// The fused form of Sinkhorn attention (attention/sinkhorn.cpp, the model's page): once the learned
// sort has given P, the sorted key and value blocks are mixed by P and every query block attends to
// [its sorted block(s) || its own block] in one call of the chunk kernel (cluster_util.h).
#include <cmath>

#include "attention/kernels/cluster_util.h"
#include "attention/sinkhorn.h"

namespace az {

Tensor sorted_block_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& P,
                              const Tensor& key_pad, int64_t block, int64_t sortcut, float scale, float dropout_p,
                              bool training, std::vector<float>* weights) {
  if (q.dim() != 4 || k.shape() != q.shape() || v.shape() != q.shape() || block < 1 || q.size(2) % block)
    fail("sorted_block_attention: q, k, v " + shape_str(q.shape()) + " must be [B,H,n*block,d] with block " +
         std::to_string(block));
  int64_t B = q.size(0), H = q.size(1), Np = q.size(2), d = q.size(3), G = B * H, nb = Np / block;
  if (P.shape() != Shape{B, H, nb, nb})
    fail("sorted_block_attention: P " + shape_str(P.shape()) + " must be " + shape_str({B, H, nb, nb}));
  if (key_pad.defined() && key_pad.shape() != Shape{B, Np})
    fail("sorted_block_attention: key padding " + shape_str(key_pad.shape()) + " must be " + shape_str({B, Np}));
  int64_t nS = sortcut > 0 ? std::min(sortcut, nb) : nb;  // sorted blocks built

  // Zero padded keys and values, then mix blocks: sorted block s = sum_j P_sj block j.
  Tensor valid;
  Tensor kz = k, vz = v;
  if (key_pad.defined()) {
    valid = Tensor::empty({B, 1, Np, 1});
    for (int64_t i = 0; i < B * Np; ++i) valid.data()[i] = key_pad.data()[i] != 0 ? 0.0f : 1.0f;
    kz = mul(k, valid), vz = mul(v, valid);
  }
  Tensor Ps = nS < nb ? narrow(P, 2, 0, nS) : P;  // [B,H,nS,nb]
  Tensor ks = matmul(Ps, reshape(kz, {B, H, nb, block * d}));  // [B,H,nS,block*d]
  Tensor vs = matmul(Ps, reshape(vz, {B, H, nb, block * d}));

  Chunks ch;
  int64_t Nk = Np + nS * block, sorted_len = sortcut > 0 ? nS * block : block, ck = sorted_len + block;
  ch.q_rows = IntTensor({G, nb, block}, std::vector<int32_t>(size_t(G * Np)));
  ch.k_rows = IntTensor({G, nb, ck}, std::vector<int32_t>(size_t(G * nb * ck)));
  ch.k_out.assign(size_t(G * Nk), 0);
  const float* pp = Ps.data();
  for (int64_t g = 0; g < G; ++g) {
    int64_t b = g / H;
    for (int64_t i = 0; i < nb; ++i)
      for (int64_t t = 0; t < block; ++t) ch.q_rows.data[size_t(g * Np + i * block + t)] = int32_t(i * block + t);
    for (int64_t i = 0; i < nb; ++i) {  // keys: [sorted block(s) || own block]
      int32_t* kr = ch.k_rows.data.data() + (g * nb + i) * ck;
      int64_t first = sortcut > 0 ? 0 : i * block;
      for (int64_t s = 0; s < sorted_len; ++s) kr[s] = int32_t(Np + first + s);
      for (int64_t t = 0; t < block; ++t) kr[sorted_len + t] = int32_t(i * block + t);
    }
    if (!key_pad.defined()) continue;
    for (int64_t n = 0; n < Np; ++n) ch.k_out[size_t(g * Nk + n)] = key_pad.data()[b * Np + n] != 0;
    // Sorted slot (s, t) is padding when most of its mass sum_j P_sj comes from padded tokens.
    for (int64_t s = 0; s < nS; ++s)
      for (int64_t t = 0; t < block; ++t) {
        float mass = 0;
        for (int64_t j = 0; j < nb; ++j) mass += pp[(g * nS + s) * nb + j] * valid.data()[b * Np + j * block + t];
        ch.k_out[size_t(g * Nk + Np + s * block + t)] = mass < 0.5f;
      }
  }
  Tensor kk = concat({reshape(k, {G, Np, d}), reshape(ks, {G, nS * block, d})}, 1);
  Tensor vv = concat({reshape(v, {G, Np, d}), reshape(vs, {G, nS * block, d})}, 1);
  ChunkResult res = chunk_attention(reshape(q, {G, Np, d}), kk, vv, ch, scale, dropout_p, training, weights);
  return reshape(res.out, {B, H, Np, d});
}

}  // namespace az
