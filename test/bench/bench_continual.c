/*
 * bench_continual.c
 *		Accuracy benchmark of the continual (live) releases, over every
 *		release from T/4 on.
 *
 * It replays, in plain C, what a live table does: the state is the sparse
 * cell map of the counted level (2^level cells per dimension of the box),
 * every inserted point adds (1, in-cell offsets) to its cell and every
 * deleted point subtracts them, and release t publishes the noisy histogram
 * of that map at t (tree noise keyed by the table's key) followed by
 * dpk_live_cluster.
 *
 * Data (--data, default all three):
 *	 mixture  Gaussian mixtures of mixture.h on [0,100]^d (centres >= 15
 *			  apart, sd in [2,6], weights within a factor 3);
 *	 skewed   mix_skewed_spec: Zipf weights (K = 6: 61 % down to 1.7 % of
 *			  the points), log-normal scales, Student-t(3) coordinates;
 *	 airports a real table, when --airports PATH is given: the 3376 US
 *			  airports of Debian's python3-vega-datasets (airports.csv, its
 *			  last two columns latitude, longitude), points (longitude,
 *			  latitude) in the declared box [-180,-60] x [5,75] (d = 2
 *			  rows only): dense in the east, sparse in the west, Alaska,
 *			  Hawaii and the Pacific islands as a heavy tail.
 * Every data set is clamped into its box first (as the extension clamps
 * rows) and costs are on the clamped points.  Mixtures are i.i.d. draws,
 * so in random order; the real table is put in a seeded random order.
 *
 * Streams:
 *	 insert  N points in T batches, batch t = points [floor((t-1)N/T),
 *			 floor(tN/T)), insert_only = true; a second column
 *			 ("live_del") runs the same stream with insert_delete
 *			 accounting (insert_only = false);
 *	 window  2N points in T batches; release t inserts batch t and, once
 *			 t > T/2, deletes batch t - T/2, so the window holds N points
 *			 from t = T/2 on; insert_only = false.
 * For the real table N is its row count (insert) or half of it (window).
 *
 * The configuration is dpk_live_defaults(d, K, eps, T, insert_only) with
 * cfg.level = dpk_live_choose_level(cfg, N, 4194304).  The noise of release
 * t depends only on the key and t, so releases that are not measured are not
 * computed: the state in between just accumulates its batches, exactly as
 * the table's counters would.
 *
 * Releases measured (--releases): "all" = every t in [ceil(T/4), T]; a
 * "sample" = every release of that range whose tree decomposition has the
 * range's largest node count (its noisiest releases), every `stride`-th
 * release from ceil(T/4) on (--stride, default the odd number nearest
 * T/64), and T; means then weigh each node count by its share of all the
 * releases of the range (bench_release_list).  Default: all up to T = 256,
 * the sample above.
 *
 * At each measured t, on the points currently in the stream:
 *	 live     k = K centres of the release (block dpk_live_block(K));
 *	 oneshot  dpk_lowd_cluster with the full eps (dpk_lowd_defaults);
 *	 naive    dpk_lowd_cluster with eps/T (T one-shot releases composed).
 * Every method runs weighted k-means with the same number of restarts
 * (--restarts, default 10: the live default; dp_kmeans ships 20).  Each
 * cost is the k-means cost of the centres on the current true points
 * divided by a non-private reference on the same points (bench_ref_cost:
 * Lloyd warm-started from the previous measured release's reference, with
 * dpk_kmeans (10 restarts) and, for mixtures, Lloyd from the generating
 * centres every 16th measured release).
 *
 * Output: per (data, stream, T, d, K, eps) one line: for live, oneshot,
 * live/oneshot and live_del the geometric mean over every measured
 * (release, seed) and the worst release (largest geometric mean over seeds
 * at one t, with that t and its node count), the worst single run of
 * live/oneshot, naive's mean, the counted level, the mean coreset and
 * release time; then a "guard" line: live without the low-d mean guard
 * (dpk_live_cluster_centres: "before"), one centre at the noisy mean at eps
 * ("1c": a share 1 / (1 + d^(2/3)) on one Laplace count, the rest on the
 * sum), and in how many measured releases the guard replaced the K
 * centres; then a line with live/oneshot's mean per node count.
 * Seeds are --seed-base .. --seed-base + seeds - 1 (default 100-107: the
 * defaults were tuned on seeds 0-9).
 *
 * Options (all optional):
 *	 --seeds N  --seed-base N  --n N  --rows "d:K:eps,..."
 *	 --horizons "64,1024"  --stream insert|window|both
 *	 --data mixture,skewed,airports  --airports PATH
 *	 --releases all|sample|auto  --stride N  --restarts N  --no-naive
 *	 --no-del   no live_del column (insert stream)
 *	 --old      also the previous estimator (DPK_TREE_SIGNED: the signed
 *				nodes, level from their weight), on the same key and rows,
 *				printed as an "old estimator" line under each row
 *	 --binary   the "old" line is instead the binary tree that tables
 *				attached before the k-ary trees keep (arity 2, default
 *				estimator, its level rule), on the same key and rows
 *	 --counter auto|tree|square_root  the counter of Gaussian tables (--delta):
 *				auto (default) as dp_attach chooses it (dpk_live_use_counter),
 *				the binary tree, or the square root forced; with --old
 *				--binary the "old" line is the tree
 *	 --share-tree  the "old" line is the same live table (configuration,
 *				keys) counted by the share tree as dp_attach gives it
 *				(dpk_live_use_share_tree: its level and release rule
 *				read the share tree's variance) instead of its k-ary tree
 *	 --estimator N  DpkTreeEstimator of the live column (default: the
 *				library's default)
 *	 --arity N  tree arity of the live column (default: the library's
 *				choice for T, dpk_tree_choose_arity)
 *	 --releases var  every stride-th t from ceil(T/4) (weight 1 in the
 *				means) plus the 8 releases of largest noise variance of the
 *				live column's tree and of the binary tree (in the worst
 *				figures only, weight 0 in the means)
 *	 --verbose  one line per seed and measured release
 *	 --baselines  also, on the same streams, keys and eps, a line per row
 *				with mean and worst release of: the seed paper's algorithm
 *				(seed_mp.h: a binary tree counter on every cell of every
 *				level, Mettu-Plaxton selection of 10 K centres, weighted
 *				k-means of them), "eps/T" (dpk_lowd_cluster at eps/T every
 *				release: naive's figures), "stale" (dpk_lowd_cluster at
 *				eps on the rows of t = 1, republished) and, on insert
 *				streams, "emz" (emz_stream.h: a streaming clustering of
 *				Epasto, Mukherjee and Zhong's kind, a noisy grid per
 *				release's batch at eps, merge-and-reduce, weighted
 *				k-means); runs the self-checks first and exits 1 when one
 *				fails
 *	 --self-check  only the seed and emz baselines' noiseless self-checks
 *				(exit 1 when their centres miss well-separated clusters)
 *	 live configuration overrides, for tuning:
 *	 --sum-share X  --threshold X  --max-iter N  --level-delta N
 *	 --screen-iter N  --screen-keep N  (screened k-means restarts of the
 *				live release; --screen-keep >= --restarts: every restart runs
 *				to convergence)
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cellmap.h"
#include "live_core.h"
#include "lowd.h"
#include "counter.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "lift.h"
#include "noise.h"
#include "tree_estimator.h"

#define BENCH_PROG "bench_continual"

#include "mixture.h"
#include "bench_common.h"
#include "seed_mp.h"
#include "emz_stream.h"
#include "baseline_check.h"

#define MAX_ROWS 32
#define MAX_HORIZONS 4
#define MAX_CELLS 4194304.0
#define REF_FULL_EVERY 16

enum
{
	STREAM_INSERT = 0, STREAM_WINDOW = 1, NSTREAMS = 2
};

static const char *const stream_name[NSTREAMS] = {"insert", "window"};

enum
{
	DATA_MIXTURE = 0, DATA_SKEWED = 1, DATA_AIRPORTS = 2, NDATA = 3
};

static const char *const data_name[NDATA] = {"mixture", "skewed", "airports"};

/* Key tags, so that every method gets its own noise. */
enum
{
	TAG_LIVE = 0x6c697665, TAG_ONESHOT = 0x6f6e65, TAG_NAIVE = 0x6e6169,
	TAG_DATA = 0x6d6978, TAG_REF = 0x726566, TAG_ORDER = 0x6f7264,
	TAG_SEED = 0x736565, TAG_STALE = 0x7374616c, TAG_ONEC = 0x316331,
	TAG_EMZ = 0x656d7a
};

