/*
 * bench_highd_live.c
 *		Accuracy benchmark of the continual (live) releases at high d.
 *
 * It replays, in plain C, what a live table with d >= DPK_HIGHD_MIN_D does
 * (release.c, trigger.c):
 *
 *	 cfg = dpk_live_defaults(d, K, eps, T, insert_only);
 *	 dpk_live_use_projection(&cfg, seed);	(then the tuning overrides below)
 *	 cfg.level = dpk_live_choose_level(&cfg, N, 4194304);
 *	 copy r projects with dpk_projection_init(d, cfg.dhat,
 *		dpk_projection_copy_seed(cfg.proj_seed, r), DPK_LIVE_HALF_WIDTH = 0.75);
 *	 every inserted (+1) or deleted (-1) point: u = dpk_box_normalize on the
 *		box, its projections t (dpk_project_batch, one dgemm per copy and
 *		batch of up to 2048 points, as the triggers buffer them), then
 *		dpk_live_add_projected(&cfg, &state, u, t, sign);
 *	 release t: dpk_live_noisy_projected (stream on the table's key, zero
 *		nonce), then dpk_live_cluster_projected(..., seed = the next u64 of
 *		that stream, &rel); the K centres are at rel.centers +
 *		dpk_live_block(K) * d.
 *
 * The noise of release t depends only on the key and t, so only the reported
 * releases t in {T/8, T/2, T-1, T} are computed; in between the state just
 * accumulates its batches, as the table's counters would.
 *
 * Streams (Gaussian mixtures of mixture.h on [0,100]^d, i.i.d. so in random
 * order; the same datasets as bench_highd and bench_continual):
 *	 insert  N points, batch t = points [floor((t-1)N/T), floor(tN/T)),
 *			 insert_only = true;
 *	 window  2N points in T batches; release t inserts batch t and, once
 *			 t > T/2, deletes batch t - T/2, so the window holds N points
 *			 from t = T/2 on; insert_only = false (insert_delete).
 *
 * At each reported t, on the points currently in the stream:
 *	 live     the K centres of the release;
 *	 oneshot  dp_kmeans at the full eps: dpk_highd_oneshot_cluster with
 *			  dpk_highd_defaults (max_cells 4194304, as the extension);
 *	 naive    the same at eps / T (T one-shot releases composed).
 * Each cost is the k-means cost of the centres on the current true points
 * divided by a non-private reference on the same points: the lower of
 * dpk_kmeans (10 restarts) and Lloyd started from the generating centres.
 *
 * Output: one line per (stream, T, N, d, K, eps, t): geometric means over
 * seeds, live/oneshot, the counted level and cells per copy, live's range
 * over seeds, its mean coreset size (of the published copy at k = K) and
 * release time.  Flags: "R" live/oneshot > 1.3, "N" live worse than naive.
 * Then the geometric mean of every column and, when the row d = 16, K = 10,
 * eps = 1 was run, the targets (references 7.5 and 10.0 measured on 1e5
 * rows, aim 4.7) against its worst reported live cost, over all releases
 * and over those from T/2 on.
 *
 * Digits (--digits PATH): the UCI handwritten digits as shipped by Debian's
 * python3-sklearn (sklearn/datasets/data/digits.csv.gz: 1797 rows of 64
 * pixel values 0..16 and a label, which is dropped; gzip is read through
 * "gzip -dc").  Box [0,16]^64, K = 10, eps in {0.5, 1, 2}; per seed the rows
 * are put in a seeded random order and inserted as a stream of T = 64
 * batches (insert_only, size hint 1797); the same reported releases and
 * columns, the reference being the best of dpk_kmeans with 20 restarts.
 * "k=1" is the cost of the single best centre (the data mean) over the
 * same reference: what clustering gains at all on this data.
 *
 * Options (all optional):
 *	 --seeds N  --n N  --rows "d:K:eps,..."  --horizons "1024"
 *	 --stream insert|window|both  --times "a,b,..." (reported t, default
 *	 T/8,T/2,T-1,T; values above T are dropped)
 *	 --no-baselines  skip the oneshot and naive columns (faster tuning)
 *	 --ref-cache FILE  reuse reference costs stored in FILE, append new ones
 *	 --digits PATH  also run the digits data set; --digits-only: only it
 *	 --digits-eps "0.5,1,2"  --digits-horizon 64
 *	 --verbose  one line per seed and release
 *	 --diag  diagnostic: also finish every release with the same
 *			 post-processing (dpk_live_cluster_projected, same seed and
 *			 configuration) on the true counters ("exact"), on the noisy
 *			 counts with the true sums ("exact_sums") and on the true counts
 *			 with the noisy sums ("exact_counts"), one extra line per release,
 *			 to tell the count noise (partition) from the sum noise (lift)
 *	 tuning, applied after dpk_live_use_projection (before the level choice):
 *	 --copies N  --sum-share X  --norm-share X  --threshold X  --dhat N
 *	 --restarts N, and after it: --level-delta N;
 *	 --half-width X  the projected box half-width of the copies and of
 *			 cfg.half_width (what a change of DPK_LIVE_HALF_WIDTH and of
 *			 dpk_live_use_projection would do; default 0.75).
 *	 threshold_sigmas only matters above ln(cells)/sqrt(2) (5.9 at 4096
 *	 cells per copy): dpk_coreset_threshold takes the larger of the two.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "continual.h"
#include "coreset.h"
#include "counter.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "noise.h"
#include "project.h"

#define BENCH_PROG "bench_highd_live"

#include "mixture.h"
#include "bench_common.h"

#define MAX_ROWS 64
#define MAX_HORIZONS 8
#define MAX_TIMES 8
#define MAX_CELLS 4194304.0
#define MAX_REFS 64
#define LIVE_HALF_WIDTH 0.75	/* DPK_LIVE_HALF_WIDTH of live.h */
#define BATCH 2048				/* rows the triggers project per dgemm */
#define MAX_EPS 8

enum
{
	STREAM_INSERT = 0, STREAM_WINDOW = 1, NSTREAMS = 2
};

