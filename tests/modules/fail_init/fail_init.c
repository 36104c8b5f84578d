/*
 * fail_init: its MOD_LOAD handler allocates and frees memory, then fails
 * with EIO.  By then the module's sysctl and shell command are registered;
 * the failed load must remove them, free the image and leave the malloc
 * accounting where it was.
 */
#include <sys/kernel.h>

static int fail_init_attempts;

SYSCTL_INT("fail_init.attempts", CTLFLAG_RD, &fail_init_attempts,
    "Times MOD_LOAD ran");

static int
fail_init_cmd(int argc, char **argv)
{
	printf("fail_init: this command must never run\n");
	return 1;
}

SHELL_COMMAND(fail_init, fail_init_cmd, "fail_init",
    "registered by a module whose load fails");

static int
fail_init_modevent(module_t mod, int what, void *arg)
{
	char *scratch;

	switch (what) {
	case MOD_LOAD:
		fail_init_attempts++;
		scratch = malloc(4096);
		if (scratch == NULL)
			return ENOMEM;
		snprintf(scratch, 4096, "attempt %d", fail_init_attempts);
		printf("fail_init: MOD_LOAD %s: failing with EIO\n", scratch);
		free(scratch);
		return EIO;
	case MOD_UNLOAD:
		printf("fail_init: MOD_UNLOAD must not run after a failed load\n");
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(fail_init, fail_init_modevent);
MODULE_VERSION(fail_init, 1);
