/*
 * test_highd.c
 *		The high-dimensional one-shot pipeline (shipped joint mode and, through
 *		test/bench/highd_research.c, the research modes and their split of
 *		epsilon) and one copy's clustering from per-cell statistics.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "coreset.h"
#include "dpk_mem.h"
#include "grid.h"
#include "highd.h"
#include "lift.h"
#include "kmeans.h"
#include "noise.h"
#include "unit.h"
#include "unit_stream.h"
#include "zcdp.h"
#include "../bench/highd_research.h"

/* A tiny deterministic generator for test data (not privacy noise). */
static uint64_t test_state = 88172645463325252ULL;

/* Uniform test data in [0, 1). */
static double
test_uniform(void)
{
	return unit_uniform(&test_state);
}

/* Every centre finite and inside the box. */
static int
centres_ok(const DpkOneshotResult *res, int k, const DpkBox *box)
{
	int			j,
				t;

	for (j = 0; j < k; j++)
	{
		if (!(res->sizes[j] >= 0.0) || !isfinite(res->sizes[j]))
			return 0;
		for (t = 0; t < box->d; t++)
		{
			double		v = res->centers[(size_t) j * box->d + t];

			if (!isfinite(v) || v < box->lower[t] || v > box->upper[t])
				return 0;
		}
	}
	return 1;
}

/* Budget of a run, summed from its details. */
static double
spent(const HighdResearchConfig *rc, const HighdResearchInfo *info)
{
	const DpkHighdBudget *b = &info->budget.base;
	double		per_copy = b->eps_grid;
	double		once = b->eps_n + b->eps_refine * rc->base.refine_steps;

	if (rc->lift_mode == HIGHD_LIFT_JOINT)
		once += b->eps_group + b->eps_lift_count + b->eps_lift_sum;
	else
		per_copy += b->eps_lift_count + b->eps_lift_sum + info->budget.eps_lift_norm;
	return once + b->copies * per_copy;
}

/* The shipped pipeline in the joint mode, the research runner otherwise. */
static void
run_mode(const DpkBox *box, const double *x, size_t n, const HighdResearchConfig *rc,
		 DpkStream *s, DpkOneshotResult *res, HighdResearchInfo *info)
{
	HighdResearchInfo ri;

	if (rc->lift_mode == HIGHD_LIFT_JOINT && rc->base.refine_steps == 0)
	{
		if (info)
		{
			/* the shipped split is the research runner's in the joint mode */
			memset(info, 0, sizeof(*info));
			dpk_highd_oneshot_cluster_info(box, x, n, &rc->base, s, res, &info->base);
			info->budget.base = info->base.budget;
		}
		else
			dpk_highd_oneshot_cluster(box, x, n, &rc->base, s, res);
		return;
	}
	memset(&ri, 0, sizeof(ri));
	highd_research_cluster(box, x, n, rc, s, res, &ri);
	if (info)
		*info = ri;
}

/*
 * The cell-mode clustering of one copy from noiseless per-cell statistics
 * (what a live release would feed it) lifts the exact cluster means, with
 * the grid's own cells and with a coarser lifting grid.
 */
static void
test_cells_cluster(void)
{
	enum
	{
		D = 16, DH = 4, M = 8, LM = 4, PER = 200
	};
	DpkProjection p;
	double		u[2 * PER][D],
				t[DH];
	double		mean[2][D];
	double	   *count = dpk_alloc0(sizeof(double) * M * M * M * M);
	double	   *lcount = dpk_alloc0(sizeof(double) * LM * LM * LM * LM);
	double	   *sum = dpk_alloc0(sizeof(double) * M * M * M * M * D);
	double	   *lsum = dpk_alloc0(sizeof(double) * LM * LM * LM * LM * D);
	double		centers[2 * D],
				sizes[2];
	int64_t		q[D];
	int			i,
				j,
				a,
				pass,
				csz;

	dpk_projection_init(&p, D, DH, 99, 0.75);
	memset(mean, 0, sizeof(mean));
	for (i = 0; i < 2 * PER; i++)
	{
		uint64_t	c,
					lc;

		for (j = 0; j < D; j++)
		{
			int			z = (i < PER ? -256 : 256) + (int) floor(test_uniform() * 21) - 10;

			u[i][j] = 0.5 + (double) z / DPK_LIFT_UNITS;
			mean[i < PER ? 0 : 1][j] += u[i][j] / PER;
		}
		dpk_project_batch(&p, u[i], 1, t);
		c = dpk_grid_cell(DH, M, t, NULL, NULL);
		lc = dpk_grid_cell(DH, LM, t, NULL, NULL);
		dpk_lift_quantize(D, u[i], q);
		count[c] += 1.0;
		lcount[lc] += 1.0;
		for (j = 0; j < D; j++)
		{
			sum[c * D + j] += (double) q[j] / DPK_LIFT_UNITS;
			lsum[lc * D + j] += (double) q[j] / DPK_LIFT_UNITS;
		}
	}
	/* pass 2: the grid's own cells, clustered again in the original space */
	for (pass = 0; pass < 3; pass++)
	{
		DpkHighdCells hc;
		double		err = 0.0;

		hc.m = M;
		hc.count = count;
		hc.count_var = 0.0;
		hc.lift_m = pass != 1 ? M : LM;
		hc.lift_count = pass != 1 ? NULL : lcount;
		hc.lift_count_var = 0.0;
		hc.sum = pass != 1 ? sum : lsum;
		hc.sum_var = 0.0;
		hc.sumnorm = NULL;
		hc.space_noise2 = pass == 2 ? 1.0 : 0.0;
		hc.lift_weighted = false;
		hc.threshold_cells = 0.0;
		hc.plane_cells = -1.0;
		hc.rest_mean = false;
		hc.gauss_tail = false;
		dpk_highd_cells_cluster(&p, &hc, 2.0, &(DpkClusterOpts) {2, 3, 50, 5},
								&(DpkClusterOut) {centers, sizes}, &csz);
		for (a = 0; a < 2; a++)
		{
			int			which = centers[a * D] < 0.5 ? 0 : 1;

			for (j = 0; j < D; j++)
				err = fmax(err, fabs(centers[a * D + j] - mean[which][j]));
			CHECK(sizes[a] == PER, "pass %d: size %g", pass, sizes[a]);
		}
		CHECK(err < 1e-9 && (centers[0] < 0.5) != (centers[D] < 0.5),
			  "pass %d: exact lift from cells (%g)", pass, err);
		CHECK(csz > 0, "pass %d: coreset size %d", pass, csz);
	}
	dpk_projection_free(&p);
	dpk_free(count);
	dpk_free(lcount);
	dpk_free(sum);
	dpk_free(lsum);
}

