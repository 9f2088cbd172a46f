// Checkpoint files (see checkpoint.h).
#include "train/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cereal/archives/portable_binary.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace az {

namespace {
const char kMagic[8] = {'A', 'T', 'T', 'N', 'Z', 'O', 'O', 0};
constexpr size_t kHeader = 8 + 4 + 8 + 4;

using Out = cereal::PortableBinaryOutputArchive;
using In = cereal::PortableBinaryInputArchive;

// Length-prefixed reads check the length against what is left in the
// payload before allocating, so a corrupt length cannot ask for gigabytes.
struct Reader {
  std::istringstream& s;
  In ar;
  size_t total;
  explicit Reader(std::istringstream& st, size_t n) : s(st), ar(st), total(n) {}
  size_t left() { return total - size_t(s.tellg()); }
  uint64_t count(size_t elem) {
    uint64_t n;
    ar(n);
    if (n > left() / elem) throw std::runtime_error("a length field exceeds the file");
    return n;
  }
  std::string str() {
    std::string v(count(1), '\0');
    if (!v.empty()) ar(cereal::binary_data(&v[0], v.size()));
    return v;
  }
  std::vector<float> floats() {
    std::vector<float> v(count(4));
    if (!v.empty()) ar(cereal::binary_data(v.data(), v.size() * 4));
    return v;
  }
};
void put(Out& ar, const std::string& v) {
  ar(uint64_t(v.size()));
  if (!v.empty()) ar(cereal::binary_data(v.data(), v.size()));
}
void put(Out& ar, const std::vector<float>& v) {
  ar(uint64_t(v.size()));
  if (!v.empty()) ar(cereal::binary_data(v.data(), v.size() * 4));
}
void put_map(Out& ar, const std::map<std::string, std::string>& m) {
  ar(uint64_t(m.size()));
  for (auto& [k, v] : m) put(ar, k), put(ar, v);
}
std::map<std::string, std::string> get_map(Reader& r) {
  std::map<std::string, std::string> m;
  uint64_t n = r.count(16);
  for (uint64_t i = 0; i < n; ++i) {
    std::string k = r.str();
    m[k] = r.str();
  }
  return m;
}
void put_records(Out& ar, const std::vector<TensorRecord>& rs) {
  ar(uint64_t(rs.size()));
  for (auto& t : rs) {
    put(ar, t.name);
    ar(uint64_t(t.shape.size()));
    for (int64_t d : t.shape) ar(d);
    put(ar, t.data);
  }
}
std::vector<TensorRecord> get_records(Reader& r) {
  std::vector<TensorRecord> rs(r.count(24));
  for (auto& t : rs) {
    t.name = r.str();
    t.shape.resize(r.count(8));
    for (auto& d : t.shape) r.ar(d);
    t.data = r.floats();
    // Hostile dimensions may be negative or overflow the product (numel_of would).
    uint64_t n = 1;
    bool ok = true;
    for (int64_t d : t.shape) ok = ok && d >= 0 && !__builtin_mul_overflow(n, uint64_t(d), &n);
    if (!ok || n != t.data.size()) throw std::runtime_error("tensor '" + t.name + "' size does not match its shape");
  }
  return rs;
}

void write_all(int fd, const char* p, size_t n, const std::string& tmp) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("cannot write checkpoint " + tmp + ": " + why + " (the previous checkpoint is unchanged)");
    }
    p += w, n -= size_t(w);
  }
}
}  // namespace

void save_checkpoint(const std::string& path, const Checkpoint& c) {
  std::ostringstream ps;
  {
    Out ar(ps);
    put_map(ar, c.model_config);
    put_map(ar, c.train_config);
    put_records(ar, c.params);
    put_records(ar, c.buffers);
    ar(uint64_t(c.optimizer.size()));
    for (auto& [k, v] : c.optimizer) put(ar, k), put(ar, v);
    for (uint64_t w : c.rng) ar(w);
    ar(c.step, c.data.seed, c.data.epoch, c.data.index, c.data.dataset_size, c.data.shuffle, c.best_val, c.best_step);
  }
  std::string payload = ps.str();
  uint32_t crc = uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(payload.data()), uInt(payload.size())));
  std::string head(kMagic, 8);
  uint32_t ver = kCheckpointVersion;
  uint64_t len = payload.size();
  head.append(reinterpret_cast<const char*>(&ver), 4);  // little-endian hosts only (checked at load)
  head.append(reinterpret_cast<const char*>(&len), 8);
  head.append(reinterpret_cast<const char*>(&crc), 4);

  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail("cannot create checkpoint " + tmp + ": " + std::strerror(errno));
  write_all(fd, head.data(), head.size(), tmp);
  write_all(fd, payload.data(), payload.size(), tmp);
  int synced = ::fsync(fd), sync_errno = errno;
  if (::close(fd) != 0 || synced != 0) {
    std::string why = std::strerror(synced != 0 ? sync_errno : errno);
    ::unlink(tmp.c_str());
    fail("cannot flush checkpoint " + tmp + ": " + why + " (the previous checkpoint is unchanged)");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    fail("cannot rename " + tmp + " to " + path + ": " + why);
  }
  // Make the rename itself durable (best effort: some filesystems refuse).
  std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/') + 1);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) ::fsync(dfd), ::close(dfd);
}

