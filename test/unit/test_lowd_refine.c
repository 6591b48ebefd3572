/*
 * test_lowd_refine.c
 *		The one-shot's Lloyd updates on its noisy histogram
 *		(dpk_lowd_refine, lowd.h; doc/decisions/055-oneshot-histogram-lloyd.md).
 *
 * On a histogram without noise the updates are Lloyd's algorithm on the
 * cells' exact sums: the centres end at their clusters' means (up to the
 * histogram's fixed point) and the sizes at their row counts; cells outside
 * the support and centres without mass are left alone; a move is shrunk
 * to nothing when the noise of its mean dwarfs it.  In dpk_lowd_cluster
 * the 2-d one-shot's centres are the coreset's centres after exactly these
 * updates on the release's own histogram and support, and at d = 3 they
 * are the coreset's; on hotspots over a uniform background the updates
 * lower the true cost.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "dpk_mem.h"
#include "kmeans.h"
#include "lowd.h"
#include "noise.h"
#include "unit.h"
#include "unit_stream.h"

#define M 20

/*
 * n rows per blob, uniform in squares of side 20 at (10..30)^2,
 * (60..80) x (55..75) and, when three, (85..95) x (2..12); their means in
 * mean (2 per blob).
 */
static double *
make_blobs(size_t n, int blobs, double *mean)
{
	static const double lo[3][2] = {{10, 10}, {60, 55}, {85, 2}},
				side[3] = {20, 20, 10};
	double	   *x = dpk_alloc(sizeof(double) * n * blobs * 2);
	uint64_t	st = 12345;
	size_t		i;
	int			b,
				j;

	for (b = 0; b < blobs; b++)
	{
		mean[b * 2] = mean[b * 2 + 1] = 0.0;
		for (i = 0; i < n; i++)
			for (j = 0; j < 2; j++)
			{
				double		v = lo[b][j] + side[b] * unit_uniform(&st);

				x[((size_t) b * n + i) * 2 + j] = v;
				mean[b * 2 + j] += v / (double) n;
			}
	}
	return x;
}

/* A noiseless histogram of M x M cells with sums over [0, 100]^2. */
static void
noiseless(const DpkBox *box, const double *x, size_t n, DpkLowdHist *lh)
{
	memset(lh, 0, sizeof(*lh));
	lh->cells_per_dim = M;
	lh->noisy_n = (double) n;
	dpk_hist_init(&lh->hist, 2, M, true);
	dpk_hist_add_points(&lh->hist, box, x, n);
}

/*
 * Without noise: two blobs, the centres started between them end at the
 * blobs' means within half a fixed-point step of a cell, the sizes at
 * their row counts exactly, and a second call moves nothing.
 */
static void
test_exact(void)
{
	const double lo[2] = {0, 0},
				hi[2] = {100, 100};
	DpkBox		box = {2, (double *) lo, (double *) hi};
	size_t		n = 3000;
	double		mean[4],
				c[4] = {15, 15, 25, 25},
				again[4],
				sizes[2],
				tol = 100.0 / M / DPK_REL_UNITS / 2 + 1e-9;
	double	   *x = make_blobs(n, 2, mean);
	DpkLowdHist lh;
	int			i,
				updates;

	noiseless(&box, x, 2 * n, &lh);
	updates = dpk_lowd_refine(&box, &lh, NULL, 2, 0.0, 50, 1.0, c, sizes);
	CHECK(updates >= 2, "%d updates", updates);
	for (i = 0; i < 4; i++)
		CHECK(fabs(c[i] - mean[i]) <= tol, "centre coordinate %d at %.6f, mean %.6f", i, c[i],
			  mean[i]);
	CHECK(sizes[0] == (double) n && sizes[1] == (double) n, "sizes %g, %g", sizes[0], sizes[1]);
	memcpy(again, c, sizeof(c));
	dpk_lowd_refine(&box, &lh, NULL, 2, 0.0, 50, 1.0, again, NULL);
	CHECK(memcmp(again, c, sizeof(c)) == 0, "a second call moved the centres");

	/* the estimated cost: differences are the true ones, up to the fixed point */
	{
		double		moved[4] = {c[0] + 1, c[1] + 1, c[2] - 2, c[3]},
					est = dpk_lowd_hist_cost(&box, &lh.hist, NULL, 2, moved) -
			dpk_lowd_hist_cost(&box, &lh.hist, NULL, 2, c),
					truth = dpk_kmeans_cost(x, NULL, (int) (2 * n), 2, moved, 2, NULL) -
			dpk_kmeans_cost(x, NULL, (int) (2 * n), 2, c, 2, NULL);

		CHECK(fabs(est - truth) <= 1e-2 * truth && fabs(truth - 6.0 * n) < 1.0,
			  "estimated cost difference %g, true %g", est, truth);
	}

	/* at most max_iter updates: one update from the start is one Lloyd step */
	memcpy(again, (double[4]) {15, 15, 25, 25}, sizeof(again));
	updates = dpk_lowd_refine(&box, &lh, NULL, 2, 0.0, 1, 1.0, again, NULL);
	CHECK(updates == 1, "%d updates for max_iter 1", updates);
	CHECK(fabs(again[2] - mean[2]) > 1.0, "one update went all the way: %g", again[2]);
	dpk_hist_free(&lh.hist);
	dpk_free(x);
}

