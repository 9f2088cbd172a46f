// The conformance suite: every registered variant and mixer, and every registered task, held
// to the project's invariants with no test code of its own (issue 77).  The registry is the
// list: a variant added in attention/, mlp_mixer/ or a folder of one's own (make USER_DIR=path,
// examples/README.md) is checked here without a line added.  Each case is one invariant; each
// model, at each setting, is a doctest subcase named "MODEL (SETTING)", so
//   build/tests/test_conformance -sc='cosine*'
// checks one model.  A failure says which invariant broke and why a user would care.
//
// Settings: the registration's defaults (what `attnzoo train --model NAME` runs), and "small":
// every knob whose default is above kSmall brought down to it within its range, so that at
// N = 37 the windows, blocks, buckets, chunks and features of a pattern are several and ragged
// (N is not a multiple of them).  Tolerances are the project's, one for all models: a model
// that needs a looser one has a bug or an unstated deviation.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <omp.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "attention/attention.h"
#include "autograd/runtime/strings.h"
#include "train/checkpoint.h"
#include "train/cli/commands.h"
#include "train/parallel.h"
#include "train/tasks.h"
#include "train/trainer.h"
#include "tests/attention_check.h"
#include "tests/util.h"

using namespace az;
using namespace az::testing;
using az::test::error_of;