/*
 * One draw of rest_mean's test: K clusters of PER points in D columns,
 * each cluster's mean base + a spread of +-0.08 per column; noisy lifting
 * sums (sd SD per coordinate per cell, counts exact) lifted count-weighted
 * against the plane, as a large-d live release does.  Returns the summed
 * squared error of the K centres against the true means.
 */
enum
{
	RM_D = 64, RM_DH = 4, RM_M = 8, RM_K = 4, RM_PER = 300
};

static double
rest_mean_error(const DpkProjection *p, double base, double sd, bool rest, uint64_t seed)
{
	int			ncells = RM_M * RM_M * RM_M * RM_M;
	double	   *count = dpk_alloc0(sizeof(double) * ncells);
	double	   *sum = dpk_alloc0(sizeof(double) * ncells * RM_D);
	double		mean[RM_K][RM_D],
				mu[RM_K][RM_D],
				u[RM_D],
				t[RM_DH],
				centers[RM_K * RM_D],
				sizes[RM_K],
				err = 0.0;
	uint64_t	data = 12345,
				noise = seed;
	int64_t		q[RM_D];
	int			a,
				b,
				i,
				j,
				csz;
	DpkHighdCells hc;

	/* the same clusters in every draw; only the noise differs */
	for (a = 0; a < RM_K; a++)
		for (j = 0; j < RM_D; j++)
			mu[a][j] = base + (unit_uniform(&data) < 0.5 ? -0.08 : 0.08);
	memset(mean, 0, sizeof(mean));
	for (a = 0; a < RM_K; a++)
		for (i = 0; i < RM_PER; i++)
		{
			uint64_t	c;

			for (j = 0; j < RM_D; j++)
				u[j] = mu[a][j] + 0.02 * (unit_uniform(&data) - 0.5);
			dpk_project_batch(p, u, 1, t);
			c = dpk_grid_cell(RM_DH, RM_M, t, NULL, NULL);
			dpk_lift_quantize(RM_D, u, q);
			count[c] += 1.0;
			for (j = 0; j < RM_D; j++)
			{
				sum[c * RM_D + j] += (double) q[j] / DPK_LIFT_UNITS;
				mean[a][j] += (0.5 + (double) q[j] / DPK_LIFT_UNITS) / RM_PER;
			}
		}
	for (i = 0; i < ncells; i++)
		if (count[i] > 0.0)
			for (j = 0; j < RM_D; j++)
				sum[(size_t) i * RM_D + j] += sd * unit_normal(&noise);
	memset(&hc, 0, sizeof(hc));
	hc.m = RM_M;
	hc.count = count;
	hc.lift_count_var = 0.0;
	hc.sum = sum;
	hc.sum_var = sd * sd;
	hc.lift_weighted = true;
	hc.plane_cells = 1.0;
	hc.rest_mean = rest;
	dpk_highd_cells_cluster(p, &hc, 2.0, &(DpkClusterOpts) {RM_K, 5, 50, 7},
							&(DpkClusterOut) {centers, sizes}, &csz);
	/* each true cluster against its nearest centre */
	for (a = 0; a < RM_K; a++)
	{
		double		best = INFINITY;

		for (b = 0; b < RM_K; b++)
		{
			double		e = 0.0;

			for (j = 0; j < RM_D; j++)
				e += (centers[b * RM_D + j] - mean[a][j]) * (centers[b * RM_D + j] - mean[a][j]);
			best = fmin(best, e);
		}
		err += best;
	}
	dpk_free(count);
	dpk_free(sum);
	return err;
}

/*
 * rest_mean: the lifted centres outside the plane shrink toward the other
 * centres' noisy mean, weighed by how far that mean sits from the box's
 * middle.  Noiseless cells lift as without it; data far off the middle
 * (every column near 0.2) get much smaller errors than the middle gives
 * (0.62 of them; 0.65 when the centre's own cells are left in the target,
 * whose shared noise then reads as a short distance); data centred in the
 * box lose at most a few per cent (2 % when written; 53 % when the target
 * is taken whole, without its weight toward the middle).  Fixed seeds, so
 * the margins are exact.
 */
static void
test_cells_rest_mean(void)
{
	DpkProjection p;
	double		off_on = 0.0,
				off_off = 0.0,
				mid_on = 0.0,
				mid_off = 0.0;
	int			draw;

	dpk_projection_init(&p, RM_D, RM_DH, 31, 0.75);
	/* noiseless: the same centres either way (a few points of a cell that
	 * straddles two clusters follow the other centre, hence not 0) */
	for (draw = 0; draw < 2; draw++)
	{
		double		base = draw ? 0.5 : 0.2,
					on = rest_mean_error(&p, base, 0.0, true, 1),
					off = rest_mean_error(&p, base, 0.0, false, 1);

		CHECK(fabs(on - off) < 1e-12 && on < 1e-3, "noiseless cells, base %g: %g against %g", base, on, off);
	}
	for (draw = 0; draw < 40; draw++)
	{
		uint64_t	seed = 1000 + (uint64_t) draw;

		off_on += rest_mean_error(&p, 0.2, 30.0, true, seed);
		off_off += rest_mean_error(&p, 0.2, 30.0, false, seed);
		mid_on += rest_mean_error(&p, 0.5, 30.0, true, seed);
		mid_off += rest_mean_error(&p, 0.5, 30.0, false, seed);
	}
	printf("# rest_mean: off-centre error %.4f (middle %.4f), centred %.4f (middle %.4f)\n",
		   off_on / 40, off_off / 40, mid_on / 40, mid_off / 40);
	CHECK(off_on < 0.64 * off_off, "off-centre data: %.4f against the middle's %.4f",
		  off_on / 40, off_off / 40);
	CHECK(mid_on < 1.05 * mid_off, "centred data: %.4f against the middle's %.4f",
		  mid_on / 40, mid_off / 40);
	dpk_projection_free(&p);
}

/*
 * dpk_highd_cells_space: two clusters merged by the projected partition are
 * split again from their cells' lifted means; a light cell (below
 * point_count) follows the projected position of the centres, a cell left
 * out (-1) stays out; too few points change nothing.
 */
