// Helpers shared by the op definitions (not part of the public API).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "autograd/tensor.h"
#include "autograd/runtime/vecmath.h"

namespace az {

// Below this many elements a loop is not worth waking a second thread for, and products of at
// most kGemmThreadMin multiply-adds (M N K) run on one thread.  Measured on the idle 2-core
// Sapphire Rapids (2026-12-01, best of 200 and 40, bench/thresholds.cpp):
// an add of 2^14 floats takes 9.1 us on one thread and 6.8 on two (1.3x), of 2^15 18.5 / 12.6,
// of 2^18 140 / 71 (2.0x); an sgemm [R x 128] x [128 x 256] of 2^22 multiply-adds 75 / 60 us
// (1.25x), of 2^24 258 / 191, of 2^26 1030 / 657 (1.57x).  So a second thread pays from about
// 2^15 elements and 2^21 multiply-adds; below them (the attention tiles, per-row work) one
// thread.  An earlier choice (2^18 and 2^26), measured while other jobs held the cores, kept
// the mixer's [2048 x 128] activations and their products on one thread: 2 threads then ran
// the Fashion-MNIST mixer at 11.2 steps/s against 14.5 for the build before it (idle machine).
constexpr int64_t kParallelMin = 1 << 15;
constexpr int64_t kGemmThreadMin = int64_t(1) << 21;

Shape broadcast_shape(const char* op, const Shape& a, const Shape& b);
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out);

// A negative axis counts from the end; out of range is an error naming the op.
inline int norm_axis(const char* op, int axis, int64_t rank) {
  int a = axis < 0 ? axis + int(rank) : axis;
  if (a < 0 || a >= rank)
    fail(std::string(op) + ": axis " + std::to_string(axis) + " out of range for a " + std::to_string(rank) +
         "-d tensor");
  return a;
}

// x viewed as [outer, n, inner] around `axis`.
struct AxisView {
  int64_t outer = 1, n = 1, inner = 1;
};
inline AxisView axis_view(const Shape& s, int axis) {
  AxisView v;
  for (int i = 0; i < (int)s.size(); ++i) {
    if (i < axis) v.outer *= s[i];
    else if (i == axis) v.n = s[i];
    else v.inner *= s[i];
  }
  return v;
}

// fast_exp, fast_tanh, fast_gelu (scalar) and the dispatched vector kernels: autograd/runtime/vecmath.h.

// x's gradient buffer for a backward that writes every element of it: when x has
// none yet it is allocated without the zeroing pass and `fresh` is set (write, do
// not add); saves two passes over memory (zero, then read the zeros) per op.
inline float* grad_for_write(const Tensor& x, bool& fresh) {
  std::shared_ptr<Storage>& grad = grad_slot(x.impl());
  fresh = !grad;
  if (fresh) grad = std::make_shared<Storage>(size_t(x.numel()));
  return grad->data;
}

}  // namespace az
