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
 * Copies.  The one-shot pipeline (dpk_highd_oneshot_cluster, the joint
 * mode) combines its R copies instead of choosing one: each copy clusters its
 * projected grid, the tuple of a point's R projected labels makes its
 * group, groups are clustered at the concatenation of their projected
 * centres, and each of the k parts is lifted from a single noisy (count,
 * sum).  Its partition depends on the noisy output, so it needs fresh budget
 * per release and has no continual counterpart.  The paper's way, which
 * fixed per-cell counters allow, is to lift per copy from noisy sums per
 * projected cell and publish the copy with the best private score:
 * dpk_highd_cells_cluster does one copy of it from any noisy per-cell
 * statistics (live tables use it).  One-shot selection modes, with their
 * own split of epsilon, are research variants composed from the stages at
 * the end of this header in test/bench/highd_research.c.  k-means
 * releases with a norm bound and delta > 0 replace the joint lift by a seed
 * from a SimHash tree crossed with the joint partition
 * (dpk_highd_tree_seed), then take private refinement steps (Lloyd steps
 * in the original space).
 *
 * Everything here is plain C on dpk_alloc; no PostgreSQL headers.
 */
#ifndef DPK_HIGHD_H
#define DPK_HIGHD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "highd_budget.h"
#include "highd_column.h"
#include "coreset.h"
#include "dgauss.h"
#include "grid.h"
#include "kmedian.h"
#include "lift.h"
#include "noise.h"
#include "projection.h"

/*
 * From this dimension on use the projection pipeline; below it the low-d
 * pipeline (dpk_lowd_cluster) is as good (doc/decisions/021-highd-oneshot.md).
 */
#define DPK_HIGHD_MIN_D 6

/*
 * A one-shot k-means release with a norm bound and delta > 0
 * (dpk_highd_use_ball): this many private Lloyd steps in the original
 * space, sharing this part of rho after N
 * (doc/decisions/032-mean-guard-and-refinement.md).
 */
#define DPK_HIGHD_BALL_REFINE_STEPS 3
#define DPK_HIGHD_BALL_REFINE_SHARE 0.5

/*
 * The same releases seed their refinement from a SimHash tree in the
 * original space crossed with the projected partition
 * (dpk_highd_tree_seed): at most this many levels of sign patterns, a node
 * kept while its noisy count clears DPK_HIGHD_BALL_TREE_NODE leaf-mean
 * noise norms per ball radius, the tree's counts taking this share of rho
 * after N and the cells' statistics the lift's share
 * (doc/decisions/042-simhash-tree-seed.md).
 */
#define DPK_HIGHD_BALL_TREE_DEPTH 12
#define DPK_HIGHD_BALL_TREE_NODE 10.0
#define DPK_HIGHD_BALL_TREE_SHARE 0.05
#define DPK_HIGHD_BALL_TREE_LIFT_SHARE 0.30

/*
 * Default joint_group_bytes: the groups' counts and sums the joint k-means
 * keeps for its two passes, 64 MB (doc/decisions/080).
 */
#define DPK_JOINT_GROUP_BYTES (64.0 * 1024 * 1024)

/*
 * Pure k-means releases without a norm bound from this d on
 * (dpk_highd_is_wide): the lift takes this share of epsilon after N and
 * the projected grids are this multiple of RUGNIK's size
 * (doc/decisions/037-highd-pure-families.md).
 */
#define DPK_HIGHD_WIDE_MIN_D 256
#define DPK_HIGHD_WIDE_LIFT_SHARE 0.85
#define DPK_HIGHD_WIDE_GRID_SCALE 1.35

/*
 * One copy's noisy per-cell statistics, as continual counters would keep
 * them: counts of the projected grid (m^dhat cells, row-major as
 * dpk_grid_cell numbers them) and, per lifting cell, sums in the original
 * space.  The lifting cells are the grid's own (lift_m == m, counts shared)
 * or a coarser grid of lift_m^dhat cells with its own noisy counts.
 */