static void
test_cells_space(void)
{
	enum
	{
		D = 8, DH = 2, M = 4, NC = M * M
	};
	DpkProjection p;
	double		count[NC],
				sum[NC * D],
				a[D],
				b[D],
				centers[2 * D],
				pc[2 * DH],
				tc[DH],
				err = 0.0;
	int			assign[NC],
				before[NC],
				c,
				j,
				n,
				la,
				want5;
	int64_t		idx[DH];

	CHECK(dpk_highd_point_count(D, 1.0, 1.0, 10.0) == 10.0, "point count: min_count wins");
	CHECK(fabs(dpk_highd_point_count(D, 2.0, 0.5, 1.0) - sqrt(32.0)) < 1e-12,
		  "point count: sqrt(d sum_var / noise2)");
	dpk_projection_init(&p, D, DH, 7, 0.75);
	memset(count, 0, sizeof(count));
	memset(sum, 0, sizeof(sum));
	for (j = 0; j < D; j++)
	{
		a[j] = 0.3 + 0.01 * j;
		b[j] = 0.7 - 0.02 * j;
	}
	for (c = 0; c < NC; c++)
		assign[c] = -1;
	for (c = 0; c < 4; c++)
	{
		count[c] = 100.0 + c;
		for (j = 0; j < D; j++)
			sum[c * D + j] = count[c] * ((c < 2 ? a[j] : b[j]) - 0.5);
		assign[c] = 0;			/* the projected partition merged them */
	}
	count[5] = 3.0;				/* light: its mean is noise */
	for (j = 0; j < D; j++)
		sum[5 * D + j] = 3.0 * (j % 2 ? 0.5 : -0.5);
	assign[5] = 0;
	count[7] = 100.0;			/* below the lifting threshold */
	memcpy(before, assign, sizeof(assign));

	n = dpk_highd_cells_space(&p, M, count, sum, 1e9, &(DpkClusterOpts) {2, 5, 50, 3},
							  centers, assign);
	CHECK(n == 0 && memcmp(before, assign, sizeof(assign)) == 0,
		  "too few points: nothing changes (%d)", n);

	n = dpk_highd_cells_space(&p, M, count, sum, 10.0, &(DpkClusterOpts) {2, 5, 50, 3},
							  centers, assign);
	CHECK(n == 4, "four heavy cells are points (%d)", n);
	CHECK(assign[0] == assign[1] && assign[2] == assign[3] && assign[0] != assign[2] &&
		  assign[0] >= 0 && assign[2] >= 0, "merged clusters split (%d %d %d %d)",
		  assign[0], assign[1], assign[2], assign[3]);
	la = assign[0];
	for (j = 0; j < D; j++)
		err = fmax(err, fmax(fabs(centers[la * D + j] - a[j]),
							 fabs(centers[(1 - la) * D + j] - b[j])));
	CHECK(err < 1e-12, "centres at the clusters' means (%g)", err);
	dpk_project_batch(&p, centers, 2, pc);
	dpk_grid_cell_coords(DH, M, 5, idx);
	for (j = 0; j < DH; j++)
		tc[j] = (idx[j] + 0.5) / M;
	{
		double		d0 = 0.0,
					d1 = 0.0;

		for (j = 0; j < DH; j++)
		{
			d0 += (tc[j] - pc[j]) * (tc[j] - pc[j]);
			d1 += (tc[j] - pc[DH + j]) * (tc[j] - pc[DH + j]);
		}
		want5 = d1 < d0 ? 1 : 0;
	}
	CHECK(assign[5] == want5, "light cell by projected position (%d, want %d)",
		  assign[5], want5);
	CHECK(assign[7] == -1 && assign[6] == -1, "cells left out stay out");
	dpk_projection_free(&p);
}

/* test_cells_space_charge's cells: NC of SC_COUNT rows in SC_D columns */
enum
{
	SC_D = 32, SC_DH = 2, SC_M = 4, SC_NC = SC_M * SC_M, SC_COUNT = 400
};

/*
 * One trial of test_cells_space_charge: every cell's rows have the mean
 * 0.3 + 0.01 j in column j, or with two_means the odd cells (which the
 * projected grid interleaves with the even ones) 0.7 - 0.01 j; noisy sums
 * whose lifted means have squared noise d sum_var / SC_COUNT^2 = 0.2 (a
 * point of the original-space coreset).  Returns whether the
 * original-space partition's score beat the projected one's (the release
 * publishes the lower).
 */
static bool
space_wins(const DpkProjection *p, bool two_means)
{
	double		sum_var = 0.2 * SC_COUNT * SC_COUNT / SC_D;
	double		count[SC_NC],
				sum[SC_NC * SC_D],
				centers[2 * SC_D],
				sizes[2],
				score[2];
	int			c,
				j,
				pass,
				csz;

	for (c = 0; c < SC_NC; c++)
	{
		count[c] = SC_COUNT;
		for (j = 0; j < SC_D; j++)
		{
			double		m = two_means && (c % 2) ? 0.7 - 0.01 * j : 0.3 + 0.01 * j;

			sum[c * SC_D + j] = SC_COUNT * (m - 0.5) + sqrt(sum_var) * unit_normal(&test_state);
		}
	}
	for (pass = 0; pass < 2; pass++)
	{
		DpkHighdCells hc;

		memset(&hc, 0, sizeof(hc));
		hc.m = SC_M;
		hc.count = count;
		hc.count_var = 1.0;
		hc.lift_count_var = 1.0;
		hc.sum = sum;
		hc.sum_var = sum_var;
		hc.space_noise2 = pass ? 1.0 : 0.0;
		hc.lift_weighted = true;
		hc.plane_cells = -1.0;
		score[pass] = dpk_highd_cells_cluster(p, &hc, 2.0, &(DpkClusterOpts) {2, 5, 50, 11},
											  &(DpkClusterOut) {centers, sizes}, &csz);
	}
	return score[1] < score[0];
}

/*
 * The original-space partition is fitted to the noisy sums that score it
 * (DPK_HIGHD_SPACE_NOISE_CHARGE): on cells that all share one mean, where
 * no partition is better than another, it must not beat the projected
 * partition on its fitted noise; on two means that the projected grid
 * interleaves it must still win.
 */
static void
test_cells_space_charge(void)
{
	DpkProjection p;
	int			trial,
				one = 0,
				two = 0;

	dpk_projection_init(&p, SC_D, SC_DH, 5, 0.75);
	for (trial = 0; trial < 40; trial++)
	{
		one += space_wins(&p, false);
		two += space_wins(&p, true);
	}
	CHECK(one <= 8, "one mean: the original-space partition wins %d of 40", one);
	CHECK(two >= 36, "two interleaved means: the original-space partition wins %d of 40",
		  two);
	dpk_projection_free(&p);
}

/* Well-separated Gaussian clusters in [0,100]^d. */
static void
make_clusters(int d, int k, size_t n, double sd, double *truth, double *x)
{
	size_t		i;
	int			j,
				t;

	for (j = 0; j < k; j++)
		for (t = 0; t < d; t++)
			truth[j * d + t] = 15.0 + 70.0 * test_uniform();
	for (i = 0; i < n; i++)
	{
		j = (int) (i % k);
		for (t = 0; t < d; t++)
			x[i * d + t] = truth[j * d + t] + sd * unit_normal(&test_state);
	}
}

