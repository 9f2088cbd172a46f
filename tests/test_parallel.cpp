// train/parallel.h: batch-parallel steps.  The parameters after N steps are the same bits at
// 1, 2 and 3 threads for every model (dropout, Reformer's rotations, Performer's and RFA's
// redraws, Routing's centroids and Sinkhorn's noise included) and a causal language model;
// the sharded gradient is the batch mean; a shard's error reaches the caller; evaluation scores
// a batch in the shards a step would cut it into, to the same bits at any thread count.
// These compare paths of the same code; what each path must give (the masks, the buffers, the
// redraws, the batch mean, auto's rule), worked out by hand, is in tests/test_step_state.cpp.
#include <doctest/doctest.h>

#include <omp.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "attention/attention.h"
#include "train/parallel.h"
#include "train/trainer.h"
#include "tests/util.h"

using namespace az;
namespace fs = std::filesystem;

namespace {

std::string temp_dir() {
  std::string t = (fs::temp_directory_path() / "az_parallel_XXXXXX").string();
  if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
  return t;
}

// Every parameter's and buffer's bits after a run, by name.
using Bits = std::map<std::string, std::vector<float>>;
Bits bits_of(const Module& m) {
  Bits b;
  for (auto& p : m.named_parameters()) b[p.name].assign(p.tensor.data(), p.tensor.data() + p.tensor.numel());
  for (auto& p : m.named_buffers()) b["buffer " + p.name].assign(p.tensor.data(), p.tensor.data() + p.tensor.numel());
  return b;
}
// The first entry whose bits differ ("" when all are the same).
std::string first_difference(const Bits& a, const Bits& b) {
  for (auto& [name, v] : a) {
    auto it = b.find(name);
    if (it == b.end() || it->second.size() != v.size() ||
        std::memcmp(v.data(), it->second.data(), v.size() * sizeof(float)) != 0)
      return name;
  }
  return a.size() == b.size() ? "" : "(the number of tensors)";
}

// Under the sanitizers (ATTNZOO_TEST_SCALE=small) the models that draw at random or write buffers, and
// fewer steps; make test runs all 20.
bool small_scale() {
  const char* s = std::getenv("ATTNZOO_TEST_SCALE");
  return s && std::string(s) == "small";
}

struct ThreadCount {  // omp_set_num_threads for a scope
  explicit ThreadCount(int t) : before(omp_get_max_threads()) { omp_set_num_threads(t); }
  ~ThreadCount() { omp_set_num_threads(before); }
  int before;
};

// `steps` training steps through the Trainer at `threads` threads, batch-parallel.
Bits train_bits(const TrainConfig& tc, const ModelConfig& mc, int threads, int64_t seq_len) {
  ThreadCount t(threads);
  ParallelSettings saved = parallel_settings();
  parallel_settings().mode = Parallel::kBatch;
  RunOptions ro;
  ro.quiet = true;
  ro.seq_len = seq_len;
  TrainConfig c = tc;
  c.out = temp_dir();
  Trainer trainer(c, mc, ro);
  trainer.run();
  Bits b = bits_of(trainer.model());
  parallel_settings() = saved;
  fs::remove_all(c.out);
  return b;
}

}  // namespace

