/*
 * test_live_gauss.c
 *		Gaussian live tables: the plain tree decomposition, the Gaussian node
 *		noise of a cell, the l2 sensitivities against a brute-force
 *		neighbouring stream, the composition of the families' rho, that
 *		delta = 0 draws exactly the pure noise, and the norm counter's unit
 *		at large d.
 */
#include <math.h>
#include <string.h>

#include "counter.h"
#include "dpk_mem.h"
#include "lift.h"
#include "live_core.h"
#include "live_reach.h"
#include "sqrt_counter.h"
#include "tree_estimator.h"
#include "zcdp.h"
#include "unit.h"

/* Every t <= 4096: popcount nodes, disjoint, inside [1, t], covering it. */
static void
test_binary_decomposition(void)
{
	static uint8_t seen[4097];
	uint32_t	t;
	int			ok = 1;

	for (t = 1; t <= 4096; t++)
	{
		int			l[34],
					n,
					a;
		uint32_t	idx[34];

		memset(seen, 0, sizeof(seen));
		n = dpk_tree_decompose_binary(t, l, idx);
		if (n != __builtin_popcount(t))
			ok = 0;
		for (a = 0; a < n; a++)
		{
			uint64_t	lo = (uint64_t) (idx[a] - 1) << l[a],
						i;

			for (i = lo + 1; i <= lo + ((uint64_t) 1 << l[a]); i++)
			{
				if (i > t || seen[i])
					ok = 0;
				else
					seen[i] = 1;
			}
		}
		for (a = 1; a <= (int) t; a++)
			if (!seen[a])
				ok = 0;
	}
	CHECK(ok, "binary decomposition: popcount disjoint nodes inside [1, t] covering it");
}

/*
 * The squared l2 distance, over every node of the tree of horizon T, between
 * the node values of two neighbouring streams: the row inserted at release i
 * and (j > 0) deleted at release j, maximised over i < j.  One cell, unit
 * change per event.
 */
static double
brute_l2sq(uint32_t T, bool deletes)
{
	int			h = dpk_tree_height(T),
				lev;
	uint32_t	i,
				j;
	double		worst = 0.0;

	for (i = 1; i <= T; i++)
		for (j = deletes ? i + 1 : 0; j <= (deletes ? T : 0); j++)
		{
			double		sq = 0.0;

			for (lev = 0; lev < h; lev++)
			{
				uint32_t	node;

				for (node = 1; ((uint64_t) (node - 1) << lev) < T; node++)
				{
					uint64_t	lo = (uint64_t) (node - 1) << lev,
								hi = lo + ((uint64_t) 1 << lev);
					int			c = (i > lo && i <= hi) - (j > 0 && j > lo && j <= hi);

					sq += c * c;
				}
			}
			if (sq > worst)
				worst = sq;
		}
	return worst;
}

/* dpk_live_l2sq against the brute force; sums scale by d unit^2. */
static void
test_sensitivities(void)
{
	static const uint32_t Ts[] = {1, 2, 5, 8, 33, 64};
	size_t		a;

	for (a = 0; a < sizeof(Ts) / sizeof(Ts[0]); a++)
	{
		int			del;

		for (del = 0; del < 2; del++)
		{
			DpkLiveConfig cfg;
			double		l2sq[3],
						brute = brute_l2sq(Ts[a], del == 1);

			dpk_live_defaults(&cfg, 3, 2, 1.0, Ts[a], del == 0);
			dpk_live_use_delta(&cfg, 1e-6);
			dpk_live_l2sq(&cfg, l2sq);
			/*
			 * Insert-only: exactly h.  With the deletion the top node holds
			 * both events and cancels, so the truth is 2h - 2 within the
			 * horizon; 2h (the pure mechanism's l1 bound) also covers
			 * releases past it.
			 */
			CHECK(l2sq[0] >= brute && l2sq[0] <= brute + 2.0 * del,
				  "T=%u deletes=%d: count l2^2 %g, brute force %g", Ts[a], del, l2sq[0],
				  brute);
			CHECK(l2sq[1] == l2sq[0] * 3 * DPK_REL_CENTRE * DPK_REL_CENTRE,
				  "T=%u: sum l2^2 %g", Ts[a], l2sq[1]);
			cfg.centred_offsets = false;
			dpk_live_l2sq(&cfg, l2sq);
			CHECK(l2sq[1] == l2sq[0] * 3 * DPK_REL_UNITS * DPK_REL_UNITS,
				  "T=%u, a table attached before: sum l2^2 %g", Ts[a], l2sq[1]);
		}
	}
}

