// reformer: LSH attention (Kitaev, Kaiser & Levskaya, "Reformer: The Efficient
// Transformer", ICLR 2020; conventions of lucidrains/reformer-pytorch LSHAttention).
//
// Which entries: queries and keys are the same vectors (shared QK projection;
// keys are the L2-normalised queries), so "q_i is close to k_j" is symmetric
// and can be found by hashing.  Angular LSH: a random Gaussian matrix R
// (d x buckets/2) and bucket(x) = argmax[xR, -xR]; nearby directions tend to
// share a bucket.  The N tokens are sorted by (bucket, position) and cut into
// chunks of c = bucket_size; each chunk attends to itself and the previous
// chunk (wrapping around), so a bucket split by a chunk border still meets.  A
// token attends to itself only when nothing else is available (its own score
// is -5e4: with shared QK it would otherwise always win).  Several hash rounds
// run independently; their outputs are combined with weights
// softmax_r(logsumexp of round r's scores), i.e. as if the rounds' entries
// were one softmax (a key found in two rounds counts twice, as in lucidrains'
// default allow_duplicate_attention).  Results are un-sorted back to positions.
//
// Cost per head: hashing N*d*buckets/2 per round, a counting sort O(N), and
// attention N*2c*d per round: N log N + N c (buckets grow with N/c).
// Hashing gets no gradient.  Rotations are drawn from the seeded source afresh
// on every training forward and are a fixed buffer (saved in checkpoints) in
// evaluation.  Padded keys are excluded and padded tokens are hashed to an
// extra last bucket, so they sort to the end and do not crowd real chunks.
//
// --form 1 is LRA's Reformer, six departures from the paper's form above: what
// they are, why, and the two pieces of it that are its own (the chunk geometry,
// the padded input) are in attention/reformer_lra.cpp.
//
// forward() runs the chunk kernel (kernels/cluster_util.h); reference() writes
// the algorithm above in composed ops (gather, attend, scatter back).
//
// Why this page is over 250 lines: the LSH bucketing (random rotations,
// argmax over [xR, -xR]) and the sort-chunk-unsort bookkeeping are the
// algorithm, shared by both forms, and several hash rounds are combined by
// log-sum-exp in both; only the chunked attention is in kernels/.
#include <cmath>

#include "attention/reformer.h"
#include "attention/kernels/cluster_util.h"

namespace az {

IntTensor lsh_buckets(const Tensor& vecs, const Tensor& rotations, int64_t rounds, int64_t buckets) {
  if (vecs.dim() != 3 || rotations.dim() != 2 || buckets < 2 || buckets % 2 ||
      rotations.size(0) != vecs.size(2) || rotations.size(1) != rounds * buckets / 2)
    fail("lsh_buckets: vecs " + shape_str(vecs.shape()) + " and rotations " + shape_str(rotations.shape()) +
         " must be [G,N,d] and [d, rounds*buckets/2] with even buckets (rounds " + std::to_string(rounds) +
         ", buckets " + std::to_string(buckets) + ")");
  NoGradGuard ng;
  Tensor rot = matmul(vecs.detach(), rotations.detach());  // [G,N,rounds*half]
  int64_t G = vecs.size(0), N = vecs.size(1), half = buckets / 2;
  IntTensor ids({G, rounds, N}, std::vector<int32_t>(size_t(G * rounds * N)));
  const float* pr = rot.data();
#pragma omp parallel for if (G * N * rounds * half > (1 << 15))
  for (int64_t g = 0; g < G; ++g)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t r = 0; r < rounds; ++r) {
        const float* x = pr + (g * N + n) * rounds * half + r * half;
        int64_t amax = 0, amin = 0;
        for (int64_t i = 1; i < half; ++i) {
          if (x[i] > x[amax]) amax = i;
          if (x[i] < x[amin]) amin = i;
        }
        // argmax over [x, -x], first occurrence on ties
        ids.data[size_t((g * rounds + r) * N + n)] = int32_t(x[amax] >= -x[amin] ? amax : half + amin);
      }
  return ids;
}

