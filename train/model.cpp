// The encoder classifier (see model.h).
#include "train/model.h"

#include <unistd.h>

#include <cmath>
#include <sstream>

namespace az {

// ---- configuration as strings (checkpoints, config.json) --------------------------
std::map<std::string, std::string> ModelConfig::to_map() const {
  std::map<std::string, std::string> m;
  auto num = [](double v) {
    std::ostringstream o;
    o.precision(17);
    o << v;
    return o.str();
  };
  m["model"] = model;
  m["vocab"] = num(vocab);
  m["patch_dim"] = num(patch_dim);
  m["num_classes"] = num(num_classes);
  m["max_len"] = num(max_len);
  m["dim"] = num(dim);
  m["heads"] = num(heads);
  m["layers"] = num(layers);
  m["ffn"] = num(ffn);
  m["dropout"] = num(dropout);
  m["attn_dropout"] = num(attn_dropout);
  m["pool"] = pool;
  m["positions"] = positions;
  m["causal"] = causal ? "1" : "0";
  for (auto& [k, v] : knobs) m["knob." + k] = num(v);
  return m;
}

ModelConfig ModelConfig::from_map(const std::map<std::string, std::string>& m) {
  ModelConfig c;
  auto get = [&](const char* k) -> const std::string& {
    auto it = m.find(k);
    if (it == m.end()) fail(std::string("model configuration lacks '") + k + "'");
    return it->second;
  };
  auto num = [&](const char* k) {
    const std::string& s = get(k);
    try {
      size_t used = 0;
      double v = std::stod(s, &used);
      if (used != s.size() || !(std::fabs(v) <= 9e15)) throw std::invalid_argument(s);  // casts stay defined
      return v;
    } catch (const std::exception&) {
      fail(std::string("model configuration: '") + k + "' is not a number: '" + s + "'");
    }
  };
  c.model = get("model");
  c.vocab = int64_t(num("vocab"));
  c.patch_dim = int64_t(num("patch_dim"));
  c.num_classes = int64_t(num("num_classes"));
  c.max_len = int64_t(num("max_len"));
  c.dim = int64_t(num("dim"));
  c.heads = int64_t(num("heads"));
  c.layers = int64_t(num("layers"));
  c.ffn = int64_t(num("ffn"));
  c.dropout = float(num("dropout"));
  c.attn_dropout = float(num("attn_dropout"));
  c.pool = get("pool");
  c.positions = get("positions");
  c.causal = get("causal") == "1";
  for (auto& [k, v] : m)
    if (k.rfind("knob.", 0) == 0) c.knobs[k.substr(5)] = num(k.c_str());
  return c;
}

void ModelConfig::validate() const {
  attention_info(model);  // throws for an unknown model, listing the valid ones
  auto positive = [](const char* flag, int64_t v) {
    if (v <= 0) fail(std::string(flag) + " must be positive, got " + std::to_string(v));
  };
  positive("--dim", dim);
  positive("--heads", heads);
  positive("--layers", layers);
  positive("--ffn", ffn);
  positive("--seq-len", max_len);
  auto at_most = [](const char* flag, int64_t v, int64_t hi) {
    if (v > hi) fail(std::string(flag) + " " + std::to_string(v) + " is too large (at most " + std::to_string(hi) + ")");
  };
  at_most("--dim", dim, kMaxDim);
  at_most("--ffn", ffn, kMaxFfn);
  at_most("--layers", layers, kMaxLayers);
  at_most("--seq-len", max_len, kMaxSeqLen);
  if (vocab > (int64_t(1) << 24) || patch_dim > (int64_t(1) << 24) || num_classes > (int64_t(1) << 24))
    fail("model configuration: vocabulary, patch size or class count above 2^24");
  // Parameters, gradients and two Adam moments: 16 bytes a parameter.  Refuse
  // what cannot fit in memory here rather than be killed half-way through.
  double params = double(layers) * (4.0 * dim * dim + 2.0 * dim * ffn) + double(vocab + patch_dim + max_len) * dim;
  double ram = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  if (ram > 0 && 16 * params > ram)
    fail("a model of --dim " + std::to_string(dim) + ", --ffn " + std::to_string(ffn) + ", --layers " +
         std::to_string(layers) + ", --seq-len " + std::to_string(max_len) + " has about " +
         std::to_string(int64_t(params / 1e6)) + "M parameters, more than this machine's " +
         std::to_string(int64_t(ram / 1e9)) + " GB of memory can train");
  if (num_classes < 2) fail("the task needs at least 2 classes, got " + std::to_string(num_classes));
  if (dim % heads) fail("--heads " + std::to_string(heads) + " must divide --dim " + std::to_string(dim));
  if (patch_dim <= 0 && vocab <= 1) fail("model needs a token vocabulary or a patch size");
  if (!(dropout >= 0 && dropout < 1)) fail("--dropout must be in [0,1), got " + std::to_string(dropout));
  if (!(attn_dropout >= 0 && attn_dropout < 1))
    fail("--attn-dropout must be in [0,1), got " + std::to_string(attn_dropout));
  if (pool != "mean" && pool != "cls") fail("--pool must be mean or cls, got '" + pool + "'");
  if (positions != "learned" && positions != "sinusoidal")
    fail("--positions must be learned or sinusoidal, got '" + positions + "'");
}

// ---- blocks ------------------------------------------------------------------------------
static AttentionConfig attention_config(const ModelConfig& c) {
  AttentionConfig a;
  a.dim = c.dim;
  a.heads = c.heads;
  a.max_len = c.max_len + (c.pool == "cls" ? 1 : 0);
  a.causal = c.causal;
  a.dropout = c.attn_dropout;
  a.knobs = c.knobs;
  return a;
}

Block::Block(const ModelConfig& c) {
  ln1 = register_module("ln1", std::make_shared<LayerNorm>(c.dim));
  mixer = register_module("mixer", make_attention(c.model, attention_config(c)));
  if (!mixer->replaces_ffn()) {
    ln2 = register_module("ln2", std::make_shared<LayerNorm>(c.dim));
    ffn = register_module("ffn", std::make_shared<FeedForward>(c.dim, c.ffn, c.dropout));
  }
  drop = register_module("drop", std::make_shared<Dropout>(c.dropout));
}

Tensor Block::forward(const Tensor& x, const Tensor& key_pad) {
  Tensor h = add(x, drop->forward(mixer->forward(ln1->forward(x), key_pad)));
  if (ffn) h = add(h, drop->forward(ffn->forward(ln2->forward(h))));
  return h;
}

// ---- the classifier ------------------------------------------------------------------------
SequenceClassifier::SequenceClassifier(const ModelConfig& c) : cfg_(c) {
  c.validate();
  int64_t positions = c.max_len + (c.pool == "cls" ? 1 : 0);
  if (c.patch_dim > 0) patch_ = register_module("patch", std::make_shared<Linear>(c.patch_dim, c.dim));
  else tok_ = register_module("embed", std::make_shared<Embedding>(c.vocab, c.dim));
  if (c.positions == "learned") pos_ = register_module("pos", std::make_shared<LearnedPositions>(positions, c.dim));
  else pos_ = register_module("pos", std::make_shared<SinusoidalPositions>(positions, c.dim));
  if (c.pool == "cls") cls_ = register_parameter("cls", Tensor::randn({1, 1, c.dim}, 0.02f), false);
  for (int64_t i = 0; i < c.layers; ++i)
    blocks.push_back(register_module("blocks." + std::to_string(i), std::make_shared<Block>(c)));
  ln_f_ = register_module("ln_f", std::make_shared<LayerNorm>(c.dim));
  head_ = register_module("head", std::make_shared<Linear>(c.dim, c.num_classes));
}

Tensor SequenceClassifier::embed(const Batch& b, Tensor* key_pad) {
  int64_t B = b.B, N = b.N;
  if (N > cfg_.max_len)
    fail("input of " + std::to_string(N) + " positions is longer than the model's --seq-len " +
         std::to_string(cfg_.max_len));
  Tensor x;
  if (cfg_.patch_dim > 0) {
    if (b.patch_dim != cfg_.patch_dim || int64_t(b.patches.size()) != B * N * cfg_.patch_dim)
      fail("model expects patches of " + std::to_string(cfg_.patch_dim) + " values, batch has " +
           std::to_string(b.patch_dim));
    x = patch_->forward(Tensor::from({B, N, cfg_.patch_dim}, b.patches));
  } else {
    if (int64_t(b.tokens.size()) != B * N) fail("batch holds " + std::to_string(b.tokens.size()) + " tokens, expected B*N");
    x = tok_->forward(IntTensor({B, N}, b.tokens));
  }
  Tensor pad = Tensor::from({B, N}, b.pad_mask);
  if (cls_.defined()) {
    Tensor cls = matmul(Tensor::ones({B, 1, 1}), reshape(cls_, {1, cfg_.dim}));  // [B,1,D]
    x = concat({cls, x}, 1);
    pad = concat({Tensor::zeros({B, 1}), pad}, 1);
    N += 1;
  }
  x = cfg_.positions == "learned" ? std::static_pointer_cast<LearnedPositions>(pos_)->forward(x)
                                  : std::static_pointer_cast<SinusoidalPositions>(pos_)->forward(x);
  bool any_pad = false;
  for (float v : b.pad_mask) any_pad = any_pad || v != 0;
  *key_pad = any_pad ? pad : Tensor();
  return x;
}

Tensor SequenceClassifier::forward(const Batch& b) {
  Tensor key_pad;
  Tensor x = embed(b, &key_pad);
  for (auto& blk : blocks) x = blk->forward(x, key_pad);
  x = ln_f_->forward(x);
  int64_t B = x.size(0), N = x.size(1);
  Tensor pooled;
  if (cls_.defined()) {
    pooled = reshape(narrow(x, 1, 0, 1), {B, cfg_.dim});
  } else {
    // Mean over real positions as a product: w [B,1,N] = keep / count.
    Tensor w = Tensor::empty({B, 1, N});
    for (int64_t i = 0; i < B; ++i) {
      int64_t count = 0;
      for (int64_t j = 0; j < N; ++j) count += key_pad.defined() ? key_pad.data()[i * N + j] == 0 : 1;
      for (int64_t j = 0; j < N; ++j) {
        bool keep = key_pad.defined() ? key_pad.data()[i * N + j] == 0 : true;
        w.data()[i * N + j] = keep ? 1.0f / float(std::max<int64_t>(count, 1)) : 0.0f;
      }
    }
    pooled = reshape(matmul(w, x), {B, cfg_.dim});
  }
  return head_->forward(pooled);
}

}  // namespace az
