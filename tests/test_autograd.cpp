// The autograd core: every op gradient-checked on odd sizes (3x5x7 and
// friends), broadcasting included; the engine's guarantees; error messages.
#include <doctest/doctest.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "autograd/runtime/blas.h"
#include "tests/util.h"

using namespace az;

namespace {

using az::test::error_of;
Rng rng(42);
Tensor param(const Shape& s, float lo = -1.0f, float hi = 1.0f) {
  return Tensor::uniform(s, lo, hi, rng).set_requires_grad();
}
void check_grad(const TensorFn& f, std::vector<Tensor> in, double eps = 1e-2, double atol = 2e-3, double rtol = 2e-2) {
  GradcheckResult r = gradcheck(f, in, eps, atol, rtol);
  INFO("worst: " << r.worst);
  CHECK(r.ok);
}
}  // namespace

TEST_CASE("binary ops with broadcasting are gradient-checked") {
  struct Case {
    Shape a, b;
  };
  std::vector<Case> cases = {{{3, 5, 7}, {3, 5, 7}},  // equal shapes
                             {{3, 5, 7}, {7}},        // trailing vector (a bias)
                             {{3, 5, 7}, {}},         // scalar
                             {{5, 7}, {3, 5, 7}},     // leading-dimension broadcast
                             {{3, 1, 7}, {1, 5, 1}}}; // both sides repeat
  for (auto& c : cases) {
    CAPTURE(shape_str(c.a));
    CAPTURE(shape_str(c.b));
    Tensor a = param(c.a), b = param(c.b, 0.5f, 2.0f);  // b away from 0 for div
    check_grad([](auto& v) { return add(v[0], v[1]); }, {a, b});
    check_grad([](auto& v) { return sub(v[0], v[1]); }, {a, b});
    check_grad([](auto& v) { return mul(v[0], v[1]); }, {a, b});
    check_grad([](auto& v) { return div(v[0], v[1]); }, {a, b});
  }
}

TEST_CASE("broadcasting on large tensors: values and gradients equal a plain serial loop") {
  // Sizes past the parallel threshold, so the per-thread reduction runs; the
  // reference sums the gradient reaching each repeated element in a plain loop.
  struct Case {
    Shape a, b;
  };
  std::vector<Case> cases = {{{64, 96, 40}, {96, 1}},    // a bias per row (the mixer's token bias)
                             {{64, 96, 40}, {40}},       // a bias per column
                             {{64, 96, 40}, {1, 96, 40}},  // a positional table over the batch
                             {{64, 1, 40}, {1, 96, 1}}};   // both sides repeat
  for (auto& c : cases) {
    CAPTURE(shape_str(c.a));
    CAPTURE(shape_str(c.b));
    for (int op = 0; op < 2; ++op) {  // add (constant derivatives) and mul (derivatives read the other side)
      Tensor a = param(c.a), b = param(c.b);
      Tensor y = op == 0 ? add(a, b) : mul(a, b);
      Tensor g = Tensor::uniform(y.shape(), -1.0f, 1.0f, rng);
      y.backward(g);
      Shape out = y.shape();
      auto strides = [&](const Shape& in) {  // 0 where `in` repeats along out
        std::vector<int64_t> st(out.size(), 0);
        int64_t m = 1;
        for (size_t k = out.size(), j = in.size(); k-- > 0 && j-- > 0;) {
          st[k] = in[j] == 1 ? 0 : m;
          m *= in[j];
        }
        return st;
      };
      auto sa = strides(c.a), sb = strides(c.b);
      std::vector<double> ra(size_t(a.numel()), 0.0), rb(size_t(b.numel()), 0.0);
      for (int64_t i = 0; i < y.numel(); ++i) {
        int64_t ia = 0, ib = 0, rest = i;
        for (size_t k = out.size(); k-- > 0;) {
          ia += (rest % out[k]) * sa[k], ib += (rest % out[k]) * sb[k];
          rest /= out[k];
        }
        double want = op == 0 ? double(a.data()[ia]) + b.data()[ib] : double(a.data()[ia]) * b.data()[ib];
        if (std::fabs(y.data()[i] - want) > 1e-6 * (1 + std::fabs(want))) REQUIRE(y.data()[i] == doctest::Approx(want));
        double gi = g.data()[i];
        ra[size_t(ia)] += gi * (op == 0 ? 1.0 : b.data()[ib]);
        rb[size_t(ib)] += gi * (op == 0 ? 1.0 : a.data()[ia]);
      }
      for (int64_t k = 0; k < a.numel(); ++k) REQUIRE(a.grad().data()[k] == doctest::Approx(ra[size_t(k)]).epsilon(1e-4));
      for (int64_t k = 0; k < b.numel(); ++k) REQUIRE(b.grad().data()[k] == doctest::Approx(rb[size_t(k)]).epsilon(1e-4));
    }
  }
}

TEST_CASE("unary ops are gradient-checked") {
  Tensor x = param({3, 5, 7});
  Tensor pos = param({3, 5, 7}, 0.5f, 2.0f);
  check_grad([](auto& v) { return neg(v[0]); }, {x});
  check_grad([](auto& v) { return exp(v[0]); }, {x});
  check_grad([](auto& v) { return log(v[0]); }, {pos});
  check_grad([](auto& v) { return sqrt(v[0]); }, {pos});
  check_grad([](auto& v) { return pow(v[0], 3.0f); }, {x});
  check_grad([](auto& v) { return pow(v[0], -1.5f); }, {pos});
  check_grad([](auto& v) { return tanh(v[0]); }, {x});
  check_grad([](auto& v) { return sigmoid(v[0]); }, {x});
  check_grad([](auto& v) { return gelu(v[0]); }, {x});
  check_grad([](auto& v) { return elu(v[0]); }, {x});
  check_grad([](auto& v) { return sin(v[0]); }, {x});
  check_grad([](auto& v) { return cos(v[0]); }, {x});
  check_grad([](auto& v) { return add_scalar(mul_scalar(v[0], 2.5f), 1.0f); }, {x});
  // relu away from the kink
  Tensor r = Tensor::uniform({3, 5, 7}, 0.1f, 1.0f, rng);
  for (int64_t i = 0; i < r.numel(); i += 2) r.data()[i] = -r.data()[i];
  r.set_requires_grad();
  check_grad([](auto& v) { return relu(v[0]); }, {r});
}

TEST_CASE("gelu is the tanh approximation") {
  Tensor x = Tensor::from({3}, {-1.0f, 0.0f, 2.0f});
  Tensor y = gelu(x);
  CHECK(y.data()[0] == doctest::Approx(-0.158808).epsilon(1e-4));
  CHECK(y.data()[1] == doctest::Approx(0.0));
  CHECK(y.data()[2] == doctest::Approx(1.954597).epsilon(1e-4));
}

