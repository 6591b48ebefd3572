/*
 * highd_research.c
 *		Research variants of the high-dimensional one-shot release: the
 *		selection modes and refinement steps (see highd_research.h).
 */
#include "highd_research.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "kmeans.h"

/* Original-space statistics of a copy's lifting cells (cell mode). */
typedef struct CellStats
{
	const DpkHighdPlan *pl;
	int			m;				/* lifting cells per dimension */
	uint64_t	ncells;
	int64_t    *lcount;			/* true counts, NULL when m is the grid's own */
	int64_t    *lsum;			/* true sums, ncells * d, fixed point */
	int64_t    *lnorm;			/* true sums of squared norms */
	int64_t    *q;				/* scratch: one point's contribution */
	double	   *count;			/* noisy, ncells (NULL with lcount) */
	double	   *sum;			/* noisy, ncells * d, normalized units */
	double	   *norm;			/* noisy, ncells, normalized units squared */
} CellStats;

/* Empty true statistics of the plan's lifting cells. */
static void
cell_stats_init(CellStats *cs, const DpkHighdPlan *pl)
{
	memset(cs, 0, sizeof(*cs));
	cs->pl = pl;
	cs->m = pl->lift_m;
	cs->ncells = (uint64_t) llround(dpk_grid_cells(pl->dhat, cs->m));
	if (cs->m != pl->m)
		cs->lcount = dpk_alloc0(sizeof(int64_t) * cs->ncells);
	cs->lsum = dpk_alloc0(sizeof(int64_t) * cs->ncells * pl->d);
	cs->lnorm = dpk_alloc0(sizeof(int64_t) * cs->ncells);
	cs->q = dpk_alloc(sizeof(int64_t) * pl->d);
}

/* Histogram visitor: add one point to its lifting cell. */
static void
cell_stats_visit(void *arg, const double *u, const double *t, uint64_t cell)
{
	CellStats  *cs = arg;
	int			d = cs->pl->d,
				j;

	if (cs->lcount)
	{
		cell = dpk_grid_cell(cs->pl->dhat, cs->m, t, NULL, NULL);
		cs->lcount[cell]++;
	}
	cs->lnorm[cell] += dpk_lift_quantize(d, u, cs->q);
	for (j = 0; j < d; j++)
		cs->lsum[cell * d + j] += cs->q[j];
}

/* Noise on every lifting cell, occupied or not; frees the true values. */
static void
cell_stats_noise(CellStats *cs, DpkStream *s)
{
	const DpkHighdPlan *pl = cs->pl;
	int			d = pl->d,
				j;
	double		unit2 = (double) DPK_LIFT_UNITS * DPK_LIFT_UNITS;
	uint64_t	c;

	cs->count = cs->lcount ? dpk_alloc(sizeof(double) * cs->ncells) : NULL;
	cs->sum = dpk_alloc(sizeof(double) * cs->ncells * d);
	cs->norm = dpk_alloc(sizeof(double) * cs->ncells);
	for (c = 0; c < cs->ncells; c++)
	{
		if ((c & 1023) == 0)
			dpk_check_interrupts();
		if (cs->lcount)
			cs->count[c] = (double) (cs->lcount[c] +
									 dpk_noise_draw(s, &pl->lift_count_scale));
		dpk_noise_add_vector(s, &pl->sum_scale, d, 1, cs->lsum + c * d);
		for (j = 0; j < d; j++)
			cs->sum[c * d + j] = (double) cs->lsum[c * d + j] / DPK_LIFT_UNITS;
		/* sums of squared norms are released only with their own noise */
		cs->norm[c] = pl->have_norm
			? (double) (cs->lnorm[c] + dpk_noise_draw(s, &pl->norm_scale)) / unit2
			: 0.0;
	}
	dpk_free(cs->lcount);
	dpk_free(cs->lsum);
	dpk_free(cs->lnorm);
	dpk_free(cs->q);
	cs->lcount = cs->lsum = cs->lnorm = cs->q = NULL;
}

/* No lifting budget: the pseudo-inverse of the projected centres. */
static void
copy_unlifted(const DpkHighdPlan *pl, const DpkProjection *proj, const double *count,
			  DpkStream *s, DpkHighdOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			k = pl->k,
				dhat = pl->dhat,
				j;
	double	   *pc = dpk_alloc(sizeof(double) * (size_t) k * dhat);

	dpk_highd_grid_kmeans(dhat, pl->m, count, pl->count_var, cfg->threshold_sigmas, k,
						  cfg->restarts, cfg->max_iter, dpk_stream_u64(s), pc,
						  &out->coreset_size);
	for (j = 0; j < k; j++)
	{
		dpk_project_back(proj, pc + (size_t) j * dhat, out->centers + (size_t) j * pl->d);
		out->sizes[j] = 0.0;
	}
	out->score = 0.0;
	dpk_free(pc);
}

/* Cell mode: dpk_highd_cells_cluster on the copy's noisy cell statistics. */
static void
copy_cells(const DpkHighdPlan *pl, const DpkProjection *proj, const double *count,
		   const CellStats *cs, DpkStream *s, DpkHighdOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	DpkHighdCells hc;

	hc.m = pl->m;
	hc.count = count;
	hc.count_var = pl->count_var;
	hc.lift_m = cs->m;
	hc.lift_count = cs->count;
	hc.lift_count_var = pl->lift_count_var;
	hc.sum = cs->sum;
	hc.sum_var = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
	hc.sumnorm = pl->have_norm ? cs->norm : NULL;
	hc.space_noise2 = 0.0;
	hc.lift_weighted = false;
	hc.threshold_cells = 0.0;
	hc.plane_cells = -1.0;
	hc.rest_mean = false;
	out->score = dpk_highd_cells_cluster(proj, &hc, pl->k, cfg->threshold_sigmas,
										 cfg->restarts, cfg->max_iter, dpk_stream_u64(s),
										 out->centers, out->sizes, &out->coreset_size);
}