/* Figures of one (data, row, horizon, stream) over releases and seeds. */
typedef struct Summary
{
	int			nrel;
	uint32_t   *ts;
	double	   *w;
	BenchFig	live,
				del,
				old,
				old_ratio,
				os,
				naive,
				ratio,
				before,			/* live without its mean guard */
				onec,			/* one centre at the noisy mean at eps */
				seedalg,		/* --baselines: the seed paper's algorithm */
				stale,			/* --baselines: one-shot at eps at t = 1, republished */
				emz;			/* --baselines: the streaming baseline (insert) */
	int			seed_levels,
				seed_kprime,
				seed_wlevel,
				emz_m;
	double		seed_coreset,
				emz_points;
	int			level,
				old_level,
				arity;
	double		coreset,
				ms;
	long		runs;
	long		fired;			/* releases whose K block the guard replaced */
	size_t		n;				/* N of the stream */
} Summary;

typedef struct Row
{
	int			d;
	int			k;
	double		eps;
	Summary		sum[NDATA][MAX_HORIZONS][NSTREAMS];
} Row;

typedef struct Options
{
	int			seeds;
	int			seed_base;
	size_t		n;
	bool		streams[NSTREAMS];
	bool		data[NDATA];
	const char *airports;
	uint32_t	horizons[MAX_HORIZONS];
	int			nhorizons;
	int			releases;		/* 0 auto, 1 all, 2 sample */
	uint32_t	stride;			/* 0: odd number nearest T/64 */
	int			restarts;
	bool		naive;
	bool		del;			/* live_del column of the insert stream */
	bool		old;			/* also the previous estimator (signed nodes) */
	bool		binary;			/* the "old" column is the binary tree */
	bool		share;			/* the "old" column is the share tree */
	bool		share_table;	/* this table counts with the share tree */
	int			estimator;		/* -1: the default */
	int			arity;			/* -1: the default */
	bool		verbose;
	bool		baselines;		/* seed and stale columns (bench-baselines) */
	/* overrides of the live configuration (NaN / -1 = keep) */
	double		sum_share;
	double		threshold;
	int			max_iter;
	int			screen_iter;
	int			screen_keep;
	int			level_delta;
	int			counter;		/* Gaussian tables: 0 as dp_attach ('auto'),
								 * 1 the tree, 2 the square root forced */
} Options;

/* A data set of one seed: points (n * d, clamped into box), box, centres. */
typedef struct Data
{
	int			kind;
	int			d;
	int			k;
	size_t		n;
	double	   *points;
	const double *gen;			/* generating centres or NULL */
	MixData		mx;				/* mixtures only */
	double		lo[16],
				up[16];
	DpkBox		box;
} Data;

/* One live table: its configuration and counted cell map. */
typedef struct Live
{
	DpkLiveConfig cfg;
	DpkCellMap	map;
	double	   *u;
	int64_t    *idx;
	int64_t    *rel;
} Live;

/* The largest level whose grid keeps within MAX_CELLS cells. */
static int
max_level(int d)
{
	return (int) floor(log2(MAX_CELLS) / d + 1e-9);
}

