// Test helpers shared by the attention suites: a dense, masked reference built
// from a variant's own projection weights, and checks that a variant's output
// and gradients match it.
#pragma once
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "attention/common.h"
#include "autograd/gradcheck.h"

namespace az::testing {

inline Tensor find_param(const Module& m, const std::string& name) {
  for (auto& p : m.named_parameters())
    if (p.name == name) return p.tensor;
  FAIL("no parameter named " << name);
  return Tensor();
}

inline Tensor random_input(int64_t B, int64_t N, int64_t D, uint64_t seed, float scale = 1.0f) {
  Rng r(seed);
  return Tensor::randn({B, N, D}, scale, r).set_requires_grad();
}

// key_pad [B,N] with the last N - len[b] positions of each example padded.
inline Tensor padding(int64_t N, const std::vector<int64_t>& lens) {
  Tensor m = Tensor::zeros({int64_t(lens.size()), N});
  for (size_t b = 0; b < lens.size(); ++b)
    for (int64_t j = lens[b]; j < N; ++j) m.data()[b * N + j] = 1.0f;
  return m;
}

// A layer's buffers and the random source as they were, put back before each call (restore), so
// that calls take the same random draws: LSH rotations, Gumbel noise, random features, k-means
// initialisation.  Two forms, or two inputs, are then compared on the same draws.
struct Draws {
  std::vector<std::vector<float>> buffers;
  std::array<uint64_t, 4> rng;
  explicit Draws(const Module& m) : rng(global_rng().state()) {
    for (auto& b : m.named_buffers()) buffers.push_back(b.tensor.to_vector());
  }
  void restore(const Module& m) const {
    auto bs = m.named_buffers();
    for (size_t i = 0; i < bs.size(); ++i) std::copy(buffers[i].begin(), buffers[i].end(), bs[i].tensor.data());
    global_rng().set_state(rng);
  }
};

// dense_reference (attention/common.h) is the plain composed reference
// each variant's fast path is compared with.

inline void check_close(const Tensor& a, const Tensor& b, double tol, const std::string& what) {
  REQUIRE(a.shape() == b.shape());
  double worst = 0;
  int64_t at = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double e = std::fabs(double(a.data()[i]) - b.data()[i]);
    if (!(e <= worst)) worst = e, at = i;  // NaN counts as worst
  }
  INFO(what << ": worst difference " << worst << " at element " << at << " (" << a.data()[at] << " vs "
            << b.data()[at] << ")");
  CHECK(worst <= tol);
}

// Forward values at non-padding query rows, and gradients with respect to x
// and to every parameter, equal the reference's.  `fast` and `ref` compute
// [B,N,D] from x; a fixed random projection of the output is back-propagated.
inline void check_same_function(Module& m, const std::function<Tensor(const Tensor&)>& fast,
                                const std::function<Tensor(const Tensor&)>& ref, const Tensor& x,
                                const Tensor& key_pad, double tol = 1e-4) {
  Rng r(77);
  Tensor probe = Tensor::randn(x.shape(), 1.0f, r);
  if (key_pad.defined())  // padding query rows are unspecified: ignore them
    for (int64_t i = 0; i < probe.numel(); ++i)
      if (key_pad.data()[i / x.size(2)] != 0) probe.data()[i] = 0;
  auto run = [&](const std::function<Tensor(const Tensor&)>& f, std::vector<std::vector<float>>& grads) {
    m.zero_grad();
    x.zero_grad();
    Tensor y = f(x);
    sum(mul(y, probe)).backward();
    grads.clear();
    grads.push_back(x.grad().to_vector());
    for (auto& p : m.named_parameters())
      grads.push_back(p.tensor.has_grad() ? p.tensor.grad().to_vector() : std::vector<float>(p.tensor.numel(), 0.0f));
    return y.detach();
  };
  std::vector<std::vector<float>> gf, gr;
  Tensor yf = run(fast, gf), yr = run(ref, gr);
  Tensor keep = Tensor::ones(x.shape());
  if (key_pad.defined())
    for (int64_t i = 0; i < keep.numel(); ++i) keep.data()[i] = key_pad.data()[i / x.size(2)] != 0 ? 0.0f : 1.0f;
  check_close(mul(yf, keep), mul(yr, keep), tol, "forward");
  auto names = m.named_parameters();
  for (size_t i = 0; i < gf.size(); ++i) {
    std::string what = i == 0 ? "gradient of x" : "gradient of " + names[i - 1].name;
    Tensor a = Tensor::from({int64_t(gf[i].size())}, gf[i]), b = Tensor::from({int64_t(gr[i].size())}, gr[i]);
    check_close(a, b, tol * 10, what);
  }
}

// Central-difference check of d(output)/d(x) and d(output)/d(parameters).
inline void check_gradients(Module& m, const std::function<Tensor(const Tensor&)>& f, const Tensor& x,
                            double atol = 5e-3, double rtol = 3e-2) {
  std::vector<Tensor> in = {x};
  for (auto& p : m.named_parameters()) in.push_back(p.tensor);
  GradcheckResult r = gradcheck([&](const std::vector<Tensor>&) { return f(x); }, in, 1e-2, atol, rtol);
  INFO("gradcheck worst: " << r.worst);
  CHECK(r.ok);
}

}  // namespace az::testing
