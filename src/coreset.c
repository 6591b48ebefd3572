/*
 * coreset.c
 *		Noisy histogram -> weighted coreset; the one-shot result.
 */
#include "coreset.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"

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

/* Free a one-shot result. */
void
dpk_oneshot_result_free(DpkOneshotResult *res)
{
	dpk_free(res->centers);
	dpk_free(res->sizes);
	res->centers = NULL;
	res->sizes = NULL;
}
