/*
 * live_config.h
 *		A live table's configuration (plain C): the public choices made at
 *		attach — dimensions, k, epsilon, horizon, the counted level, the
 *		tree, projections, box and ball — and the functions that make them.
 *		What a release does with it is live_core.h.
 */
#ifndef DPK_LIVE_CONFIG_H
#define DPK_LIVE_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "cellmap.h"
#include "coreset.h"
#include "counter.h"
#include "dgauss.h"
#include "grid.h"
#include "noise.h"

struct DpkProjection;

typedef struct DpkLiveConfig
{
	int			d;
	int			k;
	double		epsilon;
	uint32_t	horizon;
	bool		insert_only;	/* no deletions: the factor 2 is dropped */
	int			level;			/* counted level: 2^level cells per dimension
								 * (of the projected space when dhat > 0) */
	double		sum_share;		/* share of epsilon on the in-cell sums */
	/* High dimensions (doc/design.md): dhat > 0 switches to projected grids. */
	int			dhat;			/* projected dimension, 0: none */
	int			copies;			/* R independent projections */
	uint64_t	proj_seed;		/* public seed of the projections */
	double		half_width;		/* projected box half-width */
	double		norm_share;		/* share of epsilon on the global sum of
								 * squared norms (cost curve) */
	int			norm_shift;		/* the norm counter adds each row's squared
								 * norm in units of 2^norm_shift (rounded);
								 * 0 but for Gaussian tables whose variance
								 * in unit steps has no exact representation
								 * (dpk_live_use_norm_shift) */
	double		threshold_sigmas;
	int			estimator;		/* DpkTreeEstimator: how release t combines the
								 * tree nodes (post-processing only; pure
								 * tables, delta > 0 sums the binary nodes) */
	int			arity;			/* of the counters' tree, fixed at attach
								 * (tracked.tree_arity): 2 the binary tree
								 * (tables attached before 0.3's k-ary trees,
								 * Gaussian tables), else the k-ary tree with
								 * negative digits (tree_estimator.h) */
	int			restarts;
	int			coreset_restarts;	/* k-means restarts of a projected
									 * release's coreset, lifting by cells
									 * (DPK_LIVE_CORESET_RESTARTS from
									 * DPK_LIVE_WEIGHTED_D); the original-space
									 * partition takes restarts */
	int			max_iter;
	int			screen_iter;	/* low-d releases: k-means restarts stop
								 * after this many Lloyd updates ... */
	int			screen_keep;	/* ... and this many of lowest cost run on
								 * (kmeans.h: dpk_kmeans_screened);
								 * post-processing */
	double		delta;			/* 0: pure epsilon (Laplace/cube); > 0:
								 * (epsilon, delta) by discrete Gaussians */
	int			counter;		/* DpkLiveCounter, fixed at attach
								 * (tracked.counter) */
	bool		box_metric;		/* projected tables: points in metric
								 * positions (dpk_box_to_metric, k-means in
								 * the columns' units); false for tables
								 * attached before trigger format 3 */
	bool		lift_weighted;	/* projected releases lift by count-weighted
								 * cell sums (dpk_lift_centers_weighted);
								 * post-processing, set from d */
	bool		rest_mean;		/* projected releases shrink the lifted
								 * centres outside the projection's rows
								 * toward the other cells' noisy mean, not
								 * the box's middle (DpkHighdCells.rest_mean);
								 * post-processing */
	double		sum_l1;			/* projected pure tables in metric positions
								 * (trigger format 4): 0, the lifting sums get
								 * the cube noise of their l-infinity bound
								 * U/2; > 0, the l1 bound of one point's
								 * lifting contribution (dpk_live_box_sum_l1),
								 * and one discrete Laplace per coordinate */
	double		ball;			/* projected tables with a norm bound (stored
								 * per table): rows are moved into the ball
								 * of this radius around the box's middle, in
								 * metric positions (dpk_box_ball_clamp,
								 * norm_bound / w_max); 0, no ball */
	double		heldout_z;		/* the held-out guard's threshold in standard
								 * deviations (DPK_LIVE_HELDOUT_Z; INFINITY:
								 * never fires); post-processing, not stored */
	bool		centred_offsets;	/* low-d tables: noise drawn for in-cell
									 * sums centred in the cell, at half the
									 * sensitivity (DPK_REL_CENTRE, grid.h);
									 * false for tables attached before
									 * trigger format 5 */
	bool		laplace_tail;	/* true: Gaussian tables with a ball keep the
								 * Laplace coreset threshold of releases
								 * before 0.9 (benchmarks only; see
								 * dpk_live_gauss_tail); not stored */
} DpkLiveConfig;