static const char *const stream_name[NSTREAMS] = {"insert", "window"};

/* Key tags, so that every method gets its own noise. */
enum
{
	TAG_LIVE = 0x6c697665, TAG_ONESHOT = 0x6f6e65, TAG_NAIVE = 0x6e6169,
	TAG_DATA = 0x6d6978, TAG_REF = 0x726566, TAG_KM = 0x6b6d,
	TAG_PROJ = 0x70726f6a, TAG_DIGITS = 0x646967
};

/* Accumulated over seeds for one (row, horizon, stream, reported t). */
typedef struct Acc
{
	int			nseeds;
	uint32_t	t;
	size_t		ncur;
	double		log_live,
				log_os,
				log_naive,
				log_mean;
	double		min_live,
				max_live;
	double		log_diag[3];
	double		coreset;
	double		ms_live;
	int			level;
	uint64_t	cells;
} Acc;

typedef struct Row
{
	int			d;
	int			k;
	double		eps;
	Acc			acc[MAX_HORIZONS][NSTREAMS][MAX_TIMES];
} Row;

typedef struct Options
{
	int			seeds;
	size_t		n;
	bool		streams[NSTREAMS];
	uint32_t	horizons[MAX_HORIZONS];
	int			nhorizons;
	uint32_t	times[MAX_TIMES];	/* explicit reported t, or none */
	int			ntimes;
	bool		baselines;
	bool		verbose;
	bool		diag;
	const char *ref_cache;
	const char *digits;
	bool		digits_only;
	double		digits_eps[MAX_EPS];
	int			ndigits_eps;
	uint32_t	digits_horizon;
	/* overrides of the live configuration (NaN / -1 = keep) */
	int			copies;
	double		sum_share;
	double		norm_share;
	double		threshold;
	int			dhat;
	double		half_width;
	int			restarts;
	int			level_delta;
} Options;

/* Non-private reference costs of one dataset, cached by point range. */
typedef struct RefCache
{
	int			n;
	size_t		start[MAX_REFS];
	size_t		len[MAX_REFS];
	double		cost[MAX_REFS];
} RefCache;

/* One live table: configuration, projections, counted cell map. */
typedef struct Live
{
	DpkLiveConfig cfg;
	DpkCellMap	map;
	DpkProjection *proj;
	double	   *ubuf;			/* BATCH * d normalized points */
	double	   *tbuf;			/* copies * BATCH * dhat projected */
	double	   *tall;			/* copies * dhat, one point */
} Live;

/* What one live release gave. */
typedef struct LiveOut
{
	double		cost;
	int			coreset;
	double		ms;
	double		diag[3];		/* --diag: exact, exact sums, exact counts */
} LiveOut;

/* Non-private reference cost of points [start, start + len) of a mixture. */
static double
reference_cost(const MixData *mx, RefCache *cache, const char *path, int seed,
			   size_t start, size_t len)
{
	int			d = mx->d,
				k = mx->k;
	double		cost_km;
	int			i;

	for (i = 0; i < cache->n; i++)
		if (cache->start[i] == start && cache->len[i] == len)
			return cache->cost[i];
	if (!ref_cache_lookup(path, REF_TAG_RANGE, true, d, k, start, len, seed, &cost_km))
	{
		cost_km = reference_cost_of(mx->points + start * d, (int) len, d, k, mx->centers,
									mix_hash4(mix_hash4(TAG_REF, d, k, seed), start, len,
											  TAG_KM));
		ref_cache_store(path, REF_TAG_RANGE, true, d, k, start, len, seed, cost_km);
	}
	if (cache->n < MAX_REFS)
	{
		cache->start[cache->n] = start;
		cache->len[cache->n] = len;
		cache->cost[cache->n] = cost_km;
		cache->n++;
	}
	return cost_km;
}

/* The largest counted level dpk_live_choose_level allows (cells, 48-bit ids). */
static int
max_level(const DpkLiveConfig *cfg)
{
	return (int) floor(fmin(log2(MAX_CELLS), 48.0 - ceil(log2(cfg->copies + 1.0))) /
					   cfg->dhat + 1e-9);
}

/* The live configuration of a table, as attach makes it, plus the overrides. */
static void
live_config(DpkLiveConfig *cfg, int d, int k, double eps, uint32_t horizon,
			bool insert_only, double size_hint, uint64_t proj_seed, const Options *opt)
{
	dpk_live_defaults(cfg, d, k, eps, horizon, insert_only);
	dpk_live_use_projection(cfg, proj_seed & UINT64_C(0x7fffffffffffffff));
	if (opt->copies > 0)
		cfg->copies = opt->copies;
	if (!isnan(opt->sum_share))
		cfg->sum_share = opt->sum_share;
	if (!isnan(opt->norm_share))
		cfg->norm_share = opt->norm_share;
	if (!isnan(opt->threshold))
		cfg->threshold_sigmas = opt->threshold;
	if (opt->dhat > 0)
		cfg->dhat = opt->dhat;
	cfg->half_width = isnan(opt->half_width) ? LIVE_HALF_WIDTH : opt->half_width;
	if (opt->restarts > 0)
		cfg->restarts = opt->restarts;
	cfg->level = dpk_live_choose_level(cfg, size_hint, MAX_CELLS);
	cfg->level += opt->level_delta;
	if (cfg->level > max_level(cfg))
		cfg->level = max_level(cfg);
	if (cfg->level < 0)
		cfg->level = 0;
}

static void
live_init(Live *lv, int d, int k, double eps, uint32_t horizon, bool insert_only,
		  double size_hint, uint64_t proj_seed, const Options *opt)
{
	int			r;

	live_config(&lv->cfg, d, k, eps, horizon, insert_only, size_hint, proj_seed, opt);
	dpk_cellmap_init(&lv->map, d);
	lv->proj = xmalloc(sizeof(DpkProjection) * lv->cfg.copies);
	for (r = 0; r < lv->cfg.copies; r++)
		dpk_projection_init(&lv->proj[r], d, lv->cfg.dhat,
							dpk_projection_copy_seed(lv->cfg.proj_seed, r),
							lv->cfg.half_width);
	lv->ubuf = xmalloc(sizeof(double) * BATCH * d);
	lv->tbuf = xmalloc(sizeof(double) * BATCH * lv->cfg.dhat * lv->cfg.copies);
	lv->tall = xmalloc(sizeof(double) * lv->cfg.dhat * lv->cfg.copies);
}

