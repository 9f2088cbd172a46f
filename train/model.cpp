// The encoder classifier (see model.h).
#include "train/model.h"
#include "autograd/runtime/strings.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace az {

// ---- configuration: one row per field -----------------------------------------------
namespace {

// Parses a checkpoint's or a flag's number; casts stay defined.
double number_of(const std::string& what, const std::string& s) {
  try {
    size_t used = 0;
    double v = std::stod(s, &used);
    if (used == s.size() && std::fabs(v) <= 9e15) return v;
  } catch (const std::exception&) {
  }
  fail(what + " is not a number: '" + s + "'");
}

ModelFlag int_row(const char* flag, const char* key, int64_t ModelConfig::*m, int64_t lo, int64_t hi, const char* help) {
  ModelFlag f{flag, key, help, ModelFlag::kInteger, lo, hi, {}, ""};
  f.get = [m](const ModelConfig& c) { return exact(double(c.*m)); };
  f.set = [m](ModelConfig& c, const std::string& v) { c.*m = int64_t(std::stod(v)); };
  return f;
}
ModelFlag fraction_row(const char* flag, const char* key, float ModelConfig::*m, const char* help) {
  ModelFlag f{flag, key, help, ModelFlag::kFraction, 0, 0, {}, ""};
  f.get = [m](const ModelConfig& c) { return exact(double(c.*m)); };
  f.set = [m](ModelConfig& c, const std::string& v) { c.*m = float(std::stod(v)); };
  return f;
}
ModelFlag text_row(const char* flag, const char* key, std::string ModelConfig::*m, std::vector<std::string> choices,
                   const char* help) {
  ModelFlag f{flag, key, help, ModelFlag::kText, 0, 0, std::move(choices), ""};
  f.get = [m](const ModelConfig& c) { return c.*m; };
  f.set = [m](ModelConfig& c, const std::string& v) { c.*m = v; };
  return f;
}

// A choice held as an enum: the row's text is its name; a name not among them
// is refused here, where it enters (a flag or a checkpoint).
template <class E>
ModelFlag enum_row(const char* flag, const char* key, E ModelConfig::*m, const char* help) {
  ModelFlag f{flag, key, help, ModelFlag::kText, 0, 0, choice_names(E{}), ""};
  std::string what = *flag ? std::string("--") + flag : std::string("model configuration: ") + key;
  f.get = [m](const ModelConfig& c) { return name_of(c.*m); };
  f.set = [m, what](ModelConfig& c, const std::string& v) { c.*m = choice_from<E>(v, what); };
  return f;
}

std::vector<ModelFlag> make_rows() {
  constexpr int64_t k24 = int64_t(1) << 24;
  std::vector<ModelFlag> r = {
      text_row("model", "model", &ModelConfig::model, {}, "the token mixer: any of `attnzoo models`"),
      int_row("seq-len", "max_len", &ModelConfig::max_len, 1, kMaxSeqLen, "longest input (default: the task's)"),
      int_row("dim", "dim", &ModelConfig::dim, 1, kMaxDim, "model width D"),
      int_row("heads", "heads", &ModelConfig::heads, 1, kMaxDim, "attention heads H (must divide --dim)"),
      int_row("layers", "layers", &ModelConfig::layers, 1, kMaxLayers, "blocks L"),
      int_row("ffn", "ffn", &ModelConfig::ffn, 1, kMaxFfn, "feed-forward hidden width"),
      int_row("short-conv", "short_conv", &ModelConfig::short_conv, 0, 16,
              "K > 0: a causal depthwise convolution of width K on each mixer's input, with a skip (Zoology's short conv)"),
      fraction_row("dropout", "dropout", &ModelConfig::dropout, "dropout after each sublayer and in the FFN"),
      fraction_row("attn-dropout", "attn_dropout", &ModelConfig::attn_dropout, "dropout on attention weights"),
      enum_row("pool", "pool", &ModelConfig::pool, "mean over non-padding positions, or a CLS token"),
      enum_row("positions", "positions", &ModelConfig::positions, "position encoding"),
      // set by the task, saved in checkpoints, not flags
      int_row("", "vocab", &ModelConfig::vocab, 0, k24, "token vocabulary (id 0 = padding)"),
      int_row("", "patch_dim", &ModelConfig::patch_dim, 0, k24, "values per patch (> 0: patch inputs)"),
      int_row("", "num_classes", &ModelConfig::num_classes, 0, k24, "classes of the head"),
      enum_row("", "head", &ModelConfig::head, "the task's head"),
  };
  ModelFlag causal{"causal", "causal", "causal masking (the model's causal form)", ModelFlag::kSwitch, 0, 0, {}, ""};
  causal.get = [](const ModelConfig& c) { return std::string(c.causal ? "1" : "0"); };
  causal.set = [](ModelConfig& c, const std::string& v) { c.causal = v == "1"; };
  r.insert(r.begin() + 11, causal);
  ModelConfig defaults;
  for (auto& f : r) {  // for --help: numbers as people write them (0.1, not 0.10000000149011612)
    f.def = f.get(defaults);
    if (f.kind == ModelFlag::kFraction || f.kind == ModelFlag::kInteger) {
      char b[32];
      std::snprintf(b, sizeof b, "%g", std::stod(f.def));
      f.def = b;
    }
  }
  return r;
}

}  // namespace

