/*
 * busywork: keeps a CPU busy for a while, so that profiling shows where a
 * module's time goes.  `busywork MS` runs a callout for MS milliseconds
 * (on a CPU thread, where the profile provider samples) that alternates
 * between two kinds of work, counting primes (about two thirds of the time)
 * and hashing a buffer, and returns when it is done:
 *
 *   dtrace -n 'profile-997 /arg0/ { @[stack()] = count(); }' -c 'busywork 500'
 *
 * shows stacks through busywork_primes and busywork_hash, called by
 * busywork_run from the kernel's callout loop.  `busyloop MS` does the same
 * work in the command itself, on the shell's thread (as a system call's
 * work runs on the CPU that made it):
 *
 *   dtrace -n 'profile-997 { @[stack()] = count(); }' -c 'busyloop 500'
 *
 * shows them called by busyloop_cmd from the shell.
 */
#include <sys/kernel.h>

static struct callout busywork_callout;
static uint64_t busywork_until;
static volatile int busywork_done = 1;
static unsigned long busywork_sink;

/* Primes below `n`, by trial division: deliberately slow. */
static __attribute__((noinline)) unsigned long
busywork_primes(unsigned long n)
{
	unsigned long count = 0, i, d;

	for (i = 2; i < n; i++) {
		for (d = 2; d * d <= i; d++)
			if (i % d == 0)
				break;
		if (d * d > i)
			count++;
	}
	return count;
}

/* FNV-1a over a buffer, `rounds` times. */
static __attribute__((noinline)) unsigned long
busywork_hash(unsigned rounds)
{
	static unsigned char buf[4096];
	uint32_t h = 2166136261u;
	unsigned r, i;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < sizeof(buf); i++)
			h = (h ^ (buf[i] + r)) * 16777619u;
	return h;
}

static void
busywork_run(void *arg)
{
	(void)arg;
	while (nanouptime() < busywork_until) {
		busywork_sink += busywork_primes(20000);
		busywork_sink += busywork_hash(8);
	}
	busywork_done = 1;
}

static int
busywork_cmd(int argc, char **argv)
{
	unsigned ms;

	if (argc != 2 || (ms = (unsigned)atoi(argv[1])) == 0) {
		printf("busywork: usage: busywork MS\n");
		return 1;
	}
	if (!busywork_done) {
		printf("busywork: already working\n");
		return 1;
	}
	busywork_done = 0;
	busywork_until = nanouptime() + (uint64_t)ms * 1000000;
	callout_reset(&busywork_callout, 0, busywork_run, NULL);
	while (!busywork_done)
		pause_ms(10);
	return 0;
}

SHELL_COMMAND(busywork, busywork_cmd, "busywork MS",
    "keep a CPU busy for MS milliseconds (module busywork)");

static int
busyloop_cmd(int argc, char **argv)
{
	uint64_t until;
	unsigned ms;

	if (argc != 2 || (ms = (unsigned)atoi(argv[1])) == 0) {
		printf("busyloop: usage: busyloop MS\n");
		return 1;
	}
	until = nanouptime() + (uint64_t)ms * 1000000;
	while (nanouptime() < until) {
		busywork_sink += busywork_primes(20000);
		busywork_sink += busywork_hash(8);
	}
	return 0;
}

SHELL_COMMAND(busyloop, busyloop_cmd, "busyloop MS",
    "keep the shell busy in this command for MS milliseconds (module "
    "busywork)");

static int
busywork_modevent(module_t mod, int what, void *arg)
{
	(void)mod, (void)arg;
	switch (what) {
	case MOD_LOAD:
		callout_init(&busywork_callout);
		return 0;
	case MOD_UNLOAD:
		callout_drain(&busywork_callout);
		return 0;
	}
	return 0;
}

DECLARE_MODULE(busywork, busywork_modevent);
MODULE_VERSION(busywork, 1);
MODULE_DESCRIPTION("Keeps a CPU busy, for profiling");
MODULE_LICENSE("BSD-2-Clause");
