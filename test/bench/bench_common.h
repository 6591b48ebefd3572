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
#include "grid.h"
#include "kmeans.h"
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
 * started from the generating centres gen (k*d, not modified).
 */
static inline double
reference_cost_of(const double *x, int n, int d, int k, const double *gen,
				  uint64_t seed)
{
	double	   *c = xmalloc(sizeof(double) * k * d);
	double		cost_km,
				cost_true;

	cost_km = dpk_kmeans(x, NULL, n, d, k, 10, 300, seed, c, NULL);
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
 * every positive cell at its centre.  Returns its k-means cost on the data.
 */
static inline double
bench_plain_grid(const MixData *mx, const DpkBox *box, double eps, int seed,
				 DpkGridRule rule, int method, int *m_out)
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
		dpk_kmeans(cs.points, cs.weights, cs.n, d, k, 5, 100,
				   dpk_stream_u64(&s), c, NULL);
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

#endif							/* DPK_BENCH_COMMON_H */
