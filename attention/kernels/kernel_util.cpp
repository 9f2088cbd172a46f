// Fused kernelised attention and feature maps (see kernel_util.h).
#include "attention/kernels/kernel_util.h"


#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "attention/kernels/tile.h"
#include "autograd/internal.h"
#include "autograd/runtime/blas.h"

namespace az {

namespace {

// sin x and cos x together, vectorisable (about 1e-7 absolute for |x| < 200):
// x = j pi/2 + r with pi/2 in three parts (Cephes), sin r and cos r by their
// Cephes polynomials on [-pi/4, pi/4], then the quadrant j mod 4 swaps and signs.
inline void sincos_fast(float x, float& s, float& c) {
  float j = (x * 0.63661977236758134f + 12582912.0f) - 12582912.0f;
  float r = x - j * 1.5703125f;
  r -= j * 4.837512969970703125e-4f;
  r -= j * 7.54978995489188216e-8f;
  float r2 = r * r;
  float sr = r + r * r2 * (-1.6666654611e-1f + r2 * (8.3321608736e-3f + r2 * -1.9515295891e-4f));
  float cr = 1.0f - 0.5f * r2 + r2 * r2 * (4.166664568298827e-2f + r2 * (-1.388731625493765e-3f + r2 * 2.443315711809948e-5f));
  int q = int(j) & 3;
  float ss = (q & 1) ? cr : sr, cc = (q & 1) ? sr : cr;
  s = (q & 2) ? -ss : ss;         // sin(r + q pi/2)
  c = ((q + 1) & 2) ? -cc : cc;   // cos(r + q pi/2)
}

enum Mode { kFull = 0, kCausal = 1, kAnticausal = 2 };

// The one primitive, with A, B [N,p] and C [N,r]:
//   O_i (+)= sum_{j in S(i)} (A_i . B_j) C_j,  S(i) = all j | j <= i | j >= i.
// Full: O = A (B^T C).  Causal/anticausal walk chunks of L rows forwards or
// backwards: O_c += A_c S + mask(A_c B_c^T) C_c, then S += B_c^T C_c, where S
// holds B^T C over the chunks already passed.  Cost N p r + N L (p + r).
void kprod(Mode mode, const float* A, const float* B, const float* C, float* O, int64_t N, int64_t p, int64_t r,
           int64_t chunk, bool accumulate) {
  std::vector<float> S(size_t(p * r), 0.0f);
  float beta = accumulate ? 1.0f : 0.0f;
  if (mode == kFull) {
    sgemm_dense(true, false, p, r, N, B, C, 0.0f, S.data());
    sgemm_dense(false, false, N, r, p, A, S.data(), beta, O);
    return;
  }
  std::vector<float> T(size_t(chunk * chunk));
  int64_t nc = (N + chunk - 1) / chunk;
  for (int64_t t = 0; t < nc; ++t) {
    int64_t c = mode == kCausal ? t : nc - 1 - t;
    int64_t s = c * chunk, L = std::min(chunk, N - s);
    const float *Ac = A + s * p, *Bc = B + s * p, *Cc = C + s * r;
    float* Oc = O + s * r;
    sgemm_dense(false, false, L, r, p, Ac, S.data(), beta, Oc);  // keys in the chunks passed (S = 0 at first)
    sgemm_dense(false, true, L, L, p, Ac, Bc, 0.0f, T.data());   // keys inside the chunk, masked
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = 0; j < L; ++j)
        if (mode == kCausal ? j > i : j < i) T[size_t(i * L + j)] = 0.0f;
    sgemm_dense(false, false, L, r, L, T.data(), Cc, 1.0f, Oc);
    sgemm_dense(true, false, p, r, L, Bc, Cc, 1.0f, S.data());
  }
}

// The multiply-adds of one kprod, times 2: the bench's FLOP count (count_matmul_flops).
double kprod_flops(Mode mode, int64_t N, int64_t p, int64_t r, int64_t chunk) {
  double f = 2.0 * 2.0 * double(N) * double(p) * double(r);
  if (mode != kFull) f += 2.0 * double(N) * double(std::min(chunk, N)) * double(p + r);
  return f;
}

// Runs f(g) for each of G independent problems, in parallel when worth it
// (OpenBLAS's OpenMP build runs single-threaded inside the region).
template <class F>
void for_groups(int64_t G, int64_t work, F f) {
#pragma omp parallel for schedule(dynamic, 1) if (G > 1 && work > (1 << 16))
  for (int64_t g = 0; g < G; ++g) f(g);
}

std::string shp(const Tensor& t) { return shape_str(t.shape()); }

// x's dims before the last two.
Shape lead_of(const Tensor& x) { return Shape(x.shape().begin(), x.shape().end() - 2); }

// [v | 1]: the extra column of ones makes the same product give the normaliser.
void augment(const float* v, int64_t N, int64_t d, float* out) {
  for (int64_t i = 0; i < N; ++i) {
    std::copy(v + i * d, v + (i + 1) * d, out + i * (d + 1));
    out[i * (d + 1) + d] = 1.0f;
  }
}

// Rows of the [G,N,*] problem g that are padding (key_pad [B,N], G = B*H), or null.
const float* pad_rows(const Tensor& key_pad, int64_t g, int64_t G, int64_t N) {
  if (!key_pad.defined()) return nullptr;
  int64_t B = key_pad.size(0);
  return key_pad.data() + (g / (G / B)) * N;
}

void check_pad(const char* op, const Tensor& u, const Tensor& key_pad) {
  if (!key_pad.defined()) return;
  if (u.dim() != 4 || key_pad.dim() != 2 || key_pad.size(0) != u.size(0) || key_pad.size(1) != u.size(2))
    fail(std::string(op) + ": key_pad " + shp(key_pad) + " must be [B,N] for features " + shp(u) + " [B,H,N,m]");
}
}  // namespace

