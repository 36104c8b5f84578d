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

/* A store to a this-> string: s copied into the variable's own buffer. */
DT_FN char *
dt_strcpy(char *dst, const char *s)
{
	u64 n = copy_bounded(dst, s, DT_STRSIZE);

	dst[n & (DT_STRSIZE - 1)] = '\0';
	return dst;
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
 * substr(s, index, len), by DTrace's rules: a negative index counts from
 * the end, and a window that starts before the string keeps only its
 * part inside; an index outside the string gives ""; a negative len
 * leaves that many bytes off the end.  Without len the caller passes a
 * length beyond any string.
 */
DT_FN char *
dt_substr(char *dst, const char *s, s64 index, s64 len)
{
	s64 slen = (s64)dt_strlen(s);
	s64 n = 0;

	if (index < 0) {
		index += slen;
		if (index < 0 && index + len > 0) {
			len += index;
			index = 0;
		}
	}
	/* An index past any string gives "" at once: tested against a
	 * constant, so that the verifier, which cannot compare it with slen,
	 * knows it in bounds below (substr(s, 12345678) was refused). */
	if (index < 0 || index >= DT_STRSIZE) {
		dst[0] = '\0';
		return dst;
	}
	if (index >= slen)
		len = 0;
	else if (len < 0)
		len += slen - index;
	/* Never past the end: a source longer than DT_STRSIZE - 1 has no NUL
	 * where the string ends. */
	if (len > slen - index)
		len = slen - index;
	while (n < len && n < DT_STRSIZE - 1) {
		dst[n] = s[index + n];
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

/* Whether sub (sublen bytes, no NUL among them) occurs at s + i; a NUL
 * of s stops the comparison, so nothing past s's end is read. */
static inline int
occurs_at(const char *s, const char *sub, s64 i, s64 sublen)
{
	s64 j = 0;

	while (j < sublen && j < DT_STRSIZE && s[i + j] == sub[j])
		j++;
	return j == sublen;
}

/*
 * index(s, sub, pos): where sub first occurs in s at or after pos, or -1.
 * As DTrace (after Perl): a negative pos counts as 0, and at or past the
 * end only "" is found, at the end; "" in "" is at 0.
 */
DT_FN s64
dt_index(const char *s, const char *sub, s64 pos)
{
	s64 slen = (s64)dt_strlen(s);
	s64 sublen = (s64)dt_strlen(sub);

	if (slen == 0 && sublen == 0)
		return 0;
	if (pos < 0)
		pos = 0;
	if (pos >= slen)
		return sublen == 0 ? slen : -1;
	for (s64 i = pos; i < slen && i < DT_STRSIZE; i++)
		if (occurs_at(s, sub, i, sublen))
			return i;
	return -1;
}

/*
 * rindex(s, sub, pos): where sub last occurs in s at or before pos, or -1.
 * A pos past the end counts as the end; a negative one finds only "", at
 * 0.  Without pos the caller passes a position past any string.
 */
DT_FN s64
dt_rindex(const char *s, const char *sub, s64 pos)
{
	s64 slen = (s64)dt_strlen(s);
	s64 sublen = (s64)dt_strlen(sub);

	if (slen == 0 && sublen == 0)
		return 0;
	if (pos < 0)
		return sublen == 0 ? 0 : -1;
	if (pos > slen)
		pos = slen;
	for (s64 i = pos; i >= 0; i--)
		if (occurs_at(s, sub, i, sublen))
			return i;
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

/*
 * s[i]: the i-th character of a string, as a signed char; 0 for an index
 * outside it (DTrace reads no further than the string either).
 */
DT_FN s64
dt_strchar(const char *s, s64 i)
{
	s64 slen = (s64)dt_strlen(s);

	if (i < 0 || i >= slen)
		return 0;
	return (signed char)s[i];
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

static inline int
in_set(char c, const char *set)
{
	for (u64 i = 0; i < DT_STRSIZE && set[i] != '\0'; i++)
		if (set[i] == c)
			return 1;
	return 0;
}

/*
 * strtok(s, delim): the next token of s, or NULL after the last.  s is
 * copied into the lane's state with the position reached; strtok(NULL,
 * delim), where the clause passes the state itself for NULL, goes on from
 * there, in later clauses and firings too.
 */
DT_FN char *
dt_strtok(char *dst, const char *s, const char *delim, char *state)
{
	u64 *pos = (u64 *)(state + DT_STRSIZE);
	u64 i, n = 0;

	if (s != state) { /* not NULL (see the lowering of StrOrNull) */
		i = 0;
		while (i < DT_STRSIZE - 1 && s[i] != '\0') {
			state[i] = s[i];
			i++;
		}
		state[i] = '\0';
		*pos = 0;
	}
	i = *pos;
	while (i < DT_STRSIZE - 1 && state[i] != '\0' && in_set(state[i], delim))
		i++;
	if (i >= DT_STRSIZE - 1 || state[i] == '\0') {
		*pos = i;
		return 0;
	}
	while (i < DT_STRSIZE - 1 && state[i] != '\0' &&
	    !in_set(state[i], delim))
		dst[n++] = state[i++];
	dst[n & (DT_STRSIZE - 1)] = '\0';
	*pos = i;
	return dst;
}

/*
 * What a clause calls for the functions above that find nothing with
 * NULL: D reads that as "".  The result is copied to dst, so that it is a
 * pointer into the clause's scratch space on every path, which is what
 * lets the verifier follow the clause's use of it.
 */
static inline char *
copy_from(char *dst, const char *s, s64 at)
{
	u64 n = 0;

	if (at >= 0)
		while (n < DT_STRSIZE - 1 && s[at + n] != '\0') {
			dst[n] = s[at + n];
			n++;
		}
	dst[n] = '\0';
	return dst;
}

/* Where c first (last) occurs in s, or -1: the search as a number, since
 * a pointer-or-NULL result is beyond what the verifier follows. */
static inline s64
find_char(const char *s, u64 c, int last)
{
	s64 at = -1;

	for (u64 i = 0; i < DT_STRSIZE; i++) {
		if (s[i] == (char)c) {
			at = (s64)i;
			if (!last)
				break;
		}
		if (s[i] == '\0')
			break;
	}
	return at;
}

DT_FN char *
dt_strchr_d(char *dst, const char *s, u64 c)
{
	return copy_from(dst, s, find_char(s, c, 0));
}

DT_FN char *
dt_strrchr_d(char *dst, const char *s, u64 c)
{
	return copy_from(dst, s, find_char(s, c, 1));
}

DT_FN char *
dt_strstr_d(char *dst, const char *s, const char *sub)
{
	return copy_from(dst, s, dt_index(s, sub, 0));
}

DT_FN char *
dt_strtok_d(char *dst, const char *s, const char *delim, char *state)
{
	if (!dt_strtok(dst, s, delim, state))
		dst[0] = '\0';
	return dst;
}

/*
 * strtoll(s, base): leading blanks, a sign, then digits of the base (2 to
 * 36; 0 reads 0x as hexadecimal and a leading 0 as octal; a 0x prefix is
 * allowed in base 16), up to the first that is not one.  A bad base gives 0.
 */
DT_FN s64
dt_strtoll(const char *s, s64 base)
{
	u64 i = 0, v = 0;
	int neg = 0;

	while (i < DT_STRSIZE - 1 && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')))
		i++;
	if (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-';
		i++;
	}
	if ((base == 0 || base == 16) && s[i] == '0' &&
	    (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
	} else if (base == 0) {
		base = s[i] == '0' ? 8 : 10;
	}
	if (base < 2 || base > 36)
		return 0;
	for (; i < DT_STRSIZE - 1; i++) {
		char c = s[i];
		u64 d;

		if (c >= '0' && c <= '9')
			d = (u64)(c - '0');
		else if (c >= 'a' && c <= 'z')
			d = (u64)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'Z')
			d = (u64)(c - 'A' + 10);
		else
			break;
		if (d >= (u64)base)
			break;
		v = v * (u64)base + d;
	}
	return neg ? -(s64)v : (s64)v;
}

/* Byte order: the hosts are little-endian, so network order swaps. */
DT_FN u64
dt_bswap16(u64 v)
{
	return (v & 0xff) << 8 | (v >> 8 & 0xff);
}

DT_FN u64
dt_bswap32(u64 v)
{
	return (v & 0xff) << 24 | (v & 0xff00) << 8 | (v >> 8 & 0xff00) |
	    (v >> 24 & 0xff);
}

DT_FN u64
dt_bswap64(u64 v)
{
	return dt_bswap32(v >> 32) | dt_bswap32(v & 0xffffffff) << 32;
}

/* H_TIMESTAMP of the consumer's helpers (sdt/dtrace/bpfgen.h). */
static u64 (*const dt_timestamp)(void) = (void *)101;

/*
 * rand(): a pseudo-random int from a xorshift64* generator per lane, its
 * state (the word after strtok's string and position) seeded from the
 * clock on first use.
 */
DT_FN s64
dt_rand(char *state)
{
	u64 *x = (u64 *)(state + DT_STRSIZE + 8);
	u64 v = *x;

	if (v == 0)
		v = dt_timestamp() | 1;
	v ^= v >> 12;
	v ^= v << 25;
	v ^= v >> 27;
	*x = v;
	return (s64)(int)((v * 0x2545F4914F6CDD1DULL) >> 32);
}

/*
 * Network addresses.  The address's bytes come as the words D loaded from
 * memory (little-endian: its first byte is the word's lowest), so a
 * function here reads no memory but its destination.
 */

/* "a.b.c.d" from the four bytes of `v`, lowest first; returns the end. */
static inline char *
dotted_quad(char *p, u64 v)
{
	int i;

	for (i = 0; i < 4; i++) {
		u64 b = (v >> (8 * i)) & 0xff;

		if (i > 0)
			*p++ = '.';
		if (b >= 100)
			*p++ = (char)('0' + b / 100);
		if (b >= 10)
			*p++ = (char)('0' + b / 10 % 10);
		*p++ = (char)('0' + b % 10);
	}
	return p;
}

DT_FN char *
dt_inet_ntoa(char *dst, u64 addr)
{
	*dotted_quad(dst, addr) = '\0';
	return dst;
}

/*
 * An IPv6 address as inet_ntop(3) writes it: 16-bit groups in hex, the
 * first longest run of two or more zero groups as "::", and an
 * IPv4-compatible or -mapped address (::a.b.c.d, ::ffff:a.b.c.d) with its
 * last 32 bits as a dotted quad; with `strict` 0, such an address is the
 * dotted quad alone.
 */
DT_FN char *
dt_inet_ntoa6(char *dst, u64 lo, u64 hi, u64 strict)
{
	u64 w[8];
	int i, base = -1, len = 0, run = 0;
	char *p = dst;

	for (i = 0; i < 8; i++) {
		u64 half = i < 4 ? lo : hi;
		int k = (i % 4) * 16;

		w[i] = ((half >> k) & 0xff) << 8 | ((half >> (k + 8)) & 0xff);
	}
	for (i = 0; i < 8; i++) {
		run = w[i] == 0 ? run + 1 : 0;
		if (run > len) {
			len = run;
			base = i - run + 1;
		}
	}
	if (len < 2)
		base = -1;
	if (base == 0 && (len == 6 || (len == 5 && w[5] == 0xffff))) {
		if (strict) {
			*p++ = ':';
			*p++ = ':';
			if (len == 5) {
				for (i = 0; i < 4; i++)
					*p++ = 'f';
				*p++ = ':';
			}
		}
		*dotted_quad(p, hi >> 32) = '\0';
		return dst;
	}
	for (i = 0; i < 8; i++) {
		int d, started = 0;

		if (base >= 0 && i >= base && i < base + len) {
			if (i == base)
				*p++ = ':';
			continue;
		}
		if (i > 0)
			*p++ = ':';
		for (d = 12; d >= 0; d -= 4) {
			u64 x = (w[i] >> d) & 0xf;

			if (x == 0 && !started && d > 0)
				continue;
			started = 1;
			*p++ = (char)(x < 10 ? '0' + x : 'a' + x - 10);
		}
	}
	if (base >= 0 && base + len == 8)
		*p++ = ':';
	*p = '\0';
	return dst;
}
