// attnzoo lra: presets, data, the sweep of child processes (see lra.h).
// The report (results.md and the chart) is in lra_report.cpp.
#include "train/lab/lra.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "attention/attention.h"
#include "autograd/runtime/strings.h"
#include "train/lab/bench.h"
#include "train/checkpoint.h"
#include "train/cli.h"
#include "train/tasks.h"
#include "train/trainer.h"  // InterruptGuard

namespace az {

namespace fs = std::filesystem;

// ---- the presets ----------------------------------------------------------------------------
//
// One row per task; every model gets the same row.  Times are for an idle
// 2-core machine; the slowest models (full attention at 1K tokens, Reformer's
// four hash rounds) set the pace, the linear ones take a fraction of it.
//
//  quick: a smoke test of the whole pipeline, ~20 models x 4 tasks + the bench in
//         a few minutes (2 min 20 s measured on the idle 2-core machine, data cached):
//         about a second per cell, so tiny models (1 layer, dim 32) and a
//         few dozen steps; the accuracies are near chance and mean nothing.
//  mini:  the README's table, every model, three seeds per cell: 9.0 CPU-hours measured
//         for the README's nine models on LRA's five tasks (135 cells), so about 20
//         CPU-minutes per model and seed (full attention's ListOps cell, 1000 tokens, is
//         the slowest: ~17 CPU-minutes).  Two more columns: Recall (train/tasks/mqar.cpp's
//         row) and LM, bits per byte on fortunes for the models with a causal form (4.9
//         CPU-minutes for full attention's cell on one thread, train/tasks/lm.cpp).
//         Sequences are LRA's shape at CPU scale (ListOps 250-1000 tokens at LRA's depth
//         and arity, so a 64-token window does not see the expression; 1K bytes of text
//         and of each Retrieval document, 784 pixels, 32x32 Pathfinder in LRA's style),
//         test sets of 2000 (binomial error ~1 point), and a budget just enough for full
//         attention to beat chance on ListOps, Text, Retrieval and Image.  Pathfinder
//         stays at chance for every model at this budget (LRA trains ~200 epochs).
//  full:  LRA's sequence lengths (ListOps 500-2000 tokens at depth 10, 4K bytes of
//         text and of each Retrieval document, all of Fashion-MNIST, Pathfinder-32
//         in LRA's style) with models and budgets cut so that one seed of the nine
//         README models costs 9.5 CPU-hours, projected cell by cell (full attention
//         half of it, its Retrieval cell 2.5 CPU-hours and 12.4 GB; docs/lra/
//         full-projection/): LRA trained 4-layer, 256-512 wide models for 5K-50K
//         steps on TPUs, which a CPU cannot; our numbers are what a CPU-night buys.
//  tiny:  for the tests: a handful of steps on a few dozen examples; seconds.
const std::vector<LraPreset>& lra_presets() {
  // The task rows of each preset are in the task files (train/tasks/*.cpp, TaskLra::rows).
  static const std::vector<LraPreset> presets = {
      {"quick", "smoke test of the pipeline (a few minutes on 2 cores; accuracies mean nothing)",
       // 1 sequence, 1 layer: full attention's 4K x 4K scores fit in ~0.5 GB
       {{1024, 2048, 4096}, 1, 64, 2, 1, 128, 2, 1},
       900},  // cell timeouts only catch hangs: several times the expected time on a busy machine
      {"mini",
       "the README's table, every model, three seeds: LRA's five tasks (full attention beats chance on ListOps, Text, Retrieval, Image; Pathfinder stays at chance; ~20 CPU-minutes per model and seed), Recall, and LM in bits per byte for the models with a causal form (~5 CPU-minutes a cell)",
       // LRA measured on byte-level text, batch 32, on a TPU; batch 2, 2 layers here
       {{1024, 2048, 4096}, 2, 64, 4, 2, 128, 3, 1},
       3 * 3600,
       3},  // three seeds: the spread tells which differences are real
      {"full", "LRA's sequence lengths, two seeds: 19 CPU-hours for nine models, projected (docs/lra/full-projection)",
       {{1024, 2048, 4096}, 2, 128, 4, 2, 256, 3, 1},
       12 * 3600,
       2},
      {"tiny", "for the tests: a handful of steps on a few dozen examples (seconds)",
       {{64, 128, 256}, 1, 8, 2, 1, 16, 1, 0},
       120,
       1,
       true},
  };
  return presets;
}

const LraPreset& lra_preset(const std::string& name) {
  std::string valid;
  for (auto& p : lra_presets()) {
    if (p.name == name) return p;
    if (!p.hidden) valid += (valid.empty() ? "" : ", ") + p.name;
  }
  fail("lra: unknown preset '" + name + "' (valid: " + valid + ")");
}

std::vector<LraTask> lra_tasks(const LraPreset& p) {
  std::vector<LraTask> v;
  for (auto& name : task_names()) {
    const TaskLra& l = task_info(name).lra;
    auto it = l.rows.find(p.name);
    if (it == l.rows.end()) continue;
    LraTask t;
    static_cast<LraRow&>(t) = it->second;
    t.name = name;
    v.push_back(t);
  }
  std::stable_sort(v.begin(), v.end(), [](const LraTask& a, const LraTask& b) {
    return task_info(a.name).lra.order < task_info(b.name).lra.order;
  });
  return v;
}

std::vector<std::string> lra_task_names(const LraPreset& p) {
  std::vector<std::string> n;
  for (auto& t : lra_tasks(p)) n.push_back(t.name);
  return n;
}

// ---- data ---------------------------------------------------------------------------------
// Each task's data is written once per sweep to DIR/data/TASK by a child
// (`attnzoo lra --prepare TASK`), so this process never holds a data set: a
// forked child's peak memory would otherwise start at ours.

namespace {

const char* kStamp = "/lra-data.txt";

// The task's data as its cells read it: its row, and the Text corpus.
LraData data_of(const LraTask& t, const std::string& text_source, const std::string& text_label,
                const std::string& npm_cache) {
  LraData d = t.data;
  d.text_source = text_source, d.text_label = text_label, d.npm_cache = npm_cache;
  return d;
}

void prepare_task_data(const LraTask& t, const LraData& d, const std::string& out) {
  std::string tmp = out + ".partial";
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  task_info(t.name).lra.prepare(d, tmp);
  fs::remove_all(out);
  fs::rename(tmp, out);
}

bool data_ready(const std::string& dir, const std::string& description) {
  std::ifstream in(dir + kStamp);
  std::string line;
  return std::getline(in, line) && line == description;
}

// ---- the plan -----------------------------------------------------------------------------

std::string s(int64_t v) { return std::to_string(v); }
std::string g(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

int64_t scaled(int64_t v, double scale) { return std::max<int64_t>(1, int64_t(std::llround(double(v) * scale))); }

LraCell train_cell(const LraTask& t, const LraData& d, const std::string& model, const std::vector<std::string>& extra,
                   double scale, const std::string& data_desc, int seed) {
  LraCell c;
  c.kind = "train", c.task = t.name, c.model = model, c.seq_len = t.data.seq_len, c.seed = seed;
  c.id = lra_train_id(t.name, model, seed);
  int64_t steps = scaled(t.steps, scale), eval = std::min(steps, scaled(t.eval_every, scale));
  std::vector<std::string> task_args = task_info(t.name).lra.train_args(d, "data/" + t.name);
  c.args = {"train"};
  c.args.insert(c.args.end(), task_args.begin(), task_args.end());
  // log_every divides eval_every, so that a step line comes just before each validation
  // (their elapsed times give the evaluation time, which steps/s leaves out)
  int64_t log = eval;
  for (int64_t k = 5; k >= 1; --k)
    if (eval % k == 0) {
      log = eval / k;
      break;
    }
  std::vector<std::string> rest = {"--model", lra_base_model(model), "--seq-len", s(t.data.seq_len), "--dim", s(t.dim), "--heads", s(t.heads),
                                   "--layers", s(t.layers), "--ffn", s(t.ffn), "--steps", s(steps), "--batch", s(t.batch),
                                   "--lr", g(t.lr), "--warmup", s(scaled(t.warmup, scale)), "--schedule", "cosine",
                                   "--eval-every", s(eval), "--log-every", s(log), "--seed", s(seed)};
  c.args.insert(c.args.end(), rest.begin(), rest.end());
  c.args.insert(c.args.end(), extra.begin(), extra.end());
  c.key = join(c.args, " ") + " | " + data_desc;
  c.steps = steps;
  return c;
}

LraCell bench_cell(const LraBench& b, int64_t n, const std::string& model, const std::vector<std::string>& extra) {
  LraCell c;
  c.kind = "bench", c.model = model, c.seq_len = n, c.id = "bench-" + s(n) + "-" + model;
  c.args = {"bench", "--model", lra_base_model(model), "--seq-len", s(n), "--batch", s(b.batch), "--dim", s(b.dim), "--heads", s(b.heads),
            "--layers", s(b.layers), "--ffn", s(b.ffn), "--steps", s(b.steps), "--warmup", s(b.warmup)};
  c.args.insert(c.args.end(), extra.begin(), extra.end());
  c.key = join(c.args, " ");
  return c;
}

}  // namespace

// ---- running the cells ----------------------------------------------------------------------

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string fmt_duration(double sec) {
  char b[32];
  if (sec < 0 || !std::isfinite(sec)) return "?";
  if (sec >= 3600) std::snprintf(b, sizeof b, "%dh%02dm", int(sec / 3600), int(sec / 60) % 60);
  else std::snprintf(b, sizeof b, "%dm%02ds", int(sec / 60), int(sec) % 60);
  return b;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return b;
}

std::string self_exe() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) fail("lra: cannot find this program's path (/proc/self/exe): " + ec.message());
  return p.string();
}