static void
live_free(Live *lv)
{
	int			r;

	for (r = 0; r < lv->cfg.copies; r++)
		dpk_projection_free(&lv->proj[r]);
	free(lv->proj);
	dpk_cellmap_free(&lv->map);
	free(lv->ubuf);
	free(lv->tbuf);
	free(lv->tall);
}

/*
 * Insert (sign +1) or delete (sign -1) points [from, to) into the state, a
 * batch of up to BATCH rows at a time (dpk_shape_flush's way).
 */
static void
live_apply(Live *lv, const DpkBox *box, const double *pts, size_t from, size_t to,
		   int sign)
{
	int			d = lv->cfg.d,
				dhat = lv->cfg.dhat,
				copies = lv->cfg.copies;

	while (from < to)
	{
		size_t		n = to - from < BATCH ? to - from : BATCH;
		size_t		i;
		int			r;

		for (i = 0; i < n; i++)
			dpk_box_normalize(box, pts + (from + i) * d, lv->ubuf + i * d);
		for (r = 0; r < copies; r++)
			dpk_project_batch(&lv->proj[r], lv->ubuf, n,
							  lv->tbuf + (size_t) r * BATCH * dhat);
		for (i = 0; i < n; i++)
		{
			for (r = 0; r < copies; r++)
				memcpy(lv->tall + (size_t) r * dhat,
					   lv->tbuf + ((size_t) r * BATCH + i) * dhat,
					   sizeof(double) * dhat);
			dpk_live_add_projected(&lv->cfg, &lv->map, lv->ubuf + i * d, lv->tall, sign);
		}
		from += n;
	}
}

/* Release t of a live table: its K centres' cost on cur[0 .. ncur). */
static LiveOut
live_release(Live *lv, const DpkBox *box, const uint8_t key[DPK_KEY_BYTES],
			 uint32_t t, const double *cur, size_t ncur, bool diag)
{
	const DpkLiveConfig *cfg = &lv->cfg;
	int			d = cfg->d,
				k = cfg->k;
	uint64_t	total = (uint64_t) cfg->copies * dpk_live_copy_cells(cfg);
	double	   *count = xmalloc(sizeof(double) * total);
	double	   *sum = xmalloc(sizeof(double) * total * d);
	double		sumnorm;
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s = {0};
	DpkLiveRelease rel;
	LiveOut		out;
	double		t0 = now_ms();

	if (!dpk_stream_open(&s, key, nonce))
	{
		fprintf(stderr, "bench_highd_live: cannot open noise stream\n");
		exit(1);
	}
	uint64_t	cseed;

	dpk_live_noisy_projected(cfg, key, &lv->map, t, &s, count, sum, &sumnorm);
	cseed = dpk_stream_u64(&s);
	dpk_live_cluster_projected(cfg, box, count, sum, sumnorm, t, cseed, &rel);
	out.ms = now_ms() - t0;
	out.cost = dpk_kmeans_cost(cur, NULL, (int) ncur, d,
							   rel.centers + (size_t) dpk_live_block(k) * d, k, NULL);
	out.coreset = rel.coreset_size;
	dpk_live_release_free(&rel);
	out.diag[0] = out.diag[1] = out.diag[2] = NAN;
	if (diag)
	{
		/*
		 * The same post-processing on the true counters (the configuration's
		 * noise variances unchanged): all true, true sums with the noisy
		 * counts, true counts with the noisy sums.
		 */
		double	   *tcount = xmalloc(sizeof(double) * total);
		double	   *tsum = xmalloc(sizeof(double) * total * d);
		double		tnorm = 0.0;
		size_t		pos = 0;
		uint64_t	cell;
		const int64_t *vals;
		int			m,
					j;

		memset(tcount, 0, sizeof(double) * total);
		memset(tsum, 0, sizeof(double) * total * d);
		while (dpk_cellmap_next(&lv->map, &pos, &cell, &vals))
		{
			if (cell == DPK_LIVE_NORM_CELL(cfg))
				tnorm = (double) vals[0];
			else if (cell < total)
			{
				tcount[cell] = (double) vals[0];
				for (j = 0; j < d; j++)
					tsum[cell * d + j] = (double) vals[1 + j];
			}
		}
		for (m = 0; m < 3; m++)
		{
			dpk_live_cluster_projected(cfg, box, m == 1 ? count : tcount,
									   m == 2 ? sum : tsum, tnorm, t, cseed, &rel);
			out.diag[m] = dpk_kmeans_cost(cur, NULL, (int) ncur, d,
										  rel.centers + (size_t) dpk_live_block(k) * d,
										  k, NULL);
			dpk_live_release_free(&rel);
		}
		free(tcount);
		free(tsum);
	}
	dpk_stream_close(&s);
	free(count);
	free(sum);
	return out;
}

/* dp_kmeans (high d) with budget eps on the current points. */
static double
oneshot_cost(const DpkBox *box, const double *cur, size_t ncur, int k, double eps,
			 uint64_t keyseed)
{
	DpkHighdConfig cfg;
	DpkOneshotResult res;
	DpkStream	s = {0};
	double		cost;

	open_seed_stream(&s, keyseed);
	dpk_highd_defaults(&cfg, eps, k);
	cfg.max_cells = MAX_CELLS;
	dpk_highd_oneshot_cluster(box, cur, ncur, &cfg, &s, &res);
	cost = dpk_kmeans_cost(cur, NULL, (int) ncur, box->d, res.centers, k, NULL);
	dpk_oneshot_result_free(&res);
	dpk_stream_close(&s);
	return cost;
}

