// The Retrieval task's corpus and pairs: man pages read and de-aliased, their
// links parsed and stripped, documents dealt into splits, positives and
// matched negatives drawn.  The pipeline and what it guards against are in
// retrieval.h; the roff stripper is retrieval_roff.cpp.
#include "data/retrieval.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "data/text.h"

namespace az {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& msg) { throw DataError("retrieval: " + msg); }

constexpr size_t kMaxPageBytes = size_t(64) << 20;  // no man page comes near; a guard against bombs

// A whole file through zlib; gzread passes uncompressed files through as they are.
std::string read_gz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) fail("cannot open '" + path + "': " + std::strerror(errno));
  std::string out;
  char buf[1 << 16];
  for (;;) {
    int n = gzread(f, buf, sizeof(buf));
    if (n < 0) {
      int err = 0;
      std::string msg = gzerror(f, &err);
      gzclose(f);
      fail("cannot read '" + path + "': " + msg + " (expected a man page, gzip-compressed or plain)");
    }
    if (n == 0) {
      int err = 0;
      std::string msg = gzerror(f, &err);
      if (err == Z_BUF_ERROR) {  // the stream ended early
        gzclose(f);
        fail("cannot read '" + path + "': " + msg + " (a truncated gzip file?)");
      }
      break;
    }
    out.append(buf, size_t(n));
    if (out.size() > kMaxPageBytes) {
      gzclose(f);
      fail("'" + path + "' holds over 64 MiB of text (expected a man page)");
    }
  }
  gzclose(f);
  return out;
}

// "open.2.gz" in folder section "2" -> name "open", section "2".  The section
// is what follows the last dot and must start with the folder's section.
bool parse_page_file(const std::string& file, const std::string& folder_section, std::string* name,
                     std::string* section) {
  std::string f = file;
  if (f.size() > 3 && f.compare(f.size() - 3, 3, ".gz") == 0) f.resize(f.size() - 3);
  size_t dot = f.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 >= f.size()) return false;
  std::string sec = f.substr(dot + 1);
  if (!folder_section.empty() && sec.compare(0, folder_section.size(), folder_section) != 0) return false;
  *name = f.substr(0, dot);
  *section = sec;
  return true;
}

std::string page_id(const std::string& name, const std::string& section) { return name + "(" + section + ")"; }

// The target of a page that is only `.so man3/x.3` (comments and blank lines
// aside), or "" for a page with content.
std::string so_target(const std::string& roff) {
  std::istringstream in(roff);
  std::string line, target;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.compare(0, 3, ".\\\"") == 0 || line.compare(0, 3, "'\\\"") == 0) continue;
    if (!target.empty() || line.compare(0, 4, ".so ") != 0) return "";
    target = line.substr(4);
    while (!target.empty() && (target.back() == ' ' || target.back() == '\t')) target.pop_back();
    while (!target.empty() && (target[0] == ' ' || target[0] == '\t')) target.erase(0, 1);
    if (target.empty()) return "";
  }
  return target;
}

struct Listed {
  std::string path, name, section;
};

// The page files to read, sorted by path.
std::vector<Listed> list_pages(const RetrievalOptions& opt) {
  std::string root = opt.man_root;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  std::vector<Listed> out;
  auto consider = [&](const std::string& path, const std::string& sec) {
    std::string name, section;
    if (parse_page_file(fs::path(path).filename().string(), sec, &name, &section))
      out.push_back({path, name, section});
  };
  if (!opt.packages.empty()) {
    for (const std::string& pkg : opt.packages) {
      std::string list = opt.dpkg_info + "/" + pkg + ".list";
      std::error_code ec;
      if (!fs::exists(list, ec)) {  // a multi-arch package: pkg:arch.list
        for (fs::directory_iterator it(opt.dpkg_info, ec), end; !ec && it != end; it.increment(ec)) {
          std::string f = it->path().filename().string();
          if (f.compare(0, pkg.size() + 1, pkg + ":") == 0 && f.size() > 5 &&
              f.compare(f.size() - 5, 5, ".list") == 0)
            list = it->path().string();
        }
      }
      std::ifstream in(list);
      if (!in)
        fail("package file list '" + list + "' not found: install the package (apt-get install " + pkg +
             ") or read every page in the folders (no package filter)");
      std::string line;
      while (std::getline(in, line))
        for (const std::string& s : opt.sections) {
          std::string prefix = root + "/man" + s + "/";
          if (line.compare(0, prefix.size(), prefix) == 0 && line.find('/', prefix.size()) == std::string::npos)
            consider(line, s);
        }
    }
  } else {
    for (const std::string& s : opt.sections) {
      fs::path dir = fs::path(root) / ("man" + s);
      std::error_code ec;
      if (!fs::is_directory(dir, ec)) continue;
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string f = it->path().filename().string();
        if (!f.empty() && f[0] != '.') consider(it->path().string(), s);
      }
      if (ec) fail("cannot list folder '" + dir.string() + "': " + ec.message());
    }
  }
  std::sort(out.begin(), out.end(), [](const Listed& a, const Listed& b) { return a.path < b.path; });
  out.erase(std::unique(out.begin(), out.end(), [](const Listed& a, const Listed& b) { return a.path == b.path; }),
            out.end());
  if (out.empty()) {
    std::string secs;
    for (const std::string& s : opt.sections) secs += (secs.empty() ? "" : ",") + s;
    fail("no man pages found under " + root + "/man{" + secs + "}" +
         (opt.packages.empty() ? "" : " from the packages' file lists") + " (expected files like open.2.gz)");
  }
  return out;
}

