// Low-rank, kernel and synthetic attention: linformer, compressed, linear,
// efficient, rfa, performer, synthesizer, and the fused kernel ops they share.
// Every fast form is compared (forward and gradients) with an explicit N x N
// computation of the same function built from plain ops.
#include <algorithm>
#include <cmath>
#include <limits>

#include "attention/kernels/kernel_util.h"
#include "tests/attention_check.h"

using namespace az;
using namespace az::testing;

namespace {

std::shared_ptr<Attention> make(const std::string& name, int64_t dim, int64_t heads, int64_t max_len,
                                std::map<std::string, double> knobs = {}, bool causal = false) {
  AttentionConfig c;
  c.dim = dim, c.heads = heads, c.max_len = max_len, c.causal = causal, c.knobs = knobs;
  auto a = make_attention(name, c);
  a->eval();  // fixed random features: every call computes the same function
  return a;
}

Tensor lin(const Module& m, const std::string& name, const Tensor& in) {
  return add(matmul(in, find_param(m, name + ".weight")), find_param(m, name + ".bias"));
}

struct Heads {
  Tensor q, k, v;  // [B,H,N,d]
};
Heads heads_of(const Module& m, const Tensor& x, int64_t H) {
  return {split_heads(lin(m, "proj.q", x), H), split_heads(lin(m, "proj.k", x), H), split_heads(lin(m, "proj.v", x), H)};
}

Tensor buffer(const Module& m, const std::string& name) {
  for (auto& b : m.named_buffers())
    if (b.name == name) return b.tensor;
  FAIL("no buffer named " << name);
  return Tensor();
}

// [N,N] with 1 on and below the diagonal.
Tensor lower(int64_t n) {
  Tensor t = Tensor::zeros({n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) t.data()[i * n + j] = 1.0f;
  return t;
}

// The explicit N x N form: A = phi_q phi_k^T (masked), out = A v / nrm(rowsum A).
Tensor explicit_kernel(const Tensor& pq, const Tensor& pk, const Tensor& v, bool causal, float eps, bool clamp) {
  int64_t N = pq.size(-2);
  Tensor a = matmul(pq, pk, false, true);
  if (causal) a = mul(a, lower(N));
  Tensor den = sum(a, -1, true);
  Tensor nrm;
  if (clamp) {
    Tensor below = Tensor::zeros(den.shape());
    for (int64_t i = 0; i < den.numel(); ++i) below.data()[i] = den.data()[i] < eps ? 1.0f : 0.0f;
    nrm = where(below, Tensor::full(den.shape(), eps), den);
  } else {
    nrm = add_scalar(den, eps);
  }
  return div(matmul(a, v), nrm);
}

// The reordered product from composed ops (non-causal only): phi_q (phi_k^T v) / (phi_q . sum phi_k + eps).
Tensor composed_kernel(const Tensor& pq, const Tensor& pk, const Tensor& v, float eps) {
  Tensor s = matmul(pk, v, true, false);                   // [..,m,d]
  Tensor z = sum(pk, -2, true);                            // [..,1,m]
  Tensor den = add_scalar(matmul(pq, z, false, true), eps);  // [..,N,1]
  return div(matmul(pq, s), den);
}

// Outputs and input gradients of two functions of the same inputs agree.
void check_same(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                const std::function<Tensor(const std::vector<Tensor>&)>& g, std::vector<Tensor> in, double tol) {
  Rng r(9);
  auto run = [&](const std::function<Tensor(const std::vector<Tensor>&)>& fn, std::vector<Tensor>& grads) {
    for (auto& t : in) t.zero_grad();
    Tensor y = fn(in);
    Tensor probe = Tensor::randn(y.shape(), 1.0f, r);
    sum(mul(y, probe)).backward();
    grads.clear();
    for (auto& t : in) grads.push_back(t.has_grad() ? t.grad().clone() : Tensor::zeros(t.shape()));
    return y.detach();
  };
  std::vector<Tensor> gf, gg;
  Rng keep = r;
  Tensor yf = run(f, gf);
  r = keep;  // the same probe for both
  Tensor yg = run(g, gg);
  check_close(yf, yg, tol, "forward");
  for (size_t i = 0; i < in.size(); ++i) check_close(gf[i], gg[i], tol * 10, "gradient of input " + std::to_string(i));
}

// check_gradients with a smaller step, for functions with kinks (relu, the clamped
// normaliser) that a step of 1e-2 may straddle.
void check_gradients_fine(Module& m, const std::function<Tensor(const Tensor&)>& f, const Tensor& x) {
  std::vector<Tensor> in = {x};
  for (auto& p : m.named_parameters()) in.push_back(p.tensor);
  GradcheckResult r = gradcheck([&](const std::vector<Tensor>&) { return f(x); }, in, 1e-3, 5e-3, 3e-2);
  INFO("gradcheck worst: " << r.worst);
  CHECK(r.ok);
}

Tensor uniform(const Shape& s, float lo, float hi, uint64_t seed) {
  Rng r(seed);
  return Tensor::uniform(s, lo, hi, r).set_requires_grad();
}

// Copies x with the padded positions of every example given new random values.
Tensor scramble_padding(const Tensor& x, const Tensor& pad) {
  Tensor y = x.clone();
  Rng r(4242);
  int64_t D = x.size(2);
  for (int64_t i = 0; i < pad.numel(); ++i)
    if (pad.data()[i] != 0)
      for (int64_t t = 0; t < D; ++t) y.data()[i * D + t] = 3.0f * r.normal();
  return y;
}

// FAVOR+ written out from its formula in double, with no stabiliser and no epsilon:
//   phi(x) = m^-1/2 exp(W x^ - |x^|^2 / 2),  x^ = d^-1/4 x,
//   out_i = sum_j A_ij v_j / sum_j A_ij,  A_ij = phi(q_i).phi(k_j) over the real keys (j <= i when causal).
// q, k, v [B,H,N,d], W [m,d], pad [B,N]; returns out [B,H,N,d] as doubles.
std::vector<double> favor_explicit(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& w,
                                   const Tensor& pad, bool causal) {
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2), d = q.size(3), m = w.size(0);
  const double s = std::pow(double(d), -0.25);
  auto phi = [&](const float* x, std::vector<double>& out) {
    double h = 0;
    for (int64_t t = 0; t < d; ++t) h += s * x[t] * s * x[t] / 2;
    for (int64_t j = 0; j < m; ++j) {
      double u = 0;
      for (int64_t t = 0; t < d; ++t) u += double(w.data()[j * d + t]) * s * x[t];
      out[size_t(j)] = std::exp(u - h) / std::sqrt(double(m));
    }
  };
  std::vector<double> out(size_t(B * H * N * d), 0.0), pq(static_cast<size_t>(m)), pk(static_cast<size_t>(m));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t hh = 0; hh < H; ++hh)
      for (int64_t i = 0; i < N; ++i) {
        int64_t row = (b * H + hh) * N;
        phi(q.data() + (row + i) * d, pq);
        double den = 0;
        std::vector<double> num(size_t(d), 0.0);
        for (int64_t j = 0; j < N; ++j) {
          if (pad.data()[b * N + j] != 0 || (causal && j > i)) continue;
          phi(k.data() + (row + j) * d, pk);
          double a = 0;
          for (int64_t t = 0; t < m; ++t) a += pq[size_t(t)] * pk[size_t(t)];
          den += a;
          for (int64_t t = 0; t < d; ++t) num[size_t(t)] += a * v.data()[(row + j) * d + t];
        }
        for (int64_t t = 0; t < d; ++t) out[size_t((row + i) * d + t)] = num[size_t(t)] / den;
      }
  return out;
}

// A performer with an identity output projection (so forward gives the heads' outputs, merged).
std::shared_ptr<Attention> bare_performer(int64_t dim, int64_t heads, int64_t m, bool causal) {
  auto att = make("performer", dim, heads, 64, {{"features", double(m)}}, causal);
  Tensor wo = find_param(*att, "proj.o.weight"), bo = find_param(*att, "proj.o.bias");
  for (int64_t i = 0; i < wo.numel(); ++i) wo.data()[i] = i / dim == i % dim ? 1.0f : 0.0f;
  for (int64_t i = 0; i < bo.numel(); ++i) bo.data()[i] = 0.0f;
  return att;
}

}  // namespace