/* The families' rho add up to dpk_live_rho, whose delta at epsilon is delta. */
static void
test_composition(void)
{
	static const int ds[] = {2, 16, 64};
	size_t		a;

	for (a = 0; a < sizeof(ds) / sizeof(ds[0]); a++)
	{
		DpkLiveConfig cfg;
		double		v[3],
					l2sq[3],
					rho = 0.0;
		int			i;

		dpk_live_defaults(&cfg, ds[a], 5, 0.7, 1024, false);
		if (ds[a] >= 6)
			dpk_live_use_projection(&cfg, 42);
		dpk_live_use_delta(&cfg, 1e-6);
		dpk_live_gauss_vars(&cfg, v);
		dpk_live_l2sq(&cfg, l2sq);
		for (i = 0; i < 3; i++)
			if (i == 0 || (i == 1 && cfg.sum_share > 0) || (i == 2 && cfg.norm_share > 0))
				rho += l2sq[i] / (2.0 * v[i]);
		CHECK(fabs(rho - dpk_live_rho(&cfg)) <= 1e-12 * rho,
			  "d=%d: families spend rho %.15g of %.15g", ds[a], rho, dpk_live_rho(&cfg));
		CHECK(dpk_zcdp_delta(rho, 0.7, NULL) <= 1e-6 * (1 + 1e-9),
			  "d=%d: delta %g at epsilon 0.7", ds[a], dpk_zcdp_delta(rho, 0.7, NULL));
		/* the drawn variances are the rational ones, never below */
		{
			DpkNoise	cn = dpk_live_count_noise(&cfg),
						sn = dpk_live_sum_noise(&cfg);

			CHECK(cn.gauss && dpk_gauss_scale_value(cn.var) >= v[0] &&
				  dpk_gauss_scale_value(sn.var) >= v[1], "d=%d: rounded variances", ds[a]);
		}
	}
}

/* Gaussian node noise: variance popcount(t) sigma^2 per count and per sum coordinate. */
static void
test_cell_noise_gauss(void)
{
	static const uint32_t ts[] = {1, 7, 100, 1023};
	uint8_t		key[DPK_KEY_BYTES];
	DpkStream	s;
	DpkGaussScale cv = {250, 1},
				sv = {40000, 1};
	size_t		a;

	memset(&s, 0, sizeof(s));
	dpk_key_from_seed(77, key);
	for (a = 0; a < sizeof(ts) / sizeof(ts[0]); a++)
	{
		double		sc = 0.0,
					ss = 0.0;
		int			c,
					cells = 20000,
					nodes = __builtin_popcount(ts[a]);
		double		ec = nodes * 250.0,
					es = nodes * 40000.0,
					zc,
					zs;

		for (c = 0; c < cells; c++)
		{
			int64_t		out[4];

			dpk_cell_noise_gauss(&s, &(DpkCellKey) {key, 3, (uint64_t) c},
								 ts[a],
								 &(DpkCellVars) {3, cv, sv, DPK_SUMS_VECTOR},
								 out);
			sc += (double) out[0] * out[0];
			ss += (double) out[1 + c % 3] * out[1 + c % 3];
		}
		/* a sum of Gaussians: sd of the sample variance is sqrt(2/n) var */
		zc = fabs(sc / cells - ec) / (sqrt(2.0 / cells) * ec);
		zs = fabs(ss / cells - es) / (sqrt(2.0 / cells) * es);
		printf("  gauss cell noise t=%u: %d nodes, count var %.1f (%.1f), sum var %.0f (%.0f)\n",
			   ts[a], nodes, sc / cells, ec, ss / cells, es);
		CHECK(zc < 5.0 && zs < 5.0, "t=%u: variances off (%.2f, %.2f se)", ts[a], zc, zs);
	}
	/* the same node keeps its draw: release 6 = [1,4] + [5,6], release 4 = [1,4] */
	{
		int64_t		r4[2],
					r6[2],
					r8[2],
					r14[2],
					r12[2];

		dpk_cell_noise_gauss(&s, &(DpkCellKey) {key, 3, 5}, 4,
							 &(DpkCellVars) {1, cv, sv, DPK_SUMS_VECTOR}, r4);
		dpk_cell_noise_gauss(&s, &(DpkCellKey) {key, 3, 5}, 6,
							 &(DpkCellVars) {1, cv, sv, DPK_SUMS_VECTOR}, r6);
		dpk_cell_noise_gauss(&s, &(DpkCellKey) {key, 3, 5}, 8,
							 &(DpkCellVars) {1, cv, sv, DPK_SUMS_VECTOR}, r8);
		dpk_cell_noise_gauss(&s, &(DpkCellKey) {key, 3, 5}, 12,
							 &(DpkCellVars) {1, cv, sv, DPK_SUMS_VECTOR}, r12);
		dpk_cell_noise_gauss(&s, &(DpkCellKey) {key, 3, 5}, 14,
							 &(DpkCellVars) {1, cv, sv, DPK_SUMS_VECTOR}, r14);
		/* [13,14] = r14 - r12 and [5,6] = r6 - r4 are different nodes; [9,12] = r12 - r8 */
		CHECK(r14[0] - r12[0] != r6[0] - r4[0] || r14[1] - r12[1] != r6[1] - r4[1],
			  "different nodes with equal draws");
		CHECK(r4[0] != r8[0] || r4[1] != r8[1], "[1,4] and [1,8] share a draw");
	}
	dpk_stream_close(&s);
}