/*
 * The continual counter of a table's cells.  Gaussian tables: the plain
 * binary decomposition (every table attached before 0.9, and tables too
 * large for the other) or the square-root factorization with integer
 * measurements (sqrt_counter.h).  Pure tables: their k-ary tree (every
 * table attached before 0.9, projected tables, and the default) or, for
 * low-d tables that ask for it, the share tree (share_tree.h; doc/
 * decisions/053-share-tree-in-tables.md).  DPK_LIVE_COUNTER_SQRT_LIFTED
 * ('square_root_lifted') is DPK_LIVE_COUNTER_SQRT_SUMS whose releases draw
 * the lifting sums of the cells they lift from alone (dpk_live_lifts_sums,
 * live_core.h; doc/decisions/084-lifted-sums-on-the-square-root.md).
 */
typedef enum DpkLiveCounter
{
	DPK_LIVE_COUNTER_TREE = 0,
	DPK_LIVE_COUNTER_SQRT = 1,
	DPK_LIVE_COUNTER_SHARE = 2,
	DPK_LIVE_COUNTER_SQRT_SUMS = 3,
	DPK_LIVE_COUNTER_SQRT_LIFTED = 4
} DpkLiveCounter;

/*
 * Most noise draws a release of a share-tree table may read: cells times
 * the most nodes any release of its horizon sums (dpk_share_tree_max_nodes)
 * times the count and d sums each node draws, so that a release's noise
 * stays within about half a second (doc/decisions/053: d = 2 at 16 384
 * cells fits up to T = 256, 0.32 s measured, not at T = 1024).
 */
#define DPK_LIVE_SHARE_MAX_DRAWS 2097152.0

/*
 * Shortest horizon for which dpkmeans.pure_counter = 'auto' (the default)
 * gives a new pure low-d table the share tree: the shortest measured end to
 * end, where its mean cost is within 0.4 % of the k-ary tree's or lower
 * (doc/decisions/066; record 053 had 64 with shares not yet searched for
 * the early releases).
 */
#define DPK_LIVE_SHARE_AUTO_MIN_HORIZON 16

/*
 * Most noise draws a release of a square-root table may read at its last
 * release: measurements and leaves, times cells and the norm counter, times
 * the coordinates each carries; of a projected table, times the cells of
 * every copy, counts alone (doc/decisions/039-integer-square-root-counter.md,
 * 041-projected-square-root-counts.md).
 */
#define DPK_LIVE_SQRT_MAX_DRAWS 1048576.0

/*
 * Most noise draws the last release of a projected square-root table may
 * read when its lifting sums are counted on the square root too (counts and
 * d sums a cell, every copy): about 2 s of noise on a 2-core machine with
 * the release's parallel workers (doc/decisions/059-projected-sqrt-sums.md,
 * 061-projected-sqrt-sums-shipped.md); d = 16 and 64 fit at horizon 16,
 * d = 384 does not and keeps the tree sums.
 */
#define DPK_LIVE_SQRT_SUMS_MAX_DRAWS 16777216.0

/*
 * Fewest cells the lifting-sum draws of a 'square_root_lifted' table must
 * allow a release (dpk_live_lifted_cap): below, the table keeps the tree's
 * sums.  The benchmark's d = 384 releases of 50 000 rows had coresets of
 * 13-40 cells (doc/decisions/084).
 */
#define DPK_LIVE_LIFTED_MIN_CAP 256.0