/* A live table for one stream; the level comes from the size hint n. */
static void
live_init(Live *lv, int d, int k, double eps, uint32_t horizon, bool insert_only,
		  size_t size_hint, const Options *opt)
{
	dpk_live_defaults(&lv->cfg, d, k, eps, horizon, insert_only);
	dpk_live_use_delta(&lv->cfg, bench_delta);
	if (!isnan(opt->sum_share))
		lv->cfg.sum_share = opt->sum_share;
	if (!isnan(opt->threshold))
		lv->cfg.threshold_sigmas = opt->threshold;
	lv->cfg.restarts = opt->restarts;
	if (opt->estimator >= 0)
		lv->cfg.estimator = opt->estimator;
	if (opt->arity >= 2)
		lv->cfg.arity = opt->arity;
	if (opt->max_iter > 0)
		lv->cfg.max_iter = opt->max_iter;
	if (opt->screen_iter >= 0)
		lv->cfg.screen_iter = opt->screen_iter;
	if (opt->screen_keep > 0)
		lv->cfg.screen_keep = opt->screen_keep;
	lv->cfg.level = dpk_live_choose_level(&lv->cfg, (double) size_hint, MAX_CELLS);
	if (opt->counter != 1)
		dpk_live_use_counter(&lv->cfg, NULL, (double) size_hint, MAX_CELLS, opt->counter == 2);
	if (opt->share_table)
	{
		/* as dp_attach gives it (dpkmeans.pure_counter = 'share_tree') */
		dpk_live_use_share_tree(&lv->cfg, NULL, (double) size_hint, MAX_CELLS);
		if (lv->cfg.counter != DPK_LIVE_COUNTER_SHARE)
		{
			fprintf(stderr, "bench_continual: --share-tree: no share tree for this table "
					"(Gaussian, d >= 6, horizon, or draws above the cap)\n");
			exit(2);
		}
	}
	lv->cfg.level += opt->level_delta;
	if (lv->cfg.level < 0)
		lv->cfg.level = 0;
	if (lv->cfg.level > max_level(d))
		lv->cfg.level = max_level(d);
	dpk_cellmap_init(&lv->map, d);
	lv->u = xmalloc(sizeof(double) * d);
	lv->idx = xmalloc(sizeof(int64_t) * d);
	lv->rel = xmalloc(sizeof(int64_t) * d);
}

static void
live_free(Live *lv)
{
	dpk_cellmap_free(&lv->map);
	free(lv->u);
	free(lv->idx);
	free(lv->rel);
}

/* Insert (sign +1) or delete (sign -1) points [from, to) into the state. */
static void
live_apply(Live *lv, const DpkBox *box, const double *pts, size_t from, size_t to,
		   int sign)
{
	int			d = lv->cfg.d;
	size_t		i;

	for (i = from; i < to; i++)
	{
		uint64_t	cell;

		dpk_box_normalize(box, pts + i * d, lv->u);
		cell = dpk_grid_cell(d, 1 << lv->cfg.level, lv->u, lv->idx, lv->rel);
		dpk_cellmap_add_point(&lv->map, cell, lv->rel, sign);
	}
}

/* Level the last live_release clustered at (for --verbose). */
static int	last_release_level = -1;

/* The last live_release's K centres' cost without the guard; whether it fired on K. */
static double last_release_before = 0.0;
static bool last_release_fired = false;

/*
 * Release t of a live table; returns the cost of its K centres on the
 * current points cur[0 .. ncur).
 */
static double
live_release(Live *lv, const DpkBox *box, const uint8_t key[DPK_KEY_BYTES],
			 uint32_t t, uint64_t seed, const double *cur, size_t ncur,
			 int *coreset_out)
{
	int			d = lv->cfg.d,
				k = lv->cfg.k;
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s = {0};
	DpkDenseHist hist;
	DpkLiveRelease rel;
	double		cost;

	if (!dpk_stream_open(&s, key, nonce))
	{
		fprintf(stderr, "bench_continual: cannot open noise stream\n");
		exit(1);
	}
	dpk_live_noisy_histogram(&lv->cfg, key, &lv->map, t, &s, &hist);
	/* dpk_live_cluster in its two steps, to measure the guard */
	dpk_live_cluster_centres(&lv->cfg, box, &hist, t, seed, &rel);
	last_release_before = dpk_kmeans_cost(cur, NULL, (int) ncur, d,
										  rel.centers + (size_t) dpk_live_block(k) * d, k,
										  NULL);
	rel.guard_fired = dpk_live_lowd_guard(&lv->cfg, box, &hist, t, &rel);
	cost = dpk_kmeans_cost(cur, NULL, (int) ncur, d,
						   rel.centers + (size_t) dpk_live_block(k) * d, k, NULL);
	last_release_fired = cost != last_release_before;
	*coreset_out = rel.coreset_size;
	last_release_level = rel.level;
	dpk_live_release_free(&rel);
	dpk_hist_free(&hist);
	dpk_stream_close(&s);
	return cost;
}

/*
 * One-shot release with budget eps on the current points; returns its cost
 * on them, its k centres into centres_out when not NULL.
 */
static double
oneshot_release(const DpkBox *box, const double *cur, size_t ncur, int k, double eps,
				int restarts, uint64_t keyseed, double *centres_out)
{
	DpkLowdConfig cfg;
	DpkOneshotResult res;
	DpkStream	s = {0};
	double		cost;

	open_seed_stream(&s, keyseed);
	dpk_lowd_defaults(&cfg, eps, k);
	dpk_lowd_use_delta(&cfg, bench_delta);
	cfg.restarts = restarts;
	dpk_lowd_cluster(box, cur, ncur, &cfg, &s, &res);
	cost = dpk_kmeans_cost(cur, NULL, (int) ncur, box->d, res.centers, k, NULL);
	if (centres_out)
		memcpy(centres_out, res.centers, sizeof(double) * k * box->d);
	dpk_oneshot_result_free(&res);
	dpk_stream_close(&s);
	return cost;
}

/* One-shot release with budget eps on the current points: its cost. */
static double
oneshot_cost(const DpkBox *box, const double *cur, size_t ncur, int k, double eps,
			 int restarts, uint64_t keyseed)
{
	return oneshot_release(box, cur, ncur, k, eps, restarts, keyseed, NULL);
}

/* Releases of [ceil(T/4), T] by decreasing noise variance under a tree. */
static void
mark_noisiest(DpkTreeEstimator est, int k, uint32_t T, int count, bool *take)
{
	uint32_t	lo = (T + 3) / 4,
				t;
	double	   *v = xmalloc(sizeof(double) * (T + 1));
	int			c;

	for (t = lo; t <= T; t++)
		v[t] = dpk_tree_release_norm2(est, k, T, t);
	for (c = 0; c < count; c++)
	{
		uint32_t	best = 0;

		for (t = lo; t <= T; t++)
			if (!take[t] && (best == 0 || v[t] > v[best]))
				best = t;
		if (best)
			take[best] = true;
	}
	free(v);
}

