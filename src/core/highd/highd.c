/*
 * highd.c
 *		The high-dimensional one-shot pipeline: plan, projected histograms,
 *		the joint mode, one copy's clustering from per-cell statistics
 *		(see highd.h).
 */
#include "highd.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "kmeans.h"
#include "kmedian_lifted.h"
#include "mean_guard.h"
#include "rugnik.h"

/* Defaults (doc/decisions/021-highd-oneshot.md). */
void
dpk_highd_defaults(DpkHighdConfig *cfg, double epsilon, int k)
{
	cfg->epsilon = epsilon;
	cfg->k = k;
	cfg->public_n = -1.0;
	cfg->n_share = 0.05;
	cfg->dhat = 0;
	cfg->copies = 2;
	cfg->half_width = DPK_PROJ_HALF_WIDTH;
	cfg->group_share = 0.05;
	cfg->lift_share = 0.7;
	cfg->lift_count_share = -1.0;
	cfg->refine_steps = 0;
	cfg->refine_share = 0.3;
	cfg->grid_scale = 1.7;
	cfg->threshold_sigmas = 2.0;
	cfg->max_cells = 1048576.0;
	cfg->max_lift_values = DPK_DEFAULT_MAX_CELLS;
	cfg->proj_seed = UINT64_C(0x64706B6D65616E73);
	cfg->restarts = 5;
	cfg->max_iter = 100;
	cfg->delta = 0.0;
	cfg->objective = DPK_OBJECTIVE_KMEANS;
	cfg->lift_shrink = true;
	cfg->ball = 0.0;
	cfg->points_metric = false;
	cfg->mean_guard = true;
}

/*
 * Approximate DP (see highd.h): with delta > 0 the lift takes 0.85 of rho
 * after N (0.7 of epsilon when pure): better on every row measured
 * (doc/decisions/020-gaussian-tables.md).
 */
void
dpk_highd_use_delta(DpkHighdConfig *cfg, double delta)
{
	cfg->delta = delta;
	if (delta > 0.0)
		cfg->lift_share = 0.85;
}

/* Projected dimension for d and k (see highd.h). */
int
dpk_highd_dhat(int d, int k)
{
	(void) k;
	return d < 4 ? d : 4;
}

/*
 * The copies the joint mode can combine: k^R groups, each with a count and
 * an R * dhat embedding, capped by max_lift_values.
 */
int
dpk_highd_copies(const DpkHighdConfig *cfg, int d)
{
	int			R = 1;
	int			dhat = cfg->dhat > 0 ? cfg->dhat : dpk_highd_dhat(d, cfg->k);
	double		groups = (double) cfg->k;

	while (R < cfg->copies &&
		   groups * cfg->k * (1.0 + (R + 1) * dhat) <= cfg->max_lift_values &&
		   groups * cfg->k <= 1073741824.0)
	{
		groups *= cfg->k;
		R++;
	}
	return R;
}

/* Index of the nearest of k points (see highd.h). */
int
dpk_highd_nearest(const double *t, const double *pc, int k, int dhat)
{
	int			best = 0,
				j,
				i;
	double		bd = INFINITY;

	for (j = 0; j < k; j++)
	{
		double		s = 0.0;

		for (i = 0; i < dhat; i++)
		{
			double		diff = t[i] - pc[(size_t) j * dhat + i];

			s += diff * diff;
		}
		if (s < bd)
		{
			bd = s;
			best = j;
		}
	}
	return best;
}

/* ---- histograms and partitions ---- */

/* A norm bound for a one-shot release (see highd.h). */
void
dpk_highd_use_ball(DpkHighdConfig *cfg, const DpkBox *box, double norm_bound)
{
	cfg->ball = dpk_box_ball_radius(box, norm_bound);
	if (cfg->ball > 0.0)
		cfg->half_width = fmin(cfg->half_width,
							   DPK_BALL_HALF_WIDTH * cfg->ball / sqrt((double) box->d));
	/*
	 * With delta > 0 a ball makes each part's sum noise small (l2
	 * sensitivity its radius): refine the projected partition in the
	 * original space (doc/decisions/032-mean-guard-and-refinement.md).
	 */
	if (cfg->ball > 0.0 && cfg->delta > 0.0 && cfg->objective == DPK_OBJECTIVE_KMEANS)
	{
		cfg->refine_steps = DPK_HIGHD_BALL_REFINE_STEPS;
		cfg->refine_share = DPK_HIGHD_BALL_REFINE_SHARE;
		cfg->lift_share = DPK_HIGHD_BALL_REFINE_LIFT_SHARE;
	}
}

