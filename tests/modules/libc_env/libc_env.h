/*
 * libc_env: a module that checks the C environment modules get (the
 * freestanding headers, the C library the kernel exports, the compiler's
 * runtime helpers) against answers known in advance.  Each area is one
 * file; each check is counted, and a failed one is printed with what it
 * got and what it wanted.  The shell command `libc_env` runs every area
 * and prints one line per area and a verdict:
 *
 *   libc_env: PASS 1234/1234
 *
 * tests/integration/libc-env.t loads the gcc-built module; tests/modenv/run
 * builds it with gcc and clang in every compile mode and loads each.
 */
#ifndef LIBC_ENV_H
#define LIBC_ENV_H

#ifdef __cplusplus
extern "C" {
#endif

/* The label on every line (the variant, when built by tests/modenv). */
#ifndef LE_LABEL
#define LE_LABEL "libc_env"
#endif

/* Count one check of `area`; print it when it failed. */
void le_ok(int ok, const char *what, const char *got, const char *want);
void le_int(const char *what, long long got, long long want);
void le_str(const char *what, const char *got, const char *want);
/* |got - want| <= tol * |want| (or tol when want is 0). */
void le_near(const char *what, long double got, long double want,
    long double tol);
/* A note printed after the area's count (what was not applicable). */
void le_note(const char *note);

#define LE_CHECK(cond) le_ok(!!(cond), #cond, 0, 0)

/*
 * Hide a value from the optimiser, so calls are made at run time: it is
 * read back from a volatile copy (an array decays to a pointer).
 */
#ifdef __cplusplus
#define LE_AUTO auto
#else
#define LE_AUTO __auto_type
#endif
#define LE_HIDE(x)                                                             \
	({                                                                     \
		volatile LE_AUTO le_hidden_ = (x);                             \
		le_hidden_;                                                    \
	})

/* The areas, one per file. */
void le_headers(void);	/* headers.c: the freestanding headers */
void le_string(void);	/* string.c: <string.h>, <strings.h> */
void le_ctype(void);	/* ctype.c: <ctype.h> */
void le_stdlib(void);	/* stdlib.c: <stdlib.h>, <inttypes.h>, <errno.h>, <assert.h> */
void le_stdio(void);	/* stdio.c: <stdio.h> */
void le_math(void);	/* math.c: <math.h> */
void le_time(void);	/* time.c: <time.h>, <memory.h> */
void le_rt(void);	/* rt.c: the compiler's runtime helpers, called by name */
void le_builtins(void);	/* builtins.c: calls the compilers make on their own */
void le_cxx(void);	/* cxx.cc: every header from C++ */

#ifdef __cplusplus
}
#endif
#endif
