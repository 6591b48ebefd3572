/*
 * test_live_lifted.c
 *		Projected Gaussian tables on 'square_root_lifted' (live_core.h,
 *		dpk_live_lifts_sums): which tables dp_attach gives it, the cells a
 *		release lifts from (and the cap), and a release equal to the same
 *		table's on 'square_root_sums': every count and every lifted cell's
 *		sums bit for bit, the other cells at their middles, and the same
 *		centres, sizes and costs for every k'.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "live_attach.h"
#include "cellmap.h"
#include "dpk_mem.h"
#include "lift.h"
#include "live_config.h"
#include "live_core.h"
#include "live_reach.h"
#include "noise.h"
#include "prng.h"
#include "projection.h"

/*
 * A table as dp_attach configures it: d columns in [-50, 50]^d, norm bound
 * (0: none), delta (0: pure), horizon T, 10^5 rows expected.
 */
static void
attach_config(DpkLiveConfig *cfg, int d, uint32_t T, double delta, double norm_bound,
			  double *lo, double *up)
{
	DpkBox		box = {d, lo, up};

	for (int j = 0; j < d; j++)
	{
		lo[j] = -50.0;
		up[j] = 50.0;
	}
	unit_live_attach(cfg, &box, T, true, delta, norm_bound);
	dpk_live_use_norm_shift(cfg);
}

/*
 * The choice: square_root_lifted where every cell's sums exceed the draws,
 * the lifted ones fit and the counts alone fit 2^20 draws, with or without
 * a norm bound; square_root_sums where every cell's fit (d = 64, 96; 1 536
 * at 64 cells); the tree where even the counts' draws exceed theirs, and
 * for pure tables.  The cap is what the budget leaves.
 */
static void
test_choice(void)
{
	static const struct
	{
		int			d;
		uint32_t	T;
		double		delta;
		double		norm_bound;
		int			counter;
	}			cases[] = {
		{384, 16, 1e-6, 50.0, DPK_LIVE_COUNTER_SQRT_LIFTED},
		{1536, 16, 1e-6, 50.0, DPK_LIVE_COUNTER_SQRT_SUMS},	/* 256 cells: all fit */
		{384, 64, 1e-6, 50.0, DPK_LIVE_COUNTER_SQRT_LIFTED},
		{384, 1024, 1e-6, 50.0, DPK_LIVE_COUNTER_TREE},	/* beyond the cap, and the counts' draws */
		{384, 16, 1e-6, 0.0, DPK_LIVE_COUNTER_SQRT_LIFTED},	/* no norm bound */
		{64, 64, 1e-6, 50.0, DPK_LIVE_COUNTER_SQRT_LIFTED},
		{64, 64, 1e-6, 0.0, DPK_LIVE_COUNTER_SQRT_LIFTED},
		{16, 256, 1e-6, 0.0, DPK_LIVE_COUNTER_TREE},	/* the counts alone over 2^20 draws */
		{64, 16, 1e-6, 50.0, DPK_LIVE_COUNTER_SQRT_SUMS},	/* every cell's sums fit */
		{96, 16, 1e-6, 50.0, DPK_LIVE_COUNTER_SQRT_SUMS},
		{384, 16, 0.0, 50.0, DPK_LIVE_COUNTER_TREE},	/* pure */
	};
	static double lo[1536],
				up[1536];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		DpkLiveConfig cfg;
		double		cap;

		attach_config(&cfg, cases[c].d, cases[c].T, cases[c].delta, cases[c].norm_bound, lo, up);
		cap = dpk_live_lifted_cap(&cfg);
		CHECK(cfg.counter == cases[c].counter &&
			  (cfg.counter != DPK_LIVE_COUNTER_SQRT_LIFTED ||
			   (cap >= DPK_LIVE_LIFTED_MIN_CAP && dpk_live_lifts_sums(&cfg) &&
				dpk_live_sqrt_draws(&cfg) <= DPK_LIVE_SQRT_SUMS_MAX_DRAWS &&
				cap == floor((DPK_LIVE_SQRT_SUMS_MAX_DRAWS - 2.0 * cfg.horizon * cfg.copies *
							  (double) dpk_live_copy_cells(&cfg)) /
							 (2.0 * cfg.horizon * cfg.d)))),
			  "d = %d, T = %u, delta %g, norm bound %g: counter %d (want %d), cap %.0f",
			  cases[c].d, cases[c].T, cases[c].delta, cases[c].norm_bound, cfg.counter,
			  cases[c].counter, cap);
		printf("  d = %d, T = %u: %llu cells, counter %d, lifting sums of at most %.0f\n",
			   cases[c].d, cases[c].T, (unsigned long long) dpk_live_copy_cells(&cfg) * cfg.copies,
			   cfg.counter, cap);
	}
	/* forced (dpkmeans.gaussian_counter = 'square_root'): the same rule */
	{
		DpkLiveConfig cfg;
		DpkBox		box = {384, lo, up};

		attach_config(&cfg, 384, 16, 1e-6, 0.0, lo, up);
		dpk_live_use_counter(&cfg, &box, 1e5, 4194304.0, true);
		CHECK(cfg.counter == DPK_LIVE_COUNTER_SQRT_LIFTED &&
			  dpk_live_lifted_cap(&cfg) >= DPK_LIVE_LIFTED_MIN_CAP,
			  "forced, d = 384, T = 16: counter %d, cap %.0f", cfg.counter,
			  dpk_live_lifted_cap(&cfg));
		attach_config(&cfg, 384, 1024, 1e-6, 0.0, lo, up);
		dpk_live_use_counter(&cfg, &box, 1e5, 4194304.0, true);
		CHECK(cfg.counter == DPK_LIVE_COUNTER_SQRT_SUMS,
			  "forced, d = 384, T = 1024 (cap below the minimum): counter %d", cfg.counter);
	}
	CHECK(strcmp(dpk_live_counter_name(DPK_LIVE_COUNTER_SQRT_LIFTED), "square_root_lifted") == 0,
		  "stored name %s", dpk_live_counter_name(DPK_LIVE_COUNTER_SQRT_LIFTED));
}

