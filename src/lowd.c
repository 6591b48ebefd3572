/*
 * lowd.c
 *		The low-dimensional one-shot pipeline: noisy grid -> coreset ->
 *		weighted k-means (see lowd.h).
 */
#include "lowd.h"

#include <math.h>

#include "budget.h"
#include "dpk_mem.h"
#include "kmeans.h"
#include "rugnik.h"

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
	cfg->threshold_sigmas = 2.0;
	cfg->max_cells = 4194304.0;
	cfg->restarts = 20;
	cfg->max_iter = 100;
	cfg->objective = DPK_OBJECTIVE_KMEANS;
}

/* The public N, or a noisy count (sensitivity 1) on eps_n; at least 1. */
static double
lowd_noisy_n(const DpkLowdConfig *cfg, size_t n, double eps_n, DpkStream *s)
{
	double		noisy_n;

	if (cfg->public_n >= 0.0)
		noisy_n = cfg->public_n;
	else
		noisy_n = (double) n
			+ (double) dpk_discrete_laplace(s, dpk_scale_from_double(1.0 / eps_n));
	return noisy_n < 1.0 ? 1.0 : noisy_n;
}

/* Cells per dimension: RUGNIK at the noise actually put on each count. */
static int
lowd_cells_per_dim(const DpkLowdConfig *cfg, int d, double noisy_n, double count_var)
{
	double		m;
	int			max_per_dim;

	m = dpk_grid_m(DPK_RULE_RUGNIK, noisy_n,
				   dpk_rugnik_eps_for_variance(count_var), cfg->k, d) * cfg->grid_scale;
	max_per_dim = (int) floor(pow(cfg->max_cells, 1.0 / d) + 1e-9);
	if (max_per_dim < 1)
		max_per_dim = 1;
	return dpk_grid_cells_per_dim(DPK_RULE_RUGNIK, m, noisy_n,
								  dpk_rugnik_eps_for_variance(count_var),
								  cfg->k, d, max_per_dim);
}

/* Count every point into a fresh grid, then noise on every cell. */
static void
lowd_histogram(const DpkBox *box, const double *points, size_t n, int cells_per_dim,
			   bool with_sums, DpkScale count_scale, DpkScale sum_scale,
			   DpkStream *s, DpkDenseHist *h)
{
	int			d = box->d;
	double	   *u = dpk_alloc(d * sizeof(double));
	size_t		i;

	dpk_hist_init(h, d, cells_per_dim, with_sums);
	for (i = 0; i < n; i++)
	{
		if ((i & 65535) == 0)
			dpk_check_interrupts();
		dpk_box_normalize(box, points + i * d, u);
		dpk_hist_add(h, u);
	}
	dpk_hist_add_noise(h, s, count_scale, sum_scale);
	dpk_free(u);
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
		dpk_kmedian(cs->points, cs->weights, cs->n, d, cfg->k, cfg->restarts,
					cfg->max_iter, dpk_stream_u64(s), res->centers, res->sizes);
	else if (cs->n > 0)
		dpk_kmeans(cs->points, cs->weights, cs->n, d, cfg->k, cfg->restarts,
				   cfg->max_iter, dpk_stream_u64(s), res->centers, res->sizes);
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

/* One-shot epsilon-DP k-means in the original space (see lowd.h). */
void
dpk_lowd_cluster(const DpkBox *box, const double *points, size_t n,
				 const DpkLowdConfig *cfg, DpkStream *s, DpkOneshotResult *res)
{
	int			d = box->d;
	DpkLowdBudget eps = dpk_budget_lowd(cfg);
	double		noisy_n;
	int			cells_per_dim;
	DpkScale	count_scale,
				sum_scale = {1, 1};
	DpkDenseHist h;
	DpkCoreset	cs;
	double		count_var,
				sum_var = 0.0;

	noisy_n = lowd_noisy_n(cfg, n, eps.eps_n, s);
	count_scale = dpk_scale_from_double(1.0 / eps.eps_count);
	count_var = dpk_discrete_laplace_variance(count_scale);
	cells_per_dim = lowd_cells_per_dim(cfg, d, noisy_n, count_var);

	/*
	 * Each point adds at most DPK_REL_UNITS - 1 to each of its cell's d sums:
	 * an l-infinity sensitivity of DPK_REL_UNITS for the sum vector, which
	 * gets the vector (cube) noise.
	 */
	if (eps.eps_sum > 0.0)
	{
		sum_scale = dpk_scale_from_double((double) DPK_REL_UNITS / eps.eps_sum);
		sum_var = dpk_vector_noise_variance(sum_scale, d);
	}

	lowd_histogram(box, points, n, cells_per_dim, eps.eps_sum > 0.0, count_scale, sum_scale,
				   s, &h);
	dpk_coreset_from_hist(&h, box,
						  dpk_coreset_threshold(sqrt(count_var), cfg->threshold_sigmas,
												(double) h.ncells),
						  sum_var, &cs);
	dpk_hist_free(&h);

	res->noisy_n = noisy_n;
	res->cells_per_dim = cells_per_dim;
	res->cells = dpk_grid_cells(d, cells_per_dim);
	res->coreset_size = cs.n;
	lowd_centres(box, cfg, &cs, s, res);
	dpk_coreset_free(&cs);
}
