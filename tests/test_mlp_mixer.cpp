// The attention-free token mixers: MLP-Mixer, gMLP, FNet (and the FFT op).
#include <cmath>

#include "mlp_mixer/fft_op.h"
#include "mlp_mixer/token_mlp.h"
#include "tests/attention_check.h"
#include "tests/util.h"

using namespace az;
using namespace az::testing;

namespace {

using az::test::error_of;

AttentionConfig config(int64_t dim, int64_t max_len, std::map<std::string, double> knobs = {}, bool causal = false) {
  AttentionConfig c;
  c.dim = dim, c.heads = 1, c.max_len = max_len, c.causal = causal, c.knobs = std::move(knobs);
  return c;
}

// key_pad [B,N] -> keep [B,N,1] (1 at real positions).
Tensor keep_of(const Tensor& pad) {
  Tensor k = Tensor::empty({pad.size(0), pad.size(1), 1});
  for (int64_t i = 0; i < pad.numel(); ++i) k.data()[i] = pad.data()[i] != 0 ? 0.0f : 1.0f;
  return k;
}

// Outputs at non-padded rows are unchanged when padded rows of x change.
void check_padding_ignored(Attention& m, const Tensor& x, const Tensor& pad) {
  NoGradGuard ng;
  Tensor y1 = m.forward(x, pad);
  Tensor x2 = x.clone();
  Rng r(5);
  for (int64_t i = 0; i < x2.numel(); ++i)
    if (pad.data()[i / x.size(2)] != 0) x2.data()[i] += 10.0f * r.normal();
  Tensor y2 = m.forward(x2, pad);
  for (int64_t i = 0; i < y1.numel(); ++i)
    if (pad.data()[i / x.size(2)] == 0) REQUIRE(y1.data()[i] == doctest::Approx(y2.data()[i]).epsilon(1e-6));
  for (int64_t i = 0; i < y1.numel(); ++i) REQUIRE(std::isfinite(y2.data()[i]));
}

// FNet's reference form (mlp_mixer/fnet.cpp: the DFT as products of cos and sin matrices,
// per example over N or its own length), which fourier_real (FFTW) must equal.
Tensor fnet_reference(const Tensor& x, const Tensor& pad, bool own_length, bool ortho) {
  auto m = make_attention("fnet", config(x.size(2), x.size(1), {{"own_length", own_length}, {"ortho", ortho}}));
  return m->reference(x, pad);
}

}  // namespace

// ---- MLP-Mixer -------------------------------------------------------------------------

// The fused token MLP against the composition it replaced in mixer.cpp, in values and in the
// gradients of all five inputs: small (one thread) and at the Fashion-MNIST mixer's shape
// per layer (B S D above the threading threshold: one example per thread, summed weights).
TEST_CASE("token_mlp equals matmul -> add -> gelu -> matmul -> add, values and every gradient") {
  for (auto [B, N, S, D] : {std::array<int64_t, 4>{2, 5, 3, 7}, std::array<int64_t, 4>{9, 16, 64, 128}}) {
    Rng r(uint64_t(11 + B));
    std::vector<Tensor> in = {Tensor::randn({B, N, D}, 1.0f, r), Tensor::randn({N, S}, 0.5f, r), Tensor::randn({S}, 0.5f, r),
                              Tensor::randn({N, S}, 0.5f, r), Tensor::randn({N}, 0.5f, r)};
    for (auto& t : in) t.set_requires_grad(true);
    Tensor probe = Tensor::randn({B, N, D}, 1.0f, r);
    auto grads = [&](const Tensor& y) {
      for (auto& t : in) t.zero_grad();
      sum(mul(y, probe)).backward();
      std::vector<Tensor> g;
      for (auto& t : in) g.push_back(t.grad().clone());
      return g;
    };
    Tensor yf = token_mlp(in[0], in[1], in[2], in[3], in[4]);
    auto gf = grads(yf);
    Tensor yr = add(matmul(in[3], gelu(add(matmul(in[1], in[0], true, false), reshape(in[2], {S, 1})))),
                    reshape(in[4], {N, 1}));
    auto gr = grads(yr);
    check_close(yf.detach(), yr.detach(), 1e-5, "forward");
    const char* names[] = {"x", "w1", "b1", "w2", "b2"};
    for (int i = 0; i < 5; ++i) check_close(gf[i], gr[i], 1e-4, std::string("gradient of ") + names[i]);
  }
  Rng r(4);
  std::vector<Tensor> in = {Tensor::randn({2, 4, 3}, 1.0f, r), Tensor::randn({4, 5}, 0.5f, r), Tensor::randn({5}, 0.5f, r),
                            Tensor::randn({4, 5}, 0.5f, r), Tensor::randn({4}, 0.5f, r)};
  for (auto& t : in) t.set_requires_grad(true);
  GradcheckResult g = gradcheck([](const std::vector<Tensor>& v) { return token_mlp(v[0], v[1], v[2], v[3], v[4]); }, in);
  INFO(g.worst);
  CHECK(g.ok);
  CHECK(error_of<Error>([&] { token_mlp(in[0], in[1], in[2], in[3], Tensor::zeros({3})); }) ==
        "token_mlp: x [2,4,3], w1 [4,5], b1 [5], w2 [4,5], b2 [3] do not fit (expected [B,N,D], [N,S], [S], [N,S], [N])");
}

