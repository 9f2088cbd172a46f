// `attnzoo attnmap`: the attention weights a trained model puts on one
// example, every layer (rows of panels) by every head (columns), drawn by
// gnuplot: a title naming the model, its settings, the example and the
// predicted and true class; query and key axes labelled with the tokens when
// they fit; one colour scale shared by all panels.  Writes F.png, F.svg and
// the script F.gp.  Cost: one forward pass plus L x H matrices of N x N (N
// above 128 is max-pooled to at most 128 a side, so sparse patterns stay visible).
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "train/cli.h"
#include "autograd/runtime/strings.h"
#include "train/cli/commands.h"
#include "train/lab/plot.h"
#include "train/trainer.h"

namespace az {

namespace fs = std::filesystem;

namespace {
// What a token id means, for the axis labels ("" when the task has no names, e.g. pixels).
std::string token_text(const std::string& task, bool patches, int32_t id) {
  const TaskInfo& t = task_info(task);
  return patches || !t.cli.token_name ? "" : t.cli.token_name(id);
}
std::string class_text(const Dataset& d, int c) {
  return size_t(c) < d.class_names.size() ? d.class_names[size_t(c)] : std::to_string(c);
}
}  // namespace

int cmd_attnmap(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h")
      return std::printf(
                 "attnzoo attnmap --ckpt CKPT [--index I] [--split test|val|train] [--out F.png] [--data PATH] [--width W]\n"
                 "  draws the attention weights of every layer (rows) and head (columns) for example I of the\n"
                 "  split, with the tokens on the axes where they fit, a colour scale and the predicted and\n"
                 "  true class, as F.png, F.svg and the gnuplot script F.gp (default attnmap.png; W pixels\n"
                 "  wide, default 640).  Models without an attention matrix (mixer, fnet) say so.\n"), 0;
  Flags f("attnmap", args, {"ckpt", "index", "split", "out", "data", "width"}, {});
  if (!f.has("ckpt")) fail("attnmap: --ckpt CKPT is required");
  std::string path = f.str("ckpt", "");
  std::string out = f.str("out", "attnmap.png");
  fs::path op(out);
  std::string ext = op.extension().string(), dir = op.parent_path().empty() ? "." : op.parent_path().string();
  int64_t width = f.integer("width", 640);
  if (width < 320 || width > 4096) fail("attnmap: --width must be in 320..4096, got " + std::to_string(width));
  Checkpoint ck = load_checkpoint(path);
  TrainConfig tc = TrainConfig::from_map(ck.train_config);
  ModelConfig mc = ModelConfig::from_map(ck.model_config);
  if (ext != ".png" && ext != ".svg") fail("attnmap: --out " + out + " must end in .png or .svg (both are written)");
  if (!fs::is_directory(dir)) fail("attnmap: cannot write " + out + ": write failed (no directory " + dir + ")");
  if (f.has("data")) tc.data = f.str("data", "");
  TaskData data = load_task(tc, mc.model, mc.max_len);
  apply_task_shape(mc, data.shape);
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
  // The prediction, as the classifier makes it.
  Tensor logits = model.forward(b);  // [1,C]
  int64_t C = logits.size(1), pred = 0;
  double zmax = logits.data()[0], zsum = 0;
  for (int64_t c = 1; c < C; ++c)
    if (logits.data()[c] > logits.data()[pred]) pred = c, zmax = logits.data()[c];
  for (int64_t c = 0; c < C; ++c) zsum += std::exp(double(logits.data()[c]) - zmax);
  Tensor key_pad;
  Tensor x = model.embed(b, &key_pad);
  const int64_t N = x.size(1), L = int64_t(model.blocks.size());
  const int64_t pool = (N + 127) / 128, M = (N + pool - 1) / pool;  // M x M pixels per panel
  HeatMap m;
  int64_t per_layer = 0;  // matrices per layer: the heads, or 1 (gMLP's W_s)
  bool has_matrix = true;
  for (int64_t l = 0; l < L && has_matrix; ++l) {
    auto& blk = model.blocks[size_t(l)];
    Tensor w;
    try {
      w = blk->mixer->attention_weights(blk->mixer_input(x), key_pad);  // [H,N,N]
    } catch (const std::exception& e) {
      fail("attnmap: " + mc.model + " has no attention matrix to draw (" + e.what() +
           "): it mixes tokens without a row of weights per query");
    }
    if (w.dim() != 3 || w.size(1) != N || w.size(2) != N) fail("attnmap: model returned weights " + shape_str(w.shape()));
    m.grid_cols = int(w.size(0));
    per_layer = w.size(0);
    for (int64_t h = 0; h < w.size(0); ++h) {
      const float* p = w.data() + h * N * N;
      HeatPanel panel;
      panel.rows = panel.cols = M;
      panel.v.assign(size_t(M * M), 0.0f);
      panel.title = "layer " + std::to_string(l + 1) + (w.size(0) > 1 ? ", head " + std::to_string(h + 1) : "");
      for (int64_t i = 0; i < N; ++i)  // max-pool by magnitude: a single strong entry stays visible
        for (int64_t j = 0; j < N; ++j) {
          float& v = panel.v[size_t((i / pool) * M + j / pool)];
          if (std::fabs(p[i * N + j]) > std::fabs(v)) v = p[i * N + j];
        }
      m.panels.push_back(std::move(panel));
    }
    x = blk->forward(x, key_pad);
  }
  if (m.grid_cols == 1) m.grid_cols = int(std::min<int64_t>(L, 4));  // one matrix per layer (gMLP): layers side by side
  // Token labels when a panel gives each one at least 8 pixels.
  const bool cls = N == int64_t(b.N) + 1;
  std::vector<std::string> tokens;
  if (pool == 1 && double(width - 210) / double(m.grid_cols) / double(N) >= 8.0) {
    if (cls) tokens.push_back("CLS");
    for (int i = 0; i < b.N; ++i) tokens.push_back(token_text(tc.task, b.patch_dim > 0, b.tokens[size_t(i)]));
    bool any = false;
    for (auto& t : tokens) any = any || (!t.empty() && t != "CLS");
    if (!any) tokens.clear();
  }
  m.xtics = m.ytics = tokens;
  std::string settings = "dim " + std::to_string(mc.dim) + ", " + std::to_string(mc.heads) + " heads, " +
                         std::to_string(mc.layers) + " layers";
  for (auto& [k, v] : mc.knobs) {
    std::string fl = k;
    for (char& ch : fl)
      if (ch == '_') ch = '-';
    settings += ", --" + fl + " " + fmt("%g", v);
  }
  m.title = mc.model + " on " + tc.task + ": " + split + " example " + std::to_string(index) + ", predicted " +
            class_text(*d, int(pred)) + " (probability " + fmt("%.2f", 1.0 / zsum) + "), true " + class_text(*d, b.labels[0]) +
            "\n" + settings + "; checkpoint " + path;
  m.xlabel = "key position j" + std::string(tokens.empty() ? "" : " (token)");
  m.ylabel = "query position i" + std::string(tokens.empty() ? "" : " (token)");
  bool signed_w = false;
  for (auto& p : m.panels)
    for (float v : p.v) signed_w = signed_w || v < 0;
  m.cblabel = signed_w ? "mixing weight (signed)" : "attention weight (square-root scale)";
  m.sqrt_scale = !signed_w;
  m.footnote = "N=" + std::to_string(N) + (cls ? " (CLS token first)" : "") +
               (pool > 1 ? "; each pixel the largest of " + std::to_string(pool) + "x" + std::to_string(pool) + " entries" : "") +
               "; rows: queries, columns: keys; white: weight 0 (not computed or masked)";
  int64_t rows_of_panels = (int64_t(m.panels.size()) + m.grid_cols - 1) / m.grid_cols;
  double side = (double(width) - 187 - (tokens.empty() ? 0 : 38) - 14.0 * double(m.grid_cols - 1)) / double(m.grid_cols);
  int height = int(side * double(rows_of_panels) + 32.0 * double(rows_of_panels - 1) + 160 + (tokens.empty() ? 0 : 38));
  draw_heatmap(m, dir, op.stem().string(), int(width), height);
  std::string base = (fs::path(dir) / op.stem()).string();
  std::printf("%s: %s example %lld (true %s, predicted %s), %lld layers x %lld matrices, N=%lld%s; wrote %s.png, %s.svg, %s.gp\n",
              mc.model.c_str(), split.c_str(), (long long)index, class_text(*d, b.labels[0]).c_str(),
              class_text(*d, int(pred)).c_str(), (long long)L, (long long)per_layer, (long long)N,
              pool > 1 ? (", max-pooled " + std::to_string(pool) + "x" + std::to_string(pool)).c_str() : "",
              base.c_str(), base.c_str(), base.c_str());
  return 0;
}

}  // namespace az
