/*
 * test_lowd_stream.c
 *		A one-shot of public N counted as its rows arrive is the one-shot of
 *		all its rows at once.
 *
 * dp_kmeans with n given counts each batch of rows into the histogram and
 * keeps none (lowd.h, dpk_lowd_stream_*).  On the same key, every batching
 * must give dpk_lowd_cluster's noisy N, grid, coreset, centres and sizes
 * bit for bit, for pure and Gaussian noise, k-means and k-median, d = 1..5,
 * points outside the box (clamped) included; without a public N it refuses.
 * Without a public N, dp_kmeans keeps the rows (in memory, then in a
 * temporary file) and counts them in batches once the noisy N is drawn
 * (dpk_lowd_stream_begin_counted): the same bit for bit, in any batching
 * and with the batches in any order.
 */
#include <setjmp.h>
#include <string.h>

#include "dpk_mem.h"
#include "lowd.h"
#include "noise.h"
#include "unit.h"
#include "unit_stream.h"

/* n points in [0, 100]^d around three centres, 2 % of them outside the box. */
static double *
make_points(int d, size_t n, uint64_t seed)
{
	double	   *x = dpk_alloc(n * d * sizeof(double));
	uint64_t	st = seed * 2654435761u + 1;
	size_t		i;
	int			j;

	for (i = 0; i < n; i++)
	{
		int			g = (int) (unit_uniform(&st) * 3);
		bool		out = unit_uniform(&st) < 0.02;

		for (j = 0; j < d; j++)
			x[i * d + j] = out ? -20.0 + 140.0 * unit_uniform(&st)
				: 20.0 + 30.0 * g + 8.0 * (unit_uniform(&st) - 0.5);
	}
	return x;
}

/* Whether two results are the same, bit for bit. */
static bool
same_result(const DpkOneshotResult *a, const DpkOneshotResult *b, int k, int d)
{
	return a->noisy_n == b->noisy_n && a->cells_per_dim == b->cells_per_dim &&
		a->coreset_size == b->coreset_size && a->min_size == b->min_size &&
		a->mean_guard_fired == b->mean_guard_fired &&
		memcmp(a->centers, b->centers, (size_t) k * d * sizeof(double)) == 0 &&
		memcmp(a->sizes, b->sizes, (size_t) k * sizeof(double)) == 0;
}

/* One configuration: all at once against batches of `batch` points. */
static void
check_config(int d, size_t n, double delta, DpkObjective objective, size_t batch,
			 uint64_t seed)
{
	double		lo[5] = {0, 0, 0, 0, 0},
				hi[5] = {100, 100, 100, 100, 100};
	DpkBox		box = {d, lo, hi};
	double	   *x = make_points(d, n, seed);
	DpkLowdConfig cfg;
	DpkOneshotResult whole = {0},
				counted = {0};
	DpkLowdHist lh;
	DpkStream	s;
	size_t		at;

	dpk_lowd_defaults(&cfg, 1.0, 4);
	dpk_lowd_use_delta(&cfg, delta);
	cfg.objective = objective;
	cfg.public_n = (double) n * 0.9;	/* a public guess, not the count */

	unit_open_stream(&s, seed);
	dpk_lowd_cluster(&box, x, n, &cfg, &s, &whole);
	dpk_stream_close(&s);

	unit_open_stream(&s, seed);
	dpk_lowd_stream_begin(&box, &cfg, &lh);
	for (at = 0; at < n; at += batch)
		dpk_lowd_stream_add(&box, &lh, x + at * d, at + batch <= n ? batch : n - at);
	dpk_lowd_stream_finish(&box, &cfg, &lh, &s, &counted);
	dpk_stream_close(&s);

	CHECK(same_result(&whole, &counted, cfg.k, d),
		  "d = %d, n = %zu, delta = %g, objective %d, batches of %zu: counted as rows "
		  "arrive differs from all at once (N %g / %g, coreset %d / %d)",
		  d, n, delta, (int) objective, batch, whole.noisy_n, counted.noisy_n,
		  (int) whole.coreset_size, (int) counted.coreset_size);
	CHECK(counted.coreset_size > 0, "d = %d: nothing rose above the noise", d);
	dpk_oneshot_result_free(&whole);
	dpk_oneshot_result_free(&counted);
	dpk_free(x);
}

/*
 * Without a public N: all at once against the noisy N of the n rows drawn
 * first, then batches of `batch` points, the last one (the rows still in
 * memory) first when tail_first, as dp_kmeans counts a spilled buffer.
 */
