/*
 * highd_research.c
 *		Research variants of the high-dimensional one-shot release: the
 *		selection modes with their split of epsilon and their plan, and
 *		refinement steps (see highd_research.h).
 */
#include "highd_research.h"

#include <math.h>
#include <string.h>

#include "budget.h"
#include "dpk_mem.h"
#include "kmeans.h"
#include "zcdp.h"

/* Defaults of a research configuration (see highd_research.h). */
void
highd_research_defaults(HighdResearchConfig *rc, double epsilon, int k)
{
	dpk_highd_defaults(&rc->base, epsilon, k);
	rc->lift_mode = HIGHD_LIFT_JOINT;
	rc->norm_share = 0.0;
	rc->lift_coarsen = 1;
}

/* The lift of a selection mode: counts, sums and (cell mode) norms. */
static void
research_lift_split(const HighdResearchConfig *rc, double eps_lift, double lcs,
					HighdResearchBudget *b)
{
	b->base.eps_lift_count = 0.0;
	b->eps_lift_norm = 0.0;
	if (rc->lift_mode == HIGHD_LIFT_CELL)
	{
		/* the lifting cells are the grid's (counts shared) or coarser ones */
		if (rc->lift_coarsen > 1)
			b->base.eps_lift_count = eps_lift * lcs;
		b->eps_lift_norm = (eps_lift - b->base.eps_lift_count) * rc->norm_share;
		b->base.eps_lift_sum = eps_lift - b->base.eps_lift_count - b->eps_lift_norm;
	}
	else
	{
		b->base.eps_lift_count = eps_lift * lcs;
		b->base.eps_lift_sum = eps_lift - b->base.eps_lift_count;
	}
}

/* The shares of a research release (see highd_research.h). */
HighdResearchBudget
highd_research_budget(const HighdResearchConfig *rc, int d)
{
	const DpkHighdConfig *cfg = &rc->base;
	HighdResearchBudget rb;
	DpkHighdBudget *b = &rb.base;
	double		eps_rest = cfg->epsilon,
				eps_refine_total = 0.0,
				eps_copy,
				eps_lift,
				lcs;

	memset(&rb, 0, sizeof(rb));
	if (rc->lift_mode == HIGHD_LIFT_JOINT)
	{
		rb.base = dpk_budget_highd(cfg, d);
		return rb;
	}
	rb.lift_per_copy = true;
	b->copies = cfg->copies > 0 ? cfg->copies : 1;
	b->refine_steps = cfg->refine_steps;
	b->eps_n = 0.0;
	if (cfg->public_n < 0.0)
	{
		b->eps_n = cfg->epsilon * cfg->n_share;
		eps_rest -= b->eps_n;
	}
	b->eps_refine = 0.0;
	if (cfg->refine_steps > 0 && cfg->refine_share > 0.0)
	{
		eps_refine_total = eps_rest * cfg->refine_share;
		b->eps_refine = eps_refine_total / cfg->refine_steps;
	}
	b->eps_group = 0.0;
	eps_copy = (eps_rest - eps_refine_total) / b->copies;
	eps_lift = eps_copy * cfg->lift_share;
	b->eps_grid = eps_copy - eps_lift;
	/* a grid without budget would be counted without accounted noise */
	if (!(b->eps_grid > 0.0))
		dpk_fail("the shares of a high-dimensional release leave nothing for its grids");
	lcs = cfg->lift_count_share >= 0.0 ? cfg->lift_count_share
		: 1.0 / (1.0 + pow((double) d, 2.0 / 3.0));
	research_lift_split(rc, eps_lift, lcs, &rb);
	b->eps_refine_count = b->eps_refine * lcs;
	b->eps_refine_sum = b->eps_refine * (1.0 - lcs);
	dpk_budget_check(highd_research_budget_total(&rb), cfg->epsilon,
				 "the epsilon shares of a high-dimensional release do not add up to epsilon");
	return rb;
}