// Forward: O' = A [V | 1] with A = phi_q phi_k^T (masked when causal), never
// stored; den_i = O'_i[d], out_i = O'_i[:d] / nrm(den_i).
// Backward, with dO'_i = [g_i / nrm_i, -(g_i . out_i) / nrm_i] (0 in the last
// slot where the clamp is active), the three gradients are the same primitive:
//   dphi_q_i = sum_{j<=i} (dO'_i . V'_j) phi_k_j      kprod(dO', V', phi_k)
//   dphi_k_j = sum_{i>=j} (V'_j . dO'_i) phi_q_i      kprod(V', dO', phi_q), reversed
//   dV'_j    = sum_{i>=j} (phi_k_j . phi_q_i) dO'_i   kprod(phi_k, phi_q, dO'), reversed
Tensor kernel_attention(const Tensor& phi_q, const Tensor& phi_k, const Tensor& v, bool causal, float eps,
                        KernelNorm norm, int64_t chunk) {
  OpScope prof("kernel_attention");
  if (phi_q.dim() < 2 || phi_q.shape() != phi_k.shape() || v.dim() != phi_q.dim() || lead_of(v) != lead_of(phi_q) ||
      v.size(-2) != phi_q.size(-2))
    fail("kernel_attention: phi_q " + shp(phi_q) + ", phi_k " + shp(phi_k) + ", v " + shp(v) +
         " must be [..,N,m], [..,N,m], [..,N,d] with the same leading dims");
  if (chunk < 1) fail("kernel_attention: chunk " + std::to_string(chunk) + " must be at least 1");
  const int64_t N = phi_q.size(-2), m = phi_q.size(-1), d = v.size(-1), G = numel_of(lead_of(v));
  const Mode mode = causal ? kCausal : kFull, back = causal ? kAnticausal : kFull;
  Tensor out = Tensor::empty(v.shape()), den = Tensor::empty({G, N});
  // Non-causal: S = phi_k^T [V 1] [m, d+1] per group, kept for the backward (dQ = dOa S^T).
  std::vector<float> S_full(mode == kFull ? size_t(G * m * (d + 1)) : 0);
  const float *Q = phi_q.data(), *K = phi_k.data(), *V = v.data();
  float *O = out.data(), *Dn = den.data();
  auto nrm = [eps, norm](float dn) { return norm == KernelNorm::add_eps ? dn + eps : std::max(dn, eps); };
  count_matmul_flops(double(G) * kprod_flops(mode, N, m, d + 1, chunk));
  for_groups(G, N * m * d, [&](int64_t g) {
    std::vector<float> Va(size_t(N * (d + 1))), Oa(size_t(N * (d + 1)));
    augment(V + g * N * d, N, d, Va.data());
    if (mode == kFull) {  // kprod's full form, keeping S
      float* Sg = S_full.data() + g * m * (d + 1);
      sgemm_dense(true, false, m, d + 1, N, K + g * N * m, Va.data(), 0.0f, Sg);
      sgemm_dense(false, false, N, d + 1, m, Q + g * N * m, Sg, 0.0f, Oa.data());
    } else {
      kprod(mode, Q + g * N * m, K + g * N * m, Va.data(), Oa.data(), N, m, d + 1, chunk, false);
    }
    for (int64_t i = 0; i < N; ++i) {
      float dn = Oa[size_t(i * (d + 1) + d)], inv = 1.0f / nrm(dn);
      Dn[g * N + i] = dn;
      for (int64_t t = 0; t < d; ++t) O[(g * N + i) * d + t] = Oa[size_t(i * (d + 1) + t)] * inv;
    }
  });
  if (needs_grad({&phi_q, &phi_k, &v}))
    attach(out, "kernel_attention", {phi_q, phi_k, v},
           [phi_q, phi_k, v, den, S_full = std::move(S_full), N, m, d, G, mode, back, eps, norm, chunk, nrm](const Tensor& out) {
             const float *Q = phi_q.data(), *K = phi_k.data(), *V = v.data(), *Y = out.data(), *Gr = out.grad_data(),
                         *Dn = den.data();
             float* dQ = phi_q.requires_grad() ? phi_q.grad_data() : nullptr;
             float* dK = phi_k.requires_grad() ? phi_k.grad_data() : nullptr;
             float* dV = v.requires_grad() ? v.grad_data() : nullptr;
             // Causal: one kprod per gradient.  Not causal: the products below, 2 N m (d+1) each: dQ, U
             // (when dK or dV is wanted), dK, dV; at most four, not three kprods' six.
             const int grads = (dQ != nullptr) + (dK != nullptr) + (dV != nullptr);
             count_matmul_flops(mode == kFull ? 2.0 * double(G) * double(N) * double(m) * double(d + 1) * (grads + (dK || dV))
                                              : double(G) * kprod_flops(back, N, m, d + 1, chunk) * grads);
             for_groups(G, N * m * d, [&](int64_t g) {
               std::vector<float> Va(size_t(N * (d + 1))), dOa(size_t(N * (d + 1)));
               augment(V + g * N * d, N, d, Va.data());
               for (int64_t i = 0; i < N; ++i) {
                 float dn = Dn[g * N + i], inv = 1.0f / nrm(dn), dot = 0;
                 const float *gi = Gr + (g * N + i) * d, *yi = Y + (g * N + i) * d;
                 for (int64_t t = 0; t < d; ++t) {
                   dOa[size_t(i * (d + 1) + t)] = gi[t] * inv;
                   dot += gi[t] * yi[t];
                 }
                 bool clamped = norm == KernelNorm::clamp && dn < eps;
                 dOa[size_t(i * (d + 1) + d)] = clamped ? 0.0f : -dot * inv;
               }
               const float *Qg = Q + g * N * m, *Kg = K + g * N * m;
               if (mode == kFull) {
                 // Non-causal, four products instead of kprod's six: with S = phi_k^T Va from
                 // the forward and U = phi_q^T dOa [m, d+1] (which dK and dV share),
                 //   dQ += dOa S^T,  dK += Va U^T,  dVa = phi_k U.
                 const float* Sg = S_full.data() + g * m * (d + 1);
                 if (dQ) sgemm_dense(false, true, N, m, d + 1, dOa.data(), Sg, 1.0f, dQ + g * N * m);
                 if (!dK && !dV) return;
                 std::vector<float> U(size_t(m * (d + 1)));
                 sgemm_dense(true, false, m, d + 1, N, Qg, dOa.data(), 0.0f, U.data());
                 if (dK) sgemm_dense(false, true, N, m, d + 1, Va.data(), U.data(), 1.0f, dK + g * N * m);
                 if (dV) {
                   std::vector<float> dVa(size_t(N * (d + 1)));
                   sgemm_dense(false, false, N, d + 1, m, Kg, U.data(), 0.0f, dVa.data());
                   float* dv = dV + g * N * d;
                   for (int64_t i = 0; i < N; ++i)
                     for (int64_t t = 0; t < d; ++t) dv[i * d + t] += dVa[size_t(i * (d + 1) + t)];
                 }
                 return;
               }
               if (dQ) kprod(mode, dOa.data(), Va.data(), Kg, dQ + g * N * m, N, d + 1, m, chunk, true);
               if (dK) kprod(back, Va.data(), dOa.data(), Qg, dK + g * N * m, N, d + 1, m, chunk, true);
               if (dV) {
                 std::vector<float> dVa(size_t(N * (d + 1)));
                 kprod(back, Kg, Qg, dOa.data(), dVa.data(), N, m, d + 1, chunk, false);
                 float* dv = dV + g * N * d;
                 for (int64_t i = 0; i < N; ++i)
                   for (int64_t t = 0; t < d; ++t) dv[i * d + t] += dVa[size_t(i * (d + 1) + t)];
               }
             });
           });
  return out;
}

