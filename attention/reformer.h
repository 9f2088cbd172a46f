// The pieces of Reformer's attention (reformer.cpp) that its tests call on their own.
#pragma once
#include <vector>

#include "autograd/ops.h"

namespace az {

// Angular LSH: vecs [G,N,d], rotations [d, rounds * buckets/2]; bucket of row i in
// round r = argmax over [x R_r, -x R_r].  Returns [G, rounds, N] ids in [0, buckets).
IntTensor lsh_buckets(const Tensor& vecs, const Tensor& rotations, int64_t rounds, int64_t buckets);

}  // namespace az
