/*
 * live_core.h
 *		Live tables, plain-C core: sensitivities and noise scales, and a
 *		release of the continual mechanism (noisy counters at release t ->
 *		level choice -> coreset -> centres and cost for every k' <= k), in
 *		the original space or in projected copies.  The configuration is
 *		live_config.h; the capture of rows (the glue) is capture.h.
 *
 * One grid level carries counters (2^level cells per dimension, chosen at
 * attach from a public size hint); coarser levels are sums of its cells, so
 * a release can still pick a coarser grid when the table is small without
 * splitting the budget across levels (doc/design.md, section "Grids").
 * Everything after the noisy histogram is post-processing.
 */
#ifndef DPK_LIVE_CORE_H
#define DPK_LIVE_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "cellmap.h"
#include "coreset.h"
#include "counter.h"
#include "dgauss.h"
#include "grid.h"
#include "noise.h"
#include "live_config.h"
#include "share_tree.h"

/*
 * Levels of the table's tree an event touches: dpk_tree_shape_height of its
 * arity and horizon (ceil(log2 T) + 1 for the binary tree).
 */
int			dpk_live_tree_levels(const DpkLiveConfig *cfg);

/*
 * Sensitivity of one event on the counts (l1) and on the sum vector (per
 * coordinate, l-infinity, for the cube noise) of the counted level: one
 * cell, h tree nodes (one per level), times 2 when deletions are allowed.
 */
double		dpk_live_count_sensitivity(const DpkLiveConfig *cfg);
double		dpk_live_sum_sensitivity(const DpkLiveConfig *cfg);

/*
 * How far one row moves each of its cell's in-cell sums: DPK_REL_CENTRE for
 * centred offsets (cfg->centred_offsets), DPK_REL_UNITS before them.
 */
double		dpk_live_offset_bound(const DpkLiveConfig *cfg);

/* Noise scales per tree node (sensitivity / its share of epsilon). */
DpkScale	dpk_live_count_scale(const DpkLiveConfig *cfg);
DpkScale	dpk_live_sum_scale(const DpkLiveConfig *cfg);

/*
 * Approximate DP (live_scales.c).  With delta > 0 every counter family gets
 * per-node discrete Gaussian noise: rho = dpk_zcdp_rho(epsilon, delta),
 * split over counts, sums and the norm counter by the table's shares, each
 * sigma^2 = (squared l2 sensitivity over all nodes) / (2 rho_family), and
 * releases sum the plain binary decomposition.  With delta 0 nothing
 * changes.
 */
void		dpk_live_use_delta(DpkLiveConfig *cfg, double delta);
double		dpk_live_rho(const DpkLiveConfig *cfg);
void		dpk_live_l2sq(const DpkLiveConfig *cfg, double l2sq[3]);
void		dpk_live_gauss_vars(const DpkLiveConfig *cfg, double v[3]);

/* The per-node noise family of counts, sums and the norm counter. */
DpkNoise	dpk_live_count_noise(const DpkLiveConfig *cfg);
DpkNoise	dpk_live_sum_noise(const DpkLiveConfig *cfg);
DpkNoise	dpk_live_norm_noise(const DpkLiveConfig *cfg);

/* Number of nodes release t sums (the decomposition of the table's mechanism). */
int			dpk_live_release_nodes(const DpkLiveConfig *cfg, uint32_t t);

/* The noise families of a cell's counters in the table's mechanism. */
typedef struct DpkCellNoise
{
	int			d;				/* number of sums after the count */
	const DpkNoise *count;		/* per-node noise of the count */
	const DpkNoise *sum;		/* per-node noise of the sums */
	DpkSumNoise sums;			/* which noise the sums get */
	bool		sqrt;			/* Gaussian: the square-root counter (else
								 * the plain binary decomposition) */
	uint32_t	horizon;		/* of the square-root counter */
} DpkCellNoise;

/* One cell's tree noise at release t in the table's mechanism. */
void		dpk_live_cell_noise(DpkStream *s, const DpkCellKey *ck, uint32_t t,
								const DpkCellNoise *cn, int64_t *out);

