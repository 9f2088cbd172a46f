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
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "autograd/runtime/strings.h"
#include "autograd/tensor.h"
#include "nn/optim.h"
#include "data/images/image_folder.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "tests/stand_in_az.h"
#include "tests/util.h"

using namespace az;
namespace fs = std::filesystem;
using az::test::contains;
using az::test::TempDir;

namespace {

using az::test::attnzoo_bin;
int run(const std::string& args, std::string* out) { return az::test::run_cli(args, out); }

const char* kTiny = " --dim 16 --heads 2 --layers 1 --ffn 16 --batch 8 --quiet";
std::string slurp_file(const std::string& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

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

// Issue 76, bug 15: bench/pathfinder_lra.sh lost `--clip 0` for a fresh run, so train's default
// clip of 1 applied where LRA has none, and the test read only the script's `args` line for the
// flags of each model.  Here every mode runs with AZ set to a stand-in that records the command
// line it is given, and each is held to LRA's Pathfinder-32 config, written out by hand from
// lra_benchmarks/image/configs/pathfinder32/ (base_pathfinder32_config.py and MODEL_base.py).
TEST_CASE("bench/pathfinder_lra.sh: the command lines of a fresh run, a resumed one, a fresh machine and publish are LRA's config") {
  const char* s = std::getenv("ATTNZOO_SRC");
  const std::string root = fs::absolute(s ? s : ".").string(), script = root + "/bench/pathfinder_lra.sh";
  TempDir t("az_pflra");
  // the stand-in attnzoo (tests/stand_in_az.h): it records each command line it is given; eval
  // prints eval's line, plot writes the three curve files
  using Flags = az::test::Flags;  // --flag -> its value ("" for a switch)
  using Call = az::test::AzCall;  // {OMP_NUM_THREADS, subcommand, flags}
  const az::test::StandInAz stand_in(t.path, "test accuracy 0.625, loss 0.66 over 20000 examples");
  const std::string az = stand_in.path;
  auto calls = [&] { return stand_in.calls(); };  // the calls recorded since the last look
  // LRA's base recipe: mean pooling, fixed sinusoidal positions; batch 512, Adam at 1e-3, no weight
  // decay, no clipping; one epoch (160,000 / 512 = 312.5 steps) of linear warm-up, then cosine decay
  // over 200 epochs (62,500 steps); Pathfinder-32 at 14 dashes, LRA's labelling, 160,000 / 20,000 /
  // 20,000 images; and ours: validation and logs every epoch, seed 1, no baselines, 4x4 patches
  const Flags base = {{"task", "pathfinder"}, {"style", "lra"}, {"difficulty", "14"}, {"input", "patches"}, {"patch", "4"},
                      {"n", "200000"}, {"baselines", "0"}, {"pool", "mean"}, {"positions", "sinusoidal"}, {"batch", "512"},
                      {"lr", "0.001"}, {"weight-decay", "0"}, {"clip", "0"}, {"warmup", "313"}, {"schedule", "cosine"},
                      {"steps", "62500"}, {"eval-every", "313"}, {"log-every", "313"}, {"seed", "1"}, {"quiet", ""}};
  // each model's own file: layers, heads, width, MLP, dropout (and local's window in tokens)
  const std::map<std::string, Flags> own = {
      {"full", {{"model", "full"}, {"layers", "1"}, {"heads", "4"}, {"dim", "128"}, {"ffn", "128"}, {"dropout", "0.2"}}},
      {"full-2x2", {{"model", "full"}, {"layers", "1"}, {"heads", "4"}, {"dim", "128"}, {"ffn", "128"}, {"dropout", "0.2"}, {"patch", "2"}}},
      {"local", {{"model", "local"}, {"layers", "2"}, {"heads", "4"}, {"dim", "64"}, {"ffn", "64"}, {"dropout", "0.1"}, {"window", "2"}, {"block", "8"}}},
      {"linear", {{"model", "linear"}, {"layers", "1"}, {"heads", "2"}, {"dim", "128"}, {"ffn", "128"}, {"dropout", "0.2"}}},
      {"performer", {{"model", "performer"}, {"layers", "4"}, {"heads", "8"}, {"dim", "32"}, {"ffn", "32"}, {"dropout", "0.2"}}}};
  // numbers compare as numbers (1e-3 is 0.001), the rest as text
  auto same = [](const Flags& got, const Flags& want) { return az::test::flag_diff(got, want); };
  auto sh = [&](const std::string& dir, const std::string& args, std::string* out = nullptr) {
    return az::test::run_shell("cd " + dir + " && env -u OMP_NUM_THREADS AZ=" + az + " bash " + script + " " + args + " 2>&1", out);
  };
  std::string out;
  for (const auto& [model, flags] : own) {
    CAPTURE(model);
    Flags want = base;
    for (auto& [k, v] : flags) want[k] = v;
    // a fresh run (no last.ckpt in OUT, none committed under the working folder's docs/), 5 steps at a time
    const std::string fresh = t / ("fresh-" + model);
    fs::create_directories(fresh);
    REQUIRE_MESSAGE(sh(fresh, model + " " + fresh + "/out 5", &out) == 0, out);
    std::vector<Call> c = calls();
    REQUIRE(c.size() == 1);
    CHECK(c[0].sub == "train");
    CHECK(c[0].omp == "OMP_NUM_THREADS=1");
    Flags w = want;
    w["out"] = fresh + "/out", w["stop-after"] = "5";
    CHECK_MESSAGE(same(c[0].flags, w).empty(), same(c[0].flags, w));
    // `args`: the same command line, printed
    REQUIRE(sh(fresh, model + " " + fresh + "/out args", &out) == 0);
    std::istringstream words(out);
    std::string word;
    words >> word;
    CHECK(word == az);
    words >> word;
    CHECK(word == "train");
    Flags printed;
    for (std::string prev; words >> word; prev = word)
      if (word.rfind("--", 0) == 0) printed[word.substr(2)] = "";
      else printed[prev.substr(2)] = word;
    w.erase("stop-after");
    CHECK_MESSAGE(same(printed, w).empty(), same(printed, w));
  }
  // a resumed run: the checkpoint holds LRA's config (test_docs reads the committed runs'); the
  // command line overrides nothing but the end, LRA's 62,500 steps
  const std::string resumed = t / "resumed";
  fs::create_directories(resumed + "/out");
  std::ofstream(resumed + "/out/last.ckpt") << "ckpt";
  REQUIRE_MESSAGE(sh(resumed, "local " + resumed + "/out 700", &out) == 0, out);
  std::vector<Call> c = calls();
  REQUIRE(c.size() == 1);
  CHECK(c[0].sub == "train");
  CHECK(c[0].omp == "OMP_NUM_THREADS=1");
  const Flags resume = {{"resume", resumed + "/out/last.ckpt"}, {"steps", "62500"}, {"quiet", ""}, {"stop-after", "700"}};
  CHECK_MESSAGE(same(c[0].flags, resume).empty(), same(c[0].flags, resume));
  // a fresh machine: no last.ckpt in OUT, but a committed run: copied into OUT, and resumed from there
  const std::string machine = t / "machine";
  fs::create_directories(machine + "/docs/pathfinder-lra/full");
  for (const char* f : {"last.ckpt", "best.ckpt", "metrics.jsonl", "config.json"})
    std::ofstream(machine + "/docs/pathfinder-lra/full/" + f) << f;
  REQUIRE_MESSAGE(sh(machine, "full " + machine + "/out 0", &out) == 0, out);
  CHECK(contains(out, "copying the committed run from docs/pathfinder-lra/full/"));
  c = calls();
  REQUIRE(c.size() == 1);
  const Flags from_saved = {{"resume", machine + "/out/last.ckpt"}, {"steps", "62500"}, {"quiet", ""}};
  CHECK_MESSAGE(same(c[0].flags, from_saved).empty(), same(c[0].flags, from_saved));
  for (const char* f : {"last.ckpt", "best.ckpt", "metrics.jsonl", "config.json"}) CHECK(fs::exists(machine + "/out/" + f));
  // publish: tests best.ckpt on the test split (where test.txt is missing or names another
  // checkpoint), draws the curve against images seen with the markers' kNN and chance, copies
  // the records and writes the tables; it trains nothing
  const std::string pub = t / "publish", o = pub + "/out";
  fs::create_directories(o);
  fs::create_directories(pub + "/docs");
  std::ofstream(pub + "/docs/pathfinder-lra.md") << "# p\n\n### full\n\n| old |\n\n## The runs at equal images seen\n\n| old |\n";
  std::ofstream(pub + "/docs/lra.md") << "**Pathfinder-32, 4x4 patches, LRA's recipe**\n\n| old |\n";
  std::ofstream(o + "/metrics.jsonl") << "{\"step\":313,\"cpu_seconds\":10,\"val_acc\":0.5,\"val_loss\":0.69314}\n"
                                         "{\"step\":626,\"cpu_seconds\":20,\"val_acc\":0.55,\"val_loss\":0.68}\n";
  for (const char* f : {"last.ckpt", "best.ckpt", "config.json"}) std::ofstream(o + "/" + f) << f;
  const Flags curve = {{"run", o}, {"x", "examples"}, {"log-x", ""}, {"acc-range", "0.45:0.8"}, {"levels", "0.67=markers' kNN (67%),0.5=chance"}};
  const Flags test = {{"ckpt", o + "/best.ckpt"}, {"split", "test"}};
  for (const char* state : {"no test.txt", "test.txt of this best.ckpt", "best.ckpt changed since test.txt"}) {
    CAPTURE(state);
    if (std::string(state) == "best.ckpt changed since test.txt") std::ofstream(o + "/best.ckpt") << "a better one";
    REQUIRE_MESSAGE(sh(pub, "full " + o + " publish", &out) == 0, out);
    c = calls();
    const bool retest = std::string(state) != "test.txt of this best.ckpt";
    REQUIRE(c.size() == (retest ? 2u : 1u));
    if (retest) {
      CHECK(c[0].sub == "eval");
      CHECK(c[0].omp == "OMP_NUM_THREADS=1");
      CHECK_MESSAGE(same(c[0].flags, test).empty(), same(c[0].flags, test));
    }
    CHECK(c.back().sub == "plot");
    CHECK_MESSAGE(same(c.back().flags, curve).empty(), same(c.back().flags, curve));
    std::string sha;
    REQUIRE(az::test::run_shell("sha1sum " + o + "/best.ckpt | cut -c1-40", &sha) == 0);
    CHECK(slurp_file(pub + "/docs/pathfinder-lra/full/test.txt") ==
          "best.ckpt sha1 " + sha.substr(0, 40) + "\ntest accuracy 0.625, loss 0.66 over 20000 examples\n");
    for (const char* f : {"metrics.jsonl", "last.ckpt", "best.ckpt", "config.json", "curves.gp", "curves.png", "curves.svg"})
      CHECK(fs::exists(pub + "/docs/pathfinder-lra/full/" + f));
    CHECK(contains(slurp_file(pub + "/docs/pathfinder-lra.md"), "### full\n\n| images seen | step | validation accuracy | validation loss |\n"
                                                                "|---:|---:|---:|---:|\n| 160,256 | 313 | 0.500 | 0.6931 |\n"));
  }
}
