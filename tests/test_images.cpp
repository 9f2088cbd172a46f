// Image data: IDX files (written here through zlib, then loaded, then broken
// on purpose), image folders (PNG/BMP/JPG written here with stb_image_write),
// the seeded split helper, and the real Fashion-MNIST when it is installed.
#include <doctest/doctest.h>
#include <stb_image_write.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "data/images/idx.h"
#include "data/images/image_folder.h"
#include "tests/util.h"

using namespace az;
namespace fs = std::filesystem;

namespace {

using az::test::TempDir;
using az::test::error_of;
using az::test::contains;

void write_gz(const std::string& path, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  if (!bytes.empty()) REQUIRE(gzwrite(f, bytes.data(), unsigned(bytes.size())) == int(bytes.size()));
  REQUIRE(gzclose(f) == Z_OK);
}

void write_raw(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  REQUIRE(out.good());
}

std::vector<uint8_t> read_raw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// IDX header bytes: 0, 0, 0x08 (ubyte), rank, big-endian dimensions.
std::vector<uint8_t> idx_header(const std::vector<uint32_t>& dims, uint8_t type = 0x08) {
  std::vector<uint8_t> h = {0, 0, type, uint8_t(dims.size())};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) h.push_back(uint8_t(d >> s));
  return h;
}

// 5 images of 4 rows x 3 columns with distinct bytes, and labels 0..4.
struct IdxFixture {
  std::vector<uint8_t> images, labels;
  IdxFixture() {
    for (int i = 0; i < 5 * 4 * 3; ++i) images.push_back(uint8_t(i * 7 % 256));
    labels = {3, 0, 9, 1, 4};
  }
};

}  // namespace

TEST_CASE("idx: a gzip'd file written through zlib loads back exactly") {
  TempDir dir("az_images");
  IdxFixture fx;
  const std::string img = dir / "imgs-idx3-ubyte.gz", lab = dir / "labs-idx1-ubyte.gz";
  write_idx(img, {5, 4, 3}, fx.images.data());
  write_idx(lab, {5}, fx.labels.data());
  std::vector<uint8_t> raw = read_raw(img);
  REQUIRE(raw.size() > 2);
  CHECK(raw[0] == 0x1f);  // gzip magic: it really is compressed
  CHECK(raw[1] == 0x8b);

  IdxArray a = read_idx(img, 3);
  CHECK(a.dims == std::vector<uint32_t>{5, 4, 3});
  CHECK(a.data == fx.images);

  Dataset ds = load_idx_pair(img, lab, 10);
  REQUIRE(ds.size() == 5);
  CHECK(ds.height == 4);
  CHECK(ds.width == 3);
  CHECK(ds.channels == 1);
  CHECK(ds.vocab_size == 257);
  CHECK(ds.num_classes == 10);
  CHECK(ds.labels == std::vector<int32_t>{3, 0, 9, 1, 4});
  for (size_t i = 0; i < 5; ++i) {
    REQUIRE(ds.seqs[i].size() == 12);
    for (size_t p = 0; p < 12; ++p) CHECK(ds.seqs[i][p] == int32_t(fx.images[i * 12 + p]) + 1);
  }
}

TEST_CASE("idx: plain (not gzip'd) files load too") {
  TempDir dir("az_images");
  IdxFixture fx;
  const std::string img = dir / "imgs-idx3-ubyte";
  write_idx(img, {5, 4, 3}, fx.images.data(), /*gzip=*/false);
  CHECK(read_raw(img).size() == 16 + 60);
  CHECK(read_idx(img, 3).data == fx.images);
}

