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

// Depthwise causal short convolution over positions (Zoology's and H3's short
// convolution): y[b,t,:] = sum_{j<K} w[j,:] * x[b,t-j,:], zero before the
// start, so position t sees only t-K+1..t and a causal model stays causal.
// x [B,N,D] -> [B,N,D]; w [K,D] ~ N(0, 0.1).  step() is one decoding step:
// x_t [1,1,D] and the K-1 inputs before it, oldest first.
class ShortConv : public Module {
 public:
  ShortConv(int64_t kernel, int64_t dim, Rng& rng = global_rng());
  Tensor forward(const Tensor& x) const;
  Tensor step(const Tensor& x_t, const std::vector<Tensor>& past) const;
  Tensor weight;  // [K, D]
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