// Per row i (chunks of R rows): s = scale q_i k^T, p = softmax(s | mask),
// lse_i = log sum exp(s); out_i = (p * drop) v.  Backward, with P recomputed
// as exp(s - lse) and Delta_i = dO_i . out_i (= sum_j dP_ij P_ij, dropout included):
//   dV += (P * drop)^T dO,  dP = (dO v^T) * drop,  dS = P (dP - Delta),
//   dq = scale dS k,  dk += scale dS^T q.
Tensor softmax_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& key_pad, float scale,
                         float dropout_p, bool training, bool causal, Rng& rng) {
  OpScope prof("softmax_attention");
  if (q.dim() < 2 || k.dim() != q.dim() || v.dim() != q.dim() || lead_of(k) != lead_of(q) || lead_of(v) != lead_of(q) ||
      k.size(-2) != v.size(-2) || k.size(-1) != q.size(-1))
    fail("softmax_attention: q " + shp(q) + ", k " + shp(k) + ", v " + shp(v) +
         " must be [..,N,d], [..,M,d], [..,M,dv] with the same leading dims");
  const int64_t N = q.size(-2), M = k.size(-2), d = q.size(-1), dv = v.size(-1), G = numel_of(lead_of(q));
  if (key_pad.defined() && (key_pad.dim() != 2 || key_pad.size(1) != M || q.size(0) != key_pad.size(0)))
    fail("softmax_attention: key_pad " + shp(key_pad) + " must be [B,M] for keys " + shp(k));
  if (dropout_p < 0 || dropout_p >= 1) fail("softmax_attention: dropout must be in [0,1), got " + std::to_string(dropout_p));
  if (causal && M != N) fail("softmax_attention: causal needs as many keys as queries, got " + shp(q) + " and " + shp(k));
  const int64_t R = 128;  // rows per chunk: the scratch is R x M
  // Dropout entry (g, i, j) is number (g N + i) M + j, as dropout() numbers the [..,N,M] weights.
  const tile::Dropout drop = tile::Dropout::draw(dropout_p, training, rng, q.dim() > 2 ? q.size(0) : 0, G * N * M);
  // The rows and columns that meet: every key but the padded ones (pad[j] = 1), and (causal) j <= i.
  auto score_rows = [=](const float* Q, const float* K, const float* pad, int64_t r0, int64_t rows, float* S) {
    tile::scores({Q, d}, {K, d}, rows, M, d, scale, S);
    tile::mask_columns(S, rows, M, pad);
    if (causal) tile::mask_causal(S, rows, M, r0, 0);
  };
  Shape os = v.shape();
  os[os.size() - 2] = N;
  Tensor out = Tensor::empty(os), lse = Tensor::empty({G, N});
  count_matmul_flops(2.0 * double(G) * double(N) * double(M) * double(d + dv));  // S = q k^T, O = P v
  const float *Q = q.data(), *K = k.data(), *V = v.data();
  float *O = out.data(), *L = lse.data();
  for_groups(G, N * M * d, [&](int64_t g) {
    std::vector<float> S(size_t(R * M));
    const float* pad = pad_rows(key_pad, g, G, M);
    for (int64_t r0 = 0; r0 < N; r0 += R) {
      int64_t rows = std::min(R, N - r0);
      score_rows(Q + (g * N + r0) * d, K + g * M * d, pad, r0, rows, S.data());
      tile::softmax_rows(S.data(), rows, M, L + g * N + r0);
      if (drop.on) drop.apply(S.data(), S.data(), rows, M, uint64_t((g * N + r0) * M), M);
      tile::gemm(false, false, rows, dv, M, 1.0f, S.data(), M, V + g * M * dv, dv, 0.0f, O + (g * N + r0) * dv, dv);
    }
  });
  if (needs_grad({&q, &k, &v}))
    attach(out, "softmax_attention", {q, k, v},
           [q, k, v, key_pad, lse, score_rows, drop, N, M, d, dv, G, R, scale](const Tensor& out) {
             const float *Q = q.data(), *K = k.data(), *V = v.data(), *O = out.data(), *dO = out.grad_data(),
                         *L = lse.data();
             float* dQ = q.requires_grad() ? q.grad_data() : nullptr;
             float* dK = k.requires_grad() ? k.grad_data() : nullptr;
             float* dV = v.requires_grad() ? v.grad_data() : nullptr;
             // dV, dP, dQ, dK as model FLOPs (the recomputed q k^T is not counted, as flash does)
             count_matmul_flops(2.0 * double(G) * double(N) * double(M) * double(2 * d + 2 * dv));
             for_groups(G, N * M * d, [&](int64_t g) {
               std::vector<float> S(size_t(R * M)), dS(size_t(R * M)), Pd(drop.on ? size_t(R * M) : 0), D(static_cast<size_t>(R));
               const float* pad = pad_rows(key_pad, g, G, M);
               for (int64_t r0 = 0; r0 < N; r0 += R) {
                 int64_t rows = std::min(R, N - r0);
                 const float *Qc = Q + (g * N + r0) * d, *dOc = dO + (g * N + r0) * dv;
                 score_rows(Qc, K + g * M * d, pad, r0, rows, S.data());
                 tile::probs_from_lse(S.data(), rows, M, L + g * N + r0);  // S <- P
                 tile::row_dots({dOc, dv}, {O + (g * N + r0) * dv, dv}, rows, dv, D.data());
                 tile::backward_scores(S.data(), {dOc, dv}, {V + g * M * dv, dv}, rows, M, dv, D.data(), nullptr, drop,
                                       uint64_t((g * N + r0) * M), M, {dV ? dV + g * M * dv : nullptr, dv, 1.0f},
                                       dQ || dK ? dS.data() : nullptr, Pd.data());
                 if (!dQ && !dK) continue;
                 tile::backward_qk(dS.data(), {Qc, d}, {K + g * M * d, d}, rows, M, d, scale,
                                   {dQ ? dQ + (g * N + r0) * d : nullptr, d, 1.0f}, {dK ? dK + g * M * d : nullptr, d, 1.0f});
               }
             });
           });
  return out;
}

