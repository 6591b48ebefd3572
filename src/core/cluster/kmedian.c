/*
 * kmedian.c
 *		Weighted k-median: D^1 seeding, Lloyd-style alternation of
 *		nearest-centre assignment and Weiszfeld steps, restarts.
 *
 * The assignment is kmeans.c's (one dgemm per chunk of rows, through
 * dpk_kmeans_cost): the nearest centre in squared distance is the nearest in
 * distance, and its tie and duplicate rules carry over.  The update moves
 * each centre toward the weighted geometric median of its cluster with
 * Weiszfeld's iteration, warm-started at the current centre; each Weiszfeld
 * step and each reassignment can only lower the weighted sum of distances,
 * so a restart's cost never increases and the best centres seen are kept.
 *
 * Weiszfeld's map is undefined at a data point.  Vardi and Zhang, "The
 * multivariate L1-median and associated data depth" (PNAS 2000), fix it: with
 * eta the weight sitting exactly at the iterate y and R the sum of the unit
 * vectors toward the other points (weighted), y is the median iff |R| <= eta,
 * and otherwise the step is the plain Weiszfeld step shrunk by (1 - eta/|R|).
 *
 * Conventions follow kmeans.c: weights not > 0 count as 0; with zero total
 * weight the seeding treats every point as weight 1; a cluster left with no
 * weight is re-seeded at the point with the largest weighted distance.
 */
#include "kmedian.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "dpk_mem.h"
#include "kmeans.h"
#include "prng.h"

/* Weiszfeld steps per cluster in one Lloyd round (warm-started). */
#define DPK_KMED_INNER_STEPS 10
/* Relative step length at which Weiszfeld stops. */
#define DPK_KMED_TOL 1e-9
/* Relative cost improvement below which a restart has converged. */
#define DPK_KMED_CONVERGED 1e-10
/* A point within this fraction of the largest distance coincides with y. */
#define DPK_KMED_COINCIDE 1e-12

/* The objective named by name (see kmedian.h). */
int
dpk_objective_parse(const char *name, DpkObjective *out)
{
	if (name == NULL)
		return 0;
	if (strcmp(name, "kmeans") == 0)
		*out = DPK_OBJECTIVE_KMEANS;
	else if (strcmp(name, "kmedian") == 0)
		*out = DPK_OBJECTIVE_KMEDIAN;
	else
		return 0;
	return 1;
}

/* The name of an objective. */
const char *
dpk_objective_name(DpkObjective obj)
{
	return obj == DPK_OBJECTIVE_KMEDIAN ? "kmedian" : "kmeans";
}

/* Clipped weight of point i: w[i] if > 0 (not NaN), else 0; NULL = 1. */
static inline double
kmed_weight(const double *w, int i)
{
	if (w == NULL)
		return 1.0;
	return w[i] > 0.0 ? w[i] : 0.0;
}

/* Euclidean distance between two d-vectors. */
static inline double
kmed_dist(const double *a, const double *b, int d)
{
	double		s = 0.0;
	int			t;

	for (t = 0; t < d; t++)
	{
		double		diff = a[t] - b[t];

		s += diff * diff;
	}
	return sqrt(s);
}

/*
 * Weiszfeld / Vardi-Zhang iteration from y (updated in place); dist (n) is
 * scratch.  Returns the weighted sum of distances at the final y.
 */
