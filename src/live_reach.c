/*
 * live_reach.c
 *		Projected live tables in metric positions: the cells of a copy's
 *		grid that no point of the box can reach, zeroed at release time
 *		(their noisy counts and sums are noise only).
 */
#include "live_reach.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "projection.h"

/* Where a projected table's positions lie, per coordinate (see live_reach.h). */
double *
dpk_live_half_range(const DpkLiveConfig *cfg, const DpkBox *box)
{
	double	   *h,
				wmax;
	int			j;

	if (!cfg->box_metric || DPK_LIVE_REACH == 0)
		return NULL;
	h = dpk_alloc(sizeof(double) * box->d);
	wmax = dpk_box_max_width(box);
	for (j = 0; j < box->d; j++)
		h[j] = 0.5 * (box->upper[j] - box->lower[j]) / wmax;
	return h;
}

/* The cells a box's points can reach in a copy's grid (see live_reach.h). */
double
dpk_live_projected_reach(const DpkProjection *proj, const double *half_range, int m,
						 uint8_t *reach)
{
	int			d = proj->d,
				dhat = proj->dhat,
				i,
				j;
	int64_t    *lo = dpk_alloc(sizeof(int64_t) * dhat),
			   *hi = dpk_alloc(sizeof(int64_t) * dhat),
			   *idx = dpk_alloc(sizeof(int64_t) * dhat);
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, m)),
				c;
	double		w = proj->half_width,
				n = 1.0;

	for (i = 0; i < dhat; i++)
	{
		double		e = 0.0;

		for (j = 0; j < d; j++)
			e += fabs(proj->mat[(size_t) i * d + j]) * half_range[j];
		/* [(w - e) / 2w, (w + e) / 2w] of [0, 1], widened by rounding's worth */
		lo[i] = (int64_t) floor((w - e) / (2.0 * w) * m - 1e-9);
		hi[i] = (int64_t) floor((w + e) / (2.0 * w) * m + 1e-9);
		lo[i] = lo[i] < 0 ? 0 : lo[i];
		hi[i] = hi[i] > m - 1 ? m - 1 : hi[i];
		n *= (double) (hi[i] - lo[i] + 1);
	}
	for (c = 0; c < ncells; c++)
	{
		dpk_grid_cell_coords(dhat, m, c, idx);
		reach[c] = 1;
		for (i = 0; i < dhat && reach[c]; i++)
			if (idx[i] < lo[i] || idx[i] > hi[i])
				reach[c] = 0;
	}
	dpk_free(lo);
	dpk_free(hi);
	dpk_free(idx);
	return n;
}

/* Zero a release copy's unreachable cells (see live_reach.h). */
double
dpk_live_zero_unreachable(const DpkLiveConfig *cfg, const DpkBox *box,
						  const DpkProjection *proj, double *count, double *sum)
{
	double	   *half_range = dpk_live_half_range(cfg, box);
	uint64_t	ncells = dpk_live_copy_cells(cfg),
				c;
	uint8_t    *reach;
	double		n;

	if (!half_range)
		return 0.0;
	reach = dpk_alloc(ncells);
	n = dpk_live_projected_reach(proj, half_range, 1 << cfg->level, reach);
	for (c = 0; c < ncells; c++)
		if (!reach[c])
		{
			count[c] = 0.0;
			memset(sum + c * cfg->d, 0, cfg->d * sizeof(double));
		}
	dpk_free(reach);
	dpk_free(half_range);
	return n;
}
