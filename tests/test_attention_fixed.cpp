// The fixed sparse patterns: local, strided, global, longformer, bigbird, and
// the block-sparse kernel they share.  Every variant's forward and gradients
// equal the dense attention with an explicitly built mask of the entries it
// is meant to compute (N = 37, blocks that do not divide it, padding present).
#include <algorithm>
#include <functional>

#include "attention/kernels/blocksparse.h"
#include "tests/attention_check.h"

using namespace az;
using namespace az::testing;

namespace {

using Allowed = std::function<bool(int64_t h, int64_t i, int64_t j)>;

// [1,H,N,N] boolean mask, 1 = excluded, from a rule.
Tensor mask_from(int64_t H, int64_t N, const Allowed& ok) {
  Tensor m = Tensor::zeros({1, H, N, N});
  for (int64_t h = 0; h < H; ++h)
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < N; ++j) m.data()[(h * N + i) * N + j] = ok(h, i, j) ? 0.0f : 1.0f;
  return m;
}

Tensor with_padding(const Tensor& m, const Tensor& pad) { return pad.defined() ? add(m, key_mask(pad)) : m; }

std::shared_ptr<Attention> make(const std::string& name, int64_t dim, int64_t heads, int64_t max_len,
                                std::map<std::string, double> knobs, bool causal = false) {
  AttentionConfig c;
  c.dim = dim, c.heads = heads, c.max_len = max_len, c.causal = causal, c.knobs = std::move(knobs);
  return make_attention(name, c);
}

void copy_params(const Module& from, Module& to) {
  auto src = from.named_parameters();
  for (auto& p : to.named_parameters())
    for (auto& s : src)
      if (s.name == p.name) std::copy(s.tensor.data(), s.tensor.data() + s.tensor.numel(), p.tensor.data());
}

// Two modules with the same parameter names (values copied from a to b) compute
// the same function: outputs at non-padding rows, gradients of x and of every parameter.
void check_same_modules(Attention& a, Attention& b, const Tensor& x, const Tensor& pad) {
  copy_params(a, b);
  Rng r(78);
  Tensor probe = Tensor::randn(x.shape(), 1.0f, r);
  for (int64_t i = 0; i < probe.numel(); ++i)
    if (pad.defined() && pad.data()[i / x.size(2)] != 0) probe.data()[i] = 0;  // padding rows are unspecified
  auto run = [&](Attention& m, std::vector<Tensor>& grads) {
    m.zero_grad();
    x.zero_grad();
    Tensor y = m.forward(x, pad);
    sum(mul(y, probe)).backward();
    grads = {x.grad().clone()};
    for (auto& p : m.named_parameters()) grads.push_back(p.tensor.grad().clone());
    return mul(y, probe).detach();
  };
  std::vector<Tensor> ga, gb;
  Tensor ya = run(a, ga), yb = run(b, gb);
  check_close(ya, yb, 1e-5, "forward");
  auto names = a.named_parameters();
  REQUIRE(ga.size() == gb.size());
  for (size_t i = 0; i < ga.size(); ++i) check_close(ga[i], gb[i], 1e-4, i ? "gradient of " + names[i - 1].name : "gradient of x");
}

// forward and gradients of the variant equal the dense reference with `ok` (+ padding).
void check_against_dense(Attention& att, int64_t H, int64_t N, int64_t D, const Allowed& ok,
                         const std::vector<int64_t>& lens, uint64_t seed = 3) {
  Tensor x = random_input(int64_t(lens.size()), N, D, seed);
  Tensor pad = padding(N, lens);
  Tensor mask = with_padding(mask_from(H, N, ok), pad);
  check_same_function(
      att, [&](const Tensor& in) { return att.forward(in, pad); },
      [&](const Tensor& in) { return dense_reference(att, in, mask, H); }, x, pad);
}

bool window_ok(int64_t i, int64_t j, int64_t w, int64_t s, bool causal) {
  int64_t dist = i > j ? i - j : j - i;
  return dist % s == 0 && dist <= w * s && (!causal || j <= i);
}

std::string legend_name(const Pattern& p, int64_t i, int64_t j) {
  uint8_t c = p.cell[size_t(i * p.n + j)];
  return c ? p.legend[c - 1] : std::string();
}

