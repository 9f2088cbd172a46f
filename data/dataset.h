// The in-memory form every task loads into, and the batches the model eats.
//
// Token convention, shared by every task: id 0 is padding, content tokens are
// >= 1.  Bytes and 8-bit pixels therefore become value + 1 (vocabulary 257);
// ListOps uses its own small vocabulary starting at 1.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/error.h"

namespace az {

// What a loader throws for outside input (files, flags): an az::Error, so one
// `catch (const Error&)` sees every refusal; the message is one line naming
// what is wrong and what was expected.
struct DataError : Error {
  using Error::Error;
};

struct Dataset {
  std::vector<std::vector<int32_t>> seqs;  // token ids, variable length, no padding
  std::vector<int32_t> labels;             // one per sequence, in [0, num_classes)
  // Pair tasks (retrieval): the second sequence of each example, else empty.
  std::vector<std::vector<int32_t>> seqs2;
  // Per-position tasks (language modelling): a target per token of seqs[i]
  // (-100 = none), else empty; labels are then unused.
  std::vector<std::vector<int32_t>> targets;
  int vocab_size = 0;                      // ids are in [0, vocab_size); 0 = padding
  int num_classes = 0;
  std::vector<std::string> class_names;    // optional, size num_classes when set
  // Images only: seqs hold H*W*C pixel tokens (value + 1), row-major, channels last.
  int height = 0, width = 0, channels = 0;
  size_t size() const { return seqs.size(); }
};

struct Splits {
  Dataset train, val, test;
};

// A padded batch.  tokens and pad_mask are [B, N] row-major; pad_mask is 1 at
// padding positions, 0 elsewhere.  For the patch view of images, patches is
// [B, N, patch_dim] floats in [0, 1] and tokens holds 1 at real positions.
struct Batch {
  int B = 0, N = 0;
  std::vector<int32_t> tokens;
  std::vector<float> pad_mask;
  std::vector<int32_t> labels;
  std::vector<float> patches;  // empty unless the patch view is used
  int patch_dim = 0;
  // Pair tasks: the second sequences [B, N2], padded to their own length, with their own mask.
  int N2 = 0;
  std::vector<int32_t> tokens2;
  std::vector<float> pad_mask2;
  // Per-position tasks: targets [B, N], kIgnoreTarget at padding and where there is none.
  std::vector<int32_t> targets;
};
constexpr int32_t kIgnoreTarget = -100;  // cross_entropy's ignore_index

}  // namespace az