TEST_CASE("reductions are gradient-checked") {
  Tensor x = param({3, 5, 7});
  // max needs values further apart than the finite-difference step: a shuffled ramp.
  Tensor distinct = Tensor::empty({3, 5, 7});
  for (int64_t i = 0; i < 105; ++i) distinct.data()[i] = 0.05f * float((i * 37) % 105) - 2.6f;
  distinct.set_requires_grad();
  for (int axis : {0, 1, 2, -1}) {
    CAPTURE(axis);
    check_grad([axis](auto& v) { return sum(v[0], axis); }, {x});
    check_grad([axis](auto& v) { return mean(v[0], axis, true); }, {x});
    check_grad([axis](auto& v) { return max(v[0], axis); }, {distinct});
    check_grad([axis](auto& v) { return cumsum(v[0], axis); }, {x});
  }
  check_grad([](auto& v) { return sum(v[0]); }, {x});
  check_grad([](auto& v) { return mean(v[0]); }, {x});
  check_grad([](auto& v) { return max(v[0]); }, {distinct});
  CHECK(sum(x, 1).shape() == Shape{3, 7});
  CHECK(mean(x, 1, true).shape() == Shape{3, 1, 7});
}

TEST_CASE("softmax and log-softmax, with additive and boolean masks") {
  Tensor x = param({3, 5, 7}, -3, 3);
  check_grad([](auto& v) { return softmax(v[0]); }, {x});
  check_grad([](auto& v) { return log_softmax(v[0]); }, {x});
  // boolean key mask [3,1,7], broadcast over the middle axis; column 6 masked everywhere.
  std::vector<float> m(21, 0.0f);
  for (int b = 0; b < 3; ++b) m[b * 7 + 6] = 1, m[b * 7 + b] = 1;
  Tensor mask = Tensor::from({3, 1, 7}, m);
  check_grad([mask](auto& v) { return softmax(v[0], mask, true); }, {x});
  Tensor y = softmax(x, mask, true);
  for (int64_t r = 0; r < 15; ++r) {
    float s = 0;
    for (int j = 0; j < 7; ++j) s += y.data()[r * 7 + j];
    CHECK(s == doctest::Approx(1.0f).epsilon(1e-5));
    CHECK(y.data()[r * 7 + 6] == 0.0f);
  }
  // additive mask equals adding it by hand
  Tensor add_mask = Tensor::uniform({7}, -2, 2, rng);
  Tensor y1 = softmax(x, add_mask), y2 = softmax(add(x, add_mask));
  for (int64_t i = 0; i < y1.numel(); ++i) CHECK(y1.data()[i] == doctest::Approx(y2.data()[i]).epsilon(1e-5));
  check_grad([add_mask](auto& v) { return log_softmax(v[0], add_mask); }, {x});
  // a fully masked row gives zeros, not NaN
  Tensor all = Tensor::ones({7});
  Tensor z = softmax(x, all, true);
  for (int64_t i = 0; i < z.numel(); ++i) CHECK(z.data()[i] == 0.0f);
  // stable for huge logits
  Tensor big = Tensor::from({2}, {1000.0f, 1000.0f});
  CHECK(softmax(big).data()[0] == doctest::Approx(0.5));
}

TEST_CASE("cross-entropy: value, gradient and ignore index") {
  Tensor logits = param({5, 7}, -2, 2);
  IntTensor labels({5}, {0, 3, 6, -100, 2});
  check_grad([labels](auto& v) { return cross_entropy(v[0], labels); }, {logits});
  // value equals -mean log_softmax at the labels, skipping the ignored one
  Tensor ls = log_softmax(logits);
  double ref = 0;
  for (int i : {0, 1, 2, 4}) ref -= ls.data()[i * 7 + labels.data[i]];
  CHECK(cross_entropy(logits, labels).item() == doctest::Approx(ref / 4).epsilon(1e-5));
  CHECK(error_of<Error>([&] { cross_entropy(logits, IntTensor({5}, {0, 1, 7, 0, 0})); }).find("label 7 at index 2") !=
        std::string::npos);
}

TEST_CASE("layer norm's backward gives the same gradients bit for bit at 2 threads, run after run") {
  // Per-thread partial sums of dgamma and dbeta are added in thread order,
  // which is deterministic only if each thread always gets the same rows: a
  // dynamic or guided schedule hands them out by arrival (training at 2
  // threads then drifted in the 7th digit from run to run).
  int before = omp_get_max_threads();
  omp_set_num_threads(2);
  Rng r(7);
  Tensor x = Tensor::uniform({4096, 64}, -2, 2, r).set_requires_grad();
  Tensor g = Tensor::uniform({64}, 0.5f, 1.5f, r).set_requires_grad(), b = Tensor::zeros({64}).set_requires_grad();
  Tensor w = Tensor::uniform({4096, 64}, -1, 1, r);
  std::vector<float> first;
  int differ = 0;
  for (int rep = 0; rep < 40; ++rep) {
    g.zero_grad();
    b.zero_grad();
    x.zero_grad();
    sum(mul(layer_norm(x, g, b), w)).backward();
    std::vector<float> now(g.grad_data(), g.grad_data() + 64);
    now.insert(now.end(), b.grad_data(), b.grad_data() + 64);
    if (rep == 0) first = now;
    else differ += now != first;
  }
  omp_set_num_threads(before);
  CHECK(differ == 0);
}

TEST_CASE("layer norm is gradient-checked in all three inputs") {
  Tensor x = param({3, 5, 7}, -2, 2), g = param({7}, 0.5f, 1.5f), b = param({7});
  check_grad([](auto& v) { return layer_norm(v[0], v[1], v[2]); }, {x, g, b});
  Tensor y = layer_norm(x, Tensor::ones({7}), Tensor::zeros({7}));
  for (int64_t r = 0; r < 15; ++r) {
    double mu = 0, var = 0;
    for (int j = 0; j < 7; ++j) mu += y.data()[r * 7 + j];
    mu /= 7;
    for (int j = 0; j < 7; ++j) var += (y.data()[r * 7 + j] - mu) * (y.data()[r * 7 + j] - mu);
    CHECK(mu == doctest::Approx(0).epsilon(1e-5));
    CHECK(var / 7 == doctest::Approx(1).epsilon(1e-3));
  }
}

