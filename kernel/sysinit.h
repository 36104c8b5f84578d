// Boot-time initialisation steps of the kernel image, run in (subsystem,
// order) order from the `sysinit_set` linker set, like FreeBSD's SYSINIT.
#pragma once

#include <sys/linker_set.h>

namespace mk {
class Kernel;
}

enum sysinit_sub {
  SI_SUB_CONSOLE = 10,
  SI_SUB_MALLOC = 20,
  SI_SUB_ARENA = 30,
  SI_SUB_SYSCTL = 40,
  SI_SUB_CPUS = 50,
  SI_SUB_KLD = 60,
  SI_SUB_SHELL = 70,
};

struct sysinit {
  int si_subsystem;
  int si_order;
  const char *si_name;
  bool (*si_func)(mk::Kernel &); // false: boot fails (the step printed why)
};

#define SYSINIT(uniq, sub, order, func)                                        \
  static const sysinit __sysinit_##uniq = {sub, order, #uniq, func};           \
  DATA_SET(sysinit_set, __sysinit_##uniq)

SET_DECLARE(sysinit_set, const sysinit);
