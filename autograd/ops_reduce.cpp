// Reductions and the fused row kernels: softmax, log-softmax, cross-entropy,
// layer norm.  Fused kernels keep one pass per row and a hand-written
// backward (derivations in the comments), which is both faster and more
// stable than composing exp, sum and div.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <omp.h>

#include "autograd/internal.h"
#include "autograd/ops.h"

namespace az {

static Shape reduced_shape(const Shape& s, int axis, bool keepdim) {
  Shape r = s;
  if (keepdim) r[axis] = 1;
  else r.erase(r.begin() + axis);
  return r;
}

// ---- sum, mean, max ------------------------------------------------------------------
static Tensor sum_scaled(const char* name, const Tensor& x, int axis, bool keepdim, float scale) {
  OpScope prof(name);
  axis = norm_axis(name, axis, x.dim());
  AxisView v = axis_view(x.shape(), axis);
  Tensor y = Tensor::zeros(reduced_shape(x.shape(), axis, keepdim));
  const float* px = x.data();
  float* py = y.data();
#pragma omp parallel for if (x.numel() > kParallelMin)
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t k = 0; k < v.n; ++k) {
      const float* src = px + (o * v.n + k) * v.inner;
      float* dst = py + o * v.inner;
      for (int64_t i = 0; i < v.inner; ++i) dst[i] += src[i] * scale;
    }
  if (needs_grad({&x}))
    attach(y, name, {x}, [x, v, scale](const Tensor& y) {
      const float* g = y.grad_data();
      float* gx = x.grad_data();
#pragma omp parallel for if (x.numel() > kParallelMin)
      for (int64_t o = 0; o < v.outer; ++o)
        for (int64_t k = 0; k < v.n; ++k) {
          float* dst = gx + (o * v.n + k) * v.inner;
          for (int64_t i = 0; i < v.inner; ++i) dst[i] += g[o * v.inner + i] * scale;
        }
    });
  return y;
}

Tensor sum(const Tensor& x, int axis, bool keepdim) { return sum_scaled("sum", x, axis, keepdim, 1.0f); }
Tensor mean(const Tensor& x, int axis, bool keepdim) {
  int a = norm_axis("mean", axis, x.dim());
  return sum_scaled("mean", x, a, keepdim, 1.0f / float(std::max<int64_t>(1, x.shape()[a])));
}
Tensor sum(const Tensor& x) { return sum_scaled("sum", reshape(x, {x.numel()}), 0, false, 1.0f); }
Tensor mean(const Tensor& x) {
  return sum_scaled("mean", reshape(x, {x.numel()}), 0, false, 1.0f / float(std::max<int64_t>(1, x.numel())));
}

Tensor max(const Tensor& x, int axis, bool keepdim) {
  OpScope prof("max");
  axis = norm_axis("max", axis, x.dim());
  AxisView v = axis_view(x.shape(), axis);
  if (v.n == 0) fail("max: empty axis " + std::to_string(axis) + " in shape " + shape_str(x.shape()));
  Tensor y = Tensor::empty(reduced_shape(x.shape(), axis, keepdim));
  auto arg = std::make_shared<std::vector<int32_t>>(size_t(v.outer * v.inner));
  const float* px = x.data();
  float* py = y.data();
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      int32_t best = 0;
      for (int64_t k = 1; k < v.n; ++k)
        if (px[(o * v.n + k) * v.inner + i] > px[(o * v.n + best) * v.inner + i]) best = int32_t(k);
      (*arg)[o * v.inner + i] = best;
      py[o * v.inner + i] = px[(o * v.n + best) * v.inner + i];
    }
  if (needs_grad({&x}))
    attach(y, "max", {x}, [x, v, arg](const Tensor& y) {
      const float* g = y.grad_data();
      float* gx = x.grad_data();
      for (int64_t o = 0; o < v.outer; ++o)
        for (int64_t i = 0; i < v.inner; ++i)
          gx[(o * v.n + (*arg)[o * v.inner + i]) * v.inner + i] += g[o * v.inner + i];
    });
  return y;
}
Tensor max(const Tensor& x) { return max(reshape(x, {x.numel()}), 0, false); }

