// What a training step does to state (issue 76), each against a value worked out by hand or
// computed here, never only against another path of the same code (tests/test_parallel.cpp
// holds those comparisons: threads, shards, whole batches):
//   - the random source moves on every step, and each dropout mask is the counter-based draw
//     for (seed, step, example, site) computed from rng.h's formulas, in every --parallel mode;
//   - Routing's buffers change by their rule (k-means on the first training batch, then the
//     EMA), once a step, from shard 0's rows, in every mode;
//   - Performer's and RFA's redraws come on their schedule (Module::before_step reaches them);
//   - the sharded gradient is the mean over loss terms when shards score different numbers of
//     positions;
//   - Sinkhorn's Gumbel noise is counted by example over the whole batch;
//   - a resumed run keeps what training wrote (the buffers, the schedule);
//   - auto chooses as docs/speed.md says at every boundary (in choose_parallel, and in the trainer
//     as a user runs train), and scoring shards by default;
//   - the storage pools keep at most what storage.cpp promises, 64 MiB in all.
#include <doctest/doctest.h>

#include <omp.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <thread>

#include "attention/kernels/kernel_util.h"  // orthogonal_gaussian
#include "attention/sinkhorn.h"             // sinkhorn_gumbel
#include "data/listops/listops.h"
#include "train/parallel.h"
#include "train/trainer.h"
#include "tests/util.h"

using namespace az;

namespace az {
size_t pool_count();  // autograd/runtime/storage.cpp: the pools that share the 64 MiB floor
}

namespace {

struct ThreadCount {  // omp_set_num_threads for a scope
  explicit ThreadCount(int t) : before(omp_get_max_threads()) { omp_set_num_threads(t); }
  ~ThreadCount() { omp_set_num_threads(before); }
  int before;
};

struct ModeScope {  // parallel_settings().mode for a scope
  explicit ModeScope(Parallel m) : saved(parallel_settings()) { parallel_settings().mode = m; }
  ~ModeScope() { parallel_settings() = saved; }
  ParallelSettings saved;
};

// ---- the random source written out from rng.h, apart from rng.cpp ---------------------------
// splitmix64's finaliser; xoshiro256** seeded with splitmix64(seed + 0x1234567 * (i + 1)).
uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
struct Xoshiro {
  std::array<uint64_t, 4> s;
  explicit Xoshiro(uint64_t seed) {
    for (int i = 0; i < 4; ++i) s[size_t(i)] = splitmix(seed + 0x1234567ULL * uint64_t(i + 1));
  }
  explicit Xoshiro(const std::array<uint64_t, 4>& state) : s(state) {}
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t next() {
    const uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
    return r;
  }
};
// Element `counter` of a draw keyed `key`: its hash (dropout keeps it when >= the threshold;
// Sinkhorn's noise takes its top 24 bits as u).
uint64_t element_hash(uint64_t key, uint64_t counter) { return splitmix(key ^ counter * 0x9e3779b97f4a7c15ULL); }

// The modes and thread counts a step is checked in: one backward over the batch with split
// products, and shards over 1, 2 and 3 threads.
const std::pair<Parallel, int> kModes[] = {
    {Parallel::kOps, 2}, {Parallel::kBatch, 1}, {Parallel::kBatch, 2}, {Parallel::kBatch, 3}};

// Every parameter's and buffer's values, by name ("buffer " before a buffer's).
using Values = std::map<std::string, std::vector<float>>;
Values values_of(const Module& m) {
  Values v;
  for (auto& p : m.named_parameters()) v[p.name].assign(p.tensor.data(), p.tensor.data() + p.tensor.numel());
  for (auto& p : m.named_buffers()) v["buffer " + p.name].assign(p.tensor.data(), p.tensor.data() + p.tensor.numel());
  return v;
}
const std::vector<float>& entry(const Values& v, const std::string& suffix) {  // the one entry ending so
  for (auto& [name, x] : v)
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) return x;
  FAIL("no entry ending in '" << suffix << "'");
  static std::vector<float> none;
  return none;
}

// A batch of B examples of N positions (token 1, no padding), each labelled with its index: a
// loss_of finds which examples a shard holds.
Batch indexed_batch(int B, int N = 1) {
  Batch b;
  b.B = B, b.N = N;
  b.tokens.assign(size_t(B * N), 1), b.pad_mask.assign(size_t(B * N), 0.0f);
  for (int e = 0; e < B; ++e) b.labels.push_back(e);
  return b;
}

}  // namespace

// ---- choose_parallel and scoring: the documented rules at their boundaries ------------------

TEST_CASE("auto splits the batch unless it has fewer examples than threads and long rows: every boundary of the rule") {
  // docs/speed.md: "auto chooses batch unless the batch has fewer examples than threads and its
  // rows are long (N x D >= 2^17) ... at B >= T it always chooses batch."  Written out:
  auto rule = [](int64_t B, int64_t N, int64_t D, int T) {
    return B < T && N * D >= 131072 ? Parallel::kOps : Parallel::kBatch;
  };
  const std::pair<int64_t, int64_t> rows[] = {{1024, 128}, {1023, 128}, {1024, 127}, {131072, 1}, {131071, 1},
                                              {512, 256},  {4096, 64},  {64, 64},    {2048, 2048}};
  for (int T : {1, 2, 3, 16})
    for (int64_t B : {int64_t(T) - 1, int64_t(T), int64_t(T) + 1})
      for (auto [N, D] : rows) {
        if (B < 1) continue;
        CAPTURE(T);
        CAPTURE(B);
        CAPTURE(N);
        CAPTURE(D);
        CHECK(choose_parallel(B, N, D, T) == rule(B, N, D, T));
      }
  // The boundaries by hand: 16 examples at 16 threads is a shard a thread (bug 1 of issue 76 split
  // its products); 15 leave a thread idle; N*D = 1023*128 = 2^17 - 128 is not long.
  CHECK(choose_parallel(16, 1024, 128, 16) == Parallel::kBatch);
  CHECK(choose_parallel(15, 1024, 128, 16) == Parallel::kOps);
  CHECK(choose_parallel(15, 1023, 128, 16) == Parallel::kBatch);
  CHECK(choose_parallel(2, 131072, 1, 3) == Parallel::kOps);
  CHECK(choose_parallel(2, 131071, 1, 3) == Parallel::kBatch);
}

