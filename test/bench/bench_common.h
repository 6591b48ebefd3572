/*
 * bench_common.h
 *		Helpers shared by the accuracy benchmarks in test/bench.
 *
 * Timing, allocation, the non-private reference cost (the lower of k-means
 * with restarts and Lloyd started from the generating centres), the
 * reference-cost cache file, geometric means over seeds, noise streams keyed
 * by a configuration row and the command-line bits every benchmark parses
 * the same way.
 *
 * Every function is static inline, so a program that does not use one gets
 * no warning.  The including program defines BENCH_PROG (its name, used in
 * error messages) and a function "static void usage(void)" that prints its
 * usage and exits.
 */
#ifndef DPK_BENCH_COMMON_H
#define DPK_BENCH_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coreset.h"
#include "counter.h"
#include "grid.h"
#include "kmeans.h"
#include "lift.h"
#include "noise.h"
#include "rugnik.h"

#include "mixture.h"

#ifndef BENCH_PROG
#error "define BENCH_PROG before including bench_common.h"
#endif

/*
 * Reference-cost cache tags.  Bump a tag whenever the mixture or the
 * reference computation changes.
 *	 REF_TAG_WHOLE  lines "mix1 d K n seed cost": the whole dataset
 *					(bench_oneshot, bench_highd share them);
 *	 REF_TAG_RANGE  lines "mixr1 d K start len seed cost": points
 *					[start, start + len) of the mixture of (d, K, seed).
 */
#define REF_TAG_WHOLE "mix1"
#define REF_TAG_RANGE "mixr1"

static void usage(void);

/* Monotonic wall time in milliseconds. */
static inline double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The bit pattern of a double, for mixing it into seeds and keys. */
static inline uint64_t
double_bits(double x)
{
	uint64_t	b;

	memcpy(&b, &x, sizeof(b));
	return b;
}

/* malloc that never returns NULL (n = 0 allocates one byte). */
static inline void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (!p)
	{
		fprintf(stderr, BENCH_PROG ": out of memory\n");
		exit(1);
	}
	return p;
}

/*
 * Lloyd from given centres (k*d, updated in place) until the assignment is
 * stable or max_iter updates; an empty cluster keeps its centre.  Returns
 * the cost of the final centres.
 */
