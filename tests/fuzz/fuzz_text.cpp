// Fuzzes byte-level text loading (data/text/text.cpp) through load_text, the entry
// point the Text task uses: a TSV file, a folder of split TSV files, or a
// folder-per-class tree, all built from one input in a scratch folder.
// Input: a mode byte, then bytes.
//   mode & 3 == 0: the bytes are one TSV file;
//   mode & 3 == 1: train.tsv, val.tsv, test.tsv: the bytes cut at 0x01 bytes;
//   otherwise:     a tree: records cut at 0x01 bytes, each `relative/path\ncontent`
//                  (path characters outside [A-Za-z0-9._-/] dropped, no "..").
//   mode bit 2: keep only the first 8 bytes of each document (max_bytes).
#include <cctype>
#include <fstream>
#include <vector>

#include "data/text/text.h"
#include "tests/fuzz/fuzz_util.h"

namespace fuzz_text {

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

inline void put(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

inline int one(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  uint8_t mode = data[0];
  std::string in(reinterpret_cast<const char*>(data + 1), size - 1);
  az::TextOptions opt;
  opt.max_bytes = (mode & 4) ? 8 : 0;
  opt.seed = mode >> 4;
  namespace fs = std::filesystem;
  std::string root;
  if ((mode & 3) == 0) {
    root = fuzz::write_file("in.tsv", reinterpret_cast<const uint8_t*>(in.data()), in.size());
  } else if ((mode & 3) == 1) {
    root = fuzz::fresh_dir("tsvs");
    std::vector<std::string> parts = cut(in, '\x01');
    const char* names[3] = {"train.tsv", "val.tsv", "test.tsv"};
    for (size_t k = 0; k < parts.size() && k < 3; ++k) put(fs::path(root) / names[k], parts[k]);
  } else {
    root = fuzz::fresh_dir("tree");
    std::vector<std::string> records = cut(in, '\x01');
    for (size_t r = 0; r < records.size() && r < 64; ++r) {
      size_t nl = records[r].find('\n');
      std::string rel, clean;
      rel = records[r].substr(0, nl);
      for (char ch : rel)
        if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-' || ch == '/')
          clean += ch;
      fs::path p = fs::path(clean).lexically_normal().relative_path();
      if (p.empty() || clean.size() > 80 || p.string().find("..") != std::string::npos) continue;
      std::error_code ec;
      fs::create_directories((fs::path(root) / p).parent_path(), ec);
      if (ec) continue;
      if (nl == std::string::npos) fs::create_directories(fs::path(root) / p, ec);  // a folder
      else put(fs::path(root) / p, records[r].substr(nl + 1));
    }
  }
  fuzz::refusal_ok([&] { az::load_text(root, opt); });
  return 0;
}

}  // namespace fuzz_text

#ifndef AZ_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_text::one(data, size); }
#endif
