/*
 * libcounter: a library module.  It does nothing on its own; it exports
 * functions and data (counter_add, counter_get, counter_calls,
 * counter_name) that other modules bind to by declaring
 * MODULE_DEPEND(..., libcounter, min, preferred, max).  Its version is 2;
 * while any dependent is loaded it cannot be unloaded.
 */
#include <sys/kernel.h>

#include "libcounter.h"

static struct mtx counter_mtx;
static int counter_total;
int counter_calls;
const char counter_name[] = "libcounter";

SYSCTL_INT("libcounter.total", CTLFLAG_RD, &counter_total,
    "Sum of everything added");
SYSCTL_INT("libcounter.calls", CTLFLAG_RD, &counter_calls,
    "Number of counter_add calls");

int
counter_add(const char *who, int n)
{
	int total;

	mtx_lock(&counter_mtx);
	counter_total += n;
	counter_calls++;
	total = counter_total;
	mtx_unlock(&counter_mtx);
	printf("libcounter: %s added %d, total %d\n", who, n, total);
	return total;
}

int
counter_get(void)
{
	int total;

	mtx_lock(&counter_mtx);
	total = counter_total;
	mtx_unlock(&counter_mtx);
	return total;
}

static int
libcounter_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		mtx_init(&counter_mtx, "libcounter");
		printf("libcounter: version %d ready\n", LIBCOUNTER_VERSION);
		return 0;
	case MOD_UNLOAD:
		printf("libcounter: unloading after %d calls\n", counter_calls);
		mtx_destroy(&counter_mtx);
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(libcounter, libcounter_modevent);
/* A literal: the macro's "version=" string for modinfo is not expanded. */
MODULE_VERSION(libcounter, 2);
_Static_assert(LIBCOUNTER_VERSION == 2, "MODULE_VERSION and the header differ");
MODULE_DESCRIPTION("A shared counter other modules link against");
MODULE_AUTHOR("minikern");
MODULE_LICENSE("BSD-2-Clause");
