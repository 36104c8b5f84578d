/*
 * <string.h> and <strings.h>: every function, with known answers, through
 * direct calls (pointers in LE_HIDE so nothing is folded at compile time).
 */
#include <string.h>
#include <strings.h>
#include <stdlib.h>

#include <sys/errno.h>
#include <sys/systm.h>

#include "libc_env.h"

void
le_string(void)
{
	char buf[64], buf2[64];
	const char *hello = LE_HIDE("hello, world");
	char *p, *save;
	size_t n;

	/* memory */
	memset(buf, 'x', sizeof(buf));
	le_int("memset", buf[0] == 'x' && buf[63] == 'x', 1);
	le_str("memcpy", (char *)memcpy(buf, hello, 13), "hello, world");
	memmove(buf + 2, buf, 13);
	le_str("memmove overlapping", buf + 2, "hello, world");
	le_int("memcmp <", memcmp("abc", LE_HIDE("abd"), 3) < 0, 1);
	le_int("memcmp =", memcmp(hello, "hello", 5), 0);
	le_int("memchr", (char *)memchr(hello, 'o', 12) - hello, 4);
	le_int("memrchr", (char *)memrchr(hello, 'o', 12) - hello, 8);
	LE_CHECK(memchr(hello, 'z', 12) == NULL);
	memset(buf, 0, sizeof(buf));
	p = memccpy(buf, hello, ',', 12);
	le_int("memccpy stops after ','", p - buf, 6);
	le_str("memccpy copied", buf, "hello,");
	p = mempcpy(buf, "abc", 3);
	le_int("mempcpy returns the end", p - buf, 3);
	le_int("memmem", (char *)memmem(hello, 12, "wor", 3) - hello, 7);
	LE_CHECK(memmem(hello, 12, "worlds", 6) == NULL);

	/* lengths and copies */
	le_int("strlen", strlen(hello), 12);
	le_int("strnlen short", strnlen(hello, 5), 5);
	le_int("strnlen long", strnlen(hello, 100), 12);
	le_str("strcpy", strcpy(buf, hello), "hello, world");
	memset(buf, 'x', sizeof(buf));
	strncpy(buf, "ab", 5);
	le_int("strncpy pads with NULs", buf[2] == 0 && buf[4] == 0 && buf[5] == 'x', 1);
	p = stpcpy(buf, "abc");
	le_int("stpcpy returns the NUL", p - buf, 3);
	p = stpncpy(buf, LE_HIDE("abcdef"), 4);
	le_int("stpncpy returns the end", p - buf, 4);
	strcpy(buf, "foo");
	le_str("strcat", strcat(buf, "bar"), "foobar");
	le_str("strncat", strncat(buf, LE_HIDE("bazqux"), 3), "foobarbaz");
	le_int("strlcpy returns the source length", strlcpy(buf2, hello, 6), 12);
	le_str("strlcpy truncates", buf2, "hello");
	le_int("strlcat", strlcat(buf2, "!!", sizeof(buf2)), 7);
	le_str("strlcat result", buf2, "hello!!");

	/* comparisons */
	le_int("strcmp =", strcmp(hello, "hello, world"), 0);
	le_int("strcmp <", strcmp("apple", LE_HIDE("banana")) < 0, 1);
	le_int("strcmp unsigned chars", strcmp("\xff", LE_HIDE("a")) > 0, 1);
	le_int("strncmp", strncmp("hello", LE_HIDE("help"), 3), 0);
	le_int("strcoll is strcmp", strcoll("a", LE_HIDE("b")) < 0 &&
	    strcoll("B", LE_HIDE("a")) < 0, 1);
	n = strxfrm(buf, "xyz", sizeof(buf));
	le_int("strxfrm length", n, 3);
	le_str("strxfrm copies in the C locale", buf, "xyz");
	le_int("strcasecmp", strcasecmp("HeLLo", LE_HIDE("hello")), 0);
	le_int("strcasecmp <", strcasecmp("abc", LE_HIDE("ABD")) < 0, 1);
	le_int("strncasecmp", strncasecmp("HELP", LE_HIDE("help me"), 4), 0);
	le_int("bcmp", bcmp("abc", LE_HIDE("abc"), 3) == 0 &&
	    bcmp("abc", LE_HIDE("abd"), 3) != 0, 1);

	/* searching */
	le_int("strchr", strchr(hello, 'o') - hello, 4);
	le_int("strchr NUL", strchr(hello, 0) - hello, 12);
	le_int("strrchr", strrchr(hello, 'o') - hello, 8);
	le_int("strchrnul", strchrnul(hello, 'z') - hello, 12);
	le_int("strspn", strspn("aabbcx", LE_HIDE("abc")), 5);
	le_int("strcspn", strcspn("hello, world", LE_HIDE(",!")), 5);
	le_int("strpbrk", strpbrk(hello, LE_HIDE("wd")) - hello, 7);
	le_int("strstr", strstr(hello, LE_HIDE("world")) - hello, 7);
	LE_CHECK(strstr(hello, LE_HIDE("word")) == NULL);
	le_int("strcasestr", strcasestr(hello, LE_HIDE("WORLD")) - hello, 7);

	/* tokens */
	strcpy(buf, "a,b;;c");
	le_str("strtok 1", strtok(buf, ",;"), "a");
	le_str("strtok 2", strtok(NULL, ",;"), "b");
	le_str("strtok 3", strtok(NULL, ",;"), "c");
	LE_CHECK(strtok(NULL, ",;") == NULL);
	strcpy(buf, "k=v&x=y");
	le_str("strtok_r 1", strtok_r(buf, "&", &save), "k=v");
	le_str("strtok_r 2", strtok_r(NULL, "&", &save), "x=y");
	strcpy(buf, "a,,b");
	p = buf;
	le_str("strsep 1", strsep(&p, ","), "a");
	le_str("strsep empty field", strsep(&p, ","), "");
	le_str("strsep 3", strsep(&p, ","), "b");
	LE_CHECK(p == NULL);

	/* allocation: charged to this module, freed again */
	p = strdup(hello);
	le_str("strdup", p, "hello, world");
	free(p);
	p = strndup(hello, 5);
	le_str("strndup", p, "hello");
	free(p);
	p = strndup(LE_HIDE("ab"), 10);
	le_str("strndup short", p, "ab");
	free(p);

	/* errors: the kernel's numbers are Linux's, so libc's words */
	le_str("strerror(ENOENT)", strerror(ENOENT), "No such file or directory");
	le_str("strerror(ERANGE)", strerror(ERANGE), "Numerical result out of range");
	le_str("strerror(EDOM)", strerror(EDOM), "Numerical argument out of domain");

	/* the BSD ones */
	memset(buf, 'x', 8);
	bzero(buf, 4);
	le_int("bzero", buf[3] == 0 && buf[4] == 'x', 1);
	memset(buf, 'y', 8);
	explicit_bzero(buf + 4, 4);
	le_int("explicit_bzero", buf[3] == 'y' && buf[7] == 0, 1);
	strcpy(buf, "abcdef");
	bcopy(buf, buf + 1, 6);
	le_str("bcopy overlapping", buf + 1, "abcdef");
	le_int("ffs", ffs(LE_HIDE(0x50)), 5);
	le_int("ffs(0)", ffs(LE_HIDE(0)), 0);
	le_int("ffsl", ffsl(LE_HIDE(1L << 20)), 21);
	le_int("ffsll", ffsll(LE_HIDE(1LL << 40)), 41);
}
