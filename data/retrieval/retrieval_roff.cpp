// man(7) roff -> readable text, and the `name(section)` references in it.
// A small stripper, not a typesetter: it keeps every word a reader of the
// page would see and drops the markup (requests, macros, font and size
// escapes, tbl's format lines, macro definitions).  It follows what man(7)
// and groff_char(7) say each construct prints; where the output of groff
// depends on filling or page width we keep the source's line breaks instead.
// Cost: one pass over the bytes.
#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "data/retrieval/retrieval.h"

namespace az {
namespace {

// groff_char(7) special characters we spell in ASCII; others print nothing.
const char* special_char(const std::string& n) {
  static const std::unordered_map<std::string, const char*> table = {
      {"em", "--"}, {"en", "-"},   {"hy", "-"},  {"mi", "-"},   {"aq", "'"},   {"dq", "\""},
      {"lq", "\""}, {"rq", "\""},  {"oq", "'"},  {"cq", "'"},   {"bu", "*"},   {"co", "(C)"},
      {"rg", "(R)"}, {"tm", "(TM)"}, {"mu", "x"}, {"di", "/"},  {"ti", "~"},   {"ha", "^"},
      {"ga", "`"},  {"rs", "\\"},  {"sl", "/"},  {"bv", "|"},   {"ba", "|"},   {"or", "|"},
      {"<=", "<="}, {">=", ">="},  {"->", "->"}, {"<-", "<-"},  {"==", "=="},  {"!=", "!="},
      {"+-", "+-"}, {"pl", "+"},   {"eq", "="},  {"lt", "<"},   {"gt", ">"},   {"at", "@"},
      {"sh", "#"},  {"Do", "$"},   {"dg", "+"},  {"aa", "'"},   {"fm", "'"},   {"lB", "["},
      {"rB", "]"},  {"lC", "{"},   {"rC", "}"},  {"la", "<"},   {"ra", ">"},   {"Fo", "<<"},
      {"Fc", ">>"}, {"fo", "<"},   {"fc", ">"},  {"ua", "^"},   {"da", "v"},   {"pc", "."},
      {"ul", "_"},  {"ru", "_"},   {"sq", "#"},  {"ss", "ss"},  {"de", "deg"}, {"Eu", "EUR"},
      {"eu", "EUR"}, {"tf", ".:."}, {"es", "{}"}, {"if", "inf"}, {"12", "1/2"}, {"14", "1/4"}};
  auto it = table.find(n);
  return it == table.end() ? "" : it->second;
}

void put_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x110000) {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

// The name after an escape like \f, \*, \n: one char, (xx, or [name].
// Advances i past it.
std::string escape_name(const std::string& s, size_t& i) {
  if (i >= s.size()) return "";
  if (s[i] == '(') {
    std::string n = s.substr(i + 1, 2);
    i = std::min(s.size(), i + 3);
    return n;
  }
  if (s[i] == '[') {
    size_t e = s.find(']', i);
    if (e == std::string::npos) e = s.size();
    std::string n = s.substr(i + 1, e - i - 1);
    i = std::min(s.size(), e + 1);
    return n;
  }
  return std::string(1, s[i++]);
}

// Skips a delimited argument like \w'...' or \h'...' starting at i.
void skip_delimited(const std::string& s, size_t& i) {
  if (i >= s.size()) return;
  char d = s[i++];
  while (i < s.size() && s[i] != d) i += (s[i] == '\\' ? 2 : 1);
  i = std::min(s.size(), i + 1);
}

void put_special(std::string& out, const std::string& name) {
  // \[u00E9] and \[u0041_0301]: Unicode code points, written as UTF-8.
  if (name.size() >= 5 && name[0] == 'u' && std::isxdigit(static_cast<unsigned char>(name[1]))) {
    uint32_t cp = 0;
    for (size_t k = 1; k < name.size() && std::isxdigit(static_cast<unsigned char>(name[k])); ++k)
      cp = cp * 16 + uint32_t(std::stoi(std::string(1, name[k]), nullptr, 16));
    put_utf8(out, cp);
    return;
  }
  out += special_char(name);
}

// Expands the escapes of one line of text.  *join is set when the line ends
// in \c (or a lone backslash): the next text line continues it.
std::string expand(const std::string& s, bool* join = nullptr) {
  std::string out;
  if (join) *join = false;
  for (size_t i = 0; i < s.size();) {
    char c = s[i++];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i >= s.size()) {
      if (join) *join = true;
      break;
    }
    char e = s[i++];
    switch (e) {
      case '"': case '#': return out;  // comment to the end of the line
      case 'f': case 'F': case 'g': case 'k': case 'm': case 'M': case 'Y': case 'V': case '$':
        escape_name(s, i);
        break;
      case 's':  // \s+1, \s-1, \s0, \s(12, \s[12]
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (i < s.size() && (s[i] == '(' || s[i] == '[')) escape_name(s, i);
        else if (i < s.size() && s[i] == '\'') skip_delimited(s, i);
        else if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        break;
      case 'n':  // number register: \nx, \n(xx, \n[xx], \n+x
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        escape_name(s, i);
        break;
      case '*': {  // string: only the quotes and marks man pages use print
        std::string n = escape_name(s, i);
        if (n == "lq" || n == "rq" || n == "Aq") out += n == "Aq" ? "'" : "\"";
        else if (n == "R") out += "(R)";
        else if (n == "Tm") out += "(TM)";
        break;
      }
      case '(': case '[': {
        --i;
        put_special(out, escape_name(s, i));
        break;
      }
      case 'C': {  // \C'name'
        size_t start = i;
        skip_delimited(s, i);
        if (i - start >= 2) put_special(out, s.substr(start + 1, i - start - 2));
        break;
      }
      case 'h': case 'v': case 'w': case 'o': case 'X': case 'l': case 'L': case 'D': case 'N':
      case 'b': case 'x': case 'Z': case 'A': case 'B': case 'R': case 'S':
        skip_delimited(s, i);
        break;
      case 'e': case '\\': out += '\\'; break;
      case 't': out += '\t'; break;
      case ' ': case '~': case '0': out += ' '; break;
      case 'c':
        if (join) *join = true;
        break;
      case '|': case '^': case '&': case ')': case '%': case ':': case ',': case '/': case 'p':
      case 'd': case 'u': case 'r': case 'z': case '{': case '}':
        break;
      default: out += e;  // \- \. \' \` and the rest print the character
    }
  }
  return out;
}

// Splits a macro's arguments: blanks separate, "double quotes" group, and
// "" inside quotes is a quote.  Escapes stay unexpanded (an escaped blank
// does not separate).
std::vector<std::string> split_args(const std::string& s) {
  std::vector<std::string> args;
  size_t i = 0;
  while (true) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i >= s.size()) break;
    std::string a;
    if (s[i] == '"') {
      for (++i; i < s.size(); ++i) {
        if (s[i] == '"') {
          if (i + 1 < s.size() && s[i + 1] == '"') { a += '"'; ++i; continue; }
          ++i;
          break;
        }
        if (s[i] == '\\' && i + 1 < s.size()) a += s[i++];
        a += s[i];
      }
    } else {
      for (; i < s.size() && s[i] != ' ' && s[i] != '\t'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) a += s[i++];
        a += s[i];
      }
    }
    args.push_back(a);
  }
  return args;
}

