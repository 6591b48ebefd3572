/*
 * highd.h
 *		The high-dimensional one-shot pipeline: projected grids, lifting by
 *		original-space sums, several copies.
 *
 * "Differential Privacy for Clustering Under Continual Observation"
 * (section 5) reduces the dimension with a data-independent random
 * projection (projection.h), clusters the low-dimensional image with the
 * grid machinery, and lifts each low-dimensional centre back to R^d as the
 * mean of its cluster computed from noisy sums kept in the ORIGINAL space
 * (lift.h); R independent copies boost the success probability and the copy
 * with the lowest private cost estimate is published (doc/design.md,
 * section "High dimensions").
 *
 * Copies.  The one-shot pipeline (dpk_highd_oneshot_cluster) combines its R
 * copies instead of choosing one (DPK_LIFT_JOINT, measured best): each copy
 * clusters its projected grid, the tuple of a point's R projected labels
 * makes its group, groups are clustered at the concatenation of their
 * projected centres, and each of the k parts is lifted from a single noisy
 * (count, sum).  Its partition depends on the noisy output, so it needs
 * fresh budget per release and has no continual counterpart.  The paper's
 * way, which fixed per-cell counters allow, is DPK_LIFT_CELL: per copy, noisy
 * sums per projected cell, lifting over the cells of each centre and the
 * copy with the best private score published; dpk_highd_cells_cluster does
 * one copy of it from any noisy per-cell statistics.
 *
 * Everything here is plain C on dpk_alloc; no PostgreSQL headers.
 */
#ifndef DPK_HIGHD_H
#define DPK_HIGHD_H

#include <stddef.h>
#include <stdint.h>

#include "coreset.h"
#include "grid.h"
#include "lift.h"
#include "noise.h"
#include "projection.h"

/*
 * From this dimension on use the projection pipeline; below it the low-d
 * pipeline (dpk_lowd_cluster) is as good (see dpk_highd_defaults).
 */
#define DPK_HIGHD_MIN_D 6

/*
 * One copy's noisy per-cell statistics, as continual counters would keep
 * them: counts of the projected grid (m^dhat cells, row-major as
 * dpk_grid_cell numbers them) and, per lifting cell, sums in the original
 * space.  The lifting cells are the grid's own (lift_m == m, counts shared)
 * or a coarser grid of lift_m^dhat cells with its own noisy counts.
 */
typedef struct DpkHighdCells
{
	int			m;				/* projected grid: m^dhat cells */
	const double *count;		/* m^dhat noisy counts */
	double		count_var;		/* noise variance of one count */
	int			lift_m;			/* lifting cells per dimension (0: m) */
	const double *lift_count;	/* lift_m^dhat noisy counts (unused if lift_m == m) */
	double		lift_count_var;
	const double *sum;			/* lift_m^dhat * d noisy sums of u - 1/2 */
	double		sum_var;		/* noise variance of one coordinate sum */
	const double *sumnorm;		/* lift_m^dhat noisy sums of ||u - 1/2||^2, or NULL */
} DpkHighdCells;

/*
 * Centres of one copy from its noisy per-cell statistics (post-processing
 * only; statistics in normalized units, see above): coreset of the grid
 * cells whose count clears dpk_coreset_threshold, weighted k-means in the
 * projected space, every lifting cell above its threshold to the centre
 * holding most of the noisy mass of its coreset cells (else the centre
 * nearest its middle), then dpk_lift_centers with the pseudo-inverse of the
 * projected centres as fallback.  Writes k normalized centres (k * d) and
 * sizes (k); returns the copy's private score (dpk_lift_cost, lower is
 * better) for choosing among copies.
 */
double		dpk_highd_cells_cluster(const DpkProjection *p, const DpkHighdCells *hc,
									int k, double threshold_sigmas, int restarts,
									int max_iter, uint64_t seed, double *centers,
									double *sizes, int *coreset_size);

/* How the one-shot pipeline lifts centres (measured, see the defaults). */
typedef enum DpkLiftMode
{
	DPK_LIFT_JOINT,				/* R grids; one noisy count per group of points
								 * sharing all R projected labels; k-means of
								 * the groups at their concatenated projected
								 * centres; one noisy (count, sum) per part */
	DPK_LIFT_CLUSTER,			/* per copy: one noisy (count, sum) per
								 * projected cluster; best private score wins */
	DPK_LIFT_CELL				/* per copy: noisy sums per projected grid cell
								 * (what continual counters can keep); best
								 * private score wins */
} DpkLiftMode;

