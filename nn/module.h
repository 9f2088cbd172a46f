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

// Whether AdamW's weight decay applies to a parameter: weights yes; biases, norms' gains and
// shifts, embeddings and other per-position or per-channel vectors no.
enum class Decay { no, yes };

class Module {
 public:
  virtual ~Module() = default;
  // Registers a trainable tensor (requires_grad is set).  Returns the handle.
  Tensor register_parameter(const std::string& name, Tensor t, Decay decay = Decay::yes);
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
  // Once per training step, before its forward passes (train/parallel.h): the state a step
  // changes once, not once per shard (performer's and RFA's redraw schedule).  The default
  // calls the submodules'.
  virtual void before_step();

 protected:
  bool training_ = true;

 private:
  void collect(const std::string& prefix, bool params, std::vector<NamedTensor>& out) const;
  std::vector<NamedTensor> params_, buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

// ---- forward passes that change buffers ----------------------------------------------------
// A batch-parallel step (train/parallel.h) runs every shard's forward at once, and each reads
// the buffers as they were when the step began.  A forward that changes a buffer (routing's
// centroids) writes it through write_buffer: outside a step at once; inside one, shard 0's
// writes are kept and made, in order, after every shard has finished, and the other shards'
// are dropped, as under MPI rank 0's buffers win.  Any thread count gives the same buffers.
void write_buffer(const Tensor& buffer, const Tensor& value);
using BufferWrites = std::vector<std::pair<Tensor, Tensor>>;  // (buffer, value), in order
// While alive, this thread runs shard `index` of a step; shard 0 collects its writes in `*kept`.
struct ShardScope {
  ShardScope(int index, BufferWrites* kept);
  ~ShardScope();
  ShardScope(const ShardScope&) = delete;
  ShardScope& operator=(const ShardScope&) = delete;
  int prev_index_;
  BufferWrites* prev_kept_;
};
int current_shard();  // the shard this thread runs, or -1 outside a step
void apply_buffer_writes(const BufferWrites& writes);

}  // namespace az
