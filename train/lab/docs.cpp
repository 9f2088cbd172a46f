// `attnzoo docs --out DIR`: the textbook, one generated Markdown page per
// registered model (attention_names()) and an index comparing the families.
//
// A page assembles around the variant's own file: its opening comment (read
// from SRC/attention/NAME.cpp or SRC/mlp_mixer/NAME.cpp), its knobs from the
// registry, the pattern picture (`attnzoo pattern`), a learned attention map
// (a tiny ListOps run, then `attnzoo attnmap`), steps/s and peak memory
// against N drawn from the committed bench records, and its row of the LRA
// mini table.  Nothing is typed by hand: rerun `make docs` after a change.
// Cost: one short training run per model with an attention matrix (about
// 300 steps at dim 32; a few seconds each on one core), reused from RUNS when
// its checkpoint is there; everything else reads records.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "attention/attention.h"
#include "autograd/runtime/strings.h"
#include "data/listops/listops.h"
#include "train/lab/bench.h"
#include "train/lab/docs.h"
#include "train/cli.h"
#include "train/cli/commands.h"
#include "train/lab/lra.h"
#include "train/lab/pattern.h"
#include "train/lab/plot.h"

namespace az {

namespace fs = std::filesystem;

std::string records_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("docs: cannot read " + path + " (the records a page quotes)");
  uint64_t h = 1469598103934665603ull;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) h = (h ^ uint8_t(buf[i])) * 1099511628211ull;
    if (!in) break;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

std::string records_stamp(const std::vector<LraSource>& sources) {
  std::string r = "<!-- records:";
  for (size_t i = 0; i < sources.size(); ++i)
    r += std::string(i ? ";" : "") + " " + sources[i].preset + " " +
         (fs::path(sources[i].path).parent_path().filename() / fs::path(sources[i].path).filename()).string() + " " +
         records_hash(sources[i].path);
  return r + " -->";
}

std::vector<LraSource> lra_sources(const std::string& spec, const std::string& dir) {
  std::vector<LraSource> v;
  if (spec != "auto") {
    std::istringstream in(spec);
    for (std::string item; std::getline(in, item, ',');) {
      size_t eq = item.find('=');
      LraSource s = eq == std::string::npos ? LraSource{"mini", item} : LraSource{item.substr(0, eq), item.substr(eq + 1)};
      if (s.preset.empty() || s.path.empty()) fail("docs: --lra wants PRESET=PATH[,PRESET=PATH], got '" + item + "'");
      if (!fs::exists(s.path)) fail("docs: " + s.path + " does not exist (the records the pages are drawn from)");
      v.push_back(s);
    }
    return v;
  }
  // newest by the latest "finished" of its records, per preset named by its results.md
  std::map<std::string, std::pair<std::string, std::string>> best;  // preset -> (finished, path)
  std::error_code ec;
  std::vector<fs::path> dirs;
  for (auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (auto& d : dirs) {
    if (!fs::exists(d / "results.jsonl") || !fs::exists(d / "results.md")) continue;
    std::ifstream md(d / "results.md");
    std::string line, preset;
    while (preset.empty() && std::getline(md, line)) {
      size_t p = line.find("preset `");
      if (line.rfind("# ", 0) == 0 && p != std::string::npos) preset = line.substr(p + 8, line.find('`', p + 8) - p - 8);
    }
    if (preset.empty()) continue;
    std::string last;
    for (auto& r : read_jsonl((d / "results.jsonl").string())) last = std::max(last, json_text(r, "finished"));
    auto& b = best[preset];
    if (b.second.empty() || last > b.first) b = {last, (d / "results.jsonl").lexically_normal().string()};
  }
  for (const char* p : {"quick", "mini", "full"})
    if (best.count(p)) v.push_back({p, best[p].second}), best.erase(p);
  for (auto& [p, b] : best) v.push_back({p, b.second});
  if (v.empty()) fail("docs: no LRA records under " + dir + " (a folder with results.jsonl and a results.md naming its preset)");
  return v;
}

namespace {

const std::vector<int64_t> kLengths = {1024, 2048, 4096, 8192};

struct DocsOptions {
  std::string out, src, bench, lra, lra_bench, runs, bin, maps, impl_bench;
  int64_t steps = 300, pattern_n = 64;
  bool fresh = false;
};

std::string flag_of(const std::string& knob) {
  std::string f = knob;
  for (char& ch : f)
    if (ch == '_') ch = '-';
  return f;
}
// Text for a Markdown table cell: a '|' would end the cell.
std::string cell(const std::string& s) {
  std::string r;
  for (char ch : s) r += ch == '|' ? "\\|" : std::string(1, ch);
  return r;
}
// "--block 8 --window 4": the picture settings as flags.
std::string knob_flags(const std::map<std::string, double>& k) {
  std::string r;
  for (auto& [name, v] : k) r += " --" + flag_of(name) + " " + fmt("%g", v);
  return r;
}

// The variant's source file and its opening comment, without the "// ".
std::string opening_comment(const std::string& src, const std::string& name, std::string* file) {
  for (const char* d : {"attention", "mlp_mixer"}) {
    std::string rel = std::string(d) + "/" + name + ".cpp";
    std::ifstream in(fs::path(src) / rel);
    if (!in) continue;
    *file = rel;
    std::string line, text;
    while (std::getline(in, line) && line.rfind("//", 0) == 0)
      text += (line.size() > 2 && line[2] == ' ' ? line.substr(3) : line.substr(2)) + "\n";
    return text;
  }
  fail("docs: no source file for model '" + name + "' (looked for " + src + "/attention/" + name + ".cpp and " + src +
       "/mlp_mixer/" + name + ".cpp; --src names the source tree)");
}

// The variant's reference form as its file has it (issue 54): the comment above
// `Tensor reference(` and the function, to the brace that closes it, de-indented;
// before it, in file order, every function the file marks with the line
// kShownMark (the parts of the algorithm the reference calls: Sinkhorn's learned
// sort, FAVOR+'s orthogonal draw), each with the comment above it (issue 67).
// Read from the source at each `make docs`, so the page cannot drift from the code.
const char* const kShownMark = "// Shown on the model's page beside reference().";
std::string reference_source(const std::string& src, const std::string& file) {
  std::ifstream in(fs::path(src) / file);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  auto comment = [](const std::string& l) {
    size_t a = l.find_first_not_of(' ');
    return a != std::string::npos && l.compare(a, 2, "//") == 0;
  };
  // Lines [a, b] of the function whose first line is i (the comment above it included), de-indented.
  auto function_at = [&](size_t i, std::string* text) {
    size_t indent = lines[i].find_first_not_of(' '), a = i, b = i + 1;
    while (a > 0 && comment(lines[a - 1])) --a;
    const std::string& first = lines[i];  // `... { return f(x); }`: one line
    const auto opened = std::count(first.begin(), first.end(), '{');
    if (opened > 0 && opened == std::count(first.begin(), first.end(), '}')) b = i;
    while (b < lines.size() && b > i && lines[b] != std::string(indent, ' ') + "}") ++b;
    if (b == lines.size()) return false;
    for (size_t k = a; k <= b; ++k)
      if (lines[k].find(kShownMark) == std::string::npos)
        *text += (lines[k].size() >= indent ? lines[k].substr(indent) : lines[k]) + "\n";
    return true;
  };
  std::string shown;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i].find(kShownMark) == std::string::npos) continue;
    size_t f = i + 1;
    while (f < lines.size() && comment(lines[f])) ++f;
    if (f < lines.size() && function_at(f, &shown)) shown += "\n";
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("Tensor reference(const Tensor& x, const Tensor& key_pad) override {") == std::string::npos) continue;
    std::string text;
    if (function_at(i, &text)) return shown + text;
    break;
  }
  fail("docs: " + file + " has no reference form (a `Tensor reference(const Tensor& x, const Tensor& key_pad) override`"
       " whose closing brace is at its own indentation)");
}