// ---- the fused ops ------------------------------------------------------------------------------

TEST_CASE("kernel_attention equals the explicit N x N product and the composed reordering") {
  for (bool causal : {false, true})
    for (int64_t chunk : {8, 64}) {
      CAPTURE(causal);
      CAPTURE(chunk);
      std::vector<Tensor> in = {uniform({2, 3, 37, 5}, 0.05f, 1.0f, 1), uniform({2, 3, 37, 5}, 0.05f, 1.0f, 2),
                                uniform({2, 3, 37, 4}, -1.0f, 1.0f, 3)};
      auto fast = [&](const std::vector<Tensor>& t) { return kernel_attention(t[0], t[1], t[2], causal, 1e-6f, KernelNorm::add_eps, chunk); };
      auto ref = [&](const std::vector<Tensor>& t) { return explicit_kernel(t[0], t[1], t[2], causal, 1e-6f, false); };
      check_same(fast, ref, in, 1e-5);
      if (!causal)
        check_same(fast, [&](const std::vector<Tensor>& t) { return composed_kernel(t[0], t[1], t[2], 1e-6f); }, in, 1e-5);
    }
}

TEST_CASE("kernel_attention with the clamped normaliser (features of either sign)") {
  for (bool causal : {false, true}) {
    std::vector<Tensor> in = {uniform({2, 21, 6}, -1.0f, 1.0f, 4), uniform({2, 21, 6}, -1.0f, 1.0f, 5),
                              uniform({2, 21, 3}, -1.0f, 1.0f, 6)};
    // the floor 0.5 is active on some rows (the first causal rows sum few keys) and not on others
    auto fast = [&](const std::vector<Tensor>& t) { return kernel_attention(t[0], t[1], t[2], causal, 0.5f, KernelNorm::clamp, 4); };
    auto ref = [&](const std::vector<Tensor>& t) { return explicit_kernel(t[0], t[1], t[2], causal, 0.5f, true); };
    check_same(fast, ref, in, 1e-5);
    Tensor w = kernel_weights(in[0], in[1], causal, 0.5f, KernelNorm::clamp);  // the implied matrix applied to v
    NoGradGuard ng;
    check_close(matmul(w, in[2]), fast(in), 1e-5, "kernel_weights x v");
  }
}

TEST_CASE("kernel_attention: gradient check, causal and not, both normalisers") {
  for (bool causal : {false, true})
    for (KernelNorm norm : {KernelNorm::add_eps, KernelNorm::clamp}) {
      std::vector<Tensor> in = {uniform({2, 9, 3}, 0.1f, 1.0f, 7), uniform({2, 9, 3}, 0.1f, 1.0f, 8),
                                uniform({2, 9, 2}, -1.0f, 1.0f, 9)};
      float eps = norm == KernelNorm::clamp ? 0.3f : 1e-6f;
      auto r = gradcheck([&](const std::vector<Tensor>& t) { return kernel_attention(t[0], t[1], t[2], causal, eps, norm, 4); },
                         in, 1e-3, 2e-3, 2e-2);
      INFO(r.worst);
      CHECK(r.ok);
    }
  // a deliberately wrong gradient must be caught: flip the sign of v's
  std::vector<Tensor> in = {uniform({1, 5, 3}, 0.1f, 1.0f, 10), uniform({1, 5, 3}, 0.1f, 1.0f, 11),
                            uniform({1, 5, 2}, -1.0f, 1.0f, 12)};
  auto wrong = [&](const std::vector<Tensor>& t) {
    Tensor vd = t[2].detach();
    return add(kernel_attention(t[0], t[1], vd, true), mul_scalar(sub(t[2], vd), -1.0f));  // d/dv replaced by -1
  };
  CHECK_FALSE(gradcheck(wrong, in, 1e-3).ok);
}

TEST_CASE("softmax_attention equals dense_attention: padding, ragged chunks, dropout; gradient check") {
  Tensor pad = padding(37, {37, 20});
  pad.data()[37 + 3] = 1.0f;  // a hole, not only a tail
  Tensor all = Tensor::ones({2, 37});
  for (const Tensor& kp : {Tensor(), pad, all}) {
    std::vector<Tensor> in = {uniform({2, 3, 300, 5}, -1.0f, 1.0f, 21), uniform({2, 3, 37, 5}, -1.0f, 1.0f, 22),
                              uniform({2, 3, 37, 4}, -1.0f, 1.0f, 23)};
    auto fast = [&](const std::vector<Tensor>& t) { return softmax_attention(t[0], t[1], t[2], kp, 0.6f); };
    auto ref = [&](const std::vector<Tensor>& t) {
      return dense_attention(t[0], t[1], t[2], kp.defined() ? key_mask(kp) : Tensor(), 0.6f);
    };
    check_same(fast, ref, in, 1e-5);
    // dropout: the same draw gives the same mask as dropout() on the dense weights
    check_same(
        [&](const std::vector<Tensor>& t) {
          global_rng().seed_with(8);
          return softmax_attention(t[0], t[1], t[2], kp, 0.6f, 0.3f, true);
        },
        [&](const std::vector<Tensor>& t) {
          global_rng().seed_with(8);
          return dense_attention(t[0], t[1], t[2], kp.defined() ? key_mask(kp) : Tensor(), 0.6f, 0.3f, true);
        },
        in, 1e-5);
  }
  // causal (N = M), with padding, across chunk boundaries
  std::vector<Tensor> in = {uniform({2, 2, 300, 5}, -1.0f, 1.0f, 27), uniform({2, 2, 300, 5}, -1.0f, 1.0f, 28),
                            uniform({2, 2, 300, 4}, -1.0f, 1.0f, 29)};
  Tensor cpad = padding(300, {300, 250});
  Tensor cmask = add(key_mask(cpad), reshape(causal_mask(300), {1, 1, 300, 300}));
  check_same([&](const std::vector<Tensor>& t) { return softmax_attention(t[0], t[1], t[2], cpad, 0.6f, 0.0f, false, true); },
             [&](const std::vector<Tensor>& t) { return dense_attention(t[0], t[1], t[2], cmask, 0.6f); }, in, 1e-5);
  for (bool causal : {false, true}) {
    std::vector<Tensor> small = {uniform({2, 5, 3}, -1.0f, 1.0f, 24), uniform({2, 5, 3}, -1.0f, 1.0f, 25),
                                 uniform({2, 5, 2}, -1.0f, 1.0f, 26)};
    auto r = gradcheck(
        [&](const std::vector<Tensor>& t) { return softmax_attention(t[0], t[1], t[2], padding(5, {5, 3}), 0.8f, 0.0f, false, causal); },
        small, 1e-3);
    INFO(r.worst);
    CHECK(r.ok);
  }
}

TEST_CASE("feature maps: gradient checks of favor, sincos, l2_normalize, elu+1, softmax over positions") {
  Tensor pad = padding(7, {7, 4});
  Tensor u = uniform({2, 2, 7, 5}, -1.0f, 1.0f, 13), x = uniform({2, 2, 7, 3}, -1.0f, 1.0f, 14);
  for (bool is_query : {true, false})
    for (bool stabilise : {false, true}) {  // with the stabiliser, its max carries a gradient too
      auto r = gradcheck(
          [&](const std::vector<Tensor>& t) { return favor_features(t[0], t[1], 0.7f, is_query, pad, stabilise, 0.3f); },
          {u, x}, 1e-3);
      INFO(r.worst);
      CHECK(r.ok);
    }
  auto r = gradcheck([&](const std::vector<Tensor>& t) { return sincos_features(t[0], pad); }, {u}, 1e-3);
  INFO(r.worst);
  CHECK(r.ok);
  r = gradcheck([&](const std::vector<Tensor>& t) { return l2_normalize(t[0]); }, {x}, 1e-3);
  INFO(r.worst);
  CHECK(r.ok);
  r = gradcheck([&](const std::vector<Tensor>& t) { return elu1_features(t[0], pad); }, {u}, 1e-3);
  INFO(r.worst);
  CHECK(r.ok);
  r = gradcheck([&](const std::vector<Tensor>& t) { return softmax_positions(t[0], pad); }, {u}, 1e-3);
  INFO(r.worst);
  CHECK(r.ok);
  {  // against the composed forms
    NoGradGuard ng;
    Tensor keep = key_keep(pad);
    check_close(elu1_features(u, pad), mul(add_scalar(elu(u), 1.0f), keep), 1e-6, "elu + 1");
    Tensor e = mul(exp(u), keep);
    check_close(softmax_positions(u, pad), div(e, sum(e, 2, true)), 1e-6, "softmax over positions");
  }
  Tensor y = sincos_features(u, pad), k = favor_features(u, x, 0.7f, false, pad);
  for (int64_t h = 0; h < 2; ++h)  // padded key rows of example 1 are zero
    for (int64_t n = 4; n < 7; ++n) {
      CHECK(y.data()[((1 * 2 + h) * 7 + n) * 10 + 3] == 0.0f);
      CHECK(k.data()[((1 * 2 + h) * 7 + n) * 5 + 2] == 0.0f);
    }
}

