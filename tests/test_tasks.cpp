// The task registry: a task defined only in this file appears in `train
// --help`, trains, evaluates and runs in a tiny LRA sweep; the pair and
// per-position heads are gradient-checked, ignore padding and learn a tiny
// task; the bad inputs of the registry issue get one-line errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "autograd/gradcheck.h"
#include "data/images/idx.h"
#include "data/images/image_folder.h"
#include "data/listops/listops.h"
#include "train/lab/lra.h"
#include "train/tasks.h"
#include "train/parallel.h"
#include "train/trainer.h"
#include "tests/util.h"

using namespace az;
namespace fs = std::filesystem;
using az::test::contains;
using az::test::error_of;
using az::test::TempDir;

namespace {

// ---- a task that exists only in this test binary -------------------------------------------
// "testcount": tokens 1..4, label 1 when token 1 occurs more often than token 2.
Dataset count_data(int n, uint64_t seed) {
  Dataset d;
  d.vocab_size = 5, d.num_classes = 2, d.class_names = {"fewer", "more"};
  Rng r(seed);
  while (int(d.size()) < n) {
    std::vector<int32_t> s(size_t(6 + r.randint(10)));
    int ones = 0, twos = 0;
    for (auto& t : s) t = int32_t(1 + r.randint(4)), ones += t == 1, twos += t == 2;
    if (ones == twos) continue;
    d.seqs.push_back(s), d.labels.push_back(ones > twos);
  }
  return d;
}

TaskInfo count_task() {
  TaskInfo i;
  i.name = "testcount";
  i.summary = "test-only: more 1s than 2s?";
  i.options = {int_option("examples", 400, 10, 100000, "training examples")};
  i.load = [](const TaskContext& c) {
    TaskData t;
    t.splits.train = count_data(int(c.integer("examples")), 1);
    t.splits.val = count_data(100, 2), t.splits.test = count_data(100, 3);
    t.max_len = c.seq_len ? c.seq_len : 16;
    return t;
  };
  i.lra.title = "Count";
  i.lra.order = 50;
  i.lra.rows["tiny"] = {{16, 0, 0, 0, {}}, 16, 2, 1, 16, 60, 16, 5, 20, 3e-3};
  i.lra.describe = [](const LraData&) { return std::string("generated counts, seed 1"); };
  i.lra.prepare = [](const LraData&, const std::string&) {};
  i.lra.train_args = [](const LraData&, const std::string&) { return std::vector<std::string>{"--task", "testcount"}; };
  return i;
}
RegisterTask reg_count(count_task());

// This binary as the attnzoo program (tests/doctest_main.cpp): returns the exit status, stdout+stderr in *out.
int run_self(const std::string& args, std::string* out) {
  // (this program's path as it sees it: under qemu, /proc/PID/exe from outside is qemu itself)
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string cmd = "AZ_TEST_AS_CLI=1 OMP_NUM_THREADS=1 " + az::test::run_prefix() + self + " " + args + " 2>&1";
  return az::test::run_shell(cmd, out);
}

ModelConfig small_model(const std::string& head) {
  ModelConfig m;
  m.dim = 8, m.heads = 2, m.layers = 1, m.ffn = 8, m.max_len = 8, m.vocab = 6, m.num_classes = 3;
  m.dropout = 0, m.head = choice_from<Head>(head);
  return m;
}

// Well-conditioned parameters for central differences (see test_train.cpp).
std::vector<Tensor> condition(SequenceClassifier& model) {
  std::vector<Tensor> params;
  Rng init(11);
  for (auto& p : model.named_parameters()) {
    bool gain = p.name.find("gamma") != std::string::npos;
    for (int64_t i = 0; i < p.tensor.numel(); ++i) p.tensor.data()[i] = (gain ? 1.0f : 0.0f) + 0.5f * (init.uniform() - 0.5f);
    params.push_back(p.tensor);
  }
  return params;
}

Batch pair_batch() {
  Batch b;
  b.B = 2, b.N = 5, b.N2 = 4;
  b.tokens = {1, 2, 3, 4, 5, 2, 2, 3, 0, 0};
  b.pad_mask = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
  b.tokens2 = {3, 1, 0, 0, 5, 4, 3, 2};
  b.pad_mask2 = {0, 0, 1, 1, 0, 0, 0, 0};
  b.labels = {0, 2};
  return b;
}

}  // namespace

