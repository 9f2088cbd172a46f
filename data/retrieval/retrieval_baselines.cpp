// What a Retrieval pair gives away without reading it as a sequence, and
// LRA's TSV form of the pairs.
//
// Baselines, each fit on train and scored on test:
//   majority      the train majority class;
//   length_only   a lookup table on the unordered pair of half-octave
//                 length bins (the negatives are length-matched: ~50%);
//   section_only  a lookup table on the unordered section pair (negatives
//                 take the section of the positive's partner: ~50%);
//   bag_of_bytes  logistic regression on [h1, h2, h1*h2, |h1-h2|], h = the
//                 byte histogram of the first max_bytes of each document
//                 (what a model that only counts bytes can learn);
//   cosine        tf-idf cosine of the two documents' words, the threshold
//                 fit on train (what shared rare words give).
// Cost: O(pairs * 1024 * epochs) for the regression, linear otherwise.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "data/retrieval/retrieval.h"
#include "data/text/text.h"

namespace az {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw DataError("retrieval: " + msg); }

// Lookup-table classifier: the train majority label of each key, the global
// train majority for keys train never saw.  Returns test accuracy.
double table_accuracy(const std::vector<std::string>& train_keys, const std::vector<int32_t>& train_labels,
                      const std::vector<std::string>& test_keys, const std::vector<int32_t>& test_labels,
                      int32_t majority) {
  std::map<std::string, std::array<size_t, 2>> counts;
  for (size_t i = 0; i < train_keys.size(); ++i) counts[train_keys[i]][size_t(train_labels[i] != 0)]++;
  size_t right = 0;
  for (size_t i = 0; i < test_keys.size(); ++i) {
    auto it = counts.find(test_keys[i]);
    int32_t guess = majority;
    if (it != counts.end() && it->second[0] != it->second[1]) guess = it->second[1] > it->second[0];
    right += guess == test_labels[i];
  }
  return test_keys.empty() ? 0 : double(right) / double(test_keys.size());
}

std::string length_key(size_t a, size_t b) {
  auto bin = [](size_t n) { return int(std::floor(2 * std::log2(double(n) + 1))); };
  int x = bin(a), y = bin(b);
  if (y < x) std::swap(x, y);
  return std::to_string(x) + "|" + std::to_string(y);
}

std::vector<float> histogram(const std::vector<int32_t>& t, size_t max_bytes) {
  std::vector<float> h(256, 0.f);
  size_t n = max_bytes ? std::min(max_bytes, t.size()) : t.size();
  for (size_t i = 0; i < n; ++i) h[size_t(std::clamp(t[i] - 1, 0, 255))] += 1.f;
  for (float& v : h) v /= float(std::max<size_t>(n, 1));
  return h;
}

// [h1, h2, h1*h2, |h1-h2|] for every pair of d: [pairs, 1024].
std::vector<float> pair_features(const Dataset& d, size_t max_bytes) {
  std::vector<float> x(d.size() * 1024);
  for (size_t i = 0; i < d.size(); ++i) {
    std::vector<float> a = histogram(d.seqs[i], max_bytes), b = histogram(d.seqs2[i], max_bytes);
    float* row = &x[i * 1024];
    for (size_t k = 0; k < 256; ++k) {
      row[k] = a[k];
      row[256 + k] = b[k];
      row[512 + k] = a[k] * b[k];
      row[768 + k] = std::fabs(a[k] - b[k]);
    }
  }
  return x;
}

