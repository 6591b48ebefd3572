/*
 * test_live_sqrt_sums.c
 *		Projected Gaussian tables on the square-root counter: the counts
 *		alone ('square_root', its sums and norm counter the tree's), and the
 *		lifting sums too (tracked.counter 'square_root_sums'): the families, sensitivities
 *		and variances, a release exact on its true values, the empirical
 *		variance of the published sums against the formula releases plan
 *		with, a count-only cell's count, and the draws a release reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "live_attach.h"
#include "dpk_mem.h"
#include "live_config.h"
#include "live_core.h"
#include "live_reach.h"
#include "lift.h"
#include "sqrt_counter.h"
#include "cellmap.h"
#include "grid.h"
#include "projection.h"
#include "prng.h"
#include "noise.h"

#define D 8

/* A projected Gaussian table of D columns, two copies, at `level`; sums on the square root. */
static void
sums_config(DpkLiveConfig *cfg, DpkLiveConfig *tree, DpkLiveConfig *counts, int level)
{
	dpk_live_defaults(cfg, D, 4, 1.0, 16, false);
	dpk_live_use_projection(cfg, 7);
	dpk_live_use_delta(cfg, 1e-6);
	cfg->copies = 2;
	cfg->level = level;
	*tree = *cfg;
	*counts = *cfg;
	cfg->counter = DPK_LIVE_COUNTER_SQRT_SUMS;
	counts->counter = DPK_LIVE_COUNTER_SQRT;
	dpk_live_use_norm_shift(cfg);
	dpk_live_use_norm_shift(tree);
	dpk_live_use_norm_shift(counts);
}

/*
 * A projected square-root table: its counts carry the square root's noise
 * (sensitivity sens2 per copy), its sums and norm counter exactly the
 * binary tree's draws and sensitivities (a tree table's variances and norm
 * unit), in dpk_live_noisy_projected and in the variances a release plans
 * with.
 */
static void
test_projected_sqrt(void)
{
	DpkLiveConfig cfg,
				tree;
	const DpkSqrtCounter *sc;
	DpkNoise	cn,
				sn,
				nn;
	DpkCellMap	empty;
	DpkStream	s,
				r;
	uint8_t		key[DPK_KEY_BYTES];
	double	   *count,
			   *sum,
				sumnorm,
				v[3],
				vt[3];
	int64_t		a[1 + 8],
				b[1 + 8];
	uint64_t	c,
				ncells,
				total;
	int			j,
				bad = 0;
	uint32_t	t = 11;

	dpk_live_defaults(&cfg, 8, 4, 1.0, 16, false);
	dpk_live_use_projection(&cfg, 7);
	dpk_live_use_delta(&cfg, 1e-6);
	cfg.copies = 2;
	cfg.level = 1;
	tree = cfg;
	cfg.counter = DPK_LIVE_COUNTER_SQRT;
	dpk_live_use_norm_shift(&cfg);
	dpk_live_use_norm_shift(&tree);
	sc = dpk_sqrt_counter_cached(16);
	CHECK(DPK_LIVE_SQRT_FAMILY(&cfg, 0) && !DPK_LIVE_SQRT_FAMILY(&cfg, 1) &&
		  !DPK_LIVE_SQRT_FAMILY(&cfg, 2), "projected families");
	CHECK(dpk_live_count_sensitivity(&cfg) == sc->sens2 * 2.0 * 2 &&
		  dpk_live_sum_sensitivity(&cfg) == dpk_live_sum_sensitivity(&tree) &&
		  dpk_live_norm_sensitivity(&cfg) == dpk_live_norm_sensitivity(&tree) &&
		  dpk_live_sum_sensitivity(&tree) ==
		  dpk_live_tree_levels(&tree) * 2.0 * 2 * (DPK_LIFT_UNITS / 2.0),
		  "projected square-root sensitivities: count %g (sens2 %g), sum %g (tree %g)",
		  dpk_live_count_sensitivity(&cfg), sc->sens2, dpk_live_sum_sensitivity(&cfg),
		  dpk_live_sum_sensitivity(&tree));
	dpk_live_gauss_vars(&cfg, v);
	dpk_live_gauss_vars(&tree, vt);
	CHECK(v[1] == vt[1] && v[2] == vt[2] && cfg.norm_shift == tree.norm_shift &&
		  fabs(v[0] / vt[0] - sc->sens2 / dpk_live_tree_levels(&tree)) < 1e-9 * v[0] / vt[0],
		  "projected square-root variances %g %g %g (tree %g %g %g)", v[0], v[1], v[2],
		  vt[0], vt[1], vt[2]);
	CHECK(dpk_live_projected_count_var(&cfg, t) == v[0] * dpk_sqrt_release_norm2(sc, t) &&
		  dpk_live_projected_sum_var(&cfg, t) == dpk_live_projected_sum_var(&tree, t),
		  "projected square-root release variances %g %g",
		  dpk_live_projected_count_var(&cfg, t), dpk_live_projected_sum_var(&cfg, t));

	cn = dpk_live_count_noise(&cfg);
	sn = dpk_live_sum_noise(&cfg);
	nn = dpk_live_norm_noise(&cfg);
	ncells = dpk_live_copy_cells(&cfg);
	total = (uint64_t) cfg.copies * ncells;
	count = dpk_alloc(total * sizeof(double));
	sum = dpk_alloc(total * 8 * sizeof(double));
	dpk_cellmap_init(&empty, 8);
	dpk_key_from_seed(31, key);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	dpk_live_noisy_projected(&cfg, key, &empty, t, &s, count, sum, &sumnorm);
	for (c = 0; c < total; c++)
	{
		DpkCellKey	ck = {key, cfg.level + 32 * (int) (c / ncells), c % ncells};

		dpk_live_cell_noise(&r, &ck, t, &(DpkCellNoise) {0, &cn, &sn, DPK_SUMS_NONE, true, 16}, a);
		dpk_live_cell_noise(&r, &ck, t, &(DpkCellNoise) {8, &cn, &sn, DPK_SUMS_VECTOR, false, 0}, b);
		if (count[c] != (double) a[0])
			bad++;
		for (j = 0; j < 8; j++)
			if (sum[c * 8 + j] != (double) b[1 + j])
				bad++;
	}
	dpk_live_cell_noise(&r, &(DpkCellKey) {key, 255, 0}, t,
						&(DpkCellNoise) {0, &nn, &cn, DPK_SUMS_NONE, false, 0}, a);
	CHECK(bad == 0 && sumnorm == ldexp((double) a[0], cfg.norm_shift),
		  "projected square-root release: %d values differ from the counters' draws", bad);
	dpk_stream_close(&s);
	dpk_stream_close(&r);
	dpk_cellmap_free(&empty);
	dpk_free(count);
	dpk_free(sum);
}

