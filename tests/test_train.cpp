// train/: the model end to end, overfitting, checkpoints (round trip, resume
// equivalence, every refusal) and the command line's errors.
#include <doctest/doctest.h>

#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "autograd/gradcheck.h"
#include "data/listops/listops.h"
#include "train/trainer.h"
#include "tests/util.h"

using namespace az;
namespace fs = std::filesystem;

namespace {

using az::test::error_of;

ModelConfig tiny_model() {
  ModelConfig m;
  m.vocab = 16, m.num_classes = 10, m.max_len = 128;
  m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16, m.dropout = 0.0f;
  return m;
}

TrainConfig tiny_run(const std::string& out) {
  TrainConfig t;
  t.task = "listops", t.steps = 12, t.batch = 8, t.lr = 3e-3f, t.warmup = 2;
  t.eval_every = 4, t.log_every = 4, t.eval_limit = 32, t.out = out;
  return t;
}

// The program's exit status, with its stderr in *err.
int run_cli(const std::string& args, std::string* err) { return az::test::run_cli(args, err, az::test::Streams::stderr_only); }
}  // namespace

TEST_CASE("the classifier's forward and backward are gradient-checked (tokens, mean and CLS pooling, patches)") {
  for (int variant = 0; variant < 3; ++variant) {
    CAPTURE(variant);
    global_rng().seed_with(3);
    ModelConfig m = tiny_model();
    m.dim = 8, m.ffn = 8, m.max_len = 6, m.vocab = 5, m.num_classes = 3;
    Batch b;
    b.B = 2, b.N = 5;
    b.tokens = {1, 2, 3, 4, 1, 2, 2, 3, 0, 0};
    b.pad_mask = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
    b.labels = {0, 2};
    if (variant == 1) m.pool = Pool::kCls;
    if (variant == 2) {
      m.patch_dim = 3;
      b.patch_dim = 3;
      Rng r(5);
      for (int i = 0; i < 30; ++i) b.patches.push_back(r.uniform());
      b.pad_mask.assign(10, 0.0f);
    }
    SequenceClassifier model(m);
    // Well-conditioned values: the default N(0, 0.02) embeddings make layer norm
    // amplify by ~50 and central differences meaningless.
    std::vector<Tensor> params;
    Rng init(11);
    for (auto& p : model.named_parameters()) {
      bool gain = p.name.find("gamma") != std::string::npos;
      for (int64_t i = 0; i < p.tensor.numel(); ++i) p.tensor.data()[i] = (gain ? 1.0f : 0.0f) + 0.5f * (init.uniform() - 0.5f);
      params.push_back(p.tensor);
    }
    GradcheckResult r = gradcheck([&](auto&) { return model.forward(b); }, params, 1e-2, 3e-3, 3e-2);
    INFO(r.worst);
    CHECK(r.ok);
    // padding positions do not change the logits
    Tensor l1 = model.forward(b);
    if (variant < 2) {
      b.tokens[8] = 4;
      Tensor l2 = model.forward(b);
      for (int i = 0; i < l1.numel(); ++i) CHECK(l1.data()[i] == doctest::Approx(l2.data()[i]).epsilon(1e-5));
    }
  }
}

TEST_CASE("every model's prediction for an example is the same whatever its batch-mates' lengths") {
  // Evaluation batches pad to their longest member, so an example is seen at
  // N = its own length or longer: its logits must not change (to float
  // rounding), or a score depends on the order of the test file.
  Dataset d;
  d.vocab_size = 16, d.num_classes = 10;
  std::vector<int32_t> a(20), b(60);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 1 + int32_t(i * 7 % 15);
  for (size_t i = 0; i < b.size(); ++i) b[i] = 1 + int32_t(i * 5 % 15);
  d.seqs = {a, b}, d.labels = {0, 1};
  for (const std::string& name : attention_names()) {
    CAPTURE(name);
    ModelConfig m = tiny_model();
    m.model = name, m.max_len = 64;
    global_rng() = Rng(3);
    SequenceClassifier model(m);
    model.eval();
    NoGradGuard ng;
    const Batch alone = eval_batches(d, 1, 64)[0], both = eval_batches(d, 2, 64)[0];
    REQUIRE(alone.N == 20);
    REQUIRE(both.N == 60);
    const Tensor la = model.forward(alone), lb = model.forward(both);
    double diff = 0;
    for (int64_t k = 0; k < m.num_classes; ++k) diff = std::max(diff, double(std::fabs(la.data()[k] - lb.data()[k])));
    CHECK(diff < 1e-5);
  }
}

