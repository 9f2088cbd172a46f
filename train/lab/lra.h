// attnzoo lra: the Long Range Arena picture (Tay et al., ICLR 2021) on one CPU.
//
// Every model is trained on every task that has a row for the preset (ListOps,
// Text, Image, Pathfinder-32: each task file declares its rows) with the same
// model size and budget within a task; then every model is benched at three
// lengths.  Each of these "cells" is its own process (this program, `attnzoo
// train` or `attnzoo bench`), so its peak memory is its own and a crash ends
// only that cell.  Results are appended to DIR/results.jsonl and
// DIR/bench.jsonl as cells finish; a rerun skips every cell that already has
// a record made with the same arguments and data, so an interrupted sweep
// resumes, and a training cell cut short goes on from its last checkpoint
// (cells/ID/last.ckpt, when cells/ID/cell.key is the cell's key).  At the end
// DIR/results.md holds LRA's two tables beside our own, and
// DIR/chart.{svg,png} LRA's chart: accuracy against speed, bubble area = memory.
//
// Layout of DIR:
//   data/TASK/        the data every model reads (written once, by a child)
//   cells/TASK-MODEL/ one training run (metrics.jsonl, curves.png, best.ckpt, last.ckpt,
//                     cell.key, logs; resumed.txt lists the steps it resumed from)
//   cells/bench-N-MODEL/  one bench (stdout.log holds its JSON line)
//   results.jsonl, bench.jsonl, results.md, chart.{svg,png,gp}
#pragma once
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

// The latest record of each planned cell whose key matches, by cell id.
std::map<std::string, JsonObject> lra_records(const LraSweep& s);
// DIR/results.md; with charts, also DIR/chart.{svg,png,gp}.  Returns the
// problem met while drawing ("" if none): the tables never depend on gnuplot.
std::string write_lra_report(const LraSweep& s, bool charts);

// attnzoo lra --preset quick|mini|full [--models a,b] [--tasks a,b] [--seeds K] --out DIR ...
int cmd_lra(const std::vector<std::string>& args);

}  // namespace az
