/* tp_bad_probe: the probe field points at a data word, not at a probe
 * definition (SDT_PROBE_DEFINE). */
#include "../tp_bad_common.h"
TPBAD_FUNCTION(TPBAD_GOOD_NOP);
TPBAD_RECORDS(TPBAD_RECORD("tpbad_word", "tpbad_pp", "tpbad_target"));
