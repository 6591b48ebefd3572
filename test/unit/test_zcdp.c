/*
 * test_zcdp.c
 *		The zCDP accounting (zcdp.c) against an independent computation: the
 *		conversion's infimum over alpha taken on a fine grid, straight from
 *		the formula, and the inversions checked against it.
 */
#include <math.h>

#include "zcdp.h"
#include "unit.h"

/*
 * delta by brute force: the formula exp((a-1)(a rho - eps)) / (a-1) *
 * (1 - 1/a)^a in logarithms, minimised over 400000 values of alpha spaced
 * geometrically in alpha - 1 from 1e-8 to 1e8.
 */
static double
grid_delta(double rho, double eps)
{
	double		best = INFINITY;
	int			i,
				n = 400000;

	for (i = 0; i <= n; i++)
	{
		double		x = pow(10.0, -8.0 + 16.0 * i / n);
		double		a = 1.0 + x;
		double		l = (a - 1.0) * (a * rho - eps) - log(a - 1.0) + a * log(1.0 - 1.0 / a);

		if (l < best)
			best = l;
	}
	return fmin(1.0, exp(best));
}

/* The conversion agrees with the grid (never above it, barely below). */
static void
test_delta(void)
{
	static const double rhos[] = {1e-6, 1e-4, 0.01, 0.0186, 0.1, 0.5, 2.0, 10.0};
	static const double epss[] = {0.1, 0.5, 1.0, 3.0, 10.0};
	size_t		i,
				j;
	int			ok = 1;

	for (i = 0; i < sizeof(rhos) / sizeof(rhos[0]); i++)
		for (j = 0; j < sizeof(epss) / sizeof(epss[0]); j++)
		{
			double		g = grid_delta(rhos[i], epss[j]);
			double		alpha;
			double		d = dpk_zcdp_delta(rhos[i], epss[j], &alpha);

			if (!(d <= g * (1.0 + 1e-9) && d >= g * (1.0 - 1e-6)))
			{
				ok = 0;
				printf("  rho %g eps %g: delta %.12g, grid %.12g\n", rhos[i], epss[j], d, g);
			}
		}
	CHECK(ok, "delta(rho, epsilon) matches the grid minimum");
	/* it beats the classic bound: rho + 2 sqrt(rho log(1/delta)) gives a larger epsilon */
	CHECK(dpk_zcdp_epsilon(0.01, 1e-6) < 0.01 + 2.0 * sqrt(0.01 * log(1e6)),
		  "tight epsilon %g not below the classic bound", dpk_zcdp_epsilon(0.01, 1e-6));
}

/* rho(epsilon, delta): meets delta, and 0.1 % more rho would not. */
static void
test_rho(void)
{
	static const double epss[] = {0.05, 0.1, 0.5, 1.0, 2.0, 8.0};
	static const double deltas[] = {1e-10, 1e-6, 1e-3, 0.1};
	size_t		i,
				j;

	for (i = 0; i < sizeof(epss) / sizeof(epss[0]); i++)
		for (j = 0; j < sizeof(deltas) / sizeof(deltas[0]); j++)
		{
			double		rho = dpk_zcdp_rho(epss[i], deltas[j]);
			double		e = dpk_zcdp_epsilon(rho, deltas[j]);

			CHECK(rho > 0.0 && grid_delta(rho, epss[i]) <= deltas[j] * (1.0 + 1e-6),
				  "eps %g delta %g: rho %.10g has grid delta %.10g", epss[i], deltas[j],
				  rho, grid_delta(rho, epss[i]));
			CHECK(grid_delta(rho * 1.001, epss[i]) > deltas[j],
				  "eps %g delta %g: rho %.10g is not the largest", epss[i], deltas[j], rho);
			CHECK(fabs(e - epss[i]) <= 1e-9 * epss[i],
				  "eps %g delta %g: epsilon(rho) = %.12g", epss[i], deltas[j], e);
		}
	printf("  rho(1, 1e-6) = %.6g, rho(0.1, 1e-6) = %.6g, rho(1, 1e-9) = %.6g\n",
		   dpk_zcdp_rho(1.0, 1e-6), dpk_zcdp_rho(0.1, 1e-6), dpk_zcdp_rho(1.0, 1e-9));
}

/* Valid deltas and sigma^2. */
static void
test_misc(void)
{
	CHECK(dpk_zcdp_delta_valid(0.0) && dpk_zcdp_delta_valid(1e-12) &&
		  dpk_zcdp_delta_valid(0.999), "valid deltas refused");
	CHECK(!dpk_zcdp_delta_valid(1.0) && !dpk_zcdp_delta_valid(-1e-9) &&
		  !dpk_zcdp_delta_valid(NAN) && !dpk_zcdp_delta_valid(INFINITY),
		  "invalid deltas accepted");
	CHECK(dpk_zcdp_sigma2(8.0, 0.5) == 8.0, "sigma^2 = Delta^2 / (2 rho)");
	CHECK(dpk_zcdp_delta(0.0, 1.0, NULL) == 0.0, "rho 0 has delta 0");
}

int
main(void)
{
	printf("test_zcdp:\n");
	test_delta();
	test_rho();
	test_misc();
	UNIT_DONE("test_zcdp");
}
