// <time.h> for modules (kernel/include/time.h): the kernel's clocks and a
// calendar in UTC.
//
// The wall clock is the host's; the monotonic one is the kernel's uptime,
// as nanouptime() gives it; clock() is the processor time of the whole
// kernel.  The kernel has no time zones, so local time is UTC, and the
// calendar arithmetic is done here on 64-bit seconds: a module's time_t is
// 64 bits on both arches, whatever the host C library's is on i386.  Only
// strftime is the C library's (its C locale), given a struct tm of its own.
//
// The modules' struct tm has the C library's layout; their struct timespec
// is {int64 seconds, long nanoseconds}, 12 bytes on i386 (a 64-bit member
// aligns to 4 there).  Both are declared below under names of their own.
#define _FILE_OFFSET_BITS 64
#define _TIME_BITS 64 // the host's time_t too, for time() past 2038 on i386
#include "libkern_c.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

using mk::CLocaleScope;
using mk::fp_return;

namespace {

using ModTime = int64_t; // a module's time_t
using ModClock = long;   // a module's clock_t

struct ModTm {
  int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year, tm_wday, tm_yday,
      tm_isdst;
  long tm_gmtoff;
  const char *tm_zone;
};
static_assert(sizeof(ModTm) == sizeof(struct tm), "struct tm layout");

struct ModTimespec {
  ModTime tv_sec;
  long tv_nsec;
};
static_assert(sizeof(ModTimespec) == (sizeof(long) == 8 ? 16 : 12),
              "struct timespec layout");

// kernel/include/time.h
constexpr int kTimeUtc = 1;
constexpr int kClockRealtime = 0, kClockMonotonic = 1,
              kClockProcessCputime = 2, kClockThreadCputime = 3;
constexpr ModClock kClocksPerSec = 1000000;

const char kZone[] = "UTC";

// Floor division and its remainder, for dates before 1970.
int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }
int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

bool is_leap(int64_t y) { return floor_mod(y, 4) == 0 && (floor_mod(y, 100) != 0 || floor_mod(y, 400) == 0); }

// Days from 1970-01-01 to January 1 of year `y` of the proleptic Gregorian
// calendar.  L(y) counts the leap years before y from some fixed year on:
// L(y+1) - L(y) is 1 exactly when y is a leap year, for every integer y.
int64_t days_before_year(int64_t y) {
  auto L = [](int64_t v) {
    return floor_div(v - 1, 4) - floor_div(v - 1, 100) + floor_div(v - 1, 400);
  };
  return 365 * (y - 1970) + L(y) - L(1970);
}

// Days before the first of each month (0-11), in a common and a leap year.
constexpr int kMonthStart[2][13] = {
    {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365},
    {0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366}};

// Seconds since the epoch into a broken-down UTC time; false when the year
// does not fit tm_year.
bool to_tm(ModTime t, ModTm *tm) {
  int64_t days = floor_div(t, 86400), secs = floor_mod(t, 86400);
  // A first guess from the mean Gregorian year, then exact.
  int64_t y = 1970 + floor_div(days * 400, 146097);
  while (days_before_year(y) > days)
    y--;
  while (days_before_year(y + 1) <= days)
    y++;
  if (y - 1900 < INT32_MIN || y - 1900 > INT32_MAX)
    return false;
  int yday = (int)(days - days_before_year(y));
  const int *start = kMonthStart[is_leap(y)];
  int mon = 0;
  while (yday >= start[mon + 1])
    mon++;
  tm->tm_year = (int)(y - 1900);
  tm->tm_mon = mon;
  tm->tm_mday = yday - start[mon] + 1;
  tm->tm_yday = yday;
  tm->tm_wday = (int)floor_mod(days + 4, 7); // 1970-01-01 was a Thursday
  tm->tm_hour = (int)(secs / 3600);
  tm->tm_min = (int)(secs / 60 % 60);
  tm->tm_sec = (int)(secs % 60);
  tm->tm_isdst = 0;
  tm->tm_gmtoff = 0;
  tm->tm_zone = kZone;
  return true;
}

