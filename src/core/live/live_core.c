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

/*
 * Screened k-means restarts of low-d releases
 * (doc/decisions/034-live-screened-restarts.md).
 */
#ifndef DPK_LIVE_SCREEN_ITER
#define DPK_LIVE_SCREEN_ITER 5
#endif
#define DPK_LIVE_SCREEN_KEEP 3

/* Defaults; see doc/decisions/README.md for how they were measured. */
void
dpk_live_defaults(DpkLiveConfig *cfg, int d, int k, double epsilon,
				  uint32_t horizon, bool insert_only)
{
	dpk_live_defaults_arity(cfg, d, k, epsilon, horizon, insert_only,
							dpk_tree_choose_arity(horizon));
}

/* Defaults with a given tree arity (see live_core.h). */
void
dpk_live_defaults_arity(DpkLiveConfig *cfg, int d, int k, double epsilon,
						uint32_t horizon, bool insert_only, int arity)
{
	cfg->d = d;
	cfg->k = k;
	cfg->epsilon = epsilon;
	cfg->horizon = horizon;
	cfg->insert_only = insert_only;
	cfg->level = 0;
	cfg->sum_share = dpk_budget_live_shares(d, false).sum_share;
	cfg->dhat = 0;
	cfg->copies = 1;
	cfg->proj_seed = 0;
	cfg->half_width = DPK_PROJ_HALF_WIDTH;
	cfg->norm_share = dpk_budget_live_shares(d, false).norm_share;
	cfg->norm_shift = 0;
	cfg->threshold_sigmas = 2.0;
	cfg->estimator = DPK_TREE_LOCAL_BLUE;
	cfg->arity = arity;
	cfg->restarts = 10;
	cfg->max_iter = 100;
	cfg->screen_iter = DPK_LIVE_SCREEN_ITER;
	cfg->screen_keep = DPK_LIVE_SCREEN_KEEP;
	cfg->delta = 0.0;
	cfg->box_metric = false;
	cfg->lift_weighted = false;
	cfg->rest_mean = false;
	cfg->sum_l1 = 0.0;
	cfg->ball = 0.0;
}

/*
 * The finest counted level: its cells within max_cells, and the cell ids of
 * all copies (and the norm counter) within 48 bits.
 */
static int
live_max_level(const DpkLiveConfig *cfg, double max_cells)
{
	return (int) floor(fmin(log2(fmax(max_cells, 1.0)),
							48.0 - ceil(log2(cfg->copies + 1.0))) /
					   (cfg->dhat > 0 ? cfg->dhat : cfg->d) + 1e-9);
}

/*
 * A ball's smaller sums would choose levels whose releases take minutes:
 * at most DPK_LIVE_BALL_MAX_VALUES noisy values a copy (see live_core.h).
 */
static int
live_ball_level_cap(const DpkLiveConfig *cfg, int level)
{
	int			cap;

	if (cfg->dhat == 0 || !(cfg->ball > 0.0))
		return level;
	cap = live_max_level(cfg, DPK_LIVE_BALL_MAX_VALUES / (cfg->d + 1.0));
	return level < cap ? level : cap;
}

/*
 * The count noise of a typical release: about a third of the h nodes (NAF
 * weight) for the signed counter, half of them for the plain decomposition
 * of Gaussian tables, the weights' mean squared norm from T/4 for the
 * least-squares one.
 */
double
dpk_live_level_count_var(const DpkLiveConfig *cfg)
{
	DpkLiveConfig probe = *cfg;
	DpkNoise	cn;

	probe.level = 0;
	cn = dpk_live_count_noise(&probe);
	return dpk_noise_variance(&cn, 0) *
		fmax(1.0, cfg->delta > 0.0 ? dpk_tree_height(cfg->horizon) / 2.0
			 : cfg->estimator == DPK_TREE_SIGNED && cfg->arity <= DPK_TREE_ARITY_BINARY
			 ? dpk_tree_height(cfg->horizon) / 3.0
			 : dpk_tree_typical_norm2((DpkTreeEstimator) cfg->estimator, cfg->arity,
									  cfg->horizon));
}

/* Lifting-sum noise of one cell at a typical release (see live_core.h). */
double
dpk_live_level_sum_sd(const DpkLiveConfig *cfg)
{
	DpkLiveConfig probe = *cfg;
	DpkNoise	cn,
				sn;

	probe.level = 0;
	cn = dpk_live_count_noise(&probe);
	sn = dpk_live_sum_noise(&probe);
	/* the same tree weights as the counts' (dpk_live_level_count_var) */
	return sqrt(dpk_noise_variance(&sn, cfg->d) *
				dpk_live_level_count_var(cfg) / dpk_noise_variance(&cn, 0)) / DPK_LIFT_UNITS;
}

