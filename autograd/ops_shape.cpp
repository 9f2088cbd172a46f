// Shape and indexing ops: reshape (a view), permute, narrow, concat, gather,
// scatter-add, row gather/scatter for sparse attention, embedding lookup.
// Every index is checked against its bound before any memory is touched.
#include <omp.h>

#include <cstring>

#include "autograd/internal.h"
#include "autograd/ops.h"

namespace az {

Tensor reshape(const Tensor& x, Shape s) {
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == -1) {
      if (infer >= 0) fail("reshape: more than one -1 in " + shape_str(s));
      infer = int64_t(i);
    } else if (s[i] < 0) {
      fail("reshape: negative dimension in " + shape_str(s));
    } else {
      known *= s[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || x.numel() % known) fail("reshape: cannot infer -1 in " + shape_str(s) + " from " + shape_str(x.shape()));
    s[infer] = x.numel() / known;
  }
  if (numel_of(s) != x.numel())
    fail("reshape: " + shape_str(x.shape()) + " has " + std::to_string(x.numel()) + " elements, " + shape_str(s) +
         " has " + std::to_string(numel_of(s)));
  Tensor y = x.detach();
  y.impl()->shape = s;
  if (needs_grad({&x}))
    attach(y, "reshape", {x}, [x](const Tensor& y) {
      if (!x.has_grad()) {  // same element order: hand the buffer over instead of copying
        grad_slot(x.impl()) = grad_slot(y.impl());
        return;
      }
      const float* g = y.grad_data();
      float* gx = x.grad_data();
      int64_t n = x.numel();
#pragma omp parallel for simd if (n > kParallelMin)
      for (int64_t i = 0; i < n; ++i) gx[i] += g[i];
    });
  return y;
}

// Copies src (shape `in`) into dst permuted by dims; with accumulate, adds.
// inverse: src is laid out permuted and dst as `in` (the backward's scatter).
static void permute_copy(const float* src, const Shape& in, const std::vector<int>& dims, float* dst, bool accumulate,
                         bool inverse) {
  size_t r = in.size();
  Shape out(r);
  for (size_t i = 0; i < r; ++i) out[i] = in[dims[i]];
  std::vector<int64_t> in_st(r, 1);
  for (size_t i = r - 1; i-- > 0;) in_st[i] = in_st[i + 1] * in[i + 1];
  std::vector<int64_t> st(r);  // stride in src of each output dim
  for (size_t i = 0; i < r; ++i) st[i] = in_st[dims[i]];
  int64_t n = numel_of(out), inner = r ? out[r - 1] : 1, rows = inner ? n / inner : 0, ist = r ? st[r - 1] : 0;
#pragma omp parallel for if (n > kParallelMin)
  for (int64_t row = 0; row < rows; ++row) {
    int64_t off = 0, rem = row;
    for (size_t k = r - 1; k-- > 0;) {
      off += (rem % out[k]) * st[k];
      rem /= out[k];
    }
    float* d = dst + row * inner;
    if (!inverse) {
      if (ist == 1 && !accumulate) std::memcpy(d, src + off, sizeof(float) * size_t(inner));  // last dim kept: a row copy
      else if (accumulate)
        for (int64_t j = 0; j < inner; ++j) d[j] += src[off + j * ist];
      else
        for (int64_t j = 0; j < inner; ++j) d[j] = src[off + j * ist];
    } else {  // scatter back: dst is laid out as `in`, src as `out`
      const float* s = src + row * inner;
      float* base = dst + off;
      if (ist == 1 && !accumulate) std::memcpy(base, s, sizeof(float) * size_t(inner));
      else if (!accumulate)
        for (int64_t j = 0; j < inner; ++j) base[j * ist] = s[j];
      else if (ist == 1)
#pragma omp simd
        for (int64_t j = 0; j < inner; ++j) base[j] += s[j];
      else
        for (int64_t j = 0; j < inner; ++j) base[j * ist] += s[j];
    }
  }
}

Tensor permute(const Tensor& x, const std::vector<int>& dims) {
  OpScope prof("permute");
  size_t r = size_t(x.dim());
  if (r == 0 && dims.empty()) return reshape(x, {});
  std::vector<bool> seen(r, false);
  if (dims.size() != r) fail("permute: " + std::to_string(dims.size()) + " dims for shape " + shape_str(x.shape()));
  for (int d : dims) {
    if (d < 0 || d >= int(r) || seen[d]) fail("permute: dims are not a permutation of 0.." + std::to_string(r - 1));
    seen[d] = true;
  }
  Shape out(r);
  for (size_t i = 0; i < r; ++i) out[i] = x.shape()[dims[i]];
  Tensor y = Tensor::empty(out);
  permute_copy(x.data(), x.shape(), dims, y.data(), false, false);
  if (needs_grad({&x}))
    attach(y, "permute", {x}, [x, dims](const Tensor& y) {
      // a permutation writes each element of x's gradient once: a fresh one needs no zeroing
      bool fresh;
      float* gx = grad_for_write(x, fresh);
      permute_copy(y.grad_data(), x.shape(), dims, gx, !fresh, true);
    });
  return y;
}

