// chunk_attention, unit_normalize, top_members (see cluster_util.h).
//
// chunk_attention, per chunk with rows Q [cq,d], K [ck,d], V [ck,dv]:
//   S = Q K^T s (masked), lse_i = log sum_j exp S_ij, P = exp(S - lse), O = P V.
// Backward, with dO and the gradient g_i of lse_i (d lse_i / d S_ij = P_ij):
//   dV = P^T dO,  dP = dO V^T,  dS_ij = P_ij (dP_ij - sum_k P_ik dP_ik + g_i),
//   dQ = dS K s,  dK = dS^T Q s.
// P is recomputed from the saved lse instead of stored.
#include "attention/kernels/cluster_util.h"


#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "attention/kernels/tile.h"
#include "autograd/runtime/blas.h"
#include "autograd/runtime/vecmath.h"

namespace az {

namespace {

constexpr float kSelfScore = -5e4f;  // Reformer's TOKEN_SELF_ATTN_VALUE
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

using tile::add_rows;
using tile::copy_rows;
using tile::gemm_dense;

struct Plan {
  int64_t G, Nq, Nk, d, dv, C, cq, ck;
};

Plan check(const Tensor& q, const Tensor& k, const Tensor& v, const Chunks& ch) {
  auto err = [&](const std::string& why) {
    fail("chunk_attention: q " + shape_str(q.shape()) + ", k " + shape_str(k.shape()) + ", v " + shape_str(v.shape()) +
         ", q_rows " + shape_str(ch.q_rows.shape) + ", k_rows " + shape_str(ch.k_rows.shape) + ": " + why);
  };
  if (q.dim() != 3 || k.dim() != 3 || v.dim() != 3) err("q, k, v must be [G,N,d]");
  Plan p{q.size(0), q.size(1), k.size(1), q.size(2), v.size(2), 0, 0, 0};
  if (k.size(0) != p.G || v.size(0) != p.G || k.size(2) != p.d || v.size(1) != p.Nk) err("shapes disagree");
  if (ch.q_rows.shape.size() != 3 || ch.k_rows.shape.size() != 3 || ch.q_rows.shape[0] != p.G ||
      ch.k_rows.shape[0] != p.G || ch.k_rows.shape[1] != ch.q_rows.shape[1])
    err("rows must be [G,C,cq] and [G,C,ck]");
  p.C = ch.q_rows.shape[1], p.cq = ch.q_rows.shape[2], p.ck = ch.k_rows.shape[2];
  for (int32_t r : ch.q_rows.data)
    if (r < 0 || r >= p.Nq) err("query row " + std::to_string(r) + " out of range");
  for (int32_t r : ch.k_rows.data)
    if (r < 0 || r >= p.Nk) err("key row " + std::to_string(r) + " out of range");
  if (!ch.k_out.empty() && int64_t(ch.k_out.size()) != p.G * p.Nk) err("k_out must hold G*Nk flags");
  return p;
}

// Where each key row sits in the current chunk, for the self rule: slots holding
// row r are head[r], next[head[r]], ... (-1 ends).  Per thread; cleared after each chunk.
struct SlotIndex {
  std::vector<int32_t> head, next;
  void build(const int32_t* kr, int64_t ck, int64_t Nk) {
    if (head.empty()) head.assign(size_t(Nk), -1);
    next.resize(size_t(ck));
    for (int64_t j = ck; j-- > 0;) next[size_t(j)] = head[size_t(kr[j])], head[size_t(kr[j])] = int32_t(j);
  }
  void clear(const int32_t* kr, int64_t ck) {
    for (int64_t j = 0; j < ck; ++j) head[size_t(kr[j])] = -1;
  }
};

// The masked, scaled scores of one chunk into S [cq,ck] (the rows and columns that meet): excluded keys -inf
// (bias[j] = -inf, else 0), and with the self rule a query's own key -5e4.
void scores(const Plan& p, const Chunks& ch, int64_t g, int64_t c, const float* Q, const float* K, float scale,
            float* S, float* bias, const SlotIndex& slots) {
  tile::scores({Q, p.d}, {K, p.d}, p.cq, p.ck, p.d, scale, S);
  const int32_t* qr = ch.q_rows.data.data() + (g * p.C + c) * p.cq;
  const int32_t* kr = ch.k_rows.data.data() + (g * p.C + c) * p.ck;
  const uint8_t* out = ch.k_out.empty() ? nullptr : ch.k_out.data() + g * p.Nk;
  for (int64_t j = 0; j < p.ck; ++j) bias[j] = out && out[kr[j]] ? kNegInf : 0.0f;
  for (int64_t i = 0; i < p.cq; ++i) {
    float* s = S + i * p.ck;
#pragma omp simd
    for (int64_t j = 0; j < p.ck; ++j) s[j] += bias[j];
  }
  if (ch.self_last_resort)
    for (int64_t i = 0; i < p.cq; ++i)
      for (int32_t j = slots.head[size_t(qr[i])]; j >= 0; j = slots.next[size_t(j)])
        if (bias[j] == 0) S[i * p.ck + j] = kSelfScore;
}

}  // namespace

ChunkResult chunk_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Chunks& ch_in, float scale,
                            float dropout_p, bool training, std::vector<float>* weights) {
  OpScope prof("chunk_attention");
  Plan p = check(q, k, v, ch_in);
  count_matmul_flops(2.0 * double(p.G * p.C) * double(p.cq * p.ck) * double(p.d + p.dv));  // S = Q K^T, O = P V
  auto ch = std::make_shared<const Chunks>(ch_in);  // shared with the backward closure, not copied again
  // Dropout weight (g, c, i, j) is number ((g C + c) cq + i) ck + j of the [G,C,cq,ck] weights.
  const tile::Dropout drop = tile::Dropout::draw(dropout_p, training, global_rng(), p.G, p.G * p.C * p.cq * p.ck);

  Tensor out = Tensor::zeros({p.G, p.Nq, p.dv});
  Tensor lse = Tensor::empty({p.G, p.C, p.cq});
  if (weights) weights->assign(size_t(p.G * p.C * p.cq * p.ck), 0.0f);
  const float *pq = q.data(), *pk = k.data(), *pv = v.data();
  float *po = out.data(), *pl = lse.data();
  bool par = p.G > 1 && p.G * p.C * p.cq * p.ck * (p.d + p.dv) > (1 << 17);  // small work: no thread wake-up
#pragma omp parallel if (par)
  {
    std::vector<float> Q(p.cq * p.d), K(p.ck * p.d), V(p.ck * p.dv), S(p.cq * p.ck), O(p.cq * p.dv), bias(p.ck);
    SlotIndex slots;
#pragma omp for schedule(dynamic, 1)
    for (int64_t g = 0; g < p.G; ++g)
      for (int64_t c = 0; c < p.C; ++c) {
        const int32_t* qr = ch->q_rows.data.data() + (g * p.C + c) * p.cq;
        const int32_t* kr = ch->k_rows.data.data() + (g * p.C + c) * p.ck;
        copy_rows(pq + g * p.Nq * p.d, p.d, qr, p.cq, p.d, Q.data());
        copy_rows(pk + g * p.Nk * p.d, p.d, kr, p.ck, p.d, K.data());
        copy_rows(pv + g * p.Nk * p.dv, p.dv, kr, p.ck, p.dv, V.data());
        if (ch->self_last_resort) slots.build(kr, p.ck, p.Nk);
        scores(p, *ch, g, c, Q.data(), K.data(), scale, S.data(), bias.data(), slots);
        if (ch->self_last_resort) slots.clear(kr, p.ck);
        tile::softmax_rows(S.data(), p.cq, p.ck, pl + (g * p.C + c) * p.cq);
        if (weights)
          std::memcpy(weights->data() + (g * p.C + c) * p.cq * p.ck, S.data(), sizeof(float) * p.cq * p.ck);
        if (drop.on) drop.apply(S.data(), S.data(), p.cq, p.ck, uint64_t((g * p.C + c) * p.cq * p.ck), p.ck);
        gemm_dense(false, false, p.cq, p.dv, p.ck, S.data(), V.data(), 0.0f, O.data());
        add_rows(O.data(), p.cq, p.dv, qr, po + g * p.Nq * p.dv, p.dv);
      }
  }

  if (!needs_grad({&q, &k, &v})) return {out, lse};
  // lse's gradient is handed to out's backward through `glse`: lse's node takes
  // out as its input, so the engine runs it first (consumers before producers).
  auto glse = std::make_shared<std::vector<float>>();
  Tensor lse_val = lse.detach();  // values only: capturing lse itself would make a reference cycle
  attach(lse, "chunk_attention_lse", {out}, [glse, out](const Tensor& lse) {
    glse->assign(lse.grad_data(), lse.grad_data() + lse.numel());
    out.grad_data();  // make sure out's backward runs even if out itself was unused
  });
  attach(out, "chunk_attention", {q, k, v}, [q, k, v, ch, p, scale, lse_val, glse, drop](
                                                 const Tensor& out) {
    const float *pq = q.data(), *pk = k.data(), *pv = v.data(), *go = out.grad_data(), *pl = lse_val.data();
    const float* gl = glse->empty() ? nullptr : glse->data();
    float* dq = q.requires_grad() ? q.grad_data() : nullptr;
    float* dk = k.requires_grad() ? k.grad_data() : nullptr;
    float* dv = v.requires_grad() ? v.grad_data() : nullptr;
    // dV, dP, dQ, dK as model FLOPs (the recomputed S is not counted, as flash does)
    count_matmul_flops(4.0 * double(p.G * p.C) * double(p.cq * p.ck) * double(p.d + p.dv));
    // q and k may share a buffer (shared-QK callers): groups own disjoint rows either way.
    bool par = p.G > 1 && p.G * p.C * p.cq * p.ck * (p.d + p.dv) > (1 << 17);
#pragma omp parallel if (par)
    {
      std::vector<float> Q(p.cq * p.d), K(p.ck * p.d), V(p.ck * p.dv), dO(p.cq * p.dv), S(p.cq * p.ck),
          dP(p.cq * p.ck), dQ(p.cq * p.d), dK(p.ck * p.d), dV(p.ck * p.dv), Pd(drop.on ? p.cq * p.ck : 0), bias(p.ck);
      SlotIndex slots;
#pragma omp for schedule(dynamic, 1)
      for (int64_t g = 0; g < p.G; ++g)
        for (int64_t c = 0; c < p.C; ++c) {
          const int32_t* qr = ch->q_rows.data.data() + (g * p.C + c) * p.cq;
          const int32_t* kr = ch->k_rows.data.data() + (g * p.C + c) * p.ck;
          const float* l = pl + (g * p.C + c) * p.cq;
          copy_rows(pq + g * p.Nq * p.d, p.d, qr, p.cq, p.d, Q.data());
          copy_rows(pk + g * p.Nk * p.d, p.d, kr, p.ck, p.d, K.data());
          copy_rows(pv + g * p.Nk * p.dv, p.dv, kr, p.ck, p.dv, V.data());
          copy_rows(go + g * p.Nq * p.dv, p.dv, qr, p.cq, p.dv, dO.data());
          if (ch->self_last_resort) slots.build(kr, p.ck, p.Nk);
          scores(p, *ch, g, c, Q.data(), K.data(), scale, S.data(), bias.data(), slots);
          tile::probs_from_lse(S.data(), p.cq, p.ck, l);  // S -> P
          // dV = P~^T dO, dS = P (dP - D + g) with D_i = sum_j P_ij dP_ij: a query row's output sums
          // over the chunks holding it, so D is this chunk's share, not dO . out
          uint64_t i0 = uint64_t((g * p.C + c) * p.cq * p.ck);
          tile::backward_scores(S.data(), {dO.data(), p.dv}, {V.data(), p.dv}, p.cq, p.ck, p.dv, nullptr,
                                gl ? gl + (g * p.C + c) * p.cq : nullptr, drop, i0, p.ck,
                                {dv ? dV.data() : nullptr, p.dv, 0.0f}, dq || dk ? dP.data() : nullptr, Pd.data());
          if (dv) add_rows(dV.data(), p.ck, p.dv, kr, dv + g * p.Nk * p.dv, p.dv);
          if ((dq || dk) && ch->self_last_resort)  // the self score is a constant: no gradient there
            for (int64_t i = 0; i < p.cq; ++i)
              for (int32_t j = slots.head[size_t(qr[i])]; j >= 0; j = slots.next[size_t(j)]) dP[i * p.ck + j] = 0;
          if (ch->self_last_resort) slots.clear(kr, p.ck);
          tile::backward_qk(dP.data(), {Q.data(), p.d}, {K.data(), p.d}, p.cq, p.ck, p.d, scale,
                            {dq ? dQ.data() : nullptr, p.d, 0.0f}, {dk ? dK.data() : nullptr, p.d, 0.0f});
          if (dq) add_rows(dQ.data(), p.cq, p.d, qr, dq + g * p.Nq * p.d, p.d);
          if (dk) add_rows(dK.data(), p.ck, p.d, kr, dk + g * p.Nk * p.d, p.d);
        }
    }
  });
  return {out, lse};
}