TEST_CASE("mixer: token mixing equals transpose -> Linear -> GELU -> Linear -> transpose, with padding") {
  auto m = make_attention("mixer", config(6, 16, {{"token_hidden", 5}}));
  Tensor x = random_input(2, 11, 6, 1);  // N = 11 < max_len: weights sliced
  Tensor pad = padding(11, {11, 7});
  // Give the biases values so they are tested too.
  Rng r(3);
  for (auto& p : m->named_parameters())
    if (p.name.find("bias") != std::string::npos)
      for (int64_t i = 0; i < p.tensor.numel(); ++i) p.tensor.data()[i] = 0.5f * r.normal();
  auto ref = [&](const Tensor& in) {
    Tensor w1 = narrow(find_param(*m, "token_fc1.weight"), 0, 0, 11);  // Linear N -> D_S, [in,out]
    Tensor w2 = narrow(find_param(*m, "token_fc2.weight"), 0, 0, 11);  // Linear D_S -> N, stored [out,in]
    Tensor b2 = narrow(find_param(*m, "token_fc2.bias"), 0, 0, 11);
    Tensor t = transpose(mul(in, keep_of(pad)), 1, 2);                  // [B,D,N]
    Tensor h = gelu(add(matmul(t, w1), find_param(*m, "token_fc1.bias")));
    return transpose(add(matmul(h, w2, false, true), b2), 1, 2);        // [B,N,D]
  };
  check_same_function(*m, [&](const Tensor& in) { return m->forward(in, pad); }, ref, x, pad);
  check_same_function(*m, [&](const Tensor& in) { return m->forward(in, Tensor()); },
                      [&](const Tensor& in) {
                        Tensor t = transpose(in, 1, 2);
                        Tensor h = gelu(add(matmul(t, narrow(find_param(*m, "token_fc1.weight"), 0, 0, 11)),
                                            find_param(*m, "token_fc1.bias")));
                        Tensor y = add(matmul(h, narrow(find_param(*m, "token_fc2.weight"), 0, 0, 11), false, true),
                                       narrow(find_param(*m, "token_fc2.bias"), 0, 0, 11));
                        return transpose(y, 1, 2);
                      },
                      x, Tensor());
}

