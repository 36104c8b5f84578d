/*
 * fbt_ret_handler: a module whose handlers count every fbt entry and
 * return of the kernel and its modules (sdt_handler_attach on fbt:::entry
 * and fbt:::return, attached at load, detached at unload), and the
 * returns of three of its own functions: one returning a struct in memory
 * (on i386 its `ret $4` pops the hidden pointer), one that tail-calls it,
 * and one that returns only through an indirect tail call (a call through
 * a function pointer in tail position: which `ret` ends it is known only
 * as it runs).  The shell command `fbtrh`:
 *
 *   fbtrh pairs N   call the three functions N times each
 *   fbtrh mark      start counting again (attaching every return probe
 *                   takes a while, and entries fire meanwhile)
 *   fbtrh count     print the counts since the mark
 *   fbtrh check     whether the counts are sane: returns fired, no more
 *                   returns than entries but nearly as many (calls still
 *                   in flight fire entries only), and each call of the
 *                   three functions returned through its probe once
 */
#include <stdlib.h>
#include <sys/kernel.h>
#include <sys/sdt.h>

struct fbtrh_pair {
	long a, b, c;
};

static unsigned long fbtrh_entries, fbtrh_returns, fbtrh_pair_returns;
static unsigned long fbtrh_pair_calls;
static long fbtrh_sum;
static unsigned long fbtrh_mark_entries, fbtrh_mark_returns;

static void
fbtrh_on_entry(void *data)
{
	__atomic_fetch_add(&fbtrh_entries, 1, __ATOMIC_RELAXED);
}

static void
fbtrh_on_return(void *data)
{
	__atomic_fetch_add(&fbtrh_returns, 1, __ATOMIC_RELAXED);
}

static void
fbtrh_on_pair_return(void *data)
{
	__atomic_fetch_add(&fbtrh_pair_returns, 1, __ATOMIC_RELAXED);
}

#define HANDLER(fn) ((sdt_handler_t)(void (*)(void))(fn))
#define FBTRH_MAKE "fbt:fbt_ret_handler:fbtrh_make_pair:return"
#define FBTRH_TAIL "fbt:fbt_ret_handler:fbtrh_tail_pair:return"
#define FBTRH_INDIRECT "fbt:fbt_ret_handler:fbtrh_indirect:return"

/* Global and out of line: the ABI's own struct return, through the entry
 * site on each call. */
__attribute__((noinline)) struct fbtrh_pair fbtrh_make_pair(long x);

struct fbtrh_pair
fbtrh_make_pair(long x)
{
	struct fbtrh_pair p = { x, x + 1, x + 2 };

	__asm__ volatile("" : : "r"(&p) : "memory");
	return p;
}

__attribute__((noinline)) struct fbtrh_pair fbtrh_tail_pair(long x);

struct fbtrh_pair
fbtrh_tail_pair(long x)
{
	return fbtrh_make_pair(x * 2);
}

__attribute__((noinline)) long fbtrh_scale(long x);

long
fbtrh_scale(long x)
{
	__asm__ volatile("");
	return x * 3;
}

/* Read at each call, so the compiler cannot call fbtrh_scale directly. */
static long (*volatile fbtrh_scale_fn)(long) = fbtrh_scale;

__attribute__((noinline)) long fbtrh_indirect(long x);

long
fbtrh_indirect(long x)
{
	return fbtrh_scale_fn(x + 1); /* jmp *fbtrh_scale_fn */
}

static int
fbtrh_cmd(int argc, char **argv)
{
	unsigned long e = __atomic_load_n(&fbtrh_entries, __ATOMIC_RELAXED) -
	    fbtrh_mark_entries;
	unsigned long r = __atomic_load_n(&fbtrh_returns, __ATOMIC_RELAXED) -
	    fbtrh_mark_returns;
	unsigned long pr = __atomic_load_n(&fbtrh_pair_returns, __ATOMIC_RELAXED);

	if (argc == 3 && strcmp(argv[1], "pairs") == 0) {
		long n = atol(argv[2]);

		for (long i = 0; i < n; i++) {
			fbtrh_sum += fbtrh_make_pair(i).c;
			fbtrh_sum += fbtrh_tail_pair(i).c;
			fbtrh_sum += fbtrh_indirect(i);
			fbtrh_pair_calls += 3;
		}
		printf("fbtrh: sum %ld\n", fbtrh_sum);
	} else if (argc == 2 && strcmp(argv[1], "mark") == 0) {
		fbtrh_mark_entries += e;
		fbtrh_mark_returns += r;
	} else if (argc == 2 && strcmp(argv[1], "count") == 0) {
		printf("fbtrh: %lu entries, %lu returns\n", e, r);
	} else if (argc == 2 && strcmp(argv[1], "check") == 0) {
		/* Each round of three calls runs fbtrh_make_pair twice
		 * (once called by fbtrh_tail_pair), fbtrh_tail_pair once
		 * and fbtrh_indirect once. */
		unsigned long want = fbtrh_pair_calls / 3 * 4;

		printf("fbtrh: returns fired: %s\n", r > 0 ? "yes" : "no");
		printf("fbtrh: returns <= entries: %s\n", r <= e ? "yes" : "no");
		printf("fbtrh: returns >= 90%% of entries: %s\n",
		    r >= e / 10 * 9 ? "yes" : "no");
		printf("fbtrh: pair returns %lu of %lu: %s\n", pr, want,
		    pr == want ? "yes" : "no");
	} else {
		printf("fbtrh: usage: fbtrh pairs N | mark | count | check\n");
		return 1;
	}
	return 0;
}

SHELL_COMMAND(fbtrh, fbtrh_cmd, "fbtrh pairs N | mark | count | check",
    "count fbt entries and returns (test module fbt_ret_handler)");

static int
fbtrh_modevent(module_t mod, int what, void *arg)
{
	int e;

	switch (what) {
	case MOD_LOAD:
		if ((e = sdt_handler_attach("fbt:::entry",
		    HANDLER(fbtrh_on_entry), NULL, 0)) != 0)
			return e;
		if ((e = sdt_handler_attach("fbt:::return",
		    HANDLER(fbtrh_on_return), NULL, 0)) != 0)
			return e;
		if ((e = sdt_handler_attach(FBTRH_MAKE,
		    HANDLER(fbtrh_on_pair_return), NULL, 0)) != 0)
			return e;
		if ((e = sdt_handler_attach(FBTRH_INDIRECT,
		    HANDLER(fbtrh_on_pair_return), NULL, 0)) != 0)
			return e;
		return sdt_handler_attach(FBTRH_TAIL,
		    HANDLER(fbtrh_on_pair_return), NULL, 0);
	case MOD_UNLOAD:
		sdt_handler_detach("fbt:::entry", HANDLER(fbtrh_on_entry), NULL);
		sdt_handler_detach("fbt:::return", HANDLER(fbtrh_on_return),
		    NULL);
		sdt_handler_detach(FBTRH_MAKE, HANDLER(fbtrh_on_pair_return),
		    NULL);
		sdt_handler_detach(FBTRH_TAIL, HANDLER(fbtrh_on_pair_return),
		    NULL);
		sdt_handler_detach(FBTRH_INDIRECT,
		    HANDLER(fbtrh_on_pair_return), NULL);
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(fbt_ret_handler, fbtrh_modevent);
MODULE_VERSION(fbt_ret_handler, 1);