// BigBird's random blocks recomputed from its buffer by the documented rule:
// row block i of head h ranks the allowed blocks j by hash64(seed << 32 | j).
std::vector<std::vector<std::vector<int64_t>>> bigbird_random(const Attention& att, int64_t H, int64_t N, int64_t b,
                                                              int64_t r) {
  Tensor seeds;
  for (auto& t : att.named_buffers())
    if (t.name == "random_seed") seeds = t.tensor;
  REQUIRE(seeds.defined());
  int64_t M = seeds.size(1), nb = (N + b - 1) / b;
  std::vector<std::vector<std::vector<int64_t>>> out(static_cast<size_t>(H), std::vector<std::vector<int64_t>>(static_cast<size_t>(nb)));
  for (int64_t h = 0; h < H; ++h)
    for (int64_t i = 1; i + 1 < nb; ++i) {
      std::vector<std::pair<uint64_t, int64_t>> cand;
      for (int64_t j = 1; j + 1 < nb; ++j)
        if (j < i - 1 || j > i + 1) cand.push_back({hash64(uint64_t(seeds.data()[h * M + i]) << 32 | uint64_t(j)), j});
      std::sort(cand.begin(), cand.end());
      for (size_t t = 0; t < std::min(cand.size(), size_t(r)); ++t) out[size_t(h)][size_t(i)].push_back(cand[t].second);
    }
  return out;
}

}  // namespace

// ---- the kernel -----------------------------------------------------------------------
namespace {
// Head 0: irregular groups (scattered rows and columns, some entries unlabelled,
// one row in no group); head 1: a dilated band with a global position.
Layouts irregular_layouts(int64_t N) {
  auto L = std::make_shared<SparseLayout>();
  L->n = N;
  Rng r(9);
  std::vector<int32_t> order(static_cast<size_t>(N));
  for (int64_t i = 0; i < N; ++i) order[size_t(i)] = int32_t((i * 5) % N);  // N coprime with 5
  for (int64_t a = 0; a + 1 < N; a += 4) {  // order[N-1] stays in no group
    SparseGroup G;
    for (int64_t t = a; t < std::min(a + 4, N - 1); ++t) G.rows.push_back(order[size_t(t)]);
    for (int64_t j = 0; j < N; ++j)
      if (r.uniform() < 0.5f) G.cols.push_back(int32_t(j));
    for (size_t e = 0; e < G.rows.size() * G.cols.size(); ++e) G.label.push_back(r.uniform() < 0.8f ? 1 : 0);
    L->groups.push_back(G);
  }
  L->finish();
  BandSpec s;
  s.n = N, s.block = 3, s.radius = 2, s.stride = 3, s.globals = {5};
  return {L, band_layout(s)};
}

Tensor layouts_mask(const Layouts& L, int64_t H, int64_t N) {
  Tensor m = Tensor::ones({1, H, N, N});
  for (int64_t h = 0; h < H; ++h) {
    const SparseLayout& l = *L[L.size() == 1 ? 0 : size_t(h)];
    for (size_t g = 0; g < l.groups.size(); ++g)
      for (size_t r = 0; r < l.groups[g].rows.size(); ++r)
        for (size_t c = 0; c < l.groups[g].cols.size(); ++c)
          if (l.label_at(g, r, c)) m.data()[(h * N + l.groups[g].rows[r]) * N + l.groups[g].cols[c]] = 0.0f;
  }
  return m;
}
}  // namespace

TEST_CASE("sparse_attention equals masked dense attention: values and gradients of q, k, v") {
  const int64_t B = 2, H = 2, N = 13, d = 4;
  Layouts L = irregular_layouts(N);
  Rng r(1);
  Tensor q = Tensor::randn({B, H, N, d}, 1.0f, r).set_requires_grad();
  Tensor k = Tensor::randn({B, H, N, d}, 1.0f, r).set_requires_grad();
  Tensor v = Tensor::randn({B, H, N, 3}, 1.0f, r).set_requires_grad();
  Tensor pad = padding(N, {N, 9});
  Tensor mask = with_padding(layouts_mask(L, H, N), pad);
  Tensor probe = Tensor::randn({B, H, N, 3}, 1.0f, r);
  auto grads = [&](const Tensor& y) {
    q.zero_grad(), k.zero_grad(), v.zero_grad();
    sum(mul(y, probe)).backward();
    return std::vector<Tensor>{q.grad().clone(), k.grad().clone(), v.grad().clone()};
  };
  Tensor ys = sparse_attention(q, k, v, L, pad, 0.5f);
  auto gs = grads(ys);
  Tensor yd = dense_attention(q, k, v, mask, 0.5f);
  auto gd = grads(yd);
  check_close(ys.detach(), yd.detach(), 1e-5, "forward");
  for (int i = 0; i < 3; ++i) check_close(gs[size_t(i)], gd[size_t(i)], 1e-5, "gradient " + std::to_string(i));
  // the row in no group gives zeros
  int64_t lonely = (5 * (N - 1)) % N;
  for (int64_t t = 0; t < 3; ++t) CHECK(ys.data()[((1 * H + 0) * N + lonely) * 3 + t] == 0.0f);
}

