// Faults a Linux module expects, each listed in its __ex_table with where
// to resume (x86's exception tables): a load through __get_kernel_nofault
// (EX_TYPE_UACCESS), a register set to -EFAULT (EX_TYPE_EFAULT_REG), the
// trap number in %eax (EX_TYPE_FAULT) for a page fault, a general
// protection fault and a divide error, and a privileged instruction
// (EX_TYPE_RDMSR_SAFE).  Reading parameter `probe` runs them; `crash=1`
// faults where no entry says so, which stays a panic.
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/uaccess.h>
#include <asm/asm.h>

static int kept = 42;
static int init_only __initdata = 7;
static int *init_ptr;

// A byte at p, or -1 if reading it faults.
static noinline int peek(const void *p)
{
	unsigned char c;

	__get_kernel_nofault(&c, p, unsigned char, fault);
	return c;
fault:
	return -1;
}

// -EFAULT (from the fixup) or 0.
static noinline long load_efault(const unsigned long *p, unsigned long *v)
{
	long err = 0;

	asm volatile("1: movq (%[p]), %[v]\n"
		     "2:\n"
		     _ASM_EXTABLE_TYPE_REG(1b, 2b, EX_TYPE_EFAULT_REG, %[err])
		     : [err] "+r" (err), [v] "=r" (*v)
		     : [p] "r" (p));
	return err;
}

// The trap number of a fault loading from p (0: none).
static noinline int load_trap(const unsigned long *p)
{
	int trap = 0;
	unsigned long v;

	asm volatile("1: movq (%[p]), %[v]\n"
		     "2:\n"
		     _ASM_EXTABLE_FAULT(1b, 2b)
		     : "+a" (trap), [v] "=r" (v)
		     : [p] "r" (p));
	return trap;
}

// 100 / d, or the divide error's trap number (0) when d is 0.
static noinline unsigned int divide_trap(unsigned int d)
{
	unsigned int a = 100, dx = 0;

	asm volatile("1: divl %[d]\n"
		     "2:\n"
		     _ASM_EXTABLE_FAULT(1b, 2b)
		     : "+a" (a), "+d" (dx)
		     : [d] "r" (d));
	return a;
}

static noinline int rdmsr_err(void)
{
	int err;
	unsigned int lo, hi;

	asm volatile("1: rdmsr ; xor %[err], %[err]\n"
		     "2:\n"
		     _ASM_EXTABLE_TYPE_REG(1b, 2b, EX_TYPE_RDMSR_SAFE, %[err])
		     : [err] "=r" (err), "=a" (lo), "=d" (hi)
		     : "c" (0x10));
	return err;
}

static int probe_get(char *buf, const struct kernel_param *kp)
{
	unsigned long v = 0;
	long e1 = load_efault((const unsigned long *)&kept, &v);
	long e2 = load_efault((const unsigned long *)16, &v);

	return sprintf(buf,
		       "peek kept %d, null %d, freed init data %d; "
		       "efault %ld then %ld; trap page %d, gp %d; 100/5 %u, "
		       "100/0 trap %u; "
		       "rdmsr %d\n",
		       peek(&kept), peek(NULL), peek(init_ptr), e1, e2,
		       load_trap((const unsigned long *)16),
		       load_trap((const unsigned long *)0x8000000000000000ul),
		       divide_trap(5), divide_trap(0), rdmsr_err());
}

static const struct kernel_param_ops probe_ops = {
	.get = probe_get,
};
module_param_cb(probe, &probe_ops, NULL, 0444);

static int crash_set(const char *val, const struct kernel_param *kp)
{
	volatile int *nowhere = (int *)16;

	if (val && val[0] == '1')
		*nowhere = 1;
	return 0;
}

static const struct kernel_param_ops crash_ops = {
	.set = crash_set,
};
module_param_cb(crash, &crash_ops, NULL, 0200);

static int __init lkfault_init(void)
{
	init_ptr = &init_only;
	pr_info("lkfault: init data %d\n", peek(init_ptr));
	return 0;
}

static void __exit lkfault_exit(void)
{
}

module_init(lkfault_init);
module_exit(lkfault_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("exception-table fixups");