TEST_CASE("favor stabiliser: the subtracted maxima cancel in the attention output") {
  // large keys (|x^| up to 4): without the shift the key features reach e^8
  Tensor q = uniform({1, 2, 12, 4}, -2.0f, 2.0f, 15), k = uniform({1, 2, 12, 4}, -4.0f, 4.0f, 16),
         v = uniform({1, 2, 12, 3}, -1.0f, 1.0f, 17);
  Rng rng(3);
  Tensor w = orthogonal_gaussian(16, 4, rng);
  float s = std::pow(4.0f, -0.25f), tiny = std::numeric_limits<float>::min();
  Tensor uq = matmul(mul_scalar(q, s), w, false, true), uk = matmul(mul_scalar(k, s), w, false, true);
  Tensor pq = favor_features(uq, q, s, true, Tensor()), pk = favor_features(uk, k, s, false, Tensor());
  for (bool is_query : {true, false}) {  // the largest feature of a query row / of a head's keys is m^-1/2
    const Tensor& p = is_query ? pq : pk;
    for (int64_t g = 0; g < (is_query ? 24 : 2); ++g) {
      int64_t len = is_query ? 16 : 12 * 16;
      CHECK(*std::max_element(p.data() + g * len, p.data() + (g + 1) * len) == doctest::Approx(0.25).epsilon(1e-6));
    }
  }
  for (bool causal : {false, true}) {
    Tensor a = kernel_attention(pq, pk, v, causal, tiny, KernelNorm::clamp);
    Tensor b = kernel_attention(favor_features(uq, q, s, true, Tensor(), false),
                                favor_features(uk, k, s, false, Tensor(), false), v, causal, tiny, KernelNorm::clamp);
    check_close(a, b, 1e-5, "with and without the stabiliser");
    Tensor c = kernel_attention(favor_features(uq, q, s, true, Tensor(), false, 3.0f),
                                favor_features(uk, k, s, false, Tensor(), false, -2.0f), v, causal, tiny, KernelNorm::clamp);
    check_close(a, c, 1e-5, "with constant shifts");
  }
}

TEST_CASE("orthogonal_gaussian: orthogonal rows inside each block, chi-distributed norms") {
  Rng rng(5);
  int64_t d = 8, m = 20;
  Tensor w = orthogonal_gaussian(m, d, rng);
  double mean_sq = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      if (i / d != j / d || i == j) continue;
      double dot = 0;
      for (int64_t t = 0; t < d; ++t) dot += double(w.data()[i * d + t]) * w.data()[j * d + t];
      CHECK(std::fabs(dot) < 1e-4);
    }
    for (int64_t t = 0; t < d; ++t) mean_sq += double(w.data()[i * d + t]) * w.data()[i * d + t] / m;
  }
  CHECK(mean_sq == doctest::Approx(double(d)).epsilon(0.5));  // E|row|^2 = d
}

namespace {
// FAVOR+'s orthogonal draw worked out here from a copy of the random source, in the order the
// scheme consumes it: per block of d rows, a d x d Gaussian block (row-major), orthonormalised by
// classical Gram-Schmidt on its rows in long double (Q of its QR, rows in order), then for each row
// kept the length of a fresh Gaussian d-vector (chi with d degrees of freedom), which scales it.
std::vector<double> favor_draw_by_hand(int64_t m, int64_t d, Rng& rng) {
  std::vector<double> w(size_t(m * d));
  for (int64_t b0 = 0; b0 < m; b0 += d) {
    std::vector<long double> g(size_t(d * d)), q(size_t(d * d));
    for (auto& x : g) x = rng.normal();
    for (int64_t i = 0; i < d; ++i) {
      for (int64_t t = 0; t < d; ++t) q[size_t(i * d + t)] = g[size_t(i * d + t)];
      for (int64_t j = 0; j < i; ++j) {  // minus the projections of the original row on q_0..q_{i-1}
        long double dot = 0;
        for (int64_t t = 0; t < d; ++t) dot += g[size_t(i * d + t)] * q[size_t(j * d + t)];
        for (int64_t t = 0; t < d; ++t) q[size_t(i * d + t)] -= dot * q[size_t(j * d + t)];
      }
      long double len = 0;
      for (int64_t t = 0; t < d; ++t) len += q[size_t(i * d + t)] * q[size_t(i * d + t)];
      for (int64_t t = 0; t < d; ++t) q[size_t(i * d + t)] /= std::sqrt(len);
    }
    for (int64_t i = 0; i < d && b0 + i < m; ++i) {
      long double chi2 = 0;
      for (int64_t t = 0; t < d; ++t) {
        long double z = rng.normal();
        chi2 += z * z;
      }
      for (int64_t t = 0; t < d; ++t) w[size_t((b0 + i) * d + t)] = double(q[size_t(i * d + t)] * std::sqrt(chi2));
    }
  }
  return w;
}

// The largest |cos| between two rows of one block of d rows of W [m,d] (0 for orthogonal blocks).
double worst_cos_in_blocks(const Tensor& w) {
  const int64_t m = w.size(0), d = w.size(1);
  const float* p = w.data();
  double worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = i + 1; j < m && j / d == i / d; ++j) {
      double dot = 0, ni = 0, nj = 0;
      for (int64_t t = 0; t < d; ++t)
        dot += double(p[i * d + t]) * p[j * d + t], ni += double(p[i * d + t]) * p[i * d + t], nj += double(p[j * d + t]) * p[j * d + t];
      worst = std::max(worst, std::fabs(dot) / std::sqrt(ni * nj));
    }
  return worst;
}

double worst_diff(const Tensor& w, const std::vector<double>& want) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(double(w.data()[i]) - want[i]));
  return worst;
}
}  // namespace

TEST_CASE("orthogonal_gaussian: equals the paper's scheme worked out by hand from the same random source") {
  for (auto md : std::vector<std::pair<int64_t, int64_t>>{{20, 8}, {8, 8}, {3, 5}, {110, 32}}) {
    const int64_t m = md.first, d = md.second;
    CAPTURE(m);
    CAPTURE(d);
    Rng r(9), by_hand(9);
    Tensor w = orthogonal_gaussian(m, d, r);
    std::vector<double> want = favor_draw_by_hand(m, d, by_hand);
    CHECK(worst_diff(w, want) < 1e-5);      // rows: |chi_d| ~ sqrt(d), floats
    CHECK(worst_cos_in_blocks(w) < 1e-5);
    CHECK(r.state() == by_hand.state());    // the draw takes exactly what the scheme takes
  }
}

// Every W the performer holds, its first draw and each redraw, is orthogonal within its blocks of
// d rows and is the scheme's draw from the random source as it stood (m = 20: blocks of 8, 8, 4):
// for the first, the source after the constructor's projections; for a redraw, as the training call
// finds it.  RFA's W is i.i.d. N(0, 1): the source's next m d normals, in order.
TEST_CASE("performer and rfa: every drawn W, first and redrawn, is the paper's draw (performer: orthogonal blocks)") {
  for (const char* name : {"performer", "rfa"}) {
    std::string variant = name;
    CAPTURE(variant);
    const int64_t m = 20, d = 8;
    auto drawn = [&](Rng& source) {  // W as the scheme draws it from `source`
      std::vector<double> want(size_t(m * d));
      if (variant == "performer") want = favor_draw_by_hand(m, d, source);
      else for (auto& v : want) v = source.normal();
      return want;
    };
    // The first draw: the constructor draws W right after its projections' weights.
    global_rng().seed_with(41);
    QKVProjection before_w(16, 2);
    Rng first = global_rng();
    global_rng().seed_with(41);
    auto att = make(name, 16, 2, 16, {{"features", double(m)}, {"redraw", 1}});
    Tensor w = buffer(*att, "features");
    REQUIRE(w.shape() == Shape{m, d});
    CHECK(worst_diff(w, drawn(first)) < 1e-5);
    if (variant == "performer") CHECK(worst_cos_in_blocks(w) < 1e-5);
    att->train();
    Tensor x = random_input(1, 5, 16, 72);
    int redraws = 0;
    for (int call = 0; call < 4; ++call) {
      Rng source = global_rng();  // the source as the call finds it: a redraw is its first draw
      std::vector<float> old = w.to_vector();
      (*att)(x, Tensor());  // the model's call: outside a step it keeps the schedule (Attention::call)
      if (w.to_vector() == old) continue;
      ++redraws;
      CHECK(worst_diff(w, drawn(source)) < 1e-5);
      if (variant == "performer") CHECK(worst_cos_in_blocks(w) < 1e-5);
    }
    CHECK(redraws >= 2);  // --redraw 1: every training call after the first
  }
}

