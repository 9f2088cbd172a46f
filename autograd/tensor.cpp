// Tensor handles and the backward engine (the storage pool and the random source: autograd/runtime/).
#include "autograd/tensor.h"
#include "autograd/internal.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

namespace az {

std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

void fail(const std::string& msg) { throw Error(msg); }

// ---- tensor -------------------------------------------------------------------
static std::shared_ptr<TensorImpl> new_impl(const Shape& s) {
  for (int64_t d : s)
    if (d < 0) fail("tensor: negative dimension in shape " + shape_str(s));
  auto t = std::make_shared<TensorImpl>();
  t->shape = s;
  t->storage = std::make_shared<Storage>(size_t(numel_of(s)));
  return t;
}

Tensor Tensor::empty(const Shape& s) {
  Tensor t;
  t.impl_ = new_impl(s);
  return t;
}

Tensor Tensor::zeros(const Shape& s) {
  Tensor t = empty(s);
  std::memset(t.data(), 0, sizeof(float) * t.numel());
  return t;
}

Tensor Tensor::full(const Shape& s, float v) {
  Tensor t = empty(s);
  std::fill(t.data(), t.data() + t.numel(), v);
  return t;
}

Tensor Tensor::ones(const Shape& s) { return full(s, 1.0f); }
Tensor Tensor::scalar(float v) { return full({}, v); }

Tensor Tensor::from(const Shape& s, const std::vector<float>& v) {
  if ((int64_t)v.size() != numel_of(s))
    fail("Tensor::from: " + std::to_string(v.size()) + " values for shape " + shape_str(s) +
         " (expected " + std::to_string(numel_of(s)) + ")");
  Tensor t = empty(s);
  std::copy(v.begin(), v.end(), t.data());
  return t;
}

Tensor Tensor::randn(const Shape& s, float std, Rng& rng) {
  Tensor t = empty(s);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = std * rng.normal();
  return t;
}

Tensor Tensor::uniform(const Shape& s, float lo, float hi, Rng& rng) {
  Tensor t = empty(s);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = lo + (hi - lo) * rng.uniform();
  return t;
}

int64_t Tensor::size(int64_t axis) const {
  int64_t r = dim(), a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r)
    fail("size: axis " + std::to_string(axis) + " out of range for shape " + shape_str(shape()));
  return shape()[a];
}

float Tensor::item() const {
  if (numel() != 1) fail("item: tensor of shape " + shape_str(shape()) + " is not a single value");
  return data()[0];
}

std::vector<float> Tensor::to_vector() const { return std::vector<float>(data(), data() + numel()); }

Tensor& Tensor::set_requires_grad(bool r) {
  impl_->requires_grad = r;
  return *this;
}

// ---- gradient slots (batch-parallel steps) -----------------------------------------
namespace {
thread_local GradSlots* t_slots = nullptr;
}
GradSlots::GradSlots(std::vector<Tensor> leaves)
    : leaves_(std::move(leaves)), grads_(leaves_.size()), prev_(t_slots) {
  t_slots = this;
}
GradSlots::~GradSlots() { t_slots = prev_; }
std::shared_ptr<Storage>* GradSlots::find(const TensorImpl* t) {
  for (size_t i = 0; i < leaves_.size(); ++i)  // a model has tens of parameter tensors: a scan is enough
    if (leaves_[i].impl() == t) return &grads_[i];
  return nullptr;
}
std::shared_ptr<Storage>& grad_slot(TensorImpl* t) {
  if (t_slots && !t->node)  // only leaves are redirected; an op's output keeps its own
    if (std::shared_ptr<Storage>* s = t_slots->find(t)) return *s;
  return t->grad;
}

float* Tensor::grad_data() const {
  std::shared_ptr<Storage>& grad = grad_slot(impl_.get());
  if (!grad) {
    grad = std::make_shared<Storage>(size_t(numel()));
    float* g = grad->data;
    int64_t n = numel(), chunk = int64_t(1) << 18;  // large gradients (N x N scores) are zeroed by all threads
#pragma omp parallel for if (n > 4 * chunk)
    for (int64_t i = 0; i < n; i += chunk) std::memset(g + i, 0, sizeof(float) * size_t(std::min(chunk, n - i)));
  }
  return grad->data;
}

Tensor Tensor::grad() const {
  Tensor g;
  const std::shared_ptr<Storage>& grad = grad_slot(impl_.get());
  if (!grad) return g;
  g.impl_ = std::make_shared<TensorImpl>();
  g.impl_->shape = shape();
  g.impl_->storage = grad;
  return g;
}

Tensor Tensor::detach() const {
  Tensor t;
  t.impl_ = std::make_shared<TensorImpl>();
  t.impl_->shape = shape();
  t.impl_->storage = impl_->storage;
  return t;
}

