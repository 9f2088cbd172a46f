// The attention tile engine (see tile.h): scores by GEMM, the masked row softmax
// with its log-sum-exp (plain and online), one dropout formula, P V, and the
// FlashAttention-2 backward of a tile.  Cost R C (d + dv) multiply-adds per
// tile in the GEMMs, R C exps in the rows.  Tile-sized products run on
// libxsmm's JIT-compiled small GEMMs (Heinecke et al. 2016) where it has them
// (make bench-core's tile rows: 1.0-1.5x OpenBLAS's sgemm), else on OpenBLAS.
// libxsmm is optional (x86 only in Debian): built with AZ_NO_XSMM (make XSMM=0)
// every tile product runs on OpenBLAS, and tile_backend() says so.
#include "attention/kernels/tile.h"

#ifndef AZ_NO_XSMM
#include <libxsmm.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>

#include "autograd/runtime/vecmath.h"
#include "autograd/runtime/blas.h"

namespace az {
namespace tile {

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Products up to this many multiply-adds go to libxsmm (a tile's, e.g. 64 x 256 x 64 = 2^20);
// larger ones to OpenBLAS, which may also thread them.
constexpr int64_t kSmallGemm = int64_t(1) << 22;

#ifndef AZ_NO_XSMM
// libxsmm's first use puts OMP_PROC_BIND=TRUE into the environment (libxsmm 1.17's internal_init).
// This process's OpenMP is set up by then, but every program it starts (the recall and LRA
// sweeps' cells, the docs' runs) would pin its threads, one-thread cells all to the first CPU.
// So libxsmm starts once, here, and the variable is put back as it was.  (Not before main:
// that cost every run 10 ms, twice with the re-exec, and most runs never use libxsmm.)
void start_libxsmm() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* bind = std::getenv("OMP_PROC_BIND");
    std::string before = bind ? bind : "";
    bool had = bind != nullptr;
    libxsmm_init();
    if (had) setenv("OMP_PROC_BIND", before.c_str(), 1);
    else unsetenv("OMP_PROC_BIND");
  });
}

// libxsmm's JIT kernel for a tile product, or null where it has none.  libxsmm is
// column-major, so row-major C = op(A) op(B) is C^T = op(B)^T op(A)^T: NN maps to NN,
// TN to NN with B transposed (both JIT-compiled); NT would need A transposed, which
// libxsmm 1.17 does not compile, and alpha must be 1, beta 0 or 1.  Dispatch is a
// lookup in libxsmm's code registry after the first call of a shape.
libxsmm_smmfunction small_kernel(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, int64_t lda,
                                 int64_t ldb, float beta, int64_t ldc) {
  start_libxsmm();
  if (tb || alpha != 1.0f || (beta != 0.0f && beta != 1.0f) || M * N * K > kSmallGemm) return nullptr;
  libxsmm_blasint m = N, n = M, k = K, la = ldb, lb = lda, lc = ldc;
  int flags = ta ? LIBXSMM_GEMM_FLAG_TRANS_B : 0;
  return libxsmm_smmdispatch(m, n, k, &la, &lb, &lc, &alpha, &beta, &flags, nullptr);
}
#endif
}  // namespace

void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M == 0 || N == 0 || K == 0) return sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
#ifndef AZ_NO_XSMM
  if (small_gemm_enabled())
    if (libxsmm_smmfunction f = small_kernel(ta, tb, M, N, K, alpha, lda, ldb, beta, ldc)) {
      f(B, A, C);  // (column-major: the row-major B comes first)
      return;
    }
#endif
  sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

static bool small_enabled = [] {
  const char* e = std::getenv("ATTNZOO_SMALL_GEMM");
  return !(e && std::string(e) == "0");
}();
#ifdef AZ_NO_XSMM
bool small_gemm_enabled() { return false; }
const char* tile_backend() { return "openblas"; }
#else
bool small_gemm_enabled() { return small_enabled; }
const char* tile_backend() { return small_enabled ? "libxsmm" : "openblas"; }
#endif
void set_small_gemm(bool on) { small_enabled = on; }

Dropout Dropout::draw(float p, bool training, Rng& rng, int64_t lead, int64_t total) {
  Dropout d;
  if (!training || p <= 0) return d;
  static_cast<DropoutMask&>(d) = DropoutMask::draw(p, rng, lead, total);
  d.on = true;
  return d;
}

void Dropout::apply(const float* P, float* out, int64_t R, int64_t C, uint64_t i0, int64_t stride) const {
  for (int64_t r = 0; r < R; ++r) {
    uint64_t ir = i0 + uint64_t(r * stride);
    for (int64_t j = 0; j < C; ++j) out[r * C + j] = keep(ir + uint64_t(j)) ? P[r * C + j] * scale : 0.0f;
  }
}

void scores(Rows Q, Rows K, int64_t R, int64_t C, int64_t d, float scale, float* S) {
  gemm(false, true, R, C, d, scale, Q.p, Q.ld, K.p, K.ld, 0.0f, S, C);
}

void scores_t(Rows Q, Rows Kt, int64_t R, int64_t C, int64_t d, float* S) {
  gemm(false, false, R, C, d, 1.0f, Q.p, Q.ld, Kt.p, Kt.ld, 0.0f, S, C);
}