namespace {

using Knobs = std::map<std::string, double>;

// ---- the models and settings every case iterates ---------------------------------------------

constexpr double kSmall = 4;        // the "small" setting's sizes
constexpr int64_t kMaxLen = 40;  // above N: the models sized by --seq-len slice their weights
struct Shape3 {
  int64_t N, D, H;
  std::vector<int64_t> lens;  // one per example; shorter ones are padded at the end
  int64_t max_len = kMaxLen;
};
// Two shapes for a layer: an odd N, and more heads of another width.
const Shape3 kShapes[] = {{37, 16, 2, {37, 30, 11}}, {24, 24, 3, {24, 17}}};
// Batch-mates also at a length the defaults' blocks and chunks (64) divide into several.
const Shape3 kLong = {230, 16, 2, {230, 150}, 256};
constexpr int64_t kN = 37, kD = 16, kH = 2;  // the classifier's (threads, checkpoints)

struct Setting {
  std::string model, label;  // label: "defaults", "small", or a mode ("synth_mode=random")
  Knobs knobs;
};

// The registration's knobs with every default above kSmall brought down to it (in range).
Knobs small_knobs(const AttentionInfo& info) {
  Knobs k;
  for (auto& row : info.knobs)
    if (row.def > kSmall) k[row.name] = std::max(row.lo, std::min(row.hi, kSmall));
  return k;
}

std::vector<Setting> settings() {
  std::vector<Setting> s;
  for (const std::string& name : attention_names()) {
    const AttentionInfo& info = attention_info(name);
    s.push_back({name, "defaults", {}});
    Knobs small = small_knobs(info);
    if (!small.empty()) s.push_back({name, "small", small});
    // Every mode other than the default (synthesizer's random and factorised, reformer's lra
    // form), at the small setting: a mode is a model of its own that no default reaches.
    for (const Knob& k : info.knobs)
      for (size_t c = 0; c < k.choices.size(); ++c)
        if (double(c) != k.def) {
          Knobs mode = small;
          mode[k.name] = double(c);
          s.push_back({name, k.name + "=" + k.choices[c], mode});
        }
  }
  return s;
}

// Runs body(setting) for every model and setting, each in a subcase named "MODEL (SETTING)",
// with the invariant and why a user cares in every failure's message.
template <class F>
void for_each_setting(const char* invariant, const char* why, F body) {
  for (const Setting& s : settings()) {
    const std::string sub = s.model + " (" + s.label + ")";
    SUBCASE(sub.c_str()) {
      const std::string inv = invariant, matters = why;  // INFO keeps references: strings, not pointers
      INFO("invariant: " << inv);
      INFO("why it matters: " << matters);
      INFO("model: " << sub);
      body(s);
    }
  }
}

// The forms a model has: the plain one, and the causal one where its registration promises it.
std::vector<bool> forms_of(const std::string& model) {
  return attention_info(model).causal_ok ? std::vector<bool>{false, true} : std::vector<bool>{false};
}

// The invariants a registration may state it does not keep (AttentionInfo::deviations), by key.
const std::vector<std::string> kDeviationKeys = {"batch-mates", "padding"};
// What the registration states for invariant `key` in this setting: under the key alone, or for
// one mode under "key (knob=mode)", the setting's label.  Empty: it keeps the invariant.
std::string deviation(const Setting& s, const std::string& key) {
  const auto& dev = attention_info(s.model).deviations;
  for (const std::string& k : {key, key + " (" + s.label + ")"})
    if (auto it = dev.find(k); it != dev.end()) return it->second;
  return "";
}

AttentionConfig config_of(const Setting& s, bool causal, const Shape3& sh) {
  AttentionConfig c;
  c.dim = sh.D, c.heads = sh.H, c.max_len = sh.max_len, c.causal = causal;
  c.knobs = s.knobs;
  if (causal)
    for (auto& [k, v] : attention_info(s.model).causal_knobs) c.knobs[k] = v;  // e.g. longformer: no global tokens
  return c;
}

std::shared_ptr<Attention> build(const Setting& s, bool causal, const Shape3& sh = kShapes[0]) {
  global_rng().seed_with(11);
  return make_attention(s.model, config_of(s, causal, sh));
}

Tensor scramble_padding(const Tensor& x, const Tensor& pad) {  // other values at the padded positions
  Tensor y = x.clone();
  Rng r(4242);
  const int64_t D = x.size(2);
  for (int64_t i = 0; i < pad.numel(); ++i)
    if (pad.data()[i] != 0)
      for (int64_t t = 0; t < D; ++t) y.data()[i * D + t] = 3.0f * r.normal();
  return y;
}

// The first non-finite value of t ("" when all are finite).
std::string nonfinite(const Tensor& t, const std::string& what) {
  for (int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(t.data()[i])) return what + " element " + std::to_string(i) + " is " + std::to_string(t.data()[i]);
  return "";
}

// ---- models as the trainer builds them: a one-layer classifier around the mixer ----------------

ModelConfig classifier_of(const Setting& s) {
  ModelConfig m;
  m.model = s.model, m.knobs = s.knobs;
  m.vocab = 10, m.num_classes = 3, m.max_len = kMaxLen;
  m.dim = kD, m.heads = kH, m.layers = 1, m.ffn = 16, m.dropout = 0.1f, m.attn_dropout = 0.1f;
  return m;
}

// Five examples of ragged lengths, padded to 37: a batch-parallel step cuts it into 2 shards.
Batch ragged_batch() {
  Batch b;
  b.B = 5, b.N = kN;
  const int64_t lens[] = {37, 30, 11, 25, 3};
  for (int64_t i = 0; i < b.B; ++i) {
    for (int64_t j = 0; j < b.N; ++j) {
      bool pad = j >= lens[i];
      b.tokens.push_back(pad ? 0 : int32_t(1 + (i * 7 + j * 3) % 9));
      b.pad_mask.push_back(pad ? 1.0f : 0.0f);
    }
    b.labels.push_back(int32_t(i % 3));
  }
  return b;
}

struct ThreadCount {  // omp_set_num_threads for a scope
  explicit ThreadCount(int t) : before(omp_get_max_threads()) { omp_set_num_threads(t); }
  ~ThreadCount() { omp_set_num_threads(before); }
  int before;
};

// Every gradient and buffer of a module, as bits, by name.
using Bits = std::map<std::string, std::vector<float>>;
Bits bits_of(const Module& m) {
  Bits b;
  for (auto& p : m.named_parameters())
    b["gradient of " + p.name] = p.tensor.has_grad() ? std::vector<float>(p.tensor.grad_data(), p.tensor.grad_data() + p.tensor.numel())
                                                     : std::vector<float>();
  for (auto& p : m.named_buffers()) b["buffer " + p.name] = p.tensor.to_vector();
  return b;
}
std::string first_difference(const Bits& a, const Bits& b) {
  for (auto& [name, v] : a) {
    auto it = b.find(name);
    if (it == b.end() || it->second.size() != v.size() || std::memcmp(v.data(), it->second.data(), v.size() * sizeof(float)) != 0)
      return name;
  }
  return a.size() == b.size() ? "" : "(the number of tensors)";
}

// Runs f with the process's stdout sent to /dev/null (export and import print a line each).
template <class F>
void quietly(F f) {
  std::fflush(stdout);
  int saved = dup(1), null = open("/dev/null", O_WRONLY);
  dup2(null, 1);
  close(null);
  try {
    f();
  } catch (...) {
    std::fflush(stdout), dup2(saved, 1), close(saved);
    throw;
  }
  std::fflush(stdout), dup2(saved, 1), close(saved);
}

}  // namespace

