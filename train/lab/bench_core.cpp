// bench_core: the core's kernels against the machine's own limits, in one run.
//
//   matmul 1024^3 (our op, forward; forward + backward) vs raw cblas_sgemm
//   batched matmul at the attention shape: 32 x [1024x32]·[32x1024] and its
//   partner 32 x [1024x1024]·[1024x32], vs the 2048^3 sgemm rate
//   flash's tile GEMMs (64 x flash_block_k(d) by head dim 16, 32, 64, and 64 x 256 at 64), one thread each, vs the same,
//   OpenBLAS and libxsmm (the tile engine's small GEMMs) side by side
//   the linear layers' three products (Y = X W, dX = dY W^T, dW = X^T dY) at M = B N = 8192 rows and the
//   model's widths (D 128 -> 3D, D, F 256 and back), at 1 thread and at all: OpenBLAS's own
//   threading against the split our matmul and linear use (sgemm_split: rows, or inner slices
//   for dW), and the speed-up of each from 1 thread
//   the small ops of bench's model at its shape (B N = 8192 rows of D = 128; the optimizer step
//   over its 430K parameters), forward + backward at 1 thread and at all, with the speed-up
//   softmax, layer norm, GELU forward + backward on 32M floats vs memcpy (best of
//   repetitions: the run least disturbed on a shared machine), once per SIMD target
//   the CPU runs (autograd/runtime/vecmath.h: AVX-512, AVX2, SSE4), so one run shows the
//   path an AVX2-only machine would take too
//
// Each figure is the median of several repetitions.  Run: make bench-core, or
// build/bench_core matmul | linear [M D F] | ops | rows for one part (make train's model: linear 4096 64 128).
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "attention/flash.h"
#include "attention/kernels/tile.h"
#include "autograd/internal.h"
#include "autograd/ops.h"
#include "autograd/runtime/blas.h"
#include "nn/optim.h"
#include "autograd/runtime/vecmath.h"
#include "train/lab/bench.h"

using namespace az;

