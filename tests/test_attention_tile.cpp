// The attention tile engine (attention/kernels/tile.h) through its four users: flash,
// softmax_attention, sparse_attention and chunk_attention each equal a dense
// reference built from plain ops -- outputs and the gradients of q, k and v --
// with padding, causal masks, ragged tiles and attention dropout, whose mask is
// rebuilt here from the one formula (tile::Dropout) the engine uses.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>
#include <functional>

#include "attention/kernels/blocksparse.h"
#include "attention/kernels/cluster_util.h"
#include "attention/flash.h"
#include "attention/kernels/kernel_util.h"
#include "attention/kernels/tile.h"
#include "tests/attention_check.h"

using namespace az;
using namespace az::testing;

namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

Tensor uniform(const Shape& s, float lo, float hi, uint64_t seed) {
  Rng r(seed);
  return Tensor::uniform(s, lo, hi, r);
}

// fast and ref agree in value and in every input's gradient (upstream gradient random).
void check_same_grads(const Fn& fast, const Fn& ref, const std::vector<Tensor>& in, double tol) {
  auto run = [&](const Fn& f, std::vector<Tensor>& grads) {
    std::vector<Tensor> x;
    for (const Tensor& t : in) x.push_back(t.detach().set_requires_grad());
    Tensor y = f(x);
    Rng r(77);
    y.backward(Tensor::uniform(y.shape(), -1, 1, r));
    for (const Tensor& t : x) grads.push_back(t.grad().detach());
    return y.detach();
  };
  std::vector<Tensor> ga, gb;
  Tensor a = run(fast, ga), b = run(ref, gb);
  check_close(a, b, tol, "output");
  for (size_t i = 0; i < ga.size(); ++i) check_close(ga[i], gb[i], tol, "gradient of input " + std::to_string(i));
}

// The dropout factors the engine applies, as a tensor: entry idx(...) of the draw.
Tensor factors(const tile::Dropout& dr, const Shape& s, const std::function<int64_t(int64_t)>& idx) {
  Tensor f = Tensor::empty(s);
  for (int64_t e = 0; e < f.numel(); ++e) {
    int64_t i = idx(e);
    f.data()[e] = i < 0 ? 0.0f : (dr.keep(uint64_t(i)) ? dr.scale : 0.0f);
  }
  return f;
}

const float kP = 0.3f;

}  // namespace

TEST_CASE("the dropout formula is dropout()'s: same draw, same mask") {
  Tensor ones = Tensor::ones({3, 50});
  global_rng().seed_with(4);
  Tensor d = dropout(ones, kP, true);
  global_rng().seed_with(4);
  tile::Dropout dr = tile::Dropout::draw(kP, true, global_rng(), 3, 150);
  int64_t dropped = 0;
  for (int64_t i = 0; i < 150; ++i) {
    CHECK(d.data()[i] == (dr.keep(uint64_t(i)) ? dr.scale : 0.0f));
    dropped += d.data()[i] == 0;
  }
  CHECK(dropped > 20);  // about 45 of 150
  CHECK(dropped < 75);
  CHECK(!tile::Dropout::draw(kP, false, global_rng(), 3, 150).on);
}

TEST_CASE("flash with dropout equals full attention with dropout: padding, causal, ragged tiles, gradients") {
  const int64_t B = 2, H = 2, N = 37, d = 4;
  Tensor pad = padding(N, {N, 29});
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    Tensor mask = key_mask(pad);
    if (causal) mask = add(mask, reshape(causal_mask(N), {1, 1, N, N}));
    std::vector<Tensor> in = {uniform({B, H, N, d}, -1, 1, 1), uniform({B, H, N, d}, -1, 1, 2),
                              uniform({B, H, N, d}, -1, 1, 3)};
    for (float p : {0.0f, kP}) {
      CAPTURE(p);
      check_same_grads(
          [&](const std::vector<Tensor>& t) {
            global_rng().seed_with(9);
            return flash_attention(t[0], t[1], t[2], pad, causal, 0.7f, 8, 16, p, true);  // 37: neither block divides it
          },
          [&](const std::vector<Tensor>& t) {
            global_rng().seed_with(9);
            return dense_attention(t[0], t[1], t[2], mask, 0.7f, p, true);
          },
          in, 2e-5);
    }
  }
}

