// The replay driver: runs a fuzz target's LLVMFuzzerTestOneInput over files
// (or every file of directories) without libFuzzer, so the committed
// regression inputs (tests/fuzz/regress/TARGET/) run in the normal and the
// sanitizer builds alike.  Prints "ok FILE" per input and ends with the
// suite line "N passed, 0 failed"; a finding crashes it (the driver, run
// by tests/fuzz/run, then counts as failed).
#include "fuzz.h"

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *, char ***) {
  return 0;
}

int main(int argc, char **argv) {
  // Our own stdout: a target may point fd 1 elsewhere (the kernel's
  // console, to /dev/null).
  FILE *out = fdopen(dup(1), "w");
  if (!out)
    return 2;
  LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      std::fprintf(stderr, "replay: %s: no such file\n", argv[i]);
      return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
      files.push_back(argv[i]);
      continue;
    }
    std::vector<std::string> in_dir;
    if (DIR *d = opendir(argv[i])) {
      while (dirent *e = readdir(d))
        if (e->d_name[0] != '.')
          in_dir.push_back(std::string(argv[i]) + "/" + e->d_name);
      closedir(d);
    }
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  size_t n = 0;
  for (const std::string &f : files) {
    std::ifstream in(f, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    // A copy of exactly its size, so a read past the end is caught.
    std::vector<uint8_t> data(bytes.begin(), bytes.end());
    LLVMFuzzerTestOneInput(data.data(), data.size());
    std::fprintf(out, "ok %s\n", f.c_str());
    std::fflush(out);
    n++;
  }
  std::fprintf(out, "%zu passed, 0 failed\n", n);
  std::fclose(out);
  return 0;
}
