/*
 * live_guard.c
 *		Large-d projected releases of pure tables: no k' answer published
 *		whose estimated cost exceeds a smaller k''s (see live_core.h,
 *		dpk_live_guard_blocks).
 */
#include "live_core.h"

#include <string.h>

/*
 * Pure tables only.  Gaussian ones lift centres whose noise stays below
 * their clusters' spread, and there the guard mostly merged clusters:
 * wrong partitions at d = 384, horizon 16, in 14 of 26 releases with it and
 * 9 without; at d = 64, horizon 1024, in 11 of 192 and 2 (doc/decisions/012-large-d-lift-guard.md).
 */
bool
dpk_live_uses_guard(const DpkLiveConfig *cfg)
{
	return cfg->lift_weighted && cfg->delta <= 0.0;
}

/*
 * For each k' from 2 to k, when the estimated cost of a smaller k'' (the
 * lowest among 1 .. k' - 1) is below k''s, block k' becomes block k''s
 * centres and sizes, padded with copies of its heaviest centre at size 0,
 * and cost k' that cost (see live_core.h).  Costs only: post-processing.
 */
void
dpk_live_guard_blocks(int d, int k, double *centers, double *sizes, double *costs)
{
	int			kp,
				lo = 1;

	for (kp = 2; kp <= k; kp++)
	{
		double	   *c = centers + (size_t) dpk_live_block(kp) * d;
		const double *cl = centers + (size_t) dpk_live_block(lo) * d;
		double	   *s = sizes + dpk_live_block(kp);
		const double *sl = sizes + dpk_live_block(lo);
		int			i,
					heavy = 0;

		if (!(costs[lo - 1] < costs[kp - 1]))
		{
			lo = kp;			/* the cheapest so far */
			continue;
		}
		for (i = 1; i < lo; i++)
			if (sl[i] > sl[heavy])
				heavy = i;
		memcpy(c, cl, sizeof(double) * (size_t) lo * d);
		memcpy(s, sl, sizeof(double) * lo);
		for (i = lo; i < kp; i++)
		{
			memcpy(c + (size_t) i * d, cl + (size_t) heavy * d, sizeof(double) * d);
			s[i] = 0.0;
		}
		costs[kp - 1] = costs[lo - 1];
	}
}
