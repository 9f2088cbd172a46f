// Tensor handles, the storage pool, the random source and the backward engine.
#include "autograd/tensor.h"
#include "autograd/internal.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>
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

// ---- storage pool -----------------------------------------------------------
// Freed buffers are kept by size class (8 classes per octave, so a request is
// rounded up by at most 12.5% and sequences of slightly different lengths share
// buffers) and handed out again, newest first.  A request whose class has no
// free buffer takes one of the next larger classes, up to 1.5 times its own
// class, and a request that still misses (a size the run has not needed
// lately) first drops the buffers freed longest ago, down to 1.25 times the
// largest amount ever in use at once.  Batches of varying length (ListOps,
// text) ask for new [B, H, N, N] sizes almost every step: with a cache keyed
// by class alone, bounded at twice the peak, a full-attention ListOps run at
// 2000 tokens held 6.7 GB after two steps and 8.9 GB after 16 and its test
// evaluation, for a 3.5 GB working set; now 3.5 and 4.3 GB.  Frees never evict
// below twice the peak, and the cache may always keep 64 MiB.  A loop of fixed
// shapes stops missing after its first step, so it never calls malloc again
// and loses no buffer it needs.  (A bound of once
// the peak at free time was too tight: a step's buffers outnumber its peak
// when some sizes are freed before others are needed, and a 128 MB buffer went
// back to the system and faulted in again every step.)
namespace {
struct Pool {
  std::mutex mu;
  std::map<uint64_t, std::pair<size_t, float*>> by_age;  // free stamp -> (class bytes, buffer)
  std::map<size_t, std::vector<uint64_t>> free;          // class bytes -> stamps, oldest first; never empty
  size_t cached = 0, live = 0, peak_live = 0;
  uint64_t clock = 0;
  static constexpr size_t kMinCap = size_t(64) << 20;
  ~Pool() { release(); }
  void release() {
    std::lock_guard<std::mutex> l(mu);
    for (auto& kv : by_age) std::free(kv.second.second);
    by_age.clear();
    free.clear();
    cached = 0;
  }
  void forget(std::map<size_t, std::vector<uint64_t>>::iterator it, uint64_t stamp) {  // caller holds mu
    auto& stamps = it->second;
    stamps.erase(std::find(stamps.begin(), stamps.end(), stamp));
    if (stamps.empty()) free.erase(it);
  }
  void evict_oldest() {  // caller holds mu
    auto it = by_age.begin();
    forget(free.find(it->second.first), it->first);
    std::free(it->second.second);
    cached -= it->second.first;
    by_age.erase(it);
  }
  // The newest free buffer of the smallest class in [bytes, 1.5 bytes]; null if none.
  float* take(size_t bytes, size_t* cap) {  // caller holds mu
    auto it = free.lower_bound(bytes);
    if (it == free.end() || it->first > bytes + bytes / 2) return nullptr;
    uint64_t stamp = it->second.back();
    auto node = by_age.find(stamp);
    float* data = node->second.second;
    *cap = it->first;
    by_age.erase(node);
    it->second.pop_back();  // the newest: no search
    if (it->second.empty()) free.erase(it);
    cached -= *cap;
    return data;
  }
};
Pool& pool() {
  static Pool* p = new Pool();  // never destroyed: storages may outlive statics
  return *p;
}
// Bytes of the size class holding n floats: multiples of 64 up to 4 KiB, then 8 steps per octave.
size_t class_bytes(size_t n) {
  size_t b = std::max<size_t>(64, (n * sizeof(float) + 63) / 64 * 64);
  if (b <= 4096) return b;
  int top = 63 - __builtin_clzll(b);  // 2^top <= b < 2^(top+1)
  size_t step = size_t(1) << (top - 3);
  return (b + step - 1) / step * step;
}
}  // namespace