TEST_CASE("matmul: every transpose combination, batched and broadcast, against a naive product") {
  auto naive = [](const Tensor& a, const Tensor& b, bool ta, bool tb, int64_t batch, bool ab, bool bb) {
    int64_t M = ta ? a.shape().back() : a.shape()[a.dim() - 2], K = ta ? a.shape()[a.dim() - 2] : a.shape().back();
    int64_t N = tb ? b.shape()[b.dim() - 2] : b.shape().back();
    std::vector<float> c(batch * M * N, 0.0f);
    for (int64_t q = 0; q < batch; ++q)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double s = 0;
          for (int64_t k = 0; k < K; ++k) {
            float av = a.data()[(ab ? q * M * K : 0) + (ta ? k * M + i : i * K + k)];
            float bv = b.data()[(bb ? q * K * N : 0) + (tb ? j * K + k : k * N + j)];
            s += double(av) * bv;
          }
          c[q * M * N + i * N + j] = float(s);
        }
    return c;
  };
  const int64_t M = 3, K = 5, N = 7, Bt = 4;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int mode = 0; mode < 4; ++mode) {  // 2-D, both batched, b shared, a shared
        bool ab = mode == 1 || mode == 2, bb = mode == 1 || mode == 3;
        Shape sa = ta ? Shape{K, M} : Shape{M, K}, sb = tb ? Shape{N, K} : Shape{K, N};
        if (ab) sa.insert(sa.begin(), Bt);
        if (bb) sb.insert(sb.begin(), Bt);
        CAPTURE(ta);
        CAPTURE(tb);
        CAPTURE(mode);
        Tensor a = param(sa), b = param(sb);
        Tensor c = matmul(a, b, ta, tb);
        auto ref = naive(a, b, ta, tb, (ab || bb) ? Bt : 1, ab, bb);
        REQUIRE(c.numel() == (int64_t)ref.size());
        for (size_t i = 0; i < ref.size(); ++i) CHECK(c.data()[i] == doctest::Approx(ref[i]).epsilon(1e-4));
        check_grad([ta, tb](auto& v) { return matmul(v[0], v[1], ta, tb); }, {a, b});
      }
  // [B,N,K] x [K,M] with 4-D batch dims
  Tensor a = param({2, 3, 5, 7}), b = param({2, 3, 7, 4});
  CHECK(matmul(a, b).shape() == Shape{2, 3, 5, 4});
  check_grad([](auto& v) { return matmul(v[0], v[1]); }, {a, b});
  CHECK(error_of<Error>([&] { matmul(param({3, 5}), param({4, 7})); }) ==
        "matmul: a [3,5] and b [4,7]: inner dimensions 5 and 4 differ");
}

TEST_CASE("fused linear equals matmul + bias and is gradient-checked") {
  Tensor x = param({3, 5, 7}), w = param({7, 4}), b = param({4});
  check_grad([](auto& v) { return linear(v[0], v[1], v[2]); }, {x, w, b});
  check_grad([](auto& v) { return linear(v[0], v[1], Tensor()); }, {x, w});
  Tensor y1 = linear(x, w, b), y2 = add(matmul(x, w), b);
  for (int64_t i = 0; i < y1.numel(); ++i) CHECK(y1.data()[i] == doctest::Approx(y2.data()[i]).epsilon(1e-5));
  // large enough for the parallel bias-gradient path
  Tensor xl = param({300, 200}), wl = param({200, 150}), bl = param({150});
  sum(linear(xl, wl, bl)).backward();
  CHECK(bl.grad().data()[7] == doctest::Approx(300.0f));
  CHECK(error_of<Error>([&] { linear(x, param({6, 4}), b); }) ==
        "linear: input [3,5,7] and weight [6,4] do not fit (expected [..,K] and [K,N])");
}

TEST_CASE("fast exp and tanh match libm closely") {
  Tensor x = Tensor::uniform({10000}, -80, 80, rng);
  Tensor y = exp(x), t = tanh(mul_scalar(x, 0.1f));
  for (int64_t i = 0; i < x.numel(); ++i) {
    CHECK(y.data()[i] == doctest::Approx(std::exp(x.data()[i])).epsilon(3e-7));
    CHECK(t.data()[i] == doctest::Approx(std::tanh(0.1f * x.data()[i])).epsilon(1e-6).scale(1));
  }
}

TEST_CASE("shape ops are gradient-checked") {
  Tensor x = param({3, 5, 7});
  check_grad([](auto& v) { return reshape(v[0], {5, -1}); }, {x});
  check_grad([](auto& v) { return add(reshape(v[0], {105}), reshape(v[0], {105})); }, {x});  // shared buffer, then +=
  check_grad([](auto& v) { return permute(v[0], {2, 0, 1}); }, {x});
  check_grad([](auto& v) { return transpose(v[0], 0, 2); }, {x});
  check_grad([](auto& v) { return narrow(v[0], 1, 1, 3); }, {x});
  Tensor y = param({3, 2, 7});
  check_grad([](auto& v) { return concat({v[0], v[1], v[0]}, 1); }, {x, y});
  Tensor p = permute(x, {2, 0, 1});
  CHECK(p.shape() == Shape{7, 3, 5});
  CHECK(p.data()[(4 * 3 + 2) * 5 + 1] == x.data()[(2 * 5 + 1) * 7 + 4]);
  CHECK(reshape(x, {105}).data() == x.data());  // a view, not a copy
}

TEST_CASE("gather, scatter-add, row gather and embedding are gradient-checked") {
  Tensor x = param({3, 5, 7});
  std::vector<int32_t> idx(3 * 4 * 7);
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = int32_t((i * 7 + 3) % 5);  // repeats included
  IntTensor index({3, 4, 7}, idx);
  check_grad([index](auto& v) { return gather(v[0], 1, index); }, {x});
  Tensor src = param({3, 4, 7});
  check_grad([index](auto& v) { return scatter_add(v[0], 1, index, v[1]); }, {x, src});
  IntTensor rows({3, 6}, {0, 4, 4, 1, 2, 3, 1, 1, 1, 0, 0, 0, 4, 3, 2, 1, 0, 4});
  check_grad([rows](auto& v) { return gather_rows(v[0], rows); }, {x});
  Tensor rsrc = param({3, 6, 7});
  check_grad([rows](auto& v) { return scatter_add_rows(v[0], rows, v[1]); }, {x, rsrc});
  Tensor g = gather_rows(x, rows);
  CHECK(g.data()[(1 * 6 + 2) * 7 + 5] == x.data()[(1 * 5 + 1) * 7 + 5]);
  Tensor w = param({11, 4});
  IntTensor ids({2, 3}, {0, 10, 3, 3, 5, 0});
  check_grad([ids](auto& v) { return embedding(v[0], ids); }, {w});
  CHECK(error_of<Error>([&] { embedding(w, IntTensor({1}, {11})); }) == "embedding: id 11 at position 0 out of range [0,11)");
  CHECK(error_of<Error>([&] { gather_rows(x, IntTensor({3, 1}, {0, 5, 0})); }) ==
        "gather_rows: row index 5 out of range [0,5)");
  CHECK(error_of<Error>([&] { gather(x, 1, IntTensor({3, 1, 7}, std::vector<int32_t>(21, -1))); })
            .find("index -1 out of range [0,5)") != std::string::npos);
}

