/*
 * test_objective.c
 *		The objective of a release (k-means or k-median) in both pipelines:
 *		the default stays k-means with exactly the outputs of the library
 *		before k-median existed, and k-median is post-processing of the same
 *		noisy histogram.
 *
 * The pinned digests were printed (DPK_OBJECTIVE_PRINT=1) by this program
 * built with -DDPK_OBJECTIVE_PRE_KMEDIAN against the sources of the commit
 * before k-median was added (d46b0bb), on the same fixed keys and data; any
 * change to the default path's draws, level choice or k-means changes them.
 * PIN_LIVE was printed again when 0.3 changed the low-d live release on
 * purpose (sums 30 % of epsilon for d <= 2, the proxy's shrunk in-cell
 * means, the low threshold candidate; doc/benchmarks.md, "Continual
 * counter"): k-median still leaves it unchanged.  PIN_LOWD was printed
 * again when 0.7 added the sub-threshold mass from coarser blocks to the
 * one-shot coreset on purpose (record 024); with that step switched off
 * (cfg.residual = false) the one-shot gives the earlier digest
 * 0x3D1EF25740979BB1.  PIN_LIVE was printed again when 0.8 screened the
 * live release's k-means restarts and kept the level choice's centres for
 * k' = k on purpose (record 034); before, 0x1DBB41B80FF5F8F7.  PIN_LOWD
 * was printed again when the 2-d one-shot's centres took Lloyd updates on
 * the noisy histogram and a second candidate (record 055); with
 * cfg.refine_iter = 0 it gives the digest before, 0xC33BCFE1B231F6E1.
 * PIN_LOWD was printed again when Lloyd's iterations in low dimension
 * moved to a kd-tree (record 071), which sums the centres in another
 * order; with the point-by-point passes (dpk_kmeans_filter = false) the
 * one-shot still gives the digest before, PIN_LOWD_POINTWISE, checked
 * here too.  PIN_LIVE's tables draw their sums' noise from the cell's
 * corner, as tables attached before trigger format 5 do.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coreset.h"
#include "dpk_mem.h"
#include "grid.h"
#include "live_core.h"
#include "lowd.h"
#include "noise.h"
#include "tree_estimator.h"
#include "unit.h"
#include "unit_stream.h"
#ifndef DPK_OBJECTIVE_PRE_KMEDIAN
#include "kmeans.h"
#include "kmedian.h"
#endif

/*
 * Digests of the default (k-means) outputs before k-median existed; the
 * one-shot's since its 2-d centres take Lloyd updates on the noisy
 * histogram, and a second candidate (record 055), and since Lloyd's passes
 * run on a kd-tree (record 071; point by point, the digest of 055).
 */
#define PIN_LOWD	UINT64_C(0x2DA20CB413B2518E)
#define PIN_LOWD_POINTWISE	UINT64_C(0x9E619D58E451016D)
#define PIN_LIVE	UINT64_C(0x8C8813D07E294367)

static uint64_t data_state = UINT64_C(0x1234567);

/* FNV-1a over the bytes of n doubles, chained through h. */
static uint64_t
digest(uint64_t h, const double *v, size_t n)
{
	const unsigned char *p = (const unsigned char *) v;
	size_t		i;

	for (i = 0; i < n * sizeof(double); i++)
	{
		h ^= p[i];
		h *= UINT64_C(0x100000001B3);
	}
	return h;
}

/* Skewed 2-d data: three clusters of unequal size with heavy tails. */
static double *
make_points(size_t n)
{
	double	   *x = dpk_alloc(n * 2 * sizeof(double));
	static const double c[3][2] = {{25, 30}, {70, 65}, {40, 80}};
	size_t		i;

	for (i = 0; i < n; i++)
	{
		int			g = i % 10 < 6 ? 0 : (i % 10 < 9 ? 1 : 2);
		int			t;

		for (t = 0; t < 2; t++)
		{
			double		u = unit_uniform(&data_state);
			double		v = tan(M_PI * (u - 0.5)) * 2.0;

			x[i * 2 + t] = fmin(100.0, fmax(0.0, c[g][t] + fmax(-30.0, fmin(30.0, v))));
		}
	}
	return x;
}

