// The training loop (see trainer.h).
#include "train/trainer.h"
#include "train/json.h"  // metrics lines
#include "train/parallel.h"

#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace az {

namespace fs = std::filesystem;

namespace {
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_interrupt(int sig) {
  if (g_signal) _exit(128 + sig);  // a second one: at once (checkpoints are written by rename: never torn)
  g_signal = sig;
}
}  // namespace

InterruptGuard::InterruptGuard() {
  g_signal = 0;
  struct sigaction a {};
  a.sa_handler = on_interrupt;
  sigemptyset(&a.sa_mask);
  sigaction(SIGINT, &a, &old_int_);
  sigaction(SIGTERM, &a, &old_term_);
}
InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}
int InterruptGuard::pending() { return int(g_signal); }

namespace {
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One JSON object per line through rapidjson (strings escaped, numbers exact).
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;
template <class Fill>
std::string json_line(Fill fill) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  fill(w);
  w.EndObject();
  return buf.GetString();
}

void write_string_map(JsonWriter& w, const char* key, const std::map<std::string, std::string>& m) {
  w.Key(key);
  w.StartObject();
  for (auto& [k, v] : m) w.Key(k.c_str()), w.String(v.c_str());
  w.EndObject();
}

std::string fmt_time(double s) {
  char b[32];
  if (!(s < 1e9)) return "over 30 years";  // --steps 9e15: int(s / 3600) would overflow
  if (s >= 3600) std::snprintf(b, sizeof b, "%dh%02dm", int(s / 3600), int(s / 60) % 60);
  else std::snprintf(b, sizeof b, "%dm%02ds", int(s / 60), int(s) % 60);
  return b;
}

// Rank 0's checkpoint file read on every rank (the others need no copy of it).
Checkpoint load_checkpoint_everywhere(const std::string& path) {
  std::string local = dist::local_copy(path);
  try {
    Checkpoint c = load_checkpoint(local);
    dist::remove_local_copy(local, path);
    return c;
  } catch (...) {
    dist::remove_local_copy(local, path);
    throw;
  }
}

// The most frequent class's share: of the labels, or of the per-position targets (token head).
double majority_rate(const Dataset& d) {
  std::vector<int64_t> c(size_t(std::max(d.num_classes, 1)), 0);
  int64_t n = 0;
  if (d.targets.empty())
    for (int32_t l : d.labels) c[size_t(l)]++, ++n;
  for (auto& t : d.targets)
    for (int32_t x : t)
      if (x != kIgnoreTarget && x >= 0 && size_t(x) < c.size()) c[size_t(x)]++, ++n;
  return n ? double(*std::max_element(c.begin(), c.end())) / double(n) : 0;
}

// The first parameter holding a NaN or Inf ("" if none).
std::string first_nonfinite_value(const Module& m) {
  for (auto& p : m.named_parameters())
    for (int64_t i = 0, n = p.tensor.numel(); i < n; ++i)
      if (!std::isfinite(p.tensor.data()[i])) return p.name;
  return "";
}
}  // namespace

namespace {
// The targets that are not ignored, in row-major order: what target_logits' rows predict.
std::vector<int32_t> present_targets(const Batch& b) {
  std::vector<int32_t> t;
  for (int32_t x : b.targets)
    if (x != kIgnoreTarget) t.push_back(x);
  return t;
}
}  // namespace

// The task's data, on every rank.  Under mpirun rank 0 loads it first, then the others: a task
// that prepares its data on first use (text's npm fetch into data_cache) would otherwise have
// every rank writing the same cache folder at once.  A failure on rank 0 ends the job (MPI_Abort).
static TaskData load_task_in_turn(const TrainConfig& tc, const std::string& model, std::optional<int64_t> seq_len) {
  if (dist::size() == 1) return load_task(tc, model, seq_len);
  TaskData d;
  if (dist::is_root()) d = load_task(tc, model, seq_len);
  dist::all_equal(0);  // a barrier: the other ranks load once rank 0's data is in place
  if (!dist::is_root()) d = load_task(tc, model, seq_len);
  return d;
}

