/*
 * sqrt_counter.c
 *		The square-root factorization counter with integer measurements
 *		(see sqrt_counter.h).
 */
#include "sqrt_counter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dpk_mem.h"
#include "tree_estimator.h"

/*
 * The factorization of one horizon, in integers only, so that every
 * platform derives the same measurements: F_k = floor(F_{k-1} (2k - 1) /
 * (2k)) from F_0 = 2^100 follows 2^100 c_k within k units (128 bits hold
 * F (2k - 1) for k <= 2^16), and rc_k = F_k / 2^(100 - G) rounded half up
 * (any integer rc is a valid measurement; this one is 2^G c_k rounded but
 * for a near-tie).  w_k is then the nearest integer to (den - sum_{j<k}
 * w_j rc_{k-j}) / rc_0, and r_k the exact remainder, so that sum_{j<=k}
 * w_j rc_{k-j} + r_k = den holds in integers for every k.
 */
static void sqrt_counter_build(DpkSqrtCounter *sc, uint32_t horizon, int shift,
							   bool permanent);

/* Memory of a factorization: the caller's (dpk_alloc) or the cache's (malloc). */
static void *
sqrt_alloc(size_t size, bool permanent)
{
	void	   *p;

	if (!permanent)
		return dpk_alloc(size);
	p = malloc(size);
	if (p == NULL)
		dpk_fail("square-root counter: out of memory");
	return p;
}

void
dpk_sqrt_counter_init(DpkSqrtCounter *sc, uint32_t horizon, int shift)
{
	sqrt_counter_build(sc, horizon, shift, false);
}

/*
 * The factorization of one horizon at DPK_SQRT_SHIFT, kept for the life of
 * the process: releases ask for it per cell and per level.  The last
 * horizon asked for is kept (tables of one database mostly share it).
 */
const DpkSqrtCounter *
dpk_sqrt_counter_cached(uint32_t horizon)
{
	static DpkSqrtCounter cache;

	if (cache.horizon == horizon && cache.rc != NULL)
		return &cache;
	if (cache.rc != NULL)
	{
		free(cache.rc);
		free(cache.w);
		free(cache.r);
		free(cache.norm2);
		memset(&cache, 0, sizeof(cache));
	}
	sqrt_counter_build(&cache, horizon, DPK_SQRT_SHIFT, true);
	return &cache;
}

static void
sqrt_counter_build(DpkSqrtCounter *sc, uint32_t horizon, int shift, bool permanent)
{
	uint32_t	k,
				j;
	unsigned __int128 f = (unsigned __int128) 1 << 100;
	__int128	sens2 = 1;		/* the leaf */

	if (horizon < 1 || horizon > DPK_SQRT_MAX_HORIZON || shift < 1 || shift > 20)
		dpk_fail("square-root counter: horizon or fixed point out of range");
	memset(sc, 0, sizeof(*sc));
	sc->horizon = horizon;
	sc->shift = shift;
	sc->den = DPK_TREE_WEIGHT_DEN;
	sc->rc = sqrt_alloc(horizon * sizeof(int64_t), permanent);
	sc->w = sqrt_alloc(horizon * sizeof(int64_t), permanent);
	sc->r = sqrt_alloc(horizon * sizeof(int64_t), permanent);
	sc->norm2 = sqrt_alloc((horizon + 1) * sizeof(double), permanent);
	for (k = 0; k < horizon; k++)
	{
		if (k > 0)
			f = f * (2 * (unsigned __int128) k - 1) / (2 * (unsigned __int128) k);
		sc->rc[k] = (int64_t) ((f + ((unsigned __int128) 1 << (99 - shift))) >> (100 - shift));
		sens2 += (__int128) sc->rc[k] * sc->rc[k];
	}
	for (k = 0; k < horizon; k++)
	{
		__int128	rest = sc->den;
		__int128	q;
		int64_t		rc0 = sc->rc[0];

		for (j = 0; j < k; j++)
			rest -= (__int128) sc->w[j] * sc->rc[k - j];
		/* nearest integer to rest / rc0, halves away from zero */
		q = rest >= 0 ? (2 * rest + rc0) / (2 * rc0) : -((-2 * rest + rc0) / (2 * rc0));
		sc->w[k] = (int64_t) q;
		sc->r[k] = (int64_t) (rest - q * rc0);
		DPK_ASSERT(2 * (sc->r[k] < 0 ? -sc->r[k] : sc->r[k]) <= rc0);
	}
	sc->sens2 = (double) sens2;
	/* norm2[t] = sum_{k<t} (w_k^2 + r_k^2) / den^2 */
	{
		long double acc = 0.0L,
					den2 = (long double) sc->den * (long double) sc->den;

		sc->norm2[0] = 0.0;
		for (k = 0; k < horizon; k++)
		{
			acc += ((long double) sc->w[k] * sc->w[k] + (long double) sc->r[k] * sc->r[k]) / den2;
			sc->norm2[k + 1] = (double) acc;
		}
	}
}

