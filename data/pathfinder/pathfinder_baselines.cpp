// Pathfinder shortcut baselines and per-label statistics; see
// pathfinder_baselines.h.  Logistic regressions are fit by Newton's method
// on standardised features (a handful of features, so a direct solve).
#include "data/pathfinder/pathfinder_baselines.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace az {
namespace {

void check_images(const Dataset& d, const char* split) {
  if (d.size() == 0) throw DataError(std::string("pathfinder baselines: ") + split + " is empty, expected images");
  if (d.channels != 1 || d.height <= 0 || d.width <= 0 || d.num_classes != 2) {
    throw DataError(std::string("pathfinder baselines: ") + split + " is " + std::to_string(d.height) + "x" +
                    std::to_string(d.width) + "x" + std::to_string(d.channels) + " with " +
                    std::to_string(d.num_classes) + " classes, expected 1-channel images of 2 classes");
  }
  for (const auto& s : d.seqs)
    if (int64_t(s.size()) != int64_t(d.height) * d.width) {
      throw DataError(std::string("pathfinder baselines: ") + split + " holds a sequence of " +
                      std::to_string(s.size()) + " tokens, expected " + std::to_string(d.height * d.width));
    }
}

// Logistic regression p = sigmoid(w . z + b) on standardised features z.
struct Logistic {
  std::vector<double> mean, sd, w;  // w: features then bias
  void fit(const std::vector<std::vector<double>>& X, const std::vector<int32_t>& y) {
    const size_t n = X.size(), d = X[0].size(), D = d + 1;
    mean.assign(d, 0), sd.assign(d, 0), w.assign(D, 0);
    for (const auto& x : X)
      for (size_t j = 0; j < d; ++j) mean[j] += x[j] / double(n);
    for (const auto& x : X)
      for (size_t j = 0; j < d; ++j) sd[j] += (x[j] - mean[j]) * (x[j] - mean[j]) / double(n);
    for (double& s : sd) s = s > 0 ? std::sqrt(s) : 1;
    std::vector<double> z(D);
    for (int it = 0; it < 25; ++it) {
      std::vector<double> g(D, 0), H(D * D, 0);
      for (size_t i = 0; i < n; ++i) {
        features(X[i], z);
        double t = 0;
        for (size_t j = 0; j < D; ++j) t += w[j] * z[j];
        const double p = 1 / (1 + std::exp(-t)), r = p - y[i];
        for (size_t a = 0; a < D; ++a) {
          g[a] += r * z[a];
          for (size_t b = 0; b < D; ++b) H[a * D + b] += p * (1 - p) * z[a] * z[b];
        }
      }
      for (size_t a = 0; a < D; ++a) H[a * D + a] += 1e-6 * double(n);  // a whisker of L2: separable data stays finite
      // Solve H step = g (Gaussian elimination with partial pivoting).
      std::vector<double> step = g;
      for (size_t col = 0; col < D; ++col) {
        size_t piv = col;
        for (size_t r = col + 1; r < D; ++r)
          if (std::fabs(H[r * D + col]) > std::fabs(H[piv * D + col])) piv = r;
        for (size_t k = 0; k < D; ++k) std::swap(H[col * D + k], H[piv * D + k]);
        std::swap(step[col], step[piv]);
        for (size_t r = col + 1; r < D; ++r) {
          const double f = H[r * D + col] / H[col * D + col];
          for (size_t k = col; k < D; ++k) H[r * D + k] -= f * H[col * D + k];
          step[r] -= f * step[col];
        }
      }
      for (size_t col = D; col-- > 0;) {
        for (size_t k = col + 1; k < D; ++k) step[col] -= H[col * D + k] * step[k];
        step[col] /= H[col * D + col];
      }
      double moved = 0;
      for (size_t j = 0; j < D; ++j) w[j] -= step[j], moved += std::fabs(step[j]);
      if (moved < 1e-9) break;
    }
  }
  void features(const std::vector<double>& x, std::vector<double>& z) const {
    for (size_t j = 0; j < x.size(); ++j) z[j] = (x[j] - mean[j]) / sd[j];
    z[x.size()] = 1;
  }
  int predict(const std::vector<double>& x) const {
    std::vector<double> z(w.size());
    features(x, z);
    double t = 0;
    for (size_t j = 0; j < w.size(); ++j) t += w[j] * z[j];
    return t > 0 ? 1 : 0;
  }
};

double accuracy_of(const Logistic& m, const std::vector<std::vector<double>>& X, const std::vector<int32_t>& y) {
  int64_t ok = 0;
  for (size_t i = 0; i < X.size(); ++i) ok += m.predict(X[i]) == y[i];
  return double(ok) / double(X.size());
}

std::vector<double> ink_features(const std::vector<int32_t>& seq) {
  double total = 0, lit = 0;
  for (int32_t t : seq) total += t - 1, lit += t > 1;
  return {total, lit};
}

}  // namespace

