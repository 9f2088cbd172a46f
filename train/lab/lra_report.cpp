// The report of an `attnzoo lra` sweep (see lra.h): results.md with LRA's two
// tables (Table 1: accuracy per task and the average; Table 2: steps/s and peak
// memory relative to full attention), each of our rows beside LRA's published
// one, and LRA's chart redrawn from our measurements.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "attention/attention.h"
#include "autograd/runtime/strings.h"
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

namespace {

std::string superscript(size_t k) {
  static const char* d[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string s;
  for (char ch : std::to_string(k)) s += d[ch - '0'];
  return s;
}

std::string names(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? (i + 1 == v.size() ? " and " : ", ") : "") + v[i];
  return s;
}

// ---- LRA's own recipes, run outside the preset (issues 68 and 78) ----
// At LRA's lengths the full preset's budget leaves Pathfinder and Retrieval at chance for every
// model; LRA's own recipe (its steps, batch and each model's own size) is run per model by
// bench/TASK_lra.sh, whose `publish`/`test` modes keep the run in docs/TASK-lra/MODEL/:
// config.json, metrics.jsonl and test.txt (eval's line for the best validation's checkpoint).
// Such a run stands in the full preset's headline table for the preset's own cell, marked; the
// folders are read from where attnzoo runs, the repository's root, as the scripts are.
struct RecipeColumn {
  std::string task, root, recipe, script, unit;
};
const std::vector<RecipeColumn>& recipe_columns(const LraPreset& p) {
  static const std::vector<RecipeColumn> lra = {
      {"pathfinder", "docs/pathfinder-lra", "LRA's Pathfinder-32 recipe", "bench/pathfinder_lra.sh", "images"},
      {"retrieval", "docs/retrieval-lra", "LRA's matching recipe", "bench/retrieval_lra.sh", "pairs"},
  };
  static const std::vector<RecipeColumn> none;
  return p.name == "full" ? lra : none;  // the preset at LRA's lengths, the one read beside LRA's Table 1
}

struct RecipeRun {
  std::string folder, about;  // docs/pathfinder-lra/full; "LRA's ... recipe on 4x4 patches (bench/...)"
  double acc = 0;             // test accuracy of the best validation's checkpoint, %
  int64_t n_test = 0;         // test examples
  int64_t steps = 0, of_steps = 0, batch = 0, seed = 0;
};

std::string slurp_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A value of config.json (every value is a string there): "" when absent.
std::string config_value(const std::string& json, const std::string& key) {
  std::string k = "\"" + key + "\":\"";
  size_t at = json.find(k);
  if (at == std::string::npos) return "";
  at += k.size();
  return json.substr(at, json.find('"', at) - at);
}

// The run in DIR (docs/TASK-lra/MODEL), or false when DIR holds no test.txt yet.
bool read_recipe_run(const RecipeColumn& rc, const std::string& dir, RecipeRun& r) {
  std::ifstream in(dir + "/test.txt");
  if (!in) return false;
  r.folder = dir;
  bool found = false;
  for (std::string line; std::getline(in, line);) {
    long long n = 0;
    double acc = 0, loss = 0;
    if (std::sscanf(line.c_str(), "test accuracy %lf, loss %lf over %lld examples", &acc, &loss, &n) == 3)
      r.acc = 100 * acc, r.n_test = n, found = true;
  }
  if (!found || r.n_test <= 0)
    throw std::runtime_error(dir + "/test.txt: expected eval's line 'test accuracy A, loss L over N examples'");
  std::string cfg = slurp_text(dir + "/config.json");
  r.batch = std::atoll(config_value(cfg, "batch").c_str());
  r.of_steps = std::atoll(config_value(cfg, "steps").c_str());
  r.seed = std::atoll(config_value(cfg, "seed").c_str());
  for (const JsonObject& o : read_jsonl(dir + "/metrics.jsonl")) r.steps = std::max(r.steps, int64_t(json_number(o, "step", 0)));
  r.about = rc.recipe;
  if (config_value(cfg, "task.input") == "patches") {
    std::string k = config_value(cfg, "task.patch");
    r.about += " on " + k + "x" + k + " patches";
  }
  r.about += " (" + rc.script + ")";
  return true;
}

// 62500 -> "62,500"; 32000000 -> "32.00M"
std::string grouped(int64_t v) {
  std::string d = std::to_string(v), out;
  for (size_t i = 0; i < d.size(); ++i) out += (i && (d.size() - i) % 3 == 0 && d[i - 1] != '-' ? "," : "") + std::string(1, d[i]);
  return out;
}
std::string millions(int64_t v) { return v >= 1000000 ? fmt("%.2fM", double(v) / 1e6) : grouped(v); }

// A run's cell source, one line: what, how much of it, and the file the figure is read from.
std::string recipe_source(const RecipeRun& r, const RecipeColumn& rc) {
  std::string steps = r.steps > 0 ? ", " + grouped(r.steps) + " of its " + grouped(r.of_steps) + " steps of " +
                                        grouped(r.batch) + " (" + millions(r.steps * r.batch) + " " + rc.unit + ")"
                                  : "";
  return r.about + ", 1 seed (seed " + std::to_string(r.seed) + ")" + steps +
         ", the best validation's checkpoint on " + grouped(r.n_test) + " test examples: " + r.folder + "/test.txt";
}

}  // namespace