/* The reported releases of a horizon, ascending and distinct. */
static int
reported(const Options *opt, uint32_t T, uint32_t *ts)
{
	uint32_t	cand[MAX_TIMES];
	int			nc,
				n = 0,
				i,
				j;

	if (opt->ntimes > 0)
	{
		nc = 0;
		for (i = 0; i < opt->ntimes; i++)
			if (opt->times[i] >= 1 && opt->times[i] <= T)
				cand[nc++] = opt->times[i];
	}
	else
	{
		cand[0] = T / 8 ? T / 8 : 1;
		cand[1] = T / 2 ? T / 2 : 1;
		cand[2] = T > 1 ? T - 1 : 1;
		cand[3] = T;
		nc = 4;
	}
	/* sort (few values) and drop repeats */
	for (i = 1; i < nc; i++)
		for (j = i; j > 0 && cand[j] < cand[j - 1]; j--)
		{
			uint32_t	tmp = cand[j];

			cand[j] = cand[j - 1];
			cand[j - 1] = tmp;
		}
	for (i = 0; i < nc; i++)
		if (n == 0 || cand[i] > ts[n - 1])
			ts[n++] = cand[i];
	return n;
}

/* End of batch t (1-based): batch t is [batch_end(t-1), batch_end(t)). */
static size_t
batch_end(uint32_t t, size_t total, uint32_t nbatches)
{
	return (size_t) ((unsigned __int128) total * t / nbatches);
}

static void
acc_add(Acc *a, const LiveOut *lo, double ref, double os, double naive, double mean,
		const DpkLiveConfig *cfg)
{
	double		live = lo->cost / ref;
	int			m;

	for (m = 0; m < 3; m++)
		if (!isnan(lo->diag[m]))
			geo_add(&a->log_diag[m], lo->diag[m] / ref);
	if (a->nseeds == 0)
		a->min_live = a->max_live = live;
	a->min_live = fmin(a->min_live, live);
	a->max_live = fmax(a->max_live, live);
	geo_add(&a->log_live, live);
	geo_add(&a->log_os, os);
	geo_add(&a->log_naive, naive);
	geo_add(&a->log_mean, mean);
	a->coreset += lo->coreset;
	a->ms_live += lo->ms;
	a->level = cfg->level;
	a->cells = dpk_live_copy_cells(cfg);
	a->nseeds++;
}

/*
 * Run one stream of one row and horizon on one dataset: step through the
 * releases up to the last reported one, computing the reported ones.
 */
static void
run_stream(const MixData *mx, RefCache *refs, const DpkBox *box, Row *row,
		   int hi, uint32_t T, int stream, int seed, const Options *opt)
{
	int			d = row->d,
				k = row->k;
	size_t		N = opt->n;
	bool		window = stream == STREAM_WINDOW;
	size_t		total = window ? 2 * N : N;
	uint32_t	half = T / 2;
	uint32_t	ts[MAX_TIMES];
	int			nrep = reported(opt, T, ts),
				ri = 0;
	Live		lv;
	uint8_t		key[DPK_KEY_BYTES];
	uint64_t	keyseed;
	uint32_t	t;

	keyseed = mix_hash4(TAG_LIVE ^ (((uint64_t) d << 32) | (uint64_t) k),
						double_bits(row->eps), ((uint64_t) T << 2) | (uint64_t) stream,
						(uint64_t) seed);
	dpk_key_from_seed(keyseed, key);
	live_init(&lv, d, k, row->eps, T, !window, (double) N,
			  mix_hash4(keyseed, TAG_PROJ, 0, 0), opt);

	for (t = 1; t <= T && ri < nrep; t++)
	{
		size_t		b0 = batch_end(t - 1, total, T),
					b1 = batch_end(t, total, T);
		size_t		cur0;

		live_apply(&lv, box, mx->points, b0, b1, +1);
		if (window && t > half)
			live_apply(&lv, box, mx->points, batch_end(t - half - 1, total, T),
					   batch_end(t - half, total, T), -1);
		if (t != ts[ri])
			continue;

		cur0 = window && t > half ? batch_end(t - half, total, T) : 0;
		{
			const double *cur = mx->points + cur0 * d;
			size_t		ncur = b1 - cur0;
			double		ref = reference_cost(mx, refs, opt->ref_cache, seed, cur0, ncur);
			LiveOut		lo = live_release(&lv, box, key, t, cur, ncur, opt->diag);
			double		live = lo.cost / ref,
						os = 1.0,
						naive = 1.0;

			if (opt->baselines)
			{
				os = oneshot_cost(box, cur, ncur, k, row->eps,
								  mix_hash4(keyseed ^ TAG_ONESHOT, t, 0, 0)) / ref;
				naive = oneshot_cost(box, cur, ncur, k, row->eps / T,
									 mix_hash4(keyseed ^ TAG_NAIVE, t, 0, 0)) / ref;
			}
			if (opt->verbose)
				printf("#   %s T=%u d=%d eps=%g seed=%d t=%u live=%.4f oneshot=%.4f "
					   "naive=%.4f coreset=%d ms=%.1f\n", stream_name[stream], T, d,
					   row->eps, seed, t, live, os, naive, lo.coreset, lo.ms);
			row->acc[hi][stream][ri].t = t;
			row->acc[hi][stream][ri].ncur = ncur;
			acc_add(&row->acc[hi][stream][ri], &lo, ref, os, naive, 1.0, &lv.cfg);
		}
		ri++;
	}
	live_free(&lv);
}

static void
print_config(const Options *opt)
{
	DpkLiveConfig def;

	live_config(&def, 16, 10, 1.0, 1024, false, (double) opt->n, 1, opt);
	printf("# live config (after dpk_live_use_projection and overrides): dhat=%d "
		   "copies=%d sum_share=%g norm_share=%g threshold_sigmas=%g restarts=%d "
		   "half_width=%g level=choose_level(N, %g)%+d\n",
		   def.dhat, def.copies,
		   def.sum_share, def.norm_share, def.threshold_sigmas, def.restarts,
		   def.half_width, MAX_CELLS, opt->level_delta);
}