/*
 * The projected grid's cap: at a public N of 10^8 RUGNIK's rule asks for
 * more than 60 cells a side of the 4 projected dimensions, the defaults'
 * cap (what dp_kmeans keeps each grid within, doc/decisions/089) gives 32:
 * 2^20 cells; a lower cap gives fewer.
 */
static void
test_grid_cap(void)
{
	enum
	{
		D = 16, N = 2000, K = 4
	};
	double		lo[D],
				hi[D],
				truth[K * D];
	double	   *x = malloc(sizeof(double) * N * D);
	DpkBox		box = {D, lo, hi};
	DpkHighdConfig cfg;
	DpkOneshotResult res = {0};
	DpkStream	s;
	int			j;

	for (j = 0; j < D; j++)
	{
		lo[j] = 0.0;
		hi[j] = 100.0;
	}
	make_clusters(D, K, N, 3.0, truth, x);
	dpk_highd_defaults(&cfg, 1.0, K);
	cfg.public_n = 1e8;
	unit_open_stream(&s, 41);
	dpk_highd_oneshot_cluster(&box, x, N, &cfg, &s, &res);
	dpk_stream_close(&s);
	CHECK(cfg.max_cells == 1048576.0 && res.cells_per_dim == 32 && res.cells == 1048576.0,
		  "defaults' cap %g: %d cells a side, %g cells", cfg.max_cells, res.cells_per_dim,
		  res.cells);
	dpk_oneshot_result_free(&res);
	cfg.max_cells = 65536.0;
	unit_open_stream(&s, 41);
	dpk_highd_oneshot_cluster(&box, x, N, &cfg, &s, &res);
	dpk_stream_close(&s);
	CHECK(res.cells_per_dim == 16, "a cap of 65 536 cells: %d cells a side", res.cells_per_dim);
	dpk_oneshot_result_free(&res);
	free(x);
}

/* Every mode: degenerate inputs, budgets, and recovery at huge epsilon. */
static void
test_pipeline(void)
{
	int			d = 64,
				k = 5,
				t,
				j,
				mode;
	double		lo[64],
				hi[64];
	DpkBox		box = {64, lo, hi};
	size_t		n = 5000;
	double	   *x = dpk_alloc(sizeof(double) * n * d);
	double	   *truth = dpk_alloc(sizeof(double) * k * d);
	DpkStream	s = {0};

	for (t = 0; t < d; t++)
	{
		lo[t] = 0.0;
		hi[t] = 100.0;
	}
	unit_open_stream(&s, 7);

	for (mode = 0; mode < 3; mode++)
	{
		HighdResearchConfig cfg;
		DpkOneshotResult res;
		HighdResearchInfo info;
		double		pts[3 * 64];
		const char *name = mode == 0 ? "joint" : (mode == 1 ? "cluster" : "cell");

		highd_research_defaults(&cfg, 1.0, k);
		cfg.lift_mode = mode == 0 ? HIGHD_LIFT_JOINT : (mode == 1 ? HIGHD_LIFT_CLUSTER
														: HIGHD_LIFT_CELL);
		if (mode == 1)
			cfg.base.refine_steps = 1;

		/* n = 0: exactly k finite centres in the box */
		memset(&info, 0, sizeof(info));
		run_mode(&box, x, 0, &cfg, &s, &res, &info);
		CHECK(centres_ok(&res, k, &box), "%s: n = 0 gives k finite centres", name);
		CHECK(fabs(spent(&cfg, &info) - cfg.base.epsilon) < 1e-12,
			  "%s: budget adds up (%.15g)", name, spent(&cfg, &info));
		dpk_oneshot_result_free(&res);

		/* fewer distinct points than k, with infinities clamped */
		for (t = 0; t < 3 * d; t++)
			pts[t] = (t / d) * 40.0 + 5.0;
		pts[0] = INFINITY;
		pts[d + 1] = -INFINITY;
		run_mode(&box, pts, 3, &cfg, &s, &res, NULL);
		CHECK(centres_ok(&res, k, &box), "%s: 3 points, k = 5", name);
		dpk_oneshot_result_free(&res);

		/* public N and a small d still work */
		cfg.base.public_n = 3.0;
		{
			double		lo2[2] = {0, 0},
						hi2[2] = {1, 1};
			DpkBox		b2 = {2, lo2, hi2};

			run_mode(&b2, pts, 3, &cfg, &s, &res, NULL);
			CHECK(centres_ok(&res, k, &b2), "%s: d = 2", name);
			dpk_oneshot_result_free(&res);
		}
	}

	/* huge epsilon, well-separated clusters at d = 64: the true centres */
	make_clusters(d, k, n, 1.0, truth, x);
	for (mode = 0; mode < 3; mode++)
	{
		HighdResearchConfig cfg;
		DpkOneshotResult res;
		double		worst = 0.0,
					size_err = 0.0;
		const char *name = mode == 0 ? "joint" : (mode == 1 ? "cluster" : "cell");

		highd_research_defaults(&cfg, 1e6, k);
		cfg.lift_mode = mode == 0 ? HIGHD_LIFT_JOINT : (mode == 1 ? HIGHD_LIFT_CLUSTER
														: HIGHD_LIFT_CELL);
		/* smaller grids keep the test fast; the noise is negligible anyway */
		cfg.base.max_cells = 4096.0;
		cfg.base.max_lift_values = 4096.0 * d;
		run_mode(&box, x, n, &cfg, &s, &res, NULL);
		CHECK(centres_ok(&res, k, &box), "%s: k finite centres", name);
		for (j = 0; j < k; j++)
		{
			double		best = INFINITY;
			int			c,
						bc = 0;

			for (c = 0; c < k; c++)
			{
				double		dist = 0.0;

				for (t = 0; t < d; t++)
				{
					double		diff = res.centers[c * d + t] - truth[j * d + t];

					dist += diff * diff;
				}
				if (dist < best)
				{
					best = dist;
					bc = c;
				}
			}
			worst = fmax(worst, sqrt(best));
			size_err = fmax(size_err, fabs(res.sizes[bc] - (double) n / k));
		}
		/* the mean of 1000 points of sd 1 in 64 dimensions: ~0.25 off */
		CHECK(worst < 1.0, "%s: huge eps recovers the centres (worst %.3f)", name, worst);
		CHECK(size_err < 5.0, "%s: sizes (worst error %.1f)", name, size_err);
		dpk_oneshot_result_free(&res);
	}

	dpk_stream_close(&s);
	dpk_free(x);
	dpk_free(truth);
}

