// Counts the code reports about itself, each against its formula worked out
// here: the FLOPs every product and fused kernel adds to the bench's count
// (matmul_flops(), causal halves included), the bench's gflops and mfu built
// on them, and every causal model's decoding state_bytes().  A count that is
// only compared with another path of the same code can share its mistake; a
// formula cannot.
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "attention/decode/decode.h"
#include "attention/flash.h"
#include "attention/kernels/blocksparse.h"
#include "attention/kernels/cluster_util.h"
#include "attention/kernels/kernel_util.h"
#include "attention/routing.h"
#include "mlp_mixer/token_mlp.h"
#include "tests/attention_check.h"
#include "train/generate.h"
#include "train/lab/bench.h"
#include "train/model.h"

using namespace az;
using namespace az::testing;

namespace {

// The FLOPs counted while f runs.
template <class F>
double flops_of(F f) {
  reset_matmul_flops();
  f();
  return matmul_flops();
}

Tensor leaf(const Shape& s, uint64_t seed, bool grad = true) {
  Rng r(seed);
  Tensor t = Tensor::randn(s, 1.0f, r);
  if (grad) t.set_requires_grad();
  return t;
}

// Runs the backward of y with a gradient of ones.
void backward_of(const Tensor& y) { y.backward(Tensor::ones(y.shape())); }

// A causal variant without a decoding state, so that generation's other path (re-running the
// prefix for each token, which keeps only the tokens) has its count checked too.
class RerunAttention : public Attention {
 public:
  explicit RerunAttention(const AttentionConfig& c) : Attention(c) {
    proj_ = register_module("proj", std::make_shared<QKVProjection>(c.dim, c.heads));
  }
  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    auto h = proj_->project(x);
    Tensor mask = reshape(causal_mask(x.size(1)), {1, 1, x.size(1), x.size(1)});
    return proj_->output(dense_attention(h.q, h.k, h.v, mask, 1.0f / std::sqrt(float(cfg_.head_dim()))));
  }
  Tensor reference(const Tensor& x, const Tensor& key_pad) override { return forward(x, key_pad); }

 private:
  std::shared_ptr<QKVProjection> proj_;
};
RegisterAttention reg_rerun({"test-counts-rerun", "test only: causal full attention without a decoding state", {},
                             [](const AttentionConfig& c) { return std::make_shared<RerunAttention>(c); }, true,
                             "dense"});

}  // namespace

// ---- FLOPs: 2 M N K per product, forward and backward -------------------------------------------

TEST_CASE("FLOPs of matmul and linear: 2 M N K per product, one more product per input that takes a gradient") {
  const double M = 5, K = 7, N = 3, fwd = 2 * M * N * K;
  for (int grads = 0; grads < 3; ++grads) {  // 0: a and b, 1: a only, 2: b only
    CAPTURE(grads);
    Tensor a = leaf({5, 7}, 1, grads != 2), b = leaf({7, 3}, 2, grads != 1);
    Tensor y;
    CHECK(flops_of([&] { y = matmul(a, b); }) == fwd);
    CHECK(flops_of([&] { backward_of(y); }) == (grads == 0 ? 2 : 1) * fwd);  // dA = dC B^T, dB = A^T dC
  }
  // transposed operands: the same products
  Tensor at = leaf({7, 5}, 3), bt = leaf({3, 7}, 4);
  CHECK(flops_of([&] { backward_of(matmul(at, bt, true, true)); }) == 3 * fwd);
  // a batch of 4: every matrix of it; a 2-D side shared over the batch counts once per matrix
  Tensor ab = leaf({4, 5, 7}, 5), bb = leaf({4, 7, 3}, 6), b2 = leaf({7, 3}, 7);
  CHECK(flops_of([&] { backward_of(matmul(ab, bb)); }) == 4 * 3 * fwd);
  CHECK(flops_of([&] { backward_of(matmul(ab, b2)); }) == 4 * 3 * fwd);
  // linear: x [2,5,7] W [7,3] (+ bias: no product); an input without a gradient gets no dx product
  Tensor w = leaf({7, 3}, 8), bias = leaf({3}, 9);
  for (bool x_grad : {true, false}) {
    CAPTURE(x_grad);
    Tensor x = leaf({2, 5, 7}, 10, x_grad);
    Tensor y;
    CHECK(flops_of([&] { y = linear(x, w, bias); }) == 2 * fwd);
    CHECK(flops_of([&] { backward_of(y); }) == (x_grad ? 2 : 1) * 2 * fwd);
  }
}