static void
print_header(const Options *opt)
{
	char		hs[128] = "";
	int			i;

	for (i = 0; i < opt->nhorizons; i++)
		snprintf(hs + strlen(hs), sizeof(hs) - strlen(hs), "%s%u", i ? "," : "",
				 opt->horizons[i]);
	printf("# bench_highd_live: N=%zu seeds=%d horizons=%s box=[0,100]^d, mixture: "
		   "centres uniform, separation>=15, sd in [2,6]\n", opt->n, opt->seeds, hs);
	print_config(opt);
	printf("# insert: N points, T batches, insert_only; window: 2N points, T batches, "
		   "window of N points from t=T/2, insert_delete\n");
	printf("# cost = k-means cost on the current true points / non-private reference; "
		   "geometric mean over seeds; oneshot = dp_kmeans (highd) at eps, naive = at eps/T\n");
	printf("# L = counted level (cells per copy = 2^(L dhat)); coreset = published copy's "
		   "coreset at k=K; flags: R live/oneshot>1.3, N live>naive\n");
	printf("%-6s %5s %7s %2s %2s %4s %5s %7s | %8s %8s %9s | %7s | %2s %6s | "
		   "%8s %8s | %7s %8s\n",
		   "stream", "T", "N", "d", "K", "eps", "t", "n_cur", "live", "oneshot", "naive",
		   "live/os", "L", "cells", "live_min", "live_max", "coreset", "live_ms");
	fflush(stdout);
}

static void
print_acc(const Row *row, uint32_t T, size_t N, int stream, const Acc *a,
		  const Options *opt)
{
	double		n = a->nseeds;
	double		live = geo_mean(a->log_live, n),
				os = geo_mean(a->log_os, n),
				naive = geo_mean(a->log_naive, n);
	char		o[16],
				nv[16],
				r[16];

	if (opt->baselines)
	{
		snprintf(o, sizeof(o), "%8.4f", os);
		snprintf(nv, sizeof(nv), "%9.4f", naive);
		snprintf(r, sizeof(r), "%7.3f", live / os);
	}
	else
	{
		snprintf(o, sizeof(o), "%8s", "-");
		snprintf(nv, sizeof(nv), "%9s", "-");
		snprintf(r, sizeof(r), "%7s", "-");
	}
	printf("%-6s %5u %7zu %2d %2d %4.2f %5u %7zu | %8.4f %s %s | %s | %2d %6llu | "
		   "%8.4f %8.4f | %7.0f %8.1f%s%s\n",
		   stream_name[stream], T, N, row->d, row->k, row->eps, a->t, a->ncur,
		   live, o, nv, r, a->level, (unsigned long long) a->cells,
		   a->min_live, a->max_live, a->coreset / n, a->ms_live / n,
		   opt->baselines && live / os > 1.3 ? "  R" : "",
		   opt->baselines && live > naive ? "  N" : "");
	if (opt->diag)
		printf("  diag  exact %8.4f  exact_sums %8.4f  exact_counts %8.4f\n",
			   geo_mean(a->log_diag[0], n), geo_mean(a->log_diag[1], n),
			   geo_mean(a->log_diag[2], n));
	fflush(stdout);
}

/* ---- digits ---- */

/*
 * Read a CSV of numbers (gzip when the name ends in .gz), keeping the first
 * d columns of every row with at least d; returns the row count.
 */
static size_t
read_csv(const char *path, int d, double **out)
{
	size_t		len = strlen(path);
	bool		gz = len > 3 && strcmp(path + len - 3, ".gz") == 0;
	FILE	   *f;
	char	   *line = NULL;
	size_t		cap = 0,
				n = 0,
				alloc = 1024;
	double	   *x = xmalloc(sizeof(double) * alloc * d);

	if (gz)
	{
		char	   *cmd = xmalloc(len + 32);
		const char *p;
		char	   *q = cmd;

		/* single-quote the path for the shell */
		q += sprintf(q, "gzip -dc '");
		for (p = path; *p; p++)
		{
			if (*p == '\'')
			{
				fprintf(stderr, "bench_highd_live: quote in path %s\n", path);
				exit(2);
			}
			*q++ = *p;
		}
		strcpy(q, "'");
		f = popen(cmd, "r");
		free(cmd);
	}
	else
		f = fopen(path, "r");
	if (f == NULL)
	{
		fprintf(stderr, "bench_highd_live: cannot read %s\n", path);
		exit(2);
	}
	while (getline(&line, &cap, f) > 0)
	{
		char	   *p = line,
				   *end;
		int			j;

		if (n == alloc)
		{
			double	   *nx;

			alloc *= 2;
			nx = realloc(x, sizeof(double) * alloc * d);
			if (!nx)
				abort();
			x = nx;
		}
		for (j = 0; j < d; j++)
		{
			double		v = strtod(p, &end);

			if (end == p || isnan(v))
				break;
			x[n * d + j] = v;
			p = end;
			while (*p == ',' || *p == ' ' || *p == '\t')
				p++;
		}
		if (j == d)
			n++;
	}
	free(line);
	if (gz)
	{
		if (pclose(f) != 0)
		{
			fprintf(stderr, "bench_highd_live: gzip -dc %s failed\n", path);
			exit(2);
		}
	}
	else
		fclose(f);
	*out = x;
	return n;
}

/* Best non-private cost of x (n points) for k centres, dpk_kmeans 20 restarts. */
static double
plain_cost(const double *x, size_t n, int d, int k, uint64_t seed)
{
	double	   *c = xmalloc(sizeof(double) * k * d);
	double		cost = dpk_kmeans(x, NULL, (int) n, d, k, 20, 300, seed, c, NULL);

	/* dpk_kmeans returns the cost of its best run: recompute on the points */
	cost = fmin(cost, dpk_kmeans_cost(x, NULL, (int) n, d, c, k, NULL));
	free(c);
	return cost;
}