/* Configuration of a high-dimensional one-shot release. */
typedef struct DpkHighdConfig
{
	double		epsilon;		/* total budget of the call */
	int			k;
	double		public_n;		/* < 0: unknown, buy a noisy N */
	double		n_share;		/* share of epsilon for the noisy N */
	int			dhat;			/* projected dimension; 0: dpk_highd_dhat */
	int			copies;			/* R independent projections */
	double		half_width;		/* projected box half-width (row norm 1) */
	double		group_share;	/* joint mode: share of epsilon (after N) on
								 * the group counts */
	double		lift_share;		/* selection modes: share of a copy's budget
								 * on its lifting statistics; joint mode:
								 * share of epsilon (after N) on the lift */
	double		lift_count_share;	/* share of the lifting (and refinement)
									 * budget on counts, the rest on sums
									 * (not in cell mode with lift_coarsen
									 * 1); < 0: 1/(1 + d^(2/3)) */
	DpkLiftMode lift_mode;
	double		norm_share;		/* cell mode: share of the lifting budget on
								 * per-cell sums of squared norms */
	int			lift_coarsen;	/* cell mode: lifting cells are this many
								 * grid cells wide per dimension (1: the
								 * grid's own cells, sharing its counts) */
	int			refine_steps;	/* private Lloyd steps in the original space
								 * after the lift */
	double		refine_share;	/* share of epsilon (after N) on refinement */
	double		grid_scale;		/* multiplies RUGNIK's m in projected space */
	double		threshold_sigmas;	/* keep cells above this many noise sd */
	double		max_cells;		/* public cap on m^dhat */
	double		max_lift_values;	/* cell mode: cap on lifting cells * d;
									 * joint mode: on k^R groups * (1 + R dhat)
									 * (fewer copies are combined) */
	uint64_t	proj_seed;		/* public seed of the projections */
	int			restarts;
	int			max_iter;
} DpkHighdConfig;

/*
 * Defaults, measured with test/bench/bench_highd.c (Gaussian mixtures,
 * box [0,100]^d, K = 10, N = 1e5 unless said; normalized cost = cost of the
 * released centres / non-private cost, geometric mean over 4-6 seeds):
 *
 *	 lift_mode = JOINT.  At d = 64, eps = 0.5: joint 1.15; selecting the best
 *		copy by private score with per-cluster sums (R = 3) 3.2, and with a
 *		private Lloyd step after the choice 1.2-2.4 with single runs up to 5
 *		(a projection merging two clusters is not undone); selection with
 *		per-cell sums (R = 2, what continual counters allow) 4.9.  Selection
 *		splits the sum budget R ways; the joint mode spends it once.
 *	 dhat = 4.  dhat = 3 fails more at N = 1e4 (d = 16/32, eps = 1: 1.69/2.46
 *		against 1.27/1.81); dhat = 5 is level at N = 1e5 but had a failed run
 *		at d = 8 (2.2).
 *	 copies = 2, grid_scale = 1.7 (m = 1.7 x RUGNIK's m for dhat at the
 *		grid's count noise).  At N = 1e5 every pair of R in {2, 3, 4} and
 *		grid_scale in {1, 1.4, 1.7, 2} is level (within 0.01, except d = 64,
 *		eps = 0.5: 1.13-1.15); grid_scale 0.7 fails runs.  At N = 1e4 the
 *		grid must separate clusters the projection has brought close, and
 *		finer grids with fewer copies win: over d = 8..64, eps = 0.5 and 1,
 *		geometric mean 3.09 for R = 3, grid_scale 1 against 2.49 for R = 2,
 *		1.7 (d = 8, eps = 0.5: 2.49 -> 1.34; d = 16: 3.49 -> 2.03).
 *	 lift_share = 0.7, group_share = 0.05 (the grids share the remaining
 *		0.25; measured with R = 3, grid_scale 1).  The lift noise dominates
 *		at high d (its cost excess grows like d^2 / (eps^2 N_j^2 sd^2), N_j
 *		the cluster size, sd its spread in box widths): d = 64, eps = 0.5 gives 1.19 / 1.15 / 1.11
 *		/ 1.10 at 0.6 / 0.7 / 0.8 / 0.85 but runs fail from 0.9 (3.1, 5.0),
 *		and at N = 1e4 (d = 16, eps = 0.5) 0.8 already fails (2.6, max 5.6,
 *		against 2.2 at 0.6).  group_share 0.05 and 0.1 are level.
 *	 refine_steps = 0.  With the joint partition a private Lloyd step costs
 *		more lift noise than it fixes (d = 64, eps = 0.5: lift 0.3 plus a
 *		step on 0.4 gives 1.43, lift 0.5 and no step 1.26).
 *	 half_width = 0.75.  0.5 and 1.0 are level at N = 1e5; 1.0 is worse at
 *		N = 1e4 (d = 32, eps = 1: 2.60 against 1.81).
 *	 lift_count_share = 1 / (1 + d^(2/3)): minimises the variance of a mean
 *		Sum / Count when the count has sensitivity 1 and the sum d U / 2
 *		(per-coordinate Laplace).  With the cube noise the optimum moves to
 *		about 1 / (1 + d^(2/3) / 1.8); measured level (d = 16: 1.0100 /
 *		1.0079 against 1.0093 / 1.0077 at eps 0.5 / 1; d = 64: 1.0320 /
 *		1.0129 against 1.0327 / 1.0131), so it stays.
 *	 n_share = 0.05, threshold_sigmas = 2: as the low-d pipeline.
 *	 DPK_HIGHD_MIN_D = 6: at d = 5 and 6 both pipelines are level at N = 1e5
 *		(K = 10, eps 0.5 / 1, both with cube-noise sums: d = 5: 1.007 /
 *		1.009 against the low-d 1.008 / 1.007; d = 6: 1.008 / 1.007 against
 *		1.009 / 1.007; d = 7: 1.047 / 1.007 against 1.011 / 1.008, one bad
 *		seed of five at eps 0.5); from d = 8 on this one
 *		wins (at N = 1e4, d = 8: 1.34 / 1.09 against 1.45 / 1.19) and from
 *		d = 32 the low-d grid has one cell and costs 40-50.
 */
