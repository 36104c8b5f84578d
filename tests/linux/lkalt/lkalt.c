// Alternatives as Linux code carries them (.altinstructions): each
// ALTERNATIVE() below returns which instruction ran, so init reports what
// the loader applied: a replacement for X86_FEATURE_ALWAYS (shorter than
// the original: NOP padding), a relative call re-aimed as the
// replacement moves, ALT_NOT of Linux's own flag PTI (absent here, so
// applied), SMAP and LA57 (kernel-only: never applied), and ERMS and
// FSRM as the CPU says.
#include <linux/module.h>
#include <asm/alternative.h>
#include <asm/cpufeatures.h>

int lkalt_one(void);
int lkalt_two(void);
__used noinline int lkalt_one(void) { return 1; }
__used noinline int lkalt_two(void) { return 2; }

#define PICK(feature) ({						\
	int __v;							\
	asm volatile(ALTERNATIVE("movl $0, %0", "movl $1, %0", feature)	\
		     : "=r" (__v));					\
	__v; })

static int __init lkalt_init(void)
{
	long padded;
	int called;

	asm volatile(ALTERNATIVE("movabsq $0x1111111111111111, %0",
				 "movq $7, %0", X86_FEATURE_ALWAYS)
		     : "=r" (padded));
	asm volatile(ALTERNATIVE("call lkalt_one", "call lkalt_two",
				 X86_FEATURE_ALWAYS)
		     : "=a" (called) : : "rcx", "rdx", "rsi", "rdi", "r8",
		       "r9", "r10", "r11", "memory");
	pr_info("lkalt: always %d, padded %ld, called %d, not pti %d, "
		"smap %d, la57 %d\n",
		PICK(X86_FEATURE_ALWAYS), padded, called,
		PICK(ALT_NOT(X86_FEATURE_PTI)), PICK(X86_FEATURE_SMAP),
		PICK(X86_FEATURE_LA57));
	pr_info("lkalt: erms %d, fsrm %d\n", PICK(X86_FEATURE_ERMS),
		PICK(X86_FEATURE_FSRM));
	return 0;
}

static void __exit lkalt_exit(void)
{
}

module_init(lkalt_init);
module_exit(lkalt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("alternatives applied by CPU feature");