// Logistic regression by full-batch Adam with a little L2; the weights of
// the epoch with the best validation accuracy are kept.  Features are
// standardised with train's mean and deviation.
double logistic_accuracy(std::vector<float> xtr, const std::vector<int32_t>& ytr, std::vector<float> xva,
                         const std::vector<int32_t>& yva, std::vector<float> xte, const std::vector<int32_t>& yte,
                         size_t D) {
  const size_t n = ytr.size();
  std::vector<double> mean(D, 0), sd(D, 0);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < D; ++k) mean[k] += xtr[i * D + k];
  for (size_t k = 0; k < D; ++k) mean[k] /= double(std::max<size_t>(n, 1));
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < D; ++k) sd[k] += std::pow(xtr[i * D + k] - mean[k], 2);
  for (size_t k = 0; k < D; ++k) sd[k] = std::sqrt(sd[k] / double(std::max<size_t>(n, 1))) + 1e-8;
  for (std::vector<float>* x : {&xtr, &xva, &xte})
    for (size_t i = 0; i < x->size(); ++i) (*x)[i] = float(((*x)[i] - mean[i % D]) / sd[i % D]);
  std::vector<float> w(D + 1, 0.f), best = w, m(D + 1, 0.f), v(D + 1, 0.f), g(D + 1);
  auto accuracy = [&](const std::vector<float>& x, const std::vector<int32_t>& y, const std::vector<float>& wt) {
    size_t right = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      double z = wt[D];
      for (size_t k = 0; k < D; ++k) z += double(wt[k]) * x[i * D + k];
      right += (z > 0) == (y[i] != 0);
    }
    return y.empty() ? 0.0 : double(right) / double(y.size());
  };
  const float lr = 0.01f, l2 = 1e-3f, b1 = 0.9f, b2 = 0.999f;
  double best_val = -1;
  for (int epoch = 1; epoch <= 300 && n > 0; ++epoch) {
    std::fill(g.begin(), g.end(), 0.f);
    for (size_t i = 0; i < n; ++i) {
      const float* xi = &xtr[i * D];
      double z = w[D];
      for (size_t k = 0; k < D; ++k) z += double(w[k]) * xi[k];
      float err = float(1 / (1 + std::exp(-z)) - (ytr[i] != 0));  // d(log loss)/dz
      for (size_t k = 0; k < D; ++k) g[k] += err * xi[k];
      g[D] += err;
    }
    for (size_t k = 0; k <= D; ++k) {
      float gk = g[k] / float(n) + (k < D ? l2 * w[k] : 0.f);
      m[k] = b1 * m[k] + (1 - b1) * gk;
      v[k] = b2 * v[k] + (1 - b2) * gk * gk;
      float mh = m[k] / (1 - std::pow(b1, float(epoch))), vh = v[k] / (1 - std::pow(b2, float(epoch)));
      w[k] -= lr * mh / (std::sqrt(vh) + 1e-8f);
    }
    if (epoch % 10 == 0) {
      double a = yva.empty() ? accuracy(xtr, ytr, w) : accuracy(xva, yva, w);
      if (a > best_val) best_val = a, best = w;
    }
  }
  return accuracy(xte, yte, best);
}

// Words: runs of letters, digits and '_', lower-cased.
std::unordered_map<std::string, float> word_counts(const std::vector<int32_t>& t, size_t max_bytes) {
  std::unordered_map<std::string, float> c;
  std::string w;
  size_t n = max_bytes ? std::min(max_bytes, t.size()) : t.size();
  for (size_t i = 0; i <= n; ++i) {
    int ch = i < n ? t[i] - 1 : ' ';
    if (std::isalnum(ch) || ch == '_') {
      w += char(std::tolower(ch));
    } else if (!w.empty()) {
      c[w] += 1;
      w.clear();
    }
  }
  return c;
}

// tf-idf cosine of each pair; idf from train's distinct documents.
struct Cosine {
  std::unordered_map<std::string, double> idf;
  double fallback = 0;
  size_t max_bytes;
  explicit Cosine(const Dataset& train, size_t mb) : max_bytes(mb) {
    std::map<std::vector<int32_t>, bool> seen;
    size_t docs = 0;
    for (size_t i = 0; i < train.size(); ++i)
      for (const auto* s : {&train.seqs[i], &train.seqs2[i]}) {
        if (!seen.emplace(*s, true).second) continue;
        ++docs;
        for (const auto& [w, c] : word_counts(*s, max_bytes)) idf[w] += 1;
      }
    for (auto& [w, df] : idf) df = std::log((1.0 + double(docs)) / (1.0 + df)) + 1;
    fallback = std::log(1.0 + double(docs)) + 1;  // a word train never saw
  }
  double operator()(const std::vector<int32_t>& a, const std::vector<int32_t>& b) const {
    auto weigh = [&](const std::vector<int32_t>& t) {
      auto c = word_counts(t, max_bytes);
      double norm = 0;
      for (auto& [w, x] : c) {
        auto it = idf.find(w);
        x = float(x * (it == idf.end() ? fallback : it->second));
        norm += double(x) * x;
      }
      return std::make_pair(c, std::sqrt(norm) + 1e-12);
    };
    auto [ca, na] = weigh(a);
    auto [cb, nb] = weigh(b);
    double dot = 0;
    for (const auto& [w, x] : ca) {
      auto it = cb.find(w);
      if (it != cb.end()) dot += double(x) * it->second;
    }
    return dot / (na * nb);
  }
};

}  // namespace