// y = x / n, n = sqrt(|x|^2 + eps);  dx = (g - y (g . y)) / n.
Tensor unit_normalize(const Tensor& x, float eps) {
  OpScope prof("unit_normalize");
  if (x.dim() == 0) fail("unit_normalize: needs at least one axis, got a 0-d tensor");
  int64_t d = x.shape().back(), rows = d ? x.numel() / d : 0;
  Tensor y = Tensor::empty(x.shape());
  auto inv = std::make_shared<std::vector<float>>(size_t(rows));
  const float* px = x.data();
  float* py = y.data();
#pragma omp parallel for if (x.numel() > (1 << 15))
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t j = 0; j < d; ++j) s += double(px[r * d + j]) * px[r * d + j];
    float iv = float(1.0 / std::sqrt(s + eps));
    (*inv)[r] = iv;
    for (int64_t j = 0; j < d; ++j) py[r * d + j] = px[r * d + j] * iv;
  }
  if (needs_grad({&x}))
    attach(y, "unit_normalize", {x}, [x, inv, d, rows](const Tensor& y) {
      const float *py = y.data(), *g = y.grad_data();
      float* gx = x.grad_data();
#pragma omp parallel for if (x.numel() > (1 << 15))
      for (int64_t r = 0; r < rows; ++r) {
        float dot = 0;
        for (int64_t j = 0; j < d; ++j) dot += g[r * d + j] * py[r * d + j];
        for (int64_t j = 0; j < d; ++j) gx[r * d + j] += (g[r * d + j] - py[r * d + j] * dot) * (*inv)[r];
      }
    });
  return y;
}

