/*
 * live_core.c
 *		Live tables: configuration, scales, and continual releases (noisy
 *		counted level, level choice, coreset, k-means; projected copies).
 */
#include "live_core.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "live_budget.h"
#include "coreset.h"
#include "highd.h"
#include "lift.h"
#include "live_reach.h"
#include "projection.h"
#include "dpk_mem.h"
#include "kmeans.h"
#include "prng.h"
#include "rugnik.h"
#include "tree_estimator.h"

/* Sum fine cells into a coarser level (see live_core.h). */
void
dpk_live_aggregate(const DpkDenseHist *fine, int fine_level, int level,
				   DpkDenseHist *out)
{
	int			d = fine->d;
	int			shift = fine_level - level;
	int			f = 1 << shift;
	int64_t    *idx = dpk_alloc(d * sizeof(int64_t));
	uint64_t	c;
	int			j;

	dpk_hist_init(out, d, 1 << level, fine->sum != NULL);
	out->units = fine->units * f;
	for (c = 0; c < fine->ncells; c++)
	{
		uint64_t	coarse = 0;

		dpk_grid_cell_coords(d, fine->m, c, idx);
		for (j = 0; j < d; j++)
			coarse = coarse * (uint64_t) out->m + (uint64_t) (idx[j] >> shift);
		out->count[coarse] += fine->count[c];
		if (fine->sum)
			for (j = 0; j < d; j++)
				out->sum[coarse * d + j] += fine->count[c] * (idx[j] & (f - 1)) * fine->units
					+ fine->sum[c * d + j];
	}
	dpk_free(idx);
}

/* The noisy N of a release: the sum of the counted level's noisy counts. */
static double
live_noisy_n(const DpkDenseHist *fine)
{
	double		noisy_n = 0.0;
	uint64_t	c;

	for (c = 0; c < fine->ncells; c++)
		noisy_n += (double) fine->count[c];
	return noisy_n < 1.0 ? 1.0 : noisy_n;
}

/* The level whose RUGNIK bound is lowest under its actual count noise. */
static int
live_rugnik_level(const DpkLiveConfig *cfg, double noisy_n, uint32_t t)
{
	double		best_h = INFINITY;
	int			best_level = cfg->level,
				level;

	for (level = 0; level <= cfg->level; level++)
	{
		double		var = dpk_live_count_variance(cfg, level, t);
		double		hb = dpk_rugnik_bound((double) (1 << level), noisy_n,
										  dpk_rugnik_eps_for_variance(var), cfg->k, cfg->d);

		if (hb < best_h)
		{
			best_h = hb;
			best_level = level;
		}
	}
	return best_level;
}

/* Where the cost proxies put every counted cell (see live_core.h). */
double *
dpk_live_cell_refs(const DpkLiveConfig *cfg, const DpkBox *box, const DpkDenseHist *fine,
				   uint32_t t)
{
	int			d = fine->d,
				j;
	double	   *ref = dpk_alloc((size_t) fine->ncells * d * sizeof(double));
	double	   *u = dpk_alloc(d * sizeof(double));
	int64_t    *idx = dpk_alloc(d * sizeof(int64_t));
	double		sum_var = dpk_live_sum_variance(cfg, cfg->level, t);
	uint64_t	c;

	for (c = 0; c < fine->ncells; c++)
	{
		double		cnt = (double) fine->count[c];

		dpk_grid_cell_coords(d, fine->m, c, idx);
		for (j = 0; j < d; j++)
		{
			double		rel = 0.5;

			if (fine->sum && cnt >= 1.0)
			{
				double		scale = cnt * fine->units;
				double		mean = (double) fine->sum[c * d + j] / scale + 0.5 / fine->units;
				double		lambda = (1.0 / 12.0) / (1.0 / 12.0 + sum_var / (scale * scale));

				rel = fmin(1.0, fmax(0.0, 0.5 + lambda * (mean - 0.5)));
			}
			u[j] = ((double) idx[j] + rel) / fine->m;
		}
		dpk_box_denormalize(box, u, ref + (size_t) c * d);
	}
	dpk_free(u);
	dpk_free(idx);
	return ref;
}

