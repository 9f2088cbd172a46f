// Pathfinder data sets by style, the one entry point the task and the CLI
// call: "lra" (default) is Linsley's snakes generator with LRA's arguments
// (data/pathfinder/pathfinder_lra.h: LRA's data in law, shortcuts included), "cut" is
// our shortcut-free control (data/pathfinder/pathfinder.h: one dash cut out of the
// marked path or out of the other).  The two share no code path and no state;
// each image is a function of (style config, seed, index, label).
// Cost: generation only (see measure_pathfinder_generation).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/pathfinder/pathfinder.h"
#include "data/pathfinder/pathfinder_lra.h"

namespace az {

struct PathfinderDataConfig {
  std::string style = "lra";  // "lra" or "cut"
  LraPathfinderConfig lra;    // used when style == "lra"
  PathfinderConfig cut;       // used when style == "cut"
};

// {"lra", "cut"}, the default first.
const std::vector<std::string>& pathfinder_styles();

// A style at a difficulty ("easy", "medium", "hard" = LRA's Pathfinder-32).
PathfinderDataConfig pathfinder_data_preset(const std::string& style, const std::string& difficulty = "hard");

// Throws DataError naming the style or the first field out of range.
void validate(const PathfinderDataConfig& cfg);
int pathfinder_image_size(const PathfinderDataConfig& cfg);

// n images of the style: exactly half of each label (the odd one random),
// shuffled; tokens value + 1 (vocabulary 257), 1 channel, classes {"0", "1"}.
Dataset generate_pathfinder(const PathfinderDataConfig& cfg, int64_t n, uint64_t seed);
// train / val / test from independent streams of `seed`, each balanced.
Splits generate_pathfinder_splits(const PathfinderDataConfig& cfg, int64_t n_train, int64_t n_val,
                                  int64_t n_test, uint64_t seed);
// n split 80 / 10 / 10 (val = test = n / 10), as LRA splits Pathfinder.
Splits generate_pathfinder_splits(const PathfinderDataConfig& cfg, int64_t n, uint64_t seed);

// Writes generate_pathfinder_splits(cfg, n, seed) as PNGs: out_dir/{train,val,
// test}/{0,1}/NNNNN.png plus out_dir/pathfinder.txt (style, configuration,
// seed, split sizes); load_image_folder(out_dir, 1) reads it back.
void write_pathfinder_folder(const PathfinderDataConfig& cfg, int64_t n, uint64_t seed,
                             const std::string& out_dir);
// (write_pathfinder_splits_png, in pathfinder.h, writes any splits in that layout.)

// Pathfinder files on disk, whichever layout: LRA's released one (dir or
// dir/.. holds imgs/ and metadata/*.npy: labels from the metadata) or a PNG
// folder as write_pathfinder_folder writes it (dir/{train,val,test}/{0,1}/,
// or dir/{0,1}/ split 80/10/10 by `seed`).  Images are read as 1 channel.
Splits load_pathfinder_data(const std::string& dir, uint64_t seed = 0);

// Generation speed on the calling thread alone (no OpenMP): n images of
// alternating labels.  cpu_seconds is this thread's CPU time, which a busy
// machine inflates less than the wall clock.
struct GenerationSpeed {
  int64_t images = 0;
  double cpu_seconds = 0, wall_seconds = 0;
  double per_cpu_second() const { return cpu_seconds > 0 ? images / cpu_seconds : 0; }
  double per_wall_second() const { return wall_seconds > 0 ? images / wall_seconds : 0; }
};
GenerationSpeed measure_pathfinder_generation(const PathfinderDataConfig& cfg, int64_t n, uint64_t seed = 1);
// "pathfinder lra: 5000 images on one thread in 1.31 s CPU (3830 images/s), 3.02 s wall (1658/s)"
std::string format_speed(const PathfinderDataConfig& cfg, const GenerationSpeed& g);

}  // namespace az
