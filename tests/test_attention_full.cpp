// Full attention and the attention registry.
#include "tests/attention_check.h"

using namespace az;
using namespace az::testing;

TEST_CASE("full attention equals a naive per-element computation, with padding") {
  AttentionConfig c;
  c.dim = 8, c.heads = 2, c.max_len = 16;
  auto att = make_attention("full", c);
  Tensor x = random_input(2, 7, 8, 1);
  Tensor pad = padding(7, {7, 4});
  Tensor y = att->forward(x, pad);
  // naive: loop over every (b, h, i, j)
  auto lin = [&](const std::string& n, const Tensor& in) {
    return add(matmul(in, find_param(*att, "proj." + n + ".weight")), find_param(*att, "proj." + n + ".bias"));
  };
  Tensor q = lin("q", x), k = lin("k", x), v = lin("v", x);
  std::vector<float> o(2 * 7 * 8, 0.0f);
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 7; ++i) {
        std::vector<double> s(7);
        double mx = -1e30, z = 0;
        for (int j = 0; j < 7; ++j) {
          double d = 0;
          for (int t = 0; t < 4; ++t) d += q.data()[(b * 7 + i) * 8 + h * 4 + t] * k.data()[(b * 7 + j) * 8 + h * 4 + t];
          s[j] = pad.data()[b * 7 + j] ? -1e30 : d / 2.0;
          mx = std::max(mx, s[j]);
        }
        for (int j = 0; j < 7; ++j) z += (s[j] = pad.data()[b * 7 + j] ? 0 : std::exp(s[j] - mx));
        for (int j = 0; j < 7; ++j)
          for (int t = 0; t < 4; ++t) o[(b * 7 + i) * 8 + h * 4 + t] += float(s[j] / z) * v.data()[(b * 7 + j) * 8 + h * 4 + t];
      }
  Tensor ref = lin("o", Tensor::from({2, 7, 8}, o));
  check_close(y, ref, 1e-5, "full vs naive");
}

TEST_CASE("full attention: causal mask, gradients, weights") {
  AttentionConfig c;
  c.dim = 8, c.heads = 2, c.max_len = 16, c.causal = true;
  auto att = make_attention("full", c);
  Tensor x = random_input(2, 5, 8, 2);
  // causal: changing a later token does not change earlier outputs
  Tensor y1 = att->forward(x, Tensor());
  Tensor x2 = x.clone();
  for (int t = 0; t < 8; ++t) x2.data()[(0 * 5 + 4) * 8 + t] += 1.0f;
  Tensor y2 = att->forward(x2, Tensor());
  for (int i = 0; i < 4 * 8; ++i) CHECK(y1.data()[i] == doctest::Approx(y2.data()[i]));
  check_gradients(*att, [&](const Tensor& in) { return att->forward(in, padding(5, {5, 3})); }, x);
  Tensor w = att->attention_weights(narrow(x, 0, 0, 1), Tensor());
  CHECK(w.shape() == Shape{2, 5, 5});
  CHECK(w.data()[0 * 5 + 1] == 0.0f);  // query 0 cannot see key 1
  CHECK(w.data()[4 * 5 + 0] > 0.0f);
}

TEST_CASE("registry: names, validation errors") {
  auto names = attention_names();
  CHECK(std::find(names.begin(), names.end(), "full") != names.end());
  auto err = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  AttentionConfig c;
  CHECK(err([&] { make_attention("nope", c); }).find("unknown model 'nope' (valid: ") == 0);
  c.heads = 3;
  CHECK(err([&] { make_attention("full", c); }) == "--heads 3 must be positive and divide --dim 64");
  c.heads = 4;
  c.knobs["window"] = 3;
  CHECK(err([&] { make_attention("full", c); }) == "model 'full' has no setting --window (it has none)");
}
