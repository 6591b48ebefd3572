/*
 * oracle.h
 *		RESEARCH LOWER BOUND, NOT SHIPPED: bench_highd_live --oracle.
 *
 * What the best continual counter could give a live (epsilon, delta) table
 * if the partition came for free.  At each measured release t the rows
 * present are split by the non-private reference's centres (bench_ref_cost:
 * the k-means partition of those rows), and each part's centre is released
 * as (true sum + Gaussian noise) / (true count + Gaussian noise), clamped
 * into the table's ball and box (post-processing).  The noise variances are
 * those of a continual counter with `units` times the variance of one
 * release with the counter's whole budget ("full-budget units", issue 50's
 * table; bench_counter --units release):
 *
 *	 opt   2.91 at T = 16 (4.46, 6.41, 8.77 at 64, 256, 1024): the optimal
 *		   factorization of the prefix sums under rho-zCDP, the smallest
 *		   worst-release variance of any factorization (linear Gaussian)
 *		   counter, the same at every release (a counter that trades
 *		   variance between releases is bounded on their mean by the
 *		   nuclear norm of the prefix sums instead: 2.575 over releases
 *		   4-16, doc/decisions/082);
 *	 sqrt  the shipped square-root factorization's variance at t
 *		   (dpk_sqrt_release_units), for comparison;
 *	 one   1 unit: what one full-budget release of the same partition gets,
 *		   the sanity check beside the one-shot column;
 *	 sums  opt with exact counts and the whole rho on the sums (the most
 *		   generous split of this oracle);
 *	 table the table's own count and sum variances at t (its counter,
 *		   copies and tree; dpk_live_projected_count_var, _sum_var) on one
 *		   noisy sum a part: what the shipped counters cost with the
 *		   partition for free (a live centre lifts from one or more cells,
 *		   each with that noise).
 *
 * The budget: rho of the table's (epsilon, delta) (dpk_live_rho), split
 * between counts and sums in the ratio of the table's shares, the norm
 * counter's share given to both pro rata (the oracle needs no norm
 * counter).  Sensitivities: one row is in one part (the table's copies and
 * tree levels are not charged), l2 1 on the counts and the table's per-row
 * sum bound (dpk_live_point_l2: the norm bound's, else the box's sqrt(d)
 * U / 2), in lifting units; twice the square with deletions.  So the
 * oracle's variances at the table's own counter are at most the table's,
 * its centres are the exact means of the right parts plus the smallest
 * noise any counter gives those means, and its cost lower-bounds any live
 * release of this family (release centres as noisy sums over noisy counts
 * of a partition) up to a better estimator than the plain ratio.
 *
 * Beside them "os@opt": the one-shot column's pipeline at rho / 2.91
 * (oracle_eps), i.e. with the optimal counter's variance on every noisy
 * value (a reference, not a bound: the one-shot's stages are adaptive, so
 * no continual counter runs them as they are).
 *
 * Output (oracle_print): per release, geometric mean over seeds and worst
 * seed of each cost over the non-private reference and of each over the
 * one-shot column, beside the table's own per-release count and sum
 * variances in the oracle's units (copies and counter included).
 */
#ifndef DPK_BENCH_ORACLE_H
#define DPK_BENCH_ORACLE_H

#include "sqrt_counter.h"
#include "zcdp.h"

/* Columns of the oracle's figures. */
enum
{
	OR_LIVE = 0, OR_OS, OR_OPT, OR_SQRT, OR_ONE, OR_SUMS, OR_TAB, OR_OSOPT, OR_N
};

static const char *const oracle_col[OR_N] = {"live", "oneshot", "or-opt", "or-sqrt",
"or-1", "or-sums", "or-table", "os@opt"};

/* Per release of one (row, horizon, stream): sums of logs and worst seeds. */
typedef struct OracleSummary
{
	int			nrel;
	uint32_t	horizon;
	const uint32_t *ts;			/* the summary's releases (not owned) */
	double	   *lsum;			/* [rel][col][0 cost, 1 / oneshot] */
	double	   *max;			/* the same, worst seed */
	int		   *n;				/* [rel] seeds seen */
	double	   *count_units,	/* [rel] the table's count variance */
			   *sum_units;		/* [rel] the table's sum variance */
} OracleSummary;

/* The k-means partition's sizes and sums, metric positions minus 1/2. */
typedef struct OraclePart
{
	int			k,
				d;
	double	   *n,
			   *s;
} OraclePart;

/*
 * The smallest worst-release variance of any factorization counter (linear
 * Gaussian continual counter) at horizon T, full-budget units (issue 50's
 * table, bench_counter's reference rows); the same at every release.
 */
static inline double
oracle_units_opt(uint32_t T)
{
	return T == 16 ? 2.91 : T == 64 ? 4.46 : T == 256 ? 6.41 : T == 1024 ? 8.77 : NAN;
}

