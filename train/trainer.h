// The training loop, evaluation, metrics and checkpoints of one run.
//
//   for each step: next batch -> forward -> zero grad -> backward -> clip -> step -> log
//   every eval_every steps: validation accuracy; best.ckpt when it improves; last.ckpt
//   at the end: best.ckpt (not the last step) evaluated on test
//
// A run directory holds config.json, metrics.jsonl, best.ckpt and last.ckpt.
//
// Under mpirun (build/attnzoo-mpi, train/distributed.h) every rank runs this
// same loop on its rows of each global batch of --batch examples; gradients are
// averaged after backward; rank 0 alone prints and writes; evaluation is split
// over the ranks and its counts summed.
#pragma once
#include <memory>
#include <string>

#include "data/batcher.h"
#include "nn/optim.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/distributed.h"
#include "train/model.h"
#include "train/tasks.h"

namespace az {

struct EvalResult {
  double accuracy = 0, loss = 0;
  int64_t examples = 0;
};

struct RunOptions {
  std::string resume;        // checkpoint to resume from ("" = fresh run)
  int64_t stop_after = 0;    // stop (and save last.ckpt) after this step; 0 = run to the end
  bool profile = false;      // print per-op timings at the end
  bool quiet = false;        // no progress line
  bool seq_len_given = false;
};

struct RunResult {
  double best_val = -1, test_accuracy = -1, majority_rate = 0, seconds = 0;
  int64_t best_step = -1, steps_done = 0;
  bool stopped_early = false;
};

class Trainer {
 public:
  Trainer(TrainConfig tc, ModelConfig mc, RunOptions ro);
  RunResult run();
  EvalResult evaluate(const Dataset& d, int64_t limit = 0);
  SequenceClassifier& model() { return *model_; }
  const TaskData& data() const { return data_; }

 private:
  Checkpoint snapshot() const;
  void restore(const Checkpoint& c, const std::string& path);
  void log_metrics(const std::string& json_line);
  TrainConfig tc_;
  ModelConfig mc_;
  RunOptions ro_;
  TaskData data_;
  std::shared_ptr<SequenceClassifier> model_;
  std::unique_ptr<Optimizer> opt_;
  std::unique_ptr<Batcher> batcher_;
  dist::Rows rows_;                                 // this rank's rows of each global batch
  std::unique_ptr<dist::GradientAverager> averager_;  // over the ranks (nothing in one process)
  Schedule sched_;
  int64_t step_ = 0, best_step_ = -1;
  double best_val_ = -1;
};

// Accuracy and mean loss over (at most `limit` examples of) a split, in eval mode.
// Under mpirun every rank must call it: each evaluates every P-th batch.
EvalResult evaluate_model(SequenceClassifier& model, const Dataset& d, const BatchOptions& opts, int64_t limit = 0);

// eval --ckpt: rebuilds the model and the task from the checkpoint alone.
EvalResult evaluate_checkpoint(const std::string& ckpt, const std::string& split, const std::string& data_override);

// The first parameter whose gradient holds a NaN or Inf ("" if none).
std::string first_nonfinite_grad(const Module& m);

}  // namespace az
