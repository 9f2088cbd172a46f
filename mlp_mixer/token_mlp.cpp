// token_mlp (see token_mlp.h): one example per thread; every product is a
// tile-sized GEMM through the attention tile engine's gemm (libxsmm where it
// compiles the form, OpenBLAS otherwise), the bias adds are the GEMMs' initial
// values (beta = 1), and GELU runs on the dispatched vector kernel.
#include "mlp_mixer/token_mlp.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "attention/kernels/tile.h"
#include "autograd/internal.h"

namespace az {
namespace {

// C [R, D] = the bias b[r] in every column of row r.
void fill_rows(float* C, const float* b, int64_t R, int64_t D) {
  for (int64_t r = 0; r < R; ++r) std::fill(C + r * D, C + (r + 1) * D, b[r]);
}
// acc[r] += sum of row r of G [R, D].
void add_row_sums(float* acc, const float* G, int64_t R, int64_t D) {
  for (int64_t r = 0; r < R; ++r) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int64_t j = 0; j < D; ++j) s += G[r * D + j];
    acc[r] += s;
  }
}

}  // namespace

Tensor token_mlp(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2) {
  OpScope prof("token_mlp");
  if (x.dim() != 3 || w1.dim() != 2 || w2.shape() != w1.shape() || w1.size(0) != x.size(1) ||
      b1.shape() != Shape{w1.size(1)} || b2.shape() != Shape{x.size(1)})
    fail("token_mlp: x " + shape_str(x.shape()) + ", w1 " + shape_str(w1.shape()) + ", b1 " + shape_str(b1.shape()) +
         ", w2 " + shape_str(w2.shape()) + ", b2 " + shape_str(b2.shape()) +
         " do not fit (expected [B,N,D], [N,S], [S], [N,S], [N])");
  const int64_t B = x.size(0), N = x.size(1), D = x.size(2), S = w1.size(1);
  Tensor y = Tensor::empty(x.shape());
  Tensor z = Tensor::empty({B, S, D});  // pre-activations, kept for the backward
  const bool par = B > 1 && B * S * D > kParallelMin;
  count_matmul_flops(4.0 * double(B * N * S * D));  // W1^T X and W2 H
  {
    const float *X = x.data(), *W1 = w1.data(), *W2 = w2.data(), *pb1 = b1.data(), *pb2 = b2.data();
    float *Y = y.data(), *Z = z.data();
#pragma omp parallel if (par)
    {
      std::vector<float> h(size_t(S * D));
#pragma omp for schedule(static)
      for (int64_t b = 0; b < B; ++b) {
        float *zb = Z + b * S * D, *yb = Y + b * N * D;
        fill_rows(zb, pb1, S, D);
        tile::gemm(true, false, S, D, N, 1.0f, W1, S, X + b * N * D, D, 1.0f, zb, D);  // Z = b1 + W1^T X
        vec::gelu(zb, h.data(), S * D);
        fill_rows(yb, pb2, N, D);
        tile::gemm(false, false, N, D, S, 1.0f, W2, S, h.data(), D, 1.0f, yb, D);  // Y = b2 + W2 H
      }
    }
  }
  if (needs_grad({&x, &w1, &b1, &w2, &b2}))
    attach(y, "token_mlp", {x, w1, b1, w2, b2}, [x, w1, b1, w2, b2, z, B, N, D, S, par](const Tensor& y) {
      const float *X = x.data(), *W1 = w1.data(), *W2 = w2.data(), *G = y.grad_data(), *Z = z.data();
      float* dX = x.requires_grad() ? x.grad_data() : nullptr;
      count_matmul_flops((dX ? 8.0 : 6.0) * double(B * N * S * D));  // dW2, dH, dW1 (and dX)
      const int64_t per = 2 * N * S + S + N;  // one thread's dW1, dW2, db1, db2
      const int nt = par ? omp_get_max_threads() : 1;
      std::vector<float> acc(size_t(nt * per), 0.0f);
#pragma omp parallel num_threads(nt) if (par)
      {
        float* a = acc.data() + omp_get_thread_num() * per;
        float *dw1 = a, *dw2 = a + N * S, *db1 = a + 2 * N * S, *db2 = db1 + S;
        std::vector<float> h(size_t(S * D)), dh(size_t(S * D)), dz(size_t(S * D));
#pragma omp for schedule(static)
        for (int64_t b = 0; b < B; ++b) {
          const float *zb = Z + b * S * D, *gb = G + b * N * D, *xb = X + b * N * D;
          vec::gelu(zb, h.data(), S * D);
          tile::gemm(false, true, N, S, D, 1.0f, gb, D, h.data(), D, 1.0f, dw2, S);  // dW2 += G H^T
          add_row_sums(db2, gb, N, D);                                                // db2 += G 1
          tile::gemm(true, false, S, D, N, 1.0f, W2, S, gb, D, 0.0f, dh.data(), D);   // dH = W2^T G
          vec::gelu_grad(zb, dh.data(), dz.data(), S * D, false);                     // dZ = dH gelu'(Z)
          add_row_sums(db1, dz.data(), S, D);                                         // db1 += dZ 1
          tile::gemm(false, true, N, S, D, 1.0f, xb, D, dz.data(), D, 1.0f, dw1, S);  // dW1 += X dZ^T
          if (dX) tile::gemm(false, false, N, D, S, 1.0f, W1, S, dz.data(), D, 1.0f, dX + b * N * D, D);  // dX += W1 dZ
        }
      }
      // Sum the threads' parts into each parameter that wants its gradient.
      auto reduce = [&](const Tensor& t, int64_t off, int64_t n) {
        if (!t.requires_grad()) return;
        float* g = t.grad_data();
        for (int th = 0; th < nt; ++th)
          for (int64_t i = 0; i < n; ++i) g[i] += acc[size_t(th * per + off + i)];
      };
      reduce(w1, 0, N * S);
      reduce(w2, N * S, N * S);
      reduce(b1, 2 * N * S, S);
      reduce(b2, 2 * N * S + S, N);
    });
  return y;
}

}  // namespace az
