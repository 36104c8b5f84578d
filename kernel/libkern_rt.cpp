// The compiler's runtime helpers, exported to modules under their own names.
//
// gcc and clang turn some operations into calls to libgcc (compiler-rt uses
// the same names): 64-bit division and conversions on i386, 128-bit integer
// arithmetic on x86_64, __float128 and _Float16 arithmetic, complex
// multiplication and division, __builtin_powi, population counts without
// POPCNT, the -ftrapv checks, and __builtin_cpu_supports' CPU model.  A
// module never names them, so it cannot avoid them: each one either
// compiler may call on the arch is here.  The kernel is linked against
// libgcc (the static archive, or for a few libgcc_s through a canonical PLT
// entry of the non-PIE image), so every address is in the kernel image.
//
// Not here: decimal floating point (__bid_*), split stacks (__morestack),
// and the atomics library (__atomic_* calls for objects the CPU cannot
// handle lock-free), which is libatomic, not libgcc.
//
// One mismatch no export can mend: clang (14) passes __float128 arguments
// on the i386 stack at 4-byte alignment where gcc and libgcc use 16, so the
// TF helpers get garbage from clang-built i386 modules
// (tests/modules/libc_env/rt.c leaves them out there).
#include "libkern_c.h"

// Declared only to take their addresses, under names of our own bound to
// the helpers' symbols: the compiler that calls them knows their real types
// (g++ has some as built-ins, which a second declaration would contradict).
#define MK_RT_DECLARE(name) extern "C" void mk_rt##name(void) __asm__(#name);
#define MK_RT_EXPORT(name) LIBKERN_EXPORT(#name, mk_rt##name)

// Both arches.
#define MK_RT_COMMON(X)                                                        \
  /* -ftrapv */                                                               \
  X(__absvsi2) X(__absvdi2) X(__addvsi3) X(__addvdi3) X(__subvsi3)            \
  X(__subvdi3) X(__mulvsi3) X(__mulvdi3) X(__negvsi2) X(__negvdi2)            \
  /* bit operations */                                                        \
  X(__bswapsi2) X(__bswapdi2) X(__clrsbdi2) X(__clzdi2) X(__ctzdi2)           \
  X(__ffsdi2) X(__paritydi2) X(__popcountdi2)                                 \
  /* __builtin_powi, complex multiplication and division */                   \
  X(__powisf2) X(__powidf2) X(__powixf2) X(__powitf2)                         \
  X(__mulsc3) X(__muldc3) X(__mulxc3) X(__multc3) X(__mulhc3)                 \
  X(__divsc3) X(__divdc3) X(__divxc3) X(__divtc3) X(__divhc3)                 \
  /* floating to unsigned 64-bit */                                           \
  X(__fixunssfdi) X(__fixunsdfdi) X(__fixunsxfdi)                             \
  /* __float128 (TF) */                                                       \
  X(__addtf3) X(__subtf3) X(__multf3) X(__divtf3) X(__negtf2) X(__eqtf2)      \
  X(__netf2) X(__getf2) X(__gttf2) X(__letf2) X(__lttf2) X(__unordtf2)        \
  X(__extendsftf2) X(__extenddftf2) X(__extendxftf2) X(__trunctfsf2)          \
  X(__trunctfdf2) X(__trunctfxf2) X(__fixtfsi) X(__fixtfdi) X(__fixunstfsi)   \
  X(__fixunstfdi) X(__floatsitf) X(__floatditf) X(__floatunsitf)              \
  X(__floatunditf)                                                            \
  /* _Float16 (HF) */                                                         \
  X(__extendhfsf2) X(__extendhfdf2) X(__extendhfxf2) X(__extendhftf2)         \
  X(__truncsfhf2) X(__truncdfhf2) X(__truncxfhf2) X(__trunctfhf2)             \
  X(__eqhf2) X(__nehf2)                                                       \
  /* __builtin_cpu_init (its data is below) */                                \
  X(__cpu_indicator_init)

#if defined(__x86_64__)
// 128-bit integers (TI).
#define MK_RT_ARCH(X)                                                          \
  X(__absvti2) X(__addvti3) X(__subvti3) X(__mulvti3) X(__negvti2)            \
  X(__ashlti3) X(__ashrti3) X(__lshrti3) X(__multi3) X(__negti2) X(__cmpti2)  \
  X(__ucmpti2) X(__divti3) X(__modti3) X(__udivti3) X(__umodti3)              \
  X(__divmodti4) X(__udivmodti4) X(__clrsbti2) X(__clzti2) X(__ctzti2)        \
  X(__ffsti2) X(__parityti2) X(__popcountti2) X(__fixsfti) X(__fixdfti)       \
  X(__fixxfti) X(__fixtfti) X(__fixhfti) X(__fixunssfti) X(__fixunsdfti)      \
  X(__fixunsxfti) X(__fixunstfti) X(__fixunshfti) X(__floattisf)              \
  X(__floattidf) X(__floattixf) X(__floattitf) X(__floattihf)                 \
  X(__floatuntisf) X(__floatuntidf) X(__floatuntixf) X(__floatuntitf)         \
  X(__floatuntihf)
#else
// 64-bit integers (DI) on a 32-bit machine, and x87 conversions.
#define MK_RT_ARCH(X)                                                          \
  X(__ashldi3) X(__ashrdi3) X(__lshrdi3) X(__muldi3) X(__negdi2) X(__cmpdi2)  \
  X(__ucmpdi2) X(__divdi3) X(__moddi3) X(__udivdi3) X(__umoddi3)              \
  X(__divmoddi4) X(__udivmoddi4) X(__clrsbsi2) X(__clzsi2) X(__ctzsi2)        \
  X(__ffssi2) X(__paritysi2) X(__popcountsi2) X(__fixsfdi) X(__fixdfdi)       \
  X(__fixxfdi) X(__fixunssfsi) X(__fixunsdfsi) X(__fixunsxfsi) X(__floatdisf) \
  X(__floatdidf) X(__floatdixf) X(__floatundisf) X(__floatundidf)             \
  X(__floatundixf) X(__copysigntf3) X(__fabstf2)
#endif

MK_RT_COMMON(MK_RT_DECLARE)
MK_RT_ARCH(MK_RT_DECLARE)
MK_RT_COMMON(MK_RT_EXPORT)
MK_RT_ARCH(MK_RT_EXPORT)

// What __builtin_cpu_supports and __builtin_cpu_is read; libgcc's
// constructor fills them in when the kernel starts.
extern "C" char mk_rt_cpu_model[] __asm__("__cpu_model");
extern "C" char mk_rt_cpu_features2[] __asm__("__cpu_features2");
EXPORT_SYMBOL_AS("__cpu_model", mk_rt_cpu_model);
EXPORT_SYMBOL_AS("__cpu_features2", mk_rt_cpu_features2);
