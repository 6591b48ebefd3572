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

#include <stdbool.h>
#include <stdint.h>

struct DpkHighdConfig;

/*
 * High-d one-shot release (highd.h): nine shares.  Every point is in every
 * copy and in exactly one cell, group or part of each, so the joint mode
 * spends eps_n + copies * eps_grid + eps_group + eps_lift_count +
 * eps_lift_sum + refine_steps * eps_refine and the selection modes (cluster,
 * cell) eps_n + copies * (eps_grid + eps_lift_count + eps_lift_sum +
 * eps_lift_norm) + refine_steps * eps_refine.
 */
typedef struct DpkHighdBudget
{
	int			copies;			/* dpk_highd_copies */
	int			refine_steps;
	bool		lift_per_copy;	/* selection modes: the lift shares are per
								 * copy; joint mode: spent once */
	double		eps_n;			/* noisy N (0 when N is public) */
	double		eps_grid;		/* per copy: projected cell counts */
	double		eps_group;		/* joint mode, once: group counts */
	double		eps_lift_count; /* lifting counts */
	double		eps_lift_sum;	/* lifting sum vectors */
	double		eps_lift_norm;	/* cell mode: per-cell sums of squared norms */
	double		eps_refine;		/* per private Lloyd step after the lift */
	double		eps_refine_count;	/* of which on its counts */
	double		eps_refine_sum; /* and on its sums */
} DpkHighdBudget;

/*
 * The shares of a high-d configuration in d dimensions: n_share on the
 * noisy N unless public; of the rest refine_share on refinement steps; then
 * joint mode: group_share and lift_share of the rest (after N) on group
 * counts and the lift, the remainder split over the copies' grids;
 * selection modes: the rest split over the copies, lift_share of each on
 * its lifting statistics, the remainder on its grid.  A lift (and a
 * refinement step) puts lift_count_share on counts (< 0: 1 / (1 + d^(2/3)),
 * the split minimizing the variance of a mean Sum / Count whose count has
 * sensitivity 1 and whose sum d U / 2), the rest on sums; in cell mode the
 * lift counts are the grid's own unless lift_coarsen > 1, and norm_share of
 * the lift after its counts goes to sums of squared norms.
 */
DpkHighdBudget dpk_budget_highd(const struct DpkHighdConfig *cfg, int d);

/* What a high-d budget spends, by the composition above. */
double		dpk_budget_highd_total(const DpkHighdBudget *b);


#endif
