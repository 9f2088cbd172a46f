// fourier_real: FNet's token mixing as a differentiable op, through FFTW.
//
// x [B,N,D] -> y [B,N,D], for each example b:  y_b = s * Re(F_n X_b F_D)
// where F_k[j,l] = exp(-2 pi i j l / k) is the k-point DFT matrix, X_b is x_b
// with padded rows zeroed, and n (rows transformed) is N, or with own_length
// the example's own length (one past its last non-padding row; rows beyond it
// are outputs 0).  s = 1, or 1/sqrt(n D) with ortho (the unitary DFT).
// O(n D log(n D)) per example (FFTW's 2-D real-to-complex transform).
#pragma once
#include "autograd/ops.h"

namespace az {

Tensor fourier_real(const Tensor& x, const Tensor& key_pad = Tensor(), bool own_length = false, bool ortho = false);

// Number of (n, D) FFTW plans cached so far (tests and diagnostics).
size_t fourier_plan_count();

}  // namespace az