// The sweep's progress line: cell i of n, the cell's own progress, the ETA.
struct Progress {
  bool tty = isatty(2);
  size_t index = 0, total = 0;
  double cell_start = 0, last_plain = 0;
  int64_t start_step = 0;  // the step a resumed cell started this part from
  std::map<std::string, std::vector<double>> durations;  // by cell class (task, or bench length)
  std::vector<const LraCell*> pending;                    // cells still to run after the current one

  static std::string cls(const LraCell& c) { return c.kind == "train" ? c.task : "bench-" + s(c.seq_len); }
  double estimate(const LraCell& c) const {
    auto it = durations.find(cls(c));
    if (it != durations.end() && !it->second.empty()) {
      double sum = 0;
      for (double d : it->second) sum += d;
      return sum / double(it->second.size());
    }
    return -1;
  }
  void show(const LraCell& c, const std::string& cell_dir) {
    double el = now_s() - cell_start, frac = -1;
    int64_t step = 0;
    if (c.kind == "train") {
      for (const JsonObject& o : read_jsonl(cell_dir + "/metrics.jsonl"))
        if (o.count("loss")) step = int64_t(json_number(o, "step", 0));
      if (c.steps > start_step) frac = double(std::max<int64_t>(0, step - start_step)) / double(c.steps - start_step);
    }
    double rest = frac > 0.05 ? el * (1 - frac) / frac : std::max(0.0, estimate(c) - el);
    bool unknown = frac <= 0.05 && estimate(c) < 0;
    for (const LraCell* p : pending) {
      double e = estimate(*p);
      if (e < 0) unknown = true;
      else rest += e;
    }
    char line[300];
    std::snprintf(line, sizeof line, "lra: cell %zu/%zu %s | %s | %s | sweep ETA %s%s", index, total, c.id.c_str(),
                  c.kind == "train" ? ("step " + s(step) + "/" + s(c.steps)).c_str() : "benching",
                  fmt_duration(el).c_str(), unknown && rest < 1 ? "?" : fmt_duration(rest).c_str(),
                  unknown && rest >= 1 ? "+" : "");
    if (tty) std::fprintf(stderr, "\r%s\033[K", line);
    else if (now_s() - last_plain >= 30) std::fprintf(stderr, "%s\n", line), last_plain = now_s();
  }
  void done(const std::string& line) {
    if (tty) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "%s\n", line.c_str());
  }
};

