/*
 * veto: a module that refuses to be unloaded while it is "busy".  Its
 * MOD_QUIESCE handler returns EBUSY while veto.refuse_quiesce is non-zero,
 * and its MOD_UNLOAD handler while veto.refuse_unload is; clear them with
 * sysctl and kldunload succeeds.
 */
#include <sys/kernel.h>

static int veto_refuse_quiesce = 1;
static int veto_refuse_unload;

SYSCTL_INT("veto.refuse_quiesce", CTLFLAG_RW, &veto_refuse_quiesce,
    "Non-zero: MOD_QUIESCE returns EBUSY");
SYSCTL_INT("veto.refuse_unload", CTLFLAG_RW, &veto_refuse_unload,
    "Non-zero: MOD_UNLOAD returns EBUSY");

static int
veto_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		printf("veto: loaded; unloading is refused while "
		    "veto.refuse_quiesce or veto.refuse_unload is set\n");
		return 0;
	case MOD_QUIESCE:
		return veto_refuse_quiesce ? EBUSY : 0;
	case MOD_UNLOAD:
		if (veto_refuse_unload)
			return EBUSY;
		printf("veto: unloaded\n");
		return 0;
	case MOD_SHUTDOWN:
		printf("veto: shutting down\n");
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(veto, veto_modevent);
MODULE_VERSION(veto, 1);