TEST_CASE("sparse_attention with dropout equals a dense masked reference: padding, ragged groups, gradients") {
  const int64_t B = 2, H = 2, N = 23, d = 4;
  BandSpec bs;
  bs.n = N, bs.block = 5, bs.radius = 3, bs.globals = {0, 11};  // 23 rows in groups of 5: a ragged last group
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    bs.causal = causal;
    if (causal) bs.globals.clear();  // (global tokens have no causal form)
    auto L = band_layout(bs);
    Layouts ls = {L};
    Tensor pad = padding(N, {N, 17});
    // excluded[b,h,i,j] = 1 unless (i, j) is labelled and j is a real key; dropout number of each entry
    Tensor excl = Tensor::ones({B, H, N, N});
    std::vector<int64_t> num(size_t(B * H * N * N), -1);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h)
        for (size_t g = 0; g < L->groups.size(); ++g) {
          const SparseGroup& G = L->groups[g];
          for (size_t r = 0; r < G.rows.size(); ++r)
            for (size_t j = 0; j < G.cols.size(); ++j) {
              int64_t at = ((b * H + h) * N + G.rows[r]) * N + G.cols[j];
              num[size_t(at)] = b * H * L->entries + h * L->entries + L->offset[g] + int64_t(r * G.cols.size() + j);
              if (L->label_at(g, r, j) != 0 && pad.data()[b * N + G.cols[j]] == 0) excl.data()[at] = 0;
            }
        }
    std::vector<Tensor> in = {uniform({B, H, N, d}, -1, 1, 4), uniform({B, H, N, d}, -1, 1, 5),
                              uniform({B, H, N, d}, -1, 1, 6)};
    check_same_grads(
        [&](const std::vector<Tensor>& t) {
          global_rng().seed_with(3);
          return sparse_attention(t[0], t[1], t[2], ls, pad, 0.6f, kP, true);
        },
        [&](const std::vector<Tensor>& t) {
          global_rng().seed_with(3);
          tile::Dropout dr = tile::Dropout::draw(kP, true, global_rng(), B, B * H * L->entries);
          Tensor f = factors(dr, {B, H, N, N}, [&](int64_t e) { return num[size_t(e)]; });
          Tensor p = softmax(matmul(mul_scalar(t[0], 0.6f), t[1], false, true), excl, true);
          return matmul(mul(p, f), t[2]);
        },
        in, 2e-5);
  }
}

TEST_CASE("chunk_attention with dropout equals a dense per-chunk reference: excluded keys, repeated rows, gradients") {
  const int64_t G = 2, N = 9, d = 3, dv = 2, C = 3, cq = 4, ck = 5;
  Rng r(12);
  Chunks ch;
  ch.q_rows = IntTensor({G, C, cq}, std::vector<int32_t>(size_t(G * C * cq)));
  ch.k_rows = IntTensor({G, C, ck}, std::vector<int32_t>(size_t(G * C * ck)));
  for (auto& i : ch.q_rows.data) i = int32_t(r.randint(N));  // a row may sit in several chunks
  for (auto& i : ch.k_rows.data) i = int32_t(r.randint(N));
  ch.k_out.assign(size_t(G * N), 0);
  ch.k_out[2] = ch.k_out[N + 5] = 1;
  // one-hot gathers: Aq [G, C cq, N], Ak [G, C ck, N]; key exclusion as a [G,C,1,ck] mask
  Tensor Aq = Tensor::zeros({G, C * cq, N}), Ak = Tensor::zeros({G, C * ck, N}), excl = Tensor::zeros({G, C, 1, ck});
  for (int64_t g = 0; g < G; ++g)
    for (int64_t s = 0; s < C * cq; ++s) Aq.data()[(g * C * cq + s) * N + ch.q_rows.data[size_t(g * C * cq + s)]] = 1;
  for (int64_t g = 0; g < G; ++g)
    for (int64_t s = 0; s < C * ck; ++s) {
      int32_t row = ch.k_rows.data[size_t(g * C * ck + s)];
      Ak.data()[(g * C * ck + s) * N + row] = 1;
      excl.data()[g * C * ck + s] = ch.k_out[size_t(g * N + row)];
    }
  std::vector<Tensor> in = {uniform({G, N, d}, -1, 1, 7), uniform({G, N, d}, -1, 1, 8), uniform({G, N, dv}, -1, 1, 9)};
  check_same_grads(
      [&](const std::vector<Tensor>& t) {
        global_rng().seed_with(5);
        return chunk_attention(t[0], t[1], t[2], ch, 0.8f, kP, true).out;
      },
      [&](const std::vector<Tensor>& t) {
        global_rng().seed_with(5);
        tile::Dropout dr = tile::Dropout::draw(kP, true, global_rng(), G, G * C * cq * ck);
        Tensor f = factors(dr, {G, C, cq, ck}, [](int64_t e) { return e; });
        Tensor qc = reshape(matmul(Aq, t[0]), {G, C, cq, d}), kc = reshape(matmul(Ak, t[1]), {G, C, ck, d});
        Tensor vc = reshape(matmul(Ak, t[2]), {G, C, ck, dv});
        Tensor p = softmax(matmul(mul_scalar(qc, 0.8f), kc, false, true), excl, true);
        Tensor oc = reshape(matmul(mul(p, f), vc), {G, C * cq, dv});
        return matmul(Aq, oc, true, false);  // each slot's output added into its query row
      },
      in, 2e-5);
}

