// The Pathfinder generator: dashed paths walked on an occupancy grid, two
// round markers, and the PNG folder writer.  See pathfinder.h for the idea.
#include "data/pathfinder/pathfinder.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/images/image_folder.h"  // write_png

namespace az {
namespace {

// splitmix64 (Steele, Lea & Flood 2014): small, fast, and ours, so the images
// do not depend on the standard library's distributions.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n > 0 (multiply-shift; bias below 2^-32 for our n).
  int below(int n) { return int((unsigned __int128)next() * uint64_t(n) >> 64); }
  int between(int lo, int hi) { return lo + below(hi - lo + 1); }
};

// The seed of item i of a stream: one splitmix64 step of seed ^ (i * odd).
uint64_t derive(uint64_t seed, uint64_t i) {
  Rng r(seed ^ (i * 0xD1B54A32D192ED03ull + 0x8BB84B93962EACC9ull));
  return r.next();
}

// Per degree, the 16.16 step that advances exactly one pixel along the major
// axis (DDA): |major| = 65536, |minor| <= 65536.
struct StepTable {
  int32_t dy[360], dx[360];
  StepTable() {
    const double pi = 3.14159265358979323846;
    for (int a = 0; a < 360; ++a) {
      double c = std::cos(a * pi / 180), s = std::sin(a * pi / 180);
      if (std::fabs(c) >= std::fabs(s)) {
        dx[a] = c > 0 ? 65536 : -65536;
        dy[a] = int32_t(std::lround(s / std::fabs(c) * 65536));
      } else {
        dy[a] = s > 0 ? 65536 : -65536;
        dx[a] = int32_t(std::lround(c / std::fabs(s) * 65536));
      }
    }
  }
};
const StepTable& steps() {
  static const StepTable t;
  return t;
}

int default_distractor_segments(const PathfinderConfig& c) {
  return c.distractor_segments > 0 ? c.distractor_segments : (c.path_segments + 2) / 3;
}

// Linsley: 30 distractor dashes at full size; we scale with the image area.
int default_max_distractors(const PathfinderConfig& c) {
  if (c.max_distractors >= 0) return c.max_distractors;
  double area = double(c.image_size) * c.image_size / (32.0 * 32.0);
  return int(std::lround(30.0 * area / default_distractor_segments(c)));
}

// One scene: the occupancy grid and the paths drawn on it so far.
class Scene {
 public:
  Scene(const PathfinderConfig& cfg, Rng& rng)
      : cfg_(cfg), rng_(rng), S_(cfg.image_size), C_(cfg.gap_length + 1),
        W_(3 * (cfg.gap_length + 1) + cfg.dash_length + 2),
        R_(int(std::floor(cfg.marker_radius))),
        owner_(size_t(S_) * S_, 0), step_(size_t(S_) * S_, 0) {
    const double r2 = cfg.marker_radius * cfg.marker_radius;
    for (int dy = -R_; dy <= R_; ++dy)
      for (int dx = -R_; dx <= R_; ++dx)
        if (dy * dy + dx * dx <= r2 + 1e-9) disc_.push_back({dy, dx});
    // Candidate turns every 3 degrees in [-T, T], weight 1 + 999 cos^2(90 d / T).
    const int T = cfg.max_turn_deg;
    for (int d = -T; d <= T; d += 3) {
      double c = T == 0 ? 1.0 : std::cos(1.57079632679489662 * d / T);
      turn_offsets_.push_back(d);
      turn_weights_.push_back(1 + int(std::lround(999 * c * c)));
      total_weight_ += turn_weights_.back();
    }
  }

  // Two targets with end discs, a cut for each, then the distractors;
  // false if a target did not fit or could not be cut.
  bool build() {
    const int m = std::max(cfg_.padding, R_);
    for (int id = 0; id < 2; ++id)
      if (!place_path(id, cfg_.path_segments, m, true)) return false;
    // Both cuts are chosen now, before the label is known, so that whether
    // a scene survives does not depend on the label.
    for (int id = 0; id < 2; ++id)
      if ((cut_[id] = find_cut(id)) < 0) return false;
    const int nd = default_max_distractors(cfg_), ds = default_distractor_segments(cfg_);
    // Distractors until the cap or until one no longer fits (Linsley's
    // allow_incomplete): still label-blind, so both classes share the law.
    for (int k = 0; k < nd; ++k)
      if (!place_path(2 + k, ds, cfg_.padding, false)) break;
    return true;
  }

