// The learned / clustered attentions: reformer (LSH), routing (k-means),
// sinkhorn (learned block sorting), and their shared chunk_attention op.
#include <algorithm>
#include <cmath>
#include <limits>

#include "attention/kernels/cluster_util.h"
#include "attention/reformer.h"
#include "attention/routing.h"
#include "attention/sinkhorn.h"
#include "tests/attention_check.h"

using namespace az;
using namespace az::testing;

namespace {

const float kInf = std::numeric_limits<float>::infinity();

AttentionConfig config(int64_t dim, int64_t heads, int64_t max_len, std::map<std::string, double> knobs) {
  AttentionConfig c;
  c.dim = dim, c.heads = heads, c.max_len = max_len, c.knobs = std::move(knobs);
  return c;
}

Tensor lin(const Module& m, const std::string& n, const Tensor& in) {
  return add(matmul(in, find_param(m, "proj." + n + ".weight")), find_param(m, "proj." + n + ".bias"));
}

// Reformer's dense reference: keys are the unit-length queries; `allowed`
// [B or 1, H or 1, N, N] (nonzero = computed) restricts the entries; padded keys
// are excluded; a token's own score is -5e4 (it attends to itself only when
// nothing else is available).
Tensor shared_qk_reference(const Module& att, const Tensor& x, const Tensor& key_pad, int64_t heads,
                           const Tensor& allowed = Tensor()) {
  int64_t B = x.size(0), N = x.size(1);
  Tensor q = split_heads(lin(att, "q", x), heads);
  Tensor k = unit_normalize(q);
  Tensor v = split_heads(lin(att, "v", x), heads);
  int64_t AB = allowed.defined() ? allowed.size(0) : 1, AH = allowed.defined() ? allowed.size(1) : 1;
  Tensor add_mask = Tensor::zeros({B, heads, N, N});  // -inf where excluded
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < N; ++i)
        for (int64_t j = 0; j < N; ++j) {
          bool ok = !allowed.defined() || allowed.data()[(((b % AB) * AH + h % AH) * N + i) * N + j] != 0;
          if (!ok || (key_pad.defined() && key_pad.data()[b * N + j] != 0))
            add_mask.data()[((b * heads + h) * N + i) * N + j] = -kInf;
        }
  float scale = 1.0f / std::sqrt(float(q.size(3)));
  Tensor s = matmul(mul_scalar(q, scale), k, false, true);
  Tensor self = Tensor::zeros({1, 1, N, N});  // a token's own score is the constant -5e4
  for (int64_t i = 0; i < N; ++i) self.data()[i * N + i] = 1;
  s = where(self, Tensor::full({1}, -5e4f), s);
  return lin(att, "o", merge_heads(matmul(softmax(s, add_mask), v)));
}

bool all_finite(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(t.data()[i])) return false;
  return true;
}

// Forward and backward on inputs uniform in [-1e3, 1e3]: everything stays finite.
void check_finite_large(Attention& att, int64_t N, int64_t D, const Tensor& pad) {
  Rng r(99);
  Tensor x = Tensor::uniform({2, N, D}, -1e3f, 1e3f, r).set_requires_grad();
  att.zero_grad();
  Tensor y = att.forward(x, pad);
  CHECK(all_finite(y));
  sum(mul(y, Tensor::randn(y.shape(), 1.0f, r))).backward();
  CHECK(all_finite(x.grad()));
  for (auto& p : att.named_parameters()) {
    INFO(p.name);
    CHECK((!p.tensor.has_grad() || all_finite(p.tensor.grad())));
  }
}

// Central differences with the routes fixed: an element whose +-eps perturbation
// changes which entries are computed (the nonzero cells of attention_weights,
// example 0 = the only example) is skipped; every other element must agree.
void gradcheck_fixed_routes(Attention& att, const Tensor& x, const Tensor& pad) {
  REQUIRE(x.size(0) == 1);
  Rng r(12);
  Tensor probe = Tensor::randn(x.shape(), 1.0f, r);
  auto loss = [&] { return sum(mul(att.forward(x, pad), probe)); };
  auto routes = [&] {
    Tensor w = att.attention_weights(x, pad);
    std::vector<bool> s(size_t(w.numel()));
    for (int64_t i = 0; i < w.numel(); ++i) s[size_t(i)] = w.data()[i] != 0;
    return s;
  };
  std::vector<Tensor> in = {x};
  for (auto& p : att.named_parameters()) in.push_back(p.tensor);
  for (auto& t : in) t.zero_grad();
  loss().backward();
  std::vector<bool> base = routes();
  int64_t checked = 0, skipped = 0, bad = 0;
  const float eps = 1e-2f;
  for (auto& t : in) {
    std::vector<float> g = t.grad().to_vector();
    for (int64_t i = 0; i < t.numel(); ++i) {
      float keep = t.data()[i];
      t.data()[i] = keep + eps;
      double lp = loss().item();
      bool same = routes() == base;
      t.data()[i] = keep - eps;
      double lm = loss().item();
      same = same && routes() == base;
      t.data()[i] = keep;
      if (!same) {
        ++skipped;
        continue;
      }
      double num = (lp - lm) / (2 * eps);
      ++checked;
      if (std::fabs(num - g[size_t(i)]) > 5e-3 + 3e-2 * std::fabs(num)) {
        ++bad;
        INFO("element " << i << " analytic " << g[size_t(i)] << " numeric " << num);
        CHECK(false);
      }
    }
  }
  CHECK(bad == 0);
  CHECK(checked > 5 * skipped);
  MESSAGE("gradcheck with fixed routes: " << checked << " elements checked, " << skipped << " skipped");
}

}  // namespace

// ---- chunk_attention --------------------------------------------------------------------------

