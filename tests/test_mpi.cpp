// Data parallelism (train/distributed.h): an example's dropout masks and
// logits do not depend on how the batch is split; 2 ranks follow the
// one-process trajectory; checkpoints move between 1 and 2 processes; sharded
// evaluation equals one process; a failing or killed rank ends the job.
//
// The MPI cases launch `mpirun -np 2` on $ATTNZOO_MPI_BIN (make test sets it
// to build/attnzoo-mpi) and skip, saying so, when it or mpirun is missing.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "attention/attention.h"
#include "tests/util.h"
#include "train/checkpoint.h"
#include "train/distributed.h"
#include "train/model.h"

using namespace az;
namespace fs = std::filesystem;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string temp_dir() {
  char tmpl[] = "/tmp/az_test_mpi_XXXXXX";
  return mkdtemp(tmpl);
}

std::string env_or(const char* name, const std::string& def) {
  const char* v = std::getenv(name);
  return v ? v : def;
}

// Runs a shell command; returns its exit status (-1 if killed by a signal),
// its standard output and error in *out, and its duration.
int sh(const std::string& cmd, std::string* out, double* seconds = nullptr) {
  double t0 = now();
  int st = az::test::run_shell(cmd + " </dev/null 2>&1", out);  // mpirun forwards stdin: give it none
  if (seconds) *seconds = now() - t0;
  return st;
}

std::string serial_bin() { return az::test::attnzoo_cmd(); }
std::string mpi_bin() { return env_or("ATTNZOO_MPI_BIN", ""); }

// mpirun with 2 local ranks of one thread each; as root where CI runs as root.
// `timeout` guards the suite against a hang (the thing under test).
std::string mpirun(const std::string& extra = "") {
  return "timeout -k 5 300 mpirun -np 2 --oversubscribe --bind-to none" +
         std::string(geteuid() == 0 ? " --allow-run-as-root" : "") + " -x OMP_NUM_THREADS=1 " + extra + " ";
}

// True when the MPI cases can run; otherwise says why.
bool mpi_ready() {
  std::string out;
  if (mpi_bin().empty() || !fs::exists(mpi_bin())) {
    MESSAGE("skipped: no MPI program (ATTNZOO_MPI_BIN=" << mpi_bin() << "); `make test` builds build/attnzoo-mpi");
    return false;
  }
  if (sh("command -v mpirun", &out) != 0) {
    MESSAGE("skipped: mpirun is not installed (make deps installs openmpi-bin)");
    return false;
  }
  return true;
}

// A tiny run with dropout on, so that masks matter.
std::string tiny_args(const std::string& out, int steps, int batch = 8) {
  return "train --task listops --model full --steps " + std::to_string(steps) + " --batch " + std::to_string(batch) +
         " --seq-len 128 --dim 16 --heads 2 --layers 1 --ffn 32 --dropout 0.1 --attn-dropout 0.1"
         " --lr 3e-3 --warmup 2 --eval-every 3 --log-every 3 --eval-limit 64 --quiet --out " + out;
}

// Largest |a - b| over two checkpoints' parameters.  Attention's key bias is
// left out: it adds q.b_k to every score of a row, which softmax ignores, so
// its true gradient is 0 and Adam (eps 1e-9) turns the rounding noise left in
// it into steps of size lr, differently for any change of summation order (as
// between 1 and 2 threads in one process).
double param_gap(const Checkpoint& a, const Checkpoint& b) {
  REQUIRE(a.params.size() == b.params.size());
  double gap = 0;
  for (size_t i = 0; i < a.params.size(); ++i) {
    REQUIRE(a.params[i].name == b.params[i].name);
    REQUIRE(a.params[i].data.size() == b.params[i].data.size());
    if (a.params[i].name.find(".k.bias") != std::string::npos) continue;
    for (size_t j = 0; j < a.params[i].data.size(); ++j)
      gap = std::max(gap, double(std::fabs(a.params[i].data[j] - b.params[i].data[j])));
  }
  return gap;
}