bool ends_blank(const std::string& out) {
  return out.empty() || (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n');
}
void blank_line(std::string& out) {
  if (out.empty()) return;
  if (out.back() != '\n') out += '\n';
  if (!ends_blank(out)) out += '\n';
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == ':' ||
         c == '+' || c == '@';
}

}  // namespace

std::string roff_to_text(const std::string& roff, std::vector<RoffHeading>* headings) {
  std::string out;
  std::vector<RoffHeading> heads;
  enum { kText, kSkipDefinition, kTableFormat, kTable } mode = kText;
  bool pending_heading = false, joined = false;
  bool fill = true;          // filled text: lines join with a blank, as man prints them
  bool break_after = false;  // .TP: the next line is the tag, on a line of its own
  auto brk = [&] {
    if (!out.empty() && out.back() != '\n') out += '\n';
  };
  auto start_heading = [&](const std::string& title) {
    blank_line(out);
    if (!heads.empty()) heads.back().end = out.size();
    heads.push_back({title, out.size(), 0});
    out += title + "\n";
    joined = break_after = false;
  };
  auto put_line = [&](const std::string& text, bool join) {
    if (fill && !joined && !text.empty() && !out.empty() && out.back() != '\n') out += ' ';
    out += text;
    if ((!fill || break_after) && !join) {
      out += '\n';
      break_after = false;
    }
    joined = join;
  };
  size_t pos = 0;
  while (pos < roff.size()) {
    // One logical line: a line ending in an unescaped backslash continues.
    std::string line;
    while (pos < roff.size()) {
      size_t e = roff.find('\n', pos);
      if (e == std::string::npos) e = roff.size();
      std::string part = roff.substr(pos, e - pos);
      pos = e + 1;
      if (!part.empty() && part.back() == '\r') part.pop_back();
      size_t bs = 0;
      while (bs < part.size() && part[part.size() - 1 - bs] == '\\') ++bs;
      if (bs % 2 == 1) {
        line += part.substr(0, part.size() - 1);
        continue;
      }
      line += part;
      break;
    }
    bool control = !line.empty() && (line[0] == '.' || line[0] == '\'');
    if (mode == kSkipDefinition) {
      if (control && line.compare(1, 1, ".") == 0) mode = kText;
      continue;
    }
    std::string req, rest;
    if (control) {
      size_t i = 1;
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (line.compare(i, 2, "\\\"") == 0) continue;  // a comment line
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
      req = line.substr(i, j - i);
      rest = j < line.size() ? line.substr(j + 1) : "";
    }
    if (mode == kTableFormat) {  // tbl: options; and format lines, the last ends in '.'
      std::string t = line;
      while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.pop_back();
      if (!t.empty() && t.back() == '.') mode = kTable;
      if (req == "TE") mode = kText;
      continue;
    }
    if (mode == kTable && !control) {
      std::string t = line;
      if (t == "_" || t == "=") continue;  // rules
      for (const char* brace : {"T{", "T}"}) {
        for (size_t k; (k = t.find(brace)) != std::string::npos;) t.erase(k, 2);
      }
      brk();
      out += expand(t) + "\n";
      continue;
    }
    if (!control) {
      if (line.empty()) {
        blank_line(out);
        continue;
      }
      bool join = false;
      std::string text = expand(line, &join);
      if (line[0] == ' ' || line[0] == '\t') brk();  // roff: a line starting with a blank breaks
      if (pending_heading) {
        pending_heading = false;
        start_heading(text);
        continue;
      }
      put_line(text, join);
      continue;
    }
    std::vector<std::string> args = split_args(rest);
    auto joined_args = [&](const char* sep) {
      std::string s;
      for (size_t k = 0; k < args.size(); ++k) s += (k ? sep : "") + expand(args[k]);
      return s;
    };
    if (req == "SH" || req == "SS") {
      if (args.empty()) {
        pending_heading = req == "SH";
        if (req == "SS") blank_line(out);
      } else if (req == "SH") {
        start_heading(joined_args(" "));
      } else {
        blank_line(out);
        out += joined_args(" ") + "\n";
      }
    } else if (req == "B" || req == "I" || req == "SM" || req == "SB") {
      if (!args.empty()) put_line(joined_args(" "), false);
    } else if (req == "BR" || req == "RB" || req == "IR" || req == "RI" || req == "BI" || req == "IB") {
      put_line(joined_args(""), false);
    } else if (req == "MR") {  // .MR name section [trailer] (groff 1.23)
      if (args.size() >= 2) put_line(expand(args[0]) + "(" + expand(args[1]) + ")" +
                                     (args.size() > 2 ? expand(args[2]) : ""), false);
    } else if (req == "IP") {
      brk();
      if (!args.empty()) {
        put_line(expand(args[0]), false);
        brk();
      }
    } else if (req == "TP") {
      brk();
      break_after = true;
    } else if (req == "UR" || req == "MT" || req == "SY") {
      if (!args.empty()) put_line(expand(args[0]), false);
    } else if (req == "UE" || req == "ME") {
      if (!args.empty()) put_line(joined_args(" "), false);
    } else if (req == "OP") {
      if (!args.empty()) put_line("[" + joined_args(" ") + "]", false);
    } else if (req == "PP" || req == "LP" || req == "P" || req == "sp" || req == "HP") {
      blank_line(out);
    } else if (req == "br" || req == "RS" || req == "RE" || req == "in" || req == "ti") {
      brk();
    } else if (req == "nf" || req == "EX" || req == "Vb" || req == "fi" || req == "EE" || req == "Ve") {
      brk();  // .Vb/.Ve: pod2man's verbatim blocks (OpenSSL's pages)
      fill = req == "fi" || req == "EE" || req == "Ve";
    } else if (req == "TS") {
      brk();
      mode = kTableFormat;
    } else if (req == "TE") {
      mode = kText;
    } else if (req == "de" || req == "de1" || req == "am" || req == "ig") {
      mode = kSkipDefinition;
    }
    // Every other request (.TH .if .ie
    // .el .ds .nr .so .ft .ad .na .ne .ta .hy .nh .PD .UC .YS ...) prints
    // nothing we keep: .TH repeats the page's name and section, .if/.ie
    // choose between typesetter and terminal output.
  }
  if (!heads.empty()) heads.back().end = out.size();
  // Trim trailing blank lines (a heading's end may point past them).
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  for (RoffHeading& h : heads) h.end = std::min(h.end, out.size());
  if (headings) *headings = std::move(heads);
  return out;
}

