// Elementwise ops: binary with numpy broadcasting, unary maps, masks, dropout.
//
// Reading it as the gradient table: start at "unary maps" below, where
// unary() takes an op's forward f(x) and its derivative df(x, y) side by side
// and each op is one row (sqrt: 0.5 / y; sin: cos x).  The 120 lines before
// it are the machinery the binary ops (add, mul, ...) need: a broadcasting
// plan, and backward's sums over repeated dimensions split among threads.
//
// Broadcasting: shapes are aligned at the right; a dimension of 1 (or a
// missing one) repeats.  Backward sums the gradient over repeated dimensions.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "autograd/internal.h"
#include "autograd/ops.h"

namespace az {

IntTensor::IntTensor(Shape s, std::vector<int32_t> d) : shape(std::move(s)), data(std::move(d)) {
  if ((int64_t)data.size() != numel_of(shape))
    fail("IntTensor: " + std::to_string(data.size()) + " values for shape " + shape_str(shape));
}

// ---- broadcasting plan ------------------------------------------------------
Shape broadcast_shape(const char* op, const Shape& a, const Shape& b) {
  size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(std::string(op) + ": shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Strides of `in` read as if it had shape `out` (0 on repeated dimensions).
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  size_t r = out.size(), off = r - in.size();
  std::vector<int64_t> st(r, 0);
  int64_t s = 1;
  for (size_t i = r; i-- > off;) {
    st[i] = in[i - off] == 1 ? 0 : s;
    s *= in[i - off];
  }
  return st;
}

// Offset of element `i` (flat, in `out`) within an input with strides `st`.
static inline int64_t bcast_offset(int64_t i, const Shape& out, const std::vector<int64_t>& st) {
  int64_t off = 0;
  for (size_t k = out.size(); k-- > 0;) {
    int64_t d = out[k];
    off += (i % d) * st[k];
    i /= d;
  }
  return off;
}

// y = fwd(a, b) with broadcasting, rows of the output in parallel; along a
// row each operand is either contiguous or one repeated value, so each of the
// four cases is a plain loop that vectorises.
template <class Fwd>
static void bcast_forward(const Shape& out, const Shape& sa, const Shape& sb, const float* pa, const float* pb,
                          float* py, Fwd fwd) {
  int64_t n = numel_of(out);
  if (n == 0) return;
  auto ta = broadcast_strides(sa, out), tb = broadcast_strides(sb, out);
  int64_t inner = out.empty() ? 1 : out.back();
  int64_t rows = n / inner, as = out.empty() ? 0 : ta.back(), bs = out.empty() ? 0 : tb.back();
#pragma omp parallel for if (n > kParallelMin)
  for (int64_t r = 0; r < rows; ++r) {
    const float *ar = pa + bcast_offset(r * inner, out, ta), *br = pb + bcast_offset(r * inner, out, tb);
    float* yr = py + r * inner;
    if (as && bs) {
#pragma omp simd
      for (int64_t j = 0; j < inner; ++j) yr[j] = fwd(ar[j], br[j]);
    } else if (as) {
      float bv = *br;
#pragma omp simd
      for (int64_t j = 0; j < inner; ++j) yr[j] = fwd(ar[j], bv);
    } else if (bs) {
      float av = *ar;
#pragma omp simd
      for (int64_t j = 0; j < inner; ++j) yr[j] = fwd(av, br[j]);
    } else {
      std::fill(yr, yr + inner, fwd(*ar, *br));
    }
  }
}

// gx += the gradient reaching operand x of a broadcasting binary op, o being the
// other operand: gx[ix] += sum of g[i] * d(x[ix], o[io]) over the outputs i that
// read x[ix].  x may repeat (then its elements gather from many outputs), so the
// rows are split among the threads, each summing into its own copy of gx, and
// the copies are added in thread order (deterministic for a thread count).
// Each row's inner loop is contiguous or a plain sum, so it vectorises.
template <class D>
static void reduce_grad(const Shape& out, const Shape& sx, const Shape& so, const float* g, const float* px,
                        const float* po, float* gx, D d) {
  int64_t n = numel_of(out);
  if (n == 0) return;
  auto tx = broadcast_strides(sx, out), to = broadcast_strides(so, out);
  int64_t inner = out.empty() ? 1 : out.back(), rows = n / inner, nx = numel_of(sx);
  int64_t xs = out.empty() ? 0 : tx.back(), os = out.empty() ? 0 : to.back();
  // x not repeated: the rows write disjoint elements of gx, no copies needed;
  // repeated: private copies, only when they cost far less than the work
  bool direct = nx == n;
  int nt = n > kParallelMin && (direct || nx * 8 <= n) ? omp_get_max_threads() : 1;
  bool copies = nt > 1 && !direct;
  std::vector<float> part(copies ? size_t(nt) * size_t(nx) : 0, 0.0f);
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    float* acc = copies ? part.data() + size_t(omp_get_thread_num()) * size_t(nx) : gx;
#pragma omp for
    for (int64_t r = 0; r < rows; ++r) {
      int64_t ix = bcast_offset(r * inner, out, tx), io = bcast_offset(r * inner, out, to);
      const float* gr = g + r * inner;
      if (xs == 0) {  // x[ix] repeats along the row: one sum
        float s = 0;
        if (os == 0) {
#pragma omp simd reduction(+ : s)
          for (int64_t j = 0; j < inner; ++j) s += gr[j];
          s *= d(px[ix], po[io]);
        } else {
#pragma omp simd reduction(+ : s)
          for (int64_t j = 0; j < inner; ++j) s += gr[j] * d(px[ix], po[io + j]);
        }
        acc[ix] += s;
      } else if (os == 0) {
#pragma omp simd
        for (int64_t j = 0; j < inner; ++j) acc[ix + j] += gr[j] * d(px[ix + j], po[io]);
      } else {
#pragma omp simd
        for (int64_t j = 0; j < inner; ++j) acc[ix + j] += gr[j] * d(px[ix + j], po[io + j]);
      }
    }
  }
  for (int t = 0; t < (copies ? nt : 0); ++t) {
    const float* p = part.data() + size_t(t) * size_t(nx);
#pragma omp simd
    for (int64_t k = 0; k < nx; ++k) gx[k] += p[k];
  }
}

// dA and dB are d(out)/da and d(out)/db as functions of (a, b).
template <class Fwd, class DA, class DB>
static Tensor binary(const char* name, const Tensor& a, const Tensor& b, Fwd fwd, DA da, DB db) {
  OpScope prof(name);
  Shape out = a.shape() == b.shape() ? a.shape() : broadcast_shape(name, a.shape(), b.shape());
  Tensor y = Tensor::empty(out);
  const float *pa = a.data(), *pb = b.data();
  float* py = y.data();
  int64_t n = y.numel();
  if (a.shape() == b.shape()) {
#pragma omp parallel for simd if (n > kParallelMin)
    for (int64_t i = 0; i < n; ++i) py[i] = fwd(pa[i], pb[i]);
  } else {
    bcast_forward(out, a.shape(), b.shape(), pa, pb, py, fwd);
  }
  if (needs_grad({&a, &b}))
    attach(y, name, {a, b}, [a, b, da, db](const Tensor& y) {
      const float *pa = a.data(), *pb = b.data(), *g = y.grad_data();
      int64_t n = y.numel();
      bool same = a.shape() == b.shape();
      // Same shapes: each element of the gradient written once (no zeroing pass when it is new).
      auto direct = [&](const Tensor& t, auto d) {
        bool fresh;
        float* gt = grad_for_write(t, fresh);
        if (fresh) {
#pragma omp parallel for simd if (n > kParallelMin)
          for (int64_t i = 0; i < n; ++i) gt[i] = g[i] * d(pa[i], pb[i]);
        } else {
#pragma omp parallel for simd if (n > kParallelMin)
          for (int64_t i = 0; i < n; ++i) gt[i] += g[i] * d(pa[i], pb[i]);
        }
      };
      if (a.requires_grad()) {
        if (same) direct(a, da);
        else reduce_grad(y.shape(), a.shape(), b.shape(), g, pa, pb, a.grad_data(), [&](float x, float o) { return da(x, o); });
      }
      if (b.requires_grad()) {
        if (same) direct(b, db);
        else reduce_grad(y.shape(), b.shape(), a.shape(), g, pb, pa, b.grad_data(), [&](float x, float o) { return db(o, x); });
      }
    });
  return y;
}

Tensor add(const Tensor& a, const Tensor& b) {
  return binary(
      "add", a, b, [](float x, float y) { return x + y; }, [](float, float) { return 1.0f; },
      [](float, float) { return 1.0f; });
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return binary(
      "sub", a, b, [](float x, float y) { return x - y; }, [](float, float) { return 1.0f; },
      [](float, float) { return -1.0f; });
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return binary(
      "mul", a, b, [](float x, float y) { return x * y; }, [](float, float y) { return y; },
      [](float x, float) { return x; });
}
Tensor div(const Tensor& a, const Tensor& b) {
  return binary(
      "div", a, b, [](float x, float y) { return x / y; }, [](float, float y) { return 1.0f / y; },
      [](float x, float y) { return -x / (y * y); });
}

// f(i, n) over [0, total) in pieces for the dispatched vector kernels, in parallel when large
// (guided: on a shared machine a thread whose core is busy takes fewer pieces, not an equal share).
template <class F>
static void vec_map(int64_t total, F f) {
  constexpr int64_t kPiece = 1 << 14;
  int64_t pieces = (total + kPiece - 1) / kPiece;
#pragma omp parallel for schedule(guided) if (total > kParallelMin)
  for (int64_t p = 0; p < pieces; ++p) f(p * kPiece, std::min(kPiece, total - p * kPiece));
}

// ---- unary maps: y = f(x), dy/dx = df(x, y) -----------------------------------------
template <class F, class DF>
static Tensor unary(const char* name, const Tensor& x, F f, DF df) {
  OpScope prof(name);
  Tensor y = Tensor::empty(x.shape());
  const float* px = x.data();
  float* py = y.data();
  int64_t n = x.numel();
#pragma omp parallel for simd if (n > kParallelMin)
  for (int64_t i = 0; i < n; ++i) py[i] = f(px[i]);
  if (needs_grad({&x}))
    attach(y, name, {x}, [x, df](const Tensor& y) {
      const float *px = x.data(), *py = y.data(), *g = y.grad_data();
      float* gx = x.grad_data();
      int64_t n = x.numel();
#pragma omp parallel for simd if (n > kParallelMin)
      for (int64_t i = 0; i < n; ++i) gx[i] += g[i] * df(px[i], py[i]);
    });
  return y;
}

Tensor add_scalar(const Tensor& x, float s) {
  return unary("add_scalar", x, [s](float v) { return v + s; }, [](float, float) { return 1.0f; });
}
Tensor mul_scalar(const Tensor& x, float s) {
  return unary("mul_scalar", x, [s](float v) { return v * s; }, [s](float, float) { return s; });
}
Tensor neg(const Tensor& x) {
  return unary("neg", x, [](float v) { return -v; }, [](float, float) { return -1.0f; });
}
Tensor exp(const Tensor& x) {
  OpScope prof("exp");
  Tensor y = Tensor::empty(x.shape());
  vec_map(x.numel(), [&](int64_t i, int64_t n) { vec::exp(x.data() + i, y.data() + i, n); });
  if (needs_grad({&x}))
    attach(y, "exp", {x}, [x](const Tensor& y) {  // d exp(x) = exp(x) dx: the gradient is g * y
      float *gx = x.grad_data(), *g = y.grad_data();
      const float* yv = y.data();
      int64_t n = x.numel();
#pragma omp parallel for simd if (n > kParallelMin)
      for (int64_t i = 0; i < n; ++i) gx[i] += g[i] * yv[i];
    });
  return y;
}
Tensor log(const Tensor& x) {
  return unary("log", x, [](float v) { return std::log(v); }, [](float v, float) { return 1.0f / v; });
}
Tensor sqrt(const Tensor& x) {
  return unary("sqrt", x, [](float v) { return std::sqrt(v); }, [](float, float y) { return 0.5f / y; });
}
Tensor pow(const Tensor& x, float p) {
  return unary(
      "pow", x, [p](float v) { return std::pow(v, p); },
      [p](float v, float) { return p * std::pow(v, p - 1.0f); });
}
Tensor tanh(const Tensor& x) {
  OpScope prof("tanh");
  Tensor y = Tensor::empty(x.shape());
  vec_map(x.numel(), [&](int64_t i, int64_t n) { vec::tanh(x.data() + i, y.data() + i, n); });
  if (needs_grad({&x}))
    attach(y, "tanh", {x}, [x](const Tensor& y) {
      const float *py = y.data(), *g = y.grad_data();
      float* gx = x.grad_data();
      int64_t n = x.numel();
#pragma omp parallel for simd if (n > kParallelMin)
      for (int64_t i = 0; i < n; ++i) gx[i] += g[i] * (1.0f - py[i] * py[i]);
    });
  return y;
}
// y = post(x, exp(pre(x))), dy/dx = df(x, y): the exp through vecmath's dispatched kernel
// (GCC vectorises fast_exp itself only for AVX-512), the arithmetic around it
// auto-vectorised, piece by piece while the piece is in cache.
template <class Pre, class Post, class DF>
static Tensor unary_via_exp(const char* name, const Tensor& x, Pre pre, Post post, DF df) {
  OpScope prof(name);
  Tensor y = Tensor::empty(x.shape());
  const float* px = x.data();
  float* py = y.data();
  vec_map(x.numel(), [&](int64_t i, int64_t n) {
#pragma omp simd
    for (int64_t j = i; j < i + n; ++j) py[j] = pre(px[j]);
    vec::exp(py + i, py + i, n);
#pragma omp simd
    for (int64_t j = i; j < i + n; ++j) py[j] = post(px[j], py[j]);
  });
  if (needs_grad({&x}))
    attach(y, name, {x}, [x, df](const Tensor& y) {
      const float *px = x.data(), *py = y.data(), *g = y.grad_data();
      float* gx = x.grad_data();
      int64_t n = x.numel();
#pragma omp parallel for simd if (n > kParallelMin)
      for (int64_t i = 0; i < n; ++i) gx[i] += g[i] * df(px[i], py[i]);
    });
  return y;
}

Tensor sigmoid(const Tensor& x) {
  return unary_via_exp(
      "sigmoid", x, [](float v) { return -v; }, [](float, float e) { return 1.0f / (1.0f + e); },
      [](float, float y) { return y * (1.0f - y); });
}
Tensor relu(const Tensor& x) {
  return unary(
      "relu", x, [](float v) { return v > 0 ? v : 0.0f; }, [](float v, float) { return v > 0 ? 1.0f : 0.0f; });
}
Tensor elu(const Tensor& x, float alpha) {
  return unary_via_exp(
      "elu", x, [](float v) { return v; }, [alpha](float v, float e) { return v > 0 ? v : alpha * (e - 1.0f); },
      [alpha](float v, float y) { return v > 0 ? 1.0f : y + alpha; });
}
Tensor sin(const Tensor& x) {
  return unary("sin", x, [](float v) { return std::sin(v); }, [](float v, float) { return std::cos(v); });
}
Tensor cos(const Tensor& x) {
  return unary("cos", x, [](float v) { return std::cos(v); }, [](float v, float) { return -std::sin(v); });
}

// GELU, tanh form: y = x/2 (1 + tanh(u)), u = c (x + 0.044715 x^3), c = sqrt(2/pi);
// dy/dx = (1 + t)/2 + x/2 (1 - t^2) c (1 + 3 * 0.044715 x^2).  Both through
// vecmath's dispatched kernels (see fast_gelu there for the cancellation-free form).
Tensor gelu(const Tensor& x) {
  OpScope prof("gelu");
  Tensor y = Tensor::empty(x.shape());
  vec_map(x.numel(), [&](int64_t i, int64_t n) { vec::gelu(x.data() + i, y.data() + i, n); });
  if (needs_grad({&x}))
    attach(y, "gelu", {x}, [x](const Tensor& y) {
      bool fresh;
      float *gx = grad_for_write(x, fresh), *g = y.grad_data();
      vec_map(x.numel(), [&](int64_t i, int64_t n) { vec::gelu_grad(x.data() + i, g + i, gx + i, n, !fresh); });
    });
  return y;
}

// ---- masks ------------------------------------------------------------------------
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  OpScope prof("where");
  Shape ab = broadcast_shape("where", a.shape(), b.shape());
  Shape out = broadcast_shape("where", cond.shape(), ab);
  if (out != ab)
    fail("where: condition " + shape_str(cond.shape()) + " is larger than the values' shape " + shape_str(ab));
  Tensor y = Tensor::empty(out);
  auto tc = broadcast_strides(cond.shape(), out), ta = broadcast_strides(a.shape(), out),
       tb = broadcast_strides(b.shape(), out);
  const float *pc = cond.data(), *pa = a.data(), *pb = b.data();
  float* py = y.data();
  int64_t n = y.numel();
#pragma omp parallel for if (n > kParallelMin)
  for (int64_t i = 0; i < n; ++i)
    py[i] = pc[bcast_offset(i, out, tc)] != 0 ? pa[bcast_offset(i, out, ta)] : pb[bcast_offset(i, out, tb)];
  if (needs_grad({&a, &b}))
    attach(y, "where", {a, b}, [cond, a, b](const Tensor& y) {
      const Shape& out = y.shape();
      auto tc = broadcast_strides(cond.shape(), out), ta = broadcast_strides(a.shape(), out),
           tb = broadcast_strides(b.shape(), out);
      const float *pc = cond.data(), *g = y.grad_data();
      float* ga = a.requires_grad() ? a.grad_data() : nullptr;
      float* gb = b.requires_grad() ? b.grad_data() : nullptr;
      for (int64_t i = 0; i < y.numel(); ++i) {
        if (pc[bcast_offset(i, out, tc)] != 0) {
          if (ga) ga[bcast_offset(i, out, ta)] += g[i];
        } else if (gb) {
          gb[bcast_offset(i, out, tb)] += g[i];
        }
      }
    });
  return y;
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, float value) {
  Tensor fill = Tensor::scalar(value);
  return where(mask, fill, x);
}

