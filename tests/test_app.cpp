// The application layer checked against hand computations (issue 46): each
// case fails when the behaviour a user relies on breaks, not only its shape.
//   - sampling at two temperatures: frequencies against softmax(logits / T)
//   - Adam's epsilon outside the square root, with an epsilon large enough to tell
//   - embeddings start at N(0, 0.02)
//   - `train --help` prints the defaults in force (one table: train_flags)
//   - the LRA report's Avg ± combines the per-task spreads as sqrt(sum var) / T
//   - the n-gram baseline's absolute discount, D = n1 / (n1 + 2 n2), and its P
//   - the LM corpus reader skips the files inside hidden folders
//   - predict lists the classes most likely first
//   - a second Ctrl-C exits at once
//   - by hand (round r79j): the KV cache, its windows and the recurrent state on 1-dim inputs; greedy
//     generation from a model whose logits depend on the position or the last byte alone; predict's
//     names and probabilities for logits ln(c + 1); export's tensor names, their order and metadata
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include "autograd/tensor.h"
#include "data/lm/lm_corpus.h"
#include "data/listops/listops.h"
#include "data/lm/ngram.h"
#include "nn/layers.h"
#include "nn/optim.h"
#include "train/cli.h"
#include "train/cli/commands.h"
#include "train/config.h"
#include "train/generate.h"
#include "train/lab/lra.h"
#include "train/model.h"
#include "train/safetensors.h"
#include "train/tasks.h"
#include "train/trainer.h"
#include "data/batcher.h"
#include "tests/util.h"

using namespace az;
namespace fs = std::filesystem;
using az::test::contains;
using az::test::TempDir;

