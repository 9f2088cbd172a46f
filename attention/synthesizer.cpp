// synthesizer: synthetic attention (Tay et al., "Synthesizer: Rethinking
// Self-Attention in Transformer Models", ICML 2021; conventions of
// google-research/long-range-arena synthesizer_attention.py).
//
// No query-key dot products at all: the N x N logits are synthesised.
//   dense (--synth-mode dense, or 0):  row i = W2^T relu(W1 x_i + b1) + b2, a per-token
//        two-layer MLP giving token i its logits over max_len positions (per
//        head: W1 maps D -> H x d, W2 [d, max_len] is shared by the heads as in
//        LRA), sliced to the first N;
//   random (1):  a learned [H, max_len, max_len] matrix R, sliced to [H,N,N],
//        the same for every input;
//   factorised random (2):  R = R1 R2^T with R1, R2 [H, max_len, k].
// Then out = softmax(logits | padding, causal) V.  Every entry of the N x N
// matrix is computed: cost N^2 d per head, quadratic by design (and max_len^2
// parameters in random mode).  Dense and factorised logits are a product of
// two N x r factors, so the fused softmax_attention computes them in row
// chunks and stores none of the N x N matrix (memory N d); random mode
// stores its softmax like full attention.
//
// forward() runs the fused softmax for the dense and factorised modes
// (kernels/kernel_util.h); reference() writes every mode's logits and softmax.
#include <cmath>
#include <utility>

#include "attention/common.h"
#include "attention/decode/decode.h"
#include "attention/kernels/kernel_util.h"

namespace az {
namespace {

// --synth-mode: the flag takes the name or its number.
enum class Mode { dense = 0, random = 1, factorised = 2 };

class Synthesizer : public Attention {
 public:
  explicit Synthesizer(const AttentionConfig& c) : Attention(c) {
    mode_ = Mode(knob_int("synth_mode"));
    int64_t L = c.max_len, H = c.heads, d = c.head_dim(), k = knob_int("synth_rank");
    value_ = register_module("value", std::make_shared<Linear>(c.dim, c.dim));
    out_ = register_module("out", std::make_shared<Linear>(c.dim, c.dim));
    if (mode_ == Mode::dense) {
      dense1_ = register_module("dense1", std::make_shared<Linear>(c.dim, c.dim));
      w2_ = register_parameter("dense2.weight", init_normal({d, L}, 1.0f / std::sqrt(float(d))));  // LRA: lecun normal
      b2_ = register_parameter("dense2.bias", Tensor::zeros({L}), Decay::no);
    } else if (mode_ == Mode::random) {
      r1_ = register_parameter("random", init_normal({H, L, L}, 1.0f / std::sqrt(float(L))));
    } else {
      r1_ = register_parameter("random1", init_normal({H, L, k}, 1.0f / std::sqrt(float(k))));
      r2_ = register_parameter("random2", init_normal({H, L, k}, 1.0f / std::sqrt(float(k))));
    }
  }

 private:
  void check_length(int64_t N) const {
    if (N > cfg_.max_len)
      fail("synthesizer: sequence of " + std::to_string(N) + " positions is longer than --seq-len " +
           std::to_string(cfg_.max_len) + " that sized its logits");
  }

  // The first n entries along `axis`.
  static Tensor first(const Tensor& t, int axis, int64_t n) { return t.size(axis) == n ? t : narrow(t, axis, 0, n); }

  // Boolean mask broadcasting to [B,H,N,N] (undefined when nothing is excluded).
  Tensor mask(int64_t N, const Tensor& key_pad) const {
    Tensor m = cfg_.causal ? reshape(causal_mask(N), {1, 1, N, N}) : Tensor();
    if (key_pad.defined()) m = m.defined() ? add(m, key_mask(key_pad)) : key_mask(key_pad);
    return m;
  }

  Tensor random_logits(int64_t N) const { return first(first(r1_, 1, N), 2, N); }  // [H,N,N]

