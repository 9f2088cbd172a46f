// Task `pathfinder`: LRA's long-range spatial task (Linsley et al. 2018):
// are the two markers on one dashed path?  32x32 = 1024 pixel tokens, 2
// classes.  Generated from the seed in one of two styles (data/pathfinder/pathfinder_style.h):
// `lra`, Linsley's snakes2.py with LRA's Pathfinder-32 arguments (the default:
// LRA's data in law, its marker-position shortcut included), or `cut`, our
// shortcut-free control.  --data reads LRA's released layout (imgs/ with
// metadata/*.npy labels) or a folder of PNGs.  Every run prints the shortcut
// baselines (majority, ink, marker distance, marker kNN) of its data, so a
// model's accuracy can be read against what marker positions alone explain.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "data/pathfinder/lra_pathfinder_layout.h"
#include "data/pathfinder/pathfinder_baselines.h"
#include "data/pathfinder/pathfinder_style.h"
#include "train/cli.h"
#include "train/tasks.h"

namespace az {
namespace {

int64_t side_of(const LraData& d) { return int64_t(std::lround(std::sqrt(double(d.seq_len)))); }

PathfinderDataConfig config_of(const std::string& style, int64_t dashes, int64_t side) {
  PathfinderDataConfig c = pathfinder_data_preset(style, "hard");
  if (style == "lra") {
    c.lra.contour_length = int(dashes);
    if (side) c.lra.image_size = int(side);
  } else {
    c.cut.path_segments = int(dashes);
    if (side) c.cut.image_size = int(side);
  }
  return c;
}

void print_baselines(const Splits& s) {
  if (s.test.size() == 0) return;
  std::fprintf(stderr, "pathfinder: shortcut baselines on this data (fit on train, test accuracy):\n%s",
               format_shortcut_rows(pathfinder_shortcut_baselines(s)).c_str());
}

TaskData load(const TaskContext& c) {
  Splits s;
  if (!c.data.empty()) {
    s = load_pathfinder_data(c.data, 1);
  } else {
    int64_t n = c.integer("n");
    s = generate_pathfinder_splits(config_of(c.str("style"), c.integer("difficulty"), 0), n > 0 ? n : 20000, 1);
  }
  TaskData t = image_task(std::move(s), c);  // checks the view first
  if (c.integer("baselines")) print_baselines(t.splits);
  return t;
}

// Every image of a Pathfinder folder (any layout), its splits joined.
Dataset all_images(const std::string& dir) {
  Splits s = load_pathfinder_data(dir, 1);
  Dataset d = std::move(s.train);
  for (Dataset* o : {&s.val, &s.test}) {
    d.seqs.insert(d.seqs.end(), o->seqs.begin(), o->seqs.end());
    d.labels.insert(d.labels.end(), o->labels.begin(), o->labels.end());
  }
  return d;
}

// --stats DIR [--ref DIR]: the data set's law (pathfinder_law), beside a reference's.
int stats_command(const Flags& f) {
  const Dataset d = all_images(f.str("stats", ""));
  std::printf("pathfinder law of %s: %zu images, %dx%d\n", f.str("stats", "").c_str(), d.size(), d.height, d.width);
  if (!f.has("ref")) {
    std::printf("%s", format_law(pathfinder_law(d)).c_str());
    return 0;
  }
  const Dataset r = all_images(f.str("ref", ""));
  std::printf("reference %s: %zu images\n", f.str("ref", "").c_str(), r.size());
  const std::vector<LawStat> ref = pathfinder_law(r);
  std::printf("%s", format_law(pathfinder_law(d), &ref).c_str());
  return 0;
}

int data_command(const std::vector<std::string>& args) {
  Flags f("data pathfinder", args, {"out", "n", "difficulty", "size", "seed", "style", "layout", "stats", "ref"}, {"speed"});
  if (f.has("stats")) return stats_command(f);
  if (f.has("ref")) fail("data pathfinder: --ref DIR goes with --stats DIR");
  std::string style = f.str("style", "lra"), layout = f.str("layout", "folder");
  if (style != "lra" && style != "cut") fail("data pathfinder: --style must be lra or cut, got '" + style + "'");
  if (layout != "folder" && layout != "lra") fail("data pathfinder: --layout must be folder or lra, got '" + layout + "'");
  PathfinderDataConfig c = pathfinder_data_preset(style, "hard");
  // clamped into int so that no value wraps into the valid range; validate() names it
  int dashes = int(std::clamp<int64_t>(f.integer("difficulty", 14), -1, INT32_MAX));
  int size = int(std::clamp<int64_t>(f.integer("size", 32), -1, INT32_MAX));
  if (style == "lra") c.lra.contour_length = dashes, c.lra.image_size = size;
  else c.cut.path_segments = dashes, c.cut.image_size = size;
  validate(c);
  if (f.on("speed")) {  // generation speed on one thread
    std::printf("%s\n", format_speed(c, measure_pathfinder_generation(c, f.integer("n", 10000))).c_str());
    return 0;
  }
  if (!f.has("out")) fail("data pathfinder: --out DIR is required");
  int64_t n = f.integer("n", 2000);
  if (n < 10 || n > kMaxGenerated)
    fail("data pathfinder: --n must be in 10.." + std::to_string(kMaxGenerated) + ", got " + std::to_string(n));
  uint64_t seed = uint64_t(f.integer("seed", 1));
  if (layout == "lra") write_lra_pathfinder_layout(generate_pathfinder(c, n, seed), f.str("out", ""), 1000);
  else write_pathfinder_folder(c, n, seed, f.str("out", ""));
  std::printf("wrote %lld %s-style pathfinder images (%s layout) to %s\n", (long long)n, style.c_str(), layout.c_str(),
              f.str("out", "").c_str());
  return 0;
}

LraData data(int64_t len, int64_t tr, int64_t va, int64_t te, const char* style, const char* dashes) {
  return {len, tr, va, te, {{"style", style}, {"dashes", dashes}}};
}

TaskInfo info() {
  TaskInfo i;
  i.name = "pathfinder";
  i.summary = "Pathfinder-32: are the two markers on one dashed path? 1024 pixel tokens, 2 classes";
  i.options = {text_option("style", "lra", {"lra", "cut"}, "lra: Linsley's generator as LRA ran it; cut: the shortcut-free control"),
               int_option("n", 0, 0, kMaxGenerated, "images generated, split 80/10/10 (0: 20000)"),
               int_option("difficulty", 14, 3, 40, "dashes per path (6 easy, 9 medium, 14 hard: LRA's)"),
               int_option("baselines", 1, 0, 1, "print the shortcut baselines of the data")};
  for (auto& o : image_view_options()) i.options.push_back(o);
  i.load = load;
  i.default_steps = [](const TaskContext& c) -> int64_t { return c.str("input") == "pixels" ? 500 : 2000; };
  i.cli.input_help = "grey PNG images of the training images' size (32x32 for Pathfinder-32)";
  i.cli.read_inputs = [](const std::vector<std::string>& in, const TaskContext& c) {
    int64_t side = c.str("input") == "patches" ? int64_t(std::lround(std::sqrt(double(c.seq_len)))) * c.integer("patch")
                                               : int64_t(std::lround(std::sqrt(double(c.seq_len))));
    return image_inputs(in, c, 1, int(side), false);
  };
  i.cli.data_name = "pathfinder";
  i.cli.data_help =
      "attnzoo data pathfinder --out DIR [--style lra|cut] [--layout folder|lra] [--n N] [--difficulty K] [--size S]\n"
      "                        [--seed S]   PNGs in class folders, or LRA's released layout (imgs/, metadata/)\n"
      "attnzoo data pathfinder --speed [--style lra|cut] [--n N]   images generated per second on one thread\n"
      "attnzoo data pathfinder --stats DIR [--ref DIR]   a data set's law (pixel levels, marker distance, shortcut\n"
      "                        baselines, each +- its standard error), beside a reference's (e.g. snakes2.py's)\n";
  i.cli.data_command = data_command;
  i.lra.title = "Pathfinder";
  i.lra.order = 5;
  i.lra.rows["quick"] = lra_row(data(1024, 1000, 200, 200, "lra", "14"), "--dim 32 --heads 2 --layers 1 --ffn 64 --steps 30 --batch 16 --warmup 6 --eval-every 15 --lr 1e-3");
  i.lra.rows["mini"] = lra_row(data(1024, 16000, 500, 2000, "lra", "14"), "--dim 64 --heads 4 --layers 1 --ffn 128 --steps 400 --batch 32 --warmup 40 --eval-every 100 --lr 1e-3");
  i.lra.rows["full"] = lra_row(data(1024, 80000, 2000, 2000, "lra", "14"), "--dim 32 --heads 4 --layers 2 --ffn 64 --steps 1000 --batch 32 --warmup 100 --eval-every 250 --lr 1e-3");
  i.lra.rows["tiny"] = lra_row(data(256, 40, 10, 10, "cut", "3"), "--dim 8 --heads 2 --layers 1 --ffn 16 --steps 4 --batch 4 --warmup 1 --eval-every 2 --lr 1e-3");
  i.lra.describe = [](const LraData& d) {
    std::string side = std::to_string(side_of(d));
    return "Pathfinder " + side + "x" + side + ", " + d.extra.at("style") + " style, " + d.extra.at("dashes") +
           " dashes per path, " + std::to_string(d.n_train) + "/" + std::to_string(d.n_val) + "/" +
           std::to_string(d.n_test) + " images, seed 1";
  };
  i.lra.prepare = [](const LraData& d, const std::string& dir) {
    PathfinderDataConfig pc = config_of(d.extra.at("style"), std::stoi(d.extra.at("dashes")), side_of(d));
    Splits s = generate_pathfinder_splits(pc, d.n_train, d.n_val, d.n_test, 1);
    write_image_splits(s, dir);
    std::ofstream out(dir + "/baselines.jsonl");  // the shortcut rows of the LRA table
    for (auto& r : pathfinder_shortcut_baselines(s))
      out << "{\"name\": \"" << r.name << "\", \"test_acc\": " << r.test_accuracy << "}\n";
  };
  i.lra.train_args = [](const LraData&, const std::string& dir) {
    return std::vector<std::string>{"--task", "pathfinder", "--data", dir, "--baselines", "0"};
  };
  return i;
}

RegisterTask reg(info());

}  // namespace
}  // namespace az
