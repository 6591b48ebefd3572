/*
 * kmeans.c
 *		Weighted k-means (k-means++ seeding, Lloyd, restarts) on BLAS.
 *
 * Point-to-centre distances for the assignment step come from one dgemm per
 * chunk of rows, ||x||^2 - 2 x.c + ||c||^2, so memory stays bounded by
 * DPK_KM_CHUNK_CELLS doubles whatever n is.  The distance of a point to the
 * centre it ends up with is then recomputed directly from the coordinates,
 * which keeps reported costs free of the cancellation of the expanded form.
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
#include "kmeans.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <cblas.h>

#include "dpk_mem.h"
#include "prng.h"

extern void openblas_set_num_threads(int);
extern int	blas_thread_shutdown_(void) __attribute__((weak));

/* false: every assignment evaluates every point with dgemm (see kmeans.h). */
bool		dpk_kmeans_prune = true;

/* Rows per dgemm chunk, and the cap on the chunk buffer (rows * k doubles). */
#define DPK_KM_CHUNK_ROWS	2048
#define DPK_KM_CHUNK_CELLS	(1 << 20)

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

/* Clipped weight of point i: w[i] if it is > 0 (not NaN), else 0; NULL = 1. */
static inline double
km_weight(const double *w, int i)
{
	if (w == NULL)
		return 1.0;
	return w[i] > 0.0 ? w[i] : 0.0;
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

/* Squared Euclidean norm of each of the m rows of a (m*d, row-major). */
static void
km_row_norms(const double *a, int m, int d, double *out)
{
	int			i,
				t;

	for (i = 0; i < m; i++)
	{
		const double *r = a + (size_t) i * d;
		double		s = 0.0;

		for (t = 0; t < d; t++)
			s += r[t] * r[t];
		out[i] = s;
	}
}

/* Exact squared distance between two d-vectors (no expansion). */
static inline double
km_sqdist(const double *a, const double *b, int d)
{
	double		s = 0.0;
	int			t;

	for (t = 0; t < d; t++)
	{
		double		diff = a[t] - b[t];

		s += diff * diff;
	}
	return s;
}

/* Rows per dgemm chunk for k centres, keeping the buffer bounded. */
static int
km_chunk_rows(int k)
{
	int			rows = DPK_KM_CHUNK_CELLS / (k > 0 ? k : 1);

	if (rows > DPK_KM_CHUNK_ROWS)
		rows = DPK_KM_CHUNK_ROWS;
	if (rows < 1)
		rows = 1;
	return rows;
}

/*
 * Whether the CPU has FMA: OpenBLAS's kernels for it compute each dot
 * product of dgemm as a chain of fused multiply-adds in index order.
 */
static bool
km_have_fma(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
	__builtin_cpu_init();
	return __builtin_cpu_supports("fma");
#else
	return false;
#endif
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define DPK_KM_TARGET_FMA __attribute__((target("fma")))
#else
#define DPK_KM_TARGET_FMA
#endif

/*
 * g[j] = -2 x.c_j for the k centres, as dgemm computes it with alpha = -2
 * and beta = 0 on an FMA kernel: the first product rounded, then one fused
 * multiply-add per further coordinate, then the exact scaling by -2.
 */
DPK_KM_TARGET_FMA static void
km_dots_fma(const double *xi, const double *c, int k, int d, double *g)
{
	int			j,
				t;

	for (j = 0; j < k; j++)
	{
		const double *cj = c + (size_t) j * d;
		double		s = xi[0] * cj[0];

		for (t = 1; t < d; t++)
			s = __builtin_fma(xi[t], cj[t], s);
		g[j] = -2.0 * s;
	}
}

/* The same without FMA: products and sums rounded one by one. */
static void
km_dots_plain(const double *xi, const double *c, int k, int d, double *g)
{
	int			j,
				t;

	for (j = 0; j < k; j++)
	{
		const double *cj = c + (size_t) j * d;
		double		s = xi[0] * cj[0];

		for (t = 1; t < d; t++)
			s += xi[t] * cj[t];
		g[j] = -2.0 * s;
	}
}

/*
 * Scratch shared by every assignment of one problem, allocated once so the
 * Lloyd loop does not allocate.
 */
typedef struct KmWork
{
	int			n;
	int			d;
	int			k;
	int			chunk;			/* rows per dgemm call */
	double	   *xnorm;			/* n: ||x_i||^2 */
	double	   *cnorm;			/* k: ||c_j||^2 */
	bool	   *dup;			/* k: centre equals an earlier centre */
	int		   *slots;			/* nslots: hash of the centres, -1 empty */
	int			nslots;			/* a power of two above 2k, or 0 */
	double	   *gbuf;			/* chunk*k: dgemm output */
	/* bounds of the pruned assignment (NULL: every point every time) */
	double	   *ub;				/* n: >= distance to the assigned centre */
	double	   *lb;				/* n: <= distance to every other centre */
	double	   *cold;			/* k*d: centres before the last update */
	double	   *delta;			/* k: how far each centre moved */
	int		   *todo;			/* chunk: rows of a chunk to evaluate */
	bool		fma;			/* dgemm's dot products are FMA chains */
	bool		no_cost;		/* km_assign_pruned leaves mind and the cost
								 * to km_cost_pass */
} KmWork;

/* Centres from which duplicates are found by hashing, not pairwise. */
#define DPK_KM_HASH_DUP_K 32

/*
 * Up to this dimension the assignment keeps Hamerly's bounds and evaluates
 * only the points whose nearest centre may have changed; the dot products
 * it then computes itself repeat dgemm's (doc/decisions/030-exact-speedups.md).
 */
#define DPK_KM_PRUNE_MAX_D 16

/* Relative slack of the bounds (far above the rounding of d <= 16 terms). */
#define DPK_KM_SLACK 1e-13

/* Allocate the assignment scratch and the point norms. */
static void
km_work_init(KmWork *ws, const double *x, int n, int d, int k)
{
	ws->n = n;
	ws->d = d;
	ws->k = k;
	ws->chunk = km_chunk_rows(k);
	ws->xnorm = dpk_alloc(sizeof(double) * (size_t) (n > 0 ? n : 1));
	ws->cnorm = dpk_alloc(sizeof(double) * (size_t) k);
	ws->dup = dpk_alloc(sizeof(bool) * (size_t) k);
	ws->nslots = 0;
	ws->slots = NULL;
	if (k > DPK_KM_HASH_DUP_K)
	{
		ws->nslots = 64;
		while (ws->nslots < 2 * k)
			ws->nslots *= 2;
		ws->slots = dpk_alloc(sizeof(int) * (size_t) ws->nslots);
	}
	ws->gbuf = dpk_alloc(sizeof(double) * (size_t) ws->chunk * (size_t) k);
	ws->ub = ws->lb = ws->cold = ws->delta = NULL;
	ws->todo = NULL;
	ws->fma = false;
	ws->no_cost = false;
	if (d <= DPK_KM_PRUNE_MAX_D && k > 1 && dpk_kmeans_prune)
	{
		ws->ub = dpk_alloc(sizeof(double) * (size_t) (n > 0 ? n : 1));
		ws->lb = dpk_alloc(sizeof(double) * (size_t) (n > 0 ? n : 1));
		ws->cold = dpk_alloc(sizeof(double) * (size_t) k * d);
		ws->delta = dpk_alloc(sizeof(double) * (size_t) k);
		ws->todo = dpk_alloc(sizeof(int) * (size_t) ws->chunk);
		ws->fma = km_have_fma();
	}
	km_row_norms(x, n, d, ws->xnorm);
}

/* Release the assignment scratch. */
static void
km_work_free(KmWork *ws)
{
	dpk_free(ws->xnorm);
	dpk_free(ws->cnorm);
	dpk_free(ws->dup);
	dpk_free(ws->slots);
	dpk_free(ws->gbuf);
	dpk_free(ws->ub);
	dpk_free(ws->lb);
	dpk_free(ws->cold);
	dpk_free(ws->delta);
	dpk_free(ws->todo);
}

/*
 * Flag every centre equal (==, coordinate by coordinate) to an earlier one,
 * as the pairwise scan of km_assign does, in time linear in k: each centre
 * is looked up in an open-addressing hash of the centres before it.  Equal
 * coordinates hash alike (-0 as 0); a NaN equals nothing, so a centre with
 * one is never a duplicate and is not entered.
 */
static void
km_flag_duplicates(KmWork *ws, const double *c)
{
	int			d = ws->d,
				k = ws->k,
				mask = ws->nslots - 1,
				j,
				t;

	for (j = 0; j < ws->nslots; j++)
		ws->slots[j] = -1;
	for (j = 0; j < k; j++)
	{
		const double *cj = c + (size_t) j * d;
		uint64_t	h = UINT64_C(0x9E3779B97F4A7C15);
		bool		nan = false;
		int			slot;

		ws->dup[j] = false;
		for (t = 0; t < d; t++)
		{
			double		v = cj[t] == 0.0 ? 0.0 : cj[t];
			uint64_t	bits;

			nan |= isnan(v);
			memcpy(&bits, &v, sizeof(bits));
			h = (h ^ bits) * UINT64_C(0xFF51AFD7ED558CCD);
			h ^= h >> 32;
		}
		if (nan)
			continue;
		for (slot = (int) (h & (uint64_t) mask); ws->slots[slot] >= 0;
			 slot = (slot + 1) & mask)
		{
			const double *co = c + (size_t) ws->slots[slot] * d;

			for (t = 0; t < d; t++)
				if (cj[t] != co[t])
					break;
			if (t == d)
			{
				ws->dup[j] = true;
				break;
			}
		}
		if (!ws->dup[j])
			ws->slots[slot] = j;
	}
}

/*
 * Nearest centre of point i from its row g of -2 x.c_j (dgemm's values or
 * km_dots_*'s, which equal them): the same choice as km_assign's loop
 * (clamped at 0, ties to the lowest index, duplicates ignored).  Also sets
 * the point's bounds: ub from the exact distance to that centre, lb from
 * the next lowest value over every other centre (duplicates included, they
 * may move apart), less the rounding of the expanded form, err.
 */
static int
km_nearest_bounded(KmWork *ws, const double *x, const double *c, int i,
				   const double *g, double err)
{
	int			d = ws->d,
				k = ws->k,
				bj = -1,
				j;
	double		best = 0.0,
				second = HUGE_VAL;

	for (j = 0; j < k; j++)
	{
		double		v = ws->xnorm[i] + g[j] + ws->cnorm[j];

		if (!(v > 0.0))
			v = 0.0;
		if (ws->dup[j])
		{
			if (v < second)
				second = v;
			continue;
		}
		if (bj < 0 || v < best)
		{
			if (bj >= 0 && best < second)
				second = best;
			best = v;
			bj = j;
		}
		else if (v < second)
			second = v;
	}
	ws->ub[i] = sqrt(km_sqdist(x + (size_t) i * d, c + (size_t) bj * d, d)) *
		(1.0 + DPK_KM_SLACK);
	ws->lb[i] = second - err > 0.0 ? sqrt(second - err) * (1.0 - DPK_KM_SLACK) : 0.0;
	return bj;
}

/*
 * Exact squared distance of every point to its assigned centre (into mind
 * if not NULL) and the weighted cost, summed in point order as km_assign
 * sums it.
 */
static double
km_cost_pass(const KmWork *ws, const double *x, const double *w,
			 const double *c, const int *assign, double *mind)
{
	int			d = ws->d,
				i;
	double		cost = 0.0;

	for (i = 0; i < ws->n; i++)
	{
		double		dist = km_sqdist(x + (size_t) i * d, c + (size_t) assign[i] * d, d);
		double		wi;

		if (mind)
			mind[i] = dist;
		wi = km_weight(w, i);
		if (wi > 0.0)
			cost += wi * dist;
	}
	return cost;
}

/*
 * km_assign with Hamerly's bounds (d <= DPK_KM_PRUNE_MAX_D): a point keeps
 * its centre when its upper bound on the distance to it, plus twice the
 * rounding err of the expanded form, stays below its lower bound on the
 * distance to every other centre; then the expanded values km_assign would
 * compare cannot put another centre first or tie.  The other points are
 * evaluated with dgemm's own values (dgemm on the chunk when many are left,
 * else km_dots_*), so the assignment, distances and cost are km_assign's.
 * The bounds are kept for the next call by km_bounds_move.
 */
static inline __attribute__((always_inline)) double
km_assign_pruned_d(KmWork *ws, const double *x, const double *w,
				   const double *c, int *assign, double *mind, bool *changed, int d)
{
	int			n = ws->n,
				k = ws->k;
	double		cnmax = 0.0,
				unit = 8.0 * (d + 2) * DBL_EPSILON;
	bool		any_change = false;
	int			i0,
				j;

	for (j = 0; j < k; j++)
		if (ws->cnorm[j] > cnmax)
			cnmax = ws->cnorm[j];

	for (i0 = 0; i0 < n; i0 += ws->chunk)
	{
		int			m = n - i0 < ws->chunk ? n - i0 : ws->chunk;
		int			ntodo = 0,
					r,
					t;
		bool		full;

		dpk_check_interrupts();
		for (r = 0; r < m; r++)
		{
			int			i = i0 + r,
						a = assign[i];
			double		err = unit * (ws->xnorm[i] + cnmax);
			double		lb2 = ws->lb[i] * ws->lb[i] * (1.0 - DPK_KM_SLACK);

			if (a >= 0 && !ws->dup[a])
			{
				if (ws->ub[i] * ws->ub[i] * (1.0 + DPK_KM_SLACK) + 2.0 * err < lb2)
					continue;
				/* tighten the upper bound to the exact distance, try again */
				ws->ub[i] = sqrt(km_sqdist(x + (size_t) i * d, c + (size_t) a * d, d)) *
					(1.0 + DPK_KM_SLACK);
				if (ws->ub[i] * ws->ub[i] * (1.0 + DPK_KM_SLACK) + 2.0 * err < lb2)
					continue;
			}
			ws->todo[ntodo++] = r;
		}

		full = ntodo * 4 > m;
		if (full)
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans,
						m, k, d, -2.0, x + (size_t) i0 * d, d, c, d,
						0.0, ws->gbuf, k);
		for (t = 0; t < ntodo; t++)
		{
			int			r2 = ws->todo[t],
						i = i0 + r2,
						bj;
			double	   *g = ws->gbuf + (size_t) (full ? r2 : 0) * k;

			if (!full)
			{
				if (ws->fma)
					km_dots_fma(x + (size_t) i * d, c, k, d, g);
				else
					km_dots_plain(x + (size_t) i * d, c, k, d, g);
			}
			bj = km_nearest_bounded(ws, x, c, i, g, unit * (ws->xnorm[i] + cnmax));
			if (assign[i] != bj)
			{
				assign[i] = bj;
				any_change = true;
			}
		}

	}
	if (changed)
		*changed = any_change;
	return ws->no_cost ? 0.0 : km_cost_pass(ws, x, w, c, assign, mind);
}

/* km_assign_pruned_d, compiled apart for d = 2 (the same operations). */
static double
km_assign_pruned(KmWork *ws, const double *x, const double *w,
				 const double *c, int *assign, double *mind, bool *changed)
{
	if (ws->d == 2)
		return km_assign_pruned_d(ws, x, w, c, assign, mind, changed, 2);
	return km_assign_pruned_d(ws, x, w, c, assign, mind, changed, ws->d);
}

/*
 * Move the bounds of km_assign_pruned after the centres moved from
 * ws->cold to c: a point's upper bound grows by its centre's move, its
 * lower bound shrinks by the largest move of any other centre.
 */
static void
km_bounds_move(KmWork *ws, const double *c, const int *assign)
{
	int			d = ws->d,
				k = ws->k,
				jmax = 0,
				i,
				j;
	double		max1 = 0.0,
				max2 = 0.0;

	for (j = 0; j < k; j++)
	{
		double		mv = sqrt(km_sqdist(ws->cold + (size_t) j * d, c + (size_t) j * d, d)) *
			(1.0 + DPK_KM_SLACK);

		ws->delta[j] = mv;
		if (mv > max1)
		{
			max2 = max1;
			max1 = mv;
			jmax = j;
		}
		else if (mv > max2)
			max2 = mv;
	}
	for (i = 0; i < ws->n; i++)
	{
		int			a = assign[i];
		double		l;

		if (a < 0)
			continue;
		ws->ub[i] = (ws->ub[i] + ws->delta[a]) * (1.0 + DPK_KM_SLACK);
		l = ws->lb[i] - (a == jmax ? max2 : max1);
		ws->lb[i] = l > 0.0 ? l * (1.0 - DPK_KM_SLACK) : 0.0;
	}
}

/*
 * Assign every point to its nearest centre and return the weighted cost.
 *
 * The nearest centre is chosen on dgemm distances (clamped at 0), ties to the
 * lowest index, ignoring centres that duplicate an earlier one; mind[i] (if
 * not NULL) gets the exactly recomputed squared distance to the chosen
 * centre.  *changed (if not NULL) tells whether any assign[i] differs from
 * its value on entry.
 */
static double
km_assign(KmWork *ws, const double *x, const double *w,
		  const double *c, int *assign, double *mind, bool *changed)
{
	int			n = ws->n,
				d = ws->d,
				k = ws->k;
	double		cost = 0.0;
	bool		any_change = false;
	int			i0,
				j,
				jj;

	km_row_norms(c, k, d, ws->cnorm);

	/* flag exact duplicates so they never compete with their original */
	if (ws->slots)
		km_flag_duplicates(ws, c);
	else
		for (j = 0; j < k; j++)
		{
			const double *cj = c + (size_t) j * d;

			ws->dup[j] = false;
			for (jj = 0; jj < j && !ws->dup[j]; jj++)
			{
				const double *cjj = c + (size_t) jj * d;
				int			t;

				if (ws->dup[jj])
					continue;
				for (t = 0; t < d; t++)
					if (cj[t] != cjj[t])
						break;
				if (t == d)
					ws->dup[j] = true;
			}
		}

	if (ws->ub)
		return km_assign_pruned(ws, x, w, c, assign, mind, changed);

	for (i0 = 0; i0 < n; i0 += ws->chunk)
	{
		int			m = n - i0 < ws->chunk ? n - i0 : ws->chunk;
		int			r;

		dpk_check_interrupts();

		/* gbuf = -2 X_chunk C^T  (m x k) */
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans,
					m, k, d, -2.0, x + (size_t) i0 * d, d, c, d,
					0.0, ws->gbuf, k);

		for (r = 0; r < m; r++)
		{
			int			i = i0 + r;
			const double *g = ws->gbuf + (size_t) r * k;
			double		best = 0.0;
			int			bj = -1;
			double		dist;
			double		wi;

			for (j = 0; j < k; j++)
			{
				double		v;

				if (ws->dup[j])
					continue;
				v = ws->xnorm[i] + g[j] + ws->cnorm[j];
				if (!(v > 0.0))
					v = 0.0;
				if (bj < 0 || v < best)
				{
					best = v;
					bj = j;
				}
			}
			/* centre 0 is never a duplicate, so bj >= 0 here */
			if (assign[i] != bj)
			{
				assign[i] = bj;
				any_change = true;
			}
			dist = km_sqdist(x + (size_t) i * d, c + (size_t) bj * d, d);
			if (mind)
				mind[i] = dist;
			wi = km_weight(w, i);
			if (wi > 0.0)
				cost += wi * dist;
		}
	}
	if (changed)
		*changed = any_change;
	return cost;
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
static void
km_seed(const double *x, const double *sw, int n, int d, int k,
		double stotal, KmRng *rng, double *c, double *d2, int *near,
		double *p)
{
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

	for (j = 1; j < k; j++)
	{
		double		total = 0.0;
		double	   *cj = c + (size_t) j * d;

		dpk_check_interrupts();

		for (i = 0; i < n; i++)
		{
			p[i] = sw[i] * d2[i];
			total += p[i];
		}

		if (total > 0.0 && isfinite(total))
		{
			int			pick = km_sample(rng, p, n, total);

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

		for (i = 0; i < n; i++)
		{
			double		v = km_sqdist(x + (size_t) i * d, cj, d);

			if (v < d2[i])
			{
				d2[i] = v;
				near[i] = j;
			}
		}
	}
}

/*
 * Lloyd update: move each centre to the weighted mean of its points.  The
 * mean is accumulated relative to the cluster's first point of positive
 * weight (ref, k ints of scratch): that avoids cancellation when the data
 * sit far from the origin, and makes a cluster of identical points keep
 * exactly their coordinates, so duplicate detection stays exact.  A
 * centre with no assigned weight is re-seeded at the point with the largest
 * weighted contribution w_i * mind_i to the cost (that point's contribution
 * is then zeroed in contrib, so two empty clusters take different points);
 * if every contribution is 0 it keeps its previous position.  When
 * mind_valid is false, mind is first computed here if a cluster is empty.
 */
static inline __attribute__((always_inline)) void
km_update_d(const double *x, const double *sw, int n, int d, int k,
			const int *assign, double *mind, bool mind_valid, double *c,
			double *sums, double *wsum, int *ref, double *contrib)
{
	int			i,
				j,
				t;
	bool		have_contrib = false;

	memset(sums, 0, sizeof(double) * (size_t) k * d);
	memset(wsum, 0, sizeof(double) * (size_t) k);
	for (j = 0; j < k; j++)
		ref[j] = -1;
	if (d == 2)
	{
		/*
		 * The same sums in the same order, the current cluster's in
		 * registers: runs of points of one cluster no longer wait on memory.
		 */
		int			cur = -1;
		double		a0 = 0.0,
					a1 = 0.0,
					aw = 0.0;
		const double *xr = x;

		for (i = 0; i < n; i++)
		{
			double		wi = sw[i];
			const double *xi = x + (size_t) i * 2;

			if (!(wi > 0.0))
				continue;
			j = assign[i];
			if (j != cur)
			{
				if (cur >= 0)
				{
					sums[cur * 2] = a0;
					sums[cur * 2 + 1] = a1;
					wsum[cur] = aw;
				}
				cur = j;
				if (ref[j] < 0)
					ref[j] = i;
				xr = x + (size_t) ref[j] * 2;
				a0 = sums[j * 2];
				a1 = sums[j * 2 + 1];
				aw = wsum[j];
			}
			a0 += wi * (xi[0] - xr[0]);
			a1 += wi * (xi[1] - xr[1]);
			aw += wi;
		}
		if (cur >= 0)
		{
			sums[cur * 2] = a0;
			sums[cur * 2 + 1] = a1;
			wsum[cur] = aw;
		}
	}
	else
		for (i = 0; i < n; i++)
		{
			double		wi = sw[i];
			const double *xi = x + (size_t) i * d;
			const double *xr;
			double	   *sj;

			if (!(wi > 0.0))
				continue;
			j = assign[i];
			if (ref[j] < 0)
				ref[j] = i;
			xr = x + (size_t) ref[j] * d;
			sj = sums + (size_t) j * d;
			for (t = 0; t < d; t++)
				sj[t] += wi * (xi[t] - xr[t]);
			wsum[j] += wi;
		}

	/* an empty cluster needs the distances to the centres still in c */
	if (!mind_valid)
		for (j = 0; j < k; j++)
			if (!(wsum[j] > 0.0))
			{
				for (i = 0; i < n; i++)
					mind[i] = km_sqdist(x + (size_t) i * d, c + (size_t) assign[i] * d, d);
				break;
			}

	for (j = 0; j < k; j++)
	{
		double	   *cj = c + (size_t) j * d;

		if (wsum[j] > 0.0)
		{
			const double *sj = sums + (size_t) j * d;
			const double *xr = x + (size_t) ref[j] * d;

			for (t = 0; t < d; t++)
				cj[t] = xr[t] + sj[t] / wsum[j];
		}
		else
		{
			double		bestv = 0.0;
			int			besti = -1;

			if (!have_contrib)
			{
				for (i = 0; i < n; i++)
					contrib[i] = sw[i] * mind[i];
				have_contrib = true;
			}
			for (i = 0; i < n; i++)
			{
				if (contrib[i] > bestv)
				{
					bestv = contrib[i];
					besti = i;
				}
			}
			if (besti >= 0)
			{
				memcpy(cj, x + (size_t) besti * d, sizeof(double) * (size_t) d);
				contrib[besti] = 0.0;
			}
		}
	}
}

/* km_update_d, compiled apart for d = 2 (the same operations in order). */
static void
km_update(const double *x, const double *sw, int n, int d, int k,
		  const int *assign, double *mind, bool mind_valid, double *c,
		  double *sums, double *wsum, int *ref, double *contrib)
{
	if (d == 2)
		km_update_d(x, sw, n, 2, k, assign, mind, mind_valid, c, sums, wsum, ref, contrib);
	else
		km_update_d(x, sw, n, d, k, assign, mind, mind_valid, c, sums, wsum, ref, contrib);
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
} KmRun;

/*
 * Allocate the scratch and clip the weights; with no usable weight (all
 * zero, or overflowing) the seeding uses weight 1 for every point.
 */
static void
km_run_init(KmRun *run, const double *x, const double *w, int n, int d, int k)
{
	km_work_init(&run->ws, x, n, d, k);
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
}

/* Free a run's scratch. */
static void
km_run_free(KmRun *run)
{
	km_work_free(&run->ws);
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

	for (i = 0; i < n; i++)
		run->assign[i] = -1;
	for (;;)
	{
		bool		changed;

		dpk_check_interrupts();
		/* the cost and distances are needed after the last assignment only */
		run->ws.no_cost = run->ws.ub != NULL && iter < max_iter;
		cost = km_assign(&run->ws, x, run->sw, run->c, run->assign, run->mind, &changed);
		if (!changed && run->ws.no_cost)
			cost = km_cost_pass(&run->ws, x, run->sw, run->c, run->assign, run->mind);
		if (!changed || iter >= max_iter)
			break;
		if (run->ws.ub)
			memcpy(run->ws.cold, run->c, sizeof(double) * (size_t) k * d);
		km_update(x, run->sw, n, d, k, run->assign, run->mind, !run->ws.no_cost,
				  run->c, run->sums, run->wsum, run->ref, run->p);
		if (run->ws.ub)
			km_bounds_move(&run->ws, run->c, run->assign);
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
 * Weighted k-means with screened restarts; see kmeans.h.  Every restart is
 * seeded and run for at most screen_iter Lloyd updates; the keep of lowest
 * cost (sorted, the earlier restart first on a tie) each continue to
 * max_iter updates in all, and the lowest final cost wins (the earlier on
 * a tie).
 */
double
dpk_kmeans_screened(const DpkPoints *pts, const DpkClusterOpts *opt,
					int screen_iter, int keep, const DpkClusterOut *out)
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
	if (k <= 0 || d <= 0 || n <= 0 || keep >= restarts || screen_iter >= max_iter)
		return dpk_kmeans(pts, &(DpkClusterOpts) {k, restarts, max_iter, seed}, out);

	km_run_init(&run, x, w, n, d, k);
	topc = dpk_alloc(sizeof(double) * (size_t) keep * kd);
	topcost = dpk_alloc(sizeof(double) * (size_t) keep);
	for (r = 0; r < restarts; r++)
	{
		double		cost = km_restart(&run, x, n, d, k, screen_iter, seed, r);

		if (ntop == keep && !(cost < topcost[ntop - 1]))
			continue;
		t = ntop < keep ? ntop++ : ntop - 1;
		for (; t > 0 && cost < topcost[t - 1]; t--)
		{
			topcost[t] = topcost[t - 1];
			memcpy(topc + (size_t) t * kd, topc + (size_t) (t - 1) * kd, sizeof(double) * kd);
		}
		topcost[t] = cost;
		memcpy(topc + (size_t) t * kd, run.c, sizeof(double) * kd);
	}
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

	km_work_init(&ws, x, n, d, k);
	a = assign ? assign : dpk_alloc(sizeof(int) * (size_t) n);
	for (i = 0; i < n; i++)
		a[i] = -1;
	cost = km_assign(&ws, x, w, centers, a, NULL, NULL);
	if (a != assign)
		dpk_free(a);
	km_work_free(&ws);
	return cost;
}

/*
 * Limit OpenBLAS to one thread: each backend is its own process, and a
 * thread pool per backend would oversubscribe the machine.
 */
void
dpk_blas_single_thread(void)
{
	openblas_set_num_threads(1);
	/*
	 * The pool OpenBLAS started when it was loaded would spin for a while
	 * in every new process (a release worker is one): stop it.  Builds
	 * without threads lack the symbol.
	 */
	if (blas_thread_shutdown_)
		blas_thread_shutdown_();
}