TEST_CASE("evaluation, validation and predict shard by default: scoring under auto cuts batches as a step does") {
  // The default setting is auto (train, eval and predict's --parallel), and auto scores in shards:
  // a batch of 10 examples of 290 tokens (2900 tokens: one shard per 1024, rounded up) is 3
  // pieces of 4, 3 and 3 examples; only ops scores it whole.  (Issue 76, bug 5: auto scored as ops,
  // whole batches on one thread: 4.4 GB for LRA's Pathfinder evaluation.)
  CHECK(ParallelSettings{}.mode == Parallel::kAuto);
  Batch b = indexed_batch(10, 290);
  std::vector<Batch> batches = {b};
  {
    ModeScope auto_mode(Parallel::kAuto);
    CHECK(scoring_mode() == Parallel::kBatch);
    std::vector<ScoringPiece> p = scoring_pieces(batches);
    REQUIRE(p.size() == 3);
    CHECK(p[0].rows.first == 0);
    CHECK(p[0].rows.rows == 4);
    CHECK(p[1].rows.first == 4);
    CHECK(p[1].rows.rows == 3);
    CHECK(p[2].rows.first == 7);
    CHECK(p[2].rows.rows == 3);
    // a piece a thread, its ops on that thread alone
    ThreadCount t(2);
    std::vector<int> inner(3, 0);
    run_scoring(3, [&](int64_t i) { inner[size_t(i)] = omp_get_max_threads(); });
    CHECK(inner == std::vector<int>{1, 1, 1});
  }
  {
    ModeScope ops(Parallel::kOps);
    CHECK(scoring_mode() == Parallel::kOps);
    std::vector<ScoringPiece> p = scoring_pieces(batches);
    REQUIRE(p.size() == 1);
    CHECK(p[0].rows.rows == 10);
    ThreadCount t(2);
    int inner = 0;
    run_scoring(1, [&](int64_t) { inner = omp_get_max_threads(); });
    CHECK(inner == 2);  // in turn, every product split among the threads
  }
  {
    ModeScope batch(Parallel::kBatch);
    CHECK(scoring_mode() == Parallel::kBatch);
  }

  // evaluate_model (eval and the trainer's validation) under the default: 3 forwards, one a piece.
  ModelConfig m;
  m.vocab = 16, m.num_classes = 3, m.max_len = 310, m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16;
  global_rng() = Rng(4);
  SequenceClassifier model(m);
  Dataset d;
  d.vocab_size = 16, d.num_classes = 3;
  for (int i = 0; i < 10; ++i) {
    std::vector<int32_t> s;
    for (int t = 0; t < 200 + 10 * i; ++t) s.push_back(1 + (t * 7 + i) % 15);
    d.seqs.push_back(s), d.labels.push_back(i % 3);
  }
  BatchOptions opts;
  opts.batch = 10, opts.max_len = 310;
  ThreadCount t(2);
  ModeScope defaults(ParallelSettings{}.mode);
  Profiler::reset(), Profiler::enabled = true;
  EvalResult r = evaluate_model(model, d, opts);
  Profiler::enabled = false;
  int64_t forwards = 0;  // one softmax a forward (one layer of full attention)
  std::istringstream table(Profiler::table());
  for (std::string op; table >> op;) {
    double fwd_ms, bwd_ms;
    if (op == "softmax" && (table >> fwd_ms >> bwd_ms >> forwards)) break;
    table.ignore(1 << 20, '\n');
  }
  Profiler::reset();
  CHECK(r.examples == 10);
  CHECK(forwards == 3);
}

// ---- the random source: every step moves it, every mask is its counter-based draw -----------

TEST_CASE("every step draws new dropout masks: each equals the counter-based draw for (seed, step, example, site)") {
  // A model with two dropout sites (p = 1/2) and nothing else random.  rng.h's formulas: a step's
  // forward draws one key a site from the source, in site order (every shard from a copy of the
  // step's source, and the source then moves on by one forward's draws); element j of example e
  // (D elements an example, counted over the whole batch) is kept when
  // splitmix64(key ^ (e*D + j) * golden) >= thresh; p = 1/2 gives thresh = 2^63 and scale 2.
  // So the key of step t (from 1), site k, is draw 2(t-1) + k of the source seeded with 7.
  constexpr int B = 5, D = 6, kSteps = 3;
  struct Probe : Module {
    Tensor w = register_parameter("w", Tensor::ones({D}));
  };
  for (auto [mode_, threads_] : kModes) {
    const Parallel mode = mode_;
    const int threads = threads_;
    const std::string mode_name = parallel_name(mode);
    CAPTURE(mode_name);
    CAPTURE(threads);
    ThreadCount t(threads);
    Probe probe;
    global_rng() = Rng(7);
    Xoshiro source(7);
    std::vector<std::vector<float>> masks;  // [step * 2 + site][e * D + j], as a step saw them
    for (int step = 1; step <= kSteps; ++step) {
      std::vector<float> seen[2] = {std::vector<float>(B * D, -1), std::vector<float>(B * D, -1)};
      probe.before_step();
      // 5 examples at max_len 512: 2560 tokens, 3 shards (2, 2 and 1 examples) under batch
      StepSums s = sharded_backward(probe, indexed_batch(B), mode, 512, [&](const Batch& rows) {
        Tensor x = mul(Tensor::ones({rows.B, D}), probe.w);  // [rows, D], all 1
        Tensor y[2] = {dropout(x, 0.5f, true), dropout(x, 0.5f, true)};
        for (int site = 0; site < 2; ++site)
          for (int e = 0; e < rows.B; ++e)
            std::memcpy(&seen[site][size_t(rows.labels[size_t(e)] * D)], y[site].data() + e * D, sizeof(float) * D);
        return ShardLoss{mean(add(y[0], y[1])), rows.B, 0};
      });
      CHECK(s.terms == B);
      for (int site = 0; site < 2; ++site) {
        const uint64_t key = source.next();
        int wrong = 0;
        for (int e = 0; e < B; ++e)
          for (int j = 0; j < D; ++j) {
            const bool keep = element_hash(key, uint64_t(e * D + j)) >= (uint64_t(1) << 63);
            wrong += seen[site][size_t(e * D + j)] != (keep ? 2.0f : 0.0f);
          }
        CAPTURE(step);
        CAPTURE(site);
        CHECK(wrong == 0);
        masks.push_back(seen[site]);
      }
      // the process's source has moved on by exactly this step's two draws, and the calling
      // thread is out of the step: no shard, no rows (a later mask counts from 0 again)
      CHECK(global_rng().state() == source.s);
      CHECK(current_shard() == -1);
      CHECK(batch_shard().first == 0);
      CHECK(batch_shard().rows == 0);
    }
    for (int step = 1; step < kSteps; ++step)  // consecutive steps' masks differ, at both sites
      for (int site = 0; site < 2; ++site)
        CHECK(masks[size_t((step - 1) * 2 + site)] != masks[size_t(step * 2 + site)]);
  }
}