/* delta = 0: the same families and draws as the pure code. */
static void
test_pure_unchanged(void)
{
	DpkLiveConfig cfg;
	DpkNoise	cn,
				sn;
	uint8_t		key[DPK_KEY_BYTES];
	DpkStream	s;
	int64_t		a[4],
				b[4];

	dpk_live_defaults(&cfg, 3, 4, 0.5, 1024, false);
	dpk_live_use_delta(&cfg, 0.0);
	CHECK(cfg.arity == dpk_tree_choose_arity(1024) && cfg.arity > 2,
		  "delta 0 changed the pure tree (arity %d)", cfg.arity);
	/* the binary tree of tables attached before the k-ary trees */
	cfg.arity = DPK_TREE_ARITY_BINARY;
	cn = dpk_live_count_noise(&cfg);
	sn = dpk_live_sum_noise(&cfg);
	CHECK(!cn.gauss && cn.lap.num == dpk_live_count_scale(&cfg).num &&
		  cn.lap.den == dpk_live_count_scale(&cfg).den && !sn.gauss &&
		  sn.lap.num == dpk_live_sum_scale(&cfg).num, "pure families changed");
	CHECK(cfg.sum_share == 0.5 && dpk_live_release_nodes(&cfg, 1023) == dpk_tree_nodes(1023),
		  "pure shares or decomposition changed");
	memset(&s, 0, sizeof(s));
	dpk_key_from_seed(5, key);
	dpk_live_cell_noise(&s, &(DpkCellKey) {key, 2, 9}, 1023,
						&(DpkCellNoise) {3, &cn, &sn, DPK_SUMS_VECTOR, false, 0}, a);
	dpk_cell_noise(&s, &(DpkCellKey) {key, 2, 9}, 1023,
				   &(DpkCellScales) {3, cn.lap, sn.lap, DPK_SUMS_VECTOR}, b);
	CHECK(memcmp(a, b, sizeof(a)) == 0, "pure draws changed");
	dpk_stream_close(&s);
}

/*
 * A Gaussian table's release: whatever the estimator (the least-squares one
 * by default), every cell of the noisy histogram and of the projected
 * statistics carries exactly dpk_live_cell_noise's plain-decomposition draw,
 * and the variances the release plans with are popcount(t) node variances.
 */