Tensor scored_logits(SequenceClassifier& model, const Batch& b) {
  if (model.config().head != Head::kToken) return model.forward(b);
  size_t present = 0;
  for (int32_t x : b.targets) present += x != kIgnoreTarget;
  return present > 0 && 2 * present <= b.targets.size() ? model.target_logits(b) : model.forward(b);
}

Tensor loss_of(const Tensor& logits, const Batch& b) {
  if (logits.dim() == 2 && !b.targets.empty()) {  // token head at the target positions: [T,C]
    std::vector<int32_t> t = present_targets(b);
    if (int64_t(t.size()) != logits.size(0))
      fail("logits at " + std::to_string(logits.size(0)) + " positions for a batch with " + std::to_string(t.size()) +
           " targets");
    return cross_entropy(logits, IntTensor({logits.size(0)}, t), kIgnoreTarget);
  }
  if (logits.dim() == 3) {  // token head: [B,N,C] against targets [B,N]
    int64_t rows = logits.size(0) * logits.size(1);
    if (int64_t(b.targets.size()) != rows)
      fail("the token head needs a target per position, batch has " + std::to_string(b.targets.size()) + " for " +
           std::to_string(rows) + " positions");
    return cross_entropy(reshape(logits, {rows, logits.size(2)}), IntTensor({rows}, b.targets), kIgnoreTarget);
  }
  return cross_entropy(logits, IntTensor({b.B}, b.labels));
}

std::pair<int64_t, int64_t> correct_of(const Tensor& logits, const Batch& b) {
  int64_t C = logits.size(-1), rows = logits.numel() / C, correct = 0, counted = 0;
  const bool at_targets = logits.dim() == 2 && !b.targets.empty();  // scored_logits' [T,C]
  const std::vector<int32_t> present = at_targets ? present_targets(b) : std::vector<int32_t>();
  const std::vector<int32_t>& want = at_targets ? present : logits.dim() == 3 ? b.targets : b.labels;
  if (int64_t(want.size()) < rows) fail("logits for " + std::to_string(rows) + " predictions, batch has " + std::to_string(want.size()));
  for (int64_t i = 0; i < rows; ++i) {
    if (want[size_t(i)] == kIgnoreTarget) continue;
    const float* row = logits.data() + i * C;
    correct += int64_t(std::max_element(row, row + C) - row) == want[size_t(i)];
    ++counted;
  }
  return {correct, counted};
}

void check_classes(const TrainConfig& tc, const Dataset& d, const std::string& ckpt) {
  if (ckpt.empty() || tc.class_names.empty() || d.class_names.empty() || d.class_names == tc.class_names) return;
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  fail("the data's classes (" + list(d.class_names) + ") are not the classes " + ckpt + " was trained on (" +
       list(tc.class_names) + ")");
}

std::string first_nonfinite_grad(const Module& m) {
  for (auto& p : m.named_parameters()) {
    if (!p.tensor.has_grad()) continue;
    const float* g = p.tensor.grad_data();
    for (int64_t i = 0; i < p.tensor.numel(); ++i)
      if (!std::isfinite(g[i])) return p.name;
  }
  return "";
}