Tensor kernel_weights(const Tensor& phi_q, const Tensor& phi_k, bool causal, float eps, KernelNorm norm) {
  if (phi_q.dim() < 2 || phi_q.shape() != phi_k.shape())
    fail("kernel_weights: phi_q " + shp(phi_q) + " and phi_k " + shp(phi_k) + " must both be [..,N,m]");
  const int64_t N = phi_q.size(-2), m = phi_q.size(-1), G = numel_of(lead_of(phi_q));
  Shape s = lead_of(phi_q);
  s.push_back(N);
  s.push_back(N);
  Tensor w = Tensor::empty(s);
  for (int64_t g = 0; g < G; ++g) {
    float* W = w.data() + g * N * N;
    sgemm_dense(false, true, N, N, m, phi_q.data() + g * N * m, phi_k.data() + g * N * m, 0.0f, W);
    for (int64_t i = 0; i < N; ++i) {
      float dn = 0;
      for (int64_t j = 0; j < N; ++j) {
        if (causal && j > i) W[i * N + j] = 0.0f;
        dn += W[i * N + j];
      }
      float inv = 1.0f / (norm == KernelNorm::add_eps ? dn + eps : std::max(dn, eps));
      for (int64_t j = 0; j < N; ++j) W[i * N + j] *= inv;
    }
  }
  return w;
}