/* How many copies the joint mode combines as k grows. */
static void
test_copies_cap(void)
{
	DpkHighdConfig cfg;

	dpk_highd_defaults(&cfg, 1.0, 10);
	CHECK(dpk_highd_copies(&cfg, 64) == cfg.copies, "k = 10 keeps every copy");
	cfg.k = 100;
	CHECK(dpk_highd_copies(&cfg, 64) == 2, "k = 100 combines 2 copies (%d)",
		  dpk_highd_copies(&cfg, 64));
	cfg.k = 1000;
	CHECK(dpk_highd_copies(&cfg, 64) == 1, "k = 1000 runs 1 copy (%d)",
		  dpk_highd_copies(&cfg, 64));
	{
		HighdResearchConfig rc;

		highd_research_defaults(&rc, 1.0, 1000);
		rc.lift_mode = HIGHD_LIFT_CELL;
		CHECK(highd_research_budget(&rc, 64).base.copies == rc.base.copies,
			  "selection modes run every copy");
	}
}

/*
 * The research modes' split of epsilon: every mode, with and without
 * refinement and coarser lifting cells, adds up; shares positive where used
 * and zero where not; the joint mode's is the shipped one.
 */
static void
test_research_budget(void)
{
	static const double epss[] = {1e-5, 0.3, 1.0, 64.0};
	static const int ds[] = {2, 6, 17, 64, 300};
	int			mode,
				e,
				di,
				variant,
				ok = 1,
				positive = 1,
				joint_same = 1,
				cases = 0;

	for (mode = 0; mode < 3; mode++)
		for (e = 0; e < 4; e++)
			for (di = 0; di < 5; di++)
				for (variant = 0; variant < 4; variant++)
				{
					HighdResearchConfig rc;
					HighdResearchBudget rb;
					const DpkHighdBudget *b = &rb.base;
					double		lift;

					highd_research_defaults(&rc, epss[e], 4 + variant);
					rc.lift_mode = (HighdLiftMode) mode;
					rc.base.copies = 1 + variant;
					rc.base.public_n = variant == 2 ? 50.0 : -1.0;
					rc.base.refine_steps = variant == 1 || variant == 3 ? variant : 0;
					rc.lift_coarsen = variant == 3 ? 2 : 1;
					rc.norm_share = variant >= 2 ? 0.1 : 0.0;
					rc.base.lift_count_share = variant == 1 ? 0.25 : -1.0;
					/* joint mode leaves the grids what the lift and refinement do not take */
					if (rc.base.refine_steps > 0)
						rc.base.lift_share = 0.5;
					rb = highd_research_budget(&rc, ds[di]);
					cases++;
					if (!(fabs(highd_research_budget_total(&rb) - epss[e]) <= 1e-12 * epss[e]))
						ok = 0;
					lift = b->eps_lift_count + b->eps_lift_sum + rb.eps_lift_norm;
					if (!(b->eps_grid > 0.0 && b->eps_lift_sum > 0.0 && lift > 0.0) ||
						fabs(b->eps_refine_count + b->eps_refine_sum - b->eps_refine) >
						1e-15 * epss[e] ||
						(mode == HIGHD_LIFT_CELL && rc.lift_coarsen == 1 &&
						 b->eps_lift_count != 0.0) ||
						(mode != HIGHD_LIFT_CELL && rb.eps_lift_norm != 0.0) ||
						(mode != HIGHD_LIFT_JOINT && b->eps_group != 0.0) ||
						rb.lift_per_copy != (mode != HIGHD_LIFT_JOINT))
						positive = 0;
					if (mode == HIGHD_LIFT_JOINT)
					{
						DpkHighdBudget s = dpk_budget_highd(&rc.base, ds[di]);

						if (memcmp(&s, b, sizeof(s)) != 0)
							joint_same = 0;
					}
				}
	CHECK(ok, "research shares add up to epsilon in %d configurations", cases);
	CHECK(positive, "research shares positive where used, zero where not");
	CHECK(joint_same, "the research joint mode splits as the shipped one");

	/* cell mode with the grid's own cells: its counts serve the lift */
	{
		HighdResearchConfig rc;
		HighdResearchBudget rb;

		highd_research_defaults(&rc, 1.0, 10);
		rc.lift_mode = HIGHD_LIFT_CELL;
		rc.norm_share = 0.2;
		rb = highd_research_budget(&rc, 16);
		CHECK(rb.lift_per_copy && rb.base.copies == 2 && rb.base.eps_lift_count == 0.0 &&
			  fabs(rb.eps_lift_norm - 0.95 / 2 * 0.7 * 0.2) <= 1e-14 &&
			  fabs(rb.base.eps_grid - 0.95 / 2 * 0.3) <= 1e-14,
			  "cell mode: per copy grid %g, norms %g", rb.base.eps_grid, rb.eps_lift_norm);
	}
}

/*
 * Columns of very different scales: k-means in the columns' units, not in
 * units where every column spans [0, 1].  One wide column (a box side of
 * 1000) is spread evenly, five narrow ones (sides of 1) hold two tight
 * groups: in the columns' units the best two centres split the wide column
 * (cost 1000^2/48 per row); two centres on the narrow groups leave the wide
 * column's whole variance (1000^2/12 per row, four times more).
 */
static void
test_box_geometry(void)
{
	enum
	{
		D = 6, N = 20000, K = 2
	};
	double		lower[D] = {0, 0, 0, 0, 0, 0},
				upper[D] = {1000, 1, 1, 1, 1, 1};
	DpkBox		box = {D, lower, upper};
	double	   *x = dpk_alloc(sizeof(double) * N * D);
	double		best[K * D];
	DpkHighdConfig cfg;
	DpkOneshotResult res;
	DpkStream	s;
	int			i,
				j;
	double		ratio;

	for (i = 0; i < N; i++)
	{
		double		g = (i % 2) ? 0.8 : 0.2;

		x[(size_t) i * D] = 1000.0 * test_uniform();
		for (j = 1; j < D; j++)
			x[(size_t) i * D + j] = fmin(1.0, fmax(0.0, g + 0.03 * unit_normal(&test_state)));
	}
	for (j = 0; j < D; j++)
		best[j] = best[D + j] = 0.5;
	best[0] = 250.0;
	best[D] = 750.0;
	dpk_highd_defaults(&cfg, 1.0, K);
	unit_open_stream(&s, 77);
	memset(&res, 0, sizeof(res));
	dpk_highd_oneshot_cluster(&box, x, N, &cfg, &s, &res);
	ratio = dpk_kmeans_cost(x, NULL, N, D, res.centers, K, NULL) /
		dpk_kmeans_cost(x, NULL, N, D, best, K, NULL);
	CHECK(centres_ok(&res, K, &box), "centres inside the box");
	CHECK(ratio < 1.5, "k-means cost in the columns' units: %.3f of the best split", ratio);
	dpk_oneshot_result_free(&res);
	dpk_stream_close(&s);
	dpk_free(x);
}

