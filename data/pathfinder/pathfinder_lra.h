// Pathfinder as LRA made it: Linsley et al.'s "snakes" generator (Linsley,
// Kim, Veerabadran, Windolf & Serre 2018; drewlinsley/pathfinder snakes2.py
// and snakes.py) with LRA's Pathfinder-32 arguments (long-range-arena
// lra_benchmarks/data/pathfinder/pathfinder.py, class Pathfinder32), written anew in C++.
//
// Construction (snakes2.py's two_snakes, make_many_snakes, from_wrapper):
//  1. Two target snakes grow from seeds seed_distance apart: the first seed
//     lies in the centre (snakes2 blocks a 2 * seed_distance border for it),
//     the second at a random angle from it.  Then each snake in turn gains
//     one paddle (a short anti-aliased line) per round, contour_length in
//     all: the next paddle's far end is drawn among the pixels on a circle
//     of radius paddle_length + margin around a pivot one step ahead, with
//     weight (1 - dilated occupancy) * cos^2(min(turn * continuity, 90 deg)),
//     and it is kept if its dilated footprint does not overlap the occupancy
//     mask (sum < 1.8), up to 1 + max_paddle_retrial draws.  Any failure
//     redraws both snakes.
//  2. num_distractor_snakes distractor snakes of distractor_length paddles,
//     each seeded at a free pixel, up to 1 + max_distractor_retrial tries;
//     one that does not fit is left out (snakes2's allow_incomplete).
//  A seed (the first target's, each distractor's) fails outright when its
//  orientation's kernel leaves some image pixel with no tap inside: OpenCV
//  pads snakes2's float64 mask with -DBL_MAX, and a negative value makes
//  find_available_coordinates report no free pixel.  At LRA-32's sizes only
//  -150..-121 degrees survive, so the first target always starts in that
//  range and about two distractors in three are left out.  (A numpy
//  stand-in for cv2.dilate that takes the border from the source misses this
//  and draws a third more ink; our generator did so until issue 42.)
//  3. A marker (anti-aliased disc) at the start of a random target; the other
//     at the end of the same snake (label 1) or of the other target (label 0).
//  4. The image is scaled so its brightest pixel is 255 (scipy's imsave).
// Targets are drawn at snake_contrast * paddle_contrast (LRA: 1.5),
// distractors at snake_contrast (2.0), markers at 1.0, before that scaling.
//
// Rendering follows the Python exactly (data/pathfinder/pathfinder_lra_draw.h): a paddle
// is PIL's 1-px line on an antialias_scale x finer canvas, its mask that line
// dilated by a disc of radius margin * antialias_scale (cv2), both shrunk by
// PIL's Lanczos-3 to 8 bits; the seed's footprint test is the dilation by the
// mask's saturated pixels, with snakes2's kernel anchor.  Checked: every
// paddle (all 360 seed orientations) and the marker are identical, level for
// level, to snakes.draw_line_n_mask and snakes2.draw_circle run under PIL 9.4
// with scipy.misc.imresize's 8-bit semantics.  The whole image is checked in
// law against snakes2.py run with real OpenCV (data/pathfinder/snakes2_lra32.py).
//
// Where it differs from snakes2.py, and why:
//  - The label is given (the data set balances labels exactly) instead of a
//    coin per image; the scene is drawn before the label is used, as in
//    snakes2, so this changes no image's law, only the class counts.
//  - Our own RNG (az::Rng, xoshiro256**): images are deterministic per seed
//    but not numpy's.  Same distributions (uniform seeds, degrees in
//    [-180, 180), cmf sampling).
//  - Paddles are cached per head offset (121 at LRA's sizes) instead
//    of redrawn; the result is the same, and it is what makes ~10^4 images/s.
//  - PIL's 8-bit fixed-point Lanczos is computed in double and rounded after
//    each pass (no level differs at LRA's sizes); a marker's disc is computed
//    once away from the border and clipped there (PIL renormalises its
//    filter at the border: a grey level or two on border pixels).
//  - paddle_thickness * antialias_scale > 1 (not LRA-32's 1) draws a wide
//    line as the pixels within half the width of the segment, not PIL's
//    polygon.
//  - snakes2_wrapper.py sets use_single_paddles = False; single_paddles > 0
//    adds snakes2's one-paddle clutter (its use_single_paddles = True path).
//  - A scene that cannot be drawn after max_scene_tries is a DataError
//    (snakes2 loops forever).  The second seed must lie inside the image
//    (snakes2 checks only its head and pivot; at LRA's sizes it always does).
// Kept on purpose, because they are in LRA's data: the first target's last
// paddle never enters the occupancy mask (distractors may touch it), the
// second seed is not checked against the first, and targets are dimmer
// than distractors.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace az {

