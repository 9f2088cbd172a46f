// Batching: padded [B, N] token batches from a Dataset, an endless seeded
// shuffling stream whose position can be saved in a checkpoint and restored,
// in-order batches for evaluation, and the patch view of images.
//
// N is the longest sequence in the batch (after cutting to max_len), not
// max_len, so batches of short sequences stay cheap; fixed_len pads to max_len
// for models whose weights depend on N (MLP-Mixer, Linformer, Synthesizer).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "data/dataset.h"

namespace az {

struct BatchOptions {
  int batch = 32;          // B (eval batches: the last one may be smaller)
  int max_len = 0;         // sequences are cut to their first max_len tokens; >= 1
  int pad_multiple = 1;    // round N up to a multiple of this, but never past max_len
  bool fixed_len = false;  // always N = max_len
  int patch = 0;           // > 0: image patch view, P x P patches (max_len is then unused)
  // Training-stream augmentation of images (Batcher::next only; evaluation
  // batches are never augmented): a mirror image with probability 1/2, and a
  // translation by up to `shift` pixels each way, the uncovered border black.
  bool flip = false;
  int shift = 0;
};

// Everything needed to continue a Batcher's stream exactly: the order of
// epoch e is a function of (seed, e) alone, so no permutation is stored.
struct BatcherState {
  uint64_t seed = 0;
  uint64_t epoch = 0;         // epochs completed
  uint64_t index = 0;         // examples of the current epoch already served
  uint64_t dataset_size = 0;  // restore() checks it
  bool shuffle = true;
};

class Batcher {
 public:
  // data must outlive the Batcher.  DataError on an empty dataset or bad options.
  Batcher(const Dataset& data, int batch, int max_len, uint64_t seed, bool shuffle = true);
  Batcher(const Dataset& data, const BatchOptions& opts, uint64_t seed, bool shuffle = true);

  // The next B examples.  Epochs run into one another: a batch that reaches
  // the end of an epoch is filled from the start of the next, reshuffled one,
  // so every example is served exactly once per epoch and B is constant.
  Batch next();
  // Dataset rows of the batch next() returned last (for logging, attention maps).
  const std::vector<size_t>& last_rows() const { return last_rows_; }

  BatcherState state() const;
  void restore(const BatcherState& s);  // DataError if it was saved over another dataset size

  uint64_t epoch() const { return epoch_; }
  size_t batches_per_epoch() const;
  const BatchOptions& options() const { return opts_; }

 private:
  void build_order();  // order_ for epoch_
  const Dataset* data_;
  BatchOptions opts_;
  uint64_t seed_;
  bool shuffle_;
  uint64_t epoch_ = 0;
  size_t index_ = 0;
  std::vector<size_t> order_;
  std::vector<size_t> last_rows_;
};

// The batch of the given dataset rows, padded (or patched) as opts say.
Batch make_batch(const Dataset& d, const std::vector<size_t>& rows, const BatchOptions& opts);

// The whole split once, in order; the last batch holds the remainder.
std::vector<Batch> eval_batches(const Dataset& d, int batch, int max_len);
std::vector<Batch> eval_batches(const Dataset& d, const BatchOptions& opts);
// Rows [0, rows) for scoring only: batched in order of length, longest first
// (ties in row order), so that each batch pads to lengths near its own and
// mixed-length splits cost less.  No model's prediction depends on its
// batch-mates (tests/test_train.cpp), so the scores are file order's to
// float rounding; the batches are not in file order.
std::vector<Batch> eval_batches_by_length(const Dataset& d, const BatchOptions& opts, size_t rows);

// Augments a batch of whole images (pixels.N == H*W*C tokens, value + 1) in
// place: image i draws its flip and shift from (seed, i) alone, so a
// resumed stream augments exactly as the uninterrupted one.
void augment_images(Batch& pixels, const Dataset& d, bool flip, int shift, uint64_t seed);

// Patch view of a batch of whole images (pixels.N == H*W*C, tokens value + 1):
// patches [B, N = (H/P)*(W/P), P*P*C] floats pixel/255; patches row-major over
// the image, inside a patch row-major then channels.  tokens become 1 and
// pad_mask 0 (images have no padding).  DataError if P does not divide H and W.
Batch to_patches(const Batch& pixels, const Dataset& d, int patch);

}  // namespace az
