// Pathfinder: the label agrees with what the pixels say (markers found and
// traced from the image alone) and with the generator's own record; classes
// are balanced; neither ink nor marker positions give the label away; the
// generator is deterministic; PNG folders read back through load_image_folder.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "data/image_folder.h"
#include "data/pathfinder.h"
#include "tests/util.h"

using namespace az;

namespace {

using az::test::error_of;
using az::test::contains;

// What the pixels alone say, knowing only the drawing rules: markers are the
// only places with a full 3x3 block of ink; two ink pixels belong to one path
// when a chain of ink pixels links them with steps of at most link pixels
// (Chebyshev), link = gap_length + 1.
struct PixelReading {
  std::vector<int> markers;  // one pixel of each 3x3-core component
  bool connected = false;    // markers[0] reaches markers[1]
};

PixelReading read_pixels(const std::vector<uint8_t>& px, int S, int link) {
  auto ink = [&](int y, int x) { return y >= 0 && x >= 0 && y < S && x < S && px[size_t(y) * S + x] > 0; };
  std::vector<char> core(size_t(S) * S, 0);
  for (int y = 1; y + 1 < S; ++y)
    for (int x = 1; x + 1 < S; ++x) {
      bool full = true;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) full = full && ink(y + dy, x + dx);
      core[size_t(y) * S + x] = full;
    }
  // Flood fill helper: from `start`, over pixels `ok`, steps of at most r.
  auto fill = [&](int start, const std::function<bool(int, int)>& ok, int r) {
    std::vector<char> seen(size_t(S) * S, 0);
    std::vector<int> stack = {start};
    seen[size_t(start)] = 1;
    while (!stack.empty()) {
      int p = stack.back();
      stack.pop_back();
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
          int y = p / S + dy, x = p % S + dx;
          if (y < 0 || x < 0 || y >= S || x >= S) continue;
          size_t q = size_t(y) * S + x;
          if (!seen[q] && ok(y, x)) seen[q] = 1, stack.push_back(int(q));
        }
    }
    return seen;
  };
  PixelReading out;
  std::vector<char> claimed(size_t(S) * S, 0);
  for (int p = 0; p < S * S; ++p) {
    if (!core[size_t(p)] || claimed[size_t(p)]) continue;
    out.markers.push_back(p);
    std::vector<char> comp = fill(p, [&](int y, int x) { return core[size_t(y) * S + x] != 0; }, 1);
    for (size_t q = 0; q < comp.size(); ++q) claimed[q] |= comp[q];
  }
  if (out.markers.size() == 2) {
    std::vector<char> reach = fill(out.markers[0], ink, link);
    out.connected = reach[size_t(out.markers[1])] != 0;
  }
  return out;
}

// Accuracy of the best single threshold (either direction) on a feature:
// split points only between distinct values, so ties cannot help.
double best_threshold_accuracy(std::vector<std::pair<double, int>> v) {
  std::sort(v.begin(), v.end());
  const double n = double(v.size());
  int positives = 0;
  for (auto& e : v) positives += e.second;
  double best = 0.5;
  int pos_below = 0;
  for (size_t i = 0; i <= v.size(); ++i) {
    if (i == 0 || i == v.size() || v[i].first != v[i - 1].first) {
      double acc = (double(i) - pos_below + (positives - pos_below)) / n;
      best = std::max({best, acc, 1 - acc});
    }
    if (i < v.size()) pos_below += v[i].second;
  }
  return best;
}

int chebyshev(int a, int b, int S) { return std::max(std::abs(a / S - b / S), std::abs(a % S - b % S)); }

}  // namespace

