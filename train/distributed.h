// Data-parallel training over MPI: P processes ("ranks"), on one machine or
// several, each holding the whole model and computing its own rows of every
// global batch of B examples.
//
//   every rank: the same global batch from its own copy of the seeded batcher
//     -> its rows [r*B/P, (r+1)*B/P)  -> forward -> backward
//     -> ONE MPI_Allreduce over a flat buffer: every gradient times rows/B
//        (so the sum is the mean over all B examples), the loss sum, the
//        number correct                -> clip -> the same optimizer step
//
// Ranks never exchange parameters: they start equal (same seed) and apply the
// same averaged gradient, so they stay equal; check_replicas verifies it at
// every checkpoint.
// Rank 0 alone prints, writes metrics and checkpoints.  A checkpoint holds
// nothing per rank, so a run may resume on any number of processes.
//
// Built without MPI (libattnzoo.a, build/attnzoo) every function is the
// one-process version: rank 0 of 1, reductions leave their input alone.
// build/attnzoo-mpi links this file compiled with -DAZ_MPI; it initialises MPI
// only when started by mpirun, so alone it behaves exactly like attnzoo.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "nn/module.h"

namespace az::dist {

// Joins the job when started by mpirun (idempotent).  Ranks other than 0 send
// their standard output to /dev/null (standard error stays: errors).  Without
// MPI, fails when mpirun started several copies of this program.
void init();
int rank();        // 0 in a single process
int size();        // P; 1 in a single process
bool is_root();    // rank 0: prints, writes metrics and checkpoints
// The run ended well: MPI is finalised at exit.  Exiting without it (an error
// on this rank) ends the whole job with MPI_Abort, so no rank waits forever
// in a collective for a rank that is gone.
void mark_done();

// In-place sum over all ranks.
void allreduce_sum(std::vector<double>& v);
// True when every rank passed the same value.
bool all_equal(uint64_t value);
// Rank 0's values of these tensors on every rank (one MPI_Bcast).
void broadcast_from_root(const std::vector<NamedTensor>& tensors);
// A path on this machine holding rank 0's copy of `path` (rank 0's file is
// sent to the others, which need no shared file system): `path` itself on
// rank 0 or when rank 0 cannot read it (so every rank fails alike), else a
// temporary file the caller removes with remove_local_copy.
std::string local_copy(const std::string& path);
void remove_local_copy(const std::string& copy, const std::string& path);

// The rows [first, first + rows) of a global batch of B that this rank
// computes.  Fails unless P divides B.
struct Rows {
  int64_t first = 0, rows = 0;
};
Rows rows_of(int64_t global_batch);
// Those rows of a batch, every per-example field (tokens, padding, labels,
// patches, per-position targets, a pair task's second sequences), keeping its
// N and N2 (padding to the whole batch's length keeps every variant, even those
// whose blocks or chunks depend on N, computing exactly what one process
// computes for these examples).
Batch slice_rows(const Batch& b, int64_t first, int64_t rows);

// Sum over the global batch of one step, from every rank.  A loss term is an
// example (sequence tasks) or a scored position (token tasks: mqar, lm).
struct StepTotals {
  double loss_sum = 0;  // mean loss x loss terms, summed
  double terms = 0;     // loss terms
  double correct = 0;   // correct predictions, of `terms`
  int64_t examples = 0;
};

// Averages gradients over the ranks after backward, and keeps buffers that
// depend on the data equal on all ranks.
class GradientAverager {
 public:
  GradientAverager(std::vector<NamedTensor> params, std::vector<NamedTensor> buffers);
  // The local loss is a mean over `terms` loss terms (examples, or scored
  // positions); local_loss_sum = that mean times terms.  ONE MPI_Allreduce of
  // [grad_0 * terms | grad_1 * terms | ... | has-grad flags | loss sum | correct |
  // terms | rows], then each gradient = sum / all terms: the mean over every loss
  // term of the global batch, as one process takes it, also when ranks held
  // different numbers of them (a token task's positions differ by example).  A parameter without a gradient
  // on every rank keeps none (as in one process: the optimizer skips it).
  // Buffers a forward pass changed on some rank (routing's k-means centroids,
  // set from the rows each rank saw) then take rank 0's values everywhere, as
  // PyTorch's DDP broadcasts buffers: one MPI_Bcast, on those steps only.
  // One process: returns the local totals and touches nothing.
  StepTotals reduce(int64_t rows, int64_t terms, double local_loss_sum, double local_correct);

 private:
  bool buffers_changed() const;  // since the last step (a forward pass may set them)
  std::vector<NamedTensor> params_, buffers_;
  std::vector<float> flat_, buffers_seen_;
};

// Fails on every rank, naming the first parameter or buffer that differs,
// unless every rank's copy of the model is bitwise the same.
void check_replicas(const Module& model, const std::string& when);

// The trainer's one handle on all of the above: a hook on the step.  With one
// process every method leaves its input alone (shard returns the batch,
// average the local totals).
//   DataParallel dp;               // joins the job (before reading rank 0's checkpoint)
//   dp.split(tc.batch);            // this rank's rows of every batch; dropout sharded to match
//   dp.attach(model);              // once the model exists
//   step: b = dp.shard(batcher.next(), step) -> forward -> backward
//         -> totals = dp.average(...) -> clip -> optimizer step
//   checkpoint: dp.check(model, when); rank 0 (dp.root()) alone writes
//   test: dp.share_root_weights(model) after rank 0 loaded best.ckpt
class DataParallel {
 public:
  DataParallel() { init(); }
  void split(int64_t global_batch);  // fails unless the ranks divide the batch
  void attach(const Module& model);             // the gradient averager over its parameters and buffers
  bool root() const { return is_root(); }
  // ", P processes of R examples per batch" under mpirun, "" alone: for the run's first line.
  std::string describe() const;
  Batch shard(const Batch& global, int64_t step) const;  // this rank's rows (and the fault test hook)
  StepTotals average(int64_t rows, int64_t terms, double local_loss_sum, double local_correct);  // after backward
  void check(const Module& model, const std::string& when) const { check_replicas(model, when); }
  void share_root_weights(const Module& model) const;  // rank 0's parameters and buffers everywhere
  void done() const { mark_done(); }

 private:
  Rows rows_;
  std::unique_ptr<GradientAverager> averager_;
};

// Test hook: ATTNZOO_FAULT=R:S makes rank R fail with an error at step S.
void maybe_inject_fault(int64_t step);

}  // namespace az::dist
