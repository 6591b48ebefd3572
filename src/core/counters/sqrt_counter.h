/*
 * sqrt_counter.h
 *		A continual counter from the square-root factorization of the prefix
 *		sum, with integer measurements and exact rational weights.
 *
 * The prefix-sum matrix S (lower triangular, all ones) is S = C^2 with C
 * lower-triangular Toeplitz, c_k = binom(2k, k) / 4^k (Fichtenberger,
 * Henzinger and Upadhyay, "Constant matters: fine-grained error bound on
 * differentially private continual observation", ICML 2023).  Releasing
 * S C^-1 (C x + z) costs, under Gaussian noise, within a few per cent of
 * the best factorization, against about 3x for the binary tree.
 *
 * Discrete Gaussian noise needs integer queries, so the measurements are
 *
 *	   m_s = sum_{i <= s} rc_{s-i} x_i + eta_s,	  rc_k = round(2^G c_k),
 *	   l_s = x_s + zeta_s	(a "leaf": the events of release s alone),
 *
 * s = 1 .. horizon, all drawn with the same sigma^2.  An event at release i
 * moves m_s by rc_{s-i} (s >= i) and l_i by 1, so the squared l2
 * sensitivity of every measurement together is sum_k rc_k^2 + 1 (sens2).
 * Release t publishes the true prefix plus
 *
 *	   ( sum_{s<=t} w_{t-s} eta_s + r_{t-s} zeta_s ) / den,
 *
 * with integer w and r chosen so that sum_{j<=k} w_j rc_{k-j} + r_k = den
 * for every k: every event up to t then carries total weight exactly 1, and
 * the release equals the fixed rational combination of the measurements
 * sum (w m + r l) / den.  It is therefore a post-processing of the
 * measurements, which are discrete Gaussian mechanisms on integer queries
 * of events already written (measurement s is first used at release s): an
 * adaptive composition with rho = sens2 Delta^2 / (2 sigma^2) (zcdp.h).
 * w_k is the nearest integer to the exact solution step by step, so
 * |r_k| <= 2^G / 2: the leaves only repair the rounding and add a few
 * 2^-2G of the variance.  Every quantity is an integer; the release is
 * rounded exactly (dpk_round_exact) with an odd den, so it has no ties.
 *
 * The noise of release t reads t measurements and t leaves per counter
 * (the binary tree reads popcount(t) nodes), drawn from the table's key by
 * (level, cell, measurement): the same draw at every release.
 *
 * Plain C, no PostgreSQL headers.
 */
#ifndef DPK_SQRT_COUNTER_H
#define DPK_SQRT_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

#include "counter.h"
#include "dgauss.h"
#include "noise.h"

/* Bits of the measurements' fixed point: rc_0 = 2^G. */
#define DPK_SQRT_SHIFT 12

/* Largest horizon the counter takes (its tables are O(horizon)). */
#define DPK_SQRT_MAX_HORIZON 65536

/* The integer factorization of one horizon (all public). */
typedef struct DpkSqrtCounter
{
	uint32_t	horizon;
	int			shift;			/* G */
	int64_t    *rc;				/* rc_k, k = 0 .. horizon - 1 */
	int64_t    *w;				/* w_k: measurement weights, over den */
	int64_t    *r;				/* r_k: leaf weights, over den */
	int64_t		den;			/* DPK_TREE_WEIGHT_DEN (odd) */
	double		sens2;			/* sum_k rc_k^2 + 1 */
	double	   *norm2;			/* norm2[t] = sum_{k<t} (w_k^2 + r_k^2) / den^2 */
} DpkSqrtCounter;

/*
 * The factorization for `horizon` releases at fixed point `shift` (1 .. 20;
 * DPK_SQRT_SHIFT for tables).  Allocates; dpk_sqrt_counter_free releases.
 */
void		dpk_sqrt_counter_init(DpkSqrtCounter *sc, uint32_t horizon, int shift);
void		dpk_sqrt_counter_free(DpkSqrtCounter *sc);

/*
 * The factorization of `horizon` at DPK_SQRT_SHIFT, computed once and kept
 * by the process (never freed by the caller).
 */
const DpkSqrtCounter *dpk_sqrt_counter_cached(uint32_t horizon);

/*
 * Variance of release t in units of one measurement's variance:
 * sum_{k<t} (w_k^2 + r_k^2) / den^2.
 */
double		dpk_sqrt_release_norm2(const DpkSqrtCounter *sc, uint32_t t);

/* Mean of dpk_sqrt_release_norm2 over releases T/4 .. T. */
double		dpk_sqrt_typical_norm2(const DpkSqrtCounter *sc);

/*
 * Variance of release t (1 .. horizon) in units of one full-budget release
 * (the variance of one count released once with the counter's whole rho):
 * sens2 * sum_{k<t} (w_k^2 + r_k^2) / den^2.
 */
double		dpk_sqrt_release_units(const DpkSqrtCounter *sc, uint32_t t);

/*
 * The draws of measurement (leaf 0) or leaf (leaf 1) number `index` of one
 * cell: out[0] ~ N_Z(0, vars->count) and, when vars->sums is
 * DPK_SUMS_VECTOR, out[1..d] ~ N_Z(0, vars->sum), from the table's key
 * re-keyed by (level, cell, 0x40 | leaf, index).
 */
void		dpk_sqrt_draws(DpkStream *s, const DpkCellKey *ck, int leaf, uint32_t index,
						   const DpkCellVars *vars, int64_t *out);

/*
 * The published counters of one cell at release t: out[j] = the nearest
 * integer to truth[j] + noise_j, noise_j the weighted sum above of the
 * measurement and leaf draws of coordinate j (j = 0 the count with variance
 * vars->count, 1..d the sums with vars->sum when vars->sums is
 * DPK_SUMS_VECTOR, else out[1..d] = truth).  truth NULL for zeros.
 * tmp, acc: scratch of 1 + d 64-bit and 1 + d 128-bit integers.
 */
void		dpk_cell_noise_sqrt(DpkStream *s, const DpkCellKey *ck,
								const DpkSqrtCounter *sc, uint32_t t,
								const DpkCellVars *vars, const int64_t *truth,
								int64_t *out, int64_t *tmp, __int128 *acc);

#endif