/* Metric positions of the points, once (see highd.h). */
void
dpk_highd_metric_points(const DpkBox *box, DpkHighdConfig *cfg, double *points, size_t n)
{
	int			d = box->d;
	double	   *u = dpk_alloc(sizeof(double) * d);
	size_t		i;

	for (i = 0; i < n; i++)
	{
		double	   *x = points + i * d;

		if ((i & 65535) == 0)
			dpk_check_interrupts();
		dpk_box_normalize(box, x, u);
		dpk_box_to_metric(box, u);
		dpk_box_ball_clamp(d, cfg->ball, u);
		memcpy(x, u, sizeof(double) * d);
	}
	dpk_free(u);
	cfg->points_metric = true;
}

/*
 * Rows of chunk `done` of the input, clamped into the box, in metric
 * positions (dpk_box_to_metric: k-means in the columns' units), computed
 * into u; or, when they already are (cfg->points_metric), read in place.
 * Returns the rows, their count in *rows.
 */
static const double *
load_chunk(const DpkHighdPlan *pl, size_t done, double *u, size_t *rows)
{
	size_t		i;

	*rows = pl->n - done < DPK_PROJ_CHUNK ? pl->n - done : DPK_PROJ_CHUNK;
	dpk_check_interrupts();
	if (pl->cfg->points_metric)
		return pl->points + done * pl->d;
	for (i = 0; i < *rows; i++)
	{
		dpk_box_normalize(pl->box, pl->points + (done + i) * pl->d, u + i * pl->d);
		dpk_box_to_metric(pl->box, u + i * pl->d);
		dpk_box_ball_clamp(pl->d, pl->cfg->ball, u + i * pl->d);
	}
	return u;
}

/* One copy's noisy projected grid (see highd.h). */
double *
dpk_highd_histogram(const DpkHighdPlan *pl, const DpkProjection *proj, DpkStream *s,
					DpkHighdVisit visit, void *arg)
{
	int			d = pl->d,
				dhat = pl->dhat;
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, pl->m));
	int64_t    *count = dpk_alloc0(sizeof(int64_t) * ncells);
	double	   *out = dpk_alloc(sizeof(double) * ncells);
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	double	   *t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * dhat);
	size_t		done,
				i;
	uint64_t	c;

	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows;
		const double *uc = load_chunk(pl, done, u, &rows);

		dpk_project_batch(proj, uc, rows, t);
		for (i = 0; i < rows; i++)
		{
			uint64_t	cell = dpk_grid_cell(dhat, pl->m, t + i * dhat, NULL, NULL);

			count[cell]++;
			if (visit)
				visit(arg, uc + i * d, t + i * dhat, cell);
		}
	}
	for (c = 0; c < ncells; c++)
	{
		if ((c & 4095) == 0)
			dpk_check_interrupts();
		out[c] = (double) (count[c] + dpk_noise_draw(s, &pl->count_scale));
	}
	dpk_free(count);
	dpk_free(u);
	dpk_free(t);
	return out;
}

/* Coreset and weighted k-means of a noisy projected grid (see highd.h). */
double
dpk_highd_grid_kmeans(const DpkNoisyGrid *grid, double threshold_sigmas,
					  const DpkClusterOpts *opt, double *pcenters, int *coreset_size)
{
	return dpk_highd_grid_kmeans_cells(grid, threshold_sigmas, 0.0, opt, pcenters,
									   coreset_size);
}

/* The same with the threshold of `cells` cells (see highd.h). */
double
dpk_highd_grid_kmeans_cells(const DpkNoisyGrid *grid, double threshold_sigmas,
							double cells, const DpkClusterOpts *opt, double *pcenters,
							int *coreset_size)
{
	int			dhat = grid->dhat,
				m = grid->m;
	const double *count = grid->count;
	double		count_var = grid->count_var;
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, m));
	double		threshold = dpk_coreset_threshold(sqrt(count_var), threshold_sigmas,
												  cells > 0.0 ? cells : (double) ncells);
	double	   *pts;
	double	   *w;
	int			n = dpk_highd_coreset_cells(dhat, m, count, threshold, &pts, &w),
				j;

	*coreset_size = n;
	if (n > 0)
		dpk_kmeans(&(DpkPoints) {pts, w, n, dhat}, opt,
				   &(DpkClusterOut) {pcenters, NULL});
	else
		for (j = 0; j < opt->k * dhat; j++)
			pcenters[j] = 0.5;
	dpk_free(pts);
	dpk_free(w);
	return threshold;
}

