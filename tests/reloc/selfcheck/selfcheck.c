/*
 * selfcheck_<tag>: a module that checks its own relocations.  At MOD_LOAD it
 * computes answers known in advance through every way compiled code reaches
 * an address (data pointers in data, function pointers, a jump table, a
 * string table, vtables, linker sets, a weak undefined symbol, kernel
 * exports, and another module's functions and data) and prints one verdict:
 *
 *   selfcheck-gcc-fpic-O2: PASS 16/16
 *   selfcheck-gcc-fpic-O2: FAIL 15/16 (jump_table)
 *
 * tests/reloc/run-selfcheck loads every variant and reads the verdicts.  A
 * wrong relocation shows up as a wrong answer or a crash, never as a PASS.
 *
 * The module also carries probes (provider selfcheck): `call` at an ordinary
 * call site, `tail` in tail position (a jmp when optimised) and an is-enabled
 * test.  The shell command selfcheck_<tag>_probes fires each SC_NFIRE times
 * (call: arg0 = i, arg1 = i * 7; tail: arg0 = i) and prints
 *
 *   selfcheck-gcc-fpic-O2: probes fired, is-enabled N
 *
 * where N counts the is-enabled tests that were true; run-selfcheck runs it
 * under dtrace and without.
 */
#include <sys/kernel.h>
#include <sys/sdt.h>
#include <sys/shell.h>

#include "selfcheck.h"

#ifndef SC_LABEL
#define SC_LABEL "selfcheck"
#endif

static int sc_passed, sc_total;
static char sc_failed[160];

static void
sc_check(const char *what, long got, long want)
{
	sc_total++;
	if (got == want) {
		sc_passed++;
		return;
	}
	printf("%s: %s: got %ld, want %ld\n", SC_LABEL, what, got, want);
	if (sc_failed[0])
		strlcat(sc_failed, " ", sizeof(sc_failed));
	strlcat(sc_failed, what, sizeof(sc_failed));
}

/* Data pointers in data: absolute relocations against data, with addends. */
static int sc_table[8] = { 3, 1, 4, 1, 5, 9, 2, 6 };
static int *const sc_ptrs[3] = { &sc_table[0], &sc_table[5], &sc_table[7] };
int sc_global_value = 1000;
int *sc_global_ptr = &sc_global_value;
static char sc_big[65536];
static char *const sc_big_mid = &sc_big[40000];

static int
sc_data_pointers(void)
{
	int *const *p = SC_HIDE(sc_ptrs);
	return *p[0] + *p[1] + *p[2] + *SC_HIDE(sc_global_ptr);
}

/* Function pointers: static functions called through a table in rodata. */
static int __attribute__((noinline)) sc_add(int a, int b) { return a + b; }
static int __attribute__((noinline)) sc_sub(int a, int b) { return a - b; }
static int __attribute__((noinline)) sc_mul(int a, int b) { return a * b; }
static int __attribute__((noinline)) sc_xor(int a, int b) { return a ^ b; }
static int (*const sc_ops[4])(int, int) = { sc_add, sc_sub, sc_mul, sc_xor };
int (*sc_op_rw)(int, int) = sc_mul;

static int
sc_function_pointers(void)
{
	int (*const *ops)(int, int) = SC_HIDE(sc_ops);
	int sum = 0;
	for (int i = 0; i < 4; i++)
		sum += ops[i](7, 3);
	return sum + SC_HIDE(sc_op_rw)(2, 5);	/* 10 + 4 + 21 + 4 + 10 */
}

/* A dense switch the compiler turns into a jump table. */
static int __attribute__((noinline))
sc_dispatch(int op, int x)
{
	switch (op) {
	case 0: return x + 1;
	case 1: return x * 3;
	case 2: return x - 7;
	case 3: return x ^ 0x55;
	case 4: return x << 2;
	case 5: return x >> 1;
	case 6: return -x;
	case 7: return x * x;
	case 8: return x | 0x100;
	case 9: return x % 7;
	case 10: return x + 1000;
	case 11: return 42;
	default: return 0;
	}
}

static int
sc_jump_table(void)
{
	int sum = 0;
	for (int op = SC_HIDE(0); op < 12; op++)
		sum += sc_dispatch(op, 20) * (op + 1);
	return sum;
}

/* A string table: pointers to string literals. */
static const char *const sc_words[] = { "alpha", "beta", "gamma", "delta" };

static int
sc_string_table(void)
{
	const char *const *w = SC_HIDE(sc_words);
	int n = 0;
	for (int i = 0; i < 4; i++)
		n += (int)strlen(w[i]);
	return n * 10 + (strcmp(w[2], "gamma") == 0);
}

/* Kernel exports, called and taken as values. */
static size_t (*const sc_kstrlen)(const char *) = strlen;

static int
sc_cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int
sc_kernel_calls(void)
{
	int v[5] = { 5, 3, 9, 1, 7 };
	qsort(v, 5, sizeof(v[0]), SC_HIDE(sc_cmp_int));	/* calls back */
	return v[0] * 10000 + v[2] * 100 + v[4] +
	    (int)SC_HIDE(sc_kstrlen)("kernel");
}

/* A linker set of this module, walked between __start_ and __stop_. */
struct sc_rec {
	int value;
};
static struct sc_rec sc_rec_a = { 100 }, sc_rec_b = { 20 }, sc_rec_c = { 3 };
DATA_SET(sc_set, sc_rec_a);
DATA_SET(sc_set, sc_rec_b);
DATA_SET(sc_set, sc_rec_c);
SET_DECLARE(sc_set, struct sc_rec);

