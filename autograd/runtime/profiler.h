// The engine's two diagnostics, off by default (one branch each when off):
// per-op timing for --profile and anomaly detection for --detect-anomaly.
// The engine (autograd/tensor.cpp) records backward times and checks
// gradients; each op's forward opens an OpScope.
#pragma once
#include <string>

namespace az {

// Per-op timing for --profile: forward time by RAII scope in each op,
// backward time in the engine.  Off by default; one branch when off.
struct Profiler {
  static bool enabled;
  static void record(const char* name, bool backward, double seconds);
  static std::string table();  // sorted by total time
  static void reset();
  static double now();  // seconds on the steady clock
};
struct OpScope {
  explicit OpScope(const char* name);
  ~OpScope();
  const char* name_;
  double t0_;
};

// With anomaly detection on, the engine checks every gradient it produces and
// names the op whose backward first made a NaN or Inf.
struct Anomaly {
  static bool enabled;
};

}  // namespace az
