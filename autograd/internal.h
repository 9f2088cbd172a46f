// Helpers shared by the op definitions (not part of the public API).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "autograd/tensor.h"
#include "autograd/vecmath.h"

namespace az {

// Below this many elements a loop is not worth waking a second thread for, and products of at
// most kGemmThreadMin multiply-adds (M N K) run on one thread.  Measured on the 2-core Sapphire
// Rapids (2026-12-01, best of 60 while other jobs ran): add and GELU gain from a second thread
// from 2^18 elements on (add of 2^18: 116 -> 40 us, below it no gain); an sgemm of
// 2^25-2^27 multiply-adds ([1024-4096 x 128] x [128 x 256]) was never faster on two threads
// (2048 rows: 1.6 ms on one, 6.3 ms at best on two), and every parallel region on a shared
// machine risks waiting a time slice for its second thread.  (Was 2^15 and OpenBLAS's own choice.)
constexpr int64_t kParallelMin = 1 << 18;
constexpr int64_t kGemmThreadMin = int64_t(1) << 26;

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

// fast_exp, fast_tanh, fast_gelu (scalar) and the dispatched vector kernels: autograd/vecmath.h.

// x's gradient buffer for a backward that writes every element of it: when x has
// none yet it is allocated without the zeroing pass and `fresh` is set (write, do
// not add); saves two passes over memory (zero, then read the zeros) per op.
inline float* grad_for_write(const Tensor& x, bool& fresh) {
  TensorImpl* t = x.impl();
  fresh = !t->grad;
  if (fresh) t->grad = std::make_shared<Storage>(size_t(x.numel()));
  return t->grad->data;
}

}  // namespace az
