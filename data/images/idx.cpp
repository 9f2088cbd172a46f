// IDX reading and writing through zlib, and the Fashion-MNIST splits.
#include "data/images/idx.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "data/images/image_folder.h"  // carve_split

namespace az {
namespace {

// Owns a gzFile; gzopen reads plain files too (transparent mode).
struct GzReader {
  gzFile f = nullptr;
  std::string path;
  uint64_t offset = 0;  // uncompressed bytes consumed so far

  explicit GzReader(const std::string& p) : path(p) {
    errno = 0;
    f = gzopen(p.c_str(), "rb");
    if (!f) {
      throw DataError("idx: " + p + ": cannot open (" +
                      (errno ? std::strerror(errno) : "out of memory") + ")");
    }
    gzbuffer(f, 1 << 17);
  }
  ~GzReader() {
    if (f) gzclose(f);
  }
  GzReader(const GzReader&) = delete;
  GzReader& operator=(const GzReader&) = delete;

  // Reads up to n bytes into dst; returns how many (fewer only at the end).
  // A damaged gzip stream is an error, never a silent short read.
  size_t read(uint8_t* dst, size_t n) {
    size_t got = 0;
    while (got < n) {
      unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - got, 1u << 20));
      int r = gzread(f, dst + got, chunk);
      if (r < 0) fail_stream();
      if (r == 0) break;
      got += static_cast<size_t>(r);
      offset += static_cast<size_t>(r);
    }
    if (got < n) check_clean_end();
    return got;
  }

  void check_clean_end() {
    int err = Z_OK;
    gzerror(f, &err);
    if (err != Z_OK && err != Z_STREAM_END) fail_stream();
  }

  [[noreturn]] void fail_stream() {
    int err = Z_OK;
    std::string msg = gzerror(f, &err);
    if (msg.compare(0, path.size() + 2, path + ": ") == 0) msg.erase(0, path.size() + 2);
    std::ostringstream os;
    os << "idx: " << path << ": gzip stream damaged after byte " << offset << " ("
       << (msg.empty() ? "unknown zlib error" : msg) << "), expected an intact stream";
    throw DataError(os.str());
  }
};

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

std::string dims_string(const std::vector<uint32_t>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

uint32_t read_be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

}  // namespace

IdxArray read_idx(const std::string& path, int expected_rank) {
  if (expected_rank < 1 || expected_rank > 4) {
    throw DataError("idx: " + path + ": asked for rank " + std::to_string(expected_rank) +
                    ", expected 1..4");
  }
  GzReader in(path);
  const uint32_t want_magic = 0x00000800u | uint32_t(expected_rank);
  uint8_t head[4];
  size_t got = in.read(head, 4);
  if (got < 4) {
    throw DataError("idx: " + path + ": file ends at byte " + std::to_string(got) +
                    ", expected a 4-byte magic " + hex32(want_magic) + " (ubyte, rank " +
                    std::to_string(expected_rank) + ")");
  }
  uint32_t magic = read_be32(head);
  if (magic != want_magic) {
    throw DataError("idx: " + path + ": bad magic " + hex32(magic) + " at byte 0, expected " +
                    hex32(want_magic) + " (ubyte, rank " + std::to_string(expected_rank) + ")");
  }

  IdxArray out;
  uint64_t total = 1;
  for (int d = 0; d < expected_rank; ++d) {
    uint8_t b[4];
    uint64_t at = in.offset;
    if (in.read(b, 4) < 4) {
      throw DataError("idx: " + path + ": header ends at byte " + std::to_string(in.offset) +
                      ", expected " + std::to_string(4 + 4 * expected_rank) +
                      " header bytes (magic + " + std::to_string(expected_rank) + " dimensions)");
    }
    uint32_t v = read_be32(b);
    if (v == 0) {
      throw DataError("idx: " + path + ": dimension " + std::to_string(d) + " is 0 at byte " +
                      std::to_string(at) + ", expected a positive size");
    }
    out.dims.push_back(v);
    const uint64_t limit = uint64_t(1) << 40;  // checked before multiplying: no overflow
    if (v > limit / total) {
      throw DataError("idx: " + path + ": dimensions " + dims_string(out.dims) + " at byte " +
                      std::to_string(at) + " announce over 2^40 bytes, expected a sane size");
    }
    total *= v;
  }

  // Grow as data arrives, so a header announcing a huge array on a short
  // file fails as "truncated" instead of allocating the announced size.
  const uint64_t header = in.offset;
  const size_t step = 1u << 24;
  while (out.data.size() < total) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(step, total - out.data.size()));
    size_t old = out.data.size();
    out.data.resize(old + want);
    size_t r = in.read(out.data.data() + old, want);
    if (r < want) {
      std::ostringstream os;
      os << "idx: " << path << ": data ends at byte " << in.offset << ", expected "
         << header + total << " bytes (header " << header << " + " << dims_string(out.dims)
         << " ubyte)";
      throw DataError(os.str());
    }
  }
  uint8_t extra[4096];
  uint64_t trailing = 0;
  for (size_t r; (r = in.read(extra, sizeof extra)) > 0;) trailing += r;
  if (trailing) {
    std::ostringstream os;
    os << "idx: " << path << ": " << trailing << " unexpected trailing bytes after byte "
       << header + total << ", expected the file to end with the " << dims_string(out.dims)
       << " ubyte data";
    throw DataError(os.str());
  }
  return out;
}

