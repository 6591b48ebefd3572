/*
 * bench_oneshot.c
 *		Accuracy benchmark of the one-shot release against plain grids.
 *
 * For every configuration row (d, K, eps) and every seed it draws a Gaussian
 * mixture (mixture.h) and compares three eps-DP methods on the k-means cost
 * of their centres over the true points, normalised by a non-private
 * reference:
 *
 *	 A  dpkmeans   dpk_lowd_cluster with dpk_lowd_defaults (noisy N,
 *				   in-cell sums, threshold), optionally overridden on the
 *				   command line for tuning;
 *	 B  RUGNIK     plain grid: m by RUGNIK at the true N, discrete Laplace of
 *				   scale 1/eps on every count, negative counts clipped to 0,
 *				   every positive cell at its centre, weighted k-means;
 *	 C  EUGkM      as B with the EUGkM grid rule;
 *	 D  diffprivlib a reimplementation of diffprivlib's KMeans (0.6, DPLloyd
 *				   of Su et al. 2016): its iteration count, epsilon split
 *				   between counts and sums, and initial centres drawn
 *				   uniformly at a spacing halved until k fit; each update a
 *				   folded two-sided geometric count and a per-coordinate
 *				   Laplace sum (truncated to the count times the box, where
 *				   diffprivlib rescales its Laplace on that domain).
 *
 * The reference cost is the lower of non-private k-means (10 restarts) and
 * Lloyd started from the generating centres.  It does not depend on eps, so
 * each dataset is drawn once per (d, K, seed) and shared by its eps rows.
 *
 * Output: one line per row with the geometric mean over seeds of each
 * method's normalised cost, A's min and max, A's mean wall time, and the
 * cells per dimension each method used; then the geometric mean over rows.
 *
 * Data (--data): mixture (the default above), skewed (mix_skewed_spec: Zipf
 * weights, log-normal scales, Student-t tails) or pickups (d = 2 only,
 * mix_pickups_generate: six hotspots of unequal weight and spread, 5 %
 * uniform background, 0.5 % of the rows in a corner of the box; reference
 * = best of 10 non-private k-means restarts).
 *
 * Options (all optional):
 *	 --seeds N  --n N  --rows "d:K:eps,..."  --data mixture|skewed|pickups
 *	 --sum-share X  --n-share X  --grid-scale X  --threshold X
 *	 --gauss-grid-scale X  --gauss-grid-max-d N  with --delta: the grid's
 *				  further multiple and the d it applies up to
 *	 --restarts N     k-means restarts of EVERY method (default 20, the
 *					  dp_kmeans default)
 *	 --screen-iter N  A's k-means restarts stop after N Lloyd updates and
 *	 --screen-keep N  the N of lowest cost run on (--screen-keep 20: every
 *					  restart runs to the end; defaults in lowd.c)
 *	 --seed-base N    data seeds N .. N + seeds - 1 (default 100: the
 *					  defaults were tuned on seeds 0-9)
 *	 --no-baselines   skip B and C (faster tuning runs)
 *	 --no-residual    A without the sub-threshold mass from coarser blocks
 *	 --refine-iter N  A's Lloyd updates on the noisy histogram (0: none)
 *	 --refine-shrink X  their moves shrunk by X times their noise (0: none)
 *	 --no-grid-candidate  A without the second candidate (positive cells)
 *	 --threshold-log X  threshold_sigmas set per row to X (ln cells)/sqrt 2,
 *					  cells predicted from the true N (tuning only: values of
 *					  X below the pipeline's own ln(cells) floor have no effect)
 *	 --ref-cache FILE reuse reference costs stored in FILE, append new ones
 *					  (they depend only on the mixture, N, d, K and seed)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lowd.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "noise.h"
#include "rugnik.h"

#define BENCH_PROG "bench_oneshot"

#include "mixture.h"
#include "bench_common.h"

#define MAX_ROWS 256

typedef struct Row
{
	int			d;
	int			k;
	double		eps;

	/* accumulated over seeds */
	int			nseeds;
	double		log_a,
				log_b,
				log_c,
				log_d;
	double		min_a,
				max_a;
	double		ms_a;
	double		coreset_a;
	int			m_a_lo,
				m_a_hi;
	int			m_b,
				m_c;
} Row;

