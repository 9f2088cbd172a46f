// Reading and quoting our JSON lines (metrics.jsonl, results.jsonl, records):
// one flat object per line, {"key": "text" | number | true | false | null, ...}.
// Both ways go through rapidjson, the project's one JSON library.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace az {

// Values are kept as text: strings unescaped, numbers as written ("1e-3" stays
// "1e-3"), true/false/null as those words.  Nested objects and arrays are refused.
using JsonObject = std::map<std::string, std::string>;
bool parse_json_object(const std::string& line, JsonObject* out);  // false if malformed
// Every well-formed line of a JSONL file (missing file: empty).  Malformed
// lines are skipped: a line cut short by an interrupted run must not stop a resume.
std::vector<JsonObject> read_jsonl(const std::string& path);
// A run's config.json, {"model": {...}, "train": {...}}: each section a flat object as above
// (missing or malformed file: empty; a value that is not a flat object is left out).
std::map<std::string, JsonObject> read_json_sections(const std::string& path);
std::string json_quote(const std::string& s);  // "s", escaped as JSON
double json_number(const JsonObject& o, const std::string& key, double def);
std::string json_text(const JsonObject& o, const std::string& key, const std::string& def = "");

}  // namespace az
