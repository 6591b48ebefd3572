/*
 * highd.c
 *		The high-dimensional one-shot pipeline (see highd.h).
 */
#include "highd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dpk_mem.h"
#include "kmeans.h"
#include "rugnik.h"
/* ---- the one-shot pipeline ---- */

/* Defaults; highd.h gives the measurement behind each. */
void
dpk_highd_defaults(DpkHighdConfig *cfg, double epsilon, int k)
{
	cfg->epsilon = epsilon;
	cfg->k = k;
	cfg->public_n = -1.0;
	cfg->n_share = 0.05;
	cfg->dhat = 0;
	cfg->copies = 2;
	cfg->half_width = 0.75;
	cfg->lift_mode = DPK_LIFT_JOINT;
	cfg->group_share = 0.05;
	cfg->lift_share = 0.7;
	cfg->lift_count_share = -1.0;
	cfg->norm_share = 0.0;
	cfg->lift_coarsen = 1;
	cfg->refine_steps = 0;
	cfg->refine_share = 0.3;
	cfg->grid_scale = 1.7;
	cfg->threshold_sigmas = 2.0;
	cfg->max_cells = 1048576.0;
	cfg->max_lift_values = 4194304.0;
	cfg->proj_seed = UINT64_C(0x64706B6D65616E73);
	cfg->restarts = 5;
	cfg->max_iter = 100;
}

/* Projected dimension for d and k (see highd.h). */
int
dpk_highd_dhat(int d, int k)
{
	(void) k;
	return d < 4 ? d : 4;
}

/* Index of the projected centre nearest to t (ties: lowest index). */
static int
nearest_center(const double *t, const double *pc, int k, int dhat)
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

/* Everything the stages share: the input, and public or noisy settings. */
typedef struct HighdPlan
{
	const DpkBox *box;
	const double *points;
	size_t		n;
	const DpkHighdConfig *cfg;
	int			d;
	int			k;
	int			dhat;
	int			copies;
	int			m;				/* projected cells per dimension */
	int			lift_m;			/* cell mode: lifting cells per dimension */
	DpkScale	count_scale;	/* grid counts */
	double		count_var;
	DpkScale	lift_count_scale;	/* per-cluster or per-group counts */
	double		lift_count_var;
	DpkScale	sum_scale;		/* sums, fixed point */
	double		sum_var;
	DpkScale	norm_scale;		/* cell mode: sums of squared norms */
	double		norm_var;
	DpkScale	group_scale;	/* joint mode: group counts */
	double		group_var;
	bool		have_lift;
	bool		have_norm;
} HighdPlan;

/* Rows of chunk `done` of the input, normalized into u; returns the count. */
static size_t
load_chunk(const HighdPlan *pl, size_t done, double *u)
{
	size_t		rows = pl->n - done < DPK_PROJ_CHUNK ? pl->n - done : DPK_PROJ_CHUNK;
	size_t		i;

	dpk_check_interrupts();
	for (i = 0; i < rows; i++)
		dpk_box_normalize(pl->box, pl->points + (done + i) * pl->d, u + i * pl->d);
	return rows;
}

/* Noisy original-space statistics of a copy's lifting cells (cell mode). */
typedef struct CellStats
{
	int			m;				/* lifting cells per dimension */
	uint64_t	ncells;
	double	   *count;			/* ncells, NULL when m is the grid's own */
	double	   *sum;			/* ncells * d, normalized units */
	double	   *norm;			/* ncells, normalized units squared */
} CellStats;

/*
 * Histogram stage of one copy: one pass projecting every point, the count of
 * every projected grid cell (and with cells, the original-space sums of the
 * lifting cells, which the caller passes only when the plan has a sum
 * budget), then noise on every cell, occupied or not.  Returns the m^dhat
 * noisy counts (dpk_alloc'd).
 */
