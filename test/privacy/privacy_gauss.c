/*
 * privacy_gauss.c
 *		Empirical check of (epsilon, delta)-DP of the Gaussian live counters
 *		and (privacy_gauss_oneshot.c) of the Gaussian one-shot releases.
 *
 * What runs.  One cell of a Gaussian live table (d = 2, T = 8, counted level
 * 3, insert_delete, epsilon 6, delta 1e-3, so rho = dpk_zcdp_rho(6, 1e-3),
 * split by the Gaussian default shares, 0.7 on the counts and 0.3 on the
 * sums) as a release makes it:
 * release t adds dpk_cell_noise_gauss at t (the plain binary decomposition)
 * to the cell's true count and sums.  Stream A never has a point in the
 * cell; stream B has one, inserted at release 1 and deleted at release 5:
 * the worst neighbouring pair for T = 8 (it moves 5 of the 2h = 8 node
 * entries the sensitivity pays for).  Each moved node's noisy value is read
 * as the difference of two releases, exactly what an analyst sees.  One run
 * = one key (dpk_key_from_seed(r) for A, 2^40 + r for B).
 *
 * What is checked.  The optimal tests against a Gaussian shift are
 * half-spaces: with s the shift of the moved nodes (counts: +-1; sums:
 * +-rel) and v the read node values, Z = <s, v> / (sigma ||s||) is about
 * N(0, 1) under A and N(mu, 1) under B, mu = ||s|| / sigma.  For Z of the
 * counts, of the sums and of both (weighted by their mu), events Z >= c and
 * Z <= c at seven thresholds are checked for several epsilon':
 *     lo(P[E|B]) <= e^eps' hi(P[E|A]) + delta'   and the same with A, B swapped,
 * delta' = dpk_zcdp_delta(rho_moved, eps') with rho_moved = ||s||^2 /
 * (2 sigma^2) the zCDP cost of exactly the nodes the pair moves (at most the
 * family's rho, checked too).  lo/hi are Chernoff bounds; all intervals hold
 * together with probability >= 1 - 1e-6 (Bonferroni), so a mechanism that
 * meets its accounting fails with probability <= 1e-6.  Before the events,
 * the accounting itself: the families' rho add up to dpk_live_rho and its
 * delta at epsilon is at most delta.
 *
 * How strong it is.  The conversion from zCDP is not tight for a single
 * Gaussian (its delta' exceeds the exact hockey-stick value), so the
 * unweakened mechanism passes with room; DPK_PRIVACY_WEAKEN=2 (every sigma
 * halved: mu doubled, rho x4) exceeds delta' by 0.1 to 0.2 on the
 * half-spaces near the optimum, far beyond the sampling slack at R = 20000,
 * and must fail; DPK_PRIVACY_WEAKEN=deletes (sigma^2 at the insert_only
 * sensitivity, i.e. halved) must fail too.  What it cannot show: a finite
 * sample of a finite event family on one neighbouring pair, not a proof.
 *
 * The norm counter of projected tables (the sum of squared norms, counted
 * in units of 2^s) is checked by norm_suite below, a cell of a table with
 * the square-root counter and the counts and lifting sums of a projected
 * one by the suites of privacy_gauss_sqrt.c, the refined lifting sums of
 * a large-d norm-bound one by privacy_gauss_refine.c, and the
 * one-shot releases
 * (dp_kmeans with delta > 0, low d and the high-d joint mode) the same way
 * by the suites of privacy_gauss_oneshot.c, run after this one; the seven
 * suites share the confidence (1e-6 in all), and DPK_PRIVACY_WEAKEN=2 must
 * fail in each (the norm suite through its noise variance: its moved rho is
 * too small for a half-space to show it).
 *
 * Usage: privacy_gauss [quick|long] (R = 20000 or 500000 runs per stream;
 * DPK_PRIVACY_RUNS, DPK_PRIVACY_WEAKEN and DPK_PRIVACY_KEYS as in
 * privacy_test.c).  Last line "privacy_gauss: N passed, M failed".
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
#include "zcdp.h"
#include "../unit/unit.h"
#include "gauss_events.h"

#define T_G			8
#define EPS_G		6.0
#define DELTA_G		1e-3
#define INS_AT		1
#define DEL_AT		5
#define CONFIDENCE	1e-6
#define NSUITES		7			/* live cell, live norm counter, square-root
								 * counter, its projected counts and sums, refined
								 * lifting sums, one-shot low d, one-shot high d */
#define B_SEED_OFFSET (UINT64_C(1) << 40)
#define NTHR		7
#define NEPS		3
#define NSTAT		3