// Appends one line, first ending a line an interrupted run may have left unfinished.
void append_line(const std::string& path, const std::string& line) {
  bool open_line = false;
  {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (in && in.tellg() > 0) {
      in.seekg(-1, std::ios::end);
      open_line = in.get() != '\n';
    }
  }
  std::ofstream(path, std::ios::app) << (open_line ? "\n" : "") << line << "\n";
}

// --merge: the records of other sweep folders (two sweeps run side by side, one per
// core, on different models) appended to this one's, each line once; the report
// then reads the last record of each cell id.  A data set's baselines.jsonl comes
// along when this folder has none.  Prints what it took.
void merge_sweeps(const std::string& dir, const std::vector<std::string>& sources) {
  fs::create_directories(dir);
  for (auto& src : sources) {
    if (!fs::exists(src + "/results.jsonl") && !fs::exists(src + "/bench.jsonl"))
      fail("lra: --merge: " + src + " holds no results.jsonl or bench.jsonl (expected a sweep's --out folder)");
    if (fs::equivalent(src, dir)) fail("lra: --merge: " + src + " is the --out folder itself");
    size_t taken = 0;
    for (const char* file : {"/results.jsonl", "/bench.jsonl"}) {
      std::set<std::string> have;
      std::ifstream mine(dir + file);
      for (std::string line; std::getline(mine, line);) have.insert(line);
      std::ifstream theirs(src + file);
      for (std::string line; std::getline(theirs, line);) {
        JsonObject o;
        if (line.empty() || have.count(line)) continue;
        if (!parse_json_object(line, &o)) fail("lra: --merge: " + src + file + " holds a line that is not a record: '" + line.substr(0, 60) + "'");
        append_line(dir + file, line), have.insert(line), ++taken;
      }
    }
    size_t baselines = 0;
    if (fs::exists(src + "/data"))
      for (auto& e : fs::directory_iterator(src + "/data")) {
        fs::path b = e.path() / "baselines.jsonl", to = fs::path(dir) / "data" / e.path().filename() / "baselines.jsonl";
        if (!e.is_directory() || !fs::exists(b) || fs::exists(to)) continue;
        fs::create_directories(to.parent_path());
        fs::copy_file(b, to), ++baselines;
      }
    std::fprintf(stderr, "lra: --merge: %zu new records from %s%s\n", taken, src.c_str(),
                 baselines ? (", " + std::to_string(baselines) + " baselines files").c_str() : "");
  }
}

// The first stderr line "training M on T: 12345 parameters, ..." gives the model's size.
int64_t parameters_from(const std::string& stderr_path) {
  std::ifstream in(stderr_path);
  std::string line;
  while (std::getline(in, line)) {
    size_t p = line.find(" parameters");
    size_t q = line.rfind(": ", p);
    if (line.rfind("training ", 0) == 0 && p != std::string::npos && q != std::string::npos)
      return std::atoll(line.substr(q + 2, p - q - 2).c_str());
  }
  return 0;
}

std::string text_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A training cell cut short (its sweep stopped, killed, or --stop-after) left
// last.ckpt: the same cell (cell.key holds its key) goes on from that step.
// The clocks of the parts before it come from metrics.jsonl's line at that step.
struct Resume {
  int64_t step = -1;  // -1: start afresh
  bool finished = false;  // trained and tested, but the sweep stopped before recording it
  double elapsed = 0, cpu = 0, peak_rss_mb = 0;
  std::string steps;  // every step the cell resumed from, "800,1600"
};