/*
 * Cells outside the support weigh nothing: a third blob there leaves the
 * centres where two blobs put them.  A centre whose cells hold no more than
 * min_size stays put with size 0.  A move whose noise dwarfs it is shrunk
 * to nothing; shrink 0 keeps it.
 */
static void
test_support_size_shrink(void)
{
	const double lo[2] = {0, 0},
				hi[2] = {100, 100};
	DpkBox		box = {2, (double *) lo, (double *) hi};
	size_t		n = 2000;
	double		mean[6],
				two[4] = {40, 40, 52, 50},
				three[6] = {40, 40, 52, 50, 99, 1},
				start[6],
				sizes[3];
	double	   *x = make_blobs(n, 3, mean);
	bool	   *support = dpk_alloc(sizeof(bool) * M * M);
	DpkLowdHist lh2,
				lh3;
	int			c;

	noiseless(&box, x, 2 * n, &lh2);
	noiseless(&box, x, 3 * n, &lh3);
	/* the third blob's cells, (85..95) x (2..12), are columns 17-18, rows 0-2 */
	for (c = 0; c < M * M; c++)
		support[c] = !(c / M >= 17 && c % M <= 2);
	dpk_lowd_refine(&box, &lh2, NULL, 2, 0.0, 50, 1.0, two, NULL);
	dpk_lowd_refine(&box, &lh3, support, 3, 0.0, 50, 1.0, three, sizes);
	CHECK(memcmp(two, three, sizeof(two)) == 0,
		  "cells outside the support moved the centres: (%g, %g) against (%g, %g)",
		  three[2], three[3], two[2], two[3]);
	CHECK(three[4] == 99.0 && three[5] == 1.0 && sizes[2] == 0.0,
		  "a centre without mass moved to (%g, %g), size %g", three[4], three[5], sizes[2]);

	/* with every cell, the third centre takes the third blob */
	memcpy(three, (double[6]) {40, 40, 52, 50, 99, 1}, sizeof(three));
	dpk_lowd_refine(&box, &lh3, NULL, 3, 0.0, 50, 1.0, three, sizes);
	CHECK(fabs(three[4] - mean[4]) < 0.01 && sizes[2] == (double) n,
		  "the third blob's centre at (%g, %g), size %g", three[4], three[5], sizes[2]);

	/* above min_size only: the third blob's n rows do not move its centre */
	memcpy(three, (double[6]) {40, 40, 52, 50, 99, 1}, sizeof(three));
	dpk_lowd_refine(&box, &lh3, NULL, 3, (double) n, 50, 1.0, three, sizes);
	CHECK(three[4] == 99.0 && three[5] == 1.0, "a centre of min_size rows moved");

	/* noise far above the move: shrunk back to the start; shrink 0 moves */
	lh3.count_var = 1e12;
	memcpy(start, (double[6]) {40, 40, 52, 50, 99, 1}, sizeof(start));
	memcpy(three, start, sizeof(three));
	dpk_lowd_refine(&box, &lh3, NULL, 3, 0.0, 50, 1.0, three, NULL);
	CHECK(memcmp(three, start, sizeof(three)) == 0, "a move in noise was kept: (%g, %g)",
		  three[0], three[1]);
	dpk_lowd_refine(&box, &lh3, NULL, 3, 0.0, 50, 0.0, three, NULL);
	CHECK(fabs(three[0] - mean[0]) < 0.01, "shrink 0 did not move: %g", three[0]);
	dpk_hist_free(&lh2.hist);
	dpk_hist_free(&lh3.hist);
	dpk_free(support);
	dpk_free(x);
}

/*
 * Pickup-like rows in [0, 100]^d: four hotspots of unequal weight and
 * spread (85 %), a uniform background (15 %).
 */
static double *
make_pickups(int d, size_t n, uint64_t seed)
{
	static const double at[4][3] = {{20, 25, 30}, {70, 30, 60}, {35, 75, 50}, {80, 80, 20}},
				sd[4] = {1.5, 3, 5, 2},
				cum[4] = {0.40, 0.65, 0.80, 0.85};
	double	   *x = dpk_alloc(sizeof(double) * n * d);
	uint64_t	st = seed;
	size_t		i;
	int			j,
				h;

	for (i = 0; i < n; i++)
	{
		double		u = unit_uniform(&st);

		for (h = 0; h < 4 && u >= cum[h]; h++)
			;
		for (j = 0; j < d; j++)
		{
			double		v = h < 4 ? at[h][j] + sd[h] * unit_normal(&st)
				: 100.0 * unit_uniform(&st);

			x[i * d + j] = fmin(100.0, fmax(0.0, v));
		}
	}
	return x;
}

