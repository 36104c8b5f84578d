// tpcxx: asm-goto probe sites in C++ (a member function in a namespace),
// for tests/tracepoint/run.  `tpcxx N` bumps the counter N times, firing
// tpcxx:::hit (i, running total) each time, and prints the total.
//
// clang before 17 checks every asm goto of a C++ function against every
// label in it (ClangBuiltLinux#1886): an initialised local between two
// probe sites is refused there, so none is.
#include <stdlib.h>
#include <sys/kernel.h>
#include <sys/sdt.h>

SDT_PROVIDER_DEFINE(tpcxx);
SDT_PROBE_DEFINE2(tpcxx, , , hit, "int", "long");

namespace tp {
struct Counter {
  long n = 0;
  __attribute__((noinline)) void bump(int i) {
    n += i;
    SDT_PROBE2(tpcxx, , , hit, i, n);
  }
};
Counter counter;
} // namespace tp

static int tpcxx_cmd(int argc, char **argv) {
  if (argc != 2)
    return 1;
  for (int i = 0; i < atoi(argv[1]); i++)
    tp::counter.bump(i);
  printf("tpcxx: %ld\n", tp::counter.n);
  return 0;
}

SHELL_COMMAND(tpcxx, tpcxx_cmd, "tpcxx N", "asm-goto sites in C++");
DECLARE_MODULE(tpcxx, NULL);
