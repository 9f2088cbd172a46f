// The tasks: where each one's data comes from, and what it tells the model
// (vocabulary, classes, patch size, sequence length).
#pragma once
#include <string>
#include <vector>

#include "data/batcher.h"
#include "train/config.h"
#include "train/model.h"

namespace az {

struct TaskData {
  Splits splits;
  BatchOptions opts;  // batch size, max_len, patch view
};

// Loads (or generates) the task's data and fills mc.vocab, num_classes,
// patch_dim, and mc.max_len unless seq_len_given.  One-line errors for bad
// paths and data (naming the file).
TaskData load_task(const TrainConfig& tc, ModelConfig& mc, bool seq_len_given);
std::vector<std::string> task_names();
// Where generated and downloaded data is kept: $ATTNZOO_DATA or ./data_cache.
std::string data_cache_dir();

}  // namespace az
