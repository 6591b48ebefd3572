/*
 * test_live_refine.c
 *		Large-d Gaussian live tables with a norm bound: the refined lifting
 *		sums of their heavy cells (live_core.h, dpk_live_refines_sums).
 *		Which tables get them, the weights (every position in [1, t] weighs
 *		exactly 1, none beyond t, complete nodes only), their variance
 *		against the tree's, a release exact on its true values with the
 *		light cells untouched, and the empirical variance of the refined
 *		sums against the variance releases plan with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "dpk_mem.h"
#include "counter.h"
#include "live_config.h"
#include "live_core.h"
#include "live_reach.h"
#include "lift.h"
#include "cellmap.h"
#include "noise.h"

/* A projected Gaussian table of d columns in [-1, 1]^d with norm_bound (0: none). */
static void
refine_config(DpkLiveConfig *cfg, int d, uint32_t horizon, double norm_bound, double delta)
{
	double	   *lo = dpk_alloc(d * sizeof(double)),
			   *hi = dpk_alloc(d * sizeof(double));
	int			j;

	for (j = 0; j < d; j++)
	{
		lo[j] = -1.0;
		hi[j] = 1.0;
	}
	dpk_live_defaults(cfg, d, 10, 1.0, horizon, true);
	dpk_live_use_projection(cfg, 7);
	if (norm_bound > 0.0)
		dpk_live_use_ball(cfg, &(DpkBox) {d, lo, hi}, norm_bound);
	if (delta > 0.0)
	{
		dpk_live_use_delta(cfg, delta);
		cfg->counter = DPK_LIVE_COUNTER_SQRT;
		dpk_live_use_norm_shift(cfg);
	}
	cfg->level = 1;
	dpk_free(lo);
	dpk_free(hi);
}

/* The rule: d >= 128, a norm bound, delta > 0, the sums on the tree. */
static void
test_rule(void)
{
	DpkLiveConfig a,
				b,
				c,
				e,
				f;
	DpkNoise	sn;

	refine_config(&a, 384, 16, 1.0, 1e-6);
	refine_config(&b, 64, 16, 1.0, 1e-6);
	refine_config(&c, 384, 16, 0.0, 1e-6);
	refine_config(&e, 384, 16, 1.0, 0.0);
	refine_config(&f, 128, 16, 1.0, 1e-6);
	CHECK(dpk_live_refines_sums(&a) && dpk_live_refines_sums(&f) &&
		  !dpk_live_refines_sums(&b) && !dpk_live_refines_sums(&c) &&
		  !dpk_live_refines_sums(&e), "rule: 384 %d, 128 %d, 64 %d, no ball %d, pure %d",
		  dpk_live_refines_sums(&a), dpk_live_refines_sums(&f), dpk_live_refines_sums(&b),
		  dpk_live_refines_sums(&c), dpk_live_refines_sums(&e));
	a.counter = DPK_LIVE_COUNTER_SQRT_SUMS;
	CHECK(!dpk_live_refines_sums(&a), "square_root_sums tables keep their sums");
	/* the sums' variance a release plans with follows the rule */
	refine_config(&a, 384, 16, 1.0, 1e-6);
	sn = dpk_live_sum_noise(&a);
	CHECK(dpk_live_sum_tree_norm2(&a, 8) == 1.0 &&
		  fabs(dpk_live_projected_sum_var(&a, 8) /
			   (dpk_noise_variance(&sn, 384) / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS)) -
			   8.0 / 15.0) < 1e-12,
		  "t = 8: planned sum variance %g", dpk_live_projected_sum_var(&a, 8));
}

/*
 * The weights: for every t up to 1 100 (roots of depth up to 10, capped at
 * DPK_LIVE_REFINE_DEPTH), each position in [1, t] is held by nodes whose
 * weights sum to den and no node reaches past t; the weights' squared norm
 * is dpk_live_refined_norm2(t), which is 8/15 at t = 8, 16/31 at 16 and 32
 * (the cap), and below the plain decomposition's popcount(t) but at odd t
 * below 4 (a leaf alone).
 */
