/*
 * coreset.h
 *		From a noisy histogram to weighted points.
 *
 * Everything here is post-processing of noisy quantities (doc/design.md,
 * section "Post-processing"): it can look at the noisy histogram freely
 * without spending privacy.
 */
#ifndef DPK_CORESET_H
#define DPK_CORESET_H

#include <stddef.h>
#include <stdint.h>

#include "grid.h"
#include "noise.h"

/* A weighted point set in the original coordinates of the box. */
typedef struct DpkCoreset
{
	int			d;
	int			n;
	double	   *points;			/* n * d */
	double	   *weights;		/* n */
} DpkCoreset;

/*
 * Coreset of a noisy dense histogram: every cell whose noisy count exceeds
 * `threshold` becomes one point weighted by its noisy count.  Its position is
 * the cell centre, or with sums the noisy in-cell mean shrunk toward the
 * centre by how much its noise (sum_var, in fixed-point units squared)
 * outweighs the spread of a uniform cell (1/12 of a width squared).
 */
void		dpk_coreset_from_hist(const DpkDenseHist *h, const DpkBox *box,
								  double threshold, double sum_var,
								  DpkCoreset *out);

/*
 * The noisy-count threshold above which a cell enters the coreset: `sigmas`
 * noise standard deviations, raised to b ln(cells) (b = sd / sqrt 2, the
 * Laplace scale) so that the expected number of empty cells whose noise
 * alone clears it stays below one however many cells the grid has.
 */
double		dpk_coreset_threshold(double sd, double sigmas, double cells);

/*
 * The same for Gaussian count noise: `sigmas` standard deviations, raised
 * to the z whose upper normal tail is 1 / (2 cells), the rate of the
 * Laplace rule above (expected empty cells clearing it: half a cell).  The
 * Laplace rule's b ln(cells) is 5.9 sd at 4 096 cells, where Gaussian noise
 * needs 3.7 sd for the same rate.  Public inputs only.
 */
double		dpk_coreset_threshold_gauss(double sd, double sigmas, double cells);

/*
 * Mass below the threshold, gathered from coarser blocks of the same noisy
 * histogram (post-processing: no new noise).  The cells of h whose noisy
 * count is not above `threshold` (those dpk_coreset_from_hist left out) are
 * summed in blocks of b^d cells, b = 2, 4, 8, ... up to the whole grid; a
 * block whose sum clears the threshold of its own level,
 * dpk_coreset_threshold(sd sqrt(its cells left), sigmas, blocks of the
 * level), joins the coreset and its cells leave the residual.  Its sum is
 * shared top down: a block (or sub-block) holding cells above the threshold
 * adds its sum to their weights, in proportion to them (the tails of a
 * dense region stay with it), unless rest_sigmas > 0 and its sub-blocks
 * without such cells sum to more than rest_sigmas standard deviations of
 * their noise (a sparse region around a dense one then keeps its mass
 * where it lies); any other goes to its sub-blocks in
 * proportion to their positive noisy sums and so on down to its cells,
 * each at its cell's centre (without noise: every cell with its own count).
 * A sparse region, a uniform background spread below the noise of any one
 * cell, then stays in the coreset with its mass instead of vanishing, and a
 * block holding only noise clears its level as rarely as an empty cell
 * clears the first threshold.  Appends to cs, made by dpk_coreset_from_hist
 * with the same threshold; sd is the noise standard deviation of one count.
 * support (h->ncells, or NULL) gets which cells the coreset stands for:
 * those above the threshold and those of the blocks that joined it.
 */
void		dpk_coreset_add_residual(const DpkDenseHist *h, const DpkBox *box,
									 double threshold, double sd, double sigmas,
									 double rest_sigmas, DpkCoreset *cs, bool *support);

/* Free a coreset's arrays. */
void		dpk_coreset_free(DpkCoreset *c);

/*
 * What a one-shot release produced (all of it noisy or derived from noise):
 * the result of both one-shot pipelines, dpk_lowd_cluster (lowd.h) and
 * dpk_highd_oneshot_cluster (highd.h), whose last step is a coreset.
 */
typedef struct DpkOneshotResult
{
	double		noisy_n;		/* the N the grid rule used */
	int			cells_per_dim;
	double		cells;
	int			coreset_size;
	double	   *centers;		/* k * d, allocated */
	double	   *sizes;			/* k, noisy cluster sizes */
	double		min_size;		/* a centre gathering less noisy mass than one
								 * cell must to enter the coreset is not
								 * supported by the release (0: no bound) */
	bool		mean_guard_fired;	/* low d: the centres were replaced by
									 * one centre (dpk_lowd_mean_guard) */
} DpkOneshotResult;

/* Free a result's arrays. */
void		dpk_oneshot_result_free(DpkOneshotResult *res);

#endif