/*
 * dp_kmeans with a norm bound (dpk_highd_use_ball): rows are moved into the
 * ball before anything is counted, so the same directions at twice and at
 * three times the radius give the same release under the same key, and at
 * half the radius (inside the ball) another; every centre lies in the
 * ball, pure and Gaussian; the sums' noise per coordinate is below the
 * cube's.
 */
static void
test_oneshot_ball(void)
{
	enum
	{
		D = 64, N = 4000, K = 4
	};
	double		lower[D],
				upper[D];
	DpkBox		box = {D, lower, upper};
	double	   *dir = dpk_alloc(sizeof(double) * N * D),
			   *x = dpk_alloc(sizeof(double) * N * D),
			   *centres[3];
	static const double scales[3] = {2.0, 3.0, 0.5};
	double		worst = 0.0;
	DpkHighdConfig cfg;
	DpkOneshotResult res;
	DpkStream	s;
	int			i,
				j,
				v,
				g;

	for (j = 0; j < D; j++)
	{
		lower[j] = -1.0;
		upper[j] = 1.0;
	}
	for (i = 0; i < N; i++)
	{
		double		n2 = 0.0;

		for (j = 0; j < D; j++)
		{
			dir[(size_t) i * D + j] = (j / 16 == i % K ? 0.25 : 0.0) + 0.02 * unit_normal(&test_state);
			n2 += dir[(size_t) i * D + j] * dir[(size_t) i * D + j];
		}
		for (j = 0; j < D; j++)
			dir[(size_t) i * D + j] /= sqrt(n2);
	}
	for (v = 0; v < 3; v++)
	{
		for (i = 0; i < N * D; i++)
			x[i] = scales[v] * dir[i];
		dpk_highd_defaults(&cfg, 1.0, K);
		dpk_highd_use_ball(&cfg, &box, 1.0);
		unit_open_stream(&s, 91);
		dpk_highd_oneshot_cluster(&box, x, N, &cfg, &s, &res);
		centres[v] = dpk_alloc(sizeof(double) * K * D);
		memcpy(centres[v], res.centers, sizeof(double) * K * D);
		dpk_oneshot_result_free(&res);
		dpk_stream_close(&s);
	}
	CHECK(cfg.ball == 0.5 && cfg.half_width < 0.75, "ball %g, projected half-width %g",
		  cfg.ball, cfg.half_width);
	CHECK(memcmp(centres[0], centres[1], sizeof(double) * K * D) == 0,
		  "rows at twice and three times the radius released differently");
	CHECK(memcmp(centres[0], centres[2], sizeof(double) * K * D) != 0,
		  "rows inside the ball released as rows outside it");
	for (g = 0; g < 2; g++)
	{
		for (i = 0; i < N * D; i++)
			x[i] = 3.0 * dir[i];
		dpk_highd_defaults(&cfg, 1.0, K);
		dpk_highd_use_delta(&cfg, g ? 1e-6 : 0.0);
		dpk_highd_use_ball(&cfg, &box, 1.0);
		unit_open_stream(&s, 92 + (uint64_t) g);
		dpk_highd_oneshot_cluster(&box, x, N, &cfg, &s, &res);
		for (i = 0; i < K; i++)
		{
			double		n2 = 0.0;

			for (j = 0; j < D; j++)
				n2 += res.centers[(size_t) i * D + j] * res.centers[(size_t) i * D + j];
			worst = fmax(worst, sqrt(n2));
		}
		dpk_oneshot_result_free(&res);
		dpk_stream_close(&s);
	}
	CHECK(worst <= 1.0 + 1e-9, "a one-shot centre at norm %.9g, outside the ball", worst);
	/* pure: one discrete Laplace per coordinate at the ball's l1 bound */
	{
		DpkHighdInfo info;
		double		want;

		dpk_highd_defaults(&cfg, 1.0, K);
		dpk_highd_use_ball(&cfg, &box, 1.0);
		unit_open_stream(&s, 95);
		dpk_highd_oneshot_cluster_info(&box, x, N, &cfg, &s, &res, &info);
		want = sqrt((double) D) * dpk_lift_point_l2(D, 0.5) / info.budget.eps_lift_sum;
		CHECK(fabs(info.sum_scale - want) <= 1e-6 * want,
			  "one-shot sum scale %g with the ball, want %g", info.sum_scale, want);
		dpk_oneshot_result_free(&res);
		dpk_stream_close(&s);
	}
	for (v = 0; v < 3; v++)
		dpk_free(centres[v]);
	dpk_free(dir);
	dpk_free(x);
}

/*
 * Points made metric once (dpk_highd_metric_points, as dp_kmeans does)
 * give the release of the raw points: a box with sides of different
 * widths, rows outside it, with and without a ball, k-means and k-median.
 */
static void
test_metric_points(void)
{
	enum
	{
		D = 16, N = 3000, K = 4
	};
	double		lower[D],
				upper[D];
	DpkBox		box = {D, lower, upper};
	double	   *x = dpk_alloc(sizeof(double) * N * D),
			   *xm = dpk_alloc(sizeof(double) * N * D);
	int			i,
				j,
				v;

	for (j = 0; j < D; j++)
	{
		lower[j] = -1.0 - j;
		upper[j] = 2.0 + 3 * j;
	}
	for (i = 0; i < N; i++)
		for (j = 0; j < D; j++)
			x[(size_t) i * D + j] = lower[j] + (upper[j] - lower[j]) *
				((i % K) * 0.25 + 0.1 + 0.05 * unit_normal(&test_state));
	for (v = 0; v < 4; v++)
	{
		DpkHighdConfig cfg;
		DpkOneshotResult r1,
					r2;
		DpkStream	s;

		dpk_highd_defaults(&cfg, 1.0, K);
		if (v % 2 == 1)
			dpk_highd_use_ball(&cfg, &box, 12.0);
		if (v >= 2)
			cfg.objective = DPK_OBJECTIVE_KMEDIAN;
		unit_open_stream(&s, 17 + v);
		dpk_highd_oneshot_cluster(&box, x, N, &cfg, &s, &r1);
		dpk_stream_close(&s);
		memcpy(xm, x, sizeof(double) * N * D);
		dpk_highd_metric_points(&box, &cfg, xm, N);
		/* each row as dpk_box_normalize, _to_metric and _ball_clamp make it */
		for (i = 0; i < N; i++)
		{
			double		u[D];

			dpk_box_normalize(&box, x + (size_t) i * D, u);
			dpk_box_to_metric(&box, u);
			dpk_box_ball_clamp(D, cfg.ball, u);
			if (memcmp(u, xm + (size_t) i * D, sizeof(u)) != 0)
				break;
		}
		CHECK(i == N, "variant %d: row %d in other metric positions", v, i);
		unit_open_stream(&s, 17 + v);
		dpk_highd_oneshot_cluster(&box, xm, N, &cfg, &s, &r2);
		dpk_stream_close(&s);
		CHECK(cfg.points_metric &&
			  memcmp(r1.centers, r2.centers, sizeof(double) * K * D) == 0 &&
			  memcmp(r1.sizes, r2.sizes, sizeof(double) * K) == 0,
			  "variant %d: metric points released differently", v);
		dpk_oneshot_result_free(&r1);
		dpk_oneshot_result_free(&r2);
	}
	dpk_free(x);
	dpk_free(xm);
}

