/*
 * test_live_lowd_guard.c
 *		The mean guard of low-d live releases (dpk_live_lowd_guard,
 *		live_core.h): on a table's own noisy histogram it replaces K centres
 *		that cost far more than one centre at the mean, under every key, pure
 *		and under delta; it never fires on well-separated clusters, neither
 *		on their true means nor on the releases' own centres; and its
 *		estimate is unbiased for a fixed set of centres.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cellmap.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "live_core.h"
#include "noise.h"
#include "unit.h"

#define D 2
#define K 4
#define T 16
#define KEYS 6

/* A low-d live table of `rows` rows as bench_continual configures one. */
static void
make_table(DpkLiveConfig *cfg, double eps, double delta, size_t rows)
{
	dpk_live_defaults(cfg, D, K, eps, T, true);
	dpk_live_use_delta(cfg, delta);
	cfg->level = dpk_live_choose_level(cfg, (double) rows, 4194304.0);
	if (delta > 0.0)
		dpk_live_use_counter(cfg, NULL, (double) rows, 4194304.0, false);
}

/* Insert rows (n * D, box coordinates) into the table's state. */
static void
fill(const DpkLiveConfig *cfg, const DpkBox *box, DpkCellMap *map, const double *rows,
	 size_t n)
{
	double		u[D];
	int64_t		idx[D],
				rel[D];
	size_t		i;

	for (i = 0; i < n; i++)
	{
		uint64_t	cell;

		dpk_box_normalize(box, rows + i * D, u);
		cell = dpk_grid_cell(D, 1 << cfg->level, u, idx, rel);
		dpk_cellmap_add_point(map, cell, rel, 1);
	}
}

/* The noisy histogram of release t under key_seed. */
static void
noisy(const DpkLiveConfig *cfg, const DpkCellMap *map, uint64_t key_seed, uint32_t t,
	  DpkDenseHist *h)
{
	uint8_t		key[DPK_KEY_BYTES],
				nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s = {0};

	dpk_key_from_seed(key_seed, key);
	if (!dpk_stream_open(&s, key, nonce))
		exit(1);
	dpk_live_noisy_histogram(cfg, key, map, t, &s, h);
	dpk_stream_close(&s);
}

/* n rows around `centres` (nc * D) with spread sd, cluster i % nc. */
static double *
rows_around(const double *centres, int nc, double sd, size_t n, uint64_t seed)
{
	double	   *x = dpk_alloc(sizeof(double) * n * D);
	uint64_t	st = seed;
	size_t		i;
	int			j;

	for (i = 0; i < n; i++)
		for (j = 0; j < D; j++)
			x[i * D + j] = fmin(100.0, fmax(0.0, centres[(i % nc) * D + j] +
										   sd * unit_normal(&st)));
	return x;
}

/*
 * The constructed case: one blob near a corner of the box, the release's
 * own k' = 1 centre kept and block K set to four points of the far
 * quarter (each row about 57 or more from them, 7 from the mean): the
 * guard replaces block K with the one centre under every key, pure and
 * with delta, and its cost becomes k' = 1's.
 */