/* A noisy projected grid: m cells per dimension of dhat, one noisy count each. */
typedef struct DpkNoisyGrid
{
	int			dhat;			/* projected dimensions */
	int			m;				/* cells per dimension */
	const double *count;		/* m^dhat noisy counts */
	double		count_var;		/* the variance of each count's noise */
	bool		gauss_tail;		/* Gaussian count noise: the coreset threshold
								 * of dpk_coreset_threshold_gauss; false: of
								 * dpk_coreset_threshold (Laplace) */
} DpkNoisyGrid;

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
	double		space_noise2;	/* > 0 (lift_m == m only): cluster again in the
								 * original space (dpk_highd_cells_space), cells
								 * whose lifted mean's squared noise is at most
								 * this being its points; 0: projected only */
	bool		lift_weighted;	/* lift by dpk_lift_centers_weighted (large d)
								 * instead of dpk_lift_centers_heavy, its
								 * risk added to the returned score */
	double		threshold_cells;	/* > 0: only this many cells can hold
									 * points (the others' counts are zero),
									 * the coreset threshold's cell count;
									 * 0: all m^dhat */
	double		plane_cells;	/* >= 0: lift with the projection as a
								 * DpkLiftPlane, each centre's target the
								 * noisy-count-weighted mean of its lifting
								 * cells' midpoints, var this times a cell's
								 * quantization variance (2w/lift_m)^2/12 (0:
								 * the target taken as exact); < 0: no plane */
	bool		rest_mean;		/* the projected fallback's part outside the
								 * projection's row space (the James-Stein
								 * target there) leans from the box's
								 * middle toward the other centres' noisy
								 * mean (dpk_lift_rest_mean) */
	bool		gauss_tail;		/* Gaussian count noise: coreset thresholds
								 * of dpk_coreset_threshold_gauss */
	int			space_restarts; /* k-means restarts of the original-space
								 * partition; 0: the projected coreset's
								 * (opt->restarts) */
} DpkHighdCells;

/*
 * The debiasing of the original-space partition's score, in multiples of
 * its cells' sum noise (dpk_lift_cost's d sum_var a cell).  That partition
 * is the k-means of the cells' noisy lifted means, so the noise it fitted
 * lowers its score; the projected partition comes from the counts alone.
 * Charged once, the original-space partition won on noise alone where the
 * clusters are weak; twice removes that bias and three times gains nothing
 * (doc/decisions/010-original-space-partition.md).
 */
#define DPK_HIGHD_SPACE_NOISE_CHARGE 2.0

/*
 * Centres of one copy from its noisy per-cell statistics (post-processing
 * only; statistics in normalized units, see lift.h): coreset of the grid
 * cells whose count clears dpk_coreset_threshold, weighted k-means in the
 * projected space, every lifting cell above its threshold to the centre
 * holding most of the noisy mass of its coreset cells (else the centre
 * nearest its middle), then dpk_lift_centers_heavy with the pseudo-inverse
 * of the projected centres as fallback (rest_mean: moved outside the
 * projection's row space toward the other centres' noisy mean;
 * plane_cells >= 0: against the projection's plane, each centre's target
 * the noisy-count-weighted mean of its lifting cells' midpoints).  Writes k
 * normalized centres (opt->k * d) and sizes (opt->k) to out; returns the copy's private
 * score (dpk_lift_cost, lower is better; with lift_weighted plus the lift's
 * risk) for choosing among copies.
 */
double		dpk_highd_cells_cluster(const DpkProjection *p, const DpkHighdCells *hc,
									double threshold_sigmas, const DpkClusterOpts *opt,
									const DpkClusterOut *out, int *coreset_size);

/*
 * The smallest noisy count whose lifted mean is a point of the
 * original-space coreset: sqrt(d sum_var / noise2), at least min_count.
 */
double		dpk_highd_point_count(int d, double sum_var, double noise2, double min_count);

