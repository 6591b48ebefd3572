/*
 * bench_highd.c
 *		Accuracy benchmark of the high-dimensional one-shot release.
 *
 * For every configuration row (d, K, eps) and every seed it draws a Gaussian
 * mixture (mixture.h, box [0,100]^d) and compares three eps-DP methods on
 * the k-means cost of their centres over the true points, normalised by a
 * non-private reference (the lower of k-means with 10 restarts and Lloyd
 * started from the generating centres):
 *
 *	 H  highd    dpk_highd_oneshot_cluster with dpk_highd_defaults, optionally
 *				 overridden on the command line for tuning (run through
 *				 highd_research_cluster, which also runs the research modes
 *				 and refinement steps; in the joint mode without refinement
 *				 it is the shipped pipeline);
 *	 C  H_cell   the same pipeline in cell mode (HIGHD_LIFT_CELL, 2 copies,
 *				 lift_share 0.7, grid_scale 1): per-cell original-space sums and the
 *				 copy with the best private score, i.e. what continual
 *				 per-cell counters can support (the lifting and boosting of
 *				 "Differential Privacy for Clustering Under Continual
 *				 Observation");
 *	 L  lowd     dpk_lowd_cluster with dpk_lowd_defaults (the grid in
 *				 the original space, which collapses to 1-2 cells per
 *				 dimension at high d);
 *	 G  grid     plain RUGNIK grid at the true N: Laplace(1/eps) on every
 *				 count, negative counts clipped, positive cells at their
 *				 centres, weighted k-means.
 *
 * Output: one line per row with the geometric mean over seeds of each
 * method's normalised cost, H's min and max, H's mean wall time, the
 * projected dimension and cells per dimension H used, the cells per
 * dimension of L and G, how often C chose each copy; then the geometric
 * mean over rows.
 *
 * Options (all optional; the H overrides are for tuning):
 *	 --seeds N  --n N  --rows "d:K:eps,..."  --no-baselines (H only)
 *	 --codes    H reads the rows as dp_kmeans keeps them, the 16-bit codes of
 *				 their metric positions (row_codes.h); the cost is on the rows
 *	 --max-cells X  H's cap on a projected grid's cells (DpkHighdConfig.max_cells)
 *	 --dhat N  --copies N  --half-width X  --group-share X  --lift-share X
 *	 --lift-count-share X  --mode joint|cluster|cell  --norm-share X
 *	 --coarsen N  --refine N  --refine-share X  --grid-scale X
 *	 --threshold X  --n-share X  --lift-shrink on|off (DpkHighdConfig.lift_shrink)
 *	 --mean-guard on|off (DpkHighdConfig.mean_guard)
 *	 --wide-d N  DpkHighdConfig.wide_min_d (0: the wide shares never);
 *				 --lift-share and --grid-scale set the wide shares too
 *	 --sd LO:HI  the clusters' standard deviations (default 2:6 of 100):
 *				 tight clusters 0.5:1.5, loose 8:16
 *	 --zipf X    cluster j's weight (j + 1)^-X (unequal sizes; default
 *				 uniform in 0.5-1.5)
 *	 --family F  a named family of clustered data (sets --sd and --zipf):
 *				 mix (the default mixture), tight (sd 0.5-1.5 of the box's
 *				 100, uniform weights) or loose (sd 8-16, Zipf 1 weights);
 *				 the row line then gives H's arithmetic mean and worst over
 *				 the seeds beside two per-seed columns: "mean1", one centre
 *				 at the true mean, and "floor", the normalised cost of the
 *				 ideal release under the same noise (the generating
 *				 clusters known, each centre its cluster's true mean plus
 *				 the noise of one lifted sum at H's sum variance divided by
 *				 the cluster's size; expectation 1 + d v sum_j 1/n_j / OPT),
 *				 and "floor_all", the same with all of epsilon on the sums.
 *				 Reference costs of a family go to the cache under its own
 *				 tag and are the lower of Lloyd from the generating centres
 *				 and k-means with 3 restarts (the clusters are far apart at
 *				 the dimensions it is meant for).  Tuning seeds 10-12
 *				 (--seed-base 10), reported seeds 100-102.
 *	 --restarts N     k-means restarts of EVERY method (default 20)
 *	 --seed-base N    data seeds N .. N + seeds - 1 (default 100: the
 *					  defaults were tuned on seeds 0-9)
 *	 --verbose  one line per seed (H's cost; in the selection modes the
 *				chosen copy, every copy's private score and true cost)
 *	 --ref-cache FILE  reuse reference costs stored in FILE, append new ones
 *	 --box-upper X  the declared box is [0, X]^d (default 100, the points' own
 *				range; larger: loose bounds, the points in a corner)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coreset.h"
#include "dpk_mem.h"
#include "grid.h"
#include "highd.h"
#include "highd_research.h"
#include "kmeans.h"
#include "lowd.h"
#include "noise.h"
#include "row_codes.h"
#include "rugnik.h"
#include "zcdp.h"

#define BENCH_PROG "bench_highd"

#include "mixture.h"
#include "bench_common.h"

#define MAX_ROWS 64

typedef struct Row
{
	int			d;
	int			k;
	double		eps;
	int			nseeds;
	double		log_h,
				log_c,
				log_l,
				log_g;
	double		min_h,
				max_h;
	double		ms_h;
	int			dhat;
	int			m_h_lo,
				m_h_hi;
	int			m_l,
				m_g;
	int			chosen[4];		/* how often C chose copy 0, 1, 2, >=3 */
	double		sum_h;			/* --family: arithmetic sums over seeds */
	double		sum_mean1,
				sum_floor,
				sum_floor_all;
} Row;