static int
sc_linker_set(void)
{
	struct sc_rec **r;
	int sum = 0;
	SET_FOREACH(r, sc_set)
		sum += (*r)->value;
	return sum * 10 + (int)SET_COUNT(sc_set);
}

/* A weak symbol nobody defines resolves to 0. */
extern int sc_absent __attribute__((weak));

/* The library module, bound through MODULE_DEPEND. */
static int __attribute__((noinline)) sc_twice(int x) { return 2 * x; }
static int *const sc_lib_entry = &SCLIB(table)[3];

static int
sc_cross_calls(void)
{
	return SCLIB(add)(20, 22) * 1000 +
	    SCLIB(ops)[2](6, 7) * 10 +		/* the library's pointer table */
	    SCLIB(apply)(sc_twice, 4);		/* 9: a callback into us */
}

static int
sc_cross_data(void)
{
	SCLIB(counter) += 5;
	return *SC_HIDE(sc_lib_entry) + SCLIB(table)[7] +
	    SCLIB(get_counter)() * 1000;	/* 0x33 + 0x77 + (1 + 5) * 1000 */
}

static int
sc_address_identity(void)
{
	/* One function and one array, their addresses taken in each module. */
	return ((void *)SC_HIDE(SCLIB(add)) == SCLIB(add_address)()) +
	    ((const void *)SC_HIDE(SCLIB(table)) == SCLIB(table_address)()) +
	    ((const void *)SC_HIDE(sc_kstrlen) == (const void *)SC_HIDE(strlen)) +
	    (strcmp(SCLIB(name), "sclib") == 0);
}

static void
sc_run(void)
{
	sc_check("data_pointers", sc_data_pointers(), 3 + 9 + 6 + 1000);
	sc_check("big_addend", SC_HIDE(sc_big_mid) - SC_HIDE(sc_big), 40000);
	sc_check("function_pointers", sc_function_pointers(), 49);
	sc_check("jump_table", sc_jump_table(), 18228);
	sc_check("string_table", sc_string_table(), 191);
	sc_check("kernel_calls", sc_kernel_calls(), 10000 + 500 + 9 + 6);
	sc_check("linker_set", sc_linker_set(), 1233);
	sc_check("weak_undefined", &sc_absent == 0, 1);
	sc_check("cross_module_calls", sc_cross_calls(), 42000 + 420 + 9);
	sc_check("cross_module_data", sc_cross_data(), 0x33 + 0x77 + 6000);
	sc_check("address_identity", sc_address_identity(), 4);
	sc_check("cxx_constructor", SC_XCAT(SC_MOD, _cxx_constructed)(), 1);
	sc_check("cxx_vtables", SC_XCAT(SC_MOD, _cxx_checksum)(), 22031);
}

static int
sc_modevent(module_t mod, int what, void *arg)
{
	if (what != MOD_LOAD)
		return 0;
	sc_run();
	if (sc_passed == sc_total)
		printf("%s: PASS %d/%d\n", SC_LABEL, sc_passed, sc_total);
	else
		printf("%s: FAIL %d/%d (%s)\n", SC_LABEL, sc_passed, sc_total,
		    sc_failed);
	return 0;
}

/* Probes: every compile mode must give the loader sites it can patch. */
SDT_PROVIDER_DEFINE(selfcheck);
SDT_PROBE_DEFINE2(selfcheck, , , call, "int", "int");
SDT_PROBE_DEFINE1(selfcheck, , , tail, "int");

#define SC_NFIRE 10
static int sc_enabled_count;

/*
 * The probe is the last statement of a void function: a tail call (a jmp)
 * when optimised.  External, so the compiler keeps the standard calling
 * convention (a static function may get its argument in a register on
 * i386, and then cannot jump to a callee taking it on the stack).
 */
#define sc_probe_tail SC_XCAT(SC_MOD, _probe_tail)
void sc_probe_tail(int i);

void __attribute__((noinline))
sc_probe_tail(int i)
{
	SDT_PROBE1(selfcheck, , , tail, i);
}

static int
sc_probes_cmd(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sc_enabled_count = 0;
	for (int i = 0; i < SC_NFIRE; i++) {
		SDT_PROBE2(selfcheck, , , call, i, i * 7);
		if (SDT_PROBE_ENABLED(selfcheck, , , call))
			sc_enabled_count++;
		sc_probe_tail(SC_HIDE(i));
	}
	printf("%s: probes fired, is-enabled %d\n", SC_LABEL, sc_enabled_count);
	return 0;
}

/* SHELL_COMMAND stringizes and pastes its name: expand it first. */
#define SC_STR(x) #x
#define SC_XSTR(x) SC_STR(x)
#define SC_PROBES_CMD SC_XCAT(SC_MOD, _probes)
#define SC_SHELL_COMMAND(n, f, u, d) SHELL_COMMAND(n, f, u, d)
SC_SHELL_COMMAND(SC_PROBES_CMD, sc_probes_cmd, SC_XSTR(SC_PROBES_CMD),
    "fire the selfcheck probes " SC_XSTR(SC_NFIRE) " times each");

#define SC_DECLARE(n, h) DECLARE_MODULE(n, h)
#define SC_DEPEND(m, d) MODULE_DEPEND(m, d, 1, 1, 1)
SC_DECLARE(SC_MOD, sc_modevent);
SC_DEPEND(SC_MOD, SC_LIB);
MODULE_DESCRIPTION("Checks its own relocations and prints a verdict");
MODULE_LICENSE("BSD-2-Clause");