Storage::Storage(size_t count) : data(nullptr), n(count), cap(class_bytes(count)) {
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> l(p.mu);
    data = p.take(cap, &cap);
    p.live += cap;
    p.peak_live = std::max(p.peak_live, p.live);
    if (data) return;
    // A miss: a size this run has not needed lately.  Make room by dropping
    // the buffers freed longest ago (the sizes of older batches) down to 1.25x
    // the peak in use.  A loop of fixed shapes stops missing after its first
    // step, so this never takes away a buffer it needs.
    while (p.cached > Pool::kMinCap && p.cached + p.live > p.peak_live + p.peak_live / 4) p.evict_oldest();
  }
  data = static_cast<float*>(std::aligned_alloc(64, cap));
  if (!data) {
    std::lock_guard<std::mutex> l(p.mu);
    p.live -= cap;
    fail("out of memory allocating " + std::to_string(cap) + " bytes");
  }
}

Storage::~Storage() {
  Pool& p = pool();
  std::lock_guard<std::mutex> l(p.mu);
  p.live -= cap;
  uint64_t stamp = ++p.clock;
  p.by_age.emplace(stamp, std::make_pair(cap, data));
  p.free[cap].push_back(stamp);
  p.cached += cap;
  while (p.cached > Pool::kMinCap && p.cached + p.live > 2 * p.peak_live) p.evict_oldest();
}

size_t pool_cached_bytes() {
  std::lock_guard<std::mutex> l(pool().mu);
  return pool().cached;
}
size_t pool_peak_bytes() {
  std::lock_guard<std::mutex> l(pool().mu);
  return pool().peak_live;
}
size_t pool_live_bytes() {
  std::lock_guard<std::mutex> l(pool().mu);
  return pool().live;
}
void pool_release() { pool().release(); }

// ---- random source ----------------------------------------------------------
uint64_t hash64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