Trainer::Trainer(TrainConfig tc, ModelConfig mc, RunOptions ro) : tc_(std::move(tc)), mc_(std::move(mc)), ro_(ro) {
  Checkpoint ck;
  if (!ro_.resume.empty()) {
    ck = load_checkpoint_everywhere(ro_.resume);
    int64_t steps = tc_.steps;
    tc_ = TrainConfig::from_map(ck.train_config);
    for (auto& [name, value] : ro_.given) {
      if (name == "resume" || name == "steps" || name == "stop-after" || name == "quiet" || name == "impl" ||
          name == "parallel" || name == "shards" || (name == "out" && value == tc_.out))
        continue;
      fail("--" + name + " cannot change on --resume: the run's configuration comes from " + ro_.resume +
           " (only --steps, --stop-after, --quiet, --impl, --parallel and --shards may be given" + (name == "out" ? "; its directory is " + tc_.out : "") + ")");
    }
    if (steps > tc_.steps && tc_.schedule == "cosine" && ck.step > 0) {  // extended: the rate goes on from where it was
      Schedule old;
      old.kind = Schedule::kCosine, old.base_lr = tc_.lr, old.warmup = tc_.warmup, old.total = tc_.steps;
      old.from_step = tc_.schedule_from, old.from_lr = tc_.schedule_from_lr;
      tc_.schedule_from = ck.step, tc_.schedule_from_lr = old.lr(ck.step);
    }
    if (steps > 0) tc_.steps = steps;  // --steps may extend a resumed run
    mc_ = ModelConfig::from_map(ck.model_config);
    ro_.seq_len = mc_.max_len;
  }
  tc_.validate();
  metric_ = task_info(tc_.task).metric;
  dp_.split(tc_.batch);
  if (tc_.out.empty()) tc_.out = "runs/" + tc_.task + "-" + mc_.model;
  data_ = load_task_in_turn(tc_, mc_.model, ro_.seq_len);
  apply_task_shape(mc_, data_.shape);
  const ParallelSettings& par = parallel_settings();  // train/parallel.h: shards or split products
  parallel_ = par.mode != Parallel::kAuto ? par.mode
              : choose_parallel(tc_.batch / dist::size(), mc_.max_len, mc_.dim, omp_get_max_threads());
  check_classes(tc_, data_.splits.train, ro_.resume.empty() ? "" : ro_.resume);
  tc_.class_names = data_.splits.train.class_names;
  global_rng().seed_with(tc_.seed);
  model_ = std::make_shared<SequenceClassifier>(mc_);
  auto params = model_->named_parameters();
  if (tc_.optimizer == "sgd") opt_ = std::make_unique<SGD>(params, 0.9f, tc_.weight_decay);
  else opt_ = std::make_unique<Adam>(params, tc_.beta1, tc_.beta2, tc_.eps, tc_.weight_decay, tc_.optimizer == "adamw");
  batcher_ = std::make_unique<Batcher>(data_.splits.train, data_.opts, tc_.seed * 7919 + 17, true);
  sched_.kind = Schedule::parse(tc_.schedule);
  sched_.base_lr = tc_.lr;
  sched_.warmup = tc_.warmup;
  sched_.total = tc_.steps;
  sched_.from_step = tc_.schedule_from, sched_.from_lr = tc_.schedule_from_lr;
  if (!ro_.resume.empty()) {
    restore(ck, ro_.resume);
    // A run stopped at its last step before its test (killed while testing) resumes to test;
    // a tested one has nothing left to do.
    bool untested = step_ == tc_.steps && fs::exists(tc_.out + "/best.ckpt");
    for (const JsonObject& m : read_jsonl(tc_.out + "/metrics.jsonl")) untested &= !m.count("final");
    if (step_ >= tc_.steps && !untested)
      fail("--steps " + std::to_string(tc_.steps) + " is not beyond step " + std::to_string(step_) + " of " +
           ro_.resume + ": give a larger --steps to train further");
    if (dp_.root() && untested)
      std::fprintf(stderr, "resuming at step %lld of %s, its last: it stopped before its test, which runs now\n",
                   (long long)step_, ro_.resume.c_str());
    else if (dp_.root())
      std::fprintf(stderr, "resuming from step %lld of %s, to step %lld\n", (long long)step_, ro_.resume.c_str(),
                   (long long)tc_.steps);
    if (dp_.root()) continue_metrics(step_);
  }
  dp_.attach(*model_);
  if (!dp_.root()) return;
  if (ro_.protect_run_dir && ro_.resume.empty()) claim_run_dir();
  fs::create_directories(tc_.out);
  std::ofstream(tc_.out + "/config.json") << json_line([&](JsonWriter& w) {
    write_string_map(w, "model", mc_.to_map());
    write_string_map(w, "train", tc_.to_map());
  }) << "\n";
}

