/*
 * bench_kmedian.c
 *		Accuracy of objective 'kmedian': one-shot (dpk_lowd_cluster) and live
 *		releases (dpk_live_cluster + dpk_live_kmedian), against a non-private
 *		k-median reference of this file's own.
 *
 * Data (d = 2, box [0,100]^2): the skewed mixtures of mixture.h
 * (mix_skewed_spec: Zipf cluster sizes, log-normal scales, Student-t(3)
 * coordinates) at each --n; with --airports PATH also the real table of US
 * airports (bench_continual.c describes it; box [-180,-60] x [5,75]).
 *
 * Accuracy of centres C on points X: sum_x min_c ||x - c|| divided by the
 * reference's.  The reference is alternating assignment and geometric
 * medians (plain Weiszfeld to convergence, written here apart from
 * src/core/cluster/kmedian.c), the best of several starts: --ref-starts D^1 seedings on
 * the points, the private k-median and k-means centres being measured, and
 * (live) the previous measured release's reference.  Reported beside each
 * ratio: the same ratio for the k-means centres of the same release, i.e.
 * what using the k-means answer for the k-median cost would give.
 *
 * One-shot: for each seed (--seeds, default 100-104) dpk_lowd_cluster on all
 * points with the defaults of dp_kmeans (epsilon --eps, k --k), once with
 * objective k-means and once k-median on the same key (so the same noisy
 * histogram); geometric mean and worst over the seeds.
 * Live: N points inserted in T (--horizon) equal batches under the
 * configuration dp_attach makes (dpk_live_defaults, insert_delete
 * accounting unless --insert-only, level for size hint N); release t is
 * measured on the points inserted so far for every t >= T/4 (every
 * --stride-th, always T); mean and worst over the measured releases, and
 * the milliseconds dpk_live_kmedian adds to a release.
 */
#define BENCH_PROG "bench_kmedian"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "cellmap.h"
#include "dpk_mem.h"
#include "highd.h"
#include "kmedian.h"
#include "kmedian_lifted.h"
#include "live_core.h"
#include "live_reach.h"
#include "lowd.h"
#include "projection.h"

#define MAX_K 64
#define MAX_D 64
#define MAX_SEEDS 16

typedef struct Options
{
	size_t		ns[8];
	int			nn;
	int			k;
	double		eps;
	uint32_t	horizon;
	int			stride;
	int			seeds[MAX_SEEDS];
	int			nseeds;
	int			ref_starts;
	bool		insert_only;
	const char *airports;
	int			d;
} Options;

/* ---- the reference: Lloyd-style alternation with plain Weiszfeld ---- */

/* Sum of distances of x to its nearest centre; assignment into a (may be NULL). */
static double
ref_cost(const double *x, size_t n, int d, const double *c, int k, int *a)
{
	double		s = 0.0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		double		best = INFINITY;
		int			bj = 0,
					j,
					t;

		for (j = 0; j < k; j++)
		{
			double		q = 0.0;

			for (t = 0; t < d; t++)
				q += (x[i * d + t] - c[j * d + t]) * (x[i * d + t] - c[j * d + t]);
			if (q < best)
			{
				best = q;
				bj = j;
			}
		}
		if (a)
			a[i] = bj;
		s += sqrt(best);
	}
	return s;
}

/*
 * Local search from centres c (k * d, updated): assign, move every centre
 * to its cluster's geometric median (Weiszfeld, distances floored at 1e-9
 * of the box), repeat until the cost stops improving.  Returns the cost.
 */
static double
ref_local(const double *x, size_t n, int d, double *c, int k, int *a)
{
	double		prev = INFINITY,
				cost;
	double	   *num = xmalloc(sizeof(double) * k * d);
	double	   *den = xmalloc(sizeof(double) * k);
	int			round,
				it,
				j,
				t;
	size_t		i;

	for (round = 0; round < 200; round++)
	{
		cost = ref_cost(x, n, d, c, k, a);
		if (cost >= prev * (1 - 1e-9))
			break;
		prev = cost;
		for (it = 0; it < 30; it++)
		{
			memset(num, 0, sizeof(double) * k * d);
			memset(den, 0, sizeof(double) * k);
			for (i = 0; i < n; i++)
			{
				double		q = 0.0,
							inv;

				j = a[i];
				for (t = 0; t < d; t++)
					q += (x[i * d + t] - c[j * d + t]) * (x[i * d + t] - c[j * d + t]);
				inv = 1.0 / fmax(sqrt(q), 1e-7);
				for (t = 0; t < d; t++)
					num[j * d + t] += x[i * d + t] * inv;
				den[j] += inv;
			}
			for (j = 0; j < k; j++)
				if (den[j] > 0)
					for (t = 0; t < d; t++)
						c[j * d + t] = num[j * d + t] / den[j];
		}
	}
	free(num);
	free(den);
	return fmin(prev, ref_cost(x, n, d, c, k, a));
}

