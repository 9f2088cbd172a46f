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
  double thread_scaling = 1;  // all threads' sgemm rate over one thread's (thread_rate_warning)
  std::string thread_warning;  // one line when the thread setup collapses speed, else ""
  std::string json;            // the one-line report
};

// Trains `steps` timed AdamW steps on random tokens after `warmup` untimed ones.
BenchResult run_bench(const BenchConfig& c);
// Best of a few n^3 cblas_sgemm calls with the current thread count, in GFLOP/s (n = 2048
// unless one product at a smaller size already takes over 0.1 s).
double sgemm_peak_gflops(int n = 2048, int reps = 3);
// Peak resident set of this process so far, in MB.
double peak_rss_mb();
// The kernel set OpenBLAS chose ("SkylakeX", "Haswell", "Zen", ... ) and ours (vecmath: "AVX3", ...).
std::string blas_core();
std::string simd_target();
// The CPU as /proc/cpuinfo names it, with its family and model numbers (generic names
// such as "Intel(R) Xeon(R) Processor" say nothing alone): the label of every figure.
std::string cpu_name();
// The commit this program was built from ("c5cc745", "c5cc745-dirty"; Makefile).
std::string build_commit();
// OpenBLAS 0.3.21 (Debian 12) does not know CPUs newer than itself (e.g. Intel family 6
// model 207) and falls back to its Prescott (SSE3) kernels, several times slower.  When
// that happened and OPENBLAS_CORETYPE is unset, this runs the program again (execv of
// /proc/self/exe with the same argv) with the core this CPU's SIMD level supports:
// SkylakeX for AVX-512, Haswell for AVX2.  Call first thing in main; returns otherwise.
void reexec_if_blas_core_unknown(char** argv);
// The kernel set to ask OpenBLAS for (OPENBLAS_CORETYPE) when it fell back to
// Prescott on a CPU it does not know, or null (known CPU, or already set).
const char* blas_core_override();

}  // namespace az
