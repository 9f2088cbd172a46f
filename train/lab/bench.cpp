// `attnzoo bench` (see bench.h).
#include "train/lab/bench.h"
#include "train/parallel.h"

#include "attention/attention.h"
#include "attention/kernels/tile.h"
#include "autograd/runtime/threads.h"

#include <cblas.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "autograd/runtime/vecmath.h"

#include "nn/optim.h"
#include "train/lab/plot.h"  // json_quote
#include "version.h"  // AZ_GIT_COMMIT, written by the Makefile into the build directory

namespace az {

namespace {
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

double peak_rss_mb() {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

std::string blas_core() { return openblas_get_corename(); }
std::string simd_target() { return vec::current_target(); }
std::string build_commit() { return AZ_GIT_COMMIT; }

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, name = "unknown CPU", family, model;
  auto value = [&] {  // the text after "key<TAB>: ", or "" when there is none
    size_t v = line.find_first_not_of(" \t", line.find(':') + 1);
    return v == std::string::npos ? std::string() : line.substr(v);
  };
  while (std::getline(in, line) && line.find(':') != std::string::npos) {  // the first processor's block
    if (line.rfind("model name", 0) == 0) name = value();
    else if (line.rfind("cpu family", 0) == 0) family = value();
    else if (line.rfind("model\t", 0) == 0) model = value();
  }
  if (!family.empty() && !model.empty()) name += " (family " + family + " model " + model + ")";
  return name;
}

const char* blas_core_override() {
  if (std::getenv("OPENBLAS_CORETYPE") || blas_core() != "Prescott") return nullptr;
  std::string t = simd_target();
  return t == "AVX3" ? "SkylakeX" : t == "AVX2" ? "Haswell" : nullptr;
}

void reexec_if_blas_core_unknown(char** argv) {
  const char* want = blas_core_override();
  if (!want) return;
  std::fprintf(stderr, "note: OpenBLAS does not know this CPU and chose its Prescott (SSE3) kernels; "
               "running again with OPENBLAS_CORETYPE=%s (set OPENBLAS_CORETYPE to choose)\n", want);
  setenv("OPENBLAS_CORETYPE", want, 1);
  unpin_before_exec();  // (see threads.h)
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "note: execv /proc/self/exe failed; going on with the Prescott kernels\n");
}

double sgemm_peak_gflops(int n, int reps) {
  // The size grows from 256 while one product takes under 0.1 s, up to n: any real machine
  // reaches 2048 (0.17 s at 100 GFLOP/s), and an emulator (an Arm build under qemu, 0.3
  // GFLOP/s) is not held for minutes.
  int m = std::min(n, 256);
  for (std::vector<float> x(size_t(m) * m, 0.5f), y(x), z(x); m < n; m = std::min(n, 2 * m)) {
    x.resize(size_t(m) * m, 0.5f), y.resize(x.size(), 0.25f), z.resize(x.size());
    double t0 = now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, x.data(), m, y.data(), m, 0.0f, z.data(), m);
    if (now() - t0 > 0.1) break;
  }
  n = m;
  std::vector<float> a(size_t(n) * n, 0.5f), b(size_t(n) * n, 0.25f), c(size_t(n) * n, 0.0f);
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    double dt = now() - t0;
    best = std::max(best, 2.0 * n * double(n) * n / dt / 1e9);
  }
  return best;
}

