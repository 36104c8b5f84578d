/*
 * ticker: a callout that re-arms itself every ticker.interval_ms
 * milliseconds and counts how often it ran in ticker.ticks.  Shows callouts
 * on the kernel's CPU threads, values shared between a CPU thread and the
 * shell, and callout_drain at unload so no call is still running when the
 * module's memory goes away.  Each tick fires ticker:::tick (tick number,
 * interval, CPU): `dtrace -n 'ticker:::tick { @[cpu] = count(); }'`.
 */
#include <sys/kernel.h>
#include <sys/sdt.h>

SDT_PROVIDER_DEFINE(ticker);
SDT_PROBE_DEFINE3(ticker, , , tick, "int", "unsigned", "int");

static struct callout ticker_callout;
static int ticker_interval_ms = 100;
static int ticker_ticks;

SYSCTL_INT("ticker.interval_ms", CTLFLAG_RW, &ticker_interval_ms,
    "Milliseconds between ticks (at least 1)");
SYSCTL_INT("ticker.ticks", CTLFLAG_RD, &ticker_ticks,
    "Times the callout has run");

/* The interval as set from the shell, clamped to something sane. */
static unsigned
ticker_interval(void)
{
	int ms = __atomic_load_n(&ticker_interval_ms, __ATOMIC_RELAXED);

	return ms < 1 ? 1 : (unsigned)ms;
}

/* Runs on a CPU thread: count, then arm again for the next tick. */
static void
ticker_tick(void *arg)
{
	struct callout *c = arg;

	int n = __atomic_add_fetch(&ticker_ticks, 1, __ATOMIC_RELAXED);
	unsigned ms = ticker_interval();

	SDT_PROBE3(ticker, , , tick, n, ms, curcpu());
	callout_reset(c, ms, ticker_tick, c);
}

static int
ticker_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		callout_init(&ticker_callout);
		callout_reset(&ticker_callout, ticker_interval(), ticker_tick,
		    &ticker_callout);
		printf("ticker: ticking every %u ms\n", ticker_interval());
		return 0;
	case MOD_UNLOAD:
		/* After this no tick is pending or running. */
		callout_drain(&ticker_callout);
		printf("ticker: stopped after %d ticks\n",
		    __atomic_load_n(&ticker_ticks, __ATOMIC_RELAXED));
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(ticker, ticker_modevent);
MODULE_VERSION(ticker, 1);
MODULE_DESCRIPTION("Counts callout ticks every ticker.interval_ms");
MODULE_AUTHOR("minikern");
MODULE_LICENSE("BSD-2-Clause");