/* What a research budget spends (see highd_research.h). */
double
highd_research_budget_total(const HighdResearchBudget *rb)
{
	const DpkHighdBudget *b = &rb->base;
	double		lift = b->eps_lift_count + b->eps_lift_sum + rb->eps_lift_norm;
	double		per_copy = b->eps_grid + (rb->lift_per_copy ? lift : 0.0);
	double		once = b->eps_n + b->eps_group + (rb->lift_per_copy ? 0.0 : lift);

	if (b->refine_steps > 0)
		once += b->refine_steps * b->eps_refine;
	return once + b->copies * per_copy;
}

/* A research release's plan: the core's, and what only the cell mode uses. */
typedef struct ResearchPlan
{
	const HighdResearchConfig *rc;
	DpkHighdConfig cfg;			/* rc->base, the grid capped in cell mode */
	HighdResearchBudget eps;	/* of epsilon, or with delta > 0 of rho */
	DpkHighdPlan pl;
	int			lift_m;			/* cell mode: lifting cells per dimension */
	DpkNoise	norm_scale;		/* cell mode: sums of squared norms */
	double		norm_var;
	bool		have_norm;
} ResearchPlan;

/*
 * Noise of one value of this sensitivity and share eps (of rho with gauss):
 * as the core's plan, eps <= 0 meaning unused.
 */
static bool
research_scale(bool gauss, double sensitivity, double eps, DpkNoise *noise, double *var)
{
	DpkScale	one = {1, 1};

	if (!(eps > 0.0))
	{
		*noise = dpk_noise_laplace(one);
		*var = 0.0;
		return false;
	}
	*noise = gauss
		? dpk_noise_gauss(dpk_gauss_scale_from_double(dpk_zcdp_sigma2(sensitivity * sensitivity,
																	  eps)))
		: dpk_noise_laplace(dpk_scale_from_double(sensitivity / eps));
	*var = dpk_noise_variance(noise, 0);
	return true;
}

/*
 * Plan a research release: its split, then the core's plan with it (the
 * noisy N, the scales, the grid; in cell mode with the grid's own lifting
 * cells at most max_lift_values / d cells, whose counts serve the lift),
 * then the lifting cells and the norms' noise (sensitivity d U^2 / 4, or
 * the ball's squared l2 bound).  rp must stay where it is while rp->pl is
 * used.
 */
static void
research_plan(ResearchPlan *rp, const DpkBox *box, const double *points, size_t n,
			  const HighdResearchConfig *rc, DpkStream *s)
{
	DpkHighdPlan *pl = &rp->pl;
	int			d = box->d;
	bool		cell = rc->lift_mode == HIGHD_LIFT_CELL,
				g = rc->base.delta > 0.0;
	double		norm_sens;

	memset(rp, 0, sizeof(*rp));
	rp->rc = rc;
	rp->cfg = rc->base;
	if (cell && rc->lift_coarsen <= 1 && rp->cfg.max_lift_values / d < rp->cfg.max_cells)
		rp->cfg.max_cells = rp->cfg.max_lift_values / d;
	if (g)
	{
		/* the shares split rho instead of epsilon (zCDP composes additively) */
		HighdResearchConfig z = *rc;

		z.base.epsilon = dpk_zcdp_rho(rc->base.epsilon, rc->base.delta);
		rp->eps = highd_research_budget(&z, d);
	}
	else
		rp->eps = highd_research_budget(rc, d);
	dpk_highd_plan_budget(pl, box, points, n, &rp->cfg, &rp->eps.base, s);
	rp->eps.base = pl->eps;
	if (cell && pl->eps.eps_lift_count <= 0.0)
	{
		/* the grid's own cells: its counts serve the lift */
		pl->lift_count_scale = pl->count_scale;
		pl->lift_count_var = pl->count_var;
		pl->have_lift = pl->eps.eps_lift_sum > 0.0;
	}
	norm_sens = rp->cfg.ball > 0.0
		? dpk_lift_point_l2(d, rp->cfg.ball) * dpk_lift_point_l2(d, rp->cfg.ball)
		: d * (DPK_LIFT_UNITS / 2.0) * (DPK_LIFT_UNITS / 2.0);
	rp->have_norm = research_scale(g, norm_sens, rp->eps.eps_lift_norm, &rp->norm_scale,
								   &rp->norm_var);
	rp->lift_m = pl->m;
	if (cell && rc->lift_coarsen > 1)
	{
		int			lmax = (int) floor(pow(rp->cfg.max_lift_values / d, 1.0 / pl->dhat) + 1e-9);

		rp->lift_m = (pl->m + rc->lift_coarsen - 1) / rc->lift_coarsen;
		if (rp->lift_m > lmax)
			rp->lift_m = lmax;
		if (rp->lift_m < 1)
			rp->lift_m = 1;
	}
}

