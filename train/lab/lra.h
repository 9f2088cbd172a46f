// attnzoo lra: the Long Range Arena picture (Tay et al., ICLR 2021) on one CPU.
//
// Every model is trained on every task that has a row for the preset (ListOps,
// Text, Retrieval, Image, Pathfinder-32, and in mini Recall and LM: each task
// file declares its rows) with the same model size and budget within a task; a
// model that cannot run a task (lm needs a causal form) has no cell there, and
// the report gives a dash and the reason from the model's registry entry.  Then
// every model is benched at three lengths.  Each of these "cells" is its own process (this program, `attnzoo
// train` or `attnzoo bench`), so its peak memory is its own and a crash ends
// only that cell.  Results are appended to DIR/results.jsonl and
// DIR/bench.jsonl as cells finish; a rerun skips every cell that already has
// a record made with the same arguments and data, so an interrupted sweep
// resumes, and a training cell cut short goes on from its last checkpoint
// (cells/ID/last.ckpt, when cells/ID/cell.key is the cell's key).  At the end
// DIR/results.md holds LRA's two tables beside our own, the score, the groups
// it separates and Welch's test against full attention over every column; the
// charts are LRA's (y against training speed, bubble area = memory):
// chart.{svg,png} with the score (the mean accuracy over the columns on which
// some model beats chance by more than the test error: lra_beats_chance),
// chart-lra with LRA's five-task mean, and chart-TASK for each column (LM's in
// bits per byte, its axis running downwards so that better is up everywhere).
//
// Layout of DIR:
//   data/TASK/        the data every model reads (written once, by a child)
//   cells/TASK-MODEL/ one training run (metrics.jsonl, curves.png, best.ckpt, last.ckpt,
//                     cell.key, logs; resumed.txt lists the steps it resumed from)
//   cells/bench-N-MODEL/  one bench (stdout.log holds its JSON line)
//   results.jsonl, bench.jsonl, results.md, chart.{svg,png,gp}, chart-lra.*, chart-TASK.*
#pragma once
#include <set>
#include <string>
#include <vector>

#include "train/lab/plot.h"
#include "train/tasks.h"