/*
 * --releases var: every stride-th release from ceil(T/4) and T (weight 1),
 * plus the 8 noisiest releases of the live column's tree and of the binary
 * tree (weight 0: they count for the worst figures, not the means).
 */
static int
var_release_list(const Options *opt, uint32_t T, uint32_t *ts, double *w)
{
	uint32_t	lo = (T + 3) / 4,
				stride = bench_sample_stride(opt->stride, T),
				t;
	bool	   *grid = calloc(T + 1, sizeof(bool)),
			   *take = calloc(T + 1, sizeof(bool));
	DpkTreeEstimator est = opt->estimator >= 0 ? (DpkTreeEstimator) opt->estimator
		: DPK_TREE_LOCAL_BLUE;
	int			n = 0;

	if (lo < 1)
		lo = 1;
	for (t = lo; t <= T; t++)
		grid[t] = take[t] = (t - lo) % stride == 0 || t == T;
	mark_noisiest(est, opt->arity >= 2 ? opt->arity : dpk_tree_choose_arity(T), T, 8, take);
	mark_noisiest(est, DPK_TREE_ARITY_BINARY, T, 8, take);
	for (t = lo; t <= T; t++)
		if (take[t])
		{
			ts[n] = t;
			w[n++] = grid[t] ? 1.0 : 0.0;
		}
	free(grid);
	free(take);
	return n;
}

static void
summary_init(Summary *sm, const Options *opt, uint32_t T)
{
	sm->ts = xmalloc(sizeof(uint32_t) * T);
	sm->w = xmalloc(sizeof(double) * T);
	if (opt->releases == 3)
		sm->nrel = var_release_list(opt, T, sm->ts, sm->w);
	else
		sm->nrel = bench_release_list(T, bench_measure_all(opt->releases, T),
									  bench_sample_stride(opt->stride, T), sm->ts, sm->w);
	bench_fig_init(&sm->live, sm->nrel);
	bench_fig_init(&sm->del, sm->nrel);
	bench_fig_init(&sm->old, sm->nrel);
	bench_fig_init(&sm->old_ratio, sm->nrel);
	bench_fig_init(&sm->os, sm->nrel);
	bench_fig_init(&sm->naive, sm->nrel);
	bench_fig_init(&sm->before, sm->nrel);
	bench_fig_init(&sm->onec, sm->nrel);
	bench_fig_init(&sm->ratio, sm->nrel);
	bench_fig_init(&sm->seedalg, sm->nrel);
	bench_fig_init(&sm->stale, sm->nrel);
	bench_fig_init(&sm->emz, sm->nrel);
	sm->seed_coreset = sm->emz_points = 0.0;
	sm->coreset = sm->ms = 0.0;
	sm->runs = 0;
	sm->level = -1;
}

/*
 * Run one stream of one row and horizon on one data set: step through all
 * T releases, computing the measured ones.
 */
