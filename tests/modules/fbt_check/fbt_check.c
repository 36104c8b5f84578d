/*
 * fbt_check: a test module for function-boundary tracing.  It is built
 * every way a compiler marks function entries (tests/fbt/run: gcc and
 * clang, FBT=fentry, mcount, mcount-loc, patchable, -O0 and -O2) and counts
 * its own calls, so a test can compare fbt's entry and return counts with
 * what really happened.  Every function checks its result, so a trampoline
 * that clobbered a register (an argument, a return value in rax/rdx, xmm0
 * or on the x87 stack) shows up as a failure, and a return that came back
 * to the wrong place as a crash.
 *
 *   fbtcheck run N      call every function below N times; prints
 *                       "fbtcheck: ok" or what went wrong
 *   fbtcheck calls      each function's calls so far, "name count" per line
 *   fbtcheck reset      zero the counts
 *   fbtcheck spin start|stop
 *                       call them in a loop on a kernel thread, for
 *                       enabling and disabling while calls are in flight;
 *                       stop prints the loop's failures (0 expected)
 *
 * The functions: fbt_add (two ints), fbt_many (eight arguments: six in
 * registers on x86_64, the rest on the stack), fbt_rec (recursive, depth
 * FBT_DEPTH), fbt_tail (tail-calls fbt_leaf: returns twice through the
 * return trampoline), fbt_ret64 (a 64-bit value: edx:eax on i386),
 * fbt_dbl and fbt_ldbl (SSE and x87 values), fbt_jump_inner (left by
 * __builtin_longjmp: its return never happens).
 */
#include <sys/kernel.h>
#include <sys/kthread.h>

/* Calls keep their signatures (no clones with fewer arguments). */
#ifdef __clang__
#define FBT_FN __attribute__((noinline, used))
#else
#define FBT_FN __attribute__((noinline, noipa))
#endif

#define FBT_DEPTH 5

enum { C_ADD, C_MANY, C_REC, C_TAIL, C_LEAF, C_RET64, C_DBL, C_LDBL,
    C_JUMP_OUTER, C_JUMP_INNER, C_N };
static const char *const fbt_names[C_N] = { "fbt_add", "fbt_many", "fbt_rec",
    "fbt_tail", "fbt_leaf", "fbt_ret64", "fbt_dbl", "fbt_ldbl",
    "fbt_jump_outer", "fbt_jump_inner" };
static unsigned long fbt_calls[C_N];

static void
fbt_count(int which)
{
	__atomic_fetch_add(&fbt_calls[which], 1, __ATOMIC_RELAXED);
}

FBT_FN int
fbt_add(int a, int b)
{
	fbt_count(C_ADD);
	return a + b;
}

FBT_FN long
fbt_many(long a1, long a2, long a3, long a4, long a5, long a6, long a7,
    long a8)
{
	fbt_count(C_MANY);
	return a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + 7 * a7 +
	    8 * a8;
}