namespace {

class ReformerAttention : public Attention {
 public:
  explicit ReformerAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads, /*shared_qk=*/true));
    chunk_ = knob_int("bucket_size");
    hashes_ = knob_int("hashes");
    buckets_ = knob_int("buckets");
    if (buckets_ % 2) fail("--buckets " + std::to_string(buckets_) + " must be even (0 = sequence length / bucket size)");
    f_ = reformer_form(knob_int("form"));
    max_buckets_ = f_.lra_chunks ? lra_buckets(buckets_) : buckets_for(round_up(c.max_len, chunk_), chunk_);
    rotations_ = register_buffer("rotations", Tensor::randn({c.head_dim(), hashes_ * max_buckets_ / 2}));
  }

  // The reference form: hash, sort by bucket, cut into chunks, attend within the chunk and the previous
  // one, unsort, combine the rounds.  (prepare() holds the settings --form 1 changes.)
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    Prepared p = prepare(x, key_pad);  // q = k, v [G,Np,d], keys, buckets [G,R,Np], padded keys
    int64_t G = p.G, Np = p.Np, C = p.C, cs = p.cs, d = p.d;
    auto chunked = [&](const Tensor& t, const IntTensor& order) {  // rows in sorted order, [G,C,cs,d]
      return reshape(gather_rows(t, order), {G, C, cs, d});
    };
    auto with_previous = [&](const Tensor& t) {  // [G,C,cs,..] -> [G,C,2cs,..]: chunk c, then chunk c-1 (wrapping)
      return C == 1 ? t : concat({t, concat({narrow(t, 1, C - 1, 1), narrow(t, 1, 0, C - 1)}, 1)}, 2);
    };
    std::vector<Tensor> outs, lses;
    for (int64_t r = 0; r < hashes_; ++r) {
      IntTensor order({G, Np}, std::vector<int32_t>(size_t(G * Np)));  // sorted by (bucket, position)
      for (int64_t g = 0; g < G; ++g) bucket_order(p, g, r, order.data.data() + g * Np);
      Tensor q = chunked(p.qk, order), k = with_previous(chunked(p.k, order)), v = with_previous(chunked(p.v, order));
      Tensor s = matmul(q, k, /*trans_a=*/false, /*trans_b=*/true) * p.scale;                  // [G,C,cs,ck] scores within the chunks
      // Which (query, key) pairs are a token and itself, and which keys are padding (from the positions).
      Tensor pos = Tensor::empty({G, C, cs, 1});
      for (int64_t i = 0; i < G * Np; ++i) pos.data()[i] = float(order.data[size_t(i)]);
      Tensor kpos = with_previous(pos), self = Tensor::empty(s.shape()), padded = Tensor::empty({G, C, 1, p.ck});
      for (int64_t i = 0; i < s.numel(); ++i)
        self.data()[i] = pos.data()[i / p.ck] == kpos.data()[(i / (cs * p.ck)) * p.ck + i % p.ck];
      for (int64_t i = 0; i < padded.numel(); ++i)
        padded.data()[i] = p.out[size_t((i / (C * p.ck)) * Np + int64_t(kpos.data()[i]))];
      if (!f_.self_allowed) s = masked_fill(s, self, -5e4f);          // itself only when nothing else is there
      s = masked_fill(s, padded, -1e30f);                              // padded keys: never
      Tensor mx = max(s, 3, /*keepdim=*/true).detach();
      Tensor lse = mx + log(sum(exp(s - mx), 3, /*keepdim=*/true));               // [G,C,cs,1] log-sum-exp of each row
      Tensor o = matmul(dropout(exp(s - lse), cfg_.dropout, is_training()), v);  // softmax, then values
      Tensor zeros = Tensor::zeros({G, Np, d});                       // unsort: back to position order
      outs.push_back(scatter_add_rows(zeros, order, reshape(o, {G, Np, d})));
      lses.push_back(scatter_add_rows(Tensor::zeros({G, Np, 1}), order, reshape(lse, {G, Np, 1})));
    }
    Tensor w = softmax(concat(lses, 2));                               // [G,Np,R]: round r's weight, by its lse
    Tensor o = outs[0] * narrow(w, 2, 0, 1);
    for (int64_t r = 1; r < hashes_; ++r) o = o + outs[size_t(r)] * narrow(w, 2, r, 1);
    return proj_->output(narrow(reshape(o, {p.B, p.H, Np, d}), 2, 0, p.N));
  }

  Tensor forward(const Tensor& x, const Tensor& key_pad) override { return run(x, key_pad, nullptr); }

  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    Trace tr;
    run(x, key_pad, &tr);
    Pattern p;
    p.n = x.size(1);
    p.cell.assign(size_t(p.n * p.n), 0);
    p.legend = {"own chunk", "previous chunk"};
    for (auto& ch : tr.chunks) {  // head 0 of example 0
      int64_t C = ch.q_rows.shape[1], cq = ch.q_rows.shape[2], ck = ch.k_rows.shape[2];
      for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < cq; ++i)
          for (int64_t j = 0; j < ck; ++j) {
            int64_t qi = ch.q_rows.data[size_t(c * cq + i)], kj = ch.k_rows.data[size_t(c * ck + j)];
            if (qi < p.n && kj < p.n && !p.cell[size_t(qi * p.n + kj)]) p.cell[size_t(qi * p.n + kj)] = j < cq ? 1 : 2;
          }
    }
    return p;
  }

  // sum_r w_r(i) P_r(i, j) for example 0: the weights the forward pass applies.
  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    Trace tr;
    run(narrow(x, 0, 0, 1), key_pad.defined() ? narrow(key_pad, 0, 0, 1) : key_pad, &tr);
    int64_t H = cfg_.heads, N = x.size(1), R = int64_t(tr.chunks.size());
    Tensor w = Tensor::zeros({H, N, N});
    for (int64_t r = 0; r < R; ++r) {
      const Chunks& ch = tr.chunks[size_t(r)];
      int64_t C = ch.q_rows.shape[1], cq = ch.q_rows.shape[2], ck = ch.k_rows.shape[2], Np = C * cq;
      for (int64_t h = 0; h < H; ++h)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t i = 0; i < cq; ++i) {
            int64_t qi = ch.q_rows.data[size_t((h * C + c) * cq + i)];
            if (qi >= N) continue;
            float wr = R > 1 ? tr.round_w.data()[(h * Np + qi) * R + r] : 1.0f;
            for (int64_t j = 0; j < ck; ++j) {
              int64_t kj = ch.k_rows.data[size_t((h * C + c) * ck + j)];
              if (kj < N) w.data()[(h * N + qi) * N + kj] += wr * tr.weights[size_t(r)][size_t(((h * C + c) * cq + i) * ck + j)];
            }
          }
    }
    return w;
  }

 private:
  struct Trace {
    std::vector<Chunks> chunks;                // per round
    std::vector<std::vector<float>> weights;   // per round [G,C,cq,ck]
    Tensor round_w;                            // [G,Np,R]
  };

  int64_t buckets_for(int64_t padded_len, int64_t chunk) const {
    if (buckets_ > 0) return buckets_;
    int64_t nb = padded_len / chunk;
    return std::max<int64_t>(2, nb + nb % 2);
  }

  // This forward's rotations [d, hashes * nb/2]: fresh in training, the buffer's first nb/2 columns per round in eval.
  Tensor rotations(int64_t nb) const {
    int64_t d = cfg_.head_dim(), half = nb / 2, mhalf = max_buckets_ / 2;
    if (is_training() && !f_.fixed_rotations) return Tensor::randn({d, hashes_ * half}, 1.0f, global_rng());
    Tensor r = Tensor::empty({d, hashes_ * half});
    for (int64_t i = 0; i < d; ++i)
      for (int64_t h = 0; h < hashes_; ++h)
        for (int64_t j = 0; j < half; ++j)
          r.data()[(i * hashes_ + h) * half + j] = rotations_.data()[(i * hashes_ + h) * mhalf + j];
    return r;
  }

  // What both forms start from: the chunk geometry, shared q = k and v [G,Np,d] padded to Np
  // positions, the keys (unit-length or raw), which key rows are never attended, and the buckets.
  struct Prepared {
    int64_t B, N, H, d, G, cs, Np, C, nb, ck;  // chunk size, padded length, chunks, buckets, keys per chunk
    Tensor qk, k, v;                            // [G,Np,d]
    std::vector<uint8_t> out;                   // [G,Np]: padded keys (and the rows added to reach Np)
    IntTensor ids;                              // [G,R,Np] bucket of each row in each round
    float scale;
  };

  Prepared prepare(const Tensor& x, const Tensor& key_pad) const {
    if (x.dim() != 3 || x.size(2) != cfg_.dim)
      fail("reformer: input " + shape_str(x.shape()) + " must be [B,N," + std::to_string(cfg_.dim) + "]");
    Prepared p;
    p.B = x.size(0), p.N = x.size(1), p.H = cfg_.heads, p.d = cfg_.head_dim(), p.G = p.B * p.H;
    int64_t B = p.B, N = p.N, G = p.G, d = p.d;
    if (N > cfg_.max_len)
      fail("reformer: sequence length " + std::to_string(N) + " exceeds --seq-len " + std::to_string(cfg_.max_len));
    if (key_pad.defined() && key_pad.shape() != Shape{B, N})
      fail("reformer: key padding mask " + shape_str(key_pad.shape()) + " must be [" + std::to_string(B) + "," +
           std::to_string(N) + "]");
    if (f_.lra_chunks) {  // LRA: --buckets chunks of the input padded by 1..nb rows (reformer_lra.cpp)
      LshGeometry gm = lra_geometry(N, buckets_);
      p.nb = gm.nb, p.C = gm.C, p.Np = gm.Np, p.cs = gm.cs;
    } else {
      p.cs = std::min(chunk_, N);  // chunk size: a sequence shorter than a chunk is one chunk, not padded
      p.Np = round_up(N, p.cs), p.C = p.Np / p.cs, p.nb = buckets_for(p.Np, p.cs);
    }
    p.ck = p.C > 1 ? 2 * p.cs : p.cs;
    if (f_.no_mask) {  // LRA pads the input with zero rows, so added rows project to the biases
      auto h = proj_->project(lra_padded_input(x, p.Np));
      p.qk = reshape(h.q, {G, p.Np, d}), p.v = reshape(h.v, {G, p.Np, d});
    } else {
      auto h = proj_->project(x);  // q = k, v [B,H,N,d]
      p.qk = reshape(pad_positions(h.q, p.Np), {G, p.Np, d});
      p.v = reshape(pad_positions(h.v, p.Np), {G, p.Np, d});
    }
    p.k = f_.raw_keys ? p.qk : unit_normalize(p.qk);  // keys: unit-length queries (paper) or the queries (LRA)
    p.out.assign(size_t(G * p.Np), 0);
    if (!f_.no_mask)
      for (int64_t g = 0; g < G; ++g)
        for (int64_t n = 0; n < p.Np; ++n)
          p.out[size_t(g * p.Np + n)] = n >= N || (key_pad.defined() && key_pad.data()[(g / p.H) * N + n] != 0);
    p.ids = lsh_buckets(p.qk, rotations(p.nb), hashes_, p.nb);  // [G,R,Np]
    p.scale = f_.scale_up ? std::sqrt(float(d)) : 1.0f / std::sqrt(float(d));
    return p;
  }

  // Round r's order of group g's rows: a stable counting sort by bucket (padding in bucket nb),
  // so by (bucket, position).  order[t] is the row at sorted place t.
  static void bucket_order(const Prepared& p, int64_t g, int64_t r, int32_t* order) {
    std::vector<int32_t> start(size_t(p.nb + 2), 0);
    const int32_t* id = p.ids.data.data() + (g * p.ids.shape[1] + r) * p.Np;
    auto key = [&](int64_t n) { return p.out[size_t(g * p.Np + n)] ? p.nb : int64_t(id[n]); };
    for (int64_t n = 0; n < p.Np; ++n) start[size_t(key(n) + 1)]++;
    for (int64_t b = 0; b <= p.nb; ++b) start[size_t(b + 1)] += start[size_t(b)];
    for (int64_t n = 0; n < p.Np; ++n) order[start[size_t(key(n))]++] = int32_t(n);
  }

  Tensor run(const Tensor& x, const Tensor& key_pad, Trace* tr) {
    Prepared p = prepare(x, key_pad);
    int64_t G = p.G, Np = p.Np, C = p.C, cs = p.cs, ck = p.ck;
    std::vector<Tensor> outs, lses;
    for (int64_t r = 0; r < hashes_; ++r) {
      Chunks ch;
      ch.q_rows = IntTensor({G, C, cs}, std::vector<int32_t>(size_t(G * Np)));
      ch.k_rows = IntTensor({G, C, ck}, std::vector<int32_t>(size_t(G * C * ck)));
      ch.k_out = p.out;
      ch.self_last_resort = !f_.self_allowed;
#pragma omp parallel for if (G > 1 && G * Np > (1 << 14))
      for (int64_t g = 0; g < G; ++g) {
        int32_t* order = ch.q_rows.data.data() + g * Np;
        bucket_order(p, g, r, order);
        for (int64_t c = 0; c < C; ++c) {  // keys: own chunk, then the previous one (wrapping)
          int32_t* kr = ch.k_rows.data.data() + (g * C + c) * ck;
          std::copy(order + c * cs, order + (c + 1) * cs, kr);
          if (C > 1) std::copy(order + ((c + C - 1) % C) * cs, order + ((c + C - 1) % C + 1) * cs, kr + cs);
        }
      }
      std::vector<float>* w = nullptr;
      if (tr) tr->weights.emplace_back(), w = &tr->weights.back();
      ChunkResult res = chunk_attention(p.qk, p.k, p.v, ch, p.scale, cfg_.dropout, is_training(), w);
      outs.push_back(res.out);  // [G,Np,d], already back in position order
      if (hashes_ > 1) {        // this round's log-sum-exp per position
        IntTensor rows({G, Np}, ch.q_rows.data);
        lses.push_back(scatter_add_rows(Tensor::zeros({G, Np, 1}), rows, reshape(res.lse, {G, Np, 1})));
      }
      if (tr) tr->chunks.push_back(std::move(ch));
    }
    Tensor o = outs[0];
    if (hashes_ > 1) {  // combine the rounds: weights softmax over r of lse_r
      Tensor w = softmax(concat(lses, 2));  // [G,Np,R]
      if (tr) tr->round_w = w;
      o = mul(outs[0], narrow(w, 2, 0, 1));
      for (int64_t r = 1; r < hashes_; ++r) o = add(o, mul(outs[size_t(r)], narrow(w, 2, r, 1)));
    }
    o = narrow(reshape(o, {p.B, p.H, Np, p.d}), 2, 0, p.N);
    return proj_->output(o);
  }

  std::shared_ptr<QKVProjection> proj_;
  Tensor rotations_;  // [d, hashes * max_buckets/2], the evaluation rotations
  int64_t chunk_, hashes_, buckets_, max_buckets_;
  ReformerForm f_;
};