static const double thresholds[NTHR] = {-0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5};
static const double eps_check[NEPS] = {0.0, 0.5, 1.0};
static const char *const stat_name[NSTAT] = {"counts", "sums", "both"};
/* the point's in-cell offsets (1000, 700) about the cell's middle, as the sums' noise is drawn */
static const int64_t rel_pt[2] = {1000 - DPK_REL_CENTRE, 700 - DPK_REL_CENTRE};

/* A used tree node of the plain decomposition: read as y[tp] - y[tm]. */
typedef struct GNode
{
	uint32_t	tp,
				tm;
	int			shift;			/* B's count change in the node */
} GNode;

/*
 * The nodes releases 1..T use (binary decomposition: [a+1, a+2^l] with bit
 * l of a clear) and B's shift in each, B's point inserted at release ins
 * and deleted at release del; returns their number.
 */
static int
used_nodes(uint32_t T, uint32_t ins, uint32_t del, GNode *out)
{
	int			n = 0,
				l;

	for (l = 0; (1u << l) <= T; l++)
	{
		uint32_t	a;

		for (a = 0; a + (1u << l) <= T; a += 2u << l)
		{
			uint32_t	lo = a + 1,
						hi = a + (1u << l);

			out[n].tp = hi;
			out[n].tm = a;
			out[n].shift = (ins >= lo && ins <= hi) - (del >= lo && del <= hi);
			n++;
		}
	}
	return n;
}

/* The three statistics of one run from its releases y[t][0..2]. */
static void
statistics(const GNode *nodes, int nn, int64_t (*y)[3], double sc, double ss,
		   double mu_c, double mu_s, double *z)
{
	double		zc = 0.0,
				zs = 0.0,
				nc = 0.0;
	int			u;

	for (u = 0; u < nn; u++)
	{
		double		vc = (double) (y[nodes[u].tp][0] - y[nodes[u].tm][0]);
		double		vs = (double) rel_pt[0] * (y[nodes[u].tp][1] - y[nodes[u].tm][1]) +
			(double) rel_pt[1] * (y[nodes[u].tp][2] - y[nodes[u].tm][2]);

		zc += nodes[u].shift * vc;
		zs += nodes[u].shift * vs;
		nc += nodes[u].shift * nodes[u].shift;
	}
	z[0] = zc / (sc * sqrt(nc));
	z[1] = zs / (ss * sqrt(nc) * hypot((double) rel_pt[0], (double) rel_pt[1]));
	z[2] = (mu_c * z[0] + mu_s * z[1]) / hypot(mu_c, mu_s);
}

/* Releases 1..T of the cell for one key; B adds its true point. */
static void
run_stream(bool is_b, const uint8_t key[DPK_KEY_BYTES], DpkGaussScale cv, DpkGaussScale sv,
		   int64_t (*y)[3])
{
	DpkStream	st;
	uint32_t	t;

	memset(&st, 0, sizeof(st));
	memset(y, 0, sizeof(int64_t) * 3 * (T_G + 1));
	for (t = 1; t <= T_G; t++)
	{
		bool		present = is_b && t >= INS_AT && t < DEL_AT;

		dpk_cell_noise_gauss(&st, &(DpkCellKey) {key, 3, 42}, t,
							 &(DpkCellVars) {2, cv, sv, DPK_SUMS_VECTOR}, y[t]);
		if (present)
		{
			y[t][0] += 1;
			y[t][1] += rel_pt[0];
			y[t][2] += rel_pt[1];
		}
	}
	dpk_stream_close(&st);
}

/*
 * The norm counter of a projected Gaussian table (the sum of the rows'
 * squared norms, one global counter under the tree): d = 384, horizon 16,
 * epsilon 1, delta 1e-6, the configuration of dp_attach, whose norm counter
 * counts in units of 2^s with s > 0 (dpk_live_use_norm_shift; checked).
 * B's point is a corner of the box, its contribution taken from the
 * capture itself (dpk_live_add_projected), inserted at release 1 and deleted
 * at 9: it moves 7 of the 10 node entries the sensitivity pays for, the
 * most any pair moves in the nodes releases read.  Its noise is
 * drawn as the release draws it (dpk_live_cell_noise, cell 255/0); each
 * moved node is read as a difference of releases.  Checked: the three
 * families' rho add up to the table's, the point moves at most the norm
 * family's rho (a capture counting more than the sensitivity's unit fails
 * here), and the half-space events and noise variance of gauss_events.h.
 */