double MarkerPair::distance() const { return std::hypot(double(y[1] - y[0]), double(x[1] - x[0])); }

MarkerPair find_markers(const std::vector<int32_t>& tokens, int H, int W) {
  if (H < 3 || W < 3 || int64_t(tokens.size()) != int64_t(H) * W) {
    throw DataError("find_markers: " + std::to_string(tokens.size()) + " tokens for " + std::to_string(H) + "x" +
                    std::to_string(W) + ", expected H * W with H, W >= 3");
  }
  // 3x3 box sums (pixel values, not tokens), borders cropped.
  std::vector<int64_t> box(size_t(H) * W, -1);
  for (int y = 1; y + 1 < H; ++y)
    for (int x = 1; x + 1 < W; ++x) {
      int64_t s = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) s += tokens[size_t(y + dy) * W + x + dx] - 1;
      box[size_t(y) * W + x] = s;
    }
  MarkerPair m;
  size_t best = 0;
  for (size_t i = 1; i < box.size(); ++i)
    if (box[i] > box[best]) best = i;
  size_t second = best == 0 ? 1 : 0;
  bool have = false;
  for (size_t i = 0; i < box.size(); ++i) {
    const int dy = std::abs(int(i / W) - int(best / W)), dx = std::abs(int(i % W) - int(best % W));
    if (std::max(dy, dx) < 3) continue;
    if (!have || box[i] > box[second]) second = i, have = true;
  }
  size_t a = std::min(best, second), b = std::max(best, second);  // row-major order = (row, column)
  m.y[0] = int(a / W), m.x[0] = int(a % W), m.y[1] = int(b / W), m.x[1] = int(b % W);
  return m;
}

std::vector<ShortcutRow> pathfinder_shortcut_baselines(const Splits& s, const ShortcutOptions& opt) {
  check_images(s.train, "train");
  check_images(s.test, "test");
  if (opt.knn_k < 1 || opt.knn_max_train < 1) {
    throw DataError("pathfinder baselines: knn_k " + std::to_string(opt.knn_k) + ", knn_max_train " +
                    std::to_string(opt.knn_max_train) + ", expected both >= 1");
  }
  const Dataset& tr = s.train;
  const Dataset& te = s.test;
  std::vector<ShortcutRow> rows;

  int64_t ones = 0;
  for (int32_t y : tr.labels) ones += y == 1;
  const int majority = 2 * ones > int64_t(tr.size()) ? 1 : 0;
  int64_t hit = 0;
  for (int32_t y : te.labels) hit += y == majority;
  rows.push_back({"majority", "class " + std::to_string(majority) + " of train", double(hit) / double(te.size())});

  std::vector<std::vector<double>> ink_tr, ink_te, dist_tr, dist_te;
  std::vector<MarkerPair> mk_tr(tr.size()), mk_te(te.size());
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < int64_t(tr.size()); ++i) mk_tr[size_t(i)] = find_markers(tr.seqs[size_t(i)], tr.height, tr.width);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < int64_t(te.size()); ++i) mk_te[size_t(i)] = find_markers(te.seqs[size_t(i)], te.height, te.width);
  for (size_t i = 0; i < tr.size(); ++i) {
    ink_tr.push_back(ink_features(tr.seqs[i]));
    const double d = mk_tr[i].distance();
    dist_tr.push_back({d, d * d});
  }
  for (size_t i = 0; i < te.size(); ++i) {
    ink_te.push_back(ink_features(te.seqs[i]));
    const double d = mk_te[i].distance();
    dist_te.push_back({d, d * d});
  }
  Logistic ink, dist;
  ink.fit(ink_tr, tr.labels);
  rows.push_back({"ink", "logistic on total ink and lit pixels", accuracy_of(ink, ink_te, te.labels)});
  dist.fit(dist_tr, tr.labels);
  rows.push_back({"marker distance", "logistic on d, d^2", accuracy_of(dist, dist_te, te.labels)});

  // kNN on the four marker coordinates: brute force over the reference set.
  const size_t nref = size_t(std::min<int64_t>(opt.knn_max_train, int64_t(tr.size())));
  const int k = int(std::min<size_t>(size_t(opt.knn_k), nref));
  int64_t knn_hit = 0;
