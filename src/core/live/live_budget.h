/*
 * live_budget.h
 *		The split of epsilon (or rho) of a live table.
 *
 * Plain C, no PostgreSQL headers.  The shares add up to the configuration's
 * epsilon (dpk_budget_check, budget.h); doc/privacy.md reads the privacy
 * argument of the pipeline off this struct.
 */
#ifndef DPK_LIVE_BUDGET_H
#define DPK_LIVE_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

struct DpkLiveConfig;

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