TEST_CASE("pathfinder: the label agrees with connectivity read from the pixels alone") {
  for (const char* level : {"easy", "medium", "hard"}) {
    const PathfinderConfig cfg = pathfinder_preset(level);
    const int S = cfg.image_size, n = 200;
    int agree = 0, two_markers = 0;
    for (int i = 0; i < n; ++i) {
      const PathfinderSample s = generate_pathfinder_sample(cfg, i % 2, 1000 + uint64_t(i));
      const PixelReading r = read_pixels(s.pixels, S, cfg.gap_length + 1);
      two_markers += r.markers.size() == 2;
      agree += r.markers.size() == 2 && int(r.connected) == s.label;
      // The pixel reading finds the recorded markers.
      if (r.markers.size() == 2) {
        std::vector<int> found = r.markers, rec = {s.marker[0], s.marker[1]};
        std::sort(found.begin(), found.end());
        std::sort(rec.begin(), rec.end());
        CHECK(found == rec);
      }
    }
    INFO("level " << level);
    CHECK(two_markers == n);
    CHECK(agree == n);
  }
}

TEST_CASE("pathfinder: the generator's record agrees with the label and its rules") {
  const PathfinderConfig cfg;  // hard, 32x32
  const int S = cfg.image_size, link = cfg.gap_length + 1;
  for (int i = 0; i < 100; ++i) {
    const PathfinderSample s = generate_pathfinder_sample(cfg, i % 2, 77 + uint64_t(i));
    REQUIRE(s.paths.size() >= 3);
    CHECK((s.marker_path[0] == s.marker_path[1]) == (s.label == 1));
    for (int m = 0; m < 2; ++m) {  // each marker sits on an end of its path
      const std::vector<int>& p = s.paths[size_t(s.marker_path[m])];
      CHECK((s.marker[m] == p.front() || s.marker[m] == p.back()));
    }
    // One whole target, two pieces of the other (one dash short), distractors.
    const size_t L = size_t(cfg.path_segments * cfg.dash_length);
    CHECK(s.paths[0].size() == L);
    CHECK(s.paths[1].size() + s.paths[2].size() == L - size_t(cfg.dash_length));
    const size_t D = size_t((cfg.path_segments + 2) / 3 * cfg.dash_length);
    for (size_t k = 3; k < s.paths.size(); ++k) CHECK(s.paths[k].size() == D);
    // Different paths never come within the linking distance.
    bool apart = true;
    for (size_t a = 0; a < s.paths.size(); ++a)
      for (size_t b = a + 1; b < s.paths.size(); ++b)
        for (int p : s.paths[a])
          for (int q : s.paths[b]) apart = apart && chebyshev(p, q, S) > link;
    CHECK(apart);
    // Consecutive dashes of a path are exactly gap_length + 1 apart.
    for (const auto& p : s.paths)
      for (size_t k = 1; k < p.size(); ++k)
        CHECK(chebyshev(p[k - 1], p[k], S) == (k % size_t(cfg.dash_length) == 0 ? link : 1));
    // Every path pixel is inked, and inside the padding.
    for (const auto& p : s.paths)
      for (int q : p) {
        CHECK(s.pixels[size_t(q)] == cfg.ink);
        CHECK((q / S >= cfg.padding && q / S < S - cfg.padding && q % S >= cfg.padding && q % S < S - cfg.padding));
      }
  }
}

TEST_CASE("pathfinder: balanced classes, tokens and shape") {
  PathfinderConfig cfg = pathfinder_preset("easy");
  Dataset even = generate_pathfinder(cfg, 100, 3);
  Dataset odd = generate_pathfinder(cfg, 101, 3);
  int ones_even = 0, ones_odd = 0;
  for (int y : even.labels) ones_even += y;
  for (int y : odd.labels) ones_odd += y;
  CHECK(ones_even == 50);
  CHECK((ones_odd == 50 || ones_odd == 51));
  CHECK(even.vocab_size == 257);
  CHECK(even.num_classes == 2);
  CHECK(even.class_names == std::vector<std::string>{"0", "1"});
  CHECK(even.height == 32);
  CHECK(even.width == 32);
  CHECK(even.channels == 1);
  bool ok = true;
  for (const auto& seq : even.seqs) {
    ok = ok && seq.size() == 1024;
    for (int32_t t : seq) ok = ok && (t == 1 || t == 256);  // background 0 and ink 255, + 1
  }
  CHECK(ok);
  // The labels are shuffled, not alternating.
  int changes = 0;
  for (size_t i = 1; i < even.labels.size(); ++i) changes += even.labels[i] != even.labels[i - 1];
  CHECK(changes < 90);
}

