// A TRACE_EVENT tracepoint in a Linux module: lktp_step(i, what) fires
// `steps` times from init, and again each time the parameter is written
// once the module is up (sysctl module.lktp.steps=N), from lktp_run.
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#define CREATE_TRACE_POINTS
#include "lktp_trace.h"

static int steps = 2;
static bool lktp_up;

static noinline void lktp_run(int n)
{
	int i;

	for (i = 0; i < n; i++)
		trace_lktp_step(i, i % 2 ? "odd" : "even");
}

static int lktp_set_steps(const char *val, const struct kernel_param *kp)
{
	int rc = param_set_int(val, kp);

	if (rc == 0 && lktp_up)
		lktp_run(steps);
	return rc;
}

static const struct kernel_param_ops lktp_steps_ops = {
	.set = lktp_set_steps,
	.get = param_get_int,
};
module_param_cb(steps, &lktp_steps_ops, &steps, 0644);
MODULE_PARM_DESC(steps, "how many lktp_step events a write fires");

static int __init lktp_init(void)
{
	lktp_run(steps);
	lktp_up = true;
	return 0;
}

static void __exit lktp_exit(void)
{
}

module_init(lktp_init);
module_exit(lktp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("a TRACE_EVENT tracepoint, fired on demand");