TEST_CASE("masked fill, where and dropout") {
  Tensor x = param({3, 5, 7}), y = param({3, 5, 7});
  Tensor cond = Tensor::uniform({5, 1}, 0, 1, rng);
  for (int64_t i = 0; i < cond.numel(); ++i) cond.data()[i] = cond.data()[i] > 0.5f;
  check_grad([cond](auto& v) { return where(cond, v[0], v[1]); }, {x, y});
  check_grad([cond](auto& v) { return masked_fill(v[0], cond, -7.0f); }, {x});
  Tensor f = masked_fill(x, cond, -7.0f);
  for (int64_t i = 0; i < f.numel(); ++i) {
    int64_t row = (i / 7) % 5;
    CHECK(f.data()[i] == (cond.data()[row] != 0 ? -7.0f : x.data()[i]));
  }
  // dropout: gradient-checked with its mask fixed by reseeding; keeps E[x]; eval is identity
  check_grad([](auto& v) { Rng r(9); return dropout(v[0], 0.3f, true, r); }, {x});
  Tensor ones = Tensor::ones({100000});
  Rng r(5);
  Tensor d = dropout(ones, 0.25f, true, r);
  double s = 0;
  int zeros = 0;
  for (int64_t i = 0; i < d.numel(); ++i) s += d.data()[i], zeros += d.data()[i] == 0;
  CHECK(s / d.numel() == doctest::Approx(1.0).epsilon(0.02));
  CHECK(zeros / 100000.0 == doctest::Approx(0.25).epsilon(0.04));
  CHECK(dropout(x, 0.5f, false).data() == x.data());
}

TEST_CASE("gradcheck fails on a deliberately wrong backward") {
  // y = x^2 with a backward that forgets the factor 2.
  auto wrong_square = [](const Tensor& x) {
    Tensor y = Tensor::empty(x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) y.data()[i] = x.data()[i] * x.data()[i];
    if (needs_grad({&x}))
      attach(y, "wrong_square", {x}, [x](const Tensor& y) {
        for (int64_t i = 0; i < x.numel(); ++i) x.grad_data()[i] += y.grad_data()[i] * x.data()[i];
      });
    return y;
  };
  Tensor x = param({3, 5});
  GradcheckResult r = gradcheck([&](auto& v) { return wrong_square(v[0]); }, {x});
  CHECK_FALSE(r.ok);
  CHECK(r.worst.find("analytic") != std::string::npos);
  CHECK(gradcheck([](auto& v) { return mul(v[0], v[0]); }, {x}).ok);
}

// gradcheck is what every gradient test relies on: its verdicts on functions whose
// gradient is deliberately wrong by a known amount, where the probe R cancels out.
namespace {
// y = a + b, whose backward adds `extra` to element `elem` of input `which` (0: a, 1: b).
Tensor add_wrong_at(const Tensor& a, const Tensor& b, int which, int64_t elem, float extra) {
  Tensor y = Tensor::empty(a.shape());
  for (int64_t i = 0; i < a.numel(); ++i) y.data()[i] = a.data()[i] + b.data()[i];
  if (needs_grad({&a, &b}))
    attach(y, "add_wrong_at", {a, b}, [a, b, which, elem, extra](const Tensor& y) {
      for (int64_t i = 0; i < a.numel(); ++i) {
        a.grad_data()[i] += y.grad_data()[i] + (which == 0 && i == elem ? extra : 0.0f);
        b.grad_data()[i] += y.grad_data()[i] + (which == 1 && i == elem ? extra : 0.0f);
      }
    });
  return y;
}
// y = 10 x, whose backward multiplies by `back` (10 is right); back < 0: adds 10, ignoring the upstream gradient.
Tensor times10(const Tensor& x, float back) {
  Tensor y = Tensor::empty(x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) y.data()[i] = 10 * x.data()[i];
  if (needs_grad({&x}))
    attach(y, "times10", {x}, [x, back](const Tensor& y) {
      for (int64_t i = 0; i < x.numel(); ++i) x.grad_data()[i] += back < 0 ? 10.0f : back * y.grad_data()[i];
    });
  return y;
}
}  // namespace

TEST_CASE("gradcheck: a gradient wrong by 7 at one element fails there, names it and reports 7 as the worst error") {
  // Guards a checker that checks only the first input, skips the last element, drops the absolute
  // value of the error, or reports the last element's error instead of the largest.  dL/da = dL/db = R exactly, so |a - n| = 7.
  auto run = [](int which, int64_t elem, float extra = 7.0f) {
    Tensor a = param({2, 3}), b = param({2, 3});
    return gradcheck([=](auto& v) { return add_wrong_at(v[0], v[1], which, elem, extra); }, {a, b});
  };
  GradcheckResult last = run(1, 5);  // the last element of the second input
  CHECK_FALSE(last.ok);
  CHECK(last.worst.rfind("input 1 element 5:", 0) == 0);
  CHECK(last.max_abs_err == doctest::Approx(7.0).epsilon(1e-3));
  GradcheckResult first = run(0, 1);  // an early element: the elements after it are right
  CHECK_FALSE(first.ok);
  CHECK(first.worst.rfind("input 0 element 1:", 0) == 0);
  CHECK(first.max_abs_err == doctest::Approx(7.0).epsilon(1e-3));
  GradcheckResult low = run(0, 2, -7.0f);  // analytic below numeric: |a - n| is still 7
  CHECK_FALSE(low.ok);
  CHECK(low.max_abs_err == doctest::Approx(7.0).epsilon(1e-3));
  Tensor a = param({2, 3}), b = param({2, 3});
  GradcheckResult right = gradcheck([](auto& v) { return add_wrong_at(v[0], v[1], 0, 0, 0.0f); }, {a, b});
  CHECK(right.ok);
  CHECK(right.max_abs_err < 1e-3);
}

TEST_CASE("gradcheck: the tolerance is |a - n| <= atol + rtol |n|; a backward ignoring its upstream gradient fails") {
  // y = 10 x: a backward 5% off (10.5 or 9.5) errs by 0.5|R| > 0.002 + 0.2|R| wherever |R| > 0.0067:
  // it must fail (guards a check that fails only on errors beyond 1, or a tolerance of |n| itself);
  // 1% off (10.1) errs by 0.1|R| < 0.2|R|: it must pass.
  Tensor x = param({8});
  CHECK(gradcheck([](auto& v) { return times10(v[0], 10.0f); }, {x}).ok);
  CHECK_FALSE(gradcheck([](auto& v) { return times10(v[0], 10.5f); }, {x}).ok);
  CHECK_FALSE(gradcheck([](auto& v) { return times10(v[0], 9.5f); }, {x}).ok);
  CHECK(gradcheck([](auto& v) { return times10(v[0], 10.1f); }, {x}).ok);
  // 10 whatever the upstream gradient: right only for L = sum(y), wrong for L = sum(R y) (10 R); the random R catches it
  CHECK_FALSE(gradcheck([](auto& v) { return times10(v[0], -1.0f); }, {x}).ok);
}