TEST_CASE("sparse_attention: gradcheck, with and without dropout; dense weights") {
  const int64_t B = 1, H = 2, N = 13, d = 3;
  Layouts L = irregular_layouts(N);
  Rng r(2);
  Tensor q = Tensor::randn({B, H, N, d}, 1.0f, r).set_requires_grad();
  Tensor k = Tensor::randn({B, H, N, d}, 1.0f, r).set_requires_grad();
  Tensor v = Tensor::randn({B, H, N, d}, 1.0f, r).set_requires_grad();
  Tensor pad = padding(N, {11});
  auto f = [&](float p) {
    return [&, p](const std::vector<Tensor>&) {
      Rng fixed(42);  // the same dropout mask on every evaluation
      return sparse_attention(q, k, v, L, pad, 0.7f, p, true, fixed);
    };
  };
  GradcheckResult g0 = gradcheck(f(0.0f), {q, k, v});
  INFO(g0.worst);
  CHECK(g0.ok);
  GradcheckResult g1 = gradcheck(f(0.3f), {q, k, v});
  INFO(g1.worst);
  CHECK(g1.ok);
  // dropout changes the output, and is off outside training
  Rng a(42), b(42);
  Tensor y0 = sparse_attention(q, k, v, L, pad, 0.7f, 0.3f, false, a);
  Tensor y1 = sparse_attention(q, k, v, L, pad, 0.7f, 0.3f, true, b);
  check_close(y0, sparse_attention(q, k, v, L, pad, 0.7f), 0, "eval ignores dropout");
  double diff = 0;
  for (int64_t i = 0; i < y0.numel(); ++i) diff += std::fabs(y0.data()[i] - y1.data()[i]);
  CHECK(diff > 1e-3);
  Tensor w;
  sparse_attention(q, k, v, L, pad, 0.7f, 0.0f, false, global_rng(), &w);
  Tensor wd;
  dense_attention(q, k, v, with_padding(layouts_mask(L, H, N), pad), 0.7f, 0.0f, false, &wd);
  check_close(w, reshape(wd, {H, N, N}), 1e-6, "dense weights");
}

TEST_CASE("sparse_attention_merged ([B,N,H*d], heads read in place) equals sparse_attention on split heads") {
  const int64_t B = 2, H = 2, N = 13, d = 4;
  Layouts L = irregular_layouts(N);
  Rng r(3);
  Tensor q = Tensor::randn({B, N, H * d}, 1.0f, r).set_requires_grad();
  Tensor k = Tensor::randn({B, N, H * d}, 1.0f, r).set_requires_grad();
  Tensor v = Tensor::randn({B, N, H * 3}, 1.0f, r).set_requires_grad();
  Tensor pad = padding(N, {N, 10});
  Tensor probe = Tensor::randn({B, N, H * 3}, 1.0f, r);
  auto grads = [&](const Tensor& y) {
    q.zero_grad(), k.zero_grad(), v.zero_grad();
    sum(mul(y, probe)).backward();
    return std::vector<Tensor>{q.grad().clone(), k.grad().clone(), v.grad().clone()};
  };
  Tensor ym = sparse_attention_merged(q, k, v, H, L, pad, 0.5f);
  auto gm = grads(ym);
  Tensor ys = merge_heads(sparse_attention(split_heads(q, H), split_heads(k, H), split_heads(v, H), L, pad, 0.5f));
  auto gs = grads(ys);
  check_close(ym.detach(), ys.detach(), 1e-6, "forward");
  for (int i = 0; i < 3; ++i) check_close(gm[size_t(i)], gs[size_t(i)], 1e-6, "gradient " + std::to_string(i));
  CHECK_THROWS_WITH(sparse_attention_merged(q, k, v, 3, L, pad, 0.5f),
                    "sparse_attention_merged: q [2,13,8], k [2,13,8], v [2,13,6] must be [B,N,H*d], [B,N,H*d], "
                    "[B,N,H*dv] with H=3");
}

TEST_CASE("sparse layouts reject bad input with one-line errors") {
  SparseLayout L;
  L.n = 4;
  L.groups.push_back({{0, 1}, {0, 9}, {1, 1}, true});
  CHECK_THROWS_WITH(L.finish(), "sparse layout: group 0 col 9 outside [0,4)");
  L.groups[0] = {{0, 0}, {0, 1}, {1, 1}, true};
  CHECK_THROWS_WITH(L.finish(), "sparse layout: group 0 row 0 already in another group");
  L.groups[0] = {{0}, {1, 1}, {1, 1}, true};
  CHECK_THROWS_WITH(L.finish(), "sparse layout: group 0 lists col 1 twice");
  L.groups[0] = {{0}, {0, 1}, {1}, false};
  CHECK_THROWS_WITH(L.finish(), "sparse layout: group 0 has 1 labels for 1 rows x 2 cols");
  L.groups[0] = {{0}, {0, 1}, {1, 1}, false};
  L.finish();
  Tensor q = Tensor::zeros({1, 1, 5, 2});
  CHECK_THROWS_WITH(sparse_attention(q, q, q, {std::make_shared<SparseLayout>(L)}, Tensor(), 1.0f),
                    "sparse_attention: layout for n=4 used with N=5");
}

