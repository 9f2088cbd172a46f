// nn/: modules, layers, optimizers (one step against a hand computation),
// schedules, clipping.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "nn/optim.h"
#include "train/model.h"

using namespace az;

namespace {
struct Two : Module {
  Two() {
    a = register_module("a", std::make_shared<Linear>(3, 4));
    n = register_module("norm", std::make_shared<LayerNorm>(4));
    s = register_buffer("stats", Tensor::zeros({2}));
  }
  std::shared_ptr<Linear> a;
  std::shared_ptr<LayerNorm> n;
  Tensor s;
};
}  // namespace

// The decay rule by the parameter's name: a weight matrix (`.weight`, Linformer's E and F,
// Synthesizer's random matrices) decays; a bias, a norm's gamma and beta, the token embedding, the
// position table, the CLS vector, learned global tokens, RFA's sigma and a temperature do not (gMLP's
// gate bias starts at 1: decayed, it is pulled toward 0 and the gate toward W_s Z2 alone).  A kind
// the rule does not name (a newcomer's own) is held to its shape: a scalar or a vector is a scale
// or an offset and never decays; a matrix of an unnamed kind is left to its file.
// Returns "" when p keeps the rule, else why not.
namespace {
std::string decay_rule_broken(const NamedTensor& p) {
  auto ends = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  const std::string leaf = p.name.substr(p.name.rfind('.') + 1);
  const bool matrix = (leaf == "weight" && p.name != "embed.weight") || leaf == "E" || leaf == "F" ||
                      leaf.rfind("random", 0) == 0;
  const bool vector = leaf == "bias" || leaf == "gamma" || leaf == "beta" || p.name == "embed.weight" ||
                      ends(p.name, "pos.table") || leaf == "cls" || leaf == "tokens" || leaf == "sigma" ||
                      leaf == "log_tau";
  if (matrix != vector) {
    if (p.decay == matrix) return "";
    return p.name + (matrix ? " is a weight matrix: it decays" : " is not a weight matrix: it must not decay");
  }
  if (p.tensor.dim() <= 1 && p.decay) return p.name + " has " + std::to_string(p.tensor.dim()) +
                                             " dimension(s), a scale or an offset: register it with Decay::no";
  return "";
}
}  // namespace

TEST_CASE("the decay rule, on parameters worked out by hand: named kinds by name, unnamed ones by shape") {
  const Tensor vec = Tensor::zeros({4}), mat = Tensor::zeros({4, 4}), scalar = Tensor::zeros({1});
  CHECK(decay_rule_broken({"layers.0.attn.q.weight", mat, true}) == "");
  CHECK(decay_rule_broken({"layers.0.attn.q.weight", mat, false}) == "layers.0.attn.q.weight is a weight matrix: it decays");
  CHECK(decay_rule_broken({"layers.0.attn.q.bias", vec, true}) == "layers.0.attn.q.bias is not a weight matrix: it must not decay");
  CHECK(decay_rule_broken({"embed.weight", mat, true}) == "embed.weight is not a weight matrix: it must not decay");
  CHECK(decay_rule_broken({"layers.0.attn.E", mat, true}) == "");
  CHECK(decay_rule_broken({"pos.table", mat, false}) == "");
  // a newcomer's own kinds: a vector or scalar must not decay, a matrix is its file's choice
  CHECK(decay_rule_broken({"layers.0.attn.alpha", scalar, true}) ==
        "layers.0.attn.alpha has 1 dimension(s), a scale or an offset: register it with Decay::no");
  CHECK(decay_rule_broken({"layers.0.attn.alpha", scalar, false}) == "");
  CHECK(decay_rule_broken({"layers.0.attn.landmarks", mat, true}) == "");
  CHECK(decay_rule_broken({"layers.0.attn.landmarks", mat, false}) == "");
}