Tensor transpose(const Tensor& x, int a, int b) {
  std::vector<int> dims(x.dim());
  for (int i = 0; i < int(x.dim()); ++i) dims[i] = i;
  std::swap(dims[norm_axis("transpose", a, x.dim())], dims[norm_axis("transpose", b, x.dim())]);
  return permute(x, dims);
}

Tensor narrow(const Tensor& x, int axis, int64_t start, int64_t len) {
  OpScope prof("narrow");
  axis = norm_axis("narrow", axis, x.dim());
  AxisView v = axis_view(x.shape(), axis);
  if (start < 0 || len < 0 || start + len > v.n)
    fail("narrow: range [" + std::to_string(start) + "," + std::to_string(start + len) + ") out of bounds for axis " +
         std::to_string(axis) + " of size " + std::to_string(v.n));
  Shape out = x.shape();
  out[axis] = len;
  Tensor y = Tensor::empty(out);
  int64_t chunk = len * v.inner;
  const float* px = x.data();
  float* py = y.data();
  for (int64_t o = 0; o < v.outer; ++o)
    std::memcpy(py + o * chunk, px + (o * v.n + start) * v.inner, sizeof(float) * chunk);
  if (needs_grad({&x}))
    attach(y, "narrow", {x}, [x, v, start, chunk](const Tensor& y) {
      const float* g = y.grad_data();
      float* gx = x.grad_data();
      for (int64_t o = 0; o < v.outer; ++o) {
        float* d = gx + (o * v.n + start) * v.inner;
        for (int64_t j = 0; j < chunk; ++j) d[j] += g[o * chunk + j];
      }
    });
  return y;
}

Tensor concat(const std::vector<Tensor>& xs, int axis) {
  OpScope prof("concat");
  if (xs.empty()) fail("concat: no tensors");
  axis = norm_axis("concat", axis, xs[0].dim());
  Shape out = xs[0].shape();
  out[axis] = 0;
  for (const Tensor& t : xs) {
    Shape a = t.shape(), b = xs[0].shape();
    if (a.size() != b.size()) fail("concat: shapes " + shape_str(b) + " and " + shape_str(a) + " differ in rank");
    a[axis] = b[axis] = 0;
    if (a != b) fail("concat: shapes " + shape_str(xs[0].shape()) + " and " + shape_str(t.shape()) +
                     " differ outside axis " + std::to_string(axis));
    out[axis] += t.shape()[axis];
  }
  Tensor y = Tensor::empty(out);
  AxisView vo = axis_view(out, axis);
  int64_t at = 0;
  for (const Tensor& t : xs) {
    int64_t chunk = t.shape()[axis] * vo.inner;
    for (int64_t o = 0; o < vo.outer; ++o)
      std::memcpy(y.data() + o * vo.n * vo.inner + at, t.data() + o * chunk, sizeof(float) * chunk);
    at += chunk;
  }
  bool any = false;
  for (const Tensor& t : xs) any = any || needs_grad({&t});
  if (any)
    attach(y, "concat", xs, [xs, vo](const Tensor& y) {
      const float* g = y.grad_data();
      int64_t at = 0;
      for (const Tensor& t : xs) {
        int64_t chunk = t.numel() / vo.outer;
        if (t.requires_grad()) {
          float* gt = t.grad_data();
          for (int64_t o = 0; o < vo.outer; ++o)
            for (int64_t j = 0; j < chunk; ++j) gt[o * chunk + j] += g[o * vo.n * vo.inner + at + j];
        }
        at += chunk;
      }
    });
  return y;
}

// ---- gather / scatter-add along an axis (torch semantics) ----------------------------------
// index has x's rank; every dimension but `axis` at most x's; out has index's shape.
static void check_index(const char* op, const Shape& xs, int axis, const IntTensor& idx) {
  if (idx.shape.size() != xs.size())
    fail(std::string(op) + ": index " + shape_str(idx.shape) + " must have the rank of " + shape_str(xs));
  for (size_t i = 0; i < xs.size(); ++i)
    if (int(i) != axis && idx.shape[i] > xs[i])
      fail(std::string(op) + ": index " + shape_str(idx.shape) + " larger than " + shape_str(xs) + " at dim " +
           std::to_string(i));
  for (int64_t i = 0; i < idx.numel(); ++i)
    if (idx.data[i] < 0 || idx.data[i] >= xs[axis])
      fail(std::string(op) + ": index " + std::to_string(idx.data[i]) + " out of range [0," + std::to_string(xs[axis]) +
           ") along axis " + std::to_string(axis));
}

