// ListOps: the generator (LRA's rules), the reference evaluator, the
// tokeniser and the TSV reader/writer.  See listops.h for the format.
#include "data/listops/listops.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace az {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw DataError(where + what);
}

// Text as it appears in an error message: quoted, cut to 24 characters,
// tabs spelled out and other control bytes shown as '?', so it stays one line.
std::string quote_token(const std::string& s) {
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < 24; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\t') out += "<TAB>";
    else out += c < 32 || c == 127 ? '?' : static_cast<char>(c);
  }
  return out + (s.size() > 24 ? "...'" : "'");
}

const char* const kOpNames[4] = {"[MIN", "[MAX", "[MED", "[SM"};
const char* const kExpectedTokens = "( ) 0-9 [MIN [MAX [MED [SM ]";

bool is_digit_id(int32_t id) { return id >= kListOpsDigit0 && id < kListOpsDigit0 + 10; }
bool is_op_id(int32_t id) { return id >= kListOpsMin && id <= kListOpsSm; }

// An operator waiting for its arguments.  A histogram of the digits is all
// MIN, MAX, MED and SM need, so a frame never allocates.
struct Frame {
  int32_t op = 0;
  int position = 0;  // token position of the operator, for error messages
  int remaining = 0; // generator only: arguments still to draw
  int count = 0;
  int hist[10] = {0};
  void add(int v) { ++hist[v]; ++count; }
  // The k-th smallest argument (0-based).
  int kth(int k) const {
    for (int d = 0; d < 10; ++d) {
      if (k < hist[d]) return d;
      k -= hist[d];
    }
    return 9;  // unreachable when k < count
  }
  int value() const {
    switch (op) {
      case kListOpsMin: return kth(0);
      case kListOpsMax: return kth(count - 1);
      case kListOpsMed:  // int(np.median): even count -> floor of the middle pair's mean
        if (count % 2 == 1) return kth(count / 2);
        return (kth(count / 2 - 1) + kth(count / 2)) / 2;
      default: {  // kListOpsSm
        int s = 0;
        for (int d = 0; d < 10; ++d) s += d * hist[d];
        return s % 10;
      }
    }
  }
};

// Evaluates token ids (no parentheses).  positions[i] is the 1-based position
// of ids[i] in the text the caller reports errors against.
int eval_ids_impl(const std::vector<int32_t>& ids, const std::vector<int>& positions,
                  const std::string& where) {
  std::vector<Frame> stack;
  int result = -1;
  auto pos = [&](size_t i) { return positions.empty() ? static_cast<int>(i) + 1 : positions[i]; };
  auto deliver = [&](int v, size_t i) {
    if (!stack.empty()) {
      stack.back().add(v);
    } else if (result >= 0) {
      fail(where, "expected one expression, found a second one ending at token " +
                      std::to_string(pos(i)));
    } else {
      result = v;
    }
  };
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    if (is_digit_id(id)) {
      deliver(id - kListOpsDigit0, i);
    } else if (is_op_id(id)) {
      if (stack.empty() && result >= 0)
        fail(where, "expected one expression, found a second one starting at token " +
                        std::to_string(pos(i)));
      Frame f;
      f.op = id;
      f.position = pos(i);
      stack.push_back(f);
    } else if (id == kListOpsClose) {
      if (stack.empty())
        fail(where, "unbalanced brackets: ']' at token " + std::to_string(pos(i)) +
                        " closes no operator");
      if (stack.back().count == 0)
        fail(where, "operator '" + listops_token_name(stack.back().op) + "' at token " +
                        std::to_string(stack.back().position) + " has no arguments");
      const int v = stack.back().value();
      stack.pop_back();
      deliver(v, i);
    } else {
      fail(where, "unknown token id " + std::to_string(id) + " at token " +
                      std::to_string(pos(i)) + "; expected 1.." +
                      std::to_string(kListOpsVocab - 1));
    }
  }
  if (!stack.empty())
    fail(where, "unbalanced brackets: operator '" + listops_token_name(stack.back().op) +
                    "' at token " + std::to_string(stack.back().position) +
                    " is never closed by ']'");
  if (result < 0) fail(where, "expected an expression, got no digit or operator");
  return result;
}

