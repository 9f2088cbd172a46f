// Central-difference gradient check (see gradcheck.h).
#include "autograd/gradcheck.h"

#include <cmath>
#include <cstdio>

#include "autograd/ops.h"

namespace az {

GradcheckResult gradcheck(const TensorFn& f, std::vector<Tensor> inputs, double eps, double atol, double rtol) {
  Rng rng(1234);
  Tensor probe;
  {
    NoGradGuard ng;
    probe = Tensor::randn(f(inputs).shape(), 1.0f, rng);
  }
  auto loss_value = [&]() {
    NoGradGuard ng;
    Tensor y = f(inputs);
    double s = 0;
    for (int64_t i = 0; i < y.numel(); ++i) s += double(y.data()[i]) * probe.data()[i];
    return s;
  };
  for (Tensor& t : inputs)
    if (t.requires_grad()) t.zero_grad();
  Tensor y = f(inputs);
  if (!y.requires_grad()) {
    GradcheckResult r;
    r.ok = false;
    r.worst = "the output does not depend on any input that requires a gradient";
    return r;
  }
  sum(mul(y, probe)).backward();

  GradcheckResult res;
  double worst_excess = -1;
  for (size_t k = 0; k < inputs.size(); ++k) {
    Tensor& t = inputs[k];
    if (!t.requires_grad()) continue;
    std::vector<float> analytic = t.has_grad() ? t.grad().to_vector() : std::vector<float>(t.numel(), 0.0f);
    for (int64_t i = 0; i < t.numel(); ++i) {
      float orig = t.data()[i];
      t.data()[i] = float(orig + eps);
      double lp = loss_value();
      t.data()[i] = float(orig - eps);
      double lm = loss_value();
      t.data()[i] = orig;
      double numeric = (lp - lm) / (2 * eps), err = std::fabs(analytic[i] - numeric);
      double excess = err - (atol + rtol * std::fabs(numeric));
      if (err > res.max_abs_err) res.max_abs_err = err;
      if (excess > worst_excess) {
        worst_excess = excess;
        char buf[200];
        std::snprintf(buf, sizeof buf, "input %zu element %lld: analytic %.6g numeric %.6g", k, (long long)i,
                      analytic[i], numeric);
        res.worst = buf;
      }
      if (excess > 0) res.ok = false;
    }
  }
  return res;
}

}  // namespace az