/* The cells of a noisy grid above a threshold, weighted (see highd.h). */
int
dpk_highd_coreset_cells(int dhat, int m, const double *count, double threshold,
						double **pts, double **w)
{
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, m));
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
	uint64_t	c;
	int			n = 0,
				j;

	for (c = 0; c < ncells; c++)
		if (count[c] > threshold)
			n++;
	*pts = dpk_alloc(sizeof(double) * (size_t) (n ? n : 1) * dhat);
	*w = dpk_alloc(sizeof(double) * (n ? n : 1));
	n = 0;
	for (c = 0; c < ncells; c++)
	{
		if (!(count[c] > threshold))
			continue;
		dpk_grid_cell_coords(dhat, m, c, idx);
		for (j = 0; j < dhat; j++)
			(*pts)[(size_t) n * dhat + j] = ((double) idx[j] + 0.5) / m;
		(*w)[n++] = count[c];
	}
	dpk_free(idx);
	return n;
}

/* Labels of one chunk of normalized points under a partition. */
static void
partition_labels(const DpkHighdPlan *pl, const DpkHighdPartition *pt, const double *u,
				 size_t rows, double *t, int *label)
{
	int			k = pl->k,
				dhat = pl->dhat,
				r;
	size_t		i;

	if (pt->centers)
	{
		dpk_kmeans_cost(u, NULL, (int) rows, pl->d, pt->centers, k, label);
		return;
	}
	memset(label, 0, sizeof(int) * rows);
	for (r = 0; r < pt->copies; r++)
	{
		dpk_project_batch(&pt->proj[r], u, rows, t);
		for (i = 0; i < rows; i++)
			label[i] = label[i] * k +
				dpk_highd_nearest(t + i * dhat, pt->pcenters + (size_t) r * k * dhat, k, dhat);
	}
	if (pt->map)
		for (i = 0; i < rows; i++)
			label[i] = pt->map[label[i]];
}

/* Noisy counts (and sums) of every part of a partition (see highd.h). */
void
dpk_highd_partition_stats(const DpkHighdPlan *pl, const DpkHighdPartition *pt,
						  const DpkNoise *count_noise, const DpkNoise *sum_noise, DpkStream *s,
						  double *cnt, double *sum)
{
	int			d = pl->d,
				g,
				j;
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	double	   *t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * pl->dhat);
	int		   *label = dpk_alloc0(sizeof(int) * DPK_PROJ_CHUNK);
	int64_t    *q = dpk_alloc(sizeof(int64_t) * d);
	int64_t    *gc = dpk_alloc0(sizeof(int64_t) * pt->nlabels);
	int64_t    *gs = sum ? dpk_alloc0(sizeof(int64_t) * (size_t) pt->nlabels * d) : NULL;
	size_t		done,
				i;

	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows;
		const double *uc = load_chunk(pl, done, u, &rows);

		partition_labels(pl, pt, uc, rows, t, label);
		for (i = 0; i < rows; i++)
		{
			g = label[i];
			gc[g]++;
			if (gs)
			{
				dpk_lift_quantize(d, uc + i * d, q);
				for (j = 0; j < d; j++)
					gs[(size_t) g * d + j] += q[j];
			}
		}
	}
	for (g = 0; g < pt->nlabels; g++)
	{
		if ((g & 255) == 0)
			dpk_check_interrupts();
		cnt[g] = (double) (gc[g] + dpk_noise_draw(s, count_noise));
		if (gs)
		{
			dpk_noise_add_vector(s, sum_noise, d, 1, gs + (size_t) g * d);
			for (j = 0; j < d; j++)
				sum[(size_t) g * d + j] = (double) gs[(size_t) g * d + j] / DPK_LIFT_UNITS;
		}
	}
	dpk_free(u);
	dpk_free(t);
	dpk_free(label);
	dpk_free(q);
	dpk_free(gc);
	dpk_free(gs);
}

/* ---- one copy from per-cell statistics ---- */

/*
 * Every lifting cell above lthreshold to the centre holding most of the
 * noisy mass of its coreset cells (counts above threshold), else to the
 * centre nearest its middle; -1 below lthreshold.
 */