static double
gm_iterate(const double *x, const double *w, int n, int d, int max_iter, double tol,
		   double *y, double *dist, double *r)
{
	int			it,
				i,
				t;
	double		cost = 0.0;

	for (it = 0;; it++)
	{
		double		dmax = 0.0,
					wsum = 0.0,
					eta = 0.0,
					s = 0.0,
					rnorm = 0.0,
					thr,
					f,
					step = 0.0;

		cost = 0.0;
		for (i = 0; i < n; i++)
		{
			double		wi = kmed_weight(w, i);

			dist[i] = kmed_dist(x + (size_t) i * d, y, d);
			if (wi > 0.0)
			{
				cost += wi * dist[i];
				wsum += wi;
				if (dist[i] > dmax)
					dmax = dist[i];
			}
		}
		if (it >= max_iter || !(wsum > 0.0) || dmax == 0.0)
			break;

		thr = DPK_KMED_COINCIDE * dmax;
		memset(r, 0, sizeof(double) * (size_t) d);
		for (i = 0; i < n; i++)
		{
			double		wi = kmed_weight(w, i);
			const double *xi = x + (size_t) i * d;

			if (!(wi > 0.0))
				continue;
			if (dist[i] <= thr)
			{
				eta += wi;
				continue;
			}
			s += wi / dist[i];
			for (t = 0; t < d; t++)
				r[t] += wi * (xi[t] - y[t]) / dist[i];
		}
		for (t = 0; t < d; t++)
			rnorm += r[t] * r[t];
		rnorm = sqrt(rnorm);
		/* Vardi-Zhang: the weight at y outweighs the pull of the rest */
		if (!(s > 0.0) || rnorm <= eta)
			break;
		f = eta > 0.0 ? 1.0 - eta / rnorm : 1.0;
		for (t = 0; t < d; t++)
		{
			double		st = f * r[t] / s;

			y[t] += st;
			step += st * st;
		}
		if (sqrt(step) <= tol * (cost / wsum))
		{
			/* one more pass for the cost at the final y */
			max_iter = it + 1;
		}
	}
	return cost;
}

/* Weighted geometric median (see kmedian.h). */
double
dpk_geomedian(const double *x, const double *w, int n, int d, const double *start,
			  int max_iter, double tol, double *out)
{
	double	   *dist;
	double	   *r;
	double		cost;
	int			i,
				t,
				ref = -1;
	double		wsum = 0.0;

	if (d <= 0)
		return 0.0;
	if (start)
		memcpy(out, start, sizeof(double) * (size_t) d);
	else
	{
		/* weighted mean, relative to the first weighted point */
		memset(out, 0, sizeof(double) * (size_t) d);
		for (i = 0; i < n; i++)
		{
			double		wi = kmed_weight(w, i);

			if (!(wi > 0.0))
				continue;
			if (ref < 0)
				ref = i;
			for (t = 0; t < d; t++)
				out[t] += wi * (x[(size_t) i * d + t] - x[(size_t) ref * d + t]);
			wsum += wi;
		}
		if (ref >= 0)
			for (t = 0; t < d; t++)
				out[t] = x[(size_t) ref * d + t] + out[t] / wsum;
		else if (n > 0)
			for (i = 0; i < n; i++)
				for (t = 0; t < d; t++)
					out[t] += x[(size_t) i * d + t] / n;
	}
	if (n <= 0)
		return 0.0;
	if (max_iter < 0)
		max_iter = 0;
	dist = dpk_alloc(sizeof(double) * (size_t) n);
	r = dpk_alloc(sizeof(double) * (size_t) d);
	cost = gm_iterate(x, w, n, d, max_iter, tol, out, dist, r);
	dpk_free(dist);
	dpk_free(r);
	return cost;
}

/*
 * Seed the generator of restart `stream`: the stream number is mixed in
 * before expansion, as in kmeans.c, with a different constant so k-median
 * restarts never replay k-means ones.
 */
static void
kmed_rng_init(DpkPrng *rng, uint64_t seed, uint64_t stream)
{
	uint64_t	t = stream ^ UINT64_C(0xBB67AE8584CAA73B);

	dpk_prng_seed(rng, seed ^ dpk_splitmix64(&t));
}

/* Index drawn with probability proportional to p[i] >= 0 (total > 0). */
static int
kmed_sample(DpkPrng *rng, const double *p, int n, double total)
{
	double		target = dpk_prng_bits53(rng) * (1.0 / 9007199254740992.0) * total;
	double		acc = 0.0;
	int			last = -1,
				i;

	for (i = 0; i < n; i++)
		if (p[i] > 0.0)
		{
			acc += p[i];
			last = i;
			if (target < acc)
				return i;
		}
	return last >= 0 ? last : 0;
}

