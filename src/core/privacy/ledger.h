/*
 * ledger.h
 *		The privacy ledger of a table's rows: what every history (an attach,
 *		with its key and its releases) spent, and the totals the report and
 *		dp_attach state.
 *
 * A history spends nothing until its first release (no output depends on
 * the rows before it) and its whole epsilon and delta from then on, however
 * few of its releases are made: the continual guarantee is stated for all
 * of them.  Histories compose sequentially, so totals are plain sums.  The
 * owner may start a fresh budget at an attach; the totals keep every
 * history and, separately, the ones counted since the latest fresh start.
 *
 * Plain C, no PostgreSQL headers.
 */
#ifndef DPK_LEDGER_H
#define DPK_LEDGER_H

#include <stdbool.h>

/* One history of a table's rows (a row of dpkmeans_internal.ledger). */
typedef struct DpkLedgerEntry
{
	int			history;		/* 1, 2, ... in attach order */
	double		epsilon;
	double		delta;
	int			horizon;
	int			releases;		/* releases made in this history */
	bool		fresh_budget;	/* the owner started a new budget here */
	bool		open;			/* still attached (not detached) */
} DpkLedgerEntry;

/* What the ledger adds up to. */
typedef struct DpkLedgerTotals
{
	int			histories;		/* every recorded history */
	int			spent;			/* histories with at least one release */
	double		epsilon;		/* over every history */
	double		delta;
	int			budget_from;	/* the history the counted budget starts at
								 * (the latest fresh start, else the first;
								 * 0 without histories) */
	double		budget_epsilon; /* from budget_from on */
	double		budget_delta;
} DpkLedgerTotals;

/* Whether a history has spent its budget (its first release is made). */
bool		dpk_ledger_spent(const DpkLedgerEntry *e);

/* The totals of n entries in history order. */
void		dpk_ledger_totals(const DpkLedgerEntry *e, int n, DpkLedgerTotals *out);

#endif