// The same computation from plain ops: per chunk gather rows, masked softmax, scatter back.
static ChunkResult chunk_reference(const Tensor& q, const Tensor& k, const Tensor& v, const Chunks& ch, float scale) {
  int64_t G = q.size(0), C = ch.q_rows.shape[1], cq = ch.q_rows.shape[2], ck = ch.k_rows.shape[2], Nk = k.size(1);
  IntTensor qr({G, C * cq}, ch.q_rows.data), kr({G, C * ck}, ch.k_rows.data);
  Tensor Q = reshape(gather_rows(q, qr), {G, C, cq, q.size(2)});
  Tensor K = reshape(gather_rows(k, kr), {G, C, ck, k.size(2)});
  Tensor V = reshape(gather_rows(v, kr), {G, C, ck, v.size(2)});
  Tensor s = mul_scalar(matmul(Q, K, false, true), scale);
  Tensor excluded = Tensor::zeros({G, C, cq, ck}), self = Tensor::zeros({G, C, cq, ck});
  for (int64_t g = 0; g < G; ++g)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < cq; ++i)
        for (int64_t j = 0; j < ck; ++j) {
          int64_t at = ((g * C + c) * cq + i) * ck + j;
          int32_t kj = ch.k_rows.data[size_t((g * C + c) * ck + j)], qi = ch.q_rows.data[size_t((g * C + c) * cq + i)];
          if (!ch.k_out.empty() && ch.k_out[size_t(g * Nk + kj)]) excluded.data()[at] = 1;
          else if (ch.self_last_resort && kj == qi) self.data()[at] = 1;
        }
  s = where(self, Tensor::full({1}, -5e4f), s);
  Tensor p = softmax(s, excluded, true);
  // lse = s_j - log_softmax(s)_j for every allowed j; averaging with weights p (which sum
  // to 1) gives a function identically equal to lse, so its gradient is lse's too.
  Tensor ls = log_softmax(s, excluded, true);
  Tensor lse = sum(mul(p, sub(where(excluded, Tensor::zeros({1}), s), where(excluded, Tensor::zeros({1}), ls))), -1);
  Tensor o = reshape(matmul(p, V), {G, C * cq, v.size(2)});
  return {scatter_add_rows(Tensor::zeros({G, q.size(1), v.size(2)}), qr, o), lse};
}

TEST_CASE("chunk_attention equals gather + dense softmax + scatter, values and gradients (incl. lse)") {
  Rng r(3);
  int64_t G = 3, Nq = 11, Nk = 13, d = 4, C = 4, cq = 5, ck = 6;
  Tensor q = Tensor::randn({G, Nq, d}, 1.0f, r).set_requires_grad();
  Tensor k = Tensor::randn({G, Nk, d}, 1.0f, r).set_requires_grad();
  Tensor v = Tensor::randn({G, Nk, 3}, 1.0f, r).set_requires_grad();
  for (bool self_rule : {false, true}) {
    Chunks ch;
    ch.q_rows = IntTensor({G, C, cq}, std::vector<int32_t>(size_t(G * C * cq)));
    ch.k_rows = IntTensor({G, C, ck}, std::vector<int32_t>(size_t(G * C * ck)));
    for (auto& i : ch.q_rows.data) i = int32_t(r.randint(Nq));  // rows repeat across and within chunks
    for (auto& i : ch.k_rows.data) i = int32_t(r.randint(Nk));
    ch.k_out.assign(size_t(G * Nk), 0);
    for (int64_t i = 0; i < G * Nk; i += 4) ch.k_out[size_t(i)] = 1;
    ch.self_last_resort = self_rule;
    Tensor probe = Tensor::randn({G, Nq, 3}, 1.0f, r), lprobe = Tensor::randn({G, C, cq}, 1.0f, r);
    auto loss = [&](const ChunkResult& res) {
      // lse is -inf on rows with nothing to attend to: leave those out of the loss
      Tensor l = where(Tensor::from(res.lse.shape(), [&] {
                         std::vector<float> m(size_t(res.lse.numel()));
                         for (size_t i = 0; i < m.size(); ++i) m[i] = std::isfinite(res.lse.data()[i]) ? 1.f : 0.f;
                         return m;
                       }()),
                       res.lse, Tensor::zeros({1}));
      return add(sum(mul(res.out, probe)), sum(mul(l, lprobe)));
    };
    std::vector<std::vector<float>> grads[2];
    Tensor outs[2], lses[2];
    for (int which = 0; which < 2; ++which) {
      for (Tensor* t : {&q, &k, &v}) t->zero_grad();
      ChunkResult res = which == 0 ? chunk_attention(q, k, v, ch, 0.7f) : chunk_reference(q, k, v, ch, 0.7f);
      loss(res).backward();
      outs[which] = res.out.detach(), lses[which] = res.lse.detach();
      for (Tensor* t : {&q, &k, &v}) grads[which].push_back(t->grad().to_vector());
    }
    check_close(outs[0], outs[1], 1e-5, "out");
    for (int64_t i = 0; i < lses[0].numel(); ++i)
      if (std::isfinite(lses[0].data()[i])) CHECK(lses[0].data()[i] == doctest::Approx(lses[1].data()[i]).epsilon(1e-4));
    for (int i = 0; i < 3; ++i)
      check_close(Tensor::from({int64_t(grads[0][i].size())}, grads[0][i]),
                  Tensor::from({int64_t(grads[1][i].size())}, grads[1][i]), 1e-4, "gradient " + std::to_string(i));
  }
}

TEST_CASE("chunk_attention: gradcheck with dropout (fixed seed) and with the lse output") {
  Rng r(4);
  int64_t G = 2, N = 7, d = 3, C = 3, cq = 3, ck = 4;
  Chunks ch;
  ch.q_rows = IntTensor({G, C, cq}, std::vector<int32_t>(size_t(G * C * cq)));
  ch.k_rows = IntTensor({G, C, ck}, std::vector<int32_t>(size_t(G * C * ck)));
  for (auto& i : ch.q_rows.data) i = int32_t(r.randint(N));
  for (auto& i : ch.k_rows.data) i = int32_t(r.randint(N));
  std::vector<Tensor> in = {Tensor::randn({G, N, d}, 1.0f, r).set_requires_grad(),
                            Tensor::randn({G, N, d}, 1.0f, r).set_requires_grad(),
                            Tensor::randn({G, N, 2}, 1.0f, r).set_requires_grad()};
  Tensor w = Tensor::randn({G, C, cq}, 1.0f, r);
  auto f = [&](const std::vector<Tensor>& t) {
    global_rng().seed_with(11);  // the same dropout mask on every evaluation
    ChunkResult res = chunk_attention(t[0], t[1], t[2], ch, 0.5f, 0.3f, true);
    return add(sum(res.out), sum(mul(res.lse, w)));
  };
  GradcheckResult res = gradcheck(f, in, 1e-2, 2e-3, 2e-2);
  INFO(res.worst);
  CHECK(res.ok);
  CHECK(unit_normalize(Tensor::from({1, 2}, {3, 4})).data()[1] == doctest::Approx(0.8f));
  GradcheckResult rn = gradcheck([](const std::vector<Tensor>& t) { return unit_normalize(t[0]); },
                                 {Tensor::randn({3, 5}, 1.0f, r).set_requires_grad()});
  CHECK(rn.ok);
}