const std::vector<std::string>& choice_names(Head) {
  static const std::vector<std::string> n = {"sequence", "pair", "token"};
  return n;
}
const std::vector<std::string>& choice_names(Pool) {
  static const std::vector<std::string> n = {"mean", "cls"};
  return n;
}
const std::vector<std::string>& choice_names(Positions) {
  static const std::vector<std::string> n = {"learned", "sinusoidal"};
  return n;
}

const std::vector<ModelFlag>& model_flags() {
  static const std::vector<ModelFlag> rows = make_rows();
  return rows;
}

std::map<std::string, std::string> ModelConfig::to_map() const {
  std::map<std::string, std::string> m;
  for (auto& f : model_flags()) m[f.key] = f.get(*this);
  for (auto& [k, v] : knobs) m["knob." + k] = exact(v);
  return m;
}

ModelConfig ModelConfig::from_map(const std::map<std::string, std::string>& m) {
  ModelConfig c;
  for (auto& f : model_flags()) {
    auto it = m.find(f.key);
    if (it == m.end()) {
      if (f.key == "head") continue;  // checkpoints before the pair and token heads: "sequence"
      if (f.key == "short_conv") continue;  // checkpoints before --short-conv: none
      fail("model configuration lacks '" + f.key + "'");
    }
    if (f.kind == ModelFlag::kInteger || f.kind == ModelFlag::kFraction)
      number_of("model configuration: '" + f.key + "'", it->second);
    f.set(c, it->second);
  }
  for (auto& [k, v] : m)
    if (k.rfind("knob.", 0) == 0) c.knobs[k.substr(5)] = number_of("model configuration: '" + k + "'", v);
  return c;
}

static AttentionConfig attention_config(const ModelConfig& c);

void ModelConfig::validate() const {
  attention_info(model);  // throws for an unknown model, listing the valid ones
  for (auto& f : model_flags()) {
    std::string name = f.flag.empty() ? "model configuration: " + f.key : "--" + f.flag;
    if (f.kind == ModelFlag::kInteger) {
      int64_t v = int64_t(std::stod(f.get(*this)));
      if (f.flag.empty() && (v < f.lo || v > f.hi))
        fail("model configuration: vocabulary, patch size or class count above 2^24 or negative (" + f.key + " " +
             std::to_string(v) + ")");
      if (v < f.lo) fail(name + " must be positive, got " + std::to_string(v));
      if (v > f.hi) fail(name + " " + std::to_string(v) + " is too large (at most " + std::to_string(f.hi) + ")");
    } else if (f.kind == ModelFlag::kFraction) {
      double v = std::stod(f.get(*this));
      if (!(v >= 0 && v < 1)) fail(name + " must be in [0,1), got " + std::to_string(float(v)));
    }  // kText with choices: an enum, refused where it entered (enum_row)
  }
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
  if (patch_dim <= 0 && vocab <= 1) fail("model needs a token vocabulary or a patch size");
  check_attention(model, attention_config(*this));  // --heads divides --dim, the knobs' ranges, the causal form
}

