/*
 * mean_guard.h
 *		The mean guard: a release never publishes centres whose estimated
 *		cost exceeds one centre's at the noisy mean of the same statistics.
 *
 * Given one noisy (count, sum) per part of a partition of the rows (sums
 * of u - 1/2 in normalized units, lift.h) and the k centres lifted from
 * them, the k-means cost of the centres over the parts (an upper bound of
 * their cost, every row being charged to its part's centre rather than to
 * its nearest one) and the cost of one centre at the noisy mean of all the
 * parts differ by
 *
 *	 sum_j (n_j ||c_j||^2 - 2 <c_j, S_j>) + ||S||^2 / n
 *
 * (the rows' squared norms cancel), which the noisy counts and sums
 * estimate with the true sums replaced by the noisy ones.  A centre that
 * follows its part's noisy mean with weight lambda_j (1: the plain noisy
 * mean; less: shrunk toward a fallback that does not depend on the sum)
 * moved with that noise, which the estimate would credit to it: its term
 * gets 2 lambda_j d sum_var / n_j back; the noisy mean's term likewise
 * 2 k d sum_var / n (the k parts' noise).  Post-processing of statistics
 * already drawn for the release: no new noise.
 *
 * Plain C, no PostgreSQL headers.
 */
#ifndef DPK_MEAN_GUARD_H
#define DPK_MEAN_GUARD_H

#include <stdbool.h>

/*
 * The estimated cost of the centres minus that of one centre at the noisy
 * mean (both without the rows' squared norms), from k parts' noisy counts
 * cnt (k) and sums sum (k * d, normalized units of u - 1/2), the noise
 * variance sum_var of one coordinate sum, and the k normalized centres
 * (k * d).  Parts whose noisy count is below min_count kept a centre that
 * does not depend on their sum: no debiasing for them.  fallback (k * d,
 * may be NULL: lambda 1) holds the points the centres were shrunk toward,
 * lambda_j being c_j's projection on the segment from fallback_j to the
 * part's noisy mean.  mean (d, may be
 * NULL) gets the noisy mean in normalized coordinates (1/2 everywhere when
 * the total noisy count is not positive).  Positive: the mean is the
 * cheaper estimate.
 */
double		dpk_mean_guard_gap(int d, int k, const double *cnt, const double *sum,
							   double sum_var, double min_count, const double *centers,
							   const double *fallback, double *mean);

/*
 * The guard applied: when dpk_mean_guard_gap is positive, every centre
 * moves to the noisy mean, the first with the total noisy count as its
 * size and the others with size 0 (sizes may be NULL).  Returns whether it
 * fired.
 */
bool		dpk_mean_guard(int d, int k, const double *cnt, const double *sum,
						   double sum_var, double min_count, const double *fallback,
						   double *centers, double *sizes);

#endif
