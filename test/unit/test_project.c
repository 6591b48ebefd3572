/*
 * test_project.c
 *		Random projections, lifting and the high-dimensional one-shot pipeline.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "coreset.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "noise.h"
#include "highd.h"
#include "unit.h"
#include "../bench/highd_research.h"

/* A tiny deterministic generator for test data (not privacy noise). */
static uint64_t test_state = 88172645463325252ULL;

static double
test_uniform(void)
{
	test_state ^= test_state << 13;
	test_state ^= test_state >> 7;
	test_state ^= test_state << 17;
	return (double) (test_state >> 11) * (1.0 / 9007199254740992.0);
}

static double
test_normal(void)
{
	double		u1 = test_uniform() + 1e-300;
	double		u2 = test_uniform();

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void
open_stream(DpkStream *s, uint64_t seed)
{
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};

	dpk_key_from_seed(seed, key);
	if (!dpk_stream_open(s, key, nonce))
	{
		fprintf(stderr, "cannot open stream\n");
		exit(1);
	}
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
spent(const DpkHighdConfig *cfg, const DpkHighdInfo *info)
{
	const DpkHighdBudget *b = &info->budget;
	double		per_copy = b->eps_grid;
	double		once = b->eps_n + b->eps_refine * cfg->refine_steps;

	if (cfg->lift_mode == DPK_LIFT_JOINT)
		once += b->eps_group + b->eps_lift_count + b->eps_lift_sum;
	else
		per_copy += b->eps_lift_count + b->eps_lift_sum + b->eps_lift_norm;
	return once + b->copies * per_copy;
}

/* The shipped pipeline in the joint mode, the research runner otherwise. */
static void
run_mode(const DpkBox *box, const double *x, size_t n, const DpkHighdConfig *cfg,
		 DpkStream *s, DpkOneshotResult *res, DpkHighdInfo *info)
{
	HighdResearchInfo ri;

	if (cfg->lift_mode == DPK_LIFT_JOINT && cfg->refine_steps == 0)
	{
		if (info)
			dpk_highd_oneshot_cluster_info(box, x, n, cfg, s, res, info);
		else
			dpk_highd_oneshot_cluster(box, x, n, cfg, s, res);
		return;
	}
	memset(&ri, 0, sizeof(ri));
	highd_research_cluster(box, x, n, cfg, s, res, &ri);
	if (info)
		*info = ri.base;
}

static void
test_projection(void)
{
	int			d = 64,
				dhat = 4,
				i,
				ii,
				j;
	DpkProjection a,
				b,
				c;
	size_t		n = 5000;		/* more than one chunk of dpk_project_points */
	double	   *u = dpk_alloc(sizeof(double) * n * d);
	double	   *x = dpk_alloc(sizeof(double) * n * d);
	double	   *t1 = dpk_alloc(sizeof(double) * n * dhat);
	double	   *t2 = dpk_alloc(sizeof(double) * n * dhat);
	double		lo[64],
				hi[64];
	DpkBox		box = {64, lo, hi};
	double		maxdiff = 0.0,
				orth = 0.0;
	int			same = 1,
				differs = 0;
	size_t		r;

	dpk_projection_init(&a, d, dhat, 42, 0.75);
	for (r = 0; r < n * d; r++)
		u[r] = test_uniform();

	/* the matrix depends on (d, dhat, seed) only: projecting data first changes nothing */
	dpk_project_batch(&a, u, n, t1);
	dpk_projection_init(&b, d, dhat, 42, 0.75);
	for (r = 0; r < (size_t) dhat * d; r++)
		if (a.mat[r] != b.mat[r])
			same = 0;
	CHECK(same, "same seed gives the same matrix");
	dpk_projection_init(&c, d, dhat, 43, 0.75);
	for (r = 0; r < (size_t) dhat * d; r++)
		if (a.mat[r] != c.mat[r])
			differs = 1;
	CHECK(differs, "another seed gives another matrix");
	CHECK(dpk_projection_copy_seed(42, 0) != dpk_projection_copy_seed(42, 1) &&
		  dpk_projection_copy_seed(42, 1) == dpk_projection_copy_seed(42, 1),
		  "copy seeds distinct and deterministic");

	/* rows orthonormal */
	for (i = 0; i < dhat; i++)
		for (ii = 0; ii < dhat; ii++)
		{
			double		dot = 0.0;

			for (j = 0; j < d; j++)
				dot += a.mat[i * d + j] * a.mat[ii * d + j];
			orth = fmax(orth, fabs(dot - (i == ii ? 1.0 : 0.0)));
		}
	CHECK(orth < 1e-12, "rows orthonormal (%g)", orth);

	/* the dgemm batch equals a naive loop, clamping included */
	for (r = 0; r < n; r++)
		for (i = 0; i < dhat; i++)
		{
			double		y = 0.0,
						v;

			for (j = 0; j < d; j++)
				y += a.mat[i * d + j] * (u[r * d + j] - 0.5);
			v = (y + 0.75) / 1.5;
			v = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
			maxdiff = fmax(maxdiff, fabs(v - t1[r * dhat + i]));
		}
	CHECK(maxdiff < 1e-12, "dgemm projection equals the naive loop (%g)", maxdiff);

	/* a corner of the cube lands outside the projected box and is clamped */
	{
		double		corner[64],
					tc[4];
		int			clamped = 0;

		for (j = 0; j < d; j++)
			corner[j] = a.mat[j] > 0.0 ? 1.0 : 0.0;	/* maximises row 0 */
		dpk_project_batch(&a, corner, 1, tc);
		for (i = 0; i < dhat; i++)
			if (!(tc[i] >= 0.0 && tc[i] <= 1.0))
				clamped = -1;
		if (clamped == 0 && tc[0] == 1.0)
			clamped = 1;
		CHECK(clamped == 1, "projected box clamps (t0 = %g)", tc[0]);
	}

	/* raw points through the box: same as normalize + batch, over several chunks */
	for (j = 0; j < d; j++)
	{
		lo[j] = -10.0 * (j + 1);
		hi[j] = 10.0 * (j + 1);
	}
	for (r = 0; r < n; r++)
		for (j = 0; j < d; j++)
			x[r * d + j] = lo[j] + (hi[j] - lo[j]) * u[r * d + j];
	x[7 * d + 3] = INFINITY;
	x[9 * d + 5] = -INFINITY;
	u[7 * d + 3] = 1.0;
	u[9 * d + 5] = 0.0;
	dpk_project_batch(&a, u, n, t1);
	dpk_project_points(&a, &box, x, n, t2);
	maxdiff = 0.0;
	for (r = 0; r < n * dhat; r++)
		maxdiff = fmax(maxdiff, fabs(t1[r] - t2[r]));
	CHECK(maxdiff < 1e-12, "dpk_project_points equals normalize + batch (%g)", maxdiff);

	/* back-projection inverts the projection on its row space */
	{
		double		y[4] = {0.1, -0.2, 0.05, 0.15},
					uu[64],
					tt[4],
					back[64],
					err = 0.0;

		for (j = 0; j < d; j++)
		{
			uu[j] = 0.5;
			for (i = 0; i < dhat; i++)
				uu[j] += a.mat[i * d + j] * y[i];
		}
		dpk_project_batch(&a, uu, 1, tt);
		dpk_project_back(&a, tt, back);
		for (j = 0; j < d; j++)
			err = fmax(err, fabs(back[j] - uu[j]));
		CHECK(err < 1e-12, "project_back inverts on the row space (%g)", err);
	}

	dpk_projection_free(&a);
	dpk_projection_free(&b);
	dpk_projection_free(&c);
	dpk_free(u);
	dpk_free(x);
	dpk_free(t1);
	dpk_free(t2);
}

static void
test_lifting(void)
{
	enum
	{
		D = 16, K = 3, CELLS = 7, PER = 50
	};
	double		count[CELLS],
				sum[CELLS * D],
				norm[CELLS];
	int			assign[CELLS] = {0, 0, 1, 2, 2, 2, -1};
	double		truth_sum[K][D],
				truth_n[K],
				truth_cost = 0.0;
	double		pts[CELLS][PER][D];
	double		centers[K * D],
				sizes[K],
				fb[K * D];
	double		err = 0.0,
				cost;
	int64_t		q[D];
	int			in_range = 1;
	int			c,
				i,
				j,
				a;

	memset(truth_sum, 0, sizeof(truth_sum));
	memset(truth_n, 0, sizeof(truth_n));
	/* points on the fixed-point grid: u = 1/2 + q / U exactly */
	for (c = 0; c < CELLS; c++)
	{
		count[c] = 0.0;
		norm[c] = 0.0;
		for (j = 0; j < D; j++)
			sum[c * D + j] = 0.0;
		for (i = 0; i < PER - c; i++)
		{
			double	   *u = pts[c][i];
			int64_t		nq;

			for (j = 0; j < D; j++)
			{
				int			z = (int) floor(test_uniform() * (DPK_LIFT_UNITS + 1))
					- DPK_LIFT_UNITS / 2;

				u[j] = 0.5 + (double) z / DPK_LIFT_UNITS;
			}
			nq = dpk_lift_quantize(D, u, q);
			count[c] += 1.0;
			for (j = 0; j < D; j++)
			{
				if (q[j] < -DPK_LIFT_UNITS / 2 || q[j] > DPK_LIFT_UNITS / 2 ||
					q[j] != (int64_t) llround((u[j] - 0.5) * DPK_LIFT_UNITS))
					in_range = 0;
				sum[c * D + j] += (double) q[j] / DPK_LIFT_UNITS;
			}
			norm[c] += (double) nq / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
			if (assign[c] >= 0)
			{
				truth_n[assign[c]] += 1.0;
				for (j = 0; j < D; j++)
					truth_sum[assign[c]][j] += u[j];
			}
		}
	}
	CHECK(in_range, "quantised offsets exact and within [-U/2, U/2]");
	for (j = 0; j < K * D; j++)
		fb[j] = 0.25;
	dpk_lift_centers(D, K, CELLS, count, sum, assign, 1.0, fb, centers, sizes);
	for (a = 0; a < K; a++)
	{
		CHECK(sizes[a] == truth_n[a], "size of centre %d: %g vs %g", a, sizes[a], truth_n[a]);
		for (j = 0; j < D; j++)
			err = fmax(err, fabs(centers[a * D + j] - truth_sum[a][j] / truth_n[a]));
	}
	CHECK(err < 1e-9, "noiseless lifting is exact (%g)", err);

	/* the cost estimate equals the true cost of the clusters around their means */
	for (c = 0; c < CELLS; c++)
	{
		if (assign[c] < 0)
			continue;
		for (i = 0; i < PER - c; i++)
			for (j = 0; j < D; j++)
			{
				double		diff = pts[c][i][j] - truth_sum[assign[c]][j] / truth_n[assign[c]];

				truth_cost += diff * diff;
			}
	}
	cost = dpk_lift_cost(D, K, CELLS, count, sum, norm, assign, 0.0, 1.0);
	CHECK(fabs(cost - truth_cost) < 1e-9 * truth_cost, "noiseless cost %g vs %g",
		  cost, truth_cost);

	/* without norms the score is minus the between-cluster term */
	{
		double		between = 0.0;

		for (a = 0; a < K; a++)
		{
			double		s2 = 0.0;

			for (j = 0; j < D; j++)
			{
				double		sj = truth_sum[a][j] - 0.5 * truth_n[a];

				s2 += sj * sj;
			}
			between += s2 / truth_n[a];
		}
		cost = dpk_lift_cost(D, K, CELLS, count, sum, NULL, assign, 0.0, 1.0);
		CHECK(fabs(cost + between) < 1e-9 * between, "between-cluster score");
	}

	/* a centre below min_count takes its fallback; sizes never negative */
	count[3] = -200.0;
	dpk_lift_centers(D, K, CELLS, count, sum, assign, 1.0, fb, centers, sizes);
	CHECK(centers[2 * D] == 0.25 && centers[2 * D + D - 1] == 0.25 && sizes[2] == 0.0,
		  "fallback below min_count (size %g)", sizes[2]);
	dpk_lift_centers(D, K, CELLS, count, sum, assign, 1.0, NULL, centers, sizes);
	CHECK(centers[2 * D] == 0.5, "fallback NULL is the box middle");
	/* huge noisy sums are clamped into the cube */
	sum[0] = 1e9;
	dpk_lift_centers(D, K, CELLS, count, sum, assign, 1.0, fb, centers, sizes);
	CHECK(centers[0] == 1.0, "lifted centre clamped into the box");
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
	for (pass = 0; pass < 2; pass++)
	{
		DpkHighdCells hc;
		double		err = 0.0;

		hc.m = M;
		hc.count = count;
		hc.count_var = 0.0;
		hc.lift_m = pass == 0 ? M : LM;
		hc.lift_count = pass == 0 ? NULL : lcount;
		hc.lift_count_var = 0.0;
		hc.sum = pass == 0 ? sum : lsum;
		hc.sum_var = 0.0;
		hc.sumnorm = NULL;
		dpk_highd_cells_cluster(&p, &hc, 2, 2.0, 3, 50, 5, centers, sizes, &csz);
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
			x[i * d + t] = truth[j * d + t] + sd * test_normal();
	}
}

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
	open_stream(&s, 7);

	for (mode = 0; mode < 3; mode++)
	{
		DpkHighdConfig cfg;
		DpkOneshotResult res;
		DpkHighdInfo info;
		double		pts[3 * 64];
		const char *name = mode == 0 ? "joint" : (mode == 1 ? "cluster" : "cell");

		dpk_highd_defaults(&cfg, 1.0, k);
		cfg.lift_mode = mode == 0 ? DPK_LIFT_JOINT : (mode == 1 ? DPK_LIFT_CLUSTER
													  : DPK_LIFT_CELL);
		if (mode == 1)
			cfg.refine_steps = 1;

		/* n = 0: exactly k finite centres in the box */
		memset(&info, 0, sizeof(info));
		run_mode(&box, x, 0, &cfg, &s, &res, &info);
		CHECK(centres_ok(&res, k, &box), "%s: n = 0 gives k finite centres", name);
		CHECK(fabs(spent(&cfg, &info) - cfg.epsilon) < 1e-12,
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
		cfg.public_n = 3.0;
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
		DpkHighdConfig cfg;
		DpkOneshotResult res;
		double		worst = 0.0,
					size_err = 0.0;
		const char *name = mode == 0 ? "joint" : (mode == 1 ? "cluster" : "cell");

		dpk_highd_defaults(&cfg, 1e6, k);
		cfg.lift_mode = mode == 0 ? DPK_LIFT_JOINT : (mode == 1 ? DPK_LIFT_CLUSTER
													  : DPK_LIFT_CELL);
		/* smaller grids keep the test fast; the noise is negligible anyway */
		cfg.max_cells = 4096.0;
		cfg.max_lift_values = 4096.0 * d;
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
	cfg.lift_mode = DPK_LIFT_CELL;
	CHECK(dpk_highd_copies(&cfg, 64) == cfg.copies, "selection modes run every copy");
}

/*
 * Lifting from the heaviest cells: exact sums use every cell (the same
 * centres as dpk_lift_centers); noisy sums drop light cells by the p / C^2
 * rule; a noise variance near the signal shrinks toward the fallback.
 */
static void
test_lift_heavy(void)
{
	enum
	{
		HD = 8, HC = 4
	};
	double		count[HC] = {1000.0, 500.0, 5.0, 5.0};
	double		sum[HC * HD];
	int			assign[HC] = {0, 0, 0, 0};
	double		fb[HD],
				a_cent[HD],
				b_cent[HD],
				size;
	int			c,
				j,
				ok = 1;

	for (c = 0; c < HC; c++)
		for (j = 0; j < HD; j++)
			sum[c * HD + j] = count[c] * (c < 2 ? 0.1 * (c + 1) : -0.4);
	for (j = 0; j < HD; j++)
		fb[j] = 0.5;
	dpk_lift_centers(HD, 1, HC, count, sum, assign, 1.0, fb, a_cent, NULL);
	dpk_lift_centers_heavy(HD, 1, HC, count, sum, assign, 0.0, 1.0, fb, b_cent, &size);
	for (j = 0; j < HD; j++)
		if (fabs(a_cent[j] - b_cent[j]) > 1e-12)
			ok = 0;
	CHECK(ok && size == 1510.0, "exact sums: every cell, as dpk_lift_centers");

	/* p / C^2: 1e-6, 8.9e-7, 1.3e-6, ... so the two heavy cells */
	dpk_lift_centers_heavy(HD, 1, HC, count, sum, assign, 1e-4, 1.0, fb, b_cent, &size);
	ok = 1;
	for (j = 0; j < HD; j++)
		if (fabs(b_cent[j] - (0.5 + (100.0 + 100.0) / 1500.0)) > 1e-6)
			ok = 0;
	CHECK(ok && size == 1510.0, "noisy sums: lifted from the two heaviest cells (%g)", b_cent[0]);

	/* noise comparable to the offset: pulled part of the way to the fallback */
	dpk_lift_centers_heavy(HD, 1, HC, count, sum, assign, 20000.0, 1.0, fb, b_cent, NULL);
	CHECK(b_cent[0] > 0.5 && b_cent[0] < 0.5 + 200.0 / 1500.0 - 1e-3,
		  "James-Stein shrinkage toward the fallback (%g)", b_cent[0]);
}

int
main(void)
{
	dpk_blas_single_thread();
	test_projection();
	test_lifting();
	test_lift_heavy();
	test_cells_cluster();
	test_pipeline();
	test_copies_cap();
	UNIT_DONE("test_project");
}
