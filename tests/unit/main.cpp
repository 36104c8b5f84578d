// The unit-test binary's entry point: doctest's own main (run with --help
// for its options, e.g. -tc='x86_64*' to pick tests).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
