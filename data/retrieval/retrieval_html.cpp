// The Retrieval task's second corpus (issue 78): HTML documentation trees
// that Debian ships, read as documents linked by their hyperlinks.  The man
// pages give 4,834 links, too few to learn from; the JDK's API pages
// (openjdk-17-doc) and cppreference (cppreference-doc-en-html) give about
// 70,000 between 9,000 pages.  The rules are the man corpus's (retrieval.h):
//   - a document is a page's content (the JDK's <main>, MediaWiki's
//     mw-content-text), without the site's navigation (chrome classes);
//   - a link is an anchor in the content whose href names another page of the
//     corpus; its text is cut out, so the link is not in the text, and the
//     page's other words stay (a name written without a link is content);
//   - pages whose texts are byte for byte the same are one document (aliases);
//   - a page's section is its folder (the JDK's package), its family the tree;
//   - the pairing, splits and baselines are the man corpus's (retrieval.cpp),
//     with docs_options: LRA's 10% each for validation and test, communities
//     dealt family by family and weighed by the links inside them, and a
//     negative with no partner left in the section taken from the family.
// HTML -> text is a stripper, not a browser, as retrieval_roff.cpp is for
// roff: both generators write regular markup (every element closed, quoted
// attributes), so tags, comments, script/style and entities are all it needs
// to know; an unclosed element ends with its parent (end tags pop the stack
// down to their match).  Block elements end a line; other whitespace outside
// <pre> is one blank.  Cost: one pass over the bytes (463 MB unpacked, of
// which the 9,085 pages read: 10 CPU-seconds with the pairing).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <unordered_map>
#include <unistd.h>

#include "data/retrieval/retrieval.h"

namespace az {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& msg) { throw DataError("retrieval: " + msg); }

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// &amp; &lt; &#233; &#xE9; and the named ones these sites use; others stay as written.
std::string decode_entities(const std::string& s) {
  static const std::unordered_map<std::string, const char*> named = {
      {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}, {"nbsp", " "},
      {"ndash", "-"}, {"mdash", "--"}, {"hellip", "..."}, {"lsquo", "'"}, {"rsquo", "'"},
      {"ldquo", "\""}, {"rdquo", "\""}, {"le", "<="}, {"ge", ">="}, {"ne", "!="}, {"times", "x"},
      {"rarr", "->"}, {"larr", "<-"}, {"copy", "(C)"}, {"reg", "(R)"}, {"trade", "(TM)"}, {"middot", "."}};
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    size_t semi = s[i] == '&' ? s.find(';', i) : std::string::npos;
    if (semi == std::string::npos || semi - i > 10) {
      out += s[i];
      continue;
    }
    std::string name = s.substr(i + 1, semi - i - 1);
    if (name.size() > 1 && name[0] == '#') {
      unsigned long cp = std::strtoul(name.c_str() + (name[1] == 'x' || name[1] == 'X' ? 2 : 1), nullptr,
                                      name[1] == 'x' || name[1] == 'X' ? 16 : 10);
      if (cp == 0 || cp > 0x10FFFF) {
        out += s[i];
        continue;
      }
      if (cp == 0xA0) cp = ' ';
      // UTF-8: a lead byte, then 6 bits in each continuation byte
      const int extra = cp < 0x80 ? 0 : cp < 0x800 ? 1 : cp < 0x10000 ? 2 : 3;
      static const unsigned char lead[4] = {0x00, 0xC0, 0xE0, 0xF0};
      out += char(lead[extra] | (cp >> (6 * extra)));
      for (int k = extra - 1; k >= 0; --k) out += char(0x80 | ((cp >> (6 * k)) & 0x3F));
    } else {
      auto it = named.find(name);
      if (it == named.end()) {
        out += s[i];
        continue;
      }
      out += it->second;
    }
    i = semi;
  }
  return out;
}

// The attributes of a start tag's inside ("a href=\"x\" class='y'"), names lower-cased.
std::map<std::string, std::string> attributes(const std::string& tag, size_t i) {
  std::map<std::string, std::string> a;
  while (i < tag.size()) {
    while (i < tag.size() && (std::isspace(static_cast<unsigned char>(tag[i])) || tag[i] == '/')) ++i;
    size_t b = i;
    while (i < tag.size() && tag[i] != '=' && !std::isspace(static_cast<unsigned char>(tag[i])) && tag[i] != '/') ++i;
    std::string name = lower(tag.substr(b, i - b)), value;
    if (i < tag.size() && tag[i] == '=') {
      ++i;
      if (i < tag.size() && (tag[i] == '"' || tag[i] == '\'')) {
        size_t e = tag.find(tag[i], i + 1);
        if (e == std::string::npos) e = tag.size();
        value = tag.substr(i + 1, e - i - 1);
        i = e + 1;
      } else {
        b = i;
        while (i < tag.size() && !std::isspace(static_cast<unsigned char>(tag[i]))) ++i;
        value = tag.substr(b, i - b);
      }
    }
    if (!name.empty()) a[name] = decode_entities(value);
  }
  return a;
}