TEST_CASE("rfa features: an unbiased estimate of the Gaussian kernel") {
  int64_t d = 6, m = 4000;
  Rng r(21);
  double worst = 0;
  for (int trial = 0; trial < 5; ++trial) {
    Tensor xy = l2_normalize(Tensor::randn({1, 1, 2, d}, 1.0f, r));
    Tensor w = Tensor::randn({m, d}, 1.0f, r);
    Tensor phi = sincos_features(matmul(xy, w, false, true), Tensor());  // [1,1,2,2m]
    double est = 0, dist2 = 0;
    for (int64_t j = 0; j < 2 * m; ++j) est += double(phi.data()[j]) * phi.data()[2 * m + j];
    for (int64_t t = 0; t < d; ++t) dist2 += std::pow(double(xy.data()[t]) - xy.data()[d + t], 2);
    worst = std::max(worst, std::fabs(est - std::exp(-dist2 / 2)));
  }
  CHECK(worst < 0.05);  // standard error ~ 1/sqrt(2m) = 0.011
}

TEST_CASE("performer: the error against exact softmax attention shrinks as m grows") {
  int64_t N = 24, d = 8;
  std::vector<int64_t> ms = {16, 64, 256};
  std::vector<double> err(ms.size(), 0.0);
  for (uint64_t seed = 0; seed < 6; ++seed) {
    Rng r(100 + seed);
    Tensor q = Tensor::randn({1, 1, N, d}, 0.6f, r), k = Tensor::randn({1, 1, N, d}, 0.6f, r),
           v = Tensor::randn({1, 1, N, d}, 1.0f, r);
    Tensor exact = dense_attention(q, k, v, Tensor(), 1.0f / std::sqrt(float(d)));
    float s = std::pow(float(d), -0.25f);
    for (size_t i = 0; i < ms.size(); ++i) {
      Tensor w = orthogonal_gaussian(ms[i], d, r);
      Tensor pq = favor_features(matmul(mul_scalar(q, s), w, false, true), q, s, true, Tensor());
      Tensor pk = favor_features(matmul(mul_scalar(k, s), w, false, true), k, s, false, Tensor());
      Tensor y = kernel_attention(pq, pk, v, false, std::numeric_limits<float>::min(), KernelNorm::clamp);
      double e = 0;
      for (int64_t t = 0; t < y.numel(); ++t) e += std::pow(double(y.data()[t]) - exact.data()[t], 2);
      err[i] += e / double(y.numel()) / 6.0;
    }
  }
  INFO("mean squared error at m = 16, 64, 256: " << err[0] << " " << err[1] << " " << err[2]);
  CHECK(err[1] < err[0]);
  CHECK(err[2] < err[1]);
  CHECK(err[2] < 0.5 * err[0]);
  CHECK(err[2] < 0.05);
}

// ---- the variants -------------------------------------------------------------------------------

TEST_CASE("linear: equals the explicit N x N kernel attention, causal and not, with padding") {
  for (bool causal : {false, true}) {
    auto att = make("linear", 8, 2, 40, {}, causal);
    Tensor x = random_input(2, 37, 8, 31), pad = padding(37, {37, 30});
    auto ref = [&](const Tensor& in) {
      Heads h = heads_of(*att, in, 2);
      Tensor pq = add_scalar(elu(h.q), 1.0f), pk = mul(add_scalar(elu(h.k), 1.0f), key_keep(pad));
      return lin(*att, "proj.o", merge_heads(explicit_kernel(pq, pk, h.v, causal, 1e-6f, false)));
    };
    check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); }, ref, x, pad);
    Tensor x1 = narrow(x, 0, 1, 1).detach(), p1 = narrow(pad, 0, 1, 1);
    Tensor w = att->attention_weights(x1, p1);  // rows sum to 1 (up to eps), padded columns 0
    CHECK(w.shape() == Shape{2, 37, 37});
    CHECK(w.data()[5 * 37 + 33] == 0.0f);
    double row = 0;
    for (int64_t j = 0; j < 37; ++j) row += w.data()[36 * 37 + j];
    CHECK(row == doctest::Approx(1.0).epsilon(1e-4));
    check_gradients(*att, [&](const Tensor& in) { return att->forward(in, padding(6, {6, 4})); }, random_input(2, 6, 8, 32));
  }
}

TEST_CASE("efficient: equals rho_q(Q) rho_k(K)^T V computed explicitly; rows sum to 1") {
  auto att = make("efficient", 8, 2, 40);
  Tensor x = random_input(2, 37, 8, 41), pad = padding(37, {37, 29});
  auto ref = [&](const Tensor& in) {
    Heads h = heads_of(*att, in, 2);
    Tensor rq = softmax(h.q);                                          // over features
    Tensor ek = mul(exp(h.k), key_keep(pad));                          // over positions, padding excluded
    Tensor rk = div(ek, sum(ek, 2, true));
    Tensor a = matmul(rq, rk, false, true);                            // [B,H,N,N]
    return lin(*att, "proj.o", merge_heads(matmul(a, h.v)));
  };
  check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); }, ref, x, pad);
  Tensor w = att->attention_weights(narrow(x, 0, 1, 1).detach(), narrow(pad, 0, 1, 1));
  for (int64_t i = 0; i < 2 * 37; ++i) {
    double row = 0;
    for (int64_t j = 0; j < 37; ++j) row += w.data()[i * 37 + j];
    CHECK(row == doctest::Approx(1.0).epsilon(1e-5));
  }
  CHECK(w.data()[3 * 37 + 30] == 0.0f);
  check_gradients(*att, [&](const Tensor& in) { return att->forward(in, padding(6, {6, 3})); }, random_input(2, 6, 8, 42));
  AttentionConfig c;
  c.causal = true;
  CHECK_THROWS_AS(make_attention("efficient", c), Error);
}

TEST_CASE("rfa: equals the explicit N x N random-feature attention, causal and not") {
  for (bool causal : {false, true}) {
    auto att = make("rfa", 8, 2, 40, {{"features", 7}}, causal);
    // a non-trivial sigma, so its gradient is tested away from 1
    Tensor sig = find_param(*att, "sigma");
    for (int64_t i = 0; i < sig.numel(); ++i) sig.data()[i] = 0.5f + 0.2f * float(i % 5);
    Tensor x = random_input(2, 37, 8, 51), pad = padding(37, {37, 25});
    auto ref = [&](const Tensor& in) {
      Heads h = heads_of(*att, in, 2);
      Tensor w = buffer(*att, "features"), s = reshape(sig, {1, 2, 1, 4});
      auto phi = [&](const Tensor& t) {
        Tensor n = div(t, sqrt(add_scalar(sum(mul(t, t), -1, true), 1e-6f)));
        Tensor u = matmul(mul(n, s), w, false, true);
        return mul_scalar(concat({sin(u), cos(u)}, -1), 1.0f / std::sqrt(7.0f));
      };
      Tensor pk = mul(phi(h.k), key_keep(pad));
      return lin(*att, "proj.o", merge_heads(explicit_kernel(phi(h.q), pk, h.v, causal, 1.0f, true)));
    };
    check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); }, ref, x, pad);
    check_gradients_fine(*att, [&](const Tensor& in) { return att->forward(in, padding(6, {6, 4})); }, random_input(2, 6, 8, 52));
  }
}

