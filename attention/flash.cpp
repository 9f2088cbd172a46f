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
// tiles go through single-threaded sgemm.  No attention dropout.
#include <cblas.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attention/common.h"
#include "attention/flash.h"
#include "autograd/internal.h"

namespace az {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

struct FlashShape {
  int64_t units, N, d, br, bc;
  bool causal;
  float scale;
};

// S [br,bc] = scale * Q_i K_j^T, then -inf where the key is padding or (causal) in the future.
void score_tile(const FlashShape& s, const float* Q, const float* K, const float* pad, int64_t i0, int64_t br,
                int64_t j0, int64_t bc, float* S) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(br), int(bc), int(s.d), s.scale, Q + i0 * s.d, int(s.d),
              K + j0 * s.d, int(s.d), 0.0f, S, int(bc));
  if (pad)  // padded keys: whole columns, found with one pass over the key block
    for (int64_t c = 0; c < bc; ++c)
      if (pad[j0 + c] != 0)
        for (int64_t r = 0; r < br; ++r) S[r * bc + c] = kNegInf;
  if (s.causal && j0 + bc - 1 > i0)  // only tiles that cross the diagonal have future keys
    for (int64_t r = 0; r < br; ++r)
      for (int64_t c = std::max<int64_t>(0, i0 + r + 1 - j0); c < bc; ++c) S[r * bc + c] = kNegInf;
}

// One (batch, head): O [N,d] and L [N] from Q, K, V [N,d].
void flash_forward_unit(const FlashShape& s, const float* Q, const float* K, const float* V, const float* pad,
                        float* O, float* L, std::vector<float>& S) {
  std::vector<float> m(size_t(s.br)), l(size_t(s.br));
  for (int64_t i0 = 0; i0 < s.N; i0 += s.br) {
    int64_t br = std::min(s.br, s.N - i0);
    std::fill(m.begin(), m.end(), kNegInf);
    std::fill(l.begin(), l.end(), 0.0f);
    float* Oi = O + i0 * s.d;
    std::fill(Oi, Oi + br * s.d, 0.0f);
    for (int64_t j0 = 0; j0 < s.N; j0 += s.bc) {
      if (s.causal && j0 > i0 + br - 1) break;  // the whole key block is in the future
      int64_t bc = std::min(s.bc, s.N - j0);
      score_tile(s, Q, K, pad, i0, br, j0, bc, S.data());
      for (int64_t r = 0; r < br; ++r) {
        float* Sr = S.data() + r * bc;
        float mx = std::max(m[r], vec::max(Sr, bc));
        if (mx == kNegInf) {  // nothing visible yet in this row
          std::fill(Sr, Sr + bc, 0.0f);
          continue;
        }
        float alpha = m[r] == kNegInf ? 0.0f : fast_exp(m[r] - mx), sum = vec::exp_sum(Sr, Sr, mx, bc);
        l[r] = alpha * l[r] + sum;
        m[r] = mx;
        if (alpha != 1.0f)
          for (int64_t t = 0; t < s.d; ++t) Oi[r * s.d + t] *= alpha;
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(br), int(s.d), int(bc), 1.0f, S.data(), int(bc),
                  V + j0 * s.d, int(s.d), 1.0f, Oi, int(s.d));
    }
    for (int64_t r = 0; r < br; ++r) {
      float inv = l[r] > 0 ? 1.0f / l[r] : 0.0f;  // a row with no visible key gives 0
      for (int64_t t = 0; t < s.d; ++t) Oi[r * s.d + t] *= inv;
      L[i0 + r] = l[r] > 0 ? m[r] + std::log(l[r]) : kNegInf;
    }
  }
}

void flash_backward_unit(const FlashShape& s, const float* Q, const float* K, const float* V, const float* pad,
                         const float* O, const float* L, const float* dO, float* dQ, float* dK, float* dV,
                         std::vector<float>& S, std::vector<float>& dP) {
  std::vector<float> D(size_t(s.N));
  for (int64_t i = 0; i < s.N; ++i) {
    float acc = 0;
    for (int64_t t = 0; t < s.d; ++t) acc += dO[i * s.d + t] * O[i * s.d + t];
    D[i] = acc;
  }
  for (int64_t i0 = 0; i0 < s.N; i0 += s.br) {
    int64_t br = std::min(s.br, s.N - i0);
    for (int64_t j0 = 0; j0 < s.N; j0 += s.bc) {
      if (s.causal && j0 > i0 + br - 1) break;
      int64_t bc = std::min(s.bc, s.N - j0);
      score_tile(s, Q, K, pad, i0, br, j0, bc, S.data());
      for (int64_t r = 0; r < br; ++r) {  // P = exp(S - L)
        float Lr = L[i0 + r];
        float* Sr = S.data() + r * bc;
        if (Lr == kNegInf) std::fill(Sr, Sr + bc, 0.0f);
        else vec::exp_sum(Sr, Sr, Lr, bc);
      }
      // dV_j += P^T dO_i ;  dP = dO_i V_j^T
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(bc), int(s.d), int(br), 1.0f, S.data(), int(bc),
                  dO + i0 * s.d, int(s.d), 1.0f, dV + j0 * s.d, int(s.d));
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(br), int(bc), int(s.d), 1.0f, dO + i0 * s.d, int(s.d),
                  V + j0 * s.d, int(s.d), 0.0f, dP.data(), int(bc));
      for (int64_t r = 0; r < br; ++r)  // dS = P * (dP - D), kept in dP
        vec::mul_shift(dP.data() + r * bc, S.data() + r * bc, D[i0 + r], bc);
      // dQ_i += scale dS K_j ;  dK_j += scale dS^T Q_i
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(br), int(s.d), int(bc), s.scale, dP.data(), int(bc),
                  K + j0 * s.d, int(s.d), 1.0f, dQ + i0 * s.d, int(s.d));
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(bc), int(s.d), int(br), s.scale, dP.data(), int(bc),
                  Q + i0 * s.d, int(s.d), 1.0f, dK + j0 * s.d, int(s.d));
    }
  }
}

}  // namespace