static void
test_release_path(void)
{
	DpkLiveConfig cfg,
				pcfg;
	DpkNoise	cn,
				sn,
				nn;
	DpkCellMap	empty;
	DpkDenseHist h;
	uint8_t		key[DPK_KEY_BYTES];
	DpkStream	s,
				r;
	int64_t		a[1 + 16];
	double	   *count,
			   *sum,
				sumnorm;
	uint64_t	c,
				ncells,
				total;
	uint32_t	t;
	int			j,
				same = 1,
				var_ok = 1;

	dpk_key_from_seed(11, key);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	dpk_live_defaults(&cfg, 2, 4, 1.0, 16, false);
	dpk_live_use_delta(&cfg, 1e-6);
	cfg.level = 3;
	CHECK(cfg.estimator != DPK_TREE_SIGNED, "default estimator is the signed one");
	CHECK(cfg.arity == DPK_TREE_ARITY_BINARY, "Gaussian table on a %d-ary tree", cfg.arity);
	cn = dpk_live_count_noise(&cfg);
	sn = dpk_live_sum_noise(&cfg);
	for (t = 1; t <= 16; t++)
	{
		double		want = dpk_noise_variance(&cn, 0) * __builtin_popcount(t);

		if (dpk_live_tree_norm2(&cfg, t) != __builtin_popcount(t) ||
			fabs(dpk_live_count_variance(&cfg, 3, t) - want) > 1e-9 * want)
			var_ok = 0;
	}
	CHECK(var_ok, "Gaussian release variance is not popcount(t) node variances");

	dpk_cellmap_init(&empty, 2);
	dpk_live_noisy_histogram(&cfg, key, &empty, 7, &s, &h);
	for (c = 0; c < h.ncells; c++)
	{
		dpk_live_cell_noise(&r, &(DpkCellKey) {key, 3, c}, 7,
							&(DpkCellNoise) {2, &cn, &sn, DPK_SUMS_VECTOR, false, 0}, a);
		same = same && h.count[c] == a[0];
		for (j = 0; j < 2; j++)
			same = same && h.sum[c * 2 + j] == a[1 + j] + a[0] * DPK_REL_CENTRE;
	}
	CHECK(same, "Gaussian histogram noise is not the plain decomposition's");
	dpk_hist_free(&h);
	dpk_cellmap_free(&empty);

	dpk_live_defaults(&pcfg, 12, 4, 1.0, 16, false);
	dpk_live_use_projection(&pcfg, 99);
	dpk_live_use_delta(&pcfg, 1e-6);
	pcfg.level = 1;
	cn = dpk_live_count_noise(&pcfg);
	sn = dpk_live_sum_noise(&pcfg);
	nn = dpk_live_norm_noise(&pcfg);
	ncells = dpk_live_copy_cells(&pcfg);
	total = (uint64_t) pcfg.copies * ncells;
	count = dpk_alloc(total * sizeof(double));
	sum = dpk_alloc(total * 12 * sizeof(double));
	dpk_cellmap_init(&empty, 12);
	dpk_live_noisy_projected(&pcfg, key, &empty, 13, &s, count, sum, &sumnorm);
	same = 1;
	for (c = 0; c < total; c++)
	{
		dpk_live_cell_noise(&r,
							&(DpkCellKey) {key, pcfg.level + 32 * (int) (c / ncells), c % ncells},
							13, &(DpkCellNoise) {12, &cn, &sn, DPK_SUMS_VECTOR, false, 0},
							a);
		same = same && count[c] == (double) a[0];
		for (j = 0; j < 12; j++)
			same = same && sum[c * 12 + j] == (double) a[1 + j];
	}
	dpk_live_cell_noise(&r, &(DpkCellKey) {key, 255, 0}, 13,
						&(DpkCellNoise) {0, &nn, &cn, DPK_SUMS_NONE, false, 0}, a);
	CHECK(same && sumnorm == (double) a[0],
		  "Gaussian projected noise is not the plain decomposition's");
	dpk_cellmap_free(&empty);
	dpk_free(count);
	dpk_free(sum);
	dpk_stream_close(&s);
	dpk_stream_close(&r);
}

/* An in-process stand-in for the release's parallel workers. */
static int64_t *split_buf;

/* Draw cells total / 3 .. total - 1 "elsewhere": here, into split_buf. */
static void *
split_begin(const DpkLiveConfig *cfg, const uint8_t *reach, const uint8_t key[DPK_KEY_BYTES],
			uint32_t t, bool sums, uint64_t total, uint64_t *split)
{
	int			w = 1 + (sums ? cfg->d : 0);

	*split = total / 3;
	split_buf = dpk_alloc((total - *split) * w * sizeof(int64_t));
	dpk_live_projected_noise_range(cfg, reach, key, t, sums, *split, total, split_buf);
	return split_buf;
}

static const int64_t *
split_finish(void *h)
{
	return h;
}

static void
split_end(void *h)
{
	dpk_free(h);
}

static const DpkNoiseSplit test_split = {split_begin, split_finish, split_end};

