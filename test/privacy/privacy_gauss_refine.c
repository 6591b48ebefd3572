/*
 * privacy_gauss_refine.c
 *		The refined lifting sums' suite of privacy_gauss: (epsilon, delta)-DP
 *		of the subtree estimate of a large-d norm-bound Gaussian table's
 *		lifting sums (live_refine.c, dpk_live_refines_sums), read from its
 *		releases 1..16.
 *
 * What runs.  One cell (copy 0, cell 11) of a projected d = 128 Gaussian
 * table with a norm bound, horizon 16, insert_delete, epsilon 6, delta
 * 1e-3, its sums on the binary tree (the rule holds: checked).  Per run and
 * stream, the cell's 31 tree nodes are drawn as releases draw them
 * (dpk_node_noise_gauss, the table's nonces) and every release's refined
 * sums computed from them with the weights of dpk_live_refine_nodes,
 * exactly as live_refine.c combines them; for the first runs each release
 * is also computed by dpk_live_refine_sums itself (the cell counted heavy),
 * which must give the same doubles.  Stream A never has a point in the
 * cell; stream B inserts one at release 1 and deletes it at release 9,
 * with a lifting contribution q of the largest l2 norm the bound allows
 * (dpk_live_point_l2, every coordinate +-c).
 *
 * What is checked.  The releases' sums projected on q are Gaussian with
 * covariance sigma^2 ||q||^2 W W^T (W: the weights / den, 16 x 31), and B
 * moves them by ||q||^2 on releases 1..8.  The optimal statistic is
 * Z = <g, r> / (sigma ||q|| sqrt(<g, s>)), g = (W W^T)^-1 s, about N(0, 1)
 * under A and N(mu, 1) under B with mu^2 / 2 = rho_moved = <g, s> ||q||^2 /
 * (2 sigma^2), within the sums family's rho; the events of gauss_events.h
 * hold at it.  DPK_PRIVACY_WEAKEN=2 (sigma halved) and =deletes (sigma^2 of
 * an insert-only table) must fail; weakened, the nodes are drawn at the
 * weakened variances and the cross-check with dpk_live_refine_sums (which
 * draws the nominal ones) is skipped.  A quarter of the runs (every run
 * draws 31 x 129 values a stream).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cellmap.h"
#include "counter.h"
#include "dgauss.h"
#include "dpk_mem.h"
#include "live_config.h"
#include "live_core.h"
#include "tree_estimator.h"
#include "zcdp.h"
#include "../unit/unit.h"
#include "gauss_events.h"

#define RF_T		16
#define RF_D		128
#define RF_EPS		6.0
#define RF_DELTA	1e-3
#define RF_INS		1
#define RF_DEL		9
#define RF_CELL		11
#define RF_KEY		(UINT64_C(3) << 50)
#define RF_B_OFFSET (UINT64_C(1) << 40)
#define RF_CROSS	24			/* runs whose releases dpk_live_refine_sums recomputes */
#define RF_NODES	31			/* the binary tree of horizon 16 */

/* Slot of tree node (level, index) among the RF_NODES: levels 0..4 in a row. */
static int
node_slot(int level, uint32_t index)
{
	return (2 * RF_T - (2 * RF_T >> level)) + (int) index - 1;
}