// Fast against reference at 1K and 4K (IMPLS="fast reference" bench/variants.sh's records), as Markdown; empty without records.
std::string impl_table(const std::vector<JsonObject>& rows, const std::string& name, const std::string& path) {
  std::map<std::pair<int64_t, std::string>, JsonObject> at;
  std::string cpu, simd;
  for (auto& r : rows)
    if (json_text(r, "model") == name && json_text(r, "error", "").empty()) {
      at[{int64_t(std::stoll(json_text(r, "seq_len"))), json_text(r, "impl")}] = r;
      cpu = json_text(r, "cpu", ""), simd = json_text(r, "simd", "");
    }
  if (at.empty()) return "";
  std::ostringstream md;
  md << "Measured speed and peak memory of the two forms (`OMP_NUM_THREADS=1 IMPLS=\"fast reference\" bench/variants.sh " << path
     << " \"\" \"1024 4096\"`: `attnzoo bench --batch 2 --dim 128 --heads 4 --layers 2 --ffn 256 --impl fast|reference`, one "
        "thread, on " << cpu << ", Highway target " << simd
     << ", one run per cell, the machine otherwise idle):\n\n"
     << "| N | fast steps/s | reference steps/s | fast / reference | fast peak MB | reference peak MB |\n"
     << "|---:|---:|---:|---:|---:|---:|\n";
  for (int64_t n : {1024, 4096}) {
    auto f = at.find({n, "fast"}), r = at.find({n, "reference"});
    if (f == at.end() || r == at.end()) continue;
    double fs_ = std::stod(json_text(f->second, "steps_per_s")), rs = std::stod(json_text(r->second, "steps_per_s"));
    md << "| " << n << " | " << fmt("%.2f", fs_) << " | " << fmt("%.2f", rs) << " | " << fmt("%.1fx", fs_ / rs) << " | "
       << json_text(f->second, "peak_rss_mb") << " | " << json_text(r->second, "peak_rss_mb") << " |\n";
  }
  return md.str() + "\n";
}

// Does the variant have an N x N matrix of weights to show?  (mixer and fnet mix without one.)
bool has_attention_matrix(const std::string& name, std::string* why) {
  AttentionConfig c;
  c.dim = 16, c.heads = 2, c.max_len = 16;
  auto att = make_attention(name, c);
  att->eval();
  Rng rng(1);
  try {
    NoGradGuard ng;
    att->attention_weights(Tensor::randn({1, 16, 16}, 1.0f, rng), Tensor());
  } catch (const std::exception& e) {
    *why = e.what();
    return false;
  }
  return true;
}

// The same ListOps example on every page: the first test example of 20 to 30
// tokens, so its tokens fit on the axes.
int64_t listops_example(int64_t* length) {
  Splits s = generate_listops(listops_default());
  for (size_t i = 0; i < s.test.size(); ++i)
    if (s.test.seqs[i].size() >= 20 && s.test.seqs[i].size() <= 30) return *length = int64_t(s.test.seqs[i].size()), int64_t(i);
  fail("docs: the default ListOps test split has no example of 20 to 30 tokens");
}

// ---- the attention map: a tiny ListOps run, then attnmap ------------------------------------
struct MapResult {
  std::string markdown;
  bool failed = false;
};

MapResult map_section(const DocsOptions& o, const std::string& name, std::map<std::string, JsonObject>* records) {
  MapResult r;
  std::ostringstream md;
  md << "## What it learned: attention on one ListOps example\n\n";
  std::string why;
  if (!has_attention_matrix(name, &why)) {
    md << "`" << name << "` has no attention matrix to draw (its `attention_weights` says: *" << why
       << "*): it mixes positions without a row of weights per query, so this page has no learned map; "
          "the pattern above shows which positions it mixes.\n\n";
    r.markdown = md.str();
    return r;
  }
  int64_t len = 0, index = listops_example(&len);
  std::map<std::string, double> knobs = picture_knobs(name, 32);
  std::string run = o.runs + "/" + name, png = name + "-attnmap.png";
  std::string train = "attnzoo train --task listops --model " + name + knob_flags(knobs) +
                      " --dim 32 --heads 2 --layers 2 --ffn 64 --steps " + std::to_string(o.steps) + " --eval-every " +
                      std::to_string(o.steps) + " --log-every 100 --seed 1 --out " + run;
  std::string map = "attnzoo attnmap --ckpt " + run + "/best.ckpt --index " + std::to_string(index) + " --out " +
                    (fs::path(o.out) / png).string();
  // The map and its record stand while maps.jsonl says they came from this very command: a page
  // changes only when its own records do (a fresh clone has no checkpoints, and retraining every
  // model rewrote every page's timing and CPU). Else the checkpoint of this command, else a run.
  const bool recorded = !o.fresh && records->count(name) && json_text((*records)[name], "train") == train;
  if (o.maps == "train" && recorded && fs::exists(fs::path(o.out) / png)) {
    std::fprintf(stderr, "docs: %s: keeping %s (maps.jsonl records its command)\n", name.c_str(), png.c_str());
  } else if (o.maps == "train") {
    bool have = fs::exists(run + "/best.ckpt") && recorded;
    std::fprintf(stderr, "docs: %s: %s\n", name.c_str(), have ? ("reusing " + run + "/best.ckpt").c_str() : train.c_str());
    ChildResult cr;
    if (!have) {
      std::vector<std::string> argv = {o.bin};
      std::istringstream words(train.substr(std::string("attnzoo ").size()));
      for (std::string w; words >> w;) argv.push_back(w);
      argv.push_back("--force");  // the folder is this page's own: a changed command replaces its last run
      ChildOptions co;
      co.env["OMP_NUM_THREADS"] = "1";
      fs::create_directories(run);
      co.stderr_path = run + "/docs-train.log";
      co.stdout_path = "/dev/null";
      cr = run_child(argv, co);
      if (cr.exit_code != 0) {
        std::string err = last_line(co.stderr_path);
        std::fprintf(stderr, "docs: %s: the training run failed: %s\n", name.c_str(), err.c_str());
        md << "The training run for the map failed: `" << err << "` (command below).\n\n";
        r.failed = true;
      }
    }
    if (!r.failed) {
      JsonObject fin;
      for (auto& row : read_jsonl(run + "/metrics.jsonl"))
        if (row.count("final")) fin = row;
      cmd_attnmap({"--ckpt", run + "/best.ckpt", "--index", std::to_string(index), "--out", (fs::path(o.out) / png).string()});
      fs::remove(fs::path(o.out) / (name + "-attnmap.svg"));  // the PNG and its script are enough; the SVG is large
      JsonObject rec;
      rec["model"] = name;
      rec["test_acc"] = json_text(fin, "test_acc", "");
      rec["majority"] = json_text(fin, "majority_rate", json_text(fin, "majority", ""));
      rec["steps"] = std::to_string(o.steps);
      if (!have) rec["train_seconds"] = fmt("%.1f", cr.seconds), rec["cpu"] = cpu_name();
      else if (records->count(name)) rec["train_seconds"] = json_text((*records)[name], "train_seconds"), rec["cpu"] = json_text((*records)[name], "cpu");
      rec["train"] = train;
      rec["attnmap"] = map;
      (*records)[name] = rec;
    }
  }
  if (!r.failed && fs::exists(fs::path(o.out) / png)) {
    md << "![" << name << " attention weights on a ListOps example](" << png << ")\n\n";
    auto it = records->find(name);
    if (it != records->end()) {
      const JsonObject& rec = it->second;
      md << "A 2-layer, 2-head model of width 32 trained for " << json_text(rec, "steps") << " steps on the default ListOps task";
      if (!json_text(rec, "test_acc").empty())
        md << " reaches test accuracy " << json_text(rec, "test_acc") << " (majority class " << json_text(rec, "majority")
           << ")";
      if (!json_text(rec, "train_seconds").empty())
        md << " in " << json_text(rec, "train_seconds") << " s on one thread of " << json_text(rec, "cpu") << " (a shared, busy machine)";
      md << ". The picture is its attention on test example " << index << " (" << len
         << " tokens; the same example on every page). Such a short run learns little of ListOps: read the map for "
            "where the variant lets a query look and how the weights spread, not for a solution.\n\n";
    } else {
      md << "(No record of the run that drew this map in maps.jsonl.)\n\n";
    }
  } else if (!r.failed) {
    md << "No map yet: run `attnzoo docs` with `--maps train`, or the commands below.\n\n";
  }
  md << "```sh\nOMP_NUM_THREADS=1 " << train << "\n" << map << "\n```\n\n";
  r.markdown = md.str();
  return r;
}

