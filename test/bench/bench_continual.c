/*
 * bench_continual.c
 *		Accuracy benchmark of the continual (live) releases.
 *
 * It replays, in plain C, what a live table does: the state is the sparse
 * cell map of the counted level (2^level cells per dimension on the box
 * [0,100]^d), every inserted point adds (1, in-cell offsets) to its cell and
 * every deleted point subtracts them, and release t publishes the noisy
 * histogram of that map at t (binary tree noise keyed by the table's key)
 * followed by dpk_live_cluster.  T releases are made over the horizon.
 *
 * Streams (points drawn i.i.d. from a Gaussian mixture, mixture.h, so their
 * order is random):
 *	 insert  N points, batch t = points [floor((t-1)N/T), floor(tN/T)),
 *			 insert_only = true; a second column ("live_del") runs the same
 *			 stream with the insert+delete accounting (insert_only = false);
 *	 window  2N points, batch t = points [floor((t-1)2N/T), floor(t2N/T));
 *			 release t inserts batch t and, once t > T/2, deletes batch
 *			 t - T/2, so the window holds exactly N points from t = T/2 on;
 *			 insert_only = false.
 *
 * The configuration is dpk_live_defaults(d, K, eps, T, insert_only) with
 * cfg.level = dpk_live_choose_level(cfg, N, 4194304).  The noise of release
 * t depends only on the key and t, so only the reported releases
 * t in {T/8, T/2, T-1, T} are computed: the state in between just
 * accumulates its batches, exactly as the table's counters would.
 *
 * At each reported t, on the points currently in the stream:
 *	 live     k = K centres of the release (block dpk_live_block(K));
 *	 oneshot  dpk_oneshot_cluster with the full eps (dpk_oneshot_defaults);
 *	 naive    dpk_oneshot_cluster with eps/T (T one-shot releases composed).
 * Each cost is the k-means cost of the centres on the current true points
 * divided by a non-private reference on the same points: the lower of
 * dpk_kmeans (10 restarts) and Lloyd started from the generating centres.
 *
 * Output: one line per (stream, T, N, d, K, eps, t) with the geometric mean
 * over seeds of every method, the ratio live/oneshot, the counted level and
 * the level release t picked for seed 0 (with its range over seeds), the
 * range of live over seeds and its mean coreset size.  Lines are flagged
 * "R" when live/oneshot > 1.3 and "N" when live is worse than naive.
 *
 * Options (all optional):
 *	 --seeds N  --n N  --rows "d:K:eps,..."  --horizons "64,1024"
 *	 --stream insert|window|both
 *	 live configuration overrides, for tuning:
 *	 --sum-share X  --threshold X  --restarts N  --max-iter N  --level-delta N
 *	 --no-naive  skip the naive column (faster tuning runs)
 *	 --level-scan  diagnostic: also finish every release at each fixed level
 *				 L-3 .. L (L the counted level) the way dpk_live_cluster
 *				 finishes its chosen one (threshold, coreset, k-means for K),
 *				 and print one extra line per release with the geometric
 *				 mean cost per fixed level and of the best level per seed
 *				 ("oracle"), to tell the release's own level choice apart
 *				 from what the noisy histogram allows.  The line also
 *				 replays the release's choice among L-2 .. L (centres of
 *				 each level scored on the noisy counted level, every cell
 *				 at its centre) and shows how often the replay agrees with
 *				 the release, and the cost of an alternative choice that
 *				 scores the same candidates with every cell of positive
 *				 noisy count at its shrunk noisy in-cell mean instead, and
 *				 of the replayed choice restricted to levels with at least
 *				 4 cells per dimension
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

#define BENCH_PROG "bench_continual"

#include "mixture.h"
#include "bench_common.h"

#define MAX_ROWS 64
#define MAX_HORIZONS 8
#define NREP 4					/* reported releases per horizon */
#define MAX_CELLS 4194304.0
#define MAX_REFS 64
#define NSCAN 4					/* fixed levels L-3 .. L in --level-scan */