// ---- local ------------------------------------------------------------------------------
TEST_CASE("local: equals the dense band |i-j| <= w (N=37, block 5, padding), causal too") {
  for (bool causal : {false, true})
    for (int64_t w : {1, 4, 7}) {
      CAPTURE(causal);
      CAPTURE(w);
      auto att = make("local", 16, 2, 64, {{"window", w}, {"block", 5}}, causal);
      check_against_dense(*att, 2, 37, 16, [&](int64_t, int64_t i, int64_t j) { return window_ok(i, j, w, 1, causal); },
                          {37, 29});
    }
}

TEST_CASE("local: gradcheck") {
  auto att = make("local", 8, 2, 16, {{"window", 2}, {"block", 3}}, true);
  Tensor x = random_input(2, 10, 8, 5);
  check_gradients(*att, [&](const Tensor& in) { return att->forward(in, padding(10, {10, 7})); }, x);
}

TEST_CASE("local with w >= N equals full attention, and causal local equals causal full") {
  for (bool causal : {false, true}) {
    auto loc = make("local", 16, 4, 64, {{"window", 40}, {"block", 8}}, causal);
    auto full = make("full", 16, 4, 64, {}, causal);
    check_same_modules(*loc, *full, random_input(2, 37, 16, 6), padding(37, {37, 20}));
  }
}

// ---- strided ----------------------------------------------------------------------------
TEST_CASE("strided: equals the dense dilated band i-j = k*s, |k| <= w (N=37, block 4, padding), causal too") {
  for (bool causal : {false, true})
    for (int64_t s : {2, 3, 5}) {
      CAPTURE(causal);
      CAPTURE(s);
      int64_t w = 3;
      auto att = make("strided", 16, 2, 64, {{"window", w}, {"stride", s}, {"block", 4}}, causal);
      check_against_dense(*att, 2, 37, 16, [&](int64_t, int64_t i, int64_t j) { return window_ok(i, j, w, s, causal); },
                          {37, 30});
    }
}

TEST_CASE("strided: gradcheck; stride 1 equals local") {
  auto att = make("strided", 8, 2, 16, {{"window", 2}, {"stride", 3}, {"block", 2}});
  Tensor x = random_input(2, 11, 8, 7);
  check_gradients(*att, [&](const Tensor& in) { return att->forward(in, padding(11, {11, 8})); }, x);
  for (bool causal : {false, true}) {
    auto st = make("strided", 16, 2, 64, {{"window", 5}, {"stride", 1}, {"block", 6}}, causal);
    auto loc = make("local", 16, 2, 64, {{"window", 5}, {"block", 6}}, causal);
    check_same_modules(*st, *loc, random_input(2, 37, 16, 8), padding(37, {37, 25}));
  }
}

// ---- global -----------------------------------------------------------------------------
TEST_CASE("global: equals dense attention over global rows and columns (N=37, block 5, padding)") {
  int64_t g = 3;
  auto att = make("global", 16, 2, 64, {{"globals", g}, {"block", 5}});
  check_against_dense(*att, 2, 37, 16, [&](int64_t, int64_t i, int64_t j) { return i < g || j < g; }, {37, 31});
  Tensor x = random_input(2, 9, 16, 9);
  check_gradients(*att, [&](const Tensor& in) { return att->forward(in, padding(9, {9, 6})); }, x);
}

TEST_CASE("global with learned tokens: dense attention over [tokens ; x], tokens dropped; gradcheck") {
  int64_t g = 2, N = 37, D = 16, H = 2;
  auto att = make("global", D, H, 64, {{"globals", g}, {"learned", 1}, {"block", 5}});
  Tensor tokens = find_param(*att, "tokens");
  CHECK(tokens.shape() == Shape{g, D});
  Tensor pad = padding(N, {N, 28});
  Tensor pad_ext = concat({Tensor::zeros({2, g}), pad}, 1);
  Tensor mask = with_padding(mask_from(H, N + g, [&](int64_t, int64_t i, int64_t j) { return i < g || j < g; }), pad_ext);
  Tensor x = random_input(2, N, D, 10);
  check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); },
                      [&](const Tensor& in) {
                        Tensor t = add(Tensor::zeros({2, g, D}), reshape(tokens, {1, g, D}));
                        return narrow(dense_reference(*att, concat({t, in}, 1), mask, H), 1, g, N);
                      },
                      x, pad);
  Pattern p = att->pattern(narrow(x, 0, 0, 1), Tensor());  // among real tokens: nothing
  CHECK(p.n == N);
  CHECK(std::count(p.cell.begin(), p.cell.end(), 0) == N * N);
  Tensor w = att->attention_weights(narrow(x, 0, 0, 1), Tensor());
  CHECK(w.shape() == Shape{H, N, N});
  Tensor x2 = random_input(1, 7, D, 11);
  check_gradients(*att, [&](const Tensor& in) { return att->forward(in, Tensor()); }, x2);
}

