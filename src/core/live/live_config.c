/*
 * live_config.c
 *		Live tables: a table's configuration (see live_config.h): defaults,
 *		the counted level, projections, boxes and balls.
 */
#include "live_config.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "live_budget.h"
#include "live_core.h"
#include "dpk_mem.h"
#include "lift.h"
#include "live_reach.h"
#include "projection.h"
#include "prng.h"
#include "rugnik.h"
#include "share_tree.h"
#include "sqrt_counter.h"
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

/* Defaults with a given tree arity (see live_config.h). */
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
	cfg->coreset_restarts = cfg->restarts;
	cfg->max_iter = 100;
	cfg->screen_iter = DPK_LIVE_SCREEN_ITER;
	cfg->screen_keep = DPK_LIVE_SCREEN_KEEP;
	cfg->delta = 0.0;
	cfg->counter = DPK_LIVE_COUNTER_TREE;
	cfg->box_metric = false;
	cfg->lift_weighted = false;
	cfg->rest_mean = false;
	cfg->sum_l1 = 0.0;
	cfg->ball = 0.0;
	cfg->heldout_z = DPK_LIVE_HELDOUT_Z;
	cfg->centred_offsets = true;
	cfg->laplace_tail = false;
}

/* Gaussian coreset thresholds for a release (see live_config.h). */
bool
dpk_live_gauss_tail(const DpkLiveConfig *cfg)
{
	return cfg->delta > 0.0 && cfg->dhat > 0 && cfg->ball > 0.0 && !cfg->laplace_tail;
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
 * at most DPK_LIVE_BALL_MAX_VALUES noisy values a copy (see live_config.h).
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

/* Draws of a square-root table's last release (see live_config.h). */
double
dpk_live_sqrt_draws(const DpkLiveConfig *cfg)
{
	double		cells = cfg->dhat > 0
		? (double) cfg->copies * (double) dpk_live_copy_cells(cfg)
		: pow(2.0, (double) cfg->level * cfg->d);
	double		coords = 1.0 + (cfg->sum_share > 0.0 ? cfg->d : 0);

	/*
	 * A projected table: the counts, and the sums with square_root_sums
	 * (DPK_LIVE_SQRT_FAMILY); with square_root_lifted the sums of at most
	 * dpk_live_lifted_cap cells.
	 */
	if (cfg->counter == DPK_LIVE_COUNTER_SQRT_LIFTED && cfg->dhat > 0)
		return 2.0 * cfg->horizon * (cells + dpk_live_lifted_cap(cfg) * cfg->d);
	if (cfg->dhat > 0)
		return 2.0 * cfg->horizon * cells *
			(DPK_LIVE_SQRT_FAMILY(cfg, 1) ? coords : 1.0);
	return 2.0 * cfg->horizon * (cells * coords + (cfg->norm_share > 0.0 ? 1.0 : 0.0));
}

/* Cells whose lifting sums a square_root_lifted release may draw (see live_config.h). */
double
dpk_live_lifted_cap(const DpkLiveConfig *cfg)
{
	double		counts = 2.0 * cfg->horizon * (double) cfg->copies *
		(double) dpk_live_copy_cells(cfg);

	if (cfg->d <= 0 || counts >= DPK_LIVE_SQRT_SUMS_MAX_DRAWS)
		return 0.0;
	return floor((DPK_LIVE_SQRT_SUMS_MAX_DRAWS - counts) / (2.0 * cfg->horizon * cfg->d));
}

/* Noise draws of one cell of a projected Gaussian table (see live_config.h). */
double
dpk_live_cell_draws(const DpkLiveConfig *cfg, uint32_t t, bool sums)
{
	double		tree = (double) (t > 0 ? __builtin_popcount(t) : 1);
	double		count = DPK_LIVE_SQRT_FAMILY(cfg, 0) ? 2.0 * t : tree;
	double		sum = DPK_LIVE_SQRT_FAMILY(cfg, 1) ? 2.0 * t : tree;

	return count + (sums ? cfg->d * sum : 0.0);
}

/* The counter's stored name (see live_config.h). */
const char *
dpk_live_counter_name(int counter)
{
	return counter == DPK_LIVE_COUNTER_SQRT ? "square_root"
		: counter == DPK_LIVE_COUNTER_SHARE ? "share_tree"
		: counter == DPK_LIVE_COUNTER_SQRT_SUMS ? "square_root_sums"
		: counter == DPK_LIVE_COUNTER_SQRT_LIFTED ? "square_root_lifted" : "tree";
}

/* Noise draws of a share-tree table's costliest release (see live_config.h). */
double
dpk_live_share_draws(const DpkLiveConfig *cfg)
{
	return pow(2.0, (double) cfg->level * cfg->d) *
		dpk_share_tree_max_nodes(dpk_live_share_tree(cfg)) *
		(1.0 + (cfg->sum_share > 0.0 ? cfg->d : 0));
}

/* Whether the default asks for the share tree (see live_config.h). */
bool
dpk_live_share_tree_by_default(const DpkLiveConfig *cfg)
{
	return cfg->delta <= 0.0 && cfg->dhat == 0 &&
		cfg->horizon >= DPK_LIVE_SHARE_AUTO_MIN_HORIZON;
}

/* The share tree for a new pure low-d table (see live_config.h). */
void
dpk_live_use_share_tree(DpkLiveConfig *cfg, const DpkBox *box, double size_hint,
						double max_cells)
{
	DpkLiveConfig probe = *cfg;
	double		largest;

	if (cfg->delta > 0.0 || cfg->dhat > 0 || !dpk_share_tree_beats_kary(cfg->horizon))
		return;
	probe.counter = DPK_LIVE_COUNTER_SHARE;
	probe.level = box ? dpk_live_choose_level_box(&probe, box, size_hint, max_cells)
		: dpk_live_choose_level(&probe, size_hint, max_cells);
	if (dpk_live_share_draws(&probe) > DPK_LIVE_SHARE_MAX_DRAWS ||
		!dpk_live_scales_representable(&probe, &largest))
		return;
	*cfg = probe;
}

/*
 * Whether a projected Gaussian table may draw the lifting sums of the cells
 * a release lifts from alone (square_root_lifted; a release reads no
 * other's): when its counts alone fit DPK_LIVE_SQRT_MAX_DRAWS, as a
 * 'square_root' table's must (doc/decisions/084).
 */
static bool
live_may_lift_sums(const DpkLiveConfig *cfg)
{
	return cfg->delta > 0.0 && cfg->dhat > 0 && cfg->sum_share > 0.0 &&
		2.0 * cfg->horizon * (double) cfg->copies * (double) dpk_live_copy_cells(cfg) <=
		DPK_LIVE_SQRT_MAX_DRAWS;
}

/*
 * A projected Gaussian table with its counts and lifting sums on the square
 * root (DPK_LIVE_COUNTER_SQRT_SUMS, or DPK_LIVE_COUNTER_SQRT_LIFTED where
 * every cell's sums would not fit but the lifted cells' do), its level
 * chosen for that noise and never finer than the tree's (only the tree's
 * level was measured: doc/decisions/059), not coarsened: true and *cfg set when forced, or when its
 * last release reads at most DPK_LIVE_SQRT_SUMS_MAX_DRAWS draws with every
 * variance representable under the norm unit attach will give it; else
 * false and *cfg unchanged.
 */
static bool
live_use_sqrt_sums(DpkLiveConfig *cfg, const DpkLiveConfig *tree, const DpkBox *box,
				   double size_hint, double max_cells, bool forced)
{
	DpkLiveConfig probe = *cfg,
				normed;
	double		largest;

	probe.counter = DPK_LIVE_COUNTER_SQRT_SUMS;
	probe.level = box ? dpk_live_choose_level_box(&probe, box, size_hint, max_cells)
		: dpk_live_choose_level(&probe, size_hint, max_cells);
	if (!forced && probe.level > tree->level)
		probe.level = tree->level;

	/*
	 * Too many draws for every cell's sums: those of the cells a release
	 * lifts from alone (the same values where it reads them), forced or not,
	 * when at least DPK_LIVE_LIFTED_MIN_CAP cells fit.
	 */
	if (dpk_live_sqrt_draws(&probe) > DPK_LIVE_SQRT_SUMS_MAX_DRAWS && live_may_lift_sums(&probe))
	{
		probe.counter = DPK_LIVE_COUNTER_SQRT_LIFTED;
		if (dpk_live_lifted_cap(&probe) < DPK_LIVE_LIFTED_MIN_CAP)
			probe.counter = DPK_LIVE_COUNTER_SQRT_SUMS;
	}
	if (!forced)
	{
		normed = probe;
		dpk_live_use_norm_shift(&normed);
		if (dpk_live_sqrt_draws(&probe) > DPK_LIVE_SQRT_SUMS_MAX_DRAWS ||
			!dpk_live_scales_representable(&normed, &largest))
			return false;
	}
	*cfg = probe;
	return true;
}

/* The counter of a new Gaussian table (see live_config.h). */
void
dpk_live_use_counter(DpkLiveConfig *cfg, const DpkBox *box, double size_hint,
					 double max_cells, bool forced)
{
	DpkLiveConfig tree = *cfg,
				probe;
	double		largest,
				min_cells;
	int			dims = cfg->dhat > 0 ? cfg->dhat : cfg->d;

	cfg->counter = DPK_LIVE_COUNTER_TREE;
	if (cfg->delta <= 0.0)
		return;
	if (!forced && cfg->horizon > DPK_LIVE_SQRT_MAX_HORIZON)
		return;
	/* a projected table: its lifting sums on the square root too, if they fit */
	if (cfg->dhat > 0 && live_use_sqrt_sums(cfg, &tree, box, size_hint, max_cells, forced))
		return;
	cfg->counter = DPK_LIVE_COUNTER_SQRT;
	cfg->level = box ? dpk_live_choose_level_box(cfg, box, size_hint, max_cells)
		: dpk_live_choose_level(cfg, size_hint, max_cells);
	if (forced)
		return;
	/*
	 * A projected table's sums keep the tree and would spread over a finer
	 * grid: its counts are measured at the tree's level, not finer (doc/
	 * decisions/041).
	 */
	if (cfg->dhat > 0 && cfg->level > tree.level)
		cfg->level = tree.level;
	/*
	 * Coarser within the budget: at most one level below the tree's, and
	 * only to a level of DPK_LIVE_SQRT_MIN_CELLS cells (a copy's) or more
	 * (doc/decisions/039: measured there); a low-d table to
	 * DPK_LIVE_SQRT_MIN_CELLS_LOWD, where the square root one level coarser
	 * still beats the tree's decomposition it would fall back to (doc/
	 * decisions/068).
	 */
	min_cells = cfg->dhat > 0 ? DPK_LIVE_SQRT_MIN_CELLS : DPK_LIVE_SQRT_MIN_CELLS_LOWD;
	while (dpk_live_sqrt_draws(cfg) > DPK_LIVE_SQRT_MAX_DRAWS && cfg->level > 0 &&
		   (cfg->level > tree.level ||
			(cfg->level == tree.level &&
			 pow(2.0, (double) (cfg->level - 1) * dims) >= min_cells)))
		cfg->level--;
	/* representable with the norm counter's unit attach will give it */
	probe = *cfg;
	dpk_live_use_norm_shift(&probe);
	if (dpk_live_sqrt_draws(cfg) > DPK_LIVE_SQRT_MAX_DRAWS ||
		!dpk_live_scales_representable(&probe, &largest))
		*cfg = tree;
}

/*
 * The nodes' (or measurements') variances a typical release sums: about a
 * third of the h nodes (NAF weight) for the signed counter, half of them
 * for the plain decomposition of Gaussian tables, the weights' mean squared
 * norm from T/4 for the least-squares one and for the square-root counter,
 * and for the share tree its variance in full-budget nodes over 33
 * releases from T/4.
 */
static double
live_typical_norm2(const DpkLiveConfig *cfg, bool sqrt_family)
{
	/* the share tree's, in full-budget nodes, kept per horizon */
	static uint32_t share_horizon = 0;
	static double share_units = 0.0;

	if (DPK_LIVE_SHARE(cfg))
	{
		if (share_horizon != cfg->horizon)
		{
			share_horizon = 0;
			share_units = dpk_share_tree_sampled_units(dpk_live_share_tree(cfg));
			share_horizon = cfg->horizon;
		}
		return share_units;
	}
	if (sqrt_family)
		return dpk_sqrt_typical_norm2(dpk_sqrt_counter_cached(cfg->horizon));
	return fmax(1.0, cfg->delta > 0.0 ? dpk_tree_height(cfg->horizon) / 2.0
				: cfg->estimator == DPK_TREE_SIGNED && cfg->arity <= DPK_TREE_ARITY_BINARY
				? dpk_tree_height(cfg->horizon) / 3.0
				: dpk_tree_typical_norm2((DpkTreeEstimator) cfg->estimator, cfg->arity,
										 cfg->horizon));
}

/* The count noise of a typical release (see live_config.h). */
double
dpk_live_level_count_var(const DpkLiveConfig *cfg)
{
	DpkLiveConfig probe = *cfg;
	DpkNoise	cn;

	probe.level = 0;
	cn = dpk_live_count_noise(&probe);
	return dpk_noise_variance(&cn, 0) * live_typical_norm2(cfg, DPK_LIVE_SQRT_FAMILY(cfg, 0));
}

/* Lifting-sum noise of one cell at a typical release (see live_config.h). */
double
dpk_live_level_sum_sd(const DpkLiveConfig *cfg)
{
	DpkLiveConfig probe = *cfg;
	DpkNoise	sn;

	probe.level = 0;
	sn = dpk_live_sum_noise(&probe);
	/* the sums' counter's weights (the counts' but in a projected square-root table) */
	return sqrt(dpk_noise_variance(&sn, cfg->d) *
				live_typical_norm2(cfg, DPK_LIVE_SQRT_FAMILY(cfg, 1))) / DPK_LIFT_UNITS;
}

/* Whether a projected table counts one cell (DPK_LIVE_MEAN_ONLY_SD). */
static bool
live_mean_only(const DpkLiveConfig *cfg, double size_hint)
{
	return cfg->dhat > 0 &&
		dpk_live_level_sum_sd(cfg) * cfg->k / fmax(size_hint, 1.0) >= DPK_LIVE_MEAN_ONLY_SD;
}

/* Counted level for a size hint (see live_config.h). */
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
	 * (doc/decisions/006-lowd-counted-level.md).  A low-d Gaussian table on
	 * the square root has noise correlated over releases like least
	 * squares: one level below m too, but not below
	 * DPK_LIVE_SQRT_LOWD_SHIFT_MIN_CELLS cells (16 and 32 cells at d = 4, 5
	 * lost: doc/decisions/076); on the plain decomposition it keeps
	 * RUGNIK's level.
	 */
	if (cfg->dhat > 0)
		shift = 0.0;
	else if (cfg->delta > 0.0)
		shift = cfg->counter == DPK_LIVE_COUNTER_SQRT ? DPK_LIVE_SQRT_LOWD_LEVEL_SHIFT : 0.0;
	else
		shift = cfg->estimator != DPK_TREE_SIGNED
			? (cfg->arity > DPK_TREE_ARITY_BINARY ? 1.5 : 1.0) : 0.0;
	level = isinf(m) ? INT_MAX : (int) ceil(log2(fmax(m, 1.0)) - 0.25 - shift);
	if (level < 0)
		level = 0;
	if (cfg->delta > 0.0 && shift > 0.0 && !isinf(m))
	{
		int			unshifted = (int) ceil(log2(fmax(m, 1.0)) - 0.25);

		while (level < unshifted &&
			   ldexp(1.0, level * cfg->d) < DPK_LIVE_SQRT_LOWD_SHIFT_MIN_CELLS)
			level++;
	}
	max_level = live_max_level(cfg, max_cells);
	if (level > max_level)
		level = max_level;
	if (live_mean_only(cfg, size_hint))
		level = 0;
	return live_ball_level_cap(cfg, level);
}