// y_k = sum_{j<=k} x_j;  dx_j = sum_{k>=j} g_k (a reversed cumulative sum).
Tensor cumsum(const Tensor& x, int axis) {
  OpScope prof("cumsum");
  axis = norm_axis("cumsum", axis, x.dim());
  AxisView v = axis_view(x.shape(), axis);
  Tensor y = Tensor::empty(x.shape());
  const float* px = x.data();
  float* py = y.data();
#pragma omp parallel for if (x.numel() > kParallelMin)
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      float acc = 0;
      for (int64_t k = 0; k < v.n; ++k) {
        int64_t at = (o * v.n + k) * v.inner + i;
        acc += px[at];
        py[at] = acc;
      }
    }
  if (needs_grad({&x}))
    attach(y, "cumsum", {x}, [x, v](const Tensor& y) {
      const float* g = y.grad_data();
      float* gx = x.grad_data();
#pragma omp parallel for if (x.numel() > kParallelMin)
      for (int64_t o = 0; o < v.outer; ++o)
        for (int64_t i = 0; i < v.inner; ++i) {
          float acc = 0;
          for (int64_t k = v.n; k-- > 0;) {
            int64_t at = (o * v.n + k) * v.inner + i;
            acc += g[at];
            gx[at] += acc;
          }
        }
    });
  return y;
}

// ---- softmax family ----------------------------------------------------------------------
// For row r of x (viewed [rows, N]) the offset of its mask row, with the mask
// broadcast over x's leading dimensions; mask's last dim is N or 1.
struct MaskRows {
  const float* p = nullptr;
  Shape lead;                      // x's leading dims
  std::vector<int64_t> st;         // the mask's strides over them
  int64_t col_stride = 0;          // 1, or 0 when the mask's last dim is 1
  MaskRows(const Tensor& x, const Tensor& mask, const char* op) {
    if (!mask.defined()) return;
    Shape xs = x.shape(), ms = mask.shape();
    if (ms.size() > xs.size() || broadcast_shape(op, xs, ms) != xs)
      fail(std::string(op) + ": mask " + shape_str(ms) + " does not broadcast to " + shape_str(xs));
    p = mask.data();
    Shape full_ms(xs.size() - ms.size(), 1);
    full_ms.insert(full_ms.end(), ms.begin(), ms.end());
    auto all = broadcast_strides(full_ms, xs);
    col_stride = all.back();
    lead.assign(xs.begin(), xs.end() - 1);
    st.assign(all.begin(), all.end() - 1);
  }
  const float* row(int64_t r) const {
    int64_t off = 0;
    for (size_t k = lead.size(); k-- > 0;) {
      off += (r % lead[k]) * st[k];
      r /= lead[k];
    }
    return p + off;
  }
};

// Writes z = logits (+ additive mask) into `z`, with -inf at excluded entries; returns the row max.
static inline float masked_row(const float* x, const float* m, int64_t cs, bool is_bool, int64_t n, float* z) {
  const float ninf = -std::numeric_limits<float>::infinity();
  float mx = ninf;
  if (!m) return vec::copy_max(x, z, n);
  if (cs == 1) {  // a key-padding row or an additive mask row: the common cases
    return vec::mask_max(x, m, is_bool, z, n);
  } else {  // one mask value for the whole row
    if (is_bool && m[0] != 0) {
      std::fill(z, z + n, ninf);
      return ninf;
    }
    float v0 = is_bool ? 0.0f : m[0];
#pragma omp simd reduction(max : mx)
    for (int64_t j = 0; j < n; ++j) mx = std::max(mx, z[j] = x[j] + v0);
  }
  return mx;
}