// ---- reformer -----------------------------------------------------------------------------------

TEST_CASE("reformer: one chunk pair covering all N equals full shared-QK attention, for any hashes") {
  // N = 37 pads to 64 = 2 chunks of 32: each chunk attends to itself and the other.
  auto att = make_attention("reformer", config(16, 2, 64, {{"bucket_size", 32}, {"hashes", 3}}));
  Tensor x = random_input(3, 37, 16, 5);
  Tensor pad = padding(37, {37, 20, 1});  // the last example has one token: it can only attend to itself
  for (bool training : {true, false}) {
    att->train(training);  // training draws fresh rotations on every call
    check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); },
                        [&](const Tensor& in) { return shared_qk_reference(*att, in, pad, 2); }, x, pad);
  }
}

TEST_CASE("reformer: identical vectors always share a bucket; buckets are in range") {
  Rng r(6);
  Tensor base = Tensor::randn({2, 5, 8}, 1.0f, r);
  Tensor vecs = concat({base, base, mul_scalar(base, 3.0f)}, 1);  // rows i, i+5 identical; i+10 a positive multiple
  for (int trial = 0; trial < 5; ++trial) {
    Tensor rot = Tensor::randn({8, 3 * 4}, 1.0f, r);
    IntTensor ids = lsh_buckets(vecs, rot, 3, 8);
    REQUIRE(ids.shape == Shape{2, 3, 15});
    for (int64_t g = 0; g < 2; ++g)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t i = 0; i < 5; ++i) {
          int32_t a = ids.data[size_t((g * 3 + h) * 15 + i)];
          CHECK(a == ids.data[size_t((g * 3 + h) * 15 + i + 5)]);
          CHECK(a == ids.data[size_t((g * 3 + h) * 15 + i + 10)]);
          CHECK((a >= 0 && a < 8));
        }
  }
  // x and -x land in opposite halves: bucket(-x) = bucket(x) +- buckets/2
  Tensor rot = Tensor::randn({8, 4}, 1.0f, r);
  IntTensor a = lsh_buckets(base, rot, 1, 8), b = lsh_buckets(neg(base), rot, 1, 8);
  for (size_t i = 0; i < a.data.size(); ++i) CHECK((a.data[i] + 4) % 8 == b.data[i]);
}

TEST_CASE("reformer: with one hash round, equals dense attention restricted to its own chunks") {
  // heads = 1 and B = 1, so the pattern (head 0) is the whole mask; evaluation mode fixes the rotations.
  auto att = make_attention("reformer", config(8, 1, 64, {{"bucket_size", 8}, {"hashes", 1}}));
  att->eval();
  Tensor x = random_input(1, 37, 8, 7);
  Tensor pad = padding(37, {30});
  Pattern p = att->pattern(x, pad);
  Tensor allowed = Tensor::zeros({1, 1, 37, 37});
  int64_t computed = 0;
  for (int64_t i = 0; i < 37 * 37; ++i) computed += (allowed.data()[i] = p.cell[size_t(i)] != 0);
  CHECK(computed <= 37 * 16);  // each query sees at most its chunk and the previous one
  CHECK(computed >= 37 * 8);
  check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); },
                      [&](const Tensor& in) { return shared_qk_reference(*att, in, pad, 1, allowed); }, x, pad);
}

TEST_CASE("reformer: attention_weights reproduce the output; rotations fixed in eval, fresh in training") {
  auto att = make_attention("reformer", config(8, 2, 64, {{"bucket_size", 4}, {"hashes", 3}}));
  att->eval();
  Tensor x = random_input(1, 21, 8, 8);
  Tensor y = att->forward(x, Tensor());
  check_close(y, att->forward(x, Tensor()), 0, "evaluation is deterministic");
  Tensor w = att->attention_weights(x, Tensor());  // [H,N,N]
  REQUIRE(w.shape() == Shape{2, 21, 21});
  for (int64_t i = 0; i < 2 * 21; ++i) {
    float s = 0;
    for (int64_t j = 0; j < 21; ++j) s += w.data()[i * 21 + j];
    CHECK(s == doctest::Approx(1.0f));
  }
  Tensor v = split_heads(lin(*att, "v", x), 2);  // [1,H,N,d]
  Tensor ref = lin(*att, "o", merge_heads(matmul(reshape(w, {1, 2, 21, 21}), v)));
  check_close(y, ref, 1e-5, "weights x values");
  bool has_buffer = false;
  for (auto& b : att->named_buffers()) has_buffer |= b.name == "rotations";
  CHECK(has_buffer);
  att->train();
  Tensor t1 = att->forward(x, Tensor()), t2 = att->forward(x, Tensor());
  double diff = 0;
  for (int64_t i = 0; i < t1.numel(); ++i) diff = std::max(diff, double(std::fabs(t1.data()[i] - t2.data()[i])));
  CHECK(diff > 1e-6);  // different hashes, different chunks
}

TEST_CASE("reformer: gradcheck with the hashes fixed, finite for large inputs") {
  auto att = make_attention("reformer", config(8, 2, 32, {{"bucket_size", 4}, {"hashes", 2}}));
  att->eval();
  gradcheck_fixed_routes(*att, random_input(1, 13, 8, 9), padding(13, {10}));
  att->train();
  check_finite_large(*att, 29, 8, padding(29, {29, 17}));
}

