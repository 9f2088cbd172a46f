// Every model's two forms are one function (issue 54): the fast form
// (forward(), fused kernels) equals the reference form (reference(), composed
// ops, in the model's own file) in its output and in the gradient of the input
// and of every parameter.  For every registered model, each setting below (a
// model with no row: the small settings `attnzoo pattern` picks for N = 24), its
// causal form where it has one, at two shapes, each with padding and a ragged
// length (N not a multiple of the blocks, chunks or tiles).  Models that draw
// at random (LSH rotations, Gumbel noise, random features, k-means on the first
// batch) are also checked in training mode: the random source and the layer's
// buffers are put back before each form runs, so both take the same draws.
#include <algorithm>
#include <map>
#include <set>

#include "attention/attention.h"
#include "tests/attention_check.h"
#include "train/lab/pattern.h"

using namespace az;
using namespace az::testing;

namespace {

using Knobs = std::map<std::string, double>;

// Small settings that make every pattern non-trivial at N = 24..37 (several
// windows, blocks, chunks, clusters, tiles); some models have several.  A
// registered model without a row here (a new variant) is checked at the
// settings picture_knobs scales to N = 24, its other knobs at their defaults:
// a row of its own is optional, for settings those would leave out.
const std::vector<std::pair<std::string, Knobs>>& rows() {
  static const std::vector<std::pair<std::string, Knobs>> s = {
      {"full", {}},
      {"flash", {{"block_k", 8}, {"block_q", 5}}},
      {"local", {{"window", 3}, {"block", 8}}},
      {"strided", {{"window", 2}, {"stride", 3}, {"block", 8}}},
      {"global", {{"globals", 3}, {"block", 8}}},
      {"global", {{"globals", 2}, {"learned", 1}}},
      {"longformer", {{"window", 3}, {"dilation", 2}, {"globals", 2}, {"block", 8}}},
      {"bigbird", {{"block", 4}, {"random_blocks", 2}}},
      {"reformer", {{"bucket_size", 4}, {"hashes", 3}}},
      {"reformer", {{"form", 1}, {"hashes", 1}, {"buckets", 4}}},
      {"routing", {{"clusters", 3}, {"window", 7}}},
      {"sinkhorn", {{"block", 4}}},
      {"sinkhorn", {{"block", 4}, {"sortcut", 2}}},
      {"linformer", {{"proj_k", 8}}},
      {"linformer", {{"proj_k", 8}, {"share_heads", 0}, {"share_kv", 1}}},
      {"compressed", {{"compress", 3}}},
      {"linear", {}},
      {"efficient", {}},
      {"rfa", {{"features", 8}}},
      {"performer", {{"features", 16}}},
      {"synthesizer", {{"synth_mode", 0}}},
      {"synthesizer", {{"synth_mode", 1}}},
      {"synthesizer", {{"synth_mode", 2}, {"synth_rank", 4}}},
      {"mixer", {{"token_hidden", 6}}},
      {"gmlp", {{"hidden", 12}}},
      {"fnet", {}},
      {"fnet", {{"own_length", 0}, {"ortho", 0}}},
  };
  return s;
}

// The rows above, then a row for every registered model they leave out.
std::vector<std::pair<std::string, Knobs>> settings() {
  std::vector<std::pair<std::string, Knobs>> s = rows();
  std::set<std::string> covered;
  for (auto& [name, k] : s) covered.insert(name);
  for (auto& name : attention_names())
    if (!covered.count(name)) s.push_back({name, picture_knobs(name, 24)});
  return s;
}

struct Shape2 {
  int64_t N, D, H;
  std::vector<int64_t> lens;  // one per example; shorter ones are padded at the end
};
const Shape2 kShapes[] = {{24, 16, 2, {24, 17}}, {37, 24, 3, {37, 30, 11}}};
constexpr int64_t kMaxLen = 40;  // above N: the models sized by --seq-len slice their weights

std::string describe(const std::string& name, const Knobs& k, bool causal, const Shape2& s) {
  std::string d = name + (causal ? " causal" : "");
  for (auto& [n, v] : k) d += " --" + n + " " + std::to_string(v);
  return d + " at N=" + std::to_string(s.N) + " D=" + std::to_string(s.D) + " H=" + std::to_string(s.H);
}

std::shared_ptr<Attention> build(const std::string& name, Knobs knobs, bool causal, const Shape2& s) {
  AttentionConfig c;
  c.dim = s.D, c.heads = s.H, c.max_len = kMaxLen, c.causal = causal;
  if (causal) {
    for (auto& [k, v] : attention_info(name).causal_knobs) knobs[k] = v;  // longformer: no globals
    if (name == "mixer") knobs.erase("token_hidden");                     // causal: one hidden unit per position
  }
  c.knobs = knobs;
  global_rng().seed_with(11);
  return make_attention(name, c);
}

// Buffers and the random source as they were, before each form runs.
struct Snapshot {
  std::vector<std::vector<float>> buffers;
  std::array<uint64_t, 4> rng;
  explicit Snapshot(const Module& m) : rng(global_rng().state()) {
    for (auto& b : m.named_buffers()) buffers.push_back(b.tensor.to_vector());
  }
  void restore(const Module& m) const {
    auto bs = m.named_buffers();
    for (size_t i = 0; i < bs.size(); ++i) std::copy(buffers[i].begin(), buffers[i].end(), bs[i].tensor.data());
    global_rng().set_state(rng);
  }
};

void check_model(const std::string& name, const Knobs& knobs, bool causal, bool training) {
  for (const Shape2& s : kShapes) {
    INFO(describe(name, knobs, causal, s) << (training ? " (training)" : ""));
    auto att = build(name, knobs, causal, s);
    att->train(training);
    Tensor x = random_input(int64_t(s.lens.size()), s.N, s.D, 5);
    Tensor pad = padding(s.N, s.lens);
    Snapshot snap(*att);
    check_same_function(
        *att, [&](const Tensor& in) { snap.restore(*att); return att->forward(in, pad); },
        [&](const Tensor& in) { snap.restore(*att); return att->reference(in, pad); }, x, pad, 2e-4);
  }
}

}  // namespace

