// ListOps (Nangia & Bowman 2018, as used by Long Range Arena): nested lists of
// digits under MIN, MAX, MED (integer median) and SM (sum mod 10); the label is
// the value of the whole expression, 10 classes.
//
// The generator follows LRA's lra_benchmarks/data/listops/listops.py: below max_depth
// a node is an operator with probability p_op (else a digit 0-9), operators
// take a uniform number of arguments in [2, max_args], a tree is kept only if
// min_len < length < max_len (length counts operators, digits and ']', not
// parentheses) and distinct trees only are kept.  The text form is LRA's TSV:
//
//   Source<TAB>Target
//   ( ( ( [MAX 4 ) 3 ) ] )<TAB>4
//
// Tokenisation follows the LRA loaders: parentheses are dropped and ']' is a
// closing token of its own.  (LRA's original tfds tokeniser dropped ']' with
// the other punctuation; later loaders, e.g. S4's, map it to 'X' as we do.)
#pragma once
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "data/dataset.h"

namespace az {

struct ListOpsConfig {
  int min_len = 20, max_len = 120;  // keep a tree if min_len < length < max_len
  int max_depth = 4;                // root is depth 1; depth max_depth holds digits only
  int max_args = 5;                 // operator arity is uniform in [2, max_args]
  double p_op = 0.25;               // below max_depth: operator with probability p_op
  uint64_t seed = 1;
  int n_train = 20000, n_val = 1000, n_test = 1000;
};

// LRA's data: 500 < length < 2000, depth 10, up to 10 arguments, 96K/2K/2K.
ListOpsConfig listops_lra_preset();
// A small task that a 2-layer transformer learns on a CPU in minutes.
ListOpsConfig listops_default();

// Vocabulary: 0 = padding, digits 0-9 -> 1..10, then [MIN [MAX [MED [SM ].
constexpr int kListOpsVocab = 16;
constexpr int kListOpsClasses = 10;
constexpr int32_t kListOpsDigit0 = 1;  // id of digit d is kListOpsDigit0 + d
constexpr int32_t kListOpsMin = 11, kListOpsMax = 12, kListOpsMed = 13, kListOpsSm = 14;
constexpr int32_t kListOpsClose = 15;
// The text of a token id ("7", "[MED", "]"); "<pad>" for 0.
std::string listops_token_name(int32_t id);

struct ListOpsExample {
  std::string source;  // LRA's Source column, with parentheses
  int label = 0;       // the expression's value, 0-9
};

// Draws distinct trees one after the other; the same config gives the same
// stream on every platform (own splitmix64 RNG, no std:: distributions).
class ListOpsGenerator {
 public:
  explicit ListOpsGenerator(const ListOpsConfig& cfg);  // DataError on an impossible config
  void next();                      // draw the next accepted tree
  int label() const { return value_; }
  int length() const;               // tokens without parentheses
  std::string source() const;       // LRA text form
  std::vector<int32_t> ids() const; // token ids, as the tokeniser would give

 private:
  struct Node {
    int8_t token;  // 0-9 digit, else an operator id (kListOpsMin..kListOpsSm)
    int8_t arity;  // 0 for digits
  };
  bool draw_tree();  // one draw; false if rejected
  ListOpsConfig cfg_;
  uint64_t rng_;
  std::vector<Node> nodes_;  // the current tree in prefix order
  int value_ = 0;
  std::unordered_set<uint64_t> seen_;  // hashes of accepted trees (LRA keeps a set)
};

// The first `count` examples of cfg's stream (train comes first, then val, test).
std::vector<ListOpsExample> generate_listops_examples(const ListOpsConfig& cfg, size_t count);

// Reference evaluator: parses the text (parentheses optional but balanced)
// with its own stack parser and returns the value.  MED of an even count is
// int(np.median) as in LRA: the floor of the mean of the two middle values.
int listops_eval(const std::string& source);
// Same on token ids (no parentheses); checks the bracket structure.
int listops_eval_ids(const std::vector<int32_t>& ids);
// Text -> ids; DataError on an unknown token or unbalanced parentheses.
std::vector<int32_t> listops_tokenize(const std::string& source);

// TSV with header "Source<TAB>Target", one example a line, '\n' line ends.
void write_listops_tsv(const std::string& path, const std::vector<ListOpsExample>& examples);
// Reads our files and LRA's (CRLF, trailing newline tolerated).  Each source
// is tokenised and its bracket structure checked; labels must be 0-9.
Dataset read_listops_tsv(const std::string& path);

Splits generate_listops(const ListOpsConfig& cfg);
// Writes DIR/train.tsv, DIR/val.tsv, DIR/test.tsv (creating DIR), streaming:
// the LRA preset never holds the whole text in memory.  Same data as
// generate_listops(cfg).
void write_listops_dir(const ListOpsConfig& cfg, const std::string& dir);
// Reads DIR/{train,val,test}.tsv; falls back to LRA's names
// DIR/basic_{train,val,test}.tsv.  DataError if neither exists.
Splits load_listops_dir(const std::string& dir);

}  // namespace az
