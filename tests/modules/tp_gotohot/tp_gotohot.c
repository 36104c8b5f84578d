/*
 * tp_gotohot: an asm-goto probe for the unit tests' handler tests (built
 * with SDT_STYLE=asmgoto, tests/modules/flags.mk).  tpgh_fire(w, seq)
 * fires gotohot:::hot(w, seq) from its block, which calls a lone module
 * handler itself (sys/sdt.h); the tests call it from their own threads
 * through the module's symbol (tests/unit/sdt_handlers.cpp).
 */
#include <sys/kernel.h>
#include <sys/sdt.h>

SDT_PROVIDER_DEFINE(gotohot);
SDT_PROBE_DEFINE2(gotohot, , , hot, "int", "long");

void __attribute__((noinline))
tpgh_fire(int w, uintptr_t seq)
{
	SDT_PROBE2(gotohot, , , hot, w, seq);
}

DECLARE_MODULE(tp_gotohot, NULL);
MODULE_DESCRIPTION("An asm-goto probe the handler tests fire");
MODULE_LICENSE("BSD-2-Clause");
