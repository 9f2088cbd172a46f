// The one call of cblas_sgemm (see blas.h), and the split of one product among threads.
#include "autograd/runtime/blas.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <vector>

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

GemmPlan gemm_split(int64_t M, int64_t N, int64_t K, int threads, int64_t min_work) {
  GemmPlan plan;
  int64_t work = M * N * K;
  int p = int(std::min<int64_t>(threads, std::max<int64_t>(1, work / std::max<int64_t>(min_work, 1))));
  if (p < 2) return plan;
  constexpr int64_t kMinSlice = 32;  // rows, columns or inner entries per part: below this sgemm's kernels idle
  // extra floats each split moves, beyond the product itself; infeasible splits never win
  const double never = 1e300;
  double rows = M >= p * kMinSlice ? double(p - 1) * K * N : never;
  double cols = N >= p * kMinSlice ? double(p - 1) * K * M : never;
  double inner = K >= p * kMinSlice ? 2.0 * (p - 1) * M * N : never;
  if (rows == never && cols == never && inner == never) return plan;
  plan.parts = p;
  plan.split = rows <= cols && rows <= inner ? GemmSplit::Rows : cols <= inner ? GemmSplit::Columns : GemmSplit::Inner;
  return plan;
}

void sgemm_split(const GemmPlan& plan, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, const float* B,
                 float beta, float* C, float alpha) {
  const int p = plan.parts;
  const int64_t lda = ta ? M : K, ldb = tb ? K : N;
  if (plan.split == GemmSplit::None || p < 2) return sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, N);
  // part t of n items: [n t / p, n (t+1) / p)
  auto lo = [p](int64_t n, int t) { return n * t / p; };
  if (plan.split == GemmSplit::Rows) {  // rows of op(A) are columns of A when ta
#pragma omp parallel for num_threads(p) schedule(static, 1)
    for (int t = 0; t < p; ++t) {
      int64_t r0 = lo(M, t), r1 = lo(M, t + 1);
      sgemm(ta, tb, r1 - r0, N, K, alpha, ta ? A + r0 : A + r0 * K, lda, B, ldb, beta, C + r0 * N, N);
    }
  } else if (plan.split == GemmSplit::Columns) {  // columns of op(B) are rows of B when tb
#pragma omp parallel for num_threads(p) schedule(static, 1)
    for (int t = 0; t < p; ++t) {
      int64_t c0 = lo(N, t), c1 = lo(N, t + 1);
      sgemm(ta, tb, M, c1 - c0, K, alpha, A, lda, tb ? B + c0 * K : B + c0, ldb, beta, C + c0, N);
    }
  } else {  // Inner: part 0 accumulates into C with beta, the others into their own copies, then added
    // The copies live in the calling thread's buffer, kept between calls. (Not in each
    // worker's thread_local: libgomp's workers are never joined, so theirs would leak.)
    static thread_local std::vector<float> partial;
    const int64_t MN = M * N;
    if (partial.size() < size_t(MN) * size_t(p - 1)) partial.resize(size_t(MN) * size_t(p - 1));
    float* const spare = partial.data();
    std::vector<float*> copies(size_t(p), nullptr);
#pragma omp parallel num_threads(p)
    {
      const int n = omp_get_num_threads(), t = omp_get_thread_num();  // (n < p if the runtime gave fewer)
      const int64_t k0 = K * t / n, k1 = K * (t + 1) / n;
      float* out = C;
      if (t > 0) out = copies[size_t(t)] = spare + (t - 1) * MN;
      // op(A)[:, k0:k1] is A's columns k0.. (rows when ta); op(B)[k0:k1, :] is B's rows k0.. (columns when tb)
      sgemm(ta, tb, M, N, k1 - k0, alpha, ta ? A + k0 * M : A + k0, lda, tb ? B + k0 : B + k0 * N, ldb,
            t > 0 ? 0.0f : beta, out, N);
#pragma omp barrier
#pragma omp for schedule(static)
      for (int64_t i = 0; i < M; ++i) {
        float* c = C + i * N;
        for (int s = 1; s < n; ++s) {
          const float* q = copies[size_t(s)] + i * N;
#pragma omp simd
          for (int64_t j = 0; j < N; ++j) c[j] += q[j];
        }
      }
    }
  }
}

std::string blas_threading_notice(int parallel) {
  if (parallel < 0) parallel = openblas_get_parallel();
  if (parallel != 1) return "";
  return "note: the OpenBLAS loaded is its pthreads build, whose threads compete with attnzoo's OpenMP threads "
         "(slower products); make deps installs the OpenMP build: select it with update-alternatives --config "
         "libopenblas.so.0-$(gcc -dumpmachine)";
}

}  // namespace az