TEST_CASE("mixer: padding ignored, gradients, knobs and errors") {
  auto m = make_attention("mixer", config(8, 12));
  CHECK(find_param(*m, "token_fc1.weight").shape() == Shape{12, 4});  // D_S = dim/2 by default
  CHECK(attention_info("mixer").family == "attention-free");
  CHECK_FALSE(m->replaces_ffn());
  Tensor x = random_input(2, 9, 8, 2);
  Tensor pad = padding(9, {6, 9});
  check_padding_ignored(*m, x, pad);
  check_gradients(*m, [&](const Tensor& in) { return m->forward(in, pad); }, x);
  Tensor full = random_input(1, 12, 8, 4);  // N = max_len: no slicing
  Tensor y = m->forward(full, Tensor());
  CHECK(y.shape() == Shape{1, 12, 8});
  CHECK(error_of<Error>([&] { m->forward(random_input(1, 13, 8, 1), Tensor()); }) ==
        "mixer: sequence of 13 positions exceeds --seq-len 12 (the token-mixing weights have one row per position)");
  CHECK(error_of<Error>([&] { make_attention("mixer", config(8, 12, {{"token_hidden", 5}}, true)); }) ==
        "mixer: the causal form has one hidden unit per position: --token_hidden must be 0 (= --seq-len 12), got 5");
  Pattern p = m->pattern(narrow(x, 0, 0, 1), narrow(pad, 0, 0, 1));
  CHECK(p.cell[0 * 9 + 7] == 0);  // padded column
  CHECK(p.cell[8 * 9 + 5] == 1);
}

TEST_CASE("mixer's causal form: triangular token-mixing weights, equal to a by-hand loop, gradients checked") {
  global_rng().seed_with(13);
  auto m = make_attention("mixer", config(4, 10, {}, true));
  CHECK(find_param(*m, "token_fc1.weight").shape() == Shape{10, 10});  // one hidden unit per position
  for (auto& p : m->named_parameters())  // biases start at 0: give them values the loop must use
    if (p.name.find("bias") != std::string::npos)
      for (int64_t i = 0; i < p.tensor.numel(); ++i) p.tensor.data()[i] = 0.1f * float(i % 5) - 0.2f;
  const int64_t B = 2, N = 7, D = 4;
  Tensor x = random_input(B, N, D, 3);
  Tensor y = m->forward(x, Tensor());
  const float *w1 = find_param(*m, "token_fc1.weight").data(), *b1 = find_param(*m, "token_fc1.bias").data();
  const float *w2 = find_param(*m, "token_fc2.weight").data(), *b2 = find_param(*m, "token_fc2.bias").data();
  auto gelu = [](double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < N; ++i)
      for (int64_t c = 0; c < D; ++c) {
        double want = b2[i];
        for (int64_t h = 0; h <= i; ++h) {  // output i reads hidden units h <= i ...
          double pre = b1[h];
          for (int64_t j = 0; j <= h; ++j) pre += double(w1[j * 10 + h]) * x.data()[(b * N + j) * D + c];  // ... which read j <= h
          want += double(w2[i * 10 + h]) * gelu(pre);
        }
        CHECK(y.data()[(b * N + i) * D + c] == doctest::Approx(want).epsilon(1e-5));
      }
  check_gradients(*m, [&](const Tensor& in) { return m->forward(in, Tensor()); }, x);
}

// ---- gMLP ----------------------------------------------------------------------------------

TEST_CASE("gmlp: at initialisation the output is close to the Z1 path") {
  auto m = make_attention("gmlp", config(8, 20, {{"hidden", 6}}));
  CHECK(m->replaces_ffn());
  CHECK(find_param(*m, "spatial.weight").shape() == Shape{20, 20});
  Tensor x = random_input(2, 13, 8, 6);
  NoGradGuard ng;
  Tensor y = m->forward(x, Tensor());
  // out ~ proj_out(gelu(proj_u(x))): the gate W_s LN(Z2) + 1 is 1 + O(1e-3).
  Tensor z1 = gelu(add(matmul(x, find_param(*m, "proj_u.weight")), find_param(*m, "proj_u.bias")));
  Tensor ref = add(matmul(z1, find_param(*m, "proj_out.weight")), find_param(*m, "proj_out.bias"));
  check_close(y, ref, 5e-3, "gmlp at init vs Z1 path");
  auto def = make_attention("gmlp", config(8, 20));
  CHECK(find_param(*def, "proj_u.weight").shape() == Shape{8, 24});  // h = 3 * dim by default
  float eps = 1e-3f / 20;
  Tensor ws = find_param(*m, "spatial.weight");
  for (int64_t i = 0; i < ws.numel(); ++i) REQUIRE(std::fabs(ws.data()[i]) <= eps);
}

