// The task registry and what every task shares (see tasks.h).  The tasks
// themselves are the files in train/tasks/.
#include "train/tasks.h"
#include "autograd/runtime/strings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/images/image_folder.h"

namespace az {

const char* metric_name(Metric m) { return m == Metric::kBitsPerByte ? "bits_per_byte" : "accuracy"; }

LraRow lra_row(LraData data, const std::string& flags) {
  LraRow r;
  r.data = std::move(data);
  const std::vector<std::pair<const char*, int64_t*>> ints = {
      {"--dim", &r.dim},     {"--heads", &r.heads}, {"--layers", &r.layers},   {"--ffn", &r.ffn},
      {"--steps", &r.steps}, {"--batch", &r.batch}, {"--warmup", &r.warmup}, {"--eval-every", &r.eval_every}};
  std::vector<std::string> words;
  std::istringstream in(flags);
  for (std::string w; in >> w;) words.push_back(w);
  std::vector<std::string> seen;
  auto bad = [&](const std::string& what) {
    throw Error("lra row '" + flags + "': " + what +
                ", expected --dim --heads --layers --ffn --steps --batch --warmup --eval-every --lr, each once with a number");
  };
  for (size_t k = 0; k < words.size(); k += 2) {
    const std::string& name = words[k];
    if (k + 1 >= words.size()) bad(name + " has no value");
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) bad(name + " given twice");
    seen.push_back(name);
    const char* v = words[k + 1].c_str();
    char* end = nullptr;
    if (name == "--lr") {
      r.lr = std::strtod(v, &end);
      if (*end || !(r.lr > 0)) bad("--lr " + words[k + 1]);
      continue;
    }
    auto it = std::find_if(ints.begin(), ints.end(), [&](const auto& e) { return name == e.first; });
    if (it == ints.end()) bad("unknown setting " + name);
    *it->second = std::strtoll(v, &end, 10);
    if (*end || *it->second < 0) bad(name + " " + words[k + 1]);
  }
  std::vector<std::string> missing;
  for (const char* n : {"--dim", "--heads", "--layers", "--ffn", "--steps", "--batch", "--warmup", "--eval-every", "--lr"})
    if (std::find(seen.begin(), seen.end(), n) == seen.end()) missing.push_back(n);
  if (!missing.empty()) bad("missing " + join(missing, " "));
  return r;
}

static std::map<std::string, TaskInfo>& registry() {
  static std::map<std::string, TaskInfo> r;
  return r;
}

RegisterTask::RegisterTask(TaskInfo info) { registry()[info.name] = std::move(info); }

std::vector<std::string> task_names() {
  std::vector<std::string> n;
  for (auto& kv : registry()) n.push_back(kv.first);
  return n;
}

const TaskInfo& task_info(const std::string& name) {
  auto it = registry().find(name);
  if (it == registry().end())
    fail("unknown task '" + name + "'" + did_you_mean(name, task_names()) + " (valid: " + join(task_names()) + ")");
  return it->second;
}

std::string data_cache_dir() {
  const char* e = std::getenv("ATTNZOO_DATA");
  return e && *e ? e : "data_cache";
}

// ---- options --------------------------------------------------------------------------------
TaskOption int_option(const std::string& name, int64_t def, int64_t lo, int64_t hi, const std::string& help) {
  TaskOption o;
  o.name = name, o.def = std::to_string(def), o.help = help, o.kind = TaskOption::kInteger;
  o.lo = double(lo), o.hi = double(hi);
  return o;
}

TaskOption text_option(const std::string& name, const std::string& def, std::vector<std::string> choices,
                       const std::string& help) {
  TaskOption o;
  o.name = name, o.def = def, o.help = help, o.kind = TaskOption::kText, o.choices = std::move(choices);
  return o;
}

std::vector<TaskOption> image_view_options() {
  return {text_option("input", "pixels", {"pixels", "patches"}, "one token per pixel, or one per P x P patch"),
          int_option("patch", 4, 1, kMaxImageSide, "patch side P for --input patches"),
          int_option("flip", 0, 0, 1, "1: train on random mirror images"),
          int_option("shift", 0, 0, kMaxImageSide, "train on random shifts of up to K pixels each way")};
}

