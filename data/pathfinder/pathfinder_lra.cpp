// Linsley's snakes generator with LRA's Pathfinder-32 arguments; see
// pathfinder_lra.h for the construction and where it departs from snakes2.py.
// Cost per image: a few hundred paddle placements of a 9x9 patch each, plus
// one occupancy scan of the S x S mask per seed (~3,500 images/s of CPU time
// on one core of a Xeon Sapphire Rapids).
#include "data/pathfinder/pathfinder_lra.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "autograd/tensor.h"  // az::Rng, hash64
#include "data/pathfinder/pathfinder.h"  // pathfinder_dataset
#include "data/pathfinder/pathfinder_lra_draw.h"

namespace az {
namespace {

using lra_draw::Paddle;
using lra_draw::Pt;
using lra_draw::flip_by_pi;
using lra_draw::kPi;
using lra_draw::translate;

}  // namespace

struct LraPathfinderGenerator::Impl {
  LraPathfinderConfig cfg;
  int S, L, m, aa, h, P, c, R;          // image, paddle, margin, aa scale, patch half/size, blown centre, head reach
  int n_distractors, distractor_length, n_single;
  std::vector<Paddle> paddles;          // by head offset (dy + R) * (2R + 1) + (dx + R), blown pixels
  std::vector<float> marker;            // (2 * mh + 1)^2 disc around its centre
  int mh = 0;
  std::vector<double> circle_sin, circle_cos;  // get_coords_cmf's sample angles
  // get_coords_cmf's candidates, relative to the pivot: floor(step * sin/cos)
  // of the circle's angles (the image is >= 0 wherever a candidate survives),
  // unique and sorted as np.unique sorts them.
  struct Cand {
    Pt off;
    double orient;            // atan2 of the offset
    const Paddle* paddle;     // drawn from the candidate back towards the pivot
    std::vector<int> angles;  // circle angles that land on it (any in bounds keeps it)
  };
  std::vector<Cand> cands;
  // A snake's heading is a state: 0..359 a seed's degrees -180..179, 360 + u
  // candidate u's orientation.  Per state: sin, cos, and cos^2 weight per candidate.
  std::vector<double> st_theta, st_sin, st_cos, st_weight;
  int nstate() const { return int(st_theta.size()); }
  int fp_reach = 0;                        // largest footprint offset
  std::vector<std::vector<Pt>> first_free; // per paddle: free starts of the first seed (fresh mask)
  std::vector<uint8_t> seed_void;          // per paddle: its seed test finds no free pixel anywhere (see seed_voids)