 public:
  // The reference form: the synthetic logits of the mode, then softmax(logits | padding, causal) V.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    int64_t B = x.size(0), N = x.size(1), H = cfg_.heads;
    check_length(N);
    Tensor v = split_heads(value_->forward(x), H);                   // [B,H,N,d]
    Tensor logits;                                                   // [B or 1,H,N,N]
    if (mode_ == Mode::dense) {       // dense: token i's own MLP gives its row, W2^T relu(W1 x_i + b1) + b2
      Tensor hid = split_heads(relu(dense1_->forward(x)), H);        // [B,H,N,d]
      logits = matmul(hid, first(w2_, 1, N)) + first(b2_, 0, N);     // [B,H,N,N]
    } else if (mode_ == Mode::random) {  // random: a learned matrix R, the same for every input
      logits = reshape(random_logits(N), {1, H, N, N});
    } else {                  // factorised: R1 R2^T
      logits = reshape(matmul(first(r1_, 1, N), first(r2_, 1, N), /*trans_a=*/false, /*trans_b=*/true), {1, H, N, N});
    }
    logits = add(Tensor::zeros({B, H, N, N}), logits);               // one copy per example (padding differs)
    Tensor p = softmax(logits, mask(N, key_pad), /*mask_is_bool=*/true);              // [B,H,N,N]
    return out_->forward(merge_heads(matmul(dropout(p, cfg_.dropout, is_training()), v)));
  }

  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    int64_t N = x.size(1), H = cfg_.heads;
    check_length(N);
    Tensor v = split_heads(value_->forward(x), H);  // [B,H,N,d]
    Tensor o;
    if (mode_ == Mode::random) {
      o = random_mode(v, key_pad);
    } else {  // logits = a b^T: the fused softmax never stores the [N,N] matrix
      Tensor a, b;
      factors(x, a, b);
      o = softmax_attention(a, b, v, key_pad, 1.0f, cfg_.dropout, is_training(), cfg_.causal);
    }
    return out_->forward(merge_heads(o));
  }

  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {
    static const char* names[] = {"synthetic (dense MLP)", "synthetic (random)", "synthetic (factorised random)"};
    return all_keys_pattern(x.size(1), key_pad, cfg_.causal, names[int(mode_)]);
  }

  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    int64_t N = x.size(1), H = cfg_.heads;
    check_length(N);
    Tensor z;  // the logits, [1,H,N,N] or [H,N,N]
    if (mode_ == Mode::random) {
      z = random_logits(N);
    } else {
      Tensor a, b;
      factors(x, a, b);
      z = matmul(a, b, /*trans_a=*/false, /*trans_b=*/true);
    }
    return reshape(softmax(reshape(z, {1, H, N, N}), mask(N, key_pad), /*mask_is_bool=*/true), {H, N, N});
  }

  // Generation (causal): the values of the past; each new position's logit row is
  // computed from it alone (dense) or read from the learned matrix (random modes).
  std::unique_ptr<DecodeState> decoder() override;

 private:
  class Decode;
  // [1,h,..] -> [B,H,..] by copies (h = 1 or H): the fused op wants equal leading dims.
  static Tensor expand(const Tensor& t, int64_t B, int64_t H) {
    Tensor r = H > 1 ? concat(std::vector<Tensor>(size_t(H), t), 1) : t;
    return B > 1 ? concat(std::vector<Tensor>(size_t(B), r), 0) : r;
  }

  // Dense and factorised modes as a product of two [B,H,N,r] factors, logits = a b^T.
  //   dense: a = [relu(W1 x + b1) per head | 1], b = [W2 | b2]^T  (r = d + 1: the bias rides on a ones column)
  //   factorised: a = R1, b = R2  (r = k)
  void factors(const Tensor& x, Tensor& a, Tensor& b) {
    int64_t B = x.size(0), N = x.size(1), H = cfg_.heads;
    if (mode_ == Mode::dense) {
      Tensor hid = split_heads(relu(dense1_->forward(x)), H);                        // [B,H,N,d]
      a = concat({hid, Tensor::ones({B, H, N, 1})}, 3);                              // [B,H,N,d+1]
      Tensor w = concat({first(w2_, 1, N), reshape(first(b2_, 0, N), {1, N})}, 0);   // [d+1,N]
      b = expand(reshape(transpose(w, 0, 1), {1, 1, N, w.size(0)}), B, H);          // [B,H,N,d+1]
    } else {
      int64_t k = r1_.size(2);
      a = expand(reshape(first(r1_, 1, N), {1, H, N, k}), B, 1);
      b = expand(reshape(first(r2_, 1, N), {1, H, N, k}), B, 1);
    }
  }

  // softmax(R | masks) V with R [H,N,N] shared by the batch.
  Tensor random_mode(const Tensor& v, const Tensor& key_pad) {
    int64_t B = v.size(0), H = v.size(1), N = v.size(2), d = v.size(3);
    Tensor z = random_logits(N);
    if (!key_pad.defined()) {  // one [H,N,N] matrix for the whole batch: apply it to [H,N,B*d]
      Tensor m = mask(N, key_pad);
      Tensor p = softmax(z, m.defined() ? reshape(m, {1, N, N}) : Tensor(), /*mask_is_bool=*/true);
      Tensor vh = reshape(permute(v, {1, 2, 0, 3}), {H, N, B * d});
      // One mask for the whole batch, not one per example: no data-parallel shift (tensor.h).
      BatchShard shard = std::exchange(batch_shard(), BatchShard{});
      Tensor pd = dropout(p, cfg_.dropout, is_training());
      batch_shard() = shard;
      Tensor oh = matmul(pd, vh);  // [H,N,B*d]
      return permute(reshape(oh, {H, N, B, d}), {2, 0, 1, 3});
    }
    z = expand(reshape(z, {1, H, N, N}), B, 1);  // per-example padding: one copy per example
    Tensor p = softmax(z, mask(N, key_pad), /*mask_is_bool=*/true);  // [B,H,N,N]
    return matmul(dropout(p, cfg_.dropout, is_training()), v);
  }

  Mode mode_;
  std::shared_ptr<Linear> value_, out_, dense1_;
  Tensor w2_, b2_, r1_, r2_;
};

