/*
 * budget.h
 *		Every split of epsilon, one pure function per kind of release.
 *
 * A release spends its epsilon by sequential composition over the noisy
 * quantities it publishes or uses; each function below returns the epsilon
 * of every quantity for a configuration and checks that they add up to the
 * configuration's epsilon (to 1e-12 relative; dpk_fail otherwise), so the
 * privacy argument of each pipeline reads off one struct
 * (doc/design.md, section "Where epsilon is split").  The noise scales
 * (sensitivity / share) are computed by the callers.
 *
 * Plain C, no PostgreSQL headers; the configurations are only declared here.
 */
#ifndef DPK_BUDGET_H
#define DPK_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

struct DpkLowdConfig;
struct DpkHighdConfig;
struct DpkLiveConfig;

/* Relative tolerance of the check that shares add up to epsilon. */
#define DPK_BUDGET_TOLERANCE 1e-12

/* Low-d one-shot release (lowd.h): noisy N, then counts and in-cell sums. */
typedef struct DpkLowdBudget
{
	double		eps_n;			/* noisy N (0 when N is public) */
	double		eps_count;		/* every cell's count */
	double		eps_sum;		/* every cell's sum vector */
} DpkLowdBudget;

/*
 * n_share of epsilon on the noisy N unless public_n >= 0, then sum_share of
 * the rest on the sums and the remainder on the counts.
 */
DpkLowdBudget dpk_budget_lowd(const struct DpkLowdConfig *cfg);

/* What a low-d budget spends: eps_n + eps_count + eps_sum. */
double		dpk_budget_lowd_total(const DpkLowdBudget *b);

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

/* Default shares of a live table (live_core.h), by dimension and mode. */
typedef struct DpkLiveShares
{
	double		sum_share;		/* in-cell or lifting sums */
	double		norm_share;		/* projected mode: the global norm counter */
} DpkLiveShares;

/*
 * Original space: half on the in-cell sums.  Projected copies: 5 % on the
 * global sum of squared norms (the cost curve) and on the lifting sums a
 * share that grows with d, 0.2 + 0.1 log2 d within [0.75, 0.85]: their cube
 * noise costs about d^3 b^2 / 3 per centre in squared error, while the
 * counts' noise does not grow with d.
 */
DpkLiveShares dpk_budget_live_shares(int d, bool projected);

/* Gaussian projected tables above this horizon: at most 0.8 on the sums. */
#define DPK_GAUSS_DEEP_HORIZON 64

/*
 * The same for a Gaussian table, shares of rho chosen by measurement
 * (doc/decisions/020-gaussian-tables.md): original space
 * 0.3 on the in-cell sums; projected copies 5 % on the norm counter and
 * 0.45 + 0.075 log2 d within [0.6, 0.9] on the lifting sums (0.75 at
 * d = 16, 0.9 at d = 64), at most 0.8 for horizons above 64, whose deeper
 * trees need more on the counts to keep the partition.  Shares are stored
 * with each table at attach, so a table attached under other defaults keeps
 * its own.
 */
DpkLiveShares dpk_budget_live_gauss_shares(int d, bool projected, uint32_t horizon);

/* Live table: the epsilon of each tree of counters, per event. */
typedef struct DpkLiveBudget
{
	double		eps_count;		/* cell counts: epsilon (1 - sum - norm) */
	double		eps_sum;		/* cell sum vectors: epsilon sum_share */
	double		eps_norm;		/* the norm counter: epsilon norm_share */
} DpkLiveBudget;

/* The split of a live configuration's epsilon by its sum and norm shares. */
DpkLiveBudget dpk_budget_live(const struct DpkLiveConfig *cfg);

/* What a live budget spends: eps_count + eps_sum + eps_norm. */
double		dpk_budget_live_total(const DpkLiveBudget *b);

#endif
