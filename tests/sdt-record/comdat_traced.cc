// The copy of comdat_twice() with an entry site, and the program that
// checks the records the link kept:
//   comdat traced|untraced|both
// names the copy the linker keeps (the first object's) and whether the
// other object was traced as well.  Every fbt record must hold its NOP; the
// kept copy of comdat_twice has exactly one entry record when it is traced
// and none otherwise, and exactly one SDT record that holds its NOP sled.
// Prints "ok ..." or the first problem, and exits non-zero on a problem.
#include "comdat.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../sdt/site_record.h"

SDT_PROBE_DEFINE0(test, , , inl);

extern "C" {
extern const struct sdt_site_record __start_set_sdt_sites_set[] __attribute__((weak));
extern const struct sdt_site_record __stop_set_sdt_sites_set[] __attribute__((weak));
extern const struct fbt_site_record __start_set_fbt_sites_set[] __attribute__((weak));
extern const struct fbt_site_record __stop_set_fbt_sites_set[] __attribute__((weak));
}

int __attribute__((noinline)) via_traced(int x)
{
	return comdat_twice(x) + 1;
}

static const uint8_t nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
static const uint8_t nop6[] = {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00};
static const uint8_t ret_nop4[] = {0xc3, 0x0f, 0x1f, 0x40, 0x00}; // a tail call's

int main(int argc, char **argv)
{
	const char *kept = argc > 1 ? argv[1] : "";
	const bool kept_traced = strcmp(kept, "untraced") != 0;
	const bool both = strcmp(kept, "both") == 0;
	const uintptr_t twice = (uintptr_t)&comdat_twice;
	if (via_traced(1) + via_untraced(1) != 9) {
		printf("FAIL: wrong results\n");
		return 1;
	}
	// Entry sites: this object's functions, comdat_twice once if the kept
	// copy is traced, and via_untraced when its object was traced too.
	const uintptr_t funcs[] = {(uintptr_t)via_traced, (uintptr_t)main, twice,
	    (uintptr_t)via_untraced};
	const int want[] = {1, 1, kept_traced, both};
	int seen[4] = {0}, m = 0;
	for (const fbt_site_record *r = __start_set_fbt_sites_set;
	    r && r < __stop_set_fbt_sites_set; r++, m++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)r->site;
		if (!((r->len == 5 && memcmp(p, nop5, 5) == 0) ||
		    (r->len == 6 && memcmp(p, nop6, 6) == 0))) {
			printf("FAIL: entry site at %p (%u bytes) does not hold "
			    "its NOP\n", (const void *)p, r->len);
			return 1;
		}
		int i = 0;
		while (i < 4 && funcs[i] != r->site)
			i++;
		if (i == 4) {
			printf("FAIL: entry site at %p in no function of the test\n",
			    (const void *)p);
			return 1;
		}
		seen[i]++;
	}
	for (int i = 0; i < 4; i++)
		if (seen[i] != want[i]) {
			printf("FAIL: %d entry sites for function %d, want %d\n",
			    seen[i], i, want[i]);
			return 1;
		}
	// The probe site: one record, whichever copy was kept, holding its sled.
	int n = 0;
	for (const sdt_site_record *r = __start_set_sdt_sites_set;
	    r && r < __stop_set_sdt_sites_set; r++, n++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)r->site;
		const bool sled = r->len == 5 &&
		    ((r->kind == 0 && memcmp(p, nop5, 5) == 0) ||
		     (r->kind == 1 && memcmp(p, ret_nop4, 5) == 0));
		if (strcmp(r->name, "inl") != 0 || !sled || r->site < twice ||
		    r->site >= twice + 64) {
			printf("FAIL: probe site %s at %p (kind %u) is not comdat_twice's "
			    "or does not hold its NOP sled\n", r->name, (const void *)p,
			    r->kind);
			return 1;
		}
	}
	if (n != 1) {
		printf("FAIL: %d probe site records, want 1\n", n);
		return 1;
	}
	printf("ok kept the %s copy: %d entry sites, %d probe site\n",
	    kept_traced ? "traced" : "untraced", m, n);
	return 0;
}
