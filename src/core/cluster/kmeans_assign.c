/*
 * kmeans_assign.c
 *		The assignment step of weighted k-means: nearest centres by dgemm, or
 *		by Hamerly's bounds and exact dot products in low dimension.
 *
 * Point-to-centre distances come from one dgemm per chunk of rows,
 * ||x||^2 - 2 x.c + ||c||^2, so memory stays bounded by DPK_KM_CHUNK_CELLS
 * doubles whatever n is.  Up to DPK_KM_PRUNE_MAX_D dimensions the dot
 * products are computed here, repeating dgemm's rounding (FMA chains or
 * not), so low-d tables never load BLAS (blas.h); there the bounds also skip
 * the points whose nearest centre cannot have changed.  Ties go to the
 * lowest centre index and duplicated centres are ignored (see kmeans.c).
 */
#include "kmeans_int.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "blas.h"
#include "dpk_mem.h"

/* false: every assignment evaluates every point with dgemm (see kmeans.h). */
bool		dpk_kmeans_prune = true;

/* Rows per dgemm chunk, and the cap on the chunk buffer (rows * k doubles). */
#define DPK_KM_CHUNK_ROWS	2048
#define DPK_KM_CHUNK_CELLS	(1 << 20)

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

/* Centres from which duplicates are found by hashing, not pairwise. */
#define DPK_KM_HASH_DUP_K 32

/*
 * Up to this dimension the assignment keeps Hamerly's bounds and evaluates
 * only the points whose nearest centre may have changed; the dot products
 * it then computes itself repeat dgemm's (doc/decisions/030-exact-speedups.md).
 */
#define DPK_KM_PRUNE_MAX_D 16

/*
 * g = -2 X C^T for the m rows of x (row-major, m x k): dgemm's values, from
 * the dot products above up to DPK_KM_PRUNE_MAX_D dimensions, else from dgemm.
 */
static void
km_dots_chunk(const KmWork *ws, const double *x, int m, const double *c, double *g)
{
	int			d = ws->d,
				k = ws->k,
				r;

	if (d > DPK_KM_PRUNE_MAX_D)
	{
		dpk_dgemm_nt(m, k, d, -2.0, x, d, c, d, g, k);
		return;
	}
	for (r = 0; r < m; r++)
	{
		if (ws->fma)
			km_dots_fma(x + (size_t) r * d, c, k, d, g + (size_t) r * k);
		else
			km_dots_plain(x + (size_t) r * d, c, k, d, g + (size_t) r * k);
	}
}

/* Relative slack of the bounds (far above the rounding of d <= 16 terms). */
#define DPK_KM_SLACK 1e-13

/* Allocate the assignment scratch and the point norms. */
void
dpk_km_work_init(KmWork *ws, const double *x, int n, int d, int k)
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
	ws->fma = km_have_fma();
	ws->no_cost = false;
	if (d <= DPK_KM_PRUNE_MAX_D && k > 1 && dpk_kmeans_prune)
	{
		ws->ub = dpk_alloc(sizeof(double) * (size_t) (n > 0 ? n : 1));
		ws->lb = dpk_alloc(sizeof(double) * (size_t) (n > 0 ? n : 1));
		ws->cold = dpk_alloc(sizeof(double) * (size_t) k * d);
		ws->delta = dpk_alloc(sizeof(double) * (size_t) k);
		ws->todo = dpk_alloc(sizeof(int) * (size_t) ws->chunk);
	}
	km_row_norms(x, n, d, ws->xnorm);
}

/* Release the assignment scratch. */
void
dpk_km_work_free(KmWork *ws)
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
 * as the pairwise scan of dpk_km_assign does, in time linear in k: each centre
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
 * km_dots_*'s, which equal them): the same choice as dpk_km_assign's loop
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
				bj,
				j;
	double		best,
				second = HUGE_VAL;

	/*
	 * Centre 0 is never a duplicate, so it is the first best; then each
	 * centre either takes the lead (pushing the old best to second) or
	 * competes for second, duplicates always the latter.  Written with
	 * selects rather than branches: which centre is nearest is random
	 * from point to point, so branches would be mispredicted.
	 */
	best = ws->xnorm[i] + g[0] + ws->cnorm[0];
	best = best > 0.0 ? best : 0.0;
	bj = 0;
	for (j = 1; j < k; j++)
	{
		double		v = ws->xnorm[i] + g[j] + ws->cnorm[j];
		bool		lead;
		double		loser;

		v = v > 0.0 ? v : 0.0;
		lead = (v < best) & !ws->dup[j];
		loser = lead ? best : v;
		second = loser < second ? loser : second;
		best = lead ? v : best;
		bj = lead ? j : bj;
	}
	ws->ub[i] = sqrt(km_sqdist(x + (size_t) i * d, c + (size_t) bj * d, d)) *
		(1.0 + DPK_KM_SLACK);
	ws->lb[i] = second - err > 0.0 ? sqrt(second - err) * (1.0 - DPK_KM_SLACK) : 0.0;
	return bj;
}