// A loop-by-loop gMLP: z1, z2 from the module's own projections, then
// gate[i,c] = sum_j W[i,j] z2n[j,c] + b[i] over the allowed j.
static Tensor gmlp_naive(Attention& m, const Tensor& x, const Tensor& pad, bool causal) {
  NoGradGuard ng;
  int64_t B = x.size(0), N = x.size(1);
  Tensor z1 = gelu(add(matmul(x, find_param(m, "proj_u.weight")), find_param(m, "proj_u.bias")));
  Tensor z2 = layer_norm(gelu(add(matmul(x, find_param(m, "proj_v.weight")), find_param(m, "proj_v.bias"))),
                         find_param(m, "norm.gamma"), find_param(m, "norm.beta"));
  Tensor W = find_param(m, "spatial.weight"), bias = find_param(m, "spatial.bias");
  int64_t L = W.size(0), h = z1.size(2);
  Tensor g = Tensor::zeros(z1.shape());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < N; ++i)
      for (int64_t c = 0; c < h; ++c) {
        double s = bias.data()[i];
        for (int64_t j = 0; j < N; ++j) {
          if ((causal && j > i) || (pad.defined() && pad.data()[b * N + j] != 0)) continue;
          s += double(W.data()[i * L + j]) * z2.data()[(b * N + j) * h + c];
        }
        g.data()[(b * N + i) * h + c] = float(s) * z1.data()[(b * N + i) * h + c];
      }
  return add(matmul(g, find_param(m, "proj_out.weight")), find_param(m, "proj_out.bias"));
}

TEST_CASE("gmlp: equals a naive spatial gating loop; padding; gradients") {
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    auto m = make_attention("gmlp", config(6, 12, {{"hidden", 4}}, causal));
    Tensor ws = find_param(*m, "spatial.weight");  // larger weights, so the mixing shows
    Rng r(8);
    for (int64_t i = 0; i < ws.numel(); ++i) ws.data()[i] = 0.3f * r.normal();
    Tensor x = random_input(2, 10, 6, 9);
    Tensor pad = padding(10, {10, 7});
    Tensor y = [&] {
      NoGradGuard ng;
      return m->forward(x, pad);
    }();
    Tensor keep = Tensor::ones(y.shape());
    for (int64_t i = 0; i < keep.numel(); ++i) keep.data()[i] = pad.data()[i / 6] != 0 ? 0.0f : 1.0f;
    check_close(mul(y, keep), mul(gmlp_naive(*m, x, pad, causal), keep), 1e-4, "gmlp vs naive");
    check_padding_ignored(*m, x, pad);
    check_gradients(*m, [&](const Tensor& in) { return m->forward(in, pad); }, x);
    Tensor w = m->attention_weights(narrow(x, 0, 1, 1), narrow(pad, 0, 1, 1));
    CHECK(w.shape() == Shape{1, 10, 10});
    CHECK(w.data()[5 * 10 + 8] == 0.0f);  // padded column
    CHECK((w.data()[2 * 10 + 4] == 0.0f) == causal);
    CHECK(w.data()[4 * 10 + 2] == ws.data()[4 * 12 + 2]);
  }
}

TEST_CASE("gmlp: causal outputs ignore later positions") {
  auto m = make_attention("gmlp", config(6, 8, {{"hidden", 4}}, true));
  Tensor ws = find_param(*m, "spatial.weight");
  Rng r(1);
  for (int64_t i = 0; i < ws.numel(); ++i) ws.data()[i] = 0.3f * r.normal();
  NoGradGuard ng;
  Tensor x = random_input(1, 7, 6, 3);
  Tensor y1 = m->forward(x, Tensor());
  Tensor x2 = x.clone();
  for (int t = 0; t < 6; ++t) x2.data()[5 * 6 + t] += 1.0f;
  Tensor y2 = m->forward(x2, Tensor());
  for (int i = 0; i < 5 * 6; ++i) CHECK(y1.data()[i] == doctest::Approx(y2.data()[i]));
  CHECK(y1.data()[6 * 6] != doctest::Approx(y2.data()[6 * 6]));
}