namespace {
int run(const std::string& args, std::string* out) { return az::test::run_cli(args, out); }
std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("sampling: frequencies at T = 0.5 and T = 2 follow softmax(logits / T); top-k keeps the k largest") {
  const std::vector<float> logits = {0.0f, 1.0f, 2.0f, -1.0f};
  const int draws = 40000;
  for (double T : {0.5, 2.0}) {
    CAPTURE(T);
    std::vector<double> want(logits.size());
    double z = 0;
    for (size_t i = 0; i < logits.size(); ++i) z += want[i] = std::exp(logits[i] / T);
    for (auto& w : want) w /= z;
    SamplingOptions o;
    o.temperature = T;
    Rng rng(7);
    std::vector<int> n(logits.size(), 0);
    for (int d = 0; d < draws; ++d) ++n[size_t(sample_logits(logits, o, rng))];
    for (size_t i = 0; i < logits.size(); ++i) {
      CAPTURE(i);
      // standard error of a frequency <= sqrt(0.25 / 40000) = 0.0025: 4 of them
      CHECK(std::fabs(double(n[i]) / draws - want[i]) < 0.01);
    }
  }
  // top-k 2 at T = 1: only classes 2 and 1, in the ratio e^2 : e^1
  SamplingOptions o;
  o.top_k = 2;
  Rng rng(3);
  int two = 0, one = 0;
  for (int d = 0; d < draws; ++d) {
    int c = sample_logits(logits, o, rng);
    REQUIRE((c == 1 || c == 2));
    (c == 2 ? two : one)++;
  }
  CHECK(std::fabs(double(two) / draws - std::exp(2.0) / (std::exp(2.0) + std::exp(1.0))) < 0.01);
  o.top_k = 0, o.temperature = 0;
  CHECK(sample_logits(logits, o, rng) == 2);  // greedy: the arg-max
}

TEST_CASE("sampling: top-p keeps the smallest prefix whose mass reaches p, not one class more") {
  // Four equal logits give each class the weight exp(0) = 1 exactly, so the
  // mass of the first two is 2 = 0.5 * 4 exactly: top-p 0.5 keeps classes 0
  // and 1 (the sort is stable) and never draws class 2.  A fifth class, cut
  // by top-k 4, leaves the total at 4.  Top-p 0.75 keeps three classes.
  const std::vector<float> logits = {0.0f, 0.0f, 0.0f, 0.0f, -1.0f};
  const int draws = 20000;
  for (double top_p : {0.5, 0.75}) {
    CAPTURE(top_p);
    const int kept = top_p == 0.5 ? 2 : 3;
    SamplingOptions o;
    o.top_k = 4, o.top_p = top_p;
    Rng rng(9);
    std::vector<int> n(logits.size(), 0);
    for (int d = 0; d < draws; ++d) ++n[size_t(sample_logits(logits, o, rng))];
    for (int c = 0; c < int(logits.size()); ++c) {
      CAPTURE(c);
      if (c >= kept) CHECK(n[size_t(c)] == 0);
      else CHECK(std::fabs(double(n[size_t(c)]) / draws - 1.0 / kept) < 0.02);  // 4 standard errors
    }
  }
}

TEST_CASE("Adam: epsilon is added to the root of the bias-corrected second moment, not inside it") {
  // first step, g = 0.01, eps = 0.1: m^ = g, v^ = g^2, w -= lr * g / (|g| + eps) = 1 * 0.01 / 0.11
  Tensor w = Tensor::from({1}, {1.0f}).set_requires_grad();
  Adam opt({{"w", w, false}}, 0.9f, 0.98f, 0.1f, 0.0f, true);
  w.grad_data()[0] = 0.01f;
  opt.step(1.0f);
  CHECK(w.data()[0] == doctest::Approx(1.0 - 0.01 / 0.11).epsilon(1e-5));  // inside: 1 - 0.01 / sqrt(0.1001) = 0.968
  // second step, g = -0.02: m = 0.9*0.1*0.01 + 0.1*(-0.02), v = 0.98*0.02*1e-4 + 0.02*4e-4
  float w1 = w.data()[0];
  w.grad_data()[0] = -0.02f;
  opt.step(1.0f);
  double m = 0.9 * 0.1 * 0.01 + 0.1 * -0.02, v = 0.98 * 0.02 * 1e-4 + 0.02 * 4e-4;
  double mh = m / (1 - 0.81), vh = v / (1 - 0.98 * 0.98);
  CHECK(w.data()[0] == doctest::Approx(w1 - mh / (std::sqrt(vh) + 0.1)).epsilon(1e-5));
}

TEST_CASE("embeddings start at N(0, 0.02)") {
  Rng rng(11);
  Embedding e(500, 64, rng);
  const float* w = e.weight.data();
  const int64_t n = e.weight.numel();
  double s = 0, ss = 0;
  for (int64_t i = 0; i < n; ++i) s += w[i], ss += double(w[i]) * w[i];
  double mean = s / double(n), sd = std::sqrt(ss / double(n) - mean * mean);
  CHECK(std::fabs(mean) < 0.001);               // 4 standard errors: 4 * 0.02 / sqrt(32000)
  CHECK(sd == doctest::Approx(0.02).epsilon(0.02));  // the sample sd within 2% (its error ~0.4%)
}

TEST_CASE("train --help prints, for every train flag, the default the code uses") {
  const std::string help = train_help();
  Flags none("train", {}, {}, {});
  TrainConfig in_force;
  train_config_from_flags(none, in_force);
  std::map<std::string, std::string> m = in_force.to_map();
  int checked = 0;
  for (auto& row : train_flags()) {
    CAPTURE(row.flag);
    size_t at = help.find("  --" + row.flag + " ");
    REQUIRE(at != std::string::npos);
    std::string line = help.substr(at, help.find('\n', at) - at);
    size_t d = line.find("(default ");
    if (row.def.empty()) continue;  // said otherwise (steps: the task's; out: runs/TASK-MODEL)
    REQUIRE(d != std::string::npos);
    std::string shown = line.substr(d + 9, line.find(')', d) - d - 9);
    std::string key = row.flag;
    for (char& c : key)
      if (c == '-') c = '_';
    REQUIRE(m.count(key));
    CAPTURE(shown);
    CAPTURE(m[key]);
    if (row.range == "N" || row.range == "X") CHECK(std::stod(shown) == doctest::Approx(std::stod(m[key])).epsilon(1e-6));
    else CHECK(shown == m[key]);
    ++checked;
  }
  CHECK(checked >= 14);
  // the values LRA's Adam settings and the README give
  CHECK(in_force.clip == 1.0f);
  CHECK(in_force.lr == 1e-3f);
  CHECK(in_force.batch == 32);
  CHECK(in_force.eps == 1e-9f);
  CHECK(in_force.beta2 == 0.98f);
  CHECK(in_force.optimizer == "adamw");
  CHECK(in_force.schedule == "cosine");
  CHECK(in_force.warmup == 100);
}

TEST_CASE("the LRA report's Avg: the mean of the task means, ± sqrt(sum of the task variances) / T") {
  TempDir dir("az_app_lra");
  LraSweep s;
  s.dir = dir.path;
  s.preset = &lra_preset("tiny");
  s.models = {"full"};
  s.tasks = {"listops", "text"};
  s.seeds = 2;
  // listops 40, 50 (mean 45, sd 7.07); text 60, 64 (mean 62, sd 2.83)
  std::map<std::string, double> acc = {{"listops-full", 0.40}, {"listops-full-s2", 0.50}, {"text-full", 0.60}, {"text-full-s2", 0.64}};
  std::ofstream out(s.dir + "/results.jsonl");
  for (auto& t : s.tasks)
    for (int seed = 1; seed <= 2; ++seed) {
      LraCell c;
      c.kind = "train", c.task = t, c.model = "full", c.seed = seed, c.id = lra_train_id(t, "full", seed), c.key = "k-" + c.id;
      s.cells.push_back(c);
      out << "{\"id\":\"" << c.id << "\",\"key\":\"" << c.key << "\",\"status\":\"ok\",\"seed\":\"" << seed
          << "\",\"test_acc\":" << acc[c.id] << ",\"test_examples\":100,\"majority_rate\":0.5}\n";
    }
  out.close();
  write_lra_report(s, false);
  std::string md = slurp(s.dir + "/results.md");
  // 45.0 ± 7.1, 62.0 ± 2.8; Avg 53.5 ± sqrt(50 + 8) / 2 = 3.8
  // (wrong combinations: sqrt(58) / sqrt(2) = 5.4, the mean sd 4.9, sqrt(58) = 7.6)
  CHECK_MESSAGE(contains(md, "| 45.0 ± 7.1 | 62.0 ± 2.8 | **53.5 ± 3.8** |"), md);
}

TEST_CASE("the n-gram baseline: D = n1 / (n1 + 2 n2) per order and interpolated absolute discounting by hand") {
  const std::string text = "aaabbc";
  ByteNgram g(text, 0, text.size(), 2);
  // order 1 (no history): a 3, b 2, c 1; n1 = 1, n2 = 1: D1 = 1/3
  CHECK(g.discount(0) == doctest::Approx(1.0 / 3));
  // order 2: aa 2, ab 1, bb 1, bc 1: n1 = 3, n2 = 1: D2 = 3/5
  CHECK(g.discount(1) == doctest::Approx(3.0 / 5));
  const double D1 = 1.0 / 3, D2 = 0.6;
  auto p1 = [&](double c) { return std::max(c - D1, 0.0) / 6 + D1 * 3 / 6 / 256; };
  const uint8_t none = 0;
  CHECK(g.prob(&none, 0, 'a', 1) == doctest::Approx(p1(3)));
  CHECK(g.prob(&none, 0, 'z', 1) == doctest::Approx(p1(0)));
  // after 'a' (#h = 3, u(h) = 2): P(a | a) = (2 - D2) / 3 + D2 * 2 / 3 * P1(a); P(c | a) from the back-off only
  const uint8_t a = 'a';
  CHECK(g.prob(&a, 1, 'a', 2) == doctest::Approx((2 - D2) / 3 + D2 * 2 / 3 * p1(3)));
  CHECK(g.prob(&a, 1, 'c', 2) == doctest::Approx(D2 * 2 / 3 * p1(1)));
}

TEST_CASE("the LM corpus reader skips hidden files and everything inside hidden folders") {
  TempDir dir("az_app_lm");
  fs::create_directories(dir / "text/.git/objects");
  fs::create_directories(dir / "text/sub");
  std::ofstream(dir / "text/a.txt") << "alpha ";
  std::ofstream(dir / "text/sub/b.txt") << "beta ";
  std::ofstream(dir / "text/.hidden.txt") << "HIDDEN ";
  std::ofstream(dir / "text/.git/config") << "GITCONFIG ";
  std::ofstream(dir / "text/.git/objects/x") << "GITOBJECT ";
  LmText t = read_lm_text(dir / "text");
  CHECK(t.bytes == "alpha beta ");
  CHECK(t.files.size() == 2);
}

TEST_CASE("predict lists the classes most likely first") {
  TempDir dir("az_app_predict");
  std::string msg;
  REQUIRE(run("train --steps 30 --eval-every 30 --dim 16 --heads 2 --layers 1 --ffn 16 --batch 8 --quiet --lr 0.01 --out " +
                  dir / "lo",
              &msg) == 0);
  REQUIRE(run("predict --ckpt " + dir / "lo/best.ckpt --top 10 --json '[MAX 2 9 [MIN 4 7 ] 0 ]' '[SM 3 5 ]' '[MIN 8 1 ]'", &msg) == 0);
  std::istringstream lines(msg);
  int objects = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("{\"input\"", 0) != 0) continue;
    ++objects;
    std::vector<double> p;
    for (size_t at = line.find("\"p\":"); at != std::string::npos; at = line.find("\"p\":", at + 1)) p.push_back(std::stod(line.substr(at + 4)));
    REQUIRE(p.size() == 10);
    CHECK(p.front() > p.back());  // a trained model is not uniform
    for (size_t i = 1; i < p.size(); ++i) CHECK_MESSAGE(p[i - 1] >= p[i], line);
  }
  CHECK(objects == 3);
}