static void
test_fires_on_bad_centres(void)
{
	double		lower[D] = {0.0, 0.0},
				upper[D] = {100.0, 100.0},
				blob[D] = {20.0, 20.0},
				corners[K * D] = {60, 60, 90, 60, 60, 90, 90, 90};
	DpkBox		box = {D, lower, upper};
	size_t		n = 2000;
	double	   *x = rows_around(blob, 1, 5.0, n, 0xB10BULL);
	int			pass;

	CHECK(dpk_kmeans_cost(x, NULL, (int) n, D, corners, K, NULL) >
		  10.0 * dpk_kmeans_cost(x, NULL, (int) n, D, blob, 1, NULL),
		  "the constructed centres are far dearer than the mean");
	for (pass = 0; pass < 2; pass++)
	{
		DpkLiveConfig cfg;
		DpkCellMap	map;
		uint64_t	key;
		int			replaced = 0;

		make_table(&cfg, 1.0, pass == 0 ? 0.0 : 1e-6, n);
		dpk_cellmap_init(&map, D);
		fill(&cfg, &box, &map, x, n);
		for (key = 1; key <= KEYS; key++)
		{
			DpkDenseHist h;
			DpkLiveRelease rel;
			int			i,
						fired;
			bool		one = true;

			noisy(&cfg, &map, key, T, &h);
			dpk_live_cluster_centres(&cfg, &box, &h, T, key, &rel);
			memcpy(rel.centers + (size_t) dpk_live_block(K) * D, corners, sizeof(corners));
			rel.costs[K - 1] = 0.0;
			fired = dpk_live_lowd_guard(&cfg, &box, &h, T, &rel);
			for (i = 0; i < K; i++)
				one = one && memcmp(rel.centers + ((size_t) dpk_live_block(K) + i) * D,
									rel.centers, sizeof(double) * D) == 0;
			replaced += fired >= 1 && one && rel.costs[K - 1] == rel.costs[0];
			dpk_live_release_free(&rel);
			dpk_hist_free(&h);
		}
		CHECK(replaced == KEYS, "%s: the guard replaced the corners under %d of %d keys",
			  pass == 0 ? "pure" : "delta", replaced, KEYS);
		dpk_cellmap_free(&map);
	}
	dpk_free(x);
}

/*
 * Well-separated clusters (4 of 2 000 rows, sd 4, 50 apart), pure and with
 * delta at eps 0.5 and 1: neither the releases of t = 4 .. T (the whole
 * pipeline) nor the clusters' true means set as block K ever fire.
 */
static void
test_never_on_clusters(void)
{
	double		lower[D] = {0.0, 0.0},
				upper[D] = {100.0, 100.0},
				gen[K * D] = {25, 25, 75, 25, 25, 75, 75, 75};
	DpkBox		box = {D, lower, upper};
	size_t		n = 8000;
	double	   *x = rows_around(gen, K, 4.0, n, 0xC1A55ULL);
	int			pass,
				releases = 0,
				fired = 0,
				fired_true = 0;

	for (pass = 0; pass < 4; pass++)
	{
		DpkLiveConfig cfg;
		DpkCellMap	map;
		uint64_t	key;
		uint32_t	t;

		make_table(&cfg, pass < 2 ? 1.0 : 0.5, pass % 2 ? 1e-6 : 0.0, n);
		dpk_cellmap_init(&map, D);
		/* the stream in T batches, a release after each from t = 4 */
		for (t = 1; t <= T; t++)
		{
			fill(&cfg, &box, &map, x + (size_t) (t - 1) * (n / T) * D, n / T);
			if (t < 4)
				continue;
			for (key = 1; key <= 2; key++)
			{
				DpkDenseHist h;
				DpkLiveRelease rel;

				noisy(&cfg, &map, key, t, &h);
				dpk_live_cluster(&cfg, &box, &h, t, key, &rel);
				fired += rel.guard_fired;
				releases++;
				/* the true means as block K */
				memcpy(rel.centers + (size_t) dpk_live_block(K) * D, gen, sizeof(gen));
				fired_true += dpk_live_lowd_guard(&cfg, &box, &h, t, &rel) > 0 &&
					memcmp(rel.centers + (size_t) dpk_live_block(K) * D, gen,
						   sizeof(gen)) != 0;
				dpk_live_release_free(&rel);
				dpk_hist_free(&h);
			}
		}
		dpk_cellmap_free(&map);
	}
	CHECK(fired == 0, "the guard fired %d times in %d releases of separated clusters",
		  fired, releases);
	CHECK(fired_true == 0, "the guard replaced the true means in %d of %d releases",
		  fired_true, releases);
	dpk_free(x);
}

/*
 * The estimate for fixed centres: over many keys its mean is the
 * noiseless histogram's within 3 standard errors, and its spread is the
 * standard deviation the guard uses within 20 %; the noiseless value is
 * a lower bound of the centres' true extra cost over the one centre.
 */