// ---- the invariants --------------------------------------------------------------------------

TEST_CASE("the registry: every model builds at its defaults and at the small setting, with the promised flags") {
  for_each_setting("builds from its registration", "attnzoo train --model NAME builds what the registry lists",
                   [](const Setting& s) {
                     const AttentionInfo& info = attention_info(s.model);
                     CHECK(info.name == s.model);
                     CHECK(!info.summary.empty());
                     CHECK(std::find(attention_families().begin(), attention_families().end(), info.family) !=
                           attention_families().end());
                     for (auto& k : info.knobs) {
                       CAPTURE(k.name);
                       CHECK(!k.help.empty());
                       CHECK(k.lo <= k.def);  // the default is a setting the range allows
                       CHECK(k.def <= k.hi);
                     }
                     auto has_knob = [&](const std::string& k) {
                       return std::any_of(info.knobs.begin(), info.knobs.end(), [&](const Knob& r) { return r.name == k; });
                     };
                     for (auto& [k, v] : info.causal_knobs) CHECK_MESSAGE(has_knob(k), "causal_knobs names no knob " << k);
                     for (auto& [key, why] : info.deviations) {  // a key the suite knows, with a reason
                       bool known = false;  // "padding", or "padding (form=lra)" for one of a knob's modes
                       for (const std::string& inv : kDeviationKeys) {
                         known = known || key == inv;
                         for (auto& k : info.knobs)
                           for (auto& c : k.choices) known = known || key == inv + " (" + k.name + "=" + c + ")";
                       }
                       CHECK_MESSAGE(known, "deviations: no invariant '" << key << "' (valid: batch-mates, padding, "
                                                                            "each alone or as 'KEY (knob=mode)')");
                       CHECK(!why.empty());
                     }
                     auto att = build(s, false);
                     CHECK(att->config().knobs.size() == info.knobs.size());  // every knob filled in
                   });
}

TEST_CASE("fast form == reference(): outputs and every gradient, padded and ragged, in eval and training") {
  for_each_setting(
      "forward() and reference() are one function: outputs, the input's and every parameter's gradient",
      "--impl reference is the form a reader checks and the page shows; when it differs, training runs another function",
      [](const Setting& s) {
        for (const Shape3& sh : kShapes) {
          CAPTURE(sh.N);
          for (bool causal : forms_of(s.model)) {
            for (bool training : {false, true}) {
              CAPTURE(causal);
              CAPTURE(training);
              auto att = build(s, causal, sh);
              att->train(training);
              Tensor x = random_input(int64_t(sh.lens.size()), sh.N, sh.D, 5);
              Tensor pad = padding(sh.N, sh.lens);
              Draws draws(*att);
              check_same_function(
                  *att, [&](const Tensor& in) { draws.restore(*att); return att->forward(in, pad); },
                  [&](const Tensor& in) { draws.restore(*att); return att->reference(in, pad); }, x, pad, 2e-4);
            }
          }
        }
      });
}

