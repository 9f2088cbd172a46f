// LRA's released Pathfinder layout: the metadata parser (text lines, or a
// NumPy array of strings), the tree loader, the image-folder refusal and a
// writer for fixtures.  See lra_pathfinder_layout.h.
#include "data/pathfinder/lra_pathfinder_layout.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "data/images/image_folder.h"  // read_image, write_png

namespace az {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw DataError("pathfinder-lra: " + where + ": " + what);
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// Printable form of a field for an error message (at most 40 characters).
std::string shown(const std::string& s) {
  std::string o;
  for (unsigned char c : s.substr(0, 40)) o += (c >= 32 && c < 127) ? char(c) : '?';
  return "'" + o + (s.size() > 40 ? "...'" : "'");
}

// One record's first four fields; `where` is "name:line" or "name: row r".
LraMetaEntry entry_of(const std::vector<std::string>& f, const std::string& where, int64_t line) {
  if (f.size() < 4) {
    bad(where, std::to_string(f.size()) + " fields, expected at least 4 (folder, file, index, label)");
  }
  LraMetaEntry e;
  e.folder = f[0], e.file = f[1], e.line = line;
  const fs::path folder(e.folder);
  bool escapes = folder.is_absolute() || e.folder.empty();
  for (const auto& part : folder) escapes = escapes || part == "..";
  if (escapes) bad(where, "folder " + shown(e.folder) + ", expected a relative path under the root such as imgs/0");
  const std::string& fn = e.file;
  auto lower_ends_png = [](const std::string& s) {
    if (s.size() < 5) return false;
    std::string t = s.substr(s.size() - 4);
    for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
    return t == ".png";
  };
  if (fn.find('/') != std::string::npos || fn.find('\\') != std::string::npos || !lower_ends_png(fn)) {
    bad(where, "file " + shown(fn) + ", expected an image name such as sample_0.png");
  }
  if (!all_digits(f[2])) bad(where, "index " + shown(f[2]) + ", expected a non-negative integer");
  e.index = std::stoll(f[2]);
  if (f[3] != "0" && f[3] != "1") bad(where, "label " + shown(f[3]) + " (field 4), expected 0 or 1");
  e.label = f[3] == "1";
  return e;
}

std::vector<LraMetaEntry> parse_text(const std::string& bytes, const std::string& name) {
  std::vector<LraMetaEntry> out;
  size_t pos = 0;
  int64_t line = 0;
  while (pos < bytes.size()) {
    size_t end = bytes.find('\n', pos);
    if (end == std::string::npos) end = bytes.size();  // no final newline: the last line still counts
    std::string text = bytes.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    const std::string where = name + ":" + std::to_string(line);
    if (!text.empty() && text.back() == '\r') text.pop_back();
    std::vector<std::string> fields;
    std::string cur;
    for (unsigned char c : text) {
      if (c == ' ' || c == '\t') {
        if (!cur.empty()) fields.push_back(cur), cur.clear();
      } else if (c < 32 || c == 127) {
        bad(where, "control byte " + std::to_string(int(c)) + ", expected text fields separated by spaces");
      } else {
        cur += char(c);
      }
    }
    if (!cur.empty()) fields.push_back(cur);
    if (fields.empty()) bad(where, "blank line, expected 'imgs/<batch> sample_<K>.png <K> <label> ...'");
    out.push_back(entry_of(fields, where, line));
  }
  if (out.empty()) bad(name, "no lines, expected one line per image");
  return out;
}

// NumPy .npy (format 1.0 to 3.0) holding a 2-D array of strings, as
// snakes2.py's np.save writes it: dtype <U (UCS-4) or |S (bytes).
std::vector<LraMetaEntry> parse_npy(const std::string& b, const std::string& name) {
  if (b.size() < 10) bad(name, "truncated NumPy header, expected a .npy file or text lines");
  const int major = (unsigned char)b[6];
  if (major < 1 || major > 3) bad(name, "NumPy format version " + std::to_string(major) + ", expected 1, 2 or 3");
  size_t hlen = 0, at = 0;
  if (major == 1) {
    hlen = size_t((unsigned char)b[8]) | size_t((unsigned char)b[9]) << 8, at = 10;
  } else {
    if (b.size() < 12) bad(name, "truncated NumPy header, expected a .npy file");
    for (int i = 0; i < 4; ++i) hlen |= size_t((unsigned char)b[size_t(8 + i)]) << (8 * i);
    at = 12;
  }
  if (hlen > b.size() - at) bad(name, "NumPy header of " + std::to_string(hlen) + " bytes past the end of the file");
  const std::string h = b.substr(at, hlen);
  at += hlen;
  auto value_of = [&](const std::string& key) {
    const size_t k = h.find("'" + key + "'");
    if (k == std::string::npos) bad(name, "NumPy header without '" + key + "', expected a dict with descr, fortran_order, shape");
    size_t v = h.find(':', k);
    if (v == std::string::npos) bad(name, "NumPy header key '" + key + "' without a value");
    ++v;
    while (v < h.size() && h[v] == ' ') ++v;
    return v;
  };
  size_t d = value_of("descr");
  if (d >= h.size() || (h[d] != '\'' && h[d] != '"')) bad(name, "NumPy descr is not a string, expected '<U..' or '|S..'");
  const size_t d_end = h.find(h[d], d + 1);
  if (d_end == std::string::npos) bad(name, "NumPy descr unterminated");
  const std::string descr = h.substr(d + 1, d_end - d - 1);
  if (descr.size() < 3 || !all_digits(descr.substr(2)) || !((descr[0] == '<' || descr[0] == '|') && (descr[1] == 'U' || descr[1] == 'S')))
    bad(name, "NumPy dtype " + shown(descr) + ", expected strings ('<U..' or '|S..'), as snakes2.py saves its metadata");
  const bool ucs4 = descr[1] == 'U';
  const size_t chars = size_t(std::stoll(descr.substr(2)));
  if (chars == 0 || chars > 4096) bad(name, "NumPy string width " + std::to_string(chars) + ", expected 1..4096");
  const size_t item = chars * (ucs4 ? 4 : 1);
  const size_t fo = value_of("fortran_order");
  const bool fortran = h.compare(fo, 4, "True") == 0;
  if (!fortran && h.compare(fo, 5, "False") != 0) bad(name, "NumPy fortran_order is neither True nor False");
  const size_t s = value_of("shape");
  if (s >= h.size() || h[s] != '(') bad(name, "NumPy shape is not a tuple");
  const size_t s_end = h.find(')', s);
  if (s_end == std::string::npos) bad(name, "NumPy shape unterminated");
  std::vector<size_t> shape;
  std::string num;
  for (size_t i = s + 1; i <= s_end; ++i) {
    const char c = h[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      num += c;
    } else if (c == ',' || c == ')') {
      if (!num.empty()) {
        if (num.size() > 12) bad(name, "NumPy shape entry " + shown(num) + " too large");
        shape.push_back(size_t(std::stoll(num)));
      }
      num.clear();
    } else if (c != ' ') {
      bad(name, "NumPy shape " + shown(h.substr(s, s_end - s + 1)) + ", expected (rows, fields)");
    }
  }
  if (shape.size() != 2 || shape[0] == 0) {
    bad(name, "NumPy array of shape " + shown(h.substr(s, s_end - s + 1)) + ", expected (rows, fields) with rows >= 1");
  }
  const size_t rows = shape[0], cols = shape[1];
  if (cols > 1024 || rows > (b.size() - at) / std::max<size_t>(1, cols * item) || rows * cols * item > b.size() - at) {
    bad(name, "NumPy data of " + std::to_string(b.size() - at) + " bytes, expected " + std::to_string(rows) + " x " +
                  std::to_string(cols) + " strings of " + std::to_string(item) + " bytes");
  }
  std::vector<LraMetaEntry> out;
  std::vector<std::string> fields(cols);
  for (size_t r = 0; r < rows; ++r) {
    const std::string where = name + ": row " + std::to_string(r + 1);
    for (size_t c = 0; c < cols; ++c) {
      const size_t cell = at + (fortran ? c * rows + r : r * cols + c) * item;
      std::string& f = fields[c];
      f.clear();
      for (size_t k = 0; k < chars; ++k) {
        uint32_t cp = 0;
        if (ucs4) {
          const size_t p = cell + 4 * k;
          cp = uint32_t((unsigned char)b[p]) | uint32_t((unsigned char)b[p + 1]) << 8 |
               uint32_t((unsigned char)b[p + 2]) << 16 | uint32_t((unsigned char)b[p + 3]) << 24;
        } else {
          cp = (unsigned char)b[cell + k];
        }
        if (cp == 0) break;  // NUL padding
        if (cp < 32 || cp > 126) bad(where, "character " + std::to_string(cp) + " in field " + std::to_string(c + 1) + ", expected ASCII text");
        f += char(cp);
      }
    }
    out.push_back(entry_of(fields, where, int64_t(r + 1)));
  }
  return out;
}

bool has_npy(const fs::path& dir) {
  if (!is_dir(dir)) return false;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".npy") return true;
  return false;
}