static void
run_stream(const Data *ds, Row *row, Summary *sm, uint32_t T, int stream, int seed,
		   const Options *opt)
{
	int			d = row->d,
				k = row->k;
	bool		window = stream == STREAM_WINDOW;
	size_t		total = ds->kind == DATA_AIRPORTS ? ds->n : (window ? 2 * opt->n : opt->n);
	size_t		N = window ? total / 2 : total;
	uint32_t	half = T / 2;
	int			ri = 0;
	Live		lv,
				lv_del,
				lv_old;
	bool		del = !window && opt->del;
	SeedMP		sd;
	EmzStream	ez;
	bool		emz = opt->baselines && !window;	/* insertion only */
	double	   *stale_c = NULL;
	BenchRef	ref;
	uint8_t		key[DPK_KEY_BYTES];
	uint64_t	keyseed;
	uint32_t	t;

	keyseed = mix_hash4(TAG_LIVE ^ (((uint64_t) d << 32) | (uint64_t) k),
						double_bits(row->eps),
						((uint64_t) T << 8) | ((uint64_t) ds->kind << 2) | (uint64_t) stream,
						(uint64_t) seed);
	dpk_key_from_seed(keyseed, key);
	live_init(&lv, d, k, row->eps, T, !window, N, opt);
	if (del)
		live_init(&lv_del, d, k, row->eps, T, false, N, opt);
	if (opt->old)
	{
		Options		o = *opt;

		if (opt->binary)
		{
			o.estimator = -1;
			o.arity = DPK_TREE_ARITY_BINARY;
		}
		else if (!opt->share)
			o.estimator = DPK_TREE_SIGNED;
		if (!opt->share)
		{
			o.level_delta = 0;
			o.counter = 1;		/* Gaussian tables: the tree */
		}
		o.share_table = opt->share;
		live_init(&lv_old, d, k, row->eps, T, !window, N, &o);
	}
	if (opt->baselines)
	{
		/* the paper's levels 1 .. ceil(log2 n), capped by seed_init */
		seed_init(&sd, d, (int) ceil(log2((double) N)), k, row->eps, T, window, (double) N,
				  mix_hash4(keyseed ^ TAG_SEED, 0, 0, 0));
		sm->seed_levels = sd.L;
		sm->seed_kprime = sd.kprime;
		sm->seed_wlevel = sd.wlevel;
		stale_c = xmalloc(sizeof(double) * k * d);
	}
	if (emz)
	{
		/* a block is one release's batch, N / T rows */
		emz_init(&ez, d, k, row->eps, (double) N / T, opt->restarts,
				 mix_hash4(keyseed ^ TAG_EMZ, 0, 0, 0));
		sm->emz_m = ez.m;
	}
	bench_ref_init(&ref, d, k, REF_FULL_EVERY);
	sm->n = N;
	sm->level = lv.cfg.level;
	sm->arity = lv.cfg.arity;
	sm->old_level = opt->old ? lv_old.cfg.level : -1;

	for (t = 1; t <= T && ri < sm->nrel; t++)
	{
		size_t		b0 = bench_batch_end(t - 1, total, T),
					b1 = bench_batch_end(t, total, T);
		size_t		cur0;

		live_apply(&lv, &ds->box, ds->points, b0, b1, +1);
		if (opt->baselines)
			seed_apply(&sd, &ds->box, ds->points, b0, b1, +1);
		if (emz)
		{
			emz_insert(&ez, &ds->box, ds->points, b0, b1);
			emz_close_block(&ez, &ds->box);
		}
		if (del)
			live_apply(&lv_del, &ds->box, ds->points, b0, b1, +1);
		if (opt->old)
			live_apply(&lv_old, &ds->box, ds->points, b0, b1, +1);
		if (window && t > half)
		{
			live_apply(&lv, &ds->box, ds->points, bench_batch_end(t - half - 1, total, T),
					   bench_batch_end(t - half, total, T), -1);
			if (opt->baselines)
				seed_apply(&sd, &ds->box, ds->points, bench_batch_end(t - half - 1, total, T),
						   bench_batch_end(t - half, total, T), -1);
			if (opt->old)
				live_apply(&lv_old, &ds->box, ds->points,
						   bench_batch_end(t - half - 1, total, T),
						   bench_batch_end(t - half, total, T), -1);
		}
		/* "compute once at eps, republish": one one-shot on the rows of t = 1 */
		if (opt->baselines && t == 1)
			oneshot_release(&ds->box, ds->points, b1, k, row->eps, opt->restarts,
							mix_hash4(keyseed ^ TAG_STALE, 1, 0, 0), stale_c);
		if (t != sm->ts[ri])
			continue;

		cur0 = window && t > half ? bench_batch_end(t - half, total, T) : 0;
		{
			const double *cur = ds->points + cur0 * d;
			size_t		ncur = b1 - cur0;
			double		refc = bench_ref_cost(&ref, cur, ncur, ds->gen,
											  mix_hash4(TAG_REF, keyseed, t, 0));
			uint64_t	cseed = mix_hash4(keyseed, t, 1, 2);
			double		t0 = now_ms(),
						ms;
			double		live,
						before,
						live_del,
						old = 1.0,
						os,
						naive = 1.0;
			int			rel_level,
						coreset,
						coreset_del,
						coreset_old;

			live = live_release(&lv, &ds->box, key, t, cseed, cur, ncur, &coreset) / refc;
			ms = now_ms() - t0;
			rel_level = last_release_level;
			before = last_release_before / refc;
			sm->fired += last_release_fired;
			live_del = !del ? live
				: live_release(&lv_del, &ds->box, key, t, cseed, cur, ncur,
							   &coreset_del) / refc;
			if (opt->old)
				old = live_release(&lv_old, &ds->box, key, t, cseed, cur, ncur,
								   &coreset_old) / refc;
			os = oneshot_cost(&ds->box, cur, ncur, k, row->eps, opt->restarts,
							  mix_hash4(keyseed ^ TAG_ONESHOT, t, 0, 0)) / refc;
			if (opt->naive)
				naive = oneshot_cost(&ds->box, cur, ncur, k, row->eps / T, opt->restarts,
									 mix_hash4(keyseed ^ TAG_NAIVE, t, 0, 0)) / refc;
			bench_fig_add(&sm->live, ri, t, seed, live);
			bench_fig_add(&sm->before, ri, t, seed, before);
			bench_fig_add(&sm->onec, ri, t, seed,
						  mean_cost(&ds->box, cur, ncur, row->eps,
									mix_hash4(keyseed ^ TAG_ONEC, t, 0, 0)) / refc);
			bench_fig_add(&sm->del, ri, t, seed, live_del);
			bench_fig_add(&sm->os, ri, t, seed, os);
			bench_fig_add(&sm->naive, ri, t, seed, naive);
			bench_fig_add(&sm->ratio, ri, t, seed, live / os);
			bench_fig_add(&sm->old, ri, t, seed, old);
			bench_fig_add(&sm->old_ratio, ri, t, seed, old / os);
			if (opt->baselines)
			{
				double	   *sc = xmalloc(sizeof(double) * k * d);
				double		seedc,
							stalec,
							emzc = 0.0;

				sm->seed_coreset += seed_release(&sd, &ds->box, t, k, opt->restarts,
												 mix_hash4(keyseed ^ TAG_SEED, t, 1, 0), sc);
				seedc = dpk_kmeans_cost(cur, NULL, (int) ncur, d, sc, k, NULL) / refc;
				stalec = dpk_kmeans_cost(cur, NULL, (int) ncur, d, stale_c, k, NULL) / refc;
				bench_fig_add(&sm->seedalg, ri, t, seed, seedc);
				bench_fig_add(&sm->stale, ri, t, seed, stalec);
				if (emz)
				{
					sm->emz_points += emz_release(&ez, k, opt->restarts,
												  mix_hash4(keyseed ^ TAG_EMZ, t, 1, 0), sc);
					emzc = dpk_kmeans_cost(cur, NULL, (int) ncur, d, sc, k, NULL) / refc;
					bench_fig_add(&sm->emz, ri, t, seed, emzc);
				}
				if (opt->verbose)
					printf("#   seed=%.4f stale=%.4f emz=%.4f\n", seedc, stalec, emzc);
				free(sc);
			}
			sm->coreset += coreset;
			sm->ms += ms;
			sm->runs++;
			if (opt->verbose)
				printf("#   %s %s T=%u d=%d K=%d eps=%g seed=%d t=%u nodes=%d lev=%d n_cur=%zu "
					   "live=%.4f live_del=%.4f old=%.4f oneshot=%.4f naive=%.4f\n",
					   data_name[ds->kind], stream_name[stream], T, d, k, row->eps, seed,
					   t, bench_nodes(t), rel_level, ncur, live, live_del, old, os, naive);
		}
		ri++;
	}
	bench_ref_free(&ref);
	if (opt->baselines)
	{
		seed_free(&sd);
		free(stale_c);
	}
	if (emz)
		emz_free(&ez);
	live_free(&lv);
	if (del)
		live_free(&lv_del);
	if (opt->old)
		live_free(&lv_old);
}

/* "mean worst@t/nodes" of one figure into buf. */
static void
fig_text(char *buf, size_t len, const BenchFig *f, const Summary *sm)
{
	int			at;
	double		worst = bench_fig_worst(f, &at);

	snprintf(buf, len, "%8.4f %8.4f@%-4u/%d", bench_fig_mean(f, sm->w), worst,
			 at >= 0 ? sm->ts[at] : 0, at >= 0 ? bench_nodes(sm->ts[at]) : 0);
}

