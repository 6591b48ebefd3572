/*
 * privacy_rounding.c
 *		The published integer of a continual release against its exact law.
 *
 * A pure table's release t publishes, for every cell, the nearest integer
 * to P + S, P the cell's true count and S = sum_a (num_a / D) eta_a the
 * weighted sum of its tree nodes' discrete Laplace draws, computed exactly
 * over the odd denominator D = 2^32 - 1 (so P + S is never a half-integer)
 * with weights that satisfy the identity (*) exactly (doc/privacy.md,
 * "Exact rounding").  The proof covers exactly that value: the coupling
 * moves S by an exact integer, and the same map of the same exact P + S is
 * applied in both worlds.  A release whose weights miss (*) by a few ulps,
 * that rounds S in floating point, or that rounds S alone with ties away
 * from zero, publishes another law, which the proof does not cover (with
 * weights of exactly +-1/2 and ties away from zero, P(0) = 0.00185 against
 * P(+-1) = 0.0037 for an empty cell at epsilon = 0.1: a log-ratio of 0.68
 * in one release).
 *
 * What runs.  dpk_live_noisy_histogram, the release's own path, on a table
 * of d = 2 with 2^20 cells (counted level 10, counts only), every even cell
 * empty and every odd cell holding one row, at releases whose least-squares
 * weights have small denominators: release 4 of the 7-ary tree of T = 16
 * (eight weights +-1/2: the tree a new table of horizon 16 gets), release 4
 * of the binary tree of T = 16 (weights in quarters and halves: tables
 * attached before 0.3) and release 1 of that tree (denominator 21, odd: S
 * is never near a half-integer).  The published counts are 2^19
 * independent draws per population (each cell has its own nodes' draws).
 *
 * What is checked.  The weights are those of dpk_tree_release_weights, the
 * function the release calls.  They must satisfy (*) exactly in integers.
 * They are written num_a / D = m_a / D0 + rho_a / (D D0) with D0 the
 * least-squares weights' own small denominator and small integers rho_a,
 * so S = (D N0 + R) / (D D0) with N0 = sum_a m_a eta_a and R = sum_a rho_a
 * eta_a; the joint law of (N0, R) is a two-dimensional convolution of the
 * exact discrete Laplace pmfs (dpk_discrete_laplace_pmf), and the law of the
 * published value, the nearest integer to P + S, follows (N0 / D0 decides
 * it but on half-integers, where the sign of R does).  For every value with
 * an expected count of at least 50, the observed count must lie in its
 * Chernoff interval; all intervals hold together with probability >=
 * 1 - 1e-6 (Bonferroni), so a correct release fails with probability
 * <= 1e-6.  The keys are fixed: a build always gives the same verdict.  The
 * counts of -1, 0 and +1 of the empty cells are printed with their
 * expectations.  About 20 seconds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cellmap.h"
#include "dpk_mem.h"
#include "grid.h"
#include "live_core.h"
#include "noise.h"
#include "tree_estimator.h"
#include "../unit/unit.h"
#include "privacy_common.h"

#define LEVEL 10				/* 2^10 x 2^10 = 2^20 cells */
#define MAX_DEN 64
#define MAX_RHO 64
#define MIN_EXPECTED 50.0
#define FAIL_PROB 1e-6

typedef struct RoundCase
{
	const char *name;
	int			arity;
	uint32_t	horizon;
	uint32_t	t;
	double		epsilon;
} RoundCase;

static const RoundCase cases[] = {
	{"7-ary T=16 release 4 (weights +-1/2)", 7, 16, 4, 1.0},
	{"binary T=16 release 4 (weights in 1/4)", 2, 16, 4, 2.0},
	{"binary T=16 release 1 (weights in 1/21)", 2, 16, 1, 2.0},
};

#define POPULATIONS 2			/* cells of true count 0 and 1 */

#define NCASES ((int) (sizeof(cases) / sizeof(cases[0])))

/*
 * Whether the release's weights num[a] / den satisfy (*) exactly: at every
 * position i >= 1 the weights of the nodes holding i add up to 1[i <= t],
 * in integers (the coupling of the proof needs nothing else).
 */
static bool
identity_exact(const DpkTreeWeights *w, int k, uint32_t t)
{
	int64_t		limit = (int64_t) t + 2,
				run = 0,
				i;
	int64_t    *diff;
	bool		ok = true;
	int			a;

	for (a = 0; a < w->n; a++)
	{
		int64_t		len = 1;
		int			j;

		for (j = 0; j < w->level[a]; j++)
			len *= k;
		if ((int64_t) w->index[a] * len + 2 > limit)
			limit = (int64_t) w->index[a] * len + 2;
	}
	diff = calloc(limit + 2, sizeof(int64_t));
	for (a = 0; a < w->n; a++)
	{
		int64_t		len = 1;
		int			j;

		for (j = 0; j < w->level[a]; j++)
			len *= k;
		diff[((int64_t) w->index[a] - 1) * len + 1] += w->num[a];
		diff[(int64_t) w->index[a] * len + 1] -= w->num[a];
	}
	for (i = 1; i <= limit && ok; i++)
	{
		run += diff[i];
		ok = run == (i <= (int64_t) t ? w->den : 0);
	}
	free(diff);
	return ok;
}

