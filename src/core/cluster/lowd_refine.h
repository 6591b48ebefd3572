/*
 * lowd_refine.h
 *		Inside the low-d one-shot (lowd.c, lowd_refine.c): the support's
 *		cells a one-shot's refinement and cost estimates pass over.
 */
#ifndef DPK_LOWD_REFINE_H
#define DPK_LOWD_REFINE_H

#include "lowd.h"

/*
 * The cells of a histogram's support with what every pass over them needs,
 * computed once from the cell numbers: the same values, in cell order, as
 * the passes computed cell by cell before (doc/decisions/058-oneshot-refine-speed.md).
 */
typedef struct LowdCells
{
	size_t		n;				/* cells of the support */
	double	   *mid;			/* n * d: the cell's middle, (idx + 1/2) / m */
	double	   *off;			/* n * d: its rows' corner, (idx + 1/(2U)) / m
								 * (grid.h) */
	double	   *cnt;			/* n: noisy count */
	double	   *sum;			/* n * d: noisy in-cell sums, or NULL */
	double	   *pos;			/* n * d: the rows' noisy sum of positions,
								 * count * corner + sums / (U m) */
} LowdCells;

/* The support's cells of h (support NULL: every cell) into lc. */
void		dpk_lowd_cells_build(const DpkDenseHist *h, const bool *support, LowdCells *lc);

/* Free the arrays of dpk_lowd_cells_build. */
void		dpk_lowd_cells_free(LowdCells *lc);

/* dpk_lowd_refine on the support's cells lc of lh (see lowd.h). */
int			dpk_lowd_refine_cells(const DpkBox *box, const DpkLowdHist *lh, const LowdCells *lc,
								  int k, double min_size, int max_iter, double shrink,
								  double *centers, double *sizes);

/* dpk_lowd_hist_cost on the support's cells lc of h (see lowd.h). */
double		dpk_lowd_hist_cost_cells(const DpkBox *box, const DpkDenseHist *h,
									 const LowdCells *lc, int k, const double *centers);

#endif