TEST_CASE("idx: bad input gives one-line errors naming the file and byte offset") {
  TempDir dir("az_images");
  IdxFixture fx;
  const std::string img = dir / "imgs.gz", lab = dir / "labs.gz";
  write_idx(img, {5, 4, 3}, fx.images.data());
  write_idx(lab, {5}, fx.labels.data());

  SUBCASE("wrong magic: a label file read as images") {
    std::string msg = error_of<DataError>([&] { read_idx(lab, 3); });
    CHECK(contains(msg, "idx: " + lab));
    CHECK(contains(msg, "bad magic 0x00000801 at byte 0"));
    CHECK(contains(msg, "expected 0x00000803 (ubyte, rank 3)"));
    CHECK(msg.find('\n') == std::string::npos);
  }
  SUBCASE("wrong type byte (float IDX)") {
    std::vector<uint8_t> b = idx_header({5, 4, 3}, 0x0D);
    b.insert(b.end(), fx.images.begin(), fx.images.end());
    write_gz(dir / "float.gz", b);
    CHECK(contains(error_of<DataError>([&] { read_idx(dir / "float.gz", 3); }), "bad magic 0x00000D03 at byte 0"));
  }
  SUBCASE("truncated data") {
    std::vector<uint8_t> b = idx_header({5, 4, 3});
    b.insert(b.end(), fx.images.begin(), fx.images.begin() + 30);
    write_gz(dir / "short.gz", b);
    std::string msg = error_of<DataError>([&] { read_idx(dir / "short.gz", 3); });
    CHECK(contains(msg, dir / "short.gz"));
    CHECK(contains(msg, "data ends at byte 46"));
    CHECK(contains(msg, "expected 76 bytes (header 16 + 5x4x3 ubyte)"));
  }
  SUBCASE("truncated header") {
    std::vector<uint8_t> b = idx_header({5, 4, 3});
    b.resize(9);
    write_gz(dir / "head.gz", b);
    std::string msg = error_of<DataError>([&] { read_idx(dir / "head.gz", 3); });
    CHECK(contains(msg, "header ends at byte 9"));
    CHECK(contains(msg, "expected 16 header bytes"));
  }
  SUBCASE("empty file") {
    write_raw(dir / "empty", {});
    CHECK(contains(error_of<DataError>([&] { read_idx(dir / "empty", 1); }), "file ends at byte 0"));
  }
  SUBCASE("trailing garbage") {
    std::vector<uint8_t> b = idx_header({5, 4, 3});
    b.insert(b.end(), fx.images.begin(), fx.images.end());
    b.insert(b.end(), {1, 2, 3});
    write_gz(dir / "long.gz", b);
    std::string msg = error_of<DataError>([&] { read_idx(dir / "long.gz", 3); });
    CHECK(contains(msg, dir / "long.gz"));
    CHECK(contains(msg, "3 unexpected trailing bytes after byte 76"));
  }
  SUBCASE("zero dimension") {
    write_gz(dir / "zero.gz", idx_header({5, 0, 3}));
    CHECK(contains(error_of<DataError>([&] { read_idx(dir / "zero.gz", 3); }), "dimension 1 is 0 at byte 8"));
  }
  SUBCASE("absurd dimensions fail fast, without allocating them") {
    std::vector<uint8_t> b = idx_header({0xFFFFFFFFu, 0xFFFFFFFFu, 28});
    write_gz(dir / "huge.gz", b);
    CHECK(contains(error_of<DataError>([&] { read_idx(dir / "huge.gz", 3); }), "over 2^40 bytes"));
    write_gz(dir / "big.gz", idx_header({100000, 1000, 1000}));  // 10^11 bytes announced, 0 present
    CHECK(contains(error_of<DataError>([&] { read_idx(dir / "big.gz", 3); }), "data ends at byte 16"));
  }
  SUBCASE("label out of range") {
    std::vector<uint8_t> bad = fx.labels;
    bad[2] = 10;
    write_idx(dir / "badlab.gz", {5}, bad.data());
    std::string msg = error_of<DataError>([&] { load_idx_pair(img, dir / "badlab.gz", 10); });
    CHECK(contains(msg, dir / "badlab.gz"));
    CHECK(contains(msg, "label 10 at byte 10 out of range, expected 0..9"));
  }
  SUBCASE("count mismatch") {
    write_idx(dir / "four.gz", {4}, fx.labels.data());
    std::string msg = error_of<DataError>([&] { load_idx_pair(img, dir / "four.gz", 10); });
    CHECK(contains(msg, dir / "four.gz"));
    CHECK(contains(msg, "count 4 at byte 4"));
    CHECK(contains(msg, "expected 5 labels"));
    CHECK(contains(msg, img));
  }
  SUBCASE("missing file") {
    std::string msg = error_of<DataError>([&] { read_idx(dir / "nope.gz", 1); });
    CHECK(contains(msg, dir / "nope.gz"));
    CHECK(contains(msg, "cannot open"));
  }
  SUBCASE("damaged gzip stream") {
    std::vector<uint8_t> raw = read_raw(img);
    std::vector<uint8_t> cut(raw.begin(), raw.begin() + long(raw.size() / 2));
    write_raw(dir / "cut.gz", cut);
    std::string msg = error_of<DataError>([&] { read_idx(dir / "cut.gz", 3); });
    CHECK(contains(msg, dir / "cut.gz"));
    CHECK(contains(msg, "byte"));  // "data ends at byte N" or "... after byte N"
    std::vector<uint8_t> junk = raw;
    for (size_t i = 12; i < junk.size() - 8; ++i) junk[i] ^= 0x5A;
    write_raw(dir / "junk.gz", junk);
    CHECK(contains(error_of<DataError>([&] { read_idx(dir / "junk.gz", 3); }), dir / "junk.gz"));
  }
}