// ---- speed and memory against N, from the bench records -----------------------------------
struct BenchRow {
  double steps = 0, mb = 0;
};
using BenchTable = std::map<std::pair<std::string, int64_t>, BenchRow>;  // (model, N)

BenchTable bench_table(const std::vector<JsonObject>& rows) {
  BenchTable t;
  for (auto& r : rows) {
    if (r.count("error") || (r.count("status") && json_text(r, "status") != "ok")) continue;
    if (r.count("kind") && json_text(r, "kind") != "bench") continue;
    t[{json_text(r, "model"), int64_t(json_number(r, "seq_len", 0))}] = {json_number(r, "steps_per_s", 0), json_number(r, "peak_rss_mb", 0)};
  }
  return t;
}

// The slope of log(time per step) against log(N) between the two longest
// measured N: there the fixed per-step work weighs least (1 = linear, 2 = quadratic).
double time_exponent(const BenchTable& t, const std::string& model, int64_t* from, int64_t* to) {
  const BenchRow *a = nullptr, *b = nullptr;
  int64_t na = 0, nb = 0;
  for (int64_t n : kLengths) {
    auto it = t.find({model, n});
    if (it == t.end() || it->second.steps <= 0) continue;
    a = b, na = nb;
    b = &it->second, nb = n;
  }
  *from = na, *to = nb;
  if (!a || na == nb) return NAN;
  return std::log(a->steps / b->steps) / std::log(double(nb) / double(na));
}

std::string bench_config(const std::vector<JsonObject>& rows, bool lra_bench) {
  for (auto& r : rows) {
    if (lra_bench && r.count("key")) {  // "bench --model M --seq-len N --batch 2 ...": keep the rest
      std::istringstream in(json_text(r, "key"));
      std::vector<std::string> w, keep;
      for (std::string x; in >> x;) w.push_back(x);
      for (size_t i = 1; i < w.size(); ++i)
        if (w[i] == "--model" || w[i] == "--seq-len") ++i;
        else keep.push_back(w[i]);
      return join(keep, " ");
    }
    if (!lra_bench && r.count("batch"))
      return "--batch " + json_text(r, "batch") + " --dim " + json_text(r, "dim") + " --heads " + json_text(r, "heads") +
             " --layers " + json_text(r, "layers") + " --ffn " + json_text(r, "ffn");
  }
  return "";
}

std::string bench_section(const DocsOptions& o, const std::string& name, const BenchTable& vb, const BenchTable& lb,
                          const std::string& vconf, const std::string& lconf) {
  std::ostringstream md, data, body;
  md << "## Speed and memory against N\n\n";
  struct Series {
    const BenchTable* t;
    std::string model, title, style;
  };
  std::vector<Series> series = {{&vb, name, name + " (bench/variants.sh)", "lw 2 pt 7 lc rgb '#d62728'"},
                                {&vb, "full", "full (bench/variants.sh)", "lw 1.5 pt 6 dt 2 lc rgb '#555555'"},
                                {&lb, name, name + " (lra mini bench)", "lw 2 pt 5 lc rgb '#ff9896'"},
                                {&lb, "full", "full (lra mini bench)", "lw 1.5 pt 4 dt 3 lc rgb '#aaaaaa'"}};
  if (name == "full") series = {series[0], series[2]};
  std::vector<std::string> plots_s, plots_m;
  for (size_t k = 0; k < series.size(); ++k) {
    std::string rows;
    for (int64_t n : kLengths) {
      auto it = series[k].t->find({series[k].model, n});
      if (it != series[k].t->end()) rows += std::to_string(n) + " " + fmt("%.6g", it->second.steps) + " " + fmt("%.6g", it->second.mb) + "\n";
    }
    if (rows.empty()) continue;
    data << "$s" << k << " << EOD\n" << rows << "EOD\n";
    std::string ref = "$s" + std::to_string(k);
    plots_s.push_back(ref + " using 1:2 with linespoints " + series[k].style + " title " + gp_quote(series[k].title));
    plots_m.push_back(ref + " using 1:3 with linespoints " + series[k].style + " notitle");
  }
  if (plots_s.empty()) {
    md << "No bench record for `" << name << "` in " << o.bench << " or " << o.lra_bench << " yet.\n\n";
    return md.str();
  }
  body << "set multiplot layout 1,2 title " << gp_quote(name + ": one training step against sequence length N") << "\n"
       << "set logscale xy 2\nset xtics (\"1K\" 1024, \"2K\" 2048, \"4K\" 4096, \"8K\" 8192)\nset xrange [800:10000]\n"
       << "set logscale y 10\nset grid\nset xlabel 'sequence length N'\nset bmargin 7\n"
       << "set key at screen 0.5, screen 0.01 center bottom horizontal maxcols 2 Left reverse samplen 2 font ',9'\n"
       << "set ylabel 'steps per second'\nplot " << join(plots_s, ", ") << "\n"
       << "set ylabel 'peak memory (MB)'\nunset key\nplot " << join(plots_m, ", ") << "\nunset multiplot";
  draw_with_gnuplot(o.out, name + "-bench", data.str(), body.str(), 640, 360);
  fs::remove(fs::path(o.out) / (name + "-bench.svg"));
  md << "![" << name << ": steps/s and peak memory against N](" << name << "-bench.png)\n\n";
  md << "| N | steps/s | vs full | peak MB | vs full |\n|---:|---:|---:|---:|---:|\n";
  for (int64_t n : kLengths) {
    auto it = vb.find({name, n}), f = vb.find({"full", n});
    if (it == vb.end()) continue;
    bool rel = f != vb.end() && f->second.steps > 0;
    md << "| " << n << " | " << fmt("%.3f", it->second.steps) << " | " << (rel ? fmt("%.1fx", it->second.steps / f->second.steps) : "")
       << " | " << fmt("%.0f", it->second.mb) << " | " << (rel ? fmt("%.2fx", it->second.mb / f->second.mb) : "") << " |\n";
  }
  int64_t e0 = 0, e1 = 0;
  double e = time_exponent(vb, name, &e0, &e1);
  md << "\nThe table is `bench/variants.sh` (`" << vconf << "`, random tokens, AdamW, each cell its own process; records in `"
     << o.bench << "`)";
  if (!std::isnan(e)) md << "; from N = " << e0 << " to " << e1 << " time per step grows as N^" << fmt("%.2f", e);
  md << ". The pale lines are the LRA mini preset's bench (`" << lconf << "`, one thread; records in `" << o.lra_bench
     << "`), which adds N = 2K. The records do not name their CPU: [speed.md](../speed.md) and `docs/lra/mini.md` "
        "say where and when they were measured.\n\n"
     << "```sh\nbench/variants.sh out.jsonl " << name << " \"1024 4096 8192\"\n"
     << "OMP_NUM_THREADS=1 attnzoo bench --model " << name << " --seq-len 2048 " << lconf << "  # one cell of the mini bench\n```\n\n";
  return md.str();
}

