/*
 * kmedian.h
 *		Weighted k-median (D^1 seeding, Lloyd-style alternation with Weiszfeld
 *		steps, restarts): centres minimizing the weighted sum of Euclidean
 *		distances.
 *
 * Like kmeans.h it runs on noisy coresets only, so it is post-processing:
 * its randomness is the plain seeded generator of prng.h.  The
 * objective names shared by the SQL functions are here too.
 */
#ifndef DPK_KMEDIAN_H
#define DPK_KMEDIAN_H

#include <stdint.h>

#include "kmeans.h"

/* The clustering objective of a release. */
typedef enum DpkObjective
{
	DPK_OBJECTIVE_KMEANS = 0,	/* sum of squared distances */
	DPK_OBJECTIVE_KMEDIAN = 1	/* sum of distances */
} DpkObjective;

/*
 * The objective named by `name` ("kmeans" or "kmedian", exactly); returns
 * false for anything else.
 */
int			dpk_objective_parse(const char *name, DpkObjective *out);

/* The name of an objective, as dpk_objective_parse reads it. */
const char *dpk_objective_name(DpkObjective obj);

/* The valid names, for error hints: "kmeans, kmedian". */
#define DPK_OBJECTIVE_NAMES "'kmeans', 'kmedian'"

/*
 * Weighted geometric median of n points x (n*d; weights w >= 0, NULL = all
 * 1; anything not > 0 counts as 0) by Weiszfeld's iteration with the
 * Vardi-Zhang modification, so an iterate that lands on a data point moves
 * off it unless that point is the median.  Starts at `start` (d values, or
 * the weighted mean if NULL), stops after max_iter steps or when a step is
 * shorter than tol times the mean distance.  Writes the median to out (d)
 * and returns its weighted sum of distances.  With no positive weight out is
 * the start (or the plain mean, or the origin with n = 0) and 0 is returned.
 */
double		dpk_geomedian(const double *x, const double *w, int n, int d,
						  const double *start, int max_iter, double tol,
						  double *out);

/*
 * Cluster the weighted points pts into exactly opt->k centres
 * (out->centers, k*d) for the k-median objective; same contract as
 * dpk_kmeans (kmeans.h): opt->restarts seedings by weight * D (the distance
 * to the nearest centre so far), each followed by at most opt->max_iter
 * rounds of nearest-centre assignment and Weiszfeld steps toward each
 * cluster's weighted geometric median; the lowest weighted sum of distances
 * wins and is returned.  out->sizes (may be NULL) gets the weight assigned
 * to each centre.  Deterministic for a given seed.
 */
double		dpk_kmedian(const DpkPoints *pts, const DpkClusterOpts *opt,
						const DpkClusterOut *out);

/*
 * The alternation of dpk_kmedian (nearest-centre assignment, Weiszfeld
 * steps, an empty cluster re-seeded at the costliest point) from the k
 * given centres instead of a seeding: centers (k*d) is updated in place to
 * the best centres met, whose weighted sum of distances is returned; sizes
 * (may be NULL) as for dpk_kmedian.  Deterministic; n = 0 leaves the
 * centres as they are.
 */
double		dpk_kmedian_from(const double *x, const double *w, int n, int d, int k,
							 int max_iter, double *centers, double *sizes);

/*
 * Weighted k-median cost of fixed centres: sum of w_i * sqrt(D_i^2 +
 * spread2), D_i the distance of x_i to its nearest centre (nearest found
 * with the BLAS assignment of kmeans.c, same tie and duplicate rules).
 * spread2 = 0 gives the plain sum of distances; a coreset point standing for
 * the points of a cell passes their mean squared distance to it, so a
 * cluster's own cells are not counted at distance 0.  assign (may be NULL)
 * receives each point's centre.
 */
double		dpk_kmedian_cost(const double *x, const double *w, int n, int d,
							 const double *centers, int k, double spread2,
							 int *assign);

#endif