/*
 * A Gaussian projected release with part of its noise drawn elsewhere
 * (dpk_live_noise_split) publishes the serial release's values bit for
 * bit: plain and square-root counts, with and without a reach mask and
 * sums, on a state with rows.
 */
static void
test_noise_split(void)
{
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s;
	DpkLiveConfig cfg;
	DpkCellMap	state;
	int			variant;

	dpk_key_from_seed(31, key);
	dpk_stream_open(&s, key, nonce);
	for (variant = 0; variant < 4; variant++)
	{
		uint64_t	total,
					c;
		double	   *count[2],
				   *sum[2],
					norm[2];
		uint8_t    *reach;
		int64_t		rel[12];
		int			run,
					j;
		bool		same = true;

		dpk_live_defaults(&cfg, 12, 4, 1.0, 16, false);
		dpk_live_use_projection(&cfg, 5);
		dpk_live_use_delta(&cfg, 1e-6);
		cfg.level = 1;
		if (variant & 1)
			cfg.counter = DPK_LIVE_COUNTER_SQRT;
		total = (uint64_t) cfg.copies * dpk_live_copy_cells(&cfg);
		dpk_cellmap_init(&state, 12);
		for (c = 0; c < total; c += 3)
		{
			for (j = 0; j < 12; j++)
				rel[j] = (int64_t) (c * 31 + j) % 1000;
			dpk_cellmap_add_point(&state, c, rel, 1);
		}
		reach = dpk_alloc(total);
		for (c = 0; c < total; c++)
			reach[c] = (variant & 2) ? (c % 5 != 0) : 1;
		for (run = 0; run < 2; run++)
		{
			count[run] = dpk_alloc(total * sizeof(double));
			sum[run] = dpk_alloc(total * 12 * sizeof(double));
			dpk_live_noise_split = run ? &test_split : NULL;
			dpk_live_noisy_projected_reach(&cfg, reach, key, &state, 7, &s, count[run],
										   (variant & 2) ? NULL : sum[run], &norm[run]);
		}
		dpk_live_noise_split = NULL;
		for (c = 0; c < total; c++)
		{
			same = same && count[0][c] == count[1][c];
			for (j = 0; !(variant & 2) && j < 12; j++)
				same = same && sum[0][c * 12 + j] == sum[1][c * 12 + j];
		}
		CHECK(same && norm[0] == norm[1],
			  "variant %d: noise drawn elsewhere differs from the serial release's", variant);
		for (run = 0; run < 2; run++)
		{
			dpk_free(count[run]);
			dpk_free(sum[run]);
		}
		dpk_free(reach);
		dpk_cellmap_free(&state);
	}
	dpk_stream_close(&s);
}

/*
 * A projected Gaussian table at d = 384, epsilon 1: the smallest shift of
 * the norm counter's unit that represents its variance.
 */
static void
shift_config(DpkLiveConfig *cfg, int d, double eps, uint32_t T, bool insert_only)
{
	dpk_live_defaults(cfg, d, 10, eps, T, insert_only);
	dpk_live_use_projection(cfg, 7);
	dpk_live_use_delta(cfg, 1e-6);
	cfg->level = 1;
	dpk_live_use_norm_shift(cfg);
}

/*
 * The norm counter's unit (dpk_live_use_norm_shift): 0 wherever the unit
 * step was representable (no table attached before changes), the smallest
 * shift that represents it at d = 384 and 1536, rho still spent exactly, one
 * row's contribution within the sensitivity, and a release that scales the
 * counter back (a capture that forgot the shift, or a release that forgot to
 * undo it, is off by 2^s).
 */
