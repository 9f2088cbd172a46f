// attnzoo bench-generate: generation speed and decoding-state memory against
// the context length, for every causal variant (attention/decode/decode.h).
//
// For each model (random weights: the cost does not depend on them) the
// decoder is fed random bytes up to each context length C (1K, 4K, 16K by
// default), then --tokens more are timed, each fed back as generation does:
// tokens/s at context C, and the bytes the decoding state holds there.  A KV
// cache costs O(C d) per token and holds O(C d); a window O(w d) and the
// recurrent state O(m d), at any C.  Variants without a decoding state re-run
// the prefix for every token (a whole forward pass, O(C^2) or O(C w)), timed
// only up to --rerun-max (default 1024).  Writes DIR/bench_generate.jsonl and
// the chart DIR/bench_generate.{png,svg,gp}.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "data/lm/lm_corpus.h"
#include "autograd/runtime/strings.h"
#include "train/cli.h"
#include "train/cli/commands.h"
#include "train/generate.h"
#include "train/lab/plot.h"

namespace az {
namespace {

struct Cell {
  double tokens_per_s = -1;  // < 0: not measured
  double state_kb = 0;
};

ModelConfig bench_model(const std::string& name, int64_t max_len, const ModelConfig& base) {
  ModelConfig m = base;
  m.model = name, m.max_len = max_len;
  m.vocab = 257, m.num_classes = kByteClasses, m.head = Head::kToken, m.causal = true, m.dropout = 0;
  if (name == "longformer") m.knobs["globals"] = 0;  // its causal form
  return m;
}

// Feeds tokens up to each context, timing `tokens` more there; fills row[C].
void run_model(const std::string& name, const std::vector<int64_t>& contexts, int64_t tokens, int64_t rerun_max,
               const ModelConfig& base, std::map<int64_t, Cell>& row, std::string& method) {
  Rng rng(7);
  auto time_at = [&](LmDecoder& dec, int64_t context) {
    while (dec.position() < context) dec.feed(int32_t(1 + rng.randint(256)));
    auto t0 = std::chrono::steady_clock::now();
    std::vector<float> l;
    for (int64_t i = 0; i < tokens; ++i) {
      int32_t next = l.empty() ? 1 : int32_t(std::max_element(l.begin(), l.end()) - l.begin()) + 1;
      l = dec.feed(next);
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    row[context] = Cell{double(tokens) / std::max(s, 1e-9), double(dec.state_bytes()) / 1024.0};
  };
  global_rng().seed_with(1);
  int64_t longest = *std::max_element(contexts.begin(), contexts.end());
  {
    SequenceClassifier probe(bench_model(name, std::min(longest, rerun_max) + tokens, base));
    LmDecoder d(probe);
    method = d.method();
    if (!d.incremental()) {  // a fresh model per context: the mixers' weights are sized by it
      for (int64_t c : contexts) {
        if (c > rerun_max) continue;
        SequenceClassifier m(bench_model(name, c + tokens, base));
        LmDecoder dec(m);
        time_at(dec, c);
      }
      return;
    }
  }
  SequenceClassifier m(bench_model(name, longest + tokens, base));
  LmDecoder dec(m);
  std::vector<int64_t> sorted = contexts;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t c : sorted) time_at(dec, c);  // one stream: each context continues the previous
}

std::string ctx_name(int64_t c) { return c % 1024 == 0 ? std::to_string(c / 1024) + "K" : std::to_string(c); }

}  // namespace

int cmd_bench_generate(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h")
      return std::printf(
                 "attnzoo bench-generate [--models M1,M2,..] [--contexts 1024,4096,16384] [--tokens T] [--rerun-max C]\n"
                 "                       [--dim D --heads H --layers L --ffn F] [--out DIR] [--replot]\n"
                 "  tokens/s and decoding-state memory of generation at each context length, per causal model\n"
                 "  (default: every one; random weights), as a table, DIR/bench_generate.jsonl and a chart\n"
                 "  DIR/bench_generate.png (default DIR docs/lm).  T (default 32) tokens are timed at each context;\n"
                 "  models that re-run the prefix are timed only up to --rerun-max (default 1024).  --replot: the\n"
                 "  table and chart again from DIR/bench_generate.jsonl, nothing measured.\n"),
             0;
  Flags f("bench-generate", args, {"models", "contexts", "tokens", "rerun-max", "dim", "heads", "layers", "ffn", "out"},
          {"replot"});
  std::vector<std::string> models;
  if (f.has("models")) {
    models = split_list(f.str("models", ""));
    for (auto& m : models)
      if (!attention_info(m).causal_ok)
        fail("bench-generate: model '" + m + "' has no causal form" +
             (attention_info(m).why_not_causal.empty() ? "" : " (" + attention_info(m).why_not_causal + ")"));
  } else {
    for (auto& n : attention_names())
      if (attention_info(n).causal_ok) models.push_back(n);
  }
  if (models.empty()) fail("bench-generate: --models lists no model");
  std::vector<int64_t> contexts;
  for (auto& c : split_list(f.str("contexts", "1024,4096,16384"))) {
    int64_t v = 0;
    try {
      size_t used = 0;
      v = std::stoll(c, &used);
      if (used != c.size()) v = 0;
    } catch (const std::exception&) {
    }
    if (v < 1 || v > (1 << 20)) fail("bench-generate: --contexts expects lengths in 1..1048576, got '" + c + "'");
    contexts.push_back(v);
  }
  if (contexts.empty()) fail("bench-generate: --contexts lists no length");
  std::sort(contexts.begin(), contexts.end());
  contexts.erase(std::unique(contexts.begin(), contexts.end()), contexts.end());
  int64_t tokens = f.integer("tokens", 32), rerun_max = f.integer("rerun-max", 1024);
  if (tokens < 1 || tokens > 100000) fail("bench-generate: --tokens must be in 1..100000, got " + std::to_string(tokens));
  if (rerun_max < 0) fail("bench-generate: --rerun-max must not be negative");
  ModelConfig base;
  base.dim = f.integer("dim", 64), base.heads = f.integer("heads", 4), base.layers = f.integer("layers", 2);
  base.ffn = f.integer("ffn", 128);
  std::string out = f.str("out", "docs/lm");

  std::map<std::string, std::map<int64_t, Cell>> table;
  std::map<std::string, std::string> method;
  const bool replot = f.on("replot");
  if (replot) {  // the table and the chart again from DIR/bench_generate.jsonl, nothing measured
    std::vector<JsonObject> rows = read_jsonl(out + "/bench_generate.jsonl");
    if (rows.empty()) fail("bench-generate --replot: no records in " + out + "/bench_generate.jsonl");
    models.clear(), contexts.clear();
    for (auto& r : rows) {
      std::string m = json_text(r, "model");
      int64_t c = int64_t(json_number(r, "context", 0));
      if (!table.count(m)) models.push_back(m);
      if (std::find(contexts.begin(), contexts.end(), c) == contexts.end()) contexts.push_back(c);
      table[m][c] = Cell{json_number(r, "tokens_per_s", -1), json_number(r, "state_kb", 0)};
      method[m] = json_text(r, "decoding");
      base.dim = int64_t(json_number(r, "dim", double(base.dim))), base.layers = int64_t(json_number(r, "layers", double(base.layers)));
    }
    std::sort(contexts.begin(), contexts.end());
  }
  for (auto& m : models) {
    if (replot) break;
    std::fprintf(stderr, "bench-generate: %s ...\n", m.c_str());
    run_model(m, contexts, tokens, rerun_max, base, table[m], method[m]);
  }

  // the table
  std::string head = "| model | decoding |", rule = "|---|---|";
  for (int64_t c : contexts) head += " tokens/s at " + ctx_name(c) + " |", rule += "---:|";
  for (int64_t c : contexts) head += " state at " + ctx_name(c) + " |", rule += "---:|";
  std::printf("%s\n%s\n", head.c_str(), rule.c_str());
  for (auto& m : models) {
    std::string line = "| " + m + " | " + method[m].substr(0, method[m].find(" (model")) + " |";
    for (int64_t c : contexts) {
      auto it = table[m].find(c);
      line += it == table[m].end() ? " - |" : " " + fmt("%.0f", it->second.tokens_per_s) + " |";
    }
    for (int64_t c : contexts) {
      auto it = table[m].find(c);
      line += it == table[m].end() ? " - |" : " " + fmt("%.1f", it->second.state_kb) + " KB |";
    }
    std::printf("%s\n", line.c_str());
  }
  int64_t top = contexts.back();
  if (table.count("full") && table.count("linear") && table["full"].count(top) && table["linear"].count(top))
    std::printf("\nat %s context: linear generates %.1fx the tokens/s of full with its KV cache\n", ctx_name(top).c_str(),
                table["linear"][top].tokens_per_s / table["full"][top].tokens_per_s);

  // the record and the chart
  std::filesystem::create_directories(out);
  std::ofstream js;
  if (!replot) js.open(out + "/bench_generate.jsonl");
  std::ostringstream data;
  std::vector<std::string> speed, memory;
  size_t k = 0;
  for (auto& m : models) {
    std::string rows;
    for (auto& [c, cell] : table[m]) {
      js << "{\"model\": " << json_quote(m) << ", \"context\": " << c << ", \"tokens_per_s\": " << fmt("%.6g", cell.tokens_per_s)
         << ", \"state_kb\": " << fmt("%.6g", cell.state_kb) << ", \"decoding\": " << json_quote(method[m])
         << ", \"dim\": " << base.dim << ", \"layers\": " << base.layers << "}\n";
      rows += std::to_string(c) + " " + fmt("%.6g", cell.tokens_per_s) + " " + fmt("%.6g", std::max(cell.state_kb, 1e-3)) + "\n";
    }
    if (rows.empty()) continue;
    data << "$g" << k << " << EOD\n" << rows << "EOD\n";
    static const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8"};
    std::string ref = "$g" + std::to_string(k), style = "with linespoints lw 2 pt " + std::to_string(4 + k % 10) +
                                                         " lc rgb '" + colours[k % 12] + "'";
    speed.push_back(ref + " using 1:2 " + style + " title " + gp_quote(m));
    memory.push_back(ref + " using 1:3 " + style + " notitle");
    ++k;
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s;
  };
  std::string xt;
  for (int64_t c : contexts) xt += (xt.empty() ? "" : ", ") + gp_quote(ctx_name(c)) + " " + std::to_string(c);
  std::ostringstream body;
  body << "set multiplot layout 1,2 title " << gp_quote("generation: one token at context length C (dim " + std::to_string(base.dim) +
                                                         ", " + std::to_string(base.layers) + " layers, random weights)")
       << "\nset logscale xy\nset xtics (" << xt << ")\nset xrange [" << contexts.front() * 0.7 << ":" << contexts.back() * 1.4
       << "]\nset grid\nset xlabel 'context length C'\nset bmargin 7\n"
       << "set key at screen 0.5, screen 0.01 center bottom horizontal maxcols 5 Left reverse samplen 2 font ',9'\n"
       << "set ylabel 'tokens per second'\nplot " << join(speed) << "\n"
       << "set ylabel 'decoding state (KB)'\nunset key\nplot " << join(memory) << "\nunset multiplot";
  draw_with_gnuplot(out, "bench_generate", data.str(), body.str(), 1000, 420);
  std::fprintf(stderr, "bench-generate: wrote %s/bench_generate.jsonl and %s/bench_generate.png\n", out.c_str(), out.c_str());
  return 0;
}

}  // namespace az
