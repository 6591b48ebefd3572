/*
 * lowd.h
 *		The low-dimensional one-shot pipeline (dp_kmeans below
 *		DPK_HIGHD_MIN_D): a noisy grid in the original space.
 *
 * Noisy N, the grid size of "On the Optimal Number of Grids for
 * Differentially Private Non-Interactive K-Means Clustering" (RUGNIK,
 * rugnik.h) at the noise actually used, discrete Laplace on every cell's
 * count and cube noise on its in-cell sums, then post-processing only: the
 * coreset of cells above the noise, the mass below it gathered from coarser
 * blocks, and weighted k-means (coreset.h).  The epsilon split is
 * dpk_budget_lowd (budget.h); doc/design.md, section "One-shot releases".
 */
#ifndef DPK_LOWD_H
#define DPK_LOWD_H

#include <stdbool.h>
#include <stddef.h>

#include "coreset.h"
#include "dgauss.h"
#include "grid.h"
#include "kmedian.h"
#include "noise.h"

/* Configuration of a low-d one-shot release (dp_kmeans). */
typedef struct DpkLowdConfig
{
	double		epsilon;		/* total budget of the call */
	int			k;
	double		public_n;		/* < 0: unknown, buy a noisy N */
	double		n_share;		/* share of epsilon for the noisy N */
	double		sum_share;		/* share of the rest for in-cell sums */
	double		grid_scale;		/* multiplies RUGNIK's m */
	double		gauss_grid_scale;	/* with delta > 0 at d <= gauss_grid_max_d:
									 * multiplies it again (dpk_lowd_grid_scale) */
	int			gauss_grid_max_d;
	double		threshold_sigmas;	/* keep cells above this many noise sd */
	bool		residual;		/* gather the mass below the threshold
								 * from coarser blocks (coreset.h) */
	double		rest_sigmas;	/* a block's mass goes to the coreset cells
								 * it holds only if the rest of it is below
								 * this many noise sd (<= 0: always) */
	double		max_cells;		/* public cap on m^d */
	int			restarts;
	int			max_iter;
	int			screen_iter;	/* k-means restarts stop after this many
								 * Lloyd updates ... */
	int			screen_keep;	/* ... and this many of lowest cost run on
								 * (kmeans.h: dpk_kmeans_screened) */
	int			screen_points;	/* screen on a sample of about this many
								 * coreset points (0: all points) */
	int			refine_iter;	/* then at most this many Lloyd updates on
								 * the noisy histogram (dpk_lowd_refine; 0:
								 * none) */
	double		refine_shrink;	/* and their moves shrunk by this many
								 * times their noise (0: not shrunk) */
	bool		grid_candidate; /* with refine_iter: also cluster every
								 * cell of positive count, keep the lower
								 * dpk_lowd_hist_cost */
	DpkObjective objective;		/* k-means (default) or k-median of the
								 * coreset: post-processing, same noise */
	double		delta;			/* 0: pure epsilon; > 0: discrete Gaussians
								 * at rho = dpk_zcdp_rho(epsilon, delta) */
} DpkLowdConfig;

/* Defaults (doc/decisions/001-lowd-oneshot.md). */
void		dpk_lowd_defaults(DpkLowdConfig *cfg, double epsilon, int k);

/* Approximate DP: delta and the Gaussian default shares (delta 0: no change). */
void		dpk_lowd_use_delta(DpkLowdConfig *cfg, double delta);

/*
 * The multiple of RUGNIK's m the grid of a d-column one-shot uses:
 * grid_scale, times gauss_grid_scale with delta > 0 at d <= gauss_grid_max_d.
 */
double		dpk_lowd_grid_scale(const DpkLowdConfig *cfg, int d);

/*
 * The noise of a configuration: noisy N, counts and sum vectors (Laplace /
 * cube at scales sensitivity / epsilon share, or, with delta > 0, discrete
 * Gaussians of variance l2 sensitivity^2 / (2 rho share): 1 for N and counts,
 * d DPK_REL_UNITS^2 for a sum vector).
 */
void		dpk_lowd_noise(const DpkLowdConfig *cfg, int d, DpkNoise *n_noise,
						   DpkNoise *count_noise, DpkNoise *sum_noise);

/* The noisy histogram of a one-shot release and what it was made with. */
typedef struct DpkLowdHist
{
	double		noisy_n;		/* public N, or noisy N (at least 1) */
	int			cells_per_dim;	/* RUGNIK at the count noise used */
	double		count_var;		/* noise variance of a count */
	double		sum_var;		/* of a sum coordinate (0: no sums) */
	DpkDenseHist hist;			/* noisy counts and sum vectors */
} DpkLowdHist;

/*
 * The first stage of dpk_lowd_cluster, every draw of the release's noise:
 * noisy N, the grid size, and every cell's noisy count and sum vector, in
 * that order from s.  The caller frees out->hist (dpk_hist_free).
 */
void		dpk_lowd_noisy_histogram(const DpkBox *box, const double *points, size_t n,
									 const DpkLowdConfig *cfg, DpkStream *s,
									 DpkLowdHist *out);

/*
 * The one-shot's mean guard (doc/decisions/047-oneshot-mean-guard.md): k
 * centres (centers, k * d, box units) that the noisy histogram of lh shows
 * dearer than one centre at the histogram's own noisy mean by more than
 * DPK_LOWD_GUARD_Z standard deviations (dpk_hist_mean_gap, a lower bound of
 * the extra cost) are replaced by that centre, all the noisy mass on the
 * first, the others copies of it at size 0.  Returns whether it did.
 * Post-processing of the noisy histogram; nothing without noisy sums.
 */
