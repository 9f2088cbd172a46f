// Incremental decoding: one attention layer fed one position at a time, for
// generation (train/generate.cpp).  A causal layer's output at position t
// depends on positions <= t only, so what it must keep of the past is:
//
//   softmax variants (full, flash): every key and value, a KV cache.  Token t
//     costs t d per head (its scores against t keys): growing with the context.
//   local (window w): the last w+1 keys and values; strided (window w, stride
//     s): the last w s + 1, of which the w + 1 at distances 0, s, .., w s are
//     read; longformer (causal: no globals), each head its own.  Memory O(w s d),
//     cost O(w d) per token at any context length.
//   linear, performer, rfa (Katharopoulos et al. 2020, "Transformers are RNNs"):
//     the recurrent state S = sum_j phi(k_j) v_j^T [m,d] and z = sum_j phi(k_j)
//     [m] per head; out_t = phi(q_t)^T S / norm(phi(q_t)^T z).  Memory and cost
//     per token O(m d), constant in the context.
//
// synthesizer (causal): its value cache; each new logit row from x_t or the learned matrix.
// gmlp (causal): the past rows of LN(Z2), which row t of W_s mixes.
// mixer (causal): the past inputs and finished hidden units; unit t completes at position t.
// A causal variant without a state (Attention::decoder() returns null, the
// default) has generation re-run the whole prefix for each token.  Each state
// reproduces its variant's full causal forward at every position
// (tests/test_lm.cpp, 1e-5).  Batch 1, evaluation mode (no dropout).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "attention/common.h"
#include "attention/kernels/kernel_util.h"

namespace az {

class DecodeState {
 public:
  virtual ~DecodeState() = default;
  // x [1,1,D], the layer's input at the next position -> its output there [1,1,D].
  virtual Tensor step(const Tensor& x) = 0;
  virtual int64_t state_bytes() const = 0;  // floats held for the past, in bytes
  virtual std::string kind() const = 0;     // "KV cache", "window of 65 keys", "recurrent state"
};

// Softmax attention over a cache of past keys and values: query t reads the
// keys t - k*stride for k = 0 .. window (window < 0: every key 0..t, stride 1),
// keeping only the last window*stride + 1 positions.  scale: 1/sqrt(d).
std::unique_ptr<DecodeState> kv_cache_state(std::shared_ptr<QKVProjection> proj, int64_t heads, int64_t window,
                                            int64_t stride);
// The same with a window and a stride per head (longformer's local and dilated heads).
std::unique_ptr<DecodeState> kv_cache_state(std::shared_ptr<QKVProjection> proj, std::vector<int64_t> windows,
                                            std::vector<int64_t> strides);

// The recurrent state of a feature-map variant: features(x [1,1,D]) gives
// {phi(q), phi(k), v} [1,H,1,m] (m features; v [1,H,1,d]); the normaliser is
// kernel_attention's (den + eps, or max(den, eps)).
using FeatureFn = std::function<QKVProjection::Heads(const Tensor& x)>;
std::unique_ptr<DecodeState> recurrent_state(std::shared_ptr<QKVProjection> proj, FeatureFn features, float eps,
                                             KernelNorm norm);

// The layer's decoding state, a.decoder(), after checking the layer is causal;
// null when the variant has none (generation then re-runs the prefix).
std::unique_ptr<DecodeState> make_decode_state(Attention& a);

}  // namespace az
