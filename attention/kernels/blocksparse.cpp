// The block-sparse attention kernel, the band layouts and the common variant
// body (see blocksparse.h).
//
// Forward, per (example, head, group), in parallel:
//   S = Q_r K_c^T * scale;  P = softmax(S | label != 0, key not padded);  O_r = P V_c.
// Backward, per (example, head) in parallel (groups of one head share key rows,
// so their dK, dV accumulate without races), per group:
//   dV_c += P^T dO_r;  dP = dO_r V_c^T;  dS = P * (dP - D),  D_i = dO_i . O_i
//   (the softmax backward, since sum_j P_ij dP_ij = dO_i . O_i);
//   dQ_r += dS K_c * scale;  dK_c += dS^T Q_r * scale.
// With dropout, O uses P~ = P * keep / (1-p), so dV uses P~ and dP is multiplied
// by keep / (1-p); D = dO . O still holds.  Rows or columns that are a
// contiguous run are read and written in place; others are gathered.
#include "attention/kernels/blocksparse.h"
#include "attention/kernels/tile.h"


#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "autograd/internal.h"

namespace az {

void SparseLayout::finish() {
  auto bad = [&](size_t g, const std::string& why) { fail("sparse layout: group " + std::to_string(g) + " " + why); };
  std::vector<uint8_t> seen(size_t(n), 0);
  std::vector<int64_t> stamp(size_t(n), 0);  // the last group (+1) that listed a column
  offset.assign(groups.size() + 1, 0);
  row0.assign(groups.size(), -1);
  col0.assign(groups.size(), -1);
  max_rows = max_cols = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const SparseGroup& G = groups[g];
    size_t R = G.rows.size(), C = G.cols.size();
    if (G.label.size() != (G.per_column ? C : R * C))
      bad(g, "has " + std::to_string(G.label.size()) + " labels for " + std::to_string(R) + " rows x " +
                 std::to_string(C) + " cols");
    for (int32_t r : G.rows) {
      if (r < 0 || r >= n) bad(g, "row " + std::to_string(r) + " outside [0," + std::to_string(n) + ")");
      if (seen[size_t(r)]++) bad(g, "row " + std::to_string(r) + " already in another group");
    }
    for (int32_t c : G.cols) {
      if (c < 0 || c >= n) bad(g, "col " + std::to_string(c) + " outside [0," + std::to_string(n) + ")");
      if (stamp[size_t(c)] == int64_t(g) + 1) bad(g, "lists col " + std::to_string(c) + " twice");
      stamp[size_t(c)] = int64_t(g) + 1;
    }
    auto run_start = [](const std::vector<int32_t>& v) {
      for (size_t i = 1; i < v.size(); ++i)
        if (v[i] != v[0] + int32_t(i)) return -1;
      return v.empty() ? -1 : v[0];
    };
    row0[g] = run_start(G.rows);
    col0[g] = run_start(G.cols);
    offset[g + 1] = offset[g] + int64_t(R * C);
    max_rows = std::max(max_rows, int64_t(R));
    max_cols = std::max(max_cols, int64_t(C));
  }
  entries = offset.back();
  covered = std::count(seen.begin(), seen.end(), 1);
}

