/*
 * lowd.c
 *		The low-dimensional one-shot pipeline: noisy grid -> coreset ->
 *		weighted k-means (see lowd.h).
 */
#include "lowd.h"
#include "lowd_refine.h"

#include <math.h>
#include <string.h>

#include "lowd_budget.h"
#include "dpk_mem.h"
#include "kmeans.h"
#include "rugnik.h"
#include "zcdp.h"

/*
 * Screened k-means restarts of the one-shot
 * (doc/decisions/033-oneshot-screened-restarts.md).
 */
#ifndef DPK_LOWD_SCREEN_ITER
#define DPK_LOWD_SCREEN_ITER 5
#endif
#define DPK_LOWD_SCREEN_KEEP 3
/* Coreset points the screening sees: about one in stride beyond this. */
#ifndef DPK_LOWD_SCREEN_POINTS
#define DPK_LOWD_SCREEN_POINTS 4096
#endif

/*
 * A residual block gives its mass to the coreset cells it holds only when
 * the rest of it is noise at this many sd; up to d = 3 only, where a
 * cluster's tails lie in few sub-blocks around its dense cells
 * (doc/decisions/043-oneshot-background-near-hotspots.md).
 */
#ifndef DPK_LOWD_REST_SIGMAS
#define DPK_LOWD_REST_SIGMAS 3.0
#endif
#define DPK_LOWD_REST_MAX_D 3

/*
 * Lloyd updates of the one-shot's centres on its noisy histogram, at most
 * (doc/decisions/055-oneshot-histogram-lloyd.md).
 */
#ifndef DPK_LOWD_REFINE_ITER
#define DPK_LOWD_REFINE_ITER 10
#endif
#ifndef DPK_LOWD_REFINE_SHRINK
#define DPK_LOWD_REFINE_SHRINK 1.0
#endif

/*
 * With delta > 0 the grid at d <= DPK_LOWD_GAUSS_GRID_MAX_D is this multiple
 * of RUGNIK's size: the in-cell sums (and the Lloyd updates on them) place
 * the rows better than cell middles, so fewer, fuller cells pay where the
 * Gaussian count noise is the larger
 * (doc/decisions/078-oneshot-gauss-coarser-grid.md).
 */
#ifndef DPK_LOWD_GAUSS_GRID_SCALE
#define DPK_LOWD_GAUSS_GRID_SCALE 0.7
#endif
#ifndef DPK_LOWD_GAUSS_GRID_MAX_D
#define DPK_LOWD_GAUSS_GRID_MAX_D 3
#endif

/* Defaults for dp_kmeans below DPK_HIGHD_MIN_D. */
void
dpk_lowd_defaults(DpkLowdConfig *cfg, double epsilon, int k)
{
	cfg->epsilon = epsilon;
	cfg->k = k;
	cfg->public_n = -1.0;
	cfg->n_share = 0.05;
	cfg->sum_share = 0.5;
	cfg->grid_scale = 1.0;
	cfg->gauss_grid_scale = DPK_LOWD_GAUSS_GRID_SCALE;
	cfg->gauss_grid_max_d = DPK_LOWD_GAUSS_GRID_MAX_D;
	cfg->threshold_sigmas = 2.0;
	cfg->residual = true;
	cfg->rest_sigmas = DPK_LOWD_REST_SIGMAS;
	cfg->max_cells = DPK_DEFAULT_MAX_CELLS;
	cfg->restarts = 20;
	cfg->max_iter = 100;
	cfg->screen_iter = DPK_LOWD_SCREEN_ITER;
	cfg->screen_keep = DPK_LOWD_SCREEN_KEEP;
	cfg->screen_points = DPK_LOWD_SCREEN_POINTS;
	cfg->refine_iter = DPK_LOWD_REFINE_ITER;
	cfg->refine_shrink = DPK_LOWD_REFINE_SHRINK;
	cfg->grid_candidate = true;
	cfg->objective = DPK_OBJECTIVE_KMEANS;
	cfg->delta = 0.0;
}

/* Approximate DP (see lowd.h); the shares stay those of pure epsilon. */
void
dpk_lowd_use_delta(DpkLowdConfig *cfg, double delta)
{
	cfg->delta = delta;
}

