// tile: the attention tile engine that the exact-softmax kernels share
// (softmax_attention in kernel_util.cpp, sparse_attention in blocksparse.cpp,
// chunk_attention in cluster_util.cpp, flash_attention in flash.cpp).
//
// A tile is R query rows meeting C key rows.  Its forward is
//   S = scale Q K^T (one GEMM),  the caller's mask (-inf where a pair does not meet),
//   P = softmax(S) row by row with its log-sum-exp  (or FlashAttention's online
//   form across key tiles),  P~ = P * dropout mask / (1 - p),  O = P~ V (one GEMM),
// and its backward, FlashAttention-2's (Dao 2023), with D_r = sum_j P_rj dP~_rj
// (= dO_r . O_r when the row meets its keys in one place) and g_r the gradient
// of the row's log-sum-exp (0 unless a caller returns it):
//   dV += P~^T dO,  dP~ = (dO V^T) * mask / (1 - p),  dS = P (dP~ - D + g),
//   dQ += scale dS K,  dK += scale dS^T Q.
// Each kernel only chooses which rows and columns meet (padding, causality,
// layout labels, chunks) and where the results go; cost R C (d + dv) per tile.
// The row loops run on the dispatched vector kernels (autograd/runtime/vecmath.h).
#pragma once
#include <cstdint>

#include <cstring>

#include "autograd/tensor.h"

namespace az {
namespace tile {

// C [M,N] = alpha op(A) op(B) + beta C, row-major with leading dimensions (K = 0 gives beta C):
// every product of every tile goes through here.  Tile-sized products in the forms
// libxsmm compiles (A B, A^T B; alpha 1, beta 0 or 1) run on its JIT kernels, the rest
// on OpenBLAS's sgemm.
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
// The same on dense tiles (each leading dimension its row length), alpha 1.
inline void gemm_dense(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, const float* B, float beta,
                       float* C) {
  gemm(ta, tb, M, N, K, 1.0f, A, ta ? M : K, B, tb ? K : N, beta, C, N);
}
// Whether gemm may use libxsmm (default yes; ATTNZOO_SMALL_GEMM=0 in the environment: no),
// so benchmarks and tests can compare the two on one machine.
bool small_gemm_enabled();
void set_small_gemm(bool on);
// What the tile products run on: "libxsmm", or "openblas" (built without it: make XSMM=0,
// or ATTNZOO_SMALL_GEMM=0).  bench's JSON names it ("tiles").
const char* tile_backend();

// Rows of a matrix: row i at p + i * ld.
struct Rows {
  const float* p;
  int64_t ld;
};
// dst [n,w] = the rows idx[0..n) of src (row stride ld): a tile's scattered rows, gathered.
inline void copy_rows(const float* src, int64_t ld, const int32_t* idx, int64_t n, int64_t w, float* dst) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * w, src + int64_t(idx[i]) * ld, sizeof(float) * size_t(w));
}
// The reverse: rows idx[0..n) of dst (row stride ld) += src [n,w] (a gradient going back).
inline void add_rows(const float* src, int64_t n, int64_t w, const int32_t* idx, float* dst, int64_t ld) {
  for (int64_t i = 0; i < n; ++i) {
    float* d = dst + int64_t(idx[i]) * ld;
    const float* s = src + i * w;
    for (int64_t t = 0; t < w; ++t) d[t] += s[t];
  }
}
// Where a gradient goes: p = beta p + result (beta 0 overwrites a scratch, 1 adds in place).
struct Grad {
  float* p;
  int64_t ld;
  float beta;
};

// Attention dropout: dropout()'s own mask (DropoutMask, rng.h) over the weight tensor,
// weight number i a row-major counter over the whole of it.
struct Dropout : DropoutMask {
  bool on = false;
  // Off unless training and p > 0 (then one draw from rng).  lead: the batch axis of the
  // weight tensor (0: none), total: its entries, for mask_counter_base (data parallelism).
  static Dropout draw(float p, bool training, Rng& rng, int64_t lead, int64_t total);
  // out[r C + j] = P[r C + j] * factor(i0 + r stride + j) for R rows of C (out may be P).
  void apply(const float* P, float* out, int64_t R, int64_t C, uint64_t i0, int64_t stride) const;
};

// S [R,C] = scale Q K^T.
void scores(Rows Q, Rows K, int64_t R, int64_t C, int64_t d, float scale, float* S);
// The same from Kt = scale K^T [d, >= C] (row stride Kt.ld, the tile's first key at Kt.p):
// A B with alpha 1, the form libxsmm compiles, where Q K^T is not (a kernel that meets a
// key block many times transposes it once, see transpose_scaled).
void scores_t(Rows Q, Rows Kt, int64_t R, int64_t C, int64_t d, float* S);
// Xt [w, n] = scale X^T for X [n, w] (contiguous).
void transpose_scaled(const float* X, int64_t n, int64_t w, float scale, float* Xt);
// -inf in the columns j with pad[j] != 0 (padded keys); pad null: nothing.
void mask_columns(float* S, int64_t R, int64_t C, const float* pad);
// -inf where key col0 + j lies after query row0 + r (causal).
void mask_causal(float* S, int64_t R, int64_t C, int64_t row0, int64_t col0);

// In place, R rows of C (excluded entries -inf): S -> P = softmax, lse[r] = log sum exp
// (lse null: not kept).  A row with nothing to attend to gives P = 0 and lse = -inf.
void softmax_rows(float* S, int64_t R, int64_t C, float* lse);
// The backward's recomputation: S -> P = exp(S - lse) (0 where lse = -inf).
void probs_from_lse(float* S, int64_t R, int64_t C, const float* lse);
// Online softmax over key tiles (FlashAttention): running max m and sum l of each row
// meet this tile's scores; S -> exp(S - m'), and O's rows [R,dv] are rescaled by e^(m - m').
void online_rows(float* S, int64_t R, int64_t C, float* m, float* l, float* O, int64_t ldo, int64_t dv);
// After the last key tile: O /= l, lse = m + log l (a row that saw no key: O = 0, lse = -inf).
void online_finish(int64_t R, const float* m, const float* l, float* O, int64_t ldo, int64_t dv, float* lse);
// D[r] = dO_r . O_r.
void row_dots(Rows dO, Rows O, int64_t R, int64_t dv, float* D);

// Backward of one tile up to the scores: given P [R,C] (before dropout; row stride C),
// dV = beta dV + P~^T dO (dV.p null: skipped) and (dS non-null) dS [R,C] = P (dP~ - D + g)
// with dP~ = drop(dO V^T).  D null: D_r = sum_j P_rj dP~_rj here; glse null: g = 0.
// vt: V.p holds V^T [dv, >= C] (row stride V.ld), so dO V^T is a plain product too.
// Dropout entry (r, j) is number i0 + r stride + j; scratch holds R C floats (dropout only).
void backward_scores(const float* P, Rows dO, Rows V, int64_t R, int64_t C, int64_t dv, const float* D,
                     const float* glse, const Dropout& drop, uint64_t i0, int64_t stride, Grad dV, float* dS,
                     float* scratch, bool vt = false);
// The rest: dQ = beta dQ + scale dS K, dK = beta dK + scale dS^T Q (a null p skips one);
// dS is multiplied by scale in place.
void backward_qk(float* dS, Rows Q, Rows K, int64_t R, int64_t C, int64_t d, float scale, Grad dQ, Grad dK);

}  // namespace tile
}  // namespace az