TEST_CASE("idx: random damage never crashes: it loads or throws DataError") {
  TempDir dir("az_images");
  IdxFixture fx;
  write_idx(dir / "ok.gz", {5, 4, 3}, fx.images.data());
  write_idx(dir / "ok", {5, 4, 3}, fx.images.data(), false);
  uint64_t state = 12345;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull, state >> 33; };
  int loaded = 0, rejected = 0;
  for (const std::string name : {"ok.gz", "ok"}) {
    const std::vector<uint8_t> good = read_raw(dir / name);
    for (int trial = 0; trial < 150; ++trial) {
      std::vector<uint8_t> b = good;
      const int kind = int(next() % 3);
      if (kind == 0) b[next() % b.size()] ^= uint8_t(1 + next() % 255);  // flip a byte
      if (kind == 1) b.resize(next() % b.size());                         // truncate
      if (kind == 2) b.push_back(uint8_t(next()));                         // append
      write_raw(dir / "fuzz", b);
      try {
        IdxArray a = read_idx(dir / "fuzz", 3);
        uint64_t n = 1;
        for (uint32_t d : a.dims) n *= d;
        CHECK(a.data.size() == n);  // never half-loaded
        ++loaded;
      } catch (const DataError&) {
        ++rejected;
      }
    }
  }
  CHECK(rejected > 100);
  MESSAGE("fuzzed IDX files: " << loaded << " loaded, " << rejected << " rejected");
}

TEST_CASE("carve_split: seeded, disjoint, complete, order-preserving") {
  Dataset all;
  all.vocab_size = 257;
  all.num_classes = 3;
  all.height = 1;
  for (int i = 0; i < 100; ++i) {
    all.seqs.push_back({i + 1});
    all.labels.push_back(i % 3);
  }
  Dataset a = all, va, b = all, vb, c = all, vc;
  carve_split(a, va, 30, 7);
  carve_split(b, vb, 30, 7);
  carve_split(c, vc, 30, 8);
  CHECK(a.size() == 70);
  CHECK(va.size() == 30);
  CHECK(va.seqs == vb.seqs);  // same seed, same split
  CHECK(va.seqs != vc.seqs);  // another seed, another split
  CHECK(va.vocab_size == 257);
  CHECK(va.num_classes == 3);
  std::set<int> seen;
  for (const Dataset* d : {&a, &va}) {
    for (size_t i = 0; i < d->size(); ++i) {
      seen.insert(d->seqs[i][0]);
      CHECK(d->labels[i] == (d->seqs[i][0] - 1) % 3);
      if (i) CHECK(d->seqs[i][0] > d->seqs[i - 1][0]);
    }
  }
  CHECK(seen.size() == 100);
  CHECK(!error_of<DataError>([&] { carve_split(a, va, 71, 0); }).empty());
}

namespace {

// A w x h image with channels c whose pixel values encode (tag, y, x, ch).
std::vector<uint8_t> pattern(int w, int h, int c, int tag) {
  std::vector<uint8_t> px(size_t(w) * h * c);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) px[(size_t(y) * w + x) * c + k] = uint8_t(tag * 40 + y * 8 + x * 2 + k * 50);
  return px;
}

// root/ant: a.png (grey 8x6), b.BMP (RGB 8x6); root/bee: c.png (RGB), d.jpg
// (grey, lossy), notes.txt and .hidden.png (ignored).
void make_tree(const std::string& root) {
  fs::create_directories(root + "/ant");
  fs::create_directories(root + "/bee");
  write_png(root + "/ant/a.png", pattern(8, 6, 1, 0).data(), 8, 6, 1);
  REQUIRE(stbi_write_bmp((root + "/ant/b.BMP").c_str(), 8, 6, 3, pattern(8, 6, 3, 1).data()));
  write_png(root + "/bee/c.png", pattern(8, 6, 3, 2).data(), 8, 6, 3);
  REQUIRE(stbi_write_jpg((root + "/bee/d.jpg").c_str(), 8, 6, 1, pattern(8, 6, 1, 3).data(), 100));
  std::ofstream(root + "/bee/notes.txt") << "not an image";
  std::ofstream(root + "/bee/.hidden.png") << "not an image either";
}

}  // namespace

