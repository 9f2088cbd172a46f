// Generation from a language model (the lm task's token head): a decoder that
// feeds one byte at a time and returns the logits of the next, and sampling
// (temperature, top-k, top-p).  Each layer keeps the decoding state of its
// variant (attention/decode/decode.h: a KV cache, a window of it, the recurrent
// state S, z, ...); a variant without one re-runs the whole prefix per token, and
// `method()` says which.  `attnzoo generate` (train/generate.cpp) and
// `attnzoo bench-generate` (train/lab/bench_generate.cpp) use it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attention/decode/decode.h"
#include "train/model.h"

namespace az {

class LmDecoder {
 public:
  // model: a causal token-head model without CLS; put in evaluation mode.
  explicit LmDecoder(SequenceClassifier& model);
  // Feeds the token at the next position; returns the logits [C] for the one after it.
  std::vector<float> feed(int32_t token);
  int64_t position() const { return int64_t(tokens_.size()); }  // tokens fed
  bool incremental() const { return !states_.empty(); }
  std::string method() const;  // "KV cache", "recurrent state", "re-runs the prefix for each token"
  int64_t state_bytes() const;  // of every layer's state (re-run: the prefix's tokens)
  void reset();                 // back to position 0

 private:
  SequenceClassifier& model_;
  std::vector<std::unique_ptr<DecodeState>> states_;  // one per block, empty when re-running
  std::vector<int32_t> tokens_;
  std::vector<std::vector<Tensor>> conv_past_;  // per block with --short-conv: its last K-1 inputs
};

struct SamplingOptions {
  double temperature = 1.0;  // 0: the most likely byte (greedy)
  int64_t top_k = 0;         // keep the k most likely (0: all)
  double top_p = 1.0;        // keep the smallest set whose probability reaches p (1: all)
};
// Checks the ranges: one line naming the flag, the value and what was expected.
void check_sampling(const SamplingOptions& o, int64_t classes);
// A class drawn from logits [C] under the options.
int32_t sample_logits(const std::vector<float>& logits, const SamplingOptions& o, Rng& rng);

// Writes bytes to a FILE as they come: valid UTF-8 as is, each byte of an
// invalid sequence and each control byte other than \n and \t as U+FFFD.
class Utf8Printer {
 public:
  explicit Utf8Printer(std::FILE* f) : f_(f) {}
  void put(uint8_t b);
  void flush();  // an unfinished sequence at the end as U+FFFD
  const std::string& written() const { return out_; }  // everything written (for tests)

 private:
  void emit(const std::string& s);
  std::FILE* f_;
  std::string pending_, out_;
  int need_ = 0;  // continuation bytes still expected
};

}  // namespace az
