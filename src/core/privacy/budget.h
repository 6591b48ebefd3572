/*
 * budget.h
 *		What every split of epsilon shares: the check that its parts add up.
 *
 * A release spends its epsilon by sequential composition over the noisy
 * quantities it publishes or uses.  Each pipeline has one pure function
 * that returns the epsilon of every quantity for a configuration
 * (lowd_budget.h, highd_budget.h, live_budget.h) and checks with
 * dpk_budget_check that they add up to the configuration's epsilon, so the
 * privacy argument of each pipeline reads off one struct (doc/design.md,
 * section "Where epsilon is split").  The noise scales (sensitivity /
 * share) are computed by the callers.
 *
 * Plain C, no PostgreSQL headers.
 */
#ifndef DPK_BUDGET_H
#define DPK_BUDGET_H

/* Relative tolerance of the check that shares add up to epsilon. */
#define DPK_BUDGET_TOLERANCE 1e-12

/*
 * Stop (dpk_fail(what)) unless total is epsilon to DPK_BUDGET_TOLERANCE
 * relative; NaN and infinities pass (the callers refuse them earlier).
 */
void		dpk_budget_check(double total, double epsilon, const char *what);

#endif
