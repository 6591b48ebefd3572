/*
 * test_live_gauss_tail.c
 *		The coreset threshold of Gaussian norm-bound tables
 *		(dpk_coreset_threshold_gauss, dpk_highd_grid_threshold,
 *		dpk_live_gauss_tail): the threshold itself, when a grid takes it, and
 *		a constructed release whose noisy counts support K distinct centres,
 *		which the Laplace rule collapsed to fewer.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cellmap.h"
#include "coreset.h"
#include "dpk_mem.h"
#include "grid.h"
#include "highd.h"
#include "lift.h"
#include "live_core.h"
#include "live_reach.h"
#include "noise.h"
#include "projection.h"
#include "unit.h"

#define TD 8
#define TK 4
#define KEYS 5

/*
 * The threshold: at 4 096 cells the normal tail 1 / 8 192 is at 3.6676
 * standard deviations (Laplace rule: ln(4096) / sqrt 2 = 5.88); never
 * below `sigmas`; one cell: `sigmas` only.
 */
static void
test_threshold(void)
{
	double		g = dpk_coreset_threshold_gauss(1.0, 2.0, 4096.0);

	CHECK(fabs(g - 3.6676) < 1e-3, "gauss threshold at 4096 cells %.5f", g);
	CHECK(fabs(0.5 * erfc(g / sqrt(2.0)) - 1.0 / 8192.0) < 1e-12,
		  "its tail %.3g", 0.5 * erfc(g / sqrt(2.0)));
	CHECK(g < dpk_coreset_threshold(1.0, 2.0, 4096.0), "below the Laplace rule");
	CHECK(fabs(dpk_coreset_threshold_gauss(2.0, 5.0, 4096.0) - 10.0) < 1e-12,
		  "sigmas win when larger");
	CHECK(fabs(dpk_coreset_threshold_gauss(3.0, 2.0, 1.0) - 6.0) < 1e-12, "one cell");
	CHECK(fabs(dpk_coreset_threshold_gauss(1.0, 0.0, 262144.0) - 4.6212) < 1e-3,
		  "2^18 cells %.5f", dpk_coreset_threshold_gauss(1.0, 0.0, 262144.0));
}

/*
 * The rule of dpk_highd_grid_threshold on a grid of 4 096 cells, sd 1:
 * three cells at 7 (above the Laplace rule's 5.88) and one at 5 (above
 * the Gaussian 3.67 only).  For k = 3 the Laplace rule keeps its three
 * cells; for k = 4 the Gaussian threshold takes the fourth too; without
 * gauss_tail the Laplace rule always.
 */
static void
test_grid_rule(void)
{
	double	   *count = dpk_alloc0(sizeof(double) * 4096);
	DpkNoisyGrid g = {6, 4, count, 1.0, true};
	double		tl = dpk_coreset_threshold(1.0, 2.0, 4096.0),
				tg = dpk_coreset_threshold_gauss(1.0, 2.0, 4096.0);

	count[10] = count[900] = count[2000] = 7.0;
	count[3000] = 5.0;
	CHECK(dpk_highd_grid_threshold(&g, 2.0, 0.0, 3) == tl, "k cells above: Laplace rule");
	CHECK(dpk_highd_grid_threshold(&g, 2.0, 0.0, 4) == tg, "fewer: Gaussian");
	g.gauss_tail = false;
	CHECK(dpk_highd_grid_threshold(&g, 2.0, 0.0, 4) == tl, "no gauss_tail: Laplace rule");
	dpk_free(count);
}

/* Distinct rows among the k centres of block k. */
static int
distinct_block(const DpkLiveRelease *rel, int k, int d)
{
	const double *c = rel->centers + (size_t) dpk_live_block(k) * d;
	int			n = 0,
				a,
				b;

	for (a = 0; a < k; a++)
	{
		bool		seen = false;

		for (b = 0; b < a && !seen; b++)
			seen = memcmp(c + (size_t) a * d, c + (size_t) b * d, sizeof(double) * d) == 0;
		n += !seen;
	}
	return n;
}

/*
 * A Gaussian (eps 1, delta 1e-6) norm-bound table of d = 8 counted at
 * level 3 (2^18 cells a copy, as a large size hint gives), horizon 16, K
 * = 4: TK clusters of identical unit rows along the first TK axes, each
 * cluster in one projected cell, with 3 count deviations more rows than
 * the Gaussian threshold and about 1 fewer than the Laplace one (8.8
 * deviations).  Release 16 under KEYS keys: with the Gaussian threshold
 * every cluster's cell is in the coreset and block K holds K distinct
 * centres; the Laplace rule (laplace_tail) kept fewer cells and released
 * fewer distinct centres, under every key.
 */
