// Loaders for byte-level text classification: folder-per-class trees and
// label<TAB>text files, plus the seeded stratified split both use when the
// data does not come split.  See text.h for the accepted layouts.
#include "data/text/text.h"
#include "autograd/runtime/strings.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace az {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& msg) { throw DataError("text: " + msg); }

bool is_hidden(const fs::path& p) {
  std::string n = p.filename().string();
  return !n.empty() && n[0] == '.';
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool is_regular(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The non-hidden entries of a folder, sorted by name.  Never throws
// filesystem_error: an unreadable folder is a DataError naming it.
std::vector<fs::path> list_dir(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec))
    if (!is_hidden(it->path())) out.push_back(it->path());
  if (ec) fail("cannot list folder '" + dir.string() + "': " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

// The first max_bytes (0 = all) bytes of a regular file.  Refuses FIFOs and
// devices, which could block or never end.
std::string read_document(const fs::path& p, size_t max_bytes) {
  std::error_code ec;
  fs::file_status st = fs::status(p, ec);
  if (ec || !fs::exists(st)) fail("cannot read '" + p.string() + "': no such file (a broken link?)");
  if (!fs::is_regular_file(st)) fail("'" + p.string() + "' is not a regular file (expected a document)");
  std::ifstream in(p, std::ios::binary);
  if (!in) fail("cannot read '" + p.string() + "': " + std::strerror(errno));
  std::string bytes;
  char buf[1 << 16];
  while (max_bytes == 0 || bytes.size() < max_bytes) {
    size_t want = sizeof(buf);
    if (max_bytes) want = std::min(want, max_bytes - bytes.size());
    in.read(buf, static_cast<std::streamsize>(want));
    bytes.append(buf, static_cast<size_t>(in.gcount()));
    if (in.bad()) fail("cannot read '" + p.string() + "': read error");
    if (!in) break;  // end of file
  }
  return bytes;
}

void check_fractions(double val, double test) {
  if (!(val >= 0 && test >= 0 && val + test < 1))
    fail("split fractions val=" + std::to_string(val) + " test=" + std::to_string(test) +
         " must each be >= 0 and sum to less than 1");
}

Dataset empty_dataset(const std::vector<std::string>& class_names) {
  Dataset d;
  d.vocab_size = kByteVocab;
  d.num_classes = static_cast<int>(class_names.size());
  d.class_names = class_names;
  return d;
}

// Moves the documents at idx out of d (each index is taken once).
Dataset take(Dataset& d, const std::vector<size_t>& idx) {
  Dataset s = empty_dataset(d.class_names);
  s.num_classes = d.num_classes;
  for (size_t i : idx) {
    s.seqs.push_back(std::move(d.seqs[i]));
    s.labels.push_back(d.labels[i]);
  }
  return s;
}

// Fills in the splits the data did not provide (val and/or test, null here)
// by a stratified split of train, and refuses to hand out an empty split.
Splits finish_splits(Dataset train, const Dataset* val, const Dataset* test,
                     const TextOptions& opt, const std::string& where) {
  Splits s;
  double vf = val ? 0.0 : opt.val_fraction;
  double tf = test ? 0.0 : opt.test_fraction;
  if (!val || !test) {
    auto parts = stratified_split(train.labels, train.num_classes, vf, tf, opt.seed);
    s.val = val ? *val : take(train, parts[1]);
    s.test = test ? *test : take(train, parts[2]);
    s.train = take(train, parts[0]);
  } else {
    s.train = std::move(train);
    s.val = *val;
    s.test = *test;
  }
  const char* names[3] = {"train", "val", "test"};
  const Dataset* ds[3] = {&s.train, &s.val, &s.test};
  double fr[3] = {1.0, vf, tf};
  for (int k = 0; k < 3; ++k)
    if (ds[k]->size() == 0 && fr[k] > 0)
      fail("'" + where + "': the " + names[k] + " split came out empty (" +
           std::to_string(s.train.size() + s.val.size() + s.test.size()) +
           " documents in all); add documents or change the split fractions");
  return s;
}

// ---- folder per class --------------------------------------------------------

Dataset load_tree(const fs::path& root, const TextOptions& opt) {
  std::vector<std::string> classes;
  std::vector<fs::path> class_dirs;
  for (const fs::path& p : list_dir(root))
    if (is_dir(p)) {
      classes.push_back(p.filename().string());
      class_dirs.push_back(p);
    }
  if (classes.empty())
    fail("'" + root.string() + "' has no class folders (expected " + root.string() + "/<class>/<files>)");
  if (classes.size() < 2)
    fail("'" + root.string() + "' has only 1 class folder ('" + classes[0] + "'); need at least 2");
  Dataset d = empty_dataset(classes);
  for (size_t c = 0; c < class_dirs.size(); ++c) {
    size_t before = d.size();
    for (const fs::path& f : list_dir(class_dirs[c])) {
      if (is_dir(f)) fail("'" + f.string() + "' is a folder inside a class folder (expected only files)");
      std::string bytes = read_document(f, opt.max_bytes);
      if (bytes.empty()) fail("'" + f.string() + "' is empty (expected a document of at least one byte)");
      d.seqs.push_back(bytes_to_tokens(bytes));
      d.labels.push_back(static_cast<int32_t>(c));
    }
    if (d.size() == before) fail("class folder '" + class_dirs[c].string() + "' has no files");
  }
  return d;
}

// Returns the existing subfolder among `names`, or "" if none; two is an error.
fs::path find_one(const fs::path& root, std::initializer_list<const char*> names, bool dirs) {
  fs::path found;
  for (const char* n : names) {
    fs::path p = root / n;
    if (dirs ? is_dir(p) : is_regular(p)) {
      if (!found.empty())
        fail("'" + root.string() + "' has both '" + found.filename().string() + "' and '" + n +
             "'; keep one");
      found = p;
    }
  }
  return found;
}

// ---- TSV -----------------------------------------------------------------------

struct TsvRows {
  std::string file;
  std::vector<std::string> labels;
  std::vector<size_t> lines;                 // 1-based line of each row
  std::vector<std::vector<int32_t>> seqs;
};

std::string where(const std::string& file, size_t line) { return file + ":" + std::to_string(line); }

TsvRows read_tsv(const fs::path& path, const TextOptions& opt) {
  TsvRows rows;
  rows.file = path.string();
  std::string data = read_document(path, 0);
  if (data.empty()) fail("'" + rows.file + "' is empty (expected rows of label<TAB>text)");
  size_t pos = 0, line_no = 0;
  bool first_row = true;
  std::string text;
  while (pos < data.size()) {
    size_t nl = data.find('\n', pos);
    size_t end = nl == std::string::npos ? data.size() : nl;
    size_t next = nl == std::string::npos ? data.size() : nl + 1;
    if (end > pos && data[end - 1] == '\r') --end;  // CRLF
    ++line_no;
    const char* s = data.data() + pos;
    size_t len = end - pos;
    pos = next;
    if (len == 0) continue;  // blank line
    const char* tab = static_cast<const char*>(std::memchr(s, '\t', len));
    if (!tab) fail(where(rows.file, line_no) + ": no tab (expected label<TAB>text)");
    std::string label(s, tab);
    if (first_row && label == "label" && std::string(tab + 1, s + len) == "text") {
      first_row = false;
      continue;  // a header row
    }
    first_row = false;
    if (label.empty()) fail(where(rows.file, line_no) + ": empty label (expected label<TAB>text)");
    text.clear();
    for (const char* q = tab + 1; q < s + len; ++q) {
      if (*q != '\\') {
        text += *q;
        continue;
      }
      size_t col = static_cast<size_t>(q - s) + 1;
      if (q + 1 == s + len)
        fail(where(rows.file, line_no) + ": lone backslash at the end of the row, column " +
             std::to_string(col) + " (write a backslash as \\\\)");
      char e = *++q;
      if (e == 'n') text += '\n';
      else if (e == 't') text += '\t';
      else if (e == 'r') text += '\r';
      else if (e == '\\') text += '\\';
      else
        fail(where(rows.file, line_no) + ": unknown escape '\\" + std::string(1, e) + "' at column " +
             std::to_string(col) + " (expected \\n, \\t, \\r or \\\\; write a backslash as \\\\)");
    }
    if (text.empty()) fail(where(rows.file, line_no) + ": empty text (expected label<TAB>text, text of at least one byte)");
    rows.labels.push_back(std::move(label));
    rows.lines.push_back(line_no);
    rows.seqs.push_back(bytes_to_tokens(text, opt.max_bytes));
  }
  if (rows.labels.empty()) fail("'" + rows.file + "' has no rows (expected rows of label<TAB>text)");
  return rows;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Turns rows of every split into datasets sharing one class mapping, taken
// from the first (train) file; the others may only use its labels.
std::vector<Dataset> tsv_datasets(std::vector<TsvRows>& files) {
  bool integer = true;
  for (const TsvRows& f : files)
    for (const std::string& l : f.labels) integer = integer && all_digits(l);
  std::map<std::string, int32_t> ids;
  std::vector<std::string> names;
  const TsvRows& train = files[0];
  if (integer) {
    int32_t max_id = 0;
    for (size_t r = 0; r < train.labels.size(); ++r) {
      const std::string& l = train.labels[r];
      long v = 0;
      for (char ch : l) v = std::min(10 * v + (ch - '0'), 1000000L);  // saturates, never overflows
      if (v >= 65536)
        fail(where(train.file, train.lines[r]) + ": integer label " + l + " is too large (expected a class id < 65536)");
      ids[l] = static_cast<int32_t>(v);
      max_id = std::max(max_id, ids[l]);
    }
    for (int32_t c = 0; c <= max_id; ++c) names.push_back(std::to_string(c));
  } else {
    for (const std::string& l : train.labels) ids[l] = 0;
    int32_t c = 0;
    for (auto& kv : ids) {  // std::map iterates in sorted (byte) order
      kv.second = c++;
      names.push_back(kv.first);
    }
  }
  std::set<int32_t> distinct;
  for (auto& kv : ids) distinct.insert(kv.second);
  if (distinct.size() < 2)
    fail("'" + train.file + "' has only 1 distinct label ('" + ids.begin()->first + "'); need at least 2 classes");
  std::vector<std::string> seen;
  for (auto& kv : ids)
    if (seen.size() < 20) seen.push_back(kv.first);
  if (ids.size() > seen.size()) seen.push_back("...");
  std::vector<Dataset> out;
  for (TsvRows& f : files) {
    Dataset d = empty_dataset(names);
    for (size_t r = 0; r < f.labels.size(); ++r) {
      auto it = ids.find(f.labels[r]);
      if (it == ids.end())
        fail(where(f.file, f.lines[r]) + ": label '" + f.labels[r] + "' does not occur in '" + train.file +
             "' (its labels: " + join(seen) + ")");
      d.labels.push_back(it->second);
      d.seqs.push_back(std::move(f.seqs[r]));
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

// ---- public --------------------------------------------------------------------

uint64_t SplitMix64::next() {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t SplitMix64::below(uint64_t n) {
  uint64_t threshold = (0 - n) % n;  // reject the first (2^64 mod n) values: no bias
  for (;;) {
    uint64_t r = next();
    if (r >= threshold) return r % n;
  }
}

std::vector<int32_t> bytes_to_tokens(const std::string& bytes, size_t max_bytes) {
  size_t n = max_bytes ? std::min(max_bytes, bytes.size()) : bytes.size();
  std::vector<int32_t> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = static_cast<int32_t>(static_cast<unsigned char>(bytes[i])) + 1;
  return t;
}

std::array<std::vector<size_t>, 3> stratified_split(const std::vector<int32_t>& labels,
                                                    int num_classes, double val_fraction,
                                                    double test_fraction, uint64_t seed) {
  check_fractions(val_fraction, test_fraction);
  std::vector<std::vector<size_t>> by_class(static_cast<size_t>(std::max(num_classes, 0)));
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || labels[i] >= num_classes)
      fail("label " + std::to_string(labels[i]) + " outside [0, " + std::to_string(num_classes) + ")");
    by_class[static_cast<size_t>(labels[i])].push_back(i);
  }
  SplitMix64 rng(seed);
  std::array<std::vector<size_t>, 3> parts;
  for (std::vector<size_t>& idx : by_class) {
    size_t n = idx.size();
    for (size_t i = n; i > 1; --i) std::swap(idx[i - 1], idx[rng.below(i)]);  // Fisher-Yates
    size_t n_test = static_cast<size_t>(std::llround(n * test_fraction));
    size_t n_val = static_cast<size_t>(std::llround(n * val_fraction));
    while (n > 0 && n_test + n_val >= n) (n_test >= n_val ? n_test : n_val)--;  // keep one in train
    for (size_t k = 0; k < n; ++k) parts[k < n_test ? 2 : k < n_test + n_val ? 1 : 0].push_back(idx[k]);
  }
  for (auto& p : parts) std::sort(p.begin(), p.end());
  return parts;
}

Splits load_text_folder(const std::string& root_str, const TextOptions& opt) {
  fs::path root(root_str);
  check_fractions(opt.val_fraction, opt.test_fraction);
  if (!is_dir(root)) fail("data folder '" + root_str + "' does not exist (expected a folder per class, or a .tsv file)");
  if (!is_dir(root / "train")) return finish_splits(load_tree(root, opt), nullptr, nullptr, opt, root_str);
  fs::path val_dir = find_one(root, {"val", "valid"}, true);
  fs::path test_dir = find_one(root, {"test"}, true);
  Dataset train = load_tree(root / "train", opt), val, test;
  auto check_same = [&](const Dataset& d, const fs::path& dir) {
    if (d.class_names != train.class_names)
      fail("class folders differ between splits: '" + (root / "train").string() + "' has [" +
           join(train.class_names) + "] but '" + dir.string() + "' has [" + join(d.class_names) + "]");
  };
  if (!val_dir.empty()) check_same(val = load_tree(val_dir, opt), val_dir);
  if (!test_dir.empty()) check_same(test = load_tree(test_dir, opt), test_dir);
  return finish_splits(std::move(train), val_dir.empty() ? nullptr : &val,
                       test_dir.empty() ? nullptr : &test, opt, root_str);
}

Splits load_text_tsv(const std::string& path_str, const TextOptions& opt) {
  fs::path path(path_str);
  check_fractions(opt.val_fraction, opt.test_fraction);
  std::vector<TsvRows> files;
  fs::path val_file, test_file;
  if (is_dir(path)) {
    fs::path train_file = path / "train.tsv";
    if (!is_regular(train_file)) fail("'" + path_str + "' has no train.tsv (expected train.tsv, val.tsv, test.tsv)");
    val_file = find_one(path, {"val.tsv", "valid.tsv"}, false);
    test_file = find_one(path, {"test.tsv"}, false);
    files.push_back(read_tsv(train_file, opt));
    if (!val_file.empty()) files.push_back(read_tsv(val_file, opt));
    if (!test_file.empty()) files.push_back(read_tsv(test_file, opt));
  } else {
    files.push_back(read_tsv(path, opt));
  }
  std::vector<Dataset> ds = tsv_datasets(files);
  size_t k = 1;
  Dataset* val = val_file.empty() ? nullptr : &ds[k++];
  Dataset* test = test_file.empty() ? nullptr : &ds[k++];
  return finish_splits(std::move(ds[0]), val, test, opt, path_str);
}

Splits load_text(const std::string& path_str, const TextOptions& opt) {
  fs::path path(path_str);
  std::error_code ec;
  if (!fs::exists(path, ec))
    fail("data path '" + path_str + "' does not exist (expected a folder per class or a .tsv file)");
  if (!is_dir(path)) return load_text_tsv(path_str, opt);
  if (is_regular(path / "train.tsv") && !is_dir(path / "train")) return load_text_tsv(path_str, opt);
  return load_text_folder(path_str, opt);
}

void write_text_tsv(const std::string& path, const Dataset& d) {
  bool named = d.class_names.size() == static_cast<size_t>(d.num_classes) && d.num_classes > 0;
  if (named)
    for (const std::string& n : d.class_names)
      if (n.empty() || n.find_first_of("\t\r\n") != std::string::npos)
        fail("cannot write class name '" + n + "' to TSV (it is empty or holds a tab or newline)");
  std::ofstream out(path, std::ios::binary);
  if (!out) fail("cannot write '" + path + "': " + std::strerror(errno));
  std::string row;
  for (size_t i = 0; i < d.size(); ++i) {
    int32_t y = d.labels[i];
    if (y < 0 || (named && y >= d.num_classes))
      fail("cannot write '" + path + "': label " + std::to_string(y) + " of document " + std::to_string(i) + " out of range");
    if (d.seqs[i].empty())
      fail("cannot write '" + path + "': document " + std::to_string(i) + " is empty (a TSV row needs at least one byte)");
    row = named ? d.class_names[static_cast<size_t>(y)] : std::to_string(y);
    row += '\t';
    for (int32_t t : d.seqs[i]) {
      if (t < 1 || t > 256)
        fail("cannot write '" + path + "': token " + std::to_string(t) + " in document " + std::to_string(i) +
             " is not a byte token (expected 1..256)");
      char c = static_cast<char>(t - 1);
      if (c == '\\') row += "\\\\";
      else if (c == '\n') row += "\\n";
      else if (c == '\t') row += "\\t";
      else if (c == '\r') row += "\\r";
      else row += c;
    }
    row += '\n';
    out.write(row.data(), static_cast<std::streamsize>(row.size()));
  }
  out.close();
  if (!out) fail("cannot write '" + path + "': write error (disk full?)");
}

}  // namespace az
