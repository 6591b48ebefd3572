/*
 * gauss_events.h
 *		Shared by the suites of privacy_gauss: confidence bounds of a
 *		binomial proportion and the half-space events of standardized
 *		Gaussian statistics checked against the zCDP conversion.
 *
 * A statistic Z = <s, v - a> / (sigma ||s||) of noisy values v whose true
 * values a (stream A) move by s in stream B is N(0, 1) under A and N(mu, 1)
 * under B, mu = ||s|| / sigma = sqrt(2 rho_moved).  The optimal tests
 * against such a shift are half-spaces Z >= c and Z <= c; for each,
 *     lo(P[E|B]) <= e^eps' hi(P[E|A]) + delta'   and the same with A, B swapped,
 * delta' = dpk_zcdp_delta(rho_moved, eps').  Test code only.
 */
#ifndef DPK_GAUSS_EVENTS_H
#define DPK_GAUSS_EVENTS_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "live_core.h"
#include "zcdp.h"
#include "privacy_common.h"

#define GE_NTHR		7
#define GE_NEPS		3
#define GE_MAXSTAT	8

static const double ge_thresholds[GE_NTHR] = {-0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5};
static const double ge_eps_check[GE_NEPS] = {0.0, 0.5, 1.0};

/* The events of one suite: its statistics, their rho_moved and the counts. */
typedef struct GaussEvents
{
	const char *suite;
	int			nstat;
	const char *name[GE_MAXSTAT];
	double		rho_moved[GE_MAXSTAT];
	long		runs;
	long		hits[GE_MAXSTAT][2][GE_NTHR][2];	/* stat, <= ?, threshold, B? */
	double		sq[GE_MAXSTAT]; /* sum of Z^2 under A */
} GaussEvents;

/*
 * A live suite's noise: the variances v and squared sensitivities l2sq of
 * the nominal table, the variances vm of the mechanism run (the nominal
 * table, or with deletions at the insert_only sensitivity when
 * weaken_deletes).
 */
static inline void
ge_live_vars(const DpkLiveConfig *nominal, bool weaken_deletes, double v[3], double vm[3],
			 double l2sq[3])
{
	DpkLiveConfig mech = *nominal;

	if (weaken_deletes)
		mech.insert_only = true;
	dpk_live_gauss_vars(nominal, v);
	dpk_live_gauss_vars(&mech, vm);
	dpk_live_l2sq(nominal, l2sq);
}

/* Count one run's statistics z[0..nstat) of stream A (b = 0) or B (b = 1). */
static inline void
ge_add(GaussEvents *ev, int b, const double *z)
{
	int			s,
				i;

	for (s = 0; s < ev->nstat; s++)
	{
		if (!b)
			ev->sq[s] += z[s] * z[s];
		for (i = 0; i < GE_NTHR; i++)
		{
			ev->hits[s][0][i][b] += z[s] >= ge_thresholds[i];
			ev->hits[s][1][i][b] += z[s] <= ge_thresholds[i];
		}
	}
	if (b)
		ev->runs++;
}

/*
 * Check every event of a suite, all its intervals holding together with
 * probability >= 1 - confidence (Bonferroni); and that Z under A has
 * variance at least 1 - 6 sqrt(2 / R) (a chi-square over R: below it with
 * probability < 1e-8 for a mechanism drawing the noise it accounts for),
 * which catches noise below the accounting's sigma even where no single
 * half-space beats the loose zCDP conversion.  Returns the failures.
 */