// ---- the LRA rows, one table per preset ----------------------------------------------------
// One preset's records: every seed's test accuracy per (model, task); for
// lm, bits per byte.
struct PresetCells {
  LraSource src;
  std::map<std::pair<std::string, std::string>, std::vector<double>> acc;  // %, one per seed (lm: bits per byte)
  std::map<std::pair<std::string, std::string>, double> majority;          // %
  std::map<std::pair<std::string, std::string>, std::string> command;      // seed 1's train command
  std::vector<std::string> columns;                                        // tasks with records, LRA's order
  std::vector<std::string> extras;                                         // the other tasks (mqar, lm): after the mean
  size_t seeds = 0;                                                        // the most seeds of any cell
};

// A registered task scored in bits per byte (lm: lower is better), not accuracy.
bool in_bits(const std::string& task) {
  const std::vector<std::string> t = task_names();
  return std::count(t.begin(), t.end(), task) && task_info(task).metric == Metric::kBitsPerByte;
}

PresetCells preset_cells(const LraSource& src) {
  PresetCells pc;
  pc.src = src;
  for (auto& r : read_jsonl(src.path)) {
    if (json_text(r, "kind") != "train" || json_text(r, "status") != "ok" || !r.count("test_acc")) continue;
    std::pair<std::string, std::string> k{json_text(r, "model"), json_text(r, "task")};
    pc.acc[k].push_back(in_bits(k.second) ? json_number(r, "test_bits_per_byte", NAN) : 100 * json_number(r, "test_acc", 0));
    pc.majority[k] = 100 * json_number(r, "majority_rate", 0);
    std::string key = json_text(r, "key");
    if (!pc.command.count(k) || json_text(r, "seed", "1") == "1") pc.command[k] = key.substr(0, key.find(" | "));
  }
  for (auto& t : lra_task_names(lra_preset("full"))) {
    bool any = false;
    for (auto& [k, v] : pc.acc) any = any || k.second == t;
    if (any) pc.columns.push_back(t);
  }
  // every other registered task with records, in the registry's column order (TaskLra::order)
  const std::vector<std::string> lra = lra_task_names(lra_preset("full"));
  std::vector<std::string> rest = task_names();
  std::stable_sort(rest.begin(), rest.end(), [](const std::string& a, const std::string& b) {
    return task_info(a).lra.order < task_info(b).lra.order;
  });
  for (auto& t : rest) {
    bool any = false;
    for (auto& [k, v] : pc.acc) any = any || k.second == t;
    if (any && !std::count(lra.begin(), lra.end(), t)) pc.extras.push_back(t);
  }
  for (auto& [k, v] : pc.acc) pc.seeds = std::max(pc.seeds, v.size());
  return pc;
}

struct MeanSd {
  double mean = NAN, sd = NAN;
  size_t n = 0;
};
MeanSd mean_sd(const std::vector<double>& v) {
  MeanSd m;
  m.n = v.size();
  if (v.empty()) return m;
  double s = 0;
  for (double x : v) s += x;
  m.mean = s / double(v.size());
  if (v.size() > 1) {
    double q = 0;
    for (double x : v) q += (x - m.mean) * (x - m.mean);
    m.sd = std::sqrt(q / double(v.size() - 1));
  }
  return m;
}
std::string show(const MeanSd& m, const char* f = "%.1f") {
  if (!m.n) return "—";
  return fmt(f, m.mean) + (std::isnan(m.sd) ? "" : " ± " + fmt(f, m.sd));
}

// The model's mean over the preset's tasks, seed by seed: mean ± sd of the per-seed averages.
MeanSd model_average(const PresetCells& pc, const std::string& model, size_t* tasks) {
  std::vector<double> per_seed(pc.seeds, 0.0);
  std::vector<int> count(pc.seeds, 0);
  *tasks = 0;
  for (auto& t : pc.columns) {
    auto it = pc.acc.find({model, t});
    if (it == pc.acc.end()) continue;
    ++*tasks;
    for (size_t i = 0; i < it->second.size(); ++i) per_seed[i] += it->second[i], ++count[i];
  }
  std::vector<double> v;
  for (size_t i = 0; i < pc.seeds; ++i)
    if (count[i] == int(*tasks) && *tasks) v.push_back(per_seed[i] / count[i]);
  return mean_sd(v);
}

std::string lra_table(const PresetCells& pc, const std::string& name) {
  std::ostringstream md;
  md << "| | ";
  for (auto& t : pc.columns) md << t << " | ";
  md << "mean |";
  for (auto& t : pc.extras)
    md << " " << task_info(t).lra.title << (in_bits(t) ? " (bits/byte, lower is better) |" : " (" + t + ") |");
  md << "\n|---|";
  for (size_t i = 0; i <= pc.columns.size() + pc.extras.size(); ++i) md << "---:|";
  md << "\n";
  auto row = [&](const std::string& label, const std::string& model) {
    md << "| " << label << " | ";
    for (auto& t : pc.columns) {
      auto it = pc.acc.find({model, t});
      md << (it == pc.acc.end() ? "—" : show(mean_sd(it->second))) << " | ";
    }
    size_t nt = 0;
    MeanSd avg = model_average(pc, model, &nt);
    md << (nt == pc.columns.size() ? show(avg) : "—") << " |";
    for (auto& t : pc.extras) {
      auto it = pc.acc.find({model, t});
      const std::string why = lra_cannot_run(t, model);
      md << " " << (it != pc.acc.end() ? show(mean_sd(it->second), in_bits(t) ? "%.3f" : "%.1f")
                                      : why.empty() ? "—" : "— (" + why + ")")
         << " |";
    }
    md << "\n";
  };
  row("**" + name + "**", name);
  // the model's own rows of other settings (MODEL+TAG, e.g. reformer+lra: Reformer as LRA ran it)
  std::set<std::string> tagged;
  for (auto& [key, v] : pc.acc)
    if (key.first.rfind(name + "+", 0) == 0) tagged.insert(key.first);
  for (auto& t : tagged) row(t, t);
  if (name != "full") row("full", "full");
  md << "| chance (majority class) | ";
  for (auto& t : pc.columns) {
    auto it = pc.majority.find({"full", t});
    md << (it == pc.majority.end() ? "—" : fmt("%.1f", it->second)) << " | ";
  }
  md << " |";
  for (auto& t : pc.extras) {
    auto it = pc.majority.find({"full", t});
    md << " " << (!in_bits(t) && it != pc.majority.end() ? fmt("%.1f", it->second) : "—") << " |";
  }
  md << "\n";
  for (auto& p : lra_published())
    if (p.ours == name) {
      md << "| *LRA paper: " << p.lra_name << "* | ";
      for (auto& t : pc.columns) {
        double v = lra_published_accuracy(p, t);
        md << (v > 0 ? fmt("%.2f", v) : "—") << " | ";
      }
      md << " |";
      for (size_t i = 0; i < pc.extras.size(); ++i) md << " — |";
      md << "\n";
    }
  return md.str();
}

std::string report_of(const LraSource& s) { return (fs::path(s.path).parent_path() / "results.md").string(); }