/*
 * The reference on x: the best local search over `starts` D^1 seedings and
 * the given warm starts (nwarm sets of k centres).  best (k * d) gets its
 * centres; returns its cost.
 */
static double
ref_kmedian(const double *x, size_t n, int d, int k, int starts, const double *const *warm,
			int nwarm, uint64_t seed, double *best)
{
	double		best_cost = INFINITY;
	double	   *c = xmalloc(sizeof(double) * k * d);
	double	   *dd = xmalloc(sizeof(double) * n);
	int		   *a = xmalloc(sizeof(int) * n);
	MixRng		r;
	int			s,
				j;
	size_t		i;

	mix_rng_seed(&r, seed);
	for (s = 0; s < starts + nwarm; s++)
	{
		double		cost;

		if (s < nwarm)
			memcpy(c, warm[s], sizeof(double) * k * d);
		else
		{
			for (j = 0; j < k; j++)
			{
				double		tot = 0.0,
							u;
				size_t		pick = 0;

				for (i = 0; i < n; i++)
				{
					double		q = j == 0 ? 1.0 : INFINITY;
					int			jj,
								t;

					for (jj = 0; jj < j; jj++)
					{
						double		e = 0.0;

						for (t = 0; t < d; t++)
							e += (x[i * d + t] - c[jj * d + t]) * (x[i * d + t] - c[jj * d + t]);
						q = fmin(q, sqrt(e));
					}
					dd[i] = q;
					tot += q;
				}
				u = mix_rng_uniform(&r) * tot;
				for (i = 0; i < n; i++)
				{
					u -= dd[i];
					if (u < 0)
					{
						pick = i;
						break;
					}
				}
				memcpy(c + j * d, x + pick * d, sizeof(double) * d);
			}
		}
		cost = ref_local(x, n, d, c, k, a);
		if (cost < best_cost)
		{
			best_cost = cost;
			memcpy(best, c, sizeof(double) * k * d);
		}
	}
	free(c);
	free(dd);
	free(a);
	return best_cost;
}

/* ---- data ---- */

typedef struct Data
{
	const char *name;
	size_t		n;
	double	   *x;
	int			d;
	double		lo[MAX_D],
				up[MAX_D];
	DpkBox		box;
} Data;

/* Clamp the rows into the box, as the extension does. */
static void
data_clamp(Data *ds)
{
	size_t		i;
	int			t;

	for (i = 0; i < ds->n; i++)
		for (t = 0; t < ds->d; t++)
			ds->x[i * ds->d + t] = fmin(ds->up[t], fmax(ds->lo[t], ds->x[i * ds->d + t]));
	ds->box.d = ds->d;
	ds->box.lower = ds->lo;
	ds->box.upper = ds->up;
}

/* ---- one-shot ---- */

