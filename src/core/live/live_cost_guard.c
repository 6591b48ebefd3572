/*
 * live_cost_guard.c
 *		Large-d projected releases of pure tables: no k' answer published
 *		whose estimated cost exceeds a smaller k''s (see live_core.h,
 *		dpk_live_guard_blocks); every projected release: no k' answer
 *		estimated costlier than k' = 1's on the cells that lifted nothing
 *		(dpk_live_heldout_gap); low-d releases: no k' answer estimated
 *		costlier than k' = 1's on the noisy histogram (dpk_hist_mean_gap).
 */
#include "live_core.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "grid.h"
#include "coreset.h"
#include "highd.h"
#include "projection.h"

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

/*
 * Every projected table, pure or under delta > 0 (see live_core.h): on pure
 * tables it comes after record 012's guard (from d = 64) and covers the
 * tables below d = 64, which had none.
 */
bool
dpk_live_uses_heldout_guard(const DpkLiveConfig *cfg)
{
	return cfg->delta >= 0.0;
}

/*
 * The k' centres' estimated extra cost over one centre's on the cells that
 * lifted nothing (see live_core.h).  Each cell's rows go to one centre
 * chosen from public positions and the released centres only: the centre
 * whose projection is nearest the cell's middle, or (back_projected) the
 * centre nearest that middle mapped back by the pseudo-inverse
 * (dpk_project_back).  So the cell's noisy sum enters linearly and the
 * estimate is unbiased for that assignment's cost, an upper bound of the
 * nearest-centre cost.  The counts below the threshold are biased low,
 * which only makes the k' centres look cheaper when they lie farther from
 * the middle than the one centre.  Noisy statistics and released centres
 * only: post-processing.
 */
double
dpk_live_heldout_gap(const DpkProjection *p, int m, const double *count, const double *sum,
					 double threshold, double count_var, double sum_var, int k,
					 const double *a, const double *b, bool back_projected, double *sd)
{
	int			d = p->d,
				dhat = p->dhat,
				i,
				j;
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, m)),
				c;
	double	   *back = dpk_alloc(sizeof(double) * d),
			   *pa = dpk_alloc(sizeof(double) * (size_t) k * dhat),
			   *a2 = dpk_alloc(sizeof(double) * k),
			   *ab2 = dpk_alloc(sizeof(double) * k),
			   *ab = dpk_alloc(sizeof(double) * (size_t) k * d),
				b2 = 0.0,
				gap = 0.0,
				var = 0.0;
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
	double	   *tc = dpk_alloc(sizeof(double) * dhat);

	if (!back_projected)
		dpk_project_batch(p, a, (size_t) k, pa);
	for (j = 0; j < d; j++)
		b2 += (b[j] - 0.5) * (b[j] - 0.5);
	for (i = 0; i < k; i++)
	{
		a2[i] = 0.0;
		ab2[i] = 0.0;
		for (j = 0; j < d; j++)
		{
			double		ai = a[(size_t) i * d + j] - 0.5;

			a2[i] += ai * ai;
			ab[(size_t) i * d + j] = a[(size_t) i * d + j] - b[j];
			ab2[i] += ab[(size_t) i * d + j] * ab[(size_t) i * d + j];
		}
	}
	for (c = 0; c < ncells; c++)
	{
		const double *s = sum + c * d;
		double		dot = 0.0,
					dn;
		int			near;

		if (count[c] > threshold)
			continue;
		dpk_grid_cell_coords(dhat, m, c, idx);
		for (j = 0; j < dhat; j++)
			tc[j] = ((double) idx[j] + 0.5) / m;
		if (back_projected)
		{
			dpk_project_back(p, tc, back);
			near = dpk_highd_nearest(back, a, k, d);
		}
		else
			near = dpk_highd_nearest(tc, pa, k, dhat);
		for (j = 0; j < d; j++)
			dot += ab[(size_t) near * d + j] * s[j];
		dn = a2[near] - b2;
		gap += count[c] * dn - 2.0 * dot;
		var += count_var * dn * dn + 4.0 * sum_var * ab2[near];
	}
	*sd = sqrt(var);
	dpk_free(back);
	dpk_free(pa);
	dpk_free(a2);
	dpk_free(ab2);
	dpk_free(ab);
	dpk_free(idx);
	dpk_free(tc);
	return gap;
}

/*
 * Block k' of a release publishes the release's own one centre (all the
 * size on its first entry, the others at size 0) and k' = 1's cost.
 */
