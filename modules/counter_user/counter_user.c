/*
 * counter_user: a module that depends on another.  MODULE_DEPEND asks for
 * libcounter version 1 to 3 (preferring 2); `kldload counter_user` loads
 * libcounter from the module path first, and this module's calls to
 * counter_add and its reads of counter_calls and counter_name bind to
 * libcounter's globals.  While it is loaded, libcounter cannot be unloaded.
 */
#include <sys/kernel.h>

#include "../libcounter/libcounter.h"

static int counter_user_amount = 5;

SYSCTL_INT("counter_user.amount", CTLFLAG_RD, &counter_user_amount,
    "What counter_user adds to the counter while it is loaded");

static int
counter_user_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		counter_add("counter_user", counter_user_amount);
		printf("counter_user: %s has seen %d call(s), total %d\n",
		    counter_name, counter_calls, counter_get());
		return 0;
	case MOD_UNLOAD:
		counter_add("counter_user", -counter_user_amount);
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(counter_user, counter_user_modevent);
MODULE_VERSION(counter_user, 1);
MODULE_DEPEND(counter_user, libcounter, 1, 2, 3);
MODULE_DESCRIPTION("Adds to libcounter's counter while loaded");
MODULE_AUTHOR("minikern");
MODULE_LICENSE("BSD-2-Clause");
