// Helpers shared by the test files: a temporary directory that cleans up after
// itself, and the message an expected error carries.
#pragma once
#include <doctest/doctest.h>
#include <stdlib.h>

#include <exception>
#include <filesystem>
#include <string>
#include <system_error>

namespace az::test {

// A fresh directory /tmp/<tag>_XXXXXX, removed with everything in it when the
// test ends.  dir / "name" is the path of an entry in it.
struct TempDir {
  std::string path;
  explicit TempDir(const std::string& tag = "az_test") {
    std::string tmpl = "/tmp/" + tag + "_XXXXXX";
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

// The message of the E that f throws, or "" when it throws none (an exception
// of another type propagates and fails the test).
template <class E = std::exception, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace az::test
