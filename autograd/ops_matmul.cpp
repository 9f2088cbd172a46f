// Matrix products through sgemm (autograd/runtime/blas.h), with transpose flags instead of copies.
//
// C = op(A) op(B).  With A' = op(A) [M,K] and B' = op(B) [K,N]:
//   dA' = dC B'^T,  dB' = A'^T dC.
// A transposed operand's gradient is the transpose of that, which sgemm again
// gets by flags.  Gradients accumulate (beta = 1) straight into the buffers.
//
// Batched products run the batch in parallel with OpenMP; OpenBLAS's OpenMP
// build runs single-threaded inside a parallel region, so every core stays busy
// on the small per-head products of attention.  One big product (or a batch of
// one) is split among the threads by sgemm_split (see gemm below).
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "autograd/internal.h"
#include "autograd/ops.h"
#include "autograd/runtime/blas.h"

namespace az {

namespace {
double g_flops = 0;  // sgemm work done by matmul, forward and backward
// C [M,N] (+)= op(A) op(B), A stored [M,K] or [K,M] (ta), B [K,N] or [N,K] (tb): counted for the
// bench's FLOPs.  Outside a parallel region the product is shared among our threads by
// sgemm_split (rows of C, its columns, or slices of the inner dimension whose partial products
// are added), each running OpenBLAS on one thread: at the linear layers' skinny shapes that
// scales where OpenBLAS's own threading does not (make bench-core's linear rows).  A product of
// at most kGemmThreadMin multiply-adds per thread is not split; inside a parallel region (the
// batched products below) OpenBLAS already runs on one thread.
inline void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, const float* B, float beta,
                 float* C) {
  if (M == 0 || N == 0) return;
#pragma omp atomic
  g_flops += 2.0 * double(M) * double(N) * double(K);
  int nt = omp_in_parallel() ? 1 : omp_get_max_threads();
  GemmPlan plan = gemm_split(M, N, K, nt, kGemmThreadMin);
  if (plan.split != GemmSplit::None) return sgemm_split(plan, ta, tb, M, N, K, A, B, beta, C);
  if (nt > 1) openblas_set_num_threads(1);  // not worth a second thread
  sgemm_dense(ta, tb, M, N, K, A, B, beta, C);
  if (nt > 1) openblas_set_num_threads(nt);  // (OpenMP's thread count too, which OpenBLAS's setter also sets)
}

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

struct Plan {
  int64_t batch = 1, M, N, K;
  bool a_batched, b_batched;
  Shape out;
};

Plan plan(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  auto err = [&](const std::string& why) {
    fail("matmul: a " + shape_str(a.shape()) + (ta ? "^T" : "") + " and b " + shape_str(b.shape()) + (tb ? "^T" : "") +
         ": " + why);
  };
  if (a.dim() < 2 || b.dim() < 2) err("both operands need at least 2 dimensions");
  Plan p;
  const Shape &sa = a.shape(), &sb = b.shape();
  int64_t ar = sa[sa.size() - 2], ac = sa.back(), br = sb[sb.size() - 2], bc = sb.back();
  p.M = ta ? ac : ar;
  p.K = ta ? ar : ac;
  int64_t kb = tb ? bc : br;
  p.N = tb ? br : bc;
  if (p.K != kb) err("inner dimensions " + std::to_string(p.K) + " and " + std::to_string(kb) + " differ");
  p.a_batched = a.dim() > 2;
  p.b_batched = b.dim() > 2;
  if (p.a_batched && p.b_batched && batch_of(sa) != batch_of(sb))
    err("batch dimensions " + shape_str(batch_of(sa)) + " and " + shape_str(batch_of(sb)) + " differ");
  p.out = p.a_batched ? batch_of(sa) : p.b_batched ? batch_of(sb) : Shape{};
  p.batch = numel_of(p.out);
  p.out.push_back(p.M);
  p.out.push_back(p.N);
  return p;
}

// Runs f(i) for every batch entry: in parallel for many small products.
template <class F>
void for_batch(int64_t batch, int64_t work, F f) {
  if (batch == 1) return f(0);
#pragma omp parallel for schedule(dynamic, 1) if (work > 4 * kParallelMin)
  for (int64_t i = 0; i < batch; ++i) f(i);
}
}  // namespace

