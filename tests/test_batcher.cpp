// Tests for data/batcher: padding, masks and truncation, one pass per epoch,
// seeded shuffling, save/restore of the stream position, in-order evaluation
// batches, and image patches checked against a hand-made 4x4x2 image.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "data/batcher.h"
#include "tests/util.h"

using namespace az;

namespace {

using az::test::error_of;

// n examples; example r has length lens[r % lens.size()], tokens r*100+1, r*100+2, ...
// (so a token tells which row it came from) and label r % 3.
Dataset numbered(size_t n, std::vector<size_t> lens = {3, 5, 1, 8}) {
  Dataset d;
  d.vocab_size = 100000;
  d.num_classes = 3;
  for (size_t r = 0; r < n; ++r) {
    std::vector<int32_t> s(lens[r % lens.size()]);
    for (size_t t = 0; t < s.size(); ++t) s[t] = static_cast<int32_t>(r * 100 + t + 1);
    d.seqs.push_back(s);
    d.labels.push_back(static_cast<int32_t>(r % 3));
  }
  return d;
}

bool same(const Batch& a, const Batch& b) {
  return a.B == b.B && a.N == b.N && a.tokens == b.tokens && a.pad_mask == b.pad_mask &&
         a.labels == b.labels && a.patches == b.patches && a.patch_dim == b.patch_dim;
}

}  // namespace