// A fresh run never mixes with an earlier one: its checkpoints and metrics would
// be overwritten and appended to (plot would draw two runs as one).
void Trainer::claim_run_dir() const {
  std::vector<std::string> found;
  for (const char* f : {"metrics.jsonl", "best.ckpt", "last.ckpt"})
    if (fs::exists(tc_.out + "/" + f)) found.push_back(f);
  if (found.empty()) return;
  if (!ro_.force) {
    std::string list;
    for (auto& f : found) list += (list.empty() ? "" : ", ") + f;
    fail("run directory " + tc_.out + " already holds a run (" + list + "); continue it with --resume " + tc_.out +
         "/last.ckpt, write elsewhere with --out DIR, or replace it with --force");
  }
  for (const char* f : {"metrics.jsonl", "best.ckpt", "last.ckpt", "config.json", "curves.png", "curves.svg", "curves.gp"})
    fs::remove(tc_.out + "/" + f);
  std::fprintf(stderr, "--force: replaced the earlier run in %s\n", tc_.out.c_str());
}

Checkpoint Trainer::snapshot() const {
  Checkpoint c;
  c.model_config = mc_.to_map();
  c.train_config = tc_.to_map();
  c.params = records_of(model_->named_parameters());
  c.buffers = records_of(model_->named_buffers());
  c.optimizer = opt_->state();
  c.rng = global_rng().state();
  c.step = step_;
  c.data = batcher_->state();
  c.best_val = best_val_;
  c.best_step = best_step_;
  return c;
}

void Trainer::restore(const Checkpoint& c, const std::string& path) {
  load_into(model_->named_parameters(), c.params, "parameter", path);
  load_into(model_->named_buffers(), c.buffers, "buffer", path);
  opt_->load_state(c.optimizer);
  global_rng().set_state(c.rng);
  step_ = c.step;
  batcher_->restore(c.data);
  best_val_ = c.best_val;
  best_step_ = c.best_step;
}

void Trainer::continue_metrics(int64_t step) {
  std::string path = tc_.out + "/metrics.jsonl";
  std::ifstream in(path);
  if (!in) return;
  std::string kept, line;
  size_t dropped = 0;
  while (std::getline(in, line)) {
    JsonObject m;
    if (line.empty()) continue;
    if (parse_json_object(line, &m) && m.count("step") && json_number(m, "step", 0) > double(step)) {
      ++dropped;
      continue;
    }
    kept += line + "\n";
    if (!m.count("elapsed")) continue;  // the clocks of the last line at or before the step
    elapsed_before_ = json_number(m, "elapsed", 0);
    if (m.count("cpu_seconds")) cpu_before_ = json_number(m, "cpu_seconds", 0);
    if (m.count("peak_rss_mb")) peak_rss_before_ = json_number(m, "peak_rss_mb", 0);
  }
  in.close();
  if (!dropped) return;
  std::ofstream(path + ".tmp") << kept;
  fs::rename(path + ".tmp", path);
  std::fprintf(stderr, "resume: dropped %zu line(s) after step %lld from %s (logged by steps that are now redone)\n",
               dropped, (long long)step, path.c_str());
}

std::map<std::string, double> Trainer::usage() const {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  return {{"cpu_seconds", cpu_before_ + cpu}, {"peak_rss_mb", std::max(peak_rss_before_, double(ru.ru_maxrss) / 1024.0)}};
}

void Trainer::log_metrics(const std::map<std::string, double>& values) {
  if (!dp_.root()) return;
  std::ofstream(tc_.out + "/metrics.jsonl", std::ios::app) << json_line([&](JsonWriter& w) {
    auto put = [&](const char* k) {
      if (!values.count(k)) return;
      w.Key(k);
      double v = values.at(k);
      if (v == std::floor(v) && std::fabs(v) < 9e15) w.Int64(int64_t(v));
      else w.Double(v);
    };
    if (values.count("final")) w.Key("final"), w.Bool(true);
    put("step");  // first, as before; then the rest in name order
    for (auto& [k, v] : values)
      if (k != "step" && k != "final") put(k.c_str());
  }) << "\n";
}

