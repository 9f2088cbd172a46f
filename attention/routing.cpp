// routing: Routing attention (Roy, Saffar, Vaswani & Grangier, "Efficient
// Content-Based Sparse Attention with Routing Transformers", TACL 2021;
// conventions of lucidrains/routing-transformer KmeansAttention).
//
// Which entries: queries and keys are routed to C clusters by spherical
// k-means (cosine similarity of the unit-length query / key to C unit
// centroids per head).  Clusters are balanced: cluster c takes the w queries
// and the w keys most similar to its centroid, and its w queries attend to
// its w keys.  A query's output is the average over the clusters that took
// it (a query no cluster took gets 0: the residual carries it).  Routing
// itself gets no gradient; the attention inside each cluster is ordinary
// softmax attention on the raw (unnormalised) q and k, so one cluster with
// w = N is full attention.
//
// The centroids are not trained by gradient: they are a buffer (saved in
// checkpoints).  Until a training step has set them, a training forward routes
// by k-means on its own batch (a few iterations from C random members); the
// step's state update (learn(), which the model's call makes after either form
// in training, once per step from shard 0's rows: nn/module.h) stores them,
// then moves them on every later step by an exponential moving average of
// their members' mean.  So both forms are functions of their input,
// parameters and buffers, and both learn the same centroids.
//
// Cost per head: routing N*C*d, selection O(N*C), attention C*w^2*d; with
// C = sqrt(N) clusters of w = N/C that is N*sqrt(N)*d, N being --seq-len
// (a shorter batch keeps w, at most its N).  Padded keys are excluded (and
// ranked last, so clusters fill with real tokens first).
//
// Deviations from the paper: no commitment loss pulling q/k toward their
// centroids (lucidrains offers one; the layer interface has no auxiliary
// loss); the centroids start from k-means on the first training batch
// (lucidrains' KMEAN_INIT_ITERS; the paper states only the EMA), and the EMA
// runs once per training step, on shard 0's rows of a batch-parallel step.
// Every head routes: the paper's models mix routing heads with local-attention
// heads (lucidrains' n_local_attn_heads); here those are local.cpp's layer.
//
// forward() selects the members with the kernel top_members and runs the chunk
// kernel (kernels/cluster_util.h); reference() writes the selection (one
// similarity product, then a sort per centroid) and the attention inside each
// cluster (gather, attend, scatter back) in composed ops.
//
// Why this page is over 250 lines: spherical k-means (initialisation and the
// EMA update) is part of the algorithm, not a kernel, and sits above the class
// in the order it runs.  Only the selection's fast form and the chunked
// attention are in kernels/.
#include <algorithm>
#include <cmath>
#include <limits>


#include "attention/routing.h"
#include "attention/kernels/cluster_util.h"
#include "autograd/runtime/blas.h"