static double *
copy_histogram(const HighdPlan *pl, const DpkProjection *proj, DpkStream *s,
			   CellStats *cells)
{
	int			d = pl->d,
				dhat = pl->dhat,
				j;
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, pl->m));
	int64_t    *count = dpk_alloc0(sizeof(int64_t) * ncells);
	int64_t    *lcount = NULL,
			   *lsum = NULL,
			   *lnorm = NULL;
	double	   *out = dpk_alloc(sizeof(double) * ncells);
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	double	   *t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * dhat);
	int64_t    *q = dpk_alloc(sizeof(int64_t) * d);
	double		unit2 = (double) DPK_LIFT_UNITS * DPK_LIFT_UNITS;
	size_t		done,
				i;
	uint64_t	c;

	if (cells)
	{
		cells->ncells = (uint64_t) llround(dpk_grid_cells(dhat, cells->m));
		if (cells->m != pl->m)
			lcount = dpk_alloc0(sizeof(int64_t) * cells->ncells);
		lsum = dpk_alloc0(sizeof(int64_t) * cells->ncells * d);
		lnorm = dpk_alloc0(sizeof(int64_t) * cells->ncells);
	}

	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows = load_chunk(pl, done, u);

		dpk_project_batch(proj, u, rows, t);
		for (i = 0; i < rows; i++)
		{
			uint64_t	cell = dpk_grid_cell(dhat, pl->m, t + i * dhat, NULL, NULL);

			count[cell]++;
			if (cells)
			{
				if (lcount)
				{
					cell = dpk_grid_cell(dhat, cells->m, t + i * dhat, NULL, NULL);
					lcount[cell]++;
				}
				lnorm[cell] += dpk_lift_quantize(d, u + i * d, q);
				for (j = 0; j < d; j++)
					lsum[cell * d + j] += q[j];
			}
		}
	}

	for (c = 0; c < ncells; c++)
	{
		if ((c & 4095) == 0)
			dpk_check_interrupts();
		out[c] = (double) (count[c] + dpk_discrete_laplace(s, pl->count_scale));
	}
	if (cells)
	{
		cells->count = lcount ? dpk_alloc(sizeof(double) * cells->ncells) : NULL;
		cells->sum = dpk_alloc(sizeof(double) * cells->ncells * d);
		cells->norm = dpk_alloc(sizeof(double) * cells->ncells);
		for (c = 0; c < cells->ncells; c++)
		{
			if ((c & 1023) == 0)
				dpk_check_interrupts();
			if (lcount)
				cells->count[c] = (double) (lcount[c] +
											dpk_discrete_laplace(s, pl->lift_count_scale));
			dpk_vector_noise(s, pl->sum_scale, d, 1, lsum + c * d);
			for (j = 0; j < d; j++)
				cells->sum[c * d + j] = (double) lsum[c * d + j] / DPK_LIFT_UNITS;
			/* sums of squared norms are released only with their own noise */
			cells->norm[c] = pl->have_norm
				? (double) (lnorm[c] + dpk_discrete_laplace(s, pl->norm_scale)) / unit2
				: 0.0;
		}
	}
	dpk_free(count);
	dpk_free(lcount);
	dpk_free(lsum);
	dpk_free(lnorm);
	dpk_free(u);
	dpk_free(t);
	dpk_free(q);
	return out;
}

/*
 * Coreset of a noisy projected grid (cells whose count clears the
 * threshold, at their centres, weighted by their counts) and weighted
 * k-means on it: k projected centres (k * dhat, in [0,1]).  Returns the
 * threshold used.
 */
static double
grid_kmeans(int dhat, int m, const double *count, double count_var,
			double threshold_sigmas, int k, int restarts, int max_iter,
			uint64_t seed, double *pcenters, int *coreset_size)
{
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, m));
	double		threshold = dpk_coreset_threshold(sqrt(count_var), threshold_sigmas,
												  (double) ncells);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
	double	   *pts;
	double	   *w;
	uint64_t	c;
	int			n = 0,
				j;

	for (c = 0; c < ncells; c++)
		if (count[c] > threshold)
			n++;
	pts = dpk_alloc(sizeof(double) * (size_t) (n ? n : 1) * dhat);
	w = dpk_alloc(sizeof(double) * (n ? n : 1));
	n = 0;
	for (c = 0; c < ncells; c++)
	{
		if (!(count[c] > threshold))
			continue;
		dpk_grid_cell_coords(dhat, m, c, idx);
		for (j = 0; j < dhat; j++)
			pts[(size_t) n * dhat + j] = ((double) idx[j] + 0.5) / m;
		w[n++] = count[c];
	}
	*coreset_size = n;
	if (n > 0)
		dpk_kmeans(pts, w, n, dhat, k, restarts, max_iter, seed, pcenters, NULL);
	else
		for (j = 0; j < k * dhat; j++)
			pcenters[j] = 0.5;
	dpk_free(idx);
	dpk_free(pts);
	dpk_free(w);
	return threshold;
}

