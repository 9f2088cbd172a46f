// bigbird: block-sparse attention: window blocks, global blocks, random blocks.
//
// The sequence is cut into blocks of b (the last one may be short).  Query
// block i (not the first or last) attends to the key blocks i-1, i, i+1 (the
// window), the first and last blocks (global), and r random blocks drawn from
// the rest; the first and last query blocks are global and attend to every
// key.  Each query block is one sgemm against its (3 + 2 + r) b keys, so time
// and memory grow as N b (5 + r) + 2 b N: linear in N.  When a row has fewer
// than r blocks left to draw from it takes them all, so short sequences
// (N <= (5 + r) b or so) get full attention.
//   Knobs: --block b (default 64), --random-blocks r (default 3), as HF's defaults.
// The random layout is fixed per layer (as google-research/bigbird draws it
// once per layer from a seed, not per step): a buffer "random_seed" [H, M]
// (M = ceil(max_len / b)) of integers from the seeded random source, saved with
// the checkpoint.  Row block i of head h ranks the blocks it may draw (not
// window, not global) by hash64(seed[h][i] << 32 | j) and takes the r lowest:
// valid for every N <= max_len, O(H M) numbers to store.
// An example's blocks are those of its own length (its last real token + 1),
// not of the batch's padded length: its last block is its own last block, and
// its random blocks are drawn among its own blocks, so an example scores the
// same alone as in any batch (by_length runs each example on its own length).
// Paper: Zaheer et al. 2020, "Big Bird: Transformers for Longer Sequences"
// (ITC form; HF modeling_big_bird block_sparse: window of 3 blocks, first and
// last block global, random blocks exclude window and global ones, per head).
//
// forward() runs the block-sparse kernel (kernels/blocksparse.h) on these layouts;
// reference() states the same block rule over all L x L entries of each length.
#include <algorithm>
#include <functional>
#include <map>

#include "autograd/runtime/rng.h"

#include "attention/kernels/blocksparse.h"

namespace az {
namespace {

enum : uint8_t { kGlobal = 1, kWindow = 2, kRandom = 3 };

// An example's length: its last real token + 1 (the padding after it cut off), at least 1.
std::vector<int64_t> example_lengths(const Tensor& key_pad, int64_t B, int64_t N) {
  std::vector<int64_t> len(size_t(B), N);
  if (!key_pad.defined()) return len;
  for (int64_t b = 0; b < B; ++b) {
    int64_t L = N;
    while (L > 1 && key_pad.data()[b * N + L - 1] != 0) --L;
    len[size_t(b)] = L;
  }
  return len;
}

// The calling thread's batch shard set for a scope (rng.h's BatchShard), put back after it.
struct ShardScope {
  BatchShard saved = batch_shard();
  explicit ShardScope(BatchShard s) { batch_shard() = s; }
  ~ShardScope() { batch_shard() = saved; }
};

// f(x', pad') on each example cut to its own length L (x' [1,L,D]); the rows past its length are 0.
// x [B,N,D] -> [B,N,D].  One call when no example is shorter.  Each call draws what one call over the
// batch would: the same random source (one dropout key) and, for the mask's counters, the example's
// place in the whole batch, so an example keeps its dropout mask however the batch is padded or cut
// among threads and processes.
Tensor by_length(const Tensor& x, const Tensor& key_pad, const std::function<Tensor(const Tensor&, const Tensor&)>& f) {
  const int64_t B = x.size(0), N = x.size(1);
  const std::vector<int64_t> len = example_lengths(key_pad, B, N);
  if (std::all_of(len.begin(), len.end(), [&](int64_t L) { return L == N; })) return f(x, key_pad);
  const int64_t first = batch_shard().rows > 0 ? batch_shard().first : 0;  // example 0's place in the batch
  const Rng start = global_rng();
  Rng source = start;
  std::vector<Tensor> rows;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t L = len[size_t(b)];
    Tensor y;
    {
      source = start;  // every example draws from where the batch would
      RngScope draws(source);
      ShardScope place({first + b, 1});
      y = f(narrow(narrow(x, 0, b, 1), 1, 0, L), key_pad.defined() ? narrow(narrow(key_pad, 0, b, 1), 1, 0, L) : Tensor());
    }
    rows.push_back(L < N ? concat({y, Tensor::zeros({1, N - L, y.size(2)})}, 1) : y);
  }
  global_rng() = source;  // moved on as by one call
  return concat(rows, 0);
}

class BigBirdAttention : public BlockSparseAttention {
 public:
  // The kernel (run(), sparse_attention_merged) and the projections proj_ come from
  // BlockSparseAttention (attention/kernels/blocksparse.h): this class gives its layouts (which key
  // blocks each query block sees), its legend, and runs each length of example on its own.
  explicit BigBirdAttention(const AttentionConfig& c)
      : BlockSparseAttention(c), b_(knob_int("block")), r_(knob_int("random_blocks")) {
    m_ = (c.max_len + b_ - 1) / b_;
    Tensor seeds = Tensor::empty({c.heads, m_});
    for (int64_t i = 0; i < seeds.numel(); ++i) seeds.data()[i] = float(global_rng().randint(1 << 24));  // exact in float
    seeds_ = register_buffer("random_seed", seeds);
  }