TEST_CASE("a second Ctrl-C exits at once, without finishing the step or saving") {
  TempDir dir("az_app_sig");
  std::string out = dir / "run", log = dir / "log";
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    FILE* f = freopen(log.c_str(), "w", stderr);
    (void)f;
    // slow steps (a wide model on 2K-token ListOps): the first SIGINT would wait for the step to end
    az::test::exec_attnzoo("train", "--steps", "1000000", "--eval-every", "1000000", "--log-every", "1", "--dim", "256",
                           "--heads", "4", "--layers", "4", "--ffn", "1024", "--batch", "32", "--quiet", "--out", out.c_str());
  }
  for (int i = 0; i < 1200 * az::test::slowdown() && !fs::exists(out + "/metrics.jsonl"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(fs::exists(out + "/metrics.jsonl"));
  kill(pid, SIGINT);
  // The second only once the first is delivered: two SIGINTs pending at once are one signal (a
  // loaded machine may not run the child between two kills), and the test would see one Ctrl-C.
  auto pending_sigint = [&] {  // /proc/PID/status "ShdPnd:": the process's pending signals, a hex mask
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("ShdPnd:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (SIGINT - 1)) & 1;
    return 0ull;
  };
  for (int i = 0; i < 2000 && pending_sigint(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 130);
  std::string text = slurp(log);
  CHECK_MESSAGE(!contains(text, "interrupted by SIGINT after step"), text);  // the first alone would print this
  CHECK(!fs::exists(out + "/last.ckpt"));
}

namespace {
ModelConfig tiny_token_model(const std::string& pool) {
  ModelConfig mc;
  mc.model = "full", mc.dim = 16, mc.heads = 2, mc.layers = 1, mc.ffn = 16, mc.max_len = 16;
  mc.vocab = 20, mc.num_classes = 20, mc.head = Head::kToken, mc.causal = true, mc.pool = choice_from<Pool>(pool);
  return mc;
}
Dataset token_data() {
  Dataset d;
  d.vocab_size = 20, d.num_classes = 20;
  Rng rng(5);
  for (int n : {5, 12, 8, 3, 12}) {
    std::vector<int32_t> s, t;
    for (int i = 0; i < n; ++i) s.push_back(int32_t(1 + rng.randint(19)));
    for (int i = 0; i < n; ++i) t.push_back(i + 1 < n ? s[size_t(i) + 1] : (n % 2 ? -100 : 7));  // some last targets unset
    d.seqs.push_back(s), d.targets.push_back(t), d.labels.push_back(0);
  }
  return d;
}
}  // namespace

TEST_CASE("evaluation loss of a token head: the mean cross-entropy over every counted position, by hand") {
  global_rng().seed_with(3);
  SequenceClassifier model(tiny_token_model("mean"));
  Dataset d = token_data();
  BatchOptions opts;
  opts.batch = 2, opts.max_len = 16;
  EvalResult r = evaluate_model(model, d, opts);
  // by hand: each example alone, -log softmax(logits)[target] at each position with a target
  NoGradGuard ng;
  model.eval();
  double sum = 0;
  int64_t counted = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    Batch b = make_batch(d, {i}, opts);
    Tensor logits = model.forward(b);  // [1, N, C]
    const int64_t N = logits.size(1), C = logits.size(2);
    for (int64_t p = 0; p < N && p < int64_t(d.seqs[i].size()); ++p) {
      int32_t t = d.targets[i][size_t(p)];
      if (t < 0) continue;
      const float* row = logits.data() + p * C;
      double mx = row[0], z = 0;
      for (int64_t c = 0; c < C; ++c) mx = std::max(mx, double(row[c]));
      for (int64_t c = 0; c < C; ++c) z += std::exp(double(row[c]) - mx);
      sum += -(double(row[t]) - mx - std::log(z));
      ++counted;
    }
  }
  CHECK(r.examples == counted);  // predictions, not rows
  CHECK(r.loss == doctest::Approx(sum / double(counted)).epsilon(1e-4));
}

TEST_CASE("a causal token-head model with a CLS token predicts position i from tokens 0..i (the CLS position dropped)") {
  global_rng().seed_with(4);
  SequenceClassifier model(tiny_token_model("cls"));
  model.eval();
  NoGradGuard ng;
  Dataset d = token_data();
  BatchOptions opts;
  opts.batch = 1, opts.max_len = 16;
  Batch b = make_batch(d, {1}, opts);  // 12 tokens
  auto logits_of = [&](const Batch& x) {
    Tensor l = model.forward(x);
    REQUIRE(l.size(1) == 12);
    return std::vector<float>(l.data(), l.data() + l.numel());
  };
  std::vector<float> base = logits_of(b);
  const int64_t C = 20;
  auto changed_at = [&](const std::vector<float>& other, int64_t pos) {
    double diff = 0;
    for (int64_t c = 0; c < C; ++c) diff += std::fabs(other[size_t(pos * C + c)] - base[size_t(pos * C + c)]);
    return diff > 1e-6;
  };
  // the last token changes the last position's prediction and no earlier one
  Batch last = b;
  last.tokens[11] = last.tokens[11] % 19 + 1;
  std::vector<float> l1 = logits_of(last);
  CHECK(changed_at(l1, 11));
  CHECK(!changed_at(l1, 10));
  // the first token changes position 0's prediction
  Batch first = b;
  first.tokens[0] = first.tokens[0] % 19 + 1;
  CHECK(changed_at(logits_of(first), 0));
}

TEST_CASE("export --data-out --split val writes the validation split, batch by batch as eval forms it") {
  TempDir dir("az_app_export");
  std::string msg;
  REQUIRE(run("train --steps 2 --eval-every 2 --dim 16 --heads 2 --layers 1 --ffn 16 --batch 8 --quiet --out " + dir / "r", &msg) == 0);
  const std::string ckpt = dir / "r/best.ckpt";
  Checkpoint ck = load_checkpoint(ckpt);
  TrainConfig tc = TrainConfig::from_map(ck.train_config);
  ModelConfig mc = ModelConfig::from_map(ck.model_config);
  TaskData data = load_task(tc, mc.model, mc.max_len);
  REQUIRE(data.splits.val.size() > 0);
  // the rows of each split's file: tokens and labels of every batch, in order
  auto rows_of = [&](const std::string& path) {
    Safetensors st = load_safetensors(path);
    std::vector<std::vector<float>> rows;
    for (int k = 0;; ++k) {
      const TensorRecord* t = st.find("data." + std::to_string(k) + ".tokens");
      const TensorRecord* l = st.find("data." + std::to_string(k) + ".labels");
      if (!t) break;
      REQUIRE(l);
      const int64_t B = t->shape[0], N = t->shape[1];
      for (int64_t b = 0; b < B; ++b) {
        std::vector<float> row(t->data.begin() + b * N, t->data.begin() + (b + 1) * N);
        row.push_back(l->data[size_t(b)]);
        rows.push_back(row);
      }
    }
    return rows;
  };
  auto rows_want = [&](const Dataset& d) {
    std::vector<std::vector<float>> rows;
    for (const Batch& b : eval_batches(d, data.opts))
      for (int64_t i = 0; i < b.B; ++i) {
        std::vector<float> row(b.tokens.begin() + i * b.N, b.tokens.begin() + (i + 1) * b.N);
        row.push_back(float(b.labels[size_t(i)]));
        rows.push_back(row);
      }
    return rows;
  };
  for (std::string split : {"val", "test"}) {
    CAPTURE(split);
    const std::string out = dir / (split + ".safetensors");
    REQUIRE(run("export --ckpt " + ckpt + " --out " + dir / "m.safetensors --data-out " + out + " --split " + split, &msg) == 0);
    CHECK(load_safetensors(out).metadata["split"] == split);
    std::vector<std::vector<float>> got = rows_of(out);
    const Dataset& want = split == "val" ? data.splits.val : data.splits.test;
    CHECK(got.size() == want.size());
    CHECK(got == rows_want(want));
  }
  CHECK(rows_want(data.splits.val) != rows_want(data.splits.test));  // the two splits differ, so the check can tell
}

// ---- no write outside the folders named (issue 57) -----------------------------------------

// Every command that writes files, each given an output inside OUT, run from an empty working
// directory W: afterwards every file under W is under OUT (a default written relative to the
// working directory, docs' tour or its map runs, would land beside it), a second docs run
// succeeds, and the source tree's tracked files are as they were.
TEST_CASE("every command that writes files writes under its output folder alone, and docs runs twice") {
  namespace fs = std::filesystem;
  const char* scale = std::getenv("ATTNZOO_TEST_SCALE");
  if (scale && std::string(scale) == "small") {  // 33 s at full speed: the same commands run in make test
    MESSAGE("ATTNZOO_TEST_SCALE=small: the output-folder check runs in make test, not here");
    return;
  }
  const std::string repo = fs::current_path().string(), bin = az::test::run_prefix() + fs::absolute(az::test::attnzoo_bin()).string();
  az::test::TempDir w("az_outputs");
  const std::string W = w.path, O = W + "/out";
  std::string before, after, out;
  az::test::run_shell("git -C " + repo + " status --porcelain --untracked-files=no 2>&1", &before);
  auto run = [&](const std::string& args) {
    INFO(args);
    int rc = az::test::run_shell("cd " + W + " && OMP_NUM_THREADS=1 timeout -k 5 600 " + bin + " " + args + " 2>&1", &out);
    INFO(out);
    CHECK(rc == 0);
  };
  run("train --task listops --model full --steps 2 --dim 16 --heads 2 --layers 1 --ffn 32 --eval-limit 32 --quiet --out " + O + "/train");
  run("pattern --model local --seq-len 16 --out " + O + "/pattern.png");
  run("attnmap --ckpt " + O + "/train/best.ckpt --index 0 --out " + O + "/map.png");
  run("export --ckpt " + O + "/train/best.ckpt --out " + O + "/model.safetensors");
  run("plot --run " + O + "/train --out " + O + "/plot");
  run("data listops --out " + O + "/listops");
  run("recall --out " + O + "/recall --models full --points 16:2 --dims 16 --lrs 3e-3 --seeds 1 --steps 2 --no-state");
  run("lra --preset quick --models full --tasks listops --steps-scale 0.01 --out " + O + "/lra");
  const std::string docs = "docs --out " + O + "/docs --src " + repo + " --steps 2 --bench " + repo +
                           "/docs/bench/variants.jsonl --lra-bench " + repo + "/docs/lra/mini3/bench.jsonl --impl-bench " +
                           repo + "/docs/bench/impl.jsonl";
  run(docs);
  run(docs);  // again: the map runs are reused, nothing refuses
  CHECK(fs::exists(O + "/docs/tour.md"));
  {  // a page's recall section reads the sweep's records: widths with their decoding state, and the model's own knob
    std::ifstream in(O + "/docs/local.md");
    std::stringstream page;
    page << in.rdbuf();
    CHECK(az::test::contains(page.str(), "| length, pairs | dim | seeds | accuracy (%) | each seed | decoding state |"));
    CHECK(az::test::contains(page.str(), "### Recall against its decoding state"));
    CHECK(az::test::contains(page.str(), "| --window | 8 | 10.0 KiB |"));
  }
  for (auto& e : fs::recursive_directory_iterator(W)) {
    std::string p = e.path().string();
    INFO(p);
    CHECK((p == O || p.rfind(O + "/", 0) == 0));
  }
  az::test::run_shell("git -C " + repo + " status --porcelain --untracked-files=no 2>&1", &after);
  CHECK(before == after);
}

TEST_CASE("with ATTNZOO_RUNNER set, the program starts its own children through it (an Arm build under qemu)") {
  // A runner that notes each command and runs it: recall trains each cell in a child attnzoo.
  az::test::TempDir dir("az_runner");
  const std::string runner = dir / "runner.sh", log = dir / "runner.log";
  std::ofstream(runner) << "#!/bin/sh\necho \"$@\" >> " << log << "\nexec \"$@\"\n";
  fs::permissions(runner, fs::perms::owner_all);
  std::string out;
  int rc = az::test::run_shell("ATTNZOO_RUNNER=" + runner + " OMP_NUM_THREADS=1 " + az::test::attnzoo_cmd() + " recall --out " +
                                   (dir / "recall") + " --models full --points 16:2 --dims 16 --lrs 3e-3 --seeds 1 --steps 2 --no-state 2>&1",
                               &out);
  INFO(out);
  REQUIRE(rc == 0);
  std::ifstream in(log);
  std::string first;
  REQUIRE(std::getline(in, first));  // the child ran through the runner
  CHECK(contains(first, " mqar "));
  CHECK(fs::equivalent(first.substr(0, first.find(' ')), az::test::attnzoo_bin()));
}

TEST_CASE("--impl reference reaches the model in every command: train, eval, predict, generate and bench") {
  // (issue 66: generate ignored --impl reference and decoded with the fast form's cache)  flash's fast
  // form is one op, flash_attention; its reference form is the online softmax in plain ops (max, exp,
  // sum, div).  --profile's table names the ops that ran, one a row; generate's reference form keeps no
  // state and says so.
  TempDir d("az_impl_cmds");
  std::string out;
  const std::string tiny = " --dim 16 --heads 2 --layers 1 --ffn 16 --steps 4 --eval-every 4 --batch 4 --quiet";
  REQUIRE_MESSAGE(run("train --task listops --model flash" + tiny + " --out " + d / "cls", &out) == 0, out);
  REQUIRE_MESSAGE(run("train --task lm --model flash --causal" + tiny + " --out " + d / "lm", &out) == 0, out);
  struct Case {
    std::string what, args, fast, reference;  // the command, and what its output shows under each form
  };
  const std::string ckpt = d / "cls/best.ckpt";
  const std::vector<Case> cases = {
      {"train", "train --task listops --model flash" + tiny + " --profile --force --out " + d / "again", "\nflash_attention ", "\nexp "},
      {"eval", "eval --ckpt " + ckpt + " --profile", "\nflash_attention ", "\nexp "},
      {"predict", "predict --ckpt " + ckpt + " --profile '[MAX 2 9 ]'", "\nflash_attention ", "\nexp "},
      {"bench", "bench --model flash --seq-len 64 --batch 2 --dim 16 --heads 2 --layers 1 --ffn 16 --steps 1 --profile",
       "\nflash_attention ", "\nexp "},
      {"generate", "generate --ckpt " + d / "lm/best.ckpt" + " --prompt 'The ' --tokens 4", "KV cache", "re-runs the prefix"},
  };
  for (const Case& c : cases)
    for (const std::string impl : {"fast", "reference"}) {
      CAPTURE(c.what);
      CAPTURE(impl);
      REQUIRE_MESSAGE(run(c.args + " --impl " + impl, &out) == 0, out);
      const bool ref = impl == "reference";
      CHECK_MESSAGE(contains(out, ref ? c.reference : c.fast), out);
      CHECK_MESSAGE(!contains(out, ref ? c.fast : c.reference), out);
    }
}

TEST_CASE("a resumed run that stops names its own folder to resume from, not the flags' default") {
  // (the message once said runs/listops-full for a Pathfinder run resumed from runs/pf-lra-full)
  TempDir dir("az_resume_msg");
  std::string run_dir = dir / "mine", out;
  REQUIRE(run("train --task listops --steps 6 --batch 4 --dim 16 --heads 2 --layers 1 --ffn 16 --stop-after 2 --quiet --out " +
                  run_dir, &out) == 0);
  CHECK(contains(out, "resume with --resume " + run_dir + "/last.ckpt"));
  REQUIRE(run("train --resume " + run_dir + "/last.ckpt --stop-after 4 --quiet", &out) == 0);
  CHECK_MESSAGE(contains(out, "stopped after step 4; resume with --resume " + run_dir + "/last.ckpt"), out);
}

TEST_CASE("predict scores its batch in shards, a thread a shard: the probabilities of the whole batch, in input order") {
  // 3 inputs make one batch: batch-parallel cuts it in 2 shards (shard_count), ops scores it whole.
  // --profile's table counts the forwards (full attention: one softmax a forward).
  TempDir dir("az_app_predict_shards");
  std::string out;
  REQUIRE(run("train --model full --steps 4 --eval-every 4 --dim 16 --heads 2 --layers 1 --ffn 16 --batch 4 --quiet --out " +
                  dir / "m", &out) == 0);
  auto predict = [&](const std::string& mode, int64_t* forwards) {
    std::string text;
    REQUIRE(run("predict --ckpt " + dir / "m/best.ckpt --top 3 --json --profile --parallel " + mode +
                    " '[MAX 2 9 [MIN 4 7 ] 0 ]' '[SM 3 5 ]' '[MIN 8 1 ]'", &text) == 0);
    std::istringstream lines(text);
    std::string json;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("{\"input\"", 0) == 0) json += line + "\n";
      std::istringstream row(line);
      std::string op;
      double fwd_ms, bwd_ms;
      int64_t n = 0;
      if (row >> op >> fwd_ms >> bwd_ms >> n && op == "softmax") *forwards = n;
    }
    return json;
  };
  int64_t whole_n = 0, sharded_n = 0;
  const std::string whole = predict("ops", &whole_n), sharded = predict("batch", &sharded_n);
  CHECK(whole_n == 1);
  CHECK(sharded_n == 2);
  // The same classes in the same order; probabilities to float rounding (printed to 17 digits).
  std::vector<std::string> a, b;
  for (const auto& [text, into] : {std::pair{&whole, &a}, std::pair{&sharded, &b}}) {
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);) into->push_back(line);
  }
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CAPTURE(a[i]);
    CAPTURE(b[i]);
    auto numbers = [](const std::string& s) {
      std::vector<double> v;
      for (size_t at = s.find("\"p\":"); at != std::string::npos; at = s.find("\"p\":", at + 1)) v.push_back(std::stod(s.substr(at + 4)));
      return v;
    };
    auto classes = [](const std::string& s) {
      std::string c;
      for (size_t at = s.find("\"class\":"); at != std::string::npos; at = s.find("\"class\":", at + 1)) c += s.substr(at, s.find(',', at) - at);
      return c;
    };
    CHECK(a[i].substr(0, a[i].find("\"top\"")) == b[i].substr(0, b[i].find("\"top\"")));  // the same input, in order
    CHECK(classes(a[i]) == classes(b[i]));
    std::vector<double> pa = numbers(a[i]), pb = numbers(b[i]);
    REQUIRE(pa.size() == 3);
    REQUIRE(pb.size() == 3);
    for (size_t j = 0; j < 3; ++j) CHECK(pb[j] == doctest::Approx(pa[j]).epsilon(1e-6));
  }
}