std::vector<ManRef> find_man_refs(const std::string& text) {
  std::vector<ManRef> refs;
  for (size_t p = text.find('('); p != std::string::npos; p = text.find('(', p + 1)) {
    // section: a digit, then lower-case letters or digits ("3", "3type", "1ssl")
    size_t q = p + 1;
    if (q >= text.size() || !std::isdigit(static_cast<unsigned char>(text[q]))) continue;
    ++q;
    while (q < text.size() && q - p <= 8 &&
           (std::islower(static_cast<unsigned char>(text[q])) || std::isdigit(static_cast<unsigned char>(text[q]))))
      ++q;
    if (q >= text.size() || text[q] != ')') continue;
    size_t name_end = p;
    if (name_end > 0 && text[name_end - 1] == ' ') --name_end;  // "open (2)"
    size_t b = name_end;
    while (b > 0 && is_name_char(text[b - 1])) --b;
    // A name does not start or end with punctuation ("see -open(2)", "(x.y)").
    while (b < name_end && !std::isalnum(static_cast<unsigned char>(text[b])) && text[b] != '_') ++b;
    if (b == name_end) continue;
    refs.push_back({b, q + 1, text.substr(b, name_end - b) + text.substr(p, q + 1 - p)});
  }
  return refs;
}

}  // namespace az