enum
{
	STREAM_INSERT = 0, STREAM_WINDOW = 1, NSTREAMS = 2
};

static const char *const stream_name[NSTREAMS] = {"insert", "window"};

/* Key tags, so that every method gets its own noise. */
enum
{
	TAG_LIVE = 0x6c697665, TAG_ONESHOT = 0x6f6e65, TAG_NAIVE = 0x6e6169,
	TAG_DATA = 0x6d6978, TAG_REF = 0x726566, TAG_KM = 0x6b6d
};

/* Accumulated over seeds for one (row, horizon, stream, reported t). */
typedef struct Acc
{
	int			nseeds;
	uint32_t	t;
	size_t		ncur;
	double		log_live,
				log_live_del,
				log_os,
				log_naive;
	double		min_live,
				max_live;
	double		coreset;
	double		ms_live;
	int			level_count,
				level_count_del,
				level_rel0,
				level_rel_lo,
				level_rel_hi;
	/* --level-scan: fixed level L - NSCAN + 1 + i, and the best per seed */
	double		log_fixed[NSCAN];
	double		log_oracle;
	int			oracle_hits;	/* seeds where the release hit the best level */
	int			replay_hits;	/* seeds where the replayed choice agrees */
	double		log_alt;		/* choice scored with in-cell means */
	int			alt_lo,
				alt_hi;			/* levels the alternative chose */
	double		log_min4;		/* replayed choice among levels >= 2 */
} Acc;

/* --level-scan results of one release, index i = level L - NSCAN + 1 + i. */
typedef struct Scan
{
	double		cost[NSCAN];	/* NAN below level 0 */
	double		proxy_centre[NSCAN];	/* INFINITY: empty coreset */
	double		proxy_mean[NSCAN];
} Scan;

typedef struct Row
{
	int			d;
	int			k;
	double		eps;
	Acc			acc[MAX_HORIZONS][NSTREAMS][NREP];
} Row;

