/*
 * tp_hot: a handler on the unit tests' sdthot:::hot probe (a call site of
 * the test binary) and on tp_gotohot's gotohot:::hot (an asm-goto site,
 * whose block calls a lone handler itself), attached at load by one
 * description that matches both; it counts its calls in the sysctl
 * tphot.hits.  With tphot.forget set it does not detach at unload: the
 * kernel must.  The unit tests load and unload it while other threads
 * fire one of the probes without pause (tests/unit/sdt_handlers.cpp).
 */
#include <sys/kernel.h>
#include <sys/sdt.h>

#define TPHOT_PROBES "*hot:::hot"

static int tphot_hits;
static int tphot_forget;

SYSCTL_INT("tphot.hits", CTLFLAG_RD, &tphot_hits, "Calls of the handler");
SYSCTL_INT("tphot.forget", CTLFLAG_RW, &tphot_forget,
    "Leave the handler attached at unload");

static void
tphot_handler(void *data, uintptr_t a0, uintptr_t a1, uintptr_t a2,
    uintptr_t a3, uintptr_t a4, uintptr_t a5)
{
	__atomic_fetch_add((int *)data, 1, __ATOMIC_RELAXED);
}

static int
tphot_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		return sdt_handler_attach(TPHOT_PROBES, tphot_handler,
		    &tphot_hits, SDT_HANDLER_PRIO_DEFAULT);
	case MOD_UNLOAD:
		if (tphot_forget)
			return 0;
		return sdt_handler_detach(TPHOT_PROBES, tphot_handler,
		    &tphot_hits);
	default:
		return 0;
	}
}

DECLARE_MODULE(tp_hot, tphot_modevent);
MODULE_DESCRIPTION("A probe handler the unit tests unload while it fires");
MODULE_LICENSE("BSD-2-Clause");
