// vecmath (autograd/runtime/vecmath.h): every vector kernel against its scalar
// reference, on every Highway target this machine runs (restrict_to each in
// turn), at lengths around each lane count, with NaN, +-Inf and the exp
// clamp's edges among the inputs.  Elementwise results agree to 1e-6
// relative; sums (whose order differs between lane counts) to 1e-6 of the sum
// of the terms' magnitudes.  Then the ops that call them (softmax, layer norm,
// GELU) against plain definitions on the AVX2 path as well as the best.
#include <cblas.h>
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/ops.h"
#include "autograd/runtime/rng.h"
#include "autograd/runtime/vecmath.h"
#include "attention/kernels/kernel_util.h"

using namespace az;

namespace {

const float kInf = std::numeric_limits<float>::infinity(), kNaN = std::numeric_limits<float>::quiet_NaN();
const int64_t kLengths[] = {0, 1, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 37, 64, 100, 255, 1000};

// n values: uniform in [lo, hi], and (specials) every 7th one a special value.
std::vector<float> data(int64_t n, float lo, float hi, uint64_t seed, bool specials) {
  Rng rng(seed);
  std::vector<float> v(static_cast<size_t>(n));
  const float sp[] = {kNaN, kInf, -kInf, 88.5f, -87.5f, 87.9f, -86.9f, 0.0f, -0.0f, 1e-30f, 0.62f, -0.63f, 100.0f};
  for (int64_t i = 0; i < n; ++i) {
    v[size_t(i)] = lo + (hi - lo) * rng.uniform();
    if (specials && i % 7 == 3) v[size_t(i)] = sp[(i / 7) % (sizeof sp / sizeof *sp)];
  }
  return v;
}

// a equals b: both NaN, or equal (Inf included), or within tol.
bool same(float a, float b, double tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(double(a) - double(b)) <= tol;
}
// Elementwise: 1e-6 relative (with a floor at the smallest normal floats).
void check_rel(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  for (size_t i = 0; i < want.size(); ++i) {
    double tol = 1e-6 * std::max(std::fabs(double(want[i])), 1e-30);
    INFO(what << "[" << i << "]: vector " << got[i] << ", reference " << want[i]);
    CHECK(same(got[i], want[i], tol));
  }
}
double mag_sum(const std::vector<float>& v) {
  double s = 0;
  for (float x : v)
    if (std::isfinite(x)) s += std::fabs(x);
  return s;
}

void check_all_kernels() {
  for (int64_t n : kLengths) {
    INFO("n = " << n);
    auto x = data(n, -10, 10, 1 + n, true), xs = data(n, -10, 10, 2 + n, false), g = data(n, -2, 2, 3 + n, false);
    auto m = data(n, -3, 3, 4 + n, false), keep(m), gam = data(n, 0.5, 2, 5 + n, false), bet = data(n, -1, 1, 6 + n, false);
    for (int64_t i = 0; i < n; ++i) keep[size_t(i)] = (i % 3 == 1) ? 0.0f : 1.0f;
    auto boolm = keep;  // 1 = excluded here
    std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    // max, copy_max, mask_max, keep_max: exact (max has no rounding)
    CHECK(vec::max(xs.data(), n) == vec::ref::max(xs.data(), n));
    CHECK(vec::copy_max(xs.data(), a.data(), n) == vec::ref::copy_max(xs.data(), b.data(), n));
    CHECK(a == b);
    for (bool is_bool : {true, false}) {
      const float* mk = is_bool ? boolm.data() : m.data();
      CHECK(vec::mask_max(xs.data(), mk, is_bool, a.data(), n) == vec::ref::mask_max(xs.data(), mk, is_bool, b.data(), n));
      CHECK(a == b);
    }
    CHECK(vec::keep_max(xs.data(), keep.data(), n) == vec::ref::keep_max(xs.data(), keep.data(), n));
    // exp_sum / exp_keep_sum: values and sums (shift by the max, as softmax does)
    float mx = vec::ref::max(xs.data(), n);
    if (n == 0) mx = 0;
    float s1 = vec::exp_sum(a.data(), xs.data(), mx, n), s2 = vec::ref::exp_sum(b.data(), xs.data(), mx, n);
    check_rel(a, b, "exp_sum");
    CHECK(same(s1, s2, 1e-6 * mag_sum(b)));
    CHECK(same(vec::exp_sum(nullptr, xs.data(), mx, n), s2, 1e-6 * mag_sum(b)));
    s1 = vec::exp_keep_sum(a.data(), xs.data(), keep.data(), mx, n);
    s2 = vec::ref::exp_keep_sum(b.data(), xs.data(), keep.data(), mx, n);
    check_rel(a, b, "exp_keep_sum");
    CHECK(same(s1, s2, 1e-6 * mag_sum(b)));
    // scale, dot, softmax_grad, mul_shift
    a = x, b = x;
    vec::scale(a.data(), 0.37f, n), vec::ref::scale(b.data(), 0.37f, n);
    check_rel(a, b, "scale");
    std::vector<float> prod(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) prod[size_t(i)] = xs[size_t(i)] * g[size_t(i)];
    CHECK(same(vec::dot(xs.data(), g.data(), n), vec::ref::dot(xs.data(), g.data(), n), 1e-6 * mag_sum(prod) + 1e-30));
    a = m, b = m;
    vec::softmax_grad(a.data(), xs.data(), g.data(), 0.3f, n), vec::ref::softmax_grad(b.data(), xs.data(), g.data(), 0.3f, n);
    for (int64_t i = 0; i < n; ++i)  // one rounding more or less in the fused multiply-add: relative to the terms
      CHECK(same(a[size_t(i)], b[size_t(i)], 1e-6 * (std::fabs(m[size_t(i)]) + std::fabs(xs[size_t(i)] * (g[size_t(i)] - 0.3f)))));
    a = m, b = g;  // overwrite mode: gx's old contents must not matter
    vec::softmax_grad(a.data(), xs.data(), g.data(), 0.3f, n, false), vec::ref::softmax_grad(b.data(), xs.data(), g.data(), 0.3f, n, false);
    for (int64_t i = 0; i < n; ++i)
      CHECK(same(a[size_t(i)], b[size_t(i)], 1e-6 * std::fabs(xs[size_t(i)] * (g[size_t(i)] - 0.3f))));
    a = g, b = g;
    vec::mul_shift(a.data(), x.data(), 0.3f, n), vec::ref::mul_shift(b.data(), x.data(), 0.3f, n);
    check_rel(a, b, "mul_shift");
    // elementwise maps, specials included
    vec::exp(x.data(), a.data(), n), vec::ref::exp(x.data(), b.data(), n);
    check_rel(a, b, "exp");
    auto big = data(n, -100, 100, 7 + n, true);
    vec::exp(big.data(), a.data(), n), vec::ref::exp(big.data(), b.data(), n);
    check_rel(a, b, "exp wide");
    vec::tanh(x.data(), a.data(), n), vec::ref::tanh(x.data(), b.data(), n);
    check_rel(a, b, "tanh");
    vec::elu1(big.data(), a.data(), n), vec::ref::elu1(big.data(), b.data(), n);
    check_rel(a, b, "elu1");
    {  // per-entry shifts and a running column sum
      std::vector<float> acc1 = g, acc2 = g;
      vec::exp_shift_acc(a.data(), x.data(), m.data(), acc1.data(), n);
      vec::ref::exp_shift_acc(b.data(), x.data(), m.data(), acc2.data(), n);
      check_rel(a, b, "exp_shift_acc");
      check_rel(acc1, acc2, "exp_shift_acc sum");
    }
    auto near0 = data(n, -1, 1, 8 + n, true);
    vec::tanh(near0.data(), a.data(), n), vec::ref::tanh(near0.data(), b.data(), n);
    check_rel(a, b, "tanh near 0");
    vec::gelu(x.data(), a.data(), n), vec::ref::gelu(x.data(), b.data(), n);
    check_rel(a, b, "gelu");
    a.assign(size_t(n), 0.0f), b.assign(size_t(n), 0.0f);
    vec::gelu_grad(x.data(), g.data(), a.data(), n), vec::ref::gelu_grad(x.data(), g.data(), b.data(), n);
    for (int64_t i = 0; i < n; ++i)  // relative to |g| (the derivative is O(1) and crosses 0 near x = -0.75)
      CHECK(same(a[size_t(i)], b[size_t(i)], 1e-6 * std::fabs(g[size_t(i)]) * std::max(1.0f, std::fabs(b[size_t(i)]))));
    std::vector<float> c = m;  // overwrite mode equals adding into zeros
    vec::gelu_grad(x.data(), g.data(), c.data(), n, false);
    for (int64_t i = 0; i < n; ++i) CHECK(same(c[size_t(i)], a[size_t(i)], 0.0));
    // layer norm row and its gradient
    if (n > 0) {
      float mu1, r1, mu2, r2;
      vec::layer_norm_row(xs.data(), gam.data(), bet.data(), 1e-5f, a.data(), n, &mu1, &r1);
      vec::ref::layer_norm_row(xs.data(), gam.data(), bet.data(), 1e-5f, b.data(), n, &mu2, &r2);
      CHECK(same(mu1, mu2, 1e-6 * mag_sum(xs) / double(n)));
      CHECK(same(r1, r2, 1e-6 * r2));
      for (int64_t i = 0; i < n; ++i) CHECK(same(a[size_t(i)], b[size_t(i)], 1e-6 * (2 * std::fabs(b[size_t(i)]) + 1)));
      std::vector<float> gx1 = m, gx2 = m, dg1 = gam, dg2 = gam, db1 = bet, db2 = bet;
      vec::layer_norm_grad_row(xs.data(), g.data(), gam.data(), mu2, r2, gx1.data(), dg1.data(), db1.data(), n);
      vec::ref::layer_norm_grad_row(xs.data(), g.data(), gam.data(), mu2, r2, gx2.data(), dg2.data(), db2.data(), n);
      double gs = 0;  // the gradient's scale: rstd times the mean |g gamma| terms
      for (int64_t i = 0; i < n; ++i) gs += std::fabs(g[size_t(i)] * gam[size_t(i)]) * 4;
      gs = r2 * gs / double(n) + 1;
      for (int64_t i = 0; i < n; ++i) {
        CHECK(same(gx1[size_t(i)], gx2[size_t(i)], 1e-6 * (std::fabs(gx2[size_t(i)]) + gs)));
        CHECK(same(dg1[size_t(i)], dg2[size_t(i)], 1e-6 * (std::fabs(dg2[size_t(i)]) + 1)));
        CHECK(db1[size_t(i)] == db2[size_t(i)]);
      }
      std::vector<float> gx3 = g, gx4(static_cast<size_t>(n), 0.0f);  // overwrite mode equals adding into zeros
      dg1 = gam, db1 = bet;
      vec::layer_norm_grad_row(xs.data(), g.data(), gam.data(), mu2, r2, gx3.data(), dg1.data(), db1.data(), n, false);
      dg1 = gam, db1 = bet;
      vec::layer_norm_grad_row(xs.data(), g.data(), gam.data(), mu2, r2, gx4.data(), dg1.data(), db1.data(), n);
      CHECK(gx3 == gx4);
      dg1 = gam, db1 = bet;  // without gx: only the parameter gradients
      vec::layer_norm_grad_row(xs.data(), g.data(), gam.data(), mu2, r2, nullptr, dg1.data(), db1.data(), n);
      for (int64_t i = 0; i < n; ++i) CHECK(same(dg1[size_t(i)], dg2[size_t(i)], 1e-6 * (std::fabs(dg2[size_t(i)]) + 1)));
    }
  }
}

}  // namespace

