// WARN and BUG as Linux modules use them: a ud2 that __bug_table
// describes.  A warning is reported with the site and a call trace and
// the module goes on; WARN_ON_ONCE reports once; BUG stops the kernel.
#include <linux/bug.h>
#include <linux/module.h>

static int level = 1;
module_param(level, int, 0444);
MODULE_PARM_DESC(level, "1: WARN, 2: WARN and WARN_ON_ONCE, 3: then BUG");

static noinline void lkwarn_check(int n)
{
	WARN(n > 0, "lkwarn: level %d is above zero\n", n);
	WARN_ON_ONCE(n > 1);
	BUG_ON(n > 2);
}

static int __init lkwarn_init(void)
{
	lkwarn_check(level);
	lkwarn_check(level);
	pr_info("lkwarn: on after the warnings\n");
	return 0;
}

static void __exit lkwarn_exit(void)
{
}

module_init(lkwarn_init);
module_exit(lkwarn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("WARN, WARN_ON_ONCE and BUG sites");