TEST_CASE("shards depend on the batch's shape alone, and cover it") {
  ParallelSettings saved = parallel_settings();
  parallel_settings().max_shards = 16;
  CHECK(shard_count(Parallel::kOps, 32, 128) == 1);
  CHECK(shard_count(Parallel::kBatch, 1, 4096) == 1);
  CHECK(shard_count(Parallel::kBatch, 32, 64) == 2);    // 2048 tokens: at least 2
  CHECK(shard_count(Parallel::kBatch, 32, 128) == 4);   // 4096 tokens: one per 1024
  CHECK(shard_count(Parallel::kBatch, 10, 310) == 4);   // 3100 tokens: rounded up
  CHECK(shard_count(Parallel::kBatch, 8, 1024) == 8);   // at most B
  CHECK(shard_count(Parallel::kBatch, 64, 2000) == 16); // at most --shards
  parallel_settings().max_shards = 3;
  CHECK(shard_count(Parallel::kBatch, 64, 2000) == 3);
  parallel_settings() = saved;
  CHECK(choose_parallel(32, 128, 64, 2) == Parallel::kBatch);
  CHECK(choose_parallel(2, 4096, 128, 16) == Parallel::kOps);  // fewer examples than threads, long rows
  CHECK(choose_parallel(2, 64, 64, 16) == Parallel::kBatch);   // short rows: shards still pay
  CHECK(describe_parallel(Parallel::kBatch, 10, 310).find("4 shards of 2-3 examples") != std::string::npos);
  CHECK(parse_parallel("ops") == Parallel::kOps);
  CHECK(test::error_of([] { parse_parallel("threads"); }) == "--parallel must be auto, batch or ops, got 'threads'");
}

TEST_CASE("the sharded gradient is the batch mean, and a shard's error reaches the caller") {
  // Ops (one backward over the batch) against batch (4 shards of 3, 3, 2, 2): equal to rounding,
  // dropout on: its masks are counted by example over the whole batch, however it is cut.
  ModelConfig m;
  m.vocab = 16, m.num_classes = 10, m.max_len = 310, m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16, m.dropout = 0.2f;
  Batch b;
  b.B = 10, b.N = 40;
  for (int i = 0; i < b.B * b.N; ++i) b.tokens.push_back(1 + (i * 7) % 15), b.pad_mask.push_back(i % 40 >= 30 + i / 40 ? 1.f : 0.f);
  for (int i = 0; i < b.B; ++i) b.labels.push_back(i % 10);
  auto grads = [&](Parallel mode) {
    ThreadCount t(2);
    global_rng() = Rng(9);
    SequenceClassifier model(m);
    StepSums s = sharded_backward(model, b, mode, m.max_len, [&](const Batch& rows) {
      Tensor logits = model.forward(rows);
      return ShardLoss{cross_entropy(logits, IntTensor({rows.B}, rows.labels)), rows.B, 0};
    });
    CHECK(s.terms == 10);
    std::vector<float> g;
    for (auto& p : model.named_parameters()) g.insert(g.end(), p.tensor.grad_data(), p.tensor.grad_data() + p.tensor.numel());
    return std::make_pair(g, s.loss_sum);
  };
  auto [whole, loss_whole] = grads(Parallel::kOps);
  auto [sharded, loss_sharded] = grads(Parallel::kBatch);
  REQUIRE(whole.size() == sharded.size());
  double worst = 0, scale = 0;
  for (size_t i = 0; i < whole.size(); ++i) worst = std::max(worst, double(std::fabs(whole[i] - sharded[i]))), scale = std::max(scale, double(std::fabs(whole[i])));
  CHECK(worst <= 1e-5 * std::max(scale, 1.0));
  CHECK(loss_sharded == doctest::Approx(loss_whole).epsilon(1e-5));

  ThreadCount t(2);
  std::string err = test::error_of([&] {
    run_shards(4, [](int64_t k) {
      if (k >= 2) throw Error("shard " + std::to_string(k) + " failed");
    });
  });
  CHECK(err == "shard 2 failed");  // the lowest shard's, after all have finished
  CHECK(omp_get_max_threads() == 2);  // the workers' single-threaded setting ended with the region
}

