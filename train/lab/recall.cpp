// attnzoo recall: the associative-recall sweep (issue 39).  Every model is
// trained on multi-query associative recall (`--task mqar`, Zoology's MQAR) at
// the points (sequence length T, key-value pairs N) of Zoology's Figure 2 and
// one more, at several model widths, best of a small learning-rate grid, and
// the report draws two charts:
//
//   recall-dim:   accuracy against model dim, a row of panels per (T, N) and
//                 a panel per family, one line per model (mean and sd over
//                 seeds) and a dot per seed (after Zoology's Figure 2);
//   recall-state: accuracy at (256, 16) against the bytes of state the model
//                 keeps while decoding, for every causal variant, each variant's
//                 own knob giving its points: the window (local, strided), the
//                 random features (performer, rfa), the head dim (linear, via
//                 --heads), the width for full attention's KV cache (after
//                 Based's Figure 2).  The state is measured, not computed: the
//                 trained model's decoder (train/generate.h) is fed T tokens and
//                 asked for its state_bytes(); each point is a mean over seeds with
//                 its sd and a dot per seed (a model's widths dashed, its knob
//                 solid), and the frontier (best recall at or below each state)
//                 is drawn over them.  Non-causal models keep no state
//                 while decoding; the report says so and leaves them out.
//
// Cells: the learning rates are tried on seed 1; seeds 2..K (knob points too) run at the
// learning rate whose seed-1 validation accuracy was best.  Models with a
// causal form are trained causal (so that their decoding state is the one the
// accuracy was reached with); the others non-causal (the data set serves both:
// no value follows its query in the input).  Each cell is one `attnzoo train`
// child; its record goes to DIR/results.jsonl as it finishes, so a rerun of the
// same command skips finished cells (a cell cut short restarts: cells are
// minutes, not hours).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "attention/attention.h"
#include "autograd/runtime/strings.h"
#include "train/checkpoint.h"
#include "train/cli.h"
#include "train/cli/commands.h"
#include "train/generate.h"
#include "train/lab/bench.h"
#include "train/lab/lra.h"
#include "train/lab/plot.h"
#include "train/model.h"
#include "train/trainer.h"