/*
 * One copy's cells (m^dhat, noisy counts and sums in normalized units) whose
 * assign[] is >= 0 clustered again in the original space: the cells with a
 * noisy count of at least point_count become points at their lifted means,
 * weighted by that count, and weighted k-means of them (opt) writes k
 * normalized centres; every kept cell is then assigned to the centre nearest its lifted mean (counts >= point_count) or to the centre
 * whose projection is nearest the cell's middle.  A random projection can put
 * two clusters into the same projected region, which no projected partition
 * separates; their lifted cells usually lie apart in R^d.  Returns the
 * number of points; below k nothing is written.  Post-processing only.
 */
int			dpk_highd_cells_space(const DpkProjection *p, int m, const double *count,
								  const double *sum, double point_count,
								  const DpkClusterOpts *opt, double *centers, int *assign);

/*
 * Configuration of a high-dimensional one-shot release in the joint mode:
 * R grids; one noisy count per group of points sharing all R projected
 * labels; k-means of the groups at their concatenated projected centres;
 * one noisy (count, sum) per part.
 */
typedef struct DpkHighdConfig
{
	double		epsilon;		/* total budget of the call */
	int			k;
	double		public_n;		/* < 0: unknown, buy a noisy N */
	double		n_share;		/* share of epsilon for the noisy N */
	int			dhat;			/* projected dimension; 0: dpk_highd_dhat */
	int			copies;			/* R independent projections */
	double		half_width;		/* projected box half-width (row norm 1) */
	double		group_share;	/* share of epsilon (after N) on the group
								 * counts */
	double		lift_share;		/* share of epsilon (after N) on the lift */
	double		lift_count_share;	/* share of the lifting (and refinement)
									 * budget on counts, the rest on sums;
									 * < 0: 1/(1 + d^(2/3)) */
	int			refine_steps;	/* private Lloyd steps in the original space
								 * after the lift (dpk_highd_refine_step) */
	double		refine_share;	/* share of epsilon (after N) on refinement */
	double		grid_scale;		/* multiplies RUGNIK's m in projected space */
	double		threshold_sigmas;	/* keep cells above this many noise sd */
	double		max_cells;		/* public cap on m^dhat */
	double		max_lift_values;	/* cap on k^R groups * (1 + R dhat) (fewer
									 * copies are combined) and on the
									 * k-median lifting grid's cells * (d + 1) */
	double		joint_group_bytes;	/* most bytes of the groups' counts and
									 * sums the joint k-means keeps to make
									 * its parts' in two passes over the rows;
									 * beyond, a third pass sums the rows per
									 * part (the same values;
									 * doc/decisions/080) */
	uint64_t	proj_seed;		/* public seed of the projections */
	int			restarts;
	int			max_iter;
	double		delta;			/* 0: pure epsilon; > 0: discrete Gaussians,
								 * the shares splitting rho =
								 * dpk_zcdp_rho(epsilon, delta) */
	DpkObjective objective;		/* k-median lifts the groups
								 * (kmedian_lifted.h) */
	bool		lift_shrink;	/* k-means: each part's noisy
								 * mean shrunk toward its fallback
								 * (James-Stein), whose part outside copy 0's
								 * plane moves toward the other parts' noisy
								 * mean (dpk_lift_rest_mean); false: the
								 * plain noisy means */
	double		ball;			/* a norm bound's radius in metric positions
								 * (dpk_highd_use_ball): rows moved into
								 * that ball around the box's middle, the
								 * sums' noise sized to it; 0, none */
	bool		points_metric;	/* the points were made metric positions
								 * once by dpk_highd_metric_points (each
								 * pass over them then copies) */
	int			wide_min_d;		/* pure k-means releases without a norm bound
								 * or refinement from this d on (0: never)
								 * take the two shares below instead of
								 * lift_share and grid_scale
								 * (dpk_highd_is_wide) */
	double		wide_lift_share;
	double		wide_grid_scale;
	int			tree_depth;		/* > 0: seed from a SimHash tree of at most
								 * this many levels in the original space
								 * crossed with the joint partition
								 * (dpk_highd_tree_seed) instead of the
								 * joint lift */
	double		tree_share;		/* share of epsilon (after N) on the tree's
								 * counts */
	double		tree_node;		/* a tree node's least noisy count, in leaf-
								 * mean noise norms per ball radius */
	bool		mean_guard;		/* k-means: when the lift's own
								 * noisy statistics estimate the centres
								 * dearer than one centre at their noisy
								 * mean, publish that mean (mean_guard.h) */
} DpkHighdConfig;

