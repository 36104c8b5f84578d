/*
 * Names shared by the self-checking module and its library.  Every variant
 * (compiler x compile mode x -O) is built with its own tag, so each
 * variant's module and library have names of their own:
 *
 *   -DSC_TAG=gcc_fpic_O2 -DSC_LABEL='"selfcheck-gcc-fpic-O2"'
 *
 * gives module selfcheck_gcc_fpic_O2, which depends on library module
 * sclib_gcc_fpic_O2, whose exported names all start with that name.
 */
#ifndef SELFCHECK_H
#define SELFCHECK_H

#ifndef SC_TAG
#error "build with -DSC_TAG=<cc>_<mode>_<O> (tests/reloc/modes.mk)"
#endif

#define SC_CAT(a, b) a##b
#define SC_XCAT(a, b) SC_CAT(a, b)
#define SC_MOD SC_XCAT(selfcheck_, SC_TAG)
#define SC_LIB SC_XCAT(sclib_, SC_TAG)
/* A library export: SCLIB(add) is sclib_<tag>_add. */
#define SCLIB(n) SC_XCAT(SC_LIB, SC_XCAT(_, n))

#ifdef __cplusplus
extern "C" {
#endif

/* sclib.c: functions and data another module binds to. */
int SCLIB(add)(int a, int b);
int SCLIB(apply)(int (*fn)(int), int x);	/* calls back into the caller */
void *SCLIB(add_address)(void);		/* its own idea of &SCLIB(add) */
const void *SCLIB(table_address)(void);
int SCLIB(get_counter)(void);
extern int SCLIB(table)[8];
extern int SCLIB(counter);
extern const char SCLIB(name)[];
extern int (*const SCLIB(ops)[3])(int, int);

/* selfcheck_cxx.cc: the C++ half of the module (vtables, constructors). */
int SC_XCAT(SC_MOD, _cxx_checksum)(void);
int SC_XCAT(SC_MOD, _cxx_constructed)(void);

#ifdef __cplusplus
}
#endif

/*
 * Keep the compiler from folding a value it could know: the address (or
 * number) must be materialised from its relocation and then used.
 */
#ifdef __cplusplus
#define SC_AUTO auto
#else
#define SC_AUTO __auto_type
#endif
#define SC_HIDE(x)                                                             \
	({                                                                     \
		SC_AUTO sc_hidden_ = (x);                                      \
		__asm__ volatile("" : "+r"(sc_hidden_));                       \
		sc_hidden_;                                                    \
	})

#endif
