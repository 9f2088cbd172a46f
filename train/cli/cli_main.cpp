// attnzoo: the command-line program (train/cli/main.cpp is its main()).  Every
// command has --help; every refusal is one line on stderr and exit status 2.
// It is in the library so that a test binary can act as the program for the
// child processes of a sweep (a task defined only in the tests included).
#include <algorithm>
#include <cstdint>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>

#include "data/dataset.h"
#include "autograd/runtime/blas.h"
#include "autograd/runtime/strings.h"
#include "autograd/runtime/threads.h"
#include "train/lab/bench.h"
#include "train/cli.h"
#include "train/cli/commands.h"
#include "train/trainer.h"
#include "version.h"  // AZ_VERSION, AZ_GIT_COMMIT: written by the Makefile into the build directory

namespace az {

namespace {

const char* kUsage =
    "attnzoo: efficient self-attention, trained and compared on a CPU\n"
    "\n"
    "commands:\n"
    "  train    train a model on a task            attnzoo train --task listops --model full\n"
    "  eval     evaluate a checkpoint              attnzoo eval --ckpt runs/listops-full/best.ckpt\n"
    "  predict  classes of new inputs              attnzoo predict --ckpt runs/listops-full/best.ckpt '[MAX 2 9 ]'\n"
    "  generate text from a language model      attnzoo generate --ckpt runs/lm-full/best.ckpt --prompt 'The '\n"
    "  data     generate or prepare a data set     attnzoo data listops|text|pathfinder|fashion-mnist --out DIR\n"
    "  bench    speed and memory of one config     attnzoo bench --model local --seq-len 4096\n"
    "  bench-generate  generation tokens/s and memory against context, per causal model\n"
    "  pattern  picture of the entries computed    attnzoo pattern --model bigbird --seq-len 64 --out p.png\n"
    "  attnmap  a trained model's attention        attnzoo attnmap --ckpt runs/listops-full/best.ckpt --index 0\n"
    "  lra      every model on every task (LRA)    attnzoo lra --preset quick --out runs/lra-quick\n"
    "  recall   every model on associative recall  attnzoo recall --out runs/recall\n"
    "  plot     a run's training curves            attnzoo plot --run runs/listops-full\n"
    "  docs     one generated page per model       attnzoo docs --out docs/models\n"
    "  export   a checkpoint as safetensors        attnzoo export --ckpt runs/listops-full/best.ckpt --out m.safetensors\n"
    "  import   a safetensors file as a checkpoint attnzoo import --in m.safetensors --out m.ckpt\n"
    "  models   list the models and their settings\n"
    "\n"
    "`attnzoo COMMAND --help` describes a command's flags; `attnzoo --version` names the build.\n";

// ---- model flags, shared by train and bench ------------------------------------------
std::set<std::string> model_flag_names() {
  std::set<std::string> s;
  for (auto& f : model_flags())
    if (!f.flag.empty() && f.kind != ModelFlag::kSwitch) s.insert(f.flag);
  return s;
}

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
  for (auto& row : model_flags()) {
    if (row.flag.empty() || (row.kind != ModelFlag::kSwitch && !f.has(row.flag))) continue;
    if (row.kind == ModelFlag::kSwitch) row.set(m, f.on(row.flag) ? "1" : "0");
    else if (row.kind == ModelFlag::kInteger) row.set(m, std::to_string(f.integer(row.flag, 0)));
    else if (row.kind == ModelFlag::kFraction) row.set(m, std::to_string(f.number(row.flag, 0)));
    else row.set(m, f.str(row.flag, ""));
  }
  for (auto& k : attention_info(m.model).knobs)
    if (f.has(knob_flag(k.name))) m.knobs[k.name] = knob_value(k, f.str(knob_flag(k.name), ""));
  return m;
}

// A flag the command does not take but another task or model does gets a line
// that says so ("full has no --window (local, strided, longformer have it)").
void refuse_misplaced(const std::vector<std::string>& args, const std::set<std::string>& valid,
                      const std::string& task, const std::string& model) {
  for (auto& a : args) {
    if (a.rfind("--", 0) != 0) continue;
    std::string name = a.substr(2, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 2);
    if (valid.count(name)) continue;
    std::vector<std::string> tasks, models;
    for (auto& t : task_names())
      for (auto& o : task_info(t).options)
        if (o.name == name) tasks.push_back(t);
    for (auto& m : attention_names())
      for (auto& k : attention_info(m).knobs)
        if (knob_flag(k.name) == name) models.push_back(m);
    if (!task.empty() && !tasks.empty())
      fail("task '" + task + "' has no flag --" + name + " (" + join(tasks) + (tasks.size() > 1 ? " have it)" : " has it)"));
    if (!models.empty())
      fail("model '" + model + "' has no setting --" + name + " (" + join(models) + (models.size() > 1 ? " have it)" : " has it)"));
  }
}

std::vector<std::string> rest(int argc, char** argv, int from) { return std::vector<std::string>(argv + from, argv + argc); }

bool wants_help(const std::vector<std::string>& a) {
  for (auto& s : a)
    if (s == "--help" || s == "-h") return true;
  return false;
}

// ---- train ------------------------------------------------------------------------------
std::string option_line(const std::string& flag, const std::string& def, const std::string& range, const std::string& help) {
  char b[400];
  std::string left = "  --" + flag + (range.empty() ? "" : " " + range);
  std::snprintf(b, sizeof b, "%-34s %s%s\n", left.c_str(), help.c_str(), def.empty() ? "" : (" (default " + def + ")").c_str());
  return b;
}

}  // namespace

