/*
 * highd_budget.h
 *		The split of epsilon of a high-d one-shot release.
 *
 * Plain C, no PostgreSQL headers.  The shares add up to the configuration's
 * epsilon (dpk_budget_check, budget.h); doc/privacy.md reads the privacy
 * argument of the pipeline off this struct.
 */
#ifndef DPK_HIGHD_BUDGET_H
#define DPK_HIGHD_BUDGET_H

#include <stdint.h>

struct DpkHighdConfig;

/*
 * High-d one-shot release (highd.h, the joint mode): eight shares.  Every
 * point is in every copy and in exactly one cell, group or part of each, so
 * the release spends eps_n + copies * eps_grid + eps_group + eps_lift_count
 * + eps_lift_sum + refine_steps * eps_refine + tree_levels * eps_tree.
 */
typedef struct DpkHighdBudget
{
	int			copies;			/* dpk_highd_copies */
	int			refine_steps;
	int			tree_levels;	/* SimHash tree levels (0: none) */
	double		eps_n;			/* noisy N (0 when N is public) */
	double		eps_grid;		/* per copy: projected cell counts */
	double		eps_group;		/* once: group counts */
	double		eps_lift_count; /* once: lifting counts */
	double		eps_lift_sum;	/* once: lifting sum vectors */
	double		eps_refine;		/* per private Lloyd step after the lift */
	double		eps_refine_count;	/* of which on its counts */
	double		eps_refine_sum; /* and on its sums */
	double		eps_tree;		/* per tree level: its nodes' counts */
} DpkHighdBudget;

/*
 * The shares of a high-d configuration in d dimensions: n_share on the
 * noisy N unless public; of the rest refine_share on refinement steps
 * (refine_steps > 0), group_share and lift_share on group counts and the
 * lift, tree_share over the tree's levels (tree_depth > 0), the remainder
 * split over the copies' grids.  A lift (and a
 * refinement step) puts lift_count_share on counts (< 0: 1 / (1 + d^(2/3)),
 * the split minimizing the variance of a mean Sum / Count whose count has
 * sensitivity 1 and whose sum d U / 2), the rest on sums.
 */
DpkHighdBudget dpk_budget_highd(const struct DpkHighdConfig *cfg, int d);

/* What a high-d budget spends, by the composition above. */
double		dpk_budget_highd_total(const DpkHighdBudget *b);


#endif
