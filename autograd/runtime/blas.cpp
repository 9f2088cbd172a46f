// The one call of cblas_sgemm (see blas.h).
#include "autograd/runtime/blas.h"

#include <cblas.h>

namespace az {

void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
           const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0) {  // sgemm would leave beta C: make it explicit (and exact for beta = 0)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.0f ? 0.0f : C[i * ldc + j] * beta;
    return;
  }
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(M), int(N), int(K),
              alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));
}

}  // namespace az
