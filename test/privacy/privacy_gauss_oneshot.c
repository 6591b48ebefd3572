/*
 * privacy_gauss_oneshot.c
 *		The one-shot suites of privacy_gauss: (epsilon, delta)-DP of the
 *		Gaussian one-shot releases, read where the releases add their noise.
 *
 * Low d (dpk_lowd_noisy_histogram, the first stage of dp_kmeans below
 * d = 6): d = 2, k = 2, box [0, 10]^2, 150 points in two clusters; stream B
 * adds one point in an empty corner cell.  With N public (the grid is then
 * fixed) the point's cell's noisy count and sum vector are read; with N
 * private, in runs of their own, the noisy N.  High d (dpk_highd_plan,
 * dpk_highd_histogram and dpk_highd_partition_stats, the stages of the joint
 * mode): d = 8, k = 2, box [0, 1]^8, 150 points; B adds a point at a corner
 * of the box (its centred lifting sums near the l2 bound).  Read: copy 0's
 * projected grid count of the point's cell, the noisy count and lifting sum
 * vector of the point's part of a fixed public partition (two projected
 * centres), the noisy count and sum vector of the point's part in one
 * refinement step (a private Lloyd step in the original space, partition
 * by two fixed public centres; the release is configured with two steps,
 * each of its own share), and in runs of their own the noisy N.
 *
 * Each statistic Z = <s, v - a> / (sigma ||s||) with sigma the nominal
 * (accounted) one, s the point's shift (1 on counts and N, its in-cell
 * offsets or centred fixed-point coordinates on sums), a stream A's true
 * values; the half-space events of gauss_events.h at rho_moved = ||s||^2 /
 * (2 sigma^2), which must be within its family's share of rho, the shares
 * adding up to dpk_zcdp_rho(epsilon, delta).  DPK_PRIVACY_WEAKEN=W runs the
 * releases at the epsilon whose rho is W^2 times the nominal one (every sigma
 * divided by W; the grid follows the smaller count noise) while the checker
 * keeps the nominal sigmas: W = 2 must fail.  One-shot releases have no
 * deletions, so DPK_PRIVACY_WEAKEN=deletes leaves them as they are.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lowd_budget.h"
#include "highd_budget.h"
#include "live_budget.h"
#include "dpk_mem.h"
#include "highd.h"
#include "kmeans.h"
#include "lift.h"
#include "lowd.h"
#include "noise.h"
#include "projection.h"
#include "zcdp.h"
#include "../unit/unit.h"
#include "gauss_events.h"

#define OS_EPS		4.0
#define OS_DELTA	1e-3
#define OS_NBASE	150
#define OS_K		2
#define OS_LOW_D	2
#define OS_HIGH_D	8
/* key seeds: distinct from the live suite's (r and 2^40 + r) */
#define OS_KEY_B	(UINT64_C(1) << 40)
#define OS_KEY_LD	(UINT64_C(1) << 45)
#define OS_KEY_N	(UINT64_C(1) << 46)
#define OS_KEY_HD	(UINT64_C(1) << 47)
#define OS_KEY_TREE	(UINT64_C(1) << 48)
#define OS_TREE_LEVELS 3

/* Open st on the key of a seed (zero nonce), or stop. */
static void
os_open(DpkStream *st, uint64_t seed)
{
	uint8_t		key[DPK_KEY_BYTES],
				nonce[DPK_NONCE_BYTES];

	memset(st, 0, sizeof(*st));
	memset(nonce, 0, sizeof(nonce));
	dpk_key_from_seed(seed, key);
	if (!dpk_stream_open(st, key, nonce))
		dpk_fail("cannot open a noise stream");
}

/* 150 points of two clusters in [lo, hi]^d, then the extra point x. */
static double *
os_points(int d, double lo, double hi, const double *x)
{
	double	   *p = dpk_alloc(sizeof(double) * (OS_NBASE + 1) * d);
	uint64_t	st = UINT64_C(0x9E3779B97F4A7C15);
	int			i,
				j;

	for (i = 0; i < OS_NBASE; i++)
	{
		double		c = i % 2 ? 0.3 : 0.7;

		for (j = 0; j < d; j++)
			p[i * d + j] = lo + (hi - lo) * (c + 0.2 * (unit_uniform(&st) - 0.5));
	}
	memcpy(p + OS_NBASE * d, x, sizeof(double) * d);
	return p;
}

