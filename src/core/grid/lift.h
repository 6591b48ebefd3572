/*
 * lift.h
 *		Lifting: centres in the original space from noisy per-cell (or
 *		per-part) counts and coordinate sums.
 *
 * A clustering found in a projected space is carried back to R^d as the mean
 * of each cluster, computed from noisy sums kept in the ORIGINAL space
 * ("Differential Privacy for Clustering Under Continual Observation";
 * doc/design.md, section "High dimensions").
 *
 * Sums in the original space are kept on a fixed-point grid of
 * DPK_LIFT_UNITS steps per box width, centred: a normalized point u
 * contributes q_j = round((u_j - 1/2) DPK_LIFT_UNITS) in [-U/2, U/2] to
 * coordinate j, so the sensitivity of one point on a sum vector is U / 2 in
 * every coordinate (half of what uncentred offsets in [0, U] would cost), the
 * l-infinity bound that the cube noise of dpk_vector_noise pays (the l1 bound
 * would be d U / 2), and ||q||^2 <= d U^2 / 4 on a sum of squared norms.  The
 * functions below take these statistics already divided by U (normalized
 * units), so they are agnostic of where the noise came from (one-shot or
 * continual counters).
 *
 * Everything here is plain C on dpk_alloc; no PostgreSQL headers.
 */
#ifndef DPK_LIFT_H
#define DPK_LIFT_H

#include <stddef.h>
#include <stdint.h>

/* Fixed-point steps per box width of the original-space lifting sums. */
#define DPK_LIFT_UNITS 1024

/*
 * The projected box's half-width per unit of a ball's radius over sqrt(d):
 * a point at distance r from the middle has projected coordinates of sd
 * r / sqrt(d), and the cube's half-width 0.75 is 0.75 sqrt(12) = 2.6 of the
 * sd of a uniform point's (sqrt(1/12)).
 */
#define DPK_BALL_HALF_WIDTH 2.6

/*
 * The l2 bound of one point's lifting contribution q (dpk_lift_quantize):
 * sqrt(d) U/2 in the cube; with a ball of metric radius ball > 0, ball U
 * plus the rounding's sqrt(d)/2 (times 1 + 1e-9 for the clamp's
 * floating-point error), whichever is less.  Its l1 bound is sqrt(d) times
 * this (Cauchy-Schwarz), its squared norm this squared.
 */
double		dpk_lift_point_l2(int d, double ball);

/*
 * Fixed-point centred contribution of a normalized point to the lifting sums:
 * q_j = round((u_j - 1/2) DPK_LIFT_UNITS), returns sum_j q_j^2.
 */
int64_t		dpk_lift_quantize(int d, const double *u, int64_t *q);

/*
 * One coordinate of dpk_lift_quantize: u clamped into [0, 1], then
 * round((u - 1/2) DPK_LIFT_UNITS) half away from zero, as llround rounds:
 * the truncation, plus or minus one when the part it dropped (exact: x is
 * below 2^52) is at least one half.  Inlined into the passes over the rows.
 */
static inline int64_t
dpk_lift_quantize_one(double u)
{
	double		v = u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u),
				x = (v - 0.5) * DPK_LIFT_UNITS;
	int64_t		r = (int64_t) x;
	double		f = x - (double) r;

	return r + (f >= 0.5) - (f <= -0.5);
}

/*
 * sum[j] += dpk_lift_quantize_one(u[j]) for j < d: four coordinates at a
 * time where the CPU has AVX2 and they are numbers (the same integers: the
 * truncation of |x| <= U / 2 in 32 bits, the dropped part and its two
 * comparisons per lane), the rest one at a time.
 */
void		dpk_lift_quantize_add(const double *u, int d, int64_t *sum);

/*
 * The smallest (noisy) count whose lifted mean is trusted over the fallback:
 * 3 count noise sd, at least 4 sd of one coordinate sum (sum_var_norm, in
 * normalized units) so the mean's noise stays below a quarter box, at least 1.
 */
double		dpk_lift_min_count(double count_var, double sum_var_norm);

/*
 * The projected plane of a copy, for lifting: mat holds the projection's
 * dhat orthonormal rows (dhat x d, DpkProjection.mat), target each centre's
 * projection as estimated without the sums (the mean of its cells'
 * midpoints; NULL: its fallback's image), and var the error variance of
 * that estimate per projected coordinate (about a cell's quantization
 * variance).  The lifted sums' noise is isotropic, so its part in the
 * rows' span can be weighed against the target (lift.c, lift_shrunk_mean).
 */
typedef struct DpkLiftPlane
{
	int			dhat;
	const double *mat;
	double		var;
	const double *target;		/* k * dhat: each centre's projected estimate
								 * (P (u - 1/2) units), NULL: the fallbacks'
								 * images */
} DpkLiftPlane;

