// fourier_real (see fft_op.h): Re(F_n X F_D) with FFTW's 2-D real-to-complex
// transform, and its backward.
//
// Backward.  With M the diagonal 0/1 matrix of kept rows and G = dL/dY real:
//   L = <G, Re(F_n M X F_D)> = Re tr(G^T F_n M X F_D) = Re tr(F_D G^T F_n M X)
//   => dL/dX = Re((F_D G^T F_n M)^T) = M Re(F_n^T G F_D^T) = M Re(F_n G F_D),
// because DFT matrices are symmetric.  The map is self-adjoint up to the mask:
// the backward is the same transform applied to G, with the mask on its output.
//
// Real part from half a spectrum.  r2c gives C[j,k] for k <= D/2 only; for a
// real X, C[j,k] = conj(C[(n-j) mod n, D-k]), so the real parts of the missing
// columns are Re C[(n-j) mod n, D-k].
//
// Threads: FFTW's planner is not thread-safe, fftwf_execute_dft_r2c on distinct
// arrays is.  Plans are made once per (n, D) under a mutex, before the
// parallel loop over the batch; each thread transforms from its own aligned
// scratch buffers (the plans are made on 64-byte aligned arrays as well, so
// the new-array execute's alignment rule holds).
#include "mlp_mixer/fft_op.h"

