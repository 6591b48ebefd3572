/*
 * test_oneshot_guard.c
 *		The mean guard of low-d one-shot releases (dpk_lowd_mean_guard,
 *		lowd.h): on the release's own noisy histogram it replaces k centres
 *		that cost far more than one centre at the histogram's noisy mean,
 *		under every key, pure and under delta, by that centre; it never
 *		fires on the one-shot's own centres of well-separated clusters, nor
 *		on their true means.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dpk_mem.h"
#include "grid.h"
#include "lowd.h"
#include "noise.h"
#include "prng.h"
#include "unit.h"
#include "unit_stream.h"

#define D 2
#define K 4
#define KEYS 6

/* A normal draw (Box-Muller) from a public generator. */
static double
normal(DpkPrng *g)
{
	double		u1 = ((double) (dpk_prng_next(g) >> 11) + 0.5) * 0x1p-53,
				u2 = (double) (dpk_prng_next(g) >> 11) * 0x1p-53;

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/*
 * n rows in [0, 100]^2: one blob at (15, 15) (clusters = 1) or four blobs
 * at the corners of a square 50 apart, sd 3; their true means in means.
 */
static double *
make_rows(size_t n, int clusters, double *means)
{
	double	   *x = dpk_alloc(sizeof(double) * n * D);
	double		sum[K][D] = {{0}};
	size_t		cnt[K] = {0},
				i;
	DpkPrng		g;
	int			c,
				j;

	dpk_prng_seed(&g, 7 + clusters);
	for (i = 0; i < n; i++)
	{
		c = (int) (i % (size_t) clusters);
		for (j = 0; j < D; j++)
		{
			double		centre = clusters == 1 ? 15.0 : 25.0 + 50.0 * ((c >> j) & 1);

			x[i * D + j] = centre + 3.0 * normal(&g);
			sum[c][j] += x[i * D + j];
		}
		cnt[c]++;
	}
	for (c = 0; c < clusters; c++)
		for (j = 0; j < D; j++)
			means[c * D + j] = sum[c][j] / (double) cnt[c];
	return x;
}

/* The one-shot configuration of dp_kmeans at eps (delta > 0: Gaussian). */
static void
make_config(DpkLowdConfig *cfg, double eps, double delta)
{
	dpk_lowd_defaults(cfg, eps, K);
	dpk_lowd_use_delta(cfg, delta);
}

/*
 * A blob near one corner, the K centres in the far quarter: the guard
 * replaces them under every key by one centre near the blob's mean.
 */
static void
test_fires(double delta)
{
	const double lo[D] = {0, 0},
				hi[D] = {100, 100};
	DpkBox		box = {D, (double *) lo, (double *) hi};
	double		mean[K * D];
	size_t		n = 2000;
	double	   *x = make_rows(n, 1, mean);
	int			key,
				fired = 0;
	double		worst = 0.0;

	for (key = 0; key < KEYS; key++)
	{
		DpkLowdConfig cfg;
		DpkLowdHist lh;
		DpkStream	s;
		double		centers[K * D] = {80, 80, 90, 80, 80, 90, 90, 90},
					sizes[K] = {500, 500, 500, 500};
		int			i;

		make_config(&cfg, 1.0, delta);
		unit_open_stream(&s, 100 + key);
		dpk_lowd_noisy_histogram(&box, x, n, &cfg, &s, &lh);
		dpk_stream_close(&s);
		if (dpk_lowd_mean_guard(&box, &lh, K, centers, sizes))
		{
			fired++;
			for (i = 0; i < K; i++)
				worst = fmax(worst, hypot(centers[i * D] - mean[0],
										  centers[i * D + 1] - mean[1]));
			CHECK(sizes[0] > 1500.0 && sizes[1] == 0.0 && sizes[K - 1] == 0.0,
				  "replaced: sizes %g, %g", sizes[0], sizes[1]);
		}
		dpk_hist_free(&lh.hist);
	}
	CHECK(fired == KEYS, "delta %g: far centres replaced under %d of %d keys", delta,
		  fired, KEYS);
	CHECK(worst < 5.0, "delta %g: the one centre is %g from the blob's mean", delta, worst);
	dpk_free(x);
}

/*
 * Four separated clusters: the one-shot's own centres and the true means
 * are never replaced (ε = 0.5 and 1, pure and δ, several keys).
 */
static void
test_never_on_clusters(void)
{
	const double lo[D] = {0, 0},
				hi[D] = {100, 100};
	DpkBox		box = {D, (double *) lo, (double *) hi};
	double		mean[K * D];
	size_t		n = 8000;
	double	   *x = make_rows(n, K, mean);
	double		eps[2] = {0.5, 1.0},
				deltas[2] = {0.0, 1e-6};
	int			e,
				dl,
				key,
				fired_own = 0,
				fired_true = 0,
				runs = 0;

	for (e = 0; e < 2; e++)
		for (dl = 0; dl < 2; dl++)
			for (key = 0; key < KEYS; key++)
			{
				DpkLowdConfig cfg;
				DpkOneshotResult res = {0};
				DpkLowdHist lh;
				DpkStream	s;
				double		centers[K * D],
							sizes[K] = {1, 1, 1, 1};

				make_config(&cfg, eps[e], deltas[dl]);
				unit_open_stream(&s, 200 + key);
				dpk_lowd_cluster(&box, x, n, &cfg, &s, &res);
				dpk_stream_close(&s);
				fired_own += res.mean_guard_fired;
				dpk_oneshot_result_free(&res);

				memcpy(centers, mean, sizeof(centers));
				unit_open_stream(&s, 300 + key);
				dpk_lowd_noisy_histogram(&box, x, n, &cfg, &s, &lh);
				dpk_stream_close(&s);
				fired_true += dpk_lowd_mean_guard(&box, &lh, K, centers, sizes);
				dpk_hist_free(&lh.hist);
				runs++;
			}
	CHECK(fired_own == 0, "the one-shot's own centres replaced in %d of %d releases",
		  fired_own, runs);
	CHECK(fired_true == 0, "the true means replaced in %d of %d histograms", fired_true, runs);
	dpk_free(x);
}

int
main(void)
{
	test_fires(0.0);
	test_fires(1e-6);
	test_never_on_clusters();
	UNIT_DONE("test_oneshot_guard");
}