// Splits on blanks, drops balanced parentheses, maps the rest to ids.
// positions receives each id's 1-based word position (parentheses counted).
std::vector<int32_t> tokenize_impl(const std::string& s, const std::string& where,
                                   std::vector<int>* positions) {
  std::vector<int32_t> ids;
  int word = 0, paren_depth = 0;
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    if (i >= n) break;
    size_t j = i;
    while (j < n && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
    ++word;
    const size_t len = j - i;
    const char c = s[i];
    int32_t id = -1;
    if (len == 1 && c == '(') {
      ++paren_depth;
    } else if (len == 1 && c == ')') {
      if (--paren_depth < 0)
        fail(where, "unbalanced parentheses: ')' at token " + std::to_string(word) +
                        " closes nothing");
    } else if (len == 1 && c >= '0' && c <= '9') {
      id = kListOpsDigit0 + (c - '0');
    } else if (len == 1 && c == ']') {
      id = kListOpsClose;
    } else {
      for (int k = 0; k < 4; ++k)
        if (s.compare(i, len, kOpNames[k]) == 0) id = kListOpsMin + k;
      if (id < 0)
        fail(where, "unknown token " + quote_token(s.substr(i, std::min<size_t>(len, 64))) +
                        " (token " + std::to_string(word) + "); expected one of " +
                        kExpectedTokens);
    }
    if (id >= 0) {
      ids.push_back(id);
      if (positions) positions->push_back(word);
    }
    i = j;
  }
  if (paren_depth != 0)
    fail(where, "unbalanced parentheses: " + std::to_string(paren_depth) +
                    " '(' never closed");
  return ids;
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Uniform in [0, n) without modulo bias (rejection of the top sliver).
uint32_t uniform_below(uint64_t& state, uint32_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do x = splitmix64(state); while (x >= limit);
  return static_cast<uint32_t>(x % n);
}

double uniform01(uint64_t& state) { return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53; }

// Longest and shortest tree the rules allow, capped to avoid overflow.
int64_t extreme_length(const ListOpsConfig& c, bool longest) {
  if (longest && c.p_op <= 0) return 1;
  if (!longest && c.p_op < 1) return 1;
  const int64_t arity = longest ? c.max_args : 2;
  int64_t len = 1;  // a node at max_depth is a digit
  for (int d = c.max_depth - 1; d >= 1 && len < (int64_t(1) << 40); --d) len = 2 + arity * len;
  return len;
}

}  // namespace

ListOpsConfig listops_lra_preset() {
  ListOpsConfig c;
  c.min_len = 500;
  c.max_len = 2000;
  c.max_depth = 10;
  c.max_args = 10;
  c.p_op = 0.25;
  c.seed = 1;
  c.n_train = 96000;
  c.n_val = 2000;
  c.n_test = 2000;
  return c;
}

ListOpsConfig listops_default() { return ListOpsConfig{}; }

std::string listops_token_name(int32_t id) {
  if (id == 0) return "<pad>";
  if (is_digit_id(id)) return std::string(1, static_cast<char>('0' + id - kListOpsDigit0));
  if (is_op_id(id)) return kOpNames[id - kListOpsMin];
  if (id == kListOpsClose) return "]";
  return "<bad id " + std::to_string(id) + ">";
}

// ---- generator -------------------------------------------------------------

