// The doctest main shared by every test suite.  Started with AZ_TEST_AS_CLI
// set, a test binary is the attnzoo program instead (az::cli_main), with every
// task and model the suite registers: the LRA sweep's child processes and a
// suite's own command-line checks run it that way.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

#include "train/cli/commands.h"

int main(int argc, char** argv) {
  if (std::getenv("AZ_TEST_AS_CLI")) return az::cli_main(argc, argv);
  doctest::Context ctx;
  ctx.applyCommandLine(argc, argv);
  return ctx.run();
}