/* Cell-mode clustering of one copy (see highd.h). */
double
dpk_highd_cells_cluster(const DpkProjection *p, const DpkHighdCells *hc, int k,
						double threshold_sigmas, int restarts, int max_iter,
						uint64_t seed, double *centers, double *sizes,
						int *coreset_size)
{
	int			d = p->d,
				dhat = p->dhat,
				lm = hc->lift_m > 0 ? hc->lift_m : hc->m,
				j;
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, hc->m));
	uint64_t	nl = (uint64_t) llround(dpk_grid_cells(dhat, lm));
	const double *lcount = (lm != hc->m && hc->lift_count) ? hc->lift_count : hc->count;
	double		lcount_var = lcount == hc->count ? hc->count_var : hc->lift_count_var;
	double	   *pc = dpk_alloc(sizeof(double) * (size_t) k * dhat);
	double	   *fallback = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *assign = dpk_alloc(sizeof(int) * nl);
	double	   *vote = dpk_alloc0(sizeof(double) * nl * k);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
	double	   *tc = dpk_alloc(sizeof(double) * dhat);
	double		threshold,
				lthreshold,
				min_count,
				score;
	int			csz;
	uint64_t	c;

	threshold = grid_kmeans(dhat, hc->m, hc->count, hc->count_var, threshold_sigmas,
							k, restarts, max_iter, seed, pc, &csz);
	if (coreset_size)
		*coreset_size = csz;
	for (j = 0; j < k; j++)
		dpk_project_back(p, pc + (size_t) j * dhat, fallback + (size_t) j * d);
	lthreshold = lcount == hc->count ? threshold
		: dpk_coreset_threshold(sqrt(lcount_var), threshold_sigmas, (double) nl);
	min_count = dpk_lift_min_count(lcount_var, hc->sum_var);

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
		vote[lc * k + nearest_center(tc, pc, k, dhat)] += hc->count[c];
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
			assign[c] = nearest_center(tc, pc, k, dhat);
		}
	}
	dpk_lift_centers_heavy(d, k, nl, lcount, hc->sum, assign, hc->sum_var, min_count,
						   fallback, centers, sizes);
	score = dpk_lift_cost(d, k, nl, lcount, hc->sum, hc->sumnorm, assign,
						  hc->sum_var, min_count);
	dpk_free(pc);
	dpk_free(fallback);
	dpk_free(assign);
	dpk_free(vote);
	dpk_free(idx);
	dpk_free(tc);
	return score;
}

/*
 * A partition of the points, one pass: the label of a point is either its
 * nearest original-space centre (centers set) or the tuple of its nearest
 * projected centres over `copies` projections, read as a number in base k,
 * optionally mapped through map[] to one of `nlabels` parts.
 */
typedef struct Partition
{
	int			nlabels;		/* parts after the map */
	int			copies;			/* projections whose labels make the tuple */
	const DpkProjection *proj;	/* copies */
	const double *pcenters;		/* copies * k * dhat */
	const int  *map;			/* tuple -> part, or NULL */
	const double *centers;		/* or: original-space centres (k * d) */
} Partition;

/*
 * Noisy count of every part (and with sum not NULL its noisy sum vector, in
 * normalized units) of a partition.  Every part gets noise, occupied or not;
 * every point is in exactly one part, so the sensitivities are 1 on the
 * counts and U / 2 in every coordinate of the sums (cube noise).
 */