TEST_CASE("padding: the outputs at real tokens do not depend on what the padded positions hold") {
  for_each_setting(
      "outputs at real tokens are the same whatever the padded positions hold",
      "a padded batch must score an example as it is: otherwise accuracy depends on the filler after it",
      [](const Setting& s) {
        for (const Shape3& sh : kShapes) {
          CAPTURE(sh.N);
          for (bool training : {false, true}) {
            CAPTURE(training);
            auto att = build(s, false, sh);
            att->train(training);
            Tensor x = random_input(int64_t(sh.lens.size()), sh.N, sh.D, 6).detach();
            Tensor pad = padding(sh.N, sh.lens);
            Draws draws(*att);
            NoGradGuard ng;
            draws.restore(*att);
            Tensor y1 = att->forward(x, pad);
            draws.restore(*att);
            Tensor y2 = att->forward(scramble_padding(x, pad), pad);
            Tensor keep = Tensor::ones(x.shape());
            for (int64_t i = 0; i < keep.numel(); ++i) keep.data()[i] = pad.data()[i / sh.D] != 0 ? 0.0f : 1.0f;
            const std::string why = deviation(s, "padding");
            if (why.empty()) {
              check_close(mul(y1, keep), mul(y2, keep), 1e-5, "outputs at real tokens, padding scrambled");
            } else {  // stated: it must still happen, or the statement is out of date
              MESSAGE(s.model << " (" << s.label << ") states that it does not keep this invariant: " << why);
              double worst = 0;
              for (int64_t i = 0; i < y1.numel(); ++i)
                worst = std::max(worst, double(keep.data()[i]) * std::fabs(double(y1.data()[i]) - y2.data()[i]));
              CHECK_MESSAGE(worst > 1e-5, "the registration says padding moves its outputs, and it no longer does: "
                                          "remove the \"padding\" deviation");
            }
            CHECK(nonfinite(y1, "output") == "");
          }
        }
      });
}

TEST_CASE("batch-mates: an example's output alone (its own length) is its output in a padded batch") {
  for_each_setting(
      "an example's outputs are the same alone, unpadded, as in a batch padded to a longer example",
      "evaluation pads each batch to its longest member: a prediction must not depend on the test file's order",
      [](const Setting& s) {
        double worst = 0;  // over every shape
        for (const Shape3& sh : {kShapes[0], kShapes[1], kLong}) {
          auto att = build(s, false, sh);
          att->eval();
          Tensor x = random_input(int64_t(sh.lens.size()), sh.N, sh.D, 7).detach();
          Tensor pad = padding(sh.N, sh.lens);
          Draws draws(*att);
          NoGradGuard ng;
          draws.restore(*att);
          Tensor batch = att->forward(x, pad);
          for (size_t b = 0; b < sh.lens.size(); ++b) {
            const int64_t L = sh.lens[b];
            draws.restore(*att);
            Tensor alone = att->forward(narrow(narrow(x, 0, int64_t(b), 1), 1, 0, L), Tensor());
            Tensor within = narrow(narrow(batch, 0, int64_t(b), 1), 1, 0, L);
            for (int64_t i = 0; i < alone.numel(); ++i)
              worst = std::max(worst, std::fabs(double(alone.data()[i]) - within.data()[i]));
          }
        }
        // A deviation the registration states (AttentionInfo::deviations) is printed, and must
        // still happen at the small setting, where blocks and buckets are below the batch's length.
        const std::string why = deviation(s, "batch-mates");
        if (why.empty()) {
          CHECK_MESSAGE(worst <= 1e-5, "worst difference " << worst << " between an example alone and in the batch");
        } else if (s.label != "defaults" || small_knobs(attention_info(s.model)).empty()) {
          MESSAGE(s.model << " (" << s.label << ") states that it does not keep this invariant: " << why);
          CHECK_MESSAGE(worst > 1e-5, "the registration says it depends on its batch-mates, and it no longer does: "
                                      "remove \"batch-mates\" from its deviations");
        }
      });
}

