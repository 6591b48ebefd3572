/*
 * kmeans.c
 *		Weighted k-means (k-means++ seeding, Lloyd, restarts) on BLAS: the
 *		seeding, the Lloyd loop, plain and screened restarts, and the cost
 *		of fixed centres.
 *
 * The centre update, and Lloyd's loop on a kd-tree in low dimension, are in
 * kmeans_filter.c.  The assignment step is in kmeans_assign.c: point-to-
 * centre distances come from dgemm, ||x||^2 - 2 x.c + ||c||^2, and the
 * distance of a point to the centre it ends up with is then recomputed
 * directly from the coordinates, which keeps reported costs free of the
 * cancellation of the expanded form.
 *
 * Conventions that make the result deterministic and NaN-free:
 *
 * - Weights are clipped: anything not > 0 (negative, zero, NaN) counts as 0.
 * - Ties go to the lowest centre index, and a centre whose coordinates equal
 *	 those of an earlier centre is ignored by the assignment, so duplicated
 *	 centres never split points between them: the spare copy gets size 0.
 * - A cluster that ends a Lloyd step with no weight is re-seeded at the point
 *	 with the largest weighted contribution to the cost (distinct points for
 *	 distinct empty clusters); when every point already costs 0 it keeps its
 *	 previous centre.
 * - With zero total weight the seeding treats every point as weight 1, so the
 *	 centres are still spread over the data (the cost is 0 whatever they are).
 *
 * The random generator is xoshiro256** seeded through splitmix64; this code
 * only post-processes noisy data, so no cryptographic strength is needed.
 */
#include "kmeans_int.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "dpk_mem.h"
#include "prng.h"

typedef DpkPrng KmRng;

/*
 * Seed the generator of one restart.  The stream number is mixed into the
 * seed before expansion, so restarts get unrelated (not shifted) streams.
 */
static void
km_rng_init(KmRng *rng, uint64_t seed, uint64_t stream)
{
	uint64_t	t = stream ^ UINT64_C(0x6A09E667F3BCC909);

	dpk_prng_seed(rng, seed ^ dpk_splitmix64(&t));
}

/* Uniform double in [0, 1) with 53 random bits. */
static double
km_rng_uniform(KmRng *rng)
{
	return dpk_prng_bits53(rng) * (1.0 / 9007199254740992.0);
}

/*
 * Draw an index with probability proportional to p[i] (all p[i] >= 0, total
 * = sum p > 0).  If rounding makes the scan run past the end, the last index
 * with positive mass is returned, so an index of mass 0 is never chosen.
 */
static int
km_sample(KmRng *rng, const double *p, int n, double total)
{
	double		target = km_rng_uniform(rng) * total;
	double		acc = 0.0;
	int			last = -1;
	int			i;

	for (i = 0; i < n; i++)
	{
		if (p[i] > 0.0)
		{
			acc += p[i];
			last = i;
			if (target < acc)
				return i;
		}
	}
	return last >= 0 ? last : 0;
}

/*
 * km_sample on the running sums acc[i] = p[0] + ... + p[i] (summed in that
 * order, so they are km_sample's own acc values): the first i with target
 * < acc[i], found by bisection.  That i has p[i] > 0 (acc rose there); past
 * the end, the last index whose p was positive, as km_sample.
 */
