/*
 * holder: a module that holds a reference on itself (module_hold) from
 * load until someone runs `holder release`, as a module would while its
 * objects are in use elsewhere.  While the hold is outstanding kldunload
 * refuses with "busy".
 */
#include <sys/kernel.h>

static module_t holder_module;
static int holder_holds;

SYSCTL_INT("holder.holds", CTLFLAG_RD, &holder_holds,
    "References the module holds on itself");

static int
holder_cmd(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "hold") == 0) {
		module_hold(holder_module);
		holder_holds++;
	} else if (argc == 2 && strcmp(argv[1], "release") == 0) {
		if (holder_holds == 0) {
			printf("holder: no reference to release\n");
			return 1;
		}
		module_release(holder_module);
		holder_holds--;
	} else {
		printf("holder: usage: holder hold | release\n");
		return 1;
	}
	printf("holder: %d reference%s held\n", holder_holds,
	    holder_holds == 1 ? "" : "s");
	return 0;
}

SHELL_COMMAND(holder, holder_cmd, "holder hold | release",
    "take or drop a reference on module holder");

static int
holder_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		holder_module = mod;
		module_hold(mod);
		holder_holds = 1;
		printf("holder: holding a reference on %s\n",
		    module_getname(mod));
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(holder, holder_modevent);
MODULE_VERSION(holder, 1);
