/*
 * kmeans_filter.c
 *		Lloyd's update step, and Lloyd's iterations by the filtering
 *		algorithm in low dimension: a kd-tree over the weighted points,
 *		whose nodes are assigned whole.
 *
 * Kanungo, Mount, Netanyahu, Piatko, Silverman and Wu (2002): every node
 * of the tree keeps its points' bounding box, total weight, weighted mean
 * and spread about it.  One assignment walks the tree with a set of
 * candidate centres: at each node the candidate nearest the box's middle,
 * z*, removes every candidate z that is farther than z* from every point
 * of the box (it suffices to test the box's corner farthest in the
 * direction z - z*), and a node left with one candidate goes to it whole,
 * its precomputed sums added at once.  The tree (kmeans_tree.c) is built
 * once per point set and serves every restart and pass
 * (doc/decisions/071-kmeans-filter.md).
 *
 * The assignment is dpk_km_assign's exactly: a candidate is removed only
 * when it is farther by more than twice the rounding of the expanded
 * distances that dpk_km_assign compares, so it could not have won or tied
 * there; the points of a leaf with several candidates left are compared
 * on those expanded values (the same dot products, ties to the lowest
 * index, duplicated centres ignored).  Centres, sizes and costs then
 * differ from the point-by-point ones only by the order of summation.
 * Whether the assignment changed is tracked per node (the centre of all
 * its points at the last pass, or -1), per point only in the leaves.
 */
#include "kmeans_int.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dpk_mem.h"

/* Relative slack on the pruning test, as on Hamerly's bounds. */
#define DPK_KM_FILTER_SLACK 1e-13

/* false: Lloyd's passes point by point (see kmeans.h). */
bool		dpk_kmeans_filter = true;

/* The walk's inputs and outputs for one assignment. */
typedef struct KmPass
{
	KmTree	   *t;
	const KmWork *ws;
	const double *c;
	double	   *sums;			/* k * d: sum w (x - refx_j) */
	double	   *wsum;			/* k */
	double		cost;
	double		cnmax;			/* largest ||c_j||^2 */
	double		unit;			/* rounding of one expanded distance, per
								 * unit of ||x||^2 + ||c||^2 */
	bool		changed;
	bool		want_cost;		/* false: p->cost is not needed */
} KmPass;

/* Add weight W at mean (with residual res, spread m2) to cluster j. */
static inline __attribute__((always_inline)) void
km_pass_add(KmPass *p, int j, double W, const double *mean, const double *res, double m2,
			const double *ref, int d)
{
	KmTree	   *t = p->t;
	int			s;
	const double *cj = p->c + (size_t) j * d;
	double	   *rj = t->refx + (size_t) j * d,
			   *sj = p->sums + (size_t) j * d;
	double		cost = m2,
				far = 0.0;

	if (!(W > 0.0))
		return;
	if (!t->has_ref[j])
	{
		memcpy(rj, ref, sizeof(double) * d);
		t->has_ref[j] = true;
	}
	for (s = 0; s < d; s++)
		sj[s] += W * (mean[s] - rj[s]);
	p->wsum[j] += W;
	if (!p->want_cost)
		return;
	for (s = 0; s < d; s++)
	{
		double		diff = mean[s] - cj[s];

		far += diff * diff;
		if (res)
			cost += 2.0 * diff * res[s];
	}
	p->cost += cost + W * far;
}

/*
 * The points of leaf v, one by one, among the nc candidates cand (in
 * index order): dpk_km_assign's expanded values, the lowest strictly,
 * ties to the lowest index.  old >= 0 is the centre all of them had.
 */
