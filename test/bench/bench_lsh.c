/*
 * bench_lsh.c
 *		dp_kmeans' one-shot beside the LSH-tree private coreset baseline
 *		(lsh_baseline.h, Google's "LSH clustering") on the same rows and
 *		budget.
 *
 * Data sets (seeds --seed-base .. + --seeds - 1, default 100-102):
 *	 embed    unit-norm embeddings as bench_highd_live --embed 0.65 draws
 *			  them (the same rows for the same seed): 20 000 rows (--n-embed),
 *			  d = 384, K = 10 random directions with the mixture's unequal
 *			  weights; box [-1, 1]^384, norm_bound 1, eps 1, delta 1e-6.
 *			  oneshot: dpk_highd_oneshot_cluster with dpk_highd_defaults,
 *			  dpk_highd_use_delta and dpk_highd_use_ball(1), as
 *			  dp_kmeans(..., norm_bound => 1, delta => 1e-6).  LSH: radius 1
 *			  about the origin.
 *	 pickups  bench_oneshot --data pickups's rows (mix_pickups_generate,
 *			  the same seeds): 200 000 rows (--n-pickups), d = 2, K = 10, box
 *			  [0, 100]^2, eps in --pickups-eps (default 0.5, 1, 4).
 *			  oneshot: dpk_lowd_cluster with dpk_lowd_defaults, pure and
 *			  with delta 1e-6, on bench_oneshot's keys.  LSH (delta 1e-6): the box's middle as
 *			  origin, radius its half diagonal.
 * Anchors: 1c, one centre at a noisy mean at the same budget (the count
 * with (1 - 0.8) eps, discrete Laplace; the sum Gaussian at (0.8 eps,
 * delta) and the radius as l2 sensitivity, as the baseline's leaves); k=1,
 * the true mean.
 * Costs: k-means cost on the rows / non-private reference (the lower of
 * 10 k-means restarts and Lloyd from the generating centres); per method
 * the geometric mean over seeds and the worst seed.
 *
 * --self-check: the baseline without noise on well separated clusters must
 * find them (exit 1 when it does not).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highd.h"
#include "kmeans.h"
#include "lowd.h"
#include "noise.h"

#define BENCH_PROG "bench_lsh"

#include "mixture.h"
#include "bench_common.h"
#include "lsh_baseline.h"

#define MAX_EPS 8
#define NMETHODS 5

/* bench_highd_live's tags, so that the embeddings are the same rows */
#define TAG_DATA 0x6d6978
#define TAG_EMBED 0x656d6264
#define TAG_LSH 0x6c7368
#define TAG_OS 0x6f6e65
#define TAG_MEAN1 0x6d65616e

static const char *const method_name[NMETHODS] =
{"oneshot", "oneshot(d)", "LSH(d)", "1c(d)", "k=1"};

static void
usage(void)
{
	fprintf(stderr, "usage: bench_lsh [--seeds N] [--seed-base N] [--n-embed N] "
			"[--n-pickups N] [--pickups-eps \"0.5,1,4\"] [--data embed|pickups|both] "
			"[--self-check]\n");
	exit(2);
}

/*
 * The rows of bench_highd_live --embed S for seed (its embed_rows on its
 * mixture): each row (mu_l + S g / sqrt(d)) / norm, mu_l a random unit
 * direction of its cluster; mx->centers become the mu_l.
 */
static void
embed_generate(int d, int k, size_t n, double S, int seed, MixData *mx)
{
	MixSpec		sp = mix_default_spec(d, k, n);
	double	   *mu = xmalloc(sizeof(double) * k * d);
	uint64_t	eseed = mix_hash4(TAG_DATA, (uint64_t) d, (uint64_t) seed, 1);
	size_t		i;
	int			c,
				j;
	MixRng		r;

	mix_generate(&sp, mix_hash4(TAG_DATA, (uint64_t) d, (uint64_t) k, (uint64_t) seed), mx);
	for (c = 0; c < k; c++)
	{
		double		norm = 0.0;

		mix_rng_seed(&r, mix_hash4(eseed, TAG_EMBED, (uint64_t) c, 0));
		for (j = 0; j < d; j++)
		{
			mu[c * d + j] = mix_rng_normal(&r);
			norm += mu[c * d + j] * mu[c * d + j];
		}
		for (j = 0; j < d; j++)
			mu[c * d + j] /= sqrt(norm);
	}
	mix_rng_seed(&r, mix_hash4(eseed, TAG_EMBED, (uint64_t) k, 1));
	for (i = 0; i < n; i++)
	{
		double		s = 0.0;

		for (j = 0; j < d; j++)
		{
			mx->points[i * d + j] = mu[mx->labels[i] * d + j] +
				S * mix_rng_normal(&r) / sqrt((double) d);
			s += mx->points[i * d + j] * mx->points[i * d + j];
		}
		for (j = 0; j < d; j++)
			mx->points[i * d + j] /= sqrt(s);
	}
	memcpy(mx->centers, mu, sizeof(double) * k * d);
	free(mu);
}