void		dpk_highd_defaults(DpkHighdConfig *cfg, double epsilon, int k);

/* The projected dimension used when cfg->dhat is 0. */
int			dpk_highd_dhat(int d, int k);

/*
 * The number of copies actually run: cfg->copies, except in joint mode
 * where it is lowered until the k^R groups times (d + 1) noisy values fit
 * in cfg->max_lift_values (public: depends on the configuration only).
 */
int			dpk_highd_copies(const DpkHighdConfig *cfg, int d);

/* Per-release details, for benchmarks and the privacy report. */
typedef struct DpkHighdInfo
{
	int			dhat;
	int			copies;
	int			chosen;			/* index of the published copy (-1: joint) */
	double		eps_n;			/* budget on the noisy N (0 if public) */
	double		eps_grid;		/* per copy, on projected cell counts */
	double		eps_group;		/* joint mode, once: group counts */
	double		eps_lift_count; /* per copy (selection), once (joint) */
	double		eps_lift_sum;	/* per copy (selection), once (joint) */
	double		eps_lift_norm;	/* per copy (cell mode) */
	double		eps_refine;		/* per refinement step */
	double		count_scale;	/* noise scales: counts in points (Laplace), */
	double		group_scale;	/* sums in DPK_LIFT_UNITS (l-infinity scale of
								 * dpk_vector_noise), norms in units^2 */
	double		lift_count_scale;
	double		sum_scale;
	double		norm_scale;
	double		refine_count_scale;
	double		refine_sum_scale;
	int			lift_m;			/* cell mode: lifting cells per dimension */
	double		score[16];		/* selection modes: private score of the
								 * first 16 copies */
	double	   *copy_centers;	/* selection modes, if not NULL on entry:
								 * receives copies * k * d normalized
								 * centres, every copy's lift */
} DpkHighdInfo;

/*
 * One-shot epsilon-DP k-means for high d (same contract as
 * dpk_lowd_cluster): exactly cfg->k centres in the original space of the
 * box, noisy sizes, no data-dependent error.  points: n * d, NaN-free
 * (+-Inf allowed, clamped).  Privacy, by sequential composition (every
 * point is in every copy and in exactly one cell, group or part of each):
 * joint mode eps_n + copies * eps_grid + eps_group + eps_lift_count +
 * eps_lift_sum + refine_steps * eps_refine = cfg->epsilon; selection modes
 * eps_n + copies * (eps_grid + eps_lift_count + eps_lift_sum +
 * eps_lift_norm) + refine_steps * eps_refine = cfg->epsilon.
 */
void		dpk_highd_oneshot_cluster(const DpkBox *box, const double *points,
									  size_t n, const DpkHighdConfig *cfg,
									  DpkStream *s, DpkOneshotResult *res);

/*
 * The same, also filling info (may be NULL; its copy_centers pointer is read
 * on entry, every other field is written).
 */
void		dpk_highd_oneshot_cluster_info(const DpkBox *box, const double *points,
										   size_t n, const DpkHighdConfig *cfg,
										   DpkStream *s, DpkOneshotResult *res,
										   DpkHighdInfo *info);

#endif
