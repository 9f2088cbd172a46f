// The report of an `attnzoo lra` sweep (see lra.h): results.md with LRA's two
// tables (Table 1: accuracy per task and the average; Table 2: steps/s and peak
// memory relative to full attention), each of our rows beside LRA's published
// one, and LRA's chart redrawn from our measurements.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include "attention/attention.h"
#include "train/lab/bench.h"
#include "train/lab/lra.h"

namespace az {

// Tay et al., Long Range Arena, ICLR 2021: Table 1 (test accuracy, %) and
// Table 2 (byte-level Text, batch 32, TPU v3: steps/s relative to the
// Transformer at 1K/2K/4K, peak memory at 4K relative to its 9.48 GB).
// LRA's "Sparse Trans." (Child et al.) is strided attention.
const std::vector<LraPublished>& lra_published() {
  auto acc = [](double listops, double text, double retrieval, double image, double pathfinder) {
    return std::map<std::string, double>{{"listops", listops}, {"text", text}, {"retrieval", retrieval},
                                         {"image", image}, {"pathfinder", pathfinder}};
  };
  static const std::vector<LraPublished> v = {
      // ours          LRA's row          ListOps   Text  Retr.  Image  Path.      1K   2K   4K  memory 4K
      {"full",        "Transformer",     acc(36.37, 64.27, 57.46, 42.44, 71.40), 1.0, 1.0, 1.0, 1.0},
      {"local",       "Local Attention", acc(15.82, 52.98, 53.39, 41.46, 66.63), 1.1, 1.7, 5.3, 0.14},
      {"strided",     "Sparse Trans.",   acc(17.07, 63.58, 59.59, 44.24, 71.71), 0, 0, 0, 0},
      {"longformer",  "Longformer",      acc(35.63, 62.85, 56.89, 42.22, 69.71), 0, 0, 0, 0},
      {"linformer",   "Linformer",       acc(35.70, 53.94, 52.27, 38.56, 76.34), 1.2, 1.9, 5.5, 0.10},
      {"reformer",    "Reformer",        acc(37.27, 56.10, 53.40, 38.07, 68.50), 0.5, 0.4, 0.8, 0.24},
      {"sinkhorn",    "Sinkhorn",        acc(33.67, 61.20, 53.83, 41.23, 67.45), 1.1, 1.6, 3.8, 0.16},
      {"synthesizer", "Synthesizer",     acc(36.99, 61.68, 54.67, 41.61, 69.45), 1.1, 1.2, 1.4, 0.74},
      {"bigbird",     "BigBird",         acc(36.05, 64.02, 59.29, 40.83, 74.87), 0.9, 0.8, 1.1, 0.30},
      {"linear",      "Linear Trans.",   acc(16.13, 65.90, 53.09, 42.34, 75.30), 1.1, 1.9, 5.6, 0.11},
      {"performer",   "Performer",       acc(18.01, 65.40, 53.82, 42.77, 77.05), 1.2, 1.9, 5.7, 0.11},
  };
  return v;
}

double lra_published_accuracy(const LraPublished& p, const std::string& task) {
  auto it = p.accuracy.find(task);
  return it == p.accuracy.end() ? -1 : it->second;
}

std::string lra_train_id(const std::string& task, const std::string& model, int seed) {
  return task + "-" + model + (seed > 1 ? "-s" + std::to_string(seed) : "");
}

SeedStats seed_stats(const std::vector<double>& v, int64_t test_examples) {
  SeedStats st;
  st.values = v;
  if (v.empty()) return st;
  for (double x : v) st.mean += x;
  st.mean /= double(v.size());
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v) ss += (x - st.mean) * (x - st.mean);
    st.std = std::sqrt(ss / double(v.size() - 1));
  }
  if (test_examples > 0) {
    double p = st.mean / 100;
    st.se_test = 100 * std::sqrt(std::max(0.0, p * (1 - p)) / double(test_examples));
  }
  return st;
}