TEST_CASE("performer: equals the explicit N x N FAVOR+ attention, causal and not") {
  for (bool causal : {false, true}) {
    auto att = make("performer", 8, 2, 40, {{"features", 12}}, causal);
    Tensor x = random_input(2, 37, 8, 61), pad = padding(37, {37, 22});
    auto ref = [&](const Tensor& in) {  // FAVOR+ as written, unstabilised (the shifts cancel)
      Heads h = heads_of(*att, in, 2);
      Tensor w = buffer(*att, "features");
      float s = std::pow(4.0f, -0.25f), r = 1.0f / std::sqrt(12.0f);
      auto phi = [&](const Tensor& t) {  // m^-1/2 exp(u - |x^|^2/2)
        Tensor u = matmul(mul_scalar(t, s), w, false, true);  // [B,H,N,m]
        Tensor hn = mul_scalar(sum(mul(t, t), -1, true), s * s / 2);
        return mul_scalar(exp(sub(u, hn)), r);
      };
      Tensor pk = mul(phi(h.k), key_keep(pad));
      return lin(*att, "proj.o",
                 merge_heads(explicit_kernel(phi(h.q), pk, h.v, causal, std::numeric_limits<float>::min(), true)));
    };
    check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); }, ref, x, pad);
    check_gradients(*att, [&](const Tensor& in) { return att->forward(in, padding(6, {6, 4})); }, random_input(2, 6, 8, 62));
  }
  // default m = d ln d (at least d): d = 8 -> 16; d = 32 -> 110
  CHECK(buffer(*make("performer", 16, 2, 8), "features").shape() == Shape{16, 8});
  CHECK(buffer(*make("performer", 64, 2, 8), "features").shape() == Shape{110, 32});
}

// The issue-25 case: large keys make the stabiliser's shift large (c = max u >= 8), which an
// epsilon added after the shift, or an absolute guard on the normaliser, turns into uniform
// attention mixed into every row.  The output must be FAVOR+ itself up to float rounding.
TEST_CASE("performer: equals FAVOR+ from its formula (double) to 1e-5 relative, large keys, padding, causal and not") {
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    auto att = bare_performer(16, 2, 16, causal);
    Tensor pad = padding(13, {13, 8});
    Tensor x = scramble_padding(random_input(2, 13, 16, 65, 3.0f), pad).detach();
    Heads h = heads_of(*att, x, 2);
    Tensor w = buffer(*att, "features");
    double c = -1e30;  // the shift the stabiliser takes over the real keys: max of u = (s k) W^T
    Tensor uk = matmul(mul_scalar(h.k, std::pow(8.0f, -0.25f)), w, false, true);
    for (int64_t i = 0; i < uk.numel(); ++i)
      if (pad.data()[(i / (2 * 13 * 16)) * 13 + (i / 16) % 13] == 0) c = std::max(c, double(uk.data()[i]));
    INFO("largest key exponent c = " << c);
    REQUIRE(c >= 8.0);
    std::vector<double> ref = favor_explicit(h.q, h.k, h.v, w, pad, causal);
    Tensor y;
    {
      NoGradGuard ng;
      y = att->forward(x, pad);  // [B,N,H*d]
    }
    double worst = 0;
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t hh = 0; hh < 2; ++hh)
        for (int64_t i = 0; i < 13; ++i) {
          if (pad.data()[b * 13 + i] != 0) continue;  // padded queries: unspecified
          double scale = 0, err = 0;
          for (int64_t t = 0; t < 8; ++t) {
            double e = ref[size_t(((b * 2 + hh) * 13 + i) * 8 + t)];
            scale = std::max(scale, std::fabs(e));
            err = std::max(err, std::fabs(double(y.data()[(b * 13 + i) * 16 + hh * 8 + t]) - e));
          }
          worst = std::max(worst, err / scale);
        }
    INFO("worst relative difference from the formula: " << worst);
    CHECK(worst < 1e-5);
  }
}

// Monte Carlo: with m = 4096 features the estimate is within its own sampling error of exact
// softmax attention.  The error is measured against the spread of R independent draws of W.
TEST_CASE("performer: at m = 4096 within Monte-Carlo error of exact softmax attention, padding, causal and not") {
  const int64_t R = 4, m = 4096, N = 13;
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    auto att = bare_performer(16, 2, m, causal);
    Tensor pad = padding(N, {N, 9});
    Tensor x = random_input(2, N, 16, 67, 0.5f).detach();  // moderate norms: the variance grows as exp(|q||k|)
    Tensor mask = key_mask(pad);
    if (causal) mask = add(mask, reshape(causal_mask(N), {1, 1, N, N}));
    Tensor exact;
    {
      NoGradGuard ng;
      exact = dense_reference(*att, x, mask, 2);
    }
    Tensor w = buffer(*att, "features");
    Rng rng(68);
    std::vector<std::vector<double>> ys;
    for (int64_t r = 0; r < R; ++r) {
      Tensor draw = orthogonal_gaussian(m, 8, rng);
      std::copy(draw.data(), draw.data() + draw.numel(), w.data());
      NoGradGuard ng;
      Tensor y = att->forward(x, pad);
      ys.emplace_back(y.data(), y.data() + y.numel());
    }
    double err2 = 0, var = 0;
    int64_t count = 0;
    for (int64_t i = 0; i < exact.numel(); ++i) {
      if (pad.data()[i / 16] != 0) continue;
      double mean = 0;
      for (auto& y : ys) mean += y[size_t(i)] / double(R);
      for (auto& y : ys) {
        err2 += std::pow(y[size_t(i)] - exact.data()[i], 2);
        var += std::pow(y[size_t(i)] - mean, 2) * double(R) / double(R - 1);
      }
      count += R;
    }
    double rms_err = std::sqrt(err2 / double(count)), rms_sd = std::sqrt(var / double(count));
    INFO("rms error " << rms_err << ", rms spread of the draws " << rms_sd);
    CHECK(rms_err < 1.5 * rms_sd);  // no bias beyond the sampling error
    CHECK(rms_err < 0.05);
  }
}

TEST_CASE("performer and rfa: features are a buffer, redrawn every K training steps, fixed in eval") {
  for (const char* name : {"performer", "rfa"}) {
    std::string variant = name;
    CAPTURE(variant);
    auto att = make(name, 8, 2, 16, {{"redraw", 3}});
    Tensor w = buffer(*att, "features");
    bool in_params = false;
    for (auto& p : att->named_parameters()) in_params = in_params || p.name == "features";
    CHECK_FALSE(in_params);
    Tensor x = random_input(1, 5, 8, 71);
    std::vector<float> w0 = w.to_vector();
    for (int i = 0; i < 5; ++i) (*att)(x, Tensor());  // eval: never redrawn
    CHECK(w.to_vector() == w0);
    att->train();
    for (int i = 0; i < 3; ++i) (*att)(x, Tensor());  // the first draw serves 3 steps
    CHECK(w.to_vector() == w0);
    (*att)(x, Tensor());                              // step 4: a new draw
    std::vector<float> w1 = w.to_vector();
    CHECK(w1 != w0);
    for (int i = 0; i < 2; ++i) (*att)(x, Tensor());
    CHECK(w.to_vector() == w1);
    (*att)(x, Tensor());
    CHECK(w.to_vector() != w1);
    std::vector<float> w2 = w.to_vector();
    for (int i = 0; i < 4; ++i) att->forward(x, Tensor()), att->reference(x, Tensor());  // the forms never redraw
    CHECK(w.to_vector() == w2);
    ImplScope plain(Impl::reference);                       // the reference form keeps the schedule too
    for (int i = 0; i < 3; ++i) (*att)(x, Tensor());
    CHECK(w.to_vector() != w2);
  }
}