  const std::vector<std::vector<int>>& paths() const { return paths_; }
  // Target t split at its cut dash: the pixels before it and after it.
  std::pair<std::vector<int>, std::vector<int>> pieces(int t) const {
    const std::vector<int>& p = paths_[size_t(t)];
    const size_t d = size_t(cfg_.dash_length), c = size_t(cut_[t]);
    return {std::vector<int>(p.begin(), p.begin() + long(c * d)),
            std::vector<int>(p.begin() + long((c + 1) * d), p.end())};
  }
  const std::vector<std::pair<int, int>>& disc() const { return disc_; }

 private:
  struct Pixel { int y, x; };

  bool inside(int y, int x, int margin) const {
    return y >= margin && x >= margin && y < S_ - margin && x < S_ - margin;
  }

  // May path `id` put ink at (y, x) at walk step `step`?  No ink there yet,
  // no other path's ink or disc within C_ (Chebyshev), and none of its own
  // ink from more than `window` steps earlier (or later) within C_.
  bool free_for(int y, int x, int id, int step, int window) const {
    if (owner_[size_t(y) * S_ + x] != 0) return false;
    for (int dy = -C_; dy <= C_; ++dy) {
      for (int dx = -C_; dx <= C_; ++dx) {
        int yy = y + dy, xx = x + dx;
        if (yy < 0 || xx < 0 || yy >= S_ || xx >= S_) continue;
        size_t q = size_t(yy) * S_ + xx;
        int o = owner_[q];
        if (o == 0) continue;
        if (o != id + 1 || std::abs(step_[q] - step) > window) return false;
      }
    }
    return true;
  }

  void mark(int y, int x, int id, int step) {
    owner_[size_t(y) * S_ + x] = int16_t(id + 1);
    step_[size_t(y) * S_ + x] = step;
  }

  // A dash of target t in its middle third whose removal leaves two pieces
  // at least C_ + 1 apart (Chebyshev), or -1.  Dash k holds the pixels
  // [k * dash_length, (k + 1) * dash_length) of the path.
  int find_cut(int t) {
    const int L = cfg_.path_segments, lo = L / 3, hi = L - 1 - L / 3;
    const int first = rng_.between(lo, hi);
    for (int i = 0; i <= hi - lo; ++i) {
      const int c = lo + (first - lo + i) % (hi - lo + 1);
      const std::vector<int>& p = paths_[size_t(t)];
      const size_t d = size_t(cfg_.dash_length);
      bool apart = true;
      for (size_t u = 0; u < size_t(c) * d && apart; ++u) {
        for (size_t v = (size_t(c) + 1) * d; v < p.size() && apart; ++v) {
          int dy = std::abs(p[u] / S_ - p[v] / S_), dx = std::abs(p[u] % S_ - p[v] % S_);
          apart = std::max(dy, dx) > C_;
        }
      }
      if (apart) return c;
    }
    return -1;
  }

  // Tries random starts until a path of nseg dashes fits (targets get more
  // tries: a distractor that does not fit just ends the filling).
  bool place_path(int id, int nseg, int margin, bool target) {
    for (int attempt = 0; attempt < (target ? 50 : 20); ++attempt) {
      const int y0 = rng_.between(margin, S_ - 1 - margin), x0 = rng_.between(margin, S_ - 1 - margin);
      std::vector<Pixel> drawn;
      if (walk(id, nseg, y0, x0, drawn) && (!target || add_end_discs(id, drawn))) {
        std::vector<int> idx;
        for (const Pixel& p : drawn) idx.push_back(p.y * S_ + p.x);
        paths_.push_back(std::move(idx));
        return true;
      }
      for (const Pixel& p : drawn) owner_[size_t(p.y) * S_ + p.x] = 0;  // undo
    }
    return false;
  }

  // Simulates one dash in direction nd from (py, px) at step `step`: blank
  // steps, then ink steps.  Fills `dash` and returns true if it all fits.
  bool try_dash(int id, int nd, int64_t py, int64_t px, int step, int blank, int ink,
                std::vector<Pixel>& dash) const {
    const StepTable& t = steps();
    dash.clear();
    for (int k = 0; k < blank + ink; ++k) {
      py += t.dy[nd];
      px += t.dx[nd];
      int y = int((py + 32768) >> 16), x = int((px + 32768) >> 16);
      if (!inside(y, x, cfg_.padding)) return false;
      if (k >= blank) {
        if (!free_for(y, x, id, step + k + 1, W_)) return false;
        dash.push_back({y, x});
      }
    }
    return true;
  }

