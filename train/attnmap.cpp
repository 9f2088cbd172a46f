// `attnzoo attnmap`: the attention weights a trained model puts on one
// example, for every layer (rows) and head (columns), as a PNG heat map.
// Large N is shown max-pooled to at most 256 pixels a side per head, so
// sparse patterns stay visible.
#include <cmath>
#include <cstdio>

#include "data/image_folder.h"
#include "train/cli.h"
#include "train/commands.h"
#include "train/trainer.h"

namespace az {

namespace {
// A perceptual ramp (dark blue -> yellow), t in [0,1].
void ramp(float t, uint8_t* rgb) {
  const float stops[5][3] = {{13, 8, 135}, {126, 3, 168}, {204, 71, 120}, {248, 149, 64}, {240, 249, 33}};
  t = std::fmin(1.0f, std::fmax(0.0f, t)) * 4.0f;
  int i = std::min(3, int(t));
  float f = t - float(i);
  for (int c = 0; c < 3; ++c) rgb[c] = uint8_t(stops[i][c] + f * (stops[i + 1][c] - stops[i][c]));
}
}  // namespace

int cmd_attnmap(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h")
      return std::printf("attnzoo attnmap --ckpt CKPT [--index I] [--split test|val|train] [--out F.png] [--data PATH]\n"
                         "  draws the attention weights of every layer (rows) and head (columns) for example I\n"), 0;
  Flags f("attnmap", args, {"ckpt", "index", "split", "out", "data"}, {});
  if (!f.has("ckpt")) fail("attnmap: --ckpt CKPT is required");
  std::string path = f.str("ckpt", "");
  Checkpoint ck = load_checkpoint(path);
  TrainConfig tc = TrainConfig::from_map(ck.train_config);
  ModelConfig mc = ModelConfig::from_map(ck.model_config);
  if (f.has("data")) tc.data = f.str("data", "");
  TaskData data = load_task(tc, mc, true);
  std::string split = f.str("split", "test");
  const Dataset* d = split == "test" ? &data.splits.test : split == "val" ? &data.splits.val
                     : split == "train" ? &data.splits.train : nullptr;
  if (!d) fail("attnmap: --split must be train, val or test, got '" + split + "'");
  int64_t index = f.integer("index", 0);
  if (index < 0 || index >= int64_t(d->size()))
    fail("attnmap: --index " + std::to_string(index) + " out of range for the " + split + " split of " +
         std::to_string(d->size()) + " examples");
  SequenceClassifier model(mc);
  load_into(model.named_parameters(), ck.params, "parameter", path);
  load_into(model.named_buffers(), ck.buffers, "buffer", path);
  model.eval();
  NoGradGuard ng;
  Batch b = make_batch(*d, {size_t(index)}, data.opts);
  Tensor key_pad;
  Tensor x = model.embed(b, &key_pad);
  int64_t N = x.size(1), L = int64_t(model.blocks.size()), H = mc.heads;
  // Each head gets about 128-256 pixels: small N is enlarged, large N max-pooled.
  int64_t up = std::max<int64_t>(1, 128 / N), pool = (N + 255) / 256, cell = (N + pool - 1) / pool * up, gap = 4;
  int64_t W = H * cell + (H + 1) * gap, Ht = L * cell + (L + 1) * gap;
  std::vector<uint8_t> img(size_t(W * Ht * 3), 255);
  for (int64_t l = 0; l < L; ++l) {
    auto& blk = model.blocks[size_t(l)];
    Tensor w = blk->mixer->attention_weights(blk->ln1->forward(x), key_pad);  // [H,N,N]
    if (w.dim() != 3 || w.size(1) != N || w.size(2) != N) fail("attnmap: model returned weights " + shape_str(w.shape()));
    for (int64_t h = 0; h < w.size(0) && h < H; ++h) {
      const float* p = w.data() + h * N * N;
      float mx = 1e-12f;
      for (int64_t i = 0; i < N * N; ++i) mx = std::fmax(mx, p[i]);
      for (int64_t cy = 0; cy < cell; ++cy)
        for (int64_t cx = 0; cx < cell; ++cx) {
          float v = 0;  // max-pool the block of entries this pixel covers
          int64_t iy = cy / up, ix = cx / up;
          for (int64_t i = iy * pool; i < std::min(N, (iy + 1) * pool); ++i)
            for (int64_t j = ix * pool; j < std::min(N, (ix + 1) * pool); ++j) v = std::fmax(v, p[i * N + j]);
          int64_t px = gap + h * (cell + gap) + cx, py = gap + l * (cell + gap) + cy;
          ramp(std::sqrt(v / mx), &img[size_t((py * W + px) * 3)]);  // sqrt: small weights stay visible
        }
    }
    x = blk->forward(x, key_pad);
  }
  std::string out = f.str("out", "attnmap.png");
  write_png(out, img.data(), int(W), int(Ht), 3);
  std::printf("%s: example %lld of %s (label %d), %lld layers x %lld heads, N=%lld%s; wrote %s\n", mc.model.c_str(),
              (long long)index, split.c_str(), b.labels[0], (long long)L, (long long)H, (long long)N,
              pool > 1 ? (", max-pooled " + std::to_string(pool) + "x" + std::to_string(pool)).c_str() : "", out.c_str());
  return 0;
}

}  // namespace az
