/* tp_bad_nop: the patch point holds five bytes of NOPs, but as two
 * instructions (a 4-byte NOP and a 1-byte one): a thread could be between
 * them when the site is patched, so the loader wants the one 5-byte NOP. */
#include "../tp_bad_common.h"
TPBAD_FUNCTION("0x0f, 0x1f, 0x40, 0x00, 0x90");
TPBAD_RECORDS(TPBAD_RECORD(TPBAD_PROBE, "tpbad_pp", "tpbad_target"));
