// vecmath kernels (see vecmath.h): Highway's foreach_target re-includes this
// file once per x86 target (SSE4, AVX2, AVX-512), each copy in its own
// namespace and compiled with that target's instructions; HWY_EXPORT /
// HWY_DYNAMIC_DISPATCH then call the best copy the CPU supports.  The
// scalar references (vec::ref) follow at the end, compiled once.
//
// Tails (n not a multiple of the lane count) go through a small buffer padded
// with a neutral value (-inf for max and exp sums, 0 for dots), so no kernel
// reads or writes past its row, and every lane count gives the same answer.
// SSSE3 would never be chosen: the baseline (Makefile) is x86-64-v2, which has SSE4.
#define HWY_DISABLED_TARGETS HWY_SSSE3
// A -march=native build on Ice Lake or newer has AVX3_DL as its baseline, which Highway
// 1.0.3 compiles only when asked (else it stops with "best baseline should be included").
#if defined(__AVX512VBMI2__) && defined(__AVX512BITALG__)
#define HWY_WANT_AVX3_DL
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "autograd/runtime/vecmath.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "autograd/runtime/vecmath.h"
#include "autograd/runtime/rng.h"

HWY_BEFORE_NAMESPACE();
namespace az {
namespace vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr size_t kBuf = 64;  // floats: more than the widest vector

// fast_exp (vecmath.h), lane by lane.
HWY_INLINE V Exp(D d, V x) {
  const hn::RebindToSigned<D> di;
  // x86's max and min return their second operand when either is NaN: x goes second, so a NaN
  // runs through as NaN (NaN times the scale, whatever its bits) with no compare and blend for it.
  V xc = hn::Min(hn::Set(d, 88.0f), hn::Max(hn::Set(d, -87.0f), x));
  // n = round(xc log2 e) by adding 1.5 * 2^23 + 127: the float's low mantissa bits are
  // then n + 127 (in [1, 254] after the clamp), which shifted up by 23 are 2^n's bits.
  const V magic = hn::Set(d, 12583039.0f);
  V nb = hn::MulAdd(xc, hn::Set(d, 1.44269504088896341f), magic);
  V n = hn::Sub(nb, magic);
  V r = hn::MulAdd(n, hn::Set(d, 2.12194440e-4f), hn::NegMulAdd(n, hn::Set(d, 0.693359375f), xc));
  V p = hn::Set(d, 1.9875691500E-4f);
  p = hn::MulAdd(p, r, hn::Set(d, 1.3981999507E-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 8.3334519073E-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.1665795894E-2f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.6666665459E-1f));
  p = hn::MulAdd(p, r, hn::Set(d, 5.0000001201E-1f));
  V y = hn::Add(hn::MulAdd(p, hn::Mul(r, r), r), hn::Set(d, 1.0f));
  V scale = hn::BitCast(d, hn::ShiftLeft<23>(hn::BitCast(di, nb)));
  V res = hn::Mul(y, scale);
#if !HWY_ARCH_X86 || HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  // Arm's min and max (fminnm, fmaxnm) and the portable ones return the number, not the NaN:
  // exp(NaN) would be exp(-87).  Put the NaN back.
  res = hn::IfThenElse(hn::Eq(x, x), res, x);
#endif
  return hn::IfThenZeroElse(hn::Lt(x, hn::Set(d, -87.0f)), res);
}

// fast_tanh (vecmath.h).
HWY_INLINE V Tanh(D d, V u) {
  V z = hn::Mul(u, u);
  V p = hn::MulAdd(hn::Set(d, -5.70498872745E-3f), z, hn::Set(d, 2.06390887954E-2f));
  p = hn::MulAdd(p, z, hn::Set(d, -5.37397155531E-2f));
  p = hn::MulAdd(p, z, hn::Set(d, 1.33314422036E-1f));
  p = hn::MulAdd(p, z, hn::Set(d, -3.33332819422E-1f));
  V small = hn::MulAdd(hn::Mul(p, z), u, u);
  V one = hn::Set(d, 1.0f);
  V big = hn::Sub(one, hn::Div(hn::Set(d, 2.0f), hn::Add(Exp(d, hn::Add(u, u)), one)));
  return hn::IfThenElse(hn::Lt(hn::Abs(u), hn::Set(d, 0.625f)), small, big);
}

// 1/v from the hardware estimate and Newton steps, each doubling its bits: x86's 12 or 14
// bits take one (about 23 bits), Arm's 8 (frecpe) two; v must be normal and its reciprocal
// too (GELU's clamp sees to it).
HWY_INLINE V Recip(D d, V v) {
  V r = hn::ApproximateReciprocal(v);
#if !HWY_ARCH_X86
  r = hn::Mul(r, hn::NegMulAdd(v, r, hn::Set(d, 2.0f)));
#endif
  return hn::Mul(r, hn::NegMulAdd(v, r, hn::Set(d, 2.0f)));
}

// fast_gelu and fast_gelu_grad (vecmath.h).
// -2u exactly as the scalar form rounds it (no fused multiply-add: exp amplifies an
// error in u by |2u|, so both must see the same bits), from x^2 (which the gradient shares).
HWY_INLINE V GeluE(D d, V x, V x2) {
  V a = hn::Mul(x, hn::Add(hn::Mul(hn::Set(d, kGeluA3), x2), hn::Set(d, kGeluA1)));
  return Exp(d, hn::Min(a, hn::Set(d, 80.0f)));
}
HWY_INLINE V Gelu(D d, V x) { return hn::Mul(x, Recip(d, hn::Add(hn::Set(d, 1.0f), GeluE(d, x, hn::Mul(x, x))))); }
HWY_INLINE V GeluGrad(D d, V x) {
  V x2 = hn::Mul(x, x), e = GeluE(d, x, x2);
  V s = Recip(d, hn::Add(hn::Set(d, 1.0f), e));
  V du = hn::Mul(hn::Set(d, 0.7978845608028654f), hn::MulAdd(hn::Set(d, 3.0f * 0.044715f), x2, hn::Set(d, 1.0f)));
  V es2 = hn::Mul(hn::Mul(e, s), s);  // e s^2 <= 1/4: no overflow where e saturates
  return hn::MulAdd(hn::Mul(hn::Mul(hn::Set(d, 2.0f), x), es2), du, s);
}

// The last n < Lanes floats of p in a vector, the rest `fill`; and back.
HWY_INLINE V LoadTail(D d, const float* p, size_t n, float fill) {
  HWY_ALIGN float buf[kBuf];
  for (size_t i = 0; i < hn::Lanes(d); ++i) buf[i] = i < n ? p[i] : fill;
  return hn::Load(d, buf);
}
HWY_INLINE void StoreTail(D d, V v, float* p, size_t n) {
  HWY_ALIGN float buf[kBuf];
  hn::Store(v, d, buf);
  std::memcpy(p, buf, n * sizeof(float));
}

// y[i] = f(x[i]) over n floats.
template <class F>
HWY_INLINE void Map(const float* x, float* y, size_t n, F f) {
  const D d;
  const size_t L = hn::Lanes(d);
  size_t i = 0;
  for (; i + L <= n; i += L) hn::StoreU(f(d, hn::LoadU(d, x + i)), d, y + i);
  if (i < n) StoreTail(d, f(d, LoadTail(d, x + i, n - i, 0.0f)), y + i, n - i);
}

// Four running maxima: one max has a 4-cycle latency, so a single chain ran at a
// quarter of the load rate and was a fifth of softmax's forward row on AVX2.
// NaN never enters a running max (the operand order keeps the old value), as
// in the scalar reference, so the order in which they are combined is free.
float Max(const float* x, int64_t n64) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(n64);
  V m0 = hn::Set(d, kNegInf), m1 = m0, m2 = m0, m3 = m0;
  size_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    m0 = hn::Max(m0, hn::LoadU(d, x + i)), m1 = hn::Max(m1, hn::LoadU(d, x + i + L));
    m2 = hn::Max(m2, hn::LoadU(d, x + i + 2 * L)), m3 = hn::Max(m3, hn::LoadU(d, x + i + 3 * L));
  }
  for (; i + L <= n; i += L) m0 = hn::Max(m0, hn::LoadU(d, x + i));
  if (i < n) m1 = hn::Max(m1, LoadTail(d, x + i, n - i, kNegInf));
  return hn::GetLane(hn::MaxOfLanes(d, hn::Max(hn::Max(m0, m1), hn::Max(m2, m3))));
}