TEST_CASE("gradcheck: y = 100 x^2 at x = 0 has numeric gradient exactly 0; the input is left as it was") {
  // The central difference (100 eps^2 R - 100 eps^2 R) / 2eps is exactly 0 (a one-sided one gives
  // 100 eps R = R), the analytic 200 x R is 0: no error at all, and x is put back to 0.
  Tensor x = Tensor::zeros({4}).set_requires_grad();
  GradcheckResult r = gradcheck([](auto& v) { return mul(v[0], v[0]) * 100.0f; }, {x});
  CHECK(r.ok);
  CHECK(r.max_abs_err == 0.0);
  CHECK(x.to_vector() == std::vector<float>{0, 0, 0, 0});
  // an output that depends on no input requiring a gradient is a failure, not a vacuous pass
  Tensor c = Tensor::from({2}, {1.0f, 2.0f});
  GradcheckResult none = gradcheck([](auto& v) { return mul(v[0], v[0]); }, {c});
  CHECK_FALSE(none.ok);
  CHECK(none.worst.find("does not depend") != std::string::npos);
}

TEST_CASE("backward engine: deep chains, accumulation, no-grad, roots") {
  // 100,000 ops deep must not overflow the stack.
  Tensor x = Tensor::from({1}, {1.0f}).set_requires_grad();
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = add_scalar(y, 1e-5f);
  sum(y).backward();
  CHECK(x.grad().data()[0] == doctest::Approx(1.0f));
  y = Tensor();
  // accumulation across two backward passes
  sum(mul_scalar(x, 3.0f)).backward();
  CHECK(x.grad().data()[0] == doctest::Approx(4.0f));
  x.zero_grad();
  // a tensor used twice gets both contributions
  sum(mul(x, x)).backward();
  CHECK(x.grad().data()[0] == doctest::Approx(2.0f));
  // the graph is released after backward
  Tensor z = exp(x);
  Tensor s = sum(z);
  s.backward();
  CHECK(!s.node());
  CHECK(!z.node());
  // no graph under NoGradGuard
  {
    NoGradGuard ng;
    Tensor w = mul(x, x);
    CHECK_FALSE(w.requires_grad());
    CHECK(!w.node());
  }
  // non-scalar root needs an explicit gradient
  Tensor v = mul_scalar(param({2, 3}), 2.0f);
  CHECK(error_of<Error>([&] { v.backward(); }).find("non-scalar root needs an explicit gradient") != std::string::npos);
  Tensor leaf = param({2, 3});
  Tensor v2 = mul_scalar(leaf, 2.0f);
  v2.backward(Tensor::ones({2, 3}));
  CHECK(leaf.grad().data()[4] == doctest::Approx(2.0f));
}

TEST_CASE("shape errors name the op and both shapes") {
  Tensor a = param({3, 5}), b = param({4, 5});
  CHECK(error_of<Error>([&] { add(a, b); }) == "add: shapes [3,5] and [4,5] do not broadcast");
  CHECK(error_of<Error>([&] { reshape(a, {4, 4}); }) == "reshape: [3,5] has 15 elements, [4,4] has 16");
  CHECK(error_of<Error>([&] { narrow(a, 1, 3, 4); }) == "narrow: range [3,7) out of bounds for axis 1 of size 5");
  CHECK(error_of<Error>([&] { sum(a, 2); }) == "sum: axis 2 out of range for a 2-d tensor");
  CHECK(error_of<Error>([&] { layer_norm(a, param({4}), param({5})); }).find("layer_norm: gamma [4]") == 0);
  CHECK(error_of<Error>([&] { concat({a, param({3, 4, 1})}, 0); }).find("differ in rank") != std::string::npos);
}

TEST_CASE("the random source is seeded and its state restores exactly") {
  Rng a(7), b(7), c(8);
  CHECK(a.next_u64() == b.next_u64());
  CHECK(a.next_u64() != c.next_u64());
  auto st = a.state();
  std::vector<float> first;
  for (int i = 0; i < 10; ++i) first.push_back(a.normal());
  a.set_state(st);
  for (int i = 0; i < 10; ++i) CHECK(a.normal() == first[i]);
  double m = 0, v = 0;
  Rng n(3);
  for (int i = 0; i < 20000; ++i) {
    float x = n.normal();
    m += x, v += x * x;
  }
  CHECK(m / 20000 == doctest::Approx(0).epsilon(0.03));
  CHECK(v / 20000 == doctest::Approx(1).epsilon(0.03));
}

TEST_CASE("large tensors take the parallel paths and agree with the serial definition") {
  // [256,300] + bias [300]: forward elementwise, bias gradient = column sums.
  Tensor x = param({256, 300}), b = param({300});
  Tensor y = add(x, b);
  for (int64_t i = 0; i < y.numel(); i += 997) CHECK(y.data()[i] == x.data()[i] + b.data()[i % 300]);
  Tensor w = Tensor::uniform({256, 300}, -1, 1, rng);
  sum(mul(gelu(y), w)).backward();
  for (int j = 0; j < 300; j += 37) {
    double s = 0;
    for (int i = 0; i < 256; ++i) {
      float v = y.data()[i * 300 + j];
      float t = std::tanh(0.7978845608f * (v + 0.044715f * v * v * v));
      float dg = 0.5f * (1 + t) + 0.5f * v * (1 - t * t) * 0.7978845608f * (1 + 3 * 0.044715f * v * v);
      s += double(w.data()[i * 300 + j]) * dg;
    }
    CHECK(b.grad().data()[j] == doctest::Approx(s).epsilon(1e-4));
  }
  // embedding: 1000 lookups of 64 columns (the parallel paths: rows forward, columns backward),
  // ids repeating, against the serial sum
  {
    Tensor table = param({50, 64});
    std::vector<int32_t> ids(1000);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = int32_t((i * 37) % 50);
    Tensor e = embedding(table, IntTensor({1000}, ids)), ge = Tensor::uniform({1000, 64}, -1, 1, rng);
    e.backward(ge);
    for (int64_t i = 0; i < 1000; i += 99)
      for (int64_t j = 0; j < 64; j += 7) CHECK(e.data()[i * 64 + j] == table.data()[ids[size_t(i)] * 64 + j]);
    std::vector<double> want(50 * 64, 0.0);
    for (size_t i = 0; i < ids.size(); ++i)
      for (int64_t j = 0; j < 64; ++j) want[size_t(ids[i]) * 64 + size_t(j)] += ge.data()[i * 64 + j];
    double worst = 0;
    for (size_t k = 0; k < want.size(); ++k) worst = std::max(worst, std::fabs(want[k] - table.grad().data()[k]));
    CHECK(worst < 1e-4);
  }
  // softmax rows over 40000 entries still sum to one
  Tensor z = softmax(param({200, 200}, -5, 5));
  for (int r = 0; r < 200; r += 50) {
    double s = 0;
    for (int j = 0; j < 200; ++j) s += z.data()[r * 200 + j];
    CHECK(s == doctest::Approx(1.0).epsilon(1e-5));
  }
}