  explicit Impl(const LraPathfinderConfig& c_) : cfg(c_) {
    validate(cfg);
    S = cfg.image_size, L = cfg.paddle_length, m = cfg.paddle_margin, aa = cfg.antialias_scale;
    h = shape().half();
    P = 2 * h + 1;
    c = h * aa;
    R = L * aa + 1;
    distractor_length = cfg.distractor_length > 0 ? cfg.distractor_length : std::max(1, cfg.contour_length / 3);
    n_distractors = cfg.num_distractor_snakes >= 0 ? cfg.num_distractor_snakes : 20 / distractor_length;
    // snakes2: total_num_paddles = int(150 / ((7.5 + 13 m + 4 m^2) / 123.5)) minus the snakes' paddles.
    n_single = cfg.single_paddles >= 0
                   ? cfg.single_paddles
                   : std::max(0, int(150.0 / ((7.5 + 13.0 * m + 4.0 * m * m) / 123.5)) - 2 * cfg.contour_length -
                                     n_distractors * distractor_length);
    paddles.resize(size_t(2 * R + 1) * (2 * R + 1));
    for (int dy = -R; dy <= R; ++dy)
      for (int dx = -R; dx <= R; ++dx) paddles[key(dy, dx)] = lra_draw::draw_paddle(shape(), dy, dx);
    marker = lra_draw::draw_marker(cfg.marker_radius, aa, &mh);
    const double step = cfg.paddle_length + cfg.paddle_margin;
    const double deg_per_pixel = 360.0 / (2 * step * kPi);
    for (int k = 0; k * deg_per_pixel < 360.0; ++k) {  // np.arange(0, 360, deg_per_pixel)
      circle_sin.push_back(std::sin(k * deg_per_pixel * kPi / 180));
      circle_cos.push_back(std::cos(k * deg_per_pixel * kPi / 180));
    }
    for (size_t k = 0; k < circle_sin.size(); ++k) {
      const Pt off{int(std::floor(step * circle_sin[k])), int(std::floor(step * circle_cos[k]))};
      auto it = std::find_if(cands.begin(), cands.end(), [&](const Cand& q) { return q.off.y == off.y && q.off.x == off.x; });
      if (it == cands.end()) {
        const double o = std::atan2(double(off.y), double(off.x));
        cands.push_back({off, o, &paddle(flip_by_pi(o)), {}});
        it = cands.end() - 1;
      }
      it->angles.push_back(int(k));
    }
    std::sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.off.y != b.off.y ? a.off.y < b.off.y : a.off.x < b.off.x; });
    for (int d = -180; d < 180; ++d) st_theta.push_back(d * kPi / 180);
    for (const Cand& q : cands) st_theta.push_back(q.orient);
    for (double t : st_theta) {
      st_sin.push_back(std::sin(t));
      st_cos.push_back(std::cos(t));
      for (const Cand& q : cands) {
        double d = std::fabs(q.orient - t);
        d = std::min(std::min(d, 2 * kPi - d) * cfg.continuity, 0.5 * kPi);
        const double cd = std::max(std::cos(d), 0.0);
        st_weight.push_back(cd * cd);
      }
    }
    // The first seed always sees the fresh mask with a 2 * seed_distance band
    // blocked, so its free starts depend on the paddle alone: computed once.
    std::vector<float> lined = fresh_mask();
    const int band = std::min(2 * cfg.seed_distance, S);
    for (int y = 0; y < S; ++y)
      for (int x = 0; x < S; ++x)
        if (y < band || y >= S - band || x < band || x >= S - band) lined[size_t(y) * S + x] = 1;
    for (const Paddle& pd : paddles)
      for (const Pt& o : pd.footprint) fp_reach = std::max({fp_reach, std::abs(o.y), std::abs(o.x)});
    first_free.resize(paddles.size());
    for (size_t k = 0; k < paddles.size(); ++k) free_starts(lined, paddles[k], first_free[k]);
    seed_void = seed_voids();
  }

  // cv2.dilate of snakes2's float64 mask pads with -DBL_MAX: a pixel whose
  // every footprint tap falls outside the image comes out -DBL_MAX, and
  // find_available_coordinates, seeing a value below 0, reports no free
  // pixel at all.  So a seed drawn with such a paddle fails, whatever the
  // mask holds.  At LRA-32's sizes that is 330 of the 360 seed orientations
  // (all but -150..-121 degrees): distractors are often left out, and the
  // first target always starts in that range.
  std::vector<uint8_t> seed_voids() const {
    std::vector<uint8_t> v(paddles.size(), 0);
    for (size_t k = 0; k < paddles.size(); ++k)
      for (int y = 0; y < S && !v[k]; ++y)
        for (int x = 0; x < S && !v[k]; ++x) {
          bool any = false;
          for (const Pt& o : paddles[k].footprint) any = any || (inside({y + o.y, x + o.x}));
          v[k] = !any;
        }
    return v;
  }

  std::vector<float> fresh_mask() const {
    std::vector<float> mask(size_t(S) * S);
    const int p = cfg.padding;
    for (int y = 0; y < S; ++y)
      for (int x = 0; x < S; ++x) mask[size_t(y) * S + x] = (y < p || y >= S - p || x < p || x >= S - p) ? 1.0f : 0.0f;
    return mask;
  }

  // The starts whose footprint misses every pixel of `lined` above 0.3
  // (cv2.dilate by the footprint, then np.ceil(m - 0.3) == 0), row-major.
  // Pixels outside the image never block (cv2's -DBL_MAX border), so the
  // blocked map is padded by `fp_reach` free pixels and read without bounds
  // checks.  (Where no tap is inside at all, see seed_voids.)
  void free_starts(const std::vector<float>& lined, const Paddle& pd, std::vector<Pt>& avail) const {
    const int Wp = S + 2 * fp_reach;
    thread_local std::vector<uint8_t> blocked;
    blocked.assign(size_t(Wp) * Wp, 0);
    for (int y = 0; y < S; ++y)
      for (int x = 0; x < S; ++x) blocked[size_t(y + fp_reach) * Wp + x + fp_reach] = lined[size_t(y) * S + x] > 0.3f;
    thread_local std::vector<long> offs;
    offs.clear();
    for (const Pt& o : pd.footprint) offs.push_back(long(o.y) * Wp + o.x);
    avail.resize(size_t(S) * S);
    size_t n = 0;
    for (int y = 0; y < S; ++y) {
      const uint8_t* row = &blocked[size_t(y + fp_reach) * Wp + fp_reach];
      for (int x = 0; x < S; ++x) {
        bool ok = true;
        for (long o : offs)
          if (row[x + o]) {
            ok = false;
            break;
          }
        if (ok) avail[n++] = {y, x};
      }
    }
    avail.resize(n);
  }

  lra_draw::PaddleShape shape() const { return {L, m, aa, cfg.paddle_thickness}; }
  size_t key(int dy, int dx) const { return size_t(dy + R) * size_t(2 * R + 1) + size_t(dx + R); }
  // draw_line_n_mask's head on the blown canvas, relative to its centre.
  const Paddle& paddle(double theta) const {
    Pt hd = translate({c, c}, theta, double(L * aa));
    return paddles[key(hd.y - c, hd.x - c)];
  }


  bool inside(Pt p) const { return p.y >= 0 && p.x >= 0 && p.y < S && p.x < S; }

  // Puts a P x P patch (times scale) centred at p into img by max.
  void stamp(std::vector<float>& img, const std::vector<float>& patch, Pt p, float scale, int half) const {
    const int n = 2 * half + 1;
    for (int pr = 0; pr < n; ++pr) {
      const int y = p.y + pr - half;
      if (y < 0 || y >= S) continue;
      for (int pc = 0; pc < n; ++pc) {
        const int x = p.x + pc - half;
        if (x < 0 || x >= S) continue;
        float& d = img[size_t(y) * S + x];
        d = std::max(d, patch[size_t(pr) * n + pc] * scale);
      }
    }
  }

  // One growing snake.
  struct Snake {
    Pt tail, pivot, head;
    int state = 0;  // heading, see st_theta
    int seed_state = 0;  // the first paddle's heading (0..359)
    const Paddle* last = nullptr;  // the previous paddle's mask enters the occupancy one step late
    Pt last_at;
    std::vector<int> heads;
  };

  // seed_snake / the first seed of initialize_two_seeds: a free start whose
  // footprint misses `lined` (occupancy plus a blocked border), redrawn when
  // the head or pivot falls outside the image.
  // lined == nullptr: the first target's seed (free starts precomputed).
  bool seed(const std::vector<float>* lined, Rng& rng, Snake& s, std::vector<Pt>& scratch) const {
    for (int trial = 0; trial <= cfg.max_paddle_retrial;) {
      const int state = int(rng.randint(360));
      const double theta = st_theta[size_t(state)];
      const Paddle& pd = paddle(theta);
      const size_t k = size_t(&pd - paddles.data());
      if (seed_void[k]) return false;  // cv2's -DBL_MAX border: no free pixel (seed_voids)
      const std::vector<Pt>* avail = &first_free[k];
      if (lined) free_starts(*lined, pd, scratch), avail = &scratch;
      if (avail->empty()) return false;  // snakes2 gives up at once here
      const Pt tail = (*avail)[size_t(rng.randint(int64_t(avail->size())))];
      const Pt head = translate(tail, theta, L), pivot = translate(head, flip_by_pi(theta), L + m);
      if (!inside(head) || !inside(pivot)) {
        ++trial;
        continue;
      }
      s = Snake();
      s.tail = tail, s.head = head, s.pivot = pivot, s.state = s.seed_state = state;
      return true;
    }
    return false;
  }

  void start(Snake& s, std::vector<float>& ink, float contrast) const {
    const Paddle& pd = paddle(st_theta[size_t(s.state)]);
    stamp(ink, pd.ink, s.tail, contrast, h);
    s.last = &pd;
    s.last_at = s.tail;
  }

  // snakes.extend_snake: one more paddle from the pivot ahead.
  bool extend(Snake& s, std::vector<float>& mask, std::vector<float>& ink, float contrast, Rng& rng) const {
    const double reach = L + 2 * m, step = L + m;
    const Pt np{int(std::ceil(s.pivot.y + reach * st_sin[size_t(s.state)])),
                int(std::ceil(s.pivot.x + reach * st_cos[size_t(s.state)]))};
    const size_t nc = cands.size();
    const double* weight = &st_weight[size_t(s.state) * nc];
    double cmf[64];
    int idx_of[64], n = 0;
    double total = 0;
    const bool interior = np.y > step && np.x > step && np.y + step + 1 < S && np.x + step + 1 < S;
    for (size_t u = 0; u < nc && n < 64; ++u) {
      const Cand& q = cands[u];
      bool in = interior;  // kept when one of its circle points is inside the image
      for (int k : q.angles) {
        if (in) break;
        const double fy = np.y + step * circle_sin[size_t(k)], fx = np.x + step * circle_cos[size_t(k)];
        in = in || (fy >= 0 && fy < S && fx >= 0 && fx < S);
      }
      if (!in) continue;
      const int cy = np.y + q.off.y, cx = np.x + q.off.x;
      // Occupancy dilated by a disc of radius margin (3x3 cross at margin 1).
      float dil = 0;
      if (m == 1 && cy > 0 && cx > 0 && cy + 1 < S && cx + 1 < S) {
        const float* c0 = &mask[size_t(cy) * S + cx];
        dil = std::max({c0[0], c0[-1], c0[1], c0[-S], c0[S]});
      } else {
        for (int oy = -m; oy <= m; ++oy)
          for (int ox = -m; ox <= m; ++ox) {
            const int yy = cy + oy, xx = cx + ox;
            if (oy * oy + ox * ox <= m * m && yy >= 0 && xx >= 0 && yy < S && xx < S)
              dil = std::max(dil, mask[size_t(yy) * S + xx]);
          }
      }
      total += (1.0 - dil) * weight[u];
      cmf[n] = total;
      idx_of[n++] = int(u);
    }
    if (n == 0 || total < 1e-4) return false;
    for (int j = 0; j < n; ++j) cmf[j] /= total;
    for (int trial = 0; trial <= cfg.max_paddle_retrial; ++trial) {
      const double r = double(rng.next_u64() >> 11) * 0x1.0p-53;
      int j = 0;
      while (j < n && !(cmf[j] - r > 0)) ++j;
      if (j == n) j = 0;  // np.argmax of all-False
      const Cand& q = cands[size_t(idx_of[j])];
      const Pt at{np.y + q.off.y, np.x + q.off.x};
      const Paddle& pd = *q.paddle;
      bool clear = true;  // np.max(mask + m_im) < 1.8
      for (int i : pd.hot) {
        const int y = at.y + i / P - h, x = at.x + i % P - h;
        if (y >= 0 && x >= 0 && y < S && x < S && !(mask[size_t(y) * S + x] + pd.mask[size_t(i)] < 1.8f)) {
          clear = false;
          break;
        }
      }
      if (!clear) continue;
      stamp(ink, pd.ink, at, contrast, h);
      stamp(mask, s.last->mask, s.last_at, 1.0f, h);
      s.last = &pd;
      s.last_at = at;
      s.pivot = np;
      s.state = 360 + idx_of[j];
      s.head = at;
      s.heads.push_back(at.y * S + at.x);
      return true;
    }
    return false;
  }

  // snakes.make_snake: a seed and length - 1 extensions, or nothing.
  bool make_snake(int length, std::vector<float>& mask, std::vector<float>& ink, Rng& rng,
                  std::vector<float>& lined, std::vector<Pt>& avail) const {
    int raw_free = 0;  // stop_with_availability = 0.01
    for (float v : mask) raw_free += v <= 0.3f;
    if (double(raw_free) / (double(S) * S) < 0.01) return false;
    lined = mask;
    for (int i = 0; i < S; ++i) lined[size_t(i)] = lined[size_t(S - 1) * S + i] = lined[size_t(i) * S] = lined[size_t(i) * S + S - 1] = 1;
    Snake s;
    if (!seed(&lined, rng, s, avail)) return false;
    start(s, ink, float(cfg.snake_contrast));
    for (int k = 1; k < length; ++k)
      if (!extend(s, mask, ink, float(cfg.snake_contrast), rng)) return false;
    stamp(mask, s.last->mask, s.last_at, 1.0f, h);
    return true;
  }

  // make_many_snakes with allow_incomplete: each snake gets 1 + retrial tries.
  int many_snakes(int count, int length, int retrial, std::vector<float>& mask, std::vector<float>& ink,
                  Rng& rng) const {
    std::vector<float> mask0, ink0, lined;
    std::vector<Pt> avail;
    int drawn = 0;
    for (int k = 0; k < count; ++k)
      for (int t = 0; t <= retrial; ++t) {
        mask0 = mask, ink0 = ink;
        if (make_snake(length, mask, ink, rng, lined, avail)) {
          ++drawn;
          break;
        }
        mask.swap(mask0), ink.swap(ink0);
      }
    return drawn;
  }

  // two_snakes: both targets or nothing.
  bool two_snakes(std::vector<float>& mask, std::array<std::vector<float>, 2>& ink, Snake (&sn)[2], Rng& rng,
                  std::vector<float>& lined, std::vector<Pt>& avail) const {
    const float contrast = float(cfg.snake_contrast * cfg.paddle_contrast);
    const int sd = cfg.seed_distance;
    if (!seed(nullptr, rng, sn[0], avail)) return false;
    start(sn[0], ink[0], contrast);
    // The second seed: seed_distance from the first at a random angle, not
    // checked against anything but the image (snakes2 checks head and pivot).
    int trial = 0;
    for (; trial <= cfg.max_paddle_retrial; ++trial) {
      const int state = int(rng.randint(360));
      const double theta = st_theta[size_t(state)];
      const double a = double(rng.randint(360)) * kPi / 180;
      const Pt tail{int(std::nearbyint(sn[0].tail.y + sd * std::sin(a))), int(std::nearbyint(sn[0].tail.x + sd * std::cos(a)))};
      const Pt head = translate(tail, theta, L), pivot = translate(head, flip_by_pi(theta), L + m);
      if (inside(tail) && inside(head) && inside(pivot)) {
        sn[1] = Snake();
        sn[1].tail = tail, sn[1].head = head, sn[1].pivot = pivot, sn[1].state = sn[1].seed_state = state;
        break;
      }
    }
    if (trial > cfg.max_paddle_retrial) return false;
    start(sn[1], ink[1], contrast);
    for (int k = 1; k < cfg.contour_length; ++k)
      for (int t = 0; t < 2; ++t)
        if (!extend(sn[t], mask, ink[size_t(t)], contrast, rng)) return false;
    stamp(mask, sn[1].last->mask, sn[1].last_at, 1.0f, h);  // only the second snake's (snakes2)
    return true;
  }

  LraPathfinderSample sample(int label, uint64_t seed_value) const {
    if (label != 0 && label != 1) throw DataError("pathfinder-lra: label " + std::to_string(label) + ", expected 0 or 1");
    Rng rng(seed_value);
    const size_t N = size_t(S) * S;
    std::vector<float> mask(N), lined;
    std::array<std::vector<float>, 2> ink;
    std::vector<float> distract(N, 0.0f), marks(N, 0.0f);
    std::vector<Pt> avail;
    Snake sn[2];
    LraPathfinderSample out;
    bool ok = false;
    const std::vector<float> fresh = fresh_mask();
    while (!ok && out.scene_tries < cfg.max_scene_tries) {
      ++out.scene_tries;
      mask = fresh;
      ink[0].assign(N, 0.0f);
      ink[1].assign(N, 0.0f);
      ok = two_snakes(mask, ink, sn, rng, lined, avail);
    }
    if (!ok) {
      throw DataError("pathfinder-lra: could not fit 2 snakes of " + std::to_string(cfg.contour_length) +
                      " paddles in " + std::to_string(S) + "x" + std::to_string(S) + " after " +
                      std::to_string(cfg.max_scene_tries) +
                      " tries, expected a less crowded config (shorter snakes, larger image)");
    }
    out.distractors_drawn = many_snakes(n_distractors, distractor_length, cfg.max_distractor_retrial, mask, distract, rng);
    if (n_single > 0) many_snakes(n_single, 1, cfg.max_paddle_retrial, mask, distract, rng);
    // Markers: the origin of a random target, and the end of the same one
    // (label 1) or of the other (label 0).
    const int origin = int(rng.randint(2)), terminal = label == 1 ? origin : 1 - origin;
    const Pt at[2] = {sn[origin].tail, sn[terminal].head};
    for (const Pt& q : at) stamp(marks, marker, q, 1.0f, mh);
    // scipy.misc.imsave: bytescale from the image's min to its max.
    float lo = 1e30f, hi = -1e30f;
    for (size_t i = 0; i < N; ++i) {
      const float v = std::max({ink[0][i], ink[1][i], distract[i], marks[i]});
      lo = std::min(lo, v), hi = std::max(hi, v);
    }
    const double scale = 255.0 / (hi > lo ? double(hi) - lo : 1.0);
    auto byte = [&](float v) { return uint8_t(std::min(255.0, std::max(0.0, (double(v) - lo) * scale)) + 0.5); };
    auto bytes = [&](const std::vector<float>& v) {
      std::vector<uint8_t> b(N);
      for (size_t i = 0; i < N; ++i) b[i] = byte(v[i]);
      return b;
    };
    out.size = S;
    out.label = label;
    out.target_ink = {bytes(ink[0]), bytes(ink[1])};
    out.distractor_ink = bytes(distract);
    out.marker_ink = bytes(marks);
    out.pixels.resize(N);
    for (size_t i = 0; i < N; ++i)
      out.pixels[i] = std::max({out.target_ink[0][i], out.target_ink[1][i], out.distractor_ink[i], out.marker_ink[i]});
    out.marker[0] = at[0].y * S + at[0].x;
    out.marker[1] = at[1].y * S + at[1].x;
    out.marker_snake[0] = origin;
    out.marker_snake[1] = terminal;
    for (int t = 0; t < 2; ++t) out.paddle_heads[size_t(t)] = sn[t].heads, out.seed_degrees[t] = sn[t].seed_state - 180;
    return out;
  }
};

