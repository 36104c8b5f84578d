/*
 * undef_syms: calls functions and reads a variable that nothing exports,
 * among them kern_printf, which does exist in the kernel executable (it is
 * what `printf` is exported as) but is not exported under its own name.
 * The load must fail with one error naming all four, and leave nothing
 * behind.
 */
#include <sys/kernel.h>

extern int no_such_function(int);
extern void another_missing_function(void);
extern int missing_variable;
extern int kern_printf(const char *, ...);

static int
undef_syms_modevent(module_t mod, int what, void *arg)
{
	if (what == MOD_LOAD) {
		another_missing_function();
		kern_printf("undef_syms: must never run\n");
		return no_such_function(missing_variable);
	}
	return 0;
}

DECLARE_MODULE(undef_syms, undef_syms_modevent);