Checkpoint load_checkpoint(const std::string& path) {
  // Only a regular file has an end: /dev/zero would be read forever, a FIFO block.
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) fail("cannot open checkpoint " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    fail("checkpoint " + path + " is not a regular file" + (S_ISDIR(st.st_mode) ? " (it is a directory)" : ""));
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open checkpoint " + path + ": " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) fail("cannot read checkpoint " + path + ": " + std::strerror(errno));
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    fail("checkpoint " + path + " is not an attnzoo checkpoint (bad magic)");
  if (bytes.size() < kHeader)
    fail("checkpoint " + path + " is truncated: " + std::to_string(bytes.size()) + " bytes, header alone needs " +
         std::to_string(kHeader));
  uint32_t ver, crc;
  uint64_t len;
  std::memcpy(&ver, bytes.data() + 8, 4);
  std::memcpy(&len, bytes.data() + 12, 8);
  std::memcpy(&crc, bytes.data() + 20, 4);
  if (ver != kCheckpointVersion)
    fail("checkpoint " + path + " has format version " + std::to_string(ver) + ", this program reads version " +
         std::to_string(kCheckpointVersion));
  if (bytes.size() - kHeader < len)
    fail("checkpoint " + path + " is truncated: " + std::to_string(bytes.size()) + " bytes, expected " +
         std::to_string(kHeader + len));
  if (bytes.size() - kHeader > len)
    fail("checkpoint " + path + " has " + std::to_string(bytes.size() - kHeader - len) + " unexpected trailing bytes");
  if (uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(bytes.data() + kHeader), uInt(len))) != crc)
    fail("checkpoint " + path + " is corrupt: checksum mismatch");
  Checkpoint c;
  try {
    std::istringstream ps(bytes.substr(kHeader));
    Reader r(ps, len);
    c.model_config = get_map(r);
    c.train_config = get_map(r);
    c.params = get_records(r);
    c.buffers = get_records(r);
    uint64_t n = r.count(16);
    for (uint64_t i = 0; i < n; ++i) {
      std::string k = r.str();
      c.optimizer[k] = r.floats();
    }
    for (uint64_t& w : c.rng) r.ar(w);
    r.ar(c.step, c.data.seed, c.data.epoch, c.data.index, c.data.dataset_size, c.data.shuffle, c.best_val,
         c.best_step);
    if (r.left() != 0) throw std::runtime_error(std::to_string(r.left()) + " bytes left over");
  } catch (const std::exception& e) {
    fail("checkpoint " + path + " is corrupt: " + e.what());
  }
  return c;
}

std::vector<TensorRecord> records_of(const std::vector<NamedTensor>& tensors) {
  std::vector<TensorRecord> r;
  for (auto& t : tensors) r.push_back({t.name, t.tensor.shape(), t.tensor.to_vector()});
  return r;
}

void load_into(const std::vector<NamedTensor>& tensors, const std::vector<TensorRecord>& records,
               const std::string& what, const std::string& path) {
  std::map<std::string, const TensorRecord*> by_name;
  for (auto& r : records) by_name[r.name] = &r;
  for (auto& t : tensors) {
    auto it = by_name.find(t.name);
    if (it == by_name.end()) fail("checkpoint " + path + " has no " + what + " '" + t.name + "'");
    if (it->second->shape != t.tensor.shape())
      fail("checkpoint " + path + ": " + what + " '" + t.name + "' has shape " + shape_str(it->second->shape) +
           ", the model expects " + shape_str(t.tensor.shape()));
  }
  if (records.size() != tensors.size()) {
    for (auto& r : records) {
      bool found = false;
      for (auto& t : tensors) found = found || t.name == r.name;
      if (!found) fail("checkpoint " + path + " has an unexpected " + what + " '" + r.name + "'");
    }
  }
  for (auto& t : tensors) {
    const TensorRecord* r = by_name[t.name];
    std::copy(r->data.begin(), r->data.end(), t.tensor.data());
  }
}

}  // namespace az
