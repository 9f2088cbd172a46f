// vecmath: the fused row kernels (softmax, layer norm, GELU, exp) as explicit
// SIMD with run-time dispatch, through Google Highway (libhwy 1.0.3).
//
// The library is built for a portable baseline (Makefile: x86-64-v2, SSE4.2);
// vecmath.cpp is compiled once per Highway target (SSE4, AVX2, AVX-512) and
// the first call picks the best one the CPU has, so one binary runs on every
// x86-64 and is fast on each.  Every kernel is one pass (or two, in cache)
// over its rows: memory-bound for long arrays, so the targets are % of memcpy.
//
// Each kernel has a scalar reference in vec::ref with the same arguments
// (plain loops over fast_exp & co. below); tests/test_simd.cpp checks every
// kernel against it on every target the machine supports.  The math is the
// same polynomial in both, so they agree to float rounding (about 1e-7).
//
// ATTNZOO_SIMD=sse4|avx2|avx512 (environment) caps the target, e.g. to measure
// the AVX2 path on an AVX-512 machine; restrict_to() does the same in code.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace az {

// exp(x) in float without a libm call or a branch, after Cephes' expf: x = n ln2 + r
// with |r| <= ln2/2 (ln2 split in two for exactness), e^r by a degree-7
// polynomial, 2^n through the exponent bits.  Relative error below 1e-7;
// exp(x) = 0 below -87 (so exp(-inf) = 0), saturates above 88; NaN stays NaN.
// vecmath.cpp's vector exp is this function lane by lane.
inline float fast_exp(float x) {
  // NaN fails both comparisons and is clamped as well (int32_t(NaN) below would be
  // undefined behaviour); the last line hands it back as NaN.
  float xc = x > -87.0f ? x : -87.0f;
  xc = xc < 88.0f ? xc : 88.0f;
  // n = round(xc / ln2) by adding and removing 1.5 * 2^23 (exact: |n| < 128).
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

// tanh(u), Cephes' tanhf: an odd polynomial for |u| < 0.625 (where
// 1 - 2/(e^2u + 1) would cancel and lose relative accuracy near 0), else
// 1 - 2 / (exp(2u) + 1).  Relative error about 2e-7.
inline float fast_tanh(float u) {
  float z = u * u;
  float small = ((((-5.70498872745E-3f * z + 2.06390887954E-2f) * z - 5.37397155531E-2f) * z + 1.33314422036E-1f) * z -
                 3.33332819422E-1f) * z * u + u;
  float big = 1.0f - 2.0f / (fast_exp(2.0f * u) + 1.0f);
  return (u < 0.625f && u > -0.625f) ? small : big;
}

// GELU, tanh form: x/2 (1 + tanh(u)), u = c (x + 0.044715 x^3), c = sqrt(2/pi),
// computed as x * s with s = 1/2 (1 + tanh u) = 1 / (1 + e), e = exp(-2u): no
// cancellation for negative x, where 1 + tanh u would lose the low bits.
// dy/dx = s + x s(1-s) 2u' = s + 2 x e s^2 c (1 + 3 * 0.044715 x^2).
// -2u is capped at 80 (x < -5.3) so that s stays a normal float for the
// vector code's reciprocal: there |y| < 1e-33 where the exact one is smaller still.
// -2u = x (a1 + a3 x^2): two multiplies and an add (vecmath.cpp rounds it the same way).
constexpr float kGeluA1 = -2.0f * 0.7978845608028654f, kGeluA3 = -2.0f * 0.7978845608028654f * 0.044715f;
inline float gelu_e(float x) {
  float a = x * (kGeluA3 * (x * x) + kGeluA1);
  return fast_exp(a < 80.0f ? a : 80.0f);  // (a NaN x gives 80 here and NaN in y through x)
}
inline float fast_gelu(float x) { return x * (1.0f / (1.0f + gelu_e(x))); }
inline float fast_gelu_grad(float x) {
  constexpr float c = 0.7978845608028654f, k = 0.044715f;
  float e = gelu_e(x), s = 1.0f / (1.0f + e);
  float es2 = e * s * s;  // <= 1/4, also where e saturates at e^88
  return s + 2.0f * x * es2 * (c * (1.0f + 3.0f * k * x * x));
}

namespace vec {

// ---- dispatch control ----------------------------------------------------------------------
// The Highway targets (bits) this build has code for and this CPU runs, best first.
std::vector<int64_t> targets();
std::string target_name(int64_t target);  // "AVX3" (AVX-512), "AVX2", "SSE4"
// Dispatch to `target` or worse only (0: back to the best).  Not thread-safe: call between kernels.
void restrict_to(int64_t target);
std::string current_target();  // the target the next kernel call runs

// ---- kernels (n, D: row length; all pointers to n floats unless said) ----------------------
// The gradient kernels add into gx, or (add = false) overwrite it: a backward whose
// input gradient is fresh skips zeroing it and reading the zeros (see grad_for_write).
float max(const float* x, int64_t n);                      // -inf when n = 0
float copy_max(const float* x, float* z, int64_t n);       // z = x; returns max
// z = x with -inf where m != 0 (is_bool) or z = x + m (additive); returns max(z)
float mask_max(const float* x, const float* m, bool is_bool, float* z, int64_t n);
float keep_max(const float* x, const float* keep, int64_t n);  // max over keep != 0; -inf if none
// y = exp(x - shift) (y may equal x); returns sum(y).  y null: the sum only.
float exp_sum(float* y, const float* x, float shift, int64_t n);
// y = keep * exp(x - shift) (keep 0/1 per entry); returns sum(y).
float exp_keep_sum(float* y, const float* x, const float* keep, float shift, int64_t n);
void scale(float* y, float a, int64_t n);                        // y *= a
float dot(const float* a, const float* b, int64_t n);
void softmax_grad(float* gx, const float* y, const float* g, float dot, int64_t n, bool add = true);  // gx += y (g - dot)
void mul_shift(float* ds, const float* p, float delta, int64_t n);                 // ds = p (ds - delta)
// One row of layer norm: y = (x - mu) rstd gamma + beta; writes mu, rstd.
void layer_norm_row(const float* x, const float* gamma, const float* beta, float eps, float* y, int64_t D, float* mu,
                    float* rstd);
// Its backward: dgamma += g xh, dbeta += g, and (gx non-null)
// gx += rstd (g gamma - mean(g gamma) - xh mean(g gamma xh)), xh = (x - mu) rstd.
void layer_norm_grad_row(const float* x, const float* g, const float* gamma, float mu, float rstd, float* gx,
                         float* dgamma, float* dbeta, int64_t D, bool add = true);
void exp(const float* x, float* y, int64_t n);
void tanh(const float* x, float* y, int64_t n);
void elu1(const float* x, float* y, int64_t n);  // elu(x) + 1: x + 1 (x > 0) or e^x
// y = exp(x - shift) with a shift per entry, acc += y: a softmax down columns (rows of x in turn).
void exp_shift_acc(float* y, const float* x, const float* shift, float* acc, int64_t n);
void gelu(const float* x, float* y, int64_t n);
void gelu_grad(const float* x, const float* g, float* gx, int64_t n, bool add = true);  // gx += g gelu'(x)
// Dropout with DropoutMask's test (rng.h) for elements first .. first + n - 1:
// y (+)= x scale where hash64(key ^ (first + j) golden) >= thresh, else 0.
void dropout(const float* x, float* y, int64_t n, uint64_t key, uint64_t first, uint64_t thresh, float scale,
             bool add = false);

// The same, as plain scalar loops: the references the tests compare with.
namespace ref {
float max(const float* x, int64_t n);
float copy_max(const float* x, float* z, int64_t n);
float mask_max(const float* x, const float* m, bool is_bool, float* z, int64_t n);
float keep_max(const float* x, const float* keep, int64_t n);
float exp_sum(float* y, const float* x, float shift, int64_t n);
float exp_keep_sum(float* y, const float* x, const float* keep, float shift, int64_t n);
void scale(float* y, float a, int64_t n);
float dot(const float* a, const float* b, int64_t n);
void softmax_grad(float* gx, const float* y, const float* g, float dot, int64_t n, bool add = true);
void mul_shift(float* ds, const float* p, float delta, int64_t n);
void layer_norm_row(const float* x, const float* gamma, const float* beta, float eps, float* y, int64_t D, float* mu,
                    float* rstd);
void layer_norm_grad_row(const float* x, const float* g, const float* gamma, float mu, float rstd, float* gx,
                         float* dgamma, float* dbeta, int64_t D, bool add = true);
void exp(const float* x, float* y, int64_t n);
void tanh(const float* x, float* y, int64_t n);
void elu1(const float* x, float* y, int64_t n);
void exp_shift_acc(float* y, const float* x, const float* shift, float* acc, int64_t n);
void gelu(const float* x, float* y, int64_t n);
void gelu_grad(const float* x, const float* g, float* gx, int64_t n, bool add = true);
}  // namespace ref

}  // namespace vec
}  // namespace az