namespace az {

namespace fs = std::filesystem;

namespace {

struct Point {
  int64_t T = 0, N = 0;
  std::string name() const { return "T" + std::to_string(T) + "-N" + std::to_string(N); }
};

struct Cell {
  std::string id, model, knob;  // knob: "" or the flag the state chart varies ("window", ...)
  Point p;
  int64_t dim = 0, heads = 0;
  double knob_value = 0, lr = 0;
  int seed = 1;
  bool causal = false;
  std::string group;  // "grid" (chart 1 and the table) or "state" (chart 2's extra points)
  std::vector<std::string> args;
};

// The knob each causal variant varies for the state chart, and its values (at dim 64).
struct StateKnob {
  std::string model, flag;
  std::vector<double> values;
};
const std::vector<StateKnob>& state_knobs() {
  static const std::vector<StateKnob> k = {
      {"local", "window", {8, 16, 32, 64, 128}},
      {"strided", "window", {4, 8, 16, 32}},
      {"performer", "features", {8, 16, 32, 64, 128}},
      {"rfa", "features", {8, 16, 32, 64, 128}},
      {"linear", "heads", {1, 2, 4, 8, 16}},  // head dim 64 .. 4: the state is heads x (d/heads)^2
  };
  return k;
}

double parse_number(const std::string& flag, const std::string& v, double lo, double hi) {
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || !(x >= lo && x <= hi))
    fail("recall: " + flag + " expects numbers in " + fmt("%g", lo) + ".." + fmt("%g", hi) + ", got '" + v + "'");
  return x;
}

std::string cell_id(const std::string& model, const Point& p, int64_t dim, double lr, int seed, const std::string& knob,
                    double kv) {
  std::string id = model + "-" + p.name() + "-d" + std::to_string(dim) + "-lr" + fmt("%g", lr);
  if (!knob.empty()) id += "-" + knob + fmt("%g", kv);
  return id + "-s" + std::to_string(seed);
}

struct Options {
  std::string out = "runs/recall", threads;
  std::vector<std::string> models;
  std::vector<Point> points;
  std::vector<int64_t> dims;
  std::vector<double> lrs;
  int seeds = 2;
  int64_t steps = 0;  // 0: the task's default
  Point state_point{256, 16};  // where the state chart's knobs vary
  int64_t state_dim = 64;
  std::vector<std::string> train_args;  // --train-args: passed to every cell
  bool dry_run = false, report_only = false, no_state = false;
  std::set<double> knob_values;  // --knob-values: run only these knob values (empty: all)
};

Cell make_cell(const Options& o, const std::string& model, const Point& p, int64_t dim, double lr, int seed,
               const std::string& knob, double kv, const std::string& group) {
  Cell c;
  c.model = model, c.p = p, c.dim = dim, c.lr = lr, c.seed = seed, c.knob = knob, c.knob_value = kv, c.group = group;
  c.causal = attention_info(model).causal_ok;
  c.heads = knob == "heads" ? int64_t(kv) : std::max<int64_t>(1, std::min<int64_t>(4, dim / 16));
  c.id = cell_id(model, p, dim, lr, seed, knob, kv);
  c.args = {"train", "--task", "mqar", "--short-conv", "3", "--model", model, "--seq-len", std::to_string(p.T), "--pairs", std::to_string(p.N),
            "--dim", std::to_string(dim), "--heads", std::to_string(c.heads), "--lr", fmt("%g", lr),
            "--seed", std::to_string(seed)};
  if (o.steps > 0) c.args.insert(c.args.end(), {"--steps", std::to_string(o.steps)});
  if (c.causal) c.args.push_back("--causal");
  if (c.causal && model == "longformer") c.args.insert(c.args.end(), {"--globals", "0"});  // its causal form
  if (!knob.empty() && knob != "heads") c.args.insert(c.args.end(), {"--" + knob, fmt("%g", kv)});
  c.args.insert(c.args.end(), o.train_args.begin(), o.train_args.end());
  return c;
}

std::string key_of(const Cell& c) { return join(c.args, " "); }

std::map<std::string, JsonObject> records(const std::string& dir) {
  std::map<std::string, JsonObject> r;
  for (auto& o : read_jsonl(dir + "/results.jsonl")) r[json_text(o, "id")] = o;  // the last record of an id wins
  return r;
}

bool recorded(const std::map<std::string, JsonObject>& rec, const Cell& c) {
  auto it = rec.find(c.id);
  return it != rec.end() && json_text(it->second, "key") == key_of(c);
}
bool done(const std::map<std::string, JsonObject>& rec, const Cell& c) {
  return recorded(rec, c) && json_text(rec.at(c.id), "status") == "ok";
}

// The learning rate of (model, point, dim[, knob value]) whose seed-1 validation was best, or 0 while any is missing.
double best_lr(const Options& o, const std::map<std::string, JsonObject>& rec, const Cell& proto) {
  double best = 0, best_val = -1;
  for (double lr : o.lrs) {
    Cell c = make_cell(o, proto.model, proto.p, proto.dim, lr, 1, proto.knob, proto.knob_value, proto.group);
    if (!done(rec, c)) return 0;
    double v = json_number(rec.at(c.id), "best_val_acc", -1);
    if (v > best_val) best_val = v, best = lr;
  }
  return best;
}

// The cells to run now: every seed-1 cell of the learning-rate grid, and the
// later seeds of each configuration whose grid is complete.
std::vector<Cell> plan(const Options& o, const std::map<std::string, JsonObject>& rec, int* waiting) {
  std::vector<Cell> v;
  *waiting = 0;
  auto add_config = [&](const std::string& m, const Point& p, int64_t d, const std::string& knob, double kv,
                        const std::string& group, int seeds) {
    for (double lr : o.lrs) v.push_back(make_cell(o, m, p, d, lr, 1, knob, kv, group));
    if (seeds < 2) return;
    double lr = best_lr(o, rec, make_cell(o, m, p, d, o.lrs[0], 1, knob, kv, group));
    if (lr == 0) {
      *waiting += seeds - 1;
      return;
    }
    for (int s = 2; s <= seeds; ++s) v.push_back(make_cell(o, m, p, d, lr, s, knob, kv, group));
  };
  for (auto& m : o.models)
    for (auto& p : o.points)
      for (int64_t d : o.dims) add_config(m, p, d, "", 0, "grid", o.seeds);
  if (!o.no_state)
    for (auto& k : state_knobs())
      if (std::count(o.models.begin(), o.models.end(), k.model))
        for (double kv : k.values)
          if (!(k.flag == "heads" && (o.state_dim % int64_t(kv) != 0)) && (o.knob_values.empty() || o.knob_values.count(kv)))
            add_config(k.model, o.state_point, o.state_dim, k.flag, kv, "state", o.seeds);
  return v;
}

// The decoding state a trained causal cell keeps after T tokens (-1: it has none, it re-runs the prefix).
int64_t measured_state(const std::string& ckpt, int64_t T, std::string* method) {
  Checkpoint ck = load_checkpoint(ckpt);
  ModelConfig mc = ModelConfig::from_map(ck.model_config);
  NoGradGuard ng;
  SequenceClassifier m(mc);
  m.eval();
  LmDecoder dec(m);
  *method = dec.method();
  if (!dec.incremental()) return -1;
  for (int64_t t = 0; t < T; ++t) dec.feed(int32_t(1 + t % std::max<int64_t>(1, mc.vocab - 1)));
  return dec.state_bytes();
}

std::string run_one(const Options& o, const Cell& c, const std::string& exe) {
  std::string rel = "cells/" + c.id, dir = o.out + "/" + rel;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<std::string> argv = {exe};
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  argv.insert(argv.end(), {"--out", rel, "--quiet"});
  ChildOptions co;
  co.cwd = o.out;
  co.stdout_path = dir + "/stdout.log";
  co.stderr_path = dir + "/stderr.log";
  co.env = {{"OMP_NUM_THREADS", o.threads}, {"OPENBLAS_NUM_THREADS", o.threads}};
  co.timeout_s = 4 * 3600;
  co.should_stop = [] { return InterruptGuard::pending() != 0; };
  ChildResult r = run_child(argv, co);
  if (InterruptGuard::pending()) return "";  // cut short: no record, a rerun starts it again
  JsonObject fin;
  for (auto& m : read_jsonl(dir + "/metrics.jsonl"))
    if (m.count("final")) fin = m;
  std::ostringstream js;
  js << "{\"id\": " << json_quote(c.id) << ", \"model\": " << json_quote(c.model) << ", \"group\": " << json_quote(c.group)
     << ", \"seq_len\": " << c.p.T << ", \"pairs\": " << c.p.N << ", \"dim\": " << c.dim << ", \"heads\": " << c.heads
     << ", \"lr\": " << fmt("%g", c.lr) << ", \"seed\": " << c.seed << ", \"knob\": " << json_quote(c.knob)
     << ", \"knob_value\": " << fmt("%g", c.knob_value) << ", \"causal\": " << (c.causal ? "true" : "false")
     << ", \"cpu_seconds\": " << fmt("%.1f", r.cpu_seconds) << ", \"wall_seconds\": " << fmt("%.1f", r.seconds)
     << ", \"peak_rss_mb\": " << fmt("%.1f", r.peak_rss_mb) << ", \"build\": " << json_quote(build_commit())
     << ", \"cpu\": " << json_quote(cpu_name()) << ", \"simd\": " << json_quote(simd_target());
  std::string summary;
  if (r.exit_code != 0 || fin.empty()) {
    std::string err = r.timed_out ? "timed out" : last_line(co.stderr_path);
    if (err.empty()) err = "exit status " + std::to_string(r.exit_code);
    js << ", \"status\": \"failed\", \"error\": " << json_quote(err);
    summary = "FAILED: " + err;
  } else {
    js << ", \"status\": \"ok\", \"test_acc\": " << json_text(fin, "test_acc") << ", \"best_val_acc\": "
       << json_text(fin, "best_val_acc") << ", \"test_examples\": " << json_text(fin, "test_examples", "0");
    summary = "test " + fmt("%.3f", json_number(fin, "test_acc", 0));
    if (c.causal) {
      std::string method;
      int64_t bytes = -1;
      try {
        bytes = measured_state(dir + "/best.ckpt", c.p.T, &method);
      } catch (const std::exception& e) {
        method = std::string("not measured: ") + e.what();
      }
      js << ", \"state_bytes\": " << bytes << ", \"decode\": " << json_quote(method);
      if (bytes >= 0) summary += " | state " + fmt("%.0f", double(bytes)) + " B";
    }
  }
  js << ", \"key\": " << json_quote(key_of(c)) << "}";
  std::fprintf(stderr, "recall: %s: %s | CPU %.0f s\n", c.id.c_str(), summary.c_str(), r.cpu_seconds);
  return js.str();
}

// ---- the report ---------------------------------------------------------------------------

struct Row {  // one configuration (model, point, dim[, knob value]) at its best learning rate
  double lr = 0;
  SeedStats st;
  double bytes = -1;  // the decoding state seed 1 measured (-1: none)
};

std::string pct(const SeedStats& s) {
  if (s.n() == 0) return "-";
  std::string r = fmt("%.1f", s.mean);
  if (s.n() > 1) r += " ± " + fmt("%.1f", s.std);
  return r;
}

// Every seed of one configuration at the learning rate seed 1's validation chose.
Row config_row(const Options& o, const std::map<std::string, JsonObject>& rec, const Cell& proto, int64_t* test_n) {
  Row row;
  row.lr = best_lr(o, rec, proto);
  std::vector<double> acc;
  if (row.lr > 0)
    for (int s = 1; s <= o.seeds; ++s) {
      Cell c = make_cell(o, proto.model, proto.p, proto.dim, row.lr, s, proto.knob, proto.knob_value, proto.group);
      if (!done(rec, c)) continue;
      const JsonObject& r = rec.at(c.id);
      acc.push_back(100 * json_number(r, "test_acc", 0));
      *test_n = std::max<int64_t>(*test_n, int64_t(json_number(r, "test_examples", 0)));
      if (s == 1) row.bytes = json_number(r, "state_bytes", -1);
    }
  row.st = seed_stats(acc, *test_n);
  return row;
}

// One point of the state chart: a causal configuration with a measured state.
struct StatePoint {
  std::string model, label;  // label: "dim 64" or "window 16"
  Row row;
  bool knob() const { return label.rfind("dim ", 0) != 0; }  // a point of the model's own knob, not a width
};

// Based's frontier: the points no smaller state beats, in order of state.  A point
// joins when its mean recall exceeds every point with less (or equal) state.
std::vector<const StatePoint*> frontier(const std::vector<StatePoint>& pts) {
  std::vector<const StatePoint*> v;
  for (auto& p : pts)
    if (p.row.st.n()) v.push_back(&p);
  std::sort(v.begin(), v.end(), [](const StatePoint* a, const StatePoint* b) {
    return a->row.bytes != b->row.bytes ? a->row.bytes < b->row.bytes : a->row.st.mean > b->row.st.mean;
  });
  std::vector<const StatePoint*> f;
  for (auto* p : v)
    if (f.empty() || p->row.st.mean > f.back()->row.st.mean) f.push_back(p);
  return f;
}

// Line colours of both charts: distinct enough for the dozen series a panel or the state chart holds.
const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                "#e377c2", "#bcbd22", "#17becf", "#000000", "#393b79", "#aec7e8"};
constexpr size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

