// attnzoo recall (train/lab/recall.cpp) on a tiny grid: the learning rates are
// tried on seed 1 and the later seeds run at the best one; causal models carry
// their measured decoding state and non-causal ones are named as absent from
// the state chart; a rerun runs nothing; bad flags are refused in one line.
#include <doctest/doctest.h>

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
// The state chart's cells: local's windows and linear attention's heads at (16, 2), dim 16.
const std::string kState =
    "recall --models local,linear,linformer --points 16:2 --dims 16 --lrs 1e-2 --seeds 1 --steps 10 --state-point 16:2 "
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
  CHECK(full_state >= 16 * 2 * 16 * 4);
  std::string md = read(d / "results.md");
  CHECK(contains(md, "| full |"));
  CHECK(contains(md, "| linformer (non-causal) |"));
  CHECK(contains(md, "linformer ("));  // absent from the state chart, with its reason
  // a rerun: nothing to run, the same records
  REQUIRE(run_cli(kTiny + d.path, &out) == 0);
  CHECK(read_jsonl(d / "results.jsonl").size() == 9);
  CHECK(linear_state > 0);
}

TEST_CASE("recall sweep: the state chart varies each variant's own knob, and its state follows it") {
  TempDir d("az_recall_state");
  std::string out;
  REQUIRE_MESSAGE(run_cli(kState + d.path, &out) == 0, out);
  std::map<double, double> window_state, heads_state;  // knob value -> measured bytes
  for (auto& r : read_jsonl(d / "results.jsonl")) {
    REQUIRE_MESSAGE(json_text(r, "status") == "ok", json_text(r, "error"));
    if (json_text(r, "group") != "state") continue;
    if (json_text(r, "model") == "local") window_state[json_number(r, "knob_value", 0)] = json_number(r, "state_bytes", -1);
    if (json_text(r, "model") == "linear") heads_state[json_number(r, "knob_value", 0)] = json_number(r, "state_bytes", -1);
  }
  REQUIRE(window_state.size() == 5);  // windows 8..128
  REQUIRE(heads_state.size() == 5);   // heads 1, 2, 4, 8, 16 divide 16
  // a window of 8 keeps fewer keys than one of 16 over 16 tokens; more heads, a smaller recurrent state
  CHECK(window_state[8] < window_state[16]);
  CHECK(heads_state[16] < heads_state[1]);
  std::string md = read(d / "results.md");
  CHECK(contains(md, "(T 16, 2 pairs)"));
  CHECK(contains(md, "local --window 8/16/32/64/128"));
  CHECK(std::ifstream(d / "recall-state.gp").good());
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
}

// A causal model without a decoding state (the mixer re-runs its prefix for every token) is
// recorded with state -1, kept off the state chart, and named as such; full attention's KV cache
// is measured beside it.
TEST_CASE("recall sweep: a causal model without a decoder (the mixer) records no state, and the report says so") {
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
    if (json_text(r, "model") == "mixer") CHECK(json_number(r, "state_bytes", 0) == -1);
    else CHECK(json_number(r, "state_bytes", -1) > 0);
  }
  std::string md = read(d / "results.md");
  CHECK(contains(md, "Causal but without an incremental state (generation re-runs the whole prefix for every token): mixer."));
}