void Rng::seed_with(uint64_t seed) {
  for (int i = 0; i < 4; ++i) s_[i] = hash64(seed + 0x1234567ULL * (i + 1));
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t Rng::next_u64() {
  uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return r;
}

float Rng::uniform() { return float(next_u64() >> 40) * (1.0f / 16777216.0f); }

float Rng::normal() {
  double u1 = (double(next_u64() >> 11) + 1.0) * (1.0 / 9007199254740993.0);  // (0, 1]
  double u2 = double(next_u64() >> 11) * (1.0 / 9007199254740992.0);
  return float(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

int64_t Rng::randint(int64_t n) {
  if (n <= 0) fail("Rng::randint: n must be positive, got " + std::to_string(n));
  return int64_t(next_u64() % uint64_t(n));
}

Rng& global_rng() {
  static Rng rng(0x5eed);
  return rng;
}

BatchShard& batch_shard() {
  static BatchShard s;
  return s;
}

uint64_t mask_counter_base(int64_t lead, int64_t numel) {
  const BatchShard& s = batch_shard();
  if (s.rows <= 0 || s.first == 0 || lead <= 0 || lead % s.rows != 0) return 0;
  return uint64_t(s.first) * uint64_t(numel / s.rows);
}

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

float* Tensor::grad_data() const {
  if (!impl_->grad) {
    impl_->grad = std::make_shared<Storage>(size_t(numel()));
    float* g = impl_->grad->data;
    int64_t n = numel(), chunk = int64_t(1) << 18;  // large gradients (N x N scores) are zeroed by all threads
#pragma omp parallel for if (n > 4 * chunk)
    for (int64_t i = 0; i < n; i += chunk) std::memset(g + i, 0, sizeof(float) * size_t(std::min(chunk, n - i)));
  }
  return impl_->grad->data;
}

Tensor Tensor::grad() const {
  Tensor g;
  if (!impl_->grad) return g;
  g.impl_ = std::make_shared<TensorImpl>();
  g.impl_->shape = shape();
  g.impl_->storage = impl_->grad;
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

// ---- profiler -------------------------------------------------------------------
bool Profiler::enabled = false;
bool Anomaly::enabled = false;
namespace {
struct ProfRow {
  double fwd = 0, bwd = 0;
  long nf = 0, nb = 0;
};
std::map<std::string, ProfRow>& prof_rows() {
  static std::map<std::string, ProfRow> rows;
  return rows;
}
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

void Profiler::record(const char* name, bool backward, double s) {
  ProfRow& r = prof_rows()[name];
  if (backward) r.bwd += s, r.nb++;
  else r.fwd += s, r.nf++;
}
void Profiler::reset() { prof_rows().clear(); }
std::string Profiler::table() {
  std::vector<std::pair<std::string, ProfRow>> rows(prof_rows().begin(), prof_rows().end());
  double total = 0;
  for (auto& r : rows) total += r.second.fwd + r.second.bwd;
  std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) {
    return a.second.fwd + a.second.bwd > b.second.fwd + b.second.bwd;
  });
  std::ostringstream o;
  char line[160];
  std::snprintf(line, sizeof line, "%-22s %10s %10s %8s %8s %7s\n", "op", "fwd ms", "bwd ms", "fwd n",
                "bwd n", "share");
  o << line;
  for (auto& [name, r] : rows) {
    std::snprintf(line, sizeof line, "%-22s %10.1f %10.1f %8ld %8ld %6.1f%%\n", name.c_str(),
                  r.fwd * 1e3, r.bwd * 1e3, r.nf, r.nb, 100.0 * (r.fwd + r.bwd) / std::max(total, 1e-12));
    o << line;
  }
  std::snprintf(line, sizeof line, "%-22s %21.1f ms\n", "total", total * 1e3);
  o << line;
  return o.str();
}

OpScope::OpScope(const char* name) : name_(name), t0_(Profiler::enabled ? now_s() : 0) {}
OpScope::~OpScope() {
  if (Profiler::enabled) Profiler::record(name_, false, now_s() - t0_);
}

// ---- the backward engine ----------------------------------------------------------
void Tensor::backward() const {
  if (numel() != 1)
    fail("backward: root has shape " + shape_str(shape()) +
         "; a non-scalar root needs an explicit gradient: backward(grad)");
  backward(Tensor::ones(shape()));
}

static bool all_finite(const float* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

void Tensor::backward(const Tensor& grad_output) const {
  if (grad_output.shape() != shape())
    fail("backward: gradient shape " + shape_str(grad_output.shape()) + " does not match root shape " +
         shape_str(shape()));
  if (!requires_grad()) fail("backward: the root does not require a gradient (no input had requires_grad)");
  // Iterative post-order DFS: parents before children in `order`.
  std::vector<TensorImpl*> order;
  std::vector<Tensor> keep;  // holds every visited tensor alive during the walk
  std::unordered_set<TensorImpl*> seen;
  std::vector<std::pair<Tensor, size_t>> stack;
  stack.push_back({*this, 0});
  seen.insert(impl());
  while (!stack.empty()) {
    auto& [t, i] = stack.back();
    Node* n = t.impl()->node.get();
    if (n && i < n->inputs.size()) {
      const Tensor& in = n->inputs[i++];
      if (in.requires_grad() && seen.insert(in.impl()).second) stack.push_back({in, 0});
      continue;
    }
    order.push_back(t.impl());
    keep.push_back(t);
    stack.pop_back();
  }
  {  // seed: copy into a new gradient (no zeroing pass), add into an existing one
    const float* go = grad_output.data();
    int64_t n = numel();
    if (!impl_->grad) {
      impl_->grad = std::make_shared<Storage>(size_t(n));
      float* g = impl_->grad->data;
#pragma omp parallel for simd if (n > kParallelMin)
      for (int64_t i = 0; i < n; ++i) g[i] = go[i];
    } else {
      float* g = impl_->grad->data;
#pragma omp parallel for simd if (n > kParallelMin)
      for (int64_t i = 0; i < n; ++i) g[i] += go[i];
    }
  }
  for (size_t k = keep.size(); k-- > 0;) {
    Tensor& t = keep[k];
    std::shared_ptr<Node> n = t.impl()->node;
    if (!n) continue;  // a leaf: its gradient stays
    if (t.impl()->grad) {
      double t0 = Profiler::enabled ? now_s() : 0;
      n->backward(t);
      if (Profiler::enabled) Profiler::record(n->name, true, now_s() - t0);
      if (Anomaly::enabled)
        for (const Tensor& in : n->inputs)
          if (in.requires_grad() && in.has_grad() && !all_finite(in.impl()->grad->data, in.numel()))
            throw AnomalyError(std::string("anomaly: backward of op '") + n->name +
                               "' produced a non-finite gradient for an input of shape " + shape_str(in.shape()));
    }
    t.impl()->grad.reset();  // intermediate gradients are not kept
    t.impl()->node.reset();  // free the graph as we go
  }
}

}  // namespace az