RetrievalBaselines retrieval_baselines(const Splits& s, const std::array<std::vector<std::string>, 3>* section_keys,
                                       size_t max_bytes) {
  for (const Dataset* d : {&s.train, &s.val, &s.test})
    if (d->seqs2.size() != d->seqs.size() || d->labels.size() != d->seqs.size())
      fail("baselines need pairs (seqs, seqs2 and labels of one size)");
  if (s.train.size() == 0 || s.test.size() == 0) fail("baselines need train and test pairs");
  RetrievalBaselines r;
  r.n_test = s.test.size();
  size_t pos = 0;
  for (int32_t y : s.train.labels) pos += y != 0;
  int32_t majority = 2 * pos > s.train.size() ? 1 : 0;
  size_t right = 0;
  for (int32_t y : s.test.labels) right += (y != 0) == (majority != 0);
  r.majority = double(right) / double(s.test.size());

  auto length_keys = [](const Dataset& d) {
    std::vector<std::string> k;
    for (size_t i = 0; i < d.size(); ++i) k.push_back(length_key(d.seqs[i].size(), d.seqs2[i].size()));
    return k;
  };
  r.length_only = table_accuracy(length_keys(s.train), s.train.labels, length_keys(s.test), s.test.labels, majority);
  if (section_keys)
    r.section_only = table_accuracy((*section_keys)[0], s.train.labels, (*section_keys)[2], s.test.labels, majority);

  r.bag_of_bytes = logistic_accuracy(pair_features(s.train, max_bytes), s.train.labels,
                                     pair_features(s.val, max_bytes), s.val.labels, pair_features(s.test, max_bytes),
                                     s.test.labels, 1024);

  Cosine cos(s.train, max_bytes);
  std::vector<std::pair<double, int32_t>> tr;
  for (size_t i = 0; i < s.train.size(); ++i) tr.push_back({cos(s.train.seqs[i], s.train.seqs2[i]), s.train.labels[i]});
  std::sort(tr.begin(), tr.end());
  // The threshold with the best train accuracy: above it, "linked".
  size_t pos_above = pos, neg_below = 0, best = pos_above;
  double threshold = tr.front().first - 1;
  for (size_t i = 0; i < tr.size(); ++i) {
    if (tr[i].second) --pos_above;  // at or below the threshold: called unlinked
    else ++neg_below;
    bool cut = i + 1 == tr.size() || tr[i + 1].first > tr[i].first;
    if (cut && pos_above + neg_below > best) best = pos_above + neg_below, threshold = tr[i].first;
  }
  right = 0;
  for (size_t i = 0; i < s.test.size(); ++i)
    right += (cos(s.test.seqs[i], s.test.seqs2[i]) > threshold) == (s.test.labels[i] != 0);
  r.cosine = double(right) / double(s.test.size());
  return r;
}

std::string format_baselines(const RetrievalBaselines& b) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  o << "retrieval baselines on " << b.n_test << " test pairs: majority " << 100 * b.majority << "%, length only "
    << 100 * b.length_only << "%, ";
  if (b.section_only >= 0) o << "section only " << 100 * b.section_only << "%, ";
  o << "bag of bytes " << 100 * b.bag_of_bytes << "%, tf-idf cosine " << 100 * b.cosine << "%\n";
  return o.str();
}

}  // namespace az
