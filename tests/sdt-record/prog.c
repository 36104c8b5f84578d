/*
 * The site recorder's test program: probes in static and global functions,
 * in a function --gc-sections discards, in tail position and behind an
 * is-enabled test.  Built with -ffunction-sections -Wl,--gc-sections, as PIE
 * and as non-PIE, after sdt-record rewrote its object.  It walks its own
 * `set_sdt_sites_set` and checks that every site is recorded exactly once,
 * holds its NOP sled, and lies inside the function it names.  A record keeps
 * its function alive unless the link uses -z start-stop-gc; then the
 * discarded function's record must be gone too (argument "gc").  Built
 * with -pg -mfentry as well (the kernel's objects are), it checks its
 * `set_fbt_sites_set` the same way: one record per function, at the
 * function's first byte, holding a NOP.  Prints "ok N sites, M entry
 * sites" or the first problem, and exits non-zero on a problem.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/sdt.h>

#include "../../sdt/site_record.h"

SDT_PROBE_DEFINE1(test, , , alpha, "int");
SDT_PROBE_DEFINE2(test, , , beta, "int", "int");
SDT_PROBE_DEFINE0(test, , , gamma);
SDT_PROBE_DEFINE0(test, , , unused__probe);

extern const struct sdt_site_record __start_set_sdt_sites_set[] __attribute__((weak));
extern const struct sdt_site_record __stop_set_sdt_sites_set[] __attribute__((weak));
extern const struct fbt_site_record __start_set_fbt_sites_set[] __attribute__((weak));
extern const struct fbt_site_record __stop_set_fbt_sites_set[] __attribute__((weak));

static int __attribute__((noinline)) static_worker(int x)
{
	SDT_PROBE1(test, , , alpha, x);
	return x * 3;
}

int __attribute__((noinline)) global_worker(int x)
{
	int r = static_worker(x);
	SDT_PROBE2(test, , , beta, x, r);
	if (SDT_PROBE_ENABLED(test, , , beta))
		r++;
	return r;
}

void __attribute__((noinline)) tail_worker(void)
{
	SDT_PROBE0(test, , , gamma);
}

/* Never referenced: --gc-sections drops it and its site record. */
void discarded_worker(void)
{
	SDT_PROBE0(test, , , unused__probe);
}

struct expect {
	const char *function, *name;
	uint32_t kind;
	uintptr_t lo, size;
	int seen;
};

static const uint8_t nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

int main(int argc, char **argv)
{
	int expect_gc = argc > 1 && strcmp(argv[1], "gc") == 0;
	/* Function bounds from their addresses; sizes are generous upper
	 * bounds checked against the next function by the linker's order. */
	struct expect want[] = {
		{"static_worker", "alpha", 0, (uintptr_t)static_worker, 64, 0},
		{"global_worker", "beta", 0, (uintptr_t)global_worker, 128, 0},
		{"global_worker", "beta", 2, (uintptr_t)global_worker, 128, 0},
		/* A tail call when optimised, a call at -O0. */
		{"tail_worker", "gamma", 9, (uintptr_t)tail_worker, 32, 0},
	};
	const int nwant = sizeof(want) / sizeof(want[0]);
	int n = 0;
	if (global_worker(2) != 6) {
		printf("FAIL: global_worker(2) = %d with probes disabled\n", global_worker(2));
		return 1;
	}
	tail_worker();
	for (const struct sdt_site_record *r = __start_set_sdt_sites_set;
	    r && r < __stop_set_sdt_sites_set; r++, n++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)r->site;
		int found = 0;
		if (strcmp(r->provider, "test") != 0) {
			printf("FAIL: site %d: provider %s\n", n, r->provider);
			return 1;
		}
		if (expect_gc && strcmp(r->name, "unused-probe") == 0) {
			printf("FAIL: the discarded function's site survived\n");
			return 1;
		}
		/* Kept alive by its own record (no -z start-stop-gc): its name
		 * is all that can be checked without referencing it. */
		if (strcmp(r->name, "unused-probe") == 0)
			found = strcmp(r->function, "discarded_worker") == 0;
		for (int i = 0; i < nwant && !found; i++) {
			struct expect *w = &want[i];
			if (strcmp(r->function, w->function) || strcmp(r->name, w->name) ||
			    (r->kind != w->kind && !(w->kind == 9 && r->kind <= 1)) ||
			    w->seen)
				continue;
			if ((uintptr_t)p < w->lo || (uintptr_t)p >= w->lo + w->size) {
				printf("FAIL: %s:%s at %p is outside %s (%#lx)\n", r->function,
				    r->name, (void *)p, w->function, (unsigned long)w->lo);
				return 1;
			}
			w->seen = found = 1;
			break;
		}
		if (!found) {
			printf("FAIL: unexpected site %s:%s kind %u\n", r->function, r->name, r->kind);
			return 1;
		}
		/* The disabled forms: NOPs, ret + NOPs, xor %eax,%eax + NOPs. */
		if ((r->kind == 0 && r->len == 5 && memcmp(p, nop5, 5) != 0) ||
		    (r->kind == 1 && p[0] != 0xc3) ||
		    (r->kind == 2 && (p[0] != 0x31 || p[1] != 0xc0))) {
			printf("FAIL: %s:%s does not hold its NOP sled (%02x %02x %02x)\n",
			    r->function, r->name, p[0], p[1], p[2]);
			return 1;
		}
	}
	for (int i = 0; i < nwant; i++)
		if (!want[i].seen) {
			printf("FAIL: no site recorded for %s:%s\n", want[i].function, want[i].name);
			return 1;
		}
	/* Entry sites (-pg -mfentry): each function's first byte, once; the
	 * discarded function's (which cannot be named here) only where no
	 * start-stop-gc took it away (ld.lld does so by default). */
	static const uint8_t nop6[] = {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00};
	uintptr_t funcs[] = {(uintptr_t)static_worker, (uintptr_t)global_worker,
	    (uintptr_t)tail_worker, (uintptr_t)main};
	int seen[4] = {0}, other = 0, m = 0;
	for (const struct fbt_site_record *r = __start_set_fbt_sites_set;
	    r && r < __stop_set_fbt_sites_set; r++, m++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)r->site;
		int i;
		if (!((r->len == 5 && memcmp(p, nop5, 5) == 0) ||
		    (r->len == 6 && memcmp(p, nop6, 6) == 0)) || r->style != 0) {
			printf("FAIL: entry site at %p (%u bytes, style %u) does not "
			    "hold its NOP\n", (void *)p, r->len, r->style);
			return 1;
		}
		for (i = 0; i < 4 && funcs[i] != r->site; i++)
			;
		if (i == 4)
			other++;
		else if (seen[i]++) {
			printf("FAIL: two entry sites for function %d\n", i);
			return 1;
		}
	}
	if (m && (seen[0] + seen[1] + seen[2] + seen[3] != 4 ||
	    other > (expect_gc ? 0 : 1))) {
		printf("FAIL: entry sites %d %d %d %d, %d others\n", seen[0],
		    seen[1], seen[2], seen[3], other);
		return 1;
	}
	printf("ok %d sites, %d entry sites\n", n, m);
	return 0;
}
