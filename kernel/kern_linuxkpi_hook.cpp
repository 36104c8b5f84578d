// See kern_linuxkpi_hook.h.
#include "kern_linuxkpi_hook.h"

namespace mk {
std::function<void(u64 lo, u64 hi)> linux_module_gone;
void (*linux_modules_coming)() = nullptr;
} // namespace mk
