/*
 * dup_command: registers a shell command of its own and then one named like
 * the built-in `kldstat`.  The second cannot be registered, so the load
 * fails; the first must vanish with it and the built-in stays as it was.
 * The set lists them in source order (-fno-toplevel-reorder,
 * tests/modules/flags.mk).
 */
#include <sys/kernel.h>

static int
dup_command_mine(int argc, char **argv)
{
	printf("dup_command: must never run\n");
	return 1;
}

static int
dup_command_kldstat(int argc, char **argv)
{
	printf("dup_command: must never replace kldstat\n");
	return 1;
}

SHELL_COMMAND(dup_command, dup_command_mine, "dup_command",
    "registered, then removed when the load fails");
SHELL_COMMAND(kldstat, dup_command_kldstat, "kldstat",
    "clashes with the built-in kldstat");

static int
dup_command_modevent(module_t mod, int what, void *arg)
{
	if (what == MOD_LOAD)
		printf("dup_command: MOD_LOAD must not run\n");
	return 0;
}

DECLARE_MODULE(dup_command, dup_command_modevent);
