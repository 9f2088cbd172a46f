// attnzoo recall (train/lab/recall.cpp) on a tiny grid: the learning rates are
// tried on seed 1 and the later seeds run at the best one; causal models carry
// their measured decoding state and non-causal ones are named as absent from
// the state chart; a rerun runs nothing; bad flags are refused in one line.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/util.h"
#include "train/json.h"

using namespace az;
using namespace az::test;

namespace {

std::string read(const std::string& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kTiny =
    "recall --models full,linear,linformer --points 16:2 --dims 16 --lrs 3e-3,1e-2 --seeds 2 --steps 20 "
    "--train-args='--n-train 64 --n-val 32 --n-test 32 --vocab 24 --batch 8 --layers 1 --eval-every 10' --no-state --out ";
// The state chart's cells: local's windows and linear attention's heads at (16, 2), dim 16, two seeds each.
const std::string kState =
    "recall --models local,linear,linformer --points 16:2 --dims 16 --lrs 1e-2 --seeds 2 --steps 10 --state-point 16:2 "
    "--state-dim 16 --train-args='--n-train 32 --n-val 16 --n-test 16 --vocab 24 --batch 8 --layers 1 --eval-every 10' --out ";

}  // namespace

TEST_CASE("recall sweep: seeds follow the best learning rate, states are measured, a rerun runs nothing") {
  TempDir d("az_recall");
  std::string out;
  REQUIRE_MESSAGE(run_cli(kTiny + d.path, &out) == 0, out);
  auto rows = read_jsonl(d / "results.jsonl");
  // 3 models x 2 learning rates on seed 1, then seed 2 of each at its best rate
  REQUIRE(rows.size() == 9);
  std::map<std::string, std::map<int, std::set<std::string>>> lrs;  // model -> seed -> learning rates
  std::map<std::string, double> best_val;                             // "model lr" -> seed 1's validation
  for (auto& r : rows) {
    CHECK(json_text(r, "status") == "ok");
    std::string m = json_text(r, "model");
    lrs[m][int(json_number(r, "seed", 0))].insert(json_text(r, "lr"));
    if (json_number(r, "seed", 0) == 1) best_val[m + " " + json_text(r, "lr")] = json_number(r, "best_val_acc", -1);
    if (m == "linformer") {
      CHECK(json_text(r, "causal") == "false");
      CHECK(!r.count("state_bytes"));
    } else {
      CHECK(json_text(r, "causal") == "true");
      // full: a KV cache of 1 layer x 16 positions x (K and V) x 16 floats at least; linear: a fixed state
      CHECK(json_number(r, "state_bytes", -1) > 0);
    }
  }
  for (auto& m : {"full", "linear", "linformer"}) {
    REQUIRE(lrs[m][1].size() == 2);
    REQUIRE(lrs[m][2].size() == 1);
    std::string chosen = *lrs[m][2].begin();
    std::string other = chosen == "0.003" ? "0.01" : "0.003";
    CHECK_MESSAGE(best_val[std::string(m) + " " + chosen] >= best_val[std::string(m) + " " + other], m);
  }
  // the state of full attention grows with the context; linear attention's does not
  double full_state = 0, linear_state = 0;
  for (auto& r : rows) {
    if (json_text(r, "model") == "full") full_state = json_number(r, "state_bytes", 0);
    if (json_text(r, "model") == "linear") linear_state = json_number(r, "state_bytes", 0);
  }
  // Worked out: full attention at T 16, dim 16, 1 layer keeps K and V of all 16 tokens (2 x 16 x 16
  // floats, 2048 bytes) and the short convolution's last 2 inputs (kernel 3: 2 x 16 floats, 128 bytes).
  // (Fed one token short, the state would read 2048.)
  CHECK(full_state == 2 * 16 * 16 * 4 + 2 * 16 * 4);
  std::string md = read(d / "results.md");
  CHECK(contains(md, "| full |"));
  CHECK(contains(md, "| linformer (non-causal) |"));
  CHECK(contains(md, "linformer ("));  // absent from the state chart, with its reason
  std::string dim_gp = read(d / "recall-dim.gp");
  CHECK(contains(dim_gp, "using 1:2:3 with yerrorlines"));  // the width chart shows the seed spread
  CHECK(contains(dim_gp, "using 1:2 with points pt 7"));     // and every seed as a dot
  CHECK(contains(dim_gp, "set title 'dense, T 16, 2 pairs'"));  // a panel per family: full's
  CHECK(contains(dim_gp, "set title 'low-rank/kernel, T 16, 2 pairs'"));  // linear's and linformer's
  // a rerun: nothing to run, the same records
  REQUIRE(run_cli(kTiny + d.path, &out) == 0);
  CHECK(read_jsonl(d / "results.jsonl").size() == 9);
  // a report over a point no cell ran at: its column is left out, and said to be
  std::string two_points = kTiny;
  two_points.replace(two_points.find("--points 16:2"), 13, "--points 16:2,32:4 --report-only");
  REQUIRE(run_cli(two_points + d.path, &out) == 0);
  md = read(d / "results.md");
  CHECK(contains(md, "Not run at all, so not shown: T32 N4 d16."));
  CHECK(contains(md, "| model | T16 N2 d16 |\n"));
  CHECK(linear_state > 0);
}

TEST_CASE("recall sweep: the state chart varies each variant's own knob, and its state follows it") {
  TempDir d("az_recall_state");
  std::string out;
  REQUIRE_MESSAGE(run_cli(kState + d.path, &out) == 0, out);
  std::map<double, double> window_state, heads_state;  // knob value -> measured bytes
  std::map<std::string, std::set<int>> seeds;           // "model knob value" -> seeds recorded
  for (auto& r : read_jsonl(d / "results.jsonl")) {
    REQUIRE_MESSAGE(json_text(r, "status") == "ok", json_text(r, "error"));
    if (json_text(r, "group") != "state") continue;
    seeds[json_text(r, "model") + " " + json_text(r, "knob_value")].insert(int(json_number(r, "seed", 0)));
    if (json_text(r, "model") == "local") window_state[json_number(r, "knob_value", 0)] = json_number(r, "state_bytes", -1);
    if (json_text(r, "model") == "linear") heads_state[json_number(r, "knob_value", 0)] = json_number(r, "state_bytes", -1);
  }
  REQUIRE(window_state.size() == 5);  // windows 8..128
  REQUIRE(seeds.size() == 10);
  for (auto& [k, v] : seeds) CHECK_MESSAGE((v == std::set<int>{1, 2}), k);  // every knob point has both seeds
  REQUIRE(heads_state.size() == 5);   // heads 1, 2, 4, 8, 16 divide 16
  // a window of 8 keeps fewer keys than one of 16 over 16 tokens; more heads, a smaller recurrent state
  CHECK(window_state[8] < window_state[16]);
  CHECK(heads_state[16] < heads_state[1]);
  std::string md = read(d / "results.md");
  CHECK(contains(md, "(T 16, 2 pairs)"));
  CHECK(contains(md, "local --window 8/16/32/64/128"));
  // the report: one row per point with its seed spread, and Based's frontier in the table and the chart
  CHECK(contains(md, "| model | point | state | recall (%) | seeds | against the previous point | on the frontier |"));
  CHECK(contains(md, "| local | window 8 | "));
  CHECK(contains(md, "| linear | dim 16 | "));
  CHECK(contains(md, " | 2 |  | yes |"));  // the smallest state is on the frontier, with two seeds and no point before it
  // each larger point of a model is compared with the one before it: higher, lower, or not told apart
  CHECK((contains(md, " | 2 | not told apart | ") || contains(md, " | 2 | higher | ") || contains(md, " | 2 | lower | ")));
  std::string gp = read(d / "recall-state.gp");
  CHECK(contains(gp, "with yerrorlines"));
  CHECK(contains(gp, "title 'frontier'"));
  CHECK(contains(gp, "using ($1/1024):2 with points pt 7"));  // every seed as a dot
  // the frontier is the points no smaller state beats: its recall rises strictly with its state,
  // and no point recalls more than the frontier reaches at or below its state
  std::vector<std::pair<double, double>> front, all;  // (bytes, mean recall)
  std::istringstream lines(gp);
  std::vector<std::pair<double, double>>* into = nullptr;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("$front <<", 0) == 0) into = &front;
    else if (line.rfind("$s", 0) == 0) into = &all;
    else if (line == "EOD") into = nullptr;
    else if (into) {
      std::istringstream f(line);
      double b = 0, m = 0;
      f >> b >> m;
      into->push_back({b, m});
    }
  }
  REQUIRE(front.size() >= 1);
  REQUIRE(all.size() == 12);  // local's 5 windows and linear's 5 head counts, and each one's dim 16
  for (size_t i = 1; i < front.size(); ++i) {
    CHECK(front[i].first >= front[i - 1].first);
    CHECK(front[i].second > front[i - 1].second);
  }
  for (auto& [b, m] : all) {
    double best = -1;
    for (auto& [fb, fm] : front)
      if (fb <= b) best = std::max(best, fm);
    std::string at = std::to_string(b) + " bytes, " + std::to_string(m) + "%";
    CHECK_MESSAGE(m <= best, at);
  }
  // a model's widths and its knob are two series in one colour (widths dashed), and a point is
  // compared only with the one before it on its own axis: linear's width point opens its series
  auto colour_of = [&](const std::string& title) {
    size_t t = gp.find("title \"" + title + "\""), c = gp.rfind("lc rgb '", t);
    return t == std::string::npos || c == std::string::npos ? std::string("none") : gp.substr(c, 15);
  };
  CHECK(colour_of("local: dims") != "none");
  CHECK(colour_of("local: dims") == colour_of("local: window, dim 16"));
  CHECK(colour_of("linear: dims") == colour_of("linear: heads, dim 16"));
  CHECK(colour_of("local: dims") != colour_of("linear: dims"));
  size_t row = md.find("| linear | dim 16 | ");
  REQUIRE(row != std::string::npos);
  std::string line = md.substr(row, md.find('\n', row) - row);
  CHECK_MESSAGE(contains(line, " | 2 |  | "), line);
}