static void
partition_stats(const HighdPlan *pl, const Partition *pt, DpkScale count_scale,
				DpkScale sum_scale, DpkStream *s, double *cnt, double *sum)
{
	int			d = pl->d,
				k = pl->k,
				dhat = pl->dhat,
				g,
				j,
				r;
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	double	   *t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * dhat);
	int		   *label = dpk_alloc0(sizeof(int) * DPK_PROJ_CHUNK);
	int64_t    *q = dpk_alloc(sizeof(int64_t) * d);
	int64_t    *gc = dpk_alloc0(sizeof(int64_t) * pt->nlabels);
	int64_t    *gs = sum ? dpk_alloc0(sizeof(int64_t) * (size_t) pt->nlabels * d) : NULL;
	size_t		done,
				i;

	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows = load_chunk(pl, done, u);

		if (pt->centers)
			dpk_kmeans_cost(u, NULL, (int) rows, d, pt->centers, k, label);
		else
		{
			memset(label, 0, sizeof(int) * rows);
			for (r = 0; r < pt->copies; r++)
			{
				dpk_project_batch(&pt->proj[r], u, rows, t);
				for (i = 0; i < rows; i++)
					label[i] = label[i] * k +
						nearest_center(t + i * dhat,
									   pt->pcenters + (size_t) r * k * dhat, k, dhat);
			}
			if (pt->map)
				for (i = 0; i < rows; i++)
					label[i] = pt->map[label[i]];
		}
		for (i = 0; i < rows; i++)
		{
			g = label[i];
			gc[g]++;
			if (gs)
			{
				dpk_lift_quantize(d, u + i * d, q);
				for (j = 0; j < d; j++)
					gs[(size_t) g * d + j] += q[j];
			}
		}
	}
	for (g = 0; g < pt->nlabels; g++)
	{
		if ((g & 255) == 0)
			dpk_check_interrupts();
		cnt[g] = (double) (gc[g] + dpk_discrete_laplace(s, count_scale));
		if (gs)
		{
			dpk_vector_noise(s, sum_scale, d, 1, gs + (size_t) g * d);
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

/* Work of one copy in the selection modes, kept for the best copy. */
typedef struct CopyOut
{
	double	   *centers;		/* k * d normalized */
	double	   *sizes;			/* k */
	int			coreset_size;
	double		score;
} CopyOut;

static void
copy_out_init(CopyOut *o, int k, int d)
{
	o->centers = dpk_alloc(sizeof(double) * (size_t) k * d);
	o->sizes = dpk_alloc0(sizeof(double) * k);
	o->coreset_size = 0;
	o->score = INFINITY;
}

static void
copy_out_free(CopyOut *o)
{
	dpk_free(o->centers);
	dpk_free(o->sizes);
}

/* Selection modes: run copy r and lift + score it (paper 000's boosting). */
static void
run_copy_select(const HighdPlan *pl, int r, DpkStream *s, CopyOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			d = pl->d,
				k = pl->k,
				dhat = pl->dhat,
				j;
	bool		cell_mode = cfg->lift_mode == DPK_LIFT_CELL;
	DpkProjection proj;
	CellStats	cells = {0, 0, NULL, NULL, NULL};
	double	   *count;
	double		sum_var_norm = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);

	dpk_projection_init(&proj, d, dhat, dpk_projection_copy_seed(cfg->proj_seed, r),
						cfg->half_width);
	cells.m = pl->lift_m;
	/* original-space statistics are gathered only when they get noise */
	count = copy_histogram(pl, &proj, s, cell_mode && pl->have_lift ? &cells : NULL);

	if (!pl->have_lift)
	{
		/* no lifting budget: the pseudo-inverse of the projected centres */
		double	   *pc = dpk_alloc(sizeof(double) * (size_t) k * dhat);

		grid_kmeans(dhat, pl->m, count, pl->count_var, cfg->threshold_sigmas, k,
					cfg->restarts, cfg->max_iter, dpk_stream_u64(s), pc,
					&out->coreset_size);
		for (j = 0; j < k; j++)
		{
			dpk_project_back(&proj, pc + (size_t) j * dhat, out->centers + (size_t) j * d);
			out->sizes[j] = 0.0;
		}
		out->score = 0.0;
		dpk_free(pc);
	}
	else if (cell_mode)
	{
		DpkHighdCells hc;

		hc.m = pl->m;
		hc.count = count;
		hc.count_var = pl->count_var;
		hc.lift_m = cells.m;
		hc.lift_count = cells.count;
		hc.lift_count_var = pl->lift_count_var;
		hc.sum = cells.sum;
		hc.sum_var = sum_var_norm;
		hc.sumnorm = pl->have_norm ? cells.norm : NULL;
		out->score = dpk_highd_cells_cluster(&proj, &hc, k, cfg->threshold_sigmas,
											 cfg->restarts, cfg->max_iter,
											 dpk_stream_u64(s), out->centers,
											 out->sizes, &out->coreset_size);
	}
	else
	{
		/* one noisy (count, sum) per projected cluster */
		double	   *pc = dpk_alloc(sizeof(double) * (size_t) k * dhat);
		double	   *fallback = dpk_alloc(sizeof(double) * (size_t) k * d);
		double	   *cnt = dpk_alloc(sizeof(double) * k);
		double	   *sum = dpk_alloc(sizeof(double) * (size_t) k * d);
		int		   *assign = dpk_alloc(sizeof(int) * k);
		double		min_count = dpk_lift_min_count(pl->lift_count_var, sum_var_norm);
		Partition	pt = {k, 1, &proj, pc, NULL, NULL};

		grid_kmeans(dhat, pl->m, count, pl->count_var, cfg->threshold_sigmas, k,
					cfg->restarts, cfg->max_iter, dpk_stream_u64(s), pc,
					&out->coreset_size);
		for (j = 0; j < k; j++)
		{
			dpk_project_back(&proj, pc + (size_t) j * dhat, fallback + (size_t) j * d);
			assign[j] = j;
		}
		partition_stats(pl, &pt, pl->lift_count_scale, pl->sum_scale, s, cnt, sum);
		dpk_lift_centers(d, k, (size_t) k, cnt, sum, assign, min_count, fallback,
						 out->centers, out->sizes);
		out->score = dpk_lift_cost(d, k, (size_t) k, cnt, sum, NULL, assign,
								   sum_var_norm, min_count);
		dpk_free(pc);
		dpk_free(fallback);
		dpk_free(cnt);
		dpk_free(sum);
		dpk_free(assign);
	}
	dpk_free(count);
	dpk_free(cells.count);
	dpk_free(cells.sum);
	dpk_free(cells.norm);
	dpk_projection_free(&proj);
}

/*
 * Joint mode.  Every copy's projected clustering labels each point; a
 * point's group is the tuple of its R labels (k^R groups).  One noisy count
 * per group (sensitivity 1: each point is in one group) tells which groups
 * are populated.  A group is embedded, at no privacy cost, at the
 * concatenation of its R projected centres (a point of the R * dhat
 * dimensional image of the R projections together); weighted k-means of the
 * groups above the noise in that embedding, then every group to its nearest
 * centre, gives a partition of all points into k parts.  Two clusters
 * merged by one projection stay apart as long as another separates them.
 * Each part is finally lifted from one noisy (count, sum) in the original
 * space.
 */
static void
run_joint(const HighdPlan *pl, DpkStream *s, CopyOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			d = pl->d,
				k = pl->k,
				dhat = pl->dhat,
				R = pl->copies,
				e = pl->copies * pl->dhat,
				r,
				g,
				j,
				ngroups = 1,
				nkept = 0;
	DpkProjection *proj = dpk_alloc(sizeof(DpkProjection) * R);
	double	   *pc = dpk_alloc(sizeof(double) * (size_t) R * k * dhat);
	double	   *gcnt,
			   *emb,
			   *kept,
			   *w,
			   *ec = dpk_alloc(sizeof(double) * (size_t) k * e);
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *sum = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *fallback = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *map,
			   *ident = dpk_alloc(sizeof(int) * k);
	double		sum_var_norm = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
	double		threshold;
	Partition	pt;

	for (r = 0; r < R; r++)
	{
		double	   *count;
		int			csz;

		dpk_projection_init(&proj[r], d, dhat,
							dpk_projection_copy_seed(cfg->proj_seed, r), cfg->half_width);
		count = copy_histogram(pl, &proj[r], s, NULL);
		grid_kmeans(dhat, pl->m, count, pl->count_var, cfg->threshold_sigmas, k,
					cfg->restarts, cfg->max_iter, dpk_stream_u64(s),
					pc + (size_t) r * k * dhat, &csz);
		dpk_free(count);
		if (r == 0 || csz > out->coreset_size)
			out->coreset_size = csz;
		ngroups *= k;
	}

	/* noisy group counts */
	gcnt = dpk_alloc(sizeof(double) * ngroups);
	emb = dpk_alloc(sizeof(double) * (size_t) ngroups * e);
	kept = dpk_alloc(sizeof(double) * (size_t) ngroups * e);
	w = dpk_alloc(sizeof(double) * ngroups);
	map = dpk_alloc(sizeof(int) * ngroups);
	pt.nlabels = ngroups;
	pt.copies = R;
	pt.proj = proj;
	pt.pcenters = pc;
	pt.map = NULL;
	pt.centers = NULL;
	partition_stats(pl, &pt, pl->group_scale, pl->group_scale, s, gcnt, NULL);

	/* embed every group; cluster the ones above the noise */
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
		dpk_kmeans(kept, w, nkept, e, k, cfg->restarts, cfg->max_iter,
				   dpk_stream_u64(s), ec, NULL);
		/* every group, kept or not, to its nearest centre */
		dpk_kmeans_cost(emb, NULL, ngroups, e, ec, k, map);
	}
	else
		for (g = 0; g < ngroups; g++)
			map[g] = g % k;

	/* lift each part */
	for (j = 0; j < k; j++)
	{
		int			c = j;

		/* fallback: the pseudo-inverse of the embedded centre's first block */
		dpk_project_back(&proj[0], nkept > 0 ? ec + (size_t) c * e : pc + (size_t) c * dhat,
						 fallback + (size_t) j * d);
		ident[j] = j;
	}
	pt.nlabels = k;
	pt.map = map;
	partition_stats(pl, &pt, pl->lift_count_scale, pl->sum_scale, s, cnt, sum);
	dpk_lift_centers(d, k, (size_t) k, cnt, sum, ident,
					 dpk_lift_min_count(pl->lift_count_var, sum_var_norm), fallback,
					 out->centers, out->sizes);
	out->score = 0.0;

	for (r = 0; r < R; r++)
		dpk_projection_free(&proj[r]);
	dpk_free(proj);
	dpk_free(pc);
	dpk_free(gcnt);
	dpk_free(emb);
	dpk_free(kept);
	dpk_free(w);
	dpk_free(ec);
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(fallback);
	dpk_free(map);
	dpk_free(ident);
}