/* Fewest cells a square-root table is coarsened to, to fit the draws. */
#define DPK_LIVE_SQRT_MIN_CELLS 1024.0

/* The same for a table without projections (doc/decisions/068). */
#define DPK_LIVE_SQRT_MIN_CELLS_LOWD 256.0

/*
 * Levels below RUGNIK's m a table without projections counts at on the
 * square root (dpk_live_choose_level; doc/decisions/076).
 */
#define DPK_LIVE_SQRT_LOWD_LEVEL_SHIFT 1.0

/* Fewest cells that shift takes such a table to (doc/decisions/076). */
#define DPK_LIVE_SQRT_LOWD_SHIFT_MIN_CELLS 64.0

/* Largest horizon a square-root table takes (its factorization is O(T^2) to build). */
#define DPK_LIVE_SQRT_MAX_HORIZON 4096

/*
 * The draws the last release of a Gaussian table would read with its
 * square-root counter (a function of the public configuration): of every
 * family without projections, with them of the counts, and of the lifting
 * sums too when the counter is DPK_LIVE_COUNTER_SQRT_SUMS
 * (DPK_LIVE_SQRT_FAMILY).
 */
double		dpk_live_sqrt_draws(const DpkLiveConfig *cfg);

/*
 * Noise draws one cell of a Gaussian projected table reads at release t:
 * per coordinate (the count, and the d sums when `sums`) the measurements
 * and leaves of a family on the square root (2 t), else the nodes of the
 * binary decomposition of t (its popcount).
 */
double		dpk_live_cell_draws(const DpkLiveConfig *cfg, uint32_t t, bool sums);

/*
 * Most cells (of every copy) whose lifting sums a release of a
 * square_root_lifted table draws: what DPK_LIVE_SQRT_SUMS_MAX_DRAWS leaves
 * after every cell's count at the last release, 2 x horizon x d draws a
 * cell (0 when the counts alone exceed it).  Public parameters only.
 */
double		dpk_live_lifted_cap(const DpkLiveConfig *cfg);

/*
 * The counter of a new Gaussian table whose level was chosen for the binary
 * tree (box NULL: dpk_live_choose_level, else dpk_live_choose_level_box, as
 * the level was chosen).  forced: the square root, its level chosen again
 * for its smaller noise (the caller has checked the horizon).  Else the
 * square root for a table whose horizon is within DPK_LIVE_SQRT_MAX_HORIZON
 * and whose last release reads at most DPK_LIVE_SQRT_MAX_DRAWS draws
 * (dpk_live_sqrt_draws: a projected table's counts alone) at its own level
 * (a projected table's never finer than the tree's; a table without
 * projections counts DPK_LIVE_SQRT_LOWD_LEVEL_SHIFT below RUGNIK's) or,
 * coarsened to fit, at most one level below the tree's and to no fewer
 * than DPK_LIVE_SQRT_MIN_CELLS cells (a copy's; DPK_LIVE_SQRT_MIN_CELLS_LOWD
 * without projections), with every noise variance
 * representable; otherwise the tree.  A projected table counts its lifting
 * sums on the square root too (DPK_LIVE_COUNTER_SQRT_SUMS) when, at its
 * level so chosen (never finer than the tree's), its last release reads at
 * most DPK_LIVE_SQRT_SUMS_MAX_DRAWS draws with every variance representable
 * (forced: always).  Where every cell's sums would exceed that, a table
 * of at least DPK_LIVE_REFINE_MIN_D columns counts them on the square root
 * too but draws them only for the cells a release lifts from
 * (DPK_LIVE_COUNTER_SQRT_LIFTED), when dpk_live_lifted_cap allows at least
 * DPK_LIVE_LIFTED_MIN_CAP cells (forced too).  Pure tables keep
 * DPK_LIVE_COUNTER_TREE.  Public parameters only.
 */
void		dpk_live_use_counter(DpkLiveConfig *cfg, const DpkBox *box, double size_hint,
								 double max_cells, bool forced);