  // Walks nseg dashes from (y0, x0).  Each dash after the first turns by an
  // angle drawn among those that fit, weighted cos^2(90 deg * turn / max_turn)
  // (Linsley's "continuity": mostly straight, bending where it must), skips
  // gap_length steps, then inks dash_length pixels.
  bool walk(int id, int nseg, int y0, int x0, std::vector<Pixel>& drawn) {
    const StepTable& t = steps();
    int dir = rng_.below(360);
    int64_t py = int64_t(y0) << 16, px = int64_t(x0) << 16;
    int step = 0;
    if (!free_for(y0, x0, id, 0, W_)) return false;
    mark(y0, x0, id, 0);
    drawn.push_back({y0, x0});
    std::vector<Pixel> dash;
    for (int seg = 0; seg < nseg; ++seg) {
      const int blank = seg == 0 ? 0 : cfg_.gap_length;
      const int ink = seg == 0 ? cfg_.dash_length - 1 : cfg_.dash_length;
      int nd = dir;
      if (seg > 0) {
        // Draw a turn by weight; one that does not fit is struck off and we
        // draw again: the same law as drawing among the fitting turns.
        std::vector<int> w = turn_weights_;
        int total = total_weight_;
        for (;;) {
          if (total <= 0) return false;
          int r = rng_.below(total), k = 0;
          while (r >= w[size_t(k)]) r -= w[size_t(k++)];
          nd = (dir + turn_offsets_[size_t(k)] + 360) % 360;
          if (try_dash(id, nd, py, px, step, blank, ink, dash)) break;
          total -= w[size_t(k)];
          w[size_t(k)] = 0;
        }
      } else if (!try_dash(id, nd, py, px, step, blank, ink, dash)) {
        return false;
      }
      for (int k = 0; k < blank + ink; ++k) py += t.dy[nd], px += t.dx[nd];
      for (size_t k = 0; k < dash.size(); ++k) mark(dash[k].y, dash[k].x, id, step + blank + 1 + int(k));
      drawn.insert(drawn.end(), dash.begin(), dash.end());
      step += blank + ink;
      dir = nd;
    }
    return true;
  }


  // Reserves marker discs at both ends of a target path: each disc inside
  // the padded image and clear of everything but the path's own nearby ink.
  bool add_end_discs(int id, std::vector<Pixel>& drawn) {
    const int last = step_[size_t(drawn.back().y) * S_ + drawn.back().x];
    const int window = W_ + 2 * R_ + 2;
    const Pixel ends[2] = {drawn.front(), drawn.back()};
    const int end_step[2] = {0, last};
    std::vector<Pixel> reserved;
    for (int e = 0; e < 2; ++e) {
      for (auto [dy, dx] : disc_) {
        int y = ends[e].y + dy, x = ends[e].x + dx;
        if (!inside(y, x, cfg_.padding)) return undo(reserved);
        size_t q = size_t(y) * S_ + x;
        if (owner_[q] == id + 1 && std::abs(step_[q] - end_step[e]) <= window) continue;  // own end
        if (owner_[q] != 0 || !free_for(y, x, id, end_step[e], window)) return undo(reserved);
        mark(y, x, id, end_step[e]);
        reserved.push_back({y, x});
      }
    }
    return true;
  }

  bool undo(const std::vector<Pixel>& reserved) {
    for (const Pixel& p : reserved) owner_[size_t(p.y) * S_ + p.x] = 0;
    return false;
  }

  const PathfinderConfig& cfg_;
  Rng& rng_;
  const int S_, C_, W_, R_;
  std::vector<int16_t> owner_;  // 0 free, else path id + 1 (ink or reserved disc)
  std::vector<int32_t> step_;   // walk step of that ink within its path
  std::vector<std::pair<int, int>> disc_;
  std::vector<int> turn_offsets_, turn_weights_;
  int total_weight_ = 0;
  std::vector<std::vector<int>> paths_;
  int cut_[2] = {-1, -1};  // the dash each target loses if it is the one cut
};

}  // namespace

PathfinderConfig pathfinder_preset(const std::string& difficulty) {
  PathfinderConfig c;
  if (difficulty == "easy") c.path_segments = 6;
  else if (difficulty == "medium") c.path_segments = 9;
  else if (difficulty == "hard") c.path_segments = 14;
  else throw DataError("pathfinder: difficulty '" + difficulty + "', expected easy, medium or hard");
  return c;
}

