// Generation (see generate.h): the decoder that feeds a causal model one byte
// at a time, and sampling.  Cost per byte: the variant's decoding state
// (O(t d) per layer for a KV cache at position t, O(w d) for a window, O(m d)
// for the recurrent state), or a whole forward pass over the prefix for a
// variant without one.  The command is train/cli/generate.cpp.
#include "train/generate.h"
#include "autograd/runtime/strings.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "data/lm/lm_corpus.h"
#include "train/checkpoint.h"
#include "train/tasks.h"
#include "train/trainer.h"

namespace az {

// ---- the decoder ------------------------------------------------------------------------
LmDecoder::LmDecoder(SequenceClassifier& model) : model_(model) {
  const ModelConfig& c = model.config();
  if (c.head != Head::kToken) fail("generate: the model has a " + name_of(c.head) + " head; generation needs a language model (--task lm)");
  if (!c.causal) fail("generate: the model is not causal; generation needs a causal model (--task lm)");
  if (c.pool == Pool::kCls || c.patch_dim > 0) fail("generate: a model with a CLS token or patches cannot be decoded");
  model_.eval();
  reset();
}

void LmDecoder::reset() {
  tokens_.clear();
  states_.clear();
  conv_past_.assign(model_.blocks.size(), {});
  for (auto& b : model_.blocks) {
    auto s = make_decode_state(*b->mixer);
    if (!s) {
      states_.clear();
      return;
    }
    states_.push_back(std::move(s));
  }
}

std::vector<float> LmDecoder::feed(int32_t token) {
  NoGradGuard ng;
  const int64_t t = position();
  if (t >= model_.config().max_len)
    fail("generate: position " + std::to_string(t) + " is past the model's context of " +
         std::to_string(model_.config().max_len));
  tokens_.push_back(token);
  Tensor logits;
  if (states_.empty()) {  // re-run the prefix: one full causal forward, the last position's logits
    Batch b;
    b.B = 1, b.N = int(tokens_.size());
    b.tokens = tokens_;
    b.pad_mask.assign(tokens_.size(), 0.0f);
    Tensor all = model_.forward(b);  // [1,N,C]
    logits = narrow(all, 1, t, 1);
  } else {
    Tensor x = model_.embed_token(token, t);  // [1,1,D]
    for (size_t l = 0; l < model_.blocks.size(); ++l) {
      Block& blk = *model_.blocks[l];
      Tensor u = blk.ln1->forward(x);
      if (blk.conv) {  // u + conv(u) over this input and the K-1 before it
        std::vector<Tensor>& past = conv_past_[l];
        Tensor v = add(u, blk.conv->step(u, past));
        past.push_back(u);
        if (int64_t(past.size()) >= blk.conv->weight.size(0)) past.erase(past.begin());
        u = v;
      }
      x = add(x, states_[l]->step(u));  // x + mixer(u); dropout is off in eval
      if (blk.ffn) x = add(x, blk.ffn->forward(blk.ln2->forward(x)));
    }
    logits = model_.token_logits(x);
  }
  return std::vector<float>(logits.data(), logits.data() + logits.numel());
}

std::string LmDecoder::method() const {
  if (states_.empty()) return "re-runs the prefix for each token (model '" + model_.config().model + "' has no decoding state)";
  return states_.front()->kind();
}

int64_t LmDecoder::state_bytes() const {
  if (states_.empty()) return int64_t(tokens_.size() * sizeof(int32_t));
  int64_t n = 0;
  for (auto& s : states_) n += s->state_bytes();
  for (auto& past : conv_past_)
    for (auto& u : past) n += u.numel() * int64_t(sizeof(float));
  return n;
}

// ---- sampling ---------------------------------------------------------------------------
void check_sampling(const SamplingOptions& o, int64_t classes) {
  if (!(o.temperature >= 0 && o.temperature <= 100))
    fail("generate: --temperature must be in 0..100 (0: always the most likely byte), got " + fmt("%g", o.temperature));
  if (o.top_k < 0 || o.top_k > classes)
    fail("generate: --top-k must be in 0.." + std::to_string(classes) + " (0: no cut), got " + std::to_string(o.top_k));
  if (!(o.top_p > 0 && o.top_p <= 1)) fail("generate: --top-p must be in (0, 1] (1: no cut), got " + fmt("%g", o.top_p));
}

int32_t sample_logits(const std::vector<float>& logits, const SamplingOptions& o, Rng& rng) {
  const size_t C = logits.size();
  std::vector<int32_t> order(C);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return logits[size_t(a)] > logits[size_t(b)]; });
  if (o.temperature == 0) return order[0];
  size_t keep = o.top_k > 0 ? std::min(C, size_t(o.top_k)) : C;
  std::vector<double> p(keep);
  double mx = logits[size_t(order[0])], z = 0;
  for (size_t i = 0; i < keep; ++i) z += p[i] = std::exp((double(logits[size_t(order[i])]) - mx) / o.temperature);
  if (o.top_p < 1) {  // the smallest prefix (most likely first) whose mass reaches top_p
    double acc = 0;
    size_t n = 0;
    while (n < keep && acc < o.top_p * z) acc += p[n++];
    keep = std::max<size_t>(n, 1);
    z = 0;
    for (size_t i = 0; i < keep; ++i) z += p[i];
  }
  double u = double(rng.uniform()) * z, acc = 0;
  for (size_t i = 0; i < keep; ++i)
    if ((acc += p[i]) > u) return order[i];
  return order[keep - 1];
}

// ---- printing -----------------------------------------------------------------------------
void Utf8Printer::emit(const std::string& s) {
  out_ += s;
  if (f_) std::fwrite(s.data(), 1, s.size(), f_), std::fflush(f_);
}

void Utf8Printer::put(uint8_t b) {
  static const std::string kBad = "\xEF\xBF\xBD";  // U+FFFD
  if (need_ > 0) {
    uint8_t lo = 0x80, hi = 0xBF, lead = uint8_t(pending_[0]);
    if (pending_.size() == 1) {  // no overlong forms, surrogates or code points past U+10FFFF
      if (lead == 0xE0) lo = 0xA0;
      if (lead == 0xED) hi = 0x9F;
      if (lead == 0xF0) lo = 0x90;
      if (lead == 0xF4) hi = 0x8F;
    }
    if (b >= lo && b <= hi) {
      pending_ += char(b);
      if (--need_ == 0) emit(pending_), pending_.clear();
      return;
    }
    emit(kBad), pending_.clear(), need_ = 0;  // the broken sequence; b starts afresh
  }
  if (b < 0x80) {
    if ((b < 0x20 && b != '\n' && b != '\t') || b == 0x7F) emit(kBad);  // no terminal control codes
    else emit(std::string(1, char(b)));
  } else if (b >= 0xC2 && b <= 0xF4) {
    pending_ = std::string(1, char(b));
    need_ = b < 0xE0 ? 1 : b < 0xF0 ? 2 : 3;
  } else {
    emit(kBad);
  }
}

void Utf8Printer::flush() {
  if (need_ > 0) emit("\xEF\xBF\xBD"), pending_.clear(), need_ = 0;
}

// ---- attnzoo generate -----------------------------------------------------------------------
}  // namespace az
