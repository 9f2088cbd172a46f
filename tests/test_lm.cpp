// Language modelling (issue 23): every causal variant is causal bit for bit
// and decodes token by token exactly as its full forward pass; the variants
// without a causal form refuse the lm task saying why; the corpus splits are
// contiguous and disjoint; the n-gram baseline is a distribution; sampling
// checks its flags, and a fixed seed gives the same text.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sys/wait.h>

#include "attention/common.h"
#include "data/lm/lm_corpus.h"
#include "data/lm/ngram.h"
#include "train/cli/commands.h"
#include "train/generate.h"
#include "train/tasks.h"
#include "train/trainer.h"
#include "tests/util.h"

using namespace az;
using az::test::contains;
using az::test::error_of;
using az::test::TempDir;

namespace {

constexpr int64_t kN = 37;  // awkward: no block or window divides it

// A causal variant without a decoding state (every registered one has one), so that
// generation's other path, re-running the prefix, is tested too: causal full attention.
class RerunAttention : public Attention {
 public:
  explicit RerunAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
  }
  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);
    int64_t N = x.size(1);
    Tensor mask = reshape(causal_mask(N), {1, 1, N, N});
    return proj_->output(dense_attention(h.q, h.k, h.v, mask, 1.0f / std::sqrt(float(cfg_.head_dim()))));
  }
  Tensor reference(const Tensor& x, const Tensor& key_pad) override { return forward(x, key_pad); }

 private:
  std::shared_ptr<QKVProjection> proj_;
};
RegisterAttention reg_rerun({"test-rerun", "test only: causal full attention without a decoding state", {},
                             [](const AttentionConfig& c) { return std::make_shared<RerunAttention>(c); }, true,
                             "dense"});

// Small settings per variant, so that windows, blocks and features are all exercised at N = 37.
std::map<std::string, double> small_knobs(const std::string& model) {
  static const std::map<std::string, std::map<std::string, double>> k = {
      {"local", {{"window", 3}, {"block", 4}}},
      {"strided", {{"window", 2}, {"stride", 3}, {"block", 4}}},
      {"longformer", {{"window", 2}, {"dilation", 3}, {"globals", 0}, {"block", 4}}},
      {"flash", {{"block_q", 4}, {"block_k", 8}}},
      {"performer", {{"features", 8}}},
      {"rfa", {{"features", 8}}},
      {"gmlp", {{"hidden", 8}}},
  };
  auto it = k.find(model);
  return it == k.end() ? std::map<std::string, double>{} : it->second;
}

std::vector<std::string> causal_models() {
  std::vector<std::string> v;
  for (auto& n : attention_names())
    if (attention_info(n).causal_ok) v.push_back(n);
  return v;
}

// Every causal model with small settings, and the synthesizer's other two modes.
std::vector<std::pair<std::string, std::map<std::string, double>>> causal_cases() {
  std::vector<std::pair<std::string, std::map<std::string, double>>> v;
  for (auto& n : causal_models()) v.push_back({n, small_knobs(n)});
  v.push_back({"synthesizer", {{"synth_mode", 1}}});
  v.push_back({"synthesizer", {{"synth_mode", 2}, {"synth_rank", 5}}});
  return v;
}

// A causal byte LM with well-spread random weights (fresh ones give near-uniform attention).
std::unique_ptr<SequenceClassifier> lm_model(const std::string& name, std::map<std::string, double> knobs = {{"-", 0}},
                                             int64_t short_conv = 0) {
  global_rng().seed_with(3);
  ModelConfig m;
  m.model = name, m.knobs = knobs.count("-") ? small_knobs(name) : knobs;
  m.vocab = 257, m.num_classes = kByteClasses, m.head = Head::kToken, m.causal = true;
  m.max_len = 40, m.dim = 16, m.heads = 2, m.layers = 2, m.ffn = 32, m.dropout = 0, m.short_conv = short_conv;
  auto model = std::make_unique<SequenceClassifier>(m);
  Rng init(11);
  for (auto& p : model->named_parameters()) {
    bool gain = p.name.find("gamma") != std::string::npos;
    for (int64_t i = 0; i < p.tensor.numel(); ++i)
      p.tensor.data()[i] = (gain ? 1.0f : 0.0f) + 0.6f * (init.uniform() - 0.5f);
  }
  model->eval();
  return model;
}

