/*
 * Aggregation buckets, as DTrace lays them out.  quantize: 127 buckets of
 * powers of two, bucket 63 holding 0, 64 + k holding [2^k, 2^(k+1)) and
 * 62 - k holding (-2^(k+1), -2^k].  lquantize: bucket 0 below base, then one
 * per step, the last at or above limit.
 */
#include "dlib.h"

static inline u64
log2_floor(u64 v)
{
	u64 n = 0;

	if (v >> 32) { v >>= 32; n += 32; }
	if (v >> 16) { v >>= 16; n += 16; }
	if (v >> 8) { v >>= 8; n += 8; }
	if (v >> 4) { v >>= 4; n += 4; }
	if (v >> 2) { v >>= 2; n += 2; }
	if (v >> 1) n += 1;
	return n;
}

DT_FN u64
dt_quantize_bucket(s64 v)
{
	if (v == 0)
		return 63;
	if (v > 0)
		return 64 + log2_floor((u64)v);
	return 62 - log2_floor(-(u64)v);
}

DT_FN u64
dt_lquantize_bucket(s64 v, s64 base, s64 limit, s64 step)
{
	/* BPF before v4 has no signed division: both sides are >= 0 here. */
	if (step <= 0 || v < base)
		return 0;
	if (v >= limit)
		return limit <= base ? 1 : (u64)(limit - base) / (u64)step + 1;
	return (u64)(v - base) / (u64)step + 1;
}

DT_FN void
dt_quantize_add(u64 *buckets, s64 v, s64 incr)
{
	u64 b = dt_quantize_bucket(v);

	/* A bound a verifier can see (the bucket is always below it). */
	if (b < DT_QUANTIZE_BUCKETS)
		buckets[b] += (u64)incr;
}

DT_FN void
dt_lquantize_add(u64 *buckets, s64 v, s64 base, s64 limit, s64 step)
{
	/* The caller sized buckets for (limit - base) / step + 2 entries. */
	u64 b = dt_lquantize_bucket(v, base, limit, step);

	if (b < DT_LQUANTIZE_MAX_BUCKETS)
		buckets[b] += 1;
}