float CopyMax(const float* x, float* z, int64_t n64) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(n64);
  V m0 = hn::Set(d, kNegInf), m1 = m0;  // two running maxima (see Max)
  size_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    V v0 = hn::LoadU(d, x + i), v1 = hn::LoadU(d, x + i + L);
    hn::StoreU(v0, d, z + i), hn::StoreU(v1, d, z + i + L);
    m0 = hn::Max(m0, v0), m1 = hn::Max(m1, v1);
  }
  for (; i + L <= n; i += L) {
    V v = hn::LoadU(d, x + i);
    hn::StoreU(v, d, z + i);
    m0 = hn::Max(m0, v);
  }
  if (i < n) {
    V v = LoadTail(d, x + i, n - i, kNegInf);
    StoreTail(d, v, z + i, n - i);
    m1 = hn::Max(m1, v);
  }
  return hn::GetLane(hn::MaxOfLanes(d, hn::Max(m0, m1)));
}

float MaskMax(const float* x, const float* mk, bool is_bool, float* z, int64_t n64) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(n64);
  const V ninf = hn::Set(d, kNegInf), zero = hn::Zero(d);
  auto f = [&](V v, V w) { return is_bool ? hn::IfThenElse(hn::Ne(w, zero), ninf, v) : hn::Add(v, w); };
  V m = ninf;
  size_t i = 0;
  for (; i + L <= n; i += L) {
    V v = f(hn::LoadU(d, x + i), hn::LoadU(d, mk + i));
    hn::StoreU(v, d, z + i);
    m = hn::Max(m, v);
  }
  if (i < n) {
    V v = f(LoadTail(d, x + i, n - i, kNegInf), LoadTail(d, mk + i, n - i, 0.0f));
    StoreTail(d, v, z + i, n - i);
    m = hn::Max(m, v);
  }
  return hn::GetLane(hn::MaxOfLanes(d, m));
}

