// Charts with gnuplot and child processes (see plot.h).
#include "train/lab/plot.h"
#include "autograd/runtime/strings.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "autograd/tensor.h"  // fail
#include "train/cli.h"

namespace az {

namespace fs = std::filesystem;

// ---- child processes ----------------------------------------------------------------------

ChildResult run_child(const std::vector<std::string>& argv, const ChildOptions& o) {
  if (argv.empty()) fail("run_child: empty command");
  auto t0 = std::chrono::steady_clock::now();
  // Under an emulator ($ATTNZOO_RUNNER, e.g. qemu-aarch64: an Arm build on an x86 machine, which
  // cannot exec an Arm binary by itself), a child built for the same machine as this program goes
  // through the same emulator: this program starting itself, or a test suite starting attnzoo.  The
  // ELF header's e_machine tells (this program's from /proc/self/exe, which qemu answers with the
  // emulated program); a native helper (gnuplot) runs as it is.
  std::vector<std::string> cmd = argv;
  const char* runner = std::getenv("ATTNZOO_RUNNER");
  auto elf_machine = [](const std::string& path) {
    unsigned char h[20] = {};
    std::ifstream f(path, std::ios::binary);
    if (!f.read(reinterpret_cast<char*>(h), sizeof h) || h[0] != 0x7f || h[1] != 'E' || h[2] != 'L' || h[3] != 'F') return -1;
    return int(h[18]) | int(h[19]) << 8;  // little-endian, as every target we build for
  };
  if (runner && *runner && argv[0].find('/') != std::string::npos) {
    int self = elf_machine("/proc/self/exe");
    if (self >= 0 && elf_machine(argv[0]) == self) cmd.insert(cmd.begin(), runner);
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) fail("cannot fork to run " + argv[0] + ": " + std::strerror(errno));
  if (pid == 0) {  // the child: only async-signal-safe-ish calls until exec
    // die with the parent: a killed sweep leaves no orphan writing into its cell (a training
    // child's SIGTERM handler saves last.ckpt at its next step, and a rerun resumes from it)
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    // its own process group: a Ctrl-C reaches us alone, and we pass on one SIGTERM
    // (two signals would make a training child exit before it saves)
    setpgid(0, 0);
    auto redirect = [](const std::string& path, int fd) {
      if (path.empty()) return;
      int f = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (f >= 0) dup2(f, fd), close(f);
    };
    redirect(o.stdout_path, 1);
    redirect(o.stderr_path, 2);
    if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) {
      std::fprintf(stderr, "cannot enter %s: %s\n", o.cwd.c_str(), std::strerror(errno));
      _exit(127);
    }
    for (auto& [k, v] : o.env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (auto& a : cmd) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  ChildResult r;
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  double next_poll = 1.0, kill_at = -1;
  bool stop_sent = false;
  while (true) {
    int status = 0;
    struct rusage ru;
    pid_t w = wait4(pid, &status, WNOHANG, &ru);
    if (w == pid) {
      r.seconds = elapsed();
      r.peak_rss_mb = double(ru.ru_maxrss) / 1024.0;  // Linux: kilobytes
      r.cpu_seconds = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
      if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
      else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
      return r;
    }
    if (w < 0 && errno != EINTR) fail(std::string("waiting for a child process: ") + std::strerror(errno));
    double t = elapsed();
    if (o.timeout_s > 0 && !r.timed_out && t > o.timeout_s) {
      r.timed_out = true;
      kill(pid, SIGTERM);
      kill_at = t + 5;
    }
    if (kill_at > 0 && t > kill_at) kill(pid, SIGKILL), kill_at = -1;
    if (o.should_stop && !stop_sent && o.should_stop()) kill(pid, SIGTERM), stop_sent = true;
    if (o.poll && t >= next_poll) o.poll(), next_poll = t + 1.0;
    std::this_thread::sleep_for(std::chrono::milliseconds(t < 2 ? 20 : 200));
  }
}

std::string last_line(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    // a redrawn progress line keeps only its last state
    size_t cr = line.rfind('\r');
    if (cr != std::string::npos) line = line.substr(cr + 1);
    if (!line.empty()) last = line;
  }
  return last;
}

// ---- gnuplot ------------------------------------------------------------------------------

std::string gp_quote(const std::string& s) {
  std::string r = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') r += '\\';
    r += ch == '\n' ? ' ' : ch;
  }
  return r + "\"";
}