TEST_CASE("the storage pool reuses buffers across nearby sizes and holds at most twice the peak in use") {
  pool_release();
  {  // a loop of one shape: the second round is served from the cache
    float* first = nullptr;
    { Tensor a = Tensor::empty({1000, 300}); first = a.data(); }
    size_t cached = pool_cached_bytes();
    CHECK(cached >= 1000 * 300 * sizeof(float));
    Tensor b = Tensor::empty({1000, 301});  // 0.3% larger: the same size class
    CHECK(b.data() == first);
    CHECK(pool_cached_bytes() < cached);  // taken out of the cache, not malloc'd
  }
  // Thousands of distinct sizes, each freed at once: with a cache keyed by exact
  // size every one would stay cached (this once grew ListOps runs to 8 GB).
  size_t most = 0;
  for (int64_t n = 1000000; n < 1000000 + 3000 * 997; n += 997) {
    Tensor t = Tensor::empty({n});
    most = std::max(most, size_t(n) * sizeof(float));
  }
  CHECK(pool_cached_bytes() <= std::max<size_t>(size_t(64) << 20, 2 * pool_peak_bytes()));
  CHECK(pool_peak_bytes() >= most);
  pool_release();
  CHECK(pool_cached_bytes() == 0);
}

TEST_CASE("a request whose size class is empty takes a cached buffer up to 1.5 times its class, not a new one") {
  pool_release();
  float* big = nullptr;
  { Tensor a = Tensor::empty({1000, 400}); big = a.data(); }
  {
    Tensor b = Tensor::empty({1000, 300});  // 3/4 of it: served from the larger class
    CHECK(b.data() == big);
  }
  {
    Tensor c = Tensor::empty({1000, 200});  // half of it: too wasteful, a buffer of its own
    CHECK(c.data() != big);
  }
  pool_release();
  // Batches of varying length, as ListOps and text give: every step wants one
  // [N, N] and one [2N, N] buffer with N drawn from 800..1000 (0.64..1 of the
  // largest area, nearly a size class apart each step).  Reusing larger
  // buffers keeps the cache near one step's worth; keyed by class alone it
  // fills to the 2x bound (64 MiB floor aside: these are 4-8 MB each).
  uint32_t r = 12345;
  for (int step = 0; step < 400; ++step) {
    r = r * 1664525u + 1013904223u;
    int64_t n = 800 + int64_t(r >> 8) % 201;
    Tensor s1 = Tensor::empty({n, n}), s2 = Tensor::empty({2 * n, n});
  }
  const size_t step_bytes = 3 * 1000 * 1000 * sizeof(float);  // the largest step's two buffers
  MESSAGE("cached after 400 steps: " << pool_cached_bytes() << " bytes; the largest step uses " << step_bytes);
  CHECK(pool_cached_bytes() <= 2 * step_bytes);  // keyed by class alone: ~63 MB, up to the 64 MiB floor
  pool_release();
}

TEST_CASE("a miss drops the buffers freed longest ago: cached plus in use stays within 1.25x the peak") {
  // The same stream of varying lengths at sizes beyond the cache's 64 MiB
  // floor (64-216 MB buffers, never touched, so nothing is paged in).  Without
  // the eviction on a miss, each new size adds buffers up to the 2x bound.
  pool_release();
  uint32_t r = 777;
  size_t worst = 0;
  for (int step = 0; step < 200; ++step) {
    r = r * 1664525u + 1013904223u;
    int64_t n = 4000 + int64_t(r >> 8) % 1201;
    Tensor s1 = Tensor::empty({n, n}), s2 = Tensor::empty({2 * n, n});
    worst = std::max(worst, pool_cached_bytes() + pool_live_bytes());
  }
  MESSAGE("cached + in use at most " << worst << " bytes, peak in use " << pool_peak_bytes());
  CHECK(worst <= pool_peak_bytes() * 5 / 4);
  pool_release();
}

TEST_CASE("permute's backward writes a fresh gradient and adds into one that exists") {
  // x [2,3,4] used twice: the first backward to reach it writes, the second adds.
  Tensor x = param({2, 3, 4});
  Tensor w1 = Tensor::uniform({3, 2, 4}, -1, 1, rng), w2 = Tensor::uniform({4, 3, 2}, -1, 1, rng);
  Tensor loss = add(sum(mul(permute(x, {1, 0, 2}), w1)), sum(mul(permute(x, {2, 1, 0}), w2)));
  loss.backward();
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) {
        float want = w1.data()[(b * 2 + a) * 4 + c] + w2.data()[(c * 3 + b) * 2 + a];
        CHECK(x.grad().data()[(a * 3 + b) * 4 + c] == doctest::Approx(want).epsilon(1e-6));
      }
}

TEST_CASE("profiler: --profile's table counts each op's forward and backward, and is off by default") {
  CHECK(!Profiler::enabled);
  Profiler::reset();
  Profiler::enabled = true;
  Tensor a = Tensor::randn({4, 4}), b = Tensor::randn({4, 4});
  a.set_requires_grad(), b.set_requires_grad();
  sum(matmul(a, b)).backward();
  sum(matmul(a, b)).backward();
  Profiler::enabled = false;
  const std::string t = Profiler::table();
  INFO(t);
  // op, fwd ms, bwd ms, fwd n, bwd n, share: matmul ran forward and backward twice
  std::istringstream in(t.substr(t.find("\nmatmul")));
  std::string name;
  double fwd_ms = 0, bwd_ms = 0;
  long nf = 0, nb = 0;
  in >> name >> fwd_ms >> bwd_ms >> nf >> nb;
  CHECK(name == "matmul");
  CHECK(nf == 2);
  CHECK(nb == 2);
  CHECK(t.find("total") != std::string::npos);
  Profiler::reset();
  sum(matmul(a, b)).backward();  // off: nothing recorded
  CHECK(Profiler::table().find("matmul") == std::string::npos);
}

