// Fuzzes the Retrieval task's parsers of outside bytes (data/retrieval*.cpp):
// LRA's pair TSV and the man-page pipeline (roff stripper, references, .so
// redirects, gzip), each from one input in a scratch folder.
// Input: a mode byte, then bytes.
//   mode & 1 == 0: P.train.tsv, P.eval.tsv, P.test.tsv: the bytes cut at 0x01 bytes;
//   mode & 1 == 1: a man tree: records cut at 0x01 bytes, record k is the page
//                  man<2|3|7>/p<k>.<sec>.gz (gzip), a record starting "@" is
//                  written uncompressed; then the whole corpus is built and
//                  the baselines run when it yields pairs.
#include <fstream>
#include <vector>

#include "data/retrieval/retrieval.h"
#include "tests/fuzz/fuzz_util.h"

namespace fuzz_retrieval {

inline std::vector<std::string> cut(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    size_t e = s.find(sep, pos);
    out.push_back(s.substr(pos, e == std::string::npos ? std::string::npos : e - pos));
    if (e == std::string::npos) return out;
    pos = e + 1;
  }
}

inline int one(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  uint8_t mode = data[0];
  std::string in(reinterpret_cast<const char*>(data + 1), size - 1);
  namespace fs = std::filesystem;
  std::vector<std::string> parts = cut(in, '\x01');
  if ((mode & 1) == 0) {
    std::string root = fuzz::fresh_dir("tsv");
    const char* names[3] = {"p.train.tsv", "p.eval.tsv", "p.test.tsv"};
    for (size_t k = 0; k < 3; ++k) {
      std::ofstream f(fs::path(root) / names[k], std::ios::binary);
      if (k < parts.size()) f.write(parts[k].data(), std::streamsize(parts[k].size()));
    }
    fuzz::refusal_ok([&] { az::load_retrieval_tsv(root + "/p"); });
    return 0;
  }
  std::string root = fuzz::fresh_dir("man");
  const char* secs[3] = {"2", "3", "7"};
  for (size_t k = 0; k < parts.size() && k < 32; ++k) {
    std::string sec = secs[k % 3];
    std::string rel = "man" + sec + "/p" + std::to_string(k) + "." + sec + ".gz";
    std::error_code ec;
    fs::create_directories(fs::path(root) / ("man" + sec), ec);
    const std::string& page = parts[k];
    std::string tmp;
    if (!page.empty() && page[0] == '@') {
      std::ofstream(fs::path(root) / rel, std::ios::binary).write(page.data() + 1, std::streamsize(page.size() - 1));
    } else {
      tmp = fuzz::write_gz("page.gz", reinterpret_cast<const uint8_t*>(page.data()), page.size());
      fs::rename(tmp, fs::path(root) / rel, ec);
    }
  }
  az::RetrievalOptions opt;
  opt.man_root = root;
  opt.sections = {"2", "3", "7"};
  opt.packages = {};
  opt.verbose = false;
  opt.seed = mode >> 1;
  opt.split_by_community = mode & 2;
  fuzz::refusal_ok([&] {
    az::RetrievalData d = az::build_retrieval(opt);
    if (d.splits.train.size() && d.splits.test.size()) az::retrieval_baselines(d.splits, nullptr, 64);
  });
  return 0;
}

}  // namespace fuzz_retrieval

#ifndef AZ_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_retrieval::one(data, size); }
#endif
