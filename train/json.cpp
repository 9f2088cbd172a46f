#include "train/json.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace az {

namespace {
// A flat object's members as text; false for a nested object or array.
bool flat_object(const rapidjson::Value& d, JsonObject* out) {
  JsonObject o;
  for (auto& m : d.GetObject()) {
    const auto& v = m.value;
    std::string key(m.name.GetString(), m.name.GetStringLength());
    if (v.IsString()) o[key] = std::string(v.GetString(), v.GetStringLength());
    else if (v.IsBool()) o[key] = v.GetBool() ? "true" : "false";
    else if (v.IsNull()) o[key] = "null";
    else return false;  // an object or an array
  }
  *out = std::move(o);
  return true;
}
}  // namespace

bool parse_json_object(const std::string& line, JsonObject* out) {
  rapidjson::Document d;
  // numbers as their text, so that a value reads back exactly as it was written
  d.Parse<rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseStopWhenDoneFlag>(line.c_str(), line.size());
  return !d.HasParseError() && d.IsObject() && flat_object(d, out);
}

std::map<std::string, JsonObject> read_json_sections(const std::string& path) {
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  rapidjson::Document d;
  d.Parse<rapidjson::kParseNumbersAsStringsFlag>(text.c_str(), text.size());
  std::map<std::string, JsonObject> sections;
  if (d.HasParseError() || !d.IsObject()) return sections;
  JsonObject o;
  for (auto& m : d.GetObject())
    if (m.value.IsObject() && flat_object(m.value, &o)) sections[std::string(m.name.GetString(), m.name.GetStringLength())] = o;
  return sections;
}

std::vector<JsonObject> read_jsonl(const std::string& path) {
  std::vector<JsonObject> rows;
  std::ifstream in(path);
  std::string line;
  JsonObject o;
  while (std::getline(in, line))
    if (parse_json_object(line, &o)) rows.push_back(o);
  return rows;
}

std::string json_quote(const std::string& s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.String(s.c_str(), rapidjson::SizeType(s.size()));
  return std::string(buf.GetString(), buf.GetSize());
}

double json_number(const JsonObject& o, const std::string& key, double def) {
  auto it = o.find(key);
  if (it == o.end()) return def;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  return end && *end == 0 && !it->second.empty() ? v : def;
}

std::string json_text(const JsonObject& o, const std::string& key, const std::string& def) {
  auto it = o.find(key);
  return it == o.end() ? def : it->second;
}

}  // namespace az