TEST_CASE("sinkhorn's Gumbel noise is counted by example over the whole batch, in any shard") {
  // sinkhorn.cpp: one draw of the source is the key; element i of a [B,H,nb,nb] noise tensor
  // of example-major layout, counted from (the shard's first example) * H*nb*nb, takes
  // u = top 24 bits of splitmix64(key ^ i * golden) / 2^24 and g = -log(-log(u + 1e-9) + 1e-9).
  // A shard of rows [first, first + rows) gets its examples' noise, not the batch's first's
  // (issue 76, bug 8).
  constexpr int64_t H = 2, nb = 3, per = H * nb * nb;
  auto expect = [&](uint64_t key, int64_t example, int64_t i) {
    const float u = float(element_hash(key, uint64_t(example * per + i)) >> 40) * (1.0f / 16777216.0f);
    return -std::log(-std::log(u + 1e-9f) + 1e-9f);
  };
  const std::pair<int64_t, int64_t> shards[] = {{0, 0}, {0, 3}, {3, 2}, {5, 4}};
  for (auto [shard_first, shard_rows_] : shards) {
    const int64_t first = shard_first, rows = shard_rows_;
    CAPTURE(first);
    CAPTURE(rows);
    Rng rng(11);
    RngScope use(rng);
    const BatchShard saved = batch_shard();
    batch_shard() = {first, rows};  // {0, 0}: one process, the whole batch of 4
    const int64_t n = rows ? rows : 4;
    Tensor g = sinkhorn_gumbel({n, H, nb, nb});
    batch_shard() = saved;
    const uint64_t key = Xoshiro(11).next();
    int wrong = 0;
    for (int64_t e = 0; e < n; ++e)
      for (int64_t i = 0; i < per; ++i) wrong += std::fabs(g.data()[e * per + i] - expect(key, first + e, i)) > 1e-5f;
    CHECK(wrong == 0);
    CHECK(rng.state() == [] { Xoshiro x(11); x.next(); return x.s; }());  // one draw, the key
  }
}

// ---- the batch mean over loss terms ---------------------------------------------------------

TEST_CASE("the sharded gradient is the mean over loss terms when shards score different numbers of positions") {
  // A token head's loss is a mean over the positions with a target.  6 examples of 4 positions,
  // 3 shards of 2 (6 x 512 tokens: one shard per 1024) scoring 4, 0 and 3 positions: example e's
  // targets are worth x = e + 1 each, the loss at a position w * x (w = 1).  The batch mean of
  // the 7 terms is (3*1 + 1*2 + 2*5 + 1*6) / 7 = 21/7 = 3, so dloss/dw = 3 and the loss is 3.
  // (Shards weighted by their rows give (5/4 + 0 + 16/3) / 3 = 2.19: issue 76, bug 4.)
  constexpr int B = 6, N = 4;
  const int targets_of[B] = {3, 1, 0, 0, 2, 1};
  Batch b = indexed_batch(B, N);
  b.targets.assign(size_t(B * N), kIgnoreTarget);
  for (int e = 0; e < B; ++e)
    for (int p = 0; p < targets_of[e]; ++p) b.targets[size_t(e * N + p)] = 0;
  struct Probe : Module {
    Tensor w = register_parameter("w", Tensor::ones({1}));
  };
  for (auto [mode_, threads_] : kModes) {
    const Parallel mode = mode_;
    const int threads = threads_;
    const std::string mode_name = parallel_name(mode);
    CAPTURE(mode_name);
    CAPTURE(threads);
    ThreadCount t(threads);
    Probe probe;
    StepSums s = sharded_backward(probe, b, mode, 512, [&](const Batch& rows) {
      std::vector<float> x;  // one value per scored position
      for (int e = 0; e < rows.B; ++e)
        for (int p = 0; p < N; ++p)
          if (rows.targets[size_t(e * N + p)] != kIgnoreTarget) x.push_back(float(rows.labels[size_t(e)] + 1));
      if (x.empty()) return ShardLoss{Tensor::zeros({1}), 0, 0};
      return ShardLoss{mean(mul(Tensor::from({int64_t(x.size())}, x), probe.w)), int64_t(x.size()), 0};
    });
    CHECK(s.terms == 7);
    CHECK(s.loss_sum == doctest::Approx(21.0).epsilon(1e-6));
    CHECK(probe.w.grad_data()[0] == doctest::Approx(3.0).epsilon(1e-6));
  }
}