std::vector<std::string> names_in(const fs::path& dir, bool dirs) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) bad(dir.string(), "cannot list (" + ec.message() + ")");
  for (; it != end; it.increment(ec)) {
    if (ec) bad(dir.string(), "cannot list (" + ec.message() + ")");
    std::error_code e2;
    const std::string n = it->path().filename().string();
    if (n.empty() || n[0] == '.') continue;
    if (dirs ? it->is_directory(e2) : it->is_regular_file(e2)) out.push_back(n);
  }
  return out;
}

// Batch order: numeric names by value first, then the rest by name.
bool batch_less(const std::string& a, const std::string& b) {
  const bool na = all_digits(a), nb = all_digits(b);
  if (na != nb) return na;
  if (na && std::stoll(a) != std::stoll(b)) return std::stoll(a) < std::stoll(b);
  return a < b;
}

}  // namespace

std::vector<LraMetaEntry> parse_lra_pathfinder_metadata(const std::string& bytes, const std::string& name) {
  if (bytes.size() >= 6 && std::memcmp(bytes.data(), "\x93NUMPY", 6) == 0) return parse_npy(bytes, name);
  return parse_text(bytes, name);
}

std::vector<LraMetaEntry> read_lra_pathfinder_metadata(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, "cannot open, expected a readable metadata file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) bad(path, "read error");
  return parse_lra_pathfinder_metadata(bytes, path);
}

