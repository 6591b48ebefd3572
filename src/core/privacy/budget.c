/*
 * budget.c
 *		The check every split of epsilon passes (see budget.h).
 */
#include "budget.h"

#include <math.h>

#include "dpk_mem.h"

/* Stop unless the shares add up to epsilon (see budget.h). */
void
dpk_budget_check(double total, double epsilon, const char *what)
{
	if (fabs(total - epsilon) > DPK_BUDGET_TOLERANCE * fabs(epsilon))
		dpk_fail(what);
}
