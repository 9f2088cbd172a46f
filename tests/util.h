// Helpers shared by the test files: a temporary directory that cleans up after
// itself, the message an expected error carries, and running the attnzoo
// program (or any command line) with its output captured.
#pragma once
#include <doctest/doctest.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

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

// The attnzoo program the suites drive: $ATTNZOO_BIN (make test-asan points it
// at the sanitizer build), else build/attnzoo.
inline std::string attnzoo_bin() {
  const char* b = std::getenv("ATTNZOO_BIN");
  return b && *b ? b : "build/attnzoo";
}

// The program that runs the build's programs: $ATTNZOO_RUNNER (make test-arm64 on an x86
// machine: qemu-aarch64), else none.  run_prefix() is it and a space, for a command line.
inline std::string attnzoo_runner() {
  const char* r = std::getenv("ATTNZOO_RUNNER");
  return r && *r ? r : "";
}
inline std::string run_prefix() { return attnzoo_runner().empty() ? "" : attnzoo_runner() + " "; }
// How many times slower than native the programs run: $ATTNZOO_TEST_SLOWDOWN (make test-arm64
// under qemu: 30), else 1.  Waits for a program to reach a point scale by it.
inline int slowdown() {
  const char* s = std::getenv("ATTNZOO_TEST_SLOWDOWN");
  return s && std::atoi(s) > 1 ? std::atoi(s) : 1;
}
// The command line that starts the attnzoo program.
inline std::string attnzoo_cmd() { return run_prefix() + attnzoo_bin(); }

// In a forked child: replaces it with `attnzoo ARGS...` (through the runner where there is one),
// which dies with the suite: a failed check does not leave it training.
template <class... A>
[[noreturn]] void exec_attnzoo(const A*... args) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const std::string bin = attnzoo_bin(), runner = attnzoo_runner();
  if (runner.empty()) execl(bin.c_str(), bin.c_str(), args..., (char*)nullptr);
  else execlp(runner.c_str(), runner.c_str(), bin.c_str(), args..., (char*)nullptr);
  _exit(127);
}

// Runs the shell command line CMD; returns its exit status (-1 when a signal
// ended it), and in *out (when given) everything it wrote to the pipe, bytes
// as they came.
inline int run_shell(const std::string& cmd, std::string* out = nullptr) {
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  if (out) out->clear();
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
    if (out) out->append(buf, n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// Which of the program's streams run_cli returns in *out.
enum class Streams { both, stderr_only, none };

// Runs `attnzoo ARGS` under timeout(1), so that a hang fails its test (status
// 124) instead of the suite; returns the exit status, and the chosen streams
// in *out.
inline int run_cli(const std::string& args, std::string* out = nullptr, Streams s = Streams::both,
                   int seconds = 600) {
  static const char* redirect[] = {" 2>&1", " 2>&1 >/dev/null", " >/dev/null 2>&1"};
  return run_shell("timeout -k 5 " + std::to_string(seconds) + " " + attnzoo_cmd() + " " + args +
                       redirect[int(s)],
                   out);
}

}  // namespace az::test
