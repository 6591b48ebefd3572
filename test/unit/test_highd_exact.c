/*
 * test_highd_exact.c
 *		The high-dimensional passes' fast paths give what the plain ones gave.
 *
 * A one-shot's centres depend on every row's projected cell and nearest
 * projected centre; the passes over the rows compute them in batches (cell
 * numbers of a chunk at once, four squared distances per vector) and must
 * find the same integers as dpk_grid_cell and dpk_highd_nearest, ties and
 * faces included.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dpk_mem.h"
#include "grid.h"
#include "highd.h"
#include "lift.h"
#include "unit.h"

static uint64_t test_state = 0x243F6A8885A308D3ULL;

/* Test data in [0, 1), on a lattice of `steps` values when steps > 0. */
static double
test_coord(int steps)
{
	double		u = unit_uniform(&test_state);

	return steps > 0 ? floor(u * steps) / steps : u;
}

/*
 * dpk_highd_nearest_append against dpk_highd_nearest: dim 1 .. 6, k 1 .. 70
 * (the vector search holds up to 64), points and centres on coarse lattices
 * (many exact ties, duplicated centres) and anywhere, labels appended to
 * what the array held.
 */
static void
test_nearest_append(void)
{
	static const int ks[] = {1, 2, 3, 4, 5, 7, 8, 10, 13, 31, 64, 65, 70};
	int			dim,
				ki,
				lattice,
				bad = 0,
				cases = 0;
	size_t		n = 3001;

	for (dim = 1; dim <= 6; dim++)
		for (ki = 0; ki < (int) (sizeof(ks) / sizeof(ks[0])); ki++)
			for (lattice = 0; lattice < 3; lattice++)
			{
				int			k = ks[ki],
							steps = lattice == 0 ? 0 : (lattice == 1 ? 4 : 32);
				double	   *x = dpk_alloc(sizeof(double) * n * dim);
				double	   *c = dpk_alloc(sizeof(double) * (size_t) k * dim);
				int		   *fast = dpk_alloc(sizeof(int) * n);
				size_t		i;
				int			j;

				for (i = 0; i < n * dim; i++)
					x[i] = test_coord(steps);
				for (j = 0; j < k * dim; j++)
					c[j] = test_coord(steps);
				if (k > 2)		/* a duplicated centre */
					memcpy(c + (size_t) (k - 1) * dim, c + dim, sizeof(double) * dim);
				for (i = 0; i < n; i++)
					fast[i] = (int) (i % 3);
				dpk_highd_nearest_append(x, n, c, k, dim, fast);
				for (i = 0; i < n; i++)
					bad += fast[i] != (int) (i % 3) * k + dpk_highd_nearest(x + i * dim, c, k, dim);
				cases++;
				dpk_free(x);
				dpk_free(c);
				dpk_free(fast);
			}
	CHECK(bad == 0, "%d nearest centres differ over %d cases", bad, cases);
}

/*
 * dpk_grid_cell_batch against dpk_grid_cell, d = 1 .. 6, on points at cell
 * boundaries, on the faces 0 and 1, and anywhere.
 */
static void
test_cell_batch(void)
{
	int			d,
				m,
				bad = 0;
	size_t		n = 2000;

	for (d = 1; d <= 6; d++)
		for (m = 1; m <= 29; m += 7)
		{
			double	   *u = dpk_alloc(sizeof(double) * n * d);
			uint64_t   *cells = dpk_alloc(sizeof(uint64_t) * n);
			size_t		i;

			for (i = 0; i < n * d; i++)
				u[i] = i % 5 == 0 ? test_coord(m) : (i % 7 == 0 ? 1.0 : test_coord(0));
			dpk_grid_cell_batch(d, m, u, n, cells);
			for (i = 0; i < n; i++)
				bad += cells[i] != dpk_grid_cell(d, m, u + i * d, NULL, NULL);
			dpk_free(u);
			dpk_free(cells);
		}
	CHECK(bad == 0, "%d cell numbers differ", bad);
}

/*
 * Near ties: around each point, centres whose differences from it are the
 * same four numbers in other orders (a lattice of step 2^-10, so every
 * difference and square is exact and the distances equal), then the same
 * with differences off the lattice, equal in exact arithmetic but not once
 * rounded: which is nearest depends on each sum's order of additions.
 */
static void
test_nearest_ties(void)
{
	static const int perm[6][4] = {{0, 1, 2, 3}, {3, 2, 1, 0}, {1, 0, 3, 2},
	{2, 3, 0, 1}, {0, 2, 1, 3}, {3, 1, 2, 0}};
	int			bad = 0,
				r;

	for (r = 0; r < 200000; r++)
	{
		double		t[4],
					e[4],
					c[6 * 4];
		int			lab = 0,
					j,
					i;

		for (i = 0; i < 4; i++)
		{
			t[i] = 0.25 + 0.5 * test_coord(r % 2 ? 0 : 1024);
			e[i] = (test_coord(r % 2 ? 0 : 1024) - 0.5) * 0.25;
		}
		for (j = 0; j < 6; j++)
			for (i = 0; i < 4; i++)
				c[j * 4 + i] = t[i] + e[perm[j][i]];
		dpk_highd_nearest_append(t, 1, c, 6, 4, &lab);
		bad += lab != dpk_highd_nearest(t, c, 6, 4);
	}
	CHECK(bad == 0, "%d nearest centres differ at near ties", bad);
}