/*
 * One-shot low-d release on a fixed key (objective < 0: the default);
 * returns the digest of its output.
 */
static uint64_t
run_lowd(const DpkBox *box, const double *x, size_t n, int objective, DpkOneshotResult *res)
{
	DpkLowdConfig cfg;
	DpkStream	s;
	uint64_t	h = UINT64_C(0xCBF29CE484222325);
	double		meta[3];

	dpk_lowd_defaults(&cfg, 1.0, 3);
#ifndef DPK_OBJECTIVE_PRE_KMEDIAN
	if (objective >= 0)
		cfg.objective = (DpkObjective) objective;
#else
	(void) objective;
#endif
	unit_open_stream(&s, 99);
	dpk_lowd_cluster(box, x, n, &cfg, &s, res);
	dpk_stream_close(&s);
	meta[0] = res->noisy_n;
	meta[1] = res->cells_per_dim;
	meta[2] = res->coreset_size;
	h = digest(h, meta, 3);
	h = digest(h, res->centers, 3 * 2);
	return digest(h, res->sizes, 3);
}

#ifndef DPK_OBJECTIVE_PRE_KMEDIAN
/*
 * A live k-median release's private cost curve is measured on every
 * counted cell (raw noisy count) at its shrunk noisy mean, spread over its
 * cell as the coreset is: recomputed here from the exported pieces.
 */
static void
check_kmedian_cost_points(const DpkLiveConfig *cfg, const DpkBox *box,
						  const DpkDenseHist *hist, uint32_t t, const DpkLiveRelease *rel)
{
	double	   *ref = dpk_live_cell_refs(cfg, box, hist, t);
	double	   *pts = malloc(sizeof(double) * hist->ncells * 2);
	double	   *wts = malloc(sizeof(double) * hist->ncells);
	DpkCoreset	cells = {2, 0, pts, wts},
				spread;
	uint64_t	c;
	int			kp,
				q,
				i;

	for (c = 0; c < hist->ncells; c++)
		if (hist->count[c] != 0)
		{
			pts[cells.n * 2] = ref[c * 2];
			pts[cells.n * 2 + 1] = ref[c * 2 + 1];
			wts[cells.n++] = (double) hist->count[c];
		}
	dpk_live_kmedian_spread(&cells, box, cfg->level, &spread);
	for (kp = 1; kp <= cfg->k; kp++)
	{
		const double *ctr = rel->kmed_centers + dpk_live_block(kp) * 2;
		double		cost = 0.0;

		for (q = 0; q < spread.n; q++)
		{
			double		best = INFINITY;

			for (i = 0; i < kp; i++)
				best = fmin(best, hypot(spread.points[q * 2] - ctr[i * 2],
										spread.points[q * 2 + 1] - ctr[i * 2 + 1]));
			cost += spread.weights[q] * best;
		}
		cost = fmax(cost, 0.0);
		CHECK(fabs(cost - rel->kmed_costs[kp - 1]) <= 1e-9 * fmax(cost, 1.0),
			  "k' = %d: private k-median cost %g, on the spread counted cells %g", kp,
			  rel->kmed_costs[kp - 1], cost);
	}
	dpk_coreset_free(&spread);
	free(pts);
	free(wts);
	dpk_free(ref);
}
#endif