TEST_CASE("a task defined only in the tests is listed, trains, evaluates and runs in a tiny LRA sweep") {
  TempDir dir("az_tasks");
  std::string out;
  REQUIRE(run_self("train --help", &out) == 0);
  CHECK(contains(out, "testcount: test-only: more 1s than 2s? [sequence head, accuracy]"));
  CHECK(contains(out, "--examples N"));
  CHECK(run_self("train --task testcount --examples 5", &out) == 2);  // its own option's range
  CHECK(contains(out, "--examples must be in 10..100000, got 5"));

  TrainConfig t;
  t.task = "testcount", t.steps = 150, t.batch = 16, t.lr = 3e-3f, t.warmup = 10, t.eval_every = 50, t.out = dir / "run";
  ModelConfig m;
  m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16, m.dropout = 0;
  RunOptions quiet;
  quiet.quiet = true;
  RunResult r = Trainer(t, m, quiet).run();
  CHECK(r.test_accuracy > 0.8);  // a mean of embeddings decides it
  EvalResult e = evaluate_checkpoint(dir / "run/best.ckpt", "test", "");
  CHECK(e.examples == 100);
  CHECK(e.accuracy == doctest::Approx(r.test_accuracy));

  REQUIRE_MESSAGE(run_self("lra --preset tiny --models full --tasks testcount --no-bench --threads 1 --out " + dir / "lra", &out) == 0, out);
  auto rows = read_jsonl(dir / "lra/results.jsonl");
  REQUIRE(rows.size() == 1);
  CHECK(json_text(rows[0], "id") == "testcount-full");
  CHECK(json_text(rows[0], "status") == "ok");
  CHECK(json_number(rows[0], "test_acc", 0) > 0.5);
  std::ifstream md(dir / "lra/results.md");
  std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  CHECK(contains(text, "| Count |"));
}

TEST_CASE("the pair head: gradients checked, padding of either sequence ignored, one shared encoder") {
  global_rng().seed_with(3);
  SequenceClassifier model(small_model("pair"));
  std::vector<Tensor> params = condition(model);
  int tables = 0, blocks = 0;  // one encoder for both documents: one token table, one stack of blocks
  for (auto& p : model.named_parameters()) tables += p.name.rfind("embed.", 0) == 0, blocks += p.name.rfind("blocks.0.ln1.", 0) == 0;
  CHECK(tables == 1);
  CHECK(blocks == 2);  // gamma and beta
  Batch b = pair_batch();
  GradcheckResult g = gradcheck([&](auto&) { return model.forward(b); }, params, 1e-2, 3e-3, 3e-2);
  INFO(g.worst);
  CHECK(g.ok);
  // padding tokens of either sequence do not change the logits
  Tensor l1 = model.forward(b);
  Batch c = b;
  c.tokens[8] = 4, c.tokens2[2] = 5;
  Tensor l2 = model.forward(c);
  for (int64_t i = 0; i < l1.numel(); ++i) CHECK(l1.data()[i] == doctest::Approx(l2.data()[i]).epsilon(1e-5));
  // the towers share weights: swapping the documents swaps u and v, keeps u*v, negates u-v
  Batch s = b;
  std::swap(s.N, s.N2), std::swap(s.tokens, s.tokens2), std::swap(s.pad_mask, s.pad_mask2);
  Tensor f = model.pair_features(b), fs_ = model.pair_features(s);
  int64_t D = 8;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < D; ++j) {
      const float* x = f.data() + i * 4 * D;
      const float* y = fs_.data() + i * 4 * D;
      CHECK(x[j] == doctest::Approx(y[D + j]).epsilon(1e-5));          // u == v'
      CHECK(x[2 * D + j] == doctest::Approx(y[2 * D + j]).epsilon(1e-5));  // u*v == u'*v'
      CHECK(x[3 * D + j] == doctest::Approx(-y[3 * D + j]).epsilon(1e-5));  // u-v == -(u'-v')
    }
  // block by block, LRA's [u, v, u*v, u-v]: u the first documents encoded and pooled alone, v the
  // second documents alone, their product and difference worked out here
  Batch second;
  second.B = b.B, second.N = b.N2, second.tokens = b.tokens2, second.pad_mask = b.pad_mask2;
  Tensor pad1, pad2;
  Tensor u = model.pool(model.encode(b, &pad1), pad1), v = model.pool(model.encode(second, &pad2), pad2);
  REQUIRE(f.shape() == Shape{2, 4 * D});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < D; ++j) {
      const float* x = f.data() + i * 4 * D;
      const float ui = u.data()[i * D + j], vi = v.data()[i * D + j];
      CHECK(x[j] == doctest::Approx(ui).epsilon(1e-5));
      CHECK(x[D + j] == doctest::Approx(vi).epsilon(1e-5));
      CHECK(x[2 * D + j] == doctest::Approx(ui * vi).epsilon(1e-5));
      CHECK(x[3 * D + j] == doctest::Approx(ui - vi).epsilon(1e-5));
    }
  CHECK(std::fabs(u.data()[0] - v.data()[0]) > 1e-3);  // the documents differ, so u-v is no zero block
}

