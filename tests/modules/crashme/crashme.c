/*
 * crashme: faults on purpose, so the kernel's panic report can be checked.
 * `crashme null` reads through a NULL pointer, `crashme panic` calls
 * panic(), `crashme divzero` divides by zero, `crashme ill` runs an
 * undefined instruction (ud2), `crashme callout` reads through NULL from a
 * callout on a CPU thread.
 */
#include <sys/kernel.h>
#include <sys/callout.h>

static struct callout crashme_callout;

/* Not inlined, so the report names this function with an offset. */
static __attribute__((noinline)) int
crashme_deref(volatile int *p)
{
	return *p + 1;
}

static __attribute__((noinline)) int
crashme_divide(volatile int a, volatile int b)
{
	return a / b;
}

static void
crashme_tick(void *arg)
{
	printf("crashme: callout on cpu %d\n", curcpu());
	printf("crashme: read %d\n", crashme_deref(arg));
}

static int
crashme_cmd(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "null") == 0) {
		printf("crashme: reading through NULL\n");
		printf("crashme: read %d\n", crashme_deref(NULL));
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "panic") == 0) {
		panic("crashme: asked to panic (%d)", 42);
	}
	if (argc == 2 && strcmp(argv[1], "divzero") == 0) {
		printf("crashme: quotient %d\n", crashme_divide(1, 0));
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "ill") == 0) {
		__asm__ volatile("ud2");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "int3") == 0) {
		__asm__ volatile("int3");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "callout") == 0) {
		callout_reset(&crashme_callout, 1, crashme_tick, NULL);
		/* The shell waits here (in the kernel's sleep, not spinning). */
		for (;;)
			pause_ms(1000);
	}
	printf("crashme: usage: crashme null|panic|divzero|ill|int3|callout\n");
	return 1;
}

SHELL_COMMAND(crashme, crashme_cmd, "crashme null|panic|divzero|ill|int3|callout",
    "fault on purpose (a panic report)");

static int
crashme_modevent(module_t mod, int what, void *arg)
{
	if (what == MOD_LOAD)
		callout_init(&crashme_callout);
	return 0;
}

DECLARE_MODULE(crashme, crashme_modevent);