/* Live release 3 of a table holding x on a fixed key; digest of its output. */
static uint64_t
run_live(const DpkBox *box, const double *x, size_t n, DpkLiveRelease *rel, bool kmedian,
		 int estimator, int arity)
{
	DpkLiveConfig cfg;
	DpkCellMap	state;
	DpkDenseHist hist;
	DpkStream	s;
	uint8_t		key[DPK_KEY_BYTES];
	uint64_t	h = UINT64_C(0xCBF29CE484222325),
				seed;
	double		meta[3];
	size_t		i;

	dpk_live_defaults(&cfg, 2, 4, 1.0, 64, false);
	if (estimator >= 0)
		cfg.estimator = estimator;
	if (arity >= 2)
		cfg.arity = arity;
	/* tables attached before trigger format 5 draw their sums from the corner */
	cfg.centred_offsets = false;
	cfg.level = dpk_live_choose_level(&cfg, (double) n, 4194304.0);
	dpk_cellmap_init(&state, 2);
	for (i = 0; i < n; i++)
	{
		double		u[2];
		int64_t		idx[2],
					relv[2];
		uint64_t	cell;

		dpk_box_normalize(box, x + i * 2, u);
		cell = dpk_grid_cell(2, 1 << cfg.level, u, idx, relv);
		dpk_cellmap_add_point(&state, cell, relv, +1);
	}
	dpk_key_from_seed(7, key);
	unit_open_stream(&s, 8);
	dpk_live_noisy_histogram(&cfg, key, &state, 3, &s, &hist);
	seed = dpk_stream_u64(&s);
	dpk_live_cluster(&cfg, box, &hist, 3, seed, rel);
#ifndef DPK_OBJECTIVE_PRE_KMEDIAN
	if (kmedian)
	{
		dpk_live_kmedian(&cfg, box, &hist, 3, seed, rel);
		check_kmedian_cost_points(&cfg, box, &hist, 3, rel);
	}
#else
	(void) kmedian;
#endif
	dpk_stream_close(&s);
	meta[0] = rel->level;
	meta[1] = rel->noisy_n;
	meta[2] = rel->coreset_size;
	h = digest(h, meta, 3);
	h = digest(h, rel->centers, (size_t) dpk_live_block(5) * 2);
	h = digest(h, rel->sizes, (size_t) dpk_live_block(5));
	h = digest(h, rel->costs, 4);
	dpk_hist_free(&hist);
	dpk_cellmap_free(&state);
	return h;
}

#ifndef DPK_OBJECTIVE_PRE_KMEDIAN
/* Naive k-median cost of k centres on the true points. */
static double
true_kmedian_cost(const double *x, size_t n, const double *c, int k)
{
	double		s = 0.0;
	size_t		i;
	int			j;

	for (i = 0; i < n; i++)
	{
		double		best = INFINITY;

		for (j = 0; j < k; j++)
			best = fmin(best, hypot(x[i * 2] - c[j * 2], x[i * 2 + 1] - c[j * 2 + 1]));
		s += best;
	}
	return s;
}

/*
 * One-shot: k-median sees the same noisy histogram as k-means (same noisy
 * N, grid and coreset) and its centres cost less on the true rows for the
 * sum of distances (heavy tails pull the means away from the medians).
 */
static void
test_kmedian_lowd(const DpkBox *box, const double *x, size_t n)
{
	DpkOneshotResult km,
				kmed;
	double		ckm,
				ckmed,
				tot = 0.0,
				tot_km = 0.0;
	int			j;

	run_lowd(box, x, n, DPK_OBJECTIVE_KMEANS, &km);
	run_lowd(box, x, n, DPK_OBJECTIVE_KMEDIAN, &kmed);
	CHECK(km.noisy_n == kmed.noisy_n && km.cells_per_dim == kmed.cells_per_dim &&
		  km.coreset_size == kmed.coreset_size, "k-median saw another histogram");
	ckm = true_kmedian_cost(x, n, km.centers, 3);
	ckmed = true_kmedian_cost(x, n, kmed.centers, 3);
	CHECK(ckmed < ckm, "one-shot k-median cost %g not below k-means centres' %g", ckmed, ckm);
	/* both objectives share out the same coreset weight */
	for (j = 0; j < 3; j++)
	{
		tot += kmed.sizes[j];
		tot_km += km.sizes[j];
	}
	CHECK(fabs(tot - tot_km) < 1e-9 * tot_km && tot > 0.9 * kmed.noisy_n,
		  "k-median sizes sum %g, k-means %g, noisy n %g", tot, tot_km, kmed.noisy_n);
	dpk_oneshot_result_free(&km);
	dpk_oneshot_result_free(&kmed);
}

/*
 * Live: dpk_live_kmedian leaves the k-means part untouched (same digest),
 * fills every k' block, its cost curve does not increase with k', its
 * centres for k beat the k-means ones for the sum of distances on the true
 * rows (the level is chosen for k), and its private cost curve is within
 * the noise of the true costs.
 */