void draw_with_gnuplot(const std::string& dir, const std::string& name, const std::string& datablocks,
                       const std::string& body, int width, int height) {
  fs::create_directories(dir);
  std::ostringstream gp;
  gp << "# " << name << ".svg and " << name << ".png, written by attnzoo; rerun with `gnuplot " << name
     << ".gp` in this folder.\n"
     << datablocks << "\n"
     << "set terminal svg size " << width << "," << height
     << " dynamic noenhanced font 'Helvetica,13' background rgb 'white'\n"
     << "set output '" << name << ".svg'\n"
     << body << "\nunset output\n"
     << "set terminal pngcairo size " << width << "," << height
     << " noenhanced font 'Helvetica,11' background rgb 'white'\n"
     << "set output '" << name << ".png'\n"
     << body << "\nunset output\n";
  std::string script = dir + "/" + name + ".gp";
  std::ofstream(script) << gp.str();
  ChildOptions o;
  o.cwd = dir;
  o.stdout_path = "/dev/null";
  o.stderr_path = dir + "/" + name + ".gnuplot.log";
  ChildResult r = run_child({"gnuplot", name + ".gp"}, o);
  std::string err = last_line(o.stderr_path);
  if (r.exit_code == 127)
    fail("gnuplot is not installed (Debian: apt-get install gnuplot-nox); the script is " + script);
  if (r.exit_code != 0) fail("gnuplot failed on " + script + ": " + err);
  fs::remove(o.stderr_path);
}

static std::string gp_number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

void draw_run_curves(const std::string& run_dir, const std::string& out_dir, const CurveStyle& style) {
  std::string path = run_dir + "/metrics.jsonl";
  if (!fs::exists(path)) fail("plot: " + path + " does not exist (is " + run_dir + " a run directory?)");
  const std::map<std::string, JsonObject> cfg = read_json_sections(run_dir + "/config.json");
  auto field = [&](const char* section, const char* key) {
    auto s = cfg.find(section);
    return s == cfg.end() ? std::string() : json_text(s->second, key);
  };
  int64_t per_step = 1;  // x = step x per_step
  if (style.examples) {
    per_step = std::atoll(field("train", "batch").c_str());
    if (per_step <= 0) fail("plot: --x examples needs the run's batch size, and " + run_dir + "/config.json names none");
  }
  auto x_of = [&](const JsonObject& o) { return std::to_string(std::atoll(json_text(o, "step").c_str()) * per_step); };
  std::string train, val, title = run_dir, subtitle;
  int n_train = 0, n_val = 0;
  for (const JsonObject& o : read_jsonl(path)) {
    if (o.count("final")) {
      char acc[32];  // three decimals: the test set's own error is larger than 0.001
      std::snprintf(acc, sizeof acc, "%.3f", std::atof(json_text(o, "test_acc", "0").c_str()));
      subtitle = std::string("test accuracy ") + acc + " at the best validation step " +
                 json_text(o, "best_step");
    } else if (o.count("val_acc")) {
      val += x_of(o) + " " + json_text(o, "val_loss") + " " + json_text(o, "val_acc") + "\n", ++n_val;
    } else if (o.count("loss")) {
      train += x_of(o) + " " + json_text(o, "loss") + " " + json_text(o, "train_acc") + "\n", ++n_train;
    }
  }
  if (n_train == 0) fail("plot: " + path + " has no training steps yet");
  if (!field("model", "model").empty()) title = field("model", "model") + " on " + field("train", "task") + " (" + run_dir + ")";
  std::string data = "$train << EOD\n" + train + "EOD\n";
  if (n_val) data += "$val << EOD\n" + val + "EOD\n";
  std::string valplot_loss = n_val ? ", $val using 1:2 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation loss'" : "";
  std::string valplot_acc = n_val ? ", $val using 1:3 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation accuracy'" : "";
  std::string levels;
  for (size_t i = 0; i < style.levels.size(); ++i)  // dash types 2, 3, 4, ... so that levels are told apart
    levels += ", " + gp_number(style.levels[i].first) + " with lines dt " + std::to_string(2 + i % 4) +
              " lw 1.5 lc rgb '#444444' title " + gp_quote(style.levels[i].second);
  std::string body =
      "set multiplot layout 1,2 title " + gp_quote(title + (subtitle.empty() ? "" : ": " + subtitle)) + "\n"
      "set grid\nset xlabel '" + std::string(style.examples ? "examples seen" : "step") + "'\n" +
      (style.log_x ? "set logscale x\nset format x '%.0s%c'\nset autoscale xfix\n" : "") +  // 100k, 1M, 10M
      "set ylabel 'loss'\nset key top right Right noreverse\n"
      "plot $train using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'training loss (mean since last log)'" +
      valplot_loss + "\n"
      "set ylabel 'accuracy'\nset yrange [" + gp_number(style.acc_lo) + ":" + gp_number(style.acc_hi) + "]\nset key " + (style.levels.empty() ? "bottom right Right noreverse" : "top left Left reverse") + "\n"
      "plot $train using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'training accuracy (mean since last log)'" +
      valplot_acc + levels + "\nset autoscale y\nunset multiplot";
  draw_with_gnuplot(out_dir.empty() ? run_dir : out_dir, "curves", data, body, 1100, 450);
}

