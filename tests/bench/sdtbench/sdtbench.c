/*
 * sdtbench: the probe styles `make bench` compares, each in the same loop.
 *
 *   sdtbench_none      no probe: the baseline
 *   sdtbench_sdt       a minikern SDT call site (NOP sled while disabled)
 *   sdtbench_goto      an asm-goto site (one NOP while disabled)
 *   sdtbench_flag      `if (flag) call()`, the older FreeBSD SDT and LTTng style
 *   sdtbench_fnptr     a call through a function pointer, Linux Markers style
 *   sdtbench_direct    a direct call of sdtbench_handler, the handler the
 *                      bench attaches to the probes: what a handler would
 *                      cost called in place
 *   sdtbench_wrapped   the same call from a function of its own, which
 *                      the loop calls: what one more call level costs
 *   sdtbench_jump      a call of sdtbench_stub, which hands the arguments on
 *                      to sdtbench_handler with its data pointer and jumps
 *                      there (x86_64; i386 must copy them): a one-handler
 *                      path with no RCU read side, which nothing could
 *                      safely unload
 *
 * and probe sdtbench:::costly, whose argument is a checksum of 1 KiB, in
 * both styles (sdtbench_cost_call, sdtbench_cost_goto) and alone
 * (sdtbench_cost_arg: what computing the argument costs),
 *
 * and 1000 functions of 100 probe sites each (sdtbench_many_*: probes
 * sdtbench:::many, one per function), to time enabling 1 000 to 100 000
 * sites.  Each loop returns a value that depends on every iteration so the
 * compiler keeps the loop.
 */
#include <sys/kernel.h>
#include <sys/sdt.h>

SDT_PROVIDER_DEFINE(sdtbench);
SDT_PROBE_DEFINE2(sdtbench, , , hit, "long", "long");
SDT_PROBE_DEFINE0(sdtbench, , , many);
SDT_PROBE_DEFINE2(sdtbench, , , costly, "long", "unsigned");

typedef unsigned long ul;

/* The older SDT style: a global flag, tested at every site. */
volatile int sdtbench_flag;
static __attribute__((noinline)) void
sdtbench_hook(ul i, ul sum)
{
	__asm__ volatile("" : : "r"(i), "r"(sum) : "memory");
}

/* Markers style: the site always calls through a pointer (an empty
 * function while nobody listens). */
static void
sdtbench_empty(ul i, ul sum)
{
	(void)i, (void)sum;
}
void (*volatile sdtbench_fn)(ul, ul) = sdtbench_empty;

#define LOOP(body)                                                             \
	ul sum = 0;                                                            \
	for (ul i = 0; i < n; i++) {                                           \
		sum += i ^ (sum >> 3);                                         \
		__asm__ volatile("" : "+r"(sum));                               \
		body;                                                          \
	}                                                                      \
	return sum

__attribute__((noinline)) ul sdtbench_none(ul n) { LOOP((void)0); }
__attribute__((noinline)) ul sdtbench_sdt(ul n)
{
	LOOP(SDT_PROBE2(sdtbench, , , hit, i, sum));
}
__attribute__((noinline)) ul sdtbench_flag_style(ul n)
{
	LOOP(if (__builtin_expect(sdtbench_flag, 0)) sdtbench_hook(i, sum));
}
__attribute__((noinline)) ul sdtbench_fnptr(ul n) { LOOP(sdtbench_fn(i, sum)); }
__attribute__((noinline)) ul sdtbench_goto(ul n)
{
	LOOP(SDT_GOTO_PROBE2(sdtbench, , , hit, i, sum));
}

/* The handler the bench attaches (an empty one), and a direct call of it. */
int sdtbench_data;
__attribute__((noinline)) void
sdtbench_handler(void *data, ul a0, ul a1, ul a2, ul a3, ul a4, ul a5)
{
	__asm__ volatile("" : : "r"(data));
}
__attribute__((noinline)) ul sdtbench_direct(ul n)
{
	LOOP(sdtbench_handler(&sdtbench_data, i, sum, 0, 0, 0, 0));
}