TEST_CASE("global: all tokens global equals full attention") {
  auto glob = make("global", 16, 2, 64, {{"globals", 64}, {"block", 4}});
  auto full = make("full", 16, 2, 64, {});
  check_same_modules(*glob, *full, random_input(2, 37, 16, 12), padding(37, {37, 22}));
}

TEST_CASE("global: with one global token, every other output is that token's projected value") {
  int64_t N = 37, D = 16;
  auto att = make("global", D, 2, 64, {{"globals", 1}, {"block", 8}});
  Tensor x = random_input(1, N, D, 13);
  Tensor y = att->forward(x, Tensor());
  auto lin = [&](const std::string& n, const Tensor& in) {
    return add(matmul(in, find_param(*att, "proj." + n + ".weight")), find_param(*att, "proj." + n + ".bias"));
  };
  Tensor v0 = lin("o", lin("v", narrow(x, 1, 0, 1)));  // [1,1,D]
  for (int64_t i = 1; i < N; ++i) check_close(narrow(y, 1, i, 1).detach(), v0.detach(), 1e-5, "token " + std::to_string(i));
}

// ---- longformer -------------------------------------------------------------------------
TEST_CASE("longformer: local heads, dilated heads and global tokens equal the dense mask (N=37, padding)") {
  int64_t H = 4, w = 3, s = 3, g = 2;
  auto att = make("longformer", 16, H, 64, {{"window", w}, {"dilation", s}, {"globals", g}, {"block", 5}});
  // the last half of the heads are dilated
  check_against_dense(*att, H, 37, 16, [&](int64_t h, int64_t i, int64_t j) {
    return i < g || j < g || window_ok(i, j, w, h < H / 2 ? 1 : s, false);
  }, {37, 26});
  auto one = make("longformer", 16, H, 64, {{"window", 2}, {"dilation", 2}, {"dilated_heads", 1}, {"globals", 1}, {"block", 4}});
  check_against_dense(*one, H, 37, 16, [&](int64_t h, int64_t i, int64_t j) {
    return i < 1 || j < 1 || window_ok(i, j, 2, h < H - 1 ? 1 : 2, false);
  }, {37, 33});
  Pattern p = att->pattern(random_input(1, 37, 16, 1), Tensor());
  CHECK(p.legend == std::vector<std::string>{"global", "window", "stride"});
  CHECK(legend_name(p, 0, 30) == "global");
  CHECK(legend_name(p, 30, 1) == "global");
  CHECK(legend_name(p, 20, 18) == "window");
  CHECK(legend_name(p, 20, 11) == "stride");
  CHECK(legend_name(p, 20, 10) == "");
}

TEST_CASE("longformer --causal --globals 0: local and dilated heads see only their window before them (dense mask)") {
  int64_t H = 4, w = 3, s = 3;
  auto att = make("longformer", 16, H, 64, {{"window", w}, {"dilation", s}, {"globals", 0}, {"block", 5}}, true);
  check_against_dense(*att, H, 37, 16, [&](int64_t h, int64_t i, int64_t j) {
    return window_ok(i, j, w, h < H / 2 ? 1 : s, true);
  }, {37, 26});
}

TEST_CASE("longformer: gradcheck; errors") {
  auto att = make("longformer", 8, 2, 16, {{"window", 1}, {"dilation", 2}, {"globals", 1}, {"block", 3}});
  Tensor x = random_input(2, 9, 8, 14);
  check_gradients(*att, [&](const Tensor& in) { return att->forward(in, padding(9, {9, 7})); }, x);
  CHECK_THROWS_WITH(make("longformer", 8, 2, 16, {{"dilated_heads", 3}}), "--dilated-heads 3 must be at most --heads 2");
  CHECK_THROWS_WITH(make("longformer", 8, 2, 16, {}, true), doctest::Contains("give --globals 0"));
  CHECK_NOTHROW(make("longformer", 8, 2, 16, {{"globals", 0}}, true));
}