Tensor Tensor::clone() const {
  Tensor t = empty(shape());
  std::memcpy(t.data(), data(), sizeof(float) * numel());
  return t;
}

// ---- grad mode and graph building ---------------------------------------------
static thread_local bool g_grad_enabled = true;
bool grad_enabled() { return g_grad_enabled; }
NoGradGuard::NoGradGuard() : prev_(g_grad_enabled) { g_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { g_grad_enabled = prev_; }

bool needs_grad(std::initializer_list<const Tensor*> inputs) {
  if (!g_grad_enabled) return false;
  for (const Tensor* t : inputs)
    if (t->defined() && t->requires_grad()) return true;
  return false;
}

void attach(Tensor& out, const char* name, std::vector<Tensor> inputs,
            std::function<void(const Tensor&)> backward) {
  out.impl()->requires_grad = true;
  auto n = std::make_shared<Node>();
  n->name = name;
  n->inputs = std::move(inputs);
  n->backward = std::move(backward);
  const_cast<std::shared_ptr<Node>&>(out.node()) = std::move(n);
}

// ---- the backward engine ----------------------------------------------------------
void Tensor::backward() const {
  if (numel() != 1)
    fail("backward: root has shape " + shape_str(shape()) +
         "; a non-scalar root needs an explicit gradient: backward(grad)");
  backward(Tensor::ones(shape()));
}

namespace {

// Every tensor the root depends on (through inputs that need a gradient), each after all of its
// inputs: an iterative post-order walk (graphs get 100k ops deep, too deep to recurse).
std::vector<Tensor> topological_order(const Tensor& root) {
  std::vector<Tensor> order;
  std::unordered_set<TensorImpl*> seen{root.impl()};
  std::vector<std::pair<Tensor, size_t>> stack{{root, 0}};
  while (!stack.empty()) {
    auto& [t, i] = stack.back();
    Node* n = t.impl()->node.get();
    if (n && i < n->inputs.size()) {
      const Tensor& in = n->inputs[i++];
      if (in.requires_grad() && seen.insert(in.impl()).second) stack.push_back({in, 0});
      continue;
    }
    order.push_back(t);
    stack.pop_back();
  }
  return order;
}

// The root's gradient: copied into a new buffer (no zeroing pass) or added into an existing one,
// in threads when it is large.
void seed_gradient(TensorImpl* root, const Tensor& grad_output) {
  const float* go = grad_output.data();
  int64_t n = numel_of(root->shape);
  std::shared_ptr<Storage>& grad = grad_slot(root);
  bool fresh = !grad;
  if (fresh) grad = std::make_shared<Storage>(size_t(n));
  float* g = grad->data;
#pragma omp parallel for simd if (n > kParallelMin)
  for (int64_t i = 0; i < n; ++i) g[i] = fresh ? go[i] : g[i] + go[i];
}

bool all_finite(const float* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

// One op's backward, timed under --profile and checked under --detect-anomaly.
void run_backward(Node& n, const Tensor& out) {
  double t0 = Profiler::enabled ? Profiler::now() : 0;
  n.backward(out);
  if (Profiler::enabled) Profiler::record(n.name, true, Profiler::now() - t0);
  if (Anomaly::enabled)
    for (const Tensor& in : n.inputs)
      if (in.requires_grad() && in.has_grad() && !all_finite(in.grad_data(), in.numel()))
        throw AnomalyError(std::string("anomaly: backward of op '") + n.name +
                           "' produced a non-finite gradient for an input of shape " + shape_str(in.shape()));
}

}  // namespace

// The walk: sort the graph, seed the root's gradient, then run each op's backward from the root
// back to the leaves, each adding into its inputs' gradients.
void Tensor::backward(const Tensor& grad_output) const {
  if (grad_output.shape() != shape())
    fail("backward: gradient shape " + shape_str(grad_output.shape()) + " does not match root shape " +
         shape_str(shape()));
  if (!requires_grad()) fail("backward: the root does not require a gradient (no input had requires_grad)");
  std::vector<Tensor> order = topological_order(*this);  // inputs before the ops that read them
  seed_gradient(impl(), grad_output);                      // d root / d root
  for (size_t k = order.size(); k-- > 0;) {                // from the root back to the leaves
    TensorImpl* t = order[k].impl();
    std::shared_ptr<Node> n = t->node;
    if (!n) continue;                          // a leaf: its gradient stays
    if (t->grad) run_backward(*n, order[k]);   // adds into the inputs' gradients
    t->grad.reset();                           // intermediate gradients are not kept
    t->node.reset();                           // free the graph as we go
  }
}

}  // namespace az
