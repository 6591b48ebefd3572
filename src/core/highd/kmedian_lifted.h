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

#include <stdbool.h>
#include <stdint.h>

#include "grid.h"
#include "kmedian.h"

struct DpkHighdPlan;
struct DpkHighdOut;
struct DpkProjection;

/*
 * Weighted k-median of the lifted points pts for opt->k centres: the
 * better, by weighted sum of sqrt(D^2 + spread2), of the alternation from
 * `start` (k*d, may be NULL) and dpk_kmedian's D^1 restarts (opt).  Writes
 * out->centers (k*d) and out->sizes (k, may be NULL); returns that cost.
 * n = 0: the start (or the origin) and cost 0.
 */
double		dpk_kmedian_lifted(const DpkPoints *pts, const DpkClusterOpts *opt,
							   const double *start, double spread2,
							   const DpkClusterOut *out);

/* The noisy cells of one copy of a projected release. */
typedef struct DpkCopyCells
{
	const DpkBox *box;			/* the box the lifted points go back to */
	bool		metric;			/* the box's metric coordinates (to_box) */
	uint64_t	ncells;			/* number of cells of the copy's grid */
	const double *count;		/* ncells noisy counts */
	const double *sum;			/* ncells * d noisy sums (normalized) */
} DpkCopyCells;

/* Which cells of a copy are lifted, and the noise of their sums. */
typedef struct DpkLiftedCut
{
	double		threshold;		/* the coreset threshold a count must exceed */
	double		min_count;		/* and the smallest count trusted to lift */
	double		sum_var;		/* noise variance of a cell's sum per
								 * coordinate (normalized units) */
} DpkLiftedCut;

/* Where the lifted points of a copy go. */
typedef struct DpkLiftedPoints
{
	double	   *x;				/* n * d lifted points, box coordinates */
	double	   *w;				/* n weights: their noisy counts */
	double	   *heavy;			/* their summed count */
	double	   *between;		/* debiased sum of ||sum||^2 / count */
} DpkLiftedPoints;

/*
 * The lifted points of one copy of a projected release: every cell above
 * both cut->threshold and cut->min_count at 1/2 + sum / count (normalized,
 * clamped) in box coordinates, weighted by its count; returns how many.
 * *out->heavy gets their summed count, *out->between the debiased sum of
 * ||sum||^2 / count over them (normalized units).
 */
int			dpk_kmedian_copy_lifted(const DpkCopyCells *cells, const DpkLiftedCut *cut,
									const DpkLiftedPoints *out);


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
