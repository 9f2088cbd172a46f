// sinkhorn: Sparse Sinkhorn attention (Tay, Bahri, Yang, Metzler & Juan,
// "Sparse Sinkhorn Attention", ICML 2020; conventions of
// lucidrains/sinkhorn-transformer).
//
// Which entries: the sequence is cut into blocks of b.  Each query block
// attends to its own block (local attention) and to one more block chosen by
// a learned sort: a small sorting network scores every (query block i, key
// block j) pair -- R_ij = MLP(mean of block i's queries) . (mean of block j's
// keys) / sqrt(d) -- and Gumbel-Sinkhorn turns the (N/b) x (N/b) scores into a
// soft permutation P: r = (R + Gumbel noise in training) / temperature, then
// alternate row and column normalisation in log space (logsumexp, never
// exp-then-divide: that is where public versions produce NaNs), P = exp(r).
// The "sorted block" of query block i is sum_j P_ij (keys, values) of block j
// -- keys and values are mixed by the same P (using sorted keys as values is a
// known public bug) -- so gradients reach the sorting network through P.
// SortCut (optional): every query block attends to the first n sorted blocks
// (plus its own block) instead.
//
// Cost per head: attention N*2b*d, sorting (N/b)^2*(d + iterations), mixing
// the blocks (N/b)*N*d (a soft permutation is a dense (N/b) x (N/b) product;
// it is small next to attention while N/b <= 2b).
//
// Padding: padded keys are zeroed before mixing and excluded in attention; a
// sorted slot counts as padding when most of its P-mass comes from padding
// (exact for a hard permutation); blocks that are all padding are removed from
// the Sinkhorn normalisation.
// Deviation from the paper: its SortNet outputs a fixed N/b logits per block,
// tying the layer to one length; we score block pairs with the bilinear form
// above (as lucidrains' earlier AttentionSortNet did), which works for any N.
// And the MLP output is used as log-scores directly (no log(relu(.)+eps)).
//
// Read in the paper's order: 1. Sinkhorn normalisation, 2. the sorting network,
// then the padding bookkeeping the sort needs (which positions and blocks are
// real), 3. the learned sort (block summaries, scores, Gumbel noise, temperature,
// Sinkhorn: P; which sorted slots count as padding), 4. reference(): P
// mixes the key and value blocks, then block attention in composed ops;
// 5. forward(): the same through one chunk kernel (kernels/sinkhorn_kernel.cpp).
//
// Why this page is over 250 lines: the learned sort (Sinkhorn normalisation,
// the sorting network, Gumbel noise, the padding of blocks) is the algorithm
// and is read here in the paper's order; its fused attention is in kernels/.
#include <cmath>

#include "attention/sinkhorn.h"
#include "attention/kernels/cluster_util.h"

namespace az {

// ---- 1. Sinkhorn normalisation: scores -> a soft permutation ---------------------------------
// Shown on the model's page beside reference().
Tensor log_sinkhorn(const Tensor& log_alpha, int64_t iters, const Tensor& out_mask) {
  if (log_alpha.dim() < 2 || log_alpha.size(-1) != log_alpha.size(-2))
    fail("log_sinkhorn: scores " + shape_str(log_alpha.shape()) + " must be [..,n,n]");
  if (iters < 1) fail("--sinkhorn_iters " + std::to_string(iters) + " must be at least 1");
  int last = int(log_alpha.dim()) - 1;
  Tensor mask_t = out_mask.defined() ? transpose(out_mask, last - 1, last) : Tensor();
  Tensor r = log_alpha;
  for (int64_t t = 0; t < iters; ++t) {
    r = log_softmax(r, out_mask, /*mask_is_bool=*/true);                                                  // rows sum to 1
    r = transpose(log_softmax(transpose(r, last - 1, last), mask_t, /*mask_is_bool=*/true), last - 1, last);  // columns sum to 1
  }
  return r;
}

namespace {

// ---- 2. the sorting network ----------------------------------------------------------------
// The sorting network's MLP, applied to mean-pooled query blocks: Linear-ReLU-Linear on d.
class SortNet : public Module {
 public:
  explicit SortNet(int64_t d) {
    fc1 = register_module("fc1", std::make_shared<Linear>(d, d));
    fc2 = register_module("fc2", std::make_shared<Linear>(d, d));
  }
  Tensor forward(const Tensor& x) const { return fc2->forward(relu(fc1->forward(x))); }
  std::shared_ptr<Linear> fc1, fc2;
};

class SinkhornAttention : public Attention {
 public:
  friend Tensor az::sinkhorn_gumbel(const Shape& s);  // its noise, for the tests (sinkhorn.h)
  explicit SinkhornAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
    sort_ = register_module("sort", std::make_shared<SortNet>(c.head_dim()));
    block_ = knob_int("block");
    iters_ = knob_int("sinkhorn_iters");
    temperature_ = float(knob("temperature"));
    sortcut_ = knob_int("sortcut");
  }