typedef struct Options
{
	int			seeds;
	size_t		n;
	int			baselines;
	int			dhat;
	int			copies;
	double		half_width;
	double		lift_share;
	double		group_share;
	double		lift_count_share;
	int			mode;			/* -1: default, else a HighdLiftMode */
	double		norm_share;
	int			coarsen;
	int			refine;
	double		refine_share;
	double		grid_scale;
	double		threshold;
	double		n_share;
	int			restarts;
	int			codes;			/* --codes: H reads its rows as dp_kmeans keeps them */
	double		max_cells;		/* --max-cells: H's cap on a projected grid's cells */
	int			seed_base;		/* first data seed (tuning used 0-9) */
	const char *ref_cache;
	int			verbose;
	int			lift_shrink;	/* -1 keep, 0 off, 1 on */
	int			mean_guard;		/* -1 keep, 0 off, 1 on */
	double		sd_lo,			/* --sd LO:HI (sd_hi 0: the mixture's 2:6) */
				sd_hi;
	double		zipf;			/* --zipf X: Zipf weights (0: uniform 0.5-1.5) */
	const char *family;			/* --family: mix, tight, loose (NULL: none) */
	double		box_upper;		/* the declared box [0, box_upper]^d */
	int			wide_d;			/* --wide-d N (-1: keep) */
} Options;

enum
{
	METHOD_H = 11, METHOD_L = 12, METHOD_G = 13, METHOD_C = 14
};

/* Method L: the low-d one-shot release. */
static double
lowd(const MixData *mx, const DpkBox *box, const Row *row, int seed, int restarts,
	 int *m_out)
{
	DpkLowdConfig cfg;
	DpkOneshotResult res;
	DpkStream	s = {0};
	double		cost;

	dpk_lowd_defaults(&cfg, row->eps, row->k);
	dpk_lowd_use_delta(&cfg, bench_delta);
	cfg.restarts = restarts;
	open_row_stream(&s, row->d, row->k, row->eps, seed, METHOD_L);
	dpk_lowd_cluster(box, mx->points, mx->n, &cfg, &s, &res);
	*m_out = res.cells_per_dim;
	cost = dpk_kmeans_cost(mx->points, NULL, (int) mx->n, mx->d, res.centers, row->k, NULL);
	dpk_oneshot_result_free(&res);
	dpk_stream_close(&s);
	return cost;
}

