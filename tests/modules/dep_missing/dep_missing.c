/*
 * dep_missing: depends on libcounter, which is on the module path, and on a
 * module that exists nowhere.  Dependencies are handled in .modinfo order,
 * which is source order here (-fno-toplevel-reorder, tests/modules/flags.mk):
 * libcounter is loaded, then no_such_module is not found, and libcounter
 * must be unloaded again.
 */
#include <sys/kernel.h>

static int
dep_missing_modevent(module_t mod, int what, void *arg)
{
	if (what == MOD_LOAD)
		printf("dep_missing: MOD_LOAD must not run\n");
	return 0;
}

DECLARE_MODULE(dep_missing, dep_missing_modevent);
MODULE_DEPEND(dep_missing, libcounter, 1, 2, 2);
MODULE_DEPEND(dep_missing, no_such_module, 1, 1, 1);