/*
 * Defaults: the joint mode, dhat 4, 2 copies, grid_scale 1.7, lift_share
 * 0.7, group_share 0.05, no refinement, half_width 0.75, lift_shrink; the measurements
 * behind each are in doc/decisions/021-highd-oneshot.md.
 */
void		dpk_highd_defaults(DpkHighdConfig *cfg, double epsilon, int k);

/*
 * A norm bound for a one-shot release (dp_kmeans's norm_bound): rows lie
 * within norm_bound of the box's middle in the columns' units, so every
 * row is moved into that ball (dpk_box_ball_clamp) before it is counted,
 * the lifting sums take one discrete Laplace per coordinate at the ball's
 * l1 bound when that beats the cube noise (Gaussian: the ball's l2), the
 * projected box narrows to DPK_BALL_HALF_WIDTH ball / sqrt(d) and the
 * centres are moved into the ball.  With delta > 0 (dpk_highd_use_delta
 * called first) and k-means, the SimHash tree seed (dpk_highd_tree_seed)
 * replaces the lift and DPK_HIGHD_BALL_REFINE_STEPS refinement steps
 * (dpk_highd_refine_step) follow it.  A bound at least the box's
 * half-diagonal changes nothing (ball 0).  Public: the argument and box.
 */
void		dpk_highd_use_ball(DpkHighdConfig *cfg, const DpkBox *box, double norm_bound);

/*
 * Turn n points (n * d, in place) into what every pass of the one-shot
 * reads: positions in the box, metric (dpk_box_to_metric), moved into
 * cfg's ball; and set cfg->points_metric.  The release is the same as from
 * the raw points, whose passes would each compute these positions again.
 * After dpk_highd_use_ball.
 */
void		dpk_highd_metric_points(const DpkBox *box, DpkHighdConfig *cfg, double *points,
									size_t n);

/*
 * What dpk_highd_metric_points does to each row, for a caller that makes
 * rows metric one at a time as they arrive (dp_kmeans, while the row is in
 * the cache) and then sets cfg->points_metric itself: the box's sides and
 * ratios, and the ball, from (box, cfg) after dpk_highd_use_ball.
 */
typedef struct DpkHighdMetricMap
{
	int			d;
	double		ball;
	double	   *lo,
			   *hi,				/* the box's upper corner (the clamp count's) */
			   *w,
			   *ratio;
	bool	   *narrow;
	bool		any_narrow;
	int			avx;			/* the CPU has AVX (four coordinates at once) */
} DpkHighdMetricMap;

void		dpk_highd_metric_map_init(DpkHighdMetricMap *mm, const DpkBox *box,
									  const DpkHighdConfig *cfg);
void		dpk_highd_metric_map_free(DpkHighdMetricMap *mm);

/* One row in place: the same doubles as dpk_highd_metric_points gives it. */
void		dpk_highd_metric_row(const DpkHighdMetricMap *mm, double *x);

/*
 * A row v as it arrives, written to x as dpk_highd_metric_row makes it
 * (the same doubles), read once: DPK_METRIC_NAN if a coordinate is NaN (x
 * is then partly written and the row is not a point), else
 * DPK_METRIC_INSIDE when every coordinate is in [lo, hi] of the box, and
 * DPK_METRIC_OUTSIDE when one is not (v is left as it came, for the clamp
 * count).
 */
#define DPK_METRIC_NAN (-1)
#define DPK_METRIC_OUTSIDE 0
#define DPK_METRIC_INSIDE 1
int			dpk_highd_metric_take(const DpkHighdMetricMap *mm, const double *v, double *x);

/* Approximate DP: delta and, delta > 0, the Gaussian lift share (0: no change). */
void		dpk_highd_use_delta(DpkHighdConfig *cfg, double delta);