/*
 * Whether every node scale of cfg (counts, sums, norm counter) has an exact
 * rational representation; *largest gets the largest real scale (or a NaN).
 * Attach refuses a configuration for which this is false, so a release never
 * reaches dpk_scale_from_double's failure.
 */
bool		dpk_live_scales_representable(const DpkLiveConfig *cfg, double *largest);

/*
 * Whether a table attached under sampler version `version` gets exactly the
 * same node noise from this library (DPK_SAMPLER_VERSION); a release of one
 * that does not is refused, since re-drawing a published node's noise
 * differently would let the two draws be averaged.
 */
bool		dpk_live_sampler_compatible(const DpkLiveConfig *cfg, int version);

/*
 * The noisy histogram of the counted level at release t: true counters from
 * state plus each cell's tree noise.  Every cell of the level gets noise.
 */
void		dpk_live_noisy_histogram(const DpkLiveConfig *cfg,
									 const uint8_t key[DPK_KEY_BYTES],
									 const DpkCellMap *state, uint32_t t,
									 DpkStream *s, DpkDenseHist *out);

/*
 * The histogram of a coarser level (level <= the counted one) as sums of the
 * counted cells; sums are re-expressed in the coarse cells' fixed point.
 */
void		dpk_live_aggregate(const DpkDenseHist *fine, int fine_level, int level,
							   DpkDenseHist *out);

/*
 * Variance of release t's combination of tree nodes (cfg->estimator; the
 * plain binary decomposition's node count when delta > 0; the square-root
 * counter's in measurement variances), in units of one node's variance:
 * of the counts, and of the sums (which differ in a projected square-root
 * table, DPK_LIVE_SQRT_FAMILY).
 */
double		dpk_live_tree_norm2(const DpkLiveConfig *cfg, uint32_t t);
double		dpk_live_sum_tree_norm2(const DpkLiveConfig *cfg, uint32_t t);

/*
 * The share tree of a share-tree table's horizon (DPK_LIVE_SHARE), kept
 * between calls; and release t's variance in units of one full-budget
 * node (dpk_share_tree_release_units, kept for the last t asked).
 */
const DpkShareTree *dpk_live_share_tree(const DpkLiveConfig *cfg);
double		dpk_live_share_units(const DpkLiveConfig *cfg, uint32_t t);

/*
 * The node scales of a share-tree table's release weights w: node v's
 * count and sum scales are the families' full-budget scales (one node
 * holding the whole count or sum budget, Delta / eps_family) times
 * DPK_SHARE_DEN / s_v, rounded up once (dpk_share_node_scales).
 */
void		dpk_live_share_scales(const DpkLiveConfig *cfg, const DpkShareWeights *w,
								  DpkCellScales *out);

/* Noise variance of one count and one sum at `level` for release t. */
double		dpk_live_count_variance(const DpkLiveConfig *cfg, int level, uint32_t t);
double		dpk_live_sum_variance(const DpkLiveConfig *cfg, int level, uint32_t t);

/* What one release publishes. */
typedef struct DpkLiveRelease
{
	int			level;			/* level the centres were computed at */
	double		noisy_n;
	int			coreset_size;
	double	   *centers;		/* for k' = 1..k: block k'(k'-1)/2 * d */
	double	   *sizes;			/* for k' = 1..k: block k'(k'-1)/2 */
	double	   *costs;			/* k: private cost estimate for k' */
	/* k-median of the same coreset (dpk_live_kmedian), NULL until made */
	double	   *kmed_centers;	/* as centers */
	double	   *kmed_sizes;		/* as sizes */
	double	   *kmed_costs;		/* k: private sum of distances for k' */
	int			guard_fired;	/* k' blocks the mean guards replaced by k' = 1 */
} DpkLiveRelease;

/* Offset of k''s block in centers (times d) and sizes. */
static inline int
dpk_live_block(int kprime)
{
	return kprime * (kprime - 1) / 2;
}

/*
 * From the noisy counted level, choose the level (RUGNIK bound under the
 * actual noise at t), build the coreset and cluster it for every k' <= k;
 * then the low-d mean guard (dpk_live_lowd_guard).
 */
void		dpk_live_cluster(const DpkLiveConfig *cfg, const DpkBox *box,
							 const DpkDenseHist *fine, uint32_t t, uint64_t seed,
							 DpkLiveRelease *rel);