bool is_block(const std::string& t) {
  static const char* blocks[] = {"p", "div", "br", "li", "ul", "ol", "dl", "dt", "dd", "tr", "table", "h1", "h2",
                                 "h3", "h4", "h5", "h6", "pre", "section", "blockquote", "hr", "header", "footer",
                                 "main", "nav", "article", "aside", "caption", "summary", "details"};
  return std::find(std::begin(blocks), std::end(blocks), t) != std::end(blocks);
}
bool is_void(const std::string& t) {
  static const char* voids[] = {"br", "img", "hr", "meta", "link", "input", "wbr", "area", "base", "col", "embed",
                                "source", "track", "param"};
  return std::find(std::begin(voids), std::end(voids), t) != std::end(voids);
}

// "a/b/../c/./d.html" -> "a/c/d.html"; "" when it climbs above the root.
std::string normalise(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '/');) {
    if (p.empty() || p == ".") continue;
    if (p == "..") {
      if (parts.empty()) return "";
      parts.pop_back();
    } else {
      parts.push_back(p);
    }
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

// The page path an href of page `from` names ("" for another site, an anchor in the page, a query).
std::string resolve_href(const std::string& from, std::string href) {
  href = href.substr(0, href.find_first_of("#?"));
  if (href.empty() || href[0] == '/' || href.find(':') < href.find('/')) return "";
  size_t slash = from.rfind('/');
  return normalise((slash == std::string::npos ? "" : from.substr(0, slash + 1)) + href);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read '" + path + "' (expected an HTML page)");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string html_to_text(const std::string& html, const HtmlFamily& f, const std::function<bool(const std::string&)>& is_link,
                         std::vector<std::string>* links, std::string* title) {
  struct Open {
    std::string tag;
    bool content = false, hidden = false;  // opens the content; hides its text (chrome, a cut link)
  };
  std::vector<Open> stack;
  int content = 0, hidden = 0, pre = 0;
  std::string out, title_text;
  bool in_title = false;
  auto line_break = [&] {
    while (!out.empty() && out.back() == ' ') out.pop_back();
    if (!out.empty() && out.back() != '\n') out += '\n';
  };
  auto close = [&](const Open& o) {
    content -= o.content, hidden -= o.hidden, pre -= o.tag == "pre";
    if (is_block(o.tag) && content > 0 && !hidden) line_break();
  };
  for (size_t i = 0; i < html.size();) {
    if (html[i] != '<') {
      size_t e = std::min(html.find('<', i), html.size());
      std::string text = decode_entities(html.substr(i, e - i));
      i = e;
      if (in_title) title_text += text;
      if (content <= 0 || hidden) continue;
      for (char c : text) {
        if (pre) out += c;
        else if (std::isspace(static_cast<unsigned char>(c))) {
          if (!out.empty() && out.back() != ' ' && out.back() != '\n') out += ' ';
        } else out += c;
      }
      continue;
    }
    if (html.compare(i, 4, "<!--") == 0) {  // a comment
      size_t e = html.find("-->", i + 4);
      i = e == std::string::npos ? html.size() : e + 3;
      continue;
    }
    size_t e = html.find('>', i);
    if (e == std::string::npos) break;
    std::string tag = html.substr(i + 1, e - i - 1);
    i = e + 1;
    if (tag.empty() || tag[0] == '!' || tag[0] == '?') continue;  // doctype, processing instruction
    const bool end = tag[0] == '/';
    size_t n = end ? 1 : 0;
    while (n < tag.size() && !std::isspace(static_cast<unsigned char>(tag[n])) && tag[n] != '/') ++n;
    const std::string name = lower(tag.substr(end ? 1 : 0, n - (end ? 1 : 0)));
    if (end) {
      if (name == "title") in_title = false;
      auto it = std::find_if(stack.rbegin(), stack.rend(), [&](const Open& o) { return o.tag == name; });
      if (it == stack.rend()) continue;  // a stray end tag
      for (size_t k = size_t(it - stack.rbegin()) + 1; k > 0; --k) {
        close(stack.back());
        stack.pop_back();
      }
      continue;
    }
    if (name == "script" || name == "style") {  // raw text to the end tag
      const size_t close_at = html.find("</" + name, i);  // both generators write tags in lower case
      i = close_at == std::string::npos ? html.size() : std::min(html.size(), html.find('>', close_at) + 1);
      if (i == 0) i = html.size();
      continue;
    }
    if (name == "title") in_title = true;
    if (is_void(name)) {
      if (is_block(name) && content > 0 && !hidden) line_break();
      continue;
    }
    std::map<std::string, std::string> a = attributes(tag, n);
    Open o;
    o.tag = name;
    o.content = f.content_id == "<main>" ? name == "main" : a.count("id") && a["id"] == f.content_id;
    std::stringstream classes(a["class"]);
    for (std::string c; classes >> c;)
      if (std::find(f.chrome.begin(), f.chrome.end(), c) != f.chrome.end()) o.hidden = true;
    if (name == "a" && content > 0 && !hidden && a.count("href") && is_link(a["href"])) {
      if (links) links->push_back(a["href"]);
      o.hidden = true;  // the anchor's text goes with the link
    }
    if (is_block(name) && content > 0 && !hidden) line_break();
    if ((name == "td" || name == "th") && content > 0 && !hidden && !out.empty() && out.back() != '\n' && out.back() != ' ')
      out += ' ';  // table cells: one blank between them
    content += o.content, hidden += o.hidden, pre += name == "pre";
    stack.push_back(o);
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  if (title) *title = title_text;
  return out;
}

ManCorpus read_html_corpus(const RetrievalOptions& opt) {
  struct Page {
    size_t family;
    std::string rel, id, section;
  };
  std::vector<Page> pages;
  size_t left_out = 0;  // HTML files that are not documents by the family's rules
  for (size_t fi = 0; fi < opt.html.size(); ++fi) {
    const HtmlFamily& f = opt.html[fi];
    std::error_code ec;
    if (!fs::is_directory(f.root, ec)) fail("'" + f.root + "' is not a folder (expected the " + f.name + " HTML pages)");
    for (fs::recursive_directory_iterator it(f.root, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string rel = fs::relative(it->path(), f.root).generic_string();
      const std::string file = it->path().filename().string();
      if (!it->is_regular_file() || file.size() < 6 || file.compare(file.size() - 5, 5, ".html") != 0) continue;
      if (f.upper_case && !std::isupper(static_cast<unsigned char>(file[0]))) {
        ++left_out;
        continue;
      }
      std::vector<std::string> parts;
      std::stringstream ss(rel.substr(0, rel.size() - 5));
      for (std::string p; std::getline(ss, p, '/');) parts.push_back(p);
      bool skip = false;
      for (const std::string& p : parts) skip |= std::find(f.skip.begin(), f.skip.end(), p) != f.skip.end();
      if (skip) {
        ++left_out;
        continue;
      }
      std::string section = f.name + ":";
      const size_t depth = f.section_depth ? std::min(f.section_depth, parts.size()) : parts.size() - 1;
      for (size_t k = 0; k < depth; ++k) section += (k ? "/" : "") + parts[k];
      pages.push_back({fi, rel, f.name + ":" + rel.substr(0, rel.size() - 5), section});
    }
    if (ec) fail("cannot list folder '" + f.root + "': " + ec.message());
  }
  if (pages.empty()) fail("no HTML pages found under the documentation folders (expected *.html)");
  std::sort(pages.begin(), pages.end(), [](const Page& a, const Page& b) { return a.id < b.id; });
  std::unordered_map<std::string, int32_t> index;  // "family:path.html" -> page
  for (size_t i = 0; i < pages.size(); ++i) index[opt.html[pages[i].family].name + ":" + pages[i].rel] = int32_t(i);

  // Text and link targets of every page; identical texts become one document.
  ManCorpus c;
  c.files = pages.size();
  c.left_out = left_out;
  std::vector<int32_t> doc_of(pages.size(), -1);
  std::unordered_map<std::string, int32_t> doc_of_text;
  std::vector<std::vector<int32_t>> targets(pages.size());
  for (size_t i = 0; i < pages.size(); ++i) {
    const HtmlFamily& f = opt.html[pages[i].family];
    auto target = [&](const std::string& href) {
      auto it = index.find(f.name + ":" + resolve_href(pages[i].rel, href));
      return it == index.end() ? -1 : it->second;
    };
    std::vector<std::string> hrefs;
    std::string title;
    std::string text = html_to_text(read_file(f.root + "/" + pages[i].rel), f,
                                    [&](const std::string& h) { int32_t t = target(h); return t >= 0 && size_t(t) != i; },
                                    &hrefs, &title);
    c.mentions_stripped += hrefs.size();
    for (const std::string& h : hrefs) targets[i].push_back(target(h));
    auto [it, fresh] = doc_of_text.emplace(text, int32_t(c.pages.size()));
    doc_of[i] = it->second;
    if (!fresh) {  // an alias: its name joins the document that has this text
      ++c.aliases;
      c.pages[size_t(it->second)].names.push_back(pages[i].id);
      continue;
    }
    ManPage p;
    p.id = pages[i].id;
    p.section = pages[i].section;
    p.names = {pages[i].id};
    p.path = f.root + "/" + pages[i].rel;
    title = title.substr(0, title.find(" - "));  // "std::vector - cppreference.com"
    title = title.substr(0, title.find(" ("));   // "ArrayList (Java SE 17 & JDK 17)"
    if (!title.empty()) p.title_names = {title};
    p.text = std::move(text);
    c.empty += p.text.empty();
    c.pages.push_back(std::move(p));
  }
  for (ManPage& p : c.pages) std::sort(p.names.begin(), p.names.end());
  std::vector<std::array<int32_t, 2>> links;
  for (size_t i = 0; i < pages.size(); ++i)
    for (int32_t t : targets[i]) {
      ++c.refs;
      int32_t a = doc_of[i], b = doc_of[size_t(t)];
      if (a == b) ++c.refs_self;  // a link to its own alias
      else if (!c.pages[size_t(a)].text.empty() && !c.pages[size_t(b)].text.empty())
        links.push_back({std::min(a, b), std::max(a, b)});
    }
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  c.links = std::move(links);
  c.mentions.assign(c.pages.size(), {});  // every anchor to a page is a link: no mention stays
  return c;
}

std::vector<HtmlFamily> debian_doc_families(const std::string& cache_dir) {
  struct Source {
    const char* package;
    const char* size;  // of the .deb, for the notice
    const char* root;  // the pages' folder inside the package
    HtmlFamily family;
  };
  std::vector<Source> sources = {
      {"openjdk-17-doc", "13 MB; 289 MB unpacked", "usr/share/doc/openjdk-17-jre-headless/api",
       {"jdk", "", "<main>", {"table-tabs"}, {"class-use", "doc-files"}, true, 0}},
      {"cppreference-doc-en-html", "4 MB; 174 MB unpacked", "usr/share/cppreference/doc/html/en",
       // (symbol_index/ and the main page are indexes: hubs that cite every page, not documents)
       {"cppreference", "", "mw-content-text", {"t-navbar"}, {"symbol_index", "Main_Page", "index"}, false, 0}}};
  std::vector<HtmlFamily> out;
  for (Source& s : sources) {
    std::error_code ec;
    const std::string installed = std::string("/") + s.root, cached = cache_dir + "/" + s.package;
    s.family.root = fs::is_directory(installed, ec) ? installed : cached + "/" + s.root;
    if (!fs::is_directory(s.family.root, ec)) {
      std::cerr << "retrieval: fetching " << s.package << " with apt-get download into " << cached << " (once; "
                << s.size << ")\n";
      const std::string tmp = cached + ".part-" + std::to_string(getpid());
      fs::remove_all(tmp, ec);
      fs::create_directories(tmp, ec);
      // (as root apt warns that it cannot drop to its sandbox user for a folder it does not own)
      const std::string cmd = "cd '" + tmp + "' && apt-get download -qq -o APT::Sandbox::User=root " + s.package +
                              " >&2 && dpkg-deb -x " + s.package + "_*.deb tree";
      if (std::system(cmd.c_str()) != 0 || !fs::is_directory(tmp + "/tree/" + s.root, ec)) {
        fs::remove_all(tmp, ec);
        fail("could not fetch " + std::string(s.package) + " (`apt-get download " + s.package +
             "` and dpkg-deb -x failed); install it with apt-get install " + s.package + " or pass --data");
      }
      fs::remove_all(cached, ec);
      fs::rename(tmp + "/tree", cached, ec);
      fs::remove_all(tmp, ec);
      if (ec) fail("cannot move the unpacked " + std::string(s.package) + " to '" + cached + "': " + ec.message());
    }
    out.push_back(s.family);
  }
  return out;
}

RetrievalOptions docs_options(std::vector<HtmlFamily> families) {
  RetrievalOptions o;
  o.html = std::move(families);
  o.val_fraction = 0.1;
  o.test_fraction = 0.1;
  o.stratify = true;
  o.deal_by_links = true;
  o.max_bytes = 4096;  // LRA's documents: whole, the pairs' copies would hold ~9 GB
  return o;
}

}  // namespace az
