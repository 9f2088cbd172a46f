// Batching: padding and truncation, the seeded epoch stream with a resumable
// position, evaluation batches, and image patches.  See batcher.h.
#include "data/batcher.h"

#include <algorithm>
#include <string>

namespace az {

namespace {

[[noreturn]] void fail(const std::string& what) { throw DataError("batcher: " + what); }

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t mix64(uint64_t x) { return splitmix64(x); }

// Uniform in [0, n) without modulo bias.
uint64_t uniform_below(uint64_t& state, uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do x = splitmix64(state); while (x >= limit);
  return x % n;
}

void check_options(const BatchOptions& o) {
  if (o.batch < 1) fail("expected batch >= 1, got " + std::to_string(o.batch));
  if (o.patch < 0) fail("expected patch >= 0, got " + std::to_string(o.patch));
  if (o.patch == 0 && o.max_len < 1) fail("expected max_len >= 1, got " + std::to_string(o.max_len));
  if (o.pad_multiple < 1) fail("expected pad_multiple >= 1, got " + std::to_string(o.pad_multiple));
  if (o.shift < 0) fail("expected shift >= 0, got " + std::to_string(o.shift));
}

// Pair tasks: the second sequences of the rows, padded to their own longest
// (cut to cap), with their own mask.
void add_second_sequences(const Dataset& d, const std::vector<size_t>& rows, size_t cap, bool fixed, Batch& b) {
  if (d.seqs2.size() != d.seqs.size())
    fail("pair dataset has " + std::to_string(d.seqs.size()) + " first and " + std::to_string(d.seqs2.size()) +
         " second sequences");
  size_t N2 = 1;
  for (size_t r : rows) N2 = std::max(N2, std::min(d.seqs2[r].size(), cap));
  if (fixed) N2 = cap;
  b.N2 = static_cast<int>(N2);
  b.tokens2.assign(rows.size() * N2, 0);
  b.pad_mask2.assign(rows.size() * N2, 1.0f);
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::vector<int32_t>& s = d.seqs2[rows[i]];
    for (size_t t = 0; t < std::min(s.size(), N2); ++t) {
      if (s[t] < 0 || (d.vocab_size > 0 && s[t] >= d.vocab_size))
        fail("token " + std::to_string(s[t]) + " of the second sequence at row " + std::to_string(rows[i]) +
             " is outside the vocabulary [0, " + std::to_string(d.vocab_size) + ")");
      b.tokens2[i * N2 + t] = s[t];
      b.pad_mask2[i * N2 + t] = 0.0f;
    }
  }
}

// Rows of a batch: tokens cut to max_len, padded to N with 0 and pad_mask 1.
// pixels.N = H*W*C for the patch view (whole images, no cutting).
Batch pad_rows(const Dataset& d, const std::vector<size_t>& rows, const BatchOptions& o) {
  const bool whole_images = o.patch > 0;
  const size_t image_len = static_cast<size_t>(d.height) * d.width * d.channels;
  const size_t cap = whole_images ? image_len : static_cast<size_t>(o.max_len);
  if (d.labels.size() != d.seqs.size())
    fail("dataset has " + std::to_string(d.seqs.size()) + " sequences but " +
         std::to_string(d.labels.size()) + " labels");
  size_t longest = 0;
  for (size_t r : rows) {
    if (r >= d.size())
      fail("row " + std::to_string(r) + " out of range; dataset has " + std::to_string(d.size()));
    longest = std::max(longest, std::min(d.seqs[r].size(), cap));
  }
  size_t N = std::max<size_t>(longest, 1);
  if (whole_images || o.fixed_len) {
    N = cap;
  } else {
    const size_t m = static_cast<size_t>(o.pad_multiple);
    N = std::min((N + m - 1) / m * m, cap);
  }
  Batch b;
  b.B = static_cast<int>(rows.size());
  b.N = static_cast<int>(N);
  b.tokens.assign(rows.size() * N, 0);
  b.pad_mask.assign(rows.size() * N, 1.0f);
  b.labels.resize(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::vector<int32_t>& s = d.seqs[rows[i]];
    const size_t n = std::min(s.size(), N);
    for (size_t t = 0; t < n; ++t) {
      const int32_t id = s[t];
      if (id < 0 || (d.vocab_size > 0 && id >= d.vocab_size))
        fail("token " + std::to_string(id) + " at row " + std::to_string(rows[i]) + " position " +
             std::to_string(t) + " is outside the vocabulary [0, " + std::to_string(d.vocab_size) + ")");
      b.tokens[i * N + t] = id;
      b.pad_mask[i * N + t] = 0.0f;
    }
    if (!d.targets.empty()) {  // per-position targets, aligned with the (cut) tokens
      const std::vector<int32_t>& tg = d.targets[rows[i]];
      if (tg.size() != s.size())
        fail("row " + std::to_string(rows[i]) + " has " + std::to_string(s.size()) + " tokens but " +
             std::to_string(tg.size()) + " targets");
      if (b.targets.empty()) b.targets.assign(rows.size() * N, kIgnoreTarget);
      std::copy(tg.begin(), tg.begin() + long(n), b.targets.begin() + long(i * N));
    }
    const int32_t label = d.labels[rows[i]];
    if (label < 0 || (d.num_classes > 0 && label >= d.num_classes))
      fail("label " + std::to_string(label) + " at row " + std::to_string(rows[i]) +
           " is outside [0, " + std::to_string(d.num_classes) + ")");
    b.labels[i] = label;
  }
  if (!d.seqs2.empty()) add_second_sequences(d, rows, cap, o.fixed_len, b);
  return b;
}

}  // namespace