/*
 * Counts and sums on the square root (sensitivity sens2 per copy, x2 with
 * deletions), the norm counter the tree's; the counts exactly those of a
 * 'square_root' table, the norm counter's unit and variance the tree's.
 */
static void
test_families(void)
{
	DpkLiveConfig cfg,
				tree,
				counts;
	const DpkSqrtCounter *sc = dpk_sqrt_counter_cached(16);
	double		v[3],
				vt[3],
				vc[3];
	double		h;
	uint32_t	t = 11;

	sums_config(&cfg, &tree, &counts, 1);
	h = dpk_live_tree_levels(&tree);
	CHECK(DPK_LIVE_SQRT(&cfg) && DPK_LIVE_SQRT_FAMILY(&cfg, 0) && DPK_LIVE_SQRT_FAMILY(&cfg, 1) &&
		  !DPK_LIVE_SQRT_FAMILY(&cfg, 2) && !DPK_LIVE_SQRT_FAMILY(&counts, 1),
		  "square_root_sums families");
	CHECK(strcmp(dpk_live_counter_name(DPK_LIVE_COUNTER_SQRT_SUMS), "square_root_sums") == 0,
		  "stored name %s", dpk_live_counter_name(DPK_LIVE_COUNTER_SQRT_SUMS));
	CHECK(dpk_live_count_sensitivity(&cfg) == sc->sens2 * 2.0 * 2 &&
		  dpk_live_sum_sensitivity(&cfg) == sc->sens2 * 2.0 * 2 * (DPK_LIFT_UNITS / 2.0) &&
		  dpk_live_norm_sensitivity(&cfg) == dpk_live_norm_sensitivity(&tree),
		  "sensitivities: count %g, sum %g (sens2 %g), norm %g (tree %g)",
		  dpk_live_count_sensitivity(&cfg), dpk_live_sum_sensitivity(&cfg), sc->sens2,
		  dpk_live_norm_sensitivity(&cfg), dpk_live_norm_sensitivity(&tree));
	dpk_live_gauss_vars(&cfg, v);
	dpk_live_gauss_vars(&tree, vt);
	dpk_live_gauss_vars(&counts, vc);
	CHECK(v[0] == vc[0] && v[2] == vt[2] && cfg.norm_shift == tree.norm_shift &&
		  fabs(v[1] / vt[1] - sc->sens2 / h) < 1e-9 * v[1] / vt[1],
		  "variances %g %g %g (tree %g %g %g, counts-only %g)", v[0], v[1], v[2],
		  vt[0], vt[1], vt[2], vc[0]);
	CHECK(dpk_live_projected_count_var(&cfg, t) == dpk_live_projected_count_var(&counts, t) &&
		  fabs(dpk_live_projected_sum_var(&cfg, t) * DPK_LIFT_UNITS * DPK_LIFT_UNITS /
			   (v[1] * dpk_sqrt_release_norm2(sc, t)) - 1.0) < 1e-12,
		  "release variances %g %g", dpk_live_projected_count_var(&cfg, t),
		  dpk_live_projected_sum_var(&cfg, t));
	/* a release's draws a cell: 2 t a coordinate on the square root */
	CHECK(dpk_live_cell_draws(&cfg, 16, true) == 2.0 * 16 * (1 + D) &&
		  dpk_live_cell_draws(&cfg, 16, false) == 2.0 * 16 &&
		  dpk_live_cell_draws(&counts, 7, true) == 2.0 * 7 + D * 3 &&
		  dpk_live_cell_draws(&tree, 7, true) == 3.0 * (1 + D) &&
		  dpk_live_sqrt_draws(&cfg) == 2.0 * 16 * 2 * dpk_live_copy_cells(&cfg) * (1 + D) &&
		  dpk_live_sqrt_draws(&counts) == 2.0 * 16 * 2 * dpk_live_copy_cells(&cfg),
		  "draws: %g %g %g %g, last release %g (counts-only %g)",
		  dpk_live_cell_draws(&cfg, 16, true), dpk_live_cell_draws(&cfg, 16, false),
		  dpk_live_cell_draws(&counts, 7, true), dpk_live_cell_draws(&tree, 7, true),
		  dpk_live_sqrt_draws(&cfg), dpk_live_sqrt_draws(&counts));
}