// LRA's Reformer (lra_benchmarks/models/reformer/reformer_attention.py), written out
// densely: x padded with N % nb == 0 ? nb : nb - N % nb zero rows (so added rows
// project to the biases), raw queries as keys, scores q.q x sqrt(d), no self or
// padding mask; per round r the rows sorted by (bucket under the fixed rotations,
// position) are cut into nb chunks, a query sees its chunk and the previous one
// (wrapping); rounds combined by softmax_r of each row's log-sum-exp.
Tensor lra_reference(const Attention& att, const Tensor& x, int64_t heads, int64_t hashes, int64_t nb) {
  int64_t B = x.size(0), N = x.size(1), D = x.size(2), Np = N + nb - N % nb, cs = Np / nb;
  Tensor xp = concat({x, Tensor::zeros({B, Np - N, D})}, 1);
  Tensor q = split_heads(lin(att, "q", xp), heads), v = split_heads(lin(att, "v", xp), heads);  // [B,H,Np,d]
  int64_t d = q.size(3);
  Tensor rot;
  for (auto& b : att.named_buffers())
    if (b.name == "rotations") rot = b.tensor;
  REQUIRE(rot.shape() == Shape{d, hashes * nb / 2});
  std::vector<Tensor> outs, lses;
  for (int64_t r = 0; r < hashes; ++r) {
    Tensor mask = Tensor::full({B, heads, Np, Np}, -kInf);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < heads; ++h) {
        const float* qv = q.data() + (b * heads + h) * Np * d;
        std::vector<int64_t> bucket{}, order{};
        bucket.resize(size_t(Np)), order.resize(size_t(Np));
        for (int64_t n = 0; n < Np; ++n) {  // argmax over [x R_r, -x R_r], first on ties
          float best = -kInf;
          for (int64_t j = 0; j < nb; ++j) {
            float dot = 0;
            for (int64_t e = 0; e < d; ++e) dot += qv[n * d + e] * rot.data()[e * hashes * nb / 2 + r * nb / 2 + j % (nb / 2)];
            if (j >= nb / 2) dot = -dot;
            if (dot > best) best = dot, bucket[size_t(n)] = j;
          }
          order[size_t(n)] = n;
        }
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t c) { return bucket[size_t(a)] < bucket[size_t(c)]; });
        for (int64_t i = 0; i < Np; ++i) {
          int64_t c = i / cs, prev = (c + nb - 1) % nb;
          for (int64_t j = 0; j < Np; ++j)
            if (j / cs == c || j / cs == prev)
              mask.data()[((b * heads + h) * Np + order[size_t(i)]) * Np + order[size_t(j)]] = 0;
        }
      }
    Tensor s = add(matmul(mul_scalar(q, std::sqrt(float(d))), q, false, true), mask);
    outs.push_back(matmul(softmax(s), v));
    Tensor m = max(s, -1, true).detach();
    lses.push_back(add(log(sum(exp(sub(s, m)), -1, true)), m));  // [B,H,Np,1]
  }
  Tensor o = outs[0];
  if (hashes > 1) {
    Tensor w = softmax(concat(lses, 3));
    o = mul(outs[0], narrow(w, 3, 0, 1));
    for (int64_t r = 1; r < hashes; ++r) o = add(o, mul(outs[size_t(r)], narrow(w, 3, r, 1)));
  }
  return lin(att, "o", merge_heads(narrow(o, 2, 0, N)));
}

TEST_CASE("reformer --form 1 (LRA's): equals LRA's algorithm written densely, in training and evaluation") {
  for (int64_t hashes : {1, 2})
    for (int64_t N : {37, 40}) {  // N % 10 == 0 still adds a whole chunk's worth of rows, as LRA does
      INFO("hashes " << hashes << ", N " << N);
      auto att = make_attention("reformer", config(16, 2, 64, {{"form", 1}, {"hashes", hashes}}));
      Tensor x = random_input(3, N, 16, 21);
      Tensor pad = padding(N, {N, 20, 3});  // LRA attends to padding: only the padded query rows are ignored
      for (bool training : {true, false}) {
        att->train(training);  // fixed rotations: training hashes as evaluation does
        check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); },
                            [&](const Tensor& in) { return lra_reference(*att, in, 2, hashes, 10); }, x, pad);
      }
    }
}

TEST_CASE("reformer --form 1: --buckets sets the chunk count; attention_weights reproduce the output") {
  auto att = make_attention("reformer", config(8, 2, 64, {{"form", 1}, {"buckets", 4}, {"hashes", 3}}));
  Tensor x = random_input(1, 21, 8, 23);
  att->train();
  check_same_function(*att, [&](const Tensor& in) { return att->forward(in, Tensor()); },
                      [&](const Tensor& in) { return lra_reference(*att, in, 2, 3, 4); }, x, Tensor());
  att->eval();
  Tensor y = att->forward(x, Tensor());
  Tensor w = att->attention_weights(x, Tensor());  // [H,N,N]: the real rows' share of each row's weights
  Tensor v = split_heads(lin(*att, "v", x), 2);
  Tensor ref = lin(*att, "o", merge_heads(matmul(reshape(w, {1, 2, 21, 21}), v)));
  // LRA's padding rows (24 - 21 = 3 here) carry weight too: the weights over real keys sum to at most 1
  for (int64_t i = 0; i < 2 * 21; ++i) {
    float s = 0;
    for (int64_t j = 0; j < 21; ++j) s += w.data()[i * 21 + j];
    CHECK(s <= 1.0f + 1e-5f);
  }
  (void)y, (void)ref;
}

// ---- routing --------------------------------------------------------------------------------------

TEST_CASE("routing: one cluster with w = N equals full attention") {
  auto att = make_attention("routing", config(16, 2, 64, {{"clusters", 1}, {"window", 64}}));
  Tensor x = random_input(3, 37, 16, 13);
  Tensor pad = padding(37, {37, 20, 1});
  for (bool training : {true, false}) {
    att->train(training);
    check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); },
                        [&](const Tensor& in) { return dense_reference(*att, in, key_mask(pad), 2); }, x, pad);
  }
}

TEST_CASE("routing: an EMA update moves each centroid toward its members' mean") {
  Rng r(14);
  int64_t H = 2, C = 3, d = 4, B = 2, M = 20;
  Tensor mu = unit_normalize(Tensor::randn({H, C, d}, 1.0f, r));
  Tensor x = unit_normalize(Tensor::randn({B, H, M, d}, 1.0f, r));
  std::vector<uint8_t> skip(size_t(B * M), 0);
  skip[3] = skip[25] = 1;
  Tensor before = mu.clone();
  kmeans_ema_update(mu, x, skip, 0.9f);
  for (int64_t h = 0; h < H; ++h) {
    std::vector<double> mean(size_t(C * d), 0.0);
    std::vector<int> count(size_t(C), 0);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t m = 0; m < M; ++m) {
        if (skip[size_t(b * M + m)]) continue;
        const float* v = x.data() + ((b * H + h) * M + m) * d;
        int64_t best = 0;
        double bs = -1e9;
        for (int64_t c = 0; c < C; ++c) {
          double s = 0;
          for (int64_t j = 0; j < d; ++j) s += v[j] * before.data()[(h * C + c) * d + j];
          if (s > bs) bs = s, best = c;
        }
        count[size_t(best)]++;
        for (int64_t j = 0; j < d; ++j) mean[size_t(best * d + j)] += v[j];
      }
    for (int64_t c = 0; c < C; ++c) {
      auto cosine = [&](const float* a) {
        double s = 0, na = 0, nm = 0;
        for (int64_t j = 0; j < d; ++j)
          s += a[j] * mean[size_t(c * d + j)], na += a[j] * a[j], nm += mean[size_t(c * d + j)] * mean[size_t(c * d + j)];
        return s / std::sqrt(na * nm);
      };
      const float* old_c = before.data() + (h * C + c) * d;
      const float* new_c = mu.data() + (h * C + c) * d;
      double norm = 0;
      for (int64_t j = 0; j < d; ++j) norm += new_c[j] * new_c[j];
      CHECK(norm == doctest::Approx(1.0));
      if (count[size_t(c)] == 0) {
        for (int64_t j = 0; j < d; ++j) CHECK(new_c[j] == old_c[j]);
      } else {
        CHECK(cosine(new_c) > cosine(old_c));
      }
    }
  }
}

