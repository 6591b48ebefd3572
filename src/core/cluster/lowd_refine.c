/*
 * lowd_refine.c
 *		The low-d one-shot's Lloyd updates on its own noisy histogram and
 *		the centres' cost estimated from it: post-processing of the
 *		release's one noisy histogram (doc/decisions/055, 058).
 */
#include "lowd_refine.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"

/* The support's cells of h (support NULL: every cell) into lc. */
void
dpk_lowd_cells_build(const DpkDenseHist *h, const bool *support, LowdCells *lc)
{
	int			d = h->d,
				m = h->m,
				j;
	double		su = 1.0 / ((double) h->units * m);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * d);
	size_t		n = 0,
				t = 0;
	uint64_t	c;

	for (c = 0; c < h->ncells; c++)
		if (support == NULL || support[c])
			n++;
	lc->n = n;
	if (n == 0)
		n = 1;
	lc->mid = dpk_alloc(sizeof(double) * n * d);
	lc->off = dpk_alloc(sizeof(double) * n * d);
	lc->cnt = dpk_alloc(sizeof(double) * n);
	lc->pos = dpk_alloc(sizeof(double) * n * d);
	lc->sum = h->sum ? dpk_alloc(sizeof(double) * n * d) : NULL;
	for (j = 0; j < d; j++)
		idx[j] = 0;
	for (c = 0; c < h->ncells; c++)
	{
		double		cnt = (double) h->count[c];

		if (c > 0)
		{
			/* the next cell's coordinates (dpk_grid_cell_coords: the last fastest) */
			for (j = d - 1; j > 0 && idx[j] == m - 1; j--)
				idx[j] = 0;
			idx[j]++;
		}
		if ((c & 65535) == 0)
			dpk_check_interrupts();
		if (support != NULL && !support[c])
			continue;
		DPK_ASSERT(idx[0] < m);
		lc->cnt[t] = cnt;
		for (j = 0; j < d; j++)
		{
			double		o = ((double) idx[j] + 0.5 / (double) h->units) / m;

			lc->mid[t * d + j] = ((double) idx[j] + 0.5) / m;
			lc->off[t * d + j] = o;
			if (lc->sum)
				lc->sum[t * d + j] = (double) h->sum[c * d + j];
			lc->pos[t * d + j] = cnt * o + (h->sum ? su * (double) h->sum[c * d + j] : 0.0);
		}
		t++;
	}
	dpk_free(idx);
}

/* Free the arrays of dpk_lowd_cells_build. */
void
dpk_lowd_cells_free(LowdCells *lc)
{
	dpk_free(lc->mid);
	dpk_free(lc->off);
	dpk_free(lc->cnt);
	dpk_free(lc->pos);
	dpk_free(lc->sum);
}

/*
 * The centre (of k, a, k * d normalised) nearest the middle x of a cell in
 * the metric of w2, the lowest on a tie.  Every distance is summed in full
 * and compared by selects; stopping a sum once it reaches the best (as the
 * passes did before) chooses the same centre, since adding nonnegative
 * terms never lowers a rounded sum, and a NaN distance never wins either way.
 */
static inline __attribute__((always_inline)) int
lowd_nearest_d(const double *a, const double *w2, const double *x, int k, int d)
{
	double		best = INFINITY;
	int			bi = 0,
				i,
				j;

	for (i = 0; i < k; i++)
	{
		double		dist = 0.0;
		bool		lead;

		for (j = 0; j < d; j++)
		{
			double		diff = a[(size_t) i * d + j] - x[j];

			dist += w2[j] * diff * diff;
		}
		lead = dist < best;
		best = lead ? dist : best;
		bi = lead ? i : bi;
	}
	return bi;
}

/*
 * Relative slack of the refinement's bounds (far above a distance's
 * rounding), and an absolute one above the square root of what a
 * distance's terms lose to underflow.
 */
#define DPK_LOWD_REFINE_SLACK 1e-13
#define DPK_LOWD_REFINE_TINY 1e-150

