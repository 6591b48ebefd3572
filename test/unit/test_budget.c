/*
 * test_budget.c
 *		Every split of epsilon (budget.c): the shares add up to epsilon and
 *		the defaults give their known values.
 */
#include <math.h>
#include <string.h>

#include "lowd_budget.h"
#include "highd_budget.h"
#include "live_budget.h"
#include "highd.h"
#include "live_core.h"
#include "lowd.h"
#include "unit.h"

/* |a - b| within tol relative to |b| (or absolute below 1). */
static int
near(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fmax(1.0, fabs(b));
}

/* Sums to 1e-12 relative; the defaults' known shares. */
static void
test_lowd(void)
{
	static const double epss[] = {1e-6, 0.01, 0.5, 1.0, 7.0, 1e4};
	DpkLowdConfig cfg;
	DpkLowdBudget b;
	int			i,
				pub,
				ok = 1;

	dpk_lowd_defaults(&cfg, 1.0, 5);
	b = dpk_budget_lowd(&cfg);
	CHECK(b.eps_n == 0.05 && near(b.eps_count, 0.475, 1e-15) && near(b.eps_sum, 0.475, 1e-15),
		  "lowd defaults: 5 %% on N, half the rest on sums (%g %g %g)",
		  b.eps_n, b.eps_count, b.eps_sum);
	cfg.public_n = 1000.0;
	b = dpk_budget_lowd(&cfg);
	CHECK(b.eps_n == 0.0 && b.eps_count == 0.5 && b.eps_sum == 0.5,
		  "lowd public N: nothing on N");
	cfg.sum_share = 0.0;
	b = dpk_budget_lowd(&cfg);
	CHECK(b.eps_sum == 0.0 && b.eps_count == 1.0, "lowd without sums: all on counts");

	for (i = 0; i < 6; i++)
		for (pub = 0; pub < 2; pub++)
		{
			dpk_lowd_defaults(&cfg, epss[i], 3);
			cfg.public_n = pub ? 10.0 : -1.0;
			cfg.sum_share = 0.1 + 0.13 * i;
			b = dpk_budget_lowd(&cfg);
			if (!(fabs(dpk_budget_lowd_total(&b) - epss[i]) <= 1e-12 * epss[i]) ||
				!(b.eps_count > 0.0 && b.eps_sum > 0.0))
				ok = 0;
		}
	CHECK(ok, "lowd shares add up to epsilon");
}

/* The default joint mode at d = 64, k = 10, epsilon = 1, noisy N. */
static void
test_highd_defaults(void)
{
	DpkHighdConfig cfg;
	DpkHighdBudget b;
	double		lcs = 1.0 / 17.0;	/* 1 / (1 + 64^(2/3)) */

	dpk_highd_defaults(&cfg, 1.0, 10);
	b = dpk_budget_highd(&cfg, 64);
	CHECK(b.copies == 2 && b.refine_steps == 0, "highd defaults: 2 copies");
	CHECK(b.eps_n == 0.05, "highd: 5 %% on N (%g)", b.eps_n);
	CHECK(near(b.eps_group, 0.95 * 0.05, 1e-15), "highd: group counts %g", b.eps_group);
	CHECK(near(b.eps_grid, (0.95 - 0.95 * 0.05 - 0.95 * 0.7) / 2, 1e-14),
		  "highd: each grid %g", b.eps_grid);
	CHECK(near(b.eps_lift_count, 0.95 * 0.7 * lcs, 1e-14) &&
		  near(b.eps_lift_sum, 0.95 * 0.7 * (1.0 - lcs), 1e-14),
		  "highd: lift counts %g, sums %g", b.eps_lift_count, b.eps_lift_sum);
	CHECK(b.eps_refine == 0.0 && b.eps_refine_count == 0.0 && b.eps_refine_sum == 0.0,
		  "highd: no refinement");
	CHECK(near(dpk_budget_highd_total(&b), 1.0, 1e-12), "highd defaults add up");

	/* d = 8: lift counts 1 / (1 + 4) */
	b = dpk_budget_highd(&cfg, 8);
	CHECK(near(b.eps_lift_count, 0.95 * 0.7 / 5.0, 1e-14), "highd d = 8: lift counts %g",
		  b.eps_lift_count);
	/* a public N spends nothing on it */
	cfg.public_n = 100.0;
	b = dpk_budget_highd(&cfg, 64);
	CHECK(b.eps_n == 0.0 && near(b.eps_group, 0.05, 1e-15), "highd public N");
}