TEST_CASE("the token head: gradients checked, padding and untargeted positions ignored") {
  global_rng().seed_with(4);
  SequenceClassifier model(small_model("token"));
  std::vector<Tensor> params = condition(model);
  Batch b = pair_batch();
  b.targets = {0, 1, 2, 0, 1, 2, 2, kIgnoreTarget, kIgnoreTarget, kIgnoreTarget};
  Tensor logits = model.forward(b);
  CHECK(logits.shape() == Shape{2, 5, 3});
  GradcheckResult g = gradcheck([&](auto&) { return loss_of(model.forward(b), b); }, params, 1e-2, 3e-3, 3e-2);
  INFO(g.worst);
  CHECK(g.ok);
  // a target at padding or none: changing it (or the padding token) changes neither loss nor accuracy
  Batch c = b;
  c.tokens[9] = 5, c.targets[9] = kIgnoreTarget;
  CHECK(loss_of(model.forward(b), b).item() == doctest::Approx(loss_of(model.forward(c), c).item()).epsilon(1e-6));
  Tensor l = model.forward(b);
  auto [right, counted] = correct_of(l, b);
  CHECK(counted == 7);  // the three untargeted positions are not counted
  int64_t expect = 0;   // the arg-max at each targeted position, by hand
  for (int64_t i = 0; i < 10; ++i) {
    if (b.targets[size_t(i)] == kIgnoreTarget) continue;
    const float* row = l.data() + i * 3;
    expect += int64_t(std::max_element(row, row + 3) - row) == b.targets[size_t(i)];
  }
  CHECK(right == expect);
}

TEST_CASE("the pair and token heads each learn a tiny task") {
  // pair: more 1s in the first sequence than in the second? token: each token's value mod 3
  for (const char* head : {"pair", "token"}) {
    CAPTURE(head);
    global_rng().seed_with(5);
    Dataset d;
    d.vocab_size = 5, d.num_classes = std::string(head) == "pair" ? 2 : 3;
    Rng r(9);
    while (d.size() < 256) {
      std::vector<int32_t> a(size_t(4 + r.randint(6))), b(size_t(4 + r.randint(6)));
      int ca = 0, cb = 0;
      for (auto& t : a) t = int32_t(1 + r.randint(4)), ca += t == 1;
      for (auto& t : b) t = int32_t(1 + r.randint(4)), cb += t == 1;
      if (ca == cb) continue;
      d.seqs.push_back(a), d.labels.push_back(ca > cb);
      if (std::string(head) == "pair") d.seqs2.push_back(b);
      else {
        std::vector<int32_t> tg(a.size());
        for (size_t k = 0; k < a.size(); ++k) tg[k] = a[k] % 3;
        d.targets.push_back(tg);
        d.labels.back() = 0;
      }
    }
    ModelConfig m = small_model(head);
    m.dim = 16, m.ffn = 32, m.max_len = 16, m.num_classes = d.num_classes;
    SequenceClassifier model(m);
    Adam opt(model.named_parameters(), 0.9f, 0.98f, 1e-9f, 0.0f, true);
    BatchOptions o;
    o.batch = 32, o.max_len = 16;
    Batcher batches(d, o, 7);
    for (int step = 0; step < 300; ++step) {
      Batch b = batches.next();
      Tensor loss = loss_of(model.forward(b), b);
      opt.zero_grad();
      loss.backward();
      opt.step(5e-3f);
    }
    model.eval();
    NoGradGuard ng;
    int64_t right = 0, total = 0;
    for (const Batch& b : eval_batches(d, o)) {
      auto [c, n] = correct_of(model.forward(b), b);
      right += c, total += n;
    }
    CHECK(double(right) / double(total) > 0.9);
  }
}

