/*
 * kmeans_int.h
 *		Private interface between the k-means driver (kmeans.c) and its
 *		assignment step (kmeans_assign.c); not for use outside this folder.
 */
#ifndef DPK_KMEANS_INT_H
#define DPK_KMEANS_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "kmeans.h"

/* Clipped weight of point i: w[i] if it is > 0 (not NaN), else 0; NULL = 1. */
static inline double
km_weight(const double *w, int i)
{
	if (w == NULL)
		return 1.0;
	return w[i] > 0.0 ? w[i] : 0.0;
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
								 * to dpk_km_cost_pass */
} KmWork;

/* The assignment step, defined and documented in kmeans_assign.c. */
extern void dpk_km_work_init(KmWork *ws, const double *x, int n, int d, int k);
extern void dpk_km_prepare(KmWork *ws, const double *c);
extern void dpk_km_dots_rows(const KmWork *ws, const double *x, int m, const double *c,
							 const int *cand, int nc, double *g);
extern void dpk_km_work_free(KmWork *ws);
extern double dpk_km_assign(KmWork *ws, const double *x, const double *w,
							const double *c, int *assign, double *mind,
							bool *changed);
extern double dpk_km_cost_pass(const KmWork *ws, const double *x,
							   const double *w, const double *c,
							   const int *assign, double *mind);
extern void dpk_km_bounds_move(KmWork *ws, const double *c, const int *assign);

/* The scratch of a Lloyd update. */
typedef struct KmUpdateScratch
{
	double	   *sums;			/* k * d */
	double	   *wsum;			/* k */
	double	   *mind;			/* n: distance of each point to its centre */
	double	   *contrib;		/* n */
	int		   *ref;			/* k */
} KmUpdateScratch;

/*
 * The Lloyd update point by point (kmeans_filter.c): each centre to the
 * weighted mean of its points, an empty cluster re-seeded (mind computed
 * first unless mind_valid).
 */
extern void dpk_km_update(const double *x, const double *sw, int n, int d, int k,
						  const int *assign, bool mind_valid, double *c,
						  const KmUpdateScratch *u);

/*
 * Up to this dimension, and from this many points, Lloyd's iterations run
 * on a kd-tree by the filtering algorithm (kmeans_filter.c); the same
 * assignments, centres and costs up to the order of summation.
 */
#define DPK_KM_FILTER_MAX_D 5
#define DPK_KM_FILTER_MIN_N 256

/*
 * The kd-tree of the filtering algorithm (kmeans_tree.c) and the state its
 * walks leave (kmeans_filter.c).
 */
typedef struct KmTree
{
	int			n;
	int			d;
	int			k;
	int			nnodes;
	int			depth;			/* deepest level, root 0 */
	int			maxleaf;		/* most points in a leaf */
	double	   *x;				/* n * d: the points in tree order */
	double	   *w;				/* n: their clipped weights */
	double	   *xn;				/* n: their ||x||^2 as dpk_km_assign has it */
	int		   *perm;			/* n: original index of each tree position */
	int		   *label;			/* n: centre of each point at the last pass
								 * that evaluated its leaf point by point */
	/* nodes, in preorder: the left child of node v is v + 1 */
	int		   *begin;			/* first tree position */
	int		   *end;			/* one past the last */
	int		   *right;			/* right child, -1 for a leaf */
	double	   *lo;				/* nnodes * d: bounding box */
	double	   *hi;
	double	   *mean;			/* nnodes * d: weighted mean (box middle if
								 * no weight) */
	double	   *res;			/* nnodes * d: sum w (x - mean), the mean's
								 * rounding */
	double	   *wsum;			/* nnodes: total weight */
	double	   *m2;				/* nnodes: sum w ||x - mean||^2 */
	double	   *xnmax;			/* nnodes: largest ||x||^2 of its points */
	int		   *origin;			/* nnodes: tree position of its first point of
								 * positive weight, -1 if none */
	int		   *owner;			/* nnodes: centre of all its points at the
								 * last pass, -1 if mixed or unknown */
	int		   *cand;			/* (depth + 2) * k: candidates per level */
	double	   *g;				/* maxleaf * k: dot products of a leaf */
	double	   *refx;			/* k * d: each cluster's reference point */
	bool	   *has_ref;		/* k */
} KmTree;

/*
 * Build the tree of the n points x (n * d) with clipped weights sw and
 * norms xnorm (KmWork's), for k centres.  Free with dpk_km_tree_free.
 */
extern KmTree *dpk_km_tree_build(const double *x, const double *sw, const double *xnorm,
								 int n, int d, int k);
extern void dpk_km_tree_free(KmTree *t);

/* Forget the last assignment: the next pass counts as a change. */
extern void dpk_km_tree_reset(KmTree *t);

/*
 * One assignment of every point to its nearest centre of c, as
 * dpk_km_assign chooses it (dpk_km_prepare(ws, c) first): into sums (k *
 * d, relative to dpk_km_tree_ref) and wsum (k) each cluster's weighted
 * sum and weight; *changed tells whether any point's centre differs from
 * the last pass (or since dpk_km_tree_reset).  Returns the weighted cost
 * (0 unless want_cost).
 */
extern double dpk_km_filter_pass(KmTree *t, const KmWork *ws, const double *c,
								 double *sums, double *wsum, bool want_cost,
								 bool *changed);

/* The last pass's centre of every point, in the original order. */
extern void dpk_km_tree_assign(const KmTree *t, int *assign);

/* The point cluster j's sums are relative to (NULL: no weight). */
extern const double *dpk_km_tree_ref(const KmTree *t, int j);

/*
 * Lloyd from the centres c (k * d) with the tree: assignment and update
 * until the assignment no longer changes or max_iter updates were made.
 * Leaves the centres in c and the assignment in assign (n); returns the
 * cost of that assignment.  x and sw are the points in the original order.
 */
extern double dpk_km_lloyd_filter(KmTree *t, KmWork *ws, const double *x,
								  const double *sw, const KmUpdateScratch *u,
								  double *c, int *assign, int max_iter);

#endif							/* DPK_KMEANS_INT_H */