// Same step, data position, RNG and configuration (bitwise), parameters
// within rounding (a gradient summed in another order: ~1e-7 here).
void check_same_run(const std::string& a_path, const std::string& b_path) {
  CAPTURE(a_path);
  CAPTURE(b_path);
  Checkpoint a = load_checkpoint(a_path), b = load_checkpoint(b_path);
  CHECK(a.step == b.step);
  CHECK(a.rng == b.rng);
  CHECK(a.data.epoch == b.data.epoch);
  CHECK(a.data.index == b.data.index);
  a.train_config.erase("out"), b.train_config.erase("out");
  CHECK(a.train_config == b.train_config);
  CHECK(a.model_config == b.model_config);
  double gap = param_gap(a, b);
  MESSAGE("largest parameter difference " << gap);
  CHECK(gap < 1e-5);
  CHECK(a.optimizer.size() == b.optimizer.size());
}

Batch random_batch(int B, int N, int vocab, uint64_t seed) {
  Rng r(seed);
  Batch b;
  b.B = B, b.N = N;
  for (int i = 0; i < B; ++i) {
    int len = N - i * 5;  // some padding, different per row
    for (int t = 0; t < N; ++t) {
      b.tokens.push_back(t < len ? 1 + int(r.randint(vocab - 1)) : 0);
      b.pad_mask.push_back(t < len ? 0.0f : 1.0f);
    }
    b.labels.push_back(int(r.randint(3)));
  }
  return b;
}

}  // namespace

// ---- in one process: what makes P ranks equal one process ------------------------

TEST_CASE("a dropout mask follows the global example, not the process that computes it") {
  Tensor x = Tensor::ones({4, 3, 5});  // [B,N,D]
  Rng rng(3);
  Tensor whole = dropout(x, 0.5f, true, rng);
  for (int64_t first : {0, 2}) {
    Rng same(3);
    batch_shard() = {first, 2};
    Tensor part = dropout(Tensor::ones({2, 3, 5}), 0.5f, true, same);
    batch_shard() = {};
    for (int64_t i = 0; i < part.numel(); ++i) CHECK(part.data()[i] == whole.data()[first * 15 + i]);
  }
  // an example-major [B*H, ...] tensor (H = 2) counts the same way
  Rng r2(4);
  Tensor heads = dropout(Tensor::ones({8, 6}), 0.5f, true, r2);
  Rng r3(4);
  batch_shard() = {2, 2};
  Tensor part = dropout(Tensor::ones({4, 6}), 0.5f, true, r3);
  batch_shard() = {};
  for (int64_t i = 0; i < part.numel(); ++i) CHECK(part.data()[i] == heads.data()[24 + i]);
  // one process: no shift at all
  CHECK(mask_counter_base(4, 60) == 0);
}

TEST_CASE("every model gives an example the same training-mode logits whichever rows a process holds") {
  // Sinkhorn draws its Gumbel noise element by element from the sequential RNG,
  // and routing initialises its k-means centroids from the batch: their logits
  // depend on the split (see README, "Training on several processes").
  const std::set<std::string> split_dependent = {"sinkhorn", "routing"};
  const int B = 4, N = 64;
  Batch b = random_batch(B, N, 16, 9);
  for (const std::string& name : attention_names()) {
    CAPTURE(name);
    ModelConfig mc;
    mc.model = name, mc.vocab = 16, mc.num_classes = 3, mc.max_len = N;
    mc.dim = 16, mc.heads = 2, mc.layers = 1, mc.ffn = 32, mc.dropout = 0.2f;
    mc.attn_dropout = 0.2f;  // flash too: its tile engine draws the mask full attention draws
    global_rng().seed_with(5);
    std::unique_ptr<SequenceClassifier> model;
    try {
      model = std::make_unique<SequenceClassifier>(mc);
    } catch (const std::exception& e) {
      FAIL_CHECK("cannot build " << name << ": " << e.what());
      continue;
    }
    model->train();
    auto rng = global_rng().state();
    std::vector<std::vector<float>> buffers;  // forward may change them (routing): reset before each pass
    for (auto& t : model->named_buffers()) buffers.push_back(t.tensor.to_vector());
    auto reset = [&] {
      global_rng().set_state(rng);
      auto bs = model->named_buffers();
      for (size_t i = 0; i < bs.size(); ++i) std::copy(buffers[i].begin(), buffers[i].end(), bs[i].tensor.data());
    };
    reset();
    Tensor whole = model->forward(b);  // [B,C]
    const int64_t C = whole.size(1);
    double gap = 0;
    for (int64_t first : {0, 2}) {
      reset();
      batch_shard() = {first, 2};
      Tensor part = model->forward(dist::slice_rows(b, first, 2));
      batch_shard() = {};
      for (int64_t i = 0; i < 2 * C; ++i) gap = std::max(gap, double(std::fabs(part.data()[i] - whole.data()[first * C + i])));
    }
    if (split_dependent.count(name)) {
      MESSAGE(name << ": largest logit difference " << gap << " (depends on the split, documented)");
      continue;
    }
    CHECK(gap < 1e-4);
  }
}

