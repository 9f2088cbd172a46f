#include "autograd/runtime/strings.h"

#include <algorithm>
#include <cstdio>

namespace az {

std::vector<std::string> split_list(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s + sep) {
    if (ch != sep) {
      cur += ch;
      continue;
    }
    size_t a = cur.find_first_not_of(' '), b = cur.find_last_not_of(' ');
    if (a != std::string::npos) out.push_back(cur.substr(a, b - a + 1));
    cur.clear();
  }
  return out;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string fmt(const char* format, double v) {
  char b[64];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

std::string exact(double v) { return fmt("%.17g", v); }

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  // Levenshtein distance, one row at a time
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t best_d = 3;
  for (auto& c : candidates) {
    size_t d = distance(name, c);
    if (d < best_d && d < std::max<size_t>(c.size(), 2)) best_d = d, best = c;
  }
  return best.empty() ? "" : " (did you mean " + best + "?)";
}

}  // namespace az