/*
 * The lifted cells: those above the threshold in reach, all of them when
 * the cap allows, else the heaviest cap of them (ties: lower index first).
 */
static void
test_cells(void)
{
	DpkLiveConfig cfg;
	static double lo[128],
				up[128];
	uint64_t	total,
				n,
				above = 0,
				c,
				kept = 0,
				wrong = 0;
	double	   *count;
	uint8_t    *lifted,
			   *reach;
	double		th = HUGE_VAL;

	attach_config(&cfg, 128, 16, 1e-6, 50.0, lo, up);
	total = (uint64_t) cfg.copies * dpk_live_copy_cells(&cfg);
	count = dpk_alloc(total * sizeof(double));
	lifted = dpk_alloc(total);
	reach = dpk_alloc(total);
	for (c = 0; c < total; c++)
	{
		/* every 7th cell far above any threshold, in steps; every 5th out of reach */
		count[c] = c % 7 == 0 ? 1e6 + (double) (c % 1000) : 0.0;
		reach[c] = c % 5 != 0;
		above += count[c] > 0.0 && reach[c];
	}
	n = dpk_live_lifted_cells(&cfg, reach, 9, count, 1e9, lifted);
	for (c = 0; c < total; c++)
		wrong += lifted[c] != (count[c] > 0.0 && reach[c]);
	CHECK(n == above && wrong == 0, "uncapped: %llu of %llu lifted, %llu wrong",
		  (unsigned long long) n, (unsigned long long) above, (unsigned long long) wrong);
	n = dpk_live_lifted_cells(&cfg, reach, 9, count, 40.0, lifted);
	for (c = 0; c < total; c++)
		if (lifted[c])
		{
			kept++;
			th = fmin(th, count[c]);
		}
	for (c = 0, wrong = 0; c < total; c++)
		wrong += !lifted[c] && reach[c] && count[c] > th;
	CHECK(n == 40 && kept == 40 && wrong == 0, "capped at 40: %llu lifted (%llu set), %llu heavier left out",
		  (unsigned long long) n, (unsigned long long) kept, (unsigned long long) wrong);
	dpk_free(count);
	dpk_free(lifted);
	dpk_free(reach);
}