EvalResult evaluate_model(SequenceClassifier& model, const Dataset& d, const BatchOptions& opts, int64_t limit) {
  NoGradGuard ng;
  bool was_training = model.is_training();
  model.eval();
  // The examples scored: the first `limit` rounded up to whole batches (all
  // when limit <= 0), batched by length to cut padding.
  const size_t B = size_t(opts.batch);
  const size_t rows = limit > 0 ? std::min(d.size(), (size_t(limit) + B - 1) / B * B) : d.size();
  std::vector<Batch> batches = eval_batches_by_length(d, opts, rows);
  // Rank r takes batches r, r+P, ...; the sums are added over the ranks.
  // Each batch in shards, a thread a shard (train/parallel.h: scoring_pieces); the sums added in
  // batch and shard order.
  const std::vector<ScoringPiece> mine = scoring_pieces(batches, size_t(dist::rank()), size_t(dist::size()));
  std::vector<std::array<double, 3>> per(mine.size());  // loss * predictions, correct, predictions
  run_scoring(int64_t(mine.size()), [&](int64_t i) {
    const ScoringPiece& p = mine[size_t(i)];
    Batch cut;
    const Batch& b = p.rows.rows == batches[p.batch].B ? batches[p.batch] : (cut = piece_of(batches, p));
    Tensor logits = scored_logits(model, b);
    auto [correct, counted] = correct_of(logits, b);
    per[size_t(i)] = {loss_of(logits, b).item() * double(counted), double(correct), double(counted)};
  });
  std::vector<double> sums = {0, 0, 0};
  for (auto& p : per)
    for (size_t j = 0; j < 3; ++j) sums[j] += p[j];
  dist::allreduce_sum(sums);
  model.train(was_training);
  EvalResult r;
  r.examples = int64_t(sums[2]);
  r.accuracy = r.examples ? sums[1] / sums[2] : 0;
  r.loss = r.examples ? sums[0] / sums[2] : 0;
  return r;
}

EvalResult Trainer::evaluate(const Dataset& d, int64_t limit) { return evaluate_model(*model_, d, data_.opts, limit); }

void Trainer::diverged(const std::string& what, const std::string& advice) const {
  bool saved = fs::exists(tc_.out + "/last.ckpt");
  throw TrainingDiverged("training diverged at step " + std::to_string(step_) + ": " + what +
                         (saved ? "; the last good checkpoint is kept in " + tc_.out : "; no checkpoint was saved yet") +
                         " (" + advice + ")");
}

// batch -> shard -> forward -> loss -> backward (each shard) -> reduce -> average over ranks -> clip -> step
Trainer::StepResult Trainer::step() {
  Batch b = dp_.shard(batcher_->next(), step_ + 1);  // this rank's rows of the global batch
  opt_->zero_grad();
  model_->before_step();  // what changes once a step (the random features' redraw)
  StepSums local;
  try {  // train/parallel.h: the shards' forward and backward, their gradients added in shard order
    local = sharded_backward(*model_, b, parallel_, mc_.max_len, [&](const Batch& rows) {
      Tensor logits = scored_logits(*model_, rows);
      auto [correct, counted] = correct_of(logits, rows);
      return ShardLoss{loss_of(logits, rows), counted, correct};
    });
  } catch (const AnomalyError& e) {  // --detect-anomaly named the op
    ++step_;
    diverged(e.what(), "lower --lr or --clip");
  }
  // The loss is a mean over `terms` (examples; a token task's scored positions): ranks
  // weight their gradients by it, so that 2 ranks take the mean one process takes.
  dist::StepTotals sum = dp_.average(b.B, local.terms, local.loss_sum, double(local.correct));
  float norm = clip_grad_norm(opt_->params(), tc_.clip);
  ++step_;
  double terms = std::max(sum.terms, 1.0);
  StepResult r{sum.loss_sum / terms, sum.correct / terms, norm, sched_.lr(step_), sum.examples * int64_t(b.N)};
  if (!std::isfinite(r.loss) || !std::isfinite(norm)) {
    std::string p = first_nonfinite_grad(*model_);
    diverged("loss " + std::to_string(r.loss) + (p.empty() ? "" : ", first non-finite gradient in '" + p + "'"),
             "lower --lr or --clip");
  }
  opt_->step(r.lr);
  return r;
}

