// reformer_lra: LRA's Reformer, --form 1 of the `reformer` model (reformer.cpp).
//
// lra_benchmarks/models/reformer/reformer_attention.py, the code behind LRA's
// Table 1, differs from the paper's form (reformer.cpp, --form 0, the default)
// in six points.  reformer.cpp's prepare_lra() is where they are read (the
// paper's form is prepare_paper(), beside it); the two that are arithmetic of
// their own are below.
//   1. rotations: LRA draws them from PRNGKey(0) on every call, so they are the
//      same in training and evaluation; here the layer's fixed buffer (seeded,
//      saved in checkpoints) serves both, instead of fresh draws in training.
//      (LRA's key is also the same for every layer; ours differ per layer.)
//   2. self: no -5e4 self score; with shared QK a token's own score q.q is
//      usually its largest, so a token mostly attends to itself.
//   3. keys: the raw queries (length_norm=False), not unit-normalised.
//   4. scale: scores q.k x sqrt(d), not / sqrt(d).
//   5. chunks: the input is padded with N % nb == 0 ? nb : nb - N % nb zero
//      rows (LRA's chunk_len 10 with its n_buckets 10), which project to the
//      biases; each round's sorted rows are cut into nb chunks of (padded N)/nb
//      rows, each attending to itself and the previous chunk (wrapping).  nb =
//      --buckets, 0 = 10 (LRA's n_buckets); --bucket-size is not used.  With
//      several rounds LRA sorts all rounds as one sequence cut into rounds*nb
//      chunks, so a round's first chunk looks back into the previous round's
//      last; here each round wraps onto itself (the same when --hashes 1).
//   6. padding: no mask; padded tokens and the added rows are hashed, sorted
//      and attended like any token, so an example's output depends on how far
//      its batch is padded (LRA pads every example to 2000).
// What stays: shared QK, angular LSH (argmax over [xR, -xR]), the stable sort
// by (bucket, position), rounds combined by softmax_r(logsumexp_r), no
// gradient through the hashing.  LRA ran n_hashes 1: pass --hashes 1 for its
// setting (the knob's default, 4, is the paper's).  docs/reformer/ablation.md
// measures each point on ListOps.
#include "attention/reformer.h"

namespace az {

int64_t lra_buckets(int64_t buckets) { return buckets > 0 ? buckets : 10; }

// Point 5: pad by 1..nb rows (N % nb == 0 still adds nb, as LRA's chunk_len does), then nb chunks per round.
LshGeometry lra_geometry(int64_t N, int64_t buckets) {
  LshGeometry g;
  g.nb = lra_buckets(buckets), g.C = g.nb, g.Np = N + g.nb - N % g.nb, g.cs = g.Np / g.C;
  return g;
}

// Point 5 and 6: the added rows are zero inputs, so they project to the biases and are attended like any token.
Tensor lra_padded_input(const Tensor& x, int64_t Np) {
  int64_t B = x.size(0), N = x.size(1), D = x.size(2);
  return Np > N ? concat({x, Tensor::zeros({B, Np - N, D})}, 1) : x;
}

}  // namespace az