// flash counts the model's FLOPs of softmax attention: Q K^T and P V forward (2 products of
// N x N x d), dV, dP, dQ, dK backward (4; its recomputed Q K^T is not counted), per (example,
// head), and half of each when causal (the half of the N x N matrix a causal model needs).
TEST_CASE("FLOPs of flash attention: 4 B H N^2 d forward, 8 B H N^2 d backward, halved when causal") {
  const int64_t B = 2, H = 3, N = 37, d = 8;
  const double units_n2d = double(B * H) * N * N * d;
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const double half = causal ? 0.5 : 1.0;
    Tensor q = leaf({B, H, N, d}, 11), k = leaf({B, H, N, d}, 12), v = leaf({B, H, N, d}, 13);
    Tensor y;
    for (int64_t block : {4, 0}) {  // tiles of 4 and the default: the count is the model's, not the tiles'
      CHECK(flops_of([&] { y = flash_attention(q, k, v, Tensor(), causal, 0.3f, block, block); }) == 4 * units_n2d * half);
    }
    CHECK(flops_of([&] { backward_of(y); }) == 8 * units_n2d * half);
  }
}

// A whole layer, x [B,N,D] -> [B,N,D]: the q, k, v, o projections (2 B N D^2 each, forward; dW and
// dx backward), then softmax attention per head: full's composed products compute every entry of
// the N x N matrix, causal or not (4 B H N^2 d forward, 8 backward); flash counts the causal half.
TEST_CASE("FLOPs of a full and a flash layer, forward and backward, causal and not") {
  const int64_t B = 2, N = 19, D = 16, H = 2, d = 8;
  const double proj = 4 * 2.0 * B * N * D * D, attn = double(B * H) * N * N * d;
  for (const char* name : {"full", "flash"})
    for (bool causal : {false, true}) {
      std::string model = name;
      CAPTURE(model);
      CAPTURE(causal);
      AttentionConfig c;
      c.dim = D, c.heads = H, c.max_len = N, c.causal = causal;
      auto att = make_attention(name, c);
      Tensor x = leaf({B, N, D}, 33), y;
      const double half = model == "flash" && causal ? 0.5 : 1.0;
      CHECK(flops_of([&] { y = att->forward(x, Tensor()); }) == proj + 4 * attn * half);
      CHECK(flops_of([&] { backward_of(y); }) == 2 * proj + 8 * attn * half);
    }
}

// The row-chunked softmax kernel computes every score of a row and masks afterwards, causal or not:
// S = q k^T and O = P v forward, dV, dP, dQ, dK backward, all N x M.
TEST_CASE("FLOPs of softmax_attention: 2 G N M (d + dv) forward, 4 G N M (d + dv) backward") {
  const int64_t G0 = 2, G1 = 3, N = 13, M = 9, d = 4, dv = 5;
  const double G = G0 * G1;
  Tensor q = leaf({G0, G1, N, d}, 14), k = leaf({G0, G1, M, d}, 15), v = leaf({G0, G1, M, dv}, 16);
  Tensor y;
  CHECK(flops_of([&] { y = softmax_attention(q, k, v, Tensor(), 0.5f, 0.0f, false, false, global_rng()); }) ==
        2 * G * N * M * (d + dv));
  CHECK(flops_of([&] { backward_of(y); }) == 4 * G * N * M * (d + dv));
  Tensor kc = leaf({G0, G1, N, d}, 17), vc = leaf({G0, G1, N, dv}, 18);
  CHECK(flops_of([&] { y = softmax_attention(q, kc, vc, Tensor(), 0.5f, 0.0f, false, true, global_rng()); }) ==
        2 * G * N * N * (d + dv));
}