/*
 * The coreset of `level` with noisy counts kept from `threshold` up: the
 * counted cells summed into the level's cells first when it is coarser.
 */
static void
live_coreset_at(const DpkLiveConfig *cfg, const DpkBox *box, const DpkDenseHist *fine,
				int level, uint32_t t, double threshold, DpkCoreset *cs)
{
	DpkDenseHist coarse;
	const DpkDenseHist *h = fine;

	if (level < cfg->level)
	{
		dpk_live_aggregate(fine, cfg->level, level, &coarse);
		h = &coarse;
	}
	dpk_coreset_from_hist(h, box, threshold, dpk_live_sum_variance(cfg, level, t), cs);
	if (h == &coarse)
		dpk_hist_free(&coarse);
}

/* The default noise threshold of `level`'s cells at release t. */
static double
live_threshold(const DpkLiveConfig *cfg, int level, uint32_t t)
{
	return dpk_coreset_threshold(sqrt(dpk_live_count_variance(cfg, level, t)),
								 cfg->threshold_sigmas, pow(2.0, (double) cfg->d * level));
}

/* The coreset of `level` (see live_core.h). */
void
dpk_live_level_coreset(const DpkLiveConfig *cfg, const DpkBox *box, const DpkDenseHist *fine,
				   int level, uint32_t t, DpkCoreset *cs)
{
	live_coreset_at(cfg, box, fine, level, t, live_threshold(cfg, level, t), cs);
}

/*
 * The cost proxy of a level's centres: k-means of its coreset (cand, k * d),
 * then every counted cell at its centre (ref) weighted by its raw noisy
 * count.  Returns false when the level's coreset is empty, or holds
 * same_n cells (>= 0): a lower threshold keeping no more cells than the
 * default one has the same coreset, so the same centres and proxy.  *n
 * receives the coreset's size.
 */
static bool
live_level_proxy(const DpkLiveConfig *cfg, const DpkBox *box, const DpkDenseHist *fine,
				 const double *ref, int level, uint32_t t, double threshold, uint64_t seed,
				 int same_n, double *cand, double *proxy, int *n)
{
	int			d = cfg->d,
				k = cfg->k,
				j;
	DpkCoreset	lcs;
	int		   *assign;
	uint64_t	c;

	live_coreset_at(cfg, box, fine, level, t, threshold, &lcs);
	*n = lcs.n;
	if (lcs.n <= 0 || lcs.n == same_n)
	{
		dpk_coreset_free(&lcs);
		return false;
	}
	assign = dpk_alloc((size_t) fine->ncells * sizeof(int));
	dpk_kmeans_screened(&(DpkPoints) {lcs.points, lcs.weights, lcs.n, d},
						&(DpkClusterOpts) {k, cfg->restarts, cfg->max_iter, seed},
						cfg->screen_iter, cfg->screen_keep, &(DpkClusterOut) {cand, NULL});
	dpk_kmeans_cost(ref, NULL, (int) fine->ncells, d, cand, k, assign);
	*proxy = 0.0;
	for (c = 0; c < fine->ncells; c++)
	{
		double		dist = 0.0;

		for (j = 0; j < d; j++)
		{
			double		diff = ref[c * d + j] - cand[(size_t) assign[c] * d + j];

			dist += diff * diff;
		}
		*proxy += (double) fine->count[c] * dist;
	}
	dpk_free(assign);
	dpk_coreset_free(&lcs);
	return true;
}

