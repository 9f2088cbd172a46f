// Tests for data/listops: hand-evaluated expressions, generator labels against
// the reference evaluator, LRA's text format, determinism, the TSV files and
// every error message (which must name the file and line).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "data/listops/listops.h"
#include "tests/util.h"
#include "train/tasks.h"

using namespace az;
namespace fs = std::filesystem;

namespace {

using az::test::TempDir;
using az::test::error_of;
using az::test::contains;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// LRA's to_string, written independently of the generator: parse the ids into
// LRA's left-nested pairs ((((op, a1), a2), ...), ']') and print every pair
// as '( ' + left + ' ' + right + ' )'.
std::string lra_string(const std::vector<int32_t>& ids, size_t& i) {
  const int32_t id = ids[i++];
  if (id >= kListOpsDigit0 && id < kListOpsDigit0 + 10) return listops_token_name(id);
  std::string t = listops_token_name(id);  // the operator, then pair it with each argument
  while (ids[i] != kListOpsClose) {
    const std::string arg = lra_string(ids, i);
    t = "( " + t + " " + arg + " )";
  }
  ++i;  // ']'
  return "( " + t + " ] )";
}

ListOpsConfig small_config(uint64_t seed) {
  ListOpsConfig c = listops_default();
  c.seed = seed;
  c.n_train = 300;
  c.n_val = 50;
  c.n_test = 50;
  return c;
}

}  // namespace

TEST_CASE("listops: hand-evaluated expressions") {
  CHECK(listops_eval("( ( ( [MAX 4 ) 3 ) ] )") == 4);
  CHECK(listops_eval("[MAX 4 3 ]") == 4);
  CHECK(listops_eval("[MIN 4 3 7 ]") == 3);
  CHECK(listops_eval("7") == 7);
  // MED of an even count is int(np.median): floor of the mean of the middle pair.
  CHECK(listops_eval("[MED 1 2 ]") == 1);
  CHECK(listops_eval("[MED 3 8 ]") == 5);
  CHECK(listops_eval("[MED 9 0 4 ]") == 4);
  CHECK(listops_eval("[MED 1 2 3 9 ]") == 2);
  CHECK(listops_eval("[MED 9 9 0 0 ]") == 4);
  CHECK(listops_eval("[SM 7 8 9 ]") == 4);
  CHECK(listops_eval("[SM 5 5 ]") == 0);
  CHECK(listops_eval("[MAX 2 [MIN 9 7 ] [SM 3 4 ] ]") == 7);
  CHECK(listops_eval("[MED [SM 9 9 ] 0 [MAX 1 5 ] 3 ]") == 4);  // 8 0 5 3 -> (3+5)/2
  CHECK(listops_eval("( ( ( ( [SM ( ( ( [MIN 6 ) 2 ) ] ) ) 9 ) 9 ) ] )") == 0);  // 2+9+9
  CHECK(listops_eval_ids({kListOpsMax, 5, 9, kListOpsClose}) == 8);  // ids 5, 9 are digits 4, 8
}

TEST_CASE("listops: tokeniser drops parentheses and maps ']' to its own token") {
  const std::vector<int32_t> ids = listops_tokenize("( ( ( [MAX 4 ) 3 ) ] )");
  CHECK(ids == std::vector<int32_t>{kListOpsMax, kListOpsDigit0 + 4, kListOpsDigit0 + 3, kListOpsClose});
  CHECK(kListOpsVocab == 16);
  std::set<std::string> names;
  for (int32_t id = 1; id < kListOpsVocab; ++id) names.insert(listops_token_name(id));
  CHECK(names.size() == kListOpsVocab - 1);
  for (int32_t id = 1; id < kListOpsVocab; ++id)
    CHECK(listops_tokenize(listops_token_name(id)) == std::vector<int32_t>{id});
}