#include <fftw3.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace az {
namespace {

struct PlanCache {
  std::mutex mu;
  std::map<std::pair<int64_t, int64_t>, fftwf_plan> plans;  // (n, D) -> r2c 2-D plan
};
PlanCache& plan_cache() {
  static PlanCache* c = new PlanCache;  // never destroyed: plans live as long as the program
  return *c;
}

float* aligned_floats(size_t count) {
  size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
  auto* p = static_cast<float*>(std::aligned_alloc(64, bytes ? bytes : 64));
  if (!p) fail("fourier_real: out of memory allocating " + std::to_string(bytes) + " bytes");
  return p;
}

fftwf_plan plan_for(int64_t n, int64_t D) {
  PlanCache& c = plan_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.plans.find({n, D});
  if (it != c.plans.end()) return it->second;
  // FFTW_ESTIMATE never touches the arrays; they only fix the alignment.
  float* in = aligned_floats(size_t(n * D));
  float* out = aligned_floats(size_t(2 * n * (D / 2 + 1)));
  fftwf_plan p = fftwf_plan_dft_r2c_2d(int(n), int(D), in, reinterpret_cast<fftwf_complex*>(out),
                                       FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  std::free(in);
  std::free(out);
  if (!p) fail("fourier_real: FFTW could not plan a " + std::to_string(n) + " x " + std::to_string(D) + " transform");
  c.plans[{n, D}] = p;
  return p;
}

// One thread's scratch buffer, grown on demand.
struct Scratch {
  float* p = nullptr;
  size_t n = 0;
  ~Scratch() { std::free(p); }
  float* get(size_t count) {
    if (count > n) {
      std::free(p);
      p = aligned_floats(count);
      n = count;
    }
    return p;
  }
};

// One example: y[:n] (+)= s * Re(F_n X F_D) with X = x[:n], rows j with
// in_pad[j] != 0 read as zero; rows with out_pad[j] != 0 and rows >= n are not
// written (accumulate) or written as 0 (overwrite).  x, y [N,D].
void transform(fftwf_plan plan, const float* x, float* y, int64_t N, int64_t D, int64_t n, float s,
               const float* in_pad, const float* out_pad, bool accumulate) {
  static thread_local Scratch in_buf, out_buf;
  int64_t H = D / 2 + 1;  // columns of the half spectrum
  if (n > 0) {
    float* in = in_buf.get(size_t(n * D));
    for (int64_t j = 0; j < n; ++j) {
      if (in_pad && in_pad[j] != 0) std::memset(in + j * D, 0, sizeof(float) * D);
      else std::memcpy(in + j * D, x + j * D, sizeof(float) * D);
    }
    float* c = out_buf.get(size_t(2 * n * H));
    fftwf_execute_dft_r2c(plan, in, reinterpret_cast<fftwf_complex*>(c));
    for (int64_t j = 0; j < n; ++j) {
      float* yr = y + j * D;
      bool skip = out_pad && out_pad[j] != 0;
      if (skip) {
        if (!accumulate) std::memset(yr, 0, sizeof(float) * D);
        continue;
      }
      const float* row = c + 2 * j * H;                   // C[j, 0..H)
      const float* mirror = c + 2 * ((n - j) % n) * H;    // C[(n-j) mod n, 0..H)
      if (accumulate) {
        for (int64_t k = 0; k < H; ++k) yr[k] += s * row[2 * k];
        for (int64_t k = H; k < D; ++k) yr[k] += s * mirror[2 * (D - k)];
      } else {
        for (int64_t k = 0; k < H; ++k) yr[k] = s * row[2 * k];
        for (int64_t k = H; k < D; ++k) yr[k] = s * mirror[2 * (D - k)];
      }
    }
  }
  if (!accumulate && n < N) std::memset(y + n * D, 0, sizeof(float) * (N - n) * D);
}

}  // namespace

size_t fourier_plan_count() {
  PlanCache& c = plan_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.plans.size();
}

Tensor fourier_real(const Tensor& x, const Tensor& key_pad, bool own_length, bool ortho) {
  OpScope prof("fourier_real");
  if (x.dim() != 3) fail("fourier_real: x must be [B,N,D], got " + shape_str(x.shape()));
  int64_t B = x.size(0), N = x.size(1), D = x.size(2);
  if (key_pad.defined() && key_pad.shape() != Shape{B, N})
    fail("fourier_real: key_pad " + shape_str(key_pad.shape()) + " must be [B,N] = " + shape_str({B, N}));
  const float* pad = key_pad.defined() ? key_pad.data() : nullptr;
  // Rows transformed per example, their plans (made here, serially) and scales.
  std::vector<int64_t> n(size_t(B), N);
  if (pad && own_length)
    for (int64_t b = 0; b < B; ++b) {
      int64_t last = N;
      while (last > 0 && pad[b * N + last - 1] != 0) --last;
      n[size_t(b)] = last;
    }
  std::vector<fftwf_plan> plans(size_t(B), nullptr);
  std::vector<float> scale(size_t(B), 1.0f);
  for (int64_t b = 0; b < B; ++b) {
    int64_t nb = n[size_t(b)];
    if (nb == 0) continue;
    plans[size_t(b)] = plan_for(nb, D);
    if (ortho) scale[size_t(b)] = float(1.0 / std::sqrt(double(nb) * double(D)));
  }
  Tensor y = Tensor::empty(x.shape());
  const float* px = x.data();
  float* py = y.data();
#pragma omp parallel for schedule(dynamic, 1) if (B > 1)
  for (int64_t b = 0; b < B; ++b)
    transform(plans[size_t(b)], px + b * N * D, py + b * N * D, N, D, n[size_t(b)], scale[size_t(b)],
              pad ? pad + b * N : nullptr, nullptr, false);
  if (needs_grad({&x}))
    attach(y, "fourier_real", {x}, [x, key_pad, n, plans, scale](const Tensor& y) {
      int64_t B = x.size(0), N = x.size(1), D = x.size(2);
      const float* g = y.grad_data();
      float* gx = x.grad_data();
      const float* pad = key_pad.defined() ? key_pad.data() : nullptr;
#pragma omp parallel for schedule(dynamic, 1) if (B > 1)
      for (int64_t b = 0; b < B; ++b)  // dX = M Re(F_n G F_D): the same transform, mask on the output
        transform(plans[size_t(b)], g + b * N * D, gx + b * N * D, N, D, n[size_t(b)], scale[size_t(b)], nullptr,
                  pad ? pad + b * N : nullptr, true);
    });
  return y;
}

}  // namespace az
