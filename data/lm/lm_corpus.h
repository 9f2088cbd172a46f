// Byte-level language-modelling data: one text (a file, or every file of a
// folder in name order), cut into three contiguous ranges (train, then
// validation, then test: no window of one split overlaps another, so
// validation never sees training text), each range cut into windows of L
// bytes.  Window w of a range r holds the tokens r[wL .. wL+L) (byte + 1)
// and the targets r[wL+1 .. wL+L+1) (the next byte, 0..255), so every byte of
// a range but its first is predicted exactly once; the last window of a range
// is shorter.  Cost: one pass over the text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace az {

constexpr int kByteClasses = 256;  // an lm target is the next byte's value

// Where the default corpus lives: Debian's `fortunes` package (about 2.5 MB of
// quotations, jokes and definitions in plain text, fortune(6)'s databases).
constexpr const char* kFortunesDir = "/usr/share/games/fortunes";

struct LmText {
  std::string bytes;               // the files' bytes, concatenated in name order
  std::vector<std::string> files;  // the files read
  std::vector<std::string> skipped;  // files left out: binary (a NUL byte; e.g. fortune's .dat indexes) or links
};

// A regular file, or every regular file under a folder (recursively, sorted by
// path; hidden files, symbolic links and files holding a NUL byte are skipped
// and listed in `skipped`).  DataError on a missing path, an unreadable file or
// no text at all.
LmText read_lm_text(const std::string& path);

// The byte ranges [begin, end) of the three splits: the last test_frac of the
// text is test, the val_frac before it validation, the rest train.
struct LmRanges {
  size_t train_end = 0, val_end = 0, size = 0;  // train [0, train_end), val [train_end, val_end), test [val_end, size)
};
LmRanges lm_ranges(size_t size, double val_frac, double test_frac);  // DataError if a split has < 2 bytes

// The windows of bytes[begin, end) (see the top of this file).
Dataset lm_windows(const std::string& bytes, size_t begin, size_t end, int64_t window);

// All three splits.
Splits lm_splits(const std::string& bytes, const LmRanges& r, int64_t window);

}  // namespace az
