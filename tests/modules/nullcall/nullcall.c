/*
 * nullcall: calls through a bad function pointer on purpose, so the panic
 * report can be checked to name the function that made the call:
 * `nullcall null` calls through NULL, `nullcall wild` through an address
 * where nothing is mapped.
 */
#include <sys/kernel.h>

/* Volatile, so the compiler neither sees the value nor drops the call. */
static int (*volatile nullcall_target)(int);

static int
nullcall_cmd(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "null") == 0) {
		printf("nullcall: calling through NULL\n");
		nullcall_target = NULL;
	} else if (argc == 2 && strcmp(argv[1], "wild") == 0) {
		printf("nullcall: calling through 0x1230\n");
		nullcall_target = (int (*)(int))(uintptr_t)0x1230;
	} else {
		printf("nullcall: usage: nullcall null|wild\n");
		return 1;
	}
	/* Used after the call: a call, not a tail jump. */
	printf("nullcall: returned %d\n", nullcall_target(argc) + 1);
	return 0;
}

SHELL_COMMAND(nullcall, nullcall_cmd, "nullcall null|wild",
    "call through a bad function pointer (a panic report)");
