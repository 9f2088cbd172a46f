// Runs that are never lost or overwritten: Ctrl-C and SIGTERM save last.ckpt
// and print the resume command; a fresh run refuses a directory that holds
// one; --resume says where it starts, refuses what it would ignore, and keeps
// a cosine schedule continuous when --steps grows.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "autograd/runtime/strings.h"
#include "autograd/tensor.h"
#include "nn/optim.h"
#include "data/images/image_folder.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "tests/util.h"

using namespace az;
namespace fs = std::filesystem;
using az::test::contains;
using az::test::TempDir;

namespace {

using az::test::attnzoo_bin;
int run(const std::string& args, std::string* out) { return az::test::run_cli(args, out); }

const char* kTiny = " --dim 16 --heads 2 --layers 1 --ffn 16 --batch 8 --quiet";

}  // namespace

TEST_CASE("SIGINT and SIGTERM finish the step, save last.ckpt, print the resume command, exit 130/143") {
  for (int sig : {SIGINT, SIGTERM}) {
    CAPTURE(sig);
    TempDir dir("az_runs_sig");
    std::string out = dir / "run", log = dir / "log";
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      FILE* f = freopen(log.c_str(), "w", stderr);
      (void)f;
      az::test::exec_attnzoo("train", "--steps", "1000000", "--eval-every", "1000000", "--dim", "16", "--heads", "2", "--layers", "1",
                   "--ffn", "16", "--batch", "8", "--quiet", "--out", out.c_str());
    }
    // wait until it trains (its metrics file appears at the first --log-every), then signal it
    for (int i = 0; i < 600 * az::test::slowdown() && !fs::exists(out + "/metrics.jsonl"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    REQUIRE(fs::exists(out + "/metrics.jsonl"));
    kill(pid, sig);
    int st = 0;
    waitpid(pid, &st, 0);
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 128 + sig);
    Checkpoint c = load_checkpoint(out + "/last.ckpt");  // before any validation: saved all the same
    CHECK(c.step >= 50);
    std::string text;
    FILE* f = fopen(log.c_str(), "r");
    char buf[512];
    while (f && fgets(buf, sizeof buf, f)) text += buf;
    if (f) fclose(f);
    CHECK(contains(text, sig == SIGINT ? "interrupted by SIGINT after step " : "interrupted by SIGTERM after step "));
    CHECK(contains(text, "resume with attnzoo train --resume " + out + "/last.ckpt"));
    // and it resumes from there
    std::string res;
    CHECK(run("train --resume " + out + "/last.ckpt --steps " + std::to_string(c.step + 4), &res) == 0);
    CHECK(contains(res, "resuming from step " + std::to_string(c.step) + " of " + out + "/last.ckpt"));
  }
}

TEST_CASE("a fresh run refuses a directory holding one, names --resume and --force; --force replaces it") {
  TempDir dir("az_runs_dir");
  std::string out = dir / "run", msg;
  REQUIRE(run("train --steps 4 --eval-every 4" + std::string(kTiny) + " --out " + out, &msg) == 0);
  CHECK(run("train --steps 4 --eval-every 4" + std::string(kTiny) + " --out " + out, &msg) == 2);
  CHECK(contains(msg, "run directory " + out + " already holds a run (metrics.jsonl, best.ckpt, last.ckpt)"));
  CHECK(contains(msg, "--resume " + out + "/last.ckpt"));
  CHECK(contains(msg, "--force"));
  REQUIRE(run("train --steps 6 --eval-every 6 --log-every 2" + std::string(kTiny) + " --out " + out + " --force", &msg) == 0);
  // metrics.jsonl holds one run: steps 2, 4, 6 once each
  int lines = 0;
  std::ifstream in(out + "/metrics.jsonl");
  for (std::string row; std::getline(in, row);) lines += contains(row, "\"train_acc\"");
  CHECK(lines == 3);
}

TEST_CASE("--resume says where it starts, refuses flags it would ignore and a --steps already reached") {
  TempDir dir("az_runs_resume");
  std::string out = dir / "run", msg;
  REQUIRE(run("train --steps 8 --eval-every 4" + std::string(kTiny) + " --out " + out, &msg) == 0);
  CHECK(run("train --resume " + out + "/last.ckpt --steps 6", &msg) == 2);
  CHECK(contains(msg, "--steps 6 is not beyond step 8 of " + out + "/last.ckpt"));
  CHECK(run("train --resume " + out + "/last.ckpt --steps 12 --dim 64", &msg) == 2);
  CHECK(contains(msg, "--dim cannot change on --resume"));
  CHECK(run("train --resume " + out + "/last.ckpt", &msg) == 2);  // a finished run, and no --steps
  CHECK(contains(msg, "--steps 8 is not beyond step 8"));
}

TEST_CASE("extending a cosine run goes on from the rate it reached, without a jump, to the new end") {
  Schedule old;
  old.kind = Schedule::kCosine, old.base_lr = 1e-3f, old.warmup = 10, old.total = 100;
  Schedule ext = old;
  ext.total = 300, ext.from_step = 60, ext.from_lr = old.lr(60);
  // (steps up to from_step were trained under the old schedule; the new one starts after it)
  CHECK(ext.lr(61) == doctest::Approx(old.lr(60)).epsilon(1e-3));      // no jump after it
  CHECK(ext.lr(61) < ext.from_lr);
  CHECK(ext.lr(300) == doctest::Approx(0.0f).epsilon(1e-7));           // the end of the new schedule
  for (int64_t s = 61; s < 300; ++s) CHECK(ext.lr(s + 1) <= ext.lr(s));  // and down all the way
  // recomputing the cosine for the new total instead would jump up
  Schedule naive = old;
  naive.total = 300;
  CHECK(naive.lr(61) > 1.5 * old.lr(60));
  // saved in the run's configuration, so a second resume keeps it
  TrainConfig t;
  t.schedule_from = 60, t.schedule_from_lr = 4e-4f;
  TrainConfig back = TrainConfig::from_map(t.to_map());
  CHECK(back.schedule_from == 60);
  CHECK(back.schedule_from_lr == 4e-4f);
}