// y = r e, e = exp(u - h - c), h = s^2 |x|^2 / 2, c = the max of u - h (per row
// for queries, where it is max(u) - h and h cancels; per example and head for
// keys), or the constant `shift` when not stabilised.  With t = r e g:
//   du = t,   dx = -s^2 x sum_j t_j,   dc = -sum t, and c = u_at - h_at passes
// dc to u and x at its argmax.  In attention dc sums to zero (c cancels), but
// keeping it makes this op's own gradient exact.
Tensor favor_features(const Tensor& u, const Tensor& x, float s, bool is_query, const Tensor& key_pad, bool stabilise,
                      float shift) {
  OpScope prof("favor_features");
  if (u.dim() < 2 || x.dim() != u.dim() || lead_of(x) != lead_of(u) || x.size(-2) != u.size(-2))
    fail("favor_features: u " + shp(u) + " and x " + shp(x) + " must be [..,N,m] and [..,N,d]");
  Tensor pad = is_query ? Tensor() : key_pad;
  check_pad("favor_features", u, pad);
  const int64_t N = u.size(-2), m = u.size(-1), d = x.size(-1), G = numel_of(lead_of(u));
  const float r = 1.0f / std::sqrt(float(m)), s2 = s * s;
  Tensor y = Tensor::empty(u.shape());
  // where each c was taken (flat index into u; -1 when c is the constant): per row for queries, per group for keys
  auto arg = std::make_shared<std::vector<int64_t>>(size_t(is_query ? G * N : G), -1);
  const float *U = u.data(), *X = x.data();
  float* Y = y.data();
  for_groups(G, N * m, [&](int64_t g) {
    const float* P = pad_rows(pad, g, G, N);
    std::vector<float> h(size_t(N), 0.0f);  // s^2 |x_n|^2 / 2
    for (int64_t n = 0; n < N; ++n) {
      const float* xn = X + (g * N + n) * d;
      float hn = 0;
      for (int64_t t = 0; t < d; ++t) hn += xn[t] * xn[t];
      h[size_t(n)] = 0.5f * s2 * hn;
    }
    float c = shift;
    if (!is_query && stabilise) {  // the largest exponent over the real keys of this head
      int64_t at = -1;
      float best = 0;
      for (int64_t n = 0; n < N; ++n) {
        if (P && P[n] != 0) continue;
        const float* un = U + (g * N + n) * m;
        int64_t j = std::max_element(un, un + m) - un;
        if (at < 0 || un[j] - h[size_t(n)] > best) at = (g * N + n) * m + j, best = un[j] - h[size_t(n)];
      }
      c = at >= 0 ? best : 0.0f;  // at < 0: every key is padding
      (*arg)[size_t(g)] = at;
    }
    for (int64_t n = 0; n < N; ++n) {
      const float* un = U + (g * N + n) * m;
      float* yn = Y + (g * N + n) * m;
      if (P && P[n] != 0) {
        std::fill(yn, yn + m, 0.0f);
        continue;
      }
      float off = h[size_t(n)] + c;
      if (is_query && stabilise) {  // c = max(u) - h: the offset is max(u), h cancels exactly
        int64_t j = std::max_element(un, un + m) - un;
        off = un[j];
        (*arg)[size_t(g * N + n)] = (g * N + n) * m + j;
      }
      vec::exp_sum(yn, un, off, m);  // yn = exp(un - off), then times r
      vec::scale(yn, r, m);
    }
  });
  if (needs_grad({&u, &x}))
    attach(y, "favor_features", {u, x}, [u, x, pad, arg, is_query, N, m, d, G, s2](const Tensor& y) {
      const float *X = x.data(), *Y = y.data(), *Gr = y.grad_data();
      float* dU = u.requires_grad() ? u.grad_data() : nullptr;
      float* dX = x.requires_grad() ? x.grad_data() : nullptr;
      // c = u_at - h_n (n the row of at) passes dc on: u_at gets dc, x_n gets dc dc/dx_n = -s^2 x_n dc
      auto to_c = [&](int64_t at, float dc) {
        if (at < 0) return;
        if (dU) dU[at] += dc;
        if (dX)
          for (int64_t k = 0, n = at / m; k < d; ++k) dX[n * d + k] -= s2 * dc * X[n * d + k];
      };
      for_groups(G, N * m, [&](int64_t g) {
        const float* P = pad_rows(pad, g, G, N);
        float group_tot = 0;
        for (int64_t n = 0; n < N; ++n) {
          if (P && P[n] != 0) continue;
          const float *yn = Y + (g * N + n) * m, *gn = Gr + (g * N + n) * m;
          float tot = 0;
          for (int64_t j = 0; j < m; ++j) {
            float t = gn[j] * yn[j];  // g r e
            tot += t;
            if (dU) dU[(g * N + n) * m + j] += t;
          }
          if (dX)
            for (int64_t k = 0; k < d; ++k) dX[(g * N + n) * d + k] -= s2 * tot * X[(g * N + n) * d + k];
          if (is_query) to_c((*arg)[size_t(g * N + n)], -tot);  // the row's c
          group_tot += tot;
        }
        if (!is_query) to_c((*arg)[size_t(g)], -group_tot);  // the group's c
      });
    });
  return y;
}