TEST_CASE("every model's gradients are the same bit for bit at 2 threads, run after run") {
  // Large enough that the ops' parallel paths run (kParallelMin): a loop that
  // hands rows to threads by arrival and sums per-thread parts would make
  // training at 2 threads drift from run to run (layer norm's did).
  int before = omp_get_max_threads();
  omp_set_num_threads(2);
  Dataset d;
  d.vocab_size = 16, d.num_classes = 10;
  for (int i = 0; i < 16; ++i) {
    std::vector<int32_t> s(128);
    for (size_t j = 0; j < s.size(); ++j) s[j] = 1 + int32_t((i * 31 + j * 7) % 15);
    d.seqs.push_back(s), d.labels.push_back(i % 10);
  }
  const Batch batch = eval_batches(d, 16, 128)[0];
  IntTensor labels({16}, std::vector<int32_t>(batch.labels.begin(), batch.labels.end()));
  for (const std::string& name : attention_names()) {
    CAPTURE(name);
    ModelConfig m = tiny_model();
    m.model = name, m.dim = 32, m.ffn = 64;
    std::vector<std::vector<float>> first;
    int differ = 0;
    for (int rep = 0; rep < 3; ++rep) {
      global_rng() = Rng(5);  // the same weights, and the same random features and rotations
      SequenceClassifier model(m);
      cross_entropy(model.forward(batch), labels).backward();
      std::vector<std::vector<float>> grads;
      for (const auto& p : model.named_parameters())
        if (p.tensor.has_grad()) grads.emplace_back(p.tensor.grad_data(), p.tensor.grad_data() + p.tensor.numel());
      if (rep == 0) first = grads;
      else differ += grads != first;
    }
    CHECK(differ == 0);
  }
  omp_set_num_threads(before);
}

TEST_CASE("a tiny model overfits 32 ListOps examples to 100% training accuracy") {
  ListOpsConfig c = listops_default();
  c.n_train = 32, c.n_val = 8, c.n_test = 8;
  Splits s = generate_listops(c);
  global_rng().seed_with(1);
  ModelConfig m = tiny_model();
  m.dim = 32, m.heads = 4, m.layers = 2, m.ffn = 64;
  SequenceClassifier model(m);
  Adam opt(model.named_parameters(), 0.9f, 0.98f, 1e-9f, 0.0f, true);
  BatchOptions o;
  o.batch = 32, o.max_len = 128;
  Batch b = make_batch(s.train, [] { std::vector<size_t> r(32); for (size_t i = 0; i < 32; ++i) r[i] = i; return r; }(), o);
  double acc = 0;
  for (int step = 0; step < 400 && acc < 1.0; ++step) {
    Tensor logits = model.forward(b);
    Tensor loss = cross_entropy(logits, IntTensor({32}, b.labels));
    opt.zero_grad();
    loss.backward();
    opt.step(3e-3f);
    int correct = 0;
    for (int i = 0; i < 32; ++i) {
      const float* row = logits.data() + i * 10;
      correct += int(std::max_element(row, row + 10) - row) == b.labels[i];
    }
    acc = correct / 32.0;
  }
  CHECK(acc == 1.0);
}

