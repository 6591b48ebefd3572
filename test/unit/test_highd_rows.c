/*
 * test_highd_rows.c
 *		A high-dimensional one-shot whose rows are read a chunk at a time is
 *		the one-shot of the array of them.
 *
 * dp_kmeans at 6 columns or more keeps its rows up to work_mem and the rest
 * in a temporary file, and the one-shot's passes read them through a
 * reader (highd.h, dpk_highd_oneshot_cluster_rows).  On the same key it
 * must give dpk_highd_oneshot_cluster's centres, sizes and coreset bit for
 * bit: pure and Gaussian, k-means and k-median, with and without a norm
 * bound (with delta the SimHash tree seed and the refinement steps), raw
 * rows and metric positions, rows outside the box included.
 */
#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "highd.h"
#include "noise.h"
#include "unit.h"
#include "unit_stream.h"

enum
{
	D = 16, N = 20000, K = 5
};

/* The array a reader reads, and what it saw. */
typedef struct ArrayRows
{
	const double *x;
	int			d;
	size_t		next;			/* the row after the last read */
	size_t		reads;
	size_t		out_of_order;	/* reads not at row 0 or the next row */
} ArrayRows;

/* read for DpkHighdRows: rows from .. from + rows - 1 of the array. */
static void
array_read(void *arg, size_t from, size_t rows, double *out)
{
	ArrayRows  *a = arg;

	if (from != 0 && from != a->next)
		a->out_of_order++;
	memcpy(out, a->x + from * a->d, sizeof(double) * rows * a->d);
	a->next = from + rows;
	a->reads++;
}

/* n points in [0, 100]^D around K centres, 2 % of them outside the box. */
static double *
make_points(size_t n, uint64_t seed)
{
	double	   *x = dpk_alloc(sizeof(double) * n * D);
	uint64_t	st = seed * 2654435761u + 1;
	size_t		i;
	int			j;

	for (i = 0; i < n; i++)
	{
		int			g = (int) (unit_uniform(&st) * K);
		bool		out = unit_uniform(&st) < 0.02;

		for (j = 0; j < D; j++)
			x[i * D + j] = out ? -20.0 + 140.0 * unit_uniform(&st)
				: 10.0 + 18.0 * ((g + j) % K) + 6.0 * (unit_uniform(&st) - 0.5);
	}
	return x;
}

/* One configuration: the array against the reader over it. */
static void
check_config(double delta, DpkObjective objective, double norm_bound, bool metric,
			 uint64_t seed)
{
	double		lo[D],
				hi[D];
	DpkBox		box = {D, lo, hi};
	double	   *x = make_points(N, seed);
	DpkHighdConfig cfg;
	DpkOneshotResult whole = {0},
				read = {0};
	ArrayRows	a = {x, D, 0, 0, 0};
	DpkHighdRows rows = {array_read, &a};
	DpkStream	s;
	int			j;

	for (j = 0; j < D; j++)
	{
		lo[j] = 0.0;
		hi[j] = 100.0;
	}
	dpk_highd_defaults(&cfg, 1.0, K);
	dpk_highd_use_delta(&cfg, delta);
	cfg.objective = objective;
	if (norm_bound > 0.0)
		dpk_highd_use_ball(&cfg, &box, norm_bound);
	if (metric)
		dpk_highd_metric_points(&box, &cfg, x, N);

	unit_open_stream(&s, seed);
	dpk_highd_oneshot_cluster(&box, x, N, &cfg, &s, &whole);
	dpk_stream_close(&s);

	unit_open_stream(&s, seed);
	dpk_highd_oneshot_cluster_rows(&box, &rows, N, &cfg, &s, &read);
	dpk_stream_close(&s);

	CHECK(whole.coreset_size == read.coreset_size &&
		  whole.noisy_n == read.noisy_n &&
		  memcmp(whole.centers, read.centers, sizeof(double) * K * D) == 0 &&
		  memcmp(whole.sizes, read.sizes, sizeof(double) * K) == 0,
		  "delta %g, objective %d, norm bound %g, metric %d: rows read in chunks "
		  "released differently (N %g / %g, coreset %d / %d)",
		  delta, (int) objective, norm_bound, (int) metric, whole.noisy_n, read.noisy_n,
		  (int) whole.coreset_size, (int) read.coreset_size);
	CHECK(a.reads >= (size_t) (N + DPK_PROJ_CHUNK - 1) / DPK_PROJ_CHUNK,
		  "delta %g, objective %d: %zu chunks read, fewer than one pass", delta,
		  (int) objective, a.reads);
	CHECK(a.out_of_order == 0, "delta %g, objective %d: %zu reads out of order", delta,
		  (int) objective, a.out_of_order);
	dpk_oneshot_result_free(&whole);
	dpk_oneshot_result_free(&read);
	dpk_free(x);
}

int
main(void)
{
	printf("test_highd_rows:\n");
	check_config(0.0, DPK_OBJECTIVE_KMEANS, 0.0, false, 1);
	check_config(0.0, DPK_OBJECTIVE_KMEANS, 0.0, true, 2);
	check_config(1e-6, DPK_OBJECTIVE_KMEANS, 0.0, true, 3);
	check_config(0.0, DPK_OBJECTIVE_KMEDIAN, 0.0, false, 4);
	check_config(0.0, DPK_OBJECTIVE_KMEDIAN, 0.0, true, 5);
	check_config(1e-6, DPK_OBJECTIVE_KMEANS, 150.0, true, 6);
	check_config(1e-6, DPK_OBJECTIVE_KMEANS, 150.0, false, 7);
	check_config(0.0, DPK_OBJECTIVE_KMEANS, 150.0, true, 8);
	check_config(1e-6, DPK_OBJECTIVE_KMEDIAN, 150.0, true, 9);
	UNIT_DONE("test_highd_rows");
}