// softmax: y = exp(z - max) / sum;  dx = y * (g - sum_j g_j y_j).
Tensor softmax(const Tensor& x, const Tensor& mask, bool is_bool) {
  OpScope prof("softmax");
  if (x.dim() == 0) fail("softmax: needs at least one axis, got a 0-d tensor");
  MaskRows mr(x, mask, "softmax");
  int64_t n = x.shape().back(), rows = n ? x.numel() / n : 0;
  Tensor y = Tensor::empty(x.shape());
  const float* px = x.data();
  float* py = y.data();
#pragma omp parallel for schedule(guided) if (x.numel() > kParallelMin)
  for (int64_t r = 0; r < rows; ++r) {
    float* yr = py + r * n;
    const float* xr = px + r * n;
    // unmasked: the max straight from x, and exp writes y (one pass less than copying first)
    float mx = mr.p ? masked_row(xr, mr.row(r), mr.col_stride, is_bool, n, yr) : vec::max(xr, n);
    if (mx == -std::numeric_limits<float>::infinity()) {  // nothing to attend to
      std::fill(yr, yr + n, 0.0f);
      continue;
    }
    vec::scale(yr, 1.0f / vec::exp_sum(yr, mr.p ? yr : xr, mx, n), n);
  }
  if (needs_grad({&x}))
    attach(y, "softmax", {x}, [x, n, rows](const Tensor& y) {
      const float *py = y.data(), *g = y.grad_data();
      bool fresh;
      float* gx = grad_for_write(x, fresh);
#pragma omp parallel for schedule(guided) if (x.numel() > kParallelMin)
      for (int64_t r = 0; r < rows; ++r) {
        const float *yr = py + r * n, *gr = g + r * n;
        vec::softmax_grad(gx + r * n, yr, gr, vec::dot(gr, yr, n), n, !fresh);
      }
    });
  return y;
}

// log_softmax: y = z - max - log(sum exp(z - max));  dx = g - exp(y) * sum(g)
// (excluded entries are -inf and get no gradient).
Tensor log_softmax(const Tensor& x, const Tensor& mask, bool is_bool) {
  OpScope prof("log_softmax");
  if (x.dim() == 0) fail("log_softmax: needs at least one axis, got a 0-d tensor");
  MaskRows mr(x, mask, "log_softmax");
  int64_t n = x.shape().back(), rows = n ? x.numel() / n : 0;
  Tensor y = Tensor::empty(x.shape());
  const float* px = x.data();
  float* py = y.data();
#pragma omp parallel for if (x.numel() > kParallelMin)
  for (int64_t r = 0; r < rows; ++r) {
    float* yr = py + r * n;
    float mx = masked_row(px + r * n, mr.p ? mr.row(r) : nullptr, mr.col_stride, is_bool, n, yr);
    if (mx == -std::numeric_limits<float>::infinity()) continue;  // all -inf already
    float lse = mx + std::log(vec::exp_sum(nullptr, yr, mx, n));
    for (int64_t j = 0; j < n; ++j) yr[j] -= lse;
  }
  if (needs_grad({&x}))
    attach(y, "log_softmax", {x}, [x, n, rows](const Tensor& y) {
      const float *py = y.data(), *g = y.grad_data();
      float* gx = x.grad_data();
#pragma omp parallel for if (x.numel() > kParallelMin)
      for (int64_t r = 0; r < rows; ++r) {
        const float *yr = py + r * n, *gr = g + r * n;
        float s = 0;
        for (int64_t j = 0; j < n; ++j)
          if (std::isfinite(yr[j])) s += gr[j];
        float* gxr = gx + r * n;
        for (int64_t j = 0; j < n; ++j)
          if (std::isfinite(yr[j])) gxr[j] += gr[j] - fast_exp(yr[j]) * s;
      }
    });
  return y;
}

