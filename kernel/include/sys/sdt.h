/*
 * Statically defined tracing (FreeBSD-flavoured API, illumos mechanism).
 *
 *   SDT_PROVIDER_DEFINE(memdev);
 *   SDT_PROBE_DEFINE2(memdev, , write, done, "size_t", "char *");
 *   ...
 *   SDT_PROBE2(memdev, , write, done, len, buf);
 *   if (SDT_PROBE_ENABLED(memdev, , write, done)) { expensive(); }
 *
 * Two site styles, chosen per build (SDT_STYLE=call, the default, or
 * SDT_STYLE=asmgoto, which defines SDT_STYLE_ASMGOTO), or per site with
 * SDT_CALL_PROBE<n> / SDT_GOTO_PROBE<n>.  Both may serve one probe.
 *
 * Call sites (illumos): a probe site compiles to a call of the undefined
 * function __dtrace_sdt_<provider>___<name> ("__" in a name stands for "-",
 * so module__load is the probe module-load).  The kernel's module loader,
 * or for the kernel image the site recorder at build time, rewrites each
 * such call into a NOP sled and records it; enabling the probe patches the
 * sled into a call of the probe's trampoline.  A disabled probe costs the
 * NOPs and its argument set-up, nothing else.  The is-enabled test compiles
 * to a call of __dtrace_isenabled_<provider>___<name>, rewritten to
 * `xor %eax,%eax` (0) and patched to `mov $1,%eax` while enabled.
 *
 * asm-goto sites (FreeBSD 2024): the site is one 5-byte NOP instruction in
 * an `asm goto` whose record {probe, patch point, out-of-line target} goes
 * to the linker set sdt_tracepoint_set, relocated as ordinary data.  The
 * arguments are computed only in the out-of-line block, which calls a lone
 * module handler itself (below), else calls the probe function like a call
 * site does (that call is itself a call site of the probe), and jumps
 * back.  Enabled, the NOP becomes a jmp to the block.  A disabled asm-goto
 * probe costs one NOP, however expensive its arguments.
 * The is-enabled test is an asm goto too: its block yields 1.
 *
 * The module and function fields of a probe come from where its sites are:
 * the .ko's name and the function that contains the site.  The ones given to
 * SDT_PROBE_DEFINE are documentation, and name the definition's symbol
 * (sdt_<provider>_<module>_<function>_<name>, global, as FreeBSD's); provider
 * and name identify the probe.
 *
 * Handlers (Linux tracepoint probes): a module attaches a C function to a
 * probe by its name or by its declared symbol; it is called with its data
 * pointer and the probe's arguments on the thread that fires the probe,
 * beside any DTrace enabling of the probe.  See "Handlers" below.
 */
#ifndef _SYS_SDT_H_
#define _SYS_SDT_H_

#include <stdint.h>
#include <sys/linker_set.h>

#ifdef __cplusplus
#define __SDT_EXTERN extern "C"
#else
#define __SDT_EXTERN extern
#endif

struct sdt_provider {
	const char *name;
};

struct sdt_probedef {
	const char *provider;
	const char *module;
	const char *function;
	const char *name;   /* with "__" for "-" */
	int nargs;
	const char *argtypes[6];
};