void transpose_scaled(const float* X, int64_t n, int64_t w, float scale, float* Xt) {
  constexpr int64_t kB = 16;  // in blocks, so both sides stay in cache lines
  for (int64_t i0 = 0; i0 < n; i0 += kB)
    for (int64_t t0 = 0; t0 < w; t0 += kB)
      for (int64_t i = i0; i < std::min(n, i0 + kB); ++i)
        for (int64_t t = t0; t < std::min(w, t0 + kB); ++t) Xt[t * n + i] = scale * X[i * w + t];
}

void mask_columns(float* S, int64_t R, int64_t C, const float* pad) {
  if (!pad) return;
  for (int64_t j = 0; j < C; ++j)  // whole columns, found with one pass over the keys
    if (pad[j] != 0)
      for (int64_t r = 0; r < R; ++r) S[r * C + j] = kNegInf;
}

void mask_causal(float* S, int64_t R, int64_t C, int64_t row0, int64_t col0) {
  if (col0 + C - 1 <= row0) return;  // the whole tile is at or below the diagonal
  for (int64_t r = 0; r < R; ++r)
    for (int64_t j = std::max<int64_t>(0, row0 + r + 1 - col0); j < C; ++j) S[r * C + j] = kNegInf;
}

void softmax_rows(float* S, int64_t R, int64_t C, float* lse) {
  for (int64_t r = 0; r < R; ++r) {
    float* s = S + r * C;
    float mx = vec::max(s, C);
    if (mx == kNegInf) {  // nothing to attend to: zero weights
      std::fill(s, s + C, 0.0f);
      if (lse) lse[r] = kNegInf;
      continue;
    }
    float z = vec::exp_sum(s, s, mx, C);  // excluded entries: exp(-inf) = 0
    vec::scale(s, 1.0f / z, C);
    if (lse) lse[r] = mx + std::log(z);
  }
}

void probs_from_lse(float* S, int64_t R, int64_t C, const float* lse) {
  for (int64_t r = 0; r < R; ++r) {
    float* s = S + r * C;
    if (lse[r] == kNegInf)
      std::fill(s, s + C, 0.0f);
    else
      vec::exp_sum(s, s, lse[r], C);
  }
}

void online_rows(float* S, int64_t R, int64_t C, float* m, float* l, float* O, int64_t ldo, int64_t dv) {
  for (int64_t r = 0; r < R; ++r) {
    float* s = S + r * C;
    float mx = std::max(m[r], vec::max(s, C));
    if (mx == kNegInf) {  // nothing visible yet in this row
      std::fill(s, s + C, 0.0f);
      continue;
    }
    float alpha = m[r] == kNegInf ? 0.0f : fast_exp(m[r] - mx), sum = vec::exp_sum(s, s, mx, C);
    l[r] = alpha * l[r] + sum;
    m[r] = mx;
    if (alpha != 1.0f) vec::scale(O + r * ldo, alpha, dv);
  }
}

void online_finish(int64_t R, const float* m, const float* l, float* O, int64_t ldo, int64_t dv, float* lse) {
  for (int64_t r = 0; r < R; ++r) {
    vec::scale(O + r * ldo, l[r] > 0 ? 1.0f / l[r] : 0.0f, dv);  // a row with no visible key gives 0
    lse[r] = l[r] > 0 ? m[r] + std::log(l[r]) : kNegInf;
  }
}

void row_dots(Rows dO, Rows O, int64_t R, int64_t dv, float* D) {
  for (int64_t r = 0; r < R; ++r) D[r] = vec::dot(dO.p + r * dO.ld, O.p + r * O.ld, dv);
}

void backward_scores(const float* P, Rows dO, Rows V, int64_t R, int64_t C, int64_t dv, const float* D,
                     const float* glse, const Dropout& drop, uint64_t i0, int64_t stride, Grad dV, float* dS,
                     float* scratch, bool vt) {
  if (dV.p) {  // dV = P~^T dO
    const float* Pm = P;
    if (drop.on) {
      drop.apply(P, scratch, R, C, i0, stride);
      Pm = scratch;
    }
    gemm(true, false, C, dv, R, 1.0f, Pm, C, dO.p, dO.ld, dV.beta, dV.p, dV.ld);
  }
  if (!dS) return;
  gemm(false, !vt, R, C, dv, 1.0f, dO.p, dO.ld, V.p, V.ld, 0.0f, dS, C);  // dP~ = dO V^T, the dropped weights' gradient
  if (drop.on) drop.apply(dS, dS, R, C, i0, stride);                       // dP = dP~ * mask / (1 - p)
  for (int64_t r = 0; r < R; ++r) {
    const float* pr = P + r * C;
    float* ds = dS + r * C;
    float delta = D ? D[r] : vec::dot(pr, ds, C);
    if (glse) delta -= glse[r];
    vec::mul_shift(ds, pr, delta, C);  // dS = P (dP - D + g)
  }
}

void backward_qk(float* dS, Rows Q, Rows K, int64_t R, int64_t C, int64_t d, float scale, Grad dQ, Grad dK) {
  if (!dQ.p && !dK.p) return;
  if (scale != 1.0f) vec::scale(dS, scale, R * C);  // once here, so both products have alpha 1 (libxsmm's form)
  if (dQ.p) gemm(false, false, R, d, C, 1.0f, dS, C, K.p, K.ld, dQ.beta, dQ.p, dQ.ld);
  if (dK.p) gemm(true, false, C, d, R, 1.0f, dS, C, Q.p, Q.ld, dK.beta, dK.p, dK.ld);
}

}  // namespace tile
}  // namespace az