static inline __attribute__((always_inline)) void
km_pass_leaf(KmPass *p, int v, const int *cand, int nc, int old, int d)
{
	KmTree	   *t = p->t;
	const KmWork *ws = p->ws;
	int			i,
				same = -2;

	dpk_km_dots_rows(ws, t->x + (size_t) t->begin[v] * d, t->end[v] - t->begin[v], p->c,
					 cand, nc, t->g);
	for (i = t->begin[v]; i < t->end[v]; i++)
	{
		const double *xi = t->x + (size_t) i * d;
		const double *g = t->g + (size_t) (i - t->begin[v]) * nc;
		double		best = 0.0;
		int			bj = -1,
					q;

		for (q = 0; q < nc; q++)
		{
			double		val = t->xn[i] + g[q] + ws->cnorm[cand[q]];

			val = val > 0.0 ? val : 0.0;
			if (bj < 0 || val < best)
			{
				best = val;
				bj = cand[q];
			}
		}
		if (bj != (old >= 0 ? old : t->label[i]))
			p->changed = true;
		t->label[i] = bj;
		same = same == -2 || same == bj ? bj : -1;
		/* with m2 = 0 the cost added is w ||x - c||^2, as km_sqdist sums it */
		km_pass_add(p, bj, t->w[i], xi, NULL, 0.0, xi, d);
	}
	t->owner[v] = same >= 0 ? same : -1;
}

/*
 * Whether candidate z is farther than zs from every point of node v's box
 * by more than the rounding of the expanded distances: at the box corner
 * farthest in the direction z - zs, where that difference is least.
 */
static inline __attribute__((always_inline)) bool
km_dominated(const KmPass *p, int v, int z, int zs, int d)
{
	const KmTree *t = p->t;
	int			s;
	const double *cz = p->c + (size_t) z * d,
			   *cs = p->c + (size_t) zs * d,
			   *lo = t->lo + (size_t) v * d,
			   *hi = t->hi + (size_t) v * d;
	double		dz = 0.0,
				dzs = 0.0,
				err = p->unit * (t->xnmax[v] + p->cnmax);

	for (s = 0; s < d; s++)
	{
		double		corner = cz[s] > cs[s] ? hi[s] : lo[s],
					a = corner - cz[s],
					b = corner - cs[s];

		dz += a * a;
		dzs += b * b;
	}
	return dz - dzs > 2.0 * err + DPK_KM_FILTER_SLACK * (dz + dzs);
}

#ifdef __SSE2__
#include <emmintrin.h>

/*
 * The candidates of node v at d = 2 that z* (the one nearest the box's
 * middle) does not remove, into next; returns their number.  The same
 * operations as the scalar loops of km_pass_node_d and km_dominated, both
 * coordinates in one SSE2 register and the corner chosen by a mask
 * instead of a branch: a distance (0 + a0^2) + a1^2 is a0^2 + a1^2, since
 * a square is +0, positive or NaN.
 */
static inline __attribute__((always_inline)) int
km_filter_cands2(const KmPass *p, int v, const int *cand, int nc, int *next)
{
	const KmTree *t = p->t;
	__m128d		lo = _mm_loadu_pd(t->lo + (size_t) v * 2),
				hi = _mm_loadu_pd(t->hi + (size_t) v * 2),
				mid = _mm_mul_pd(_mm_set1_pd(0.5), _mm_add_pd(lo, hi)),
				cs;
	double		bestd = HUGE_VAL,
				err2 = 2.0 * (p->unit * (t->xnmax[v] + p->cnmax));
	int			q,
				nn = 0,
				zs = cand[0];

	for (q = 0; q < nc; q++)
	{
		__m128d		diff = _mm_sub_pd(mid, _mm_loadu_pd(p->c + (size_t) cand[q] * 2)),
					sq = _mm_mul_pd(diff, diff);
		double		dist = _mm_cvtsd_f64(_mm_add_sd(sq, _mm_unpackhi_pd(sq, sq)));

		if (dist < bestd)
		{
			bestd = dist;
			zs = cand[q];
		}
	}
	cs = _mm_loadu_pd(p->c + (size_t) zs * 2);
	for (q = 0; q < nc; q++)
	{
		__m128d		cz,
					above,
					corner,
					a,
					b,
					sums;
		double		dz,
					dzs;

		cz = _mm_loadu_pd(p->c + (size_t) cand[q] * 2);
		above = _mm_cmpgt_pd(cz, cs);
		corner = _mm_or_pd(_mm_and_pd(above, hi), _mm_andnot_pd(above, lo));
		a = _mm_sub_pd(corner, cz);
		b = _mm_sub_pd(corner, cs);
		a = _mm_mul_pd(a, a);
		b = _mm_mul_pd(b, b);
		/* (dz, dzs): (a0^2 + a1^2, b0^2 + b1^2) */
		sums = _mm_add_pd(_mm_unpacklo_pd(a, b), _mm_unpackhi_pd(a, b));
		dz = _mm_cvtsd_f64(sums);
		dzs = _mm_cvtsd_f64(_mm_unpackhi_pd(sums, sums));
		if (cand[q] == zs || !(dz - dzs > err2 + DPK_KM_FILTER_SLACK * (dz + dzs)))
			next[nn++] = cand[q];
	}
	return nn;
}
#endif