typedef struct Options
{
	int			seeds;
	size_t		n;
	bool		streams[NSTREAMS];
	uint32_t	horizons[MAX_HORIZONS];
	int			nhorizons;
	bool		naive;
	bool		level_scan;
	/* overrides of the live configuration (NaN / -1 / 0 = keep) */
	double		sum_share;
	double		threshold;
	int			restarts;
	int			max_iter;
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

/* One live table: its configuration and counted cell map. */
typedef struct Live
{
	DpkLiveConfig cfg;
	DpkCellMap	map;
	double	   *u;
	int64_t    *idx;
	int64_t    *rel;
} Live;

/* Non-private reference cost of points [start, start + len) of a mixture. */
static double
reference_cost(const MixData *mx, RefCache *cache, size_t start, size_t len,
			   uint64_t seed)
{
	int			d = mx->d,
				k = mx->k;
	double		cost_km;
	int			i;

	for (i = 0; i < cache->n; i++)
		if (cache->start[i] == start && cache->len[i] == len)
			return cache->cost[i];

	cost_km = reference_cost_of(mx->points + start * d, (int) len, d, k, mx->centers,
								mix_hash4(seed, start, len, TAG_KM));
	if (cache->n < MAX_REFS)
	{
		cache->start[cache->n] = start;
		cache->len[cache->n] = len;
		cache->cost[cache->n] = cost_km;
		cache->n++;
	}
	return cost_km;
}

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
	if (!isnan(opt->sum_share))
		lv->cfg.sum_share = opt->sum_share;
	if (!isnan(opt->threshold))
		lv->cfg.threshold_sigmas = opt->threshold;
	if (opt->restarts > 0)
		lv->cfg.restarts = opt->restarts;
	if (opt->max_iter > 0)
		lv->cfg.max_iter = opt->max_iter;
	lv->cfg.level = dpk_live_choose_level(&lv->cfg, (double) size_hint, MAX_CELLS);
	lv->cfg.level += opt->level_delta;
	if (lv->cfg.level < 0)
		lv->cfg.level = 0;
	if (lv->cfg.level > max_level(d))
		lv->cfg.level = max_level(d);
	dpk_cellmap_init(&lv->map, d);
	lv->u = malloc(sizeof(double) * d);
	lv->idx = malloc(sizeof(int64_t) * d);
	lv->rel = malloc(sizeof(int64_t) * d);
	if (!lv->u || !lv->idx || !lv->rel)
		abort();
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

/*
 * sum_i w_i min_j ||x_i - c_j||^2 with signed weights (dpk_kmeans_cost
 * skips non-positive weights; the release's score keeps them).
 */
static double
signed_score(const double *x, const double *w, size_t n, int d,
			 const double *centers, int k)
{
	int		   *assign = malloc(sizeof(int) * (n ? n : 1));
	double		score = 0.0;
	size_t		i;
	int			j;

	if (!assign)
		abort();
	dpk_kmeans_cost(x, NULL, (int) n, d, centers, k, assign);
	for (i = 0; i < n; i++)
	{
		double		dist = 0.0;

		for (j = 0; j < d; j++)
		{
			double		diff = x[i * d + j] - centers[(size_t) assign[i] * d + j];

			dist += diff * diff;
		}
		score += w[i] * dist;
	}
	free(assign);
	return score;
}

/*
 * Positions of every cell of the counted level for scoring candidates: its
 * centre, and its noisy in-cell mean shrunk as dpk_coreset_from_hist does
 * (the centre when its noisy count is not positive); weights = noisy counts.
 */
static void
cell_positions(const DpkLiveConfig *cfg, const DpkBox *box, const DpkDenseHist *fine,
			   uint32_t t, double *at_centre, double *at_mean, double *weight)
{
	int			d = fine->d;
	double		sum_var = dpk_live_sum_variance(cfg, cfg->level, t);
	int64_t    *idx = malloc(sizeof(int64_t) * d);
	double	   *u = malloc(sizeof(double) * d);
	uint64_t	c;
	int			j;

	if (!idx || !u)
		abort();
	for (c = 0; c < fine->ncells; c++)
	{
		double		cnt = (double) fine->count[c];

		dpk_grid_cell_coords(d, fine->m, c, idx);
		for (j = 0; j < d; j++)
			u[j] = ((double) idx[j] + 0.5) / fine->m;
		dpk_box_denormalize(box, u, at_centre + c * d);
		for (j = 0; j < d; j++)
		{
			double		rel = 0.5;

			if (fine->sum && cnt > 0.0)
			{
				double		scale = cnt * fine->units;
				double		mean = (double) fine->sum[c * d + j] / scale + 0.5 / fine->units;
				double		noise_var = sum_var / (scale * scale);
				double		lambda = (1.0 / 12.0) / (1.0 / 12.0 + noise_var);

				rel = 0.5 + lambda * (mean - 0.5);
				rel = rel < 0.0 ? 0.0 : (rel > 1.0 ? 1.0 : rel);
			}
			u[j] = ((double) idx[j] + rel) / fine->m;
		}
		dpk_box_denormalize(box, u, at_mean + c * d);
		weight[c] = cnt;
	}
	free(idx);
	free(u);
}

/*
 * The cost of release t finished at a fixed level (<= the counted one) the
 * way dpk_live_cluster finishes the level it chooses, for k' = K only.
 */
static double
fixed_level_cost(const Live *lv, const DpkBox *box, const DpkDenseHist *fine,
				 uint32_t t, uint64_t seed, int level, const double *cur,
				 size_t ncur, const double *at_centre, const double *at_mean,
				 const double *weight, double *proxy_centre, double *proxy_mean)
{
	const DpkLiveConfig *cfg = &lv->cfg;
	int			d = cfg->d,
				k = cfg->k;
	DpkDenseHist tmp;
	const DpkDenseHist *h = fine;
	DpkCoreset	cs;
	double	   *centers = malloc(sizeof(double) * k * d);
	double		cost;

	if (!centers)
		abort();
	if (level < cfg->level)
	{
		dpk_live_aggregate(fine, cfg->level, level, &tmp);
		h = &tmp;
	}
	dpk_coreset_from_hist(h, box,
						  dpk_coreset_threshold(sqrt(dpk_live_count_variance(cfg, level, t)),
												cfg->threshold_sigmas, (double) h->ncells),
						  dpk_live_sum_variance(cfg, level, t), &cs);
	if (cs.n > 0)
	{
		/* The candidate the release scores (seeded with seed), then its own. */
		dpk_kmeans(cs.points, cs.weights, cs.n, d, k, cfg->restarts, cfg->max_iter,
				   seed, centers, NULL);
		*proxy_centre = signed_score(at_centre, weight, fine->ncells, d, centers, k);
		*proxy_mean = signed_score(at_mean, weight, fine->ncells, d, centers, k);
		dpk_kmeans(cs.points, cs.weights, cs.n, d, k, cfg->restarts, cfg->max_iter,
				   seed + (uint64_t) k, centers, NULL);
	}
	else
	{
		int			i,
					j;

		for (i = 0; i < k; i++)
			for (j = 0; j < d; j++)
				centers[i * d + j] = 0.5 * (box->lower[j] + box->upper[j]);
		*proxy_centre = *proxy_mean = INFINITY;
	}
	cost = dpk_kmeans_cost(cur, NULL, (int) ncur, d, centers, k, NULL);
	dpk_coreset_free(&cs);
	if (h != fine)
		dpk_hist_free(&tmp);
	free(centers);
	return cost;
}

/*
 * Release t of a live table; returns the cost of its K centres on the
 * current points cur[0 .. ncur).  With scan != NULL, also the costs and
 * scores of the release finished at each fixed level L - NSCAN + 1 + i.
 */
static double
live_release(Live *lv, const DpkBox *box, const uint8_t key[DPK_KEY_BYTES],
			 uint32_t t, uint64_t seed, const double *cur, size_t ncur,
			 int *level_out, int *coreset_out, Scan *scan)
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
	dpk_live_cluster(&lv->cfg, box, &hist, t, seed, &rel);
	cost = dpk_kmeans_cost(cur, NULL, (int) ncur, d,
						   rel.centers + (size_t) dpk_live_block(k) * d, k, NULL);
	*level_out = rel.level;
	*coreset_out = rel.coreset_size;
	if (scan)
	{
		size_t		nc = hist.ncells;
		double	   *at_centre = malloc(sizeof(double) * nc * d);
		double	   *at_mean = malloc(sizeof(double) * nc * d);
		double	   *weight = malloc(sizeof(double) * nc);
		int			i;

		if (!at_centre || !at_mean || !weight)
			abort();
		cell_positions(&lv->cfg, box, &hist, t, at_centre, at_mean, weight);
		for (i = 0; i < NSCAN; i++)
		{
			int			level = lv->cfg.level - NSCAN + 1 + i;

			scan->proxy_centre[i] = scan->proxy_mean[i] = INFINITY;
			scan->cost[i] = level < 0 ? NAN
				: fixed_level_cost(lv, box, &hist, t, seed, level, cur, ncur,
								   at_centre, at_mean, weight,
								   &scan->proxy_centre[i], &scan->proxy_mean[i]);
		}
		free(at_centre);
		free(at_mean);
		free(weight);
	}
	dpk_live_release_free(&rel);
	dpk_hist_free(&hist);
	dpk_stream_close(&s);
	return cost;
}