/*
 * A release on true values is exactly those values plus the release of an
 * empty table under the same key (every event weighs exactly 1, no
 * rounding of the truth), and every published value is its counter's draw:
 * counts and sums the square root's (d coordinates a cell), the norm
 * counter the tree's.  A cell drawing its count alone (the regions' path,
 * dpk_live_projected_noise_range without sums) publishes the same count.
 */
static void
test_release_exact(void)
{
	DpkLiveConfig cfg,
				tree,
				counts;
	DpkNoise	cn,
				sn,
				nn;
	DpkCellMap	empty,
				state;
	DpkStream	s,
				r;
	uint8_t		key[DPK_KEY_BYTES];
	double	   *count0,
			   *sum0,
			   *count1,
			   *sum1,
			   *count2,
				norm0,
				norm1,
				norm2;
	int64_t		a[1 + D],
			   *alone;
	uint64_t	c,
				ncells,
				total,
				rng = 88172645463325252ULL;
	int			j,
				bad = 0,
				inexact = 0,
				zero = 0,
				apart = 0;
	uint32_t	t = 11;

	sums_config(&cfg, &tree, &counts, 1);
	cn = dpk_live_count_noise(&cfg);
	sn = dpk_live_sum_noise(&cfg);
	nn = dpk_live_norm_noise(&cfg);
	ncells = dpk_live_copy_cells(&cfg);
	total = (uint64_t) cfg.copies * ncells;
	count0 = dpk_alloc(total * sizeof(double));
	count1 = dpk_alloc(total * sizeof(double));
	count2 = dpk_alloc(total * sizeof(double));
	sum0 = dpk_alloc(total * D * sizeof(double));
	sum1 = dpk_alloc(total * D * sizeof(double));
	alone = dpk_alloc(total * sizeof(int64_t));
	dpk_cellmap_init(&empty, D);
	dpk_cellmap_init(&state, D);
	for (c = 0; c < total; c += 3)
	{
		int64_t    *vals = dpk_cellmap_get(&state, c);

		for (j = 0; j <= D; j++)
			vals[j] = (int64_t) (unit_uniform(&rng) * 2.0e6) - (j ? 1000000 : 0);
		vals[0] = vals[0] < 0 ? -vals[0] : vals[0];
	}
	dpk_key_from_seed(47, key);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	dpk_live_noisy_projected(&cfg, key, &empty, t, &s, count0, sum0, &norm0);
	dpk_live_noisy_projected(&cfg, key, &state, t, &s, count1, sum1, &norm1);
	dpk_live_noisy_projected_reach(&cfg, NULL, key, &empty, t, &s, count2, NULL, &norm2);
	dpk_live_projected_noise_range(&cfg, NULL, key, t, false, 0, total, alone);
	for (c = 0; c < total; c++)
	{
		DpkCellKey	ck = {key, cfg.level + 32 * (int) (c / ncells), c % ncells};
		const int64_t *vals = dpk_cellmap_find(&state, c);

		dpk_live_cell_noise(&r, &ck, t, &(DpkCellNoise) {D, &cn, &sn, DPK_SUMS_VECTOR, true, 16}, a);
		if (count0[c] != (double) a[0])
			bad++;
		for (j = 0; j < D; j++)
			if (sum0[c * D + j] != (double) a[1 + j])
				bad++;
		for (j = 0; j <= D; j++)
			if ((j ? sum1[c * D + j - 1] - sum0[c * D + j - 1] : count1[c] - count0[c]) !=
				(double) (vals ? vals[j] : 0))
				inexact++;
		if (count2[c] != count0[c] || (double) alone[c] != count0[c])
			apart++;
		zero += count2[c] == 0.0;
	}
	dpk_live_cell_noise(&r, &(DpkCellKey) {key, 255, 0}, t,
						&(DpkCellNoise) {0, &nn, &cn, DPK_SUMS_NONE, false, 0}, a);
	CHECK(bad == 0 && norm0 == ldexp((double) a[0], cfg.norm_shift),
		  "square_root_sums release: %d values differ from the counters' draws", bad);
	CHECK(inexact == 0, "square_root_sums release: %d values differ from truth + noise", inexact);
	CHECK(apart == 0 && zero < (int) (total / 10),
		  "count-only cells: %d counts differ from the cell's with sums, %d of %llu zero",
		  apart, zero, (unsigned long long) total);
	dpk_stream_close(&s);
	dpk_stream_close(&r);
	dpk_cellmap_free(&empty);
	dpk_cellmap_free(&state);
	dpk_free(count0);
	dpk_free(count1);
	dpk_free(count2);
	dpk_free(sum0);
	dpk_free(sum1);
	dpk_free(alone);
}

