/*
 * rugnik.c
 *		Grid-size rules: RUGNIK's optimal root and the EUGkM rule.
 */
#include "rugnik.h"

#include <float.h>
#include <math.h>

/* log(exp(a) + exp(b)) without overflow. */
static double
log_add_exp(double a, double b)
{
	if (a < b)
	{
		double		t = a;

		a = b;
		b = t;
	}
	return a + log1p(exp(b - a));
}

/*
 * RUGNIK root (the equation for xi in "On the Optimal Number of Grids for
 * Differentially Private Non-Interactive K-Means Clustering").  With
 * u = ln m, xi(m) = 0 is
 *		g(u) = a u - ln(A e^u + B) = 0,  a = d/2 + 2, A = rho K^(1/d),
 *		B = rho sqrt(N/3) K^(2/d),
 * and g'(u) = a - A e^u / (A e^u + B) lies in [a - 1, a], so g is strictly
 * increasing: Newton's method safeguarded by bisection converges from any
 * bracket and never overflows, for N up to 1e12 and d up to 64.
 */
static double
rugnik_root(double n, double eps, double k, int d)
{
	double		a = d / 2.0 + 2.0;
	double		log_rho = log(eps / d) + 0.5 * log(8.0 * n / 3.0);
	double		log_a = log_rho + log(k) / d;
	double		log_b = log_rho + 0.5 * log(n / 3.0) + 2.0 * log(k) / d;
	double		lo,
				hi,
				u;
	int			i;

	/*
	 * Bracket: g(u) <= a u - max(log_a + u, log_b) and >= a u - log(2) -
	 * max(log_a + u, log_b); the root lies where a u is near those terms.
	 */
	lo = fmin(log_b / a, log_a / (a - 1.0)) - 2.0;
	hi = fmax(log_b / a, log_a / (a - 1.0)) + 2.0;
	while (a * lo - log_add_exp(log_a + lo, log_b) > 0)
		lo -= 10.0;
	while (a * hi - log_add_exp(log_a + hi, log_b) < 0)
		hi += 10.0;

	u = 0.5 * (lo + hi);
	for (i = 0; i < 200; i++)
	{
		double		la = log_a + u;
		double		l = log_add_exp(la, log_b);
		double		g = a * u - l;
		double		dg = a - exp(la - l);
		double		next;

		if (g > 0)
			hi = u;
		else
			lo = u;
		next = u - g / dg;
		if (!(next > lo && next < hi))
			next = 0.5 * (lo + hi);
		if (fabs(next - u) <= 1e-15 * fmax(1.0, fabs(u)) || hi - lo <= 1e-15)
		{
			u = next;
			break;
		}
		u = next;
	}
	return exp(u);
}

/* The real m of a rule (see rugnik.h). */
double
dpk_grid_m(DpkGridRule rule, double n, double eps, double k, int d)
{
	if (rule == DPK_RULE_EUGKM)
		return pow(n * eps / 10.0, 2.0 / (2.0 + d));
	return rugnik_root(n, eps, k, d);
}

/* RUGNIK's h(m): noise, cross and quantisation terms of the cost bound. */
double
dpk_rugnik_bound(double m, double n, double eps, double k, int d)
{
	return sqrt(2.0) * pow(m, d / 2.0) / (eps * pow(k, 2.0 / d))
		+ 2.0 / (m * pow(k, 1.0 / d)) * sqrt(n / 3.0)
		+ n / (3.0 * m * m);
}

/* Integer cells per dimension for a real m (see rugnik.h). */
int
dpk_grid_cells_per_dim(DpkGridRule rule, double m, double n, double eps,
					   double k, int d, int max_per_dim)
{
	double		c;

	if (max_per_dim < 1)
		max_per_dim = 1;
	if (!(m >= 1.0))
		return 1;
	if (m >= (double) max_per_dim)
		return max_per_dim;
	if (rule == DPK_RULE_EUGKM)
		c = floor(m + 0.5);
	else
	{
		double		f = floor(m);
		double		cl = ceil(m);

		/* h is convex, so the better integer is one of the two neighbours. */
		c = dpk_rugnik_bound(f, n, eps, k, d) <= dpk_rugnik_bound(cl, n, eps, k, d)
			? f : cl;
	}
	if (c < 1.0)
		c = 1.0;
	if (c > max_per_dim)
		c = max_per_dim;
	return (int) c;
}

/* eps whose Laplace(1/eps) variance 2/eps^2 equals var. */
double
dpk_rugnik_eps_for_variance(double var)
{
	return sqrt(2.0 / var);
}
