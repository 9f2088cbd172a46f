// bench_core: the core's kernels against the machine's own limits, in one run.
//
//   matmul 1024^3 (our op, forward; forward + backward) vs raw cblas_sgemm
//   batched matmul at the attention shape: 32 x [1024x32]·[32x1024] and its
//   partner 32 x [1024x1024]·[1024x32], vs the 2048^3 sgemm rate
//   flash's tile GEMMs (64 x flash_block_k(d) by head dim 16, 32, 64, and 64 x 256 at 64), one thread each, vs the same,
//   OpenBLAS and libxsmm (the tile engine's small GEMMs) side by side
//   softmax, layer norm, GELU forward + backward on 32M floats vs memcpy (best of
//   repetitions: the run least disturbed on a shared machine), once per SIMD target
//   the CPU runs (autograd/runtime/vecmath.h: AVX-512, AVX2, SSE4), so one run shows the
//   path an AVX2-only machine would take too
//
// Each figure is the median of several repetitions.  Run: make bench-core, or
// build/bench_core matmul | rows for one part.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "attention/flash.h"
#include "attention/kernels/tile.h"
#include "autograd/ops.h"
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
}  // namespace

int main(int argc, char** argv) {
  reexec_if_blas_core_unknown(argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string part = argc > 1 ? argv[1] : "all";
  if (part != "all" && part != "matmul" && part != "rows") {
    std::fprintf(stderr, "bench_core: unknown part '%s' (expected all, matmul or rows)\n", part.c_str());
    return 2;
  }
  const int64_t n = 1024;
  std::string ts;
  for (int64_t t : vec::targets()) ts += " " + vec::target_name(t);
  std::printf("bench_core (median of repetitions; %d OpenMP threads)\nCPU: %s; SIMD targets:%s (best: %s); "
              "OpenBLAS kernels: %s\n\n",
              omp_get_max_threads(), cpu_name().c_str(), ts.c_str(), vec::current_target().c_str(), blas_core().c_str());
  double peak = 0;
  if (part != "rows") {
    std::vector<double> p;
    for (int i = 0; i < 5; ++i) p.push_back(sgemm_peak_gflops(2048, 1));
    std::sort(p.begin(), p.end());
    peak = p[2];
  }
  if (part != "rows") {
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
  if (part == "matmul") return 0;
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
