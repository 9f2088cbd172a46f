// Retrieval pairs as LRA's TSV (lra_benchmarks/matching/input_pipeline.py
// reads `label, id1, id2, text1, text2`, tab-separated, no header, no
// quoting), so a user with LRA's AAN files trains on them, and our man-page
// pairs can be written out for other tools.  Format details in retrieval.h.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/retrieval/retrieval.h"
#include "data/text/text.h"

namespace az {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const std::string& msg) { throw DataError("retrieval: " + msg); }

std::string escape(const std::vector<int32_t>& t, const std::string& where) {
  std::string out;
  out.reserve(t.size());
  for (int32_t v : t) {
    if (v < 1 || v > 256) fail(where + ": token " + std::to_string(v) + " is not a byte token (expected 1..256)");
    char c = char(v - 1);
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else out += c;
  }
  return out;
}

// \n \t \r \\ decoded; any other backslash (LRA's AAN text has them raw) kept.
std::string unescape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char e = s[i + 1];
      if (e == 'n' || e == 't' || e == 'r' || e == '\\') {
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : '\\';
        ++i;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

Dataset read_split(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read '" + path + "': " + std::strerror(errno));
  Dataset d;
  d.vocab_size = kByteVocab;
  d.num_classes = 2;
  d.class_names = {"unlinked", "linked"};
  std::string line;
  for (size_t lineno = 1; std::getline(in, line); ++lineno) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::string where = path + ":" + std::to_string(lineno);
    std::vector<std::string> f;
    size_t at = 0;
    for (size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1) f.push_back(line.substr(at, tab - at));
    f.push_back(line.substr(at));
    if (f.size() != 5)
      fail(where + ": " + std::to_string(f.size()) +
           " tab-separated fields (expected 5: label, id1, id2, text1, text2)");
    const std::string& l = f[0];
    int32_t label;
    if (l == "0" || l == "0.0" || l == "0.") label = 0;
    else if (l == "1" || l == "1.0" || l == "1.") label = 1;
    else fail(where + ": label '" + l.substr(0, 32) + "' (expected 0 or 1)");
    std::string t1 = unescape(f[3]), t2 = unescape(f[4]);
    if (t1.empty() || t2.empty()) fail(where + ": an empty text (expected two documents)");
    d.seqs.push_back(bytes_to_tokens(t1));
    d.seqs2.push_back(bytes_to_tokens(t2));
    d.labels.push_back(label);
  }
  if (in.bad()) fail("cannot read '" + path + "': read error");
  if (d.size() == 0) fail("'" + path + "' holds no pairs (expected rows label<TAB>id1<TAB>id2<TAB>text1<TAB>text2)");
  return d;
}

bool ends_with(const std::string& s, const std::string& t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

}  // namespace

Splits load_retrieval_tsv(const std::string& path) {
  std::string files[3];  // train, val, test
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> found[3];
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      std::string n = it->path().filename().string();
      if (n.empty() || n[0] == '.') continue;
      if (ends_with(n, "train.tsv")) found[0].push_back(it->path().string());
      else if (ends_with(n, "eval.tsv") || ends_with(n, "val.tsv")) found[1].push_back(it->path().string());
      else if (ends_with(n, "test.tsv")) found[2].push_back(it->path().string());
    }
    if (ec) fail("cannot list folder '" + path + "': " + ec.message());
    const char* what[3] = {"*train.tsv", "*eval.tsv or *val.tsv", "*test.tsv"};
    for (int k = 0; k < 3; ++k) {
      if (found[k].size() != 1)
        fail("folder '" + path + "' holds " + std::to_string(found[k].size()) + " files " + what[k] +
             " (expected one, as LRA's new_aan_pairs.{train,eval,test}.tsv)");
      files[k] = found[k][0];
    }
  } else {
    files[0] = path + ".train.tsv";
    files[1] = fs::exists(path + ".eval.tsv", ec) ? path + ".eval.tsv" : path + ".val.tsv";
    files[2] = path + ".test.tsv";
    for (const std::string& f : files)
      if (!fs::is_regular_file(f, ec))
        fail("'" + f + "' not found (expected a folder of *train.tsv, *eval.tsv, *test.tsv, or a prefix P with "
             "P.train.tsv, P.eval.tsv, P.test.tsv)");
  }
  Splits s;
  s.train = read_split(files[0]);
  s.val = read_split(files[1]);
  s.test = read_split(files[2]);
  return s;
}

void write_retrieval_tsv(const std::string& path, const Dataset& d, const std::vector<std::array<std::string, 2>>* ids) {
  if (d.seqs2.size() != d.size() || d.labels.size() != d.size())
    fail("cannot write '" + path + "': not a pair data set (seqs, seqs2 and labels differ in size)");
  if (ids && ids->size() != d.size()) fail("cannot write '" + path + "': " + std::to_string(ids->size()) +
                                           " id pairs for " + std::to_string(d.size()) + " pairs");
  std::ofstream out(path, std::ios::binary);
  if (!out) fail("cannot write '" + path + "': " + std::strerror(errno));
  for (size_t i = 0; i < d.size(); ++i) {
    std::string where = path + " row " + std::to_string(i + 1);
    std::string id1 = ids ? (*ids)[i][0] : std::to_string(i) + "a", id2 = ids ? (*ids)[i][1] : std::to_string(i) + "b";
    if (id1.find_first_of("\t\n") != std::string::npos || id2.find_first_of("\t\n") != std::string::npos)
      fail(where + ": an id holds a tab or newline");
    out << (d.labels[i] ? "1" : "0") << '\t' << id1 << '\t' << id2 << '\t' << escape(d.seqs[i], where) << '\t'
        << escape(d.seqs2[i], where) << '\n';
  }
  out.close();
  if (!out) fail("cannot write '" + path + "': write error");
}

void write_retrieval_splits(const std::string& prefix, const RetrievalData& d) {
  const Dataset* sets[3] = {&d.splits.train, &d.splits.val, &d.splits.test};
  const char* names[3] = {".train.tsv", ".eval.tsv", ".test.tsv"};
  for (int g = 0; g < 3; ++g) {
    std::vector<std::array<std::string, 2>> ids;
    for (const RetrievalPair& p : d.pairs[g]) ids.push_back({d.corpus.pages[p.doc1].id, d.corpus.pages[p.doc2].id});
    write_retrieval_tsv(prefix + names[g], *sets[g], &ids);
  }
}

}  // namespace az
