// `attnzoo pattern`: the N x N pattern of the entries a variant computes for
// one (random, seeded) input, one colour per component (Pattern::legend),
// drawn by gnuplot with a title naming the model and its settings, query and
// key axes and a key; F.png, F.svg and the script F.gp that drew them.
// Cost: one forward pass of one layer at N (at most 4096) plus N^2 numbers
// handed to gnuplot.
#include "train/lab/pattern.h"
#include "autograd/runtime/strings.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "attention/attention.h"
#include "train/cli.h"
#include "train/cli/commands.h"
#include "train/model.h"
#include "train/lab/plot.h"

namespace az {

namespace fs = std::filesystem;

namespace {
std::string flag_of(const std::string& knob) {
  std::string f = knob;
  for (char& ch : f)
    if (ch == '_') ch = '-';
  return f;
}
}  // namespace

std::map<std::string, double> picture_knobs(const std::string& model, int64_t n) {
  std::map<std::string, double> out;
  const AttentionInfo& info = attention_info(model);
  auto def = [&](const std::string& k) {
    for (auto& kn : info.knobs)
      if (kn.name == k) return kn.def;
    return -1.0;
  };
  auto scale = [&](const std::string& k, int64_t target) {  // only when the default is larger
    for (auto& kn : info.knobs)
      if (kn.name == k && kn.def > double(target)) out[k] = std::max(kn.lo, double(std::max<int64_t>(1, target)));
  };
  scale("block", n / 8);        // 8 blocks: window, global and sorted blocks stand apart
  scale("bucket_size", n / 8);  // reformer's chunks
  scale("window", n / 16);      // a band of n/8 keys (strided: n/16 strides)
  scale("stride", n / 8);
  scale("globals", n / 16);
  if (def("random_blocks") > 0) {  // bigbird: window 3 + global 2 + r random blocks must leave some out
    double block = out.count("block") ? out["block"] : def("block");
    int64_t blocks = int64_t(std::ceil(double(n) / block));
    double r = std::max(0.0, std::min(def("random_blocks"), double(blocks - 7)));
    if (r < def("random_blocks")) out["random_blocks"] = r;
  }
  return out;
}

int cmd_pattern(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h")
      return std::printf(
                 "attnzoo pattern --model M [--seq-len 64] [--out F.png] [--scale S] [--heads H] [--dim D]\n"
                 "                [--causal] [--pad K] [--seed S] [the model's own settings]\n"
                 "  draws the N x N pattern of computed entries (query rows, key columns) of one layer for\n"
                 "  a random input, one colour per component, with a title and key, as F.png, F.svg and\n"
                 "  the gnuplot script F.gp.  --scale: pixels per entry (default: the picture fits 640).\n"
                 "  Length-like settings you leave out (block, window, bucket size, globals, stride,\n"
                 "  random blocks) are scaled to N (block N/8, window N/16, ...) when their defaults\n"
                 "  would cover the whole picture; the command prints what it chose.\n"
                 "  example: attnzoo pattern --model bigbird --seq-len 64 --out bigbird.png\n"), 0;
  std::string model = Flags::peek(args, "model", "full");
  const AttentionInfo& info = attention_info(model);
  std::set<std::string> knobs;
  for (auto& k : info.knobs) knobs.insert(flag_of(k.name));
  Flags f("pattern", args, {"model", "seq-len", "out", "scale", "heads", "dim", "pad", "seed"}, {"causal"}, knobs);
  AttentionConfig c;
  c.max_len = f.integer("seq-len", 64);
  c.dim = f.integer("dim", 64);
  c.heads = f.integer("heads", 4);
  c.causal = f.on("causal");
  int64_t N = c.max_len, pad = f.integer("pad", 0);
  if (N < 1) fail("pattern: --seq-len must be positive, got " + std::to_string(N));
  if (N > 4096) fail("pattern: --seq-len " + std::to_string(N) + " is too large for a picture (at most 4096)");
  if (c.dim > kMaxDim) fail("pattern: --dim " + std::to_string(c.dim) + " is too large (at most " + std::to_string(kMaxDim) + ")");
  int64_t scale = f.integer("scale", 0);  // 0: fit the picture in 640 pixels
  if ((f.has("scale") && scale < 1) || scale > 64) fail("pattern: --scale must be in 1..64, got " + std::to_string(scale));
  if (pad < 0 || pad >= N) fail("pattern: --pad must be in 0.." + std::to_string(N - 1));
  std::string chosen, replaced;
  for (auto& [k, v] : picture_knobs(model, N))
    if (!f.has(flag_of(k))) {
      c.knobs[k] = v;
      chosen += " --" + flag_of(k) + " " + fmt("%g", v);
      for (auto& kn : info.knobs)
        if (kn.name == k) replaced += std::string(replaced.empty() ? "" : ", ") + fmt("%g", kn.def);
    }
  for (auto& k : info.knobs)
    if (f.has(flag_of(k.name))) c.knobs[k.name] = knob_value(k, f.str(flag_of(k.name), ""));
  std::string out = f.str("out", model + "_pattern.png");
  fs::path op(out);
  std::string ext = op.extension().string(), dir = op.parent_path().empty() ? "." : op.parent_path().string();
  if (ext != ".png" && ext != ".svg") fail("pattern: --out " + out + " must end in .png or .svg (both are written)");
  if (!fs::is_directory(dir)) fail("pattern: cannot write " + out + ": write failed (no directory " + dir + ")");
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
  int64_t computed = 0;
  HeatPanel panel;
  panel.rows = panel.cols = N;
  panel.v.resize(size_t(N * N));
  for (size_t i = 0; i < p.cell.size(); ++i) {
    panel.v[i] = float(p.cell[i]);
    computed += p.cell[i] != 0;
  }
  // The title names everything that decides the picture: model, N, every knob's value, and the rest.
  std::string settings;
  for (auto& k : info.knobs) settings += " --" + flag_of(k.name) + " " + fmt("%g", att->knob(k.name));
  HeatMap m;
  m.title = model + ": entries computed at N=" + std::to_string(N) + "\n" + settings + (c.causal ? " --causal" : "") +
            (pad ? " --pad " + std::to_string(pad) : "");
  m.xlabel = "key position j";
  m.ylabel = "query position i";
  m.categories = p.legend;
  char foot[200];
  std::snprintf(foot, sizeof foot, "%lld of %lld entries computed (%.1f%%); head 0 of %lld, random input (seed %lld), dim %lld",
                (long long)computed, (long long)(N * N), 100.0 * double(computed) / double(N * N), (long long)c.heads,
                (long long)f.integer("seed", 1), (long long)c.dim);
  m.footnote = foot;
  m.panels.push_back(panel);
  size_t longest = 12;
  for (auto& l : p.legend) longest = std::max(longest, l.size());
  int key_w = 60 + int(7.5 * double(longest));
  int64_t fit = std::max<int64_t>(240, 640 - 70 - key_w);
  int64_t side = scale ? N * scale : (N <= fit ? N * (fit / N) : fit);
  side = std::min<int64_t>(4096, std::max<int64_t>(240, side));
  draw_heatmap(m, dir, op.stem().string(), int(side) + 70 + key_w, int(side) + 150);
  std::printf("%s, N=%lld: %lld of %lld entries computed (%.1f%%); legend:", model.c_str(), (long long)N,
              (long long)computed, (long long)(N * N), 100.0 * double(computed) / double(N * N));
  for (size_t k = 0; k < p.legend.size(); ++k) std::printf(" %s=%s", p.legend[k].c_str(), category_colour(k + 1).c_str());
  if (!chosen.empty())
    std::printf("\n  for a picture at N=%lld: drew with%s (defaults %s would hide the structure at this N; pass them to override)",
                (long long)N, chosen.c_str(), replaced.c_str());
  std::string base = (fs::path(dir) / op.stem()).string();
  std::printf("\n  wrote %s.png, %s.svg, %s.gp\n", base.c_str(), base.c_str(), base.c_str());
  return 0;
}

}  // namespace az