Resume resume_point(const LraCell& c, const std::string& cell_dir) {
  Resume r;
  std::string ckpt = cell_dir + "/last.ckpt";
  if (c.kind != "train" || !fs::exists(ckpt) || text_of(cell_dir + "/cell.key") != c.key + "\n") return r;
  try {
    r.step = load_checkpoint(ckpt).step;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lra: %s starts afresh: %s\n", c.id.c_str(), e.what());
    return Resume{};
  }
  if (r.step <= 0 || r.step > c.steps) return Resume{};  // nothing to keep
  for (const JsonObject& m : read_jsonl(cell_dir + "/metrics.jsonl")) {
    r.finished |= m.count("final") > 0;
    if (!m.count("elapsed") || json_number(m, "step", 0) > double(r.step)) continue;
    // the last line at or before the step (its validation or interrupt line carries all three)
    r.elapsed = json_number(m, "elapsed", 0);
    r.cpu = json_number(m, "cpu_seconds", r.cpu);
    r.peak_rss_mb = json_number(m, "peak_rss_mb", r.peak_rss_mb);
  }
  std::string before = text_of(cell_dir + "/resumed.txt");
  before = before.substr(0, before.find('\n'));
  r.steps = r.finished ? before : (before.empty() ? "" : before + ",") + s(r.step);
  return r;
}