/*
 * One centre at a noisy mean with the baseline's split of (eps, delta):
 * the count discrete Laplace at (1 - 0.8) eps, the sum of the rows (about
 * origin, clipped to radius) Gaussian at (0.8 eps, delta), sensitivity
 * radius.  Returns its k-means cost.
 */
static double
noisy_mean_cost(const double *x, size_t n, int d, const double *origin, double radius,
				double eps, double delta, uint64_t seed)
{
	double	   *m = calloc(d, sizeof(double));
	double		sigma = lsh_gauss_sigma(0.8 * eps, delta, radius),
				a = 0.2 * eps,
				cnt,
				u1,
				u2,
				cost;
	size_t		i;
	int			j;
	MixRng		r;

	mix_rng_seed(&r, seed);
	for (i = 0; i < n; i++)
	{
		double		s = 0.0;

		for (j = 0; j < d; j++)
			s += (x[i * d + j] - origin[j]) * (x[i * d + j] - origin[j]);
		s = s > radius * radius ? radius / sqrt(s) : 1.0;
		for (j = 0; j < d; j++)
			m[j] += (x[i * d + j] - origin[j]) * s;
	}
	do
		u1 = mix_rng_uniform(&r);
	while (u1 <= 0.0);
	do
		u2 = mix_rng_uniform(&r);
	while (u2 <= 0.0);
	cnt = fmax(1.0, (double) n + floor(log(u1) / -a) - floor(log(u2) / -a));
	for (j = 0; j < d; j++)
		m[j] = (m[j] + sigma * mix_rng_normal(&r)) / cnt + origin[j];
	cost = dpk_kmeans_cost(x, NULL, (int) n, d, m, 1, NULL);
	free(m);
	return cost;
}

/* The true mean's cost (the best single centre). */
static double
true_mean_cost(const double *x, size_t n, int d)
{
	double	   *m = calloc(d, sizeof(double));
	double		cost;
	size_t		i;
	int			j;

	for (i = 0; i < n; i++)
		for (j = 0; j < d; j++)
			m[j] += x[i * d + j] / (double) n;
	cost = dpk_kmeans_cost(x, NULL, (int) n, d, m, 1, NULL);
	free(m);
	return cost;
}

/* Per method: sum of logs, worst, seeds. */
typedef struct Fig
{
	double		log[NMETHODS],
				worst[NMETHODS];
	int			n;
	double		leaves,
				min_node;
} Fig;

static void
fig_add(Fig *f, int m, double v)
{
	f->log[m] += log(v);
	f->worst[m] = fmax(f->worst[m], v);
}

static void
fig_print(const char *data, double eps, const Fig *f, int k)
{
	int			m;

	printf("%-8s %2d %5.2f |", data, k, eps);
	for (m = 0; m < NMETHODS; m++)
		printf(" %8.4f %8.4f |", exp(f->log[m] / f->n), f->worst[m]);
	printf(" %7.1f %6.0f\n", f->leaves / f->n, f->min_node / f->n);
	fflush(stdout);
}

/* The baseline run on one data set, adding to f's LSH column. */
static void
run_lsh(const MixData *mx, const double *origin, double radius, double eps, double delta,
		uint64_t seed, double ref, Fig *f)
{
	LshParams	p;
	LshInfo		info;
	double	   *c = xmalloc(sizeof(double) * mx->k * mx->d);

	lsh_defaults(&p, mx->k, eps, delta, radius);
	p.origin = origin;
	p.seed = seed;
	lsh_cluster(mx->points, mx->n, mx->d, &p, c, &info);
	fig_add(f, 2, dpk_kmeans_cost(mx->points, NULL, (int) mx->n, mx->d, c, mx->k, NULL) / ref);
	f->leaves += info.leaves;
	f->min_node += info.min_node;
	free(c);
}

/*
 * The noiseless check: K = 5 tight clusters around orthogonal directions
 * at d = 16 (ball of radius 1.5) and K = 4 well separated blobs at d = 2 in
 * [0, 100]^2 at distinct angles from the middle; without noise the
 * baseline's centres must cost within 1 % of the generating centres and
 * lie within 0.05 radius of them.
 */