/* H's configuration for a row: defaults, then command-line overrides. */
static void
highd_config(const Options *opt, double eps, int k, int seed, HighdResearchConfig *rc)
{
	DpkHighdConfig *cfg = &rc->base;

	highd_research_defaults(rc, eps, k);
	dpk_highd_use_delta(cfg, bench_delta);
	if (opt->dhat > 0)
		cfg->dhat = opt->dhat;
	if (opt->copies > 0)
		cfg->copies = opt->copies;
	if (!isnan(opt->half_width))
		cfg->half_width = opt->half_width;
	if (!isnan(opt->lift_share))
		cfg->lift_share = cfg->wide_lift_share = opt->lift_share;
	if (!isnan(opt->group_share))
		cfg->group_share = opt->group_share;
	if (!isnan(opt->lift_count_share))
		cfg->lift_count_share = opt->lift_count_share;
	if (opt->mode >= 0)
		rc->lift_mode = (HighdLiftMode) opt->mode;
	if (!isnan(opt->norm_share))
		rc->norm_share = opt->norm_share;
	if (opt->coarsen > 0)
		rc->lift_coarsen = opt->coarsen;
	if (opt->refine >= 0)
		cfg->refine_steps = opt->refine;
	if (!isnan(opt->refine_share))
		cfg->refine_share = opt->refine_share;
	if (!isnan(opt->grid_scale))
		cfg->grid_scale = cfg->wide_grid_scale = opt->grid_scale;
	if (opt->wide_d >= 0)
		cfg->wide_min_d = opt->wide_d;
	if (!isnan(opt->threshold))
		cfg->threshold_sigmas = opt->threshold;
	if (!isnan(opt->n_share))
		cfg->n_share = opt->n_share;
	if (opt->restarts > 0)
		cfg->restarts = opt->restarts;
	if (opt->max_cells > 0.0)
		cfg->max_cells = opt->max_cells;
	if (opt->lift_shrink >= 0)
		cfg->lift_shrink = opt->lift_shrink > 0;
	if (opt->mean_guard >= 0)
		cfg->mean_guard = opt->mean_guard > 0;
	/* a different public projection seed per dataset */
	cfg->proj_seed = mix_hash4(0x70726f6aULL, (uint64_t) k, (uint64_t) seed, 0);
}

/* Method H (cell = 0) or C (cell = 1): the high-d one-shot release. */
static double
highd(const MixData *mx, const DpkBox *box, const Row *row, int seed,
	  const Options *opt, int cell, double *ms, HighdResearchInfo *info, int *m_out)
{
	HighdResearchConfig cfg;
	DpkOneshotResult res;
	DpkStream	s = {0};
	double		t0,
				cost;

	if (cell)
	{
		Options		none;

		memset(&none, 0, sizeof(none));
		none.half_width = none.lift_share = none.lift_count_share = none.group_share = NAN;
		none.norm_share = none.refine_share = none.grid_scale = NAN;
		none.threshold = none.n_share = NAN;
		none.refine = none.mode = none.lift_shrink = none.mean_guard = -1;
		none.wide_d = -1;
		none.restarts = opt->restarts;
		highd_config(&none, row->eps, row->k, seed, &cfg);
		cfg.lift_mode = HIGHD_LIFT_CELL;
		cfg.base.copies = 2;
		cfg.base.lift_share = 0.7;
		cfg.base.grid_scale = 1.0;	/* finer grids put a cluster over more noisy sums */
		cfg.base.wide_min_d = 0;
	}
	else
		highd_config(opt, row->eps, row->k, seed, &cfg);
	open_row_stream(&s, row->d, row->k, row->eps, seed, cell ? METHOD_C : METHOD_H);
	t0 = now_ms();
	if (opt->codes)
	{
		/* the rows as dp_kmeans keeps them: metric positions' codes */
		size_t		len = mx->n * (size_t) mx->d;
		double	   *u = dpk_alloc(sizeof(double) * len);
		uint16_t   *code = dpk_alloc(sizeof(uint16_t) * len);

		memcpy(u, mx->points, sizeof(double) * len);
		dpk_highd_metric_points(box, &cfg.base, u, mx->n);
		dpk_row_codes_pack(u, mx->n, mx->d, code);
		dpk_row_codes_unpack(code, mx->n, mx->d, cfg.base.ball, u);
		highd_research_cluster(box, u, mx->n, &cfg, &s, &res, info);
		dpk_free(u);
		dpk_free(code);
	}
	else
		highd_research_cluster(box, mx->points, mx->n, &cfg, &s, &res, info);
	*ms = now_ms() - t0;
	*m_out = res.cells_per_dim;
	cost = dpk_kmeans_cost(mx->points, NULL, (int) mx->n, mx->d, res.centers, row->k, NULL);
	dpk_oneshot_result_free(&res);
	dpk_stream_close(&s);
	return cost;
}

