/*
 * test_mean_guard.c
 *		The mean guard (mean_guard.h): it fires on centres dearer than the
 *		noisy mean, never on a well-clustered release, and the one-shot
 *		high-d release applies it; the one-shot's refinement step
 *		(dpk_highd_refine_step) is an exact Lloyd step on noiseless input.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dpk_mem.h"
#include "highd.h"
#include "kmeans.h"
#include "lift.h"
#include "mean_guard.h"
#include "noise.h"
#include "unit.h"
#include "unit_stream.h"

#define D 32
#define K 5
#define PER 400

static uint64_t test_state = 0x6d65616e67756172ULL;

/*
 * Rows in normalized coordinates: K clusters at well separated corners
 * (spread sd), or one blob (sep 0).  labels get the generating cluster.
 */
static void
make_rows(double *x, int *labels, double sep, double sd)
{
	int			a,
				i,
				j;

	for (a = 0; a < K; a++)
		for (i = 0; i < PER; i++)
		{
			double	   *r = x + ((size_t) a * PER + i) * D;

			labels[a * PER + i] = a;
			for (j = 0; j < D; j++)
				r[j] = 0.5 + (j % K == a ? sep : 0.0) + sd * unit_normal(&test_state);
		}
}

/*
 * One noisy (count, sum) per part of labels (sums of u - 1/2), Gaussian
 * test noise of variance count_var and sum_var, and each part's centre at
 * its noisy mean (the box's middle below min_count).
 */
static void
noisy_parts(const double *x, const int *labels, double count_var, double sum_var,
			double min_count, double *cnt, double *sum, double *centers)
{
	int			a,
				j;
	size_t		i;

	memset(cnt, 0, sizeof(double) * K);
	memset(sum, 0, sizeof(double) * K * D);
	for (i = 0; i < (size_t) K * PER; i++)
	{
		cnt[labels[i]] += 1.0;
		for (j = 0; j < D; j++)
			sum[labels[i] * D + j] += x[i * D + j] - 0.5;
	}
	for (a = 0; a < K; a++)
	{
		cnt[a] += sqrt(count_var) * unit_normal(&test_state);
		for (j = 0; j < D; j++)
		{
			sum[a * D + j] += sqrt(sum_var) * unit_normal(&test_state);
			centers[a * D + j] = cnt[a] >= min_count ? 0.5 + sum[a * D + j] / cnt[a] : 0.5;
		}
	}
}

/* The exact k-means cost of centres over the rows. */
static double
true_cost(const double *x, const double *centers)
{
	double		cost = 0.0;
	size_t		i;
	int			a,
				j;

	for (i = 0; i < (size_t) K * PER; i++)
	{
		double		best = INFINITY;

		for (a = 0; a < K; a++)
		{
			double		s = 0.0;

			for (j = 0; j < D; j++)
				s += (x[i * D + j] - centers[a * D + j]) * (x[i * D + j] - centers[a * D + j]);
			best = fmin(best, s);
		}
		cost += best;
	}
	return cost;
}

