/*
 * mean_guard.c
 *		The mean guard (see mean_guard.h).
 */
#include "mean_guard.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "dpk_mem.h"

/*
 * How far a centre c follows its part's noisy mean m = 1/2 + s / n from its
 * fallback f: lambda = <c - f, m - f> / ||m - f||^2 within [0, 1] (1
 * without a fallback, or when m is at f).
 */
static double
shrink_factor(int d, double n, const double *s, const double *c, const double *f)
{
	double		num = 0.0,
				den = 0.0;
	int			j;

	if (!f)
		return 1.0;
	for (j = 0; j < d; j++)
	{
		double		m = 0.5 + s[j] / n - f[j];

		num += (c[j] - f[j]) * m;
		den += m * m;
	}
	if (!(den > 0.0))
		return 1.0;
	return fmin(1.0, fmax(0.0, num / den));
}

/* Estimated cost of the centres minus one centre's at the noisy mean (see mean_guard.h). */
double
dpk_mean_guard_gap(int d, int k, const double *cnt, const double *sum,
				   double sum_var, double min_count, const double *centers,
				   const double *fallback, double *mean)
{
	double	   *tot = dpk_alloc0(sizeof(double) * d);
	double		n = 0.0,
				est_centres = 0.0,
				est_mean,
				tot2 = 0.0;
	int			a,
				j;

	for (a = 0; a < k; a++)
	{
		const double *c = centers + (size_t) a * d;
		const double *s = sum + (size_t) a * d;
		double		c2 = 0.0,
					cs = 0.0;

		for (j = 0; j < d; j++)
		{
			double		x = c[j] - 0.5;

			c2 += x * x;
			cs += x * s[j];
			tot[j] += s[j];
		}
		est_centres += cnt[a] * c2 - 2.0 * cs;
		/* the centre moved with its part's noise: 2 lambda d sum_var / n */
		if (cnt[a] >= min_count && cnt[a] > 0.0)
			est_centres += 2.0 * shrink_factor(d, cnt[a], s, c,
											   fallback ? fallback + (size_t) a * d : NULL) *
				d * sum_var / cnt[a];
		n += cnt[a];
	}
	for (j = 0; j < d; j++)
		tot2 += tot[j] * tot[j];
	if (n > 0.0)
		est_mean = -tot2 / n + 2.0 * k * d * sum_var / n;
	else
		est_mean = 0.0;			/* no mass: the box's middle, cost sum ||x||^2 */
	if (mean)
		for (j = 0; j < d; j++)
			mean[j] = n > 0.0 ? 0.5 + tot[j] / n : 0.5;
	dpk_free(tot);
	return est_centres - est_mean;
}

/* The guard applied (see mean_guard.h). */
bool
dpk_mean_guard(int d, int k, const double *cnt, const double *sum, double sum_var,
			   double min_count, const double *fallback, double *centers, double *sizes)
{
	double	   *mean = dpk_alloc(sizeof(double) * d);
	double		n = 0.0;
	bool		fires;
	int			a;

	fires = dpk_mean_guard_gap(d, k, cnt, sum, sum_var, min_count, centers, fallback,
								   mean) > 0.0;
	if (fires)
	{
		for (a = 0; a < k; a++)
		{
			memcpy(centers + (size_t) a * d, mean, sizeof(double) * d);
			n += cnt[a];
		}
		if (sizes)
			for (a = 0; a < k; a++)
				sizes[a] = a == 0 ? fmax(n, 0.0) : 0.0;
	}
	dpk_free(mean);
	return fires;
}
