// The byte n-gram baseline (see ngram.h).
#include "data/lm/ngram.h"

#include <algorithm>
#include <cmath>

#include "data/dataset.h"

namespace az {

namespace {
// The k bytes before position p as one number, nearest byte lowest.
uint64_t history(const uint8_t* end, int k) {
  uint64_t h = 0;
  for (int i = k; i >= 1; --i) h = (h << 8) | end[-i];
  return h;
}
}  // namespace

ByteNgram::ByteNgram(const std::string& bytes, size_t begin, size_t end, int order) {
  if (order < 1 || order > 8) throw DataError("n-gram: order must be in 1..8, got " + std::to_string(order));
  if (end > bytes.size() || begin >= end) throw DataError("n-gram: empty training range");
  const uint8_t* t = reinterpret_cast<const uint8_t*>(bytes.data());
  levels_.resize(size_t(order));
  std::vector<uint64_t> keys;
  for (int k = 0; k < order; ++k) {
    Level& L = levels_[size_t(k)];
    keys.clear();
    for (size_t p = begin + size_t(k); p < end; ++p) keys.push_back((history(t + p, k) << 8) | t[p]);
    std::sort(keys.begin(), keys.end());
    int64_t n1 = 0, n2 = 0;
    for (size_t i = 0; i < keys.size();) {
      size_t j = i;
      while (j < keys.size() && keys[j] == keys[i]) ++j;
      uint32_t c = uint32_t(j - i);
      L.grams.push_back(keys[i]), L.count.push_back(c);
      n1 += c == 1, n2 += c == 2;
      uint64_t h = keys[i] >> 8;
      if (L.hists.empty() || L.hists.back() != h) L.hists.push_back(h), L.total.push_back(0), L.distinct.push_back(0);
      L.total.back() += c, L.distinct.back() += 1;
      i = j;
    }
    L.discount = n1 + n2 > 0 ? double(n1) / double(n1 + 2 * n2) : 0.5;
    if (!(L.discount > 0 && L.discount < 1)) L.discount = 0.5;
  }
}

double ByteNgram::prob(const uint8_t* hist, size_t n, uint8_t next, int use_order) const {
  double p = 1.0 / 256.0;
  int top = std::min<int>(std::min(use_order, order()) - 1, int(n));
  for (int k = 0; k <= top; ++k) {
    const Level& L = levels_[size_t(k)];
    uint64_t h = history(hist + n, k);
    auto it = std::lower_bound(L.hists.begin(), L.hists.end(), h);
    if (it == L.hists.end() || *it != h) break;  // unseen history: longer ones are unseen too
    size_t i = size_t(it - L.hists.begin());
    double T = L.total[i], U = L.distinct[i];
    uint64_t g = (h << 8) | next;
    auto gt = std::lower_bound(L.grams.begin(), L.grams.end(), g);
    double c = gt != L.grams.end() && *gt == g ? L.count[size_t(gt - L.grams.begin())] : 0.0;
    p = std::max(c - L.discount, 0.0) / T + L.discount * U / T * p;
  }
  return p;
}

double ByteNgram::bits_per_byte(const std::string& bytes, size_t begin, size_t end, int use_order) const {
  const uint8_t* t = reinterpret_cast<const uint8_t*>(bytes.data());
  double bits = 0;
  for (size_t p = begin + 1; p < end; ++p) {
    size_t n = std::min<size_t>(p - begin, size_t(std::min(use_order, order()) - 1));
    bits -= std::log2(prob(t + p - n, n, t[p], use_order));
  }
  return end > begin + 1 ? bits / double(end - begin - 1) : 0.0;
}

double unigram_entropy(const std::string& bytes, size_t begin, size_t end) {
  std::vector<double> c(256, 0.0);
  for (size_t p = begin; p < end; ++p) c[uint8_t(bytes[p])] += 1;
  double n = double(end - begin), h = 0;
  for (double x : c)
    if (x > 0) h -= x / n * std::log2(x / n);
  return h;
}

}  // namespace az