std::string train_help() {
  std::string h =
      "attnzoo train --task T --model M [flags]\n";
  for (auto& f : train_flags()) h += option_line(f.flag, f.def, f.range, f.help);
  h +=
      "  --resume CKPT                      continue a run (its configuration comes from the checkpoint); with a\n"
      "                                     larger --steps, a cosine schedule goes on from the rate it had reached\n"
      "                                     down to its end at the new --steps (no jump)\n"
      "  --stop-after K                     stop after step K (saving last.ckpt), e.g. to resume later\n"
      "  --force                            replace the run already in --out (refused otherwise: it names --resume)\n"
      "  Ctrl-C or SIGTERM finishes the step, saves last.ckpt, prints the resume command and exits 130/143\n"
      "  --quiet --profile --detect-anomaly no progress line; time per op; name the op whose backward made a NaN\n"
      "  --impl fast|reference              the model's fast form (fused kernels) or its reference form (the\n"
      "                                     plain composed ops in its own file): one function, tested equal\n"
      "                                     (default fast; the reference is for reading and checking, and slower)\n"
      "  --parallel auto|batch|ops          how the threads share a step: batch cuts it into shards (whole\n"
      "                                     examples; the same bits at any thread count), ops splits each large\n"
      "                                     product (bits depend on the thread count); auto: batch unless the\n"
      "                                     batch has fewer examples than threads and long rows (default auto)\n"
      "  --shards S                         batch mode cuts a batch into a shard per 1024 tokens, at least 2,\n"
      "                                     at most S (default 16) and B; the shards, not the thread count,\n"
      "                                     decide the bits\n"
      "  threads: OMP_NUM_THREADS=T in the environment (default: every core); on a machine other jobs share,\n"
      "                                     try 1: every parallel region waits for its slowest thread\n"
      "model flags (and each model's own settings: `attnzoo models`):\n";
  for (auto& f : model_flags()) {
    if (f.flag.empty()) continue;
    std::string range = f.kind == ModelFlag::kInteger ? "N" : f.kind == ModelFlag::kFraction ? "P" : f.kind == ModelFlag::kSwitch ? "" : "NAME";
    if (!f.choices.empty()) range = join(f.choices), std::replace(range.begin(), range.end(), ',', '|'), range.erase(std::remove(range.begin(), range.end(), ' '), range.end());
    h += option_line(f.flag, f.kind == ModelFlag::kSwitch || f.flag == "seq-len" ? "" : f.def, range, f.help);
  }
  h += "tasks (the default --steps is 2000, or 500 where examples are ~1K tokens):\n";
  for (auto& t : task_names()) {
    const TaskInfo& i = task_info(t);
    h += "  " + t + ": " + i.summary + " [" + name_of(i.head) + " head, " + metric_name(i.metric) + "]\n";
    if (!i.flag_defaults.empty()) {
      h += "    its defaults:";
      for (auto& [flag, value] : i.flag_defaults) h += " --" + flag + " " + value;
      TrainConfig tc;
      tc.task = t;
      h += " --steps " + std::to_string(default_steps(tc)) + "\n";
    }
    for (auto& o : i.options) {
      std::string range = !o.choices.empty() ? "" : o.kind == TaskOption::kText ? "TEXT" : "N";
      for (auto& c : o.choices) range += (range.empty() ? "" : "|") + (c.empty() ? std::string("(none)") : c);
      h += "  " + option_line(o.name, o.def.empty() ? "" : o.def, range, o.help);
    }
  }
  return h;
}