// kernel_attention: out = phi_q (phi_k^T [V 1]), p = m features, r = d + 1 columns.  Not causal: two
// products of N p r.  Causal, in chunks of C positions (C divides N here): the same two against the
// running sums, plus within each chunk the masked L x L block T = A_c B_c^T and T C_c, 2 N C (p + r).
// Backward, causal: that primitive once per input that takes a gradient.  Not causal, with S =
// phi_k^T [V 1] kept from the forward: dphi_q = dO' S^T, U = phi_q^T dO' (for dphi_k and dV),
// dphi_k = [V 1] U^T, d[V 1] = phi_k U, one product of N p r each.
TEST_CASE("FLOPs of kernel_attention: 4 N m (d+1) per group, plus 2 N C (m + d + 1) within chunks when causal") {
  const int64_t B = 2, H = 2, N = 40, m = 6, d = 5, C = 8;
  const double G = B * H, p = m, r = d + 1;
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const double prim = 2 * 2 * N * p * r + (causal ? 2.0 * N * C * (p + r) : 0.0);
    for (int grads = 0; grads < 2; ++grads) {  // 0: phi_q, phi_k and v; 1: v only
      CAPTURE(grads);
      Tensor pq = leaf({B, H, N, m}, 19, grads == 0), pk = leaf({B, H, N, m}, 20, grads == 0), v = leaf({B, H, N, d}, 21);
      for (float* t : {pq.data(), pk.data()})
        for (int64_t i = 0; i < B * H * N * m; ++i) t[i] = std::fabs(t[i]);  // positive features
      Tensor y;
      CHECK(flops_of([&] { y = kernel_attention(pq, pk, v, causal, 1e-6f, KernelNorm::add_eps, C); }) == G * prim);
      const double bwd = causal ? (grads == 0 ? 3 : 1) * prim : (grads == 0 ? 4 : 2) * 2 * N * p * r;
      CHECK(flops_of([&] { backward_of(y); }) == G * bwd);
    }
  }
}

// The block-sparse kernel: for every (example, head), each group's rows x cols entries (computed,
// whatever their labels) take S = Q K^T and O = P V forward, dV, dP, dQ, dK backward.
TEST_CASE("FLOPs of sparse_attention: 2 B (entries) (d + dv) forward, 4 B (entries) (d + dv) backward") {
  const int64_t B = 2, H = 2, N = 6, d = 4, dv = 3;
  auto layout = [](std::vector<std::pair<std::vector<int32_t>, std::vector<int32_t>>> groups) {
    auto L = std::make_shared<SparseLayout>();
    L->n = 6;
    for (auto& [rows, cols] : groups) {
      SparseGroup g;
      g.rows = rows, g.cols = cols, g.per_column = true, g.label.assign(cols.size(), 1);
      L->groups.push_back(g);
    }
    L->finish();
    return std::shared_ptr<const SparseLayout>(L);
  };
  auto a = layout({{{0, 1, 2}, {0, 1, 2, 3}}, {{3, 4, 5}, {0, 2, 3, 4, 5}}});  // 3 x 4 + 3 x 5 = 27 entries
  auto b = layout({{{0, 1}, {0, 1}}, {{5}, {1, 3, 5}}});                       // 2 x 2 + 1 x 3 = 7, rows 2..4 in none
  Tensor q = leaf({B, H, N, d}, 22), k = leaf({B, H, N, d}, 23), v = leaf({B, H, N, dv}, 24);
  for (auto& lp : std::vector<std::pair<Layouts, double>>{{{a}, 2 * 27.0}, {{a, b}, 27.0 + 7.0}}) {
    const Layouts& layouts = lp.first;  // one layout for both heads, or one each
    const double per_example = lp.second;
    CAPTURE(per_example);
    Tensor y;
    CHECK(flops_of([&] { y = sparse_attention(q, k, v, layouts, Tensor(), 0.5f); }) == 2 * B * per_example * (d + dv));
    CHECK(flops_of([&] { backward_of(y); }) == 4 * B * per_example * (d + dv));
  }
}