TEST_CASE("the scalar references are the math they stand for") {
  for (float x : {-80.0f, -10.0f, -1.0f, -1e-3f, 0.0f, 1e-4f, 0.5f, 3.0f, 40.0f, 88.0f}) {
    CHECK(fast_exp(x) == doctest::Approx(std::exp(double(x))).epsilon(2e-7));
    CHECK(fast_tanh(x) == doctest::Approx(std::tanh(double(x))).epsilon(4e-7));
    double u = 0.7978845608028654 * (x + 0.044715 * double(x) * x * x);
    CHECK(fast_gelu(x) == doctest::Approx(0.5 * x * (1 + std::tanh(u))).epsilon(1e-6).scale(1e-25));  // (the cap at x < -5.3)
    double t = std::tanh(u), dg = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * 0.7978845608028654 * (1 + 3 * 0.044715 * x * x);
    CHECK(fast_gelu_grad(x) == doctest::Approx(dg).epsilon(1e-6).scale(1));
  }
  CHECK(fast_exp(-kInf) == 0.0f);
  CHECK(std::isnan(fast_exp(kNaN)));
  CHECK(std::isnan(fast_tanh(kNaN)));
  CHECK(fast_tanh(kInf) == 1.0f);
  CHECK(fast_tanh(-kInf) == -1.0f);
  CHECK(fast_tanh(1e-20f) == 1e-20f);  // no cancellation at 0
}