std::string kib(double bytes) { return bytes < 1024 ? fmt("%.0f B", bytes) : fmt("%.1f KiB", bytes / 1024); }

void write_report(const Options& o) {
  auto rec = records(o.out);
  // grid rows at the best learning rate (by seed 1's validation)
  std::map<std::string, std::map<std::string, Row>> grid;  // model -> "T256-N16-d64" -> row
  int64_t test_n = 0;
  for (auto& m : o.models)
    for (auto& p : o.points)
      for (int64_t d : o.dims)
        grid[m][p.name() + "-d" + std::to_string(d)] = config_row(o, rec, make_cell(o, m, p, d, o.lrs[0], 1, "", 0, "grid"), &test_n);
  std::ostringstream md;
  md << "# Associative recall (MQAR): every model, by sequence length, pairs and width\n\n"
     << "Written by `attnzoo recall --out " << o.out << "` from " << rec.size() << " records (results.jsonl). "
     << "Test accuracy (%) over the query positions, at the best of the learning rates {" << join(split_list([&] {
          std::string s;
          for (double lr : o.lrs) s += fmt("%g", lr) + ",";
          return s;
        }()), ", ")
     << "} (chosen by seed 1's validation accuracy), mean ± sample sd over " << o.seeds
     << " seeds. A value in **bold** differs from full attention's at the same point by more than the seed spread "
        "(Welch's test, 5%); `-` is a cell not run yet.";
  // columns: the (point, dim) pairs some model has a record at; a column no model reached is left out
  std::vector<std::pair<Point, int64_t>> cols;
  std::vector<std::string> empty_cols;
  std::vector<int64_t> dims = o.dims;  // ascending, for the table's columns and the chart's x
  std::sort(dims.begin(), dims.end());
  for (auto& p : o.points)
    for (int64_t d : dims) {
      bool any = false;
      for (auto& m : o.models) any = any || grid[m][p.name() + "-d" + std::to_string(d)].st.n() > 0;
      if (any) cols.push_back({p, d});
      else empty_cols.push_back("T" + std::to_string(p.T) + " N" + std::to_string(p.N) + " d" + std::to_string(d));
    }
  if (!empty_cols.empty()) md << " Not run at all, so not shown: " << join(empty_cols, ", ") << ".";
  md << "\n\n| model |";
  for (auto& [p, d] : cols) md << " T" << p.T << " N" << p.N << " d" << d << " |";
  md << "\n|---|";
  for (size_t i = 0; i < cols.size(); ++i) md << "---:|";
  md << "\n";
  for (auto& m : o.models) {
    md << "| " << m << (attention_info(m).causal_ok ? "" : " (non-causal)") << " |";
    for (auto& [p, d] : cols) {
      std::string k = p.name() + "-d" + std::to_string(d);
      const Row& r = grid[m][k];
      bool diff = m != "full" && grid.count("full") && differs_beyond_seeds(r.st, grid["full"][k].st);
      md << " " << (diff ? "**" + pct(r.st) + "**" : pct(r.st)) << " |";
    }
    md << "\n";
  }
  // chart 1: accuracy against dim, a row of panels per point (T, N), one panel per family
  // (as docs/models groups them), so no panel holds more than a handful of lines
  std::vector<std::string> families;  // those the models hold, in the order docs/models lists them
  for (auto& f : attention_families())
    for (auto& m : o.models)
      if (attention_info(m).family == f && std::find(families.begin(), families.end(), f) == families.end())
        families.push_back(f);
  std::ostringstream blocks, body;
  std::map<std::pair<std::string, size_t>, std::string> block_of;  // (model, point) -> $dK
  size_t bi = 0;
  for (auto& m : o.models)
    for (size_t pi = 0; pi < o.points.size(); ++pi) {
      block_of[{m, pi}] = "$d" + std::to_string(bi++);
      blocks << block_of[{m, pi}] << " << EOD\n";
      bool any = false;
      for (int64_t d : dims) {
        const Row& r = grid[m][o.points[pi].name() + "-d" + std::to_string(d)];
        if (r.st.n()) blocks << d << " " << r.st.mean << " " << r.st.std << "\n", any = true;
      }
      // no cell at this point: one point outside the ranges, so the last row's key still names the model
      if (!any) blocks << dims.front() / 4.0 << " -50 0\n";
      blocks << "EOD\n$e" << bi - 1 << " << EOD\n";  // every seed, a dot
      for (int64_t d : dims)
        for (double v : grid[m][o.points[pi].name() + "-d" + std::to_string(d)].st.values) blocks << d << " " << v << "\n";
      blocks << "EOD\n";
    }
  // fixed margins keep every panel the same size whatever its key holds; the keys sit below the last row
  double rows = double(o.points.size());
  body << "set multiplot layout " << o.points.size() << "," << families.size()
       << " title 'MQAR: test accuracy against model dim (lines: mean and sample sd over seeds; dots: each seed)' margins 0.05,0.99,"
       << fmt("%.3f", 0.28 / rows) << "," << fmt("%.3f", 1 - 0.12 / rows) << " spacing 0.04," << fmt("%.3f", 0.2 / rows) << "\n"
       << "set logscale x 2\nset xrange [" << dims.front() / 1.4 << ":" << dims.back() * 1.4 << "]\nset xtics (";
  for (size_t i = 0; i < dims.size(); ++i) body << (i ? ", " : "") << dims[i];
  body << ")\nset yrange [0:105]\nset xlabel 'model dim' offset 0,0.5\n";
  for (size_t pi = 0; pi < o.points.size(); ++pi)
    for (auto& f : families) {
      body << "set title '" << f << ", T " << o.points[pi].T << ", " << o.points[pi].N << " pairs'\n"
           << (pi + 1 == o.points.size() ? "set key below horizontal maxcols 2 samplen 1 width -3 font ',9'\n"
                                         : "set key off\n")  // a family's models are the same in every row
           << (&f == &families.front() ? "set ylabel 'test accuracy (%)'\n" : "unset ylabel\n") << "plot ";
      size_t c = 0;
      for (auto& m : o.models)
        if (attention_info(m).family == f)
          body << (c ? ", " : "") << block_of[{m, pi}] << " using 1:2:3 with yerrorlines lc rgb '" << kPalette[c % kPaletteSize]
               << "' pt " << 5 + c % 4 << " title " << gp_quote(m + (attention_info(m).causal_ok ? "" : " (nc)")) << ", $e"
               << block_of[{m, pi}].substr(2) << " using 1:2 with points pt 7 ps 0.6 lc rgb '" << kPalette[c % kPaletteSize]
               << "' notitle", ++c;
      body << "\n";
    }
  body << "unset multiplot\n";
  std::string problems;
  try {
    draw_with_gnuplot(o.out, "recall-dim", blocks.str(), body.str(), 320 * int(families.size()),
                      560 * int(o.points.size()) + 20);
  } catch (const std::exception& e) {
    problems += std::string("recall-dim: ") + e.what() + "\n";
  }
  // chart 2: accuracy at the state point against decoding state, causal variants: every
  // width of the grid and every value of the model's own knob, mean ± sd over seeds
  std::vector<StatePoint> spts;
  std::set<std::string> no_state;
  for (auto& m : o.models) {
    if (!attention_info(m).causal_ok) continue;
    auto add = [&](const Cell& proto, const std::string& label) {
      StatePoint sp{m, label, config_row(o, rec, proto, &test_n)};
      if (!sp.row.st.n()) return;
      if (sp.row.bytes < 0) no_state.insert(m);
      else spts.push_back(sp);
    };
    for (int64_t d : o.dims) add(make_cell(o, m, o.state_point, d, o.lrs[0], 1, "", 0, "grid"), "dim " + std::to_string(d));
    for (auto& k : state_knobs())
      if (k.model == m)
        for (double kv : k.values)
          add(make_cell(o, m, o.state_point, o.state_dim, o.lrs[0], 1, k.flag, kv, "state"), k.flag + " " + fmt("%g", kv));
  }
  // one series per model and axis (its widths; its knob at the state dim), each in order of state
  std::stable_sort(spts.begin(), spts.end(), [](const StatePoint& a, const StatePoint& b) {
    if (a.model != b.model) return a.model < b.model;
    if (a.knob() != b.knob()) return b.knob();
    return a.row.bytes < b.row.bytes;
  });
  auto same_series = [](const StatePoint& a, const StatePoint& b) { return a.model == b.model && a.knob() == b.knob(); };
  auto front = frontier(spts);
  std::ostringstream b2, p2;
  p2 << "set title 'MQAR at T " << o.state_point.T << ", " << o.state_point.N
     << " pairs: accuracy against the state kept while decoding (dots: each seed)'\n"
     << "set logscale x 2\nset format x '%g'\nset yrange [0:105]\n"
        "set xlabel 'decoding state (KiB, measured)'\nset ylabel 'test accuracy (%)'\n"
     << "set key outside right\nplot ";
  // data in bytes, drawn in KiB; a model's widths dashed with open marks, its knob solid in the same colour
  size_t k = 0, colour = 0;
  for (size_t i = 0; i < spts.size();) {
    size_t j = i;
    if (i > 0 && spts[i - 1].model != spts[i].model) ++colour;
    b2 << "$s" << k << " << EOD\n";
    for (; j < spts.size() && same_series(spts[j], spts[i]); ++j)
      b2 << spts[j].row.bytes << " " << spts[j].row.st.mean << " " << spts[j].row.st.std << "\n";
    b2 << "EOD\n$e" << k << " << EOD\n";  // every seed, a dot
    for (size_t e = i; e < j; ++e)
      for (double v : spts[e].row.st.values) b2 << spts[e].row.bytes << " " << v << "\n";
    b2 << "EOD\n";
    const StatePoint& first = spts[i];
    std::string title = first.knob() ? first.model + ": " + first.label.substr(0, first.label.find(' ')) + ", dim " +
                                           std::to_string(o.state_dim)
                                     : first.model + ": dims";
    p2 << (k ? ", " : "") << "$s" << k << " using ($1/1024):2:3 with yerrorlines lc rgb '" << kPalette[colour % kPaletteSize] << "'"
       << (first.knob() ? " dt 1 pt 7" : " dt 2 pt 6") << " title " << gp_quote(title) << ", $e" << k
       << " using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '" << kPalette[colour % kPaletteSize] << "' notitle";
    ++k, i = j;
  }
  if (!front.empty()) {
    b2 << "$front << EOD\n";
    for (auto* f : front) b2 << f->row.bytes << " " << f->row.st.mean << "\n";
    b2 << "EOD\n";
    p2 << ", $front using ($1/1024):2 with steps lw 3 lc rgb '#80000000' title 'frontier'";
  }
  p2 << "\n";
  if (k) {
    try {
      draw_with_gnuplot(o.out, "recall-state", b2.str(), p2.str(), 1150, 600);
    } catch (const std::exception& e) {
      problems += std::string("recall-state: ") + e.what() + "\n";
    }
  }
  md << "\n![accuracy against model dim](recall-dim.png)\n\n"
     << "## Recall against decoding state (T " << o.state_point.T << ", " << o.state_point.N << " pairs)\n\n"
     << "Every causal variant, trained causal, at its best learning rate, mean ± sample sd over the seeds recorded "
        "(up to " << o.seeds << "); x is the decoding state its decoder holds after " << o.state_point.T
     << " tokens, measured by feeding the trained model (KV cache, window, or recurrent state). The points of one "
        "model are its widths (dims " << [&] {
          std::vector<std::string> v;
          for (int64_t d : o.dims) v.push_back(std::to_string(d));
          return join(v, "/");
        }() << ") and its own knob at dim " << o.state_dim << ": "
     << [] {
          std::string s;
          for (auto& k : state_knobs()) {
            std::vector<std::string> v;
            for (double x : k.values) v.push_back(fmt("%g", x));
            s += (s.empty() ? "" : "; ") + k.model + " --" + k.flag + " " + join(v, "/");
          }
          return s;
        }()
     << ". The grey steps are the frontier, as Based draws it: the best mean recall reached at or below each "
        "state.\n\n![accuracy against state](recall-state.png)\n\n";
  if (!spts.empty()) {
    md << "In the chart a model's widths are dashed with open marks and its knob (at dim " << o.state_dim
       << ") solid in the same colour. Against the previous point says whether a point's recall differs from that "
          "of the same model's next smaller state on the same axis (its widths, or its knob) by more than the seed "
          "spread (Welch's test, 5%; two seeds each at least): where it says *not told apart*, the two are not "
          "ranked.\n\n"
       << "| model | point | state | recall (%) | seeds | against the previous point | on the frontier |\n"
          "|---|---|---:|---:|---:|---|---|\n";
    for (size_t i = 0; i < spts.size(); ++i) {
      const StatePoint& sp = spts[i];
      std::string vs;
      if (i > 0 && same_series(spts[i - 1], sp)) {
        const SeedStats &a = spts[i - 1].row.st, &b = sp.row.st;
        if (a.n() < 2 || b.n() < 2) vs = "(one seed)";
        else if (!differs_beyond_seeds(a, b)) vs = "not told apart";
        else vs = b.mean > a.mean ? "higher" : "lower";
      }
      md << "| " << sp.model << " | " << sp.label << " | " << kib(sp.row.bytes) << " | " << pct(sp.row.st) << " | "
         << sp.row.st.n() << " | " << vs << " | " << (std::count(front.begin(), front.end(), &sp) ? "yes" : "") << " |\n";
    }
    md << "\n";
  }
  std::vector<std::string> noncausal;
  for (auto& m : o.models)
    if (!attention_info(m).causal_ok) noncausal.push_back(m + " (" + attention_info(m).why_not_causal + ")");
  if (!noncausal.empty())
    md << "Absent from this chart, because they have no causal form and so keep no state while decoding: "
       << join(noncausal, "; ") << ".";
  if (!no_state.empty())
    md << " Causal but without an incremental state (generation re-runs the whole prefix for every token): "
       << join(std::vector<std::string>(no_state.begin(), no_state.end())) << ".";
  md << "\n";
  if (!problems.empty()) md << "\nCharts not drawn: " << problems;
  double cpu = 0;
  for (auto& [id, r] : rec) cpu += json_number(r, "cpu_seconds", 0);
  md << "\nCPU time of the recorded cells: " << fmt("%.1f", cpu / 3600) << " CPU-hours.\n";
  std::ofstream(o.out + "/results.md") << md.str();
}

