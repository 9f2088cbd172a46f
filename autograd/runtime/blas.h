// The one call of OpenBLAS's sgemm that the library makes.  Every matrix
// product goes through it: matmul and linear (autograd/ops_matmul.cpp), the
// tile engine (attention/kernels/tile.cpp, after its libxsmm path for tile
// sizes), the chunked kernels (attention/kernels/kernel_util.cpp) and
// routing's centroid scores.
#pragma once
#include <cstdint>

namespace az {

// C [M,N] = alpha op(A) op(B) + beta C, every matrix row-major with its leading
// dimension; op(A) is [M,K] (A stored [K,M] when ta), op(B) [K,N] (B stored
// [N,K] when tb).  Nothing when M or N is 0; K = 0 gives beta C (exactly 0 for
// beta 0).
void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
           const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

// The same on dense matrices (each leading dimension its row length): C [M,N] = alpha op(A) op(B) + beta C.
inline void sgemm_dense(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, const float* B, float beta,
                        float* C, float alpha = 1.0f) {
  sgemm(ta, tb, M, N, K, alpha, A, ta ? M : K, B, tb ? K : N, beta, C, N);
}

}  // namespace az
