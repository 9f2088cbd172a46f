// Where a second thread starts to pay: an elementwise add and an sgemm of the
// shapes the models use, on one thread and on two, best of many.  The figures
// chose kParallelMin and kGemmThreadMin (autograd/internal.h); run it on an idle
// machine (on a busy one a parallel region waits for its second thread):
//   g++ -O2 -march=x86-64-v2 -fopenmp bench/thresholds.cpp -o /tmp/thresholds -lopenblas && /tmp/thresholds
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

extern "C" void openblas_set_num_threads(int);

static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

int main() {
  for (int R : {128, 256, 512, 1024, 2048, 4096}) {
    const int K = 128, N = 256;
    std::vector<float> a(size_t(R) * K, 1.f), b(size_t(K) * N, 1.f), c(size_t(R) * N);
    double best[3] = {1e9, 1e9, 1e9};
    for (int rep = 0; rep < 40; ++rep)
      for (int t = 1; t <= 2; ++t) {
        openblas_set_num_threads(t);
        double t0 = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, R, N, K, 1, a.data(), K, b.data(), N, 0, c.data(), N);
        best[t] = std::min(best[t], now() - t0);
      }
    std::printf("sgemm [%d x %d] x [%d x %d], 2^%.0f multiply-adds: 1 thread %.1f us, 2 threads %.1f us (%.2fx)\n", R,
                K, K, N, std::log2(double(R) * K * N), best[1] * 1e6, best[2] * 1e6, best[1] / best[2]);
  }
  for (int lg = 13; lg <= 20; ++lg) {
    size_t n = size_t(1) << lg;
    std::vector<float> x(n, 1.f), y(n, 2.f), z(n);
    double best[3] = {1e9, 1e9, 1e9};
    for (int rep = 0; rep < 200; ++rep)
      for (int t = 1; t <= 2; ++t) {
        double t0 = now();
#pragma omp parallel for num_threads(t)
        for (size_t i = 0; i < n; ++i) z[i] = x[i] + y[i];
        best[t] = std::min(best[t], now() - t0);
      }
    std::printf("add of 2^%d floats: 1 thread %.1f us, 2 threads %.1f us (%.2fx)\n", lg, best[1] * 1e6, best[2] * 1e6,
                best[1] / best[2]);
  }
}