// q, k, v [B,H,N,d]; key_pad [B,N] (1 = padding) or undefined -> [B,H,N,d].
Tensor flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& key_pad, bool causal,
                       float scale, int64_t block_q, int64_t block_k) {
  OpScope prof("flash_attention");
  if (q.dim() != 4 || k.shape() != q.shape() || v.shape() != q.shape())
    fail("flash_attention: q " + shape_str(q.shape()) + ", k " + shape_str(k.shape()) + ", v " +
         shape_str(v.shape()) + " must all be [B,H,N,d]");
  int64_t B = q.size(0), H = q.size(1), N = q.size(2), d = q.size(3);
  if (key_pad.defined() && key_pad.shape() != Shape{B, N})
    fail("flash_attention: key padding mask " + shape_str(key_pad.shape()) + " must be [" + std::to_string(B) + "," +
         std::to_string(N) + "]");
  FlashShape s{B * H, N, d, std::max<int64_t>(1, block_q), std::max<int64_t>(1, block_k), causal, scale};
  Tensor out = Tensor::empty(q.shape());
  auto lse = std::make_shared<std::vector<float>>(size_t(B * H * N));
  const float *Q = q.data(), *K = k.data(), *V = v.data(), *P = key_pad.defined() ? key_pad.data() : nullptr;
  float* O = out.data();
  // Q K^T and P V over the computed tiles (about half of them when causal).
  double work = 4.0 * double(s.units) * double(N) * double(N) * double(d) * (causal ? 0.5 : 1.0);
  count_matmul_flops(work);
#pragma omp parallel
  {
    std::vector<float> S(size_t(s.br * s.bc));
#pragma omp for schedule(dynamic, 1)
    for (int64_t u = 0; u < s.units; ++u)
      flash_forward_unit(s, Q + u * N * d, K + u * N * d, V + u * N * d, P ? P + (u / H) * N : nullptr, O + u * N * d,
                         lse->data() + u * N, S);
  }
  if (needs_grad({&q, &k, &v}))
    attach(out, "flash_attention", {q, k, v}, [q, k, v, key_pad, s, lse, H](const Tensor& out) {
      int64_t N = s.N, d = s.d;
      const float *Q = q.data(), *K = k.data(), *V = v.data(), *O = out.data(), *dO = out.grad_data();
      const float* P = key_pad.defined() ? key_pad.data() : nullptr;
      float *dQ = q.grad_data(), *dK = k.grad_data(), *dV = v.grad_data();
      // model FLOPs of the backward (as full's four products); the recomputed Q K^T is not counted
      count_matmul_flops(2.0 * 4.0 * double(s.units) * double(N) * double(N) * double(d) * (s.causal ? 0.5 : 1.0));
#pragma omp parallel
      {
        std::vector<float> S(size_t(s.br * s.bc)), dP(size_t(s.br * s.bc));
#pragma omp for schedule(dynamic, 1)
        for (int64_t u = 0; u < s.units; ++u) {
          size_t o = size_t(u * N * d);
          flash_backward_unit(s, Q + o, K + o, V + o, P ? P + (u / H) * N : nullptr, O + o, lse->data() + u * N,
                              dO + o, dQ + o, dK + o, dV + o, S, dP);
        }
      }
    });
  return out;
}

namespace {

class FlashAttention : public Attention {
 public:
  explicit FlashAttention(const AttentionConfig& c) : Attention(c) {
    if (c.dropout > 0) fail("model 'flash' has no attention dropout (got --attn-dropout " + std::to_string(c.dropout) + ")");
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
  }

  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);
    float scale = 1.0f / std::sqrt(float(cfg_.head_dim()));
    return proj_->output(flash_attention(h.q, h.k, h.v, key_pad, cfg_.causal, scale, knob_int("block_q"),
                                         knob_int("block_k")));
  }

  // The weights flash never stores, recomputed densely for one example.
  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    auto h = proj_->project(x);
    int64_t N = x.size(1);
    Tensor mask;
    if (key_pad.defined()) mask = key_mask(key_pad);
    if (cfg_.causal) {
      Tensor c = reshape(causal_mask(N), {1, 1, N, N});
      mask = mask.defined() ? add(mask, c) : c;
    }
    Tensor w;
    dense_attention(h.q, h.k, h.v, mask, 1.0f / std::sqrt(float(cfg_.head_dim())), 0.0f, false, &w);
    return reshape(w, {w.size(1), N, N});
  }

 private:
  std::shared_ptr<QKVProjection> proj_;
};

RegisterAttention reg({"flash",
                       "exact softmax attention in tiles with an online softmax, memory linear in N (Dao et al. 2022)",
                       {{"block_q", 64, 1, 4096, "query rows per tile (Br)"},
                        {"block_k", 256, 1, 4096, "key rows per tile (Bc)"}},
                       [](const AttentionConfig& c) { return std::make_shared<FlashAttention>(c); }, true, "dense"});

}  // namespace
}  // namespace az