/* One-shot ratios of both objectives for every seed; prints one line. */
static void
run_oneshot(const Data *ds, const Options *opt)
{
	double		lk = 0.0,
				lm = 0.0,
				wk = 0.0,
				wm = 0.0;
	int			s,
				k = opt->k;

	for (s = 0; s < opt->nseeds; s++)
	{
		DpkLowdConfig cfg;
		DpkOneshotResult rk,
					rm;
		DpkStream	st;
		double		ref[MAX_K * MAX_D],
					rc,
					ck,
					cm;
		const double *warm[2];
		uint8_t		key[DPK_KEY_BYTES];
		uint8_t		nonce[DPK_NONCE_BYTES] = {0};

		dpk_key_from_seed((uint64_t) opt->seeds[s], key);
		if (ds->d >= DPK_HIGHD_MIN_D)
		{
			/* dp_kmeans at high d: the joint mode, the extension's cap */
			DpkHighdConfig hc;

			dpk_highd_defaults(&hc, opt->eps, k);
			hc.max_cells = 4194304.0;
			dpk_stream_open(&st, key, nonce);
			dpk_highd_oneshot_cluster(&ds->box, ds->x, ds->n, &hc, &st, &rk);
			dpk_stream_close(&st);
			hc.objective = DPK_OBJECTIVE_KMEDIAN;
			dpk_stream_open(&st, key, nonce);
			dpk_highd_oneshot_cluster(&ds->box, ds->x, ds->n, &hc, &st, &rm);
			dpk_stream_close(&st);
		}
		else
		{
			dpk_lowd_defaults(&cfg, opt->eps, k);
			dpk_stream_open(&st, key, nonce);
			dpk_lowd_cluster(&ds->box, ds->x, ds->n, &cfg, &st, &rk);
			dpk_stream_close(&st);
			cfg.objective = DPK_OBJECTIVE_KMEDIAN;
			dpk_stream_open(&st, key, nonce);
			dpk_lowd_cluster(&ds->box, ds->x, ds->n, &cfg, &st, &rm);
			dpk_stream_close(&st);
		}
		warm[0] = rm.centers;
		warm[1] = rk.centers;
		rc = ref_kmedian(ds->x, ds->n, ds->d, k, opt->ref_starts, warm, 2,
						 (uint64_t) opt->seeds[s], ref);
		cm = ref_cost(ds->x, ds->n, ds->d, rm.centers, k, NULL) / rc;
		ck = ref_cost(ds->x, ds->n, ds->d, rk.centers, k, NULL) / rc;
		lm += log(cm);
		lk += log(ck);
		wm = fmax(wm, cm);
		wk = fmax(wk, ck);
		dpk_oneshot_result_free(&rk);
		dpk_oneshot_result_free(&rm);
	}
	printf("d=%-2d %-9s %7zu oneshot  kmedian %.4f (worst %.4f)   kmeans-centres %.4f (worst %.4f)   seeds %d\n",
		   ds->d, ds->name, ds->n, exp(lm / opt->nseeds), wm, exp(lk / opt->nseeds), wk, opt->nseeds);
	fflush(stdout);
}

/* ---- live ---- */

/* Add points [from, to) to the counted level's state (proj: the copies'). */
static void
live_insert(const DpkLiveConfig *cfg, const Data *ds, const DpkProjection *proj, size_t from,
			size_t to, DpkCellMap *m)
{
	size_t		i;
	int			r;

	for (i = from; i < to; i++)
	{
		double		u[MAX_D],
					tp[MAX_D * 8];
		int64_t		idx[MAX_D],
					rel[MAX_D];
		uint64_t	cell;

		dpk_box_normalize(&ds->box, ds->x + i * ds->d, u);
		if (cfg->dhat > 0)
		{
			/* projected table: every copy's projection, as the trigger */
			for (r = 0; r < cfg->copies; r++)
				dpk_project_batch(&proj[r], u, 1, tp + r * cfg->dhat);
			dpk_live_add_projected(cfg, m, u, tp, +1);
			continue;
		}
		cell = dpk_grid_cell(ds->d, 1 << cfg->level, u, idx, rel);
		dpk_cellmap_add_point(m, cell, rel, +1);
	}
}

