// The random source, and the batch shard that keeps dropout masks the same
// however a batch is split between processes.
#pragma once
#include <array>
#include <cstdint>

namespace az {

// One seeded random source for everything random (xoshiro256**).  Its whole
// state is four words, saved in checkpoints.
class Rng {
 public:
  explicit Rng(uint64_t seed = 0x5eed) { seed_with(seed); }
  void seed_with(uint64_t seed);
  uint64_t next_u64();
  float uniform();                 // [0, 1)
  float normal();                  // N(0, 1), Box-Muller
  int64_t randint(int64_t n);      // [0, n)
  std::array<uint64_t, 4> state() const { return s_; }
  void set_state(const std::array<uint64_t, 4>& s) { s_ = s; }
 private:
  std::array<uint64_t, 4> s_{};
};
// The process's random source, or the calling thread's own while a RngScope is open: a
// batch-parallel step (train/parallel.h) gives each shard a copy of the step's source, so
// every shard draws what one process would, whichever thread runs it and in what order.
Rng& global_rng();
struct RngScope {
  explicit RngScope(Rng& r);
  ~RngScope();
  RngScope(const RngScope&) = delete;
  RngScope& operator=(const RngScope&) = delete;
  Rng* prev_;
};
// splitmix64 finaliser: counter-based randomness.  Inline: dropout calls it once per element.
inline uint64_t hash64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Per-element random masks (dropout) under data parallelism.  A process that
// computes rows [first, first + rows) of a global batch (train/distributed.h)
// records them here.  A mask over an example-major tensor, one whose leading
// dimension is a multiple of `rows` ([B,...] or [B*H,...]), then counts its
// elements from first * (elements per example), as if the whole batch were
// present: an example gets the same mask however the batch is split.
// rows = 0 (the default, one process): no shift.  Each thread has its own: a
// batch-parallel step sets each shard's rows on the thread that runs it.
struct BatchShard {
  int64_t first = 0, rows = 0;
};
BatchShard& batch_shard();
// The counter of element 0 of a mask over a tensor of `numel` elements whose
// leading dimension is `lead`: 0 unless sharded and lead % rows == 0.
uint64_t mask_counter_base(int64_t lead, int64_t numel);

// Dropout's mask, one formula for dropout() and every attention kernel: element i
// of a tensor (row-major, counted from base) is kept when
// hash64(key ^ (base + i) * golden) >= thresh, and a kept element is scaled by
// 1/(1-p).  key is one draw of the random source: parallel and reproducible.
struct DropoutMask {
  uint64_t key = 0, base = 0, thresh = 0;
  float scale = 1.0f;
  // One draw of rng for a tensor of `numel` elements whose leading (batch) dimension is
  // `lead` (0: none), so that under data parallelism an example keeps its mask.
  static DropoutMask draw(float p, Rng& rng, int64_t lead, int64_t numel);
  bool keep(uint64_t i) const { return hash64(key ^ (base + i) * 0x9e3779b97f4a7c15ULL) >= thresh; }
};

}  // namespace az