static void
test_release_distinct(void)
{
	double		lower[TD],
				upper[TD],
				x[TD],
				u[TD],
				t[16];
	DpkBox		box = {TD, lower, upper};
	DpkLiveConfig cfg;
	DpkCellMap	map;
	DpkProjection proj;
	uint64_t	ncells,
				key;
	double	   *count,
			   *sum,
				sumnorm,
				sd,
				reach,
				tg,
				tl;
	int			j,
				c,
				i,
				rows,
				new_k = 0,
				old_k = 0;

	for (j = 0; j < TD; j++)
	{
		lower[j] = -1.0;
		upper[j] = 1.0;
	}
	dpk_live_defaults(&cfg, TD, TK, 1.0, 16, true);
	dpk_live_use_projection(&cfg, 7);
	dpk_live_use_delta(&cfg, 1e-6);
	dpk_live_use_ball(&cfg, &box, 1.0);
	dpk_live_use_box(&cfg, &box);
	cfg.level = 3;
	dpk_live_use_norm_shift(&cfg);
	CHECK(dpk_live_gauss_tail(&cfg), "a Gaussian ball table uses the Gaussian threshold");
	ncells = dpk_live_copy_cells(&cfg);
	count = dpk_alloc0(sizeof(double) * ncells);
	sum = dpk_alloc0(sizeof(double) * ncells * TD);
	dpk_live_projection(&cfg, 0, &proj);
	reach = dpk_live_zero_unreachable(&cfg, &box, &proj, count, sum);
	sd = sqrt(dpk_live_projected_count_var(&cfg, 16));
	tg = dpk_coreset_threshold_gauss(sd, cfg.threshold_sigmas, reach > 0.0 ? reach : ncells);
	tl = dpk_coreset_threshold(sd, cfg.threshold_sigmas, reach > 0.0 ? reach : ncells);
	rows = (int) ceil(tg + 3.0 * sd);
	CHECK(tl - rows > 0.5 * sd, "the case lies between the thresholds (%g, %d, %g)", tg, rows, tl);

	dpk_cellmap_init(&map, TD);
	for (c = 0; c < TK; c++)
	{
		for (j = 0; j < TD; j++)
			x[j] = j == c ? 1.0 : 0.0;
		dpk_box_normalize(&box, x, u);
		dpk_box_to_metric(&box, u);
		dpk_box_ball_clamp(TD, cfg.ball, u);
		dpk_project_batch(&proj, u, 1, t);
		for (i = 0; i < rows; i++)
			dpk_live_add_projected(&cfg, &map, u, t, 1);
	}
	CHECK(map.n == (size_t) TK + 1, "one cell per cluster (%zu)",
		  map.n);

	for (key = 1; key <= KEYS; key++)
	{
		uint8_t		kb[DPK_KEY_BYTES],
					nonce[DPK_NONCE_BYTES] = {0};
		DpkStream	s = {0};
		DpkLiveRelease rel;
		int			pass;

		dpk_key_from_seed(key, kb);
		if (!dpk_stream_open(&s, kb, nonce))
			exit(1);
		dpk_live_noisy_projected(&cfg, kb, &map, 16, &s, count, sum, &sumnorm);
		dpk_stream_close(&s);
		for (pass = 0; pass < 2; pass++)
		{
			int			n;

			cfg.laplace_tail = pass == 1;
			dpk_live_cluster_projected(&cfg, &box, count, sum, sumnorm, 16, 100 + key, &rel);
			n = distinct_block(&rel, TK, TD);
			if (pass == 0)
			{
				CHECK(n == TK, "key %d: %d distinct centres with the Gaussian threshold",
					  (int) key, n);
				new_k += n == TK;
			}
			else
			{
				CHECK(n < TK, "key %d: %d distinct centres with the Laplace rule",
					  (int) key, n);
				old_k += n == TK;
			}
			dpk_live_release_free(&rel);
		}
		cfg.laplace_tail = false;
	}
	printf("  K distinct centres under %d of %d keys (Laplace rule: %d)\n", new_k, KEYS, old_k);
	dpk_cellmap_free(&map);
	dpk_projection_free(&proj);
	dpk_free(count);
	dpk_free(sum);
}

int
main(void)
{
	test_threshold();
	test_grid_rule();
	test_release_distinct();
	UNIT_DONE("test_live_gauss_tail");
}