RegisterAttention reg({"reformer",
                       "LSH attention: shared QK, random-rotation hashing, sorted chunks + previous chunk, "
                       "hash rounds combined by logsumexp (Kitaev et al. 2020)",
                       {{"bucket_size", 64, 1, 4096, "chunk size c: each chunk of the sorted sequence attends to itself and the previous chunk"},
                        {"hashes", 4, 1, 16, "hash rounds (more rounds: closer to full attention, proportionally slower)"},
                        {"buckets", 0, 0, 65536, "hash buckets (even); 0 = padded length / bucket_size (--form 1: 10)"},
                        {"form", 0, 0, 1, "0 = paper (Kitaev et al.); 1 = lra (LRA's reformer_attention.py: fixed rotations, self allowed, raw keys, scores x sqrt(d), --buckets chunks, no padding mask; LRA ran --hashes 1)"}},
                       [](const AttentionConfig& c) { return std::make_shared<ReformerAttention>(c); }, false,
                       "learned", {7, 1}, "even with later keys masked in each chunk, which earlier keys share a chunk with a position depends on the later tokens' hashes: one sort over all N",
                       {},
                       {{"batch-mates", "with --buckets 0 there are (padded length) / --bucket-size buckets, the paper's rule (trax pads every "
                                        "input to the full length): once a batch is longer than a chunk, an example's hashes depend on how "
                                        "far its batch is padded"}}});

}  // namespace
}  // namespace az
