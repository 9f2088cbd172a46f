// train/lra and train/plot: the LRA sweep on the hidden `tiny` preset (two
// models, two tasks, a handful of steps) writes well-formed records, tables
// and charts; a rerun redoes nothing; an interrupted sweep records a finished
// cell from its files and resumes a cell cut short from its checkpoint; a
// failing cell is recorded, not fatal; `plot` draws curves.
// The program is $ATTNZOO_BIN (default build/attnzoo); gnuplot must be installed.
#include <doctest/doctest.h>

#include <algorithm>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "data/text/text.h"  // SplitMix64
#include "train/checkpoint.h"
#include "train/lab/lra.h"
#include "train/lab/plot.h"
#include "tests/util.h"

using namespace az;
using az::test::contains;
namespace fs = std::filesystem;

namespace {

// A fresh folder, removed when the suite exits (also where a case fails or forgets to remove it:
// 211 were left in /tmp over a day of runs before this).
std::string temp_dir() {
  static struct Made {
    std::vector<std::string> dirs;
    ~Made() {
      std::error_code ec;
      for (const std::string& d : dirs) fs::remove_all(d, ec);
    }
  } made;
  char tmpl[] = "/tmp/az_test_lra_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  made.dirs.push_back(tmpl);
  return tmpl;
}

using az::test::run_cli;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

size_t count_lines(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) n += !line.empty();
  return n;
}

// Modification times of every file under dir/cells: a cell that reran changes its files.
std::map<std::string, fs::file_time_type> cell_mtimes(const std::string& dir) {
  std::map<std::string, fs::file_time_type> m;
  for (auto& e : fs::recursive_directory_iterator(dir + "/cells"))
    if (e.is_regular_file()) m[e.path().string()] = e.last_write_time();
  return m;
}

const std::string kSweep = "lra --preset tiny --models full,local --tasks listops,pathfinder --threads 1 --out ";

}  // namespace

TEST_CASE("flat JSON objects: our metrics lines parse, malformed ones are refused") {
  JsonObject o;
  REQUIRE(parse_json_object("{\"step\": 20, \"loss\": 2.41325, \"final\": true, \"id\": \"a \\\"b\\\" \\\\c\"}", &o));
  CHECK(json_number(o, "step", -1) == 20);
  CHECK(json_number(o, "loss", -1) == doctest::Approx(2.41325));
  CHECK(json_text(o, "final") == "true");
  CHECK(json_text(o, "id") == "a \"b\" \\c");
  CHECK(json_number(o, "id", -1) == -1);    // not a number
  CHECK(json_number(o, "none", 7) == 7);   // missing
  REQUIRE(parse_json_object(" { } ", &o));
  CHECK(o.empty());
  for (const char* bad : {"", "{", "{\"a\": 1", "{\"a\" 1}", "{\"a\": 1,}", "{\"a\": {\"b\": 1}}", "[1, 2]", "{\"a\": \"x}"})
    CHECK_MESSAGE(!parse_json_object(bad, &o), bad);
  // a round trip through json_quote
  REQUIRE(parse_json_object("{\"k\": " + json_quote("tab\there \"q\" back\\slash\nline") + "}", &o));
  CHECK(json_text(o, "k") == "tab\there \"q\" back\\slash\nline");
  // read_jsonl skips a line cut short by an interrupted write
  std::string dir = temp_dir();
  std::ofstream(dir + "/r.jsonl") << "{\"a\": 1}\n{\"a\": 2}\n{\"a\": 3, \"b\n";
  auto rows = read_jsonl(dir + "/r.jsonl");
  REQUIRE(rows.size() == 2);
  CHECK(json_number(rows[1], "a", 0) == 2);
  fs::remove_all(dir);
}

TEST_CASE("lra_row: a preset row from named train flags, every mistake named") {
  const LraRow r = lra_row({128, 10, 2, 3, {}},
                           "--dim 64 --heads 4 --layers 2 --ffn 128 --steps 600 --batch 16 --warmup 60 --eval-every 150 --lr 1e-3");
  CHECK(r.data.seq_len == 128);
  CHECK(r.data.n_test == 3);
  CHECK(r.dim == 64);
  CHECK(r.heads == 4);
  CHECK(r.layers == 2);
  CHECK(r.ffn == 128);
  CHECK(r.steps == 600);
  CHECK(r.batch == 16);
  CHECK(r.warmup == 60);
  CHECK(r.eval_every == 150);
  CHECK(r.lr == doctest::Approx(1e-3));
  const std::string ok = "--heads 4 --layers 2 --ffn 128 --steps 600 --batch 16 --warmup 60 --eval-every 150 --lr 1e-3";
  const std::pair<std::string, const char*> bad[] = {
      {ok, "missing --dim"},
      {"--dim 64 " + ok + " --dim 32", "--dim given twice"},
      {"--dims 64 " + ok, "unknown setting --dims"},
      {"--dim 6x4 " + ok, "--dim 6x4"},
      {"--dim -1 " + ok, "--dim -1"},
      {"--dim 64 --heads 4 --layers 2 --ffn 128 --steps 600 --batch 16 --warmup 60 --eval-every 150 --lr 0", "--lr 0"},
      {"--dim 64 " + ok + " --lr", "--lr has no value"}};
  for (const auto& [flags, what] : bad) {
    CAPTURE(flags);
    CHECK_THROWS_WITH_AS(lra_row({}, flags), doctest::Contains(what), Error);
  }
}

TEST_CASE("the presets: every task, one model and budget per task, LRA's lengths in full") {
  for (const char* name : {"quick", "mini", "full", "tiny"}) {
    CAPTURE(name);
    const LraPreset& p = lra_preset(name);
    std::vector<LraTask> tasks = lra_tasks(p);
    std::vector<std::string> names = lra_task_names(p);
    for (const char* t : {"listops", "text", "image", "pathfinder"})  // in LRA's column order
      CHECK(std::find(names.begin(), names.end(), t) != names.end());
    for (size_t i = 1; i < tasks.size(); ++i) CHECK(task_info(tasks[i - 1].name).lra.order <= task_info(tasks[i].name).lra.order);
    for (auto& t : tasks) {
      CAPTURE(t.name);
      CHECK(t.dim % t.heads == 0);
      CHECK(t.eval_every <= t.steps);
      CHECK(t.warmup < t.steps);
      CHECK(t.data.seq_len > 0);
      CHECK(!task_info(t.name).lra.title.empty());
      CHECK(!task_info(t.name).lra.describe(t.data).empty());
      if (t.name == "image") CHECK(t.data.seq_len == 784);  // Fashion-MNIST pixels, one token each
      if (t.name == "pathfinder") {
        int64_t side = int64_t(std::lround(std::sqrt(double(t.data.seq_len))));
        CHECK(side * side == t.data.seq_len);
        CHECK(std::stoi(t.data.extra.at("dashes")) >= 3);
      }
      if (t.name == "listops") CHECK(std::stoi(t.data.extra.at("min")) < t.data.seq_len);
    }
    REQUIRE(p.bench.lengths.size() == 3);
    CHECK(p.bench.lengths[0] < p.bench.lengths[1]);
    CHECK(p.bench.lengths[1] < p.bench.lengths[2]);
    CHECK(p.cell_timeout_s > 0);
  }
  const LraPreset& full = lra_preset("full");
  std::map<std::string, LraTask> by_name;
  for (auto& t : lra_tasks(full)) by_name[t.name] = t;
  CHECK(by_name["listops"].data.seq_len == 2000);  // ListOps 500-2000 tokens
  CHECK(by_name["listops"].data.extra.at("min") == "500");
  CHECK(by_name["pathfinder"].data.seq_len == 1024);  // Pathfinder-32
  CHECK(by_name["pathfinder"].data.extra.at("dashes") == "14");
  CHECK(full.bench.lengths == std::vector<int64_t>{1024, 2048, 4096});
  CHECK_THROWS_WITH_AS(lra_preset("huge"), doctest::Contains("valid: quick, mini, full"), std::exception);
  // LRA's published rows: the average over the four tasks
  double sum = 0;
  for (auto& p : lra_published())
    if (p.ours == "full")
      for (const char* t : {"listops", "text", "image", "pathfinder"}) sum += lra_published_accuracy(p, t);
  CHECK(sum / 4 == doctest::Approx((36.37 + 64.27 + 42.44 + 71.40) / 4));
}

