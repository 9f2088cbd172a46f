// safetensors files: named tensors for other frameworks (huggingface/safetensors).
//
// Layout: header length n (u64, little-endian), n bytes of JSON
//   {"NAME": {"dtype": "F32", "shape": [d0, d1, ..], "data_offsets": [begin, end]}, ..,
//    "__metadata__": {"key": "value", ..}}
// padded with spaces to a multiple of 8, then the tensors' raw little-endian bytes,
// each at [begin, end) of that byte buffer.  Writing costs one pass over the data.
//
// We write F32 only.  Reading accepts F32, and F64, F16 and BF16 converted to
// float (what PyTorch users save); every other dtype is refused by name.  A reader
// of outside bytes refuses, in one line naming the tensor and what was expected:
// a header length beyond the file or kMaxSafetensorsHeader, JSON that is not an
// object of tensor entries, a shape whose size disagrees with its offsets, offsets
// outside the buffer, out of order, overlapping or leaving gaps (the reference
// reader, safetensors' Rust crate, demands the buffer be covered exactly once),
// and metadata values that are not strings.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "train/checkpoint.h"  // TensorRecord

namespace az {

// The reference reader's limit (safetensors/src/tensor.rs MAX_HEADER_SIZE).
constexpr uint64_t kMaxSafetensorsHeader = 100'000'000;

struct Safetensors {
  std::vector<TensorRecord> tensors;  // in the order of their data offsets
  std::map<std::string, std::string> metadata;
  const TensorRecord* find(const std::string& name) const;  // null if absent
};

// Writes to a temporary file and renames it over path.  Names must be unique
// and not "__metadata__"; shapes must match the data.
void save_safetensors(const std::string& path, const std::vector<TensorRecord>& tensors,
                      const std::map<std::string, std::string>& metadata);
std::string safetensors_bytes(const std::vector<TensorRecord>& tensors, const std::map<std::string, std::string>& metadata);

// Reads a file (a regular file only) or an in-memory copy of one; `what` names it in errors.
Safetensors load_safetensors(const std::string& path);
Safetensors parse_safetensors(const std::string& bytes, const std::string& what);

}  // namespace az
