/*
 * lowd_budget.c
 *		The split of epsilon of a low-d one-shot release (see lowd_budget.h).
 */
#include "lowd_budget.h"

#include <math.h>

#include "budget.h"
#include "lowd.h"

/* The shares of a low-d one-shot release (see lowd_budget.h). */
DpkLowdBudget
dpk_budget_lowd(const struct DpkLowdConfig *cfg)
{
	DpkLowdBudget b;
	double		eps_rest = cfg->epsilon;

	b.eps_n = 0.0;
	if (cfg->public_n < 0.0)
	{
		b.eps_n = cfg->epsilon * cfg->n_share;
		eps_rest -= b.eps_n;
	}
	b.eps_sum = eps_rest * cfg->sum_share;
	b.eps_count = eps_rest - b.eps_sum;
	dpk_budget_check(dpk_budget_lowd_total(&b), cfg->epsilon,
				 "the epsilon shares of a one-shot release do not add up to epsilon");
	return b;
}

/* eps_n + eps_count + eps_sum. */
double
dpk_budget_lowd_total(const DpkLowdBudget *b)
{
	return b->eps_n + b->eps_count + b->eps_sum;
}