// Position t: v_t joins the cache; z_j = logit(t, j) for j <= t; out = softmax(z) . V.  O(t d) per token.
class Synthesizer::Decode : public DecodeState {
 public:
  explicit Decode(Synthesizer& s) : s_(s), V_(size_t(s.cfg_.heads)) {}
  Tensor step(const Tensor& x) override {
    NoGradGuard ng;
    const int64_t H = s_.cfg_.heads, d = s_.cfg_.head_dim(), t = t_++;
    s_.check_length(t + 1);
    Tensor v = s_.value_->forward(x);  // [1,1,D], head h at h*d
    Tensor hid = s_.mode_ == Mode::dense ? relu(s_.dense1_->forward(x)) : Tensor();
    const int64_t L = s_.cfg_.max_len;
    Tensor out = Tensor::zeros({1, 1, H * d});
    std::vector<float> z(size_t(t + 1));
    for (int64_t h = 0; h < H; ++h) {
      std::vector<float>& V = V_[size_t(h)];
      V.insert(V.end(), v.data() + h * d, v.data() + (h + 1) * d);
      float mx = -INFINITY;
      for (int64_t j = 0; j <= t; ++j) {
        float zj = 0;
        if (s_.mode_ == Mode::dense) {  // [relu(W1 x) | 1] . [W2[:, j] | b2[j]]
          for (int64_t e = 0; e < d; ++e) zj += hid.data()[h * d + e] * s_.w2_.data()[e * L + j];
          zj += s_.b2_.data()[j];
        } else if (s_.mode_ == Mode::random) {
          zj = s_.r1_.data()[(h * L + t) * L + j];
        } else {
          const int64_t k = s_.r1_.size(2);
          for (int64_t e = 0; e < k; ++e) zj += s_.r1_.data()[(h * L + t) * k + e] * s_.r2_.data()[(h * L + j) * k + e];
        }
        z[size_t(j)] = zj, mx = std::max(mx, zj);
      }
      float sum = 0;
      for (auto& zj : z) zj = std::exp(zj - mx), sum += zj;
      float* o = out.data() + h * d;
      for (int64_t j = 0; j <= t; ++j)
        for (int64_t e = 0; e < d; ++e) o[e] += z[size_t(j)] / sum * V[size_t(j * d + e)];
    }
    return s_.out_->forward(out);
  }
  int64_t state_bytes() const override {
    size_t n = 0;
    for (auto& v : V_) n += v.size();
    return int64_t(n * sizeof(float));
  }
  std::string kind() const override { return "value cache"; }

 private:
  Synthesizer& s_;
  std::vector<std::vector<float>> V_;  // per head, [t, d]
  int64_t t_ = 0;
};

std::unique_ptr<DecodeState> Synthesizer::decoder() { return std::make_unique<Decode>(*this); }

AttentionInfo info() {
  AttentionInfo i;
  i.name = "synthesizer";
  i.summary = "synthetic N x N logits from a per-token MLP or a learned matrix, no QK^T (Tay et al. 2021)";
  i.knobs = {{"synth_mode", 0, 0, 2, "0 dense (per-token MLP), 1 random (learned matrix), 2 factorised random", {"dense", "random", "factorised"}},
             {"synth_rank", 32, 1, 4096, "rank k of the factorised random matrix (--synth-mode 2)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<Synthesizer>(c); };
  i.causal_ok = true;
  i.family = "low-rank/kernel";
  i.lecture = {11, 1};
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