TEST_CASE("profiler: each op's times summed over its calls, the costliest op first, shares of the total") {
  // Guards a time overwritten by each call (counted but not summed) and the table sorted cheapest first.
  Profiler::reset();
  Profiler::record("cheap", false, 0.002), Profiler::record("cheap", false, 0.001);  // 3 ms forward, 2 calls
  Profiler::record("dear", false, 0.001), Profiler::record("dear", true, 0.004), Profiler::record("dear", true, 0.001);
  const std::string t = Profiler::table();
  Profiler::reset();
  INFO(t);
  // op, fwd ms, bwd ms, fwd n, bwd n, share: dear 1 + 5 = 6 ms of 9 (66.7%), then cheap 3 ms (33.3%)
  std::istringstream in(t.substr(t.find('\n') + 1));
  std::string name, share;
  double fwd_ms = 0, bwd_ms = 0;
  long nf = 0, nb = 0;
  in >> name >> fwd_ms >> bwd_ms >> nf >> nb >> share;
  CHECK(name == "dear");
  CHECK(fwd_ms == doctest::Approx(1.0));
  CHECK(bwd_ms == doctest::Approx(5.0));
  CHECK(nf == 1);
  CHECK(nb == 2);
  CHECK(share == "66.7%");
  in >> name >> fwd_ms >> bwd_ms >> nf >> nb >> share;
  CHECK(name == "cheap");
  CHECK(fwd_ms == doctest::Approx(3.0));
  CHECK(bwd_ms == 0.0);
  CHECK(nf == 2);
  CHECK(nb == 0);
  CHECK(share == "33.3%");
  CHECK(az::test::contains(t, "9.0 ms"));  // the total
}

TEST_CASE("blas: OpenBLAS's pthreads build gets a one-line notice naming the fix, its OpenMP and sequential builds none") {
  CHECK(blas_threading_notice(2) == "");  // OpenMP
  CHECK(blas_threading_notice(0) == "");  // sequential
  std::string n = blas_threading_notice(1);
  CHECK(az::test::contains(n, "pthreads build"));
  CHECK(az::test::contains(n, "update-alternatives --config libopenblas.so.0-"));
  CHECK(n.find('\n') == std::string::npos);
  // make deps installs the OpenMP build; a machine that selected another gets told here, not failed
  WARN_MESSAGE(blas_threading_notice() == "", blas_threading_notice());
}

TEST_CASE("a product split among threads by rows, columns or inner slices equals one sgemm") {
  // Every split, 2 to 5 parts (more than the machine's cores is allowed), every transpose pair,
  // beta 0 and 1, alpha 1 and 0.5, at a skinny shape like a linear layer's (M = B N rows).
  const int64_t M = 301, N = 97, K = 203;
  auto rnd = [](int64_t n, uint64_t seed) {
    Rng r(seed);
    Tensor t = Tensor::uniform({n}, -1, 1, r);
    return std::vector<float>(t.data(), t.data() + n);
  };
  std::vector<float> A = rnd(M * K, 1), B = rnd(K * N, 2), C0 = rnd(M * N, 3);
  for (GemmSplit split : {GemmSplit::Rows, GemmSplit::Columns, GemmSplit::Inner})
    for (int parts : {2, 3, 5})
      for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb)
          for (float beta : {0.0f, 1.0f}) {
            float alpha = parts == 3 ? 0.5f : 1.0f;
            CAPTURE(int(split));
            CAPTURE(parts);
            CAPTURE(ta);
            CAPTURE(tb);
            CAPTURE(beta);
            std::vector<float> want = C0, got = C0;
            sgemm_dense(ta, tb, M, N, K, A.data(), B.data(), beta, want.data(), alpha);
            sgemm_split({split, parts}, ta, tb, M, N, K, A.data(), B.data(), beta, got.data(), alpha);
            double worst = 0;
            for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, double(std::fabs(want[i] - got[i])));
            CHECK(worst < 1e-4);
          }
  // The choice: a linear layer's forward and dX split rows, its weight gradient the inner
  // dimension, a wide product columns; small products and one thread are not split.
  CHECK(gemm_split(8192, 384, 128, 16, 1 << 21).split == GemmSplit::Rows);    // Y = X W
  CHECK(gemm_split(8192, 128, 384, 16, 1 << 21).split == GemmSplit::Rows);    // dX = dY W^T
  CHECK(gemm_split(128, 384, 8192, 16, 1 << 21).split == GemmSplit::Inner);   // dW = X^T dY
  CHECK(gemm_split(128, 384, 8192, 2, 1 << 21).split == GemmSplit::Inner);    // (rows would do at 2, but move more)
  CHECK(gemm_split(64, 8192, 128, 16, 1 << 21).split == GemmSplit::Columns);  // a wide product
  CHECK(gemm_split(8192, 384, 128, 16, 1 << 21).parts == 16);
  CHECK(gemm_split(64, 64, 64, 16, 1 << 21).split == GemmSplit::None);
  CHECK(gemm_split(8192, 384, 128, 1, 1 << 21).split == GemmSplit::None);
  CHECK(gemm_split(1024, 128, 128, 16, 1 << 21).parts == 8);  // 2^24 multiply-adds: 8 parts of 2^21
}

// ---- forwards stated by hand ----------------------------------------------------------------------------
// gradcheck compares an op's backward with finite differences of its own forward, so a wrong forward
// with a consistent backward (both reading the same wrong elements) passes it.  These cases state the
// forward's value on a tiny input, worked out by hand (round r79l's planted bugs in the comments).
namespace {
void check_values(const Tensor& t, const Shape& shape, const std::vector<double>& want, double eps = 1e-5) {
  REQUIRE(t.shape() == shape);
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(t.data()[i] == doctest::Approx(want[i]).epsilon(eps));
  }
}
}  // namespace