Batch tokens_batch(const std::vector<int32_t>& t) {
  Batch b;
  b.B = 1, b.N = int(t.size()), b.tokens = t;
  b.pad_mask.assign(t.size(), 0.0f);
  b.targets.assign(t.size(), kIgnoreTarget);
  return b;
}

std::vector<int32_t> random_tokens(int64_t n, uint64_t seed) {
  Rng r(seed);
  std::vector<int32_t> t{};
  t.resize(size_t(n));
  for (auto& x : t) x = int32_t(1 + r.randint(256));
  return t;
}

}  // namespace

TEST_CASE("every causal variant: changing the tokens after t leaves every logit at or before t unchanged, bit for bit") {
  std::vector<std::string> models = causal_models();
  for (const char* must : {"full", "flash", "local", "strided", "longformer", "linear", "performer", "rfa", "synthesizer", "gmlp"})
    CHECK(std::find(models.begin(), models.end(), must) != models.end());
  for (auto& [name, knobs] : causal_cases()) {
    CAPTURE(name);
    CAPTURE(knobs.size());
    auto model = lm_model(name, knobs);
    NoGradGuard ng;
    std::vector<int32_t> a = random_tokens(kN, 5);
    Tensor la = model->forward(tokens_batch(a));  // [1,N,C]
    REQUIRE(la.shape() == Shape{1, kN, kByteClasses});
    for (int64_t t : {0, 4, 16, 35}) {
      CAPTURE(t);
      std::vector<int32_t> b = a;
      for (int64_t j = t + 1; j < kN; ++j) b[size_t(j)] = int32_t(1 + (a[size_t(j)] + 97) % 256);  // every later token changed
      Tensor lb = model->forward(tokens_batch(b));
      size_t before = size_t((t + 1) * kByteClasses);
      CHECK(std::memcmp(la.data(), lb.data(), before * sizeof(float)) == 0);
      // and the change is seen right after t (so the check above could fail)
      CHECK(std::memcmp(la.data() + before, lb.data() + before, kByteClasses * sizeof(float)) != 0);
    }
  }
}

TEST_CASE("the causality check catches a model that sees the future") {
  ModelConfig m;
  m.vocab = 257, m.num_classes = kByteClasses, m.head = Head::kToken, m.causal = false;
  m.max_len = 40, m.dim = 16, m.heads = 2, m.layers = 1, m.ffn = 16, m.dropout = 0;
  SequenceClassifier model(m);
  model.eval();
  NoGradGuard ng;
  std::vector<int32_t> a = random_tokens(kN, 5), b = a;
  b[30] = a[30] % 256 + 1;
  Tensor la = model.forward(tokens_batch(a)), lb = model.forward(tokens_batch(b));
  CHECK(std::memcmp(la.data(), lb.data(), size_t(10 * kByteClasses) * sizeof(float)) != 0);
}

TEST_CASE("every causal variant: token-by-token decoding gives the full forward's logits at every position (1e-5)") {
  const std::set<std::string> stateful = {"full", "flash", "local", "strided", "longformer", "linear", "performer", "rfa", "synthesizer", "gmlp", "mixer"};  // not test-rerun
  for (auto& [name, knobs] : causal_cases()) {
    CAPTURE(name);
    CAPTURE(knobs.size());
    auto model = lm_model(name, knobs);
    std::vector<int32_t> a = random_tokens(kN, 7);
    Tensor full;
    {
      NoGradGuard ng;
      full = model->forward(tokens_batch(a));
    }
    LmDecoder dec(*model);
    CHECK(dec.incremental() == (stateful.count(name) > 0));
    double worst = 0;
    int64_t bytes_at_10 = 0;
    for (int64_t t = 0; t < kN; ++t) {
      std::vector<float> l = dec.feed(a[size_t(t)]);
      REQUIRE(int64_t(l.size()) == kByteClasses);
      for (int64_t c = 0; c < kByteClasses; ++c) {
        double want = full.data()[t * kByteClasses + c];
        worst = std::max(worst, std::fabs(double(l[size_t(c)]) - want) / std::max(1.0, std::fabs(want)));
      }
      if (t == 10) bytes_at_10 = dec.state_bytes();
    }
    CHECK(worst <= 1e-5);
    // memory: constant for the recurrent state and the windows, growing for a full KV cache
    if (name == "linear" || name == "performer" || name == "rfa" || name == "local" || name == "strided" ||
        name == "longformer")
      CHECK(dec.state_bytes() == bytes_at_10);
    if (name == "full" || name == "flash") CHECK(dec.state_bytes() > bytes_at_10);
    // the mixer's caches: every input and finished hidden unit, 2 x D floats a position and layer
    if (name == "mixer") CHECK(dec.state_bytes() == 2 * kN * 16 * 4 * 2);
    CHECK(dec.position() == kN);
    if (name == "test-rerun") CHECK(contains(dec.method(), "re-runs the prefix"));
  }
}

