// Shortcut baselines for any Pathfinder data set, from the pixels alone (no
// generator record: LRA's released images have none).  Each is fit on train
// and scored on test, so a model's accuracy can be read against what marker
// positions or the amount of ink alone would give:
//  - majority: the train majority class;
//  - ink: logistic regression on (total ink, lit pixels);
//  - marker distance: logistic regression on (d, d^2) of the distance
//    between the two markers;
//  - marker kNN: k-nearest-neighbour vote on the four marker coordinates
//    (the markers ordered by row then column), the figure the issue asks for.
// Markers are found as the two brightest round blobs: the two largest 3x3
// box sums of the image, the second at least 3 pixels (Chebyshev) from the
// first.  Cost: O(pixels) per image, plus the kNN's O(k_train * n_test).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace az {

// The two marker centres found in one image (H x W pixel tokens, value + 1,
// 1 channel), ordered by (row, column).
struct MarkerPair {
  int y[2] = {0, 0}, x[2] = {0, 0};
  double distance() const;
};
MarkerPair find_markers(const std::vector<int32_t>& tokens, int height, int width);

struct ShortcutRow {
  std::string name;    // "majority", "ink", "marker distance", "marker kNN"
  std::string detail;  // how it was fit, e.g. "k=25 on 20000 of 160000 train"
  double test_accuracy = 0;
};

struct ShortcutOptions {
  int knn_k = 25;
  int64_t knn_max_train = 20000;  // kNN reference set: the first this many train images (said in its detail)
};

// Throws DataError when train or test is empty, not 1-channel images, or
// not two classes.
std::vector<ShortcutRow> pathfinder_shortcut_baselines(const Splits& s, const ShortcutOptions& opt = {});
// One line per row: "  shortcut marker kNN      0.6312  (k=25 on 20000 of 160000 train)".
std::string format_shortcut_rows(const std::vector<ShortcutRow>& rows);

// Per-label statistics of a data set, to compare generators in law.
struct PathfinderLabelStats {
  int64_t count = 0;
  double ink_mean = 0, ink_sd = 0;          // total ink (sum of pixel values)
  double lit_mean = 0;                      // pixels above 0
  double marker_distance_mean = 0, marker_distance_sd = 0;
};
struct PathfinderStats {
  PathfinderLabelStats label[2];
};
PathfinderStats pathfinder_statistics(const Dataset& ds);
std::string format_statistics(const PathfinderStats& st);

// A data set's law, as figures with standard errors, to hold one generator
// against another (ours against snakes2.py under OpenCV, issue 42).
struct LawStat {
  std::string name;
  double mean = 0, se = 0;  // se: standard error of the mean (binomial for an accuracy)
};
// Per image: pixels at 0, 1..50, 51..127, 128..203 and 204..255, and the
// mean pixel value; per label: ink and the marker distance; then the four
// shortcut baselines fit on the even-indexed images and scored on the odd
// ones (no split of the caller's needed).  Throws DataError like the baselines.
std::vector<LawStat> pathfinder_law(const Dataset& ds, const ShortcutOptions& opt = {});
// One line per figure; with `ref`, its value and the gap in combined
// standard errors beside each (the in-law test's yardstick).
std::string format_law(const std::vector<LawStat>& ours, const std::vector<LawStat>* ref = nullptr);

}  // namespace az
