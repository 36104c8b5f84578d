/*
 * dup_sysctl: declares a sysctl of its own and then one named like the
 * kernel's kern.ostype.  The second cannot be registered, so the load fails
 * and the first must vanish with it.  The set lists them in source order
 * (-fno-toplevel-reorder, tests/modules/flags.mk).
 */
#include <sys/kernel.h>

static int dup_sysctl_mine = 7;
static char dup_sysctl_ostype[16] = "impostor";

SYSCTL_INT("dup_sysctl.mine", CTLFLAG_RW, &dup_sysctl_mine,
    "Registered, then removed when the load fails");
SYSCTL_STRING("kern.ostype", CTLFLAG_RD, dup_sysctl_ostype,
    sizeof(dup_sysctl_ostype), "Already exists in the kernel");

static int
dup_sysctl_modevent(module_t mod, int what, void *arg)
{
	if (what == MOD_LOAD)
		printf("dup_sysctl: MOD_LOAD must not run\n");
	return 0;
}

DECLARE_MODULE(dup_sysctl, dup_sysctl_modevent);