namespace {

std::string show(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// The value of a numeric option, or one line saying why not.
double parse_option(const TaskOption& o, const std::string& v) {
  std::string flag = "--" + o.name;
  double x = 0;
  try {
    size_t used = 0;
    x = std::stod(v, &used);
    if (used != v.size() || !std::isfinite(x)) throw std::invalid_argument(v);
  } catch (const std::exception&) {
    fail(flag + " expects " + (o.kind == TaskOption::kInteger ? "an integer" : "a number") + ", got '" + v + "'");
  }
  if (o.kind == TaskOption::kInteger && x != std::floor(x)) fail(flag + " expects an integer, got '" + v + "'");
  if (std::fabs(x) > 9e15) fail(flag + " " + v + " is out of range (at most 9e15)");
  if (o.kind == TaskOption::kInteger && o.lo == 0 && o.hi == 1 && x != 0 && x != 1)
    fail(flag + " must be 0 or 1, got " + show(x));
  bool plain = o.lo == 0 || o.lo == 1;  // "must be positive" / "must not be negative" read better
  if (x < o.lo) {
    if (o.lo == 0) fail(flag + " must not be negative, got " + show(x));
    if (o.lo == 1) fail(flag + " must be positive, got " + show(x));
  }
  if (x < o.lo || (x > o.hi && !plain)) fail(flag + " must be in " + show(o.lo) + ".." + show(o.hi) + ", got " + show(x));
  if (x > o.hi) fail(flag + " " + show(x) + " is too large (at most " + show(o.hi) + ")");
  return x;
}

void check_option(const TaskOption& o, const std::string& v) {
  if (o.kind != TaskOption::kText) {
    parse_option(o, v);
    return;
  }
  if (o.choices.empty() || std::find(o.choices.begin(), o.choices.end(), v) != o.choices.end()) return;
  std::vector<std::string> named;
  bool omitted = false;
  for (auto& c : o.choices) c.empty() ? void(omitted = true) : named.push_back(c);
  std::string list = named.size() > 1 ? join({named.begin(), named.end() - 1}) + " or " + named.back() : join(named);
  fail("--" + o.name + " must be " + list + (omitted ? " (or omitted)" : "") + ", got '" + v + "'");
}

}  // namespace

const std::string& TaskContext::str(const std::string& name) const {
  auto it = opt.find(name);
  if (it == opt.end()) fail("task '" + task + "' has no option --" + name);
  return it->second;
}
double TaskContext::number(const std::string& name) const { return std::stod(str(name)); }
int64_t TaskContext::integer(const std::string& name) const { return int64_t(std::llround(number(name))); }

std::map<std::string, std::string> task_settings(const TrainConfig& tc) {
  const TaskInfo& info = task_info(tc.task);
  std::map<std::string, std::string> s;
  for (auto& o : info.options) {
    auto it = tc.task_args.find(o.name);
    std::string v = it == tc.task_args.end() ? o.def : it->second;
    check_option(o, v);
    s[o.name] = v;
  }
  return s;
}

// The image tasks' view: whole images as pixel tokens, or P x P patches; augmentation.
TaskData image_task(Splits s, const TaskContext& c) {
  TaskData t;
  t.splits = std::move(s);
  const Dataset& d = t.splits.train;
  int64_t patch = c.integer("patch"), n;
  if (c.str("input") == "patches") {
    if (d.height % patch || d.width % patch)
      fail("--patch " + std::to_string(patch) + " does not divide the image size " + std::to_string(d.height) + "x" +
           std::to_string(d.width));
    t.opts.patch = int(patch);
    t.patch_dim = patch * patch * d.channels;
    n = (d.height / patch) * (d.width / patch);
    if (c.seq_len && c.seq_len < n)
      fail("--seq-len " + std::to_string(c.seq_len) + " is shorter than the " + std::to_string(n) + " patches per image");
  } else {
    n = int64_t(d.height) * d.width * d.channels;
    if (c.seq_len && c.seq_len < n)  // the batcher would silently keep only the first rows
      fail("--seq-len " + std::to_string(c.seq_len) + " is shorter than the " + std::to_string(n) + " pixels per image");
  }
  t.max_len = c.seq_len ? c.seq_len : n;
  int64_t shift = c.integer("shift"), side = std::max(d.height, d.width);
  if (shift > 0 && shift >= side)
    fail("--shift " + std::to_string(shift) + " must be smaller than the image side " + std::to_string(side));
  t.opts.flip = c.integer("flip") != 0;
  t.opts.shift = int(shift);
  return t;
}

Dataset lra_subset(Dataset d, int64_t n, uint64_t seed) {
  if (n <= 0 || size_t(n) >= d.size()) return d;
  Dataset out;
  carve_split(d, out, size_t(n), seed);
  return out;
}

void write_image_splits(const Splits& s, const std::string& dir) {
  namespace fs = std::filesystem;
  const std::pair<const char*, const Dataset*> parts[] = {{"train", &s.train}, {"val", &s.val}, {"test", &s.test}};
  for (auto& [name, d] : parts)
    for (size_t i = 0; i < d->size(); ++i) {
      std::string folder = dir + "/" + name + "/" + std::to_string(d->labels[i]);
      if (i == 0 || !fs::exists(folder)) fs::create_directories(folder);
      std::vector<uint8_t> px(d->seqs[i].size());
      for (size_t k = 0; k < px.size(); ++k) px[k] = uint8_t(d->seqs[i][k] - 1);  // tokens are value + 1
      char file[32];
      std::snprintf(file, sizeof file, "/%05zu.png", i);
      write_png(folder + file, px.data(), d->width, d->height, d->channels);
    }
}

TaskData image_inputs(const std::vector<std::string>& paths, const TaskContext& c, int channels, int side, bool resize) {
  Splits s;
  Dataset& d = s.test;
  d.vocab_size = 257, d.num_classes = 0, d.height = side, d.width = side, d.channels = channels;
  for (auto& p : paths) {
    int w = 0, h = 0;
    std::vector<uint8_t> px = read_image(p, channels, &w, &h);
    if (w != side || h != side) {
      if (!resize)
        fail("predict: " + p + " is " + std::to_string(w) + "x" + std::to_string(h) + ", the model reads " +
             std::to_string(side) + "x" + std::to_string(side) + " images");
      std::fprintf(stderr, "predict: %s resized from %dx%d to the model's %dx%d\n", p.c_str(), w, h, side, side);
      px = resize_image(px, w, h, channels, side, p);
    }
    std::vector<int32_t> tok(px.size());
    for (size_t k = 0; k < px.size(); ++k) tok[k] = int32_t(px[k]) + 1;
    d.seqs.push_back(std::move(tok)), d.labels.push_back(0);
  }
  s.train = s.test;  // image_task reads the view from train
  TaskData t = image_task(std::move(s), c);
  t.splits.train = Dataset{};
  return t;
}

std::string read_file_or_text(const std::string& x) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(x, ec)) return x;
  std::ifstream in(x, std::ios::binary);
  if (!in) fail("predict: cannot read " + x);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// ---- loading --------------------------------------------------------------------------------