TEST_CASE("image folder: PNG, BMP and JPG in a class tree, grey and RGB") {
  TempDir dir("az_images");
  const std::string root = dir / "tree";
  make_tree(root);

  Dataset grey = load_image_classes(root, 1, 0);
  REQUIRE(grey.size() == 4);
  CHECK(grey.class_names == std::vector<std::string>{"ant", "bee"});
  CHECK(grey.labels == std::vector<int32_t>{0, 0, 1, 1});  // a, b | c, d: sorted
  CHECK(grey.height == 6);
  CHECK(grey.width == 8);
  CHECK(grey.channels == 1);
  CHECK(grey.vocab_size == 257);
  CHECK(grey.num_classes == 2);
  const std::vector<uint8_t> a = pattern(8, 6, 1, 0);
  for (size_t p = 0; p < a.size(); ++p) CHECK(grey.seqs[0][p] == a[p] + 1);  // PNG is lossless
  const std::vector<uint8_t> d = pattern(8, 6, 1, 3);
  int worst = 0;
  for (size_t p = 0; p < d.size(); ++p) worst = std::max(worst, std::abs(grey.seqs[3][p] - 1 - d[p]));
  CHECK(worst <= 12);  // JPEG at quality 100 is close

  Dataset rgb = load_image_classes(root, 3, 0);
  REQUIRE(rgb.size() == 4);
  CHECK(rgb.channels == 3);
  REQUIRE(rgb.seqs[0].size() == 8 * 6 * 3);
  for (size_t p = 0; p < a.size(); ++p) {  // grey PNG as RGB: r = g = b
    CHECK(rgb.seqs[0][3 * p] == a[p] + 1);
    CHECK(rgb.seqs[0][3 * p + 2] == a[p] + 1);
  }
  const std::vector<uint8_t> b = pattern(8, 6, 3, 1), c = pattern(8, 6, 3, 2);
  for (size_t p = 0; p < b.size(); ++p) {
    CHECK(rgb.seqs[1][p] == b[p] + 1);  // BMP is lossless
    CHECK(rgb.seqs[2][p] == c[p] + 1);
  }
}

TEST_CASE("image: a BMP whose pixels run past the end of the file is refused") {
  // stb_image fills a truncated BMP's missing rows with zeros, so a 150-byte file
  // announcing 6 x 2.6M pixels decoded (and was resized) for seconds; found by
  // tests/fuzz/fuzz_image.cpp.  The header says how many bytes the rows need.
  TempDir dir("az_images");
  const std::string good = dir / "good.bmp";
  REQUIRE(stbi_write_bmp(good.c_str(), 7, 6, 3, pattern(7, 6, 3, 1).data()));
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int w = 0, h = 0;
  CHECK(read_image(good, 3, &w, &h).size() == 7 * 6 * 3);  // complete: loads
  // the last row's padding missing: still loads (some writers omit it)
  const std::string short_pad = dir / "short_pad.bmp";
  std::ofstream(short_pad, std::ios::binary) << bytes.substr(0, bytes.size() - 3);  // rows: 21 bytes + 3 padding
  CHECK(read_image(short_pad, 3, &w, &h).size() == 7 * 6 * 3);
  // one row short: refused, naming what the header needs
  const std::string cut = dir / "cut.bmp";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 24);
  std::string msg = error_of<DataError>([&] { read_image(cut, 3, &w, &h); });
  CHECK(contains(msg, "cut.bmp: truncated BMP: 7x6 pixels at 24 bits need"));
  CHECK(contains(msg, "expected a complete BMP file"));
  CHECK(msg.find('\n') == std::string::npos);
  // the fuzz input: a tall, narrow image in a tiny file
  std::string tall = bytes.substr(0, 54);
  const int32_t big = 2000000;  // 14M pixels: under the 4096x4096 limit
  std::memcpy(&tall[22], &big, 4);
  const std::string tall_path = dir / "tall.bmp";
  std::ofstream(tall_path, std::ios::binary) << tall + std::string(96, '\x7f');
  CHECK(contains(error_of<DataError>([&] { read_image(tall_path, 1, &w, &h); }), "truncated BMP: 7x2000000 pixels"));
  // stb reads the compression field as a signed int and decodes a negative one
  // as uncompressed rows (the CI fuzz pass's second find): checked the same way
  const uint32_t odd_compression = 0xBA000000u;
  std::memcpy(&tall[30], &odd_compression, 4);
  std::ofstream(tall_path, std::ios::binary) << tall + std::string(96, '\x7f');
  CHECK(contains(error_of<DataError>([&] { read_image(tall_path, 1, &w, &h); }), "truncated BMP: 7x2000000 pixels"));
}