void train_config_from_flags(const Flags& f, TrainConfig& tc) {
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
}

namespace {

// One line on stderr when the thread setup would make training several times slower: threads
// bound so that they share CPUs, or all threads together computing under a quarter of what
// their count should (other jobs hold the cores; at 2 threads, under half of one thread's
// rate).  bench, which measures speed, warns below 0.6 of the count and reports the ratio.
void warn_about_threads() {
  std::string w = thread_placement_warning();
  if (w.empty()) w = thread_rate_warning(nullptr, 0.25);
  if (!w.empty()) std::fprintf(stderr, "%s\n", w.c_str());
}

int cmd_train(const std::vector<std::string>& given_args) {
  if (wants_help(given_args)) return std::printf("%s", train_help().c_str()), 0;
  std::vector<std::string> args = given_args;
  std::set<std::string> valued = {"resume", "stop-after", "impl", "parallel", "shards"};
  for (auto& row : train_flags()) valued.insert(row.flag);
  for (auto& f : model_flag_names()) valued.insert(f);
  std::string model = Flags::peek(args, "model", "full");
  TrainConfig tc;
  tc.task = Flags::peek(args, "task", tc.task);
  const TaskInfo& task = task_info(tc.task);
  if (Flags::peek(args, "resume", "").empty())  // the task's own defaults, where no flag is given
    for (auto& [flag, value] : task.flag_defaults)
      if (Flags::peek(args, flag, "\x01") == "\x01") args.push_back("--" + flag), args.push_back(value);
  std::set<std::string> task_flags;
  for (auto& o : task.options) task_flags.insert(o.name);
  std::set<std::string> all = valued, switches = {"profile", "quiet", "causal", "detect-anomaly", "force"};
  all.insert(task_flags.begin(), task_flags.end());
  all.insert(switches.begin(), switches.end());
  std::set<std::string> knobs = knob_flags(model);
  all.insert(knobs.begin(), knobs.end());
  refuse_misplaced(args, all, tc.task, model);
  valued.insert(task_flags.begin(), task_flags.end());
  Flags f("train", args, valued, switches, knobs);
  tc.data = f.str("data", "");
  for (auto& o : task.options)
    if (f.has(o.name)) tc.task_args[o.name] = f.str(o.name, "");
  task_settings(tc);  // every task flag checked before anything runs
  train_config_from_flags(f, tc);
  RunOptions ro;
  ro.resume = f.str("resume", "");
  ro.stop_after = f.integer("stop-after", 0);
  if (ro.stop_after < 0) fail("train: --stop-after must not be negative");
  ro.profile = f.on("profile");
  ro.quiet = f.on("quiet");
  ro.protect_run_dir = true;
  ro.force = f.on("force");
  Anomaly::enabled = f.on("detect-anomaly");
  f.apply_impl();
  for (auto& [name, value] : f.values()) ro.given[name] = value;  // --resume refuses those it would ignore
  if (!ro.resume.empty() && !f.has("steps")) tc.steps = 0;  // keep the checkpoint's
  if (ro.resume.empty() && !f.has("steps")) tc.steps = default_steps(tc);
  ModelConfig mc = model_from_flags(f, ModelConfig());
  if (f.has("seq-len")) ro.seq_len = mc.max_len;  // else the task decides
  Trainer t(tc, mc, ro);
  warn_about_threads();
  RunResult r = t.run();
  const std::string& dir = t.out();  // a resumed run's folder is its checkpoint's, not the flags' default
  if (r.signal) {
    std::fprintf(stderr, "interrupted by %s after step %lld: saved %s/last.ckpt; resume with attnzoo train --resume %s/last.ckpt\n",
                 r.signal == SIGINT ? "SIGINT" : "SIGTERM", (long long)r.steps_done, dir.c_str(), dir.c_str());
    return 128 + r.signal;
  }
  if (r.stopped_early) {
    std::printf("stopped after step %lld; resume with --resume %s/last.ckpt\n", (long long)r.steps_done, dir.c_str());
    return 0;
  }
  if (task.metric == Metric::kBitsPerByte)
    std::printf("test bits per byte %.4f%s, best validation %.4f at step %lld, %.1f s of training\n",
                r.test_loss / std::log(2.0), t.data().note_test.c_str(), -r.best_val, (long long)r.best_step, r.seconds);
  else
    std::printf("test accuracy %.4f (majority class %.4f), best validation %.4f at step %lld, %.1f s of training\n",
                r.test_accuracy, r.majority_rate, r.best_val, (long long)r.best_step, r.seconds);
  return 0;
}

// ---- eval -------------------------------------------------------------------------------
int cmd_eval(const std::vector<std::string>& args) {
  if (wants_help(args))
    return std::printf("attnzoo eval --ckpt CKPT [--split test|val|train] [--data PATH] [--impl fast|reference]\n"
                       "             [--parallel auto|batch|ops] [--profile]\n"
                       "  evaluates a checkpoint; model, task and data come from the checkpoint; --impl: the\n"
                       "  model's fast form (default) or its reference form, either whichever trained it\n"), 0;
  Flags f("eval", args, {"ckpt", "split", "data", "impl", "parallel"}, {"profile"});
  f.apply_impl();
  Profiler::enabled = f.on("profile");
  if (!f.has("ckpt")) fail("eval: --ckpt CKPT is required");
  std::string split = f.str("split", "test");
  EvalResult r = evaluate_checkpoint(f.str("ckpt", ""), split, f.str("data", ""));
  if (f.on("profile")) std::fprintf(stderr, "%s", Profiler::table().c_str()), Profiler::enabled = false;
  if (task_info(TrainConfig::from_map(load_checkpoint(f.str("ckpt", "")).train_config).task).metric == Metric::kBitsPerByte)
    return std::printf("%s bits per byte %.4f over %lld predicted bytes\n", split.c_str(), r.loss / std::log(2.0),
                       (long long)r.examples), 0;
  std::printf("%s accuracy %.4f, loss %.4f over %lld examples\n", split.c_str(), r.accuracy, r.loss,
              (long long)r.examples);
  return 0;
}

// ---- data: each task's own `attnzoo data NAME` ---------------------------------------------
int cmd_data(const std::vector<std::string>& all) {
  std::string help, valid;
  for (auto& t : task_names()) {
    const TaskInfo& i = task_info(t);
    if (!i.cli.data_command) continue;
    help += i.cli.data_help;
    valid += (valid.empty() ? "" : ", ") + i.cli.data_name;
  }
  if (all.empty() || wants_help(all)) return std::printf("%s", help.c_str()), all.empty() ? 2 : 0;
  std::vector<std::string> args(all.begin() + 1, all.end());
  for (auto& t : task_names()) {
    const TaskInfo& i = task_info(t);
    if (i.cli.data_command && i.cli.data_name == all[0]) return i.cli.data_command(args);
  }
  fail("data: unknown data set '" + all[0] + "' (valid: " + valid + ")");
}

// ---- bench ------------------------------------------------------------------------------
int cmd_bench(const std::vector<std::string>& args) {
  if (wants_help(args))
    return std::printf("attnzoo bench --model M --seq-len N --batch B --dim D --heads H --layers L --ffn F --steps S\n"
                       "              [--warmup W] [--profile] [--impl fast|reference] [--parallel auto|batch|ops]\n"
                       "              [--shards S] [the model's own settings]\n"
                       "  trains S timed AdamW steps on random tokens (vocabulary 256, 10 classes) and prints one\n"
                       "  JSON line: steps/s, tokens/s, peak memory, matmul GFLOP per step, and mfu against\n"
                       "  the sgemm rate measured in the same run\n"), 0;
  std::set<std::string> valued = model_flag_names();
  valued.insert({"batch", "steps", "warmup", "impl", "parallel", "shards"});
  std::string model = Flags::peek(args, "model", "full");
  std::set<std::string> all = valued, knobs = knob_flags(model);
  all.insert(knobs.begin(), knobs.end());
  all.insert({"profile", "causal"});
  refuse_misplaced(args, all, "", model);
  Flags f("bench", args, valued, {"profile", "causal"}, knobs);
  f.apply_impl();
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
  check_batch_tokens(bc.batch, bc.model.max_len);
  bc.model.vocab = 257, bc.model.num_classes = 10;  // run_bench's random tokens and labels
  bc.model.validate();  // as train's model: every flag, though run_bench then trains without dropout
  BenchResult r = run_bench(bc);
  if (!r.thread_warning.empty()) std::fprintf(stderr, "%s\n", r.thread_warning.c_str());
  if (bc.profile) std::fprintf(stderr, "%s", Profiler::table().c_str());
  std::printf("%s\n", r.json.c_str());
  return 0;
}

// ---- models -----------------------------------------------------------------------------
int cmd_models(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::printf("attnzoo models: lists every model with its settings\n"), 0;
  Flags("models", args, {}, {});
  std::printf("Every model has two forms, one function: fast (fused kernels, the default) and reference\n"
              "(composed ops in the model's own file); choose with --impl fast|reference\n");
  for (auto& name : attention_names()) {
    const AttentionInfo& i = attention_info(name);
    std::printf("%-12s %-15s %s%s\n", name.c_str(), i.family.c_str(), i.summary.c_str(), i.causal_ok ? " [causal]" : "");
    for (auto& k : i.knobs)
      std::printf("%-28s --%s %.15g (%.15g..%.15g%s): %s\n", "", knob_flag(k.name).c_str(), k.def, k.lo, k.hi,
                  k.choices.empty() ? "" : (" or " + join(k.choices, "|")).c_str(),
                  k.help.c_str());  // whole numbers in full: 1..1048576, not 1..1.04858e+06
  }
  return 0;
}

}  // namespace