float KeepMax(const float* x, const float* keep, int64_t n64) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(n64);
  const V ninf = hn::Set(d, kNegInf), zero = hn::Zero(d);
  V m = ninf;
  size_t i = 0;
  for (; i + L <= n; i += L) m = hn::Max(m, hn::IfThenElse(hn::Ne(hn::LoadU(d, keep + i), zero), hn::LoadU(d, x + i), ninf));
  if (i < n)
    m = hn::Max(m, hn::IfThenElse(hn::Ne(LoadTail(d, keep + i, n - i, 0.0f), zero), LoadTail(d, x + i, n - i, kNegInf), ninf));
  return hn::GetLane(hn::MaxOfLanes(d, m));
}

float ExpSum(float* y, const float* x, float shift, int64_t n64) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(n64);
  const V sh = hn::Set(d, shift);
  V s0 = hn::Zero(d), s1 = hn::Zero(d);  // two sums: the adds' latency is not on the critical path
  size_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    V e0 = Exp(d, hn::Sub(hn::LoadU(d, x + i), sh)), e1 = Exp(d, hn::Sub(hn::LoadU(d, x + i + L), sh));
    if (y) hn::StoreU(e0, d, y + i), hn::StoreU(e1, d, y + i + L);
    s0 = hn::Add(s0, e0);
    s1 = hn::Add(s1, e1);
  }
  for (; i + L <= n; i += L) {
    V e = Exp(d, hn::Sub(hn::LoadU(d, x + i), sh));
    if (y) hn::StoreU(e, d, y + i);
    s0 = hn::Add(s0, e);
  }
  if (i < n) {
    V e = Exp(d, hn::Sub(LoadTail(d, x + i, n - i, kNegInf), sh));
    if (y) StoreTail(d, e, y + i, n - i);
    s1 = hn::Add(s1, e);
  }
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1)));
}

float ExpKeepSum(float* y, const float* x, const float* keep, float shift, int64_t n64) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(n64);
  const V sh = hn::Set(d, shift);
  V s = hn::Zero(d);
  size_t i = 0;
  for (; i + L <= n; i += L) {
    V e = hn::Mul(hn::LoadU(d, keep + i), Exp(d, hn::Sub(hn::LoadU(d, x + i), sh)));
    hn::StoreU(e, d, y + i);
    s = hn::Add(s, e);
  }
  if (i < n) {
    V e = hn::Mul(LoadTail(d, keep + i, n - i, 0.0f), Exp(d, hn::Sub(LoadTail(d, x + i, n - i, kNegInf), sh)));
    StoreTail(d, e, y + i, n - i);
    s = hn::Add(s, e);
  }
  return hn::GetLane(hn::SumOfLanes(d, s));
}

void Scale(float* y, float a, int64_t n) {
  Map(y, y, size_t(n), [a](D d, V v) { return hn::Mul(v, hn::Set(d, a)); });
}