  // ---- the padding bookkeeping the sort needs ----------------------------------------------
  void check_input(const Tensor& x, const Tensor& key_pad) const {
    if (x.dim() != 3 || x.size(2) != cfg_.dim)
      fail("sinkhorn: input " + shape_str(x.shape()) + " must be [B,N," + std::to_string(cfg_.dim) + "]");
    if (key_pad.defined() && key_pad.shape() != Shape{x.size(0), x.size(1)})
      fail("sinkhorn: key padding mask " + shape_str(key_pad.shape()) + " must be [" + std::to_string(x.size(0)) + "," +
           std::to_string(x.size(1)) + "]");
  }

  // x [B,H,N,d] with zero rows after its positions up to n (whole blocks).
  static Tensor pad_positions(const Tensor& x, int64_t n) {
    int64_t N = x.size(2);
    if (n == N) return x;
    if (n < N) fail("pad_positions: cannot pad " + shape_str(x.shape()) + " to " + std::to_string(n) + " rows");
    return concat({x, Tensor::zeros({x.size(0), x.size(1), n - N, x.size(3)})}, 2);
  }

  // The padding of a batch cut into nb blocks of b (Np = nb b positions; the rows past N added to
  // reach whole blocks count as padding).
  struct BlockPadding {
    Tensor kp;        // [B,Np] 1 at padding
    Tensor valid;     // [B,1,Np,1] 1 at real tokens
    Tensor inv;       // [B,1,nb,1] 1 / the real tokens of each block (1 for a block of padding)
    Tensor out_mask;  // [B,1,nb,nb] 1 where block i or j is all padding: out of the Sinkhorn normalisation
    bool any_pad = false, any_empty = false;
  };
  static BlockPadding block_padding(int64_t B, int64_t N, int64_t b, int64_t nb, const Tensor& key_pad) {
    const int64_t Np = nb * b;
    BlockPadding p;
    p.kp = Tensor::zeros({B, Np}), p.valid = Tensor::empty({B, 1, Np, 1}), p.inv = Tensor::empty({B, 1, nb, 1});
    p.out_mask = Tensor::zeros({B, 1, nb, nb});
    std::vector<uint8_t> empty(size_t(B * nb));
    for (int64_t bi = 0; bi < B; ++bi) {
      for (int64_t n = 0; n < Np; ++n) {
        bool pad = n >= N || (key_pad.defined() && key_pad.data()[bi * N + n] != 0);
        p.kp.data()[bi * Np + n] = pad;
        p.valid.data()[bi * Np + n] = !pad;
        p.any_pad |= pad;
      }
      for (int64_t i = 0; i < nb; ++i) {
        float count = 0;
        for (int64_t t = 0; t < b; ++t) count += p.valid.data()[bi * Np + i * b + t];
        p.inv.data()[bi * nb + i] = 1.0f / std::max(count, 1.0f);
        empty[size_t(bi * nb + i)] = count == 0;
        p.any_empty |= count == 0;
      }
      for (int64_t i = 0; i < nb; ++i)
        for (int64_t j = 0; j < nb; ++j)
          p.out_mask.data()[(bi * nb + i) * nb + j] = empty[size_t(bi * nb + i)] || empty[size_t(bi * nb + j)];
    }
    return p;
  }