namespace az {

// One task of a preset: the task's own row for the preset (train/tasks.h,
// TaskLra::rows), the same for every model.
struct LraTask : LraRow {
  std::string name;
};

// Speed and memory at growing lengths (LRA Table 2), with `attnzoo bench`.
struct LraBench {
  std::vector<int64_t> lengths;
  int64_t batch, dim, heads, layers, ffn, steps, warmup;
};

struct LraPreset {
  std::string name, purpose;
  LraBench bench;
  double cell_timeout_s;  // a cell running longer is stopped and recorded as failed
  int seeds = 1;          // training runs per (task, model), seeds 1..K (--seeds overrides)
  bool hidden = false;    // not listed in --help (the tests' preset)
};

const std::vector<LraPreset>& lra_presets();
const LraPreset& lra_preset(const std::string& name);  // throws listing the valid names
// The tasks with a row for the preset, in LRA's column order (TaskLra::order).
std::vector<LraTask> lra_tasks(const LraPreset& p);
std::vector<std::string> lra_task_names(const LraPreset& p);

// One cell of a sweep.  `args` are the child's arguments after the program
// name, relative to DIR (children run in DIR); `key` is args plus the data's
// description: a record is reused only when its key matches.
struct LraCell {
  std::string kind;   // "train" | "bench"
  std::string task;   // train: the task; bench: ""
  std::string model;
  int64_t seq_len = 0;
  int seed = 1;       // train: --seed of the run (seed 1's id has no suffix, so older records stay valid)
  std::string id;     // "listops-full" | "listops-full-s2" | "bench-4096-full": the folder under cells/
  std::vector<std::string> args;
  std::string key;
  int64_t steps = 0;  // train: steps, for the progress line
};

// LRA's published numbers (paper Tables 1 and 2, ../shared/REFERENCE.md) for
// the models LRA has, keyed by our model name.
struct LraPublished {
  std::string ours, lra_name;
  std::map<std::string, double> accuracy;   // by task name: test accuracy, %
  double speed_1k, speed_2k, speed_4k;      // steps/s relative to the Transformer (0 = not in Table 2)
  double memory_4k;                         // peak memory at 4K relative to the Transformer (0 = none)
};
const std::vector<LraPublished>& lra_published();
double lra_published_accuracy(const LraPublished& p, const std::string& task);

// What the report needs to know about the sweep.
struct LraSweep {
  std::string dir, command, threads;
  const LraPreset* preset = nullptr;
  double steps_scale = 1;
  std::vector<std::string> models, tasks;
  int seeds = 1;
  std::vector<LraCell> cells;
  std::vector<std::string> data_notes;  // one line per task: what data it read
};

// The id of a training cell: "TASK-MODEL" for seed 1, "TASK-MODEL-sK" for seed K.
std::string lra_train_id(const std::string& task, const std::string& model, int seed);

// The test accuracies (%) of one (task, model) over its seeds, and what they say.
struct SeedStats {
  std::vector<double> values;  // one per seed with a finished record
  double mean = 0, std = 0;    // std: sample standard deviation (n - 1), 0 for one value
  double se_test = 0;          // binomial standard error of one run's accuracy on the test set, %
  double cpu_minutes = 0;      // mean CPU time of one cell
  size_t n() const { return values.size(); }
};
SeedStats seed_stats(const std::vector<double>& acc_percent, int64_t test_examples);
// Welch's t-test at the 5% level (two-sided): does a's mean differ from b's by more
// than their seed spread explains?  False when either has fewer than 2 values.
bool differs_beyond_seeds(const SeedStats& a, const SeedStats& b);

// ---- the columns: one per task, and what a record says in it (lra_stats.cpp) ----
// Why `model` cannot run `task`, from the two registries' facts ("no causal form: its
// projection mixes all positions" for lm, whose models must be causal), or "" when it
// can.  Such a cell is never planned; the report shows a dash and the reason.
std::string lra_cannot_run(const std::string& task, const std::string& model);
// A sweep's row is a registered model, or MODEL+TAG: that model again with settings of its own
// (--model-args 'MODEL+TAG=--flag v'), reported as a row of its own (reformer+lra: LRA's form).
// The registered model a row trains.
std::string lra_base_model(const std::string& row);
// The settings a model needs to run a task, from its registry facts: for a task whose
// models must be causal, those of its causal form (longformer: --globals 0); else none.
std::vector<std::string> lra_task_model_args(const std::string& task, const std::string& model);
// Bits per byte (lm): lower is better, never averaged with accuracies.  Else accuracy.
bool lra_lower_is_better(const std::string& task);
// A finished record's value in its column: test accuracy in %, or test bits per byte.
double lra_value(const JsonObject& record, const std::string& task);
// An accuracy column counts towards the score when its best model's mean beats chance
// by more than the test error at the budget: twice the binomial standard error of a test
// accuracy at chance on that test set (the 95% band around chance).
double lra_chance_margin(double chance_percent, int64_t test_examples);  // in points; inf without a test size
bool lra_beats_chance(double best_mean_percent, double chance_percent, int64_t test_examples);
// Models sorted by mean score, best first: the groups a score separates, each a run of
// positions.  A group ends where every model above the cut differs from every model below
// it beyond the seed spread (differs_beyond_seeds); one group when no cut does.
std::vector<std::vector<size_t>> separated_groups(const std::vector<SeedStats>& by_score);
// The compact letter display of the same comparisons (Piepho 2004, insert and
// absorb): one string of letters per model, in by_score's order, such that two models
// share a letter exactly when differs_beyond_seeds cannot tell them apart.  Letters
// run a, b, ... from the best model's group down.
std::vector<std::string> letter_groups(const std::vector<SeedStats>& by_score);

// The latest record of each planned cell whose key matches, by cell id.
std::map<std::string, JsonObject> lra_records(const LraSweep& s);

// What the records say, column by column (a column is a task of the sweep): the
// report's tables and charts, and the docs' model pages, read this.
struct LraColumn {
  std::string task, title;
  bool bits = false;    // bits per byte (lra_lower_is_better): never averaged with accuracies
  bool lra = false;     // one of LRA's five tasks (it has a column in LRA's Table 1)
  double chance = -1;   // accuracy columns: the majority class, % (-1: no record yet)
  int64_t n_test = 0;   // test examples
  double best = -1;     // accuracy columns: the best model's mean, %
  std::string best_model;
  bool scored = false;  // lra_beats_chance: averaged into the score
};
struct LraTable {
  std::vector<std::string> models;  // the sweep's, full attention first (as in LRA's tables)
  std::vector<LraColumn> columns;   // the sweep's tasks, in the preset's order
  std::map<std::pair<std::string, std::string>, SeedStats> values;  // (task, model): % or bits per byte
  std::map<std::pair<std::string, std::string>, std::map<int, double>> by_seed;  // (task, model) -> seed -> value
  std::set<std::pair<std::string, std::string>> failed;  // (task, model) with a failed record
  // Means over columns, per model with a value in each: the mean of the column means, the
  // spread of one seed's mean over the columns (sqrt of the summed column variances /
  // columns), and values: one per seed that every column has, that seed's mean (their count
  // is the n of Welch's test).
  std::vector<std::string> lra_tasks, score_tasks;  // LRA's tasks; the columns that beat chance
  std::map<std::string, SeedStats> lra_mean, score;
};
LraTable lra_table(const LraSweep& s, const std::map<std::string, JsonObject>& records);
// DIR/results.md; with charts, also DIR/chart.{svg,png,gp}.  Returns the
// problem met while drawing ("" if none): the tables never depend on gnuplot.
std::string write_lra_report(const LraSweep& s, bool charts);

// attnzoo lra --preset quick|mini|full [--models a,b] [--tasks a,b] [--seeds K] --out DIR ...
int cmd_lra(const std::vector<std::string>& args);

}  // namespace az
