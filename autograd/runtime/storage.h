// The storage pool: every tensor's float buffer (see storage.cpp for the policy).
#pragma once
#include <cstddef>

namespace az {

// Float buffer from a size-bucketed caching pool: a training step allocates
// the same sizes every time, so after the first step nothing hits malloc.
// Each thread has its own pool (the threads of a batch-parallel step never
// contend for one); a buffer goes back to the pool it came from.
struct Storage {
  explicit Storage(size_t n);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  float* data;
  size_t n;
  size_t cap;  // bytes of the pooled buffer: its size class, maybe a larger one than n's
  void* pool;  // the pool it came from and returns to
};
// Over every thread's pool:
size_t pool_cached_bytes();  // freed bytes kept for reuse
size_t pool_peak_bytes();    // most bytes ever in use at once (by size class), summed over the pools
size_t pool_live_bytes();    // bytes in use now (by size class)
void pool_release();         // return every cached buffer to the system

}  // namespace az