/*
 * Exact squared distance of every point to its assigned centre (into mind
 * if not NULL) and the weighted cost, summed in point order as dpk_km_assign
 * sums it.
 */
double
dpk_km_cost_pass(const KmWork *ws, const double *x, const double *w,
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
 * dpk_km_assign with Hamerly's bounds (d <= DPK_KM_PRUNE_MAX_D): a point keeps
 * its centre when its upper bound on the distance to it, plus twice the
 * rounding err of the expanded form, stays below its lower bound on the
 * distance to every other centre; then the expanded values dpk_km_assign would
 * compare cannot put another centre first or tie.  The other points are
 * evaluated with dgemm's own values (dgemm on the chunk when many are left,
 * else km_dots_*), so the assignment, distances and cost are dpk_km_assign's.
 * The bounds are kept for the next call by dpk_km_bounds_move.
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
			km_dots_chunk(ws, x + (size_t) i0 * d, m, c, ws->gbuf);
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
	return ws->no_cost ? 0.0 : dpk_km_cost_pass(ws, x, w, c, assign, mind);
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
void
dpk_km_bounds_move(KmWork *ws, const double *c, const int *assign)
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
 * Before an assignment to the centres c: their squared norms, and which
 * equal an earlier centre (those never compete for a point).
 */
void
dpk_km_prepare(KmWork *ws, const double *c)
{
	int			d = ws->d,
				k = ws->k,
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
}

/*
 * g[r * nc + q] = -2 x_r.c_j for the m rows x_r of x and the nc centres
 * j = cand[q], each as km_dots_fma computes it (the first product
 * rounded, then fused multiply-adds in coordinate order, then the exact
 * scaling by -2): one call for a whole leaf of the filter.
 */
DPK_KM_TARGET_FMA static inline __attribute__((always_inline)) void
km_dots_rows_fma_d(const double *x, int m, int d, const double *c, const int *cand, int nc,
				   double *g)
{
	int			r,
				q,
				t;

	for (r = 0; r < m; r++)
	{
		const double *xr = x + (size_t) r * d;

		for (q = 0; q < nc; q++)
		{
			const double *cj = c + (size_t) cand[q] * d;
			double		s = xr[0] * cj[0];

			for (t = 1; t < d; t++)
				s = __builtin_fma(xr[t], cj[t], s);
			g[r * nc + q] = -2.0 * s;
		}
	}
}

/* km_dots_rows_fma_d, compiled apart for d = 2 (the same operations). */
DPK_KM_TARGET_FMA static void
km_dots_rows_fma(const double *x, int m, int d, const double *c, const int *cand, int nc,
				 double *g)
{
	if (d == 2)
		km_dots_rows_fma_d(x, m, 2, c, cand, nc, g);
	else
		km_dots_rows_fma_d(x, m, d, c, cand, nc, g);
}

/*
 * The dots of km_dots_rows_fma as dgemm's values on this CPU: with FMA, or
 * rounded product by product as km_dots_plain (d <= DPK_KM_PRUNE_MAX_D).
 */
void
dpk_km_dots_rows(const KmWork *ws, const double *x, int m, const double *c,
				 const int *cand, int nc, double *g)
{
	int			r,
				q;

	if (ws->fma)
	{
		km_dots_rows_fma(x, m, ws->d, c, cand, nc, g);
		return;
	}
	for (r = 0; r < m; r++)
		for (q = 0; q < nc; q++)
			km_dots_plain(x + (size_t) r * ws->d, c + (size_t) cand[q] * ws->d, 1, ws->d,
						  g + r * nc + q);
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
double
dpk_km_assign(KmWork *ws, const double *x, const double *w,
			  const double *c, int *assign, double *mind, bool *changed)
{
	int			n = ws->n,
				d = ws->d,
				k = ws->k;
	double		cost = 0.0;
	bool		any_change = false;
	int			i0,
				j;

	dpk_km_prepare(ws, c);
	if (ws->ub)
		return km_assign_pruned(ws, x, w, c, assign, mind, changed);

	for (i0 = 0; i0 < n; i0 += ws->chunk)
	{
		int			m = n - i0 < ws->chunk ? n - i0 : ws->chunk;
		int			r;

		dpk_check_interrupts();

		/* gbuf = -2 X_chunk C^T  (m x k) */
		km_dots_chunk(ws, x + (size_t) i0 * d, m, c, ws->gbuf);

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