std::string run_cell(const LraCell& c, const std::string& dir, const std::string& exe, const std::string& threads,
                     double timeout, Progress& prog, int64_t stop_after) {
  std::string rel = "cells/" + c.id, cell_dir = dir + "/" + rel;
  Resume from = resume_point(c, cell_dir);
  std::vector<std::string> argv = {exe};
  if (from.step < 0) {
    fs::remove_all(cell_dir);  // a cell that cannot resume starts afresh
    fs::create_directories(cell_dir);
    std::ofstream(cell_dir + "/cell.key") << c.key << "\n";
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    if (c.kind == "train") argv.insert(argv.end(), {"--out", rel, "--quiet"});
  } else if (from.finished) {
    std::fprintf(stderr, "lra: %s finished before the sweep stopped: recording it from %s/metrics.jsonl\n", c.id.c_str(),
                 rel.c_str());
  } else {
    std::ofstream(cell_dir + "/resumed.txt") << from.steps << "\n";
    std::ofstream(cell_dir + "/stderr.earlier.log", std::ios::app) << text_of(cell_dir + "/stderr.log");
    std::fprintf(stderr, "lra: %s resumes from step %lld of %lld (%s/last.ckpt)\n", c.id.c_str(), (long long)from.step,
                 (long long)c.steps, rel.c_str());
    argv.insert(argv.end(), {"train", "--resume", rel + "/last.ckpt", "--out", rel, "--quiet"});
  }
  if (c.kind == "train" && stop_after > 0) argv.insert(argv.end(), {"--stop-after", s(stop_after)});
  ChildOptions o;
  o.cwd = dir;
  o.stdout_path = cell_dir + "/stdout.log";
  o.stderr_path = cell_dir + "/stderr.log";
  o.env = {{"OMP_NUM_THREADS", threads}, {"OPENBLAS_NUM_THREADS", threads}};
  o.timeout_s = timeout;
  prog.cell_start = now_s();
  prog.start_step = std::max<int64_t>(0, from.step);
  o.poll = [&] { prog.show(c, cell_dir); };
  o.should_stop = [] { return InterruptGuard::pending() != 0; };
  prog.show(c, cell_dir);
  ChildResult r;
  if (from.finished) r.exit_code = 0;  // its clocks are metrics.jsonl's (up to its last validation)
  else r = run_child(argv, o);
  double peak_mb = std::max(r.peak_rss_mb, from.peak_rss_mb);
  if (c.kind == "train" && !r.timed_out && (r.exit_code == 0 || r.exit_code == 130 || r.exit_code == 143)) {
    bool finished = false;
    for (const JsonObject& m : read_jsonl(cell_dir + "/metrics.jsonl")) finished |= m.count("final") > 0;
    int64_t at = -1;
    try {
      if (!finished && fs::exists(cell_dir + "/last.ckpt")) at = load_checkpoint(cell_dir + "/last.ckpt").step;
    } catch (const std::exception&) {
    }
    if (at > 0 && at <= c.steps) {  // stopped (at the latest before its test): no record, a rerun goes on
      prog.done("lra: [" + s(int64_t(prog.index)) + "/" + s(int64_t(prog.total)) + "] " + c.id + ": stopped after step " +
                s(at) + " of " + s(c.steps) + " (" + rel + "/last.ckpt); a rerun resumes it");
      return "";
    }
  }

  std::ostringstream js;
  char buf[64];
  auto f = [&](double v, int prec = 4) {
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    return std::string(buf);
  };
  std::string family = attention_info(lra_base_model(c.model)).family;
  js << "{\"id\": " << json_quote(c.id) << ", \"kind\": " << json_quote(c.kind) << ", \"task\": " << json_quote(c.task)
     << ", \"model\": " << json_quote(c.model) << (c.kind == "train" ? ", \"seed\": " + s(c.seed) : std::string()) << ", \"family\": " << json_quote(family) << ", \"seq_len\": " << c.seq_len
     << ", \"wall_seconds\": " << f(from.elapsed + r.seconds, 1) << ", \"cpu_seconds\": " << f(from.cpu + r.cpu_seconds, 1)
     << ", \"child_peak_rss_mb\": " << f(peak_mb, 1) << ", \"build\": " << json_quote(build_commit())
     << ", \"cpu\": " << json_quote(cpu_name()) << ", \"simd\": " << json_quote(simd_target());
  std::string error;
  if (r.timed_out) error = "timed out after " + fmt_duration(timeout) + " (the preset's limit per cell; see --cell-timeout)";
  else if (r.signal) error = "killed by signal " + s(r.signal) + (r.signal == 9 ? " (out of memory?)" : "");
  else if (r.exit_code != 0) error = last_line(o.stderr_path);
  if (error.empty() && r.exit_code != 0) error = "exit status " + s(r.exit_code);
  std::string summary;
  if (error.empty() && c.kind == "train") {
    // Training time: the elapsed time at the last step, less the validations before it
    // (each one's time is its line's elapsed minus that of the step line just before it).
    JsonObject fin;
    double eval_time = 0, eval_before_last = 0, last_step_elapsed = 0;
    for (const JsonObject& m : read_jsonl(cell_dir + "/metrics.jsonl")) {
      if (m.count("final")) fin = m;
      else if (m.count("val_acc")) eval_time += json_number(m, "elapsed", 0) - last_step_elapsed;
      else if (m.count("loss")) last_step_elapsed = json_number(m, "elapsed", 0), eval_before_last = eval_time;
    }
    if (fin.empty()) {
      error = "the run ended without a final line in metrics.jsonl";
    } else {
      double secs = json_number(fin, "train_seconds", 0);
      double step_time = std::max(0.01, last_step_elapsed - eval_before_last);  // elapsed has 2 decimals
      double sps = double(c.steps) / step_time;
      js << ", \"status\": \"ok\", \"test_acc\": " << json_text(fin, "test_acc")
         << ", \"best_val_acc\": " << json_text(fin, "best_val_acc") << ", \"best_step\": " << json_text(fin, "best_step")
         << ", \"majority_rate\": " << json_text(fin, "majority_rate") << ", \"test_examples\": " << int64_t(json_number(fin, "test_examples", 0))
         << ", \"steps\": " << c.steps
         << ", \"train_seconds\": " << f(secs, 1) << ", \"eval_seconds\": " << f(eval_time, 1)
         << ", \"steps_per_s\": " << f(sps) << ", \"peak_rss_mb\": " << f(peak_mb, 1)
         << ", \"params\": " << parameters_from(o.stderr_path);
      std::string acc = "test " + f(json_number(fin, "test_acc", 0), 3), speed = f(sps, 2);
      if (lra_lower_is_better(c.task)) {  // lm: the column's value is bits per byte (test_acc: next-byte accuracy)
        double bpb = json_number(fin, "test_loss", 0) / std::log(2.0);
        js << ", \"test_bits_per_byte\": " << f(bpb) << ", \"best_val_bits_per_byte\": " << f(-json_number(fin, "best_val_acc", 0));
        acc = "test " + f(bpb, 3) + " bits/byte";
      }
      summary = acc + " | " + speed + " steps/s | " + f(peak_mb, 0) + " MB";
      if (!from.steps.empty()) js << ", \"resumed_from_steps\": " << json_quote(from.steps);
    }
  } else if (error.empty()) {
    JsonObject b;
    if (!parse_json_object(last_line(o.stdout_path), &b)) {
      error = "bench printed no JSON line";
    } else {
      js << ", \"status\": \"ok\", \"steps_per_s\": " << json_text(b, "steps_per_s")
         << ", \"tokens_per_s\": " << json_text(b, "tokens_per_s") << ", \"ms_per_step\": " << json_text(b, "ms_per_step")
         << ", \"peak_rss_mb\": " << json_text(b, "peak_rss_mb") << ", \"gflops\": " << json_text(b, "gflops");
      summary = json_text(b, "steps_per_s") + " steps/s | " + json_text(b, "peak_rss_mb") + " MB";
    }
  }
  if (!error.empty()) js << ", \"status\": \"failed\", \"error\": " << json_quote(error);
  js << ", \"finished\": " << json_quote(utc_now()) << ", \"key\": " << json_quote(c.key) << "}";
  prog.durations[Progress::cls(c)].push_back(from.elapsed + r.seconds);
  prog.done("lra: [" + s(int64_t(prog.index)) + "/" + s(int64_t(prog.total)) + "] " + c.id + ": " +
            (error.empty() ? summary : "FAILED: " + error) + " | " + fmt_duration(from.elapsed + r.seconds) + " (CPU " +
            fmt_duration(from.cpu + r.cpu_seconds) + ")" + (from.steps.empty() ? "" : ", resumed from step " + from.steps));
  if (error.empty() && c.kind == "train") {
    try {
      draw_run_curves(cell_dir);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lra: no curves for %s: %s\n", c.id.c_str(), e.what());
    }
  }
  return js.str();
}