float Dot(const float* a, const float* b, int64_t n64) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(n64);
  V s0 = hn::Zero(d), s1 = hn::Zero(d);
  size_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    s0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), s0);
    s1 = hn::MulAdd(hn::LoadU(d, a + i + L), hn::LoadU(d, b + i + L), s1);
  }
  for (; i + L <= n; i += L) s0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), s0);
  if (i < n) s1 = hn::MulAdd(LoadTail(d, a + i, n - i, 0.0f), LoadTail(d, b + i, n - i, 0.0f), s1);
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1)));
}

// The value a gradient kernel adds to: gx's, or 0 when it overwrites (add false).
HWY_INLINE V Base(D d, const float* gx, bool add) { return add ? hn::LoadU(d, gx) : hn::Zero(d); }
HWY_INLINE V BaseTail(D d, const float* gx, size_t k, bool add) { return add ? LoadTail(d, gx, k, 0.0f) : hn::Zero(d); }

void SoftmaxGrad(float* gx, const float* y, const float* g, float dot, int64_t n64, bool add) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(n64);
  const V dt = hn::Set(d, dot);
  size_t i = 0;
  for (; i + L <= n; i += L)
    hn::StoreU(hn::MulAdd(hn::LoadU(d, y + i), hn::Sub(hn::LoadU(d, g + i), dt), Base(d, gx + i, add)), d, gx + i);
  if (i < n) {
    size_t k = n - i;
    V r = hn::MulAdd(LoadTail(d, y + i, k, 0.0f), hn::Sub(LoadTail(d, g + i, k, 0.0f), dt), BaseTail(d, gx + i, k, add));
    StoreTail(d, r, gx + i, k);
  }
}

void MulShift(float* ds, const float* p, float delta, int64_t n64) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(n64);
  const V dl = hn::Set(d, delta);
  size_t i = 0;
  for (; i + L <= n; i += L) hn::StoreU(hn::Mul(hn::LoadU(d, p + i), hn::Sub(hn::LoadU(d, ds + i), dl)), d, ds + i);
  if (i < n) {
    size_t k = n - i;
    StoreTail(d, hn::Mul(LoadTail(d, p + i, k, 0.0f), hn::Sub(LoadTail(d, ds + i, k, 0.0f), dl)), ds + i, k);
  }
}

void LayerNormRow(const float* x, const float* gamma, const float* beta, float eps, float* y, int64_t D64, float* mu_out,
                  float* rstd_out) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(D64);
  V s = hn::Zero(d);
  size_t i = 0;
  for (; i + L <= n; i += L) s = hn::Add(s, hn::LoadU(d, x + i));
  if (i < n) s = hn::Add(s, LoadTail(d, x + i, n - i, 0.0f));
  const float mu = hn::GetLane(hn::SumOfLanes(d, s)) / float(D64);
  const V vm = hn::Set(d, mu);
  V q = hn::Zero(d);
  for (i = 0; i + L <= n; i += L) {
    V c = hn::Sub(hn::LoadU(d, x + i), vm);
    q = hn::MulAdd(c, c, q);
  }
  if (i < n) {
    V c = hn::Sub(LoadTail(d, x + i, n - i, mu), vm);
    q = hn::MulAdd(c, c, q);
  }
  const float rstd = 1.0f / std::sqrt(hn::GetLane(hn::SumOfLanes(d, q)) / float(D64) + eps);
  const V vr = hn::Set(d, rstd);
  for (i = 0; i + L <= n; i += L) {
    V xh = hn::Mul(hn::Sub(hn::LoadU(d, x + i), vm), vr);
    hn::StoreU(hn::MulAdd(xh, hn::LoadU(d, gamma + i), hn::LoadU(d, beta + i)), d, y + i);
  }
  if (i < n) {
    size_t k = n - i;
    V xh = hn::Mul(hn::Sub(LoadTail(d, x + i, k, mu), vm), vr);
    StoreTail(d, hn::MulAdd(xh, LoadTail(d, gamma + i, k, 0.0f), LoadTail(d, beta + i, k, 0.0f)), y + i, k);
  }
  *mu_out = mu;
  *rstd_out = rstd;
}