/* The refined sums' suite (see the header and gauss_events.h). */
void
gauss_refine_suite(long runs, double weaken, bool weaken_deletes, uint64_t key_base,
				   double confidence, int *passed, int *failed)
{
	DpkLiveConfig nominal;
	double		v[3],
				vm[3],
				l2sq[3],
				wt[RF_T][RF_NODES],
				cov[RF_T * RF_T],
				g[RF_T],
				s[RF_T],
				gs = 0.0,
				q2 = 0.0,
				c;
	int64_t		num[RF_T][RF_NODES],
				den[RF_T],
				q[RF_D];
	DpkCellVars vars;
	GaussEvents ev;
	DpkCellMap	empty,
				state;
	double	   *lo = dpk_alloc(RF_D * sizeof(double)),
			   *hi = dpk_alloc(RF_D * sizeof(double)),
			   *count,
			   *sum;
	uint64_t	total;
	bool		cross = weaken == 1.0 && !weaken_deletes;
	int			mismatches = 0,
				t,
				j,
				a;
	long		r,
				nruns = runs / 4 > 1000 ? runs / 4 : runs;

	unit_passed = unit_failed = 0;
	for (j = 0; j < RF_D; j++)
	{
		lo[j] = -1.0;
		hi[j] = 1.0;
	}
	dpk_live_defaults(&nominal, RF_D, 10, RF_EPS, RF_T, false);
	dpk_live_use_projection(&nominal, 7);
	dpk_live_use_ball(&nominal, &(DpkBox) {RF_D, lo, hi}, 1.0);
	dpk_live_use_delta(&nominal, RF_DELTA);
	dpk_live_use_norm_shift(&nominal);
	nominal.copies = 1;
	nominal.level = 1;
	ge_live_vars(&nominal, weaken_deletes, v, vm, l2sq);
	vars = (DpkCellVars) {RF_D, dpk_gauss_scale_from_double(vm[0] / (weaken * weaken)),
	dpk_gauss_scale_from_double(vm[1] / (weaken * weaken)), DPK_SUMS_VECTOR};

	/* B's point: every coordinate +-c, ||q|| within the bound */
	c = floor(dpk_live_point_l2(&nominal) / sqrt((double) RF_D));
	for (j = 0; j < RF_D; j++)
	{
		q[j] = (j * 7919) % 3 == 0 ? -(int64_t) c : (int64_t) c;
		q2 += (double) q[j] * q[j];
	}

	/* every release's node weights, as slots of the 31 nodes */
	memset(num, 0, sizeof(num));
	memset(wt, 0, sizeof(wt));
	for (t = 1; t <= RF_T; t++)
	{
		int			lev[DPK_LIVE_REFINE_MAX_NODES];
		uint32_t	idx[DPK_LIVE_REFINE_MAX_NODES];
		int64_t		w[DPK_LIVE_REFINE_MAX_NODES];
		int			n = dpk_live_refine_nodes((uint32_t) t, lev, idx, w, &den[t - 1]);

		for (a = 0; a < n; a++)
		{
			int			slot = node_slot(lev[a], idx[a]);

			num[t - 1][slot] = w[a];
			wt[t - 1][slot] = (double) w[a] / (double) den[t - 1];
		}
	}
	/* B's shift s and the optimal direction g = (W W^T)^-1 s */
	for (t = 0; t < RF_T; t++)
	{
		int			u;

		for (u = 0; u < RF_T; u++)
		{
			double		acc = 0.0;

			for (a = 0; a < RF_NODES; a++)
				acc += wt[t][a] * wt[u][a];
			cov[t * RF_T + u] = acc;
		}
		s[t] = g[t] = t + 1 >= RF_INS && t + 1 < RF_DEL ? 1.0 : 0.0;
	}
	ge_cholesky(cov, RF_T);
	ge_chol_solve(cov, RF_T, g);
	for (t = 0; t < RF_T; t++)
		gs += g[t] * s[t];

	memset(&ev, 0, sizeof(ev));
	ev.suite = "privacy_gauss refined sums";
	ev.nstat = 1;
	ev.name[0] = "sums";
	ev.rho_moved[0] = gs * q2 / (2.0 * v[1]);
	CHECK(dpk_live_refines_sums(&nominal) && !DPK_LIVE_SQRT_FAMILY(&nominal, 1),
		  "refined suite: the table refines its sums on the tree");
	CHECK(q2 <= dpk_live_point_l2(&nominal) * dpk_live_point_l2(&nominal) && c >= 1.0,
		  "refined suite: the point's q (%g per coordinate) within the bound", c);
	CHECK(ev.rho_moved[0] <= l2sq[1] / (2.0 * v[1]) * (1.0 + 1e-9),
		  "refined suite: the pair moves rho %.6g beyond the family's %.6g", ev.rho_moved[0],
		  l2sq[1] / (2.0 * v[1]));
	printf("privacy_gauss refined sums: d %d, horizon %d, epsilon %g, delta %g, insert at %d, "
		   "delete at %d, %ld runs; sigma per node sums %.1f%s; rho moved %.4f (family %.4f)\n",
		   RF_D, RF_T, RF_EPS, RF_DELTA, RF_INS, RF_DEL, nruns, sqrt(v[1]),
		   cross ? "" : " (nominal; WEAKENED in the mechanism)", ev.rho_moved[0],
		   l2sq[1] / (2.0 * v[1]));

	/* the mechanism's own arrays: only the suite's cell counts as heavy */
	total = (uint64_t) nominal.copies * dpk_live_copy_cells(&nominal);
	count = dpk_alloc(total * sizeof(double));
	sum = dpk_alloc(total * RF_D * sizeof(double));
	for (uint64_t i = 0; i < total; i++)
		count[i] = i == RF_CELL ? 1e12 : -1e12;
	dpk_cellmap_init(&empty, RF_D);
	dpk_cellmap_init(&state, RF_D);
	{
		int64_t    *vals = dpk_cellmap_get(&state, RF_CELL);

		vals[0] = 1;
		for (j = 0; j < RF_D; j++)
			vals[1 + j] = q[j];
	}

	for (r = 1; r <= nruns; r++)
	{
		int			w;

		for (w = 0; w < 2; w++)
		{
			uint8_t		key[DPK_KEY_BYTES];
			const DpkCellKey ck = {key, nominal.level, RF_CELL};
			int64_t		draw[RF_NODES][1 + RF_D];
			DpkStream	st;
			double		dot = 0.0,
						z[1];
			int			lv;

			dpk_key_from_seed(key_base + RF_KEY + (w ? RF_B_OFFSET : 0) + (uint64_t) r, key);
			memset(&st, 0, sizeof(st));
			for (lv = 0; lv <= 4; lv++)
			{
				uint32_t	i;

				for (i = 1; i <= (uint32_t) (RF_T >> lv); i++)
					dpk_node_noise_gauss(&st, &ck, lv, i, &vars, draw[node_slot(lv, i)]);
			}
			for (t = 1; t <= RF_T; t++)
			{
				bool		present = w == 1 && t >= RF_INS && t < RF_DEL;
				double		rel[RF_D],
							qr = 0.0;

				for (j = 0; j < RF_D; j++)
				{
					__int128	acc = (__int128) den[t - 1] * (present ? q[j] : 0);

					for (a = 0; a < RF_NODES; a++)
						acc += (__int128) num[t - 1][a] * draw[a][1 + j];
					rel[j] = (double) acc / (double) den[t - 1];
					qr += (double) q[j] * rel[j];
				}
				if (cross && r <= RF_CROSS)
				{
					dpk_live_refine_sums(&nominal, NULL, key, present ? &state : &empty,
										 (uint32_t) t, count, sum);
					for (j = 0; j < RF_D; j++)
						mismatches += sum[RF_CELL * RF_D + j] != rel[j];
				}
				dot += g[t - 1] * qr;
			}
			dpk_stream_close(&st);
			z[0] = dot / (sqrt(v[1]) * sqrt(gs) * sqrt(q2));
			ge_add(&ev, w, z);
		}
	}
	CHECK(mismatches == 0, "refined suite: %d values differ from dpk_live_refine_sums",
		  mismatches);
	ge_check(&ev, confidence);
	dpk_cellmap_free(&empty);
	dpk_cellmap_free(&state);
	dpk_free(count);
	dpk_free(sum);
	dpk_free(lo);
	dpk_free(hi);
	*passed += unit_passed;
	*failed += unit_failed;
}