static void
test_norm_shift(void)
{
	static const int ds[] = {16, 64, 128};
	static const double epss[] = {0.5, 1.0, 4.0};
	DpkLiveConfig cfg,
				prev;
	double		v[3],
				l2sq[3],
				largest,
				rho = 0.0;
	size_t		a,
				b;
	int			i,
				dd,
				ok = 1;

	for (a = 0; a < sizeof(ds) / sizeof(ds[0]); a++)
		for (b = 0; b < sizeof(epss) / sizeof(epss[0]); b++)
		{
			shift_config(&cfg, ds[a], epss[b], 1024, false);
			prev = cfg;
			prev.norm_shift = 0;
			if (dpk_live_scales_representable(&prev, &largest))
				ok = ok && cfg.norm_shift == 0;
			else
				ok = ok && cfg.norm_shift > 0 && dpk_live_scales_representable(&cfg, &largest);
		}
	/* pure tables never shift, at any d */
	dpk_live_defaults(&cfg, 384, 10, 1.0, 16, false);
	dpk_live_use_projection(&cfg, 7);
	dpk_live_use_norm_shift(&cfg);
	ok = ok && cfg.norm_shift == 0;
	CHECK(ok, "norm counter: a unit shift where unit steps were representable, on a pure table, "
		  "or none where they were not");

	for (dd = 384; dd <= 1536; dd *= 4)
	{
		shift_config(&cfg, dd, 1.0, 16, false);
		prev = cfg;
		prev.norm_shift = cfg.norm_shift - 1;
		CHECK(cfg.norm_shift > 0 && dpk_live_scales_representable(&cfg, &largest) &&
			  !dpk_live_scales_representable(&prev, &largest),
			  "d=%d: norm shift %d is not the smallest representable one", dd, cfg.norm_shift);
		dpk_live_gauss_vars(&cfg, v);
		dpk_live_l2sq(&cfg, l2sq);
		rho = 0.0;
		for (i = 0; i < 3; i++)
			rho += l2sq[i] / (2.0 * v[i]);
		CHECK(fabs(rho - dpk_live_rho(&cfg)) <= 1e-12 * rho,
			  "d=%d: shifted families spend rho %.15g of %.15g", dd, rho, dpk_live_rho(&cfg));
	}

	/* a corner row (the largest ||q||^2) and a release from a known state */
	{
		int			d = 384;
		DpkCellMap	state;
		DpkStream	s,
					r;
		uint8_t		key[DPK_KEY_BYTES];
		double	   *u = dpk_alloc(d * sizeof(double)),
				   *t,
				   *count,
				   *sum,
					sumnorm,
					truth = 0.0,
					bound;
		int64_t		q[384],
					stored,
					noise[1];
		uint64_t	total;
		DpkNoise	nn,
					cn;
		int			n,
					j;

		shift_config(&cfg, d, 1.0, 16, false);
		t = dpk_alloc((size_t) cfg.dhat * cfg.copies * sizeof(double));
		for (j = 0; j < cfg.dhat * cfg.copies; j++)
			t[j] = 0.5;
		dpk_cellmap_init(&state, d);
		for (j = 0; j < d; j++)
			u[j] = 1.0;
		dpk_live_add_projected(&cfg, &state, u, t, +1);
		stored = dpk_cellmap_get(&state, DPK_LIVE_NORM_CELL(&cfg))[0];
		bound = dpk_live_norm_point(&cfg);
		CHECK(stored > 0 && (double) stored <= bound &&
			  stored == (dpk_lift_quantize(d, u, q) + (1 << (cfg.norm_shift - 1))) >> cfg.norm_shift,
			  "corner row adds %lld to the norm counter, bound %g", (long long) stored, bound);
		dpk_live_add_projected(&cfg, &state, u, t, -1);
		/* 200 rows of varied norms */
		for (n = 0; n < 200; n++)
		{
			for (j = 0; j < d; j++)
				u[j] = (double) ((n * 37 + j * 11) % 101) / 100.0;
			truth += (double) dpk_lift_quantize(d, u, q);
			dpk_live_add_projected(&cfg, &state, u, t, +1);
		}
		dpk_key_from_seed(12, key);
		memset(&s, 0, sizeof(s));
		memset(&r, 0, sizeof(r));
		total = (uint64_t) cfg.copies * dpk_live_copy_cells(&cfg);
		count = dpk_alloc(total * sizeof(double));
		sum = dpk_alloc(total * d * sizeof(double));
		dpk_live_noisy_projected(&cfg, key, &state, 5, &s, count, sum, &sumnorm);
		nn = dpk_live_norm_noise(&cfg);
		cn = dpk_live_count_noise(&cfg);
		noise[0] = 0;
		dpk_live_cell_noise(&r, &(DpkCellKey) {key, 255, 0}, 5,
							&(DpkCellNoise) {0, &nn, &cn, DPK_SUMS_NONE, false, 0}, noise);
		CHECK(fabs(sumnorm - ldexp((double) noise[0], cfg.norm_shift) - truth) <=
			  200.0 * ldexp(0.5, cfg.norm_shift),
			  "released sum of squared norms %.0f - noise is not the truth %.0f (shift %d)",
			  sumnorm - ldexp((double) noise[0], cfg.norm_shift), truth, cfg.norm_shift);
		dpk_stream_close(&s);
		dpk_stream_close(&r);
		dpk_cellmap_free(&state);
		dpk_free(count);
		dpk_free(sum);
		dpk_free(t);
		dpk_free(u);
	}
}