// ---- Routing's buffers: k-means on the first training batch, then the EMA, once a step -------

namespace {
// Unit-length q and k rows of examples [0, rows) of x [B,N,D] at unpadded positions, by the
// projection's weights [D,D] (y = x W + b), in double: what Routing's k-means reads (one head).
std::vector<std::vector<double>> unit_qk(const std::vector<float>& x, const std::vector<float>& pad, int64_t rows,
                                         int64_t N, int64_t D, const Values& w) {
  std::vector<std::vector<double>> out;
  for (const char* which : {"proj.q", "proj.k"}) {
    const std::vector<float>& W = entry(w, std::string(which) + ".weight");
    const std::vector<float>& bias = entry(w, std::string(which) + ".bias");
    for (int64_t e = 0; e < rows; ++e)
      for (int64_t n = 0; n < N; ++n) {
        if (pad[size_t(e * N + n)] != 0) continue;
        std::vector<double> y(size_t(D), 0.0);
        double norm = 0;
        for (int64_t o = 0; o < D; ++o) {
          y[size_t(o)] = bias[size_t(o)];
          for (int64_t i = 0; i < D; ++i) y[size_t(o)] += double(x[size_t((e * N + n) * D + i)]) * W[size_t(i * D + o)];
          norm += y[size_t(o)] * y[size_t(o)];
        }
        for (double& v : y) v /= std::sqrt(norm);
        out.push_back(y);
      }
  }
  return out;
}
std::vector<double> unit(std::vector<double> v) {
  double n = 0;
  for (double x : v) n += x * x;
  for (double& x : v) x /= std::sqrt(n);
  return v;
}
std::vector<double> direction_of_sum(const std::vector<std::vector<double>>& rows) {
  std::vector<double> s(rows.at(0).size(), 0.0);
  for (auto& r : rows)
    for (size_t j = 0; j < s.size(); ++j) s[j] += r[j];
  return unit(s);
}
bool close(const std::vector<float>& got, const std::vector<double>& want) {  // to 1e-5
  double worst = 0;
  for (size_t j = 0; j < want.size(); ++j) worst = std::max(worst, std::fabs(double(got.at(j)) - want[j]));
  return got.size() == want.size() && worst < 1e-5;
}
// One training step of a layer on x [B,N,D] with padding pad [B,N] (1 = padded), under `mode` at
// `threads` threads, with a step's max_len of 8: each shard runs the layer on its rows.
void layer_step(Attention& attn, const std::vector<float>& x, const std::vector<float>& pad, int64_t B, int64_t N,
                int64_t D, Parallel mode, int threads) {
  ThreadCount t(threads);
  attn.before_step();
  sharded_backward(attn, indexed_batch(int(B), int(N)), mode, 8, [&](const Batch& rows) {
    const int64_t first = rows.labels[0];
    std::vector<float> xs(x.begin() + first * N * D, x.begin() + (first + rows.B) * N * D);
    std::vector<float> ps(pad.begin() + first * N, pad.begin() + (first + rows.B) * N);
    Tensor y = attn(Tensor::from({rows.B, N, D}, xs), Tensor::from({rows.B, N}, ps));  // the form --impl picks
    return ShardLoss{mean(y), rows.B, 0};
  });
}
}  // namespace

TEST_CASE("routing's centroids: k-means on the first training batch, then the EMA, once a step, from shard 0's rows") {
  // One head, one cluster, d = D = 4, decay 1/2.  With one cluster every unit q and k row is
  // its member, so k-means on the first batch gives mu1 = unit(sum of the rows), whatever its
  // random start, and that step's EMA keeps it (the members' direction is mu1).  The next
  // step: mu2 = unit(mu1/2 + unit(sum of the new rows)/2).  The rows are shard 0's (a step
  // keeps shard 0's buffer writes, nn/module.h): examples 0-2 of 6 under batch (6 x 8 tokens:
  // 2 shards of 3), all 6 under ops.  `initialized` goes 0 -> 1 at the first step.  (Issue 76,
  // bug 2: a batch-parallel step never made shard 0's writes: k-means restarted every step.)
  constexpr int64_t B = 6, N = 3, D = 4;
  std::vector<float> x1(size_t(B * N * D)), x2(x1.size()), pad(size_t(B * N), 0.0f);
  for (size_t i = 0; i < x1.size(); ++i)
    x1[i] = float(std::sin(1.0 + 0.7 * double(i))), x2[i] = float(std::cos(0.3 + 1.3 * double(i)));
  pad[size_t(1 * N + 2)] = 1, pad[size_t(4 * N + 2)] = 1;  // the last positions of examples 1 and 4: not members
  // Both forms learn them: the update is the model's call's (Attention::call), after either form.
  for (Impl impl : {Impl::fast, Impl::reference})
  for (Parallel asked : {Parallel::kAuto, Parallel::kBatch, Parallel::kOps})
    for (int threads : {1, 2, 3}) {
      ImplScope form(impl);
      const std::string impl_form = impl_name(impl);
      CAPTURE(impl_form);
      // auto resolved as the trainer resolves it: batch for 6 examples of 8 tokens
      const Parallel mode = asked == Parallel::kAuto ? choose_parallel(B, 8, D, threads) : asked;
      const std::string asked_name = parallel_name(asked);
      CAPTURE(asked_name);
      CAPTURE(threads);
      const int64_t shard0 = mode == Parallel::kOps ? B : 3;
      AttentionConfig c;
      c.dim = D, c.heads = 1, c.max_len = 8, c.knobs = {{"clusters", 1}, {"ema_decay", 0.5}};
      global_rng() = Rng(5);
      std::shared_ptr<Attention> attn = make_attention("routing", c);
      attn->train();
      const Values w = values_of(*attn);
      CHECK(entry(w, "initialized")[0] == 0.0f);
      layer_step(*attn, x1, pad, B, N, D, mode, threads);
      const std::vector<double> mu1 = direction_of_sum(unit_qk(x1, pad, shard0, N, D, w));
      Values after1 = values_of(*attn);
      CHECK(entry(after1, "initialized")[0] == 1.0f);
      CHECK(close(entry(after1, "centroids"), mu1));
      layer_step(*attn, x2, pad, B, N, D, mode, threads);
      const std::vector<double> s2 = direction_of_sum(unit_qk(x2, pad, shard0, N, D, w));
      std::vector<double> mix(static_cast<size_t>(D));
      for (size_t j = 0; j < mix.size(); ++j) mix[j] = 0.5 * mu1[j] + 0.5 * s2[j];
      Values after2 = values_of(*attn);
      CHECK(entry(after2, "initialized")[0] == 1.0f);
      CHECK(close(entry(after2, "centroids"), unit(mix)));
      // evaluation reads the centroids and writes nothing: scoring twice gives the same answer
      attn->eval();
      attn->forward(Tensor::from({B, N, D}, x1), Tensor::from({B, N}, pad));
      attn->train();
      CHECK(values_of(*attn) == after2);
    }
}

