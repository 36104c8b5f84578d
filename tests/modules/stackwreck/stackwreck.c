/*
 * stackwreck: corrupts its own stack before it panics, so the panic's
 * backtrace meets a stack that lies.
 *   stackwreck fill   overwrites the callers' frames with one address
 *                     inside this module (every word looks like a return
 *                     address), then calls panic(): the walk must stop
 *                     at its frame limit
 *   stackwreck sp     points the stack pointer at an unmapped page and
 *                     writes there: the report must not read the stack
 *   stackwreck caller writes over one word of its caller's frame, above
 *                     its own return address (and, on i386, its
 *                     arguments), and returns: the kernel's gate into
 *                     module code must panic naming this function
 */
#include <sys/kernel.h>

#define STACKWRECK_WORDS 96

/* What the overwritten return addresses point into. */
static __attribute__((noinline)) int
stackwreck_target(int x)
{
	return x + 1;
}

static __attribute__((noinline)) void
stackwreck_fill(void)
{
	/* A frame pointer: its saved copy and the return address above it. */
	volatile uintptr_t *frame = __builtin_frame_address(0);
	uintptr_t fake = (uintptr_t)stackwreck_target + 1;
	int i;

	for (i = 2; i < 2 + STACKWRECK_WORDS; i++)
		frame[i] = fake;
	panic("stackwreck: %d words of the stack overwritten",
	    STACKWRECK_WORDS);
}

static __attribute__((noinline)) void
stackwreck_sp(void)
{
#if defined(__x86_64__)
	__asm__ volatile("mov $0x1000, %%rsp\n\tmovq $0, (%%rsp)" ::: "memory");
#else
	__asm__ volatile("mov $0x1000, %%esp\n\tmovl $0, (%%esp)" ::: "memory");
#endif
}

static int
stackwreck_cmd(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "fill") == 0) {
		printf("stackwreck: overwriting %d words above this frame\n",
		    STACKWRECK_WORDS);
		stackwreck_fill();
	} else if (argc == 2 && strcmp(argv[1], "sp") == 0) {
		printf("stackwreck: stack pointer to 0x1000\n");
		stackwreck_sp();
	} else if (argc == 2 && strcmp(argv[1], "caller") == 0) {
		/* frame[0]: the saved frame pointer, [1]: the return address;
		 * on i386, [2] to [5]: the arguments the caller passed. */
		volatile uintptr_t *frame = __builtin_frame_address(0);

		printf("stackwreck: writing over the caller's frame\n");
		frame[6] = 0;
		return 0;
	} else {
		printf("stackwreck: usage: stackwreck fill|sp|caller\n");
		return 1;
	}
	printf("stackwreck: still here (%d)\n", stackwreck_target(argc));
	return 0;
}

SHELL_COMMAND(stackwreck, stackwreck_cmd, "stackwreck fill|sp|caller",
    "corrupt the stack, then panic (a bounded report)");
