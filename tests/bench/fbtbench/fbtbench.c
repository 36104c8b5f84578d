/*
 * fbtbench: the functions `make bench` times fbt on (fbt_bench.cpp).
 * fbtbench_traced and fbtbench_plain are the same empty function, the
 * first with an entry site (the module is built FBT=fentry), the second
 * without (no_instrument_function); each loop calls one of them and is
 * itself without an entry site.  Each returns a value that depends on
 * every call, so the compiler keeps the calls.  Every function starts a
 * cache line of its own, so that the two loops differ in the entry site
 * alone, not in where their code falls (16 bytes apart, the disabled
 * site measured one cycle more in most runs; aligned alike, none).
 */
#include <sys/kernel.h>

typedef unsigned long ul;

#define NOTRACE __attribute__((noinline, no_instrument_function, aligned(64)))

__attribute__((noinline, aligned(64))) ul
fbtbench_traced(ul x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

NOTRACE ul
fbtbench_plain(ul x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

NOTRACE ul
fbtbench_loop_traced(ul n)
{
	ul sum = 0, i;

	for (i = 0; i < n; i++)
		sum += fbtbench_traced(i);
	return sum;
}

NOTRACE ul
fbtbench_loop_plain(ul n)
{
	ul sum = 0, i;

	for (i = 0; i < n; i++)
		sum += fbtbench_plain(i);
	return sum;
}

DECLARE_MODULE(fbtbench, NULL);
MODULE_DESCRIPTION("An empty function with and without an entry site, for make bench");
MODULE_LICENSE("BSD-2-Clause");
