// What a Text document's class gives away without reading it as a sequence
// (the Text rows of the LRA table), each fit on train and scored on test:
//   majority      the train majority class;
//   length_only   the train majority class of each half-octave length bin;
//   bag_of_bytes  softmax regression on the byte histogram: what a model
//                 that counts bytes and never reads their order can learn.
// A sequence model must beat bag_of_bytes before its accuracy says anything
// about reading a document, let alone about long range.
// Cost: O(documents * 256 * classes * 300) for the regression (about a
// second for Spam Assassin's 4,701 training e-mails), linear otherwise.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "data/text/text.h"

namespace az {
namespace {

int32_t class_count(const Splits& s) {
  int32_t c = 2;
  for (const Dataset* d : {&s.train, &s.val, &s.test})
    for (int32_t y : d->labels) c = std::max(c, y + 1);
  return c;
}

int32_t majority_of(const Dataset& d, int32_t classes) {
  std::vector<size_t> n(size_t(classes), 0);
  for (int32_t y : d.labels) n[size_t(y)]++;
  return int32_t(std::max_element(n.begin(), n.end()) - n.begin());
}

double share(const std::vector<int32_t>& guess, const Dataset& d) {
  size_t right = 0;
  for (size_t i = 0; i < d.size(); ++i) right += guess[i] == d.labels[i];
  return d.size() ? double(right) / double(d.size()) : 0;
}

// Byte histograms (fractions of the document), standardised with train's
// mean and deviation: [documents, 256] for each split.
std::array<std::vector<float>, 3> histograms(const Splits& s) {
  std::array<std::vector<float>, 3> x;
  const Dataset* ds[3] = {&s.train, &s.val, &s.test};
  for (int g = 0; g < 3; ++g) {
    x[g].assign(ds[g]->size() * 256, 0.f);
    for (size_t i = 0; i < ds[g]->size(); ++i) {
      const auto& t = ds[g]->seqs[i];
      for (int32_t v : t) x[g][i * 256 + size_t(std::clamp(v - 1, 0, 255))] += 1.f / float(std::max<size_t>(t.size(), 1));
    }
  }
  const size_t n = s.train.size();
  for (size_t k = 0; k < 256; ++k) {
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; ++i) mean += x[0][i * 256 + k];
    mean /= double(std::max<size_t>(n, 1));
    for (size_t i = 0; i < n; ++i) var += std::pow(x[0][i * 256 + k] - mean, 2);
    double sd = std::sqrt(var / double(std::max<size_t>(n, 1))) + 1e-8;
    for (auto& xg : x)
      for (size_t i = 0; i < xg.size() / 256; ++i) xg[i * 256 + k] = float((xg[i * 256 + k] - mean) / sd);
  }
  return x;
}

// Softmax regression on 256 features by full-batch Adam with a little L2;
// the weights of the epoch with the best validation accuracy (train's
// without a validation split) give the test predictions.
std::vector<int32_t> bag_of_bytes_guesses(const Splits& s, int32_t classes) {
  const size_t D = 256, C = size_t(classes), W = (D + 1) * C;
  auto x = histograms(s);
  std::vector<float> w(W, 0.f), best = w, m(W, 0.f), v(W, 0.f), g(W);
  auto scores = [&](const float* xi, const std::vector<float>& wt, std::vector<double>& z) {
    for (size_t c = 0; c < C; ++c) {
      z[c] = wt[D * C + c];
      for (size_t k = 0; k < D; ++k) z[c] += double(wt[k * C + c]) * xi[k];
    }
  };
  auto guesses = [&](const std::vector<float>& xs, size_t n, const std::vector<float>& wt) {
    std::vector<int32_t> out(n);
    std::vector<double> z(C);
    for (size_t i = 0; i < n; ++i) scores(&xs[i * D], wt, z), out[i] = int32_t(std::max_element(z.begin(), z.end()) - z.begin());
    return out;
  };
  const Dataset& pick = s.val.size() ? s.val : s.train;
  const std::vector<float>& xpick = s.val.size() ? x[1] : x[0];
  const float lr = 0.01f, l2 = 1e-3f, b1 = 0.9f, b2 = 0.999f;
  const size_t n = s.train.size();
  double best_acc = -1;
  std::vector<double> z(C);
  for (int epoch = 1; epoch <= 300 && n > 0; ++epoch) {
    std::fill(g.begin(), g.end(), 0.f);
    for (size_t i = 0; i < n; ++i) {
      const float* xi = &x[0][i * D];
      scores(xi, w, z);
      double top = *std::max_element(z.begin(), z.end()), sum = 0;
      for (double& zc : z) sum += (zc = std::exp(zc - top));
      for (size_t c = 0; c < C; ++c) {
        float err = float(z[c] / sum - (int32_t(c) == s.train.labels[i]));  // d(cross-entropy)/dz_c
        for (size_t k = 0; k < D; ++k) g[k * C + c] += err * xi[k];
        g[D * C + c] += err;
      }
    }
    for (size_t k = 0; k < W; ++k) {
      float gk = g[k] / float(n) + (k < D * C ? l2 * w[k] : 0.f);
      m[k] = b1 * m[k] + (1 - b1) * gk;
      v[k] = b2 * v[k] + (1 - b2) * gk * gk;
      float mh = m[k] / (1 - std::pow(b1, float(epoch))), vh = v[k] / (1 - std::pow(b2, float(epoch)));
      w[k] -= lr * mh / (std::sqrt(vh) + 1e-8f);
    }
    if (epoch % 10 == 0) {
      double a = share(guesses(xpick, pick.size(), w), pick);
      if (a > best_acc) best_acc = a, best = w;
    }
  }
  return guesses(x[2], s.test.size(), best);
}

int length_bin(size_t n) { return int(std::floor(2 * std::log2(double(n) + 1))); }

}  // namespace

TextBaselines text_baselines(const Splits& s) {
  TextBaselines b;
  b.n_test = s.test.size();
  const int32_t classes = class_count(s), majority = majority_of(s.train, classes);
  b.majority = share(std::vector<int32_t>(s.test.size(), majority), s.test);
  std::map<int, std::vector<size_t>> by_bin;  // length bin -> train class counts
  for (size_t i = 0; i < s.train.size(); ++i) {
    auto& counts = by_bin[length_bin(s.train.seqs[i].size())];
    counts.resize(size_t(classes), 0);
    counts[size_t(s.train.labels[i])]++;
  }
  std::vector<int32_t> guess(s.test.size(), majority);
  for (size_t i = 0; i < s.test.size(); ++i) {
    auto it = by_bin.find(length_bin(s.test.seqs[i].size()));
    if (it == by_bin.end()) continue;
    int32_t top = int32_t(std::max_element(it->second.begin(), it->second.end()) - it->second.begin());
    if (it->second[size_t(top)] > it->second[size_t(majority)]) guess[i] = top;  // ties keep the majority
  }
  b.length_only = share(guess, s.test);
  b.bag_of_bytes = share(bag_of_bytes_guesses(s, classes), s.test);
  return b;
}

}  // namespace az
