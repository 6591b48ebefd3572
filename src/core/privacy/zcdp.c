/*
 * zcdp.c
 *		zCDP to (epsilon, delta) conversion and its inverse (see zcdp.h).
 *
 * With x = alpha - 1 > 0 the logarithm of the bound is
 *
 *	 f(x) = x ((1 + x) rho - epsilon) + x log x - (1 + x) log(1 + x),
 *
 * convex in x (f'' = 2 rho + 1 / (x (1 + x)) > 0), with derivative
 * f'(x) = rho + 2 x rho - epsilon + log(x / (1 + x)), increasing from -inf
 * to +inf: its root, found by bisection, is the minimiser.  delta(rho) at a
 * fixed epsilon increases with rho, so the inverse is a second bisection.
 */
#include "zcdp.h"

#include <math.h>
#include <stddef.h>

/* log of the bound at x = alpha - 1. */
static double
zcdp_log_bound(double rho, double epsilon, double x)
{
	return x * ((1.0 + x) * rho - epsilon) + x * log(x) - (1.0 + x) * log1p(x);
}

/* f'(x), see the header comment. */
static double
zcdp_slope(double rho, double epsilon, double x)
{
	return rho + 2.0 * x * rho - epsilon + log(x) - log1p(x);
}

/* delta at epsilon of a rho-zCDP mechanism (see zcdp.h). */
double
dpk_zcdp_delta(double rho, double epsilon, double *alpha_out)
{
	double		lo = 1e-300,
				hi,
				x,
				ld;
	int			i;

	if (!(rho > 0.0))
	{
		if (alpha_out)
			*alpha_out = INFINITY;
		return 0.0;
	}
	/* f'(hi) >= rho + epsilon + 2 - 1/hi > 0 */
	hi = (epsilon + 1.0) / rho + 1.0;
	/* bisection in log x: the root can sit anywhere from 1e-300 to hi */
	for (i = 0; i < 400; i++)
	{
		double		mid = sqrt(lo) * sqrt(hi);

		if (!(mid > lo && mid < hi))
			break;
		if (zcdp_slope(rho, epsilon, mid) < 0.0)
			lo = mid;
		else
			hi = mid;
	}
	x = lo;
	ld = fmin(zcdp_log_bound(rho, epsilon, lo), zcdp_log_bound(rho, epsilon, hi));
	if (alpha_out)
		*alpha_out = 1.0 + x;
	return ld >= 0.0 ? 1.0 : exp(ld);
}

/* The largest rho with delta(rho, epsilon) <= delta (see zcdp.h). */
double
dpk_zcdp_rho(double epsilon, double delta)
{
	double		lo = 0.0,
				hi = epsilon > 0.0 ? epsilon : 1.0;
	int			i;

	if (!(epsilon > 0.0) || !(delta > 0.0 && delta < 1.0))
		return 0.0;
	while (dpk_zcdp_delta(hi, epsilon, NULL) <= delta && hi < 1e300)
	{
		lo = hi;
		hi *= 2.0;
	}
	for (i = 0; i < 200 && hi - lo > 1e-14 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (dpk_zcdp_delta(mid, epsilon, NULL) <= delta)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The smallest epsilon with delta(rho, epsilon) <= delta (see zcdp.h). */
double
dpk_zcdp_epsilon(double rho, double delta)
{
	double		lo = 0.0,
				hi = rho + 2.0 * sqrt(rho * log(1.0 / delta)) + 1e-12;
	int			i;

	/* the classic bound rho + 2 sqrt(rho log(1/delta)) is always enough */
	for (i = 0; i < 200 && hi - lo > 1e-14 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (dpk_zcdp_delta(rho, mid, NULL) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* sigma^2 = Delta^2 / (2 rho). */
double
dpk_zcdp_sigma2(double delta2_sq, double rho)
{
	return delta2_sq / (2.0 * rho);
}

/* 0 or strictly between 0 and 1 (NaN fails both). */
int
dpk_zcdp_delta_valid(double delta)
{
	return delta == 0.0 || (delta > 0.0 && delta < 1.0);
}