TEST_CASE("routing stores the centroids its first training call routed by (k-means' own, with --ema-decay 1), in either form") {
  // With decay 1 the EMA leaves a centroid where it is, so what the first training call stores
  // is what it routed by: k-means on its batch from one draw of the source.  Evaluating the same
  // batch afterwards routes by the stored centroids, so it gives the training call's output
  // (dropout 0).  An update made from a second routing (a second k-means, from another draw)
  // would store other centroids than those the output was computed with.
  Rng x_source(31);
  Tensor x = Tensor::randn({2, 12, 8}, 1.0f, x_source);
  std::vector<float> pad_rows(24, 0.0f);
  pad_rows[size_t(12 + 10)] = pad_rows[size_t(12 + 11)] = 1;
  Tensor pad = Tensor::from({2, 12}, pad_rows);
  for (Impl impl : {Impl::fast, Impl::reference}) {
    ImplScope form(impl);
    const std::string impl_form = impl_name(impl);
    CAPTURE(impl_form);
    AttentionConfig c;
    c.dim = 8, c.heads = 2, c.max_len = 16, c.knobs = {{"clusters", 4}, {"ema_decay", 1}};
    global_rng() = Rng(9);
    std::shared_ptr<Attention> attn = make_attention("routing", c);
    attn->train();
    global_rng() = Rng(10);
    const std::vector<float> trained = (*attn)(x, pad).to_vector();
    CHECK(entry(values_of(*attn), "initialized")[0] == 1.0f);
    attn->eval();
    const std::vector<float> evaluated = (*attn)(x, pad).to_vector();
    REQUIRE(trained.size() == evaluated.size());
    float worst = 0;
    for (size_t i = 0; i < trained.size(); ++i)
      if (pad_rows[i / (12 * 8) * 12 + i / 8 % 12] == 0) worst = std::max(worst, std::fabs(trained[i] - evaluated[i]));
    CHECK(worst < 1e-5f);
  }
}

TEST_CASE("routing's EMA moves each centroid toward its own members' direction, from shard 0's rows") {
  // Two clusters set by hand, c0 = e0 and c1 = -e0 (initialized: no k-means), decay 1/2.  A unit
  // row is nearest c0 when its first coordinate is >= 0 (ties go to the lower cluster), else c1.
  // Each centroid becomes unit(c/2 + unit(sum of its members)/2); one with no members stays.
  constexpr int64_t B = 6, N = 3, D = 4;
  std::vector<float> x(size_t(B * N * D)), pad(size_t(B * N), 0.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(2.0 + 1.1 * double(i)));
  pad[size_t(2 * N + 1)] = 1;
  for (Parallel mode : {Parallel::kBatch, Parallel::kOps}) {
    const std::string mode_name = parallel_name(mode);
    CAPTURE(mode_name);
    AttentionConfig c;
    c.dim = D, c.heads = 1, c.max_len = 8, c.knobs = {{"clusters", 2}, {"ema_decay", 0.5}};
    global_rng() = Rng(6);
    std::shared_ptr<Attention> attn = make_attention("routing", c);
    attn->train();
    for (auto& b : attn->named_buffers()) {
      if (b.name == "initialized") b.tensor.data()[0] = 1;
      if (b.name == "centroids") std::copy_n(std::vector<float>{1, 0, 0, 0, -1, 0, 0, 0}.data(), 8, b.tensor.data());
    }
    const Values w = values_of(*attn);
    layer_step(*attn, x, pad, B, N, D, mode, 2);
    std::vector<std::vector<double>> members[2];
    for (auto& row : unit_qk(x, pad, mode == Parallel::kOps ? B : 3, N, D, w))  // shard 0's rows
      members[row[0] >= 0 ? 0 : 1].push_back(row);
    std::vector<double> want;
    for (int k = 0; k < 2; ++k) {
      std::vector<double> mu = {k == 0 ? 1.0 : -1.0, 0, 0, 0};
      if (!members[k].empty()) {
        const std::vector<double> s = direction_of_sum(members[k]);
        for (size_t j = 0; j < mu.size(); ++j) mu[j] = 0.5 * mu[j] + 0.5 * s[j];
        mu = unit(mu);
      }
      want.insert(want.end(), mu.begin(), mu.end());
    }
    CHECK(!members[0].empty());
    CHECK(!members[1].empty());
    CHECK(close(entry(values_of(*attn), "centroids"), want));
  }
}

// ---- through the trainer: the source, the buffers and the redraws, step by step -------------