/* Scratch of one dpk_kmedian call, shared by its restarts. */
typedef struct KmedRun
{
	int			n,
				d,
				k;
	double	   *sw;				/* n: clipped weights */
	const double *seedw;		/* n: weights of the seeding */
	double		seedtotal;
	double	   *ones;			/* n ones when no weight is usable */
	double	   *dist;			/* n: distance to the assigned centre */
	double	   *p;				/* n */
	int		   *assign;			/* n */
	int		   *near;			/* n */
	double	   *xs;				/* n * d: points grouped by cluster */
	double	   *ws;				/* n: their weights */
	int		   *start;			/* k + 1: cluster offsets into xs */
	int		   *fill;			/* k: next free slot of each cluster */
	double	   *c;				/* k * d: the restart's centres */
	double	   *best_c;			/* k * d: its best centres so far */
	double	   *r;				/* d */
} KmedRun;

/* Allocate the scratch and clip the weights. */
static void
kmed_run_init(KmedRun *run, const double *w, int n, int d, int k)
{
	run->n = n;
	run->d = d;
	run->k = k;
	run->sw = dpk_alloc(sizeof(double) * (size_t) n);
	run->dist = dpk_alloc(sizeof(double) * (size_t) n);
	run->p = dpk_alloc(sizeof(double) * (size_t) n);
	run->assign = dpk_alloc(sizeof(int) * (size_t) n);
	run->near = dpk_alloc(sizeof(int) * (size_t) n);
	run->xs = dpk_alloc(sizeof(double) * (size_t) n * d);
	run->ws = dpk_alloc(sizeof(double) * (size_t) n);
	run->start = dpk_alloc(sizeof(int) * (size_t) (k + 1));
	run->fill = dpk_alloc(sizeof(int) * (size_t) k);
	run->c = dpk_alloc(sizeof(double) * (size_t) k * d);
	run->best_c = dpk_alloc(sizeof(double) * (size_t) k * d);
	run->r = dpk_alloc(sizeof(double) * (size_t) d);
	run->seedw = dpk_seeding_weights(w, n, run->sw, &run->ones, &run->seedtotal);
}

/* Free a run's scratch. */
static void
kmed_run_free(KmedRun *run)
{
	dpk_free(run->sw);
	dpk_free(run->dist);
	dpk_free(run->p);
	dpk_free(run->assign);
	dpk_free(run->near);
	dpk_free(run->xs);
	dpk_free(run->ws);
	dpk_free(run->start);
	dpk_free(run->fill);
	dpk_free(run->c);
	dpk_free(run->best_c);
	dpk_free(run->r);
	dpk_free(run->ones);
}

/*
 * D^1 seeding into run->c: the first centre drawn by seeding weight, each
 * next one by weight * D, D the distance to the nearest centre so far (the
 * k-median analogue of k-means++).  When every weighted point sits on a
 * centre, the rest duplicate the centre of a point drawn by weight.
 */
static void
kmed_seed(KmedRun *run, const double *x, DpkPrng *rng)
{
	int			n = run->n,
				d = run->d,
				i,
				j;
	double	   *dd = run->dist;

	i = kmed_sample(rng, run->seedw, n, run->seedtotal);
	memcpy(run->c, x + (size_t) i * d, sizeof(double) * (size_t) d);
	for (i = 0; i < n; i++)
	{
		dd[i] = kmed_dist(x + (size_t) i * d, run->c, d);
		run->near[i] = 0;
	}
	for (j = 1; j < run->k; j++)
	{
		double		total = 0.0;
		double	   *cj = run->c + (size_t) j * d;

		for (i = 0; i < n; i++)
		{
			run->p[i] = run->seedw[i] * dd[i];
			total += run->p[i];
		}
		if (!(total > 0.0 && isfinite(total)))
		{
			i = kmed_sample(rng, run->seedw, n, run->seedtotal);
			memcpy(cj, run->c + (size_t) run->near[i] * d, sizeof(double) * (size_t) d);
			continue;
		}
		i = kmed_sample(rng, run->p, n, total);
		memcpy(cj, x + (size_t) i * d, sizeof(double) * (size_t) d);
		for (i = 0; i < n; i++)
		{
			double		v = kmed_dist(x + (size_t) i * d, cj, d);

			if (v < dd[i])
			{
				dd[i] = v;
				run->near[i] = j;
			}
		}
	}
}