/*
 * Assign node v at level lev among the nc candidates cand (index order);
 * old >= 0: the centre all its points had at the last pass, else -1 (then
 * its own owner, or its leaves' labels, tell).
 */
static void km_pass_node2(KmPass *p, int v, int lev, const int *cand, int nc, int old);
static void km_pass_nodeg(KmPass *p, int v, int lev, const int *cand, int nc, int old);

static inline __attribute__((always_inline)) void
km_pass_node_d(KmPass *p, int v, int lev, const int *cand, int nc, int old, int d)
{
	KmTree	   *t = p->t;
	int			k = t->k,
				q,
				zs = cand[0];

	if (old < 0)
		old = t->owner[v];
#ifdef __SSE2__
	if (nc > 1 && d == 2)
	{
		int		   *next = t->cand + (size_t) (lev + 1) * k;

		nc = km_filter_cands2(p, v, cand, nc, next);
		cand = next;
	}
	else
#endif
	if (nc > 1)
	{
		const double *lo = t->lo + (size_t) v * d,
				   *hi = t->hi + (size_t) v * d;
		double		bestd = HUGE_VAL;
		int		   *next = t->cand + (size_t) (lev + 1) * k;
		int			nn = 0;

		/* z*: the candidate nearest the box's middle, the lowest on a tie */
		for (q = 0; q < nc; q++)
		{
			const double *cj = p->c + (size_t) cand[q] * d;
			double		dist = 0.0;
			int			s;

			for (s = 0; s < d; s++)
			{
				double		diff = 0.5 * (lo[s] + hi[s]) - cj[s];

				dist += diff * diff;
			}
			if (dist < bestd)
			{
				bestd = dist;
				zs = cand[q];
			}
		}
		for (q = 0; q < nc; q++)
			if (cand[q] == zs || !km_dominated(p, v, cand[q], zs, d))
				next[nn++] = cand[q];
		cand = next;
		nc = nn;
	}
	if (nc == 1)
	{
		/* every point of the node goes to the one candidate left */
		int			j = cand[0];

		if (old != j)
			p->changed = true;
		t->owner[v] = j;
		if (t->origin[v] >= 0)
			km_pass_add(p, j, t->wsum[v], t->mean + (size_t) v * d, t->res + (size_t) v * d,
						t->m2[v], t->x + (size_t) t->origin[v] * d, d);
		return;
	}
	if (t->right[v] < 0)
	{
		km_pass_leaf(p, v, cand, nc, old, d);
		return;
	}
	if (d == 2)
	{
		km_pass_node2(p, v + 1, lev + 1, cand, nc, old);
		km_pass_node2(p, t->right[v], lev + 1, cand, nc, old);
	}
	else
	{
		km_pass_nodeg(p, v + 1, lev + 1, cand, nc, old);
		km_pass_nodeg(p, t->right[v], lev + 1, cand, nc, old);
	}
	t->owner[v] = t->owner[v + 1] >= 0 && t->owner[v + 1] == t->owner[t->right[v]]
		? t->owner[v + 1] : -1;
}

/* km_pass_node_d compiled for d = 2 (the same operations). */
static void
km_pass_node2(KmPass *p, int v, int lev, const int *cand, int nc, int old)
{
	km_pass_node_d(p, v, lev, cand, nc, old, 2);
}