TEST_CASE("every model's parameters: AdamW decays the weight matrices only, never a bias, norm, embedding or scale") {
  // decay_rule_broken over every registered model (each mode of the ones with modes, both poolings)
  int checked = 0;
  for (const std::string& name : attention_names()) {
    std::vector<std::map<std::string, double>> settings = {{}};
    for (auto& k : attention_info(name).knobs)
      for (size_t i = 1; i < k.choices.size(); ++i) settings.push_back({{k.name, double(i)}});
    if (name == "global") settings.push_back({{"learned", 1}});
    for (auto& knobs : settings)
      for (Pool pool : {Pool::kMean, Pool::kCls}) {
        ModelConfig m;
        m.model = name, m.vocab = 10, m.num_classes = 3, m.max_len = 16, m.dim = 8, m.heads = 2, m.layers = 1, m.ffn = 8;
        m.knobs = knobs, m.pool = pool;
        SequenceClassifier model(m);
        for (const NamedTensor& p : model.named_parameters()) {
          CAPTURE(name);
          CHECK(decay_rule_broken(p) == "");
          ++checked;
        }
      }
  }
  CHECK(checked > 500);
}

TEST_CASE("modules register names recursively, with decay flags") {
  Two m;
  auto ps = m.named_parameters();
  REQUIRE(ps.size() == 4);
  CHECK(ps[0].name == "a.weight");
  CHECK(ps[0].decay);
  CHECK(ps[1].name == "a.bias");
  CHECK_FALSE(ps[1].decay);
  CHECK(ps[2].name == "norm.gamma");
  CHECK_FALSE(ps[2].decay);
  CHECK(m.named_buffers()[0].name == "stats");
  CHECK(m.num_parameters() == 12 + 4 + 4 + 4);
  m.eval();
  CHECK_FALSE(m.a->is_training());
  m.train();
  CHECK(m.a->is_training());
}

TEST_CASE("layers: shapes and gradients") {
  Rng r(1);
  Linear lin(5, 3, true, r);
  Tensor x = Tensor::randn({2, 4, 5}, 1.0f, r).set_requires_grad();
  CHECK(lin.forward(x).shape() == Shape{2, 4, 3});
  std::vector<Tensor> in = {x, lin.weight, lin.bias};
  CHECK(gradcheck([&](auto&) { return lin.forward(x); }, in).ok);
  FeedForward ff(5, 7, 0.0f, r);
  std::vector<Tensor> fin = {x};
  for (auto& p : ff.named_parameters()) fin.push_back(p.tensor);
  CHECK(gradcheck([&](auto&) { return ff.forward(x); }, fin).ok);
  SinusoidalPositions sp(16, 6);
  CHECK(sp.table.data()[0 * 6 + 1] == doctest::Approx(1.0f));  // cos(0)
  CHECK(sp.table.data()[3 * 6 + 0] == doctest::Approx(std::sin(3.0f)));
  LearnedPositions lp(4, 5, r);
  try {
    lp.forward(Tensor::zeros({1, 6, 5}));
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "positions: sequence of 6 positions is longer than the model's maximum 4");
  }
  // Xavier bound
  float a = std::sqrt(6.0f / 8.0f);
  for (float v : lin.weight.to_vector()) CHECK(std::fabs(v) <= a);
}

TEST_CASE("short convolution: a direct loop's sums, causal, with gradients") {
  Rng r(4);
  const int64_t B = 2, N = 5, D = 3, K = 3;
  ShortConv conv(K, D, r);
  Tensor x = Tensor::randn({B, N, D}, 1.0f, r).set_requires_grad();
  Tensor y = conv.forward(x);
  REQUIRE(y.shape() == Shape{B, N, D});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < N; ++t)
      for (int64_t d = 0; d < D; ++d) {
        double want = 0;
        for (int64_t j = 0; j < K && j <= t; ++j) want += conv.weight.data()[j * D + d] * x.data()[(b * N + t - j) * D + d];
        CHECK(y.data()[(b * N + t) * D + d] == doctest::Approx(want).epsilon(1e-6));
      }
  std::vector<Tensor> in = {x, conv.weight};
  CHECK(gradcheck([&](auto&) { return conv.forward(x); }, in).ok);
  // one decoding step over the K-1 inputs before it gives forward's row
  std::vector<Tensor> past = {narrow(narrow(x, 0, 1, 1), 1, 2, 1), narrow(narrow(x, 0, 1, 1), 1, 3, 1)};
  Tensor s = conv.step(narrow(narrow(x, 0, 1, 1), 1, 4, 1), past);
  for (int64_t d = 0; d < D; ++d) CHECK(s.data()[d] == doctest::Approx(y.data()[(1 * N + 4) * D + d]).epsilon(1e-6));
  // shorter than the kernel: only the taps that reach inside the sequence
  Tensor one = conv.forward(narrow(x, 1, 0, 1));
  for (int64_t d = 0; d < D; ++d) CHECK(one.data()[d] == doctest::Approx(conv.weight.data()[d] * x.data()[d]).epsilon(1e-6));
  try {
    conv.forward(Tensor::zeros({1, 4, 5}));
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "short convolution: input [1,4,5] must be [B,N,3]");
  }
}

