/*
 * test_kmeans_filter.c
 *		Unit tests of Lloyd's passes on the kd-tree (src/core/cluster/
 *		kmeans_filter.c) against the point-by-point ones (kmeans_assign.c).
 *
 * On random weighted point sets for d = 1..5 and several k, one filtering
 * pass must give every point the centre dpk_km_assign gives it, the same
 * cluster weights and centres up to rounding (1e-12 of the data's scale)
 * and the same cost; successive passes on one tree must say "changed"
 * exactly when some point's centre changed.  The sets include grids (many
 * equal coordinates, exact ties between centres), zero weights, repeated
 * points and duplicated centres.  Lloyd's loop on the tree, empty clusters
 * re-seeded, must match the point-by-point loop, and whole runs of
 * dpk_kmeans and the screened restarts must match with the filter on and
 * off.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dpk_mem.h"
#include "kmeans.h"
#include "kmeans_int.h"
#include "unit.h"

/* A point set of n points in d dimensions of one of four shapes. */
static void
make_points(uint64_t *st, int shape, int n, int d, double *x, double *w)
{
	int			i,
				s;

	for (i = 0; i < n; i++)
	{
		for (s = 0; s < d; s++)
		{
			double		u = unit_uniform(st);

			switch (shape)
			{
				case 0:			/* uniform in [0, 100]^d */
					x[i * d + s] = 100.0 * u;
					break;
				case 1:			/* an integer grid: exact ties */
					x[i * d + s] = floor(12.0 * u);
					break;
				case 2:			/* blobs far from the origin */
					x[i * d + s] = 1e4 + 10.0 * (i % 5) + unit_normal(st);
					break;
				default:		/* 13 distinct points, repeated */
					x[i * d + s] = i < 13 ? 3.0 * floor(4.0 * u) : x[((i * 7) % 13) * d + s];
					break;
			}
		}
		/* weights: mostly positive, some zero, some negative (clipped) */
		w[i] = unit_uniform(st) < 0.1 ? (unit_uniform(st) < 0.5 ? 0.0 : -1.0)
			: 1.0 + 50.0 * unit_uniform(st);
	}
}

/* Centres: points of the set, one duplicated, one far away. */
static void
make_centres(uint64_t *st, int n, int d, int k, const double *x, double *c)
{
	int			j,
				s;

	for (j = 0; j < k; j++)
	{
		int			i = (int) (unit_uniform(st) * n);

		for (s = 0; s < d; s++)
			c[j * d + s] = x[i * d + s] + (j % 3 == 1 ? 0.5 * unit_uniform(st) : 0.0);
	}
	if (k >= 3)
		memcpy(c + 2 * d, c, sizeof(double) * d);	/* centre 2 = centre 0 */
	if (k >= 4)
		for (s = 0; s < d; s++)
			c[3 * d + s] = -500.0;
}

/* The largest |coordinate| of the points and centres: the scale of errors. */
static double
scale_of(const double *x, int n, const double *c, int k, int d)
{
	double		m = 1.0;
	int			i;

	for (i = 0; i < n * d; i++)
		m = fmax(m, fabs(x[i]));
	for (i = 0; i < k * d; i++)
		m = fmax(m, fabs(c[i]));
	return m;
}

/*
 * One case: Lloyd passes from the centres c, point by point and on the
 * tree side by side, each pass compared.  Returns the number of failed
 * comparisons (also counted by CHECK).
 */