/*
 * Hamerly's bounds for the cells of dpk_lowd_refine (NULL ub: every cell
 * every pass): ub[c] is at least the distance from the cell's middle to
 * its centre, lb[c] at most that to every other centre, both in the
 * metric of w2 (a norm, so the triangle inequality moves them by the
 * centres' moves delta).  A cell whose ub, squared and widened by the
 * slack, stays below lb squared and narrowed by it keeps its centre: each
 * computed squared distance is within a relative (d + 3) DBL_EPSILON of
 * its exact value (nonnegative terms, no cancellation), far below the
 * slack, so the computed distances put the same centre strictly first,
 * with no tie, as the full comparison does.
 */
typedef struct LowdBounds
{
	double	   *ub;				/* n cells */
	double	   *lb;				/* n cells */
	double	   *delta;			/* k: each centre's last move, widened */
	double		max1;			/* the largest move */
	double		max2;			/* the second largest */
	int			jmax;			/* the centre that made max1 */
} LowdBounds;

/* Squared distance of centre i (of a) to the middle x, as lowd_nearest_d sums it. */
static inline __attribute__((always_inline)) double
lowd_sqdist_d(const double *a, const double *w2, const double *x, int i, int d)
{
	double		dist = 0.0;
	int			j;

	for (j = 0; j < d; j++)
	{
		double		diff = a[(size_t) i * d + j] - x[j];

		dist += w2[j] * diff * diff;
	}
	return dist;
}

/*
 * lowd_nearest_d that also sets the cell's bounds: ub from the distance to
 * the centre chosen, lb from the lowest distance to any other.
 */
static inline __attribute__((always_inline)) int
lowd_nearest_bounded_d(const double *a, const double *w2, const double *x, int k,
					   double *ub, double *lb, int d)
{
	double		best = INFINITY,
				second = INFINITY;
	int			bi = 0,
				i;

	for (i = 0; i < k; i++)
	{
		double		dist = lowd_sqdist_d(a, w2, x, i, d),
					loser;
		bool		lead = dist < best;

		loser = lead ? best : dist;
		second = loser < second ? loser : second;
		best = lead ? dist : best;
		bi = lead ? i : bi;
	}
	*ub = sqrt(best) * (1.0 + DPK_LOWD_REFINE_SLACK) + DPK_LOWD_REFINE_TINY;
	second = sqrt(second) * (1.0 - DPK_LOWD_REFINE_SLACK) - DPK_LOWD_REFINE_TINY;
	*lb = second > 0.0 ? second : 0.0;
	return bi;
}

/*
 * Centre i's sums at d = 2 into run: its noisy count, cells, noisy sums of
 * positions, of corners, of their squares.
 */
static inline __attribute__((always_inline)) void
lowd_run_load(int i, double *run, const double *mass, const double *ncell, const double *pos,
			  const double *o1, const double *o2)
{
	run[0] = mass[i];
	run[1] = ncell[i];
	run[2] = pos[i * 2];
	run[3] = pos[i * 2 + 1];
	run[4] = o1[i * 2];
	run[5] = o1[i * 2 + 1];
	run[6] = o2[i * 2];
	run[7] = o2[i * 2 + 1];
}

/* The sums in run back to centre i's (lowd_run_load's order). */
static inline __attribute__((always_inline)) void
lowd_run_store(int i, const double *run, double *mass, double *ncell, double *pos, double *o1,
			   double *o2)
{
	mass[i] = run[0];
	ncell[i] = run[1];
	pos[i * 2] = run[2];
	pos[i * 2 + 1] = run[3];
	o1[i * 2] = run[4];
	o1[i * 2 + 1] = run[5];
	o2[i * 2] = run[6];
	o2[i * 2 + 1] = run[7];
}

/*
 * One assignment pass of dpk_lowd_refine over the cells: each to its nearest
 * centre (near), the centres' noisy counts, cells, noisy sums of positions
 * and sums of corners and their squares, in cell order.  With bounds (bd
 * not NULL; near set by an earlier pass, or -1) a cell whose bounds show
 * its centre is still strictly nearest is not compared again.  Whether any
 * cell changed centre.
 */