/*
 * The published sums' empirical variance (every coordinate of every cell of
 * an empty table, at an early, a middle and the last release) matches the
 * variance releases plan with, dpk_live_projected_sum_var, within 4
 * standard errors of a variance estimate; and it is below the tree's at
 * the last release (sens2-weighted measurements against h nodes).
 */
static void
test_sums_variance(void)
{
	static const uint32_t ts[] = {3, 9, 16};
	DpkLiveConfig cfg,
				tree,
				counts;
	DpkCellMap	empty;
	DpkStream	s;
	uint8_t		key[DPK_KEY_BYTES];
	uint64_t	total,
				i;
	double	   *count,
			   *sum,
				norm;

	sums_config(&cfg, &tree, &counts, 2);
	total = (uint64_t) cfg.copies * dpk_live_copy_cells(&cfg);
	count = dpk_alloc(total * sizeof(double));
	sum = dpk_alloc(total * D * sizeof(double));
	dpk_cellmap_init(&empty, D);
	dpk_key_from_seed(53, key);
	memset(&s, 0, sizeof(s));
	for (size_t k = 0; k < sizeof(ts) / sizeof(ts[0]); k++)
	{
		double		want = dpk_live_projected_sum_var(&cfg, ts[k]) * DPK_LIFT_UNITS * DPK_LIFT_UNITS,
					cwant = dpk_live_projected_count_var(&cfg, ts[k]),
					m2 = 0.0,
					c2 = 0.0,
					n = (double) total * D,
					se;

		dpk_live_noisy_projected(&cfg, key, &empty, ts[k], &s, count, sum, &norm);
		for (i = 0; i < total * D; i++)
			m2 += sum[i] * sum[i];
		for (i = 0; i < total; i++)
			c2 += count[i] * count[i];
		m2 /= n;
		c2 /= (double) total;
		se = sqrt(2.0 / n);
		CHECK(fabs(m2 / want - 1.0) < 4.0 * se &&
			  fabs(c2 / cwant - 1.0) < 4.0 * sqrt(2.0 / (double) total),
			  "t = %u: sums' variance %.6g, formula %.6g (ratio %.4f, se %.4f); counts' %.6g, "
			  "formula %.6g", ts[k], m2, want, m2 / want, se, c2, cwant);
		printf("  t = %2u: sums' empirical / formula variance %.4f (%.0f draws), counts' %.4f\n",
			   ts[k], m2 / want, n, c2 / cwant);
	}
	CHECK(dpk_live_projected_sum_var(&cfg, 16) < dpk_live_projected_sum_var(&tree, 16),
		  "last release: square root %g, tree %g", dpk_live_projected_sum_var(&cfg, 16),
		  dpk_live_projected_sum_var(&tree, 16));
	dpk_stream_close(&s);
	dpk_cellmap_free(&empty);
	dpk_free(count);
	dpk_free(sum);
}