/*
 * Assign every point to its nearest centre (BLAS, kmeans.c's rules); fills
 * run->dist and returns the weighted sum of distances.
 */
static double
kmed_assign(KmedRun *run, const double *x)
{
	double		cost = 0.0;
	int			i;

	dpk_kmeans_cost(x, NULL, run->n, run->d, run->c, run->k, run->assign);
	for (i = 0; i < run->n; i++)
	{
		run->dist[i] = kmed_dist(x + (size_t) i * run->d,
								 run->c + (size_t) run->assign[i] * run->d, run->d);
		cost += run->sw[i] * run->dist[i];
	}
	return cost;
}

/*
 * Update: group the points by cluster, take Weiszfeld steps from each
 * centre toward its cluster's geometric median; a cluster with no weight is
 * re-seeded at the point of largest weighted distance (distinct points for
 * distinct empty clusters), or stays put when every point costs 0.
 */
static void
kmed_update(KmedRun *run, const double *x)
{
	int			n = run->n,
				d = run->d,
				k = run->k,
				i,
				j;
	int		   *fill = run->fill;
	bool		have_contrib = false;

	memset(run->start, 0, sizeof(int) * (size_t) (k + 1));
	for (i = 0; i < n; i++)
		if (run->sw[i] > 0.0)
			run->start[run->assign[i] + 1]++;
	for (j = 0; j < k; j++)
		run->start[j + 1] += run->start[j];
	memcpy(fill, run->start, sizeof(int) * (size_t) k);
	for (i = 0; i < n; i++)
		if (run->sw[i] > 0.0)
		{
			int			pos = fill[run->assign[i]]++;

			memcpy(run->xs + (size_t) pos * d, x + (size_t) i * d, sizeof(double) * (size_t) d);
			run->ws[pos] = run->sw[i];
		}

	for (j = 0; j < k; j++)
	{
		int			cnt = run->start[j + 1] - run->start[j];
		double	   *cj = run->c + (size_t) j * d;

		if (cnt > 0)
		{
			gm_iterate(run->xs + (size_t) run->start[j] * d, run->ws + run->start[j], cnt, d,
					   DPK_KMED_INNER_STEPS, DPK_KMED_TOL, cj, run->p, run->r);
			continue;
		}
		if (!have_contrib)
		{
			for (i = 0; i < n; i++)
				run->p[i] = run->sw[i] * run->dist[i];
			have_contrib = true;
		}
		{
			double		bestv = 0.0;
			int			besti = -1;

			for (i = 0; i < n; i++)
				if (run->p[i] > bestv)
				{
					bestv = run->p[i];
					besti = i;
				}
			if (besti >= 0)
			{
				memcpy(cj, x + (size_t) besti * d, sizeof(double) * (size_t) d);
				run->p[besti] = 0.0;
			}
		}
	}
}

/*
 * Rounds of assignment and update from run->c until the cost improves by
 * less than DPK_KMED_CONVERGED relatively or max_iter updates were made.
 * Leaves the best centres in run->best_c; returns their cost.
 */