IntTensor top_members(const Tensor& mu, const Tensor& x, const std::vector<uint8_t>& pad, int64_t w) {
  if (mu.dim() != 3 || x.dim() != 3 || x.size(2) != mu.size(2) || x.size(0) % mu.size(0) != 0 || w < 1 ||
      w > x.size(1) || int64_t(pad.size()) != x.size(0) / mu.size(0) * x.size(1))
    fail("top_members: centroids " + shape_str(mu.shape()) + ", rows " + shape_str(x.shape()) + ", w " +
         std::to_string(w) + " must be [H,C,d], [G,N,d] (G a multiple of H, pad [G/H,N]) and 1 <= w <= N");
  const int64_t H = mu.size(0), C = mu.size(1), d = mu.size(2), G = x.size(0), N = x.size(1);
  IntTensor rows({G, C, w}, std::vector<int32_t>(size_t(G * C * w)));
  count_matmul_flops(2.0 * double(G * C) * double(N * d));  // the similarities, one [C,N] product per group
#pragma omp parallel if (G > 1 && G * N * C * d > (1 << 16))
  {
    std::vector<float> sim(size_t(C * N));  // [C,N]: centroid c's similarity to every row
    std::vector<std::pair<float, int32_t>> ranked(size_t(N), {0.0f, 0});  // (similarity, row): contiguous for the selection
#pragma omp for schedule(dynamic, 1)
    for (int64_t g = 0; g < G; ++g) {
      const uint8_t* padded = pad.data() + (g / H) * N;
      sgemm(false, true, C, N, d, 1.0f, mu.data() + (g % H) * C * d, d, x.data() + g * N * d, d, 0.0f, sim.data(), N);
      for (int64_t c = 0; c < C; ++c) {
        // The w rows most similar to centroid c; padding ranks last, ties by position.
        const float* score = sim.data() + c * N;
        for (int64_t n = 0; n < N; ++n) ranked[size_t(n)] = {padded[n] ? kNegInf : score[n], int32_t(n)};
        std::nth_element(ranked.begin(), ranked.begin() + (w - 1), ranked.end(), [](const auto& a, const auto& z) {
          return a.first > z.first || (a.first == z.first && a.second < z.second);
        });
        int32_t* dst = rows.data.data() + (g * C + c) * w;
        for (int64_t i = 0; i < w; ++i) dst[i] = ranked[size_t(i)].second;
        std::sort(dst, dst + w);  // position order inside the cluster
      }
    }
  }
  return rows;
}

}  // namespace az
