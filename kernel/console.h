// The console (stdout) and the dmesg ring buffer behind it.
#pragma once

#include "../linker/sync.h"

#include <string>

namespace mk {

class Console {
public:
  // To stdout (unless !to_console) and the ring buffer.
  void write(const std::string &s, bool to_console = true) EXCLUDES(mu_);
  std::string dmesg() const EXCLUDES(mu_);
  void clear_dmesg() EXCLUDES(mu_);
  // For a panic report: the last `lines` lines of the buffer into `out`
  // (no allocation); 0 if another thread holds the buffer.
  size_t tail(char *out, size_t cap, int lines) const EXCLUDES(mu_);
  static constexpr size_t kRingSize = 64 * 1024;

private:
  mutable Mutex mu_; // one writer at a time, so lines never interleave
  std::string ring_ GUARDED_BY(mu_); // the last kRingSize bytes written
};

} // namespace mk