std::string lra_help() {
  std::string tasks;
  for (auto& p : lra_presets())
    if (!p.hidden) tasks += std::string("                   ") + p.name + ": " + join(lra_task_names(p), ", ") + "\n";
  return
    "attnzoo lra --preset quick|mini|full --out DIR [flags]\n"
    "  trains every model on every task of the preset (same size and budget per task; a model that cannot\n"
    "  run a task, e.g. lm without a causal form, gets a dash and the reason), benches every model at three\n"
    "  lengths, each cell in its own process, and writes DIR/results.md (LRA's two tables beside ours, the\n"
    "  score, Welch's test against full attention) and the charts DIR/chart.svg (score, speed, memory),\n"
    "  chart-lra.svg (LRA's five-task mean) and chart-TASK.svg (one per column), with .png and .gp\n"
    "  --preset quick   a smoke test of the pipeline: a few minutes on 2 cores\n"
    "           mini    the README's numbers, 3 seeds: 9 CPU-hours for nine models on LRA's five tasks (measured)\n"
    "           full    LRA's lengths, 2 seeds: 19 CPU-hours for nine models (docs/lra/full-projection)\n"
    "  --models a,b,... models to run (default: every model); MODEL+TAG is a row of its own that trains\n"
    "                   MODEL with the settings --model-args gives it, e.g. reformer+lra with\n"
    "                   --model-args 'reformer+lra=--form 1 --hashes 1'\n"
    "  --tasks a,b,...  of the preset's tasks (default: all of them):\n" + tasks +
    "  --seeds K        train every (task, model) K times, seeds 1..K: results.md gives mean +- std\n"
    "                   and says which differences from full attention exceed the seed spread\n"
    "                   (default: the preset's: quick 1, mini 3, full 2)\n"
    "  --out DIR        where data, cells, results.jsonl, bench.jsonl and the report go (default runs/lra-PRESET)\n"
    "  --model-args 'M=--flag v ...;M2=...'   a model's own settings, e.g. 'local=--window 32;bigbird=--block 32'\n"
    "  --steps-scale X  multiply every training budget (steps, warm-up, evaluation interval) by X\n"
    "  --threads T      OMP_NUM_THREADS of each cell (default: $OMP_NUM_THREADS, else 2)\n"
    "  --cell-timeout S stop a cell after S seconds (default: the preset's)\n"
    "  --stop-after K   stop every training cell after step K, keeping its checkpoint: a rerun without it\n"
    "                   resumes each cell from there (to fit long cells into several sittings)\n"
    "  --text-data PATH use this text corpus (class folders or TSV, e.g. aclImdb) instead of Spam Assassin\n"
    "  --no-bench       skip the speed and memory table (and the chart)\n"
    "  --bench-only     run only the speed and memory cells (e.g. on an idle machine after the training)\n"
    "  --retry-failed   run again the cells whose record is a failure\n"
    "  --report-only    rewrite results.md and the charts from the records, run nothing\n"
    "  --merge D1,D2    first take the records of other sweep folders (e.g. two sweeps run side by side, one\n"
    "                   per core, on different models; each line once, the last of a cell id counts)\n"
    "  --dry-run        print the cells' commands and where each stands (done, resumes from step K,\n"
    "                   to run), run nothing\n"
    "A rerun with the same flags skips finished cells: an interrupted sweep resumes, and a training cell\n"
    "cut short (Ctrl-C, SIGTERM, a kill) goes on from its last checkpoint (cells/ID/last.ckpt).\n";
}

}  // namespace