TEST_CASE("with --short-conv 3: causal, decoding gives the full forward's logits, the state grows by 2 inputs a layer") {
  for (std::string name : {"full", "linear"}) {
    CAPTURE(name);
    auto plain = lm_model(name), model = lm_model(name, {{"-", 0}}, 3);
    REQUIRE(model->blocks[0]->conv);
    std::vector<int32_t> a = random_tokens(kN, 7), b = a;
    b[20] = a[20] % 256 + 1;
    Tensor full, changed;
    {
      NoGradGuard ng;
      full = model->forward(tokens_batch(a)), changed = model->forward(tokens_batch(b));
    }
    CHECK(std::memcmp(full.data(), changed.data(), size_t(20 * kByteClasses) * sizeof(float)) == 0);
    CHECK(std::memcmp(full.data() + 20 * kByteClasses, changed.data() + 20 * kByteClasses, kByteClasses * sizeof(float)) != 0);
    LmDecoder dec(*model), dp(*plain);
    double worst = 0;
    for (int64_t t = 0; t < kN; ++t) {
      std::vector<float> l = dec.feed(a[size_t(t)]);
      dp.feed(a[size_t(t)]);
      for (int64_t c = 0; c < kByteClasses; ++c) {
        double want = full.data()[t * kByteClasses + c];
        worst = std::max(worst, std::fabs(double(l[size_t(c)]) - want) / std::max(1.0, std::fabs(want)));
      }
    }
    CHECK(worst <= 1e-5);
    CHECK(dec.state_bytes() - dp.state_bytes() == 2 * 2 * 16 * int64_t(sizeof(float)));  // 2 layers x (K-1) x D
  }
}

TEST_CASE("the KV cache of local and strided keeps only the window they read") {
  auto local = lm_model("local"), strided = lm_model("strided");
  LmDecoder dl(*local), ds(*strided);
  for (int32_t t : random_tokens(30, 3)) dl.feed(t), ds.feed(t);
  // 2 layers x 2 heads x (K and V) x keep positions x d = 8 floats
  CHECK(dl.state_bytes() == 2 * 2 * 2 * (3 + 1) * 8 * 4);          // window 3: 4 positions
  CHECK(ds.state_bytes() == 2 * 2 * 2 * (2 * 3 + 1) * 8 * 4);      // window 2, stride 3: 7 positions
  CHECK(contains(dl.method(), "last 4 positions"));
}

TEST_CASE("variants without a causal form refuse --task lm in one line that says why") {
  for (auto& name : attention_names()) {
    if (attention_info(name).causal_ok) continue;
    CAPTURE(name);
    TrainConfig tc;
    tc.task = "lm";
    ModelConfig mc;
    mc.model = name;
    std::string e = error_of([&] { load_task(tc, mc.model, std::nullopt); });
    CHECK(contains(e, "task lm needs a causal model; '" + name + "' has no causal form ("));
    CHECK(e.find('\n') == std::string::npos);
  }
  // longformer's causal form has no global tokens
  AttentionConfig c;
  c.dim = 16, c.heads = 2, c.causal = true;
  CHECK(contains(error_of([&] { make_attention("longformer", c); }), "give --globals 0"));
}