static void
run_digits(const Options *opt)
{
	const int	d = 64,
				k = 10;
	double	   *all;
	size_t		n = read_csv(opt->digits, d, &all);
	double	   *pts = xmalloc(sizeof(double) * n * d);
	double		lo[64],
				up[64];
	DpkBox		box;
	uint32_t	T = opt->digits_horizon;
	uint32_t	ts[MAX_TIMES];
	int			nrep = reported(opt, T, ts);
	int			e,
				j;
	double		t_start = now_ms();

	if (n < (size_t) T || n < 16)
	{
		fprintf(stderr, "bench_highd_live: %s has %zu rows of >= 64 numbers\n",
				opt->digits, n);
		exit(2);
	}
	for (j = 0; j < d; j++)
	{
		lo[j] = 0.0;
		up[j] = 16.0;
	}
	box.d = d;
	box.lower = lo;
	box.upper = up;

	printf("# digits: %s, %zu rows x %d, box [0,16]^64, K=%d, insert stream of T=%u "
		   "batches (insert_only, size hint %zu), rows in a seeded random order, "
		   "seeds=%d\n", opt->digits, n, d, k, T, n, opt->seeds);
	printf("# cost / best of dpk_kmeans (20 restarts) on the current rows; k=1: the "
		   "data mean's cost over the same reference; oneshot = dp_kmeans (highd) at "
		   "eps, naive = at eps/T\n");
	printf("%-6s %5s %5s %4s %5s %6s | %8s %8s %9s %8s | %2s %6s | %8s %8s | %7s\n",
		   "data", "T", "N", "eps", "t", "n_cur", "live", "oneshot", "naive", "k=1",
		   "L", "cells", "live_min", "live_max", "coreset");

	for (e = 0; e < opt->ndigits_eps; e++)
	{
		double		eps = opt->digits_eps[e];
		Acc			acc[MAX_TIMES];
		int			seed,
					ri;

		memset(acc, 0, sizeof(acc));
		for (seed = 0; seed < opt->seeds; seed++)
		{
			MixRng		rng;
			uint64_t	keyseed = mix_hash4(TAG_DIGITS, double_bits(eps), T, (uint64_t) seed);
			uint8_t		key[DPK_KEY_BYTES];
			Live		lv;
			size_t		i;
			uint32_t	t;

			/* seeded order: Fisher-Yates on row indices */
			{
				size_t	   *perm = xmalloc(sizeof(size_t) * n);

				mix_rng_seed(&rng, mix_hash4(TAG_DIGITS, TAG_DATA, (uint64_t) seed, 0));
				for (i = 0; i < n; i++)
					perm[i] = i;
				for (i = n - 1; i > 0; i--)
				{
					size_t		r = (size_t) (mix_rng_uniform(&rng) * (double) (i + 1));
					size_t		tmp;

					if (r > i)
						r = i;
					tmp = perm[i];
					perm[i] = perm[r];
					perm[r] = tmp;
				}
				for (i = 0; i < n; i++)
					memcpy(pts + i * d, all + perm[i] * d, sizeof(double) * d);
				free(perm);
			}
			dpk_key_from_seed(keyseed, key);
			live_init(&lv, d, k, eps, T, true, (double) n,
					  mix_hash4(keyseed, TAG_PROJ, 0, 0), opt);
			ri = 0;
			for (t = 1; t <= T && ri < nrep; t++)
			{
				size_t		b1 = batch_end(t, n, T);

				live_apply(&lv, &box, pts, batch_end(t - 1, n, T), b1, +1);
				if (t != ts[ri])
					continue;
				{
					double		ref = plain_cost(pts, b1, d, k,
												 mix_hash4(keyseed, TAG_REF, t, 0));
					double		mean = plain_cost(pts, b1, d, 1,
												  mix_hash4(keyseed, TAG_REF, t, 1)) / ref;
					LiveOut		lo = live_release(&lv, &box, key, t, pts, b1, opt->diag);
					double		live = lo.cost / ref,
								os = 1.0,
								naive = 1.0;

					if (opt->baselines)
					{
						os = oneshot_cost(&box, pts, b1, k, eps,
										  mix_hash4(keyseed ^ TAG_ONESHOT, t, 0, 0)) / ref;
						naive = oneshot_cost(&box, pts, b1, k, eps / T,
											 mix_hash4(keyseed ^ TAG_NAIVE, t, 0, 0)) / ref;
					}
					if (opt->verbose)
						printf("#   digits eps=%g seed=%d t=%u live=%.4f oneshot=%.4f "
							   "naive=%.4f k=1 %.4f\n", eps, seed, t, live, os, naive,
							   mean);
					acc[ri].t = t;
					acc[ri].ncur = b1;
					acc_add(&acc[ri], &lo, ref, os, naive, mean, &lv.cfg);
				}
				ri++;
			}
			live_free(&lv);
		}
		for (ri = 0; ri < nrep; ri++)
		{
			const Acc  *a = &acc[ri];
			double		ns = a->nseeds;
			char		o[16],
						nv[16];

			if (opt->baselines)
			{
				snprintf(o, sizeof(o), "%8.4f", geo_mean(a->log_os, ns));
				snprintf(nv, sizeof(nv), "%9.4f", geo_mean(a->log_naive, ns));
			}
			else
			{
				snprintf(o, sizeof(o), "%8s", "-");
				snprintf(nv, sizeof(nv), "%9s", "-");
			}
			printf("%-6s %5u %5zu %4.2f %5u %6zu | %8.4f %s %s %8.4f | %2d %6llu | "
				   "%8.4f %8.4f | %7.0f\n",
				   "digits", T, n, eps, a->t, a->ncur, geo_mean(a->log_live, ns), o, nv,
				   geo_mean(a->log_mean, ns), a->level, (unsigned long long) a->cells,
				   a->min_live, a->max_live, a->coreset / ns);
		}
		fflush(stdout);
	}
	printf("# digits time %.1f s\n", (now_ms() - t_start) / 1e3);
	free(all);
	free(pts);
}

/* ---- command line ---- */