/* Noiseless: the gap is the exact cost difference of the parts' centres. */
static void
test_exact(void)
{
	double	   *x = dpk_alloc(sizeof(double) * K * PER * D);
	int		   *labels = dpk_alloc(sizeof(int) * K * PER);
	double		cnt[K],
				sum[K * D],
				centers[K * D],
				mean[D],
				gap,
				c_cost,
				m_cost;
	int			a,
				j;

	make_rows(x, labels, 0.3, 0.05);
	noisy_parts(x, labels, 0.0, 0.0, 1.0, cnt, sum, centers);
	gap = dpk_mean_guard_gap(D, K, cnt, sum, 0.0, 1.0, centers, NULL, mean);
	c_cost = true_cost(x, centers);
	{
		double		one[K * D];

		for (a = 0; a < K; a++)
			memcpy(one + a * D, mean, sizeof(mean));
		m_cost = true_cost(x, one);
	}
	CHECK(fabs(gap - (c_cost - m_cost)) <= 1e-6 * m_cost,
		  "noiseless gap %.9g, true difference %.9g", gap, c_cost - m_cost);
	CHECK(gap < 0.0, "well separated clusters: gap %g should be negative", gap);
	CHECK(!dpk_mean_guard(D, K, cnt, sum, 0.0, 1.0, NULL, centers, NULL),
		  "the guard fired on exact means of well separated clusters");
	/* the same statistics with every centre in a far corner: it fires */
	for (a = 0; a < K; a++)
		for (j = 0; j < D; j++)
			centers[a * D + j] = 1.0;
	{
		double		sizes[K];

		CHECK(dpk_mean_guard(D, K, cnt, sum, 0.0, 1.0, NULL, centers, sizes),
			  "the guard kept centres in a far corner");
		for (j = 0; j < D; j++)
			CHECK(fabs(centers[(K - 1) * D + j] - mean[j]) < 1e-12,
				  "a guarded centre is not at the mean (coordinate %d)", j);
		CHECK(fabs(sizes[0] - K * PER) < 1e-9 && sizes[K - 1] == 0.0,
			  "guarded sizes %g, %g", sizes[0], sizes[K - 1]);
	}
	dpk_free(x);
	dpk_free(labels);
}

/*
 * Noisy: one blob cut into K random parts, each part's centre its noisy
 * mean.  Every centre carries its own part's noise while the mean averages
 * K of them: the centres cost more, and the guard must fire almost always.
 * Well separated clusters at the same noise: never.
 */
static void
test_noisy(void)
{
	double	   *x = dpk_alloc(sizeof(double) * K * PER * D);
	int		   *labels = dpk_alloc(sizeof(int) * K * PER);
	double		cnt[K],
				sum[K * D],
				centers[K * D],
				sum_var = 400.0,	/* sd 20 on a part's sum: 0.05 on its mean */
				count_var = 100.0;
	int			trial,
				fired_blob = 0,
				fired_clusters = 0,
				wrong_blob = 0,
				trials = 200;
	size_t		i;

	for (trial = 0; trial < trials; trial++)
	{
		double		mean[D],
					one[K * D],
					cc,
					mc;
		int			a;
		bool		f;

		make_rows(x, labels, 0.0, 0.05);
		for (i = 0; i < (size_t) K * PER; i++)
			labels[i] = (int) (unit_uniform(&test_state) * K);
		noisy_parts(x, labels, count_var, sum_var, 20.0, cnt, sum, centers);
		dpk_mean_guard_gap(D, K, cnt, sum, sum_var, 20.0, centers, NULL, mean);
		for (a = 0; a < K; a++)
			memcpy(one + a * D, mean, sizeof(mean));
		cc = true_cost(x, centers);
		mc = true_cost(x, one);
		f = dpk_mean_guard(D, K, cnt, sum, sum_var, 20.0, NULL, centers, NULL);
		fired_blob += f;
		/* it fired (or not) for the wrong side of the true costs */
		wrong_blob += f != (cc > mc);

		make_rows(x, labels, 0.3, 0.05);
		noisy_parts(x, labels, count_var, sum_var, 20.0, cnt, sum, centers);
		fired_clusters += dpk_mean_guard(D, K, cnt, sum, sum_var, 20.0, NULL, centers, NULL);
	}
	CHECK(fired_blob >= trials * 9 / 10, "one blob in random parts: fired %d of %d",
		  fired_blob, trials);
	CHECK(wrong_blob <= trials / 10, "one blob: %d of %d decisions against the true costs",
		  wrong_blob, trials);
	CHECK(fired_clusters == 0, "well separated clusters: fired %d of %d", fired_clusters,
		  trials);
	dpk_free(x);
	dpk_free(labels);
}

/*
 * The one-shot high-d release: well-clustered rows (K tight clusters in
 * [0,100]^16, 4 000 rows) never trip the guard over several keys, pure and
 * with delta; with the guard off the release is what it was.
 */