static void
test_weights(void)
{
	int			lev[DPK_LIVE_REFINE_MAX_NODES];
	uint32_t	idx[DPK_LIVE_REFINE_MAX_NODES];
	int64_t		w[DPK_LIVE_REFINE_MAX_NODES],
				den;
	int64_t    *cover = dpk_alloc(2048 * sizeof(int64_t));
	int			bad = 0,
				late = 0,
				norm = 0,
				above = 0;
	uint32_t	t;

	for (t = 1; t <= 1100; t++)
	{
		int			n = dpk_live_refine_nodes(t, lev, idx, w, &den),
					a;
		uint32_t	p;
		double		v = 0.0;

		memset(cover, 0, 2048 * sizeof(int64_t));
		for (a = 0; a < n; a++)
		{
			uint32_t	lo = (idx[a] - 1) * (1u << lev[a]) + 1,
						hi = idx[a] * (1u << lev[a]);

			if (hi > t)
				late++;
			for (p = lo; p <= hi && p < 2048; p++)
				cover[p] += w[a];
			v += ((double) w[a] / den) * ((double) w[a] / den);
		}
		for (p = 1; p < 2048; p++)
			if (cover[p] != (p <= t ? den : 0))
				bad++;
		if (fabs(v - dpk_live_refined_norm2(t)) > 1e-12 * v)
			norm++;
		if (dpk_live_refined_norm2(t) > (double) __builtin_popcount(t) + 1e-12 ||
			(t >= 4 && !(dpk_live_refined_norm2(t) < (double) __builtin_popcount(t))))
			above++;
	}
	CHECK(bad == 0 && late == 0, "weights: %d positions mis-weighed, %d nodes past t", bad, late);
	CHECK(norm == 0 && above == 0, "norm2: %d differ from the weights, %d not below the tree's",
		  norm, above);
	CHECK(fabs(dpk_live_refined_norm2(8) - 8.0 / 15.0) < 1e-15 &&
		  fabs(dpk_live_refined_norm2(16) - 16.0 / 31.0) < 1e-15 &&
		  fabs(dpk_live_refined_norm2(32) - 16.0 / 31.0) < 1e-15 &&
		  fabs(dpk_live_refined_norm2(7) - (4.0 / 7.0 + 2.0 / 3.0 + 1.0)) < 1e-15,
		  "norm2 at 8, 16, 32, 7: %g %g %g %g", dpk_live_refined_norm2(8),
		  dpk_live_refined_norm2(16), dpk_live_refined_norm2(32), dpk_live_refined_norm2(7));
	dpk_free(cover);
}

/*
 * A release on true values: the heavy cells' refined sums are their true
 * sums plus the refined sums of an empty table under the same key, the
 * light cells' sums are left as they were, and a refined sum is exactly
 * sum_v w_v draw_v / den of the nodes' own draws (dpk_node_noise_gauss).
 */