TEST_CASE("checkpoints: round trip, and resuming equals training without stopping (bitwise)") {
  az::test::TempDir tmp("az_test_train");  // removed even when a check fails
  const std::string& dir = tmp.path;
  // uninterrupted
  TrainConfig a = tiny_run(dir + "/a");
  Trainer ta(a, tiny_model(), RunOptions{});
  ta.run();
  // stopped at 6, then resumed to 12
  TrainConfig b = tiny_run(dir + "/b");
  RunOptions stop;
  stop.stop_after = 6;
  Trainer tb(b, tiny_model(), stop);
  RunResult rb = tb.run();
  CHECK(rb.stopped_early);
  CHECK(rb.steps_done == 6);
  RunOptions resume;
  resume.resume = dir + "/b/last.ckpt";
  TrainConfig empty;
  empty.steps = 0;
  Trainer tc(empty, ModelConfig(), resume);
  RunResult rc = tc.run();
  CHECK(rc.steps_done == 12);
  auto pa = ta.model().named_parameters(), pc = tc.model().named_parameters();
  REQUIRE(pa.size() == pc.size());
  size_t differing = 0;
  for (size_t i = 0; i < pa.size(); ++i)
    for (int64_t j = 0; j < pa[i].tensor.numel(); ++j) differing += pa[i].tensor.data()[j] != pc[i].tensor.data()[j];
  CHECK(differing == 0);
  // round trip of a checkpoint file
  Checkpoint c1 = load_checkpoint(dir + "/a/last.ckpt");
  save_checkpoint(dir + "/copy.ckpt", c1);
  Checkpoint c2 = load_checkpoint(dir + "/copy.ckpt");
  CHECK(c2.model_config == c1.model_config);
  CHECK(c2.train_config == c1.train_config);
  CHECK(c2.optimizer == c1.optimizer);
  CHECK(c2.rng == c1.rng);
  CHECK(c2.step == 12);
  REQUIRE(c2.params.size() == c1.params.size());
  for (size_t i = 0; i < c1.params.size(); ++i) CHECK(c2.params[i].data == c1.params[i].data);
  // eval from the checkpoint alone reproduces the run's test accuracy
  EvalResult e = evaluate_checkpoint(dir + "/a/best.ckpt", "test", "");
  CHECK(e.examples == 1000);
  // and attnmap draws the trained model's attention for one example
  std::string err;
  CHECK(run_cli("attnmap --ckpt " + dir + "/a/best.ckpt --index 2 --out " + dir + "/map.png", &err) == 0);
  CHECK(fs::file_size(dir + "/map.png") > 1000);
  CHECK(run_cli("attnmap --ckpt " + dir + "/a/best.ckpt --index 5000", &err) == 2);
  CHECK(err.find("--index 5000 out of range for the test split of 1000 examples") != std::string::npos);
}