void LayerNormGradRow(const float* x, const float* g, const float* gamma, float mu, float rstd, float* gx,
                      float* dgamma, float* dbeta, int64_t D64, bool add) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(D64);
  const V vm = hn::Set(d, mu), vr = hn::Set(d, rstd);
  V m1 = hn::Zero(d), m2 = hn::Zero(d);
  // one pass: the two means, dgamma and dbeta
  auto step = [&](V xv, V gv, V gam, V dgv, V dbv, V& dg_out, V& db_out) {
    V xh = hn::Mul(hn::Sub(xv, vm), vr), dxh = hn::Mul(gv, gam);
    m1 = hn::Add(m1, dxh);
    m2 = hn::MulAdd(dxh, xh, m2);
    dg_out = hn::MulAdd(gv, xh, dgv);
    db_out = hn::Add(dbv, gv);
  };
  size_t i = 0;
  for (; i + L <= n; i += L) {
    V dg, db;
    step(hn::LoadU(d, x + i), hn::LoadU(d, g + i), hn::LoadU(d, gamma + i), hn::LoadU(d, dgamma + i),
         hn::LoadU(d, dbeta + i), dg, db);
    hn::StoreU(dg, d, dgamma + i);
    hn::StoreU(db, d, dbeta + i);
  }
  if (i < n) {
    size_t k = n - i;
    V dg, db;
    step(LoadTail(d, x + i, k, mu), LoadTail(d, g + i, k, 0.0f), LoadTail(d, gamma + i, k, 0.0f),
         LoadTail(d, dgamma + i, k, 0.0f), LoadTail(d, dbeta + i, k, 0.0f), dg, db);
    StoreTail(d, dg, dgamma + i, k);
    StoreTail(d, db, dbeta + i, k);
  }
  if (!gx) return;
  const V a = hn::Set(d, hn::GetLane(hn::SumOfLanes(d, m1)) / float(D64));
  const V b = hn::Set(d, hn::GetLane(hn::SumOfLanes(d, m2)) / float(D64));
  auto f = [&](V xv, V gv, V gam, V gxv) {
    V xh = hn::Mul(hn::Sub(xv, vm), vr);
    return hn::MulAdd(vr, hn::Sub(hn::Sub(hn::Mul(gv, gam), a), hn::Mul(xh, b)), gxv);
  };
  for (i = 0; i + L <= n; i += L)
    hn::StoreU(f(hn::LoadU(d, x + i), hn::LoadU(d, g + i), hn::LoadU(d, gamma + i), Base(d, gx + i, add)), d, gx + i);
  if (i < n) {
    size_t k = n - i;
    StoreTail(d, f(LoadTail(d, x + i, k, mu), LoadTail(d, g + i, k, 0.0f), LoadTail(d, gamma + i, k, 0.0f),
                   BaseTail(d, gx + i, k, add)),
              gx + i, k);
  }
}

void ExpArr(const float* x, float* y, int64_t n) { Map(x, y, size_t(n), Exp); }
// elu(x) + 1: x + 1 where x > 0, else e^x (NaN fails the test and goes through exp as NaN).
HWY_INLINE V Elu1(D d, V x) { return hn::IfThenElse(hn::Gt(x, hn::Zero(d)), hn::Add(x, hn::Set(d, 1.0f)), Exp(d, x)); }
void Elu1Arr(const float* x, float* y, int64_t n) { Map(x, y, size_t(n), Elu1); }

void ExpShiftAcc(float* y, const float* x, const float* shift, float* acc, int64_t n64) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(n64);
  size_t i = 0;
  for (; i + L <= n; i += L) {
    V e = Exp(d, hn::Sub(hn::LoadU(d, x + i), hn::LoadU(d, shift + i)));
    hn::StoreU(e, d, y + i);
    hn::StoreU(hn::Add(hn::LoadU(d, acc + i), e), d, acc + i);
  }
  if (i < n) {
    size_t k = n - i;
    V e = Exp(d, hn::Sub(LoadTail(d, x + i, k, 0.0f), LoadTail(d, shift + i, k, 0.0f)));
    StoreTail(d, e, y + i, k);
    StoreTail(d, hn::Add(LoadTail(d, acc + i, k, 0.0f), e), acc + i, k);
  }
}
void TanhArr(const float* x, float* y, int64_t n) { Map(x, y, size_t(n), Tanh); }
void GeluArr(const float* x, float* y, int64_t n) { Map(x, y, size_t(n), Gelu); }