static void
print_header(const Options *opt)
{
	char		hs[64] = "",
				ds[64] = "";
	int			i;

	for (i = 0; i < opt->nhorizons; i++)
		snprintf(hs + strlen(hs), sizeof(hs) - strlen(hs), "%s%u%s", i ? "," : "",
				 opt->horizons[i], bench_measure_all(opt->releases, opt->horizons[i]) ? "(all)" : "(sample)");
	for (i = 0; i < NDATA; i++)
		if (opt->data[i])
			snprintf(ds + strlen(ds), sizeof(ds) - strlen(ds), "%s%s", ds[0] ? "," : "",
					 data_name[i]);
	printf("# bench_continual: N=%zu data=%s seeds %d-%d (disjoint from the tuning seeds "
		   "0-9) horizons=%s\n", opt->n, ds, opt->seed_base, opt->seed_base + opt->seeds - 1,
		   hs);
	printf("# releases: every t in [T/4, T] (all), or every t there with the most tree "
		   "nodes plus every stride-th t and T (sample; means weigh each node count by its "
		   "share of all releases)\n");
	printf("# every method: %d k-means restarts; live: dpk_live_defaults, level = "
		   "choose_level(N)%+d; oneshot = dp_kmeans at eps, naive = at eps/T\n",
		   opt->restarts, opt->level_delta);
	printf("# insert: N points, T batches, insert_only (live_del: insert_delete); window: "
		   "2N points, window of N from t=T/2, insert_delete\n");
	printf("# cost = k-means cost on the current (clamped) points / non-private reference; "
		   "mean = geometric mean over every measured (release, seed); worst = largest "
		   "geometric mean over seeds at one release, @t/nodes; single = worst one run\n");
	printf("%-8s %-6s %5s %6s %2s %2s %4s %4s | %-24s | %-24s | %-24s %7s | %-24s | %8s | "
		   "%2s %6s %6s\n",
		   "data", "stream", "T", "N", "d", "K", "eps", "rels", "live mean worst@t/nodes",
		   "oneshot mean worst", "live/os mean worst", "single", "live_del mean worst",
		   "naive", "Lc", "cores", "ms");
	fflush(stdout);
}

static void
print_summary(const Row *row, int data, uint32_t T, int stream, const Summary *sm,
			  const Options *opt)
{
	char		l[64],
				o[64],
				r[64],
				dl[64],
				nv[16];

	if (sm->runs == 0)
		return;
	fig_text(l, sizeof(l), &sm->live, sm);
	fig_text(o, sizeof(o), &sm->os, sm);
	fig_text(r, sizeof(r), &sm->ratio, sm);
	if (stream == STREAM_INSERT && opt->del)
		fig_text(dl, sizeof(dl), &sm->del, sm);
	else
		snprintf(dl, sizeof(dl), "%-24s", "-");
	if (opt->naive)
		snprintf(nv, sizeof(nv), "%8.3f", bench_fig_mean(&sm->naive, sm->w));
	else
		snprintf(nv, sizeof(nv), "%8s", "-");
	printf("%-8s %-6s %5u %6zu %2d %2d %4.2f %4d | %-24s | %-24s | %-24s %7.3f | %-24s | %s | "
		   "%2d %6.0f %6.1f\n",
		   data_name[data], stream_name[stream], T, sm->n, row->d, row->k, row->eps,
		   sm->nrel, l, o, r, sm->ratio.max_single, dl, nv, sm->level,
		   sm->coreset / sm->runs, sm->ms / sm->runs);
	if (opt->old)
	{
		char		ol[64],
					orr[64];

		fig_text(ol, sizeof(ol), &sm->old, sm);
		fig_text(orr, sizeof(orr), &sm->old_ratio, sm);
		printf("%-8s %-6s %5u %6zu   %s, level %d; live: arity %d) | %-24s | "
			   "old/os %-24s %7.3f\n", data_name[data], stream_name[stream], T, sm->n,
			   opt->binary ? "binary tree (arity 2" : opt->share ? "share tree (same config"
			   : "old estimator (signed nodes",
			   sm->old_level, sm->arity, ol, orr, sm->old_ratio.max_single);
	}
	if (opt->baselines)
	{
		char		sa[64],
					nw[64],
					sl[64],
					ez[64] = "-",
					ezs[64] = "";

		fig_text(sa, sizeof(sa), &sm->seedalg, sm);
		fig_text(nw, sizeof(nw), &sm->naive, sm);
		fig_text(sl, sizeof(sl), &sm->stale, sm);
		if (stream == STREAM_INSERT)	/* the streaming baseline cannot delete */
		{
			fig_text(ez, sizeof(ez), &sm->emz, sm);
			snprintf(ezs, sizeof(ezs), " | emz m=%d points %.0f", sm->emz_m,
					 sm->emz_points / sm->runs);
		}
		printf("%-8s %-6s %5u %6zu   baselines | live %-24s | seed %-24s | eps/T %-24s | "
			   "stale %-24s | emz %-24s | seed L=%d w=%d k'=%d cores %.0f%s\n",
			   data_name[data], stream_name[stream], T, sm->n, l, sa, nw, sl, ez,
			   sm->seed_levels, sm->seed_wlevel, sm->seed_kprime, sm->seed_coreset / sm->runs,
			   ezs);
		fflush(stdout);
		return;
	}
	{
		char		bf[64],
					oc[64];

		fig_text(bf, sizeof(bf), &sm->before, sm);
		fig_text(oc, sizeof(oc), &sm->onec, sm);
		printf("%-8s %-6s %5u %6zu   guard | before %-24s | 1c %-24s | fired %ld of %ld\n",
			   data_name[data], stream_name[stream], T, sm->n, bf, oc, sm->fired, sm->runs);
	}
	bench_print_by_nodes(&sm->ratio, &sm->live, sm->w, sm->ts);
	fflush(stdout);
}

/* Clamp every point into the box (what the extension does to rows). */
static void
clamp_points(double *x, size_t n, int d, const double *lo, const double *up)
{
	size_t		i;
	int			j;

	for (i = 0; i < n; i++)
		for (j = 0; j < d; j++)
		{
			double	   *v = x + i * d + j;

			*v = *v < lo[j] ? lo[j] : (*v > up[j] ? up[j] : *v);
		}
}