/* The epsilon the mechanism runs at: rho times weaken^2. */
static double
os_mech_epsilon(double weaken)
{
	if (weaken == 1.0)
		return OS_EPS;
	return dpk_zcdp_epsilon(weaken * weaken * dpk_zcdp_rho(OS_EPS, OS_DELTA), OS_DELTA);
}

/* rho_moved of every statistic within its share, the shares within rho. */
static void
os_check_accounting(const char *suite, const GaussEvents *ev, const double *share,
					int nfam, double spent)
{
	double		rho = dpk_zcdp_rho(OS_EPS, OS_DELTA);
	int			f;

	for (f = 0; f < nfam; f++)
		CHECK(ev->rho_moved[f] <= share[f] * (1.0 + 1e-9),
			  "%s [%s] the pair moves rho %.6g beyond its share %.6g", suite, ev->name[f],
			  ev->rho_moved[f], share[f]);
	CHECK(fabs(spent - rho) <= 1e-12 * rho, "%s spends rho %.12g of %.12g", suite, spent, rho);
	CHECK(dpk_zcdp_delta(spent, OS_EPS, NULL) <= OS_DELTA * (1.0 + 1e-9),
		  "%s rho %.6g gives delta above %g", suite, spent, OS_DELTA);
	printf("%s: epsilon %g, delta %g, rho %.6f; rho of the moved values:", suite, OS_EPS,
		   OS_DELTA, rho);
	for (f = 0; f < ev->nstat; f++)
		printf(" %s %.4f", ev->name[f], ev->rho_moved[f]);
	printf("\n");
}

/* ---- low d ---- */

