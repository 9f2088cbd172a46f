// The tiled exact attention op behind the `flash` variant (see flash.cpp).
#pragma once
#include "autograd/tensor.h"

namespace az {

// q, k, v [B,H,N,d]; key_pad [B,N] (1 = padding) or undefined -> [B,H,N,d].
// Equals softmax(q k^T * scale | masks) v without storing the N x N matrix.
// Attention dropout (training, p > 0): one draw of rng, the mask dropout() would put on
// the [B,H,N,N] weights of full attention for the same draw.
// block_k 0 takes flash_block_k(d).
Tensor flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& key_pad, bool causal,
                       float scale, int64_t block_q = 64, int64_t block_k = 0, float dropout_p = 0.0f,
                       bool training = false, Rng& rng = global_rng());

// Key rows per tile for head dimension d: the largest power of two whose K tile
// (Bc x d floats) fits in 32 KB, the L1 data cache of the CPUs measured, within
// 64..256.  Past it the tile products slow by a fifth to a quarter (make bench-core):
// d 16 and 32 -> 256, d 64 -> 128, d 128 and up -> 64.
int64_t flash_block_k(int64_t d);

}  // namespace az
