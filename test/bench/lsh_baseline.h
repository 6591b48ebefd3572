/*
 * lsh_baseline.h
 *		A benchmark baseline (not shipped): differentially private k-means by
 *		a private coreset from a tree of SimHash buckets, after Chang, Ghazi,
 *		Kumar and Manurangsi, "Locally Private k-Means in One Round" (ICML
 *		2021) and "Practical Differentially Private Clustering" (Google,
 *		2021), the "LSH clustering" of Google's differential-privacy library.
 *		Written from those descriptions.
 *
 * The rows, moved by a public origin and clipped to a ball of radius r:
 *	 1. SimHash: max_depth random Gaussian directions g_1 .. g_L; a row's
 *		bucket at level l is the sign pattern of <x, g_1> .. <x, g_l>.
 *	 2. The tree: the root holds every row; at each level every node whose
 *		noisy count reaches the branching threshold (3 min_node) splits in
 *		two, and a child is kept when its own noisy count reaches min_node.
 *		A node that does not split (or keeps no child) is a leaf.  Counts
 *		are discrete Laplace; a row is in one node per level, so each of the
 *		L + 1 levels gets (1 - frac_sum) eps / (L + 1).
 *	 3. Leaves: one Gaussian noisy sum each (l2 sensitivity r over all
 *		leaves, a row being in one leaf), sigma the analytic Gaussian
 *		mechanism's at (frac_sum eps, delta).  The coreset is the leaves'
 *		noisy means weighted by their noisy counts.
 *	 4. Non-private weighted k-means on the coreset.
 *	 5. Recentering: every leaf goes to its nearest centre, whose final
 *		position is the sum of its leaves' noisy sums over the sum of their
 *		noisy counts (post-processing of the leaves' statistics).
 * Defaults as the library's: max_depth 20, frac_sum 0.8, min_node =
 * max(1, min(10 sqrt(d) sigma / r, noisy_n / (2k))).
 *
 * Benchmark noise from a plain seeded generator: not for real releases.
 * Plain C; links against the core's k-means only.
 */
#ifndef DPK_BENCH_LSH_BASELINE_H
#define DPK_BENCH_LSH_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The parameters of one LSH clustering run. */
typedef struct LshParams
{
	int			k;
	double		eps;			/* <= 0 or infinite: no noise at all */
	double		delta;
	double		radius;			/* rows clipped to this ball about origin */
	const double *origin;		/* d values; NULL: the zero vector */
	int			max_depth;		/* SimHash levels (<= 62) */
	double		frac_sum;		/* share of eps on the leaves' sums */
	int			restarts;		/* k-means restarts on the coreset */
	uint64_t	seed;			/* hyperplanes, noise and k-means */
} LshParams;

/* What a run returns besides its centres (for the benchmark's output). */
typedef struct LshInfo
{
	int			leaves;			/* coreset size */
	int			depth;			/* deepest level reached */
	double		min_node;		/* the node threshold used */
	double		sigma;			/* noise sd of one sum coordinate */
} LshInfo;

/* The library's defaults for k, (eps, delta) and radius. */
void		lsh_defaults(LshParams *p, int k, double eps, double delta, double radius);

/* sigma of the analytic Gaussian mechanism (Balle and Wang 2018). */
double		lsh_gauss_sigma(double eps, double delta, double sensitivity);

/*
 * Cluster the n rows x (n * d) into p->k centres (k * d, in the rows'
 * coordinates).  info may be NULL.
 */
void		lsh_cluster(const double *x, size_t n, int d, const LshParams *p,
						double *centers, LshInfo *info);

#endif