/* One-shot release with budget eps on the current points. */
static double
oneshot_cost(const DpkBox *box, const double *cur, size_t ncur, int k, double eps,
			 uint64_t keyseed)
{
	DpkOneshotConfig cfg;
	DpkOneshotResult res;
	DpkStream	s = {0};
	double		cost;

	open_seed_stream(&s, keyseed);
	dpk_oneshot_defaults(&cfg, eps, k);
	dpk_oneshot_cluster(box, cur, ncur, &cfg, &s, &res);
	cost = dpk_kmeans_cost(cur, NULL, (int) ncur, box->d, res.centers, k, NULL);
	dpk_oneshot_result_free(&res);
	dpk_stream_close(&s);
	return cost;
}

/* The reported releases of a horizon, ascending and distinct. */
static int
reported(uint32_t T, uint32_t *ts)
{
	uint32_t	cand[NREP];
	int			n = 0,
				i;

	cand[0] = T / 8 ? T / 8 : 1;
	cand[1] = T / 2 ? T / 2 : 1;
	cand[2] = T > 1 ? T - 1 : 1;
	cand[3] = T;
	for (i = 0; i < NREP; i++)
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
acc_add(Acc *a, int seed, double live, double live_del, double os, double naive,
		int lcount, int lcount_del, int lrel, int coreset, double ms,
		const Scan *scan)
{
	if (a->nseeds == 0)
	{
		a->min_live = a->max_live = live;
		a->level_rel_lo = a->level_rel_hi = lrel;
	}
	a->min_live = fmin(a->min_live, live);
	a->max_live = fmax(a->max_live, live);
	if (lrel < a->level_rel_lo)
		a->level_rel_lo = lrel;
	if (lrel > a->level_rel_hi)
		a->level_rel_hi = lrel;
	if (seed == 0)
		a->level_rel0 = lrel;
	a->level_count = lcount;
	a->level_count_del = lcount_del;
	geo_add(&a->log_live, live);
	geo_add(&a->log_live_del, live_del);
	geo_add(&a->log_os, os);
	geo_add(&a->log_naive, naive);
	a->coreset += coreset;
	a->ms_live += ms;
	if (scan)
	{
		double		best = INFINITY,
					best_c = INFINITY,
					best_m = INFINITY;
		double		best_4 = INFINITY;
		int			i,
					best_i = -1,
					replay_i = NSCAN - 1,
					alt_i = NSCAN - 1,
					min4_i = NSCAN - 1;

		for (i = 0; i < NSCAN; i++)
			if (!isnan(scan->cost[i]))
			{
				a->log_fixed[i] += log(scan->cost[i]);
				if (scan->cost[i] < best)
				{
					best = scan->cost[i];
					best_i = i;
				}
			}
		/* the release's candidates: L-2 .. L, lowest score, first on ties */
		for (i = NSCAN - 3; i < NSCAN; i++)
		{
			if (isnan(scan->cost[i]))
				continue;
			if (scan->proxy_centre[i] < best_c)
			{
				best_c = scan->proxy_centre[i];
				replay_i = i;
			}
			if (scan->proxy_mean[i] < best_m)
			{
				best_m = scan->proxy_mean[i];
				alt_i = i;
			}
			if (lcount - NSCAN + 1 + i >= 2 && scan->proxy_centre[i] < best_4)
			{
				best_4 = scan->proxy_centre[i];
				min4_i = i;
			}
		}
		a->log_min4 += log(scan->cost[min4_i]);
		a->log_oracle += log(best);
		if (best_i >= 0 && lrel == lcount - NSCAN + 1 + best_i)
			a->oracle_hits++;
		if (lrel == lcount - NSCAN + 1 + replay_i)
			a->replay_hits++;
		a->log_alt += log(scan->cost[alt_i]);
		if (a->nseeds == 0 || lcount - NSCAN + 1 + alt_i < a->alt_lo)
			a->alt_lo = lcount - NSCAN + 1 + alt_i;
		if (a->nseeds == 0 || lcount - NSCAN + 1 + alt_i > a->alt_hi)
			a->alt_hi = lcount - NSCAN + 1 + alt_i;
	}
	a->nseeds++;
}

/*
 * Run one stream of one row and horizon on one dataset: step through all T
 * releases, computing the reported ones.
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
	uint32_t	nbatches = T;
	uint32_t	half = T / 2;
	uint32_t	ts[NREP];
	int			nrep = reported(T, ts),
				ri = 0;
	Live		lv,
				lv_del;
	uint8_t		key[DPK_KEY_BYTES];
	uint64_t	keyseed;
	uint32_t	t;

	keyseed = mix_hash4(TAG_LIVE ^ (((uint64_t) d << 32) | (uint64_t) k),
						double_bits(row->eps), ((uint64_t) T << 2) | (uint64_t) stream,
						(uint64_t) seed);
	dpk_key_from_seed(keyseed, key);
	live_init(&lv, d, k, row->eps, T, !window, N, opt);
	if (!window)
		live_init(&lv_del, d, k, row->eps, T, false, N, opt);

	for (t = 1; t <= T && ri < nrep; t++)
	{
		size_t		b0 = batch_end(t - 1, total, nbatches),
					b1 = batch_end(t, total, nbatches);
		size_t		cur0,
					cur1;

		live_apply(&lv, box, mx->points, b0, b1, +1);
		if (!window)
			live_apply(&lv_del, box, mx->points, b0, b1, +1);
		if (window && t > half)
			live_apply(&lv, box, mx->points, batch_end(t - half - 1, total, nbatches),
					   batch_end(t - half, total, nbatches), -1);
		if (t != ts[ri])
			continue;

		cur1 = b1;
		cur0 = window && t > half ? batch_end(t - half, total, nbatches) : 0;
		{
			const double *cur = mx->points + cur0 * d;
			size_t		ncur = cur1 - cur0;
			double		ref = reference_cost(mx, refs, cur0, ncur,
											 mix_hash4(TAG_REF, d, k, seed));
			uint64_t	cseed = mix_hash4(keyseed, t, 1, 2);
			double		t0 = now_ms(),
						ms;
			double		live,
						live_del,
						os,
						naive = 1.0;
			Scan		scan;
			int			i;
			int			level,
						level_del,
						coreset,
						coreset_del;

			live = live_release(&lv, box, key, t, cseed, cur, ncur, &level,
								&coreset, opt->level_scan ? &scan : NULL) / ref;
			if (opt->level_scan)
				for (i = 0; i < NSCAN; i++)
					scan.cost[i] /= ref;
			ms = now_ms() - t0;
			live_del = window ? live
				: live_release(&lv_del, box, key, t, cseed, cur, ncur, &level_del,
							   &coreset_del, NULL) / ref;
			os = oneshot_cost(box, cur, ncur, k, row->eps,
							  mix_hash4(keyseed ^ TAG_ONESHOT, t, 0, 0)) / ref;
			if (opt->naive)
				naive = oneshot_cost(box, cur, ncur, k, row->eps / T,
									 mix_hash4(keyseed ^ TAG_NAIVE, t, 0, 0)) / ref;
			row->acc[hi][stream][ri].t = t;
			row->acc[hi][stream][ri].ncur = ncur;
			acc_add(&row->acc[hi][stream][ri], seed, live, live_del, os, naive,
					lv.cfg.level, window ? lv.cfg.level : lv_del.cfg.level, level,
					coreset, ms, opt->level_scan ? &scan : NULL);
		}
		ri++;
	}
	live_free(&lv);
	if (!window)
		live_free(&lv_del);
}

static void
print_header(const Options *opt)
{
	DpkLiveConfig def;
	char		hs[128] = "";
	int			i;

	for (i = 0; i < opt->nhorizons; i++)
		snprintf(hs + strlen(hs), sizeof(hs) - strlen(hs), "%s%u", i ? "," : "",
				 opt->horizons[i]);
	dpk_live_defaults(&def, 2, 6, 1.0, 1024, false);
	if (!isnan(opt->sum_share))
		def.sum_share = opt->sum_share;
	if (!isnan(opt->threshold))
		def.threshold_sigmas = opt->threshold;
	if (opt->restarts > 0)
		def.restarts = opt->restarts;
	if (opt->max_iter > 0)
		def.max_iter = opt->max_iter;
	printf("# bench_continual: N=%zu seeds=%d horizons=%s box=[0,100]^d, mixture: "
		   "centres uniform, separation>=15, sd in [2,6]\n", opt->n, opt->seeds, hs);
	printf("# live config: sum_share=%g threshold_sigmas=%g restarts=%d max_iter=%d "
		   "level=choose_level(N)%+d (max cells %g)\n",
		   def.sum_share, def.threshold_sigmas, def.restarts, def.max_iter,
		   opt->level_delta, MAX_CELLS);
	printf("# insert: N points, T batches, insert_only=true (live_del: same stream, "
		   "insert_only=false); window: 2N points, T batches, window of N points "
		   "from t=T/2, insert_only=false\n");
	printf("# cost = k-means cost on the current true points / non-private reference; "
		   "geometric mean over seeds; oneshot = dp_kmeans at eps, naive = at eps/T\n");
	printf("# Lc = counted level (Lc_del for live_del), Lr = level release t picked "
		   "for seed 0 [range over seeds]; flags: R live/oneshot>1.3, N live>naive\n");
	printf("%-6s %5s %7s %2s %2s %4s %5s %7s | %8s %8s %8s %9s | %6s | %2s %6s %-7s | "
		   "%8s %8s | %7s %8s\n",
		   "stream", "T", "N", "d", "K", "eps", "t", "n_cur", "live", "live_del",
		   "oneshot", "naive", "live/os", "Lc", "Lc_del", "Lr", "live_min",
		   "live_max", "coreset", "live_ms");
	fflush(stdout);
}

static void
print_acc(const Row *row, uint32_t T, int stream, const Acc *a, const Options *opt)
{
	double		n = a->nseeds;
	double		live = geo_mean(a->log_live, n),
				live_del = geo_mean(a->log_live_del, n),
				os = geo_mean(a->log_os, n),
				naive = geo_mean(a->log_naive, n);
	char		lr[32],
				ld[16],
				lds[16],
				nv[16];

	if (a->level_rel_lo == a->level_rel_hi)
		snprintf(lr, sizeof(lr), "%d", a->level_rel0);
	else
		snprintf(lr, sizeof(lr), "%d[%d-%d]", a->level_rel0, a->level_rel_lo,
				 a->level_rel_hi);
	if (stream == STREAM_INSERT)
	{
		snprintf(ld, sizeof(ld), "%8.4f", live_del);
		snprintf(lds, sizeof(lds), "%d", a->level_count_del);
	}
	else
	{
		snprintf(ld, sizeof(ld), "%8s", "-");
		snprintf(lds, sizeof(lds), "-");
	}
	if (opt->naive)
		snprintf(nv, sizeof(nv), "%9.4f", naive);
	else
		snprintf(nv, sizeof(nv), "%9s", "-");
	printf("%-6s %5u %7zu %2d %2d %4.2f %5u %7zu | %8.4f %s %8.4f %s | %6.3f | "
		   "%2d %6s %-7s | %8.4f %8.4f | %7.0f %8.1f%s%s\n",
		   stream_name[stream], T, opt->n, row->d, row->k, row->eps, a->t, a->ncur,
		   live, ld, os, nv, live / os, a->level_count, lds, lr,
		   a->min_live, a->max_live, a->coreset / n, a->ms_live / n,
		   live / os > 1.3 ? "  R" : "",
		   opt->naive && live > naive ? "  N" : "");
	if (opt->level_scan)
	{
		int			i;

		printf("  scan  fixed level:");
		for (i = 0; i < NSCAN; i++)
		{
			int			level = a->level_count - NSCAN + 1 + i;

			if (level >= 0)
				printf("  L%d %8.4f", level, exp(a->log_fixed[i] / n));
		}
		printf("  | oracle %8.4f at it %d/%d | replay agrees %d/%d | "
			   "in-cell-mean score %8.4f L%d-%d | levels>=2 %8.4f\n",
			   exp(a->log_oracle / n), a->oracle_hits, a->nseeds,
			   a->replay_hits, a->nseeds, exp(a->log_alt / n), a->alt_lo, a->alt_hi,
			   exp(a->log_min4 / n));
	}
	fflush(stdout);
}

static void
usage(void)
{
	fprintf(stderr,
			"usage: bench_continual [--seeds N] [--n N] [--rows \"d:K:eps,...\"]\n"
			"       [--horizons \"64,1024\"] [--stream insert|window|both]\n"
			"       [--sum-share X] [--threshold X] [--restarts N] [--max-iter N]\n"
			"       [--level-delta N] [--no-naive] [--level-scan]\n");
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

		if (h < 2 || h > (1L << 30) || n >= MAX_HORIZONS)
		{
			fprintf(stderr, "bench_continual: bad horizon \"%s\"\n", tok);
			exit(2);
		}
		hs[n++] = (uint32_t) h;
	}
	free(copy);
	return n;
}

static int
default_rows(Row *rows)
{
	static const int ds[] = {2, 3, 5};
	static const double epss[] = {0.5, 1.0};
	int			a,
				c,
				nrows = 0;

	for (a = 0; a < 3; a++)
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
	bool		done[MAX_ROWS];
	int			i,
				r;
	double		t_start = now_ms();

	memset(rows, 0, sizeof(rows));
	opt.seeds = 5;
	opt.n = 100000;
	opt.streams[STREAM_INSERT] = opt.streams[STREAM_WINDOW] = true;
	opt.horizons[0] = 64;
	opt.horizons[1] = 1024;
	opt.nhorizons = 2;
	opt.naive = true;
	opt.level_scan = false;
	opt.sum_share = NAN;
	opt.threshold = NAN;
	opt.restarts = -1;
	opt.max_iter = -1;
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
			opt.nhorizons = parse_horizons(arg_value(argc, argv, &i), opt.horizons);
		else if (strcmp(a, "--stream") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			opt.streams[STREAM_INSERT] = strcmp(v, "insert") == 0 || strcmp(v, "both") == 0;
			opt.streams[STREAM_WINDOW] = strcmp(v, "window") == 0 || strcmp(v, "both") == 0;
			if (!opt.streams[STREAM_INSERT] && !opt.streams[STREAM_WINDOW])
				usage();
		}
		else if (strcmp(a, "--sum-share") == 0)
			opt.sum_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--threshold") == 0)
			opt.threshold = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--restarts") == 0)
			opt.restarts = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--max-iter") == 0)
			opt.max_iter = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--level-delta") == 0)
			opt.level_delta = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--no-naive") == 0)
			opt.naive = false;
		else if (strcmp(a, "--level-scan") == 0)
			opt.level_scan = true;
		else
			usage();
	}
	if (opt.seeds < 1 || opt.n < 16 || opt.n > 500000000 || opt.nhorizons < 1)
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

	dpk_blas_single_thread();
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
			double		lo[16],
						up[16];
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
		}

		for (st = 0; st < NSTREAMS; st++)
		{
			if (!opt.streams[st])
				continue;
			for (hi = 0; hi < opt.nhorizons; hi++)
				for (rr = r; rr < nrows; rr++)
				{
					uint32_t	ts[NREP];
					int			nrep = reported(opt.horizons[hi], ts),
								ri;

					if (done[rr] || rows[rr].d != rows[r].d || rows[rr].k != rows[r].k)
						continue;
					for (ri = 0; ri < nrep; ri++)
						print_acc(&rows[rr], opt.horizons[hi], st,
								  &rows[rr].acc[hi][st][ri], &opt);
				}
		}
		for (rr = r; rr < nrows; rr++)
			if (rows[rr].d == rows[r].d && rows[rr].k == rows[r].k)
				done[rr] = true;
	}

	printf("# total time %.1f s\n", (now_ms() - t_start) / 1e3);
	return 0;
}
