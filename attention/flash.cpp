// flash: exact softmax attention in memory linear in N (Dao et al. 2022,
// FlashAttention; backward as in FlashAttention-2, Dao 2023), on a CPU.
//
// It computes the same N x N entries as `full`, softmax(QK^T/sqrt(d))V, but
// never stores the matrix: queries go in blocks of Br rows, keys in blocks
// of Bc, and each Br x Bc tile of scores lives only in a small buffer.  The
// softmax is "online": for each query row a running maximum m and sum l are
// rescaled as every key block arrives,
//     m' = max(m, max_j s_j),  l' = e^(m-m') l + sum_j e^(s_j-m'),
//     O' = e^(m-m') O + e^(s-m') V_j,          and at the end O / l.
// Only O and the log-sum-exp L = m + log l (one float per row) are kept.
// Backward recomputes each tile's P = exp(S - L) and, with D = rowsum(dO * O),
//     dV += P^T dO,  dS = P * (dO V^T - D),  dQ += dS K / sqrt(d),  dK += dS^T Q / sqrt(d).
// Time is still N^2 d, memory N d.  Work runs in parallel over (batch, head);
// each tile is the shared tile engine's (attention/kernels/tile.h): single-threaded GEMMs,
// vector row kernels, and attention dropout with full attention's mask.
//
// reference() writes the recurrence above in composed ops, key block by key block; forward()
// calls the fused kernel, attention/kernels/flash_kernel.cpp.
#include <cmath>
#include <memory>

#include "attention/common.h"
#include "attention/decode/decode.h"
#include "attention/flash.h"

namespace az {
namespace {

class FlashAttention : public Attention {
 public:
  explicit FlashAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
  }

  // The reference form: the online softmax above, key block by key block, in composed ops (all query
  // rows at once).  Autograd keeps every block's weights, so its memory is N^2, not N: it shows the
  // recurrence; forward() is what keeps memory linear.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);                                         // q, k, v [B,H,N,d]
    int64_t B = x.size(0), H = cfg_.heads, N = x.size(1), d = cfg_.head_dim();
    int64_t bc = knob_int("block_k") > 0 ? knob_int("block_k") : flash_block_k(d);
    Tensor excluded = excluded_keys(key_pad, cfg_.causal, N);          // padded and later keys
    Tensor keep;  // attention dropout: the mask dropout() puts on full attention's [B,H,N,N] weights
    if (cfg_.dropout > 0 && is_training()) keep = dropout(Tensor::ones({B, H, N, N}), cfg_.dropout, /*training=*/true);
    Tensor q = h.q * (1.0f / std::sqrt(float(d)));
    Tensor m = Tensor::full({B, H, N, 1}, -1e30f);                      // running max of each row's scores
    Tensor l = Tensor::zeros({B, H, N, 1});                             // running sum of e^(s - m)
    Tensor o = Tensor::zeros({B, H, N, d});                             // running sum of e^(s - m) v
    for (int64_t j0 = 0; j0 < N; j0 += bc) {
      int64_t n = std::min(bc, N - j0);
      Tensor s = matmul(q, narrow(h.k, 2, j0, n), /*trans_a=*/false, /*trans_b=*/true);         // [B,H,N,n] this key block's scores
      if (excluded.defined()) s = masked_fill(s, narrow(excluded, 3, j0, n), -INFINITY);
      // m' = max(m, max_j s_j); m only keeps exp in range and cancels in o / l, so it needs no gradient
      Tensor m_new = max(concat({m, max(s, 3, /*keepdim=*/true)}, 3), 3, /*keepdim=*/true).detach();
      Tensor p = exp(s - m_new);                                        // e^(s_j - m')
      Tensor rescale = exp(m - m_new);                                  // e^(m - m'): what came before
      l = rescale * l + sum(p, 3, /*keepdim=*/true);
      if (keep.defined()) p = p * narrow(keep, 3, j0, n);
      o = rescale * o + matmul(p, narrow(h.v, 2, j0, n));
      m = m_new;
    }
    return proj_->output(o / (l + 1e-30f));                             // l >= 1 wherever a key is allowed
  }

  // The fast form: the fused kernel, memory linear in N (attention/kernels/flash_kernel.cpp).
  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);
    float scale = 1.0f / std::sqrt(float(cfg_.head_dim()));
    return proj_->output(flash_attention(h.q, h.k, h.v, key_pad, cfg_.causal, scale, knob_int("block_q"),
                                         knob_int("block_k"), cfg_.dropout, is_training()));
  }

  // Exact softmax attention decodes as full does: a cache of every past key and value.
  std::unique_ptr<DecodeState> decoder() override { return kv_cache_state(proj_, cfg_.heads, -1, 1); }

  // The weights flash never stores, recomputed densely for one example.
  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    auto h = proj_->project(x);
    int64_t N = x.size(1);
    Tensor mask = excluded_keys(key_pad, cfg_.causal, N);
    Tensor w;
    dense_attention(h.q, h.k, h.v, mask, 1.0f / std::sqrt(float(cfg_.head_dim())), 0.0f, false, &w);
    return reshape(w, {w.size(1), N, N});
  }

 private:
  std::shared_ptr<QKVProjection> proj_;
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "flash";
  i.summary = "exact softmax attention in tiles with an online softmax, memory linear in N (Dao et al. 2022)";
  i.knobs = {{"block_q", 64, 1, 4096, "query rows per tile (Br)"},
             {"block_k", 0, 0, 4096, "key rows per tile (Bc); 0: by head dim, 256 down to 64 (flash.h)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<FlashAttention>(c); };
  i.causal_ok = true;
  i.family = "dense";
  i.lecture = {1, 2};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