static int
compare_passes(uint64_t *st, int shape, int n, int d, int k, int passes)
{
	double	   *x = dpk_alloc(sizeof(double) * n * d),
			   *w = dpk_alloc(sizeof(double) * n),
			   *sw = dpk_alloc(sizeof(double) * n),
			   *c = dpk_alloc(sizeof(double) * k * d),
			   *sums = dpk_alloc(sizeof(double) * k * d),
			   *wsum = dpk_alloc(sizeof(double) * k),
			   *rsum = dpk_alloc(sizeof(double) * k * d),
			   *rw = dpk_alloc(sizeof(double) * k);
	int		   *a = dpk_alloc(sizeof(int) * n),
			   *b = dpk_alloc(sizeof(int) * n),
			   *prev = dpk_alloc(sizeof(int) * n);
	KmWork		ws;
	KmTree	   *t;
	int			failed0 = unit_failed,
				pass,
				i,
				j,
				s;
	double		scale;

	make_points(st, shape, n, d, x, w);
	make_centres(st, n, d, k, x, c);
	for (i = 0; i < n; i++)
	{
		sw[i] = w[i] > 0.0 ? w[i] : 0.0;
		a[i] = prev[i] = -1;
	}
	scale = scale_of(x, n, c, k, d);
	dpk_km_work_init(&ws, x, n, d, k);
	t = dpk_km_tree_build(x, sw, ws.xnorm, n, d, k);
	CHECK(t != NULL, "tree built (shape %d, d %d)", shape, d);
	if (t == NULL)
		return 1;

	for (pass = 0; pass < passes; pass++)
	{
		bool		changed_ref,
					changed;
		double		cost_ref,
					cost;
		int			bad = 0;

		/* point by point (every point evaluated: no bounds carried over) */
		for (i = 0; i < n; i++)
			a[i] = -1;
		cost_ref = dpk_km_assign(&ws, x, w, c, a, NULL, NULL);
		changed_ref = false;
		for (i = 0; i < n; i++)
			changed_ref |= a[i] != prev[i];
		memset(rsum, 0, sizeof(double) * k * d);
		memset(rw, 0, sizeof(double) * k);
		for (i = 0; i < n; i++)
		{
			rw[a[i]] += sw[i];
			for (s = 0; s < d; s++)
				rsum[a[i] * d + s] += sw[i] * x[i * d + s];
		}

		/* on the tree */
		dpk_km_prepare(&ws, c);
		cost = dpk_km_filter_pass(t, &ws, c, sums, wsum, true, &changed);
		dpk_km_tree_assign(t, b);

		for (i = 0; i < n; i++)
			bad += a[i] != b[i];
		CHECK(bad == 0, "shape %d d %d k %d pass %d: %d of %d points assigned otherwise",
			  shape, d, k, pass, bad, n);
		CHECK(changed == changed_ref, "shape %d d %d k %d pass %d: changed %d, expected %d",
			  shape, d, k, pass, changed, changed_ref);
		CHECK(fabs(cost - cost_ref) <= 1e-12 * fmax(cost_ref, 1e-300) + 1e-300,
			  "shape %d d %d k %d pass %d: cost %.17g, point by point %.17g",
			  shape, d, k, pass, cost, cost_ref);
		for (j = 0; j < k; j++)
		{
			const double *ref = dpk_km_tree_ref(t, j);

			CHECK(fabs(wsum[j] - rw[j]) <= 1e-12 * fmax(rw[j], 1.0),
				  "shape %d d %d k %d pass %d: cluster %d weight %.17g, expected %.17g",
				  shape, d, k, pass, j, wsum[j], rw[j]);
			if (!(rw[j] > 0.0))
				continue;
			for (s = 0; s < d; s++)
			{
				double		want = rsum[j * d + s] / rw[j],
							got = ref[s] + sums[j * d + s] / wsum[j];

				CHECK(fabs(got - want) <= 1e-12 * scale,
					  "shape %d d %d k %d pass %d: centre %d[%d] %.17g, expected %.17g",
					  shape, d, k, pass, j, s, got, want);
			}
		}

		/* the next pass from the point-by-point update (empty: kept) */
		memcpy(prev, a, sizeof(int) * n);
		for (j = 0; j < k; j++)
			if (rw[j] > 0.0)
				for (s = 0; s < d; s++)
					c[j * d + s] = rsum[j * d + s] / rw[j];
	}

	dpk_km_tree_free(t);
	dpk_km_work_free(&ws);
	dpk_free(x);
	dpk_free(w);
	dpk_free(sw);
	dpk_free(c);
	dpk_free(sums);
	dpk_free(wsum);
	dpk_free(rsum);
	dpk_free(rw);
	dpk_free(a);
	dpk_free(b);
	dpk_free(prev);
	return unit_failed - failed0;
}

