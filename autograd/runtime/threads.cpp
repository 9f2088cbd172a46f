// The thread setup checks (see threads.h).
#include "autograd/runtime/threads.h"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "autograd/runtime/blas.h"

namespace az {

namespace {
std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
std::string placement_settings() {
  return "OMP_NUM_THREADS=" + env_or("OMP_NUM_THREADS", "(unset)") + " OMP_PROC_BIND=" + env_or("OMP_PROC_BIND", "(unset)") +
         " OMP_PLACES=" + env_or("OMP_PLACES", "(unset)");
}
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

std::string thread_placement_warning() {
  const int nt = omp_get_max_threads();
  // Each thread's own mask: the process's, or where OMP_PROC_BIND pins threads, its place's.
  std::vector<cpu_set_t> masks(static_cast<size_t>(nt));
  int team = 1;
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num();
#pragma omp single
    team = omp_get_num_threads();
    CPU_ZERO(&masks[size_t(t)]);
    sched_getaffinity(0, sizeof(cpu_set_t), &masks[size_t(t)]);
  }
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int t = 0; t < team; ++t) CPU_OR(&all, &all, &masks[size_t(t)]);
  const int reach = CPU_COUNT(&all);
  const bool bound = std::getenv("OMP_PROC_BIND") || std::getenv("OMP_PLACES");
  if (team > reach)
    return "threads: " + std::to_string(team) + " OpenMP threads can run on only " + std::to_string(reach) + " CPU" +
           (reach == 1 ? "" : "s") + " (" + (bound ? placement_settings() : "the process's CPU affinity") +
           "), so they take turns; set OMP_NUM_THREADS=" + std::to_string(reach) +
           (bound ? " or unset OMP_PROC_BIND and OMP_PLACES" : " or fewer");
  // Threads that share one mask take turns on its CPUs when there are more of them than CPUs.
  std::map<std::vector<int>, int> sharing;  // a mask's CPUs -> threads bound to it
  for (int t = 0; t < team; ++t) {
    std::vector<int> cpus_of;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &masks[size_t(t)])) cpus_of.push_back(c);
    ++sharing[cpus_of];
  }
  for (auto& [cpus_of, threads] : sharing)
    if (threads > int(cpus_of.size()))
      return "threads: " + std::to_string(threads) + " of " + std::to_string(team) + " OpenMP threads are bound to " +
             std::to_string(cpus_of.size()) + " CPU" + (cpus_of.size() == 1 ? "" : "s") + " (" + placement_settings() +
             "), so they take turns; unset OMP_PROC_BIND and OMP_PLACES, or bind one thread per CPU";
  return "";
}

std::string thread_rate_warning(double* scaling, double below) {
  const int nt = omp_get_max_threads();
  if (scaling) *scaling = 1.0;
  if (nt < 2) return "";
  const int64_t n = 256;  // 34 MFLOP a product, 20 a window: about 7 ms a thread at 90 GFLOP/s,
  const int reps = 20;    // longer than the slice a scheduler gives each of two jobs on one CPU
  std::vector<std::vector<float>> a(size_t(nt), std::vector<float>(size_t(n * n), 0.5f)), c = a;
  // Each thread times its own products from its own start (so the time the team takes to wake,
  // long on a virtual machine's idle CPUs, does not count), and a thread that shares its CPU with
  // another thread or job takes longer.
  std::vector<double> rate(size_t(nt), 0.0);
  auto window = [&](int threads) {
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      size_t t = size_t(omp_get_thread_num());
      double t0 = now();
      for (int r = 0; r < reps; ++r) sgemm_dense(false, false, n, n, n, a[t].data(), a[t].data(), 0.0f, c[t].data());
      rate[t] = std::max(rate[t], reps / (now() - t0));
    }
  };
  window(nt);  // wake the team
  std::fill(rate.begin(), rate.end(), 0.0);
  double one = 0;
  for (int w = 0; w < 2; ++w) {  // the best of two windows each, alternated
    window(1);
    one = std::max(one, rate[0]);
    rate[0] = 0;
    window(nt);
  }
  double s = 0;  // the threads' combined rate over one thread's alone
  for (double r : rate) s += r / one;
  if (scaling) *scaling = s;
  if (s >= below * nt) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", s);
  return "threads: " + std::to_string(nt) + " threads computed only " + buf +
         "x one thread's rate (other jobs hold the cores, or threads share them: " + placement_settings() +
         "); set OMP_NUM_THREADS lower or free the cores";
}

void unpin_before_exec() {
  const int places = omp_get_num_places();
  if (places <= 0) return;  // no OMP_PLACES / OMP_PROC_BIND: nothing was pinned
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int p = 0; p < places; ++p) {
    std::vector<int> ids(size_t(std::max(omp_get_place_num_procs(p), 0)));
    omp_get_place_proc_ids(p, ids.data());
    for (int id : ids)
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &all);
  }
  if (CPU_COUNT(&all) > 0) sched_setaffinity(0, sizeof all, &all);
}

}  // namespace az