bool is_lra_pathfinder_root(const std::string& dir) {
  return is_dir(fs::path(dir) / "imgs") && has_npy(fs::path(dir) / "metadata");
}

Splits load_lra_pathfinder(const std::string& root_in) {
  std::string root = root_in;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (!is_lra_pathfinder_root(root) && fs::path(root).filename() == "imgs" &&
      is_lra_pathfinder_root(fs::path(root).parent_path().string())) {
    root = fs::path(root).parent_path().string();
  }
  if (!is_lra_pathfinder_root(root)) {
    bad(root, "no imgs/ beside metadata/*.npy, expected LRA's layout ROOT/imgs/<batch>/sample_<K>.png with "
              "ROOT/metadata/<batch>.npy (e.g. pathfinder32/curv_contour_length_14)");
  }
  std::vector<std::string> metas;
  for (const std::string& n : names_in(fs::path(root) / "metadata", false))
    if (fs::path(n).extension() == ".npy") metas.push_back(n);
  std::sort(metas.begin(), metas.end(), [](const std::string& a, const std::string& b) {
    return batch_less(fs::path(a).stem().string(), fs::path(b).stem().string());
  });
  struct Item {
    std::string path, where;
    int label;
  };
  std::vector<Item> items;
  std::map<std::string, int64_t> listed;  // folder -> images listed
  for (const std::string& m : metas) {
    const std::string mp = root + "/metadata/" + m;
    for (const LraMetaEntry& e : read_lra_pathfinder_metadata(mp)) {
      items.push_back({root + "/" + e.folder + "/" + e.file, mp + ":" + std::to_string(e.line), e.label});
      ++listed[fs::path(e.folder).lexically_normal().string()];
    }
  }
  // Images no metadata lists are not read: say so, one line per folder.
  for (const std::string& b : names_in(fs::path(root) / "imgs", true)) {
    int64_t files = 0;
    for (const std::string& f : names_in(fs::path(root) / "imgs" / b, false)) files += fs::path(f).extension() == ".png";
    const auto it = listed.find("imgs/" + b);
    const int64_t have = it == listed.end() ? 0 : it->second;
    if (files > have) {
      std::fprintf(stderr, "pathfinder-lra: %s/imgs/%s: %lld of its %lld PNGs are not in metadata/%s.npy and are not read\n",
                   root.c_str(), b.c_str(), (long long)(files - have), (long long)files, b.c_str());
    }
  }
  Dataset all;
  all.vocab_size = 257;
  all.num_classes = 2;
  all.class_names = {"0", "1"};
  all.channels = 1;
  all.seqs.resize(items.size());
  all.labels.resize(items.size());
  std::vector<int> ws(items.size()), hs(items.size());
  std::exception_ptr error;
  std::atomic<bool> failed{false};
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t i = 0; i < int64_t(items.size()); ++i) {
    if (failed.load(std::memory_order_relaxed)) continue;
    const Item& it = items[size_t(i)];
    try {
      std::vector<uint8_t> px;
      try {
        px = read_image(it.path, 1, &ws[size_t(i)], &hs[size_t(i)]);
      } catch (const DataError& e) {
        bad(it.where, std::string("image ") + e.what());
      }
      std::vector<int32_t>& seq = all.seqs[size_t(i)];
      seq.resize(px.size());
      for (size_t p = 0; p < px.size(); ++p) seq[p] = int32_t(px[p]) + 1;
      all.labels[size_t(i)] = it.label;
    } catch (...) {
      failed.store(true, std::memory_order_relaxed);
#pragma omp critical(lra_layout_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  for (size_t i = 0; i < items.size(); ++i)
    if (ws[i] != ws[0] || hs[i] != hs[0]) {
      bad(items[i].where, "image " + items[i].path + " is " + std::to_string(ws[i]) + "x" + std::to_string(hs[i]) +
                              ", expected " + std::to_string(ws[0]) + "x" + std::to_string(hs[0]) + " as " + items[0].path);
    }
  all.width = ws[0], all.height = hs[0];
  // LRA's split: [:80%] train, [80%:90%] val, [90%:] test, in file order.  TFDS turns a
  // percent into an index as int(round(pct * n / 100.)): Python's round, half to even, so 25
  // examples split 20 / 2 / 3 (22.5 -> 22), not 20 / 3 / 2.
  const auto boundary = [n = all.size()](size_t tenths) {
    const size_t q = n * tenths / 10, r = n * tenths % 10;
    return q + (r > 5 || (r == 5 && q % 2 == 1));
  };
  const size_t n = all.size(), a = boundary(8), b = boundary(9);
  Splits s;
  for (Dataset* d : {&s.train, &s.val, &s.test}) {
    d->vocab_size = all.vocab_size, d->num_classes = 2, d->class_names = all.class_names;
    d->height = all.height, d->width = all.width, d->channels = 1;
  }
  for (size_t i = 0; i < n; ++i) {
    Dataset& d = i < a ? s.train : (i < b ? s.val : s.test);
    d.seqs.push_back(std::move(all.seqs[i]));
    d.labels.push_back(all.labels[i]);
  }
  return s;
}

void refuse_lra_pathfinder_as_image_folder(const std::string& dir, const std::vector<std::string>& classes,
                                           const std::string& flag) {
  if (is_lra_pathfinder_root(dir)) {
    throw DataError("image-folder: " + flag + " " + dir + " is LRA's Pathfinder layout (imgs/ and metadata/*.npy), "
                    "not " + dir + "/<class>/<images>: read it as the pathfinder task's LRA layout, whose labels come from metadata/");
  }
  for (const std::string& c : classes)  // e.g. pathfinder32/ holding curv_baseline/ ... curv_contour_length_14/
    if (is_lra_pathfinder_root(dir + "/" + c)) {
      throw DataError("image-folder: " + flag + " " + dir + ": its folder " + c + " is LRA's Pathfinder layout "
                      "(imgs/ and metadata/*.npy), not a class: pass " + dir + "/" + c + " to read it");
    }
  if (classes.empty() || !std::all_of(classes.begin(), classes.end(), all_digits)) return;
  const fs::path meta = fs::path(dir).lexically_normal().parent_path() / "metadata";
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  const fs::path meta2 = fs::path(d).parent_path() / "metadata";
  if (has_npy(meta) || has_npy(meta2)) {
    throw DataError("image-folder: " + flag + " " + dir + ": its folders " + classes.front() + ".." + classes.back() +
                    " are LRA Pathfinder batches with labels in " + (has_npy(meta2) ? meta2 : meta).string() +
                    "/*.npy, not classes; pass the folder above it to read LRA's layout");
  }
}

void write_lra_pathfinder_layout(const Dataset& ds, const std::string& root, int64_t per_batch) {
  if (per_batch < 1) throw DataError("pathfinder-lra: per_batch " + std::to_string(per_batch) + ", expected >= 1");
  if (ds.size() && (ds.channels != 1 || ds.height <= 0 || ds.width <= 0)) {
    throw DataError("pathfinder-lra: writing " + std::to_string(ds.height) + "x" + std::to_string(ds.width) + "x" +
                    std::to_string(ds.channels) + " images, expected 1-channel images");
  }
  std::error_code ec;
  fs::create_directories(fs::path(root) / "metadata", ec);
  if (ec) bad(root + "/metadata", "cannot create (" + ec.message() + ")");
  std::ofstream meta;
  std::vector<uint8_t> px;
  for (size_t i = 0; i < ds.size(); ++i) {
    const int64_t batch = int64_t(i) / per_batch, k = int64_t(i) % per_batch;
    const std::string folder = "imgs/" + std::to_string(batch);
    if (k == 0) {
      fs::create_directories(fs::path(root) / folder, ec);
      if (ec) bad(root + "/" + folder, "cannot create (" + ec.message() + ")");
      if (meta.is_open()) meta.close();
      meta.open(root + "/metadata/" + std::to_string(batch) + ".npy", std::ios::binary);
      if (!meta) bad(root + "/metadata", "cannot write " + std::to_string(batch) + ".npy");
    }
    px.resize(ds.seqs[i].size());
    for (size_t p = 0; p < px.size(); ++p) px[p] = uint8_t(ds.seqs[i][p] - 1);
    const std::string file = "sample_" + std::to_string(k) + ".png";
    write_png(root + "/" + folder + "/" + file, px.data(), ds.width, ds.height, 1);
    meta << folder << ' ' << file << ' ' << k << ' ' << ds.labels[i] << '\n';
    if (!meta) bad(root + "/metadata", "write failed");
  }
}

}  // namespace az