// Issue 76, bug 13: `plot` refused `--acc-range 0:1` (the whole accuracy axis, its default) and a
// level at 1 (perfect accuracy): its ranges must be inclusive at both ends.  The data and settings
// gnuplot is handed, read back from curves.gp.
TEST_CASE("plot: --acc-range and --levels take 0 and 1 themselves (inclusive ends), nothing past them, and LO < HI") {
  TempDir t("az_plot_ends");
  std::ofstream(t.path + "/metrics.jsonl") << "{\"step\": 10, \"loss\": 2.3, \"train_acc\": 0.10, \"elapsed\": 1.0}\n"
                                              "{\"step\": 10, \"val_acc\": 1, \"val_loss\": 0.1, \"elapsed\": 1.5}\n";
  std::string out;
  REQUIRE_MESSAGE(run("plot --run " + t.path + " --acc-range 0:1 --levels '1=perfect,0=never right'", &out) == 0, out);
  const std::string gp = slurp(t.path + "/curves.gp");
  CHECK(contains(gp, "set yrange [0:1]"));
  CHECK(contains(gp, ", 1 with lines dt 2 lw 1.5 lc rgb '#444444' title \"perfect\", 0 with lines dt 3 "));
  // one step past either end, or an empty range, is refused in one line naming the flag
  for (auto [flags, says] : std::vector<std::pair<std::string, std::string>>{
           {"--acc-range 0:1.001", "--acc-range's HI must be a number in 0..1, got '1.001'"},
           {"--acc-range -0.001:1", "--acc-range's LO must be a number in 0..1, got '-0.001'"},
           {"--acc-range 0.5:0.5", "--acc-range needs LO < HI, got '0.5:0.5'"},
           {"--levels 1.001=over", "a level of --levels must be a number in 0..1, got '1.001'"},
           {"--levels -0.001=under", "a level of --levels must be a number in 0..1, got '-0.001'"}}) {
    CAPTURE(flags);
    CHECK(run("plot --run " + t.path + " " + flags, &out) == 2);
    CHECK(contains(out, says));
  }
}