// ---- bigbird ----------------------------------------------------------------------------
TEST_CASE("bigbird: equals the dense mask of window, global and random blocks (N=37, block 4, padding)") {
  // Each example's blocks are those of its own length: the 27-token example's last block (6) is
  // global and its random blocks are drawn among its 7 blocks, as if it were alone.
  int64_t H = 2, N = 37, b = 4, r = 2;
  auto att = make("bigbird", 16, H, 48, {{"block", b}, {"random_blocks", r}});
  auto rule = [&](int64_t L) {  // the rule at length L
    int64_t nb = (L + b - 1) / b;
    auto rnd = bigbird_random(*att, H, L, b, r);
    return [=](int64_t h, int64_t i, int64_t j) {
      int64_t bi = i / b, bj = j / b;
      if (bi >= nb || bj >= nb) return false;                               // past the example
      if (bi == 0 || bi == nb - 1 || bj == 0 || bj == nb - 1) return true;  // global
      if (bj >= bi - 1 && bj <= bi + 1) return true;                      // window
      auto& R = rnd[size_t(h)][size_t(bi)];
      return std::find(R.begin(), R.end(), bj) != R.end();                 // random
    };
  };
  const std::vector<int64_t> lens = {37, 27};
  Tensor x = random_input(2, N, 16, 3), pad = padding(N, lens);
  Tensor mask = with_padding(concat({mask_from(H, N, rule(37)), mask_from(H, N, rule(27))}, 0), pad);  // [2,H,N,N]
  check_same_function(
      *att, [&](const Tensor& in) { return att->forward(in, pad); },
      [&](const Tensor& in) { return dense_reference(*att, in, mask, H); }, x, pad);
  CHECK(rule(27)(0, 4 * b, 6 * b));  // block 6 is the 27-token example's last block: global
  // every middle block row has r random blocks, and the heads differ
  auto rnd = bigbird_random(*att, H, N, b, r);
  for (int64_t i = 1; i + 1 < (N + b - 1) / b; ++i) CHECK(rnd[0][size_t(i)].size() == size_t(r));
  CHECK(rnd[0] != rnd[1]);
}

TEST_CASE("bigbird: pattern() is the union of its window, global and random parts") {
  int64_t N = 64, b = 4, r = 3, nb = N / b;
  auto att = make("bigbird", 16, 2, 64, {{"block", b}, {"random_blocks", r}});
  auto rnd = bigbird_random(*att, 2, N, b, r);
  Pattern p = att->pattern(random_input(1, N, 16, 1), Tensor());
  CHECK(p.legend == std::vector<std::string>{"global", "window", "random"});
  int mismatches = 0;
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < N; ++j) {
      int64_t bi = i / b, bj = j / b;
      bool global = bi == 0 || bi == nb - 1 || bj == 0 || bj == nb - 1;
      bool window = bj >= bi - 1 && bj <= bi + 1;
      auto& R = rnd[0][size_t(bi)];
      bool random = std::find(R.begin(), R.end(), bj) != R.end();
      CHECK_FALSE((random && (global || window)));  // random blocks exclude the others
      std::string want = global ? "global" : window ? "window" : random ? "random" : "";
      mismatches += legend_name(p, i, j) != want;
    }
  CHECK(mismatches == 0);
  // the layout lives in the buffer: loading another layer's seeds (as a checkpoint does) gives its layout
  auto other = make("bigbird", 16, 2, 64, {{"block", b}, {"random_blocks", r}});
  Tensor mine = att->named_buffers()[0].tensor, theirs = other->named_buffers()[0].tensor;
  CHECK(mine.shape() == Shape{2, nb});
  CHECK(att->pattern(random_input(1, N, 16, 1), Tensor()).cell != other->pattern(random_input(1, N, 16, 1), Tensor()).cell);
  std::vector<float> saved = mine.to_vector();
  std::copy(theirs.data(), theirs.data() + theirs.numel(), mine.data());
  CHECK(att->pattern(random_input(1, N, 16, 1), Tensor()).cell == other->pattern(random_input(1, N, 16, 1), Tensor()).cell);
  std::copy(saved.begin(), saved.end(), mine.data());
  // the weights live exactly on the pattern
  Tensor w = att->attention_weights(random_input(1, N, 16, 2), Tensor());
  CHECK(w.shape() == Shape{2, N, N});
  for (int64_t i = 0; i < N; ++i) {
    double rowsum = 0;
    for (int64_t j = 0; j < N; ++j) {
      rowsum += w.data()[i * N + j];
      if (!p.cell[size_t(i * N + j)]) CHECK(w.data()[i * N + j] == 0.0f);
    }
    CHECK(rowsum == doctest::Approx(1.0).epsilon(1e-5));
  }
}

TEST_CASE("bigbird: few blocks equals full attention; gradcheck; too long is an error") {
  auto bb = make("bigbird", 16, 2, 40, {{"block", 6}, {"random_blocks", 3}});  // 7 blocks: every row sees all
  auto full = make("full", 16, 2, 40, {});
  check_same_modules(*bb, *full, random_input(2, 37, 16, 15), padding(37, {37, 19}));
  auto small = make("bigbird", 8, 2, 16, {{"block", 2}, {"random_blocks", 1}});
  Tensor x2 = random_input(2, 13, 8, 16);
  check_gradients(*small, [&](const Tensor& in) { return small->forward(in, padding(13, {13, 10})); }, x2);
  CHECK_THROWS_WITH(small->forward(random_input(1, 17, 8, 1), Tensor()),
                    "bigbird: sequence length 17 exceeds --seq-len 16 (its random layout is drawn for 8 blocks of 2)");
}