/* The epsilon (at delta) whose rho is rho(eps, delta) / units. */
static inline double
oracle_eps(double eps, double delta, double units)
{
	return dpk_zcdp_epsilon(dpk_zcdp_rho(eps, delta) / units, delta);
}

/* An empty summary of nrel releases ts of horizon T. */
static inline void
oracle_init(OracleSummary *o, uint32_t T, int nrel, const uint32_t *ts)
{
	size_t		m = (size_t) nrel * OR_N * 2;
	size_t		i;

	o->nrel = nrel;
	o->horizon = T;
	o->ts = ts;
	o->lsum = calloc(m, sizeof(double));
	o->max = xmalloc(sizeof(double) * m);
	for (i = 0; i < m; i++)
		o->max[i] = -INFINITY;
	o->n = calloc(nrel, sizeof(int));
	o->count_units = calloc(nrel, sizeof(double));
	o->sum_units = calloc(nrel, sizeof(double));
}

/*
 * One full-budget release's variances: *vc of a count, *vs of a sum's
 * coordinate in normalized positions; sums_only: the whole rho on the sums.
 */
static inline void
oracle_unit_vars(const DpkLiveConfig *cfg, bool sums_only, double *vc, double *vs)
{
	double		rho = dpk_live_rho(cfg),
				fc = 1.0 - cfg->sum_share - cfg->norm_share,
				fs = cfg->sum_share,
				ev = cfg->insert_only ? 1.0 : 2.0,
				p = dpk_live_point_l2(cfg) / DPK_LIFT_UNITS;

	if (sums_only)
	{
		*vc = 0.0;
		*vs = dpk_zcdp_sigma2(ev * p * p, rho);
		return;
	}
	*vc = dpk_zcdp_sigma2(ev, rho * fc / (fc + fs));
	*vs = dpk_zcdp_sigma2(ev * p * p, rho * fs / (fc + fs));
}

/* Split cur by the nearest of the k centres c; sums of metric positions - 1/2. */
static inline void
oracle_partition(const DpkLiveConfig *cfg, const DpkBox *box, const double *cur,
				 size_t ncur, const double *c, OraclePart *p)
{
	int			d = cfg->d,
				k = cfg->k,
				a,
				j;
	double	   *u = xmalloc(sizeof(double) * d);
	size_t		i;

	p->k = k;
	p->d = d;
	p->n = calloc(k, sizeof(double));
	p->s = calloc((size_t) k * d, sizeof(double));
	for (i = 0; i < ncur; i++)
	{
		a = dpk_highd_nearest(cur + i * d, c, k, d);
		dpk_box_normalize(box, cur + i * d, u);
		if (cfg->box_metric)
			dpk_box_to_metric(box, u);
		dpk_box_ball_clamp(d, cfg->ball, u);
		p->n[a] += 1.0;
		for (j = 0; j < d; j++)
			p->s[(size_t) a * d + j] += u[j] - 0.5;
	}
	free(u);
}

/*
 * The cost on cur of the part's centres released with count variance vc
 * and sum variance vs (a coordinate), noise from seed; a noisy count below
 * 1 counts as 1, centres clamped into the ball and [0, 1]^d.
 */
static inline double
oracle_cost(const DpkLiveConfig *cfg, const DpkBox *box, const OraclePart *p,
			const double *cur, size_t ncur, double vc, double vs, uint64_t seed)
{
	int			d = p->d,
				k = p->k,
				a,
				j;
	double	   *c = xmalloc(sizeof(double) * k * d),
			   *u = xmalloc(sizeof(double) * d),
				cost;
	MixRng		r;

	mix_rng_seed(&r, seed);
	for (a = 0; a < k; a++)
	{
		double		n = fmax(1.0, p->n[a] + sqrt(vc) * mix_rng_normal(&r));

		for (j = 0; j < d; j++)
			u[j] = 0.5 + (p->s[(size_t) a * d + j] + sqrt(vs) * mix_rng_normal(&r)) / n;
		dpk_box_ball_clamp(d, cfg->ball, u);
		for (j = 0; j < d; j++)
			u[j] = fmin(1.0, fmax(0.0, u[j]));
		dpk_box_from_position(box, cfg->box_metric, u, c + (size_t) a * d);
	}
	cost = dpk_kmeans_cost(cur, NULL, (int) ncur, d, c, k, NULL);
	free(c);
	free(u);
	return cost;
}

/* Add one value of column col at release index ri (its ratio to os too). */
static inline void
oracle_add(OracleSummary *o, int ri, int col, double v, double os)
{
	size_t		at = ((size_t) ri * OR_N + col) * 2;

	o->lsum[at] += log(v);
	o->lsum[at + 1] += log(v / os);
	o->max[at] = fmax(o->max[at], v);
	o->max[at + 1] = fmax(o->max[at + 1], v / os);
}