// ---- round r79j: decoding states, generate, predict and export, by hand -------------------------
// Planted bugs that the comparisons of decoding with the full forward and of one run with another
// could not see: each case states its values worked out by hand.

namespace {
// A 1-dim, 1-head projection: q = wq x, k = wk x, v = x, the output the attention's output
// (d = 1: the scale 1/sqrt(d) is 1).
std::shared_ptr<QKVProjection> tiny_proj(float wq, float wk) {
  auto p = std::make_shared<QKVProjection>(1, 1);
  p->q->weight.data()[0] = wq, p->k->weight.data()[0] = wk, p->v->weight.data()[0] = 1, p->o->weight.data()[0] = 1;
  for (Linear* l : {p->q.get(), p->k.get(), p->v.get(), p->o.get()}) l->bias.data()[0] = 0;
  return p;
}
std::vector<float> outputs_of(DecodeState& s, const std::vector<float>& xs) {
  std::vector<float> out;
  for (float x : xs) out.push_back(s.step(Tensor::from({1, 1, 1}, {x})).data()[0]);
  return out;
}
// Sets a parameter of the model to the values f(i, j) of its [rows, cols] layout.
void set_param(Module& m, const std::string& name, const std::function<float(int64_t, int64_t)>& f) {
  for (auto& p : m.named_parameters()) {
    if (p.name != name) continue;
    const int64_t cols = p.tensor.shape().back(), n = p.tensor.numel();
    for (int64_t i = 0; i < n; ++i) p.tensor.data()[i] = f(i / cols, i % cols);
    return;
  }
  FAIL("no parameter " << name);
}
void save_model(const std::string& path, const SequenceClassifier& model, const ModelConfig& mc, const TrainConfig& tc) {
  Checkpoint c;
  c.model_config = mc.to_map(), c.train_config = tc.to_map();
  c.params = records_of(model.named_parameters()), c.buffers = records_of(model.named_buffers());
  save_checkpoint(path, c);
}
// attnzoo ARGS: the exit status, standard output and standard error apart.
int run_apart(const std::string& args, const TempDir& dir, std::string* out, std::string* err) {
  out->clear();
  const int st = az::test::run_shell("timeout -k 5 60 " + az::test::attnzoo_cmd() + " " + args + " 2>" + dir / "err.txt", out);
  *err = slurp(dir / "err.txt");
  return st;
}
}  // namespace