/*
 * The wide shares: pure k-means releases without a norm bound or
 * refinement from DPK_HIGHD_WIDE_MIN_D on lift with
 * DPK_HIGHD_WIDE_LIFT_SHARE and grids of DPK_HIGHD_WIDE_GRID_SCALE; below
 * that d, with delta, a norm bound, refinement or k-median, the shares of
 * before; every split adds up.
 */
static void
test_highd_wide(void)
{
	DpkHighdConfig cfg;
	DpkHighdBudget b;
	int			wd = DPK_HIGHD_WIDE_MIN_D;
	double		lcs = 1.0 / (1.0 + pow((double) wd, 2.0 / 3.0));

	dpk_highd_defaults(&cfg, 1.0, 10);
	CHECK(wd > 64, "the wide shares leave d <= 64 alone (%d)", wd);
	b = dpk_budget_highd(&cfg, wd);
	CHECK(dpk_highd_is_wide(&cfg, wd) && !dpk_highd_is_wide(&cfg, wd - 1), "wide from %d", wd);
	CHECK(near(b.eps_lift_count + b.eps_lift_sum, 0.95 * DPK_HIGHD_WIDE_LIFT_SHARE, 1e-14) &&
		  near(b.eps_lift_sum, 0.95 * DPK_HIGHD_WIDE_LIFT_SHARE * (1.0 - lcs), 1e-14),
		  "wide: lift %g, sums %g", b.eps_lift_count + b.eps_lift_sum, b.eps_lift_sum);
	CHECK(near(b.eps_grid, (0.95 - 0.95 * 0.05 - 0.95 * DPK_HIGHD_WIDE_LIFT_SHARE) / 2, 1e-14),
		  "wide: each grid %g", b.eps_grid);
	CHECK(near(dpk_budget_highd_total(&b), 1.0, 1e-12), "wide shares add up");
	CHECK(dpk_highd_grid_scale(&cfg, wd) == DPK_HIGHD_WIDE_GRID_SCALE &&
		  dpk_highd_grid_scale(&cfg, wd - 1) == 1.7, "wide grid scale");
	b = dpk_budget_highd(&cfg, wd - 1);
	CHECK(near(b.eps_lift_count + b.eps_lift_sum, 0.95 * 0.7, 1e-14), "below: lift 0.7");

	dpk_highd_use_delta(&cfg, 1e-6);
	CHECK(!dpk_highd_is_wide(&cfg, wd) && dpk_highd_lift_share(&cfg, wd) == 0.85 &&
		  dpk_highd_grid_scale(&cfg, wd) == 1.7, "delta: not wide");
	dpk_highd_defaults(&cfg, 1.0, 10);
	cfg.ball = 0.5;
	CHECK(!dpk_highd_is_wide(&cfg, wd), "a norm bound: not wide");
	dpk_highd_defaults(&cfg, 1.0, 10);
	cfg.refine_steps = 2;
	CHECK(!dpk_highd_is_wide(&cfg, wd), "refinement: not wide");
	dpk_highd_defaults(&cfg, 1.0, 10);
	cfg.objective = DPK_OBJECTIVE_KMEDIAN;
	CHECK(!dpk_highd_is_wide(&cfg, wd), "k-median: not wide");
	dpk_highd_defaults(&cfg, 1.0, 10);
	cfg.wide_min_d = 0;
	CHECK(!dpk_highd_is_wide(&cfg, 100000), "wide_min_d 0: never");
}

/*
 * The joint mode with and without refinement, public N and a fixed lift
 * count share (the research modes' splits: test/unit/test_highd.c).
 */
