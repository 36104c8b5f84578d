/*
 * memabuse: misuses malloc on purpose, for kernel --memguard.
 *   memabuse ok          allocate, use and free correctly
 *   memabuse overflow    write one byte past the end of a 100-byte block
 *   memabuse slack       write within the block's rounding slack, then free
 *   memabuse uaf         read a block after freeing it
 *   memabuse dfree       free a block twice
 *   memabuse badfree     free the address of a global
 */
#include <sys/kernel.h>

static char memabuse_global[32];

static __attribute__((noinline)) char *
memabuse_alloc(size_t n)
{
	char *p = malloc(n);

	if (p == NULL)
		panic("memabuse: out of memory");
	memset(p, 'a', n);
	return p;
}

static int
memabuse_cmd(int argc, char **argv)
{
	volatile char *p;
	const char *what = argc == 2 ? argv[1] : "";

	if (strcmp(what, "ok") == 0) {
		p = memabuse_alloc(100);
		p[99] = 'z';
		free((void *)p);
		printf("memabuse: ok\n");
		return 0;
	}
	if (strcmp(what, "overflow") == 0) {
		p = memabuse_alloc(112);
		printf("memabuse: writing past the end\n");
		p[112] = 'x';
		return 0;
	}
	if (strcmp(what, "slack") == 0) {
		p = memabuse_alloc(100);
		p[100] = 'x'; /* inside the rounding to 16: no fault */
		printf("memabuse: freeing\n");
		free((void *)p);
		return 0;
	}
	if (strcmp(what, "uaf") == 0) {
		p = memabuse_alloc(64);
		free((void *)p);
		printf("memabuse: reading freed memory\n");
		printf("memabuse: read %d\n", p[10]);
		return 0;
	}
	if (strcmp(what, "dfree") == 0) {
		p = memabuse_alloc(48);
		free((void *)p);
		printf("memabuse: freeing again\n");
		free((void *)p);
		return 0;
	}
	if (strcmp(what, "badfree") == 0) {
		printf("memabuse: freeing a global\n");
		free(memabuse_global);
		return 0;
	}
	printf("memabuse: usage: memabuse ok|overflow|slack|uaf|dfree|badfree\n");
	return 1;
}

SHELL_COMMAND(memabuse, memabuse_cmd, "memabuse ok|overflow|slack|uaf|dfree|badfree",
    "misuse malloc on purpose (for --memguard)");

DECLARE_MODULE(memabuse, NULL);