/* One call level more: not a tail call (the empty asm comes after it). */
__attribute__((noinline)) void
sdtbench_wrapper(void *data, ul a0, ul a1)
{
	sdtbench_handler(data, a0, a1, 0, 0, 0, 0);
	__asm__ volatile("");
}
__attribute__((noinline)) ul sdtbench_wrapped(ul n)
{
	LOOP(sdtbench_wrapper(&sdtbench_data, i, sum));
}

/* Per-probe code without a read side: the arguments up one register, the
 * data pointer first, a jump to the handler (i386: the six words copied
 * below the data pointer, then a call). */
void sdtbench_stub(ul a0, ul a1);
#if defined(__x86_64__)
__asm__(".text\n"
    ".globl sdtbench_stub\n"
    ".type sdtbench_stub, @function\n"
    "sdtbench_stub:\n"
    "mov %r8, %r9\n"
    "mov %rcx, %r8\n"
    "mov %rdx, %rcx\n"
    "mov %rsi, %rdx\n"
    "mov %rdi, %rsi\n"
    "lea sdtbench_data(%rip), %rdi\n"
    "jmp sdtbench_handler\n"
    ".size sdtbench_stub, . - sdtbench_stub\n");
#else
__asm__(".text\n"
    ".globl sdtbench_stub\n"
    ".type sdtbench_stub, @function\n"
    "sdtbench_stub:\n"
    ".rept 6\n"
    "pushl 24(%esp)\n"
    ".endr\n"
    "pushl $sdtbench_data\n"
    "call sdtbench_handler\n"
    "addl $28, %esp\n"
    "ret\n"
    ".size sdtbench_stub, . - sdtbench_stub\n");
#endif
__attribute__((noinline)) ul sdtbench_jump(ul n) { LOOP(sdtbench_stub(i, sum)); }

/* An expensive argument: a checksum of 1 KiB. */
static unsigned char sdtbench_buf[1024];
static __attribute__((noinline)) unsigned
sdtbench_cksum(const unsigned char *p, unsigned n)
{
	unsigned s = 0, k;

	for (k = 0; k < n; k++)
		s = (s << 5) + s + p[k];
	return s;
}
volatile unsigned sdtbench_cost_sink;
__attribute__((noinline)) ul sdtbench_cost_arg(ul n)
{
	LOOP(sdtbench_cost_sink = sdtbench_cksum(sdtbench_buf, 1024));
}
__attribute__((noinline)) ul sdtbench_cost_call(ul n)
{
	LOOP(SDT_CALL_PROBE2(sdtbench, , , costly, i,
	    sdtbench_cksum(sdtbench_buf, 1024)));
}
__attribute__((noinline)) ul sdtbench_cost_goto(ul n)
{
	LOOP(SDT_GOTO_PROBE2(sdtbench, , , costly, i,
	    sdtbench_cksum(sdtbench_buf, 1024)));
}

#define P1 SDT_PROBE0(sdtbench, , , many);
#define P10 P1 P1 P1 P1 P1 P1 P1 P1 P1 P1
#define P100 P10 P10 P10 P10 P10 P10 P10 P10 P10 P10
#define F(n) __attribute__((noinline)) void sdtbench_many_##n(void) { P100 }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6)      \
	F(n##7) F(n##8) F(n##9)
#define F100(n) F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4)           \
	F10(n##5) F10(n##6) F10(n##7) F10(n##8) F10(n##9)
F100(1) F100(2) F100(3) F100(4) F100(5) F100(6) F100(7) F100(8) F100(9) F100(0)

DECLARE_MODULE(sdtbench, NULL);
MODULE_DESCRIPTION("Probe styles and many sites for make bench");
MODULE_LICENSE("BSD-2-Clause");
