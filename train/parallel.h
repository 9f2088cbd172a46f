// Every core trains: one parallel region per step.
//
//   shard    the batch cut into S pieces of whole examples; S comes from the batch's shape
//            alone (shard_count), never from the thread count
//   forward  each thread takes shards in turn; a shard runs on one thread, with single-threaded
//   backward ops, its own copy of the step's random source and its own gradient buffers
//            (GradSlots, autograd/tensor.h)
//   reduce   every parameter's gradient = sum over shards, in shard order, of the shard's mean
//            gradient times its loss terms / all the batch's terms: the batch mean
//   step     (the trainer) clip, one optimizer step; shard 0's buffer writes are made
//
// Nothing a shard computes depends on which thread runs it or how many there are, and the
// sums are added in one fixed order: the parameters after N steps are the same bits at 1, 2,
// 3 or 16 threads.  Dropout masks and Sinkhorn's noise are counted by example over the whole
// batch (autograd/runtime/rng.h: BatchShard), so an example gets the same mask however the
// batch is cut; per-step draws (Reformer's rotations) come from the step's source, the same for
// every shard; the redraw schedule runs once per step (Module::before_step).
//
// Waking a sleeping thread costs 25-40 us, and a small model's ops take tens of microseconds:
// splitting each op among threads (--parallel ops, the split products of autograd/) cannot pay
// for that, splitting the batch can.  ops mode runs the batch as one shard on the calling
// thread, every large product split among the threads; its sums depend on the thread count.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "data/dataset.h"
#include "nn/module.h"

namespace az {

enum class Parallel { kAuto, kBatch, kOps };
struct ParallelSettings {
  Parallel mode = Parallel::kAuto;  // --parallel auto|batch|ops
  int64_t max_shards = 16;          // --shards: at most this many shards a step (shard_count)
};
ParallelSettings& parallel_settings();  // the process's (train, eval, predict and bench set it from flags)
Parallel parse_parallel(const std::string& name);  // refused in one line unless auto|batch|ops
const char* parallel_name(Parallel p);

// What auto chooses for a step of B examples of length N and width D at `threads` threads:
// batch, except where the batch has fewer examples than threads and its products are large
// (N*D >= 2^17, e.g. N 1024 at D 128): there ops keeps every thread busy.  (docs/speed.md)
Parallel choose_parallel(int64_t B, int64_t N, int64_t D, int threads);
// The shards a batch of B examples of (at most) N tokens is cut into: 1 for ops; for batch, one
// per kShardTokens tokens, at least 2 and at most --shards and B.  A shard's ops have fixed costs
// (graph nodes, small products packed by OpenBLAS): measured on make train's model at one thread,
// 4 shards of 8 examples cost 4% over the whole batch, 8 of 4 cost 28% (docs/speed.md).
constexpr int64_t kShardTokens = 1024;
int64_t shard_count(Parallel mode, int64_t B, int64_t N);
// Shard s of the S a batch of B examples is cut into: its first row and its rows (the first B % S
// shards take one more).  Steps, evaluation and predict cut by it.
struct ShardRows {
  int64_t first = 0, rows = 0;
};
ShardRows shard_rows(int64_t B, int64_t S, int64_t s);
// Scoring without gradients (evaluation, predict): batch-parallel unless --parallel ops.  Each of
// the batches first, first + stride, ... is cut into shard_count(mode, B, N) shards by its padded
// length N (whole under ops); run_scoring calls fn(i) for each piece, a thread a piece, or in turn
// with split products under ops.  Scoring a batch of 512 examples of 256 tokens whole on one
// thread held 4.4 GB of attention scores where a step's shards hold 0.3 (issue 68).
struct ScoringPiece {
  size_t batch = 0;
  ShardRows rows;
};
Parallel scoring_mode();
std::vector<ScoringPiece> scoring_pieces(const std::vector<Batch>& batches, size_t first = 0, size_t stride = 1);
Batch piece_of(const std::vector<Batch>& batches, const ScoringPiece& p);  // a copy of its rows
void run_scoring(int64_t count, const std::function<void(int64_t)>& fn);
// "batch-parallel, 4 shards of 8 examples over 2 threads" / "split products over 2 threads".
std::string describe_parallel(Parallel mode, int64_t B, int64_t N);

// Runs fn(k) for k = 0..count-1 over the threads (batch mode), each call with single-threaded
// ops and the caller's grad mode; an exception from any call is rethrown (the lowest k's) once
// all have finished.  With threads = 1 or count = 1, a plain loop on the calling thread.
// then, when given, between() on one thread and then(k) for k = 0..then_count-1, in the same
// parallel region (no second wake-up of the threads), once every fn has returned.
void run_shards(int64_t count, const std::function<void(int64_t)>& fn,
                const std::function<void()>& between = nullptr, int64_t then_count = 0,
                const std::function<void(int64_t)>& then = nullptr);

// One shard's loss (a mean over `terms` loss terms: examples, or scored positions) and how
// many of its `terms` predictions were right.
struct ShardLoss {
  Tensor loss;
  int64_t terms = 0, correct = 0;
};
// Sums over a step's shards.
struct StepSums {
  double loss_sum = 0;  // mean loss x terms, summed over the shards
  int64_t terms = 0, correct = 0;
};

// A step's forward and backward, sharded under `mode` (shard_count(mode, B, max_len)): loss_of(rows) runs the model on one
// shard's rows; afterwards every parameter's gradient is the mean over the batch's terms (as one
// backward over the whole batch takes it) and shard 0's buffer writes are made.  Call
// model.before_step() first.
StepSums sharded_backward(Module& model, const Batch& batch, Parallel mode, int64_t max_len,
                          const std::function<ShardLoss(const Batch&)>& loss_of);

}  // namespace az