// ---- FNet and the FFT op -----------------------------------------------------------------------

TEST_CASE("fourier_real equals Re(F_N X F_D) with DFT matrices, forward and gradient") {
  // Odd and even sizes, a prime length, D odd (the mirrored half-spectrum columns).
  for (auto nd : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {8, 4}, {37, 8}, {13, 7}, {6, 5}}) {
    int64_t N = nd.first, D = nd.second;
    for (bool ortho : {true, false}) {
      CAPTURE(N);
      CAPTURE(D);
      CAPTURE(ortho);
      Tensor x = random_input(3, N, D, uint64_t(N * 10 + D));
      Module none;
      double tol = ortho ? 2e-5 : 2e-5 * std::sqrt(double(N * D));
      check_same_function(none, [&](const Tensor& in) { return fourier_real(in, Tensor(), false, ortho); },
                          [&](const Tensor& in) { return fnet_reference(in, Tensor(), false, ortho); }, x, Tensor(),
                          tol);
    }
  }
}

TEST_CASE("fourier_real with padding: zeroed rows, own lengths, gradients") {
  Tensor x = random_input(3, 19, 6, 11);
  Tensor pad = padding(19, {19, 12, 5});
  pad.data()[0 * 19 + 3] = 1;  // an interior padded row as well
  Module none;
  for (bool own : {false, true}) {
    CAPTURE(own);
    check_same_function(none, [&](const Tensor& in) { return fourier_real(in, pad, own, true); },
                        [&](const Tensor& in) { return fnet_reference(in, pad, own, true); }, x, pad, 2e-5);
    check_gradients(none, [&](const Tensor& in) { return fourier_real(in, pad, own, true); }, x);
  }
  // An all-padding example transforms nothing with own_length: its outputs are 0.
  Tensor y = fourier_real(x, padding(19, {19, 0, 5}), true, true);
  for (int64_t i = 19 * 6; i < 2 * 19 * 6; ++i) REQUIRE(y.data()[i] == 0.0f);
  CHECK(error_of<Error>([&] { fourier_real(x, padding(18, {18, 18, 18})); }) ==
        "fourier_real: key_pad [3,18] must be [B,N] = [3,19]");
}

TEST_CASE("fnet: linear in X, padding ignored, own length equals the unpadded sequence") {
  auto m = make_attention("fnet", config(8, 64));
  CHECK(m->named_parameters().empty());
  CHECK(attention_info("fnet").family == "attention-free");
  NoGradGuard ng;
  Tensor a = random_input(2, 21, 8, 1), b = random_input(2, 21, 8, 2);
  Tensor lhs = m->forward(add(mul_scalar(a, 2.0f), mul_scalar(b, -0.5f)), Tensor());
  Tensor rhs = add(mul_scalar(m->forward(a, Tensor()), 2.0f), mul_scalar(m->forward(b, Tensor()), -0.5f));
  check_close(lhs, rhs, 1e-5, "linearity");
  Tensor pad = padding(21, {21, 13});
  check_padding_ignored(*m, a, pad);
  // Example 1 padded to 21 gives the outputs of its 13 real rows alone.
  Tensor y = m->forward(a, pad);
  Tensor alone = m->forward(narrow(narrow(a, 0, 1, 1), 1, 0, 13), Tensor());
  check_close(narrow(narrow(y, 0, 1, 1), 1, 0, 13), alone, 1e-6, "own length vs unpadded");
  // own_length 0 transforms over the padded length instead (still ignoring padded inputs).
  auto hf = make_attention("fnet", config(8, 64, {{"own_length", 0}, {"ortho", 0}}));
  check_padding_ignored(*hf, a, pad);
  check_close(hf->forward(a, pad), fnet_reference(a, pad, false, false), 1e-3, "own_length 0 vs reference");
  CHECK(error_of<Error>([&] { make_attention("fnet", config(8, 64, {}, true)); })  ==
        "model 'fnet' has no causal form (its Fourier transform over positions mixes every position into each output)");
  size_t plans = fourier_plan_count();
  m->forward(a, pad);  // the same lengths again: no new plans
  CHECK(fourier_plan_count() == plans);
}