double matmul_flops() { return g_flops; }
void reset_matmul_flops() { g_flops = 0; }
void count_matmul_flops(double flops) {
#pragma omp atomic
  g_flops += flops;
}

// The plain case first: C [M,N] = A' B' for 2-D A and B (A' = op(A), B' = op(B)), and its two
// gradients.  Every batched branch of matmul() below is this formula, once per matrix of the batch
// (or, where one side is shared, with the batch's rows stacked into one product).
Tensor matmul_2d(const Tensor& a, const Tensor& b, bool ta, bool tb, const Plan& p) {
  Tensor c = Tensor::empty({p.M, p.N});
  gemm(ta, tb, p.M, p.N, p.K, a.data(), b.data(), 0.0f, c.data());  // C = A' B'
  if (needs_grad({&a, &b}))
    attach(c, "matmul", {a, b}, [a, b, ta, tb, p](const Tensor& c) {
      const float *A = a.data(), *B = b.data(), *G = c.grad_data();
      if (a.requires_grad()) {  // dA' = dC B'^T (A stored transposed: its gradient B' dC^T)
        if (!ta) gemm(false, !tb, p.M, p.K, p.N, G, B, 1.0f, a.grad_data());
        else gemm(tb, true, p.K, p.M, p.N, B, G, 1.0f, a.grad_data());
      }
      if (b.requires_grad()) {  // dB' = A'^T dC (B stored transposed: its gradient dC^T A')
        if (!tb) gemm(!ta, false, p.K, p.N, p.M, A, G, 1.0f, b.grad_data());
        else gemm(true, ta, p.N, p.K, p.M, G, A, 1.0f, b.grad_data());
      }
    });
  return c;
}

