// Gradient checking by central differences.
//
// gradcheck(f, inputs) compares the gradient backward() gives for
// L = sum(f(inputs) * R), R a fixed random tensor, with (L(x+eps) - L(x-eps)) / 2eps
// for every element of every input that requires a gradient.  L is summed in
// double on the numeric side so float rounding does not swamp the difference.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "autograd/tensor.h"

namespace az {

struct GradcheckResult {
  bool ok = true;
  double max_abs_err = 0;  // worst |analytic - numeric|
  std::string worst;       // "input 1 element 17: analytic 0.12 numeric 0.45"
};

using TensorFn = std::function<Tensor(const std::vector<Tensor>&)>;

// An element passes when |a - n| <= atol + rtol * |n|.
GradcheckResult gradcheck(const TensorFn& f, std::vector<Tensor> inputs, double eps = 1e-2, double atol = 2e-3,
                          double rtol = 2e-2);

}  // namespace az
