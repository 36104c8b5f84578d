/*
 * The record the site recorder (sdt/sdt-record) adds to a kernel object for
 * each probe site it rewrote, in the section `set_sdt_sites_set`.  The final
 * link relocates `site`; the kernel walks the records at boot.  Names are
 * stored inline so a record needs one relocation only.
 */
#ifndef MK_SDT_SITE_RECORD_H
#define MK_SDT_SITE_RECORD_H

#include <stdint.h>

#define SDT_SITE_PROVIDER_MAX 32
#define SDT_SITE_NAME_MAX 64
#define SDT_SITE_FUNC_MAX 160

struct sdt_site_record {
	uint64_t site;   /* address of the site's first byte (64 bits on both arches) */
	uint32_t kind;   /* mk::SiteKind */
	uint32_t len;    /* 5 or 6 */
	char provider[SDT_SITE_PROVIDER_MAX];
	char name[SDT_SITE_NAME_MAX];       /* with '-' */
	char function[SDT_SITE_FUNC_MAX];   /* symbol name, possibly mangled */
};

/*
 * The record the site recorder adds for each function-entry site (fbt) of a
 * kernel object, in `set_fbt_sites_set`: the address, like an __mcount_loc
 * entry, plus how long the site is and where in its function it sits.
 * The function's name comes from the kernel's symbol table at boot.
 */
struct fbt_site_record {
	uint64_t site;   /* address of the site's first byte */
	uint32_t len;    /* 5 or 6 */
	uint32_t style;  /* mk::EntryStyle */
};

#endif