TEST_CASE("listops: every generated label equals the reference evaluator") {
  ListOpsConfig c = listops_default();
  ListOpsGenerator gen(c);
  for (int i = 0; i < 3000; ++i) {
    gen.next();
    const std::string src = gen.source();
    const std::vector<int32_t> ids = gen.ids();
    REQUIRE(listops_eval(src) == gen.label());
    REQUIRE(listops_eval_ids(ids) == gen.label());
    REQUIRE(listops_tokenize(src) == ids);
    REQUIRE(gen.length() == static_cast<int>(ids.size()));
    REQUIRE(gen.length() > c.min_len);
    REQUIRE(gen.length() < c.max_len);
  }
  ListOpsConfig lra = listops_lra_preset();
  ListOpsGenerator big(lra);
  for (int i = 0; i < 100; ++i) {
    big.next();
    REQUIRE(listops_eval(big.source()) == big.label());
    REQUIRE(big.length() > 500);
    REQUIRE(big.length() < 2000);
  }
}

TEST_CASE("listops: the text is LRA's to_string, pair by pair") {
  ListOpsGenerator gen(listops_default());
  for (int i = 0; i < 200; ++i) {
    gen.next();
    const std::vector<int32_t> ids = gen.ids();
    size_t pos = 0;
    REQUIRE(lra_string(ids, pos) == gen.source());
    REQUIRE(pos == ids.size());
  }
  // A hand-checked instance of the nesting: [SM [MIN 6 2 ] 9 9 ].
  size_t pos = 0;
  CHECK(lra_string({kListOpsSm, kListOpsMin, 7, 3, kListOpsClose, 10, 10, kListOpsClose}, pos) ==
        "( ( ( ( [SM ( ( ( [MIN 6 ) 2 ) ] ) ) 9 ) 9 ) ] )");
}

TEST_CASE("listops: seeded and deterministic, distinct trees, split sizes") {
  const Splits a = generate_listops(small_config(7));
  const Splits b = generate_listops(small_config(7));
  const Splits c = generate_listops(small_config(8));
  CHECK(a.train.seqs == b.train.seqs);
  CHECK(a.train.labels == b.train.labels);
  CHECK(a.test.seqs == b.test.seqs);
  CHECK(a.train.seqs != c.train.seqs);
  CHECK(a.train.size() == 300);
  CHECK(a.val.size() == 50);
  CHECK(a.test.size() == 50);
  CHECK(a.train.vocab_size == kListOpsVocab);
  CHECK(a.train.num_classes == 10);
  CHECK(a.train.class_names.size() == 10);
  std::set<std::vector<int32_t>> all;
  for (const Dataset* d : {&a.train, &a.val, &a.test}) all.insert(d->seqs.begin(), d->seqs.end());
  CHECK(all.size() == 400);  // no tree repeats, so no test tree is also a training tree
  // The first examples of the stream are the training set.
  const std::vector<ListOpsExample> ex = generate_listops_examples(small_config(7), 5);
  for (int i = 0; i < 5; ++i) {
    CHECK(listops_tokenize(ex[i].source) == a.train.seqs[i]);
    CHECK(ex[i].label == a.train.labels[i]);
  }
}

TEST_CASE("listops: label distribution is not degenerate") {
  ListOpsConfig c = listops_default();
  ListOpsGenerator gen(c);
  int hist[10] = {0};
  const int n = 5000;
  double len = 0;
  for (int i = 0; i < n; ++i) {
    gen.next();
    ++hist[gen.label()];
    len += gen.length();
  }
  const int majority = *std::max_element(hist, hist + 10);
  MESSAGE("default preset: majority-class rate " << double(majority) / n << ", mean length " << len / n);
  CHECK(double(majority) / n < 0.25);
  for (int h : hist) CHECK(h > n / 50);
}

