/*
 * highd_budget.c
 *		The split of epsilon of a high-d one-shot release (see highd_budget.h).
 */
#include "highd_budget.h"

#include <math.h>
#include <string.h>

#include "budget.h"
#include "dpk_mem.h"
#include "highd.h"

/* The eight shares of a high-d one-shot release (see highd_budget.h). */
DpkHighdBudget
dpk_budget_highd(const struct DpkHighdConfig *cfg, int d)
{
	DpkHighdBudget b;
	double		eps_rest = cfg->epsilon,
				eps_refine_total = 0.0,
				eps_lift,
				lcs;

	memset(&b, 0, sizeof(b));
	b.copies = dpk_highd_copies(cfg, d);
	b.refine_steps = cfg->refine_steps;
	b.eps_n = 0.0;
	if (cfg->public_n < 0.0)
	{
		b.eps_n = cfg->epsilon * cfg->n_share;
		eps_rest -= b.eps_n;
	}
	b.eps_refine = 0.0;
	if (cfg->refine_steps > 0 && cfg->refine_share > 0.0)
	{
		eps_refine_total = eps_rest * cfg->refine_share;
		b.eps_refine = eps_refine_total / cfg->refine_steps;
	}
	eps_lift = eps_rest * dpk_highd_lift_share(cfg, d);
	b.tree_levels = cfg->tree_depth > 0 ? cfg->tree_depth : 0;
	b.eps_tree = b.tree_levels > 0 ? eps_rest * cfg->tree_share / b.tree_levels : 0.0;
	if (b.tree_levels > 0 && !(b.eps_tree > 0.0))
		dpk_fail("the shares of a high-dimensional release leave nothing for its tree");
	b.eps_group = eps_rest * cfg->group_share;
	b.eps_grid = (eps_rest - eps_refine_total - b.eps_group - eps_lift -
				  b.tree_levels * b.eps_tree) / b.copies;
	/* a grid without budget would be counted without accounted noise */
	if (!(b.eps_grid > 0.0))
		dpk_fail("the shares of a high-dimensional release leave nothing for its grids");
	lcs = cfg->lift_count_share >= 0.0 ? cfg->lift_count_share
		: 1.0 / (1.0 + pow((double) d, 2.0 / 3.0));
	b.eps_lift_count = eps_lift * lcs;
	b.eps_lift_sum = eps_lift - b.eps_lift_count;
	b.eps_refine_count = b.eps_refine * lcs;
	b.eps_refine_sum = b.eps_refine * (1.0 - lcs);
	dpk_budget_check(dpk_budget_highd_total(&b), cfg->epsilon,
				 "the epsilon shares of a high-dimensional release do not add up to epsilon");
	return b;
}

/* What a high-d budget spends, by sequential composition (see highd_budget.h). */
double
dpk_budget_highd_total(const DpkHighdBudget *b)
{
	double		lift = b->eps_lift_count + b->eps_lift_sum;
	double		once = b->eps_n + b->eps_group + lift;

	if (b->refine_steps > 0)
		once += b->refine_steps * b->eps_refine;
	return once + b->copies * b->eps_grid + b->tree_levels * b->eps_tree;
}