static void
live_publish_one_centre(DpkLiveRelease *rel, int kp, int d)
{
	int			i;

	for (i = 0; i < kp; i++)
	{
		memcpy(rel->centers + ((size_t) dpk_live_block(kp) + i) * d,
			   rel->centers + (size_t) dpk_live_block(1) * d, sizeof(double) * d);
		rel->sizes[dpk_live_block(kp) + i] = i == 0 ? rel->sizes[dpk_live_block(1)] : 0.0;
	}
	rel->costs[kp - 1] = rel->costs[0];
}

/*
 * The held-out guard applied to a projected release (see live_core.h):
 * copies' counts and sums (normalized units) as dpk_live_cluster_projected
 * read them, each copy's reachable cells, and per k' the copy of its block
 * and its centres' positions (pos, blocks of dpk_live_block).  Returns how
 * many k' blocks now publish the one centre; none unless
 * dpk_live_uses_heldout_guard.
 */
int
dpk_live_heldout_guard(const DpkLiveConfig *cfg, const DpkProjection *proj,
					   const double *count, const double *sum, const double *reachable,
					   uint32_t t, const int *best_copy, const double *pos,
					   DpkLiveRelease *rel)
{
	int			d = cfg->d,
				k = cfg->k,
				kp,
				fired = 0;
	uint64_t	ncells = dpk_live_copy_cells(cfg);
	double		count_var = dpk_live_projected_count_var(cfg, t),
				sum_var = dpk_live_projected_sum_var(cfg, t);

	if (!dpk_live_uses_heldout_guard(cfg))
		return 0;
	for (kp = 2; kp <= k; kp++)
	{
		int			r = best_copy[kp - 1];
		double		cells = reachable[r] > 0.0 ? reachable[r] : (double) ncells;
		/* the threshold block k' was clustered with (dpk_highd_grid_kmeans_cells) */
		double		threshold =
			dpk_highd_grid_threshold(&(DpkNoisyGrid) {cfg->dhat, 1 << cfg->level,
													  count + (size_t) r * ncells, count_var,
													  dpk_live_gauss_tail(cfg)},
									 cfg->threshold_sigmas, cells, kp);
		bool		dearer = true;
		int			back;

		/* dearer under both assignments (upper bounds of the k' cost) */
		for (back = 0; back < 2 && dearer; back++)
		{
			double		sd,
						gap;

			gap = dpk_live_heldout_gap(&proj[r], 1 << cfg->level, count + (size_t) r * ncells,
									   sum + (size_t) r * ncells * d, threshold, count_var,
									   sum_var, kp, pos + (size_t) dpk_live_block(kp) * d,
									   pos + (size_t) dpk_live_block(1) * d, back == 1, &sd);
			dearer = gap > cfg->heldout_z * sd;
		}
		if (!dearer)
			continue;
		live_publish_one_centre(rel, kp, d);
		fired++;
	}
	return fired;
}

/*
 * The low-d guard on a release of dpk_live_cluster (see live_core.h):
 * every k' block against block 1, on the counted level's noisy histogram.
 * Noisy values and released centres only: post-processing.
 */
int
dpk_live_lowd_guard(const DpkLiveConfig *cfg, const DpkBox *box, const DpkDenseHist *fine,
					uint32_t t, DpkLiveRelease *rel)
{
	int			d = cfg->d,
				k = cfg->k,
				kp,
				i,
				j,
				fired = 0;
	double		count_var = dpk_live_count_variance(cfg, cfg->level, t),
				sum_var = fine->sum ? dpk_live_sum_variance(cfg, cfg->level, t) : 0.0,
			   *w2 = dpk_alloc(sizeof(double) * d),
			   *a = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *b = dpk_alloc(sizeof(double) * d);

	for (j = 0; j < d; j++)
		w2[j] = (box->upper[j] - box->lower[j]) * (box->upper[j] - box->lower[j]);
	dpk_box_normalize(box, rel->centers + (size_t) dpk_live_block(1) * d, b);
	for (kp = 2; kp <= k; kp++)
	{
		double		sd,
					gap;

		for (i = 0; i < kp; i++)
			dpk_box_normalize(box, rel->centers + ((size_t) dpk_live_block(kp) + i) * d,
							  a + (size_t) i * d);
		gap = dpk_hist_mean_gap(fine, w2, count_var, sum_var, kp, a, b, &sd);
		if (!(gap > DPK_LIVE_LOWD_GUARD_Z * sd))
			continue;
		live_publish_one_centre(rel, kp, d);
		fired++;
	}
	dpk_free(w2);
	dpk_free(a);
	dpk_free(b);
	return fired;
}
