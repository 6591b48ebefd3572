/*
 * live_budget.c
 *		The split of epsilon of a live table (see live_budget.h).
 */
#include "live_budget.h"

#include <math.h>

#include "budget.h"
#include "live_config.h"

/* Default live shares by dimension and mode (see live_budget.h). */
DpkLiveShares
dpk_budget_live_shares(int d, bool projected)
{
	DpkLiveShares s;

	if (!projected)
	{
		/*
		 * d <= 2: 0.3, the counts' lower noise finds the small clusters
		 * of skewed data (doc/decisions/007-lowd-release-rule.md); wider
		 * low-d grids keep 0.5, not re-measured.
		 */
		s.sum_share = d <= 2 ? 0.3 : 0.5;
		s.norm_share = 0.0;
	}
	else
	{
		double		share = 0.2 + 0.1 * log2((double) d);

		s.sum_share = share < 0.75 ? 0.75 : (share > 0.85 ? 0.85 : share);
		s.norm_share = 0.05;
	}
	return s;
}

/* Default Gaussian live shares (see live_budget.h), measured in test/bench. */
DpkLiveShares
dpk_budget_live_gauss_shares(int d, bool projected, uint32_t horizon)
{
	DpkLiveShares s;

	if (!projected)
	{
		s.sum_share = 0.3;
		s.norm_share = 0.0;
	}
	else
	{
		double		share = 0.45 + 0.075 * log2((double) d),
					top = horizon > DPK_GAUSS_DEEP_HORIZON ? 0.8 : 0.9;

		s.sum_share = share < 0.6 ? 0.6 : (share > top ? top : share);
		s.norm_share = 0.05;
	}
	return s;
}

/* The split of a live table's epsilon (see live_budget.h). */
DpkLiveBudget
dpk_budget_live(const struct DpkLiveConfig *cfg)
{
	DpkLiveBudget b;

	b.eps_count = cfg->epsilon * (1.0 - cfg->sum_share - cfg->norm_share);
	b.eps_sum = cfg->epsilon * cfg->sum_share;
	b.eps_norm = cfg->epsilon * cfg->norm_share;
	dpk_budget_check(dpk_budget_live_total(&b), cfg->epsilon,
				 "the epsilon shares of a live table do not add up to epsilon");
	return b;
}

/* eps_count + eps_sum + eps_norm. */
double
dpk_budget_live_total(const DpkLiveBudget *b)
{
	return b->eps_count + b->eps_sum + b->eps_norm;
}
