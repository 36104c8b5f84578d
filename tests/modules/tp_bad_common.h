/*
 * Hand-made asm-goto records for the tp_bad_* test modules, each of which
 * gets one field wrong (see the module's own comment).  A record is three
 * pointer-sized words {probe definition, patch point, target} in
 * set_sdt_tracepoint_set; the function tpbad_fn holds a good patch point
 * (label tpbad_pp, the 5-byte NOP) and its target (tpbad_target).
 */
#include <sys/kernel.h>
#include <sys/sdt.h>

#if defined(__x86_64__)
#define TPBAD_PTR ".quad "
#else
#define TPBAD_PTR ".long "
#endif

SDT_PROVIDER_DEFINE(tpbad);
SDT_PROBE_DEFINE0(tpbad, , , probe);

/* The function with the site, in assembly so the bytes are known:
 * `patch` is the patch point's bytes. */
#define TPBAD_FUNCTION(patch)                                                  \
	__asm__(".text\n"                                                      \
	    ".globl tpbad_fn\n"                                                \
	    ".type tpbad_fn, @function\n"                                      \
	    "tpbad_fn:\n"                                                      \
	    "tpbad_pp: .byte " patch "\n"                                      \
	    "ret\n"                                                            \
	    "tpbad_target: ret\n"                                              \
	    ".size tpbad_fn, . - tpbad_fn\n"                                   \
	    ".data\n"                                                          \
	    "tpbad_word: " TPBAD_PTR "0\n"                                     \
	    ".text\n")
#define TPBAD_GOOD_NOP "0x0f, 0x1f, 0x44, 0x00, 0x00"

/* Records: each argument is three assembler expressions. */
#define TPBAD_RECORDS(recs)                                                    \
	__asm__(".pushsection set_sdt_tracepoint_set, \"aw\"\n"                \
	    ".balign " __MK_STRING(__SIZEOF_POINTER__) "\n"                    \
	    recs                                                               \
	    ".popsection\n")
#define TPBAD_RECORD(probe, pp, target)                                        \
	TPBAD_PTR probe ", " pp ", " target "\n"
#define TPBAD_PROBE "sdt_tpbad___probe"

DECLARE_MODULE(tpbad, NULL);