/* RUGNIK's multiple for a d-column grid (see lowd.h). */
double
dpk_lowd_grid_scale(const DpkLowdConfig *cfg, int d)
{
	if (cfg->delta > 0.0 && d <= cfg->gauss_grid_max_d)
		return cfg->grid_scale * cfg->gauss_grid_scale;
	return cfg->grid_scale;
}

/*
 * The three noise families (see lowd.h).  With delta > 0 the shares of
 * dpk_budget_lowd split rho instead of epsilon (zCDP composes additively).
 */
void
dpk_lowd_noise(const DpkLowdConfig *cfg, int d, DpkNoise *n_noise,
			   DpkNoise *count_noise, DpkNoise *sum_noise)
{
	DpkLowdBudget b;
	DpkScale	one = {1, 1};
	DpkGaussScale gone = {1, 1};

	if (cfg->delta > 0.0)
	{
		DpkLowdConfig z = *cfg;

		z.epsilon = dpk_zcdp_rho(cfg->epsilon, cfg->delta);
		b = dpk_budget_lowd(&z);
		*n_noise = dpk_noise_gauss(b.eps_n > 0.0
								   ? dpk_gauss_scale_from_double(dpk_zcdp_sigma2(1.0, b.eps_n))
								   : gone);
		*count_noise = dpk_noise_gauss(dpk_gauss_scale_from_double(dpk_zcdp_sigma2(1.0, b.eps_count)));
		*sum_noise = dpk_noise_gauss(b.eps_sum > 0.0
									 ? dpk_gauss_scale_from_double(dpk_zcdp_sigma2((double) d * DPK_REL_UNITS * DPK_REL_UNITS, b.eps_sum))
									 : gone);
		return;
	}
	b = dpk_budget_lowd(cfg);
	*n_noise = dpk_noise_laplace(b.eps_n > 0.0 ? dpk_scale_from_double(1.0 / b.eps_n) : one);
	*count_noise = dpk_noise_laplace(dpk_scale_from_double(1.0 / b.eps_count));
	*sum_noise = dpk_noise_laplace(b.eps_sum > 0.0
								   ? dpk_scale_from_double((double) DPK_REL_UNITS / b.eps_sum)
								   : one);
}

/* The public N, or a noisy count (sensitivity 1); at least 1. */
static double
lowd_noisy_n(const DpkLowdConfig *cfg, size_t n, const DpkNoise *nn, DpkStream *s)
{
	double		noisy_n;

	if (cfg->public_n >= 0.0)
		noisy_n = cfg->public_n;
	else
		noisy_n = (double) n + (double) dpk_noise_draw(s, nn);
	return noisy_n < 1.0 ? 1.0 : noisy_n;
}

/* Cells per dimension: RUGNIK at the noise actually put on each count. */
static int
lowd_cells_per_dim(const DpkLowdConfig *cfg, int d, double noisy_n, double count_var)
{
	double		m;
	int			max_per_dim;

	m = dpk_grid_m(DPK_RULE_RUGNIK, noisy_n,
				   dpk_rugnik_eps_for_variance(count_var), cfg->k, d) * dpk_lowd_grid_scale(cfg, d);
	max_per_dim = (int) floor(pow(cfg->max_cells, 1.0 / d) + 1e-9);
	if (max_per_dim < 1)
		max_per_dim = 1;
	return dpk_grid_cells_per_dim(DPK_RULE_RUGNIK, m, noisy_n,
								  dpk_rugnik_eps_for_variance(count_var),
								  cfg->k, d, max_per_dim);
}

/* Noise on every cell's count and sum vector, in cell order. */
static void
lowd_hist_noise(DpkDenseHist *h, const DpkNoise *count_noise, const DpkNoise *sum_noise,
				DpkStream *s)
{
	uint64_t	c;

	if (!count_noise->gauss)
	{
		dpk_hist_add_noise(h, s, count_noise->lap, sum_noise->lap);
		return;
	}
	for (c = 0; c < h->ncells; c++)
	{
		if ((c & 4095) == 0)
			dpk_check_interrupts();
		h->count[c] += dpk_noise_draw(s, count_noise);
		if (h->sum)
			dpk_noise_add_vector(s, sum_noise, h->d, 1, h->sum + c * h->d);
	}
}

/*
 * The grid of a one-shot from its (public or noisy) N: the count and sum
 * noise variances, the RUGNIK size at that count noise, and an empty
 * histogram of that size in out.
 */