/* Live releases from T/4 on, per seed; prints one line per seed. */
static void
run_live(const Data *ds, const Options *opt, int seed)
{
	DpkLiveConfig cfg;
	DpkCellMap	state;
	uint32_t	T = opt->horizon,
				t;
	int			k = opt->k,
				nrel = 0;
	size_t		done = 0;
	double		sum_m = 0.0,
				sum_k = 0.0,
				worst_m = 0.0,
				worst_k = 0.0,
				ms = 0.0,
				prev[MAX_K * MAX_D];
	bool		have_prev = false;
	uint8_t		key[DPK_KEY_BYTES];
	int			d = ds->d,
				r;
	DpkProjection proj[8];

	dpk_live_defaults(&cfg, d, k, opt->eps, T, opt->insert_only);
	if (d >= DPK_HIGHD_MIN_D)
	{
		dpk_live_use_projection(&cfg, (uint64_t) seed * 104729 + 7);
		for (r = 0; r < cfg.copies; r++)
			dpk_projection_init(&proj[r], d, cfg.dhat,
								dpk_projection_copy_seed(cfg.proj_seed, r), cfg.half_width);
	}
	cfg.level = dpk_live_choose_level(&cfg, (double) ds->n, 4194304.0);
	dpk_key_from_seed((uint64_t) seed * 7919 + 1, key);
	dpk_cellmap_init(&state, d);
	for (t = 1; t <= T; t++)
	{
		size_t		upto = (size_t) ((double) ds->n * t / T);
		uint32_t	first = (T + 3) / 4;
		DpkDenseHist hist;
		DpkLiveRelease rel;
		DpkStream	st;
		uint8_t		nonce[DPK_NONCE_BYTES] = {0};
		uint64_t	kseed;
		double		ref[MAX_K * MAX_D],
					rc,
					cm,
					ck,
					t0;
		const double *warm[3];

		live_insert(&cfg, ds, proj, done, upto, &state);
		done = upto;
		if (t < first || ((t - first) % (uint32_t) opt->stride != 0 && t != T))
			continue;
		nonce[0] = (uint8_t) t;
		nonce[1] = (uint8_t) (t >> 8);
		dpk_stream_open(&st, key, nonce);
		memset(&hist, 0, sizeof(hist));
		if (cfg.dhat > 0)
		{
			/* as release.c: the projected release, then its k-median */
			uint64_t	total = (uint64_t) cfg.copies * dpk_live_copy_cells(&cfg);
			double	   *pc = xmalloc(sizeof(double) * total);
			double	   *ps = xmalloc(sizeof(double) * total * d);
			double		sn;

			dpk_live_noisy_projected_box(&cfg, &ds->box, key, &state, t, &st, pc, ps, &sn);
			kseed = dpk_stream_u64(&st);
			dpk_live_cluster_projected(&cfg, &ds->box, pc, ps, sn, t, kseed, &rel);
			t0 = now_ms();
			dpk_live_kmedian_projected(&cfg, &ds->box, pc, ps, sn, t, kseed, &rel);
			ms += now_ms() - t0;
			free(pc);
			free(ps);
		}
		else
		{
			dpk_live_noisy_histogram(&cfg, key, &state, t, &st, &hist);
			kseed = dpk_stream_u64(&st);
			dpk_live_cluster(&cfg, &ds->box, &hist, t, kseed, &rel);
			t0 = now_ms();
			dpk_live_kmedian(&cfg, &ds->box, &hist, t, kseed, &rel);
			ms += now_ms() - t0;
		}
		dpk_stream_close(&st);

		warm[0] = rel.kmed_centers + (size_t) dpk_live_block(k) * d;
		warm[1] = rel.centers + (size_t) dpk_live_block(k) * d;
		warm[2] = prev;
		rc = ref_kmedian(ds->x, done, d, k, have_prev ? 1 : opt->ref_starts, warm,
						 have_prev ? 3 : 2, (uint64_t) seed + t, ref);
		memcpy(prev, ref, sizeof(double) * k * d);
		have_prev = true;
		cm = ref_cost(ds->x, done, d, warm[0], k, NULL) / rc;
		ck = ref_cost(ds->x, done, d, warm[1], k, NULL) / rc;
		if (getenv("BENCH_KMEDIAN_VERBOSE"))
			printf("  t=%u level %d kmedian %.4f kmeans-centres %.4f\n", t, rel.level, cm, ck);
		sum_m += cm;
		sum_k += ck;
		worst_m = fmax(worst_m, cm);
		worst_k = fmax(worst_k, ck);
		nrel++;
		dpk_live_release_free(&rel);
		if (hist.count)
			dpk_hist_free(&hist);
	}
	dpk_cellmap_free(&state);
	if (cfg.dhat > 0)
		for (r = 0; r < cfg.copies; r++)
			dpk_projection_free(&proj[r]);
	printf("d=%-2d %-9s %7zu live T=%u %s seed %d  kmedian mean %.4f worst %.4f   kmeans-centres mean %.4f worst %.4f   releases %d level %d  kmedian %.0f ms/release\n",
		   d, ds->name, ds->n, T, opt->insert_only ? "insert_only" : "insert_delete", seed,
		   sum_m / nrel, worst_m, sum_k / nrel, worst_k, nrel, cfg.level, ms / nrel);
	fflush(stdout);
}