  // ---- 3. the learned sort, where both forms start -------------------------------------------
  // What both forms start from: q, k, v padded to whole blocks, the padding, and the soft permutation P.
  struct Sorted {
    int64_t B, N, H, d, b, nb, Np;
    Tensor q, k, v;      // [B,H,Np,d]
    Tensor kp, valid;    // [B,Np] 1 at padding; [B,1,Np,1] 1 at real tokens
    bool any_pad = false;
    Tensor P;            // [B,H,nb,nb]
  };

  // Shown on the model's page beside reference().
  Sorted sort_blocks(const Tensor& x, const Tensor& key_pad) {
    check_input(x, key_pad);
    int64_t B = x.size(0), N = x.size(1), H = cfg_.heads, d = cfg_.head_dim();
    int64_t b = std::min(block_, N);  // a sequence shorter than a block is one block, not padded
    int64_t nb = (N + b - 1) / b, Np = nb * b;
    Sorted st;
    st.B = B, st.N = N, st.H = H, st.d = d, st.b = b, st.nb = nb, st.Np = Np;

    auto h = proj_->project(x);
    Tensor q = pad_positions(h.q, Np), k = pad_positions(h.k, Np), v = pad_positions(h.v, Np);  // [B,H,Np,d]
    BlockPadding pad = block_padding(B, N, b, nb, key_pad);  // which positions and blocks are real (above)
    Tensor valid = pad.valid, inv = pad.inv;

    // The sorting network: block summaries (the mean of each block's real queries, of its real keys)
    // -> (N/b) x (N/b) scores R_ij = SortNet(mean q of block i) . (mean k of block j) / sqrt(d).
    auto pool = [&](const Tensor& t) { return mul(sum(reshape(mul(t, valid), {B, H, nb, b, d}), 3), inv); };
    Tensor R = mul_scalar(matmul(sort_->forward(pool(q)), pool(k), /*trans_a=*/false, /*trans_b=*/true), 1.0f / std::sqrt(float(d)));
    // Gumbel noise in training, the temperature, then Sinkhorn: a soft permutation of the blocks.
    if (is_training()) R = add(R, gumbel({B, H, nb, nb}));
    Tensor logP = log_sinkhorn(mul_scalar(R, 1.0f / temperature_), iters_, pad.any_empty ? pad.out_mask : Tensor());
    st.P = exp(logP);  // [B,H,nb,nb], doubly stochastic over the non-empty blocks
    st.q = q, st.k = k, st.v = v, st.kp = pad.kp, st.valid = pad.valid, st.any_pad = pad.any_pad;
    return st;
  }

  // Shown on the model's page beside reference().
  // Gumbel(0,1) noise -log(-log u), no gradient.  Counter-based like dropout's mask (one draw of
  // the seeded source, then element i's u from a hash of its index counted over the whole batch):
  // an example gets the same noise however a batch is split among threads or processes.
  static Tensor gumbel(const Shape& s) {
    Tensor g = Tensor::empty(s);
    const uint64_t key = global_rng().next_u64(), base = mask_counter_base(s[0], g.numel());
    for (int64_t i = 0; i < g.numel(); ++i) {
      float u = float(hash64(key ^ (base + uint64_t(i)) * 0x9e3779b97f4a7c15ULL) >> 40) * (1.0f / 16777216.0f);
      g.data()[i] = -std::log(-std::log(u + 1e-9f) + 1e-9f);
    }
    return g;
  }

  // Which keys of each query block are excluded, [B,H,nb,1,ck] (undefined without padding): padded
  // tokens of its own block, and sorted slots (s, t) most of whose P-mass sum_j P_sj comes from padding.
  Tensor excluded_slots(const Sorted& st, const Tensor& P, int64_t ck, int64_t sorted_len) const {
    if (!st.any_pad) return Tensor();
    int64_t B = st.B, H = st.H, b = st.b, nb = st.nb, nS = P.size(2);
    Tensor mass;
    {
      NoGradGuard ng;
      mass = matmul(P, add(Tensor::zeros({B, H, nb, b}), reshape(st.valid, {B, 1, nb, b})));  // [B,H,nS,b]: real mass in each sorted slot
    }
    Tensor m = Tensor::empty({B, H, nb, 1, ck});
    for (int64_t g = 0; g < B * H; ++g)
      for (int64_t i = 0; i < nb; ++i)
        for (int64_t j = 0; j < ck; ++j) {
          float& e = m.data()[(g * nb + i) * ck + j];
          if (j >= sorted_len) e = st.kp.data()[(g / H) * st.Np + i * b + j - sorted_len];  // own block
          else e = mass.data()[(g * nS + (sortcut_ > 0 ? j / b : i)) * b + j % b] < 0.5f;  // sorted slot
        }
    return m;
  }