static void
lowd_hist_open(const DpkLowdConfig *cfg, int d, double noisy_n, const DpkNoise *count_noise,
			   const DpkNoise *sum_noise, DpkLowdHist *out)
{
	DpkLowdBudget eps = dpk_budget_lowd(cfg);

	out->noisy_n = noisy_n;
	out->count_var = dpk_noise_variance(count_noise, 0);
	out->cells_per_dim = lowd_cells_per_dim(cfg, d, out->noisy_n, out->count_var);
	out->sum_var = eps.eps_sum > 0.0 ? dpk_noise_variance(sum_noise, d) : 0.0;
	dpk_hist_init(&out->hist, d, out->cells_per_dim, eps.eps_sum > 0.0);
}

/*
 * Weighted k-means (or k-median) of the coreset into res, or every centre at
 * the box middle.
 */
static void
lowd_centres(const DpkBox *box, const DpkLowdConfig *cfg, const DpkCoreset *cs,
			 DpkStream *s, DpkOneshotResult *res)
{
	int			d = box->d;

	res->centers = dpk_alloc((size_t) cfg->k * d * sizeof(double));
	res->sizes = dpk_alloc((size_t) cfg->k * sizeof(double));
	if (cs->n > 0 && cfg->objective == DPK_OBJECTIVE_KMEDIAN)
		dpk_kmedian(&(DpkPoints) {cs->points, cs->weights, cs->n, d},
					&(DpkClusterOpts) {cfg->k, cfg->restarts, cfg->max_iter, dpk_stream_u64(s)},
					&(DpkClusterOut) {res->centers, res->sizes});
	else if (cs->n > 0)
	{
		/* screen on a sample of the coreset when it is large (record 035) */
		int			stride = cfg->screen_points > 0 && cs->n > cfg->screen_points
			? (cs->n + cfg->screen_points - 1) / cfg->screen_points : 1;

		dpk_kmeans_screened_sample(&(DpkPoints) {cs->points, cs->weights, cs->n, d},
								   &(DpkClusterOpts) {cfg->k, cfg->restarts, cfg->max_iter, dpk_stream_u64(s)},
								   cfg->screen_iter, cfg->screen_keep, stride,
								   &(DpkClusterOut) {res->centers, res->sizes});
	}
	else
	{
		/* Nothing rose above the noise: every centre at the box centre. */
		double	   *u = dpk_alloc(d * sizeof(double));
		int			c,
					j;

		for (j = 0; j < d; j++)
			u[j] = 0.5;
		for (c = 0; c < cfg->k; c++)
		{
			dpk_box_denormalize(box, u, res->centers + (size_t) c * d);
			res->sizes[c] = 0.0;
		}
		dpk_free(u);
	}
}

/* The noisy histogram of a one-shot release (see lowd.h). */
void
dpk_lowd_noisy_histogram(const DpkBox *box, const double *points, size_t n,
						 const DpkLowdConfig *cfg, DpkStream *s, DpkLowdHist *out)
{
	DpkNoise	n_noise,
				count_noise,
				sum_noise;

	/*
	 * Each point adds at most DPK_REL_UNITS - 1 to each of its cell's d sums:
	 * an l-infinity sensitivity of DPK_REL_UNITS for the sum vector (cube
	 * noise), or an l2 one of sqrt(d) DPK_REL_UNITS (Gaussian).
	 */
	dpk_lowd_noise(cfg, box->d, &n_noise, &count_noise, &sum_noise);
	lowd_hist_open(cfg, box->d, lowd_noisy_n(cfg, n, &n_noise, s), &count_noise, &sum_noise,
				   out);
	dpk_hist_add_points(&out->hist, box, points, n);
	lowd_hist_noise(&out->hist, &count_noise, &sum_noise, s);
}