/* Whether a projected table counts one cell (DPK_LIVE_MEAN_ONLY_SD). */
static bool
live_mean_only(const DpkLiveConfig *cfg, double size_hint)
{
	return cfg->dhat > 0 &&
		dpk_live_level_sum_sd(cfg) * cfg->k / fmax(size_hint, 1.0) >= DPK_LIVE_MEAN_ONLY_SD;
}

/* Counted level for a size hint (see live_core.h). */
int
dpk_live_choose_level(const DpkLiveConfig *cfg, double size_hint, double max_cells)
{
	double		var,
				m,
				shift;
	int			level,
				max_level;

	var = dpk_live_level_count_var(cfg);
	if (size_hint < 1.0)
		size_hint = 1.0;
	m = dpk_grid_m(DPK_RULE_RUGNIK, size_hint, dpk_rugnik_eps_for_variance(var),
				   cfg->k, cfg->dhat > 0 ? cfg->dhat : cfg->d);
	/* noise too small to measure (huge epsilon): as fine as the caps allow */
	if (!isfinite(m))
		m = HUGE_VAL;
	/*
	 * With the least-squares counter, low-d grids one level coarser than
	 * RUGNIK's m: its bound knows nothing of the in-cell means, which keep
	 * the centres accurate in coarse cells, while a finer counted level
	 * pays its noise 2^d times over wherever a release sums it up.  A k-ary
	 * tree's lower noise moves m up by about one level; one and a half
	 * below m is where it is counted: two below helps synthetic skewed
	 * clusters but hurts a small real table
	 * (doc/decisions/006-lowd-counted-level.md).  Gaussian tables sum the
	 * plain decomposition and keep RUGNIK's level.
	 */
	shift = cfg->delta <= 0.0 && cfg->estimator != DPK_TREE_SIGNED && cfg->dhat == 0
		? (cfg->arity > DPK_TREE_ARITY_BINARY ? 1.5 : 1.0) : 0.0;
	level = isinf(m) ? INT_MAX : (int) ceil(log2(fmax(m, 1.0)) - 0.25 - shift);
	if (level < 0)
		level = 0;
	max_level = live_max_level(cfg, max_cells);
	if (level > max_level)
		level = max_level;
	if (live_mean_only(cfg, size_hint))
		level = 0;
	return live_ball_level_cap(cfg, level);
}

/* Counted level of a table with its box (see live_core.h). */
int
dpk_live_choose_level_box(const DpkLiveConfig *cfg, const DpkBox *box, double size_hint,
						  double max_cells)
{
	int			level;

	/* one cell, whatever the box's grid would be */
	if (live_mean_only(cfg, size_hint))
		return 0;
	level = dpk_live_choose_level(cfg, size_hint, max_cells);
	if (cfg->dhat > 0 && cfg->box_metric)
	{
		/* 1 / spread times the cells per dimension, to the nearest level */
		level += (int) floor(log2(1.0 / dpk_box_metric_spread(box)) + 0.5);
		level = level < live_max_level(cfg, max_cells) ? level : live_max_level(cfg, max_cells);
		/* a box whose image misses most cells: RUGNIK over the reachable ones */
		level = dpk_live_reach_level(cfg, box, size_hint, level,
									 live_max_level(cfg, fmin(max_cells,
															  DPK_LIVE_REACH_MAX_CELLS)));
	}
	return live_ball_level_cap(cfg, level);
}

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
	dpk_kmeans_screened(lcs.points, lcs.weights, lcs.n, d, k, cfg->restarts, cfg->max_iter,
						seed, cfg->screen_iter, cfg->screen_keep, cand, NULL);
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
		rel->costs[kp - 1] = dpk_kmeans_screened(cs->points, cs->weights, cs->n, d, kp,
												 cfg->restarts, cfg->max_iter,
												 seed + (uint64_t) kp, cfg->screen_iter,
												 cfg->screen_keep, centers, sizes);
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

/* Level choice, coreset and k-means for every k' (see live_core.h). */
void
dpk_live_cluster(const DpkLiveConfig *cfg, const DpkBox *box, const DpkDenseHist *fine,
				 uint32_t t, uint64_t seed, DpkLiveRelease *rel)
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

/* Cells of one copy's projected grid. */
uint64_t
dpk_live_copy_cells(const DpkLiveConfig *cfg)
{
	return (uint64_t) llround(pow(2.0, (double) cfg->level * cfg->dhat));
}

/*
 * Projected mode: DPK_LIVE_DHAT projected dimensions (at most d), one copy
 * (more copies multiply every sensitivity), the shares of
 * dpk_budget_live_shares (doc/decisions/011-projected-sum-share.md).  Tables
 * store their dhat and shares, so these defaults only shape new tables;
 * from d = DPK_LIVE_WEIGHTED_D on, releases (which call this too) lift by
 * count-weighted sums under the guard, with more k-means restarts.
 */