// The chunk kernel behind reformer, routing and sinkhorn: per (group, chunk) S = Q K^T and O = P V
// over cq queries and ck keys forward, dV, dP, dQ, dK backward (its recomputed S not counted).
TEST_CASE("FLOPs of chunk_attention: 2 G C cq ck (d + dv) forward, 4 G C cq ck (d + dv) backward") {
  const int64_t G = 2, C = 2, cq = 3, ck = 4, d = 4, dv = 3;
  Chunks ch;
  ch.q_rows = IntTensor({G, C, cq}, {0, 1, 2, 3, 4, 5, 0, 2, 4, 1, 3, 5});
  ch.k_rows = IntTensor({G, C, ck}, {0, 1, 2, 3, 1, 2, 3, 4, 4, 3, 2, 1, 0, 1, 2, 3});
  Tensor q = leaf({G, 6, d}, 30), k = leaf({G, 5, d}, 31), v = leaf({G, 5, dv}, 32);
  ChunkResult res;
  CHECK(flops_of([&] { res = chunk_attention(q, k, v, ch, 0.5f); }) == 2.0 * G * C * cq * ck * (d + dv));
  CHECK(flops_of([&] { backward_of(res.out); }) == 4.0 * G * C * cq * ck * (d + dv));
}

// Routing's own products (issue 77; found by H2: they counted nothing).  top_members: each group's
// [C,N] similarities to its head's centroids, C N d multiply-adds; the k-means EMA: each head's M
// unskipped rows against its C centroids, M C d.  A layer's evaluation forward is then its q, k, v,
// o projections (4 x 2 B N D^2), the routing of the queries and of the keys (2 x 2 G C N d) and the
// chunk kernel's 2 G C w w (d + d), counted with the cluster size w = min(N, ceil(--seq-len / C)).
TEST_CASE("FLOPs of routing: top_members 2 G C N d, the EMA 2 H M C d, a layer's forward by formula") {
  const int64_t H = 2, B = 3, G = B * H, C = 4, N = 5, d = 3;
  Tensor mu = leaf({H, C, d}, 40, false), rows = leaf({G, N, d}, 41, false);
  std::vector<uint8_t> pad(size_t(B * N), 0);
  pad[2] = 1;
  CHECK(flops_of([&] { top_members(mu, rows, pad, 2); }) == 2.0 * G * C * N * d);
  Tensor x = leaf({B, H, N, d}, 42, false);
  std::vector<uint8_t> skip(size_t(B * N), 0);
  skip[0] = skip[7] = 1;  // two rows of each head take no part: M = B N - 2
  CHECK(flops_of([&] { kmeans_ema_update(mu, x, skip, 0.5f); }) == 2.0 * H * (B * N - 2) * C * d);

  const int64_t D = 8, L = 16, hd = D / H, w = (L + C - 1) / C;  // w = 4 of N = 5
  AttentionConfig c;
  c.dim = D, c.heads = H, c.max_len = L, c.knobs = {{"clusters", double(C)}};
  std::shared_ptr<Attention> att = make_attention("routing", c);
  att->eval();
  Tensor in = leaf({B, N, D}, 43, false);
  const double want = 4 * 2.0 * B * N * D * D + 2 * 2.0 * G * C * N * hd + 2.0 * G * C * w * w * (hd + hd);
  CHECK(flops_of([&] { att->forward(in, Tensor()); }) == want);
}

// token_mlp: Z = W1^T X [S,D] and Y = W2 H [N,D] per example forward; dW2, dH, dW1 (and dX when x
// takes a gradient) backward, each N S D multiply-adds.
TEST_CASE("FLOPs of token_mlp: 4 B N S D forward, 6 B N S D backward, 8 with dX") {
  const int64_t B = 3, N = 5, S = 4, D = 6;
  for (bool x_grad : {true, false}) {
    CAPTURE(x_grad);
    Tensor x = leaf({B, N, D}, 25, x_grad), w1 = leaf({N, S}, 26), b1 = leaf({S}, 27), w2 = leaf({N, S}, 28), b2 = leaf({N}, 29);
    Tensor y;
    CHECK(flops_of([&] { y = token_mlp(x, w1, b1, w2, b2); }) == 4.0 * B * N * S * D);
    CHECK(flops_of([&] { backward_of(y); }) == (x_grad ? 8.0 : 6.0) * B * N * S * D);
  }
}