/*
 * The counter a new Gaussian table gets (dpk_live_use_counter): the square
 * root at the tree's level when its draws fit; one level coarser when only
 * that fits (and keeps 1 024 cells, 256 without projections); the tree when nothing fits, for
 * projected tables and for pure ones; forced, the square root at its own
 * level whatever its draws.
 */
static void
test_counter_choice(void)
{
	static const struct
	{
		int			d;
		double		n;
		uint32_t	T;
		double		delta;
		bool		forced;
		int			counter;
		int			level_change;	/* against the tree's level */
	}			cases[] = {
		{2, 1e5, 16, 1e-6, false, DPK_LIVE_COUNTER_SQRT, -1},	/* doc/decisions/076 */
		{2, 1e5, 1024, 1e-6, false, DPK_LIVE_COUNTER_TREE, 0},
		{5, 1e5, 16, 1e-6, false, DPK_LIVE_COUNTER_SQRT, -1},
		{5, 1e5, 365, 1e-6, false, DPK_LIVE_COUNTER_TREE, 0},
		{2, 1e5, 16, 0.0, false, DPK_LIVE_COUNTER_TREE, 0},
		{5, 1e5, 365, 1e-6, true, DPK_LIVE_COUNTER_SQRT, 0},
		/* low d: one level coarser to 256 cells, not the tree (doc/decisions/068) */
		{2, 1e5, 256, 1e-6, false, DPK_LIVE_COUNTER_SQRT, -1},
		{3, 1e5, 64, 1e-6, false, DPK_LIVE_COUNTER_SQRT, -1},
		{3, 1e5, 256, 1e-6, false, DPK_LIVE_COUNTER_SQRT, -1},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		DpkLiveConfig cfg;
		int			tree_level;

		dpk_live_defaults(&cfg, cases[c].d, 8, 1.0, cases[c].T, false);
		dpk_live_use_delta(&cfg, cases[c].delta);
		cfg.level = dpk_live_choose_level(&cfg, cases[c].n, 4194304.0);
		tree_level = cfg.level;
		dpk_live_use_counter(&cfg, NULL, cases[c].n, 4194304.0, cases[c].forced);
		CHECK(cfg.counter == cases[c].counter &&
			  (cases[c].forced || cfg.level - tree_level == cases[c].level_change) &&
			  (cases[c].forced || cfg.counter == DPK_LIVE_COUNTER_TREE ||
			   dpk_live_sqrt_draws(&cfg) <= DPK_LIVE_SQRT_MAX_DRAWS),
			  "counter choice %zu: counter %d level %d (tree's %d), draws %.0f", c,
			  cfg.counter, cfg.level, tree_level, dpk_live_sqrt_draws(&cfg));
	}
	/*
	 * Projected tables: the square root for counts and sums when 2 T cells
	 * (1 + d) fit DPK_LIVE_SQRT_SUMS_MAX_DRAWS at the tree's level, else
	 * for the counts when 2 T cells fit the draws (at the tree's level,
	 * never finer; coarser only to 1 024 cells a copy), whatever d and the
	 * norm counter's unit; else the tree.
	 */
	{
		static const struct
		{
			int			d;
			double		n;
			uint32_t	T;
			int			level;
			int			counter;
			int			want_level;
		}			pcases[] = {
			{16, 1e5, 16, 2, DPK_LIVE_COUNTER_SQRT_SUMS, 2},	/* 2.2 M draws */
			{64, 1e5, 64, 2, DPK_LIVE_COUNTER_SQRT_LIFTED, 2},	/* every cell's sums 34 M */
			{384, 5e4, 16, 2, DPK_LIVE_COUNTER_SQRT_LIFTED, 2},	/* norm_shift > 0 */
			{384, 5e4, 256, 2, DPK_LIVE_COUNTER_TREE, 2},	/* the lifted cells' cap below 256 */
			{16, 1e5, 256, 2, DPK_LIVE_COUNTER_TREE, 2},	/* 2^21 draws, 64 cells below */
			{16, 1e5, 1024, 2, DPK_LIVE_COUNTER_TREE, 2},
			{16, 1e5, 16, 1, DPK_LIVE_COUNTER_SQRT_SUMS, 1},	/* never finer than the tree's */
			{64, 1e5, 16, 2, DPK_LIVE_COUNTER_SQRT_SUMS, 2},	/* 8.5 M draws */
		};

		for (size_t c = 0; c < sizeof(pcases) / sizeof(pcases[0]); c++)
		{
			DpkLiveConfig cfg,
						tree;

			dpk_live_defaults(&cfg, pcases[c].d, 10, 1.0, pcases[c].T, true);
			dpk_live_use_projection(&cfg, 7);
			dpk_live_use_delta(&cfg, 1e-6);
			cfg.level = pcases[c].level;
			tree = cfg;
			dpk_live_use_norm_shift(&tree);
			dpk_live_use_counter(&cfg, NULL, pcases[c].n, 4194304.0, false);
			dpk_live_use_norm_shift(&cfg);
			CHECK(cfg.counter == pcases[c].counter && cfg.level == pcases[c].want_level &&
				  cfg.norm_shift == tree.norm_shift &&
				  (cfg.counter == DPK_LIVE_COUNTER_TREE ||
				   dpk_live_sqrt_draws(&cfg) == 2.0 * cfg.horizon *
				   (cfg.counter == DPK_LIVE_COUNTER_SQRT_LIFTED
					? dpk_live_copy_cells(&cfg) + dpk_live_lifted_cap(&cfg) * cfg.d
					: dpk_live_copy_cells(&cfg) *
					(cfg.counter == DPK_LIVE_COUNTER_SQRT_SUMS ? 1.0 + cfg.d : 1.0))),
				  "projected counter choice %zu (d = %d, T = %u): counter %d level %d, "
				  "norm shift %d (tree's %d), draws %.0f", c, pcases[c].d, pcases[c].T,
				  cfg.counter, cfg.level, cfg.norm_shift, tree.norm_shift,
				  dpk_live_sqrt_draws(&cfg));
		}
	}
}