static void
check_counted(int d, size_t n, double delta, DpkObjective objective, size_t batch,
			  bool tail_first, uint64_t seed)
{
	double		lo[5] = {0, 0, 0, 0, 0},
				hi[5] = {100, 100, 100, 100, 100};
	DpkBox		box = {d, lo, hi};
	double	   *x = make_points(d, n, seed);
	DpkLowdConfig cfg;
	DpkOneshotResult whole = {0},
				counted = {0};
	DpkLowdHist lh;
	DpkStream	s;
	size_t		tail = !tail_first || n == 0 ? 0 : n % batch ? n % batch : batch,
				at;

	dpk_lowd_defaults(&cfg, 1.0, 4);
	dpk_lowd_use_delta(&cfg, delta);
	cfg.objective = objective;

	unit_open_stream(&s, seed);
	dpk_lowd_cluster(&box, x, n, &cfg, &s, &whole);
	dpk_stream_close(&s);

	unit_open_stream(&s, seed);
	dpk_lowd_stream_begin_counted(&box, &cfg, n, &s, &lh);
	if (tail > 0)
		dpk_lowd_stream_add(&box, &lh, x + (n - tail) * d, tail);
	for (at = 0; at < n - tail; at += batch)
		dpk_lowd_stream_add(&box, &lh, x + at * d, at + batch <= n ? batch : n - at);
	dpk_lowd_stream_finish(&box, &cfg, &lh, &s, &counted);
	dpk_stream_close(&s);

	CHECK(same_result(&whole, &counted, cfg.k, d),
		  "d = %d, n = %zu, delta = %g, objective %d, batches of %zu%s, noisy N: counted "
		  "after the count differs from all at once (N %g / %g, coreset %d / %d)",
		  d, n, delta, (int) objective, batch, tail_first ? ", the last first" : "",
		  whole.noisy_n, counted.noisy_n, (int) whole.coreset_size,
		  (int) counted.coreset_size);
	CHECK(n == 0 || counted.coreset_size > 0, "d = %d: nothing rose above the noise", d);
	dpk_oneshot_result_free(&whole);
	dpk_oneshot_result_free(&counted);
	dpk_free(x);
}

/* Without a public N the grid is not known before the rows: refused. */
static jmp_buf refusal;

static void
catch_refusal(const char *msg)
{
	(void) msg;
	longjmp(refusal, 1);
}

int
main(void)
{
	int			d;

	printf("test_lowd_stream:\n");
	for (d = 1; d <= 5; d++)
	{
		check_config(d, 20000, 0.0, DPK_OBJECTIVE_KMEANS, 4096, 10 + d);
		check_config(d, 20000, 1e-6, DPK_OBJECTIVE_KMEANS, 777, 20 + d);
		check_config(d, 20000, 0.0, DPK_OBJECTIVE_KMEDIAN, 1, 30 + d);
	}
	check_config(2, 300000, 0.0, DPK_OBJECTIVE_KMEANS, 8192, 41);
	for (d = 1; d <= 5; d++)
	{
		check_counted(d, 20000, 0.0, DPK_OBJECTIVE_KMEANS, 4096, true, 50 + d);
		check_counted(d, 20000, 1e-6, DPK_OBJECTIVE_KMEANS, 777, false, 60 + d);
		check_counted(d, 20000, 0.0, DPK_OBJECTIVE_KMEDIAN, 1, false, 70 + d);
		check_counted(d, 20000, 1e-6, DPK_OBJECTIVE_KMEDIAN, 3000, true, 80 + d);
	}
	check_counted(2, 300000, 0.0, DPK_OBJECTIVE_KMEANS, 262144, true, 91);
	check_counted(2, 0, 0.0, DPK_OBJECTIVE_KMEANS, 4096, true, 92);

	{
		double		lo[2] = {0, 0},
					hi[2] = {1, 1};
		DpkBox		box = {2, lo, hi};
		DpkLowdConfig cfg;
		DpkLowdHist lh;
		dpk_fail_fn saved = dpk_fail_hook;
		volatile bool refused = false;

		dpk_lowd_defaults(&cfg, 1.0, 2);
		dpk_fail_hook = catch_refusal;
		if (setjmp(refusal) == 0)
		{
			dpk_lowd_stream_begin(&box, &cfg, &lh);
			dpk_hist_free(&lh.hist);
		}
		else
			refused = true;
		dpk_fail_hook = saved;
		CHECK(refused, "a one-shot without a public N was counted as rows arrive");
	}
	UNIT_DONE("test_lowd_stream");
}
