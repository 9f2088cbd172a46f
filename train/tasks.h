// The task registry.  A task is one file (train/tasks/NAME.cpp) that
// registers a TaskInfo, as a variant registers an AttentionInfo: its name and
// summary, its flags (one TaskOption row each: name, default, range or
// choices, help), a loader returning the splits and the model's input view,
// the head and the metric it trains with, and how the LRA harness prepares
// its data.  `train`, `eval`, `lra`, `data` and `--help` read the registry;
// nothing outside a task's own file names it.
//
// Adding a task: its file, one `static RegisterTask` in it, and its tests.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "data/batcher.h"
#include "train/config.h"
#include "train/model.h"

namespace az {

// One flag of a task.  Numeric options have a range [lo, hi] (integers
// when `integer`); text options list their choices (empty: any text).
struct TaskOption {
  std::string name;  // without "--", e.g. "patch"
  std::string def;   // default, as text
  std::string help;
  enum Kind { kInteger, kNumber, kText } kind = kText;
  double lo = 0, hi = 0;
  std::vector<std::string> choices;
};
TaskOption int_option(const std::string& name, int64_t def, int64_t lo, int64_t hi, const std::string& help);
TaskOption text_option(const std::string& name, const std::string& def, std::vector<std::string> choices,
                       const std::string& help);
// The image view and augmentation flags every image task shares.
std::vector<TaskOption> image_view_options();

// What a loader is given: its options (every one present, checked), the
// common flags, and where generated or downloaded data is kept.
struct TaskContext {
  std::string task;
  std::string data;      // --data ("" = the task's default source)
  int64_t seq_len = 0;   // --seq-len; 0 when not given (the loader chooses)
  int64_t batch = 32;
  uint64_t seed = 1;
  std::map<std::string, std::string> opt;
  const std::string& str(const std::string& name) const;  // throws for an option the task lacks
  int64_t integer(const std::string& name) const;
  double number(const std::string& name) const;
};

// What a task decides about the model, from its data.  Configuration flows
// one way: the flags give the model, the task answers with this, and
// apply_task_shape folds the answer into the ModelConfig once.
struct TaskShape {
  int64_t vocab = 0, num_classes = 0, patch_dim = 0;
  int64_t max_len = 0;          // the input length: --seq-len when given, else the task's
  Head head = Head::kSequence;
  bool causal = false;          // the task needs a causal model (lm)
};

// The splits, how they are batched, and the model's input view.
struct TaskData {
  Splits splits;
  BatchOptions opts;  // batch size, max_len, patch view, augmentation
  // A loader's answer (0: from the splits; max_len 0: the longest sequence); load_task resolves them into shape.
  int64_t vocab = 0, patch_dim = 0, num_classes = 0, max_len = 0;
  TaskShape shape;
  // Appended to the validation and the test result lines (lm: its n-gram baselines on that split).
  std::string note_val, note_test;
};

// Heads (train/model.h): "sequence" (pool -> linear), "pair" (one encoder on
// two sequences, LRA's [u, v, u*v, u-v] -> MLP), "token" (logits at every position).
// Metrics: accuracy, or bits per byte (mean cross-entropy in bits, per position; lower is better).
enum class Metric { kAccuracy, kBitsPerByte };
const char* metric_name(Metric m);  // "accuracy", "bits_per_byte" (as --help prints it)

// A task's data as the LRA harness writes it once per sweep and every cell reads it.
struct LraData {
  int64_t seq_len = 0, n_train = 0, n_val = 0, n_test = 0;
  std::map<std::string, std::string> extra;  // the task's own settings (depth, dashes, ...)
  std::string text_source{}, text_label{}, npm_cache{};  // the Text corpus (default member initializers: rows may leave them out) (for tasks reading text)
};
// One row of an LRA preset: the data, and the model and budget every model gets.
struct LraRow {
  LraData data;
  int64_t dim = 0, heads = 0, layers = 0, ffn = 0;
  int64_t steps = 0, batch = 0, warmup = 0, eval_every = 0;
  double lr = 0;
};
// A row from its data and the train flags every cell gets, named as on the
// command line, all nine required, e.g.
//   lra_row(data, "--dim 64 --heads 4 --layers 1 --ffn 128 --steps 400 --batch 32 --warmup 40 --eval-every 100 --lr 1e-3")
// Throws az::Error naming an unknown, repeated, missing or malformed setting.
LraRow lra_row(LraData data, const std::string& flags);
struct TaskLra {
  std::string title;                  // "ListOps": the column heading
  int order = 100;                    // column order (LRA's: ListOps, Text, Retrieval, Image, Pathfinder)
  std::map<std::string, LraRow> rows;  // by preset name; a task without a row is not in that preset
  // One line saying what the data is; a changed line re-prepares it and reruns its cells.
  std::function<std::string(const LraData&)> describe;
  // Writes the data into dir (a fresh folder).
  std::function<void(const LraData&, const std::string& dir)> prepare;
  // The train flags that read it back from dir (relative to the sweep's folder).
  std::function<std::vector<std::string>(const LraData&, const std::string& dir)> train_args;
};

// A task's optional command-line hooks: what `predict`, `attnmap` and `data` need of it.
struct TaskCli {
  // `attnzoo predict`: the given inputs (file paths, expressions, text) as the
  // test split, batched as the task batches (optional: without it, predict
  // says the task takes no new inputs).  max_len is the model's --seq-len.
  std::function<TaskData(const std::vector<std::string>& inputs, const TaskContext& c)> read_inputs;
  std::string input_help;  // "image files", "ListOps expressions", ...
  // What a token id reads as, for pictures (optional; none for pixels).
  std::function<std::string(int32_t id)> token_name;
  // `attnzoo data NAME ...` (optional): generates or prepares the task's data.
  std::string data_name, data_help;
  std::function<int(const std::vector<std::string>& args)> data_command;
};

// A task: its name, options, loader, head and metric; its CLI hooks and its LRA rows apart.
struct TaskInfo {
  std::string name, summary;
  std::vector<TaskOption> options;
  std::function<TaskData(const TaskContext&)> load;
  Head head = Head::kSequence;
  Metric metric = Metric::kAccuracy;
  // The model must be causal (lm): load_task sets --causal, and refuses a model without a causal form.
  bool causal = false;
  // Train and model flags this task sets where the command line gives none (not on --resume):
  // e.g. lm's {"dim": "128", "lr": "3e-3"}.
  std::map<std::string, std::string> flag_defaults;
  // The default --steps (2000 unless the task's examples are long).
  std::function<int64_t(const TaskContext&)> default_steps;
  TaskLra lra;
  TaskCli cli;
};

struct RegisterTask {
  explicit RegisterTask(TaskInfo info);
};
std::vector<std::string> task_names();  // sorted
const TaskInfo& task_info(const std::string& name);  // throws listing the valid names

// Checks tc.task_args against the task's options (one line naming the flag,
// the value and what was expected) and fills in the defaults.
std::map<std::string, std::string> task_settings(const TrainConfig& tc);
// Loads (or generates) the task's data for `model` at input length seq_len
// (none: the task decides), after refusing a --seq-len out of range or a
// model without the causal form a causal task needs; returns the data and
// its TaskShape.  Refuses a batch of too many tokens.
TaskData load_task(const TrainConfig& tc, const std::string& model, std::optional<int64_t> seq_len);
// The task's answer into the model's configuration: vocab, classes, patch_dim,
// head and max_len, and causal when the task needs it.
void apply_task_shape(ModelConfig& mc, const TaskShape& s);
int64_t default_steps(const TrainConfig& tc);

// The image tasks' shared view (--input, --patch, --flip, --shift of image_view_options):
// the splits as pixel tokens or patches, refusing a --seq-len shorter than an image.
TaskData image_task(Splits s, const TaskContext& c);
// predict's inputs for the image tasks: image files decoded as `channels`
// channels, each side * side (resized when resize is set), pixel tokens value + 1.
TaskData image_inputs(const std::vector<std::string>& paths, const TaskContext& c, int channels, int side, bool resize);

// For the LRA harness's prepare hooks: n examples of d chosen by a seeded shuffle
// (all of them when n is 0 or too large), and images written as
// dir/SPLIT/LABEL/NNNNN.png, which load_image_folder reads back.
Dataset lra_subset(Dataset d, int64_t n, uint64_t seed);
void write_image_splits(const Splits& s, const std::string& dir);

// predict's text inputs: the file's bytes when `x` names a regular file, else x itself.
std::string read_file_or_text(const std::string& x);

// Where generated and downloaded data is kept: $ATTNZOO_DATA or ./data_cache.
std::string data_cache_dir();

// Shared by the task files: refuses (one line naming --seq-len) sequences
// longer than the model's length unless the task cuts by design; returns the
// longest sequence of the splits.
int64_t longest_sequence(const Splits& s);

}  // namespace az