#ifndef DPK_LOWD_GUARD_Z
#define DPK_LOWD_GUARD_Z 3.0
#endif

bool		dpk_lowd_mean_guard(const DpkBox *box, const DpkLowdHist *lh, int k,
								double *centers, double *sizes);

/*
 * The coreset of a one-shot's noisy histogram (the cells above the
 * threshold, and the residual blocks when cfg->residual) into cs, and in
 * support (lh->hist.ncells, or NULL) the cells it stands for (coreset.h).
 * Returns the threshold.  Post-processing of the noisy histogram.
 */
double		dpk_lowd_coreset(const DpkBox *box, const DpkLowdConfig *cfg,
							 const DpkLowdHist *lh, DpkCoreset *cs, bool *support);

/*
 * The one-shot refines its centres on the histogram up to this many columns
 * (doc/decisions/055-oneshot-histogram-lloyd.md).
 */
#define DPK_LOWD_REFINE_MAX_D 2

/*
 * Lloyd updates of k centres (centers, k * d, the box's units) on a noisy
 * histogram h itself (doc/decisions/055-oneshot-histogram-lloyd.md): every
 * cell of support (NULL: every cell) goes whole to the centre nearest its
 * middle, with its noisy count, signed, and its rows' noisy sum of
 * positions (count times the cell's corner plus its noisy in-cell sums);
 * each centre moves to its cells' noisy sum over their noisy count when
 * that count is above min_size, else stays.  Stops when no cell changes
 * centre or after max_iter updates; sizes (k, or NULL) get each centre's
 * noisy count, at least 0.  On a histogram without noise it is Lloyd's
 * algorithm on the cells' exact sums.  Post-processing: no draw, no
 * budget.  Returns the number of updates made.
 */
int			dpk_lowd_refine(const DpkBox *box, const DpkLowdHist *lh, const bool *support,
							int k, double min_size, int max_iter, double shrink,
							double *centers, double *sizes);

/*
 * The k-means cost of centres (k * d, the box's units) estimated on a noisy
 * histogram, less the rows' sum of squared norms (the same for any
 * centres), in the squared units of the box: every cell of support (NULL:
 * every cell) at the centre nearest its middle, its rows' |a|^2 - 2 <a, x>
 * summed from its noisy count and sums, linear in them.  Post-processing.
 */
double		dpk_lowd_hist_cost(const DpkBox *box, const DpkDenseHist *h, const bool *support,
							   int k, const double *centers);

/*
 * One-shot epsilon-DP k-means in the original space: noisy N, grid size by
 * RUGNIK, discrete Laplace on every cell's count and cube noise on its sum
 * vector, coreset of cells above the noise, weighted k-means (or weighted
 * k-median with cfg->objective DPK_OBJECTIVE_KMEDIAN, seeded by the same
 * draw of the stream, so both objectives see the same histogram).  points:
 * n * d, NaN-free (+-Inf allowed, clamped).  Exactly cfg->k centres,
 * whatever the data; up to DPK_LOWD_REFINE_MAX_D columns k-means centres
 * are refined by dpk_lowd_refine on the coreset's support, and so are the
 * k-means centres of every cell of positive noisy count; of the two the
 * lower dpk_lowd_hist_cost on the support is kept.  Then they pass
 * dpk_lowd_mean_guard (res->mean_guard_fired).
 */
void		dpk_lowd_cluster(const DpkBox *box, const double *points, size_t n,
							 const DpkLowdConfig *cfg, DpkStream *s,
							 DpkOneshotResult *res);

/*
 * The same one-shot counted as its rows arrive, for a public N
 * (cfg->public_n >= 0, else dpk_fail): the grid is known before the first
 * row, so no row is kept.  dpk_lowd_stream_begin opens the histogram,
 * dpk_lowd_stream_add counts a batch of points (clamped as dpk_lowd_cluster
 * clamps them), dpk_lowd_stream_finish draws the noise, clusters into res
 * and frees lh.  Counts and fixed-point sums are integers, so any batching
 * gives the histogram, draws and centres of dpk_lowd_cluster on all the
 * points with the same stream.
 */
void		dpk_lowd_stream_begin(const DpkBox *box, const DpkLowdConfig *cfg,
								  DpkLowdHist *lh);
void		dpk_lowd_stream_add(const DpkBox *box, DpkLowdHist *lh, const double *points,
								size_t n);

/*
 * The same without a public N, once the rows are counted: the grid's size
 * follows the noisy count of all n points, so they are kept (dp_kmeans
 * spills them to a temporary file beyond work_mem) and added after this
 * call, which draws the noisy N of n from s (nothing with a public N) and
 * opens the histogram; dpk_lowd_stream_add then counts the n points in any
 * batches and any order, and dpk_lowd_stream_finish ends it on the same s.
 * Draws and values are those of dpk_lowd_cluster on the n points with the
 * same stream.
 */
void		dpk_lowd_stream_begin_counted(const DpkBox *box, const DpkLowdConfig *cfg,
										  size_t n, DpkStream *s, DpkLowdHist *lh);
void		dpk_lowd_stream_finish(const DpkBox *box, const DpkLowdConfig *cfg,
								   DpkLowdHist *lh, DpkStream *s, DpkOneshotResult *res);

#endif