// ---- batches -----------------------------------------------------------------

Batch make_batch(const Dataset& d, const std::vector<size_t>& rows, const BatchOptions& opts) {
  check_options(opts);
  if (opts.patch > 0) {
    if (d.height <= 0 || d.width <= 0 || d.channels <= 0)
      fail("patch view needs an image dataset (height, width, channels set)");
    if (d.height % opts.patch != 0 || d.width % opts.patch != 0)
      fail("patch " + std::to_string(opts.patch) + " does not divide image size " +
           std::to_string(d.height) + "x" + std::to_string(d.width));
    return to_patches(pad_rows(d, rows, opts), d, opts.patch);
  }
  return pad_rows(d, rows, opts);
}

std::vector<Batch> eval_batches(const Dataset& d, const BatchOptions& opts) {
  check_options(opts);
  std::vector<Batch> out;
  std::vector<size_t> rows;
  for (size_t start = 0; start < d.size(); start += opts.batch) {
    rows.clear();
    for (size_t r = start; r < std::min(d.size(), start + opts.batch); ++r) rows.push_back(r);
    out.push_back(make_batch(d, rows, opts));
  }
  return out;
}

std::vector<Batch> eval_batches_by_length(const Dataset& d, const BatchOptions& opts, size_t rows) {
  check_options(opts);
  rows = std::min(rows, d.size());
  auto length = [&](size_t r) {
    return std::max(d.seqs[r].size(), d.seqs2.empty() ? size_t(0) : d.seqs2[r].size());
  };
  std::vector<size_t> order(rows);
  for (size_t r = 0; r < rows; ++r) order[r] = r;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return length(a) > length(b); });
  std::vector<Batch> out;
  for (size_t start = 0; start < rows; start += size_t(opts.batch)) {
    std::vector<size_t> part(order.begin() + long(start), order.begin() + long(std::min(rows, start + size_t(opts.batch))));
    out.push_back(make_batch(d, part, opts));
  }
  return out;
}

std::vector<Batch> eval_batches(const Dataset& d, int batch, int max_len) {
  BatchOptions o;
  o.batch = batch;
  o.max_len = max_len;
  return eval_batches(d, o);
}