TEST_CASE("image folder: resize to image_size x image_size") {
  TempDir dir("az_images");
  const std::string root = dir / "tree";
  make_tree(root);
  write_png(root + "/ant/z.png", pattern(5, 9, 3, 4).data(), 5, 9, 3);  // another size
  Dataset ds = load_image_classes(root, 3, 4);
  REQUIRE(ds.size() == 5);
  CHECK(ds.height == 4);
  CHECK(ds.width == 4);
  for (const auto& s : ds.seqs) {
    CHECK(s.size() == 4 * 4 * 3);
    for (int32_t t : s) CHECK((t >= 1 && t <= 256));
  }
}

TEST_CASE("image folder: errors name the file or folder and what was expected") {
  TempDir dir("az_images");
  const std::string root = dir / "tree";
  make_tree(root);

  SUBCASE("mismatched sizes name the first differing file and both sizes") {
    write_png(root + "/bee/e.png", pattern(7, 6, 1, 4).data(), 7, 6, 1);
    std::string msg = error_of<DataError>([&] { load_image_classes(root, 1, 0); });
    CHECK(contains(msg, root + "/bee/e.png"));
    CHECK(contains(msg, "size 7x6 differs from 8x6 of " + root + "/ant/a.png"));
  }
  SUBCASE("empty class folder") {
    fs::create_directories(root + "/cow");
    std::ofstream(root + "/cow/readme.md") << "no images here";
    std::string msg = error_of<DataError>([&] { load_image_classes(root, 1, 0); });
    CHECK(contains(msg, root + "/cow"));
    CHECK(contains(msg, "no images"));
  }
  SUBCASE("corrupt image") {
    std::vector<uint8_t> junk(300);
    uint32_t s = 99;
    for (auto& v : junk) v = uint8_t((s = s * 1103515245u + 12345u) >> 16);
    write_raw(root + "/bee/x.png", junk);
    std::string msg = error_of<DataError>([&] { load_image_classes(root, 3, 0); });
    CHECK(contains(msg, root + "/bee/x.png"));
    CHECK(contains(msg, "cannot decode ("));
  }
  SUBCASE("truncated PNG") {
    std::vector<uint8_t> png = read_raw(root + "/bee/c.png");
    png.resize(png.size() / 2);
    write_raw(root + "/bee/c.png", png);
    CHECK(contains(error_of<DataError>([&] { load_image_classes(root, 3, 0); }), root + "/bee/c.png"));
  }
  SUBCASE("missing root") {
    std::string msg = error_of<DataError>([&] { load_image_folder(dir / "nowhere", 1); });
    CHECK(contains(msg, dir / "nowhere"));
    CHECK(contains(msg, "no such directory"));
  }
  SUBCASE("no class folders") {
    fs::create_directories(dir / "flat");
    write_png(dir / "flat/a.png", pattern(4, 4, 1, 0).data(), 4, 4, 1);
    CHECK(contains(error_of<DataError>([&] { load_image_folder(dir / "flat", 1); }), "no class folders"));
  }
  SUBCASE("fewer than 2 classes") {
    fs::remove_all(root + "/bee");
    std::string msg = error_of<DataError>([&] { load_image_folder(root, 1); });
    CHECK(contains(msg, "only 1 class folder (ant)"));
  }
  SUBCASE("bad arguments") {
    CHECK(contains(error_of<DataError>([&] { load_image_folder(root, 2); }), "channels 2, expected 1 or 3"));
    CHECK(contains(error_of<DataError>([&] { load_image_folder(root, 1, 0, 0.6, 0.5); }), "sum below 1"));
  }
  SUBCASE("write_png into a missing folder") {
    std::string msg = error_of<DataError>([&] { write_png(dir / "no/such/dir/a.png", pattern(2, 2, 1, 0).data(), 2, 2, 1); });
    CHECK(contains(msg, dir / "no/such/dir/a.png"));
    CHECK(contains(msg, "write failed"));
  }
}