int cmd_lra(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h") return std::printf("%s", lra_help().c_str()), 0;
  Flags f("lra", args,
          {"preset", "models", "tasks", "out", "model-args", "steps-scale", "threads", "cell-timeout", "text-data",
           "prepare", "npm-cache", "seeds", "stop-after", "merge"},
          {"no-bench", "bench-only", "retry-failed", "report-only", "dry-run"});
  if (!f.has("preset")) fail("lra: --preset is required (quick, mini or full)");
  const LraPreset& preset = lra_preset(f.str("preset", ""));
  std::string dir = f.str("out", "runs/lra-" + preset.name);
  std::string text_source = fs::absolute(f.str("text-data", data_cache_dir() + "/spam-assassin")).lexically_normal();
  // (the description, part of each text cell's key, names the corpus, not where this machine keeps it)
  std::string text_label = f.has("text-data") ? "from " + f.str("text-data", "") : "Spam Assassin e-mail bodies";

  std::vector<LraTask> preset_tasks = lra_tasks(preset);
  // internal: a child preparing one task's data (see prepare_task_data)
  if (f.has("prepare")) {
    for (auto& t : preset_tasks)
      if (t.name == f.str("prepare", ""))
        return prepare_task_data(t, data_of(t, text_source, text_label, f.str("npm-cache", "")), "data/" + t.name), 0;
    fail("lra: --prepare: unknown task '" + f.str("prepare", "") + "'");
  }

  LraSweep sw;
  sw.dir = dir, sw.preset = &preset;
  // models: every registered one, unless named
  std::vector<std::string> known = attention_names();
  if (f.has("models")) {
    for (auto& m : split_list(f.str("models", ""), ',')) {
      std::string base = lra_base_model(m);
      if (std::find(known.begin(), known.end(), base) == known.end())
        fail("lra: --models: unknown model '" + base + "' (valid: " + join(known, ", ") + ")");
      if (base != m && m.size() == base.size() + 1)
        fail("lra: --models: '" + m + "' needs a tag after the '+' (a row of " + base + " with settings of its own)");
      if (std::find(sw.models.begin(), sw.models.end(), m) == sw.models.end()) sw.models.push_back(m);
    }
  } else {
    sw.models = known;
  }
  std::vector<std::string> valid_tasks = lra_task_names(preset);
  for (auto& t : split_list(f.str("tasks", join(valid_tasks, ",")), ',')) {
    if (std::find(valid_tasks.begin(), valid_tasks.end(), t) == valid_tasks.end())
      fail("lra: --tasks: unknown task '" + t + "' (valid: " + join(valid_tasks, ", ") + ")");
    if (std::find(sw.tasks.begin(), sw.tasks.end(), t) == sw.tasks.end()) sw.tasks.push_back(t);
  }
  if (sw.models.empty() || sw.tasks.empty()) fail("lra: --models and --tasks must name at least one each");
  std::map<std::string, std::vector<std::string>> extra;  // --model-args
  for (auto& item : split_list(f.str("model-args", ""), ';')) {
    size_t eq = item.find('=');
    std::string m = item.substr(0, eq);
    while (!m.empty() && m.back() == ' ') m.pop_back();
    while (!m.empty() && m.front() == ' ') m.erase(0, 1);
    bool row = m.find('+') != std::string::npos && std::count(sw.models.begin(), sw.models.end(), m);
    if (eq == std::string::npos || (!row && std::find(known.begin(), known.end(), m) == known.end()))
      fail("lra: --model-args: expected MODEL=--flag value ..., got '" + item + "' (models: " + join(known, ", ") +
           ", or a MODEL+TAG row named in --models)");
    extra[m] = split_list(item.substr(eq + 1), ' ');
  }
  for (auto& m : sw.models)
    if (m != lra_base_model(m) && extra[m].empty())
      fail("lra: --models: " + m + " is a row of " + lra_base_model(m) + " with settings of its own: give them in --model-args '" +
           m + "=--flag value'");
  double scale = f.number("steps-scale", 1.0);
  if (!(scale > 0 && scale <= 1000)) fail("lra: --steps-scale must be in (0, 1000], got " + f.str("steps-scale", ""));
  sw.steps_scale = scale;
  const char* omp = std::getenv("OMP_NUM_THREADS");
  sw.threads = std::to_string(f.integer("threads", omp && std::atoi(omp) > 0 ? std::atoi(omp) : 2));
  if (std::stoi(sw.threads) < 1 || std::stoi(sw.threads) > 256) fail("lra: --threads must be in 1..256");
  sw.seeds = int(f.integer("seeds", preset.seeds));
  if (sw.seeds < 1 || sw.seeds > 20) fail("lra: --seeds must be in 1..20, got " + f.str("seeds", ""));
  int64_t stop_after = f.integer("stop-after", 0);
  if (stop_after < 0) fail("lra: --stop-after must not be negative (0 runs every cell to its end)");
  double timeout = f.number("cell-timeout", preset.cell_timeout_s);
  if (!(timeout > 0)) fail("lra: --cell-timeout must be positive");
  bool bench = !f.on("no-bench");
  if (!bench && f.on("bench-only")) fail("lra: --bench-only and --no-bench leave nothing to run; give one of them");

  // the plan: training cells task by task, then the bench
  std::map<std::string, std::string> data_desc;
  for (auto& t : preset_tasks) {
    if (std::find(sw.tasks.begin(), sw.tasks.end(), t.name) == sw.tasks.end()) continue;
    LraData d = data_of(t, text_source, text_label, "");
    data_desc[t.name] = task_info(t.name).lra.describe(d);
    sw.data_notes.push_back(t.name + ": " + data_desc[t.name]);
    // seed by seed: a sweep cut short has every model at seed 1 before any at seed 2;
    // a model that cannot run the task (lm needs a causal form) has no cell: the report says why
    for (int seed = 1; seed <= sw.seeds; ++seed)
      for (auto& m : sw.models)
        if (lra_cannot_run(t.name, m).empty()) {
          std::vector<std::string> args = lra_task_model_args(t.name, m);  // (none but lm's causal forms)
          args.insert(args.end(), extra[m].begin(), extra[m].end());
          sw.cells.push_back(train_cell(t, d, m, args, scale, data_desc[t.name], seed));
        }
  }
  if (bench)
    for (auto& m : sw.models)
      for (int64_t n : preset.bench.lengths) sw.cells.push_back(bench_cell(preset.bench, n, m, extra[m]));
  sw.command = "attnzoo lra";
  for (auto& a : args) sw.command += " " + (a.find(' ') != std::string::npos ? "'" + a + "'" : a);

  std::string exe = self_exe();
  if (f.on("dry-run")) {
    // each cell's command, and where it stands in DIR: what a rerun would do with it
    std::printf("# %zu cells, run in %s with OMP_NUM_THREADS=%s\n", sw.cells.size(), dir.c_str(), sw.threads.c_str());
    for (auto& t : sw.tasks)
      for (auto& m : sw.models)
        if (std::string why = lra_cannot_run(t, m); !why.empty())
          std::printf("# %s: not run, %s cannot run %s: %s\n", lra_train_id(t, m, 1).c_str(), m.c_str(), t.c_str(), why.c_str());
    std::map<std::string, JsonObject> done = lra_records(sw);
    for (auto& c : sw.cells) {
      std::string state = "to run";
      if (auto it = done.find(c.id); it != done.end()) {
        bool ok = json_text(it->second, "status") == "ok";
        state = !ok ? "failed (--retry-failed runs it again)"
                : c.kind == "train" ? "done, test " + (lra_lower_is_better(c.task) ? json_text(it->second, "test_bits_per_byte") + " bits/byte"
                                                                                 : json_text(it->second, "test_acc"))
                                    : "done";
      } else if (Resume r = resume_point(c, dir + "/cells/" + c.id); r.step > 0) {
        state = r.finished ? "finished, not yet recorded" : "resumes from step " + s(r.step) + " of " + s(c.steps);
      }
      std::printf("attnzoo %s%s  # %s\n", join(c.args, " ").c_str(),
                  c.kind == "train" ? (" --out cells/" + c.id + " --quiet").c_str() : "", state.c_str());
    }
    return 0;
  }
  fs::create_directories(dir + "/cells");
  if (f.has("merge")) merge_sweeps(dir, split_list(f.str("merge", ""), ','));

  int problems = 0;
  if (!f.on("report-only")) {
    std::map<std::string, JsonObject> done = lra_records(sw);
    std::vector<const LraCell*> todo;
    for (auto& c : sw.cells) {
      auto it = done.find(c.id);
      bool finished = it != done.end() && (json_text(it->second, "status") == "ok" || !f.on("retry-failed"));
      if (c.kind == "train" && f.on("bench-only")) finished = true;  // the report still shows its record, if any
      if (!finished) todo.push_back(&c);
    }
    std::fprintf(stderr, "lra: preset %s, %zu models x %zu tasks%s%s: %zu cells, %zu already done, %zu to run in %s\n",
                 preset.name.c_str(), sw.models.size(), sw.tasks.size(),
                 sw.seeds > 1 ? (" x " + s(sw.seeds) + " seeds").c_str() : "", bench ? " + bench" : "", sw.cells.size(),
                 sw.cells.size() - todo.size(), todo.size(), dir.c_str());
    if (f.on("bench-only")) std::fprintf(stderr, "lra: --bench-only: no training cell runs\n");
    // data: prepared once, by a child, for the tasks that still have cells to run
    std::set<std::string> bad_tasks;
    for (auto& t : preset_tasks) {
      bool needed = false;
      for (auto* c : todo) needed |= c->task == t.name;
      if (!needed || data_ready(dir + "/data/" + t.name, data_desc[t.name])) continue;
      std::fprintf(stderr, "lra: preparing data/%s: %s\n", t.name.c_str(), data_desc[t.name].c_str());
      ChildOptions o;
      o.cwd = dir;
      o.stderr_path = dir + "/data/" + t.name + ".log";
      fs::create_directories(dir + "/data");
      ChildResult r = run_child({exe, "lra", "--preset", preset.name, "--prepare", t.name, "--text-data", text_source,
                                 "--npm-cache", fs::absolute(data_cache_dir() + "/npm").lexically_normal().string()},
                                o);
      if (r.exit_code != 0) {
        std::fprintf(stderr, "lra: data for %s could not be prepared, its cells are skipped: %s\n", t.name.c_str(),
                     last_line(o.stderr_path).c_str());
        bad_tasks.insert(t.name), ++problems;
      } else {
        std::ofstream(dir + "/data/" + t.name + kStamp) << data_desc[t.name] << "\n";
      }
    }
    Progress prog;
    prog.total = sw.cells.size();
    prog.index = sw.cells.size() - todo.size();
    InterruptGuard interrupts;  // Ctrl-C / SIGTERM: the cell saves its checkpoint, the sweep stops
    for (size_t i = 0; i < todo.size(); ++i) {
      const LraCell& c = *todo[i];
      if (InterruptGuard::pending()) break;
      if (bad_tasks.count(c.task)) continue;
      prog.index++;
      prog.pending.assign(todo.begin() + long(i) + 1, todo.end());
      std::string record = run_cell(c, dir, exe, sw.threads, timeout, prog, stop_after);
      if (record.empty()) continue;  // stopped by --stop-after (or a signal): not finished
      append_line(dir + (c.kind == "train" ? "/results.jsonl" : "/bench.jsonl"), record);
      if (c.kind == "train") write_lra_report(sw, false);
    }
  }
  if (int sig = InterruptGuard::pending()) {
    write_lra_report(sw, false);
    std::fprintf(stderr, "lra: interrupted by %s; the same command resumes the sweep (and a cell cut short from its checkpoint)\n",
                 sig == SIGINT ? "SIGINT" : "SIGTERM");
    return 128 + sig;
  }
  std::string chart_problem = write_lra_report(sw, bench);
  if (!chart_problem.empty()) std::fprintf(stderr, "lra: %s\n", chart_problem.c_str()), ++problems;
  int failed = 0;
  for (auto& [id, rec] : lra_records(sw)) failed += json_text(rec, "status") != "ok";
  std::printf("wrote %s/results.md%s (%d failed cells)\n", dir.c_str(),
              bench && chart_problem.empty() ? (", " + dir + "/chart.svg, " + dir + "/chart.png").c_str() : "", failed);
  return problems ? 1 : 0;
}

}  // namespace az