TEST_CASE("SGD with momentum: one and two steps by hand") {
  Tensor w = Tensor::from({2}, {1.0f, -2.0f});
  SGD opt({{"w", w.set_requires_grad(), true}}, 0.9f, 0.1f);
  w.grad_data()[0] = 0.5f, w.grad_data()[1] = -1.0f;
  opt.step(0.1f);
  // v = g + wd*w = [0.6, -1.2]; w -= 0.1 v
  CHECK(w.data()[0] == doctest::Approx(0.94f).epsilon(1e-6));
  CHECK(w.data()[1] == doctest::Approx(-1.88f).epsilon(1e-6));
  opt.step(0.1f);  // same gradient: v = 0.9*0.6 + 0.5 + 0.1*0.94 = 1.134
  CHECK(w.data()[0] == doctest::Approx(0.94f - 0.1134f).epsilon(1e-6));
}

TEST_CASE("Adam and AdamW: one step by hand; decay only on decay parameters") {
  for (int decoupled = 0; decoupled < 2; ++decoupled) {
    Tensor w = Tensor::from({1}, {2.0f}).set_requires_grad(), b = Tensor::from({1}, {2.0f}).set_requires_grad();
    Adam opt({{"w", w, true}, {"b", b, false}}, 0.9f, 0.999f, 1e-8f, 0.1f, decoupled);
    w.grad_data()[0] = 0.5f, b.grad_data()[0] = 0.5f;
    opt.step(0.01f);
    if (decoupled) {
      // w: decoupled decay 2 - 0.01*0.1*2 = 1.998, then the Adam step of size lr: -0.01 (m/sqrt(v) = 1)
      CHECK(w.data()[0] == doctest::Approx(1.998f - 0.01f).epsilon(1e-6));
      CHECK(b.data()[0] == doctest::Approx(2.0f - 0.01f).epsilon(1e-6));  // no decay on b
    } else {
      // L2: g' = 0.5 + 0.1*2 = 0.7; first step of Adam moves by lr * g'/|g'| = lr
      CHECK(w.data()[0] == doctest::Approx(1.99f).epsilon(1e-6));
      CHECK(b.data()[0] == doctest::Approx(1.99f).epsilon(1e-6));
    }
    // a second step with a different gradient, by hand
    w.grad_data()[0] = -0.25f;
    float w0 = w.data()[0];
    opt.step(0.01f);
    float g = -0.25f + (decoupled ? 0.0f : 0.1f * w0);
    float m = 0.9f * 0.1f * (decoupled ? 0.5f : 0.7f) + 0.1f * g;
    float v = 0.999f * 0.001f * (decoupled ? 0.25f : 0.49f) + 0.001f * g * g;
    float mh = m / (1 - 0.81f), vh = v / (1 - 0.998001f);
    float expect = w0 - (decoupled ? 0.01f * 0.1f * w0 : 0.0f) - 0.01f * mh / (std::sqrt(vh) + 1e-8f);
    CHECK(w.data()[0] == doctest::Approx(expect).epsilon(1e-6));
  }
}