/*
 * The counter dp_attach gives: square_root_sums where the last release's
 * draws fit DPK_LIVE_SQRT_SUMS_MAX_DRAWS, and never at a finer level than
 * the tree's; square_root_lifted where only the lifted cells' fit
 * (test_live_lifted).
 */
static void
test_choice(void)
{
	static const struct
	{
		int			d;
		uint32_t	T;
		int			counter;
	}			cases[] = {
		{16, 16, DPK_LIVE_COUNTER_SQRT_SUMS},
		{64, 16, DPK_LIVE_COUNTER_SQRT_SUMS},
		{16, 64, DPK_LIVE_COUNTER_SQRT_SUMS},
		{64, 64, DPK_LIVE_COUNTER_SQRT_LIFTED},	/* every cell's sums: 34 M draws */
		{384, 16, DPK_LIVE_COUNTER_SQRT_LIFTED},	/* every cell's sums: 50 M draws */
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		DpkLiveConfig cfg,
					tree;

		dpk_live_defaults(&cfg, cases[c].d, 10, 1.0, cases[c].T, true);
		dpk_live_use_projection(&cfg, 7);
		dpk_live_use_delta(&cfg, 1e-6);
		cfg.level = 2;
		tree = cfg;
		dpk_live_use_counter(&cfg, NULL, 1e5, 4194304.0, false);
		CHECK(cfg.counter == cases[c].counter && cfg.level <= tree.level &&
			  (cfg.counter != DPK_LIVE_COUNTER_SQRT_SUMS ||
			   dpk_live_sqrt_draws(&cfg) <= DPK_LIVE_SQRT_SUMS_MAX_DRAWS),
			  "d = %d, T = %u: counter %d, level %d (tree's %d), draws %.0f", cases[c].d,
			  cases[c].T, cfg.counter, cfg.level, tree.level, dpk_live_sqrt_draws(&cfg));
	}
}

/*
 * A new table configured as dp_attach does (few sides, ball, box, level,
 * counter; dpk_live_use_sign_cells is the caller's) in a box of sides 100,
 * 10 beyond the first `wide` columns (0: a cube), at [0, 100] or, with a
 * norm bound, centred on the origin.
 */
static void
sign_config(DpkLiveConfig *cfg, int d, uint32_t T, bool insert_only, double delta,
			double norm_bound, int wide, double *lo, double *up)
{
	DpkBox		box = {d, lo, up};

	for (int j = 0; j < d; j++)
	{
		/* centred on the origin where a norm bound is declared */
		lo[j] = norm_bound > 0.0 ? -50.0 : 0.0;
		up[j] = lo[j] + (wide > 0 && j >= wide ? 10.0 : 100.0);
	}
	unit_live_attach(cfg, &box, T, insert_only, delta, norm_bound);
}

/*
 * Sign cells (dpk_live_use_sign_cells): an insert-only cube-box Gaussian
 * table of 64 columns on square_root_sums at horizon 16 counts DPK_LIVE_SIGN_DHAT
 * projected dimensions at level 1, its draws within the budget, its norm
 * unit and scales as before, and a row's cell is its side of each
 * projected direction through the box's middle; every other configuration
 * (d = 16, 32, 48, 96 and 384, a horizon of 64, pure, a norm bound,
 * unequal sides, deletions) is left as dpk_live_use_counter chose it.
 */
