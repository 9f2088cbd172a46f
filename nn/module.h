// Module: named parameters, buffers and submodules, as libtorch's C++ front
// end has them.  Names ("blocks.0.attn.q.weight") drive checkpoints, weight
// decay and clipping.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "autograd/ops.h"

namespace az {

struct NamedTensor {
  std::string name;
  Tensor tensor;
  bool decay = true;  // parameters only: AdamW decays it (weights yes; biases, norms, embeddings no)
};

class Module {
 public:
  virtual ~Module() = default;
  // Registers a trainable tensor (requires_grad is set).  Returns the handle.
  Tensor register_parameter(const std::string& name, Tensor t, bool decay = true);
  // Registers state that is saved but not trained (centroids, random features).
  Tensor register_buffer(const std::string& name, Tensor t);
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> m) {
    children_.push_back({name, m});
    return m;
  }
  std::vector<NamedTensor> named_parameters() const;
  std::vector<NamedTensor> named_buffers() const;
  std::vector<Tensor> parameters() const;
  int64_t num_parameters() const;
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  void zero_grad();

 protected:
  bool training_ = true;

 private:
  void collect(const std::string& prefix, bool params, std::vector<NamedTensor>& out) const;
  std::vector<NamedTensor> params_, buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

}  // namespace az
