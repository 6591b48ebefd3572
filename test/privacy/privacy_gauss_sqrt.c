/*
 * privacy_gauss_sqrt.c
 *		The square-root counter's suite of privacy_gauss: (epsilon, delta)-DP
 *		of one cell of a Gaussian live table that counts with the square-root
 *		factorization (sqrt_counter.h), read from its releases.
 *
 * What runs.  One cell (level 3, cell 42) of a d = 2 Gaussian table with
 * horizon 64, insert_delete, epsilon 6, delta 1e-3, counter square_root:
 * the scales come from dpk_live_gauss_vars (the sensitivity sens2 of the
 * counter, twice with deletions).  Per run and stream, the cell's 64
 * measurements and 64 leaves are drawn as releases draw them
 * (dpk_sqrt_draws, the table's nonces) and releases 1..64 computed from
 * them with the counter's integer weights, rounded exactly; for the first
 * runs each release is also computed by dpk_cell_noise_sqrt, which must
 * give the same integers.  Stream A never has a point in the cell; stream B
 * inserts one at release 1 and deletes it at release 33.
 *
 * What is checked.  The releases' noise is Gaussian with covariance
 * sigma^2 M M^T (M: the weights / den, T x 2T), and B moves the releases
 * by s (1 on releases 1..32 for the count, the point's offsets for the
 * sums).  The optimal test is the half-space on Z = <g, r> / (sigma
 * sqrt(<g, s>)), g = (M M^T)^-1 s, about N(0, 1) under A and N(mu, 1) under
 * B with mu^2 / 2 = rho_moved = <g, s> / (2 sigma^2); rho_moved must lie
 * within its family's rho, and the events of gauss_events.h hold at it.
 * DPK_PRIVACY_WEAKEN=2 (sigma halved) and =deletes (sigma^2 of an
 * insert-only table) must fail.
 *
 * A projected table (gauss_sqrt_projected_suite, counter square_root_sums)
 * counts its cells and its lifting sums with the same counter: d = 8, two
 * copies, the same horizon, epsilon, delta and pair; B's point lies in one
 * cell of each copy (keyed by copy level and cell as releases key them)
 * with the largest lifting contribution q (every coordinate +-512, the
 * sums' per-coordinate bound), so each statistic reads both cells:
 * rho_moved = 2 <g, s> / (2 sigma^2) for the counts and 2 <g, s> ||q||^2 /
 * (2 sigma_sum^2) for the sums, within the families' rho (sens2 x copies x
 * 2, times d 512^2 for the sums).  Its counts are drawn exactly as a
 * 'square_root' table's (the same nonces and variance: checked), so the
 * suite covers those too; its norm counter is the tree's (norm_suite).
 * Both weakened modes halve the sums' variance as well and must fail.
 * A 'square_root_lifted' table has exactly these variances and rho (its
 * releases read the same counter's sums for fewer cells): checked.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "dgauss.h"
#include "dpk_mem.h"
#include "live_core.h"
#include "sqrt_counter.h"
#include "tree_estimator.h"
#include "zcdp.h"
#include "../unit/unit.h"
#include "gauss_events.h"

#define SQ_T		64
#define SQ_EPS		6.0
#define SQ_DELTA	1e-3
#define SQ_INS		1
#define SQ_DEL		33
#define SQ_KEY		(UINT64_C(1) << 50)
#define SQ_B_OFFSET (UINT64_C(1) << 40)
#define SQ_CROSS	40			/* runs whose releases dpk_cell_noise_sqrt recomputes */

/* the point's in-cell offsets (1000, 700) about the cell's middle, as the sums' noise is drawn */
static const int64_t sq_rel[2] = {1000 - DPK_REL_CENTRE, 700 - DPK_REL_CENTRE};

/* The projected suite's table: SQ_PD columns; its point's lifting contribution (<= 512 each). */
#define SQ_PD		8
static const int64_t sq_lift[SQ_PD] = {512, -512, 512, 512, -512, 512, -512, -512};