/*
 * The wide shares reach the plan: at d = DPK_HIGHD_WIDE_MIN_D a pure
 * release plans the grid and lift of wide_grid_scale and wide_lift_share,
 * the same as a configuration that sets those as its own shares; one
 * dimension less, the shares of before.
 */
static void
test_wide_plan(void)
{
	int			d = DPK_HIGHD_WIDE_MIN_D,
				j;
	double	   *lo = dpk_alloc(sizeof(double) * d),
			   *hi = dpk_alloc(sizeof(double) * d);
	DpkBox		box = {d, lo, hi};
	DpkHighdConfig cfg,
				same;
	DpkHighdPlan pw,
				ps,
				pn;
	DpkStream	s;

	for (j = 0; j < d; j++)
	{
		lo[j] = 0.0;
		hi[j] = 100.0;
	}
	unit_open_stream(&s, 5);
	dpk_highd_defaults(&cfg, 1.0, 10);
	cfg.public_n = 50000.0;
	same = cfg;
	same.wide_min_d = 0;
	same.lift_share = DPK_HIGHD_WIDE_LIFT_SHARE;
	same.grid_scale = DPK_HIGHD_WIDE_GRID_SCALE;
	dpk_highd_plan(&pw, &box, NULL, 0, &cfg, &s);
	dpk_highd_plan(&ps, &box, NULL, 0, &same, &s);
	CHECK(pw.m == ps.m && pw.sum_var == ps.sum_var && pw.count_var == ps.count_var,
		  "wide plan: grid %d (%d), sum var %g (%g)", pw.m, ps.m, pw.sum_var, ps.sum_var);
	box.d = d - 1;
	dpk_highd_plan(&pn, &box, NULL, 0, &cfg, &s);
	box.d = d;
	CHECK(pn.m > pw.m && pn.sum_var > pw.sum_var, "below the switch: finer grid %d > %d, "
		  "noisier sums", pn.m, pw.m);
	dpk_stream_close(&s);
	dpk_free(lo);
	dpk_free(hi);
}

/*
 * A partition's noisy statistics from labels computed before (the joint
 * mode computes them once, from the histogram pass's projections) are those
 * of the pass that projects every chunk again: the same counts and sums,
 * with and without a map, over several chunks of rows.
 */
static void
test_partition_row_labels(void)
{
	enum
	{
		D = 12, N = 2 * DPK_PROJ_CHUNK + 500, K = 5
	};
	double		lower[D],
				upper[D];
	DpkBox		box = {D, lower, upper};
	double	   *x = dpk_alloc(sizeof(double) * N * D),
			   *t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * 4),
				pc[K * 4],
				cnt[2][K],
				sum[2][K * D];
	int		   *labels = dpk_alloc(sizeof(int) * N),
				map[K] = {0, 1, 1, 0, 1};
	DpkHighdConfig cfg;
	DpkHighdPlan pl;
	DpkProjection proj;
	DpkStream	s;
	size_t		done,
				i;
	int			j,
				v,
				w;

	for (j = 0; j < D; j++)
	{
		lower[j] = 0.0;
		upper[j] = 10.0;
	}
	for (i = 0; i < (size_t) N * D; i++)
		x[i] = 10.0 * unit_uniform(&test_state);
	dpk_highd_defaults(&cfg, 1.0, K);
	dpk_highd_metric_points(&box, &cfg, x, N);
	unit_open_stream(&s, 5);
	dpk_highd_plan(&pl, &box, x, N, &cfg, &s);
	dpk_stream_close(&s);
	dpk_projection_init(&proj, D, pl.dhat, 99, cfg.half_width);
	for (j = 0; j < K * pl.dhat; j++)
		pc[j] = unit_uniform(&test_state);
	for (done = 0; done < N; done += DPK_PROJ_CHUNK)
	{
		size_t		rows = N - done < DPK_PROJ_CHUNK ? N - done : DPK_PROJ_CHUNK;

		dpk_project_batch(&proj, x + done * D, rows, t);
		for (i = 0; i < rows; i++)
			labels[done + i] = dpk_highd_nearest(t + i * pl.dhat, pc, K, pl.dhat);
	}
	for (v = 0; v < 2; v++)
	{
		for (w = 0; w < 2; w++)
		{
			DpkHighdPartition pt = {v ? 2 : K, 1, &proj, pc, v ? map : NULL, NULL,
			w ? labels : NULL, NULL};

			unit_open_stream(&s, 11 + v);
			dpk_highd_partition_stats(&pl, &pt, &pl.lift_count_scale, &pl.sum_scale, &s,
									  cnt[w], sum[w]);
			dpk_stream_close(&s);
		}
		CHECK(memcmp(cnt[0], cnt[1], sizeof(double) * (v ? 2 : K)) == 0 &&
			  memcmp(sum[0], sum[1], sizeof(double) * (v ? 2 : K) * D) == 0,
			  "statistics from stored labels differ (map %d)", v);
	}
	dpk_projection_free(&proj);
	dpk_free(x);
	dpk_free(t);
	dpk_free(labels);
}

/*
 * The SimHash tree seed of a norm-bound (epsilon, delta) one-shot
 * (dpk_highd_tree_seed): K = 4 tight clusters of unit rows around
 * orthogonal directions at d = 64, without noise (epsilon 1e12).  The
 * tree's levels take tree_share of rho after N; every row is in a leaf and
 * every leaf holds one cluster's rows; the seed alone
 * (no refinement step) and the full release (three steps) put a centre at
 * each cluster's mean, to the sums' fixed point, and every row is nearest
 * its own cluster's centre.
 */