TEST_CASE("linformer: k = N with identity projections equals full attention") {
  int64_t N = 11;
  for (int share_heads : {1, 0}) {
    auto att = make("linformer", 8, 2, N, {{"proj_k", double(N)}, {"share_heads", double(share_heads)}});
    for (const char* p : {"E", "F"}) {
      Tensor e = find_param(*att, p);
      std::fill(e.data(), e.data() + e.numel(), 0.0f);
      for (int64_t h = 0; h < (share_heads ? 1 : 2); ++h)
        for (int64_t i = 0; i < N; ++i) e.data()[(h * N + i) * N + i] = 1.0f;
    }
    std::vector<Tensor> in = {random_input(2, N, 8, 81)};  // x and the shared projections (E, F play no part in full)
    for (auto& p : att->named_parameters())
      if (p.name.rfind("proj.", 0) == 0) in.push_back(p.tensor);
    check_same([&](const std::vector<Tensor>& t) { return att->forward(t[0], Tensor()); },
               [&](const std::vector<Tensor>& t) { return dense_reference(*att, t[0], Tensor(), 2); }, in, 1e-5);
  }
  AttentionConfig c;
  c.causal = true;
  CHECK_THROWS_AS(make_attention("linformer", c), Error);
}

TEST_CASE("linformer: sliced projections, per-head and shared, equal an explicit per-head computation") {
  int64_t N = 13, L = 20, k = 6;
  for (int share_heads : {1, 0})
    for (int share_kv : {0, 1}) {
      CAPTURE(share_heads);
      CAPTURE(share_kv);
      auto att = make("linformer", 8, 2, L, {{"proj_k", double(k)}, {"share_heads", double(share_heads)}, {"share_kv", double(share_kv)}});
      Tensor pad = padding(N, {N, 9}), x = random_input(2, N, 8, 91);
      auto ref = [&](const Tensor& in) {
        Heads h = heads_of(*att, in, 2);
        Tensor keep = key_keep(pad);
        auto project = [&](const char* name, const Tensor& t) {
          Tensor p = find_param(*att, share_kv ? "E" : name);
          std::vector<Tensor> per_head;
          for (int64_t hd = 0; hd < 2; ++hd) {
            Tensor ph = share_heads ? p : reshape(narrow(p, 0, hd, 1), {k, L});
            per_head.push_back(matmul(narrow(ph, 1, 0, N), narrow(mul(t, keep), 1, hd, 1)));  // [B,1,k,d]
          }
          return concat(per_head, 1);
        };
        Tensor o = dense_attention(h.q, project("E", h.k), project("F", h.v), Tensor(), 0.5f);
        return lin(*att, "proj.o", merge_heads(o));
      };
      check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); }, ref, x, pad);
      if (share_kv == 0) {
        Tensor w = att->attention_weights(narrow(x, 0, 1, 1).detach(), narrow(pad, 0, 1, 1));
        CHECK(w.shape() == Shape{2, N, N});
        CHECK(w.data()[4 * N + 10] == 0.0f);  // padded key
      }
      check_gradients(*att, [&](const Tensor& in) { return att->forward(in, padding(5, {5, 3})); }, random_input(2, 5, 8, 92));
    }
}

TEST_CASE("compressed: c = 1 with an identity kernel equals full attention, with padding") {
  auto att = make("compressed", 8, 2, 16, {{"compress", 1}});
  for (const char* conv : {"conv_k", "conv_v"}) {
    Tensor w = find_param(*att, std::string(conv) + ".weight");
    std::fill(w.data(), w.data() + w.numel(), 0.0f);
    for (int64_t i = 0; i < 8; ++i) w.data()[i * 8 + i] = 1.0f;
  }
  Tensor pad = padding(9, {9, 5});
  std::vector<Tensor> in = {random_input(2, 9, 8, 101)};  // x and the shared projections
  for (auto& p : att->named_parameters())
    if (p.name.rfind("proj.", 0) == 0) in.push_back(p.tensor);
  Tensor keep = Tensor::ones({2, 9, 8});
  for (int64_t i = 0; i < keep.numel(); ++i) keep.data()[i] = pad.data()[i / 8] != 0 ? 0.0f : 1.0f;
  check_same([&](const std::vector<Tensor>& t) { return mul(att->forward(t[0], pad), keep); },
             [&](const std::vector<Tensor>& t) { return mul(dense_reference(*att, t[0], key_mask(pad), 2), keep); }, in, 1e-5);
}

TEST_CASE("compressed: c = 3 on N = 37 equals an explicit per-slot convolution") {
  int64_t N = 37, c = 3, M = 13, D = 8;
  auto att = make("compressed", D, 2, 40, {{"compress", double(c)}});
  Tensor x = random_input(2, N, D, 111), pad = padding(N, {N, 31});  // example 1: slot 10 mixed, 11-12 all padding
  auto ref = [&](const Tensor& in) {
    Tensor keep = reshape(key_keep(pad), {2, N, 1});
    auto conv = [&](const std::string& name, const Tensor& t) {
      Tensor w = find_param(*att, name + ".weight"), b = find_param(*att, name + ".bias");
      std::vector<Tensor> slots;
      for (int64_t m = 0; m < M; ++m) {
        Tensor acc = reshape(b, {1, 1, D});
        for (int64_t tap = 0; tap < c && m * c + tap < N; ++tap)
          acc = add(acc, matmul(narrow(mul(t, keep), 1, m * c + tap, 1), narrow(w, 0, tap * D, D)));
        slots.push_back(acc);  // every slot has at least one real tap, so acc is [B,1,D]
      }
      return split_heads(concat(slots, 1), 2);  // [B,H,M,d]
    };
    Tensor mask = Tensor::zeros({2, 1, 1, M});
    mask.data()[M + 11] = mask.data()[M + 12] = 1.0f;
    Tensor o = dense_attention(split_heads(lin(*att, "proj.q", in), 2), conv("conv_k", lin(*att, "proj.k", in)),
                               conv("conv_v", lin(*att, "proj.v", in)), mask, 0.5f);
    return lin(*att, "proj.o", merge_heads(o));
  };
  check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); }, ref, x, pad);
  Tensor w = att->attention_weights(narrow(x, 0, 1, 1).detach(), narrow(pad, 0, 1, 1));
  double row = 0;
  for (int64_t j = 0; j < N; ++j) row += w.data()[7 * N + j];
  CHECK(row == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(w.data()[7 * N + 33] == 0.0f);
  auto small = make("compressed", 8, 2, 8, {{"compress", 2}});
  check_gradients(*small, [&](const Tensor& in) { return small->forward(in, padding(7, {7, 4})); }, random_input(2, 7, 8, 112));
}

TEST_CASE("synthesizer random: output = softmax(R) V whatever the input; R = 0 gives mean pooling") {
  int64_t N = 9, L = 12;
  auto att = make("synthesizer", 8, 2, L, {{"synth_mode", 1}});
  Tensor R = find_param(*att, "random");
  auto expected = [&](const Tensor& x, const Tensor& pad) {  // softmax(R[:N,:N]) v per example, by hand
    NoGradGuard ng;
    Tensor v = lin(*att, "value", x);  // [B,N,D]
    Tensor out = Tensor::zeros(v.shape());
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t i = 0; i < N; ++i) {
          double z = 0, mx = -1e30;
          for (int64_t j = 0; j < N; ++j)
            if (!pad.defined() || pad.data()[b * N + j] == 0) mx = std::max(mx, double(R.data()[(h * L + i) * L + j]));
          std::vector<double> p(size_t(N), 0.0);
          for (int64_t j = 0; j < N; ++j)
            if (!pad.defined() || pad.data()[b * N + j] == 0) z += p[size_t(j)] = std::exp(R.data()[(h * L + i) * L + j] - mx);
          for (int64_t j = 0; j < N; ++j)
            for (int64_t t = 0; t < 4; ++t)
              out.data()[(b * N + i) * 8 + h * 4 + t] += float(p[size_t(j)] / z) * v.data()[(b * N + j) * 8 + h * 4 + t];
        }
    return lin(*att, "out", out);
  };
  Tensor pad = padding(N, {N, 6});
  for (uint64_t seed : {1, 2}) {
    Tensor x = random_input(2, N, 8, 120 + seed);
    NoGradGuard ng;
    check_close(att->forward(x, Tensor()), expected(x, Tensor()), 1e-5, "shared path");
    Tensor keep = Tensor::ones({2, N, 8});
    for (int64_t i = 0; i < keep.numel(); ++i) keep.data()[i] = pad.data()[i / 8] != 0 ? 0.0f : 1.0f;
    check_close(mul(att->forward(x, pad), keep), mul(expected(x, pad), keep), 1e-5, "padded path");
  }
  Tensor w1 = att->attention_weights(random_input(1, N, 8, 3).detach(), Tensor());
  Tensor w2 = att->attention_weights(random_input(1, N, 8, 4).detach(), Tensor());
  CHECK(w1.to_vector() == w2.to_vector());  // no dependence on the input at all
  std::fill(R.data(), R.data() + R.numel(), 0.0f);  // R = 0: every row is the mean of the (real) values
  Tensor x = random_input(2, N, 8, 125);
  NoGradGuard ng;
  Tensor y = att->forward(x, pad), v = lin(*att, "value", x);
  for (int64_t b = 0; b < 2; ++b) {
    int64_t len = b ? 6 : N;
    Tensor mean_v = mean(narrow(narrow(v, 0, b, 1), 1, 0, len), 1, true);  // [1,1,D]
    Tensor want = lin(*att, "out", mean_v);
    for (int64_t i = 0; i < len; ++i)
      for (int64_t t = 0; t < 8; ++t) CHECK(y.data()[(b * N + i) * 8 + t] == doctest::Approx(want.data()[t]).epsilon(1e-4));
  }
}