static void
test_kmedian_live(const DpkBox *box, const double *x, size_t n, int estimator, int arity)
{
	DpkLiveRelease rel,
				again;
	uint64_t	h = run_live(box, x, n, &rel, true, estimator, arity);
	uint64_t	h_kmeans = run_live(box, x, n, &again, false, estimator, arity);
	int			kp;

	dpk_live_release_free(&again);
	CHECK(h == h_kmeans, "k-median changed the k-means part of a release");
	CHECK(rel.kmed_centers && rel.kmed_sizes && rel.kmed_costs, "no k-median arrays");
	for (kp = 2; kp <= 4; kp++)
		CHECK(rel.kmed_costs[kp - 1] <= rel.kmed_costs[kp - 2] * (1 + 1e-9),
			  "k-median cost curve rises at k' = %d: %g > %g", kp, rel.kmed_costs[kp - 1],
			  rel.kmed_costs[kp - 2]);
	CHECK(rel.kmed_costs[0] > 0.0, "k-median cost of k' = 1 is %g", rel.kmed_costs[0]);
	for (kp = 1; kp <= 4; kp++)
	{
		double		ckm = true_kmedian_cost(x, n, rel.centers + dpk_live_block(kp) * 2, kp);
		double		ckmed = true_kmedian_cost(x, n, rel.kmed_centers + dpk_live_block(kp) * 2, kp);

		CHECK(kp < 4 || ckmed < ckm, "k' = %d: live k-median cost %g not below k-means centres' %g",
			  kp, ckmed, ckm);
		/*
		 * Within 25 % at the level the signed counter picks; the
		 * least-squares counter picks a coarser level, where the in-cell
		 * spread term overstates the cost at small k' (measured 27 % at
		 * k' = 2): only the direction is checked there.
		 */
		if (estimator == DPK_TREE_SIGNED)
			CHECK(fabs(rel.kmed_costs[kp - 1] - ckmed) < 0.25 * ckmed,
				  "k' = %d: private k-median cost %g, true %g", kp, rel.kmed_costs[kp - 1], ckmed);
		else
			CHECK(rel.kmed_costs[kp - 1] > 0.75 * ckmed,
				  "k' = %d: private k-median cost %g, true %g", kp, rel.kmed_costs[kp - 1], ckmed);
	}
	/* the same release number gives the same answer */
	run_live(box, x, n, &again, true, estimator, arity);
	CHECK(memcmp(again.kmed_centers, rel.kmed_centers,
				 sizeof(double) * dpk_live_block(5) * 2) == 0 &&
		  memcmp(again.kmed_costs, rel.kmed_costs, sizeof(double) * 4) == 0,
		  "k-median of one release differs between two runs");
	dpk_live_release_free(&rel);
	dpk_live_release_free(&again);
}
#endif

#ifndef DPK_OBJECTIVE_PRE_KMEDIAN
/*
 * dpk_live_kmedian_spread: 6 x 6 sub-points per coreset point at d = 2,
 * weights summing to its weight, centred on it (mean kept), and reaching in
 * each dimension exactly to 5/6 of the distance to the nearer edge of its
 * cell, never outside the cell; a point on a cell edge or the box's upper
 * edge is not spread.
 */