TEST_CASE("Adam and AdamW: every element of parameters of many sizes takes the update computed in double") {
  // The step cuts parameters into pieces for the threads; every element of every size, past
  // the piece boundaries (16,384) and in the tails, must move by Adam's rule, worked out here
  // in double from the same gradients: two steps, decoupled decay on one parameter, none on another.
  const std::vector<int64_t> sizes = {1, 7, 16383, 16384, 16385, 40000};
  for (int decoupled = 0; decoupled < 2; ++decoupled) {
    std::vector<Tensor> ps;
    std::vector<NamedTensor> named;
    for (size_t i = 0; i < sizes.size(); ++i) {
      Tensor t = Tensor::zeros({sizes[i]}).set_requires_grad();
      // 0.0003 off the grid of 0.001: Adam's L2 gradient g + 0.1 w never cancels to a float
      // residual (g = -1/8 and w = 1.25 would), whose sign alone, FMA or not, sets the step.
      for (int64_t j = 0; j < sizes[i]; ++j) t.data()[j] = 0.5003f + 0.001f * float(j % 997);
      ps.push_back(t);
      named.push_back({"p" + std::to_string(i), t, i % 2 == 0});
    }
    const double b1 = 0.9, b2 = 0.98, eps = 1e-6, wd = 0.1, lr = 0.01;
    Adam opt(named, float(b1), float(b2), float(eps), float(wd), decoupled);
    std::vector<std::vector<double>> w(sizes.size()), m(sizes.size()), v(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) {
      w[i].assign(ps[i].data(), ps[i].data() + sizes[i]);
      m[i].assign(size_t(sizes[i]), 0.0), v[i].assign(size_t(sizes[i]), 0.0);
    }
    for (int step = 1; step <= 2; ++step) {
      for (size_t i = 0; i < sizes.size(); ++i)
        for (int64_t j = 0; j < sizes[i]; ++j) ps[i].grad_data()[j] = float(((j * 37 + step * 11) % 23) - 11) / 8.0f;
      opt.step(float(lr));
      double c1 = 1 - std::pow(b1, step), c2 = 1 - std::pow(b2, step);
      for (size_t i = 0; i < sizes.size(); ++i) {
        double decay = decoupled && named[i].decay ? wd : 0.0, l2 = decoupled ? 0.0 : wd;
        int64_t wrong = 0, first_wrong = -1;
        for (int64_t j = 0; j < sizes[i]; ++j) {
          double g = double(float(((j * 37 + step * 11) % 23) - 11) / 8.0f) + l2 * w[i][j];
          m[i][j] = b1 * m[i][j] + (1 - b1) * g;
          v[i][j] = b2 * v[i][j] + (1 - b2) * g * g;
          w[i][j] -= lr * decay * w[i][j];
          w[i][j] -= lr * (m[i][j] / c1) / (std::sqrt(v[i][j] / c2) + eps);
          if (std::fabs(double(ps[i].data()[j]) - w[i][j]) > 1e-5) wrong += 1, first_wrong = first_wrong < 0 ? j : first_wrong;
        }
        CHECK_MESSAGE(wrong == 0, (decoupled ? "AdamW" : "Adam") << ", step " << step << ", a parameter of " << sizes[i]
                                 << " elements: " << wrong << " elements off Adam's update (first: element " << first_wrong
                                 << "): those weights train wrong or not at all");
      }
    }
  }
}

TEST_CASE("AdamW converges on a small least-squares problem") {
  Rng r(4);
  Tensor X = Tensor::randn({64, 5}, 1.0f, r);
  Tensor w_true = Tensor::from({5, 1}, {1.0f, -2.0f, 0.5f, 3.0f, -1.0f});
  Tensor y = matmul(X, w_true);
  Tensor w = Tensor::zeros({5, 1}).set_requires_grad();
  Adam opt({{"w", w, true}}, 0.9f, 0.999f, 1e-8f, 1e-4f, true);
  float loss0 = 0, loss = 0;
  for (int i = 0; i < 800; ++i) {
    Tensor d = sub(matmul(X, w), y);
    Tensor l = mean(mul(d, d));
    if (i == 0) loss0 = l.item();
    loss = l.item();
    opt.zero_grad();
    l.backward();
    opt.step(0.05f);
  }
  CHECK(loss < 1e-3f * loss0);
  for (int k = 0; k < 5; ++k) CHECK(w.data()[k] == doctest::Approx(w_true.data()[k]).epsilon(0.02));
}

TEST_CASE("optimizer state round trip and mismatch errors") {
  Tensor w = Tensor::from({3}, {1, 2, 3}).set_requires_grad();
  Adam a({{"w", w, true}});
  for (int i = 0; i < 3; ++i) w.grad_data()[i] = 0.1f * (i + 1);
  a.step(0.1f);
  auto st = a.state();
  Tensor w2 = Tensor::from({3}, {1, 2, 3}).set_requires_grad();
  Adam b({{"w", w2, true}});
  b.load_state(st);
  CHECK(b.steps() == 1);
  CHECK(b.state() == st);
  Tensor w3 = Tensor::from({2}, {1, 2}).set_requires_grad();
  Adam c({{"w", w3, true}});
  CHECK_THROWS_WITH_AS(c.load_state(st), "optimizer state: 'm/w' has 3 values, parameter has 2", Error);
  Adam d({{"x", w3, true}});
  CHECK_THROWS_WITH_AS(d.load_state(st), "optimizer state: no parameter named 'w'", Error);
}

