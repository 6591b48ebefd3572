/*
 * kmedian_lifted.h
 *		k-median from projected grids (d >= DPK_HIGHD_MIN_D): weighted
 *		k-median of lifted points, the noisy original-space means of
 *		projected cells.
 *
 * The lifted means are noisy sums over noisy counts, so everything here is
 * post-processing of what a release already draws: a live table's k-median
 * comes from the same noisy counters as its k-means answer (no privacy
 * cost, no draw); a one-shot k-median spends the joint mode's lifting budget
 * on the cells of one projected grid instead of on the k parts, the same
 * partition sensitivity (every point is in exactly one cell), so epsilon is
 * spent once as for k-means.  Points are clustered in the box's coordinates, the space whose
 * distances the objective sums.
 */
#ifndef DPK_KMEDIAN_LIFTED_H
#define DPK_KMEDIAN_LIFTED_H

#include <stdint.h>

#include "grid.h"
#include "kmedian.h"

struct DpkLiveConfig;
struct DpkLiveRelease;
struct DpkHighdPlan;
struct DpkHighdOut;
struct DpkProjection;

/*
 * Weighted k-median of n lifted points x (n*d) for k centres: the better,
 * by weighted sum of sqrt(D^2 + spread2), of the alternation from `start`
 * (k*d, may be NULL) and dpk_kmedian's D^1 restarts.  Writes centers (k*d)
 * and sizes (k, may be NULL); returns that cost.  n = 0: the start (or the
 * origin) and cost 0.
 */
double		dpk_kmedian_lifted(const double *x, const double *w, int n, int d, int k,
							   const double *start, int restarts, int max_iter,
							   uint64_t seed, double spread2, double *centers,
							   double *sizes);

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
void		dpk_live_kmedian_projected(const struct DpkLiveConfig *cfg, const DpkBox *box,
									   const double *count, const double *sum,
									   double sumnorm, uint32_t t, uint64_t seed,
									   struct DpkLiveRelease *rel);

/*
 * One-shot joint mode, last stage for objective 'kmedian': instead of one
 * noisy (count, sum) per part of the map, one per cell of copy 0's projected
 * grid (coarsened until its cells times d + 1 fit max_lift_values), the same
 * lifting budget and sensitivities (every point is in exactly one cell);
 * the cells whose noisy count makes a trustworthy lifted mean are clustered
 * by dpk_kmedian_lifted from their weighted k-means.  Sizes are scaled to
 * all the cells' noisy mass.
 */
void		dpk_highd_joint_kmedian(const struct DpkHighdPlan *pl, DpkStream *s,
									const struct DpkProjection *proj0,
									struct DpkHighdOut *out);

#endif