/* km_pass_node_d for any d. */
static void
km_pass_nodeg(KmPass *p, int v, int lev, const int *cand, int nc, int old)
{
	km_pass_node_d(p, v, lev, cand, nc, old, p->t->d);
}

/* One filtering assignment (see kmeans_int.h). */
double
dpk_km_filter_pass(KmTree *t, const KmWork *ws, const double *c, double *sums,
				   double *wsum, bool want_cost, bool *changed)
{
	KmPass		p;
	int			k = t->k,
				nc = 0,
				j;

	p.t = t;
	p.ws = ws;
	p.c = c;
	p.sums = sums;
	p.wsum = wsum;
	p.cost = 0.0;
	p.cnmax = 0.0;
	p.unit = 8.0 * (t->d + 2) * DBL_EPSILON;
	p.changed = false;
	p.want_cost = want_cost;
	memset(sums, 0, sizeof(double) * (size_t) k * t->d);
	memset(wsum, 0, sizeof(double) * (size_t) k);
	for (j = 0; j < k; j++)
	{
		t->has_ref[j] = false;
		p.cnmax = ws->cnorm[j] > p.cnmax ? ws->cnorm[j] : p.cnmax;
		/* duplicated centres never compete (dpk_km_assign) */
		if (!ws->dup[j])
			t->cand[nc++] = j;
	}
	if (t->n > 0)
	{
		if (t->d == 2)
			km_pass_node2(&p, 0, 0, t->cand, nc, -1);
		else
			km_pass_nodeg(&p, 0, 0, t->cand, nc, -1);
	}
	if (changed)
		*changed = p.changed;
	return p.cost;
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
			const int *assign, bool mind_valid, double *c, const KmUpdateScratch *u)
{
	double	   *sums = u->sums,
			   *wsum = u->wsum,
			   *mind = u->mind,
			   *contrib = u->contrib;
	int		   *ref = u->ref;
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
void
dpk_km_update(const double *x, const double *sw, int n, int d, int k,
			  const int *assign, bool mind_valid, double *c, const KmUpdateScratch *u)
{
	if (d == 2)
		km_update_d(x, sw, n, 2, k, assign, mind_valid, c, u);
	else
		km_update_d(x, sw, n, d, k, assign, mind_valid, c, u);
}

/*
 * Lloyd from the centres in c with the filter (see kmeans_int.h): the
 * same loop as km_lloyd's in kmeans.c, each assignment and update done on
 * the tree; an update with an empty cluster is dpk_km_update's on the
 * points, which re-seeds it.
 */
double
dpk_km_lloyd_filter(KmTree *t, KmWork *ws, const double *x, const double *sw,
					const KmUpdateScratch *u, double *c, int *assign, int max_iter)
{
	int			n = t->n,
				d = t->d,
				k = t->k,
				iter = 0,
				j,
				s;
	double		cost;

	dpk_km_tree_reset(t);
	for (;;)
	{
		bool		changed,
					empty = false;

		dpk_check_interrupts();
		dpk_km_prepare(ws, c);
		cost = dpk_km_filter_pass(t, ws, c, u->sums, u->wsum, iter >= max_iter, &changed);
		if (!changed && iter < max_iter)
		{
			/* converged: the same walk again, now for the cost */
			cost = dpk_km_filter_pass(t, ws, c, u->sums, u->wsum, true, &changed);
			break;
		}
		if (iter >= max_iter)
			break;
		for (j = 0; j < k; j++)
			empty |= !(u->wsum[j] > 0.0);
		if (empty)
		{
			dpk_km_tree_assign(t, assign);
			dpk_km_update(x, sw, n, d, k, assign, false, c, u);
		}
		else
			for (j = 0; j < k; j++)
			{
				const double *rj = dpk_km_tree_ref(t, j);

				for (s = 0; s < d; s++)
					c[(size_t) j * d + s] = rj[s] + u->sums[(size_t) j * d + s] / u->wsum[j];
			}
		iter++;
	}
	dpk_km_tree_assign(t, assign);
	return cost;
}
