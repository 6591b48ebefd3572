/*
 * kmeans.h
 *		Weighted k-means (k-means++ seeding, Lloyd, restarts) on BLAS.
 *
 * Used on noisy coresets, so it is post-processing only: its randomness is a
 * plain seeded generator, not the cryptographic stream.
 */
#ifndef DPK_KMEANS_H
#define DPK_KMEANS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Whether Lloyd's assignment skips the points whose nearest centre cannot
 * have changed (Hamerly's bounds, up to d = 16; the same centres, sizes and
 * costs either way).  Only tests set it false, to compare with every point
 * evaluated every time.
 */
extern bool dpk_kmeans_prune;

/*
 * Whether Lloyd's iterations in low dimension run on a kd-tree of the
 * points (the filtering algorithm; the same assignments, and centres and
 * costs up to the order of summation).  Only tests and benchmarks set it
 * false, to compare with the point-by-point passes.
 */
extern bool dpk_kmeans_filter;

/* A weighted point set, the input of a clustering run. */
typedef struct DpkPoints
{
	const double *x;			/* n*d coordinates, row-major */
	const double *w;			/* n weights >= 0; NULL = all 1 */
	int			n;				/* number of points */
	int			d;				/* dimension */
} DpkPoints;

/* The options of one k-means or k-median run (post-processing only). */
typedef struct DpkClusterOpts
{
	int			k;				/* number of centres, always all filled */
	int			restarts;		/* independent seedings; the lowest cost wins */
	int			max_iter;		/* at most this many Lloyd rounds per restart */
	uint64_t	seed;			/* seed of the plain generator of prng.h */
} DpkClusterOpts;

/* Where a clustering run writes its result. */
typedef struct DpkClusterOut
{
	double	   *centers;		/* k*d centres, row-major */
	double	   *sizes;			/* k weights assigned to each centre; may be NULL */
} DpkClusterOut;

/*
 * Cluster the weighted points pts into exactly opt->k centres (written to
 * out->centers); out->sizes[j] receives the total weight assigned to centre
 * j.  Runs opt->restarts independent k-means++ seedings each followed by at
 * most opt->max_iter Lloyd iterations and keeps the lowest weighted cost,
 * which it returns.  Always fills all k centres: with fewer distinct points
 * than k, or zero total weight, the spare centres repeat existing points (or,
 * with n = 0, sit at the origin) and get size 0.  Deterministic for a given
 * seed.
 */
double		dpk_kmeans(const DpkPoints *pts, const DpkClusterOpts *opt,
					   const DpkClusterOut *out);

/*
 * The same with screened restarts: every restart stops after at most
 * screen_iter Lloyd updates, and only the `keep` of lowest cost then run on
 * to opt->max_iter updates in all; the lowest final cost wins (its centres,
 * sizes and cost are returned).  With keep >= opt->restarts or screen_iter
 * >= opt->max_iter it is dpk_kmeans.  Deterministic for a given seed.
 */
double		dpk_kmeans_screened(const DpkPoints *pts, const DpkClusterOpts *opt,
								int screen_iter, int keep, const DpkClusterOut *out);

/*
 * The same, but the restarts are seeded and screened on a sample of about
 * n / stride points; the keep best then run on all the points.  With
 * weights a point is in the sample with probability min(1, r w) (r such
 * that these sum to about n / stride; a hash of its index decides) and
 * carries w / min(1, r w) there, so heavy points are always seen; without,
 * about one point in stride, chosen by a hash of its index.  stride <= 1
 * is dpk_kmeans_screened.
 */
double		dpk_kmeans_screened_sample(const DpkPoints *pts, const DpkClusterOpts *opt,
									   int screen_iter, int keep, int stride,
									   const DpkClusterOut *out);

/*
 * Weighted k-means cost of centres (k*d) on points x (n*d, weights w or NULL):
 * sum of w_i * min_j ||x_i - c_j||^2.  If assign is not NULL it receives the
 * index of the nearest centre of every point.
 */
double		dpk_kmeans_cost(const double *x, const double *w, int n, int d,
							const double *centers, int k, int *assign);

/*
 * Weights for seeding a weighted point set (k-means++ and its D^1 variant for
 * k-median): sw[i] = max(w[i], 0), 1 when w is NULL.  When they do not sum
 * to a positive finite total, uniform weights are used instead, allocated in
 * *ones (freed by the caller; NULL otherwise).  Returns the weights to seed
 * with and sets *total to their sum.
 */
const double *dpk_seeding_weights(const double *w, int n, double *sw, double **ones,
								  double *total);

#endif
