// examples/: the two programs on the C++ API run and do what they say, and
// `make install` gives a pkg-config file with which a user's program builds.
// The programs are $ATTNZOO_BIN's siblings (default build/examples/); run from
// the repository root, as `make test` does.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/listops/listops.h"
#include "train/checkpoint.h"
#include "train/model.h"
#include "tests/util.h"

using namespace az;
using az::test::contains;
using az::test::TempDir;

namespace {

struct Run {
  int status = -1;
  std::string out;  // stdout and stderr
};

Run run(const std::string& cmd) {
  Run r;
  r.status = az::test::run_shell(cmd + " 2>&1", &r.out);
  return r;
}

std::string build_dir() {
  return std::filesystem::path(az::test::attnzoo_bin()).parent_path().string();
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// The number after `key` in s, or -1.
double number_after(const std::string& s, const std::string& key) {
  size_t at = s.find(key);
  return at == std::string::npos ? -1.0 : std::atof(s.c_str() + at + key.size());
}

// The class the checkpoint's model gives one expression, unpadded: the reference for predict.
int predict_here(const std::string& ckpt, const std::string& expr) {
  Checkpoint ck = load_checkpoint(ckpt);
  SequenceClassifier model(ModelConfig::from_map(ck.model_config));
  load_into(model.named_parameters(), ck.params, "parameter", ckpt);
  load_into(model.named_buffers(), ck.buffers, "buffer", ckpt);
  model.eval();
  NoGradGuard ng;
  Batch b;
  b.tokens = listops_tokenize(expr);
  b.B = 1, b.N = int(b.tokens.size());
  b.pad_mask.assign(b.tokens.size(), 0.0f);
  Tensor logits = model.forward(b);
  int best = 0;
  for (int c = 1; c < kListOpsClasses; ++c)
    if (logits.data()[c] > logits.data()[best]) best = c;
  return best;
}

// What a command line writes: the word after " -o ", or "".
std::string output_of(const std::string& line) {
  size_t at = line.find(" -o ");
  if (at == std::string::npos) return "";
  std::istringstream words(line.substr(at + 4));
  std::string out;
  words >> out;
  return out;
}

}  // namespace

TEST_CASE("examples/train_model: trains a model of its own on its own data") {
  Run r = run(az::test::run_prefix() + build_dir() + "/examples/train_model local");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(number_after(r.out, "test accuracy ") >= 0.9);  // chance is about 0.5
  Run bad = run(az::test::run_prefix() + build_dir() + "/examples/train_model nope");
  CHECK(bad.status == 1);
  // the registry is linked whole: the list of valid names is not empty
  CHECK(contains(bad.out, "train_model: unknown model 'nope' (valid: bigbird,"));
  CHECK(lines_of(bad.out).size() == 1);
}

TEST_CASE("examples/predict: a checkpoint written by attnzoo train predicts what the library predicts") {
  TempDir t("az_test_examples");
  const std::string bin = build_dir(), ckpt = t / "run/best.ckpt";
  Run tr = run(az::test::run_prefix() + bin + "/attnzoo train --task listops --model full --steps 20 --dim 16 --heads 2 --layers 1 --ffn 32 "
               "--eval-every 20 --eval-limit 32 --out " + (t / "run"));
  INFO(tr.out);
  REQUIRE(tr.status == 0);
  const std::vector<std::string> exprs = {"[MAX 2 9 ]", "[SM 3 5 [MED 1 8 2 ] ]", "[MIN 6 [MAX 1 3 ] 8 ]"};
  Run p = run(az::test::run_prefix() + bin + "/examples/predict " + ckpt + " '" + exprs[0] + "' '" + exprs[1] + "' '" + exprs[2] + "'");
  INFO(p.out);
  REQUIRE(p.status == 0);
  std::vector<std::string> lines = lines_of(p.out);
  REQUIRE(lines.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    // padded to the model's length there, unpadded here: the same class
    CHECK(int(number_after(lines[i], "predicted ")) == predict_here(ckpt, exprs[i]));
    CHECK(int(number_after(lines[i], "true value ")) == listops_eval(exprs[i]));
    CHECK(contains(lines[i], exprs[i]));
  }
  // refusals: one line each
  Run missing = run(az::test::run_prefix() + bin + "/examples/predict " + (t / "nothing.ckpt"));
  CHECK(missing.status == 1);
  CHECK(contains(missing.out, "predict: "));
  CHECK(lines_of(missing.out).size() == 1);
  int64_t max_len = ModelConfig::from_map(load_checkpoint(ckpt).model_config).max_len;
  std::string longer = "[SM";
  for (int64_t i = 0; i < max_len; ++i) longer += " 1";
  longer += " ]";
  Run too_long = run(az::test::run_prefix() + bin + "/examples/predict " + ckpt + " '" + longer + "'");
  CHECK(too_long.status == 1);
  CHECK(contains(too_long.out, "predict: expression 1 has " + std::to_string(max_len + 2) +
                                   " tokens; the model takes at most " + std::to_string(max_len)));
}

TEST_CASE("make install: headers, library, program and a pkg-config file a user's program builds with") {
#if defined(__SANITIZE_ADDRESS__)
  MESSAGE("skipped under the sanitizers: the installed archive would need them at link time");
  return;
#endif
  if (run("pkg-config --version").status != 0) {
    MESSAGE("skipped: pkg-config is not installed");
    return;
  }
  TempDir t("az_test_install");
  const std::string prefix = t / "prefix";
  // a make of our own: not the one running the tests (its job server is not ours)
  Run inst = run("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install PREFIX=" + prefix + " BUILD=" + build_dir());
  INFO(inst.out);
  REQUIRE(inst.status == 0);
  CHECK(std::filesystem::exists(prefix + "/include/attnzoo/train/model.h"));
  CHECK(std::filesystem::exists(prefix + "/lib/libattnzoo.a"));
  CHECK(run(az::test::run_prefix() + prefix + "/bin/attnzoo models").status == 0);
  const std::string pc = "PKG_CONFIG_PATH=" + prefix + "/lib/pkgconfig pkg-config ";
  Run libs = run(pc + "--libs attnzoo");
  CHECK(contains(libs.out, "-Wl,--whole-archive," + prefix + "/lib/libattnzoo.a,--no-whole-archive"));
  // the example copied away from the source tree, so only the installed headers can serve it
  std::filesystem::copy_file("examples/train_model.cpp", t / "my.cpp");
  // the build's own compiler (make test-arm64: the cross compiler), $ATTNZOO_CXX
  const char* cxx = std::getenv("ATTNZOO_CXX");
  Run cc = run("cd " + t.path + " && " + (cxx && *cxx ? cxx : "g++") + " my.cpp $(" + pc + "--cflags --libs attnzoo) -o my");
  INFO(cc.out);
  REQUIRE(cc.status == 0);
  Run my = run(az::test::run_prefix() + (t / "my linear"));
  INFO(my.out);
  CHECK(my.status == 0);
  CHECK(number_after(my.out, "test accuracy ") >= 0.9);
}

// make USER_DIR=path (Makefile, issue 77): a folder of one's own builds into $(BUILD)/user/NAME/,
// apart from the default build, and examples/user_variant is linked into the conformance suite.
// The rules are read as `make -n` prints them (a real build of a second attnzoo costs a link of
// the whole library); the example is run through the suite itself.
TEST_CASE("make USER_DIR=path: a folder of one's own builds apart; examples/user_variant passes the conformance suite") {
  TempDir t("az_user_dir");  // a folder of one's own, outside the tree: its name is its build folder's
  std::filesystem::copy_file("examples/user_variant/cosine.cpp", t / "cosine.cpp");
  const std::string b = build_dir(), name = std::filesystem::path(t.path).filename().string(), ub = b + "/user/" + name;
  const std::string make = "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n --no-print-directory BUILD=" + b + " ";
  Run dry = run(make + "USER_DIR=" + t.path + "/ conformance");
  INFO(dry.out);
  REQUIRE(dry.status == 0);
  bool compiled = false, linked = false, suite = false, ran = false, touched_default = false;
  for (const std::string& l : lines_of(dry.out)) {
    compiled |= contains(l, "-c " + t.path + "/cosine.cpp -o " + ub + "/cosine.o");
    linked |= contains(l, " -o " + ub + "/attnzoo ") && contains(l, b + "/train/cli/main.o " + ub + "/cosine.o ") &&
              contains(l, "--whole-archive " + b + "/libattnzoo.a");
    suite |= contains(l, " -o " + ub + "/test_conformance ") && contains(l, b + "/tests/test_conformance.o ") &&
             contains(l, ub + "/cosine.o ");
    ran |= contains(l, "ATTNZOO_BIN=" + ub + "/attnzoo " + ub + "/test_conformance");
    // a default program relinked (objects are listed too: make -n takes the flags file, which make
    // always remakes, as changed)
    const std::string out = output_of(l);
    touched_default |= out == b + "/attnzoo" || (out.rfind(b + "/tests/test_", 0) == 0 && out.substr(out.size() - 2) != ".o");
  }
  CHECK_MESSAGE(compiled, "the folder's .cpp is compiled into " << ub);
  CHECK_MESSAGE(linked, "its attnzoo links it with main.o and the whole library");
  CHECK_MESSAGE(suite, "its conformance suite links it");
  CHECK_MESSAGE(ran, "make conformance runs its suite with its attnzoo");
  CHECK_MESSAGE(!touched_default, "the default build's programs are not rebuilt");
  // a folder without sources: one line naming it
  std::filesystem::create_directory(t / "empty");
  Run empty = run(make + "USER_DIR=" + (t / "empty") + " conformance");
  CHECK(empty.status == 2);
  CHECK(contains(empty.out, "USER_DIR=" + (t / "empty") + " holds no .cpp file"));
  // the default suite links the example, whatever it was last built from
  Run deflt = run(make + "-B " + b + "/tests/test_conformance");
  bool example_linked = false;
  for (const std::string& l : lines_of(deflt.out))
    example_linked |= contains(l, " -o " + b + "/tests/test_conformance ") && contains(l, b + "/user/user_variant/cosine.o ");
  CHECK_MESSAGE(example_linked, "build/tests/test_conformance links examples/user_variant");
  // and the example goes through every invariant there
  Run conf = run("OMP_WAIT_POLICY=passive " + az::test::run_prefix() + b + "/tests/test_conformance --no-intro -sc='cosine*'");
  INFO(conf.out);
  CHECK(conf.status == 0);
  CHECK(number_after(conf.out, "[doctest] assertions:") >= 100);  // its subcases ran: the example is in the registry
}