TEST_CASE("lm splits: contiguous, disjoint, every byte but each split's first predicted exactly once") {
  std::string text;
  Rng r(4);
  for (int i = 0; i < 1000; ++i) text += char(r.randint(256));
  LmRanges rg = lm_ranges(text.size(), 0.1, 0.2);
  CHECK(rg.train_end == 700);
  CHECK(rg.val_end == 800);
  Splits s = lm_splits(text, rg, 64);
  struct Part {
    const Dataset* d;
    size_t begin, end;
  };
  for (auto p : {Part{&s.train, 0, 700}, Part{&s.val, 700, 800}, Part{&s.test, 800, 1000}}) {
    // the tokens, joined, are the range less its last byte; the targets the range less its first
    std::string tok, tgt;
    for (size_t i = 0; i < p.d->size(); ++i) {
      REQUIRE(p.d->seqs[i].size() == p.d->targets[i].size());
      CHECK(p.d->seqs[i].size() <= 64);
      for (size_t k = 0; k < p.d->seqs[i].size(); ++k) {
        tok += char(p.d->seqs[i][k] - 1);
        tgt += char(p.d->targets[i][k]);
        CHECK(p.d->targets[i][k] >= 0);
        CHECK(p.d->targets[i][k] < 256);
      }
    }
    CHECK(tok == text.substr(p.begin, p.end - p.begin - 1));
    CHECK(tgt == text.substr(p.begin + 1, p.end - p.begin - 1));
  }
  CHECK(contains(error_of([&] { lm_ranges(10, 0.1, 0.1); }), "too few"));
}

TEST_CASE("lm splits by hand: sizes rounded to the nearest byte, every split at least 2 bytes") {
  // Guards the sizes truncated (10 * 0.25 = 2.5 -> 2, not 3) and a 1-byte training split accepted.
  LmRanges r = lm_ranges(10, 0.25, 0.25);  // test llround(2.5) = 3: [7, 10); val 3: [4, 7); train [0, 4)
  CHECK(r.val_end == 7);
  CHECK(r.train_end == 4);
  r = lm_ranges(6, 0.34, 0.34);  // 2.04 -> 2 each: train [0, 2), val [2, 4), test [4, 6)
  CHECK(r.train_end == 2);
  CHECK(r.val_end == 4);
  CHECK(contains(error_of([&] { lm_ranges(5, 0.4, 0.4); }), "too few"));  // val 2, test 2: train 1 byte
}

TEST_CASE("task lm: --val-percent and --test-percent size their own splits, windows of 128 by default, baselines fit on train") {
  // Guards the two percentages swapped, a default window other than 128, and baselines fit past the
  // training range, with the order never chosen, or the test line's unigram scored on validation.
  TempDir dir("az_lm_task");
  std::string text;
  Rng r(5);
  const char* words[] = {"the ", "cat ", "sat ", "on ", "a ", "mat ", "and ", "ran\n"};
  while (text.size() < 1000) text += words[r.randint(8)];
  text.resize(1000);
  std::ofstream(dir / "t.txt", std::ios::binary) << text;
  TrainConfig tc;
  tc.task = "lm", tc.data = dir / "t.txt", tc.task_args = {{"val-percent", "10"}, {"test-percent", "20"}};
  TaskData t = load_task(tc, "full", std::nullopt);
  // 1000 bytes: train 0..700, val 700..800, test 800..1000; each split's first byte is context only
  auto predicted = [](const Dataset& d) {
    size_t n = 0;
    for (auto& q : d.seqs) n += q.size();
    return n;
  };
  CHECK(predicted(t.splits.train) == 699);
  CHECK(predicted(t.splits.val) == 99);
  CHECK(predicted(t.splits.test) == 199);
  CHECK(t.shape.max_len == 128);
  CHECK(t.splits.train.seqs[0].size() == 128);
  // the baselines, fit on bytes 0..700 alone, the order chosen on validation, each split scored on its own range
  ByteNgram ng(text, 0, 700, 5);
  int best = 3;
  for (int k = 4; k <= 5; ++k)
    if (ng.bits_per_byte(text, 700, 800, k) < ng.bits_per_byte(text, 700, 800, best)) best = k;
  auto f4 = [](double b) {
    char s[32];
    std::snprintf(s, sizeof s, "%.4f", b);
    return std::string(s);
  };
  auto note = [&](size_t b, size_t e) {
    return " (unigram " + f4(ng.bits_per_byte(text, b, e, 1)) + ", " + std::to_string(best) + "-gram " +
           f4(ng.bits_per_byte(text, b, e, best)) + ")";
  };
  CHECK(t.note_val == note(700, 800));
  CHECK(t.note_test == note(800, 1000));
  CHECK(t.note_val != t.note_test);
}

