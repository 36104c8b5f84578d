/*
 * <inttypes.h> for modules (C17 7.8): printf and scanf conversions for the
 * <stdint.h> types, and the intmax_t functions.  The length modifiers
 * follow our <stdint.h>, which is the same for gcc and clang.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <inttypes.h>
#else
#ifndef _MK_INTTYPES_H_
#define _MK_INTTYPES_H_

#include <stdint.h>

#if __SIZEOF_LONG__ == 8
#define __MK_PRI64 "l"  /* int64_t, intmax_t: long */
#define __MK_PRIFAST "l" /* int_fast16_t, int_fast32_t: long */
#define __MK_PRIPTR "l" /* intptr_t: long */
#else
#define __MK_PRI64 "ll"
#define __MK_PRIFAST ""
#define __MK_PRIPTR ""
#endif

#define PRId8 "d"
#define PRId16 "d"
#define PRId32 "d"
#define PRId64 __MK_PRI64 "d"
#define PRIdLEAST8 "d"
#define PRIdLEAST16 "d"
#define PRIdLEAST32 "d"
#define PRIdLEAST64 __MK_PRI64 "d"
#define PRIdFAST8 "d"
#define PRIdFAST16 __MK_PRIFAST "d"
#define PRIdFAST32 __MK_PRIFAST "d"
#define PRIdFAST64 __MK_PRI64 "d"
#define PRIdMAX __MK_PRI64 "d"
#define PRIdPTR __MK_PRIPTR "d"

#define PRIi8 "i"
#define PRIi16 "i"
#define PRIi32 "i"
#define PRIi64 __MK_PRI64 "i"
#define PRIiLEAST8 "i"
#define PRIiLEAST16 "i"
#define PRIiLEAST32 "i"
#define PRIiLEAST64 __MK_PRI64 "i"
#define PRIiFAST8 "i"
#define PRIiFAST16 __MK_PRIFAST "i"
#define PRIiFAST32 __MK_PRIFAST "i"
#define PRIiFAST64 __MK_PRI64 "i"
#define PRIiMAX __MK_PRI64 "i"
#define PRIiPTR __MK_PRIPTR "i"

/* Unsigned conversions: o, u, x, X. */
#define PRIo8 "o"
#define PRIo16 "o"
#define PRIo32 "o"
#define PRIo64 __MK_PRI64 "o"
#define PRIoLEAST8 "o"
#define PRIoLEAST16 "o"
#define PRIoLEAST32 "o"
#define PRIoLEAST64 __MK_PRI64 "o"
#define PRIoFAST8 "o"
#define PRIoFAST16 __MK_PRIFAST "o"
#define PRIoFAST32 __MK_PRIFAST "o"
#define PRIoFAST64 __MK_PRI64 "o"
#define PRIoMAX __MK_PRI64 "o"
#define PRIoPTR __MK_PRIPTR "o"

#define PRIu8 "u"
#define PRIu16 "u"
#define PRIu32 "u"
#define PRIu64 __MK_PRI64 "u"
#define PRIuLEAST8 "u"
#define PRIuLEAST16 "u"
#define PRIuLEAST32 "u"
#define PRIuLEAST64 __MK_PRI64 "u"
#define PRIuFAST8 "u"
#define PRIuFAST16 __MK_PRIFAST "u"
#define PRIuFAST32 __MK_PRIFAST "u"
#define PRIuFAST64 __MK_PRI64 "u"
#define PRIuMAX __MK_PRI64 "u"
#define PRIuPTR __MK_PRIPTR "u"

#define PRIx8 "x"
#define PRIx16 "x"
#define PRIx32 "x"
#define PRIx64 __MK_PRI64 "x"
#define PRIxLEAST8 "x"
#define PRIxLEAST16 "x"
#define PRIxLEAST32 "x"
#define PRIxLEAST64 __MK_PRI64 "x"
#define PRIxFAST8 "x"
#define PRIxFAST16 __MK_PRIFAST "x"
#define PRIxFAST32 __MK_PRIFAST "x"
#define PRIxFAST64 __MK_PRI64 "x"
#define PRIxMAX __MK_PRI64 "x"
#define PRIxPTR __MK_PRIPTR "x"