// Follows symlinks and .so redirects to the file that holds the text, and
// merges byte-identical files: each distinct text is one document.
struct Resolver {
  std::string root;
  struct Doc {
    std::string path, raw, name, section;
  };
  std::vector<Doc> docs;
  std::map<std::string, int> doc_of_path;            // canonical path -> doc, -1 dangling
  std::unordered_map<std::string, int> doc_of_text;  // raw bytes -> doc

  int resolve(const std::string& path, const std::string& fallback_name, const std::string& fallback_section,
              int depth) {
    std::error_code ec;
    fs::path real = fs::canonical(path, ec);
    if (ec) return -1;
    auto it = doc_of_path.find(real.string());
    if (it != doc_of_path.end()) return it->second;
    if (!fs::is_regular_file(real, ec)) fail("'" + path + "' is not a regular file (expected a man page)");
    doc_of_path[real.string()] = -1;  // a cycle of redirects ends dangling
    std::string raw = read_gz(real.string());
    std::string target = so_target(raw);
    int d = -1;
    if (!target.empty()) {
      if (depth < 8)
        for (const std::string& cand : {root + "/" + target + ".gz", root + "/" + target})
          if (fs::exists(cand, ec)) {
            std::string n, s;
            if (!parse_page_file(fs::path(cand).filename().string(), "", &n, &s)) n = fallback_name, s = fallback_section;
            d = resolve(cand, n, s, depth + 1);
            break;
          }
    } else {
      auto t = doc_of_text.find(raw);
      if (t != doc_of_text.end()) {
        d = t->second;
      } else {
        std::string n, s;
        if (!parse_page_file(real.filename().string(), "", &n, &s)) n = fallback_name, s = fallback_section;
        d = int(docs.size());
        doc_of_text.emplace(raw, d);
        docs.push_back({real.string(), std::move(raw), n, s});
      }
    }
    doc_of_path[real.string()] = d;
    return d;
  }
};