static void
test_oneshot(void)
{
	const int	d = 16,
				n = 4000;
	double	   *x = dpk_alloc(sizeof(double) * n * d);
	double		lo[16],
				hi[16],
				ctr[K * 16];
	DpkBox		box = {16, lo, hi};
	int			i,
				j,
				key,
				fired = 0,
				runs = 0;

	for (j = 0; j < d; j++)
	{
		lo[j] = 0.0;
		hi[j] = 100.0;
	}
	for (i = 0; i < K * d; i++)
		ctr[i] = 15.0 + 70.0 * unit_uniform(&test_state);
	for (i = 0; i < n; i++)
		for (j = 0; j < d; j++)
			x[(size_t) i * d + j] = ctr[(i % K) * d + j] + 2.0 * unit_normal(&test_state);
	for (key = 0; key < 6; key++)
	{
		DpkHighdConfig cfg;
		DpkOneshotResult res;
		DpkHighdInfo info;
		DpkStream	s;

		dpk_highd_defaults(&cfg, 1.0, K);
		dpk_highd_use_delta(&cfg, key % 2 ? 1e-6 : 0.0);
		CHECK(cfg.mean_guard, "the one-shot's defaults switch the guard on");
		unit_open_stream(&s, 300 + (uint64_t) key);
		dpk_highd_oneshot_cluster_info(&box, x, n, &cfg, &s, &res, &info);
		fired += info.guard_fired;
		runs++;
		dpk_oneshot_result_free(&res);
		dpk_stream_close(&s);
	}
	CHECK(fired == 0, "well-clustered one-shot releases: the guard fired %d of %d", fired,
		  runs);
	dpk_free(x);
}

/*
 * The one-shot on rows without clusters (one wide blob at d = 64, 2 000
 * rows, epsilon 0.5) lifting plain noisy means (lift_shrink off): each
 * part's centre is mostly noise, dearer than the noisy mean of all.  The
 * guard must fire on most keys, and a guarded release puts every centre
 * at one point.
 */
static void
test_oneshot_blob(void)
{
	const int	d = 64,
				n = 2000;
	double	   *x = dpk_alloc(sizeof(double) * n * d);
	double		lo[64],
				hi[64];
	DpkBox		box = {64, lo, hi};
	int			i,
				j,
				key,
				fired = 0;

	for (j = 0; j < d; j++)
	{
		lo[j] = 0.0;
		hi[j] = 100.0;
	}
	for (i = 0; i < n * d; i++)
		x[i] = fmin(100.0, fmax(0.0, 50.0 + 15.0 * unit_normal(&test_state)));
	for (key = 0; key < 6; key++)
	{
		DpkHighdConfig cfg;
		DpkOneshotResult res;
		DpkHighdInfo info;
		DpkStream	s;

		dpk_highd_defaults(&cfg, 0.5, K);
		cfg.lift_shrink = false;
		unit_open_stream(&s, 400 + (uint64_t) key);
		dpk_highd_oneshot_cluster_info(&box, x, n, &cfg, &s, &res, &info);
		if (info.guard_fired)
		{
			fired++;
			for (i = 1; i < K; i++)
				for (j = 0; j < d; j++)
					CHECK(res.centers[(size_t) i * d + j] == res.centers[j],
						  "a guarded release's centres differ");
		}
		dpk_oneshot_result_free(&res);
		dpk_stream_close(&s);
	}
	CHECK(fired >= 5, "one blob at d = 64, epsilon 0.5: the guard fired in %d of 6 keys",
		  fired);
	dpk_free(x);
}

/*
 * A refinement step at a budget so large that every noise draw is zero
 * (epsilon 1e12, pure) moves each centre to the exact mean of the rows
 * nearest it, up to the sums' fixed point (1/1024 of the box per row, far
 * less on a mean), whatever the start; and the plan of a norm-bound release
 * with delta > 0 budgets DPK_HIGHD_BALL_REFINE_STEPS steps.
 */