/*
 * A low-d table on the square root counts one level below RUGNIK's level
 * for its noise, not below 64 cells (doc/decisions/076): one below the
 * Gaussian tree's, or at the tree's where that is already coarser; the
 * tree's own level is unchanged.
 */
static void
test_sqrt_lowd_level(void)
{
	static const struct
	{
		int			d;
		double		n;
		uint32_t	T;
		double		eps;
		int			tree_level;
		int			sqrt_level;
	}			cases[] = {
		{2, 1e4, 16, 1.0, 4, 3}, {2, 1e4, 64, 0.5, 3, 3}, {2, 1e5, 64, 1.0, 5, 4},
		{3, 1e4, 256, 0.5, 2, 2}, {3, 1e4, 256, 1.0, 3, 2}, {3, 1e5, 16, 0.5, 4, 3},
		/* not below 64 cells: 16 lost at d = 4 */
		{4, 1e4, 16, 1.0, 2, 2}, {4, 1e4, 16, 0.5, 2, 2},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		DpkLiveConfig tree,
					root;

		dpk_live_defaults(&tree, cases[c].d, 6, cases[c].eps, cases[c].T, true);
		dpk_live_use_delta(&tree, 1e-6);
		tree.level = dpk_live_choose_level(&tree, cases[c].n, 4194304.0);
		root = tree;
		dpk_live_use_counter(&root, NULL, cases[c].n, 4194304.0, false);
		CHECK(tree.level == cases[c].tree_level && root.counter == DPK_LIVE_COUNTER_SQRT &&
			  root.level == cases[c].sqrt_level,
			  "low-d square-root level %zu: tree %d, square root %d (counter %d)", c,
			  tree.level, root.level, root.counter);
	}
}

int
main(void)
{
	printf("test_live_gauss:\n");
	test_binary_decomposition();
	test_sensitivities();
	test_composition();
	test_cell_noise_gauss();
	test_pure_unchanged();
	test_release_path();
	test_norm_shift();
	test_counter_choice();
	test_sqrt_lowd_level();
	test_noise_split();
	UNIT_DONE("test_live_gauss");
}