TEST_CASE("synthesizer dense and factorised: the fused forward equals softmax(logits) V from plain ops") {
  int64_t N = 37, L = 40;
  for (int mode : {0, 2})
    for (bool causal : {false, true}) {
      CAPTURE(mode);
      CAPTURE(causal);
      auto att = make("synthesizer", 8, 2, L, {{"synth_mode", double(mode)}, {"synth_rank", 3}}, causal);
      Tensor x = random_input(2, N, 8, 171), pad = padding(N, {N, 26});
      auto ref = [&](const Tensor& in) {
        Tensor z;
        if (mode == 0) {  // row i = W2 relu(W1 x_i + b1)_h + b2, sliced to N
          Tensor hid = split_heads(relu(lin(*att, "dense1", in)), 2);
          z = add(matmul(hid, narrow(find_param(*att, "dense2.weight"), 1, 0, N)), narrow(find_param(*att, "dense2.bias"), 0, 0, N));
        } else {
          z = matmul(narrow(find_param(*att, "random1"), 1, 0, N), narrow(find_param(*att, "random2"), 1, 0, N), false, true);
        }
        Tensor mask = key_mask(pad);
        if (causal) mask = add(mask, reshape(causal_mask(N), {1, 1, N, N}));
        Tensor p = softmax(add(z, Tensor::zeros({2, 1, 1, 1})), mask, true);  // [B,H,N,N]
        return lin(*att, "out", merge_heads(matmul(p, split_heads(lin(*att, "value", in), 2))));
      };
      check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); }, ref, x, pad);
    }
}

TEST_CASE("synthesizer dense and factorised: logits from one token only; R1 R2^T; gradients") {
  int64_t N = 7;
  auto dense = make("synthesizer", 8, 2, 10, {{"synth_mode", 0}});
  Tensor x = random_input(1, N, 8, 131).detach();
  Tensor w1 = dense->attention_weights(x, Tensor());
  Tensor x2 = x.clone();
  for (int64_t t = 0; t < 8; ++t) x2.data()[3 * 8 + t] += 1.0f;  // change token 3: only row 3 of the weights moves
  Tensor w2 = dense->attention_weights(x2, Tensor());
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t i = 0; i < N; ++i) {
      bool same = true;
      for (int64_t j = 0; j < N; ++j) same = same && w1.data()[(h * N + i) * N + j] == w2.data()[(h * N + i) * N + j];
      CHECK(same == (i != 3));
    }
  auto fact = make("synthesizer", 8, 2, 10, {{"synth_mode", 2}, {"synth_rank", 3}});
  {
    NoGradGuard ng;
    Tensor r1 = narrow(find_param(*fact, "random1"), 1, 0, N), r2 = narrow(find_param(*fact, "random2"), 1, 0, N);
    check_close(fact->attention_weights(x, Tensor()), softmax(matmul(r1, r2, false, true)), 1e-6, "softmax(R1 R2^T)");
  }
  for (int mode : {0, 1, 2})
    for (bool causal : {false, true}) {
      CAPTURE(mode);
      CAPTURE(causal);
      auto att = make("synthesizer", 8, 2, 8, {{"synth_mode", double(mode)}, {"synth_rank", 3}}, causal);
      // an input whose relu pre-activations all sit clear of the kink, so finite differences do not straddle it
      auto clear_input = [&](uint64_t seed) {
        for (;; ++seed) {
          Tensor x = random_input(2, 6, 8, seed);
          if (mode != 0) return x;
          Tensor pre = lin(*att, "dense1", x);
          bool ok = true;
          for (int64_t i = 0; i < pre.numel(); ++i) ok = ok && std::fabs(pre.data()[i]) > 0.02f;
          if (ok) return x;
        }
      };
      check_gradients_fine(*att, [&](const Tensor& in) { return att->forward(in, padding(6, {6, 4})); }, clear_input(132));
      check_gradients_fine(*att, [&](const Tensor& in) { return att->forward(in, Tensor()); }, clear_input(133));
    }
}

// ---- what every variant owes ---------------------------------------------------------------------

struct Case {
  const char* name;
  std::map<std::string, double> knobs;
};
static const std::vector<Case> kCases = {
    {"linformer", {{"proj_k", 5}}},     {"linformer", {{"proj_k", 5}, {"share_heads", 0}, {"share_kv", 1}}},
    {"compressed", {{"compress", 3}}},  {"linear", {}},
    {"efficient", {}},                  {"rfa", {{"features", 16}}},
    {"performer", {{"features", 16}}},  {"synthesizer", {{"synth_mode", 0}}},
    {"synthesizer", {{"synth_mode", 1}}}, {"synthesizer", {{"synth_mode", 2}, {"synth_rank", 4}}},
};

TEST_CASE("every variant: padded tokens have no influence on the other outputs; outputs finite") {
  for (const Case& c : kCases) {
    std::string variant = c.name;
    CAPTURE(variant);
    auto att = make(c.name, 8, 2, 16, c.knobs);
    Tensor pad = padding(11, {11, 7}), x = random_input(2, 11, 8, 141);
    NoGradGuard ng;
    Tensor y1 = att->forward(x, pad), y2 = att->forward(scramble_padding(x, pad), pad);
    for (int64_t i = 0; i < y1.numel(); ++i) {
      CHECK(std::isfinite(y1.data()[i]));
      if (pad.data()[i / 8] == 0) CHECK(y1.data()[i] == doctest::Approx(y2.data()[i]).epsilon(1e-5));
    }
    // every key padded: still finite
    Tensor all = Tensor::ones({2, 11});
    Tensor y3 = att->forward(x, all);
    for (int64_t i = 0; i < y3.numel(); ++i) CHECK(std::isfinite(y3.data()[i]));
  }
}

TEST_CASE("causal variants: a later token does not change earlier outputs") {
  for (const char* name : {"linear", "rfa", "performer", "synthesizer"}) {
    std::string variant = name;
    CAPTURE(variant);
    auto att = make(name, 8, 2, 16, {}, true);
    Tensor x = random_input(1, 9, 8, 151);
    NoGradGuard ng;
    Tensor y1 = att->forward(x, Tensor());
    Tensor x2 = x.clone();
    for (int64_t t = 0; t < 8; ++t) x2.data()[6 * 8 + t] += 2.0f;
    Tensor y2 = att->forward(x2, Tensor());
    for (int64_t i = 0; i < 6 * 8; ++i) CHECK(y1.data()[i] == doctest::Approx(y2.data()[i]).epsilon(1e-5));
    bool later_changed = false;
    for (int64_t i = 6 * 8; i < 9 * 8; ++i) later_changed = later_changed || y1.data()[i] != y2.data()[i];
    CHECK(later_changed);
  }
  for (const char* name : {"linformer", "compressed", "efficient"}) {
    AttentionConfig c;
    c.causal = true;
    CHECK_THROWS_AS(make_attention(name, c), Error);
  }
}

TEST_CASE("every variant: pattern and attention weights for one example") {
  for (const Case& c : kCases) {
    std::string variant = c.name;
    CAPTURE(variant);
    auto att = make(c.name, 8, 2, 16, c.knobs);
    Tensor x = random_input(1, 10, 8, 161).detach(), pad = padding(10, {8});
    Pattern p = att->pattern(x, pad);
    CHECK(p.n == 10);
    CHECK(p.cell.size() == 100);
    CHECK(!p.legend.empty());
    CHECK(p.cell[2 * 10 + 9] == 0);  // padded key
    CHECK(p.cell[2 * 10 + 5] != 0);
    Tensor w = att->attention_weights(x, pad);
    CHECK(w.shape() == Shape{2, 10, 10});
    CHECK(w.data()[3 * 10 + 9] == 0.0f);
  }
}