/*
 * The release's exact weights num[a] / D written as m[a] / D0 + rho[a] /
 * (D D0): D0 the smallest denominator <= MAX_DEN with every |rho[a]| <=
 * MAX_RHO (the least-squares weights' own small denominator; the exact
 * weights differ from m / D0 by a few units of 1 / D).  0 if there is none.
 */
static int64_t
split_weights(const DpkTreeWeights *w, int64_t *m, int64_t *rho)
{
	int64_t		d0;
	int			a;

	for (d0 = 1; d0 <= MAX_DEN; d0++)
	{
		bool		ok = true;

		for (a = 0; a < w->n && ok; a++)
		{
			__int128	x = (__int128) w->num[a] * d0;

			m[a] = (int64_t) ((x + (x >= 0 ? w->den / 2 : -(w->den / 2))) / w->den);
			rho[a] = (int64_t) (x - (__int128) m[a] * w->den);
			ok = rho[a] >= -MAX_RHO && rho[a] <= MAX_RHO;
		}
		if (ok)
			return d0;
	}
	return 0;
}

/* The nearest integer to base + x / den, ties to even (den > 0). */
static int64_t
nearest_even(int64_t base, __int128 x, __int128 den)
{
	__int128	q = x / den,
				r;

	if (q * den > x)
		q--;
	r = 2 * (x - q * den);		/* twice the remainder, in [0, 2 den) */
	if (r > den || (r == den && ((base + (int64_t) q) & 1) != 0))
		q++;
	return base + (int64_t) q;
}

/*
 * Law of the published value of a cell of true count `base`: the nearest
 * integer to base + S, S = sum_a (num[a] / D) eta_a = (D N0 + R) / (D D0)
 * with N0 = sum_a m[a] eta_a and R = sum_a rho[a] eta_a, eta_a iid discrete
 * Laplace at `scale`.  The joint law of (N0, R) is a two-dimensional
 * convolution of the exact pmfs (dpk_discrete_laplace_pmf), each draw cut at
 * 30 scales (tails below 1e-13).  pub[v + vmax] for |v| <= vmax; returns
 * the mass left out.
 */
static double
published_law(const int64_t *m, const int64_t *rho, int n, int64_t d0, int64_t den,
			  DpkScale scale, int64_t base, int64_t vmax, double *pub)
{
	double		b = dpk_scale_value(scale);
	int64_t		xm = (int64_t) ceil(b * 30.0) + 1;
	int64_t		na = 0,
				nr = 0,
				wa,
				wr,
				i,
				j,
				x;
	double	   *law,
			   *next,
			   *one,
				kept = 0.0;
	int			a;

	for (a = 0; a < n; a++)
	{
		na += llabs(m[a]) * xm;
		nr += llabs(rho[a]) * xm;
	}
	wa = 2 * na + 1;
	wr = 2 * nr + 1;
	law = calloc(wa * wr, sizeof(double));
	next = calloc(wa * wr, sizeof(double));
	one = calloc(2 * xm + 1, sizeof(double));
	for (x = -xm; x <= xm; x++)
		one[x + xm] = dpk_discrete_laplace_pmf(scale, x);
	law[na * wr + nr] = 1.0;
	for (a = 0; a < n; a++)
	{
		memset(next, 0, wa * wr * sizeof(double));
		for (i = 0; i < wa; i++)
			for (j = 0; j < wr; j++)
			{
				double		p = law[i * wr + j];

				if (p == 0.0)
					continue;
				for (x = -xm; x <= xm; x++)
				{
					int64_t		ii = i + m[a] * x,
								jj = j + rho[a] * x;

					if (ii >= 0 && ii < wa && jj >= 0 && jj < wr)
						next[ii * wr + jj] += p * one[x + xm];
				}
			}
		memcpy(law, next, wa * wr * sizeof(double));
	}
	memset(pub, 0, (2 * vmax + 1) * sizeof(double));
	for (i = 0; i < wa; i++)
		for (j = 0; j < wr; j++)
		{
			double		p = law[i * wr + j];
			int64_t		v;

			if (p == 0.0)
				continue;
			v = nearest_even(base, (__int128) den * (i - na) + (j - nr), (__int128) den * d0);
			if (v >= base - vmax && v <= base + vmax)
			{
				pub[v - base + vmax] += p;
				kept += p;
			}
		}
	free(law);
	free(next);
	free(one);
	return 1.0 - kept;
}