// Offset in a tensor of shape `xs` of index element i with its axis coordinate replaced by idx.
static inline int64_t gather_offset(int64_t i, const Shape& is, const Shape& xs, int axis, int32_t at) {
  int64_t off = 0, stride = 1;
  for (size_t k = is.size(); k-- > 0;) {
    int64_t c = i % is[k];
    i /= is[k];
    off += (int(k) == axis ? at : c) * stride;
    stride *= xs[k];
  }
  return off;
}

Tensor gather(const Tensor& x, int axis, const IntTensor& index) {
  OpScope prof("gather");
  axis = norm_axis("gather", axis, x.dim());
  check_index("gather", x.shape(), axis, index);
  Tensor y = Tensor::empty(index.shape);
  for (int64_t i = 0; i < index.numel(); ++i)
    y.data()[i] = x.data()[gather_offset(i, index.shape, x.shape(), axis, index.data[i])];
  if (needs_grad({&x}))
    attach(y, "gather", {x}, [x, axis, index](const Tensor& y) {
      const float* g = y.grad_data();
      float* gx = x.grad_data();
      for (int64_t i = 0; i < index.numel(); ++i)
        gx[gather_offset(i, index.shape, x.shape(), axis, index.data[i])] += g[i];
    });
  return y;
}

Tensor scatter_add(const Tensor& x, int axis, const IntTensor& index, const Tensor& src) {
  OpScope prof("scatter_add");
  axis = norm_axis("scatter_add", axis, x.dim());
  check_index("scatter_add", x.shape(), axis, index);
  if (src.shape() != index.shape)
    fail("scatter_add: src " + shape_str(src.shape()) + " must have the index's shape " + shape_str(index.shape));
  Tensor y = x.clone();
  for (int64_t i = 0; i < index.numel(); ++i)
    y.data()[gather_offset(i, index.shape, x.shape(), axis, index.data[i])] += src.data()[i];
  if (needs_grad({&x, &src}))
    attach(y, "scatter_add", {x, src}, [x, src, axis, index](const Tensor& y) {
      const float* g = y.grad_data();
      if (x.requires_grad()) {
        float* gx = x.grad_data();
        for (int64_t i = 0; i < x.numel(); ++i) gx[i] += g[i];
      }
      if (src.requires_grad()) {
        float* gs = src.grad_data();
        for (int64_t i = 0; i < index.numel(); ++i)
          gs[i] += g[gather_offset(i, index.shape, x.shape(), axis, index.data[i])];
      }
    });
  return y;
}

// ---- row gather / scatter: the workhorse of the sparse and clustered attentions -------
struct RowPlan {
  int64_t G, N, D, M;
};
static RowPlan row_plan(const char* op, const Shape& xs, const IntTensor& idx) {
  if (xs.size() < 2) fail(std::string(op) + ": input must be [..,N,D], got " + shape_str(xs));
  Shape lead(xs.begin(), xs.end() - 2), ilead(idx.shape.begin(), idx.shape.end() - (idx.shape.empty() ? 0 : 1));
  if (idx.shape.empty() || ilead != lead)
    fail(std::string(op) + ": index " + shape_str(idx.shape) + " must be [" + shape_str(lead).substr(1) +
         "..,M] for input " + shape_str(xs));
  RowPlan p{numel_of(lead), xs[xs.size() - 2], xs.back(), idx.shape.back()};
  for (int64_t i = 0; i < idx.numel(); ++i)
    if (idx.data[i] < 0 || idx.data[i] >= p.N)
      fail(std::string(op) + ": row index " + std::to_string(idx.data[i]) + " out of range [0," + std::to_string(p.N) + ")");
  return p;
}