TEST_CASE("fnet: gradients through the module") {
  auto m = make_attention("fnet", config(5, 16));
  Tensor x = random_input(2, 9, 5, 7);
  check_gradients(*m, [&](const Tensor& in) { return m->forward(in, padding(9, {9, 4})); }, x);
}

// The 2-D DFT worked out by hand, in both forms.  2 x 2, X = [[1,2],[3,4]]: every twiddle is +-1,
// Y = [[1+2+3+4, 1-2+3-4], [1+2-3-4, 1-2-3+4]] = [[10,-2],[-4,0]].  3 x 1, X = (1,2,3):
// Y_0 = 6, Y_1 = 1 + 2w + 3w^2 with w = e^{-2 pi i/3} = -1/2 - i sqrt(3)/2, Re = 1 - 1 - 3/2 = -1.5,
// Im = sqrt(3)/2; Y_2 = conj(Y_1).  The default (ortho) scales by 1/sqrt(N D): [[5,-1],[-2,0]] and
// (6, -1.5, -1.5)/sqrt(3).  Guards: the imaginary part, one axis only, a 1/(N D) scale, the unscaled
// transform as the default (both forms read the knob).
TEST_CASE("fnet: Re(FFT) of a 2 x 2 and a 3 x 1 input worked out by hand, default scaling 1/sqrt(N D)") {
  struct Case {
    int64_t N, D;
    std::vector<float> x;
    std::vector<double> unscaled;
  };
  for (const Case& c : {Case{2, 2, {1, 2, 3, 4}, {10, -2, -4, 0}}, Case{3, 1, {1, 2, 3}, {6, -1.5, -1.5}}}) {
    CAPTURE(c.N);
    Tensor x = Tensor::from({1, c.N, c.D}, c.x);
    auto dflt = make_attention("fnet", config(c.D, 8));
    auto hf = make_attention("fnet", config(c.D, 8, {{"ortho", 0}}));
    NoGradGuard ng;
    double s = 1.0 / std::sqrt(double(c.N * c.D));
    for (Tensor y : {dflt->forward(x, Tensor()), dflt->reference(x, Tensor())})
      for (size_t i = 0; i < c.unscaled.size(); ++i) CHECK(y.data()[i] == doctest::Approx(s * c.unscaled[i]).epsilon(1e-5));
    for (Tensor y : {hf->forward(x, Tensor()), hf->reference(x, Tensor())})
      for (size_t i = 0; i < c.unscaled.size(); ++i) CHECK(y.data()[i] == doctest::Approx(c.unscaled[i]).epsilon(1e-5));
  }
}

// ---- round r79m: Mixer's and gMLP's mixing against values worked out by hand ----------------
// The cases above compare forward() with reference(), a loop or a composition that read the same
// parameters: a bug in what the module builds (both layers reading W1, a bias started at 1, the
// output layer started at 0, the gate norm's epsilon) is shared and passed them.

