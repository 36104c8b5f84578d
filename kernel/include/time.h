/*
 * <time.h> for modules (C17 7.27, with the POSIX clocks): the kernel's
 * clocks and a calendar in UTC (kernel/libkern_time.cpp).
 *
 * - time(), timespec_get(TIME_UTC) and CLOCK_REALTIME read the host's
 *   wall clock; CLOCK_MONOTONIC is the kernel's uptime, the clock of
 *   nanouptime() (<sys/systm.h>).
 * - clock() is the processor time the whole kernel (every CPU thread) has
 *   used, in CLOCKS_PER_SEC; CLOCK_PROCESS_CPUTIME_ID is the same clock,
 *   CLOCK_THREAD_CPUTIME_ID the calling thread's.
 * - The kernel has no time zones: local time is UTC.  localtime() is
 *   gmtime(), mktime() is timegm(), tm_isdst is always 0 and tm_zone
 *   "UTC".
 * - strftime() formats in the C locale.
 * - time_t is 64 bits on both arches (as glibc's with _TIME_BITS=64):
 *   dates past 2038 work on i386 too.
 *
 * gmtime(), localtime(), asctime() and ctime() return a buffer of the
 * calling thread's, overwritten by its next call of any of them; the _r
 * forms take the caller's.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <time.h>
#else
#ifndef _MK_TIME_H_
#define _MK_TIME_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if __SIZEOF_LONG__ == 8
typedef long time_t;
#else
typedef long long time_t;
#endif
typedef long clock_t;
typedef int clockid_t;

#define CLOCKS_PER_SEC ((clock_t)1000000)
#define TIME_UTC 1

/* The fields are the C library's, in its order (tm_gmtoff and tm_zone
 * are the BSD additions real code reads). */
struct tm {
	int tm_sec;	/* seconds after the minute, 0-60 */
	int tm_min;	/* 0-59 */
	int tm_hour;	/* 0-23 */
	int tm_mday;	/* day of the month, 1-31 */
	int tm_mon;	/* months since January, 0-11 */
	int tm_year;	/* years since 1900 */
	int tm_wday;	/* days since Sunday, 0-6 */
	int tm_yday;	/* days since January 1, 0-365 */
	int tm_isdst;	/* always 0: UTC has no daylight saving time */
	long tm_gmtoff;	/* seconds east of UTC: always 0 */
	const char *tm_zone;	/* "UTC" */
};

struct timespec {
	time_t tv_sec;
	long tv_nsec;
};

clock_t clock(void);
double difftime(time_t t1, time_t t0);
time_t mktime(struct tm *tm);
time_t time(time_t *t);
int timespec_get(struct timespec *ts, int base);
char *asctime(const struct tm *tm);
char *ctime(const time_t *t);
struct tm *gmtime(const time_t *t);
struct tm *localtime(const time_t *t);
size_t strftime(char *buf, size_t size, const char *fmt,
    const struct tm *tm) __attribute__((__format__(__strftime__, 3, 0)));

/* POSIX and C23 names, hidden by a strict C mode as the C library does. */
#if !defined(__STRICT_ANSI__) || defined(_XOPEN_SOURCE) ||                    \
    defined(_POSIX_C_SOURCE) || defined(_DEFAULT_SOURCE) ||                    \
    defined(_BSD_SOURCE) || defined(_GNU_SOURCE)
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3

int clock_gettime(clockid_t clock, struct timespec *ts);
int clock_getres(clockid_t clock, struct timespec *res);
struct tm *gmtime_r(const time_t *t, struct tm *tm);
struct tm *localtime_r(const time_t *t, struct tm *tm);
char *asctime_r(const struct tm *tm, char *buf);
char *ctime_r(const time_t *t, char *buf);
time_t timegm(struct tm *tm);
#endif

#ifdef __cplusplus
}
#endif

#endif /* _MK_TIME_H_ */
#endif /* !__STDC_HOSTED__ */
