// Two of Linux's kernel variables that describe the kernel itself, read
// by D scripts as `linux_banner and `max_pfn (kernel/ktype.h gives D their
// types): the banner Linux prints first at boot ("Linux version ..."),
// here naming the Linux API minikern offers (6.1) and the minikern build
// behind it; and max_pfn, one past the highest page frame of the memory
// the kernel may use: this machine's physical memory in 4 KiB pages, as
// the host reports it.
#include "lkpi.h"

#include "../ktype.h"
#include "../sysinit.h"

#include <unistd.h>

namespace lkpi {

#if defined(__x86_64__)
#define LKPI_BANNER_ARCH "x86_64"
#else
#define LKPI_BANNER_ARCH "i386"
#endif

const char linux_banner[] =
    "Linux version 6.1.0-minikern (minikern " MINIKERN_VERSION
    " " LKPI_BANNER_ARCH ") (gcc version " __VERSION__ ") #1 SMP\n";

unsigned long max_pfn;

namespace {

constexpr long kPageSize = 4096; // Linux's PAGE_SIZE on x86

bool init_max_pfn(mk::Kernel &) {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && size > 0)
    max_pfn = (unsigned long)((unsigned long long)pages * (unsigned long long)size /
                              kPageSize);
  return true;
}
SYSINIT(linuxkpi_max_pfn, SI_SUB_CPUS, 2, init_max_pfn);

} // namespace

// Not exports: vmlinux exports neither.
KERNEL_DTYPE(linux_banner, "char []");
KERNEL_DTYPE(max_pfn, "unsigned long");
// Defined with the per-CPU areas (percpu.cpp).
extern unsigned int nr_cpu_ids;
KERNEL_DTYPE(nr_cpu_ids, "unsigned int");

} // namespace lkpi