/*
 * Lloyd's loop from the centres of make_centres (a duplicated one and one
 * far from every point, so clusters go empty and are re-seeded): the
 * point-by-point loop (dpk_km_assign, dpk_km_update) against
 * dpk_km_lloyd_filter, the same centres to rounding, assignment and cost.
 */
static void
compare_lloyd(uint64_t *st, int shape, int n, int d, int k)
{
	double	   *x = dpk_alloc(sizeof(double) * n * d),
			   *w = dpk_alloc(sizeof(double) * n),
			   *sw = dpk_alloc(sizeof(double) * n),
			   *c0 = dpk_alloc(sizeof(double) * k * d),
			   *c1 = dpk_alloc(sizeof(double) * k * d),
			   *mind = dpk_alloc(sizeof(double) * n),
			   *contrib = dpk_alloc(sizeof(double) * n),
			   *sums = dpk_alloc(sizeof(double) * k * d),
			   *wsum = dpk_alloc(sizeof(double) * k),
				cost0 = 0.0,
				cost1,
				scale;
	int		   *a0 = dpk_alloc(sizeof(int) * n),
			   *a1 = dpk_alloc(sizeof(int) * n),
			   *ref = dpk_alloc(sizeof(int) * k);
	KmUpdateScratch u = {sums, wsum, mind, contrib, ref};
	KmWork		ws0,
				ws1;
	KmTree	   *t;
	int			iter,
				i,
				bad = 0;

	make_points(st, shape, n, d, x, w);
	make_centres(st, n, d, k, x, c0);
	memcpy(c1, c0, sizeof(double) * k * d);
	for (i = 0; i < n; i++)
	{
		sw[i] = w[i] > 0.0 ? w[i] : 0.0;
		a0[i] = -1;
	}
	/* the reference: every point evaluated on every pass */
	dpk_kmeans_prune = false;
	dpk_km_work_init(&ws0, x, n, d, k);
	dpk_kmeans_prune = true;
	for (iter = 0;; iter++)
	{
		bool		changed;

		cost0 = dpk_km_assign(&ws0, x, w, c0, a0, mind, &changed);
		if (!changed || iter >= 30)
			break;
		dpk_km_update(x, sw, n, d, k, a0, true, c0, &u);
	}
	dpk_km_work_init(&ws1, x, n, d, k);
	t = dpk_km_tree_build(x, sw, ws1.xnorm, n, d, k);
	cost1 = dpk_km_lloyd_filter(t, &ws1, x, sw, &u, c1, a1, 30);
	scale = scale_of(x, n, c0, k, d);
	for (i = 0; i < n; i++)
		bad += a0[i] != a1[i];
	CHECK(bad == 0, "lloyd shape %d d %d k %d: %d points assigned otherwise", shape, d, k, bad);
	CHECK(fabs(cost1 - cost0) <= 1e-11 * fmax(cost0, 1e-300) + 1e-300,
		  "lloyd shape %d d %d k %d: cost %.17g, point by point %.17g", shape, d, k, cost1,
		  cost0);
	for (i = 0; i < k * d; i++)
		CHECK(fabs(c1[i] - c0[i]) <= 1e-11 * scale,
			  "lloyd shape %d d %d k %d: centre value %d %.17g, point by point %.17g",
			  shape, d, k, i, c1[i], c0[i]);
	dpk_km_tree_free(t);
	dpk_km_work_free(&ws0);
	dpk_km_work_free(&ws1);
	dpk_free(x);
	dpk_free(w);
	dpk_free(sw);
	dpk_free(c0);
	dpk_free(c1);
	dpk_free(mind);
	dpk_free(contrib);
	dpk_free(sums);
	dpk_free(wsum);
	dpk_free(a0);
	dpk_free(a1);
	dpk_free(ref);
}