// wq = 1, wk = ln 3, inputs x = 0, 1, 2 (v = x): query t scores key j as x_t x_j ln 3.
//   full:  t = 1: scores (0, ln 3) -> weights (1, 3)/4 -> 3/4;  t = 2: (0, 2 ln 3, 4 ln 3) -> (1, 9, 81)/91
//          -> (9 + 162)/91 = 171/91.
//   local, window 1 (keys t, t-1): t = 2: (2 ln 3, 4 ln 3) -> (9, 81)/90 -> (9 + 162)/90 = 1.9.
//   strided, window 1, stride 2 (keys t, t-2): t = 1 reads key 1 alone -> 1;  t = 2: keys 0, 2: (1, 81)/82 -> 162/82.
// Guards a cache that appends at the wrong slot or keeps one position too few, the newest key or value
// left out, weights not divided by their sum; and the method line's counts (last w s + 1 kept, w + 1 read).
TEST_CASE("decoding by hand: a KV cache, a window and a strided window on 1-dim keys give the softmax weights worked out") {
  auto full = kv_cache_state(tiny_proj(1, std::log(3.0f)), 1, -1, 1);
  auto local = kv_cache_state(tiny_proj(1, std::log(3.0f)), 1, 1, 1);
  auto strided = kv_cache_state(tiny_proj(1, std::log(3.0f)), 1, 1, 2);
  const std::vector<float> xs = {0, 1, 2};
  const std::vector<std::pair<DecodeState*, std::vector<double>>> cases = {
      {full.get(), {0, 0.75, 171.0 / 91}}, {local.get(), {0, 0.75, 1.9}}, {strided.get(), {0, 1, 162.0 / 82}}};
  for (auto& [state, want] : cases) {
    CAPTURE(state->kind());
    std::vector<float> got = outputs_of(*state, xs);
    for (size_t t = 0; t < xs.size(); ++t) CHECK(got[t] == doctest::Approx(want[t]).epsilon(1e-5));
  }
  CHECK(full->kind() == "KV cache");
  CHECK(local->kind() == "KV cache of the last 2 positions (reads 2 per head)");
  CHECK(strided->kind() == "KV cache of the last 3 positions (reads 2 per head)");
}

