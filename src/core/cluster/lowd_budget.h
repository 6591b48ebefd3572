/*
 * lowd_budget.h
 *		The split of epsilon of a low-d one-shot release.
 *
 * Plain C, no PostgreSQL headers.  The shares add up to the configuration's
 * epsilon (dpk_budget_check, budget.h); doc/privacy.md reads the privacy
 * argument of the pipeline off this struct.
 */
#ifndef DPK_LOWD_BUDGET_H
#define DPK_LOWD_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

struct DpkLowdConfig;

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


#endif