/* Cholesky factor of the releases' noise covariance in measurement variances. */
static double *
release_cov_chol(const DpkSqrtCounter *sc)
{
	int			n = SQ_T,
				i,
				j,
				k;
	double	   *A = calloc((size_t) n * n, sizeof(double));
	double		den = (double) sc->den;

	/* (M M^T)[i][j] = sum over measurements and leaves s <= min(i, j) */
	for (i = 1; i <= n; i++)
		for (j = 1; j <= i; j++)
		{
			double		acc = 0.0;

			for (k = 1; k <= j; k++)
				acc += ((double) sc->w[i - k] * sc->w[j - k] +
						(double) sc->r[i - k] * sc->r[j - k]) / (den * den);
			A[(i - 1) * n + (j - 1)] = A[(j - 1) * n + (i - 1)] = acc;
		}
	ge_cholesky(A, n);
	return A;
}

/* The square-root suite (see gauss_events.h). */
void
gauss_sqrt_suite(long runs, double weaken, bool weaken_deletes, uint64_t key_base,
				 double confidence, int *passed, int *failed)
{
	DpkLiveConfig nominal;
	const DpkSqrtCounter *sc;
	double		v[3],
				vm[3],
				l2sq[3],
				g[SQ_T],
				s_count[SQ_T],
				gs = 0.0,
				spent;
	double	   *chol;
	DpkCellVars vars;
	GaussEvents ev;
	int			mismatches = 0,
				t;
	long		r;

	dpk_live_defaults(&nominal, 2, 4, SQ_EPS, SQ_T, false);
	dpk_live_use_delta(&nominal, SQ_DELTA);
	nominal.level = 3;
	nominal.counter = DPK_LIVE_COUNTER_SQRT;
	ge_live_vars(&nominal, weaken_deletes, v, vm, l2sq);
	vars = (DpkCellVars) {2, dpk_gauss_scale_from_double(vm[0] / (weaken * weaken)),
	dpk_gauss_scale_from_double(vm[1] / (weaken * weaken)), DPK_SUMS_VECTOR};
	sc = dpk_sqrt_counter_cached(SQ_T);

	/* B's shift of the releases and the optimal direction g = (M M^T)^-1 s */
	chol = release_cov_chol(sc);
	for (t = 1; t <= SQ_T; t++)
		s_count[t - 1] = g[t - 1] = t >= SQ_INS && t < SQ_DEL ? 1.0 : 0.0;
	ge_chol_solve(chol, SQ_T, g);
	for (t = 0; t < SQ_T; t++)
		gs += g[t] * s_count[t];
	free(chol);

	spent = l2sq[0] / (2.0 * v[0]) + l2sq[1] / (2.0 * v[1]);
	memset(&ev, 0, sizeof(ev));
	ev.suite = "privacy_gauss square root";
	ev.nstat = 3;
	ev.name[0] = "counts";
	ev.name[1] = "sums";
	ev.name[2] = "both";
	ev.rho_moved[0] = gs / (2.0 * v[0]);
	ev.rho_moved[1] = gs * (double) (sq_rel[0] * sq_rel[0] + sq_rel[1] * sq_rel[1]) / (2.0 * v[1]);
	ev.rho_moved[2] = ev.rho_moved[0] + ev.rho_moved[1];
	CHECK(fabs(spent - dpk_live_rho(&nominal)) <= 1e-12 * spent,
		  "square-root suite: families spend rho %.12g of %.12g", spent, dpk_live_rho(&nominal));
	CHECK(ev.rho_moved[0] <= l2sq[0] / (2.0 * v[0]) * (1.0 + 1e-9) &&
		  ev.rho_moved[1] <= l2sq[1] / (2.0 * v[1]) * (1.0 + 1e-9),
		  "square-root suite: the pair moves rho %.6g / %.6g beyond the families' %.6g / %.6g",
		  ev.rho_moved[0], ev.rho_moved[1], l2sq[0] / (2.0 * v[0]), l2sq[1] / (2.0 * v[1]));
	printf("privacy_gauss square root: horizon %d, epsilon %g, delta %g, insert at %d, delete "
		   "at %d; sigma per measurement count %.1f, sums %.1f%s; rho moved counts %.4f "
		   "(family %.4f), sums %.4f (family %.4f)\n", SQ_T, SQ_EPS, SQ_DELTA, SQ_INS, SQ_DEL,
		   sqrt(v[0]), sqrt(v[1]),
		   weaken != 1.0 || weaken_deletes ? " (nominal; WEAKENED in the mechanism)" : "",
		   ev.rho_moved[0], l2sq[0] / (2.0 * v[0]), ev.rho_moved[1], l2sq[1] / (2.0 * v[1]));

	for (r = 1; r <= runs; r++)
	{
		int			w;

		for (w = 0; w < 2; w++)
		{
			uint8_t		key[DPK_KEY_BYTES];
			int64_t		eta[SQ_T + 1][3],
						zeta[SQ_T + 1][3];
			const DpkCellKey ck = {key, 3, 42};
			DpkStream	st;
			double		dot[3] = {0.0, 0.0, 0.0},
						z[3],
						mu_c,
						mu_s;
			int			i,
						j;

			dpk_key_from_seed(key_base + SQ_KEY + (w ? SQ_B_OFFSET : 0) + (uint64_t) r, key);
			memset(&st, 0, sizeof(st));
			for (i = 1; i <= SQ_T; i++)
			{
				dpk_sqrt_draws(&st, &ck, 0, (uint32_t) i, &vars, eta[i]);
				dpk_sqrt_draws(&st, &ck, 1, (uint32_t) i, &vars, zeta[i]);
			}
			for (t = 1; t <= SQ_T; t++)
			{
				bool		present = w == 1 && t >= SQ_INS && t < SQ_DEL;
				int64_t		truth[3] = {present, present ? sq_rel[0] : 0, present ? sq_rel[1] : 0};
				int64_t		rel[3];

				for (j = 0; j < 3; j++)
				{
					__int128	acc = 0;

					for (i = 1; i <= t; i++)
						acc += (__int128) sc->w[t - i] * eta[i][j] +
							(__int128) sc->r[t - i] * zeta[i][j];
					if (!dpk_round_exact(truth[j], acc, sc->den, &rel[j]))
						mismatches++;
				}
				if (r <= SQ_CROSS)
				{
					int64_t		out[3],
								tmp[3];
					__int128	acc3[3];

					dpk_cell_noise_sqrt(&st, &ck, sc, (uint32_t) t, &vars, truth, out, tmp, acc3);
					mismatches += out[0] != rel[0] || out[1] != rel[1] || out[2] != rel[2];
				}
				dot[0] += g[t - 1] * (double) rel[0];
				dot[1] += g[t - 1] * ((double) sq_rel[0] * rel[1] + (double) sq_rel[1] * rel[2]);
			}
			dpk_stream_close(&st);
			z[0] = dot[0] / (sqrt(v[0]) * sqrt(gs));
			z[1] = dot[1] / (sqrt(v[1]) * sqrt(gs) * hypot((double) sq_rel[0], (double) sq_rel[1]));
			mu_c = sqrt(2.0 * ev.rho_moved[0]);
			mu_s = sqrt(2.0 * ev.rho_moved[1]);
			z[2] = (mu_c * z[0] + mu_s * z[1]) / hypot(mu_c, mu_s);
			ge_add(&ev, w, z);
		}
	}
	CHECK(mismatches == 0, "square-root suite: %d releases differ from dpk_cell_noise_sqrt",
		  mismatches);
	ge_check(&ev, confidence);
	*passed += unit_passed;
	*failed += unit_failed;
}