/*
 * --family: the reference cost of a family's data set, cached under the
 * family's tag: the lower of Lloyd from the generating centres and k-means
 * with 3 restarts.
 */
static void
family_reference(const Options *opt, const MixData *mx, int seed, double *cost)
{
	char		tag[16];
	double	   *c;
	double		km;

	snprintf(tag, sizeof(tag), "fam-%s", opt->family);
	if (ref_cache_lookup(opt->ref_cache, tag, false, mx->d, mx->k, 0, mx->n, seed, cost))
		return;
	c = xmalloc(sizeof(double) * mx->k * mx->d);
	memcpy(c, mx->centers, sizeof(double) * mx->k * mx->d);
	*cost = lloyd_from(mx->points, (int) mx->n, mx->d, mx->k, c, 300);
	km = dpk_kmeans(&(DpkPoints) {mx->points, NULL, (int) mx->n, mx->d},
					&(DpkClusterOpts) {mx->k, 3, 300,
									   mix_hash4(0x726566ULL, (uint64_t) mx->d,
												 (uint64_t) mx->k, (uint64_t) seed)},
					&(DpkClusterOut) {c, NULL});
	if (km < *cost)
		*cost = km;
	free(c);
	ref_cache_store(opt->ref_cache, tag, false, mx->d, mx->k, 0, mx->n, seed, *cost);
}

/* The k-means cost of one centre at the points' true mean. */
static double
mean_centre_cost(const MixData *mx)
{
	double	   *mean = xmalloc(sizeof(double) * mx->d);
	double		cost;
	size_t		i;
	int			j;

	for (j = 0; j < mx->d; j++)
		mean[j] = 0.0;
	for (i = 0; i < mx->n; i++)
		for (j = 0; j < mx->d; j++)
			mean[j] += mx->points[i * mx->d + j];
	for (j = 0; j < mx->d; j++)
		mean[j] /= (double) mx->n;
	cost = dpk_kmeans_cost(mx->points, NULL, (int) mx->n, mx->d, mean, 1, NULL);
	free(mean);
	return cost;
}

/*
 * The expected normalised cost of the ideal release at sum variance v per
 * coordinate (normalized units): every generating cluster's true mean plus
 * the noise of its lifted sum over its size n_j, which adds n_j d v / n_j^2
 * (times the box's width squared) to the cost: 1 + w^2 d v sum_j 1/n_j / OPT.
 */
static double
family_floor(const MixData *mx, double v, double width, double cost_opt)
{
	double	   *nj = xmalloc(sizeof(double) * mx->k);
	double		inv = 0.0;
	size_t		i;
	int			j;

	for (j = 0; j < mx->k; j++)
		nj[j] = 0.0;
	for (i = 0; i < mx->n; i++)
		nj[mx->labels[i]] += 1.0;
	for (j = 0; j < mx->k; j++)
		if (nj[j] > 0.0)
			inv += 1.0 / nj[j];
	free(nj);
	return 1.0 + width * width * mx->d * v * inv / cost_opt;
}

/*
 * The sum variance per coordinate (normalized units) with all of eps on the
 * sums: the cube noise at l-infinity scale (U / 2) / eps, or with delta the
 * Gaussian at l2 bound sqrt(d) U / 2 and all of rho.
 */
static double
all_sums_var(int d, double eps)
{
	double		u = DPK_LIFT_UNITS,
				l2sq = d * (u / 2.0) * (u / 2.0);

	if (bench_delta > 0.0)
		return dpk_zcdp_sigma2(l2sq, dpk_zcdp_rho(eps, bench_delta)) / (u * u);
	return dpk_vector_noise_variance(dpk_scale_from_double(u / 2.0 / eps), d) / (u * u);
}

