// The one interface every token mixer implements, and the registry that the
// CLI, the benchmarks and the tests use to build them by name.
//
// A variant is one .cpp file in attention/ (or mlp_mixer/) that defines a
// subclass of Attention and registers it with a static RegisterAttention
// (name, one-line summary, its knobs with defaults and ranges, a factory).
// The library is linked whole-archive so these registrations always run.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nn/layers.h"

namespace az {

class DecodeState;  // attention/decode/decode.h

// Every model has two forms of one function (issue 54).  The fast form,
// forward(), is what training runs by default: fused kernels where the variant
// has them (attention/kernels/).  The reference form, reference(), is the
// algorithm written to be read: composed autograd ops only (ops.h), in the
// paper's order, with the same random draws, so the two are the same function
// (tests/test_reference.cpp checks outputs and every gradient).  It may store
// N x N matrices; it is for reading and checking, not for speed.
// `--impl fast|reference` (train, eval, bench, predict, generate) picks the
// form every layer runs, process-wide, as PyTorch's sdpa backend choice is.
enum class Impl { fast, reference };
Impl& attention_impl();                          // default Impl::fast
Impl parse_impl(const std::string& name);        // "fast" or "reference"; else one line naming --impl
const char* impl_name(Impl i);
struct ImplScope {                               // sets the form for a scope (tests)
  explicit ImplScope(Impl i) : prev_(attention_impl()) { attention_impl() = i; }
  ~ImplScope() { attention_impl() = prev_; }
  Impl prev_;
};

// A variant's own setting (window, block, buckets, features, ...).
struct Knob {
  std::string name;
  double def, lo, hi;  // default and inclusive range
  std::string help;
  // A mode's names, value i's at [i] (synthesizer's {"dense", "random", "factorised"}): the flag
  // takes the name or the number, and the variant reads it as its own enum class.  Empty: a number.
  std::vector<std::string> choices = {};
};
// A knob's value from its flag's text: a number in range, or one of its choices' names.
// Otherwise one line naming the flag and what it takes.
double knob_value(const Knob& k, const std::string& text);

struct AttentionConfig {
  int64_t dim = 64, heads = 4;
  int64_t max_len = 512;   // longest sequence the layer must accept
  bool causal = false;
  float dropout = 0.0f;    // attention dropout, where the variant has weights to drop
  std::map<std::string, double> knobs;  // filled with every knob's value by make_attention
  int64_t head_dim() const { return dim / heads; }
};

// Which entries of the N x N matrix a variant computes for one input (head 0):
// cell[i * n + j] = 0 when not computed, else a 1-based index into legend.
struct Pattern {
  int64_t n = 0;
  std::vector<uint8_t> cell;
  std::vector<std::string> legend;
};

class Attention : public Module {
 public:
  explicit Attention(const AttentionConfig& c) : cfg_(c) {}
  // x [B,N,D]; key_pad [B,N] with 1 at padding positions, or undefined.
  // Returns [B,N,D].  Outputs at padding positions are unspecified but finite.
  // The fast form.
  virtual Tensor forward(const Tensor& x, const Tensor& key_pad) = 0;
  // The reference form: the same function in composed ops, in the variant's own file.
  virtual Tensor reference(const Tensor& x, const Tensor& key_pad) = 0;
  // What a model calls: forward(), or reference() under --impl reference (through call()).
  Tensor operator()(const Tensor& x, const Tensor& key_pad) { return call(x, key_pad, attention_impl()); }
  // For x [1,N,D]: the entries computed (default: all of them, "dense").
  virtual Pattern pattern(const Tensor& x, const Tensor& key_pad);
  // For x [1,N,D]: the attention weights [H,N,N] the forward pass applies,
  // zero where nothing is computed.  Variants without such a matrix throw.
  virtual Tensor attention_weights(const Tensor& x, const Tensor& key_pad);
  // Incremental decoding (attention/decode/decode.h): a state fed one position at a
  // time, or null (the default) when the variant has none: generation then
  // re-runs the whole prefix for every token.
  virtual std::unique_ptr<DecodeState> decoder();
  // Mixers that are a whole block (gMLP) ask the model to skip its FFN.
  virtual bool replaces_ffn() const { return false; }
  const AttentionConfig& config() const { return cfg_; }
  double knob(const std::string& name) const;  // throws if the variant has no such knob
  int64_t knob_int(const std::string& name) const { return int64_t(knob(name)); }

 protected:
  // operator()'s body: the chosen form.  A variant whose training also learns a buffer outside the
  // gradient (routing's centroids, by k-means and an EMA) overrides it to run either form and then
  // make that update from what the form saw, so that forward() and reference() both stay functions
  // of their input, parameters and buffers, and both forms learn the same state.
  virtual Tensor call(const Tensor& x, const Tensor& key_pad, Impl impl) {
    return impl == Impl::reference ? reference(x, key_pad) : forward(x, key_pad);
  }
  AttentionConfig cfg_;
};

using AttentionFactory = std::function<std::shared_ptr<Attention>(const AttentionConfig&)>;

// A model's place in the lecture's order: the stop of the tour it is read at
// (docs/tour.md: 1 full attention, 2 local, ... 12 the attention-free mixers;
// the stops' prose is in train/lab/docs.cpp, and a number no stop has yet
// opens a stop of its own) and its seat among that stop's models.
struct LecturePlace {
  int stop = 0, seat = 0;
};

struct AttentionInfo {
  std::string name, summary;
  std::vector<Knob> knobs;
  AttentionFactory make;
  bool causal_ok = false;  // supports cfg.causal
  std::string family;      // "dense", "fixed", "learned", "low-rank/kernel", "attention-free"
  // {stop, seat}: where the tour, the README's and ARCHITECTURE's lists and the index read it.
  LecturePlace lecture = {};
  std::string why_not_causal = {};  // without a causal form: why, in a few words (for the refusal)
  // Settings its causal form needs where the defaults have none (longformer: no global tokens):
  // what a caller that must run it causally (the lm column of `attnzoo lra`) passes.
  std::map<std::string, double> causal_knobs = {};
  // The invariants of the conformance suite (tests/test_conformance.cpp) it does not keep, by the
  // suite's key ("batch-mates": an example's output alone equals its output in a padded batch;
  // "padding": outputs at real tokens do not depend on what padded positions hold), or for one
  // mode only as "KEY (knob=mode)" (reformer's "padding (form=lra)"), each with why, in a
  // sentence.  The suite prints each, and fails when one no longer happens.
  std::map<std::string, std::string> deviations = {};
};

struct RegisterAttention {
  explicit RegisterAttention(AttentionInfo info);
};

// Validates the configuration (dim, heads, knob names and ranges, causal
// support) with one-line errors naming the flag and the valid values.  The one
// check of these, for make_attention and for ModelConfig::validate alike.
void check_attention(const std::string& name, const AttentionConfig& cfg);
// check_attention, then fills missing knobs with their defaults and builds the variant.
std::shared_ptr<Attention> make_attention(const std::string& name, AttentionConfig cfg);
std::vector<std::string> attention_names();  // sorted
std::vector<std::string> attention_lecture_order();  // by AttentionInfo::lecture (stop, seat), ties by name
const std::vector<std::string>& attention_families();  // AttentionInfo::family values, in the order docs and charts list them
const AttentionInfo& attention_info(const std::string& name);  // throws listing valid names

// Every (i, j) with j not padding (and j <= i when causal), one legend entry.
Pattern all_keys_pattern(int64_t n, const Tensor& key_pad, bool causal, const std::string& legend);

}  // namespace az
