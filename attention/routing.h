// The pieces of Routing attention (routing.cpp) that its tests call on their own.
#pragma once
#include <vector>

#include "autograd/tensor.h"

namespace az {

// One EMA step of spherical k-means.  centroids [H,C,d] (unit rows, updated in
// place), x [B,H,M,d] unit vectors, skip [B,M] (1 = ignore, may be empty).  Each
// centroid with members becomes normalize(decay * c + (1 - decay) * normalize(mean of members)).
void kmeans_ema_update(Tensor& centroids, const Tensor& x, const std::vector<uint8_t>& skip, float decay);

}  // namespace az