int
main(void)
{
	int			c;
	int64_t		vmax = 200;
	double		tail = FAIL_PROB / (2.0 * NCASES * POPULATIONS * (2 * vmax + 1));

	for (c = 0; c < NCASES; c++)
	{
		const RoundCase *rc = &cases[c];
		DpkLiveConfig cfg;
		DpkTreeWeights w;
		DpkCellMap	state;
		DpkDenseHist hist;
		DpkStream	s;
		DpkNoise	cn;
		uint8_t		key[DPK_KEY_BYTES];
		uint8_t		nonce[DPK_NONCE_BYTES] = {0};
		int64_t    *m,
				   *rho;
		int64_t		den;
		double	   *pub[POPULATIONS];
		long	   *seen[POPULATIONS];
		long		outside = 0,
					n[POPULATIONS] = {0, 0};
		double		lost = 0.0;
		int			bad = 0,
					checked = 0,
					p;
		int64_t		v;
		uint64_t	cell;

		dpk_live_defaults(&cfg, 2, 2, rc->epsilon, rc->horizon, true);
		cfg.level = LEVEL;
		cfg.sum_share = 0.0;
		cfg.arity = rc->arity;
		cfg.estimator = DPK_TREE_LOCAL_BLUE;
		cn = dpk_live_count_noise(&cfg);

		dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, rc->arity, rc->horizon, rc->t, &w);
		CHECK(identity_exact(&w, rc->arity, rc->t),
			  "%s: the weights satisfy (*) exactly", rc->name);
		m = calloc(w.n + 1, sizeof(int64_t));
		rho = calloc(w.n + 1, sizeof(int64_t));
		den = split_weights(&w, m, rho);
		CHECK(den > 0, "%s: no small common denominator", rc->name);
		if (den == 0)
		{
			dpk_tree_weights_free(&w);
			free(m);
			free(rho);
			continue;
		}
		for (p = 0; p < POPULATIONS; p++)
		{
			pub[p] = calloc(2 * vmax + 1, sizeof(double));
			seen[p] = calloc(2 * vmax + 1, sizeof(long));
			lost += published_law(m, rho, w.n, den, w.den, cn.lap, p, vmax, pub[p]);
		}

		/* odd cells hold one row, even cells none */
		dpk_cellmap_init(&state, 2);
		for (cell = 1; cell < ((uint64_t) 1 << (2 * LEVEL)); cell += 2)
			dpk_cellmap_get(&state, cell)[0] = 1;
		dpk_key_from_seed(7700 + (uint64_t) c, key);
		if (!dpk_stream_open(&s, key, nonce))
		{
			fprintf(stderr, "privacy_rounding: libcrypto failed\n");
			return 2;
		}
		dpk_live_noisy_histogram(&cfg, key, &state, rc->t, &s, &hist);
		dpk_stream_close(&s);
		for (cell = 0; cell < hist.ncells; cell++)
		{
			p = (int) (cell & 1);
			v = hist.count[cell] - p;
			n[p]++;
			if (v >= -vmax && v <= vmax)
				seen[p][v + vmax]++;
			else
				outside++;
		}

		for (p = 0; p < POPULATIONS; p++)
			for (v = -vmax; v <= vmax; v++)
			{
				double		q = pub[p][v + vmax],
							lo,
							hi;

				if (q * n[p] < MIN_EXPECTED)
					continue;
				checked++;
				kl_interval(seen[p][v + vmax], n[p], tail, &lo, &hi);
				if (q < lo || q > hi)
				{
					bad++;
					fprintf(stderr, "  %s, true count %d: value %lld seen %ld times, "
							"expected %.1f (interval %.1f .. %.1f)\n", rc->name, p,
							(long long) (v + p), seen[p][v + vmax], q * n[p], lo * n[p],
							hi * n[p]);
				}
			}
		printf("%-40s D0 = %2lld, scale %.2f, %2d nodes: empty cells' -1/0/+1 %ld/%ld/%ld, "
			   "expected %.0f/%.0f/%.0f; %d values checked, %d outside\n",
			   rc->name, (long long) den, dpk_scale_value(cn.lap), w.n,
			   seen[0][vmax - 1], seen[0][vmax], seen[0][vmax + 1],
			   pub[0][vmax - 1] * n[0], pub[0][vmax] * n[0], pub[0][vmax + 1] * n[0],
			   checked, bad);
		CHECK(checked >= 20, "%s: only %d values with an expected count >= %.0f",
			  rc->name, checked, MIN_EXPECTED);
		CHECK(bad == 0, "%s: %d published values outside their intervals", rc->name, bad);
		CHECK(lost < 1e-9 && outside <= 10, "%s: law truncated (%.3g lost, %ld seen outside)",
			  rc->name, lost, outside);

		dpk_hist_free(&hist);
		dpk_cellmap_free(&state);
		dpk_tree_weights_free(&w);
		free(m);
		free(rho);
		for (p = 0; p < POPULATIONS; p++)
		{
			free(pub[p]);
			free(seen[p]);
		}
	}
	UNIT_DONE("privacy_rounding");
}
