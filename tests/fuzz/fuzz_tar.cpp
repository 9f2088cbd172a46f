// Fuzzes the gzip+tar reader (data/text/spam_assassin.cpp) and what the corpus
// preparation does with its entries: read_tar_gz on every entry, then, with
// mode bit 0, the whole prepare_spam_assassin_from_tarball into a scratch
// folder (group names, header stripping, de-duplication, the split).
// Input: a mode byte, then the archive.  Mode bit 7: gzip the archive first.
#include <vector>

#include "data/text/spam_assassin.h"
#include "tests/fuzz/fuzz_util.h"

namespace fuzz_tar {

inline int one(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  uint8_t mode = data[0];
  ++data, --size;
  std::string path = (mode & 0x80) ? fuzz::write_gz("in.tar.gz", data, size) : fuzz::write_file("in.tar", data, size);
  std::vector<std::string> bodies;
  std::vector<int32_t> labels;
  fuzz::refusal_ok([&] {
    az::read_tar_gz(
        path, [](const std::string&) { return true; },
        [&](const std::string& name, std::string&& bytes) {
          bodies.push_back(az::strip_mail_headers(bytes));
          labels.push_back(int32_t(name.size() % 2));
        });
  });
  az::DedupStats stats;
  az::dedup_bodies(bodies, labels, stats);
  if (mode & 1) {
    std::string out = fuzz::fresh_dir("corpus") + "/out";
    fuzz::refusal_ok([&] { az::prepare_spam_assassin_from_tarball(path, out, 1); });
  }
  return 0;
}

}  // namespace fuzz_tar

#ifndef AZ_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_tar::one(data, size); }
#endif