/*
 * Whole runs: dpk_kmeans and dpk_kmeans_screened with the filter and
 * without give the same centres (to rounding), sizes and cost.
 */
static void
compare_runs(uint64_t *st, int shape, int n, int d, int k, bool screened)
{
	double	   *x = dpk_alloc(sizeof(double) * n * d),
			   *w = dpk_alloc(sizeof(double) * n),
			   *c[2],
			   *sz[2],
				cost[2],
				scale;
	int			f,
				j;

	make_points(st, shape, n, d, x, w);
	for (f = 0; f < 2; f++)
	{
		DpkClusterOpts opt = {k, 6, 100, 77};

		c[f] = dpk_alloc(sizeof(double) * k * d);
		sz[f] = dpk_alloc(sizeof(double) * k);
		dpk_kmeans_filter = f == 1;
		if (screened)
			cost[f] = dpk_kmeans_screened(&(DpkPoints) {x, w, n, d}, &opt, 3, 2,
										  &(DpkClusterOut) {c[f], sz[f]});
		else
			cost[f] = dpk_kmeans(&(DpkPoints) {x, w, n, d}, &opt,
								 &(DpkClusterOut) {c[f], sz[f]});
	}
	dpk_kmeans_filter = true;
	scale = scale_of(x, n, c[0], k, d);
	CHECK(fabs(cost[1] - cost[0]) <= 1e-11 * fmax(cost[0], 1e-300) + 1e-300,
		  "run shape %d d %d k %d screened %d: cost %.17g, without the filter %.17g",
		  shape, d, k, screened, cost[1], cost[0]);
	for (j = 0; j < k * d; j++)
		CHECK(fabs(c[1][j] - c[0][j]) <= 1e-11 * scale,
			  "run shape %d d %d k %d screened %d: centre value %d %.17g, without %.17g",
			  shape, d, k, screened, j, c[1][j], c[0][j]);
	for (j = 0; j < k; j++)
		CHECK(fabs(sz[1][j] - sz[0][j]) <= 1e-11 * fmax(sz[0][j], 1.0),
			  "run shape %d d %d k %d screened %d: size %d %.17g, without %.17g",
			  shape, d, k, screened, j, sz[1][j], sz[0][j]);
	for (f = 0; f < 2; f++)
	{
		dpk_free(c[f]);
		dpk_free(sz[f]);
	}
	dpk_free(x);
	dpk_free(w);
}

int
main(void)
{
	uint64_t	st = UINT64_C(0x5DEECE66D);
	static const int ks[] = {2, 3, 7, 16};
	int			d,
				q,
				shape;

	for (d = 1; d <= DPK_KM_FILTER_MAX_D; d++)
		for (q = 0; q < 4; q++)
			for (shape = 0; shape < 4; shape++)
			{
				compare_passes(&st, shape, 600, d, ks[q], 6);
				compare_passes(&st, shape, 3000, d, ks[q], 4);
			}
	for (d = 1; d <= DPK_KM_FILTER_MAX_D; d += 2)
		for (shape = 0; shape < 4; shape++)
		{
			compare_runs(&st, shape, 2000, d, 5, false);
			compare_runs(&st, shape, 2000, d, 9, true);
		}
	for (d = 1; d <= DPK_KM_FILTER_MAX_D; d++)
		for (shape = 0; shape < 4; shape++)
		{
			compare_lloyd(&st, shape, 1500, d, 6);
			compare_lloyd(&st, shape, 1500, d, 13);
		}
	/* more centres than distinct points: duplicated seeds, empty clusters */
	for (d = 1; d <= DPK_KM_FILTER_MAX_D; d++)
		compare_runs(&st, 3, 1000, d, 16, d % 2 == 0);
	UNIT_DONE("test_kmeans_filter");
}