TEST_CASE("listops: TSV round trip, CRLF, and LRA's file names") {
  TempDir dir("az_test_listops");
  const std::vector<ListOpsExample> ex = generate_listops_examples(small_config(3), 200);
  write_listops_tsv(dir / "x.tsv", ex);
  const Dataset d = read_listops_tsv(dir / "x.tsv");
  REQUIRE(d.size() == ex.size());
  for (size_t i = 0; i < ex.size(); ++i) {
    CHECK(d.seqs[i] == listops_tokenize(ex[i].source));
    CHECK(d.labels[i] == ex[i].label);
  }
  // LRA's csv.writer ends lines with CRLF; a trailing empty line is fine.
  write_text(dir / "crlf.tsv", "Source\tTarget\r\n( ( ( [MAX 4 ) 3 ) ] )\t4\r\n[SM 7 8 ]\t5\r\n\r\n");
  const Dataset e = read_listops_tsv(dir / "crlf.tsv");
  REQUIRE(e.size() == 2);
  CHECK(e.labels == std::vector<int32_t>{4, 5});
  CHECK(e.seqs[1] == std::vector<int32_t>{kListOpsSm, 8, 9, kListOpsClose});

  // write_listops_dir + load_listops_dir give exactly generate_listops.
  const ListOpsConfig c = small_config(11);
  write_listops_dir(c, dir / "gen");
  const Splits s = load_listops_dir(dir / "gen");
  const Splits g = generate_listops(c);
  CHECK(s.train.seqs == g.train.seqs);
  CHECK(s.train.labels == g.train.labels);
  CHECK(s.val.seqs == g.val.seqs);
  CHECK(s.test.labels == g.test.labels);

  // LRA's names basic_{train,val,test}.tsv are read when ours are absent.
  fs::create_directories(dir / "lra");
  for (const char* split : {"train", "val", "test"})
    write_text(dir / ("lra/basic_" + std::string(split) + ".tsv"), "Source\tTarget\r\n[MIN 4 3 ]\t3\r\n");
  const Splits l = load_listops_dir(dir / "lra");
  CHECK(l.test.size() == 1);
  CHECK(l.test.labels[0] == 3);
}