// ---- heat maps ------------------------------------------------------------------------------

std::string category_colour(size_t k) {
  static const char* c[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  return c[(k + 7) % 8];
}

namespace {
// A gnuplot string literal of text wrapped at spaces into lines of at most `width`
// characters (gnuplot breaks lines at "\n" inside double quotes).
std::string gp_wrapped(const std::string& s, size_t width) {
  std::vector<std::string> lines(1);
  std::istringstream in(s);
  std::string word;
  while (in >> word) {
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > width) lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + word;
  }
  std::string r;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string q = gp_quote(lines[i]);
    r += (i ? "\\n" : "") + q.substr(1, q.size() - 2);
  }
  return "\"" + r + "\"";
}
}  // namespace

void draw_heatmap(const HeatMap& m, const std::string& dir, const std::string& name, int width, int height) {
  if (m.panels.empty()) fail("draw_heatmap: nothing to draw for " + name);
  const size_t P = m.panels.size(), C = size_t(std::max(1, m.grid_cols)), R = (P + C - 1) / C;
  const int64_t rows = m.panels[0].rows, cols = m.panels[0].cols;
  for (auto& p : m.panels)
    if (p.rows != rows || p.cols != cols || int64_t(p.v.size()) != rows * cols)
      fail("draw_heatmap: panels of " + name + " differ in shape");
  const bool categorical = !m.categories.empty();
  float vmin = 0, vmax = 0;
  for (auto& p : m.panels)
    for (float v : p.v) vmin = std::min(vmin, v), vmax = std::max(vmax, v);
  const bool diverging = !categorical && vmin < 0;
  const bool xtok = !m.xtics.empty(), ytok = !m.ytics.empty();
  // Layout in pixels: title on top, the grid of panels, a colour scale on the
  // right or the key below, the footnote at the bottom.
  const double W = width, H = height;
  size_t longest = 12;  // "not computed"
  for (auto& c : m.categories) longest = std::max(longest, c.size());
  // the title's first line (what and which model) stays whole; the rest wraps
  size_t nl = m.title.find('\n');
  std::string head = m.title.substr(0, nl), rest = nl == std::string::npos ? "" : m.title.substr(nl + 1);
  std::string title = gp_quote(head);
  if (!rest.empty()) {
    std::string w = gp_wrapped(rest, size_t(std::max(30.0, W / 8.5)));
    title = title.substr(0, title.size() - 1) + "\\n" + w.substr(1);
  }
  int title_lines = 1;
  for (size_t i = 0; i + 1 < title.size(); ++i) title_lines += title.compare(i, 2, "\\n") == 0;
  const double top = 24 + 17 * title_lines + 18, left = 58 + (ytok ? 38 : 0), right = categorical ? 60 + 7.5 * double(longest) : 112;
  const double bottom = 50 + (xtok ? 38 : 0) + (m.footnote.empty() ? 0 : 18);
  const double hgap = 14, vgap = 32;
  double pw = (W - left - right - hgap * double(C - 1)) / double(C);
  double ph = (H - top - bottom - vgap * double(R - 1)) / double(R);
  double side_w = std::min(pw, ph * double(cols) / double(rows)), side_h = side_w * double(rows) / double(cols);
  double x_off = left + (W - left - right - (side_w * double(C) + hgap * double(C - 1))) / 2;
  if (side_w < 40) fail("draw_heatmap: " + std::to_string(width) + "x" + std::to_string(height) + " is too small for " + std::to_string(P) + " panels");

  std::ostringstream data, body;
  for (size_t k = 0; k < P; ++k) {
    data << "$p" << k << " << EOD\n";
    const HeatPanel& p = m.panels[k];
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) data << (j ? " " : "") << fmt("%.6g", p.v[size_t(i * cols + j)]);
      data << "\n";
    }
    data << "EOD\n";
  }
  auto tic_list = [](const std::vector<std::string>& labels) {
    std::string t;
    for (size_t i = 0; i < labels.size(); ++i)
      if (!labels[i].empty()) t += (t.empty() ? "" : ", ") + gp_quote(labels[i]) + " " + std::to_string(i);
    return "(" + t + ")";
  };
  body << "set multiplot title " << title << " font ',12'\n"
       << "unset key\nset tics out nomirror scale 0.5\nset border lw 0.8\n"
       << "set xrange [-0.5:" << cols - 0.5 << "]\nset yrange [" << rows - 0.5 << ":-0.5]\n";
  if (categorical) {
    size_t K = m.categories.size();
    body << "set palette maxcolors " << K + 1 << " defined (0 'white', 1 'white'";
    for (size_t k = 1; k <= K; ++k) body << ", " << k << " '" << category_colour(k) << "', " << k + 1 << " '" << category_colour(k) << "'";
    body << ")\nset cbrange [0:" << K + 1 << "]\nunset colorbox\n";
  } else if (diverging) {
    double a = std::max(std::fabs(double(vmin)), std::fabs(double(vmax)));
    body << "set palette defined (-1 '#2166ac', -0.5 '#92c5de', 0 'white', 0.5 '#f4a582', 1 '#b2182b')\n"
         << "set cbrange [" << fmt("%.6g", -a) << ":" << fmt("%.6g", a) << "]\n";
  } else {
    body << "set palette defined (0 'white', 0.15 '#fde725', 0.4 '#5ec962', 0.6 '#21918c', 0.8 '#3b528b', 1 '#440154')\n";
    double top_v = std::max(1e-12, double(vmax));
    if (m.sqrt_scale) {
      body << "set cbrange [0:" << fmt("%.6g", std::sqrt(top_v)) << "]\nset cbtics (";
      bool first = true;
      for (double t : {0.0, 0.01, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0})
        if (t <= top_v * 1.0001) body << (first ? "" : ", ") << "'" << fmt("%.6g", t) << "' " << fmt("%.6g", std::sqrt(t)), first = false;
      body << ")\n";
    } else {
      body << "set cbrange [0:" << fmt("%.6g", top_v) << "]\n";
    }
  }
  if (!categorical) {
    double y0 = bottom, y1 = H - top;
    body << "set colorbox user origin screen " << fmt("%.6g", (W - right + 18) / W) << ", screen " << fmt("%.6g", y0 / H)
         << " size screen " << fmt("%.6g", 16 / W) << ", screen " << fmt("%.6g", (y1 - y0) / H) << "\n"
         << "set cblabel " << gp_quote(m.cblabel) << "\n";
  }
  if (!m.footnote.empty()) body << "set label 1 " << gp_quote(m.footnote) << " at screen 0.01, screen " << fmt("%.6g", 6 / H) << " left font ',9'\n";
  const bool cell_lines = categorical && cols <= 96 && side_w / double(cols) >= 4;
  if (cell_lines)  // thin lines between cells keep single entries of a pattern visible
    body << "set x2tics -0.5,1," << cols << " format '' scale 0\nset y2tics -0.5,1," << rows << " format '' scale 0\n"
         << "set link x2\nset link y2\nset grid x2tics y2tics front lw 0.4 lc rgb '#d8d8d8'\n";
  std::string expr = categorical ? "($3+0.5)" : (m.sqrt_scale && !diverging) ? "(sqrt($3))" : "3";
  for (size_t k = 0; k < P; ++k) {
    size_t r = k / C, c = k % C;
    double x0 = x_off + double(c) * (side_w + hgap), y1 = H - top - double(r) * (side_h + vgap);
    body << "set lmargin at screen " << fmt("%.6g", x0 / W) << "\nset rmargin at screen " << fmt("%.6g", (x0 + side_w) / W) << "\n"
         << "set tmargin at screen " << fmt("%.6g", y1 / H) << "\nset bmargin at screen " << fmt("%.6g", (y1 - side_h) / H) << "\n"
         << "set title " << gp_quote(m.panels[k].title) << " offset 0,-0.6\n";
    bool last_row = r == R - 1 || k + C >= P, first_col = c == 0;
    if (last_row) {
      body << "set xlabel " << gp_quote(m.xlabel) << "\n";
      if (xtok) body << "set xtics " << tic_list(m.xtics) << " rotate by 90 right font ',7'\n";
      else body << "set xtics autofreq format '%g'\n";
    } else {
      body << "unset xlabel\nset xtics autofreq format ''\n";
    }
    if (first_col) {
      body << "set ylabel " << gp_quote(m.ylabel) << "\n";
      if (ytok) body << "set ytics " << tic_list(m.ytics) << " font ',7'\n";
      else body << "set ytics autofreq format '%g'\n";
    } else {
      body << "unset ylabel\nset ytics autofreq format ''\n";
    }
    body << "plot $p" << k << " matrix using 1:2:" << expr << " with image pixels notitle";
    if (categorical && k == 0) {
      body << ", keyentry with boxes fs empty lc rgb '#999999' title 'not computed'";
      for (size_t q = 0; q < m.categories.size(); ++q)
        body << ", keyentry with boxes fs solid 1.0 lc rgb '" << category_colour(q + 1) << "' title " << gp_quote(m.categories[q]);
    }
    body << "\n";
    if (k == 0) {
      body << "unset label 1\n";
      if (!categorical) body << "unset colorbox\n";
    }
    if (categorical && k == 0) body << "unset key\n";
  }
  body << "unset multiplot";
  if (categorical) {  // the key sits right of the grid, one entry a line
    std::string key = "set key at screen " + fmt("%.6g", (W - right + 12) / W) + ", screen " + fmt("%.6g", (H - top) / H) +
                      " left top vertical Left reverse samplen 1.2 spacing 1.2 font ',10'\n";
    std::string b = body.str();
    b.insert(b.find("plot $p0"), key);
    body.str(b);
  }
  draw_with_gnuplot(dir, name, data.str(), body.str(), width, height);
}

