/*
 * <time.h>: the calendar (in UTC: the kernel has no time zones) against
 * dates known in advance, before 1970 and past 2038 included, mktime's
 * normalisation and round trip, strftime and asctime in the C locale, and
 * the clocks: the wall clock agrees with itself, the monotonic one is
 * nanouptime's, clock() and the CPU-time clocks advance while this burns
 * processor time.  <memory.h> stands in for <string.h> here, as it does in
 * the libraries that include it.
 */
#include <errno.h>
#include <memory.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <sys/systm.h>

#include "libc_env.h"

_Static_assert(sizeof(time_t) == 8, "time_t is 64 bits on both arches");
_Static_assert(CLOCKS_PER_SEC == 1000000 && TIME_UTC == 1, "time.h macros");

/* "YYYY-MM-DD hh:mm:ss wday yday" of a broken-down time, built by hand. */
static const char *
le_tm(const struct tm *tm)
{
	static char buf[64];

	if (!tm)
		return "(null)";
	snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d w%d y%d",
	    tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday, tm->tm_hour,
	    tm->tm_min, tm->tm_sec, tm->tm_wday, tm->tm_yday);
	return buf;
}

/* Every field the same (memcmp would compare the padding too). */
static int
le_same_tm(const struct tm *a, const struct tm *b)
{
	return a->tm_sec == b->tm_sec && a->tm_min == b->tm_min &&
	    a->tm_hour == b->tm_hour && a->tm_mday == b->tm_mday &&
	    a->tm_mon == b->tm_mon && a->tm_year == b->tm_year &&
	    a->tm_wday == b->tm_wday && a->tm_yday == b->tm_yday &&
	    a->tm_isdst == b->tm_isdst && a->tm_gmtoff == b->tm_gmtoff &&
	    a->tm_zone == b->tm_zone;
}

static void
le_time_calendar(void)
{
	static const struct {
		time_t t;
		const char *want;
	} dates[] = {
		{ 0, "1970-01-01 00:00:00 w4 y0" },
		{ 1700000000, "2023-11-14 22:13:20 w2 y317" },
		{ -1, "1969-12-31 23:59:59 w3 y364" },
		{ 951782400, "2000-02-29 00:00:00 w2 y59" },
		{ -2208988800LL, "1900-01-01 00:00:00 w1 y0" },
		/* past 2038 (a 32-bit time_t), and 2100 is no leap year */
		{ 4102444800LL, "2100-01-01 00:00:00 w5 y0" },
		{ 253402300799LL, "9999-12-31 23:59:59 w5 y364" },
	};
	char what[64];
	struct tm tm, *p;

	for (unsigned i = 0; i < sizeof(dates) / sizeof(dates[0]); i++) {
		time_t t = LE_HIDE(dates[i].t);

		snprintf(what, sizeof(what), "gmtime(%lld)", (long long)t);
		le_str(what, le_tm(gmtime(&t)), dates[i].want);
		snprintf(what, sizeof(what), "mktime(gmtime(%lld))",
		    (long long)t);
		p = gmtime_r(&t, &tm);
		le_int(what, p == &tm ? mktime(&tm) : -2, t);
	}

	/* Local time is UTC. */
	{
		time_t t = LE_HIDE((time_t)1700000000);
		struct tm g;

		gmtime_r(&t, &g);
		p = localtime_r(&t, &tm);
		LE_CHECK(p == &tm && le_same_tm(&g, &tm));
		LE_CHECK(le_same_tm(localtime(&t), &g));
		LE_CHECK(g.tm_isdst == 0 && g.tm_gmtoff == 0 && g.tm_zone &&
		    memcmp(g.tm_zone, "UTC", 4) == 0);
		/* gmtime's buffer is the same every call */
		LE_CHECK(gmtime(&t) == gmtime(&t));
	}

	/* mktime normalises: Feb 29 2023 is Mar 1, day 0 is the month's eve,
	 * 25:61:-1 carries, month 13 is next February; wday and yday ignored
	 * on input and set on output. */
	{
		struct tm in;

		memset(&in, 0, sizeof(in));
		in.tm_year = 123, in.tm_mon = 1, in.tm_mday = 29;
		in.tm_wday = 6, in.tm_yday = 300;
		le_int("mktime(2023-02-29)", mktime(&in), 1677628800);
		le_str("2023-02-29 normalised", le_tm(&in),
		    "2023-03-01 00:00:00 w3 y59");
		memset(&in, 0, sizeof(in));
		in.tm_year = 124, in.tm_mon = 2, in.tm_mday = 0;
		in.tm_hour = 25, in.tm_min = 61, in.tm_sec = -1;
		mktime(&in);
		le_str("2024-03-00 25:61:-1 normalised", le_tm(&in),
		    "2024-03-01 02:00:59 w5 y60");
		memset(&in, 0, sizeof(in));
		in.tm_year = 99, in.tm_mon = 13, in.tm_mday = 1;
		le_int("mktime(1999-14-01)", mktime(&in), 949363200);
		le_str("1999-14-01 normalised", le_tm(&in),
		    "2000-02-01 00:00:00 w2 y31");
		memset(&in, 0, sizeof(in));
		in.tm_year = 70, in.tm_mday = 1, in.tm_sec = -86400 * 365;
		le_int("timegm(1970-01-01 - 365 days)", timegm(&in), -31536000);
		le_str("1969-01-01 normalised", le_tm(&in),
		    "1969-01-01 00:00:00 w3 y0");
	}

	/* A year past tm_year's range fails, as it must. */
	{
		time_t huge = LE_HIDE((time_t)INT64_MAX);

		errno = 0;
		LE_CHECK(gmtime(&huge) == NULL && errno == EOVERFLOW);
	}

	le_near("difftime", difftime(LE_HIDE((time_t)1700000000), 1600000000),
	    1e8, 0);
	le_near("difftime negative", difftime(LE_HIDE((time_t)0), 1), -1, 0);
	le_near("difftime of the extremes",
	    difftime(LE_HIDE((time_t)INT64_MAX), INT64_MIN), 0x1p64, 0);
}

