/*
 * test_grid.c
 *		Box, cell numbering, histograms, coresets and the one-shot pipeline.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coreset.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "lowd.h"
#include "unit.h"

int
main(void)
{
	double		lo[2] = {0.0, -10.0},
				hi[2] = {100.0, 10.0};
	DpkBox		box = {2, lo, hi};
	double		u[2],
				x[2];
	int64_t		idx[3],
				rel[3],
				back[3];
	uint64_t	cell;
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s = {0};

	/* Clamping: outside and infinite coordinates land on the box faces. */
	x[0] = -5.0;
	x[1] = INFINITY;
	dpk_box_normalize(&box, x, u);
	CHECK(u[0] == 0.0 && u[1] == 1.0, "clamp gave %g %g", u[0], u[1]);
	x[0] = 25.0;
	x[1] = 0.0;
	dpk_box_normalize(&box, x, u);
	CHECK(fabs(u[0] - 0.25) < 1e-15 && fabs(u[1] - 0.5) < 1e-15, "normalize");
	dpk_box_denormalize(&box, u, x);
	CHECK(fabs(x[0] - 25.0) < 1e-12 && fabs(x[1]) < 1e-12, "denormalize");

	/*
	 * Metric positions: a cube is left exactly as it is; a narrow side is
	 * shrunk about the middle (distances become the box's / widest side) and
	 * comes back, clamped into the box.
	 */
	{
		double		lo3[3] = {0, 10, -1},
					hi3[3] = {100, 20, 1},
					cube_hi[2] = {7, 7},
					cube_lo[2] = {3, 3},
					p[3] = {30, 12, 0.5},
					q[3] = {80, 19, -0.5},
					up[3],
					uq[3],
					y[3],
					dist_u = 0.0,
					dist_x = 0.0;
		DpkBox		wide = {3, lo3, hi3},
					cube = {2, cube_lo, cube_hi};
		int			j;

		CHECK(dpk_box_max_width(&wide) == 100.0, "widest side");
		CHECK(dpk_box_metric_spread(&cube) == 1.0, "a cube spreads fully");
		CHECK(fabs(dpk_box_metric_spread(&wide) - sqrt((1.0 + 0.01 + 0.0004) / 3.0)) < 1e-12,
			  "spread = rms of side / widest side (%g)", dpk_box_metric_spread(&wide));
		u[0] = 0.123456789;
		u[1] = 0.987654321;
		dpk_box_to_metric(&cube, u);
		CHECK(u[0] == 0.123456789 && u[1] == 0.987654321, "a cube keeps u exactly");
		dpk_box_normalize(&wide, p, up);
		dpk_box_to_metric(&wide, up);
		dpk_box_normalize(&wide, q, uq);
		dpk_box_to_metric(&wide, uq);
		for (j = 0; j < 3; j++)
		{
			dist_u += (up[j] - uq[j]) * (up[j] - uq[j]);
			dist_x += (p[j] - q[j]) * (p[j] - q[j]);
			CHECK(up[j] >= 0.0 && up[j] <= 1.0, "metric position in [0, 1]");
		}
		CHECK(fabs(dist_u * 100.0 * 100.0 - dist_x) < 1e-9 * dist_x,
			  "metric distances are the box's / widest side (%g vs %g)", dist_u * 1e4, dist_x);
		dpk_box_from_metric(&wide, up, y);
		for (j = 0; j < 3; j++)
			CHECK(fabs(y[j] - p[j]) < 1e-9, "metric round trip, coordinate %d: %g", j, y[j]);
		up[1] = 0.9;			/* beyond the narrow side's range */
		up[2] = 0.0;
		dpk_box_from_metric(&wide, up, y);
		CHECK(y[1] == 20.0 && y[2] == -1.0, "from_metric clamps into the box (%g %g)", y[1], y[2]);
	}

	/* Cell numbering round-trips; the upper face belongs to the last cell. */
	{
		double		v[3] = {0.0, 0.51, 1.0};

		cell = dpk_grid_cell(3, 10, v, idx, rel);
		dpk_grid_cell_coords(3, 10, cell, back);
		CHECK(idx[0] == 0 && idx[1] == 5 && idx[2] == 9, "idx %ld %ld %ld",
			  (long) idx[0], (long) idx[1], (long) idx[2]);
		CHECK(back[0] == idx[0] && back[1] == idx[1] && back[2] == idx[2], "coords round trip");
		CHECK(cell == 59, "cell number %lu", (unsigned long) cell);
		CHECK(rel[0] == 0 && rel[2] == DPK_REL_UNITS - 1, "rel at faces");
		CHECK(labs((long) rel[1] - (long) (0.1 * DPK_REL_UNITS)) <= 1, "rel inside: %ld", (long) rel[1]);
	}

	/*
	 * The cell and offsets are those of the floor-based definition, for
	 * positions inside, on the faces of and outside [0, 1] (the writers'
	 * path computes them without libm's floor).
	 */
	{
		uint64_t	st = 12345;
		int			i,
					j,
					bad = 0;

		for (i = 0; i < 200000; i++)
		{
			double		v[3];
			int			m = 1 + i % 37;
			uint64_t	want = 0;

			for (j = 0; j < 3; j++)
			{
				double		w = unit_uniform(&st);

				/* exact cell boundaries, faces, and values beyond them */
				v[j] = i % 5 == 0 ? floor(w * m) / m : w * 1.4 - 0.2;
			}
			cell = dpk_grid_cell(3, m, v, idx, rel);
			for (j = 0; j < 3; j++)
			{
				double		p = v[j] * m;
				int64_t		fi = (int64_t) floor(p);
				int64_t		fr;

				fi = fi >= m ? m - 1 : (fi < 0 ? 0 : fi);
				fr = (int64_t) floor((p - (double) fi) * DPK_REL_UNITS);
				fr = fr >= DPK_REL_UNITS ? DPK_REL_UNITS - 1 : (fr < 0 ? 0 : fr);
				bad += idx[j] != fi || rel[j] != fr;
				want = want * (uint64_t) m + (uint64_t) fi;
			}
			bad += cell != want;
		}
		CHECK(bad == 0, "%d cells or offsets differ from the floor-based definition", bad);
	}

	/* Histogram and a noiseless coreset: exact in-cell means. */
	{
		DpkDenseHist h;
		DpkCoreset	cs;
		double		pts[4][2] = {{10.0, -9.0}, {12.0, -7.0}, {90.0, 9.0}, {90.0, 9.0}};
		int			i;
		double		total = 0.0;

		dpk_hist_init(&h, 2, 4, true);
		CHECK(h.ncells == 16, "ncells");
		for (i = 0; i < 4; i++)
		{
			dpk_box_normalize(&box, pts[i], u);
			dpk_hist_add(&h, u);
		}
		for (i = 0; i < 16; i++)
			total += h.count[i];
		CHECK(total == 4.0, "counts sum to n");
		dpk_coreset_from_hist(&h, &box, 0.5, 0.0, &cs);
		CHECK(cs.n == 2, "two occupied cells, got %d", cs.n);
		CHECK(cs.n == 2 && fabs(cs.points[0] - 11.0) < 0.1 && fabs(cs.points[1] + 8.0) < 0.05,
			  "mean of first cell (%g, %g)", cs.points[0], cs.points[1]);
		CHECK(cs.n == 2 && cs.weights[0] == 2.0 && cs.weights[1] == 2.0, "weights");
		dpk_coreset_free(&cs);

		/* Without sums, cells are represented by their centres. */
		dpk_free(h.sum);
		h.sum = NULL;
		dpk_coreset_from_hist(&h, &box, 0.5, 0.0, &cs);
		CHECK(cs.n == 2 && fabs(cs.points[0] - 12.5) < 1e-12 && fabs(cs.points[1] + 7.5) < 1e-12,
			  "cell centre (%g, %g)", cs.points[0], cs.points[1]);
		dpk_coreset_free(&cs);
		dpk_hist_free(&h);
	}

	/*
	 * The mass below the threshold from coarser blocks, on noiseless counts:
	 * every cell away from the cells above the threshold comes back at its
	 * centre with exactly its own count.  An
	 * 8 x 8 grid at sd 1: one count of 50 above the threshold (2.94 over 64
	 * cells); a 2 x 2 block of 1, 1, 1, 2 (5: above 4 for 2 x 2 blocks, not
	 * above 8 at the 4 x 4 level); a 4 x 4 block of ones (4 per 2 x 2 block,
	 * 16 above 8 at the 4 x 4 level); a lone 1 that no block lifts.
	 */
	{
		DpkDenseHist h;
		DpkCoreset	cs;
		double		thr = dpk_coreset_threshold(1.0, 2.0, 64.0);
		int			i,
					r,
					c,
					seen[64] = {0},
					bad = 0;
		double		total = 0.0;

		dpk_hist_init(&h, 2, 8, false);
		h.count[2 * 8 + 3] = 50;
		for (r = 4; r < 8; r++)
			for (c = 4; c < 8; c++)
				h.count[r * 8 + c] = 1;
		h.count[0 * 8 + 4] = 1;
		h.count[0 * 8 + 5] = 1;
		h.count[1 * 8 + 4] = 1;
		h.count[1 * 8 + 5] = 2;
		h.count[3 * 8 + 0] = 1;
		dpk_coreset_from_hist(&h, &box, thr, 0.0, &cs);
		CHECK(cs.n == 1 && cs.weights[0] == 50.0, "one cell above the threshold");
		dpk_coreset_add_residual(&h, &box, thr, 1.0, 2.0, 2.0, &cs, NULL);
		CHECK(cs.n == 21, "50, the 4 + 16 cells of the blocks, not the lone one: %d", cs.n);
		for (i = 0; i < cs.n; i++)
		{
			/* back to a cell number from the point at its centre */
			int			r0 = (int) floor(cs.points[2 * i] / 12.5);
			int			c0 = (int) floor((cs.points[2 * i + 1] + 10.0) / 2.5);
			int			cell = r0 * 8 + c0;

			if (fabs(cs.points[2 * i] - (r0 + 0.5) * 12.5) > 1e-9 ||
				fabs(cs.points[2 * i + 1] - ((c0 + 0.5) * 2.5 - 10.0)) > 1e-9 ||
				cell < 0 || cell >= 64 || seen[cell] ||
				fabs(cs.weights[i] - (double) h.count[cell]) > 1e-9)
				bad++;
			else
				seen[cell] = 1;
			total += cs.weights[i];
		}
		CHECK(bad == 0, "%d points not a cell centre with its own count", bad);
		CHECK(fabs(total - 71.0) < 1e-9, "total weight %g, want 71", total);
		dpk_coreset_free(&cs);

		/*
		 * Cells around the 50 in its 2 x 2 block (2 + 1 + 1 = 4, above 4 x
		 * 0.87 at the 2 x 2 level) that clear their own noise (4 > 2 sqrt 3)
		 * stay where they are: 24 points, the 50 unchanged.
		 */
		h.count[2 * 8 + 2] = 2;
		h.count[3 * 8 + 2] = 1;
		h.count[3 * 8 + 3] = 1;
		dpk_coreset_from_hist(&h, &box, thr, 0.0, &cs);
		dpk_coreset_add_residual(&h, &box, thr, 1.0, 2.0, 2.0, &cs, NULL);
		CHECK(cs.n == 24 && cs.weights[0] == 50.0, "tails above their noise at their cells: %d points, %g",
			  cs.n, cs.weights[0]);
		dpk_coreset_free(&cs);

		/*
		 * A dense cell in the corner of a uniform background (a hotspot in a
		 * sparse region): a 50 at cell 0 and a 1 in every other cell.  No
		 * 2 x 2 block clears 4; the 4 x 4 blocks (15 or 16 > 8) do.  The
		 * corner's 4 x 4 block holds the 50, but its three 2 x 2 sub-blocks
		 * without it hold 12 > 2 sqrt 12: a background, shared down by its
		 * sums, so each of those 12 cells keeps its 1.  Only the 3 in the
		 * 50's own 2 x 2 block (3 <= 2 sqrt 3, noise at that scale) go to
		 * it: 53 and 60 cells of 1, total 113.  (Giving the whole 4 x 4
		 * block's 15 to the 50 moved the background onto the hotspot.)
		 */
		memset(h.count, 0, 64 * sizeof(int64_t));
		for (i = 0; i < 64; i++)
			h.count[i] = 1;
		h.count[0] = 50;
		dpk_coreset_from_hist(&h, &box, thr, 0.0, &cs);
		dpk_coreset_add_residual(&h, &box, thr, 1.0, 2.0, 2.0, &cs, NULL);
		total = 0.0;
		bad = 0;
		for (i = 0; i < cs.n; i++)
		{
			total += cs.weights[i];
			if (i > 0 && cs.weights[i] != 1.0)
				bad++;
		}
		CHECK(cs.n == 61 && cs.weights[0] == 53.0 && bad == 0 && fabs(total - 113.0) < 1e-9,
			  "background around a dense cell kept in place: %d points, %g, %d off, total %g",
			  cs.n, cs.weights[0], bad, total);
		dpk_coreset_free(&cs);
		/* rest_sigmas 0: the whole 4 x 4 block's 15 to the 50, 48 cells left */
		dpk_coreset_from_hist(&h, &box, thr, 0.0, &cs);
		dpk_coreset_add_residual(&h, &box, thr, 1.0, 2.0, 0.0, &cs, NULL);
		CHECK(cs.n == 49 && cs.weights[0] == 65.0, "every block to its dense cell: %d points, %g",
			  cs.n, cs.weights[0]);
		dpk_coreset_free(&cs);

		/* Nothing below the threshold: nothing added. */
		memset(h.count, 0, 64 * sizeof(int64_t));
		h.count[9] = 40;
		dpk_coreset_from_hist(&h, &box, thr, 0.0, &cs);
		dpk_coreset_add_residual(&h, &box, thr, 1.0, 2.0, 2.0, &cs, NULL);
		CHECK(cs.n == 1 && cs.weights[0] == 40.0, "only the cell above the threshold");
		dpk_coreset_free(&cs);
		dpk_hist_free(&h);
	}

	/* One-shot pipeline: well separated blobs, large epsilon -> near-true centres. */
	dpk_key_from_seed(7, key);
	CHECK(dpk_stream_open(&s, key, nonce), "stream");
	{
		size_t		n = 20000,
					i;
		double	   *pts = dpk_alloc(n * 2 * sizeof(double));
		double		truth[4][2] = {{20, -5}, {80, -5}, {20, 5}, {80, 5}};
		DpkLowdConfig cfg;
		DpkOneshotResult res;
		int			c,
					found = 0;

		for (i = 0; i < n; i++)
		{
			double		a = (double) (i % 97) / 97.0 - 0.5,
						b = (double) (i % 89) / 89.0 - 0.5;

			pts[2 * i] = truth[i % 4][0] + a;
			pts[2 * i + 1] = truth[i % 4][1] + b * 0.2;
		}
		dpk_lowd_defaults(&cfg, 50.0, 4);
		dpk_lowd_cluster(&box, pts, n, &cfg, &s, &res);
		for (c = 0; c < 4; c++)
		{
			int			t;

			for (t = 0; t < 4; t++)
				if (fabs(res.centers[2 * c] - truth[t][0]) < 1.0 &&
					fabs(res.centers[2 * c + 1] - truth[t][1]) < 0.5)
					found++;
			CHECK(fabs(res.sizes[c] - 5000.0) < 100.0, "noisy size %g", res.sizes[c]);
		}
		CHECK(found == 4, "found %d of 4 true centres", found);
		CHECK(res.noisy_n > 19000 && res.noisy_n < 21000, "noisy n %g", res.noisy_n);
		dpk_oneshot_result_free(&res);

		/* No points at all: still exactly k centres, inside the box. */
		dpk_lowd_defaults(&cfg, 1.0, 3);
		dpk_lowd_cluster(&box, pts, 0, &cfg, &s, &res);
		for (c = 0; c < 3; c++)
			CHECK(res.centers[2 * c] >= 0 && res.centers[2 * c] <= 100 &&
				  !isnan(res.sizes[c]), "empty input centre %d", c);
		dpk_oneshot_result_free(&res);

		/* The cell cap is honoured. */
		dpk_lowd_defaults(&cfg, 100.0, 2);
		cfg.max_cells = 100;
		dpk_lowd_cluster(&box, pts, n, &cfg, &s, &res);
		CHECK(res.cells <= 100, "cells %g above cap", res.cells);
		dpk_oneshot_result_free(&res);
		dpk_free(pts);
	}

	/*
	 * A sparse region below the noise of every cell still draws a centre:
	 * 19 000 rows in a tight blob at (10, -8) and 1 000 spread uniformly
	 * over x in [50, 100] (about one per cell, under the cell threshold), k = 2,
	 * epsilon 1.  The second centre belongs in the sparse half's middle.
	 */
	{
		size_t		n = 20000,
					i;
		double		good[4] = {10.0, -8.0, 75.0, 0.0},
					cost,
					ref;
		double	   *pts = dpk_alloc(n * 2 * sizeof(double));
		uint64_t	st = 12345;
		DpkLowdConfig cfg;
		DpkOneshotResult res;

		for (i = 0; i < n; i++)
		{
			if (i < 19000)
			{
				pts[2 * i] = 10.0 + 0.5 * unit_normal(&st);
				pts[2 * i + 1] = -8.0 + 0.2 * unit_normal(&st);
			}
			else
			{
				pts[2 * i] = 50.0 + 50.0 * unit_uniform(&st);
				pts[2 * i + 1] = -10.0 + 20.0 * unit_uniform(&st);
			}
		}
		dpk_lowd_defaults(&cfg, 1.0, 2);
		dpk_lowd_cluster(&box, pts, n, &cfg, &s, &res);
		cost = dpk_kmeans_cost(pts, NULL, (int) n, 2, res.centers, 2, NULL);
		ref = dpk_kmeans_cost(pts, NULL, (int) n, 2, good, 2, NULL);
		CHECK(cost < 1.1 * ref, "cost %g against %g at the blob and the sparse half's middle: "
			  "(%g, %g) (%g, %g)", cost, ref,
			  res.centers[0], res.centers[1], res.centers[2], res.centers[3]);
		dpk_oneshot_result_free(&res);
		dpk_free(pts);
	}
	dpk_stream_close(&s);

	/*
	 * dpk_hist_add_points: the counts and sums of dpk_hist_add after
	 * dpk_box_normalize, point by point (d = 1 to 5; points on and
	 * outside the faces, on the edges between cells, infinite ones, and
	 * NaN ones: the first cell of their coordinate, offset 0).
	 */
	{
		int			dims[5] = {1, 2, 3, 4, 5};
		int			t;

		for (t = 0; t < 5; t++)
		{
			int			d = dims[t],
						j;
			size_t		n = 5000,
						i;
			double		plo[5],
						phi[5];
			DpkBox		pbox = {d, plo, phi};
			double	   *pts = malloc(sizeof(double) * n * d);
			double		pu[5];
			DpkDenseHist h1,
						h2;
			uint64_t	c;
			int			bad = 0;

			for (j = 0; j < d; j++)
			{
				plo[j] = -3.0 * (j + 1);
				phi[j] = 7.0 + j;
			}
			for (i = 0; i < n; i++)
				for (j = 0; j < d; j++)
				{
					double		r = (double) ((i * 7919 + j * 104729) % 10007) / 10007.0;

					pts[i * d + j] = i % 101 == 0 && j == 0 ? NAN
						: i % 97 == 0 ? (j % 2 ? INFINITY : phi[j])
						: i % 5 == 0 ? plo[j] + (phi[j] - plo[j]) * (double) ((i / 5 + j) % (13 - 2 * t)) / (13 - 2 * t)
						: plo[j] - 1.0 + r * (phi[j] - plo[j] + 2.0);
				}
			dpk_hist_init(&h1, d, 13 - 2 * t, true);
			dpk_hist_init(&h2, d, 13 - 2 * t, true);
			for (i = 0; i < n; i++)
			{
				dpk_box_normalize(&pbox, pts + i * d, pu);
				dpk_hist_add(&h1, pu);
			}
			dpk_hist_add_points(&h2, &pbox, pts, n);
			for (c = 0; c < h1.ncells; c++)
			{
				bad += h1.count[c] != h2.count[c];
				for (j = 0; j < d; j++)
					bad += h1.sum[c * d + j] != h2.sum[c * d + j];
			}
			CHECK(bad == 0, "dpk_hist_add_points d = %d: %d counts or sums differ", d, bad);
			dpk_hist_free(&h1);
			dpk_hist_free(&h2);
			free(pts);
		}
	}

	UNIT_DONE("test_grid");
}