TEST_CASE("every vector kernel equals its scalar reference on every target this CPU runs") {
  auto ts = vec::targets();
  REQUIRE(!ts.empty());
  std::string names;
  for (int64_t t : ts) names += vec::target_name(t) + " ";
  MESSAGE("targets: " << names);
  for (int64_t t : ts) {
    vec::restrict_to(t);
    INFO("target " << vec::target_name(t));
    CHECK(vec::current_target() == vec::target_name(t));
    check_all_kernels();
  }
  vec::restrict_to(0);
  CHECK(vec::current_target() == vec::target_name(ts.front()));
}

TEST_CASE("softmax, layer norm, GELU, sigmoid and ELU ops give the same values and gradients on every target") {
  Rng rng(7);
  Tensor x = Tensor::uniform({6, 37}, -4, 4, rng), g = Tensor::uniform({6, 37}, -1, 1, rng);
  Tensor gam = Tensor::uniform({37}, 0.5, 1.5, rng), bet = Tensor::uniform({37}, -1, 1, rng);
  Tensor mask = Tensor::zeros({6, 37});
  for (int64_t i = 0; i < 37; i += 4) mask.data()[2 * 37 + i] = 1.0f;  // one row partly padded
  for (int64_t i = 0; i < 37; ++i) mask.data()[4 * 37 + i] = 1.0f;     // one row all padded -> zeros
  std::vector<std::vector<float>> first;
  for (int64_t t : vec::targets()) {
    vec::restrict_to(t);
    INFO("target " << vec::target_name(t));
    std::vector<std::vector<float>> got;
    auto run = [&](auto f) {
      Tensor xi = x.detach().set_requires_grad();
      Tensor y = f(xi);
      y.backward(g);
      got.emplace_back(y.data(), y.data() + y.numel());
      got.emplace_back(xi.grad().data(), xi.grad().data() + xi.numel());
    };
    run([&](const Tensor& v) { return softmax(v, mask, true); });
    run([&](const Tensor& v) { return layer_norm(v, gam, bet); });
    run([&](const Tensor& v) { return gelu(v); });
    // plain definitions on row 2 (softmax over the unpadded keys) and everywhere (gelu)
    double z = 0, mx = -1e30;
    for (int64_t j = 0; j < 37; ++j)
      if (j % 4) mx = std::max(mx, double(x.data()[2 * 37 + j]));
    for (int64_t j = 0; j < 37; ++j)
      if (j % 4) z += std::exp(x.data()[2 * 37 + j] - mx);
    for (int64_t j = 0; j < 37; ++j) {
      double want = j % 4 ? std::exp(x.data()[2 * 37 + j] - mx) / z : 0.0;
      CHECK(got[0][size_t(2 * 37 + j)] == doctest::Approx(want).epsilon(1e-6).scale(1e-30));
      CHECK(got[0][size_t(4 * 37 + j)] == 0.0f);
    }
    for (int64_t i = 0; i < x.numel(); ++i) {
      double v = x.data()[i], u = 0.7978845608028654 * (v + 0.044715 * v * v * v);
      // 1e-5: float rounding of u is amplified by |2u| (up to 16 here) in exp(-2u)
      CHECK(got[4][size_t(i)] == doctest::Approx(0.5 * v * (1 + std::tanh(u))).epsilon(1e-5).scale(1e-30));
    }
    Tensor sg = sigmoid(x), el = elu(x);  // exp through the vector kernel, the rest around it
    for (int64_t i = 0; i < x.numel(); ++i) {
      double v = x.data()[i];
      CHECK(sg.data()[i] == doctest::Approx(1 / (1 + std::exp(-v))).epsilon(1e-6));
      CHECK(el.data()[i] == doctest::Approx(v > 0 ? v : std::expm1(v)).epsilon(1e-6).scale(1));
    }
    if (first.empty()) first = got;
    // To 1e-6 of each output's largest entry: layer norm's values and all gradients are
    // differences (x gamma + beta, g - mean), with sums whose order differs by lane count.
    // (softmax and GELU values were checked to 1e-6 relative above.)
    for (size_t k = 0; k < got.size(); ++k) {
      double top = 0;
      for (float v : first[k]) top = std::max(top, double(std::fabs(v)));
      for (size_t i = 0; i < got[k].size(); ++i)
        CHECK(got[k][i] == doctest::Approx(first[k][i]).epsilon(1e-6).scale(top));
    }
  }
  vec::restrict_to(0);
}

