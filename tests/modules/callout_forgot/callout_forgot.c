/*
 * callout_forgot: arms a callout that re-arms itself every 5 ms and never
 * drains it.  The kernel must drain it at unload, before the module's code
 * and the callout structure go away, and say so.
 */
#include <sys/kernel.h>

static struct callout forgot_callout;
static int forgot_ticks;

SYSCTL_INT("callout_forgot.ticks", CTLFLAG_RD, &forgot_ticks,
    "Times the forgotten callout ran");

static void
forgot_tick(void *arg)
{
	__atomic_fetch_add(&forgot_ticks, 1, __ATOMIC_RELAXED);
	callout_reset(&forgot_callout, 5, forgot_tick, NULL);
}

static int
callout_forgot_modevent(module_t mod, int what, void *arg)
{
	if (what == MOD_LOAD) {
		callout_init(&forgot_callout);
		callout_reset(&forgot_callout, 5, forgot_tick, NULL);
	}
	/* MOD_UNLOAD: deliberately no callout_drain. */
	return 0;
}

DECLARE_MODULE(callout_forgot, callout_forgot_modevent);
