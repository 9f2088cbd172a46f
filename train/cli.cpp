// Flag parsing (see cli.h).
#include "train/cli.h"
#include "train/parallel.h"
#include "autograd/runtime/strings.h"

#include <cmath>

#include "attention/attention.h"
#include "autograd/tensor.h"

namespace az {

static std::string list(const std::set<std::string>& a, const std::set<std::string>& b,
                        const std::set<std::string>& c) {
  std::set<std::string> all(a);
  all.insert(b.begin(), b.end());
  all.insert(c.begin(), c.end());
  std::string s;
  for (auto& f : all) s += (s.empty() ? "--" : ", --") + f;
  return s;
}

Flags::Flags(const std::string& command, const std::vector<std::string>& args, const std::set<std::string>& valued,
             const std::set<std::string>& switches, const std::set<std::string>& extra)
    : command_(command) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 3 || a.compare(0, 2, "--") != 0)
      fail(command + ": unexpected argument '" + a + "' (flags look like --name value)");
    std::string name = a.substr(2), value;
    size_t eq = name.find('=');
    bool inline_value = eq != std::string::npos;
    if (inline_value) value = name.substr(eq + 1), name = name.substr(0, eq);
    if (switches.count(name)) {
      if (inline_value) fail(command + ": --" + name + " takes no value");
      switches_.insert(name);
      continue;
    }
    if (!valued.count(name) && !extra.count(name)) {
      std::vector<std::string> known;
      for (const auto* set : {&valued, &switches, &extra})
        for (auto& k : *set) known.push_back("--" + k);
      std::string guess = did_you_mean("--" + name, known);
      fail(command + ": unknown flag --" + name +
           (!guess.empty() ? guess
            : valued.empty() && switches.empty() && extra.empty() ? " (it takes none)"
                                                                   : " (valid: " + list(valued, switches, extra) + ")"));
    }
    if (!inline_value) {
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) fail(command + ": --" + name + " needs a value");
      value = args[++i];
    }
    if (values_.count(name)) fail(command + ": --" + name + " given twice");
    values_[name] = value;
  }
}

std::string Flags::str(const std::string& name, const std::string& def) const {
  auto it = values_.find(name);
  return it == values_.end() ? def : it->second;
}

void Flags::apply_impl() const {
  attention_impl() = parse_impl(str("impl", "fast"));
  // --parallel and --shards (train/parallel.h), wherever the command declares them
  ParallelSettings& p = parallel_settings();
  p.mode = parse_parallel(str("parallel", "auto"));
  p.max_shards = integer("shards", 16);
  if (p.max_shards < 1 || p.max_shards > 4096) fail(command_ + ": --shards must be 1 to 4096, got " + str("shards", ""));
}

double Flags::number(const std::string& name, double def) const {
  auto it = values_.find(name);
  if (it == values_.end()) return def;
  try {
    size_t used = 0;
    double v = std::stod(it->second, &used);
    if (used == it->second.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  fail(command_ + ": --" + name + " expects a number, got '" + it->second + "'");
}

int64_t Flags::integer(const std::string& name, int64_t def) const {
  if (!has(name)) return def;
  double v = number(name, 0);
  if (v != std::floor(v)) fail(command_ + ": --" + name + " expects an integer, got '" + values_.at(name) + "'");
  if (std::fabs(v) > 9e15) fail(command_ + ": --" + name + " " + values_.at(name) + " is out of range (at most 9e15)");
  return int64_t(v);
}

std::string Flags::peek(const std::vector<std::string>& args, const std::string& name, const std::string& def) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--" + name && args[i + 1].rfind("--", 0) != 0) return args[i + 1];  // else: "needs a value"
  for (auto& a : args)
    if (a.rfind("--" + name + "=", 0) == 0) return a.substr(name.size() + 3);
  return def;
}

}  // namespace az