namespace {
struct AfterSteps {
  Values values;
  std::array<uint64_t, 4> rng;
};
// A small ListOps (64/16/16 examples of at most 120 tokens), written once: the runs below read it
// instead of generating the default's 22,000 examples each.
const std::string& small_listops() {
  static test::TempDir dir("az_step_state_listops");
  static const bool written = [] {
    ListOpsConfig c = listops_default();
    c.n_train = 64, c.n_val = 16, c.n_test = 16;
    write_listops_dir(c, dir.path);
    return true;
  }();
  (void)written;
  return dir.path;
}
// A fresh run stopped after `k` steps (k = 0: built, not run) under --parallel `mode` at 2 threads,
// validated after each: its parameters and buffers, and the process's random source.
AfterSteps after_steps(const ModelConfig& mc, Parallel mode, int64_t k) {
  test::TempDir dir("az_step_state");
  ThreadCount t(2);
  ModeScope m(mode);
  TrainConfig tc;
  tc.task = "listops", tc.data = small_listops(), tc.steps = 8, tc.batch = 8, tc.lr = 3e-3f, tc.warmup = 2;
  // validation after every step: it must leave the next step's state as it found it
  tc.eval_every = 1, tc.log_every = 1000, tc.eval_limit = 8, tc.out = dir.path;
  RunOptions ro;
  ro.quiet = true, ro.seq_len = mc.max_len, ro.stop_after = k;
  Trainer trainer(tc, mc, ro);
  if (k > 0) trainer.run();
  return {values_of(trainer.model()), global_rng().state()};
}
// How many draws take the source from `from` to `to` (-1: none within a million).
int64_t draws_between(const std::array<uint64_t, 4>& from, const std::array<uint64_t, 4>& to) {
  Xoshiro x(from);
  for (int64_t n = 0; n <= (1 << 20); ++n, x.next())
    if (x.s == to) return n;
  return -1;
}
}  // namespace

TEST_CASE("the trainer's step: the source moves on every step by one forward's draws, in every mode") {
  // Dropout masks, Reformer's rotations and Sinkhorn's noise are all keyed by the step's source:
  // after k steps it has moved by k times step 1's draws (the same forward every step), never 0.
  // Reformer and Sinkhorn train without dropout here, so their draws are the rotations and the
  // noise alone: a step that drew them elsewhere (or not at all) would move the source by 0.
  // (Issue 76, bug 3: after a batch-parallel step the source stayed where it was, and every step
  // drew the same masks, rotations and noise.)
  for (const char* name : {"full", "reformer", "sinkhorn"})
    for (Parallel mode : {Parallel::kAuto, Parallel::kBatch, Parallel::kOps}) {
      const std::string model_name = name;
      CAPTURE(model_name);
      const std::string mode_name = parallel_name(mode);
      CAPTURE(mode_name);
      ModelConfig m;
      m.model = name, m.max_len = 128, m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16;
      m.dropout = model_name == "full" ? 0.1f : 0.0f;
      if (model_name == "sinkhorn") m.knobs["block"] = 16;  // 4 blocks: noise [B,H,4,4]
      std::vector<std::array<uint64_t, 4>> at;
      for (int64_t k = 0; k <= 3; ++k) at.push_back(after_steps(m, mode, k).rng);
      const int64_t per_step = draws_between(at[0], at[1]);
      CHECK(per_step > 0);
      for (int64_t k = 2; k <= 3; ++k) CHECK(draws_between(at[0], at[size_t(k)]) == k * per_step);
    }
}

TEST_CASE("the trainer's step: routing initialises on step 1 and moves its centroids every step, in every mode") {
  // Step 1 runs k-means (initialized 0 -> 1); every step's EMA then moves each centroid by
  // (1 - 0.999) of the way to its members' direction: a change at every step, unit length kept.
  for (Parallel mode : {Parallel::kAuto, Parallel::kBatch, Parallel::kOps}) {
    const std::string mode_name = parallel_name(mode);
    CAPTURE(mode_name);
    ModelConfig m;
    m.model = "routing", m.max_len = 128, m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16, m.dropout = 0.1f;
    std::vector<Values> at;
    for (int64_t k = 0; k <= 3; ++k) at.push_back(after_steps(m, mode, k).values);
    CHECK(entry(at[0], "initialized")[0] == 0.0f);
    for (int64_t k = 1; k <= 3; ++k) {
      CAPTURE(k);
      CHECK(entry(at[size_t(k)], "initialized")[0] == 1.0f);
      const std::vector<float>& mu = entry(at[size_t(k)], "centroids");
      CHECK(mu != entry(at[size_t(k - 1)], "centroids"));
      const int64_t d = m.dim / m.heads;
      double worst = 0;
      for (size_t c = 0; c < mu.size(); c += size_t(d)) {
        double n = 0;
        for (int64_t j = 0; j < d; ++j) n += double(mu[c + size_t(j)]) * mu[c + size_t(j)];
        worst = std::max(worst, std::fabs(std::sqrt(n) - 1.0));
      }
      CHECK(worst < 1e-5);
    }
  }
}