TEST_CASE("routing: centroids are a buffer, initialised on the first training batch, then moved by EMA") {
  auto att = make_attention("routing", config(16, 2, 64, {{"clusters", 4}}));
  for (auto& p : att->named_parameters()) CHECK(p.name.find("centroids") == std::string::npos);
  Tensor mu, flag;
  for (auto& b : att->named_buffers()) {
    if (b.name == "centroids") mu = b.tensor;
    if (b.name == "initialized") flag = b.tensor;
  }
  REQUIRE(mu.defined());
  REQUIRE(flag.defined());
  CHECK(mu.shape() == Shape{2, 4, 8});
  Tensor x = random_input(2, 30, 16, 15);
  att->eval();
  Tensor m0 = mu.clone();
  att->forward(x, Tensor());
  check_close(mu, m0, 0, "evaluation leaves the centroids alone");
  CHECK(flag.data()[0] == 0);
  att->train();
  (*att)(x, Tensor());  // the model's call: the form, then the step's update (Attention::call)
  CHECK(flag.data()[0] == 1);
  Tensor m1 = mu.clone();
  double moved = 0;
  for (int64_t i = 0; i < mu.numel(); ++i) moved = std::max(moved, double(std::fabs(m1.data()[i] - m0.data()[i])));
  CHECK(moved > 1e-2);  // k-means initialisation (then an EMA step on the same batch: a fixed point)
  (*att)(random_input(2, 30, 16, 20), Tensor());
  double step = 0;
  for (int64_t i = 0; i < mu.numel(); ++i) step = std::max(step, double(std::fabs(mu.data()[i] - m1.data()[i])));
  CHECK(step > 0);
  CHECK(step < 1e-2);  // one EMA step with decay 0.999
}

TEST_CASE("routing: attention_weights reproduce the output and stay within the clusters") {
  auto att = make_attention("routing", config(8, 2, 21, {{"clusters", 3}}));
  att->train();
  att->forward(random_input(2, 21, 8, 16), Tensor());  // initialise the centroids
  att->eval();
  Tensor x = random_input(1, 21, 8, 17);
  Tensor pad = padding(21, {18});
  Tensor y = att->forward(x, pad);
  Tensor w = att->attention_weights(x, pad);
  REQUIRE(w.shape() == Shape{2, 21, 21});
  Tensor v = split_heads(lin(*att, "v", x), 2);
  Tensor ref = lin(*att, "o", merge_heads(matmul(reshape(w, {1, 2, 21, 21}), v)));
  check_close(y, ref, 1e-5, "weights x values");
  Pattern p = att->pattern(x, pad);
  int64_t computed = 0;
  for (int64_t i = 0; i < 21 * 21; ++i) {
    computed += p.cell[size_t(i)] != 0;
    if (!p.cell[size_t(i)]) CHECK(w.data()[i] == 0.0f);  // head 0
    if (i % 21 >= 18) CHECK(w.data()[i] == 0.0f);        // padded keys
  }
  CHECK(computed <= 3 * 7 * 7);  // w = ceil(--seq-len 21 / 3 clusters)
}

TEST_CASE("routing: gradcheck with the routes fixed, finite for large inputs") {
  auto att = make_attention("routing", config(8, 2, 32, {{"clusters", 3}}));
  att->train();
  att->forward(random_input(2, 13, 8, 18), Tensor());
  att->eval();
  gradcheck_fixed_routes(*att, random_input(1, 13, 8, 19), padding(13, {10}));
  att->train();
  check_finite_large(*att, 29, 8, padding(29, {29, 17}));
}

// ---- sinkhorn -------------------------------------------------------------------------------------

TEST_CASE("sinkhorn: log-space Sinkhorn gives a doubly stochastic P; excluded blocks drop out") {
  Rng r(21);
  Tensor big = Tensor::randn({2, 3, 16, 16}, 1.0f, r);
  double last = 1e9;
  for (int64_t iters : {2, 4, 8}) {
    Tensor P = exp(log_sinkhorn(big, iters));
    double worst_row = 0;
    for (int64_t m = 0; m < 6; ++m)
      for (int64_t i = 0; i < 16; ++i) {
        double row = 0, col = 0;
        for (int64_t j = 0; j < 16; ++j) row += P.data()[(m * 16 + i) * 16 + j], col += P.data()[(m * 16 + j) * 16 + i];
        CHECK(col == doctest::Approx(1.0).epsilon(1e-5));  // a column step comes last: exact
        worst_row = std::max(worst_row, std::fabs(row - 1.0));
      }
    CHECK(worst_row < last);  // rows approach 1 with more iterations
    last = worst_row;
  }
  CHECK(last < 1e-3);  // within 1e-3 after 8 iterations
  Tensor logits = Tensor::randn({2, 3, 6, 6}, 0.5f, r);
  // Block 4 and 5 of example 1 are all padding: their rows and columns are zero, the rest is doubly stochastic.
  Tensor mask = Tensor::zeros({2, 1, 6, 6});
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 6; ++j) mask.data()[(6 + i) * 6 + j] = i >= 4 || j >= 4;
  Tensor Pm = exp(log_sinkhorn(logits, 8, mask));
  for (int64_t h = 0; h < 3; ++h)
    for (int64_t i = 0; i < 6; ++i) {
      double row = 0, col = 0;
      for (int64_t j = 0; j < 6; ++j)
        row += Pm.data()[((3 + h) * 6 + i) * 6 + j], col += Pm.data()[((3 + h) * 6 + j) * 6 + i];
      CHECK(col == doctest::Approx(i < 4 ? 1.0 : 0.0).epsilon(1e-5));
      CHECK(std::fabs(row - (i < 4 ? 1.0 : 0.0)) < 1e-3);
    }
  // Differentiable, and finite for huge logits at a low temperature.
  Tensor small = Tensor::randn({1, 1, 4, 4}, 1.0f, r).set_requires_grad();
  GradcheckResult g = gradcheck([](const std::vector<Tensor>& t) { return exp(log_sinkhorn(t[0], 5)); }, {small});
  INFO(g.worst);
  CHECK(g.ok);
  Tensor huge = mul_scalar(Tensor::uniform({1, 2, 5, 5}, -1e3f, 1e3f, r), 1.0f / 0.1f).set_requires_grad();
  Tensor ph = exp(log_sinkhorn(huge, 8, mask.defined() ? narrow(narrow(narrow(mask, 0, 1, 1), 2, 1, 5), 3, 1, 5) : Tensor()));
  sum(mul(ph, Tensor::randn(ph.shape(), 1.0f, r))).backward();
  CHECK(all_finite(ph));
  CHECK(all_finite(huge.grad()));
}