/*
 * The counter's name in tracked.counter and reports: "tree", "square_root",
 * "share_tree", "square_root_sums".
 */
const char *dpk_live_counter_name(int counter);

/*
 * The share tree for a new pure low-d table whose level was chosen for its
 * k-ary tree (box NULL: dpk_live_choose_level, else dpk_live_choose_level_box,
 * as the level was chosen): when its horizon has a share tree that beats
 * the k-ary one (dpk_share_tree_beats_kary), its level is chosen again for
 * the share tree's variance, and then the release's node draws are within
 * DPK_LIVE_SHARE_MAX_DRAWS with every node scale representable; otherwise
 * the configuration is left as it was (the k-ary tree).  Gaussian and
 * projected tables are left as they are.  Public parameters only.
 */
void		dpk_live_use_share_tree(DpkLiveConfig *cfg, const DpkBox *box, double size_hint,
									double max_cells);

/*
 * Whether dpkmeans.pure_counter = 'auto' (the default) asks for the share
 * tree (dpk_live_use_share_tree) for a new table: pure, fewer than
 * DPK_HIGHD_MIN_D columns, a horizon of at least
 * DPK_LIVE_SHARE_AUTO_MIN_HORIZON.  Public parameters only.
 */
bool		dpk_live_share_tree_by_default(const DpkLiveConfig *cfg);

/*
 * Whether a release's coreset thresholds are those of Gaussian count noise
 * (dpk_coreset_threshold_gauss): projected Gaussian tables with a norm
 * bound (doc/decisions/065-gaussian-coreset-threshold.md).  Post-processing
 * of noisy counts by a public rule, so tables attached before get it too.
 */
bool		dpk_live_gauss_tail(const DpkLiveConfig *cfg);

/* Noise draws of a share-tree table's costliest release (cells x nodes x (1 + d)). */
double		dpk_live_share_draws(const DpkLiveConfig *cfg);

/* Whether a configuration counts with the share tree (pure, low-d). */
#define DPK_LIVE_SHARE(cfg) \
	((cfg)->delta <= 0.0 && (cfg)->dhat == 0 && (cfg)->counter == DPK_LIVE_COUNTER_SHARE)

/* Whether a configuration counts with the square-root factorization. */
#define DPK_LIVE_SQRT(cfg) \
	((cfg)->delta > 0.0 && \
	 ((cfg)->counter == DPK_LIVE_COUNTER_SQRT || (cfg)->counter == DPK_LIVE_COUNTER_SQRT_SUMS || \
	  (cfg)->counter == DPK_LIVE_COUNTER_SQRT_LIFTED))

/*
 * Whether counter family `which` (0 counts, 1 sums, 2 the norm counter) of
 * a square-root table counts with the square root: every family of a table
 * without projections; of a projected one the counts, and the lifting sums
 * when its counter is DPK_LIVE_COUNTER_SQRT_SUMS ('square_root_sums', a
 * release reads d times the draws: doc/decisions/061) or
 * DPK_LIVE_COUNTER_SQRT_LIFTED (the same counter, read for fewer cells:
 * doc/decisions/084).  A projected table's norm counter keeps the binary
 * tree (its unit is derived by shards too; doc/decisions/041).
 */
#define DPK_LIVE_SQRT_FAMILY(cfg, which) \
	(DPK_LIVE_SQRT(cfg) && \
	 ((which) == 0 || (cfg)->dhat == 0 || \
	  ((which) == 1 && ((cfg)->counter == DPK_LIVE_COUNTER_SQRT_SUMS || \
						(cfg)->counter == DPK_LIVE_COUNTER_SQRT_LIFTED))))

/*
 * Defaults for a table (shares settled by test/bench); the tree of a new
 * pure table, dpk_tree_choose_arity(horizon).
 */
void		dpk_live_defaults(DpkLiveConfig *cfg, int d, int k, double epsilon,
							  uint32_t horizon, bool insert_only);

/*
 * The same defaults with the tree arity a table was attached with: a stored
 * table's tree is never re-chosen, and choosing it costs more than a small
 * release.
 */
