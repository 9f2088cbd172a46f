// Optimizers, learning-rate schedules and gradient clipping.
//
// Each optimizer walks the named parameters it was given; its state (moments,
// step count) is a list of named float vectors so checkpoints can save it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "nn/module.h"

namespace az {

class Optimizer {
 public:
  explicit Optimizer(std::vector<NamedTensor> params) : params_(std::move(params)) {}
  virtual ~Optimizer() = default;
  virtual void step(float lr) = 0;
  void zero_grad();
  // State for checkpoints: "<slot>/<param name>" -> values, plus the step count.
  std::map<std::string, std::vector<float>> state() const;
  void load_state(const std::map<std::string, std::vector<float>>& s);  // throws on name or size mismatch
  int64_t steps() const { return steps_; }
  const std::vector<NamedTensor>& params() const { return params_; }

 protected:
  std::vector<float>& slot(const std::string& slot, size_t i);
  std::vector<NamedTensor> params_;
  std::map<std::string, std::vector<std::vector<float>>> slots_;  // slot -> per parameter
  int64_t steps_ = 0;
};

// p -= lr * (v = momentum * v + g + weight_decay * p)   (PyTorch's SGD)
class SGD : public Optimizer {
 public:
  SGD(std::vector<NamedTensor> params, float momentum = 0.9f, float weight_decay = 0.0f);
  void step(float lr) override;
  float momentum_, wd_;
};

// Kingma & Ba 2015 with bias correction.  decoupled = true is AdamW
// (Loshchilov & Hutter 2019): p -= lr * wd * p, only for decay parameters;
// otherwise weight_decay is added to the gradient (L2), as torch's Adam does.
class Adam : public Optimizer {
 public:
  Adam(std::vector<NamedTensor> params, float beta1 = 0.9f, float beta2 = 0.999f, float eps = 1e-8f,
       float weight_decay = 0.0f, bool decoupled = false);
  void step(float lr) override;
  float b1_, b2_, eps_, wd_;
  bool decoupled_;
};

struct Schedule {
  enum Kind { kConstant, kCosine, kRsqrt } kind = kConstant;
  float base_lr = 1e-3f;
  int64_t warmup = 0, total = 1;
  float min_lr = 0.0f;
  // A cosine run whose total grew on --resume: from from_step on, a cosine from
  // from_lr (the rate the run had reached) down to min_lr at the new total, so
  // the rate goes on without a jump.  0: none.
  int64_t from_step = 0;
  float from_lr = 0.0f;
  // Linear warm-up over `warmup` steps to base_lr, then: constant; cosine to
  // min_lr at `total`; or LRA's reciprocal square root, base_lr * sqrt(warmup / step).
  float lr(int64_t step) const;
  static Kind parse(const std::string& name);  // "constant" | "cosine" | "rsqrt"
};

// Scales all gradients so their global L2 norm is at most max_norm; returns
// the norm before clipping.  max_norm <= 0 only measures.
float clip_grad_norm(const std::vector<NamedTensor>& params, float max_norm);

}  // namespace az