/*
 * dpk_lowd_cluster at d = 2: without the second candidate, the centres and
 * sizes are those of the one-shot without updates, refined by
 * dpk_lowd_refine on the same key's histogram and support, bit for bit;
 * with it (the default) they are those or centres of lower estimated cost
 * on that support, under some keys.  At d = 3 the updates are off.  Over
 * the keys the default lowers the rows' true cost (k = 8, ε = 0.25).
 */
static void
test_pipeline(void)
{
	const double lo[3] = {0, 0, 0},
				hi[3] = {100, 100, 100};
	int			d,
				key,
				k = 8;
	size_t		n = 40000;
	double		cost_on = 0.0,
				cost_off = 0.0;
	int			grid_won = 0;

	for (d = 2; d <= 3; d++)
	{
		DpkBox		box = {d, (double *) lo, (double *) hi};
		double	   *x = make_pickups(d, n, 77 + d);

		for (key = 0; key < 6; key++)
		{
			DpkLowdConfig cfg,
						off,
						one;
			DpkOneshotResult on_res = {0},
						off_res = {0},
						one_res = {0};
			DpkLowdHist lh;
			DpkCoreset	cs;
			DpkStream	s;
			double		threshold;
			bool	   *support;

			dpk_lowd_defaults(&cfg, 0.25, k);
			off = cfg;
			off.refine_iter = 0;
			one = cfg;
			one.grid_candidate = false;
			unit_open_stream(&s, 500 + key);
			dpk_lowd_cluster(&box, x, n, &cfg, &s, &on_res);
			dpk_stream_close(&s);
			unit_open_stream(&s, 500 + key);
			dpk_lowd_cluster(&box, x, n, &off, &s, &off_res);
			dpk_stream_close(&s);
			CHECK(!on_res.mean_guard_fired && !off_res.mean_guard_fired,
				  "d = %d key %d: the mean guard fired", d, key);
			if (d == 3)
			{
				CHECK(memcmp(on_res.centers, off_res.centers, sizeof(double) * k * d) == 0,
					  "d = 3 key %d: the centres were refined", key);
				dpk_oneshot_result_free(&on_res);
				dpk_oneshot_result_free(&off_res);
				continue;
			}
			unit_open_stream(&s, 500 + key);
			dpk_lowd_noisy_histogram(&box, x, n, &cfg, &s, &lh);
			dpk_stream_close(&s);
			support = dpk_alloc(sizeof(bool) * lh.hist.ncells);
			threshold = dpk_lowd_coreset(&box, &cfg, &lh, &cs, support);
			dpk_lowd_refine(&box, &lh, support, k, threshold, cfg.refine_iter,
							cfg.refine_shrink, off_res.centers, off_res.sizes);
			unit_open_stream(&s, 500 + key);
			dpk_lowd_cluster(&box, x, n, &one, &s, &one_res);
			dpk_stream_close(&s);
			CHECK(memcmp(one_res.centers, off_res.centers, sizeof(double) * k * d) == 0 &&
				  memcmp(one_res.sizes, off_res.sizes, sizeof(double) * k) == 0,
				  "key %d: the one-shot's centres are not its refined coreset centres", key);
			if (memcmp(on_res.centers, one_res.centers, sizeof(double) * k * d) != 0)
			{
				grid_won++;
				CHECK(dpk_lowd_hist_cost(&box, &lh.hist, support, k, on_res.centers) <
					  dpk_lowd_hist_cost(&box, &lh.hist, support, k, one_res.centers),
					  "key %d: the second candidate won at a higher estimated cost", key);
			}
			dpk_oneshot_result_free(&one_res);
			cost_on += dpk_kmeans_cost(x, NULL, (int) n, d, on_res.centers, k, NULL);
			dpk_oneshot_result_free(&off_res);
			unit_open_stream(&s, 500 + key);
			dpk_lowd_cluster(&box, x, n, &off, &s, &off_res);
			dpk_stream_close(&s);
			cost_off += dpk_kmeans_cost(x, NULL, (int) n, d, off_res.centers, k, NULL);
			dpk_coreset_free(&cs);
			dpk_hist_free(&lh.hist);
			dpk_free(support);
			dpk_oneshot_result_free(&on_res);
			dpk_oneshot_result_free(&off_res);
		}
		dpk_free(x);
	}
	CHECK(cost_on < cost_off, "the updates did not lower the cost: %.6g against %.6g",
		  cost_on, cost_off);
	CHECK(grid_won > 0, "the positive cells' centres never won");
	printf("pickups d = 2, 6 keys: cost with the updates / without = %.4f, "
		   "the positive cells' centres kept under %d keys\n", cost_on / cost_off, grid_won);
}

int
main(void)
{
	test_exact();
	test_support_size_shrink();
	test_pipeline();
	UNIT_DONE("test_lowd_refine");
}