static void
usage(void)
{
	fprintf(stderr,
			"usage: bench_highd_live [--seeds N] [--n N] [--rows \"d:K:eps,...\"]\n"
			"       [--horizons \"1024\"] [--stream insert|window|both] [--times \"a,b\"]\n"
			"       [--no-baselines] [--ref-cache FILE] [--verbose] [--diag]\n"
			"       [--digits PATH] [--digits-only] [--digits-eps \"0.5,1,2\"]"
			" [--digits-horizon T]\n"
			"       [--copies N] [--sum-share X] [--norm-share X] [--threshold X]\n"
			"       [--dhat N] [--half-width X] [--restarts N] [--level-delta N]\n");
	exit(2);
}

static int
parse_rows(const char *spec, Row *rows)
{
	RowSpec		specs[MAX_ROWS];
	char		note[32];
	int			nrows,
				r;

	snprintf(note, sizeof(note), " (d >= %d)", DPK_HIGHD_MIN_D);
	nrows = parse_row_specs(spec, DPK_HIGHD_MIN_D, 1024, specs, MAX_ROWS, note);
	for (r = 0; r < nrows; r++)
	{
		rows[r].d = specs[r].d;
		rows[r].k = specs[r].k;
		rows[r].eps = specs[r].eps;
	}
	return nrows;
}