static void
cells_assign(int dhat, const DpkHighdCells *hc, int lm, const double *lcount,
			 double threshold, double lthreshold, const double *pc, int k, int *assign)
{
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, hc->m));
	uint64_t	nl = (uint64_t) llround(dpk_grid_cells(dhat, lm));
	double	   *vote = dpk_alloc0(sizeof(double) * nl * k);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
	double	   *tc = dpk_alloc(sizeof(double) * dhat);
	uint64_t	c;
	int			j;

	/* every coreset cell votes, with its noisy count, for its centre */
	for (c = 0; c < ncells; c++)
	{
		uint64_t	lc;

		if (!(hc->count[c] > threshold))
			continue;
		dpk_grid_cell_coords(dhat, hc->m, c, idx);
		for (j = 0; j < dhat; j++)
			tc[j] = ((double) idx[j] + 0.5) / hc->m;
		lc = lm == hc->m ? c : dpk_grid_cell(dhat, lm, tc, NULL, NULL);
		vote[lc * k + dpk_highd_nearest(tc, pc, k, dhat)] += hc->count[c];
	}
	for (c = 0; c < nl; c++)
	{
		double		bv = 0.0;
		int			a;

		assign[c] = -1;
		if (!(lcount[c] > lthreshold))
			continue;
		for (a = 0; a < k; a++)
			if (vote[c * k + a] > bv)
			{
				bv = vote[c * k + a];
				assign[c] = a;
			}
		if (assign[c] < 0)
		{
			dpk_grid_cell_coords(dhat, lm, c, idx);
			for (j = 0; j < dhat; j++)
				tc[j] = ((double) idx[j] + 0.5) / lm;
			assign[c] = dpk_highd_nearest(tc, pc, k, dhat);
		}
	}
	dpk_free(vote);
	dpk_free(idx);
	dpk_free(tc);
}

/*
 * Each centre's projected estimate for lifting against the plane (P (u -
 * 1/2) units): the mean of its lifting cells' midpoints weighted by their
 * noisy counts (negative ones as 0), or its fallback's image when they
 * weigh nothing.  Noisy counts and public cell positions only.
 */
static void
cells_plane_target(const DpkProjection *p, int lm, uint64_t nl, const double *lcount,
				   const int *assign, const double *fallback, int k, double *target)
{
	int			dhat = p->dhat,
				d = p->d,
				a,
				i,
				j;
	double	   *wsum = dpk_alloc0(sizeof(double) * k);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
	uint64_t	c;

	memset(target, 0, sizeof(double) * (size_t) k * dhat);
	for (c = 0; c < nl; c++)
	{
		double		w;

		if (assign[c] < 0 || !(lcount[c] > 0.0))
			continue;
		w = lcount[c];
		dpk_grid_cell_coords(dhat, lm, c, idx);
		for (i = 0; i < dhat; i++)
			target[(size_t) assign[c] * dhat + i] +=
				w * (2.0 * p->half_width * ((double) idx[i] + 0.5) / lm - p->half_width);
		wsum[assign[c]] += w;
	}
	for (a = 0; a < k; a++)
		for (i = 0; i < dhat; i++)
		{
			double	   *ti = target + (size_t) a * dhat + i;

			if (wsum[a] > 0.0)
				*ti /= wsum[a];
			else
			{
				*ti = 0.0;
				for (j = 0; j < d; j++)
					*ti += p->mat[(size_t) i * d + j] * (fallback[(size_t) a * d + j] - 0.5);
			}
		}
	dpk_free(wsum);
	dpk_free(idx);
}

/*
 * Each fallback row's part outside the projection's row space moved toward
 * the other centres' noisy mean there (dpk_lift_rest_mean), from the
 * count-weighted totals of each centre's lifting cells (w_c its noisy
 * count, negative ones as 0, as dpk_lift_centers_weighted).  Noisy counts
 * and sums only.
 */
static void
cells_rest_mean(const DpkProjection *p, uint64_t nl, const double *lcount,
				const double *sum, double sum_var, const int *assign, int k,
				double *fallback)
{
	int			d = p->d,
				j;
	double	   *tot = dpk_alloc0(sizeof(double) * (size_t) k * d);
	double	   *ww = dpk_alloc0(sizeof(double) * k);
	uint64_t	c;

	for (c = 0; c < nl; c++)
	{
		double		w = lcount[c];

		if (assign[c] < 0 || !(w > 0.0))
			continue;
		ww[assign[c]] += w * w;
		for (j = 0; j < d; j++)
			tot[(size_t) assign[c] * d + j] += w * sum[c * d + j];
	}
	dpk_lift_rest_mean(d, k, tot, ww, sum_var, p->mat, p->dhat, fallback);
	dpk_free(tot);
	dpk_free(ww);
}