// ---- all of them ------------------------------------------------------------------------
TEST_CASE("fixed patterns: legends, weights on the pattern summing to one, finite outputs with padding") {
  std::map<std::string, std::vector<std::string>> legends = {{"local", {"window"}},
                                                             {"strided", {"stride"}},
                                                             {"global", {"global"}},
                                                             {"longformer", {"global", "window", "stride"}},
                                                             {"bigbird", {"global", "window", "random"}}};
  for (auto& [name, legend] : legends) {
    CAPTURE(name);
    CHECK(attention_info(name).family == "fixed");
    auto att = make(name, 16, 2, 64, {{"block", 5}});
    Tensor x = random_input(1, 23, 16, 17);
    Pattern p = att->pattern(x, Tensor());
    CHECK(p.legend == legend);
    CHECK(p.n == 23);
    Tensor pad = padding(23, {20});
    Tensor w = att->attention_weights(x, pad);
    CHECK(w.shape() == Shape{2, 23, 23});
    for (int64_t i = 0; i < 23; ++i) {
      double rowsum = 0;
      for (int64_t j = 0; j < 23; ++j) {
        float v = w.data()[i * 23 + j];
        rowsum += v;
        if (!p.cell[size_t(i * 23 + j)] || j >= 20) CHECK(v == 0.0f);
      }
      if (i < 20) CHECK(rowsum == doctest::Approx(1.0).epsilon(1e-5));  // a padded query's row is unspecified
    }
    Tensor all_pad = padding(23, {0});  // every key padded: zeros, not NaN
    Tensor y = att->forward(x, all_pad);
    for (int64_t i = 0; i < y.numel(); ++i) REQUIRE(std::isfinite(y.data()[i]));
  }
}

// ---- values worked out by hand ------------------------------------------------------------
// The cases above compare the fast form with a dense mask built in this file; the ones below
// state the expected value itself, so that a bug the layouts and reference() share (the same
// knob, the same helper) cannot pass by agreeing with itself.
namespace {
void fill_param(const Module& m, const std::string& name, float value) {
  Tensor p = find_param(m, name);
  std::fill(p.data(), p.data() + p.numel(), value);
}
// q = 0 (every score 0), v and o the identity on D = 1: each output is the plain mean of the
// values x_j over the keys its query may see.
void mean_of_values(const Attention& att) {
  for (const char* n : {"q", "k", "v", "o"}) fill_param(att, std::string("proj.") + n + ".bias", 0.0f);
  fill_param(att, "proj.q.weight", 0.0f);
  fill_param(att, "proj.k.weight", 0.0f);
  fill_param(att, "proj.v.weight", 1.0f);
  fill_param(att, "proj.o.weight", 1.0f);
}
// Head h's attended keys as rows of 'x' (weight > 0) and '.', from attention_weights [H,N,N].
std::vector<std::string> support(const Tensor& w, int64_t h) {
  int64_t N = w.size(1);
  std::vector<std::string> rows(size_t(N), std::string(size_t(N), '.'));
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < N; ++j)
      if (w.data()[(h * N + i) * N + j] > 0) rows[size_t(i)][size_t(j)] = 'x';
  return rows;
}
}  // namespace

TEST_CASE("longformer, 3 heads, default --dilated-heads: heads 0 and 1 local, head 2 dilated (N=8, w=1, s=2)") {
  // Guards: the default is half the heads rounded DOWN (3 -> 1 dilated); layouts() and
  // reference() both read dilated_, so rounding up (2 dilated) passes every comparison.
  auto att = make("longformer", 6, 3, 8, {{"window", 1}, {"dilation", 2}, {"globals", 0}, {"block", 4}});
  Tensor w = att->attention_weights(random_input(1, 8, 6, 21), Tensor());
  const std::vector<std::string> local = {"xx......", "xxx.....", ".xxx....", "..xxx...",
                                          "...xxx..", "....xxx.", ".....xxx", "......xx"};
  const std::vector<std::string> dilated = {"x.x.....", ".x.x....", "x.x.x...", ".x.x.x..",
                                            "..x.x.x.", "...x.x.x", "....x.x.", ".....x.x"};
  CHECK(support(w, 0) == local);
  CHECK(support(w, 1) == local);
  CHECK(support(w, 2) == dilated);
}

TEST_CASE("longformer pattern(): where window and stride overlap the first legend entry wins (N=8, w=1, s=2, g=1)") {
  // Guards: layouts_pattern keeping the smallest label (legend order global, window, stride);
  // keeping the largest shows the diagonal, seen by both heads, as "stride".
  auto att = make("longformer", 4, 2, 8, {{"window", 1}, {"dilation", 2}, {"globals", 1}, {"block", 4}});
  Pattern p = att->pattern(random_input(1, 8, 4, 22), Tensor());
  std::vector<std::string> got(8, std::string(8, '.'));
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 8; ++j) {
      std::string l = legend_name(p, i, j);
      if (!l.empty()) got[size_t(i)][size_t(j)] = l[0] == 'g' ? 'g' : l[0] == 'w' ? 'w' : 's';
    }
  const std::vector<std::string> want = {"gggggggg", "gwws....", "gwwws...", "gswwws..",
                                         "g.swwws.", "g..swwws", "g...swww", "g....sww"};
  CHECK(got == want);
}

