// Fuzzes checkpoint loading (train/checkpoint.cpp) and the configuration it
// carries (TrainConfig::from_map + validate).
// Input: a mode byte, then bytes.  Mode bit 0 clear: the bytes are a payload
// and the target wraps them in a valid header (magic, version, length, CRC),
// so mutations get past the checksum into the cereal reader; set: the bytes
// are the whole file.
#include <cstring>

#include "tests/fuzz/fuzz_util.h"
#include "train/checkpoint.h"
#include "train/config.h"

namespace fuzz_checkpoint {

inline int one(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  uint8_t mode = data[0];
  ++data, --size;
  std::string bytes;
  if (mode & 1) {
    bytes.assign(reinterpret_cast<const char*>(data), size);
  } else {
    uint32_t ver = az::kCheckpointVersion;
    uint64_t len = size;
    uint32_t crc = uint32_t(crc32(0L, data, uInt(size)));
    bytes.assign("ATTNZOO\0", 8);
    bytes.append(reinterpret_cast<const char*>(&ver), 4);
    bytes.append(reinterpret_cast<const char*>(&len), 8);
    bytes.append(reinterpret_cast<const char*>(&crc), 4);
    bytes.append(reinterpret_cast<const char*>(data), size);
  }
  std::string path = fuzz::write_file("in.ckpt", reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  fuzz::refusal_ok([&] {
    az::Checkpoint c = az::load_checkpoint(path);
    fuzz::refusal_ok([&] { az::TrainConfig::from_map(c.train_config).validate(); });
    // What the trainer does with the records before load_into.
    for (auto& r : c.params) (void)az::numel_of(r.shape);
  });
  return 0;
}

}  // namespace fuzz_checkpoint

#ifndef AZ_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_checkpoint::one(data, size); }
#endif