// The feature maps of attention/kernels/kernel_util.cpp (FAVOR+, elu + 1, softmax over positions) run
// their exps through the vector kernels; here each equals the scalar loop it replaced.
TEST_CASE("favor, elu + 1 and softmax over positions equal their former scalar loops on every target") {
  Rng rng(11);
  const int64_t B = 2, H = 2, N = 7, m = 37, d = 5;
  Tensor u = Tensor::uniform({B, H, N, m}, -6, 3, rng), x = Tensor::uniform({B, H, N, d}, -1, 1, rng);
  Tensor pad = Tensor::zeros({B, N});
  pad.data()[N - 1] = pad.data()[N - 3] = pad.data()[N + 2] = 1.0f;  // padded keys in both examples
  const float s = 0.7f, r = 1.0f / std::sqrt(float(m));
  const float* U = u.data();
  for (int64_t t : vec::targets()) {
    vec::restrict_to(t);
    INFO("target " << vec::target_name(t));
    // queries, stabilised: r exp(u - max(u)) per row
    Tensor fq = favor_features(u, x, s, true, Tensor());
    for (int64_t row = 0; row < B * H * N; ++row) {
      float mx = *std::max_element(U + row * m, U + (row + 1) * m);
      for (int64_t j = 0; j < m; ++j)
        CHECK(fq.data()[row * m + j] == doctest::Approx(r * fast_exp(U[row * m + j] - mx)).epsilon(1e-6));
    }
    // keys, constant shift: r exp(u - s^2 |x|^2 / 2 - shift), padded rows 0
    Tensor fk = favor_features(u, x, s, false, pad, false, 0.3f);
    for (int64_t row = 0; row < B * H * N; ++row) {
      float h = 0;
      for (int64_t k = 0; k < d; ++k) h += x.data()[row * d + k] * x.data()[row * d + k];
      bool padded = pad.data()[(row / (H * N)) * N + row % N] != 0;
      for (int64_t j = 0; j < m; ++j) {
        float want = padded ? 0.0f : r * fast_exp(U[row * m + j] - (0.5f * s * s * h + 0.3f));
        CHECK(fk.data()[row * m + j] == doctest::Approx(want).epsilon(1e-6));
      }
    }
    Tensor e = elu1_features(u, pad);
    for (int64_t i = 0; i < u.numel(); ++i) {
      int64_t row = i / m;
      bool padded = pad.data()[(row / (H * N)) * N + row % N] != 0;
      float want = padded ? 0.0f : (U[i] > 0 ? U[i] + 1.0f : fast_exp(U[i]));
      CHECK(e.data()[i] == doctest::Approx(want).epsilon(1e-6));
    }
    Tensor sp = softmax_positions(u, pad);  // per (example, head, column): over the real positions
    for (int64_t g = 0; g < B * H; ++g)
      for (int64_t j = 0; j < m; ++j) {
        const float* P = pad.data() + (g / H) * N;
        float mx = -kInf, z = 0;
        for (int64_t n = 0; n < N; ++n)
          if (P[n] == 0) mx = std::max(mx, U[(g * N + n) * m + j]);
        for (int64_t n = 0; n < N; ++n)
          if (P[n] == 0) z += fast_exp(U[(g * N + n) * m + j] - mx);
        for (int64_t n = 0; n < N; ++n) {
          float want = P[n] == 0 ? fast_exp(U[(g * N + n) * m + j] - mx) / z : 0.0f;
          CHECK(sp.data()[(g * N + n) * m + j] == doctest::Approx(want).epsilon(1e-6));
        }
      }
  }
  vec::restrict_to(0);
}