TEST_CASE("bad checkpoints are refused with one clear line") {
  az::test::TempDir tmp("az_test_train");  // removed even when a check fails
  const std::string& dir = tmp.path;
  TrainConfig t = tiny_run(dir + "/r");
  t.steps = 4;
  Trainer tr(t, tiny_model(), RunOptions{});
  tr.run();
  std::string good = dir + "/r/last.ckpt";
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto write = [&](const std::string& name, const std::string& content) {
    std::ofstream(dir + "/" + name, std::ios::binary) << content;
    return dir + "/" + name;
  };
  CHECK(error_of([&] { load_checkpoint(dir + "/missing.ckpt"); }).find("cannot open checkpoint") == 0);
  CHECK(error_of([&] { load_checkpoint(write("text.ckpt", "hello, this is not a checkpoint")); })
            .find("is not an attnzoo checkpoint (bad magic)") != std::string::npos);
  CHECK(error_of([&] { load_checkpoint(write("cut.ckpt", bytes.substr(0, bytes.size() / 2))); })
            .find("is truncated") != std::string::npos);
  CHECK(error_of([&] { load_checkpoint(write("head.ckpt", bytes.substr(0, 12))); }).find("is truncated") !=
        std::string::npos);
  std::string v = bytes;
  v[8] = 9;
  CHECK(error_of([&] { load_checkpoint(write("ver.ckpt", v)); }).find("has format version 9, this program reads version 1") !=
        std::string::npos);
  std::string flip = bytes;
  flip[flip.size() - 100] ^= 0x40;
  CHECK(error_of([&] { load_checkpoint(write("flip.ckpt", flip)); }).find("is corrupt: checksum mismatch") !=
        std::string::npos);
  // a parameter whose shape does not match the model
  Checkpoint c = load_checkpoint(good);
  ModelConfig other = tiny_model();
  other.dim = 32;
  SequenceClassifier m(other);
  CHECK(error_of([&] { load_into(m.named_parameters(), c.params, "parameter", good); })
            .find("has shape [16,16], the model expects [16,32]") != std::string::npos);
  ModelConfig deeper = tiny_model();
  deeper.layers = 2;
  SequenceClassifier m2(deeper);
  CHECK(error_of([&] { load_into(m2.named_parameters(), c.params, "parameter", good); })
            .find("has no parameter 'blocks.1.") != std::string::npos);
  // the good checkpoint still loads
  CHECK(load_checkpoint(good).step == 4);
}

TEST_CASE("the command line refuses bad input with one line and status 2") {
  struct Case {
    std::string args, expect;
  };
  std::vector<Case> cases = {
      {"frobnicate", "unknown command 'frobnicate'"},
      {"train --bogus 1", "unknown flag --bogus (valid: "},
      {"train --steps", "--steps needs a value"},
      {"train --steps ten", "--steps expects a number, got 'ten'"},
      {"train --steps 1.5", "--steps expects an integer, got '1.5'"},
      {"train --steps -3", "--steps must be positive, got -3"},
      {"train --batch 0", "--batch must be positive, got 0"},
      {"train --model nope", "unknown model 'nope' (valid: "},
      {"train --task nope --steps 1", "unknown task 'nope' (valid: image, image-folder, listops, lm, mqar, pathfinder, retrieval, text)"},
      {"train --heads 3 --dim 64", "--heads 3 must be positive and divide --dim 64"},
      {"train --dim 0", "--dim must be positive, got 0"},
      {"train --lr -1", "--lr must be positive"},
      {"train --dropout 1.5", "--dropout must be in [0,1)"},
      {"train --schedule step", "--schedule must be constant, cosine or rsqrt"},
      {"train --task image-folder", "--task image-folder needs --data ROOT"},
      {"train --task image-folder --data /nonexistent/dir", "/nonexistent/dir"},
      {"train --task image --input patches --patch 5", "--patch 5 does not divide the image size 28x28"},
      {"bench --seq-len 0", "--seq-len must be positive, got 0"},
      {"train --resume /nonexistent.ckpt", "cannot open checkpoint /nonexistent.ckpt"},
      {"eval", "eval: --ckpt CKPT is required"},
      {"eval --ckpt /nonexistent.ckpt", "cannot open checkpoint"},
      {"data nope", "unknown data set 'nope'"},
      {"data listops", "--out DIR is required"},
      {"bench --steps 0", "--batch and --steps must be positive"},
      {"bench --model full --window 3", "model 'full' has no setting --window"},
      {"pattern --model full --seq-len 64 --scale 0", "--scale must be in 1..64"},
  };
  az::test::TempDir never("az_cli_never");  // `data listops --out` does write there
  for (auto& c : cases) {
    CAPTURE(c.args);
    std::string err;
    int st = run_cli(c.args + " --out " + never / "out", &err);
    if (c.args.rfind("data", 0) == 0 || c.args.rfind("eval", 0) == 0 || c.args.rfind("bench", 0) == 0 ||
        c.args.rfind("pattern", 0) == 0 || c.args == "frobnicate")
      st = run_cli(c.args, &err);
    CHECK(st == 2);
    CHECK(err.find(c.expect) != std::string::npos);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);  // one line
  }
  std::string err;
  CHECK(run_cli("train --help", &err) == 0);
  CHECK(run_cli("models", &err) == 0);
}