/*
 * Whether a release in d dimensions takes the wide shares (wide_min_d):
 * pure epsilon, k-means, no norm bound, no refinement steps, d at least
 * wide_min_d.  There the lifted sums' noise grows as d^(3/2) per
 * coordinate and decides the cost (doc/decisions/037-highd-pure-families.md).
 * Public: the configuration and d only.
 */
bool		dpk_highd_is_wide(const DpkHighdConfig *cfg, int d);

/* The lift's share of epsilon after N (wide_lift_share when wide). */
double		dpk_highd_lift_share(const DpkHighdConfig *cfg, int d);

/* The projected grid's multiple of RUGNIK's size (wide_grid_scale when wide). */
double		dpk_highd_grid_scale(const DpkHighdConfig *cfg, int d);

/* The projected dimension used when cfg->dhat is 0. */
int			dpk_highd_dhat(int d, int k);

/*
 * The number of copies actually run: cfg->copies, lowered until the k^R
 * groups times (1 + R dhat) noisy values fit in cfg->max_lift_values
 * (public: depends on the configuration only).
 */
int			dpk_highd_copies(const DpkHighdConfig *cfg, int d);

/* Per-release details, for benchmarks and tests. */
typedef struct DpkHighdInfo
{
	int			dhat;
	DpkHighdBudget budget;		/* the epsilon shares (copies among them) */
	double		count_scale;	/* noise scales: counts in points (Laplace), */
	double		group_scale;	/* sums in DPK_LIFT_UNITS (l-infinity scale of
								 * dpk_vector_noise) */
	double		lift_count_scale;
	double		sum_scale;
	double		refine_count_scale;
	double		refine_sum_scale;
	double		tree_count_scale;	/* a tree level's node counts (0: no tree) */
	int			tree_leaves;	/* the tree's leaves (0: no tree) */
	double		sum_var;		/* the lift's noise variance of one coordinate
								 * of a sum, normalized units (0: no lift) */
	bool		guard_fired;	/* the mean guard published the noisy mean */
} DpkHighdInfo;

/*
 * One-shot epsilon-DP k-means for high d in the joint mode (same contract
 * as dpk_lowd_cluster): exactly cfg->k centres in the original space of the
 * box, noisy sizes, no data-dependent error.  points: n * d, NaN-free
 * (+-Inf allowed, clamped).  The epsilon shares are dpk_budget_highd's.
 * Refinement steps refine only k-means (dpk_fail otherwise).
 */
void		dpk_highd_oneshot_cluster(const DpkBox *box, const double *points,
									  size_t n, const DpkHighdConfig *cfg,
									  DpkStream *s, DpkOneshotResult *res);

/*
 * Rows read a chunk at a time instead of from one array (dp_kmeans's rows
 * beyond work_mem, in a temporary file): read(arg, from, rows, out) writes
 * rows from .. from + rows - 1, d doubles each, as the array would hold
 * them, into out.  Every pass reads its chunks in order from row 0.  With
 * spill, what the passes keep per row (projections, labels, sign
 * patterns) stays in memory up to its budget per column and goes to its
 * files beyond (highd_column.h); NULL: all in memory.
 */
typedef struct DpkHighdRows
{
	void		(*read) (void *arg, size_t from, size_t rows, double *out);
	void	   *arg;
	const DpkHighdSpill *spill;
} DpkHighdRows;

/*
 * dpk_highd_oneshot_cluster of the n rows that rows reads: the same draws
 * and values as from an array of them.
 */
void		dpk_highd_oneshot_cluster_rows(const DpkBox *box, const DpkHighdRows *rows,
										   size_t n, const DpkHighdConfig *cfg,
										   DpkStream *s, DpkOneshotResult *res);

/* The same, also filling info (may be NULL). */
void		dpk_highd_oneshot_cluster_info(const DpkBox *box, const double *points,
										   size_t n, const DpkHighdConfig *cfg,
										   DpkStream *s, DpkOneshotResult *res,
										   DpkHighdInfo *info);

