// Checkpoints: everything needed to evaluate or resume a run, in one file.
//
// Layout: "ATTNZOO\0", format version (u32), payload length (u64), CRC-32 of
// the payload (u32), then the payload in cereal's portable binary format:
// model and training configuration, named parameters and buffers, optimizer
// state, RNG state, step, data position, best validation so far.
// Writes go to a temporary file that is flushed, fsynced and renamed over the
// target, so a crash mid-write never harms the previous checkpoint.
// Loading checks magic, version, length and checksum, then names and shapes,
// and fails with one line saying what is wrong.
#pragma once
#include <array>
#include <map>
#include <string>
#include <vector>

#include "data/batcher.h"
#include "nn/module.h"

namespace az {

constexpr uint32_t kCheckpointVersion = 1;

struct TensorRecord {
  std::string name;
  Shape shape;
  std::vector<float> data;
};

struct Checkpoint {
  std::map<std::string, std::string> model_config, train_config;
  std::vector<TensorRecord> params, buffers;
  std::map<std::string, std::vector<float>> optimizer;
  std::array<uint64_t, 4> rng{};
  int64_t step = 0;
  BatcherState data;
  double best_val = -1;
  int64_t best_step = -1;
};

void save_checkpoint(const std::string& path, const Checkpoint& c);
Checkpoint load_checkpoint(const std::string& path);

// Module <-> records.  load_into fails naming the first parameter whose name
// or shape does not match (and lists missing or unexpected ones).
std::vector<TensorRecord> records_of(const std::vector<NamedTensor>& tensors);
void load_into(const std::vector<NamedTensor>& tensors, const std::vector<TensorRecord>& records,
               const std::string& what, const std::string& path);

}  // namespace az