TEST_CASE("help: --version names the commit; misspelt commands, flags, models and tasks get a guess") {
  std::string msg;
  CHECK(run("--version", &msg) == 0);
  CHECK(contains(msg, "attnzoo 0.1 (git "));
  CHECK(run("trian", &msg) == 2);
  CHECK(contains(msg, "unknown command 'trian' (did you mean train?)"));
  CHECK(run("train --stpes 3", &msg) == 2);
  CHECK(contains(msg, "unknown flag --stpes (did you mean --steps?)"));
  CHECK(run("train --model loacl", &msg) == 2);
  CHECK(contains(msg, "unknown model 'loacl' (did you mean local?)"));
  CHECK(run("train --task listop", &msg) == 2);
  CHECK(contains(msg, "unknown task 'listop' (did you mean listops?)"));
  CHECK(run("train --model full --window 8", &msg) == 2);
  CHECK(contains(msg, "model 'full' has no setting --window (local, longformer, routing, strided have it)"));
  CHECK(run("train --help", &msg) == 0);
  for (const char* s : {"--dim N", "(default 64)", "--quiet", "--force", "--lr X", "(default 0.001)", "retrieval:", "--style lra|cut"})
    CHECK_MESSAGE(contains(msg, s), s);
  CHECK(did_you_mean("zzzz", {"train", "eval"}).empty());  // nothing close: no guess
}

TEST_CASE("predict: top classes with names and probabilities for new inputs of each kind; bad inputs refused") {
  TempDir dir("az_runs_predict");
  std::string msg;
  REQUIRE(run("train --steps 20 --eval-every 20" + std::string(kTiny) + " --out " + dir / "lo", &msg) == 0);
  CHECK(run("predict --ckpt " + dir / "lo/best.ckpt --top 10 --json '[MAX 2 9 [MIN 4 7 ] 0 ]' '[SM 3 5 ]'", &msg) == 0);
  std::istringstream lines(msg);
  int objects = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("{\"input\"", 0) != 0) continue;
    ++objects;
    double total = 0;
    for (size_t at = line.find("\"p\":"); at != std::string::npos; at = line.find("\"p\":", at + 1))
      total += std::stod(line.substr(at + 4));
    CHECK(total == doctest::Approx(1.0).epsilon(1e-6));  // all ten classes listed
    for (int c = 0; c < 10; ++c) CHECK(contains(line, "{\"class\":\"" + std::to_string(c) + "\""));
  }
  CHECK(objects == 2);
  CHECK(run("predict --ckpt " + dir / "lo/best.ckpt '[MAX 2 x ]'", &msg) == 2);
  CHECK(contains(msg, "unknown token 'x'"));
  CHECK(run("predict --ckpt " + dir / "lo/best.ckpt", &msg) == 2);  // stdin is empty here
  CHECK(contains(msg, "no inputs"));

  // an image folder: class names come from the folders, a wrong-size image is refused
  for (const char* cls : {"circle", "square"})
    for (int i = 0; i < 6; ++i) {
      fs::create_directories(dir / ("img/" + std::string(cls)));
      std::vector<uint8_t> px(16, uint8_t(cls[0] == 'c' ? 20 * i : 255 - 20 * i));
      write_png(dir / ("img/" + std::string(cls) + "/" + std::to_string(i) + ".png"), px.data(), 4, 4, 1);
    }
  std::vector<uint8_t> big(25, 7);
  write_png(dir / "big.png", big.data(), 5, 5, 1);
  REQUIRE(run("train --task image-folder --data " + dir / "img" + " --steps 4 --eval-every 4" + std::string(kTiny) +
                  " --out " + dir / "if",
              &msg) == 0);
  CHECK(run("predict --ckpt " + dir / "if/best.ckpt " + dir / "img/circle/0.png", &msg) == 0);
  CHECK((contains(msg, ".png: circle 0.") || contains(msg, ".png: square 0.")));
  CHECK(run("predict --ckpt " + dir / "if/best.ckpt " + dir / "big.png", &msg) == 2);
  CHECK(contains(msg, "big.png is 5x5, the model reads 4x4 images"));
}

TEST_CASE("a run that diverges before its first checkpoint says none was saved; ranges print in full") {
  TempDir dir("az_runs_diverge");
  std::string msg;
  CHECK(run("train --lr 1e9 --steps 50 --eval-every 50" + std::string(kTiny) + " --out " + dir / "r", &msg) == 2);
  CHECK(contains(msg, "training diverged at step"));
  CHECK(contains(msg, "no checkpoint was saved yet"));
  CHECK(!contains(msg, "the last good checkpoint is kept"));
  CHECK(run("models", &msg) == 0);
  CHECK(contains(msg, "--window 64 (1..1048576)"));
  CHECK(!contains(msg, "e+06"));
}