/* Cluster mode: one noisy (count, sum) per projected cluster, lift, score. */
static void
copy_clusters(const DpkHighdPlan *pl, const DpkProjection *proj, const double *count,
			  DpkStream *s, DpkHighdOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			d = pl->d,
				k = pl->k,
				dhat = pl->dhat,
				j;
	double		sum_var_norm = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
	double	   *pc = dpk_alloc(sizeof(double) * (size_t) k * dhat);
	double	   *fallback = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *sum = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *assign = dpk_alloc(sizeof(int) * k);
	double		min_count = dpk_lift_min_count(pl->lift_count_var, sum_var_norm);
	DpkHighdPartition pt = {k, 1, proj, pc, NULL, NULL};

	dpk_highd_grid_kmeans(dhat, pl->m, count, pl->count_var, cfg->threshold_sigmas, k,
						  cfg->restarts, cfg->max_iter, dpk_stream_u64(s), pc,
						  &out->coreset_size);
	for (j = 0; j < k; j++)
	{
		dpk_project_back(proj, pc + (size_t) j * dhat, fallback + (size_t) j * d);
		assign[j] = j;
	}
	dpk_highd_partition_stats(pl, &pt, &pl->lift_count_scale, &pl->sum_scale, s, cnt, sum);
	dpk_lift_centers(&(DpkLiftCells) {d, k, (size_t) k, cnt, sum, assign},
					 &(DpkLiftRule) {0.0, min_count, fallback, NULL},
					 out->centers, out->sizes);
	out->score = dpk_lift_cost(d, k, (size_t) k, cnt, sum, NULL, assign, sum_var_norm,
							   min_count);
	dpk_free(pc);
	dpk_free(fallback);
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(assign);
}

/* Selection modes: copy r's histogram, lift and private score. */
static void
run_copy_select(const DpkHighdPlan *pl, int r, DpkStream *s, DpkHighdOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	bool		cells = cfg->lift_mode == DPK_LIFT_CELL && pl->have_lift;
	DpkProjection proj;
	CellStats	cs;
	double	   *count;

	dpk_projection_init(&proj, pl->d, pl->dhat,
						dpk_projection_copy_seed(cfg->proj_seed, r), cfg->half_width);
	/* original-space statistics are gathered only when they get noise */
	memset(&cs, 0, sizeof(cs));
	if (cells)
		cell_stats_init(&cs, pl);
	count = dpk_highd_histogram(pl, &proj, s, cells ? cell_stats_visit : NULL, &cs);
	if (cells)
		cell_stats_noise(&cs, s);

	if (!pl->have_lift)
		copy_unlifted(pl, &proj, count, s, out);
	else if (cells)
		copy_cells(pl, &proj, count, &cs, s, out);
	else
		copy_clusters(pl, &proj, count, s, out);
	dpk_free(count);
	dpk_free(cs.count);
	dpk_free(cs.sum);
	dpk_free(cs.norm);
	dpk_projection_free(&proj);
}

/* Every copy in turn; best gets the one with the lowest private score. */
static int
select_copies(const DpkHighdPlan *pl, DpkStream *s, DpkHighdOut *best,
			  HighdResearchInfo *info)
{
	int			k = pl->k,
				d = pl->d,
				r,
				chosen = -1;
	DpkHighdOut cur;

	dpk_highd_out_init(&cur, k, d);
	for (r = 0; r < pl->copies; r++)
	{
		run_copy_select(pl, r, s, &cur);
		if (info && r < 16)
			info->score[r] = cur.score;
		if (info && info->copy_centers)
			memcpy(info->copy_centers + (size_t) r * k * d, cur.centers,
				   sizeof(double) * (size_t) k * d);
		if (r == 0 || cur.score < best->score)
		{
			DpkHighdOut tmp = *best;

			*best = cur;
			cur = tmp;
			chosen = r;
		}
	}
	dpk_highd_out_free(&cur);
	return chosen;
}

/* Any mode, then refinement (see highd_research.h). */
void
highd_research_cluster(const DpkBox *box, const double *points, size_t n,
					   const DpkHighdConfig *cfg, DpkStream *s, DpkOneshotResult *res,
					   HighdResearchInfo *info)
{
	DpkHighdPlan pl;
	DpkHighdOut best;
	int			chosen = -1,
				j;

	dpk_highd_plan(&pl, box, points, n, cfg, s);
	dpk_highd_out_init(&best, pl.k, pl.d);
	if (cfg->lift_mode == DPK_LIFT_JOINT)
		dpk_highd_run_joint(&pl, s, &best);
	else
		chosen = select_copies(&pl, s, &best, info);
	for (j = 0; j < cfg->refine_steps && pl.eps.eps_refine > 0.0; j++)
		dpk_highd_refine_step(&pl, s, best.centers, best.sizes, false, NULL);
	dpk_highd_finish(&pl, &best, res, info ? &info->base : NULL);
	if (info)
		info->chosen = chosen;
	dpk_highd_out_free(&best);
}