static void
test_estimate_unbiased(void)
{
	double		lower[D] = {0.0, 0.0},
				upper[D] = {100.0, 100.0},
				mid[D] = {50.0, 50.0},
				a[2 * D] = {0.3, 0.5, 0.8, 0.5},	/* normalized */
				b[D] = {0.5, 0.5},
				w2[D] = {1e4, 1e4};
	DpkBox		box = {D, lower, upper};
	size_t		n = 3000,
				i;
	double	   *x = rows_around(mid, 1, 12.0, n, 0xE57ULL);
	DpkLiveConfig cfg;
	DpkCellMap	map;
	DpkDenseHist exact;
	double		truth = 0.0,
				sum = 0.0,
				sum2 = 0.0,
				sd_used = 0.0,
				sd;
	uint64_t	key;
	int			nkeys = 300;

	make_table(&cfg, 1.0, 0.0, n);
	dpk_cellmap_init(&map, D);
	fill(&cfg, &box, &map, x, n);
	/* the noiseless histogram gives the exact extra cost of the fixed assignment */
	dpk_hist_init(&exact, D, 1 << cfg.level, true);
	exact.units = DPK_REL_UNITS;
	for (i = 0; i < n; i++)
	{
		double		u[D];
		int64_t		idx[D],
					rel[D];
		uint64_t	cell;
		int			j;

		dpk_box_normalize(&box, x + i * D, u);
		cell = dpk_grid_cell(D, 1 << cfg.level, u, idx, rel);
		exact.count[cell]++;
		for (j = 0; j < D; j++)
			exact.sum[cell * D + j] += rel[j];
	}
	truth = dpk_hist_mean_gap(&exact, w2, 0.0, 0.0, 2, a, b, &sd);
	{
		double		an[2 * D],
					bn[D],
					rows_gap = 0.0;

		for (i = 0; i < 2 * D; i++)
			an[i] = 100.0 * a[i];
		for (i = 0; i < D; i++)
			bn[i] = 100.0 * b[i];
		rows_gap = dpk_kmeans_cost(x, NULL, (int) n, D, an, 2, NULL) -
			dpk_kmeans_cost(x, NULL, (int) n, D, bn, 1, NULL);
		printf("# fixed centres: extra cost on the rows %.4g, noiseless estimate %.4g\n",
			   rows_gap, truth);
		CHECK(truth <= rows_gap * (1.0 + 1e-9) + 1e-6, "the estimate %.4g exceeds the extra cost %.4g",
			  truth, rows_gap);
	}
	for (key = 1; key <= (uint64_t) nkeys; key++)
	{
		DpkDenseHist h;
		double		g;

		noisy(&cfg, &map, key, T, &h);
		g = dpk_hist_mean_gap(&h, w2, dpk_live_count_variance(&cfg, cfg.level, T),
							  dpk_live_sum_variance(&cfg, cfg.level, T), 2, a, b, &sd);
		sum += g;
		sum2 += g * g;
		sd_used = sd;
		dpk_hist_free(&h);
	}
	{
		double		mean = sum / nkeys,
					var = sum2 / nkeys - mean * mean;

		printf("# fixed centres: true extra cost %.4g, mean estimate %.4g, sd %.4g (guard's %.4g)\n",
			   truth, mean, sqrt(var), sd_used);
		CHECK(fabs(mean - truth) < 3.0 * sqrt(var / nkeys),
			  "estimate's mean %.4g against the true %.4g", mean, truth);
		CHECK(fabs(sqrt(var) / sd_used - 1.0) < 0.2, "estimate's sd %.4g, the guard's %.4g",
			  sqrt(var), sd_used);
	}
	dpk_hist_free(&exact);
	dpk_cellmap_free(&map);
	dpk_free(x);
}

int
main(void)
{
	test_fires_on_bad_centres();
	test_never_on_clusters();
	test_estimate_unbiased();
	UNIT_DONE("test_live_lowd_guard");
}