namespace {
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median_time(int reps, const std::function<void()>& f) {
  f();  // warm-up (page faults, pool)
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    double t0 = now();
    f();
    t.push_back(now() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
// The fastest of reps runs: on a shared machine the run least disturbed by other jobs
// (used for the memory-bound row kernels and their memcpy reference alike).
double best_time(int reps, const std::function<void()>& f) {
  f();
  double b = 1e30;
  for (int i = 0; i < reps; ++i) {
    double t0 = now();
    f();
    b = std::min(b, now() - t0);
  }
  return b;
}
void row(const char* what, double value, const char* unit, double ref, const char* ref_what) {
  std::printf("%-44s %9.1f %-7s %6.0f%% of %s\n", what, value, unit, 100.0 * value / ref, ref_what);
}
// The linear layers' products at bench's model (D 128, F 256) and M = B N = 8192 rows: one
// thread, OpenBLAS threaded, and sgemm_split, as GFLOP/s and as speed-up over one thread.
void linear_rows(int64_t M, int64_t D, int64_t F) {
  const int nt = omp_get_max_threads();
  std::printf("\nlinear layers at M = %lld rows, GFLOP/s    1 thread  OpenBLAS x%-3d split x%-3d (split: speed-up over 1 thread)\n",
              (long long)M, nt, nt);
  auto name = [](const char* what, int64_t k, int64_t n) { return std::string(what) + " " + std::to_string(k) + "->" + std::to_string(n); };
  for (auto [K, N, what] : std::vector<std::tuple<int64_t, int64_t, std::string>>{
           {D, 3 * D, name("q,k,v", D, 3 * D)}, {D, D, name("out", D, D)}, {D, F, name("ffn up", D, F)}, {F, D, name("ffn down", F, D)}}) {
    Tensor x = Tensor::randn({M, K}), w = Tensor::randn({K, N}), y = Tensor::empty({M, N}), g = Tensor::randn({M, N});
    Tensor dx = Tensor::empty({M, K}), dw = Tensor::empty({K, N});
    // which: Y = X W [M,N,K]; dX = dY W^T [M,K,N]; dW = X^T dY [K,N,M]
    for (int which = 0; which < 3; ++which) {
      int64_t m = which == 2 ? K : M, nn = which == 1 ? K : N, k = which == 0 ? K : which == 1 ? N : M;
      bool ta = which == 2, tb = which == 1;
      const float* A = which == 0 ? x.data() : which == 1 ? g.data() : x.data();
      const float* B = which == 0 ? w.data() : which == 1 ? w.data() : g.data();
      float* C = which == 0 ? y.data() : which == 1 ? dx.data() : dw.data();
      double f = 2.0 * m * nn * k;
      auto blas = [&](int threads) {
        openblas_set_num_threads(threads);
        double t = median_time(9, [&] { sgemm_dense(ta, tb, m, nn, k, A, B, 0.0f, C); });
        openblas_set_num_threads(nt);
        return f / t / 1e9;
      };
      GemmPlan plan = gemm_split(m, nn, k, nt, kGemmThreadMin);
      double one = blas(1), theirs = blas(nt);
      double ours = f / median_time(9, [&] { sgemm_split(plan, ta, tb, m, nn, k, A, B, 0.0f, C); }) / 1e9;
      const char* how = plan.split == GemmSplit::Rows ? "rows" : plan.split == GemmSplit::Columns ? "columns"
                        : plan.split == GemmSplit::Inner ? "inner" : "one thread";
      char label[80];
      std::snprintf(label, sizeof label, "%s %s", what.c_str(), which == 0 ? "Y = X W" : which == 1 ? "dX = dY W^T" : "dW = X^T dY");
      std::printf("%-40s %9.1f %11.1f %11.1f  (%s in %d; %.2fx vs %.2fx)\n", label, one, theirs, ours, how, plan.parts,
                  ours / one, theirs / one);
    }
  }
}
// The small ops at bench's model shape, forward + backward, at 1 thread and at all threads
// (medians of 31): which ones a second thread helps, and by how much.
void op_rows() {
  const int nt = omp_get_max_threads();
  const int64_t B = 8, N = 1024, D = 128;
  std::printf("\nsmall ops at bench's model ([%lld, %lld, %lld]), fwd + bwd, ms   1 thread  %2d threads  speed-up\n",
              (long long)B, (long long)N, (long long)D, nt);
  Tensor x = Tensor::randn({B, N, D}).set_requires_grad(), y = Tensor::randn({B, N, D}).set_requires_grad();
  Tensor pos = Tensor::randn({N, D}).set_requires_grad(), gamma = Tensor::ones({D}).set_requires_grad();
  Tensor beta = Tensor::zeros({D}).set_requires_grad(), table = Tensor::randn({257, D}).set_requires_grad();
  Tensor g = Tensor::randn({B, N, D}), gp = Tensor::randn({B, 4, N, D / 4});
  std::vector<int32_t> tok(size_t(B * N));
  for (size_t i = 0; i < tok.size(); ++i) tok[i] = int32_t((i * 7919) % 257);
  IntTensor ids({B, N}, tok);
  Tensor x4 = Tensor::randn({B, N, 4, D / 4}).set_requires_grad();
  // the optimizer over bench's parameters: 2 layers of (4 D^2 + 2 D F), embeddings, positions
  std::vector<NamedTensor> params;
  for (int l = 0; l < 2; ++l)
    for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{{D, 3 * D}, {D, D}, {D, 2 * D}, {2 * D, D}}) {
      Tensor w = Tensor::randn({r, c}).set_requires_grad();
      w.grad_data();
      params.push_back({"w" + std::to_string(params.size()), w});
    }
  for (Tensor t : {table, pos}) params.push_back({"e" + std::to_string(params.size()), t});
  for (auto& p : params) p.tensor.grad_data();
  Adam adam(params, 0.9f, 0.98f, 1e-9f, 0.01f, true);
  auto fb = [&](const std::function<Tensor()>& f, const Tensor& grad) {
    return [&, f, grad] {
      for (Tensor t : {x, y, pos, gamma, beta, table, x4}) t.zero_grad();
      f().backward(grad);
    };
  };
  std::vector<std::pair<const char*, std::function<void()>>> ops = {
      {"add (residual, same shapes)", fb([&] { return add(x, y); }, g)},
      {"add (positions, broadcast over batch)", fb([&] { return add(x, pos); }, g)},
      {"gelu", fb([&] { return gelu(x); }, g)},
      {"layer norm", fb([&] { return layer_norm(x, gamma, beta); }, g)},
      {"permute [B,N,H,d] -> [B,H,N,d]", fb([&] { return permute(x4, {0, 2, 1, 3}); }, gp)},
      {"embedding (8192 lookups of 257 rows)", fb([&] { return embedding(table, ids); }, g)},
      {"AdamW step (430K parameters)", [&] { adam.step(1e-4f); }},
  };
  for (auto& [name, f] : ops) {
    omp_set_num_threads(1);
    double one = median_time(31, f);
    omp_set_num_threads(nt);
    double all = median_time(31, f);
    std::printf("%-52s %8.3f %11.3f %8.2fx\n", name, 1e3 * one, 1e3 * all, one / all);
  }
}
}  // namespace

int main(int argc, char** argv) {
  reexec_if_blas_core_unknown(argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string part = argc > 1 ? argv[1] : "all";
  if (part != "all" && part != "matmul" && part != "linear" && part != "ops" && part != "rows") {
    std::fprintf(stderr, "bench_core: unknown part '%s' (expected all, matmul, linear, ops or rows)\n", part.c_str());
    return 2;
  }
  const int64_t n = 1024;
  std::string ts;
  for (int64_t t : vec::targets()) ts += " " + vec::target_name(t);
  std::printf("bench_core (median of repetitions; %d OpenMP threads)\nCPU: %s; SIMD targets:%s (best: %s); "
              "OpenBLAS kernels: %s\n\n",
              omp_get_max_threads(), cpu_name().c_str(), ts.c_str(), vec::current_target().c_str(), blas_core().c_str());
  double peak = 0;
  if (part == "matmul" || part == "all") {
    std::vector<double> p;
    for (int i = 0; i < 5; ++i) p.push_back(sgemm_peak_gflops(2048, 1));
    std::sort(p.begin(), p.end());
    peak = p[2];
  }
  if (part == "matmul" || part == "all") {
    Tensor a = Tensor::randn({n, n}), b = Tensor::randn({n, n});
    Tensor c = Tensor::empty({n, n});
    double flops = 2.0 * n * n * n;
    double t_raw = median_time(7, [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    });
    double t_fwd = median_time(7, [&] { matmul(a, b); });
    Tensor ag = a.detach().set_requires_grad(), bg = b.detach().set_requires_grad();
    double t_fb = median_time(5, [&] {
      Tensor y = matmul(ag, bg);
      y.backward(Tensor::ones({n, n}));
    });
    std::printf("%-44s %9.1f GFLOP/s\n", "cblas_sgemm 2048^3 (the machine's rate)", peak);
    row("cblas_sgemm 1024^3", flops / t_raw / 1e9, "GFLOP/s", peak, "2048^3 sgemm");
    row("matmul op 1024^3 forward", flops / t_fwd / 1e9, "GFLOP/s", flops / t_raw / 1e9, "raw 1024^3");
    row("matmul op 1024^3 forward + backward", 3 * flops / t_fb / 1e9, "GFLOP/s", flops / t_raw / 1e9, "raw 1024^3");

    // attention shapes: scores = Q K^T and out = P V, 32 heads*batch
    Tensor q = Tensor::randn({32, 1024, 32}), k = Tensor::randn({32, 1024, 32});
    double bflops = 2.0 * 32 * 1024 * 1024 * 32;
    double t_qk = median_time(7, [&] { matmul(q, k, false, true); });
    Tensor p = Tensor::randn({32, 1024, 1024});
    double t_pv = median_time(7, [&] { matmul(p, k); });
    row("batched 32 x [1024x32]·[32x1024] (Q K^T)", bflops / t_qk / 1e9, "GFLOP/s", peak, "2048^3 sgemm");
    row("batched 32 x [1024x1024]·[1024x32] (P V)", bflops / t_pv / 1e9, "GFLOP/s", peak, "2048^3 sgemm");

    // flash's tiles (attention/flash.cpp, Br 64 x Bc flash_block_k(d), and Bc 256 for d 64
    // to show why not): one thread per tile, as flash runs them, each thread on its own
    // tiles; the rate of the small GEMMs a tile engine lives on.
    for (auto [d, bc] : std::vector<std::pair<int64_t, int64_t>>{
             {16, flash_block_k(16)}, {32, flash_block_k(32)}, {64, 256}, {64, flash_block_k(64)}}) {
      const int64_t br = 64, reps = 2000 * 256 / bc;
      int nt = omp_get_max_threads();
      std::vector<std::vector<float>> Q(nt, std::vector<float>(br * d, 0.5f)), K(nt, std::vector<float>(bc * d, 0.25f)),
          S(nt, std::vector<float>(br * bc)), O(nt, std::vector<float>(br * d));
      // which: 0 S = Q K^T, 1 O += P V, 2 dV += P^T dO; engine: the tile engine's gemm (libxsmm
      // where it compiles the form: P V, P^T dO, and S = Q Kt from K transposed once, as flash
      // computes its scores) instead of OpenBLAS's
      auto tiles = [&](int which, bool engine) {
#pragma omp parallel
        {
          int t = omp_get_thread_num();
          for (int r = 0; r < reps; ++r)
            if (engine && which == 0)  // K[t] read as Kt [d, bc]
              tile::gemm(false, false, br, bc, d, 1.0f, Q[t].data(), d, K[t].data(), bc, 0.0f, S[t].data(), bc);
            else if (engine && which == 1)
              tile::gemm(false, false, br, d, bc, 1.0f, S[t].data(), bc, K[t].data(), d, 1.0f, O[t].data(), d);
            else if (engine && which == 2)
              tile::gemm(true, false, bc, d, br, 1.0f, S[t].data(), bc, Q[t].data(), d, 1.0f, K[t].data(), d);
            else if (which == 1)
              cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, br, d, bc, 1.0f, S[t].data(), bc, K[t].data(), d, 1.0f,
                          O[t].data(), d);
            else if (which == 2)
              cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, bc, d, br, 1.0f, S[t].data(), bc, Q[t].data(), d, 1.0f,
                          K[t].data(), d);
            else
              cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, br, bc, d, 1.0f, Q[t].data(), d, K[t].data(), d, 0.0f,
                          S[t].data(), bc);
        }
      };
      double f = 2.0 * br * bc * d * reps * nt;
      char label[80];
      for (int which : {0, 1, 2}) {
        double blas = f / median_time(3, [&] { tiles(which, false); }) / 1e9;
        double xsmm = f / median_time(3, [&] { tiles(which, true); }) / 1e9;
        if (which == 0)
          std::snprintf(label, sizeof label, "tile S = Q K^T [64x%lld]·[%lldx%lld]", (long long)d, (long long)d,
                        (long long)bc);
        else if (which == 1)
          std::snprintf(label, sizeof label, "tile O += P V [64x%lld]·[%lldx%lld]", (long long)bc, (long long)bc,
                        (long long)d);
        else
          std::snprintf(label, sizeof label, "tile dV += P^T dO [%lldx64]·[64x%lld]", (long long)bc, (long long)d);
        row(label, blas, "GFLOP/s", peak, "2048^3 sgemm");
        row(which == 0 ? "  the same as Q Kt, libxsmm (flash's form)" : "  the same, libxsmm (the tile engine's)", xsmm,
            "GFLOP/s", blas, "OpenBLAS");
      }
    }
  }
  if (part == "all" || part == "linear")  // bench's model by default; build/bench_core linear M D F for another
    linear_rows(argc > 4 ? std::atoll(argv[2]) : 8192, argc > 4 ? std::atoll(argv[3]) : 128, argc > 4 ? std::atoll(argv[4]) : 256);
  if (part == "all" || part == "ops") op_rows();
  if (part == "matmul" || part == "linear" || part == "ops") return 0;
  // fused row kernels on 32M floats: bytes moved = read x + write y (fwd), read y, g + write dx (bwd)
  const int64_t rows = 32768, cols = 1024, elems = rows * cols;
  Tensor x = Tensor::randn({rows, cols});
  Tensor src = Tensor::randn({rows, cols}), dst = Tensor::empty({rows, cols});
  double t_copy = best_time(7, [&] { std::memcpy(dst.data(), src.data(), sizeof(float) * elems); });
  double copy_gbs = 2.0 * 4 * elems / t_copy / 1e9;
  std::printf("%-44s %9.1f GB/s\n", "memcpy 128 MB", copy_gbs);
  Tensor gamma = Tensor::ones({cols}), beta = Tensor::zeros({cols});
  Tensor xg = x.detach().set_requires_grad();
  Tensor g = Tensor::randn({rows, cols});
  auto kernel = [&](const char* name, const std::function<Tensor(const Tensor&)>& f) {
    double tf = best_time(7, [&] { NoGradGuard ng; f(x); });
    double tfb = best_time(5, [&] {
      xg.zero_grad();
      Tensor y = f(xg);
      y.backward(g);
    });
    char label[80];
    std::snprintf(label, sizeof label, "%s forward, 32M floats", name);
    row(label, 2.0 * 4 * elems / tf / 1e9, "GB/s", copy_gbs, "memcpy");
    std::snprintf(label, sizeof label, "%s forward + backward", name);
    row(label, 5.0 * 4 * elems / tfb / 1e9, "GB/s", copy_gbs, "memcpy");
    std::printf("%-44s %9.3f s\n", "", tfb);
  };
  for (int64_t t : vec::targets()) {
    if (vec::target_name(t) == "SCALAR" || vec::target_name(t) == "EMU128") continue;  // never chosen on x86-64
    vec::restrict_to(t);
    std::printf("-- row kernels on the %s path\n", vec::current_target().c_str());
    kernel("softmax", [](const Tensor& t) { return softmax(t); });
    kernel("layer norm", [&](const Tensor& t) { return layer_norm(t, gamma, beta); });
    kernel("gelu", [](const Tensor& t) { return gelu(t); });
  }
  vec::restrict_to(0);
  return 0;
}
