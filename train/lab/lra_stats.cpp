// attnzoo lra: what the report computes from the records (see lra.h): a cell's
// id and value, which model can run which task, the statistics over seeds
// (mean, spread, Welch's test), which columns beat chance, and the groups of
// models a score separates.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attention/attention.h"
#include "train/lab/lra.h"

namespace az {

// ---- the columns ----------------------------------------------------------------------------

std::string lra_base_model(const std::string& row) { return row.substr(0, row.find('+')); }

std::string lra_cannot_run(const std::string& task, const std::string& model) {
  const AttentionInfo& a = attention_info(lra_base_model(model));
  // a task that predicts each position from the ones before it (lm) needs a causal form
  if (task_info(task).causal && !a.causal_ok)
    return "no causal form" + (a.why_not_causal.empty() ? std::string() : ": " + a.why_not_causal);
  return "";
}

std::vector<std::string> lra_task_model_args(const std::string& task, const std::string& model) {
  std::vector<std::string> args;
  if (!task_info(task).causal) return args;
  for (auto& [knob, v] : attention_info(lra_base_model(model)).causal_knobs) {
    std::string flag = "--" + knob;
    std::replace(flag.begin(), flag.end(), '_', '-');
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    args.insert(args.end(), {flag, b});
  }
  return args;
}

bool lra_lower_is_better(const std::string& task) { return task_info(task).metric == Metric::kBitsPerByte; }

double lra_value(const JsonObject& record, const std::string& task) {
  if (lra_lower_is_better(task)) return json_number(record, "test_bits_per_byte", NAN);
  return 100 * json_number(record, "test_acc", NAN);
}

double lra_chance_margin(double chance_percent, int64_t test_examples) {
  if (test_examples <= 0) return INFINITY;  // no test size: no claim
  double p = std::clamp(chance_percent / 100, 0.0, 1.0);
  return 2 * 100 * std::sqrt(p * (1 - p) / double(test_examples));
}

bool lra_beats_chance(double best_mean_percent, double chance_percent, int64_t test_examples) {
  return best_mean_percent - chance_percent > lra_chance_margin(chance_percent, test_examples);
}

// ---- seeds ----------------------------------------------------------------------------------

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

std::vector<std::vector<size_t>> separated_groups(const std::vector<SeedStats>& by_score) {
  // a cut after position i separates when every model above it differs from every one below
  std::vector<std::vector<size_t>> groups(1);
  for (size_t i = 0; i < by_score.size(); ++i) {
    groups.back().push_back(i);
    if (i + 1 == by_score.size()) break;
    bool cut = true;
    for (size_t a = 0; a <= i && cut; ++a)
      for (size_t b = i + 1; b < by_score.size() && cut; ++b) cut = differs_beyond_seeds(by_score[a], by_score[b]);
    if (cut) groups.emplace_back();
  }
  if (by_score.empty()) groups.clear();
  return groups;
}

// ---- the table ----------------------------------------------------------------------------

LraTable lra_table(const LraSweep& s, const std::map<std::string, JsonObject>& rec) {
  LraTable tab;
  tab.models = s.models;  // full attention first, as in LRA's tables
  auto full_it = std::find(tab.models.begin(), tab.models.end(), "full");
  if (full_it != tab.models.end()) tab.models.erase(full_it), tab.models.insert(tab.models.begin(), "full");
  const std::vector<std::string>& order = tab.models;
  auto ok = [&](const std::string& id) -> const JsonObject* {
    auto it = rec.find(id);
    return it != rec.end() && json_text(it->second, "status") == "ok" ? &it->second : nullptr;
  };
  auto title_of = [](const std::string& t) { return task_info(t).lra.title.empty() ? t : task_info(t).lra.title; };
  std::vector<LraColumn>& cols = tab.columns;
  auto& val = tab.values;
  auto& by_seed = tab.by_seed;
  for (auto& t : s.tasks) {
    LraColumn c;
    c.task = t, c.title = title_of(t), c.bits = lra_lower_is_better(t);
    c.lra = !c.bits && !lra_published().empty() && lra_published_accuracy(lra_published().front(), t) >= 0;
    for (auto& m : order) {
      std::vector<double> v;
      double cpu = 0;
      for (int seed = 1; seed <= s.seeds; ++seed) {
        std::string id = lra_train_id(t, m, seed);
        const JsonObject* r = ok(id);
        if (!r) {
          if (rec.count(id)) tab.failed.insert({t, m});
          continue;
        }
        double x = lra_value(*r, t);
        if (!std::isfinite(x)) continue;  // (an lm record from before records held bits per byte)
        v.push_back(x), by_seed[{t, m}][seed] = x;
        cpu += json_number(*r, "cpu_seconds", 0);
        c.chance = 100 * json_number(*r, "majority_rate", 0);
        if (int64_t n = int64_t(json_number(*r, "test_examples", 0))) c.n_test = n;
      }
      if (v.empty()) continue;
      SeedStats st = seed_stats(v, c.bits ? 0 : c.n_test);
      st.cpu_minutes = cpu / 60 / double(v.size());
      val[{t, m}] = st;
      if (!c.bits && st.mean > c.best) c.best = st.mean, c.best_model = m;
    }
    c.scored = !c.bits && c.best >= 0 && c.chance >= 0 && lra_beats_chance(c.best, c.chance, c.n_test);
    cols.push_back(c);
  }
  for (auto& c : cols) {
    if (c.lra) tab.lra_tasks.push_back(c.task);
    if (c.scored) tab.score_tasks.push_back(c.task);
  }
  // A mean over columns, per model: the mean of the column means.  Its spread is that of
  // one seed's mean over the columns, sqrt(sum of the column variances) / columns (the
  // columns' runs are independent); its count, for Welch's test, the seeds every column has.
  auto mean_over = [&](const std::vector<std::string>& tasks) {
    std::map<std::string, SeedStats> out;
    if (tasks.empty()) return out;
    for (auto& m : order) {
      double sum = 0, var = 0;
      bool all = true;
      for (auto& t : tasks) {
        auto it = val.find({t, m});
        if (it == val.end()) all = false;
        else sum += it->second.mean, var += it->second.std * it->second.std;
      }
      if (!all) continue;
      std::vector<double> per_seed;
      for (int seed = 1; seed <= s.seeds; ++seed) {
        double x = 0;
        bool complete = true;
        for (auto& t : tasks) {
          auto& runs = by_seed[{t, m}];
          if (!runs.count(seed)) complete = false;
          else x += runs[seed];
        }
        if (complete) per_seed.push_back(x / double(tasks.size()));
      }
      SeedStats st = seed_stats(per_seed, 0);
      st.mean = sum / double(tasks.size()), st.std = std::sqrt(var) / double(tasks.size());
      out[m] = st;
    }
    return out;
  };
  tab.lra_mean = mean_over(tab.lra_tasks), tab.score = mean_over(tab.score_tasks);
  return tab;
}

std::vector<std::string> letter_groups(const std::vector<SeedStats>& by_score) {
  const size_t n = by_score.size();
  if (n == 0) return {};
  // Start with one group of all; for every pair that differs, split each group holding
  // both into one without either; then drop the groups inside another (absorb).
  std::vector<std::vector<bool>> groups = {std::vector<bool>(n, true)};
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      if (!differs_beyond_seeds(by_score[i], by_score[j])) continue;
      std::vector<std::vector<bool>> next;
      for (auto& g : groups) {
        if (!(g[i] && g[j])) {
          next.push_back(g);
          continue;
        }
        auto without_i = g, without_j = g;
        without_i[i] = false, without_j[j] = false;
        next.push_back(without_i), next.push_back(without_j);
      }
      auto inside = [&](const std::vector<bool>& a, const std::vector<bool>& b) {  // a within b
        for (size_t k = 0; k < n; ++k)
          if (a[k] && !b[k]) return false;
        return true;
      };
      groups.clear();
      for (size_t a = 0; a < next.size(); ++a) {
        bool absorbed = false;
        for (size_t b = 0; b < next.size() && !absorbed; ++b)
          absorbed = b != a && inside(next[a], next[b]) && (next[a] != next[b] || b < a);
        if (!absorbed) groups.push_back(next[a]);
      }
    }
  // letters from the group holding the best model down: order by first member
  auto first = [&](const std::vector<bool>& g) { return size_t(std::find(g.begin(), g.end(), true) - g.begin()); };
  std::stable_sort(groups.begin(), groups.end(), [&](auto& a, auto& b) { return first(a) < first(b); });
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::vector<std::string> letters(n);
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t k = 0; k < n; ++k)
      if (groups[g][k]) letters[k] += g < alphabet.size() ? std::string(1, alphabet[g]) : "{" + std::to_string(g) + "}";
  return letters;
}

}  // namespace az
