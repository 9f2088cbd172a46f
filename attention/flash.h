// The tiled exact attention op behind the `flash` variant (see flash.cpp).
#pragma once
#include "autograd/tensor.h"

namespace az {

// q, k, v [B,H,N,d]; key_pad [B,N] (1 = padding) or undefined -> [B,H,N,d].
// Equals softmax(q k^T * scale | masks) v without storing the N x N matrix.
// Attention dropout (training, p > 0): one draw of rng, the mask dropout() would put on
// the [B,H,N,N] weights of full attention for the same draw.
Tensor flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& key_pad, bool causal,
                       float scale, int64_t block_q = 64, int64_t block_k = 256, float dropout_p = 0.0f,
                       bool training = false, Rng& rng = global_rng());

}  // namespace az
