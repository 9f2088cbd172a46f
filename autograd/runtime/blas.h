// The one call of OpenBLAS's sgemm that the library makes.  Every matrix
// product goes through it: matmul and linear (autograd/ops_matmul.cpp), the
// tile engine (attention/kernels/tile.cpp, after its libxsmm path for tile
// sizes), the chunked kernels (attention/kernels/kernel_util.cpp) and
// routing's centroid scores.
#pragma once
#include <cstdint>
#include <string>

namespace az {

// C [M,N] = alpha op(A) op(B) + beta C, every matrix row-major with its leading
// dimension; op(A) is [M,K] (A stored [K,M] when ta), op(B) [K,N] (B stored
// [N,K] when tb).  Nothing when M or N is 0; K = 0 gives beta C (exactly 0 for
// beta 0).
void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
           const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

// How sgemm_split shares one product among `parts` threads (gemm_split chooses; see blas.cpp).
//   Rows:    each thread computes a block of C's rows (the forward of a linear layer, dX).
//   Columns: each a block of C's columns.
//   Inner:   each the product over a slice of the inner dimension K into its own copy of C,
//            and the copies are added (a weight's gradient dW = X^T dY, where C is small and K = B N).
enum class GemmSplit { None, Rows, Columns, Inner };
struct GemmPlan {
  GemmSplit split = GemmSplit::None;
  int parts = 1;
};
// The split that moves the least extra data: rows re-read B (parts-1) times, columns re-read A,
// inner writes and adds parts-1 partial copies of C.  A split dimension gives each part at
// least 32 of it; a product of at most `min_work` multiply-adds per part is not split further.
GemmPlan gemm_split(int64_t M, int64_t N, int64_t K, int threads, int64_t min_work);

// C = alpha op(A) op(B) + beta C on dense matrices, shared among OpenMP threads as `plan` says,
// each thread running a single-threaded sgemm on its part (OpenBLAS's OpenMP build runs one
// thread inside a parallel region).  Must be called outside a parallel region.  Results equal
// sgemm's up to float rounding (Inner adds partial sums in another order).
void sgemm_split(const GemmPlan& plan, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, const float* B,
                 float beta, float* C, float alpha = 1.0f);

// The same on dense matrices (each leading dimension its row length): C [M,N] = alpha op(A) op(B) + beta C.
inline void sgemm_dense(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, const float* B, float beta,
                        float* C, float alpha = 1.0f) {
  sgemm(ta, tb, M, N, K, alpha, A, ta ? M : K, B, tb ? K : N, beta, C, N);
}

// OpenBLAS comes in three builds (openblas_get_parallel(): 0 sequential, 1 pthreads, 2 OpenMP), and
// Debian picks one by update-alternatives (the pthreads build ranks first when both are installed).
// attnzoo threads with OpenMP and calls sgemm inside its own parallel regions, where only the
// OpenMP build runs one thread per call; the pthreads build starts its own pool beside ours.
// A one-line notice naming the fix for `parallel` (the loaded library's openblas_get_parallel()
// when -1), or "" when the build suits.
std::string blas_threading_notice(int parallel = -1);

}  // namespace az