/* dpk_live_cluster without the guard (the benchmarks' "before"). */
void		dpk_live_cluster_centres(const DpkLiveConfig *cfg, const DpkBox *box,
									 const DpkDenseHist *fine, uint32_t t, uint64_t seed,
									 DpkLiveRelease *rel);

/*
 * k-median centres, sizes and cost curve for every k' <= k of a projected
 * live release made by dpk_live_cluster_projected from count, sum and
 * sumnorm (its arguments) into rel: per copy, the cells above the coreset
 * threshold whose noisy count makes a trustworthy lifted mean
 * (dpk_lift_min_count) are lifted and clustered from the release's k-means
 * centres of k' (dpk_kmedian_lifted); for each k' the copy with the lowest
 * estimated cost is published.  The cost of k' is that copy's sum of
 * count * sqrt(D^2 + s^2) over its lifted cells, s^2 the points' mean
 * squared distance to their cell's mean estimated from the noisy norm
 * counter, scaled to all the copy's noisy mass.  Fills rel->kmed_*.
 */
void		dpk_live_kmedian_projected(const DpkLiveConfig *cfg, const DpkBox *box,
									   const double *count, const double *sum,
									   double sumnorm, uint32_t t, uint64_t seed,
									   DpkLiveRelease *rel);

/* Allocate a release's arrays for every k' <= k (k-median ones NULL). */
void		dpk_live_release_alloc(DpkLiveRelease *rel, int k, int d);

/* Free a release's arrays. */
void		dpk_live_release_free(DpkLiveRelease *rel);

/*
 * Where the cost proxies of a low-d release put every counted cell of
 * `fine` (ncells * d, box coordinates, dpk_free'd by the caller): its noisy
 * in-cell mean shrunk toward the cell's centre as the coreset shrinks it
 * (signal 1/12 against the mean's noise variance at release t), the centre
 * where the noisy count is below 1 or the table keeps no sums.  Cells at
 * their centres misplace the heavy cells of a 12.5-wide grid by up to half
 * a cell, enough to rank two sets of centres wrongly (doc/decisions/007-lowd-release-rule.md).  Post-processing.
 */
double	   *dpk_live_cell_refs(const DpkLiveConfig *cfg, const DpkBox *box,
							   const DpkDenseHist *fine, uint32_t t);

/*
 * The coreset of `level` (the counted one or a sum of its cells) at release
 * t: cells above the noise threshold at their shrunk noisy means.
 */
void		dpk_live_level_coreset(const DpkLiveConfig *cfg, const DpkBox *box,
								   const DpkDenseHist *fine, int level, uint32_t t,
								   DpkCoreset *cs);

/*
 * Spread every point of a level-`level` coreset over its cell for the
 * k-median: s^d sub-points (s = 6 at d <= 2, 4 at d = 3, 1 above) of
 * weight w / s^d on a regular sub-grid centred on the point, with
 * half-width in each dimension the distance to the nearer edge of its
 * cell.  out is allocated (free with dpk_coreset_free).
 */
void		dpk_live_kmedian_spread(const DpkCoreset *cs, const DpkBox *box, int level,
									DpkCoreset *out);

/*
 * k-median centres, sizes and private cost curve for every k' <= k of a
 * low-d release that dpk_live_cluster made from `fine`: weighted k-median
 * (kmedian.h) of the coreset of a level chosen among the k-means level and
 * finer ones by a private proxy, post-processing only.  The cost of k' is
 * the sum over every counted cell of its raw noisy count times
 * sqrt(D^2 + s^2), D the distance of its centre to the nearest centre and
 * s^2 the spread of uniform points in a counted cell: noisy values only.
 * Fills rel->kmed_*.
 */
void		dpk_live_kmedian(const DpkLiveConfig *cfg, const DpkBox *box,
							 const DpkDenseHist *fine, uint32_t t, uint64_t seed,
							 DpkLiveRelease *rel);

/*
 * Releases cluster the lifted cells again in the original space
 * (dpk_highd_cells_space); a cell is one of its points when the squared
 * norm of its lifted mean's noise is at most this, in normalized units (the
 * box is [0,1]^d), and its count at least the lifting's min_count.  Measured
 * from 0.01 to 1e9 at d = 16: 1 and above keep every cell min_count keeps
 * and do best at T = 1024; 0.01 keeps none there.
 */
