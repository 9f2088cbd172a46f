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
// Cost per head and hash round: hashing N*d*buckets/2, a counting sort
// O(N + buckets) and attention N*2c*d.  With --buckets 0 (buckets ~ N/c) the
// hashing is N^2 d/(2c): quadratic, but below the attention while N < 4c^2
// (16K tokens at c = 64).  The paper's N log N is its comparison sort's.
// Hashing gets no gradient.  Rotations are drawn from the seeded source afresh
// on every training forward and are a fixed buffer (saved in checkpoints) in
// evaluation.  Padded keys are excluded and padded tokens are hashed to an
// extra last bucket, so they sort to the end and do not crowd real chunks.
//
// Where this differs from the paper (section 2):
//   - The window crosses buckets.  The paper's query attends to the keys of its
//     own bucket (P_i = {j : h(q_i) = h(k_j)}) within its chunk and the previous
//     one; here, as in trax's and lucidrains' code, it attends to every key of
//     the two chunks, so a chunk that straddles a bucket border also mixes the
//     neighbouring bucket's keys (there is no same-bucket mask).
//   - Each example is hashed and chunked at its own length L (its real tokens),
//     not the batch's padded length: with --buckets 0 it has L / c buckets (the
//     paper's rule, as trax pads every input to the full length, is "padded
//     length / c"), and its first chunk looks back to its own last chunk, not to
//     chunks of padding.  An example gives the same output alone as in any batch.
//   - Evaluation hashes with fixed rotations (a buffer, saved in checkpoints),
//     so that a model's scores repeat; the paper draws them on every forward.
//
// --form lra (or 1) is LRA's Reformer, six departures from the paper's form above: what
// they are, why, and the two pieces of it that are its own (the chunk geometry,
// the padded input) are in attention/reformer_lra.cpp.  prepare_paper() and
// prepare_lra() below are the two forms' starts; from the buckets on (sort,
// chunk, attend, unsort, combine the rounds) both run the same code.
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

// --form: the paper's (Kitaev et al.) or LRA's (reformer_lra.cpp); the flag takes the name or its number.
enum class Form { paper = 0, lra = 1 };