// loss = mean_i [ lse(x_i) - x_i[y_i] ];  dx_i = (softmax(x_i) - onehot(y_i)) / count.
Tensor cross_entropy(const Tensor& logits, const IntTensor& labels, int ignore_index) {
  OpScope prof("cross_entropy");
  if (logits.dim() != 2) fail("cross_entropy: logits must be [M,C], got " + shape_str(logits.shape()));
  int64_t M = logits.size(0), C = logits.size(1);
  if (labels.numel() != M)
    fail("cross_entropy: " + std::to_string(labels.numel()) + " labels for logits " + shape_str(logits.shape()));
  for (int64_t i = 0; i < M; ++i) {
    int32_t t = labels.data[i];
    if (t != ignore_index && (t < 0 || t >= C))
      fail("cross_entropy: label " + std::to_string(t) + " at index " + std::to_string(i) + " out of range [0," +
           std::to_string(C) + ")");
  }
  auto probs = std::make_shared<std::vector<float>>(size_t(M * C));
  const float* px = logits.data();
  double loss = 0;
  int64_t count = 0;
  for (int64_t i = 0; i < M; ++i) {
    const float* row = px + i * C;
    float mx = vec::max(row, C), s = vec::exp_sum(probs->data() + i * C, row, mx, C);
    vec::scale(probs->data() + i * C, 1.0f / s, C);
    if (labels.data[i] == ignore_index) continue;
    loss += double(mx) + std::log(double(s)) - row[labels.data[i]];
    ++count;
  }
  Tensor y = Tensor::scalar(count ? float(loss / count) : 0.0f);
  if (needs_grad({&logits}))
    attach(y, "cross_entropy", {logits}, [logits, labels, probs, count, ignore_index, C](const Tensor& y) {
      if (!count) return;
      float g = y.grad_data()[0] / float(count);
      float* gx = logits.grad_data();
      for (int64_t i = 0; i < logits.size(0); ++i) {
        int32_t t = labels.data[i];
        if (t == ignore_index) continue;
        for (int64_t j = 0; j < C; ++j) gx[i * C + j] += g * ((*probs)[i * C + j] - (j == t ? 1.0f : 0.0f));
      }
    });
  return y;
}

// ---- layer norm ----------------------------------------------------------------------------
// xh = (x - mu) * rstd;  y = xh * gamma + beta.
// dxh = g * gamma;  dx = rstd * (dxh - mean(dxh) - xh * mean(dxh * xh));
// dgamma = sum over rows of g * xh;  dbeta = sum over rows of g.
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps) {
  OpScope prof("layer_norm");
  int64_t D = x.dim() ? x.shape().back() : 0;
  if (gamma.shape() != Shape{D} || beta.shape() != Shape{D})
    fail("layer_norm: gamma " + shape_str(gamma.shape()) + " and beta " + shape_str(beta.shape()) +
         " must be [" + std::to_string(D) + "] for input " + shape_str(x.shape()));
  int64_t rows = D ? x.numel() / D : 0;
  Tensor y = Tensor::empty(x.shape());
  auto stats = std::make_shared<std::vector<float>>(size_t(2 * rows));  // mean, rstd
  const float *px = x.data(), *pg = gamma.data(), *pb = beta.data();
  float* py = y.data();
#pragma omp parallel for schedule(guided) if (x.numel() > kParallelMin)
  for (int64_t r = 0; r < rows; ++r) {
    float* st = stats->data() + 2 * r;
    vec::layer_norm_row(px + r * D, pg, pb, eps, py + r * D, D, st, st + 1);
  }
  if (needs_grad({&x, &gamma, &beta}))
    attach(y, "layer_norm", {x, gamma, beta}, [x, gamma, beta, stats, rows, D](const Tensor& y) {
      const float *px = x.data(), *pg = gamma.data(), *g = y.grad_data();
      bool fresh = false;
      float* gx = x.requires_grad() ? grad_for_write(x, fresh) : nullptr;
      int nt = omp_get_max_threads();
      std::vector<float> part(size_t(nt) * 2 * D, 0.0f);  // per-thread dgamma, dbeta
#pragma omp parallel if (x.numel() > kParallelMin)
      {
        float* pgam = part.data() + size_t(omp_get_thread_num()) * 2 * D;
        float* pbet = pgam + D;
        // static: each thread always sums the same rows, so the parts (added
        // in thread order below) are the same bit for bit run after run
#pragma omp for schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
          vec::layer_norm_grad_row(px + r * D, g + r * D, pg, (*stats)[2 * r], (*stats)[2 * r + 1],
                                   gx ? gx + r * D : nullptr, pgam, pbet, D, !fresh);
        }
      }
      float* gg = gamma.requires_grad() ? gamma.grad_data() : nullptr;
      float* gb = beta.requires_grad() ? beta.grad_data() : nullptr;
      for (int t = 0; t < nt; ++t)
        for (int64_t j = 0; j < D; ++j) {
          if (gg) gg[j] += part[size_t(t) * 2 * D + j];
          if (gb) gb[j] += part[size_t(t) * 2 * D + D + j];
        }
    });
  return y;
}

}  // namespace az