namespace az {

namespace {

constexpr int kInitIters = 10;  // k-means iterations on the first batch (lucidrains KMEAN_INIT_ITERS)

void normalize(float* x, int64_t d) {
  double s = 0;
  for (int64_t j = 0; j < d; ++j) s += double(x[j]) * x[j];
  float inv = float(1.0 / std::sqrt(s + 1e-12));
  for (int64_t j = 0; j < d; ++j) x[j] *= inv;
}

// assign[m] = argmax_c x_m . mu_c for x [M,d], mu [C,d].
void nearest(const float* x, int64_t M, const float* mu, int64_t C, int64_t d, std::vector<float>& sim,
             std::vector<int32_t>& assign) {
  sim.resize(size_t(M * C));
  assign.resize(size_t(M));
  sgemm(false, true, M, C, d, 1.0f, x, d, mu, d, 0.0f, sim.data(), C);
  count_matmul_flops(2.0 * double(M * C) * double(d));  // k-means' products count in the bench's FLOPs
  for (int64_t m = 0; m < M; ++m) assign[size_t(m)] = int32_t(std::max_element(&sim[size_t(m * C)], &sim[size_t(m * C)] + C) - &sim[size_t(m * C)]);
}

// x [..,d] with every row made unit length, no gradient: what routing and k-means read.  The same
// arithmetic as unit_normalize (kernels/cluster_util.h), without its backward.
Tensor unit_rows(const Tensor& x) {
  Tensor y = x.detach().clone();
  int64_t d = y.size(-1), rows = d ? y.numel() / d : 0;
#pragma omp parallel for if (y.numel() > (1 << 15))
  for (int64_t r = 0; r < rows; ++r) {
    float* row = y.data() + r * d;
    double s = 0;
    for (int64_t j = 0; j < d; ++j) s += double(row[j]) * row[j];
    float inv = float(1.0 / std::sqrt(s + double(1e-12f)));
    for (int64_t j = 0; j < d; ++j) row[j] *= inv;
  }
  return y;
}

// Rows of x [B,H,M,d] for head h that are not skipped, gathered into one [rows,d] buffer.
std::vector<float> head_rows(const Tensor& x, int64_t h, const std::vector<uint8_t>& skip) {
  int64_t B = x.size(0), H = x.size(1), M = x.size(2), d = x.size(3);
  std::vector<float> out;
  out.reserve(size_t(B * M * d));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t m = 0; m < M; ++m)
      if (skip.empty() || !skip[size_t(b * M + m)]) {
        const float* r = x.data() + ((b * H + h) * M + m) * d;
        out.insert(out.end(), r, r + d);
      }
  return out;
}

void check_centroids(const Tensor& centroids, const Tensor& x, const std::vector<uint8_t>& skip) {
  if (centroids.dim() != 3 || x.dim() != 4 || x.size(1) != centroids.size(0) || x.size(3) != centroids.size(2) ||
      (!skip.empty() && int64_t(skip.size()) != x.size(0) * x.size(2)))
    fail("k-means: centroids " + shape_str(centroids.shape()) + " and vectors " + shape_str(x.shape()) +
         " must be [H,C,d] and [B,H,M,d] (skip flags: B*M)");
}

// Spherical k-means from scratch on x (unit rows): C random members, then kInitIters rounds.
void kmeans_init(Tensor& centroids, const Tensor& x, const std::vector<uint8_t>& skip, Rng& rng) {
  check_centroids(centroids, x, skip);
  int64_t H = centroids.size(0), C = centroids.size(1), d = centroids.size(2);
  for (int64_t h = 0; h < H; ++h) {
    std::vector<float> rows = head_rows(x, h, skip);
    int64_t M = int64_t(rows.size()) / d;
    if (M == 0) continue;
    float* mu = centroids.data() + h * C * d;
    for (int64_t c = 0; c < C; ++c) std::copy_n(&rows[size_t(rng.randint(M) * d)], d, mu + c * d);
    std::vector<float> sim, sums(size_t(C * d));
    std::vector<int32_t> assign;
    std::vector<int64_t> count(size_t(C), 0);
    for (int it = 0; it < kInitIters; ++it) {
      nearest(rows.data(), M, mu, C, d, sim, assign);
      std::fill(sums.begin(), sums.end(), 0.0f);
      std::fill(count.begin(), count.end(), 0);
      for (int64_t m = 0; m < M; ++m) {
        for (int64_t j = 0; j < d; ++j) sums[size_t(assign[size_t(m)] * d + j)] += rows[size_t(m * d + j)];
        count[size_t(assign[size_t(m)])]++;
      }
      for (int64_t c = 0; c < C; ++c)
        if (count[size_t(c)]) {
          std::copy_n(&sums[size_t(c * d)], d, mu + c * d);
          normalize(mu + c * d, d);
        }
    }
  }
}

}  // namespace

void kmeans_ema_update(Tensor& centroids, const Tensor& x, const std::vector<uint8_t>& skip, float decay) {
  check_centroids(centroids, x, skip);
  int64_t H = centroids.size(0), C = centroids.size(1), d = centroids.size(2);
#pragma omp parallel for if (H > 1 && x.numel() * C > (1 << 16))
  for (int64_t h = 0; h < H; ++h) {
    std::vector<float> rows = head_rows(x, h, skip), sim, sums(size_t(C * d), 0.0f);
    std::vector<int32_t> assign;
    std::vector<int64_t> count(size_t(C), 0);
    int64_t M = int64_t(rows.size()) / d;
    float* mu = centroids.data() + h * C * d;
    nearest(rows.data(), M, mu, C, d, sim, assign);
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t j = 0; j < d; ++j) sums[size_t(assign[size_t(m)] * d + j)] += rows[size_t(m * d + j)];
      count[size_t(assign[size_t(m)])]++;
    }
    for (int64_t c = 0; c < C; ++c) {
      if (!count[size_t(c)]) continue;  // no members: the centroid stays
      float* s = &sums[size_t(c * d)];
      normalize(s, d);  // the members' mean direction
      for (int64_t j = 0; j < d; ++j) mu[c * d + j] = decay * mu[c * d + j] + (1.0f - decay) * s[j];
      normalize(mu + c * d, d);
    }
  }
}