TEST_CASE("by hand: transpose, narrow, concat, gather and scatter-add on 2x3 inputs") {
  // x [2,1,3] = 1..6: transpose(x, 0, 2) is [3,1,2] with y[k][0][i] = x[i][0][k]
  // (guards swapping a with its neighbour instead of b)
  Tensor x = Tensor::from({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  check_values(transpose(x, 0, 2), {3, 1, 2}, {1, 4, 2, 5, 3, 6});
  // [[0,1,2,3],[4,5,6,7]] narrowed to columns 1..2 is [[1,2],[5,6]]; its gradient lands there
  // (guards a narrow starting one element late in forward and backward alike)
  Tensor w = Tensor::from({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}).set_requires_grad();
  Tensor n = narrow(w, 1, 1, 2);
  check_values(n, {2, 2}, {1, 2, 5, 6});
  sum(n).backward();
  check_values(w.grad(), {2, 4}, {0, 1, 1, 0, 0, 1, 1, 0});
  // [[1],[2]] then [[3,4],[5,6]] along axis 1 is [[1,3,4],[2,5,6]] (guards the pieces laid out last first)
  Tensor a = Tensor::from({2, 1}, {1, 2}), b = Tensor::from({2, 2}, {3, 4, 5, 6});
  check_values(concat({a, b}, 1), {2, 3}, {1, 3, 4, 2, 5, 6});
  check_values(concat({b, a}, 1), {2, 3}, {3, 4, 1, 5, 6, 2});
  // gather along axis 1 of [[1,2,3],[4,5,6]] at [[2,0],[1,1]] is [[3,1],[5,5]]; scatter-adding
  // [[1,2],[3,4]] there into zeros gives [[2,0,1],[0,7,0]] (guards row 1's offset strided by the
  // index's 2 columns instead of the input's 3)
  Tensor g = Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6});
  IntTensor idx({2, 2}, {2, 0, 1, 1});
  check_values(gather(g, 1, idx), {2, 2}, {3, 1, 5, 5});
  check_values(scatter_add(Tensor::zeros({2, 3}), 1, idx, Tensor::from({2, 2}, {1, 2, 3, 4})), {2, 3}, {2, 0, 1, 0, 7, 0});
}

TEST_CASE("by hand: mean, max, add_scalar and size on [[1,2,3],[4,5,6]]") {
  Tensor x = Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6}).set_requires_grad();
  // column means (2.5, 3.5, 4.5), row means (2, 5), all 21/6 = 3.5; d mean(x, 0) / dx = 1/2
  // (guards dividing by the last dim's size or by the rows instead of the count)
  check_values(mean(x, 0), {3}, {2.5, 3.5, 4.5});
  check_values(mean(x, 1), {2}, {2, 5});
  CHECK(mean(x).item() == doctest::Approx(3.5));
  sum(mean(x, 0)).backward();
  check_values(x.grad(), {2, 3}, {0.5, 0.5, 0.5, 0.5, 0.5, 0.5});
  // max of [[1,5,2],[7,0,3]]: rows (5, 7), columns (7, 5, 3), all 7; the gradient goes to 5 and 7
  // (guards a flipped comparison: argmin, whose backward routes to the same wrong element)
  Tensor m = Tensor::from({2, 3}, {1, 5, 2, 7, 0, 3}).set_requires_grad();
  check_values(max(m, 0), {3}, {7, 5, 3});
  CHECK(max(m).item() == 7.0f);
  Tensor r = max(m, 1);
  check_values(r, {2}, {5, 7});
  sum(r).backward();
  check_values(m.grad(), {2, 3}, {0, 1, 0, 1, 0, 0});
  // (1, 2) + 3 = (4, 5) (guards a subtraction: the derivative 1 is the same)
  check_values(add_scalar(Tensor::from({2}, {1, 2}), 3.0f), {2}, {4, 5});
  // size(-1) of [3,5,7] is 7, size(-3) is 3 (guards counting negative axes from the wrong end)
  Tensor t = Tensor::zeros({3, 5, 7});
  CHECK(t.size(-1) == 7);
  CHECK(t.size(-2) == 5);
  CHECK(t.size(-3) == 3);
}

TEST_CASE("by hand: softmax of (0, ln 3) is (1/4, 3/4); far-apart logits do not overflow") {
  // rows (0, ln 3) and (ln 3, 0): (1/4, 3/4) and (3/4, 1/4) along the last axis
  const float l3 = std::log(3.0f);
  Tensor x = Tensor::from({2, 2}, {0, l3, l3, 0});
  check_values(softmax(x), {2, 2}, {0.25, 0.75, 0.75, 0.25});
  check_values(log_softmax(x), {2, 2}, {std::log(0.25), std::log(0.75), std::log(0.75), std::log(0.25)});
  // (0, 200, 200 - ln 3) is (0, 3/4, 1/4) (e^-200 is 0 in float): shifted by the first logit instead of
  // the max, both exponents pass exp's clamp at 88 and the row comes out (0, 1/2, 1/2)
  check_values(softmax(Tensor::from({3}, {0, 200, 200 - l3})), {3}, {0, 0.75, 0.25});
  check_values(softmax(Tensor::from({2}, {0, 1000})), {2}, {0, 1});
  // cross-entropy of rows (0, ln 3) at label 1 and (0, 0) at label 0, a third row ignored:
  // (-ln 3/4 + ln 2) / 2 = (0.287682 + 0.693147) / 2 (guards counting the ignored row)
  Tensor lg = Tensor::from({3, 2}, {0, l3, 0, 0, 5, -5});
  CHECK(cross_entropy(lg, IntTensor({3}, {1, 0, -100})).item() == doctest::Approx(0.4904146).epsilon(1e-5));
}

TEST_CASE("by hand: layer norm of (1, 3) is (-1, 1) / sqrt(1 + eps)") {
  // mean 2, biased variance 1: at eps = 1 the row is (-1, 1) / sqrt(2); epsilon added to the standard
  // deviation would give (-1, 1) / 2, the unbiased variance 2 gives (-1, 1) / sqrt(3)
  Tensor x = Tensor::from({1, 2}, {1, 3});
  Tensor one = Tensor::ones({2}), zero = Tensor::zeros({2});
  check_values(layer_norm(x, one, zero, 1.0f), {1, 2}, {-0.70710678, 0.70710678});
  // default eps 1e-5: (-1, 1) / sqrt(1.00001); gamma (2, 1) and beta (0, 10) give (-2, 11)
  check_values(layer_norm(x, Tensor::from({2}, {2, 1}), Tensor::from({2}, {0, 10})), {1, 2},
               {-2 / std::sqrt(1.00001), 10 + 1 / std::sqrt(1.00001)}, 1e-6);
}

TEST_CASE("by hand: Tensor::uniform stays in [lo, hi) and fills it; a root's gradient adds to the one it holds") {
  // 1000 draws from [2, 4): every one inside, the extremes near both ends (guards [lo, lo + hi))
  Rng r(11);
  Tensor u = Tensor::uniform({1000}, 2.0f, 4.0f, r);
  float lo = *std::min_element(u.data(), u.data() + 1000), hi = *std::max_element(u.data(), u.data() + 1000);
  CHECK(lo >= 2.0f);
  CHECK(lo < 2.1f);
  CHECK(hi < 4.0f);
  CHECK(hi > 3.9f);
  // a leaf as root, twice: (1, 1) then (2, 3) sum to (3, 4) (guards the seed overwriting)
  Tensor leaf = Tensor::from({2}, {5, 6}).set_requires_grad();
  leaf.backward(Tensor::from({2}, {1, 1}));
  leaf.backward(Tensor::from({2}, {2, 3}));
  check_values(leaf.grad(), {2}, {3, 4});
}