#define NORM_D		384
#define NORM_T		16
#define NORM_EPS	1.0
#define NORM_DELTA	1e-6
#define NORM_INS	1
#define NORM_DEL	9
#define NORM_KEY	(UINT64_C(1) << 48)

static int
norm_suite(long runs, double weaken, bool weaken_deletes, uint64_t key_base,
		   double confidence)
{
	DpkLiveConfig nominal;
	double		v[3],
				vm[3],
				l2sq[3],
				u[NORM_D],
				tpos[64],
				moved = 0.0,
				point,
				spent;
	DpkNoise	ns,
				cs;
	DpkCellMap	state;
	GaussEvents ev;
	GNode		nodes[64];
	int			nn,
				n,
				j;
	long		r;

	dpk_live_defaults(&nominal, NORM_D, 10, NORM_EPS, NORM_T, false);
	dpk_live_use_projection(&nominal, 7);
	dpk_live_use_delta(&nominal, NORM_DELTA);
	dpk_live_use_norm_shift(&nominal);
	CHECK(nominal.norm_shift > 0, "norm suite: unit 2^%d, the suite needs a coarser one",
		  nominal.norm_shift);
	ge_live_vars(&nominal, weaken_deletes, v, vm, l2sq);
	ns = dpk_noise_gauss(dpk_gauss_scale_from_double(vm[2] / (weaken * weaken)));
	cs = dpk_noise_gauss(dpk_gauss_scale_from_double(vm[0] / (weaken * weaken)));

	/* B's point: a corner of the box, counted by the capture */
	for (j = 0; j < NORM_D; j++)
		u[j] = 1.0;
	for (j = 0; j < nominal.dhat * nominal.copies; j++)
		tpos[j] = 0.3;
	dpk_cellmap_init(&state, NORM_D);
	dpk_live_add_projected(&nominal, &state, u, tpos, 1);
	point = (double) dpk_cellmap_get(&state, DPK_LIVE_NORM_CELL(&nominal))[0];
	dpk_cellmap_free(&state);

	nn = used_nodes(NORM_T, NORM_INS, NORM_DEL, nodes);
	for (n = 0; n < nn; n++)
		moved += nodes[n].shift * nodes[n].shift;
	spent = l2sq[0] / (2.0 * v[0]) + l2sq[1] / (2.0 * v[1]) + l2sq[2] / (2.0 * v[2]);
	memset(&ev, 0, sizeof(ev));
	ev.suite = "privacy_gauss norm";
	ev.nstat = 1;
	ev.name[0] = "squared norms";
	ev.rho_moved[0] = moved * point * point / (2.0 * v[2]);
	CHECK(fabs(spent - dpk_live_rho(&nominal)) <= 1e-12 * spent,
		  "norm suite: families spend rho %.12g of %.12g", spent, dpk_live_rho(&nominal));
	CHECK(ev.rho_moved[0] <= l2sq[2] / (2.0 * v[2]) * (1.0 + 1e-12),
		  "norm suite: the point moves rho %.6g beyond the family's %.6g", ev.rho_moved[0],
		  l2sq[2] / (2.0 * v[2]));
	printf("privacy_gauss norm: d %d, horizon %d, epsilon %g, delta %g, unit 2^%d; corner point "
		   "%.0f units (sensitivity per node %.1f); sigma %.1f%s; rho of the moved nodes %.6f "
		   "(family %.6f)\n", NORM_D, NORM_T, NORM_EPS, NORM_DELTA, nominal.norm_shift, point,
		   dpk_live_norm_point(&nominal), sqrt(v[2]),
		   weaken != 1.0 || weaken_deletes ? " (nominal; WEAKENED in the mechanism)" : "",
		   ev.rho_moved[0], l2sq[2] / (2.0 * v[2]));

	for (r = 1; r <= runs; r++)
	{
		int			w;

		for (w = 0; w < 2; w++)
		{
			uint8_t		key[DPK_KEY_BYTES];
			int64_t		y[NORM_T + 1],
						noise[1];
			DpkStream	st;
			double		z = 0.0;
			uint32_t	t;

			dpk_key_from_seed(key_base + NORM_KEY + (w ? B_SEED_OFFSET : 0) + (uint64_t) r, key);
			memset(&st, 0, sizeof(st));
			y[0] = 0;
			for (t = 1; t <= NORM_T; t++)
			{
				dpk_live_cell_noise(&st, &(DpkCellKey) {key, 255, 0}, t,
									&(DpkCellNoise) {0, &ns, &cs, DPK_SUMS_NONE, false, 0},
									noise);
				y[t] = noise[0] + (w == 1 && t >= NORM_INS && t < NORM_DEL ? (int64_t) point : 0);
			}
			dpk_stream_close(&st);
			for (n = 0; n < nn; n++)
				z += nodes[n].shift * (double) (y[nodes[n].tp] - y[nodes[n].tm]);
			z /= sqrt(v[2]) * sqrt(moved);
			ge_add(&ev, w, &z);
		}
	}
	return ge_check(&ev, confidence);
}