static void
test_tree_seed(void)
{
	enum
	{
		D = 64, N = 4000, K = 4
	};
	double		lower[D],
				upper[D],
				mean[K * D],
				worst[3] = {0.0, 0.0, 0.0};
	DpkBox		box = {D, lower, upper};
	double	   *x = dpk_alloc(sizeof(double) * N * D),
			   *xm = dpk_alloc(sizeof(double) * N * D);
	int		   *lab = dpk_alloc(sizeof(int) * N),
			   *leaf = dpk_alloc(sizeof(int) * N),
			   *leaf_lab;
	DpkHighdConfig cfg;
	DpkHighdPlan pl;
	DpkHighdInfo info;
	DpkOneshotResult res;
	DpkStream	s;
	double		min_node;
	int			i,
				j,
				v,
				nl,
				mixed = 0,
				lost = 0,
				wrong[3] = {0, 0, 0};

	memset(mean, 0, sizeof(mean));
	for (j = 0; j < D; j++)
	{
		lower[j] = -1.0;
		upper[j] = 1.0;
	}
	for (i = 0; i < N; i++)
	{
		double		n2 = 0.0;

		lab[i] = i % K;
		for (j = 0; j < D; j++)
		{
			x[(size_t) i * D + j] = (j / 16 == lab[i] ? 0.25 : 0.0) + 0.01 * unit_normal(&test_state);
			n2 += x[(size_t) i * D + j] * x[(size_t) i * D + j];
		}
		for (j = 0; j < D; j++)
		{
			x[(size_t) i * D + j] /= sqrt(n2);
			mean[lab[i] * D + j] += x[(size_t) i * D + j] / (N / K);
		}
	}
	dpk_highd_defaults(&cfg, 1e12, K);
	dpk_highd_use_delta(&cfg, 1e-6);
	dpk_highd_use_ball(&cfg, &box, 1.0);
	CHECK(cfg.tree_depth == DPK_HIGHD_BALL_TREE_DEPTH && cfg.refine_steps > 0,
		  "a norm-bound delta one-shot plans no tree (%d levels)", cfg.tree_depth);

	/* the leaves: every row in one, one cluster per leaf */
	memcpy(xm, x, sizeof(double) * N * D);
	dpk_highd_metric_points(&box, &cfg, xm, N);
	unit_open_stream(&s, 61);
	dpk_highd_plan(&pl, &box, xm, N, &cfg, &s);
	CHECK(pl.eps.tree_levels == cfg.tree_depth && pl.copies > 0 && pl.eps.eps_tree > 0.0 &&
		  pl.eps.eps_grid > 0.0 && pl.eps.eps_group > 0.0 &&
		  fabs(pl.eps.tree_levels * pl.eps.eps_tree -
			   cfg.tree_share * (dpk_zcdp_rho(1e12, 1e-6) - pl.eps.eps_n)) <=
		  1e-9 * pl.eps.tree_levels * pl.eps.eps_tree,
		  "the tree's budget: %d levels at %g, %d copies", pl.eps.tree_levels,
		  pl.eps.eps_tree, pl.copies);
	nl = dpk_highd_tree_leaves(&pl, &s, leaf, &min_node, NULL);
	dpk_stream_close(&s);
	leaf_lab = dpk_alloc(sizeof(int) * (nl > 0 ? nl : 1));
	for (i = 0; i < nl; i++)
		leaf_lab[i] = -1;
	for (i = 0; i < N; i++)
	{
		if (leaf[i] < 0 || leaf[i] >= nl)
		{
			lost++;
			continue;
		}
		if (leaf_lab[leaf[i]] >= 0 && leaf_lab[leaf[i]] != lab[i])
			mixed++;
		leaf_lab[leaf[i]] = lab[i];
	}
	CHECK(nl >= K && lost == 0 && mixed == 0,
		  "tree without noise: %d leaves, %d rows in none, %d rows in another cluster's leaf",
		  nl, lost, mixed);

	/*
	 * the seed alone, then with the refinement steps, then alone with its
	 * leaves not crossed with the projected parts (a cap too small)
	 */
	for (v = 0; v < 3; v++)
	{
		int			c,
					a;

		dpk_highd_defaults(&cfg, 1e12, K);
		dpk_highd_use_delta(&cfg, 1e-6);
		dpk_highd_use_ball(&cfg, &box, 1.0);
		if (v != 1)
			cfg.refine_steps = 0;
		if (v == 2)
			cfg.max_lift_values = 2.0 * K * (D + 1);
		unit_open_stream(&s, 62 + (uint64_t) v);
		dpk_highd_oneshot_cluster_info(&box, x, N, &cfg, &s, &res, &info);
		dpk_stream_close(&s);
		for (c = 0; c < K; c++)
		{
			double		best = INFINITY;

			for (a = 0; a < K; a++)
			{
				double		e = 0.0;

				for (j = 0; j < D; j++)
					e = fmax(e, fabs(res.centers[(size_t) a * D + j] - mean[c * D + j]));
				best = fmin(best, e);
			}
			worst[v] = fmax(worst[v], best);
		}
		for (i = 0; i < N; i++)
		{
			int			near;

			dpk_kmeans_cost(x + (size_t) i * D, NULL, 1, D, res.centers, K, &near);
			for (j = 0; j < D; j++)
				if (fabs(res.centers[(size_t) near * D + j] - mean[lab[i] * D + j]) > 1e-2)
				{
					wrong[v]++;
					break;
				}
		}
		CHECK(info.tree_leaves == nl, "release %d: %d leaves, the tree alone %d", v,
			  info.tree_leaves, nl);
		dpk_oneshot_result_free(&res);
	}
	CHECK(worst[0] <= 2.0 / DPK_LIFT_UNITS && worst[1] <= 2.0 / DPK_LIFT_UNITS &&
		  worst[2] <= 2.0 / DPK_LIFT_UNITS,
		  "noiseless tree seed: a cluster mean %g (seed) / %g (refined) / %g (leaves "
		  "alone) from every centre", worst[0], worst[1], worst[2]);
	CHECK(wrong[0] == 0 && wrong[1] == 0 && wrong[2] == 0,
		  "noiseless tree seed: %d / %d / %d rows nearest another cluster's centre",
		  wrong[0], wrong[1], wrong[2]);
	dpk_free(x);
	dpk_free(xm);
	dpk_free(lab);
	dpk_free(leaf);
	dpk_free(leaf_lab);
}

int
main(void)
{
	test_cells_cluster();
	test_cells_rest_mean();
	test_cells_space();
	test_cells_space_charge();
	test_pipeline();
	test_copies_cap();
	test_wide_plan();
	test_research_budget();
	test_box_geometry();
	test_oneshot_ball();
	test_metric_points();
	test_partition_row_labels();
	test_tree_seed();
	test_grid_cap();
	UNIT_DONE("test_highd");
}
