/*
 * hello: the smallest useful module.  It greets on load and unload and has a
 * read-write sysctl, hello.greeting, that changes what it says.
 */
#include <sys/kernel.h>

static char greeting[64] = "Hello, world!";
static int hello_loads;

SYSCTL_STRING("hello.greeting", CTLFLAG_RW, greeting, sizeof(greeting),
    "What hello says");
SYSCTL_INT("hello.loads", CTLFLAG_RD, &hello_loads, "Times MOD_LOAD ran");

static int
hello_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		hello_loads++;
		printf("%s\n", greeting);
		return 0;
	case MOD_UNLOAD:
		printf("Goodbye from %s: %s\n", module_getname(mod), greeting);
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(hello, hello_modevent);
MODULE_VERSION(hello, 1);
MODULE_DESCRIPTION("Greets on load and unload");
MODULE_AUTHOR("minikern");
MODULE_LICENSE("BSD-2-Clause");
