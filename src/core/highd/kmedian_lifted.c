/*
 * kmedian_lifted.c
 *		k-median from projected grids: lifted points and the one-shot joint
 *		mode (see kmedian_lifted.h).
 */
#include "kmedian_lifted.h"

#include <math.h>
#include <string.h>

#include "coreset.h"
#include "dpk_mem.h"
#include "highd.h"
#include "highd_int.h"
#include "kmeans.h"
#include "lift.h"

/* Best of the alternation from start and D^1 restarts (see kmedian_lifted.h). */
double
dpk_kmedian_lifted(const DpkPoints *pts, const DpkClusterOpts *opt,
				   const double *start, double spread2, const DpkClusterOut *out)
{
	const double *x = pts->x;
	const double *w = pts->w;
	int			n = pts->n;
	int			d = pts->d;
	int			k = opt->k;
	int			restarts = opt->restarts;
	int			max_iter = opt->max_iter;
	uint64_t	seed = opt->seed;
	double	   *centers = out->centers;
	double	   *sizes = out->sizes;
	double	   *c = dpk_alloc(sizeof(double) * (size_t) k * d);
	double		best;

	if (n <= 0)
	{
		if (start)
			memcpy(centers, start, sizeof(double) * (size_t) k * d);
		else
			memset(centers, 0, sizeof(double) * (size_t) k * d);
		if (sizes)
			memset(sizes, 0, sizeof(double) * (size_t) k);
		dpk_free(c);
		return 0.0;
	}
	dpk_kmedian(&(DpkPoints) {x, w, n, d},
				&(DpkClusterOpts) {k, restarts, max_iter, seed},
				&(DpkClusterOut) {centers, NULL});
	best = dpk_kmedian_cost(x, w, n, d, centers, k, spread2, NULL);
	if (start)
	{
		double		cost;

		memcpy(c, start, sizeof(double) * (size_t) k * d);
		dpk_kmedian_from(x, w, n, d, k, max_iter, c, NULL);
		cost = dpk_kmedian_cost(x, w, n, d, c, k, spread2, NULL);
		if (cost <= best)
		{
			best = cost;
			memcpy(centers, c, sizeof(double) * (size_t) k * d);
		}
	}
	if (sizes)
	{
		int		   *a = dpk_alloc(sizeof(int) * (size_t) n);
		int			i;

		dpk_kmedian_cost(x, w, n, d, centers, k, 0.0, a);
		memset(sizes, 0, sizeof(double) * (size_t) k);
		for (i = 0; i < n; i++)
			if (w[i] > 0.0)
				sizes[a[i]] += w[i];
		dpk_free(a);
	}
	dpk_free(c);
	return best;
}

/*
 * A position u (d) to the box's coordinates, in place (dpk_box_from_position;
 * metric for the one-shot mode and live tables of trigger format 3).
 */
static void
to_box(const DpkBox *box, bool metric, double *u)
{
	double		x[1024];
	double	   *xp = box->d <= 1024 ? x : dpk_alloc(sizeof(double) * box->d);

	dpk_box_from_position(box, metric, u, xp);
	memcpy(u, xp, sizeof(double) * box->d);
	if (xp != x)
		dpk_free(xp);
}

/*
 * The lifted points of one copy of a projected release: every cell above
 * both the coreset threshold and min_count at 1/2 + sum / count (normalized,
 * clamped) in box coordinates, weighted by its count; returns how many.
 * *heavy gets their summed count, *between the debiased sum of
 * ||sum||^2 / count over them (normalized units).
 */
int
dpk_kmedian_copy_lifted(const DpkCopyCells *cells, const DpkLiftedCut *cut,
						const DpkLiftedPoints *out)
{
	const DpkBox *box = cells->box;
	bool		metric = cells->metric;
	uint64_t	ncells = cells->ncells;
	const double *count = cells->count;
	const double *sum = cells->sum;
	double		threshold = cut->threshold;
	double		min_count = cut->min_count;
	double		sum_var = cut->sum_var;
	double	   *x = out->x;
	double	   *w = out->w;
	double	   *heavy = out->heavy;
	double	   *between = out->between;
	int			d = box->d,
				n = 0,
				j;
	uint64_t	c;

	*heavy = 0.0;
	*between = 0.0;
	for (c = 0; c < ncells; c++)
	{
		double		cn = count[c],
					s2 = 0.0;

		if (!(cn > threshold && cn >= min_count))
			continue;
		for (j = 0; j < d; j++)
		{
			double		sj = sum[c * d + j];

			x[(size_t) n * d + j] = fmin(1.0, fmax(0.0, 0.5 + sj / cn));
			s2 += sj * sj;
		}
		to_box(box, metric, x + (size_t) n * d);
		w[n++] = cn;
		*heavy += cn;
		*between += (s2 - d * sum_var) / cn;
	}
	return n;
}


/*
 * Cells per dimension of the one-shot lifting grid: half the projected
 * grid's (wider cells hold enough rows for a trustworthy lifted mean;
 * doc/decisions/008-live-kmedian.md), then coarsened until its cells times
 * (d + 1) values fit max_lift_values.
 */
