// compressed: memory-compressed attention (Liu et al., "Generating Wikipedia by
// Summarizing Long Sequences", ICLR 2018; conventions of
// lucidrains/memory-compressed-attention).
//
// Keys and values are shortened by a strided convolution with kernel = stride
// = c: every block of c consecutive positions becomes one key (and one value),
// a learned linear map of the block's c*D numbers.  Each query then attends to
// all M = ceil(N/c) compressed slots: the matrix has N x M entries, each slot
// standing for c positions; cost N^2 d / c per head (still quadratic, c times
// cheaper; the fused softmax_attention keeps no N x M matrix, so memory is
// N d).  N not divisible by c: the last block is zero-filled.  Padding:
// padded keys and values are zeroed before the convolution, and a slot with
// no real position is excluded.
// Deviation from the paper: it used this layer in a decoder (T-DMCA); here
// there is no causal form (a slot mixes c positions, later ones included; a
// causal one would let a query see only the slots that end at or before it,
// with a null key for the first queries, as lucidrains' causal mode does).
//
// forward() runs the fused softmax (kernels/kernel_util.h); reference() writes
// the same attention over the M slots in composed ops.
#include <cmath>

#include "attention/common.h"
#include "attention/kernels/kernel_util.h"

namespace az {
namespace {

class CompressedAttention : public Attention {
 public:
  explicit CompressedAttention(const AttentionConfig& c) : Attention(c) {
    c_ = knob_int("compress");
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
    conv_k_ = register_module("conv_k", std::make_shared<Linear>(c_ * c.dim, c.dim));  // Conv1d(D, D, c, stride c)
    conv_v_ = register_module("conv_v", std::make_shared<Linear>(c_ * c.dim, c.dim));
  }

 private:
  // x [B,N,D] -> [B,M,D]: zero padding and the ragged tail, then blocks of c rows -> Linear.
  Tensor compress(const std::shared_ptr<Linear>& conv, Tensor t, const Tensor& key_pad) const {
    int64_t B = t.size(0), N = t.size(1), D = t.size(2), M = (N + c_ - 1) / c_;
    if (key_pad.defined()) t = mul(t, reshape(key_keep(key_pad), {B, N, 1}));
    if (M * c_ != N) t = concat({t, Tensor::zeros({B, M * c_ - N, D})}, 1);
    return conv->forward(reshape(t, {B, M, c_ * D}));
  }

  // [B,M]: 1 for a slot all of whose positions are padding (excluded), or undefined without padding.
  Tensor empty_slots(int64_t B, int64_t N, const Tensor& key_pad) const {
    if (!key_pad.defined()) return Tensor();
    int64_t M = (N + c_ - 1) / c_;
    Tensor slot_pad = Tensor::ones({B, M});
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < N; ++j)
        if (key_pad.data()[b * N + j] == 0) slot_pad.data()[b * M + j / c_] = 0.0f;
    return slot_pad;
  }

 public:
  // The reference form: keys and values compressed by the strided convolution, then softmax attention
  // of the N queries over the M = ceil(N/c) slots.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    int64_t H = cfg_.heads;
    Tensor q = split_heads(proj_->q->forward(x), H);                                   // [B,H,N,d]
    Tensor k = split_heads(compress(conv_k_, proj_->k->forward(x), key_pad), H);        // [B,H,M,d]
    Tensor v = split_heads(compress(conv_v_, proj_->v->forward(x), key_pad), H);
    Tensor empty = empty_slots(x.size(0), x.size(1), key_pad);                         // [B,M] or undefined
    float scale = 1.0f / std::sqrt(float(cfg_.head_dim()));
    Tensor p = softmax(matmul(q, k, /*trans_a=*/false, /*trans_b=*/true) * scale, empty.defined() ? key_mask(empty) : Tensor(), /*mask_is_bool=*/true);
    return proj_->output(matmul(dropout(p, cfg_.dropout, is_training()), v));         // [B,H,N,M] x [B,H,M,d]
  }

  Tensor forward(const Tensor& x, const Tensor& key_pad) override { return run(x, key_pad, nullptr); }

  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {
    int64_t n = x.size(1);
    // alternate shades show the blocks of c positions that each became one slot
    Pattern p = all_keys_pattern(n, key_pad, false, "even slot (" + std::to_string(c_) + " positions)");
    p.legend.push_back("odd slot (" + std::to_string(c_) + " positions)");
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (p.cell[size_t(i * n + j)] && (j / c_) % 2) p.cell[size_t(i * n + j)] = 2;
    return p;
  }

  // [H,N,N]: each slot's weight shared equally by the real positions it compresses.
  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    Tensor p;
    run(x, key_pad, &p);  // [1,H,N,M]
    int64_t H = p.size(1), N = p.size(2), M = p.size(3);
    Tensor w = Tensor::zeros({H, N, N});
    for (int64_t j0 = 0; j0 < N; j0 += c_) {
      int64_t real = 0;
      for (int64_t j = j0; j < std::min(N, j0 + c_); ++j) real += !(key_pad.defined() && key_pad.data()[j] != 0);
      for (int64_t j = j0; j < std::min(N, j0 + c_); ++j) {
        if (key_pad.defined() && key_pad.data()[j] != 0) continue;
        for (int64_t h = 0; h < H; ++h)
          for (int64_t i = 0; i < N; ++i) w.data()[(h * N + i) * N + j] = p.data()[(h * N + i) * M + j0 / c_] / real;
      }
    }
    return w;
  }

 private:
  // weights: the [B,H,N,M] matrix (attention_weights only); the forward pass never stores it.
  Tensor run(const Tensor& x, const Tensor& key_pad, Tensor* weights) {
    int64_t B = x.size(0), N = x.size(1), H = cfg_.heads;
    Tensor q = split_heads(proj_->q->forward(x), H);
    Tensor k = split_heads(compress(conv_k_, proj_->k->forward(x), key_pad), H);  // [B,H,M,d]
    Tensor v = split_heads(compress(conv_v_, proj_->v->forward(x), key_pad), H);
    Tensor slot_pad = empty_slots(B, N, key_pad);
    float scale = 1.0f / std::sqrt(float(cfg_.head_dim()));
    if (weights) {
      Tensor mask = slot_pad.defined() ? key_mask(slot_pad) : Tensor();
      return proj_->output(dense_attention(q, k, v, mask, scale, 0.0f, false, weights));
    }
    return proj_->output(softmax_attention(q, k, v, slot_pad, scale, cfg_.dropout, is_training()));
  }

  int64_t c_;
  std::shared_ptr<QKVProjection> proj_;
  std::shared_ptr<Linear> conv_k_, conv_v_;
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "compressed";
  i.summary = "keys and values shortened N -> N/c by a strided convolution (Liu et al. 2018)";
  i.knobs = {{"compress", 3, 1, 1024, "compression c: kernel = stride of the convolution"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<CompressedAttention>(c); };
  i.causal_ok = false;
  i.family = "low-rank/kernel";
  i.lecture = {9, 2};
  i.why_not_causal = "each compressed key slot mixes later positions";
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