TEST_CASE("evaluation: the same input twice gives the same output bits, whatever ran in between") {
  for_each_setting(
      "in eval mode a model is a function: no random draw or state changes its output from call to call",
      "eval and predict must give one answer for an input: a score that moves between runs of the same checkpoint means nothing",
      [](const Setting& s) {
        for (const Shape3& sh : kShapes)
          for (bool causal : forms_of(s.model)) {
            CAPTURE(sh.N);
            CAPTURE(causal);
            auto att = build(s, causal, sh);
            att->eval();
            Tensor x = random_input(int64_t(sh.lens.size()), sh.N, sh.D, 10).detach();
            Tensor pad = padding(sh.N, sh.lens);
            NoGradGuard ng;
            const std::vector<float> first = att->forward(x, pad).to_vector();
            global_rng().seed_with(12345);  // another state of the random source, and other inputs in between
            for (int k = 0; k < 8; ++k) att->forward(random_input(1, sh.N - 5, sh.D, 11 + k).detach(), Tensor());
            CHECK(att->forward(x, pad).to_vector() == first);
          }
      });
}

TEST_CASE("every key padded: the outputs and every gradient are finite") {
  for_each_setting(
      "with every key of an example padded, outputs and gradients are finite",
      "one NaN from an empty row (a fully padded example or pair half) turns every parameter into NaN at the next step",
      [](const Setting& s) {
        for (const Shape3& sh : kShapes) {
          CAPTURE(sh.N);
          for (bool causal : forms_of(s.model))
          for (bool training : {false, true}) {
            CAPTURE(causal);
            CAPTURE(training);
            auto att = build(s, causal, sh);
            att->train(training);
            Tensor x = random_input(2, sh.N, sh.D, 8);
            Tensor pad = padding(sh.N, {sh.N, 0});  // the second example: nothing but padding
            Tensor y = att->forward(x, pad);
            CHECK(nonfinite(y, "output") == "");
            // a loss that reads the real tokens only, as every head's does (none of the second example)
            sum(narrow(y, 0, 0, 1)).backward();
            CHECK(nonfinite(x.grad(), "gradient of x") == "");
            for (auto& p : att->named_parameters())
              if (p.tensor.has_grad()) CHECK(nonfinite(p.tensor.grad(), "gradient of " + p.name) == "");
          }
        }
      });
}

TEST_CASE("causal forms: no output depends on a later position, in value or gradient") {
  for_each_setting(
      "with --causal, the output at position i depends on positions <= i only",
      "a language model that reads the next token learns to copy it: low training loss, nonsense generation",
      [](const Setting& s) {
        for (const Shape3& sh : kShapes) {
          CAPTURE(sh.N);
          if (!attention_info(s.model).causal_ok) return;  // refused instead (the hostile settings case)
          const int64_t t = 20;                            // the position changed
          for (bool training : {false, true}) {
            CAPTURE(training);
            auto att = build(s, true, sh);
            att->train(training);
            Tensor x = random_input(int64_t(sh.lens.size()), sh.N, sh.D, 9);
            Tensor pad = padding(sh.N, sh.lens);
            Draws draws(*att);
            // values: position t changed, every earlier output the same bits
            Tensor x2 = x.detach().clone();
            for (int64_t b = 0; b < x2.size(0); ++b)
              for (int64_t k = 0; k < sh.D; ++k) x2.data()[(b * sh.N + t) * sh.D + k] += 2.0f;
            Tensor y1, y2;
            {
              NoGradGuard ng;
              draws.restore(*att);
              y1 = att->forward(x.detach(), pad);
              draws.restore(*att);
              y2 = att->forward(x2, pad);
            }
            int64_t changed_before = 0;
            for (int64_t b = 0; b < y1.size(0); ++b)
              for (int64_t i = 0; i < t && i < sh.lens[size_t(b)]; ++i)
                for (int64_t k = 0; k < sh.D; ++k) changed_before += y1.data()[(b * sh.N + i) * sh.D + k] != y2.data()[(b * sh.N + i) * sh.D + k];
            CHECK_MESSAGE(changed_before == 0, "outputs before position " << t << " moved when it changed");
            // gradients: the outputs before t, back-propagated, reach no input at t or later
            draws.restore(*att);
            Tensor y = att->forward(x, pad);
            Tensor before = Tensor::zeros(y.shape());
            for (int64_t b = 0; b < y.size(0); ++b)
              for (int64_t i = 0; i < t; ++i)
                for (int64_t k = 0; k < sh.D; ++k) before.data()[(b * sh.N + i) * sh.D + k] = 1.0f + 0.01f * float(k);
            sum(mul(y, before)).backward();
            int64_t later = 0;
            for (int64_t b = 0; b < x.size(0); ++b)
              for (int64_t j = t; j < sh.N; ++j)
                for (int64_t k = 0; k < sh.D; ++k) later += x.grad().data()[(b * sh.N + j) * sh.D + k] != 0.0f;
            CHECK_MESSAGE(later == 0, later << " gradient entries of positions >= " << t << " are nonzero");
          }
        }
      });
}