/*
 * One private Lloyd step in the original space: every point to its nearest
 * centre (normalized coordinates), one noisy (count, sum) per centre, lift.
 */
static void
refine_step(const HighdPlan *pl, DpkScale count_scale, double count_var,
			DpkScale sum_scale, double sum_var, DpkStream *s, double *centers,
			double *sizes)
{
	int			d = pl->d,
				k = pl->k,
				j;
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *sum = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *prev = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *ident = dpk_alloc(sizeof(int) * k);
	double		sum_var_norm = sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
	Partition	pt = {k, 0, NULL, NULL, NULL, centers};

	partition_stats(pl, &pt, count_scale, sum_scale, s, cnt, sum);
	for (j = 0; j < k; j++)
		ident[j] = j;
	memcpy(prev, centers, sizeof(double) * (size_t) k * d);
	dpk_lift_centers(d, k, (size_t) k, cnt, sum, ident,
					 dpk_lift_min_count(count_var, sum_var_norm), prev, centers, sizes);
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(prev);
	dpk_free(ident);
}

/* One-shot high-d k-means (see highd.h). */
void
dpk_highd_oneshot_cluster(const DpkBox *box, const double *points, size_t n,
						  const DpkHighdConfig *cfg, DpkStream *s,
						  DpkOneshotResult *res)
{
	dpk_highd_oneshot_cluster_info(box, points, n, cfg, s, res, NULL);
}

