/*
 * coreset.c
 *		Noisy histogram -> weighted coreset -> centres; the one-shot pipeline.
 */
#include "coreset.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "kmeans.h"
#include "rugnik.h"

/* Build the coreset of cells above the threshold (see coreset.h). */
void
dpk_coreset_from_hist(const DpkDenseHist *h, const DpkBox *box,
					  double threshold, double sum_var, DpkCoreset *out)
{
	int			d = h->d;
	uint64_t	c;
	int			n = 0;
	int64_t    *idx = dpk_alloc(d * sizeof(int64_t));
	double	   *u = dpk_alloc(d * sizeof(double));

	for (c = 0; c < h->ncells; c++)
		if ((double) h->count[c] > threshold)
			n++;

	out->d = d;
	out->n = n;
	out->points = dpk_alloc((size_t) (n ? n : 1) * d * sizeof(double));
	out->weights = dpk_alloc((size_t) (n ? n : 1) * sizeof(double));

	n = 0;
	for (c = 0; c < h->ncells; c++)
	{
		double		cnt = (double) h->count[c];
		int			j;

		if (!(cnt > threshold))
			continue;
		dpk_grid_cell_coords(d, h->m, c, idx);
		for (j = 0; j < d; j++)
		{
			double		rel = 0.5;

			if (h->sum)
			{
				/*
				 * The noisy mean offset is sum/(count*UNITS); its noise
				 * variance is sum_var/(count*UNITS)^2 against a signal spread
				 * of 1/12 for points uniform in the cell, so shrink it toward
				 * the centre by the usual signal/(signal+noise) factor.
				 */
				double		scale = cnt * h->units;
				double		mean = ((double) h->sum[c * d + j] / scale) + 0.5 / h->units;
				double		noise_var = sum_var / (scale * scale);
				double		lambda = (1.0 / 12.0) / (1.0 / 12.0 + noise_var);

				rel = 0.5 + lambda * (mean - 0.5);
				rel = rel < 0.0 ? 0.0 : (rel > 1.0 ? 1.0 : rel);
			}
			u[j] = ((double) idx[j] + rel) / h->m;
		}
		dpk_box_denormalize(box, u, out->points + (size_t) n * d);
		out->weights[n] = cnt;
		n++;
	}
	dpk_free(idx);
	dpk_free(u);
}

/* Threshold on noisy counts (see coreset.h). */
double
dpk_coreset_threshold(double sd, double sigmas, double cells)
{
	return fmax(sigmas * sd, sd / sqrt(2.0) * log(fmax(cells, 1.0)));
}

/* Free a coreset. */
void
dpk_coreset_free(DpkCoreset *c)
{
	dpk_free(c->points);
	dpk_free(c->weights);
	c->points = NULL;
	c->weights = NULL;
}

/* Defaults for dp_kmeans; the shares are settled by test/bench. */
void
dpk_oneshot_defaults(DpkOneshotConfig *cfg, double epsilon, int k)
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
}

/* One-shot epsilon-DP k-means (see coreset.h). */
void
dpk_oneshot_cluster(const DpkBox *box, const double *points, size_t n,
					const DpkOneshotConfig *cfg, DpkStream *s,
					DpkOneshotResult *res)
{
	int			d = box->d;
	double		eps_rest = cfg->epsilon;
	double		eps_count,
				eps_sum;
	double		noisy_n,
				m;
	int			max_per_dim,
				cells_per_dim;
	DpkScale	count_scale,
				sum_scale = {1, 1};
	DpkDenseHist h;
	DpkCoreset	cs;
	double	   *u = dpk_alloc(d * sizeof(double));
	double		count_var,
				sum_var = 0.0;
	size_t		i;

	/* Noisy N: a counting query of sensitivity 1, only used to size the grid. */
	if (cfg->public_n >= 0.0)
		noisy_n = cfg->public_n;
	else
	{
		double		eps_n = cfg->epsilon * cfg->n_share;

		noisy_n = (double) n
			+ (double) dpk_discrete_laplace(s, dpk_scale_from_double(1.0 / eps_n));
		eps_rest -= eps_n;
	}
	if (noisy_n < 1.0)
		noisy_n = 1.0;

	eps_sum = eps_rest * cfg->sum_share;
	eps_count = eps_rest - eps_sum;
	count_scale = dpk_scale_from_double(1.0 / eps_count);
	count_var = dpk_discrete_laplace_variance(count_scale);

	/* Grid size: RUGNIK at the noise actually put on each count. */
	m = dpk_grid_m(DPK_RULE_RUGNIK, noisy_n,
				   dpk_rugnik_eps_for_variance(count_var), cfg->k, d) * cfg->grid_scale;
	max_per_dim = (int) floor(pow(cfg->max_cells, 1.0 / d) + 1e-9);
	if (max_per_dim < 1)
		max_per_dim = 1;
	cells_per_dim = dpk_grid_cells_per_dim(DPK_RULE_RUGNIK, m, noisy_n,
										   dpk_rugnik_eps_for_variance(count_var),
										   cfg->k, d, max_per_dim);

	/*
	 * Each point adds at most DPK_REL_UNITS - 1 to each of its cell's d sums:
	 * an l-infinity sensitivity of DPK_REL_UNITS for the sum vector, which
	 * gets the vector (cube) noise.
	 */
	if (eps_sum > 0.0)
	{
		sum_scale = dpk_scale_from_double((double) DPK_REL_UNITS / eps_sum);
		sum_var = dpk_vector_noise_variance(sum_scale, d);
	}

	dpk_hist_init(&h, d, cells_per_dim, eps_sum > 0.0);
	for (i = 0; i < n; i++)
	{
		if ((i & 65535) == 0)
			dpk_check_interrupts();
		dpk_box_normalize(box, points + i * d, u);
		dpk_hist_add(&h, u);
	}
	dpk_hist_add_noise(&h, s, count_scale, sum_scale);

	dpk_coreset_from_hist(&h, box,
						  dpk_coreset_threshold(sqrt(count_var), cfg->threshold_sigmas,
												(double) h.ncells),
						  sum_var, &cs);
	dpk_hist_free(&h);

	res->noisy_n = noisy_n;
	res->cells_per_dim = cells_per_dim;
	res->cells = dpk_grid_cells(d, cells_per_dim);
	res->coreset_size = cs.n;
	res->centers = dpk_alloc((size_t) cfg->k * d * sizeof(double));
	res->sizes = dpk_alloc((size_t) cfg->k * sizeof(double));
	if (cs.n > 0)
		dpk_kmeans(cs.points, cs.weights, cs.n, d, cfg->k, cfg->restarts,
				   cfg->max_iter, dpk_stream_u64(s), res->centers, res->sizes);
	else
	{
		/* Nothing rose above the noise: every centre at the box centre. */
		int			c,
					j;

		for (j = 0; j < d; j++)
			u[j] = 0.5;
		for (c = 0; c < cfg->k; c++)
		{
			dpk_box_denormalize(box, u, res->centers + (size_t) c * d);
			res->sizes[c] = 0.0;
		}
	}
	dpk_coreset_free(&cs);
	dpk_free(u);
}

/* Free a one-shot result. */
void
dpk_oneshot_result_free(DpkOneshotResult *res)
{
	dpk_free(res->centers);
	dpk_free(res->sizes);
	res->centers = NULL;
	res->sizes = NULL;
}