// Families keep one colour in every chart.
static std::string family_colour(const std::string& family) {
  if (family == "dense") return "1f77b4";
  if (family == "fixed") return "2ca02c";
  if (family == "learned") return "ff7f0e";
  if (family == "low-rank/kernel") return "9467bd";
  if (family == "attention-free") return "8c564b";
  return "7f7f7f";
}

void draw_bubble_chart(const BubbleChart& c, const std::string& dir, const std::string& name) {
  std::ostringstream data, body;
  std::vector<std::string> families;
  double max_mem = 0, xmin = 1e300, xmax = 0, ymin = 1e300, ymax = -1e300;
  for (auto& p : c.points) {
    if (std::find(families.begin(), families.end(), p.family) == families.end()) families.push_back(p.family);
    max_mem = std::max(max_mem, p.memory_mb);
    xmin = std::min(xmin, p.steps_per_s), xmax = std::max(xmax, p.steps_per_s);
    ymin = std::min(ymin, p.accuracy - p.accuracy_err), ymax = std::max(ymax, p.accuracy + p.accuracy_err);
  }
  // Point size grows with sqrt(memory), so that the bubble's area is proportional to it.
  auto size = [&](double mem) { return max_mem > 0 ? std::max(0.8, 7.0 * std::sqrt(mem / max_mem)) : 2.0; };
  for (size_t f = 0; f < families.size(); ++f) {
    data << "$f" << f << " << EOD\n";
    for (auto& p : c.points)
      if (p.family == families[f])
        data << gp_quote(p.model) << " " << fmt("%.6g", p.steps_per_s) << " " << fmt("%.6g", p.accuracy) << " " << fmt("%.6g", size(p.memory_mb))
             << " " << fmt("%.6g", p.accuracy_err) << "\n";
    data << "EOD\n";
  }
  body << "set title " << gp_quote(c.title) << "\n"
       << "set xlabel " << gp_quote(c.xlabel) << "\nset ylabel " << gp_quote(c.ylabel) << "\n"
       << "set grid\nset key outside right top title " << gp_quote(c.size_note) << "\n";
  if (c.points.empty()) {
    body << "set label 1 'no model has both an average accuracy and a bench at the longest length yet' at graph 0.5,0.5 "
            "center\nplot [0:1][0:1] NaN notitle\n";
    draw_with_gnuplot(dir, name, data.str(), body.str(), 1100, 650);
    return;
  }
  std::vector<std::pair<double, std::string>> lines = c.lines;
  if (c.chance >= 0) lines.insert(lines.begin(), {c.chance, c.chance_label});
  double lo = ymin, hi = ymax;
  for (auto& l : lines) lo = std::min(lo, l.first), hi = std::max(hi, l.first);
  double pad = std::max(c.min_pad, 0.12 * (hi - lo));
  double x0 = xmin / 1.8, x1 = xmax * 1.8, y0 = lo - pad, y1 = hi + pad;
  body << "set logscale x\nset xrange [" << fmt("%.6g", x0) << ":" << fmt("%.6g", x1) << "]\n"
       << "set yrange [" << fmt("%.6g", c.lower_is_better ? y1 : y0) << ":" << fmt("%.6g", c.lower_is_better ? y0 : y1) << "]\n";
  // tics at 1, 2, 5 x 10^k: a log axis spanning less than a decade would show one number or none
  std::string tics;
  for (int e = int(std::floor(std::log10(x0))); e <= int(std::ceil(std::log10(x1))); ++e)
    for (double m : {1.0, 2.0, 5.0}) {
      double t = m * std::pow(10.0, e);
      if (t >= x0 && t <= x1) tics += (tics.empty() ? "" : ", ") + gp_quote(fmt("%.6g", t)) + " " + fmt("%.6g", t);
    }
  body << "set xtics (" << tics << ")\n";
  // Labels: the nearest place around the bubble (above, below, beside, diagonal, then further
  // out) that clears the labels, bubbles and error bars already placed.  Positions in pixels of
  // the plot area gnuplot leaves at 1100 x 650 with the key outside (measured on the PNG); a
  // character of Helvetica 13 is about 8 x 15 pixels, a bubble's radius about 3.2 pixels per unit
  // of point size.
  constexpr double kPlotW = 670, kPlotH = 540, kCharW = 8, kCharH = 15;
  struct Box {
    double x, y, w, h;  // centre, size
    bool bar = false;   // an error bar: a thin line a label may cross
    int owner = -1;     // the point whose bubble or bar this is (-1: a label)
    bool hits(const Box& o) const { return std::fabs(x - o.x) * 2 < w + o.w && std::fabs(y - o.y) * 2 < h + o.h; }
  };
  auto px = [&](const BubblePoint& p) {
    return kPlotW * (std::log10(p.steps_per_s) - std::log10(x0)) / (std::log10(x1) - std::log10(x0));
  };
  auto py = [&](const BubblePoint& p) { return kPlotH * (c.lower_is_better ? y1 - p.accuracy : p.accuracy - y0) / (y1 - y0); };
  std::vector<Box> placed;
  for (size_t i = 0; i < c.points.size(); ++i) {
    const BubblePoint& p = c.points[i];
    double r = 3.2 * size(p.memory_mb);
    placed.push_back({px(p), py(p), 2 * r, 2 * r, false, int(i)});
    if (p.accuracy_err > 0)
      placed.push_back({px(p), py(p), 6, 2 * kPlotH * p.accuracy_err / (y1 - y0), true, int(i)});
  }
  int k = 1;
  for (size_t pi = 0; pi < c.points.size(); ++pi) {
    const BubblePoint& p = c.points[pi];
    double r = 3.2 * size(p.memory_mb), w = kCharW * double(p.model.size()), h = kCharH;
    double dx = r + 4 + w / 2, dy = r + 10;
    std::vector<std::pair<double, double>> tries = {{0, dy},  {0, -dy},     {dx, 0},      {-dx, 0},
                                                    {dx, dy}, {-dx, dy},    {dx, -dy},    {-dx, -dy},
                                                    {dx, h},  {-dx, h},     {dx, -h},     {-dx, -h},
                                                    {0, dy + h}, {0, -dy - h}, {0, dy + 2 * h}, {0, -dy - 2 * h}};
    for (int n = 1; n <= 4; ++n)  // a crowd: further out, up and down, each with a leader
      for (auto t : std::vector<std::pair<double, double>>{{dx, dy + n * h}, {-dx, dy + n * h}, {dx, -dy - n * h},
                                                           {-dx, -dy - n * h}, {0, dy + (n + 2) * h}, {0, -dy - (n + 2) * h}})
        tries.push_back(t);
    // how far a label's box at offset t stands from the bubble's edge: the nearest free place wins
    // (stable: among equals, the order above), and one further than kLeader pixels gets a leader
    auto gap = [&](const std::pair<double, double>& t) {
      double gx = std::max(0.0, std::fabs(t.first) - w / 2), gy = std::max(0.0, std::fabs(t.second) - h / 2);
      return std::max(0.0, std::hypot(gx, gy) - r);
    };
    constexpr double kLeader = 10;
    std::stable_sort(tries.begin(), tries.end(), [&](auto& a, auto& b) {
      return std::max(gap(a), kLeader) < std::max(gap(b), kLeader);  // the ring around the bubble counts as one distance
    });
    // The first place in the ring clear of everything, else one in the ring that only crosses an
    // error bar (a thin line: the text stays readable), else the same further out (with a leader),
    // else the place that overlaps labels and bubbles least.
    std::pair<double, double> pick = tries[0];
    double least = 1e300;
    int best = 4;  // 0..3: the preferences above; 4: none clear of labels and bubbles yet
    for (auto& t : tries) {
      Box b{px(p) + t.first, py(p) + t.second, w, h};
      double hard = 0;
      bool crosses_bar = false;
      for (size_t i = 0; i < placed.size(); ++i) {
        if (placed[i].owner == int(pi)) continue;  // its own bubble and bar
        if (!placed[i].hits(b)) continue;
        if (placed[i].bar) crosses_bar = true;
        else hard += (w + placed[i].w) / 2 - std::fabs(b.x - placed[i].x) + (h + placed[i].h) / 2 - std::fabs(b.y - placed[i].y);
      }
      if (hard > 0) {
        if (best == 4 && hard < least) least = hard, pick = t;
        continue;
      }
      int rank = (gap(t) > kLeader ? 2 : 0) + (crosses_bar ? 1 : 0);
      if (rank < best) best = rank, pick = t;
      if (best == 0) break;
    }
    placed.push_back({px(p) + pick.first, py(p) + pick.second, w, h});
    body << "set label " << k++ << " " << gp_quote(p.model) << " at " << fmt("%.6g", p.steps_per_s) << "," << fmt("%.6g", p.accuracy)
         << " center offset char " << fmt("%.6g", pick.first / kCharW) << "," << fmt("%.6g", pick.second / kCharH) << " front\n";
    // A label pushed out of the ring around its bubble gets a thin leader from the bubble's edge
    // to its box, so a crowded chart still says which label is whose.
    if (gap(pick) > kLeader) {
      double dist = std::hypot(pick.first, pick.second);
      double ux = pick.first / dist, uy = pick.second / dist;
      double to_box = std::min(pick.first ? (w / 2) / std::fabs(ux) : 1e300, pick.second ? (h / 2) / std::fabs(uy) : 1e300);
      double a = r + 1, b = dist - to_box - 1;
      auto at = [&](double t) {  // pixels along the leader -> the chart's coordinates
        double lx = std::log10(p.steps_per_s) + t * ux * (std::log10(x1) - std::log10(x0)) / kPlotW;
        double ly = p.accuracy + (c.lower_is_better ? -1 : 1) * t * uy * (y1 - y0) / kPlotH;
        return fmt("%.6g", std::pow(10.0, lx)) + "," + fmt("%.6g", ly);
      };
      if (b > a) body << "set arrow from first " << at(a) << " to first " << at(b) << " nohead lw 0.8 lc rgb '#999999' back\n";
    }
  }
  for (auto& [y, label] : lines)
    body << "set arrow from graph 0, first " << fmt("%.6g", y) << " to graph 1, first " << fmt("%.6g", y)
         << " nohead dt 2 lc rgb '#888888'\nset label " << k++ << " " << gp_quote(label) << " at graph 0.01, first "
         << fmt("%.6g", y) << " offset 0,0.6 left textcolor rgb '#888888'\n";
  bool bars = false;
  for (auto& p : c.points) bars |= p.accuracy_err > 0;
  body << "plot ";
  for (size_t f = 0; f < families.size(); ++f) {
    if (bars)  // drawn first, under the bubbles
      body << (f ? ", \\\n     " : "") << "$f" << f << " using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#"
           << family_colour(families[f]) << "' notitle";
    std::string col = family_colour(families[f]);
    body << (f || bars ? ", \\\n     " : "") << "$f" << f << " using 2:3:4 with points pt 7 ps variable lc rgb '#70" << col
         << "' title " << gp_quote(families[f]) << ", $f" << f
         << " using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#" << col << "' notitle";
  }
  body << "\n";
  draw_with_gnuplot(dir, name, data.str(), body.str(), 1100, 650);
}

