// The console (stdout) and the dmesg ring buffer behind it.
#include "console.h"

#include <cstdio>

namespace mk {

void Console::write(const std::string &s, bool to_console) {
  MutexLock g(mu_);
  if (to_console) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  }
  ring_ += s;
  // Trim only when twice the size, so a write costs O(its length), not a
  // move of the whole buffer.
  if (ring_.size() > 2 * kRingSize)
    ring_.erase(0, ring_.size() - kRingSize);
}

std::string Console::dmesg() const {
  MutexLock g(mu_);
  if (ring_.size() <= kRingSize)
    return ring_;
  // The last kRingSize bytes, from a line start so it never begins mid-line.
  size_t cut = ring_.size() - kRingSize;
  size_t nl = ring_.find('\n', cut);
  return ring_.substr(nl == std::string::npos ? cut : nl + 1);
}

void Console::clear_dmesg() {
  MutexLock g(mu_);
  ring_.clear();
}

} // namespace mk