int64_t longest_sequence(const Splits& s) {
  size_t n = 0;
  for (const Dataset* d : {&s.train, &s.val, &s.test})
    for (auto& q : d->seqs) n = std::max(n, q.size());
  return int64_t(n);
}

static TaskContext context_of(const TrainConfig& tc, int64_t seq_len) {
  TaskContext c;
  c.task = tc.task, c.data = tc.data, c.seq_len = seq_len, c.batch = tc.batch, c.seed = tc.seed;
  c.opt = task_settings(tc);
  return c;
}

int64_t default_steps(const TrainConfig& tc) {
  const TaskInfo& info = task_info(tc.task);
  return info.default_steps ? info.default_steps(context_of(tc, 0)) : 2000;
}

TaskData load_task(const TrainConfig& tc, const std::string& model, std::optional<int64_t> seq_len) {
  const TaskInfo& info = task_info(tc.task);
  if (seq_len && (*seq_len < 1 || *seq_len > kMaxSeqLen))  // before any data is read or generated
    fail("--seq-len must be in 1.." + std::to_string(kMaxSeqLen) + ", got " + std::to_string(*seq_len));
  if (info.causal) {  // before any data is read
    const AttentionInfo& a = attention_info(model);
    if (!a.causal_ok)
      fail("task " + tc.task + " needs a causal model; '" + model + "' has no causal form" +
           (a.why_not_causal.empty() ? "" : " (" + a.why_not_causal + ")"));
  }
  TaskData t = info.load(context_of(tc, seq_len.value_or(0)));
  if (t.splits.train.size() == 0) fail("task " + tc.task + ": the training split is empty");
  if (t.splits.val.size() == 0) fail("task " + tc.task + ": the validation split is empty");
  TaskShape& s = t.shape;
  s.vocab = t.vocab ? t.vocab : t.splits.train.vocab_size;
  s.num_classes = t.num_classes ? t.num_classes : t.splits.train.num_classes;
  s.patch_dim = t.patch_dim;
  s.head = info.head;
  s.causal = info.causal;
  s.max_len = seq_len.value_or(t.max_len);
  check_batch_tokens(tc.batch, s.max_len);
  t.opts.batch = int(tc.batch);
  t.opts.max_len = int(s.max_len);
  return t;
}

void apply_task_shape(ModelConfig& mc, const TaskShape& s) {
  mc.vocab = s.vocab, mc.num_classes = s.num_classes, mc.patch_dim = s.patch_dim;
  mc.head = s.head;
  mc.max_len = s.max_len;
  if (s.causal) mc.causal = true;
}

}  // namespace az