static inline double
lloyd_from(const double *x, int n, int d, int k, double *c, int max_iter)
{
	int		   *assign = xmalloc(sizeof(int) * n);
	int		   *prev = xmalloc(sizeof(int) * n);
	double	   *sums = xmalloc(sizeof(double) * k * d);
	double	   *cnt = xmalloc(sizeof(double) * k);
	double		cost = 0.0;
	int			it,
				i,
				j,
				t;

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

/*
 * Non-private reference cost of the n points x for k centres: the lower of
 * dpk_kmeans (10 restarts, 300 iterations, seeded with seed) and Lloyd
 * started from the generating centres gen (k*d, not modified; NULL: none).
 */
static inline double
reference_cost_of(const double *x, int n, int d, int k, const double *gen,
				  uint64_t seed)
{
	double	   *c = xmalloc(sizeof(double) * k * d);
	double		cost_km,
				cost_true;

	cost_km = dpk_kmeans(&(DpkPoints) {x, NULL, n, d},
						 &(DpkClusterOpts) {k, 10, 300, seed},
						 &(DpkClusterOut) {c, NULL});
	if (gen == NULL)
	{
		free(c);
		return cost_km;
	}
	memcpy(c, gen, sizeof(double) * k * d);
	cost_true = lloyd_from(x, n, d, k, c, 300);
	free(c);
	return cost_km < cost_true ? cost_km : cost_true;
}

/*
 * Look up a reference cost in the cache file path (NULL: no cache).  With
 * ranged, lines are "tag d K start len seed cost", else "tag d K len seed
 * cost" (start ignored).  Returns whether a positive cost was found.
 */
static inline bool
ref_cache_lookup(const char *path, const char *tag, bool ranged, int d, int k,
				 size_t start, size_t len, int seed, double *cost)
{
	FILE	   *f;
	char		line[256];
	bool		found = false;

	if (path == NULL || (f = fopen(path, "r")) == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f))
	{
		char		ftag[16];
		int			fd,
					fk,
					fs;
		unsigned long long fst = 0,
					fl;
		double		c;
		bool		ok;

		if (ranged)
			ok = sscanf(line, "%15s %d %d %llu %llu %d %lf", ftag, &fd, &fk, &fst, &fl,
						&fs, &c) == 7;
		else
			ok = sscanf(line, "%15s %d %d %llu %d %lf", ftag, &fd, &fk, &fl, &fs,
						&c) == 6;
		if (ok && strcmp(ftag, tag) == 0 && fd == d && fk == k &&
			(!ranged || fst == (unsigned long long) start) &&
			fl == (unsigned long long) len && fs == seed && c > 0.0)
		{
			*cost = c;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* Append a reference cost to the cache file path (NULL: no cache). */
static inline void
ref_cache_store(const char *path, const char *tag, bool ranged, int d, int k,
				size_t start, size_t len, int seed, double cost)
{
	FILE	   *f;

	if (path == NULL || (f = fopen(path, "a")) == NULL)
		return;
	if (ranged)
		fprintf(f, "%s %d %d %llu %llu %d %.17g\n", tag, d, k,
				(unsigned long long) start, (unsigned long long) len, seed, cost);
	else
		fprintf(f, "%s %d %d %llu %d %.17g\n", tag, d, k,
				(unsigned long long) len, seed, cost);
	fclose(f);
}

/* Accumulate v into a sum of logs, for geo_mean. */
static inline void
geo_add(double *sum_log, double v)
{
	*sum_log += log(v);
}

/* Geometric mean of n values whose logs sum to sum_log. */
static inline double
geo_mean(double sum_log, double n)
{
	return exp(sum_log / n);
}

/*
 * Open a noise stream on dpk_key_from_seed(keyseed) with a zero nonce;
 * exits when it cannot.
 */
static inline void
open_seed_stream(DpkStream *s, uint64_t keyseed)
{
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};

	dpk_key_from_seed(keyseed, key);
	if (!dpk_stream_open(s, key, nonce))
	{
		fprintf(stderr, BENCH_PROG ": cannot open noise stream\n");
		exit(1);
	}
}

/*
 * Open a noise stream (zero nonce) on a key derived from a configuration row
 * (d, K, eps), a seed and a method tag; exits when it cannot.
 */
static inline void
open_row_stream(DpkStream *s, int d, int k, double eps, int seed, int method)
{
	open_seed_stream(s, mix_hash4(((uint64_t) d << 32) | (uint64_t) k,
								  double_bits(eps), (uint64_t) seed, (uint64_t) method));
}

/* One "d:K:eps" entry of a --rows list. */
typedef struct RowSpec
{
	int			d;
	int			k;
	double		eps;
} RowSpec;

/*
 * Parse a --rows list "d:K:eps,..." into out (at most max entries); exits
 * with "bad row" (followed by note) on an entry with d outside
 * [dmin, dmax], K < 1, eps <= 0 or past max.  Returns the entry count.
 */
static inline int
parse_row_specs(const char *spec, int dmin, int dmax, RowSpec *out, int max,
				const char *note)
{
	char	   *copy = strdup(spec);
	char	   *tok,
			   *save = NULL;
	int			n = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		int			d,
					k;
		double		eps;

		if (sscanf(tok, "%d:%d:%lf", &d, &k, &eps) != 3 || d < dmin || d > dmax ||
			k < 1 || !(eps > 0.0) || n >= max)
		{
			fprintf(stderr, BENCH_PROG ": bad row \"%s\"%s\n", tok, note);
			exit(2);
		}
		out[n].d = d;
		out[n].k = k;
		out[n].eps = eps;
		n++;
	}
	free(copy);
	return n;
}

/*
 * --delta X of every benchmark: 0 (pure epsilon, the default) or the delta of
 * approximate DP, which switches every configuration to discrete Gaussian
 * noise through its dpk_*_use_delta (before the command-line overrides).
 */
static double bench_delta = 0.0;

/* The value of option argv[*i] (advancing *i); usage() when it is missing. */
static inline const char *
arg_value(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		usage();
	return argv[++*i];
}

/*
 * Plain grid baseline at a grid rule's size (RUGNIK or EUGkM, at the true
 * N): counts only, Laplace(1/eps) on every cell, negative counts clipped,
 * every positive cell at its centre, weighted k-means with `restarts`
 * restarts (the same as the methods it is compared with).  Returns its
 * k-means cost on the data.
 */
static inline double
bench_plain_grid(const MixData *mx, const DpkBox *box, double eps, int seed,
				 DpkGridRule rule, int method, int restarts, int *m_out)
{
	int			d = mx->d,
				k = mx->k;
	double		n = (double) mx->n;
	int			max_per_dim = (int) floor(pow(4194304.0, 1.0 / d) + 1e-9);
	double		m = dpk_grid_m(rule, n, eps, k, d);
	int			cells = dpk_grid_cells_per_dim(rule, m, n, eps, k, d,
											   max_per_dim);
	DpkDenseHist h;
	DpkCoreset	cs;
	DpkStream	s = {0};
	DpkScale	zero = {1, 1};
	double	   *u = xmalloc(sizeof(double) * d);
	double	   *c = xmalloc(sizeof(double) * k * d);
	double		cost;
	uint64_t	cell;
	size_t		i;

	*m_out = cells;
	open_row_stream(&s, mx->d, mx->k, eps, seed, method);
	dpk_hist_init(&h, d, cells, false);
	for (i = 0; i < mx->n; i++)
	{
		dpk_box_normalize(box, mx->points + i * d, u);
		dpk_hist_add(&h, u);
	}
	dpk_hist_add_noise(&h, &s, dpk_scale_from_double(1.0 / eps), zero);
	for (cell = 0; cell < h.ncells; cell++)
		if (h.count[cell] < 0)
			h.count[cell] = 0;
	dpk_coreset_from_hist(&h, box, 0.0, 0.0, &cs);
	dpk_hist_free(&h);
	if (cs.n > 0)
		dpk_kmeans(&(DpkPoints) {cs.points, cs.weights, cs.n, d},
				   &(DpkClusterOpts) {k, restarts, 100, dpk_stream_u64(&s)},
				   &(DpkClusterOut) {c, NULL});
	else
	{
		int			j,
					t;

		for (j = 0; j < k; j++)
			for (t = 0; t < d; t++)
				c[j * d + t] = 0.5 * (box->lower[t] + box->upper[t]);
	}
	cost = dpk_kmeans_cost(mx->points, NULL, (int) mx->n, d, c, k, NULL);
	dpk_coreset_free(&cs);
	dpk_stream_close(&s);
	free(u);
	free(c);
	return cost;
}

/*
 * Seeds.  The defaults were tuned on data seeds 0-9, so the tables report
 * seeds from BENCH_SEED_BASE on (--seed-base), disjoint from them.
 */
#define BENCH_SEED_BASE 100

/*
 * Every method of a benchmark runs weighted k-means with the same number of
 * restarts (--restarts): the live mode's default, 10 (dp_kmeans ships 20,
 * the high-d one-shot 5).
 */
#define BENCH_RESTARTS 10

/* ---- releases measured: every t >= T/4, or a sample of them ---- */

/*
 * Nodes of release t: the signed tree decomposition (counter.h), or with
 * --delta the plain binary one of Gaussian tables.
 */
static inline int
bench_nodes(uint32_t t)
{
	return bench_delta > 0.0 ? __builtin_popcount(t) : dpk_tree_nodes(t);
}

#define BENCH_MAX_NODES 34

/*
 * The releases a horizon reports, with the weight each gets in the means.
 * all: every t in [ceil(T/4), T], weight 1.  sample: every release of that
 * range whose node count is the range's largest (the noisiest releases),
 * every `stride`-th release from ceil(T/4) on (an odd stride, so that the
 * low bits of t vary), T itself and, for any node count still missing, its
 * first release; each gets weight P_w / S_w (w its node count, P_w the
 * releases of the range with w nodes, S_w those in the sample), so a mean
 * over the sample weighs every node count by its share of all releases.
 * ts and w need room for T entries; returns the count, ascending.
 */
static inline int
bench_release_list(uint32_t T, bool all, uint32_t stride, uint32_t *ts, double *w)
{
	uint32_t	lo = (T + 3) / 4,
				t;
	int			n = 0,
				maxw = 0,
				i;
	long		pop[BENCH_MAX_NODES + 1],
				smp[BENCH_MAX_NODES + 1];

	if (lo < 1)
		lo = 1;
	memset(pop, 0, sizeof(pop));
	memset(smp, 0, sizeof(smp));
	for (t = lo; t <= T; t++)
	{
		int			nw = bench_nodes(t);

		pop[nw]++;
		if (nw > maxw)
			maxw = nw;
	}
	for (t = lo; t <= T; t++)
	{
		int			nw = bench_nodes(t);
		bool		take = all || nw == maxw || t == T || (t - lo) % stride == 0;

		if (!take && smp[nw] == 0 && pop[nw] > 0)
		{
			/* the first release of a node count the grid would miss */
			uint32_t	u;
			bool		later = false;

			for (u = t + 1; u <= T && !later; u++)
				later = bench_nodes(u) == nw && (u == T || (u - lo) % stride == 0);
			take = !later;
		}
		if (take)
		{
			ts[n++] = t;
			smp[nw]++;
		}
	}
	for (i = 0; i < n; i++)
	{
		int			nw = bench_nodes(ts[i]);

		w[i] = (double) pop[nw] / (double) smp[nw];
	}
	return n;
}

/*
 * Figures of one method over the releases and seeds of one configuration:
 * the weighted geometric mean over every (release, seed), the worst release
 * (largest geometric mean over seeds at one t) and the worst single run.
 */
typedef struct BenchFig
{
	int			nrel;
	double	   *log_at;			/* nrel: sum over seeds of log(value) */
	int		   *n_at;			/* nrel: seeds seen */
	double		max_single;
	uint32_t	max_single_t;
	int			max_single_seed;
} BenchFig;

static inline void
bench_fig_init(BenchFig *f, int nrel)
{
	f->nrel = nrel;
	f->log_at = xmalloc(sizeof(double) * nrel);
	f->n_at = xmalloc(sizeof(int) * nrel);
	memset(f->log_at, 0, sizeof(double) * nrel);
	memset(f->n_at, 0, sizeof(int) * nrel);
	f->max_single = -INFINITY;
	f->max_single_t = 0;
	f->max_single_seed = -1;
}

static inline void
bench_fig_free(BenchFig *f)
{
	free(f->log_at);
	free(f->n_at);
}

/* One value (> 0) of release index i, release t, seed. */
static inline void
bench_fig_add(BenchFig *f, int i, uint32_t t, int seed, double v)
{
	f->log_at[i] += log(v);
	f->n_at[i]++;
	if (v > f->max_single)
	{
		f->max_single = v;
		f->max_single_t = t;
		f->max_single_seed = seed;
	}
}

/* Weighted geometric mean over every (release, seed) seen. */
static inline double
bench_fig_mean(const BenchFig *f, const double *w)
{
	double		s = 0.0,
				n = 0.0;
	int			i;

	for (i = 0; i < f->nrel; i++)
		if (f->n_at[i] > 0)
		{
			s += w[i] * f->log_at[i];
			n += w[i] * f->n_at[i];
		}
	return n > 0.0 ? exp(s / n) : NAN;
}

/* The worst release: largest geometric mean over seeds; *at gets its index. */
static inline double
bench_fig_worst(const BenchFig *f, int *at)
{
	double		best = -INFINITY;
	int			i;

	*at = -1;
	for (i = 0; i < f->nrel; i++)
		if (f->n_at[i] > 0 && f->log_at[i] / f->n_at[i] > best)
		{
			best = f->log_at[i] / f->n_at[i];
			*at = i;
		}
	return *at >= 0 ? exp(best) : NAN;
}

/* Weighted geometric mean over the releases with `nodes` tree nodes. */
static inline double
bench_fig_mean_nodes(const BenchFig *f, const double *w, const uint32_t *ts, int nodes)
{
	double		s = 0.0,
				n = 0.0;
	int			i;

	for (i = 0; i < f->nrel; i++)
		if (f->n_at[i] > 0 && bench_nodes(ts[i]) == nodes)
		{
			s += w[i] * f->log_at[i];
			n += w[i] * f->n_at[i];
		}
	return n > 0.0 ? exp(s / n) : NAN;
}

/* End of batch t (1-based) of nbatches over total rows: batch t is [end(t-1), end(t)). */
static inline size_t
bench_batch_end(uint32_t t, size_t total, uint32_t nbatches)
{
	return (size_t) ((unsigned __int128) total * t / nbatches);
}

/*
 * Whether horizon T measures every release t >= T/4: releases 1 = all,
 * 2 = a sample, 0 = all up to T = 256, a sample beyond.
 */
static inline bool
bench_measure_all(int releases, uint32_t T)
{
	return releases == 1 || (releases == 0 && T <= 256);
}

/* The value of --releases: auto 0, all 1, sample 2; -1 for anything else. */
static inline int
bench_parse_releases(const char *v)
{
	if (strcmp(v, "auto") == 0)
		return 0;
	if (strcmp(v, "all") == 0)
		return 1;
	if (strcmp(v, "sample") == 0)
		return 2;
	return -1;
}

/* The sample's stride: the given one, or the odd number nearest T/64. */
static inline uint32_t
bench_sample_stride(uint32_t stride, uint32_t T)
{
	uint32_t	s = stride ? stride : (T + 32) / 64;

	if (stride == 0 && s % 2 == 0)
		s--;
	return s < 1 ? 1 : s;
}

/* Print the per-node-count means of live/one-shot and of live, one line. */
static inline void
bench_print_by_nodes(const BenchFig *ratio, const BenchFig *live, const double *w,
					 const uint32_t *ts)
{
	int			k,
				nd;

	for (k = 0; k < 2; k++)
	{
		printf(k == 0 ? "    live/os by nodes:" : "   live by nodes:");
		for (nd = 1; nd <= BENCH_MAX_NODES; nd++)
		{
			double		m = bench_fig_mean_nodes(k == 0 ? ratio : live, w, ts, nd);

			if (!isnan(m))
				printf("  %d: %.3f", nd, m);
		}
	}
	printf("\n");
}

/* ---- the non-private reference along a stream ---- */

/*
 * Reference costs of consecutive releases of one stream: the current
 * points change by a batch per release, so Lloyd warm-started from the
 * previous reference's centres finds the optimum again in a few steps.
 * Every `full_every`-th call (and the first) also runs dpk_kmeans with 10
 * restarts and, when generating centres are known, Lloyd from them; the
 * lowest cost wins and its centres seed the next call.
 */
typedef struct BenchRef
{
	int			d;
	int			k;
	double	   *centers;		/* k * d, valid when calls > 0 */
	double	   *scratch;
	int			calls;
	int			full_every;
} BenchRef;

static inline void
bench_ref_init(BenchRef *r, int d, int k, int full_every)
{
	r->d = d;
	r->k = k;
	r->centers = xmalloc(sizeof(double) * k * d);
	r->scratch = xmalloc(sizeof(double) * k * d);
	r->calls = 0;
	r->full_every = full_every < 1 ? 1 : full_every;
}

static inline void
bench_ref_free(BenchRef *r)
{
	free(r->centers);
	free(r->scratch);
}

/* The reference cost of the n points x (gen: generating centres or NULL). */
static inline double
bench_ref_cost(BenchRef *r, const double *x, size_t n, const double *gen, uint64_t seed)
{
	int			d = r->d,
				k = r->k;
	size_t		kd = (size_t) k * d;
	double		best = INFINITY,
				c;

	if (r->calls > 0)
		best = lloyd_from(x, (int) n, d, k, r->centers, 300);
	if (r->calls % r->full_every == 0)
	{
		dpk_kmeans(&(DpkPoints) {x, NULL, (int) n, d},
				   &(DpkClusterOpts) {k, 10, 300, seed},
				   &(DpkClusterOut) {r->scratch, NULL});
		c = lloyd_from(x, (int) n, d, k, r->scratch, 300);
		if (c < best)
		{
			best = c;
			memcpy(r->centers, r->scratch, sizeof(double) * kd);
		}
		if (gen)
		{
			memcpy(r->scratch, gen, sizeof(double) * kd);
			c = lloyd_from(x, (int) n, d, k, r->scratch, 300);
			if (c < best)
			{
				best = c;
				memcpy(r->centers, r->scratch, sizeof(double) * kd);
			}
		}
	}
	r->calls++;
	return best;
}

/* ---- real data ---- */

/*
 * Read a CSV of numbers (gzip when the name ends in .gz, through
 * "gzip -dc"): for every line with at least `need` comma-separated fields,
 * the fields cols[0..d-1] (0-based; negative: counted from the end of the
 * line) parsed as numbers; lines where one does not parse (a header) are
 * skipped.  Returns the row count; *out gets n * d values.
 */
static inline size_t
bench_read_csv(const char *path, int d, const int *cols, double **out)
{
	size_t		len = strlen(path);
	bool		gz = len > 3 && strcmp(path + len - 3, ".gz") == 0;
	FILE	   *f;
	char	   *line = NULL;
	size_t		cap = 0,
				n = 0,
				alloc = 1024;
	double	   *x = xmalloc(sizeof(double) * alloc * d);
	char	  **field = NULL;
	size_t		fcap = 0;

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
				fprintf(stderr, BENCH_PROG ": quote in path %s\n", path);
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
	if (!f)
	{
		fprintf(stderr, BENCH_PROG ": cannot read %s\n", path);
		exit(2);
	}
	while (getline(&line, &cap, f) > 0)
	{
		size_t		nf = 0;
		char	   *p = line;
		bool		ok = true;
		int			j;

		/* split on commas in place */
		for (;;)
		{
			if (nf == fcap)
			{
				fcap = fcap ? 2 * fcap : 64;
				field = realloc(field, sizeof(char *) * fcap);
				if (!field)
					abort();
			}
			field[nf++] = p;
			p = strchr(p, ',');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (n == alloc)
		{
			alloc *= 2;
			x = realloc(x, sizeof(double) * alloc * d);
			if (!x)
				abort();
		}
		for (j = 0; j < d && ok; j++)
		{
			long		c = cols[j] >= 0 ? cols[j] : (long) nf + cols[j];
			char	   *end;

			if (c < 0 || (size_t) c >= nf)
			{
				ok = false;
				break;
			}
			x[n * d + j] = strtod(field[c], &end);
			while (*end == ' ' || *end == '\r' || *end == '\n' || *end == '"')
				end++;
			if (end == field[c] || *end != '\0' || !isfinite(x[n * d + j]))
				ok = false;
		}
		if (ok)
			n++;
	}
	free(line);
	free(field);
	if (gz)
	{
		if (pclose(f) != 0)
		{
			fprintf(stderr, BENCH_PROG ": gzip -dc %s failed\n", path);
			exit(2);
		}
	}
	else
		fclose(f);
	*out = x;
	return n;
}

/* A seeded random order of rows (Fisher-Yates on n rows of d values). */
static inline void
bench_shuffle_rows(double *x, size_t n, int d, uint64_t seed)
{
	MixRng		rng;
	double	   *tmp = xmalloc(sizeof(double) * d);
	size_t		i;

	mix_rng_seed(&rng, seed);
	for (i = n; i > 1; i--)
	{
		size_t		r = (size_t) (mix_rng_uniform(&rng) * (double) i);

		if (r >= i)
			r = i - 1;
		memcpy(tmp, x + (i - 1) * d, sizeof(double) * d);
		memcpy(x + (i - 1) * d, x + r * d, sizeof(double) * d);
		memcpy(x + r * d, tmp, sizeof(double) * d);
	}
	free(tmp);
}

/*
 * One centre at the noisy mean of the current points with budget eps: the
 * one-shot split of dpk_highd_defaults' lifting (a share 1 / (1 + d^(2/3))
 * on the count, the rest on the sum), one noisy count (Laplace,
 * sensitivity 1) and one noisy sum of the centred fixed-point coordinates
 * (cube noise, U / 2 per coordinate).  What a release must never be worse
 * than (issues 15 and 48).
 */
static inline double
mean_cost(const DpkBox *box, const double *cur, size_t ncur, double eps, uint64_t keyseed)
{
	int			d = box->d,
				j;
	double		cshare = 1.0 / (1.0 + pow((double) d, 2.0 / 3.0));
	DpkNoise	cn = dpk_noise_laplace(dpk_scale_from_double(1.0 / (cshare * eps))),
				sn = dpk_noise_laplace(dpk_scale_from_double(DPK_LIFT_UNITS / 2.0 /
															 ((1.0 - cshare) * eps)));
	int64_t    *q = xmalloc(sizeof(int64_t) * d),
			   *tot = calloc(d, sizeof(int64_t));
	double	   *u = xmalloc(sizeof(double) * d),
			   *c = xmalloc(sizeof(double) * d),
				cnt,
				cost;
	DpkStream	s = {0};
	size_t		i;

	open_seed_stream(&s, keyseed);
	for (i = 0; i < ncur; i++)
	{
		dpk_box_normalize(box, cur + i * d, u);
		dpk_lift_quantize(d, u, q);
		for (j = 0; j < d; j++)
			tot[j] += q[j];
	}
	cnt = (double) ncur + (double) dpk_noise_draw(&s, &cn);
	dpk_noise_add_vector(&s, &sn, d, 1, tot);
	for (j = 0; j < d; j++)
		u[j] = cnt >= 1.0 ? fmin(1.0, fmax(0.0, 0.5 + tot[j] / (DPK_LIFT_UNITS * cnt))) : 0.5;
	dpk_box_denormalize(box, u, c);
	cost = dpk_kmeans_cost(cur, NULL, (int) ncur, d, c, 1, NULL);
	dpk_stream_close(&s);
	free(q);
	free(tot);
	free(u);
	free(c);
	return cost;
}

#endif							/* DPK_BENCH_COMMON_H */
