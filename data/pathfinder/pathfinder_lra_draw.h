// Drawing primitives of the LRA-style Pathfinder generator, each as the
// library snakes2.py calls does it (so the images match in law):
//  - draw_paddle: snakes.draw_line_n_mask.  A PIL 1-px line (Bresenham plus
//    the end point) on an antialias_scale x finer canvas, its mask the line
//    dilated by a disc of radius margin * aa (cv2.dilate), both shrunk by PIL's
//    Lanczos-3 to 8 bits; plus the seed footprint snakes2 derives from it.
//  - draw_marker: snakes2.draw_circle, a disc of radius r * aa shrunk the same way.
//  - pil_resize: PIL's ImagingResample for mode "L" (horizontal pass, 8-bit,
//    vertical pass), in double instead of PIL's 22-bit fixed point.
// Cost: O(canvas^2 * taps) per call; the generator calls them once per
// configuration (at most 81 paddles at LRA's sizes).
#pragma once
#include <cstdint>
#include <vector>

namespace az {
namespace lra_draw {

constexpr double kPi = 3.14159265358979323846;

struct Pt {
  int y = 0, x = 0;
};
// snakes.translate_coord: the pixel dist away along theta, rounded up.
Pt translate(Pt p, double theta, double dist);
// snakes.flip_by_pi.
inline double flip_by_pi(double o) { return o < 0 ? o + kPi : o - kPi; }

struct PaddleShape {
  int L, m, aa;      // paddle_length, paddle_margin, antialias_scale
  double thickness;  // paddle_thickness (thickness * aa an integer)
  int half() const;  // L + ceil(thickness) + m: the patch reaches this far from its start
};

// A paddle drawn towards head offset (dy, dx) on the blown canvas: ink and
// mask, P x P (P = 2 * half + 1) around its start, in [0, 1].
struct Paddle {
  std::vector<float> ink, mask;
  std::vector<Pt> footprint;  // seed test: the mask's saturated pixels, with snakes2's kernel anchor
  std::vector<int> hot;       // patch pixels with mask > 0.75: a superset of those that can reach the 1.8 overlap
                              // test (the occupancy is at most 1; 204/255 + 1 reaches it exactly)
};
Paddle draw_paddle(const PaddleShape& g, int dy, int dx);

// The marker disc, (2 * half + 1)^2 around its centre, in [0, 1].
std::vector<float> draw_marker(double radius, int aa, int* half);

// An 8-bit n x n image resized to m x m as PIL does (Lanczos-3).
std::vector<uint8_t> pil_resize(const std::vector<uint8_t>& img, int n, int m);

}  // namespace lra_draw
}  // namespace az
