/* tp_good_asm: the same hand-made record, right in every field: loads, and
 * tpbad:::probe has the asm-goto site at tpbad_fn+0x0. */
#include "../tp_bad_common.h"
TPBAD_FUNCTION(TPBAD_GOOD_NOP);
TPBAD_RECORDS(TPBAD_RECORD(TPBAD_PROBE, "tpbad_pp", "tpbad_target"));