TEST_CASE("pathfinder: ink and marker positions cannot tell the classes apart") {
  const PathfinderConfig cfg;  // hard
  const int S = cfg.image_size, n = 2000;
  std::vector<std::pair<double, int>> ink, distance;
  std::vector<std::array<double, 4>> where(n);
  std::vector<int> label(n);
  double sum[2] = {0, 0};
  for (int i = 0; i < n; ++i) {
    const PathfinderSample s = generate_pathfinder_sample(cfg, i % 2, 5000 + uint64_t(i));
    double total = 0;
    for (uint8_t p : s.pixels) total += p;
    sum[s.label] += total;
    ink.push_back({total, s.label});
    const int a = s.marker[0], b = s.marker[1];
    distance.push_back({std::hypot(a / S - b / S, a % S - b % S), s.label});
    where[size_t(i)] = {double(a / S), double(a % S), double(b / S), double(b % S)};
    label[size_t(i)] = s.label;
  }
  const double mean0 = sum[0] / (n / 2), mean1 = sum[1] / (n / 2);
  const double ink_acc = best_threshold_accuracy(ink), dist_acc = best_threshold_accuracy(distance);
  // Leave-one-out 51-nearest-neighbour vote on the four marker coordinates.
  int knn_correct = 0;
  std::vector<std::pair<double, int>> d(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double s2 = 0;
      for (int k = 0; k < 4; ++k) s2 += (where[size_t(i)][size_t(k)] - where[size_t(j)][size_t(k)]) * (where[size_t(i)][size_t(k)] - where[size_t(j)][size_t(k)]);
      d[size_t(j)] = {j == i ? 1e18 : s2 + 1e-9 * j, label[size_t(j)]};
    }
    std::nth_element(d.begin(), d.begin() + 51, d.end());
    int votes = 0;
    for (int k = 0; k < 51; ++k) votes += d[size_t(k)].second;
    knn_correct += (votes > 25) == (label[size_t(i)] == 1);
  }
  const double knn_acc = knn_correct / double(n);
  MESSAGE("mean ink: label 0 " << mean0 << ", label 1 " << mean1 << " (" << 100 * std::fabs(mean1 - mean0) / mean0
                               << "% apart); best threshold on ink " << ink_acc << ", on marker distance "
                               << dist_acc << "; 51-NN on marker coordinates " << knn_acc);
  CHECK(std::fabs(mean1 - mean0) / mean0 < 0.02);
  CHECK(ink_acc < 0.56);
  CHECK(dist_acc < 0.56);
  CHECK(knn_acc < 0.56);
}

TEST_CASE("pathfinder: deterministic for a seed; labels share the scene") {
  const PathfinderConfig cfg = pathfinder_preset("medium");
  Dataset a = generate_pathfinder(cfg, 20, 11), b = generate_pathfinder(cfg, 20, 11), c = generate_pathfinder(cfg, 20, 12);
  CHECK(a.seqs == b.seqs);
  CHECK(a.labels == b.labels);
  CHECK(a.seqs != c.seqs);
  // Same seed, other label: same scene and markers, only the cut moves, so
  // exactly one dash disappears and another appears.
  for (uint64_t seed = 0; seed < 20; ++seed) {
    PathfinderSample s0 = generate_pathfinder_sample(cfg, 0, seed), s1 = generate_pathfinder_sample(cfg, 1, seed);
    CHECK(s0.marker[0] == s1.marker[0]);
    CHECK(s0.marker[1] == s1.marker[1]);
    int differ = 0;
    for (size_t p = 0; p < s0.pixels.size(); ++p) differ += s0.pixels[p] != s1.pixels[p];
    CHECK(differ == 2 * cfg.dash_length);
  }
  // Splits come from independent streams.
  Splits s = generate_pathfinder_splits(cfg, 50, 9);
  CHECK(s.train.size() == 40);
  CHECK(s.val.size() == 5);
  CHECK(s.test.size() == 5);
  CHECK(s.train.seqs[0] != s.val.seqs[0]);
}