// pixels [B, H*W*C] -> patches [B, (H/P)*(W/P), P*P*C]
Batch to_patches(const Batch& pixels, const Dataset& d, int patch) {
  const int H = d.height, W = d.width, C = d.channels, P = patch;
  if (H <= 0 || W <= 0 || C <= 0) fail("patch view needs an image dataset (height, width, channels set)");
  if (P < 1 || H % P != 0 || W % P != 0)
    fail("patch " + std::to_string(P) + " does not divide image size " + std::to_string(H) + "x" +
         std::to_string(W));
  if (pixels.N != H * W * C)
    fail("patch view needs whole images of " + std::to_string(H * W * C) + " pixel tokens (" +
         std::to_string(H) + "x" + std::to_string(W) + "x" + std::to_string(C) + "), got batches of N=" +
         std::to_string(pixels.N));
  if (pixels.tokens.size() != static_cast<size_t>(pixels.B) * pixels.N)
    fail("pixel batch holds " + std::to_string(pixels.tokens.size()) + " tokens, expected B*N = " +
         std::to_string(static_cast<size_t>(pixels.B) * pixels.N));
  const int gh = H / P, gw = W / P, n_patches = gh * gw, dim = P * P * C;
  Batch out;
  out.B = pixels.B;
  out.N = n_patches;
  out.patch_dim = dim;
  out.labels = pixels.labels;
  out.tokens.assign(static_cast<size_t>(out.B) * n_patches, 1);
  out.pad_mask.assign(static_cast<size_t>(out.B) * n_patches, 0.0f);
  out.patches.resize(static_cast<size_t>(out.B) * n_patches * dim);
  for (int b = 0; b < out.B; ++b) {
    const int32_t* img = pixels.tokens.data() + static_cast<size_t>(b) * pixels.N;
    float* dst = out.patches.data() + static_cast<size_t>(b) * n_patches * dim;
    for (int py = 0; py < gh; ++py)
      for (int px = 0; px < gw; ++px)
        for (int dy = 0; dy < P; ++dy)
          for (int dx = 0; dx < P; ++dx)
            for (int c = 0; c < C; ++c) {
              const int y = py * P + dy, x = px * P + dx;
              const int32_t tok = img[(static_cast<size_t>(y) * W + x) * C + c];
              if (tok < 1 || tok > 256)
                fail("pixel token " + std::to_string(tok) + " in image " + std::to_string(b) + " at (" +
                     std::to_string(y) + ", " + std::to_string(x) + ", " + std::to_string(c) +
                     "); expected 1..256 (pixel value + 1; the image is shorter than " +
                     std::to_string(H * W * C) + " tokens?)");
              *dst++ = static_cast<float>(tok - 1) / 255.0f;
            }
  }
  return out;
}

// ---- the training stream -----------------------------------------------------

Batcher::Batcher(const Dataset& data, int batch, int max_len, uint64_t seed, bool shuffle)
    : Batcher(data, [&] {
        BatchOptions o;
        o.batch = batch;
        o.max_len = max_len;
        return o;
      }(), seed, shuffle) {}

Batcher::Batcher(const Dataset& data, const BatchOptions& opts, uint64_t seed, bool shuffle)
    : data_(&data), opts_(opts), seed_(seed), shuffle_(shuffle) {
  check_options(opts);
  if (data.size() == 0) fail("dataset is empty; expected at least one example");
  build_order();
}

// The order of epoch e depends on (seed, e) only: Fisher-Yates from the identity.
void Batcher::build_order() {
  const size_t n = data_->size();
  order_.resize(n);
  for (size_t i = 0; i < n; ++i) order_[i] = i;
  if (!shuffle_) return;
  uint64_t st = seed_ ^ (0xD1B54A32D192ED03ULL * (epoch_ + 1));
  splitmix64(st);
  for (size_t i = n; i > 1; --i) std::swap(order_[i - 1], order_[uniform_below(st, i)]);
}