Tensor dropout(const Tensor& x, float p, bool training, Rng& rng) {
  if (p < 0 || p >= 1) fail("dropout: p must be in [0, 1), got " + std::to_string(p));
  if (!training || p == 0) return x;
  OpScope prof("dropout");
  // The mask (DropoutMask, rng.h): under data parallelism element i of this process's
  // rows is element base + i of the whole batch.
  const DropoutMask m = DropoutMask::draw(p, rng, x.dim() > 0 ? x.size(0) : 0, x.numel());
  Tensor y = Tensor::empty(x.shape());
  // y[i] = keep(i) ? x[i] / (1 - p) : 0, the hashes vectorised (vec::dropout)
  vec_map(x.numel(), [&](int64_t i, int64_t n) {
    vec::dropout(x.data() + i, y.data() + i, n, m.key, m.base + uint64_t(i), m.thresh, m.scale);
  });
  if (needs_grad({&x}))
    attach(y, "dropout", {x}, [x, m](const Tensor& y) {  // gx[i] += keep(i) ? g[i] / (1 - p) : 0
      const float* g = y.grad_data();
      float* gx = x.grad_data();
      vec_map(x.numel(), [&](int64_t i, int64_t n) {
        vec::dropout(g + i, gx + i, n, m.key, m.base + uint64_t(i), m.thresh, m.scale, true);
      });
    });
  return y;
}

}  // namespace az
