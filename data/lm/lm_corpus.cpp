// Byte-level language-modelling data (see lm_corpus.h).
#include "data/lm/lm_corpus.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace az {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& msg) { throw DataError("lm: " + msg); }

std::string read_whole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) fail("cannot read '" + p.string() + "'");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) fail("cannot read '" + p.string() + "'");
  return s.str();
}

bool hidden(const fs::path& p) {
  std::string n = p.filename().string();
  return !n.empty() && n[0] == '.';
}

}  // namespace

LmText read_lm_text(const std::string& path) {
  LmText t;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) fail("no such file or folder '" + path + "' (expected --data FILE|DIR of text)");
  if (fs::is_regular_file(st)) {
    t.bytes = read_whole(path);
    t.files.push_back(path);
  } else if (fs::is_directory(st)) {
    std::vector<fs::path> files;
    fs::recursive_directory_iterator it(path, ec), end;
    if (ec) fail("cannot list folder '" + path + "': " + ec.message());
    for (; it != end; it.increment(ec)) {
      if (ec) fail("cannot list folder '" + path + "': " + ec.message());
      const fs::path& p = it->path();
      if (hidden(p)) {
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_symlink(ec)) {  // fortune's NAME.u8 -> NAME: the same text twice
        if (!it->is_directory(ec)) t.skipped.push_back(p.string() + " (a link)");
        continue;
      }
      if (it->is_regular_file(ec)) files.push_back(p);
    }
    std::sort(files.begin(), files.end());
    for (auto& p : files) {
      std::string b = read_whole(p);
      if (b.find('\0') != std::string::npos) {
        t.skipped.push_back(p.string() + " (binary: holds a NUL byte)");
        continue;
      }
      t.bytes += b;
      t.files.push_back(p.string());
    }
  } else {
    fail("'" + path + "' is neither a regular file nor a folder");
  }
  if (t.bytes.empty()) fail("'" + path + "' holds no text (expected --data FILE|DIR of text)");
  return t;
}

LmRanges lm_ranges(size_t size, double val_frac, double test_frac) {
  LmRanges r;
  r.size = size;
  size_t test = size_t(std::llround(double(size) * test_frac)), val = size_t(std::llround(double(size) * val_frac));
  if (test < 2 || val < 2 || test + val + 2 > size)
    fail("the text has " + std::to_string(size) + " bytes, too few for train, validation and test splits of at least 2 bytes each");
  r.val_end = size - test;
  r.train_end = r.val_end - val;
  return r;
}

Dataset lm_windows(const std::string& bytes, size_t begin, size_t end, int64_t window) {
  if (window < 1) fail("window must be positive, got " + std::to_string(window));
  if (end > bytes.size() || begin + 2 > end) fail("split [" + std::to_string(begin) + ", " + std::to_string(end) + ") is too short");
  Dataset d;
  d.vocab_size = 257, d.num_classes = kByteClasses;
  const size_t L = size_t(window);
  // Positions p in [begin, end - 1) are inputs; each predicts byte p + 1.
  for (size_t s = begin; s + 1 < end; s += L) {
    size_t n = std::min(L, end - 1 - s);
    std::vector<int32_t> tok(n), tgt(n);
    for (size_t i = 0; i < n; ++i) {
      tok[i] = int32_t(uint8_t(bytes[s + i])) + 1;
      tgt[i] = int32_t(uint8_t(bytes[s + i + 1]));
    }
    d.seqs.push_back(std::move(tok));
    d.targets.push_back(std::move(tgt));
    d.labels.push_back(0);
  }
  return d;
}

Splits lm_splits(const std::string& bytes, const LmRanges& r, int64_t window) {
  Splits s;
  s.train = lm_windows(bytes, 0, r.train_end, window);
  s.val = lm_windows(bytes, r.train_end, r.val_end, window);
  s.test = lm_windows(bytes, r.val_end, r.size, window);
  return s;
}

}  // namespace az