#define SDT_PROVIDER_DEFINE(prov)                                              \
	struct sdt_provider sdt_provider_##prov = { #prov };                   \
	DATA_SET(sdt_providers_set, sdt_provider_##prov)
#define SDT_PROVIDER_DECLARE(prov) extern struct sdt_provider sdt_provider_##prov

#define __SDT_PROBE_FNS(prov, name, ...)                                       \
	__SDT_EXTERN void __dtrace_sdt_##prov##___##name(__VA_ARGS__);         \
	__SDT_EXTERN int __dtrace_isenabled_##prov##___##name(void)

/* The definition's symbol: global, so that other files (SDT_PROBE_DECLARE),
 * modules that depend on this one (handlers attached by symbol) and asm-goto
 * records can name it. */
#define __SDT_DEF(prov, mod, func, name) sdt_##prov##_##mod##_##func##_##name

#define __SDT_PROBEDEF(prov, mod, func, name, n, ...)                          \
	__SDT_EXTERN struct sdt_probedef __SDT_DEF(prov, mod, func, name);    \
	struct sdt_probedef __SDT_DEF(prov, mod, func, name) = {               \
		#prov, #mod, #func, #name, n, { __VA_ARGS__ } };               \
	DATA_SET(sdt_probes_set, __SDT_DEF(prov, mod, func, name))

#define __SDT_U uintptr_t

/* A module handler (see "Handlers" below). */
typedef void (*sdt_handler_t)(void *data, uintptr_t arg0, uintptr_t arg1,
    uintptr_t arg2, uintptr_t arg3, uintptr_t arg4, uintptr_t arg5);

#define SDT_PROBE_DECLARE(prov, mod, func, name)                               \
	__SDT_PROBE_FNS(prov, name);                                           \
	__SDT_EXTERN struct sdt_probedef __SDT_DEF(prov, mod, func, name)

#define SDT_PROBE_DEFINE0(prov, mod, func, name)                               \
	__SDT_PROBE_FNS(prov, name, void);                                     \
	__SDT_PROBEDEF(prov, mod, func, name, 0, 0)
#define SDT_PROBE_DEFINE1(prov, mod, func, name, t0)                           \
	__SDT_PROBE_FNS(prov, name, __SDT_U);                                  \
	__SDT_PROBEDEF(prov, mod, func, name, 1, t0)
#define SDT_PROBE_DEFINE2(prov, mod, func, name, t0, t1)                       \
	__SDT_PROBE_FNS(prov, name, __SDT_U, __SDT_U);                         \
	__SDT_PROBEDEF(prov, mod, func, name, 2, t0, t1)
#define SDT_PROBE_DEFINE3(prov, mod, func, name, t0, t1, t2)                   \
	__SDT_PROBE_FNS(prov, name, __SDT_U, __SDT_U, __SDT_U);                \
	__SDT_PROBEDEF(prov, mod, func, name, 3, t0, t1, t2)
#define SDT_PROBE_DEFINE4(prov, mod, func, name, t0, t1, t2, t3)               \
	__SDT_PROBE_FNS(prov, name, __SDT_U, __SDT_U, __SDT_U, __SDT_U);       \
	__SDT_PROBEDEF(prov, mod, func, name, 4, t0, t1, t2, t3)
#define SDT_PROBE_DEFINE5(prov, mod, func, name, t0, t1, t2, t3, t4)           \
	__SDT_PROBE_FNS(prov, name, __SDT_U, __SDT_U, __SDT_U, __SDT_U,        \
	    __SDT_U);                                                          \
	__SDT_PROBEDEF(prov, mod, func, name, 5, t0, t1, t2, t3, t4)
#define SDT_PROBE_DEFINE6(prov, mod, func, name, t0, t1, t2, t3, t4, t5)       \
	__SDT_PROBE_FNS(prov, name, __SDT_U, __SDT_U, __SDT_U, __SDT_U,        \
	    __SDT_U, __SDT_U);                                                 \
	__SDT_PROBEDEF(prov, mod, func, name, 6, t0, t1, t2, t3, t4, t5)

/* The probe function called with the arguments: a call site. */
#define __SDT_FN(prov, name) __dtrace_sdt_##prov##___##name
#define __SDT_CALL0(prov, name) __SDT_FN(prov, name)()
#define __SDT_CALL1(prov, name, a0) __SDT_FN(prov, name)((__SDT_U)(a0))
#define __SDT_CALL2(prov, name, a0, a1)                                        \
	__SDT_FN(prov, name)((__SDT_U)(a0), (__SDT_U)(a1))
#define __SDT_CALL3(prov, name, a0, a1, a2)                                    \
	__SDT_FN(prov, name)((__SDT_U)(a0), (__SDT_U)(a1), (__SDT_U)(a2))
#define __SDT_CALL4(prov, name, a0, a1, a2, a3)                                \
	__SDT_FN(prov, name)((__SDT_U)(a0), (__SDT_U)(a1), (__SDT_U)(a2),      \
	    (__SDT_U)(a3))
#define __SDT_CALL5(prov, name, a0, a1, a2, a3, a4)                            \
	__SDT_FN(prov, name)((__SDT_U)(a0), (__SDT_U)(a1), (__SDT_U)(a2),      \
	    (__SDT_U)(a3), (__SDT_U)(a4))
#define __SDT_CALL6(prov, name, a0, a1, a2, a3, a4, a5)                        \
	__SDT_FN(prov, name)((__SDT_U)(a0), (__SDT_U)(a1), (__SDT_U)(a2),      \
	    (__SDT_U)(a3), (__SDT_U)(a4), (__SDT_U)(a5))

/*
 * An asm-goto site: the 5-byte NOP (one instruction, so the patch engine's
 * int3 protocol rewrites it safely while other threads run it) and its
 * record.  The definition is named in the assembly text rather than passed
 * as an operand: the compilers then need no constraint for its address,
 * which gcc cannot give with -fpic.  `when_on` runs only once the NOP has
 * become a jmp to __sdt_on.
 */
#if defined(__x86_64__)
#define __SDT_ASM_PTR ".quad"
#else
#define __SDT_ASM_PTR ".long"
#endif
/*
 * The block of an enabled asm-goto site first tries the one-handler fast
 * path, as a Linux tracepoint site calls its one probe through a static
 * call: inside liburcu's read-side section, taken inline, it loads the
 * probe's list, and when that is exactly one module handler calls it with
 * its data pointer and the arguments -- one call, as if the handler were
 * called in place.  Anything else (a DTrace enabling, several handlers, a
 * thread not yet an RCU reader or already inside a read-side section)
 * goes on to the block's call site and the probe's trampoline.
 *
 * What the block reads of the kernel is below.  The kernel fills in
 * __sdt_fast at boot, and each block's cache record (set_sdt_goto_cache_set)
 * when it loads the module: the probe's slot, whose `one` is the list when
 * that is one module handler, so any other list goes to the call site
 * after one load.  A record left at __sdt_no_slot (the kernel image's
 * own) keeps its block on the call site.  While the handler runs, the
 * reader counter carries __SDT_RCU_MARK: liburcu sees a read-side section
 * nested that deep, the kernel a thread running handlers, where nothing
 * fires.
 */
struct __sdt_handlers {     /* the head of the kernel's list and its first entry */
	void *__rcu_head[2];
	uint32_t __n, __refs;
	void *__callback;
	sdt_handler_t mfn;
	void *data;
};
struct __sdt_slot {         /* the head of the kernel's ProbeSlot */
	struct __sdt_handlers *volatile __handlers;
	uint32_t __id;
	/* The list when it is exactly one module handler, else 0. */
	const struct __sdt_handlers *volatile one;
};
struct __sdt_rcu_gp {       /* the head of liburcu's struct urcu_gp */
	volatile unsigned long ctr;
	volatile int32_t futex; /* -1: a grace period waits for a reader */
};
struct __sdt_fast {
	long tls_reader;    /* thread-pointer offsets: a byte, 2 on a thread
			       that may take the read side inline ... */
	long tls_ctr;       /* ... and liburcu's reader counter */
	const struct __sdt_rcu_gp *gp;
};
struct __sdt_goto_cache {
	const struct __sdt_slot *slot; /* __sdt_no_slot: the call site */
	struct sdt_probedef *probe;
	uintptr_t where;    /* in the block: names its function */
};
__SDT_EXTERN const struct __sdt_slot __sdt_no_slot;
__SDT_EXTERN struct __sdt_fast __sdt_fast;
__SDT_EXTERN void __sdt_rcu_wake(void);
#define __SDT_RCU_MARK 0x8000UL
/* The counter's nesting count (its other bits are a grace-period phase). */
#if defined(__x86_64__)
#define __SDT_RCU_NEST_MASK 0xffffffffUL
#else
#define __SDT_RCU_NEST_MASK 0xffffUL
#endif

#if defined(__x86_64__)
#define __SDT_TLS "%%fs:"
#define __SDT_CACHE_REF(def)                                                   \
	"991:\tlea 992f(%%rip), %0\n\t"                                        \
	".pushsection set_sdt_goto_cache_set, \"aw\"\n\t.balign 8\n"            \
	"992:\t.quad __sdt_no_slot, " def ", 991b\n\t.popsection"
#else
#define __SDT_TLS "%%gs:"
#define __SDT_CACHE_REF(def)                                                   \
	"991:\tmovl $992f, %0\n\t"                                             \
	".pushsection set_sdt_goto_cache_set, \"aw\"\n\t.balign 4\n"            \
	"992:\t.long __sdt_no_slot, " def ", 991b\n\t.popsection"
#endif

static __inline__ __attribute__((__always_inline__)) unsigned long
__sdt_tls_load(long off)
{
	unsigned long v;
	__asm__ __volatile__("mov " __SDT_TLS "(%1), %0" : "=r"(v) : "r"(off));
	return v;
}
static __inline__ __attribute__((__always_inline__)) unsigned char
__sdt_tls_load8(long off)
{
	unsigned char v;
	__asm__ __volatile__("movb " __SDT_TLS "(%1), %0" : "=q"(v) : "r"(off));
	return v;
}
/* A compiler barrier too, as liburcu's stores to the counter have. */
static __inline__ __attribute__((__always_inline__)) void
__sdt_tls_store(long off, unsigned long v)
{
	__asm__ __volatile__("mov %1, " __SDT_TLS "(%0)" : : "r"(off), "r"(v)
	    : "memory");
}

/* 1: the one handler ran; 0: the block goes on to its call site. */
static __inline__ __attribute__((__always_inline__)) int
__sdt_goto_fast(const struct __sdt_goto_cache *c, uintptr_t a0, uintptr_t a1,
    uintptr_t a2, uintptr_t a3, uintptr_t a4, uintptr_t a5)
{
	const struct __sdt_slot *slot = c->slot;
	const long ctr = __sdt_fast.tls_ctr;
	const struct __sdt_handlers *l;
	int ran = 0;

	if (__builtin_expect(!slot->one ||
	    __sdt_tls_load8(__sdt_fast.tls_reader) != 2 ||
	    (__sdt_tls_load(ctr) & __SDT_RCU_NEST_MASK) != 0, 0))
		return 0;
	__sdt_tls_store(ctr, __sdt_fast.gp->ctr | __SDT_RCU_MARK);
	l = slot->one;
	if (__builtin_expect(l != 0, 1)) {
		sdt_handler_t fn = l->mfn;

		/* A call through a register: `call *mfn(%reg)` measures a
		 * cycle slower on the machines make bench has run on. */
		__asm__("" : "+r"(fn));
		fn(l->data, a0, a1, a2, a3, a4, a5);
		ran = 1;
	}
	__sdt_tls_store(ctr, 0);
	if (__builtin_expect(__sdt_fast.gp->futex == -1, 0))
		__sdt_rcu_wake();
	return ran;
}

/* The block of a probe with arguments x0..x5 (0 past its own): the fast
 * path, else `call` (a call site of the probe, with __s0..__s5). */
#define __SDT_GOTO_FIRE(prov, mod, func, name, x0, x1, x2, x3, x4, x5, call)  \
	do {                                                                   \
		__SDT_U __s0 = (x0), __s1 = (x1), __s2 = (x2), __s3 = (x3),    \
			__s4 = (x4), __s5 = (x5);                              \
		const struct __sdt_goto_cache *__sdt_c;                        \
		__asm__ __volatile__(__SDT_CACHE_REF(__MK_STRING(__SDT_DEF(    \
		    prov, mod, func, name))) : "=r"(__sdt_c));                  \
		if (!__sdt_goto_fast(__sdt_c, __s0, __s1, __s2, __s3, __s4,    \
		    __s5))                                                     \
			call;                                                  \
	} while (0)

#define __SDT_GOTO(prov, mod, func, name, when_on)                             \
	do {                                                                   \
		__label__ __sdt_on;                                            \
		__asm__ goto("990:\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"    \
		    ".pushsection set_sdt_tracepoint_set, \"aw\"\n\t"          \
		    ".balign " __MK_STRING(__SIZEOF_POINTER__) "\n\t"           \
		    __SDT_ASM_PTR " " __MK_STRING(__SDT_DEF(prov, mod, func,     \
		    name)) ", 990b, %l[__sdt_on]\n\t"                            \
		    ".popsection" : : : : __sdt_on);                              \
		if (0) {                                                       \
		__sdt_on:                                                      \
			when_on;                                               \
		}                                                              \
	} while (0)

/* Call style, whatever the build's style. */
#define SDT_CALL_PROBE0(prov, mod, func, name) __SDT_CALL0(prov, name)
#define SDT_CALL_PROBE1(prov, mod, func, name, a0) __SDT_CALL1(prov, name, a0)
#define SDT_CALL_PROBE2(prov, mod, func, name, a0, a1)                         \
	__SDT_CALL2(prov, name, a0, a1)
#define SDT_CALL_PROBE3(prov, mod, func, name, a0, a1, a2)                     \
	__SDT_CALL3(prov, name, a0, a1, a2)
#define SDT_CALL_PROBE4(prov, mod, func, name, a0, a1, a2, a3)                 \
	__SDT_CALL4(prov, name, a0, a1, a2, a3)
#define SDT_CALL_PROBE5(prov, mod, func, name, a0, a1, a2, a3, a4)             \
	__SDT_CALL5(prov, name, a0, a1, a2, a3, a4)
#define SDT_CALL_PROBE6(prov, mod, func, name, a0, a1, a2, a3, a4, a5)         \
	__SDT_CALL6(prov, name, a0, a1, a2, a3, a4, a5)
#define SDT_CALL_PROBE_ENABLED(prov, mod, func, name)                          \
	(__dtrace_isenabled_##prov##___##name() != 0)

/* asm-goto style, whatever the build's style (needs the definition's
 * symbol: SDT_PROBE_DEFINE or SDT_PROBE_DECLARE in scope). */
#define SDT_GOTO_PROBE0(prov, mod, func, name)                                 \
	__SDT_GOTO(prov, mod, func, name,                                      \
	    __SDT_GOTO_FIRE(prov, mod, func, name,                             \
		0, 0, 0,                                                       \
		0, 0, 0,                                                       \
		__SDT_CALL0(prov, name)))
#define SDT_GOTO_PROBE1(prov, mod, func, name, a0)                             \
	__SDT_GOTO(prov, mod, func, name,                                      \
	    __SDT_GOTO_FIRE(prov, mod, func, name,                             \
		(__SDT_U)(a0), 0, 0,                                           \
		0, 0, 0,                                                       \
		__SDT_CALL1(prov, name, __s0)))
#define SDT_GOTO_PROBE2(prov, mod, func, name, a0, a1)                         \
	__SDT_GOTO(prov, mod, func, name,                                      \
	    __SDT_GOTO_FIRE(prov, mod, func, name,                             \
		(__SDT_U)(a0), (__SDT_U)(a1), 0,                               \
		0, 0, 0,                                                       \
		__SDT_CALL2(prov, name, __s0, __s1)))
#define SDT_GOTO_PROBE3(prov, mod, func, name, a0, a1, a2)                     \
	__SDT_GOTO(prov, mod, func, name,                                      \
	    __SDT_GOTO_FIRE(prov, mod, func, name,                             \
		(__SDT_U)(a0), (__SDT_U)(a1), (__SDT_U)(a2),                   \
		0, 0, 0,                                                       \
		__SDT_CALL3(prov, name, __s0, __s1, __s2)))
#define SDT_GOTO_PROBE4(prov, mod, func, name, a0, a1, a2, a3)                 \
	__SDT_GOTO(prov, mod, func, name,                                      \
	    __SDT_GOTO_FIRE(prov, mod, func, name,                             \
		(__SDT_U)(a0), (__SDT_U)(a1), (__SDT_U)(a2),                   \
		(__SDT_U)(a3), 0, 0,                                           \
		__SDT_CALL4(prov, name, __s0, __s1, __s2, __s3)))
#define SDT_GOTO_PROBE5(prov, mod, func, name, a0, a1, a2, a3, a4)             \
	__SDT_GOTO(prov, mod, func, name,                                      \
	    __SDT_GOTO_FIRE(prov, mod, func, name,                             \
		(__SDT_U)(a0), (__SDT_U)(a1), (__SDT_U)(a2),                   \
		(__SDT_U)(a3), (__SDT_U)(a4), 0,                               \
		__SDT_CALL5(prov, name, __s0, __s1, __s2, __s3, __s4)))
#define SDT_GOTO_PROBE6(prov, mod, func, name, a0, a1, a2, a3, a4, a5)         \
	__SDT_GOTO(prov, mod, func, name,                                      \
	    __SDT_GOTO_FIRE(prov, mod, func, name,                             \
		(__SDT_U)(a0), (__SDT_U)(a1), (__SDT_U)(a2),                   \
		(__SDT_U)(a3), (__SDT_U)(a4), (__SDT_U)(a5),                   \
		__SDT_CALL6(prov, name, __s0, __s1, __s2, __s3, __s4, __s5)))
#define SDT_GOTO_PROBE_ENABLED(prov, mod, func, name)                          \
	__extension__({                                                        \
		int __sdt_enabled;                                             \
		__sdt_enabled = 0;                                             \
		__SDT_GOTO(prov, mod, func, name, __sdt_enabled = 1);          \
		__sdt_enabled;                                                 \
	})

#if defined(SDT_STYLE_ASMGOTO)
#define SDT_PROBE0(...) SDT_GOTO_PROBE0(__VA_ARGS__)
#define SDT_PROBE1(...) SDT_GOTO_PROBE1(__VA_ARGS__)
#define SDT_PROBE2(...) SDT_GOTO_PROBE2(__VA_ARGS__)
#define SDT_PROBE3(...) SDT_GOTO_PROBE3(__VA_ARGS__)
#define SDT_PROBE4(...) SDT_GOTO_PROBE4(__VA_ARGS__)
#define SDT_PROBE5(...) SDT_GOTO_PROBE5(__VA_ARGS__)
#define SDT_PROBE6(...) SDT_GOTO_PROBE6(__VA_ARGS__)
#define SDT_PROBE_ENABLED(...) SDT_GOTO_PROBE_ENABLED(__VA_ARGS__)
#else
#define SDT_PROBE0(...) SDT_CALL_PROBE0(__VA_ARGS__)
#define SDT_PROBE1(...) SDT_CALL_PROBE1(__VA_ARGS__)
#define SDT_PROBE2(...) SDT_CALL_PROBE2(__VA_ARGS__)
#define SDT_PROBE3(...) SDT_CALL_PROBE3(__VA_ARGS__)
#define SDT_PROBE4(...) SDT_CALL_PROBE4(__VA_ARGS__)
#define SDT_PROBE5(...) SDT_CALL_PROBE5(__VA_ARGS__)
#define SDT_PROBE6(...) SDT_CALL_PROBE6(__VA_ARGS__)
#define SDT_PROBE_ENABLED(...) SDT_CALL_PROBE_ENABLED(__VA_ARGS__)
#endif

/* One asm-goto site's record in set_sdt_tracepoint_set (what the assembly
 * of __SDT_GOTO emits; the loader checks every field). */
struct sdt_tracepoint {
	struct sdt_probedef *probe; /* the definition of the probe it fires */
	uintptr_t patchpoint;       /* the 5-byte NOP */
	uintptr_t target;           /* the out-of-line block */
};

/*
 * Handlers.  A handler is called with its data pointer and the probe's six
 * argument words (a handler may declare fewer: the x86 calling conventions
 * pass the first ones the same way).  Several handlers per probe run in
 * priority order (higher first, then in attach order); attaching the same
 * (function, data) twice to a probe is refused (EEXIST).
 *
 *   sdt_handler_attach("memdev:::write-done", fn, data, prio)
 *       every probe the description matches, now and when modules load
 *       later (fields may be empty or globs); 0 or an errno value
 *   SDT_HANDLER_ATTACH(memdev, , write, write__done, fn, data, prio)
 *       the probes made from a definition (SDT_PROBE_DECLARE it; the
 *       module defining it must be a dependency, MODULE_DEPEND)
 *   sdt_handler_detach(...) / SDT_HANDLER_DETACH(...)
 *       returns at once; the handler may still be running on another
 *       thread until a grace period has passed: sdt_synchronize() waits
 *       for one (never call it from a handler).
 *
 * A module's handlers must be detached before its code goes; the kernel
 * detaches any left at unload (and says so), and waits for a grace period
 * before it frees the module.
 */
#define SDT_HANDLER_PRIO_DEFAULT 10

__SDT_EXTERN int sdt_handler_attach(const char *probe, sdt_handler_t fn,
    void *data, int prio);
__SDT_EXTERN int sdt_handler_detach(const char *probe, sdt_handler_t fn,
    void *data);
__SDT_EXTERN int sdt_handler_attach_probe(struct sdt_probedef *probe,
    sdt_handler_t fn, void *data, int prio);
__SDT_EXTERN int sdt_handler_detach_probe(struct sdt_probedef *probe,
    sdt_handler_t fn, void *data);
__SDT_EXTERN void sdt_synchronize(void);

/* A handler declared with fewer arguments passes through void (*)(void),
 * the cast compilers accept without -Wcast-function-type's warning. */
#define SDT_HANDLER_ATTACH(prov, mod, func, name, fn, data, prio)              \
	sdt_handler_attach_probe(&__SDT_DEF(prov, mod, func, name),            \
	    (sdt_handler_t)(void (*)(void))(fn), (data), (prio))
#define SDT_HANDLER_DETACH(prov, mod, func, name, fn, data)                    \
	sdt_handler_detach_probe(&__SDT_DEF(prov, mod, func, name),            \
	    (sdt_handler_t)(void (*)(void))(fn), (data))

#endif