TEST_CASE("schedules: warm-up, cosine, reciprocal square root") {
  Schedule s;
  s.kind = Schedule::kCosine, s.base_lr = 1.0f, s.warmup = 10, s.total = 110;
  CHECK(s.lr(5) == doctest::Approx(0.5f));
  CHECK(s.lr(10) == doctest::Approx(1.0f));
  CHECK(s.lr(60) == doctest::Approx(0.5f));
  CHECK(s.lr(110) == doctest::Approx(0.0f));
  s.kind = Schedule::kRsqrt;
  CHECK(s.lr(10) == doctest::Approx(1.0f));
  CHECK(s.lr(40) == doctest::Approx(0.5f));
  s.kind = Schedule::kConstant;
  CHECK(s.lr(1000) == doctest::Approx(1.0f));
  CHECK_THROWS_WITH_AS(Schedule::parse("step"), "unknown schedule 'step' (expected constant, cosine or rsqrt)", Error);
}

TEST_CASE("gradient clipping scales to the global norm") {
  Tensor a = Tensor::zeros({2}).set_requires_grad(), b = Tensor::zeros({1}).set_requires_grad();
  a.grad_data()[0] = 3, a.grad_data()[1] = 0, b.grad_data()[0] = 4;
  std::vector<NamedTensor> ps = {{"a", a, true}, {"b", b, true}};
  CHECK(clip_grad_norm(ps, 1.0f) == doctest::Approx(5.0f));
  CHECK(a.grad_data()[0] == doctest::Approx(0.6f).epsilon(1e-5));
  CHECK(b.grad_data()[0] == doctest::Approx(0.8f).epsilon(1e-5));
  CHECK(clip_grad_norm(ps, 10.0f) == doctest::Approx(1.0f).epsilon(1e-5));  // below: untouched
  CHECK(a.grad_data()[0] == doctest::Approx(0.6f).epsilon(1e-5));
}

// The norm that is logged and used to clip is the square root of every gradient's square, summed
// in double here, element by element.  The sizes hit every path of clip_grad_norm's eight-lane sum:
// whole groups of 8, tails of 1..7, a parameter shorter than one group, and a long one.  Each size
// alone, then all at once (lanes carry over between parameters).  The clipped gradients are
// g * max_norm / norm, and their norm is then max_norm.
TEST_CASE("clip_grad_norm: the norm summed in double over parameters of many sizes; clipping scales by max_norm / norm") {
  const std::vector<int64_t> sizes = {1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 1000};
  Rng rng(17);
  std::vector<NamedTensor> all;
  for (int64_t n : sizes) {
    Tensor t = Tensor::zeros({n}).set_requires_grad();
    for (int64_t j = 0; j < n; ++j) t.grad_data()[j] = rng.uniform() * 2.0f - 1.0f;  // |g| < 1, mixed signs
    all.push_back({"p" + std::to_string(n), t, true});
  }
  Tensor frozen = Tensor::zeros({5});  // no gradient: left out of the norm
  all.push_back({"frozen", frozen, true});
  auto norm_in_double = [](const std::vector<NamedTensor>& ps) {
    long double sq = 0;
    for (auto& p : ps)
      if (p.tensor.has_grad())
        for (int64_t j = 0; j < p.tensor.numel(); ++j) sq += (long double)p.tensor.grad_data()[j] * p.tensor.grad_data()[j];
    return double(std::sqrt(sq));
  };
  for (size_t i = 0; i < sizes.size(); ++i) {  // each size alone, no clipping (max_norm 0)
    std::vector<NamedTensor> one = {all[i]};
    CAPTURE(sizes[i]);
    CHECK(clip_grad_norm(one, 0.0f) == doctest::Approx(norm_in_double(one)).epsilon(1e-6));
  }
  std::vector<float> before;
  for (auto& p : all)
    if (p.tensor.has_grad()) before.insert(before.end(), p.tensor.grad_data(), p.tensor.grad_data() + p.tensor.numel());
  const double want = norm_in_double(all);  // about sqrt(1204 / 3) = 20
  CHECK(clip_grad_norm(all, 1000.0f) == doctest::Approx(want).epsilon(1e-6));  // above the norm: untouched
  CHECK(clip_grad_norm(all, 0.0f) == doctest::Approx(want).epsilon(1e-6));     // 0: never clips
  const float max_norm = 2.5f;
  CHECK(clip_grad_norm(all, max_norm) == doctest::Approx(want).epsilon(1e-6));  // the norm before clipping
  size_t i = 0;
  double worst = 0;
  for (auto& p : all) {
    if (!p.tensor.has_grad()) continue;
    for (int64_t j = 0; j < p.tensor.numel(); ++j, ++i)
      worst = std::max(worst, std::fabs(p.tensor.grad_data()[j] - before[i] * max_norm / want));
  }
  CHECK(worst < 1e-6);  // |g| max_norm / norm < 0.13: a few float ulps
  CHECK_FALSE(frozen.has_grad());
  CHECK(norm_in_double(all) == doctest::Approx(max_norm).epsilon(1e-5));
  // a non-finite norm clips nothing (the trainer then stops, naming the first non-finite gradient)
  all[0].tensor.grad_data()[0] = INFINITY;
  float g1 = all[1].tensor.grad_data()[0];
  CHECK(std::isinf(clip_grad_norm(all, 1.0f)));
  CHECK(all[1].tensor.grad_data()[0] == g1);
}