/* Cell-mode clustering of one copy (see highd.h). */
double
dpk_highd_cells_cluster(const DpkProjection *p, const DpkHighdCells *hc,
						double threshold_sigmas, const DpkClusterOpts *opt,
						const DpkClusterOut *out, int *coreset_size)
{
	int			k = opt->k,
				restarts = opt->restarts,
				max_iter = opt->max_iter;
	uint64_t	seed = opt->seed;
	double	   *centers = out->centers,
			   *sizes = out->sizes;
	int			d = p->d,
				dhat = p->dhat,
				lm = hc->lift_m > 0 ? hc->lift_m : hc->m,
				j;
	uint64_t	nl = (uint64_t) llround(dpk_grid_cells(dhat, lm));
	const double *lcount = (lm != hc->m && hc->lift_count) ? hc->lift_count : hc->count;
	double		lcount_var = lcount == hc->count ? hc->count_var : hc->lift_count_var;
	double	   *pc = dpk_alloc(sizeof(double) * (size_t) k * dhat);
	double	   *fallback = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *assign = dpk_alloc(sizeof(int) * nl);
	double		threshold,
				lthreshold,
				min_count,
				score;
	int			csz;
	DpkLiftPlane plane = {0, NULL, 0.0, NULL};
	double	   *target = NULL;

	threshold = dpk_highd_grid_kmeans_cells(&(DpkNoisyGrid) {dhat, hc->m, hc->count,
															 hc->count_var},
											threshold_sigmas, hc->threshold_cells,
											opt, pc, &csz);
	if (coreset_size)
		*coreset_size = csz;
	for (j = 0; j < k; j++)
		dpk_project_back(p, pc + (size_t) j * dhat, fallback + (size_t) j * d);
	lthreshold = lcount == hc->count ? threshold
		: dpk_coreset_threshold(sqrt(lcount_var), threshold_sigmas, (double) nl);
	min_count = dpk_lift_min_count(lcount_var, hc->sum_var);

	cells_assign(dhat, hc, lm, lcount, threshold, lthreshold, pc, k, assign);
	if (hc->rest_mean)
		cells_rest_mean(p, nl, lcount, hc->sum, hc->sum_var, assign, k, fallback);
	score = dpk_lift_cost(d, k, nl, lcount, hc->sum, hc->sumnorm, assign,
						  hc->sum_var, min_count);
	if (hc->space_noise2 > 0.0 && lm == hc->m)
	{
		/*
		 * The original-space partition competes with the projected one on
		 * the same private score (both cover the same cells).  It is fitted
		 * to the noisy sums that score it, so it scores better than it is;
		 * the projected one, from the counts alone, does not.  It pays its
		 * cells' sum noise twice (DPK_HIGHD_SPACE_NOISE_CHARGE).
		 */
		int		   *sassign = dpk_alloc(sizeof(int) * nl);
		double	   *scent = dpk_alloc(sizeof(double) * (size_t) k * d);
		double		sscore;

		memcpy(sassign, assign, sizeof(int) * nl);
		if (dpk_highd_cells_space(p, hc->m, lcount, hc->sum,
								  dpk_highd_point_count(d, hc->sum_var, hc->space_noise2,
														min_count),
								  &(DpkClusterOpts) {k, restarts, max_iter,
													 seed ^ UINT64_C(0x5eed)},
								  scent, sassign) >= k &&
			(sscore = dpk_lift_cost(d, k, nl, lcount, hc->sum, hc->sumnorm, sassign,
									DPK_HIGHD_SPACE_NOISE_CHARGE * hc->sum_var, min_count)) < score)
		{
			score = sscore;
			memcpy(assign, sassign, sizeof(int) * nl);
			memcpy(fallback, scent, sizeof(double) * (size_t) k * d);
		}
		dpk_free(sassign);
		dpk_free(scent);
	}
	if (hc->plane_cells >= 0.0)
	{
		/* a cell's quantization variance in P (u - 1/2) units, times plane_cells */
		double		cw = 2.0 * p->half_width / lm;

		plane.dhat = dhat;
		plane.mat = p->mat;
		plane.var = hc->plane_cells * cw * cw / 12.0;
		target = dpk_alloc(sizeof(double) * (size_t) k * dhat);
		cells_plane_target(p, lm, nl, lcount, assign, fallback, k, target);
		plane.target = target;
	}
	if (hc->lift_weighted)
		score += dpk_lift_centers_weighted(&(DpkLiftCells) {d, k, nl, lcount, hc->sum, assign},
										   &(DpkLiftRule) {hc->sum_var, min_count, fallback, plane.mat ? &plane : NULL},
										   centers, sizes);
	else
		dpk_lift_centers_heavy(&(DpkLiftCells) {d, k, nl, lcount, hc->sum, assign},
							   &(DpkLiftRule) {hc->sum_var, min_count, fallback, plane.mat ? &plane : NULL},
							   centers, sizes);
	if (target)
		dpk_free(target);
	dpk_free(pc);
	dpk_free(fallback);
	dpk_free(assign);
	return score;
}

/* ---- the joint mode ---- */