// phi(q) = phi(k) = 1, v = x = 4 at every step, eps = 2.5: after t + 1 steps S = 4 (t + 1), z = t + 1.
//   den + eps:     4/3.5 = 8/7, 8/4.5 = 16/9, 12/5.5 = 24/11
//   max(den, eps): 4/2.5 = 1.6, 8/2.5 = 3.2, 12/3 = 4
// Guards the two normalisers swapped or the sums overwritten; a bidirectional layer must get no state.
TEST_CASE("decoding by hand: the recurrent state's two normalisers, and a bidirectional layer refused") {
  auto ones = [](const Tensor& x) {
    return QKVProjection::Heads{Tensor::ones({1, 1, 1, 1}), Tensor::ones({1, 1, 1, 1}), reshape(x, {1, 1, 1, 1})};
  };
  auto add = recurrent_state(tiny_proj(0, 0), ones, 2.5f, KernelNorm::add_eps);
  auto clamp = recurrent_state(tiny_proj(0, 0), ones, 2.5f, KernelNorm::clamp);
  const std::vector<float> a = outputs_of(*add, {4, 4, 4}), c = outputs_of(*clamp, {4, 4, 4});
  const std::vector<double> want_a = {8.0 / 7, 16.0 / 9, 24.0 / 11}, want_c = {1.6, 3.2, 4};
  for (size_t t = 0; t < 3; ++t) {
    CHECK(a[t] == doctest::Approx(want_a[t]).epsilon(1e-6));
    CHECK(c[t] == doctest::Approx(want_c[t]).epsilon(1e-6));
  }
  AttentionConfig cfg;
  cfg.dim = 8, cfg.heads = 2, cfg.max_len = 8, cfg.causal = false;
  auto att = make_attention("full", cfg);
  CHECK(contains(az::test::error_of([&] { make_decode_state(*att); }), "not causal"));
}

namespace {
// A 1-layer byte LM of context 8 (dim 8, full attention) whose logits are known: the mixer's and the
// FFN's outputs zeroed, so the final LN sees embedding + position alone; LN of a one-hot e_i is
// sqrt(7) at i and -1/sqrt(7) elsewhere, and the head maps coordinate i to one byte.
//   positions: the embedding 0, position p one-hot at p, the head i -> 'A' + i: the greedy byte
//              after position p is 'A' + p, whatever the tokens.
//   successor: positions 0, the byte 'A' + i (token id 'A' + i + 1) one-hot at i, the head
//              i -> 'A' + i + 1: the greedy byte after 'A' + i is 'A' + i + 1.
std::string greedy_lm(const TempDir& dir, bool positions) {
  ModelConfig mc;
  mc.model = "full", mc.vocab = 257, mc.num_classes = 256, mc.head = Head::kToken, mc.causal = true;
  mc.max_len = 8, mc.dim = 8, mc.heads = 1, mc.layers = 1, mc.ffn = 4, mc.dropout = 0;
  SequenceClassifier model(mc);
  auto zero = [](int64_t, int64_t) { return 0.0f; };
  for (const char* p : {"blocks.0.mixer.proj.o.weight", "blocks.0.mixer.proj.o.bias", "blocks.0.ffn.fc2.weight",
                        "blocks.0.ffn.fc2.bias", "ln_f.beta", "head.bias"})
    set_param(model, p, zero);
  set_param(model, "ln_f.gamma", [](int64_t, int64_t) { return 1.0f; });
  if (positions) {
    set_param(model, "embed.weight", zero);
    set_param(model, "pos.table", [](int64_t p, int64_t i) { return p == i ? 1.0f : 0.0f; });
    set_param(model, "head.weight", [](int64_t i, int64_t c) { return c == 'A' + i ? 1.0f : 0.0f; });
  } else {
    set_param(model, "embed.weight", [](int64_t id, int64_t i) { return id == 'A' + 1 + i ? 1.0f : 0.0f; });
    set_param(model, "pos.table", zero);
    set_param(model, "head.weight", [](int64_t i, int64_t c) { return c == 'A' + i + 1 ? 1.0f : 0.0f; });
  }
  TrainConfig tc;
  tc.task = "lm";
  const std::string path = dir / (positions ? "positions.ckpt" : "successor.ckpt");
  save_model(path, model, mc, tc);
  return path;
}
}  // namespace

// Greedy (--temperature 0) generation from the models above, context 8.
//   positions, prompt "AB", 14 bytes: positions 1..7 give B..H; the context is full, the decoder
//     restarts on the last 4 bytes (3 of history fed at 0..2, the newest byte at 3): D..H, then again D, E.
//   positions, prompt "ABCDEFGH" (exactly the context, accepted), 3 bytes: H, restart, D, E.
//   positions, a 9-byte prompt: refused (exit 2), not cut.
//   successor, prompt "AB", 4 bytes: C D E F (the prompt fed as token id byte + 1).
// Guards a restart that feeds the newest byte twice or too few, no notice or a notice per restart, a
// prompt of the context's length refused or a longer one cut silently, the prompt fed as byte ids.
TEST_CASE("generate by hand: greedy bytes from a model whose logits depend on the position or the last byte alone") {
  TempDir dir("az_app_generate_hand");
  const std::string pos = greedy_lm(dir, true), succ = greedy_lm(dir, false);
  std::string out, err;
  REQUIRE_MESSAGE(run_apart("generate --ckpt " + pos + " --prompt AB --tokens 14 --temperature 0", dir, &out, &err) == 0, err);
  CHECK(out == "ABBCDEFGHDEFGHDE");
  const std::string notice = "the context of 8 bytes is full; continuing from its last 4 bytes";
  CHECK_MESSAGE(contains(err, notice), err);
  CHECK_MESSAGE(err.find(notice) == err.rfind(notice), err);  // said once
  REQUIRE_MESSAGE(run_apart("generate --ckpt " + pos + " --prompt ABCDEFGH --tokens 3 --temperature 0", dir, &out, &err) == 0, err);
  CHECK(out == "ABCDEFGHHDE");
  CHECK(run_apart("generate --ckpt " + pos + " --prompt ABCDEFGHI --tokens 3 --temperature 0", dir, &out, &err) == 2);
  CHECK(out.empty());
  CHECK_MESSAGE(contains(err, "the prompt has 9 bytes, more than the model's context of 8"), err);
  REQUIRE_MESSAGE(run_apart("generate --ckpt " + succ + " --prompt AB --tokens 4 --temperature 0", dir, &out, &err) == 0, err);
  CHECK(out == "ABCDEF");
}

