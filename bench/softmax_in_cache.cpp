// In-cache timings of the row max and the softmax forward op (64 x 1024 floats,
// L2-resident), one thread, best of 2000 / 300, on every SIMD target this CPU has:
// the figures behind autograd/runtime/vecmath.cpp's four running maxima.  After make:
//   g++ -O2 -std=c++17 -fopenmp -I. bench/softmax_in_cache.cpp -Wl,--whole-archive build/libattnzoo.a \
//     -Wl,--no-whole-archive -o /tmp/sm -lxsmm -lopenblas -lhwy -lstb -lz -lfftw3f -lpthread -ldl && OMP_NUM_THREADS=1 /tmp/sm
#include <chrono>
#include <cstdio>
#include <algorithm>
#include <vector>
#include <string>
#include "autograd/ops.h"
#include "autograd/runtime/vecmath.h"
using namespace az;
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main() {
  for (int64_t tg : vec::targets()) {
    vec::restrict_to(tg);
    std::vector<float> x(1024);
    for (int i = 0; i < 1024; ++i) x[i] = float((i * 37) % 101) * 0.01f;
    Tensor t = Tensor::randn({64, 1024});
    std::string nm = vec::target_name(tg); const char* name = nm.c_str();
    double bm = 1e9, bs = 1e9; float sink = 0;
    for (int rep = 0; rep < 2000; ++rep) {
      double t0 = now();
      for (int k = 0; k < 16; ++k) sink += vec::max(x.data(), 1024);
      bm = std::min(bm, (now() - t0) / 16 / 1024);
    }
    NoGradGuard ng;
    for (int rep = 0; rep < 300; ++rep) {
      double t0 = now();
      Tensor y = softmax(t, Tensor(), true);
      bs = std::min(bs, (now() - t0) / (64 * 1024));
    }
    std::printf("%s (%s): max %.3f ns/elt, softmax forward %.3f ns/elt (%g)\n", name, vec::current_target().c_str(), bm * 1e9, bs * 1e9, sink);
  }
}