  // ---- 4. the reference form: P applied to the key and value blocks, then attention ---------
  // The reference form: the sorting network's P mixes whole blocks of keys and values; each query block
  // attends to [its sorted block || its own block] (SortCut: [the first n sorted blocks || its own]).
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    Sorted st = sort_blocks(x, key_pad);  // q, k, v [B,H,Np,d] in nb blocks of b; P [B,H,nb,nb]
    int64_t B = st.B, H = st.H, b = st.b, nb = st.nb, d = st.d;
    int64_t nS = sortcut_ > 0 ? std::min(sortcut_, nb) : nb, sorted_len = sortcut_ > 0 ? nS * b : b, ck = sorted_len + b;
    Tensor P = nS < nb ? narrow(st.P, 2, 0, nS) : st.P;                          // [B,H,nS,nb]
    auto blocks = [&](const Tensor& t) { return reshape(t, {B, H, nb, b * d}); };  // block j as one row
    Tensor ks = reshape(matmul(P, blocks(st.k * st.valid)), {B, H, nS, b, d});    // sorted block s = sum_j P_sj K_j
    Tensor vs = reshape(matmul(P, blocks(st.v * st.valid)), {B, H, nS, b, d});    // (padding zeroed first)
    auto keys = [&](const Tensor& sorted, const Tensor& own) {  // [B,H,nb,ck,d] for every query block
      Tensor s = sortcut_ > 0 ? add(Tensor::zeros({B, H, nb, sorted_len, d}), reshape(sorted, {B, H, 1, sorted_len, d}))
                              : sorted;                                           // block i's own sorted block
      return concat({s, reshape(own, {B, H, nb, b, d})}, 3);
    };
    Tensor q = reshape(st.q, {B, H, nb, b, d}), k = keys(ks, st.k), v = keys(vs, st.v);
    Tensor s = matmul(q, k, /*trans_a=*/false, /*trans_b=*/true) * (1.0f / std::sqrt(float(d)));         // [B,H,nb,b,ck]
    Tensor p = softmax(s, excluded_slots(st, P, ck, sorted_len), /*mask_is_bool=*/true);
    Tensor o = matmul(dropout(p, cfg_.dropout, is_training()), v);                 // [B,H,nb,b,d]
    return proj_->output(narrow(reshape(o, {B, H, st.Np, d}), 2, 0, st.N));
  }