TEST_CASE("cosine schedule with min_lr > 0: reaches min_lr at the end, never goes below it, never rises") {
  Schedule s;
  s.kind = Schedule::kCosine, s.base_lr = 1.0f, s.min_lr = 0.1f, s.warmup = 10, s.total = 110;
  CHECK(s.lr(10) == doctest::Approx(1.0f));
  CHECK(s.lr(60) == doctest::Approx(0.55f));  // half-way: the mean of base_lr and min_lr
  CHECK(s.lr(110) == doctest::Approx(0.1f));
  CHECK(s.lr(500) == doctest::Approx(0.1f));  // past the end: stays at min_lr
  float prev = s.lr(10);
  for (int64_t step = 10; step <= 300; ++step) {
    CAPTURE(step);
    float lr = s.lr(step);
    CHECK(lr >= 0.1f - 1e-6f);
    CHECK(lr <= prev + 1e-6f);
    prev = lr;
  }
}

TEST_CASE("sinusoidal positions: dimensions 2k and 2k+1 are the sine and cosine of one frequency 10000^(-2k/D)") {
  const int64_t L = 50, D = 8;
  SinusoidalPositions sp(L, D);
  for (int64_t p : {1, 7, 49})
    for (int64_t k = 0; k < D / 2; ++k) {
      CAPTURE(p);
      CAPTURE(k);
      double angle = double(p) * std::pow(10000.0, -double(2 * k) / double(D));
      CHECK(sp.table.data()[p * D + 2 * k] == doctest::Approx(std::sin(angle)).epsilon(1e-5));
      CHECK(sp.table.data()[p * D + 2 * k + 1] == doctest::Approx(std::cos(angle)).epsilon(1e-5));
    }
}

TEST_CASE("feed-forward: dropout acts on the hidden layer in training only") {
  Rng r(6);
  FeedForward ff(6, 32, 0.5f, r);
  Tensor x = Tensor::randn({4, 3, 6}, 1.0f, r);
  ff.eval();
  Tensor y_eval = ff.forward(x);
  // in eval mode the block is fc2(gelu(fc1 x)), exactly
  Tensor ref = ff.fc2->forward(gelu(ff.fc1->forward(x)));
  CHECK(y_eval.to_vector() == ref.to_vector());
  ff.train();
  Tensor y1 = ff.forward(x), y2 = ff.forward(x);
  CHECK(y1.to_vector() != y_eval.to_vector());
  CHECK(y1.to_vector() != y2.to_vector());  // a fresh mask each call
}

TEST_CASE("an input read by two layers gets the sum of both gradients (Linear, LayerNorm)") {
  // Attention's q, k and v projections all read x: a backward that overwrites
  // x's gradient instead of adding to it keeps only the last path.
  Rng r(9);
  Linear a(5, 4, true, r), b(5, 4, true, r);
  LayerNorm n(5);
  Tensor x = Tensor::randn({3, 5}, 1.0f, r).set_requires_grad();
  std::vector<Tensor> in = {x, a.weight, b.weight};
  GradcheckResult g = gradcheck([&](auto&) { return add(mul(a.forward(x), b.forward(x)), a.forward(n.forward(x))); }, in);
  INFO(g.worst);
  CHECK(g.ok);
}

