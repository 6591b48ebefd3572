/*
 * baseline_check.h
 *		Noiseless self-checks of the benchmark baselines of bench_continual
 *		(seed_mp.h, emz_stream.h): without noise each must find four
 *		well-separated clusters.  bench_continual --self-check runs them
 *		(CI and make bench-baselines), --baselines runs them first.
 */
#ifndef BASELINE_CHECK_H
#define BASELINE_CHECK_H

/*
 * The self-checks' data: n rows in [0,100]^2 around four well-separated
 * centres CHECK_GEN (sd 1), of unequal weight (40, 30, 20, 10 %); sorted
 * by cluster when `sorted`, so that each cluster arrives in its own blocks
 * of a stream.
 */
static const double CHECK_GEN[4][2] = {{20, 20}, {20, 80}, {80, 20}, {75, 70}};

static double *
check_data(size_t n, bool sorted)
{
	static const double share[4] = {0.4, 0.3, 0.2, 0.1};
	double	   *x = xmalloc(sizeof(double) * n * 2);
	MixRng		r;
	size_t		i;
	int			j;

	mix_rng_seed(&r, 12345);
	for (i = 0; i < n; i++)
	{
		double		u = sorted ? (i + 0.5) / (double) n : mix_rng_uniform(&r),
					acc = 0.0;

		for (j = 0; j < 3 && u >= acc + share[j]; j++)
			acc += share[j];
		x[i * 2] = CHECK_GEN[j][0] + mix_rng_normal(&r);
		x[i * 2 + 1] = CHECK_GEN[j][1] + mix_rng_normal(&r);
	}
	return x;
}

/*
 * The self-checks' verdict on a baseline's K = 4 centres c for the rows x:
 * each must lie within 1.5 of a distinct generating centre, and they must
 * cost at most 1.05 times the generating centres' Lloyd optimum.  Prints
 * one line; returns the number of failures.
 */
static int
check_centres(const char *name, const double *x, size_t n, const double *c)
{
	const int	k = 4,
				d = 2;
	double		opt_c[8],
				cost,
				opt_cost;
	int			j,
				a,
				fails = 0;
	bool		used[4] = {false, false, false, false};

	memcpy(opt_c, CHECK_GEN, sizeof(opt_c));
	opt_cost = lloyd_from(x, (int) n, d, k, opt_c, 300);
	cost = dpk_kmeans_cost(x, NULL, (int) n, d, c, k, NULL);
	for (a = 0; a < k; a++)
	{
		int			hit = -1;

		for (j = 0; j < k; j++)
			if (!used[j] && hypot(c[a * d] - CHECK_GEN[j][0], c[a * d + 1] - CHECK_GEN[j][1]) <= 1.5)
				hit = j;
		if (hit < 0)
		{
			fprintf(stderr, "%s self-check: centre (%.2f, %.2f) is near no cluster\n",
					name, c[a * d], c[a * d + 1]);
			fails++;
		}
		else
			used[hit] = true;
	}
	if (!(cost <= 1.05 * opt_cost))
	{
		fprintf(stderr, "%s self-check: cost %.6g > 1.05 x optimum %.6g\n", name, cost,
				opt_cost);
		fails++;
	}
	printf("# %s self-check (noiseless, 4 separated clusters): cost / optimum %.4f, %s\n",
		   name, cost / opt_cost, fails ? "FAILED" : "ok");
	return fails;
}

/*
 * Self-checks of the baselines (--baselines runs them first; --self-check
 * runs only them), noiseless (eps infinite), each by check_centres.  The
 * seed baseline counts 20 000 rows in random order at horizon 16; the
 * streaming baseline gets them sorted by cluster in 13 blocks (buckets of
 * 8, 4 and 1 blocks at the release), so a block lost in its merge-and-reduce
 * tree loses a cluster.  Returns 0 when both hold.
 */
static int
self_checks(void)
{
	const size_t n = 20000;
	const uint32_t blocks = 13;
	double	   *x = check_data(n, false),
				lo[2] = {0, 0},
				up[2] = {100, 100},
				c[8];
	DpkBox		box = {2, lo, up};
	SeedMP		sd;
	EmzStream	ez;
	uint32_t	b;
	int			fails;

	seed_init(&sd, 2, 7, 4, INFINITY, 16, false, (double) n, 1);
	seed_apply(&sd, &box, x, 0, n, +1);
	seed_release(&sd, &box, 16, 4, 10, 7, c);
	fails = check_centres("seed", x, n, c);
	seed_free(&sd);
	free(x);

	x = check_data(n, true);
	emz_init(&ez, 2, 4, INFINITY, (double) n / blocks, 10, 1);
	for (b = 1; b <= blocks; b++)
	{
		emz_insert(&ez, &box, x, bench_batch_end(b - 1, n, blocks),
				   bench_batch_end(b, n, blocks));
		emz_close_block(&ez, &box);
	}
	emz_release(&ez, 4, 10, 7, c);
	fails += check_centres("streaming (emz)", x, n, c);
	emz_free(&ez);
	free(x);
	return fails;
}

#endif							/* BASELINE_CHECK_H */