Tensor gather_rows(const Tensor& x, const IntTensor& index) {
  OpScope prof("gather_rows");
  RowPlan p = row_plan("gather_rows", x.shape(), index);
  Shape out(x.shape().begin(), x.shape().end() - 2);
  out.push_back(p.M);
  out.push_back(p.D);
  Tensor y = Tensor::empty(out);
  const float* px = x.data();
  float* py = y.data();
  const int32_t* ix = index.data.data();
#pragma omp parallel for if (y.numel() > kParallelMin)
  for (int64_t gm = 0; gm < p.G * p.M; ++gm)
    std::memcpy(py + gm * p.D, px + ((gm / p.M) * p.N + ix[gm]) * p.D, sizeof(float) * p.D);
  if (needs_grad({&x}))
    attach(y, "gather_rows", {x}, [x, index, p](const Tensor& y) {
      const float* g = y.grad_data();
      float* gx = x.grad_data();
      const int32_t* ix = index.data.data();
      // Rows of one group may repeat, so groups run in parallel, rows in order.
#pragma omp parallel for if (y.numel() > kParallelMin)
      for (int64_t gi = 0; gi < p.G; ++gi)
        for (int64_t m = 0; m < p.M; ++m) {
          const float* s = g + (gi * p.M + m) * p.D;
          float* d = gx + (gi * p.N + ix[gi * p.M + m]) * p.D;
          for (int64_t j = 0; j < p.D; ++j) d[j] += s[j];
        }
    });
  return y;
}

Tensor scatter_add_rows(const Tensor& base, const IntTensor& index, const Tensor& src) {
  OpScope prof("scatter_add_rows");
  RowPlan p = row_plan("scatter_add_rows", base.shape(), index);
  Shape want(base.shape().begin(), base.shape().end() - 2);
  want.push_back(p.M);
  want.push_back(p.D);
  if (src.shape() != want)
    fail("scatter_add_rows: src " + shape_str(src.shape()) + " must be " + shape_str(want));
  Tensor y = base.clone();
  const float* ps = src.data();
  float* py = y.data();
  const int32_t* ix = index.data.data();
#pragma omp parallel for if (src.numel() > kParallelMin)
  for (int64_t gi = 0; gi < p.G; ++gi)
    for (int64_t m = 0; m < p.M; ++m) {
      const float* s = ps + (gi * p.M + m) * p.D;
      float* d = py + (gi * p.N + ix[gi * p.M + m]) * p.D;
      for (int64_t j = 0; j < p.D; ++j) d[j] += s[j];
    }
  if (needs_grad({&base, &src}))
    attach(y, "scatter_add_rows", {base, src}, [base, src, index, p](const Tensor& y) {
      const float* g = y.grad_data();
      if (base.requires_grad()) {
        float* gb = base.grad_data();
        for (int64_t i = 0; i < base.numel(); ++i) gb[i] += g[i];
      }
      if (src.requires_grad()) {
        float* gs = src.grad_data();
        const int32_t* ix = index.data.data();
#pragma omp parallel for if (src.numel() > kParallelMin)
        for (int64_t gm = 0; gm < p.G * p.M; ++gm) {
          const float* s = g + ((gm / p.M) * p.N + ix[gm]) * p.D;
          for (int64_t j = 0; j < p.D; ++j) gs[gm * p.D + j] += s[j];
        }
      }
    });
  return y;
}

Tensor embedding(const Tensor& weight, const IntTensor& ids) {
  OpScope prof("embedding");
  if (weight.dim() != 2) fail("embedding: weight must be [V,D], got " + shape_str(weight.shape()));
  int64_t V = weight.size(0), D = weight.size(1);
  for (int64_t i = 0; i < ids.numel(); ++i)
    if (ids.data[i] < 0 || ids.data[i] >= V)
      fail("embedding: id " + std::to_string(ids.data[i]) + " at position " + std::to_string(i) + " out of range [0," +
           std::to_string(V) + ")");
  Shape out = ids.shape;
  out.push_back(D);
  Tensor y = Tensor::empty(out);
  const int64_t n = ids.numel();
#pragma omp parallel for if (n * D > kParallelMin)
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(y.data() + i * D, weight.data() + int64_t(ids.data[i]) * D, sizeof(float) * D);
  if (needs_grad({&weight}))
    attach(y, "embedding", {weight}, [weight, ids, D](const Tensor& y) {
      // A row of the table gathers from every position holding its id, so the threads split
      // the columns (16 or more each): every sum keeps the order of the positions.
      const float* g = y.grad_data();
      float* gw = weight.grad_data();
      const int64_t n = ids.numel(), parts = std::max<int64_t>(1, std::min<int64_t>(omp_get_max_threads(), D / 16));
#pragma omp parallel for num_threads(int(parts)) if (parts > 1 && n * D > kParallelMin)
      for (int64_t t = 0; t < parts; ++t) {
        const int64_t j0 = D * t / parts, j1 = D * (t + 1) / parts;
        for (int64_t i = 0; i < n; ++i) {
          float* d = gw + int64_t(ids.data[i]) * D;
          const float* gi = g + i * D;
#pragma omp simd
          for (int64_t j = j0; j < j1; ++j) d[j] += gi[j];
        }
      }
    });
  return y;
}

}  // namespace az