/* The data set of one kind, row shape and seed (airports: loaded rows). */
static void
data_make(Data *ds, int kind, int d, int k, int seed, const Options *opt,
		  const double *airports, size_t n_airports)
{
	int			j;

	memset(ds, 0, sizeof(*ds));
	ds->kind = kind;
	ds->d = d;
	ds->k = k;
	if (kind == DATA_AIRPORTS)
	{
		ds->n = n_airports;
		ds->points = xmalloc(sizeof(double) * n_airports * 2);
		memcpy(ds->points, airports, sizeof(double) * n_airports * 2);
		bench_shuffle_rows(ds->points, ds->n, 2,
						   mix_hash4(TAG_ORDER, TAG_DATA, (uint64_t) seed, 0));
		ds->lo[0] = -180.0;
		ds->up[0] = -60.0;
		ds->lo[1] = 5.0;
		ds->up[1] = 75.0;
		ds->gen = NULL;
	}
	else
	{
		size_t		npts = opt->streams[STREAM_WINDOW] ? 2 * opt->n : opt->n;
		MixSpec		sp = kind == DATA_SKEWED ? mix_skewed_spec(d, k, npts)
			: mix_default_spec(d, k, npts);

		/* The first N points are the same whether or not 2N are drawn. */
		mix_generate(&sp, mix_hash4(TAG_DATA + (uint64_t) kind, (uint64_t) d, (uint64_t) k,
									(uint64_t) seed), &ds->mx);
		ds->n = npts;
		ds->points = ds->mx.points;
		ds->gen = ds->mx.centers;
		for (j = 0; j < d; j++)
		{
			ds->lo[j] = 0.0;
			ds->up[j] = 100.0;
		}
	}
	ds->box.d = d;
	ds->box.lower = ds->lo;
	ds->box.upper = ds->up;
	clamp_points(ds->points, ds->n, d, ds->lo, ds->up);
}

static void
data_free(Data *ds)
{
	if (ds->kind == DATA_AIRPORTS)
		free(ds->points);
	else
		mix_free(&ds->mx);
}

static void
usage(void)
{
	fprintf(stderr,
			"usage: bench_continual [--seeds N] [--seed-base N] [--n N]\n"
			"       [--rows \"d:K:eps,...\"] [--horizons \"64,1024\"]\n"
			"       [--stream insert|window|both] [--data mixture,skewed,airports]\n"
			"       [--airports PATH] [--releases all|sample|auto|var] [--stride N]\n"
			"       [--restarts N] [--no-naive] [--no-del] [--old] [--binary] [--share-tree]\n"
			"       [--estimator N] [--arity N]\n"
			"       [--verbose] [--baselines] [--self-check]\n"
			"       [--sum-share X] [--threshold X] [--max-iter N] [--level-delta N]\n"
			"       [--counter auto|tree|square_root]\n"
			"       [--screen-iter N] [--screen-keep N]\n");
	exit(2);
}

static int
parse_rows(const char *spec, Row *rows)
{
	RowSpec		specs[MAX_ROWS];
	int			nrows = parse_row_specs(spec, 1, 16, specs, MAX_ROWS, ""),
				r;

	for (r = 0; r < nrows; r++)
	{
		rows[r].d = specs[r].d;
		rows[r].k = specs[r].k;
		rows[r].eps = specs[r].eps;
	}
	return nrows;
}

static int
parse_horizons(const char *spec, uint32_t *hs)
{
	char	   *copy = strdup(spec);
	char	   *tok,
			   *save = NULL;
	int			n = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		long		h = atol(tok);

		if (h < 4 || h > (1L << 20) || n >= MAX_HORIZONS)
		{
			fprintf(stderr, "bench_continual: bad horizon \"%s\"\n", tok);
			exit(2);
		}
		hs[n++] = (uint32_t) h;
	}
	free(copy);
	return n;
}

static void
parse_data(const char *spec, bool *data)
{
	char	   *copy = strdup(spec);
	char	   *tok,
			   *save = NULL;
	int			i;

	for (i = 0; i < NDATA; i++)
		data[i] = false;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		for (i = 0; i < NDATA; i++)
			if (strcmp(tok, data_name[i]) == 0)
				data[i] = true;
		if (strcmp(tok, "mixture") != 0 && strcmp(tok, "skewed") != 0 &&
			strcmp(tok, "airports") != 0)
			usage();
	}
	free(copy);
}

static int
default_rows(Row *rows)
{
	static const int ds[] = {2, 5};
	static const double epss[] = {0.5, 1.0};
	int			a,
				c,
				nrows = 0;

	for (a = 0; a < 2; a++)
		for (c = 0; c < 2; c++)
		{
			rows[nrows].d = ds[a];
			rows[nrows].k = 6;
			rows[nrows].eps = epss[c];
			nrows++;
		}
	return nrows;
}

