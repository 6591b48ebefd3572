/*
 * test_ledger.c
 *		The privacy ledger's totals (ledger.c): histories without a release
 *		spend nothing, the others their whole epsilon and delta; a fresh
 *		start opens the counted budget and keeps every history in the total.
 */
#include "ledger.h"
#include "unit.h"

/* A history in the order of the ledger. */
static DpkLedgerEntry
entry(int history, double epsilon, double delta, int releases, bool fresh, bool open)
{
	DpkLedgerEntry e = {history, epsilon, delta, 64, releases, fresh, open};

	return e;
}

int
main(void)
{
	DpkLedgerEntry e[6] = {{0}};
	DpkLedgerTotals t;
	int			i;

	dpk_ledger_totals(e, 0, &t);
	CHECK(t.histories == 0 && t.spent == 0 && t.epsilon == 0.0 && t.budget_from == 0,
		  "an empty ledger spends nothing");

	/* an open history without a release has spent nothing yet */
	e[0] = entry(1, 1.0, 0.0, 0, false, true);
	dpk_ledger_totals(e, 1, &t);
	CHECK(t.histories == 1 && t.spent == 0 && t.epsilon == 0.0 && t.budget_epsilon == 0.0 &&
		  t.budget_from == 1, "no release, no spending (%g)", t.epsilon);
	e[0].releases = 1;
	dpk_ledger_totals(e, 1, &t);
	CHECK(t.spent == 1 && t.epsilon == 1.0 && t.budget_epsilon == 1.0,
		  "the first release spends the whole epsilon (%g)", t.epsilon);

	/* 25 attach/release/detach cycles on the same rows: 25 epsilon */
	{
		DpkLedgerEntry many[25];

		for (i = 0; i < 25; i++)
			many[i] = entry(i + 1, 1.0, 0.0, 1, false, i == 24);
		dpk_ledger_totals(many, 25, &t);
		CHECK(t.histories == 25 && t.spent == 25 && t.epsilon == 25.0 &&
			  t.budget_epsilon == 25.0 && t.budget_from == 1,
			  "25 histories of one release each: epsilon 25 (%g, %g)", t.epsilon,
			  t.budget_epsilon);
	}

	/*
	 * Mixed: a Gaussian history, one without releases, a fresh start, one
	 * after it: deltas add up, the unreleased history adds nothing, the
	 * counted budget starts at the fresh start.
	 */
	e[0] = entry(1, 1.0, 0.0, 10, false, false);
	e[1] = entry(2, 0.5, 1e-6, 3, false, false);
	e[2] = entry(3, 2.0, 0.0, 0, false, false);
	e[3] = entry(4, 0.25, 1e-7, 1, true, false);
	e[4] = entry(5, 0.75, 0.0, 64, false, true);
	dpk_ledger_totals(e, 5, &t);
	CHECK(t.histories == 5 && t.spent == 4, "4 of 5 histories spent (%d)", t.spent);
	CHECK(t.epsilon == 2.5 && fabs(t.delta - 1.1e-6) < 1e-18,
		  "every history: epsilon 2.5, delta 1.1e-6 (%g, %g)", t.epsilon, t.delta);
	CHECK(t.budget_from == 4 && t.budget_epsilon == 1.0 && fabs(t.budget_delta - 1e-7) < 1e-19,
		  "the counted budget from the fresh start: history 4, epsilon 1 (%d, %g, %g)",
		  t.budget_from, t.budget_epsilon, t.budget_delta);

	/* a fresh start not released yet: the counted budget is empty */
	e[5] = entry(6, 1.0, 0.0, 0, true, true);
	e[4].open = false;
	dpk_ledger_totals(e, 6, &t);
	CHECK(t.budget_from == 6 && t.budget_epsilon == 0.0 && t.epsilon == 2.5,
		  "an unreleased fresh start counts nothing yet (%d, %g, %g)", t.budget_from,
		  t.budget_epsilon, t.epsilon);
	UNIT_DONE("test_ledger");
}