// ---- blocks ------------------------------------------------------------------------------
static AttentionConfig attention_config(const ModelConfig& c) {
  AttentionConfig a;
  a.dim = c.dim;
  a.heads = c.heads;
  a.max_len = c.max_len + (c.pool == Pool::kCls ? 1 : 0);
  a.causal = c.causal;
  a.dropout = c.attn_dropout;
  a.knobs = c.knobs;
  return a;
}

Block::Block(const ModelConfig& c) {
  ln1 = register_module("ln1", std::make_shared<LayerNorm>(c.dim));
  if (c.short_conv > 0) conv = register_module("conv", std::make_shared<ShortConv>(c.short_conv, c.dim));
  mixer = register_module("mixer", make_attention(c.model, attention_config(c)));
  if (!mixer->replaces_ffn()) {
    ln2 = register_module("ln2", std::make_shared<LayerNorm>(c.dim));
    ffn = register_module("ffn", std::make_shared<FeedForward>(c.dim, c.ffn, c.dropout));
  }
  drop = register_module("drop", std::make_shared<Dropout>(c.dropout));
}

Tensor Block::mixer_input(const Tensor& x) const {
  Tensor u = ln1->forward(x);
  return conv ? add(u, conv->forward(u)) : u;
}

Tensor Block::forward(const Tensor& x, const Tensor& key_pad) {
  Tensor h = add(x, drop->forward((*mixer)(mixer_input(x), key_pad)));
  if (ffn) h = add(h, drop->forward(ffn->forward(ln2->forward(h))));
  return h;
}

// ---- the classifier ------------------------------------------------------------------------
SequenceClassifier::SequenceClassifier(const ModelConfig& c) : cfg_(c) {
  c.validate();
  int64_t positions = c.max_len + (c.pool == Pool::kCls ? 1 : 0);
  if (c.patch_dim > 0) patch_ = register_module("patch", std::make_shared<Linear>(c.patch_dim, c.dim));
  else tok_ = register_module("embed", std::make_shared<Embedding>(c.vocab, c.dim));
  if (c.positions == Positions::kLearned) pos_ = register_module("pos", std::make_shared<LearnedPositions>(positions, c.dim));
  else pos_ = register_module("pos", std::make_shared<SinusoidalPositions>(positions, c.dim));
  if (c.pool == Pool::kCls) cls_ = register_parameter("cls", Tensor::randn({1, 1, c.dim}, 0.02f), Decay::no);
  for (int64_t i = 0; i < c.layers; ++i)
    blocks.push_back(register_module("blocks." + std::to_string(i), std::make_shared<Block>(c)));
  ln_f_ = register_module("ln_f", std::make_shared<LayerNorm>(c.dim));
  if (c.head == Head::kPair) {  // LRA's retrieval classifier: [u, v, u*v, u-v] -> MLP
    pair_hidden_ = register_module("pair_hidden", std::make_shared<Linear>(4 * c.dim, c.dim));
    head_ = register_module("head", std::make_shared<Linear>(c.dim, c.num_classes));
  } else {
    head_ = register_module("head", std::make_shared<Linear>(c.dim, c.num_classes));
  }
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
  x = cfg_.positions == Positions::kLearned ? std::static_pointer_cast<LearnedPositions>(pos_)->forward(x)
                                  : std::static_pointer_cast<SinusoidalPositions>(pos_)->forward(x);
  bool any_pad = false;
  for (float v : b.pad_mask) any_pad = any_pad || v != 0;
  *key_pad = any_pad ? pad : Tensor();
  return x;
}

Tensor SequenceClassifier::encode(const Batch& b, Tensor* key_pad) {
  Tensor x = embed(b, key_pad);
  for (auto& blk : blocks) x = blk->forward(x, *key_pad);
  return ln_f_->forward(x);
}

