/*
 * bench_kmeans_stage.c
 *		Time of the k-means stage alone, the Lloyd passes with and without the
 *		kd-tree filter (doc/decisions/071-kmeans-filter.md).
 *
 * The coresets are those the pipelines cluster: the one-shot's (noisy
 * histogram of --n uniform or pickup rows in [0, 100]^d, ε = 1, k = 10,
 * screened restarts on a sample as lowd.c runs them) and a live release's
 * (every cell of a grid of 256 or 16 384 cells, 10 screened restarts).
 * Each line: the coreset size, the best CPU time of --reps runs with the
 * point-by-point passes (Hamerly's bounds) and with the filter, their
 * ratio, and the relative difference of the two runs' costs.
 *
 * Options: --n N (rows, default 1000000)  --reps N (default 5)
 *			--d D (default 2)  --k K (default 10)
 *			--only points|filter (profiling: one of the two)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lowd.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "noise.h"

#define BENCH_PROG "bench_kmeans_stage"

#include "mixture.h"
#include "bench_common.h"

/* Print the options and exit. */
static void
usage(void)
{
	fprintf(stderr, "usage: bench_kmeans_stage [--n N] [--reps N] [--d D] [--k K] [--only points|filter]\n");
	exit(2);
}

/* One screened k-means of pts as its caller runs it; returns the cost. */
static double
stage_run(const DpkPoints *pts, int k, int restarts, int stride)
{
	double	   *c = malloc(sizeof(double) * (size_t) k * pts->d);
	double	   *sz = malloc(sizeof(double) * (size_t) k);
	double		cost;

	cost = dpk_kmeans_screened_sample(pts, &(DpkClusterOpts) {k, restarts, 100, 12345},
									  5, 3, stride, &(DpkClusterOut) {c, sz});
	free(c);
	free(sz);
	return cost;
}

/* CPU time of this thread in ms: other work on the machine does not count. */
static double
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Only the point-by-point passes (0) or the filter (1); -1: both. */
static int	only = -1;

/* Best time of reps runs with the filter off and on; prints one line. */
static void
stage_line(const char *what, const DpkPoints *pts, int k, int restarts, int stride, int reps)
{
	double		best[2] = {HUGE_VAL, HUGE_VAL},
				cost[2] = {0, 0};
	int			r,
				f;

	for (r = 0; r < reps; r++)
		for (f = 0; f < 2; f++)
		{
			if (only >= 0 && f != only)
				continue;
			double		t0 = cpu_ms(),
						t;

			dpk_kmeans_filter = f == 1;
			cost[f] = stage_run(pts, k, restarts, stride);
			t = cpu_ms() - t0;
			if (t < best[f])
				best[f] = t;
		}
	dpk_kmeans_filter = true;
	printf("%-28s n=%6d  points %7.2f ms  filter %6.2f ms  %5.2fx  cost %.15g (diff %.1e)\n",
		   what, pts->n, best[0], best[1], best[0] / best[1], cost[only >= 0 ? only : 0],
		   fabs(cost[1] - cost[0]) / fmax(cost[0], 1e-300));
	fflush(stdout);
}

/* A live release's coreset: every cell of an m^d grid, weight = count. */
static void
live_coreset(const DpkBox *box, const double *x, size_t n, int m, DpkCoreset *cs)
{
	DpkDenseHist h;

	dpk_hist_init(&h, box->d, m, true);
	dpk_hist_add_points(&h, box, x, n);
	dpk_coreset_from_hist(&h, box, 0.0, 0.0, cs);
	dpk_hist_free(&h);
}

int
main(int argc, char **argv)
{
	size_t		n = 1000000;
	int			reps = 5,
				d = 2,
				k = 10,
				i,
				t,
				pass;
	double		lower[16],
				upper[16];
	double	   *x;
	DpkBox		box;
	MixRng		rng;

	for (i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
			n = (size_t) atol(argv[++i]);
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "--d") == 0 && i + 1 < argc)
			d = atoi(argv[++i]);
		else if (strcmp(argv[i], "--k") == 0 && i + 1 < argc)
			k = atoi(argv[++i]);
		else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
			only = strcmp(argv[++i], "filter") == 0 ? 1 : 0;
		else
			usage();
	}
	if (d < 1 || d > 16 || k < 1 || reps < 1 || n < 1)
		usage();
	for (t = 0; t < d; t++)
	{
		lower[t] = 0.0;
		upper[t] = 100.0;
	}
	box = (DpkBox) {d, lower, upper};
	mix_rng_seed(&rng, 42);
	x = malloc(sizeof(double) * n * d);

	/* (no mixture at d = 1: k centres 15 apart do not fit in [0, 100]) */
	for (pass = 0; pass < (d > 1 ? 2 : 1); pass++)
	{
		DpkLowdConfig cfg;
		DpkLowdHist lh;
		DpkCoreset	cs;
		DpkStream	s = {0};
		char		what[64];
		int			stride;

		/* uniform rows, then the benchmark's Gaussian mixture of k clusters */
		if (pass == 0)
			for (i = 0; i < (int) n * d; i++)
				x[i] = 100.0 * mix_rng_uniform(&rng);
		else
		{
			MixSpec		sp = mix_default_spec(d, k, n);
			MixData		mx;

			mix_generate(&sp, 100, &mx);
			memcpy(x, mx.points, sizeof(double) * n * d);
			mix_free(&mx);
		}

		dpk_lowd_defaults(&cfg, 1.0, k);
		open_seed_stream(&s, 7 + pass);
		dpk_lowd_noisy_histogram(&box, x, n, &cfg, &s, &lh);
		dpk_lowd_coreset(&box, &cfg, &lh, &cs, NULL);
		stride = cfg.screen_points > 0 && cs.n > cfg.screen_points
			? (cs.n + cfg.screen_points - 1) / cfg.screen_points : 1;
		snprintf(what, sizeof what, "one-shot %s, eps 1", pass ? "mixture" : "uniform");
		stage_line(what, &(DpkPoints) {cs.points, cs.weights, cs.n, d}, k, cfg.restarts,
				   stride, reps);
		dpk_coreset_free(&cs);
		dpk_hist_free(&lh.hist);
		dpk_stream_close(&s);

		for (i = 0; i < 2; i++)
		{
			int			m = (int) floor(pow(i == 0 ? 256.0 : 16384.0, 1.0 / d) + 1e-9);

			live_coreset(&box, x, n, m, &cs);
			snprintf(what, sizeof what, "live %s, %d cells", pass ? "mixture" : "uniform",
					 (int) pow(m, d));
			stage_line(what, &(DpkPoints) {cs.points, cs.weights, cs.n, d}, k, 10, 1, reps);
			dpk_coreset_free(&cs);
		}
	}
	free(x);
	return 0;
}
