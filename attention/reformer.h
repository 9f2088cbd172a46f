// The pieces of Reformer's attention (reformer.cpp) that its tests call on their own.
#pragma once
#include <vector>

#include "autograd/ops.h"

namespace az {

// Angular LSH: vecs [G,N,d], rotations [d, rounds * buckets/2]; bucket of row i in
// round r = argmax over [x R_r, -x R_r].  Returns [G, rounds, N] ids in [0, buckets).
IntTensor lsh_buckets(const Tensor& vecs, const Tensor& rotations, int64_t rounds, int64_t buckets);

// LRA's Reformer (--form 1): attention/reformer_lra.cpp says what each setting is and why.
struct ReformerForm {
  bool fixed_rotations = false;  // the buffer's rotations in training too
  bool self_allowed = false;     // no -5e4 self score
  bool raw_keys = false;         // keys are the queries, not unit-normalised
  bool scale_up = false;         // scores x sqrt(d) instead of / sqrt(d)
  bool lra_chunks = false;       // --buckets chunks of the input padded by 1..buckets rows
  bool no_mask = false;          // padding is attended and hashed like any token
};
ReformerForm reformer_form(int64_t form);  // 0: the paper's (every setting off); 1: LRA's (every one on)

// Chunk size, padded length, chunks and buckets of one hash round.
struct LshGeometry {
  int64_t cs, Np, C, nb;
};
int64_t lra_buckets(int64_t buckets);                   // --buckets, 0 = 10 (LRA's n_buckets)
LshGeometry lra_geometry(int64_t N, int64_t buckets);   // LRA's: N padded by 1..nb rows, cut into nb chunks
Tensor lra_padded_input(const Tensor& x, int64_t Np);   // x [B,N,D] with Np - N zero rows after it
int64_t round_up(int64_t n, int64_t m);

}  // namespace az