class ReformerAttention : public Attention {
 public:
  explicit ReformerAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads, /*shared_qk=*/true));
    chunk_ = knob_int("bucket_size");
    hashes_ = knob_int("hashes");
    buckets_ = knob_int("buckets");
    if (buckets_ % 2) fail("--buckets " + std::to_string(buckets_) + " must be even (0 = sequence length / bucket size)");
    form_ = Form(knob_int("form"));
    max_buckets_ = form_ == Form::lra ? lra_buckets(buckets_) : buckets_for(c.max_len);
    rotations_ = register_buffer("rotations", Tensor::randn({c.head_dim(), hashes_ * max_buckets_ / 2}));
  }

  // ---- what both forms start from --------------------------------------------------------------
  // The chunk geometry, shared q = k and v [G,Np,d] padded to Np positions, the keys (unit-length
  // or raw), which key rows are never attended, and each row's bucket in each round.
  struct Prepared {
    int64_t B, N, H, d, G, cs, Np, C, ck;  // chunk size, padded length, chunks, keys per chunk
    Tensor qk, k, v;                        // [G,Np,d]; k = qk until a form makes it unit-length
    bool unit_keys;                         // the paper's keys: qk / |qk| (each form normalises, below)
    std::vector<uint8_t> out;               // [G,Np]: padded keys (and the rows added to reach Np)
    IntTensor ids;                          // [G,R,Np] bucket of each row in each round
    std::vector<int64_t> nb, own;           // [G]: each group's buckets, and its chunks that hold real rows
    float scale;
    bool self_last_resort;                  // a token attends to itself only when nothing else is there
  };

  // Buckets for a sequence of L real tokens (--buckets 0): its chunks of min(c, L), rounded up to even.
  int64_t buckets_for(int64_t L) const {
    if (buckets_ > 0) return buckets_;
    L = std::max<int64_t>(L, 1);
    int64_t cs = std::min(chunk_, L), n = (L + cs - 1) / cs;
    return std::max<int64_t>(2, n + n % 2);
  }

  // Rotations [d, hashes * max_buckets/2] hold round r in columns r*max_buckets/2 ..; a sequence
  // with nb buckets reads each round's first nb/2: [d, hashes * nb/2].
  Tensor first_columns(const Tensor& rot, int64_t nb) const {
    int64_t d = rot.size(0), half = nb / 2, mhalf = max_buckets_ / 2;
    if (half == mhalf) return rot;
    Tensor r = Tensor::empty({d, hashes_ * half});
    for (int64_t i = 0; i < d; ++i)
      for (int64_t h = 0; h < hashes_; ++h)
        for (int64_t j = 0; j < half; ++j) r.data()[(i * hashes_ + h) * half + j] = rot.data()[(i * hashes_ + h) * mhalf + j];
    return r;
  }

  void check_input(const Tensor& x, const Tensor& key_pad) const {
    if (x.dim() != 3 || x.size(2) != cfg_.dim)
      fail("reformer: input " + shape_str(x.shape()) + " must be [B,N," + std::to_string(cfg_.dim) + "]");
    if (x.size(1) > cfg_.max_len)
      fail("reformer: sequence length " + std::to_string(x.size(1)) + " exceeds --seq-len " + std::to_string(cfg_.max_len));
    if (key_pad.defined() && key_pad.shape() != Shape{x.size(0), x.size(1)})
      fail("reformer: key padding mask " + shape_str(key_pad.shape()) + " must be [" + std::to_string(x.size(0)) + "," +
           std::to_string(x.size(1)) + "]");
  }

  // The paper's form: unit-length keys, scores / sqrt(d), the self rule, padding excluded.  Chunks of
  // c (one chunk when N <= c); each example has its own bucket count and its own chunks (those its
  // L real tokens fill after the sort), so the padding after it changes neither.
  Prepared prepare_paper(const Tensor& x, const Tensor& key_pad) const {
    Prepared p;
    p.B = x.size(0), p.N = x.size(1), p.H = cfg_.heads, p.d = cfg_.head_dim(), p.G = p.B * p.H;
    const int64_t B = p.B, N = p.N, H = p.H, G = p.G, d = p.d;
    p.cs = std::min(chunk_, N), p.C = (N + p.cs - 1) / p.cs, p.Np = p.C * p.cs, p.ck = p.C > 1 ? 2 * p.cs : p.cs;
    auto h = proj_->project(x);  // q = k, v [B,H,N,d]
    auto padded = [&](const Tensor& t) {  // [B,H,N,d] -> [G,Np,d], zero rows after N
      return reshape(p.Np > N ? concat({t, Tensor::zeros({B, H, p.Np - N, d})}, 2) : t, {G, p.Np, d});
    };
    p.qk = padded(h.q), p.v = padded(h.v);
    p.k = p.qk, p.unit_keys = true;  // keys: the unit-length queries (normalised by each form)
    p.out.assign(size_t(G * p.Np), 0);
    p.nb.resize(size_t(G)), p.own.resize(size_t(G));
    p.ids = IntTensor({G, hashes_, p.Np}, std::vector<int32_t>(size_t(G * hashes_ * p.Np)));
    Tensor rot = is_training() ? Tensor::randn(rotations_.shape(), 1.0f, global_rng()) : rotations_;  // fresh in training
    for (int64_t b = 0; b < B; ++b) {
      int64_t L = 0;  // the example's real tokens
      for (int64_t n = 0; n < p.Np; ++n) {
        bool out = n >= N || (key_pad.defined() && key_pad.data()[b * N + n] != 0);
        for (int64_t g = b * H; g < (b + 1) * H; ++g) p.out[size_t(g * p.Np + n)] = out;
        L += !out;
      }
      const int64_t nb = buckets_for(L);
      IntTensor ids = lsh_buckets(narrow(p.qk, 0, b * H, H), first_columns(rot, nb), hashes_, nb);  // [H,R,Np]
      std::copy(ids.data.begin(), ids.data.end(), p.ids.data.begin() + b * H * hashes_ * p.Np);
      for (int64_t g = b * H; g < (b + 1) * H; ++g)
        p.nb[size_t(g)] = nb, p.own[size_t(g)] = std::max<int64_t>(1, (L + p.cs - 1) / p.cs);
    }
    p.scale = 1.0f / std::sqrt(float(d));
    p.self_last_resort = true;
    return p;
  }

  // LRA's form (reformer_lra.cpp, points 1-6): the fixed rotations, raw queries as keys, scores
  // x sqrt(d), no self rule; --buckets chunks of the input padded by 1..nb zero rows, nothing masked.
  Prepared prepare_lra(const Tensor& x) const {
    Prepared p;
    p.B = x.size(0), p.N = x.size(1), p.H = cfg_.heads, p.d = cfg_.head_dim(), p.G = p.B * p.H;
    LshGeometry gm = lra_geometry(p.N, buckets_);
    p.cs = gm.cs, p.Np = gm.Np, p.C = gm.C, p.ck = p.C > 1 ? 2 * p.cs : p.cs;
    auto h = proj_->project(lra_padded_input(x, p.Np));  // the added rows project to the biases
    p.qk = reshape(h.q, {p.G, p.Np, p.d}), p.v = reshape(h.v, {p.G, p.Np, p.d});
    p.k = p.qk, p.unit_keys = false;              // keys: the raw queries
    p.out.assign(size_t(p.G * p.Np), 0);          // padding is attended like any token
    p.ids = lsh_buckets(p.qk, rotations_, hashes_, gm.nb);  // [G,R,Np], the same rotations in training
    p.nb.assign(size_t(p.G), gm.nb), p.own.assign(size_t(p.G), p.C);
    p.scale = std::sqrt(float(p.d));
    p.self_last_resort = false;
    return p;
  }

  Prepared prepare(const Tensor& x, const Tensor& key_pad) const {
    check_input(x, key_pad);
    return form_ == Form::lra ? prepare_lra(x) : prepare_paper(x, key_pad);
  }

  // ---- from the buckets on, both forms -----------------------------------------------------------
  // Round r's order of group g's rows: a stable counting sort by bucket (padding in bucket nb),
  // so by (bucket, position).  order[t] is the row at sorted place t.
  static void bucket_order(const Prepared& p, int64_t g, int64_t r, int32_t* order) {
    const int64_t nb = p.nb[size_t(g)];
    std::vector<int32_t> start(size_t(nb + 2), 0);
    const int32_t* id = p.ids.data.data() + (g * p.ids.shape[1] + r) * p.Np;
    auto key = [&](int64_t n) { return p.out[size_t(g * p.Np + n)] ? nb : int64_t(id[n]); };
    for (int64_t n = 0; n < p.Np; ++n) start[size_t(key(n) + 1)]++;
    for (int64_t b = 0; b <= nb; ++b) start[size_t(b + 1)] += start[size_t(b)];
    for (int64_t n = 0; n < p.Np; ++n) order[start[size_t(key(n))]++] = int32_t(n);
  }

  // The key rows of group g's chunks, [C,ck]: chunk c's own rows, then (C > 1) those of the chunk before
  // it among the group's own chunks, wrapping from its first to its last (not to chunks of padding).
  static void chunk_keys(const Prepared& p, int64_t g, const int32_t* order, int32_t* keys) {
    const int64_t C = p.C, cs = p.cs, own = p.own[size_t(g)];
    for (int64_t c = 0; c < C; ++c) {
      int32_t* kr = keys + c * p.ck;
      std::copy(order + c * cs, order + (c + 1) * cs, kr);
      if (C == 1) continue;
      // own == 1: its one chunk looks back to chunk C - 1, all padding (as alone, where it has one chunk)
      int64_t prev = c >= own ? c - 1 : own > 1 ? (c + own - 1) % own : C - 1;
      std::copy(order + prev * cs, order + (prev + 1) * cs, kr + cs);
    }
  }

  // ---- the reference form ------------------------------------------------------------------------
  // Hash, sort by bucket, cut into chunks, attend within the chunk and the previous one, unsort,
  // combine the rounds.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    Prepared p = prepare(x, key_pad);  // q = k, v [G,Np,d], keys, buckets [G,R,Np], padded keys
    if (p.unit_keys) p.k = p.qk / sqrt(sum(p.qk * p.qk, 2, /*keepdim=*/true) + 1e-12f);  // qk / |qk|
    const int64_t G = p.G, Np = p.Np, C = p.C, cs = p.cs, ck = p.ck, d = p.d;
    std::vector<Tensor> outs, lses;
    for (int64_t r = 0; r < hashes_; ++r) {
      IntTensor order({G, Np}, std::vector<int32_t>(size_t(G * Np)));          // sorted by (bucket, position)
      IntTensor keys({G, C * ck}, std::vector<int32_t>(size_t(G * C * ck)));   // each chunk's key rows
      for (int64_t g = 0; g < G; ++g) {
        bucket_order(p, g, r, order.data.data() + g * Np);
        chunk_keys(p, g, order.data.data() + g * Np, keys.data.data() + g * C * ck);
      }
      Tensor q = reshape(gather_rows(p.qk, order), {G, C, cs, d});
      Tensor k = reshape(gather_rows(p.k, keys), {G, C, ck, d}), v = reshape(gather_rows(p.v, keys), {G, C, ck, d});
      Tensor s = matmul(q, k, /*trans_a=*/false, /*trans_b=*/true) * p.scale;  // [G,C,cs,ck] scores within the chunks
      // Which (query, key) pairs are a token and itself, and which keys are padding (from the rows).
      Tensor self = Tensor::empty(s.shape()), padded = Tensor::empty({G, C, 1, ck});
      for (int64_t i = 0; i < s.numel(); ++i) {
        int64_t g = i / (C * cs * ck), c = i / (cs * ck) % C, qi = i / ck % cs, j = i % ck;
        self.data()[i] = order.data[size_t(g * Np + c * cs + qi)] == keys.data[size_t((g * C + c) * ck + j)];
      }
      for (int64_t i = 0; i < padded.numel(); ++i) padded.data()[i] = p.out[size_t((i / (C * ck)) * Np + keys.data[size_t(i)])];
      if (p.self_last_resort) s = masked_fill(s, self, -5e4f);  // itself only when nothing else is there
      s = masked_fill(s, padded, -1e30f);                        // padded keys: never
      Tensor mx = max(s, 3, /*keepdim=*/true).detach();
      Tensor lse = mx + log(sum(exp(s - mx), 3, /*keepdim=*/true));               // [G,C,cs,1] log-sum-exp of each row
      Tensor o = matmul(dropout(exp(s - lse), cfg_.dropout, is_training()), v);  // softmax, then values
      outs.push_back(scatter_add_rows(Tensor::zeros({G, Np, d}), order, reshape(o, {G, Np, d})));  // unsort
      lses.push_back(scatter_add_rows(Tensor::zeros({G, Np, 1}), order, reshape(lse, {G, Np, 1})));
    }
    Tensor w = softmax(concat(lses, 2));  // [G,Np,R]: round r's weight, by its lse
    Tensor o = outs[0] * narrow(w, 2, 0, 1);
    for (int64_t r = 1; r < hashes_; ++r) o = o + outs[size_t(r)] * narrow(w, 2, r, 1);
    return proj_->output(narrow(reshape(o, {p.B, p.H, Np, d}), 2, 0, p.N));
  }

  // ---- the fast form: the same rows through the chunk kernel (kernels/cluster_util.h) ------------
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

  Tensor run(const Tensor& x, const Tensor& key_pad, Trace* tr) {
    Prepared p = prepare(x, key_pad);
    if (p.unit_keys) p.k = unit_normalize(p.qk);  // qk / |qk|, fused (kernels/cluster_util.h)
    int64_t G = p.G, Np = p.Np, C = p.C, cs = p.cs, ck = p.ck;
    std::vector<Tensor> outs, lses;
    for (int64_t r = 0; r < hashes_; ++r) {
      Chunks ch;
      ch.q_rows = IntTensor({G, C, cs}, std::vector<int32_t>(size_t(G * Np)));
      ch.k_rows = IntTensor({G, C, ck}, std::vector<int32_t>(size_t(G * C * ck)));
      ch.k_out = p.out;
      ch.self_last_resort = p.self_last_resort;
#pragma omp parallel for if (G > 1 && G * Np > (1 << 14))
      for (int64_t g = 0; g < G; ++g) {
        bucket_order(p, g, r, ch.q_rows.data.data() + g * Np);
        chunk_keys(p, g, ch.q_rows.data.data() + g * Np, ch.k_rows.data.data() + g * C * ck);
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
  Form form_;
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "reformer";
  i.summary = "LSH attention: shared QK, random-rotation hashing, sorted chunks + previous chunk, "
              "hash rounds combined by logsumexp (Kitaev et al. 2020)";
  i.knobs = {{"bucket_size", 64, 1, 4096, "chunk size c: each chunk of the sorted sequence attends to itself and the previous chunk"},
             {"hashes", 4, 1, 16, "hash rounds (more rounds: closer to full attention, proportionally slower)"},
             {"buckets", 0, 0, 65536, "hash buckets (even); 0 = an example's length / bucket_size (--form 1: 10)"},
             {"form", 0, 0, 1, "0 = paper (Kitaev et al.); 1 = lra (LRA's reformer_attention.py: fixed rotations, self allowed, raw keys, scores x sqrt(d), --buckets chunks, no padding mask; LRA ran --hashes 1)", {"paper", "lra"}}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<ReformerAttention>(c); };
  i.causal_ok = false;
  i.family = "learned";
  i.lecture = {7, 1};
  i.why_not_causal = "even with later keys masked in each chunk, which earlier keys share a chunk with a position depends on the later tokens' hashes: one sort over all N";
  // LRA's form keeps LRA's code as it ran, without a padding mask (--form 0 keeps one).
  i.deviations = {{"padding (form=lra)", "LRA's reformer_attention.py has no padding mask: padded keys are hashed, sorted and attended"},
                  {"batch-mates (form=lra)", "its padded keys are attended, so an example's outputs depend on how far its batch pads it"}};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