/*
 * RUGNIK's bound knows nothing of the coreset threshold, which on a fine
 * grid can drop whole sparse clusters, nor of the in-cell means, which
 * favour finer grids.  So the levels near its choice are all tried, each
 * with the default threshold and with DPK_LIVE_LOW_SIGMAS: each gives
 * centres, and the (level, threshold) whose centres have the lowest cost on
 * the whole noisy counted level (every cell at its shrunk noisy mean,
 * dpk_live_cell_refs, weighted by its raw noisy count: zero-mean count noise,
 * noisy but the same for every candidate) wins; the chosen threshold is
 * returned in *threshold.  Never below 4 cells per dimension when the
 * counted level has them: 2 cells per dimension merge clusters in ways the
 * estimate, one point per counted cell, does not see.  The winner's k
 * centres are left in chosen_cand (k * d) and true returned in *have_cand;
 * false when no candidate had a coreset.  All post-processing of the
 * release's noisy counts and sums.
 */
static int
live_choose_release_level(const DpkLiveConfig *cfg, const DpkBox *box,
						  const DpkDenseHist *fine, uint32_t t, uint64_t seed,
						  int best_level, double *threshold, double *chosen_cand,
						  bool *have_cand)
{
	int			floor_level = cfg->level >= 2 ? 2 : cfg->level;
	int			lo = best_level - 2 < floor_level ? floor_level : best_level - 2;
	int			hi = best_level + 1 > cfg->level ? cfg->level : best_level + 1;
	double	   *ref = dpk_live_cell_refs(cfg, box, fine, t);
	double	   *cand = dpk_alloc((size_t) cfg->k * cfg->d * sizeof(double));
	double		best_proxy = INFINITY,
				proxy;
	int			chosen = best_level,
				level,
				r,
				n_default = -1,
				n;

	*threshold = live_threshold(cfg, best_level, t);
	*have_cand = false;
	for (level = lo; level <= hi; level++)
		for (r = 0; r < 2; r++)
		{
			double		th = r == 0 ? live_threshold(cfg, level, t)
				: DPK_LIVE_LOW_SIGMAS * sqrt(dpk_live_count_variance(cfg, level, t));

			if (r == 1 && th >= live_threshold(cfg, level, t))
				continue;
			if (live_level_proxy(cfg, box, fine, ref, level, t, th, seed,
								 r == 0 ? -1 : n_default, cand, &proxy, &n) &&
				proxy < best_proxy)
			{
				best_proxy = proxy;
				chosen = level;
				*threshold = th;
				memcpy(chosen_cand, cand, sizeof(double) * cfg->k * cfg->d);
				*have_cand = true;
			}
			if (r == 0)
				n_default = n;
		}
	dpk_free(ref);
	dpk_free(cand);
	return chosen;
}

/*
 * Centres, sizes and cost for k' of a release from its coreset; the cost
 * adds the spread of the points inside their cells (cell_spread per unit of
 * weight).  With known (kp * d, non-NULL) the centres are those, already
 * clustered on this coreset (the level choice's for k' = k), not clustered
 * again.  An empty coreset puts every centre at the middle of the box.
 */
static void
live_cluster_kprime(const DpkLiveConfig *cfg, const DpkBox *box, const DpkCoreset *cs,
					int kp, uint64_t seed, double cell_spread, const double *known,
					DpkLiveRelease *rel)
{
	int			d = cfg->d,
				i,
				j;
	double	   *centers = rel->centers + (size_t) dpk_live_block(kp) * d;
	double	   *sizes = rel->sizes + dpk_live_block(kp);
	double		total = 0.0;

	if (cs->n > 0 && known)
	{
		int		   *assign = dpk_alloc((size_t) cs->n * sizeof(int));

		memcpy(centers, known, sizeof(double) * (size_t) kp * d);
		rel->costs[kp - 1] = dpk_kmeans_cost(cs->points, cs->weights, cs->n, d, centers, kp,
											 assign);
		for (j = 0; j < kp; j++)
			sizes[j] = 0.0;
		for (i = 0; i < cs->n; i++)
			sizes[assign[i]] += fmax(cs->weights[i], 0.0);
		dpk_free(assign);
	}
	else if (cs->n > 0)
		rel->costs[kp - 1] =
			dpk_kmeans_screened(&(DpkPoints) {cs->points, cs->weights, cs->n, d},
								&(DpkClusterOpts) {kp, cfg->restarts, cfg->max_iter,
												   seed + (uint64_t) kp},
								cfg->screen_iter, cfg->screen_keep,
								&(DpkClusterOut) {centers, sizes});
	if (cs->n > 0)
	{
		for (i = 0; i < cs->n; i++)
			total += cs->weights[i];
		rel->costs[kp - 1] += total * cell_spread;
	}
	else
	{
		double	   *u = dpk_alloc(d * sizeof(double));

		for (j = 0; j < d; j++)
			u[j] = 0.5;
		for (i = 0; i < kp; i++)
		{
			dpk_box_denormalize(box, u, centers + (size_t) i * d);
			sizes[i] = 0.0;
		}
		rel->costs[kp - 1] = 0.0;
		dpk_free(u);
	}
}

