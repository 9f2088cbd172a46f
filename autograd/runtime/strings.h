// The small string helpers every layer uses for its one-line messages and
// reports, defined once: lists joined with a separator, numbers formatted by a
// printf format, and the "did you mean" hint for a misspelt name.
#pragma once
#include <string>
#include <vector>

namespace az {

// "a, b, c" (or with the given separator).
std::string join(const std::vector<std::string>& v, const std::string& sep = ", ");
// The non-empty items of s between separators, blanks trimmed at both ends: "a, b,"
// gives {"a", "b"}; an item's inner blanks stay ("--window 32" split on ';' is one item).
std::vector<std::string> split_list(const std::string& s, char sep = ',');
// v formatted by a printf format for one double: fmt("%.3f", 0.5) == "0.500".
// fmt("%g", v) is what `std::ostream << v` prints.
std::string fmt(const char* format, double v);
// v as text that reads back to the same double (checkpoints, configs): "%.17g".
std::string exact(double v);
// For one-line errors about a misspelt name: " (did you mean X?)" naming the
// candidate closest to `name` within two edits, or "" when none is.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace az
