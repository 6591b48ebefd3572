/*
 * test_rugnik.c
 *		Grid-size rules against an independent root finder.
 */
#include <math.h>

#include "rugnik.h"
#include "unit.h"

/*
 * Reference root of xi(m) = m^a - A m - B by plain bisection on the sign of
 * xi(m) / m^a = 1 - A m^(1-a) - B m^(-a), in long double and on a log scale
 * of m (a different formulation and method from rugnik.c's Newton).
 */
static double
reference_root(double n, double eps, double k, int d)
{
	long double a = d / 2.0L + 2.0L;
	long double rho = ((long double) eps / d) * sqrtl(8.0L * n / 3.0L);
	long double A = rho * powl(k, 1.0L / d);
	long double B = rho * sqrtl(n / 3.0L) * powl(k, 2.0L / d);
	long double lo = -200.0L,
				hi = 200.0L;
	int			i;

	for (i = 0; i < 400; i++)
	{
		long double mid = 0.5L * (lo + hi);
		long double m = expl(mid);
		long double f = 1.0L - A * powl(m, 1.0L - a) - B * powl(m, -a);

		if (f > 0)
			hi = mid;
		else
			lo = mid;
	}
	return (double) expl(0.5L * (lo + hi));
}

int
main(void)
{
	static const double ns[] = {1, 2, 10, 1e3, 1e5, 1e6, 1e8, 1e10, 1e12};
	static const double epss[] = {1e-4, 1e-3, 0.01, 0.1, 0.5, 1, 10, 100};
	static const double ks[] = {1, 2, 4, 10, 100, 1000, 1e4};
	static const int ds[] = {1, 2, 3, 4, 5, 8, 13, 16, 32, 64};
	double		worst = 0.0;
	int			bad = 0,
				cases = 0;
	size_t		a,
				b,
				c,
				e;

	for (a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
		for (b = 0; b < sizeof(epss) / sizeof(epss[0]); b++)
			for (c = 0; c < sizeof(ks) / sizeof(ks[0]); c++)
				for (e = 0; e < sizeof(ds) / sizeof(ds[0]); e++)
				{
					double		n = ns[a],
								eps = epss[b],
								k = ks[c];
					int			d = ds[e];
					double		m = dpk_grid_m(DPK_RULE_RUGNIK, n, eps, k, d);
					double		r = reference_root(n, eps, k, d);
					double		rel = fabs(m - r) / r;
					int			per_dim = dpk_grid_cells_per_dim(DPK_RULE_RUGNIK, m, n, eps, k, d, 2147483647);

					cases++;
					if (!(rel <= 1e-9) || !(m > 0) || isnan(m) || isinf(m) || per_dim < 1)
					{
						if (bad++ < 10)
							fprintf(stderr, "n=%g eps=%g k=%g d=%d: m=%.17g ref=%.17g rel=%g per_dim=%d\n",
									n, eps, k, d, m, r, rel, per_dim);
					}
					if (rel > worst)
						worst = rel;

					/* The integer chosen is the better neighbour of m under h. */
					if (m >= 1.0 && m < 1e6)
					{
						double		hf = dpk_rugnik_bound(floor(m), n, eps, k, d);
						double		hc = dpk_rugnik_bound(ceil(m), n, eps, k, d);

						CHECK(dpk_rugnik_bound(per_dim, n, eps, k, d) <= fmin(hf, hc) * (1 + 1e-12),
							  "per_dim %d not the best neighbour of %g", per_dim, m);
					}
				}
	CHECK(bad == 0, "%d of %d RUGNIK roots off by more than 1e-9 (worst %g)", bad, cases, worst);
	printf("rugnik: %d cases, worst relative error %.3g\n", cases, worst);

	/* Spot values: xi(m) vanishes at the root. */
	{
		double		m = dpk_grid_m(DPK_RULE_RUGNIK, 1e5, 1.0, 6, 2);
		double		rho = (1.0 / 2) * sqrt(8e5 / 3.0);
		double		xi = pow(m, 3.0) - rho * sqrt(6.0) * m - rho * sqrt(1e5 / 3.0) * 6.0;

		CHECK(fabs(xi) / pow(m, 3.0) < 1e-12, "xi(m) = %g at m = %g", xi, m);
		CHECK(fabs(m - 68.851182722673) < 1e-6, "m(1e5, 1, 6, 2) = %.12f", m);
	}

	/* EUGkM: m = (N eps / 10)^(2/(2+d)). */
	CHECK(fabs(dpk_grid_m(DPK_RULE_EUGKM, 1e5, 1.0, 6, 2) - 100.0) < 1e-9, "eugkm d=2");
	CHECK(fabs(dpk_grid_m(DPK_RULE_EUGKM, 1e5, 0.5, 6, 3) - pow(5e3, 0.4)) < 1e-9, "eugkm d=3");
	CHECK(dpk_grid_cells_per_dim(DPK_RULE_EUGKM, 0.3, 1, 1e-4, 1, 2, 100) == 1, "eugkm at least 1");
	CHECK(dpk_grid_cells_per_dim(DPK_RULE_EUGKM, 7.5, 1e5, 1, 1, 2, 100) == 8, "eugkm rounds");
	CHECK(dpk_grid_cells_per_dim(DPK_RULE_RUGNIK, 1e9, 1e12, 1, 1, 2, 1000) == 1000, "cap applies");

	/* More noise (larger variance) means a coarser grid. */
	CHECK(dpk_grid_m(DPK_RULE_RUGNIK, 1e5, dpk_rugnik_eps_for_variance(2.0), 6, 2) >
		  dpk_grid_m(DPK_RULE_RUGNIK, 1e5, dpk_rugnik_eps_for_variance(200.0), 6, 2),
		  "grid shrinks with noise");
	CHECK(fabs(dpk_rugnik_eps_for_variance(2.0) - 1.0) < 1e-15, "eps for variance 2 is 1");

	UNIT_DONE("test_rugnik");
}