namespace {
// A ListOps classifier whose logits are its head's bias, ln(c + 1) (the head's weight 0): p(c) =
// (c + 1)/55 for every input, the classes named zero..nine.
std::string known_classifier(const TempDir& dir) {
  ModelConfig mc;
  mc.model = "full", mc.vocab = kListOpsVocab, mc.num_classes = 10, mc.max_len = 16;
  mc.dim = 8, mc.heads = 1, mc.layers = 1, mc.ffn = 4, mc.dropout = 0;
  SequenceClassifier model(mc);
  set_param(model, "head.weight", [](int64_t, int64_t) { return 0.0f; });
  set_param(model, "head.bias", [](int64_t, int64_t c) { return std::log(float(c + 1)); });
  TrainConfig tc;
  tc.class_names = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"};
  save_model(dir / "known.ckpt", model, mc, tc);
  return dir / "known.ckpt";
}
}  // namespace

// p(9) = 10/55 = 0.1818, p(8) = 9/55 = 0.1636, p(7) = 8/55 = 0.1455: the default top 3 in text, --top 2
// in JSON (normalised, named), --top 0 refused with exit 2.  Guards a class name read one off,
// unnormalised probabilities, a wrong default --top, --top 0 accepted.
TEST_CASE("predict by hand: the class names and probabilities of a model whose logits are ln(c + 1)") {
  TempDir dir("az_app_predict_hand");
  const std::string ckpt = known_classifier(dir);
  std::string out, err;
  REQUIRE_MESSAGE(run_apart("predict --ckpt " + ckpt + " '[SM 3 5 ]' '[MAX 2 9 ]'", dir, &out, &err) == 0, err);
  CHECK(out == "[SM 3 5 ]: nine 0.182, eight 0.164, seven 0.145\n[MAX 2 9 ]: nine 0.182, eight 0.164, seven 0.145\n");
  REQUIRE_MESSAGE(run_apart("predict --ckpt " + ckpt + " --json --top 2 '[SM 3 5 ]'", dir, &out, &err) == 0, err);
  CHECK(out.rfind("{\"input\":\"[SM 3 5 ]\",\"top\":[{\"class\":\"nine\",\"p\":", 0) == 0);
  CHECK(contains(out, "},{\"class\":\"eight\",\"p\":"));
  std::vector<double> p;
  for (size_t at = out.find("\"p\":"); at != std::string::npos; at = out.find("\"p\":", at + 1)) p.push_back(std::stod(out.substr(at + 4)));
  REQUIRE(p.size() == 2);
  CHECK(p[0] == doctest::Approx(10.0 / 55).epsilon(1e-6));
  CHECK(p[1] == doctest::Approx(9.0 / 55).epsilon(1e-6));
  CHECK(run_apart("predict --ckpt " + ckpt + " --top 0 '[SM 3 5 ]'", dir, &out, &err) == 2);
  CHECK(contains(err, "--top must be positive"));
}

// A 1-layer performer (dim 8, 1 head) exported: its 22 parameters in named_parameters()' order, then
// its 2 buffers (the random features and the call count); the metadata names both buffers, and
// holds the knobs not given at their registry defaults (features 0: d ln d; redraw 1000).  A
// --split that names no split exits 2.  Guards the tensors written in another order, the buffers'
// list cut to one, the defaults left out, an exit status of 0 on a bad --split.
TEST_CASE("export by hand: the exact tensor names in order, the buffers and defaults in the metadata, a bad --split") {
  TempDir dir("az_app_export_hand");
  ModelConfig mc;
  mc.model = "performer", mc.vocab = kListOpsVocab, mc.num_classes = 10, mc.max_len = 128;  // the ListOps data's 76 tokens
  mc.dim = 8, mc.heads = 1, mc.layers = 1, mc.ffn = 4, mc.dropout = 0;
  SequenceClassifier model(mc);
  save_model(dir / "p.ckpt", model, mc, TrainConfig());
  std::string out, err;
  REQUIRE_MESSAGE(run_apart("export --ckpt " + dir / "p.ckpt --out " + dir / "p.safetensors", dir, &out, &err) == 0, err);
  Safetensors st = load_safetensors(dir / "p.safetensors");
  std::vector<std::string> names;
  for (auto& t : st.tensors) names.push_back(t.name);
  const std::vector<std::string> want = {
      "embed.weight", "pos.table", "blocks.0.ln1.gamma", "blocks.0.ln1.beta",
      "blocks.0.mixer.proj.q.weight", "blocks.0.mixer.proj.q.bias", "blocks.0.mixer.proj.k.weight",
      "blocks.0.mixer.proj.k.bias", "blocks.0.mixer.proj.v.weight", "blocks.0.mixer.proj.v.bias",
      "blocks.0.mixer.proj.o.weight", "blocks.0.mixer.proj.o.bias", "blocks.0.ln2.gamma", "blocks.0.ln2.beta",
      "blocks.0.ffn.fc1.weight", "blocks.0.ffn.fc1.bias", "blocks.0.ffn.fc2.weight", "blocks.0.ffn.fc2.bias",
      "ln_f.gamma", "ln_f.beta", "head.weight", "head.bias", "blocks.0.mixer.features", "blocks.0.mixer.calls"};
  CHECK(names == want);
  CHECK(st.metadata["format"] == "attnzoo");
  CHECK(st.metadata["buffers"] == "blocks.0.mixer.features,blocks.0.mixer.calls");
  CHECK(st.metadata["model.knob.features"] == "0");
  CHECK(st.metadata["model.knob.redraw"] == "1000");
  CHECK(run_apart("export --ckpt " + dir / "p.ckpt --out " + dir / "q.safetensors --data-out " + dir / "d.safetensors --split bogus",
                  dir, &out, &err) == 2);
  CHECK_MESSAGE(contains(err, "--split must be train, val or test, got 'bogus'"), err);
}