/* Original-space statistics of a copy's lifting cells (cell mode). */
typedef struct CellStats
{
	const ResearchPlan *rp;
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
cell_stats_init(CellStats *cs, const ResearchPlan *rp)
{
	const DpkHighdPlan *pl = &rp->pl;

	memset(cs, 0, sizeof(*cs));
	cs->rp = rp;
	cs->pl = pl;
	cs->m = rp->lift_m;
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
		cs->norm[c] = cs->rp->have_norm
			? (double) (cs->lnorm[c] + dpk_noise_draw(s, &cs->rp->norm_scale)) / unit2
			: 0.0;
	}
	dpk_free(cs->lcount);
	dpk_free(cs->lsum);
	dpk_free(cs->lnorm);
	dpk_free(cs->q);
	cs->lcount = cs->lsum = cs->lnorm = cs->q = NULL;
}

/* No lifting budget: the pseudo-inverse of the projected centres; score 0. */
static double
copy_unlifted(const DpkHighdPlan *pl, const DpkProjection *proj, const double *count,
			  DpkStream *s, DpkHighdOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			k = pl->k,
				dhat = pl->dhat,
				j;
	double	   *pc = dpk_alloc(sizeof(double) * (size_t) k * dhat);

	dpk_highd_grid_kmeans(&(DpkNoisyGrid) {dhat, pl->m, count, pl->count_var, false},
						  cfg->threshold_sigmas,
						  &(DpkClusterOpts) {k, cfg->restarts, cfg->max_iter,
											 dpk_stream_u64(s)},
						  pc, &out->coreset_size);
	for (j = 0; j < k; j++)
	{
		dpk_project_back(proj, pc + (size_t) j * dhat, out->centers + (size_t) j * pl->d);
		out->sizes[j] = 0.0;
	}
	dpk_free(pc);
	return 0.0;
}

/*
 * Cell mode: dpk_highd_cells_cluster on the copy's noisy cell statistics;
 * returns its private score.
 */
static double
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
	hc.sumnorm = cs->rp->have_norm ? cs->norm : NULL;
	hc.space_noise2 = 0.0;
	hc.lift_weighted = false;
	hc.threshold_cells = 0.0;
	hc.plane_cells = -1.0;
	hc.rest_mean = false;
	hc.gauss_tail = false;
	return dpk_highd_cells_cluster(proj, &hc, cfg->threshold_sigmas,
								   &(DpkClusterOpts) {pl->k, cfg->restarts, cfg->max_iter,
													  dpk_stream_u64(s)},
								   &(DpkClusterOut) {out->centers, out->sizes},
								   &out->coreset_size);
}

/*
 * Cluster mode: one noisy (count, sum) per projected cluster, lift; returns
 * the private score.
 */
static double
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
	double		score;
	DpkHighdPartition pt = {k, 1, proj, pc, NULL, NULL, NULL, NULL};

	dpk_highd_grid_kmeans(&(DpkNoisyGrid) {dhat, pl->m, count, pl->count_var, false},
						  cfg->threshold_sigmas,
						  &(DpkClusterOpts) {k, cfg->restarts, cfg->max_iter,
											 dpk_stream_u64(s)},
						  pc, &out->coreset_size);
	for (j = 0; j < k; j++)
	{
		dpk_project_back(proj, pc + (size_t) j * dhat, fallback + (size_t) j * d);
		assign[j] = j;
	}
	dpk_highd_partition_stats(pl, &pt, &pl->lift_count_scale, &pl->sum_scale, s, cnt, sum);
	dpk_lift_centers(&(DpkLiftCells) {d, k, (size_t) k, cnt, sum, assign},
					 &(DpkLiftRule) {0.0, min_count, fallback, NULL},
					 out->centers, out->sizes);
	score = dpk_lift_cost(d, k, (size_t) k, cnt, sum, NULL, assign, sum_var_norm, min_count);
	dpk_free(pc);
	dpk_free(fallback);
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(assign);
	return score;
}