TEST_CASE("rows_of and slice_rows in one process") {
  dist::Rows r = dist::rows_of(7);  // one process: every row, any batch size
  CHECK(r.first == 0);
  CHECK(r.rows == 7);
  Batch b = random_batch(4, 6, 10, 1);
  Batch s = dist::slice_rows(b, 1, 2);
  CHECK(s.B == 2);
  CHECK(s.N == 6);
  CHECK(std::vector<int32_t>(b.tokens.begin() + 6, b.tokens.begin() + 18) == s.tokens);
  CHECK(std::vector<int32_t>(b.labels.begin() + 1, b.labels.begin() + 3) == s.labels);
  CHECK_THROWS(dist::slice_rows(b, 3, 2));
  // every per-example field: a token task's targets, a pair task's second sequences and their padding
  b.N2 = 3;
  for (int i = 0; i < 4 * 6; ++i) b.targets.push_back(i % 5 ? i : kIgnoreTarget);
  for (int i = 0; i < 4 * 3; ++i) b.tokens2.push_back(100 + i), b.pad_mask2.push_back(float(i % 3 == 2));
  s = dist::slice_rows(b, 1, 2);
  CHECK(s.N2 == 3);
  CHECK(std::vector<int32_t>(b.targets.begin() + 6, b.targets.begin() + 18) == s.targets);
  CHECK(std::vector<int32_t>(b.tokens2.begin() + 3, b.tokens2.begin() + 9) == s.tokens2);
  CHECK(std::vector<float>(b.pad_mask2.begin() + 3, b.pad_mask2.begin() + 9) == s.pad_mask2);
}

// ---- two ranks under mpirun ----------------------------------------------------------

TEST_CASE("2 ranks follow the one-process trajectory, and checkpoints move between 1 and 2 processes") {
  if (!mpi_ready()) return;
  std::string dir = temp_dir(), out;
  const std::string one = "OMP_NUM_THREADS=1 " + serial_bin() + " ", two = mpirun() + mpi_bin() + " ";
  // A: one process, 6 steps.  B: two ranks, 6 steps.
  REQUIRE(sh(one + tiny_args(dir + "/a", 6), &out) == 0);
  INFO(out);
  REQUIRE(sh(two + tiny_args(dir + "/b", 6), &out) == 0);
  CHECK(out.find("test accuracy") != std::string::npos);
  CHECK(out.find("test accuracy") == out.rfind("test accuracy"));  // rank 0 alone prints
  check_same_run(dir + "/a/last.ckpt", dir + "/b/last.ckpt");
  // C: two ranks stop at 3, one process resumes to 6.  D: the other way round.
  REQUIRE(sh(two + tiny_args(dir + "/c", 6) + " --stop-after 3", &out) == 0);
  REQUIRE(sh(one + "train --quiet --resume " + dir + "/c/last.ckpt", &out) == 0);
  check_same_run(dir + "/a/last.ckpt", dir + "/c/last.ckpt");
  REQUIRE(sh(one + tiny_args(dir + "/d", 6) + " --stop-after 3", &out) == 0);
  REQUIRE(sh(two + "train --quiet --resume " + dir + "/d/last.ckpt", &out) == 0);
  check_same_run(dir + "/a/last.ckpt", dir + "/d/last.ckpt");
  // metrics are written once (by rank 0): 2 training lines, 2 validation lines, 1 final
  std::ifstream m(dir + "/b/metrics.jsonl");
  int lines = 0;
  for (std::string l; std::getline(m, l);) ++lines;
  CHECK(lines == 5);
  // sharded evaluation: the same accuracy over the same examples, one result line
  std::string e1, e2;
  REQUIRE(sh(one + "eval --ckpt " + dir + "/a/best.ckpt", &e1) == 0);
  REQUIRE(sh(two + "eval --ckpt " + dir + "/a/best.ckpt", &e2) == 0);
  CHECK(e1 == e2);
  fs::remove_all(dir);
}