/* Rows around `nc` unit directions (metric positions of [-50, 50]^d) added to state. */
static void
add_rows(const DpkLiveConfig *cfg, DpkCellMap *state, int rows, int nc, uint64_t *st)
{
	int			d = cfg->d,
				dhat = cfg->dhat,
				i,
				j,
				r;
	double	   *dir = dpk_alloc((size_t) nc * d * sizeof(double)),
			   *u = dpk_alloc(d * sizeof(double)),
			   *t = dpk_alloc((size_t) cfg->copies * dhat * sizeof(double));
	DpkProjection *proj = dpk_alloc(cfg->copies * sizeof(DpkProjection));

	for (r = 0; r < cfg->copies; r++)
		dpk_live_projection(cfg, r, &proj[r]);
	for (i = 0; i < nc; i++)
	{
		double		n2 = 0.0;

		for (j = 0; j < d; j++)
		{
			dir[i * d + j] = unit_normal(st);
			n2 += dir[i * d + j] * dir[i * d + j];
		}
		for (j = 0; j < d; j++)
			dir[i * d + j] *= 0.4 / sqrt(n2);
	}
	for (i = 0; i < rows; i++)
	{
		int			a = (int) (dpk_splitmix64(st) % (uint64_t) nc);

		for (j = 0; j < d; j++)
			u[j] = 0.5 + dir[a * d + j] + 0.002 * unit_normal(st);
		dpk_box_ball_clamp(d, cfg->ball, u);
		for (r = 0; r < cfg->copies; r++)
			dpk_project_rows(&proj[r], u, 1, t + (size_t) r * dhat);
		dpk_live_add_projected(cfg, state, u, t, 1);
	}
	for (r = 0; r < cfg->copies; r++)
		dpk_projection_free(&proj[r]);
	dpk_free(proj);
	dpk_free(dir);
	dpk_free(u);
	dpk_free(t);
}

/*
 * A release of 6 000 rows in 5 clusters (t = 7) at d = 128 and at d = 64
 * (horizon 64), with and without a norm bound: the table on
 * square_root_lifted and the same table on square_root_sums give the same
 * counts (every cell), the same sums for every lifted cell, the same noisy
 * sum of norms, and the same centres, sizes and costs for every k'; an
 * unlifted cell's sums put it at its back-projected middle.
 */