TEST_CASE("threads: a batch-parallel step gives the same gradient and buffer bits at 1, 2 and 3 threads") {
  for_each_setting(
      "a step's gradients and buffers are the same bits at any thread count",
      "a run must reproduce on another machine, and a resumed run must equal one never stopped",
      [](const Setting& s) {
        for (bool causal : forms_of(s.model)) {
          CAPTURE(causal);
          ModelConfig m = classifier_of(s);
          m.causal = causal;
          if (causal)
            for (auto& [k, v] : attention_info(s.model).causal_knobs) m.knobs[k] = v;
          const Batch batch = ragged_batch();
          REQUIRE(shard_count(Parallel::kBatch, batch.B, batch.N) == 2);
          auto step_at = [&](int threads) {
            ThreadCount tc(threads);
            global_rng() = Rng(5);  // the same weights, features, rotations and dropout masks
            SequenceClassifier model(m);
            model.train();
            for (int step = 0; step < 2; ++step) {  // the second step reads the buffers the first wrote
              model.zero_grad();
              model.before_step();
              sharded_backward(model, batch, Parallel::kBatch, m.max_len, [&](const Batch& rows) {
                Tensor logits = model.forward(rows);
                return ShardLoss{cross_entropy(logits, IntTensor({rows.B}, rows.labels)), rows.B, 0};
              });
            }
            return bits_of(model);
          };
          const Bits one = step_at(1);
          CHECK(first_difference(one, step_at(2)) == "");
          CHECK(first_difference(one, step_at(3)) == "");
        }
      });
}

TEST_CASE("checkpoints: a saved, exported and imported model gives the same logits, bit for bit") {
  for_each_setting(
      "parameters and buffers determine the model: saved and loaded, or exported and imported, it computes the same",
      "eval, predict and another framework read the checkpoint: state kept outside it is lost on the way",
      [](const Setting& s) {
        test::TempDir dir("az_conformance");
        ModelConfig m = classifier_of(s);
        m.dropout = 0, m.attn_dropout = 0;
        const Batch batch = ragged_batch();
        global_rng() = Rng(21);
        SequenceClassifier model(m);
        model.train();
        model.before_step();
        cross_entropy(model.forward(batch), IntTensor({batch.B}, batch.labels)).backward();  // first-call state (k-means)
        model.eval();
        NoGradGuard ng;
        auto logits_of = [&](SequenceClassifier& mdl) {
          global_rng() = Rng(99);  // the same source for any draw at evaluation
          return mdl.forward(batch).to_vector();
        };
        const std::vector<float> want = logits_of(model);
        Checkpoint c;
        c.model_config = m.to_map(), c.train_config = TrainConfig().to_map();
        c.params = records_of(model.named_parameters()), c.buffers = records_of(model.named_buffers());
        save_checkpoint(dir / "a.ckpt", c);
        auto loaded = [&](const std::string& path) {
          Checkpoint back = load_checkpoint(path);
          global_rng() = Rng(1234);  // other initial weights and draws, all to be replaced
          auto mdl = std::make_shared<SequenceClassifier>(ModelConfig::from_map(back.model_config));
          load_into(mdl->named_parameters(), back.params, "parameter", path);
          load_into(mdl->named_buffers(), back.buffers, "buffer", path);
          mdl->eval();
          return mdl;
        };
        CHECK_MESSAGE(logits_of(*loaded(dir / "a.ckpt")) == want, "saved and loaded");
        quietly([&] {
          REQUIRE(cmd_export({"--ckpt", dir / "a.ckpt", "--out", dir / "a.safetensors"}) == 0);
          REQUIRE(cmd_import({"--in", dir / "a.safetensors", "--out", dir / "b.ckpt"}) == 0);
        });
        CHECK_MESSAGE(logits_of(*loaded(dir / "b.ckpt")) == want, "exported to safetensors and imported");
      });
}

