// Pathfinder (Linsley et al. 2018; LRA's long-range spatial task), generated
// by our own code.  A grey image holds dashed curved paths ("snakes") and two
// round markers; label 1 when the markers sit on the two ends of one path,
// 0 when they sit on ends of two different paths.
//
// Construction.  Every image first draws a label-blind scene: two target
// paths A and B of path_segments dashes each (marker discs reserved at all
// four ends), then distractor paths (up to max_distractors, fewer when no
// more fit).  The markers go on both ends of a random target X.  Then one
// dash is cut out of the middle third of a target: out of the other target
// for label 1 (X stays whole: its ends are connected), out of X for label 0
// (X falls into two paths, each holding one marker).  So both classes draw
// the same paths (one whole target, two pieces of the other, distractors),
// the same ink and the same marker positions in law; only whether the break
// lies on the marked path decides the label.
//
// This differs from Linsley's generator (data/pathfinder/pathfinder_lra.h, the "lra"
// style and LRA's data), which grows two snakes from nearby seeds and marks
// the start of one and the end of the same or the other: there the marker
// positions alone carry part of the label (a 25-NN on the four marker
// coordinates: 57% at 40K training images, data/pathfinder/pathfinder_baselines.h);
// here every shortcut baseline stays at 50%.  This style is the control.
//
// Drawing.  Paths walk in Chebyshev-unit steps (one pixel along the major
// axis per step, DDA style) in 16.16 fixed point, so a dash is exactly
// dash_length pixels and the gap between two dashes of a path is exactly
// gap_length + 1 pixels (Chebyshev).  Each dash turns by an angle drawn among
// those that fit, weighted cos^2(90 deg * turn / max_turn_deg) (Linsley's
// "continuity").  Different paths, the two pieces of a cut path and the
// marker discs keep at least gap_length + 2 pixels apart, so "within
// gap_length + 1 of each other" is exactly "same path".  Integer arithmetic
// and our own RNG (splitmix64) make the images identical for a given seed.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace az {

struct PathfinderConfig {
  int image_size = 32;          // H = W
  int path_segments = 14;       // dashes per target path: 6 easy, 9 medium, 14 hard (LRA)
  int distractor_segments = 0;  // dashes per distractor; 0 = ceil(path_segments / 3)
  int max_distractors = -1;     // cap; -1 = auto: 30 dashes' worth per 32x32 (Linsley)
  int dash_length = 2;          // pixels per dash
  int gap_length = 1;           // blank steps between dashes of one path
  int max_turn_deg = 60;        // largest turn between dashes (weighted cos^2)
  double marker_radius = 2.0;   // filled disc around an end pixel (2: 13 pixels, 5 across)
  int padding = 1;              // no ink within this many pixels of the border
  int ink = 255;                // path intensity
  int marker_ink = 255;         // marker intensity
  int max_scene_tries = 1000;   // whole-scene redraws before giving up (DataError)
};

// "easy" (6 dashes), "medium" (9), "hard" (14, LRA's curv_contour_length_14).
PathfinderConfig pathfinder_preset(const std::string& difficulty);

// Throws DataError naming the first field that is out of range.
void validate(const PathfinderConfig& cfg);

// One generated image with the generator's own record of it (for tests).
struct PathfinderSample {
  int size = 0;                         // image is size x size
  std::vector<uint8_t> pixels;          // size*size intensities, row-major
  int label = 0;                        // 1 = both markers on one path
  std::vector<std::vector<int>> paths;  // drawn pixels (y*size+x) of every path as
                                        // finally drawn, in walk order: the three target
                                        // paths (whole or pieces) first, then distractors
  int marker[2] = {-1, -1};             // marker centres (y*size+x), each an end of a path
  int marker_path[2] = {0, 0};          // index into paths of each marker's path;
                                        // equal exactly when label == 1
};

// One image of the given label (0 or 1) from its own seed.  The same seed
// gives the same scene and markers for both labels; only the cut differs.
PathfinderSample generate_pathfinder_sample(const PathfinderConfig& cfg, int label, uint64_t seed);

// n images, exactly half of each label (the odd one out random), in a seeded
// random order; pixel tokens value + 1 (vocabulary 257), 1 channel, classes
// {"0", "1"}.  Image i depends only on (seed, i) and its label.
Dataset generate_pathfinder(const PathfinderConfig& cfg, int n, uint64_t seed);

// train / val / test from independent seeds derived from `seed`.
Splits generate_pathfinder_splits(const PathfinderConfig& cfg, int n_train, int n_val, int n_test,
                                  uint64_t seed);
// n split 80 / 10 / 10 (val = test = n / 10), as LRA splits Pathfinder.
Splits generate_pathfinder_splits(const PathfinderConfig& cfg, int n, uint64_t seed);

// The Dataset both generators (this one and pathfinder_lra.h's) fill: n
// images of size x size; labels exactly half of each (the odd one drawn, then
// all shuffled, by `below(k)`, uniform in [0, k)); image i = draw(i, its
// label), pixel values, tokens value + 1 (vocabulary 257), 1 channel, classes
// {"0", "1"}.  Drawn in parallel, so `draw` must depend on (i, label) alone;
// the first error stops the rest and is rethrown.
Dataset pathfinder_dataset(int64_t n, int size, const std::function<int64_t(int64_t)>& below,
                           const std::function<std::vector<uint8_t>(int64_t, int)>& draw);

// Writes generate_pathfinder_splits(cfg, n, seed) as PNGs in the image-folder
// layout out_dir/{train,val,test}/{0,1}/NNNNN.png (NNNNN = index within the
// split) plus out_dir/pathfinder.txt recording the configuration and seed.
// load_image_folder(out_dir, 1) reads it back (each class in index order).
void write_pathfinder_folder(const PathfinderConfig& cfg, int n, uint64_t seed,
                             const std::string& out_dir);
// Writes any splits of 1-channel images in that layout; `meta` (lines) goes
// to pathfinder.txt between its header and the split sizes.
void write_pathfinder_splits_png(const Splits& s, const std::string& out_dir, const std::string& meta);

}  // namespace az
