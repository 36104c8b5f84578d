/*
 * writecount: a probe handler in a module.  It attaches a C function to
 * memdev's write-done probe (by the probe's name, so it needs no dependency
 * on memdev: the handler joins memdev's probe whenever memdev is loaded),
 * counts the successful writes and their bytes, and shows them as sysctls:
 *
 *   kldload memdev; kldload writecount
 *   memdev write hello; sysctl writecount.writes writecount.bytes
 *
 * The handler runs on whatever thread fires the probe, beside any DTrace
 * enabling of it, so it counts with atomic adds.  At unload it detaches;
 * the kernel waits until no thread is inside the handler before the
 * module's code goes.
 */
#include <sys/kernel.h>
#include <sys/sdt.h>

static struct writecount_stats {
	int	writes;
	int	bytes;
} writecount_stats;

SYSCTL_INT("writecount.writes", CTLFLAG_RD, &writecount_stats.writes,
    "Successful memdev writes seen");
SYSCTL_INT("writecount.bytes", CTLFLAG_RD, &writecount_stats.bytes,
    "Bytes of the successful memdev writes seen");

#define WRITECOUNT_PROBE "memdev:::write-done"

/* memdev:::write-done: args (size_t length, int error). */
static void
writecount_write(void *data, uintptr_t len, uintptr_t error, uintptr_t a2,
    uintptr_t a3, uintptr_t a4, uintptr_t a5)
{
	struct writecount_stats *st = data;

	if ((int)error != 0)
		return;
	__atomic_fetch_add(&st->writes, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->bytes, (int)len, __ATOMIC_RELAXED);
}

static int
writecount_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		return sdt_handler_attach(WRITECOUNT_PROBE, writecount_write,
		    &writecount_stats, SDT_HANDLER_PRIO_DEFAULT);
	case MOD_UNLOAD:
		return sdt_handler_detach(WRITECOUNT_PROBE, writecount_write,
		    &writecount_stats);
	default:
		return 0;
	}
}

DECLARE_MODULE(writecount, writecount_modevent);
MODULE_VERSION(writecount, 1);
MODULE_DESCRIPTION("Counts memdev's writes with a probe handler");
MODULE_AUTHOR("minikern");
MODULE_LICENSE("BSD-2-Clause");
