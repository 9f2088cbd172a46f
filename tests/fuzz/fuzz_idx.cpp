// Fuzzes the IDX reader (data/images/idx.cpp): read_idx of every rank, and
// load_idx_pair on an image file and a label file cut from one input.
// Input: a mode byte, then bytes.  Mode bit 7: write the bytes gzip'd (so
// mutations reach the IDX parser behind zlib); bits 0-1: the rank asked for;
// bit 2: treat the input as an image file + label file split at the middle.
#include "data/images/idx.h"
#include "tests/fuzz/fuzz_util.h"

namespace fuzz_idx {

inline int one(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  uint8_t mode = data[0];
  ++data, --size;
  auto put = [&](const std::string& name, const uint8_t* p, size_t n) {
    return (mode & 0x80) ? fuzz::write_gz(name, p, n) : fuzz::write_file(name, p, n);
  };
  if (mode & 4) {
    size_t half = size / 2;
    std::string images = put("images.idx", data, half), labels = put("labels.idx", data + half, size - half);
    fuzz::refusal_ok([&] { az::load_idx_pair(images, labels, 10); });
  } else {
    std::string path = put("in.idx", data, size);
    fuzz::refusal_ok([&] { az::read_idx(path, 1 + (mode & 3)); });
  }
  return 0;
}

}  // namespace fuzz_idx

#ifndef AZ_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_idx::one(data, size); }
#endif