static int
self_check(void)
{
	int			fails = 0,
				set;

	for (set = 0; set < 2; set++)
	{
		int			d = set == 0 ? 16 : 2,
					k = set == 0 ? 5 : 4,
					c,
					j;
		size_t		n = 20000,
					i;
		double	   *x = xmalloc(sizeof(double) * n * d),
				   *gen = xmalloc(sizeof(double) * k * d),
				   *cent = xmalloc(sizeof(double) * k * d),
				   *origin = calloc(d, sizeof(double));
		double		radius = set == 0 ? 1.5 : 50.0 * M_SQRT2,
					cg,
					cc,
					far = 0.0;
		MixRng		r;
		LshParams	p;

		mix_rng_seed(&r, 0x6c7368636bULL + set);
		memset(gen, 0, sizeof(double) * k * d);
		for (c = 0; c < k; c++)
		{
			if (set == 0)
				gen[c * d + 2 * c] = 1.0;
			else
			{
				gen[c * d + 0] = 50.0 + 35.0 * cos(2.0 * M_PI * c / k + 0.3);
				gen[c * d + 1] = 50.0 + 35.0 * sin(2.0 * M_PI * c / k + 0.3);
			}
		}
		if (set == 1)
			origin[0] = origin[1] = 50.0;
		for (i = 0; i < n; i++)
		{
			c = (int) (i % (size_t) k);
			for (j = 0; j < d; j++)
				x[i * d + j] = gen[c * d + j] + (set == 0 ? 0.02 : 2.0) * mix_rng_normal(&r);
		}
		lsh_defaults(&p, k, INFINITY, 0.0, radius);
		p.origin = origin;
		p.seed = 7;
		lsh_cluster(x, n, d, &p, cent, NULL);
		cg = dpk_kmeans_cost(x, NULL, (int) n, d, gen, k, NULL);
		cc = dpk_kmeans_cost(x, NULL, (int) n, d, cent, k, NULL);
		for (c = 0; c < k; c++)
		{
			double		best = INFINITY;
			int			a;

			for (a = 0; a < k; a++)
			{
				double		s = 0.0;

				for (j = 0; j < d; j++)
					s += (gen[c * d + j] - cent[a * d + j]) * (gen[c * d + j] - cent[a * d + j]);
				best = fmin(best, sqrt(s));
			}
			far = fmax(far, best);
		}
		printf("self-check d = %d, K = %d, no noise: cost / generating centres %.4f, "
			   "farthest generating centre from a found one %.4f radius\n",
			   d, k, cc / cg, far / radius);
		if (!(cc <= 1.01 * cg) || !(far <= 0.05 * radius))
		{
			printf("self-check FAILED\n");
			fails++;
		}
		free(x);
		free(gen);
		free(cent);
		free(origin);
	}
	return fails > 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	int			seeds = 3,
				seed_base = BENCH_SEED_BASE,
				neps = 3,
				e,
				seed,
				i;
	size_t		n_embed = 20000,
				n_pickups = 200000;
	double		eps_list[MAX_EPS] = {0.5, 1.0, 4.0};
	const char *data = "both";
	double		t0 = now_ms();

	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--seeds") == 0)
			seeds = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--seed-base") == 0)
			seed_base = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--n-embed") == 0)
			n_embed = (size_t) atol(arg_value(argc, argv, &i));
		else if (strcmp(a, "--n-pickups") == 0)
			n_pickups = (size_t) atol(arg_value(argc, argv, &i));
		else if (strcmp(a, "--data") == 0)
			data = arg_value(argc, argv, &i);
		else if (strcmp(a, "--pickups-eps") == 0)
		{
			char	   *s = strdup(arg_value(argc, argv, &i)),
					   *tok;

			neps = 0;
			for (tok = strtok(s, ","); tok && neps < MAX_EPS; tok = strtok(NULL, ","))
				eps_list[neps++] = atof(tok);
			free(s);
		}
		else if (strcmp(a, "--self-check") == 0)
			return self_check();
		else
			usage();
	}

	printf("# bench_lsh: seeds %d-%d; cost = k-means cost / non-private reference, "
		   "geometric mean over seeds and worst seed\n", seed_base, seed_base + seeds - 1);
	printf("# oneshot = dp_kmeans pure eps, oneshot(d) = with delta 1e-6, LSH(d) = the "
		   "LSH-tree coreset baseline (delta 1e-6), 1c(d) = one centre at a noisy mean "
		   "(same budget), k=1 = the true mean\n");
	printf("%-8s %2s %5s |", "data", "K", "eps");
	for (i = 0; i < NMETHODS; i++)
		printf(" %8s %8s |", method_name[i], "worst");
	printf(" %7s %6s\n", "leaves", "minnod");

	if (strcmp(data, "embed") == 0 || strcmp(data, "both") == 0)
	{
		int			d = 384,
					k = 10;
		Fig			f;
		double	   *lo = xmalloc(sizeof(double) * d),
				   *hi = xmalloc(sizeof(double) * d),
				   *origin = calloc(d, sizeof(double));
		DpkBox		box = {d, lo, hi};

		for (i = 0; i < d; i++)
		{
			lo[i] = -1.0;
			hi[i] = 1.0;
		}
		memset(&f, 0, sizeof(f));
		for (seed = seed_base; seed < seed_base + seeds; seed++)
		{
			MixData		mx;
			double		ref;
			int			m;

			embed_generate(d, k, n_embed, 0.65, seed, &mx);
			ref = reference_cost_of(mx.points, (int) mx.n, d, k, mx.centers,
									mix_hash4(0x726566ULL, (uint64_t) d, (uint64_t) k, (uint64_t) seed));
			for (m = 0; m < 2; m++)
			{
				DpkHighdConfig cfg;
				DpkOneshotResult res;
				DpkStream	s = {0};

				open_seed_stream(&s, mix_hash4(TAG_OS, (uint64_t) seed, (uint64_t) m, 384));
				dpk_highd_defaults(&cfg, 1.0, k);
				dpk_highd_use_delta(&cfg, m == 0 ? 0.0 : 1e-6);
				cfg.max_cells = 4194304.0;
				dpk_highd_use_ball(&cfg, &box, 1.0);
				dpk_highd_oneshot_cluster(&box, mx.points, mx.n, &cfg, &s, &res);
				fig_add(&f, m, dpk_kmeans_cost(mx.points, NULL, (int) mx.n, d, res.centers, k, NULL) / ref);
				dpk_oneshot_result_free(&res);
				dpk_stream_close(&s);
			}
			run_lsh(&mx, origin, 1.0, 1.0, 1e-6, mix_hash4(TAG_LSH, (uint64_t) seed, 384, 0), ref, &f);
			fig_add(&f, 3, noisy_mean_cost(mx.points, mx.n, d, origin, 1.0, 1.0, 1e-6,
										   mix_hash4(TAG_MEAN1, (uint64_t) seed, 384, 0)) / ref);
			fig_add(&f, 4, true_mean_cost(mx.points, mx.n, d) / ref);
			f.n++;
			mix_free(&mx);
		}
		fig_print("embed", 1.0, &f, k);
		free(lo);
		free(hi);
		free(origin);
	}

	if (strcmp(data, "pickups") == 0 || strcmp(data, "both") == 0)
	{
		int			d = 2,
					k = 10;
		double		lo[2] = {0.0, 0.0},
					hi[2] = {100.0, 100.0},
					origin[2] = {50.0, 50.0};
		DpkBox		box = {d, lo, hi};

		for (e = 0; e < neps; e++)
		{
			Fig			f;

			memset(&f, 0, sizeof(f));
			for (seed = seed_base; seed < seed_base + seeds; seed++)
			{
				MixData		mx;
				double		ref;
				int			m;

				mix_pickups_generate(k, n_pickups, mix_hash4(0x7069636bULL, 2, 0, (uint64_t) seed), &mx);
				ref = reference_cost_of(mx.points, (int) mx.n, d, k, mx.centers,
										mix_hash4(0x726566ULL, (uint64_t) d, (uint64_t) k, (uint64_t) seed));
				for (m = 0; m < 2; m++)
				{
					DpkLowdConfig cfg;
					DpkOneshotResult res;
					DpkStream	s = {0};

					/* bench_oneshot's key for its method A */
					open_row_stream(&s, d, k, eps_list[e], seed, 1);
					dpk_lowd_defaults(&cfg, eps_list[e], k);
					dpk_lowd_use_delta(&cfg, m == 0 ? 0.0 : 1e-6);
					dpk_lowd_cluster(&box, mx.points, mx.n, &cfg, &s, &res);
					fig_add(&f, m, dpk_kmeans_cost(mx.points, NULL, (int) mx.n, d, res.centers, k, NULL) / ref);
					dpk_oneshot_result_free(&res);
					dpk_stream_close(&s);
				}
				run_lsh(&mx, origin, 50.0 * M_SQRT2, eps_list[e], 1e-6,
						mix_hash4(TAG_LSH, (uint64_t) seed, 2, double_bits(eps_list[e])), ref, &f);
				fig_add(&f, 3, noisy_mean_cost(mx.points, mx.n, d, origin, 50.0 * M_SQRT2,
											   eps_list[e], 1e-6,
											   mix_hash4(TAG_MEAN1, (uint64_t) seed, 2,
														 double_bits(eps_list[e]))) / ref);
				fig_add(&f, 4, true_mean_cost(mx.points, mx.n, d) / ref);
				f.n++;
				mix_free(&mx);
			}
			fig_print("pickups", eps_list[e], &f, k);
		}
	}
	printf("# total time %.1f s\n", (now_ms() - t0) / 1e3);
	return 0;
}
