/*
 * spinner: runs module code without pause, for the soft-lockup watchdog.
 *   spinner spin MS          spin on the shell's thread for MS milliseconds
 *   spinner spin-callout MS  spin in a callout, on a CPU thread
 */
#include <sys/kernel.h>
#include <sys/callout.h>

static struct callout spinner_callout;
static unsigned spinner_ms;
static volatile unsigned long spinner_sink;

static __attribute__((noinline)) void
spinner_spin(unsigned ms)
{
	uint64_t end = nanouptime() + (uint64_t)ms * 1000000;
	unsigned long i;

	while (nanouptime() < end)
		for (i = 0; i < 1000000; i++)
			spinner_sink += i;
}

static void
spinner_tick(void *arg)
{
	spinner_spin(spinner_ms);
	printf("spinner: callout done\n");
}

static int
spinner_cmd(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "spin") == 0) {
		spinner_spin((unsigned)strtoul(argv[2], NULL, 10));
		printf("spinner: done\n");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "spin-callout") == 0) {
		spinner_ms = (unsigned)strtoul(argv[2], NULL, 10);
		callout_reset(&spinner_callout, 1, spinner_tick, NULL);
		return 0;
	}
	printf("spinner: usage: spinner spin|spin-callout MS\n");
	return 1;
}

SHELL_COMMAND(spinner, spinner_cmd, "spinner spin|spin-callout MS",
    "spin in module code (for the watchdog)");

static int
spinner_modevent(module_t mod, int what, void *arg)
{
	if (what == MOD_LOAD)
		callout_init(&spinner_callout);
	if (what == MOD_UNLOAD)
		callout_drain(&spinner_callout);
	return 0;
}

DECLARE_MODULE(spinner, spinner_modevent);
