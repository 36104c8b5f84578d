/* tp_bad_size: a good record, then a lone word: the set is not a whole
 * number of records. */
#include "../tp_bad_common.h"
TPBAD_FUNCTION(TPBAD_GOOD_NOP);
TPBAD_RECORDS(TPBAD_RECORD(TPBAD_PROBE, "tpbad_pp", "tpbad_target")
    TPBAD_PTR "0\n");
