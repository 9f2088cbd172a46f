// The pieces of Sinkhorn attention (sinkhorn.cpp) that its tests call on their own.
#pragma once
#include <vector>

#include "autograd/tensor.h"

namespace az {

// Log-space Sinkhorn: iters rounds of row then column normalisation by
// log-sum-exp of log_alpha [B,H,n,n]; returns log P (columns sum to 1 exactly,
// rows approach 1).  out_mask [B,1,n,n] (nonzero = excluded, may be undefined)
// removes the rows and columns of blocks that are all padding.
Tensor log_sinkhorn(const Tensor& log_alpha, int64_t iters, const Tensor& out_mask = Tensor());

// The attention once P [B,H,n,n] is known.  q, k, v [B,H,n*block,d] (padded
// to whole blocks), key_pad [B,n*block] (1 = padding, may be undefined).  Query
// block i attends to [its sorted block sum_j P_ij K_j || its own block]; with
// sortcut > 0, to [the first `sortcut` sorted blocks || its own block].
// Returns [B,H,n*block,d].
Tensor sorted_block_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& P,
                              const Tensor& key_pad, int64_t block, int64_t sortcut, float scale, float dropout_p,
                              bool training, std::vector<float>* weights = nullptr);

// The Gumbel(0,1) noise a training forward adds to the block scores R [B,H,n,n]: one draw of
// global_rng() is its key, and an element's u comes from a hash of its index counted over the whole
// batch (rng.h's BatchShard), as dropout's mask does.
Tensor sinkhorn_gumbel(const Shape& s);

}  // namespace az