// Token tasks (a target per position: mqar, lm) and a pair task (retrieval: a second
// sequence with its own padding) carry fields a sequence task has not; every one must
// reach each rank's rows, and the gradients be weighted by the scored positions.
TEST_CASE("2 ranks follow the one-process trajectory on token tasks (mqar, lm) and a pair task (retrieval)") {
  if (!mpi_ready()) return;
  std::string dir = temp_dir(), out;
  // A small retrieval corpus, written here: documents of many lengths, so the second sequences pad.
  Rng r(3);
  for (const char* split : {"train", "eval", "test"}) {
    std::ofstream f(dir + "/pairs." + split + ".tsv");
    for (int i = 0; i < 48; ++i) {
      auto doc = [&] {
        std::string d;
        for (int64_t n = 5 + r.randint(50); n > 0; --n) d += char('a' + r.randint(26));
        return d;
      };
      f << (i % 2) << "\tA" << i << "\tB" << i << "\t" << doc() << "\t" << doc() << "\n";
    }
  }
  const std::string common = " --model full --steps 6 --batch 8 --dim 16 --heads 2 --layers 1 --ffn 32 --lr 3e-3"
                             " --warmup 2 --eval-every 3 --log-every 3 --eval-limit 32 --quiet --out ";
  const std::vector<std::pair<std::string, std::string>> tasks = {
      {"mqar", "train --task mqar --seq-len 32 --pairs 4 --vocab 32 --n-train 200 --n-val 40 --n-test 40"},
      {"lm", "train --task lm --causal --seq-len 64"},
      {"retrieval", "train --task retrieval --data " + dir + "/pairs --seq-len 64 --baselines 0"}};
  const std::string one = "OMP_NUM_THREADS=1 " + serial_bin() + " ", two = mpirun() + mpi_bin() + " ";
  for (auto& [name, args] : tasks) {
    CAPTURE(name);
    REQUIRE(sh(one + args + common + dir + "/" + name + "-1", &out) == 0);
    INFO(out);
    REQUIRE(sh(two + args + common + dir + "/" + name + "-2", &out) == 0);
    check_same_run(dir + "/" + name + "-1/last.ckpt", dir + "/" + name + "-2/last.ckpt");
    std::string e1, e2;  // sharded evaluation: the same result line
    REQUIRE(sh(one + "eval --ckpt " + dir + "/" + name + "-1/best.ckpt", &e1) == 0);
    REQUIRE(sh(two + "eval --ckpt " + dir + "/" + name + "-1/best.ckpt", &e2) == 0);
    // Each rank prints the task's data notes, and mpirun interleaves the ranks' output as it
    // comes: under load rank 1's notes can follow rank 0's result (CI saw it), so the result
    // line is found, not taken from the end.
    auto result_lines = [](const std::string& t) {
      std::string lines, l;
      std::istringstream in(t);
      while (std::getline(in, l))
        if (l.rfind("test ", 0) == 0) lines += l + "\n";
      return lines;
    };
    CHECK(!result_lines(e1).empty());
    CHECK(result_lines(e1) == result_lines(e2));
  }
  fs::remove_all(dir);
}