void		dpk_live_defaults_arity(DpkLiveConfig *cfg, int d, int k, double epsilon,
									uint32_t horizon, bool insert_only, int arity);

/*
 * The counted level for a public size hint: the level nearest RUGNIK's m at
 * that size and the noise of a mid-horizon release, capped so the level has
 * at most max_cells cells and its cell ids fit in 48 bits.  A projected
 * table whose clusters cannot be lifted (DPK_LIVE_MEAN_ONLY_SD) counts at
 * level 0.
 */
int			dpk_live_choose_level(const DpkLiveConfig *cfg, double size_hint,
								  double max_cells);

/* The count noise variance of a typical release, for choosing the level. */
double		dpk_live_level_count_var(const DpkLiveConfig *cfg);

/*
 * Projected tables: the noise sd of one cell's lifting sum, per coordinate
 * and in box widths, at a typical release (the tree weights of
 * dpk_live_level_count_var).
 */
double		dpk_live_level_sum_sd(const DpkLiveConfig *cfg);

/*
 * The counted level of a table with box `box`: dpk_live_choose_level, and
 * for a projected table in metric positions log2(1 / spread) levels finer,
 * rounded (dpk_box_metric_spread: its points span that fraction of the
 * projected box), within the same caps; then dpk_live_reach_level.
 */
int			dpk_live_choose_level_box(const DpkLiveConfig *cfg, const DpkBox *box,
									  double size_hint, double max_cells);

/*
 * High dimensions.  State: one cell map (values: count, then the d centred
 * fixed-point sums of dpk_lift_quantize) whose cell ids are
 * r * dpk_live_copy_cells(cfg) + projected cell, plus the global sum of
 * squared norms kept at id DPK_LIVE_NORM_CELL(cfg) (value 0).
 */
uint64_t	dpk_live_copy_cells(const DpkLiveConfig *cfg);
#define DPK_LIVE_NORM_CELL(cfg) ((uint64_t) (cfg)->copies * dpk_live_copy_cells(cfg))

/*
 * Projected dimensions of a new live table (at most d).  Four let a random
 * projection put two of K = 10 clusters into the same projected cells often
 * enough to cost 3-6x even without noise at d = 16; six make that rare, at
 * the same number of cells (the level drops by one).  doc/decisions/009-projected-dims-copies-level.md.
 */
#define DPK_LIVE_DHAT 6

/*
 * Projected dimensions of a new (epsilon, delta) table of at least
 * DPK_LIVE_BALL_DHAT_MIN_D columns whose norm bound gives a ball, where
 * their level has fewer cells than DPK_LIVE_DHAT's (dpk_live_use_ball_dims):
 * a level of six dimensions has 64 times the cells of the one below, and
 * where the rule rounds up to 4 096 for 20 000 rows clusters spread over
 * cells under the counts' threshold; four give 256.  Where both give the
 * same cells (50 000 rows: 4 096) six keep clusters apart better
 * (d = 384: doc/decisions/087-ball-projected-dims.md).
 */
#define DPK_LIVE_BALL_DHAT 4
#define DPK_LIVE_BALL_DHAT_MIN_D 384

/*
 * Sign cells for a new insert-only projected Gaussian table of
 * DPK_LIVE_SIGN_MIN_D to DPK_LIVE_SIGN_MAX_D columns (d = 64: at d = 32,
 * 48 and 96 one family's worst release was measured worse) whose counts
 * and lifting sums are on the square root (DPK_LIVE_COUNTER_SQRT_SUMS) at
 * a level of 2 or more, in a cube box without a norm bound and with one
 * copy:
 * DPK_LIVE_SIGN_DHAT projected dimensions at level 1, every cell the side
 * of each of DPK_LIVE_SIGN_DHAT hyperplanes through the box's middle (the
 * same 4 096 cells as DPK_LIVE_DHAT at level 2, cut by 12 hyperplanes
 * instead of 18).  A cluster lifts from fewer cells, each adding its sum's
 * noise, most of a release's excess at d = 64, and two clusters share a
 * cell less often (doc/decisions/074-sign-cells-d64-gaussian.md).  The
 * counters, their noise, sensitivities and draws are unchanged (a row is
 * in one cell a copy).  Other configurations are left as they are.  Call
 * after dpk_live_use_counter, before dpk_live_use_norm_shift.
 */
