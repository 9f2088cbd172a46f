// SequenceClassifier: the encoder every task trains, and its three heads.
//
//   tokens [B,N] -> embedding (or patches [B,N,P] -> Linear) -> + positions
//   -> L pre-norm blocks: x + mixer(LN(x)), x + FFN(LN(x))   (mixer = any registered model)
//   -> final LN -> h [B,N,D], then the task's head:
//      sequence: pool (mean over non-padding, or a CLS token) -> Linear -> logits [B,C]
//      pair:     u = pool(encode(a)), v = pool(encode(b)) with the same encoder;
//                [u, v, u*v, u-v] [B,4D] -> Linear(4D,D) -> GELU -> Linear(D,C)  (LRA's retrieval model)
//      token:    Linear at every position -> logits [B,N,C] (positions without a target are ignored);
//                target_logits: the Linear at the positions with a target only -> [T,C] (MQAR: a few
//                queries among hundreds of positions, at a vocabulary of thousands)
//
// One ModelConfig describes it completely; it is saved in every checkpoint.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "data/dataset.h"

namespace az {

// Upper limits on the model's sizes (see kMaxBatch in train/config.h for why).
constexpr int64_t kMaxSeqLen = 1 << 20, kMaxDim = 1 << 14, kMaxFfn = 1 << 18, kMaxLayers = 1024;

// Choices a configuration names.  They are enums inside and text only where
// they enter or leave: flags, checkpoints and messages spell them as
// choice_names gives (in the enum's order); choice_from parses them once.
enum class Head { kSequence, kPair, kToken };  // set by the task (train/tasks.h)
enum class Pool { kMean, kCls };
enum class Positions { kLearned, kSinusoidal };
const std::vector<std::string>& choice_names(Head);  // sequence, pair, token
const std::vector<std::string>& choice_names(Pool);  // mean, cls
const std::vector<std::string>& choice_names(Positions);  // learned, sinusoidal
template <class E> const std::string& name_of(E e) { return choice_names(e)[size_t(e)]; }
// what: the flag or key, for the one-line error ("--pool must be mean or cls, got 'x'").
template <class E> E choice_from(const std::string& s, const std::string& what = "choice") {
  const auto& names = choice_names(E{});
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == s) return E(i);
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) list += (i ? (i + 1 == names.size() ? " or " : ", ") : "") + names[i];
  fail(what + " must be " + list + ", got '" + s + "'");
}

struct ModelConfig {
  std::string model = "full";     // any name in the attention registry
  int64_t vocab = 0;              // token vocabulary (id 0 = padding); unused with patches
  int64_t patch_dim = 0;          // > 0: inputs are patches [B,N,patch_dim], linearly projected
  int64_t num_classes = 2;
  int64_t max_len = 512;          // longest input sequence
  int64_t dim = 64, heads = 4, layers = 2, ffn = 128;
  int64_t short_conv = 0;         // > 0: a causal depthwise convolution of this width before each mixer
  float dropout = 0.1f, attn_dropout = 0.0f;
  Pool pool = Pool::kMean;        // mean over non-padding positions, or a CLS token
  Positions positions = Positions::kLearned;
  bool causal = false;
  Head head = Head::kSequence;    // set by the task (train/tasks.h)
  std::map<std::string, double> knobs;  // the mixer's own settings (--window, --features, ...)

  std::map<std::string, std::string> to_map() const;
  static ModelConfig from_map(const std::map<std::string, std::string>& m);  // throws naming the bad key
  void validate() const;  // one-line errors naming the flag
};

// One row per ModelConfig field: its command-line flag, help line, range and
// checkpoint entry at once (as Knob is for a variant's settings).  Rows
// without a flag are set by the task (vocabulary, classes, patch size, head).
struct ModelFlag {
  std::string flag, key, help;  // "attn-dropout", "attn_dropout"
  enum Kind { kInteger, kFraction, kText, kSwitch } kind;  // kFraction: a float in [0, 1)
  int64_t lo = 0, hi = 0;       // kInteger: inclusive range
  std::vector<std::string> choices;
  std::string def;              // the default, as text (for --help)
  std::function<std::string(const ModelConfig&)> get{};       // {}: rows may leave them out
  std::function<void(ModelConfig&, const std::string&)> set{};  // value already checked
};
const std::vector<ModelFlag>& model_flags();

class Block : public Module {
 public:
  explicit Block(const ModelConfig& c);
  Tensor forward(const Tensor& x, const Tensor& key_pad);  // [B,N,D] -> [B,N,D]
  // What the mixer reads: u = LN(x), plus conv(u) with --short-conv.
  Tensor mixer_input(const Tensor& x) const;
  std::shared_ptr<LayerNorm> ln1, ln2;
  std::shared_ptr<ShortConv> conv;  // null without --short-conv
  std::shared_ptr<Attention> mixer;
  std::shared_ptr<FeedForward> ffn;  // null when the mixer is a whole block (gMLP)
  std::shared_ptr<Dropout> drop;
};

class SequenceClassifier : public Module {
 public:
  explicit SequenceClassifier(const ModelConfig& c);
  // logits [B,C] (sequence, pair heads) or [B,N,C] (token head)
  Tensor forward(const Batch& b);
  // Token head: logits [T,C] at the T positions whose target is not kIgnoreTarget, in row-major
  // (example, position) order; the head runs at those positions alone.  Equal to forward's rows there.
  Tensor target_logits(const Batch& b);
  // The input to block 0 and the padding mask the blocks see (with the CLS
  // token, one more position in front).  Used by forward and by attnmap.
  Tensor embed(const Batch& b, Tensor* key_pad);
  // The final-LN states h [B,N,D] of one sequence view, and the mask it used.
  Tensor encode(const Batch& b, Tensor* key_pad);
  // h [B,N,D] -> [B,D]: the CLS position, or the mean over non-padding positions.
  Tensor pool(const Tensor& h, const Tensor& key_pad);
  // Pair head: [u, v, u*v, u-v] [B,4D] for the batch's two sequences (one shared encoder).
  Tensor pair_features(const Batch& b);
  // Generation (train/generate.h), token head, no CLS: the input to block 0 for one
  // token at position t [1,1,D], and the logits [B,N,C] of the last block's output h [B,N,D].
  Tensor embed_token(int32_t token, int64_t t);
  Tensor token_logits(const Tensor& h);
  const ModelConfig& config() const { return cfg_; }
  std::vector<std::shared_ptr<Block>> blocks;

 private:
  Tensor pair_features(const Batch& b, const Tensor& h, const Tensor& key_pad);
  ModelConfig cfg_;
  std::shared_ptr<Embedding> tok_;
  std::shared_ptr<Linear> patch_;
  std::shared_ptr<Module> pos_;
  Tensor cls_;
  std::shared_ptr<LayerNorm> ln_f_;
  std::shared_ptr<Linear> head_, pair_hidden_;  // pair head: [u,v,u*v,u-v] -> pair_hidden_ -> GELU -> head_
};

}  // namespace az
