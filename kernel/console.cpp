// The console (stdout) and the dmesg ring buffer behind it.
#include "kernel.h"

#include <cstdio>

namespace mk {

void Console::write(const std::string &s, bool to_console) {
  std::lock_guard<std::mutex> g(mu_);
  if (to_console) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  }
  ring_ += s;
  if (ring_.size() > kRingSize) {
    // Drop whole lines from the front so dmesg never starts mid-line.
    size_t cut = ring_.size() - kRingSize;
    size_t nl = ring_.find('\n', cut);
    ring_.erase(0, nl == std::string::npos ? cut : nl + 1);
  }
}

std::string Console::dmesg() const {
  std::lock_guard<std::mutex> g(mu_);
  return ring_;
}

void Console::clear_dmesg() {
  std::lock_guard<std::mutex> g(mu_);
  ring_.clear();
}

} // namespace mk
