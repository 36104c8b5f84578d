// The console (stdout) and the dmesg ring buffer behind it.
#include "console.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

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

size_t Console::tail(char *out, size_t cap, int lines) const {
  // The thread that panicked may hold the lock: try for a while only.
  if (!mu_.try_lock_for(1000))
    return 0;
  size_t end = ring_.size();
  while (end > 0 && ring_[end - 1] == '\n')
    end--;
  size_t start = end;
  for (int n = 0; start > 0 && n < lines; start--)
    if (ring_[start - 1] == '\n' && ++n == lines)
      break;
  size_t len = std::min(cap, end - start);
  ring_.copy(out, len, end - len);
  mu_.unlock();
  return len;
}

void Console::clear_dmesg() {
  MutexLock g(mu_);
  ring_.clear();
}

} // namespace mk
