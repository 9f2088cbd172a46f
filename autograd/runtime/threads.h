// Is the thread setup sound?  A user who sets OMP_NUM_THREADS above the CPUs the process may
// use, or OMP_PROC_BIND / OMP_PLACES so that threads share a core, gets a run several times
// slower with nothing to say why (bind=close, places=cores dropped flash from 10 to 1.4 steps/s
// on a 16-core Xeon).  These checks name it in one line; train and bench print it.
#pragma once
#include <string>

namespace az {

// From the process's and each OpenMP thread's CPU affinity: "" when the threads have a CPU
// each, else one line naming the settings and what to change: more threads than CPUs the
// process may use, or more threads bound to one place than it has CPUs.  One parallel region.
std::string thread_placement_warning();

// Measured: every thread runs the same single-threaded sgemm at once, and their combined rate is
// compared with one thread's alone.  `scaling` gets that ratio (ideally the thread count).
// Returns one line when it is below `below` times the thread count (threads share cores, or
// other jobs hold them), else "".  About 30 ms.
std::string thread_rate_warning(double* scaling = nullptr, double below = 0.5);

// Call just before the process exec()s itself again (train/cli/main.cpp sets OMP_WAIT_POLICY and
// OPENBLAS_CORETYPE that way).  With OMP_PROC_BIND set, libgomp has already pinned this thread
// to the first place, and exec() would keep that one-place mask: the new process would build
// its places inside it and run every thread there (16 threads on one core, 1.4 steps/s where 10
// were due).  This gives the thread back every CPU of every place, the mask libgomp started from.
void unpin_before_exec();

}  // namespace az
