/*
 * highd_plan.c
 *		The plan of a high-dimensional one-shot release (see highd.h): its
 *		budget (of epsilon, or with delta > 0 of rho), the noisy N, the
 *		noise of every family and the projected grid; and the release's
 *		published form at the end (dpk_highd_finish).
 */
#include "highd.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "lift.h"
#include "rugnik.h"
#include "zcdp.h"

/* ---- plan ---- */

/*
 * Noise of sensitivity / eps and its variance; eps <= 0 means unused.  With
 * vector_d > 0 the sensitivity is a per-coordinate bound of a
 * vector_d-vector (cube noise at that l-infinity scale; Gaussian: the l2
 * bound sqrt(vector_d) sensitivity) and the variance that of a coordinate.
 * With gauss, eps is a share of rho and sigma^2 = l2^2 / (2 eps).
 */
static bool
plan_scale(bool gauss, double sensitivity, double eps, int vector_d, DpkNoise *noise,
		   double *var)
{
	DpkScale	one = {1, 1};
	double		l2sq = sensitivity * sensitivity * (vector_d > 0 ? vector_d : 1);

	if (!(eps > 0.0))
	{
		*noise = dpk_noise_laplace(one);
		*var = 0.0;
		return false;
	}
	*noise = gauss ? dpk_noise_gauss(dpk_gauss_scale_from_double(dpk_zcdp_sigma2(l2sq, eps)))
		: dpk_noise_laplace(dpk_scale_from_double(sensitivity / eps));
	*var = dpk_noise_variance(noise, vector_d);
	return true;
}

/*
 * The lifting (or refinement) sums of a plan with a ball
 * (dpk_highd_use_ball), share eps: one point's contribution within p =
 * dpk_lift_point_l2 in l2.  Gaussian: sigma^2 from p^2.  Pure: one discrete
 * Laplace per coordinate at the l1 bound sqrt(d) p when its variance is
 * below *var, the cube noise's at U/2.
 */
static void
plan_ball_sums(const DpkHighdPlan *pl, double eps, DpkNoise *scale, double *var)
{
	int			d = pl->d;
	double		p = dpk_lift_point_l2(d, pl->cfg->ball);
	DpkNoise	n;

	if (pl->cfg->delta > 0.0)
	{
		n = dpk_noise_gauss(dpk_gauss_scale_from_double(dpk_zcdp_sigma2(p * p, eps)));
		*scale = n;
		*var = dpk_noise_variance(&n, d);
		return;
	}
	n = dpk_noise_laplace(dpk_scale_from_double(sqrt((double) d) * p / eps));
	n.coords = true;
	if (dpk_noise_variance(&n, d) < *var)
	{
		*scale = n;
		*var = dpk_noise_variance(&n, d);
	}
}

/*
 * The noise scales of a plan from its budget.  Sensitivities of one point:
 * 1 on the counts of a grid or a partition; U / 2 in every coordinate
 * (l-infinity) of a sum vector of centred fixed-point coordinates, which
 * gets the vector noise.
 */
static void
plan_scales(DpkHighdPlan *pl)
{
	const DpkHighdConfig *cfg = pl->cfg;
	DpkHighdBudget *eps = &pl->eps;
	int			d = pl->d;
	bool		g = cfg->delta > 0.0;

	plan_scale(g, 1.0, eps->eps_grid, 0, &pl->count_scale, &pl->count_var);
	if (!plan_scale(g, 1.0, eps->eps_group, 0, &pl->group_scale, &pl->group_var))
		eps->eps_group = 0.0;
	pl->have_lift = plan_scale(g, DPK_LIFT_UNITS / 2.0, eps->eps_lift_sum, d, &pl->sum_scale,
							   &pl->sum_var);
	if (pl->have_lift && cfg->ball > 0.0)
		plan_ball_sums(pl, eps->eps_lift_sum, &pl->sum_scale, &pl->sum_var);
	if (!plan_scale(g, 1.0, eps->eps_lift_count, 0, &pl->lift_count_scale,
					&pl->lift_count_var))
		pl->have_lift = false;
	plan_scale(g, 1.0, eps->eps_tree, 0, &pl->tree_count_scale, &pl->tree_count_var);
	/* refinement steps: scale 1 and no noise unless budgeted */
	plan_scale(g, 1.0, 0.0, 0, &pl->refine_count_scale, &pl->refine_count_var);
	plan_scale(g, 1.0, 0.0, 0, &pl->refine_sum_scale, &pl->refine_sum_var);
	if (eps->eps_refine > 0.0)
	{
		plan_scale(g, 1.0, eps->eps_refine_count, 0, &pl->refine_count_scale,
				   &pl->refine_count_var);
		plan_scale(g, DPK_LIFT_UNITS / 2.0, eps->eps_refine_sum, d, &pl->refine_sum_scale,
				   &pl->refine_sum_var);
		if (cfg->ball > 0.0)
			plan_ball_sums(pl, eps->eps_refine_sum, &pl->refine_sum_scale,
						   &pl->refine_sum_var);
	}
}