/*
 * Scale b = sensitivity / eps and its variance; eps <= 0 means unused.  With
 * vector_d > 0 the sensitivity is an l-infinity bound of a vector_d-vector
 * and the variance that of one coordinate of dpk_vector_noise.
 */
static bool
plan_scale(double sensitivity, double eps, int vector_d, DpkScale *scale, double *var)
{
	if (!(eps > 0.0))
	{
		scale->num = 1;
		scale->den = 1;
		*var = 0.0;
		return false;
	}
	*scale = dpk_scale_from_double(sensitivity / eps);
	*var = vector_d > 0 ? dpk_vector_noise_variance(*scale, vector_d)
		: dpk_discrete_laplace_variance(*scale);
	return true;
}

/*
 * The copies the joint mode can combine: k^R groups, each with a count and
 * an R * dhat embedding, capped by max_lift_values.
 */
int
dpk_highd_copies(const DpkHighdConfig *cfg, int d)
{
	int			R = cfg->copies > 0 ? cfg->copies : 1;
	int			dhat = cfg->dhat > 0 ? cfg->dhat : dpk_highd_dhat(d, cfg->k);

	if (cfg->lift_mode == DPK_LIFT_JOINT)
	{
		double		groups = (double) cfg->k;

		R = 1;
		while (R < cfg->copies &&
			   groups * cfg->k * (1.0 + (R + 1) * dhat) <= cfg->max_lift_values &&
			   groups * cfg->k <= 1073741824.0)
		{
			groups *= cfg->k;
			R++;
		}
	}
	return R;
}