void GeluGradArr(const float* x, const float* g, float* gx, int64_t n64, bool add) {
  const D d;
  const size_t L = hn::Lanes(d), n = size_t(n64);
  size_t i = 0;
  for (; i + L <= n; i += L)
    hn::StoreU(hn::MulAdd(hn::LoadU(d, g + i), GeluGrad(d, hn::LoadU(d, x + i)), Base(d, gx + i, add)), d, gx + i);
  if (i < n) {
    size_t k = n - i;
    StoreTail(d, hn::MulAdd(LoadTail(d, g + i, k, 0.0f), GeluGrad(d, LoadTail(d, x + i, k, 0.0f)), BaseTail(d, gx + i, k, add)),
              gx + i, k);
  }
}

// Dropout's keep test, hash64(key ^ (first + j) * golden) >= thresh (rng.h), for a lane of
// element indices, with y = base + (kept ? x scale : 0).  The three 64-bit products are
// vpmullq on AVX-512; elsewhere each is built from three 32 x 32 -> 64 products.
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
void DropoutArr(const float* x, float* y, int64_t n, uint64_t key, uint64_t first, uint64_t thresh, float scale,
                bool add) {
  for (int64_t j = 0; j < n; ++j) {
    float v = hash64(key ^ (first + uint64_t(j)) * 0x9e3779b97f4a7c15ULL) >= thresh ? x[j] * scale : 0.0f;
    y[j] = add ? y[j] + v : v;
  }
}
#else
using DU = hn::ScalableTag<uint64_t>;
using VU = hn::Vec<DU>;
HWY_INLINE VU MulC(DU du, VU v, uint64_t c) {
#if HWY_ARCH_X86 && (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL)
  return hn::Mul(v, hn::Set(du, c));
#else
  const hn::Repartition<uint32_t, DU> d32;
  const auto lo = hn::BitCast(d32, hn::Set(du, c & 0xffffffffULL)), hi = hn::BitCast(d32, hn::Set(du, c >> 32));
  const auto v32 = hn::BitCast(d32, v), vh = hn::BitCast(d32, hn::ShiftRight<32>(v));
  return hn::Add(hn::MulEven(v32, lo), hn::ShiftLeft<32>(hn::Add(hn::MulEven(v32, hi), hn::MulEven(vh, lo))));
#endif
}
void DropoutArr(const float* x, float* y, int64_t n64, uint64_t key, uint64_t first, uint64_t thresh, float scale,
                bool add) {
  const DU du;
  const hn::RebindToSigned<DU> di;
  const size_t L = hn::Lanes(du), n = size_t(n64);
  const VU vkey = hn::Set(du, key), sign = hn::Set(du, 1ULL << 63);
  const auto vthresh = hn::BitCast(di, hn::Xor(hn::Set(du, thresh), sign));
  alignas(64) uint64_t keep[kBuf];
  for (size_t i0 = 0; i0 < n; i0 += kBuf) {
    const size_t m = std::min(kBuf, n - i0);
    for (size_t j = 0; j < m; j += L) {  // (the last vector may run past m: its lanes go unused)
      VU h = hn::Xor(vkey, MulC(du, hn::Iota(du, first + i0 + j), 0x9e3779b97f4a7c15ULL));
      h = hn::Add(h, hn::Set(du, 0x9e3779b97f4a7c15ULL));
      h = MulC(du, hn::Xor(h, hn::ShiftRight<30>(h)), 0xbf58476d1ce4e5b9ULL);
      h = MulC(du, hn::Xor(h, hn::ShiftRight<27>(h)), 0x94d049bb133111ebULL);
      h = hn::Xor(h, hn::ShiftRight<31>(h));
      // unsigned h >= thresh, as a signed comparison with the sign bits flipped
      const auto lt = hn::Lt(hn::BitCast(di, hn::Xor(h, sign)), vthresh);
      hn::Store(hn::BitCast(du, hn::VecFromMask(di, hn::Not(lt))), du, keep + j);
    }
    const float* xi = x + i0;
    float* yi = y + i0;
    for (size_t j = 0; j < m; ++j) {
      float v = keep[j] ? xi[j] * scale : 0.0f;
      yi[j] = add ? yi[j] + v : v;
    }
  }
}
#endif

