// TrainConfig as strings, and its validation.
#include "train/config.h"
#include "autograd/runtime/strings.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "autograd/tensor.h"

namespace az {

const std::vector<TrainFlag>& train_flags() {
  static const std::vector<TrainFlag> rows = [] {
    const TrainConfig d;
    return std::vector<TrainFlag>{
        {"task", "NAME", "one of the tasks below", d.task},
        {"data", "PATH", "the task's data (default: its own source)", ""},
        {"steps", "N", "optimizer steps (default: the task's, listed below)", ""},
        {"batch", "N", "examples per step", fmt("%g", double(d.batch))},
        {"lr", "X", "peak learning rate", fmt("%g", d.lr)},
        {"warmup", "N", "linear warm-up steps", fmt("%g", double(d.warmup))},
        {"schedule", "constant|cosine|rsqrt", "learning-rate schedule after the warm-up", d.schedule},
        {"optimizer", "adamw|adam|sgd", "adamw: decoupled weight decay; sgd: momentum 0.9", d.optimizer},
        {"weight-decay", "X", "weight decay (on the parameters registered with decay)", fmt("%g", d.weight_decay)},
        {"clip", "X", "clip the global gradient norm to X (0: off)", fmt("%g", d.clip)},
        {"beta1", "X", "Adam's first-moment decay", fmt("%g", d.beta1)},
        {"beta2", "X", "Adam's second-moment decay", fmt("%g", d.beta2)},
        {"eps", "X", "Adam's epsilon, added to the root of the second moment", fmt("%g", d.eps)},
        {"seed", "N", "seed of the data order, initialisation and dropout", std::to_string(d.seed)},
        {"eval-every", "N", "validate every N steps", fmt("%g", double(d.eval_every))},
        {"log-every", "N", "progress line and metrics every N steps", fmt("%g", double(d.log_every))},
        {"eval-limit", "N", "validate on at most N examples (0: all)", fmt("%g", double(d.eval_limit))},
        {"out", "DIR", "run directory (default runs/TASK-MODEL)", ""},
    };
  }();
  return rows;
}

std::map<std::string, std::string> TrainConfig::to_map() const {
  std::map<std::string, std::string> m = {
      {"task", task},           {"data", data},
      {"steps", exact(steps)},    {"batch", exact(batch)},
      {"lr", exact(lr)},          {"weight_decay", exact(weight_decay)},
      {"clip", exact(clip)},      {"beta1", exact(beta1)},
      {"beta2", exact(beta2)},    {"eps", exact(eps)},
      {"optimizer", optimizer}, {"schedule", schedule},
      {"warmup", exact(warmup)},  {"eval_every", exact(eval_every)},
      {"log_every", exact(log_every)}, {"eval_limit", exact(eval_limit)},
      {"seed", std::to_string(seed)}, {"out", out}};
  for (auto& [k, v] : task_args) m["task." + k] = v;
  if (schedule_from > 0) m["schedule_from"] = exact(schedule_from), m["schedule_from_lr"] = exact(schedule_from_lr);
  std::string classes;
  for (size_t i = 0; i < class_names.size(); ++i) classes += (i ? "\n" : "") + class_names[i];
  if (!class_names.empty()) m["classes"] = classes;
  return m;
}

TrainConfig TrainConfig::from_map(const std::map<std::string, std::string>& m) {
  TrainConfig c;
  auto get = [&](const char* k) -> std::string {
    auto it = m.find(k);
    if (it == m.end()) fail(std::string("training configuration lacks '") + k + "'");
    return it->second;
  };
  auto d = [&](const char* k) {
    std::string s = get(k);
    try {
      size_t used = 0;
      double v = std::stod(s, &used);
      if (used == s.size() && std::fabs(v) <= 9e15) return v;  // so the casts below are defined
    } catch (const std::exception&) {
    }
    fail(std::string("training configuration: '") + k + "' is not a number of sane size: '" + s + "'");
  };
  c.task = get("task"), c.data = get("data");
  if (m.count("classes")) {  // absent from checkpoints saved before class names were kept
    std::string all = m.at("classes");
    for (size_t a = 0, b; a <= all.size(); a = b + 1) {
      b = all.find('\n', a);
      if (b == std::string::npos) b = all.size();
      c.class_names.push_back(all.substr(a, b - a));
    }
  }
  for (auto& [k, v] : m)
    if (k.rfind("task.", 0) == 0) c.task_args[k.substr(5)] = v;
  // Checkpoints saved before the task registry kept the task flags at the top level
  // (task_settings drops those the task does not have).
  for (const char* k : {"preset", "input", "patch", "channels", "image_size", "n", "difficulty", "flip", "shift"})
    if (m.count(k) && !c.task_args.count(k)) c.task_args[k] = m.at(k);
  c.steps = int64_t(d("steps")), c.batch = int64_t(d("batch"));
  c.lr = float(d("lr")), c.weight_decay = float(d("weight_decay")), c.clip = float(d("clip"));
  c.beta1 = float(d("beta1")), c.beta2 = float(d("beta2")), c.eps = float(d("eps"));
  c.optimizer = get("optimizer"), c.schedule = get("schedule"), c.warmup = int64_t(d("warmup"));
  c.eval_every = int64_t(d("eval_every")), c.log_every = int64_t(d("log_every"));
  c.eval_limit = int64_t(d("eval_limit"));
  try {
    c.seed = std::stoull(get("seed"));
  } catch (const std::exception&) {
    fail("training configuration: 'seed' is not a number: '" + get("seed") + "'");
  }
  c.out = get("out");
  if (m.count("schedule_from")) c.schedule_from = int64_t(d("schedule_from")), c.schedule_from_lr = float(d("schedule_from_lr"));
  return c;
}

void check_batch_tokens(int64_t batch, int64_t seq_len) {
  if (batch > kMaxBatch || double(batch) * double(seq_len) > double(kMaxBatchTokens))
    fail("--batch " + std::to_string(batch) + " x --seq-len " + std::to_string(seq_len) +
         " is too many tokens per batch (at most " + std::to_string(kMaxBatchTokens) + ")");
}

void TrainConfig::validate() const {
  auto positive = [](const char* flag, double v) {
    if (!(v > 0)) fail(std::string(flag) + " must be positive, got " + exact(v));
  };
  auto nonneg = [](const char* flag, double v) {
    if (!(v >= 0)) fail(std::string(flag) + " must not be negative, got " + exact(v));
  };
  auto finite = [](const char* flag, double v) {
    if (!std::isfinite(v)) fail(std::string(flag) + " must be finite, got " + exact(v));
  };
  auto at_most = [](const char* flag, double v, double hi) {
    if (v > hi) fail(std::string(flag) + " " + exact(v) + " is too large (at most " + exact(hi) + ")");
  };
  for (auto [flag, v] : {std::pair<const char*, float>{"--lr", lr}, {"--weight-decay", weight_decay},
                         {"--clip", clip}, {"--eps", eps}})
    finite(flag, v);  // a float flag above 3.4e38 became inf
  positive("--steps", double(steps));
  positive("--batch", double(batch));
  at_most("--batch", double(batch), double(kMaxBatch));
  positive("--lr", lr);
  positive("--eval-every", double(eval_every));
  positive("--log-every", double(log_every));
  nonneg("--weight-decay", weight_decay);
  nonneg("--clip", clip);
  nonneg("--warmup", double(warmup));
  nonneg("--eval-limit", double(eval_limit));
  if (!(beta1 >= 0 && beta1 < 1)) fail("--beta1 must be in [0,1), got " + exact(beta1));
  if (!(beta2 >= 0 && beta2 < 1)) fail("--beta2 must be in [0,1), got " + exact(beta2));
  positive("--eps", eps);
  if (optimizer != "adamw" && optimizer != "adam" && optimizer != "sgd")
    fail("--optimizer must be adamw, adam or sgd, got '" + optimizer + "'");
  if (schedule != "constant" && schedule != "cosine" && schedule != "rsqrt")
    fail("--schedule must be constant, cosine or rsqrt, got '" + schedule + "'");
}

}  // namespace az