void validate(const PathfinderConfig& c) {
  auto need = [](bool ok, const char* field, double v, const char* range) {
    if (!ok) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", v);
      throw DataError(std::string("pathfinder: ") + field + " " + buf + ", expected " + range);
    }
  };
  need(c.image_size >= 8 && c.image_size <= 1024, "image_size", c.image_size, "8..1024");
  need(c.path_segments >= 3 && c.path_segments <= 1000, "path_segments", c.path_segments, "3..1000");
  need(c.distractor_segments >= 0 && c.distractor_segments <= 1000, "distractor_segments",
       c.distractor_segments, "0 (auto) or 1..1000");
  need(c.max_distractors >= -1 && c.max_distractors <= 1000, "max_distractors", c.max_distractors,
       "-1 (auto) or 0..1000");
  need(c.dash_length >= 1 && c.dash_length <= 64, "dash_length", c.dash_length, "1..64");
  need(c.gap_length >= 1 && c.gap_length <= 8, "gap_length", c.gap_length, "1..8");
  need(c.max_turn_deg >= 0 && c.max_turn_deg <= 90, "max_turn_deg", c.max_turn_deg, "0..90");
  need(c.marker_radius >= 1 && c.marker_radius <= c.image_size / 4.0, "marker_radius",
       c.marker_radius, "1..image_size/4");
  need(c.padding >= 0 && c.padding < c.image_size / 4, "padding", c.padding, "0..image_size/4");
  need(c.ink >= 1 && c.ink <= 255, "ink", c.ink, "1..255");
  need(c.marker_ink >= 1 && c.marker_ink <= 255, "marker_ink", c.marker_ink, "1..255");
  need(c.max_scene_tries >= 1 && c.max_scene_tries <= 100000, "max_scene_tries", c.max_scene_tries,
       "1..100000");
}

PathfinderSample generate_pathfinder_sample(const PathfinderConfig& cfg, int label, uint64_t seed) {
  validate(cfg);
  if (label != 0 && label != 1) {
    throw DataError("pathfinder: label " + std::to_string(label) + ", expected 0 or 1");
  }
  Rng rng(seed);
  for (int attempt = 0; attempt < cfg.max_scene_tries; ++attempt) {
    Scene scene(cfg, rng);
    if (!scene.build()) continue;
    // The scene is label-blind; only now does the label choose the cut.
    const int x = rng.below(2);                   // the marked target
    const int cut = label == 1 ? 1 - x : x;       // the target that loses a dash
    const std::vector<std::vector<int>>& all = scene.paths();
    auto [first, second] = scene.pieces(cut);
    PathfinderSample out;
    const int S = cfg.image_size;
    out.size = S;
    out.label = label;
    out.paths = {all[size_t(1 - cut)], std::move(first), std::move(second)};
    out.paths.insert(out.paths.end(), all.begin() + 2, all.end());
    // Paths 0 (whole), 1 and 2 (the pieces): X is path 0 when whole, else 1 + 2.
    out.marker[0] = all[size_t(x)].front();
    out.marker[1] = all[size_t(x)].back();
    out.marker_path[0] = label == 1 ? 0 : 1;
    out.marker_path[1] = label == 1 ? 0 : 2;
    out.pixels.assign(size_t(S) * S, 0);
    for (const auto& path : out.paths)
      for (int p : path) out.pixels[size_t(p)] = uint8_t(cfg.ink);
    for (int m : out.marker)
      for (auto [dy, dx] : scene.disc()) out.pixels[size_t(m / S + dy) * S + size_t(m % S + dx)] = uint8_t(cfg.marker_ink);
    return out;
  }
  throw DataError("pathfinder: could not fit 2 paths of " + std::to_string(cfg.path_segments) +
                  " dashes in " + std::to_string(cfg.image_size) + "x" + std::to_string(cfg.image_size) +
                  " after " + std::to_string(cfg.max_scene_tries) +
                  " tries, expected a less crowded config (shorter paths, smaller markers, larger image)");
}