Batch Batcher::next() {
  last_rows_.clear();
  while (last_rows_.size() < static_cast<size_t>(opts_.batch)) {
    if (index_ == order_.size()) {
      ++epoch_;
      index_ = 0;
      build_order();
    }
    last_rows_.push_back(order_[index_++]);
  }
  if (!shuffle_ || (!opts_.flip && opts_.shift == 0)) return make_batch(*data_, last_rows_, opts_);
  // Augmented: whole images first, then (maybe) the patch view.  The seed is a
  // function of the stream position, which a checkpoint restores.
  const Dataset& d = *data_;
  if (d.height <= 0 || d.width <= 0 || d.channels <= 0) fail("--flip and --shift need an image dataset");
  check_options(opts_);
  BatchOptions whole = opts_;
  if (whole.patch == 0) whole.patch = 1;  // pad_rows: whole images, however long max_len is
  Batch px = pad_rows(d, last_rows_, whole);
  augment_images(px, d, opts_.flip, opts_.shift, mix64(seed_ ^ mix64(epoch_ * 0x9E3779B97F4A7C15ULL + index_)));
  if (opts_.patch > 0) return to_patches(px, d, opts_.patch);
  if (px.N > opts_.max_len) fail("augmentation needs whole images: max_len " + std::to_string(opts_.max_len) +
                                 " is shorter than " + std::to_string(px.N) + " pixels");
  return px;
}

void augment_images(Batch& pixels, const Dataset& d, bool flip, int shift, uint64_t seed) {
  const int H = d.height, W = d.width, C = d.channels;
  if (pixels.N != H * W * C)
    fail("augmentation needs whole images of " + std::to_string(H * W * C) + " pixel tokens, batch has " +
         std::to_string(pixels.N));
  if (shift < 0 || shift >= std::max(H, W)) fail("shift must be in 0.." + std::to_string(std::max(H, W) - 1) +
                                                 ", got " + std::to_string(shift));
  std::vector<int32_t> src(static_cast<size_t>(pixels.N));
  for (int b = 0; b < pixels.B; ++b) {
    uint64_t st = mix64(seed + static_cast<uint64_t>(b));
    const bool mirror = flip && (splitmix64(st) & 1);
    const int dy = shift ? int(uniform_below(st, 2 * shift + 1)) - shift : 0;
    const int dx = shift ? int(uniform_below(st, 2 * shift + 1)) - shift : 0;
    int32_t* img = pixels.tokens.data() + static_cast<size_t>(b) * pixels.N;
    std::copy(img, img + pixels.N, src.begin());
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        // output (y, x) shows source (y - dy, x' - dx), x' the mirrored column
        const int sy = y - dy, sx = (mirror ? W - 1 - x : x) - dx;
        const bool inside = sy >= 0 && sy < H && sx >= 0 && sx < W;
        for (int c = 0; c < C; ++c)
          img[(static_cast<size_t>(y) * W + x) * C + c] = inside ? src[(static_cast<size_t>(sy) * W + sx) * C + c] : 1;
      }
  }
}

size_t Batcher::batches_per_epoch() const {
  return (data_->size() + opts_.batch - 1) / opts_.batch;
}

BatcherState Batcher::state() const {
  BatcherState s;
  s.seed = seed_;
  s.epoch = epoch_;
  s.index = index_;
  s.dataset_size = data_->size();
  s.shuffle = shuffle_;
  return s;
}

void Batcher::restore(const BatcherState& s) {
  if (s.dataset_size != data_->size())
    fail("saved position is for a dataset of " + std::to_string(s.dataset_size) +
         " examples, this one has " + std::to_string(data_->size()));
  if (s.index > s.dataset_size)
    fail("saved position index " + std::to_string(s.index) + " is past the epoch end " +
         std::to_string(s.dataset_size));
  seed_ = s.seed;
  shuffle_ = s.shuffle;
  epoch_ = s.epoch;
  index_ = static_cast<size_t>(s.index);
  build_order();
}

}  // namespace az
