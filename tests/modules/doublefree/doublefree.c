/*
 * doublefree: frees a block twice (without --memguard).  The kernel's
 * free() finds the block no longer allocated and panics naming this
 * module's function, before it follows anything the C library wrote into
 * the freed block, and before the C library's own check would abort the
 * process.
 */
#include <sys/kernel.h>

/* Volatile, so the compiler sees neither free of the same pointer. */
static void *volatile doublefree_block;

static int
doublefree_cmd(int argc, char **argv)
{
	doublefree_block = malloc(48);
	printf("doublefree: freeing a block twice\n");
	free(doublefree_block);
	free(doublefree_block);
	printf("doublefree: the second free returned\n");
	return 0;
}

SHELL_COMMAND(doublefree, doublefree_cmd, "doublefree",
    "free a block twice (a panic report)");
