// A smoothed byte n-gram model, the baseline a language model must beat:
// interpolated absolute discounting (Ney, Essen and Kneser 1994) with one
// discount per order, D = n1 / (n1 + 2 n2) (n1, n2: the n-grams seen once and
// twice), interpolated down to the uniform 1/256:
//   P_k(c | h) = max(#(h c) - D_k, 0) / #h + D_k * u(h) / #h * P_{k-1}(c | h'),
// h the k previous bytes, h' the k-1 nearest, u(h) the distinct bytes after h.
// A history never seen falls back to the shorter one.  Counts are sorted
// arrays (binary search), built in O(T log T) for T training bytes per order.
// Also the unigram entropy of a text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace az {

class ByteNgram {
 public:
  // Fits orders 1..order (histories of 0..order-1 bytes) on bytes[begin, end).  order in 1..8.
  ByteNgram(const std::string& bytes, size_t begin, size_t end, int order);
  int order() const { return int(levels_.size()); }
  // P(next | hist[0..n)), hist ending just before next, using at most order-1 of its bytes
  // (use_order <= order() limits the model to that order).
  double prob(const uint8_t* hist, size_t n, uint8_t next, int use_order) const;
  // Mean -log2 P of bytes[begin+1 .. end), each given the bytes before it in [begin, p):
  // the bytes an lm split predicts (data/lm/lm_corpus.h).
  double bits_per_byte(const std::string& bytes, size_t begin, size_t end, int use_order) const;
  double discount(int k) const { return levels_[size_t(k)].discount; }

 private:
  struct Level {  // histories of k bytes
    std::vector<uint64_t> grams;    // (history << 8) | next, sorted, unique
    std::vector<uint32_t> count;    // of each gram
    std::vector<uint64_t> hists;    // histories, sorted, unique
    std::vector<uint32_t> total, distinct;  // #h and u(h) of each history
    double discount = 0.5;
  };
  std::vector<Level> levels_;
};

// -sum f log2 f of the byte frequencies of bytes[begin, end).
double unigram_entropy(const std::string& bytes, size_t begin, size_t end);

}  // namespace az
