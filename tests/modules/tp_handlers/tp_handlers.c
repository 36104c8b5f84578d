/*
 * tp_handlers: probe handlers on tp_goto's tpgoto:::fire, attached at load
 * by the probe definition's symbol (SDT_HANDLER_ATTACH; tp_goto is a
 * dependency) and by name, with different priorities.  Each handler
 * appends its letter to a log when it runs: H (priority 20), M (10, by
 * name), L (1).  The shell command `tph`:
 *
 *   tph log            print the log and clear it
 *   tph dup            attach L again with the same data (refused), then
 *                      with other data (allowed) and detach that
 *   tph detach-bad     detach M with data it was not attached with
 *   tph forget         attach F by name; MOD_UNLOAD leaves it attached,
 *                      so the kernel detaches it at unload
 *   tph solo           detach H, M and L and attach S alone, which logs
 *                      the digit arg0 % 10: a lone handler, which an
 *                      asm-goto block calls itself
 *   tph sync           sdt_synchronize()
 */
#include <errno.h>
#include <sys/kernel.h>
#include <sys/sdt.h>

SDT_PROBE_DECLARE(tpgoto, , , fire);

static char tph_log[256];
static int tph_len;

static void
tph_note(char c)
{
	int i = __atomic_fetch_add(&tph_len, 1, __ATOMIC_RELAXED);

	if (i < (int)sizeof(tph_log) - 1)
		tph_log[i] = c;
}

static void
tph_high(void *data, uintptr_t i, uintptr_t sum)
{
	tph_note('H');
}

static void
tph_mid(void *data, uintptr_t i, uintptr_t sum)
{
	tph_note('M');
}

static void
tph_low(void *data, uintptr_t i, uintptr_t sum)
{
	tph_note(*(const char *)data);
}

static void
tph_forgotten(void *data, uintptr_t i, uintptr_t sum)
{
	tph_note('F');
}

#define TPH_NAME "tpgoto::tpgoto_fire:fire"
#define HANDLER(fn) ((sdt_handler_t)(void (*)(void))(fn))

static const char tph_l[] = "L", tph_o[] = "O";
static int tph_solo_on;

static void
tph_solo(void *data, uintptr_t i, uintptr_t sum)
{
	tph_note(data == &tph_solo_on ? (char)('0' + i % 10) : '?');
}

static const char *
tph_err(int e)
{
	return e == 0 ? "0" : e == EEXIST ? "EEXIST" : e == ENOENT ? "ENOENT" :
	    "other";
}

static int
tph_cmd(int argc, char **argv)
{
	int e;

	if (argc != 2) {
		printf("tph: usage: tph log | dup | detach-bad | forget | solo | "
		    "sync\n");
		return 1;
	}
	if (strcmp(argv[1], "log") == 0) {
		int n = tph_len < (int)sizeof(tph_log) - 1 ? tph_len :
		    (int)sizeof(tph_log) - 1;
		printf("tph: %.*s\n", n, tph_log);
		tph_len = 0;
	} else if (strcmp(argv[1], "dup") == 0) {
		e = SDT_HANDLER_ATTACH(tpgoto, , , fire, tph_low, (void *)tph_l, 1);
		printf("tph: L again: %s\n", tph_err(e));
		e = SDT_HANDLER_ATTACH(tpgoto, , , fire, tph_low, (void *)tph_o, 1);
		printf("tph: L with other data: %s\n", tph_err(e));
		e = SDT_HANDLER_DETACH(tpgoto, , , fire, tph_low, (void *)tph_o);
		printf("tph: detach it: %s\n", tph_err(e));
	} else if (strcmp(argv[1], "detach-bad") == 0) {
		e = sdt_handler_detach(TPH_NAME, HANDLER(tph_mid), (void *)tph_o);
		printf("tph: %s\n", tph_err(e));
	} else if (strcmp(argv[1], "forget") == 0) {
		e = sdt_handler_attach(TPH_NAME, HANDLER(tph_forgotten), NULL, 0);
		printf("tph: %s\n", tph_err(e));
	} else if (strcmp(argv[1], "solo") == 0) {
		SDT_HANDLER_DETACH(tpgoto, , , fire, tph_low, (void *)tph_l);
		SDT_HANDLER_DETACH(tpgoto, , , fire, tph_high, NULL);
		sdt_handler_detach(TPH_NAME, HANDLER(tph_mid), NULL);
		e = SDT_HANDLER_ATTACH(tpgoto, , , fire, tph_solo,
		    &tph_solo_on, SDT_HANDLER_PRIO_DEFAULT);
		tph_solo_on = e == 0;
		printf("tph: %s\n", tph_err(e));
	} else if (strcmp(argv[1], "sync") == 0) {
		sdt_synchronize();
	} else {
		return 1;
	}
	return 0;
}

SHELL_COMMAND(tph, tph_cmd,
    "tph log | dup | detach-bad | forget | solo | sync",
    "probe handlers (test module tp_handlers)");

static int
tph_modevent(module_t mod, int what, void *arg)
{
	int e;

	switch (what) {
	case MOD_LOAD:
		if ((e = SDT_HANDLER_ATTACH(tpgoto, , , fire, tph_low,
		    (void *)tph_l, 1)) != 0)
			return e;
		if ((e = SDT_HANDLER_ATTACH(tpgoto, , , fire, tph_high, NULL,
		    20)) != 0)
			return e;
		return sdt_handler_attach(TPH_NAME, HANDLER(tph_mid), NULL,
		    SDT_HANDLER_PRIO_DEFAULT);
	case MOD_UNLOAD:
		/* tph_forgotten, if attached, is left for the kernel. */
		if (tph_solo_on) {
			SDT_HANDLER_DETACH(tpgoto, , , fire, tph_solo,
			    &tph_solo_on);
			return 0;
		}
		SDT_HANDLER_DETACH(tpgoto, , , fire, tph_low, (void *)tph_l);
		SDT_HANDLER_DETACH(tpgoto, , , fire, tph_high, NULL);
		sdt_handler_detach(TPH_NAME, HANDLER(tph_mid), NULL);
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(tp_handlers, tph_modevent);
MODULE_VERSION(tp_handlers, 1);
MODULE_DEPEND(tp_handlers, tp_goto, 1, 1, 1);
MODULE_DESCRIPTION("Probe handlers for the tests");
MODULE_LICENSE("BSD-2-Clause");
