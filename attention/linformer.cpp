// linformer: low-rank attention (Wang et al., "Linformer: Self-Attention with
// Linear Complexity", 2020; conventions of facebookresearch/xformers
// LinformerAttention and lucidrains/linformer).
//
// Keys and values are projected along the sequence from N to k positions by
// learned E, F [k, max_len] (sliced to their first N columns for shorter
// inputs):  out = softmax(Q (E K)^T / sqrt(d)) (F V).  Each query scores k
// mixed keys, so the implied N x N matrix softmax(Q (EK)^T / sqrt(d)) F is
// dense but of rank <= k; cost N k d per head instead of N^2 d, and memory N d
// (the fused softmax_attention keeps no N x k matrix for backward).  Padded keys
// and values are zeroed before projecting, so they cannot leak in.  Knobs:
// --proj-k (k, capped at max_len), --share-kv (F = E), --share-heads (one E, F
// for all heads, as xformers; else one per head).  No causal form: every
// projected key mixes all positions.
//
// forward() runs the fused softmax (kernels/kernel_util.h); reference() writes
// the formula in composed ops.
#include <algorithm>
#include <cmath>

#include "attention/common.h"
#include "attention/kernels/kernel_util.h"

namespace az {
namespace {

class Linformer : public Attention {
 public:
  explicit Linformer(const AttentionConfig& c) : Attention(c) {
    int64_t k = std::min(knob_int("proj_k"), c.max_len), L = c.max_len;
    share_heads_ = knob_int("share_heads") != 0;
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
    Shape s = share_heads_ ? Shape{k, L} : Shape{c.heads, k, L};
    float a = 1.0f / std::sqrt(float(L));  // xformers' nn.Linear(max_len, k): U(+-1/sqrt(fan_in))
    e_ = register_parameter("E", Tensor::uniform(s, -a, a, global_rng()));
    f_ = knob_int("share_kv") ? e_ : register_parameter("F", Tensor::uniform(s, -a, a, global_rng()));
  }

 private:
  static Tensor slice(const Tensor& p, int64_t n) { return p.size(-1) == n ? p : narrow(p, -1, 0, n); }

  void check_length(int64_t N) const {
    if (N > cfg_.max_len)
      fail("linformer: sequence of " + std::to_string(N) + " positions is longer than --seq-len " +
           std::to_string(cfg_.max_len) + " that sized E and F");
  }

 public:
  // The reference form: keys and values projected along the positions by E and F, then softmax attention
  // of the N queries over the k projected keys.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    int64_t B = x.size(0), N = x.size(1), H = cfg_.heads;
    check_length(N);
    auto h = proj_->project(x);                                       // q, k, v [B,H,N,d]
    Tensor k = h.k, v = h.v;
    if (key_pad.defined()) k = k * key_keep(key_pad), v = v * key_keep(key_pad);  // padded keys, values -> 0
    auto along_positions = [&](const Tensor& P) {                     // [k,N] or [H,k,N] -> [B,H,k,N]
      Tensor p = slice(P, N);                                         // the first N columns
      return add(Tensor::zeros({B, H, p.size(-2), N}), p.dim() == 2 ? p : reshape(p, {1, H, p.size(-2), N}));
    };
    Tensor ek = matmul(along_positions(e_), k), fv = matmul(along_positions(f_), v);  // E K, F V [B,H,k,d]
    float scale = 1.0f / std::sqrt(float(cfg_.head_dim()));
    return proj_->output(dense_attention(h.q, ek, fv, Tensor(), scale, cfg_.dropout, is_training()));
  }

  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    Tensor q, k, v;
    compress(x, key_pad, q, k, v);
    float scale = 1.0f / std::sqrt(float(cfg_.head_dim()));
    return proj_->output(softmax_attention(q, k, v, Tensor(), scale, cfg_.dropout, is_training()));  // [N,k] not kept
  }

  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {
    return all_keys_pattern(x.size(1), key_pad, false, "rank-" + std::to_string(e_.size(-2)) + " projection");
  }

  // The implied [H,N,N] matrix softmax(Q (EK)^T / sqrt(d)) F (it mixes values; entries may be negative).
  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    Tensor q, k, v, p;
    compress(x, key_pad, q, k, v);
    dense_attention(q, k, v, Tensor(), 1.0f / std::sqrt(float(cfg_.head_dim())), 0.0f, false, &p);  // [1,H,N,k]
    int64_t N = x.size(1), H = cfg_.heads;
    Tensor f = slice(f_, N);                                                   // [k,N] or [H,k,N]
    Tensor w = matmul(reshape(p, {H, N, p.size(3)}), f);                       // [H,N,N]
    if (key_pad.defined()) w = mul(w, reshape(key_keep(key_pad), {1, 1, N}));  // padded values were zeroed
    return w;
  }

 private:
  // q [B,H,N,d]; k, v projected to [B,H,k,d].
  void compress(const Tensor& x, const Tensor& key_pad, Tensor& q, Tensor& k, Tensor& v) {
    int64_t B = x.size(0), N = x.size(1);
    check_length(N);
    q = split_heads(proj_->q->forward(x), cfg_.heads);
    Tensor kx = proj_->k->forward(x), vx = proj_->v->forward(x);  // [B,N,D]
    if (key_pad.defined()) {
      Tensor keep = reshape(key_keep(key_pad), {B, N, 1});
      kx = mul(kx, keep);
      vx = mul(vx, keep);
    }
    k = project(e_, kx);
    v = project(f_, vx);
  }

  // P [k,L] or [H,k,L] applied along the positions of t [B,N,D] -> [B,H,k,d], as
  // one product with every example and head side by side in the columns (a
  // product per head and example would sum P's gradient over B*H thin products).
  Tensor project(const Tensor& p, const Tensor& t) const {
    int64_t B = t.size(0), N = t.size(1), D = t.size(2), H = cfg_.heads, d = D / H;
    Tensor pn = slice(p, N);
    int64_t k = pn.size(-2);
    if (share_heads_) {
      Tensor r = matmul(pn, reshape(permute(t, {1, 0, 2}), {N, B * D}));  // [k,N] x [N,B*D]
      return split_heads(permute(reshape(r, {k, B, D}), {1, 0, 2}), H);  // [B,k,D] -> [B,H,k,d]
    }
    Tensor th = reshape(permute(reshape(t, {B, N, H, d}), {2, 1, 0, 3}), {H, N, B * d});  // [H,N,B*d]
    Tensor r = matmul(pn, th);                                                            // [H,k,B*d]
    return permute(reshape(r, {H, k, B, d}), {2, 0, 1, 3});                               // [B,H,k,d]
  }

  bool share_heads_;
  std::shared_ptr<QKVProjection> proj_;
  Tensor e_, f_;
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "linformer";
  i.summary = "keys and values projected N -> k by learned E, F: softmax(Q(EK)^T)(FV) (Wang et al. 2020)";
  i.knobs = {{"proj_k", 256, 1, 65536, "projected length k (capped at --seq-len)"},
             {"share_kv", 0, 0, 1, "1: values use the keys' projection (F = E)"},
             {"share_heads", 1, 0, 1, "1: one E, F for all heads; 0: one per head"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<Linformer>(c); };
  i.causal_ok = false;
  i.family = "low-rank/kernel";
  i.lecture = {9, 1};
  i.why_not_causal = "its E, F projections mix all N positions into each key";
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