// y = r [sin u, cos u]:  du_j = g_j y_{m+j} - g_{m+j} y_j  (zero rows stay zero).
Tensor sincos_features(const Tensor& u, const Tensor& key_pad) {
  OpScope prof("sincos_features");
  if (u.dim() < 2) fail("sincos_features: u " + shp(u) + " must be [..,N,m]");
  check_pad("sincos_features", u, key_pad);
  const int64_t N = u.size(-2), m = u.size(-1), G = numel_of(lead_of(u));
  const float r = 1.0f / std::sqrt(float(m));
  Shape s = u.shape();
  s.back() = 2 * m;
  Tensor y = Tensor::empty(s);
  const float* U = u.data();
  float* Y = y.data();
  for_groups(G, N * m, [&](int64_t g) {
    const float* P = pad_rows(key_pad, g, G, N);
    for (int64_t n = 0; n < N; ++n) {
      const float* un = U + (g * N + n) * m;
      float* yn = Y + (g * N + n) * 2 * m;
      if (P && P[n] != 0) {
        std::fill(yn, yn + 2 * m, 0.0f);
        continue;
      }
#pragma omp simd
      for (int64_t j = 0; j < m; ++j) {
        float sn, cs;
        sincos_fast(un[j], sn, cs);
        yn[j] = r * sn;
        yn[m + j] = r * cs;
      }
    }
  });
  if (needs_grad({&u}))
    attach(y, "sincos_features", {u}, [u, m](const Tensor& y) {
      const float *Y = y.data(), *Gr = y.grad_data();
      float* dU = u.grad_data();
      int64_t rows = u.numel() / m;
#pragma omp parallel for if (u.numel() > (1 << 15))
      for (int64_t n = 0; n < rows; ++n) {
        const float *yn = Y + n * 2 * m, *gn = Gr + n * 2 * m;
        for (int64_t j = 0; j < m; ++j) dU[n * m + j] += gn[j] * yn[m + j] - gn[m + j] * yn[j];
      }
    });
  return y;
}