TEST_CASE("a tiny sweep writes results.jsonl, bench.jsonl, results.md and the charts; a rerun redoes nothing") {
  std::string dir = temp_dir(), out;
  REQUIRE_MESSAGE(run_cli(kSweep + dir, &out) == 0, out);
  CHECK(out.find("10 cells, 0 already done, 10 to run") != std::string::npos);

  // one record per training cell, each well formed
  auto rows = read_jsonl(dir + "/results.jsonl");
  REQUIRE(count_lines(dir + "/results.jsonl") == 4);
  REQUIRE(rows.size() == 4);
  std::map<std::string, int> ids;
  for (auto& r : rows) {
    CAPTURE(json_text(r, "id"));
    ids[json_text(r, "id")]++;
    CHECK(json_text(r, "status") == "ok");
    CHECK(json_text(r, "kind") == "train");
    double acc = json_number(r, "test_acc", -1);
    CHECK((acc >= 0 && acc <= 1));
    CHECK(json_number(r, "majority_rate", -1) > 0);
    CHECK(json_number(r, "steps", 0) == 4);
    CHECK(json_number(r, "steps_per_s", 0) > 0);
    CHECK(json_number(r, "peak_rss_mb", 0) > 1);
    CHECK(json_number(r, "params", 0) > 0);
    // where it ran: the build, and the CPU with its family and model numbers and SIMD level
    CHECK(json_text(r, "build").size() >= 7);
    CHECK(json_text(r, "cpu").find(" (family ") != std::string::npos);
    CHECK(!json_text(r, "simd").empty());
    CHECK(json_text(r, "key").find("--model " + json_text(r, "model")) != std::string::npos);
    CHECK(fs::exists(dir + "/cells/" + json_text(r, "id") + "/best.ckpt"));
    CHECK(fs::exists(dir + "/cells/" + json_text(r, "id") + "/curves.png"));
  }
  CHECK(ids == std::map<std::string, int>{{"listops-full", 1}, {"listops-local", 1}, {"pathfinder-full", 1},
                                          {"pathfinder-local", 1}});
  // one record per bench cell: two models at three lengths
  auto bench = read_jsonl(dir + "/bench.jsonl");
  REQUIRE(bench.size() == 6);
  for (auto& b : bench) {
    CAPTURE(json_text(b, "id"));
    CHECK(json_text(b, "status") == "ok");
    CHECK(json_number(b, "steps_per_s", 0) > 0);
    CHECK(json_number(b, "peak_rss_mb", 0) > 1);
  }

  // results.md: Table 1 with LRA's rows beside ours, Table 2, the chart, the preset
  std::string md = slurp(dir + "/results.md");
  for (const char* s : {"## Test results, LRA Table 1 layout", "| ListOps | Pathfinder | LRA avg | Score |", "| **full** | dense |",
                        "| *LRA: Transformer* |", "*36.37*", "| **local** | fixed |", "| *LRA: Local Attention* |",
                        "chance (majority class)", "## Speed and memory, LRA Table 2 layout", "steps/s 64", "peak memory 64",
                        "](chart.svg)", "## The preset `tiny`", "attnzoo lra --preset tiny",
                        "The records were made on ", "(10 records, build "})
    CHECK_MESSAGE(md.find(s) != std::string::npos, s);
  CHECK(md.find("Failed cells") == std::string::npos);
  // charts: an SVG document and a PNG file, drawn by gnuplot from chart.gp
  CHECK(slurp(dir + "/chart.svg").find("<svg") != std::string::npos);
  CHECK(slurp(dir + "/chart.svg").find(">local<") != std::string::npos);  // a labelled bubble
  CHECK(slurp(dir + "/chart.png").substr(0, 8) == "\x89PNG\r\n\x1a\n");
  CHECK(fs::exists(dir + "/chart.gp"));
  // and one per task, linked from the report
  for (const char* t : {"listops", "pathfinder"}) {
    CAPTURE(t);
    CHECK(slurp(dir + "/chart-" + t + ".svg").find(">local<") != std::string::npos);
    CHECK(slurp(dir + "/chart-" + t + ".png").substr(0, 8) == "\x89PNG\r\n\x1a\n");
    CHECK(md.find(std::string("](chart-") + t + ".svg)") != std::string::npos);
  }
  {  // a sweep in progress: no Pathfinder record yet, so no model has an average; the ListOps chart is still drawn
    std::string part = temp_dir();
    fs::copy(dir, part, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    for (const char* f : {"/chart.svg", "/chart-listops.svg", "/chart-pathfinder.svg"}) fs::remove(part + f);
    std::istringstream all(slurp(dir + "/results.jsonl"));
    std::ofstream keep(part + "/results.jsonl");
    for (std::string line; std::getline(all, line);) {
      if (line.find("\"pathfinder-") != std::string::npos) continue;
      // and one record from before records named their machine
      if (line.find("\"id\": \"listops-local\"") != std::string::npos) line.replace(line.find("\"cpu\""), 5, "\"old\"");
      keep << line << "\n";
    }
    keep.close();
    REQUIRE_MESSAGE(run_cli(kSweep + part + " --report-only", &out) == 0, out);
    std::string pmd = slurp(part + "/results.md");
    CHECK(pmd.find("so the main chart is not drawn") != std::string::npos);
    CHECK(pmd.find("(7 records, build ") != std::string::npos);  // six bench cells and listops-full
    CHECK(pmd.find("; 1 record names no machine (written before records did)") != std::string::npos);
    CHECK(pmd.find("](chart.svg)") == std::string::npos);
    CHECK(!fs::exists(part + "/chart.svg"));
    CHECK(slurp(part + "/chart-listops.svg").find(">local<") != std::string::npos);
    CHECK(pmd.find("](chart-listops.svg)") != std::string::npos);
    CHECK(!fs::exists(part + "/chart-pathfinder.svg"));
    fs::remove_all(part);
  }

  // rerun: every cell is skipped, no cell's files are touched, no record is added
  auto before = cell_mtimes(dir);
  REQUIRE_MESSAGE(run_cli(kSweep + dir, &out) == 0, out);
  CHECK(out.find("10 cells, 10 already done, 0 to run") != std::string::npos);
  CHECK(cell_mtimes(dir) == before);
  CHECK(count_lines(dir + "/results.jsonl") == 4);
  CHECK(count_lines(dir + "/bench.jsonl") == 6);

  // an interrupted sweep: the last cell's record never got written, though the cell had
  // finished; it is recorded from its files (only its curves are redrawn), nothing retrains
  std::string text = slurp(dir + "/results.jsonl");
  text.erase(text.rfind('\n', text.size() - 2) + 1);
  std::ofstream(dir + "/results.jsonl") << text << "{\"id\": \"pathfinder-local\", \"kind\": \"tr";  // cut short
  REQUIRE_MESSAGE(run_cli(kSweep + dir, &out) == 0, out);
  CHECK(out.find("10 cells, 9 already done, 1 to run") != std::string::npos);
  CHECK(out.find("pathfinder-local finished before the sweep stopped: recording it") != std::string::npos);
  auto after = cell_mtimes(dir);
  for (auto& [path, t] : before) {
    CAPTURE(path);
    CHECK((path.find("/pathfinder-local/curves.") != std::string::npos) == (after[path] != t));
  }
  rows = read_jsonl(dir + "/results.jsonl");
  CHECK(rows.size() == 4);
  CHECK(json_text(rows.back(), "id") == "pathfinder-local");

  // a changed budget is a different cell: --steps-scale 2 reruns the ListOps cells
  REQUIRE_MESSAGE(run_cli(kSweep + dir + " --tasks listops --no-bench --steps-scale 2", &out) == 2, out);  // --tasks twice
  REQUIRE_MESSAGE(run_cli("lra --preset tiny --models full --tasks listops --threads 1 --no-bench --steps-scale 2 --out " + dir, &out) == 0, out);
  CHECK(out.find("1 cells, 0 already done, 1 to run") != std::string::npos);
  rows = read_jsonl(dir + "/results.jsonl");
  CHECK(json_number(rows.back(), "steps", 0) == 8);
  fs::remove_all(dir);
}

TEST_CASE("--merge: two sweeps run side by side on different models make one report") {
  std::string a = temp_dir(), b = temp_dir(), both = temp_dir(), out;
  const std::string run = "lra --preset tiny --tasks listops --threads 1 --no-bench ";
  REQUIRE_MESSAGE(run_cli(run + "--models full --out " + a, &out) == 0, out);
  REQUIRE_MESSAGE(run_cli(run + "--models local --out " + b, &out) == 0, out);
  REQUIRE_MESSAGE(run_cli(run + "--models full,local --report-only --merge " + a + "," + b + " --out " + both, &out) == 0, out);
  CHECK_MESSAGE(out.find("lra: --merge: 1 new records from " + a) != std::string::npos, out);
  CHECK(count_lines(both + "/results.jsonl") == 2);
  std::string md = slurp(both + "/results.md");
  CHECK(md.find("| **full** |") != std::string::npos);
  CHECK(md.find("| **local** |") != std::string::npos);
  // again: nothing new, each line once; the merged folder then runs nothing more
  REQUIRE_MESSAGE(run_cli(run + "--models full,local --merge " + a + "," + b + " --out " + both, &out) == 0, out);
  CHECK(out.find("lra: --merge: 0 new records from " + b) != std::string::npos);
  CHECK(out.find("2 cells, 2 already done, 0 to run") != std::string::npos);
  CHECK(count_lines(both + "/results.jsonl") == 2);
  // a folder that is no sweep, or the --out folder itself, is refused in one line
  CHECK(run_cli(run + "--report-only --merge " + both + "/nothing --out " + both, &out) != 0);
  CHECK(out.find("holds no results.jsonl or bench.jsonl (expected a sweep's --out folder)") != std::string::npos);
  CHECK(run_cli(run + "--report-only --merge " + both + " --out " + both, &out) != 0);
  CHECK(out.find("is the --out folder itself") != std::string::npos);
  for (auto& d : {a, b, both}) fs::remove_all(d);
}

TEST_CASE("a MODEL+TAG row's settings reach its bench cells as well as its training cells") {
  // (issue 66: the bench cells of a tagged row ran with the base model's settings, so reformer+lra was
  // benched as the paper's form; the other tagged-row tests run with --no-bench)
  std::string dir = temp_dir(), out;
  REQUIRE_MESSAGE(run_cli("lra --preset tiny --tasks listops --models local,local+w3 --model-args 'local+w3=--window 3' "
                          "--dry-run --out " + dir, &out) == 0, out);
  int bench_own = 0, bench_base = 0, train_own = 0, train_base = 0;
  std::istringstream lines(out);
  for (std::string l; std::getline(lines, l);) {
    const bool own = contains(l, " --window 3");
    if (l.rfind("attnzoo bench --model local ", 0) == 0) ++(own ? bench_own : bench_base);
    if (l.rfind("attnzoo train ", 0) == 0 && contains(l, "--model local ")) {
      ++(own ? train_own : train_base);
      CHECK(own == contains(l, "cells/listops-local+w3 "));  // the row's own settings, in its own cell
    }
  }
  CHECK(train_own == 1);
  CHECK(train_base == 1);
  CHECK(bench_own == 3);   // the tiny preset benches 3 lengths, each row at each
  CHECK(bench_base == 3);
}

TEST_CASE("a row of its own: MODEL+TAG trains MODEL with its --model-args and is reported under its own name") {
  std::string dir = temp_dir(), out;
  const std::string run = "lra --preset tiny --tasks listops --threads 1 --no-bench --models local,local+w3 ";
  REQUIRE_MESSAGE(run_cli(run + "--model-args 'local+w3=--window 3' --out " + dir, &out) == 0, out);
  auto rows = read_jsonl(dir + "/results.jsonl");
  REQUIRE(rows.size() == 2);
  std::map<std::string, std::string> key;  // model (row) -> its cell's command
  for (auto& r : rows) key[json_text(r, "model")] = json_text(r, "key");
  REQUIRE(key.count("local+w3"));
  CHECK(contains(key["local+w3"], "--model local --seq-len"));
  CHECK(contains(key["local+w3"], "--window 3"));
  CHECK(!contains(key["local"], "--window 3"));
  CHECK(fs::exists(dir + "/cells/listops-local+w3/best.ckpt"));
  std::string md = slurp(dir + "/results.md");
  CHECK(contains(md, "| **local+w3** | fixed |"));
  CHECK(contains(md, "| **local** | fixed |"));
  // a row without its settings, an empty tag, or an unknown model before the '+' is refused in one line
  CHECK(run_cli("lra --preset tiny --models local+w3 --dry-run --out " + dir, &out) == 2);
  CHECK(contains(out, "local+w3 is a row of local with settings of its own: give them in --model-args 'local+w3=--flag value'"));
  CHECK(run_cli("lra --preset tiny --models local+ --dry-run --out " + dir, &out) == 2);
  CHECK(contains(out, "needs a tag after the '+'"));
  CHECK(run_cli("lra --preset tiny --models nope+x --model-args 'nope+x=--window 3' --dry-run --out " + dir, &out) == 2);
  CHECK(contains(out, "unknown model 'nope'"));
  fs::remove_all(dir);
}

TEST_CASE("a failing cell is recorded with its message and the sweep goes on; --retry-failed reruns it") {
  std::string dir = temp_dir(), out;
  std::string cmd = "lra --preset tiny --models local,full --tasks listops --threads 1 --no-bench "
                    "--model-args 'local=--window 0' --out " + dir;
  REQUIRE_MESSAGE(run_cli(cmd, &out) == 0, out);
  CHECK(out.find("listops-local: FAILED") != std::string::npos);
  CHECK(out.find("(1 failed cells)") != std::string::npos);
  auto rows = read_jsonl(dir + "/results.jsonl");
  REQUIRE(rows.size() == 2);
  CHECK(json_text(rows[0], "id") == "listops-local");
  CHECK(json_text(rows[0], "status") == "failed");
  CHECK(json_text(rows[0], "error").find("--window 0 out of range for model 'local'") != std::string::npos);
  CHECK(json_text(rows[1], "id") == "listops-full");  // the sweep went on
  CHECK(json_text(rows[1], "status") == "ok");
  std::string md = slurp(dir + "/results.md");
  CHECK(md.find("## Failed cells") != std::string::npos);
  CHECK(md.find("| listops-local |") != std::string::npos);
  CHECK(md.find("| **local** | fixed | failed |") != std::string::npos);
  // a failure is a finished cell: a rerun skips it, --retry-failed runs it again
  REQUIRE(run_cli(cmd, &out) == 0);
  CHECK(out.find("2 cells, 2 already done, 0 to run") != std::string::npos);
  REQUIRE(run_cli(cmd + " --retry-failed", &out) == 0);
  CHECK(out.find("2 cells, 1 already done, 1 to run") != std::string::npos);
  CHECK(count_lines(dir + "/results.jsonl") == 3);
  fs::remove_all(dir);
}

TEST_CASE("a training cell cut short resumes from its checkpoint and ends as if never stopped; a changed cell starts afresh") {
  std::string a = temp_dir(), b = temp_dir(), out;
  const std::string cmd = "lra --preset tiny --models full --tasks listops --threads 1 --no-bench --out ";
  REQUIRE_MESSAGE(run_cli(cmd + a, &out) == 0, out);
  // stopped after step 2 of 4 (a validation step): no record, the checkpoint kept
  REQUIRE_MESSAGE(run_cli(cmd + b + " --stop-after 2", &out) == 0, out);
  CHECK(out.find("listops-full: stopped after step 2 of 4 (cells/listops-full/last.ckpt); a rerun resumes it") !=
        std::string::npos);
  CHECK(count_lines(b + "/results.jsonl") == 0);
  std::string cell = b + "/cells/listops-full";
  REQUIRE(fs::exists(cell + "/last.ckpt"));
  REQUIRE(run_cli(cmd + b + " --dry-run", &out) == 0);  // says where each cell stands
  CHECK(out.find("--out cells/listops-full --quiet  # resumes from step 2 of 4") != std::string::npos);
  // as if the first part had run 1000 s (500 of CPU) and been killed after logging step 3
  std::ofstream(cell + "/metrics.jsonl", std::ios::app)
      << "{\"step\": 2, \"interrupted\": 15, \"elapsed\": 1000, \"cpu_seconds\": 500, \"peak_rss_mb\": 5000}\n"
      << "{\"step\": 3, \"loss\": 9, \"train_acc\": 0, \"lr\": 0, \"grad_norm\": 0, \"elapsed\": 1001}\n";
  REQUIRE_MESSAGE(run_cli(cmd + b, &out) == 0, out);
  CHECK(out.find("listops-full resumes from step 2 of 4 (cells/listops-full/last.ckpt)") != std::string::npos);
  CHECK(slurp(cell + "/stderr.log").find("resume: dropped 1 line(s) after step 2") != std::string::npos);
  auto ra = read_jsonl(a + "/results.jsonl"), rb = read_jsonl(b + "/results.jsonl");
  REQUIRE(ra.size() == 1);
  REQUIRE(rb.size() == 1);
  CHECK(json_text(rb[0], "status") == "ok");
  for (const char* k : {"test_acc", "best_val_acc", "best_step", "test_examples", "steps", "params"}) {
    CAPTURE(k);
    CHECK(json_text(rb[0], k) == json_text(ra[0], k));  // the same numbers, bit for bit
  }
  CHECK(json_text(rb[0], "resumed_from_steps") == "2");
  REQUIRE(run_cli(cmd + b + " --dry-run", &out) == 0);
  CHECK(out.find("--quiet  # done, test " + json_text(rb[0], "test_acc")) != std::string::npos);
  CHECK(json_text(ra[0], "resumed_from_steps", "none") == "none");
  // the clocks go on from the first part's: the cell's cost is both parts'
  CHECK(json_number(rb[0], "wall_seconds", 0) >= 1000);
  CHECK(json_number(rb[0], "cpu_seconds", 0) >= 500);
  CHECK(json_number(rb[0], "train_seconds", 0) >= 1000);
  CHECK(json_number(rb[0], "peak_rss_mb", 0) >= 5000);
  CHECK(json_number(rb[0], "steps_per_s", 0) > 0);
  int step4 = 0;
  for (auto& m : read_jsonl(cell + "/metrics.jsonl")) {
    CHECK(json_number(m, "step", 0) <= 4);
    CHECK(json_text(m, "loss") != "9");  // the line logged after the checkpoint is gone
    if (json_number(m, "step", 0) == 4 && m.count("val_acc")) {
      ++step4;
      CHECK(json_number(m, "elapsed", 0) >= 1000);
      CHECK(json_number(m, "cpu_seconds", 0) >= 500);
    }
  }
  CHECK(step4 == 1);
  // stopped at its last step, before its test: the rerun only tests it
  std::string d = temp_dir();
  REQUIRE_MESSAGE(run_cli(cmd + d + " --stop-after 4", &out) == 0, out);
  CHECK(out.find("listops-full: stopped after step 4 of 4") != std::string::npos);
  REQUIRE_MESSAGE(run_cli(cmd + d, &out) == 0, out);
  CHECK(out.find("listops-full resumes from step 4 of 4") != std::string::npos);
  CHECK(slurp(d + "/cells/listops-full/stderr.log").find("it stopped before its test, which runs now") != std::string::npos);
  auto rd = read_jsonl(d + "/results.jsonl");
  REQUIRE(rd.size() == 1);
  CHECK(json_text(rd[0], "test_acc") == json_text(ra[0], "test_acc"));
  // trained and tested, but the sweep stopped before its record: recorded from its files, not rerun
  fs::remove(d + "/results.jsonl");
  auto trained = [&] {  // what a rerun of the cell would rewrite (its curves are redrawn either way)
    std::string c = d + "/cells/listops-full/";
    return std::vector<fs::file_time_type>{fs::last_write_time(c + "metrics.jsonl"), fs::last_write_time(c + "best.ckpt"),
                                           fs::last_write_time(c + "last.ckpt")};
  };
  auto before = trained();
  REQUIRE_MESSAGE(run_cli(cmd + d, &out) == 0, out);
  CHECK(out.find("listops-full finished before the sweep stopped: recording it") != std::string::npos);
  CHECK(trained() == before);
  rd = read_jsonl(d + "/results.jsonl");
  REQUIRE(rd.size() == 1);
  CHECK(json_text(rd[0], "status") == "ok");
  CHECK(json_text(rd[0], "test_acc") == json_text(ra[0], "test_acc"));
  CHECK(json_text(rd[0], "resumed_from_steps") == "4");
  fs::remove_all(d);
  // a cell whose configuration changed (here its budget) does not resume another's checkpoint
  std::string c = temp_dir();
  REQUIRE_MESSAGE(run_cli(cmd + c + " --stop-after 2", &out) == 0, out);
  REQUIRE_MESSAGE(run_cli(cmd + c + " --steps-scale 2", &out) == 0, out);
  CHECK(out.find("resumes") == std::string::npos);
  auto rc = read_jsonl(c + "/results.jsonl");
  REQUIRE(rc.size() == 1);
  CHECK(json_text(rc[0], "steps") == "8");
  CHECK(json_text(rc[0], "resumed_from_steps", "none") == "none");
  CHECK(run_cli(cmd + c + " --stop-after -1", &out) == 2);
  CHECK(out.find("--stop-after must not be negative") != std::string::npos);
  for (auto& d : {a, b, c}) fs::remove_all(d);
}

TEST_CASE("SIGTERM to a sweep: the running cell saves its checkpoint, the sweep stops (143), a rerun resumes it") {
  std::string dir = temp_dir();
  // a cell long enough to be caught mid-way (4,000 tiny steps, a validation at 2,000)
  std::string args = "lra --preset tiny --models full --tasks listops --threads 1 --no-bench --steps-scale 1000 --out " + dir;
  std::string cmd = "exec " + az::test::attnzoo_cmd() + " " + args + " > " + dir + "/sweep.log 2>&1";
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), (char*)nullptr);
    _exit(127);
  }
  std::string metrics = dir + "/cells/listops-full/metrics.jsonl";
  bool stepping = false;
  for (int i = 0; i < 600 && !stepping; ++i) {  // until the cell has logged a step (at most a minute)
    usleep(100000);
    stepping = slurp(metrics).find("\"loss\"") != std::string::npos;
  }
  REQUIRE(stepping);
  kill(pid, SIGTERM);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  std::string log = slurp(dir + "/sweep.log");
  INFO(log);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 143);
  CHECK(log.find("lra: interrupted by SIGTERM; the same command resumes the sweep") != std::string::npos);
  CHECK(log.find("stopped after step ") != std::string::npos);
  CHECK(count_lines(dir + "/results.jsonl") == 0);
  int64_t at = load_checkpoint(dir + "/cells/listops-full/last.ckpt").step;  // saved at the signal, not at a validation
  CHECK(at > 0);
  CHECK(at < 4000);
  int interrupted = 0;  // the line that holds the clocks at that step
  for (auto& m : read_jsonl(metrics)) interrupted += json_text(m, "interrupted") == "15" && json_number(m, "step", 0) == at;
  CHECK(interrupted == 1);
  // the rerun goes on from that step
  std::string out;
  REQUIRE_MESSAGE(run_cli(args, &out) == 0, out);
  CHECK(out.find("listops-full resumes from step " + std::to_string(at) + " of 4000") != std::string::npos);
  auto rows = read_jsonl(dir + "/results.jsonl");
  REQUIRE(rows.size() == 1);
  CHECK(json_text(rows[0], "status") == "ok");
  CHECK(json_text(rows[0], "resumed_from_steps") == std::to_string(at));
  fs::remove_all(dir);
}