static int
km_sample_sums(KmRng *rng, const double *acc, int n)
{
	double		target = km_rng_uniform(rng) * acc[n - 1];
	int			lo = 0,
				hi = n - 1;

	if (!(target < acc[n - 1]))
	{
		/* the last rise of the sums */
		while (hi > 0 && !(acc[hi] > acc[hi - 1]))
			hi--;
		return hi;
	}
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (target < acc[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Seeding weights of a weighted point set (see kmeans.h). */
const double *
dpk_seeding_weights(const double *w, int n, double *sw, double **ones, double *total)
{
	double		stotal = 0.0;
	int			i;

	*ones = NULL;
	for (i = 0; i < n; i++)
	{
		sw[i] = km_weight(w, i);
		stotal += sw[i];
	}
	if (stotal > 0.0 && isfinite(stotal))
	{
		*total = stotal;
		return sw;
	}
	/* no usable weight: seed uniformly */
	*ones = dpk_alloc(sizeof(double) * (size_t) n);
	for (i = 0; i < n; i++)
		(*ones)[i] = 1.0;
	*total = (double) n;
	return *ones;
}

/*
 * Weighted k-means++ seeding into c (k*d).  The first centre is drawn with
 * probability proportional to the seeding weight, each next one proportional
 * to weight * D^2 (D = distance to the nearest centre so far).  Seeding
 * weights are the clipped weights, or all 1 when they sum to 0.  Once every
 * point of positive seeding weight coincides with a centre, the remaining
 * centres copy the centre nearest to a uniformly drawn such point, i.e.
 * duplicate an existing point; the assignment then gives them size 0.
 * d2, near and p (n each) are scratch.
 */
static inline __attribute__((always_inline)) void
km_seed_d(const double *x, const double *sw, int n, int d, int k,
		  double stotal, KmRng *rng, double *c, double *d2, int *near,
		  double *p)
{
	double		total = 0.0;
	int			first,
				i,
				j;

	first = km_sample(rng, sw, n, stotal);
	memcpy(c, x + (size_t) first * d, sizeof(double) * (size_t) d);
	for (i = 0; i < n; i++)
	{
		d2[i] = km_sqdist(x + (size_t) i * d, c, d);
		near[i] = 0;
	}

	/* p holds the running sums of the draw's masses sw * D^2 */
	for (i = 0; i < n; i++)
	{
		total += sw[i] * d2[i];
		p[i] = total;
	}
	for (j = 1; j < k; j++)
	{
		double	   *cj = c + (size_t) j * d;

		dpk_check_interrupts();

		if (total > 0.0 && isfinite(total))
		{
			int			pick = km_sample_sums(rng, p, n);

			memcpy(cj, x + (size_t) pick * d, sizeof(double) * (size_t) d);
		}
		else
		{
			/* all mass covered: duplicate an existing centre */
			int			pick = km_sample(rng, sw, n, stotal);

			memcpy(cj, c + (size_t) near[pick] * d,
				   sizeof(double) * (size_t) d);
			continue;			/* distances cannot shrink */
		}

		if (j == k - 1)
			break;				/* no draw follows */
		/* the next draw's masses, summed in the same order */
		total = 0.0;
		for (i = 0; i < n; i++)
		{
			double		v = km_sqdist(x + (size_t) i * d, cj, d);

			if (v < d2[i])
			{
				d2[i] = v;
				near[i] = j;
			}
			total += sw[i] * d2[i];
			p[i] = total;
		}
	}
}

/*
 * km_seed_d, compiled apart for d = 2: the distances' loops unrolled, the
 * same operations in the same order.
 */
static void
km_seed(const double *x, const double *sw, int n, int d, int k,
		double stotal, KmRng *rng, double *c, double *d2, int *near,
		double *p)
{
	if (d == 2)
		km_seed_d(x, sw, n, 2, k, stotal, rng, c, d2, near, p);
	else
		km_seed_d(x, sw, n, d, k, stotal, rng, c, d2, near, p);
}

/* Scratch of one dpk_kmeans call, shared by its restarts. */
typedef struct KmRun
{
	KmWork		ws;
	double	   *sw;				/* n: clipped weights */
	const double *seedw;		/* n: the weights the seeding uses */
	double		seedtotal;		/* their sum */
	double	   *ones;			/* n ones when no weight is usable, else NULL */
	double	   *mind;			/* n */
	double	   *p;				/* n */
	double	   *c;				/* k * d: the restart's centres */
	double	   *sums;			/* k * d */
	double	   *wsum;			/* k */
	int		   *assign;			/* n: the restart's assignment */
	int		   *near;			/* n */
	int		   *ref;			/* k */
	KmUpdateScratch u;			/* the update's view of the above */
	KmTree	   *tree;			/* the filter's kd-tree, or NULL */
} KmRun;

/*
 * Allocate the scratch and clip the weights; with no usable weight (all
 * zero, or overflowing) the seeding uses weight 1 for every point.
 */
static void
km_run_init(KmRun *run, const double *x, const double *w, int n, int d, int k)
{
	dpk_km_work_init(&run->ws, x, n, d, k);
	run->sw = dpk_alloc(sizeof(double) * (size_t) n);
	run->mind = dpk_alloc(sizeof(double) * (size_t) n);
	run->p = dpk_alloc(sizeof(double) * (size_t) n);
	run->assign = dpk_alloc(sizeof(int) * (size_t) n);
	run->near = dpk_alloc(sizeof(int) * (size_t) n);
	run->c = dpk_alloc(sizeof(double) * (size_t) k * d);
	run->sums = dpk_alloc(sizeof(double) * (size_t) k * d);
	run->wsum = dpk_alloc(sizeof(double) * (size_t) k);
	run->ref = dpk_alloc(sizeof(int) * (size_t) k);

	run->seedw = dpk_seeding_weights(w, n, run->sw, &run->ones, &run->seedtotal);
	run->u = (KmUpdateScratch) {run->sums, run->wsum, run->mind, run->p, run->ref};
	run->tree = NULL;
	if (dpk_kmeans_filter && run->ws.ub && d <= DPK_KM_FILTER_MAX_D && n >= DPK_KM_FILTER_MIN_N)
		run->tree = dpk_km_tree_build(x, run->sw, run->ws.xnorm, n, d, k);
}

/* Free a run's scratch. */
static void
km_run_free(KmRun *run)
{
	dpk_km_work_free(&run->ws);
	dpk_km_tree_free(run->tree);
	dpk_free(run->sw);
	dpk_free(run->mind);
	dpk_free(run->p);
	dpk_free(run->assign);
	dpk_free(run->near);
	dpk_free(run->c);
	dpk_free(run->sums);
	dpk_free(run->wsum);
	dpk_free(run->ones);
	dpk_free(run->ref);
}

/*
 * Restart r: k-means++ seeding on its own random stream, then assignment
 * and update until the assignment no longer changes or max_iter updates
 * were made.  Leaves the centres in run->c and the assignment in
 * run->assign; returns the cost of that assignment.
 */
static double km_lloyd(KmRun *run, const double *x, int n, int d, int k, int max_iter);

static double
km_restart(KmRun *run, const double *x, int n, int d, int k, int max_iter,
		   uint64_t seed, int r)
{
	KmRng		rng;

	km_rng_init(&rng, seed, (uint64_t) r);
	km_seed(x, run->seedw, n, d, k, run->seedtotal, &rng, run->c, run->mind, run->near,
			run->p);
	return km_lloyd(run, x, n, d, k, max_iter);
}

/*
 * Lloyd from the centres in run->c: assignment and update until the
 * assignment no longer changes or max_iter updates were made.  Leaves the
 * centres in run->c and the assignment in run->assign; returns the cost of
 * that assignment.
 */
static double
km_lloyd(KmRun *run, const double *x, int n, int d, int k, int max_iter)
{
	double		cost;
	int			iter = 0,
				i;

	if (run->tree)
		return dpk_km_lloyd_filter(run->tree, &run->ws, x, run->sw, &run->u, run->c,
								   run->assign, max_iter);
	for (i = 0; i < n; i++)
		run->assign[i] = -1;
	for (;;)
	{
		bool		changed;

		dpk_check_interrupts();
		/* the cost and distances are needed after the last assignment only */
		run->ws.no_cost = run->ws.ub != NULL && iter < max_iter;
		cost = dpk_km_assign(&run->ws, x, run->sw, run->c, run->assign, run->mind, &changed);
		if (!changed && run->ws.no_cost)
			cost = dpk_km_cost_pass(&run->ws, x, run->sw, run->c, run->assign, run->mind);
		if (!changed || iter >= max_iter)
			break;
		if (run->ws.ub)
			memcpy(run->ws.cold, run->c, sizeof(double) * (size_t) k * d);
		dpk_km_update(x, run->sw, n, d, k, run->assign, !run->ws.no_cost, run->c, &run->u);
		if (run->ws.ub)
			dpk_km_bounds_move(&run->ws, run->c, run->assign);
		iter++;
	}
	return cost;
}

/*
 * Weighted k-means with restarts; see kmeans.h.  Each restart seeds with
 * k-means++ on its own random stream, then alternates assignment and update
 * until the assignment no longer changes or max_iter updates were made; the
 * returned cost is that of the final centres with nearest-centre assignment.
 */
double
dpk_kmeans(const DpkPoints *pts, const DpkClusterOpts *opt,
		   const DpkClusterOut *out)
{
	const double *x = pts->x;
	const double *w = pts->w;
	int			n = pts->n;
	int			d = pts->d;
	int			k = opt->k;
	int			restarts = opt->restarts;
	int			max_iter = opt->max_iter;
	uint64_t	seed = opt->seed;
	double	   *centers = out->centers;
	double	   *sizes = out->sizes;
	KmRun		run;
	double	   *cur_sizes;
	double		best_cost = 0.0;
	bool		have_best = false;
	int			r,
				i,
				j;

	if (k <= 0 || d <= 0)
		return 0.0;
	if (n <= 0)
	{
		memset(centers, 0, sizeof(double) * (size_t) k * d);
		if (sizes)
			memset(sizes, 0, sizeof(double) * (size_t) k);
		return 0.0;
	}
	if (restarts < 1)
		restarts = 1;
	if (max_iter < 0)
		max_iter = 0;

	km_run_init(&run, x, w, n, d, k);
	cur_sizes = dpk_alloc(sizeof(double) * (size_t) k);
	for (r = 0; r < restarts; r++)
	{
		double		cost = km_restart(&run, x, n, d, k, max_iter, seed, r);

		if (!have_best || cost < best_cost)
		{
			best_cost = cost;
			have_best = true;
			memcpy(centers, run.c, sizeof(double) * (size_t) k * d);
			memset(cur_sizes, 0, sizeof(double) * (size_t) k);
			for (i = 0; i < n; i++)
				cur_sizes[run.assign[i]] += run.sw[i];
			if (sizes)
				for (j = 0; j < k; j++)
					sizes[j] = cur_sizes[j];
		}
	}
	km_run_free(&run);
	dpk_free(cur_sizes);
	return best_cost;
}

/*
 * Screened restarts (see kmeans.h): every restart is seeded on scr and run
 * there for at most screen_iter Lloyd updates; the keep of lowest cost
 * (sorted, the earlier restart first on a tie) each continue on pts to
 * max_iter updates in all, and the lowest final cost on pts wins (the
 * earlier on a tie).  scr == pts screens on the points themselves.
 */
static double
km_screened(const DpkPoints *pts, const DpkPoints *scr, const DpkClusterOpts *opt,
			int screen_iter, int keep, const DpkClusterOut *out)
{
	const double *x = pts->x;
	int			n = pts->n;
	int			d = pts->d;
	int			k = opt->k;
	int			restarts = opt->restarts;
	int			max_iter = opt->max_iter;
	uint64_t	seed = opt->seed;
	double	   *centers = out->centers;
	double	   *sizes = out->sizes;
	KmRun		run,
				srun;
	KmRun	   *sr = &run;
	size_t		kd = (size_t) k * d;
	double	   *topc;
	double	   *topcost;
	double		best = 0.0;
	int			ntop = 0,
				r,
				t,
				i,
				j;

	if (restarts < 1)
		restarts = 1;
	if (max_iter < 0)
		max_iter = 0;
	if (screen_iter < 0)
		screen_iter = 0;
	if (keep < 1)
		keep = 1;
	if (k <= 0 || d <= 0 || n <= 0 || keep >= restarts || screen_iter >= max_iter ||
		scr->n <= 0)
		return dpk_kmeans(pts, &(DpkClusterOpts) {k, restarts, max_iter, seed}, out);

	km_run_init(&run, x, pts->w, n, d, k);
	if (scr != pts)
	{
		km_run_init(&srun, scr->x, scr->w, scr->n, d, k);
		sr = &srun;
	}
	topc = dpk_alloc(sizeof(double) * (size_t) keep * kd);
	topcost = dpk_alloc(sizeof(double) * (size_t) keep);
	for (r = 0; r < restarts; r++)
	{
		double		cost = km_restart(sr, scr->x, scr->n, d, k, screen_iter, seed, r);

		if (ntop == keep && !(cost < topcost[ntop - 1]))
			continue;
		t = ntop < keep ? ntop++ : ntop - 1;
		for (; t > 0 && cost < topcost[t - 1]; t--)
		{
			topcost[t] = topcost[t - 1];
			memcpy(topc + (size_t) t * kd, topc + (size_t) (t - 1) * kd, sizeof(double) * kd);
		}
		topcost[t] = cost;
		memcpy(topc + (size_t) t * kd, sr->c, sizeof(double) * kd);
	}
	if (sr != &run)
		km_run_free(sr);
	for (t = 0; t < ntop; t++)
	{
		double		cost;

		memcpy(run.c, topc + (size_t) t * kd, sizeof(double) * kd);
		cost = km_lloyd(&run, x, n, d, k, max_iter - screen_iter);
		if (t > 0 && !(cost < best))
			continue;
		best = cost;
		memcpy(centers, run.c, sizeof(double) * kd);
		if (sizes)
		{
			for (j = 0; j < k; j++)
				sizes[j] = 0.0;
			for (i = 0; i < n; i++)
				sizes[run.assign[i]] += run.sw[i];
		}
	}
	dpk_free(topc);
	dpk_free(topcost);
	km_run_free(&run);
	return best;
}

/* Weighted k-means with screened restarts; see kmeans.h. */
double
dpk_kmeans_screened(const DpkPoints *pts, const DpkClusterOpts *opt,
					int screen_iter, int keep, const DpkClusterOut *out)
{
	return km_screened(pts, pts, opt, screen_iter, keep, out);
}

/*
 * Whether point i is in a sample of about one point in stride: a hash of
 * its index, not every stride-th point, which on a coreset listed cell by
 * cell would keep the same columns of the grid in every row and could miss
 * a cluster one column wide (doc/decisions/035-oneshot-scan-speed.md).
 */
static inline bool
km_in_sample(int i, int stride)
{
	return (((uint64_t) i * UINT64_C(0x9E3779B97F4A7C15)) >> 32) % (uint64_t) stride == 0;
}

/* A uniform number in [0, 1) from a hash of the index i. */
static inline double
km_sample_u(int i)
{
	uint64_t	z = (uint64_t) i + UINT64_C(0x9E3779B97F4A7C15);

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	z ^= z >> 31;
	return (double) (z >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * The rate r for which the inclusion probabilities min(1, r w_i) sum to
 * about `size` (bisection); 0 when the weights have no positive sum.  A
 * sample in proportion to weight keeps the heavy points of a coreset whose
 * many light points would otherwise crowd them out.
 */
static double
km_sample_rate(const double *w, int n, double size)
{
	double		total = 0.0,
				lo,
				hi;
	int			i,
				it;

	for (i = 0; i < n; i++)
		if (w[i] > 0.0)
			total += w[i];
	if (!(total > 0.0) || !isfinite(total))
		return 0.0;
	lo = size / total;
	hi = lo * n;
	for (it = 0; it < 40; it++)
	{
		double		mid = 0.5 * (lo + hi),
					sum = 0.0;

		for (i = 0; i < n; i++)
			if (w[i] > 0.0)
			{
				double		pi = mid * w[i];

				sum += pi < 1.0 ? pi : 1.0; /* fmin, without its call */
			}
		if (sum < size)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Screened restarts that screen on a sample of the points; see kmeans.h.
 * The sample is a fixed function of the points' order, so the result
 * stays deterministic for a given seed.
 */
double
dpk_kmeans_screened_sample(const DpkPoints *pts, const DpkClusterOpts *opt,
						   int screen_iter, int keep, int stride,
						   const DpkClusterOut *out)
{
	DpkPoints	scr;
	double	   *sx,
			   *sw = NULL;
	double		cost,
				rate = 0.0;
	int			i,
				m = 0;

	if (stride <= 1 || pts->n <= 0 || pts->d <= 0)
		return km_screened(pts, pts, opt, screen_iter, keep, out);
	sx = dpk_alloc(sizeof(double) * (size_t) pts->n * pts->d);
	if (pts->w)
	{
		sw = dpk_alloc(sizeof(double) * (size_t) pts->n);
		rate = km_sample_rate(pts->w, pts->n, (double) pts->n / stride);
	}
	for (i = 0; i < pts->n; i++)
	{
		double		p = 1.0;

		if (rate > 0.0)
		{
			/* kept with probability p, in proportion to its weight */
			p = pts->w[i] > 0.0 ? fmin(1.0, rate * pts->w[i]) : 0.0;
			if (!(km_sample_u(i) < p))
				continue;
		}
		else if (!km_in_sample(i, stride))
			continue;
		memcpy(sx + (size_t) m * pts->d, pts->x + (size_t) i * pts->d,
			   sizeof(double) * pts->d);
		if (sw)
			sw[m] = pts->w[i] / p;
		m++;
	}
	scr = (DpkPoints) {sx, sw, m, pts->d};
	cost = km_screened(pts, &scr, opt, screen_iter, keep, out);
	dpk_free(sx);
	dpk_free(sw);
	return cost;
}

/*
 * Weighted cost of fixed centres; see kmeans.h.  Uses the same assignment as
 * the Lloyd loop, so assign[] follows its tie and duplicate rules.
 */
double
dpk_kmeans_cost(const double *x, const double *w, int n, int d,
				const double *centers, int k, int *assign)
{
	KmWork		ws;
	int		   *a;
	double		cost;
	int			i;

	if (n <= 0 || k <= 0 || d <= 0)
		return 0.0;

	dpk_km_work_init(&ws, x, n, d, k);
	a = assign ? assign : dpk_alloc(sizeof(int) * (size_t) n);
	for (i = 0; i < n; i++)
		a[i] = -1;
	cost = dpk_km_assign(&ws, x, w, centers, a, NULL, NULL);
	if (a != assign)
		dpk_free(a);
	dpk_km_work_free(&ws);
	return cost;
}