TEST_CASE("hostile settings: out-of-range, NaN and unknown knobs, and a causal form it lacks, are refused in one line") {
  for (const std::string& name : attention_names()) {
    const AttentionInfo& info = attention_info(name);
    SUBCASE(name.c_str()) {
      INFO("invariant: a setting outside the registration's range is refused, naming the flag and the range");
      INFO("why it matters: a bad flag must stop the run at once in one line, not crash or train nonsense for hours");
      INFO("model: " << name);
      auto refusal = [&](const Knobs& knobs, bool causal) {
        AttentionConfig c;
        c.dim = kD, c.heads = kH, c.max_len = kMaxLen, c.causal = causal, c.knobs = knobs;
        return error_of<Error>([&] { make_attention(name, c); });
      };
      for (auto& k : info.knobs) {
        std::string flag = "--" + k.name;
        std::replace(flag.begin(), flag.end(), '_', '-');
        for (double v : {k.lo - 1, k.hi + 1, std::nan(""), HUGE_VAL, -HUGE_VAL}) {
          CAPTURE(flag);
          CAPTURE(v);
          std::string e = refusal({{k.name, v}}, false);
          CHECK(test::contains(e, flag + " "));
          CHECK(test::contains(e, "out of range for model '" + name + "'"));
          CHECK(e.find('\n') == std::string::npos);
        }
        for (double v : {k.lo, k.hi}) {  // the ends of the range are allowed
          AttentionConfig c;
          c.dim = kD, c.heads = kH, c.max_len = kMaxLen, c.knobs = {{k.name, v}};
          CHECK(error_of<Error>([&] { check_attention(name, c); }) == "");
        }
        if (k.choices.empty()) continue;
        // A mode: one name for each whole value of its range, each taken as its number; a
        // value between two modes and a name it lacks are refused, listing the modes.
        CAPTURE(flag);
        CHECK(k.lo == 0);
        CHECK(k.hi == double(k.choices.size() - 1));
        for (size_t i = 0; i < k.choices.size(); ++i) CHECK(knob_value(k, k.choices[i]) == double(i));
        CHECK(knob_value(k, "1") == 1.0);
        const std::string listed = "0 " + k.choices[0] + (k.choices.size() > 2 ? ", " : " or ");
        std::string between = refusal({{k.name, 0.5}}, false);
        CHECK(test::contains(between, flag + " 0.5 is not a mode of model '" + name + "' (expected " + listed));
        std::string bogus = error_of<Error>([&] { knob_value(k, "no-such-mode"); });
        CHECK(test::contains(bogus, flag + " expects a mode (" + listed));
        CHECK(test::contains(bogus, "), got 'no-such-mode'"));
        // Every command that takes the model's settings takes the name: train records its number.
        const std::string last = k.choices.back(), number = std::to_string(k.choices.size() - 1);
        test::TempDir dir("az_conformance_mode");
        std::string out;
        CHECK_MESSAGE(test::run_cli("pattern --model " + name + " " + flag + " " + last + " --seq-len 16 --out " +
                                    (dir / "p.png"), &out) == 0, out);
        CHECK_MESSAGE(test::run_cli("train --task listops --model " + name + " " + flag + " " + last +
                                    " --steps 1 --dim 16 --heads 2 --layers 1 --ffn 16 --batch 4 --eval-limit 8 --quiet"
                                    " --out " + (dir / "t"), &out) == 0, out);
        std::ifstream config(dir / "t/config.json");
        const std::string recorded((std::istreambuf_iterator<char>(config)), std::istreambuf_iterator<char>());
        CHECK(test::contains(recorded, "\"knob." + k.name + "\":\"" + number + "\""));
      }
      std::string unknown = refusal({{"no_such_setting", 1}}, false);
      CHECK(test::contains(unknown, "model '" + name + "' has no setting --no-such-setting"));
      if (!info.causal_ok) CHECK(test::contains(refusal({}, true), "model '" + name + "' has no causal form"));
      else CHECK(refusal(info.causal_knobs, true) == "");  // with the settings its causal form needs
    }
  }
}

