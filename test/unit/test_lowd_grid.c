/*
 * test_lowd_grid.c
 *		The grid of a low-d one-shot: RUGNIK's size at the count noise used,
 *		a coarser one for (epsilon, delta) at d <= 3.
 *
 * With delta > 0 the one-shot's grid at d <= 3 is 0.7 times RUGNIK's m at
 * its Gaussian count noise (doc/decisions/078-oneshot-gauss-coarser-grid.md);
 * at d >= 4 and for pure epsilon it is RUGNIK's own size, as before.  The
 * expected sizes are computed here from the rule itself, on public N so
 * that nothing is drawn.
 */
#include <math.h>

#include "lowd.h"
#include "rugnik.h"
#include "unit.h"

/* The shipped multiple for (epsilon, delta) one-shots and its last d. */
#define EXPECT_GAUSS_SCALE 0.7
#define EXPECT_GAUSS_MAX_D 3

/* Cells per dimension of RUGNIK's m times scale at the configuration's noise. */
static int
expected_cells_per_dim(const DpkLowdConfig *cfg, int d, double scale)
{
	DpkNoise	nn,
				cn,
				sn;
	double		eps_eff,
				m;
	int			max_per_dim = (int) floor(pow(cfg->max_cells, 1.0 / d) + 1e-9);

	dpk_lowd_noise(cfg, d, &nn, &cn, &sn);
	eps_eff = dpk_rugnik_eps_for_variance(dpk_noise_variance(&cn, 0));
	m = dpk_grid_m(DPK_RULE_RUGNIK, cfg->public_n, eps_eff, cfg->k, d) * scale;
	return dpk_grid_cells_per_dim(DPK_RULE_RUGNIK, m, cfg->public_n, eps_eff, cfg->k, d,
								  max_per_dim < 1 ? 1 : max_per_dim);
}

/* The grid dpk_lowd_stream_begin opens for this configuration. */
static int
opened_cells_per_dim(const DpkLowdConfig *cfg, int d)
{
	double		lo[5] = {0, 0, 0, 0, 0},
				hi[5] = {100, 100, 100, 100, 100};
	DpkBox		box = {d, lo, hi};
	DpkLowdHist lh;
	int			cpd;

	dpk_lowd_stream_begin(&box, cfg, &lh);
	cpd = lh.cells_per_dim;
	dpk_hist_free(&lh.hist);
	return cpd;
}

int
main(void)
{
	static const double epss[] = {0.25, 1.0, 8.0};
	static const double ns[] = {10000, 200000};
	int			coarser = 0;
	int			d,
				e,
				j;

	for (d = 1; d <= 5; d++)
		for (e = 0; e < 3; e++)
			for (j = 0; j < 2; j++)
			{
				DpkLowdConfig pure,
							gauss;
				int			got_pure,
							got_gauss,
							want_gauss,
							rugnik_gauss;

				dpk_lowd_defaults(&pure, epss[e], 10);
				pure.public_n = ns[j];
				gauss = pure;
				dpk_lowd_use_delta(&gauss, 1e-6);

				got_pure = opened_cells_per_dim(&pure, d);
				CHECK(got_pure == expected_cells_per_dim(&pure, d, 1.0),
					  "pure d=%d eps=%g n=%g: %d cells per dim, not RUGNIK's %d",
					  d, epss[e], ns[j], got_pure, expected_cells_per_dim(&pure, d, 1.0));

				got_gauss = opened_cells_per_dim(&gauss, d);
				rugnik_gauss = expected_cells_per_dim(&gauss, d, 1.0);
				want_gauss = d <= EXPECT_GAUSS_MAX_D
					? expected_cells_per_dim(&gauss, d, EXPECT_GAUSS_SCALE) : rugnik_gauss;
				CHECK(got_gauss == want_gauss,
					  "delta d=%d eps=%g n=%g: %d cells per dim, expected %d (RUGNIK %d)",
					  d, epss[e], ns[j], got_gauss, want_gauss, rugnik_gauss);
				if (want_gauss < rugnik_gauss)
					coarser++;
			}
	/* The cases above do reach the coarser grid (the check can fail). */
	CHECK(coarser >= 6, "only %d delta cases with a grid coarser than RUGNIK's", coarser);
	UNIT_DONE("test_lowd_grid");
}
