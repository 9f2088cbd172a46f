// TrainConfig: everything about a run that is not the model.  Saved (as
// strings) in every checkpoint so eval and --resume need no other flags.
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace az {

// Upper limits on sizes that come from flags or checkpoints: far beyond what a
// CPU trains, low enough that no product of them overflows or asks for an
// absurd allocation before an error can say so.
constexpr int64_t kMaxBatch = 1 << 16;          // --batch
constexpr int64_t kMaxBatchTokens = 1 << 24;    // --batch x --seq-len
constexpr int64_t kMaxGenerated = 1000000;      // --n: pathfinder images generated
constexpr int64_t kMaxImageSide = 4096;         // --patch, --image-size

struct TrainConfig {
  std::string task = "listops";  // listops | text | image | image-folder | pathfinder
  std::string data;              // --data PATH where the task reads files
  std::string preset;            // listops: "" (small default) or "lra"
  std::string input = "pixels";  // images: pixels | patches
  int64_t patch = 4;             // --patch P for the patch view
  int64_t channels = 1;          // image-folder: 1 grey, 3 RGB
  int64_t image_size = 0;        // image-folder: resize to S x S (0 = keep)
  int64_t n = 0;                 // pathfinder: examples to generate (0 = task default)
  int64_t difficulty = 14;       // pathfinder: dashes per path (6 easy, 9 medium, 14 hard)
  int64_t flip = 0, shift = 0;   // image tasks: training images mirrored at random / moved up to shift pixels
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

}  // namespace az