TEST_CASE("lra refuses bad flags with one line naming the valid values; --dry-run lists the cells") {
  std::string out;
  CHECK(run_cli("lra --preset huge --out /tmp/x", &out) == 2);
  CHECK(out.find("unknown preset 'huge' (valid: quick, mini, full)") != std::string::npos);
  CHECK(run_cli("lra --out /tmp/x", &out) == 2);
  CHECK(out.find("--preset is required") != std::string::npos);
  CHECK(run_cli("lra --preset tiny --models full,nosuch --out /tmp/x", &out) == 2);
  CHECK(out.find("unknown model 'nosuch' (valid: ") != std::string::npos);
  CHECK(run_cli("lra --preset tiny --tasks listops,nope --out /tmp/x", &out) == 2);
  CHECK(out.find("unknown task 'nope' (valid: listops, text, retrieval, image, pathfinder, ") != std::string::npos);
  // a model's flags keep their values: 'global=--globals 4 --learned 1' is two flags with values
  CHECK(run_cli("lra --preset tiny --models global,local --tasks listops --no-bench --dry-run "
                "--model-args 'global=--globals 4 --learned 1; local = --window 3' --out /tmp/x", &out) == 0);
  CHECK(out.find("--model global --seq-len") != std::string::npos);
  CHECK(out.find(" --globals 4 --learned 1 --out cells/listops-global ") != std::string::npos);
  CHECK(out.find(" --window 3 --out cells/listops-local ") != std::string::npos);
  CHECK(run_cli("lra --preset tiny --model-args 'local --window 3' --out /tmp/x", &out) == 2);
  CHECK(out.find("expected MODEL=--flag value") != std::string::npos);
  CHECK(run_cli("lra --preset tiny --steps-scale 0 --out /tmp/x", &out) == 2);
  CHECK(run_cli("lra --preset tiny --bogus 1 --out /tmp/x", &out) == 2);
  CHECK(out.find("unknown flag --bogus") != std::string::npos);
  CHECK(!fs::exists("/tmp/x/cells"));
  // --dry-run: every model, flash too; the bench cells follow the training cells
  REQUIRE(run_cli("lra --preset quick --dry-run --out /tmp/x", &out) == 0);
  CHECK(out.find("--model flash") != std::string::npos);
  CHECK(out.find("train --task listops --data data/listops --model full --seq-len 128") != std::string::npos);
  CHECK(out.find("bench --model full --seq-len 4096") != std::string::npos);
  REQUIRE(run_cli("lra --preset quick --models flash --tasks image --dry-run --out /tmp/x", &out) == 0);
  CHECK(out.find("# 4 cells") != std::string::npos);
  CHECK(out.find("--task image-folder --data data/image --channels 1 --model flash") != std::string::npos);
  CHECK(!fs::exists("/tmp/x/cells"));
}