/* A comma-separated list of positive integers (or of reals when dbl). */
static int
parse_list(const char *spec, uint32_t *u, double *x, int max, const char *what)
{
	char	   *copy = strdup(spec);
	char	   *tok,
			   *save = NULL;
	int			n = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		double		v = atof(tok);

		if (!(v > 0.0) || n >= max || (u && (v < 1 || v > (double) (1L << 30))))
		{
			fprintf(stderr, "bench_highd_live: bad %s \"%s\"\n", what, tok);
			exit(2);
		}
		if (u)
			u[n] = (uint32_t) v;
		else
			x[n] = v;
		n++;
	}
	free(copy);
	return n;
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
	static Row	rows[MAX_ROWS];
	Options		opt;
	int			nrows = 0;
	bool		done[MAX_ROWS];
	int			i,
				r;
	double		t_start = now_ms();
	double		sum_live = 0.0,
				sum_os = 0.0,
				sum_naive = 0.0;
	int			nlines = 0;
	double		target_worst = -1.0,
				target_late = -1.0;
	char		target_where[96] = "";

	memset(rows, 0, sizeof(rows));
	memset(&opt, 0, sizeof(opt));
	opt.seeds = 3;
	opt.n = 100000;
	opt.streams[STREAM_INSERT] = opt.streams[STREAM_WINDOW] = true;
	opt.horizons[0] = 1024;
	opt.nhorizons = 1;
	opt.baselines = true;
	opt.digits_eps[0] = 0.5;
	opt.digits_eps[1] = 1.0;
	opt.digits_eps[2] = 2.0;
	opt.ndigits_eps = 3;
	opt.digits_horizon = 64;
	opt.copies = -1;
	opt.sum_share = opt.norm_share = opt.threshold = NAN;
	opt.dhat = -1;
	opt.half_width = NAN;
	opt.restarts = -1;
	opt.level_delta = 0;

	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--seeds") == 0)
			opt.seeds = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--n") == 0)
			opt.n = (size_t) atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--rows") == 0)
			nrows = parse_rows(arg_value(argc, argv, &i), rows);
		else if (strcmp(a, "--horizons") == 0)
			opt.nhorizons = parse_list(arg_value(argc, argv, &i), opt.horizons, NULL,
									   MAX_HORIZONS, "horizon");
		else if (strcmp(a, "--times") == 0)
			opt.ntimes = parse_list(arg_value(argc, argv, &i), opt.times, NULL,
									MAX_TIMES, "release");
		else if (strcmp(a, "--stream") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			opt.streams[STREAM_INSERT] = strcmp(v, "insert") == 0 || strcmp(v, "both") == 0;
			opt.streams[STREAM_WINDOW] = strcmp(v, "window") == 0 || strcmp(v, "both") == 0;
			if (!opt.streams[STREAM_INSERT] && !opt.streams[STREAM_WINDOW])
				usage();
		}
		else if (strcmp(a, "--no-baselines") == 0)
			opt.baselines = false;
		else if (strcmp(a, "--verbose") == 0)
			opt.verbose = true;
		else if (strcmp(a, "--diag") == 0)
			opt.diag = true;
		else if (strcmp(a, "--ref-cache") == 0)
			opt.ref_cache = arg_value(argc, argv, &i);
		else if (strcmp(a, "--digits") == 0)
			opt.digits = arg_value(argc, argv, &i);
		else if (strcmp(a, "--digits-only") == 0)
			opt.digits_only = true;
		else if (strcmp(a, "--digits-eps") == 0)
			opt.ndigits_eps = parse_list(arg_value(argc, argv, &i), NULL, opt.digits_eps,
										 MAX_EPS, "epsilon");
		else if (strcmp(a, "--digits-horizon") == 0)
			opt.digits_horizon = (uint32_t) atol(arg_value(argc, argv, &i));
		else if (strcmp(a, "--copies") == 0)
			opt.copies = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--sum-share") == 0)
			opt.sum_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--norm-share") == 0)
			opt.norm_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--threshold") == 0)
			opt.threshold = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--dhat") == 0)
			opt.dhat = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--half-width") == 0)
			opt.half_width = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--restarts") == 0)
			opt.restarts = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--level-delta") == 0)
			opt.level_delta = atoi(arg_value(argc, argv, &i));
		else
			usage();
	}
	if (opt.seeds < 1 || opt.n < 16 || opt.n > 100000000 || opt.nhorizons < 1 ||
		opt.digits_horizon < 2 || opt.ndigits_eps < 1)
		usage();
	if (opt.digits_only && opt.digits == NULL)
		usage();
	if (opt.copies == 0 || opt.copies > 16 || opt.dhat == 0 || opt.dhat > 16 ||
		!(isnan(opt.half_width) || opt.half_width > 0.0))
		usage();
	{
		/* the shares of the count noise must stay positive */
		DpkLiveConfig probe;

		live_config(&probe, 16, 10, 1.0, 1024, false, (double) opt.n, 1, &opt);
		if (!(probe.sum_share > 0.0) || !(probe.norm_share >= 0.0) ||
			!(probe.sum_share + probe.norm_share < 1.0))
		{
			fprintf(stderr, "bench_highd_live: need sum_share > 0, norm_share >= 0 and "
					"sum_share + norm_share < 1\n");
			exit(2);
		}
	}
	for (i = 0; i < opt.nhorizons; i++)
		if (opt.horizons[i] < 2 || opt.horizons[i] > opt.n)
		{
			fprintf(stderr, "bench_highd_live: horizon %u not in [2, N]\n", opt.horizons[i]);
			exit(2);
		}
	if (nrows == 0)
		nrows = default_rows(rows);

	dpk_blas_single_thread();

	if (!opt.digits_only)
	{
		print_header(&opt);
		memset(done, 0, sizeof(done));
		for (r = 0; r < nrows; r++)
		{
			int			seed,
						rr,
						hi,
						st;

			if (done[r])
				continue;

			/* Rows sharing (d, K) share their datasets and reference costs. */
			for (seed = 0; seed < opt.seeds; seed++)
			{
				size_t		npts = opt.streams[STREAM_WINDOW] ? 2 * opt.n : opt.n;
				MixSpec		sp = mix_default_spec(rows[r].d, rows[r].k, npts);
				MixData		mx;
				RefCache	refs;
				double	   *lo = xmalloc(sizeof(double) * rows[r].d);
				double	   *up = xmalloc(sizeof(double) * rows[r].d);
				DpkBox		box;
				int			t;

				for (t = 0; t < rows[r].d; t++)
				{
					lo[t] = 0.0;
					up[t] = 100.0;
				}
				box.d = rows[r].d;
				box.lower = lo;
				box.upper = up;
				refs.n = 0;

				/* The first N points are the same whether or not 2N are drawn. */
				mix_generate(&sp, mix_hash4(TAG_DATA, (uint64_t) rows[r].d,
											(uint64_t) rows[r].k, (uint64_t) seed),
							 &mx);

				for (rr = r; rr < nrows; rr++)
				{
					if (done[rr] || rows[rr].d != rows[r].d || rows[rr].k != rows[r].k)
						continue;
					for (hi = 0; hi < opt.nhorizons; hi++)
						for (st = 0; st < NSTREAMS; st++)
							if (opt.streams[st])
								run_stream(&mx, &refs, &box, &rows[rr], hi,
										   opt.horizons[hi], st, seed, &opt);
				}
				mix_free(&mx);
				free(lo);
				free(up);
			}

			for (st = 0; st < NSTREAMS; st++)
			{
				if (!opt.streams[st])
					continue;
				for (hi = 0; hi < opt.nhorizons; hi++)
					for (rr = r; rr < nrows; rr++)
					{
						uint32_t	ts[MAX_TIMES];
						int			nrep = reported(&opt, opt.horizons[hi], ts),
									ri;

						if (done[rr] || rows[rr].d != rows[r].d || rows[rr].k != rows[r].k)
							continue;
						for (ri = 0; ri < nrep; ri++)
						{
							const Acc  *a = &rows[rr].acc[hi][st][ri];
							double		live = geo_mean(a->log_live, a->nseeds);

							print_acc(&rows[rr], opt.horizons[hi], opt.n, st, a, &opt);
							sum_live += a->log_live / a->nseeds;
							sum_os += a->log_os / a->nseeds;
							sum_naive += a->log_naive / a->nseeds;
							nlines++;
							if (rows[rr].d == 16 && rows[rr].k == 10 &&
								fabs(rows[rr].eps - 1.0) < 1e-12 && live > target_worst)
							{
								target_worst = live;
								snprintf(target_where, sizeof(target_where),
										 "%s T=%u t=%u", stream_name[st],
										 opt.horizons[hi], a->t);
							}
							if (rows[rr].d == 16 && rows[rr].k == 10 &&
								fabs(rows[rr].eps - 1.0) < 1e-12 &&
								2 * a->t >= opt.horizons[hi] && live > target_late)
								target_late = live;
						}
					}
			}
			for (rr = r; rr < nrows; rr++)
				if (rows[rr].d == rows[r].d && rows[rr].k == rows[r].k)
					done[rr] = true;
		}

		printf("# geometric mean over %d lines: live %.4f", nlines,
			   geo_mean(sum_live, nlines));
		if (opt.baselines)
			printf("  oneshot %.4f  naive %.4f", geo_mean(sum_os, nlines),
				   geo_mean(sum_naive, nlines));
		printf("\n");
		if (target_worst > 0.0)
			printf("# targets (d=16 K=10 eps=1): worst live %.4f (%s); below 7.5 "
				   "(diffprivlib DPLloyd): %s, below 10.0 (plain RUGNIK grid): %s, "
				   "aim 4.7: %s\n", target_worst, target_where,
				   target_worst < 7.5 ? "yes" : "NO", target_worst < 10.0 ? "yes" : "NO",
				   target_worst < 4.7 ? "yes" : "no");
		if (target_late > 0.0)
			printf("# targets from t >= T/2 (>= N/2 rows; the references used N = 1e5): "
				   "worst live %.4f; below 7.5: %s, below 10.0: %s, aim 4.7: %s\n",
				   target_late, target_late < 7.5 ? "yes" : "NO",
				   target_late < 10.0 ? "yes" : "NO", target_late < 4.7 ? "yes" : "no");
		printf("# mixtures time %.1f s\n", (now_ms() - t_start) / 1e3);
		fflush(stdout);
	}

	if (opt.digits)
	{
		if (opt.digits_only)
			print_config(&opt);
		run_digits(&opt);
	}
	printf("# total time %.1f s\n", (now_ms() - t_start) / 1e3);
	return 0;
}
