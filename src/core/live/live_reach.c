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
#include "rugnik.h"

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

/*
 * The cells a box's points can reach in a copy's grid (see live_reach.h).
 * In grid units the image of the box is the zonotope m/2 + sum_j
 * [-1, 1] g_j with g_j = P_.j half_range[j] m / 2w; it lies within the
 * segment of its longest generator g_J widened by the box b_i = sum_{j != J}
 * |g_ji|, and a cell is reached only if that segment meets the cell widened
 * by b: one interval of the segment's parameter per dimension (a border
 * cell also holds the points clamped beyond it).  A box with one wide side
 * is nearly that segment, so this keeps few more cells than it crosses.
 */
double
dpk_live_projected_reach(const DpkProjection *proj, const double *half_range, int m,
						 uint8_t *reach)
{
	int			d = proj->d,
				dhat = proj->dhat,
				i,
				j,
				longest = 0;
	double	   *a = dpk_alloc(sizeof(double) * dhat),
			   *b = dpk_alloc0(sizeof(double) * dhat);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, m)),
				c;
	double		scale = m / (2.0 * proj->half_width),
				best = -1.0,
				n = 0.0;

	for (j = 0; j < d; j++)
	{
		double		len = 0.0;

		for (i = 0; i < dhat; i++)
			len += proj->mat[(size_t) i * d + j] * proj->mat[(size_t) i * d + j];
		len = sqrt(len) * half_range[j];
		if (len > best)
		{
			best = len;
			longest = j;
		}
	}
	for (i = 0; i < dhat; i++)
	{
		a[i] = proj->mat[(size_t) i * d + longest] * half_range[longest] * scale;
		for (j = 0; j < d; j++)
			if (j != longest)
				b[i] += fabs(proj->mat[(size_t) i * d + j]) * half_range[j] * scale;
		b[i] += 1e-9 * m;		/* rounding's worth */
	}
	for (c = 0; c < ncells; c++)
	{
		double		lam_lo = -1.0,
					lam_hi = 1.0;

		dpk_grid_cell_coords(dhat, m, c, idx);
		for (i = 0; i < dhat && lam_lo <= lam_hi; i++)
		{
			/* the segment's coordinate m/2 + lambda a_i within [lo, hi] */
			double		lo = idx[i] == 0 ? -HUGE_VAL : (double) idx[i] - b[i] - 0.5 * m,
						hi = idx[i] == m - 1 ? HUGE_VAL : (double) idx[i] + 1.0 + b[i] - 0.5 * m;

			if (fabs(a[i]) < 1e-300)
			{
				if (lo > 0.0 || hi < 0.0)
					lam_hi = -2.0;
			}
			else
			{
				double		l1 = lo / a[i],
							l2 = hi / a[i];

				lam_lo = fmax(lam_lo, fmin(l1, l2));
				lam_hi = fmin(lam_hi, fmax(l1, l2));
			}
		}
		reach[c] = lam_lo <= lam_hi;
		n += reach[c];
	}
	dpk_free(a);
	dpk_free(b);
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

/* Every copy's reach (see live_reach.h). */
uint8_t *
dpk_live_reach_mask(const DpkLiveConfig *cfg, const DpkBox *box)
{
	double	   *half_range = dpk_live_half_range(cfg, box);
	uint64_t	ncells = dpk_live_copy_cells(cfg);
	uint8_t    *reach;
	int			r;

	if (!half_range)
		return NULL;
	reach = dpk_alloc((size_t) cfg->copies * ncells);
	for (r = 0; r < cfg->copies; r++)
	{
		DpkProjection p;

		dpk_live_projection(cfg, r, &p);
		dpk_live_projected_reach(&p, half_range, 1 << cfg->level, reach + (size_t) r * ncells);
		dpk_projection_free(&p);
	}
	dpk_free(half_range);
	return reach;
}

/* Noisy statistics of a projected table, unreachable cells zero (see live_reach.h). */
void
dpk_live_noisy_projected_box(const DpkLiveConfig *cfg, const DpkBox *box,
							 const uint8_t key[DPK_KEY_BYTES], const DpkCellMap *state,
							 uint32_t t, DpkStream *s, double *count, double *sum,
							 double *sumnorm)
{
	uint8_t    *reach = dpk_live_reach_mask(cfg, box);

	if (sum && dpk_live_lifts_sums(cfg))
	{
		/* every cell's count, then the lifted cells' sums alone */
		dpk_live_noisy_projected_reach(cfg, reach, key, state, t, s, count, NULL, sumnorm);
		dpk_live_lifted_sums(cfg, reach, key, state, t, count, sum);
	}
	else
		dpk_live_noisy_projected_reach(cfg, reach, key, state, t, s, count, sum, sumnorm);
	if (sum && dpk_live_refines_sums(cfg))
		dpk_live_refine_sums(cfg, reach, key, state, t, count, sum);
	if (reach)
		dpk_free(reach);
}

/* The counted level from the reachable cells (see live_reach.h). */
int
dpk_live_reach_level(const DpkLiveConfig *cfg, const DpkBox *box, double size_hint,
					 int level, int max_level)
{
	double	   *half_range = dpk_live_half_range(cfg, box);
	double		eps = dpk_rugnik_eps_for_variance(dpk_live_level_count_var(cfg)),
				n = size_hint < 1.0 ? 1.0 : size_hint,
				k = cfg->k,
				best = HUGE_VAL;
	int			dhat = cfg->dhat,
				chosen = level,
				l;
	DpkProjection p;

	if (!half_range || dhat == 0 || !isfinite(eps) || level < 0 || level > max_level)
	{
		if (half_range)
			dpk_free(half_range);
		return level;
	}
	dpk_projection_init(&p, cfg->d, dhat, dpk_projection_copy_seed(cfg->proj_seed, 0),
						cfg->half_width);
	for (l = 0; l <= max_level; l++)
	{
		double		m = (double) (1 << l),
					cells = dpk_grid_cells(dhat, 1 << l);
		uint8_t    *reach = dpk_alloc((size_t) cells);
		double		r = dpk_live_projected_reach(&p, half_range, 1 << l, reach),
					h;

		dpk_free(reach);
		if (l == level && r >= cells)
		{
			chosen = level;		/* the whole grid is reachable: keep the rule's */
			break;
		}
		/* dpk_rugnik_bound with sqrt(2 m^d) replaced by sqrt(2 R) */
		h = sqrt(2.0 * r) / (eps * pow(k, 2.0 / dhat)) +
			2.0 / (m * pow(k, 1.0 / dhat)) * sqrt(n / 3.0) + n / (3.0 * m * m);
		if (h < best)
		{
			best = h;
			chosen = l;
		}
	}
	dpk_projection_free(&p);
	dpk_free(half_range);
	return chosen;
}
