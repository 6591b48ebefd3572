/*
 * privacy_common.h
 *		What the statistical privacy tests share: their settings from the
 *		environment, and the confidence intervals of their events (an
 *		event's probability under each stream is known only through its hit
 *		count, and a test may fail only when the Chernoff intervals of the
 *		two counts certify a loss above the bound).
 */
#ifndef DPK_PRIVACY_COMMON_H
#define DPK_PRIVACY_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Read DPK_PRIVACY_RUNS (runs per stream), DPK_PRIVACY_WEAKEN (a factor the
 * noise scale is divided by, or "deletes": the insert_only sensitivity on
 * insert_delete streams, both of which the tests must catch) and
 * DPK_PRIVACY_KEYS (the first key).  False, with a message, on bad values.
 */
static inline bool
privacy_settings(const char *prog, long *runs, double *weaken, bool *weaken_deletes,
				 uint64_t *key_base)
{
	if (getenv("DPK_PRIVACY_RUNS"))
		*runs = atol(getenv("DPK_PRIVACY_RUNS"));
	if (getenv("DPK_PRIVACY_WEAKEN"))
	{
		if (strcmp(getenv("DPK_PRIVACY_WEAKEN"), "deletes") == 0)
			*weaken_deletes = true;
		else
			*weaken = atof(getenv("DPK_PRIVACY_WEAKEN"));
	}
	if (getenv("DPK_PRIVACY_KEYS"))
		*key_base = strtoull(getenv("DPK_PRIVACY_KEYS"), NULL, 10);
	if (*runs < 100 || !(*weaken > 0.0))
	{
		fprintf(stderr, "%s: bad DPK_PRIVACY_RUNS or DPK_PRIVACY_WEAKEN\n", prog);
		return false;
	}
	return true;
}

/* KL divergence of Bernoulli(p) from Bernoulli(q). */
static inline double
kl(double p, double q)
{
	double		r = 0.0;

	if (p > 0.0)
		r += p * log(p / q);
	if (p < 1.0)
		r += (1.0 - p) * log((1.0 - p) / (1.0 - q));
	return r;
}

/*
 * The end of {p : KL(ph, p) <= lim} inside [a, b], by bisection: KL(ph, .)
 * grows away from ph, so the bound is where it crosses lim; `upper` says
 * whether [a, b] lies above ph.
 */
static inline double
kl_bisect(double ph, double lim, double a, double b, bool upper)
{
	int			it;

	for (it = 0; it < 100; it++)
	{
		double		m = 0.5 * (a + b);

		if ((kl(ph, m) > lim) == upper)
			b = m;
		else
			a = m;
	}
	return upper ? b : a;
}

/*
 * Chernoff bounds for a binomial proportion: [lo, hi] = {p : n KL(k/n, p) <=
 * ln(1 / tail)} misses the true p with probability <= 2 tail.
 */
static inline void
kl_interval(long k, long n, double tail, double *lo, double *hi)
{
	double		ph = (double) k / (double) n,
				lim = log(1.0 / tail) / (double) n;

	*hi = ph >= 1.0 ? 1.0 : kl_bisect(ph, lim, ph, 1.0, true);
	*lo = ph <= 0.0 ? 0.0 : kl_bisect(ph, lim, 0.0, ph, false);
}

#endif