TEST_CASE("recall sweep: bad flags are refused in one line") {
  TempDir d("az_recall_bad");
  std::string out;
  CHECK(run_cli("recall --points 64:40 --out " + d.path, &out) != 0);
  CHECK(contains(out, "40 pairs need at least 160 tokens"));
  CHECK(run_cli("recall --points 64 --out " + d.path, &out) != 0);
  CHECK(contains(out, "--points expects LENGTH:PAIRS"));
  CHECK(run_cli("recall --models fulll --out " + d.path, &out) != 0);
  CHECK(contains(out, "did you mean full"));
  CHECK(run_cli("recall --seeds 0 --out " + d.path, &out) != 0);
  CHECK(contains(out, "--seeds must be in 1..20"));
  CHECK(run_cli("recall --knob-values 8,x --out " + d.path, &out) != 0);
  CHECK(contains(out, "--knob-values expects numbers in 1..65536, got 'x'"));
  // --knob-values keeps the listed windows only
  REQUIRE(run_cli("recall --models local --points 16:2 --dims 16 --lrs 1e-2 --seeds 2 --knob-values 8,16 --dry-run --out " +
                      d.path, &out) == 0);
  CHECK(contains(out, "--window 8 "));
  CHECK(contains(out, "--window 16 "));
  CHECK(!contains(out, "--window 32 "));
}

