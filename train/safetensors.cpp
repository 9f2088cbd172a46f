// safetensors reader and writer (see safetensors.h), on rapidjson (the JSON
// library cereal uses; Debian's libcereal-dev depends on rapidjson-dev).
#include "train/safetensors.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

// rapidjson asserts (abort) on misuse by default; a hostile header must give an
// exception instead, whatever path the checks below missed.
#define RAPIDJSON_ASSERT(x) \
  if (!(x)) throw std::runtime_error("JSON reader: internal check failed: " #x)
#define RAPIDJSON_HAS_STDSTRING 1
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace az {

static_assert(sizeof(float) == 4, "F32 is IEEE single precision");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors are little-endian; this reader copies bytes as they are"
#endif

namespace {

// Bytes per element of every dtype the format defines (safetensors/src/tensor.rs Dtype).
int dtype_size(const std::string& t) {
  static const std::map<std::string, int> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"I16", 2},
      {"U16", 2},  {"F16", 2}, {"BF16", 2}, {"I32", 4},    {"U32", 4},     {"F32", 4},
      {"F64", 8},  {"I64", 8}, {"U64", 8}};
  auto it = sizes.find(t);
  return it == sizes.end() ? 0 : it->second;
}

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 1023;
  uint32_t bits;
  if (exp == 31) bits = sign | 0x7f800000u | (man << 13);  // inf, NaN
  else if (exp != 0) bits = sign | ((exp + 112) << 23) | (man << 13);
  else if (man == 0) bits = sign;  // +-0
  else {                           // subnormal: normalise
    int e = -1;
    do ++e, man <<= 1;
    while (!(man & 1024));
    bits = sign | (uint32_t(112 - e) << 23) | ((man & 1023) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::vector<float> to_floats(const std::string& dtype, const char* p, size_t n) {
  std::vector<float> v(n);
  if (dtype == "F32") {
    if (n) std::memcpy(v.data(), p, n * 4);
  } else if (dtype == "F64") {
    for (size_t i = 0; i < n; ++i) {
      double d;
      std::memcpy(&d, p + 8 * i, 8);
      v[i] = float(d);
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      uint32_t bits = uint32_t(h) << 16;
      if (dtype == "BF16") std::memcpy(&v[i], &bits, 4);
      else v[i] = half_to_float(h);
    }
  }
  return v;
}

std::string json_str(const rapidjson::Value& v) { return std::string(v.GetString(), v.GetStringLength()); }

struct Entry {
  std::string name, dtype;
  Shape shape;
  uint64_t begin = 0, end = 0;
};
}  // namespace

const TensorRecord* Safetensors::find(const std::string& name) const {
  for (auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::string safetensors_bytes(const std::vector<TensorRecord>& tensors, const std::map<std::string, std::string>& metadata) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  if (!metadata.empty()) {
    w.Key("__metadata__");
    w.StartObject();
    for (auto& [k, v] : metadata) w.Key(k.data(), rapidjson::SizeType(k.size())), w.String(v.data(), rapidjson::SizeType(v.size()));
    w.EndObject();
  }
  uint64_t offset = 0;
  std::map<std::string, int> seen;
  for (auto& t : tensors) {
    if (t.name == "__metadata__" || seen[t.name]++) fail("safetensors: tensor name '" + t.name + "' is reserved or repeated");
    if (uint64_t(numel_of(t.shape)) != t.data.size())
      fail("safetensors: tensor '" + t.name + "' has " + std::to_string(t.data.size()) + " values, its shape " +
           shape_str(t.shape) + " needs " + std::to_string(numel_of(t.shape)));
    w.Key(t.name.data(), rapidjson::SizeType(t.name.size()));
    w.StartObject();
    w.Key("dtype"), w.String("F32");
    w.Key("shape"), w.StartArray();
    for (int64_t d : t.shape) w.Int64(d);
    w.EndArray();
    w.Key("data_offsets"), w.StartArray(), w.Uint64(offset), w.Uint64(offset + 4 * t.data.size()), w.EndArray();
    w.EndObject();
    offset += 4 * t.data.size();
  }
  w.EndObject();
  std::string header(sb.GetString(), sb.GetSize());
  header.append((8 - header.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  uint64_t n = header.size();
  std::string out(reinterpret_cast<const char*>(&n), 8);
  out += header;
  out.reserve(out.size() + offset);
  for (auto& t : tensors) out.append(reinterpret_cast<const char*>(t.data.data()), 4 * t.data.size());
  return out;
}

void save_safetensors(const std::string& path, const std::vector<TensorRecord>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  std::string bytes = safetensors_bytes(tensors, metadata), tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) fail("cannot create " + tmp + ": " + std::strerror(errno));
    f.write(bytes.data(), std::streamsize(bytes.size()));
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      fail("cannot write " + tmp + ": " + std::strerror(errno));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    fail("cannot rename " + tmp + " to " + path + ": " + why);
  }
}

Safetensors parse_safetensors(const std::string& bytes, const std::string& what) {
  auto bad = [&](const std::string& why) { fail("safetensors " + what + ": " + why); };
  if (bytes.size() < 8) bad("file of " + std::to_string(bytes.size()) + " bytes is shorter than the 8-byte header length");
  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  if (n > kMaxSafetensorsHeader)
    bad("header length " + std::to_string(n) + " is above the limit of " + std::to_string(kMaxSafetensorsHeader) + " bytes");
  if (n > bytes.size() - 8)
    bad("header length " + std::to_string(n) + " runs past the end of the file (" + std::to_string(bytes.size() - 8) +
        " bytes follow the length)");
  const char* head = bytes.data() + 8;
  if (n < 2 || head[0] != '{') bad("header is not a JSON object (expected '{' at byte 8)");
  rapidjson::Document doc;
  // Iterative: a deeply nested header cannot exhaust the stack.
  doc.Parse<rapidjson::kParseIterativeFlag>(head, size_t(n));
  if (doc.HasParseError())
    bad("header is not valid JSON: " + std::string(rapidjson::GetParseError_En(doc.GetParseError())) + " at byte " +
        std::to_string(8 + doc.GetErrorOffset()));
  if (!doc.IsObject()) bad("header is not a JSON object");
  const uint64_t buffer = bytes.size() - 8 - n;
  Safetensors st;
  std::vector<Entry> entries;
  std::map<std::string, int> seen;
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    std::string name = json_str(it->name);
    if (seen[name]++) bad("tensor '" + name + "' appears twice in the header");
    const rapidjson::Value& v = it->value;
    if (name == "__metadata__") {
      if (!v.IsObject()) bad("__metadata__ must be an object of strings");
      for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
        if (!m->value.IsString()) bad("__metadata__ entry '" + json_str(m->name) + "' must be a string");
        st.metadata[json_str(m->name)] = json_str(m->value);
      }
      continue;
    }
    auto bad_t = [&](const std::string& why) { bad("tensor '" + name + "': " + why); };
    if (!v.IsObject()) bad_t("entry must be an object with dtype, shape and data_offsets");
    auto dt = v.FindMember("dtype"), sh = v.FindMember("shape"), off = v.FindMember("data_offsets");
    if (dt == v.MemberEnd() || !dt->value.IsString()) bad_t("dtype must be a string such as \"F32\"");
    if (sh == v.MemberEnd() || !sh->value.IsArray()) bad_t("shape must be an array of sizes");
    if (off == v.MemberEnd() || !off->value.IsArray() || off->value.Size() != 2 || !off->value[0].IsUint64() ||
        !off->value[1].IsUint64())
      bad_t("data_offsets must be two non-negative integers [begin, end]");
    Entry e;
    e.name = name;
    e.dtype = json_str(dt->value);
    int size = dtype_size(e.dtype);
    if (!size) bad_t("unknown dtype '" + e.dtype + "' (the format defines BOOL, U8, I8, F8_E5M2, F8_E4M3, I16, U16, F16, "
                     "BF16, I32, U32, F32, F64, I64, U64)");
    uint64_t count = 1;
    for (auto& d : sh->value.GetArray()) {
      if (!d.IsUint64() || d.GetUint64() > uint64_t(INT64_MAX)) bad_t("shape must hold non-negative integer sizes");
      e.shape.push_back(int64_t(d.GetUint64()));
      if (__builtin_mul_overflow(count, d.GetUint64(), &count)) bad_t("shape " + shape_str(e.shape) + " overflows");
    }
    e.begin = off->value[0].GetUint64();
    e.end = off->value[1].GetUint64();
    if (e.begin > e.end || e.end > buffer)
      bad_t("data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "] must lie within the " +
            std::to_string(buffer) + "-byte data buffer");
    uint64_t want = 0;
    bool huge = __builtin_mul_overflow(count, uint64_t(size), &want);
    if (huge || want != e.end - e.begin)
      bad_t("shape " + shape_str(e.shape) + " of " + e.dtype + " needs " +
            (huge ? std::string("more than 2^64") : std::to_string(want)) + " bytes, data_offsets give " +
            std::to_string(e.end - e.begin));
    entries.push_back(std::move(e));
  }
  // The buffer must be covered exactly once, in offset order (as the reference reader demands).
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  uint64_t at = 0;
  for (auto& e : entries) {
    if (e.begin != at)
      bad("tensor '" + e.name + "' starts at byte " + std::to_string(e.begin) + " of the data buffer, expected " +
          std::to_string(at) + (e.begin < at ? " (it overlaps the previous tensor)" : " (a gap before it)"));
    at = e.end;
  }
  if (at != buffer)
    bad("the tensors cover " + std::to_string(at) + " bytes of the " + std::to_string(buffer) + "-byte data buffer");
  const char* data = bytes.data() + 8 + n;
  for (auto& e : entries) {
    if (e.dtype != "F32" && e.dtype != "F64" && e.dtype != "F16" && e.dtype != "BF16")
      bad("tensor '" + e.name + "' has dtype " + e.dtype + "; this reader takes F32, F64, F16 or BF16");
    size_t count = size_t(e.end - e.begin) / size_t(dtype_size(e.dtype));
    st.tensors.push_back({e.name, e.shape, to_floats(e.dtype, data + e.begin, count)});
  }
  return st;
}

Safetensors load_safetensors(const std::string& path) {
  struct stat s{};
  if (::stat(path.c_str(), &s) != 0) fail("cannot open " + path + ": " + std::strerror(errno));
  if (!S_ISREG(s.st_mode)) fail(path + " is not a regular file" + (S_ISDIR(s.st_mode) ? " (it is a directory)" : ""));
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open " + path + ": " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) fail("cannot read " + path + ": " + std::strerror(errno));
  return parse_safetensors(bytes, path);
}

}  // namespace az