/* Level choice, coreset and k-means for every k', then the guard (see live_core.h). */
void
dpk_live_cluster(const DpkLiveConfig *cfg, const DpkBox *box, const DpkDenseHist *fine,
				 uint32_t t, uint64_t seed, DpkLiveRelease *rel)
{
	dpk_live_cluster_centres(cfg, box, fine, t, seed, rel);
	rel->guard_fired = dpk_live_lowd_guard(cfg, box, fine, t, rel);
}

/* Level choice, coreset and k-means for every k' (see live_core.h). */
void
dpk_live_cluster_centres(const DpkLiveConfig *cfg, const DpkBox *box,
						 const DpkDenseHist *fine, uint32_t t, uint64_t seed,
						 DpkLiveRelease *rel)
{
	int			d = cfg->d,
				k = cfg->k,
				level,
				kp,
				j;
	double		noisy_n = live_noisy_n(fine),
				threshold,
				cell_spread = 0.0;
	DpkCoreset	cs;
	double	   *chosen_cand = dpk_alloc(sizeof(double) * (size_t) k * d);
	bool		have_cand;

	level = live_rugnik_level(cfg, noisy_n, t);
	level = live_choose_release_level(cfg, box, fine, t, seed, level, &threshold,
									  chosen_cand, &have_cand);
	live_coreset_at(cfg, box, fine, level, t, threshold, &cs);

	rel->level = level;
	rel->noisy_n = noisy_n;
	rel->coreset_size = cs.n;
	dpk_live_release_alloc(rel, k, d);

	/* Spread of points inside their cells, if uniform: width^2 / 12 per axis. */
	for (j = 0; j < d; j++)
	{
		double		w = (box->upper[j] - box->lower[j]) / (1 << level);

		cell_spread += w * w / 12.0;
	}
	for (kp = 1; kp <= k; kp++)
		live_cluster_kprime(cfg, box, &cs, kp, seed, cell_spread,
							kp == k && have_cand ? chosen_cand : NULL, rel);
	dpk_free(chosen_cand);
	dpk_coreset_free(&cs);
}

/* Add one point to a projected table's state (see live_core.h). */
void
dpk_live_add_projected(const DpkLiveConfig *cfg, DpkCellMap *state, const double *u,
					   const double *t, int sign)
{
	int64_t		q[1024];
	int64_t    *qp = cfg->d <= 1024 ? q : dpk_alloc(cfg->d * sizeof(int64_t));
	int64_t		idx[64];
	uint64_t	ncells = dpk_live_copy_cells(cfg);
	int64_t		norm = dpk_lift_quantize(cfg->d, u, qp);
	int			r;

	for (r = 0; r < cfg->copies; r++)
	{
		uint64_t	cell = dpk_grid_cell(cfg->dhat, 1 << cfg->level, t + (size_t) r * cfg->dhat,
										 idx, NULL);

		dpk_cellmap_add_point(state, (uint64_t) r * ncells + cell, qp, sign);
	}
	/* in the counter's unit 2^norm_shift, rounded half up (norm >= 0) */
	if (cfg->norm_shift > 0)
		norm = (norm + ((int64_t) 1 << (cfg->norm_shift - 1))) >> cfg->norm_shift;
	/* DPK_LIVE_NORM_CELL(cfg), without a second pow() per row */
	dpk_cellmap_get(state, (uint64_t) cfg->copies * ncells)[0] += sign * norm;
	if (qp != q)
		dpk_free(qp);
}

