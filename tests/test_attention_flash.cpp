// flash: tiled exact attention equals full attention, values and gradients.
#include "attention/flash.h"
#include "tests/attention_check.h"

using namespace az;
using namespace az::testing;

TEST_CASE("flash equals full attention: forward and every gradient, padding and causal, ragged tiles") {
  for (int causal = 0; causal < 2; ++causal) {
    CAPTURE(causal);
    AttentionConfig c;
    c.dim = 16, c.heads = 2, c.max_len = 64, c.causal = causal;
    c.knobs = {{"block_q", 8}, {"block_k", 16}};  // 37 is a multiple of neither
    global_rng().seed_with(5);
    auto att = make_attention("flash", c);
    Tensor x = random_input(2, 37, 16, 9);
    Tensor pad = padding(37, {37, 30});
    Tensor mask = key_mask(pad);
    if (causal) mask = add(mask, reshape(causal_mask(37), {1, 1, 37, 37}));
    check_same_function(
        *att, [&](const Tensor& in) { return att->forward(in, pad); },
        [&](const Tensor& in) { return dense_reference(*att, in, mask, 2); }, x, pad, 2e-5);
  }
}

TEST_CASE("the flash op is gradient-checked, and a query with no visible key gives zeros") {
  Rng r(3);
  Tensor q = Tensor::randn({1, 2, 11, 4}, 1.0f, r).set_requires_grad();
  Tensor k = Tensor::randn({1, 2, 11, 4}, 1.0f, r).set_requires_grad();
  Tensor v = Tensor::randn({1, 2, 11, 4}, 1.0f, r).set_requires_grad();
  Tensor pad = padding(11, {8});
  GradcheckResult g = gradcheck([&](auto& in) { return flash_attention(in[0], in[1], in[2], pad, true, 0.5f, 3, 4); },
                                {q, k, v});
  INFO(g.worst);
  CHECK(g.ok);
  Tensor all = padding(11, {0});
  Tensor o = flash_attention(q, k, v, all, false, 0.5f, 4, 4);
  for (int64_t i = 0; i < o.numel(); ++i) CHECK(o.data()[i] == 0.0f);
}

TEST_CASE("flash's attention weights are full's") {
  AttentionConfig c;
  c.dim = 8, c.heads = 2, c.max_len = 16;
  global_rng().seed_with(2);
  auto f = make_attention("flash", c);
  global_rng().seed_with(2);
  auto d = make_attention("full", c);
  Tensor x = random_input(1, 9, 8, 4);
  check_close(f->attention_weights(x, Tensor()), d->attention_weights(x, Tensor()), 1e-6, "weights");
}

TEST_CASE("flash's default key tile follows the head dim, and equals full attention there") {
  // Bc x d floats within 32 KB (past it the tile products slow by a quarter: make bench-core)
  CHECK(flash_block_k(8) == 256);
  CHECK(flash_block_k(16) == 256);
  CHECK(flash_block_k(32) == 256);
  CHECK(flash_block_k(48) == 128);
  CHECK(flash_block_k(64) == 128);
  CHECK(flash_block_k(128) == 64);
  CHECK(flash_block_k(256) == 64);
  // the default knobs at head dim 64 and 300 keys (tiles of 64 x 128, the last ones ragged)
  AttentionConfig c;
  c.dim = 128, c.heads = 2, c.max_len = 300;
  global_rng().seed_with(7);
  auto att = make_attention("flash", c);
  Tensor x = random_input(1, 300, 128, 3);
  Tensor pad = padding(300, {290});
  check_same_function(
      *att, [&](const Tensor& in) { return att->forward(in, pad); },
      [&](const Tensor& in) { return dense_reference(*att, in, key_mask(pad), 2); }, x, pad, 2e-5);
}