static inline __attribute__((always_inline)) bool
lowd_refine_pass_d(const LowdCells *lc, const double *a, const double *w2, int k,
				   int *near, LowdBounds *bd, double *mass, double *ncell, double *pos,
				   double *o1, double *o2, int d)
{
	bool		moved = false;
	size_t		c;
	int			j,
				cur = -1;
	double		run[8] = {0};

	for (c = 0; c < lc->n; c++)
	{
		const double *x = lc->mid + c * d;
		int			bi = near[c];

		if ((c & 4095) == 0)
			dpk_check_interrupts();
		if (bd == NULL)
			bi = lowd_nearest_d(a, w2, x, k, d);
		else
		{
			bool		keep = false;

			if (bi >= 0)
			{
				double		l = bd->lb[c] - (bi == bd->jmax ? bd->max2 : bd->max1),
							lb2;

				bd->ub[c] = (bd->ub[c] + bd->delta[bi]) * (1.0 + DPK_LOWD_REFINE_SLACK);
				bd->lb[c] = l > 0.0 ? l * (1.0 - DPK_LOWD_REFINE_SLACK) : 0.0;
				lb2 = bd->lb[c] * bd->lb[c] * (1.0 - DPK_LOWD_REFINE_SLACK);
				keep = bd->ub[c] * bd->ub[c] * (1.0 + DPK_LOWD_REFINE_SLACK) < lb2;
				if (!keep)
				{
					/* tighten the upper bound to the distance, try again */
					bd->ub[c] = sqrt(lowd_sqdist_d(a, w2, x, bi, d)) *
						(1.0 + DPK_LOWD_REFINE_SLACK) + DPK_LOWD_REFINE_TINY;
					keep = bd->ub[c] * bd->ub[c] * (1.0 + DPK_LOWD_REFINE_SLACK) < lb2;
				}
			}
			if (!keep)
				bi = lowd_nearest_bounded_d(a, w2, x, k, &bd->ub[c], &bd->lb[c], d);
		}
		moved |= near[c] != bi;
		near[c] = bi;
		if (d == 2)
		{
			/*
			 * The same sums in the same order, the current centre's in
			 * registers: neighbouring cells mostly share a centre, and a run
			 * of them no longer waits on memory.
			 */
			if (bi != cur)
			{
				if (cur >= 0)
					lowd_run_store(cur, run, mass, ncell, pos, o1, o2);
				cur = bi;
				lowd_run_load(cur, run, mass, ncell, pos, o1, o2);
			}
			run[0] += lc->cnt[c];
			run[1] += 1.0;
			for (j = 0; j < 2; j++)
			{
				double		o = lc->off[c * 2 + j];

				run[2 + j] += lc->pos[c * 2 + j];
				run[4 + j] += o;
				run[6 + j] += o * o;
			}
			continue;
		}
		mass[bi] += lc->cnt[c];
		ncell[bi] += 1.0;
		for (j = 0; j < d; j++)
		{
			double		o = lc->off[c * d + j];

			pos[(size_t) bi * d + j] += lc->pos[c * d + j];
			o1[(size_t) bi * d + j] += o;
			o2[(size_t) bi * d + j] += o * o;
		}
	}
	if (d == 2 && cur >= 0)
		lowd_run_store(cur, run, mass, ncell, pos, o1, o2);
	return moved;
}

/* lowd_refine_pass_d, compiled apart for d = 2 (the same operations). */
static bool
lowd_refine_pass(const LowdCells *lc, const double *a, const double *w2, int k, int d,
				 int *near, LowdBounds *bd, double *mass, double *ncell, double *pos,
				 double *o1, double *o2)
{
	if (d == 2)
		return lowd_refine_pass_d(lc, a, w2, k, near, bd, mass, ncell, pos, o1, o2, 2);
	return lowd_refine_pass_d(lc, a, w2, k, near, bd, mass, ncell, pos, o1, o2, d);
}

/*
 * Whether the bounds' argument holds for these weights and centres: every
 * weight 0 or within [1e-100, 1e100] and every centre coordinate in [0, 1]
 * (then no term of a distance overflows or underflows to a subnormal, so
 * each is within its relative rounding of the exact value).
 */
static bool
lowd_bounds_safe(const double *w2, const double *a, int k, int d)
{
	int			i;

	for (i = 0; i < d; i++)
		if (!(w2[i] == 0.0 || (w2[i] >= 1e-100 && w2[i] <= 1e100)))
			return false;
	for (i = 0; i < k * d; i++)
		if (!(a[i] >= 0.0 && a[i] <= 1.0))
			return false;
	return true;
}