// The progress line (redrawn on a terminal) and, every --log-every steps, a metrics line.
void Trainer::progress(const StepResult& r, double el, int64_t start, bool force) {
  loss_sum_ += r.loss, acc_sum_ += r.accuracy, ++window_, tokens_ += r.tokens;
  double rate = double(step_ - start) / std::max(el, 1e-9);
  bool log_now = step_ % tc_.log_every == 0 || step_ == tc_.steps || force;
  if (!tty_ && !log_now) return;
  char line[256];
  std::snprintf(line, sizeof line, "step %lld/%lld | loss %.4f | acc %.3f | %.2f it/s | %.0f tok/s | ETA %s",
                (long long)step_, (long long)tc_.steps, loss_sum_ / window_, acc_sum_ / window_, rate,
                double(tokens_) / std::max(el, 1e-9), fmt_time(double(tc_.steps - step_) / std::max(rate, 1e-9)).c_str());
  if (tty_) std::fprintf(stderr, "\r%s\033[K", line);
  if (!log_now) return;
  if (!tty_ && !ro_.quiet && dp_.root()) std::fprintf(stderr, "%s\n", line);
  log_metrics({{"step", double(step_)}, {"loss", loss_sum_ / window_}, {"train_acc", acc_sum_ / window_},
               {"lr", r.lr}, {"grad_norm", r.grad_norm}, {"elapsed", elapsed_before_ + el}});
  loss_sum_ = acc_sum_ = 0, window_ = 0;
}

void Trainer::validate_and_save(double t0) {
  std::string bad = first_nonfinite_value(*model_);  // never evaluate or save a diverged model
  if (!bad.empty()) diverged("parameter '" + bad + "' became non-finite in the update", "lower --lr");
  EvalResult v = evaluate(data_.splits.val, tc_.eval_limit);
  if (!std::isfinite(v.loss))  // finite weights that already overflow the forward pass
    diverged("validation loss " + std::to_string(v.loss) + " (finite weights, overflowing forward pass)",
             "lower --lr or --clip");
  double score = v.score(metric_);
  bool best = best_step_ < 0 || score > best_val_;
  if (best) best_val_ = score, best_step_ = step_;
  if (tty_) std::fprintf(stderr, "\n");
  if (dp_.root())
    std::fprintf(stderr, "step %lld: validation %s %.4f, loss %.4f%s%s\n", (long long)step_,
                 metric_ == Metric::kBitsPerByte ? "bits per byte" : "accuracy", metric_ == Metric::kBitsPerByte ? -score : v.accuracy,
                 v.loss, best ? " (best so far)" : "", data_.note_val.c_str());
  std::map<std::string, double> line = usage();
  line.insert({{"step", double(step_)}, {"val_acc", v.accuracy}, {"val_loss", v.loss}, {"elapsed", elapsed_before_ + now() - t0}});
  log_metrics(line);
  dp_.check(*model_, "at step " + std::to_string(step_));
  if (!dp_.root()) return;
  Checkpoint c = snapshot();
  if (best) save_checkpoint(tc_.out + "/best.ckpt", c);
  save_checkpoint(tc_.out + "/last.ckpt", c);
}