Dataset pathfinder_dataset(int64_t n, int size, const std::function<int64_t(int64_t)>& below,
                           const std::function<std::vector<uint8_t>(int64_t, int)>& draw) {
  std::vector<int32_t> labels(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) labels[size_t(i)] = int32_t(i % 2);
  if (n % 2) labels[size_t(n - 1)] = int32_t(below(2));
  for (int64_t i = n; i > 1; --i) std::swap(labels[size_t(i - 1)], labels[size_t(below(i))]);
  Dataset ds;
  ds.vocab_size = 257;
  ds.num_classes = 2;
  ds.class_names = {"0", "1"};
  ds.height = ds.width = size;
  ds.channels = 1;
  ds.seqs.resize(size_t(n));
  ds.labels = labels;
  // An error inside the loop is rethrown after it, and once one image has
  // failed the others are skipped (a configuration too crowded to draw would
  // otherwise spend its tries on every one of n images).
  std::exception_ptr error;
  std::atomic<bool> failed{false};
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t i = 0; i < n; ++i) {
    if (failed.load(std::memory_order_relaxed)) continue;
    try {
      const std::vector<uint8_t> px = draw(i, labels[size_t(i)]);
      std::vector<int32_t>& seq = ds.seqs[size_t(i)];
      seq.resize(px.size());
      for (size_t p = 0; p < px.size(); ++p) seq[p] = int32_t(px[p]) + 1;  // 0 is padding
    } catch (...) {
      failed.store(true, std::memory_order_relaxed);
#pragma omp critical(pathfinder_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return ds;
}

Dataset generate_pathfinder(const PathfinderConfig& cfg, int n, uint64_t seed) {
  validate(cfg);
  if (n < 0) throw DataError("pathfinder: n " + std::to_string(n) + ", expected >= 0");
  Rng rng(derive(seed, ~0ull));
  return pathfinder_dataset(
      n, cfg.image_size, [&](int64_t k) { return int64_t(rng.below(int(k))); },
      [&](int64_t i, int label) { return generate_pathfinder_sample(cfg, label, derive(seed, uint64_t(i))).pixels; });
}

Splits generate_pathfinder_splits(const PathfinderConfig& cfg, int n_train, int n_val, int n_test,
                                  uint64_t seed) {
  Splits s;
  s.train = generate_pathfinder(cfg, n_train, derive(seed, 0x7261696E));  // independent streams
  s.val = generate_pathfinder(cfg, n_val, derive(seed, 0x76616C));
  s.test = generate_pathfinder(cfg, n_test, derive(seed, 0x74657374));
  return s;
}

Splits generate_pathfinder_splits(const PathfinderConfig& cfg, int n, uint64_t seed) {
  if (n < 0) throw DataError("pathfinder: n " + std::to_string(n) + ", expected >= 0");
  return generate_pathfinder_splits(cfg, n - 2 * (n / 10), n / 10, n / 10, seed);
}

void write_pathfinder_folder(const PathfinderConfig& cfg, int n, uint64_t seed,
                             const std::string& out_dir) {
  std::ostringstream meta;
  meta << "n " << n << "\nseed " << seed << "\nimage_size " << cfg.image_size << "\npath_segments "
       << cfg.path_segments << "\ndistractor_segments " << default_distractor_segments(cfg)
       << "\nmax_distractors " << default_max_distractors(cfg) << "\ndash_length " << cfg.dash_length
       << "\ngap_length " << cfg.gap_length << "\nmax_turn_deg " << cfg.max_turn_deg
       << "\nmarker_radius " << cfg.marker_radius << "\npadding " << cfg.padding << "\nink " << cfg.ink
       << "\nmarker_ink " << cfg.marker_ink << "\n";
  write_pathfinder_splits_png(generate_pathfinder_splits(cfg, n, seed), out_dir, meta.str());
}

void write_pathfinder_splits_png(const Splits& s, const std::string& out_dir, const std::string& meta) {
  namespace fs = std::filesystem;
  const size_t total = s.train.size() + s.val.size() + s.test.size();
  const int digits = std::max(5, int(std::to_string(std::max<size_t>(total, 1)).size()));
  const std::pair<const char*, const Dataset*> splits[3] = {{"train", &s.train}, {"val", &s.val}, {"test", &s.test}};
  for (const auto& [name, ds] : splits) {
    if (ds->size() && ds->channels != 1) {
      throw DataError(std::string("pathfinder: ") + name + " has " + std::to_string(ds->channels) +
                      " channels, expected 1");
    }
    for (const char* cls : {"0", "1"}) {
      std::error_code ec;
      fs::path dir = fs::path(out_dir) / name / cls;
      fs::create_directories(dir, ec);
      if (ec) throw DataError("pathfinder: " + dir.string() + ": cannot create (" + ec.message() + ")");
    }
    std::vector<uint8_t> px;
    for (size_t i = 0; i < ds->size(); ++i) {
      px.resize(ds->seqs[i].size());
      for (size_t p = 0; p < px.size(); ++p) px[p] = uint8_t(ds->seqs[i][p] - 1);
      std::string num = std::to_string(i);
      num.insert(0, size_t(std::max(0, digits - int(num.size()))), '0');
      write_png(out_dir + "/" + name + "/" + std::to_string(ds->labels[i]) + "/" + num + ".png", px.data(),
                ds->width, ds->height, 1);
    }
  }
  std::ofstream f(out_dir + "/pathfinder.txt");
  f << "# Pathfinder images written by attnzoo (label 1 = markers on one path)\n"
    << meta << "splits train " << s.train.size() << " val " << s.val.size() << " test " << s.test.size() << "\n";
  if (!f) throw DataError("pathfinder: " + out_dir + "/pathfinder.txt: write failed");
}


}  // namespace az
