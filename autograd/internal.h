// Helpers shared by the op definitions (not part of the public API).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "autograd/tensor.h"

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

// exp(x) in float, vectorisable (no libm call, no branch), after Cephes' expf: x = n ln2 + r
// with |r| <= ln2/2 (ln2 split in two for exactness), e^r by a degree-7
// polynomial, 2^n through the exponent bits.  Relative error below 1e-7;
// exp(x) = 0 below -87 (so exp(-inf) = 0), saturates above 88.
inline float fast_exp(float x) {
  // NaN fails both comparisons and is clamped as well (int32_t(NaN) below would be
  // undefined behaviour); the last line hands it back as NaN.
  float xc = x > -87.0f ? x : -87.0f;
  xc = xc < 88.0f ? xc : 88.0f;
  // n = round(xc / ln2) by adding and removing 1.5 * 2^23 (exact: |n| < 128).  Not
  // floorf: GCC 12 does not vectorise it for this machine's -march=native.
  float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = xc - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500E-4f;
  p = p * r + 1.3981999507E-3f;
  p = p * r + 8.3334519073E-3f;
  p = p * r + 4.1665795894E-2f;
  p = p * r + 1.6666665459E-1f;
  p = p * r + 5.0000001201E-1f;
  float y = p * r * r + r + 1.0f;
  float scale = __builtin_bit_cast(float, int32_t((int32_t(n) + 127) << 23));
  return x < -87.0f ? 0.0f : (x == x ? y * scale : x);
}

// tanh(u) = 1 - 2 / (exp(2u) + 1), through fast_exp.
inline float fast_tanh(float u) { return 1.0f - 2.0f / (fast_exp(2.0f * u) + 1.0f); }

}  // namespace az
