// Image folders through stb_image (decode), stb_image_resize and
// stb_image_write.  The stb implementations come from Debian's libstb (-lstb).
#include "data/images/image_folder.h"
#include "data/pathfinder/lra_pathfinder_layout.h"  // refuse_lra_pathfinder_as_image_folder

#include <stb_image.h>
#include <stb_image_resize.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace az {
namespace fs = std::filesystem;

namespace {

// The most pixels a decoded image may have (4096 x 4096): a tiny file can announce far more.
constexpr int64_t kMaxPixels = int64_t(4096) * 4096;

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The size every image must share when no resize is asked for, and the file
// that fixed it (named in the mismatch error).
struct SizeRef {
  int w = 0, h = 0;
  std::string path;
};

bool has_image_extension(const std::string& name) {
  size_t dot = name.rfind('.');
  if (dot == std::string::npos) return false;
  std::string ext = name.substr(dot + 1);
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext == "png" || ext == "jpg" || ext == "jpeg" || ext == "bmp";
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// Sorted names of the entries of dir that are directories (want_dirs) or
// image files (!want_dirs); names starting with '.' are skipped.
std::vector<std::string> list_entries(const fs::path& dir, bool want_dirs, const char* who) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) throw DataError(std::string(who) + ": " + dir.string() + ": cannot list (" + ec.message() + ")");
  for (; it != end; it.increment(ec)) {
    if (ec) throw DataError(std::string(who) + ": " + dir.string() + ": cannot list (" + ec.message() + ")");
    std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code ec2;
    if (want_dirs) {
      if (it->is_directory(ec2)) names.push_back(name);
    } else if (has_image_extension(name) && it->is_regular_file(ec2)) {  // a FIFO would block
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Dataset load_classes_impl(const std::string& dir, int channels, int image_size,
                          const std::vector<std::string>* class_names, SizeRef& ref) {
  const char* who = "image-folder";
  if (channels != 1 && channels != 3) {
    throw DataError(std::string(who) + ": channels " + std::to_string(channels) + ", expected 1 or 3");
  }
  if (image_size < 0 || image_size > 4096) {
    throw DataError(std::string(who) + ": image_size " + std::to_string(image_size) +
                    ", expected 0 (keep) or 1..4096");
  }
  if (!is_dir(dir)) throw DataError(std::string(who) + ": " + dir + ": no such directory, expected root/<class>/<images>");
  std::vector<std::string> classes = list_entries(dir, true, who);
  refuse_lra_pathfinder_as_image_folder(dir, classes);  // its folders would be batch numbers, not labels
  if (classes.empty()) {
    throw DataError(std::string(who) + ": " + dir + ": no class folders, expected " + dir +
                    "/<class>/<image>.png|jpg|jpeg|bmp");
  }
  Dataset ds;
  if (class_names) {
    ds.class_names = *class_names;
  } else {
    if (classes.size() < 2) {
      throw DataError(std::string(who) + ": " + dir + ": only 1 class folder (" + classes[0] +
                      "), expected at least 2");
    }
    ds.class_names = classes;
  }
  ds.num_classes = int(ds.class_names.size());
  ds.vocab_size = 257;
  ds.channels = channels;

  for (const std::string& cls : classes) {
    auto pos = std::find(ds.class_names.begin(), ds.class_names.end(), cls);
    const std::string cdir = dir + "/" + cls;
    if (pos == ds.class_names.end()) {
      throw DataError(std::string(who) + ": " + cdir + ": class not among the training classes, expected one of the train/ folders");
    }
    const int label = int(pos - ds.class_names.begin());
    std::vector<std::string> files = list_entries(cdir, false, who);
    if (files.empty()) {
      throw DataError(std::string(who) + ": " + cdir + ": no images, expected at least one .png .jpg .jpeg or .bmp per class");
    }
    for (const std::string& f : files) {
      const std::string path = cdir + "/" + f;
      int w = 0, h = 0;
      std::vector<uint8_t> px = read_image(path, channels, &w, &h);
      if (image_size > 0) {
        if (w != image_size || h != image_size) px = resize_image(px, w, h, channels, image_size, path);
        w = h = image_size;
      } else if (ref.path.empty()) {
        ref = SizeRef{w, h, path};
      } else if (w != ref.w || h != ref.h) {
        throw DataError(std::string(who) + ": " + path + ": size " + std::to_string(w) + "x" +
                        std::to_string(h) + " differs from " + std::to_string(ref.w) + "x" +
                        std::to_string(ref.h) + " of " + ref.path +
                        ", expected one size (or pass an image size to resize)");
      }
      ds.width = w;
      ds.height = h;
      std::vector<int32_t> seq(px.size());
      for (size_t i = 0; i < px.size(); ++i) seq[i] = int32_t(px[i]) + 1;  // 0 is padding
      ds.seqs.push_back(std::move(seq));
      ds.labels.push_back(label);
    }
  }
  return ds;
}

// stb_image fills the rows missing from a truncated BMP with zeros, so a
// 150-byte file announcing 7 x 2.6M pixels decodes (and resizes) for seconds.
// For the layouts stb reads as rows -- every compression field but RLE (1, 2)
// and 4 and above, which it refuses; read as a signed int, so a "negative"
// field is decoded as uncompressed -- the header says how many bytes the rows
// take; refuse a file shorter than that (the last row's padding may be missing).
// Found by tests/fuzz/fuzz_image.cpp.
void bmp_complete_or_throw(const std::vector<uint8_t>& b, const std::string& path) {
  auto u16 = [&](size_t i) { return uint32_t(b[i]) | uint32_t(b[i + 1]) << 8; };
  auto u32 = [&](size_t i) { return u16(i) | u16(i + 2) << 16; };
  if (b.size() < 26) return;  // stb refuses it
  uint32_t offset = u32(10), hsize = u32(14);
  int64_t w = 0, h = 0, bpp = 0;
  int32_t compression = 0;
  if (hsize == 12) {  // OS/2 core header: 16-bit sizes
    w = u16(18), h = u16(20), bpp = u16(24);
  } else if (hsize >= 40 && b.size() >= 34) {
    w = int32_t(u32(18)), h = int32_t(u32(22)), bpp = u16(28), compression = int32_t(u32(30));
  } else {
    return;
  }
  if (compression == 1 || compression == 2 || compression >= 4) return;  // stb refuses these
  if (w <= 0 || h == 0 || bpp <= 0 || bpp > 32) return;  // stb refuses these
  h = std::llabs(h);                    // negative: rows stored top-down
  if (w * h > kMaxPixels) return;  // refused by size before or by stb after; no overflow below
  const int64_t row = (w * bpp + 31) / 32 * 4, last = (w * bpp + 7) / 8;
  const int64_t need = int64_t(std::max<uint32_t>(offset, 14 + hsize)) + row * (h - 1) + last;
  if (int64_t(b.size()) < need) {
    throw DataError("image: " + path + ": truncated BMP: " + std::to_string(w) + "x" + std::to_string(h) +
                    " pixels at " + std::to_string(bpp) + " bits need " + std::to_string(need) + " bytes, the file has " +
                    std::to_string(b.size()) + ", expected a complete BMP file");
  }
}

// Debian's stb_image (2.27) trusts the code counts of a JPEG Huffman table:
// counts summing past 256 overflow its tables (a heap write; upstream checks
// since 2.28).  Walk the marker segments as stb does -- lengths skip segment
// bodies, entropy-coded data is scanned for the next marker -- and refuse such
// a table before stb sees it.  Found by tests/fuzz/fuzz_image.cpp.
bool jpeg_huffman_tables_ok(const std::vector<uint8_t>& b) {
  const size_t n = b.size();
  size_t i = 2;
  while (i + 1 < n) {
    uint8_t m = b[i + 1];
    if (b[i] != 0xFF || m == 0xFF) {  // scan data, or a fill byte
      ++i;
      continue;
    }
    if (m == 0x00 || m == 0x01 || m == 0xD8 || (m >= 0xD0 && m <= 0xD7)) {  // no length
      i += 2;
      continue;
    }
    if (m == 0xD9 || i + 3 >= n) return true;  // end of image
    const size_t len = (size_t(b[i + 2]) << 8) | b[i + 3];
    if (m == 0xC4) {  // DHT: tables of 1 + 16 counts + sum(counts) values, read as stb does
      long left = long(len) - 2;
      for (size_t p = i + 4; left > 0;) {
        long sum = 0;
        for (size_t k = p + 1; k <= p + 16; ++k) sum += k < n ? b[k] : 0;
        if (sum > 256) return false;
        p += 17 + size_t(sum);
        left -= 17 + sum;
      }
    }
    i += 2 + len;
  }
  return true;
}

size_t fraction_count(double fraction, size_t n) {
  return static_cast<size_t>(fraction * double(n));
}

}  // namespace

void carve_split(Dataset& from, Dataset& to, size_t n, uint64_t seed) {
  const size_t total = from.size();
  if (n > total) {
    throw DataError("split: asked to carve " + std::to_string(n) + " examples out of " +
                    std::to_string(total) + ", expected at most that many");
  }
  // Fisher-Yates with splitmix64; the first n of the permutation move.
  std::vector<size_t> perm(total);
  for (size_t i = 0; i < total; ++i) perm[i] = i;
  uint64_t state = seed ^ 0x5EED5EED5EED5EEDull;
  for (size_t i = total; i > 1; --i) {
    size_t j = size_t(splitmix64(state) % i);
    std::swap(perm[i - 1], perm[j]);
  }
  std::vector<char> take(total, 0);
  for (size_t i = 0; i < n; ++i) take[perm[i]] = 1;

  Dataset keep;
  for (Dataset* d : {&keep, &to}) {
    d->seqs.clear();
    d->labels.clear();
    d->seqs2.clear();
    d->targets.clear();
    d->vocab_size = from.vocab_size;
    d->num_classes = from.num_classes;
    d->class_names = from.class_names;
    d->height = from.height;
    d->width = from.width;
    d->channels = from.channels;
  }
  for (size_t i = 0; i < total; ++i) {
    Dataset& d = take[i] ? to : keep;
    d.seqs.push_back(std::move(from.seqs[i]));
    d.labels.push_back(from.labels[i]);
    if (!from.seqs2.empty()) d.seqs2.push_back(std::move(from.seqs2[i]));    // pair tasks
    if (!from.targets.empty()) d.targets.push_back(std::move(from.targets[i]));  // per-position tasks
  }
  from = std::move(keep);
}

std::vector<uint8_t> resize_image(const std::vector<uint8_t>& px, int w, int h, int channels, int side,
                                  const std::string& path) {
  std::vector<uint8_t> out(size_t(side) * side * channels);
  if (!stbir_resize_uint8(px.data(), w, h, 0, out.data(), side, side, 0, channels))
    throw DataError("image: " + path + ": resize from " + std::to_string(w) + "x" + std::to_string(h) +
                    " failed, expected stb_image_resize to succeed");
  return out;
}

std::vector<uint8_t> read_image(const std::string& path, int channels, int* width, int* height) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("image: " + path + ": cannot open, expected a readable image file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw DataError("image: " + path + ": read error, expected a readable image file");
  if (bytes.empty() || bytes.size() > size_t(INT_MAX)) {
    throw DataError("image: " + path + ": " + std::to_string(bytes.size()) +
                    " bytes, expected a non-empty image under 2 GB");
  }
  // Only the documented formats: stb would also decode GIF, PSD, HDR, PIC, PNM and
  // TGA whatever the file is called, and those decoders are its least tested.
  const bool png = bytes.size() >= 8 && std::memcmp(bytes.data(), "\x89PNG\r\n\x1a\n", 8) == 0;
  const bool jpeg = bytes.size() >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8;
  const bool bmp = bytes.size() >= 2 && bytes[0] == 'B' && bytes[1] == 'M';
  if (!png && !jpeg && !bmp) {
    throw DataError("image: " + path + ": cannot decode (no PNG, JPEG or BMP signature), expected a PNG, JPEG or BMP image");
  }
  if (jpeg && !jpeg_huffman_tables_ok(bytes)) {
    throw DataError("image: " + path + ": cannot decode (corrupt JPEG Huffman table), expected a PNG, JPEG or BMP image");
  }
  int w = 0, h = 0, file_channels = 0;
  // The header says how large the decoded image is: a 100-byte file may announce
  // a billion pixels, which stb would allocate.  Refuse that first.
  // (stb_image 2.27 reports a top-down BMP's height as negative here.)
  auto too_large = [&](int64_t pw, int64_t ph) {
    return std::llabs(pw) * std::llabs(ph) > kMaxPixels;
  };
  if (stbi_info_from_memory(bytes.data(), int(bytes.size()), &w, &h, &file_channels) && too_large(w, h)) {
    throw DataError("image: " + path + ": " + std::to_string(w) + "x" + std::to_string(std::llabs(h)) +
                    " pixels, expected at most 4096x4096");
  }
  if (bmp) bmp_complete_or_throw(bytes, path);
  stbi_uc* px = stbi_load_from_memory(bytes.data(), int(bytes.size()), &w, &h, &file_channels, channels);
  if (px && too_large(w, h)) {  // in case info and load ever disagree again
    stbi_image_free(px);
    throw DataError("image: " + path + ": " + std::to_string(w) + "x" + std::to_string(h) +
                    " pixels, expected at most 4096x4096");
  }
  if (!px) {
    const char* why = stbi_failure_reason();
    throw DataError("image: " + path + ": cannot decode (" + (why ? why : "unknown") +
                    "), expected a PNG, JPEG or BMP image");
  }
  if (w <= 0 || h <= 0) {  // stb "decodes" a BMP of height 0 (found by fuzz_image)
    stbi_image_free(px);
    throw DataError("image: " + path + ": cannot decode (" + std::to_string(w) + "x" + std::to_string(h) +
                    " pixels), expected a PNG, JPEG or BMP image of at least 1x1");
  }
  std::vector<uint8_t> out(px, px + size_t(w) * h * channels);
  stbi_image_free(px);
  *width = w;
  *height = h;
  return out;
}

Dataset load_image_classes(const std::string& dir, int channels, int image_size,
                           const std::vector<std::string>* class_names) {
  SizeRef ref;
  return load_classes_impl(dir, channels, image_size, class_names, ref);
}

Splits load_image_folder(const std::string& root, int channels, int image_size, double val_fraction,
                         double test_fraction, uint64_t seed) {
  if (!(val_fraction >= 0 && test_fraction >= 0 && val_fraction + test_fraction < 1)) {
    throw DataError("image-folder: val fraction " + std::to_string(val_fraction) + " and test fraction " +
                    std::to_string(test_fraction) + ", expected both >= 0 with a sum below 1");
  }
  if (!is_dir(root)) throw DataError("image-folder: " + root + ": no such directory, expected root/<class>/<images>");
  Splits s;
  SizeRef ref;
  if (!is_dir(root + "/train")) {
    Dataset all = load_classes_impl(root, channels, image_size, nullptr, ref);
    const size_t n = all.size();
    s.train = std::move(all);
    carve_split(s.train, s.test, fraction_count(test_fraction, n), seed);
    carve_split(s.train, s.val, fraction_count(val_fraction, n), seed + 1);
    return s;
  }
  s.train = load_classes_impl(root + "/train", channels, image_size, nullptr, ref);
  const size_t n = s.train.size();
  const bool has_val = is_dir(root + "/val"), has_test = is_dir(root + "/test");
  if (has_test) {
    s.test = load_classes_impl(root + "/test", channels, image_size, &s.train.class_names, ref);
  } else {
    carve_split(s.train, s.test, fraction_count(test_fraction, n), seed);
  }
  if (has_val) {
    s.val = load_classes_impl(root + "/val", channels, image_size, &s.train.class_names, ref);
  } else {
    carve_split(s.train, s.val, fraction_count(val_fraction, n), seed + 1);
  }
  return s;
}

void write_png(const std::string& path, const uint8_t* pixels, int w, int h, int channels) {
  if (w <= 0 || h <= 0 || channels < 1 || channels > 4 || !pixels) {
    throw DataError("png: " + path + ": cannot write " + std::to_string(w) + "x" + std::to_string(h) +
                    "x" + std::to_string(channels) + ", expected positive sizes and 1..4 channels");
  }
  if (!stbi_write_png(path.c_str(), w, h, channels, pixels, w * channels)) {
    throw DataError("png: " + path + ": write failed, expected a writable path (does the folder exist?)");
  }
}

}  // namespace az