TEST_CASE("every row names a registered model, and every registered model is checked") {
  // a row whose model is not registered: a registration the link dropped, or a renamed model
  const std::vector<std::string> names = attention_names();
  for (auto& [name, k] : rows())
    CHECK_MESSAGE(std::count(names.begin(), names.end(), name) == 1,
                  ("tests/test_reference.cpp has a row for '" + name + "', which is not registered (attnzoo models)"));
  std::set<std::string> checked;
  for (auto& [name, k] : settings()) checked.insert(name);
  CHECK(checked == std::set<std::string>(names.begin(), names.end()));
  for (auto& name : names)
    if (std::none_of(rows().begin(), rows().end(), [&](auto& r) { return r.first == name; }))
      MESSAGE(name << ": no row in tests/test_reference.cpp; checked at the small settings picture_knobs picks");
}

TEST_CASE("fast form == reference form: outputs and every gradient, padded and ragged, two shapes") {
  for (auto& [name, knobs] : settings()) check_model(name, knobs, false, false);
}

TEST_CASE("fast form == reference form, causal: every model with a causal form") {
  int causal = 0;
  for (auto& [name, knobs] : settings())
    if (attention_info(name).causal_ok) check_model(name, knobs, true, false), ++causal;
  CHECK(causal >= 11);
}

TEST_CASE("fast form == reference form in training: the same random draws (rotations, Gumbel noise, features, k-means)") {
  for (auto& [name, knobs] : settings()) {
    if (name != "reformer" && name != "sinkhorn" && name != "routing" && name != "performer" && name != "rfa") continue;
    Knobs k = knobs;
    if (name == "performer" || name == "rfa") k["redraw"] = 1;  // a fresh draw on every training call
    check_model(name, k, false, true);
    if (attention_info(name).causal_ok) check_model(name, k, true, true);
  }
}

TEST_CASE("--impl picks the form a model runs, process-wide; bad names are refused in one line") {
  CHECK(attention_impl() == Impl::fast);
  auto att = build("local", {{"window", 2}, {"block", 4}}, false, kShapes[0]);
  att->eval();
  Tensor x = random_input(1, 24, 16, 3);
  Tensor fast = (*att)(x, Tensor()).detach();
  {
    ImplScope ref(Impl::reference);
    CHECK(attention_impl() == Impl::reference);
    check_close((*att)(x, Tensor()).detach(), att->reference(x, Tensor()).detach(), 0, "reference through operator()");
    check_close((*att)(x, Tensor()).detach(), fast, 1e-5, "the same function");
  }
  CHECK(attention_impl() == Impl::fast);
  check_close((*att)(x, Tensor()).detach(), att->forward(x, Tensor()).detach(), 0, "fast through operator()");
  CHECK(parse_impl("reference") == Impl::reference);
  CHECK(std::string(impl_name(Impl::fast)) == "fast");
  CHECK_THROWS_WITH_AS(parse_impl("slow"), "--impl 'slow' is not a form (expected fast or reference)", Error);
}

TEST_CASE("with attention dropout, the forms drop the same weights where their kernels number them as dropout() does") {
  // full, flash (full's [B,H,N,N] mask), linformer, compressed, synthesizer (softmax_attention's [B,H,N,M]),
  // reformer, routing and sinkhorn (the chunks' [G,C,rows,keys]).  The fixed patterns' kernel numbers only
  // the entries it computes, so there each form draws its own mask at the same rate.
  const std::vector<std::pair<std::string, Knobs>> models = {
      {"full", {}}, {"flash", {{"block_k", 8}}}, {"linformer", {{"proj_k", 8}}}, {"compressed", {{"compress", 3}}},
      {"synthesizer", {}}, {"reformer", {{"bucket_size", 4}, {"hashes", 2}}}, {"routing", {{"clusters", 3}}},
      {"sinkhorn", {{"block", 4}}}};
  const Shape2& s = kShapes[0];
  for (auto& [name, knobs] : models) {
    INFO(name);
    AttentionConfig c = build(name, knobs, false, s)->config();
    c.dropout = 0.3f;
    global_rng().seed_with(4);
    auto drop = make_attention(name, c);
    drop->train(true);
    Tensor x = random_input(2, s.N, s.D, 9);
    Tensor pad = padding(s.N, s.lens);
    Snapshot snap(*drop);
    check_same_function(
        *drop, [&](const Tensor& in) { snap.restore(*drop); return drop->forward(in, pad); },
        [&](const Tensor& in) { snap.restore(*drop); return drop->reference(in, pad); }, x, pad, 2e-4);
  }
}
