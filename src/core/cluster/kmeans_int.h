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
extern void dpk_km_work_free(KmWork *ws);
extern double dpk_km_assign(KmWork *ws, const double *x, const double *w,
							const double *c, int *assign, double *mind,
							bool *changed);
extern double dpk_km_cost_pass(const KmWork *ws, const double *x,
							   const double *w, const double *c,
							   const int *assign, double *mind);
extern void dpk_km_bounds_move(KmWork *ws, const double *c, const int *assign);

#endif							/* DPK_KMEANS_INT_H */