/*
 * ---- Stages of a one-shot release ----
 *
 * dpk_highd_oneshot_cluster is dpk_highd_plan, dpk_highd_run_joint,
 * refinement steps and dpk_highd_finish; research variants compose the
 * same stages with a split of their own (dpk_highd_plan_budget).
 */

/* Everything the stages share: the input, and public or noisy settings. */
typedef struct DpkHighdPlan
{
	const DpkBox *box;
	const double *points;
	const DpkHighdRows *rows;	/* not NULL: the points are read through it */
	size_t		n;
	const DpkHighdConfig *cfg;
	int			d;
	int			k;
	int			dhat;
	int			copies;
	double		noisy_n;		/* the N the grid rule used */
	int			m;				/* projected cells per dimension */
	DpkHighdBudget eps;			/* dpk_budget_highd (eps_group 0 if unused) */
	DpkNoise	count_scale;	/* grid counts */
	double		count_var;
	DpkNoise	lift_count_scale;	/* per-part counts */
	double		lift_count_var;
	DpkNoise	sum_scale;		/* sums, fixed point */
	double		sum_var;
	DpkNoise	group_scale;	/* group counts */
	double		group_var;
	DpkNoise	refine_count_scale; /* one refinement step */
	double		refine_count_var;
	DpkNoise	refine_sum_scale;
	double		refine_sum_var;
	DpkNoise	tree_count_scale;	/* one tree level's node counts */
	double		tree_count_var;
	bool		have_lift;
} DpkHighdPlan;

/* Index of the nearest of k points of dimension dim (ties: lowest index). */
int			dpk_highd_nearest(const double *x, const double *c, int k, int dim);

/*
 * labels[i] = labels[i] * k + dpk_highd_nearest(x + i * dim, c, k, dim) for
 * the n rows of x: the same indices, the same distances (dim = 4 with AVX
 * four centres at a time).
 */
void		dpk_highd_nearest_append(const double *x, size_t n, const double *c, int k,
									 int dim, int *labels);

/*
 * Plan a release: the budget (dpk_budget_highd of epsilon, or with delta > 0
 * of rho), the noisy N (drawn from s unless public), the noise scales
 * (sensitivity 1 on the counts of a grid or a partition, U / 2 in every
 * coordinate of a sum vector) and the projected grid (RUGNIK at the count
 * noise actually used, capped at cfg->max_cells).
 */
void		dpk_highd_plan(DpkHighdPlan *pl, const DpkBox *box, const double *points,
						   size_t n, const DpkHighdConfig *cfg, DpkStream *s);

/*
 * The same with the split eps given (shares of rho when cfg->delta > 0), for
 * variants that account for their stages themselves; eps->copies copies.
 */
void		dpk_highd_plan_budget(DpkHighdPlan *pl, const DpkBox *box, const double *points,
								  size_t n, const DpkHighdConfig *cfg,
								  const DpkHighdBudget *eps, DpkStream *s);

/* Called for every point of a histogram pass: normalized u, projected t. */
typedef void (*DpkHighdVisit) (void *arg, const double *u, const double *t,
							   uint64_t cell);

/*
 * Histogram stage of one copy: one pass projecting every point, counting
 * it in its projected grid cell (and calling visit, if not NULL), then
 * noise on every cell, occupied or not.  Returns the m^dhat noisy counts
 * (dpk_alloc'd).
 */
double	   *dpk_highd_histogram(const DpkHighdPlan *pl, const DpkProjection *proj,
								DpkStream *s, DpkHighdVisit visit, void *arg);

/*
 * Coreset of a noisy projected grid (cells whose count clears the
 * threshold, at their centres, weighted by their counts) and weighted
 * k-means on it: k projected centres (k * dhat, in [0,1]).  Returns the
 * threshold used.
 */
double		dpk_highd_grid_kmeans(const DpkNoisyGrid *grid, double threshold_sigmas,
								  const DpkClusterOpts *opt, double *pcenters,
								  int *coreset_size);

