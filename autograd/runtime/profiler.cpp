// Per-op timing (--profile) and the anomaly flag; see profiler.h.
#include "autograd/runtime/profiler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

namespace az {

bool Profiler::enabled = false;
bool Anomaly::enabled = false;
namespace {
struct ProfRow {
  double fwd = 0, bwd = 0;
  long nf = 0, nb = 0;
};
std::map<std::string, ProfRow>& prof_rows() {
  static std::map<std::string, ProfRow> rows;
  return rows;
}
std::mutex prof_mu;  // the threads of a batch-parallel step record at once (times are summed over threads)
}  // namespace

double Profiler::now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void Profiler::record(const char* name, bool backward, double s) {
  std::lock_guard<std::mutex> l(prof_mu);
  ProfRow& r = prof_rows()[name];
  if (backward) r.bwd += s, r.nb++;
  else r.fwd += s, r.nf++;
}
void Profiler::reset() {
  std::lock_guard<std::mutex> l(prof_mu);
  prof_rows().clear();
}
std::string Profiler::table() {
  std::lock_guard<std::mutex> l(prof_mu);
  std::vector<std::pair<std::string, ProfRow>> rows(prof_rows().begin(), prof_rows().end());
  double total = 0;
  for (auto& r : rows) total += r.second.fwd + r.second.bwd;
  std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) {
    return a.second.fwd + a.second.bwd > b.second.fwd + b.second.bwd;
  });
  std::ostringstream o;
  char line[160];
  std::snprintf(line, sizeof line, "%-22s %10s %10s %8s %8s %7s\n", "op", "fwd ms", "bwd ms", "fwd n",
                "bwd n", "share");
  o << line;
  for (auto& [name, r] : rows) {
    std::snprintf(line, sizeof line, "%-22s %10.1f %10.1f %8ld %8ld %6.1f%%\n", name.c_str(),
                  r.fwd * 1e3, r.bwd * 1e3, r.nf, r.nb, 100.0 * (r.fwd + r.bwd) / std::max(total, 1e-12));
    o << line;
  }
  std::snprintf(line, sizeof line, "%-22s %21.1f ms\n", "total", total * 1e3);
  o << line;
  return o.str();
}

OpScope::OpScope(const char* name) : name_(name), t0_(Profiler::enabled ? Profiler::now() : 0) {}
OpScope::~OpScope() {
  if (Profiler::enabled) Profiler::record(name_, false, Profiler::now() - t0_);
}

}  // namespace az