/* The one-shot's mean guard (see lowd.h). */
bool
dpk_lowd_mean_guard(const DpkBox *box, const DpkLowdHist *lh, int k, double *centers,
					double *sizes)
{
	const DpkDenseHist *h = &lh->hist;
	int			d = box->d,
				m = h->m,
				i,
				j;
	double		su = 1.0 / ((double) h->units * m),
				total = 0.0,
				gap,
				sd;
	double	   *b = dpk_alloc0(sizeof(double) * d),
			   *w2 = dpk_alloc(sizeof(double) * d),
			   *a = dpk_alloc(sizeof(double) * (size_t) k * d);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * d);
	uint64_t	c;
	bool		fired = false;

	if (h->sum != NULL)
	{
		/* the one centre: the noisy mean of every cell (positions as in grid.h) */
		for (c = 0; c < h->ncells; c++)
		{
			dpk_grid_cell_coords(d, m, c, idx);
			total += (double) h->count[c];
			for (j = 0; j < d; j++)
				b[j] += (double) h->count[c] * ((double) idx[j] + 0.5 / (double) h->units) / m +
					su * (double) h->sum[c * d + j];
		}
	}
	if (h->sum != NULL && total > 0.0)
	{
		for (j = 0; j < d; j++)
		{
			b[j] = fmin(1.0, fmax(0.0, b[j] / total));
			w2[j] = (box->upper[j] - box->lower[j]) * (box->upper[j] - box->lower[j]);
		}
		for (i = 0; i < k; i++)
			dpk_box_normalize(box, centers + (size_t) i * d, a + (size_t) i * d);
		gap = dpk_hist_mean_gap(h, w2, lh->count_var, lh->sum_var, k, a, b, &sd);
		if (gap > DPK_LOWD_GUARD_Z * sd)
		{
			for (i = 0; i < k; i++)
			{
				dpk_box_denormalize(box, b, centers + (size_t) i * d);
				sizes[i] = i == 0 ? total : 0.0;
			}
			fired = true;
		}
	}
	dpk_free(b);
	dpk_free(w2);
	dpk_free(a);
	dpk_free(idx);
	return fired;
}

/* The coreset of a one-shot's noisy histogram (see lowd.h). */
double
dpk_lowd_coreset(const DpkBox *box, const DpkLowdConfig *cfg, const DpkLowdHist *lh,
				 DpkCoreset *cs, bool *support)
{
	int			d = box->d;
	double		threshold;
	uint64_t	c;

	threshold = dpk_coreset_threshold(sqrt(lh->count_var), cfg->threshold_sigmas,
									  (double) lh->hist.ncells);
	dpk_coreset_from_hist(&lh->hist, box, threshold, lh->sum_var, cs);
	if (cfg->residual)
		dpk_coreset_add_residual(&lh->hist, box, threshold, sqrt(lh->count_var),
								 cfg->threshold_sigmas,
								 d <= DPK_LOWD_REST_MAX_D ? cfg->rest_sigmas : 0.0, cs,
								 support);
	else
		for (c = 0; support != NULL && c < lh->hist.ncells; c++)
			support[c] = (double) lh->hist.count[c] > threshold;
	return threshold;
}

/* Whether two coresets hold the same weighted points in the same order. */
static bool
coreset_same(const DpkCoreset *a, const DpkCoreset *b)
{
	return a->n == b->n && a->d == b->d &&
		memcmp(a->weights, b->weights, sizeof(double) * (size_t) a->n) == 0 &&
		memcmp(a->points, b->points, sizeof(double) * (size_t) a->n * a->d) == 0;
}

/*
 * Everything after the noisy histogram: the coreset of the cells above the
 * noise (and the residual blocks), the centres, their Lloyd updates on the
 * histogram, the mean guard.  Frees lh.
 */