/* Allocate an output (see highd.h). */
void
dpk_highd_out_init(DpkHighdOut *o, int k, int d)
{
	o->centers = dpk_alloc(sizeof(double) * (size_t) k * d);
	o->sizes = dpk_alloc0(sizeof(double) * k);
	o->coreset_size = 0;
	o->guard_fired = false;
}

/* Free an output (see highd.h). */
void
dpk_highd_out_free(DpkHighdOut *o)
{
	dpk_free(o->centers);
	dpk_free(o->sizes);
}

/*
 * Joint mode, first stage: every copy's projection, noisy grid and k
 * projected centres (pc: copies * k * dhat); out gets the largest coreset.
 * Returns the number of groups, k^copies.
 */
static int
joint_copies(const DpkHighdPlan *pl, DpkStream *s, DpkProjection *proj, double *pc,
			 DpkHighdOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			k = pl->k,
				dhat = pl->dhat,
				r,
				ngroups = 1;

	for (r = 0; r < pl->copies; r++)
	{
		double	   *count;
		int			csz;

		dpk_projection_init(&proj[r], pl->d, dhat,
							dpk_projection_copy_seed(cfg->proj_seed, r), cfg->half_width);
		count = dpk_highd_histogram(pl, &proj[r], s, NULL, NULL);
		dpk_highd_grid_kmeans(&(DpkNoisyGrid) {dhat, pl->m, count, pl->count_var},
							  cfg->threshold_sigmas,
							  &(DpkClusterOpts) {k, cfg->restarts, cfg->max_iter,
												 dpk_stream_u64(s)},
							  pc + (size_t) r * k * dhat, &csz);
		dpk_free(count);
		if (r == 0 || csz > out->coreset_size)
			out->coreset_size = csz;
		ngroups *= k;
	}
	return ngroups;
}

/*
 * Joint mode, second stage: one noisy count per group; groups embedded at
 * the concatenation of their projected centres; weighted k-means (ec: k
 * centres of dimension copies * dhat) of the groups above the noise, then
 * every group to its nearest centre (map).  Returns how many groups were
 * kept (0: map is g mod k and ec unset).
 */
static int
joint_group_map(const DpkHighdPlan *pl, DpkStream *s, const DpkProjection *proj,
				const double *pc, int ngroups, double *ec, int *map)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			k = pl->k,
				dhat = pl->dhat,
				R = pl->copies,
				e = pl->copies * pl->dhat,
				g,
				r,
				nkept = 0;
	double	   *gcnt = dpk_alloc(sizeof(double) * ngroups);
	double	   *emb = dpk_alloc(sizeof(double) * (size_t) ngroups * e);
	double	   *kept = dpk_alloc(sizeof(double) * (size_t) ngroups * e);
	double	   *w = dpk_alloc(sizeof(double) * ngroups);
	double		threshold;
	DpkHighdPartition pt = {ngroups, R, proj, pc, NULL, NULL};

	dpk_highd_partition_stats(pl, &pt, &pl->group_scale, &pl->group_scale, s, gcnt, NULL);
	threshold = dpk_coreset_threshold(sqrt(pl->group_var), cfg->threshold_sigmas,
									  (double) ngroups);
	for (g = 0; g < ngroups; g++)
	{
		int			rest = g;

		for (r = R - 1; r >= 0; r--)
		{
			int			a = rest % k;

			rest /= k;
			memcpy(emb + (size_t) g * e + (size_t) r * dhat,
				   pc + ((size_t) r * k + a) * dhat, sizeof(double) * dhat);
		}
		if (gcnt[g] > threshold)
		{
			memcpy(kept + (size_t) nkept * e, emb + (size_t) g * e, sizeof(double) * e);
			w[nkept++] = gcnt[g];
		}
	}
	if (nkept > 0)
	{
		dpk_kmeans(&(DpkPoints) {kept, w, nkept, e},
				   &(DpkClusterOpts) {k, cfg->restarts, cfg->max_iter, dpk_stream_u64(s)},
				   &(DpkClusterOut) {ec, NULL});
		/* every group, kept or not, to its nearest centre */
		dpk_kmeans_cost(emb, NULL, ngroups, e, ec, k, map);
	}
	else
		for (g = 0; g < ngroups; g++)
			map[g] = g % k;
	dpk_free(gcnt);
	dpk_free(emb);
	dpk_free(kept);
	dpk_free(w);
	return nkept;
}

/*
 * Joint mode, last stage: one noisy (count, sum) per part of the map, each
 * part lifted; fallback the pseudo-inverse of the first block of its
 * embedded centre (or of copy 0's projected centre when no group was kept).
 */