/* Counted level of a table with its box (see live_config.h). */
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
	cfg->coreset_restarts = cfg->lift_weighted ? DPK_LIVE_CORESET_RESTARTS : cfg->restarts;
}

/*
 * A new projected table's geometry and tree for its box (see live_config.h).
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

/* Three projected dimensions for a box with few wide sides (see live_config.h). */
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

/* The l1 bound of a lifting contribution in a box (see live_config.h). */
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

/* The ball of a norm bound, in metric positions (see live_config.h). */
void
dpk_live_use_ball(DpkLiveConfig *cfg, const DpkBox *box, double norm_bound)
{
	cfg->ball = cfg->dhat > 0 ? dpk_box_ball_radius(box, norm_bound) : 0.0;
	/* the projected box: as many of a projected coordinate's sd as the cube's */
	if (cfg->ball > 0.0)
		cfg->half_width = fmin(cfg->half_width,
							   DPK_BALL_HALF_WIDTH * cfg->ball / sqrt((double) box->d));
}

/* A new wide (epsilon, delta) table's projected dimensions under a ball (see live_config.h). */
void
dpk_live_use_ball_dims(DpkLiveConfig *cfg, const DpkBox *box, double size_hint,
					   double max_cells)
{
	DpkLiveConfig probe = *cfg;
	double		cells;

	if (!(cfg->ball > 0.0) || cfg->delta <= 0.0 || cfg->d < DPK_LIVE_BALL_DHAT_MIN_D ||
		cfg->dhat <= DPK_LIVE_BALL_DHAT)
		return;
	/* the level each would get, as dpk_live_use_box leaves a ball's table */
	probe.box_metric = true;
	probe.level = dpk_live_choose_level_box(&probe, box, size_hint, max_cells);
	cells = (double) dpk_live_copy_cells(&probe);
	probe.dhat = DPK_LIVE_BALL_DHAT;
	probe.level = dpk_live_choose_level_box(&probe, box, size_hint, max_cells);
	if ((double) dpk_live_copy_cells(&probe) < cells)
		cfg->dhat = DPK_LIVE_BALL_DHAT;
}

/* Copy r of a projected table's projection (see live_config.h). */
void
dpk_live_projection(const DpkLiveConfig *cfg, int r, DpkProjection *p)
{
	dpk_projection_init(p, cfg->d, cfg->dhat, dpk_projection_copy_seed(cfg->proj_seed, r),
						cfg->half_width);
}

/* One point's l2 bound in lifting units (see live_config.h). */
double
dpk_live_point_l2(const DpkLiveConfig *cfg)
{
	return dpk_lift_point_l2(cfg->d, cfg->ball);
}

/* Per-coordinate sums when the box makes them cheaper (see live_config.h). */
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
 * The share of a box's metric spread a projection keeps (see live_config.h):
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