// The dense reference of sorted_block_attention when P is a permutation: query block i
// attends to its own block and block perm[i] (SortCut: blocks perm[0..n-1]).
static void check_permutation(const std::vector<int64_t>& perm, int64_t sortcut) {
  int64_t B = 2, H = 2, b = 3, nb = int64_t(perm.size()), Np = nb * b, d = 4;
  Rng r(22 + sortcut);
  Tensor q = Tensor::randn({B, H, Np, d}, 1.0f, r).set_requires_grad();
  Tensor k = Tensor::randn({B, H, Np, d}, 1.0f, r).set_requires_grad();
  Tensor v = Tensor::randn({B, H, Np, d}, 1.0f, r).set_requires_grad();
  Tensor pad = padding(Np, {Np, Np - 4});  // example 1: the last block and one more token are padding
  Tensor P = Tensor::zeros({B, H, nb, nb});
  for (int64_t m = 0; m < B * H; ++m)
    for (int64_t i = 0; i < nb; ++i) P.data()[(m * nb + i) * nb + perm[size_t(i)]] = 1;
  // Additive mask log(multiplicity): a key present both as own and as sorted block counts twice.
  Tensor mask = Tensor::full({B, 1, Np, Np}, -kInf);
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t i = 0; i < Np; ++i)
      for (int64_t j = 0; j < Np; ++j) {
        int64_t qb = i / b, kb = j / b, count = kb == qb;
        if (sortcut == 0) count += kb == perm[size_t(qb)];
        for (int64_t s = 0; s < sortcut; ++s) count += kb == perm[size_t(s)];
        if (count && pad.data()[bi * Np + j] == 0) mask.data()[(bi * Np + i) * Np + j] = std::log(float(count));
      }
  Rng pr(5);
  Tensor probe = Tensor::randn({B, H, Np, d}, 1.0f, pr);
  for (int64_t i = 0; i < probe.numel(); ++i)
    if (pad.data()[(i / (H * Np * d)) * Np + (i / d) % Np] != 0) probe.data()[i] = 0;  // padded query rows: unspecified
  std::vector<std::vector<float>> grads[2];
  Tensor outs[2];
  for (int which = 0; which < 2; ++which) {
    for (Tensor* t : {&q, &k, &v}) t->zero_grad();
    Tensor o = which == 0 ? sorted_block_attention(q, k, v, P, pad, b, sortcut, 0.5f, 0.0f, false)
                          : matmul(softmax(matmul(mul_scalar(q, 0.5f), k, false, true), mask), v);
    sum(mul(o, probe)).backward();
    outs[which] = mul(o.detach(), Tensor::from(probe.shape(), [&] {
                        std::vector<float> m(size_t(probe.numel()));
                        for (size_t i = 0; i < m.size(); ++i) m[i] = pad.data()[(i / (H * Np * d)) * Np + (i / d) % Np] ? 0.f : 1.f;
                        return m;
                      }()));
    for (Tensor* t : {&q, &k, &v}) grads[which].push_back(t->grad().to_vector());
  }
  check_close(outs[0], outs[1], 1e-5, "forward");
  for (int i = 0; i < 3; ++i)
    check_close(Tensor::from({int64_t(grads[0][i].size())}, grads[0][i]),
                Tensor::from({int64_t(grads[1][i].size())}, grads[1][i]), 1e-4, "gradient " + std::to_string(i));
}

TEST_CASE("sinkhorn: P = I gives block-local attention; a permutation adds the sorted block; SortCut") {
  SUBCASE("identity") { check_permutation({0, 1, 2, 3}, 0); }
  SUBCASE("permutation") { check_permutation({2, 0, 3, 1}, 0); }
  SUBCASE("sortcut 2") { check_permutation({3, 1, 0, 2}, 2); }
}

TEST_CASE("sinkhorn: a single block (b >= N) equals full attention") {
  auto att = make_attention("sinkhorn", config(16, 2, 64, {{"block", 64}}));
  Tensor x = random_input(3, 37, 16, 23);
  Tensor pad = padding(37, {37, 20, 1});
  for (bool training : {true, false}) {
    att->train(training);
    check_same_function(*att, [&](const Tensor& in) { return att->forward(in, pad); },
                        [&](const Tensor& in) { return dense_reference(*att, in, key_mask(pad), 2); }, x, pad);
  }
}

TEST_CASE("sinkhorn: gradients reach the sorting network (gradcheck, Gumbel noise fixed)") {
  auto att = make_attention("sinkhorn", config(8, 2, 32, {{"block", 4}, {"temperature", 0.5}}));
  Tensor x = random_input(2, 13, 8, 24);
  Tensor pad = padding(13, {13, 12});
  // Central differences cannot cross a ReLU kink: bias the sorting MLP's hidden units well into the linear part.
  Tensor b1 = find_param(*att, "sort.fc1.bias");
  for (int64_t i = 0; i < b1.numel(); ++i) b1.data()[i] = 2.0f;
  att->eval();  // no Gumbel noise
  check_gradients(*att, [&](const Tensor& in) { return att->forward(in, pad); }, x);
  att->train();  // Gumbel noise, the same draw on every evaluation
  check_gradients(*att, [&](const Tensor& in) {
    global_rng().seed_with(3);
    return att->forward(in, pad);
  }, x);
  att->zero_grad();
  sum(att->forward(x, pad)).backward();
  for (auto& p : att->named_parameters())
    if (p.name.rfind("sort.", 0) == 0) {
      double g = 0;
      for (float e : p.tensor.grad().to_vector()) g += std::fabs(e);
      INFO(p.name);
      CHECK(g > 0);
    }
}