TEST_CASE("task lm: the byte labels of attnmap and predict (token id = byte + 1)") {
  // Guards the +1 offset forgotten and DEL (0x7f) printed raw.
  const auto& name = task_info("lm").cli.token_name;
  CHECK(name(66) == "A");
  CHECK(name(33) == "' '");
  CHECK(name(127) == "~");
  CHECK(name(128) == "\\x7f");
  CHECK(name(1) == "\\x00");
  CHECK(name(11) == "\\x0a");
  CHECK(name(256) == "\\xff");
}

TEST_CASE("read_lm_text: a folder's files in name order; links and binary files left out and named") {
  TempDir dir("az_lm");
  std::ofstream(dir / "b.txt") << "second\n";
  std::ofstream(dir / "a.txt") << "first\n";
  std::ofstream(dir / "a.dat", std::ios::binary) << std::string("\0\1\2", 3);
  std::filesystem::create_symlink("a.txt", dir / "a.u8");
  std::ofstream(dir / ".hidden") << "never";
  LmText t = read_lm_text(dir.path);
  CHECK(t.bytes == "first\nsecond\n");
  CHECK(t.files.size() == 2);
  REQUIRE(t.skipped.size() == 2);
  CHECK((contains(t.skipped[0], "a.dat") || contains(t.skipped[1], "a.dat")));
  CHECK(contains(error_of([&] { read_lm_text(dir / "missing"); }), "no such file or folder"));
  CHECK(read_lm_text(dir / "a.txt").bytes == "first\n");
}

TEST_CASE("read_lm_text: a folder's files joined in name order, not the order the folder lists them") {
  // Guards the sort dropped: eight files made last name first, so no file system's order is likely sorted.
  TempDir dir("az_lm_order");
  for (char c = 'h'; c >= 'a'; --c) std::ofstream(dir / (std::string(1, c) + ".txt")) << c;
  CHECK(read_lm_text(dir.path).bytes == "abcdefgh");
}

TEST_CASE("the byte n-gram: a distribution at every order, better than the unigram on text with structure") {
  std::string text;
  Rng r(2);
  const char* words[] = {"the ", "cat ", "sat ", "on ", "a ", "mat ", "and ", "ran\n"};
  while (text.size() < 20000) text += words[r.randint(8)];
  ByteNgram ng(text, 0, 15000, 5);
  for (int order = 1; order <= 5; ++order) {
    CAPTURE(order);
    for (const char* h : {"the c", "zzzzz", "mat a"}) {
      double sum = 0;
      for (int c = 0; c < 256; ++c) sum += ng.prob(reinterpret_cast<const uint8_t*>(h), 5, uint8_t(c), order);
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-9));
    }
    CHECK(ng.discount(order - 1) > 0);
    CHECK(ng.discount(order - 1) < 1);
  }
  double uni = ng.bits_per_byte(text, 15000, 20000, 1), five = ng.bits_per_byte(text, 15000, 20000, 5);
  CHECK(uni == doctest::Approx(unigram_entropy(text, 0, 15000)).epsilon(0.02));
  CHECK(five < 0.5 * uni);
  // after "the c" only "a" was ever seen
  CHECK(ng.prob(reinterpret_cast<const uint8_t*>("the c"), 5, 'a', 5) > 0.9);
}