namespace {

// ---- the routing in composed ops (the reference form's) ---------------------------------------
// Each centroid's top-w members among the unit rows x [B,H,N,d]: the similarities mu . x by one
// product [B,H,C,N], then for each (example, head, centroid) the w most similar rows -- padding
// last, ties to the lower position -- in position order: rows [B*H,C,w].  (The fast form,
// top_members in kernels/cluster_util.h, selects the same rows with a partial selection.)
IntTensor top_w(const Tensor& mu, const Tensor& x, const std::vector<uint8_t>& pad, int64_t w) {
  int64_t B = x.size(0), H = x.size(1), N = x.size(2), C = mu.size(1);
  Tensor per_example = reshape(mu, {1, H, C, mu.size(2)});
  Tensor sim = matmul(concat(std::vector<Tensor>(size_t(B), per_example), 0), x, /*trans_a=*/false, /*trans_b=*/true);
  IntTensor rows({B * H, C, w}, std::vector<int32_t>(size_t(B * H * C * w)));
  std::vector<int32_t> order(static_cast<size_t>(N));
  for (int64_t g = 0; g < B * H; ++g)
    for (int64_t c = 0; c < C; ++c) {
      const float* score = sim.data() + (g * C + c) * N;
      auto rank = [&](int32_t n) { return pad[size_t((g / H) * N + n)] ? -INFINITY : score[n]; };
      for (int64_t n = 0; n < N; ++n) order[size_t(n)] = int32_t(n);
      std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t z) { return rank(a) > rank(z); });
      int32_t* dst = rows.data.data() + (g * C + c) * w;
      std::copy_n(order.begin(), w, dst);
      std::sort(dst, dst + w);  // position order inside the cluster
    }
  return rows;
}

// 1 / the number of clusters each query row joined (0 for none): [G,N] from q_rows [G,C,w] or [G,C*w].
std::vector<float> inverse_counts(const IntTensor& q_rows, int64_t N) {
  int64_t G = q_rows.shape[0], Cw = q_rows.numel() / G;
  std::vector<float> count(size_t(G * N), 0.0f);
  for (int64_t g = 0; g < G; ++g)
    for (int64_t i = 0; i < Cw; ++i) count[size_t(g * N + q_rows.data[size_t(g * Cw + i)])] += 1.0f;
  for (float& c : count) c = c > 0 ? 1.0f / c : 0.0f;
  return count;
}