TEST_CASE("attnmap: panel rows are queries summing to 1, later layers read the layer before, the title's class is the arg-max") {
  // Guards panels drawn transposed (keys as rows), every layer's weights taken from the embeddings,
  // and the least likely class named as predicted.  2 layers x 2 heads of full attention.
  az::test::TempDir tmp("az_test_attnmap");
  const std::string& dir = tmp.path;
  TrainConfig t = tiny_run(dir + "/r");
  t.steps = 4;
  ModelConfig mc0 = tiny_model();
  mc0.layers = 2;
  Trainer(t, mc0, RunOptions{}).run();
  std::string err;
  REQUIRE(run_cli("attnmap --ckpt " + dir + "/r/best.ckpt --index 0 --out " + dir + "/map.png", &err) == 0);
  std::ifstream gp(dir + "/map.gp");
  std::string script((std::istreambuf_iterator<char>(gp)), std::istreambuf_iterator<char>());
  std::vector<std::vector<std::vector<double>>> panels;  // [panel][row][col], from the $pK << EOD blocks
  {
    std::istringstream in(script);
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("$p", 0) == 0) inside = true, panels.emplace_back();
      else if (line == "EOD") inside = false;
      else if (inside) {
        std::istringstream ls(line);
        panels.back().emplace_back();
        for (double v; ls >> v;) panels.back().back().push_back(v);
      }
    }
  }
  REQUIRE(panels.size() == 4);
  // the model and example as attnmap reads them, and its own weights, layer by layer
  Checkpoint ck = load_checkpoint(dir + "/r/best.ckpt");
  TrainConfig tc = TrainConfig::from_map(ck.train_config);
  ModelConfig mc = ModelConfig::from_map(ck.model_config);
  TaskData data = load_task(tc, mc.model, mc.max_len);
  apply_task_shape(mc, data.shape);
  SequenceClassifier model(mc);
  load_into(model.named_parameters(), ck.params, "parameter", "ckpt");
  load_into(model.named_buffers(), ck.buffers, "buffer", "ckpt");
  model.eval();
  NoGradGuard ng;
  Batch b = make_batch(data.splits.test, {0}, data.opts);
  Tensor key_pad, x = model.embed(b, &key_pad);
  const int64_t N = x.size(1);
  REQUIRE(N <= 128);  // one pixel per entry
  for (int l = 0; l < 2; ++l) {
    Tensor w = model.blocks[size_t(l)]->mixer->attention_weights(model.blocks[size_t(l)]->mixer_input(x), key_pad);
    for (int h = 0; h < 2; ++h) {
      const auto& p = panels[size_t(2 * l + h)];
      REQUIRE(int64_t(p.size()) == N);
      for (int64_t i = 0; i < N; ++i) {
        double row = 0;
        for (int64_t j = 0; j < N; ++j) row += p[size_t(i)][size_t(j)];
        CHECK(row == doctest::Approx(1.0).epsilon(1e-4));  // a softmax over the keys
        for (int64_t j = 0; j < N; j += 7)
          CHECK(p[size_t(i)][size_t(j)] == doctest::Approx(w.data()[(h * N + i) * N + j]).epsilon(1e-4));
      }
    }
    x = model.blocks[size_t(l)]->forward(x, key_pad);
  }
  // the predicted class is the arg-max of the logits
  Tensor logits = model.forward(b);
  int64_t best = std::max_element(logits.data(), logits.data() + logits.size(1)) - logits.data();
  const auto& names = data.splits.test.class_names;
  std::string cls = size_t(best) < names.size() ? names[size_t(best)] : std::to_string(best);
  CHECK(script.find("predicted " + cls + " (probability ") != std::string::npos);
}
