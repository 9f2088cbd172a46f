// MQAR generator (see mqar.h).
#include "data/recall/mqar.h"

#include <algorithm>
#include <cmath>

#include "autograd/tensor.h"

namespace az {
namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
// Uniform in [0, n) without modulo bias.
int64_t below(uint64_t& s, int64_t n) {
  const uint64_t un = uint64_t(n), limit = UINT64_MAX - UINT64_MAX % un;
  uint64_t x;
  do x = splitmix64(s); while (x >= limit);
  return int64_t(x % un);
}
double uniform01(uint64_t& s) { return double(splitmix64(s) >> 11) * 0x1.0p-53; }

// k distinct ids from [lo, hi), in draw order (a partial Fisher-Yates shuffle over a sparse map
// would be faster for huge ranges; k is small, so rejection of repeats is enough).
std::vector<int32_t> distinct(uint64_t& s, int32_t lo, int32_t hi, int64_t k) {
  std::vector<int32_t> out;
  while (int64_t(out.size()) < k) {
    int32_t x = lo + int32_t(below(s, hi - lo));
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  }
  return out;
}

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

int32_t mqar_first_value(int64_t vocab) { return int32_t(kMqarFirstKey + (vocab - 1) / 2); }

std::vector<double> mqar_gap_probabilities(int64_t slots, double power_a) {
  std::vector<double> p(size_t(std::max<int64_t>(slots, 0)));
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) sum += p[i] = std::pow(double(i + 1), power_a - 1);
  for (double& x : p) x /= sum;
  return p;
}

void check_mqar(const MqarConfig& c) {
  if (c.pairs < 1) fail("--pairs must be at least 1, got " + str(c.pairs));
  if (c.seq_len < 4 * c.pairs)
    fail("--pairs " + str(c.pairs) + " do not fit in --seq-len " + str(c.seq_len) + ": " + str(c.pairs) +
         " pairs and their queries need at least " + str(4 * c.pairs) + " tokens");
  if (c.vocab < 2 * c.pairs + 2)
    fail("--vocab " + str(c.vocab) + " is too small for --pairs " + str(c.pairs) + ": distinct keys and values and a filler need at least " +
         str(2 * c.pairs + 2) + " ids (id 0 is padding)");
  if (c.vocab > (int64_t(1) << 24)) fail("--vocab " + str(c.vocab) + " is too large (at most 2^24)");
  if (!(c.power_a > 0 && c.power_a <= 1)) fail("--power-a must be in (0, 1], got " + std::to_string(c.power_a));
}

MqarExample mqar_example(const MqarConfig& c, int stream, int64_t index) {
  uint64_t s = c.seed * 0x100000001B3ULL ^ (uint64_t(stream) << 56) ^ uint64_t(index) * 0x9E3779B97F4A7C15ULL;
  splitmix64(s);
  const int64_t T = c.seq_len, N = c.pairs, slots = (T - 2 * N) / 2;
  const int32_t first_value = mqar_first_value(c.vocab), V = int32_t(c.vocab);
  std::vector<int32_t> keys = distinct(s, kMqarFirstKey, first_value, N);
  std::vector<int32_t> values = distinct(s, first_value, V, N);
  MqarExample e;
  e.tokens.assign(size_t(T), 0);
  e.targets.assign(size_t(T), kIgnoreTarget);
  for (int64_t i = 0; i < N; ++i) e.tokens[size_t(2 * i)] = keys[size_t(i)], e.tokens[size_t(2 * i + 1)] = values[size_t(i)];
  // Query slots: N draws without replacement, each from the remaining slots' power-law weights.
  std::vector<double> w = mqar_gap_probabilities(slots, c.power_a);
  for (int64_t i = 0; i < N; ++i) {
    double total = 0;
    for (double x : w) total += x;
    double u = uniform01(s) * total;
    int64_t pick = -1;
    for (int64_t j = 0; j < slots; ++j) {
      if (w[size_t(j)] == 0) continue;
      pick = j;  // the last open slot, should rounding carry u past the end
      if ((u -= w[size_t(j)]) < 0) break;
    }
    w[size_t(pick)] = 0;
    size_t at = size_t(2 * N + 2 * pick);
    e.tokens[at] = keys[size_t(i)];
    e.targets[at] = values[size_t(i)];
  }
  // Filler: any key or value id that is not one of this example's.
  const int64_t others = int64_t(V) - 1 - 2 * N;
  std::vector<int32_t> used(keys);
  used.insert(used.end(), values.begin(), values.end());
  std::sort(used.begin(), used.end());
  for (size_t p = size_t(2 * N); p < size_t(T); ++p) {
    if (e.targets[p] != kIgnoreTarget) continue;
    int32_t x = int32_t(1 + below(s, others));  // the x-th unused id: step over the used ones below it
    for (int32_t u : used)
      if (u <= x) ++x;
    e.tokens[p] = x;
  }
  return e;
}

Dataset mqar_dataset(const MqarConfig& c, int stream, int64_t n) {
  check_mqar(c);
  Dataset d;
  d.vocab_size = int(c.vocab), d.num_classes = int(c.vocab);
  d.seqs.reserve(size_t(n)), d.targets.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    MqarExample e = mqar_example(c, stream, i);
    d.seqs.push_back(std::move(e.tokens));
    d.targets.push_back(std::move(e.targets));
    d.labels.push_back(0);
  }
  return d;
}

Splits mqar_splits(const MqarConfig& c) {
  Splits s;
  s.train = mqar_dataset(c, 0, c.n_train);
  s.val = mqar_dataset(c, 1, c.n_val);
  s.test = mqar_dataset(c, 2, c.n_test);
  return s;
}

}  // namespace az
