// Fuzzes LRA Pathfinder metadata reading (data/pathfinder/lra_pathfinder_layout.cpp):
// the parser on the raw bytes (text lines, or NumPy when the input starts
// with the .npy magic), and the file reader on the same bytes from disk.
#include "data/pathfinder/lra_pathfinder_layout.h"
#include "tests/fuzz/fuzz_util.h"

namespace fuzz_pathfinder_meta {

inline int one(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  fuzz::refusal_ok([&] { az::parse_lra_pathfinder_metadata(bytes, "fuzz.npy"); });
  const std::string path = fuzz::write_file("0.npy", data, size);
  fuzz::refusal_ok([&] { az::read_lra_pathfinder_metadata(path); });
  return 0;
}

}  // namespace fuzz_pathfinder_meta

#ifndef AZ_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_pathfinder_meta::one(data, size); }
#endif