std::string lra_section(const DocsOptions& o, const std::string& name, const std::vector<PresetCells>& presets) {
  std::ostringstream md;
  md << "## Long Range Arena: the mini and full presets\n\n"
     << "Test accuracy (%) at the best validation step, mean ± sample standard deviation over the seeds (seed 1..K "
        "changes the initialisation, dropout and batch order, not the data); the mean column averages each seed's "
        "tasks first. Our Text is Spam Assassin e-mail and our Image Fashion-MNIST, so those columns compare models "
        "with each other, not with the paper. Where the preset has them, Recall (associative recall, mqar at length "
        "256 with 16 pairs) and LM (bits per byte on the fortunes corpus, lower is better) follow the mean and are "
        "not in it; a dash with a reason is a task the model cannot run.\n\n";
  for (auto& pc : presets) {
    bool any = false;
    for (auto& t : pc.columns) any = any || pc.acc.count({name, t});
    for (auto& t : pc.extras) any = any || pc.acc.count({name, t});
    md << "### Preset " << pc.src.preset << " (" << pc.seeds << (pc.seeds == 1 ? " seed" : " seeds") << ", records `"
       << pc.src.path << "`, report [" << report_of(pc.src) << "](../../" << report_of(pc.src) << "))\n\n";
    if (!any) {
      md << "No record for `" << name << "` on this preset's LRA tasks yet (the report says which cells have run).\n\n"
         << "```sh\nattnzoo lra --preset " << pc.src.preset << " --models " << name
         << " --threads 1 --out runs/lra-" << pc.src.preset << "   # [long]\n```\n\n";
      continue;
    }
    md << lra_table(pc, name) << "\nThe cells' commands (seed 1; `--seed K` for the others):\n\n```sh\n";
    std::vector<std::string> all = pc.columns;
    all.insert(all.end(), pc.extras.begin(), pc.extras.end());
    for (auto& t : all) {
      auto it = pc.command.find({name, t});
      if (it != pc.command.end()) md << "attnzoo " << it->second << "   # [long]\n";
    }
    md << "# all of them, resumable:\nattnzoo lra --preset " << pc.src.preset << " --models " << name
       << " --threads 1 --out runs/lra-" << pc.src.preset << "   # [long]\n```\n\n";
  }
  return md.str();
}

// ---- the recall sweep's width chart, this model's rows (docs/recall/sweep/results.jsonl) ----------
std::string recall_sweep_section(const DocsOptions& o, const std::string& name) {
  const std::string rel = "docs/recall/sweep/results.jsonl", path = (fs::path(o.src) / rel).string();
  if (!fs::exists(path)) return "";
  struct Cellset {
    std::vector<double> acc;  // % per seed
    double bytes = -1;        // the decoding state seed 1 measured
  };
  std::map<std::pair<int64_t, int64_t>, std::map<int64_t, Cellset>> acc;  // (T, pairs) -> dim -> seeds
  std::map<std::pair<std::string, double>, Cellset> knob;                 // (knob, value) -> seeds
  bool causal = false;
  for (auto& r : read_jsonl(path)) {
    if (json_text(r, "model") != name || json_text(r, "status") != "ok") continue;
    std::string group = json_text(r, "group");
    if (group != "grid" && group != "state") continue;
    Cellset& c = group == "grid" ? acc[{int64_t(json_number(r, "seq_len", 0)), int64_t(json_number(r, "pairs", 0))}]
                                      [int64_t(json_number(r, "dim", 0))]
                                 : knob[{json_text(r, "knob"), json_number(r, "knob_value", 0)}];
    c.acc.push_back(100 * json_number(r, "test_acc", 0));
    if (json_number(r, "seed", 0) == 1) c.bytes = json_number(r, "state_bytes", -1);
    causal = json_text(r, "causal") == "true" || json_number(r, "causal", 0) != 0;
  }
  auto state = [](double b) { return b < 0 ? std::string("-") : b < 1024 ? fmt("%.0f B", b) : fmt("%.1f KiB", b / 1024); };
  auto each = [](const std::vector<double>& v) {
    std::string s;
    for (double x : v) s += (s.empty() ? "" : ", ") + fmt("%.1f", x);
    return s;
  };
  std::ostringstream md;
  md << "## Associative recall against width (the recall sweep)\n\n";
  if (acc.empty())
    return md.str() + "No record for `" + name + "` in the recall sweep yet ([docs/recall/README.md](../recall/README.md) "
                      "says how to go on with it).\n\n";
  md << "MQAR test accuracy (%) over the query positions, " << (causal ? "trained causal" : "non-causal")
     << ", 1000 steps, learning rate 3e-3, mean ± sample sd over the seeds run so far (records `" << rel
     << "`, report [docs/recall/sweep/results.md](../recall/sweep/results.md); Welch's test there says which points "
        "differ from full attention's)"
     << (causal ? "; the decoding state is what the trained model's decoder holds after the whole sequence, measured" : "")
     << ".\n\n| length, pairs | dim | seeds | accuracy (%) | each seed |" << (causal ? " decoding state |" : "")
     << "\n|---|---:|---:|---:|---|" << (causal ? "---:|" : "") << "\n";
  for (auto& [point, dims] : acc)
    for (auto& [dim, c] : dims) {
      md << "| " << point.first << ", " << point.second << " | " << dim << " | " << c.acc.size() << " | "
         << show(mean_sd(c.acc)) << " | " << each(c.acc) << " |";
      if (causal) md << " " << state(c.bytes) << " |";
      md << "\n";
    }
  if (!knob.empty()) {
    md << "\n### Recall against its decoding state\n\nThe same task at length 256 with 16 pairs and dim 64, along "
          "this model's own state knob (the state chart of [docs/recall/sweep/results.md](../recall/sweep/results.md), "
          "where the frontier over all models is drawn).\n\n| knob | value | decoding state | seeds | accuracy (%) | each seed |\n"
          "|---|---:|---:|---:|---:|---|\n";
    for (auto& [k, c] : knob)
      md << "| --" << k.first << " | " << fmt("%g", k.second) << " | " << state(c.bytes) << " | " << c.acc.size() << " | "
         << show(mean_sd(c.acc)) << " | " << each(c.acc) << " |\n";
  }
  return md.str() + "\n";
}

// ---- the tour: the models in the lecture's order --------------------------------------------
// A stop's prose, by its number: the models at a stop are not listed here but
// read from the registry (AttentionInfo::lecture), so a new variant joins the
// stop its registration names; a number with no prose here opens a stop of its
// own, titled by the model and told by its summary (StopProse, below).
struct StopProse {
  int stop;
  const char* title;
  const char* idea;
};

const std::vector<StopProse>& stop_prose() {
  static const std::vector<StopProse> stops = {
      {1, "Full attention, and why it costs N²",
       "Every query scores every key: the N × N matrix QKᵀ is computed, softmaxed row by row and multiplied by V, so "
       "time and memory grow as N². Flash computes the same numbers tile by tile and never holds the matrix, so its "
       "memory is linear in N while its time stays quadratic. Everything below computes fewer entries, or none."},
      {2, "Local: a window around each token",
       "Each query attends only to the keys within a fixed window of its position, so a row has a constant number of "
       "entries and the cost is linear in N. Far tokens only meet through stacked layers."},
      {3, "Strided: every k-th token",
       "Besides its own block, a query sees every k-th key, a dilated pattern that reaches far with few entries. "
       "Local and strided heads together give every token a two-step path to every other."},
      {4, "Global: a few tokens see everything",
       "A handful of tokens attend to all positions and all positions attend to them: a hub through which information "
       "crosses the sequence in two steps, at a cost linear in N."},
      {5, "Longformer: window plus global",
       "Longformer adds the global tokens to the local window (and may dilate the window), so the local pattern keeps "
       "a path across the whole sequence."},
      {6, "BigBird: window, global and random",
       "BigBird computes blocks: a sliding window of blocks, a few global blocks and a few random blocks per row. The "
       "random blocks make the graph an expander, so paths between tokens are short."},
      {7, "Clustering: attend within a bucket",
       "Instead of a fixed pattern, similar queries and keys are grouped and attention is computed within each group: "
       "Reformer hashes them with random rotations (LSH), Routing clusters them with online k-means. The pattern "
       "depends on the content."},
      {8, "Learned sorting: Sinkhorn",
       "Sinkhorn attention learns to permute blocks of the sequence (a soft sorting matrix normalised by Sinkhorn "
       "iterations), then attends locally within the sorted blocks, so related blocks become neighbours."},
      {9, "Low rank: project the keys",
       "The attention matrix is close to low rank, so N keys and values can be projected down to k summaries: "
       "Linformer with a learned projection along the sequence, compressed attention with a strided convolution. "
       "Cost N × k."},
      {10, "Reordered products and kernels",
       "Replace softmax(QKᵀ) by φ(Q)φ(K)ᵀ and multiply in the other order, φ(Q)(φ(K)ᵀV): a d × d summary instead of "
       "an N × N matrix, linear in N. Linear attention uses elu+1, efficient attention normalises Q and K separately, "
       "RFA and Performer use random features that approximate the softmax kernel."},
      {11, "Synthesizer: attention without token-token scores",
       "Synthesizer does not compare queries with keys at all: the weights come from each token alone (dense) or are "
       "learned parameters (random). It asks how much the dot product matters."},
      {12, "Attention-free: MLP-Mixer, gMLP, FNet",
       "No attention weights at all: MLP-Mixer mixes positions with an MLP along the sequence, gMLP with a spatial "
       "gating unit, FNet with a Fourier transform. They mix with a fixed length and fixed weights per position "
       "rather than by content."},
  };
  return stops;
}

