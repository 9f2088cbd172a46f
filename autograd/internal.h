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

// Below this many elements a loop is not worth waking a second thread for.
constexpr int64_t kParallelMin = 1 << 15;

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