/* Projected grid: RUGNIK at the count noise actually used, capped. */
static void
plan_grid(DpkHighdPlan *pl)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			max_per_dim;
	double		m,
				max_cells = cfg->max_cells,
				scale = dpk_highd_grid_scale(cfg, pl->d);

	max_per_dim = (int) floor(pow(max_cells, 1.0 / pl->dhat) + 1e-9);
	if (max_per_dim < 1)
		max_per_dim = 1;
	m = dpk_grid_m(DPK_RULE_RUGNIK, pl->noisy_n, dpk_rugnik_eps_for_variance(pl->count_var),
				   pl->k, pl->dhat);
	/* points in metric positions span only part of the projected box */
	m /= dpk_box_metric_spread(pl->box);
	if (scale == 1.0)
		pl->m = dpk_grid_cells_per_dim(DPK_RULE_RUGNIK, m, pl->noisy_n,
									   dpk_rugnik_eps_for_variance(pl->count_var), pl->k,
									   pl->dhat, max_per_dim);
	else
	{
		/* clamp in floating point: m can be astronomically large */
		double		ms = floor(m * scale + 0.5);

		pl->m = !(ms >= 1.0) ? 1 : (ms >= (double) max_per_dim ? max_per_dim : (int) ms);
	}
}

/* Plan a release (see highd.h). */
void
dpk_highd_plan(DpkHighdPlan *pl, const DpkBox *box, const double *points, size_t n,
			   const DpkHighdConfig *cfg, DpkStream *s)
{
	DpkHighdBudget eps;

	if (cfg->delta > 0.0)
	{
		/* the shares split rho instead of epsilon (zCDP composes additively) */
		DpkHighdConfig z = *cfg;

		z.epsilon = dpk_zcdp_rho(cfg->epsilon, cfg->delta);
		eps = dpk_budget_highd(&z, box->d);
	}
	else
		eps = dpk_budget_highd(cfg, box->d);
	dpk_highd_plan_budget(pl, box, points, n, cfg, &eps, s);
}

/* Plan a release with a given split (see highd.h). */
void
dpk_highd_plan_budget(DpkHighdPlan *pl, const DpkBox *box, const double *points, size_t n,
					  const DpkHighdConfig *cfg, const DpkHighdBudget *eps, DpkStream *s)
{
	memset(pl, 0, sizeof(*pl));
	pl->box = box;
	pl->points = points;
	pl->n = n;
	pl->cfg = cfg;
	pl->d = box->d;
	pl->k = cfg->k;
	pl->dhat = cfg->dhat > 0 ? cfg->dhat : dpk_highd_dhat(pl->d, pl->k);
	pl->eps = *eps;
	pl->copies = pl->eps.copies;

	/* Noisy N: sensitivity 1, only used to size the projected grid. */
	if (cfg->public_n >= 0.0)
		pl->noisy_n = cfg->public_n;
	else
	{
		DpkNoise	nn;
		double		var;

		plan_scale(cfg->delta > 0.0, 1.0, pl->eps.eps_n, 0, &nn, &var);
		pl->noisy_n = (double) n + (double) dpk_noise_draw(s, &nn);
	}
	if (pl->noisy_n < 1.0)
		pl->noisy_n = 1.0;

	plan_scales(pl);
	plan_grid(pl);
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
	info->sum_var = pl->have_lift
		? pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS) : 0.0;
	info->refine_count_scale = pl->eps.eps_refine > 0.0
		? dpk_noise_scale_value(&pl->refine_count_scale) : 0.0;
	info->refine_sum_scale = pl->eps.eps_refine > 0.0
		? dpk_noise_scale_value(&pl->refine_sum_scale) : 0.0;
	info->tree_count_scale = pl->eps.tree_levels > 0
		? dpk_noise_scale_value(&pl->tree_count_scale) : 0.0;
	info->tree_leaves = out->tree_leaves;
}