// A broken-down UTC time, its fields in any range (C17 7.27.2.3), into
// seconds since the epoch.  Every field is at most 2^31 in size, so none of
// this overflows 64 bits.
ModTime from_tm(const ModTm *tm) {
  int64_t mon = tm->tm_mon;
  int64_t y = (int64_t)tm->tm_year + 1900 + floor_div(mon, 12);
  mon = floor_mod(mon, 12);
  int64_t days = days_before_year(y) + kMonthStart[is_leap(y)][mon] + tm->tm_mday - 1;
  return days * 86400 + (int64_t)tm->tm_hour * 3600 + (int64_t)tm->tm_min * 60 + tm->tm_sec;
}

thread_local ModTm t_tm;           // gmtime's and localtime's result
thread_local char t_asctime[64];   // asctime's and ctime's

bool read_clock(clockid_t id, ModTimespec *ts) {
  timespec h;
  if (clock_gettime(id, &h) != 0)
    return false;
  ts->tv_sec = h.tv_sec;
  ts->tv_nsec = h.tv_nsec;
  return true;
}

// The host clock behind a module's clock id; -1 for none.
clockid_t host_clock(int id) {
  switch (id) {
  case kClockRealtime: return CLOCK_REALTIME;
  case kClockMonotonic: return CLOCK_MONOTONIC;
  case kClockProcessCputime: return CLOCK_PROCESS_CPUTIME_ID;
  case kClockThreadCputime: return CLOCK_THREAD_CPUTIME_ID;
  }
  return (clockid_t)-1;
}

} // namespace

