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

/*
 * Threshold on Gaussian noisy counts (see coreset.h): z solves
 * erfc(z / sqrt 2) = 1 / cells by bisection (erfc falls with z; 60 halvings
 * of [0, 40] leave an interval below 1e-16).
 */
double
dpk_coreset_threshold_gauss(double sd, double sigmas, double cells)
{
	double		target = 1.0 / fmax(cells, 1.0),
				lo = 0.0,
				hi = 40.0;
	int			i;

	for (i = 0; i < 60; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (erfc(mid / sqrt(2.0)) > target)
			lo = mid;
		else
			hi = mid;
	}
	return fmax(sigmas * sd, sd * hi);
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

/* Blocks of width b over m cells per dimension, and how many per dimension. */
static uint64_t
residual_blocks(int d, int m, int b, int *per_dim)
{
	uint64_t	n = 1;
	int			j;

	*per_dim = (m + b - 1) / b;
	for (j = 0; j < d; j++)
		n *= (uint64_t) *per_dim;
	return n;
}

/*
 * Blocks of width b that hold cells of the coreset (core, its first ncore
 * points, with weights core_w) hand their mass to those cells, in
 * proportion to their weights, and keep none; but only when the rest of the
 * block holds nothing above its noise: the cells of the level (cells[0..n))
 * in its sub-blocks of width b/2 without cells of the coreset must not sum
 * to more than rest_sigmas sd sqrt(their number) (rest_sigmas <= 0:
 * always).  Otherwise the block is a sparse region that merely contains a
 * dense one (a background around a hotspot), and its mass is shared down
 * by the noisy sums like any other.
 */
static void
residual_to_core(const DpkDenseHist *h, int b, int per_dim, uint64_t nb,
				 double *mass, const uint64_t *core, const double *core_w,
				 int ncore, const uint64_t *cells, size_t n, double sd,
				 double rest_sigmas, DpkCoreset *cs)
{
	int			d = h->d;
	int64_t    *idx = dpk_alloc(d * sizeof(int64_t));
	double	   *in_core = dpk_alloc0(nb * sizeof(double));
	double	   *rest = dpk_alloc0(nb * sizeof(double));
	double	   *rest_cells = dpk_alloc0(nb * sizeof(double));
	int			sub_per_dim;
	uint64_t	nsub = residual_blocks(d, h->m, b / 2, &sub_per_dim);
	bool	   *sub_core = dpk_alloc0(nsub * sizeof(bool));
	uint64_t	blk;
	size_t		i;
	int			q;

	for (q = 0; q < ncore; q++)
	{
		dpk_grid_cell_coords(d, h->m, core[q], idx);
		in_core[residual_block(d, idx, b, per_dim)] += core_w[q];
		sub_core[residual_block(d, idx, b / 2, sub_per_dim)] = true;
	}
	for (i = 0; rest_sigmas > 0.0 && i < n; i++)
	{
		dpk_grid_cell_coords(d, h->m, cells[i], idx);
		if (sub_core[residual_block(d, idx, b / 2, sub_per_dim)])
			continue;
		blk = residual_block(d, idx, b, per_dim);
		rest[blk] += (double) h->count[cells[i]];
		rest_cells[blk] += 1.0;
	}
	for (blk = 0; blk < nb; blk++)
		if (rest_sigmas > 0.0 && in_core[blk] > 0.0 && rest_cells[blk] > 0.0 &&
			rest[blk] > rest_sigmas * sd * sqrt(rest_cells[blk]))
			in_core[blk] = 0.0;
	for (q = 0; q < ncore; q++)
	{
		dpk_grid_cell_coords(d, h->m, core[q], idx);
		blk = residual_block(d, idx, b, per_dim);
		if (mass[blk] > 0.0 && in_core[blk] > 0.0)
			cs->weights[q] += mass[blk] * (core_w[q] / in_core[blk]);
	}
	for (blk = 0; blk < nb; blk++)
		if (in_core[blk] > 0.0)
			mass[blk] = 0.0;
	dpk_free(sub_core);
	dpk_free(rest_cells);
	dpk_free(rest);
	dpk_free(in_core);
	dpk_free(idx);
}

/*
 * Share the sums of the blocks kept at width 2^lev among their cells (those
 * listed in cells[0..n)), top down.  A block holding cells of the coreset
 * gives its mass to them when the rest of it is only noise (the tails of a
 * dense region stay with it, residual_to_core); otherwise its mass goes
 * to its 2^d sub-blocks in proportion to their positive noisy sums
 * (evenly among those holding cells when none is positive), and so on down
 * to single cells, which join cs at their centres.  The mass of a sparse
 * region thus stays where its noisy counts put it, at every scale.
 */
static void
residual_share(const DpkDenseHist *h, const DpkBox *box, int lev, double sd,
			   double rest_sigmas,
			   const uint64_t *cells, size_t n, const uint64_t *core,
			   const double *core_w, int ncore, DpkCoreset *cs)
{
	int			d = h->d;
	int			m = h->m;
	int64_t    *idx = dpk_alloc(d * sizeof(int64_t));
	double	   *u = dpk_alloc(d * sizeof(double));
	double	   *mass;			/* per block of the current width */
	int			per_dim,
				j,
				more = 0;
	uint64_t	nb = residual_blocks(d, m, 1 << lev, &per_dim);
	size_t		i;

	/* the kept blocks' own sums */
	mass = dpk_alloc0(nb * sizeof(double));
	for (i = 0; i < n; i++)
	{
		dpk_grid_cell_coords(d, m, cells[i], idx);
		mass[residual_block(d, idx, 1 << lev, per_dim)] += (double) h->count[cells[i]];
	}
	residual_to_core(h, 1 << lev, per_dim, nb, mass, core, core_w, ncore,
					 cells, n, sd, rest_sigmas, cs);
	for (j = lev - 1; j >= 0; j--)
	{
		int			cb = 1 << j,
					cper,
					pper = per_dim;
		uint64_t	cn = residual_blocks(d, m, cb, &cper);
		double	   *sum = dpk_alloc0(cn * sizeof(double));
		double	   *den = dpk_alloc0(nb * sizeof(double));
		double	   *holders = dpk_alloc0(nb * sizeof(double));
		double	   *child = dpk_alloc0(cn * sizeof(double));
		bool	   *seen = dpk_alloc0(cn * sizeof(bool));

		dpk_check_interrupts();
		for (i = 0; i < n; i++)
		{
			dpk_grid_cell_coords(d, m, cells[i], idx);
			sum[residual_block(d, idx, cb, cper)] += (double) h->count[cells[i]];
		}
		/* per parent: the positive sums of its children, and how many hold cells */
		for (i = 0; i < n; i++)
		{
			uint64_t	c,
						p;

			dpk_grid_cell_coords(d, m, cells[i], idx);
			c = residual_block(d, idx, cb, cper);
			if (seen[c])
				continue;
			seen[c] = true;
			p = residual_block(d, idx, 2 * cb, pper);
			den[p] += sum[c] > 0.0 ? sum[c] : 0.0;
			holders[p] += 1.0;
		}
		for (i = 0; i < n; i++)
		{
			uint64_t	c,
						p;

			dpk_grid_cell_coords(d, m, cells[i], idx);
			c = residual_block(d, idx, cb, cper);
			if (!seen[c])
				continue;
			seen[c] = false;
			p = residual_block(d, idx, 2 * cb, pper);
			if (den[p] > 0.0)
				child[c] = sum[c] > 0.0 ? mass[p] * (sum[c] / den[p]) : 0.0;
			else
				child[c] = mass[p] / holders[p];
		}
		dpk_free(sum);
		dpk_free(den);
		dpk_free(holders);
		dpk_free(seen);
		dpk_free(mass);
		mass = child;
		nb = cn;
		per_dim = cper;
		if (j > 0)
			residual_to_core(h, cb, per_dim, nb, mass, core, core_w, ncore,
							 cells, n, sd, rest_sigmas, cs);
	}
	/* width 1: mass is per cell */
	for (i = 0; i < n; i++)
		if (mass[cells[i]] > 0.0)
			more++;
	coreset_grow(cs, more);
	for (i = 0; i < n; i++)
	{
		if (!(mass[cells[i]] > 0.0))
			continue;
		dpk_grid_cell_coords(d, m, cells[i], idx);
		for (j = 0; j < d; j++)
			u[j] = ((double) idx[j] + 0.5) / m;
		dpk_box_denormalize(box, u, cs->points + (size_t) cs->n * d);
		cs->weights[cs->n] = mass[cells[i]];
		cs->n++;
	}
	dpk_free(mass);
	dpk_free(idx);
	dpk_free(u);
}

/* Gather the sub-threshold mass from coarser blocks (see coreset.h). */
void
dpk_coreset_add_residual(const DpkDenseHist *h, const DpkBox *box,
						 double threshold, double sd, double sigmas,
						 double rest_sigmas, DpkCoreset *cs, bool *support)
{
	int			d = h->d;
	int			m = h->m;
	int64_t    *idx = dpk_alloc(d * sizeof(int64_t));
	/* 0: left; -1: in the coreset already; lev: freed by a block of width 2^lev */
	signed char *freed = dpk_alloc((h->ncells ? h->ncells : 1) * sizeof(signed char));
	uint64_t   *cells = dpk_alloc((h->ncells ? h->ncells : 1) * sizeof(uint64_t));
	uint64_t	c;
	uint64_t   *core;
	double	   *core_w;
	int			lev,
				ncore = 0;

	for (c = 0; c < h->ncells; c++)
	{
		freed[c] = (double) h->count[c] > threshold ? -1 : 0;
		if (freed[c] < 0)
			ncore++;
	}
	/* cs lists the cells above the threshold first, in cell order */
	DPK_ASSERT(ncore <= cs->n);
	core = dpk_alloc((ncore ? ncore : 1) * sizeof(uint64_t));
	core_w = dpk_alloc((ncore ? ncore : 1) * sizeof(double));
	ncore = 0;
	for (c = 0; c < h->ncells; c++)
		if (freed[c] < 0)
		{
			core_w[ncore] = cs->weights[ncore];
			core[ncore++] = c;
		}

	/* bottom up: which blocks clear their level's threshold */
	for (lev = 1; (1 << (lev - 1)) < m; lev++)
	{
		int			b = 1 << lev,
					per_dim;
		uint64_t	nblocks = residual_blocks(d, m, b, &per_dim);
		double	   *sum = dpk_alloc0(nblocks * sizeof(double));
		double	   *left = dpk_alloc0(nblocks * sizeof(double));
		size_t		n = 0;

		for (c = 0; c < h->ncells; c++)
		{
			uint64_t	blk;

			if ((c & 65535) == 0)
				dpk_check_interrupts();
			if (freed[c] != 0)
				continue;
			dpk_grid_cell_coords(d, m, c, idx);
			blk = residual_block(d, idx, b, per_dim);
			left[blk] += 1.0;
			sum[blk] += (double) h->count[c];
		}
		for (c = 0; c < h->ncells; c++)
		{
			uint64_t	blk;

			if (freed[c] != 0)
				continue;
			dpk_grid_cell_coords(d, m, c, idx);
			blk = residual_block(d, idx, b, per_dim);
			if (sum[blk] > dpk_coreset_threshold(sd * sqrt(left[blk]), sigmas,
												 (double) nblocks))
			{
				freed[c] = (signed char) lev;
				cells[n++] = c;
			}
		}
		dpk_free(sum);
		dpk_free(left);
		if (n > 0)
			residual_share(h, box, lev, sd, rest_sigmas, cells, n, core, core_w,
						   ncore, cs);
	}
	for (c = 0; support != NULL && c < h->ncells; c++)
		support[c] = freed[c] != 0;
	dpk_free(core);
	dpk_free(core_w);
	dpk_free(idx);
	dpk_free(freed);
	dpk_free(cells);
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
