// Tensor: a float32, contiguous, row-major array with reverse-mode autograd.
//
// A Tensor is a cheap handle (shared_ptr) to a TensorImpl holding the shape,
// the storage, the gradient and the Node that produced it.  Every op (ops.h)
// computes its result and, when an input needs a gradient, attaches a Node
// whose closure reads the output's gradient and accumulates (+=) into the
// inputs' gradients.  backward() sorts the graph iteratively (no recursion:
// graphs get 100k ops deep), walks it in reverse, and frees it afterwards.
#pragma once
#include "autograd/error.h"  // Error: shape mismatches, bad indices, bad arguments to ops
#include "autograd/runtime/rng.h"      // Rng, global_rng, hash64, BatchShard
#include "autograd/runtime/storage.h"  // Storage: the float buffer of every tensor, from a caching pool
#include "autograd/runtime/profiler.h" // Profiler, OpScope (--profile) and Anomaly (--detect-anomaly)
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace az {

using Shape = std::vector<int64_t>;
std::string shape_str(const Shape& s);  // "[3,5,7]"
int64_t numel_of(const Shape& s);       // product; 1 for the 0-d shape []
[[noreturn]] void fail(const std::string& msg);  // throws Error(msg)

// Thrown by backward() when Anomaly::enabled and an op's backward made a NaN or Inf.
struct AnomalyError : Error {
  using Error::Error;
};

struct Node;
class Tensor;

struct TensorImpl {
  Shape shape;
  std::shared_ptr<Storage> storage;
  std::shared_ptr<Storage> grad;  // allocated zeroed on first accumulation
  bool requires_grad = false;
  std::shared_ptr<Node> node;     // the op that made this tensor; null for leaves
};

// The gradient buffer that accumulates for t on this thread: t's own, or, for a leaf named
// by a GradSlots scope open on this thread, that scope's (see GradSlots below).
std::shared_ptr<Storage>& grad_slot(TensorImpl* t);

class Tensor {
 public:
  Tensor() = default;
  static Tensor empty(const Shape& s);  // uninitialised
  static Tensor zeros(const Shape& s);
  static Tensor ones(const Shape& s);
  static Tensor full(const Shape& s, float v);
  static Tensor scalar(float v);
  static Tensor from(const Shape& s, const std::vector<float>& v);
  static Tensor randn(const Shape& s, float std = 1.0f, Rng& rng = global_rng());
  static Tensor uniform(const Shape& s, float lo, float hi, Rng& rng = global_rng());

  bool defined() const { return impl_ != nullptr; }
  const Shape& shape() const { return impl_->shape; }
  int64_t dim() const { return (int64_t)impl_->shape.size(); }
  int64_t size(int64_t axis) const;  // negative axes count from the end
  int64_t numel() const { return numel_of(impl_->shape); }
  float* data() const { return impl_->storage->data; }
  float item() const;
  std::vector<float> to_vector() const;

  bool requires_grad() const { return impl_ && impl_->requires_grad; }
  Tensor& set_requires_grad(bool r = true);
  bool has_grad() const { return grad_slot(impl_.get()) != nullptr; }
  float* grad_data() const;     // allocates a zeroed gradient when absent
  // A tensor sharing the gradient buffer (undefined if none).  Only leaves keep one: backward()
  // frees each intermediate tensor's gradient once its op has passed it on (unlike micrograd,
  // where every node keeps .grad), so .grad() of an op's output after backward is undefined.
  // To inspect one, make it a leaf: y = f(x).detach().set_requires_grad(), then use y.
  Tensor grad() const;
  void zero_grad() const { grad_slot(impl_.get()).reset(); }
  void backward() const;                        // root must hold one element
  void backward(const Tensor& grad_output) const;

  Tensor detach() const;  // same storage, no graph
  Tensor clone() const;   // a copy of the data, no graph
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<Node>& node() const { return impl_->node; }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// The backward half of an op: reads out's gradient, accumulates into inputs'.
struct Node {
  const char* name;
  std::vector<Tensor> inputs;
  std::function<void(const Tensor& out)> backward;
};

// Batch-parallel steps (train/parallel.h) run several shards' backward passes at once over
// one set of parameters.  While a GradSlots scope is open on a thread, the gradients of the
// leaves it names accumulate into the scope's own buffers (one per leaf, null until a gradient
// arrives) instead of the shared tensors' grad: threads never write the same memory, and each
// shard's sums stay apart until they are added in shard order.  Everything else is unchanged.
class GradSlots {
 public:
  explicit GradSlots(std::vector<Tensor> leaves);
  ~GradSlots();
  GradSlots(const GradSlots&) = delete;
  GradSlots& operator=(const GradSlots&) = delete;
  std::shared_ptr<Storage>& slot(size_t i) { return grads_[i]; }  // leaf i's gradient (null if none)
  std::shared_ptr<Storage>* find(const TensorImpl* t);            // null if t is not one of the leaves

 private:
  std::vector<Tensor> leaves_;
  std::vector<std::shared_ptr<Storage>> grads_;
  GradSlots* prev_;
};

// Graph building is on by default; NoGradGuard turns it off in a scope.
bool grad_enabled();
struct NoGradGuard {
  NoGradGuard();
  ~NoGradGuard();
  bool prev_;
};

// Used by op definitions: true when the result needs a Node.
bool needs_grad(std::initializer_list<const Tensor*> inputs);
// Links `out` to its inputs with the backward closure (captures by value only
// what backward needs; it receives the output, so it never owns it).
void attach(Tensor& out, const char* name, std::vector<Tensor> inputs,
            std::function<void(const Tensor&)> backward);

}  // namespace az
