// Drawing for the LRA-style generator, as snakes2.py's libraries draw:
// PIL's 1-px line and Lanczos-3 resampling (8-bit, horizontal pass first),
// cv2's dilation by a disc, and the marker disc.  See pathfinder_lra_draw.h.
#include "data/pathfinder/pathfinder_lra_draw.h"

#include <algorithm>
#include <cmath>

namespace az {
namespace lra_draw {

Pt translate(Pt p, double theta, double dist) {
  return {int(std::ceil(p.y + dist * std::sin(theta))), int(std::ceil(p.x + dist * std::cos(theta)))};
}

int PaddleShape::half() const { return L + int(std::ceil(thickness)) + m; }

namespace {
// PIL's Lanczos-3 (ImagingResample): the weights of every input pixel for
// each output pixel along one axis, normalised, support widened by the scale.
struct Taps {
  int first;
  std::vector<double> w;
};
double lanczos3(double x) {
  auto sinc = [](double t) { return t == 0 ? 1.0 : std::sin(kPi * t) / (kPi * t); };
  return std::fabs(x) < 3 ? sinc(x) * sinc(x / 3) : 0.0;
}
std::vector<Taps> pil_taps(int in, int out) {
  const double scale = double(in) / out, fs = std::max(scale, 1.0), support = 3.0 * fs;
  std::vector<Taps> taps(static_cast<size_t>(out));
  for (int o = 0; o < out; ++o) {
    const double center = (o + 0.5) * scale;
    const int lo = std::max(int(center - support + 0.5), 0);
    const int hi = std::min(int(center + support + 0.5), in);
    Taps& t = taps[size_t(o)];
    t.first = lo;
    double sum = 0;
    for (int i = lo; i < hi; ++i) {
      t.w.push_back(lanczos3((i - center + 0.5) / fs));
      sum += t.w.back();
    }
    if (sum != 0)
      for (double& w : t.w) w /= sum;
  }
  return taps;
}

}  // namespace

// An 8-bit square image (n x n) resized to m x m as PIL does for mode "L":
// horizontal pass, rounded to 8 bits, then vertical pass.
std::vector<uint8_t> pil_resize(const std::vector<uint8_t>& img, int n, int m) {
  const std::vector<Taps> taps = pil_taps(n, m);
  auto clip8 = [](double v) { return uint8_t(std::min(255.0, std::max(0.0, std::floor(v + 0.5)))); };
  std::vector<uint8_t> mid(size_t(n) * m), out(size_t(m) * m);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < m; ++x) {
      const Taps& t = taps[size_t(x)];
      double s = 0;
      for (size_t k = 0; k < t.w.size(); ++k) s += t.w[k] * img[size_t(y) * n + size_t(t.first) + k];
      mid[size_t(y) * m + x] = clip8(s);
    }
  for (int y = 0; y < m; ++y)
    for (int x = 0; x < m; ++x) {
      const Taps& t = taps[size_t(y)];
      double s = 0;
      for (size_t k = 0; k < t.w.size(); ++k) s += t.w[k] * mid[(size_t(t.first) + k) * m + x];
      out[size_t(y) * m + x] = clip8(s);
    }
  return out;
}

Paddle draw_paddle(const PaddleShape& g, int dy, int dx) {
  const int L = g.L, m = g.m, aa = g.aa, h = g.half(), P = 2 * h + 1, c = h * aa;
  const int B = 2 * c + 1, w = int(std::lround(g.thickness * aa));
  std::vector<uint8_t> blown(size_t(B) * B, 0);
  auto put = [&](int y, int x) {
    if (y >= 0 && x >= 0 && y < B && x < B) blown[size_t(y) * B + x] = 255;
  };
  if (w <= 1) {
    // PIL's line (Draw.c): Bresenham from the start, end point excluded,
    // then ImageDraw's "draw last point".
    int x0 = c, y0 = c, ddx = std::abs(dx), ddy = std::abs(dy);
    const int xs = dx < 0 ? -1 : 1, ys = dy < 0 ? -1 : 1;
    if (ddx == 0) {
      for (int i = 0; i < ddy; ++i, y0 += ys) put(y0, x0);
    } else if (ddy == 0) {
      for (int i = 0; i < ddx; ++i, x0 += xs) put(y0, x0);
    } else if (ddx > ddy) {
      int e = 2 * ddy - ddx;
      for (int i = 0; i < ddx; ++i) {
        put(y0, x0);
        if (e >= 0) y0 += ys, e -= 2 * ddx;
        e += 2 * ddy;
        x0 += xs;
      }
    } else {
      int e = 2 * ddx - ddy;
      for (int i = 0; i < ddy; ++i) {
        put(y0, x0);
        if (e >= 0) x0 += xs, e -= 2 * ddy;
        e += 2 * ddx;
        y0 += ys;
      }
    }
    put(c + dy, c + dx);
  } else {
    // Wide line: pixels within w / 2 of the segment (PIL draws a polygon).
    const double len2 = double(dy) * dy + double(dx) * dx;
    for (int y = 0; y < B; ++y)
      for (int x = 0; x < B; ++x) {
        double t = len2 > 0 ? std::clamp(((y - c) * dy + (x - c) * dx) / len2, 0.0, 1.0) : 0.0;
        double ey = y - c - t * dy, ex = x - c - t * dx;
        if (ey * ey + ex * ex <= w * w / 4.0) put(y, x);
      }
  }
  // The mask: the blown line dilated by a disc of radius margin * aa (cv2.dilate).
  const int r = m * aa;
  std::vector<uint8_t> dil(size_t(B) * B, 0);
  for (int y = 0; y < B; ++y)
    for (int x = 0; x < B; ++x) {
      if (!blown[size_t(y) * B + x]) continue;
      for (int oy = -r; oy <= r; ++oy)
        for (int ox = -r; ox <= r; ++ox)
          if (oy * oy + ox * ox <= r * r && y + oy >= 0 && x + ox >= 0 && y + oy < B && x + ox < B)
            dil[size_t(y + oy) * B + x + ox] = 255;
    }
  const std::vector<uint8_t> ink8 = pil_resize(blown, B, P), mask8 = pil_resize(dil, B, P);
  Paddle p;
  p.ink.resize(ink8.size());
  p.mask.resize(mask8.size());
  for (size_t i = 0; i < ink8.size(); ++i) p.ink[i] = float(ink8[i]) / 255.0f, p.mask[i] = float(mask8[i]) / 255.0f;
  // Seed footprint: draw_line_n_mask on a (2(L+m)+1)^2 canvas with its head
  // at L+m+1, cast to uint8 (only saturated pixels survive), used as a cv2
  // kernel anchored at its centre L+m.
  const int side = 2 * (L + m) + 1, head = L + m + 1, anchor = L + m;
  for (int pr = 0; pr < P; ++pr)
    for (int pc = 0; pc < P; ++pc) {
      const int r0 = pr - h + head, c0 = pc - h + head;
      if (r0 < 0 || c0 < 0 || r0 >= side || c0 >= side || mask8[size_t(pr) * P + pc] != 255) continue;
      p.footprint.push_back({r0 - anchor, c0 - anchor});
    }
  if (p.footprint.empty()) p.footprint.push_back({0, 0});  // an empty kernel: the pixel itself
  for (int i = 0; i < P * P; ++i)
    if (p.mask[size_t(i)] > 0.75f) p.hot.push_back(i);
  return p;
}

// draw_circle: a disc of radius marker_radius * aa on the blown canvas,
// resized by PIL; computed in a frame large enough to hold the filter.
std::vector<float> draw_marker(double radius, int aa, int* half) {
const int mh = *half = int(std::ceil(radius)) + 4;
  const int W = 2 * mh + 1, Wb = W * aa;
  const double r = radius * aa;
  std::vector<uint8_t> blown(size_t(Wb) * Wb, 0);
  for (int y = 0; y < Wb; ++y)
    for (int x = 0; x < Wb; ++x) {
      const double oy = y - mh * aa, ox = x - mh * aa;
      if (oy * oy + ox * ox <= r * r) blown[size_t(y) * Wb + x] = 255;
    }
  const std::vector<uint8_t> small = pil_resize(blown, Wb, W);
  std::vector<float> marker(small.size());
  for (size_t i = 0; i < small.size(); ++i) marker[i] = float(small[i]) / 255.0f;
  return marker;
}

}  // namespace lra_draw
}  // namespace az
