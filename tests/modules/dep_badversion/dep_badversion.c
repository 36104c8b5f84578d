/*
 * dep_badversion: needs libcounter version 3 or 4, but the library is
 * version 2.  libcounter is loaded for it from the module path, the version
 * check fails, and libcounter is unloaded again.
 */
#include <sys/kernel.h>

static int
dep_badversion_modevent(module_t mod, int what, void *arg)
{
	if (what == MOD_LOAD)
		printf("dep_badversion: MOD_LOAD must not run\n");
	return 0;
}

DECLARE_MODULE(dep_badversion, dep_badversion_modevent);
MODULE_DEPEND(dep_badversion, libcounter, 3, 3, 4);