void
dpk_live_use_projection(DpkLiveConfig *cfg, uint64_t proj_seed)
{
	DpkLiveShares shares = dpk_budget_live_shares(cfg->d, true);

	cfg->dhat = cfg->d < DPK_LIVE_DHAT ? cfg->d : DPK_LIVE_DHAT;
	cfg->copies = 1;
	cfg->proj_seed = proj_seed;
	cfg->half_width = DPK_PROJ_HALF_WIDTH;
	cfg->sum_share = shares.sum_share;
	cfg->norm_share = shares.norm_share;
	/* post-processing only, so tables attached before get it too */
	cfg->lift_weighted = cfg->d >= DPK_LIVE_WEIGHTED_D;
	/*
	 * Measured to help only with many directions outside the plane (d =
	 * 384, data off the box's middle); at d = 7 it moved the diamonds
	 * window's worst release by 4 %, so low d keeps the middle.
	 */
	cfg->rest_mean = cfg->lift_weighted;
	cfg->restarts = cfg->lift_weighted ? DPK_LIVE_WEIGHTED_RESTARTS : cfg->restarts;
}

/*
 * A new projected table's geometry and tree for its box (see live_core.h).
 * Points in metric positions of a box with unequal sides fill few
 * directions, and more projected dimensions only spread them over more
 * cells (fewer still where the box has few wide sides:
 * dpk_live_use_few_sides; doc/decisions/016-boxes-with-wide-sides.md);
 * cube boxes keep DPK_LIVE_DHAT.  The tree is the k-ary one of
 * dpk_tree_choose_arity at every horizon: its fewer levels cut the lifting
 * sums' noise, which is most of the cost (doc/decisions/005-tree-arity.md).
 */
void
dpk_live_use_box(DpkLiveConfig *cfg, const DpkBox *box)
{
	int			tries;
	double		share;

	if (cfg->dhat == 0)
		return;
	cfg->box_metric = true;
	if (dpk_box_metric_spread(box) < 1.0 && cfg->dhat > 4)
		cfg->dhat = 4;
	/*
	 * sums per coordinate, and then the counts' larger share; a ball's keep
	 * the sums' default share (d = 384 on the unit sphere, horizon 4: live
	 * 27.5 at the default 0.85, 42.8 at 0.5)
	 */
	share = cfg->sum_share;
	if (!(cfg->ball > 0.0))
		cfg->sum_share = DPK_LIVE_L1_SUM_SHARE;
	dpk_live_use_sum_l1(cfg, box);
	if (cfg->sum_l1 == 0.0)
		cfg->sum_share = share;
	/* the next seed of a public sequence until the box keeps its share */
	for (tries = 0; tries < 64 &&
		 dpk_live_proj_box_share(cfg, box, cfg->proj_seed) < DPK_LIVE_PROJ_MIN_SHARE; tries++)
	{
		uint64_t	st = cfg->proj_seed;

		cfg->proj_seed = dpk_splitmix64(&st) & UINT64_C(0x7fffffffffffffff);
	}
}

/* Three projected dimensions for a box with few wide sides (see live_core.h). */
void
dpk_live_use_few_sides(DpkLiveConfig *cfg, const DpkBox *box, double size_hint)
{
	double		spread;

	if (cfg->dhat <= DPK_LIVE_FEW_SIDES_DHAT || size_hint < DPK_LIVE_FEW_SIDES_ROWS)
		return;
	spread = dpk_box_metric_spread(box);
	if (spread * spread * box->d < DPK_LIVE_FEW_SIDES)
		cfg->dhat = DPK_LIVE_FEW_SIDES_DHAT;
}

/* The l1 bound of a lifting contribution in a box (see live_core.h). */
double
dpk_live_box_sum_l1(const DpkBox *box)
{
	double		wmax = dpk_box_max_width(box),
				half = DPK_LIFT_UNITS / 2.0,
				l1 = 0.0;
	int			j;

	for (j = 0; j < box->d; j++)
	{
		double		w = box->upper[j] - box->lower[j];

		/* dpk_box_to_metric keeps the widest sides' positions exactly */
		l1 += w < wmax ? floor(half * (w / wmax)) + 1.0 : half;
	}
	return l1;
}

/* The ball of a norm bound, in metric positions (see live_core.h). */
void
dpk_live_use_ball(DpkLiveConfig *cfg, const DpkBox *box, double norm_bound)
{
	cfg->ball = cfg->dhat > 0 ? dpk_box_ball_radius(box, norm_bound) : 0.0;
	/* the projected box: as many of a projected coordinate's sd as the cube's */
	if (cfg->ball > 0.0)
		cfg->half_width = fmin(cfg->half_width,
							   DPK_BALL_HALF_WIDTH * cfg->ball / sqrt((double) box->d));
}