TEST_CASE("the trainer's step: performer and RFA redraw on their schedule, in every mode, from the step's source") {
  // --redraw 2: the schedule counts steps (before_step, once a step) and redraws before steps 3
  // and 5, each time the first draw of that step's source: W after step 2 (= the start's) is
  // redrawn at step 3 from the source as step 2 left it -- orthogonal_gaussian (performer) or
  // N(0,1) (RFA) of [m,d] -- and kept at step 4.  (Issue 76, bug 7: Module::before_step did not
  // reach the submodules, and features were never redrawn in training.)
  for (const char* name : {"performer", "rfa"})
    for (Parallel mode : {Parallel::kAuto, Parallel::kBatch, Parallel::kOps}) {
      const std::string model_name = name;
      CAPTURE(model_name);
      const std::string mode_name = parallel_name(mode);
      CAPTURE(mode_name);
      ModelConfig m;
      m.model = name, m.max_len = 128, m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16, m.dropout = 0.1f;
      m.knobs = {{"redraw", 2}};
      std::vector<AfterSteps> at;
      for (int64_t k = 0; k <= 4; ++k) at.push_back(after_steps(m, mode, k));
      const std::vector<float>& w0 = entry(at[0].values, "buffer blocks.0.mixer.features");
      const int64_t d = m.dim / m.heads, rows = int64_t(w0.size()) / d;
      Rng r;
      r.set_state(at[2].rng);
      Tensor drawn =
          std::string(name) == "performer" ? orthogonal_gaussian(rows, d, r) : Tensor::randn({rows, d}, 1.0f, r);
      const std::vector<float> w3(drawn.data(), drawn.data() + drawn.numel());
      CHECK(entry(at[1].values, "buffer blocks.0.mixer.features") == w0);
      CHECK(entry(at[2].values, "buffer blocks.0.mixer.features") == w0);
      CHECK(w3 != w0);
      CHECK(entry(at[3].values, "buffer blocks.0.mixer.features") == w3);
      CHECK(entry(at[4].values, "buffer blocks.0.mixer.features") == w3);
    }
}

TEST_CASE("a resumed run keeps what training wrote: routing's k-means is not redone, the redraw stays on schedule") {
  // Stopped after step 2 and resumed to step 3 from last.ckpt: the buffers come back with the
  // parameters and the random source.  Performer (--redraw 2) redraws at step 3 from the source
  // as step 2 left it, as the uninterrupted run does (the test above); routing's centroids carry
  // on by their EMA, the same bits as without the stop, `initialized` still 1.
  for (const char* name : {"performer", "routing"}) {
    const std::string model_name = name;
    CAPTURE(model_name);
    ModelConfig m;
    m.model = name, m.max_len = 128, m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16, m.dropout = 0.1f;
    if (model_name == "performer") m.knobs = {{"redraw", 2}};
    const AfterSteps two = after_steps(m, Parallel::kAuto, 2), three = after_steps(m, Parallel::kAuto, 3);
    test::TempDir dir("az_step_state_resume");
    ThreadCount t(2);
    TrainConfig tc;
    tc.task = "listops", tc.data = small_listops(), tc.steps = 8, tc.batch = 8, tc.lr = 3e-3f, tc.warmup = 2;
    tc.eval_every = 1000, tc.log_every = 1000, tc.eval_limit = 8, tc.out = dir.path;
    RunOptions first;
    first.quiet = true, first.seq_len = m.max_len, first.stop_after = 2;
    Trainer(tc, m, first).run();
    RunOptions resume;
    resume.quiet = true, resume.resume = dir / "last.ckpt", resume.stop_after = 3;
    TrainConfig from_checkpoint;
    from_checkpoint.steps = 0;
    Trainer resumed(from_checkpoint, ModelConfig(), resume);
    resumed.run();
    const Values v = values_of(resumed.model());
    if (model_name == "performer") {
      Rng r;
      r.set_state(two.rng);
      Tensor w3 = orthogonal_gaussian(int64_t(entry(v, "features").size()) / 8, 8, r);
      CHECK(entry(v, "features") == std::vector<float>(w3.data(), w3.data() + w3.numel()));
    } else {
      CHECK(entry(v, "initialized")[0] == 1.0f);
      CHECK(entry(v, "centroids") == entry(three.values, "centroids"));
    }
  }
}

TEST_CASE("train's default is auto, and auto resolves by the documented rule: at N*D = 2^17, ops for B < threads") {
  // The command line as a user types it, no --parallel: at --seq-len 2048 and --dim 64 a row is
  // N*D = 2^17, long; a batch of 1 at 2 threads leaves a thread without a shard, so auto splits
  // the products; a batch of 2 (as many examples as threads) is cut into shards.  At --seq-len
  // 2047 the rows are short and even 1 example runs batch-parallel.  The first line says which.
  test::TempDir dir("az_step_state_auto");
  auto first_line = [&](int batch, int seq_len) {
    std::string out;
    const std::string run = dir / ("b" + std::to_string(batch) + "-n" + std::to_string(seq_len));
    const int rc = test::run_shell("OMP_NUM_THREADS=2 timeout -k 5 300 " + test::attnzoo_cmd() +
                                       " train --task listops --data " + small_listops() +
                                       " --model full --dim 64 --heads 2 --layers 1 --ffn 16 --steps 1 --eval-every 1"
                                       " --eval-limit 1 --quiet --seq-len " + std::to_string(seq_len) +
                                       " --batch " + std::to_string(batch) + " --out " + run + " 2>&1",
                                   &out);
    CHECK(rc == 0);
    return out.substr(0, out.find('\n'));
  };
  const std::string one = first_line(1, 2048), two = first_line(2, 2048), short_rows = first_line(1, 2047);
  CHECK_MESSAGE(test::contains(one, "; split products over 2 threads"), one);
  CHECK_MESSAGE(test::contains(two, "; batch-parallel, 2 shards of 1 example over 2 threads"), two);
  CHECK_MESSAGE(test::contains(short_rows, "; batch-parallel, 1 shard of 1 example over 2 threads"), short_rows);
}

// ---- the storage pools: what they keep against storage.cpp's floor --------------------------