// y = elu(x) + 1 = x + 1 (x > 0) or e^x:  dx = g (x > 0 ? 1 : y).
Tensor elu1_features(const Tensor& x, const Tensor& key_pad) {
  OpScope prof("elu1_features");
  check_pad("elu1_features", x, key_pad);
  const int64_t N = x.size(-2), d = x.size(-1), G = numel_of(lead_of(x));
  Tensor y = Tensor::empty(x.shape());
  const float* X = x.data();
  float* Y = y.data();
  for_groups(G, N * d, [&](int64_t g) {
    const float* P = pad_rows(key_pad, g, G, N);
    for (int64_t n = 0; n < N; ++n) {
      const float* xn = X + (g * N + n) * d;
      float* yn = Y + (g * N + n) * d;
      bool padded = P && P[n] != 0;  // padded keys get no features
      if (padded)
        std::fill(yn, yn + d, 0.0f);
      else
        vec::elu1(xn, yn, d);
    }
  });
  if (needs_grad({&x}))
    attach(y, "elu1_features", {x}, [x](const Tensor& y) {
      const float *X = x.data(), *Y = y.data(), *Gr = y.grad_data();
      float* dX = x.grad_data();
      int64_t n = x.numel();
#pragma omp parallel for simd if (n > (1 << 15))
      for (int64_t i = 0; i < n; ++i) dX[i] += Gr[i] * (X[i] > 0 ? (Y[i] != 0 ? 1.0f : 0.0f) : Y[i]);  // padded rows: y = 0
    });
  return y;
}

// y_nt = exp(x_nt - max_n) / sum_n exp(x_nt - max_n) over the real positions n of column t;
// dx_nt = y_nt (g_nt - sum_n g_nt y_nt).
Tensor softmax_positions(const Tensor& x, const Tensor& key_pad) {
  OpScope prof("softmax_positions");
  check_pad("softmax_positions", x, key_pad);
  const int64_t N = x.size(-2), d = x.size(-1), G = numel_of(lead_of(x));
  const float ninf = -std::numeric_limits<float>::infinity();
  Tensor y = Tensor::empty(x.shape());
  const float* X = x.data();
  float* Y = y.data();
  for_groups(G, N * d, [&](int64_t g) {
    const float* P = pad_rows(key_pad, g, G, N);
    const float *Xg = X + g * N * d;
    float* Yg = Y + g * N * d;
    std::vector<float> mx(size_t(d), ninf), z(size_t(d), 0.0f);
    for (int64_t n = 0; n < N; ++n)
      if (!P || P[n] == 0)
        for (int64_t t = 0; t < d; ++t) mx[size_t(t)] = std::max(mx[size_t(t)], Xg[n * d + t]);
    for (int64_t n = 0; n < N; ++n) {
      float keep = P && P[n] != 0 ? 0.0f : 1.0f;
      if (keep == 0 || mx[0] == ninf) {  // padded row (or nothing real at all)
        std::fill(Yg + n * d, Yg + (n + 1) * d, 0.0f);
        continue;
      }
      vec::exp_shift_acc(Yg + n * d, Xg + n * d, mx.data(), z.data(), d);
    }
    for (int64_t t = 0; t < d; ++t) z[size_t(t)] = z[size_t(t)] > 0 ? 1.0f / z[size_t(t)] : 0.0f;
    for (int64_t n = 0; n < N; ++n)
#pragma omp simd
      for (int64_t t = 0; t < d; ++t) Yg[n * d + t] *= z[size_t(t)];
  });
  if (needs_grad({&x}))
    attach(y, "softmax_positions", {x}, [x, N, d, G](const Tensor& y) {
      const float *Y = y.data(), *Gr = y.grad_data();
      float* dX = x.grad_data();
      for_groups(G, N * d, [&](int64_t g) {
        const float *Yg = Y + g * N * d, *Gg = Gr + g * N * d;
        float* dXg = dX + g * N * d;
        std::vector<float> dot(size_t(d), 0.0f);
        for (int64_t n = 0; n < N; ++n)
#pragma omp simd
          for (int64_t t = 0; t < d; ++t) dot[size_t(t)] += Gg[n * d + t] * Yg[n * d + t];
        for (int64_t n = 0; n < N; ++n)
#pragma omp simd
          for (int64_t t = 0; t < d; ++t) dXg[n * d + t] += Yg[n * d + t] * (Gg[n * d + t] - dot[size_t(t)]);
      });
    });
  return y;
}