TEST_CASE("a padded key inside the sequence is never attended: outputs are the mean of the other values") {
  // Guards: a variant dropping the padding mask for keys that are not at the end (bigbird cuts
  // each example to its own length and must keep the mask of what is left).  D = 1, q = 0, so
  // output = mean of x_j over the unpadded keys.  Example 0: x = 1,2,4,8,16,32, keys 2, 4, 5
  // padded: (1 + 2 + 8) / 3 = 11/3 at its real rows 0, 1, 3 (not 15/4 with key 2 read).
  // Example 1: nothing padded: 63/6 = 10.5.  Every variant set to see all 6 keys.
  const std::vector<std::pair<std::string, std::map<std::string, double>>> all = {
      {"local", {{"window", 8}, {"block", 4}}},
      {"strided", {{"window", 8}, {"stride", 1}, {"block", 4}}},
      {"global", {{"globals", 6}, {"block", 4}}},
      {"longformer", {{"window", 8}, {"globals", 1}, {"block", 4}}},
      {"bigbird", {{"block", 2}, {"random_blocks", 3}}}};
  Tensor x = Tensor::empty({2, 6, 1}), pad = Tensor::zeros({2, 6});
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = 0; j < 6; ++j) x.data()[b * 6 + j] = float(1 << j);
  for (int64_t j : {2, 4, 5}) pad.data()[j] = 1.0f;
  for (auto& [name, knobs] : all) {
    CAPTURE(name);
    auto att = make(name, 1, 1, 8, knobs);
    mean_of_values(*att);
    Tensor y = att->forward(x, pad);
    for (int64_t i : {0, 1, 3}) CHECK(y.data()[i] == doctest::Approx(11.0 / 3.0));
    for (int64_t i = 0; i < 6; ++i) CHECK(y.data()[6 + i] == doctest::Approx(10.5));
  }
}

TEST_CASE("bigbird with attention dropout: one forward call moves the random source on by one draw, padded batch or not") {
  // Guards: by_length (each example at its own length) leaving the process's source where it
  // was: the next step would draw the same dropout key and repeat this step's mask.  The kernel
  // draws one key per call (DropoutMask::draw: one next_u64).
  AttentionConfig c;
  c.dim = 4, c.heads = 1, c.max_len = 8, c.dropout = 0.5f, c.knobs = {{"block", 2}, {"random_blocks", 1}};
  auto att = make_attention("bigbird", c);
  att->train(true);
  Tensor x = random_input(2, 8, 4, 23);
  for (auto lens : {std::vector<int64_t>{8, 8}, std::vector<int64_t>{8, 5}}) {
    CAPTURE(lens[1]);
    global_rng().seed_with(77);
    Rng expect = global_rng();
    expect.next_u64();
    att->forward(x, padding(8, lens));
    CHECK(global_rng().state() == expect.state());
  }
}

TEST_CASE("global with learned tokens: a padded first position does not mask the token (every real row = its value)") {
  // Guards: extend() putting the padding mask in the tokens' slots (shifted by g): a padded
  // position 0 then masks the learned token.  D = 1, q = 0, v = o = identity, token = 5: each
  // real token sees only the token, so its output is 5 (0 if the token were masked).
  auto att = make("global", 1, 1, 8, {{"globals", 1}, {"learned", 1}, {"block", 4}});
  mean_of_values(*att);
  fill_param(*att, "tokens", 5.0f);
  Tensor x = Tensor::empty({1, 4, 1});
  for (int64_t j = 0; j < 4; ++j) x.data()[j] = float(3 + 2 * j);
  Tensor pad = Tensor::zeros({1, 4});
  pad.data()[0] = 1.0f;
  Tensor y = att->forward(x, pad);
  for (int64_t i = 1; i < 4; ++i) CHECK(y.data()[i] == doctest::Approx(5.0));
}

TEST_CASE("causal band layout: a block gathers only keys at or before its last row (N=8, block 4, w=2)") {
  // Guards: a causal block also gathering the w keys after it: the output is the same (their
  // labels are 0) but time and the FLOP count grow from N(b+w) to N(b+2w).  Block 0 (rows 0-3)
  // reads keys 0-3, block 1 (rows 4-7) keys 2-7: 4*4 + 4*6 = 40 entries (48 with the extra keys).
  BandSpec s;
  s.n = 8, s.block = 4, s.radius = 2, s.stride = 1, s.causal = true;
  auto L = band_layout(s);
  REQUIRE(L->groups.size() == 2);
  CHECK(L->groups[0].cols == std::vector<int32_t>{0, 1, 2, 3});
  CHECK(L->groups[1].cols == std::vector<int32_t>{2, 3, 4, 5, 6, 7});
  CHECK(L->entries == 40);
}