namespace {
// Two-sided 5% critical values of Student's t, by degrees of freedom (rounded down:
// the conservative side).
double t_critical_95(double df) {
  static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                             2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (!(df >= 1)) return t[0];
  if (df < 31) return t[int(df) - 1];
  return df < 41 ? 2.021 : df < 61 ? 2.000 : df < 121 ? 1.980 : 1.960;
}
}  // namespace

bool differs_beyond_seeds(const SeedStats& a, const SeedStats& b) {
  if (a.n() < 2 || b.n() < 2) return false;
  double va = a.std * a.std / double(a.n()), vb = b.std * b.std / double(b.n());
  double d = std::fabs(a.mean - b.mean), se = std::sqrt(va + vb);
  if (se == 0) return d > 1e-9;  // no spread on either side: any difference is one
  // Welch-Satterthwaite degrees of freedom
  double df = (va + vb) * (va + vb) / (va * va / double(a.n() - 1) + vb * vb / double(b.n() - 1));
  return d / se > t_critical_95(df);
}

std::map<std::string, JsonObject> lra_records(const LraSweep& s) {
  std::map<std::string, std::string> key_of;
  for (auto& c : s.cells) key_of[c.id] = c.key;
  std::map<std::string, JsonObject> latest;
  for (const char* file : {"/results.jsonl", "/bench.jsonl"})
    for (JsonObject& o : read_jsonl(s.dir + file)) {
      auto it = key_of.find(json_text(o, "id"));
      if (it != key_of.end() && json_text(o, "key") == it->second) latest[it->first] = o;
    }
  return latest;
}

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string length_label(int64_t n) { return n % 1024 == 0 ? std::to_string(n / 1024) + "K" : std::to_string(n); }

std::string mb(double v) { return v >= 1024 ? fmt("%.2f GB", v / 1024) : fmt("%.0f MB", v); }

const LraPublished* published(const std::string& model) {
  for (auto& p : lra_published())
    if (p.ours == model) return &p;
  return nullptr;
}

std::string md_cell(std::string t) {
  for (char& ch : t)
    if (ch == '|' || ch == '\n') ch = ch == '|' ? '/' : ' ';
  return t;
}

std::string utc_time() {
  std::time_t t = std::time(nullptr);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return b;
}

std::string title_of(const std::string& task) {
  const std::string& t = task_info(task).lra.title;
  return t.empty() ? task : t;
}

// Where the records were made: a sweep resumed in another session may have run on
// another CPU or build, and its cells' times are only comparable within one machine.
std::string machines_line(const std::map<std::string, JsonObject>& rec) {
  std::map<std::string, std::pair<int, std::set<std::string>>> where;  // "CPU, SIMD" -> (cells, builds)
  int unnamed = 0;
  for (auto& [id, r] : rec) {
    if (json_text(r, "cpu").empty()) { ++unnamed; continue; }
    auto& w = where[json_text(r, "cpu") + ", SIMD " + json_text(r, "simd")];
    ++w.first, w.second.insert(json_text(r, "build"));
  }
  if (where.empty()) return "";
  std::string line = "The records were made on ";
  size_t i = 0;
  for (auto& [machine, w] : where) {
    line += (i++ ? "; " : "") + machine + " (" + std::to_string(w.first) + (w.first == 1 ? " record" : " records") + ", build";
    line += w.second.size() > 1 ? "s" : "";
    size_t j = 0;
    for (auto& b : w.second) line += (j++ ? ", " : " ") + b;
    line += ")";
  }
  if (unnamed) line += "; " + std::to_string(unnamed) + (unnamed == 1 ? " record names" : " records name") + " no machine (written before records did)";
  return line + ". Times compare only within one machine.\n\n";
}

}  // namespace