static void
usage(void)
{
	fprintf(stderr,
			"usage: bench_kmedian [--n N,N,...] [--k K] [--eps E] [--horizon T] [--stride S]\n"
			"                     [--seeds A-B] [--ref-starts R] [--insert-only] [--airports PATH]\n"
			"                     [--no-oneshot] [--no-live] [--d D]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	Options		opt;
	bool		oneshot = true,
				live = true;
	int			a,
				i,
				s;

	memset(&opt, 0, sizeof(opt));
	opt.ns[0] = 20000;
	opt.ns[1] = 100000;
	opt.nn = 2;
	opt.d = 2;
	opt.k = 6;
	opt.eps = 1.0;
	opt.horizon = 256;
	opt.stride = 1;
	opt.ref_starts = 5;
	opt.nseeds = 5;
	for (s = 0; s < 5; s++)
		opt.seeds[s] = 100 + s;
	for (a = 1; a < argc; a++)
	{
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;

		if (strcmp(argv[a], "--insert-only") == 0)
			opt.insert_only = true;
		else if (strcmp(argv[a], "--no-oneshot") == 0)
			oneshot = false;
		else if (strcmp(argv[a], "--no-live") == 0)
			live = false;
		else if (!v)
			usage();
		else if (strcmp(argv[a], "--n") == 0)
		{
			char	   *p = (char *) v;

			for (opt.nn = 0; *p && opt.nn < 8; opt.nn++)
			{
				opt.ns[opt.nn] = strtoul(p, &p, 10);
				if (*p == ',')
					p++;
			}
			a++;
		}
		else if (strcmp(argv[a], "--d") == 0 && ++a)
			opt.d = atoi(v);
		else if (strcmp(argv[a], "--k") == 0 && ++a)
			opt.k = atoi(v);
		else if (strcmp(argv[a], "--eps") == 0 && ++a)
			opt.eps = atof(v);
		else if (strcmp(argv[a], "--horizon") == 0 && ++a)
			opt.horizon = (uint32_t) atoi(v);
		else if (strcmp(argv[a], "--stride") == 0 && ++a)
			opt.stride = atoi(v);
		else if (strcmp(argv[a], "--ref-starts") == 0 && ++a)
			opt.ref_starts = atoi(v);
		else if (strcmp(argv[a], "--airports") == 0 && ++a)
			opt.airports = v;
		else if (strcmp(argv[a], "--seeds") == 0 && ++a)
		{
			int			lo,
						hi;

			if (sscanf(v, "%d-%d", &lo, &hi) != 2 || hi < lo || hi - lo >= MAX_SEEDS)
				usage();
			opt.nseeds = hi - lo + 1;
			for (s = 0; s < opt.nseeds; s++)
				opt.seeds[s] = lo + s;
		}
		else
			usage();
	}
	if (opt.k < 1 || opt.k > MAX_K || opt.stride < 1 || opt.horizon < 1 || opt.d < 1 ||
		opt.d > MAX_D || (opt.airports && opt.d != 2))
		usage();
	printf("# bench_kmedian: d = %d, k = %d, eps = %g; ratio = k-median cost on the true rows / reference\n",
		   opt.d, opt.k, opt.eps);
	for (i = 0; i < opt.nn + (opt.airports ? 1 : 0); i++)
	{
		Data		ds;

		memset(&ds, 0, sizeof(ds));
		if (i < opt.nn)
		{
			MixSpec		sp = mix_skewed_spec(opt.d, opt.k, opt.ns[i]);
			MixData		mx;
			int			t;

			mix_generate(&sp, mix_hash4(0x6B6D6564, (uint64_t) opt.d, (uint64_t) opt.k, opt.ns[i]),
						 &mx);
			ds.name = "skewed";
			ds.n = mx.n;
			ds.x = mx.points;
			mx.points = NULL;
			mix_free(&mx);
			ds.d = opt.d;
			for (t = 0; t < opt.d; t++)
			{
				ds.lo[t] = 0.0;
				ds.up[t] = 100.0;
			}
		}
		else
		{
			int			cols[2] = {-1, -2};

			ds.name = "airports";
			ds.d = 2;
			ds.n = bench_read_csv(opt.airports, 2, cols, &ds.x);
			bench_shuffle_rows(ds.x, ds.n, 2, 0xA1B2);
			ds.lo[0] = -180.0;
			ds.up[0] = -60.0;
			ds.lo[1] = 5.0;
			ds.up[1] = 75.0;
		}
		data_clamp(&ds);
		if (oneshot)
			run_oneshot(&ds, &opt);
		if (live)
			for (s = 0; s < opt.nseeds; s++)
				run_live(&ds, &opt, opt.seeds[s]);
		free(ds.x);
	}
	return 0;
}
