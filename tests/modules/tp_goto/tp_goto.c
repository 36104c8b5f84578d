/*
 * tp_goto: asm-goto probe sites (this module is built with
 * SDT_STYLE=asmgoto, tests/modules/flags.mk), driven from the shell:
 *
 *   tpgoto fire N      fire tpgoto:::fire N times with (i, the checksum of
 *                      a 1 KiB buffer): the checksum is the expensive
 *                      argument, computed only while the probe is enabled
 *   tpgoto sums        how many checksums were computed so far
 *   tpgoto both N      fire tpgoto:::both N times from an asm-goto site and
 *                      N times from a call site, in one function: both
 *                      styles serving one probe
 *   tpgoto enabled     whether tpgoto:::fire is enabled (an asm-goto
 *                      is-enabled test)
 *   tpgoto tail V      fire tpgoto:::tail(V) as tpgoto_tail's last act
 *
 * MOD_LOAD fires tpgoto:::fire 3 times.  The probes live in separate
 * functions so their function names are known.
 */
#include <stdlib.h>
#include <sys/kernel.h>
#include <sys/sdt.h>

SDT_PROVIDER_DEFINE(tpgoto);
SDT_PROBE_DEFINE2(tpgoto, , , fire, "int", "unsigned");
SDT_PROBE_DEFINE2(tpgoto, , , both, "int", "char *");
SDT_PROBE_DEFINE1(tpgoto, , , tail, "long");

static unsigned char tpgoto_buf[1024];
static int tpgoto_sums;

static unsigned __attribute__((noinline))
tpgoto_checksum(const unsigned char *p, int n)
{
	unsigned s = 0;
	int i;

	tpgoto_sums++;
	for (i = 0; i < n; i++)
		s = (s << 5) + s + p[i];
	return s;
}

static void __attribute__((noinline))
tpgoto_fire(int n)
{
	int i;

	for (i = 0; i < n; i++)
		SDT_PROBE2(tpgoto, , , fire, i,
		    tpgoto_checksum(tpgoto_buf, sizeof(tpgoto_buf)));
}

static void __attribute__((noinline))
tpgoto_both(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		SDT_GOTO_PROBE2(tpgoto, , , both, i, "goto");
		SDT_CALL_PROBE2(tpgoto, , , both, i, "call");
	}
}

static int __attribute__((noinline))
tpgoto_enabled(void)
{
	return SDT_PROBE_ENABLED(tpgoto, , , fire);
}

static void __attribute__((noinline))
tpgoto_tail(long v)
{
	SDT_PROBE1(tpgoto, , , tail, v);
}

static int
tpgoto_usage(void)
{
	printf("tpgoto: usage: tpgoto fire N | sums | both N | enabled | "
	    "tail V\n");
	return 1;
}

static int
tpgoto_cmd(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "sums") == 0)
		printf("tpgoto: %d checksums\n", tpgoto_sums);
	else if (argc == 2 && strcmp(argv[1], "enabled") == 0)
		printf("tpgoto: fire is %s\n",
		    tpgoto_enabled() ? "enabled" : "disabled");
	else if (argc == 3 && strcmp(argv[1], "fire") == 0)
		tpgoto_fire(atoi(argv[2]));
	else if (argc == 3 && strcmp(argv[1], "both") == 0)
		tpgoto_both(atoi(argv[2]));
	else if (argc == 3 && strcmp(argv[1], "tail") == 0)
		tpgoto_tail(atol(argv[2]));
	else
		return tpgoto_usage();
	return 0;
}

SHELL_COMMAND(tpgoto, tpgoto_cmd,
    "tpgoto fire N | sums | both N | enabled | tail V",
    "asm-goto probe sites (test module tp_goto)");

static int
tpgoto_modevent(module_t mod, int what, void *arg)
{
	unsigned i;

	if (what != MOD_LOAD)
		return 0;
	for (i = 0; i < sizeof(tpgoto_buf); i++)
		tpgoto_buf[i] = (unsigned char)i;
	/* Fired while the module initialises: only an enabling retained from
	 * before the load (dtrace -Z) sees these. */
	tpgoto_fire(3);
	return 0;
}

DECLARE_MODULE(tp_goto, tpgoto_modevent);
MODULE_VERSION(tp_goto, 1);
MODULE_DESCRIPTION("asm-goto probe sites for the tests");
MODULE_LICENSE("BSD-2-Clause");