/* Selection modes: copy r's histogram, lift; returns its private score. */
static double
run_copy_select(const ResearchPlan *rp, int r, DpkStream *s, DpkHighdOut *out)
{
	const DpkHighdPlan *pl = &rp->pl;
	const DpkHighdConfig *cfg = pl->cfg;
	bool		cells = rp->rc->lift_mode == HIGHD_LIFT_CELL && pl->have_lift;
	DpkProjection proj;
	CellStats	cs;
	double	   *count,
				score;

	dpk_projection_init(&proj, pl->d, pl->dhat,
						dpk_projection_copy_seed(cfg->proj_seed, r), cfg->half_width);
	/* original-space statistics are gathered only when they get noise */
	memset(&cs, 0, sizeof(cs));
	if (cells)
		cell_stats_init(&cs, rp);
	count = dpk_highd_histogram(pl, &proj, s, cells ? cell_stats_visit : NULL, &cs);
	if (cells)
		cell_stats_noise(&cs, s);

	if (!pl->have_lift)
		score = copy_unlifted(pl, &proj, count, s, out);
	else if (cells)
		score = copy_cells(pl, &proj, count, &cs, s, out);
	else
		score = copy_clusters(pl, &proj, count, s, out);
	dpk_free(count);
	dpk_free(cs.count);
	dpk_free(cs.sum);
	dpk_free(cs.norm);
	dpk_projection_free(&proj);
	return score;
}

/* Every copy in turn; best gets the one with the lowest private score. */
static int
select_copies(const ResearchPlan *rp, DpkStream *s, DpkHighdOut *best,
			  HighdResearchInfo *info)
{
	const DpkHighdPlan *pl = &rp->pl;
	int			k = pl->k,
				d = pl->d,
				r,
				chosen = -1;
	double		best_score = INFINITY;
	DpkHighdOut cur;

	dpk_highd_out_init(&cur, k, d);
	for (r = 0; r < pl->copies; r++)
	{
		double		score = run_copy_select(rp, r, s, &cur);

		if (info && r < 16)
			info->score[r] = score;
		if (info && info->copy_centers)
			memcpy(info->copy_centers + (size_t) r * k * d, cur.centers,
				   sizeof(double) * (size_t) k * d);
		if (r == 0 || score < best_score)
		{
			DpkHighdOut tmp = *best;

			*best = cur;
			cur = tmp;
			best_score = score;
			chosen = r;
		}
	}
	dpk_highd_out_free(&cur);
	return chosen;
}

/* Any mode, then refinement (see highd_research.h). */
void
highd_research_cluster(const DpkBox *box, const double *points, size_t n,
					   const HighdResearchConfig *rc, DpkStream *s, DpkOneshotResult *res,
					   HighdResearchInfo *info)
{
	ResearchPlan rp;
	DpkHighdPlan *pl = &rp.pl;
	DpkHighdOut best;
	int			chosen = -1,
				j;

	research_plan(&rp, box, points, n, rc, s);
	dpk_highd_out_init(&best, pl->k, pl->d);
	if (rc->lift_mode == HIGHD_LIFT_JOINT)
		dpk_highd_run_joint(pl, s, &best);
	else
		chosen = select_copies(&rp, s, &best, info);
	for (j = 0; j < rc->base.refine_steps && pl->eps.eps_refine > 0.0; j++)
		dpk_highd_refine_step(pl, s, best.centers, best.sizes, false, NULL);
	dpk_highd_finish(pl, &best, res, info ? &info->base : NULL);
	if (info)
	{
		info->budget = rp.eps;
		info->lift_m = rp.lift_m;
		info->norm_scale = rp.have_norm ? dpk_noise_scale_value(&rp.norm_scale) : 0.0;
		info->chosen = chosen;
	}
	dpk_highd_out_free(&best);
}
