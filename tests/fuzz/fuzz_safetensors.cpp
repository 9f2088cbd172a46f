// Fuzzes the safetensors reader (train/safetensors.cpp), which `attnzoo import`
// runs on files from other frameworks.
// Input: a mode byte, then bytes.  Mode bit 0 set: the bytes are the whole file.
// Clear: the bytes are the JSON header; the target prefixes its length and
// appends a data buffer of (mode >> 1) * 4 bytes, so mutations of the JSON reach
// the offset, shape and dtype checks without having to keep the length right.
#include <string>

#include "tests/fuzz/fuzz_util.h"
#include "train/safetensors.h"

namespace fuzz_safetensors {

inline int one(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  uint8_t mode = data[0];
  ++data, --size;
  std::string bytes;
  if (mode & 1) {
    bytes.assign(reinterpret_cast<const char*>(data), size);
  } else {
    uint64_t n = size;
    bytes.assign(reinterpret_cast<const char*>(&n), 8);
    bytes.append(reinterpret_cast<const char*>(data), size);
    for (size_t i = 0; i < size_t(mode >> 1) * 4; ++i) bytes.push_back(char(i * 37));
  }
  fuzz::refusal_ok([&] {
    az::Safetensors st = az::parse_safetensors(bytes, "fuzz input");
    // What import does next: every record's size must match its shape.
    for (auto& t : st.tensors)
      if (uint64_t(az::numel_of(t.shape)) != t.data.size()) std::abort();
  });
  return 0;
}

}  // namespace fuzz_safetensors

#ifndef AZ_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_safetensors::one(data, size); }
#endif
