// The random source and the batch shard (see rng.h).
#include "autograd/runtime/rng.h"

#include <cmath>
#include <string>

#include "autograd/error.h"

namespace az {

[[noreturn]] void fail(const std::string& msg);  // autograd/tensor.cpp: throws Error(msg)

// ---- random source ----------------------------------------------------------
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

namespace {
thread_local Rng* t_rng = nullptr;  // a RngScope's source on this thread
}
Rng& global_rng() {
  static Rng rng(0x5eed);
  return t_rng ? *t_rng : rng;
}
RngScope::RngScope(Rng& r) : prev_(t_rng) { t_rng = &r; }
RngScope::~RngScope() { t_rng = prev_; }

BatchShard& batch_shard() {
  static thread_local BatchShard s;
  return s;
}

uint64_t mask_counter_base(int64_t lead, int64_t numel) {
  const BatchShard& s = batch_shard();
  if (s.rows <= 0 || s.first == 0 || lead <= 0 || lead % s.rows != 0) return 0;
  return uint64_t(s.first) * uint64_t(numel / s.rows);
}

DropoutMask DropoutMask::draw(float p, Rng& rng, int64_t lead, int64_t numel) {
  DropoutMask m;
  m.key = rng.next_u64();
  m.base = lead > 0 ? mask_counter_base(lead, numel) : 0;
  m.thresh = uint64_t(double(p) * 18446744073709551615.0);
  m.scale = 1.0f / (1.0f - p);
  return m;
}

}  // namespace az