std::string write_lra_report(const LraSweep& s, bool charts) {
  const LraPreset& p = *s.preset;
  std::map<std::string, JsonObject> rec = lra_records(s);
  auto ok = [&](const std::string& id) -> const JsonObject* {
    auto it = rec.find(id);
    return it != rec.end() && json_text(it->second, "status") == "ok" ? &it->second : nullptr;
  };
  LraTable tab = lra_table(s, rec);
  const std::vector<std::string>& order = tab.models;
  std::vector<LraColumn>& cols = tab.columns;
  std::map<std::pair<std::string, std::string>, SeedStats>& val = tab.values;
  const std::vector<std::string>&lra_tasks = tab.lra_tasks, &score_tasks = tab.score_tasks;
  std::map<std::string, SeedStats>&lra_mean = tab.lra_mean, &score = tab.score;
  auto column_names = [&](const std::vector<std::string>& tasks) {
    std::vector<std::string> v;
    for (auto& t : tasks) v.push_back(title_of(t));
    return names(v);
  };
  auto chance_over = [&](const std::vector<std::string>& tasks) {
    double sum = 0;
    for (auto& c : cols)
      if (std::find(tasks.begin(), tasks.end(), c.task) != tasks.end()) {
        if (c.chance < 0) return -1.0;
        sum += c.chance;
      }
    return tasks.empty() ? -1.0 : sum / double(tasks.size());
  };

  // a dash and its footnote for every cell a model cannot run
  std::vector<std::string> reasons;                    // footnote k+1's reason
  std::map<std::string, std::vector<std::string>> who;  // reason -> "model on Title"
  auto dash = [&](const std::string& t, const std::string& m) -> std::string {
    std::string why = lra_cannot_run(t, m);
    if (why.empty()) return "";
    auto it = std::find(reasons.begin(), reasons.end(), why);
    if (it == reasons.end()) reasons.push_back(why), it = reasons.end() - 1;
    std::string cell = m + " on " + title_of(t);
    if (std::find(who[why].begin(), who[why].end(), cell) == who[why].end()) who[why].push_back(cell);
    return "—" + superscript(size_t(it - reasons.begin()) + 1);
  };

  auto value_cell = [&](const SeedStats& st, bool bits) {
    const char* f = bits ? "%.3f" : "%.1f";
    if (s.seeds == 1) return fmt(f, st.mean);
    std::string c = st.n() > 1 ? fmt(f, st.mean) + " ± " + fmt(f, st.std) : fmt(f, st.mean);
    if (int(st.n()) < s.seeds) c += " (" + std::to_string(st.n()) + " of " + std::to_string(s.seeds) + ")";
    return c;
  };
  auto mean_cell = [&](const std::map<std::string, SeedStats>& agg, const std::string& m) -> std::string {
    auto it = agg.find(m);
    if (it == agg.end()) return "";
    const SeedStats& st = it->second;
    std::string c = "**" + fmt("%.1f", st.mean) + (s.seeds > 1 && st.n() > 1 ? " ± " + fmt("%.1f", st.std) : "") + "**";
    if (s.seeds > 1 && int(st.n()) < s.seeds)
      c += " (" + std::to_string(st.n()) + " of " + std::to_string(s.seeds) + " seeds complete)";
    return c;
  };
  auto heading = [&](const LraColumn& c) { return c.bits ? c.title + " (bits/byte, lower is better)" : c.title; };

  // The LRA-recipe runs that stand in the headline table for the preset's own cells (marked ʳ),
  // and the columns that take them, whose other cells are marked as the preset's own budget (ᵖ).
  std::map<std::string, const RecipeColumn*> recipe_col;            // task -> its recipe
  std::map<std::pair<std::string, std::string>, RecipeRun> recipe;  // (task, model) -> its run
  std::vector<std::string> not_rows;                                // runs there that are no row here
  for (auto& rc : recipe_columns(p)) {
    if (std::none_of(cols.begin(), cols.end(), [&](const LraColumn& c) { return c.task == rc.task; })) continue;
    recipe_col[rc.task] = &rc;
    std::error_code ec;  // no folder: no run yet
    std::vector<std::string> found;
    for (auto& e : std::filesystem::directory_iterator(rc.root, ec)) found.push_back(e.path().filename().string());
    std::sort(found.begin(), found.end());
    for (auto& m : found) {
      RecipeRun r;
      if (!read_recipe_run(rc, rc.root + "/" + m, r)) continue;
      if (std::find(order.begin(), order.end(), m) != order.end()) recipe[{rc.task, m}] = r;
      else not_rows.push_back(m + " (" + r.about + ", " + fmt("%.1f", r.acc) + ": " + r.folder + ")");
    }
  }
  std::vector<std::string> recipe_tasks;  // the columns that take recipe runs, in the table's order
  for (auto& c : cols)
    if (recipe_col.count(c.task)) recipe_tasks.push_back(c.task);
  auto recipe_of = [&](const std::string& t, const std::string& m) -> const RecipeRun* {
    auto it = recipe.find({t, m});
    return it == recipe.end() ? nullptr : &it->second;
  };
  // " (chance)" after a value within the 95% band around the column's majority class
  // (lra_chance_margin on the test set the value was measured on), in the columns that take
  // recipe runs: there a cell may come from either budget, and which ones learned is the point
  auto chance_tag = [&](const LraColumn& c, double v, int64_t n) -> std::string {
    bool at_chance = !c.bits && c.chance >= 0 && n > 0 && std::fabs(v - c.chance) <= lra_chance_margin(c.chance, n);
    return recipe_col.count(c.task) && at_chance ? " (chance)" : "";
  };

  // LRA avg as the headline table shows it: the mean of the row's cells as shown, a recipe run's
  // cell included (marked ʳ); its ± is the spread of the preset's cells only (one seed has none).
  auto headline_mean = [&](const std::string& m) -> std::string {
    bool any = false;
    for (auto& t : lra_tasks) any |= recipe_of(t, m) != nullptr;
    if (!any) return mean_cell(lra_mean, m);
    double sum = 0, var = 0;
    for (auto& t : lra_tasks) {
      auto it = val.find({t, m});
      if (const RecipeRun* r = recipe_of(t, m)) sum += r->acc;
      else if (it != val.end()) sum += it->second.mean, var += it->second.std * it->second.std;
      else return std::string();
    }
    double n = double(lra_tasks.size());
    return "**" + fmt("%.1f", sum / n) + (s.seeds > 1 ? " ± " + fmt("%.1f", std::sqrt(var) / n) : "") + "** ʳ";
  };

  std::ostringstream md;
  md << "# Long Range Arena on a CPU: preset `" << p.name << "`\n\n"
     << "`" << s.command << "`\n\n"
     << "Report written " << utc_time() << " on " << cpu_name()
     << " (" << sysconf(_SC_NPROCESSORS_ONLN) << " cores), OMP_NUM_THREADS=" << s.threads << " per cell. Preset: " << p.purpose
     << ".\n\n" << machines_line(rec)
     << "Every model is trained with the same model size and budget within a task (table at the end), each cell in "
        "its own process; the test result is that of the best-validation checkpoint.";
  if (s.seeds > 1)
    md << " Each (task, model) is trained " << s.seeds << " times (`--seed` 1.." << s.seeds
       << ": initialisation, dropout and batch order; the data are the same): a cell shows the mean ± the sample "
          "standard deviation over the seeds, and \"(2 of 3)\" when seeds are still missing. Every run's own value "
          "is in results.jsonl (field `seed`).";
  md << "\n\n";

  // ---- the score: which columns it averages, and why the others are left out ----
  md << "**Score** (the main chart's axis): ";
  if (score_tasks.empty())
    md << "none yet: no accuracy column has a model beating chance by more than the test error at this budget";
  else
    md << "the mean test accuracy over " << column_names(score_tasks)
       << ", the columns on which some model beats chance by more than the test error at this budget";
  md << " (its best model's mean exceeds the majority class by more than twice the binomial standard error of a test "
        "accuracy at chance on that test set, the 95% band around chance).";
  for (auto& c : cols) {
    if (c.bits) {
      md << " " << c.title << " is left out: bits per byte, lower is better, a column of its own, never averaged with "
            "accuracies.";
      continue;
    }
    if (c.best < 0) {
      md << " " << c.title << ": no record yet, not decided.";
      continue;
    }
    double margin = lra_chance_margin(c.chance, c.n_test);
    md << " " << c.title << ": best " << c.best_model << " " << fmt("%.1f", c.best) << ", chance " << fmt("%.1f", c.chance)
       << ", margin " << (std::isfinite(margin) ? fmt("%.1f", margin) : std::string("unknown (no test size)"))
       << (c.scored ? " (in)." : " (left out).");
  }
  if (!lra_tasks.empty())
    md << " **LRA avg**: the mean over LRA's tasks (" << column_names(lra_tasks)
       << "), as in LRA's Table 1 (the second chart)" << (recipe.empty() ? "." : "; in the table below, over the cells as shown (ʳ: with LRA-recipe cells), in the chart over the preset's own.");
  if (!recipe.empty()) md << " The score reads the preset's own cells only.";
  md << "\n\n";

  // ---- Table 1 ----
  md << "## Test results, LRA Table 1 layout (accuracy %; " << [&] {
    std::string b;
    for (auto& c : cols)
      if (c.bits) b += (b.empty() ? "" : ", ") + c.title;
    return b.empty() ? std::string("every column") : "every column but " + b + ": bits per byte";
  }() << ")\n\n| Model | family |";
  for (auto& c : cols) md << " " << heading(c) << " |";
  md << " LRA avg | Score |\n|---|---|";
  for (size_t i = 0; i < cols.size() + 2; ++i) md << "---:|";
  md << "\n| chance (majority class) | |";
  for (auto& c : cols) md << " " << (c.bits || c.chance < 0 ? "—" : fmt("%.1f", c.chance)) << " |";
  for (auto* tasks : {&lra_tasks, &score_tasks}) {
    double ch = chance_over(*tasks);
    md << " " << (ch >= 0 ? fmt("%.1f", ch) : "—") << " |";
  }
  md << "\n";
  // the sampling error of one run's accuracy: binomial, at full attention's accuracy
  // (else the first model's) on the task's test set
  md << "| test-set standard error (binomial) | |";
  for (auto& c : cols) {
    const SeedStats* ref = nullptr;
    for (auto& m : order)
      if (!ref && val.count({c.task, m}) && c.n_test > 0 && !c.bits) ref = &val[{c.task, m}];
    std::string se = ref ? "± " + fmt("%.1f", ref->se_test) + " (n=" + std::to_string(c.n_test) + ")" : "";
    for (auto& m : order)  // a recipe run's test set: at the first such run's accuracy
      if (const RecipeRun* r = recipe_of(c.task, m)) {
        double q = r->acc / 100;
        se += (se.empty() ? "" : "; ") + std::string("ʳ ± ") + fmt("%.1f", 100 * std::sqrt(q * (1 - q) / double(r->n_test))) +
              " (n=" + std::to_string(r->n_test) + ")";
        break;
      }
    md << " " << se << " |";
  }
  md << " | |\n";
  // Baselines a task's data set came with (DIR/data/TASK/baselines.jsonl: the shortcut
  // baselines of Pathfinder, the bag-of-bytes of Retrieval, LM's unigram and n-gram), one row each.
  std::vector<std::string> baseline_names;
  std::map<std::pair<std::string, std::string>, std::string> baseline;
  for (auto& c : cols)
    for (const JsonObject& b : read_jsonl(s.dir + "/data/" + c.task + "/baselines.jsonl")) {
      std::string name = json_text(b, "name");
      if (name == "majority") continue;  // the chance row above
      if (std::find(baseline_names.begin(), baseline_names.end(), name) == baseline_names.end())
        baseline_names.push_back(name);
      baseline[{name, c.task}] = c.bits ? fmt("%.3f", json_number(b, "test_bits_per_byte", NAN))
                                        : fmt("%.1f", 100 * json_number(b, "test_acc", 0));
    }
  for (auto& name : baseline_names) {
    md << "| baseline: " << md_cell(name) << " | |";
    for (auto& c : cols) md << " " << (baseline.count({name, c.task}) ? baseline[{name, c.task}] : "") << " |";
    md << " | |\n";
  }
  for (auto& m : order) {
    md << "| **" << m << "** | " << attention_info(lra_base_model(m)).family << " |";
    for (auto& c : cols) {
      std::string d = dash(c.task, m);
      auto it = val.find({c.task, m});
      std::string own = recipe_col.count(c.task) ? " ᵖ" : "";  // the preset's own, in a column that takes recipe runs
      if (!d.empty()) md << " " << d << " |";
      else if (const RecipeRun* r = recipe_of(c.task, m)) md << " " << fmt("%.1f", r->acc) << " ʳ" << chance_tag(c, r->acc, r->n_test) << " |";
      else if (it != val.end()) md << " " << value_cell(it->second, c.bits) << own << chance_tag(c, it->second.mean, c.n_test) << " |";
      else md << " " << (tab.failed.count({c.task, m}) ? "failed" : "") << " |";
    }
    md << " " << headline_mean(m) << " | " << mean_cell(score, m) << " |\n";
    if (const LraPublished* lp = published(m)) {
      md << "| *LRA: " << lp->lra_name << "* | |";
      double ls = 0;
      bool all = !lra_tasks.empty();
      for (auto& c : cols) {
        double a = lra_published_accuracy(*lp, c.task);
        if (c.lra) all = all && a >= 0, ls += a;
        md << " " << (a >= 0 ? "*" + fmt("%.2f", a) + "*" : std::string(c.lra ? "—" : "")) << " |";
      }
      md << " " << (all ? "*" + fmt("%.2f", ls / double(lra_tasks.size())) + "*" : std::string("—")) << " | |\n";
    }
  }
  md << "\n";
  for (size_t k = 0; k < reasons.size(); ++k)
    md << superscript(k + 1) << " " << names(who[reasons[k]]) << ": " << md_cell(reasons[k]) << ".  \n";
  if (!reasons.empty()) md << "A dash is a cell that is never run: the model cannot run that task.\n\n";
  // where the recipe columns' cells come from, and the preset's own cells they stand in for
  if (!recipe_col.empty()) {
    std::vector<std::string> titles;
    for (auto& t : recipe_tasks) titles.push_back(title_of(t));
    md << "ʳ A run of LRA's own recipe for that task, outside the preset (LRA's steps and batch, each model's own LRA "
          "size), one seed: it stands here for the preset's own cell, whose budget leaves this column at chance. "
          "ᵖ The preset's own cell (the budget in the table at the end, every seed): in " << names(titles)
       << " a model keeps it until a run of LRA's recipe exists for it (docs/TASK-lra/MODEL/). (chance), in those "
          "columns: within twice the binomial standard error of chance on the test set the value was measured on. LRA avg with ʳ: "
          "the mean of the row's cells as shown, its recipe cells included; its ± is the spread of the preset's "
          "cells only. The Score, the groups, the differences from full attention and the charts read the preset's "
          "own cells only, the same budget for every model; those cells are in \"The preset's own budget\" below.\n\n";
    if (!recipe.empty()) {
      md << "Where the ʳ cells come from (every other cell: the preset's records, results.jsonl):\n\n";
      for (auto& [tm, r] : recipe)
        md << "- " << tm.second << " on " << title_of(tm.first) << ": " << fmt("%.1f", r.acc) << ", "
           << recipe_source(r, *recipe_col[tm.first]) << "\n";
      md << "\n";
    }
    for (auto& t : recipe_tasks)
      if (const RecipeColumn* rc = recipe_col[t]; std::none_of(recipe.begin(), recipe.end(), [&](auto& e) { return e.first.first == t; }))
        md << title_of(t) << ": no run of " << rc->recipe << " yet (" << rc->script << ", kept in " << rc->root
           << "/MODEL/): every cell is the preset's own.\n\n";
    if (!not_rows.empty())
      md << "Recipe runs that are no row of this table (a row takes only the run in the folder of its own name): "
         << names(not_rows) << ".\n\n";
  }
  for (auto& c : cols)  // accuracy over positions (a token head): several scored positions a sequence
    if (!c.bits && c.n_test > 0 && task_info(c.task).head == Head::kToken)
      md << c.title << "'s n counts test sequences, but its accuracy is over the scored positions in them, which are "
            "correlated within a sequence: the binomial error on n sequences is an upper bound, and with independent "
            "positions it would be smaller by the square root of the positions a sequence.\n\n";
  for (auto& c : cols)
    for (auto& m : order)
      if (auto a = lra_task_model_args(c.task, m); !a.empty() && lra_cannot_run(c.task, m).empty()) {
        std::string flags;
        for (auto& x : a) flags += (flags.empty() ? "" : " ") + x;
        md << m << " runs " << c.title << " in its causal form: `" << flags << "`.\n\n";
      }
  md << "LRA's rows are the paper's (TPU, far longer training, LRA's own data: IMDb reviews for Text, CIFAR-10 for "
        "Image, ListOps of 500-2000 tokens, Pathfinder-32 with 200K images); its average is recomputed over the tasks "
        "shown, so it differs from the paper's Avg column. Our Text is Spam Assassin "
        "e-mail bodies (ham or spam, majority class about 70%) and our Image is Fashion-MNIST, so those two columns "
        "are not comparable with LRA's, only the ranking of the models is. An empty cell has not run; see the failures "
        "below.\n\n";

  // ---- the preset's own cells where the headline table shows recipe runs ----
  if (!recipe.empty()) {
    md << "## The preset's own budget\n\n"
       << "The preset's own cells (its budget, every seed; results.jsonl) in the columns that take LRA's recipe runs, "
          "and LRA avg over the preset's own cells alone; the Score and everything below read these.\n\n| Model |";
    for (auto& t : recipe_tasks) md << " " << title_of(t) << " |";
    md << " LRA avg |\n|---|";
    for (size_t i = 0; i <= recipe_tasks.size(); ++i) md << "---:|";
    md << "\n";
    for (auto& m : order) {
      md << "| " << m << " |";
      for (auto& t : recipe_tasks) {
        auto it = val.find({t, m});
        const LraColumn& c = *std::find_if(cols.begin(), cols.end(), [&](const LraColumn& x) { return x.task == t; });
        md << " " << (it == val.end() ? std::string() : value_cell(it->second, false) + chance_tag(c, it->second.mean, c.n_test)) << " |";
      }
      md << " " << mean_cell(lra_mean, m) << " |\n";
    }
    md << "\n";
  }

  // ---- which groups of models the score separates ----
  std::map<std::string, std::string> letter_of;  // model -> its letters (the main chart's labels carry them)
  if (s.seeds > 1 && !score.empty()) {
    std::vector<std::string> ranked;
    for (auto& [m, st] : score)
      if (st.n() > 1) ranked.push_back(m);
    std::stable_sort(ranked.begin(), ranked.end(), [&](auto& a, auto& b) { return score[a].mean > score[b].mean; });
    std::vector<SeedStats> sorted;
    for (auto& m : ranked) sorted.push_back(score[m]);
    auto groups = separated_groups(sorted);
    size_t pairs = 0, differ = 0;
    for (size_t a = 0; a < sorted.size(); ++a)
      for (size_t b = a + 1; b < sorted.size(); ++b) ++pairs, differ += differs_beyond_seeds(sorted[a], sorted[b]);
    md << "## What the score separates\n\n"
       << "The models with the score on at least two complete seeds, best first, cut wherever every model above "
          "the cut differs from every model below it beyond the seed spread (Welch's t-test over the seeds, "
          "two-sided 5%, pair by pair; a score's spread is that of one seed's mean over the columns). "
       << differ << " of " << pairs << " pairs differ.";
    if (groups.size() < 2) {
      md << " No cut separates them: some model overlaps both sides of every cut, so the score does not split the models into "
            "clean groups at this budget; the letters below say which models it does tell apart.\n\n";
    } else {
      md << " The score separates " << groups.size() << " groups:\n\n";
      for (size_t g = 0; g < groups.size(); ++g) {
        std::vector<std::string> members;
        for (size_t i : groups[g]) members.push_back(ranked[i] + " " + fmt("%.1f", sorted[i].mean));
        md << g + 1 << ". " << names(members) << "\n";
      }
      md << "\n";
    }
    // the same comparisons as letters: what no cut can say when the groups overlap
    if (sorted.size() > 1) {
      std::vector<std::string> letters = letter_groups(sorted);
      for (size_t i = 0; i < sorted.size(); ++i) letter_of[ranked[i]] = letters[i];
      md << "The same comparisons as letters (a compact letter display): two models that share a letter cannot be "
            "told apart at this budget; two with no letter in common differ beyond the seed spread.\n\n"
            "| Model | Score | letters |\n|---|---:|---|\n";
      for (size_t i = 0; i < sorted.size(); ++i)
        md << "| " << ranked[i] << " | " << fmt("%.1f", sorted[i].mean) << " ± " << fmt("%.1f", sorted[i].std) << " | " << letters[i] << " |\n";
      md << "\n";
    }
  }

  // ---- the differences from full attention over every column ----
  if (s.seeds > 1 && std::find(order.begin(), order.end(), "full") != order.end()) {
    md << "## Difference from full attention\n\n"
       << "Mean minus full attention's, per column (accuracy columns, LRA avg and Score: points; bits per byte: "
          "bits, where minus is better). **Bold** with ↑ or ↓: the difference exceeds what the seed spread explains "
          "(Welch's t-test over the seeds, two-sided 5%); plain: within the spread, so the table cannot tell the two "
          "apart. Empty: fewer than two seeds on one side; a dash: the model cannot run that task.\n\n| Model |";
    for (auto& c : cols) md << " " << (c.bits ? c.title + " (bits/byte)" : c.title) << " |";
    md << " LRA avg | Score |\n|---|";
    for (size_t i = 0; i < cols.size() + 2; ++i) md << "---:|";
    md << "\n";
    auto diff = [&](const SeedStats* a, const SeedStats* f, bool bits) -> std::string {
      if (!a || !f || a->n() < 2 || f->n() < 2) return "";
      double d = a->mean - f->mean;
      std::string v = fmt(bits ? "%+.3f" : "%+.1f", d);
      return differs_beyond_seeds(*a, *f) ? "**" + v + (d > 0 ? " ↑" : " ↓") + "**" : v;
    };
    auto find = [](const std::map<std::string, SeedStats>& agg, const std::string& m) {
      auto it = agg.find(m);
      return it == agg.end() ? nullptr : &it->second;
    };
    for (auto& m : order) {
      if (m == "full") continue;
      md << "| " << m << " |";
      for (auto& c : cols) {
        std::string d = dash(c.task, m);
        auto a = val.find({c.task, m}), f = val.find({c.task, "full"});
        md << " " << (!d.empty() ? d : diff(a == val.end() ? nullptr : &a->second, f == val.end() ? nullptr : &f->second, c.bits)) << " |";
      }
      md << " " << diff(find(lra_mean, m), find(lra_mean, "full"), false) << " | " << diff(find(score, m), find(score, "full"), false)
         << " |\n";
    }
    md << "\n";
  }

  // ---- the cost of each training cell ----
  md << "## Training cost: steps/s (evaluation excluded), peak memory and CPU time of each cell\n\n"
     << "Peak memory is the cell's whole process: data, model, optimizer state, activations, and the allocator's "
        "cache of freed buffers (cached plus in use stay under twice the peak in use). Steps/s is wall-clock: it is only comparable "
        "between cells that ran on equally idle cores. The bench below compares speed and memory at fixed "
        "shapes. CPU time is the whole cell's (data loading, training, validation, test), mean over its seeds.\n\n| Model |";
  for (auto& c : cols) md << " " << c.title << " |";
  md << "\n|---|";
  for (size_t i = 0; i < cols.size(); ++i) md << "---:|";
  md << "\n";
  for (auto& m : order) {
    md << "| " << m << " |";
    for (auto& c : cols) {
      std::string d = dash(c.task, m);
      const JsonObject* r = ok(lra_train_id(c.task, m, 1));
      if (!d.empty()) {
        md << " " << d << " |";
      } else if (r && val.count({c.task, m})) {
        double cm = val[{c.task, m}].cpu_minutes;
        md << " " << fmt("%.2f", json_number(*r, "steps_per_s", 0)) << " · " << mb(json_number(*r, "peak_rss_mb", 0)) << " · "
           << fmt(cm < 1 ? "%.2f" : cm < 10 ? "%.1f" : "%.0f", cm) << " CPU-min |";
      } else {
        md << " |";
      }
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

  // ---- the charts: the score's (main), LRA's mean, one per column ----
  std::string problem;
  if (charts) {
    BubbleChart ch;
    ch.xlabel = "training steps/s at " + std::to_string(longest) + " tokens (attnzoo bench, batch " +
                std::to_string(b.batch) + ", " + std::to_string(b.layers) + " layer(s), dim " + std::to_string(b.dim) +
                "), log scale";
    ch.size_note = "family (bubble area: peak memory at " + length_label(longest) + ")";
    // model m's bubble at y +- err, if m has a bench at the longest length
    auto add_point = [&](BubbleChart& c, const std::string& m, double y, double err) {
      const JsonObject* r = ok("bench-" + std::to_string(longest) + "-" + m);
      if (r)
        c.points.push_back({m, attention_info(lra_base_model(m)).family, json_number(*r, "steps_per_s", 0), y,
                            json_number(*r, "peak_rss_mb", 0), err});
      return r != nullptr;
    };
    // a chart of a mean over columns; its markdown, or "" when no model has a bubble
    auto mean_chart = [&](const std::string& name, const std::string& title, const std::string& ylabel,
                          const std::map<std::string, SeedStats>& agg, const std::vector<std::string>& tasks,
                          const std::map<std::string, std::string>& tags = {}) {
      BubbleChart c = ch;
      c.title = title, c.ylabel = ylabel, c.chance = chance_over(tasks);
      std::vector<std::string> missing;
      for (auto& m : order) {
        auto it = agg.find(m);
        if (it == agg.end() || !add_point(c, m, it->second.mean, it->second.n() > 1 ? it->second.std : 0)) missing.push_back(m);
        else if (tags.count(m)) c.points.back().model += " (" + tags.at(m) + ")";
      }
      if (c.points.empty()) return std::string();
      draw_bubble_chart(c, s.dir, name);
      std::string note = "![" + title + "](" + name + ".svg)\n\nx: training steps/s at " + length_label(longest) +
                         " tokens (the bench above); y: " + ylabel + "; bubble area: peak memory at " + length_label(longest) +
                         (s.seeds > 1 ? "; error bars: ± one standard deviation over the seeds" : "") + ". The script is " +
                         name + ".gp.";
      if (!missing.empty()) note += " Not drawn (no mean over those columns, or no bench at " + length_label(longest) + "): " + names(missing) + ".";
      if (!tags.empty())
        note += " Letters after a name: its groups in \"What the score separates\" (models that share a letter cannot be "
                "told apart; no letter: fewer than two complete seeds).";
      return note + "\n";
    };
    try {
      md << "\n## The charts\n\n";
      // the main chart: the score, or LRA's mean while no column beats chance
      std::string main_label = score_tasks.empty()
                                   ? "LRA mean test accuracy (%) over " + column_names(lra_tasks) + " (no column beats chance yet: no score)"
                                   : "score: mean test accuracy (%) over " + column_names(score_tasks);
      std::string main = mean_chart("chart", "Attention Zoo on this CPU (preset " + p.name + "): score, speed, memory", main_label,
                                    score_tasks.empty() ? lra_mean : score, score_tasks.empty() ? lra_tasks : score_tasks,
                                    score_tasks.empty() ? std::map<std::string, std::string>{} : letter_of);
      md << (main.empty() ? "No model has the score and a bench at " + length_label(longest) + " yet, so the main chart is not drawn.\n"
                          : main);
      if (!lra_tasks.empty()) {
        std::string second = mean_chart("chart-lra", "LRA's five tasks on this CPU (preset " + p.name + ")",
                                        "LRA mean test accuracy (%) over " + column_names(lra_tasks), lra_mean, lra_tasks);
        md << "\nLRA's mean, for comparison with LRA's Table 1 (the score leaves out the columns at chance):\n\n"
           << (second.empty() ? "No model has LRA's mean and a bench at " + length_label(longest) + " yet.\n" : second);
      }
      // One chart per column: the means need every column, these show each column's models as
      // soon as they have a result (a sweep in progress, or --tasks).
      std::string per_task;
      for (auto& c : cols) {
        BubbleChart ct = ch;
        ct.title = c.title + " on this CPU (preset " + p.name + ")";
        if (c.bits) {
          ct.ylabel = c.title + ": test bits per byte (lower is better: the axis runs downwards)";
          ct.lower_is_better = true, ct.min_pad = 0.05;
          for (auto& name : baseline_names)
            if (auto it = baseline.find({name, c.task}); it != baseline.end() && std::isfinite(std::atof(it->second.c_str())))
              ct.lines.push_back({std::atof(it->second.c_str()), "baseline: " + name});
        } else {
          ct.ylabel = "test accuracy (%): " + c.title;
          ct.chance = c.chance;
        }
        for (auto& m : order)
          if (auto a = val.find({c.task, m}); a != val.end()) add_point(ct, m, a->second.mean, a->second.n() > 1 ? a->second.std : 0);
        if (ct.points.empty()) continue;
        draw_bubble_chart(ct, s.dir, "chart-" + c.task);
        per_task += "\n![" + c.title + "](chart-" + c.task + ".svg)\n";
      }
      if (!per_task.empty())
        md << "\nPer column (same x axis; y: that column's mean test result, error bars over its seeds, dashed: the "
              "majority class, or for bits per byte the baselines; a model that cannot run the column is not drawn):\n"
           << per_task;
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
  for (auto& t : az::lra_tasks(p)) {
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