static void
os_lowd(long runs, double weaken, uint64_t key_base, double confidence)
{
	const int	d = OS_LOW_D;
	double		lower[OS_LOW_D] = {0.0, 0.0},
				upper[OS_LOW_D] = {10.0, 10.0},
				x[OS_LOW_D] = {9.83, 0.61};
	DpkBox		box = {d, lower, upper};
	double	   *pts = os_points(d, 0.0, 10.0, x);
	DpkLowdConfig nom,
				mech,
				nom_n,
				mech_n;
	DpkNoise	nn,
				cn,
				sn;
	DpkLowdHist lh;
	DpkDenseHist truth;
	DpkStream	st;
	GaussEvents *ev = dpk_alloc0(sizeof(GaussEvents));
	double		u[OS_LOW_D],
				share[3],
				sig_n,
				sig_c,
				sig_s,
				rel2 = 0.0,
				a_count,
				a_sum[OS_LOW_D];
	int64_t		rel[OS_LOW_D];
	uint64_t	cell;
	DpkLowdConfig zr;
	DpkLowdBudget br;
	int			m,
				j,
				b;
	long		r;

	dpk_lowd_defaults(&nom, OS_EPS, OS_K);
	nom.public_n = OS_NBASE;
	dpk_lowd_use_delta(&nom, OS_DELTA);
	nom_n = nom;
	nom_n.public_n = -1.0;
	mech = nom;
	mech.epsilon = os_mech_epsilon(weaken);
	mech_n = nom_n;
	mech_n.epsilon = mech.epsilon;

	/* the nominal sigmas and shares */
	dpk_lowd_noise(&nom, d, &nn, &cn, &sn);
	sig_c = sqrt(dpk_noise_variance(&cn, 0));
	sig_s = sqrt(dpk_noise_variance(&sn, d));
	dpk_lowd_noise(&nom_n, d, &nn, &cn, &sn);
	sig_n = sqrt(dpk_noise_variance(&nn, 0));
	zr = nom_n;
	zr.epsilon = dpk_zcdp_rho(OS_EPS, OS_DELTA);
	br = dpk_budget_lowd(&zr);
	share[0] = br.eps_n;
	zr = nom;
	zr.epsilon = dpk_zcdp_rho(OS_EPS, OS_DELTA);
	share[1] = dpk_budget_lowd(&zr).eps_count;
	share[2] = dpk_budget_lowd(&zr).eps_sum;

	/* the grid the mechanism uses (public: N is), the point's cell in it */
	os_open(&st, key_base + 77);
	dpk_lowd_noisy_histogram(&box, pts, OS_NBASE + 1, &mech, &st, &lh);
	dpk_stream_close(&st);
	m = lh.cells_per_dim;
	dpk_hist_free(&lh.hist);
	dpk_box_normalize(&box, x, u);
	cell = dpk_grid_cell(d, m, u, NULL, rel);
	dpk_hist_init(&truth, d, m, true);
	for (r = 0; r < OS_NBASE; r++)
	{
		dpk_box_normalize(&box, pts + r * d, u);
		dpk_hist_add(&truth, u);
	}
	a_count = (double) truth.count[cell];
	for (j = 0; j < d; j++)
	{
		a_sum[j] = (double) truth.sum[cell * d + j];
		rel2 += (double) rel[j] * rel[j];
	}
	dpk_hist_free(&truth);

	ev->suite = "oneshot low-d";
	ev->nstat = 4;
	ev->name[0] = "low-d N";
	ev->name[1] = "low-d count";
	ev->name[2] = "low-d sums";
	ev->name[3] = "low-d count+sums";
	ev->rho_moved[0] = 1.0 / (2.0 * sig_n * sig_n);
	ev->rho_moved[1] = 1.0 / (2.0 * sig_c * sig_c);
	ev->rho_moved[2] = rel2 / (2.0 * sig_s * sig_s);
	ev->rho_moved[3] = ev->rho_moved[1] + ev->rho_moved[2];
	os_check_accounting(ev->suite, ev, share, 3, br.eps_n + br.eps_count + br.eps_sum);
	printf("oneshot low-d: %d x %d cells, point in cell %llu (A holds %g), sigma N %.3f, "
		   "count %.3f, sum %.1f%s\n", m, m, (unsigned long long) cell, a_count, sig_n, sig_c,
		   sig_s, weaken != 1.0 ? " (nominal; WEAKENED mechanism)" : "");

	for (r = 1; r <= runs; r++)
		for (b = 0; b < 2; b++)
		{
			double		z[4],
						zs = 0.0,
						mc = sqrt(2.0 * ev->rho_moved[1]),
						ms = sqrt(2.0 * ev->rho_moved[2]);
			size_t		n = OS_NBASE + b;

			os_open(&st, key_base + OS_KEY_LD + (b ? OS_KEY_B : 0) + (uint64_t) r);
			dpk_lowd_noisy_histogram(&box, pts, n, &mech, &st, &lh);
			dpk_stream_close(&st);
			if (lh.cells_per_dim != m)
				dpk_fail("the grid moved although N is public");
			z[1] = ((double) lh.hist.count[cell] - a_count) / sig_c;
			for (j = 0; j < d; j++)
				zs += (double) rel[j] * ((double) lh.hist.sum[cell * d + j] - a_sum[j]);
			z[2] = zs / (sig_s * sqrt(rel2));
			z[3] = (mc * z[1] + ms * z[2]) / hypot(mc, ms);
			dpk_hist_free(&lh.hist);

			os_open(&st, key_base + OS_KEY_LD + OS_KEY_N + (b ? OS_KEY_B : 0) + (uint64_t) r);
			dpk_lowd_noisy_histogram(&box, pts, n, &mech_n, &st, &lh);
			dpk_stream_close(&st);
			z[0] = (lh.noisy_n - OS_NBASE) / sig_n;
			dpk_hist_free(&lh.hist);
			ge_add(ev, b, z);
		}
	ge_check(ev, confidence);
	dpk_free(ev);
	dpk_free(pts);
}

/* ---- high d ---- */

/* Records the cell of every visited point (a plan of one point). */
static void
os_visit_cell(void *arg, const double *u, const double *t, uint64_t cell)
{
	(void) u;
	(void) t;
	*(uint64_t *) arg = cell;
}

/* Counts the visited points in one cell. */
typedef struct OsCellCount
{
	uint64_t	cell;
	double		count;
} OsCellCount;

