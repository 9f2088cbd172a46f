// `attnzoo pattern`: draws the N x N pattern of the entries a variant computes
// for one (random, seeded) input, one colour per component, as a PNG.
#include <cstdio>
#include <set>

#include "attention/attention.h"
#include "data/image_folder.h"
#include "train/cli.h"
#include "train/commands.h"
#include "train/model.h"

namespace az {

namespace {
// Component colours: window, stride, global, random, ... (then repeats).
const uint8_t kPalette[][3] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40},
                               {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127}};
const char* kColourNames[] = {"blue", "orange", "green", "red", "purple", "brown", "pink", "grey"};
}  // namespace

int cmd_pattern(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h")
      return std::printf("attnzoo pattern --model M [--seq-len 64] [--out F.png] [--scale 8] [--heads H] [--dim D]\n"
                         "                [--causal] [--pad K] [the model's own settings]\n"
                         "  writes the N x N pattern of computed entries (query rows, key columns), one colour\n"
                         "  per component, and prints the legend\n"), 0;
  std::string model = Flags::peek(args, "model", "full");
  std::set<std::string> knobs;
  for (auto& k : attention_info(model).knobs) {
    std::string f = k.name;
    for (char& ch : f)
      if (ch == '_') ch = '-';
    knobs.insert(f);
  }
  Flags f("pattern", args, {"model", "seq-len", "out", "scale", "heads", "dim", "pad", "seed"}, {"causal"}, knobs);
  AttentionConfig c;
  c.max_len = f.integer("seq-len", 64);
  c.dim = f.integer("dim", 64);
  c.heads = f.integer("heads", 4);
  c.causal = f.on("causal");
  for (auto& k : attention_info(model).knobs) {
    std::string fl = k.name;
    for (char& ch : fl)
      if (ch == '_') ch = '-';
    if (f.has(fl)) c.knobs[k.name] = f.number(fl, k.def);
  }
  int64_t N = c.max_len, scale = f.integer("scale", 8), pad = f.integer("pad", 0);
  if (N < 1) fail("pattern: --seq-len must be positive, got " + std::to_string(N));
  if (c.dim > kMaxDim) fail("pattern: --dim " + std::to_string(c.dim) + " is too large (at most " + std::to_string(kMaxDim) + ")");
  if (scale < 1 || scale > 64) fail("pattern: --scale must be in 1..64, got " + std::to_string(scale));
  if (pad < 0 || pad >= N) fail("pattern: --pad must be in 0.." + std::to_string(N - 1));
  if (N > 4096) fail("pattern: --seq-len " + std::to_string(N) + " is too large for a picture (at most 4096)");
  Rng rng(uint64_t(f.integer("seed", 1)));
  global_rng().seed_with(uint64_t(f.integer("seed", 1)));
  auto att = make_attention(model, c);
  att->eval();
  Tensor x = Tensor::randn({1, N, c.dim}, 1.0f, rng), key_pad;
  if (pad > 0) {
    key_pad = Tensor::zeros({1, N});
    for (int64_t j = N - pad; j < N; ++j) key_pad.data()[j] = 1.0f;
  }
  Pattern p;
  {
    NoGradGuard ng;
    p = att->pattern(x, key_pad);
  }
  if (p.n != N || int64_t(p.cell.size()) != N * N) fail("pattern: the model returned a malformed pattern");
  int64_t W = N * scale;
  std::vector<uint8_t> img(size_t(W * W * 3), 255);
  int64_t computed = 0;
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < N; ++j) {
      uint8_t id = p.cell[size_t(i * N + j)];
      if (!id) continue;
      ++computed;
      const uint8_t* col = kPalette[(id - 1) % 8];
      for (int64_t y = i * scale; y < (i + 1) * scale; ++y)
        for (int64_t x2 = j * scale; x2 < (j + 1) * scale; ++x2)
          for (int ch = 0; ch < 3; ++ch) img[size_t((y * W + x2) * 3 + ch)] = col[ch];
    }
  if (scale >= 4)  // thin grid lines between cells keep single entries visible
    for (int64_t y = 0; y < W; ++y)
      for (int64_t x2 = 0; x2 < W; ++x2)
        if (y % scale == 0 || x2 % scale == 0)
          for (int ch = 0; ch < 3; ++ch) {
            uint8_t& v = img[size_t((y * W + x2) * 3 + ch)];
            v = uint8_t(v * 0.85);
          }
  std::string out = f.str("out", model + "_pattern.png");
  write_png(out, img.data(), int(W), int(W), 3);
  std::printf("%s, N=%lld: %lld of %lld entries computed (%.1f%%); legend:", model.c_str(), (long long)N,
              (long long)computed, (long long)(N * N), 100.0 * double(computed) / double(N * N));
  for (size_t k = 0; k < p.legend.size(); ++k) std::printf(" %s=%s", p.legend[k].c_str(), kColourNames[k % 8]);
  std::printf("; wrote %s\n", out.c_str());
  return 0;
}

}  // namespace az