std::string upper_trim(const std::string& s) {
  std::string t;
  for (char c : s) t += char(std::toupper(static_cast<unsigned char>(c)));
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  size_t b = 0;
  while (b < t.size() && std::isspace(static_cast<unsigned char>(t[b]))) ++b;
  return t.substr(b);
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (b < e && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// The names before the dash on the NAME line: "open, openat, creat - ...".
std::vector<std::string> title_names(const std::string& body) {
  std::string flat;
  for (char c : body) flat += (c == '\n' || c == '\t') ? ' ' : c;
  size_t dash = flat.find(" - ");
  std::string names = flat.substr(0, dash);
  std::vector<std::string> out;
  std::stringstream ss(names);
  std::string n;
  while (std::getline(ss, n, ',')) {
    n = trim(n);
    if (!n.empty() && n.size() < 64) out.push_back(n);
  }
  return out;
}

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

}  // namespace

ManCorpus read_man_corpus(const RetrievalOptions& opt) {
  std::vector<Listed> listed = list_pages(opt);
  Resolver res;
  res.root = opt.man_root;
  while (res.root.size() > 1 && res.root.back() == '/') res.root.pop_back();
  std::vector<std::pair<std::string, int>> names;  // every listed name -> its document
  ManCorpus c;
  c.files = listed.size();
  for (const Listed& l : listed) {
    int d = res.resolve(l.path, l.name, l.section, 0);
    if (d < 0) ++c.dangling;
    else names.push_back({page_id(l.name, l.section), d});
  }
  // A seeded subset, when asked for (tests, quick runs).
  std::vector<int> keep(res.docs.size());
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = int(i);
  if (opt.max_documents && opt.max_documents < keep.size()) {
    SplitMix64 rng(opt.seed ^ 0x6d616e70616765ull);
    for (size_t i = keep.size() - 1; i > 0; --i) std::swap(keep[i], keep[rng.below(i + 1)]);
    keep.resize(opt.max_documents);
  }
  // Documents sorted by id; names resolve through `index`.
  std::sort(keep.begin(), keep.end(), [&](int a, int b) {
    return page_id(res.docs[a].name, res.docs[a].section) < page_id(res.docs[b].name, res.docs[b].section);
  });
  std::vector<int> new_index(res.docs.size(), -1);
  for (size_t i = 0; i < keep.size(); ++i) new_index[keep[i]] = int(i);
  std::unordered_map<std::string, int> index;
  c.pages.resize(keep.size());
  for (size_t i = 0; i < keep.size(); ++i) {
    const Resolver::Doc& d = res.docs[keep[i]];
    c.pages[i].id = page_id(d.name, d.section);
    c.pages[i].section = d.section;
    c.pages[i].path = d.path;
    index[c.pages[i].id] = int(i);
  }
  for (const auto& [name, d] : names) {
    int i = new_index[d];
    if (i < 0) continue;
    if (name != c.pages[i].id) ++c.aliases;
    index.emplace(name, i);  // a page's own id wins over an alias spelled alike
  }
  for (const auto& [name, i] : index) c.pages[i].names.push_back(name);
  for (ManPage& p : c.pages) std::sort(p.names.begin(), p.names.end());
  // Debian files OpenSSL's pages in section "3ssl" but their text cites
  // `SSL_new(3)`: a reference to x(3) that names no page falls back to the one
  // page x(3<suffix>), when there is exactly one.
  std::unordered_map<std::string, int> by_digit;
  for (const auto& [name, i] : index) {
    size_t open = name.rfind('(');
    if (name.size() - open <= 3) continue;  // "x(3)": no suffix
    std::string key = name.substr(0, open + 2) + ")";
    if (index.count(key)) continue;
    auto [it, fresh] = by_digit.emplace(key, i);
    if (!fresh && it->second != i) it->second = -1;  // ambiguous: x(3ssl) and x(3type)
  }
  for (const auto& [key, i] : by_digit)
    if (i >= 0) index.emplace(key, i);

  // roff -> text; links from SEE ALSO (and the body, if asked).
  const size_t n = c.pages.size();
  std::vector<std::string> body(n);
  std::vector<std::array<int32_t, 2>> links;
  for (size_t i = 0; i < n; ++i) {
    std::vector<RoffHeading> heads;
    std::string text = roff_to_text(res.docs[keep[i]].raw, &heads);
    std::string see_also, rest;
    size_t at = 0;
    for (const RoffHeading& h : heads) {
      std::string t = upper_trim(h.title);
      if (t == "NAME" && c.pages[i].title_names.empty()) {
        size_t nl = text.find('\n', h.begin);
        if (nl != std::string::npos && nl < h.end)
          c.pages[i].title_names = title_names(text.substr(nl + 1, h.end - nl - 1));
      }
      if (t == "SEE ALSO") {
        rest += text.substr(at, h.begin - at);
        see_also += text.substr(h.begin, h.end - h.begin);
        at = h.end;
      }
    }
    rest += text.substr(at);
    body[i] = rest;
    if (trim(rest).empty()) {  // nothing to read: in no link, so in no pair
      ++c.empty;
      continue;
    }
    std::vector<ManRef> refs = find_man_refs(see_also);
    if (opt.links_from_body) {
      std::vector<ManRef> more = find_man_refs(rest);
      refs.insert(refs.end(), more.begin(), more.end());
    }
    for (const ManRef& r : refs) {
      auto it = index.find(r.id);
      if (it == index.end()) {
        ++c.refs_missing;
        continue;
      }
      ++c.refs;
      int32_t j = it->second;
      if (size_t(j) == i) {
        ++c.refs_self;
        continue;
      }
      links.push_back({std::min(int32_t(i), j), std::max(int32_t(i), j)});
    }
  }
  // No links to empty pages either.
  links.erase(std::remove_if(links.begin(), links.end(),
                             [&](const std::array<int32_t, 2>& l) {
                               return trim(body[l[0]]).empty() || trim(body[l[1]]).empty();
                             }),
              links.end());
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  c.links = links;
  std::vector<std::vector<int32_t>> adj(n);
  for (const auto& l : links) {
    adj[l[0]].push_back(l[1]);
    adj[l[1]].push_back(l[0]);
  }
  for (auto& a : adj) std::sort(a.begin(), a.end());

  // Strip every mention of a linked page; note the mentions that remain.
  c.mentions.assign(n, {});
  for (size_t i = 0; i < n; ++i) {
    std::string out;
    size_t at = 0;
    for (const ManRef& r : find_man_refs(body[i])) {
      auto it = index.find(r.id);
      if (it == index.end() || size_t(it->second) == i) continue;
      if (std::binary_search(adj[i].begin(), adj[i].end(), it->second)) {
        out += body[i].substr(at, r.begin - at);
        at = r.end;
        ++c.mentions_stripped;
      } else {
        c.mentions[i].push_back(it->second);
      }
    }
    out += body[i].substr(at);
    c.pages[i].text = std::move(out);
    std::sort(c.mentions[i].begin(), c.mentions[i].end());
    c.mentions[i].erase(std::unique(c.mentions[i].begin(), c.mentions[i].end()), c.mentions[i].end());
  }
  return c;
}

namespace {

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
std::vector<int8_t> deal_groups(const std::vector<std::vector<int32_t>>& adj, const RetrievalOptions& opt,
                                SplitMix64& rng) {
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
  const double linked = double(order.size());
  const double want[3] = {0, linked * opt.val_fraction, linked * opt.test_fraction};
  size_t have[3] = {0, 0, 0};
  std::vector<int8_t> group(n, 0);
  for (const auto& m : comms) {
    int8_t g = 0;
    for (int8_t k : {int8_t(2), int8_t(1)})
      if (double(have[k] + m.size()) <= want[k] + 0.5) {
        g = k;
        break;
      }
    have[g] += m.size();
    for (int32_t v : m) group[v] = g;
  }
  return group;
}

}  // namespace

RetrievalData build_retrieval(const RetrievalOptions& opt) {
  if (!(opt.val_fraction >= 0 && opt.test_fraction > 0 && opt.val_fraction + opt.test_fraction < 1))
    fail("split fractions val=" + std::to_string(opt.val_fraction) + " test=" + std::to_string(opt.test_fraction) +
         " (expected val >= 0, test > 0, val + test < 1)");
  RetrievalData d;
  d.corpus = read_man_corpus(opt);
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
  d.group = deal_groups(adj, opt, rng);
  auto has = [](const std::vector<int32_t>& v, int32_t x) { return std::binary_search(v.begin(), v.end(), x); };
  std::vector<size_t> len(n);
  for (size_t i = 0; i < n; ++i) len[i] = c.pages[i].text.size();

  for (int g = 0; g < 3; ++g) {
    std::vector<std::array<int32_t, 2>> edges;
    for (const auto& l : c.links)
      if (d.group[l[0]] == g && d.group[l[1]] == g) edges.push_back(l);
    std::map<std::string, std::vector<std::pair<size_t, int32_t>>> pool;  // section -> slots
    std::vector<std::pair<size_t, int32_t>> pool_all;
    for (const auto& e : edges)
      for (int32_t v : e) {
        pool[c.pages[v].section].push_back({len[v], v});
        pool_all.push_back({len[v], v});
      }
    for (auto& [s, p] : pool) std::sort(p.begin(), p.end());
    std::sort(pool_all.begin(), pool_all.end());
    std::vector<RetrievalPair>& pairs = d.pairs[g];
    for (const auto& e : edges) {
      bool flip = rng.below(2);
      int32_t a = flip ? e[1] : e[0], b = flip ? e[0] : e[1];
      auto valid = [&](int32_t x) {
        return x != a && x != b && !has(adj[a], x) && !has(c.mentions[a], x) && !has(c.mentions[x], a);
      };
      int32_t neg = draw_partner(pool[c.pages[b].section], len[b], b, a, valid, rng);
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

Splits load_retrieval(const RetrievalOptions& opt) { return std::move(build_retrieval(opt).splits); }

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
  auto names = [&](int32_t x, int32_t y) {
    for (const std::string& t : corpus.pages[y].title_names)
      if (has_word(corpus.pages[x].text, t)) return true;
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
  o << "retrieval: " << c.files << " files -> " << c.pages.size() << " documents (" << c.aliases
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
  o << "retrieval: " << d.links_across << " links cross two splits (no pair); " << d.negatives_wider
    << " negatives from another section; " << d.positives_unmatched << " positives dropped without a negative\n";
  if (d.max_bytes)
    o << "retrieval: " << d.documents_cut << " documents cut to their first " << d.max_bytes << " bytes\n";
  return o.str();
}

}  // namespace az
