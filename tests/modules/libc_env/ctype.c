/*
 * <ctype.h>: every class over every unsigned char value and EOF, against
 * the C locale's members written out here; values outside unsigned char
 * answer 0 (and the case mappings give them back unchanged).
 */
#include <ctype.h>
#include <limits.h>
#include <string.h>

#include <sys/systm.h>

#include "libc_env.h"

#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define DIGIT "0123456789"
#define PUNCT "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

static int
member(const char *set, int c)
{
	return c > 0 && c < 128 && strchr(set, c) != NULL;
}

void
le_ctype(void)
{
	static const struct {
		const char *name;
		int (*fn)(int);
		int count;
	} classes[] = {
		{ "isalnum", isalnum, 62 }, { "isalpha", isalpha, 52 },
		{ "isblank", isblank, 2 }, { "iscntrl", iscntrl, 33 },
		{ "isdigit", isdigit, 10 }, { "isgraph", isgraph, 94 },
		{ "islower", islower, 26 }, { "isprint", isprint, 95 },
		{ "ispunct", ispunct, 32 }, { "isspace", isspace, 6 },
		{ "isupper", isupper, 26 }, { "isxdigit", isxdigit, 22 },
		{ "isascii", isascii, 128 },
	};
	static const int outside[] = { -129, -2, 256, 1000, INT_MIN, INT_MAX };
	int wrong = 0, wrongmap = 0;

	for (unsigned k = 0; k < sizeof(classes) / sizeof(classes[0]); k++) {
		int count = 0, bad = 0;

		for (int c = -1; c <= 255; c++) {
			int want, got = classes[k].fn(LE_HIDE(c)) != 0;

			switch (k) {
			case 0: want = member(UPPER LOWER DIGIT, c); break;
			case 1: want = member(UPPER LOWER, c); break;
			case 2: want = c == ' ' || c == '\t'; break;
			case 3: want = (c >= 0 && c < 32) || c == 127; break;
			case 4: want = member(DIGIT, c); break;
			case 5: want = member(UPPER LOWER DIGIT PUNCT, c); break;
			case 6: want = member(LOWER, c); break;
			case 7: want = c == ' ' || member(UPPER LOWER DIGIT PUNCT, c); break;
			case 8: want = member(PUNCT, c); break;
			case 9: want = member(" \t\n\v\f\r", c); break;
			case 10: want = member(UPPER, c); break;
			case 11: want = member(DIGIT "abcdefABCDEF", c); break;
			default: want = c >= 0 && c < 128; break;
			}
			count += got;
			if (got != want && bad++ == 0)
				printf("%s: ctype: %s(%d) is %d, want %d\n", LE_LABEL,
				    classes[k].name, c, got, want);
		}
		for (unsigned i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
			if (classes[k].fn(LE_HIDE(outside[i])) != 0 && bad++ == 0)
				printf("%s: ctype: %s(%d) is not 0\n", LE_LABEL,
				    classes[k].name, outside[i]);
		le_ok(bad == 0, classes[k].name, 0, 0);
		le_int(classes[k].name, count, classes[k].count);
		wrong += bad;
	}

	for (int c = -1; c <= 255; c++) {
		int up = member(LOWER, c) ? c - 32 : c;
		int down = member(UPPER, c) ? c + 32 : c;

		if (toupper(LE_HIDE(c)) != up || tolower(LE_HIDE(c)) != down)
			wrongmap++;
		if (toascii(LE_HIDE(c)) != (c & 0x7f))
			wrongmap++;
	}
	for (unsigned i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
		if (toupper(LE_HIDE(outside[i])) != outside[i] ||
		    tolower(LE_HIDE(outside[i])) != outside[i])
			wrongmap++;
	le_int("toupper/tolower/toascii mismatches", wrongmap, 0);
	le_int("toupper('q')", toupper(LE_HIDE('q')), 'Q');
	le_int("tolower('Q')", tolower(LE_HIDE('Q')), 'q');
	le_int("toascii(0xc1)", toascii(LE_HIDE(0xc1)), 0x41);
	(void)wrong;
}