TEST_CASE("mpirun refusals: a batch the ranks cannot split evenly, a program built without MPI") {
  if (!mpi_ready()) return;
  std::string dir = temp_dir(), out;
  double secs = 0;
  CHECK(sh(mpirun() + mpi_bin() + " " + tiny_args(dir + "/odd", 6, 7), &out, &secs) != 0);
  CHECK(out.find("--batch 7 is the global batch, split evenly over the 2 processes: it must be a multiple of 2") !=
        std::string::npos);
  CHECK(secs < 60);
  CHECK(sh(mpirun() + serial_bin() + " " + tiny_args(dir + "/serial", 6), &out) != 0);
  CHECK(out.find("this attnzoo was built without MPI") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a rank that fails ends the whole job promptly, with a message") {
  if (!mpi_ready()) return;
  std::string dir = temp_dir(), out;
  double secs = 0;
  int st = sh(mpirun("-x ATTNZOO_FAULT=1:3") + mpi_bin() + " " + tiny_args(dir + "/f", 100000), &out, &secs);
  INFO(out);
  CHECK(st != 0);
  CHECK(out.find("rank 1 fails at step 3") != std::string::npos);
  CHECK(out.find("rank 1 of 2 stopped on the error above; ending the whole job") != std::string::npos);
  CHECK(secs < 60);
  fs::remove_all(dir);
}

TEST_CASE("a rank that is killed ends the whole job promptly, with a message") {
  if (!mpi_ready()) return;
  std::string dir = temp_dir();
  // A tag in the ranks' environment finds them among every other process.
  std::string tag = std::to_string(getpid()) + "-" + std::to_string(uint64_t(now() * 1e6));
  std::string cmd = mpirun("-x ATTNZOO_TEST_TAG=" + tag) + mpi_bin() + " " + tiny_args(dir + "/k", 100000) + " </dev/null > " +
                    dir + "/log 2>&1";
  pid_t job = fork();
  REQUIRE(job >= 0);
  if (job == 0) {
    setpgid(0, 0);
    execl("/bin/sh", "sh", "-c", cmd.c_str(), (char*)nullptr);
    _exit(127);
  }
  // Wait until rank 0 is training (its first line), then kill rank 1.
  auto log = [&] {
    std::ifstream f(dir + "/log");
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  auto find_rank1 = [&]() -> pid_t {
    for (auto& e : fs::directory_iterator("/proc")) {
      std::string pid = e.path().filename();
      if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream f(e.path() / "environ");
      std::string env((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      if (env.find("ATTNZOO_TEST_TAG=" + tag) != std::string::npos &&
          env.find(std::string("OMPI_COMM_WORLD_RANK=1") + '\0') != std::string::npos)
        return pid_t(std::stol(pid));
    }
    return 0;
  };
  pid_t victim = 0;
  for (double t0 = now(); now() - t0 < 120 && !(victim = find_rank1()); ) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (double t0 = now(); now() - t0 < 120 && log().find("training full on listops") == std::string::npos;)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // in the middle of training
  REQUIRE(victim > 0);
  CHECK(kill(victim, SIGKILL) == 0);
  double t_kill = now();
  int st = 0;
  pid_t done = 0;
  while ((done = waitpid(job, &st, WNOHANG)) == 0 && now() - t_kill < 60)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  double took = now() - t_kill;
  if (done == 0) {  // still running: the test failed; clean up our own job
    kill(-job, SIGKILL);
    waitpid(job, &st, 0);
  }
  std::string out = log();
  INFO(out);
  MESSAGE("the job ended " << took << " s after rank 1 was killed");
  CHECK(done == job);
  CHECK(took < 30);
  CHECK((WIFEXITED(st) && WEXITSTATUS(st) != 0));
  CHECK(out.find("rank 1") != std::string::npos);
  CHECK(out.find("signal 9 (Killed)") != std::string::npos);
  fs::remove_all(dir);
}