static void
test_release_exact(void)
{
	DpkLiveConfig cfg;
	DpkCellMap	empty,
				state;
	DpkStream	r;
	uint8_t		key[DPK_KEY_BYTES];
	int			d = 128,
				lev[DPK_LIVE_REFINE_MAX_NODES],
				n,
				j,
				a,
				inexact = 0,
				touched = 0,
				refined = 0,
				differ = 0;
	uint32_t	idx[DPK_LIVE_REFINE_MAX_NODES],
				t = 12;
	int64_t		w[DPK_LIVE_REFINE_MAX_NODES],
				den,
			   *draw = dpk_alloc((1 + d) * sizeof(int64_t));
	uint64_t	c,
				total,
				rng = 88172645463325252ULL;
	double	   *count,
			   *sum0,
			   *sum1,
			   *want = dpk_alloc(d * sizeof(double));
	DpkNoise	cs,
				ss;

	refine_config(&cfg, d, 16, 1.0, 1e-6);
	cs = dpk_live_count_noise(&cfg);
	ss = dpk_live_sum_noise(&cfg);
	total = dpk_live_copy_cells(&cfg);
	count = dpk_alloc(total * sizeof(double));
	sum0 = dpk_alloc(total * d * sizeof(double));
	sum1 = dpk_alloc(total * d * sizeof(double));
	dpk_cellmap_init(&empty, d);
	dpk_cellmap_init(&state, d);
	for (c = 0; c < total; c++)
	{
		int64_t    *vals = dpk_cellmap_get(&state, c);

		for (j = 0; j <= d; j++)
			vals[j] = (int64_t) (unit_uniform(&rng) * 2.0e6) - (j ? 1000000 : 0);
		vals[0] = vals[0] < 0 ? -vals[0] : vals[0];
		/* even cells heavy, odd cells below every threshold */
		count[c] = c % 2 == 0 ? 1e9 : 0.0;
		for (j = 0; j < d; j++)
			sum0[c * d + j] = sum1[c * d + j] = -7.0;
	}
	dpk_key_from_seed(61, key);
	dpk_live_refine_sums(&cfg, NULL, key, &empty, t, count, sum0);
	dpk_live_refine_sums(&cfg, NULL, key, &state, t, count, sum1);
	n = dpk_live_refine_nodes(t, lev, idx, w, &den);
	memset(&r, 0, sizeof(r));
	for (c = 0; c < total; c++)
	{
		const int64_t *vals = dpk_cellmap_find(&state, c);

		if (c % 2 == 1)
		{
			for (j = 0; j < d; j++)
				touched += sum0[c * d + j] != -7.0 || sum1[c * d + j] != -7.0;
			continue;
		}
		refined++;
		for (j = 0; j < d; j++)
			if (fabs(sum1[c * d + j] - sum0[c * d + j] - (double) vals[1 + j]) >
				1e-6 * (1.0 + fabs((double) vals[1 + j])))
				inexact++;
		memset(want, 0, d * sizeof(double));
		for (a = 0; a < n; a++)
		{
			dpk_node_noise_gauss(&r, &(DpkCellKey) {key, cfg.level, c}, lev[a], idx[a],
								 &(DpkCellVars) {d, cs.var, ss.var, DPK_SUMS_VECTOR}, draw);
			for (j = 0; j < d; j++)
				want[j] += (double) w[a] * (double) draw[1 + j];
		}
		for (j = 0; j < d; j++)
			differ += fabs(sum0[c * d + j] - want[j] / (double) den) > 1e-9 * fabs(want[j]) + 1e-9;
	}
	CHECK(refined > 0 && inexact == 0, "refined sums: %d of %d cells' values differ from truth + noise",
		  inexact, refined);
	CHECK(touched == 0, "light cells: %d sums changed", touched);
	CHECK(differ == 0, "refined sums: %d values differ from the weighted node draws", differ);
	dpk_stream_close(&r);
	dpk_cellmap_free(&empty);
	dpk_cellmap_free(&state);
	dpk_free(count);
	dpk_free(sum0);
	dpk_free(sum1);
	dpk_free(draw);
	dpk_free(want);
}

/*
 * The refined sums' empirical variance (every coordinate of every cell of
 * an empty table, all counted heavy) matches the variance a release plans
 * with (dpk_live_projected_sum_var) within 4 standard errors, at t = 3, 8,
 * 13 and 16.
 */
static void
test_variance(void)
{
	static const uint32_t ts[] = {3, 8, 13, 16};
	DpkLiveConfig cfg;
	DpkCellMap	empty;
	uint8_t		key[DPK_KEY_BYTES];
	int			d = 128;
	uint64_t	total,
				i;
	double	   *count,
			   *sum;

	refine_config(&cfg, d, 16, 1.0, 1e-6);
	cfg.level = 2;
	total = dpk_live_copy_cells(&cfg);
	count = dpk_alloc(total * sizeof(double));
	sum = dpk_alloc(total * d * sizeof(double));
	for (i = 0; i < total; i++)
		count[i] = 1e9;
	dpk_cellmap_init(&empty, d);
	dpk_key_from_seed(67, key);
	for (size_t k = 0; k < sizeof(ts) / sizeof(ts[0]); k++)
	{
		double		want = dpk_live_projected_sum_var(&cfg, ts[k]) * DPK_LIFT_UNITS * DPK_LIFT_UNITS,
					m2 = 0.0,
					n = (double) total * d,
					se = sqrt(2.0 / n);

		dpk_live_refine_sums(&cfg, NULL, key, &empty, ts[k], count, sum);
		for (i = 0; i < total * d; i++)
			m2 += sum[i] * sum[i];
		m2 /= n;
		CHECK(fabs(m2 / want - 1.0) < 4.0 * se,
			  "t = %u: refined sums' variance %.6g, formula %.6g (ratio %.4f, se %.4f)",
			  ts[k], m2, want, m2 / want, se);
		printf("  t = %2u: refined sums' empirical / formula variance %.4f (%.0f draws)\n",
			   ts[k], m2 / want, n);
	}
	dpk_cellmap_free(&empty);
	dpk_free(count);
	dpk_free(sum);
}

int
main(void)
{
	printf("test_live_refine:\n");
	test_rule();
	test_weights();
	test_release_exact();
	test_variance();
	UNIT_DONE("test_live_refine");
}