#define PRIX8 "X"
#define PRIX16 "X"
#define PRIX32 "X"
#define PRIX64 __MK_PRI64 "X"
#define PRIXLEAST8 "X"
#define PRIXLEAST16 "X"
#define PRIXLEAST32 "X"
#define PRIXLEAST64 __MK_PRI64 "X"
#define PRIXFAST8 "X"
#define PRIXFAST16 __MK_PRIFAST "X"
#define PRIXFAST32 __MK_PRIFAST "X"
#define PRIXFAST64 __MK_PRI64 "X"
#define PRIXMAX __MK_PRI64 "X"
#define PRIXPTR __MK_PRIPTR "X"

/* scanf needs the exact size: hh for 8 bits, h for 16. */
#define SCNd8 "hhd"
#define SCNd16 "hd"
#define SCNd32 "d"
#define SCNd64 __MK_PRI64 "d"
#define SCNdLEAST8 "hhd"
#define SCNdLEAST16 "hd"
#define SCNdLEAST32 "d"
#define SCNdLEAST64 __MK_PRI64 "d"
#define SCNdFAST8 "hhd"
#define SCNdFAST16 __MK_PRIFAST "d"
#define SCNdFAST32 __MK_PRIFAST "d"
#define SCNdFAST64 __MK_PRI64 "d"
#define SCNdMAX __MK_PRI64 "d"
#define SCNdPTR __MK_PRIPTR "d"

#define SCNi8 "hhi"
#define SCNi16 "hi"
#define SCNi32 "i"
#define SCNi64 __MK_PRI64 "i"
#define SCNiLEAST8 "hhi"
#define SCNiLEAST16 "hi"
#define SCNiLEAST32 "i"
#define SCNiLEAST64 __MK_PRI64 "i"
#define SCNiFAST8 "hhi"
#define SCNiFAST16 __MK_PRIFAST "i"
#define SCNiFAST32 __MK_PRIFAST "i"
#define SCNiFAST64 __MK_PRI64 "i"
#define SCNiMAX __MK_PRI64 "i"
#define SCNiPTR __MK_PRIPTR "i"

#define SCNo8 "hho"
#define SCNo16 "ho"
#define SCNo32 "o"
#define SCNo64 __MK_PRI64 "o"
#define SCNoLEAST8 "hho"
#define SCNoLEAST16 "ho"
#define SCNoLEAST32 "o"
#define SCNoLEAST64 __MK_PRI64 "o"
#define SCNoFAST8 "hho"
#define SCNoFAST16 __MK_PRIFAST "o"
#define SCNoFAST32 __MK_PRIFAST "o"
#define SCNoFAST64 __MK_PRI64 "o"
#define SCNoMAX __MK_PRI64 "o"
#define SCNoPTR __MK_PRIPTR "o"

#define SCNu8 "hhu"
#define SCNu16 "hu"
#define SCNu32 "u"
#define SCNu64 __MK_PRI64 "u"
#define SCNuLEAST8 "hhu"
#define SCNuLEAST16 "hu"
#define SCNuLEAST32 "u"
#define SCNuLEAST64 __MK_PRI64 "u"
#define SCNuFAST8 "hhu"
#define SCNuFAST16 __MK_PRIFAST "u"
#define SCNuFAST32 __MK_PRIFAST "u"
#define SCNuFAST64 __MK_PRI64 "u"
#define SCNuMAX __MK_PRI64 "u"
#define SCNuPTR __MK_PRIPTR "u"

#define SCNx8 "hhx"
#define SCNx16 "hx"
#define SCNx32 "x"
#define SCNx64 __MK_PRI64 "x"
#define SCNxLEAST8 "hhx"
#define SCNxLEAST16 "hx"
#define SCNxLEAST32 "x"
#define SCNxLEAST64 __MK_PRI64 "x"
#define SCNxFAST8 "hhx"
#define SCNxFAST16 __MK_PRIFAST "x"
#define SCNxFAST32 __MK_PRIFAST "x"
#define SCNxFAST64 __MK_PRI64 "x"
#define SCNxMAX __MK_PRI64 "x"
#define SCNxPTR __MK_PRIPTR "x"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { intmax_t quot; intmax_t rem; } imaxdiv_t;

intmax_t imaxabs(intmax_t v);
imaxdiv_t imaxdiv(intmax_t num, intmax_t den);
intmax_t strtoimax(const char *s, char **end, int base);
uintmax_t strtoumax(const char *s, char **end, int base);

#ifdef __cplusplus
}
#endif

#endif /* _MK_INTTYPES_H_ */
#endif /* !__STDC_HOSTED__ */