int
main(int argc, char **argv)
{
	static Row	rows[MAX_ROWS];
	Options		opt;
	int			nrows = 0;
	int			i,
				r,
				kind;
	double		t_start = now_ms();
	double	   *airports = NULL;
	size_t		n_airports = 0;

	memset(rows, 0, sizeof(rows));
	memset(&opt, 0, sizeof(opt));
	opt.seeds = 8;
	opt.seed_base = BENCH_SEED_BASE;
	opt.n = 100000;
	opt.streams[STREAM_INSERT] = opt.streams[STREAM_WINDOW] = true;
	opt.data[DATA_MIXTURE] = opt.data[DATA_SKEWED] = opt.data[DATA_AIRPORTS] = true;
	opt.horizons[0] = 64;
	opt.horizons[1] = 1024;
	opt.nhorizons = 2;
	opt.restarts = BENCH_RESTARTS;
	opt.naive = true;
	opt.del = true;
	opt.estimator = -1;
	opt.arity = -1;
	opt.sum_share = NAN;
	opt.threshold = NAN;
	opt.max_iter = -1;
	opt.screen_iter = -1;
	opt.screen_keep = -1;

	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--delta") == 0)
			bench_delta = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--seeds") == 0)
			opt.seeds = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--seed-base") == 0)
			opt.seed_base = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--n") == 0)
			opt.n = (size_t) atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--rows") == 0)
			nrows = parse_rows(arg_value(argc, argv, &i), rows);
		else if (strcmp(a, "--horizons") == 0)
			opt.nhorizons = parse_horizons(arg_value(argc, argv, &i), opt.horizons);
		else if (strcmp(a, "--stream") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			opt.streams[STREAM_INSERT] = strcmp(v, "insert") == 0 || strcmp(v, "both") == 0;
			opt.streams[STREAM_WINDOW] = strcmp(v, "window") == 0 || strcmp(v, "both") == 0;
			if (!opt.streams[STREAM_INSERT] && !opt.streams[STREAM_WINDOW])
				usage();
		}
		else if (strcmp(a, "--data") == 0)
			parse_data(arg_value(argc, argv, &i), opt.data);
		else if (strcmp(a, "--airports") == 0)
			opt.airports = arg_value(argc, argv, &i);
		else if (strcmp(a, "--releases") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			opt.releases = strcmp(v, "var") == 0 ? 3 : bench_parse_releases(v);
			if (opt.releases < 0)
				usage();
		}
		else if (strcmp(a, "--stride") == 0)
			opt.stride = (uint32_t) atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--restarts") == 0)
			opt.restarts = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--no-naive") == 0)
			opt.naive = false;
		else if (strcmp(a, "--no-del") == 0)
			opt.del = false;
		else if (strcmp(a, "--old") == 0)
			opt.old = true;
		else if (strcmp(a, "--binary") == 0)
			opt.old = opt.binary = true;
		else if (strcmp(a, "--share-tree") == 0)
			opt.old = opt.share = true;
		else if (strcmp(a, "--arity") == 0)
			opt.arity = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--estimator") == 0)
			opt.estimator = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--verbose") == 0)
			opt.verbose = true;
		else if (strcmp(a, "--baselines") == 0)
			opt.baselines = opt.naive = true;
		else if (strcmp(a, "--self-check") == 0)
			return self_checks() ? 1 : 0;
		else if (strcmp(a, "--sum-share") == 0)
			opt.sum_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--threshold") == 0)
			opt.threshold = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--max-iter") == 0)
			opt.max_iter = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--screen-iter") == 0)
			opt.screen_iter = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--screen-keep") == 0)
			opt.screen_keep = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--level-delta") == 0)
			opt.level_delta = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--counter") == 0)
		{
			const char *c = arg_value(argc, argv, &i);

			opt.counter = strcmp(c, "auto") == 0 ? 0 : strcmp(c, "tree") == 0 ? 1
				: strcmp(c, "square_root") == 0 ? 2 : -1;
			if (opt.counter < 0)
				usage();
		}
		else
			usage();
	}
	if (opt.seeds < 1 || opt.seed_base < 0 || opt.n < 16 || opt.n > 500000000 ||
		opt.nhorizons < 1 || opt.restarts < 1)
		usage();
	if (!isnan(opt.sum_share) && !(opt.sum_share >= 0.0 && opt.sum_share < 1.0))
		usage();
	for (i = 0; i < opt.nhorizons; i++)
		if (opt.horizons[i] > opt.n)
		{
			fprintf(stderr, "bench_continual: horizon %u exceeds N\n", opt.horizons[i]);
			exit(2);
		}
	if (nrows == 0)
		nrows = default_rows(rows);
	if (opt.airports == NULL)
		opt.data[DATA_AIRPORTS] = false;
	else if (opt.data[DATA_AIRPORTS])
	{
		/* latitude and longitude are the last two fields; (lon, lat) */
		static const int cols[2] = {-1, -2};

		n_airports = bench_read_csv(opt.airports, 2, cols, &airports);
		if (n_airports < 64)
		{
			fprintf(stderr, "bench_continual: %s has %zu rows\n", opt.airports, n_airports);
			exit(2);
		}
	}

	if (opt.baselines && self_checks() != 0)
		return 1;
	print_header(&opt);

	for (kind = 0; kind < NDATA; kind++)
	{
		bool		done[MAX_ROWS];

		if (!opt.data[kind])
			continue;
		memset(done, 0, sizeof(done));
		for (r = 0; r < nrows; r++)
		{
			int			si,
						rr,
						hi,
						st;

			if (done[r] || (kind == DATA_AIRPORTS && rows[r].d != 2))
				continue;
			for (rr = r; rr < nrows; rr++)
				if (rows[rr].d == rows[r].d && rows[rr].k == rows[r].k)
					for (hi = 0; hi < opt.nhorizons; hi++)
						for (st = 0; st < NSTREAMS; st++)
							summary_init(&rows[rr].sum[kind][hi][st], &opt, opt.horizons[hi]);

			/* Rows sharing (d, K) share their data sets. */
			for (si = 0; si < opt.seeds; si++)
			{
				int			seed = opt.seed_base + si;
				Data		ds;

				data_make(&ds, kind, rows[r].d, rows[r].k, seed, &opt, airports, n_airports);
				for (rr = r; rr < nrows; rr++)
				{
					if (done[rr] || rows[rr].d != rows[r].d || rows[rr].k != rows[r].k)
						continue;
					for (hi = 0; hi < opt.nhorizons; hi++)
						for (st = 0; st < NSTREAMS; st++)
							if (opt.streams[st])
								run_stream(&ds, &rows[rr], &rows[rr].sum[kind][hi][st],
										   opt.horizons[hi], st, seed, &opt);
				}
				data_free(&ds);
			}

			for (st = 0; st < NSTREAMS; st++)
				for (hi = 0; hi < opt.nhorizons; hi++)
					for (rr = r; rr < nrows; rr++)
						if (!done[rr] && rows[rr].d == rows[r].d && rows[rr].k == rows[r].k &&
							opt.streams[st])
							print_summary(&rows[rr], kind, opt.horizons[hi], st,
										  &rows[rr].sum[kind][hi][st], &opt);
			for (rr = r; rr < nrows; rr++)
				if (rows[rr].d == rows[r].d && rows[rr].k == rows[r].k)
					done[rr] = true;
		}
	}

	printf("# total time %.1f s\n", (now_ms() - t_start) / 1e3);
	free(airports);
	return 0;
}
