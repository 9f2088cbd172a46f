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
#include <signal.h>

#include <cmath>
#include <map>
#include <optional>
#include <memory>
#include <string>

#include "data/batcher.h"
#include "nn/optim.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/distributed.h"
#include "train/model.h"
#include "train/parallel.h"
#include "train/tasks.h"

namespace az {

struct EvalResult {
  double accuracy = 0, loss = 0;  // loss: mean cross-entropy (nats) per example, or per target position
  int64_t examples = 0;           // examples, or target positions for the token head
  // What the best checkpoint maximises: accuracy, or minus bits per byte.
  double score(Metric metric) const { return metric == Metric::kBitsPerByte ? -loss / std::log(2.0) : accuracy; }
};

// Training stopped because it diverged (a non-finite loss, gradient, parameter or
// validation loss); the message names the step and what went wrong.
struct TrainingDiverged : Error {
  using Error::Error;
};

struct RunOptions {
  std::string resume;        // checkpoint to resume from ("" = fresh run)
  int64_t stop_after = 0;    // stop (and save last.ckpt) after this step; 0 = run to the end
  bool profile = false;      // print per-op timings at the end
  bool quiet = false;        // no progress line
  std::optional<int64_t> seq_len;  // --seq-len; none: the task decides (on --resume: the checkpoint's)
  // The command line's run-directory rule: a fresh run refuses a directory that
  // already holds one (naming --resume and --force); force replaces it.
  bool protect_run_dir = false, force = false;
  // The flags given on the command line: --resume refuses any it would ignore
  // (the configuration is the checkpoint's) once the checkpoint has loaded.
  std::map<std::string, std::string> given;
};

struct RunResult {
  double best_val = -1, test_accuracy = -1, test_loss = -1, majority_rate = 0, seconds = 0;
  int64_t best_step = -1, steps_done = 0;
  bool stopped_early = false;
  int signal = 0;  // SIGINT or SIGTERM stopped the run after a step (last.ckpt saved)
};

// While alive, SIGINT and SIGTERM set a flag the loop reads after each step
// (it then saves last.ckpt and stops); a second signal exits at once.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  static int pending();  // the signal received, or 0
 private:
  struct sigaction old_int_, old_term_;
};

class Trainer {
 public:
  Trainer(TrainConfig tc, ModelConfig mc, RunOptions ro);
  RunResult run();
  EvalResult evaluate(const Dataset& d, int64_t limit = 0);
  SequenceClassifier& model() { return *model_; }
  const TaskData& data() const { return data_; }
  const std::string& out() const { return tc_.out; }  // the run's folder (a resumed run's: its checkpoint's)

 private:
  // One training step on one batch; returns its loss, accuracy and gradient norm.
  struct StepResult {
    double loss, accuracy;
    float grad_norm, lr;
    int64_t tokens;
  };
  StepResult step();
  // Validation at step_: the best checkpoint when it improves, and last.ckpt.
  void validate_and_save(double t0);
  void progress(const StepResult& r, double elapsed, int64_t start, bool force);
  void claim_run_dir() const;
  [[noreturn]] void diverged(const std::string& what, const std::string& advice) const;
  Checkpoint snapshot() const;
  void restore(const Checkpoint& c, const std::string& path);
  void log_metrics(const std::map<std::string, double>& values);
  // On --resume: metrics.jsonl keeps the lines up to the checkpoint's step (the
  // rest were logged by steps that are redone) and its clocks go on from there.
  void continue_metrics(int64_t step);
  // The run's CPU seconds and peak memory so far, over every resumed part.
  std::map<std::string, double> usage() const;
  TrainConfig tc_;
  ModelConfig mc_;
  RunOptions ro_;
  TaskData data_;
  std::shared_ptr<SequenceClassifier> model_;
  std::unique_ptr<Optimizer> opt_;
  std::unique_ptr<Batcher> batcher_;
  dist::DataParallel dp_;  // the step's hook for data parallelism (the identity in one process)
  Parallel parallel_ = Parallel::kBatch;  // the step's threads: over shards, or inside the products
  Schedule sched_;
  int64_t step_ = 0, best_step_ = -1;
  double best_val_ = -1;
  Metric metric_ = Metric::kAccuracy;  // the task's
  bool tty_ = false;
  // the running means the progress line and metrics.jsonl show, since the last log line
  double loss_sum_ = 0, acc_sum_ = 0;
  int64_t window_ = 0, tokens_ = 0;
  // what the parts of the run before the resume cost (from metrics.jsonl's line at its step)
  double elapsed_before_ = 0, cpu_before_ = 0, peak_rss_before_ = 0;
};

// Accuracy and mean loss over (at most `limit` examples of) a split, in eval mode.
// Under mpirun every rank must call it: each evaluates every P-th batch.
EvalResult evaluate_model(SequenceClassifier& model, const Dataset& d, const BatchOptions& opts, int64_t limit = 0);

// eval --ckpt: rebuilds the model and the task from the checkpoint alone.
EvalResult evaluate_checkpoint(const std::string& ckpt, const std::string& split, const std::string& data_override);

// The first parameter whose gradient holds a NaN or Inf ("" if none).
std::string first_nonfinite_grad(const Module& m);

// Refuses data whose class names differ from those a checkpoint was trained on
// (a model trained on circle/square/triangle would silently score 0 on bird/cat/dog).
void check_classes(const TrainConfig& tc, const Dataset& d, const std::string& ckpt);

// The logits a step or an evaluation scores: forward's, except for the token head when
// at most half the positions have a target (MQAR's queries): then the head runs at those
// positions alone and the logits are [T,C] in row-major order (SequenceClassifier::target_logits).
Tensor scored_logits(SequenceClassifier& model, const Batch& b);
// The loss of a batch for the model's head (labels, per-position targets against [B,N,C],
// or the targets at their positions against scored_logits' [T,C])
// and how many of its predictions are right, out of how many.
Tensor loss_of(const Tensor& logits, const Batch& b);
std::pair<int64_t, int64_t> correct_of(const Tensor& logits, const Batch& b);

}  // namespace az