struct LraPathfinderConfig {
  int image_size = 32;              // window_size (H = W)
  int padding = 1;                  // occupied border of the mask
  int contour_length = 14;          // paddles per target: 6 easy, 9 medium, 14 hard (LRA)
  int distractor_length = 0;        // paddles per distractor; 0 = contour_length / 3
  int num_distractor_snakes = -1;   // -1 = 20 / distractor_length (LRA-32: 5)
  int paddle_length = 2;
  double paddle_thickness = 0.5;
  int paddle_margin = 1;
  int antialias_scale = 2;
  int seed_distance = 7;
  double continuity = 1.0;
  double marker_radius = 1.5;
  double snake_contrast = 2.0;      // snake_contrast_list = [2]
  double paddle_contrast = 0.75;    // paddle_contrast_list = [0.75]
  int max_paddle_retrial = 2;       // draws per paddle: 1 + this
  int max_distractor_retrial = 4;   // tries per distractor snake: 1 + this
  int single_paddles = 0;           // one-paddle clutter snakes (0: snakes2_wrapper's choice)
  int max_scene_tries = 20000;      // whole target redraws before DataError
};

// "easy" (curv_baseline: 6 paddles), "medium" (curv_contour_length_9),
// "hard" (curv_contour_length_14, LRA's Pathfinder-32).
LraPathfinderConfig lra_pathfinder_preset(const std::string& difficulty);

// Throws DataError naming the first field out of range.
void validate(const LraPathfinderConfig& cfg);

// One image and the generator's record of it (for tests and statistics).
struct LraPathfinderSample {
  int size = 0;
  std::vector<uint8_t> pixels;  // size*size, row-major, brightest pixel 255
  int label = 0;                // 1 = both markers on one target snake
  // Each layer alone at the image's scale: pixels is their elementwise max.
  std::array<std::vector<uint8_t>, 2> target_ink;
  std::vector<uint8_t> distractor_ink, marker_ink;
  int marker[2] = {-1, -1};       // marker centres y*size+x: origin tip, terminal tip
  int marker_snake[2] = {-1, -1}; // target (0 or 1) whose tip each marker is; equal iff label 1
  std::array<std::vector<int>, 2> paddle_heads;  // per target, each paddle's far end (y*size+x)
  int seed_degrees[2] = {0, 0};   // per target, its first paddle's orientation (degrees, -180..179)
  int distractors_drawn = 0;
  int scene_tries = 0;            // target redraws this image needed (>= 1)
};

// Precomputes the paddles and the marker for a configuration; sample() is
// const and may run in parallel.
class LraPathfinderGenerator {
 public:
  explicit LraPathfinderGenerator(const LraPathfinderConfig& cfg);
  ~LraPathfinderGenerator();
  LraPathfinderGenerator(const LraPathfinderGenerator&) = delete;
  LraPathfinderGenerator& operator=(const LraPathfinderGenerator&) = delete;
  // One image of label 0 or 1 from its own seed.  The same seed gives the
  // same scene for both labels; only the terminal marker moves.
  LraPathfinderSample sample(int label, uint64_t seed) const;
  const LraPathfinderConfig& config() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// n images, exactly half of each label (the odd one random), shuffled; pixel
// tokens value + 1 (vocabulary 257), 1 channel, classes {"0", "1"}.  Image i
// depends only on (seed, i) and its label.
Dataset generate_lra_pathfinder(const LraPathfinderConfig& cfg, int64_t n, uint64_t seed);

}  // namespace az