std::string tour_page(const DocsOptions& o, const BenchTable& vb, const std::vector<PresetCells>& presets,
                      const std::string& stamp, const std::string& tour_path) {
  std::ostringstream md;
  std::string models_rel = fs::relative(fs::absolute(o.out), fs::absolute(fs::path(tour_path).parent_path())).string();
  std::string root_rel = fs::relative(fs::absolute(o.src), fs::absolute(fs::path(tour_path).parent_path())).string();
  md << "<!-- Generated by `attnzoo docs` from the registry and the records; do not edit: run `make docs`. -->\n"
     << stamp << "\n"
     << "# A tour of the models, in the lecture's order\n\n"
     << "From why full attention costs N² to the models that use no attention at all. Each stop gives the idea, the "
        "file to read, the pattern (which entries of the N × N matrix one layer computes, at N = " << o.pattern_n
     << "), the measured cost against N, the measured Long Range Arena scores with their spread over seeds, and one "
        "command to try. Every figure is read from the records when the page is generated (`make docs`): the cost from `"
     << o.bench << "` (`bench/variants.sh`, " << bench_config(read_jsonl(o.bench), false)
     << "; where and when it was measured: [speed.md](speed.md)), the scores from ";
  for (size_t i = 0; i < presets.size(); ++i)
    md << (i ? ", " : "") << "`" << presets[i].src.path << "` (preset " << presets[i].src.preset << ", "
       << presets[i].seeds << " seeds)";
  md << " ([lra.md](lra.md) says where and when they ran). Each model has its own page with more: "
     << "[the models](" << models_rel << "/README.md).\n\n";
  int k = 0;
  for (auto& st : tour_stops(o.src)) {
    md << "## " << ++k << ". " << st.title << "\n\n" << st.idea << "\n\n";
    for (auto& name : st.models) {
      const AttentionInfo& info = attention_info(name);
      std::string file;
      opening_comment(o.src, name, &file);
      std::string summary = info.summary;
      if (!summary.empty() && summary.back() != '.') summary += ".";
      md << "### " << name << "\n\n" << summary << " Read [" << file << "](" << root_rel << "/" << file
         << "); its page: [" << name << "](" << models_rel << "/" << name << ".md). The algorithm, as `reference()` "
         << "in that file writes it (the same function as its fast form):\n\n```cpp\n" << reference_source(o.src, file)
         << "```\n\n";
      std::string pic = name + "-pattern.png";
      if (fs::exists(fs::path(o.out) / pic))
        md << "<img src=\"" << models_rel << "/" << pic << "\" width=\"240\" alt=\"" << name << ": the entries computed at N="
           << o.pattern_n << "\">\n\n";
      // cost against N
      int64_t e0 = 0, e1 = 0;
      double e = time_exponent(vb, name, &e0, &e1);
      auto it = vb.find({name, 4096}), fl = vb.find({"full", 4096});
      md << "- **Cost against N**: ";
      if (it == vb.end()) {
        md << "no bench record.\n";
      } else {
        if (!std::isnan(e)) md << "time per step grows as N^" << fmt("%.2f", e) << " from N = " << e0 << " to " << e1 << "; ";
        md << "at N = 4096, " << fmt("%.2f", it->second.steps) << " steps/s and " << fmt("%.0f", it->second.mb) << " MB peak";
        if (fl != vb.end() && name != "full")
          md << " (" << fmt("%.1fx", it->second.steps / fl->second.steps) << " the speed and "
             << fmt("%.2fx", it->second.mb / fl->second.mb) << " the memory of full attention)";
        md << ".\n";
      }
      // scores
      for (auto& pc : presets) {
        md << "- **LRA " << pc.src.preset << "** (" << pc.seeds << " seeds): ";
        std::vector<std::string> parts;
        for (auto& t : pc.columns) {
          auto c = pc.acc.find({name, t});
          if (c != pc.acc.end()) parts.push_back(t + " " + show(mean_sd(c->second)));
        }
        size_t nt = 0;
        MeanSd avg = model_average(pc, name, &nt);
        if (parts.empty()) md << "not in this sweep.\n";
        else md << join(parts, ", ") << (nt == pc.columns.size() ? "; mean " + show(avg) : "") << ".\n";
      }
      md << "\n```sh\nbuild/attnzoo train --task listops --model " << name << " --steps 300 --out runs/tour-" << name
         << "   # [long] a short ListOps run\n```\n\n";
    }
  }
  md << "## " << ++k << ". The chart that sums it up\n\n"
     << "Accuracy against speed and memory, the survey's bubble chart, for the nine models the sweeps ran. The full "
        "preset (LRA's lengths):\n\n"
     << "![LRA full preset: accuracy, speed, memory](lra/full/chart.png)\n\nThe mini preset (shorter sequences, three seeds):\n\n"
     << "![LRA mini preset: accuracy, speed, memory](lra/mini3/chart.png)\n\n"
     << "```sh\nbuild/attnzoo lra --preset mini --threads 1 --out runs/lra-mini   # [long] 9 CPU-hours for nine models\n```\n";
  return md.str();
}

}  // namespace

// ---- the lists the registry writes: the zoo, the tour's stops, the marked blocks -------------

std::string model_source(const std::string& src, const std::string& name) {
  for (const char* d : {"attention", "mlp_mixer"})
    if (fs::exists(fs::path(src) / d / (name + ".cpp"))) return std::string(d) + "/" + name + ".cpp";
  return "";
}

std::vector<std::string> zoo_models(const std::string& src) {
  std::vector<std::string> zoo;
  for (auto& name : attention_lecture_order())
    if (!model_source(src, name).empty()) zoo.push_back(name);
  return zoo;
}

std::vector<TourStop> tour_stops(const std::string& src) {
  std::vector<TourStop> stops;
  for (auto& name : zoo_models(src)) {
    const AttentionInfo& info = attention_info(name);
    if (stops.empty() || stops.back().stop != info.lecture.stop) {
      TourStop st{info.lecture.stop, name, info.summary, {}};  // a stop with no prose yet: the model's own
      for (auto& p : stop_prose())
        if (p.stop == info.lecture.stop) st.title = p.title, st.idea = p.idea;
      stops.push_back(st);
    }
    stops.back().models.push_back(name);
  }
  return stops;
}

// WORDS wrapped at 100 columns, each line starting with INDENT; as a list, "a, b, c."
static std::string wrapped(const std::vector<std::string>& words, const std::string& indent, bool list) {
  const size_t width = 100;
  std::string out, line = indent;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string w = words[i] + (!list ? "" : i + 1 < words.size() ? "," : ".");
    if (line.size() > indent.size() && line.size() + 1 + w.size() > width) out += line + "\n", line = indent;
    line += (line.size() > indent.size() ? " " : "") + w;
  }
  return out + line + "\n";
}