static void
lowd_cluster_hist(const DpkBox *box, const DpkLowdConfig *cfg, DpkLowdHist *lh, DpkStream *s,
				  DpkOneshotResult *res)
{
	int			d = box->d;
	DpkCoreset	cs;
	double		threshold;
	bool		refine = cfg->refine_iter > 0 && d <= DPK_LOWD_REFINE_MAX_D &&
		cfg->objective != DPK_OBJECTIVE_KMEDIAN;
	bool	   *support = refine
		? dpk_alloc(sizeof(bool) * (lh->hist.ncells ? lh->hist.ncells : 1)) : NULL;

	threshold = dpk_lowd_coreset(box, cfg, lh, &cs, support);

	res->noisy_n = lh->noisy_n;
	res->cells_per_dim = lh->cells_per_dim;
	res->cells = dpk_grid_cells(d, lh->cells_per_dim);
	res->coreset_size = cs.n;
	/*
	 * The mass below the threshold is spread over many small weighted
	 * points; a centre that gathers less than one cell's threshold is noise.
	 */
	res->min_size = threshold;
	lowd_centres(box, cfg, &cs, s, res);
	/* the coreset's shares of the mass below the threshold are a guess */
	if (refine && cs.n > 0)
	{
		DpkCoreset	g;
		LowdCells	lc;

		/* the support's cells, computed once for every pass below */
		dpk_lowd_cells_build(&lh->hist, support, &lc);
		dpk_lowd_refine_cells(box, lh, &lc, cfg->k, threshold, cfg->refine_iter,
						  cfg->refine_shrink, res->centers, res->sizes);
		/*
		 * A second candidate: the k-means of every cell of positive noisy
		 * count, as a plain grid has it, refined alike; the lower estimated
		 * cost on the histogram wins.
		 */
		dpk_coreset_from_hist(&lh->hist, box, 0.0, lh->sum_var, &g);
		/* the coreset's own points: only other restarts of one k-means (record 085) */
		if (cfg->grid_candidate && g.n > 0 && !coreset_same(&g, &cs))
		{
			DpkOneshotResult gr = {0};

			lowd_centres(box, cfg, &g, s, &gr);
			dpk_lowd_refine_cells(box, lh, &lc, cfg->k, threshold, cfg->refine_iter,
							  cfg->refine_shrink, gr.centers, gr.sizes);
			if (dpk_lowd_hist_cost_cells(box, &lh->hist, &lc, cfg->k, gr.centers) <
				dpk_lowd_hist_cost_cells(box, &lh->hist, &lc, cfg->k, res->centers))
			{
				memcpy(res->centers, gr.centers, sizeof(double) * (size_t) cfg->k * d);
				memcpy(res->sizes, gr.sizes, sizeof(double) * cfg->k);
			}
			dpk_oneshot_result_free(&gr);
		}
		dpk_coreset_free(&g);
		dpk_lowd_cells_free(&lc);
	}
	if (support)
		dpk_free(support);
	res->mean_guard_fired = cfg->objective != DPK_OBJECTIVE_KMEDIAN &&
		dpk_lowd_mean_guard(box, lh, cfg->k, res->centers, res->sizes);
	dpk_hist_free(&lh->hist);
	dpk_coreset_free(&cs);
}

/* One-shot epsilon-DP k-means in the original space (see lowd.h). */
void
dpk_lowd_cluster(const DpkBox *box, const double *points, size_t n,
				 const DpkLowdConfig *cfg, DpkStream *s, DpkOneshotResult *res)
{
	DpkLowdHist lh;

	dpk_lowd_noisy_histogram(box, points, n, cfg, s, &lh);
	lowd_cluster_hist(box, cfg, &lh, s, res);
}

/* Open a one-shot of public N before its rows (see lowd.h). */
void
dpk_lowd_stream_begin(const DpkBox *box, const DpkLowdConfig *cfg, DpkLowdHist *lh)
{
	if (cfg->public_n < 0.0)
		dpk_fail("a one-shot counts its rows as they arrive only with a public N");
	/* a public N draws nothing: the stream is not needed yet */
	dpk_lowd_stream_begin_counted(box, cfg, 0, NULL, lh);
}

/* Open a one-shot whose n rows are known but not yet added (see lowd.h). */
void
dpk_lowd_stream_begin_counted(const DpkBox *box, const DpkLowdConfig *cfg, size_t n,
							  DpkStream *s, DpkLowdHist *lh)
{
	DpkNoise	n_noise,
				count_noise,
				sum_noise;

	/* the first draw of dpk_lowd_noisy_histogram, before any point is added */
	dpk_lowd_noise(cfg, box->d, &n_noise, &count_noise, &sum_noise);
	lowd_hist_open(cfg, box->d, lowd_noisy_n(cfg, n, &n_noise, s), &count_noise,
				   &sum_noise, lh);
}

/* Count a batch of points (see lowd.h). */
void
dpk_lowd_stream_add(const DpkBox *box, DpkLowdHist *lh, const double *points, size_t n)
{
	dpk_hist_add_points(&lh->hist, box, points, n);
}

/* Noise and centres of a counted one-shot (see lowd.h). */
void
dpk_lowd_stream_finish(const DpkBox *box, const DpkLowdConfig *cfg, DpkLowdHist *lh,
					   DpkStream *s, DpkOneshotResult *res)
{
	DpkNoise	n_noise,
				count_noise,
				sum_noise;

	dpk_lowd_noise(cfg, box->d, &n_noise, &count_noise, &sum_noise);
	lowd_hist_noise(&lh->hist, &count_noise, &sum_noise, s);
	lowd_cluster_hist(box, cfg, lh, s, res);
}
