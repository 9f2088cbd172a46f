// bench_core: the core's kernels against the machine's own limits, in one run.
//
//   matmul 1024^3 (our op, forward; forward + backward) vs raw cblas_sgemm
//   batched matmul at the attention shape: 32 x [1024x32]·[32x1024] and its
//   partner 32 x [1024x1024]·[1024x32], vs the 2048^3 sgemm rate
//   softmax, layer norm, GELU forward + backward on 32M floats vs memcpy
//
// Each figure is the median of several repetitions.  Run: make bench-core
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "autograd/ops.h"
#include "train/bench.h"

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
void row(const char* what, double value, const char* unit, double ref, const char* ref_what) {
  std::printf("%-44s %9.1f %-7s %6.0f%% of %s\n", what, value, unit, 100.0 * value / ref, ref_what);
}
}  // namespace

int main() {
  const int64_t n = 1024;
  std::printf("bench_core (median of repetitions; %d OpenMP threads)\n\n", omp_get_max_threads());
  double peak = 0;
  {
    std::vector<double> p;
    for (int i = 0; i < 5; ++i) p.push_back(sgemm_peak_gflops(2048, 1));
    std::sort(p.begin(), p.end());
    peak = p[2];
  }
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

  // fused row kernels on 32M floats: bytes moved = read x + write y (fwd), read y, g + write dx (bwd)
  const int64_t rows = 32768, cols = 1024, elems = rows * cols;
  Tensor x = Tensor::randn({rows, cols});
  Tensor src = Tensor::randn({rows, cols}), dst = Tensor::empty({rows, cols});
  double t_copy = median_time(5, [&] { std::memcpy(dst.data(), src.data(), sizeof(float) * elems); });
  double copy_gbs = 2.0 * 4 * elems / t_copy / 1e9;
  std::printf("%-44s %9.1f GB/s\n", "memcpy 128 MB", copy_gbs);
  Tensor gamma = Tensor::ones({cols}), beta = Tensor::zeros({cols});
  Tensor xg = x.detach().set_requires_grad();
  Tensor g = Tensor::randn({rows, cols});
  auto kernel = [&](const char* name, const std::function<Tensor(const Tensor&)>& f) {
    double tf = median_time(5, [&] { NoGradGuard ng; f(x); });
    double tfb = median_time(3, [&] {
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
  kernel("softmax", [](const Tensor& t) { return softmax(t); });
  kernel("layer norm", [&](const Tensor& t) { return layer_norm(t, gamma, beta); });
  kernel("gelu", [](const Tensor& t) { return gelu(t); });
  return 0;
}