std::string models_block(const std::string& page, const std::string& src) {
  std::vector<std::string> zoo = zoo_models(src), words;
  if (page == "readme") {
    // "dense: full, flash; fixed: local, ..." (a family met again after another is named again)
    std::string text = "The " + std::to_string(zoo.size()) + " models in the lecture's order, by family:";
    for (size_t i = 0; i < zoo.size(); ++i) {
      const std::string& fam = attention_info(zoo[i]).family;
      bool opens = i == 0 || attention_info(zoo[i - 1]).family != fam;
      text += std::string(opens ? (i ? "; " : " ") + fam + ": " : ", ") + zoo[i];
    }
    std::istringstream in(text + ".");
    for (std::string w; in >> w;) words.push_back(w);
    return wrapped(words, "", false);
  }
  if (page == "architecture") {
    for (auto& name : zoo) words.push_back("`" + model_source(src, name) + "`");
    return wrapped(words, "   ", true);
  }
  fail("docs: no models block for page '" + page + "' (readme or architecture)");
}

const char* const kBlockBegin = "<!-- models:begin";
const char* const kBlockEnd = "<!-- models:end -->";

std::string replace_models_block(const std::string& text, const std::string& block, const std::string& file) {
  size_t b = text.find(kBlockBegin), e = text.find(kBlockEnd);
  if (b == std::string::npos || e == std::string::npos || e < b)
    fail("docs: " + file + " has no models block (a line `" + kBlockBegin + " ... -->`, the list, then `" + kBlockEnd +
         "`): the registry's list of models is written there");
  size_t from = text.find('\n', b) + 1, to = text.rfind('\n', e) + 1;  // whole lines: the markers' indentation stays
  return text.substr(0, from) + block + text.substr(to);
}

std::string models_block_of(const std::string& text) {
  size_t b = text.find(kBlockBegin), e = text.find(kBlockEnd);
  if (b == std::string::npos || e == std::string::npos || e < b) return "";
  size_t from = text.find('\n', b) + 1, to = text.rfind('\n', e) + 1;
  return text.substr(from, to - from);
}