namespace {

using tile::gemm;

using tile::Rows;  // a head's rows as a matrix: row i at p + i * ld

// The entries of a row that meet: s[j] -> -inf unless lab[j] && ok[j].
inline void mask_row(float* s, const uint8_t* lab, const uint8_t* ok, int64_t C) {
  const float ninf = -std::numeric_limits<float>::infinity();
#pragma omp simd
  for (int64_t j = 0; j < C; ++j) s[j] = ((lab[j] != 0) & (ok[j] != 0)) ? s[j] : ninf;
}

struct Ctx {
  int64_t B, H, N, d, dv;
  bool heads_last = false;  // tensors [B,N,H,w] (heads merged) instead of [B,H,N,w]
  const float *q, *k, *v, *pad;
  const Layouts* layouts;
  std::vector<int64_t> hoff;  // start of head h's probabilities within one example
  int64_t per_example = 0;
  float scale;
  tile::Dropout drop;  // weight e of the example-major probability buffer is dropout number e
  const SparseLayout& layout(int64_t h) const { return *(*layouts)[layouts->size() == 1 ? 0 : size_t(h)]; }
  int64_t p_start(int64_t b, int64_t h, size_t g) const {
    return b * per_example + hoff[size_t(h)] + layout(h).offset[g];
  }
  // Where head bh = b*H + h of a tensor with rows of w floats starts, and its row stride.
  int64_t off(int64_t bh, int64_t w) const { return heads_last ? ((bh / H) * N * H + bh % H) * w : bh * N * w; }
  int64_t ld(int64_t w) const { return heads_last ? H * w : w; }
};

struct Scratch {
  std::vector<float> q, k, v, o, s, dp, go, dq, dk, dvv, D;
  std::vector<uint8_t> ok;
  Scratch(const Ctx& c, int64_t R, int64_t C) {
    q.resize(size_t(R * c.d)), k.resize(size_t(C * c.d)), v.resize(size_t(C * c.dv)), o.resize(size_t(R * c.dv));
    s.resize(size_t(R * C)), dp.resize(c.drop.on ? size_t(R * C) : 0), ok.resize(size_t(C));
  }
  void for_backward(const Ctx& c, int64_t R, int64_t C) {
    go.resize(size_t(R * c.dv)), dq.resize(size_t(R * c.d)), dk.resize(size_t(C * c.d));
    dvv.resize(size_t(C * c.dv)), D.resize(size_t(R)), dp.resize(size_t(R * C));
  }
};

// The group's rows (or cols) of one head: in place when they are a run, else gathered.
inline Rows rows_of(const float* head, int64_t ld, int32_t run0, const std::vector<int32_t>& idx, int64_t w,
                   std::vector<float>& buf) {
  if (run0 >= 0) return Rows{head + run0 * ld, ld};
  tile::copy_rows(head, ld, idx.data(), int64_t(idx.size()), w, buf.data());
  return Rows{buf.data(), w};
}

void forward_group(const Ctx& c, float* y, float* Pall, int64_t bh, size_t g, Scratch& s) {
  int64_t b = bh / c.H, h = bh % c.H, d = c.d, dv = c.dv;
  const SparseLayout& L = c.layout(h);
  const SparseGroup& G = L.groups[g];
  int64_t R = int64_t(G.rows.size()), C = int64_t(G.cols.size());
  if (R == 0) return;
  int64_t ldk = c.ld(d), ldv = c.ld(dv);
  Rows Q = rows_of(c.q + c.off(bh, d), ldk, L.row0[g], G.rows, d, s.q);
  Rows K = rows_of(c.k + c.off(bh, d), ldk, L.col0[g], G.cols, d, s.k);
  Rows V = rows_of(c.v + c.off(bh, dv), ldv, L.col0[g], G.cols, dv, s.v);
  float* S = Pall ? Pall + c.p_start(b, h, g) : s.s.data();
  tile::scores({Q.p, Q.ld}, {K.p, K.ld}, R, C, d, c.scale, S);
  const float* pad = c.pad ? c.pad + b * c.N : nullptr;
  uint8_t* ok = s.ok.data();  // column allowed: not padding (and labelled, when labels are per column)
  for (int64_t j = 0; j < C; ++j)
    ok[j] = (!pad || pad[G.cols[size_t(j)]] == 0) && (!G.per_column || G.label[size_t(j)] != 0);
  for (int64_t r = 0; r < R; ++r) mask_row(S + r * C, G.per_column ? ok : G.label.data() + r * C, ok, C);
  tile::softmax_rows(S, R, C, nullptr);
  const float* Pm = S;
  if (c.drop.on) {
    c.drop.apply(S, s.dp.data(), R, C, uint64_t(c.p_start(b, h, g)), C);
    Pm = s.dp.data();
  }
  float* yh = y + c.off(bh, dv);
  if (L.row0[g] >= 0) {
    gemm(false, false, R, dv, C, 1.0f, Pm, C, V.p, V.ld, 0.0f, yh + L.row0[g] * ldv, ldv);
  } else {
    gemm(false, false, R, dv, C, 1.0f, Pm, C, V.p, V.ld, 0.0f, s.o.data(), dv);
    for (int64_t r = 0; r < R; ++r)
      std::memcpy(yh + int64_t(G.rows[size_t(r)]) * ldv, s.o.data() + r * dv, sizeof(float) * dv);
  }
}

void backward_head(const Ctx& c, const float* y, const float* gy, const float* Pall, float* gq, float* gk, float* gv,
                   int64_t bh, Scratch& s) {
  int64_t b = bh / c.H, h = bh % c.H, d = c.d, dv = c.dv, ldk = c.ld(d), ldv = c.ld(dv);
  const SparseLayout& L = c.layout(h);
  const float *qh = c.q + c.off(bh, d), *kh = c.k + c.off(bh, d), *vh = c.v + c.off(bh, dv);
  const float *yh = y + c.off(bh, dv), *gyh = gy + c.off(bh, dv);
  float* gqh = gq ? gq + c.off(bh, d) : nullptr;
  float* gkh = gk ? gk + c.off(bh, d) : nullptr;
  float* gvh = gv ? gv + c.off(bh, dv) : nullptr;
  for (size_t g = 0; g < L.groups.size(); ++g) {
    const SparseGroup& G = L.groups[g];
    int64_t R = int64_t(G.rows.size()), C = int64_t(G.cols.size());
    if (R == 0 || C == 0) continue;
    int32_t r0 = L.row0[g], c0 = L.col0[g];
    Rows Q = rows_of(qh, ldk, r0, G.rows, d, s.q), K = rows_of(kh, ldk, c0, G.cols, d, s.k);
    Rows V = rows_of(vh, ldv, c0, G.cols, dv, s.v);
    Rows dO = rows_of(gyh, ldv, r0, G.rows, dv, s.go), O = rows_of(yh, ldv, r0, G.rows, dv, s.o);
    int64_t e0 = c.p_start(b, h, g);
    const float* P = Pall + e0;
    // dV_c += P~^T dO, dS = P (dP - D): in place when the columns are a run, else into scratch
    tile::Grad dVg{nullptr, dv, 0.0f};
    if (gvh) dVg = c0 >= 0 ? tile::Grad{gvh + c0 * ldv, ldv, 1.0f} : tile::Grad{s.dvv.data(), dv, 0.0f};
    float* dS = gqh || gkh ? s.s.data() : nullptr;
    if (dS) tile::row_dots({dO.p, dO.ld}, {O.p, O.ld}, R, dv, s.D.data());  // D_r = dO_r . O_r
    tile::backward_scores(P, {dO.p, dO.ld}, {V.p, V.ld}, R, C, dv, s.D.data(), nullptr, c.drop, uint64_t(e0), C, dVg, dS,
                          s.dp.data());
    if (gvh && c0 < 0) tile::add_rows(s.dvv.data(), int64_t(G.cols.size()), dv, G.cols.data(), gvh, ldv);
    if (!dS) continue;
    // dQ_r += scale dS K_c, dK_c += scale dS^T Q_r
    tile::Grad dQg{nullptr, d, 0.0f}, dKg{nullptr, d, 0.0f};
    if (gqh) dQg = r0 >= 0 ? tile::Grad{gqh + r0 * ldk, ldk, 1.0f} : tile::Grad{s.dq.data(), d, 0.0f};
    if (gkh) dKg = c0 >= 0 ? tile::Grad{gkh + c0 * ldk, ldk, 1.0f} : tile::Grad{s.dk.data(), d, 0.0f};
    tile::backward_qk(dS, {Q.p, Q.ld}, {K.p, K.ld}, R, C, d, c.scale, dQg, dKg);
    if (gqh && r0 < 0) tile::add_rows(s.dq.data(), int64_t(G.rows.size()), d, G.rows.data(), gqh, ldk);
    if (gkh && c0 < 0) tile::add_rows(s.dk.data(), int64_t(G.cols.size()), d, G.cols.data(), gkh, ldk);
  }
}

// Both entry points: [B,H,N,w] tensors, or [B,N,H*w] (heads_last).
Tensor run_kernel(const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads, bool heads_last,
                  const Layouts& layouts, const Tensor& key_pad, float scale, float dropout_p, bool training, Rng& rng,
                  Tensor* dense_weights) {
  OpScope prof("sparse_attention");
  Ctx c;
  c.heads_last = heads_last;
  if (heads_last) {
    c.B = q.size(0), c.H = heads, c.N = q.size(1), c.d = q.size(2) / heads, c.dv = v.size(2) / heads;
  } else {
    c.B = q.size(0), c.H = q.size(1), c.N = q.size(2), c.d = q.size(3), c.dv = v.size(3);
  }
  if (layouts.size() != 1 && int64_t(layouts.size()) != c.H)
    fail("sparse_attention: " + std::to_string(layouts.size()) + " layouts for " + std::to_string(c.H) +
         " heads (expected 1 or one per head)");
  int64_t max_rows = 0, max_cols = 0;
  c.hoff.assign(size_t(c.H + 1), 0);
  c.layouts = &layouts;
  for (int64_t h = 0; h < c.H; ++h) {
    const SparseLayout& L = c.layout(h);
    if (L.n != c.N || L.offset.size() != L.groups.size() + 1)
      fail("sparse_attention: layout for n=" + std::to_string(L.n) + (L.offset.empty() ? " (not finished)" : "") +
           " used with N=" + std::to_string(c.N));
    c.hoff[size_t(h + 1)] = c.hoff[size_t(h)] + L.entries;
    max_rows = std::max(max_rows, L.max_rows), max_cols = std::max(max_cols, L.max_cols);
  }
  c.per_example = c.hoff.back();
  if (key_pad.defined() && key_pad.shape() != Shape{c.B, c.N})
    fail("sparse_attention: key padding mask " + shape_str(key_pad.shape()) + " must be [B,N] = " +
         shape_str({c.B, c.N}));
  if (dense_weights && c.B != 1) fail("sparse_attention: attention weights need a batch of 1, got B=" + std::to_string(c.B));
  c.q = q.data(), c.k = k.data(), c.v = v.data(), c.pad = key_pad.defined() ? key_pad.data() : nullptr;
  c.scale = scale;
  c.drop = tile::Dropout::draw(dropout_p, training, rng, c.B, c.B * c.per_example);
  bool grad = needs_grad({&q, &k, &v});
  count_matmul_flops(2.0 * double(c.B * c.per_example) * double(c.d + c.dv));  // S = Q K^T and O = P V
  Tensor P;  // the probabilities, kept for backward: [B * sum over heads of entries]
  if (grad || dense_weights) P = Tensor::empty({c.B * c.per_example});
  bool all_rows = true;  // every row written by some group: no need to zero y first
  for (int64_t h = 0; h < c.H; ++h) all_rows = all_rows && c.layout(h).covered == c.N;
  Shape ys = heads_last ? Shape{c.B, c.N, c.H * c.dv} : Shape{c.B, c.H, c.N, c.dv};
  Tensor y = all_rows ? Tensor::empty(ys) : Tensor::zeros(ys);
  std::vector<std::pair<int64_t, size_t>> tasks;
  for (int64_t bh = 0; bh < c.B * c.H; ++bh)
    for (size_t g = 0; g < c.layout(bh % c.H).groups.size(); ++g) tasks.push_back({bh, g});
  float* Pd = P.defined() ? P.data() : nullptr;
  float* yd = y.data();
  int64_t work = c.B * c.per_example * (c.d + c.dv);
#pragma omp parallel if (work > (1 << 17))
  {
    Scratch s(c, max_rows, max_cols);
#pragma omp for schedule(dynamic, 1)
    for (size_t t = 0; t < tasks.size(); ++t) forward_group(c, yd, Pd, tasks[t].first, tasks[t].second, s);
  }
  if (dense_weights) {  // B = 1: scatter the probabilities into [H,N,N]
    Tensor w = Tensor::zeros({c.H, c.N, c.N});
    for (int64_t h = 0; h < c.H; ++h) {
      const SparseLayout& L = c.layout(h);
      for (size_t g = 0; g < L.groups.size(); ++g) {
        const SparseGroup& G = L.groups[g];
        const float* p = Pd + c.p_start(0, h, g);
        for (size_t r = 0; r < G.rows.size(); ++r)
          for (size_t j = 0; j < G.cols.size(); ++j)
            w.data()[(h * c.N + G.rows[r]) * c.N + G.cols[j]] = p[r * G.cols.size() + j];
      }
    }
    *dense_weights = w;
  }
  if (grad)
    attach(y, "sparse_attention", {q, k, v}, [q, k, v, P, layouts, c, max_rows, max_cols](const Tensor& y) {
      Ctx cc = c;
      cc.layouts = &layouts;  // the captured copy
      cc.pad = nullptr;       // not needed: P is already zero at padded keys
      float* gq = q.requires_grad() ? q.grad_data() : nullptr;  // allocate before the parallel region
      float* gk = k.requires_grad() ? k.grad_data() : nullptr;
      float* gv = v.requires_grad() ? v.grad_data() : nullptr;
      const float *yd = y.data(), *gy = y.grad_data(), *Pd = P.data();
      count_matmul_flops(4.0 * double(cc.B * cc.per_example) * double(cc.d + cc.dv));  // dV, dP, dQ, dK
#pragma omp parallel if (cc.B * cc.per_example * (cc.d + cc.dv) > (1 << 17))
      {
        Scratch s(cc, max_rows, max_cols);
        s.for_backward(cc, max_rows, max_cols);
#pragma omp for schedule(dynamic, 1)
        for (int64_t bh = 0; bh < cc.B * cc.H; ++bh) backward_head(cc, yd, gy, Pd, gq, gk, gv, bh, s);
      }
    });
  return y;
}
}  // namespace