Tensor matmul(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  OpScope prof("matmul");
  Plan p = plan(a, b, ta, tb);
  if (!p.a_batched && !p.b_batched) return matmul_2d(a, b, ta, tb, p);
  Tensor c = Tensor::empty(p.out);
  int64_t sA = p.a_batched ? p.M * p.K : 0, sB = p.b_batched ? p.K * p.N : 0, sC = p.M * p.N;
  int64_t work = p.batch * p.M * p.N * p.K;
  const float *A = a.data(), *B = b.data();
  float* C = c.data();
  if (!p.b_batched && !ta && p.a_batched) {
    gemm(false, tb, p.batch * p.M, p.N, p.K, A, B, 0.0f, C);  // [batch*M, K] x [K, N]: one product
  } else {
    for_batch(p.batch, work, [&](int64_t i) { gemm(ta, tb, p.M, p.N, p.K, A + i * sA, B + i * sB, 0.0f, C + i * sC); });
  }
  if (needs_grad({&a, &b}))
    attach(c, "matmul", {a, b}, [a, b, ta, tb, p, sA, sB, sC, work](const Tensor& c) {
      const float *A = a.data(), *B = b.data(), *G = c.grad_data();
      if (a.requires_grad()) {
        float* dA = a.grad_data();
        if (!ta && !p.b_batched && p.a_batched) {
          gemm(false, !tb, p.batch * p.M, p.K, p.N, G, B, 1.0f, dA);  // dA = dC B'^T in one product
        } else if (!p.a_batched && p.batch > 1) {
          // a is shared by the batch: sum the per-entry gradients serially (same buffer).
          for (int64_t i = 0; i < p.batch; ++i)
            if (!ta) gemm(false, !tb, p.M, p.K, p.N, G + i * sC, B + i * sB, 1.0f, dA);
            else gemm(tb, true, p.K, p.M, p.N, B + i * sB, G + i * sC, 1.0f, dA);
        } else {
          for_batch(p.batch, work, [&](int64_t i) {
            if (!ta) gemm(false, !tb, p.M, p.K, p.N, G + i * sC, B + i * sB, 1.0f, dA + i * sA);  // dC B'^T
            else gemm(tb, true, p.K, p.M, p.N, B + i * sB, G + i * sC, 1.0f, dA + i * sA);     // B' dC^T
          });
        }
      }
      if (b.requires_grad()) {
        float* dB = b.grad_data();
        if (!ta && !p.b_batched && p.a_batched) {
          // A' is [batch*M, K]: dB' = A'^T dC over all rows in one product.
          if (!tb) gemm(true, false, p.K, p.N, p.batch * p.M, A, G, 1.0f, dB);
          else gemm(true, false, p.N, p.K, p.batch * p.M, G, A, 1.0f, dB);
        } else if (!p.b_batched && p.batch > 1) {
          for (int64_t i = 0; i < p.batch; ++i)
            if (!tb) gemm(!ta, false, p.K, p.N, p.M, A + i * sA, G + i * sC, 1.0f, dB);
            else gemm(true, ta, p.N, p.K, p.M, G + i * sC, A + i * sA, 1.0f, dB);
        } else {
          for_batch(p.batch, work, [&](int64_t i) {
            if (!tb) gemm(!ta, false, p.K, p.N, p.M, A + i * sA, G + i * sC, 1.0f, dB + i * sB);  // A'^T dC
            else gemm(true, ta, p.N, p.K, p.M, G + i * sC, A + i * sA, 1.0f, dB + i * sB);      // dC^T A'
          });
        }
      }
    });
  return c;
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  OpScope prof("linear");
  if (w.dim() != 2 || x.dim() < 1 || x.shape().back() != w.size(0))
    fail("linear: input " + shape_str(x.shape()) + " and weight " + shape_str(w.shape()) + " do not fit (expected [..,K] and [K,N])");
  int64_t K = w.size(0), N = w.size(1), M = x.numel() / std::max<int64_t>(K, 1);
  if (b.defined() && b.shape() != Shape{N})
    fail("linear: bias " + shape_str(b.shape()) + " must be [" + std::to_string(N) + "]");
  Shape out = x.shape();
  out.back() = N;
  Tensor y = Tensor::empty(out);
  float* py = y.data();
  if (b.defined()) {
    const float* pb = b.data();
#pragma omp parallel for if (M * N > kParallelMin)
    for (int64_t i = 0; i < M; ++i) std::copy(pb, pb + N, py + i * N);
  }
  gemm(false, false, M, N, K, x.data(), w.data(), b.defined() ? 1.0f : 0.0f, py);
  if (needs_grad({&x, &w, &b}))
    attach(y, "linear", {x, w, b}, [x, w, b, M, N, K](const Tensor& y) {
      const float* G = y.grad_data();
      if (x.requires_grad()) gemm(false, true, M, K, N, G, w.data(), 1.0f, x.grad_data());  // dx = G W^T
      if (w.requires_grad()) gemm(true, false, K, N, M, x.data(), G, 1.0f, w.grad_data());  // dW = x^T G
      if (b.defined() && b.requires_grad()) {                                             // db = column sums of G
        float* gb = b.grad_data();
        int nt = omp_get_max_threads();
        std::vector<float> part(size_t(nt) * N, 0.0f);
#pragma omp parallel if (M * N > kParallelMin)
        {
          float* acc = part.data() + size_t(omp_get_thread_num()) * N;
#pragma omp for
          for (int64_t i = 0; i < M; ++i) {
            const float* g = G + i * N;
#pragma omp simd
            for (int64_t j = 0; j < N; ++j) acc[j] += g[j];
          }
        }
        for (int t = 0; t < nt; ++t)
          for (int64_t j = 0; j < N; ++j) gb[j] += part[size_t(t) * N + j];
      }
    });
  return y;
}

}  // namespace az
