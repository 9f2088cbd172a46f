// Byte-level text classification data (LRA's "Text" task): every byte of a
// document is one token (value + 1, vocabulary 257, 0 = padding).
//
// Two on-disk forms are read:
//   - a folder per class, `root/<class>/<file>` (the aclImdb layout), either
//     one tree that we split, or `root/{train,val|valid,test}/<class>/<file>`;
//   - TSV, one document per row: `label<TAB>text`, either one file that we
//     split, or a folder holding `train.tsv` (and `val.tsv`|`valid.tsv`,
//     `test.tsv`).
// `load_text(path)` picks the form by looking at the path.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace az {

constexpr int kByteVocab = 257;  // 256 byte values + padding id 0

struct TextOptions {
  size_t max_bytes = 0;         // keep the first max_bytes of each document; 0 = all
  double val_fraction = 0.1;    // used only for splits the data does not provide
  double test_fraction = 0.1;
  uint64_t seed = 0;            // seeds those splits
};

// Dispatches on the path:
//   a regular file (e.g. *.tsv)                  -> TSV, split by the options;
//   a folder with train.tsv                      -> TSV splits;
//   a folder with a train/ subfolder             -> folder-per-class splits;
//   any other folder                             -> one folder-per-class tree, split.
// A split the data lacks (val, or test) is carved out of train, stratified by
// class, with its fraction of train.  Throws DataError on any problem.
Splits load_text(const std::string& path, const TextOptions& opt = {});

// Folder-per-class.  Classes are the non-hidden subfolders sorted by name;
// documents are the non-hidden files in each, sorted by name.  Plain files
// beside the class folders (READMEs, vocab files) are ignored.  Errors: a
// missing root, no or fewer than 2 class folders, an empty class folder, a
// file that is not regular or cannot be read, an empty document, class sets
// that differ between splits.
Splits load_text_folder(const std::string& root, const TextOptions& opt = {});

// TSV.  Each row is `label<TAB>text`; the text may contain the escapes \n,
// \t, \r and \\ (any other backslash sequence is an error naming file:line,
// so text that round-trips through write_text_tsv is never misread).  The
// rest of a row after the first tab is text (a raw tab in it is kept).  Rows
// end in LF or CRLF; blank lines and a first row that reads exactly
// `label<TAB>text` are skipped.  Labels: if every label is a decimal integer
// (< 65536) they are the class ids; otherwise they are names, mapped to ids
// in sorted (byte) order.
Splits load_text_tsv(const std::string& path, const TextOptions& opt = {});

// Writes `d` as TSV readable by load_text_tsv: the label column holds the
// class name when d.class_names is set, the id otherwise; tokens are written
// back as bytes (token - 1), escaped.  Throws DataError if it cannot write or a
// token is not a byte token.
void write_text_tsv(const std::string& path, const Dataset& d);

// Test accuracy of classifiers that see one thing only, fit on train
// (text_baselines.cpp): the majority class, the majority class of each
// half-octave length bin, and softmax regression on the byte histogram
// ("bag of bytes"; the model picked on val).  The Text rows of the LRA table.
struct TextBaselines {
  double majority = 0, length_only = 0, bag_of_bytes = 0;
  size_t n_test = 0;
};
TextBaselines text_baselines(const Splits& s);

// Per class: shuffle that class's indices with `seed`, put round(n * test)
// in test and round(n * val) in val (shrunk so train keeps at least one), the
// rest in train.  Returns {train, val, test} indices, each sorted ascending.
// The same labels and seed always give the same split, on every platform
// (our own generator, not std::shuffle).
std::array<std::vector<size_t>, 3> stratified_split(const std::vector<int32_t>& labels,
                                                    int num_classes, double val_fraction,
                                                    double test_fraction, uint64_t seed);

// Bytes -> tokens (byte + 1), keeping at most max_bytes (0 = all).
std::vector<int32_t> bytes_to_tokens(const std::string& bytes, size_t max_bytes = 0);

// A small deterministic generator (splitmix64) for the data code's shuffles.
struct SplitMix64 {
  uint64_t state;
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next();
  uint64_t below(uint64_t n);  // uniform in [0, n), n > 0, without modulo bias
};

}  // namespace az