TEST_CASE("pathfinder: PNG folder written and read back through load_image_folder") {
  char tmpl[] = "/tmp/az_pathfinder_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const PathfinderConfig cfg = pathfinder_preset("easy");
  write_pathfinder_folder(cfg, 60, 21, dir);
  CHECK(std::filesystem::exists(dir + "/pathfinder.txt"));
  CHECK(std::filesystem::exists(dir + "/train/0/00000.png") != std::filesystem::exists(dir + "/train/1/00000.png"));
  Splits back = load_image_folder(dir, 1);
  Splits want = generate_pathfinder_splits(cfg, 60, 21);
  const std::pair<const Dataset*, const Dataset*> pairs[3] = {
      {&back.train, &want.train}, {&back.val, &want.val}, {&back.test, &want.test}};
  for (auto [got, ref] : pairs) {
    REQUIRE(got->size() == ref->size());
    CHECK(got->class_names == std::vector<std::string>{"0", "1"});
    CHECK(got->height == 32);
    CHECK(got->channels == 1);
    // The folder groups by class; within a class the index order is kept.
    for (int cls = 0; cls < 2; ++cls) {
      std::vector<std::vector<int32_t>> g, r;
      for (size_t i = 0; i < got->size(); ++i)
        if (got->labels[i] == cls) g.push_back(got->seqs[i]);
      for (size_t i = 0; i < ref->size(); ++i)
        if (ref->labels[i] == cls) r.push_back(ref->seqs[i]);
      CHECK(g == r);
    }
  }
  std::filesystem::remove_all(dir);
  CHECK(contains(error_of<DataError>([&] { write_pathfinder_folder(cfg, 4, 1, "/proc/no-such-place"); }), "cannot create"));
}

TEST_CASE("pathfinder: bad configurations are errors, never hangs") {
  PathfinderConfig cfg;
  cfg.path_segments = 2;
  CHECK(contains(error_of<DataError>([&] { generate_pathfinder(cfg, 1, 0); }), "path_segments 2, expected 3..1000"));
  cfg = PathfinderConfig();
  cfg.marker_radius = 0.5;
  CHECK(contains(error_of<DataError>([&] { validate(cfg); }), "marker_radius 0.5"));
  CHECK(contains(error_of<DataError>([&] { pathfinder_preset("extreme"); }), "expected easy, medium or hard"));
  CHECK(contains(error_of<DataError>([&] { generate_pathfinder_sample(PathfinderConfig(), 2, 0); }), "label 2, expected 0 or 1"));
  cfg = PathfinderConfig();
  cfg.image_size = 12;
  cfg.path_segments = 60;
  cfg.max_scene_tries = 5;
  CHECK(contains(error_of<DataError>([&] { generate_pathfinder(cfg, 1, 0); }), "could not fit 2 paths of 60 dashes in 12x12"));
  // A configuration that cannot be drawn stops at the first image that fails,
  // not after trying every one of n (16x16 with 6 dashes: ~0.1 s per failed
  // image, so 100,000 images took hours before the loop stopped early).
  cfg = pathfinder_preset("easy");
  cfg.image_size = 16;
  auto t0 = std::chrono::steady_clock::now();
  CHECK(contains(error_of<DataError>([&] { generate_pathfinder(cfg, 100000, 0); }), "could not fit 2 paths of 6 dashes in 16x16"));
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 60);
  // Other sizes and shapes work and keep the pixel rule.
  cfg = PathfinderConfig();
  cfg.image_size = 64;
  cfg.gap_length = 2;
  cfg.dash_length = 3;
  for (int i = 0; i < 20; ++i) {
    PathfinderSample s = generate_pathfinder_sample(cfg, i % 2, uint64_t(i));
    PixelReading r = read_pixels(s.pixels, 64, cfg.gap_length + 1);
    REQUIRE(r.markers.size() == 2);
    CHECK(int(r.connected) == s.label);
  }
}