TEST_CASE("listops: file errors name the file and the line") {
  TempDir dir("az_test_listops");
  const std::string hdr = "Source\tTarget\n";
  const std::string ok = "( ( ( [MAX 4 ) 3 ) ] )\t4\n";
  struct Case {
    std::string name;
    std::string text;
    std::string line;      // ":N:" expected in the message
    std::string contains;  // and this
  };
  const std::vector<Case> cases = {
      {"notab.tsv", hdr + ok + "[MAX 4 3 ] 4\n", ":3:", "got no tab"},
      {"label.tsv", hdr + "[MAX 4 3 ]\t12\n", ":2:", "'12'"},
      {"label2.tsv", hdr + ok + ok + "[MAX 4 3 ]\tx\n", ":4:", "label 0-9"},
      {"label3.tsv", hdr + "[MAX 4 3 ]\t\n", ":2:", "label 0-9"},
      {"unknown.tsv", hdr + ok + "( [MAX 4 [FIRST 3 ] ] )\t4\n", ":3:", "'[FIRST'"},
      {"open.tsv", hdr + "[MAX 4 3\t4\n", ":2:", "never closed"},
      {"close.tsv", hdr + ok + "[MAX 4 3 ] ]\t4\n", ":3:", "closes no operator"},
      {"paren.tsv", hdr + "( ( [MAX 4 ) 3 ) ] )\t4\n", ":2:", "parentheses"},
      {"empty_op.tsv", hdr + "[MAX ]\t4\n", ":2:", "no arguments"},
      {"two.tsv", hdr + "3 4\t4\n", ":2:", "second one"},
      {"nosrc.tsv", hdr + "\t4\n", ":2:", "expected an expression"},
      {"tabs.tsv", hdr + "[MAX 4 3 ]\t4\t5\n", ":2:", "more than one tab"},
      {"header.tsv", "Input\tLabel\n" + ok, ":1:", "header"},
      {"empty.tsv", "", ":1:", "header"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    write_text(dir / c.name, c.text);
    const std::string msg = error_of<DataError>([&] { read_listops_tsv(dir / c.name); });
    CHECK(msg.find((dir / c.name) + c.line) != std::string::npos);
    CHECK(msg.find(c.contains) != std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
  }
  const std::string unwritable = error_of<DataError>([&] { write_listops_tsv(dir / "w.tsv", {{"[MAX 1\n2 ]", 2}}); });
  CHECK(unwritable.find("example 0") != std::string::npos);
  const std::string missing = error_of<DataError>([&] { read_listops_tsv(dir / "nope.tsv"); });
  CHECK(missing.find(dir / "nope.tsv") != std::string::npos);
  const std::string no_dir = error_of<DataError>([&] { load_listops_dir(dir / "nodir"); });
  CHECK(no_dir.find("train.tsv") != std::string::npos);
  CHECK(no_dir.find("not found") != std::string::npos);
}

TEST_CASE("listops: malformed text never crashes the evaluator") {
  CHECK(error_of<DataError>([] { listops_eval(""); }).find("expected an expression") != std::string::npos);
  CHECK(error_of<DataError>([] { listops_eval("[MAX ]"); }).find("no arguments") != std::string::npos);
  CHECK(error_of<DataError>([] { listops_eval("( 3"); }).find("parentheses") != std::string::npos);
  CHECK(error_of<DataError>([] { listops_eval("3 )"); }).find("parentheses") != std::string::npos);
  CHECK(error_of<DataError>([] { listops_eval("[MAX 1 2 ] 3"); }).find("second one") != std::string::npos);
  CHECK(error_of<DataError>([] { listops_eval("[max 1 2 ]"); }).find("unknown token '[max'") != std::string::npos);
  CHECK(error_of<DataError>([] { listops_eval_ids({kListOpsMax, 99, kListOpsClose}); }).find("99") != std::string::npos);
  CHECK(error_of<DataError>([] { listops_eval_ids({}); }) != "");
  // Random word soup: every outcome is a value or a DataError.
  const char* words[] = {"(", ")", "[MIN", "[MAX", "[MED", "[SM", "]", "0", "5", "9", "X", ""};
  uint64_t s = 12345;
  int errors = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text;
    const int n = trial % 23;
    for (int k = 0; k < n; ++k) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      text += words[(s >> 33) % 12];
      text += ' ';
    }
    try {
      const int v = listops_eval(text);
      CHECK((v >= 0 && v <= 9));
    } catch (const DataError&) {
      ++errors;
    }
  }
  CHECK(errors > 0);
  // Deep nesting is handled without recursion.
  std::string deep;
  for (int k = 0; k < 200000; ++k) deep += "[MAX ";
  deep += "3";
  for (int k = 0; k < 200000; ++k) deep += " ]";
  CHECK(listops_eval(deep) == 3);
}

TEST_CASE("listops: impossible configurations are errors, not endless loops") {
  ListOpsConfig c = listops_default();
  c.max_depth = 2;
  c.max_args = 3;
  c.min_len = 50;  // the longest tree is 2 + 3 = 5 tokens
  CHECK(error_of<DataError>([&] { ListOpsGenerator g(c); }).find("none fits") != std::string::npos);
  c = listops_default();
  c.min_len = 30;
  c.max_len = 20;
  CHECK(error_of<DataError>([&] { ListOpsGenerator g(c); }).find("min_len") != std::string::npos);
  c = listops_default();
  c.max_args = 1;
  CHECK(error_of<DataError>([&] { ListOpsGenerator g(c); }).find("max_args") != std::string::npos);
  // Only 4 ops x 10 x 10 = 400 distinct trees of length 4 exist.
  c = listops_default();
  c.max_depth = 2;
  c.max_args = 2;
  c.min_len = 3;
  c.max_len = 5;
  c.p_op = 1.0;
  ListOpsGenerator g(c);
  for (int i = 0; i < 400; ++i) g.next();
  CHECK(error_of<DataError>([&] { g.next(); }).find("no new tree") != std::string::npos);
}

