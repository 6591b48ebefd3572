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

/* Make room for `more` points after the coreset's n. */
static void
coreset_grow(DpkCoreset *cs, int more)
{
	double	   *p = dpk_alloc((size_t) (cs->n + more) * cs->d * sizeof(double));
	double	   *w = dpk_alloc((size_t) (cs->n + more) * sizeof(double));

	if (cs->n > 0)
	{
		memcpy(p, cs->points, (size_t) cs->n * cs->d * sizeof(double));
		memcpy(w, cs->weights, (size_t) cs->n * sizeof(double));
	}
	dpk_free(cs->points);
	dpk_free(cs->weights);
	cs->points = p;
	cs->weights = w;
}

/* Block number of cell idx at block width b (per_dim blocks per dimension). */
static uint64_t
residual_block(int d, const int64_t *idx, int b, int per_dim)
{
	uint64_t	blk = 0;
	int			j;

	for (j = 0; j < d; j++)
		blk = blk * (uint64_t) per_dim + (uint64_t) (idx[j] / b);
	return blk;
}

/* Gather the sub-threshold mass from coarser blocks (see coreset.h). */
void
dpk_coreset_add_residual(const DpkDenseHist *h, const DpkBox *box,
						 double threshold, double sd, double sigmas,
						 DpkCoreset *cs)
{
	int			d = h->d;
	int			m = h->m;
	int64_t    *idx = dpk_alloc(d * sizeof(int64_t));
	double	   *u = dpk_alloc(d * sizeof(double));
	bool	   *left = dpk_alloc((h->ncells ? h->ncells : 1) * sizeof(bool));
	uint64_t	c;
	int			b;

	for (c = 0; c < h->ncells; c++)
		left[c] = !((double) h->count[c] > threshold);

	for (b = 2; b / 2 < m; b *= 2)
	{
		int			per_dim = (m + b - 1) / b;
		uint64_t	nblocks = 1;
		double	   *sum,
				   *ncell,
				   *pos;
		uint64_t	blk;
		int			j,
					more = 0;
		bool		any = false;

		for (j = 0; j < d; j++)
			nblocks *= (uint64_t) per_dim;
		sum = dpk_alloc0(nblocks * sizeof(double));
		ncell = dpk_alloc0(nblocks * sizeof(double));
		pos = dpk_alloc0(nblocks * sizeof(double));
		for (c = 0; c < h->ncells; c++)
		{
			if ((c & 65535) == 0)
				dpk_check_interrupts();
			dpk_grid_cell_coords(d, m, c, idx);
			blk = residual_block(d, idx, b, per_dim);
			if (left[c])
			{
				ncell[blk] += 1.0;
				sum[blk] += (double) h->count[c];
				pos[blk] += h->count[c] > 0 ? (double) h->count[c] : 0.0;
			}
		}
		for (blk = 0; blk < nblocks; blk++)
		{
			/* a kept block is marked by a negative cell number */
			if (sum[blk] > dpk_coreset_threshold(sd * sqrt(ncell[blk]), sigmas,
												 (double) nblocks))
			{
				ncell[blk] = -1.0;
				any = true;
			}
		}
		if (any)
		{
			/*
			 * A kept block's sum goes to its left cells with positive noisy
			 * counts, in proportion to them: the block's mass where the
			 * noisy counts put it (each cell's own count when there is no
			 * noise), instead of one point at the block's centre.
			 */
			for (c = 0; c < h->ncells; c++)
				if (left[c] && h->count[c] > 0)
				{
					dpk_grid_cell_coords(d, m, c, idx);
					if (ncell[residual_block(d, idx, b, per_dim)] < 0.0)
						more++;
				}
			coreset_grow(cs, more);
			for (c = 0; c < h->ncells; c++)
			{
				if (!left[c])
					continue;
				dpk_grid_cell_coords(d, m, c, idx);
				blk = residual_block(d, idx, b, per_dim);
				if (ncell[blk] >= 0.0)
					continue;
				left[c] = false;
				if (h->count[c] <= 0)
					continue;
				for (j = 0; j < d; j++)
					u[j] = ((double) idx[j] + 0.5) / m;
				dpk_box_denormalize(box, u, cs->points + (size_t) cs->n * d);
				cs->weights[cs->n] = sum[blk] * (double) h->count[c] / pos[blk];
				cs->n++;
			}
		}
		dpk_free(sum);
		dpk_free(ncell);
		dpk_free(pos);
	}
	dpk_free(idx);
	dpk_free(u);
	dpk_free(left);
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