ListOpsGenerator::ListOpsGenerator(const ListOpsConfig& cfg) : cfg_(cfg), rng_(cfg.seed) {
  const std::string where = "listops: config: ";
  if (cfg.max_depth < 1) fail(where, "expected max_depth >= 1, got " + std::to_string(cfg.max_depth));
  if (cfg.max_args < 2 || cfg.max_args > 100)
    fail(where, "expected max_args in [2, 100], got " + std::to_string(cfg.max_args));
  if (!(cfg.p_op >= 0 && cfg.p_op <= 1))
    fail(where, "expected p_op in [0, 1], got " + std::to_string(cfg.p_op));
  if (cfg.min_len < 0 || cfg.max_len <= cfg.min_len + 1)
    fail(where, "expected 0 <= min_len and min_len + 1 < max_len (lengths strictly between), got " +
                    std::to_string(cfg.min_len) + ".." + std::to_string(cfg.max_len));
  if (cfg.n_train < 0 || cfg.n_val < 0 || cfg.n_test < 0)
    fail(where, "expected non-negative split sizes");
  const int64_t lo = extreme_length(cfg, false), hi = extreme_length(cfg, true);
  if (hi <= cfg.min_len || lo >= cfg.max_len)
    fail(where, "trees with max_depth " + std::to_string(cfg.max_depth) + ", max_args " +
                    std::to_string(cfg.max_args) + " have " + std::to_string(lo) + ".." +
                    std::to_string(hi) + " tokens; none fits strictly between " +
                    std::to_string(cfg.min_len) + " and " + std::to_string(cfg.max_len));
}

// One draw of LRA's generate_tree, built in prefix order with an explicit
// stack (no recursion) and abandoned as soon as it reaches max_len tokens.
bool ListOpsGenerator::draw_tree() {
  nodes_.clear();
  std::vector<Frame> stack;  // open operators; the next node's depth is stack.size() + 1
  int length = 0;
  for (;;) {
    const int depth = static_cast<int>(stack.size()) + 1;
    const bool op = depth < cfg_.max_depth && uniform01(rng_) < cfg_.p_op;
    if (op) {
      Frame f;
      f.remaining = 2 + static_cast<int>(uniform_below(rng_, cfg_.max_args - 1));
      f.op = kListOpsMin + static_cast<int32_t>(uniform_below(rng_, 4));
      nodes_.push_back({static_cast<int8_t>(f.op), static_cast<int8_t>(f.remaining)});
      stack.push_back(f);
      length += 2;  // the operator and its ']'
    } else {
      int v = static_cast<int>(uniform_below(rng_, 10));
      nodes_.push_back({static_cast<int8_t>(v), 0});
      length += 1;
      // Hand the value up, closing every operator that now has all its arguments.
      while (!stack.empty()) {
        stack.back().add(v);
        if (--stack.back().remaining > 0) break;
        v = stack.back().value();
        stack.pop_back();
      }
      if (stack.empty()) {
        value_ = v;
        break;
      }
    }
    if (length >= cfg_.max_len) return false;
  }
  return length > cfg_.min_len && length < cfg_.max_len;
}

void ListOpsGenerator::next() {
  const long kMaxRejects = 5000000;
  for (long rejects = 0; rejects < kMaxRejects; ++rejects) {
    if (!draw_tree()) continue;
    uint64_t h = 0x6A09E667F3BCC908ULL;
    for (const Node& nd : nodes_) {
      h ^= static_cast<uint64_t>(static_cast<uint8_t>(nd.token)) << 8 | static_cast<uint8_t>(nd.arity);
      h = splitmix64(h);
    }
    if (seen_.insert(h).second) return;
  }
  fail("listops: config: ", "no new tree with " + std::to_string(cfg_.min_len) + " < length < " +
                                std::to_string(cfg_.max_len) + " in " + std::to_string(kMaxRejects) +
                                " draws (" + std::to_string(seen_.size()) +
                                " found); widen the length range or raise max_depth/max_args/p_op");
}

int ListOpsGenerator::length() const {
  int n = 0;
  for (const Node& nd : nodes_) n += nd.arity > 0 ? 2 : 1;
  return n;
}

