// Optimizers, schedules and clipping (see optim.h).
#include "nn/optim.h"

#include <cmath>

#include "autograd/internal.h"

namespace az {

void Optimizer::zero_grad() {
  for (auto& p : params_) p.tensor.zero_grad();
}

std::vector<float>& Optimizer::slot(const std::string& name, size_t i) {
  auto& v = slots_[name];
  if (v.size() != params_.size()) v.resize(params_.size());
  if (v[i].size() != size_t(params_[i].tensor.numel())) v[i].assign(size_t(params_[i].tensor.numel()), 0.0f);
  return v[i];
}

std::map<std::string, std::vector<float>> Optimizer::state() const {
  std::map<std::string, std::vector<float>> s;
  for (auto& [name, per] : slots_)
    for (size_t i = 0; i < per.size(); ++i)
      if (!per[i].empty()) s[name + "/" + params_[i].name] = per[i];
  s["steps"] = {float(steps_)};
  return s;
}

void Optimizer::load_state(const std::map<std::string, std::vector<float>>& s) {
  slots_.clear();
  steps_ = 0;
  for (auto& [key, values] : s) {
    if (key == "steps") {
      if (values.size() != 1) fail("optimizer state: 'steps' must hold one value");
      steps_ = int64_t(values[0]);
      continue;
    }
    size_t cut = key.find('/');
    if (cut == std::string::npos) fail("optimizer state: malformed entry '" + key + "'");
    std::string sl = key.substr(0, cut), pname = key.substr(cut + 1);
    size_t i = 0;
    while (i < params_.size() && params_[i].name != pname) ++i;
    if (i == params_.size()) fail("optimizer state: no parameter named '" + pname + "'");
    if (values.size() != size_t(params_[i].tensor.numel()))
      fail("optimizer state: '" + key + "' has " + std::to_string(values.size()) + " values, parameter has " +
           std::to_string(params_[i].tensor.numel()));
    slot(sl, i) = values;
  }
}

SGD::SGD(std::vector<NamedTensor> params, float momentum, float wd)
    : Optimizer(std::move(params)), momentum_(momentum), wd_(wd) {}

void SGD::step(float lr) {
  ++steps_;
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i].tensor;
    if (!p.has_grad()) continue;
    float *w = p.data(), *g = p.grad_data();
    std::vector<float>& v = slot("momentum", i);
    for (int64_t j = 0; j < p.numel(); ++j) {
      float d = g[j] + wd_ * w[j];
      v[j] = momentum_ * v[j] + d;
      w[j] -= lr * v[j];
    }
  }
}

Adam::Adam(std::vector<NamedTensor> params, float b1, float b2, float eps, float wd, bool decoupled)
    : Optimizer(std::move(params)), b1_(b1), b2_(b2), eps_(eps), wd_(wd), decoupled_(decoupled) {}

void Adam::step(float lr) {
  ++steps_;
  float c1 = 1.0f - std::pow(b1_, float(steps_)), c2 = 1.0f - std::pow(b2_, float(steps_));
  // The update is elementwise, so every parameter's elements are cut into pieces of at most
  // kPiece and all pieces of all parameters shared among the threads at once: a model's
  // parameters are many small tensors (bench's: 20 of at most 49K), none worth a thread alone.
  constexpr int64_t kPiece = 1 << 14;
  struct Piece {
    float *w, *g, *m, *v, decay, l2;
    int64_t begin, end;
  };
  std::vector<Piece> pieces;
  int64_t total = 0;
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i].tensor;
    if (!p.has_grad()) continue;
    float decay = decoupled_ ? (params_[i].decay ? wd_ : 0.0f) : 0.0f, l2 = decoupled_ ? 0.0f : wd_;
    float *m = slot("m", i).data(), *v = slot("v", i).data();  // (created here, serially)
    int64_t n = p.numel();
    for (int64_t b = 0; b < n; b += kPiece) pieces.push_back({p.data(), p.grad_data(), m, v, decay, l2, b, std::min(n, b + kPiece)});
    total += n;
  }
#pragma omp parallel for schedule(dynamic, 1) if (total > kParallelMin)
  for (size_t k = 0; k < pieces.size(); ++k) {
    const Piece& pc = pieces[k];
    float *w = pc.w, *g = pc.g, *m = pc.m, *v = pc.v, decay = pc.decay, l2 = pc.l2;
#pragma omp simd
    for (int64_t j = pc.begin; j < pc.end; ++j) {
      float gj = g[j] + l2 * w[j];
      m[j] = b1_ * m[j] + (1 - b1_) * gj;
      v[j] = b2_ * v[j] + (1 - b2_) * gj * gj;
      w[j] -= lr * decay * w[j];
      w[j] -= lr * (m[j] / c1) / (std::sqrt(v[j] / c2) + eps_);
    }
  }
}

float Schedule::lr(int64_t step) const {
  float s = float(std::max<int64_t>(step, 1));
  if (kind == kCosine && from_step > 0 && step > from_step) {  // a run extended at from_step: on from from_lr
    float t = float(step - from_step) / float(std::max<int64_t>(1, total - from_step));
    t = std::min(1.0f, t);
    return min_lr + 0.5f * (from_lr - min_lr) * (1.0f + std::cos(3.14159265f * t));
  }
  if (warmup > 0 && step < warmup) return base_lr * s / float(warmup);
  switch (kind) {
    case kConstant:
      return base_lr;
    case kCosine: {
      float t = float(step - warmup) / float(std::max<int64_t>(1, total - warmup));
      t = std::min(1.0f, std::max(0.0f, t));
      return min_lr + 0.5f * (base_lr - min_lr) * (1.0f + std::cos(3.14159265f * t));
    }
    case kRsqrt:
      return base_lr * std::sqrt(float(std::max<int64_t>(warmup, 1)) / s);
  }
  return base_lr;
}

Schedule::Kind Schedule::parse(const std::string& name) {
  if (name == "constant") return kConstant;
  if (name == "cosine") return kCosine;
  if (name == "rsqrt") return kRsqrt;
  fail("unknown schedule '" + name + "' (expected constant, cosine or rsqrt)");
}

float clip_grad_norm(const std::vector<NamedTensor>& params, float max_norm) {
  // Eight running sums, added in one fixed order: the same bits on every machine and thread count,
  // and the loop vectorises (one chain of dependent double adds took 0.4 ms a step of make
  // train's model, 77K parameters: 4% of a step at 2 threads).
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (auto& p : params) {
    if (!p.tensor.has_grad()) continue;
    const float* g = p.tensor.grad_data();
    const int64_t n = p.tensor.numel(), whole = n / 8 * 8;
    for (int64_t j = 0; j < whole; j += 8)
      for (int k = 0; k < 8; ++k) lane[k] += double(g[j + k]) * g[j + k];
    for (int64_t j = whole; j < n; ++j) lane[j - whole] += double(g[j]) * g[j];
  }
  double sq = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  float norm = float(std::sqrt(sq));
  if (max_norm > 0 && norm > max_norm && std::isfinite(norm)) {
    float s = max_norm / (norm + 1e-6f);
    for (auto& p : params) {
      if (!p.tensor.has_grad()) continue;
      float* g = p.tensor.grad_data();
      for (int64_t j = 0; j < p.tensor.numel(); ++j) g[j] *= s;
    }
  }
  return norm;
}

}  // namespace az