static void
usage(void)
{
	fprintf(stderr,
			"usage: bench_highd [--seeds N] [--n N] [--rows \"d:K:eps,...\"] [--no-baselines]\n"
			"       [--dhat N] [--copies N] [--half-width X] [--group-share X]\n"
			"       [--lift-share X] [--lift-count-share X] [--mode joint|cluster|cell]\n"
			"       [--norm-share X] [--coarsen N] [--refine N]"
			" [--refine-share X] [--grid-scale X] [--threshold X] [--n-share X]\n"
			"       [--restarts N] [--seed-base N] [--verbose] [--ref-cache FILE]\n"
			"       [--lift-shrink on|off] [--box-upper X] [--sd LO:HI] [--zipf X]\n"
			"       [--family mix|tight|loose] [--wide-d N] [--codes]\n"
			"       [--max-cells X]\n");
	exit(2);
}

static int
parse_rows(const char *spec, Row *rows)
{
	RowSpec		specs[MAX_ROWS];
	int			nrows = parse_row_specs(spec, 1, 2048, specs, MAX_ROWS, ""),
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
	static const int ds[] = {8, 16, 32, 64};
	static const double epss[] = {0.5, 1.0};
	int			a,
				c,
				nrows = 0;

	for (a = 0; a < 4; a++)
		for (c = 0; c < 2; c++)
		{
			memset(&rows[nrows], 0, sizeof(Row));
			rows[nrows].d = ds[a];
			rows[nrows].k = 10;
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
	double		sum_log_h = 0.0,
				sum_log_c = 0.0,
				sum_log_l = 0.0,
				sum_log_g = 0.0;
	HighdResearchConfig def;

	memset(&opt, 0, sizeof(opt));
	opt.seeds = 5;
	opt.n = 100000;
	opt.baselines = 1;
	opt.half_width = opt.lift_share = opt.lift_count_share = opt.group_share = NAN;
	opt.norm_share = opt.refine_share = opt.grid_scale = NAN;
	opt.threshold = opt.n_share = NAN;
	opt.refine = -1;
	opt.mode = -1;
	opt.lift_shrink = -1;
	opt.mean_guard = -1;
	opt.box_upper = 100.0;
	opt.wide_d = -1;
	opt.restarts = 20;
	opt.seed_base = BENCH_SEED_BASE;

	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--delta") == 0)
			bench_delta = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--codes") == 0)
			opt.codes = 1;
		else if (strcmp(a, "--max-cells") == 0)
			opt.max_cells = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--seeds") == 0)
			opt.seeds = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--n") == 0)
			opt.n = (size_t) atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--rows") == 0)
			nrows = parse_rows(arg_value(argc, argv, &i), rows);
		else if (strcmp(a, "--no-baselines") == 0)
			opt.baselines = 0;
		else if (strcmp(a, "--dhat") == 0)
			opt.dhat = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--copies") == 0)
			opt.copies = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--half-width") == 0)
			opt.half_width = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--lift-share") == 0)
			opt.lift_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--group-share") == 0)
			opt.group_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--lift-count-share") == 0)
			opt.lift_count_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--mode") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			if (strcmp(v, "joint") == 0)
				opt.mode = HIGHD_LIFT_JOINT;
			else if (strcmp(v, "cluster") == 0)
				opt.mode = HIGHD_LIFT_CLUSTER;
			else if (strcmp(v, "cell") == 0)
				opt.mode = HIGHD_LIFT_CELL;
			else
				usage();
		}
		else if (strcmp(a, "--norm-share") == 0)
			opt.norm_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--coarsen") == 0)
			opt.coarsen = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--refine") == 0)
			opt.refine = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--refine-share") == 0)
			opt.refine_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--grid-scale") == 0)
			opt.grid_scale = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--threshold") == 0)
			opt.threshold = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--n-share") == 0)
			opt.n_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--restarts") == 0)
			opt.restarts = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--lift-shrink") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			opt.lift_shrink = strcmp(v, "on") == 0 ? 1 : (strcmp(v, "off") == 0 ? 0 : -2);
			if (opt.lift_shrink < -1)
				usage();
		}
		else if (strcmp(a, "--sd") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			if (sscanf(v, "%lf:%lf", &opt.sd_lo, &opt.sd_hi) != 2 || !(opt.sd_hi > 0.0))
				usage();
		}
		else if (strcmp(a, "--zipf") == 0)
			opt.zipf = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--family") == 0)
		{
			opt.family = arg_value(argc, argv, &i);
			if (strcmp(opt.family, "mix") == 0)
				opt.sd_hi = opt.zipf = 0.0;
			else if (strcmp(opt.family, "tight") == 0)
			{
				opt.sd_lo = 0.5;
				opt.sd_hi = 1.5;
				opt.zipf = 0.0;
			}
			else if (strcmp(opt.family, "loose") == 0)
			{
				opt.sd_lo = 8.0;
				opt.sd_hi = 16.0;
				opt.zipf = 1.0;
			}
			else
				usage();
		}
		else if (strcmp(a, "--mean-guard") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			opt.mean_guard = strcmp(v, "on") == 0 ? 1 : (strcmp(v, "off") == 0 ? 0 : -2);
			if (opt.mean_guard < -1)
				usage();
		}
		else if (strcmp(a, "--wide-d") == 0)
			opt.wide_d = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--box-upper") == 0)
			opt.box_upper = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--seed-base") == 0)
			opt.seed_base = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--verbose") == 0)
			opt.verbose = 1;
		else if (strcmp(a, "--ref-cache") == 0)
			opt.ref_cache = arg_value(argc, argv, &i);
		else
			usage();
	}
	if (opt.seeds < 1 || opt.restarts < 1 || opt.seed_base < 0 || opt.n < 1 || opt.n > 2000000000)
		usage();
	if (nrows == 0)
		nrows = default_rows(rows);

	highd_config(&opt, 1.0, 10, 0, &def);
	printf("# bench_highd: N=%zu seeds %d-%d (disjoint from the tuning seeds 0-9) "
		   "box=[0,%g]^d, mixture in [0,100]^d: centres uniform, separation>=15, sd in [2,6]; "
		   "every method %d k-means restarts\n", opt.n, opt.seed_base,
		   opt.seed_base + opt.seeds - 1, opt.box_upper, opt.restarts);
	if (opt.sd_hi > 0.0 || opt.zipf > 0.0)
		printf("# family: sd in [%g,%g], weights %s%g\n", opt.sd_hi > 0.0 ? opt.sd_lo : 2.0,
			   opt.sd_hi > 0.0 ? opt.sd_hi : 6.0, opt.zipf > 0.0 ? "Zipf " : "uniform 0.5-1.5 ",
			   opt.zipf);
	printf("# H config: dhat=%d%s copies=%d half_width=%g lift=%s group_share=%g lift_share=%g "
		   "lift_count_share=%g norm_share=%g refine=%d refine_share=%g grid_scale=%g "
		   "threshold_sigmas=%g n_share=%g restarts=%d wide from d=%d: lift_share=%g "
		   "grid_scale=%g\n",
		   def.base.dhat, def.base.dhat ? "" : "(auto)", def.base.copies, def.base.half_width,
		   def.lift_mode == HIGHD_LIFT_CELL ? "cell" :
		   def.lift_mode == HIGHD_LIFT_JOINT ? "joint" : "cluster", def.base.group_share,
		   def.base.lift_share, def.base.lift_count_share, def.norm_share,
		   def.base.refine_steps, def.base.refine_share, def.base.grid_scale,
		   def.base.threshold_sigmas, def.base.n_share, def.base.restarts,
		   def.base.wide_min_d, def.base.wide_lift_share, def.base.wide_grid_scale);
	printf("# cost = k-means cost on the true points / non-private reference; "
		   "geometric mean over seeds\n");
	printf("# H = highd projection pipeline (defaults), H_cell = the same in cell mode "
		   "(per-cell sums, 2 copies, grid_scale 1, best private score), L = low-d dpk_lowd_cluster, "
		   "G = plain RUGNIK grid at the true N\n");
	printf("# H_cell chosen: how often each of its copies had the best private score\n");
	printf("%2s %2s %5s | %8s %8s %8s %8s | %8s %8s | %8s | %4s %5s %3s %3s | %s\n",
		   "d", "K", "eps", "H", "H_cell", "L_lowd", "G_grid", "H_min", "H_max",
		   "H_ms", "dhat", "m_H", "m_L", "m_G", "H_cell chosen 0/1");
	fflush(stdout);

	memset(done, 0, sizeof(done));
	for (r = 0; r < nrows; r++)
	{
		int			seed,
					rr;

		if (done[r])
			continue;
		for (seed = opt.seed_base; seed < opt.seed_base + opt.seeds; seed++)
		{
			MixSpec		sp = mix_default_spec(rows[r].d, rows[r].k, opt.n);

			if (opt.sd_hi > 0.0)
			{
				sp.sd_lo = opt.sd_lo;
				sp.sd_hi = opt.sd_hi;
			}
			if (opt.zipf > 0.0)
				sp.zipf = opt.zipf;
			MixData		mx;
			double	   *lo = xmalloc(sizeof(double) * rows[r].d);
			double	   *hi = xmalloc(sizeof(double) * rows[r].d);
			DpkBox		box;
			double		cost_opt;
			int			t;

			for (t = 0; t < rows[r].d; t++)
			{
				lo[t] = 0.0;
				hi[t] = opt.box_upper;
			}
			box.d = rows[r].d;
			box.lower = lo;
			box.upper = hi;
			mix_generate(&sp, mix_hash4(0x6d6978ULL, (uint64_t) rows[r].d,
										(uint64_t) rows[r].k, (uint64_t) seed), &mx);
			if (opt.family)
				family_reference(&opt, &mx, seed, &cost_opt);
			else if (!ref_cache_lookup(opt.ref_cache, REF_TAG_WHOLE, false, rows[r].d,
									   rows[r].k, 0, opt.n, seed, &cost_opt))
			{
				cost_opt = reference_cost_of(mx.points, (int) mx.n, mx.d, mx.k, mx.centers,
											 mix_hash4(0x726566ULL, (uint64_t) rows[r].d,
													   (uint64_t) rows[r].k,
													   (uint64_t) seed));
				ref_cache_store(opt.ref_cache, REF_TAG_WHOLE, false, rows[r].d,
								rows[r].k, 0, opt.n, seed, cost_opt);
			}

			for (rr = r; rr < nrows; rr++)
			{
				Row		   *row = &rows[rr];
				HighdResearchInfo info;
				double		ms,
							ms_c,
							ch,
							cc = 1.0,
							cl = 1.0,
							cg = 1.0;
				int			mh,
							mc;
				HighdResearchInfo cinfo;

				if (done[rr] || row->d != rows[r].d || row->k != rows[r].k)
					continue;
				memset(&info, 0, sizeof(info));
				if (opt.verbose)
					info.copy_centers = xmalloc(sizeof(double) * 64 * row->k * row->d);
				ch = highd(&mx, &box, row, seed, &opt, 0, &ms, &info, &mh) / cost_opt;
				if (opt.baselines)
				{
					memset(&cinfo, 0, sizeof(cinfo));
					cc = highd(&mx, &box, row, seed, &opt, 1, &ms_c, &cinfo, &mc) / cost_opt;
					cl = lowd(&mx, &box, row, seed, opt.restarts, &row->m_l) / cost_opt;
					cg = bench_plain_grid(&mx, &box, row->eps, seed, DPK_RULE_RUGNIK, METHOD_G,
										  opt.restarts, &row->m_g) / cost_opt;
				}
				if (opt.verbose)
				{
					int			c;

					printf("#   d=%d eps=%g seed=%d H=%.4f chosen=%d scores", row->d,
						   row->eps, seed, ch, info.chosen);
					for (c = 0; c < info.base.budget.copies && c < 16; c++)
						printf(" %.1f", info.score[c]);
					printf(" true");
					for (c = 0; c < info.base.budget.copies && c < 64; c++)
					{
						double	   *cc = info.copy_centers + (size_t) c * row->k * row->d;
						int			e;

						for (e = 0; e < row->k * row->d; e++)
							cc[e] *= opt.box_upper;
						printf(" %.3f", dpk_kmeans_cost(mx.points, NULL, (int) mx.n, row->d,
														cc, row->k, NULL) / cost_opt);
					}
					printf("\n");
					free(info.copy_centers);
				}
				if (row->nseeds == 0)
				{
					row->min_h = row->max_h = ch;
					row->m_h_lo = row->m_h_hi = mh;
				}
				row->min_h = fmin(row->min_h, ch);
				row->max_h = fmax(row->max_h, ch);
				if (mh < row->m_h_lo)
					row->m_h_lo = mh;
				if (mh > row->m_h_hi)
					row->m_h_hi = mh;
				row->dhat = info.base.dhat;
				if (opt.baselines && cinfo.chosen >= 0)
					row->chosen[cinfo.chosen < 3 ? cinfo.chosen : 3]++;
				if (opt.family)
				{
					row->sum_h += ch;
					row->sum_mean1 += mean_centre_cost(&mx) / cost_opt;
					row->sum_floor += family_floor(&mx, info.base.sum_var, opt.box_upper,
												   cost_opt);
					row->sum_floor_all += family_floor(&mx, all_sums_var(row->d, row->eps),
													   opt.box_upper, cost_opt);
				}
				geo_add(&row->log_h, ch);
				geo_add(&row->log_c, cc);
				geo_add(&row->log_l, cl);
				geo_add(&row->log_g, cg);
				row->ms_h += ms;
				row->nseeds++;
			}
			mix_free(&mx);
			free(lo);
			free(hi);
		}

		for (rr = r; rr < nrows; rr++)
		{
			Row		   *row = &rows[rr];
			char		mh[16];

			if (done[rr] || row->d != rows[r].d || row->k != rows[r].k)
				continue;
			done[rr] = 1;
			if (row->m_h_lo == row->m_h_hi)
				snprintf(mh, sizeof(mh), "%d", row->m_h_lo);
			else
				snprintf(mh, sizeof(mh), "%d-%d", row->m_h_lo, row->m_h_hi);
			if (opt.family)
				printf("# %s d=%d eps=%g seeds %d-%d: H mean %.4f worst %.4f | floor %.4f "
					   "floor_all %.4f mean1 %.4f\n", opt.family, row->d, row->eps,
					   opt.seed_base, opt.seed_base + opt.seeds - 1, row->sum_h / row->nseeds,
					   row->max_h, row->sum_floor / row->nseeds,
					   row->sum_floor_all / row->nseeds, row->sum_mean1 / row->nseeds);
			printf("%2d %2d %5.2f | %8.4f %8.4f %8.4f %8.4f | %8.4f %8.4f | %8.1f | %4d %5s %3d %3d | %d/%d\n",
				   row->d, row->k, row->eps,
				   geo_mean(row->log_h, row->nseeds),
				   geo_mean(row->log_c, row->nseeds),
				   geo_mean(row->log_l, row->nseeds),
				   geo_mean(row->log_g, row->nseeds),
				   row->min_h, row->max_h, row->ms_h / row->nseeds,
				   row->dhat, mh, row->m_l, row->m_g, row->chosen[0], row->chosen[1]);
			fflush(stdout);
			sum_log_h += row->log_h / row->nseeds;
			sum_log_c += row->log_c / row->nseeds;
			sum_log_l += row->log_l / row->nseeds;
			sum_log_g += row->log_g / row->nseeds;
		}
	}

	printf("# geometric mean over %d rows: H %.4f", nrows, geo_mean(sum_log_h, nrows));
	if (opt.baselines)
		printf("  H_cell %.4f  L %.4f  G %.4f", geo_mean(sum_log_c, nrows),
			   geo_mean(sum_log_l, nrows), geo_mean(sum_log_g, nrows));
	printf("\n# total time %.1f s\n", (now_ms() - t_start) / 1e3);
	return 0;
}
