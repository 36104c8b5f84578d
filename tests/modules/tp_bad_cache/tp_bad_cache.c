/* tp_bad_cache: a good tracepoint record, and a block cache record
 * (set_sdt_goto_cache_set, <sys/sdt.h>) whose block address is a data
 * word, not code. */
#include "../tp_bad_common.h"
TPBAD_FUNCTION(TPBAD_GOOD_NOP);
TPBAD_RECORDS(TPBAD_RECORD(TPBAD_PROBE, "tpbad_pp", "tpbad_target"));
__asm__(".pushsection set_sdt_goto_cache_set, \"aw\"\n"
    ".balign " __MK_STRING(__SIZEOF_POINTER__) "\n"
    TPBAD_PTR "__sdt_no_slot, " TPBAD_PROBE ", tpbad_word\n"
    ".popsection\n");