/*
 * The coreset of a noisy projected grid: the cells whose count exceeds
 * threshold, at their centres in [0,1]^dhat (*pts, n * dhat) weighted by
 * their counts (*w, n), both dpk_alloc'd (the caller frees them; room for
 * one point when n is 0).  Returns n.
 */
int			dpk_highd_coreset_cells(int dhat, int m, const double *count, double threshold,
									double **pts, double **w);

/*
 * The coreset threshold of a noisy grid for k centres, with `cells` cells
 * (0: all m^dhat): dpk_coreset_threshold; with gauss_tail, when fewer than
 * k cells clear it, dpk_coreset_threshold_gauss instead (Gaussian noise
 * needs less for the same rate of empty cells, and k-means of fewer than k
 * cells gives fewer than k distinct centres).  A grid whose counts show k
 * cells keeps the first: on tight clusters the lower threshold's extra
 * cells cost 3.6 % (doc/decisions/065-gaussian-coreset-threshold.md).
 * Noisy counts and public parameters only.
 */
double		dpk_highd_grid_threshold(const DpkNoisyGrid *grid, double threshold_sigmas,
									 double cells, int k);

/*
 * dpk_highd_grid_kmeans with the threshold of `cells` cells (0: all m^dhat),
 * for grids where only that many cells can hold points and the others are
 * zero.
 */
double		dpk_highd_grid_kmeans_cells(const DpkNoisyGrid *grid, double threshold_sigmas,
										double cells, const DpkClusterOpts *opt,
										double *pcenters, int *coreset_size);

/*
 * A partition of the points, one pass: the label of a point is either its
 * nearest original-space centre (centers set) or the tuple of its nearest
 * projected centres over `copies` projections, read as a number in base k,
 * optionally mapped through map[] to one of `nlabels` parts.
 */
typedef struct DpkHighdPartition
{
	int			nlabels;		/* parts after the map */
	int			copies;			/* projections whose labels make the tuple */
	const DpkProjection *proj;	/* copies */
	const double *pcenters;		/* copies * k * dhat */
	const int  *map;			/* tuple -> part, or NULL */
	const double *centers;		/* or: original-space centres (k * d) */
	const int  *row_labels;		/* or: every point's tuple label, computed
								 * before (NULL: computed in the pass) */
	DpkHighdColumn *label_col;	/* or: the same labels in a column (ints) */
} DpkHighdPartition;

/*
 * Noisy count of every part (and with sum not NULL its noisy sum vector, in
 * normalized units) of a partition.  Every part gets noise, occupied or not;
 * every point is in exactly one part, so the sensitivities are 1 on the
 * counts and U / 2 in every coordinate of the sums (cube noise).
 */
void		dpk_highd_partition_stats(const DpkHighdPlan *pl, const DpkHighdPartition *pt,
									  const DpkNoise *count_noise,
									  const DpkNoise *sum_noise, DpkStream *s,
									  double *cnt, double *sum);

/* Normalized centres and sizes of a release in progress. */
typedef struct DpkHighdOut
{
	double	   *centers;		/* k * d normalized */
	double	   *sizes;			/* k */
	int			coreset_size;
	int			tree_leaves;	/* leaves of the SimHash tree (0: none) */
	bool		guard_fired;	/* the mean guard moved every centre to the
								 * noisy mean (mean_guard.h) */
} DpkHighdOut;

/* Allocate an output for k centres in d dimensions. */
void		dpk_highd_out_init(DpkHighdOut *o, int k, int d);

/* Free an output's arrays. */
void		dpk_highd_out_free(DpkHighdOut *o);

/*
 * The joint mode (see DpkHighdConfig) into out; a plan without lifting or
 * group budget puts every centre at the middle of the box.
 */
void		dpk_highd_run_joint(const DpkHighdPlan *pl, DpkStream *s, DpkHighdOut *out);

/*
 * The joint mode's partition of the rows into k parts (its copies' grids,
 * group counts and group map, without the lift): part (a column of n ints)
 * gets every row's part; out the largest coreset.  Without group budget
 * every row is in part 0.
 */