static void
test_sign_cells(void)
{
	static const struct
	{
		int			d;
		uint32_t	T;
		bool		insert_only;
		double		delta;
		double		norm_bound;
		int			wide;
		bool		sign;
	}			cases[] = {
		{64, 16, true, 1e-6, 0.0, 0, true},
		{64, 8, true, 1e-6, 0.0, 0, true},
		{16, 16, true, 1e-6, 0.0, 0, false},
		{32, 16, true, 1e-6, 0.0, 0, false},	/* d = 32, 48, 96: not measured better */
		{48, 16, true, 1e-6, 0.0, 0, false},
		{96, 16, true, 1e-6, 0.0, 0, false},
		{384, 16, true, 1e-6, 0.0, 0, false},
		{64, 64, true, 1e-6, 0.0, 0, false},	/* counts alone on the square root */
		{64, 16, true, 0.0, 0.0, 0, false},	/* pure */
		{64, 16, true, 1e-6, 200.0, 0, false},	/* a norm bound */
		{64, 16, true, 1e-6, 0.0, 32, false},	/* unequal sides: fewer dimensions */
		{64, 16, false, 1e-6, 0.0, 0, false},	/* deletions: not measured better */
	};
	double		lo[384],
				up[384];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		DpkLiveConfig cfg,
					before;
		double		largest;

		sign_config(&cfg, cases[c].d, cases[c].T, cases[c].insert_only, cases[c].delta,
					cases[c].norm_bound, cases[c].wide, lo, up);
		before = cfg;
		dpk_live_use_sign_cells(&cfg);
		dpk_live_use_norm_shift(&cfg);
		dpk_live_use_norm_shift(&before);
		if (cases[c].sign)
			CHECK(cfg.dhat == DPK_LIVE_SIGN_DHAT && cfg.level == 1 && before.level >= 2 &&
				  cfg.counter == DPK_LIVE_COUNTER_SQRT_SUMS &&
				  dpk_live_copy_cells(&cfg) == ((uint64_t) 1 << DPK_LIVE_SIGN_DHAT) &&
				  dpk_live_sqrt_draws(&cfg) <= DPK_LIVE_SQRT_SUMS_MAX_DRAWS &&
				  cfg.norm_shift == before.norm_shift &&
				  dpk_live_scales_representable(&cfg, &largest),
				  "sign cells %zu (d = %d, T = %u): dhat %d level %d (before %d, %d), "
				  "counter %d, draws %.0f", c, cases[c].d, cases[c].T, cfg.dhat, cfg.level,
				  before.dhat, before.level, cfg.counter, dpk_live_sqrt_draws(&cfg));
		else
			CHECK(memcmp(&cfg, &before, sizeof(cfg)) == 0 && cfg.dhat != DPK_LIVE_SIGN_DHAT,
				  "sign cells %zu (d = %d, T = %u): changed to dhat %d level %d", c,
				  cases[c].d, cases[c].T, cfg.dhat, cfg.level);
	}

	/* a row's cell: its side of each projected direction through the middle */
	{
		DpkLiveConfig cfg;
		DpkProjection p;
		double		u[64],
					t[DPK_LIVE_SIGN_DHAT];
		int64_t		idx[DPK_LIVE_SIGN_DHAT];
		uint64_t	st = 11;
		int			wrong = 0;

		sign_config(&cfg, 64, 16, true, 1e-6, 0.0, 0, lo, up);
		dpk_live_use_sign_cells(&cfg);
		dpk_projection_init(&p, 64, cfg.dhat, dpk_projection_copy_seed(cfg.proj_seed, 0),
							cfg.half_width);
		for (int r = 0; r < 1000; r++)
		{
			for (int j = 0; j < 64; j++)
				u[j] = (double) (dpk_splitmix64(&st) >> 11) / 9007199254740992.0;
			dpk_project_rows(&p, u, 1, t);
			dpk_grid_cell(cfg.dhat, 1 << cfg.level, t, idx, NULL);
			for (int i = 0; i < cfg.dhat; i++)
			{
				double		side = 0.0;

				for (int j = 0; j < 64; j++)
					side += p.mat[(size_t) i * 64 + j] * (u[j] - 0.5);
				wrong += (idx[i] == 1) != (side >= 0.0);
			}
		}
		CHECK(wrong == 0, "sign cells: %d of %d sides wrong", wrong, 1000 * cfg.dhat);
		dpk_projection_free(&p);
	}
}

int
main(void)
{
	printf("test_live_sqrt_sums:\n");
	test_projected_sqrt();
	test_families();
	test_release_exact();
	test_sums_variance();
	test_choice();
	test_sign_cells();
	UNIT_DONE("test_live_sqrt_sums");
}
