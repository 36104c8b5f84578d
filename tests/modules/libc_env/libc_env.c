/*
 * libc_env: the module glue and the counting (libc_env.h says what the
 * module checks).  `libc_env` runs every area; `sysctl libc_env.failed`
 * tells how many checks failed in the last run.
 */
#include <sys/kernel.h>

#include <stdio.h>
#include <string.h>

#include "libc_env.h"

static int le_passed, le_total, le_failed;
static const char *le_area;
static int le_area_passed, le_area_total;
static char le_area_notes[256];

SYSCTL_INT("libc_env.failed", CTLFLAG_RD, &le_failed,
    "Checks that failed in the last run of the libc_env command");

static void
le_fail(const char *what, const char *got, const char *want)
{
	if (got && want)
		printf("%s: %s: FAIL %s: got %s, want %s\n", LE_LABEL, le_area,
		    what, got, want);
	else
		printf("%s: %s: FAIL %s\n", LE_LABEL, le_area, what);
}

void
le_ok(int ok, const char *what, const char *got, const char *want)
{
	le_total++;
	le_area_total++;
	if (ok) {
		le_passed++;
		le_area_passed++;
	} else {
		le_failed++;
		le_fail(what, got, want);
	}
}

void
le_int(const char *what, long long got, long long want)
{
	char g[32], w[32];

	snprintf(g, sizeof(g), "%lld", got);
	snprintf(w, sizeof(w), "%lld", want);
	le_ok(got == want, what, g, w);
}

void
le_str(const char *what, const char *got, const char *want)
{
	le_ok(got && strcmp(got, want) == 0, what, got ? got : "(null)", want);
}

void
le_near(const char *what, long double got, long double want, long double tol)
{
	long double diff = got - want, scale = want < 0 ? -want : want;
	char g[48], w[48];

	if (diff < 0)
		diff = -diff;
	if (scale == 0)
		scale = 1;
	snprintf(g, sizeof(g), "%.21Lg", got);
	snprintf(w, sizeof(w), "%.21Lg", want);
	/* NaN compares false both ways: never near anything. */
	le_ok(diff <= tol * scale, what, g, w);
}

void
le_note(const char *note)
{
	if (le_area_notes[0])
		strlcat(le_area_notes, "; ", sizeof(le_area_notes));
	strlcat(le_area_notes, note, sizeof(le_area_notes));
}

static void
le_run(const char *area, void (*fn)(void))
{
	le_area = area;
	le_area_passed = le_area_total = 0;
	le_area_notes[0] = '\0';
	fn();
	printf("%s: %-8s %d/%d%s%s\n", LE_LABEL, area, le_area_passed,
	    le_area_total, le_area_notes[0] ? " - " : "", le_area_notes);
}

static int
le_cmd(int argc, char **argv)
{
	le_passed = le_total = le_failed = 0;
	le_run("headers", le_headers);
	le_run("string", le_string);
	le_run("ctype", le_ctype);
	le_run("stdlib", le_stdlib);
	le_run("stdio", le_stdio);
	le_run("math", le_math);
	le_run("time", le_time);
	le_run("rt", le_rt);
	le_run("builtins", le_builtins);
	le_run("c++", le_cxx);
	printf("%s: %s %d/%d\n", LE_LABEL, le_failed ? "FAIL" : "PASS",
	    le_passed, le_total);
	return le_failed ? 1 : 0;
}

SHELL_COMMAND(libc_env, le_cmd, "libc_env",
    "check the C library, headers and runtime helpers modules get");

static int
le_modevent(module_t mod, int what, void *arg)
{
	if (what == MOD_LOAD)
		klog(LOG_INFO, "%s: klog reaches dmesg only\n", LE_LABEL);
	return 0;
}

DECLARE_MODULE(libc_env, le_modevent);
MODULE_VERSION(libc_env, 1);
MODULE_DESCRIPTION("Checks the C environment of modules");