void write_idx(const std::string& path, const std::vector<uint32_t>& dims, const uint8_t* data,
               bool gzip) {
  if (dims.empty() || dims.size() > 4) {
    throw DataError("idx: " + path + ": cannot write rank " + std::to_string(dims.size()) +
                    ", expected 1..4");
  }
  std::vector<uint8_t> header = {0, 0, 0x08, uint8_t(dims.size())};
  uint64_t total = 1;
  for (uint32_t d : dims) {
    for (int s = 24; s >= 0; s -= 8) header.push_back(uint8_t(d >> s));
    total *= d;
  }
  errno = 0;
  gzFile f = gzopen(path.c_str(), gzip ? "wb6" : "wbT");  // T: plain, no compression
  if (!f) {
    throw DataError("idx: " + path + ": cannot open for writing (" +
                    (errno ? std::strerror(errno) : "out of memory") + ")");
  }
  bool ok = gzwrite(f, header.data(), unsigned(header.size())) == int(header.size());
  for (uint64_t done = 0; ok && done < total;) {
    unsigned chunk = unsigned(std::min<uint64_t>(total - done, 1u << 20));
    ok = gzwrite(f, data + done, chunk) == int(chunk);
    done += chunk;
  }
  if (gzclose(f) != Z_OK) ok = false;
  if (!ok) throw DataError("idx: " + path + ": write failed (disk full or unwritable?)");
}

Dataset load_idx_pair(const std::string& images_path, const std::string& labels_path,
                      int num_classes) {
  IdxArray images = read_idx(images_path, 3);
  IdxArray labels = read_idx(labels_path, 1);
  const uint32_t n = images.dims[0], h = images.dims[1], w = images.dims[2];
  if (labels.dims[0] != n) {
    throw DataError("idx: " + labels_path + ": count " + std::to_string(labels.dims[0]) +
                    " at byte 4 does not match, expected " + std::to_string(n) +
                    " labels, one per image in " + images_path);
  }
  Dataset ds;
  ds.vocab_size = 257;
  ds.num_classes = num_classes;
  ds.height = int(h);
  ds.width = int(w);
  ds.channels = 1;
  ds.labels.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    int y = labels.data[i];
    if (y >= num_classes) {
      throw DataError("idx: " + labels_path + ": label " + std::to_string(y) + " at byte " +
                      std::to_string(8 + uint64_t(i)) + " out of range, expected 0.." +
                      std::to_string(num_classes - 1));
    }
    ds.labels[i] = y;
  }
  const size_t pixels = size_t(h) * w;
  ds.seqs.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t* src = images.data.data() + size_t(i) * pixels;
    std::vector<int32_t>& seq = ds.seqs[i];
    seq.resize(pixels);
    for (size_t p = 0; p < pixels; ++p) seq[p] = int32_t(src[p]) + 1;  // 0 is padding
  }
  return ds;
}

const std::vector<std::string>& fashion_mnist_class_names() {
  static const std::vector<std::string> names = {"T-shirt/top", "Trouser", "Pullover", "Dress",
                                                 "Coat",        "Sandal",  "Shirt",    "Sneaker",
                                                 "Bag",         "Ankle boot"};
  return names;
}

namespace {
// dir/name.gz, or dir/name when only the un-gzip'd file exists.
std::string pick_file(const std::string& dir, const std::string& name) {
  std::string gz = dir + "/" + name + ".gz";
  if (std::FILE* f = std::fopen(gz.c_str(), "rb")) {
    std::fclose(f);
    return gz;
  }
  std::string plain = dir + "/" + name;
  if (std::FILE* f = std::fopen(plain.c_str(), "rb")) {
    std::fclose(f);
    return plain;
  }
  throw DataError("fashion-mnist: " + gz + ": not found (nor " + name +
                  "), expected the Debian package dataset-fashion-mnist or the four IDX files");
}
}  // namespace

Splits load_fashion_mnist(const std::string& dir, int n_val, uint64_t seed) {
  // One statement per file, so the first missing one is the one reported.
  const std::string train_images = pick_file(dir, "train-images-idx3-ubyte");
  const std::string train_labels = pick_file(dir, "train-labels-idx1-ubyte");
  const std::string test_images = pick_file(dir, "t10k-images-idx3-ubyte");
  const std::string test_labels = pick_file(dir, "t10k-labels-idx1-ubyte");
  Splits s;
  s.train = load_idx_pair(train_images, train_labels, 10);
  s.test = load_idx_pair(test_images, test_labels, 10);
  if (n_val < 0 || size_t(n_val) >= s.train.size()) {
    throw DataError("fashion-mnist: n_val " + std::to_string(n_val) + " out of range, expected 0.." +
                    std::to_string(s.train.size() - 1));
  }
  s.train.class_names = s.test.class_names = fashion_mnist_class_names();
  carve_split(s.train, s.val, size_t(n_val), seed);
  return s;
}

}  // namespace az
