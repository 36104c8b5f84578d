// Static calls of a module's own (DEFINE_STATIC_CALL, static_call(),
// static_call_update()): each call site is aimed straight at the key's
// function at load and re-aimed when it is updated, through the patch
// engine.  `aim` reads what the call in lksc_call, the tail call in
// lksc_tail and the trampoline jump to (the function, or the
// trampoline); writing `op`
// ("double", "square", "none") updates the call; `result` calls it on 7.
#include <linux/module.h>
#include <linux/static_call.h>
#include <linux/string.h>

static noinline int lksc_double(int x)
{
	return 2 * x;
}

static noinline int lksc_square(int x)
{
	return x * x;
}

DEFINE_STATIC_CALL(lksc_op, lksc_double);

static noinline int lksc_call(int x)
{
	return static_call(lksc_op)(x) + 1;
}

static noinline int lksc_tail(int x)
{
	return static_call(lksc_op)(x + 1);
}

// Where the first call or jump in `fn` that goes to one of ours goes.
static const char *lksc_aim(void *fn)
{
	const u8 *p = fn;
	int i;

	for (i = 0; i < 48; i++) {
		s32 rel;
		const u8 *to;

		if (p[i] != 0xe8 && p[i] != 0xe9)
			continue;
		memcpy(&rel, p + i + 1, 4);
		to = p + i + 5 + rel;
		if (to == (const u8 *)lksc_double)
			return "double";
		if (to == (const u8 *)lksc_square)
			return "square";
		if (to == (const u8 *)STATIC_CALL_TRAMP_ADDR(lksc_op))
			return "trampoline";
	}
	return "none";
}

static int aim_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "call %s, tail %s, trampoline %s\n",
		       lksc_aim(lksc_call), lksc_aim(lksc_tail),
		       lksc_aim(STATIC_CALL_TRAMP_ADDR(lksc_op)));
}

static const struct kernel_param_ops aim_ops = {
	.get = aim_get,
};
module_param_cb(aim, &aim_ops, NULL, 0444);

static int result_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%d %d\n", lksc_call(7), lksc_tail(7));
}

static const struct kernel_param_ops result_ops = {
	.get = result_get,
};
module_param_cb(result, &result_ops, NULL, 0444);

static int op_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "double"))
		static_call_update(lksc_op, lksc_double);
	else if (sysfs_streq(val, "square"))
		static_call_update(lksc_op, lksc_square);
	else
		return -EINVAL;
	return 0;
}

static int op_get(char *buf, const struct kernel_param *kp)
{
	void *fn = static_call_query(lksc_op);

	return sprintf(buf, "%s\n", fn == lksc_double ? "double" :
		       fn == lksc_square ? "square" : "other");
}

static const struct kernel_param_ops op_ops = {
	.set = op_set,
	.get = op_get,
};
module_param_cb(op, &op_ops, NULL, 0644);

static int __init lksc_init(void)
{
	pr_info("lksc: %d %d, call %s, tail %s\n", lksc_call(5), lksc_tail(5),
		lksc_aim(lksc_call), lksc_aim(lksc_tail));
	return 0;
}

static void __exit lksc_exit(void)
{
}

module_init(lksc_init);
module_exit(lksc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("static calls of a module's own");