// Planted bugs r79f-xavier-*, r79f-init-normal-*: a bound or a range a reviewer fears is wrong
// passes "every |w| <= a" above; the moments of 60000 draws do not.
TEST_CASE("initialisers: Xavier-uniform fills [-a, a] with a = sqrt(6 / (fan_in + fan_out)); init_normal has its std") {
  // fan_in 30, fan_out 10: a = sqrt(6 / 40) = 0.38730, variance a^2 / 3 = 2 / 40 = 0.05
  // (fan_in alone: 0.0667; fan_out alone: 0.2; sqrt(3 / 40): 0.025; drawn in [0, a): mean 0.19)
  Rng r(11);
  const double a = std::sqrt(6.0 / 40.0);
  double n = 0, sum = 0, sq = 0, lo = 1, hi = -1;
  for (int k = 0; k < 200; ++k) {
    Tensor w = init_xavier_uniform(30, 10, r);
    CHECK(w.shape() == Shape{30, 10});
    for (float v : w.to_vector()) n += 1, sum += v, sq += double(v) * v, lo = std::min(lo, double(v)), hi = std::max(hi, double(v));
  }
  CHECK(std::fabs(sum / n) < 0.005);  // the mean's standard error is 0.0009
  CHECK(sq / n == doctest::Approx(0.05).epsilon(0.02));
  CHECK(lo >= -a - 1e-6);
  CHECK(hi <= a + 1e-6);
  CHECK(lo < -0.99 * a);
  CHECK(hi > 0.99 * a);
  // init_normal({100, 100}, 0.02): mean 0, standard deviation 0.02 (bug: the std ignored, 1)
  sum = sq = n = 0;
  for (int k = 0; k < 5; ++k)
    for (float v : init_normal({100, 100}, 0.02f, r).to_vector()) n += 1, sum += v, sq += double(v) * v;
  CHECK(std::fabs(sum / n) < 0.0005);  // standard error 0.00009
  CHECK(std::sqrt(sq / n) == doctest::Approx(0.02).epsilon(0.02));
}

// ---- round r79m: layers and the module tree against values worked out by hand --------------
// The cases above check shapes, gradchecks and one-level flags; a bias added twice or never (it
// starts at 0), a gain and shift swapped (the init gain 1 and shift 0 hide it in a gradcheck), a
// grandchild left in training mode or a grandchild's name missing its parent passed them all.

// Guards r79m-linear-bias-dropped, -bias-twice, -nobias-registered: W = [[1,2],[3,4]] ([in,out]),
// b = (10,20), x = (1,1): x W + b = (1+3, 2+4) + b = (14, 26) (no bias: (4,6); twice: (24,46)).
// Linear(3, 2, bias = false) holds one parameter, the 3 x 2 weight.
TEST_CASE("Linear by hand: (1,1) [[1,2],[3,4]] + (10,20) = (14,26); without a bias, no bias parameter") {
  Rng r(1);
  Linear lin(2, 2, true, r);
  for (int i = 0; i < 4; ++i) lin.weight.data()[i] = float(i + 1);
  lin.bias.data()[0] = 10, lin.bias.data()[1] = 20;
  CHECK(lin.forward(Tensor::from({1, 2}, {1, 1})).to_vector() == std::vector<float>{14, 26});
  Linear nb(3, 2, false, r);
  REQUIRE(nb.named_parameters().size() == 1);
  CHECK(nb.named_parameters()[0].name == "weight");
  CHECK(nb.num_parameters() == 6);
  CHECK_FALSE(nb.bias.defined());
}

// Guards r79m-linear-rng-ignored, r79m-embedding-rng-ignored: a layer built from Rng(5) draws from
// it, not from the global generator (which moves between the two builds here).
TEST_CASE("Linear and Embedding draw their initial weights from the generator passed") {
  Rng a(5), b(5);
  Linear la(3, 2, true, a);
  global_rng().normal();
  Linear lb(3, 2, true, b);
  CHECK(la.weight.to_vector() == lb.weight.to_vector());
  Embedding ea(4, 3, a);
  global_rng().normal();
  Embedding eb(4, 3, b);
  CHECK(ea.weight.to_vector() == eb.weight.to_vector());
}