TEST_CASE("softmax_attention's tiles: causal with padding and dropout equals dense, gradients") {
  const int64_t B = 2, H = 2, N = 140, d = 3;  // 140 rows: a full chunk of 128 and a ragged one
  Tensor pad = padding(N, {N, 100});
  Tensor mask = add(key_mask(pad), reshape(causal_mask(N), {1, 1, N, N}));
  std::vector<Tensor> in = {uniform({B, H, N, d}, -1, 1, 10), uniform({B, H, N, d}, -1, 1, 11),
                            uniform({B, H, N, 2}, -1, 1, 12)};
  check_same_grads(
      [&](const std::vector<Tensor>& t) {
        global_rng().seed_with(6);
        return softmax_attention(t[0], t[1], t[2], pad, 0.5f, kP, true, true);
      },
      [&](const std::vector<Tensor>& t) {
        global_rng().seed_with(6);
        return dense_attention(t[0], t[1], t[2], mask, 0.5f, kP, true);
      },
      in, 2e-5);
}

TEST_CASE("tile::gemm (libxsmm where it compiles the form, else OpenBLAS) equals the plain triple loop") {
  Rng r(21);
  for (bool small : {true, false}) {
    tile::set_small_gemm(small);
    for (int form = 0; form < 3; ++form)      // A B, A^T B, A B^T
      for (float alpha : {1.0f, 0.5f})
        for (float beta : {0.0f, 1.0f})
          for (int64_t M : {1, 7, 64})
            for (int64_t N : {5, 33}) {
              const int64_t K = 19, lda = (form == 1 ? M : K) + 3, ldb = (form == 2 ? K : N) + 2, ldc = N + 1;
              bool ta = form == 1, tb = form == 2;
              std::vector<float> A(size_t((ta ? K : M) * lda)), B(size_t((tb ? N : K) * ldb)), C(size_t(M * ldc));
              for (auto* v : {&A, &B, &C})
                for (float& x : *v) x = r.uniform() - 0.5f;
              std::vector<float> want = C;
              for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j) {
                  double acc = 0;
                  for (int64_t k = 0; k < K; ++k) acc += double(ta ? A[k * lda + i] : A[i * lda + k]) * (tb ? B[j * ldb + k] : B[k * ldb + j]);
                  want[size_t(i * ldc + j)] = float(alpha * acc + beta * C[size_t(i * ldc + j)]);
                }
              tile::gemm(ta, tb, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc);
              INFO("small " << small << " form " << form << " alpha " << alpha << " beta " << beta << " M " << M << " N " << N);
              for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j) CHECK(C[size_t(i * ldc + j)] == doctest::Approx(want[size_t(i * ldc + j)]).epsilon(1e-5).scale(1));
            }
  }
  tile::set_small_gemm(true);
}

TEST_CASE("the tile engine leaves OMP_PROC_BIND as the program found it (libxsmm sets it to TRUE)") {
  // The environment the process started with, as exec gave it (putenv does not change this copy).
  std::ifstream in("/proc/self/environ", std::ios::binary);
  std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), start;
  bool had = false;
  for (size_t i = 0; i < env.size();) {
    size_t end = env.find('\0', i);
    if (end == std::string::npos) end = env.size();
    std::string kv = env.substr(i, end - i);
    if (kv.rfind("OMP_PROC_BIND=", 0) == 0) had = true, start = kv.substr(14);
    i = end + 1;
  }
  std::vector<float> a(64 * 64, 0.5f), c(64 * 64);
  tile::gemm(false, false, 64, 64, 64, 1.0f, a.data(), 64, a.data(), 64, 0.0f, c.data(), 64);  // libxsmm's, if built in
  CHECK(c[0] == doctest::Approx(16.0f));
  const char* now = std::getenv("OMP_PROC_BIND");
  CHECK((now != nullptr) == had);
  if (now && had) CHECK(std::string(now) == start);
}