extern "C" {

uint64_t kern_nanouptime(void); // libkern.cpp

// ---- clocks ------------------------------------------------------------------

ModTime kern_time(ModTime *t) {
  ModTimespec ts;
  ModTime now = read_clock(CLOCK_REALTIME, &ts) ? ts.tv_sec : -1;
  if (t)
    *t = now;
  return now;
}

ModClock kern_clock(void) {
  ModTimespec ts;
  if (!read_clock(CLOCK_PROCESS_CPUTIME_ID, &ts))
    return (ModClock)-1;
  // clock_t is a long: 32 bits on i386, where it wraps after 35 minutes of
  // processor time, as the C library's does.
  return (ModClock)(ts.tv_sec * kClocksPerSec + ts.tv_nsec / (1000000000 / kClocksPerSec));
}

int kern_timespec_get(ModTimespec *ts, int base) {
  if (base != kTimeUtc || !read_clock(CLOCK_REALTIME, ts))
    return 0;
  return base;
}

int kern_clock_gettime(int id, ModTimespec *ts) {
  if (id == kClockMonotonic) {
    // The kernel's uptime: the clock of nanouptime() and kern.uptime_ms.
    uint64_t ns = kern_nanouptime();
    ts->tv_sec = (ModTime)(ns / 1000000000);
    ts->tv_nsec = (long)(ns % 1000000000);
    return 0;
  }
  clockid_t h = host_clock(id);
  if (h == (clockid_t)-1) {
    errno = EINVAL;
    return -1;
  }
  return read_clock(h, ts) ? 0 : -1;
}

int kern_clock_getres(int id, ModTimespec *res) {
  clockid_t h = host_clock(id);
  timespec r;
  if (h == (clockid_t)-1 || clock_getres(h, &r) != 0) {
    errno = EINVAL;
    return -1;
  }
  if (res) {
    res->tv_sec = r.tv_sec;
    res->tv_nsec = r.tv_nsec;
  }
  return 0;
}

// Exact for any two 64-bit times: the x87's long double holds 64 bits, so
// the difference is rounded once, to double.
double kern_difftime(ModTime t1, ModTime t0) {
  return fp_return<double>((double)((long double)t1 - (long double)t0));
}

// ---- the calendar, in UTC ------------------------------------------------------

ModTm *kern_gmtime_r(const ModTime *t, ModTm *tm) {
  if (!to_tm(*t, tm)) {
    errno = EOVERFLOW;
    return nullptr;
  }
  return tm;
}
ModTm *kern_gmtime(const ModTime *t) { return kern_gmtime_r(t, &t_tm); }

// Normalises *tm as C asks of mktime: every field in range, tm_wday and
// tm_yday set.  -1 (errno EOVERFLOW) when the result's year does not fit.
ModTime kern_timegm(ModTm *tm) {
  ModTime t = from_tm(tm);
  ModTm out;
  if (!to_tm(t, &out)) {
    errno = EOVERFLOW;
    return -1;
  }
  *tm = out;
  return t;
}

// The C locale's format of C17 7.27.3.1, with room for any year.
char *kern_asctime_r(const ModTm *tm, char *buf) {
  static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char out[sizeof t_asctime];
  int n = snprintf(out, sizeof out, "%.3s %.3s%3d %.2d:%.2d:%.2d %lld\n",
                   (unsigned)tm->tm_wday < 7 ? days[tm->tm_wday] : "???",
                   (unsigned)tm->tm_mon < 12 ? months[tm->tm_mon] : "???",
                   tm->tm_mday, tm->tm_hour, tm->tm_min, tm->tm_sec,
                   (long long)tm->tm_year + 1900);
  // POSIX gives asctime_r a buffer of 26 bytes.
  if (n < 0 || n >= 26) {
    errno = EOVERFLOW;
    return nullptr;
  }
  memcpy(buf, out, (size_t)n + 1);
  return buf;
}
char *kern_asctime(const ModTm *tm) { return kern_asctime_r(tm, t_asctime); }

char *kern_ctime_r(const ModTime *t, char *buf) {
  ModTm tm;
  return kern_gmtime_r(t, &tm) ? kern_asctime_r(&tm, buf) : nullptr;
}
char *kern_ctime(const ModTime *t) { return kern_ctime_r(t, t_asctime); }

// The C library's strftime in the C locale, on a struct tm of its own
// whose zone is UTC.  %s, the seconds since the epoch, is done here: the C
// library would read the fields as the host's local time, into its time_t.
size_t kern_strftime(char *buf, size_t size, const char *fmt, const ModTm *mtm) {
  std::string f;
  for (const char *p = fmt; *p; p++) {
    if (p[0] == '%' && p[1] == 's') {
      f += std::to_string(from_tm(mtm));
      p++;
    } else if (p[0] == '%' && p[1]) {
      f += p[0];
      f += *++p;
    } else {
      f += *p;
    }
  }
  struct tm tm {};
  tm.tm_sec = mtm->tm_sec;
  tm.tm_min = mtm->tm_min;
  tm.tm_hour = mtm->tm_hour;
  tm.tm_mday = mtm->tm_mday;
  tm.tm_mon = mtm->tm_mon;
  tm.tm_year = mtm->tm_year;
  tm.tm_wday = mtm->tm_wday;
  tm.tm_yday = mtm->tm_yday;
  tm.tm_isdst = 0;
  tm.tm_gmtoff = 0;
  tm.tm_zone = kZone;
  return strftime_l(buf, size, f.c_str(), &tm, CLocaleScope::c_locale());
}

} // extern "C"

EXPORT_SYMBOL_AS("time", kern_time);
EXPORT_SYMBOL_AS("clock", kern_clock);
EXPORT_SYMBOL_AS("timespec_get", kern_timespec_get);
EXPORT_SYMBOL_AS("clock_gettime", kern_clock_gettime);
EXPORT_SYMBOL_AS("clock_getres", kern_clock_getres);
EXPORT_SYMBOL_AS("difftime", kern_difftime);
EXPORT_SYMBOL_AS("gmtime", kern_gmtime);
EXPORT_SYMBOL_AS("gmtime_r", kern_gmtime_r);
// No time zones: local time is UTC.
EXPORT_SYMBOL_AS("localtime", kern_gmtime);
EXPORT_SYMBOL_AS("localtime_r", kern_gmtime_r);
EXPORT_SYMBOL_AS("mktime", kern_timegm);
EXPORT_SYMBOL_AS("timegm", kern_timegm);
EXPORT_SYMBOL_AS("asctime", kern_asctime);
EXPORT_SYMBOL_AS("asctime_r", kern_asctime_r);
EXPORT_SYMBOL_AS("ctime", kern_ctime);
EXPORT_SYMBOL_AS("ctime_r", kern_ctime_r);
EXPORT_SYMBOL_AS("strftime", kern_strftime);