static void
joint_lift(const DpkHighdPlan *pl, DpkStream *s, const DpkProjection *proj,
		   const double *pc, const int *map, const double *ec, int nkept, DpkHighdOut *out)
{
	int			d = pl->d,
				k = pl->k,
				e = pl->copies * pl->dhat,
				j;
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *sum = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *fallback = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *ident = dpk_alloc(sizeof(int) * k);
	double		sum_var_norm = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
	DpkHighdPartition pt = {k, pl->copies, proj, pc, map, NULL};

	for (j = 0; j < k; j++)
	{
		dpk_project_back(&proj[0], nkept > 0 ? ec + (size_t) j * e : pc + (size_t) j * pl->dhat,
						 fallback + (size_t) j * d);
		ident[j] = j;
	}
	dpk_highd_partition_stats(pl, &pt, &pl->lift_count_scale, &pl->sum_scale, s, cnt, sum);
	if (pl->cfg->lift_shrink)
	{
		/* each part one cell of its own, weighed by its noisy count */
		cells_rest_mean(&proj[0], (uint64_t) k, cnt, sum, sum_var_norm, ident, k, fallback);
		dpk_lift_centers_weighted(&(DpkLiftCells) {d, k, (size_t) k, cnt, sum, ident},
								  &(DpkLiftRule) {sum_var_norm, dpk_lift_min_count(pl->lift_count_var, sum_var_norm), fallback, NULL},
								  out->centers, out->sizes);
	}
	else
		dpk_lift_centers(&(DpkLiftCells) {d, k, (size_t) k, cnt, sum, ident},
						 &(DpkLiftRule) {0.0, dpk_lift_min_count(pl->lift_count_var, sum_var_norm), fallback, NULL},
						 out->centers, out->sizes);
	/* never dearer, by the same statistics' estimate, than their noisy mean
	 * (with refinement steps, after the last of them) */
	if (pl->cfg->mean_guard && pl->eps.eps_refine <= 0.0)
		out->guard_fired = dpk_mean_guard(d, k, cnt, sum, sum_var_norm,
										  dpk_lift_min_count(pl->lift_count_var, sum_var_norm),
										  fallback, out->centers, out->sizes);
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(fallback);
	dpk_free(ident);
}

/*
 * The joint mode (see highd.h).  Two clusters merged by one projection stay
 * apart as long as another separates them.
 */
void
dpk_highd_run_joint(const DpkHighdPlan *pl, DpkStream *s, DpkHighdOut *out)
{
	int			R = pl->copies,
				r,
				ngroups,
				nkept;
	DpkProjection *proj;
	double	   *pc,
			   *ec;
	int		   *map;

	if (!(pl->have_lift && pl->eps.eps_group > 0.0))
	{
		/* a configuration without lifting budget: centres at the middle */
		for (r = 0; r < pl->k * pl->d; r++)
			out->centers[r] = 0.5;
		return;
	}
	proj = dpk_alloc(sizeof(DpkProjection) * R);
	pc = dpk_alloc(sizeof(double) * (size_t) R * pl->k * pl->dhat);
	ec = dpk_alloc(sizeof(double) * (size_t) pl->k * R * pl->dhat);
	ngroups = joint_copies(pl, s, proj, pc, out);
	map = dpk_alloc(sizeof(int) * ngroups);
	nkept = joint_group_map(pl, s, proj, pc, ngroups, ec, map);
	if (pl->cfg->objective == DPK_OBJECTIVE_KMEDIAN)
		dpk_highd_joint_kmedian(pl, s, &proj[0], out);
	else
		joint_lift(pl, s, proj, pc, map, ec, nkept, out);
	for (r = 0; r < R; r++)
		dpk_projection_free(&proj[r]);
	dpk_free(proj);
	dpk_free(pc);
	dpk_free(ec);
	dpk_free(map);
}

/*
 * One private Lloyd step in the original space (see highd.h): every row to
 * its nearest centre, one noisy (count, sum) per centre at the refinement's
 * scales, each centre lifted from its part (shrunk toward where it was, as
 * the joint lift), then with guard the mean guard on those statistics.
 */
