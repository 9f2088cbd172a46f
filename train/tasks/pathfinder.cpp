// Task `pathfinder`: LRA's long-range spatial task (Linsley et al. 2018):
// are the two markers on one dashed path?  32x32 = 1024 pixel tokens, 2
// classes.  Generated from the seed (data/pathfinder.h), or read with --data
// from a folder of PNGs.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

#include "data/image_folder.h"
#include "data/pathfinder.h"
#include "train/cli.h"
#include "train/tasks.h"

namespace az {
namespace {

int64_t side_of(const LraData& d) { return int64_t(std::lround(std::sqrt(double(d.seq_len)))); }

PathfinderConfig config_of(int64_t dashes, int64_t side) {
  PathfinderConfig pc = pathfinder_preset("hard");
  pc.path_segments = int(dashes);
  if (side) pc.image_size = int(side);
  return pc;
}

int data_command(const std::vector<std::string>& args) {
  Flags f("data pathfinder", args, {"out", "n", "difficulty", "size", "seed"}, {});
  if (!f.has("out")) fail("data pathfinder: --out DIR is required");
  PathfinderConfig c = pathfinder_preset("hard");
  // clamped into int so that no value wraps into the valid range; validate() names it
  c.path_segments = int(std::clamp<int64_t>(f.integer("difficulty", c.path_segments), -1, INT32_MAX));
  c.image_size = int(std::clamp<int64_t>(f.integer("size", c.image_size), -1, INT32_MAX));
  int64_t n = f.integer("n", 2000);
  if (n < 10 || n > kMaxGenerated)
    fail("data pathfinder: --n must be in 10.." + std::to_string(kMaxGenerated) + ", got " + std::to_string(n));
  write_pathfinder_folder(c, int(n), uint64_t(f.integer("seed", 1)), f.str("out", ""));
  std::printf("wrote %lld pathfinder images to %s\n", (long long)n, f.str("out", "").c_str());
  return 0;
}

TaskInfo info() {
  TaskInfo i;
  i.name = "pathfinder";
  i.summary = "Pathfinder-32: are the two markers on one dashed path? 1024 pixel tokens, 2 classes";
  i.options = {int_option("n", 0, 0, kMaxGenerated, "images generated, split 80/10/10 (0: 20000)"),
               int_option("difficulty", 14, 3, 40, "dashes per path (6 easy, 9 medium, 14 hard: LRA's)")};
  for (auto& o : image_view_options()) i.options.push_back(o);
  i.load = [](const TaskContext& c) {
    if (!c.data.empty()) return image_task(load_image_folder(c.data, 1, 0, 0.1, 0.1, 1), c);
    int64_t n = c.integer("n");
    return image_task(generate_pathfinder_splits(config_of(c.integer("difficulty"), 0), int(n > 0 ? n : 20000), 1), c);
  };
  i.default_steps = [](const TaskContext& c) -> int64_t { return c.str("input") == "pixels" ? 500 : 2000; };
  i.data_name = "pathfinder";
  i.data_help = "attnzoo data pathfinder --out DIR [--n N] [--difficulty K] [--size S] [--seed S]   PNGs in class folders\n";
  i.data_command = data_command;
  i.lra.title = "Pathfinder";
  i.lra.order = 5;
  //                    data: len  train  val  test  dashes               dim h  L  ffn  steps batch warm eval  lr
  i.lra.rows["quick"] = {{1024, 1000, 200, 200, {{"dashes", "14"}}}, 32, 2, 1, 64, 30, 16, 6, 15, 1e-3};
  i.lra.rows["mini"] = {{1024, 16000, 500, 1000, {{"dashes", "14"}}}, 64, 4, 1, 128, 400, 32, 40, 100, 1e-3};
  i.lra.rows["full"] = {{1024, 80000, 2000, 2000, {{"dashes", "14"}}}, 32, 4, 2, 64, 1000, 32, 100, 250, 1e-3};
  i.lra.rows["tiny"] = {{256, 40, 10, 10, {{"dashes", "3"}}}, 8, 2, 1, 16, 4, 4, 1, 2, 1e-3};
  i.lra.describe = [](const LraData& d) {
    std::string side = std::to_string(side_of(d));
    return "Pathfinder " + side + "x" + side + ", " + d.extra.at("dashes") + " dashes per path, " +
           std::to_string(d.n_train) + "/" + std::to_string(d.n_val) + "/" + std::to_string(d.n_test) + " images, seed 1";
  };
  i.lra.prepare = [](const LraData& d, const std::string& dir) {
    PathfinderConfig pc = config_of(std::stoi(d.extra.at("dashes")), side_of(d));
    write_image_splits(generate_pathfinder_splits(pc, int(d.n_train), int(d.n_val), int(d.n_test), 1), dir);
  };
  i.lra.train_args = [](const LraData&, const std::string& dir) {
    return std::vector<std::string>{"--task", "pathfinder", "--data", dir};
  };
  return i;
}

RegisterTask reg(info());

}  // namespace
}  // namespace az
