// Shared machinery of the learned / clustered attentions (reformer, routing,
// sinkhorn): attention inside small groups of gathered rows, as one fused op.
//
// All three variants end the same way: the data decides which query rows and
// which key rows meet (a hash bucket, a k-means cluster, a block and its sorted
// partner), and each such group -- a "chunk" -- runs ordinary softmax
// attention among its rows.  chunk_attention does that for every chunk at once
// without materialising the gathered rows or the scores: per chunk it copies
// the few rows it needs into a scratch buffer, runs two small sgemms, and adds
// the result straight into the query rows.  Backward recomputes the scores from
// the saved log-sum-exp (as FlashAttention does), so memory stays O(N) per head.
//
// The second half declares the pieces of each variant that the tests check
// directly; each is defined in its variant's file.
#pragma once
#include <vector>

#include "attention/kernels/common.h"

namespace az {

// Which rows meet.  G groups (batch x heads) of C chunks each.
struct Chunks {
  IntTensor q_rows;            // [G,C,cq]: query rows (of q) in each chunk
  IntTensor k_rows;            // [G,C,ck]: key rows (of k and v) each chunk attends to
  std::vector<uint8_t> k_out;  // [G,Nk] or empty: 1 = this key row is never attended (padding)
  // Reformer's rule: query row r scores -5e4 against key row r, so a token
  // attends to itself only when nothing else is available (no gradient there).
  bool self_last_resort = false;
};

struct ChunkResult {
  Tensor out;  // [G,Nq,dv]: per query row, the sum over the chunks holding it of softmax(q k^T s) v
  Tensor lse;  // [G,C,cq]: log-sum-exp of each slot's scores (-inf when nothing to attend); differentiable
};

// q [G,Nq,d], k [G,Nk,d], v [G,Nk,dv].  Rows of out that no chunk holds are 0.
// Attention dropout p (training only) drops weights after the softmax.
// weights (optional, for pictures) receives the softmax weights [G,C,cq,ck].
ChunkResult chunk_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Chunks& chunks, float scale,
                            float dropout_p = 0.0f, bool training = false, std::vector<float>* weights = nullptr);

// x [..,d] -> x / sqrt(|x|^2 + eps) along the last axis (fused, differentiable).
Tensor unit_normalize(const Tensor& x, float eps = 1e-12f);

// Pads axis 2 of x [B,H,N,d] with zero rows up to n (a copy when n > N).
Tensor pad_positions(const Tensor& x, int64_t n);

// ---- Reformer (reformer.cpp) --------------------------------------------------------------
// Angular LSH: vecs [G,N,d], rotations [d, rounds * buckets/2]; bucket of row i in
// round r = argmax over [x R_r, -x R_r].  Returns [G, rounds, N] ids in [0, buckets).
IntTensor lsh_buckets(const Tensor& vecs, const Tensor& rotations, int64_t rounds, int64_t buckets);

// ---- Routing (routing.cpp) ------------------------------------------------------------------
// One EMA step of spherical k-means.  centroids [H,C,d] (unit rows, updated in
// place), x [B,H,M,d] unit vectors, skip [B,M] (1 = ignore, may be empty).  Each
// centroid with members becomes normalize(decay * c + (1 - decay) * normalize(mean of members)).
void kmeans_ema_update(Tensor& centroids, const Tensor& x, const std::vector<uint8_t>& skip, float decay);

// ---- Sinkhorn (sinkhorn.cpp) ----------------------------------------------------------------
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

}  // namespace az
