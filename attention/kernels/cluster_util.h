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
// (Each variant's own pieces, LSH buckets, k-means, Sinkhorn, are declared in
// its own header: attention/reformer.h, routing.h, sinkhorn.h.)
#pragma once
#include <vector>

#include "attention/common.h"

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

// Routing's selection (attention/routing.cpp), the fast form.  For group g (example g / H, head
// g % H) and centroid c: the w rows of x [G,N,d] most similar to row c of mu [H,C,d] -- padded
// rows (pad [G/H,N], 1 = padded) rank last, ties go to the lower position -- in position order:
// rows [G,C,w].  One [C,N] sgemm per group, then a partial selection per centroid (no gradient);
// adds its 2 G C N d to the FLOP count (count_matmul_flops).
IntTensor top_members(const Tensor& mu, const Tensor& x, const std::vector<uint8_t>& pad, int64_t w);

}  // namespace az
