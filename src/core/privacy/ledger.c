/*
 * ledger.c
 *		Totals of a table's privacy ledger (see ledger.h).
 */
#include "ledger.h"

/* A history spends its whole budget with its first release (see ledger.h). */
bool
dpk_ledger_spent(const DpkLedgerEntry *e)
{
	return e->releases > 0;
}

/*
 * Sum every spent history, and those from the latest fresh start on (a
 * fresh start that spent nothing yet still opens the counted budget).
 */
void
dpk_ledger_totals(const DpkLedgerEntry *e, int n, DpkLedgerTotals *out)
{
	int			i;

	out->histories = n;
	out->spent = 0;
	out->epsilon = 0.0;
	out->delta = 0.0;
	out->budget_from = n > 0 ? e[0].history : 0;
	out->budget_epsilon = 0.0;
	out->budget_delta = 0.0;
	for (i = 0; i < n; i++)
	{
		if (e[i].fresh_budget)
		{
			out->budget_from = e[i].history;
			out->budget_epsilon = 0.0;
			out->budget_delta = 0.0;
		}
		if (!dpk_ledger_spent(&e[i]))
			continue;
		out->spent++;
		out->epsilon += e[i].epsilon;
		out->delta += e[i].delta;
		out->budget_epsilon += e[i].epsilon;
		out->budget_delta += e[i].delta;
	}
}