/*
 * Release t of one seed: the oracle's five variants on the reference's
 * partition ref_centers, beside live, oneshot and os@opt (all over refc).
 */
static inline void
oracle_release(OracleSummary *o, int ri, uint32_t t, const DpkLiveConfig *cfg,
			   const DpkBox *box, const double *cur, size_t ncur,
			   const double *ref_centers, double refc, double live, double os,
			   double os_opt, uint64_t seed)
{
	OraclePart	p;
	double		vc,
				vs,
				zc,
				zs,
				units[OR_N];
	int			col;

	oracle_unit_vars(cfg, false, &vc, &vs);
	oracle_unit_vars(cfg, true, &zc, &zs);
	oracle_partition(cfg, box, cur, ncur, ref_centers, &p);
	units[OR_OPT] = units[OR_SUMS] = oracle_units_opt(cfg->horizon);
	units[OR_SQRT] = dpk_sqrt_release_units(dpk_sqrt_counter_cached(cfg->horizon), t);
	units[OR_ONE] = 1.0;
	oracle_add(o, ri, OR_LIVE, live, os);
	oracle_add(o, ri, OR_OS, os, os);
	oracle_add(o, ri, OR_OSOPT, os_opt, os);
	for (col = OR_OPT; col < OR_OSOPT; col++)
	{
		bool		sums = col == OR_SUMS;
		double		v = col == OR_TAB
			? oracle_cost(cfg, box, &p, cur, ncur, dpk_live_projected_count_var(cfg, t),
						  dpk_live_projected_sum_var(cfg, t),
						  mix_hash4(seed, (uint64_t) col, t, 0x6f72))
			: oracle_cost(cfg, box, &p, cur, ncur, units[col] * (sums ? zc : vc),
						  units[col] * (sums ? zs : vs),
						  mix_hash4(seed, (uint64_t) col, t, 0x6f72));

		oracle_add(o, ri, col, v / refc, os);
	}
	o->n[ri]++;
	o->count_units[ri] = dpk_live_projected_count_var(cfg, t) / vc;
	o->sum_units[ri] = dpk_live_projected_sum_var(cfg, t) / vs;
	free(p.n);
	free(p.s);
}

/* Whether column col is printed in block q (0 over the reference, 1 over the one-shot). */
static inline bool
oracle_shown(int q, int col)
{
	return q == 0 || col != OR_OS;
}

/*
 * The per-release table: the counters' units (u-opt, u-sqrt; tab-c and
 * tab-s the table's own count and sum variances in the oracle's units),
 * each column over the reference, then over the one-shot.
 */
static inline void
oracle_print(const OracleSummary *o, const char *what)
{
	int			ri,
				col,
				q;
	double		all[OR_N][2] = {{0}};
	int			nall = 0;

	printf("    oracle %s (research lower bound; geometric mean over seeds / worst seed)\n"
		   "    %3s %2s %5s %6s %7s %7s |", what, "t", "n", "u-opt", "u-sqrt", "tab-c",
		   "tab-s");
	for (q = 0; q < 2; q++)
		for (col = 0; col < OR_N; col++)
			if (oracle_shown(q, col))
				printf(" %15s", oracle_col[col]);
	printf("\n    %35s |", "");
	for (q = 0; q < 2; q++)
		for (col = 0; col < OR_N; col++)
			if (oracle_shown(q, col))
				printf(" %15s", q == 0 ? "/ nonprivate" : "/ oneshot");
	printf("\n");
	for (ri = 0; ri < o->nrel; ri++)
	{
		if (o->n[ri] == 0)
			continue;
		printf("    %3u %2d %5.2f %6.2f %7.2f %7.2f |", o->ts[ri], o->n[ri],
			   oracle_units_opt(o->horizon),
			   dpk_sqrt_release_units(dpk_sqrt_counter_cached(o->horizon), o->ts[ri]),
			   o->count_units[ri], o->sum_units[ri]);
		for (q = 0; q < 2; q++)
			for (col = 0; col < OR_N; col++)
				if (oracle_shown(q, col))
				{
					size_t		at = ((size_t) ri * OR_N + col) * 2 + q;

					printf(" %7.3f/%-7.3f", exp(o->lsum[at] / o->n[ri]), o->max[at]);
					all[col][q] += o->lsum[at];
				}
		nall += o->n[ri];
		printf("\n");
	}
	printf("    %-35s |", "every release");
	for (q = 0; q < 2; q++)
		for (col = 0; col < OR_N; col++)
			if (oracle_shown(q, col))
				printf(" %7.3f        ", exp(all[col][q] / nall));
	printf("\n");
}

#endif							/* DPK_BENCH_ORACLE_H */