void		dpk_highd_joint_parts(const DpkHighdPlan *pl, DpkStream *s, DpkHighdColumn *part,
								  DpkHighdOut *out);

/*
 * One private Lloyd step in the original space (k-means, a plan with
 * refinement budget): every row to its nearest of the k normalized
 * centres, one noisy count and sum vector per centre at the refinement's
 * scales (sensitivity 1 and the lifting sums', a ball's l2 bound with
 * one), the centres lifted from them (lift_shrink: toward where they were),
 * sizes their noisy counts; with guard the mean guard on the same
 * statistics, *fired (may be NULL) telling whether it moved the centres.
 */
void		dpk_highd_refine_step(const DpkHighdPlan *pl, DpkStream *s, double *centers,
								  double *sizes, bool guard, bool *fired);

/*
 * Every row's sign pattern in a plan with tree levels (dpk_alloc'd, n
 * values): bit l the side of the row's u - 1/2 of the level-(l + 1)
 * hyperplane, the l-th row of one public orthonormalised Gaussian matrix
 * (dpk_projection_init, seed from cfg->proj_seed).  No noise.
 */
uint64_t   *dpk_highd_tree_codes(const DpkHighdPlan *pl);

/*
 * Reorder rows perm[start .. end) so that those whose code has bit `bit`
 * clear come first; returns where the rows with it set begin.  A node's
 * two children in a SimHash tree.
 */
size_t		dpk_highd_tree_split(size_t *perm, const uint64_t *code, size_t start, size_t end,
								 int bit);

/* The most levels of a SimHash tree (its codes' histogram: 2^levels). */
#define DPK_HIGHD_TREE_MAX_LEVELS 20

/*
 * The SimHash tree of a plan with tree levels (cfg->tree_depth, 1 to
 * DPK_HIGHD_TREE_MAX_LEVELS), on the rows' sign patterns
 * (dpk_highd_tree_codes).  Level by
 * level every node whose noisy count reaches 3 min_node splits in its two
 * children, each with a noisy count at the plan's tree scale (every row is
 * in one node per level: sensitivity 1 per level), and a child is kept
 * when its noisy count reaches min_node; a node that splits into no kept
 * child is a leaf, as is every node at the last level.  Children of a
 * node not kept lose their rows to no leaf (label -1).  leaf_of_row gets
 * every row's leaf; returns the number of leaves, *min_node the threshold:
 * max(1, min(tree_node sqrt(d sum_var) / ball, noisy N / 2k)), sum_var the
 * lift's noise variance of one coordinate of a sum.  node_noisy (may be
 * NULL; n * levels) gets for every row and level the noisy count of its
 * node there, NaN where that node was not counted.
 */
int			dpk_highd_tree_leaves(const DpkHighdPlan *pl, DpkStream *s, int *leaf_of_row,
								  double *min_node, double *node_noisy);

/*
 * Seed a release from its SimHash tree (k-means, a plan with tree levels
 * and lift budget): the joint partition's k parts (dpk_highd_joint_parts),
 * the tree's leaves (dpk_highd_tree_leaves; rows of dropped nodes as one
 * more leaf), one noisy (count, sum) per cell, a leaf crossed with a part
 * (the leaf alone when (leaves + 1) k (d + 1) passes cfg->max_lift_values),
 * at the lift's scales (every row in one cell); weighted k-means of the
 * cells' noisy means (count at least the lift's least count), then every
 * such cell to its nearest centre and each centre lifted from its cells
 * (dpk_lift_centers_weighted, toward the k-means centre).  Post-processing
 * of noisy values past the counts and sums.  The mean guard is left to the
 * last refinement step.
 */
void		dpk_highd_tree_seed(const DpkHighdPlan *pl, DpkStream *s, DpkHighdOut *out);

/*
 * Publish out: res gets the centres in the box's coordinates, sizes clipped
 * at 0, the grid used; info (may be NULL) the plan's details.
 */
void		dpk_highd_finish(const DpkHighdPlan *pl, const DpkHighdOut *out,
							 DpkOneshotResult *res, DpkHighdInfo *info);

#endif
