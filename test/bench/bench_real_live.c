/*
 * bench_real_live.c
 *		The live releases of test/bench/bench_real.sh replayed in plain C:
 *		a real table with its own box per column, fed in T batches, a live
 *		release after each, cost over a non-private k-means of the same rows.
 *
 * What a projected live table does (attach.c, trigger.c, release.c):
 *
 *	 cfg = dpk_live_defaults(d, K, eps, T, insert_only);
 *	 dpk_live_use_projection(&cfg, seed);
 *	 dpk_live_use_few_sides(&cfg, &box, size_hint); dpk_live_use_box(&cfg, &box);
 *	 cfg.level = dpk_live_choose_level_box(&cfg, &box, size_hint, 4194304);
 *	 every row: clamped into the box, u = dpk_box_normalize then
 *		dpk_box_to_metric, its projection (one dgemm per batch of up to 2048
 *		rows), dpk_live_add_projected(&cfg, &state, u, t, sign);
 *	 release t: dpk_live_noisy_projected_box (stream on the table's key, zero
 *		nonce), seed = the next u64, dpk_live_cluster_projected.
 *
 * Streams as bench_real.sh: rows in a seeded random order, T batches
 * (--horizon, 16); insert keeps every row (size hint: all rows), window
 * deletes batch t - W (--window, 4; size hint: W batches; insert_delete).
 * Per stream, over every release from T/2 on and the seeds: the geometric
 * mean and worst of live cost / reference (dpk_kmeans, 10 restarts, then
 * Lloyd warm-started from the previous release's reference), and the same
 * for the one-shot dp_kmeans at the full epsilon (--oneshot).
 *
 * Usage: bench_real_live --csv PATH --cols 0,1,2 --lower "l1,l2,.." --upper
 *		"u1,u2,.." --k K [--eps 1] [--horizon 16] [--window 4] [--seeds 3]
 *		[--seed-base 100] [--stream insert|window|both] [--oneshot] [--verbose]
 *		tuning: --level-delta N (counted level), --sum-share X, --dhat N,
 *		--restarts N (the releases' k-means restarts), --arity N (the
 *		counters' tree, else dpk_live_use_box's)
 *		--proj-seed N: every table's projection seed (default: one per seed);
 *		an SQL table's dpkmeans_internal.tracked.proj_seed, which
 *		bench_real.sh prints, replays that table's projection.  The cost of
 *		a projected release depends mostly on it: a projection that maps the
 *		box's widest column (price) to a short vector leaves a few cells for
 *		all the points (e.g. --seed-base 203, window 19.9x; doc/benchmarks.md)
 * The diamonds table (scripts/real-data.sh) with bench_real.sh's box:
 *	 --csv test/bench/data/diamonds.csv --cols 0,1,2,3,4,5,6 --k 10
 *	 --lower 0,40,40,0,0,0,0 --upper 5.5,80,100,20000,12,12,12
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cellmap.h"
#include "dpk_mem.h"
#include "grid.h"
#include "highd.h"
#include "kmeans.h"
#include "live_core.h"
#include "live_reach.h"
#include "noise.h"
#include "projection.h"

#define BENCH_PROG "bench_real_live"

#include "mixture.h"
#include "bench_common.h"

#define MAX_D 64
#define MAX_CELLS 4194304.0
#define BATCH 2048

static void
usage(void)
{
	fprintf(stderr, "usage: bench_real_live --csv PATH --cols C,.. --lower L,.. --upper U,.. "
			"--k K [--eps E] [--horizon T] [--window W] [--seeds N] [--seed-base N] "
			"[--stream insert|window|both] [--oneshot] [--verbose] [--level-delta N] "
			"[--sum-share X] [--dhat N] [--restarts N] [--arity N] [--proj-seed N]\n");
	exit(2);
}

/* Comma-separated numbers into out (at most max); returns how many. */
static int
parse_doubles(const char *s, double *out, int max)
{
	int			n = 0;
	char	   *end;

	while (*s && n < max)
	{
		out[n++] = strtod(s, &end);
		if (end == s)
			usage();
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* Insert (+1) or delete (-1) rows [from, to) of x into a projected table's state. */
static void
apply_rows(const DpkLiveConfig *cfg, const DpkBox *box, const DpkProjection *proj,
		   DpkCellMap *map, const double *x, size_t from, size_t to, int sign)
{
	int			d = cfg->d,
				dhat = cfg->dhat;
	double	   *u = xmalloc(sizeof(double) * BATCH * d);
	double	   *t = xmalloc(sizeof(double) * BATCH * dhat);

	while (from < to)
	{
		size_t		n = to - from < BATCH ? to - from : BATCH,
					i;

		for (i = 0; i < n; i++)
		{
			dpk_box_normalize(box, x + (from + i) * d, u + i * d);
			dpk_box_to_metric(box, u + i * d);
		}
		dpk_project_batch(proj, u, n, t);
		for (i = 0; i < n; i++)
			dpk_live_add_projected(cfg, map, u + i * d, t + i * dhat, sign);
		from += n;
	}
	free(u);
	free(t);
}

int
main(int argc, char **argv)
{
	const char *csv = NULL;
	double		colsd[MAX_D],
				lower[MAX_D],
				upper[MAX_D],
				eps = 1.0;
	int			cols[MAX_D],
				d = 0,
				nl = 0,
				nu = 0,
				k = 0,
				seeds = 3,
				seed_base = 100,
				W = 4,
				level_delta = 0,
				restarts = 0,
				arity = 0,
				dhat = 0,
				have_proj_seed = 0,
				stream,
				i,
				j;
	uint32_t	T = 16;
	uint64_t	proj_seed = 0;
	bool		streams[2] = {true, true},
				oneshot = false,
				verbose = false;
	double	   *all,
				sum_share = NAN;
	size_t		n;
	DpkBox		box;

	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--csv") == 0)
			csv = arg_value(argc, argv, &i);
		else if (strcmp(a, "--cols") == 0)
			d = parse_doubles(arg_value(argc, argv, &i), colsd, MAX_D);
		else if (strcmp(a, "--lower") == 0)
			nl = parse_doubles(arg_value(argc, argv, &i), lower, MAX_D);
		else if (strcmp(a, "--upper") == 0)
			nu = parse_doubles(arg_value(argc, argv, &i), upper, MAX_D);
		else if (strcmp(a, "--k") == 0)
			k = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--eps") == 0)
			eps = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--horizon") == 0)
			T = (uint32_t) atol(arg_value(argc, argv, &i));
		else if (strcmp(a, "--window") == 0)
			W = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--seeds") == 0)
			seeds = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--seed-base") == 0)
			seed_base = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--stream") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			streams[0] = strcmp(v, "window") != 0;
			streams[1] = strcmp(v, "insert") != 0;
		}
		else if (strcmp(a, "--level-delta") == 0)
			level_delta = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--restarts") == 0)
			restarts = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--arity") == 0)
			arity = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--dhat") == 0)
			dhat = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--proj-seed") == 0)
		{
			proj_seed = strtoull(arg_value(argc, argv, &i), NULL, 10);
			have_proj_seed = 1;
		}
		else if (strcmp(a, "--sum-share") == 0)
			sum_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--oneshot") == 0)
			oneshot = true;
		else if (strcmp(a, "--verbose") == 0)
			verbose = true;
		else
			usage();
	}
	if (!csv || d < DPK_HIGHD_MIN_D || nl != d || nu != d || k < 1 || T < 2 || W < 1 ||
		seeds < 1)
		usage();
	for (j = 0; j < d; j++)
		cols[j] = (int) colsd[j];
	n = bench_read_csv(csv, d, cols, &all);
	box.d = d;
	box.lower = lower;
	box.upper = upper;
	for (i = 0; (size_t) i < n * d; i++)
	{
		j = i % d;
		all[i] = fmin(upper[j], fmax(lower[j], all[i]));
	}
	printf("# bench_real_live: %s, %zu rows, d = %d, K = %d, eps = %g, T = %u, window W = %d, "
		   "seeds %d-%d, live over every release t >= T/2\n", csv, n, d, k, eps, T, W,
		   seed_base, seed_base + seeds - 1);

	for (stream = 0; stream < 2; stream++)
	{
		double		lsum = 0.0,
					osum = 0.0,
					lworst = 0.0,
					oworst = 0.0,
					ms = 0.0;
		int			cnt = 0,
					level = -1;
		size_t		batch = (n + T - 1) / T;

		if (!streams[stream])
			continue;
		for (i = 0; i < seeds; i++)
		{
			int			seed = seed_base + i;
			double	   *x = xmalloc(sizeof(double) * n * d);
			DpkLiveConfig cfg;
			DpkCellMap	map;
			DpkProjection proj;
			BenchRef	ref;
			uint8_t		key[DPK_KEY_BYTES];
			uint64_t	keyseed = mix_hash4(0x7265616c, (uint64_t) seed, (uint64_t) stream, T);
			uint32_t	t;

			memcpy(x, all, sizeof(double) * n * d);
			bench_shuffle_rows(x, n, d, mix_hash4(0x6f72646572, (uint64_t) seed, 0, 0));
			dpk_key_from_seed(keyseed, key);
			dpk_live_defaults(&cfg, d, k, eps, T, stream == 0);
			dpk_live_use_projection(&cfg, have_proj_seed ? proj_seed :
									mix_hash4(keyseed, 0x70726f6a, 0, 0) &
									UINT64_C(0x7fffffffffffffff));
			if (verbose)
				printf("#   %s seed=%d proj_seed=%llu\n", stream ? "window" : "insert", seed,
					   (unsigned long long) cfg.proj_seed);
			dpk_live_use_few_sides(&cfg, &box, stream == 0 ? (double) n : (double) W * batch);
			dpk_live_use_box(&cfg, &box);
			if (!isnan(sum_share))
				cfg.sum_share = sum_share;
			if (dhat > 0)
				cfg.dhat = dhat;
			if (restarts > 0)
				cfg.restarts = restarts;
			if (arity > 0)
				cfg.arity = arity;
			cfg.level = dpk_live_choose_level_box(&cfg, &box,
												  stream == 0 ? (double) n : (double) W * batch,
												  MAX_CELLS) + level_delta;
			level = cfg.level;
			dpk_cellmap_init(&map, d);
			dpk_projection_init(&proj, d, cfg.dhat, dpk_projection_copy_seed(cfg.proj_seed, 0),
								cfg.half_width);
			bench_ref_init(&ref, d, k, 1);
			for (t = 1; t <= T; t++)
			{
				size_t		b0 = (size_t) (t - 1) * batch,
							b1 = (size_t) t * batch < n ? (size_t) t * batch : n,
							start = 0;

				if (b0 > n)
					b0 = n;
				apply_rows(&cfg, &box, &proj, &map, x, b0, b1, +1);
				if (stream == 1 && t > (uint32_t) W)
				{
					start = (size_t) (t - W) * batch;
					apply_rows(&cfg, &box, &proj, &map, x, start - batch, start, -1);
				}
				if (t >= T / 2)
				{
					uint64_t	total = dpk_live_copy_cells(&cfg) * cfg.copies;
					double	   *count = xmalloc(sizeof(double) * total),
							   *sum = xmalloc(sizeof(double) * total * d),
								sumnorm,
								refc,
								live,
								os = 1.0,
								t0;
					uint8_t		nonce[DPK_NONCE_BYTES] = {0};
					DpkStream	s = {0};
					DpkLiveRelease rel;

					refc = bench_ref_cost(&ref, x + start * d, b1 - start, NULL,
										  mix_hash4(keyseed, t, 0x726566, 0));
					t0 = now_ms();
					if (!dpk_stream_open(&s, key, nonce))
						abort();
					dpk_live_noisy_projected_box(&cfg, &box, key, &map, t, &s, count, sum,
												 &sumnorm);
					dpk_live_cluster_projected(&cfg, &box, count, sum, sumnorm, t,
											   dpk_stream_u64(&s), &rel);
					ms += now_ms() - t0;
					dpk_stream_close(&s);
					live = dpk_kmeans_cost(x + start * d, NULL, (int) (b1 - start), d,
										   rel.centers + (size_t) dpk_live_block(k) * d, k,
										   NULL) / refc;
					if (oneshot)
					{
						DpkHighdConfig hc;
						DpkOneshotResult res;

						open_seed_stream(&s, mix_hash4(keyseed, t, 0x6f6e65, 0));
						dpk_highd_defaults(&hc, eps, k);
						hc.max_cells = MAX_CELLS;
						dpk_highd_oneshot_cluster(&box, x + start * d, b1 - start, &hc, &s, &res);
						os = dpk_kmeans_cost(x + start * d, NULL, (int) (b1 - start), d,
											 res.centers, k, NULL) / refc;
						dpk_oneshot_result_free(&res);
						dpk_stream_close(&s);
					}
					if (verbose)
					{
						/* one Lloyd step from the live centres: their partition's own means */
						double	   *c1 = xmalloc(sizeof(double) * k * d);

						memcpy(c1, rel.centers + (size_t) dpk_live_block(k) * d,
							   sizeof(double) * k * d);
						printf("#   %s seed=%d t=%u rows=%zu level=%d coreset=%d live=%.4f "
							   "partition=%.4f oneshot=%.4f\n", stream ? "window" : "insert",
							   seed, t, b1 - start, rel.level, rel.coreset_size, live,
							   lloyd_from(x + start * d, (int) (b1 - start), d, k, c1, 1) / refc,
							   os);
						free(c1);
					}
					lsum += log(live);
					osum += log(os);
					lworst = fmax(lworst, live);
					oworst = fmax(oworst, os);
					cnt++;
					dpk_live_release_free(&rel);
					free(count);
					free(sum);
				}
			}
			bench_ref_free(&ref);
			dpk_projection_free(&proj);
			dpk_cellmap_free(&map);
			free(x);
		}
		printf("%-6s level %d  live mean %.3f worst %.3f", stream ? "window" : "insert", level,
			   exp(lsum / cnt), lworst);
		if (oneshot)
			printf("  |  one-shot mean %.3f worst %.3f", exp(osum / cnt), oworst);
		printf("  |  %.0f ms per release\n", ms / cnt);
	}
	free(all);
	return 0;
}