Tensor sparse_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Layouts& layouts,
                        const Tensor& key_pad, float scale, float dropout_p, bool training, Rng& rng,
                        Tensor* dense_weights) {
  if (q.dim() != 4 || k.shape() != q.shape() || v.dim() != 4 || v.size(0) != q.size(0) || v.size(1) != q.size(1) ||
      v.size(2) != q.size(2))
    fail("sparse_attention: q " + shape_str(q.shape()) + ", k " + shape_str(k.shape()) + ", v " +
         shape_str(v.shape()) + " must be [B,H,N,d], [B,H,N,d], [B,H,N,dv]");
  return run_kernel(q, k, v, q.size(1), false, layouts, key_pad, scale, dropout_p, training, rng, dense_weights);
}

Tensor sparse_attention_merged(const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads,
                               const Layouts& layouts, const Tensor& key_pad, float scale, float dropout_p,
                               bool training, Rng& rng, Tensor* dense_weights) {
  if (q.dim() != 3 || k.shape() != q.shape() || v.dim() != 3 || v.size(0) != q.size(0) || v.size(1) != q.size(1) ||
      heads < 1 || q.size(2) % heads || v.size(2) % heads)
    fail("sparse_attention_merged: q " + shape_str(q.shape()) + ", k " + shape_str(k.shape()) + ", v " +
         shape_str(v.shape()) + " must be [B,N,H*d], [B,N,H*d], [B,N,H*dv] with H=" + std::to_string(heads));
  return run_kernel(q, k, v, heads, true, layouts, key_pad, scale, dropout_p, training, rng, dense_weights);
}

