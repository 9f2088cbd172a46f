// Benchmarks: one training configuration's speed, FLOP rate and memory
// (`attnzoo bench`), and the machine's sgemm rate they are measured against.
#pragma once
#include <map>
#include <string>

#include "train/model.h"

namespace az {

struct BenchConfig {
  ModelConfig model;  // vocab 257 and 10 classes are set by run_bench
  int64_t batch = 8, steps = 6, warmup = 1;
  bool profile = false;
};

struct BenchResult {
  double steps_per_s = 0, tokens_per_s = 0, ms_per_step = 0, peak_rss_mb = 0;
  double model_gflop_per_step = 0, gflops = 0, sgemm_peak_gflops = 0, mfu = 0;
  std::string json;  // the one-line report
};

// Trains `steps` timed AdamW steps on random tokens after `warmup` untimed ones.
BenchResult run_bench(const BenchConfig& c);
// Best of a few 2048^3 cblas_sgemm calls with the current thread count, in GFLOP/s.
double sgemm_peak_gflops(int n = 2048, int reps = 3);
// Peak resident set of this process so far, in MB.
double peak_rss_mb();

}  // namespace az