const char* kHelp =
    "attnzoo recall --out DIR [flags]\n"
    "  the associative-recall sweep: every model on MQAR (--task mqar) at each (length, pairs) and width,\n"
    "  best of a learning-rate grid, and DIR/results.md with DIR/recall-dim.png (accuracy against dim,\n"
    "  a panel per length and family) and DIR/recall-state.png (accuracy against decoding state, causal models)\n"
    "  --models a,b,...    (default: all 20)\n"
    "  --points T:N,...    sequence length and key-value pairs (default 64:4,128:8,256:16,512:32)\n"
    "  --dims a,b,...      model widths (default 32,64,128)\n"
    "  --lrs a,b,...       learning rates tried on seed 1 (default 1e-3,3e-3)\n"
    "  --seeds K           seeds 2..K run at the best learning rate, widths and state knobs alike (default 2)\n"
    "  --steps S           training steps of every cell (default: the task's)\n"
    "  --train-args='...'  further flags for every cell's attnzoo train (with '=': they begin with --)\n"
    "  --threads T         OMP_NUM_THREADS of each cell (default 1)\n"
    "  --state-point T:N   where the state chart's knobs vary (default 256:16), at --state-dim D (default 64)\n"
    "  --no-state          skip the state chart's extra cells (windows, features, heads)\n"
    "  --knob-values a,b   run only these values of each knob (a budget; the report shows what is recorded)\n"
    "  --dry-run           print the cells and whether each is done; --report-only: rewrite the report\n"
    "A rerun skips finished cells (DIR/results.jsonl); seeds 2..K follow once a configuration's grid is done.\n";

}  // namespace