TEST_CASE("the byte n-gram by hand: a bigram fitted on \"abab\" scores \"ab\" at 0.1584 bits per byte") {
  // Guards a history one byte short, nats as bits, the mean over the first (context-only) byte too, a
  // uniform floor of 1/257, the last training byte not counted, and prob() ignoring use_order.
  const std::string text = "abab";
  ByteNgram g(text, 0, 4, 2);
  // order 1: a 2, b 2: n1 = 0, n2 = 2, D = 0 is outside (0, 1): D1 = 0.5.  P1(b) = (2 - 0.5) / 4 + 0.5 * 2 / 4 / 256
  const double p1 = 1.5 / 4 + 1.0 / 1024;  // 0.3759765625
  // order 2: ab 2, ba 1: D2 = 1 / (1 + 2) = 1/3; after a (#h = 2, u(h) = 1): P(b | a) = (2 - 1/3) / 2 + 1/3 * 1 / 2 * P1(b)
  const double p2 = 5.0 / 6 + p1 / 6;  // 0.89599609375
  CHECK(g.discount(0) == doctest::Approx(0.5));
  CHECK(g.discount(1) == doctest::Approx(1.0 / 3));
  const uint8_t a = 'a';
  CHECK(g.prob(&a, 1, 'b', 2) == doctest::Approx(p2).epsilon(1e-12));
  CHECK(g.prob(&a, 1, 'b', 1) == doctest::Approx(p1).epsilon(1e-12));  // use_order 1: the history is not read
  // "ab": the first byte is context only; b after a costs -log2(0.89599609375) = 0.158436 bits
  CHECK(g.bits_per_byte("ab", 0, 2, 2) == doctest::Approx(0.15843565226942488).epsilon(1e-9));
  CHECK(g.bits_per_byte("ab", 0, 2, 1) == doctest::Approx(1.4112853644177363).epsilon(1e-9));  // -log2 P1(b)
}

TEST_CASE("sampling: flag ranges, greedy and top-k 1 take the arg-max, top-p keeps the likely set, a seed repeats") {
  CHECK(contains(error_of([&] { check_sampling({-1, 0, 1}, 256); }), "--temperature must be in 0..100"));
  CHECK(contains(error_of([&] { check_sampling({1, 257, 1}, 256); }), "--top-k must be in 0..256"));
  CHECK(contains(error_of([&] { check_sampling({1, 0, 0}, 256); }), "--top-p must be in (0, 1]"));
  CHECK(contains(error_of([&] { check_sampling({1, 0, 1.5}, 256); }), "--top-p must be in (0, 1]"));
  CHECK_NOTHROW(check_sampling({0, 256, 1}, 256));
  std::vector<float> logits(256, 0.0f);
  logits[65] = 3, logits[66] = 2.5, logits[67] = 2;
  Rng rng(1);
  CHECK(sample_logits(logits, {0, 0, 1}, rng) == 65);
  std::set<int32_t> seen_k1, seen_k2, seen_p;
  for (int i = 0; i < 200; ++i) {
    seen_k1.insert(sample_logits(logits, {1, 1, 1}, rng));
    seen_k2.insert(sample_logits(logits, {1, 2, 1}, rng));
    seen_p.insert(sample_logits(logits, {1, 0, 0.01}, rng));
  }
  CHECK(seen_k1 == std::set<int32_t>{65});
  CHECK(seen_k2 == std::set<int32_t>{65, 66});
  CHECK(seen_p == std::set<int32_t>{65});
  Rng a(9), b(9);
  for (int i = 0; i < 50; ++i) CHECK(sample_logits(logits, {1.5, 0, 0.95}, a) == sample_logits(logits, {1.5, 0, 0.95}, b));
}

TEST_CASE("generation from a model: a fixed seed gives the same bytes, another seed other ones") {
  auto model = lm_model("linear");
  auto run = [&](uint64_t seed) {
    LmDecoder dec(*model);
    Rng rng(seed);
    std::vector<float> l;
    for (unsigned char ch : std::string("The ")) l = dec.feed(int32_t(ch) + 1);
    std::string s;
    for (int i = 0; i < 30; ++i) {
      int32_t c = sample_logits(l, {1.0, 0, 1.0}, rng);
      s += char(c);
      l = dec.feed(c + 1);
    }
    return s;
  };
  CHECK(run(4) == run(4));
  CHECK(run(4) != run(5));
}

