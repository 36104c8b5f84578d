/* tp_bad_dup: two records for one patch point. */
#include "../tp_bad_common.h"
TPBAD_FUNCTION(TPBAD_GOOD_NOP);
TPBAD_RECORDS(TPBAD_RECORD(TPBAD_PROBE, "tpbad_pp", "tpbad_target")
    TPBAD_RECORD(TPBAD_PROBE, "tpbad_pp", "tpbad_target"));