// autograd/ops_matmul.cpp runs products of at most kGemmThreadMin multiply-adds on one thread
// by lowering OpenBLAS's thread count for the call (its setter also sets OpenMP's): both
// counts must come back, or every later parallel loop would run on one thread.
TEST_CASE("a small matmul runs single-threaded and leaves the OpenMP and OpenBLAS thread counts as they were") {
  int before = omp_get_max_threads();
  omp_set_num_threads(2);
  openblas_set_num_threads(2);
  Rng rng(3);
  Tensor a = Tensor::uniform({64, 32}, -1, 1, rng), b = Tensor::uniform({32, 48}, -1, 1, rng);
  Tensor c = matmul(a, b);
  CHECK(omp_get_max_threads() == 2);
  CHECK(openblas_get_num_threads() == 2);
  double want = 0;
  for (int64_t k = 0; k < 32; ++k) want += double(a.data()[5 * 32 + k]) * b.data()[k * 48 + 7];
  CHECK(c.data()[5 * 48 + 7] == doctest::Approx(want).epsilon(1e-5));
  omp_set_num_threads(before);
  openblas_set_num_threads(before);
}

TEST_CASE("vectorised dropout keeps exactly DropoutMask's elements on every target, at every offset and length") {
  // The mask is part of a run's reproducibility (checkpoints resume it; MPI ranks split it), so
  // the vector hash must be bit-for-bit DropoutMask::keep, not merely another good hash.
  Rng rng(11);
  for (float p : {0.1f, 0.5f, 0.9f}) {
    DropoutMask m = DropoutMask::draw(p, rng, 0, 1000);
    m.base = 123456789;  // as under data parallelism: elements counted from a shard's first
    std::vector<float> x(300), want(300), got(300), acc(300, 1.0f), want_acc(300);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) * 0.25f - 30.0f;
    for (int64_t t : vec::targets()) {
      vec::restrict_to(t);
      INFO("target " << vec::target_name(t) << ", p " << p);
      for (int64_t first : {0, 1, 7, 64, 255})
        for (int64_t n : {1, 3, 8, 17, 64, 65, 200}) {
          if (first + n > 300) continue;
          for (int64_t j = 0; j < n; ++j) {
            bool keep = m.keep(uint64_t(first + j));
            want[size_t(j)] = keep ? x[size_t(first + j)] * m.scale : 0.0f;
            want_acc[size_t(j)] = 1.0f + want[size_t(j)];
          }
          vec::dropout(x.data() + first, got.data(), n, m.key, m.base + uint64_t(first), m.thresh, m.scale);
          std::fill(acc.begin(), acc.end(), 1.0f);
          vec::dropout(x.data() + first, acc.data(), n, m.key, m.base + uint64_t(first), m.thresh, m.scale, true);
          bool same = true;
          for (int64_t j = 0; j < n; ++j) same = same && got[size_t(j)] == want[size_t(j)] && acc[size_t(j)] == want_acc[size_t(j)];
          CHECK(same);
        }
    }
  }
  vec::restrict_to(0);
}
