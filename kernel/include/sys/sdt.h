/*
 * Statically defined tracing (FreeBSD-flavoured API, illumos mechanism).
 *
 *   SDT_PROVIDER_DEFINE(memdev);
 *   SDT_PROBE_DEFINE2(memdev, , write, done, "size_t", "char *");
 *   ...
 *   SDT_PROBE2(memdev, , write, done, len, buf);
 *   if (SDT_PROBE_ENABLED(memdev, , write, done)) { expensive(); }
 *
 * A probe site compiles to a call of the undefined function
 * __dtrace_sdt_<provider>___<name> ("__" in a name stands for "-", so
 * module__load is the probe module-load).  The kernel's module loader, or
 * for the kernel image the site recorder at build time, rewrites each such
 * call into a NOP sled and records it; enabling the probe patches the sled
 * into a call of the probe's trampoline.  A disabled probe costs the NOPs
 * and its argument set-up, nothing else.  The is-enabled test compiles to a
 * call of __dtrace_isenabled_<provider>___<name>, rewritten to
 * `xor %eax,%eax` (0) and patched to `mov $1,%eax` while enabled.
 *
 * The module and function fields of a probe come from where its sites are:
 * the .ko's name and the function that contains the site.  The ones given to
 * SDT_PROBE_DEFINE are documentation; provider and name identify the probe.
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

#define __SDT_PROBEDEF(prov, mod, func, name, n, ...)                          \
	static struct sdt_probedef sdt_##prov##_##mod##_##func##_##name = {    \
		#prov, #mod, #func, #name, n, { __VA_ARGS__ } };               \
	DATA_SET(sdt_probes_set, sdt_##prov##_##mod##_##func##_##name)

#define __SDT_U uintptr_t

#define SDT_PROBE_DECLARE(prov, mod, func, name) __SDT_PROBE_FNS(prov, name)

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

#define SDT_PROBE0(prov, mod, func, name) __dtrace_sdt_##prov##___##name()
#define SDT_PROBE1(prov, mod, func, name, a0)                                  \
	__dtrace_sdt_##prov##___##name((__SDT_U)(a0))
#define SDT_PROBE2(prov, mod, func, name, a0, a1)                              \
	__dtrace_sdt_##prov##___##name((__SDT_U)(a0), (__SDT_U)(a1))
#define SDT_PROBE3(prov, mod, func, name, a0, a1, a2)                          \
	__dtrace_sdt_##prov##___##name((__SDT_U)(a0), (__SDT_U)(a1),           \
	    (__SDT_U)(a2))
#define SDT_PROBE4(prov, mod, func, name, a0, a1, a2, a3)                      \
	__dtrace_sdt_##prov##___##name((__SDT_U)(a0), (__SDT_U)(a1),           \
	    (__SDT_U)(a2), (__SDT_U)(a3))
#define SDT_PROBE5(prov, mod, func, name, a0, a1, a2, a3, a4)                  \
	__dtrace_sdt_##prov##___##name((__SDT_U)(a0), (__SDT_U)(a1),           \
	    (__SDT_U)(a2), (__SDT_U)(a3), (__SDT_U)(a4))
#define SDT_PROBE6(prov, mod, func, name, a0, a1, a2, a3, a4, a5)              \
	__dtrace_sdt_##prov##___##name((__SDT_U)(a0), (__SDT_U)(a1),           \
	    (__SDT_U)(a2), (__SDT_U)(a3), (__SDT_U)(a4), (__SDT_U)(a5))

#define SDT_PROBE_ENABLED(prov, mod, func, name)                               \
	(__dtrace_isenabled_##prov##___##name() != 0)

#endif
