// attnzoo's main(): the program itself is az::cli_main (train/cli_main.cpp).
#include <unistd.h>

#include <cstdlib>

#include "train/commands.h"

// OpenMP threads that spin while they wait collapse on a shared machine (a
// 200-step ListOps run took 348 s spinning and 15 s sleeping with the other
// core busy).  libgomp reads its policy before main, so the program starts
// itself again with OMP_WAIT_POLICY=passive unless the user chose one.
static void prefer_passive_waiting(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY")) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
}

int main(int argc, char** argv) {
  prefer_passive_waiting(argv);
  return az::cli_main(argc, argv);
}
