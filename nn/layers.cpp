// Layer definitions (see layers.h).
#include "nn/layers.h"

#include <cmath>

namespace az {

Linear::Linear(int64_t in, int64_t out, bool with_bias, Rng& rng) : in_(in), out_(out) {
  if (in <= 0 || out <= 0) fail("Linear: sizes must be positive, got " + std::to_string(in) + "x" + std::to_string(out));
  weight = register_parameter("weight", init_xavier_uniform(in, out, rng));
  if (with_bias) bias = register_parameter("bias", Tensor::zeros({out}), false);
}

Tensor Linear::forward(const Tensor& x) const {
  if (x.dim() == 0 || x.shape().back() != in_)
    fail("Linear: input " + shape_str(x.shape()) + " must end in " + std::to_string(in_));
  return linear(x, weight, bias);
}

Embedding::Embedding(int64_t vocab, int64_t dim, Rng& rng) {
  weight = register_parameter("weight", init_normal({vocab, dim}, 0.02f, rng), false);
}

Tensor Embedding::forward(const IntTensor& ids) const { return embedding(weight, ids); }

LayerNorm::LayerNorm(int64_t dim, float eps) : eps_(eps) {
  gamma = register_parameter("gamma", Tensor::ones({dim}), false);
  beta = register_parameter("beta", Tensor::zeros({dim}), false);
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

LearnedPositions::LearnedPositions(int64_t max_len, int64_t dim, Rng& rng) {
  table = register_parameter("table", init_normal({max_len, dim}, 0.02f, rng), false);
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
