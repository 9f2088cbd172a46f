// SequenceClassifier: the encoder every task trains.
//
//   tokens [B,N] -> embedding (or patches [B,N,P] -> Linear) -> + positions
//   -> L pre-norm blocks: x + mixer(LN(x)), x + FFN(LN(x))   (mixer = any registered model)
//   -> final LN -> pool (mean over non-padding, or a CLS token) -> Linear -> logits [B,C]
//
// One ModelConfig describes it completely; it is saved in every checkpoint.
#pragma once
#include <map>
#include <string>

#include "attention/attention.h"
#include "data/dataset.h"

namespace az {

// Upper limits on the model's sizes (see kMaxBatch in train/config.h for why).
constexpr int64_t kMaxSeqLen = 1 << 20, kMaxDim = 1 << 14, kMaxFfn = 1 << 18, kMaxLayers = 1024;

struct ModelConfig {
  std::string model = "full";     // any name in the attention registry
  int64_t vocab = 0;              // token vocabulary (id 0 = padding); unused with patches
  int64_t patch_dim = 0;          // > 0: inputs are patches [B,N,patch_dim], linearly projected
  int64_t num_classes = 2;
  int64_t max_len = 512;          // longest input sequence
  int64_t dim = 64, heads = 4, layers = 2, ffn = 128;
  float dropout = 0.1f, attn_dropout = 0.0f;
  std::string pool = "mean";      // mean | cls
  std::string positions = "learned";  // learned | sinusoidal
  bool causal = false;
  std::map<std::string, double> knobs;  // the mixer's own settings (--window, --features, ...)

  std::map<std::string, std::string> to_map() const;
  static ModelConfig from_map(const std::map<std::string, std::string>& m);  // throws naming the bad key
  void validate() const;  // one-line errors naming the flag
};

class Block : public Module {
 public:
  explicit Block(const ModelConfig& c);
  Tensor forward(const Tensor& x, const Tensor& key_pad);  // [B,N,D] -> [B,N,D]
  std::shared_ptr<LayerNorm> ln1, ln2;
  std::shared_ptr<Attention> mixer;
  std::shared_ptr<FeedForward> ffn;  // null when the mixer is a whole block (gMLP)
  std::shared_ptr<Dropout> drop;
};

class SequenceClassifier : public Module {
 public:
  explicit SequenceClassifier(const ModelConfig& c);
  Tensor forward(const Batch& b);  // logits [B,C]
  // The input to block 0 and the padding mask the blocks see (with the CLS
  // token, one more position in front).  Used by forward and by attnmap.
  Tensor embed(const Batch& b, Tensor* key_pad);
  const ModelConfig& config() const { return cfg_; }
  std::vector<std::shared_ptr<Block>> blocks;

 private:
  ModelConfig cfg_;
  std::shared_ptr<Embedding> tok_;
  std::shared_ptr<Linear> patch_;
  std::shared_ptr<Module> pos_;
  Tensor cls_;
  std::shared_ptr<LayerNorm> ln_f_;
  std::shared_ptr<Linear> head_;
};

}  // namespace az