// LRA nests each argument in its own pair: [MAX 4 3 ] -> ( ( ( [MAX 4 ) 3 ) ] )
std::string ListOpsGenerator::source() const {
  std::string out;
  out.reserve(nodes_.size() * 7);
  std::vector<int> remaining;  // arguments still to come, per open operator
  for (const Node& nd : nodes_) {
    if (!remaining.empty()) out += ' ';
    if (nd.arity > 0) {
      for (int k = 0; k <= nd.arity; ++k) out += "( ";
      out += kOpNames[nd.token - kListOpsMin];
      remaining.push_back(nd.arity);
      continue;
    }
    out += static_cast<char>('0' + nd.token);
    while (!remaining.empty()) {  // a finished node closes its argument pair
      out += " )";
      if (--remaining.back() > 0) break;
      remaining.pop_back();
      out += " ] )";
    }
  }
  return out;
}

std::vector<int32_t> ListOpsGenerator::ids() const {
  std::vector<int32_t> out;
  out.reserve(length());
  std::vector<int> remaining;
  for (const Node& nd : nodes_) {
    if (nd.arity > 0) {
      out.push_back(nd.token);
      remaining.push_back(nd.arity);
      continue;
    }
    out.push_back(kListOpsDigit0 + nd.token);
    while (!remaining.empty() && --remaining.back() == 0) {
      remaining.pop_back();
      out.push_back(kListOpsClose);
    }
  }
  return out;
}

std::vector<ListOpsExample> generate_listops_examples(const ListOpsConfig& cfg, size_t count) {
  ListOpsGenerator gen(cfg);
  std::vector<ListOpsExample> out(count);
  for (auto& e : out) {
    gen.next();
    e.source = gen.source();
    e.label = gen.label();
  }
  return out;
}

// ---- evaluator and tokeniser -------------------------------------------------

int listops_eval(const std::string& source) {
  std::vector<int> positions;
  const std::vector<int32_t> ids = tokenize_impl(source, "listops: ", &positions);
  return eval_ids_impl(ids, positions, "listops: ");
}

int listops_eval_ids(const std::vector<int32_t>& ids) { return eval_ids_impl(ids, {}, "listops: "); }

std::vector<int32_t> listops_tokenize(const std::string& source) {
  return tokenize_impl(source, "listops: ", nullptr);
}

// ---- files -------------------------------------------------------------------

namespace {

Dataset empty_listops_dataset() {
  Dataset d;
  d.vocab_size = kListOpsVocab;
  d.num_classes = kListOpsClasses;
  for (int c = 0; c < kListOpsClasses; ++c) d.class_names.push_back(std::to_string(c));
  return d;
}

const char* const kSplitNames[3] = {"train", "val", "test"};

}  // namespace

void write_listops_tsv(const std::string& path, const std::vector<ListOpsExample>& examples) {
  std::ofstream out(path, std::ios::binary);
  if (!out) fail("listops: " + path + ": ", "cannot open for writing");
  out << "Source\tTarget\n";
  for (size_t i = 0; i < examples.size(); ++i) {
    const ListOpsExample& e = examples[i];
    if (e.source.find_first_of("\t\r\n") != std::string::npos || e.label < 0 || e.label > 9)
      fail("listops: " + path + ": ", "example " + std::to_string(i) +
                                         " has a tab or line break in its source or a label outside 0-9");
    out << e.source << '\t' << e.label << '\n';
  }
  out.flush();
  if (!out) fail("listops: " + path + ": ", "write failed (disk full?)");
}