  // Which key blocks query block i of head h sees, [nb,nb]: the first and last query blocks see
  // every block (global); the others see the window i-1..i+1, the first and last block, and the
  // r random blocks of least hash64(seed[h][i] << 32 | j) among the rest.
  std::vector<uint8_t> block_kinds(int64_t nb, int64_t h) const {
    const float* seed = seeds_.data() + h * m_;
    std::vector<uint8_t> kinds(size_t(nb * nb), 0);
    for (int64_t i = 0; i < nb; ++i) {
      uint8_t* kind = kinds.data() + i * nb;  // per key block
      if (i == 0 || i == nb - 1) {
        std::fill(kind, kind + nb, kGlobal);
        continue;
      }
      for (int64_t j = i - 1; j <= i + 1; ++j) kind[j] = kWindow;
      kind[0] = kind[nb - 1] = kGlobal;
      std::vector<std::pair<uint64_t, int64_t>> cand;  // (priority, block)
      for (int64_t j = 0; j < nb; ++j)
        if (!kind[j]) cand.push_back({hash64(uint64_t(seed[i]) << 32 | uint64_t(j)), j});
      std::sort(cand.begin(), cand.end());
      for (size_t t = 0; t < std::min(cand.size(), size_t(r_)); ++t) kind[cand[t].second] = kRandom;
    }
    return kinds;
  }

  // The blocks of a sequence of n positions (the last one may be short).
  int64_t blocks(int64_t n) const {
    int64_t nb = (n + b_ - 1) / b_;
    if (nb > m_)
      fail("bigbird: sequence length " + std::to_string(n) + " exceeds --seq-len " + std::to_string(cfg_.max_len) +
           " (its random layout is drawn for " + std::to_string(m_) + " blocks of " + std::to_string(b_) + ")");
    return nb;
  }

  // The reference form: each head's block rule (block_kinds) over all L x L entries of each example's
  // own length L, then softmax attention.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    return by_length(x, key_pad, [&](const Tensor& xl, const Tensor& pad) {
      int64_t N = xl.size(1), H = cfg_.heads, nb = blocks(N);
      std::vector<Tensor> heads;
      for (int64_t h = 0; h < H; ++h) {
        std::vector<uint8_t> kind = block_kinds(nb, h);  // [nb,nb]: query block i sees key block j when nonzero
        heads.push_back(mask_from_rule(N, [&](int64_t i, int64_t j) { return kind[size_t(i / b_ * nb + j / b_)] != 0; }));
      }
      return masked_attention(*proj_, xl, reshape(concat(heads, 0), {H, N, N}), pad, cfg_.dropout, is_training());
    });
  }

  // The fast form: the block-sparse kernel (BlockSparseAttention::run) on layouts(L), per length.
  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    return by_length(x, key_pad, [&](const Tensor& xl, const Tensor& pad) { return run(xl, pad, nullptr); });
  }

  // Example 0's weights at its own length, in the batch's [H,N,N] (zero past its length).
  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    const int64_t N = x.size(1), L = example_lengths(key_pad, 1, N)[0], H = cfg_.heads;
    Tensor w;
    run(narrow(narrow(x, 0, 0, 1), 1, 0, L), key_pad.defined() ? narrow(narrow(key_pad, 0, 0, 1), 1, 0, L) : key_pad, &w);
    if (L == N) return w;
    Tensor full = Tensor::zeros({H, N, N});
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < L; ++i)
        std::copy(w.data() + (h * L + i) * L, w.data() + (h * L + i + 1) * L, full.data() + (h * N + i) * N);
    return full;
  }

 protected:
  Layouts layouts(int64_t n) override {
    int64_t nb = blocks(n);
    // Cached by length and by the seeds (a checkpoint load overwrites them).
    auto key = std::make_pair(n, seeds_.to_vector());
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    Layouts L(size_t(cfg_.heads));
    for (int64_t h = 0; h < cfg_.heads; ++h) L[size_t(h)] = head_layout(n, nb, h);
    if (cache_.size() > 16) cache_.clear();
    return cache_[key] = L;
  }
  std::vector<std::string> legend() const override { return {"global", "window", "random"}; }

 private:
  std::shared_ptr<SparseLayout> head_layout(int64_t n, int64_t nb, int64_t h) const {
    auto L = std::make_shared<SparseLayout>();
    L->n = n;
    std::vector<uint8_t> kinds = block_kinds(nb, h);
    for (int64_t i = 0; i < nb; ++i) {
      SparseGroup G;
      for (int64_t p = i * b_; p < std::min(n, (i + 1) * b_); ++p) G.rows.push_back(int32_t(p));
      const uint8_t* kind = kinds.data() + i * nb;
      G.per_column = true;
      for (int64_t j = 0; j < nb; ++j)
        if (kind[j])
          for (int64_t p = j * b_; p < std::min(n, (j + 1) * b_); ++p) {
            G.cols.push_back(int32_t(p));
            G.label.push_back(kind[j]);
          }
      L->groups.push_back(std::move(G));
    }
    L->finish();
    return L;
  }
  int64_t b_, r_, m_;
  Tensor seeds_;  // [H, M] buffer
  std::map<std::pair<int64_t, std::vector<float>>, Layouts> cache_;
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "bigbird";
  i.summary = "block-sparse: 3 window blocks, first/last block global, r random blocks (Zaheer et al. 2020)";
  i.knobs = {{"block", 64, 1, 1 << 16, "positions per block"},
             {"random_blocks", 3, 0, 1 << 16, "random key blocks per query block (fixed per layer)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<BigBirdAttention>(c); };
  i.causal_ok = false;
  i.family = "fixed";
  i.lecture = {6, 1};
  i.why_not_causal = "its global and random blocks let early queries see later keys";
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
