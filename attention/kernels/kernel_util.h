// Shared pieces of the low-rank / kernel family: the kernelised attention
// product and feature maps (linear, rfa, performer, efficient), a fused
// softmax attention that keeps no N x M matrix (linformer, compressed,
// synthesizer), and small helpers.
//
// Kernelised attention replaces exp(q.k) by a feature-map inner product
// phi(q).phi(k).  The N x N matrix A_ij = phi(q_i).phi(k_j) is never formed:
//
//   out_i = sum_j A_ij v_j / (sum_j A_ij + eps) = phi(q_i)^T S / (phi(q_i)^T z + eps),
//   S = sum_j phi(k_j) v_j^T  [m,d],   z = sum_j phi(k_j)  [m],
//
// which costs N m d instead of N^2 (m + d).  Causal: S and z become prefix sums
// over j <= i (Katharopoulos et al. 2020; idiap/fast-transformers causal_product).
#pragma once
#include "attention/attention.h"
#include "attention/common.h"

namespace az {

// KernelNorm (how the row normaliser is protected) and key_keep are in attention/common.h.

// phi_q, phi_k [..,N,m], v [..,N,d] (equal leading dims) -> [..,N,d], the
// formula above, fused with a hand-written backward.  Causal uses chunks of
// `chunk` rows: inside a chunk a small masked (chunk x chunk) product, across
// chunks the running S (all sgemm).  Padded keys must have phi_k = 0.
Tensor kernel_attention(const Tensor& phi_q, const Tensor& phi_k, const Tensor& v, bool causal, float eps = 1e-6f,
                        KernelNorm norm = KernelNorm::add_eps, int64_t chunk = 64);

// The implied weights A_ij / den_i as an explicit [..,N,N] tensor (no graph):
// for attention_weights() and pictures only, never in a forward pass.
Tensor kernel_weights(const Tensor& phi_q, const Tensor& phi_k, bool causal, float eps = 1e-6f,
                      KernelNorm norm = KernelNorm::add_eps);

// softmax(q k^T * scale, excluding keys with key_pad = 1) v, fused so that the
// [N,M] matrix is never stored: the forward keeps each row's log-sum-exp, the
// backward recomputes the scores in row chunks (flash attention's trade: one
// more product, N x M less memory).  q [B,H,N,d], k [B,H,M,d], v [B,H,M,dv],
// key_pad [B,M] or undefined; causal (M = N): query i sees keys j <= i.
// Dropout on the weights as dropout() draws it.  Used by linformer and
// compressed (M = k or N/c keys) and synthesizer (M = N, the logits a product).
Tensor softmax_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& key_pad, float scale,
                         float dropout_p = 0.0f, bool training = false, bool causal = false,
                         Rng& rng = global_rng());

// FAVOR+ positive features (Choromanski et al. 2021), fused:
//   phi(x) = m^-1/2 exp(u - s^2 |x|^2 / 2 - c),   u = (s x) W^T  [..,m]
// given u [B,H,N,m] and x [B,H,N,d] (s = d^-1/4 makes phi(q).phi(k) estimate
// exp(q.k / sqrt(d))).  c is the stabiliser, the largest exponent: per row for
// queries (so each row's largest feature is m^-1/2), over all non-padded keys
// of an example and head for keys (the largest key feature is m^-1/2).  A
// constant factor on all keys or on one query row, it cancels exactly in
// out_i, so the output is FAVOR+'s; no epsilon is added (exp > 0 already).
// stabilise = false: c = `shift`, a constant.  The backward is the exact
// gradient, c's term included.  Rows with key_pad = 1 are zero (keys only;
// key_pad [B,N] or undefined).
Tensor favor_features(const Tensor& u, const Tensor& x, float s, bool is_query, const Tensor& key_pad,
                      bool stabilise = true, float shift = 0.0f);

// Random Fourier features (Rahimi & Recht 2007; RFA, Peng et al. 2021):
// u [B,H,N,m] -> m^-1/2 [sin u, cos u]  [B,H,N,2m]; E[phi(x).phi(y)] =
// exp(-|x - y|^2 / 2) for u = W x with W ~ N(0, I).  Rows with key_pad = 1 are zero.
Tensor sincos_features(const Tensor& u, const Tensor& key_pad);

// elu(x) + 1 (the Linear Transformer's feature map), fused; rows with
// key_pad = 1 are zero (x [B,H,N,d], key_pad [B,N] or undefined).
Tensor elu1_features(const Tensor& x, const Tensor& key_pad);

// Softmax over the positions (axis -2) of x [B,H,N,d], padded positions
// excluded (weight 0): Efficient Attention's rho_k, without a transpose.
Tensor softmax_positions(const Tensor& x, const Tensor& key_pad);

// x / sqrt(|x|^2 + eps^2) over the last axis, fused.
Tensor l2_normalize(const Tensor& x, float eps = 1e-3f);

// m x d projection with orthogonal rows inside each block of d rows (QR of a
// Gaussian block) and row norms drawn from chi(d), as FAVOR+ draws it.
Tensor orthogonal_gaussian(int64_t m, int64_t d, Rng& rng);  // defined on the model's page, attention/performer.cpp


// Counts training forward calls in `counter` (a 1-element buffer, so a resumed
// run keeps the schedule) and says when random features are due for a redraw:
// every `interval` training calls; never in evaluation, never when interval = 0.
// Inside a training step's shards (train/parallel.h) it says no and counts nothing:
// there the variant's before_step() keeps the schedule, one call per step.
bool redraw_due(const Tensor& counter, int64_t interval, bool training);

// The wiring shared by the feature-map variants (linear, performer, rfa): each
// gives only phi, as feature_map(x, key_pad) -> {phi(q), phi(k), v} with phi(k)
// zero at padded keys; this class projects, calls kernel_attention and maps
// the result back, and draws the implied weights with the same phi.
class FeatureMapAttention : public Attention {
 public:
  // legend: what phi(q).phi(k) computes, for pattern(); eps, norm: kernel_attention's.
  FeatureMapAttention(const AttentionConfig& c, std::string legend, float eps, KernelNorm norm = KernelNorm::add_eps);
  Tensor forward(const Tensor& x, const Tensor& key_pad) override;
  Pattern pattern(const Tensor& x, const Tensor& key_pad) override;
  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override;

 protected:
  virtual QKVProjection::Heads feature_map(const Tensor& x, const Tensor& key_pad) = 0;
  std::shared_ptr<QKVProjection> proj_;

 private:
  std::string legend_;
  float eps_;
  KernelNorm norm_;
};

}  // namespace az
