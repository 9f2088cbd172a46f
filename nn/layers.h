// The standard layers.  Shapes: x [.., in] for Linear, ids [B,N] for
// Embedding, x [B,N,D] for positions.  Weights are stored [in, out] so the
// forward product is x W with no transpose.
#pragma once
#include "nn/module.h"
#include "nn/init.h"

namespace az {

class Linear : public Module {
 public:
  // Xavier-uniform weight, zero bias (as LRA's Flax models initialise).
  Linear(int64_t in, int64_t out, bool bias = true, Rng& rng = global_rng());
  Tensor forward(const Tensor& x) const;  // [.., in] -> [.., out]
  Tensor weight, bias;                    // [in, out], [out]
  int64_t in_, out_;
};

class Embedding : public Module {
 public:
  Embedding(int64_t vocab, int64_t dim, Rng& rng = global_rng());  // N(0, 0.02)
  Tensor forward(const IntTensor& ids) const;  // ids [..] -> [.., dim]
  Tensor weight;                               // [vocab, dim]
};

class LayerNorm : public Module {
 public:
  explicit LayerNorm(int64_t dim, float eps = 1e-5f);
  Tensor forward(const Tensor& x) const;
  Tensor gamma, beta;
  float eps_;
};

class Dropout : public Module {
 public:
  explicit Dropout(float p) : p_(p) {}
  Tensor forward(const Tensor& x) const { return dropout(x, p_, is_training()); }
  float p_;
};

// Linear(D, F) -> GELU -> dropout -> Linear(F, D).
class FeedForward : public Module {
 public:
  FeedForward(int64_t dim, int64_t hidden, float dropout, Rng& rng = global_rng());
  Tensor forward(const Tensor& x) const;
  std::shared_ptr<Linear> fc1, fc2;
  std::shared_ptr<Dropout> drop;
};

// Adds a position signal to x [B,N,D], N <= max_len.
class LearnedPositions : public Module {
 public:
  LearnedPositions(int64_t max_len, int64_t dim, Rng& rng = global_rng());
  Tensor forward(const Tensor& x) const;
  Tensor table;  // [max_len, dim]
};

class SinusoidalPositions : public Module {
 public:
  SinusoidalPositions(int64_t max_len, int64_t dim);  // Vaswani et al. 2017
  Tensor forward(const Tensor& x) const;
  Tensor table;  // [max_len, dim], a buffer
};

}  // namespace az