/* The moves of the centres from prev to a into bd (see LowdBounds). */
static void
lowd_bounds_move(LowdBounds *bd, const double *prev, const double *a, const double *w2,
				 int k, int d)
{
	int			i;

	bd->max1 = bd->max2 = 0.0;
	bd->jmax = 0;
	for (i = 0; i < k; i++)
	{
		double		mv = sqrt(lowd_sqdist_d(a, w2, prev + (size_t) i * d, i, d)) *
			(1.0 + DPK_LOWD_REFINE_SLACK) + DPK_LOWD_REFINE_TINY;

		bd->delta[i] = mv;
		if (mv > bd->max1)
		{
			bd->max2 = bd->max1;
			bd->max1 = mv;
			bd->jmax = i;
		}
		else if (mv > bd->max2)
			bd->max2 = mv;
	}
}

/* dpk_lowd_refine on the support's cells lc of lh (see lowd.h). */
int
dpk_lowd_refine_cells(const DpkBox *box, const DpkLowdHist *lh, const LowdCells *lc, int k,
				  double min_size, int max_iter, double shrink, double *centers,
				  double *sizes)
{
	const DpkDenseHist *h = &lh->hist;
	int			d = box->d,
				m = h->m,
				i,
				j,
				it,
				updates = 0;
	double		su = 1.0 / ((double) h->units * m);
	double	   *a = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *w2 = dpk_alloc(sizeof(double) * d),
			   *mass = dpk_alloc(sizeof(double) * k),
			   *pos = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *a0 = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *ncell = dpk_alloc(sizeof(double) * k),
			   *o1 = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *o2 = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *prev = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *near = dpk_alloc(sizeof(int) * (lc->n ? lc->n : 1));
	size_t		c;
	LowdBounds	bounds,
			   *bd = NULL;

	DPK_ASSERT(h->d == d);
	for (j = 0; j < d; j++)
		w2[j] = (box->upper[j] - box->lower[j]) * (box->upper[j] - box->lower[j]);
	for (i = 0; i < k; i++)
		dpk_box_normalize(box, centers + (size_t) i * d, a + (size_t) i * d);
	memcpy(a0, a, sizeof(double) * (size_t) k * d);
	for (c = 0; c < lc->n; c++)
		near[c] = -1;
	if (k > 1 && lowd_bounds_safe(w2, a, k, d))
	{
		bd = &bounds;
		bd->ub = dpk_alloc(sizeof(double) * (lc->n ? lc->n : 1));
		bd->lb = dpk_alloc(sizeof(double) * (lc->n ? lc->n : 1));
		bd->delta = dpk_alloc(sizeof(double) * k);
	}
	for (it = 0;; it++)
	{
		bool		moved;

		for (i = 0; i < k; i++)
			mass[i] = ncell[i] = 0.0;
		for (i = 0; i < k * d; i++)
			pos[i] = o1[i] = o2[i] = 0.0;
		/* each cell to the centre nearest its middle (the lowest on a tie) */
		moved = lowd_refine_pass(lc, a, w2, k, d, near, bd, mass, ncell, pos, o1, o2);
		/* the centres are their cells' means already, or the updates are spent */
		if ((it > 0 && !moved) || it >= max_iter)
			break;
		if (bd)
			memcpy(prev, a, sizeof(double) * (size_t) k * d);
		for (i = 0; i < k; i++)
			if (mass[i] > min_size)
				for (j = 0; j < d; j++)
					a[(size_t) i * d + j] = fmin(1.0, fmax(0.0, pos[(size_t) i * d + j] / mass[i]));
		if (bd)
			lowd_bounds_move(bd, prev, a, w2, k, d);
		updates++;
	}
	/*
	 * Each centre's move from where it started, shrunk by the noise of its
	 * cells' mean: the variance of (noisy sum - mean noisy count) / count,
	 * to first order, against the square of the move (positive-part
	 * James-Stein with factor shrink).
	 */
	for (i = 0; shrink > 0.0 && i < k; i++)
	{
		double		var = 0.0,
					move = 0.0,
					lambda;

		if (!(mass[i] > min_size))
			continue;
		for (j = 0; j < d; j++)
		{
			size_t		ij = (size_t) i * d + j;
			double		mu = pos[ij] / mass[i];

			var += w2[j] * (lh->count_var * fmax(0.0, o2[ij] - 2.0 * mu * o1[ij] + ncell[i] * mu * mu) +
							(h->sum ? ncell[i] * su * su * lh->sum_var : 0.0)) / (mass[i] * mass[i]);
			move += w2[j] * (a[ij] - a0[ij]) * (a[ij] - a0[ij]);
		}
		lambda = move > 0.0 ? fmax(0.0, 1.0 - shrink * var / move) : 0.0;
		for (j = 0; j < d; j++)
			a[(size_t) i * d + j] = a0[(size_t) i * d + j] +
				lambda * (a[(size_t) i * d + j] - a0[(size_t) i * d + j]);
	}
	for (i = 0; i < k; i++)
	{
		dpk_box_denormalize(box, a + (size_t) i * d, centers + (size_t) i * d);
		if (sizes)
			sizes[i] = fmax(mass[i], 0.0);
	}
	dpk_free(a);
	dpk_free(w2);
	dpk_free(mass);
	dpk_free(pos);
	dpk_free(a0);
	dpk_free(ncell);
	dpk_free(o1);
	dpk_free(o2);
	dpk_free(prev);
	dpk_free(near);
	if (bd)
	{
		dpk_free(bd->ub);
		dpk_free(bd->lb);
		dpk_free(bd->delta);
	}
	return updates;
}