// Depth 2 with p_op 1: the root is an operator over digits only, so every tree
// is [OP d d ] (4 tokens) or, with max_args 3, [OP d d d ] (5 tokens).
TEST_CASE("listops, worked out by hand: arity 2..max_args, lengths strictly between min_len and max_len") {
  ListOpsConfig c = listops_default();
  c.max_depth = 2, c.max_args = 3, c.p_op = 1.0, c.min_len = 0, c.max_len = 100;
  auto lengths = [](const ListOpsConfig& cfg) {
    ListOpsGenerator g(cfg);
    std::set<int> seen;
    for (int i = 0; i < 300; ++i) {
      g.next();
      seen.insert(g.length());
    }
    return seen;
  };
  // Guards an arity drawn from [1, max_args] (3 tokens) or [2, max_args + 1] (6 tokens).
  CHECK(lengths(c) == std::set<int>{4, 5});
  // Guards the length filter's ends: LRA keeps min_len < length < max_len.
  c.min_len = 4, c.max_len = 6;
  CHECK(lengths(c) == std::set<int>{5});
  c.min_len = 3, c.max_len = 5;
  CHECK(lengths(c) == std::set<int>{4});
  // Guards the longest tree counted a level too deep: at depth 2 and arity 3 it is
  // [OP d d d ], 5 tokens, the shortest [OP d d ], 4; so 5 < length is impossible.
  c.min_len = 5, c.max_len = 100;
  CHECK(contains(error_of<DataError>([&] { ListOpsGenerator g(c); }),
                 "trees with max_depth 2, max_args 3 have 4..5 tokens; none fits strictly between 5 and 100"));
  // Depth 3, arity 2, p_op 1: [OP [OP d d ] [OP d d ] ] is the only shape, 2 + 2 * 4 = 10 tokens.
  c.max_depth = 3, c.max_args = 2, c.min_len = 5, c.max_len = 10;
  CHECK(contains(error_of<DataError>([&] { ListOpsGenerator g(c); }), "have 10..10 tokens; none fits strictly between 5 and 10"));
}

// The task's wiring on files written by hand: [MAX 4 3 ] is 4 tokens (12 5 4 15),
// [SM 1 2 3 ] is 5, so the longest expression is 5 tokens.
TEST_CASE("listops task, worked out by hand: --seq-len equal to the longest is taken, one less refused, default 128") {
  TempDir dir("az_test_listops_task");
  fs::create_directories(dir / "lo");
  write_text(dir / "lo/train.tsv", "Source\tTarget\n[MAX 4 3 ]\t4\n( ( ( ( [SM 1 ) 2 ) 3 ) ] )\t6\n");
  write_text(dir / "lo/val.tsv", "Source\tTarget\n[MIN 4 3 ]\t3\n");
  write_text(dir / "lo/test.tsv", "Source\tTarget\n[MED 4 3 ]\t3\n");
  const TaskInfo& info = task_info("listops");
  TaskContext c;
  c.task = "listops", c.data = dir / "lo", c.opt = {{"preset", ""}};
  c.seq_len = 5;  // guards refusing a --seq-len that cuts nothing
  TaskData t = info.load(c);
  CHECK(t.max_len == 5);
  CHECK(t.splits.train.seqs[0] == std::vector<int32_t>{12, 5, 4, 15});
  c.seq_len = 4;
  CHECK(contains(error_of([&] { info.load(c); }), "the longest expression has 5 tokens, more than --seq-len 4"));
  c.seq_len = 0;  // guards the documented default length (128 unless an expression is longer)
  CHECK(info.load(c).max_len == 128);

  // predict: an expression exactly as long as the model is read, a longer one refused
  c.seq_len = 4;
  TaskData p = info.cli.read_inputs({"[MAX 4 3 ]"}, c);
  CHECK(p.splits.test.seqs == std::vector<std::vector<int32_t>>{{12, 5, 4, 15}});
  CHECK(contains(error_of([&] { info.cli.read_inputs({"[SM 1 2 3 ]"}, c); }), "has 5 tokens, more than the model's 4"));
}
