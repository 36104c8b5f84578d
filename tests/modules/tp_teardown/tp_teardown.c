/*
 * tp_teardown: fires its probe tptd:::last from every part of its unload,
 * with the part's name: MOD_UNLOAD ("unload"), the last code of a kernel
 * thread the kernel joins after MOD_UNLOAD ("thread"), and a destructor
 * (.fini_array, run after the join: "fini").  The module's probes must
 * still be there for all three: they go only after its last code ran.
 */
#include <sys/kernel.h>
#include <sys/kthread.h>
#include <sys/sdt.h>

SDT_PROVIDER_DEFINE(tptd);
SDT_PROBE_DEFINE1(tptd, , , last, "char *");

static volatile int tptd_stop;
static struct kthread *tptd_thread;

static void __attribute__((noinline))
tptd_fire(const char *part)
{
	SDT_PROBE1(tptd, , , last, part);
}

static void
tptd_loop(void *arg)
{
	while (!tptd_stop)
		pause_ms(1);
	tptd_fire("thread");
}

static void __attribute__((destructor))
tptd_fini(void)
{
	tptd_fire("fini");
}

static int
tptd_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		return kthread_add(tptd_loop, NULL, "tptd", &tptd_thread);
	case MOD_UNLOAD:
		tptd_fire("unload");
		/* The kernel joins the thread once this returns. */
		tptd_stop = 1;
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(tp_teardown, tptd_modevent);
MODULE_DESCRIPTION("Fires its probe from every part of its unload");
MODULE_LICENSE("BSD-2-Clause");
