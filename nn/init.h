// Seeded initialisers.  fan_in/fan_out follow the [in, out] weight layout.
#pragma once
#include "autograd/tensor.h"

namespace az {

Tensor init_normal(const Shape& s, float std, Rng& rng = global_rng());
// Glorot & Bengio 2010: U(-a, a), a = sqrt(6 / (fan_in + fan_out)).
Tensor init_xavier_uniform(int64_t fan_in, int64_t fan_out, Rng& rng = global_rng());

}  // namespace az
