/*
 * sclib_<tag>: the library module each self-checking variant depends on,
 * built in the same compile mode.  The variant calls its functions, reads
 * and writes its data and compares function addresses taken on both sides,
 * so every cross-module relocation form the mode produces is exercised.
 */
#include <sys/kernel.h>

#include "selfcheck.h"

int SCLIB(table)[8] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77 };
int SCLIB(counter);
const char SCLIB(name)[] = "sclib";

int
SCLIB(add)(int a, int b)
{
	return a + b;
}

static int
sclib_sub(int a, int b)
{
	return a - b;
}

static int
sclib_mul(int a, int b)
{
	return a * b;
}

int (*const SCLIB(ops)[3])(int, int) = { SCLIB(add), sclib_sub, sclib_mul };

int
SCLIB(apply)(int (*fn)(int), int x)
{
	SCLIB(counter)++;
	return fn(x) + 1;
}

void *
SCLIB(add_address)(void)
{
	return (void *)SCLIB(add);
}

const void *
SCLIB(table_address)(void)
{
	return SCLIB(table);
}

int
SCLIB(get_counter)(void)
{
	return SCLIB(counter);
}

static int
sclib_modevent(module_t mod, int what, void *arg)
{
	return 0;
}

#define SC_DECLARE(n, h) DECLARE_MODULE(n, h)
#define SC_VERSION(n, v) MODULE_VERSION(n, v)
SC_DECLARE(SC_LIB, sclib_modevent);
SC_VERSION(SC_LIB, 1);
MODULE_DESCRIPTION("Library of a relocation self-check variant");
MODULE_LICENSE("BSD-2-Clause");
