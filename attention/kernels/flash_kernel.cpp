// The fused kernel behind attention/flash.cpp: FlashAttention's forward and its FA-2 backward
// over the shared tile engine (tile.h), in parallel over (batch, head).  The algorithm, its
// recurrence and the reference form in composed ops are on the model's own page, flash.cpp.
//
// One (batch, head) runs its query blocks of Br rows against key blocks of Bc: each tile's
// scores S = Q_i K_j^T / sqrt(d) (masked), the online softmax's running max m and sum l, and
// O; backward recomputes P = exp(S - L) tile by tile with D = rowsum(dO * O).
#include <omp.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attention/common.h"
#include "attention/decode/decode.h"
#include "attention/flash.h"
#include "attention/kernels/tile.h"
#include "autograd/internal.h"

namespace az {

namespace {

struct FlashShape {
  int64_t units, N, d, br, bc;
  bool causal;
  float scale;
};

// Xt = scale X^T for X [N,d], key block by key block: block j0 (bc rows) is [d,bc] at
// Xt + j0 d, leading dimension bc.  One [d,N] transpose would give the tile products rows
// N floats apart, and at N = 4096 that stride (16 KB) maps every row of a tile to the
// same L1 cache sets.
void blocked_t(const FlashShape& s, const float* X, float scale, float* Xt) {
  for (int64_t j0 = 0; j0 < s.N; j0 += s.bc)
    tile::transpose_scaled(X + j0 * s.d, std::min(s.bc, s.N - j0), s.d, scale, Xt + j0 * s.d);
}

// S [br,bc] = scale * Q_i K_j^T, then -inf where the key is padding or (causal) in the future:
// the rows and columns that meet in this tile; the rest is the tile engine's.  Kt = scale K^T
// transposed once per (batch, head) in key blocks (blocked_t), so each tile's product is a
// plain one.
void score_tile(const FlashShape& s, const float* Q, const float* Kt, const float* pad, int64_t i0, int64_t br,
                int64_t j0, int64_t bc, float* S) {
  tile::scores_t({Q + i0 * s.d, s.d}, {Kt + j0 * s.d, bc}, br, bc, s.d, S);
  tile::mask_columns(S, br, bc, pad ? pad + j0 : nullptr);
  if (s.causal) tile::mask_causal(S, br, bc, i0, j0);
}

// One (batch, head) u: O [N,d] and L [N] from Q, K, V [N,d].  Dropout weight (u, i, j)
// is number (u N + i) N + j, as dropout() numbers full attention's [B,H,N,N] weights.
void flash_forward_unit(const FlashShape& s, int64_t u, const float* Q, const float* K, const float* V,
                        const float* pad, const tile::Dropout& drop, float* O, float* L, std::vector<float>& S,
                        std::vector<float>& Pd, std::vector<float>& Kt) {
  std::vector<float> m(size_t(s.br)), l(size_t(s.br));
  blocked_t(s, K, s.scale, Kt.data());
  for (int64_t i0 = 0; i0 < s.N; i0 += s.br) {
    int64_t br = std::min(s.br, s.N - i0);
    std::fill(m.begin(), m.end(), -std::numeric_limits<float>::infinity());
    std::fill(l.begin(), l.end(), 0.0f);
    float* Oi = O + i0 * s.d;
    std::fill(Oi, Oi + br * s.d, 0.0f);
    for (int64_t j0 = 0; j0 < s.N; j0 += s.bc) {
      if (s.causal && j0 > i0 + br - 1) break;  // the whole key block is in the future
      int64_t bc = std::min(s.bc, s.N - j0);
      score_tile(s, Q, Kt.data(), pad, i0, br, j0, bc, S.data());
      tile::online_rows(S.data(), br, bc, m.data(), l.data(), Oi, s.d, s.d);
      const float* Pm = S.data();
      if (drop.on) {  // the mask on the unnormalised weights: the same after dividing by l
        drop.apply(S.data(), Pd.data(), br, bc, uint64_t((u * s.N + i0) * s.N + j0), s.N);
        Pm = Pd.data();
      }
      tile::gemm(false, false, br, s.d, bc, 1.0f, Pm, bc, V + j0 * s.d, s.d, 1.0f, Oi, s.d);
    }
    tile::online_finish(br, m.data(), l.data(), Oi, s.d, s.d, L + i0);
  }
}

void flash_backward_unit(const FlashShape& s, int64_t u, const float* Q, const float* K, const float* V,
                         const float* pad, const tile::Dropout& drop, const float* O, const float* L, const float* dO,
                         float* dQ, float* dK, float* dV, std::vector<float>& S, std::vector<float>& dP,
                         std::vector<float>& Pd, std::vector<float>& Kt, std::vector<float>& Vt) {
  std::vector<float> D(size_t(s.N));
  blocked_t(s, K, s.scale, Kt.data());
  blocked_t(s, V, 1.0f, Vt.data());
  tile::row_dots({dO, s.d}, {O, s.d}, s.N, s.d, D.data());
  for (int64_t i0 = 0; i0 < s.N; i0 += s.br) {
    int64_t br = std::min(s.br, s.N - i0);
    for (int64_t j0 = 0; j0 < s.N; j0 += s.bc) {
      if (s.causal && j0 > i0 + br - 1) break;
      int64_t bc = std::min(s.bc, s.N - j0);
      score_tile(s, Q, Kt.data(), pad, i0, br, j0, bc, S.data());
      tile::probs_from_lse(S.data(), br, bc, L + i0);
      tile::backward_scores(S.data(), {dO + i0 * s.d, s.d}, {Vt.data() + j0 * s.d, bc}, br, bc, s.d, D.data() + i0, nullptr,
                            drop, uint64_t((u * s.N + i0) * s.N + j0), s.N, {dV + j0 * s.d, s.d, 1.0f}, dP.data(),
                            Pd.data(), true);
      tile::backward_qk(dP.data(), {Q + i0 * s.d, s.d}, {K + j0 * s.d, s.d}, br, bc, s.d, s.scale,
                        {dQ + i0 * s.d, s.d, 1.0f}, {dK + j0 * s.d, s.d, 1.0f});
    }
  }
}

}  // namespace

int64_t flash_block_k(int64_t d) {
  int64_t bc = 256;
  while (bc > 64 && bc * std::max<int64_t>(d, 1) > 8192) bc /= 2;
  return bc;
}

// q, k, v [B,H,N,d]; key_pad [B,N] (1 = padding) or undefined -> [B,H,N,d].
Tensor flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& key_pad, bool causal,
                       float scale, int64_t block_q, int64_t block_k, float dropout_p, bool training, Rng& rng) {
  OpScope prof("flash_attention");
  if (q.dim() != 4 || k.shape() != q.shape() || v.shape() != q.shape())
    fail("flash_attention: q " + shape_str(q.shape()) + ", k " + shape_str(k.shape()) + ", v " +
         shape_str(v.shape()) + " must all be [B,H,N,d]");
  int64_t B = q.size(0), H = q.size(1), N = q.size(2), d = q.size(3);
  if (key_pad.defined() && key_pad.shape() != Shape{B, N})
    fail("flash_attention: key padding mask " + shape_str(key_pad.shape()) + " must be [" + std::to_string(B) + "," +
         std::to_string(N) + "]");
  if (dropout_p < 0 || dropout_p >= 1) fail("flash_attention: dropout must be in [0,1), got " + std::to_string(dropout_p));
  FlashShape s{B * H, N, d, std::max<int64_t>(1, block_q), block_k > 0 ? block_k : flash_block_k(d), causal, scale};
  const tile::Dropout drop = tile::Dropout::draw(dropout_p, training, rng, B, B * H * N * N);
  Tensor out = Tensor::empty(q.shape());
  auto lse = std::make_shared<std::vector<float>>(size_t(B * H * N));
  const float *Q = q.data(), *K = k.data(), *V = v.data(), *P = key_pad.defined() ? key_pad.data() : nullptr;
  float* O = out.data();
  // Q K^T and P V over the computed tiles (about half of them when causal).
  double work = 4.0 * double(s.units) * double(N) * double(N) * double(d) * (causal ? 0.5 : 1.0);
  count_matmul_flops(work);
#pragma omp parallel
  {
    std::vector<float> S(size_t(s.br * s.bc)), Pd(drop.on ? size_t(s.br * s.bc) : 0), Kt(size_t(N * d));
#pragma omp for schedule(dynamic, 1)
    for (int64_t u = 0; u < s.units; ++u)
      flash_forward_unit(s, u, Q + u * N * d, K + u * N * d, V + u * N * d, P ? P + (u / H) * N : nullptr, drop,
                         O + u * N * d, lse->data() + u * N, S, Pd, Kt);
  }
  if (needs_grad({&q, &k, &v}))
    attach(out, "flash_attention", {q, k, v}, [q, k, v, key_pad, s, lse, H, drop](const Tensor& out) {
      int64_t N = s.N, d = s.d;
      const float *Q = q.data(), *K = k.data(), *V = v.data(), *O = out.data(), *dO = out.grad_data();
      const float* P = key_pad.defined() ? key_pad.data() : nullptr;
      float *dQ = q.grad_data(), *dK = k.grad_data(), *dV = v.grad_data();
      // model FLOPs of the backward (as full's four products); the recomputed Q K^T is not counted
      count_matmul_flops(2.0 * 4.0 * double(s.units) * double(N) * double(N) * double(d) * (s.causal ? 0.5 : 1.0));
#pragma omp parallel
      {
        std::vector<float> S(size_t(s.br * s.bc)), dP(size_t(s.br * s.bc)), Pd(drop.on ? size_t(s.br * s.bc) : 0),
            Kt(size_t(N * d)), Vt(size_t(N * d));
#pragma omp for schedule(dynamic, 1)
        for (int64_t u = 0; u < s.units; ++u) {
          size_t o = size_t(u * N * d);
          flash_backward_unit(s, u, Q + o, K + o, V + o, P ? P + (u / H) * N : nullptr, drop, O + o,
                              lse->data() + u * N, dO + o, dQ + o, dK + o, dV + o, S, dP, Pd, Kt, Vt);
        }
      }
    });
  return out;
}

}  // namespace az
