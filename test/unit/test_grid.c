/*
 * test_grid.c
 *		Box, cell numbering, histograms, coresets and the one-shot pipeline.
 */
#include <math.h>
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

	dpk_blas_single_thread();

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
	dpk_stream_close(&s);

	UNIT_DONE("test_grid");
}