static inline int
ge_check(const GaussEvents *ev, double confidence)
{
	double		tail = confidence / (4.0 * ev->nstat * 2 * GE_NTHR);
	double		floor_ = 1.0 - 6.0 * sqrt(2.0 / (double) ev->runs);
	int			s,
				dir,
				i,
				e,
				failed = 0;

	for (s = 0; s < ev->nstat; s++)
	{
		double		m2 = ev->sq[s] / (double) ev->runs;

		printf("%s: [%s] variance of Z under A %.4f (nominal 1, floor %.4f)\n", ev->suite,
			   ev->name[s], m2, floor_);
		CHECK(m2 >= floor_, "%s [%s] noise below the accounting's sigma: variance %.4f < %.4f",
			  ev->suite, ev->name[s], m2, floor_);
		failed += !(m2 >= floor_);
	}
	printf("%-22s %-10s %8s %8s %6s %9s %9s  %s\n", "stat", "event", "P_A", "P_B", "eps'",
		   "delta'", "excess", "verdict");
	for (s = 0; s < ev->nstat; s++)
		for (dir = 0; dir < 2; dir++)
			for (i = 0; i < GE_NTHR; i++)
			{
				long		na = ev->hits[s][dir][i][0],
							nb = ev->hits[s][dir][i][1];
				double		loa,
							hia,
							lob,
							hib;

				kl_interval(na, ev->runs, tail, &loa, &hia);
				kl_interval(nb, ev->runs, tail, &lob, &hib);
				for (e = 0; e < GE_NEPS; e++)
				{
					double		dp = dpk_zcdp_delta(ev->rho_moved[s], ge_eps_check[e], NULL);
					double		excess = fmax(lob - exp(ge_eps_check[e]) * hia,
											  loa - exp(ge_eps_check[e]) * hib) - dp;
					bool		ok = excess <= 0.0;

					printf("%-22s Z %s %4.1f %8.5f %8.5f %6.2f %9.5f %9.5f  %s\n", ev->name[s],
						   dir ? "<=" : ">=", ge_thresholds[i], (double) na / ev->runs,
						   (double) nb / ev->runs, ge_eps_check[e], dp, excess,
						   ok ? "ok" : "FAIL");
					CHECK(ok, "%s [%s] Z %s %.1f at eps' %.2f: certified excess %.5f over "
						  "delta' %.5f", ev->suite, ev->name[s], dir ? "<=" : ">=",
						  ge_thresholds[i], ge_eps_check[e], excess, dp);
					failed += !ok;
				}
			}
	return failed;
}

/* Cholesky factor of A (n x n, symmetric positive definite) in place: lower, upper zeroed. */
static inline void
ge_cholesky(double *A, int n)
{
	int			i,
				j,
				k;

	for (j = 0; j < n; j++)
	{
		for (k = 0; k < j; k++)
			A[j * n + j] -= A[j * n + k] * A[j * n + k];
		A[j * n + j] = sqrt(A[j * n + j]);
		for (i = j + 1; i < n; i++)
		{
			for (k = 0; k < j; k++)
				A[i * n + j] -= A[i * n + k] * A[j * n + k];
			A[i * n + j] /= A[j * n + j];
		}
		for (i = 0; i < j; i++)
			A[i * n + j] = 0.0;
	}
}

/* Solve (L L^T) x = b in place for the Cholesky factor L (lower, n x n). */
static inline void
ge_chol_solve(const double *L, int n, double *b)
{
	int			i,
				j;

	for (i = 0; i < n; i++)
	{
		for (j = 0; j < i; j++)
			b[i] -= L[i * n + j] * b[j];
		b[i] /= L[i * n + i];
	}
	for (i = n - 1; i >= 0; i--)
	{
		for (j = i + 1; j < n; j++)
			b[i] -= L[j * n + i] * b[j];
		b[i] /= L[i * n + i];
	}
}

/*
 * The one-shot suites (privacy_gauss_oneshot.c), weaken as in privacy_gauss;
 * adds their passed and failed checks to *passed and *failed.
 */
void		gauss_oneshot_suites(long runs, double weaken, uint64_t key_base,
								 double confidence, int *passed, int *failed);

/*
 * The square-root counter's suite (privacy_gauss_sqrt.c), weakened as in
 * privacy_gauss; adds its passed and failed checks to *passed and *failed.
 */
void		gauss_sqrt_suite(long runs, double weaken, bool weaken_deletes,
							 uint64_t key_base, double confidence, int *passed,
							 int *failed);

/* The same for the counts of a projected square-root table (two copies). */
void		gauss_sqrt_projected_suite(long runs, double weaken, bool weaken_deletes,
									   uint64_t key_base, double confidence, int *passed,
									   int *failed);

/*
 * The refined lifting sums of a large-d norm-bound projected table
 * (privacy_gauss_refine.c), weakened the same way.
 */
void		gauss_refine_suite(long runs, double weaken, bool weaken_deletes,
							   uint64_t key_base, double confidence, int *passed,
							   int *failed);

#endif