// ---- band layouts ----------------------------------------------------------------------
std::shared_ptr<SparseLayout> band_layout(const BandSpec& s) {
  if (s.n <= 0 || s.block < 1 || s.stride < 1)
    fail("band_layout: n " + std::to_string(s.n) + ", block " + std::to_string(s.block) + ", stride " +
         std::to_string(s.stride) + " must all be positive");
  if (s.causal && !s.globals.empty()) fail("band_layout: global tokens have no causal form");
  auto L = std::make_shared<SparseLayout>();
  L->n = s.n;
  const int64_t n = s.n, S = s.stride, w = s.radius;
  std::vector<uint8_t> is_global(size_t(n), 0);
  for (int32_t g : s.globals) {
    if (g < 0 || g >= n) fail("band_layout: global position " + std::to_string(g) + " outside [0," + std::to_string(n) + ")");
    is_global[size_t(g)] = 1;
  }
  for (int64_t rho = 0; rho < std::min(S, n); ++rho) {
    int64_t count = (n - rho + S - 1) / S;  // class members rho, rho + S, ...
    for (int64_t a = 0; a < count; a += s.block) {
      int64_t e = std::min(count, a + s.block);
      SparseGroup G;
      for (int64_t m = a; m < e; ++m)
        if (!is_global[size_t(rho + m * S)]) G.rows.push_back(int32_t(rho + m * S));
      if (G.rows.empty()) continue;
      int64_t lo = 0, hi = -1;  // window: class members [lo, hi]
      if (w >= 0) lo = std::max<int64_t>(0, a - w), hi = std::min(count - 1, s.causal ? e - 1 : e - 1 + w);
      for (int64_t m = lo; m <= hi; ++m) G.cols.push_back(int32_t(rho + m * S));
      bool extra = false;
      for (int32_t g : s.globals) {
        int64_t m = (g - rho) / S;
        if ((g - rho) % S != 0 || g < rho || m < lo || m > hi) G.cols.push_back(g), extra = true;
      }
      if (extra) std::sort(G.cols.begin(), G.cols.end());
      size_t R = G.rows.size(), C = G.cols.size();
      G.label.assign(R * C, 0);
      for (size_t r = 0; r < R; ++r)
        for (size_t c = 0; c < C; ++c) {
          int64_t i = G.rows[r], j = G.cols[c], dist = i > j ? i - j : j - i;
          uint8_t& l = G.label[r * C + c];
          if (is_global[size_t(j)]) l = s.global_label;
          else if (w >= 0 && dist % S == 0 && dist <= w * S && (!s.causal || j <= i)) l = s.window_label;
        }
      L->groups.push_back(std::move(G));
    }
  }
  for (size_t a = 0; a < s.globals.size(); a += size_t(s.block)) {  // global rows see every key
    SparseGroup G;
    G.rows.assign(s.globals.begin() + a, s.globals.begin() + std::min(s.globals.size(), a + size_t(s.block)));
    G.cols.resize(size_t(n));
    std::iota(G.cols.begin(), G.cols.end(), 0);
    G.per_column = true;
    G.label.assign(size_t(n), s.global_label);
    L->groups.push_back(std::move(G));
  }
  L->finish();
  return L;
}

