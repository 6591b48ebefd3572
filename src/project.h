/*
 * project.h
 *		High dimensions: random projections, lifting and boosting by copies.
 *
 * Paper 000 (section 5) reduces the dimension with a data-independent random
 * projection, clusters the low-dimensional image with the grid machinery,
 * and lifts each low-dimensional centre back to R^d as the mean of its
 * cluster computed from noisy per-cell coordinate sums kept in the ORIGINAL
 * space; R independent copies boost the success probability and the copy
 * with the lowest private cost estimate is published (DESIGN §7).
 *
 * Coordinates.  A point x of the box is first normalized to u in [0,1]^d
 * (dpk_box_normalize: +-Inf and outside values clamped).  Copy r projects the
 * centred point v = u - 1/2 with a matrix P_r (d_hat x d) drawn from a public
 * seed: Gaussian entries, rows orthonormalised (so ||P_r v|| <= ||v|| and the
 * image of uniform data has the same spread 1/sqrt(12) on every axis).  The
 * projected box is the fixed public cube [-w, w]^d_hat, w = half_width (the
 * rows have unit norm, so w is in units of the row norm); images outside it
 * are clamped onto its faces, which is data-independent.  Projected
 * normalized coordinates are t = (P_r v + w) / (2 w) in [0,1]^d_hat.
 *
 * Lifting statistics.  Sums in the original space are kept on a fixed-point
 * grid of DPK_LIFT_UNITS steps per box width, centred: a point contributes
 * q_j = round((u_j - 1/2) DPK_LIFT_UNITS) in [-U/2, U/2] to coordinate j, so
 * the L1 sensitivity of one point on a sum vector is d U / 2 (half of what
 * uncentred offsets in [0, U] would cost), and ||q||^2 <= d U^2 / 4 on a sum
 * of squared norms.  The lifting functions below take these statistics
 * already divided by U (normalized units), so they are agnostic of where the
 * noise came from (one-shot or continual counters).
 *
 * Everything here is plain C on dpk_alloc; no PostgreSQL headers.
 */
#ifndef DPK_PROJECT_H
#define DPK_PROJECT_H

#include <stddef.h>
#include <stdint.h>

#include "coreset.h"
#include "grid.h"
#include "noise.h"

/* Fixed-point steps per box width of the original-space lifting sums. */
#define DPK_LIFT_UNITS 1024

/* Below this dimension the low-d pipeline (dpk_oneshot_cluster) is better. */
#define DPK_HIGHD_MIN_D 6

/* One data-independent projection R^d -> R^d_hat. */
typedef struct DpkProjection
{
	int			d;
	int			dhat;
	uint64_t	seed;			/* public */
	double		half_width;		/* projected box [-w, w]^dhat */
	double	   *mat;			/* dhat * d, row-major, orthonormal rows */
	double	   *offset;			/* dhat: P (1/2, ..., 1/2), to centre u */
} DpkProjection;

/*
 * Draw the projection of seed: Gaussian entries from a plain seeded
 * generator (the seed is public), rows orthonormalised by modified
 * Gram-Schmidt when dhat <= d (else only normalised).  Deterministic in
 * (d, dhat, seed); never looks at data.
 */
void		dpk_projection_init(DpkProjection *p, int d, int dhat, uint64_t seed,
								double half_width);

/* Free a projection's arrays. */
void		dpk_projection_free(DpkProjection *p);

/*
 * The public seed of copy r of a pipeline whose projection seed is `seed`
 * (copies get unrelated matrices).
 */
uint64_t	dpk_projection_copy_seed(uint64_t seed, int r);

/*
 * Project a batch of normalized points: u is n * d in [0,1], t receives
 * n * dhat projected normalized coordinates in [0,1] (clamped onto the
 * projected box).  One cblas_dgemm (n x d times d x dhat) per chunk of
 * rows, u used in place (the centring is folded into an offset).
 */
void		dpk_project_batch(const DpkProjection *p, const double *u, size_t n,
							  double *t);

/*
 * Normalize raw points x (n * d, NaN-free, +-Inf allowed) in the box and
 * project them: t as in dpk_project_batch.  Works through a bounded scratch.
 */
void		dpk_project_points(const DpkProjection *p, const DpkBox *box,
							   const double *x, size_t n, double *t);

/*
 * Map projected normalized coordinates t (dhat) back to a normalized point
 * of the original space by the pseudo-inverse: u = 1/2 + P^T (2 w t - w),
 * clamped into [0,1].  Used where a cluster has no mass to lift.
 */
