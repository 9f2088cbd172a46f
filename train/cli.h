// A small command-line parser: `--name value` and `--switch`, checked against
// the flags a command declares.  Every refusal is one line naming the flag
// and what was expected (an unknown flag lists the valid ones).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace az {

class Flags {
 public:
  // args: everything after the command; valued/switches: the declared flags
  // (without "--"); extra_valued: further accepted flags (a model's knobs).
  Flags(const std::string& command, const std::vector<std::string>& args, const std::set<std::string>& valued,
        const std::set<std::string>& switches, const std::set<std::string>& extra_valued = {});
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  bool on(const std::string& sw) const { return switches_.count(sw) > 0; }
  std::string str(const std::string& name, const std::string& def) const;
  int64_t integer(const std::string& name, int64_t def) const;  // rejects non-integers
  double number(const std::string& name, double def) const;     // rejects non-numbers
  const std::map<std::string, std::string>& values() const { return values_; }
  // Pre-scan for one flag's value (e.g. --model before the knobs are known).
  static std::string peek(const std::vector<std::string>& args, const std::string& name, const std::string& def);

  // --impl fast|reference (train, eval, bench, predict, generate): sets attention_impl()
  // (attention/attention.h) for the whole process; refused in one line when it is neither.
  void apply_impl() const;

 private:
  std::string command_;
  std::map<std::string, std::string> values_;
  std::set<std::string> switches_;
};

}  // namespace az