// Guards r79m-mixer-w2-is-w1 (and token mixing run along channels).  N = 2, D = 2, D_S = 1:
// W1 = (1,2), b1 = 0.5, W2 = (1,-1), b2 = (0,3).  Channel 0 reads (1,-1): pre = 1 - 2 + 0.5 = -0.5,
// gelu(-0.5) = -0.154286, y = (-0.154286, 3.154286).  Channel 1 reads (0,1): pre = 2.5,
// gelu(2.5) = 2.484916, y = (2.484916, 0.515084).  (Both layers W1: y_1 = 2 gelu + 3.)
TEST_CASE("mixer by hand: 2 tokens, 2 channels, one hidden unit") {
  auto m = make_attention("mixer", config(2, 2, {{"token_hidden", 1}}));
  auto set = [&](const char* name, std::vector<float> v) {
    Tensor p = find_param(*m, name);
    std::copy(v.begin(), v.end(), p.data());
  };
  set("token_fc1.weight", {1, 2}), set("token_fc1.bias", {0.5f});
  set("token_fc2.weight", {1, -1}), set("token_fc2.bias", {0, 3});
  Tensor x = Tensor::from({1, 2, 2}, {1, 0, -1, 1});
  NoGradGuard ng;
  const std::vector<double> want = {-0.154286, 2.484916, 3.154286, 0.515084};
  for (Tensor y : {m->forward(x, Tensor()), m->reference(x, Tensor())})
    for (int i = 0; i < 4; ++i) CHECK(y.data()[i] == doctest::Approx(want[i]).epsilon(1e-5));
}

// Guards r79m-mixer-b1-init-one, r79m-mixer-w2-init-zero: at initialisation both token biases are 0
// (so an all-zero input maps to 0: gelu(0) = 0), and both weights are Xavier-uniform over
// (max_len, D_S) = (12, 4): |w| <= sqrt(6/16) = 0.612, and of 48 draws some above half that.
TEST_CASE("mixer at initialisation: zero biases (zeros in, zeros out), both token weights Xavier-uniform") {
  auto m = make_attention("mixer", config(8, 12));
  NoGradGuard ng;
  for (float v : m->forward(Tensor::zeros({1, 12, 8}), Tensor()).to_vector()) REQUIRE(v == 0.0f);
  const float a = std::sqrt(6.0f / 16.0f);
  for (const char* name : {"token_fc1.weight", "token_fc2.weight"}) {
    CAPTURE(name);
    float hi = 0;
    for (float v : find_param(*m, name).to_vector()) hi = std::max(hi, std::fabs(v));
    CHECK(hi <= a);
    CHECK(hi > a / 2);
  }
}

// Guards r79m-gmlp-norm-on-value-half, -ref-halves-swapped, -spatial-transposed, -norm-eps-large
// and the gate bias starting at 0.  D = h = N = 2, U1 = I, U2 = [[0,1],[1,0]] (swaps channels),
// V = I, linear biases 0, norm at init, W_s = [[0, 0.5], [0.25, 0]], b at its init 1.
// x_0 = (2,0), x_1 = (0,1).  Z1_0 = (gelu 2, 0) = (1.954598, 0), Z1_1 = (0, gelu 1 = 0.841192).
// Z2_0 = gelu(0,2) -> LN (-1,1); Z2_1 = gelu(1,0) -> LN (1,-1) (to 1e-5).
// gate_0 = 0.5 LN(Z2_1) + 1 = (1.5, 0.5); gate_1 = 0.25 LN(Z2_0) + 1 = (0.75, 1.25).
// out_0 = (1.954598 * 1.5, 0) = (2.931897, 0); out_1 = (0, 0.841192 * 1.25) = (0, 1.051490).
TEST_CASE("gmlp by hand: spatial gating of 2 tokens, U2 swapping channels, W_s off the diagonal, bias 1") {
  auto m = make_attention("gmlp", config(2, 2, {{"hidden", 2}}));
  auto set = [&](const char* name, std::vector<float> v) {
    Tensor p = find_param(*m, name);
    std::copy(v.begin(), v.end(), p.data());
  };
  set("proj_u.weight", {1, 0, 0, 1}), set("proj_v.weight", {0, 1, 1, 0}), set("proj_out.weight", {1, 0, 0, 1});
  set("spatial.weight", {0, 0.5f, 0.25f, 0});
  Tensor x = Tensor::from({1, 2, 2}, {2, 0, 0, 1});
  NoGradGuard ng;
  const std::vector<double> want = {2.931897, 0, 0, 1.051490};
  for (Tensor y : {m->forward(x, Tensor()), m->reference(x, Tensor())})
    for (int i = 0; i < 4; ++i) CHECK(y.data()[i] == doctest::Approx(want[i]).epsilon(1e-4));
}