int cmd_docs(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h")
      return std::printf(
                 "attnzoo docs [--out docs/models] [--src .] [--models a,b] [--maps train|keep] [--fresh] [--steps 300]\n"
                 "             [--runs runs/docs] [--bench docs/bench/variants.jsonl] [--lra auto|PRESET=PATH,...]\n"
                 "             [--lra-bench docs/lra/mini3/bench.jsonl] [--impl-bench docs/bench/impl.jsonl] [--tour docs/tour.md]\n"
                 "             [--lists README.md,docs/ARCHITECTURE.md] [--bin build/attnzoo]\n"
                 "  writes one Markdown page per model (its source file's opening comment, its settings, its\n"
                 "  pattern, a learned attention map, speed and memory against N, its LRA rows) and an index,\n"
                 "  README.md, comparing them, the tour in the lecture's order (--tour), and the registry's list of\n"
                 "  models in the marked blocks (<!-- models:begin -->) of the --lists files.  --models a,b: only\n"
                 "  those pages and maps; the index, the tour and the lists are rewritten from the records, so\n"
                 "  no other model's text changes.\n"
                 "  --lra auto: for each preset the newest records under docs/lra (each DIR/results.jsonl whose\n"
                 "  results.md names its preset); every page stamps the records' fingerprints (a test compares).\n"
                 "    --maps train: train a tiny ListOps model per variant (a few seconds each, one thread) and\n"
                 "  draw its map, unless OUT/maps.jsonl records this very command and its map is drawn (then the\n"
                 "  page keeps them: a fresh clone retrains nothing) or --runs holds its checkpoint; --fresh\n"
                 "  retrains; keep: leave the map pictures as they are.\n"
                 "  Records of the map runs: OUT/maps.jsonl.  Given --out DIR, it writes under DIR alone: the pages,\n"
                 "  the tour (DIR/tour.md) and the map runs (DIR/runs), unless --tour, --runs or --lists name other\n"
                 "  places; without --out: docs/models, docs/tour.md, runs/docs and the lists of README.md and\n"
                 "  docs/ARCHITECTURE.md.\n"), 0;
  Flags f("docs", args, {"out", "src", "models", "maps", "steps", "runs", "bench", "lra", "lra-bench", "impl-bench", "tour", "lists", "bin"},
          {"fresh"});
  DocsOptions o;
  o.out = f.str("out", "docs/models");
  o.src = f.str("src", ".");
  o.maps = f.str("maps", "train");
  o.steps = f.integer("steps", 300);
  // Everything a command given --out writes stays under it: the tour and the map runs too, unless
  // --tour and --runs say otherwise (make docs names docs/tour.md and runs/docs).
  const bool own_out = f.has("out");
  o.runs = f.str("runs", own_out ? (fs::path(o.out) / "runs").string() : "runs/docs");
  o.bench = f.str("bench", "docs/bench/variants.jsonl");
  o.lra = f.str("lra", "auto");
  o.lra_bench = f.str("lra-bench", "docs/lra/mini3/bench.jsonl");
  o.impl_bench = f.str("impl-bench", "docs/bench/impl.jsonl");
  std::string tour = f.str("tour", own_out ? (fs::path(o.out) / "tour.md").string() : "docs/tour.md");
  std::string lists = f.str("lists", own_out ? "" : "README.md,docs/ARCHITECTURE.md");
  o.fresh = f.on("fresh");
  std::error_code ec;
  o.bin = f.str("bin", fs::read_symlink("/proc/self/exe", ec).string());
  if (o.maps != "train" && o.maps != "keep") fail("docs: --maps must be train or keep, got '" + o.maps + "'");
  if (o.steps < 1 || o.steps > 100000) fail("docs: --steps must be in 1..100000, got " + std::to_string(o.steps));
  for (auto& p : {o.bench, o.lra_bench})
    if (!fs::exists(p)) fail("docs: " + p + " does not exist (the records the pages are drawn from)");
  std::vector<std::string> models = attention_names();
  if (f.has("models")) {
    models.clear();
    std::istringstream in(f.str("models", ""));
    for (std::string m; std::getline(in, m, ',');) models.push_back(attention_info(m).name);
  }
  fs::create_directories(o.out);

  std::vector<JsonObject> vrows = read_jsonl(o.bench), lrows = read_jsonl(o.lra_bench);
  std::vector<JsonObject> irows = fs::exists(o.impl_bench) ? read_jsonl(o.impl_bench) : std::vector<JsonObject>();
  BenchTable vb = bench_table(vrows), lb = bench_table(lrows);
  std::vector<LraSource> sources = lra_sources(o.lra, (fs::path(o.src) / "docs/lra").string());
  std::vector<PresetCells> presets;
  for (auto& s : sources) presets.push_back(preset_cells(s));
  std::string stamp = records_stamp(sources);
  std::map<std::string, JsonObject> maps;
  std::string maps_path = (fs::path(o.out) / "maps.jsonl").string();
  for (auto& r : read_jsonl(maps_path)) maps[json_text(r, "model")] = r;

  int failures = 0;
  for (const std::string& name : models) {
    const AttentionInfo& info = attention_info(name);
    std::string file, comment = opening_comment(o.src, name, &file);
    std::ostringstream md;
    md << "<!-- Generated by `attnzoo docs` from " << file << ", the registry and the records; do not edit: run `make docs`. -->\n"
       << stamp << "\n"
       << "# " << name << "\n\n" << info.summary << "\n\n"
       << "Family: **" << info.family << "** · causal mode: " << (info.causal_ok ? "yes (`--causal`)" : "no")
       << " · source: [" << file << "](../../" << file << ") · [all models](README.md)\n\n"
       << "## What it computes, in the words of its source file\n\n```text\n" << comment << "```\n\n"
       << "## The algorithm: its reference form\n\n"
       << "The plain form, in composed autograd ops, from `reference()` in [" << file << "](../../" << file
       << "). It is the same function as the fast form (`forward()`: outputs and every gradient equal, "
       << "tests/test_reference.cpp); train or evaluate with it by `--impl reference`.\n\n```cpp\n"
       << reference_source(o.src, file) << "```\n\n" << impl_table(irows, name, o.impl_bench);
    md << "## Settings\n\n";
    if (info.knobs.empty()) {
      md << "No settings of its own beyond the model's (`--dim`, `--heads`, `--seq-len`, ...).\n\n";
    } else {
      md << "| flag | default | range | what it sets |\n|---|---:|---|---|\n";
      for (auto& k : info.knobs)
        md << "| `--" << flag_of(k.name) << "` | " << fmt("%g", k.def) << " | " << fmt("%g", k.lo) << " .. " << fmt("%g", k.hi)
           << (k.choices.empty() ? "" : ", or by name: " + join(k.choices, ", ")) << " | " << cell(k.help) << " |\n";
      md << "\n";
    }
    // The pattern picture, by the pattern command itself.
    std::string pat = name + "-pattern.png", n = std::to_string(o.pattern_n);
    cmd_pattern({"--model", name, "--seq-len", n, "--out", (fs::path(o.out) / pat).string()});
    fs::remove(fs::path(o.out) / (name + "-pattern.svg"));
    std::map<std::string, double> pk = picture_knobs(name, o.pattern_n);
    md << "## Which entries it computes\n\n![" << name << ": the entries computed at N=" << n << "](" << pat << ")\n\n"
       << "One layer, head 0, on a random input of N = " << n << " tokens; each colour is one component of the pattern, "
       << "white entries are never computed.";
    if (!pk.empty())
      md << " The registry's defaults are sized for thousands of tokens and would hide the structure at this N, so it is "
            "drawn with" << knob_flags(pk) << " (the command chooses these itself when they are not given).";
    md << "\n\n```sh\nattnzoo pattern --model " << name << " --seq-len " << n << " --out " << (fs::path(o.out) / pat).string()
       << "\n```\n\n";
    MapResult mr = map_section(o, name, &maps);
    failures += mr.failed;
    md << mr.markdown;
    md << bench_section(o, name, vb, lb, bench_config(vrows, false), bench_config(lrows, true));
    md << lra_section(o, name, presets);
    md << recall_sweep_section(o, name);
    std::ofstream(fs::path(o.out) / (name + ".md")) << md.str();
    std::printf("docs: wrote %s\n", (fs::path(o.out) / (name + ".md")).string().c_str());
  }
  {
    std::ofstream mj(maps_path);
    for (auto& [name, r] : maps) {
      std::string line = "{";
      for (auto& [k, v] : r) line += (line.size() > 1 ? ", " : "") + json_quote(k) + ": " + json_quote(v);
      mj << line << "}\n";
    }
  }

  // ---- the index: the families side by side ----
  std::ostringstream ix;
  ix << "<!-- Generated by `attnzoo docs`; do not edit: run `make docs`. -->\n" << stamp << "\n"
     << "# The models, one page each\n\n"
     << "Every registered model has a page: what its source file says it computes, its settings, a picture of the "
        "entries it computes, what a small trained model attends to, its speed and memory against N and its Long "
        "Range Arena rows (the mini and full presets). The pages are generated (`make docs`, or `attnzoo docs --out docs/models`) from the "
        "source files, the registry and the committed records.\n\n"
     << "| pattern (N=" << o.pattern_n << ") | model | family | what it computes | time per step ∝ N^a, measured 4K→8K | "
        "steps/s at 4K (vs full) | peak MB at 4K (vs full) |";
  for (auto& pc : presets) ix << " LRA " << pc.src.preset << " mean (%) |";
  ix << "\n|---|---|---|---|---:|---:|---:|";
  for (size_t i = 0; i < presets.size(); ++i) ix << "---:|";
  ix << "\n";
  std::vector<std::string> all = attention_lecture_order();  // by family, and in a family as the lecture reads them
  auto fam_rank = [&](const std::string& fam) {
    const auto& f = attention_families();
    return int(std::find(f.begin(), f.end(), fam) - f.begin());  // an unknown family last
  };
  std::stable_sort(all.begin(), all.end(), [&](const std::string& a, const std::string& b) {
    return fam_rank(attention_info(a).family) < fam_rank(attention_info(b).family);
  });
  for (const std::string& name : all) {
    const AttentionInfo& info = attention_info(name);
    auto it = vb.find({name, 4096}), fl = vb.find({"full", 4096});
    bool rel = it != vb.end() && fl != vb.end() && fl->second.steps > 0;
    int64_t e0 = 0, e1 = 0;
    double e = time_exponent(vb, name, &e0, &e1);
    std::string pic = name + "-pattern.png";
    ix << "| " << (fs::exists(fs::path(o.out) / pic) ? "<img src=\"" + pic + "\" width=\"120\" alt=\"" + name + " pattern\">" : "")
       << " | [" << name << "](" << name << ".md) | " << info.family << " | " << info.summary << " | "
       << (std::isnan(e) ? "—" : "N^" + fmt("%.2f", e)) << " | "
       << (it == vb.end() ? "—" : fmt("%.2f", it->second.steps) + (rel ? " (" + fmt("%.1fx", it->second.steps / fl->second.steps) + ")" : ""))
       << " | " << (it == vb.end() ? "—" : fmt("%.0f", it->second.mb) + (rel ? " (" + fmt("%.2fx", it->second.mb / fl->second.mb) + ")" : ""))
       << " |";
    for (auto& pc : presets) {
      size_t nt = 0;
      MeanSd avg = model_average(pc, name, &nt);
      ix << " " << (nt == pc.columns.size() && nt ? show(avg) : "—") << " |";
    }
    ix << "\n";
  }
  ix << "\nTime exponent a: the slope of log(time per step) against log N between the two longest lengths in `" << o.bench
     << "` (4K and 8K): about 1 for a cost linear in N, 2 for quadratic; the dense layers, linear in N, still weigh at "
        "these sizes, so full attention reads a little below 2; each length is one short bench on a shared machine, so "
        "read a to about ±0.2. Speed and memory: `bench/variants.sh` (" << bench_config(vrows, false)
     << "), relative to full attention in the same sweep. LRA means: test accuracy over the preset's tasks, "
        "mean ± sd over its seeds, from ";
  for (size_t i = 0; i < presets.size(); ++i)
    ix << (i ? ", " : "") << "`" << presets[i].src.path << "` ([" << presets[i].src.preset << " report](../../"
       << report_of(presets[i].src) << "))";
  ix << "; a model the sweeps left out shows —.\n\nFamilies:\n\n";
  for (const std::string& fam : attention_families()) {
    std::vector<std::string> names;
    for (auto& name : all)
      if (attention_info(name).family == fam) names.push_back("[" + name + "](" + name + ".md)");
    if (!names.empty()) ix << "- **" << fam << "**: " << join(names, ", ") << "\n";
  }
  std::ofstream(fs::path(o.out) / "README.md") << ix.str();
  std::printf("docs: wrote %s\n", (fs::path(o.out) / "README.md").string().c_str());
  // The tour and the lists hold every model, each stop drawn from the records alone: rewriting them for
  // one model (--models) leaves every other model's text as it was.
  if (!tour.empty()) {
    std::ofstream(tour) << tour_page(o, vb, presets, stamp, tour);
    std::printf("docs: wrote %s\n", tour.c_str());
  }
  std::istringstream lin(lists);
  for (std::string file; std::getline(lin, file, ',');) {
    std::string page = fs::path(file).filename() == "ARCHITECTURE.md" ? "architecture" : "readme";
    std::ifstream in(file);
    if (!in) fail("docs: cannot read " + file + " (--lists: the pages whose models block the registry writes)");
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    std::string now = replace_models_block(text.str(), models_block(page, o.src), file);
    if (now != text.str()) std::ofstream(file) << now, std::printf("docs: wrote the models block of %s\n", file.c_str());
  }
  if (failures) fail("docs: " + std::to_string(failures) + " map training run(s) failed (see the pages and " + o.runs + ")");
  return 0;
}

std::string page_source(const std::string& src, const std::string& file) { return reference_source(src, file); }

}  // namespace az
