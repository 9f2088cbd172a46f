// Multi-query associative recall (MQAR; Arora et al. 2023, "Zoology",
// HazyResearch/zoology zoology/data/multiquery_ar.py), written afresh.
//
// An example of length T with N pairs:
//
//   k1 v1 k2 v2 ... kN vN | f f q f f f q f ... f          (| only for reading)
//   targets: ignored over the pairs; at a query q = k_i the target is v_i;
//            ignored at every filler f.
//
// Vocabulary V (ids 0..V-1): 0 is padding; keys are drawn from [1, 1 + h) and
// values from [1 + h, V), h = (V - 1) / 2, all N keys distinct and all N values
// distinct within an example.  After the 2N pair tokens the rest of the
// sequence is cut into (T - 2N) / 2 two-token slots; every key is queried once,
// at the first token of a slot, the slot chosen without replacement with
// P(slot i) proportional to (i + 1)^(a - 1), a = power_a (0.01: queries cluster
// soon after the pairs, as the gap between repeated bigrams in text does).
// Every other position holds a filler token.
//
// Departures from Zoology, and why:
//  - The target sits at the query's own position (Zoology's label there is the
//    same: its labels are shifted by one, so the query position predicts the
//    value).  The value itself never appears in the input after its query:
//    one data set then serves causal and non-causal models alike (a
//    non-causal model sees the whole input, and must not find the answer
//    after the question).
//  - Filler tokens are random, as Zoology's random_non_queries, but drawn from
//    the keys and values that are NOT this example's (Zoology draws from the
//    whole vocabulary, so a filler may repeat an example's key, an unasked
//    second query, or its value after the query).  Filler then never looks like
//    a question or an answer of the example.  The vocabulary must therefore
//    leave at least one token outside the example's pairs (V >= 2N + 2).
//  - Id 0 is padding here (the project's convention) and never content;
//    Zoology uses 0 as the filler before randomising it.
//  - The default vocabulary is 512, not Zoology's 8192: at our CPU budget (about one pass over
//    20K examples) a key of 8192 ids is seen a few dozen times; --vocab 8192 gives Zoology's.
//    (The token head scores only the query positions, so a large vocabulary costs little time.)
//  - A sequence length need not be even: an odd T leaves one last filler.
//  - Every example draws from its own seed (the split's seed and its index),
//    so the first n examples of a split do not depend on how many are made;
//    train, validation and test use different seeds.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace az {

struct MqarConfig {
  int64_t seq_len = 256, pairs = 16, vocab = 512;
  double power_a = 0.01;
  int64_t n_train = 20000, n_val = 500, n_test = 1000;
  uint64_t seed = 1;
};

// Refuses (one line naming the flag) pairs that do not fit in seq_len (N pairs
// and N query slots need 4N tokens), a vocabulary without room for N distinct
// keys, N distinct values and a filler (V >= 2N + 2), a non-positive power_a.
void check_mqar(const MqarConfig& c);

// Example `index` of the stream `stream` (0 train, 1 val, 2 test): tokens and
// per-position targets (kIgnoreTarget except at the queries).
struct MqarExample {
  std::vector<int32_t> tokens, targets;
};
MqarExample mqar_example(const MqarConfig& c, int stream, int64_t index);

// n examples of a stream as a Dataset (vocab_size = num_classes = V, targets per position).
Dataset mqar_dataset(const MqarConfig& c, int stream, int64_t n);
Splits mqar_splits(const MqarConfig& c);

// The first key and value ids: keys [kMqarFirstKey, first_value), values [first_value, V).
constexpr int32_t kMqarFirstKey = 1;
int32_t mqar_first_value(int64_t vocab);
// P(slot i) of the query gaps, i in [0, slots): proportional to (i + 1)^(a - 1), summing to 1.
std::vector<double> mqar_gap_probabilities(int64_t slots, double power_a);

}  // namespace az