int cmd_recall(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h") return std::printf("%s", kHelp), 0;
  Flags f("recall", args, {"out", "models", "points", "dims", "lrs", "seeds", "steps", "train-args", "threads",
                            "state-point", "state-dim", "knob-values"},
          {"dry-run", "report-only", "no-state"});
  Options o;
  o.out = f.str("out", o.out);
  o.threads = f.str("threads", "1");
  parse_number("--threads", o.threads, 1, 256);
  o.models = f.has("models") ? split_list(f.str("models", "")) : attention_names();
  for (auto& m : o.models) attention_info(m);  // throws naming the valid ones
  if (o.models.empty()) fail("recall: --models lists no model");
  auto point = [](const std::string& flag, const std::string& s) {
    auto colon = s.find(':');
    if (colon == std::string::npos) fail("recall: " + flag + " expects LENGTH:PAIRS items, got '" + s + "'");
    Point p{int64_t(parse_number(flag, s.substr(0, colon), 4, 65536)),
            int64_t(parse_number(flag, s.substr(colon + 1), 1, 32768))};
    if (4 * p.N > p.T) fail("recall: " + flag + " " + s + ": " + std::to_string(p.N) + " pairs need at least " +
                            std::to_string(4 * p.N) + " tokens (the pairs, then a query and its answer slot per pair)");
    return p;
  };
  for (auto& s : split_list(f.str("points", "64:4,128:8,256:16,512:32"))) o.points.push_back(point("--points", s));
  o.state_point = point("--state-point", f.str("state-point", "256:16"));
  o.state_dim = int64_t(parse_number("--state-dim", f.str("state-dim", "64"), 4, 4096));
  for (auto& s : split_list(f.str("dims", "32,64,128"))) o.dims.push_back(int64_t(parse_number("--dims", s, 4, 4096)));
  for (auto& s : split_list(f.str("lrs", "1e-3,3e-3"))) o.lrs.push_back(parse_number("--lrs", s, 1e-6, 1));
  if (o.points.empty() || o.dims.empty() || o.lrs.empty()) fail("recall: --points, --dims and --lrs must list something");
  o.seeds = int(f.integer("seeds", 2));
  if (o.seeds < 1 || o.seeds > 20) fail("recall: --seeds must be in 1..20, got " + std::to_string(o.seeds));
  o.steps = f.integer("steps", 0);
  if (o.steps < 0) fail("recall: --steps must not be negative");
  std::istringstream ta(f.str("train-args", ""));
  for (std::string w; ta >> w;) o.train_args.push_back(w);
  o.dry_run = f.on("dry-run"), o.report_only = f.on("report-only"), o.no_state = f.on("no-state");
  for (auto& s : split_list(f.str("knob-values", ""))) o.knob_values.insert(parse_number("--knob-values", s, 1, 65536));
  fs::create_directories(o.out);
  if (!o.report_only) {
    std::string exe = fs::read_symlink("/proc/self/exe").string();
    InterruptGuard guard;
    while (true) {
      auto rec = records(o.out);
      int waiting = 0;
      std::vector<Cell> todo;
      for (auto& c : plan(o, rec, &waiting))
        if (!recorded(rec, c)) todo.push_back(c);  // a failed cell is not retried (its record says why)
      if (o.dry_run) {
        for (auto& c : plan(o, rec, &waiting))
          std::printf("attnzoo %s  # %s\n", join(c.args, " ").c_str(), done(rec, c) ? "done" : recorded(rec, c) ? "failed" : "to run");
        std::printf("# %d more cells wait for their learning-rate grid\n", waiting);
        return 0;
      }
      if (todo.empty()) break;
      std::fprintf(stderr, "recall: %zu cells to run (%d more wait for their learning-rate grid) in %s\n", todo.size(),
                   waiting, o.out.c_str());
      for (auto& c : todo) {
        std::string line = run_one(o, c, exe);
        if (InterruptGuard::pending()) {
          write_report(o);
          std::fprintf(stderr, "recall: interrupted; the same command resumes the sweep\n");
          return 130;
        }
        std::ofstream(o.out + "/results.jsonl", std::ios::app) << line << "\n";
      }
      if (waiting == 0) break;
    }
  }
  write_report(o);
  std::fprintf(stderr, "recall: report in %s/results.md\n", o.out.c_str());
  return 0;
}

}  // namespace az