static void
test_kmedian_spread(const DpkBox *box)
{
	/* level 2: cells 25 wide; (30, 60) is 5 from x = 25 and 10 from y = 50 */
	double		pts[8] = {30, 60, 37.5, 62.5, 50, 50, 100, 100};
	double		wts[4] = {36, 72, 18, 9};
	double		half[8] = {5, 10, 12.5, 12.5, 0, 0, 0, 0};
	DpkCoreset	cs = {2, 4, pts, wts},
				out;
	int			i,
				q,
				j;

	dpk_live_kmedian_spread(&cs, box, 2, &out);
	CHECK(out.n == 4 * 36 && out.d == 2, "spread gave %d points, not 36 per point", out.n);
	for (i = 0; i < 4 && out.n == 4 * 36; i++)
	{
		double		wsum = 0.0,
					mean[2] = {0, 0},
					mn[2] = {INFINITY, INFINITY},
					mx[2] = {-INFINITY, -INFINITY};

		for (q = 0; q < 36; q++)
		{
			double		w = out.weights[i * 36 + q];

			wsum += w;
			for (j = 0; j < 2; j++)
			{
				double		v = out.points[(i * 36 + q) * 2 + j];

				mean[j] += w * v;
				mn[j] = fmin(mn[j], v);
				mx[j] = fmax(mx[j], v);
			}
		}
		CHECK(fabs(wsum - wts[i]) < 1e-9, "point %d: spread weight %g, not %g", i, wsum, wts[i]);
		for (j = 0; j < 2; j++)
		{
			double		c = pts[i * 2 + j],
						reach = half[i * 2 + j] * 5.0 / 6.0;

			CHECK(fabs(mean[j] / wsum - c) < 1e-9, "point %d: spread mean %g, not %g", i,
				  mean[j] / wsum, c);
			CHECK(fabs(mn[j] - (c - reach)) < 1e-9 && fabs(mx[j] - (c + reach)) < 1e-9,
				  "point %d dim %d: spread [%g, %g], not %g +- %g", i, j, mn[j], mx[j], c, reach);
		}
	}
	dpk_coreset_free(&out);
}
#endif

int
main(void)
{
	double		lo[2] = {0, 0},
				hi[2] = {100, 100};
	DpkBox		box = {2, lo, hi};
	size_t		n = 30000;
	double	   *x = make_points(n);
	DpkOneshotResult res;
	DpkLiveRelease rel;
	uint64_t	hl,
				hv;
	bool		print = getenv("DPK_OBJECTIVE_PRINT") != NULL;

	hl = run_lowd(&box, x, n, -1, &res);
#ifndef DPK_OBJECTIVE_PRE_KMEDIAN
	{
		DpkOneshotResult pw;
		uint64_t	hp;
		int			j;

		/*
		 * the same release with Lloyd's passes point by point: the digest
		 * before, and the same centres and sizes up to rounding
		 */
		dpk_kmeans_filter = false;
		hp = run_lowd(&box, x, n, -1, &pw);
		dpk_kmeans_filter = true;
		if (print)
			printf("PIN_LOWD_POINTWISE 0x%016llX\n", (unsigned long long) hp);
		CHECK(hp == PIN_LOWD_POINTWISE, "one-shot k-means point by point changed: 0x%016llX",
			  (unsigned long long) hp);
		for (j = 0; j < 3 * 2; j++)
			CHECK(fabs(res.centers[j] - pw.centers[j]) < 1e-9,
				  "centre value %d: %.17g, point by point %.17g", j, res.centers[j],
				  pw.centers[j]);
		for (j = 0; j < 3; j++)
			CHECK(fabs(res.sizes[j] - pw.sizes[j]) < 1e-9 * fmax(1.0, pw.sizes[j]),
				  "size %d: %.17g, point by point %.17g", j, res.sizes[j], pw.sizes[j]);
		dpk_oneshot_result_free(&pw);
	}
#endif
	dpk_oneshot_result_free(&res);
	/*
	 * the previous library's releases: the signed decomposition of the
	 * binary tree, which tables attached before the k-ary trees keep
	 */
	hv = run_live(&box, x, n, &rel, false, DPK_TREE_SIGNED, DPK_TREE_ARITY_BINARY);
	dpk_live_release_free(&rel);
	if (print)
		printf("PIN_LOWD 0x%016llX\nPIN_LIVE 0x%016llX\n",
			   (unsigned long long) hl, (unsigned long long) hv);
	CHECK(hl == PIN_LOWD, "one-shot k-means output changed: 0x%016llX",
		  (unsigned long long) hl);
	CHECK(hv == PIN_LIVE, "live k-means output changed: 0x%016llX",
		  (unsigned long long) hv);
#ifndef DPK_OBJECTIVE_PRE_KMEDIAN
	test_kmedian_spread(&box);
	test_kmedian_lowd(&box, x, n);
	test_kmedian_live(&box, x, n, DPK_TREE_SIGNED, DPK_TREE_ARITY_BINARY);
	test_kmedian_live(&box, x, n, -1, DPK_TREE_ARITY_BINARY);
#endif
	dpk_free(x);
	UNIT_DONE("test_objective");
}