TEST_CASE("the pools keep at most 64 MiB in all, shared out among the threads' pools, at 1, 2 and 3 threads") {
  // storage.cpp: "the cache may always keep 64 MiB" -- in all, shared out among the pools: each
  // may keep 64 MiB / (the number of pools), and above that no more than twice its peak in use.
  // Fresh threads (no earlier step's peak in their pools) each hold 5 buffers of a size at once
  // and free them, sizes from 64 KiB up to 1 MiB, each an eighth more than the last (no cached
  // buffer is large enough to be reused): 45 MiB freed, a peak of 5 MiB.  A pool then keeps its
  // share less at most one buffer, or at most twice its peak where that is more than the share
  // (frees evict the oldest buffers while both are exceeded).  (Issue 76, bug 6: the pool count
  // was never updated, and every pool kept the whole 64 MiB: 16 threads could keep 1 GiB.)
  constexpr size_t kMiB = size_t(1) << 20, kFloor = 64 * kMiB, kLargest = kMiB, kPeak = 5 * kLargest;
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    pool_release();  // every pool's cache to the system: what follows is what the fresh ones keep
    std::vector<std::thread> pool;
    std::atomic<int> started{0};
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        { Storage first(1); }  // this thread's pool now exists (and counts) ...
        for (++started; started < threads;) std::this_thread::yield();  // ... and so do the others'
        for (size_t bytes = 64 << 10; bytes <= kLargest; bytes += bytes / 8) {
          Storage a(bytes / 4), b(bytes / 4), c(bytes / 4), d(bytes / 4), e(bytes / 4);
        }
      });
    for (auto& th : pool) th.join();
    size_t freed = 0;  // by each thread (its size classes round up: at least this)
    for (size_t bytes = 64 << 10; bytes <= kLargest; bytes += bytes / 8) freed += 5 * bytes;
    const size_t kept = pool_cached_bytes(), share = kFloor / pool_count();
    CHECK(kept <= kFloor);
    CHECK(kept <= size_t(threads) * std::max(share, 2 * kPeak));
    CHECK(kept + size_t(threads) * kLargest >= size_t(threads) * std::min(share, freed));
  }
  pool_release();
}

// ---- reference() is a function of its input, parameters and buffers (issue 77, item 6) --------

TEST_CASE("routing's, performer's and rfa's forward() and reference() write no buffer in training: the step's update does") {
  // Routing: before a step has set them, a training reference() routes by k-means on its own
  // batch and leaves the centroids and `initialized` as they were; the same random source gives the
  // same output twice, and so does forward().  The model's call (Attention::call) then makes the
  // step's update after the form: it records them (initialized 0 -> 1).
  // Performer and RFA with --redraw 1: neither form redraws W nor counts a call.
  Rng x_source(12);
  Tensor x = Tensor::randn({2, 6, 8}, 1.0f, x_source);
  for (const char* name : {"routing", "performer", "rfa"}) {
    const std::string variant = name;
    CAPTURE(variant);
    AttentionConfig c;
    c.dim = 8, c.heads = 2, c.max_len = 8;
    using Knobs = std::map<std::string, double>;
    c.knobs = variant == "routing" ? Knobs{{"clusters", 2}} : Knobs{{"redraw", 1}};
    global_rng() = Rng(7);
    std::shared_ptr<Attention> attn = make_attention(name, c);
    attn->train();
    const Values before = values_of(*attn);
    std::vector<std::vector<float>> outs;
    for (int call = 0; call < 3; ++call) {
      global_rng() = Rng(8);
      outs.push_back(attn->reference(x, Tensor()).to_vector());
      CHECK(values_of(*attn) == before);
    }
    CHECK(outs[1] == outs[0]);
    CHECK(outs[2] == outs[0]);
    for (int call = 0; call < 3; ++call) {  // the fast form alike: the update is the model's call's (Attention::call)
      global_rng() = Rng(8);
      attn->forward(x, Tensor());
      CHECK(values_of(*attn) == before);
    }
    if (variant == "routing") {
      (*attn)(x, Tensor());  // the model's call: outside a step the update is made at once
      CHECK(entry(values_of(*attn), "initialized")[0] == 1.0f);
    }
  }
}

TEST_CASE("the final test runs the best checkpoint as saved: its weights and its buffers, not the last step's") {
  // Performer redraws W every step (--redraw 1), so the best validation's W differs from the last
  // step's: the model the run tests must hold best.ckpt's parameters AND buffers, every value as
  // the file has it (a last-step W meeting the best step's weights is a model nobody trained, and
  // its test accuracy is not the best checkpoint's).  The seed is one whose best step is not the
  // last (a precondition checked below), so that the two differ.
  bool seen = false;
  for (uint64_t seed = 1; seed <= 6 && !seen; ++seed) {
    test::TempDir dir("az_step_state_best");
    ThreadCount t(2);
    ModelConfig m;
    m.model = "performer", m.max_len = 128, m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16, m.dropout = 0.1f;
    m.knobs = {{"redraw", 1}};
    TrainConfig tc;
    tc.task = "listops", tc.data = small_listops(), tc.steps = 6, tc.batch = 8, tc.lr = 3e-2f, tc.warmup = 1;
    tc.eval_every = 2, tc.log_every = 1000, tc.eval_limit = 16, tc.out = dir.path, tc.seed = seed;
    RunOptions ro;
    ro.quiet = true, ro.seq_len = m.max_len;
    Trainer trainer(tc, m, ro);
    const RunResult r = trainer.run();
    if (r.best_step >= r.steps_done) continue;  // best is the last step: try the next seed
    seen = true;
    CAPTURE(seed);
    const Checkpoint best = load_checkpoint(dir / "best.ckpt"), last = load_checkpoint(dir / "last.ckpt");
    REQUIRE(best.buffers.size() == last.buffers.size());
    bool differ = false;
    for (size_t i = 0; i < best.buffers.size(); ++i) differ = differ || best.buffers[i].data != last.buffers[i].data;
    REQUIRE_MESSAGE(differ, "the redraw every step should leave best.ckpt's W unlike last.ckpt's");
    const Values tested = values_of(trainer.model());
    for (const TensorRecord& p : best.params) CHECK_MESSAGE(entry(tested, p.name) == p.data, "parameter " << p.name);
    for (const TensorRecord& b : best.buffers)
      CHECK_MESSAGE(entry(tested, "buffer " + b.name) == b.data,
                    "buffer " << b.name << " is not best.ckpt's: the test ran the last step's with the best weights");
  }
  CHECK_MESSAGE(seen, "no seed of 1..6 had its best validation before the last step");
}