LraPathfinderGenerator::LraPathfinderGenerator(const LraPathfinderConfig& cfg) : impl_(new Impl(cfg)) {}
LraPathfinderGenerator::~LraPathfinderGenerator() = default;
LraPathfinderSample LraPathfinderGenerator::sample(int label, uint64_t seed) const { return impl_->sample(label, seed); }
const LraPathfinderConfig& LraPathfinderGenerator::config() const { return impl_->cfg; }

LraPathfinderConfig lra_pathfinder_preset(const std::string& difficulty) {
  LraPathfinderConfig c;
  if (difficulty == "easy") c.contour_length = 6;
  else if (difficulty == "medium") c.contour_length = 9;
  else if (difficulty == "hard") c.contour_length = 14;
  else throw DataError("pathfinder-lra: difficulty '" + difficulty + "', expected easy, medium or hard");
  return c;
}

void validate(const LraPathfinderConfig& c) {
  auto need = [](bool ok, const char* field, double v, const char* range) {
    if (!ok) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", v);
      throw DataError(std::string("pathfinder-lra: ") + field + " " + buf + ", expected " + range);
    }
  };
  need(c.image_size >= 8 && c.image_size <= 1024, "image_size", c.image_size, "8..1024");
  need(c.padding >= 1 && c.padding <= c.image_size / 4, "padding", c.padding, "1..image_size/4");
  need(c.contour_length >= 1 && c.contour_length <= 1000, "contour_length", c.contour_length, "1..1000");
  need(c.distractor_length >= 0 && c.distractor_length <= 1000, "distractor_length", c.distractor_length,
       "0 (contour_length / 3) or 1..1000");
  need(c.num_distractor_snakes >= -1 && c.num_distractor_snakes <= 1000, "num_distractor_snakes",
       c.num_distractor_snakes, "-1 (20 / distractor_length) or 0..1000");
  need(c.paddle_length >= 1 && c.paddle_length <= 16, "paddle_length", c.paddle_length, "1..16");
  need(c.paddle_thickness > 0 && c.paddle_thickness <= 8, "paddle_thickness", c.paddle_thickness, "(0, 8]");
  need(c.antialias_scale >= 1 && c.antialias_scale <= 8, "antialias_scale", c.antialias_scale, "1..8");
  const double blown = c.paddle_thickness * c.antialias_scale;
  need(std::fabs(blown - std::round(blown)) < 1e-9, "paddle_thickness", c.paddle_thickness,
       "a multiple of 1/antialias_scale (snakes2: 'thickness does not break even')");
  need(c.paddle_margin >= 0 && c.paddle_margin <= 8, "paddle_margin", c.paddle_margin, "0..8");
  need(c.seed_distance >= 1 && c.seed_distance <= c.image_size / 2, "seed_distance", c.seed_distance, "1..image_size/2");
  need(c.continuity >= 0 && c.continuity <= 100, "continuity", c.continuity, "0..100");
  need(c.marker_radius >= 0.5 && c.marker_radius <= c.image_size / 4.0, "marker_radius", c.marker_radius,
       "0.5..image_size/4");
  need(c.snake_contrast > 0 && c.snake_contrast <= 100, "snake_contrast", c.snake_contrast, "(0, 100]");
  need(c.paddle_contrast > 0 && c.paddle_contrast <= 100, "paddle_contrast", c.paddle_contrast, "(0, 100]");
  need(c.max_paddle_retrial >= 0 && c.max_paddle_retrial <= 100, "max_paddle_retrial", c.max_paddle_retrial, "0..100");
  need(c.max_distractor_retrial >= 0 && c.max_distractor_retrial <= 100, "max_distractor_retrial",
       c.max_distractor_retrial, "0..100");
  need(c.single_paddles >= -1 && c.single_paddles <= 100000, "single_paddles", c.single_paddles,
       "-1 (snakes2's count), 0 (off) or up to 100000");
  need(c.max_scene_tries >= 1 && c.max_scene_tries <= 1000000, "max_scene_tries", c.max_scene_tries, "1..1000000");
}

Dataset generate_lra_pathfinder(const LraPathfinderConfig& cfg, int64_t n, uint64_t seed) {
  if (n < 0) throw DataError("pathfinder-lra: n " + std::to_string(n) + ", expected >= 0");
  const LraPathfinderGenerator gen(cfg);
  Rng rng(hash64(seed ^ 0x6C6162656C73ull));  // the labels' own stream
  return pathfinder_dataset(
      n, cfg.image_size, [&](int64_t k) { return int64_t(rng.randint(k)); },
      [&](int64_t i, int label) { return gen.sample(label, hash64(seed * 0x9E3779B97F4A7C15ull + uint64_t(i))).pixels; });
}

}  // namespace az