#ifndef DPK_LIVE_SPACE_NOISE2
#define DPK_LIVE_SPACE_NOISE2 1.0
#endif

/*
 * A projected release lifts each centre against the projection's plane
 * (DpkLiftPlane, lift.h): the lifted mean's noise is isotropic, so in the
 * dhat directions of the projection's rows it is weighed against the mean
 * of the centre's cells' midpoints (weighted by their noisy counts), whose
 * error is about this many cells' quantization variance (2w/m)^2/12, and
 * only the other d - dhat directions are shrunk toward the fallback.
 * Post-processing; nothing stored.  The gain is the plane's share dhat / d
 * of the noise, so it matters at small d (doc/decisions/018-lift-plane-and-rest-mean.md).
 */
#define DPK_LIVE_PLANE_CELLS 1.0

/*
 * A low-d release also tries every candidate level's coreset with cells
 * kept from this many standard deviations of their count noise, below the
 * default threshold (dpk_coreset_threshold: about 2.9 sigma at 8 x 8
 * cells), and keeps it when its centres' proxy cost is lower: a small
 * cluster spread over two or three cells near the noise is otherwise
 * dropped whole (doc/decisions/007-lowd-release-rule.md).
 */
#define DPK_LIVE_LOW_SIGMAS 1.5

/*
 * From this d on a projected release lifts by count-weighted cell sums
 * (dpk_lift_centers_weighted), adds the lift's estimated noise to its
 * private costs and, pure tables, publishes no k' costlier than a smaller
 * one (dpk_live_guard_blocks), and runs more k-means restarts
 * (DPK_LIVE_WEIGHTED_RESTARTS, DPK_LIVE_CORESET_RESTARTS on the projected
 * coreset): the projected coreset of a few dozen cells gets split clusters
 * into local optima that merge two clusters, and the noise of the
 * d-dimensional sums, not the partition, is most of the cost
 * (doc/decisions/012-large-d-lift-guard.md).
 * Post-processing only; nothing stored.
 */
#define DPK_LIVE_WEIGHTED_D 64
#define DPK_LIVE_WEIGHTED_RESTARTS 40

/*
 * From DPK_LIVE_WEIGHTED_D on, the k-means of a release's projected coreset
 * (a few dozen cells in d-hat dimensions, so cheap) runs this many
 * restarts; the original-space partition (d dimensions) keeps
 * DPK_LIVE_WEIGHTED_RESTARTS.  Fewer left two clusters merged in some
 * releases of the d = 384 mixture (doc/decisions/012).  Post-processing
 * only; nothing stored.
 */
#define DPK_LIVE_CORESET_RESTARTS 160

/*
 * The norm counter's unit for a complete configuration: 2^s with s the
 * smallest shift whose Gaussian variance has an exact representation, 0 for
 * pure tables and for every configuration representable at 0 (so no table
 * attached before changes).  A function of public parameters only; call it
 * after every other dpk_live_use_* and the level.
 */
void		dpk_live_use_norm_shift(DpkLiveConfig *cfg);

/*
 * The largest shift tried: a row adds at most d 2^18 unit steps, so beyond
 * 2^24 most tables' rows would round to a few units; a configuration still
 * unrepresentable there is refused at attach (check_scales).
 */
#define DPK_LIVE_NORM_SHIFT_MAX 24

/*
 * One row's largest contribution to the norm counter, in its unit: d (U/2)^2
 * or a norm bound's squared l2 (dpk_live_point_l2), over 2^norm_shift plus
 * the rounding's 1/2 when shifted.
 */
double		dpk_live_norm_point(const DpkLiveConfig *cfg);

/* Sensitivity and per-node scale of the global sum of squared norms. */
double		dpk_live_norm_sensitivity(const DpkLiveConfig *cfg);
DpkScale	dpk_live_norm_scale(const DpkLiveConfig *cfg);

/*
 * Add one normalized point u (d values) to the state of a projected table,
 * with projected coordinates t[r * dhat ..] for each copy, sign +1 or -1.
 */