// Guards r79m-layernorm-gain-bias-swapped, -gain-zero, -beta-one, -eps-dropped.  (1,3): mean 2,
// variance 1, normed (-1,1)/sqrt(1 + 1e-5).  Gain (2,2), shift (0,1): (-2, 3) (swapped: (2,3)).
// At init (gain 1, shift 0): (-1, 1).  A constant row (5,5) normalises to 0 thanks to epsilon
// (without it 0/0 = NaN), leaving the shift (0,1).
TEST_CASE("LayerNorm by hand: (1,3) with gain (2,2), shift (0,1) = (-2,3); at init (-1,1); a constant row gives the shift") {
  LayerNorm n(2);
  Tensor x = Tensor::from({2, 2}, {1, 3, 5, 5});
  std::vector<float> y = n.forward(x).to_vector();
  CHECK(y[0] == doctest::Approx(-1.0).epsilon(1e-5));
  CHECK(y[1] == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(y[2] == 0.0f);
  CHECK(y[3] == 0.0f);
  n.gamma.data()[0] = 2, n.gamma.data()[1] = 2, n.beta.data()[0] = 0, n.beta.data()[1] = 1;
  y = n.forward(x).to_vector();
  CHECK(y[0] == doctest::Approx(-2.0).epsilon(1e-5));
  CHECK(y[1] == doctest::Approx(3.0).epsilon(1e-5));
  CHECK(y[2] == doctest::Approx(0.0));
  CHECK(y[3] == doctest::Approx(1.0));
}

// Guards r79m-positions-last-rows: table rows (0,1), (2,3), (4,5), (6,7); a 2-position input of
// zeros gets the first two rows, (0,1,2,3), not the last two.
TEST_CASE("learned positions: a shorter sequence adds the table's first rows") {
  Rng r(2);
  LearnedPositions lp(4, 2, r);
  for (int i = 0; i < 8; ++i) lp.table.data()[i] = float(i);
  CHECK(lp.forward(Tensor::zeros({1, 2, 2})).to_vector() == std::vector<float>{0, 1, 2, 3});
}

// Guards r79m-dropout-in-eval: Dropout(0.25) on 4000 ones keeps each as 1 / 0.75 = 4/3 or drops it
// to 0, about 1000 zeros (standard deviation 27); in eval mode it returns the ones unchanged.
TEST_CASE("Dropout(0.25) by hand: outputs 0 or 4/3, a quarter dropped, identity in eval") {
  Dropout d(0.25f);
  Tensor x = Tensor::ones({4000});
  int zeros = 0, other = 0;
  for (float v : d.forward(x).to_vector()) zeros += v == 0.0f, other += v != 0.0f && std::fabs(v - 4.0f / 3.0f) > 1e-6f;
  CHECK(other == 0);
  CHECK(zeros > 850);
  CHECK(zeros < 1150);
  d.eval();
  CHECK(d.forward(x).to_vector() == x.to_vector());
}

// Guards r79m-train-one-level, r79m-collect-prefix-lost, r79m-collect-children-params-as-buffers,
// r79m-ffn-fc2-named-fc1: a tree two levels deep, outer -> block -> ff (fc1, fc2, drop), with a
// sinusoidal table (a buffer) beside the block.  Names carry every level's prefix; the only buffer is
// pos.table; eval() reaches the grandchild's dropout and train() turns it back on.
TEST_CASE("a two-level module tree: full names, buffers apart, train/eval reach the grandchildren") {
  Rng r(3);
  Module outer;
  auto block = outer.register_module("block", std::make_shared<Module>());
  auto ff = block->register_module("ff", std::make_shared<FeedForward>(2, 3, 0.5f, r));
  outer.register_module("pos", std::make_shared<SinusoidalPositions>(4, 2));
  std::vector<std::string> names;
  for (auto& p : outer.named_parameters()) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"block.ff.fc1.weight", "block.ff.fc1.bias", "block.ff.fc2.weight", "block.ff.fc2.bias"});
  auto buffers = outer.named_buffers();
  REQUIRE(buffers.size() == 1);
  CHECK(buffers[0].name == "pos.table");
  outer.eval();
  CHECK_FALSE(ff->drop->is_training());
  CHECK_FALSE(ff->is_training());
  outer.train();
  CHECK(ff->drop->is_training());
}