#pragma omp parallel reduction(+ : knn_hit)
  {
    std::vector<std::pair<int64_t, int32_t>> d(nref);
#pragma omp for schedule(static)
    for (int64_t i = 0; i < int64_t(te.size()); ++i) {
      const MarkerPair& q = mk_te[size_t(i)];
      for (size_t j = 0; j < nref; ++j) {
        const MarkerPair& r = mk_tr[j];
        const int64_t a = q.y[0] - r.y[0], b = q.x[0] - r.x[0], c = q.y[1] - r.y[1], e = q.x[1] - r.x[1];
        d[j] = {(a * a + b * b + c * c + e * e) * int64_t(nref) + int64_t(j), tr.labels[j]};  // ties by index
      }
      std::nth_element(d.begin(), d.begin() + (k - 1), d.end());
      int votes = 0;
      for (int t = 0; t < k; ++t) votes += d[size_t(t)].second == 1;
      const int pred = 2 * votes > k ? 1 : (2 * votes < k ? 0 : majority);
      knn_hit += pred == te.labels[size_t(i)];
    }
  }
  rows.push_back({"marker kNN",
                  "k=" + std::to_string(k) + " on " + std::to_string(nref) + " of " + std::to_string(tr.size()) +
                      " train, 4 marker coordinates",
                  double(knn_hit) / double(te.size())});
  return rows;
}

std::string format_shortcut_rows(const std::vector<ShortcutRow>& rows) {
  std::ostringstream o;
  for (const ShortcutRow& r : rows) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "  shortcut %-16s %.4f  (%s)\n", r.name.c_str(), r.test_accuracy, r.detail.c_str());
    o << buf;
  }
  return o.str();
}

PathfinderStats pathfinder_statistics(const Dataset& ds) {
  check_images(ds, "data set");
  PathfinderStats st;
  double ink2[2] = {0, 0}, d2[2] = {0, 0};
  for (size_t i = 0; i < ds.size(); ++i) {
    const int y = ds.labels[i] == 1 ? 1 : 0;
    PathfinderLabelStats& L = st.label[y];
    const std::vector<double> f = ink_features(ds.seqs[i]);
    const double d = find_markers(ds.seqs[i], ds.height, ds.width).distance();
    ++L.count;
    L.ink_mean += f[0], ink2[y] += f[0] * f[0], L.lit_mean += f[1];
    L.marker_distance_mean += d, d2[y] += d * d;
  }
  for (int y = 0; y < 2; ++y) {
    PathfinderLabelStats& L = st.label[y];
    if (!L.count) continue;
    const double n = double(L.count);
    L.ink_mean /= n, L.lit_mean /= n, L.marker_distance_mean /= n;
    L.ink_sd = std::sqrt(std::max(0.0, ink2[y] / n - L.ink_mean * L.ink_mean));
    L.marker_distance_sd = std::sqrt(std::max(0.0, d2[y] / n - L.marker_distance_mean * L.marker_distance_mean));
  }
  return st;
}

