/*
 * hist_gap.c
 *		The estimate of the mean guards: how much more k centres cost than
 *		one centre on a noisy histogram (see grid.h).
 */
#include "grid.h"

#include <math.h>
#include <stdbool.h>

#include "dpk_mem.h"

/*
 * The mean guard's estimate on one histogram (see grid.h).  A row at
 * in-cell offset q (fixed point) sits at (idx + (q + 1/2) / U) / m, so a
 * cell's sum of positions is n_c o_c + s_c / (U m) with o_c = (idx +
 * 1/(2U)) / m.  Each grid vertex v gets its nearest centre and g(v) =
 * min_j |a_j - v|^2 - |b - v|^2.  A cell whose corners all have the same
 * nearest centre a lies in its Voronoi region (regions are convex), so its
 * rows' extra cost over b is exactly n_c (|a - o_c|^2 - |b - o_c|^2) - 2
 * <a - b, s_c> / (U m), linear in the noisy count and sums.  Otherwise a
 * row's extra cost min_j (|a_j|^2 - |b|^2 - 2 <a_j - b, x>) is concave in
 * x, so at least its smallest value at a corner: n_c min_v g(v), linear in
 * the count.  The sum is unbiased for a lower bound of the extra cost.
 */
double
dpk_hist_mean_gap(const DpkDenseHist *h, const double *w2, double count_var, double sum_var,
				  int k, const double *a, const double *b, double *sd)
{
	int			d = h->d,
				m = h->m,
				i,
				j,
				corner;
	uint64_t	nv = 1,
				v,
				c;
	double		su = 1.0 / ((double) h->units * m),
				gap = 0.0,
				var = 0.0,
			   *ab2 = dpk_alloc(sizeof(double) * k),
			   *x = dpk_alloc(sizeof(double) * d),
			   *g;
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * d);
	uint64_t   *stride = dpk_alloc(sizeof(uint64_t) * d);
	int		   *near;

	for (j = d - 1; j >= 0; j--)
	{
		stride[j] = nv;
		nv *= (uint64_t) m + 1;
	}
	g = dpk_alloc(sizeof(double) * nv);
	near = dpk_alloc(sizeof(int) * nv);
	/* the sums' variance term of each centre: sum_j w2_j^2 (a_j - b_j)^2 */
	for (i = 0; i < k; i++)
	{
		ab2[i] = 0.0;
		for (j = 0; j < d; j++)
		{
			double		diff = a[(size_t) i * d + j] - b[j];

			ab2[i] += w2[j] * w2[j] * diff * diff;
		}
	}
	/* every vertex's nearest centre and g(v) */
	for (v = 0; v < nv; v++)
	{
		double		best = INFINITY,
					db2 = 0.0;

		for (j = 0; j < d; j++)
		{
			x[j] = (double) ((v / stride[j]) % ((uint64_t) m + 1)) / m;
			db2 += w2[j] * (b[j] - x[j]) * (b[j] - x[j]);
		}
		near[v] = 0;
		for (i = 0; i < k; i++)
		{
			double		dist = 0.0;

			for (j = 0; j < d && dist < best; j++)
			{
				double		diff = a[(size_t) i * d + j] - x[j];

				dist += w2[j] * diff * diff;
			}
			if (dist < best)
			{
				best = dist;
				near[v] = i;
			}
		}
		g[v] = best - db2;
	}
	for (c = 0; c < h->ncells; c++)
	{
		double		delta = 0.0,
					dot = 0.0,
					low = INFINITY;
		uint64_t	v0 = 0;
		int			n0 = -1;
		bool		one = true;

		dpk_grid_cell_coords(d, m, c, idx);
		for (j = 0; j < d; j++)
			v0 += (uint64_t) idx[j] * stride[j];
		for (corner = 0; corner < (1 << d); corner++)
		{
			uint64_t	vc = v0;

			for (j = 0; j < d; j++)
				if (corner & (1 << j))
					vc += stride[j];
			if (n0 < 0)
				n0 = near[vc];
			one = one && near[vc] == n0;
			low = fmin(low, g[vc]);
		}
		if (!one)
		{
			/* a lower bound from the count alone */
			gap += (double) h->count[c] * low;
			var += count_var * low * low;
			continue;
		}
		for (j = 0; j < d; j++)
		{
			double		o = ((double) idx[j] + 0.5 / (double) h->units) / m,
						da = a[(size_t) n0 * d + j] - o,
						db = b[j] - o;

			delta += w2[j] * (da * da - db * db);
			if (h->sum)
				dot += w2[j] * (a[(size_t) n0 * d + j] - b[j]) * (double) h->sum[c * d + j];
		}
		gap += (double) h->count[c] * delta - 2.0 * su * dot;
		var += count_var * delta * delta;
		if (h->sum)
			var += 4.0 * su * su * sum_var * ab2[n0];
	}
	*sd = sqrt(var);
	dpk_free(ab2);
	dpk_free(x);
	dpk_free(g);
	dpk_free(near);
	dpk_free(idx);
	dpk_free(stride);
	return gap;
}
