// The layers of docs/ARCHITECTURE.md, checked on the source tree: each folder
// includes only from the folders below it, and the training core (train/*.h,
// train/*.cpp, train/tasks/) includes nothing from the applications above it
// (train/cli/, train/lab/).  A new include that runs back up fails here with
// the file, the line and the rule it breaks.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string src_root() {
  const char* s = std::getenv("ATTNZOO_SRC");
  return s ? s : ".";
}

// The layer a file or include path belongs to: its folder, with train/ split
// into the core ("train"), "train/tasks", "train/cli" and "train/lab".
std::string layer_of(const std::string& rel) {
  for (const char* l : {"train/tasks/", "train/cli/", "train/lab/"})
    if (rel.rfind(l, 0) == 0) return std::string(l).substr(0, std::string(l).size() - 1);
  auto slash = rel.find('/');
  return slash == std::string::npos ? "" : rel.substr(0, slash);
}

// Which layers each layer may include (besides itself).
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> a = {
      {"autograd", {}},
      {"nn", {"autograd"}},
      {"attention", {"autograd", "nn"}},
      {"mlp_mixer", {"autograd", "nn", "attention"}},
      {"data", {"autograd"}},
      {"train", {"autograd", "nn", "attention", "mlp_mixer", "data"}},
      {"train/tasks", {"autograd", "nn", "attention", "mlp_mixer", "data", "train"}},
      {"train/lab", {"autograd", "nn", "attention", "mlp_mixer", "data", "train", "train/tasks", "train/cli"}},
      {"train/cli", {"autograd", "nn", "attention", "mlp_mixer", "data", "train", "train/tasks", "train/lab"}},
  };
  return a;
}

struct Violation {
  std::string where, what;
};

std::vector<Violation> violations(const fs::path& root) {
  std::vector<Violation> out;
  const std::regex include_re(R"re(^\s*#\s*include\s+"([^"]+)")re");
  for (auto& [layer, ok] : allowed()) {
    fs::path dir = root / layer;
    if (!fs::is_directory(dir)) continue;
    for (auto& e : fs::recursive_directory_iterator(dir)) {
      auto ext = e.path().extension();
      if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      std::string rel = fs::relative(e.path(), root).generic_string();
      if (layer_of(rel) != layer) continue;  // train/tasks/x.cpp is checked as train/tasks, not train
      std::ifstream in(e.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        std::smatch m;
        if (!std::regex_search(line, m, include_re)) continue;
        std::string inc = m[1], to = layer_of(inc);
        if (to.empty() || !allowed().count(to) || to == layer || ok.count(to)) continue;
        out.push_back({rel + ":" + std::to_string(n), layer + " includes " + inc + " (" + to + " is above it)"});
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("layers: no include runs back up; the training core includes nothing from cli/ or lab/") {
  fs::path root = src_root();
  REQUIRE(fs::is_directory(root / "train/lab"));
  for (auto& v : violations(root)) FAIL_CHECK(v.where << ": " << v.what);
}

TEST_CASE("layers: the check sees a violation when there is one") {
  fs::path root = fs::temp_directory_path() / ("az_layout_" + std::to_string(::getpid()));
  fs::create_directories(root / "train/lab");
  fs::create_directories(root / "autograd");
  std::ofstream(root / "train/trainer.cpp") << "#include \"train/lab/plot.h\"\n";
  std::ofstream(root / "autograd/tensor.cpp") << "#include \"autograd/tensor.h\"\n  #include \"nn/module.h\"\n";
  auto v = violations(root);
  fs::remove_all(root);
  REQUIRE(v.size() == 2);
  std::set<std::string> where = {v[0].where, v[1].where};
  CHECK(where.count("train/trainer.cpp:1"));
  CHECK(where.count("autograd/tensor.cpp:2"));
}