TEST_CASE("image folder: splits, carved or from train/ val/ test/ folders") {
  TempDir dir("az_images");
  SUBCASE("one class tree, fractions carved by a seeded shuffle") {
    const std::string root = dir / "tree";
    for (const char* cls : {"a", "b"}) {
      fs::create_directories(root + "/" + cls);
      for (int i = 0; i < 5; ++i)
        write_png(root + "/" + cls + "/" + std::to_string(i) + ".png", pattern(4, 4, 1, i).data(), 4, 4, 1);
    }
    Splits s = load_image_folder(root, 1, 0, 0.2, 0.3, 5);
    CHECK(s.train.size() == 5);
    CHECK(s.val.size() == 2);
    CHECK(s.test.size() == 3);
    CHECK(s.test.class_names == std::vector<std::string>{"a", "b"});
    Splits again = load_image_folder(root, 1, 0, 0.2, 0.3, 5);
    CHECK(again.test.seqs == s.test.seqs);
  }
  SUBCASE("train/ and test/ folders; val carved from train") {
    for (const char* split : {"train", "test"})
      for (const char* cls : {"a", "b"}) {
        const std::string cdir = dir.path + "/" + split + "/" + cls;
        fs::create_directories(cdir);
        for (int i = 0; i < 5; ++i)
          write_png(cdir + "/" + std::to_string(i) + ".png", pattern(4, 4, 1, i).data(), 4, 4, 1);
      }
    Splits s = load_image_folder(dir.path, 1, 0, 0.2, 0.3, 5);
    CHECK(s.train.size() == 8);
    CHECK(s.val.size() == 2);
    CHECK(s.test.size() == 10);
    SUBCASE("a test class unknown to train is an error") {
      fs::create_directories(dir / "test/c");
      write_png(dir / "test/c/0.png", pattern(4, 4, 1, 0).data(), 4, 4, 1);
      CHECK(contains(error_of<DataError>([&] { load_image_folder(dir.path, 1); }), "test/c: class not among"));
    }
    SUBCASE("sizes must agree across splits") {
      write_png(dir / "test/b/9.png", pattern(5, 4, 1, 0).data(), 5, 4, 1);
      CHECK(contains(error_of<DataError>([&] { load_image_folder(dir.path, 1); }), "test/b/9.png: size 5x4 differs"));
    }
  }
}

TEST_CASE("fashion-mnist: the installed dataset loads (skipped when absent)") {
  if (!fs::exists(std::string(kFashionMnistDir) + "/train-images-idx3-ubyte.gz")) {
    MESSAGE("Fashion-MNIST not installed at " << kFashionMnistDir << ": skipped");
    return;
  }
  auto t0 = std::chrono::steady_clock::now();
  Splits s = load_fashion_mnist();
  double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("Fashion-MNIST loaded in " << sec << " s");
  CHECK(s.train.size() == 55000);
  CHECK(s.val.size() == 5000);
  CHECK(s.train.size() + s.val.size() == 60000);
  CHECK(s.test.size() == 10000);
  CHECK(s.test.labels[0] == 9);  // the first t10k image is an ankle boot
  CHECK(s.train.class_names.size() == 10);
  CHECK(s.val.class_names == fashion_mnist_class_names());
  for (const Dataset* d : {&s.train, &s.val, &s.test}) {
    CHECK(d->height == 28);
    CHECK(d->width == 28);
    CHECK(d->channels == 1);
    CHECK(d->vocab_size == 257);
    std::vector<int> count(10, 0);
    bool tokens_ok = true;
    for (size_t i = 0; i < d->size(); ++i) {
      REQUIRE((d->labels[i] >= 0 && d->labels[i] < 10));
      ++count[size_t(d->labels[i])];
      if (d->seqs[i].size() != 784) tokens_ok = false;
      for (int32_t t : d->seqs[i]) tokens_ok = tokens_ok && t >= 1 && t <= 256;
    }
    CHECK(tokens_ok);
    for (int c : count) CHECK(c > 0);
  }
  CHECK(contains(error_of<DataError>([&] { load_fashion_mnist("/nonexistent-dir"); }), "/nonexistent-dir/train-images-idx3-ubyte.gz: not found"));
}

