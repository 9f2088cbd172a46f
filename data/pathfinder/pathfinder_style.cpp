// Pathfinder by style: dispatch to the LRA (Linsley) or the cut generator,
// splits, the PNG folder writer and the one-thread speed measurement.
#include "data/pathfinder/pathfinder_style.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "autograd/tensor.h"    // hash64
#include "data/images/image_folder.h"  // load_image_folder
#include "data/pathfinder/lra_pathfinder_layout.h"

namespace az {
namespace {

bool is_lra(const PathfinderDataConfig& c) { return c.style == "lra"; }

int to_int(int64_t n, const char* what) {
  if (n < 0 || n > INT_MAX) {
    throw DataError(std::string("pathfinder: ") + what + " " + std::to_string(n) + ", expected 0.." +
                    std::to_string(INT_MAX));
  }
  return int(n);
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

std::string describe(const PathfinderDataConfig& c) {
  std::ostringstream o;
  o << "style " << c.style << "\n";
  if (is_lra(c)) {
    const LraPathfinderConfig& l = c.lra;
    o << "generator Linsley et al. snakes2.py with LRA Pathfinder-32 arguments (data/pathfinder/pathfinder_lra.h)\n"
      << "image_size " << l.image_size << "\npadding " << l.padding << "\ncontour_length " << l.contour_length
      << "\ndistractor_length " << l.distractor_length << "\nnum_distractor_snakes " << l.num_distractor_snakes
      << "\npaddle_length " << l.paddle_length << "\npaddle_thickness " << l.paddle_thickness
      << "\npaddle_margin " << l.paddle_margin << "\nantialias_scale " << l.antialias_scale << "\nseed_distance "
      << l.seed_distance << "\ncontinuity " << l.continuity << "\nmarker_radius " << l.marker_radius
      << "\nsnake_contrast " << l.snake_contrast << "\npaddle_contrast " << l.paddle_contrast
      << "\nmax_paddle_retrial " << l.max_paddle_retrial << "\nmax_distractor_retrial " << l.max_distractor_retrial
      << "\nsingle_paddles " << l.single_paddles << "\n";
  } else {
    const PathfinderConfig& p = c.cut;
    o << "generator cut control (data/pathfinder/pathfinder.h)\nimage_size " << p.image_size << "\npath_segments "
      << p.path_segments << "\ndistractor_segments " << p.distractor_segments << "\nmax_distractors "
      << p.max_distractors << "\ndash_length " << p.dash_length << "\ngap_length " << p.gap_length
      << "\nmax_turn_deg " << p.max_turn_deg << "\nmarker_radius " << p.marker_radius << "\n";
  }
  return o.str();
}

}  // namespace

const std::vector<std::string>& pathfinder_styles() {
  static const std::vector<std::string> s = {"lra", "cut"};
  return s;
}

PathfinderDataConfig pathfinder_data_preset(const std::string& style, const std::string& difficulty) {
  PathfinderDataConfig c;
  c.style = style;
  validate(c);
  if (is_lra(c)) c.lra = lra_pathfinder_preset(difficulty);
  else c.cut = pathfinder_preset(difficulty);
  return c;
}

void validate(const PathfinderDataConfig& c) {
  if (c.style == "lra") validate(c.lra);
  else if (c.style == "cut") validate(c.cut);
  else throw DataError("pathfinder: style '" + c.style + "', expected lra or cut");
}

int pathfinder_image_size(const PathfinderDataConfig& c) {
  validate(c);
  return is_lra(c) ? c.lra.image_size : c.cut.image_size;
}

Dataset generate_pathfinder(const PathfinderDataConfig& c, int64_t n, uint64_t seed) {
  validate(c);
  if (is_lra(c)) return generate_lra_pathfinder(c.lra, n, seed);
  return generate_pathfinder(c.cut, to_int(n, "n"), seed);
}

Splits generate_pathfinder_splits(const PathfinderDataConfig& c, int64_t n_train, int64_t n_val, int64_t n_test,
                                  uint64_t seed) {
  validate(c);
  if (!is_lra(c)) {
    return generate_pathfinder_splits(c.cut, to_int(n_train, "n_train"), to_int(n_val, "n_val"),
                                      to_int(n_test, "n_test"), seed);
  }
  Splits s;  // independent streams, not those of the cut style
  s.train = generate_lra_pathfinder(c.lra, n_train, hash64(seed ^ 0x4C52412D747261ull));
  s.val = generate_lra_pathfinder(c.lra, n_val, hash64(seed ^ 0x4C52412D76616Cull));
  s.test = generate_lra_pathfinder(c.lra, n_test, hash64(seed ^ 0x4C52412D746573ull));
  return s;
}

Splits generate_pathfinder_splits(const PathfinderDataConfig& c, int64_t n, uint64_t seed) {
  if (n < 0) throw DataError("pathfinder: n " + std::to_string(n) + ", expected >= 0");
  return generate_pathfinder_splits(c, n - 2 * (n / 10), n / 10, n / 10, seed);
}

void write_pathfinder_folder(const PathfinderDataConfig& c, int64_t n, uint64_t seed, const std::string& out_dir) {
  validate(c);
  if (!is_lra(c)) return write_pathfinder_folder(c.cut, to_int(n, "n"), seed, out_dir);  // today's files, unchanged
  std::ostringstream meta;
  meta << "n " << n << "\nseed " << seed << "\n" << describe(c);
  write_pathfinder_splits_png(generate_pathfinder_splits(c, n, seed), out_dir, meta.str());
}

Splits load_pathfinder_data(const std::string& dir, uint64_t seed) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  const std::string parent = std::filesystem::path(d).parent_path().string();
  if (is_lra_pathfinder_root(d) || (std::filesystem::path(d).filename() == "imgs" && is_lra_pathfinder_root(parent))) {
    return load_lra_pathfinder(d);
  }
  return load_image_folder(d, 1, 0, 0.1, 0.1, seed);
}

GenerationSpeed measure_pathfinder_generation(const PathfinderDataConfig& c, int64_t n, uint64_t seed) {
  validate(c);
  if (n < 1) throw DataError("pathfinder: speed over " + std::to_string(n) + " images, expected >= 1");
  GenerationSpeed g;
  g.images = n;
  // The generator's set-up (paddle tables) is part of the cost.
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = thread_cpu_seconds();
  size_t sink = 0;
  if (is_lra(c)) {
    const LraPathfinderGenerator gen(c.lra);
    for (int64_t i = 0; i < n; ++i) sink += gen.sample(int(i % 2), hash64(seed + uint64_t(i))).pixels[0];
  } else {
    for (int64_t i = 0; i < n; ++i)
      sink += generate_pathfinder_sample(c.cut, int(i % 2), hash64(seed + uint64_t(i))).pixels[0];
  }
  g.cpu_seconds = thread_cpu_seconds() - c0;
  g.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  if (sink == size_t(-1)) std::printf(" ");  // keeps the loop from being optimised away
  return g;
}

std::string format_speed(const PathfinderDataConfig& c, const GenerationSpeed& g) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "pathfinder %s: %lld images on one thread in %.2f s CPU (%.0f images/s), %.2f s wall (%.0f/s)",
                c.style.c_str(), (long long)g.images, g.cpu_seconds, g.per_cpu_second(), g.wall_seconds,
                g.per_wall_second());
  return buf;
}

}  // namespace az
