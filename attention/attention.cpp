// The registry and the Attention defaults.
#include "attention/attention.h"
#include "autograd/runtime/strings.h"

#include "attention/decode/decode.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace az {

static std::map<std::string, AttentionInfo>& registry() {
  static std::map<std::string, AttentionInfo> r;
  return r;
}

Impl& attention_impl() {
  static Impl impl = Impl::fast;
  return impl;
}

Impl parse_impl(const std::string& name) {
  if (name == "fast") return Impl::fast;
  if (name == "reference") return Impl::reference;
  fail("--impl '" + name + "' is not a form (expected fast or reference)");
}

const char* impl_name(Impl i) { return i == Impl::reference ? "reference" : "fast"; }

RegisterAttention::RegisterAttention(AttentionInfo info) { registry()[info.name] = std::move(info); }

const std::vector<std::string>& attention_families() {
  static const std::vector<std::string> f = {"dense", "fixed", "learned", "low-rank/kernel", "attention-free"};
  return f;
}

std::vector<std::string> attention_names() {
  std::vector<std::string> n;
  for (auto& kv : registry()) n.push_back(kv.first);
  return n;
}

std::vector<std::string> attention_lecture_order() {
  std::vector<std::string> n = attention_names();
  auto place = [](const std::string& m) {
    const LecturePlace& l = registry().at(m).lecture;
    return std::make_pair(l.stop, l.seat);
  };
  std::stable_sort(n.begin(), n.end(), [&](const std::string& a, const std::string& b) { return place(a) < place(b); });
  return n;
}

const AttentionInfo& attention_info(const std::string& name) {
  auto it = registry().find(name);
  if (it == registry().end())
    fail("unknown model '" + name + "'" + did_you_mean(name, attention_names()) + " (valid: " + join(attention_names()) + ")");
  return it->second;
}

// Knob names are snake_case; the command line spells them with dashes.
static std::string flag_of(std::string k) {
  for (char& ch : k)
    if (ch == '_') ch = '-';
  return k;
}

// "0 dense, 1 random or 2 factorized": a mode knob's values and names.
static std::string choices_of(const Knob& k) {
  std::string s;
  for (size_t i = 0; i < k.choices.size(); ++i)
    s += (i == 0 ? "" : i + 1 == k.choices.size() ? " or " : ", ") + std::to_string(i) + " " + k.choices[i];
  return s;
}

double knob_value(const Knob& k, const std::string& text) {
  for (size_t i = 0; i < k.choices.size(); ++i)
    if (text == k.choices[i]) return double(i);
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    fail("--" + flag_of(k.name) + " expects " + (k.choices.empty() ? "a number" : "a mode (" + choices_of(k) + ")") +
         ", got '" + text + "'");
  return v;
}

void check_attention(const std::string& name, const AttentionConfig& cfg) {
  const AttentionInfo& info = attention_info(name);
  if (cfg.dim <= 0) fail("--dim must be positive, got " + std::to_string(cfg.dim));
  if (cfg.heads <= 0 || cfg.dim % cfg.heads)
    fail("--heads " + std::to_string(cfg.heads) + " must be positive and divide --dim " + std::to_string(cfg.dim));
  if (cfg.max_len <= 0) fail("--seq-len must be positive, got " + std::to_string(cfg.max_len));
  if (cfg.dropout < 0 || cfg.dropout >= 1) fail("attention dropout must be in [0,1), got " + fmt("%g", cfg.dropout));
  if (cfg.causal && !info.causal_ok)
    fail("model '" + name + "' has no causal form" + (info.why_not_causal.empty() ? "" : " (" + info.why_not_causal + ")"));
  std::vector<std::string> valid;
  for (auto& k : info.knobs) valid.push_back("--" + flag_of(k.name));
  for (auto& [k, v] : cfg.knobs) {
    auto it = std::find_if(info.knobs.begin(), info.knobs.end(), [&](const Knob& kb) { return kb.name == k; });
    if (it == info.knobs.end())
      fail("model '" + name + "' has no setting --" + flag_of(k) + (valid.empty() ? " (it has none)" : " (valid: " + join(valid) + ")"));
    if (!(v >= it->lo && v <= it->hi))
      fail("--" + flag_of(k) + " " + fmt("%g", v) + " out of range for model '" + name + "' (expected " + fmt("%g", it->lo) + " to " +
           fmt("%g", it->hi) + ")");
    if (!it->choices.empty() && v != std::floor(v))
      fail("--" + flag_of(k) + " " + fmt("%g", v) + " is not a mode of model '" + name + "' (expected " + choices_of(*it) + ")");
  }
}

std::shared_ptr<Attention> make_attention(const std::string& name, AttentionConfig cfg) {
  check_attention(name, cfg);
  const AttentionInfo& info = attention_info(name);
  for (auto& k : info.knobs)
    if (!cfg.knobs.count(k.name)) cfg.knobs[k.name] = k.def;
  return info.make(cfg);
}

double Attention::knob(const std::string& name) const {
  auto it = cfg_.knobs.find(name);
  if (it == cfg_.knobs.end()) fail("attention: no setting '" + name + "' in this configuration");
  return it->second;
}

Pattern Attention::pattern(const Tensor& x, const Tensor&) {
  Pattern p;
  p.n = x.size(1);
  p.cell.assign(size_t(p.n * p.n), 1);
  if (cfg_.causal)
    for (int64_t i = 0; i < p.n; ++i)
      for (int64_t j = i + 1; j < p.n; ++j) p.cell[size_t(i * p.n + j)] = 0;
  p.legend = {"dense"};
  return p;
}

std::unique_ptr<DecodeState> Attention::decoder() { return nullptr; }  // generation re-runs the prefix

Tensor Attention::attention_weights(const Tensor&, const Tensor&) {
  fail("this model has no attention matrix to show");
}

Pattern all_keys_pattern(int64_t n, const Tensor& key_pad, bool causal, const std::string& legend) {
  Pattern p;
  p.n = n;
  p.legend = {legend};
  p.cell.assign(size_t(n * n), 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (!(causal && j > i) && !(key_pad.defined() && key_pad.data()[j] != 0)) p.cell[size_t(i * n + j)] = 1;
  return p;
}

}  // namespace az