static void
test_highd_variants(void)
{
	static const double epss[] = {1e-5, 0.3, 1.0, 64.0};
	static const int ds[] = {2, 6, 17, 64, 300};
	int			e,
				di,
				variant,
				ok = 1,
				positive = 1,
				cases = 0;

	for (e = 0; e < 4; e++)
		for (di = 0; di < 5; di++)
			for (variant = 0; variant < 4; variant++)
			{
				DpkHighdConfig cfg;
				DpkHighdBudget b;
				double		lift;

				dpk_highd_defaults(&cfg, epss[e], 4 + variant);
				cfg.copies = 1 + variant;
				cfg.public_n = variant == 2 ? 50.0 : -1.0;
				cfg.refine_steps = variant == 1 || variant == 3 ? variant : 0;
				cfg.lift_count_share = variant == 1 ? 0.25 : -1.0;
				/* the grids get what the lift and refinement do not take */
				if (cfg.refine_steps > 0)
					cfg.lift_share = 0.5;
				b = dpk_budget_highd(&cfg, ds[di]);
				cases++;
				if (!(fabs(dpk_budget_highd_total(&b) - epss[e]) <= 1e-12 * epss[e]))
					ok = 0;
				lift = b.eps_lift_count + b.eps_lift_sum;
				if (!(b.eps_grid > 0.0 && b.eps_lift_sum > 0.0 && lift > 0.0 &&
					  b.eps_group > 0.0) ||
					fabs(b.eps_refine_count + b.eps_refine_sum - b.eps_refine) >
					1e-15 * epss[e])
					positive = 0;
			}
	CHECK(ok, "highd shares add up to epsilon in %d configurations", cases);
	CHECK(positive, "highd shares positive where used");
}

/* Live shares by d and mode, and their split of epsilon. */
static void
test_live(void)
{
	static const int ds[] = {1, 2, 5, 6, 8, 16, 32, 64, 181, 1000};
	DpkLiveShares sh;
	DpkLiveConfig cfg;
	DpkLiveBudget b;
	int			i,
				proj,
				ok = 1;

	sh = dpk_budget_live_shares(3, false);
	CHECK(sh.sum_share == 0.5 && sh.norm_share == 0.0, "live original space: half on sums");
	sh = dpk_budget_live_shares(8, true);
	CHECK(sh.sum_share == 0.75 && sh.norm_share == 0.05, "live d = 8: 0.75 (floor), 0.05");
	sh = dpk_budget_live_shares(32, true);
	CHECK(sh.sum_share == 0.75, "live d = 32: 0.2 + 0.1 log2 32 = 0.7, floor 0.75 (%g)",
		  sh.sum_share);
	sh = dpk_budget_live_shares(64, true);
	CHECK(near(sh.sum_share, 0.8, 1e-15), "live d = 64: 0.8 (%g)", sh.sum_share);
	sh = dpk_budget_live_shares(1000, true);
	CHECK(sh.sum_share == 0.85, "live d = 1000: 0.85 (cap)");

	sh = dpk_budget_live_shares(2, false);
	CHECK(sh.sum_share == 0.3 && sh.norm_share == 0.0, "live d = 2: 0.3 on sums (%g)",
		  sh.sum_share);
	sh = dpk_budget_live_shares(1, false);
	CHECK(sh.sum_share == 0.3, "live d = 1: 0.3 on sums (%g)", sh.sum_share);
	dpk_live_defaults(&cfg, 3, 3, 2.0, 64, true);
	b = dpk_budget_live(&cfg);
	CHECK(b.eps_count == 1.0 && b.eps_sum == 1.0 && b.eps_norm == 0.0,
		  "live d = 3, epsilon 2: 1 on counts, 1 on sums");
	dpk_live_defaults(&cfg, 2, 3, 2.0, 64, true);
	b = dpk_budget_live(&cfg);
	CHECK(near(b.eps_count, 1.4, 1e-12) && near(b.eps_sum, 0.6, 1e-12) && b.eps_norm == 0.0,
		  "live d = 2, epsilon 2: 1.4 on counts, 0.6 on sums (%g %g)", b.eps_count, b.eps_sum);
	dpk_live_defaults(&cfg, 64, 3, 1.0, 64, true);
	dpk_live_use_projection(&cfg, 7);
	b = dpk_budget_live(&cfg);
	CHECK(near(b.eps_count, 0.15, 1e-15) && near(b.eps_sum, 0.8, 1e-15) &&
		  b.eps_norm == 0.05, "live d = 64 projected: %g %g %g",
		  b.eps_count, b.eps_sum, b.eps_norm);

	for (i = 0; i < 10; i++)
		for (proj = 0; proj < 2; proj++)
		{
			double		eps = 0.001 * pow(10.0, i % 6);

			dpk_live_defaults(&cfg, ds[i], 4, eps, 1024, false);
			if (proj)
				dpk_live_use_projection(&cfg, 1);
			b = dpk_budget_live(&cfg);
			if (!(fabs(dpk_budget_live_total(&b) - eps) <= 1e-12 * eps) ||
				!(b.eps_count > 0.0 && b.eps_sum > 0.0))
				ok = 0;
		}
	CHECK(ok, "live shares add up to epsilon");
}