// The bench's model_gflop_per_step is one training step's FLOPs, worked out here layer by layer for
// the sequence classifier it trains (no padding, mean pooling): per block the q, k, v, o projections
// (4 x 2 BN D^2) and the feed-forward (2 x 2 BN D F), the pooling product w [B,1,N] h [B,N,D]
// (2 B N D), the head (2 B D C); the backward doubles every product (dW and dx; the pooling weights
// take no gradient: one product); causal flash adds 12 B H N^2 d / 2.  gflops = model_gflop_per_step
// x steps_per_s and mfu = gflops / the sgemm rate.  (Causal only: run_bench measures the sgemm rate
// twice, 1.4 s; the kernel's causal and full counts are checked above.)
TEST_CASE("bench: model_gflop_per_step equals the step's FLOPs by formula (causal flash: half); gflops and mfu from it") {
  BenchConfig bc;
  bc.model.model = "flash", bc.model.causal = true, bc.model.max_len = 32, bc.model.dim = 16, bc.model.heads = 2,
  bc.model.layers = 2, bc.model.ffn = 24;
  bc.batch = 2, bc.steps = 2, bc.warmup = 0;
  const double B = 2, N = 32, D = 16, H = 2, d = 8, F = 24, C = 10, L = 2;  // run_bench: 10 classes
  const double linears = L * (4 * 2 * B * N * D * D + 2 * 2 * B * N * D * F) + 2 * B * D * C;
  const double want = 3 * linears + 2 * (2 * B * N * D) + L * 12 * B * H * N * N * d / 2;  // 1.78 MFLOP
  BenchResult res = run_bench(bc);
  CHECK(res.model_gflop_per_step * 1e9 == doctest::Approx(want).epsilon(1e-12));
  CHECK(res.gflops == doctest::Approx(res.model_gflop_per_step * res.steps_per_s).epsilon(1e-12));
  CHECK(res.mfu == doctest::Approx(res.gflops / res.sgemm_peak_gflops).epsilon(1e-12));
}

// ---- decoding state: what each causal model keeps of the past, in bytes -------------------------

