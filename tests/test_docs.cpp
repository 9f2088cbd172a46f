// The textbook (train/lab/docs.cpp, docs/models/): every registered model has a
// generated page with every section, the index links every page, and every
// figure or file a page refers to exists; `attnzoo docs` writes such a page;
// the pattern pictures' own settings leave entries out where the registry's
// defaults would draw a solid square.  Reads the committed docs/ of the source
// tree (the working directory, or $ATTNZOO_SRC); gnuplot must be installed.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "attention/attention.h"
#include "tests/util.h"
#include "train/cli/commands.h"
#include "train/lab/pattern.h"

using namespace az;
using namespace az::test;
namespace fs = std::filesystem;

namespace {

std::string src_root() {
  const char* s = std::getenv("ATTNZOO_SRC");
  return s ? s : ".";
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every local file a Markdown file refers to, by ](target) or src="target",
// that does not exist (relative to the file's folder); only pictures when
// figures_only.  Web links and anchors are skipped.
std::vector<std::string> missing_targets(const fs::path& md, bool figures_only = false) {
  std::vector<std::string> missing;
  std::string text = read(md);
  std::regex link(R"re(\]\(([^)\s]+)\)|src="([^"]+)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator(); ++it) {
    std::string t = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
    if (t.rfind("http", 0) == 0 || t[0] == '#') continue;
    t = t.substr(0, t.find('#'));
    if (figures_only && fs::path(t).extension() != ".png" && fs::path(t).extension() != ".svg") continue;
    if (!fs::exists(md.parent_path() / t)) missing.push_back(md.filename().string() + " -> " + t);
  }
  return missing;
}

std::vector<std::string> missing_in_dir(const fs::path& dir, bool figures_only = false) {
  std::vector<std::string> all;
  for (auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".md" && e.path().filename() != "README-section.md")  // its links start at the root
      for (auto& m : missing_targets(e.path(), figures_only)) all.push_back(m);
  return all;
}

const char* kSections[] = {"## What it computes", "## Settings", "## Which entries it computes",
                           "## What it learned", "## Speed and memory against N", "## Long Range Arena"};

}  // namespace

TEST_CASE("docs/models: a page with every section for every registered model, each listed by the index") {
  fs::path dir = fs::path(src_root()) / "docs/models";
  REQUIRE_MESSAGE(fs::is_directory(dir), (dir.string() + " is missing: run `make docs`"));
  std::string index = read(dir / "README.md");
  REQUIRE_FALSE(index.empty());
  for (const std::string& name : attention_names()) {
    CAPTURE(name);
    fs::path page = dir / (name + ".md");
    CHECK_MESSAGE(fs::exists(page), ("no page " + page.string() + ": run `make docs`"));
    CHECK_MESSAGE(contains(index, "](" + name + ".md)"), ("the index does not link " + name + ".md"));
    std::string text = read(page);
    for (const char* s : kSections) CHECK_MESSAGE(contains(text, s), (name + ".md lacks the section '" + s + "'"));
    CHECK(contains(text, "](" + name + "-pattern.png)"));
    CHECK(contains(text, "](" + name + "-bench.png)"));
    // a map, or the sentence saying there is no matrix to draw
    CHECK((contains(text, "](" + name + "-attnmap.png)") || contains(text, "has no attention matrix to draw")));
  }
}

TEST_CASE("docs/models: every figure and file the pages and the README section refer to exists") {
  fs::path dir = fs::path(src_root()) / "docs/models";
  REQUIRE(fs::is_directory(dir));
  std::vector<std::string> missing = missing_in_dir(dir);
  CHECK_MESSAGE(missing.empty(), ("missing: " + (missing.empty() ? std::string() : missing[0])));
  // README-section.md is the text of the top-level README's pattern section: its links are relative to the root.
  fs::path section = dir / "README-section.md";
  REQUIRE(fs::exists(section));
  fs::path copy = fs::path(src_root()) / ".README-section.check.md";
  fs::copy_file(section, copy, fs::copy_options::overwrite_existing);
  std::vector<std::string> bad = missing_targets(copy);
  fs::remove(copy);
  CHECK_MESSAGE(bad.empty(), ("README-section.md: missing " + (bad.empty() ? std::string() : bad[0])));
  CHECK(contains(read(section), "docs/models/README.md"));
}

TEST_CASE("attnzoo docs: writes a page and an index from the records; a removed figure is reported") {
  TempDir tmp("az_docs");
  std::string root = src_root();
  std::string out = tmp / "models";
  // --maps keep: no training run; the page says how to draw the map.
  cmd_docs({"--out", out, "--src", root, "--models", "local,fnet", "--maps", "keep", "--bench", root + "/docs/bench/variants.jsonl",
            "--lra", root + "/docs/lra/mini-results.jsonl", "--lra-bench", root + "/docs/lra/mini-bench.jsonl"});
  std::string page = read(fs::path(out) / "local.md");
  // the opening comment of attention/local.cpp, the knob table, the LRA row and the commands
  CHECK(contains(page, "local: sliding-window attention, computed blockwise."));
  CHECK(contains(page, "| `--window` | 64 | 1 .. "));
  CHECK(contains(page, "| **local** | 31.0 | 93.5 | 75.7 | 50.0 | 62.6 |"));
  CHECK(contains(page, "attnzoo pattern --model local --seq-len 64"));
  CHECK(contains(page, "| 4096 | 6.913 | 8.6x | 239 | 0.07x |"));
  CHECK(contains(page, "No map yet"));
  CHECK(contains(read(fs::path(out) / "fnet.md"), "has no attention matrix to draw"));
  std::string index = read(fs::path(out) / "README.md");
  for (const std::string& name : attention_names()) CHECK(contains(index, "](" + name + ".md)"));
  // every picture the two pages and the index show is there (the source files they link are not in the temp dir)
  std::vector<std::string> missing = missing_in_dir(out, true);
  CHECK_MESSAGE(missing.empty(), (missing.empty() ? std::string() : missing[0]));
  CHECK(fs::file_size(fs::path(out) / "local-pattern.png") > 1000);
  CHECK(fs::file_size(fs::path(out) / "local-bench.png") > 1000);
  fs::remove(fs::path(out) / "local-pattern.png");
  missing = missing_in_dir(out, true);
  bool reported = false;
  for (auto& m : missing) reported = reported || m == "local.md -> local-pattern.png";
  CHECK(reported);
  CHECK(missing.size() == 2);  // the page and the index thumbnail
  CHECK(contains(error_of([&] { cmd_docs({"--out", out, "--src", "/nonexistent", "--models", "local", "--maps", "keep",
                                          "--bench", root + "/docs/bench/variants.jsonl", "--lra", root + "/docs/lra/mini-results.jsonl",
                                          "--lra-bench", root + "/docs/lra/mini-bench.jsonl"}); }),
                 "no source file for model 'local'"));
  CHECK(contains(error_of([&] { cmd_docs({"--maps", "sometimes"}); }), "--maps must be train or keep, got 'sometimes'"));
}

TEST_CASE("pattern pictures: the settings chosen for a small N leave entries out") {
  const int64_t N = 64;
  Rng rng(3);
  Tensor x = Tensor::randn({1, N, 32}, 1.0f, rng);
  int scaled = 0;
  for (const std::string& name : attention_names()) {
    std::map<std::string, double> k = picture_knobs(name, N);
    if (k.empty()) continue;
    CAPTURE(name);
    ++scaled;
    AttentionConfig c;
    c.dim = 32, c.heads = 2, c.max_len = N;
    c.knobs = k;
    auto att = make_attention(name, c);
    att->eval();
    NoGradGuard ng;
    Pattern p = att->pattern(x, Tensor());
    int64_t computed = 0;
    for (uint8_t v : p.cell) computed += v != 0;
    CHECK(computed < N * N * 9 / 10);  // at most 90% of the entries: the structure shows
    CHECK(computed > 0);
  }
  CHECK(scaled >= 7);  // local, strided, global, longformer, bigbird, reformer, sinkhorn
  // what the issue saw: bigbird with its defaults computes every entry at N = 64
  AttentionConfig c;
  c.dim = 32, c.heads = 2, c.max_len = N;
  auto full_square = make_attention("bigbird", c);
  NoGradGuard ng;
  Pattern p = full_square->pattern(x, Tensor());
  int64_t computed = 0;
  for (uint8_t v : p.cell) computed += v != 0;
  CHECK(computed == N * N);
  // the user's own value wins: picture_knobs only proposes
  CHECK(picture_knobs("bigbird", N).at("block") == 8);
  CHECK(picture_knobs("full", N).empty());
}
