// The storage pool (see storage.h).
#include "autograd/runtime/storage.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "autograd/error.h"

namespace az {

[[noreturn]] void fail(const std::string& msg);  // autograd/tensor.cpp: throws Error(msg)

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
  static constexpr size_t kMinCap = size_t(64) << 20;  // shared out among the threads' pools (min_cap())
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
// What a pool may always keep: 64 MiB in all, shared out among the threads' pools (a
// batch-parallel step's threads would otherwise each keep 64 MiB of a small model's stale sizes).
std::atomic<size_t> g_pools{0};
size_t min_cap() { return Pool::kMinCap / std::max<size_t>(1, g_pools.load(std::memory_order_relaxed)); }
// Every thread's pool, for the totals; pools are never destroyed (storages may outlive their
// thread, and statics): a thread that ends leaves its cache to pool_release.
struct Pools {
  std::mutex mu;
  std::vector<Pool*> all;
};
Pools& pools() {
  static Pools* p = new Pools();
  return *p;
}
Pool& pool() {
  static thread_local Pool* mine = [] {
    Pool* p = new Pool();
    std::lock_guard<std::mutex> l(pools().mu);
    pools().all.push_back(p);
    g_pools = pools().all.size();
    return p;
  }();
  return *mine;
}
template <class F>
size_t sum_pools(F f) {
  std::lock_guard<std::mutex> l(pools().mu);
  size_t total = 0;
  for (Pool* p : pools().all) {
    std::lock_guard<std::mutex> pl(p->mu);
    total += f(*p);
  }
  return total;
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

Storage::Storage(size_t count) : data(nullptr), n(count), cap(class_bytes(count)), pool(&az::pool()) {
  Pool& p = *static_cast<Pool*>(pool);
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
    while (p.cached > min_cap() && p.cached + p.live > p.peak_live + p.peak_live / 4) p.evict_oldest();
  }
  data = static_cast<float*>(std::aligned_alloc(64, cap));
  if (!data) {
    std::lock_guard<std::mutex> l(p.mu);
    p.live -= cap;
    fail("out of memory allocating " + std::to_string(cap) + " bytes");
  }
}

Storage::~Storage() {
  Pool& p = *static_cast<Pool*>(pool);
  std::lock_guard<std::mutex> l(p.mu);
  p.live -= cap;
  uint64_t stamp = ++p.clock;
  p.by_age.emplace(stamp, std::make_pair(cap, data));
  p.free[cap].push_back(stamp);
  p.cached += cap;
  while (p.cached > min_cap() && p.cached + p.live > 2 * p.peak_live) p.evict_oldest();
}

size_t pool_cached_bytes() {
  return sum_pools([](const Pool& p) { return p.cached; });
}
size_t pool_peak_bytes() {
  return sum_pools([](const Pool& p) { return p.peak_live; });
}
size_t pool_live_bytes() {
  return sum_pools([](const Pool& p) { return p.live; });
}
// The pools that share the floor (tests/test_step_state.cpp checks what they keep against it).
size_t pool_count() {
  std::lock_guard<std::mutex> l(pools().mu);
  return pools().all.size();
}
void pool_release() {
  std::vector<Pool*> all;
  {
    std::lock_guard<std::mutex> l(pools().mu);
    all = pools().all;
  }
  for (Pool* p : all) p->release();
}

}  // namespace az
