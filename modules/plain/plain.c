/*
 * plain: an ordinary object with no module metadata at all (no
 * DECLARE_MODULE, no .modinfo).  It still loads, as a module named after its
 * file, "plain".  Its constructors (.init_array) run at load, lowest priority
 * number first, and its destructors (.fini_array) at unload in the reverse
 * order, as they would in a program.  This is what lets existing code and
 * test objects load unchanged.
 */
#include <sys/systm.h>

static int plain_steps;

__attribute__((constructor(101))) static void
plain_early_init(void)
{
	printf("plain: constructor (priority 101), step %d\n", ++plain_steps);
}

__attribute__((constructor)) static void
plain_init(void)
{
	printf("plain: constructor, step %d\n", ++plain_steps);
}

__attribute__((destructor)) static void
plain_fini(void)
{
	printf("plain: destructor, step %d\n", ++plain_steps);
}

__attribute__((destructor(101))) static void
plain_late_fini(void)
{
	printf("plain: destructor (priority 101), step %d\n", ++plain_steps);
}