TEST_CASE("knob errors name the flag and the range") {
  AttentionConfig c;
  c.knobs["synth_mode"] = 3;
  try {
    make_attention("synthesizer", c);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "--synth-mode 3 out of range for model 'synthesizer' (expected 0 to 2)");
  }
  AttentionConfig l;
  l.max_len = 8;
  auto att = make_attention("linformer", l);
  CHECK_THROWS_WITH_AS(att->forward(random_input(1, 9, 64, 1), Tensor()),
                       "linformer: sequence of 9 positions is longer than --seq-len 8 that sized E and F", Error);
}

// ---- values worked out by hand -------------------------------------------------------------------
// The cases above compare the fast form with a formula built from the same parameters; these state
// what the formula must give (and what the shared initialisation and defaults must be), so a bug in
// code both forms share cannot pass.

// Sets every weight of a Linear named `name` to w and its bias to 0.
static void set_linear(Module& m, const std::string& name, float w) {
  Tensor W = find_param(m, name + ".weight"), b = find_param(m, name + ".bias");
  std::fill(W.data(), W.data() + W.numel(), w);
  std::fill(b.data(), b.data() + b.numel(), 0.0f);
}

// D = d = 1, identity projections, x = (1, 0, -1): phi(k) = elu(k) + 1 = (2, 1, e^-1), v = (1, 0, -1);
// with d = 1 phi(q) cancels, so out_i = sum_j phi(k_j) v_j / sum_j phi(k_j) over the keys j seen.
// Guards: relu+1 or elu without +1 (phi(-1) = 1 or -0.63), a large epsilon, the next token in the
// causal prefix, a missing denominator -- in the fast form and in reference() alike.
TEST_CASE("linear: 3 tokens with d = 1, elu+1 worked out by hand, causal and not, both forms") {
  const double all = (2 - std::exp(-1.0)) / (3 + std::exp(-1.0));  // 1.63212 / 3.36788 = 0.484614
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    auto att = make("linear", 1, 1, 4, {}, causal);
    for (const char* p : {"proj.q", "proj.k", "proj.v", "proj.o"}) set_linear(*att, p, 1.0f);
    Tensor x = Tensor::from({1, 3, 1}, {1.0f, 0.0f, -1.0f});
    std::vector<double> want = causal ? std::vector<double>{1.0, 2.0 / 3.0, all} : std::vector<double>{all, all, all};
    NoGradGuard ng;
    for (Tensor y : {att->forward(x, Tensor()), att->reference(x, Tensor())})
      for (int64_t i = 0; i < 3; ++i) CHECK(y.data()[i] == doctest::Approx(want[size_t(i)]).epsilon(1e-5));
  }
}

// xformers' E, F are nn.Linear(max_len, k) weights: U(-1/sqrt(max_len), +1/sqrt(max_len)), and k is
// capped at max_len.  max_len = 16: the bound is 0.25 (k = 4 would give 0.5); --proj-k 256 -> k = 16.
// Guards: the bound taken from k, and an uncapped k (both forms share the parameters).
TEST_CASE("linformer: E and F drawn U(+-1/sqrt(max_len)), k capped at max_len") {
  auto att = make("linformer", 8, 2, 16, {{"proj_k", 4}, {"share_heads", 0}});
  for (const char* p : {"E", "F"}) {
    Tensor e = find_param(*att, p);
    CHECK(e.shape() == Shape{2, 4, 16});
    float largest = 0;
    for (int64_t i = 0; i < e.numel(); ++i) largest = std::max(largest, std::fabs(e.data()[i]));
    CHECK(largest <= 0.25f);
    CHECK(largest > 0.2f);  // 128 draws fill the range
  }
  CHECK(find_param(*make("linformer", 8, 2, 16), "E").shape() == Shape{16, 16});  // default --proj-k 256 -> 16
}

// Zero kernels and biases make every compressed key 0, so each of the M = ceil(N/c) slots gets weight
// 1/M, shared by its real positions.  N = 9, c = 3: M = 3, every weight 1/9.  N = 10: M = 4 (slots
// {0,1,2} {3,4,5} {6,7,8} {9}): 1/12, and 1/4 at position 9.  N = 10 with 8 real: slot 3 is empty and
// excluded, slot 2 has 2 real positions: 1/9 for 0-5, 1/6 for 6-7, 0 for 8-9.  Liu et al.'s kernel =
// stride = 3 is the default (conv weight [3 D, D]).  Guards: ceil off by one, the default compression,
// a slot's weight spread over its padded positions.
TEST_CASE("compressed: slot count ceil(N/c) and slot weights worked out by hand; default c = 3") {
  auto att = make("compressed", 8, 2, 16);
  CHECK(find_param(*att, "conv_k.weight").shape() == Shape{24, 8});
  for (const char* p : {"conv_k", "conv_v"}) set_linear(*att, p, 0.0f);
  auto check_row = [&](int64_t N, const Tensor& pad, const std::vector<double>& want) {
    CAPTURE(N);
    Tensor w = att->attention_weights(random_input(1, N, 8, 181).detach(), pad);  // [H,N,N]
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < N; ++i)
        for (int64_t j = 0; j < N; ++j) CHECK(w.data()[(h * N + i) * N + j] == doctest::Approx(want[size_t(j)]).epsilon(1e-5));
  };
  check_row(9, Tensor(), std::vector<double>(9, 1.0 / 9));
  std::vector<double> ten(10, 1.0 / 12);
  ten[9] = 0.25;
  check_row(10, Tensor(), ten);
  check_row(10, padding(10, {8}), {1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 6, 1.0 / 6, 0, 0});
}

// LRA's dense synthesizer: W2 [d, max_len] lecun normal, std 1/sqrt(fan_in) = 1/sqrt(d).  d = 4,
// max_len = 400: std 0.5 over 1600 draws (1/sqrt(max_len) would give 0.05).
TEST_CASE("synthesizer dense: W2 drawn with std 1/sqrt(d)") {
  Tensor w2 = find_param(*make("synthesizer", 16, 4, 400, {{"synth_mode", 0}}), "dense2.weight");
  CHECK(w2.shape() == Shape{4, 400});
  double s2 = 0;
  for (int64_t i = 0; i < w2.numel(); ++i) s2 += double(w2.data()[i]) * w2.data()[i];
  CHECK(std::sqrt(s2 / double(w2.numel())) == doctest::Approx(0.5).epsilon(0.05));
}

// Random mode with R = 0 and --causal: row i is the mean of the values of tokens 0..i (the real ones),
// in both forms, without padding (the batch-shared path) and with it.  And N = max_len is allowed.
// Guards: the causal mask dropped from random mode (the conformance suite runs only dense causally),
// a length check refusing N = --seq-len.
TEST_CASE("synthesizer random, causal: R = 0 gives the running mean of the values; N = max_len accepted") {
  const int64_t N = 6;
  auto att = make("synthesizer", 8, 2, N, {{"synth_mode", 1}}, true);
  Tensor R = find_param(*att, "random");
  std::fill(R.data(), R.data() + R.numel(), 0.0f);
  Tensor x = random_input(2, N, 8, 191);
  NoGradGuard ng;
  Tensor v = lin(*att, "value", x);  // [B,N,D]
  for (Tensor pad : {Tensor(), padding(N, {N, 4})}) {
    CAPTURE(pad.defined());
    for (Tensor y : {att->forward(x, pad), att->reference(x, pad)})
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < (pad.defined() && b ? 4 : N); ++i) {
          Tensor want = lin(*att, "out", mean(narrow(narrow(v, 0, b, 1), 1, 0, i + 1), 1, true));  // [1,1,D]
          for (int64_t t = 0; t < 8; ++t) CHECK(y.data()[(b * N + i) * 8 + t] == doctest::Approx(want.data()[t]).epsilon(1e-5));
        }
  }
  CHECK_THROWS_WITH_AS(att->forward(random_input(1, N + 1, 8, 192), Tensor()),
                       "synthesizer: sequence of 7 positions is longer than --seq-len 6 that sized its logits", Error);
}