static void
os_visit_count(void *arg, const double *u, const double *t, uint64_t cell)
{
	OsCellCount *cc = arg;

	(void) u;
	(void) t;
	cc->count += cell == cc->cell;
}

/* Index of the projected centre nearest t (ties: lowest), as the partition. */
static int
os_nearest(const double *t, const double *pc, int dhat)
{
	int			best = 0,
				c,
				i;
	double		bd = INFINITY;

	for (c = 0; c < OS_K; c++)
	{
		double		s = 0.0;

		for (i = 0; i < dhat; i++)
			s += (t[i] - pc[c * dhat + i]) * (t[i] - pc[c * dhat + i]);
		if (s < bd)
		{
			bd = s;
			best = c;
		}
	}
	return best;
}

/* The extra point's grid cell under a plan, and A's true count there. */
static uint64_t
os_highd_cell(const DpkHighdPlan *pl, const DpkProjection *proj, const double *x,
			  double *a_count)
{
	DpkHighdPlan one = *pl;
	DpkHighdPlan base = *pl;
	DpkStream	st;
	uint64_t	cell = 0;
	OsCellCount cc;
	double	   *h;

	/* the histograms' noise is thrown away: only the cells are used */
	os_open(&st, UINT64_C(1) << 50);
	one.points = x;
	one.n = 1;
	h = dpk_highd_histogram(&one, proj, &st, os_visit_cell, &cell);
	dpk_free(h);
	cc.cell = cell;
	cc.count = 0.0;
	base.n = OS_NBASE;
	h = dpk_highd_histogram(&base, proj, &st, os_visit_count, &cc);
	dpk_free(h);
	dpk_stream_close(&st);
	*a_count = cc.count;
	return cell;
}