TEST_CASE("bad inputs: ListOps longer than --seq-len is refused, text cuts are counted, classes must match") {
  TempDir dir("az_tasks_bad");
  // ListOps at LRA's lengths in files: fitted when --seq-len is not given, refused when it is too short
  ListOpsConfig c;
  c.min_len = 150, c.max_len = 300, c.max_depth = 6, c.max_args = 6, c.n_train = 40, c.n_val = 10, c.n_test = 10;
  write_listops_dir(c, dir / "lo");
  TrainConfig t;
  t.task = "listops", t.data = dir / "lo";
  ModelConfig m;
  TaskData fitted = load_task(t, m.model, std::nullopt);
  apply_task_shape(m, fitted.shape);
  CHECK(m.max_len == longest_sequence(fitted.splits));
  CHECK(m.max_len > 150);
  std::string e = error_of([&] { load_task(t, m.model, 128); });
  CHECK(contains(e, "more than --seq-len 128 (raise --seq-len to at least"));
  CHECK(contains(e, "nothing is cut"));

  // class names are kept in the checkpoint; eval on other classes is refused in one line
  TrainConfig a;
  a.task = "testcount", a.steps = 2, a.batch = 8, a.eval_every = 2, a.out = dir / "cls";
  ModelConfig mm;
  mm.dim = 8, mm.heads = 2, mm.layers = 1, mm.ffn = 8;
  RunOptions quiet;
  quiet.quiet = true;
  Trainer(a, mm, quiet).run();
  Checkpoint ck = load_checkpoint(dir / "cls/best.ckpt");
  CHECK(ck.train_config.at("classes") == "fewer\nmore");
  TrainConfig back = TrainConfig::from_map(ck.train_config);
  CHECK(back.class_names == std::vector<std::string>{"fewer", "more"});
  Dataset other = count_data(10, 1);
  other.class_names = {"bird", "cat"};
  e = error_of([&] { check_classes(back, other, dir / "cls/best.ckpt"); });
  CHECK(contains(e, "the data's classes (bird, cat) are not the classes"));
  CHECK(contains(e, "was trained on (fewer, more)"));
  CHECK(error_of([&] { check_classes(back, count_data(10, 1), dir / "cls/best.ckpt"); }).empty());
}

TEST_CASE("every task option is checked with one line; old checkpoints' flat task keys still load") {
  TrainConfig t;
  t.task = "image", t.task_args = {{"patch", "0"}};
  CHECK(error_of([&] { task_settings(t); }) == "--patch must be positive, got 0");
  t.task_args = {{"input", "words"}};
  CHECK(error_of([&] { task_settings(t); }) == "--input must be pixels or patches, got 'words'");
  t.task = "listops", t.task_args = {{"preset", "big"}};
  CHECK(error_of([&] { task_settings(t); }) == "--preset must be lra (or omitted), got 'big'");
  // a checkpoint written before the registry: flat keys become the task's options, others dropped
  TrainConfig cur;
  std::map<std::string, std::string> m = cur.to_map();
  m["task"] = "image", m["input"] = "patches", m["patch"] = "7", m["preset"] = "", m["difficulty"] = "14";
  TrainConfig old = TrainConfig::from_map(m);
  auto s = task_settings(old);
  CHECK(s.at("input") == "patches");
  CHECK(s.at("patch") == "7");
  CHECK(!s.count("difficulty"));
}

// The registry changes how a run is assembled, not what it computes: the
// trainer's losses equal, bit for bit, those of a loop written out by hand
// from the data modules (no registry, no Trainer) with the same seeds.
TEST_CASE("through the registry, runs compute what a hand-written loop computes, bit for bit") {
  TempDir dir("az_tasks_bitwise");
  struct Case {
    const char* task;
    std::map<std::string, std::string> args;
  };
  for (const Case& k : {Case{"listops", {}}, Case{"image", {{"input", "patches"}, {"patch", "7"}}}}) {
    CAPTURE(k.task);
    TrainConfig t;
    t.task = k.task, t.task_args = k.args, t.steps = 12, t.batch = 8, t.warmup = 3, t.log_every = 1, t.eval_every = 12;
    t.eval_limit = 16, t.out = dir / k.task;
    ModelConfig m;
    m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16, m.dropout = 0.1f;
    RunOptions quiet;
    quiet.quiet = true;
    // The loop below is one backward over the whole batch: the trainer's --parallel ops.  (Its
    // batch-parallel step equals that to rounding and is the same bits at any thread count:
    // tests/test_parallel.cpp.)
    const ParallelSettings saved = parallel_settings();
    parallel_settings().mode = Parallel::kOps;
    Trainer(t, m, quiet).run();
    parallel_settings() = saved;
    std::vector<double> logged;
    for (auto& row : read_jsonl(t.out + "/metrics.jsonl"))
      if (row.count("loss")) logged.push_back(std::stod(row.at("loss")));
    REQUIRE(logged.size() == 12);

    // by hand: the data module, the model, AdamW, the batcher, the schedule, clipping
    Splits s;
    BatchOptions o;
    ModelConfig hm = m;
    if (std::string(k.task) == "listops") {
      s = generate_listops(listops_default());
      hm.vocab = kListOpsVocab, hm.num_classes = 10, hm.max_len = 128;
    } else {
      s = load_fashion_mnist(kFashionMnistDir, 5000, 1);
      o.patch = 7, hm.patch_dim = 49, hm.num_classes = 10, hm.max_len = 16, hm.vocab = 257;
    }
    o.batch = 8, o.max_len = int(hm.max_len);
    global_rng().seed_with(t.seed);
    SequenceClassifier model(hm);
    Adam opt(model.named_parameters(), t.beta1, t.beta2, t.eps, t.weight_decay, true);
    Batcher batches(s.train, o, t.seed * 7919 + 17, true);
    Schedule sched;
    sched.kind = Schedule::kCosine, sched.base_lr = t.lr, sched.warmup = t.warmup, sched.total = t.steps;
    model.train();
    for (int64_t step = 1; step <= 12; ++step) {
      Batch b = batches.next();
      Tensor loss = cross_entropy(model.forward(b), IntTensor({b.B}, b.labels));
      opt.zero_grad();
      loss.backward();
      clip_grad_norm(opt.params(), t.clip);
      opt.step(sched.lr(step));
      CHECK(double(loss.item()) == logged[size_t(step - 1)]);  // log_every 1: the step's own loss
    }
  }
}