class RoutingAttention : public Attention {
 public:
  explicit RoutingAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
    clusters_ = knob_int("clusters");
    if (clusters_ == 0) clusters_ = std::max<int64_t>(1, int64_t(std::lround(std::sqrt(double(c.max_len)))));
    window_ = knob_int("window");
    decay_ = float(knob("ema_decay"));
    // Random unit centroids until the first training step sets them.
    Tensor mu = Tensor::randn({c.heads, clusters_, c.head_dim()});
    for (int64_t i = 0; i < c.heads * clusters_; ++i) normalize(mu.data() + i * c.head_dim(), c.head_dim());
    centroids_ = register_buffer("centroids", mu);
    initialized_ = register_buffer("initialized", Tensor::zeros({1}));
  }

 private:
  // What both forms start from: q, k, v, their unit directions and the centroids to route by.
  struct Routed {
    int64_t B, N, H, d, G, C, w;
    QKVProjection::Heads h;         // q, k, v [B,H,N,d]
    Tensor qn, kn;                  // unit-length q and k (no gradient): what routing and the centroids read
    Tensor mu;                      // [H,C,d] the centroids this forward routes by
    std::vector<uint8_t> pad;       // [B,N] padded positions
  };

  Routed prepare(const Tensor& x, const Tensor& key_pad) {
    if (x.dim() != 3 || x.size(2) != cfg_.dim)
      fail("routing: input " + shape_str(x.shape()) + " must be [B,N," + std::to_string(cfg_.dim) + "]");
    Routed r;
    r.B = x.size(0), r.N = x.size(1), r.H = cfg_.heads, r.d = cfg_.head_dim(), r.G = r.B * r.H, r.C = clusters_;
    int64_t B = r.B, N = r.N;
    if (key_pad.defined() && key_pad.shape() != Shape{B, N})
      fail("routing: key padding mask " + shape_str(key_pad.shape()) + " must be [" + std::to_string(B) + "," +
           std::to_string(N) + "]");
    // w from --seq-len, as C is, not from this batch's padded N: an example's
    // clusters then do not depend on the lengths of its batch-mates.
    r.w = std::min(N, window_ > 0 ? window_ : (cfg_.max_len + r.C - 1) / r.C);

    r.h = proj_->project(x);  // q, k, v [B,H,N,d]
    r.pad.assign(size_t(B * N), 0);
    if (key_pad.defined())
      for (int64_t i = 0; i < B * N; ++i) r.pad[size_t(i)] = key_pad.data()[i] != 0;

    // Routing on unit vectors, no gradient.
    NoGradGuard ng;
    r.qn = unit_rows(r.h.q);
    r.kn = unit_rows(r.h.k);
    // The centroids to route by: the buffer's, or, before a training step has set them, k-means
    // on this batch's unit q and k (a copy, from C random members drawn from the random source).
    r.mu = centroids_;
    if (is_training() && initialized_.data()[0] == 0) {
      r.mu = centroids_.clone();
      kmeans_init(r.mu, concat({r.qn, r.kn}, 2), skip_flags(r.pad, B, N), global_rng());
    }
    return r;
  }

  // Padding flags for the rows of concat(q, k) along positions: [B, 2N].
  static std::vector<uint8_t> skip_flags(const std::vector<uint8_t>& pad, int64_t B, int64_t N) {
    std::vector<uint8_t> s(size_t(B * 2 * N));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t n = 0; n < 2 * N; ++n) s[size_t(b * 2 * N + n)] = pad[size_t(b * N + n % N)];
    return s;
  }

  // Shown on the model's page beside reference().
  // The reference form from one routing: each centroid's top-w queries and keys (top_w above), softmax
  // attention inside each cluster, scattered back and averaged over the clusters a query joined.
  Tensor attend_in_clusters(const Routed& r) {
    int64_t B = r.B, H = r.H, G = r.G, C = r.C, w = r.w, N = r.N, d = r.d;
    IntTensor qi = top_w(r.mu, r.qn, r.pad, w), ki = top_w(r.mu, r.kn, r.pad, w);  // [G,C,w]: each cluster's members
    qi.shape = ki.shape = {G, C * w};
    auto members = [&](const Tensor& t, const IntTensor& rows) {  // [B,H,N,d] -> the cluster's rows [G,C,w,d]
      return reshape(gather_rows(reshape(t, {G, N, d}), rows), {G, C, w, d});
    };
    Tensor q = members(r.h.q, qi), k = members(r.h.k, ki), v = members(r.h.v, ki);
    Tensor padded = Tensor::empty({G, C, 1, w});                        // padded keys never attended
    for (int64_t i = 0; i < padded.numel(); ++i) padded.data()[i] = r.pad[size_t((i / (C * w) / H) * N + ki.data[size_t(i)])];
    Tensor s = matmul(q, k, /*trans_a=*/false, /*trans_b=*/true) * (1.0f / std::sqrt(float(d)));  // [G,C,w,w]
    Tensor o = matmul(dropout(softmax(s, padded, /*mask_is_bool=*/true), cfg_.dropout, is_training()), v);  // [G,C,w,d]
    Tensor summed = scatter_add_rows(Tensor::zeros({G, N, d}), qi, reshape(o, {G, C * w, d}));  // back to positions
    Tensor avg = summed * Tensor::from({G, N, 1}, inverse_counts(qi, N));  // over the clusters a query joined
    return proj_->output(reshape(avg, {B, H, N, d}));
  }

 public:
  // The reference form: route (prepare: q, k, v, their unit directions, the centroids; no gradient),
  // then attend inside the clusters.  Reads the centroids, writes nothing.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    return attend_in_clusters(prepare(x, key_pad));
  }

  // The fast form: the same routing by the kernel top_members, the chunk kernel inside the clusters.
  Tensor forward(const Tensor& x, const Tensor& key_pad) override { return run(prepare(x, key_pad), nullptr); }

  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    Trace tr;
    run(prepare(x, key_pad), &tr);
    Pattern p;
    p.n = x.size(1);
    p.cell.assign(size_t(p.n * p.n), 0);
    p.legend = {"cluster"};
    int64_t C = tr.ch.q_rows.shape[1], w = tr.ch.q_rows.shape[2];
    for (int64_t c = 0; c < C; ++c)  // head 0 of example 0
      for (int64_t i = 0; i < w; ++i)
        for (int64_t j = 0; j < w; ++j)
          p.cell[size_t(tr.ch.q_rows.data[size_t(c * w + i)] * p.n + tr.ch.k_rows.data[size_t(c * w + j)])] = 1;
    return p;
  }

  Tensor attention_weights(const Tensor& x, const Tensor& key_pad) override {
    NoGradGuard ng;
    Trace tr;
    run(prepare(narrow(x, 0, 0, 1), key_pad.defined() ? narrow(key_pad, 0, 0, 1) : key_pad), &tr);
    int64_t H = cfg_.heads, N = x.size(1), C = tr.ch.q_rows.shape[1], w = tr.ch.q_rows.shape[2];
    Tensor out = Tensor::zeros({H, N, N});
    for (int64_t h = 0; h < H; ++h)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < w; ++i) {
          int64_t qi = tr.ch.q_rows.data[size_t((h * C + c) * w + i)];
          for (int64_t j = 0; j < w; ++j)
            out.data()[(h * N + qi) * N + tr.ch.k_rows.data[size_t((h * C + c) * w + j)]] +=
                tr.weights[size_t(((h * C + c) * w + i) * w + j)] * tr.inv_count[size_t(h * N + qi)];
        }
    return out;
  }

 private:
  struct Trace {
    Chunks ch;
    std::vector<float> weights, inv_count;
  };

  // What a model calls (Attention::call): either form on one routing, then, in training, the step's
  // update of the centroids from what it routed.  Both forms learn the same centroids.
  Tensor call(const Tensor& x, const Tensor& key_pad, Impl impl) override {
    Routed r = prepare(x, key_pad);
    Tensor y = impl == Impl::reference ? attend_in_clusters(r) : run(r, nullptr);
    learn(r);
    return y;
  }

  // The step's state update, after a training forward: the centroids this forward routed by (k-means'
  // on the first step), moved toward their members by one EMA step.  Written through write_buffer: a
  // batch-parallel step makes shard 0's writes once its shards have run (nn/module.h).
  void learn(const Routed& r) {
    if (!is_training()) return;
    Tensor next = r.mu.clone();
    kmeans_ema_update(next, concat({r.qn, r.kn}, 2), skip_flags(r.pad, r.B, r.N), decay_);
    write_buffer(centroids_, next);
    if (initialized_.data()[0] == 0) write_buffer(initialized_, Tensor::ones({1}));
  }

  // The fast form's body: the members by top_members, attention by the chunk kernel.
  Tensor run(const Routed& r, Trace* tr) {
    int64_t G = r.G, N = r.N, d = r.d;
    Chunks ch;
    {
      NoGradGuard ng;
      ch.q_rows = top_members(r.mu, reshape(r.qn, {G, N, d}), r.pad, r.w);
      ch.k_rows = top_members(r.mu, reshape(r.kn, {G, N, d}), r.pad, r.w);
    }
    ch.k_out.resize(size_t(G * N));
    for (int64_t g = 0; g < G; ++g)
      for (int64_t n = 0; n < N; ++n) ch.k_out[size_t(g * N + n)] = r.pad[size_t((g / r.H) * N + n)];
    std::vector<float> inv_count = inverse_counts(ch.q_rows, N);
    Tensor qf = reshape(r.h.q, {G, N, d}), kf = reshape(r.h.k, {G, N, d}), vf = reshape(r.h.v, {G, N, d});
    std::vector<float>* weights = tr ? &tr->weights : nullptr;
    ChunkResult res = chunk_attention(qf, kf, vf, ch, 1.0f / std::sqrt(float(d)), cfg_.dropout, is_training(), weights);
    Tensor o = mul(res.out, Tensor::from({G, N, 1}, inv_count));  // average over the clusters a query joined
    if (tr) tr->ch = std::move(ch), tr->inv_count = std::move(inv_count);
    return proj_->output(reshape(o, {r.B, r.H, N, d}));
  }

  std::shared_ptr<QKVProjection> proj_;
  Tensor centroids_;    // [H,C,d] unit vectors: a buffer, not a parameter
  Tensor initialized_;  // [1]: 1 once a training step has set the centroids
  int64_t clusters_, window_;
  float decay_;
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "routing";
  i.summary = "Routing attention: spherical k-means routes queries and keys to clusters, attention "
              "within each cluster's top-w members; centroids by EMA (Roy et al. 2021)";
  i.knobs = {{"clusters", 0, 0, 4096, "k-means clusters per head; 0 = round(sqrt(--seq-len))"},
             {"window", 0, 0, 65536, "members per cluster (top-w queries and keys); 0 = ceil(--seq-len / clusters)"},
             {"ema_decay", 0.999, 0, 1, "centroid moving-average decay (1 = frozen after initialisation)"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<RoutingAttention>(c); };
  i.causal_ok = false;
  i.family = "learned";
  i.lecture = {7, 2};
  i.why_not_causal = "even with later keys masked in each cluster, which earlier keys join a position's cluster depends on the later tokens: top-k membership over all N";
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