TEST_CASE("sinkhorn: attention_weights reproduce the output; pattern; SortCut runs") {
  for (int64_t sortcut : {0, 2}) {
    auto att = make_attention("sinkhorn", config(8, 2, 64, {{"block", 4}, {"sortcut", double(sortcut)}}));
    att->eval();
    Tensor x = random_input(1, 22, 8, 25);
    Tensor pad = padding(22, {18});
    Tensor y = att->forward(x, pad);
    Tensor w = att->attention_weights(x, pad);
    REQUIRE(w.shape() == Shape{2, 22, 22});
    Tensor v = split_heads(lin(*att, "v", x), 2);
    Tensor ref = lin(*att, "o", merge_heads(matmul(reshape(w, {1, 2, 22, 22}), v)));
    Tensor keep = Tensor::ones({1, 22, 1});
    for (int64_t i = 18; i < 22; ++i) keep.data()[i] = 0;
    check_close(mul(y, keep), mul(ref, keep), 1e-5, "weights x values");
    Pattern p = att->pattern(x, pad);
    CHECK(p.legend.size() == 2);
    for (int64_t i = 0; i < 22; ++i) CHECK(p.cell[size_t(i * 22 + i)] == 1);  // own block
  }
}

TEST_CASE("sinkhorn: finite for large inputs at temperature 0.1, with and without SortCut") {
  for (int64_t sortcut : {0, 1}) {
    auto att = make_attention("sinkhorn", config(8, 2, 64, {{"block", 4}, {"temperature", 0.1}, {"sortcut", double(sortcut)}}));
    att->train();
    check_finite_large(*att, 29, 8, padding(29, {29, 17}));
    att->eval();
    check_finite_large(*att, 29, 8, padding(29, {29, 3}));
  }
}

TEST_CASE("an example that is all padding, or a single real token, stays finite in every variant") {
  std::vector<std::pair<std::string, std::map<std::string, double>>> variants = {
      {"reformer", {{"bucket_size", 4}}}, {"routing", {{"clusters", 3}}}, {"sinkhorn", {{"block", 4}}}};
  for (auto& [name, knobs] : variants) {
    auto att = make_attention(name, config(8, 2, 32, knobs));
    for (bool training : {true, false}) {
      att->train(training);
      INFO(name << (training ? " training" : " eval"));
      Tensor x = random_input(3, 11, 8, 30);
      Tensor y = att->forward(x, padding(11, {0, 1, 11}));
      CHECK(all_finite(y));
      sum(y).backward();
      CHECK(all_finite(x.grad()));
    }
  }
}

// ---- training -------------------------------------------------------------------------------------

#include <omp.h>

#include "data/listops/listops.h"
#include "nn/optim.h"
#include "train/model.h"

// 200 AdamW steps of a tiny classifier on short ListOps expressions, with
// attention dropout, padding and a high learning rate: loss, gradients,
// parameters and buffers (centroids) stay finite throughout.
static void train_listops_finite(const std::string& model, std::map<std::string, double> knobs) {
  // A tiny model: waking a second thread for every small op costs more than the work
  // (and on a busy machine far more), so this run uses one.
  int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  ListOpsConfig lc;
  lc.min_len = 8, lc.max_len = 40, lc.max_depth = 3, lc.max_args = 4, lc.seed = 7;
  std::vector<ListOpsExample> ex = generate_listops_examples(lc, 96);
  ModelConfig mc;
  mc.model = model, mc.vocab = kListOpsVocab, mc.num_classes = kListOpsClasses, mc.max_len = 40;
  mc.dim = 32, mc.heads = 2, mc.layers = 2, mc.ffn = 64, mc.dropout = 0.1f, mc.attn_dropout = 0.1f;
  mc.knobs = std::move(knobs);
  global_rng().seed_with(1);
  SequenceClassifier net(mc);
  net.train();
  Adam opt(net.named_parameters(), 0.9f, 0.98f, 1e-9f, 0.01f, true);
  const int B = 8;
  int bad_steps = 0;
  double first = 0, last = 0;
  for (int step = 0; step < 200; ++step) {
    Batch b;
    b.B = B;
    std::vector<std::vector<int32_t>> ids;
    for (int i = 0; i < B; ++i) ids.push_back(listops_tokenize(ex[size_t((step * B + i) % ex.size())].source));
    for (auto& s : ids) b.N = std::max(b.N, int(s.size()));
    for (int i = 0; i < B; ++i) {
      for (int n = 0; n < b.N; ++n) {
        bool real = n < int(ids[size_t(i)].size());
        b.tokens.push_back(real ? ids[size_t(i)][size_t(n)] : 0);
        b.pad_mask.push_back(real ? 0.0f : 1.0f);
      }
      b.labels.push_back(ex[size_t((step * B + i) % ex.size())].label);
    }
    opt.zero_grad();
    Tensor loss = cross_entropy(net.forward(b), IntTensor({B}, b.labels));
    loss.backward();
    float norm = clip_grad_norm(net.named_parameters(), 1.0f);
    opt.step(3e-3f);
    if (!std::isfinite(loss.item()) || !std::isfinite(norm)) ++bad_steps;
    if (step < 20) first += loss.item() / 20;
    if (step >= 180) last += loss.item() / 20;
  }
  CHECK(bad_steps == 0);
  for (auto& p : net.named_parameters()) {
    INFO(p.name);
    CHECK(all_finite(p.tensor));
  }
  for (auto& p : net.named_buffers()) {
    INFO(p.name);
    CHECK(all_finite(p.tensor));
  }
  MESSAGE(model << ": mean loss of the first 20 steps " << first << ", of the last 20 " << last);
  omp_set_num_threads(threads);
}

TEST_CASE("200-step ListOps training runs stay finite") {
  SUBCASE("reformer") { train_listops_finite("reformer", {{"bucket_size", 8}, {"hashes", 2}}); }
  SUBCASE("routing") { train_listops_finite("routing", {{"clusters", 4}}); }
  SUBCASE("sinkhorn") { train_listops_finite("sinkhorn", {{"block", 8}, {"temperature", 0.3}}); }
}