void		dpk_live_add_projected(const DpkLiveConfig *cfg, DpkCellMap *state,
								   const double *u, const double *t, int sign);

/*
 * The noisy statistics of every copy at release t: counts (copies * cells)
 * and sums (copies * cells * d, fixed point), and the noisy global sum of
 * squared norms (fixed point squared).
 */
void		dpk_live_noisy_projected(const DpkLiveConfig *cfg,
									 const uint8_t key[DPK_KEY_BYTES],
									 const DpkCellMap *state, uint32_t t,
									 DpkStream *s, double *count, double *sum,
									 double *sumnorm);

/*
 * Noise variances of a projected release at t: of a cell's count, and of one
 * coordinate of a cell's lifting sum in normalized units (the tree weights'
 * squared norm times a node's variance).
 */
double		dpk_live_projected_count_var(const DpkLiveConfig *cfg, uint32_t t);
double		dpk_live_projected_sum_var(const DpkLiveConfig *cfg, uint32_t t);

/*
 * Gaussian projected tables with a norm bound, d >= DPK_LIVE_REFINE_MIN_D
 * and their lifting sums on the binary tree (d = 384 at the default cells;
 * not the d = 16 and 64 tables of 'square_root_sums'): a release replaces
 * the sums of every cell whose noisy count clears the lowest coreset
 * threshold any k' applies (the cells a release lifts from, scores and
 * guards with) by the least-squares estimate from each decomposition
 * node's complete subtree, at most DPK_LIVE_REFINE_DEPTH levels deep
 * (live_refine.c), whose variance is dpk_live_refined_norm2(t) node
 * variances; dpk_live_projected_sum_var gives that variance.  Reads only
 * nodes the tree draws anyway and picks cells by released noisy counts:
 * post-processing (doc/privacy.md).  count: the release's noisy counts
 * (copies * cells), reach as dpk_live_noisy_projected_reach; sum is
 * overwritten for the chosen cells.
 */
#define DPK_LIVE_REFINE_MIN_D 128
#define DPK_LIVE_REFINE_DEPTH 4
bool		dpk_live_refines_sums(const DpkLiveConfig *cfg);
double		dpk_live_refined_norm2(uint32_t t);

/*
 * The nodes a refined sum at release t reads, (level[i], index[i]) as
 * counter.h numbers them, and their weights weight[i] / *den (integers):
 * for every position p <= t the weights of the nodes holding p sum to
 * *den, and to 0 beyond t (condition (*) of tree_estimator.h).  Returns the
 * number of nodes, at most DPK_LIVE_REFINE_MAX_NODES.
 */
#define DPK_LIVE_REFINE_MAX_NODES 1024
int			dpk_live_refine_nodes(uint32_t t, int *level, uint32_t *index, int64_t *weight,
								  int64_t *den);
void		dpk_live_refine_sums(const DpkLiveConfig *cfg, const uint8_t *reach,
								 const uint8_t key[DPK_KEY_BYTES], const DpkCellMap *state,
								 uint32_t t, const double *count, double *sum);

/*
 * Tables on DPK_LIVE_COUNTER_SQRT_LIFTED ('square_root_lifted': Gaussian,
 * projected, with lifting sums): a release draws every cell's count, then
 * the lifting sums, on the square root, of the cells it lifts from alone
 * (dpk_live_lifted_cells; the others' sums are never drawn, doc/decisions/
 * 084).  Reading the square-root sums of cells chosen by released counts is
 * post-processing of the square_root_sums mechanism (doc/privacy.md).
 */
bool		dpk_live_lifts_sums(const DpkLiveConfig *cfg);

/*
 * The cells a release lifts from: in each copy those reach allows (NULL:
 * all) whose noisy count clears the lowest coreset threshold any k'
 * applies (the cells dpk_live_refine_sums refines), at most cap of them
 * over every copy, the heaviest (then the lowest index).  lifted[c] is set
 * to 1 for them and 0 for the others (copies * cells); returns how many.
 */
uint64_t	dpk_live_lifted_cells(const DpkLiveConfig *cfg, const uint8_t *reach, uint32_t t,
								  const double *count, double cap, uint8_t *lifted);