TEST_CASE("Utf8Printer: valid UTF-8 as is; invalid bytes and control codes as U+FFFD") {
  auto print = [](const std::string& in) {
    Utf8Printer p(nullptr);
    for (unsigned char c : in) p.put(c);
    p.flush();
    return p.written();
  };
  const std::string bad = "\xEF\xBF\xBD";
  CHECK(print("caf\xC3\xA9 \xE2\x82\xAC\n\t\xF0\x9F\x98\x80") == "caf\xC3\xA9 \xE2\x82\xAC\n\t\xF0\x9F\x98\x80");
  CHECK(print("a\xFF" "b") == "a" + bad + "b");
  CHECK(print("\xC3" "a") == bad + "a");          // a lead byte without its continuation
  CHECK(print("\xE0\x80\x80") == bad + bad + bad);  // overlong
  CHECK(print("\xED\xA0\x80") == bad + bad + bad);  // a surrogate
  CHECK(print("x\x1b[2J") == "x" + bad + "[2J");    // no terminal escapes
  CHECK(print("\xE2\x82") == bad);                  // cut at the end
}

// ---- the program: train --task lm, generate, bench-generate ----------------------------------
namespace {
struct Run {
  int status = -1;
  std::string out, err;
};
Run run_program(const std::string& args, const TempDir& dir) {
  std::string err_file = dir / "stderr.txt";
  Run r;
  r.status = az::test::run_shell("timeout -k 5 120 " + az::test::attnzoo_cmd() + " " + args + " 2>" + err_file, &r.out);
  std::ifstream in(err_file);
  r.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return r;
}
}  // namespace

TEST_CASE("attnzoo train --task lm, then generate: baselines beside the result, the task's defaults, a seed repeats") {
  TempDir dir("az_lm_cli");
  {
    std::ofstream f(dir / "text.txt");
    Rng r(3);
    const char* words[] = {"the ", "cat ", "sat ", "on ", "a ", "mat ", "and ", "ran.\n"};
    for (int i = 0; i < 2500; ++i) f << words[r.randint(8)];
  }
  std::string run = dir / "run";
  Run t = run_program("train --task lm --data " + (dir / "text.txt") + " --steps 4 --batch 4 --eval-every 2 --eval-limit 8 "
                      "--dim 32 --heads 2 --layers 1 --seq-len 32 --quiet --out " + run, dir);
  INFO(t.err);
  REQUIRE(t.status == 0);
  CHECK(contains(t.out, "test bits per byte"));
  CHECK(contains(t.out, "-gram "));  // the n-gram beside the result
  CHECK(contains(t.err, "validation bits per byte"));
  CHECK(contains(t.err, "lm: baselines fit on train"));
  std::ifstream cfg(run + "/config.json");
  std::string config((std::istreambuf_iterator<char>(cfg)), std::istreambuf_iterator<char>());
  CHECK(contains(config, "\"dim\":\"32\""));      // given: kept
  CHECK(contains(config, "\"dropout\":\"0\""));   // not given: the task's default
  CHECK(contains(config, "\"causal\":\"1\""));    // implied by the task
  CHECK(contains(config, "\"ffn\":\"256\""));

  std::string gen = "generate --ckpt " + run + "/best.ckpt --prompt 'The c' --tokens 40 --top-k 20 --seed 3";
  Run a = run_program(gen, dir), b = run_program(gen, dir), c = run_program(gen + "1", dir);
  INFO(a.err);
  REQUIRE(a.status == 0);
  CHECK(a.out.rfind("The c", 0) == 0);
  CHECK(a.out == b.out);
  CHECK(a.out != c.out);
  CHECK(contains(a.err, "tokens/s"));
  CHECK(contains(a.err, "KV cache"));
  CHECK(contains(a.err, "the context of 32 bytes is full; continuing from its last 16 bytes"));  // 5 + 40 > 32
  Run ev = run_program("eval --ckpt " + run + "/best.ckpt", dir);
  CHECK(contains(ev.out, "test bits per byte "));
  Run lng = run_program("generate --ckpt " + run + "/best.ckpt --prompt '" + std::string(33, 'x') + "'", dir);
  CHECK(lng.status == 2);
  CHECK(contains(lng.err, "the prompt has 33 bytes, more than the model's context of 32"));
  Run bad = run_program("generate --ckpt " + run + "/best.ckpt --prompt x --temperature -1", dir);
  CHECK(contains(bad.err, "--temperature must be in 0..100"));
  Run lin = run_program("train --task lm --model linformer --out " + (dir / "x"), dir);
  CHECK(lin.status == 2);
  CHECK(contains(lin.err, "'linformer' has no causal form ("));
}