TEST_CASE("every task: defaults in range, out-of-range and unknown option values refused naming the flag") {
  for (const std::string& name : task_names()) {
    const TaskInfo& info = task_info(name);
    SUBCASE(name.c_str()) {
      INFO("invariant: a task's options are checked against its registration before any data is read");
      INFO("why it matters: a bad task flag must stop the run in one line, not after minutes of loading");
      INFO("task: " << name);
      CHECK(!info.summary.empty());
      CHECK(info.load);
      TrainConfig tc;
      tc.task = name;
      std::map<std::string, std::string> defaults;
      CHECK(error_of<Error>([&] { defaults = task_settings(tc); }) == "");
      for (auto& o : info.options) {
        CAPTURE(o.name);
        CHECK(defaults.count(o.name) == 1);  // every option filled in
        CHECK(!o.help.empty());
        std::vector<std::string> bad;
        if (o.kind == TaskOption::kText && !o.choices.empty()) bad = {"no-such-choice"};
        if (o.kind != TaskOption::kText) bad = {fmt("%.17g", o.lo - 1), fmt("%.17g", o.hi + 1), "nan", "ten"};
        for (const std::string& v : bad) {
          CAPTURE(v);
          tc.task_args = {{o.name, v}};
          std::string e = error_of<Error>([&] { task_settings(tc); });
          CHECK(test::contains(e, "--" + o.name));
          CHECK(e.find('\n') == std::string::npos);
        }
        tc.task_args.clear();
      }
    }
  }
}

TEST_CASE("every task: its options survive a checkpoint's configuration, so eval and resume load the same data") {
  for (const std::string& name : task_names()) {
    const TaskInfo& info = task_info(name);
    SUBCASE(name.c_str()) {
      INFO("invariant: the task's options, written into a checkpoint and read back, are the options it ran with");
      INFO("why it matters: eval, predict and --resume rebuild the data from the checkpoint: another option is other data");
      INFO("task: " << name);
      TrainConfig tc;
      tc.task = name;
      for (auto& o : info.options) {  // each option at a value other than its default, where it has one
        std::string v = o.def;
        if (o.kind != TaskOption::kText) v = fmt("%.17g", fmt("%.17g", o.lo) != o.def ? o.lo : o.hi);
        for (auto& c : o.choices)
          if (c != o.def) v = c;
        tc.task_args[o.name] = v;
      }
      std::map<std::string, std::string> ran, loaded;
      REQUIRE(error_of<Error>([&] { ran = task_settings(tc); }) == "");
      TrainConfig back = TrainConfig::from_map(tc.to_map());
      REQUIRE(error_of<Error>([&] { loaded = task_settings(back); }) == "");
      CHECK(back.task == name);
      CHECK(loaded == ran);
    }
  }
}
