// The pieces of Reformer's attention (reformer.cpp) that its tests call on their own.
#pragma once
#include <vector>

#include "autograd/ops.h"

namespace az {

// Angular LSH: vecs [G,N,d], rotations [d, rounds * buckets/2]; bucket of row i in
// round r = argmax over [x R_r, -x R_r].  Returns [G, rounds, N] ids in [0, buckets).
IntTensor lsh_buckets(const Tensor& vecs, const Tensor& rotations, int64_t rounds, int64_t buckets);

// LRA's Reformer (--form 1, attention/reformer_lra.cpp): chunk size, padded length, chunks and
// buckets of one hash round.
struct LshGeometry {
  int64_t cs, Np, C, nb;
};
int64_t lra_buckets(int64_t buckets);                   // --buckets, 0 = 10 (LRA's n_buckets)
LshGeometry lra_geometry(int64_t N, int64_t buckets);   // LRA's: N padded by 1..nb rows, cut into nb chunks
Tensor lra_padded_input(const Tensor& x, int64_t Np);   // x [B,N,D] with Np - N zero rows after it

}  // namespace az
