// Shared by the libFuzzer targets (tests/fuzz/fuzz_*.cpp) and by
// tests/test_hardening.cpp, which replays every saved input through the same
// functions in the ordinary (and the sanitizer) build.
//
// The parsers read files, so each input is written to a scratch file (or a
// small tree) first.  Every parser must either return or throw an exception
// derived from std::exception; anything else (a crash, a sanitizer report, a
// hang, an allocation over the fuzzer's limit) is a bug.
#pragma once
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace fuzz {

// A private scratch directory for this process (tmpfs when there is one).
inline const std::string& scratch_dir() {
  // Never destroyed: the atexit handler below may run after static destructors.
  static const std::string* dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string b = base && *base ? base : (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    std::string tmpl = b + "/az_fuzz_XXXXXX";
    if (!mkdtemp(&tmpl[0])) std::abort();
    auto* d = new std::string(tmpl);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return d;
  }();
  return *dir;
}

// Writes bytes to scratch_dir()/name and returns the path.
inline std::string write_file(const std::string& name, const uint8_t* data, size_t n) {
  std::string path = scratch_dir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (n && std::fwrite(data, 1, n, f) != n) std::abort();
  std::fclose(f);
  return path;
}

// Writes bytes gzip-compressed, so that mutations reach what lies behind zlib.
inline std::string write_gz(const std::string& name, const uint8_t* data, size_t n) {
  std::string path = scratch_dir() + "/" + name;
  gzFile f = gzopen(path.c_str(), "wb1");
  if (!f) std::abort();
  if (n && gzwrite(f, data, unsigned(n)) != int(n)) std::abort();
  gzclose(f);
  return path;
}

// Removes and recreates scratch_dir()/name as an empty folder.
inline std::string fresh_dir(const std::string& name) {
  std::string path = scratch_dir() + "/" + name;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  std::filesystem::create_directories(path);
  return path;
}

// Runs f; an exception derived from std::exception is a clean refusal.
template <class F>
void refusal_ok(F&& f) {
  try {
    f();
  } catch (const std::exception&) {
  }
}

}  // namespace fuzz