void		dpk_project_back(const DpkProjection *p, const double *t, double *u);

/*
 * Fixed-point centred contribution of a normalized point to the lifting sums:
 * q_j = round((u_j - 1/2) DPK_LIFT_UNITS), returns sum_j q_j^2.
 */
int64_t		dpk_lift_quantize(int d, const double *u, int64_t *q);

/*
 * Lift k centres from per-cell statistics in normalized units: count[c] and
 * sum[c * d + j] (the sum over the cell's points of u_j - 1/2), noisy or
 * not; assign[c] is the centre cell c belongs to, or -1 to leave it out.
 * Centre j is 1/2 + (sum of its cells' sums) / (sum of their counts),
 * clamped into [0,1]^d, when that count is >= min_count; otherwise it is
 * fallback + j * d (normalized, may be NULL: then 1/2).  sizes (may be NULL)
 * gets each centre's summed count, clipped at 0.  Exact on noiseless input.
 */
void		dpk_lift_centers(int d, int k, size_t ncells, const double *count,
							 const double *sum, const int *assign, double min_count,
							 const double *fallback, double *centers, double *sizes);

/*
 * The private score of a partition from the same statistics (lower is
 * better): an estimate of the k-means cost of the lifted centres,
 *		sum_j [ SumNorm_j - ||Sum_j||^2 / Count_j ],
 * with sumnorm[c] the cell's sum of ||u - 1/2||^2 (NULL: the term is dropped,
 * which is exact for comparing partitions of the same point set, since
 * sum ||u - 1/2||^2 over all points does not depend on the partition).
 * ||Sum_j||^2 is debiased by d * sum_var * (cells of j) (sum_var: noise
 * variance of one coordinate sum, normalized units) and divided by
 * max(Count_j, min_count); clusters below min_count add nothing.
 */
double		dpk_lift_cost(int d, int k, size_t ncells, const double *count,
						  const double *sum, const double *sumnorm, const int *assign,
						  double sum_var, double min_count);

/* How the one-shot pipeline lifts centres (measured, see the defaults). */
typedef enum DpkLiftMode
{
	DPK_LIFT_JOINT,				/* R grids, one noisy (count, sum) per group of
								 * points sharing all R projected labels,
								 * k-means of the groups in the original space */
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
	double		lift_count_share;	/* share of the lifting budget on counts
									 * (cluster mode); < 0: 1/(1 + d^(2/3)) */
	DpkLiftMode lift_mode;
	double		norm_share;		/* cell mode: share of the lifting budget on
								 * per-cell sums of squared norms */
	int			lift_coarsen;	/* cell mode: lifting cells are this many
								 * grid cells wide per dimension (1: the
								 * grid's own cells, sharing its counts) */
	int			refine_steps;	/* private Lloyd steps in the original space
								 * after the best copy is chosen */
	double		refine_share;	/* share of epsilon (after N) on refinement */
	double		grid_scale;		/* multiplies RUGNIK's m in projected space */
	double		threshold_sigmas;	/* keep cells above this many noise sd */
	double		max_cells;		/* public cap on m^dhat */
	double		max_lift_values;	/* cell mode: cap on cells * d sums */
	uint64_t	proj_seed;		/* public seed of the projections */
	int			restarts;
	int			max_iter;
} DpkHighdConfig;

/* Defaults measured by test/bench/bench_highd.c (see project.c). */
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
	double		count_scale;	/* discrete Laplace scales, fixed point */
	double		group_scale;
	double		lift_count_scale;
	double		sum_scale;
	double		norm_scale;
	double		refine_count_scale;
	double		refine_sum_scale;
	double		score[16];		/* private score of the first 16 copies */
	double	   *copy_centers;	/* if not NULL on entry: receives copies * k * d
								 * normalized centres, every copy's lift */
} DpkHighdInfo;

/*
 * One-shot epsilon-DP k-means for high d (same contract as
 * dpk_oneshot_cluster): exactly cfg->k centres in the original space of the
 * box, noisy sizes, no data-dependent error.  points: n * d, NaN-free
 * (+-Inf allowed, clamped).  Privacy: eps_n + copies * (eps_grid +
 * eps_lift_count + eps_lift_sum + eps_lift_norm) + refine_steps * eps_refine
 * = cfg->epsilon by sequential composition (every point is in every copy).
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
