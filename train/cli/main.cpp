// attnzoo's main(): the program itself is az::cli_main (train/cli/cli_main.cpp).
#include <unistd.h>

#include <cstdlib>

#include "autograd/runtime/threads.h"
#include "train/lab/bench.h"
#include "train/cli/commands.h"

// Two settings that libgomp and OpenBLAS read before main, so the program
// starts itself again (once, silently) with them unless the user chose:
//  - OMP_WAIT_POLICY=passive: OpenMP threads that spin while they wait collapse
//    on a shared machine (a 200-step ListOps run took 348 s spinning and 15 s
//    sleeping with the other core busy);
//  - OPENBLAS_CORETYPE: OpenBLAS 0.3.21 does not know newer CPUs (Sapphire
//    Rapids, family 6 model 207) and runs its SSE3 kernels there, 3x slower;
//    we name the AVX-512 or AVX2 kernel set the CPU supports.
// With OMP_PROC_BIND set, libgomp has pinned this thread to one place by now; exec would keep
// that mask and put every thread of the new process on it, so it is undone first.
static void reexec_with_runtime_settings(char** argv) {
  bool again = false;
  if (!std::getenv("OMP_WAIT_POLICY")) setenv("OMP_WAIT_POLICY", "passive", 1), again = true;
  if (const char* core = az::blas_core_override()) setenv("OPENBLAS_CORETYPE", core, 1), again = true;
  if (again) az::unpin_before_exec(), execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
}

int main(int argc, char** argv) {
  reexec_with_runtime_settings(argv);
  return az::cli_main(argc, argv);
}
