// The fuzz targets' common entry point.  Each target (fuzz_*.cpp) defines
// LLVMFuzzerTestOneInput, the libFuzzer ABI; built with clang's
// -fsanitize=fuzzer it is a fuzzer (make fuzz), and linked with replay.cpp
// instead of libFuzzer's main it replays committed inputs in every build
// (make test: tests/fuzz/run).  A target returns 0 for every input: a bad
// input is an error value; only a crash, a sanitizer report or a failed
// invariant (FUZZ_CHECK) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);

// An invariant the target checks after each input: a failure aborts, which
// libFuzzer (and the replay driver) report with the input.
#define FUZZ_CHECK(cond, ...)                                                  \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "fuzz: invariant failed: %s: ", #cond);             \
      std::fprintf(stderr, __VA_ARGS__);                                       \
      std::fputc('\n', stderr);                                                \
      std::abort();                                                            \
    }                                                                          \
  } while (0)