static void
os_highd(long runs, double weaken, uint64_t key_base, double confidence)
{
	const int	d = OS_HIGH_D;
	double		lower[OS_HIGH_D],
				upper[OS_HIGH_D],
				x[OS_HIGH_D],
				pc[OS_K * 4],
				t[4],
				a_lc = 0.0,
				a_ls[OS_HIGH_D],
				a_rc = 0.0,
				a_rs[OS_HIGH_D],
				oc[OS_K * OS_HIGH_D],
				a_grid,
				share[6],
				sig_rc,
				sig_rs,
				sig_n,
				sig_g,
				sig_lc,
				sig_ls,
				q2;
	int64_t		q[OS_HIGH_D],
				qb[OS_HIGH_D];
	double	   *pts;
	DpkBox		box = {d, lower, upper};
	DpkHighdConfig nom,
				mech,
				nom_n,
				mech_n;
	DpkHighdPlan pl,
				plm;
	DpkProjection proj;
	DpkStream	st;
	GaussEvents *ev = dpk_alloc0(sizeof(GaussEvents));
	uint64_t	xcell;
	int			j,
				b,
				part,
				rpart,
				dhat;
	long		r;

	for (j = 0; j < d; j++)
	{
		lower[j] = 0.0;
		upper[j] = 1.0;
		x[j] = j % 2 ? 0.015 : 0.985;
		a_ls[j] = 0.0;
		a_rs[j] = 0.0;
		oc[j] = 0.2;			/* the refinement's public centres */
		oc[OS_HIGH_D + j] = 0.6;
	}
	pts = os_points(d, 0.0, 1.0, x);
	dpk_highd_defaults(&nom, OS_EPS, OS_K);
	nom.public_n = OS_NBASE;
	dpk_highd_use_delta(&nom, OS_DELTA);
	/* two refinement steps, the lift leaving them room */
	nom.refine_steps = 2;
	nom.refine_share = 0.5;
	nom.lift_share = 0.35;
	nom_n = nom;
	nom_n.public_n = -1.0;
	mech = nom;
	mech.epsilon = os_mech_epsilon(weaken);
	mech_n = nom_n;
	mech_n.epsilon = mech.epsilon;

	/* nominal sigmas and shares (no draw: N is public) */
	dpk_highd_plan(&pl, &box, pts, OS_NBASE, &nom, NULL);
	sig_g = sqrt(pl.count_var);
	sig_lc = sqrt(pl.lift_count_var);
	sig_ls = sqrt(pl.sum_var);
	share[1] = pl.eps.eps_grid;
	share[2] = pl.eps.eps_lift_count;
	share[3] = pl.eps.eps_lift_sum;
	sig_rc = sqrt(pl.refine_count_var);
	sig_rs = sqrt(pl.refine_sum_var);
	share[4] = pl.eps.eps_refine_count;
	share[5] = pl.eps.eps_refine_sum;
	{
		DpkHighdConfig z = nom_n;
		DpkHighdBudget bn;

		z.epsilon = dpk_zcdp_rho(OS_EPS, OS_DELTA);
		bn = dpk_budget_highd(&z, d);
		share[0] = bn.eps_n;
		sig_n = sqrt(dpk_zcdp_sigma2(1.0, bn.eps_n));
		CHECK(pl.eps.refine_steps == 2 && pl.eps.eps_refine > 0.0,
			  "the one-shot plans no refinement budget");
		os_check_accounting("oneshot high-d (N public)", ev, share, 0,
							dpk_budget_highd_total(&pl.eps));
		os_check_accounting("oneshot high-d (N private)", ev, share, 0,
							dpk_budget_highd_total(&bn));
	}

	/* the mechanism's plan, copy 0's projection, the point's cell and part */
	dpk_highd_plan(&plm, &box, pts, OS_NBASE, &mech, NULL);
	dhat = plm.dhat;
	dpk_projection_init(&proj, d, dhat, dpk_projection_copy_seed(mech.proj_seed, 0),
						mech.half_width);
	xcell = os_highd_cell(&plm, &proj, x, &a_grid);
	for (j = 0; j < dhat; j++)
	{
		pc[j] = 0.3;
		pc[dhat + j] = 0.7;
	}
	dpk_project_batch(&proj, x, 1, t);
	part = os_nearest(t, pc, dhat);
	q2 = (double) dpk_lift_quantize(d, x, q);
	for (r = 0; r < OS_NBASE; r++)
	{
		dpk_project_batch(&proj, pts + r * d, 1, t);
		if (os_nearest(t, pc, dhat) != part)
			continue;
		a_lc += 1.0;
		dpk_lift_quantize(d, pts + r * d, qb);
		for (j = 0; j < d; j++)
			a_ls[j] += (double) qb[j];
	}

	dpk_kmeans_cost(x, NULL, 1, d, oc, OS_K, &rpart);
	for (r = 0; r < OS_NBASE; r++)
	{
		int			lab;

		dpk_kmeans_cost(pts + r * d, NULL, 1, d, oc, OS_K, &lab);
		if (lab != rpart)
			continue;
		a_rc += 1.0;
		dpk_lift_quantize(d, pts + r * d, qb);
		for (j = 0; j < d; j++)
			a_rs[j] += (double) qb[j];
	}

	ev->suite = "oneshot high-d";
	ev->nstat = 7;
	ev->name[0] = "high-d N";
	ev->name[1] = "high-d grid count";
	ev->name[2] = "high-d lift count";
	ev->name[3] = "high-d lift sums";
	ev->name[4] = "high-d grid+lift";
	ev->name[5] = "high-d refine count";
	ev->name[6] = "high-d refine sums";
	ev->rho_moved[0] = 1.0 / (2.0 * sig_n * sig_n);
	ev->rho_moved[1] = 1.0 / (2.0 * sig_g * sig_g);
	ev->rho_moved[2] = 1.0 / (2.0 * sig_lc * sig_lc);
	ev->rho_moved[3] = q2 / (2.0 * sig_ls * sig_ls);
	ev->rho_moved[4] = ev->rho_moved[1] + ev->rho_moved[2] + ev->rho_moved[3];
	ev->rho_moved[5] = 1.0 / (2.0 * sig_rc * sig_rc);
	ev->rho_moved[6] = q2 / (2.0 * sig_rs * sig_rs);
	{
		/* shares[4..5] are the refinement's, checked against stats 5 and 6 */
		GaussEvents chk = *ev;

		chk.rho_moved[4] = ev->rho_moved[5];
		chk.rho_moved[5] = ev->rho_moved[6];
		chk.name[4] = ev->name[5];
		chk.name[5] = ev->name[6];
		chk.nstat = 6;
		os_check_accounting(ev->suite, &chk, share, 6, dpk_budget_highd_total(&pl.eps));
	}
	printf("oneshot high-d: d %d, dhat %d, %d cells per dimension, %d copies; point in cell %llu "
		   "(A holds %g), part %d (A holds %g); sigma N %.3f, grid %.3f, lift count %.3f, "
		   "lift sum %.1f%s\n", d, dhat, plm.m, plm.copies, (unsigned long long) xcell, a_grid,
		   part, a_lc, sig_n, sig_g, sig_lc, sig_ls,
		   weaken != 1.0 ? " (nominal; WEAKENED mechanism)" : "");

	for (r = 1; r <= runs; r++)
		for (b = 0; b < 2; b++)
		{
			size_t		n = OS_NBASE + b;
			DpkHighdPartition pt = {OS_K, 1, &proj, pc, NULL, NULL, NULL, NULL};
			DpkHighdPartition rpt = {OS_K, 0, NULL, NULL, NULL, oc, NULL, NULL};
			double		cnt[OS_K],
						sum[OS_K * OS_HIGH_D],
						rcnt[OS_K],
						rsum[OS_K * OS_HIGH_D],
						rzs = 0.0,
						z[7],
						zs = 0.0,
						mu[3],
						mm = 0.0;
			double	   *h;
			DpkHighdPlan p;
			int			f;

			os_open(&st, key_base + OS_KEY_HD + (b ? OS_KEY_B : 0) + (uint64_t) r);
			dpk_highd_plan(&p, &box, pts, n, &mech, &st);
			h = dpk_highd_histogram(&p, &proj, &st, NULL, NULL);
			z[1] = (h[xcell] - a_grid) / sig_g;
			dpk_free(h);
			dpk_highd_partition_stats(&p, &pt, &p.lift_count_scale, &p.sum_scale, &st, cnt, sum);
			dpk_highd_partition_stats(&p, &rpt, &p.refine_count_scale, &p.refine_sum_scale, &st,
									  rcnt, rsum);
			dpk_stream_close(&st);
			z[5] = (rcnt[rpart] - a_rc) / sig_rc;
			for (j = 0; j < d; j++)
				rzs += (double) q[j] * (rsum[rpart * d + j] * DPK_LIFT_UNITS - a_rs[j]);
			z[6] = rzs / (sig_rs * sqrt(q2));
			z[2] = (cnt[part] - a_lc) / sig_lc;
			for (j = 0; j < d; j++)
				zs += (double) q[j] * (sum[part * d + j] * DPK_LIFT_UNITS - a_ls[j]);
			z[3] = zs / (sig_ls * sqrt(q2));
			z[4] = 0.0;
			for (f = 0; f < 3; f++)
			{
				mu[f] = sqrt(2.0 * ev->rho_moved[1 + f]);
				z[4] += mu[f] * z[1 + f];
				mm += mu[f] * mu[f];
			}
			z[4] /= sqrt(mm);

			os_open(&st, key_base + OS_KEY_HD + OS_KEY_N + (b ? OS_KEY_B : 0) + (uint64_t) r);
			dpk_highd_plan(&p, &box, pts, n, &mech_n, &st);
			dpk_stream_close(&st);
			z[0] = (p.noisy_n - OS_NBASE) / sig_n;
			ge_add(ev, b, z);
		}
	ge_check(ev, confidence);
	dpk_projection_free(&proj);
	dpk_free(ev);
	dpk_free(pts);
}