FBT_FN int
fbt_rec(int n)
{
	int r;

	fbt_count(C_REC);
	if (n <= 0)
		return 0;
	r = fbt_rec(n - 1);
	/* Opaque to the optimiser, which would make the recursion a loop. */
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

FBT_FN int
fbt_leaf(int x)
{
	fbt_count(C_LEAF);
	return x * 2;
}

FBT_FN int
fbt_tail(int x)
{
	fbt_count(C_TAIL);
	return fbt_leaf(x + 1); /* a jmp when optimised */
}

FBT_FN long long
fbt_ret64(long long v)
{
	fbt_count(C_RET64);
	return v + 1;
}

FBT_FN double
fbt_dbl(double a, double b)
{
	fbt_count(C_DBL);
	return a * b + 0.5;
}

FBT_FN long double
fbt_ldbl(long double a)
{
	fbt_count(C_LDBL);
	return a / 4;
}

static void *fbt_jmpbuf[5];

FBT_FN void
fbt_jump_inner(int x)
{
	fbt_count(C_JUMP_INNER);
	if (x)
		__builtin_longjmp(fbt_jmpbuf, 1);
}

FBT_FN int
fbt_jump_outer(int x)
{
	fbt_count(C_JUMP_OUTER);
	if (__builtin_setjmp(fbt_jmpbuf) == 0) {
		fbt_jump_inner(x);
		return 1;
	}
	return 2;
}

#ifdef __cplusplus
/* Built as C++ too (tests/fbt/run's default variants): an inline member
 * function, whose out-of-line copy (-O0) is in a COMDAT group. */
struct fbt_tally {
	int n;
	int bump() { return ++n; }
};
#endif

/* One round of every function; the failures it saw. */
static int
fbt_round(int i)
{
	int bad = 0;

	bad += fbt_add(i, 3) != i + 3;
	bad += fbt_many(1, 2, 3, 4, 5, 6, 7, i) != 140 + 8L * i;
	bad += fbt_rec(FBT_DEPTH) != FBT_DEPTH;
	bad += fbt_tail(i) != 2 * (i + 1);
	bad += fbt_ret64(0x100000001LL * i) != 0x100000001LL * i + 1;
	bad += fbt_dbl(i, 2.0) != 2.0 * i + 0.5;
	bad += fbt_ldbl((long double)i * 8) != (long double)i * 2;
	bad += fbt_jump_outer(i & 1) != ((i & 1) ? 2 : 1);
#ifdef __cplusplus
	fbt_tally t = { i };
	bad += t.bump() != i + 1;
#endif
	return bad;
}

static struct kthread *fbt_spinner;
static volatile int fbt_spinning;
static int fbt_spin_bad;
static unsigned long fbt_spin_rounds;

static void
fbt_spin(void *arg)
{
	int i = 0;

	(void)arg;
	while (fbt_spinning) {
		fbt_spin_bad += fbt_round(i++);
		fbt_spin_rounds++;
	}
}

static int
fbt_cmd(int argc, char **argv)
{
	int i, n, bad = 0;

	if (argc == 3 && strcmp(argv[1], "run") == 0) {
		n = atoi(argv[2]);
		for (i = 0; i < n; i++)
			bad += fbt_round(i);
		if (bad) {
			printf("fbtcheck: FAIL: %d wrong results\n", bad);
			return 1;
		}
		printf("fbtcheck: ok\n");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "calls") == 0) {
		for (i = 0; i < C_N; i++)
			printf("%s %lu\n", fbt_names[i], fbt_calls[i]);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "reset") == 0) {
		for (i = 0; i < C_N; i++)
			fbt_calls[i] = 0;
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "spin") == 0 &&
	    strcmp(argv[2], "start") == 0 && !fbt_spinner) {
		fbt_spinning = 1;
		fbt_spin_bad = 0;
		fbt_spin_rounds = 0;
		return kthread_add(fbt_spin, NULL, "fbtspin", &fbt_spinner) != 0;
	}
	if (argc == 3 && strcmp(argv[1], "spin") == 0 &&
	    strcmp(argv[2], "stop") == 0 && fbt_spinner) {
		fbt_spinning = 0;
		kthread_join(fbt_spinner);
		fbt_spinner = NULL;
		printf("fbtcheck: spin: %d wrong results in %s rounds\n",
		    fbt_spin_bad, fbt_spin_rounds > 1000 ? "over 1000" :
		    "at most 1000");
		return fbt_spin_bad != 0;
	}
	printf("fbtcheck: usage: fbtcheck run N | calls | reset | "
	    "spin start|stop\n");
	return 1;
}

SHELL_COMMAND(fbtcheck, fbt_cmd, "fbtcheck run N | calls | reset | spin start|stop",
    "calls traced functions and counts them (module fbt_check)");

static int
fbt_modevent(module_t mod, int what, void *arg)
{
	(void)mod, (void)arg;
	if (what == MOD_UNLOAD && fbt_spinner) {
		fbt_spinning = 0;
		kthread_join(fbt_spinner);
		fbt_spinner = NULL;
	}
	return 0;
}

DECLARE_MODULE(fbt_check, fbt_modevent);
MODULE_VERSION(fbt_check, 1);
MODULE_DESCRIPTION("Counts its own calls for the fbt tests");
MODULE_LICENSE("BSD-2-Clause");
