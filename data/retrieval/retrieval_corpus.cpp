// The Retrieval task's corpus: man pages listed (dpkg's file lists or the
// folders), read through zlib, de-aliased (symlinks, .so redirects, copies),
// converted to text (retrieval_roff.cpp), linked through their SEE ALSO
// references, and stripped of the links.  Steps 1-4 of retrieval.h.
#include "data/retrieval/retrieval.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "data/text/text.h"

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
      const std::string base = target[0] == '/' ? "" : root + "/";  // .so paths are relative to the man root
      if (depth < 8)
        for (const std::string& cand : {base + target + ".gz", base + target})
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
  if (res.docs.empty())
    fail("none of the " + std::to_string(listed.size()) + " listed pages under " + res.root +
         " could be read (" + std::to_string(c.dangling) +
         " missing: does dpkg exclude man pages here, a path-exclude in /etc/dpkg/dpkg.cfg.d?)");
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

}  // namespace az