int64_t Target() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace vec
}  // namespace az
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace az {
namespace vec {

HWY_EXPORT(Max);
HWY_EXPORT(CopyMax);
HWY_EXPORT(MaskMax);
HWY_EXPORT(KeepMax);
HWY_EXPORT(ExpSum);
HWY_EXPORT(ExpKeepSum);
HWY_EXPORT(Scale);
HWY_EXPORT(Dot);
HWY_EXPORT(SoftmaxGrad);
HWY_EXPORT(MulShift);
HWY_EXPORT(LayerNormRow);
HWY_EXPORT(LayerNormGradRow);
HWY_EXPORT(ExpArr);
HWY_EXPORT(TanhArr);
HWY_EXPORT(Elu1Arr);
HWY_EXPORT(ExpShiftAcc);
HWY_EXPORT(GeluArr);
HWY_EXPORT(GeluGradArr);
HWY_EXPORT(DropoutArr);
HWY_EXPORT(Target);

namespace {
// ATTNZOO_SIMD caps the target once, before the first kernel runs.
struct EnvCap {
  EnvCap() {
    const char* e = std::getenv("ATTNZOO_SIMD");
    if (!e || !*e) return;
    std::string want(e);
    for (char& c : want) c = char(std::toupper((unsigned char)c));
    if (want == "AVX512") want = "AVX3";  // Highway's name for it
    for (int64_t t : targets())
      if (target_name(t) == want) {
        restrict_to(t);
        return;
      }
    std::string have;
    for (int64_t t : targets()) have += (have.empty() ? "" : ", ") + target_name(t);
    std::fprintf(stderr, "ATTNZOO_SIMD=%s: not a target of this build and CPU (have %s); using the best\n", e,
                 have.c_str());
  }
} env_cap;
}  // namespace

// The CPU's own set, read before any cap (the first call comes through here).
static const std::vector<int64_t>& cpu_targets() {
  static const std::vector<int64_t> all = hwy::SupportedAndGeneratedTargets();
  return all;
}
std::vector<int64_t> targets() { return cpu_targets(); }
std::string target_name(int64_t t) { return hwy::TargetName(t); }
void restrict_to(int64_t t) {
  int64_t all = 0;
  for (int64_t x : cpu_targets()) all |= x;
  // Highway numbers better targets with lower bits: keep t and everything above it.
  hwy::SetSupportedTargetsForTest(t ? all & ~(t - 1) : 0);
}
std::string current_target() { return target_name(HWY_DYNAMIC_DISPATCH(Target)()); }

float max(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(Max)(x, n); }
float copy_max(const float* x, float* z, int64_t n) { return HWY_DYNAMIC_DISPATCH(CopyMax)(x, z, n); }
float mask_max(const float* x, const float* m, bool is_bool, float* z, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(MaskMax)(x, m, is_bool, z, n);
}
float keep_max(const float* x, const float* keep, int64_t n) { return HWY_DYNAMIC_DISPATCH(KeepMax)(x, keep, n); }
float exp_sum(float* y, const float* x, float shift, int64_t n) { return HWY_DYNAMIC_DISPATCH(ExpSum)(y, x, shift, n); }
float exp_keep_sum(float* y, const float* x, const float* keep, float shift, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ExpKeepSum)(y, x, keep, shift, n);
}
void scale(float* y, float a, int64_t n) { HWY_DYNAMIC_DISPATCH(Scale)(y, a, n); }
float dot(const float* a, const float* b, int64_t n) { return HWY_DYNAMIC_DISPATCH(Dot)(a, b, n); }
void softmax_grad(float* gx, const float* y, const float* g, float dt, int64_t n, bool add) {
  HWY_DYNAMIC_DISPATCH(SoftmaxGrad)(gx, y, g, dt, n, add);
}
void mul_shift(float* ds, const float* p, float delta, int64_t n) { HWY_DYNAMIC_DISPATCH(MulShift)(ds, p, delta, n); }
void layer_norm_row(const float* x, const float* gamma, const float* beta, float eps, float* y, int64_t D, float* mu,
                    float* rstd) {
  HWY_DYNAMIC_DISPATCH(LayerNormRow)(x, gamma, beta, eps, y, D, mu, rstd);
}
void layer_norm_grad_row(const float* x, const float* g, const float* gamma, float mu, float rstd, float* gx,
                         float* dgamma, float* dbeta, int64_t D, bool add) {
  HWY_DYNAMIC_DISPATCH(LayerNormGradRow)(x, g, gamma, mu, rstd, gx, dgamma, dbeta, D, add);
}
void exp(const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ExpArr)(x, y, n); }
void tanh(const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(TanhArr)(x, y, n); }
void elu1(const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(Elu1Arr)(x, y, n); }
void exp_shift_acc(float* y, const float* x, const float* shift, float* acc, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ExpShiftAcc)(y, x, shift, acc, n);
}
void gelu(const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(GeluArr)(x, y, n); }
void gelu_grad(const float* x, const float* g, float* gx, int64_t n, bool add) {
  HWY_DYNAMIC_DISPATCH(GeluGradArr)(x, g, gx, n, add);
}
void dropout(const float* x, float* y, int64_t n, uint64_t key, uint64_t first, uint64_t thresh, float scale, bool add) {
  HWY_DYNAMIC_DISPATCH(DropoutArr)(x, y, n, key, first, thresh, scale, add);
}