static double
kmed_alternate(KmedRun *run, const double *x, int max_iter)
{
	double		best = INFINITY;
	int			iter;

	for (iter = 0;; iter++)
	{
		double		cost;

		dpk_check_interrupts();
		cost = kmed_assign(run, x);
		if (cost < best)
		{
			bool		small = best - cost <= DPK_KMED_CONVERGED * cost;

			best = cost;
			memcpy(run->best_c, run->c, sizeof(double) * (size_t) run->k * run->d);
			if (small)
				break;
		}
		else
			break;
		if (iter >= max_iter)
			break;
		kmed_update(run, x);
	}
	return best;
}

/* Restart r: D^1 seeding, then the alternation; returns its best cost. */
static double
kmed_restart(KmedRun *run, const double *x, int max_iter, uint64_t seed, int r)
{
	DpkPrng		rng;

	kmed_rng_init(&rng, seed, (uint64_t) r);
	kmed_seed(run, x, &rng);
	return kmed_alternate(run, x, max_iter);
}

/* Weight of the points nearest each centre (run->c set). */
static void
kmed_sizes(KmedRun *run, const double *x, double *sizes)
{
	int			i;

	kmed_assign(run, x);
	memset(sizes, 0, sizeof(double) * (size_t) run->k);
	for (i = 0; i < run->n; i++)
		sizes[run->assign[i]] += run->sw[i];
}

/* The alternation from given centres (see kmedian.h). */
double
dpk_kmedian_from(const double *x, const double *w, int n, int d, int k, int max_iter,
				 double *centers, double *sizes)
{
	KmedRun		run;
	double		cost;

	if (k <= 0 || d <= 0)
		return 0.0;
	if (n <= 0)
	{
		if (sizes)
			memset(sizes, 0, sizeof(double) * (size_t) k);
		return 0.0;
	}
	kmed_run_init(&run, w, n, d, k);
	memcpy(run.c, centers, sizeof(double) * (size_t) k * d);
	cost = kmed_alternate(&run, x, max_iter < 0 ? 0 : max_iter);
	memcpy(centers, run.best_c, sizeof(double) * (size_t) k * d);
	if (sizes)
	{
		memcpy(run.c, centers, sizeof(double) * (size_t) k * d);
		kmed_sizes(&run, x, sizes);
	}
	kmed_run_free(&run);
	return cost;
}

/* Weighted k-median with restarts (see kmedian.h). */
double
dpk_kmedian(const DpkPoints *pts, const DpkClusterOpts *opt,
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
	KmedRun		run;
	double		best_cost = INFINITY;
	int			r;

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

	kmed_run_init(&run, w, n, d, k);
	for (r = 0; r < restarts; r++)
	{
		double		cost = kmed_restart(&run, x, max_iter, seed, r);

		if (r == 0 || cost < best_cost)
		{
			best_cost = cost;
			memcpy(centers, run.best_c, sizeof(double) * (size_t) k * d);
		}
	}
	if (sizes)
	{
		memcpy(run.c, centers, sizeof(double) * (size_t) k * d);
		kmed_sizes(&run, x, sizes);
	}
	kmed_run_free(&run);
	return best_cost;
}

/* Weighted k-median cost of fixed centres (see kmedian.h). */
double
dpk_kmedian_cost(const double *x, const double *w, int n, int d, const double *centers,
				 int k, double spread2, int *assign)
{
	int		   *a;
	double		cost = 0.0;
	int			i;

	if (n <= 0 || k <= 0 || d <= 0)
		return 0.0;
	a = assign ? assign : dpk_alloc(sizeof(int) * (size_t) n);
	dpk_kmeans_cost(x, NULL, n, d, centers, k, a);
	for (i = 0; i < n; i++)
	{
		double		wi = kmed_weight(w, i);
		double		dd;

		if (!(wi > 0.0))
			continue;
		dd = kmed_dist(x + (size_t) i * d, centers + (size_t) a[i] * d, d);
		cost += wi * (spread2 > 0.0 ? sqrt(dd * dd + spread2) : dd);
	}
	if (a != assign)
		dpk_free(a);
	return cost;
}