/*
 * A square_root_lifted release's lifting sums, given its noisy counts:
 * the true sums plus the square-root counter's noise (exactly the values
 * the same table on square_root_sums releases) for the cells
 * dpk_live_lifted_cells picks within dpk_live_lifted_cap, each other cell
 * its count times its back-projected middle (in lift units), no noise
 * drawn for it.  sum (copies * cells * d) is overwritten.
 */
void		dpk_live_lifted_sums(const DpkLiveConfig *cfg, const uint8_t *reach,
								 const uint8_t key[DPK_KEY_BYTES], const DpkCellMap *state,
								 uint32_t t, const double *count, double *sum);

/*
 * Squared distance in the box per unit of squared distance between
 * positions: the widest side squared in metric positions (exact), the mean
 * squared side in normalized ones (an approximation).
 */
double		dpk_live_width2(const DpkLiveConfig *cfg, const DpkBox *box);

/*
 * Centres for every k' <= k of a projected table: per copy, the projected
 * grid's coreset and k-means, centres lifted by the noisy sums of their
 * cells (dpk_highd_cells_cluster), and for each k' the copy with the lowest
 * private cost estimate published.  Costs use the noisy sum of norms.
 */
void		dpk_live_cluster_projected(const DpkLiveConfig *cfg, const DpkBox *box,
									   const double *count, const double *sum,
									   double sumnorm, uint32_t t, uint64_t seed,
									   DpkLiveRelease *rel);

/*
 * The same without a copy of the sums (d doubles a cell: 50 MB at d = 1536):
 * sum is scaled in place during the call and given back exactly, but with
 * the cells no point of the box reaches zeroed (those of
 * dpk_live_noisy_projected_box are zero already).  Same centres.
 */
void		dpk_live_cluster_projected_inplace(const DpkLiveConfig *cfg, const DpkBox *box,
											   const double *count, double *sum,
											   double sumnorm, uint32_t t, uint64_t seed,
											   DpkLiveRelease *rel);

/*
 * The guard of large-d releases (cfg->lift_weighted): centres, sizes and
 * costs of a release for every k' <= k (blocks of dpk_live_block), costs
 * estimating each answer's k-means cost with its centres' noise.  A k'
 * whose cost exceeds that of the cheapest smaller k'' publishes the
 * centres of that k'', padded to k' with copies of its heaviest centre at
 * size 0, and its cost: at d = 384 a release of a few thousand rows per
 * cluster lifts centres whose noise exceeds their spread, worse than one
 * centre at the mean (doc/decisions/012-large-d-lift-guard.md).  Costs only.
 */
void		dpk_live_guard_blocks(int d, int k, double *centers, double *sizes,
								  double *costs);

/* Whether a release of cfg applies dpk_live_guard_blocks: pure large-d tables. */
bool		dpk_live_uses_guard(const DpkLiveConfig *cfg);

/*
 * The held-out guard of projected releases (pure from 0.9): a k' >= 2
 * answer is compared with the release's k' = 1 answer on the cells of its
 * copy that lifted nothing (noisy count at or below the coreset threshold),
 * whose noisy sums no released centre depends on, so that
 *
 *	 sum_c n_c (||a_j(c)||^2 - ||b||^2) - 2 <a_j(c) - b, S_c>
 *
 * (a_j the k' centres and b the one centre, positions about the middle;
 * j(c) a fixed assignment of the cell: the centre whose projection is
 * nearest the cell's middle, or the centre nearest that middle mapped back
 * by the projection's pseudo-inverse; either way an upper bound of the k'
 * centres' cost) estimates how much more the k' centres cost than the one
 * on those cells' rows.  When under both assignments it
 * exceeds cfg->heldout_z (DPK_LIVE_HELDOUT_Z) times its standard deviation (count_var,
 * sum_var: the cells' noise variances), the k' block publishes the one
 * centre (padded with copies at size 0) and k' = 1's cost.  Post-processing
 * (doc/decisions/038-lsh-baseline-and-live-guard.md).  Three deviations:
 * at two, chance gaps replaced good K answers by the one centre
 * (doc/decisions/060-heldout-guard-z.md).
 */
#define DPK_LIVE_HELDOUT_Z 3.0

