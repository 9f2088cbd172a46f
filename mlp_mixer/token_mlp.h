// token_mlp: MLP-Mixer's token-mixing MLP as one fused, differentiable op.
//
// x [B,N,D], w1 [N,S], b1 [S], w2 [N,S], b2 [N] -> y [B,N,D], for each example b:
//   Z_b = W1^T X_b + b1 1^T   [S,D]     H_b = gelu(Z_b)     Y_b = W2 H_b + b2 1^T
// Equal to  add(matmul(w2, gelu(add(matmul(w1, x, true), b1[S,1]))), b2[N,1])
// (the composition mixer.cpp used before, kept as the reference in
// tests/test_mlp_mixer.cpp), but each example's products, bias adds and GELU
// run back to back on data that stays in cache, one example per thread, where
// the composition made five passes over [B,S,D] arrays and summed the shared
// weights' gradients example by example on one thread.  Only Z is kept for the
// backward (H is recomputed from it, in cache):
//   dW2 += G H^T,  db2 += G 1,  dH = W2^T G,  dZ = dH * gelu'(Z),
//   db1 += dZ 1,   dW1 += X dZ^T,  dX = W1 dZ
// with the weights' gradients summed per thread, then over threads.
#pragma once
#include "autograd/ops.h"

namespace az {

Tensor token_mlp(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2);

}  // namespace az