TEST_CASE("the batcher pads a pair's second sequences to their own length with their own mask; targets align") {
  Dataset d;
  d.vocab_size = 6, d.num_classes = 2;
  d.seqs = {{1, 2, 3}, {4, 5}};
  d.seqs2 = {{5, 4}, {3, 2, 1, 5}};
  d.labels = {0, 1};
  BatchOptions o;
  o.batch = 2, o.max_len = 8;
  Batch b = make_batch(d, {0, 1}, o);
  CHECK(b.N == 3);
  CHECK(b.N2 == 4);
  CHECK(b.tokens2 == std::vector<int32_t>{5, 4, 0, 0, 3, 2, 1, 5});
  CHECK(b.pad_mask2 == std::vector<float>{0, 0, 1, 1, 0, 0, 0, 0});
  o.max_len = 3;  // cut to max_len like the first sequences
  Batch c = make_batch(d, {1}, o);
  CHECK(c.N2 == 3);
  CHECK(c.tokens2 == std::vector<int32_t>{3, 2, 1});
  // per-position targets: aligned with the tokens, kIgnoreTarget at padding
  Dataset t;
  t.vocab_size = 6, t.num_classes = 3;
  t.seqs = {{1, 2, 3}, {4}};
  t.targets = {{2, 1, 0}, {1}};
  t.labels = {0, 0};
  o.max_len = 8;
  Batch e = make_batch(t, {0, 1}, o);
  CHECK(e.targets == std::vector<int32_t>{2, 1, 0, 1, kIgnoreTarget, kIgnoreTarget});
  t.targets[1] = {1, 2};  // more targets than tokens
  CHECK(contains(error_of([&] { make_batch(t, {1}, o); }), "has 1 tokens but 2 targets"));
}

TEST_CASE("image tasks: 500 default steps for pixels, 2000 for patches; predict reads an RGB model's side from --seq-len / 3") {
  // Guards the two default step counts swapped, and predict on an RGB image-folder model of
  // --seq-len 48 (4x4x3) expecting round(sqrt(48)) = 7 pixels a side instead of 4.
  TrainConfig tc;
  tc.task = "image", tc.task_args = {{"input", "pixels"}};
  CHECK(default_steps(tc) == 500);
  tc.task_args = {{"input", "patches"}};
  CHECK(default_steps(tc) == 2000);
  TempDir dir("az_tasks_rgb");
  std::vector<uint8_t> px(48);
  for (size_t k = 0; k < px.size(); ++k) px[k] = uint8_t(5 * k);
  write_png(dir / "a.png", px.data(), 4, 4, 3);
  tc.task = "image-folder", tc.task_args = {{"channels", "3"}};
  TaskContext c;
  c.task = tc.task, c.seq_len = 48, c.opt = task_settings(tc);
  TaskData t = task_info("image-folder").cli.read_inputs({dir / "a.png"}, c);
  REQUIRE(t.splits.test.size() == 1);
  const auto& s = t.splits.test.seqs[0];
  REQUIRE(s.size() == 48);
  CHECK(s[0] == 1);     // byte 0 + 1
  CHECK(s[47] == 236);  // byte 5 * 47 = 235, + 1
}