static int
oneshot_lift_m(const DpkHighdPlan *pl)
{
	int			lm = pl->m / 2 > 1 ? pl->m / 2 : 1;

	while (lm > 1 && dpk_grid_cells(pl->dhat, lm) * (pl->d + 1) > pl->cfg->max_lift_values)
		lm--;
	return lm;
}

/*
 * Exact count and centred fixed-point sums (dpk_lift_quantize) of every
 * cell of copy 0's lifting grid (lm per dimension), one pass.
 */
static void
oneshot_cell_stats(const DpkHighdPlan *pl, const DpkProjection *proj0, int lm,
				   int64_t *cc, int64_t *cs)
{
	int			d = pl->d,
				dhat = pl->dhat,
				j;
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	double	   *t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * dhat);
	int64_t    *q = dpk_alloc(sizeof(int64_t) * d);
	size_t		done,
				i;

	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows;

		/* metric positions, as the rest of the one-shot pipeline */
		const double *uc = dpk_highd_load_chunk(pl, done, u, &rows);

		dpk_project_batch(proj0, uc, rows, t);
		for (i = 0; i < rows; i++)
		{
			uint64_t	c = dpk_grid_cell(dhat, lm, t + i * dhat, NULL, NULL);

			cc[c]++;
			dpk_lift_quantize(d, uc + i * d, q);
			for (j = 0; j < d; j++)
				cs[c * d + j] += q[j];
		}
	}
	dpk_free(u);
	dpk_free(t);
	dpk_free(q);
}

/* One-shot joint mode's k-median stage (see kmedian_lifted.h). */
void
dpk_highd_joint_kmedian(const DpkHighdPlan *pl, DpkStream *s, const DpkProjection *proj0,
						DpkHighdOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			d = pl->d,
				k = pl->k,
				lm = oneshot_lift_m(pl),
				n,
				j;
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(pl->dhat, lm)),
				c;
	int64_t    *cc = dpk_alloc0(sizeof(int64_t) * ncells);
	int64_t    *cs = dpk_alloc0(sizeof(int64_t) * ncells * d);
	double	   *cnt = dpk_alloc(sizeof(double) * ncells);
	double	   *sum = dpk_alloc(sizeof(double) * ncells * d);
	double	   *x = dpk_alloc(sizeof(double) * ncells * d);
	double	   *w = dpk_alloc(sizeof(double) * ncells);
	double	   *start = dpk_alloc(sizeof(double) * (size_t) k * d);
	double		sum_var_norm = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
	double		min_count = dpk_lift_min_count(pl->lift_count_var, sum_var_norm);
	double		threshold = dpk_coreset_threshold(sqrt(pl->lift_count_var),
												  cfg->threshold_sigmas, (double) ncells);
	double		heavy,
				between,
				total = 0.0;
	uint64_t	seed;

	/* every cell gets noise, occupied or not: sensitivity 1 and U / 2 */
	oneshot_cell_stats(pl, proj0, lm, cc, cs);
	for (c = 0; c < ncells; c++)
	{
		if ((c & 255) == 0)
			dpk_check_interrupts();
		cnt[c] = (double) (cc[c] + dpk_noise_draw(s, &pl->lift_count_scale));
		dpk_noise_add_vector(s, &pl->sum_scale, d, 1, cs + c * d);
		for (j = 0; j < d; j++)
			sum[c * d + j] = (double) cs[c * d + j] / DPK_LIFT_UNITS;
		total += cnt[c];
	}
	seed = dpk_stream_u64(s);

	/* post-processing: the lifted cells, k-means of them as a start */
	n = dpk_kmedian_copy_lifted(&(DpkCopyCells) {pl->box, true, ncells, cnt, sum},
								&(DpkLiftedCut) {threshold, min_count, sum_var_norm},
								&(DpkLiftedPoints) {x, w, &heavy, &between});
	if (n > 0)
	{
		dpk_kmeans(&(DpkPoints) {x, w, n, d},
				   &(DpkClusterOpts) {k, cfg->restarts, cfg->max_iter, seed},
				   &(DpkClusterOut) {start, NULL});
		dpk_kmedian_lifted(&(DpkPoints) {x, w, n, d},
						   &(DpkClusterOpts) {k, cfg->restarts, cfg->max_iter, seed + 1},
						   start, 0.0,
						   &(DpkClusterOut) {out->centers, out->sizes});
		for (j = 0; j < k; j++)
		{
			dpk_box_normalize(pl->box, out->centers + (size_t) j * d,
							  out->centers + (size_t) j * d);
			dpk_box_to_metric(pl->box, out->centers + (size_t) j * d);
			out->sizes[j] *= heavy > 0.0 ? fmax(1.0, total / heavy) : 1.0;
		}
	}
	else
	{
		/* nothing lifted: every centre at the middle of the box */
		for (j = 0; j < k * d; j++)
			out->centers[j] = 0.5;
		for (j = 0; j < k; j++)
			out->sizes[j] = 0.0;
	}
	dpk_free(cc);
	dpk_free(cs);
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(x);
	dpk_free(w);
	dpk_free(start);
}