static void
test_refine_exact(void)
{
	const int	d = 8,
				k = 3,
				n = 3000;
	double	   *x = dpk_alloc(sizeof(double) * n * d);
	double		lo[8],
				hi[8],
				start[3 * 8],
				centers[3 * 8],
				sizes[3],
				want[3 * 8] = {0},
				cnt[3] = {0},
				worst = 0.0;
	int		   *lab = dpk_alloc(sizeof(int) * n);
	DpkBox		box = {8, lo, hi};
	DpkHighdConfig cfg;
	DpkHighdPlan pl;
	DpkStream	s;
	int			i,
				j;

	for (j = 0; j < d; j++)
	{
		lo[j] = 0.0;
		hi[j] = 1.0;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < d; j++)
			x[i * d + j] = fmin(1.0, fmax(0.0, (j == i % k ? 0.8 : 0.3) +
										  0.05 * unit_normal(&test_state)));
	/* a poor start: the clusters' centres pulled halfway to the middle */
	for (i = 0; i < k; i++)
		for (j = 0; j < d; j++)
			start[i * d + j] = 0.5 + 0.5 * ((j == i ? 0.8 : 0.3) - 0.5) + 0.01 * j;
	dpk_highd_defaults(&cfg, 1e12, k);
	cfg.public_n = n;
	cfg.refine_steps = 1;
	cfg.refine_share = 0.3;
	cfg.lift_share = 0.5;
	unit_open_stream(&s, 500);
	dpk_highd_plan(&pl, &box, x, n, &cfg, &s);
	memcpy(centers, start, sizeof(start));
	dpk_highd_refine_step(&pl, &s, centers, sizes, true, NULL);
	dpk_stream_close(&s);
	dpk_kmeans_cost(x, NULL, n, d, start, k, lab);
	for (i = 0; i < n; i++)
	{
		cnt[lab[i]] += 1.0;
		for (j = 0; j < d; j++)
			want[lab[i] * d + j] += x[i * d + j];
	}
	for (i = 0; i < k; i++)
	{
		CHECK(fabs(sizes[i] - cnt[i]) < 0.5, "refined size %g, exact %g", sizes[i], cnt[i]);
		for (j = 0; j < d; j++)
			worst = fmax(worst, fabs(centers[i * d + j] - want[i * d + j] / cnt[i]));
	}
	CHECK(worst < 1e-3, "a noiseless refinement step is %g from the exact Lloyd step", worst);
	CHECK(pl.refine_count_var < 1e-12 && pl.refine_sum_var < 1e-6,
		  "refinement noise %g / %g at epsilon 1e12", pl.refine_count_var, pl.refine_sum_var);

	/* defaults: a ball with delta > 0 refines, without either it does not */
	{
		double		blo[8],
					bhi[8];
		DpkBox		bb = {8, blo, bhi};

		for (j = 0; j < d; j++)
		{
			blo[j] = -1.0;
			bhi[j] = 1.0;
		}
		dpk_highd_defaults(&cfg, 1.0, k);
		dpk_highd_use_delta(&cfg, 1e-6);
		dpk_highd_use_ball(&cfg, &bb, 1.0);
		CHECK(cfg.refine_steps == DPK_HIGHD_BALL_REFINE_STEPS &&
			  cfg.lift_share == DPK_HIGHD_BALL_TREE_LIFT_SHARE,
			  "a norm bound with delta: %d refinement steps", cfg.refine_steps);
		dpk_highd_defaults(&cfg, 1.0, k);
		dpk_highd_use_ball(&cfg, &bb, 1.0);
		CHECK(cfg.refine_steps == 0, "a pure norm-bound release refines");
		dpk_highd_defaults(&cfg, 1.0, k);
		dpk_highd_use_delta(&cfg, 1e-6);
		dpk_highd_use_ball(&cfg, &bb, 0.0);
		CHECK(cfg.refine_steps == 0, "a release without a bound refines");
	}
	dpk_free(x);
	dpk_free(lab);
}

int
main(void)
{
	test_exact();
	test_noisy();
	test_oneshot();
	test_oneshot_blob();
	test_refine_exact();
	UNIT_DONE("test_mean_guard");
}