TEST_CASE("image folder: a split holding only some classes is labelled by the training classes") {
  // train/ has a and b; val/ holds only a, test/ only b: test's label must be b's
  // index among the training classes (1), not its index in test/'s own folders (0).
  TempDir dir("az_images");
  for (const char* cdir : {"train/a", "train/b", "val/a", "test/b"}) {
    fs::create_directories(dir / cdir);
    for (int i = 0; i < 3; ++i)
      write_png(dir / (std::string(cdir) + "/" + std::to_string(i) + ".png"), pattern(4, 4, 1, i).data(), 4, 4, 1);
  }
  Splits s = load_image_folder(dir.path, 1);
  CHECK(s.train.labels == std::vector<int32_t>{0, 0, 0, 1, 1, 1});
  CHECK(s.val.labels == std::vector<int32_t>{0, 0, 0});
  CHECK(s.test.labels == std::vector<int32_t>{1, 1, 1});
  for (const Dataset* d : {&s.train, &s.val, &s.test}) {
    CHECK(d->class_names == std::vector<std::string>{"a", "b"});
    CHECK(d->num_classes == 2);
  }
}

// ---- IDX bytes worked out by hand ---------------------------------------------------
// The cases above read back what write_idx wrote; these state the format's bytes and the
// reader's arithmetic on files built byte by byte.

TEST_CASE("idx: a 2-image 2x2 file written byte by byte reads as these pixels; dimension bytes are big-endian") {
  // Guards read_be32: every byte of a dimension at its own weight (a shift of 8 for byte 1
  // instead of 16 misreads any dimension of 65536 or more).
  TempDir dir("az_images");
  // magic 00 00 08 03, dims 2, 2, 2, then image 0 = {10, 20, 30, 40}, image 1 = {0, 255, 1, 254}
  write_raw(dir / "two", {0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 10, 20, 30, 40, 0, 255, 1, 254});
  IdxArray a = read_idx(dir / "two", 3);
  CHECK(a.dims == std::vector<uint32_t>{2, 2, 2});
  CHECK(a.data == std::vector<uint8_t>{10, 20, 30, 40, 0, 255, 1, 254});
  // Dimension bytes 00 01 02 03 = 65536 + 2 * 256 + 3 = 66051, with no data after the header:
  // the data end at byte 8 of the 8 + 66051 = 66059 announced.
  write_raw(dir / "dim", {0, 0, 8, 1, 0x00, 0x01, 0x02, 0x03});
  CHECK(contains(error_of<DataError>([&] { read_idx(dir / "dim", 1); }),
                 "data ends at byte 8, expected 66059 bytes (header 8 + 66051 ubyte)"));
  // 01 02 03 04 = 16777216 + 2 * 65536 + 3 * 256 + 4 = 16909060.
  write_raw(dir / "dim4", {0, 0, 8, 1, 0x01, 0x02, 0x03, 0x04});
  CHECK(contains(error_of<DataError>([&] { read_idx(dir / "dim4", 1); }),
                 "expected 16909068 bytes (header 8 + 16909060 ubyte)"));
}

TEST_CASE("idx: the magic's two leading bytes must be zero") {
  // Guards the magic check: compared on its low 16 bits only, a file starting AB CD 08 01
  // (say, some other format) would be read as a rank-1 ubyte IDX.
  TempDir dir("az_images");
  write_raw(dir / "ab", {0xAB, 0xCD, 8, 1, 0, 0, 0, 1, 7});
  CHECK(contains(error_of<DataError>([&] { read_idx(dir / "ab", 1); }),
                 "bad magic 0xABCD0801 at byte 0, expected 0x00000801 (ubyte, rank 1)"));
  write_raw(dir / "one", {0x00, 0x01, 8, 1, 0, 0, 0, 1, 7});
  CHECK(contains(error_of<DataError>([&] { read_idx(dir / "one", 1); }), "bad magic 0x00010801 at byte 0"));
}

TEST_CASE("idx: exactly 2^40 bytes is within the size limit; one row more is over it") {
  // Guards the limit's boundary: 1048576 x 1048576 = 2^40 bytes is allowed (the file is then
  // short: the data end at byte 12 of 12 + 2^40 = 1099511627788), 1048576 x 1048577 is not.
  TempDir dir("az_images");
  write_raw(dir / "at", idx_header({1048576, 1048576}));
  CHECK(contains(error_of<DataError>([&] { read_idx(dir / "at", 2); }),
                 "data ends at byte 12, expected 1099511627788 bytes (header 12 + 1048576x1048576 ubyte)"));
  write_raw(dir / "over", idx_header({1048576, 1048577}));
  CHECK(contains(error_of<DataError>([&] { read_idx(dir / "over", 2); }),
                 "dimensions 1048576x1048577 at byte 8 announce over 2^40 bytes"));
}