/* The cells a lift reads: per-cell statistics in normalized units. */
typedef struct DpkLiftCells
{
	int			d;				/* dimension */
	int			k;				/* number of centres */
	size_t		ncells;			/* number of cells */
	const double *count;		/* ncells counts, noisy or not */
	const double *sum;			/* ncells * d sums of u_j - 1/2 over a cell */
	const int  *assign;			/* ncells: each cell's centre, -1 = left out */
} DpkLiftCells;

/* How a centre is lifted from its cells. */
typedef struct DpkLiftRule
{
	double		sum_var;		/* noise variance of a cell's sum per
								 * coordinate (the noisy lifts only) */
	double		min_count;		/* below this summed count, the fallback */
	const double *fallback;		/* k * d normalized; NULL = the box middle */
	const DpkLiftPlane *plane;	/* a copy's projected plane (the noisy lifts
								 * only); may be NULL */
} DpkLiftRule;

/*
 * Lift k centres from per-cell statistics in normalized units: count[c] and
 * sum[c * d + j] (the sum over the cell's points of u_j - 1/2), noisy or
 * not; assign[c] is the centre cell c belongs to, or -1 to leave it out.
 * Centre j is 1/2 + (sum of its cells' sums) / (sum of their counts),
 * clamped into [0,1]^d, when that count is >= rule->min_count; otherwise it
 * is rule->fallback + j * d (normalized, may be NULL: then 1/2); sum_var and
 * plane are not read.  sizes (may be NULL) gets each centre's summed count,
 * clipped at 0.  Exact on noiseless input.
 */
void		dpk_lift_centers(const DpkLiftCells *cells, const DpkLiftRule *rule,
							 double *centers, double *sizes);

/*
 * dpk_lift_centers for noisy cell sums with noise variance sum_var per
 * coordinate and cell: each centre is lifted from the prefix of its cells by
 * decreasing noisy count that minimizes the lifted mean's estimated squared
 * error, its noise (p cells, count C: d p sum_var / C^2) plus its debiased
 * squared shift from the mean of all the centre's cells (so a cluster split
 * over light cells is kept), then shrunk toward its fallback by positive-part
 * James-Stein.  With a plane (may be NULL) the mean's offset from the
 * plane's target, in the plane's rows, is kept with weight plane->var /
 * (plane->var + v), v the mean's noise variance per coordinate, and only the
 * other d - dhat directions are shrunk.  sizes[] still get the counts of all
 * the centre's cells.
 */
void		dpk_lift_centers_heavy(const DpkLiftCells *cells, const DpkLiftRule *rule,
								   double *centers, double *sizes);

/*
 * dpk_lift_centers for large d: each centre is 1/2 + sum_c C_c+ S_c /
 * sum_c C_c+ C_c over its cells (C_c+ = max(C_c, 0)), the least-squares
 * mean when every cell's points share the centre's mean, whose noise
 * variance sum_var sum C_c+^2 / (sum C_c+ C_c)^2 per coordinate never
 * exceeds the plain mean's; then shrunk toward its fallback by
 * positive-part James-Stein, in the plane's complement when a plane is
 * given (as dpk_lift_centers_heavy).  The fallback when the centre's summed
 * count is below min_count.  sizes[] get the counts of all the centre's
 * cells.  Exact on noiseless input whose cells each hold points of one mean
 * (without a plane).  Returns the estimated cost the centres' noise adds
 * (normalized units squared): per centre its summed count times n v s, v
 * the noise variance per coordinate of its mean, n its shrunk directions
 * and s its James-Stein factor, plus dhat v var / (v + var) for the
 * plane's rows; for a fallback centre its count times the debiased squared
 * distance to the noisy mean.
 */
double		dpk_lift_centers_weighted(const DpkLiftCells *cells, const DpkLiftRule *rule,
									  double *centers, double *sizes);

/*
 * Move each fallback row (k * d, normalized) toward the other centres' noisy
 * mean outside a plane: the James-Stein target of the lifts in the
 * directions that the plane's nrows orthonormal rows (rows, nrows * d; 0
 * rows: all d directions) say nothing about, where the box's middle is a
 * poor target for data that sit off it.  tot (k * d) holds each centre's
 * weighted sums sum w_c S_c and ww (k) its sum w_c^2, so that tot / ww is its
 * least-squares mean with noise sum_var / ww per coordinate (w_c the cell's
 * noisy count: dpk_lift_centers_weighted's weights; one part: w = its
 * count).  The target of centre a is the middle plus f g_a, g_a the other
 * centres' pooled mean, f the positive-part James-Stein factor of g_a
 * toward the middle, its error being the centres' spread over k - 1 plus
 * its noise (f about 0 for data centred in the box, about 1 far off it).
 * Leaving a's own sums out keeps the target's noise independent of a's.
 * k < 2, fewer than 2 weighed centres or n <= 2 directions: no change.
 * Rows stay clamped into the unit cube.  Noisy values and sum_var only.
 */
void		dpk_lift_rest_mean(int d, int k, const double *tot, const double *ww,
							   double sum_var, const double *rows, int nrows,
							   double *fallback);

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

#endif