typedef struct Options
{
	int			seeds;
	size_t		n;
	int			baselines;
	/* overrides of A's configuration (NaN / -1 = keep the default) */
	double		sum_share;
	double		n_share;
	double		grid_scale;
	double		gauss_grid_scale;	/* NAN: the default */
	int			gauss_grid_max_d;	/* < 0: the default */
	double		threshold;
	int			restarts;
	int			screen_iter;	/* >= 0: A's restarts screened after this many
								 * Lloyd updates (-1: the default) */
	int			screen_keep;	/* > 0: and this many run on */
	int			seed_base;		/* first data seed (tuning used 0-9) */
	const char *ref_cache;
	double		threshold_log;	/* > 0: threshold as a multiple of b ln(cells) */
	int			no_residual;	/* A without the coarser blocks */
	int			refine_iter;	/* >= 0: A's Lloyd updates on the histogram */
	double		refine_shrink;	/* and their shrinkage (NaN: the default) */
	int			no_grid_candidate;	/* A without the positive cells' centres */
	const char *data;			/* mixture, skewed or pickups */
} Options;

/* Method tags mixed into keys so every seed/method gets its own stream. */
enum
{
	METHOD_A = 1, METHOD_B = 2, METHOD_C = 3, METHOD_D = 4
};

/* Baseline D's generator (public randomness of a baseline, not dpkmeans noise). */
static double
dpl_uniform(uint64_t *st)
{
	*st ^= *st << 13;
	*st ^= *st >> 7;
	*st ^= *st << 17;
	return ((double) (*st >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Laplace of scale b. */
static double
dpl_laplace(uint64_t *st, double b)
{
	double		u = dpl_uniform(st) - 0.5;

	return -b * (u < 0 ? -1.0 : 1.0) * log(1.0 - 2.0 * fabs(u));
}

/* Two-sided geometric with P(v) proportional to exp(-eps |v|). */
static double
dpl_geometric(uint64_t *st, double eps)
{
	double		q = log(exp(-eps));

	return floor(log(dpl_uniform(st)) / q) - floor(log(dpl_uniform(st)) / q);
}

/*
 * Method D: diffprivlib's KMeans (see the header), cost of its centres on
 * the true points.
 */
static double
diffprivlib_kmeans(const MixData *mx, const DpkBox *box, double eps, int seed)
{
	const double rho = 0.225;
	int			d = mx->d,
				k = mx->k,
				n = (int) mx->n,
				i,
				j,
				c,
				it,
				iters,
				placed = 0;
	double		cb = cbrt(4.0 * d * rho * rho),
				eps_m = sqrt(500.0 * pow(k, 3) / ((double) n * n) * pow(d + cb, 3)),
				norm,
				prox,
				minw = INFINITY,
				cost;
	double	   *ctr = xmalloc(sizeof(double) * k * d),
			   *sum = xmalloc(sizeof(double) * k * d),
			   *cnt = xmalloc(sizeof(double) * k);
	int		   *lab = xmalloc(sizeof(int) * n);
	uint64_t	st = mix_hash4(0x64706cULL, (uint64_t) d, (uint64_t) k,
							   (uint64_t) seed * 1000003ULL + double_bits(eps)) | 1;

	iters = (int) fmax(fmin(eps / eps_m, 7.0), 2.0);
	norm = eps / iters / (d + cb);
	/* initial centres: uniform, at least 2 prox apart, prox halved until k fit */
	for (j = 0; j < d; j++)
		minw = fmin(minw, box->upper[j] - box->lower[j]);
	for (prox = minw / 2.0; prox > 0.0 && placed < k; prox /= 2.0)
	{
		int			retry = 0;

		for (placed = 0; retry < 100 && placed < k;)
		{
			double	   *t = ctr + (size_t) placed * d,
						best = INFINITY;

			for (j = 0; j < d; j++)
				t[j] = dpl_uniform(&st) * (box->upper[j] - box->lower[j] - 2.0 * prox) +
					box->lower[j] + prox;
			for (c = 0; c < placed; c++)
			{
				double		dist = 0.0;

				for (j = 0; j < d; j++)
					dist += (ctr[(size_t) c * d + j] - t[j]) * (ctr[(size_t) c * d + j] - t[j]);
				best = fmin(best, dist);
			}
			if (placed == 0 || sqrt(best) >= 2.0 * prox)
			{
				placed++;
				retry = 0;
			}
			else
				retry++;
		}
	}
	for (it = 0; it < iters; it++)
	{
		dpk_kmeans_cost(mx->points, NULL, n, d, ctr, k, lab);
		memset(sum, 0, sizeof(double) * k * d);
		memset(cnt, 0, sizeof(double) * k);
		for (i = 0; i < n; i++)
		{
			cnt[lab[i]] += 1.0;
			for (j = 0; j < d; j++)
				sum[(size_t) lab[i] * d + j] += mx->points[(size_t) i * d + j];
		}
		for (c = 0; c < k; c++)
		{
			double		nc;

			if (cnt[c] == 0.0)
				continue;
			nc = cnt[c] + dpl_geometric(&st, cb * norm);
			while (nc < 0.5)
				nc = 1.0 - nc;
			for (j = 0; j < d; j++)
			{
				double		w = box->upper[j] - box->lower[j],
							v;

				do
					v = sum[(size_t) c * d + j] + dpl_laplace(&st, w / norm);
				while (v < nc * box->lower[j] || v > nc * box->upper[j]);
				ctr[(size_t) c * d + j] = v / nc;
			}
		}
	}
	cost = dpk_kmeans_cost(mx->points, NULL, n, d, ctr, k, NULL);
	free(ctr);
	free(sum);
	free(cnt);
	free(lab);
	return cost;
}

/* Method A: the one-shot release. */
static double
oneshot(const MixData *mx, const DpkBox *box, const Row *row, int seed,
		const Options *opt, double *ms, int *m_out, int *coreset)
{
	DpkLowdConfig cfg;
	DpkOneshotResult res;
	DpkStream	s = {0};
	double		t0,
				cost;

	dpk_lowd_defaults(&cfg, row->eps, row->k);
	dpk_lowd_use_delta(&cfg, bench_delta);
	if (!isnan(opt->sum_share))
		cfg.sum_share = opt->sum_share;
	if (!isnan(opt->n_share))
		cfg.n_share = opt->n_share;
	if (!isnan(opt->grid_scale))
		cfg.grid_scale = opt->grid_scale;
	if (!isnan(opt->gauss_grid_scale))
		cfg.gauss_grid_scale = opt->gauss_grid_scale;
	if (opt->gauss_grid_max_d >= 0)
		cfg.gauss_grid_max_d = opt->gauss_grid_max_d;
	if (!isnan(opt->threshold))
		cfg.threshold_sigmas = opt->threshold;
	if (opt->restarts > 0)
		cfg.restarts = opt->restarts;
	if (opt->no_residual)
		cfg.residual = false;
	if (opt->screen_iter >= 0)
		cfg.screen_iter = opt->screen_iter;
	if (opt->screen_keep > 0)
		cfg.screen_keep = opt->screen_keep;
	if (opt->refine_iter >= 0)
		cfg.refine_iter = opt->refine_iter;
	if (!isnan(opt->refine_shrink))
		cfg.refine_shrink = opt->refine_shrink;
	if (opt->no_grid_candidate)
		cfg.grid_candidate = false;
	if (opt->threshold_log > 0.0)
	{
		/* the grid the pipeline will choose, up to the noise on N */
		int			d = mx->d;
		double		n = (double) mx->n;
		double		eps_rest = cfg.epsilon * (1.0 - cfg.n_share);
		double		var = dpk_discrete_laplace_variance(
						dpk_scale_from_double(1.0 / (eps_rest * (1.0 - cfg.sum_share))));
		double		eps_eff = dpk_rugnik_eps_for_variance(var);
		double		m = dpk_grid_m(DPK_RULE_RUGNIK, n, eps_eff, cfg.k, d) * cfg.grid_scale;
		int			max_per_dim = (int) floor(pow(cfg.max_cells, 1.0 / d) + 1e-9);
		int			cpd;

		if (cfg.grid_scale != 1.0)
		{
			cpd = (int) floor(m + 0.5);
			cpd = cpd < 1 ? 1 : (cpd > max_per_dim ? max_per_dim : cpd);
		}
		else
			cpd = dpk_grid_cells_per_dim(DPK_RULE_RUGNIK, m, n, eps_eff, cfg.k, d,
										 max_per_dim);
		cfg.threshold_sigmas = opt->threshold_log * log(fmax(dpk_grid_cells(d, cpd), 1.0))
			/ sqrt(2.0);
	}

	open_row_stream(&s, row->d, row->k, row->eps, seed, METHOD_A);
	t0 = now_ms();
	dpk_lowd_cluster(box, mx->points, mx->n, &cfg, &s, &res);
	*ms = now_ms() - t0;
	*m_out = res.cells_per_dim;
	*coreset = res.coreset_size;
	cost = dpk_kmeans_cost(mx->points, NULL, (int) mx->n, mx->d, res.centers,
						   row->k, NULL);
	dpk_oneshot_result_free(&res);
	dpk_stream_close(&s);
	return cost;
}

static void
usage(void)
{
	fprintf(stderr,
			"usage: bench_oneshot [--seeds N] [--n N] [--rows \"d:K:eps,...\"]\n"
			"       [--sum-share X] [--n-share X] [--grid-scale X] [--threshold X]\n"
			"       [--delta X] [--gauss-grid-scale X] [--gauss-grid-max-d N]\n"
			"       [--restarts N] [--screen-iter N] [--screen-keep N] [--seed-base N] [--no-baselines] [--ref-cache FILE]\n"
			"       [--threshold-log X] [--data mixture|skewed|pickups] [--no-residual]\n"
			"       [--refine-iter N] [--refine-shrink X] [--no-grid-candidate]\n");
	exit(2);
}

static int
parse_rows(const char *spec, Row *rows)
{
	RowSpec		specs[MAX_ROWS];
	int			nrows = parse_row_specs(spec, 1, 64, specs, MAX_ROWS, ""),
				r;

	for (r = 0; r < nrows; r++)
	{
		memset(&rows[r], 0, sizeof(Row));
		rows[r].d = specs[r].d;
		rows[r].k = specs[r].k;
		rows[r].eps = specs[r].eps;
	}
	return nrows;
}

static int
default_rows(Row *rows)
{
	static const int ds[] = {2, 3, 5};
	static const int ks[] = {4, 6, 8};
	static const double epss[] = {0.1, 0.5, 1.0};
	int			a,
				b,
				c,
				nrows = 0;

	for (a = 0; a < 3; a++)
		for (b = 0; b < 3; b++)
			for (c = 0; c < 3; c++)
			{
				memset(&rows[nrows], 0, sizeof(Row));
				rows[nrows].d = ds[a];
				rows[nrows].k = ks[b];
				rows[nrows].eps = epss[c];
				nrows++;
			}
	return nrows;
}

int
main(int argc, char **argv)
{
	Options		opt;
	Row			rows[MAX_ROWS];
	int			nrows = 0;
	int			done[MAX_ROWS];
	int			i,
				r;
	double		t_start = now_ms();
	double		sum_log_a = 0.0,
				sum_log_b = 0.0,
				sum_log_c = 0.0,
				sum_log_d = 0.0;
	DpkLowdConfig def;

	opt.seeds = 5;
	opt.n = 100000;
	opt.baselines = 1;
	opt.sum_share = NAN;
	opt.n_share = NAN;
	opt.grid_scale = NAN;
	opt.gauss_grid_scale = NAN;
	opt.gauss_grid_max_d = -1;
	opt.threshold = NAN;
	opt.restarts = 20;
	opt.screen_iter = -1;
	opt.screen_keep = 0;
	opt.seed_base = BENCH_SEED_BASE;
	opt.ref_cache = NULL;
	opt.threshold_log = NAN;
	opt.data = "mixture";
	opt.no_residual = 0;
	opt.refine_iter = -1;
	opt.refine_shrink = NAN;
	opt.no_grid_candidate = 0;

	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--delta") == 0)
			bench_delta = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--seeds") == 0)
			opt.seeds = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--n") == 0)
			opt.n = (size_t) atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--sum-share") == 0)
			opt.sum_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--n-share") == 0)
			opt.n_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--grid-scale") == 0)
			opt.grid_scale = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--gauss-grid-scale") == 0)
			opt.gauss_grid_scale = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--gauss-grid-max-d") == 0)
			opt.gauss_grid_max_d = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--threshold") == 0)
			opt.threshold = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--restarts") == 0)
			opt.restarts = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--screen-iter") == 0)
			opt.screen_iter = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--screen-keep") == 0)
			opt.screen_keep = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--seed-base") == 0)
			opt.seed_base = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--rows") == 0)
			nrows = parse_rows(arg_value(argc, argv, &i), rows);
		else if (strcmp(a, "--threshold-log") == 0)
			opt.threshold_log = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--data") == 0)
			opt.data = arg_value(argc, argv, &i);
		else if (strcmp(a, "--ref-cache") == 0)
			opt.ref_cache = arg_value(argc, argv, &i);
		else if (strcmp(a, "--no-residual") == 0)
			opt.no_residual = 1;
		else if (strcmp(a, "--refine-iter") == 0)
			opt.refine_iter = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--refine-shrink") == 0)
			opt.refine_shrink = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--no-grid-candidate") == 0)
			opt.no_grid_candidate = 1;
		else if (strcmp(a, "--no-baselines") == 0)
			opt.baselines = 0;
		else
			usage();
	}
	if (opt.seeds < 1 || opt.restarts < 1 || opt.seed_base < 0 || opt.n < 1 || opt.n > 2000000000)
		usage();
	if (strcmp(opt.data, "mixture") != 0 && strcmp(opt.data, "skewed") != 0 &&
		strcmp(opt.data, "pickups") != 0)
		usage();
	if (nrows == 0)
		nrows = default_rows(rows);
	for (r = 0; r < nrows; r++)
		if (strcmp(opt.data, "pickups") == 0 && rows[r].d != 2)
		{
			fprintf(stderr, "bench_oneshot: pickups data has d = 2 only\n");
			exit(2);
		}

	/* The configuration A actually runs with (defaults shown at eps = 1). */
	dpk_lowd_defaults(&def, 1.0, 1);
	if (!isnan(opt.sum_share))
		def.sum_share = opt.sum_share;
	if (!isnan(opt.n_share))
		def.n_share = opt.n_share;
	if (!isnan(opt.grid_scale))
		def.grid_scale = opt.grid_scale;
	if (!isnan(opt.gauss_grid_scale))
		def.gauss_grid_scale = opt.gauss_grid_scale;
	if (opt.gauss_grid_max_d >= 0)
		def.gauss_grid_max_d = opt.gauss_grid_max_d;
	if (!isnan(opt.threshold))
		def.threshold_sigmas = opt.threshold;
	if (opt.restarts > 0)
		def.restarts = opt.restarts;
	if (opt.no_residual)
		def.residual = false;
	if (opt.refine_iter >= 0)
		def.refine_iter = opt.refine_iter;
	if (!isnan(opt.refine_shrink))
		def.refine_shrink = opt.refine_shrink;
	if (opt.no_grid_candidate)
		def.grid_candidate = false;
	printf("# bench_oneshot: N=%zu seeds %d-%d (disjoint from the tuning seeds 0-9) "
		   "box=[0,100]^d, data %s%s; every method %d k-means restarts\n", opt.n,
		   opt.seed_base, opt.seed_base + opt.seeds - 1, opt.data,
		   strcmp(opt.data, "mixture") == 0
		   ? " (centres uniform, separation>=15, sd in [2,6])" : "",
		   opt.restarts);
	printf("# A config: delta=%g gauss_grid_scale=%g (d <= %d)\n", bench_delta,
		   def.gauss_grid_scale, def.gauss_grid_max_d);
	printf("# A config: n_share=%g sum_share=%g grid_scale=%g threshold_sigmas=%g "
		   "residual=%d max_cells=%g restarts=%d max_iter=%d refine_iter=%d refine_shrink=%g grid_candidate=%d\n",
		   def.n_share, def.sum_share, def.grid_scale, def.threshold_sigmas,
		   (int) def.residual, def.max_cells, def.restarts, def.max_iter, def.refine_iter,
		   def.refine_shrink, (int) def.grid_candidate);
	if (opt.threshold_log > 0.0)
		printf("# A threshold_sigmas per row = %g * ln(cells) / sqrt(2)\n", opt.threshold_log);
	printf("# cost = k-means cost on the true points / non-private reference; "
		   "geometric mean over seeds\n");
	printf("%2s %2s %5s | %8s %8s %8s %8s | %8s %8s | %8s | %5s %3s %3s | %8s\n",
		   "d", "K", "eps", "A", "B_rugnik", "C_eugkm", "D_dpl", "A_min", "A_max",
		   "A_ms", "m_A", "m_B", "m_C", "A_cells");
	fflush(stdout);

	memset(done, 0, sizeof(done));
	for (r = 0; r < nrows; r++)
	{
		int			seed;
		int			rr;

		if (done[r])
			continue;

		/* Rows sharing (d, K) share their datasets and reference costs. */
		for (seed = opt.seed_base; seed < opt.seed_base + opt.seeds; seed++)
		{
			MixSpec		sp = strcmp(opt.data, "skewed") == 0
				? mix_skewed_spec(rows[r].d, rows[r].k, opt.n)
				: mix_default_spec(rows[r].d, rows[r].k, opt.n);
			const char *tag = strcmp(opt.data, "mixture") == 0 ? REF_TAG_WHOLE
				: strcmp(opt.data, "skewed") == 0 ? "skew1" : "pick1";
			MixData		mx;
			double		lo[64],
						hi[64];
			DpkBox		box;
			double		cost_opt;
			int			t;

			for (t = 0; t < rows[r].d; t++)
			{
				lo[t] = 0.0;
				hi[t] = 100.0;
			}
			box.d = rows[r].d;
			box.lower = lo;
			box.upper = hi;

			if (strcmp(opt.data, "pickups") == 0)
				mix_pickups_generate(rows[r].k, opt.n,
									 mix_hash4(0x7069636bULL, 2, 0, (uint64_t) seed), &mx);
			else
				mix_generate(&sp, mix_hash4(strcmp(opt.data, "skewed") == 0
											? 0x736b6577ULL : 0x6d6978ULL,
											(uint64_t) rows[r].d,
											(uint64_t) rows[r].k, (uint64_t) seed),
							 &mx);
			if (!ref_cache_lookup(opt.ref_cache, tag, false, rows[r].d,
								  rows[r].k, 0, opt.n, seed, &cost_opt))
			{
				cost_opt = reference_cost_of(mx.points, (int) mx.n, mx.d, mx.k, mx.centers,
											 mix_hash4(0x726566ULL, (uint64_t) rows[r].d,
													   (uint64_t) rows[r].k,
													   (uint64_t) seed));
				ref_cache_store(opt.ref_cache, tag, false, rows[r].d,
								rows[r].k, 0, opt.n, seed, cost_opt);
			}

			for (rr = r; rr < nrows; rr++)
			{
				Row		   *row = &rows[rr];
				double		ms,
							ca,
							cb = 1.0,
							cc = 1.0,
							cd = 1.0;
				int			ma,
							csz;

				if (done[rr] || row->d != rows[r].d || row->k != rows[r].k)
					continue;

				ca = oneshot(&mx, &box, row, seed, &opt, &ms, &ma, &csz) / cost_opt;
				if (opt.baselines)
				{
					cb = bench_plain_grid(&mx, &box, row->eps, seed, DPK_RULE_RUGNIK,
									METHOD_B, opt.restarts, &row->m_b) / cost_opt;
					cc = bench_plain_grid(&mx, &box, row->eps, seed, DPK_RULE_EUGKM,
									METHOD_C, opt.restarts, &row->m_c) / cost_opt;
					cd = diffprivlib_kmeans(&mx, &box, row->eps, seed) / cost_opt;
				}
				if (row->nseeds == 0)
				{
					row->min_a = row->max_a = ca;
					row->m_a_lo = row->m_a_hi = ma;
				}
				row->min_a = fmin(row->min_a, ca);
				row->max_a = fmax(row->max_a, ca);
				if (ma < row->m_a_lo)
					row->m_a_lo = ma;
				if (ma > row->m_a_hi)
					row->m_a_hi = ma;
				geo_add(&row->log_a, ca);
				geo_add(&row->log_b, cb);
				geo_add(&row->log_c, cc);
				geo_add(&row->log_d, cd);
				row->ms_a += ms;
				row->coreset_a += csz;
				row->nseeds++;
			}
			mix_free(&mx);
		}

		for (rr = r; rr < nrows; rr++)
		{
			Row		   *row = &rows[rr];
			char		ma[16];

			if (done[rr] || row->d != rows[r].d || row->k != rows[r].k)
				continue;
			done[rr] = 1;
			if (row->m_a_lo == row->m_a_hi)
				snprintf(ma, sizeof(ma), "%d", row->m_a_lo);
			else
				snprintf(ma, sizeof(ma), "%d-%d", row->m_a_lo, row->m_a_hi);
			printf("%2d %2d %5.2f | %8.4f %8.4f %8.4f %8.4f | %8.4f %8.4f | %8.1f | %5s %3d %3d | %8.0f%s\n",
				   row->d, row->k, row->eps,
				   geo_mean(row->log_a, row->nseeds),
				   geo_mean(row->log_b, row->nseeds),
				   geo_mean(row->log_c, row->nseeds),
				   geo_mean(row->log_d, row->nseeds),
				   row->min_a, row->max_a, row->ms_a / row->nseeds,
				   ma, row->m_b, row->m_c, row->coreset_a / row->nseeds,
				   opt.baselines && row->log_a > row->log_b ? "  A>B" : "");
			fflush(stdout);
			sum_log_a += row->log_a / row->nseeds;
			sum_log_b += row->log_b / row->nseeds;
			sum_log_c += row->log_c / row->nseeds;
			sum_log_d += row->log_d / row->nseeds;
		}
	}

	printf("# geometric mean over %d rows: A %.4f", nrows, geo_mean(sum_log_a, nrows));
	if (opt.baselines)
		printf("  B %.4f  C %.4f  D %.4f", geo_mean(sum_log_b, nrows), geo_mean(sum_log_c, nrows),
			   geo_mean(sum_log_d, nrows));
	printf("\n# total time %.1f s\n", (now_ms() - t_start) / 1e3);
	return 0;
}
