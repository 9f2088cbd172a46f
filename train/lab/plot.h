// Charts drawn by gnuplot, and running a child program (gnuplot, a sweep's
// cells), which the `plot` and `lra` commands share.
//
// We never rasterise by hand: every chart is a gnuplot script (kept beside the
// pictures, so a reader can restyle it and rerun `gnuplot NAME.gp`) with its
// data inline, drawn once as SVG and once as PNG (pngcairo).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "train/json.h"  // JsonObject, read_jsonl: the records the charts draw

namespace az {

// ---- child processes ----------------------------------------------------------------------
struct ChildOptions {
  std::string cwd;                            // "" = ours
  std::string stdout_path, stderr_path;       // "" = inherit
  std::map<std::string, std::string> env;     // set in the child only
  double timeout_s = 0;                       // > 0: SIGTERM, then SIGKILL 5 s later
  std::function<void()> poll;                 // called about once a second while it runs
  std::function<bool()> should_stop;          // true: the child gets SIGTERM (once), e.g. on our Ctrl-C
};
struct ChildResult {
  int exit_code = -1;     // exit status, or -1 when a signal ended it
  int signal = 0;
  bool timed_out = false;
  double seconds = 0;     // wall clock
  double cpu_seconds = 0; // user + system time of the child (and its waited-for children)
  double peak_rss_mb = 0; // the child's own peak resident set (wait4's ru_maxrss)
};
// fork + execvp(argv[0], argv).  An exec failure is exit code 127 with the
// reason on the child's stderr.
ChildResult run_child(const std::vector<std::string>& argv, const ChildOptions& o);
// The last non-empty line of a file ("" if none): a failed child's message.
std::string last_line(const std::string& path);

// ---- gnuplot ------------------------------------------------------------------------------
// A gnuplot string literal "..." (double quotes, \ and " escaped).
std::string gp_quote(const std::string& s);
// Writes DIR/NAME.gp (datablocks + `body` drawn twice: NAME.svg, NAME.png) and
// runs gnuplot in DIR.  Throws naming gnuplot's last error line, or saying how
// to install gnuplot when it is missing.
void draw_with_gnuplot(const std::string& dir, const std::string& name, const std::string& datablocks,
                       const std::string& body, int width, int height);

// A grid of N x M heat maps (attnmap: layers x heads; pattern: one panel), drawn
// as gnuplot images: row 0 at the top (query rows, key columns), a title, axis
// labels, tick labels from `xtics`/`ytics` when given, and either a key naming
// each category's colour or a colour scale for the values.
struct HeatPanel {
  std::string title;
  int64_t rows = 0, cols = 0;
  std::vector<float> v;  // [rows, cols] row-major
};
struct HeatMap {
  std::string title, xlabel, ylabel;
  std::vector<HeatPanel> panels;
  int grid_cols = 1;                       // panels per row of the grid
  std::vector<std::string> xtics, ytics;   // one label per column / row, or empty: positions
  // Categorical: v holds 0 (nothing, white) or k in 1..K, drawn in colour k with
  // the key entry categories[k-1].  Empty: continuous values with a colour scale.
  std::vector<std::string> categories;
  std::string cblabel;                     // continuous: the scale's label
  bool sqrt_scale = false;                 // continuous, non-negative: colour by sqrt(v) (small weights stay visible)
  std::string footnote;                    // one line under the picture
};
// The colour of category k (1-based) in every pattern picture.
std::string category_colour(size_t k);
void draw_heatmap(const HeatMap& m, const std::string& dir, const std::string& name, int width, int height);

// Training and validation curves of one run directory (its metrics.jsonl):
// loss and accuracy against step, as DIR/curves.{svg,png,gp} (or out_dir/).
// The style: x as examples seen (step x the run's batch, from its config.json) and on a
// log axis, the accuracy panel's range, and levels drawn across it (a baseline, chance).
struct CurveStyle {
  bool examples = false, log_x = false;
  double acc_lo = 0, acc_hi = 1;
  std::vector<std::pair<double, std::string>> levels;  // accuracy, label
};
void draw_run_curves(const std::string& run_dir, const std::string& out_dir = "", const CurveStyle& style = {});

// The LRA bubble chart: one bubble per model.
struct BubblePoint {
  std::string model, family;
  double steps_per_s = 0;  // x (log scale)
  double accuracy = 0;     // y, %
  double memory_mb = 0;    // bubble area
  double accuracy_err = 0; // error bar: +- this (0: none)
};
struct BubbleChart {
  std::string title, xlabel, ylabel, size_note;
  double chance = -1;      // a dashed line at this accuracy (< 0: none), labelled chance_label
  std::string chance_label = "chance (majority class)";
  std::vector<std::pair<double, std::string>> lines;  // more dashed lines: (y, label), e.g. a baseline
  bool lower_is_better = false;  // bits per byte: the y axis runs downwards, so better is up on every chart
  double min_pad = 3;      // at least this much room above and below the points, in y's units
  std::vector<BubblePoint> points;
};
void draw_bubble_chart(const BubbleChart& c, const std::string& dir, const std::string& name);

// attnzoo plot --run DIR [--out DIR2]
int cmd_plot(const std::vector<std::string>& args);

}  // namespace az