/* Noise variance of a projected release's cell counts at t (see live_core.h). */
double
dpk_live_projected_count_var(const DpkLiveConfig *cfg, uint32_t t)
{
	DpkNoise	cn = dpk_live_count_noise(cfg);

	return dpk_live_tree_norm2(cfg, t) * dpk_noise_variance(&cn, 0);
}

/* Noise variance of a coordinate of a cell's lifting sum, normalized units (see live_core.h). */
double
dpk_live_projected_sum_var(const DpkLiveConfig *cfg, uint32_t t)
{
	DpkNoise	sn = dpk_live_sum_noise(cfg);

	return (dpk_live_refines_sums(cfg) ? dpk_live_refined_norm2(t)
			: dpk_live_sum_tree_norm2(cfg, t)) * dpk_noise_variance(&sn, cfg->d) /
		((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
}

/* Squared distance in the box per unit squared distance in positions (see live_core.h). */
double
dpk_live_width2(const DpkLiveConfig *cfg, const DpkBox *box)
{
	double		w2 = 0.0;
	int			j;

	if (cfg->box_metric)
		return dpk_box_max_width(box) * dpk_box_max_width(box);
	/* normalized positions: the mean squared side, an approximation */
	for (j = 0; j < box->d; j++)
		w2 += (box->upper[j] - box->lower[j]) * (box->upper[j] - box->lower[j]) / box->d;
	return w2;
}

/*
 * The rows of no lifting cell (noisy N minus the centres' lifted sizes) are
 * scored at their distance to the box's middle (sumnorm), as if a centre
 * sat there; they go to the nearest released centre instead.  Charged, in
 * normalized units, as rows at the middle served by the centre nearest it:
 * without this a k' whose noisy centres all lie far out (a noisy lifted
 * mean clamped onto the ball) scores as well as the middle, while every
 * unlifted row pays its distance (issue 15, unit-norm word embeddings).
 * Noisy sizes and released centres only.
 */
static double
live_unlifted_charge(int d, int k, const double *cent, const double *sizes, double noisy_n)
{
	double		lifted = 0.0,
				near2 = INFINITY;
	int			a,
				j;

	for (a = 0; a < k; a++)
	{
		double		c2 = 0.0;

		for (j = 0; j < d; j++)
			c2 += (cent[(size_t) a * d + j] - 0.5) * (cent[(size_t) a * d + j] - 0.5);
		near2 = fmin(near2, c2);
		lifted += sizes[a] > 0.0 ? sizes[a] : 0.0;
	}
	return noisy_n > lifted ? (noisy_n - lifted) * near2 : 0.0;
}

/* Centres of a projected table for every k' (see live_core.h). */
void
dpk_live_cluster_projected(const DpkLiveConfig *cfg, const DpkBox *box,
						   const double *count, const double *sum, double sumnorm,
						   uint32_t t, uint64_t seed, DpkLiveRelease *rel)
{
	size_t		n = (size_t) cfg->copies * dpk_live_copy_cells(cfg) * cfg->d;
	double	   *copy = dpk_alloc(n * sizeof(double));

	memcpy(copy, sum, n * sizeof(double));
	dpk_live_cluster_projected_inplace(cfg, box, count, copy, sumnorm, t, seed, rel);
	dpk_free(copy);
}

/*
 * The same on the caller's sums (see live_core.h): they are divided by
 * DPK_LIFT_UNITS in place for the clustering and multiplied back after,
 * both exact (a power of two, on integers far from the range's ends).
 */
void
dpk_live_cluster_projected_inplace(const DpkLiveConfig *cfg, const DpkBox *box,
								   const double *count, double *sum, double sumnorm,
								   uint32_t t, uint64_t seed, DpkLiveRelease *rel)
{
	int			d = cfg->d,
				k = cfg->k,
				r,
				kp;
	uint64_t	ncells = dpk_live_copy_cells(cfg);
	double		count_var = dpk_live_projected_count_var(cfg, t),
				sum_var = dpk_live_projected_sum_var(cfg, t);
	double	   *nsum = sum;
	double	   *ncount = dpk_alloc((size_t) cfg->copies * ncells * sizeof(double));
	double	   *reachable = dpk_alloc(cfg->copies * sizeof(double));
	double	   *cent = dpk_alloc((size_t) k * d * sizeof(double));
	double	   *sizes = dpk_alloc((size_t) k * sizeof(double));
	double	   *pos = dpk_alloc0((size_t) dpk_live_block(k + 1) * d * sizeof(double));
	int		   *best_copy = dpk_alloc0((size_t) k * sizeof(int));
	double		noisy_n = 0.0,
				width2 = 0.0;
	DpkProjection *proj = dpk_alloc(cfg->copies * sizeof(DpkProjection));
	uint64_t	c;

	for (c = 0; c < ncells; c++)
		noisy_n += count[c];
	width2 = dpk_live_width2(cfg, box);
	for (r = 0; r < cfg->copies; r++)
	{
		dpk_live_projection(cfg, r, &proj[r]);
		for (c = 0; c < ncells * d; c++)
			nsum[r * ncells * d + c] /= DPK_LIFT_UNITS;
		memcpy(ncount + r * ncells, count + (size_t) r * ncells, ncells * sizeof(double));
		reachable[r] = dpk_live_zero_unreachable(cfg, box, &proj[r], ncount + r * ncells,
												 nsum + r * ncells * d);
	}

	rel->level = cfg->level;
	rel->noisy_n = noisy_n < 1.0 ? 1.0 : noisy_n;
	rel->coreset_size = 0;
	dpk_live_release_alloc(rel, k, d);

	for (kp = 1; kp <= k; kp++)
	{
		double		best = INFINITY;

		for (r = 0; r < cfg->copies; r++)
		{
			DpkHighdCells hc;
			double		score;
			int			coreset = 0,
						i;

			memset(&hc, 0, sizeof(hc));
			hc.threshold_cells = reachable[r];
			hc.m = 1 << cfg->level;
			hc.count = ncount + r * ncells;
			hc.count_var = count_var;
			hc.lift_m = 0;
			hc.lift_count = NULL;
			hc.lift_count_var = count_var;
			hc.sum = nsum + r * ncells * d;
			hc.sum_var = sum_var;
			hc.sumnorm = NULL;
			hc.space_noise2 = DPK_LIVE_SPACE_NOISE2;
			hc.lift_weighted = cfg->lift_weighted;
			hc.plane_cells = DPK_LIVE_PLANE_CELLS;
			hc.rest_mean = cfg->rest_mean;
			hc.gauss_tail = dpk_live_gauss_tail(cfg);
			hc.space_restarts = cfg->restarts;
			score = dpk_highd_cells_cluster(&proj[r], &hc, cfg->threshold_sigmas,
											&(DpkClusterOpts) {kp, cfg->coreset_restarts,
															   cfg->max_iter,
															   seed + (uint64_t) kp},
											&(DpkClusterOut) {cent, sizes}, &coreset);
			/* every row is in the ball, so its nearest point is nearer to all */
			for (i = 0; i < kp; i++)
				dpk_box_ball_clamp(d, cfg->ball, cent + (size_t) i * d);
			if (cfg->lift_weighted)
				score += live_unlifted_charge(d, kp, cent, sizes, noisy_n);
			if (score < best)
			{
				best = score;
				best_copy[kp - 1] = r;
				memcpy(pos + (size_t) dpk_live_block(kp) * d, cent, sizeof(double) * (size_t) kp * d);
				for (i = 0; i < kp; i++)
				{
					dpk_box_from_position(box, cfg->box_metric, cent + (size_t) i * d,
										  rel->centers + ((size_t) dpk_live_block(kp) + i) * d);
					rel->sizes[dpk_live_block(kp) + i] = sizes[i];
				}
				if (kp == k)
					rel->coreset_size = coreset;
			}
		}

		/*
		 * Cost estimate: sum ||u - 1/2||^2 over all points (noisy counter)
		 * plus the score (minus the between-centre term), in normalized
		 * units, scaled by the squared widest side (metric positions: exact)
		 * or the mean squared box width.
		 */
		rel->costs[kp - 1] = fmax(0.0, sumnorm / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS) + best) *
			width2;
	}
	if (dpk_live_uses_guard(cfg))
		dpk_live_guard_blocks(d, k, rel->centers, rel->sizes, rel->costs);
	rel->guard_fired = dpk_live_heldout_guard(cfg, proj, ncount, nsum, reachable, t, best_copy,
											  pos, rel);
	for (r = 0; r < cfg->copies; r++)
		dpk_projection_free(&proj[r]);
	dpk_free(proj);
	for (c = 0; c < (uint64_t) cfg->copies * ncells * d; c++)
		nsum[c] *= DPK_LIFT_UNITS;
	dpk_free(ncount);
	dpk_free(reachable);
	dpk_free(pos);
	dpk_free(best_copy);
	dpk_free(cent);
	dpk_free(sizes);
}

/*
 * The projected histogram of copy 0 at `level` (<= the counted level): noisy
 * counts and original-space sums of the counted cells summed into the
 * coarser cells (see live_core.h).
 */
void
dpk_live_projected_level(const DpkLiveConfig *cfg, const DpkCellMap *noisy, int level,
						 double *count, double *sum)
{
	int			shift = cfg->level - level;
	int			dhat = cfg->dhat,
				d = cfg->d,
				j;
	uint64_t	m = (uint64_t) 1 << level;
	uint64_t	ncells = (uint64_t) llround(pow((double) m, dhat));
	int64_t    *fidx = dpk_alloc(dhat * sizeof(int64_t));
	size_t		pos = 0;
	uint64_t	cell;
	const int64_t *v;

	memset(count, 0, ncells * sizeof(double));
	memset(sum, 0, ncells * d * sizeof(double));
	while (dpk_cellmap_next(noisy, &pos, &cell, &v))
	{
		uint64_t	coarse = 0;

		if (cell >= dpk_live_copy_cells(cfg))
			continue;			/* other copies and the norm counter */
		dpk_grid_cell_coords(dhat, 1 << cfg->level, cell, fidx);
		for (j = 0; j < dhat; j++)
			coarse = coarse * m + (uint64_t) (fidx[j] >> shift);
		count[coarse] += (double) v[0];
		for (j = 0; j < d; j++)
			sum[coarse * d + j] += (double) v[1 + j];
	}
	dpk_free(fidx);
}

/*
 * The lifted centre of projected cell `cell` at `level` (see live_core.h):
 * where the noisy count is at least 1, the noisy mean of its points in the
 * original space, sum / (count U) around the box centre, clamped to the box;
 * else the cell's projected centre mapped back by the projection's transpose.
 */
void
dpk_live_projected_cell_centre(const DpkLiveConfig *cfg, const DpkProjection *proj,
							   int level, uint64_t cell, double count, const double *sum,
							   double *u)
{
	int			dhat = cfg->dhat,
				j;
	int			m = 1 << level;
	int64_t    *idx = dpk_alloc(dhat * sizeof(int64_t));
	double	   *t = dpk_alloc(dhat * sizeof(double));

	if (count >= 1.0)
		for (j = 0; j < cfg->d; j++)
			u[j] = fmin(1.0, fmax(0.0, 0.5 + sum[j] / (DPK_LIFT_UNITS * count)));
	else
	{
		dpk_grid_cell_coords(dhat, m, cell, idx);
		for (j = 0; j < dhat; j++)
			t[j] = (idx[j] + 0.5) / m;
		dpk_project_back(proj, t, u);
	}
	dpk_free(idx);
	dpk_free(t);
}