// ---- attnzoo plot ---------------------------------------------------------------------------

int cmd_plot(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h")
      return std::printf("attnzoo plot --run DIR [--out DIR2] [--x step|examples] [--log-x] [--acc-range LO:HI]\n"
                         "             [--levels 'V=LABEL,...']\n"
                         "  draws a run's training and validation curves (loss and accuracy, from DIR/metrics.jsonl)\n"
                         "  as curves.svg and curves.png, with the gnuplot script curves.gp, in DIR (or DIR2);\n"
                         "  --x examples: against examples seen (step x the run's batch), --log-x on a log axis,\n"
                         "  --acc-range the accuracy panel's range (default 0:1), --levels dashed lines across it\n"
                         "  (e.g. '0.67=markers kNN,0.5=chance')\n"), 0;
  Flags f("plot", args, {"run", "out", "x", "acc-range", "levels"}, {"log-x"});
  if (!f.has("run")) fail("plot: --run DIR is required (a run directory holding metrics.jsonl)");
  std::string run = f.str("run", ""), out = f.str("out", run), x = f.str("x", "step");
  CurveStyle style;
  if (x != "step" && x != "examples") fail("plot: --x must be step or examples, got '" + x + "'");
  style.examples = x == "examples";
  style.log_x = f.on("log-x");
  auto number = [](const std::string& t, const std::string& what) {
    char* end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (t.empty() || *end || !(v >= 0 && v <= 1)) fail("plot: " + what + " must be a number in 0..1, got '" + t + "'");
    return v;
  };
  if (f.has("acc-range")) {
    std::string r = f.str("acc-range", "");
    size_t colon = r.find(':');
    if (colon == std::string::npos) fail("plot: --acc-range must be LO:HI (e.g. 0.45:0.8), got '" + r + "'");
    style.acc_lo = number(r.substr(0, colon), "--acc-range's LO");
    style.acc_hi = number(r.substr(colon + 1), "--acc-range's HI");
    if (style.acc_lo >= style.acc_hi) fail("plot: --acc-range needs LO < HI, got '" + r + "'");
  }
  std::istringstream levels(f.str("levels", ""));
  for (std::string item; std::getline(levels, item, ',');) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq + 1 == item.size())
      fail("plot: each of --levels is VALUE=LABEL (e.g. 0.5=chance), got '" + item + "'");
    style.levels.push_back({number(item.substr(0, eq), "a level of --levels"), item.substr(eq + 1)});
  }
  draw_run_curves(run, out, style);
  std::printf("wrote %s/curves.svg and %s/curves.png\n", out.c_str(), out.c_str());
  return 0;
}

}  // namespace az
