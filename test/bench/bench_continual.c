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
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "continual.h"
#include "coreset.h"
#include "counter.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "noise.h"

#include "mixture.h"

#define MAX_ROWS 64
#define MAX_HORIZONS 8
#define NREP 4					/* reported releases per horizon */
#define MAX_CELLS 4194304.0
#define MAX_REFS 64

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
} Acc;

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

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t
double_bits(double x)
{
	uint64_t	b;

	memcpy(&b, &x, sizeof(b));
	return b;
}

/*
 * Lloyd from given centres (k*d, updated in place) until the assignment is
 * stable or max_iter updates; an empty cluster keeps its centre.  Returns
 * the cost of the final centres.
 */
static double
lloyd_from(const double *x, int n, int d, int k, double *c, int max_iter)
{
	int		   *assign = malloc(sizeof(int) * n);
	int		   *prev = malloc(sizeof(int) * n);
	double	   *sums = malloc(sizeof(double) * k * d);
	double	   *cnt = malloc(sizeof(double) * k);
	double		cost = 0.0;
	int			it,
				i,
				j,
				t;

	if (!assign || !prev || !sums || !cnt)
		abort();
	for (i = 0; i < n; i++)
		prev[i] = -1;
	for (it = 0;; it++)
	{
		int			changed = 0;

		cost = dpk_kmeans_cost(x, NULL, n, d, c, k, assign);
		for (i = 0; i < n && !changed; i++)
			if (assign[i] != prev[i])
				changed = 1;
		if (!changed || it >= max_iter)
			break;
		memcpy(prev, assign, sizeof(int) * n);
		memset(sums, 0, sizeof(double) * k * d);
		memset(cnt, 0, sizeof(double) * k);
		for (i = 0; i < n; i++)
		{
			j = assign[i];
			cnt[j] += 1.0;
			for (t = 0; t < d; t++)
				sums[j * d + t] += x[(size_t) i * d + t];
		}
		for (j = 0; j < k; j++)
			if (cnt[j] > 0.0)
				for (t = 0; t < d; t++)
					c[j * d + t] = sums[j * d + t] / cnt[j];
	}
	free(assign);
	free(prev);
	free(sums);
	free(cnt);
	return cost;
}

/* Non-private reference cost of points [start, start + len) of a mixture. */
static double
reference_cost(const MixData *mx, RefCache *cache, size_t start, size_t len,
			   uint64_t seed)
{
	int			d = mx->d,
				k = mx->k;
	const double *x = mx->points + start * d;
	double	   *c;
	double		cost_km,
				cost_true;
	int			i;

	for (i = 0; i < cache->n; i++)
		if (cache->start[i] == start && cache->len[i] == len)
			return cache->cost[i];

	c = malloc(sizeof(double) * k * d);
	if (!c)
		abort();
	cost_km = dpk_kmeans(x, NULL, (int) len, d, k, 10, 300,
						 mix_hash4(seed, start, len, TAG_KM), c, NULL);
	memcpy(c, mx->centers, sizeof(double) * k * d);
	cost_true = lloyd_from(x, (int) len, d, k, c, 300);
	free(c);
	if (cost_true < cost_km)
		cost_km = cost_true;
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
 * Release t of a live table; returns the cost of its K centres on the
 * current points cur[0 .. ncur).
 */
static double
live_release(Live *lv, const DpkBox *box, const uint8_t key[DPK_KEY_BYTES],
			 uint32_t t, uint64_t seed, const double *cur, size_t ncur,
			 int *level_out, int *coreset_out)
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
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	double		cost;

	dpk_key_from_seed(keyseed, key);
	if (!dpk_stream_open(&s, key, nonce))
	{
		fprintf(stderr, "bench_continual: cannot open noise stream\n");
		exit(1);
	}
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
		int lcount, int lcount_del, int lrel, int coreset, double ms)
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
	a->log_live += log(live);
	a->log_live_del += log(live_del);
	a->log_os += log(os);
	a->log_naive += log(naive);
	a->coreset += coreset;
	a->ms_live += ms;
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
			int			level,
						level_del,
						coreset,
						coreset_del;

			live = live_release(&lv, box, key, t, cseed, cur, ncur, &level,
								&coreset) / ref;
			ms = now_ms() - t0;
			live_del = window ? live
				: live_release(&lv_del, box, key, t, cseed, cur, ncur, &level_del,
							   &coreset_del) / ref;
			os = oneshot_cost(box, cur, ncur, k, row->eps,
							  mix_hash4(keyseed ^ TAG_ONESHOT, t, 0, 0)) / ref;
			if (opt->naive)
				naive = oneshot_cost(box, cur, ncur, k, row->eps / T,
									 mix_hash4(keyseed ^ TAG_NAIVE, t, 0, 0)) / ref;
			row->acc[hi][stream][ri].t = t;
			row->acc[hi][stream][ri].ncur = ncur;
			acc_add(&row->acc[hi][stream][ri], seed, live, live_del, os, naive,
					lv.cfg.level, window ? lv.cfg.level : lv_del.cfg.level, level,
					coreset, ms);
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
	double		live = exp(a->log_live / n),
				live_del = exp(a->log_live_del / n),
				os = exp(a->log_os / n),
				naive = exp(a->log_naive / n);
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
	fflush(stdout);
}

static void
usage(void)
{
	fprintf(stderr,
			"usage: bench_continual [--seeds N] [--n N] [--rows \"d:K:eps,...\"]\n"
			"       [--horizons \"64,1024\"] [--stream insert|window|both]\n"
			"       [--sum-share X] [--threshold X] [--restarts N] [--max-iter N]\n"
			"       [--level-delta N] [--no-naive]\n");
	exit(2);
}

static int
parse_rows(const char *spec, Row *rows)
{
	char	   *copy = strdup(spec);
	char	   *tok,
			   *save = NULL;
	int			nrows = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		int			d,
					k;
		double		eps;

		if (sscanf(tok, "%d:%d:%lf", &d, &k, &eps) != 3 || d < 1 || d > 16 ||
			k < 1 || !(eps > 0.0) || nrows >= MAX_ROWS)
		{
			fprintf(stderr, "bench_continual: bad row \"%s\"\n", tok);
			exit(2);
		}
		rows[nrows].d = d;
		rows[nrows].k = k;
		rows[nrows].eps = eps;
		nrows++;
	}
	free(copy);
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

static const char *
arg_value(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		usage();
	return argv[++*i];
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
