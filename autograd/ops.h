// The differentiable ops.  Each is a free function whose forward and backward
// live together in one definition (ops_*.cpp).  Shapes use fixed letters:
// B batch, N positions, D model width, H heads, d head size.
#pragma once
#include "autograd/tensor.h"

namespace az {

// Integer indices (labels, token ids, gather positions), row-major.
struct IntTensor {
  Shape shape;
  std::vector<int32_t> data;
  IntTensor() = default;
  IntTensor(Shape s, std::vector<int32_t> d);
  int64_t numel() const { return numel_of(shape); }
};

// ---- elementwise, with numpy broadcasting (ops_elementwise.cpp) ----------------
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor add_scalar(const Tensor& x, float s);
Tensor mul_scalar(const Tensor& x, float s);
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor pow(const Tensor& x, float p);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x);              // tanh approximation
Tensor elu(const Tensor& x, float alpha = 1.0f);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
// mask broadcasts to x; where mask != 0 the result is `value` (no gradient there).
Tensor masked_fill(const Tensor& x, const Tensor& mask, float value);
// cond broadcasts to a's and b's common shape: cond != 0 ? a : b.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// Inverted dropout with a counter-based mask from one draw of `rng`.
Tensor dropout(const Tensor& x, float p, bool training, Rng& rng = global_rng());

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator-(const Tensor& a) { return neg(a); }
inline Tensor operator+(const Tensor& a, float s) { return add_scalar(a, s); }
inline Tensor operator-(const Tensor& a, float s) { return add_scalar(a, -s); }
inline Tensor operator*(const Tensor& a, float s) { return mul_scalar(a, s); }
inline Tensor operator*(float s, const Tensor& a) { return mul_scalar(a, s); }
inline Tensor operator/(const Tensor& a, float s) { return mul_scalar(a, 1.0f / s); }

// ---- reductions and fused row kernels (ops_reduce.cpp) ----------------------------
Tensor sum(const Tensor& x);                                  // all elements -> []
Tensor sum(const Tensor& x, int axis, bool keepdim = false);
Tensor mean(const Tensor& x);
Tensor mean(const Tensor& x, int axis, bool keepdim = false);
Tensor max(const Tensor& x);
Tensor max(const Tensor& x, int axis, bool keepdim = false);   // gradient to the first maximum
Tensor cumsum(const Tensor& x, int axis);
// Softmax over the last axis.  mask (optional) broadcasts to x: additive, it is
// added to the logits; boolean (mask_is_bool), entries != 0 are excluded.  A row
// with every entry excluded gives zeros, not NaN.
Tensor softmax(const Tensor& x, const Tensor& mask = Tensor(), bool mask_is_bool = false);
Tensor log_softmax(const Tensor& x, const Tensor& mask = Tensor(), bool mask_is_bool = false);
// Mean cross-entropy of logits [M,C] against labels [M]; labels equal to
// ignore_index do not count.  Fused log-softmax, stable.
Tensor cross_entropy(const Tensor& logits, const IntTensor& labels, int ignore_index = -100);
// Layer norm over the last axis: (x - mean) / sqrt(var + eps) * gamma + beta.
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps = 1e-5f);

// ---- matrix products through cblas_sgemm (ops_matmul.cpp) ------------------------
// a [..,M,K] (or [..,K,M] with trans_a), b [..,K,N] (or [..,N,K] with trans_b).
// Batch dims must match, or either side may be 2-D (broadcast over the batch).
Tensor matmul(const Tensor& a, const Tensor& b, bool trans_a = false, bool trans_b = false);
// Fused x W + b for layers: x [..,K], w [K,N], b [N] (or undefined) -> [..,N].
// The bias seeds the output before one sgemm; its gradient is a column sum.
Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b);
// Floating-point operations done by matmul so far (2·M·N·K per product,
// forward and backward): the bench's model FLOPs, counted from real shapes.
double matmul_flops();
void reset_matmul_flops();
// Kernels that call sgemm themselves (flash, fused sparse attention) report
// their work here so the bench's FLOP count stays complete.
void count_matmul_flops(double flops);

// ---- shapes and indexing (ops_shape.cpp) -----------------------------------------------
Tensor reshape(const Tensor& x, Shape s);  // shares storage; one -1 is inferred
Tensor permute(const Tensor& x, const std::vector<int>& dims);
Tensor transpose(const Tensor& x, int a, int b);
Tensor narrow(const Tensor& x, int axis, int64_t start, int64_t length);
Tensor concat(const std::vector<Tensor>& xs, int axis);
// torch.gather: out[.., i, ..] = x[.., index[.., i, ..], ..] along axis; out has index's shape.
Tensor gather(const Tensor& x, int axis, const IntTensor& index);
// torch.scatter_add: a copy of x with src added at index along axis.
Tensor scatter_add(const Tensor& x, int axis, const IntTensor& index, const Tensor& src);
// Row gather for sparse attention: x [G,N,D], index [G,M] -> [G,M,D] (G = product of leading dims).
Tensor gather_rows(const Tensor& x, const IntTensor& index);
// Inverse of gather_rows: out [G,N,D] = base + src scattered by index [G,M] (rows add up).
Tensor scatter_add_rows(const Tensor& base, const IntTensor& index, const Tensor& src);
// weight [V,D], ids of any shape -> [ids.shape.., D].
Tensor embedding(const Tensor& weight, const IntTensor& ids);

}  // namespace az