int
main(int argc, char **argv)
{
	bool		longmode = argc > 1 && strcmp(argv[1], "long") == 0;
	long		runs = longmode ? 500000 : 20000,
				r,
				hits[NSTAT][2][NTHR][2];
	double		sq[NSTAT];		/* sum of Z^2 under A: variance 1 at the nominal sigma */
	double		weaken = 1.0,
				v[3],
				vm[3],
				l2sq[3],
				rho_moved[NSTAT],
				mu_c,
				mu_s,
				tail,
				moved = 0.0;
	bool		weaken_deletes = false;
	uint64_t	key_base = 0;
	DpkLiveConfig nominal;
	DpkGaussScale cv,
				sv;
	GNode		nodes[64];
	int			nn,
				u,
				s,
				dir,
				i,
				e;

	if (!privacy_settings("privacy_gauss", &runs, &weaken, &weaken_deletes, &key_base))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);

	dpk_live_defaults(&nominal, 2, 2, EPS_G, T_G, false);
	nominal.level = 3;
	dpk_live_use_delta(&nominal, DELTA_G);
	ge_live_vars(&nominal, weaken_deletes, v, vm, l2sq);
	cv = dpk_gauss_scale_from_double(vm[0] / (weaken * weaken));
	sv = dpk_gauss_scale_from_double(vm[1] / (weaken * weaken));

	/* the accounting: the families' rho add up, and meet (epsilon, delta) */
	{
		double		rho = dpk_live_rho(&nominal),
					spent = l2sq[0] / (2.0 * v[0]) + l2sq[1] / (2.0 * v[1]);

		CHECK(fabs(spent - rho) <= 1e-12 * rho, "families spend rho %.12g of %.12g", spent, rho);
		CHECK(dpk_zcdp_delta(spent, EPS_G, NULL) <= DELTA_G * (1 + 1e-9),
			  "rho %.6g gives delta %.3g > %g at epsilon %g", spent,
			  dpk_zcdp_delta(spent, EPS_G, NULL), DELTA_G, EPS_G);
		printf("privacy_gauss: %s mode, R = %ld, epsilon %g, delta %g, rho %.6f; sigma count %.4f, "
			   "sigma sum %.1f (nominal)\n", longmode ? "long" : "quick", runs, EPS_G, DELTA_G, rho,
			   sqrt(v[0]), sqrt(v[1]));
	}
	if (weaken != 1.0 || weaken_deletes)
		printf("privacy_gauss: WEAKENED: sigma count %.4f, sigma sum %.1f\n",
			   sqrt(dpk_gauss_scale_value(cv)), sqrt(dpk_gauss_scale_value(sv)));

	nn = used_nodes(T_G, INS_AT, DEL_AT, nodes);
	printf("privacy_gauss: insert at %d, delete at %d; moved nodes:", INS_AT, DEL_AT);
	for (u = 0; u < nn; u++)
	{
		moved += nodes[u].shift * nodes[u].shift;
		if (nodes[u].shift)
			printf(" y%u-y%u%+d", nodes[u].tp, nodes[u].tm, nodes[u].shift);
	}
	printf("\n");
	/* the nominal loss of exactly the moved nodes, within each family's rho */
	rho_moved[0] = moved / (2.0 * v[0]);
	rho_moved[1] = moved * ((double) rel_pt[0] * rel_pt[0] + (double) rel_pt[1] * rel_pt[1]) /
		(2.0 * v[1]);
	rho_moved[2] = rho_moved[0] + rho_moved[1];
	CHECK(rho_moved[0] <= l2sq[0] / (2.0 * v[0]) && rho_moved[1] <= l2sq[1] / (2.0 * v[1]),
		  "the pair moves more than the sensitivities pay for");
	mu_c = sqrt(2.0 * rho_moved[0]);
	mu_s = sqrt(2.0 * rho_moved[1]);
	printf("privacy_gauss: rho of the moved nodes: counts %.4f, sums %.4f, both %.4f\n",
		   rho_moved[0], rho_moved[1], rho_moved[2]);

	memset(hits, 0, sizeof(hits));
	memset(sq, 0, sizeof(sq));
	for (r = 1; r <= runs; r++)
	{
		int64_t		y[T_G + 1][3];
		double		z[2][NSTAT];
		uint8_t		key[DPK_KEY_BYTES];
		int			w;

		for (w = 0; w < 2; w++)
		{
			dpk_key_from_seed(key_base + (w ? B_SEED_OFFSET : 0) + (uint64_t) r, key);
			run_stream(w == 1, key, cv, sv, y);
			statistics(nodes, nn, y, sqrt(v[0]), sqrt(v[1]), mu_c, mu_s, z[w]);
		}
		for (s = 0; s < NSTAT; s++)
			sq[s] += z[0][s] * z[0][s];
		for (s = 0; s < NSTAT; s++)
			for (i = 0; i < NTHR; i++)
				for (w = 0; w < 2; w++)
				{
					hits[s][0][i][w] += z[w][s] >= thresholds[i];
					hits[s][1][i][w] += z[w][s] <= thresholds[i];
				}
	}

	/*
	 * The noise the events' delta' assumes: under A each Z has variance 1
	 * at the nominal sigma (the discrete Gaussian's variance equals sigma^2
	 * to 1e-100 here); its sample second moment, a chi-square over R, must
	 * not be below 1 - 6 sqrt(2 / R) (probability below 1e-8 for a correct
	 * sampler).  A mechanism drawing less noise than its accounting (e.g. the
	 * deletion factor dropped: variance 1/2) fails here even when no single
	 * half-space beats the loose zCDP conversion.
	 */
	for (s = 0; s < NSTAT; s++)
	{
		double		m2 = sq[s] / (double) runs,
					floor_ = 1.0 - 6.0 * sqrt(2.0 / (double) runs);

		printf("privacy_gauss: [%s] variance of Z under A %.4f (nominal 1, floor %.4f)\n",
			   stat_name[s], m2, floor_);
		CHECK(m2 >= floor_, "[%s] noise below the accounting's sigma: variance %.4f < %.4f",
			  stat_name[s], m2, floor_);
	}

	tail = CONFIDENCE / NSUITES / (4.0 * NSTAT * 2 * NTHR);
	printf("%-8s %-10s %8s %8s %6s %9s %9s  %s\n", "stat", "event", "P_A", "P_B", "eps'",
		   "delta'", "excess", "verdict");
	for (s = 0; s < NSTAT; s++)
		for (dir = 0; dir < 2; dir++)
			for (i = 0; i < NTHR; i++)
			{
				long		na = hits[s][dir][i][0],
							nb = hits[s][dir][i][1];
				double		loa,
							hia,
							lob,
							hib;

				kl_interval(na, runs, tail, &loa, &hia);
				kl_interval(nb, runs, tail, &lob, &hib);
				for (e = 0; e < NEPS; e++)
				{
					double		dp = dpk_zcdp_delta(rho_moved[s], eps_check[e], NULL);
					double		excess = fmax(lob - exp(eps_check[e]) * hia,
											  loa - exp(eps_check[e]) * hib) - dp;
					bool		ok = excess <= 0.0;

					printf("%-8s Z %s %4.1f %8.5f %8.5f %6.2f %9.5f %9.5f  %s\n", stat_name[s],
						   dir ? "<=" : ">=", thresholds[i], (double) na / runs,
						   (double) nb / runs, eps_check[e], dp, excess, ok ? "ok" : "FAIL");
					CHECK(ok, "[%s] Z %s %.1f at eps' %.2f: certified excess %.5f over delta' %.5f",
						  stat_name[s], dir ? "<=" : ">=", thresholds[i], eps_check[e], excess, dp);
				}
			}
	/* the norm counter of a projected table */
	norm_suite(runs, weaken, weaken_deletes, key_base, CONFIDENCE / NSUITES);
	/* a cell of a square-root table */
	gauss_sqrt_suite(runs, weaken, weaken_deletes, key_base, CONFIDENCE / NSUITES,
					 &unit_passed, &unit_failed);
	/* the counts of a projected square-root table (two copies) */
	gauss_sqrt_projected_suite(runs, weaken, weaken_deletes, key_base, CONFIDENCE / NSUITES,
							   &unit_passed, &unit_failed);
	/* the refined lifting sums of a large-d norm-bound projected table */
	gauss_refine_suite(runs, weaken, weaken_deletes, key_base, CONFIDENCE / NSUITES,
					   &unit_passed, &unit_failed);
	/* the one-shot releases; no deletions there, so "deletes" leaves them be */
	gauss_oneshot_suites(runs, weaken, key_base, CONFIDENCE * (NSUITES - 5) / NSUITES,
						 &unit_passed, &unit_failed);
	UNIT_DONE("privacy_gauss");
}
