/* tp_bad_target: the out-of-line target is a data word, not code. */
#include "../tp_bad_common.h"
TPBAD_FUNCTION(TPBAD_GOOD_NOP);
TPBAD_RECORDS(TPBAD_RECORD(TPBAD_PROBE, "tpbad_pp", "tpbad_word"));