#define DPK_LIVE_SIGN_MIN_D 64
#define DPK_LIVE_SIGN_MAX_D 64
#define DPK_LIVE_SIGN_DHAT 12
void		dpk_live_use_sign_cells(DpkLiveConfig *cfg);

/*
 * The l1 bound of one point's lifting contribution (dpk_lift_quantize of
 * its metric position, U = DPK_LIFT_UNITS) in a box: sum_j B_j with B_j =
 * U/2 for the widest sides and floor(U/2 w_j / w_max) + 1 for the others
 * (their metric coordinates lie within w_j / (2 w_max) of 1/2; the 1 covers
 * the rounding).
 */
double		dpk_live_box_sum_l1(const DpkBox *box);

/*
 * Sums per coordinate for a box (trigger format 4): a projected pure table
 * in metric positions sets sum_l1 to dpk_live_box_sum_l1 when one discrete
 * Laplace per coordinate at that l1 sensitivity has a lower variance than
 * the cube noise at U/2 (a box with one wide side: diamonds' prices beside
 * carats, 2.1 against 24 times b^2 at d = 7), else leaves 0.  Public: the
 * box and the configuration.  Call after dpk_live_use_delta.
 */
void		dpk_live_use_sum_l1(DpkLiveConfig *cfg, const DpkBox *box);

/*
 * With a ball the counted level keeps a copy's noisy values, cells times
 * (d + 1), within this: d = 384 at level 2 (4 096 cells, 1.6 million
 * values, 1.5-4 s a release at horizon 4).  The ball's smaller sum noise
 * moves RUGNIK's level one up there, to 100 million values and minutes
 * a release.
 */
#define DPK_LIVE_BALL_MAX_VALUES 2097152.0

/*
 * A projected table counts one cell (level 0: its releases lift the noisy
 * mean) when even a cluster with all its size_hint / k rows in one cell
 * would have a lifted mean whose noise sd per coordinate
 * (dpk_live_level_sum_sd times k / size_hint) is at least this many box
 * widths.  Finer cells then only split rows among noisier sums, and a
 * release finds no cell above the count noise and falls back to the box's
 * middle (doc/decisions/014-mean-only-level.md).
 */
#define DPK_LIVE_MEAN_ONLY_SD 0.2

/*
 * A norm bound for a projected table in metric positions: rows lie within
 * norm_bound of the box's middle in the columns' units (unit-norm
 * embeddings in [-1, 1]^d: 1), so cfg->ball = dpk_box_ball_radius (0 when
 * the box bounds more).  With a ball the projected box shrinks to
 * DPK_BALL_HALF_WIDTH ball / sqrt(d) when that is less than
 * cfg->half_width: the grid's cells then cover the ball's projection, not
 * the box's (projected points beyond it are clamped onto its faces, as for
 * the cube).  Public: the argument and the box.
 * Call after dpk_live_use_projection and before dpk_live_use_box and
 * dpk_live_use_sum_l1, which take the ball's bounds.
 */
void		dpk_live_use_ball(DpkLiveConfig *cfg, const DpkBox *box, double norm_bound);

/*
 * A new table's projected dimensions once its ball and delta are known:
 * an (epsilon, delta) table of at least DPK_LIVE_BALL_DHAT_MIN_D columns
 * with a ball takes DPK_LIVE_BALL_DHAT where the level chosen for them
 * (dpk_live_choose_level_box at size_hint) gives fewer cells than its
 * dimensions' would, else keeps them.  Call after dpk_live_use_ball and
 * dpk_live_use_delta, before dpk_live_use_box; at attach only (a stored
 * table keeps its dhat).  Public parameters only.
 */
