// Layer definitions (see layers.h).
#include "nn/layers.h"

#include <cmath>

namespace az {

Linear::Linear(int64_t in, int64_t out, bool with_bias, Rng& rng) : in_(in), out_(out) {
  if (in <= 0 || out <= 0) fail("Linear: sizes must be positive, got " + std::to_string(in) + "x" + std::to_string(out));
  weight = register_parameter("weight", init_xavier_uniform(in, out, rng));
  if (with_bias) bias = register_parameter("bias", Tensor::zeros({out}), Decay::no);
}

Tensor Linear::forward(const Tensor& x) const {
  if (x.dim() == 0 || x.shape().back() != in_)
    fail("Linear: input " + shape_str(x.shape()) + " must end in " + std::to_string(in_));
  return linear(x, weight, bias);
}

Embedding::Embedding(int64_t vocab, int64_t dim, Rng& rng) {
  weight = register_parameter("weight", init_normal({vocab, dim}, 0.02f, rng), Decay::no);
}

Tensor Embedding::forward(const IntTensor& ids) const { return embedding(weight, ids); }

LayerNorm::LayerNorm(int64_t dim, float eps) : eps_(eps) {
  gamma = register_parameter("gamma", Tensor::ones({dim}), Decay::no);
  beta = register_parameter("beta", Tensor::zeros({dim}), Decay::no);
}

Tensor LayerNorm::forward(const Tensor& x) const { return layer_norm(x, gamma, beta, eps_); }

FeedForward::FeedForward(int64_t dim, int64_t hidden, float p, Rng& rng) {
  fc1 = register_module("fc1", std::make_shared<Linear>(dim, hidden, true, rng));
  fc2 = register_module("fc2", std::make_shared<Linear>(hidden, dim, true, rng));
  drop = register_module("drop", std::make_shared<Dropout>(p));
}

Tensor FeedForward::forward(const Tensor& x) const { return fc2->forward(drop->forward(gelu(fc1->forward(x)))); }

static Tensor add_positions(const char* who, const Tensor& x, const Tensor& table) {
  if (x.dim() != 3 || x.size(2) != table.size(1))
    fail(std::string(who) + ": input " + shape_str(x.shape()) + " must be [B,N," + std::to_string(table.size(1)) + "]");
  int64_t N = x.size(1);
  if (N > table.size(0))
    fail(std::string(who) + ": sequence of " + std::to_string(N) + " positions is longer than the model's maximum " +
         std::to_string(table.size(0)));
  return add(x, N == table.size(0) ? table : narrow(table, 0, 0, N));
}

ShortConv::ShortConv(int64_t kernel, int64_t dim, Rng& rng) {
  weight = register_parameter("weight", init_normal({kernel, dim}, 0.1f, rng), Decay::no);
}

// Tap j of the kernel as [1,1,D], to broadcast over [B,N,D].
static Tensor tap(const Tensor& w, int64_t j) { return reshape(narrow(w, 0, j, 1), {1, 1, w.size(1)}); }

Tensor ShortConv::forward(const Tensor& x) const {
  if (x.dim() != 3 || x.size(2) != weight.size(1))
    fail("short convolution: input " + shape_str(x.shape()) + " must be [B,N," + std::to_string(weight.size(1)) + "]");
  const int64_t B = x.size(0), N = x.size(1), D = x.size(2);
  Tensor y = mul(x, tap(weight, 0));
  for (int64_t j = 1; j < weight.size(0) && j < N; ++j) {  // x shifted j positions later, zeros in front
    Tensor shifted = concat({Tensor::zeros({B, j, D}), narrow(x, 1, 0, N - j)}, 1);
    y = add(y, mul(shifted, tap(weight, j)));
  }
  return y;
}

Tensor ShortConv::step(const Tensor& x_t, const std::vector<Tensor>& past) const {
  Tensor y = mul(x_t, tap(weight, 0));
  for (int64_t j = 1; j < weight.size(0) && j <= int64_t(past.size()); ++j)
    y = add(y, mul(past[past.size() - size_t(j)], tap(weight, j)));
  return y;
}

LearnedPositions::LearnedPositions(int64_t max_len, int64_t dim, Rng& rng) {
  table = register_parameter("table", init_normal({max_len, dim}, 0.02f, rng), Decay::no);
}
Tensor LearnedPositions::forward(const Tensor& x) const { return add_positions("positions", x, table); }

SinusoidalPositions::SinusoidalPositions(int64_t max_len, int64_t dim) {
  Tensor t = Tensor::empty({max_len, dim});
  for (int64_t p = 0; p < max_len; ++p)
    for (int64_t i = 0; i < dim; ++i) {
      double freq = std::pow(10000.0, -double(2 * (i / 2)) / double(dim));
      t.data()[p * dim + i] = float(i % 2 == 0 ? std::sin(p * freq) : std::cos(p * freq));
    }
  table = register_buffer("table", t);
}
Tensor SinusoidalPositions::forward(const Tensor& x) const { return add_positions("positions", x, table); }

}  // namespace az