/* One-shot high-d k-means with details (see highd.h). */
void
dpk_highd_oneshot_cluster_info(const DpkBox *box, const double *points, size_t n,
							   const DpkHighdConfig *cfg, DpkStream *s,
							   DpkOneshotResult *res, DpkHighdInfo *info)
{
	HighdPlan	pl;
	int			d = box->d,
				k = cfg->k;
	bool		joint = cfg->lift_mode == DPK_LIFT_JOINT;
	double		eps_rest = cfg->epsilon,
				eps_n = 0.0,
				eps_refine_total = 0.0,
				eps_refine = 0.0,
				eps_grid,
				eps_lift,
				eps_group = 0.0,
				eps_lc = 0.0,
				eps_ls,
				eps_ln = 0.0,
				lcs;
	double		noisy_n,
				m,
				max_cells;
	int			max_per_dim,
				r,
				j,
				best = -1;
	CopyOut		best_out,
				cur;
	DpkScale	rc_scale = {1, 1},
				rs_scale = {1, 1};
	double		rc_var = 0.0,
				rs_var = 0.0;

	memset(&pl, 0, sizeof(pl));
	pl.box = box;
	pl.points = points;
	pl.n = n;
	pl.cfg = cfg;
	pl.d = d;
	pl.k = k;
	pl.dhat = cfg->dhat > 0 ? cfg->dhat : dpk_highd_dhat(d, k);
	pl.copies = dpk_highd_copies(cfg, d);

	/* Noisy N: sensitivity 1, only used to size the projected grid. */
	if (cfg->public_n >= 0.0)
		noisy_n = cfg->public_n;
	else
	{
		eps_n = cfg->epsilon * cfg->n_share;
		noisy_n = (double) n
			+ (double) dpk_discrete_laplace(s, dpk_scale_from_double(1.0 / eps_n));
		eps_rest -= eps_n;
	}
	if (noisy_n < 1.0)
		noisy_n = 1.0;

	/*
	 * Budget (sequential composition; every point is in every copy):
	 * refinement steps, then either R copies of (grid, lifting) in the
	 * selection modes or R grids plus one joint lifting.
	 */
	if (cfg->refine_steps > 0 && cfg->refine_share > 0.0)
	{
		eps_refine_total = eps_rest * cfg->refine_share;
		eps_refine = eps_refine_total / cfg->refine_steps;
	}
	if (joint)
	{
		eps_group = eps_rest * cfg->group_share;
		eps_lift = eps_rest * cfg->lift_share;
		eps_grid = (eps_rest - eps_refine_total - eps_group - eps_lift) / pl.copies;
	}
	else
	{
		double		eps_copy = (eps_rest - eps_refine_total) / pl.copies;

		eps_lift = eps_copy * cfg->lift_share;
		eps_grid = eps_copy - eps_lift;
	}
	lcs = cfg->lift_count_share >= 0.0 ? cfg->lift_count_share
		: 1.0 / (1.0 + pow((double) d, 2.0 / 3.0));
	if (cfg->lift_mode == DPK_LIFT_CELL)
	{
		/* the lifting cells are the grid's (counts shared) or coarser ones */
		if (cfg->lift_coarsen > 1)
			eps_lc = eps_lift * lcs;
		eps_ln = (eps_lift - eps_lc) * cfg->norm_share;
		eps_ls = eps_lift - eps_lc - eps_ln;
	}
	else
	{
		eps_lc = eps_lift * lcs;
		eps_ls = eps_lift - eps_lc;
	}

	/*
	 * Sensitivities of one point: 1 on the counts of a grid or a partition;
	 * U / 2 in every coordinate (l-infinity) of a sum vector of centred
	 * fixed-point coordinates, which gets the vector noise; d U^2 / 4 on a
	 * sum of squared norms.
	 */
	plan_scale(1.0, eps_grid, 0, &pl.count_scale, &pl.count_var);
	if (joint && !plan_scale(1.0, eps_group, 0, &pl.group_scale, &pl.group_var))
		eps_group = 0.0;
	pl.have_lift = plan_scale(DPK_LIFT_UNITS / 2.0, eps_ls, d, &pl.sum_scale,
							  &pl.sum_var);
	if (cfg->lift_mode == DPK_LIFT_CELL && eps_lc <= 0.0)
	{
		pl.lift_count_scale = pl.count_scale;
		pl.lift_count_var = pl.count_var;
	}
	else if (!plan_scale(1.0, eps_lc, 0, &pl.lift_count_scale, &pl.lift_count_var))
		pl.have_lift = false;
	pl.have_norm = plan_scale(d * (DPK_LIFT_UNITS / 2.0) * (DPK_LIFT_UNITS / 2.0),
							  eps_ln, 0, &pl.norm_scale, &pl.norm_var);
	if (eps_refine > 0.0)
	{
		plan_scale(1.0, eps_refine * lcs, 0, &rc_scale, &rc_var);
		plan_scale(DPK_LIFT_UNITS / 2.0, eps_refine * (1.0 - lcs), d, &rs_scale,
				   &rs_var);
	}

	/* Projected grid: RUGNIK at the count noise actually used, capped. */
	max_cells = cfg->max_cells;
	if (cfg->lift_mode == DPK_LIFT_CELL && cfg->lift_coarsen <= 1 &&
		cfg->max_lift_values / d < max_cells)
		max_cells = cfg->max_lift_values / d;
	max_per_dim = (int) floor(pow(max_cells, 1.0 / pl.dhat) + 1e-9);
	if (max_per_dim < 1)
		max_per_dim = 1;
	m = dpk_grid_m(DPK_RULE_RUGNIK, noisy_n, dpk_rugnik_eps_for_variance(pl.count_var),
				   k, pl.dhat);
	if (cfg->grid_scale == 1.0)
		pl.m = dpk_grid_cells_per_dim(DPK_RULE_RUGNIK, m, noisy_n,
									  dpk_rugnik_eps_for_variance(pl.count_var), k,
									  pl.dhat, max_per_dim);
	else
	{
		/* clamp in floating point: m can be astronomically large */
		double		ms = floor(m * cfg->grid_scale + 0.5);

		pl.m = !(ms >= 1.0) ? 1 : (ms >= (double) max_per_dim ? max_per_dim : (int) ms);
	}
	pl.lift_m = pl.m;
	if (cfg->lift_mode == DPK_LIFT_CELL && cfg->lift_coarsen > 1)
	{
		int			lmax = (int) floor(pow(cfg->max_lift_values / d, 1.0 / pl.dhat) + 1e-9);

		pl.lift_m = (pl.m + cfg->lift_coarsen - 1) / cfg->lift_coarsen;
		if (pl.lift_m > lmax)
			pl.lift_m = lmax;
		if (pl.lift_m < 1)
			pl.lift_m = 1;
	}

	copy_out_init(&best_out, k, d);
	copy_out_init(&cur, k, d);
	if (joint)
	{
		if (pl.have_lift && eps_group > 0.0)
			run_joint(&pl, s, &best_out);
		else
		{
			/* a configuration without lifting budget: centres at the middle */
			for (j = 0; j < k * d; j++)
				best_out.centers[j] = 0.5;
		}
	}
	else
	{
		/* the copies; keep the one with the lowest private score */
		for (r = 0; r < pl.copies; r++)
		{
			run_copy_select(&pl, r, s, &cur);
			if (info && r < 16)
				info->score[r] = cur.score;
			if (info && info->copy_centers)
				memcpy(info->copy_centers + (size_t) r * k * d, cur.centers,
					   sizeof(double) * (size_t) k * d);
			if (r == 0 || cur.score < best_out.score)
			{
				CopyOut		tmp = best_out;

				best_out = cur;
				cur = tmp;
				best = r;
			}
		}
	}

	for (j = 0; j < cfg->refine_steps && eps_refine > 0.0; j++)
		refine_step(&pl, rc_scale, rc_var, rs_scale, rs_var, s, best_out.centers,
					best_out.sizes);

	res->noisy_n = noisy_n;
	res->cells_per_dim = pl.m;
	res->cells = dpk_grid_cells(pl.dhat, pl.m);
	res->coreset_size = best_out.coreset_size;
	res->centers = dpk_alloc(sizeof(double) * (size_t) k * d);
	res->sizes = dpk_alloc(sizeof(double) * k);
	for (j = 0; j < k; j++)
	{
		dpk_box_denormalize(box, best_out.centers + (size_t) j * d,
							res->centers + (size_t) j * d);
		res->sizes[j] = best_out.sizes[j] > 0.0 ? best_out.sizes[j] : 0.0;
	}

	if (info)
	{
		info->dhat = pl.dhat;
		info->lift_m = pl.lift_m;
		info->copies = pl.copies;
		info->chosen = best;
		info->eps_n = eps_n;
		info->eps_grid = eps_grid;
		info->eps_group = eps_group;
		info->eps_lift_count = eps_lc;
		info->eps_lift_sum = eps_ls;
		info->eps_lift_norm = eps_ln;
		info->eps_refine = eps_refine;
		info->count_scale = dpk_scale_value(pl.count_scale);
		info->group_scale = eps_group > 0.0 ? dpk_scale_value(pl.group_scale) : 0.0;
		info->lift_count_scale = eps_lc > 0.0 ? dpk_scale_value(pl.lift_count_scale) : 0.0;
		info->sum_scale = pl.have_lift ? dpk_scale_value(pl.sum_scale) : 0.0;
		info->norm_scale = pl.have_norm ? dpk_scale_value(pl.norm_scale) : 0.0;
		info->refine_count_scale = eps_refine > 0.0 ? dpk_scale_value(rc_scale) : 0.0;
		info->refine_sum_scale = eps_refine > 0.0 ? dpk_scale_value(rs_scale) : 0.0;
	}
	copy_out_free(&best_out);
	copy_out_free(&cur);
}