/*
 * dpk_highd_metric_row against what every pass computed before the rows
 * were made metric once: dpk_box_normalize, dpk_box_to_metric and the
 * ball's clamp, bit for bit (the sign of a zero included), on boxes whose
 * sides are all equal (the vector path) or not, with and without a ball,
 * for coordinates inside, on the faces, outside, -0 and +-Inf; and
 * dpk_highd_metric_take from the same rows (the same doubles, the box
 * test, NaN rows refused).
 */
static void
test_metric_row(void)
{
	int			d,
				shape,
				bad = 0,
				take_bad = 0,
				take_inside = 0;

	for (d = 6; d <= 19; d += 13 - 6 * (d > 6))
		for (shape = 0; shape < 4; shape++)
		{
			double		lo[19],
						hi[19];
			DpkBox		box = {d, lo, hi};
			DpkHighdConfig cfg;
			DpkHighdMetricMap mm;
			int			r,
						j;

			for (j = 0; j < d; j++)
			{
				lo[j] = shape == 3 ? -1.0 : 0.0;
				hi[j] = shape == 1 && j % 3 == 1 ? 40.0 : (shape == 3 ? 1.0 : 100.0);
			}
			dpk_highd_defaults(&cfg, 1.0, 5);
			dpk_highd_use_ball(&cfg, &box, shape >= 2 ? 0.6 * (hi[0] - lo[0]) : 0.0);
			dpk_highd_metric_map_init(&mm, &box, &cfg);
			for (r = 0; r < 20000; r++)
			{
				double		x[19],
							a[19],
							b[19],
							c[19];
				bool		inside;
				int			got;

				for (j = 0; j < d; j++)
				{
					int			kind = (r * 7 + j * 3) % 23;

					x[j] = r % 5 == 0 ? lo[j] + (hi[j] - lo[j]) * unit_uniform(&test_state)
						: kind == 0 ? -0.0 : kind == 1 ? lo[j] : kind == 2 ? hi[j]
						: kind == 3 ? INFINITY : kind == 4 ? -INFINITY
						: lo[j] + (hi[j] - lo[j]) * (1.4 * unit_uniform(&test_state) - 0.2);
				}
				memcpy(a, x, sizeof(double) * d);
				dpk_highd_metric_row(&mm, a);
				dpk_box_normalize(&box, x, b);
				dpk_box_to_metric(&box, b);
				dpk_box_ball_clamp(d, cfg.ball, b);
				bad += memcmp(a, b, sizeof(double) * d) != 0;
				/* the arriving row read once: the same doubles, its box test */
				inside = true;
				for (j = 0; j < d; j++)
					inside = inside && x[j] >= lo[j] && x[j] <= hi[j];
				memcpy(a, x, sizeof(double) * d);
				got = dpk_highd_metric_take(&mm, a, c);
				take_bad += memcmp(c, b, sizeof(double) * d) != 0 ||
					memcmp(a, x, sizeof(double) * d) != 0 ||
					got != (inside ? DPK_METRIC_INSIDE : DPK_METRIC_OUTSIDE);
				/* a NaN anywhere: not a point */
				a[r % d] = NAN;
				take_bad += dpk_highd_metric_take(&mm, a, c) != DPK_METRIC_NAN;
				if (inside)
					take_inside++;
			}
			dpk_highd_metric_map_free(&mm);
		}
	CHECK(bad == 0, "%d rows have other metric positions", bad);
	CHECK(take_bad == 0 && take_inside > 0,
		  "dpk_highd_metric_take: %d rows differ (%d inside)", take_bad, take_inside);
}

/*
 * dpk_lift_quantize_add against the scalar loop it replaced (sum[j] +=
 * dpk_lift_quantize_one(u[j])): d 1 .. 40, coordinates anywhere in and
 * around [0, 1], on the ties (x = n + 1/2 exactly) and one ulp either side
 * of them, -0, 0, 1 and +-Inf, added to sums of any sign (a NaN has no
 * quantized value: rows holding one are never read).
 */
static void
test_quantize_add(void)
{
	int			bad = 0,
				t;

	for (t = 0; t < 200000; t++)
	{
		int			d = 1 + t % 40,
					j;
		double		u[40];
		int64_t		fast[40],
					plain[40];

		for (j = 0; j < d; j++)
		{
			int			kind = (int) (unit_uniform(&test_state) * 12);
			double		tie = 0.5 + (floor(unit_uniform(&test_state) * 1024) - 511.5) / DPK_LIFT_UNITS;

			u[j] = kind == 0 ? -0.0 : kind == 1 ? 0.0 : kind == 2 ? 1.0
				: kind == 3 ? (t % 2 ? INFINITY : -INFINITY) : kind == 4 ? 0.25
				: kind == 5 ? tie : kind == 6 ? nextafter(tie, 2.0) : kind == 7 ? nextafter(tie, -1.0)
				: kind == 8 ? 1e-300 * unit_uniform(&test_state)
				: -0.2 + 1.4 * unit_uniform(&test_state);
			fast[j] = plain[j] = (int64_t) (unit_uniform(&test_state) * 2e6) - 1000000;
		}
		dpk_lift_quantize_add(u, d, fast);
		for (j = 0; j < d; j++)
			plain[j] += dpk_lift_quantize_one(u[j]);
		bad += memcmp(fast, plain, sizeof(int64_t) * d) != 0;
	}
	CHECK(bad == 0, "%d rows quantized into other sums", bad);
}

int
main(void)
{
	printf("test_highd_exact:\n");
	test_quantize_add();
	test_metric_row();
	test_nearest_ties();
	test_nearest_append();
	test_cell_batch();
	UNIT_DONE("test_highd_exact");
}