TEST_CASE("batcher: padding, mask and truncation") {
  const Dataset d = numbered(4);  // lengths 3, 5, 1, 8
  BatchOptions o;
  o.max_len = 6;
  Batch b = make_batch(d, {0, 1, 2}, o);
  CHECK(b.B == 3);
  CHECK(b.N == 5);  // the longest, not max_len
  CHECK(b.tokens == std::vector<int32_t>{1, 2, 3, 0, 0, 101, 102, 103, 104, 105, 201, 0, 0, 0, 0});
  CHECK(b.pad_mask == std::vector<float>{0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(b.labels == std::vector<int32_t>{0, 1, 2});
  CHECK(b.patches.empty());

  b = make_batch(d, {3, 2}, o);  // 8 tokens cut to 6
  CHECK(b.N == 6);
  CHECK(b.tokens == std::vector<int32_t>{301, 302, 303, 304, 305, 306, 201, 0, 0, 0, 0, 0});
  CHECK(b.pad_mask == std::vector<float>{0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1});

  o.max_len = 16;
  o.pad_multiple = 4;
  CHECK(make_batch(d, {0, 1}, o).N == 8);  // 5 rounded up to 8
  CHECK(make_batch(d, {2}, o).N == 4);
  o.max_len = 6;
  CHECK(make_batch(d, {0, 1}, o).N == 6);  // rounding never passes max_len
  o.pad_multiple = 1;
  o.fixed_len = true;
  b = make_batch(d, {2}, o);
  CHECK(b.N == 6);
  CHECK(b.tokens == std::vector<int32_t>{201, 0, 0, 0, 0, 0});
  CHECK(b.pad_mask == std::vector<float>{0, 1, 1, 1, 1, 1});
}

TEST_CASE("batcher: every example exactly once per epoch, batches of constant size") {
  const size_t n = 10;
  const Dataset d = numbered(n, {1});
  Batcher bt(d, 3, 4, 42);
  CHECK(bt.batches_per_epoch() == 4);
  std::vector<size_t> served;
  for (int k = 0; k < 10; ++k) {  // 30 examples = 3 epochs
    const Batch b = bt.next();
    REQUIRE(b.B == 3);
    REQUIRE(bt.last_rows().size() == 3);
    for (int i = 0; i < 3; ++i) {
      const size_t r = bt.last_rows()[i];
      CHECK(b.tokens[i * b.N] == static_cast<int32_t>(r * 100 + 1));  // the batch holds those rows
      CHECK(b.labels[i] == static_cast<int32_t>(r % 3));
      served.push_back(r);
    }
  }
  CHECK(bt.epoch() == 2);
  std::vector<std::vector<size_t>> epochs;
  for (int e = 0; e < 3; ++e) {
    std::vector<size_t> ep(served.begin() + e * n, served.begin() + (e + 1) * n);
    epochs.push_back(ep);
    std::sort(ep.begin(), ep.end());
    std::vector<size_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    CHECK(ep == all);
  }
  CHECK(epochs[0] != epochs[1]);  // reshuffled each epoch
  CHECK(epochs[1] != epochs[2]);
}

TEST_CASE("batcher: seeded shuffle is reproducible; no shuffle keeps the order") {
  const Dataset d = numbered(50);
  Batcher a(d, 8, 6, 7), b(d, 8, 6, 7), c(d, 8, 6, 8), plain(d, 8, 6, 7, /*shuffle=*/false);
  bool differs = false;
  for (int k = 0; k < 20; ++k) {
    const Batch ba = a.next(), bb = b.next(), bc = c.next();
    CHECK(same(ba, bb));
    differs = differs || !same(ba, bc);
  }
  CHECK(differs);
  for (int k = 0; k < 7; ++k) {  // 56 examples: one epoch and the start of the next
    plain.next();
    for (int i = 0; i < 8; ++i) CHECK(plain.last_rows()[i] == (k * 8 + i) % 50);
  }
}

TEST_CASE("batcher: saved state restores the exact stream") {
  const Dataset d = numbered(23);
  Batcher a(d, 5, 6, 99);
  for (int k = 0; k < 7; ++k) a.next();  // into the second epoch
  const BatcherState s = a.state();
  CHECK(s.epoch == 1);
  CHECK(s.index == 12);  // 35 served = 23 + 12
  std::vector<Batch> expected;
  for (int k = 0; k < 15; ++k) expected.push_back(a.next());

  Batcher b(d, 5, 6, /*seed=*/12345);  // a different seed: restore brings the saved one
  b.next();
  b.restore(s);
  for (int k = 0; k < 15; ++k) CHECK(same(b.next(), expected[k]));

  // A state saved exactly at an epoch end.
  Batcher e(d, 23, 6, 5);
  e.next();
  const BatcherState at_end = e.state();
  CHECK(at_end.index == 23);
  const Batch want = e.next();
  Batcher f(d, 23, 6, 0);
  f.restore(at_end);
  CHECK(same(f.next(), want));

  const Dataset other = numbered(24);
  Batcher g(other, 5, 6, 99);
  CHECK(error_of<DataError>([&] { g.restore(s); }).find("23 examples, this one has 24") != std::string::npos);
}

TEST_CASE("batcher: eval batches cover the split in order") {
  const Dataset d = numbered(10);
  const std::vector<Batch> ev = eval_batches(d, 4, 6);
  REQUIRE(ev.size() == 3);
  CHECK(ev[0].B == 4);
  CHECK(ev[1].B == 4);
  CHECK(ev[2].B == 2);
  int r = 0;
  for (const Batch& b : ev)
    for (int i = 0; i < b.B; ++i, ++r) {
      CHECK(b.tokens[i * b.N] == r * 100 + 1);
      CHECK(b.labels[i] == r % 3);
    }
  CHECK(r == 10);
  CHECK(eval_batches(Dataset{}, 4, 6).empty());
}

TEST_CASE("batcher: scoring batches by length take the first rows once each, longest first, with less padding") {
  const Dataset d = numbered(14);  // lengths 3 5 1 8 3 5 1 8 ...
  BatchOptions o;
  o.batch = 4, o.max_len = 6;
  for (size_t rows : {size_t(14), size_t(9), size_t(100)}) {
    CAPTURE(rows);
    const std::vector<Batch> ev = eval_batches_by_length(d, o, rows);
    std::multiset<int> seen;
    size_t padded = 0, prev_n = 1000, real = 0;
    for (const Batch& b : ev) {
      CHECK(size_t(b.N) <= prev_n);  // longest first
      prev_n = size_t(b.N);
      padded += size_t(b.B) * size_t(b.N);
      for (int i = 0; i < b.B; ++i) {
        const int row = (b.tokens[size_t(i) * size_t(b.N)] - 1) / 100;
        seen.insert(row);
        CHECK(b.labels[size_t(i)] == row % 3);
        for (int t = 0; t < b.N; ++t) real += b.pad_mask[size_t(i) * size_t(b.N) + size_t(t)] == 0.0f;
      }
    }
    const size_t n = std::min<size_t>(rows, 14);
    std::multiset<int> want;
    for (size_t r = 0; r < n; ++r) want.insert(int(r));
    CHECK(seen == want);  // exactly rows [0, n), once each
    Dataset first = d;
    first.seqs.resize(n), first.labels.resize(n);
    size_t in_order = 0, real_in_order = 0;
    for (const Batch& b : eval_batches(first, o)) {
      in_order += size_t(b.B) * size_t(b.N);
      for (float m : b.pad_mask) real_in_order += m == 0.0f;
    }
    CHECK(real == real_in_order);   // the same tokens, cut at max_len alike
    CHECK(padded < in_order);       // in less room
  }
  CHECK(eval_batches_by_length(d, o, 0).empty());
}

TEST_CASE("batcher: patches of a hand-made 4x4 image with 2 channels") {
  // Pixel (y, x, c) has value 8*k with k = (y*4 + x)*2 + c, i.e. k counts the
  // tokens in storage order; the token is value + 1.
  Dataset d;
  d.height = 4;
  d.width = 4;
  d.channels = 2;
  d.vocab_size = 257;
  d.num_classes = 2;
  std::vector<int32_t> img(32);
  for (int k = 0; k < 32; ++k) img[k] = 8 * k + 1;
  d.seqs = {img, img};
  d.labels = {1, 0};
  BatchOptions o;
  o.batch = 2;
  o.patch = 2;
  const Batch b = make_batch(d, {0, 1}, o);
  CHECK(b.B == 2);
  CHECK(b.N == 4);
  CHECK(b.patch_dim == 8);
  CHECK(b.tokens == std::vector<int32_t>(8, 1));
  CHECK(b.pad_mask == std::vector<float>(8, 0.0f));
  CHECK(b.labels == std::vector<int32_t>{1, 0});
  // Patches row-major over the image; inside one, (dy, dx) row-major then c:
  // patch 0 holds pixels (0,0) (0,1) (1,0) (1,1), i.e. k = 0 1 2 3 8 9 10 11.
  const int expected_k[4][8] = {{0, 1, 2, 3, 8, 9, 10, 11},
                                {4, 5, 6, 7, 12, 13, 14, 15},
                                {16, 17, 18, 19, 24, 25, 26, 27},
                                {20, 21, 22, 23, 28, 29, 30, 31}};
  REQUIRE(b.patches.size() == 2 * 4 * 8);
  for (int img_i = 0; img_i < 2; ++img_i)
    for (int p = 0; p < 4; ++p)
      for (int j = 0; j < 8; ++j)
        CHECK(b.patches[(img_i * 4 + p) * 8 + j] == doctest::Approx(8.0 * expected_k[p][j] / 255.0));

  // The free function on a pixel batch agrees; P = 4 is the image in storage order.
  BatchOptions px;
  px.max_len = 32;
  const Batch pixels = make_batch(d, {0, 1}, px);
  CHECK(same(to_patches(pixels, d, 2), b));
  const Batch whole = to_patches(pixels, d, 4);
  CHECK(whole.N == 1);
  CHECK(whole.patch_dim == 32);
  for (int k = 0; k < 32; ++k) CHECK(whole.patches[k] == doctest::Approx(8.0 * k / 255.0));
  // A Batcher in patch view serves the same thing.
  Batcher bt(d, o, 0, /*shuffle=*/false);
  CHECK(same(bt.next(), b));

  Dataset mnist;
  mnist.height = mnist.width = 28;
  mnist.channels = 1;
  mnist.seqs = {std::vector<int32_t>(784, 1)};
  mnist.labels = {0};
  o.patch = 5;
  CHECK(error_of<DataError>([&] { make_batch(mnist, {0}, o); }) == "batcher: patch 5 does not divide image size 28x28");
  o.patch = 7;
  CHECK(make_batch(mnist, {0}, o).N == 16);
  // A short image (or a truncated pixel batch) is an error, not a read past the end.
  mnist.seqs[0].resize(700);
  CHECK(error_of<DataError>([&] { make_batch(mnist, {0}, o); }).find("pixel token 0") != std::string::npos);
  px.max_len = 16;
  CHECK(error_of<DataError>([&] { to_patches(make_batch(d, {0}, px), d, 2); }).find("N=16") != std::string::npos);
}

TEST_CASE("batcher: bad options and bad data are errors") {
  const Dataset d = numbered(4);
  CHECK(error_of<DataError>([&] { Batcher b(Dataset{}, 4, 8, 0); }).find("empty") != std::string::npos);
  CHECK(error_of<DataError>([&] { Batcher b(d, 0, 8, 0); }).find("batch >= 1") != std::string::npos);
  CHECK(error_of<DataError>([&] { Batcher b(d, 4, 0, 0); }).find("max_len >= 1") != std::string::npos);
  BatchOptions o;
  o.max_len = 8;
  o.pad_multiple = 0;
  CHECK(error_of<DataError>([&] { eval_batches(d, o); }).find("pad_multiple") != std::string::npos);
  Dataset bad = numbered(2);
  bad.vocab_size = 50;  // tokens 101.. are outside it
  CHECK(error_of<DataError>([&] { eval_batches(bad, 2, 8); }).find("row 1 position 0") != std::string::npos);
  bad = numbered(2);
  bad.labels[1] = 7;
  CHECK(error_of<DataError>([&] { eval_batches(bad, 2, 8); }).find("label 7 at row 1") != std::string::npos);
  o.pad_multiple = 1;
  CHECK(error_of<DataError>([&] { make_batch(d, {9}, o); }).find("row 9 out of range") != std::string::npos);
}

TEST_CASE("batcher: image augmentation is a mirror and a shift, seeded by the stream position") {
  // A 5x4 image with 2 channels and distinct tokens 2..41 (token 1 is black).
  Dataset d;
  d.height = 5, d.width = 4, d.channels = 2, d.vocab_size = 257, d.num_classes = 2;
  std::vector<int32_t> img(40);
  for (int k = 0; k < 40; ++k) img[k] = k + 2;
  for (int r = 0; r < 50; ++r) d.seqs.push_back(img), d.labels.push_back(r % 2);
  // the image shown mirrored (or not) and moved down dy, right dx, the border black
  auto moved = [&](bool mirror, int dy, int dx) {
    std::vector<int32_t> out(40);
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 4; ++x)
        for (int c = 0; c < 2; ++c) {
          int sy = y - dy, sx = (mirror ? 3 - x : x) - dx;
          out[(y * 4 + x) * 2 + c] = sy >= 0 && sy < 5 && sx >= 0 && sx < 4 ? img[(sy * 4 + sx) * 2 + c] : 1;
        }
    return out;
  };
  BatchOptions o;
  o.batch = 50, o.max_len = 40;
  Batch px = make_batch(d, std::vector<size_t>(50, 0), o);
  augment_images(px, d, true, 2, 7);
  int mirrored = 0;
  std::set<std::pair<int, int>> shifts;
  for (int b = 0; b < 50; ++b) {
    std::vector<int32_t> got(px.tokens.begin() + b * 40, px.tokens.begin() + (b + 1) * 40);
    int matches = 0;
    for (int m = 0; m < 2; ++m)
      for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx)
          if (got == moved(m, dy, dx)) ++matches, mirrored += m, shifts.insert({dy, dx});
    CHECK(matches == 1);  // exactly one (mirror, dy, dx) explains each image
  }
  CHECK(mirrored > 10);
  CHECK(mirrored < 40);
  CHECK(shifts.size() > 10);
  // nothing asked, nothing done
  Batch plain = make_batch(d, std::vector<size_t>(3, 0), o), same_again = plain;
  augment_images(same_again, d, false, 0, 7);
  CHECK(same_again.tokens == plain.tokens);

  // The training stream: augmented, reproducible from a saved position, in the patch view too;
  // evaluation batches (and a stream without shuffling) are never augmented.
  for (int patch : {0, 1}) {
    CAPTURE(patch);
    BatchOptions a = o;
    a.batch = 8, a.flip = true, a.shift = 1, a.patch = patch;
    Batcher s(d, a, 3), t(d, a, 3);
    for (int i = 0; i < 9; ++i) s.next();
    t.restore(s.state());
    for (int i = 0; i < 4; ++i) CHECK(same(s.next(), t.next()));
    Batch aug = s.next();
    CHECK_FALSE(same(aug, make_batch(d, s.last_rows(), a)));
    Batcher ordered(d, a, 3, false);
    Batch e = ordered.next();
    CHECK(same(e, make_batch(d, ordered.last_rows(), a)));
  }
  BatchOptions bad = o;
  bad.batch = 2, bad.shift = 5;
  CHECK(error_of<DataError>([&] { Batcher(d, bad, 1).next(); }) == "batcher: shift must be in 0..4, got 5");
  Dataset text = numbered(4);
  bad.shift = 1;
  CHECK(error_of<DataError>([&] { Batcher(text, bad, 1).next(); }) == "batcher: --flip and --shift need an image dataset");
}
