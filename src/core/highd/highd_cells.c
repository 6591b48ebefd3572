/*
 * highd_cells.c
 *		One copy's projected cells clustered again in the original space,
 *		from their lifted means (see highd.h, dpk_highd_cells_space).
 */
#include "highd.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "kmeans.h"

/*
 * The smallest noisy count whose lifted mean is a point of the original-space
 * coreset: the mean's noise, d sum_var / count^2 in squared norm, at most
 * noise2 (normalized units); never below min_count.
 */
double
dpk_highd_point_count(int d, double sum_var, double noise2, double min_count)
{
	double		c = noise2 > 0.0 ? sqrt(d * sum_var / noise2) : INFINITY;

	return c > min_count ? c : min_count;
}

/*
 * Cells of a copy clustered in the original space (see highd.h): the cells
 * whose noisy count reaches point_count become points at their lifted means
 * (1/2 + sum / count, clamped into [0,1]^d) weighted by that count; weighted
 * k-means of them gives k centres, every cell that assign[] keeps (>= 0) goes
 * to the centre nearest its lifted mean (heavy enough cells) or, lighter, to
 * the centre whose image under the projection is nearest the cell's middle
 * (a light cell's mean is mostly noise, its place in the projected grid is
 * exact).  Noisy values and public parameters only: post-processing.
 */
int
dpk_highd_cells_space(const DpkProjection *p, int m, const double *count,
					  const double *sum, double point_count, const DpkClusterOpts *opt,
					  double *centers, int *assign)
{
	int			k = opt->k,
				restarts = opt->restarts,
				max_iter = opt->max_iter;
	uint64_t	seed = opt->seed;
	int			d = p->d,
				dhat = p->dhat,
				n = 0,
				i,
				j;
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, m)),
				c;
	double	   *pts,
			   *w,
			   *pcent = dpk_alloc(sizeof(double) * (size_t) k * dhat),
			   *tc = dpk_alloc(sizeof(double) * dhat),
			   *x = dpk_alloc(sizeof(double) * d);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);

	for (c = 0; c < ncells; c++)
		if (assign[c] >= 0 && count[c] >= point_count && count[c] > 0.0)
			n++;
	if (n < k)
	{
		dpk_free(pcent);
		dpk_free(tc);
		dpk_free(x);
		dpk_free(idx);
		return n;
	}
	pts = dpk_alloc(sizeof(double) * (size_t) n * d);
	w = dpk_alloc(sizeof(double) * n);
	i = 0;
	for (c = 0; c < ncells; c++)
	{
		if (!(assign[c] >= 0 && count[c] >= point_count && count[c] > 0.0))
			continue;
		for (j = 0; j < d; j++)
			pts[(size_t) i * d + j] = fmin(1.0, fmax(0.0, 0.5 + sum[c * d + j] / count[c]));
		w[i++] = count[c];
	}
	dpk_kmeans(&(DpkPoints) {pts, w, n, d},
			   &(DpkClusterOpts) {k, restarts, max_iter, seed},
			   &(DpkClusterOut) {centers, NULL});
	dpk_project_batch(p, centers, (size_t) k, pcent);

	for (c = 0; c < ncells; c++)
	{
		if (assign[c] < 0)
			continue;
		if (count[c] >= point_count && count[c] > 0.0)
		{
			for (j = 0; j < d; j++)
				x[j] = fmin(1.0, fmax(0.0, 0.5 + sum[c * d + j] / count[c]));
			assign[c] = dpk_highd_nearest(x, centers, k, d);
		}
		else
		{
			dpk_grid_cell_coords(dhat, m, c, idx);
			for (j = 0; j < dhat; j++)
				tc[j] = ((double) idx[j] + 0.5) / m;
			assign[c] = dpk_highd_nearest(tc, pcent, k, dhat);
		}
	}
	dpk_free(pts);
	dpk_free(w);
	dpk_free(pcent);
	dpk_free(tc);
	dpk_free(x);
	dpk_free(idx);
	return n;
}
