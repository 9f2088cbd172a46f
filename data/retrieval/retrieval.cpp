// The Retrieval task's pairs: documents dealt into splits (whole communities
// of the link graph by default), each link a positive, each positive's
// negative matched in section, length and degree; the Datasets; the summary.
// Steps 5-6 of retrieval.h; the corpus is retrieval_corpus.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include "data/retrieval/retrieval.h"
#include "data/text/text.h"

namespace az {

namespace {

[[noreturn]] void fail(const std::string& msg) { throw DataError("retrieval: " + msg); }

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `text` holds `word` with no word character on either side.
bool has_word(const std::string& text, const std::string& word) {
  if (word.empty()) return false;
  for (size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + 1)) {
    bool left = p == 0 || !word_char(text[p - 1]);
    size_t e = p + word.size();
    bool right = e >= text.size() || !word_char(text[e]);
    if (left && right) return true;
  }
  return false;
}

// Draws the negative partner of anchor a for the positive (a, b) from `pool`
// (slots sorted by (length, page), each page once per link it has), near b's
// length: a window around b's place that doubles until a valid page is hit.
int32_t draw_partner(const std::vector<std::pair<size_t, int32_t>>& pool, size_t len_b, int32_t b, int32_t a,
                     const std::function<bool(int32_t)>& valid, SplitMix64& rng) {
  if (pool.empty()) return -1;
  size_t pos = size_t(std::lower_bound(pool.begin(), pool.end(), std::make_pair(len_b, b)) - pool.begin());
  for (size_t w = 4;; w *= 2) {
    size_t lo = pos > w ? pos - w : 0, hi = std::min(pool.size(), pos + w + 1);
    bool whole = lo == 0 && hi == pool.size();
    if (!whole) {
      for (int t = 0; t < 16; ++t) {
        int32_t c = pool[lo + rng.below(hi - lo)].second;
        if (valid(c)) return c;
      }
      continue;
    }
    std::vector<size_t> ok;  // the whole pool: every valid slot, one drawn
    for (size_t k = 0; k < pool.size(); ++k)
      if (valid(pool[k].second)) ok.push_back(k);
    if (ok.empty()) return -1;
    // Prefer the slots nearest b in length among the valid ones.
    std::sort(ok.begin(), ok.end(), [&](size_t x, size_t y) {
      return (x > pos ? x - pos : pos - x) < (y > pos ? y - pos : pos - y);
    });
    ok.resize(std::min<size_t>(ok.size(), 8));
    return pool[ok[rng.below(ok.size())]].second;
  }
}

// Deals the documents into train (0), val (1), test (2).  The fractions
// count linked documents (an unlinked one is in no pair; it stays in train).
// By default whole communities of the link graph go to one split (label
// propagation, Raghavan et al. 2007): a random deal keeps a link only when
// both ends land together (val^2 + test^2 + train^2 of them, 40% at
// 0.2/0.25), communities keep most of them.
// With opt.stratify the communities are dealt section by section (each
// community counts as its commonest section): every section's communities
// fill the same fractions, so the splits share a make-up.  A section
// "family:area" (the HTML corpus) counts as its family: the documentation
// graphs are dense, their communities large, and an area's share of a
// split would be one community or none.
std::vector<int8_t> deal_groups(const std::vector<std::vector<int32_t>>& adj, const RetrievalOptions& opt,
                                const std::vector<std::string>& section, SplitMix64& rng) {
  const size_t n = adj.size();
  std::vector<int32_t> order;
  for (size_t i = 0; i < n; ++i)
    if (!adj[i].empty()) order.push_back(int32_t(i));
  auto shuffle = [&](std::vector<int32_t>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
  };
  shuffle(order);
  std::vector<int32_t> label(n);
  for (size_t i = 0; i < n; ++i) label[i] = int32_t(i);
  if (opt.split_by_community) {
    std::vector<int32_t> count(n, 0), best;
    for (int iter = 0; iter < 30; ++iter) {
      bool changed = false;
      for (int32_t v : order) {
        int32_t top = 0;
        for (int32_t u : adj[v]) top = std::max(top, ++count[label[u]]);
        best.clear();
        for (int32_t u : adj[v])
          if (count[label[u]] == top && (best.empty() || std::find(best.begin(), best.end(), label[u]) == best.end()))
            best.push_back(label[u]);
        for (int32_t u : adj[v]) count[label[u]] = 0;
        if (std::find(best.begin(), best.end(), label[v]) != best.end()) continue;  // keep a tied label
        label[v] = best[rng.below(best.size())];
        changed = true;
      }
      shuffle(order);
      if (!changed) break;
    }
  }
  std::map<int32_t, std::vector<int32_t>> members;
  for (int32_t v : order) members[label[v]].push_back(v);
  // A community too large to place (label propagation can merge most of a
  // dense graph into one) is cut into pieces along a breadth-first order,
  // which keeps neighbours together.
  const size_t piece = std::max<size_t>(1, size_t(double(order.size()) * opt.test_fraction / 4));
  std::vector<std::vector<int32_t>> comms;
  std::vector<int32_t> seen(n, -1);
  for (auto& [l, m] : members) {
    if (m.size() <= 2 * piece) {
      comms.push_back(std::move(m));
      continue;
    }
    std::vector<int32_t> bfs;
    for (int32_t s0 : m) {  // m is in random order: the first unseen member starts a tree
      if (seen[s0] == l) continue;
      seen[s0] = l;
      bfs.push_back(s0);
      for (size_t h = bfs.size() - 1; h < bfs.size(); ++h)
        for (int32_t u : adj[bfs[h]])
          if (label[u] == l && seen[u] != l) {
            seen[u] = l;
            bfs.push_back(u);
          }
    }
    for (size_t k = 0; k < bfs.size(); k += piece)
      comms.emplace_back(bfs.begin() + long(k), bfs.begin() + long(std::min(bfs.size(), k + piece)));
  }
  for (size_t i = comms.size(); i > 1; --i) std::swap(comms[i - 1], comms[rng.below(i)]);
  // Communities in blocks (one block unstratified; stratified, one per
  // commonest section, the shuffled order kept within each).  In each block
  // a community goes to test if it fits test's share of the block's
  // documents, else to val if it fits val's, else to train.
  std::vector<std::string> key(comms.size());
  if (opt.stratify)
    for (size_t i = 0; i < comms.size(); ++i) {
      std::map<std::string, size_t> count;
      for (int32_t v : comms[i]) ++count[section[size_t(v)].substr(0, section[size_t(v)].find(':'))];
      key[i] = std::max_element(count.begin(), count.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
    }
  std::map<std::string, std::vector<size_t>> blocks;
  for (size_t i = 0; i < comms.size(); ++i) blocks[key[i]].push_back(i);
  // A community's weight: its documents, or with opt.deal_by_links its link ends (the members'
  // degrees), so that each split's share of the pairs, not of the documents, is the fraction.
  // (Links inside the community: a hub's links to other communities make no pairs where it goes.)
  std::vector<int32_t> comm_of(n, -1);
  for (size_t i = 0; i < comms.size(); ++i)
    for (int32_t v : comms[i]) comm_of[size_t(v)] = int32_t(i);
  // (At least 1: a community without a link inside, a lone document, still takes a place.)
  auto weight = [&](const std::vector<int32_t>& m) {
    size_t w = opt.deal_by_links ? 0 : m.size();
    if (opt.deal_by_links)
      for (int32_t v : m)
        for (int32_t u : adj[size_t(v)]) w += comm_of[size_t(u)] == comm_of[size_t(v)];
    return std::max<size_t>(w, 1);
  };
  std::vector<int8_t> group(n, 0);
  for (const auto& [k, members] : blocks) {
    double linked = 0;
    for (size_t i : members) linked += double(weight(comms[i]));
    const double want[3] = {0, linked * opt.val_fraction, linked * opt.test_fraction};
    size_t have[3] = {0, 0, 0};
    for (size_t i : members) {
      const auto& m = comms[i];
      const size_t w = weight(m);
      int8_t g = 0;
      for (int8_t s : {int8_t(2), int8_t(1)})
        if (double(have[s] + w) <= want[s] + 0.5) {
          g = s;
          break;
        }
      have[g] += w;
      for (int32_t v : m) group[v] = g;
    }
  }
  return group;
}

}  // namespace

RetrievalData build_retrieval(const RetrievalOptions& opt) {
  if (!(opt.val_fraction >= 0 && opt.test_fraction > 0 && opt.val_fraction + opt.test_fraction < 1))
    fail("split fractions val=" + std::to_string(opt.val_fraction) + " test=" + std::to_string(opt.test_fraction) +
         " (expected val >= 0, test > 0, val + test < 1)");
  RetrievalData d;
  d.corpus = opt.html.empty() ? read_man_corpus(opt) : read_html_corpus(opt);
  const ManCorpus& c = d.corpus;
  const size_t n = c.pages.size();
  // Documents dealt into groups first: no document is in two splits.
  SplitMix64 rng(opt.seed);
  std::vector<std::vector<int32_t>> adj(n);
  for (const auto& l : c.links) {
    adj[l[0]].push_back(l[1]);
    adj[l[1]].push_back(l[0]);
  }
  for (auto& a : adj) std::sort(a.begin(), a.end());
  std::vector<std::string> section(n);
  for (size_t i = 0; i < n; ++i) section[i] = c.pages[i].section;
  d.group = deal_groups(adj, opt, section, rng);
  auto has = [](const std::vector<int32_t>& v, int32_t x) { return std::binary_search(v.begin(), v.end(), x); };
  std::vector<size_t> len(n);
  for (size_t i = 0; i < n; ++i) len[i] = c.pages[i].text.size();

  for (int g = 0; g < 3; ++g) {
    std::vector<std::array<int32_t, 2>> edges;
    for (const auto& l : c.links)
      if (d.group[l[0]] == g && d.group[l[1]] == g) edges.push_back(l);
    std::map<std::string, std::vector<std::pair<size_t, int32_t>>> pool;  // section -> slots
    std::map<std::string, std::vector<std::pair<size_t, int32_t>>> family;  // "jdk" of "jdk:area" -> slots
    std::vector<std::pair<size_t, int32_t>> pool_all;
    auto family_of = [&](int32_t v) { return c.pages[v].section.substr(0, c.pages[v].section.find(':')); };
    for (const auto& e : edges)
      for (int32_t v : e) {
        pool[c.pages[v].section].push_back({len[v], v});
        family[family_of(v)].push_back({len[v], v});
        pool_all.push_back({len[v], v});
      }
    for (auto& [s, p] : pool) std::sort(p.begin(), p.end());
    for (auto& [s, p] : family) std::sort(p.begin(), p.end());
    std::sort(pool_all.begin(), pool_all.end());
    std::vector<RetrievalPair>& pairs = d.pairs[g];
    for (const auto& e : edges) {
      bool flip = rng.below(2);
      int32_t a = flip ? e[1] : e[0], b = flip ? e[0] : e[1];
      auto valid = [&](int32_t x) {
        return x != a && x != b && !has(adj[a], x) && !has(c.mentions[a], x) && !has(c.mentions[x], a);
      };
      int32_t neg = draw_partner(pool[c.pages[b].section], len[b], b, a, valid, rng);
      // None left in b's section: b's family (the HTML corpus: a Java page with a C++ one would
      // say "unlinked" in its language), then anywhere.
      if (neg < 0 && family_of(b) != c.pages[b].section) {
        neg = draw_partner(family[family_of(b)], len[b], b, a, valid, rng);
        if (neg >= 0) ++d.negatives_wider;
      }
      if (neg < 0) {
        neg = draw_partner(pool_all, len[b], b, a, valid, rng);
        if (neg >= 0) ++d.negatives_wider;
      }
      if (neg < 0) {
        ++d.positives_unmatched;
        continue;
      }
      if (rng.below(2)) pairs.push_back({a, b, 1});
      else pairs.push_back({b, a, 1});
      if (rng.below(2)) pairs.push_back({a, neg, 0});
      else pairs.push_back({neg, a, 0});
    }
    for (size_t i = pairs.size(); i > 1; --i) std::swap(pairs[i - 1], pairs[rng.below(i)]);
  }
  for (const auto& l : c.links)
    if (d.group[l[0]] != d.group[l[1]]) ++d.links_across;

  std::vector<std::vector<int32_t>> tokens(n);
  d.max_bytes = opt.max_bytes;
  for (size_t i = 0; i < n; ++i) {
    tokens[i] = bytes_to_tokens(c.pages[i].text, opt.max_bytes);
    d.documents_cut += tokens[i].size() < c.pages[i].text.size();
  }
  Dataset* out[3] = {&d.splits.train, &d.splits.val, &d.splits.test};
  for (int g = 0; g < 3; ++g) {
    Dataset& ds = *out[g];
    ds.vocab_size = kByteVocab;
    ds.num_classes = 2;
    ds.class_names = {"unlinked", "linked"};
    for (const RetrievalPair& p : d.pairs[g]) {
      ds.seqs.push_back(tokens[p.doc1]);
      ds.seqs2.push_back(tokens[p.doc2]);
      ds.labels.push_back(p.label);
    }
  }
  if (opt.verbose) std::cerr << retrieval_summary(d);
  return d;
}

Splits load_retrieval(const RetrievalOptions& opt) {
  RetrievalData d = build_retrieval(opt);
  const char* names[3] = {"train", "val", "test"};
  const Dataset* sets[3] = {&d.splits.train, &d.splits.val, &d.splits.test};
  for (int g = 0; g < 3; ++g)
    if (sets[g]->size() == 0 && (g != 1 || opt.val_fraction > 0))
      fail(std::string("no ") + names[g] + " pairs from " + std::to_string(d.corpus.pages.size()) + " documents and " +
           std::to_string(d.corpus.links.size()) + " links (expected a larger corpus or other split fractions)");
  return std::move(d.splits);
}

std::array<std::vector<std::string>, 3> RetrievalData::section_keys() const {
  std::array<std::vector<std::string>, 3> keys;
  for (int g = 0; g < 3; ++g)
    for (const RetrievalPair& p : pairs[g]) {
      std::string s1 = corpus.pages[p.doc1].section, s2 = corpus.pages[p.doc2].section;
      if (s2 < s1) std::swap(s1, s2);
      keys[g].push_back(s1 + "|" + s2);
    }
  return keys;
}

RetrievalData::NameMention RetrievalData::name_mention(int s) const {
  NameMention m;
  size_t pos = 0, neg = 0, pos_hit = 0, neg_hit = 0;
  auto names = [&](int32_t x, int32_t y) {  // in the bytes a model reads (max_bytes)
    const std::string& text = corpus.pages[x].text;
    const std::string read = max_bytes && text.size() > max_bytes ? text.substr(0, max_bytes) : text;
    for (const std::string& t : corpus.pages[y].title_names)
      if (has_word(read, t)) return true;
    return false;
  };
  for (const RetrievalPair& p : pairs[size_t(s)]) {
    bool hit = names(p.doc1, p.doc2) || names(p.doc2, p.doc1);
    (p.label ? pos : neg) += 1;
    (p.label ? pos_hit : neg_hit) += hit;
  }
  m.pos = pos ? double(pos_hit) / double(pos) : 0;
  m.neg = neg ? double(neg_hit) / double(neg) : 0;
  m.accuracy = pos + neg ? double(pos_hit + (neg - neg_hit)) / double(pos + neg) : 0;
  return m;
}

std::string retrieval_summary(const RetrievalData& d) {
  const ManCorpus& c = d.corpus;
  std::ostringstream o;
  o << "retrieval: " << c.files << " files";
  if (c.left_out) o << " (" << c.left_out << " more HTML files left out as indexes and navigation)";
  o << " -> " << c.pages.size() << " documents (" << c.aliases
    << " aliases merged, " << c.dangling << " dangling aliases dropped, " << c.empty
    << " empty pages in no pair); " << c.links.size() << " links from "
    << c.refs << " references (" << c.refs_self << " self, " << c.refs_missing
    << " to pages not in the corpus dropped); " << c.mentions_stripped << " mentions of linked pages stripped\n";
  std::vector<size_t> lens;
  size_t over = 0;
  for (const ManPage& p : c.pages) {
    lens.push_back(p.text.size());
    over += p.text.size() > 4096;
  }
  std::sort(lens.begin(), lens.end());
  if (!lens.empty())
    o << "retrieval: document bytes median " << lens[lens.size() / 2] << ", 90th percentile "
      << lens[lens.size() * 9 / 10] << ", max " << lens.back() << "; " << over << " of " << lens.size()
      << " exceed 4096\n";
  const char* names[3] = {"train", "val", "test"};
  for (int g = 0; g < 3; ++g) {
    size_t docs = 0, pos = 0;
    for (int8_t x : d.group) docs += x == g;
    for (const RetrievalPair& p : d.pairs[g]) pos += p.label;
    o << "retrieval: " << names[g] << ": " << docs << " documents, " << d.pairs[g].size() << " pairs (" << pos
      << " linked)\n";
  }
  // What each split is made of.  Communities are dealt whole, so a split can
  // draw on other families of pages than another (seed 0: val is mostly
  // OpenSSL's pages, test mostly Linux's): its accuracy then says little of
  // the other's, and a checkpoint chosen on val is chosen for val's pages.
  o << "retrieval: sections of the documents in pairs, top 3 per split:";
  for (int g = 0; g < 3; ++g) {
    std::vector<char> in(c.pages.size(), 0);
    std::map<std::string, size_t> count;
    size_t docs = 0;
    for (const RetrievalPair& p : d.pairs[g])
      for (int32_t x : {p.doc1, p.doc2})
        if (!in[size_t(x)]) in[size_t(x)] = 1, ++count[c.pages[size_t(x)].section], ++docs;
    std::vector<std::pair<size_t, std::string>> top;
    for (const auto& [sec, k] : count) top.emplace_back(k, sec);
    std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    o << (g ? "; " : " ") << names[g];
    for (size_t k = 0; k < std::min<size_t>(3, top.size()); ++k)
      o << (k ? ", " : " ") << top[k].second << " " << (100 * top[k].first + docs / 2) / docs << "%";
  }
  o << "\n";
  // How far matching names goes, on test: the model reads the same bytes.
  const RetrievalData::NameMention m = d.name_mention(2);
  char rule[160];
  std::snprintf(rule, sizeof rule, "%.1f%% (%.1f%% of linked pairs and %.1f%% of unlinked name the other)",
                100 * m.accuracy, 100 * m.pos, 100 * m.neg);
  o << "retrieval: name rule on test (linked when one document names the other's title as a word"
    << (d.max_bytes ? " in its first " + std::to_string(d.max_bytes) + " bytes" : std::string()) << "): " << rule << "\n";
  o << "retrieval: " << d.links_across << " links cross two splits (no pair); " << d.negatives_wider
    << " negatives from another section; " << d.positives_unmatched << " positives dropped without a negative\n";
  if (d.max_bytes)
    o << "retrieval: " << d.documents_cut << " documents cut to their first " << d.max_bytes << " bytes\n";
  return o.str();
}

}  // namespace az
