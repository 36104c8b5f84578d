// The copy of comdat_twice() without an entry site (built without -pg).
#include "comdat.h"

int __attribute__((noinline)) via_untraced(int x)
{
	return comdat_twice(x) + 2;
}