TEST_CASE("plot draws a run's curves as SVG and PNG, and names a missing run") {
  std::string dir = temp_dir(), out;
  std::ofstream(dir + "/metrics.jsonl")
      << "{\"step\": 10, \"loss\": 2.3, \"train_acc\": 0.10, \"lr\": 1e-4, \"grad_norm\": 3, \"elapsed\": 1.0}\n"
         "{\"step\": 20, \"loss\": 2.1, \"train_acc\": 0.20, \"lr\": 1e-4, \"grad_norm\": 3, \"elapsed\": 2.0}\n"
         "{\"step\": 20, \"val_acc\": 0.25, \"val_loss\": 2.0, \"elapsed\": 2.5}\n"
         "{\"step\": 30, \"loss\": 1.9, \"train_acc\": 0.30, \"lr\": 1e-4, \"grad_norm\": 3, \"elapsed\": 3.5}\n"
         "{\"step\": 30, \"val_acc\": 0.35, \"val_loss\": 1.8, \"elapsed\": 4.0}\n"
         "{\"final\": true, \"best_step\": 30, \"best_val_acc\": 0.35, \"test_acc\": 0.3333333333333333, \"majority_rate\": 0.1}\n";
  REQUIRE_MESSAGE(run_cli("plot --run " + dir, &out) == 0, out);
  std::string svg = slurp(dir + "/curves.svg");
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("validation accuracy") != std::string::npos);
  CHECK(svg.find("test accuracy 0.333 at the best validation step 30") != std::string::npos);  // 3 decimals, not 16
  CHECK(slurp(dir + "/curves.png").substr(0, 4) == "\x89PNG");
  CHECK(run_cli("plot --run " + dir + "/nothing", &out) == 2);
  CHECK(out.find(dir + "/nothing/metrics.jsonl does not exist") != std::string::npos);
  CHECK(run_cli("plot", &out) == 2);
  CHECK(out.find("--run DIR is required") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("plot against examples seen, on a log axis, with levels: the data and settings gnuplot is handed, worked out by hand") {
  // (issue 68's curve: accuracy against images seen, the markers' kNN and chance drawn across)
  std::string dir = temp_dir(), out;
  std::ofstream(dir + "/metrics.jsonl")
      << "{\"step\": 10, \"loss\": 2.3, \"train_acc\": 0.10, \"elapsed\": 1.0}\n"
         "{\"step\": 20, \"loss\": 2.1, \"train_acc\": 0.20, \"elapsed\": 2.0}\n"
         "{\"step\": 20, \"val_acc\": 0.25, \"val_loss\": 2.0, \"elapsed\": 2.5}\n"
         "{\"step\": 30, \"val_acc\": 0.35, \"val_loss\": 1.8, \"elapsed\": 4.0}\n";
  // config.json as the trainer writes it: compact, every value a string
  std::ofstream(dir + "/config.json") << "{\"model\":{\"dim\":\"32\",\"model\":\"local\"},\"train\":{\"batch\":\"48\",\"task\":\"pathfinder\"}}\n";
  REQUIRE_MESSAGE(run_cli("plot --run " + dir + " --x examples --log-x --acc-range 0.45:0.8 --levels '0.67=markers kNN,0.5=chance'",
                          &out) == 0, out);
  const std::string gp = slurp(dir + "/curves.gp");
  // x = step x 48: 480, 960 (training), 960, 1440 (validation)
  CHECK(contains(gp, "$train << EOD\n480 2.3 0.10\n960 2.1 0.20\nEOD\n"));
  CHECK(contains(gp, "$val << EOD\n960 2.0 0.25\n1440 1.8 0.35\nEOD\n"));
  CHECK(contains(gp, "title \"local on pathfinder (" + dir + ")\""));  // the model and task, from config.json
  CHECK(contains(gp, "set xlabel 'examples seen'\nset logscale x\n"));
  CHECK(contains(gp, "set yrange [0.45:0.8]"));
  CHECK(contains(gp, ", 0.67 with lines dt 2 lw 1.5 lc rgb '#444444' title \"markers kNN\", 0.5 with lines dt 3 "));
  // against step (the default): x as written, linear, the accuracy panel 0..1, no levels
  REQUIRE_MESSAGE(run_cli("plot --run " + dir, &out) == 0, out);
  const std::string plain = slurp(dir + "/curves.gp");
  CHECK(contains(plain, "$train << EOD\n10 2.3 0.10\n20 2.1 0.20\nEOD\n"));
  CHECK(!contains(plain, "logscale"));
  CHECK(contains(plain, "set yrange [0:1]"));
  CHECK(!contains(plain, "dt 2"));
  // bad flags: one line naming the flag and what it takes
  for (auto [flags, says] : std::vector<std::pair<std::string, std::string>>{
           {"--x epochs", "--x must be step or examples"},
           {"--acc-range 0.8", "--acc-range must be LO:HI"},
           {"--acc-range 0.8:0.4", "needs LO < HI"},
           {"--acc-range 0:2", "HI must be a number in 0..1"},
           {"--levels 0.5", "each of --levels is VALUE=LABEL"},
           {"--levels x=chance", "a level of --levels must be a number in 0..1"}}) {
    CAPTURE(flags);
    CHECK(run_cli("plot --run " + dir + " " + flags, &out) == 2);
    CHECK(contains(out, says));
  }
  fs::remove(dir + "/config.json");
  CHECK(run_cli("plot --run " + dir + " --x examples", &out) == 2);
  CHECK(contains(out, "--x examples needs the run's batch size"));
  fs::remove_all(dir);
}

TEST_CASE("seed statistics: mean, sample standard deviation, binomial error, Welch's test") {
  SeedStats a = seed_stats({30, 32, 34}, 2000);
  CHECK(a.n() == 3);
  CHECK(a.mean == doctest::Approx(32));
  CHECK(a.std == doctest::Approx(2));  // sample (n - 1) deviation
  CHECK(a.se_test == doctest::Approx(100 * std::sqrt(0.32 * 0.68 / 2000)));
  CHECK(seed_stats({50}, 0).std == 0);
  CHECK(seed_stats({50}, 0).se_test == 0);
  // 10 points apart with a spread of 1-2: beyond the seeds; 1 point apart: within them
  CHECK(differs_beyond_seeds(seed_stats({40, 41, 42}, 0), seed_stats({30, 32, 34}, 0)));
  CHECK(!differs_beyond_seeds(seed_stats({33, 31, 35}, 0), seed_stats({30, 32, 34}, 0)));
  // five runs against five without spread: 4 degrees of freedom, critical t 2.78 (not the normal 1.96)
  auto around = [](double m) { return seed_stats({m - 0.5, m + 0.5, m - 0.5, m + 0.5, m}, 0); };  // std 0.5
  SeedStats zero5 = seed_stats({0, 0, 0, 0, 0}, 0);
  CHECK(!differs_beyond_seeds(around(0.559), zero5));  // t = 2.5
  CHECK(differs_beyond_seeds(around(0.7), zero5));     // t = 3.1
  SeedStats x = seed_stats({1, 3}, 0), y = seed_stats({0, 0}, 0);  // t = 2 / 1 = 2 with 1 df: not beyond 12.7
  CHECK(!differs_beyond_seeds(x, y));
  CHECK(differs_beyond_seeds(seed_stats({21, 23}, 0), y));  // t = 22: beyond
  CHECK(!differs_beyond_seeds(seed_stats({40}, 0), y));     // one seed: no claim
  CHECK(differs_beyond_seeds(seed_stats({1, 1}, 0), y));    // no spread at all: any difference
  CHECK(!differs_beyond_seeds(seed_stats({0, 0}, 0), y));
  CHECK(lra_train_id("listops", "full", 1) == "listops-full");
  CHECK(lra_train_id("listops", "full", 3) == "listops-full-s3");
}

TEST_CASE("--seeds 2 trains every cell twice and the report shows mean +- std, the differences and error bars") {
  std::string dir = temp_dir(), out;
  std::string cmd = "lra --preset tiny --models full,local --tasks listops --threads 1 --seeds 2 --out " + dir;
  REQUIRE_MESSAGE(run_cli(cmd, &out) == 0, out);
  CHECK(out.find("x 2 seeds + bench: 10 cells, 0 already done, 10 to run") != std::string::npos);
  auto rows = read_jsonl(dir + "/results.jsonl");
  REQUIRE(rows.size() == 4);
  std::map<std::string, std::string> seed_of;
  for (auto& r : rows) {
    seed_of[json_text(r, "id")] = json_text(r, "seed");
    CHECK(json_number(r, "test_examples", 0) == 16);
    CHECK(json_text(r, "key").find("--seed " + json_text(r, "seed")) != std::string::npos);
  }
  CHECK(seed_of == std::map<std::string, std::string>{{"listops-full", "1"}, {"listops-local", "1"},
                                                       {"listops-full-s2", "2"}, {"listops-local-s2", "2"}});
  // the report's cells are the mean and the sample deviation of the two records
  std::string md = slurp(dir + "/results.md");
  double a = 100 * json_number(rows[0], "test_acc", 0), b = 100 * json_number(rows[2], "test_acc", 0);
  REQUIRE(json_text(rows[0], "id") == "listops-full");
  REQUIRE(json_text(rows[2], "id") == "listops-full-s2");
  char want[64];
  std::snprintf(want, sizeof want, "| **full** | dense | %.1f ± %.1f |", (a + b) / 2, std::fabs(a - b) / std::sqrt(2.0));
  CHECK_MESSAGE(md.find(want) != std::string::npos, want, "\n", md);
  for (const char* s : {"## Difference from full attention\n", "| local |", "test-set standard error (binomial)",
                        "(n=16)", "error bars: ± one standard deviation", "CPU-min |"})
    CHECK_MESSAGE(md.find(s) != std::string::npos, s);
  CHECK(slurp(dir + "/chart.gp").find("with yerrorbars") != std::string::npos);
  CHECK(slurp(dir + "/chart.png").substr(0, 8) == "\x89PNG\r\n\x1a\n");
  {  // known values, full far above local: the score (ListOps alone) separates them into two groups
    std::string text = slurp(dir + "/results.jsonl"), kept;
    std::istringstream all(text);
    std::map<std::string, std::string> acc = {{"listops-full", "0.9375"}, {"listops-full-s2", "0.875"},
                                              {"listops-local", "0.25"}, {"listops-local-s2", "0.3125"}};
    for (std::string line; std::getline(all, line);) {
      JsonObject r;
      REQUIRE(parse_json_object(line, &r));
      size_t at = line.find("\"test_acc\": ") + 12;
      line.replace(at, line.find(',', at) - at, acc.at(json_text(r, "id")));
      at = line.find("\"majority_rate\": ") + 17;
      line.replace(at, line.find(',', at) - at, "0.25");
      kept += line + "\n";
    }
    std::ofstream(dir + "/results.jsonl") << kept;
    REQUIRE_MESSAGE(run_cli(cmd + " --report-only", &out) == 0, out);
    std::string k = slurp(dir + "/results.md");
    CHECK_MESSAGE(k.find("The score separates 2 groups:\n\n1. full 90.6\n2. local 28.1\n") != std::string::npos, k);
    CHECK(k.find("1 of 1 pairs differ.") != std::string::npos);
    CHECK_MESSAGE(k.find("| Model | Score | letters |\n|---|---:|---|\n| full | 90.6 ± 4.4 | a |\n| local | 28.1 ± 4.4 | b |\n") !=
                      std::string::npos, k);
    // the main chart's labels carry the letters
    std::string gp = slurp(dir + "/chart.gp");
    CHECK_MESSAGE(gp.find("\"full (a)\"") != std::string::npos, gp);
    CHECK(gp.find("\"local (b)\"") != std::string::npos);
    std::ofstream(dir + "/results.jsonl") << text;  // as the sweep wrote them
  }
  // one seed more: only the new seed's cells run; a missing seed is shown as such
  REQUIRE_MESSAGE(run_cli("lra --preset tiny --models full,local --tasks listops --threads 1 --seeds 3 --no-bench --out " + dir, &out) == 0, out);
  CHECK(out.find("6 cells, 4 already done, 2 to run") != std::string::npos);
  CHECK(run_cli("lra --preset tiny --seeds 0 --out " + dir, &out) == 2);
  CHECK(out.find("--seeds must be in 1..20") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("--bench-only runs the bench cells alone; with --no-bench it is refused") {
  std::string dir = temp_dir(), out;
  REQUIRE_MESSAGE(run_cli("lra --preset tiny --models full,local --tasks listops --threads 1 --bench-only --out " + dir, &out) == 0, out);
  CHECK(out.find("--bench-only: no training cell runs") != std::string::npos);
  CHECK(!fs::exists(dir + "/results.jsonl"));
  CHECK(read_jsonl(dir + "/bench.jsonl").size() == 6);
  CHECK(slurp(dir + "/results.md").find("## Speed and memory, LRA Table 2 layout") != std::string::npos);
  CHECK(run_cli("lra --preset tiny --bench-only --no-bench --out " + dir, &out) == 2);
  CHECK(out.find("leave nothing to run") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a Text sweep on the user's corpus (--text-data) reports the bag-of-bytes and length baselines") {
  // 200 documents, two classes told apart by their letters: bag of bytes is
  // near 100%, length (random for both classes) near 50%.
  std::string dir = temp_dir(), corpus = dir + "/corpus.tsv", out;
  {
    std::ofstream f(corpus);
    az::SplitMix64 rng(9);
    for (int i = 0; i < 200; ++i) {
      f << (i % 2 ? "spam" : "ham") << "\t";
      for (size_t k = 0, n = 20 + rng.below(40); k < n; ++k) f << char((i % 2 ? 'a' : 'm') + int(rng.below(8)));
      f << "\n";
    }
  }
  REQUIRE_MESSAGE(run_cli("lra --preset tiny --models local --tasks text --threads 1 --no-bench --text-data " + corpus +
                              " --out " + dir + "/sweep", &out) == 0, out);
  std::map<std::string, double> b;
  for (auto& r : read_jsonl(dir + "/sweep/data/text/baselines.jsonl")) b[json_text(r, "name")] = json_number(r, "test_acc", -1);
  REQUIRE(b.size() == 3);
  CHECK(b["majority"] == doctest::Approx(0.5).epsilon(0.2));
  CHECK(b["bag of bytes"] > 0.9);
  CHECK(b["length only"] < 0.8);
  std::string md = slurp(dir + "/sweep/results.md");
  CHECK(md.find("| baseline: bag of bytes | |") != std::string::npos);
  CHECK(md.find("| baseline: length only | |") != std::string::npos);
  // the cell's own run printed them too, on the same data
  std::string log = slurp(dir + "/sweep/cells/text-local/stderr.log");
  char line[160];
  std::snprintf(line, sizeof line, "text: baselines on this data (fit on train, test accuracy): majority %.3f, length only %.3f, bag of bytes %.3f",
                b["majority"], b["length only"], b["bag of bytes"]);
  CHECK_MESSAGE(log.find(line) != std::string::npos, log);
}

TEST_CASE("which model can run which task: from the registries' facts, with the reason") {
  for (auto& m : attention_names()) {
    CAPTURE(m);
    const AttentionInfo& a = attention_info(m);
    std::string why = lra_cannot_run("lm", m);  // lm predicts each byte from the ones before it
    CHECK(why.empty() == a.causal_ok);
    if (!a.causal_ok) {
      CHECK(why.find("no causal form") == 0);
      CHECK(why.find(a.why_not_causal) != std::string::npos);  // the model's own words
    }
    for (const char* t : {"listops", "text", "retrieval", "image", "pathfinder"}) CHECK(lra_cannot_run(t, m).empty());
  }
  CHECK(lra_cannot_run("lm", "fnet") == "no causal form: its Fourier transform over positions mixes every position into each output");
  CHECK(lra_lower_is_better("lm"));
  CHECK(!lra_lower_is_better("listops"));
  JsonObject r = {{"test_acc", "0.25"}, {"test_bits_per_byte", "2.5"}};
  CHECK(lra_value(r, "listops") == doctest::Approx(25));
  CHECK(lra_value(r, "lm") == doctest::Approx(2.5));
}

TEST_CASE("a column counts towards the score when its best model beats chance by more than twice the test error") {
  double margin = 2 * 100 * std::sqrt(0.5 * 0.5 / 2000);  // 2.24 points at 50% on 2000 examples
  CHECK(lra_chance_margin(50, 2000) == doctest::Approx(margin));
  CHECK(lra_beats_chance(50 + margin + 0.01, 50, 2000));
  CHECK(!lra_beats_chance(50 + margin - 0.01, 50, 2000));
  CHECK(!lra_beats_chance(49, 50, 2000));
  CHECK(!lra_beats_chance(99, 50, 0));  // no test size: no claim
  // the mini's Pathfinder (best 50.3 against 50.0) stays out, its Retrieval (55.1 against 50.0, n=2356) is in
  CHECK(!lra_beats_chance(50.3, 50.0, 2000));
  CHECK(lra_beats_chance(55.1, 50.0, 2356));
}

TEST_CASE("the groups a score separates: cuts where every model above differs from every model below") {
  auto s = [](double m) { return seed_stats({m - 0.3, m, m + 0.3}, 0); };
  using G = std::vector<std::vector<size_t>>;
  CHECK(separated_groups({s(62.3), s(62.0), s(61.8), s(56.5), s(56.4)}) == G{{0, 1, 2}, {3, 4}});
  CHECK(separated_groups({s(62.0), s(62.1), s(61.9)}) == G{{0, 1, 2}});
  CHECK(separated_groups({s(70), s(60), s(50)}) == G{{0}, {1}, {2}});
  // a chain: 62 and 61.6 overlap, 61.6 and 61.2 overlap, but 62 and 61.2 differ: no clean cut
  CHECK(separated_groups({s(62.0), s(61.6), s(61.2)}) == G{{0, 1, 2}});
  CHECK(separated_groups({}).empty());
  // neighbours that differ are not enough: the widely spread third overlaps the first
  CHECK(separated_groups({seed_stats({70, 70.1, 69.9}, 0), seed_stats({60, 60.1, 59.9}, 0), seed_stats({40, 55, 70}, 0)}) ==
        G{{0, 1, 2}});
  // one seed: no claim, one group
  CHECK(separated_groups({seed_stats({70}, 0), seed_stats({30}, 0)}) == G{{0, 1}});
}

TEST_CASE("letter groups: models sharing a letter cannot be told apart, models with none in common differ") {
  auto s = [](double m) { return seed_stats({m - 0.3, m, m + 0.3}, 0); };
  using L = std::vector<std::string>;
  CHECK(letter_groups({s(70), s(60), s(50)}) == L{"a", "b", "c"});
  CHECK(letter_groups({s(62.0), s(62.1), s(61.9)}) == L{"a", "a", "a"});
  // the chain no cut splits: 62 and 61.2 differ, 61.6 overlaps both
  CHECK(letter_groups({s(62.0), s(61.6), s(61.2)}) == L{"a", "ab", "b"});
  CHECK(letter_groups({s(62.3), s(62.0), s(61.8), s(56.5), s(56.4)}) == L{"a", "a", "a", "b", "b"});
  // a widely spread model overlaps everyone; the two tight ones still differ
  CHECK(letter_groups({seed_stats({70, 70.1, 69.9}, 0), seed_stats({60, 60.1, 59.9}, 0), seed_stats({40, 55, 70}, 0)}) ==
        L{"a", "b", "ab"});
  // one seed: no claim
  CHECK(letter_groups({seed_stats({70}, 0), seed_stats({30}, 0)}) == L{"a", "a"});
  CHECK(letter_groups({}).empty());
  // the property itself, on a mixed set: a common letter exactly when the pair does not differ
  std::vector<SeedStats> v = {s(72), s(71.8), s(66), seed_stats({50, 60, 70}, 0), s(55.5), s(53), s(52.7), s(47.8)};
  L l = letter_groups(v);
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t j = i + 1; j < v.size(); ++j) {
      CAPTURE(i);
      CAPTURE(j);
      bool common = l[i].find_first_of(l[j]) != std::string::npos;
      CHECK(common == !differs_beyond_seeds(v[i], v[j]));
    }
}

TEST_CASE("a report of every model with an LM column: dashes with reasons, LM never averaged, the score names its columns") {
  std::string dir = temp_dir(), out;
  const std::string tasks = "lra --preset tiny --tasks listops,pathfinder,lm --threads 1 --out " + dir;
  // every model (the default), 3 columns; lm only for the models with a causal form
  REQUIRE_MESSAGE(run_cli(tasks + " --dry-run", &out) == 0, out);
  // cells: listops and pathfinder for every model, lm for the causal ones, then 3 bench lengths each
  std::vector<std::string> models = attention_names();
  const size_t n_models = models.size();
  size_t causal = 0;
  for (auto& m : models) causal += attention_info(m).causal_ok;
  CHECK(out.find("# " + std::to_string(2 * n_models + causal + 3 * n_models) + " cells") != std::string::npos);
  CHECK(out.find("# lm-fnet: not run, fnet cannot run lm: no causal form: its Fourier transform") != std::string::npos);
  CHECK(out.find("--model fnet --seq-len 32") == std::string::npos);
  REQUIRE_MESSAGE(run_cli(tasks + " --no-bench", &out) == 0, out);
  CHECK(out.find("(0 failed cells)") != std::string::npos);
  REQUIRE_MESSAGE(run_cli("lra --preset tiny --models full,local,fnet --tasks listops --threads 1 --bench-only --out " + dir, &out) == 0, out);
  auto rows = read_jsonl(dir + "/results.jsonl");
  REQUIRE(rows.size() == 2 * n_models + causal);
  for (auto& r : rows) {
    CAPTURE(json_text(r, "id"));
    CHECK(json_text(r, "status") == "ok");
    if (json_text(r, "task") != "lm") continue;
    CHECK(attention_info(json_text(r, "model")).causal_ok);
    double bpb = json_number(r, "test_bits_per_byte", -1);
    CHECK((bpb > 0 && bpb < 8.5));  // about uniform after 4 steps of a tiny model
    // the cell's own result line says the same (in bits, not nats)
    char line[64];
    std::snprintf(line, sizeof line, "test bits per byte %.4f", bpb);
    CHECK_MESSAGE(slurp(dir + "/cells/" + json_text(r, "id") + "/stdout.log").find(line) != std::string::npos, line);
    CHECK(json_number(r, "majority_rate", 1) < 0.5);  // the commonest byte, not a constant label
  }
  CHECK(read_jsonl(dir + "/data/lm/baselines.jsonl").size() == 2);  // unigram and the n-gram

  // Known values: ListOps far above chance (in the score), Pathfinder within the test error
  // of chance (left out), LM in bits per byte, far from any accuracy.
  std::map<std::string, double> listops_acc;
  {
    std::istringstream all(slurp(dir + "/results.jsonl"));
    std::ofstream w(dir + "/results.jsonl");
    for (std::string line; std::getline(all, line);) {
      JsonObject r;
      REQUIRE(parse_json_object(line, &r));
      std::string task = json_text(r, "task"), model = json_text(r, "model");
      auto set = [&](const std::string& key, const std::string& v) {
        size_t at = line.find("\"" + key + "\": ");
        REQUIRE(at != std::string::npos);
        size_t from = at + key.size() + 4, to = line.find_first_of(",}", from);
        line.replace(from, to - from, v);
      };
      if (task == "listops") {
        listops_acc[model] = model == "full" ? 0.9375 : 0.75;  // 15 or 12 of 16
        set("test_acc", model == "full" ? "0.9375" : "0.75");
        set("majority_rate", "0.25");
      } else if (task == "pathfinder") {
        set("test_acc", "0.6"), set("majority_rate", "0.5");  // 6 of 10: within 2 x 15.8 points of 50
      } else {
        set("test_bits_per_byte", "6.5");
      }
      w << line << "\n";
    }
  }
  REQUIRE_MESSAGE(run_cli(tasks + " --report-only", &out) == 0, out);
  std::string md = slurp(dir + "/results.md");
  INFO(md);
  // every model has a row; the non-causal ones a dash in LM, with a footnote giving the registry's reason
  for (auto& m : models) CHECK(md.find("| **" + m + "** |") != std::string::npos);
  CHECK(md.find("| LM (bits/byte, lower is better) |") != std::string::npos);
  for (auto& m : models) {
    if (attention_info(m).causal_ok) continue;
    CAPTURE(m);
    size_t row = md.find("| **" + m + "** |");
    std::string line = md.substr(row, md.find('\n', row) - row);
    CHECK(line.find("| —") != std::string::npos);
    CHECK(md.find(m + " on LM: no causal form: " + attention_info(m).why_not_causal) != std::string::npos);
  }
  CHECK(md.find("| **fnet** | attention-free | 75.0 | 60.0 | —") != std::string::npos);
  CHECK(md.find("A dash is a cell that is never run") != std::string::npos);
  // the score averages ListOps alone; LRA's mean ListOps and Pathfinder; LM neither
  CHECK(md.find("**Score** (the main chart's axis): the mean test accuracy over ListOps, the columns") != std::string::npos);
  CHECK(md.find("Pathfinder: best full 60.0, chance 50.0, margin 31.6 (left out).") != std::string::npos);
  CHECK(md.find("LM is left out: bits per byte") != std::string::npos);
  CHECK(md.find("| **full** | dense | 93.8 | 60.0 | 6.500 | **76.9** | **93.8** |") != std::string::npos);
  CHECK(md.find("| **local** | fixed | 75.0 | 60.0 | 6.500 | **67.5** | **75.0** |") != std::string::npos);
  // the baselines of the LM column, in bits per byte
  CHECK(md.find("| baseline: unigram | |  |  | ") != std::string::npos);
  // the main chart's axis names the columns it averages; LRA's mean is the second chart; one per column
  std::string gp = slurp(dir + "/chart.gp");
  CHECK(gp.find("score: mean test accuracy (%) over ListOps\"") != std::string::npos);
  CHECK(slurp(dir + "/chart-lra.gp").find("LRA mean test accuracy (%) over ListOps and Pathfinder") != std::string::npos);
  for (const char* t : {"chart.svg", "chart-lra.svg", "chart-listops.svg", "chart-pathfinder.svg", "chart-lm.svg"}) {
    CAPTURE(t);
    CHECK(slurp(dir + "/" + t).find(">local<") != std::string::npos);
    CHECK(md.find(std::string("](") + t + ")") != std::string::npos);
  }
  CHECK(slurp(dir + "/chart-lm.svg").find(">fnet<") == std::string::npos);  // it has no LM value
  CHECK(slurp(dir + "/chart-lm.gp").find("lower is better") != std::string::npos);
  CHECK(slurp(dir + "/chart-lm.gp").find("baseline: unigram") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("Recall's test error counts sequences, and the report says its accuracy is over the positions in them") {
  // Two records of the mini preset's published sweep (full, seed 1; a record counts only with
  // its cell's key): ListOps scores examples, Recall (mqar) the queried positions of its
  // 1000 test sequences.
  std::string dir = temp_dir(), out;
  {
    std::istringstream all(slurp("docs/lra/mini20-sweep/results.jsonl"));
    std::ofstream w(dir + "/results.jsonl");
    int kept = 0;
    for (std::string line; std::getline(all, line);)
      if (line.find("\"id\": \"listops-full\",") != std::string::npos || line.find("\"id\": \"mqar-full\",") != std::string::npos)
        w << line << "\n", ++kept;
    REQUIRE(kept >= 2);
  }
  REQUIRE_MESSAGE(run_cli("lra --preset mini --models full --tasks listops,mqar --threads 1 --report-only --out " + dir, &out) == 0, out);
  std::string md = slurp(dir + "/results.md");
  INFO(md);
  CHECK(md.find("± 0.0 (n=1000) |") != std::string::npos);  // n: sequences, not queries
  CHECK(md.find("Recall's n counts test sequences") != std::string::npos);
  CHECK(md.find("ListOps's n counts") == std::string::npos);  // one label an example: no such note
}

TEST_CASE("the full preset's table reads LRA-recipe runs where they exist, names their source, and keeps the preset's own cells") {
  // Issue 78: the preset's records (docs/lra/full, two seeds, every Pathfinder cell at 50.0) for
  // three models on Retrieval and Pathfinder; beside them, where the report looks (from where
  // attnzoo runs): the committed Pathfinder runs of LRA's recipe (full on 4x4 patches, and
  // full-2x2, which is no row), and a Retrieval run for bigbird written here.
  std::string root = temp_dir(), dir = root + "/sweep", out;
  fs::create_directories(dir);
  {
    std::istringstream all(slurp("docs/lra/full/results.jsonl"));
    std::ofstream w(dir + "/results.jsonl");
    int kept = 0;
    for (std::string line; std::getline(all, line);)
      for (std::string t : {"retrieval", "pathfinder", "listops"})
        for (std::string m : {"full", "bigbird", "linformer"})
          for (std::string id : {t + "-" + m, t + "-" + m + "-s2"})
            if (line.find("\"id\": \"" + id + "\",") != std::string::npos) w << line << "\n", ++kept;
    REQUIRE(kept == 18);
  }
  for (std::string run : {"full", "full-2x2"}) {
    fs::create_directories(root + "/docs/pathfinder-lra/" + run);
    for (std::string f : {"test.txt", "config.json", "metrics.jsonl"})
      fs::copy_file("docs/pathfinder-lra/" + run + "/" + f, root + "/docs/pathfinder-lra/" + run + "/" + f);
  }
  fs::create_directories(root + "/docs/retrieval-lra/bigbird");
  std::ofstream(root + "/docs/retrieval-lra/bigbird/test.txt") << "best.ckpt sha1 0123\ntest accuracy 0.5180, loss 0.6900 over 5674 examples\n";
  std::ofstream(root + "/docs/retrieval-lra/bigbird/config.json") << R"({"model":{"model":"bigbird"},"train":{"batch":"32","seed":"1","steps":"5000"}})";
  std::ofstream(root + "/docs/retrieval-lra/bigbird/metrics.jsonl") << "{\"step\":4000,\"val_acc\":0.51}\n{\"step\":4500,\"val_acc\":0.52}\n";
  // a second Retrieval run (linformer, later in the table's order): the column's error is bigbird's alone
  fs::create_directories(root + "/docs/retrieval-lra/linformer");
  std::ofstream(root + "/docs/retrieval-lra/linformer/test.txt") << "best.ckpt sha1 4567\ntest accuracy 0.5300, loss 0.6900 over 5674 examples\n";
  std::ofstream(root + "/docs/retrieval-lra/linformer/config.json") << R"({"model":{"model":"linformer"},"train":{"batch":"32","seed":"1","steps":"5000"}})";
  std::ofstream(root + "/docs/retrieval-lra/linformer/metrics.jsonl") << "{\"step\":5000,\"val_acc\":0.53}\n";
  const std::string report = "cd " + root + " && " + az::test::run_prefix() + fs::absolute(az::test::attnzoo_bin()).string() +
                             " lra --preset full --models full,bigbird,linformer --tasks retrieval,pathfinder --threads 1 "
                             "--no-bench --report-only --out " + dir + " 2>&1";
  REQUIRE_MESSAGE(az::test::run_shell(report, &out) == 0, out);
  std::string md = slurp(dir + "/results.md");
  INFO(md);
  // the headline cells: pathfinder-lra/full/test.txt says 0.6790 (the 4x4 run, LRA's patch size for
  // all four models; full-2x2's 68.2 is not full's cell); the fixture's 0.5180 for bigbird; the
  // rest the preset's own, mean and sample std over the seeds (Retrieval linformer 49.70 and 50.13).
  // (chance): within 2 binomial standard errors of 50% on the test set the value was measured on:
  // 1.33 at the recipe's n=5674, so 51.8 is not (at the preset's n=2356, 2.06, it would be). LRA avg
  // over the two columns as shown: full (49.53 + 67.90) / 2 = 58.7, its ± the preset's Retrieval
  // spread (0.66) / 2; bigbird (51.80 + 50.00) / 2 = 50.9.
  CHECK(contains(md, "| **full** | dense | 49.5 ± 0.7 ᵖ (chance) | 67.9 ʳ | **58.7 ± 0.3** ʳ |"));
  CHECK(contains(md, "| **bigbird** | fixed | 51.8 ʳ | 50.0 ± 0.0 ᵖ (chance) | **50.9 ± 0.0** ʳ |"));
  // linformer: 53.0 on Retrieval, 3.0 above chance (> 1.33); (53.0 + 50.0) / 2 = 51.5
  CHECK(contains(md, "| **linformer** | low-rank/kernel | 53.0 ʳ | 50.0 ± 0.0 ᵖ (chance) | **51.5 ± 0.0** ʳ |"));
  // a recipe run's test set has its own error: at 67.9% on 20,000 images 0.33, at 51.8% on 5,674 pairs
  // 0.66, the column's first recipe run (bigbird): linformer's adds no second
  CHECK(contains(md, "| ± 1.0 (n=2356); ʳ ± 0.7 (n=5674) | ± 1.1 (n=2000); ʳ ± 0.3 (n=20000) |"));
  // where each recipe cell came from: the recipe, one seed, how far it ran, the file
  CHECK(contains(md, "- full on Pathfinder: 67.9, LRA's Pathfinder-32 recipe on 4x4 patches (bench/pathfinder_lra.sh), 1 seed "
                     "(seed 1), 62,500 of its 62,500 steps of 512 (32.00M images), the best validation's checkpoint on 20,000 "
                     "test examples: docs/pathfinder-lra/full/test.txt"));
  // (a run stopped early says so: 4,500 steps run, its metrics' last, of the 5,000 its config plans)
  CHECK(contains(md, "- bigbird on Retrieval: 51.8, LRA's matching recipe (bench/retrieval_lra.sh), 1 seed (seed 1), 4,500 of "
                     "its 5,000 steps of 32 (144,000 pairs)"));
  CHECK(contains(md, "full-2x2 (LRA's Pathfinder-32 recipe on 2x2 patches (bench/pathfinder_lra.sh), 68.2: docs/pathfinder-lra/full-2x2)"));
  // the preset's own 50.0 cells stay, in a table of their own, and the score reads only them
  CHECK(contains(md, "## The preset's own budget"));
  CHECK(contains(md, "| Model | Retrieval | Pathfinder | LRA avg |\n|---|---:|---:|---:|\n"));  // a column, a delimiter
  CHECK(contains(md, "| bigbird | 51.5 ± 1.8 (chance) | 50.0 ± 0.0 (chance) |"));
  CHECK(contains(md, "| full | 49.5 ± 0.7 (chance) | 50.0 ± 0.0 (chance) |"));
  CHECK(contains(md, "The score reads the preset's own cells only."));
  // only the preset at LRA's lengths is read beside LRA's Table 1: the mini's table keeps its own cells
  std::string mini = report;
  mini.replace(mini.find("--preset full"), 13, "--preset mini").replace(mini.find("--out " + dir), 6 + dir.size(), "--out " + root + "/mini");
  REQUIRE_MESSAGE(az::test::run_shell(mini, &out) == 0, out);
  CHECK(contains(slurp(root + "/mini/results.md"), "| **full** | dense |"));
  CHECK(!contains(slurp(root + "/mini/results.md"), "ʳ"));
  // ᵖ marks the preset's own cells only in the columns that take recipe runs: ListOps takes none
  // (full: 36.30 and 37.35, mean 36.8, sample std 1.05 / sqrt 2 = 0.7)
  std::string three = report;
  three.replace(three.find("--tasks retrieval,pathfinder"), 28, "--tasks listops,retrieval");
  REQUIRE_MESSAGE(az::test::run_shell(three, &out) == 0, out);
  CHECK(contains(slurp(dir + "/results.md"), "| **full** | dense | 36.8 ± 0.7 | 49.5 ± 0.7 ᵖ (chance) |"));

  // without the Retrieval run, bigbird keeps its own cell there, labelled, and the report says no run exists
  fs::remove_all(root + "/docs/retrieval-lra");
  REQUIRE_MESSAGE(az::test::run_shell(report, &out) == 0, out);
  md = slurp(dir + "/results.md");
  CHECK(contains(md, "| **bigbird** | fixed | 51.5 ± 1.8 ᵖ (chance) | 50.0 ± 0.0 ᵖ (chance) | **50.8 ± 0.9** |"));
  CHECK(contains(md, "Retrieval: no run of LRA's matching recipe yet"));
  CHECK(!contains(md, "on Retrieval: "));
}

TEST_CASE("bubble chart labels: a crowded chart places every label clear of the others, far ones with a leader") {
  // Ten models within a few percent of speed and a point of score: the labels cannot all sit
  // above their bubbles.  Read the labels back from chart.gp and lay them out as the placer
  // estimates the plot area (670 x 540 pixels, characters 8 x 15).
  BubbleChart c;
  c.title = "crowded", c.xlabel = "steps/s", c.ylabel = "score", c.size_note = "family";
  for (int i = 0; i < 10; ++i)
    c.points.push_back({"model-" + std::to_string(i), i % 2 ? "fixed" : "learned", 5.0 + 0.1 * i, 60.0 + 0.1 * (i % 3), 100.0, 0});
  std::string dir = temp_dir();
  draw_bubble_chart(c, dir, "crowded");
  std::string gp = slurp(dir + "/crowded.gp");
  gp = gp.substr(0, gp.find("unset output"));  // the SVG's commands (the PNG's repeat them)
  double x0, x1, y0, y1;
  REQUIRE(std::sscanf(gp.c_str() + gp.find("set xrange ["), "set xrange [%lf:%lf]", &x0, &x1) == 2);
  REQUIRE(std::sscanf(gp.c_str() + gp.find("set yrange ["), "set yrange [%lf:%lf]", &y0, &y1) == 2);
  struct Box { std::string name; double x, y, w, h; };
  std::vector<Box> boxes;
  std::istringstream in(gp);
  for (std::string line; std::getline(in, line);) {
    char name[64];
    double x, y, a, b;
    if (std::sscanf(line.c_str(), "set label %*d \"%63[^\"]\" at %lf,%lf center offset char %lf,%lf", name, &x, &y, &a, &b) != 5) continue;
    double px = 670 * (std::log10(x) - std::log10(x0)) / (std::log10(x1) - std::log10(x0)) + 8 * a;
    double py = 540 * (y - y0) / (y1 - y0) + 15 * b;
    boxes.push_back({name, px, py, 8.0 * std::strlen(name), 15});
  }
  REQUIRE(boxes.size() == 10);
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      CAPTURE(boxes[i].name);
      CAPTURE(boxes[j].name);
      bool overlap = std::fabs(boxes[i].x - boxes[j].x) * 2 < boxes[i].w + boxes[j].w &&
                     std::fabs(boxes[i].y - boxes[j].y) * 2 < boxes[i].h + boxes[j].h;
      CHECK_FALSE(overlap);
    }
  CHECK(gp.find("set arrow from first ") != std::string::npos);  // at least one leader in this crowd
}

TEST_CASE("bubble chart data: the points, bubble sizes, axis ranges and tics gnuplot is handed, worked out by hand") {
  // Two models and the chance line.  By hand:
  //   bubble size 7 * sqrt(memory / largest memory), at least 0.8: A 7 * sqrt(100/100) = 7, B 7 * sqrt(25/100) = 3.5
  //   x (log): [slowest / 1.8, fastest * 1.8] = [10 / 1.8, 40 * 1.8] = [5.55556, 72]
  //   y: lowest and highest of accuracy -+ its error bar and of the dashed lines: A 60 +- 2 -> 58..62, B 50, chance 45
  //      -> 45..62; pad max(3, 0.12 * 17 = 2.04) = 3 -> [42, 65]
  //   x tics: 1, 2, 5 x 10^k within [5.56, 72]: 10, 20, 50
  //   one data block per family, in the order families first appear: dense (A), then fixed (B)
  BubbleChart c;
  c.title = "by hand", c.xlabel = "steps/s", c.ylabel = "score", c.size_note = "family", c.chance = 45;
  c.points.push_back({"A", "dense", 10, 60, 100, 2});
  c.points.push_back({"B", "fixed", 40, 50, 25, 0});
  std::string dir = temp_dir();
  draw_bubble_chart(c, dir, "hand");
  std::string gp = slurp(dir + "/hand.gp");
  CHECK_MESSAGE(gp.find("$f0 << EOD\n\"A\" 10 60 7 2\nEOD\n$f1 << EOD\n\"B\" 40 50 3.5 0\nEOD\n") != std::string::npos, gp);
  CHECK(gp.find("set xrange [5.55556:72]\nset yrange [42:65]\n") != std::string::npos);
  CHECK(gp.find("set xtics (\"10\" 10, \"20\" 20, \"50\" 50)\n") != std::string::npos);
  // bits per byte: lower is better, so the y axis runs downwards (the range reversed); the baseline
  // at 1.3 widens the points' 0.9..1.1 to 0.9..1.3, pad max(0.05, 0.12 * 0.4 = 0.048) = 0.05 -> [1.35, 0.85]
  BubbleChart b = c;
  b.chance = -1, b.lower_is_better = true, b.min_pad = 0.05, b.lines = {{1.3, "baseline: unigram"}};
  b.points = {{"A", "dense", 10, 1.1, 100, 0}, {"B", "dense", 40, 0.9, 100, 0}};
  draw_bubble_chart(b, dir, "bits");
  gp = slurp(dir + "/bits.gp");
  CHECK_MESSAGE(gp.find("$f0 << EOD\n\"A\" 10 1.1 7 0\n\"B\" 40 0.9 7 0\nEOD\n") != std::string::npos, gp);
  CHECK(gp.find("set yrange [1.35:0.85]\n") != std::string::npos);
  CHECK(gp.find("baseline: unigram") != std::string::npos);
  fs::remove_all(dir);
}