static void
test_release_same(int d, uint32_t T, double norm_bound)
{
	DpkLiveConfig lifted,
				sums;
	static double lo[128],
				up[128];
	DpkBox		box = {d, lo, up};
	DpkCellMap	state;
	uint8_t		key[DPK_KEY_BYTES],
				nonce[DPK_NONCE_BYTES] = {0};
	uint64_t	st = 2024,
				total,
				c,
				nl = 0,
				count_diff = 0,
				sum_diff = 0,
				middle_off = 0;
	int			k,
				j;
	double	   *count[2],
			   *sum[2],
			   sumnorm[2],
			   *u = dpk_alloc(d * sizeof(double));
	uint8_t    *mask,
			   *reach;
	DpkLiveRelease rel[2];
	DpkProjection proj;

	attach_config(&lifted, d, T, 1e-6, norm_bound, lo, up);
	CHECK(lifted.counter == DPK_LIVE_COUNTER_SQRT_LIFTED, "d = %d, T = %u, norm bound %g: counter %d",
		  d, T, norm_bound, lifted.counter);
	sums = lifted;
	sums.counter = DPK_LIVE_COUNTER_SQRT_SUMS;
	k = lifted.k;
	total = (uint64_t) lifted.copies * dpk_live_copy_cells(&lifted);
	dpk_cellmap_init(&state, d);
	add_rows(&lifted, &state, 6000, 5, &st);
	dpk_key_from_seed(73, key);
	for (int v = 0; v < 2; v++)
	{
		const DpkLiveConfig *cfg = v == 0 ? &lifted : &sums;
		DpkStream	s = {0};

		count[v] = dpk_alloc(total * sizeof(double));
		sum[v] = dpk_alloc(total * d * sizeof(double));
		if (!dpk_stream_open(&s, key, nonce))
			dpk_fail("cannot open the noise stream");
		dpk_live_noisy_projected_box(cfg, &box, key, &state, 7, &s, count[v], sum[v], &sumnorm[v]);
		dpk_live_cluster_projected(cfg, &box, count[v], sum[v], sumnorm[v], 7,
								   dpk_stream_u64(&s), &rel[v]);
		dpk_stream_close(&s);
	}
	mask = dpk_alloc(total);
	reach = dpk_live_reach_mask(&lifted, &box);
	dpk_live_lifted_cells(&lifted, reach, 7, count[0], dpk_live_lifted_cap(&lifted), mask);
	if (reach)
		dpk_free(reach);
	dpk_live_projection(&lifted, 0, &proj);
	for (c = 0; c < total; c++)
	{
		count_diff += count[0][c] != count[1][c];
		if (mask[c])
		{
			nl++;
			sum_diff += memcmp(sum[0] + c * d, sum[1] + c * d, d * sizeof(double)) != 0;
		}
		else if (c < dpk_live_copy_cells(&lifted) && count[0][c] >= 1.0)
		{
			dpk_live_projected_cell_centre(&lifted, &proj, lifted.level, c, 0.0, NULL, u);
			for (j = 0; j < d; j++)
				middle_off += fabs(sum[0][c * d + j] -
								   count[0][c] * DPK_LIFT_UNITS * (u[j] - 0.5)) > 1e-6;
		}
	}
	CHECK(nl > 0 && nl < total / 4, "%llu of %llu cells lifted", (unsigned long long) nl,
		  (unsigned long long) total);
	CHECK(count_diff == 0 && sumnorm[0] == sumnorm[1],
		  "counts: %llu differ from square_root_sums', sum of norms %g vs %g",
		  (unsigned long long) count_diff, sumnorm[0], sumnorm[1]);
	CHECK(sum_diff == 0, "lifted cells: %llu of %llu differ from square_root_sums' sums",
		  (unsigned long long) sum_diff, (unsigned long long) nl);
	CHECK(middle_off == 0, "unlifted cells: %llu coordinates off their middles",
		  (unsigned long long) middle_off);
	CHECK(memcmp(rel[0].centers, rel[1].centers,
				 (size_t) dpk_live_block(k + 1) * d * sizeof(double)) == 0 &&
		  memcmp(rel[0].sizes, rel[1].sizes, (size_t) dpk_live_block(k + 1) * sizeof(double)) == 0 &&
		  memcmp(rel[0].costs, rel[1].costs, (size_t) k * sizeof(double)) == 0 &&
		  rel[0].coreset_size == rel[1].coreset_size,
		  "release: centres, sizes or costs differ from square_root_sums' (coreset %d vs %d)",
		  rel[0].coreset_size, rel[1].coreset_size);
	printf("  d = %d, T = %u, norm bound %g, t = 7: %llu of %llu cells lifted, coreset %d, "
		   "the same release as square_root_sums\n", d, T, norm_bound, (unsigned long long) nl,
		   (unsigned long long) total, rel[0].coreset_size);
	dpk_projection_free(&proj);
	dpk_cellmap_free(&state);
	for (int v = 0; v < 2; v++)
	{
		dpk_free(count[v]);
		dpk_free(sum[v]);
		dpk_live_release_free(&rel[v]);
	}
	dpk_free(mask);
	dpk_free(u);
}

int
main(void)
{
	printf("test_live_lifted:\n");
	test_choice();
	test_cells();
	test_release_same(128, 16, 50.0);
	test_release_same(128, 16, 0.0);
	test_release_same(64, 64, 0.0);
	test_release_same(64, 64, 50.0);
	UNIT_DONE("test_live_lifted");
}