/*
 * The Gaussian live shares (measured; doc/benchmarks.md): 0.3 of rho on the
 * in-cell sums, on projected lifting sums 0.45 + 0.075 log2 d within
 * [0.6, 0.9], at most 0.8 above horizon 64; dpk_live_use_delta applies them,
 * delta 0 leaves the pure ones.
 */
static void
test_live_gauss_shares(void)
{
	DpkLiveShares g2 = dpk_budget_live_gauss_shares(2, false, 64),
				g6 = dpk_budget_live_gauss_shares(6, true, 64),
				g16 = dpk_budget_live_gauss_shares(16, true, 64),
				g64 = dpk_budget_live_gauss_shares(64, true, 64),
				g512 = dpk_budget_live_gauss_shares(512, true, 64),
				d16 = dpk_budget_live_gauss_shares(16, true, 1024),
				d64 = dpk_budget_live_gauss_shares(64, true, 65),
				d512 = dpk_budget_live_gauss_shares(512, true, 1024),
				d2 = dpk_budget_live_gauss_shares(2, false, 1024);
	DpkLiveConfig cfg;

	CHECK(g2.sum_share == 0.3 && g2.norm_share == 0.0, "gauss d = 2: %g %g", g2.sum_share,
		  g2.norm_share);
	CHECK(fabs(g6.sum_share - (0.45 + 0.075 * log2(6.0))) < 1e-12 && g6.norm_share == 0.05,
		  "gauss d = 6: %g %g", g6.sum_share, g6.norm_share);
	CHECK(fabs(g16.sum_share - 0.75) < 1e-12, "gauss d = 16: %g", g16.sum_share);
	CHECK(fabs(g64.sum_share - 0.9) < 1e-12, "gauss d = 64: %g", g64.sum_share);
	CHECK(g512.sum_share == 0.9, "gauss d = 512: %g", g512.sum_share);
	/* deeper trees: at most 0.8 on the sums */
	CHECK(fabs(d16.sum_share - 0.75) < 1e-12 && d64.sum_share == 0.8 && d512.sum_share == 0.8 &&
		  d2.sum_share == 0.3 && d64.norm_share == 0.05,
		  "gauss horizon > 64: d = 16 %g, d = 64 %g, d = 512 %g, d = 2 %g", d16.sum_share,
		  d64.sum_share, d512.sum_share, d2.sum_share);
	dpk_live_defaults(&cfg, 3, 3, 1.0, 64, false);
	dpk_live_use_delta(&cfg, 0.0);
	CHECK(cfg.sum_share == 0.5, "pure table keeps its share: %g", cfg.sum_share);
	dpk_live_use_delta(&cfg, 1e-6);
	CHECK(cfg.sum_share == 0.3, "Gaussian table gets 0.3: %g", cfg.sum_share);
	dpk_live_defaults(&cfg, 16, 3, 1.0, 64, false);
	dpk_live_use_projection(&cfg, 1);
	dpk_live_use_delta(&cfg, 1e-6);
	CHECK(fabs(cfg.sum_share - 0.75) < 1e-12 && cfg.norm_share == 0.05,
		  "Gaussian projected d = 16: %g %g", cfg.sum_share, cfg.norm_share);
}

int
main(void)
{
	test_lowd();
	test_highd_defaults();
	test_highd_variants();
	test_highd_wide();
	test_live();
	test_live_gauss_shares();
	UNIT_DONE("test_budget");
}