// After T positions (dim 16, 2 heads of d = 8), 4 bytes a float:
//   full, flash: every key and value, 2 H T d;  local (window w): the last w + 1 of them;
//   strided (window w, stride s) and longformer's dilated heads: the last w s + 1 (its local heads
//   share that ring);  linear, performer, rfa: S [m,d] and z [m] per head, m = d (elu+1), the
//   performer's features, twice rfa's (sin and cos);  synthesizer: the values, H T d, in every mode;
//   gmlp: LN(Z2)'s rows, T h;  mixer: the inputs and hidden units, 2 T D.
TEST_CASE("every causal model's state_bytes after T positions equals its formula") {
  const int64_t D = 16, H = 2, d = 8, T = 11, f = 4;  // f: bytes a float
  auto kv = [&](int64_t keep) { return 2 * H * std::min(T, keep) * d * f; };
  auto recurrent = [&](int64_t m) { return H * (m * d + m) * f; };
  struct Case {
    std::string model;
    std::map<std::string, double> knobs;
    int64_t bytes;
  };
  const std::vector<Case> cases = {
      {"full", {}, kv(T)},
      {"flash", {{"block_q", 4}, {"block_k", 4}}, kv(T)},
      {"local", {{"window", 3}, {"block", 4}}, kv(3 + 1)},
      {"local", {{"window", 20}}, kv(T)},  // a window past the context: every position so far
      {"strided", {{"window", 2}, {"stride", 3}}, kv(2 * 3 + 1)},
      {"longformer", {{"window", 2}, {"dilation", 3}, {"globals", 0}}, kv(2 * 3 + 1)},
      {"longformer", {{"window", 4}, {"dilation", 2}, {"globals", 0}, {"dilated_heads", 0}}, kv(4 + 1)},
      {"linear", {}, recurrent(d)},
      {"performer", {{"features", 12}}, recurrent(12)},
      {"performer", {}, recurrent(16)},  // m = d ln d = 8 ln 8 = 16.6, rounded down
      {"rfa", {{"features", 5}}, recurrent(2 * 5)},
      {"synthesizer", {{"synth_mode", 0}}, H * T * d * f},
      {"synthesizer", {{"synth_mode", 1}}, H * T * d * f},
      {"synthesizer", {{"synth_mode", 2}, {"synth_rank", 3}}, H * T * d * f},
      {"gmlp", {{"hidden", 10}}, T * 10 * f},
      {"gmlp", {}, T * 3 * D * f},  // h = 3 dim
      {"mixer", {}, 2 * T * D * f},
  };
  std::set<std::string> covered;
  for (const Case& c : cases) {
    CAPTURE(c.model);
    CAPTURE(c.knobs.size());
    covered.insert(c.model);
    AttentionConfig cfg;
    cfg.dim = D, cfg.heads = H, cfg.max_len = 24, cfg.causal = true, cfg.knobs = c.knobs;
    auto att = make_attention(c.model, cfg);
    att->eval();
    auto state = make_decode_state(*att);
    REQUIRE(state);
    Rng r(30);
    for (int64_t t = 0; t < T; ++t) state->step(Tensor::randn({1, 1, D}, 1.0f, r));
    CHECK(state->state_bytes() == c.bytes);
  }
  // every causal model with a decoding state has its formula above
  for (auto& name : attention_names()) {
    if (!attention_info(name).causal_ok || covered.count(name)) continue;
    AttentionConfig cfg;
    cfg.dim = D, cfg.heads = H, cfg.max_len = 24, cfg.causal = true;
    CAPTURE(name);
    CHECK_MESSAGE(!make_decode_state(*make_attention(name, cfg)), "a decoding state without a state_bytes formula here");
  }
}

// A language model's decoder keeps every layer's state, plus with --short-conv K the last K - 1
// inputs of each layer's convolution (D floats each); a model without a decoding state keeps the
// prefix's tokens (4 bytes each).  3 layers, T = 9 tokens, dim 16, 2 heads.
TEST_CASE("LmDecoder's state_bytes: every layer's state, the convolutions' past inputs, or the prefix's tokens") {
  const int64_t D = 16, H = 2, d = 8, T = 9, layers = 3, f = 4;
  struct Case {
    std::string model;
    std::map<std::string, double> knobs;
    int64_t short_conv, per_layer;  // per_layer: the mixer's state after T positions
  };
  for (const Case& c : std::vector<Case>{{"full", {}, 0, 2 * H * T * d * f},
                                         {"full", {}, 3, 2 * H * T * d * f},
                                         {"gmlp", {{"hidden", 10}}, 4, T * 10 * f},
                                         {"linear", {}, 0, H * (d * d + d) * f},
                                         {"test-counts-rerun", {}, 0, 0}}) {
    CAPTURE(c.model);
    CAPTURE(c.short_conv);
    ModelConfig m;
    m.model = c.model, m.knobs = c.knobs, m.short_conv = c.short_conv;
    m.vocab = 257, m.num_classes = 256, m.head = Head::kToken, m.causal = true;
    m.max_len = 24, m.dim = D, m.heads = H, m.layers = layers, m.ffn = 16, m.dropout = 0;
    SequenceClassifier model(m);
    LmDecoder dec(model);
    for (int64_t t = 0; t < T; ++t) dec.feed(int32_t(1 + t));
    const int64_t conv = c.short_conv > 0 ? layers * std::min(T, c.short_conv - 1) * D * f : 0;
    CHECK(dec.state_bytes() == (dec.incremental() ? layers * c.per_layer + conv : T * 4));
    CHECK(dec.incremental() == (c.model != "test-counts-rerun"));
  }
}
