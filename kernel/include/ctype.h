/*
 * <ctype.h> for modules (C17 7.4): character classes of the C locale, the
 * only locale modules have.  Every function takes an unsigned char value
 * or EOF and answers 0 for anything else (it never reads outside a table,
 * whatever it is given).  Functions only, no macros, so C++ overloads and
 * taking an address work.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <ctype.h>
#else
#ifndef _MK_CTYPE_H_
#define _MK_CTYPE_H_

#ifdef __cplusplus
extern "C" {
#endif

int isalnum(int c);
int isalpha(int c);
int isblank(int c);
int iscntrl(int c);
int isdigit(int c);
int isgraph(int c);
int islower(int c);
int isprint(int c);
int ispunct(int c);
int isspace(int c);
int isupper(int c);
int isxdigit(int c);
int isascii(int c);
int tolower(int c);
int toupper(int c);
int toascii(int c);

#ifdef __cplusplus
}
#endif

#endif /* _MK_CTYPE_H_ */
#endif /* !__STDC_HOSTED__ */
