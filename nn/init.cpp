// Seeded initialisers (see init.h).
#include "nn/init.h"

#include <cmath>

namespace az {

Tensor init_normal(const Shape& s, float std, Rng& rng) { return Tensor::randn(s, std, rng); }

Tensor init_xavier_uniform(int64_t fan_in, int64_t fan_out, Rng& rng) {
  float a = std::sqrt(6.0f / float(fan_in + fan_out));
  return Tensor::uniform({fan_in, fan_out}, -a, a, rng);
}

}  // namespace az