int cli_main(int argc, char** argv) {
  if (argc >= 2 && !std::strcmp(argv[1], "--version")) {
    std::printf("attnzoo %s (git %s)\n", AZ_VERSION, AZ_GIT_COMMIT);
    return 0;
  }
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::printf("%s", kUsage);
    return argc < 2 ? 2 : 0;
  }
  std::string cmd = argv[1];
  auto args = rest(argc, argv, 2);
  // the commands whose speed is the point say so when OpenBLAS's threads would fight ours
  for (const char* c : {"train", "bench", "lra", "recall", "bench-generate"})
    if (cmd == c) {
      std::string note = blas_threading_notice();
      if (!note.empty()) std::fprintf(stderr, "%s\n", note.c_str());
    }
  try {
    if (cmd == "train") return cmd_train(args);
    if (cmd == "eval") return cmd_eval(args);
    if (cmd == "data") return cmd_data(args);
    if (cmd == "bench") return cmd_bench(args);
    if (cmd == "models") return cmd_models(args);
    if (cmd == "pattern") return cmd_pattern(args);
    if (cmd == "attnmap") return cmd_attnmap(args);
    if (cmd == "lra") return cmd_lra(args);
    if (cmd == "recall") return cmd_recall(args);
    if (cmd == "plot") return cmd_plot(args);
    if (cmd == "docs") return cmd_docs(args);
    if (cmd == "export") return cmd_export(args);
    if (cmd == "predict") return cmd_predict(args);
    if (cmd == "import") return cmd_import(args);
    if (cmd == "generate") return cmd_generate(args);
    if (cmd == "bench-generate") return cmd_bench_generate(args);
    std::vector<std::string> commands = {"train", "eval", "data", "bench", "pattern", "attnmap", "lra", "recall", "plot", "docs",
                                         "export", "import", "predict", "models", "generate", "bench-generate"};
    std::fprintf(stderr, "attnzoo: unknown command '%s'%s (valid: train, eval, predict, data, bench, pattern, attnmap, lra, recall, plot, docs, export, import, models, generate, bench-generate)\n",
                 cmd.c_str(), did_you_mean(cmd, commands).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnzoo %s: %s\n", cmd.c_str(), e.what());
    return 2;
  }
}

}  // namespace az