/*
 * The SimHash tree of a norm-bound (epsilon, delta) one-shot
 * (dpk_highd_tree_leaves; its leaves' statistics take the lift's scales,
 * read above on a fixed partition): the same 150 points and extra point as
 * os_highd, N public, a plan of OS_TREE_LEVELS levels.  Read: the noisy
 * count of the point's node at level 1 (always counted: the root holds the
 * public N); in A the node of the first base point with the point's sign
 * there.
 */
static void
os_highd_tree(long runs, double weaken, uint64_t key_base, double confidence)
{
	const int	d = OS_HIGH_D;
	double		lower[OS_HIGH_D],
				upper[OS_HIGH_D],
				x[OS_HIGH_D],
				share[1],
				sig_t,
				a_node = 0.0;
	double	   *pts,
			   *node;
	int		   *leaf;
	DpkBox		box = {d, lower, upper};
	DpkHighdConfig nom,
				mech;
	DpkHighdPlan pl,
				plm;
	DpkStream	st;
	GaussEvents *ev = dpk_alloc0(sizeof(GaussEvents));
	uint64_t   *code;
	long		r,
				ra = -1;
	int			j,
				b;

	for (j = 0; j < d; j++)
	{
		lower[j] = 0.0;
		upper[j] = 1.0;
		x[j] = j % 2 ? 0.015 : 0.985;
	}
	pts = os_points(d, 0.0, 1.0, x);
	dpk_highd_defaults(&nom, OS_EPS, OS_K);
	nom.public_n = OS_NBASE;
	dpk_highd_use_delta(&nom, OS_DELTA);
	nom.refine_steps = 2;
	nom.refine_share = 0.5;
	nom.lift_share = 0.35;
	nom.tree_depth = OS_TREE_LEVELS;
	mech = nom;
	mech.epsilon = os_mech_epsilon(weaken);

	dpk_highd_plan(&pl, &box, pts, OS_NBASE, &nom, NULL);
	sig_t = sqrt(pl.tree_count_var);
	share[0] = pl.eps.eps_tree;
	CHECK(pl.eps.tree_levels == OS_TREE_LEVELS && pl.eps.eps_tree > 0.0,
		  "the one-shot plans no tree");

	/* the point's sign at level 1 and A's rows there (public hyperplanes) */
	dpk_highd_plan(&plm, &box, pts, OS_NBASE + 1, &mech, NULL);
	code = dpk_highd_tree_codes(&plm);
	for (r = 0; r < OS_NBASE; r++)
		if ((code[r] & 1) == (code[OS_NBASE] & 1))
		{
			a_node += 1.0;
			if (ra < 0)
				ra = r;
		}
	dpk_free(code);
	CHECK(ra >= 0, "no base point shares the extra point's level-1 sign");

	ev->suite = "oneshot high-d tree";
	ev->nstat = 1;
	ev->name[0] = "tree node count";
	ev->rho_moved[0] = 1.0 / (2.0 * sig_t * sig_t);
	os_check_accounting(ev->suite, ev, share, 1, dpk_budget_highd_total(&pl.eps));
	printf("oneshot high-d tree: d %d, %d levels; the point's level-1 node (A holds %g), "
		   "sigma %.3f%s\n", d, OS_TREE_LEVELS, a_node, sig_t,
		   weaken != 1.0 ? " (nominal; WEAKENED mechanism)" : "");

	node = dpk_alloc(sizeof(double) * (OS_NBASE + 1) * OS_TREE_LEVELS);
	leaf = dpk_alloc(sizeof(int) * (OS_NBASE + 1));
	for (r = 1; r <= runs && ra >= 0; r++)
		for (b = 0; b < 2; b++)
		{
			size_t		n = OS_NBASE + b;
			double		z[1],
						mn;
			DpkHighdPlan p;

			os_open(&st, key_base + OS_KEY_TREE + (b ? OS_KEY_B : 0) + (uint64_t) r);
			dpk_highd_plan(&p, &box, pts, n, &mech, &st);
			dpk_highd_tree_leaves(&p, &st, leaf, &mn, node);
			dpk_stream_close(&st);
			z[0] = (node[(b ? OS_NBASE : ra) * OS_TREE_LEVELS] - a_node) / sig_t;
			ge_add(ev, b, z);
		}
	ge_check(ev, confidence);
	dpk_free(node);
	dpk_free(leaf);
	dpk_free(ev);
	dpk_free(pts);
}

/* The one-shot suites (see gauss_events.h). */
void
gauss_oneshot_suites(long runs, double weaken, uint64_t key_base, double confidence,
					 int *passed, int *failed)
{
	os_lowd(runs, weaken, key_base, confidence / 3.0);
	os_highd(runs, weaken, key_base, confidence / 3.0);
	os_highd_tree(runs, weaken, key_base, confidence / 3.0);
	*passed += unit_passed;
	*failed += unit_failed;
}