// ---- scalar references ---------------------------------------------------------------------
namespace ref {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
float max(const float* x, int64_t n) {
  float m = kNegInf;
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}
float copy_max(const float* x, float* z, int64_t n) {
  for (int64_t i = 0; i < n; ++i) z[i] = x[i];
  return max(z, n);
}
float mask_max(const float* x, const float* m, bool is_bool, float* z, int64_t n) {
  for (int64_t i = 0; i < n; ++i) z[i] = is_bool ? (m[i] != 0 ? kNegInf : x[i]) : x[i] + m[i];
  return max(z, n);
}
float keep_max(const float* x, const float* keep, int64_t n) {
  float m = kNegInf;
  for (int64_t i = 0; i < n; ++i)
    if (keep[i] != 0 && x[i] > m) m = x[i];
  return m;
}
float exp_sum(float* y, const float* x, float shift, int64_t n) {
  float s = 0;
  for (int64_t i = 0; i < n; ++i) {
    float e = fast_exp(x[i] - shift);
    if (y) y[i] = e;
    s += e;
  }
  return s;
}
float exp_keep_sum(float* y, const float* x, const float* keep, float shift, int64_t n) {
  float s = 0;
  for (int64_t i = 0; i < n; ++i) s += (y[i] = keep[i] * fast_exp(x[i] - shift));
  return s;
}
void scale(float* y, float a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] *= a;
}
float dot(const float* a, const float* b, int64_t n) {
  float s = 0;
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}
void softmax_grad(float* gx, const float* y, const float* g, float dt, int64_t n, bool add) {
  for (int64_t i = 0; i < n; ++i) gx[i] = (add ? gx[i] : 0.0f) + y[i] * (g[i] - dt);
}
void mul_shift(float* ds, const float* p, float delta, int64_t n) {
  for (int64_t i = 0; i < n; ++i) ds[i] = p[i] * (ds[i] - delta);
}
void layer_norm_row(const float* x, const float* gamma, const float* beta, float eps, float* y, int64_t D, float* mu,
                    float* rstd) {
  float m = 0, v = 0;
  for (int64_t j = 0; j < D; ++j) m += x[j];
  m /= float(D);
  for (int64_t j = 0; j < D; ++j) v += (x[j] - m) * (x[j] - m);
  float r = 1.0f / std::sqrt(v / float(D) + eps);
  for (int64_t j = 0; j < D; ++j) y[j] = (x[j] - m) * r * gamma[j] + beta[j];
  *mu = m;
  *rstd = r;
}
void layer_norm_grad_row(const float* x, const float* g, const float* gamma, float mu, float rstd, float* gx,
                         float* dgamma, float* dbeta, int64_t D, bool add) {
  float m1 = 0, m2 = 0;
  for (int64_t j = 0; j < D; ++j) {
    float xh = (x[j] - mu) * rstd, dxh = g[j] * gamma[j];
    m1 += dxh;
    m2 += dxh * xh;
    dgamma[j] += g[j] * xh;
    dbeta[j] += g[j];
  }
  if (!gx) return;
  m1 /= float(D);
  m2 /= float(D);
  for (int64_t j = 0; j < D; ++j) gx[j] = (add ? gx[j] : 0.0f) + rstd * (g[j] * gamma[j] - m1 - (x[j] - mu) * rstd * m2);
}
void exp(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = fast_exp(x[i]);
}
void tanh(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = fast_tanh(x[i]);
}
void elu1(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] + 1.0f : fast_exp(x[i]);
}
void exp_shift_acc(float* y, const float* x, const float* shift, float* acc, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] += (y[i] = fast_exp(x[i] - shift[i]));
}
void gelu(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = fast_gelu(x[i]);
}
void gelu_grad(const float* x, const float* g, float* gx, int64_t n, bool add) {
  for (int64_t i = 0; i < n; ++i) gx[i] = (add ? gx[i] : 0.0f) + g[i] * fast_gelu_grad(x[i]);
}
}  // namespace ref

}  // namespace vec
}  // namespace az
#endif  // HWY_ONCE