TEST_CASE("every model trains to the same bits at 1, 2 and 3 threads (batch-parallel)") {
  // 20 steps of a batch of 10 cut into 4 shards (3, 3, 2, 2 examples): threads take them in any
  // order, one thread takes two; with dropout on, and every model's random draws.
  TrainConfig tc;
  tc.task = "listops", tc.steps = small_scale() ? 8 : 20, tc.batch = 10, tc.lr = 3e-3f, tc.warmup = 2;
  tc.eval_every = 4, tc.log_every = 4, tc.eval_limit = 20;
  const std::set<std::string> drawing = {"full", "reformer", "routing", "sinkhorn", "performer", "rfa", "bigbird"};
  for (const std::string& name : attention_names()) {
    if (small_scale() && !drawing.count(name)) continue;
    CAPTURE(name);
    ModelConfig m;
    m.model = name, m.max_len = 310, m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16, m.dropout = 0.1f;
    if (name == "performer" || name == "rfa") m.knobs["redraw"] = 3;  // redrawn within the 20 steps
    Bits one = train_bits(tc, m, 1, 310);
    CHECK(first_difference(one, train_bits(tc, m, 2, 310)) == "");
    CHECK(first_difference(one, train_bits(tc, m, 3, 310)) == "");
  }
}

TEST_CASE("a causal language model trains to the same bits at 1, 2 and 3 threads") {
  TrainConfig tc;
  tc.task = "lm", tc.steps = 20, tc.batch = 12, tc.lr = 3e-3f, tc.warmup = 2;  // 3 shards of 4
  tc.eval_every = 10, tc.log_every = 10, tc.eval_limit = 16;
  if (small_scale()) tc.steps = 8;
  for (const char* name : {"full", "local"}) {
    CAPTURE(name);
    ModelConfig m;
    m.model = name, m.causal = true, m.max_len = 256, m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16, m.dropout = 0.1f;
    Bits one = train_bits(tc, m, 1, 256);
    CHECK(first_difference(one, train_bits(tc, m, 2, 256)) == "");
    CHECK(first_difference(one, train_bits(tc, m, 3, 256)) == "");
  }
}

TEST_CASE("evaluation scores each batch in its step's shards: the same bits at 1, 2 and 3 threads, whole batches' result") {
  // 10 examples of 200 to 290 tokens, scored in batches of 10 (sorted by length, one batch of
  // N 290): batch-parallel cuts it as a step would, 3 shards (2900 tokens) of 4, 3 and 3; ops
  // scores it whole.  A whole batch of 512 examples of 256 tokens on one thread held 4.4 GB of
  // attention scores (issue 68); a shard holds what a training step's shard does.
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
  // How many forwards the model ran: one softmax a forward (one layer of full attention).
  auto softmax_calls = [] {
    std::istringstream table(Profiler::table());
    for (std::string op; table >> op;) {
      double fwd_ms, bwd_ms;
      int64_t fwd_n = 0;
      if (op == "softmax" && (table >> fwd_ms >> bwd_ms >> fwd_n)) return fwd_n;
      table.ignore(1 << 20, '\n');
    }
    return int64_t(0);
  };
  auto eval = [&](Parallel mode, int threads, int64_t* forwards) {
    ThreadCount t(threads);
    ParallelSettings saved = parallel_settings();
    parallel_settings().mode = mode;
    Profiler::reset(), Profiler::enabled = true;
    EvalResult r = evaluate_model(model, d, opts);
    Profiler::enabled = false, *forwards = softmax_calls(), Profiler::reset();
    parallel_settings() = saved;
    return r;
  };
  int64_t n_whole = 0, n1 = 0, n2 = 0, n3 = 0;
  EvalResult whole = eval(Parallel::kOps, 1, &n_whole), one = eval(Parallel::kBatch, 1, &n1);
  EvalResult two = eval(Parallel::kBatch, 2, &n2), three = eval(Parallel::kBatch, 3, &n3);
  CHECK(n_whole == 1);
  CHECK(n1 == 3);
  CHECK(n2 == 3);
  CHECK(n3 == 3);
  CHECK(one.examples == 10);
  CHECK(whole.examples == 10);
  CHECK(one.accuracy == whole.accuracy);
  CHECK(one.loss == doctest::Approx(whole.loss).epsilon(1e-6));
  for (const EvalResult* r : {&two, &three}) {  // the same bits
    CHECK(std::memcmp(&r->loss, &one.loss, sizeof(double)) == 0);
    CHECK(r->accuracy == one.accuracy);
    CHECK(r->examples == one.examples);
  }
}
