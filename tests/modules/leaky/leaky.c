/*
 * leaky: allocates at load and at `leaky leak N`, and never frees.  At
 * unload the kernel names the module and the bytes it leaked.
 */
#include <sys/kernel.h>

static void *leaky_first, *leaky_second;

static int
leaky_cmd(int argc, char **argv)
{
	long n;

	if (argc != 3 || strcmp(argv[1], "leak") != 0 ||
	    (n = strtol(argv[2], NULL, 10)) <= 0) {
		printf("leaky: usage: leaky leak BYTES\n");
		return 1;
	}
	if (malloc((size_t)n) == NULL) {
		printf("leaky: out of memory\n");
		return 1;
	}
	return 0;
}

SHELL_COMMAND(leaky, leaky_cmd, "leaky leak BYTES",
    "allocate memory module leaky never frees");

static int
leaky_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		leaky_first = malloc(100);
		leaky_second = calloc(7, 4);
		if (leaky_first == NULL || leaky_second == NULL)
			return ENOMEM;
		return 0;
	case MOD_UNLOAD:
		printf("leaky: unloading without freeing\n");
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(leaky, leaky_modevent);