/* Lloyd updates on the noisy histogram (see lowd.h). */
int
dpk_lowd_refine(const DpkBox *box, const DpkLowdHist *lh, const bool *support, int k,
				double min_size, int max_iter, double shrink, double *centers,
				double *sizes)
{
	LowdCells	lc;
	int			updates;

	DPK_ASSERT(lh->hist.d == box->d);
	dpk_lowd_cells_build(&lh->hist, support, &lc);
	updates = dpk_lowd_refine_cells(box, lh, &lc, k, min_size, max_iter, shrink, centers, sizes);
	dpk_lowd_cells_free(&lc);
	return updates;
}

/* dpk_lowd_hist_cost on the support's cells lc of h (see lowd.h). */
double
dpk_lowd_hist_cost_cells(const DpkBox *box, const DpkDenseHist *h, const LowdCells *lc, int k,
					 const double *centers)
{
	int			d = box->d,
				m = h->m,
				i,
				j;
	double		su = 1.0 / ((double) h->units * m),
				cost = 0.0;
	double	   *a = dpk_alloc(sizeof(double) * (size_t) k * d),
			   *w2 = dpk_alloc(sizeof(double) * d);
	size_t		c;

	for (j = 0; j < d; j++)
		w2[j] = (box->upper[j] - box->lower[j]) * (box->upper[j] - box->lower[j]);
	for (i = 0; i < k; i++)
		dpk_box_normalize(box, centers + (size_t) i * d, a + (size_t) i * d);
	for (c = 0; c < lc->n; c++)
	{
		int			bi;

		if ((c & 4095) == 0)
			dpk_check_interrupts();
		bi = d == 2 ? lowd_nearest_d(a, w2, lc->mid + c * 2, k, 2)
			: lowd_nearest_d(a, w2, lc->mid + c * d, k, d);
		/* sum over the cell's rows of |a|^2 - 2 <a, row>, rows as in grid.h */
		for (j = 0; j < d; j++)
		{
			double		aj = a[(size_t) bi * d + j],
						o = lc->off[c * d + j];

			cost += w2[j] * (lc->cnt[c] * (aj * aj - 2.0 * aj * o) -
							 (lc->sum ? 2.0 * su * aj * lc->sum[c * d + j] : 0.0));
		}
	}
	dpk_free(a);
	dpk_free(w2);
	return cost;
}

/* The estimated cost of centres on a noisy histogram (see lowd.h). */
double
dpk_lowd_hist_cost(const DpkBox *box, const DpkDenseHist *h, const bool *support, int k,
				   const double *centers)
{
	LowdCells	lc;
	double		cost;

	dpk_lowd_cells_build(h, support, &lc);
	cost = dpk_lowd_hist_cost_cells(box, h, &lc, k, centers);
	dpk_lowd_cells_free(&lc);
	return cost;
}

