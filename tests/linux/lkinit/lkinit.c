// Init code and data as Linux modules have them (__init, __initdata,
// __initconst): usable while init runs, given back once it has returned.
// Reading parameter `where` afterwards names the init function's address
// (no longer a function) beside one of the module's kept functions.
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static unsigned long init_fn;

static int where_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "init %pS, kept %pS\n", (void *)init_fn,
		       (void *)where_get);
}

static const struct kernel_param_ops where_ops = {
	.get = where_get,
};
module_param_cb(where, &where_ops, NULL, 0444);

static int factor __initdata = 7;
static const char greeting[] __initconst = "from .init.rodata";

static noinline int __init lkinit_times(int x)
{
	return x * factor;
}

static int __init lkinit_init(void)
{
	init_fn = (unsigned long)lkinit_init;
	pr_info("lkinit: %s, 6 * %d = %d, in %pS\n", greeting, factor,
		lkinit_times(6), (void *)init_fn);
	return 0;
}

static void __exit lkinit_exit(void)
{
}

module_init(lkinit_init);
module_exit(lkinit_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("init sections freed after init");