Dataset read_listops_tsv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail("listops: " + path + ": ", "cannot open file (expected a TSV with header 'Source<TAB>Target')");
  Dataset d = empty_listops_dataset();
  std::string line;
  long lineno = 0;
  bool header = false;
  std::vector<int> positions;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string where = "listops: " + path + ":" + std::to_string(lineno) + ": ";
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineno == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // UTF-8 BOM
    if (!header) {
      if (line != "Source\tTarget")
        fail(where, "expected header 'Source<TAB>Target', got " + quote_token(line));
      header = true;
      continue;
    }
    if (line.empty()) continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) fail(where, "expected 'Source<TAB>Target', got no tab");
    if (line.find('\t', tab + 1) != std::string::npos)
      fail(where, "expected 'Source<TAB>Target', got more than one tab");
    std::string target = line.substr(tab + 1);
    while (!target.empty() && target.back() == ' ') target.pop_back();
    size_t t0 = target.find_first_not_of(' ');
    target = t0 == std::string::npos ? "" : target.substr(t0);
    if (target.size() != 1 || target[0] < '0' || target[0] > '9')
      fail(where, "expected a label 0-9 in column Target, got " + quote_token(target));
    line.resize(tab);
    positions.clear();
    std::vector<int32_t> ids = tokenize_impl(line, where, &positions);
    eval_ids_impl(ids, positions, where);  // bracket structure; the label is the file's
    ids.shrink_to_fit();  // 96K long rows: do not keep push_back's slack
    d.seqs.push_back(std::move(ids));
    d.labels.push_back(target[0] - '0');
  }
  if (!header) fail("listops: " + path + ":1: ", "expected header 'Source<TAB>Target', got an empty file");
  return d;
}

Splits generate_listops(const ListOpsConfig& cfg) {
  ListOpsGenerator gen(cfg);
  Splits s;
  Dataset* parts[3] = {&s.train, &s.val, &s.test};
  const int counts[3] = {cfg.n_train, cfg.n_val, cfg.n_test};
  for (int k = 0; k < 3; ++k) {
    Dataset& d = *parts[k];
    d = empty_listops_dataset();
    d.seqs.reserve(counts[k]);
    for (int i = 0; i < counts[k]; ++i) {
      gen.next();
      d.seqs.push_back(gen.ids());
      d.labels.push_back(gen.label());
    }
  }
  return s;
}

void write_listops_dir(const ListOpsConfig& cfg, const std::string& dir) {
  ListOpsGenerator gen(cfg);  // validate the config before touching the disk
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail("listops: " + dir + ": ", "cannot create directory (" + ec.message() + ")");
  const int counts[3] = {cfg.n_train, cfg.n_val, cfg.n_test};
  for (int k = 0; k < 3; ++k) {
    const std::string path = (std::filesystem::path(dir) / (std::string(kSplitNames[k]) + ".tsv")).string();
    std::ofstream out(path, std::ios::binary);
    if (!out) fail("listops: " + path + ": ", "cannot open for writing");
    out << "Source\tTarget\n";
    for (int i = 0; i < counts[k]; ++i) {
      gen.next();
      out << gen.source() << '\t' << gen.label() << '\n';
    }
    out.flush();
    if (!out) fail("listops: " + path + ": ", "write failed (disk full?)");
  }
}

Splits load_listops_dir(const std::string& dir) {
  Splits s;
  Dataset* parts[3] = {&s.train, &s.val, &s.test};
  for (int k = 0; k < 3; ++k) {
    const std::filesystem::path ours = std::filesystem::path(dir) / (std::string(kSplitNames[k]) + ".tsv");
    const std::filesystem::path lra = std::filesystem::path(dir) / ("basic_" + std::string(kSplitNames[k]) + ".tsv");
    std::error_code ec;
    if (std::filesystem::exists(ours, ec)) {
      *parts[k] = read_listops_tsv(ours.string());
    } else if (std::filesystem::exists(lra, ec)) {
      *parts[k] = read_listops_tsv(lra.string());
    } else {
      fail("listops: " + ours.string() + ": ",
           "file not found (nor LRA's " + lra.filename().string() +
               "); expected train.tsv, val.tsv, test.tsv as written by `attnzoo data listops --out DIR`");
    }
  }
  return s;
}

}  // namespace az
