// Fuzzes ListOps reading (data/listops/listops.cpp): the TSV reader on the whole
// input, and the tokeniser and reference evaluator on its first line.
#include "data/listops/listops.h"
#include "tests/fuzz/fuzz_util.h"

namespace fuzz_listops {

inline int one(const uint8_t* data, size_t size) {
  std::string path = fuzz::write_file("in.tsv", data, size);
  fuzz::refusal_ok([&] { az::read_listops_tsv(path); });
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string first = text.substr(0, text.find('\n'));
  fuzz::refusal_ok([&] { az::listops_eval(first); });
  fuzz::refusal_ok([&] { az::listops_eval_ids(az::listops_tokenize(first)); });
  return 0;
}

}  // namespace fuzz_listops

#ifndef AZ_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_listops::one(data, size); }
#endif