std::string write_lra_report(const LraSweep& s, bool charts) {
  const LraPreset& p = *s.preset;
  std::map<std::string, JsonObject> rec = lra_records(s);
  auto ok = [&](const std::string& id) -> const JsonObject* {
    auto it = rec.find(id);
    return it != rec.end() && json_text(it->second, "status") == "ok" ? &it->second : nullptr;
  };
  std::vector<std::string> order = s.models;  // full attention first, as in LRA's tables
  auto full_it = std::find(order.begin(), order.end(), "full");
  if (full_it != order.end()) order.erase(full_it), order.insert(order.begin(), "full");

  // accuracy per (model, task) over its seeds, and the averages
  std::map<std::pair<std::string, std::string>, SeedStats> acc;  // (task, model)
  std::map<std::pair<std::string, std::string>, bool> failed;
  std::map<std::string, double> chance;
  std::map<std::string, int64_t> test_size;
  for (auto& t : s.tasks)
    for (auto& m : order) {
      std::vector<double> v;
      double cpu = 0;
      for (int seed = 1; seed <= s.seeds; ++seed) {
        std::string id = lra_train_id(t, m, seed);
        if (auto* r = ok(id)) {
          v.push_back(100 * json_number(*r, "test_acc", 0));
          cpu += json_number(*r, "cpu_seconds", 0);
          chance[t] = 100 * json_number(*r, "majority_rate", 0);
          if (int64_t n = int64_t(json_number(*r, "test_examples", 0))) test_size[t] = n;
        } else if (rec.count(id)) {
          failed[{t, m}] = true;
        }
      }
      if (v.empty()) continue;
      SeedStats st = seed_stats(v, test_size.count(t) ? test_size[t] : 0);
      st.cpu_minutes = cpu / 60 / double(v.size());
      acc[{t, m}] = st;
    }
  // the average over tasks: mean of the task means; its spread is that of one seed's
  // average, sqrt(sum of the task variances) / T (the tasks' runs are independent)
  std::map<std::string, double> average, average_std;
  for (auto& m : order) {
    double sum = 0, var = 0;
    size_t n = 0;
    for (auto& t : s.tasks)
      if (auto it = acc.find({t, m}); it != acc.end()) sum += it->second.mean, var += it->second.std * it->second.std, ++n;
    if (n == s.tasks.size() && n > 0) average[m] = sum / double(n), average_std[m] = std::sqrt(var) / double(n);
  }
  auto acc_cell = [&](const SeedStats& st) {
    if (s.seeds == 1) return fmt("%.1f", st.mean);
    std::string c = st.n() > 1 ? fmt("%.1f", st.mean) + " ± " + fmt("%.1f", st.std) : fmt("%.1f", st.mean);
    if (int(st.n()) < s.seeds) c += " (" + std::to_string(st.n()) + " of " + std::to_string(s.seeds) + ")";
    return c;
  };
  std::ostringstream md;
  md << "# Long Range Arena on a CPU: preset `" << p.name << "`\n\n"
     << "`" << s.command << "`\n\n"
     << "Report written " << utc_time() << " on " << cpu_name()
     << " (" << sysconf(_SC_NPROCESSORS_ONLN) << " cores), OMP_NUM_THREADS=" << s.threads << " per cell. Preset: " << p.purpose
     << ".\n\n" << machines_line(rec)
     << "Every model is trained with the same model size and budget within a task (table at the end), each cell in "
        "its own process; test accuracy is that of the best-validation checkpoint.";
  if (s.seeds > 1)
    md << " Each (task, model) is trained " << s.seeds << " times (`--seed` 1.." << s.seeds
       << ": initialisation, dropout and batch order; the data are the same): a cell shows the mean ± the sample "
          "standard deviation over the seeds, and \"(2 of 3)\" when seeds are still missing. Every run's own value "
          "is in results.jsonl (field `seed`).";
  md << "\n\n## Test accuracy (%), LRA Table 1 layout\n\n| Model | family |";
  for (auto& t : s.tasks) md << " " << title_of(t) << " |";
  md << " Avg |\n|---|---|";
  for (size_t i = 0; i <= s.tasks.size(); ++i) md << "---:|";
  md << "\n| chance (majority class) | |";
  double chance_sum = 0;
  for (auto& t : s.tasks) {
    md << " " << (chance.count(t) ? fmt("%.1f", chance[t]) : "—") << " |";
    chance_sum += chance.count(t) ? chance[t] : 0;
  }
  bool chance_known = chance.size() == s.tasks.size();
  md << " " << (chance_known ? fmt("%.1f", chance_sum / double(s.tasks.size())) : "—") << " |\n";
  // the sampling error of one run's accuracy: binomial, at full attention's accuracy
  // (else the first model's) on the task's test set
  md << "| test-set standard error (binomial) | |";
  for (auto& t : s.tasks) {
    const SeedStats* ref = nullptr;
    for (auto& m : order)
      if (!ref && acc.count({t, m}) && test_size.count(t)) ref = &acc[{t, m}];
    md << " " << (ref ? "± " + fmt("%.1f", ref->se_test) + " (n=" + std::to_string(test_size[t]) + ")" : std::string("")) << " |";
  }
  md << " |\n";
  // Baselines a task's data set came with (DIR/data/TASK/baselines.jsonl: the
  // shortcut baselines of Pathfinder, the bag-of-bytes of Retrieval), one row each.
  std::vector<std::string> baseline_names;
  std::map<std::pair<std::string, std::string>, double> baseline;
  for (auto& t : s.tasks)
    for (const JsonObject& b : read_jsonl(s.dir + "/data/" + t + "/baselines.jsonl")) {
      std::string name = json_text(b, "name");
      if (std::find(baseline_names.begin(), baseline_names.end(), name) == baseline_names.end())
        baseline_names.push_back(name);
      baseline[{name, t}] = 100 * json_number(b, "test_acc", 0);
    }
  for (auto& name : baseline_names) {
    if (name == "majority") continue;  // the chance row above
    md << "| baseline: " << md_cell(name) << " | |";
    for (auto& t : s.tasks) md << " " << (baseline.count({name, t}) ? fmt("%.1f", baseline[{name, t}]) : "") << " |";
    md << " |\n";
  }
  for (auto& m : order) {
    md << "| **" << m << "** | " << attention_info(m).family << " |";
    for (auto& t : s.tasks) {
      auto it = acc.find({t, m});
      if (it != acc.end()) md << " " << acc_cell(it->second) << " |";
      else md << " " << (failed.count({t, m}) ? "failed" : "") << " |";
    }
    if (!average.count(m)) md << " — |\n";
    else if (s.seeds > 1) md << " **" << fmt("%.1f", average[m]) << " ± " << fmt("%.1f", average_std[m]) << "** |\n";
    else md << " " << fmt("**%.1f**", average[m]) << " |\n";
    if (const LraPublished* lp = published(m)) {
      md << "| *LRA: " << lp->lra_name << "* | |";
      double ls = 0;
      bool all = true;
      for (auto& t : s.tasks) {
        double a = lra_published_accuracy(*lp, t);
        all = all && a >= 0, ls += a;
        md << " " << (a >= 0 ? "*" + fmt("%.2f", a) + "*" : std::string("—")) << " |";
      }
      md << " " << (all ? "*" + fmt("%.2f", ls / double(s.tasks.size())) + "*" : std::string("—")) << " |\n";
    }
  }
  md << "\nLRA's rows are the paper's (TPU, far longer training, LRA's own data: IMDb reviews for Text, CIFAR-10 for "
        "Image, ListOps of 500-2000 tokens, Pathfinder-32 with 200K images); its average is recomputed over the tasks "
        "shown, so it differs from the paper's Avg column. Our Text is Spam Assassin "
        "e-mail bodies (ham or spam, majority class about 70%) and our Image is Fashion-MNIST, so those two columns "
        "are not comparable with LRA's, only the ranking of the models is. An empty cell has not run; see the failures "
        "below.\n\n";

  // which differences from full attention the seeds can tell apart
  if (s.seeds > 1 && std::find(order.begin(), order.end(), "full") != order.end()) {
    md << "## Difference from full attention (points)\n\n"
       << "Mean accuracy minus full attention's, per task. **Bold** with ↑ or ↓: the difference exceeds what the seed "
          "spread explains (Welch's t-test over the seeds, two-sided 5%); plain: within the spread, so the table "
          "cannot tell the two apart. Empty: fewer than two seeds on one side.\n\n| Model |";
    for (auto& t : s.tasks) md << " " << title_of(t) << " |";
    md << "\n|---|";
    for (size_t i = 0; i < s.tasks.size(); ++i) md << "---:|";
    md << "\n";
    for (auto& m : order) {
      if (m == "full") continue;
      md << "| " << m << " |";
      for (auto& t : s.tasks) {
        auto a = acc.find({t, m}), f = acc.find({t, "full"});
        if (a == acc.end() || f == acc.end() || a->second.n() < 2 || f->second.n() < 2) {
          md << " |";
          continue;
        }
        double d = a->second.mean - f->second.mean;
        std::string v = fmt("%+.1f", d);
        if (differs_beyond_seeds(a->second, f->second)) v = "**" + v + (d > 0 ? " ↑" : " ↓") + "**";
        md << " " << v << " |";
      }
      md << "\n";
    }
    md << "\n";
  }

  // the cost of each training cell
  md << "## Training cost: steps/s (evaluation excluded), peak memory and CPU time of each cell\n\n"
     << "Peak memory is the cell's whole process: data, model, optimizer state, activations, and the allocator's "
        "cache of freed buffers (cached plus in use stay under twice the peak in use). Steps/s is wall-clock: it is only comparable "
        "between cells that ran on equally idle cores. The bench below compares speed and memory at fixed "
        "shapes. CPU time is the whole cell's (data loading, training, validation, test), mean over its seeds.\n\n| Model |";
  for (auto& t : s.tasks) md << " " << title_of(t) << " |";
  md << "\n|---|";
  for (size_t i = 0; i < s.tasks.size(); ++i) md << "---:|";
  md << "\n";
  for (auto& m : order) {
    md << "| " << m << " |";
    for (auto& t : s.tasks) {
      if (auto* r = ok(lra_train_id(t, m, 1)))
        md << " " << fmt("%.2f", json_number(*r, "steps_per_s", 0)) << " · " << mb(json_number(*r, "peak_rss_mb", 0)) << " · "
           << fmt(acc[{t, m}].cpu_minutes < 1 ? "%.2f" : acc[{t, m}].cpu_minutes < 10 ? "%.1f" : "%.0f", acc[{t, m}].cpu_minutes) << " CPU-min |";
      else md << " |";
    }
    md << "\n";
  }

  // speed and memory at growing lengths
  const LraBench& b = p.bench;
  int64_t longest = b.lengths.empty() ? 0 : b.lengths.back();
  bool lra_lengths = b.lengths == std::vector<int64_t>{1024, 2048, 4096};
  bool any_bench = false;
  for (auto& c : s.cells) any_bench |= c.kind == "bench";
  if (any_bench) {
    md << "\n## Speed and memory, LRA Table 2 layout\n\n"
       << "`attnzoo bench`: training steps on random bytes, batch " << b.batch << ", " << b.layers << " layer(s), dim "
       << b.dim << ", " << b.heads << " heads, FFN " << b.ffn << ", " << b.steps << " timed step(s) after " << b.warmup
       << " warm-up, one process per measurement. Full attention's row is absolute; the others are relative to it at "
          "the same length (speed: higher is faster; memory: lower is smaller). Peak memory is the whole process's "
          "(parameters, optimizer state, activations).\n\n| Model";
    for (size_t i = 0; i < b.lengths.size(); ++i) md << " | " << (i ? "" : "steps/s ") << length_label(b.lengths[i]);
    for (size_t i = 0; i < b.lengths.size(); ++i) md << " | " << (i ? "" : "peak memory ") << length_label(b.lengths[i]);
    md << " |\n|---|";
    for (size_t i = 0; i < 2 * b.lengths.size(); ++i) md << "---:|";
    md << "\n";
    for (auto& m : order) {
      md << "| " << m;
      for (int pass = 0; pass < 2; ++pass) {
        const char* field = pass == 0 ? "steps_per_s" : "peak_rss_mb";
        for (auto n : b.lengths) {
          std::string id = "bench-" + std::to_string(n) + "-", cell;
          const JsonObject* r = ok(id + m);
          const JsonObject* full = ok(id + "full");
          auto it = rec.find(id + m);
          if (!r) cell = it == rec.end() ? "" : "failed";
          else if (m == "full" || !full) cell = pass == 0 ? fmt("%.3g", json_number(*r, field, 0)) : mb(json_number(*r, field, 0));
          else cell = fmt(pass == 0 ? "%.2fx" : "%.2f", json_number(*r, field, 0) / std::max(1e-9, json_number(*full, field, 0)));
          md << " | " << cell;
        }
      }
      md << " |\n";
      const LraPublished* lp = published(m);
      if (lp && lra_lengths && lp->speed_1k > 0 && m != "full")
        md << "| *LRA: " << lp->lra_name << "* | *" << fmt("%.1fx", lp->speed_1k) << "* | *" << fmt("%.1fx", lp->speed_2k)
           << "* | *" << fmt("%.1fx", lp->speed_4k) << "* | | | *" << fmt("%.2f", lp->memory_4k) << "* |\n";
    }
    if (lra_lengths)
      md << "\nLRA's rows: paper Table 2, TPU v3 (steps/s relative to its Transformer; memory at 4K relative to its "
            "9.48 GB). On a CPU with few threads the quadratic cost shows earlier and the constant factors differ.\n";
  }

  // the chart
  std::string problem;
  if (charts) {
    BubbleChart ch;
    std::string task_list;
    for (auto& t : s.tasks) task_list += (task_list.empty() ? "" : ", ") + title_of(t);
    ch.title = "Long Range Arena on this CPU (preset " + p.name + ")";
    ch.xlabel = "training steps/s at " + std::to_string(longest) + " tokens (attnzoo bench, batch " +
                std::to_string(b.batch) + ", " + std::to_string(b.layers) + " layer(s), dim " + std::to_string(b.dim) +
                "), log scale";
    ch.ylabel = "average test accuracy (%): " + task_list;
    ch.size_note = "family (bubble area: peak memory at " + length_label(longest) + ")";
    ch.chance = chance_known ? chance_sum / double(s.tasks.size()) : -1;
    // model m's bubble at accuracy y +- err, if m has a bench at the longest length
    auto add_point = [&](BubbleChart& c, const std::string& m, double y, double err) {
      const JsonObject* r = ok("bench-" + std::to_string(longest) + "-" + m);
      if (r)
        c.points.push_back({m, attention_info(m).family, json_number(*r, "steps_per_s", 0), y,
                            json_number(*r, "peak_rss_mb", 0), err});
      return r != nullptr;
    };
    std::vector<std::string> missing;
    for (auto& m : order)
      if (!average.count(m) || !add_point(ch, m, average[m], s.seeds > 1 ? average_std[m] : 0)) missing.push_back(m);
    try {
      md << "\n## The chart\n\n";
      if (ch.points.empty()) {
        md << "No model has an average over all tasks and a bench at " << length_label(longest)
           << " yet, so the average chart is not drawn.\n";
      } else {
        draw_bubble_chart(ch, s.dir, "chart");
        md << "![accuracy against speed against memory](chart.svg)\n\n"
           << "x: training steps/s at " << length_label(longest) << " tokens (the bench above); y: average test accuracy "
           << "over " << task_list << "; bubble area: peak memory at " << length_label(longest)
           << (s.seeds > 1 ? "; error bars: ± one standard deviation of the average over the seeds" : "")
           << ". The script is chart.gp.";
        if (!missing.empty()) {
          md << " Not drawn (no average or no bench at " << length_label(longest) << "):";
          for (auto& m : missing) md << " " << m;
          md << ".";
        }
        md << "\n";
      }
      // One chart per task as well: the average needs every task, these show each task's
      // models as soon as they have a result (a sweep in progress, or --tasks).
      std::string per_task;
      for (auto& t : s.tasks) {
        BubbleChart ct = ch;
        ct.points.clear();
        ct.title = title_of(t) + " on this CPU (preset " + p.name + ")";
        ct.ylabel = "test accuracy (%): " + title_of(t);
        ct.chance = chance.count(t) ? chance[t] : -1;
        for (auto& m : order)
          if (auto a = acc.find({t, m}); a != acc.end()) add_point(ct, m, a->second.mean, a->second.n() > 1 ? a->second.std : 0);
        if (ct.points.empty()) continue;
        draw_bubble_chart(ct, s.dir, "chart-" + t);
        per_task += "\n![" + title_of(t) + "](chart-" + t + ".svg)\n";
      }
      if (!per_task.empty())
        md << "\nPer task (same axes; y: that task's mean test accuracy, error bars over its seeds, dashed: "
              "the majority class):\n" << per_task;
    } catch (const std::exception& e) {
      problem = std::string("chart not drawn: ") + e.what();
      md << "\n" << md_cell(problem) << "\n";  // under the section's heading, written above
    }
  }

  // failures
  std::ostringstream fails;
  for (auto& c : s.cells) {
    auto it = rec.find(c.id);
    if (it != rec.end() && json_text(it->second, "status") != "ok")
      fails << "| " << c.id << " | " << md_cell(json_text(it->second, "error")) << " |\n";
  }
  if (!fails.str().empty())
    md << "\n## Failed cells\n\nEach cell's log is in cells/ID/stderr.log. `--retry-failed` runs them again.\n\n"
       << "| cell | error (the last line the cell wrote) |\n|---|---|\n" << fails.str();

  // how long it took
  double wall[2] = {0, 0}, cpu[2] = {0, 0};
  for (auto& [id, r] : rec) {
    int k = json_text(r, "kind") == "bench";
    wall[k] += json_number(r, "wall_seconds", 0), cpu[k] += json_number(r, "cpu_seconds", 0);
  }
  md << "\nTime in cells: training " << fmt("%.1f", wall[0] / 60) << " min (CPU " << fmt("%.1f", cpu[0] / 60)
     << " min), bench " << fmt("%.1f", wall[1] / 60) << " min (CPU " << fmt("%.1f", cpu[1] / 60)
     << " min). CPU time well below wall time times the threads means the machine was busy with other work.\n";

  // the preset
  md << "\n## The preset `" << p.name << "`\n\nData (written once to data/TASK, read by every model):\n\n";
  for (auto& n : s.data_notes) md << "- " << n << "\n";
  md << "\n| task | seq. length | model (every variant) | budget |\n|---|---:|---|---|\n";
  for (auto& t : lra_tasks(p)) {
    if (std::find(s.tasks.begin(), s.tasks.end(), t.name) == s.tasks.end()) continue;
    auto sc = [&](int64_t v) { return std::max<int64_t>(1, int64_t(std::llround(double(v) * s.steps_scale))); };
    md << "| " << t.name << " | " << t.data.seq_len << " | dim " << t.dim << ", " << t.heads << " heads, " << t.layers
       << " layer(s), FFN " << t.ffn << " | " << sc(t.steps) << " steps x batch " << t.batch << ", AdamW lr "
       << fmt("%g", t.lr) << ", warm-up " << sc(t.warmup) << " then cosine, validation every "
       << std::min(sc(t.steps), sc(t.eval_every)) << " steps |\n";
  }
  md << "\nEach variant runs with its own default settings (`attnzoo models`)"
     << " unless `--model-args` says otherwise. A cell's run is in cells/TASK-MODEL, or cells/TASK-MODEL-sK for seed K > 1 (metrics.jsonl, curves.png, "
        "best.ckpt, logs); results.jsonl and bench.jsonl hold one record per cell.\n";
  std::ofstream(s.dir + "/results.md") << md.str();
  return problem;
}

}  // namespace az