  // ---- 5. the fast form: the same in one chunk kernel (kernels/sinkhorn_kernel.cpp) ----------
  Tensor forward(const Tensor& x, const Tensor& key_pad) override { return run(x, key_pad, nullptr); }

  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    Trace tr;
    run(x, key_pad, &tr);
    int64_t N = x.size(1), b = tr.block, nb = tr.P.size(3), nS = sortcut_ > 0 ? std::min(sortcut_, nb) : nb;
    Pattern p;
    p.n = N;
    p.cell.assign(size_t(N * N), 0);
    p.legend = {"own block", "sorted block"};
    auto mark = [&](int64_t qb, int64_t kb, uint8_t label) {
      for (int64_t i = qb * b; i < std::min(N, (qb + 1) * b); ++i)
        for (int64_t j = kb * b; j < std::min(N, (kb + 1) * b); ++j)
          if (!p.cell[size_t(i * N + j)]) p.cell[size_t(i * N + j)] = label;
    };
    auto argmax_block = [&](int64_t s) {  // the block that sorted slot s mostly holds (head 0)
      const float* row = tr.P.data() + s * nb;
      return int64_t(std::max_element(row, row + nb) - row);
    };
    for (int64_t i = 0; i < nb; ++i) mark(i, i, 1);
    for (int64_t i = 0; i < nb; ++i)
      if (sortcut_ > 0)
        for (int64_t s = 0; s < nS; ++s) mark(i, argmax_block(s), 2);
      else
        mark(i, argmax_block(i), 2);
    return p;
  }

  // The weights on tokens: own-block weights directly; a sorted slot (s, t) holds
  // sum_j P_sj v_j[t] over real tokens, so its weight reaches token j*b+t as a * P_sj.
  // Rows sum to less than 1 where a slot's mass partly came from padding.
  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    Trace tr;
    Tensor kp = key_pad.defined() ? narrow(key_pad, 0, 0, 1) : key_pad;
    run(narrow(x, 0, 0, 1), kp, &tr);
    int64_t H = cfg_.heads, N = x.size(1), b = tr.block, nS = tr.P.size(2), nb = tr.P.size(3);
    int64_t sorted_len = sortcut_ > 0 ? nS * b : b, ck = sorted_len + b;
    auto valid = [&](int64_t n) { return n < N && !(kp.defined() && kp.data()[n] != 0); };
    Tensor w = Tensor::zeros({H, N, N});
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < N; ++i) {
        int64_t blk = i / b;
        const float* a = tr.weights.data() + ((h * nb + blk) * b + i % b) * ck;
        float* out = w.data() + (h * N + i) * N;
        for (int64_t t = 0; t < b; ++t)
          if (blk * b + t < N) out[blk * b + t] += a[sorted_len + t];
        for (int64_t s = 0; s < sorted_len; ++s) {
          int64_t sb = sortcut_ > 0 ? s / b : blk, t = s % b;  // which sorted block, which slot
          const float* prow = tr.P.data() + (h * nS + sb) * nb;
          for (int64_t j = 0; j < nb; ++j)
            if (valid(j * b + t)) out[j * b + t] += a[s] * prow[j];
        }
      }
    return w;
  }

 private:
  struct Trace {
    Tensor P;  // [B,H,nS or nb,nb] as used
    int64_t block = 0;
    std::vector<float> weights;
  };

  Tensor run(const Tensor& x, const Tensor& key_pad, Trace* tr) {
    Sorted st = sort_blocks(x, key_pad);
    int64_t b = st.b, nb = st.nb;
    if (tr) tr->block = b;
    if (tr) tr->P = sortcut_ > 0 ? narrow(st.P, 2, 0, std::min(sortcut_, nb)) : st.P;
    Tensor o = sorted_block_attention(st.q, st.k, st.v, st.P, st.any_pad ? st.kp : Tensor(), b, sortcut_,
                                      1.0f / std::sqrt(float(st.d)), cfg_.dropout, is_training(),
                                      tr ? &tr->weights : nullptr);
    return proj_->output(narrow(o, 2, 0, st.N));
  }

  std::shared_ptr<QKVProjection> proj_;
  std::shared_ptr<SortNet> sort_;
  int64_t block_, iters_, sortcut_;
  float temperature_;
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "sinkhorn";
  i.summary = "Sparse Sinkhorn attention: blocks attend to themselves and to a block chosen by a learned "
              "sort (Gumbel-Sinkhorn soft permutation in log space) (Tay et al. 2020)";
  i.knobs = {{"block", 64, 1, 4096, "block size b"},
             {"sinkhorn_iters", 8, 1, 100, "Sinkhorn normalisation rounds (row + column each)"},
             {"temperature", 0.75, 0.01, 100, "Gumbel-Sinkhorn temperature (lower: closer to a hard permutation)"},
             {"sortcut", 0, 0, 4096, "SortCut: attend to the first n sorted blocks (+ own block); 0 = off"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<SinkhornAttention>(c); };
  i.causal_ok = false;
  i.family = "learned";
  i.lecture = {8, 1};
  i.why_not_causal = "its sorting net reads whole blocks, later ones included";
  return i;
}
RegisterAttention reg(info());

}  // namespace

Tensor sinkhorn_gumbel(const Shape& s) { return SinkhornAttention::gumbel(s); }

}  // namespace az