/* Copy r of a projected table's projection (see live_core.h). */
void
dpk_live_projection(const DpkLiveConfig *cfg, int r, DpkProjection *p)
{
	dpk_projection_init(p, cfg->d, cfg->dhat, dpk_projection_copy_seed(cfg->proj_seed, r),
						cfg->half_width);
}

/* One point's l2 bound in lifting units (see live_core.h). */
double
dpk_live_point_l2(const DpkLiveConfig *cfg)
{
	return dpk_lift_point_l2(cfg->d, cfg->ball);
}

/* Per-coordinate sums when the box makes them cheaper (see live_core.h). */
void
dpk_live_use_sum_l1(DpkLiveConfig *cfg, const DpkBox *box)
{
	DpkLiveConfig l1 = *cfg;

	cfg->sum_l1 = 0.0;
	if (cfg->dhat == 0 || !cfg->box_metric || cfg->delta > 0.0 || cfg->sum_share <= 0.0)
		return;
	l1.sum_l1 = dpk_live_box_sum_l1(box);
	if (cfg->ball > 0.0)
		l1.sum_l1 = fmin(l1.sum_l1, sqrt((double) cfg->d) * dpk_live_point_l2(cfg));
	if (dpk_discrete_laplace_variance(dpk_live_sum_scale(&l1)) <
		dpk_vector_noise_variance(dpk_live_sum_scale(cfg), cfg->d))
		cfg->sum_l1 = l1.sum_l1;
}

/*
 * The share of a box's metric spread a projection keeps (see live_core.h):
 * with D_j = w_j / w_max, ||P D||_F^2 / ((dhat / d) ||D||_F^2), the
 * smallest over the copies; its mean over random projections is 1.
 */
double
dpk_live_proj_box_share(const DpkLiveConfig *cfg, const DpkBox *box, uint64_t proj_seed)
{
	double		wmax = dpk_box_max_width(box),
				dd = 0.0,
				share = HUGE_VAL;
	int			r,
				i,
				j;

	for (j = 0; j < box->d; j++)
	{
		double		dj = (box->upper[j] - box->lower[j]) / wmax;

		dd += dj * dj;
	}
	for (r = 0; r < cfg->copies; r++)
	{
		DpkProjection p;
		double		pd = 0.0;

		dpk_projection_init(&p, box->d, cfg->dhat, dpk_projection_copy_seed(proj_seed, r),
							cfg->half_width);
		for (i = 0; i < cfg->dhat; i++)
			for (j = 0; j < box->d; j++)
			{
				double		v = p.mat[(size_t) i * box->d + j] *
					(box->upper[j] - box->lower[j]) / wmax;

				pd += v * v;
			}
		dpk_projection_free(&p);
		share = fmin(share, pd / ((double) cfg->dhat / box->d * dd));
	}
	return share;
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

	return dpk_live_tree_norm2(cfg, t) * dpk_noise_variance(&sn, cfg->d) /
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
	int			d = cfg->d,
				k = cfg->k,
				r,
				kp;
	uint64_t	ncells = dpk_live_copy_cells(cfg);
	double		count_var = dpk_live_projected_count_var(cfg, t),
				sum_var = dpk_live_projected_sum_var(cfg, t);
	double	   *nsum = dpk_alloc((size_t) cfg->copies * ncells * d * sizeof(double));
	double	   *ncount = dpk_alloc((size_t) cfg->copies * ncells * sizeof(double));
	double	   *reachable = dpk_alloc(cfg->copies * sizeof(double));
	double	   *cent = dpk_alloc((size_t) k * d * sizeof(double));
	double	   *sizes = dpk_alloc((size_t) k * sizeof(double));
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
			nsum[r * ncells * d + c] = sum[(size_t) r * ncells * d + c] / DPK_LIFT_UNITS;
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
			score = dpk_highd_cells_cluster(&proj[r], &hc, kp, cfg->threshold_sigmas,
											cfg->restarts, cfg->max_iter,
											seed + (uint64_t) kp, cent, sizes, &coreset);
			/* every row is in the ball, so its nearest point is nearer to all */
			for (i = 0; i < kp; i++)
				dpk_box_ball_clamp(d, cfg->ball, cent + (size_t) i * d);
			if (cfg->lift_weighted)
				score += live_unlifted_charge(d, kp, cent, sizes, noisy_n);
			if (score < best)
			{
				best = score;
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
	for (r = 0; r < cfg->copies; r++)
		dpk_projection_free(&proj[r]);
	dpk_free(proj);
	dpk_free(nsum);
	dpk_free(ncount);
	dpk_free(reachable);
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