Tensor SequenceClassifier::pool(const Tensor& h, const Tensor& key_pad) {
  int64_t B = h.size(0), N = h.size(1);
  if (cls_.defined()) return reshape(narrow(h, 1, 0, 1), {B, cfg_.dim});
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
  return reshape(matmul(w, h), {B, cfg_.dim});
}

Tensor SequenceClassifier::forward(const Batch& b) {
  Tensor key_pad;
  Tensor h = encode(b, &key_pad);
  if (cfg_.head == Head::kToken) {  // logits at every position [B,N,C]; a CLS position is dropped
    if (cls_.defined()) h = narrow(h, 1, 1, h.size(1) - 1);  // logits at the tokens' positions
    return head_->forward(h);
  }
  if (cfg_.head == Head::kPair) return head_->forward(gelu(pair_hidden_->forward(pair_features(b, h, key_pad))));
  return head_->forward(pool(h, key_pad));
}

Tensor SequenceClassifier::target_logits(const Batch& b) {
  if (cfg_.head != Head::kToken) fail("target_logits: the model's head is '" + name_of(cfg_.head) + "', not token");
  if (int64_t(b.targets.size()) != int64_t(b.B) * b.N)
    fail("the token head needs a target per position, batch has " + std::to_string(b.targets.size()) + " for " +
         std::to_string(int64_t(b.B) * b.N) + " positions");
  std::vector<int32_t> rows;
  for (size_t i = 0; i < b.targets.size(); ++i)
    if (b.targets[i] != kIgnoreTarget) rows.push_back(int32_t(i));
  Tensor key_pad;
  Tensor h = encode(b, &key_pad);
  if (cls_.defined()) h = narrow(h, 1, 1, h.size(1) - 1);  // the CLS position has no target
  const int64_t T = int64_t(rows.size());
  if (T == 0) fail("target_logits: the batch has no target");
  Tensor at = gather_rows(reshape(h, {1, int64_t(b.B) * b.N, cfg_.dim}), IntTensor({1, T}, rows));  // [1,T,D]
  return head_->forward(reshape(at, {T, cfg_.dim}));
}

Tensor SequenceClassifier::embed_token(int32_t token, int64_t t) {
  if (cfg_.patch_dim > 0 || cls_.defined() || t < 0 || t >= cfg_.max_len)
    fail("embed_token: position " + std::to_string(t) + " of a token model without CLS (0.." +
         std::to_string(cfg_.max_len - 1) + ")");
  Tensor table = cfg_.positions == Positions::kLearned ? std::static_pointer_cast<LearnedPositions>(pos_)->table
                                             : std::static_pointer_cast<SinusoidalPositions>(pos_)->table;
  Tensor x = tok_->forward(IntTensor({1, 1}, {token}));                // [1,1,D]
  return add(x, reshape(narrow(table, 0, t, 1), {1, 1, cfg_.dim}));  // + position t, as the positions' forward adds
}

Tensor SequenceClassifier::token_logits(const Tensor& h) { return head_->forward(ln_f_->forward(h)); }

Tensor SequenceClassifier::pair_features(const Batch& b) {
  Tensor key_pad;
  Tensor h = encode(b, &key_pad);
  return pair_features(b, h, key_pad);
}

Tensor SequenceClassifier::pair_features(const Batch& b, const Tensor& h, const Tensor& key_pad) {
  if (b.N2 <= 0 || int64_t(b.tokens2.size()) != int64_t(b.B) * b.N2)
    fail("the pair head needs a second sequence in every batch (tokens2 [B,N2]), got " +
         std::to_string(b.tokens2.size()) + " tokens");
  Tensor u = pool(h, key_pad);
  Batch second;  // the second documents, through the same encoder
  second.B = b.B, second.N = b.N2, second.tokens = b.tokens2, second.pad_mask = b.pad_mask2;
  Tensor pad2;
  Tensor v = pool(encode(second, &pad2), pad2);
  return concat({u, v, mul(u, v), sub(u, v)}, 1);  // [B,4D]
}

}  // namespace az