/*
 * The estimate above for one copy's cells (count m^dhat, sum m^dhat * d in
 * normalized units about the middle, as dpk_live_cluster_projected reads
 * them) and k positions a (k * d) against the position b (d), each cell
 * assigned in the projection or (back_projected) by the pseudo-inverse;
 * *sd gets its standard deviation.  Cells whose count exceeds threshold
 * are skipped.
 */
double		dpk_live_heldout_gap(const struct DpkProjection *p, int m, const double *count,
								 const double *sum, double threshold, double count_var,
								 double sum_var, int k, const double *a, const double *b,
								 bool back_projected, double *sd);

/* Whether a release of cfg applies the held-out guard: every projected table. */
bool		dpk_live_uses_heldout_guard(const DpkLiveConfig *cfg);

/*
 * The held-out guard applied to a projected release: every copy's counts
 * (copies * m^dhat) and sums (normalized units) as dpk_live_cluster_projected
 * reads them after dpk_live_zero_unreachable, each copy's reachable cells
 * (0: all), and per k' the copy its block came from (best_copy, k) and its
 * centres' positions (pos, blocks of dpk_live_block).  Returns how many k'
 * blocks it replaced; 0 unless dpk_live_uses_heldout_guard.
 */
int			dpk_live_heldout_guard(const DpkLiveConfig *cfg, const struct DpkProjection *proj,
								   const double *count, const double *sum,
								   const double *reachable, uint32_t t, const int *best_copy,
								   const double *pos, DpkLiveRelease *rel);

/*
 * The low-d mean guard (dpk_live_lowd_guard, its estimate dpk_hist_mean_gap
 * in grid.h): a k' >= 2 answer a of a
 * low-d release is compared with its k' = 1 answer b (the mean of the same
 * coreset) on every counted cell c.  A cell inside one centre's Voronoi
 * region (all its corners nearest the same a_j) adds its rows' exact extra
 * cost over b,
 *
 *	 n_c (|a_j - o_c|^2 - |b - o_c|^2) - 2 <a_j - b, s_c>,
 *
 * (widths squared per dimension, o_c the origin of the cell's fixed-point
 * offsets, s_c their noisy sum); any other cell its count times the least
 * extra cost of a point at one of its corners, a lower bound (a row's extra
 * cost is concave in the row).  Linear in the noisy counts and sums, so
 * unbiased for a lower bound of the k' centres' extra cost but for the
 * selection of the centres by the same noise, which makes them look
 * cheaper (they sit where the noise is positive).  When it exceeds
 * DPK_LIVE_LOWD_GUARD_Z standard deviations (the cells' count and sum
 * noise), the k' block publishes the one centre, padded with copies at
 * size 0, and k' = 1's cost.  Post-processing of the release's noisy
 * histogram: no new draw.  3 deviations: at 2 it fired in 2 of 980
 * releases of 1 000 rows under delta (tuning seeds 0-9), both times on
 * centres cheaper than the one centre (doc/decisions/044-live-mean-guard.md).
 */
#ifndef DPK_LIVE_LOWD_GUARD_Z
#define DPK_LIVE_LOWD_GUARD_Z 3.0
#endif


/*
 * The low-d mean guard applied to a release dpk_live_cluster made from
 * `fine` (the counted level) at t: returns how many k' blocks now publish
 * the one centre.
 */
int			dpk_live_lowd_guard(const DpkLiveConfig *cfg, const DpkBox *box,
								const DpkDenseHist *fine, uint32_t t, DpkLiveRelease *rel);

/*
 * dp_histogram of a projected table: copy 0's noisy counts and original-space
 * sums summed from the counted level up to `level`, into count (m^dhat cells,
 * m = 2^level) and sum (m^dhat * d).
 */
void		dpk_live_projected_level(const DpkLiveConfig *cfg, const DpkCellMap *noisy,
									 int level, double *count, double *sum);

struct DpkProjection;

/*
 * The lifted centre u (normalized to [0,1]^d) of projected cell `cell` at
 * `level` from its noisy count and sums; proj is copy 0's projection.
 */
void		dpk_live_projected_cell_centre(const DpkLiveConfig *cfg,
										   const struct DpkProjection *proj, int level,
										   uint64_t cell, double count, const double *sum,
										   double *u);

#endif
