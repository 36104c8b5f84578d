/*
 * bigbss: a plain object (no metadata) with 1.5 MiB of bss, for filling the
 * module arena: with --arena-mib 1 it does not fit at all, with
 * --arena-mib 2 one copy fits and a second (the same file copied under
 * another name, so another module) does not.
 */
#include <sys/systm.h>

#define BIGBSS_BYTES (1536 * 1024)

/* Global, so the compiler cannot drop it as write-only. */
char bigbss_space[BIGBSS_BYTES];

__attribute__((constructor)) static void
bigbss_init(void)
{
	bigbss_space[BIGBSS_BYTES - 1] = 1;
	printf("bigbss: holding %zu KiB\n", sizeof(bigbss_space) / 1024);
}