// Every causal model keeps a decoding state, the causal mixer too (its caches of inputs and finished
// hidden units): each is measured and put on the state chart, and none is listed as re-running the prefix.
TEST_CASE("recall sweep: the causal mixer records its decoding state beside full attention's KV cache") {
  TempDir d("az_recall_mixer");
  std::string out;
  REQUIRE_MESSAGE(run_cli("recall --models mixer,full --points 16:2 --dims 16 --lrs 1e-2 --seeds 1 --steps 5 "
                          "--state-point 16:2 --no-state --train-args='--n-train 32 --n-val 16 --n-test 16 --vocab 24 "
                          "--batch 8 --layers 1 --eval-every 5' --out " + d.path,
                          &out) == 0,
                  out);
  auto rows = read_jsonl(d / "results.jsonl");
  REQUIRE(rows.size() == 2);
  for (auto& r : rows) {
    CHECK(json_text(r, "causal") == "true");
    CHECK(json_number(r, "state_bytes", -1) > 0);
    if (json_text(r, "model") == "mixer") CHECK(contains(json_text(r, "decode"), "inputs and hidden units"));
  }
  std::string md = read(d / "results.md");
  CHECK(!contains(md, "Causal but without an incremental state"));
}

TEST_CASE("recall report: local's committed records against values worked out by hand (tests/fixtures/recall-local)") {
  // The numbers are worked out in tests/fixtures/recall-local/README.md from the records alone.
  const char* src = std::getenv("ATTNZOO_SRC");
  const std::string fixture = std::string(src ? src : ".") + "/tests/fixtures/recall-local/results.jsonl";
  REQUIRE(std::ifstream(fixture).good());
  TempDir d("az_recall_fixture");
  std::filesystem::copy_file(fixture, d / "results.jsonl");
  std::string out;
  // --dims out of order, as the committed sweep gave them
  REQUIRE_MESSAGE(run_cli("recall --models local --points 256:16 --dims 64,32,128 --lrs 3e-3 --seeds 3 --steps 1000 "
                          "--state-point 256:16 --state-dim 64 --report-only --out " + d.path, &out) == 0, out);
  std::string md = read(d / "results.md");
  // the state table: state, mean +- sd, seeds, the verdict against the point before on its own axis, the frontier
  CHECK(contains(md, "| local | dim 32 | 33.0 KiB | 63.6 ± 2.9 | 3 |  |"));
  CHECK(contains(md, "| local | dim 64 | 66.0 KiB | 69.9 ± 0.7 | 3 | not told apart |"));
  CHECK(contains(md, "| local | dim 128 | 132.0 KiB | 74.3 ± 0.6 | 3 | higher |"));
  CHECK(contains(md, "| local | window 8 | 10.0 KiB | 0.4 ± 0.0 | 3 |  |"));
  CHECK(contains(md, "| local | window 16 | 18.0 KiB | 1.6 ± 0.3 | 3 | higher |"));
  CHECK(contains(md, "| local | window 32 | 34.0 KiB | 5.5 ± 2.0 | 3 | not told apart |"));
  CHECK(contains(md, "| local | window 64 | 66.0 KiB | 70.0 ± 1.1 | 3 | higher |"));
  CHECK(contains(md, "| local | window 128 | 130.0 KiB | 93.7 ± 0.7 | 3 | higher |"));
  // the width chart: x from the smallest dim / 1.4 to the largest x 1.4, whatever order --dims came in
  std::string gp = read(d / "recall-dim.gp");
  CHECK(contains(gp, "set xrange [22.8571:179.2]"));
  CHECK(contains(gp, "set xtics (32, 64, 128)"));
  // the state chart's data: (state in bytes, mean, sample sd) per point, and a dot per seed
  std::string state = read(d / "recall-state.gp");
  CHECK(contains(state, "\n33792 63.5833 2.90564\n"));     // dim 32
  CHECK(contains(state, "\n135168 74.3104 0.613021\n"));   // dim 128
  CHECK(contains(state, "\n10240 0.408333 0.0219493\n"));  // window 8
  CHECK(contains(state, "\n34816 5.51042 2.02431\n"));     // window 32
  CHECK(contains(state, "\n133120 93.675 0.67555\n"));     // window 128
  CHECK(contains(state, "\n133120 92.9625\n"));            // one of its seeds
}