void
dpk_sqrt_counter_free(DpkSqrtCounter *sc)
{
	dpk_free(sc->rc);
	dpk_free(sc->w);
	dpk_free(sc->r);
	dpk_free(sc->norm2);
	memset(sc, 0, sizeof(*sc));
}

/* Variance of release t in full-budget release units (see sqrt_counter.h). */
double
dpk_sqrt_release_units(const DpkSqrtCounter *sc, uint32_t t)
{
	return dpk_sqrt_release_norm2(sc, t) * sc->sens2;
}

/* Variance of release t in measurement variances (see sqrt_counter.h). */
double
dpk_sqrt_release_norm2(const DpkSqrtCounter *sc, uint32_t t)
{
	if (t < 1 || t > sc->horizon)
		dpk_fail("square-root counter: release out of the horizon");
	return sc->norm2[t];
}

/* Mean of dpk_sqrt_release_norm2 over releases T/4 .. T (see sqrt_counter.h). */
double
dpk_sqrt_typical_norm2(const DpkSqrtCounter *sc)
{
	uint32_t	lo = sc->horizon / 4 > 0 ? sc->horizon / 4 : 1;
	double		sum = 0.0;

	for (uint32_t t = lo; t <= sc->horizon; t++)
		sum += sc->norm2[t];
	return sum / (sc->horizon - lo + 1);
}

/*
 * Nonce of measurement (leaf 0) or leaf (leaf 1) number s of one cell:
 * level, 0x40 | leaf, s, cell.  The binary tree's node heights stay below
 * 0x40 and the k-ary trees' carry 0x80 (counter.c), so no node of another
 * counter shares it.
 */
static void
sqrt_nonce(int level, uint64_t cell, int leaf, uint32_t s, uint8_t nonce[DPK_NONCE_BYTES])
{
	int			i;

	nonce[0] = (uint8_t) level;
	nonce[1] = (uint8_t) (0x40 | leaf);
	for (i = 0; i < 4; i++)
		nonce[2 + i] = (uint8_t) (s >> (8 * i));
	for (i = 0; i < 6; i++)
		nonce[6 + i] = (uint8_t) (cell >> (8 * i));
}

/* The draws of one measurement or leaf of one cell (see sqrt_counter.h). */
void
dpk_sqrt_draws(DpkStream *s, const DpkCellKey *ck, int leaf, uint32_t index,
			   const DpkCellVars *vars, int64_t *out)
{
	uint8_t		nonce[DPK_NONCE_BYTES];

	sqrt_nonce(ck->level, ck->cell, leaf, index, nonce);
	dpk_stream_reseed(s, ck->key, nonce);
	out[0] = dpk_discrete_gaussian(s, vars->count);
	if (vars->sums != DPK_SUMS_VECTOR)
		return;
	memset(out + 1, 0, vars->d * sizeof(int64_t));
	dpk_gauss_vector_noise(s, vars->sum, vars->d, 1, out + 1);
}

/* One measurement's (or leaf's) draws times weight, added to acc[0..d]. */
static void
sqrt_add_draws(DpkStream *s, const DpkCellKey *ck, int leaf, uint32_t index,
			   int64_t weight, const DpkCellVars *vars, int64_t *tmp, __int128 *acc)
{
	int			n = vars->sums == DPK_SUMS_VECTOR ? vars->d : 0;
	int			j;

	dpk_sqrt_draws(s, ck, leaf, index, vars, tmp);
	for (j = 0; j <= n; j++)
		acc[j] += (__int128) weight * tmp[j];
}

/* The published counters of one cell at release t (see sqrt_counter.h). */
void
dpk_cell_noise_sqrt(DpkStream *s, const DpkCellKey *ck, const DpkSqrtCounter *sc,
					uint32_t t, const DpkCellVars *vars, const int64_t *truth,
					int64_t *out, int64_t *tmp, __int128 *acc)
{
	int			d = vars->d;
	int			noisy = vars->sums == DPK_SUMS_VECTOR ? d : 0;
	uint32_t	i;
	int			j;

	if (t < 1 || t > sc->horizon)
		dpk_fail("square-root counter: release out of the horizon");
	memset(acc, 0, (1 + d) * sizeof(__int128));
	for (i = 1; i <= t; i++)
	{
		sqrt_add_draws(s, ck, 0, i, sc->w[t - i], vars, tmp, acc);
		if (sc->r[t - i] != 0)
			sqrt_add_draws(s, ck, 1, i, sc->r[t - i], vars, tmp, acc);
	}
	for (j = 0; j <= d; j++)
	{
		int64_t		base = truth ? truth[j] : 0;

		if (j > noisy)
			out[j] = base;
		else if (!dpk_round_exact(base, acc[j], sc->den, &out[j]))
			dpk_fail("square-root counter: a release does not fit in 64 bits");
	}
}