/* The projected square-root suite (see the header and gauss_events.h). */
void
gauss_sqrt_projected_suite(long runs, double weaken, bool weaken_deletes, uint64_t key_base,
						   double confidence, int *passed, int *failed)
{
	DpkLiveConfig nominal,
				counts_only;
	const DpkSqrtCounter *sc;
	double		v[3],
				vm[3],
				vc[3],
				l2sq[3],
				g[SQ_T],
				s_count[SQ_T],
				gs = 0.0,
				q2 = 0.0,
				spent;
	double	   *chol;
	DpkCellVars vars;
	GaussEvents ev;
	int			mismatches = 0,
				t,
				j;
	long		r;
	/* B's point: cell 5 of copy 0 and cell 9 of copy 1 */
	static const uint64_t cells[2] = {5, 9};

	unit_passed = unit_failed = 0;
	dpk_live_defaults(&nominal, SQ_PD, 4, SQ_EPS, SQ_T, false);
	dpk_live_use_projection(&nominal, 7);
	dpk_live_use_delta(&nominal, SQ_DELTA);
	nominal.copies = 2;
	nominal.level = 1;
	counts_only = nominal;
	nominal.counter = DPK_LIVE_COUNTER_SQRT_SUMS;
	counts_only.counter = DPK_LIVE_COUNTER_SQRT;
	dpk_live_use_norm_shift(&nominal);
	dpk_live_use_norm_shift(&counts_only);
	ge_live_vars(&nominal, weaken_deletes, v, vm, l2sq);
	dpk_live_gauss_vars(&counts_only, vc);
	vars = (DpkCellVars) {SQ_PD, dpk_gauss_scale_from_double(vm[0] / (weaken * weaken)),
	dpk_gauss_scale_from_double(vm[1] / (weaken * weaken)), DPK_SUMS_VECTOR};
	sc = dpk_sqrt_counter_cached(SQ_T);
	for (j = 0; j < SQ_PD; j++)
		q2 += (double) sq_lift[j] * sq_lift[j];

	chol = release_cov_chol(sc);
	for (t = 1; t <= SQ_T; t++)
		s_count[t - 1] = g[t - 1] = t >= SQ_INS && t < SQ_DEL ? 1.0 : 0.0;
	ge_chol_solve(chol, SQ_T, g);
	for (t = 0; t < SQ_T; t++)
		gs += g[t] * s_count[t];
	free(chol);

	spent = l2sq[0] / (2.0 * v[0]) + l2sq[1] / (2.0 * v[1]) + l2sq[2] / (2.0 * v[2]);
	memset(&ev, 0, sizeof(ev));
	ev.suite = "privacy_gauss square root, projected";
	ev.nstat = 3;
	ev.name[0] = "counts";
	ev.name[1] = "sums";
	ev.name[2] = "both";
	ev.rho_moved[0] = 2.0 * gs / (2.0 * v[0]);
	ev.rho_moved[1] = 2.0 * gs * q2 / (2.0 * v[1]);
	ev.rho_moved[2] = ev.rho_moved[0] + ev.rho_moved[1];
	CHECK(DPK_LIVE_SQRT_FAMILY(&nominal, 0) && DPK_LIVE_SQRT_FAMILY(&nominal, 1) &&
		  !DPK_LIVE_SQRT_FAMILY(&nominal, 2) && v[0] == vc[0],
		  "projected square-root suite: counts and sums on the square root, the counts "
		  "those of a 'square_root' table");
	CHECK(fabs(spent - dpk_live_rho(&nominal)) <= 1e-12 * spent,
		  "projected square-root suite: families spend rho %.12g of %.12g", spent,
		  dpk_live_rho(&nominal));
	{
		/*
		 * 'square_root_lifted' is this counter with the sums read for the
		 * lifted cells alone (post-processing): the same variances,
		 * sensitivities and rho, so this suite covers it.
		 */
		DpkLiveConfig lifted = nominal;
		double		lv[3],
					lvm[3],
					ll2[3];

		lifted.counter = DPK_LIVE_COUNTER_SQRT_LIFTED;
		ge_live_vars(&lifted, weaken_deletes, lv, lvm, ll2);
		CHECK(DPK_LIVE_SQRT_FAMILY(&lifted, 1) && memcmp(lv, v, sizeof(lv)) == 0 &&
			  memcmp(lvm, vm, sizeof(lvm)) == 0 && memcmp(ll2, l2sq, sizeof(ll2)) == 0 &&
			  dpk_live_rho(&lifted) == dpk_live_rho(&nominal),
			  "projected square-root suite: square_root_lifted's noise differs from square_root_sums'");
	}
	CHECK(ev.rho_moved[0] <= l2sq[0] / (2.0 * v[0]) * (1.0 + 1e-9) &&
		  ev.rho_moved[1] <= l2sq[1] / (2.0 * v[1]) * (1.0 + 1e-9),
		  "projected square-root suite: the pair moves rho %.6g / %.6g beyond the families' %.6g / %.6g",
		  ev.rho_moved[0], ev.rho_moved[1], l2sq[0] / (2.0 * v[0]), l2sq[1] / (2.0 * v[1]));
	printf("privacy_gauss square root, projected: d %d, %d copies, horizon %d, epsilon %g, delta %g; "
		   "sigma per measurement count %.1f, sums %.1f%s; rho moved counts %.4f (family %.4f), "
		   "sums %.4f (family %.4f)\n", SQ_PD, nominal.copies, SQ_T, SQ_EPS, SQ_DELTA, sqrt(v[0]),
		   sqrt(v[1]), weaken != 1.0 || weaken_deletes ? " (nominal; WEAKENED in the mechanism)" : "",
		   ev.rho_moved[0], l2sq[0] / (2.0 * v[0]), ev.rho_moved[1], l2sq[1] / (2.0 * v[1]));

	for (r = 1; r <= runs; r++)
	{
		int			w;

		for (w = 0; w < 2; w++)
		{
			uint8_t		key[DPK_KEY_BYTES];
			DpkStream	st;
			double		dot[2] = {0.0, 0.0},
						z[3],
						mu_c,
						mu_s;
			int			copy;

			dpk_key_from_seed(key_base + SQ_KEY + SQ_B_OFFSET / 2 + (w ? SQ_B_OFFSET : 0) +
							  (uint64_t) r, key);
			memset(&st, 0, sizeof(st));
			for (copy = 0; copy < 2; copy++)
			{
				const DpkCellKey ck = {key, nominal.level + 32 * copy, cells[copy]};
				int64_t		eta[SQ_T + 1][1 + SQ_PD],
							zeta[SQ_T + 1][1 + SQ_PD];
				int			i;

				for (i = 1; i <= SQ_T; i++)
				{
					dpk_sqrt_draws(&st, &ck, 0, (uint32_t) i, &vars, eta[i]);
					dpk_sqrt_draws(&st, &ck, 1, (uint32_t) i, &vars, zeta[i]);
				}
				for (t = 1; t <= SQ_T; t++)
				{
					bool		present = w == 1 && t >= SQ_INS && t < SQ_DEL;
					int64_t		truth[1 + SQ_PD],
								rel[1 + SQ_PD];
					double		qr = 0.0;

					truth[0] = present;
					for (j = 0; j < SQ_PD; j++)
						truth[1 + j] = present ? sq_lift[j] : 0;
					for (j = 0; j <= SQ_PD; j++)
					{
						__int128	acc = 0;

						for (i = 1; i <= t; i++)
							acc += (__int128) sc->w[t - i] * eta[i][j] +
								(__int128) sc->r[t - i] * zeta[i][j];
						if (!dpk_round_exact(truth[j], acc, sc->den, &rel[j]))
							mismatches++;
					}
					if (r <= SQ_CROSS)
					{
						int64_t		out[1 + SQ_PD],
									tmp[1 + SQ_PD];
						__int128	acc9[1 + SQ_PD];

						dpk_cell_noise_sqrt(&st, &ck, sc, (uint32_t) t, &vars, truth, out, tmp,
											acc9);
						for (j = 0; j <= SQ_PD; j++)
							mismatches += out[j] != rel[j];
					}
					for (j = 0; j < SQ_PD; j++)
						qr += (double) sq_lift[j] * rel[1 + j];
					dot[0] += g[t - 1] * (double) rel[0];
					dot[1] += g[t - 1] * qr;
				}
			}
			dpk_stream_close(&st);
			z[0] = dot[0] / (sqrt(v[0]) * sqrt(2.0 * gs));
			z[1] = dot[1] / (sqrt(v[1]) * sqrt(2.0 * gs) * sqrt(q2));
			mu_c = sqrt(2.0 * ev.rho_moved[0]);
			mu_s = sqrt(2.0 * ev.rho_moved[1]);
			z[2] = (mu_c * z[0] + mu_s * z[1]) / hypot(mu_c, mu_s);
			ge_add(&ev, w, z);
		}
	}
	CHECK(mismatches == 0, "projected square-root suite: %d releases differ from dpk_cell_noise_sqrt",
		  mismatches);
	ge_check(&ev, confidence);
	*passed += unit_passed;
	*failed += unit_failed;
}
