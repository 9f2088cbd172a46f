// Module registration and traversal.
#include "nn/module.h"

#include <cstring>

namespace az {

Tensor Module::register_parameter(const std::string& name, Tensor t, Decay decay) {
  t.set_requires_grad(true);
  params_.push_back({name, t, decay == Decay::yes});
  return t;
}

Tensor Module::register_buffer(const std::string& name, Tensor t) {
  buffers_.push_back({name, t, false});
  return t;
}

void Module::collect(const std::string& prefix, bool params, std::vector<NamedTensor>& out) const {
  for (const NamedTensor& p : params ? params_ : buffers_) out.push_back({prefix + p.name, p.tensor, p.decay});
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", params, out);
}

std::vector<NamedTensor> Module::named_parameters() const {
  std::vector<NamedTensor> out;
  collect("", true, out);
  return out;
}

std::vector<NamedTensor> Module::named_buffers() const {
  std::vector<NamedTensor> out;
  collect("", false, out);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& p : named_parameters()) out.push_back(p.tensor);
  return out;
}

int64_t Module::num_parameters() const {
  int64_t n = 0;
  for (auto& p : named_parameters()) n += p.tensor.numel();
  return n;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& c : children_) c.second->train(on);
}

void Module::zero_grad() {
  for (auto& p : named_parameters()) p.tensor.zero_grad();
}

void Module::before_step() {
  for (auto& c : children_) c.second->before_step();
}

namespace {
thread_local int t_shard = -1;
thread_local BufferWrites* t_kept = nullptr;
void copy_into(const Tensor& buffer, const Tensor& value) {
  if (buffer.numel() != value.numel())
    fail("write_buffer: " + shape_str(value.shape()) + " into a buffer of " + shape_str(buffer.shape()));
  if (buffer.data() != value.data()) std::memcpy(buffer.data(), value.data(), sizeof(float) * size_t(value.numel()));
}
}  // namespace

ShardScope::ShardScope(int index, BufferWrites* kept) : prev_index_(t_shard), prev_kept_(t_kept) {
  t_shard = index, t_kept = kept;
}
ShardScope::~ShardScope() { t_shard = prev_index_, t_kept = prev_kept_; }
int current_shard() { return t_shard; }

void write_buffer(const Tensor& buffer, const Tensor& value) {
  if (t_shard < 0) return copy_into(buffer, value);
  if (t_shard == 0 && t_kept) t_kept->push_back({buffer, value.clone()});
}

void apply_buffer_writes(const BufferWrites& writes) {
  for (auto& [buffer, value] : writes) copy_into(buffer, value);
}

}  // namespace az
