/*
 * coreset.h
 *		From a noisy histogram to weighted points and centres.
 *
 * Everything here is post-processing of noisy quantities (DESIGN §6): it can
 * look at the noisy histogram freely without spending privacy.
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

/* Free a coreset's arrays. */
void		dpk_coreset_free(DpkCoreset *c);

/* Configuration of a one-shot release (dp_kmeans). */
typedef struct DpkOneshotConfig
{
	double		epsilon;		/* total budget of the call */
	int			k;
	double		public_n;		/* < 0: unknown, buy a noisy N */
	double		n_share;		/* share of epsilon for the noisy N */
	double		sum_share;		/* share of the rest for in-cell sums */
	double		grid_scale;		/* multiplies RUGNIK's m */
	double		threshold_sigmas;	/* keep cells above this many noise sd */
	double		max_cells;		/* public cap on m^d */
	int			restarts;
	int			max_iter;
} DpkOneshotConfig;

/* Defaults measured by test/bench (doc/benchmarks.md). */
void		dpk_oneshot_defaults(DpkOneshotConfig *cfg, double epsilon, int k);

/* What a one-shot release produced (all of it noisy or derived from noise). */
typedef struct DpkOneshotResult
{
	double		noisy_n;		/* the N the grid rule used */
	int			cells_per_dim;
	double		cells;
	int			coreset_size;
	double	   *centers;		/* k * d, allocated */
	double	   *sizes;			/* k, noisy cluster sizes */
} DpkOneshotResult;

/*
 * One-shot epsilon-DP k-means (paper 001 with in-cell means): noisy N, grid
 * size by RUGNIK, discrete Laplace on every cell's count and cube noise on
 * its sum vector, coreset of
 * cells above the noise, weighted k-means.  points: n * d, NaN-free (+-Inf
 * allowed, clamped).  Exactly cfg->k centres, whatever the data.
 */
void		dpk_oneshot_cluster(const DpkBox *box, const double *points, size_t n,
								const DpkOneshotConfig *cfg, DpkStream *s,
								DpkOneshotResult *res);

/* Free a result's arrays. */
void		dpk_oneshot_result_free(DpkOneshotResult *res);

#endif
