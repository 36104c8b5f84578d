/*
 * dtrace_probes: a test module whose probes fire with known arguments when
 * a person (or a transcript test) asks, through the shell command `dtprobe`:
 *
 *   dtprobe tick N          fire dtt:::tick N times: (i, "tick", i * i)
 *   dtprobe value V ...     fire dtt:::value once per V (a signed integer)
 *   dtprobe word W ...      fire dtt:::word once per W (a string)
 *   dtprobe badptr          fire dtt:::word with an unmapped pointer
 *   dtprobe thread N        fire dtt:::tick N times from a new kernel thread
 *   dtprobe bench N         fire dtt:::hot N times in a tight loop and print
 *                           the nanoseconds per firing
 *
 * The probes live in separate functions so their function names are known.
 */
#include <sys/kernel.h>
#include <sys/sdt.h>

SDT_PROVIDER_DEFINE(dtt);
SDT_PROBE_DEFINE3(dtt, , dtt_tick, tick, "int", "char *", "long");
SDT_PROBE_DEFINE1(dtt, , dtt_value, value, "long");
SDT_PROBE_DEFINE1(dtt, , dtt_word, word, "char *");
SDT_PROBE_DEFINE1(dtt, , dtt_hot, hot, "long");

static void __attribute__((noipa))
dtt_tick(int n)
{
	int i;

	for (i = 0; i < n; i++)
		SDT_PROBE3(dtt, , dtt_tick, tick, i, "tick", (long)i * i);
}

static void __attribute__((noipa))
dtt_value(long v)
{
	SDT_PROBE1(dtt, , dtt_value, value, v);
}

static void __attribute__((noipa))
dtt_word(const char *w)
{
	SDT_PROBE1(dtt, , dtt_word, word, w);
}

static long __attribute__((noipa))
dtt_hot(long n)
{
	long i, s = 0;

	for (i = 0; i < n; i++) {
		SDT_PROBE1(dtt, , dtt_hot, hot, i);
		s += i;
		__asm__ volatile("" : "+r"(s));
	}
	return s;
}

static int dtt_thread_n;

static void
dtt_thread(void *arg)
{
	dtt_tick(dtt_thread_n);
}

static int
dtt_usage(void)
{
	printf("dtprobe: usage: dtprobe tick N | value V ... | word W ... | "
	    "badptr | thread N | bench N\n");
	return 1;
}

static int
dtt_cmd(int argc, char **argv)
{
	int i;

	if (argc < 2)
		return dtt_usage();
	if (strcmp(argv[1], "tick") == 0 && argc == 3) {
		dtt_tick(atoi(argv[2]));
	} else if (strcmp(argv[1], "value") == 0) {
		for (i = 2; i < argc; i++)
			dtt_value(strtol(argv[i], NULL, 0));
	} else if (strcmp(argv[1], "word") == 0) {
		for (i = 2; i < argc; i++)
			dtt_word(argv[i]);
	} else if (strcmp(argv[1], "badptr") == 0 && argc == 2) {
		dtt_word((const char *)16);
	} else if (strcmp(argv[1], "thread") == 0 && argc == 3) {
		struct kthread *td;

		dtt_thread_n = atoi(argv[2]);
		if (kthread_add(dtt_thread, NULL, "dtprobe", &td) != 0)
			return 1;
		kthread_join(td);
	} else if (strcmp(argv[1], "bench") == 0 && argc == 3) {
		long n = strtol(argv[2], NULL, 0);
		uint64_t t0, t1;

		if (n <= 0)
			return dtt_usage();
		dtt_hot(n / 10 + 1); /* warm up */
		t0 = nanouptime();
		dtt_hot(n);
		t1 = nanouptime();
		printf("dtprobe: %ld firings, %llu.%02llu ns each\n", n,
		    (unsigned long long)((t1 - t0) / n),
		    (unsigned long long)((t1 - t0) * 100 / n % 100));
	} else {
		return dtt_usage();
	}
	return 0;
}

SHELL_COMMAND(dtprobe, dtt_cmd,
    "dtprobe tick N | value V ... | word W ... | badptr | thread N | bench N",
    "fire test probes with known arguments (module dtrace_probes)");

DECLARE_MODULE(dtrace_probes, NULL);
MODULE_VERSION(dtrace_probes, 1);
MODULE_DESCRIPTION("Probes with known arguments for dtrace tests");
MODULE_LICENSE("BSD-2-Clause");