TEST_CASE("attnzoo bench-generate: a row per model, its record and chart") {
  TempDir dir("az_lm_bench");
  Run r = run_program("bench-generate --models full,linear,gmlp,local --contexts 64,256 --tokens 4 --rerun-max 64 "
                      "--dim 16 --heads 2 --layers 1 --ffn 16 --out " + (dir / "out"), dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "| full | KV cache |"));
  CHECK(contains(r.out, "| linear | recurrent state |"));
  CHECK(contains(r.out, "| gmlp | cache of the gated half |"));
  CHECK(contains(r.out, "| local | KV cache of the last 65 positions (reads 65 per head) |"));
  CHECK(contains(r.out, "linear generates"));
  std::vector<std::string> lines;
  std::ifstream js(dir / "out/bench_generate.jsonl");
  for (std::string l; std::getline(js, l);) lines.push_back(l);
  CHECK(lines.size() == 8);  // every model at both contexts
  CHECK(std::filesystem::exists(dir / "out/bench_generate.png"));
  Run bad = run_program("bench-generate --models linformer", dir);
  CHECK(contains(bad.err, "has no causal form ("));
  // a model that re-runs the prefix is timed only up to --rerun-max (in process: test-rerun lives in this binary)
  REQUIRE(cmd_bench_generate({"--models", "test-rerun,full", "--contexts", "32,128", "--tokens", "2", "--rerun-max", "32",
                              "--dim", "16", "--heads", "2", "--layers", "1", "--ffn", "16", "--out", dir / "in"}) == 0);
  std::ifstream js2(dir / "in/bench_generate.jsonl");
  std::vector<std::string> rows;
  for (std::string l; std::getline(js2, l);) rows.push_back(l);
  REQUIRE(rows.size() == 3);  // full at 32 and 128, test-rerun at 32 only
  CHECK(contains(rows[0], "\"model\": \"test-rerun\", \"context\": 32"));
  // full's KV cache after C + 2 tokens, per layer K and V of 16 floats: 34 * 2 * 16 * 4 B = 4.25 KB at 32,
  // 130 * 128 B = 16.25 KB at 128 (guards KB as 1000 bytes and timing from C - 1; 4.352 and 4.125 then)
  CHECK(contains(rows[1], "\"model\": \"full\", \"context\": 32, "));
  CHECK(contains(rows[1], "\"state_kb\": 4.25, "));
  CHECK(contains(rows[2], "\"state_kb\": 16.25, "));
}

TEST_CASE("attnzoo bench-generate --replot: the table and linear's speed-up over full at the longest context, by hand") {
  // Guards the speed-up printed as full / linear (0.1x) or taken at the shortest context (3.0x).
  TempDir dir("az_lm_replot");
  std::filesystem::create_directories(dir / "out");
  {
    std::ofstream js(dir / "out/bench_generate.jsonl");
    auto row = [&](const char* m, int c, int tps, int kb, const char* how) {
      js << "{\"model\": \"" << m << "\", \"context\": " << c << ", \"tokens_per_s\": " << tps << ", \"state_kb\": " << kb
         << ", \"decoding\": \"" << how << "\", \"dim\": 64, \"layers\": 2}\n";
    };
    row("full", 1024, 100, 512, "KV cache"), row("full", 4096, 40, 2048, "KV cache");
    row("linear", 1024, 300, 8, "recurrent state"), row("linear", 4096, 320, 8, "recurrent state");
  }
  Run r = run_program("bench-generate --replot --out " + (dir / "out"), dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "| full | KV cache | 100 | 40 | 512.0 KB | 2048.0 KB |"));
  CHECK(contains(r.out, "at 4K context: linear generates 8.0x the tokens/s of full"));  // 320 / 40
}