void
dpk_highd_refine_step(const DpkHighdPlan *pl, DpkStream *s, double *centers, double *sizes,
					  bool guard, bool *fired)
{
	int			d = pl->d,
				k = pl->k,
				j;
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *sum = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *prev = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *ident = dpk_alloc(sizeof(int) * k);
	double		sum_var_norm = pl->refine_sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS),
				min_count = dpk_lift_min_count(pl->refine_count_var, sum_var_norm);
	DpkHighdPartition pt = {k, 0, NULL, NULL, NULL, centers};

	dpk_highd_partition_stats(pl, &pt, &pl->refine_count_scale, &pl->refine_sum_scale, s,
							  cnt, sum);
	for (j = 0; j < k; j++)
		ident[j] = j;
	memcpy(prev, centers, sizeof(double) * (size_t) k * d);
	if (pl->cfg->lift_shrink)
		dpk_lift_centers_weighted(&(DpkLiftCells) {d, k, (size_t) k, cnt, sum, ident},
								  &(DpkLiftRule) {sum_var_norm, min_count, prev, NULL},
								  centers, sizes);
	else
		dpk_lift_centers(&(DpkLiftCells) {d, k, (size_t) k, cnt, sum, ident},
						 &(DpkLiftRule) {0.0, min_count, prev, NULL}, centers,
						 sizes);
	if (guard)
	{
		bool		f = dpk_mean_guard(d, k, cnt, sum, sum_var_norm, min_count, prev, centers,
									   sizes);

		if (fired)
			*fired = f;
	}
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(prev);
	dpk_free(ident);
}

/* ---- publish ---- */

/* Centres in box coordinates, sizes, and the plan's details (see highd.h). */
void
dpk_highd_finish(const DpkHighdPlan *pl, const DpkHighdOut *out, DpkOneshotResult *res,
				 DpkHighdInfo *info)
{
	int			d = pl->d,
				k = pl->k,
				j;

	res->noisy_n = pl->noisy_n;
	res->cells_per_dim = pl->m;
	res->cells = dpk_grid_cells(pl->dhat, pl->m);
	res->coreset_size = out->coreset_size;
	res->centers = dpk_alloc(sizeof(double) * (size_t) k * d);
	res->sizes = dpk_alloc(sizeof(double) * k);
	for (j = 0; j < k; j++)
	{
		/* every row is in the ball, so its nearest point is nearer to all */
		dpk_box_ball_clamp(d, pl->cfg->ball, out->centers + (size_t) j * d);
		dpk_box_from_metric(pl->box, out->centers + (size_t) j * d,
							res->centers + (size_t) j * d);
		res->sizes[j] = out->sizes[j] > 0.0 ? out->sizes[j] : 0.0;
	}
	if (!info)
		return;
	info->dhat = pl->dhat;
	info->guard_fired = out->guard_fired;
	info->budget = pl->eps;
	info->count_scale = dpk_noise_scale_value(&pl->count_scale);
	info->group_scale = pl->eps.eps_group > 0.0 ? dpk_noise_scale_value(&pl->group_scale) : 0.0;
	info->lift_count_scale = pl->eps.eps_lift_count > 0.0
		? dpk_noise_scale_value(&pl->lift_count_scale) : 0.0;
	info->sum_scale = pl->have_lift ? dpk_noise_scale_value(&pl->sum_scale) : 0.0;
	info->refine_count_scale = pl->eps.eps_refine > 0.0
		? dpk_noise_scale_value(&pl->refine_count_scale) : 0.0;
	info->refine_sum_scale = pl->eps.eps_refine > 0.0
		? dpk_noise_scale_value(&pl->refine_sum_scale) : 0.0;
}

/* One-shot high-d k-means (see highd.h). */
void
dpk_highd_oneshot_cluster(const DpkBox *box, const double *points, size_t n,
						  const DpkHighdConfig *cfg, DpkStream *s,
						  DpkOneshotResult *res)
{
	dpk_highd_oneshot_cluster_info(box, points, n, cfg, s, res, NULL);
}

/* One-shot high-d k-means with details (see highd.h). */
void
dpk_highd_oneshot_cluster_info(const DpkBox *box, const double *points, size_t n,
							   const DpkHighdConfig *cfg, DpkStream *s,
							   DpkOneshotResult *res, DpkHighdInfo *info)
{
	DpkHighdPlan pl;
	DpkHighdOut out;

	int			j;

	if (cfg->refine_steps > 0 && cfg->objective != DPK_OBJECTIVE_KMEANS)
		dpk_fail("refinement steps of a high-dimensional release refine only k-means");
	dpk_highd_plan(&pl, box, points, n, cfg, s);
	dpk_highd_out_init(&out, pl.k, pl.d);
	dpk_highd_run_joint(&pl, s, &out);
	for (j = 0; j < cfg->refine_steps && pl.eps.eps_refine > 0.0 && pl.have_lift; j++)
		dpk_highd_refine_step(&pl, s, out.centers, out.sizes,
							  cfg->mean_guard && j == cfg->refine_steps - 1, &out.guard_fired);
	dpk_highd_finish(&pl, &out, res, info);
	dpk_highd_out_free(&out);
}