Pattern layouts_pattern(const std::vector<const SparseLayout*>& layouts, std::vector<std::string> legend) {
  Pattern p;
  p.n = layouts.empty() ? 0 : layouts[0]->n;
  p.cell.assign(size_t(p.n * p.n), 0);
  p.legend = std::move(legend);
  for (const SparseLayout* L : layouts)
    for (size_t g = 0; g < L->groups.size(); ++g) {
      const SparseGroup& G = L->groups[g];
      for (size_t r = 0; r < G.rows.size(); ++r)
        for (size_t c = 0; c < G.cols.size(); ++c) {
          uint8_t l = L->label_at(g, r, c);
          uint8_t& cell = p.cell[size_t(G.rows[r] * p.n + G.cols[c])];
          if (l && (!cell || l < cell)) cell = l;
        }
    }
  return p;
}

// ---- the common variant body ---------------------------------------------------------------
BlockSparseAttention::BlockSparseAttention(const AttentionConfig& c) : Attention(c) {
  proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
}

Tensor BlockSparseAttention::run(const Tensor& x, const Tensor& key_pad, Tensor* weights) {
  if (x.dim() != 3 || x.size(2) != cfg_.dim)
    fail("attention input " + shape_str(x.shape()) + " must be [B,N," + std::to_string(cfg_.dim) + "]");
  Layouts L = locked_layouts(x.size(1));
  // q, k, v stay [B,N,D] (= [B,N,H,d]): the kernel reads each head in place, no split_heads copies.
  Tensor q = proj_->q->forward(x), k = proj_->k->forward(x), v = proj_->v->forward(x);
  float scale = 1.0f / std::sqrt(float(cfg_.head_dim()));
  Tensor out = sparse_attention_merged(q, k, v, cfg_.heads, L, key_pad, scale, cfg_.dropout, is_training(),
                                       global_rng(), weights);
  return proj_->o->forward(out);
}

Layouts BlockSparseAttention::locked_layouts(int64_t n) {
  std::lock_guard<std::mutex> lock(layouts_mu_);
  return layouts(n);
}

Pattern BlockSparseAttention::pattern(const Tensor& x, const Tensor&) {
  Layouts L = locked_layouts(x.size(1));
  std::vector<const SparseLayout*> show;
  for (int64_t h : pattern_heads()) {
    const SparseLayout* l = L[L.size() == 1 ? 0 : size_t(h)].get();
    if (std::find(show.begin(), show.end(), l) == show.end()) show.push_back(l);
  }
  return layouts_pattern(show, legend());
}

Tensor BlockSparseAttention::attention_weights(const Tensor& x, const Tensor& key_pad) {
  NoGradGuard ng;
  Tensor w;
  run(x, key_pad, &w);
  return w;
}

}  // namespace az
