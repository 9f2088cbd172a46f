// TrainConfig: everything about a run that is not the model.  Saved (as
// strings) in every checkpoint so eval and --resume need no other flags.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace az {

// Upper limits on sizes that come from flags or checkpoints: far beyond what a
// CPU trains, low enough that no product of them overflows or asks for an
// absurd allocation before an error can say so.
constexpr int64_t kMaxBatch = 1 << 16;          // --batch
constexpr int64_t kMaxBatchTokens = 1 << 24;    // --batch x --seq-len
constexpr int64_t kMaxGenerated = 1000000;      // --n: pathfinder images generated
constexpr int64_t kMaxImageSide = 4096;         // --patch, --image-size

// --batch x --seq-len within kMaxBatchTokens (and --batch within kMaxBatch), or
// one line naming both flags: the one check, for train (once the task has
// decided the length) and bench alike.
void check_batch_tokens(int64_t batch, int64_t seq_len);

struct TrainConfig {
  std::string task = "listops";  // any name in the task registry (train/tasks.h)
  std::string data;              // --data PATH where the task reads files ("" = its default source)
  // The task's own flags (--preset, --patch, ...), as given; train/tasks.h checks
  // them against the task's options and fills in the defaults.
  std::map<std::string, std::string> task_args;
  std::vector<std::string> class_names;
  int64_t schedule_from = 0;    // --resume extended a cosine run here (Schedule::from_step); 0: never
  float schedule_from_lr = 0;   // ... at this rate  // the training data's, saved so eval can refuse other classes
  int64_t steps = 2000, batch = 32;
  float lr = 1e-3f, weight_decay = 0.01f, clip = 1.0f;
  float beta1 = 0.9f, beta2 = 0.98f, eps = 1e-9f;  // LRA's Adam settings
  std::string optimizer = "adamw";  // adamw | adam | sgd
  std::string schedule = "cosine";  // constant | cosine | rsqrt
  int64_t warmup = 100;
  int64_t eval_every = 250, log_every = 50, eval_limit = 0;  // eval_limit: max validation examples (0 = all)
  uint64_t seed = 1;
  std::string out;  // run directory (default runs/<task>-<model>)

  std::map<std::string, std::string> to_map() const;
  static TrainConfig from_map(const std::map<std::string, std::string>& m);
  void validate() const;
};

// One row per `attnzoo train` flag that sets a TrainConfig field: the single
// source of its help line and its default.  `def` is read from TrainConfig{}
// (the value the flags start from), so --help cannot print a default the code
// does not use; tests/test_app.cpp checks every "(default X)" of the help.
struct TrainFlag {
  std::string flag;   // "weight-decay"
  std::string range;  // "N", "X", "adamw|adam|sgd", ...
  std::string help;
  std::string def;    // TrainConfig{}'s value as text ("" where the help says it otherwise)
};
const std::vector<TrainFlag>& train_flags();

}  // namespace az