std::string format_statistics(const PathfinderStats& st) {
  std::ostringstream o;
  for (int y = 0; y < 2; ++y) {
    const PathfinderLabelStats& L = st.label[y];
    char buf[256];
    std::snprintf(buf, sizeof buf, "  label %d: %lld images, ink %.0f +- %.0f, lit pixels %.1f, marker distance %.2f +- %.2f\n",
                  y, (long long)L.count, L.ink_mean, L.ink_sd, L.lit_mean, L.marker_distance_mean, L.marker_distance_sd);
    o << buf;
  }
  return o.str();
}

std::vector<LawStat> pathfinder_law(const Dataset& ds, const ShortcutOptions& opt) {
  check_images(ds, "data set");
  const char* bins[5] = {"pixels at 0", "pixels at 1..50", "pixels at 51..127", "pixels at 128..203", "pixels at 204..255"};
  const int lo[5] = {0, 1, 51, 128, 204}, hi[5] = {0, 50, 127, 203, 255};
  // Running sums per figure: 5 bins, mean value, then per label ink and marker distance.
  std::vector<double> s1(10, 0.0), s2(10, 0.0), cnt(10, 0.0);
  auto add = [&](size_t k, double v) { s1[k] += v, s2[k] += v * v, cnt[k] += 1; };
  for (size_t i = 0; i < ds.size(); ++i) {
    double b[5] = {0, 0, 0, 0, 0}, sum = 0;
    for (int32_t t : ds.seqs[i]) {
      const int v = t - 1;
      sum += v;
      for (int k = 0; k < 5; ++k) b[k] += v >= lo[k] && v <= hi[k];
    }
    for (size_t k = 0; k < 5; ++k) add(k, b[k]);
    add(5, sum / double(ds.seqs[i].size()));
    const size_t y = ds.labels[i] == 1 ? 1 : 0;
    add(6 + y, sum);
    add(8 + y, find_markers(ds.seqs[i], ds.height, ds.width).distance());
  }
  const std::string names[10] = {bins[0], bins[1], bins[2], bins[3], bins[4], "mean pixel value",
                                 "label 0: ink", "label 1: ink", "label 0: marker distance", "label 1: marker distance"};
  std::vector<LawStat> out;
  for (size_t k = 0; k < 10; ++k) {
    // the standard error of the mean: the sample standard deviation (n - 1) over sqrt(n)
    const double n = std::max(1.0, cnt[k]), m = s1[k] / n, var = std::max(0.0, s2[k] - n * m * m) / std::max(1.0, n - 1);
    out.push_back({names[k], m, std::sqrt(var / n)});
  }
  Splits halves;
  for (Dataset* d : {&halves.train, &halves.test}) {
    d->vocab_size = ds.vocab_size, d->num_classes = ds.num_classes, d->class_names = ds.class_names;
    d->height = ds.height, d->width = ds.width, d->channels = ds.channels;
  }
  for (size_t i = 0; i < ds.size(); ++i) {
    Dataset& d = i % 2 ? halves.test : halves.train;
    d.seqs.push_back(ds.seqs[i]);
    d.labels.push_back(ds.labels[i]);
  }
  const double nt = double(halves.test.size());
  for (const ShortcutRow& r : pathfinder_shortcut_baselines(halves, opt))
    out.push_back({"shortcut " + r.name, r.test_accuracy, std::sqrt(r.test_accuracy * (1 - r.test_accuracy) / nt)});
  return out;
}

std::string format_law(const std::vector<LawStat>& ours, const std::vector<LawStat>* ref) {
  std::ostringstream o;
  for (const LawStat& a : ours) {
    char buf[256];
    int n = std::snprintf(buf, sizeof buf, "  %-26s %9.3f +- %.3f", a.name.c_str(), a.mean, a.se);
    if (ref)
      for (const LawStat& b : *ref)
        if (b.name == a.name) {
          const double z = (a.mean - b.mean) / std::max(1e-12, std::hypot(a.se, b.se));
          std::snprintf(buf + n, sizeof buf - size_t(n), "   ref %9.3f +- %.3f   gap %+.1f se", b.mean, b.se, z);
        }
    o << buf << "\n";
  }
  return o.str();
}

}  // namespace az