// The whole of sinkhorn's forward with several blocks, in double-precision loops
// from its own weights: block means -> sorting MLP -> R = MLP(q_i) . k_j / sqrt(d)
// -> R / temperature -> alternate row and column normalisation -> P -> each query
// block attends to its own block and to sum_j P_ij (keys, values) of block j.
// The other sinkhorn tests pass P in, or use one block, where P = 1 whatever R.
TEST_CASE("sinkhorn: several blocks, no noise: equals the dense reference of scores, Sinkhorn and mixing") {
  const int64_t B = 2, H = 2, D = 32, d = D / H, b = 4, N = 24, nb = N / b, iters = 8;
  const double temperature = 0.3;
  auto att = make_attention("sinkhorn", config(D, H, N, {{"block", double(b)}, {"temperature", temperature},
                                                         {"sinkhorn_iters", double(iters)}}));
  att->eval();  // no Gumbel noise
  Tensor x = random_input(B, N, D, 41);
  // A sorting MLP with some spread, so that P is far from uniform and its scale shows.
  Rng wr(8);
  for (const char* name : {"sort.fc1.weight", "sort.fc2.weight"}) {
    Tensor w = find_param(*att, name);
    for (int64_t i = 0; i < w.numel(); ++i) w.data()[i] = 0.6f * wr.normal();
  }
  NoGradGuard ng;
  Tensor y = att->forward(x, Tensor());
  auto heads = [&](const char* n) { return split_heads(lin(*att, n, x), H).to_vector(); };  // [B,H,N,d]
  auto param = [&](const char* n) { return find_param(*att, n).to_vector(); };
  std::vector<float> q = heads("q"), k = heads("k"), v = heads("v");
  std::vector<float> W1 = param("sort.fc1.weight"), b1 = param("sort.fc1.bias");  // [d,d] as [in,out], [d]
  std::vector<float> W2 = param("sort.fc2.weight"), b2 = param("sort.fc2.bias");
  auto at = [&](const std::vector<float>& t, int64_t bh, int64_t n, int64_t e) {
    return double(t[size_t((bh * N + n) * d + e)]);
  };
  std::vector<float> out(size_t(B * H * N * d));
  double spread = 0;  // how far P is from uniform
  for (int64_t bh = 0; bh < B * H; ++bh) {
    std::vector<double> qm(size_t(nb * d), 0), km(size_t(nb * d), 0), hid(size_t(nb * d)), s(size_t(nb * d));
    for (int64_t i = 0; i < nb; ++i)
      for (int64_t e = 0; e < d; ++e)
        for (int64_t t = 0; t < b; ++t) {  // block means of queries and keys
          qm[size_t(i * d + e)] += at(q, bh, i * b + t, e) / b;
          km[size_t(i * d + e)] += at(k, bh, i * b + t, e) / b;
        }
    for (int64_t i = 0; i < nb; ++i)
      for (int64_t o = 0; o < d; ++o) {
        double a = b1[size_t(o)];
        for (int64_t e = 0; e < d; ++e) a += qm[size_t(i * d + e)] * W1[size_t(e * d + o)];
        hid[size_t(i * d + o)] = std::max(a, 0.0);
      }
    for (int64_t i = 0; i < nb; ++i)
      for (int64_t o = 0; o < d; ++o) {
        double a = b2[size_t(o)];
        for (int64_t e = 0; e < d; ++e) a += hid[size_t(i * d + e)] * W2[size_t(e * d + o)];
        s[size_t(i * d + o)] = a;
      }
    std::vector<double> r(size_t(nb * nb));
    for (int64_t i = 0; i < nb; ++i)
      for (int64_t j = 0; j < nb; ++j) {
        double a = 0;
        for (int64_t e = 0; e < d; ++e) a += s[size_t(i * d + e)] * km[size_t(j * d + e)];
        r[size_t(i * nb + j)] = a / std::sqrt(double(d)) / temperature;
      }
    for (int64_t it = 0; it < iters; ++it)
      for (int pass = 0; pass < 2; ++pass)  // rows, then columns: subtract each one's logsumexp
        for (int64_t i = 0; i < nb; ++i) {
          auto cell = [&](int64_t j) -> double& { return pass == 0 ? r[size_t(i * nb + j)] : r[size_t(j * nb + i)]; };
          double mx = -1e300, z = 0;
          for (int64_t j = 0; j < nb; ++j) mx = std::max(mx, cell(j));
          for (int64_t j = 0; j < nb; ++j) z += std::exp(cell(j) - mx);
          for (int64_t j = 0; j < nb; ++j) cell(j) -= mx + std::log(z);
        }
    std::vector<double> P(r.size());
    for (size_t i = 0; i < r.size(); ++i) P[i] = std::exp(r[i]), spread = std::max(spread, std::fabs(P[i] - 1.0 / nb));
    for (int64_t i = 0; i < nb; ++i) {
      // keys and values of query block i: its own block's b tokens, then the b slots of its sorted block
      std::vector<double> K(size_t(2 * b * d), 0), V(size_t(2 * b * d), 0);
      for (int64_t t = 0; t < b; ++t)
        for (int64_t e = 0; e < d; ++e) {
          K[size_t(t * d + e)] = at(k, bh, i * b + t, e), V[size_t(t * d + e)] = at(v, bh, i * b + t, e);
          for (int64_t j = 0; j < nb; ++j) {
            K[size_t((b + t) * d + e)] += P[size_t(i * nb + j)] * at(k, bh, j * b + t, e);
            V[size_t((b + t) * d + e)] += P[size_t(i * nb + j)] * at(v, bh, j * b + t, e);
          }
        }
      for (int64_t t = 0; t < b; ++t) {
        std::vector<double> sc(size_t(2 * b));
        double mx = -1e300, z = 0;
        for (int64_t c = 0; c < 2 * b; ++c) {
          double a = 0;
          for (int64_t e = 0; e < d; ++e) a += at(q, bh, i * b + t, e) * K[size_t(c * d + e)];
          sc[size_t(c)] = a / std::sqrt(double(d)), mx = std::max(mx, sc[size_t(c)]);
        }
        for (double& e : sc) z += (e = std::exp(e - mx));
        for (int64_t e = 0; e < d; ++e) {
          double o = 0;
          for (int64_t c = 0; c < 2 * b; ++c) o += sc[size_t(c)] / z * V[size_t(c * d + e)];
          out[size_t((bh * N + i * b + t) * d + e)] = float(o);
        }
      }
    }
  }
  MESSAGE("largest |P - 1/nb| " << spread);
  CHECK(spread > 0.2);  // a P near uniform would hide the scores' scale
  Tensor ref = lin(*att, "o", merge_heads(Tensor::from({B, H, N, d}, out)));
  check_close(y, ref, 1e-4, "sinkhorn forward with several blocks");
}