BenchResult run_bench(const BenchConfig& bc) {
  ModelConfig mc = bc.model;
  mc.vocab = 257;
  mc.num_classes = 10;
  mc.dropout = 0.0f;
  global_rng().seed_with(1);
  SequenceClassifier model(mc);
  Adam opt(model.named_parameters(), 0.9f, 0.98f, 1e-9f, 0.01f, true);
  Batch b;
  b.B = int(bc.batch);
  b.N = int(mc.max_len);
  Rng r(3);
  for (int64_t i = 0; i < bc.batch * mc.max_len; ++i) b.tokens.push_back(int32_t(1 + r.randint(256)));
  b.pad_mask.assign(b.tokens.size(), 0.0f);
  for (int64_t i = 0; i < bc.batch; ++i) b.labels.push_back(int32_t(r.randint(10)));
  // The training step as the trainer takes it (train/parallel.h): batch shards or split products.
  const ParallelSettings& par = parallel_settings();
  const Parallel mode = par.mode != Parallel::kAuto ? par.mode
                        : choose_parallel(bc.batch, mc.max_len, mc.dim, omp_get_max_threads());
  auto step = [&]() {
    opt.zero_grad();
    model.before_step();
    sharded_backward(model, b, mode, mc.max_len, [&](const Batch& rows) {
      return ShardLoss{cross_entropy(model.forward(rows), IntTensor({rows.B}, rows.labels)), rows.B, 0};
    });
    clip_grad_norm(opt.params(), 1.0f);
    opt.step(1e-4f);
  };
  for (int64_t i = 0; i < bc.warmup; ++i) step();
  // The machine's sgemm rate, before and after the timed steps (the best of both):
  // on a shared or throttling machine one short window can catch it slow, and mfu
  // would then flatter the model (one window of three products: 156-305 GFLOP/s).
  double peak_before = sgemm_peak_gflops();
  // Threads that share cores (OMP_PROC_BIND / OMP_PLACES) or cores other jobs hold make every
  // figure below meaningless: measured and named before the timed steps.
  double thread_scaling = 1;
  std::string thread_warning = thread_placement_warning();
  std::string rate_warning = thread_rate_warning(&thread_scaling, 0.6);
  if (thread_warning.empty()) thread_warning = rate_warning;
  Profiler::reset();
  Profiler::enabled = bc.profile;
  reset_matmul_flops();
  double t0 = now();
  for (int64_t i = 0; i < bc.steps; ++i) step();
  double dt = now() - t0;
  Profiler::enabled = false;
  BenchResult res;
  res.thread_scaling = thread_scaling;
  res.thread_warning = thread_warning;
  res.peak_rss_mb = peak_rss_mb();
  res.model_gflop_per_step = matmul_flops() / double(bc.steps) / 1e9;
  res.steps_per_s = double(bc.steps) / dt;
  res.tokens_per_s = res.steps_per_s * double(bc.batch * mc.max_len);
  res.ms_per_step = 1e3 * dt / double(bc.steps);
  res.gflops = res.model_gflop_per_step * res.steps_per_s;
  res.sgemm_peak_gflops = std::max(peak_before, sgemm_peak_gflops());
  res.mfu = res.gflops / res.sgemm_peak_gflops;
  char buf[1280];
  std::snprintf(buf, sizeof buf,
                "{\"model\": \"%s\", \"seq_len\": %lld, \"batch\": %lld, \"dim\": %lld, \"heads\": %lld, \"layers\": %lld, "
                "\"ffn\": %lld, \"steps_per_s\": %.4f, \"tokens_per_s\": %.1f, \"ms_per_step\": %.2f, "
                "\"peak_rss_mb\": %.1f, \"model_gflop_per_step\": %.3f, \"gflops\": %.2f, \"sgemm_peak_gflops\": %.1f, "
                "\"mfu\": %.4f, \"threads\": %d, \"parallel\": \"%s\", \"shards\": %lld, \"thread_scaling\": %.2f, \"impl\": \"%s\", \"tiles\": \"%s\", \"blas_core\": \"%s\", \"simd\": \"%s\", \"cpu\": %s, \"build\": \"%s\"}",
                mc.model.c_str(), (long long)mc.max_len, (long long)bc.batch, (long long)mc.dim, (long long)mc.heads,
                (long long)mc.layers, (long long)mc.ffn, res.steps_per_s, res.tokens_per_s, res.ms_per_step,
                res.peak_rss_mb, res.model_gflop_per_step, res.gflops, res.sgemm_peak_gflops, res.mfu, omp_get_max_threads(), parallel_name(mode),
                (long long)shard_count(mode, bc.batch, mc.max_len), res.thread_scaling,
                impl_name(attention_impl()), tile::tile_backend(), blas_core().c_str(), simd_target().c_str(), json_quote(cpu_name()).c_str(), build_commit().c_str());
  res.json = buf;
  return res;
}

}  // namespace az