RunResult Trainer::run() {
  RunResult res;
  res.majority_rate = majority_rate(data_.splits.test.size() ? data_.splits.test : data_.splits.val);
  Profiler::enabled = ro_.profile;
  const bool root = dp_.root();  // rank 0 alone prints and writes
  tty_ = isatty(2) && !ro_.quiet && root;
  if (root)
    std::fprintf(stderr, "training %s on %s: %lld parameters, %zu train / %zu val / %zu test examples, %lld steps%s; %s\n",
                 mc_.model.c_str(), tc_.task.c_str(), (long long)model_->num_parameters(), data_.splits.train.size(),
                 data_.splits.val.size(), data_.splits.test.size(), (long long)tc_.steps,
                 dp_.describe().c_str(), describe_parallel(parallel_, tc_.batch / dist::size(), mc_.max_len).c_str());
  double t0 = now();
  int64_t start = step_;
  model_->train();
  InterruptGuard interrupts;  // Ctrl-C / SIGTERM: finish the step, save last.ckpt, stop
  while (step_ < tc_.steps) {
    StepResult r = step();
    progress(r, now() - t0, start, false);
    bool stop = ro_.stop_after > 0 && step_ >= ro_.stop_after;
    if (step_ % tc_.eval_every == 0 || step_ == tc_.steps || stop) validate_and_save(t0);
    if (int sig = InterruptGuard::pending(); sig && !stop) {
      if (tty_) std::fprintf(stderr, "\n");
      if (root) {  // the clocks at the step it resumes from
        std::map<std::string, double> line = usage();
        line.insert({{"step", double(step_)}, {"interrupted", double(sig)}, {"elapsed", elapsed_before_ + now() - t0}});
        log_metrics(line);
        save_checkpoint(tc_.out + "/last.ckpt", snapshot());
      }
      res.signal = sig, stop = true;
    }
    if (stop) {
      res.stopped_early = true;
      break;
    }
  }
  if (tty_) std::fprintf(stderr, "\n");
  res.seconds = elapsed_before_ + now() - t0;  // over every part of a resumed run
  res.steps_done = step_;
  res.best_val = best_val_;
  res.best_step = best_step_;
  if (ro_.profile && root) std::fprintf(stderr, "%s", Profiler::table().c_str());
  Profiler::enabled = false;
  if (!res.stopped_early && data_.splits.test.size()) {
    if (root) {  // rank 0 wrote best.ckpt; the others get its values from rank 0
      Checkpoint best = load_checkpoint(tc_.out + "/best.ckpt");
      load_into(model_->named_parameters(), best.params, "parameter", tc_.out + "/best.ckpt");
      load_into(model_->named_buffers(), best.buffers, "buffer", tc_.out + "/best.ckpt");
    }
    dp_.share_root_weights(*model_);
    EvalResult t = evaluate(data_.splits.test);
    res.test_accuracy = t.accuracy;
    res.test_loss = t.loss;
    log_metrics({{"final", 1}, {"best_step", double(best_step_)}, {"best_val_acc", best_val_},
                 {"test_acc", t.accuracy}, {"test_loss", t.loss}, {"majority_rate", res.majority_rate},
                 {"test_examples", double(data_.splits.test.size())},
                 {"train_seconds", res.seconds}});
  }
  dp_.done();
  return res;
}

EvalResult evaluate_checkpoint(const std::string& ckpt, const std::string& split, const std::string& data_override) {
  dist::init();  // under mpirun the split is evaluated by all ranks together
  Checkpoint c = load_checkpoint_everywhere(ckpt);
  TrainConfig tc = TrainConfig::from_map(c.train_config);
  ModelConfig mc = ModelConfig::from_map(c.model_config);
  if (!data_override.empty()) tc.data = data_override;
  TaskData data = load_task_in_turn(tc, mc.model, mc.max_len);
  apply_task_shape(mc, data.shape);
  check_classes(tc, data.splits.train, ckpt);
  SequenceClassifier model(mc);
  load_into(model.named_parameters(), c.params, "parameter", ckpt);
  load_into(model.named_buffers(), c.buffers, "buffer", ckpt);
  const Dataset* d = split == "test" ? &data.splits.test : split == "val" ? &data.splits.val
                     : split == "train" ? &data.splits.train : nullptr;
  if (!d) fail("--split must be train, val or test, got '" + split + "'");
  if (d->size() == 0) fail("the " + split + " split of task " + tc.task + " is empty");
  EvalResult r = evaluate_model(model, *d, data.opts, 0);
  dist::mark_done();
  return r;
}

}  // namespace az
