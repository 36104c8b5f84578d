/* D's string functions (see dlib.h for the calling convention). */
#include "dlib.h"

DT_FN u64
dt_strlen(const char *s)
{
	u64 c = (u8)s[0];
	u64 n;

	if (c == 0)
		return 0;
	/*
	 * n = 0, in a form the verifier does not follow (a byte loaded, and
	 * 0x100: zero for any byte): it then checks no read below against
	 * the region s points into at load time, where a short string near
	 * the region's end would be refused, but each when it runs, as it
	 * does s[n] in a plain loop after the first turn.  The barriers keep
	 * clang from folding it back to 0 or from specialising the code that
	 * follows on its value.
	 */
	__asm__ volatile("" : "+r"(c));
	n = c & 0x100;
	__asm__ volatile("" : "+r"(n));
	/* Eight bytes per turn: the engines count one backward jump (the
	 * loop budget) per eight bytes.  No byte past the NUL is read. */
	while (n < DT_STRSIZE - 8) {
		const char *p = s + n;

		if (p[0] == '\0')
			return n;
		if (p[1] == '\0')
			return n + 1;
		if (p[2] == '\0')
			return n + 2;
		if (p[3] == '\0')
			return n + 3;
		if (p[4] == '\0')
			return n + 4;
		if (p[5] == '\0')
			return n + 5;
		if (p[6] == '\0')
			return n + 6;
		if (p[7] == '\0')
			return n + 7;
		n += 8;
	}
#pragma clang loop unroll(disable)
	while (n < DT_STRSIZE - 1 && s[n] != '\0')
		n++;
	return n;
}

/* D's string comparison: <0, 0 or >0 as a sorts before, with or after b
 * (bytes compared unsigned, at most DT_STRSIZE - 1 of them). */
DT_FN s64
dt_strcmp(const char *a, const char *b)
{
	u64 n = 0;

	while (n < DT_STRSIZE - 1) {
		u8 x = (u8)a[n], y = (u8)b[n];

		if (x != y)
			return (s64)x - (s64)y;
		if (x == '\0')
			break;
		n++;
	}
	return 0;
}

/* Copies at most `room` - 1 bytes of s to d; returns how many. */
static inline u64
copy_bounded(char *d, const char *s, u64 room)
{
	u64 n = 0;

	while (n + 1 < room && n < DT_STRSIZE - 1 && s[n] != '\0') {
		d[n] = s[n];
		n++;
	}
	return n;
}

DT_FN char *
dt_strjoin(char *dst, const char *a, const char *b)
{
	u64 n = copy_bounded(dst, a, DT_STRSIZE);

	if (n < DT_STRSIZE - 1)
		n += copy_bounded(dst + n, b, DT_STRSIZE - n);
	dst[n & (DT_STRSIZE - 1)] = '\0';
	return dst;
}

/*
 * substr(s, index, len): a negative index counts from the end; a negative
 * len leaves that many bytes off the end; len < 0 with nothing left, or an
 * index past the end, gives "".
 */
DT_FN char *
dt_substr(char *dst, const char *s, s64 index, s64 len)
{
	s64 slen = (s64)dt_strlen(s);
	s64 start = index < 0 ? slen + index : index;
	s64 end;

	if (start < 0) {
		if (len > 0)
			len += start;
		start = 0;
	}
	end = len < 0 ? slen + len : start + len;
	if (end > slen)
		end = slen;
	s64 n = 0;
	while (start + n < end && n < DT_STRSIZE - 1) {
		dst[n] = s[start + n];
		n++;
	}
	dst[n & (DT_STRSIZE - 1)] = '\0';
	return dst;
}

DT_FN char *
dt_strchr(const char *s, u64 c)
{
	for (u64 i = 0; i < DT_STRSIZE; i++) {
		if (s[i] == (char)c)
			return (char *)s + i;
		if (s[i] == '\0')
			break;
	}
	return 0;
}

DT_FN char *
dt_strrchr(const char *s, u64 c)
{
	char *found = 0;

	for (u64 i = 0; i < DT_STRSIZE; i++) {
		if (s[i] == (char)c)
			found = (char *)s + i;
		if (s[i] == '\0')
			break;
	}
	return found;
}

/* index(s, sub, start): where sub first occurs in s at or after start. */
DT_FN s64
dt_index(const char *s, const char *sub, s64 start)
{
	s64 slen = (s64)dt_strlen(s);
	s64 sublen = (s64)dt_strlen(sub);

	if (start < 0)
		start = 0;
	for (s64 i = start; i + sublen <= slen && i < DT_STRSIZE; i++) {
		s64 j = 0;

		while (j < sublen && s[i + j] == sub[j])
			j++;
		if (j == sublen)
			return i;
	}
	return -1;
}

DT_FN char *
dt_strstr(const char *s, const char *sub)
{
	s64 i = dt_index(s, sub, 0);

	return i < 0 ? 0 : (char *)s + i;
}

/* basename("/usr/lib/") is "lib", basename("/") is "/", of "" is ".". */
DT_FN char *
dt_basename(char *dst, const char *s)
{
	s64 end = (s64)dt_strlen(s);
	s64 start;
	s64 n = 0;

	while (end > 1 && s[end - 1] == '/')
		end--;
	if (end == 0) {
		dst[0] = '.';
		dst[1] = '\0';
		return dst;
	}
	start = end;
	while (start > 0 && s[start - 1] != '/')
		start--;
	if (start == end) /* the string is "/" */
		start = end - 1;
	while (start + n < end && n < DT_STRSIZE - 1) {
		dst[n] = s[start + n];
		n++;
	}
	dst[n & (DT_STRSIZE - 1)] = '\0';
	return dst;
}

/* dirname("/usr/lib/") is "/usr", of "lib" is ".", of "/usr" is "/". */
DT_FN char *
dt_dirname(char *dst, const char *s)
{
	s64 end = (s64)dt_strlen(s);
	s64 n = 0;

	while (end > 1 && s[end - 1] == '/')
		end--;
	while (end > 0 && s[end - 1] != '/')
		end--;
	if (end == 0) {
		dst[0] = '.';
		dst[1] = '\0';
		return dst;
	}
	while (end > 1 && s[end - 1] == '/')
		end--;
	while (n < end && n < DT_STRSIZE - 1) {
		dst[n] = s[n];
		n++;
	}
	dst[n & (DT_STRSIZE - 1)] = '\0';
	return dst;
}

DT_FN char *
dt_lltostr(char *dst, s64 v)
{
	char digits[24];
	u64 u = v < 0 ? -(u64)v : (u64)v;
	int n = 0, k = 0;

	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0 && n < 20);
	if (v < 0)
		dst[k++] = '-';
	while (n > 0 && k < 22)
		dst[k++] = digits[--n];
	dst[k] = '\0';
	return dst;
}

static inline char *
map_case(char *dst, const char *s, char from, char to)
{
	u64 n = 0;

	while (n < DT_STRSIZE - 1 && s[n] != '\0') {
		char c = s[n];

		if (c >= from && c <= from + 25)
			c = (char)(c - from + to);
		dst[n] = c;
		n++;
	}
	dst[n] = '\0';
	return dst;
}

DT_FN char *
dt_toupper(char *dst, const char *s)
{
	return map_case(dst, s, 'a', 'A');
}

DT_FN char *
dt_tolower(char *dst, const char *s)
{
	return map_case(dst, s, 'A', 'a');
}