static void
le_time_format(void)
{
	time_t t = LE_HIDE((time_t)1700000000);
	struct tm tm;
	char buf[128], small[8];
	size_t n;

	gmtime_r(&t, &tm);
	n = strftime(buf, sizeof(buf),
	    "%Y-%m-%d %H:%M:%S %a %A %b %B %j %u %w %Z %z %s %%", &tm);
	le_str("strftime", buf, "2023-11-14 22:13:20 Tue Tuesday Nov November "
	    "318 2 2 UTC +0000 1700000000 %");
	le_int("strftime length", n, strlen(buf));
	strftime(buf, sizeof(buf), "%c|%x|%X|%D|%T|%p|%I|%e|%y|%C|%G-W%V", &tm);
	le_str("strftime C locale", buf, "Tue Nov 14 22:13:20 2023|11/14/23|"
	    "22:13:20|11/14/23|22:13:20|PM|10|14|23|20|2023-W46");
	le_int("strftime too small", strftime(small, sizeof(small), "%Y-%m-%d",
	    &tm), 0);
	/* %s is the UTC time whatever the host's zone */
	t = LE_HIDE((time_t)-86400);
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%s %F", &tm);
	le_str("strftime %s before 1970", buf, "-86400 1969-12-31");
	/* past 2038 */
	t = LE_HIDE((time_t)4102444800LL);
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%s %F %a", &tm);
	le_str("strftime past 2038", buf, "4102444800 2100-01-01 Fri");

	t = LE_HIDE((time_t)1700000000);
	le_str("asctime", asctime(gmtime(&t)), "Tue Nov 14 22:13:20 2023\n");
	le_str("ctime", ctime(&t), "Tue Nov 14 22:13:20 2023\n");
	LE_CHECK(ctime_r(&t, buf) == buf &&
	    memcmp(buf, "Tue Nov 14 22:13:20 2023\n", 26) == 0);
	gmtime_r(&t, &tm);
	LE_CHECK(asctime_r(&tm, buf) == buf && strlen(buf) == 25);
}

/* Burn processor time until clock() has moved (a second of wall time at
 * most). */
static void
le_burn(clock_t from)
{
	uint64_t until = nanouptime() + 1000000000ULL;
	volatile unsigned x = 1;

	while (clock() == from && nanouptime() < until)
		for (int i = 0; i < 100000; i++)
			x = x * 1664525u + 1013904223u;
}

static long long
le_ns(const struct timespec *ts)
{
	return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static void
le_time_clocks(void)
{
	struct timespec ts, mono0, mono1, cpu0, cpu1, res;
	time_t now, stored = 0;
	uint64_t up0, up1;
	clock_t c0, c1;

	/* The wall clock: after this test was written, and time(),
	 * timespec_get and CLOCK_REALTIME agree. */
	now = time(&stored);
	LE_CHECK(now > 1700000000 && stored == now);
	le_int("timespec_get(TIME_UTC)", timespec_get(&ts, TIME_UTC), TIME_UTC);
	LE_CHECK(ts.tv_sec >= now && ts.tv_sec - now <= 2 &&
	    ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000);
	le_int("timespec_get(0)", timespec_get(&ts, 0), 0);
	le_int("clock_gettime(CLOCK_REALTIME)",
	    clock_gettime(CLOCK_REALTIME, &ts), 0);
	LE_CHECK(ts.tv_sec >= now && ts.tv_sec - now <= 2);

	/* CLOCK_MONOTONIC is the kernel's uptime, between two nanouptime(). */
	up0 = nanouptime();
	clock_gettime(CLOCK_MONOTONIC, &mono0);
	up1 = nanouptime();
	LE_CHECK(le_ns(&mono0) >= (long long)up0 &&
	    le_ns(&mono0) <= (long long)up1);
	clock_gettime(CLOCK_MONOTONIC, &mono1);
	LE_CHECK(le_ns(&mono1) >= le_ns(&mono0));
	LE_CHECK(clock_getres(CLOCK_MONOTONIC, &res) == 0 &&
	    le_ns(&res) > 0 && le_ns(&res) <= 1000000);

	/* clock() and the CPU-time clocks advance with processor time. */
	c0 = clock();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
	LE_CHECK(c0 > 0);
	le_burn(c0);
	c1 = clock();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
	LE_CHECK(c1 > c0);
	LE_CHECK(le_ns(&cpu1) > le_ns(&cpu0));
	LE_CHECK(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 &&
	    le_ns(&ts) >= le_ns(&cpu1));

	errno = 0;
	LE_CHECK(clock_gettime(99, &ts) == -1 && errno == EINVAL);
	errno = 0;
	LE_CHECK(clock_getres(-5, &res) == -1 && errno == EINVAL);
}

void
le_time(void)
{
	le_time_calendar();
	le_time_format();
	le_time_clocks();
}