TEST_CASE("idx: an array past 1 MiB and 16 MiB is written and read at the right offsets") {
  // Guards the chunk loops: write_idx writes 1 MiB chunks, GzReader::read reads 1 MiB chunks,
  // read_idx grows its buffer in 16 MiB steps; a chunk written or read at the start instead of
  // at its offset leaves the first MiB repeated, or zeros, past the first chunk.
  // Byte i is i mod 251 (251 is prime, so no chunk repeats the first):
  //   2^20 = 4177 * 251 + 149, so byte 1048576 is 149;
  //   2^24 = 16 * 2^20, 16 * 149 = 2384 = 9 * 251 + 125, so byte 16777216 is 125.
  TempDir dir("az_images");
  const size_t n = (size_t(1) << 24) + 3;
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(i % 251);
  for (bool gzip : {false, true}) {
    CAPTURE(gzip);
    const std::string path = dir / (gzip ? "big.gz" : "big");
    write_idx(path, {uint32_t(n)}, v.data(), gzip);
    if (!gzip) {
      std::vector<uint8_t> raw = read_raw(path);
      REQUIRE(raw.size() == 8 + n);
      // header 00 00 08 01, then 16777219 = 0x01000003 big-endian
      CHECK(std::vector<uint8_t>(raw.begin(), raw.begin() + 8) == std::vector<uint8_t>{0, 0, 8, 1, 0x01, 0x00, 0x00, 0x03});
      CHECK(raw[8 + 0] == 0);
      CHECK(raw[8 + 1048575] == 148);
      CHECK(raw[8 + 1048576] == 149);
      CHECK(raw[8 + 16777216] == 125);
      CHECK(raw[8 + 16777218] == 127);
    }
    IdxArray a = read_idx(path, 1);
    CHECK(a.dims == std::vector<uint32_t>{16777219});
    REQUIRE(a.data.size() == n);
    CHECK(a.data[0] == 0);
    CHECK(a.data[2] == 2);
    CHECK(a.data[1048575] == 148);
    CHECK(a.data[1048576] == 149);
    CHECK(a.data[16777216] == 125);
    CHECK(a.data[16777218] == 127);
    CHECK(a.data == v);
  }
}

TEST_CASE("idx: a gzip file whose 8-byte trailer is cut short is a damaged stream, after all its data") {
  // Guards the end-of-stream check: the deflate data hold all 24 bytes of a valid {2,2,2}
  // file, so every read of the header and pixels succeeds; only the trailer (CRC-32 and
  // length) is missing.  Unchecked, the file would load as if intact.
  TempDir dir("az_images");
  write_idx(dir / "ok.gz", {2, 2, 2}, std::vector<uint8_t>{10, 20, 30, 40, 0, 255, 1, 254}.data());
  std::vector<uint8_t> raw = read_raw(dir / "ok.gz");
  REQUIRE(raw.size() > 18);
  raw.resize(raw.size() - 4);  // the length (ISIZE) gone, the CRC kept
  write_raw(dir / "cut.gz", raw);
  std::string msg = error_of<DataError>([&] { read_idx(dir / "cut.gz", 3); });
  CHECK(contains(msg, "idx: " + dir / "cut.gz" + ": gzip stream damaged after byte 24"));
  CHECK(contains(msg, "expected an intact stream"));
}

TEST_CASE("idx: rank 4 (N x H x W x C) is read; rank 5 is refused") {
  // Guards the documented rank range 1..4.
  TempDir dir("az_images");
  // magic 00 00 08 04, dims 1, 2, 1, 3, then 6 pixels
  write_raw(dir / "r4", {0, 0, 8, 4, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6});
  IdxArray a = read_idx(dir / "r4", 4);
  CHECK(a.dims == std::vector<uint32_t>{1, 2, 1, 3});
  CHECK(a.data == std::vector<uint8_t>{1, 2, 3, 4, 5, 6});
  CHECK(contains(error_of<DataError>([&] { read_idx(dir / "r4", 5); }), "asked for rank 5, expected 1..4"));
}