void		dpk_live_use_ball_dims(DpkLiveConfig *cfg, const DpkBox *box, double size_hint,
								   double max_cells);

/*
 * Copy r of a projected table's projection: the copy's seed of
 * cfg->proj_seed and the table's projected box (cfg->half_width, narrowed
 * by a norm bound).  Every capture, release and reader builds it here, so
 * the cells a row is counted in and the cells a release maps back agree.
 */
struct DpkProjection;
void		dpk_live_projection(const DpkLiveConfig *cfg, int r, struct DpkProjection *p);

/* dpk_lift_point_l2 of the table's d and ball. */
double		dpk_live_point_l2(const DpkLiveConfig *cfg);

/*
 * The sums' share of epsilon on a new table whose sums get per-coordinate
 * noise: their variance is a tenth of the cube's there, and the counts then
 * gain more from the budget (doc/decisions/016-boxes-with-wide-sides.md).
 */
#define DPK_LIVE_L1_SUM_SHARE 0.5

/* Switch a configuration to the projected mode for d dimensions and k. */
void		dpk_live_use_projection(DpkLiveConfig *cfg, uint64_t proj_seed);

/*
 * A new projected table whose box has fewer than DPK_LIVE_FEW_SIDES
 * full-width sides' worth of squared widths (sum_j (w_j / w_max)^2, that
 * is dpk_box_metric_spread^2 d) and whose size hint is at least
 * DPK_LIVE_FEW_SIDES_ROWS projects to DPK_LIVE_FEW_SIDES_DHAT dimensions:
 * its points in metric positions lie near a set of one or two dimensions,
 * so three projected dimensions hold them, and the reach rule's grid of 32
 * cells per dimension (16 with four) resolves them more finely.  Below
 * that size the finer cells' counts are mostly noise
 * (doc/decisions/017-three-projected-dims.md).  Public: the box and the
 * size hint.  Call
 * after dpk_live_use_projection and before dpk_live_use_box (whose
 * projection check depends on dhat).
 */
#define DPK_LIVE_FEW_SIDES 2.0
#define DPK_LIVE_FEW_SIDES_DHAT 3
#define DPK_LIVE_FEW_SIDES_ROWS 16384.0
void		dpk_live_use_few_sides(DpkLiveConfig *cfg, const DpkBox *box, double size_hint);

/*
 * For a new projected table attached with box `box`: points in metric
 * positions (trigger format 3); at most 4 projected dimensions unless the
 * box is a cube; the tree of dpk_tree_choose_arity kept (measurements in
 * live_core.c); the lifting sums per coordinate with DPK_LIVE_L1_SUM_SHARE
 * of epsilon when dpk_live_use_sum_l1 takes them at that share (trigger
 * format 4); and a projection that keeps the box: while
 * dpk_live_proj_box_share is below DPK_LIVE_PROJ_MIN_SHARE the seed
 * becomes the next of splitmix64's sequence from it (at most 64 times).
 * Does nothing to a low-d configuration.
 */
void		dpk_live_use_box(DpkLiveConfig *cfg, const DpkBox *box);

/*
 * In metric positions a box with one wide column (prices beside carats)
 * is nearly a segment, and a random projection that maps that column to a
 * short vector puts all its points in one or two cells of every copy
 * (doc/decisions/016-boxes-with-wide-sides.md).  The share of the box's squared
 * widths (over the widest) the projection keeps, relative to its mean
 * dhat / d, the smallest over the copies: 1 for every projection of a
 * cube.  Public (box and seed).  A new table's seed is redrawn below 0.8,
 * which 33 % (4 projected dimensions) to 40 % (3) of the seeds are on that
 * box; conditioning the projection on an event of probability p raises any
 * of its failure probabilities by at most 1/p (the threshold's
 * measurements: doc/decisions/016-boxes-with-wide-sides.md).
 */
#define DPK_LIVE_PROJ_MIN_SHARE 0.8
double		dpk_live_proj_box_share(const DpkLiveConfig *cfg, const DpkBox *box,
									uint64_t proj_seed);

#endif