// y = x / n, n = sqrt(|x|^2 + eps^2):  dx = (g - y (g . y)) / n.
Tensor l2_normalize(const Tensor& x, float eps) {
  OpScope prof("l2_normalize");
  if (x.dim() < 1) fail("l2_normalize: needs at least one axis, got " + shp(x));
  const int64_t d = x.size(-1), rows = d ? x.numel() / d : 0;
  Tensor y = Tensor::empty(x.shape());
  const float* X = x.data();
  float* Y = y.data();
#pragma omp parallel for if (x.numel() > (1 << 15))
  for (int64_t n = 0; n < rows; ++n) {
    float ss = eps * eps;
    for (int64_t t = 0; t < d; ++t) ss += X[n * d + t] * X[n * d + t];
    float inv = 1.0f / std::sqrt(ss);
    for (int64_t t = 0; t < d; ++t) Y[n * d + t] = X[n * d + t] * inv;
  }
  if (needs_grad({&x}))
    attach(y, "l2_normalize", {x}, [x, d, rows, eps](const Tensor& y) {
      const float *X = x.data(), *Y = y.data(), *Gr = y.grad_data();
      float* dX = x.grad_data();
#pragma omp parallel for if (x.numel() > (1 << 15))
      for (int64_t n = 0; n < rows; ++n) {
        float ss = eps * eps, dot = 0;
        for (int64_t t = 0; t < d; ++t) ss += X[n * d + t] * X[n * d + t], dot += Gr[n * d + t] * Y[n * d + t];
        float inv = 1.0f / std::sqrt(ss);
        for (int64_t t = 0; t < d; ++t) dX[n * d + t] += (Gr[n * d + t] - Y[n * d + t] * dot) * inv;
      }
    });
  return y;
}

bool redraw_due(const Tensor& counter, int64_t interval, bool training) {
  // Inside a training step's shards the schedule is kept by before_step, once per step.
  if (!training || interval <= 0 || !grad_enabled() || current_shard() >= 0) return false;
  float& calls = counter.data()[0];  // training calls since the last draw
  bool due = calls >= float(interval);
  if (due) calls = 0;
  calls += 1;
  return due;
}

FeatureMapAttention::FeatureMapAttention(const AttentionConfig& c, std::string legend, float eps, KernelNorm norm)
    : Attention(c), legend_(std::move(legend)), eps_(eps), norm_(norm) {
  proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
}

Tensor FeatureMapAttention::forward(const Tensor& x, const Tensor& key_pad) {
  auto h = feature_map(x, key_pad);
  return proj_->output(kernel_attention(h.q, h.k, h.v, cfg_.causal, eps_, norm_));
}

Pattern FeatureMapAttention::pattern(const Tensor& x, const Tensor& key_pad) {
  return all_keys_pattern(x.size(1), key_pad, cfg_.causal, legend_);
}

Tensor FeatureMapAttention::attention_weights(const Tensor& x, const Tensor& key_pad) {
  NoGradGuard ng;
  auto h = feature_map(x, key_pad);
  Tensor w = kernel_weights(h.q, h.k, cfg_.causal, eps_, norm_);
  return reshape(w, {w.size(1), w.size(2), w.size(3)});
}

}  // namespace az
