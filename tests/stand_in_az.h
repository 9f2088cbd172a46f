// A stand-in for the attnzoo program, for the tests of the bench scripts that run it (AZ=PATH bash
// bench/TASK_lra.sh ...): it records every command line it is given, and answers eval, plot and bench
// (450 ms a step) as attnzoo would, so a script's train, eval and plot calls are checked flag by flag without training.
// Used by tests/test_runs.cpp (bench/pathfinder_lra.sh) and tests/test_retrieval.cpp (bench/retrieval_lra.sh).
#pragma once
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace az::test {

using Flags = std::map<std::string, std::string>;  // --flag -> its value ("" for a switch)

// One call of the stand-in: OMP_NUM_THREADS as the program saw it ("unset" where it was not), the
// subcommand, and its flags.
struct AzCall {
  std::string omp, sub;
  Flags flags;
};

struct StandInAz {
  std::string path, log;  // the program (DIR/az) and its record (DIR/calls)
  // eval prints EVAL_LINE (eval's line: "test accuracy A, loss L over N examples"); plot writes the
  // three curve files into its --run folder, one line "curve" each.
  StandInAz(const std::string& dir, const std::string& eval_line) : path(dir + "/az"), log(dir + "/calls") {
    // one call a block: OMP_NUM_THREADS, then each argument on its own line, then a blank line
    std::ofstream(path) << "#!/usr/bin/env bash\n"
                           "{ echo \"OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}\"; printf '%s\\n' \"$@\"; echo; } >> "
                        << log << "\n"
                        << "case $1 in\n"
                           "  eval) echo '"
                        << eval_line << "' ;;\n"
                        << "  plot) for f in gp png svg; do echo curve > \"$3/curves.$f\"; done ;;\n"
                           "  bench) echo '{\"ms_per_step\": 450.0}' ;;\n"
                           "esac\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  }
  // The calls recorded since the last look, in order; the record starts afresh.
  std::vector<AzCall> calls() const {
    std::vector<AzCall> all;
    std::ifstream in(log);
    std::vector<std::string> words;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) {
        words.push_back(line);
        continue;
      }
      AzCall c;
      c.omp = words.at(0), c.sub = words.at(1);
      for (size_t i = 2; i < words.size(); ++i) {
        REQUIRE_MESSAGE(words[i].rfind("--", 0) == 0, ("not a flag: " + words[i]));
        const bool has_value = i + 1 < words.size() && words[i + 1].rfind("--", 0) != 0;
        c.flags[words[i].substr(2)] = has_value ? words[i + 1] : "";
        i += has_value;
      }
      all.push_back(c), words.clear();
    }
    std::filesystem::remove(log);
    return all;
  }
};

// How GOT differs from WANT, one clause a flag ("" when they agree): numbers compare as numbers
// (1e-3 is 0.001), the rest as text; a flag WANT lacks is named too.
inline std::string flag_diff(const Flags& got, const Flags& want) {
  std::string diff;
  for (auto& [k, v] : want) {
    auto it = got.find(k);
    char* end = nullptr;
    const bool num = !v.empty() && (std::strtod(v.c_str(), &end), *end == 0);
    if (it == got.end()) diff += " --" + k + " missing;";
    else if (num ? std::strtod(it->second.c_str(), nullptr) != std::strtod(v.c_str(), nullptr) : it->second != v)
      diff += " --" + k + " " + it->second + " (want " + v + ");";
  }
  for (auto& [k, v] : got)
    if (!want.count(k)) diff += " --" + k + " is not wanted;";
  return diff;
}

}  // namespace az::test
