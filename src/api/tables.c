/*
 * tables.c
 *		dp_tables: the operator's list of attached tables.
 *
 * Anyone may call it; it lists the tables the caller owns or may read (the
 * readers' rule of readers.c), each with its public configuration and its
 * release count and time (the schedule is public), and the epsilon and
 * delta its rows have spent over every history (its privacy ledger).  The
 * roles granted reading are listed to the table's owner only.
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "ledger.h"
#include "store.h"

#define DP_TABLES_COLUMNS 16

/*
 * One dp_tables row; readers shown when `owner`; `spent`: the ledger's
 * totals over every history (NULL columns without a ledger row).
 */
static void
tables_row(ReturnSetInfo *rsinfo, const DpkTableRow *r, bool owner,
		   const DpkLedgerTotals *spent)
{
	Datum		out[DP_TABLES_COLUMNS];
	bool		nulls[DP_TABLES_COLUMNS];

	memset(nulls, 0, sizeof(nulls));
	out[0] = ObjectIdGetDatum(r->relid);
	out[1] = r->columns;
	out[2] = Int32GetDatum(r->k);
	out[3] = Float8GetDatum(r->epsilon);
	out[4] = Float8GetDatum(r->delta);
	out[5] = Int32GetDatum(r->horizon);
	out[6] = Int32GetDatum(r->releases);
	out[7] = Int32GetDatum(Max(r->horizon - r->releases, 0));
	out[8] = Int32GetDatum(r->releases);
	nulls[8] = r->releases == 0;
	out[9] = TimestampTzGetDatum(r->last_release_at);
	nulls[9] = !r->has_release_time;
	out[10] = CStringGetTextDatum(r->capture_wal ? "wal" : "trigger");
	out[11] = CStringGetTextDatum(r->insert_only ? "insert_only" : "insert_delete");
	out[12] = TimestampTzGetDatum(r->attached_at);
	if (owner)
		out[13] = r->readers != (Datum) 0 ? r->readers
			: PointerGetDatum(construct_empty_array(TEXTOID));
	else
		out[13] = (Datum) 0;
	nulls[13] = !owner;
	out[14] = Float8GetDatum(spent->epsilon);
	out[15] = Float8GetDatum(spent->delta);
	nulls[14] = nulls[15] = spent->histories == 0;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
}

/* dp_tables(): every attached table the caller owns or may read. */
PG_FUNCTION_INFO_V1(dp_tables);
Datum
dp_tables(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext callerctx = CurrentMemoryContext;
	Oid			caller = GetUserId();
	DpkOwnerSwitch sw;
	DpkTableRow *rows;
	bool	   *owner,
			   *shown;
	DpkLedgerTotals *spent;
	int			n,
				i;

	InitMaterializedSRF(fcinfo, 0);
	dpk_store_begin(&sw);
	rows = dpk_store_table_rows(callerctx, &n);
	/* in the caller's context: SPI_finish frees the one current here */
	owner = MemoryContextAllocZero(callerctx, (n + 1) * sizeof(bool));
	shown = MemoryContextAllocZero(callerctx, (n + 1) * sizeof(bool));
	spent = MemoryContextAllocZero(callerctx, (n + 1) * sizeof(DpkLedgerTotals));
	for (i = 0; i < n; i++)
	{
		DpkLedgerRow *hist;
		DpkLedgerEntry *e;
		int			nh,
					h;

		/* a table dropped since (its rows go at commit) is not listed */
		if (get_rel_name(rows[i].relid) == NULL)
			continue;
		owner[i] = pg_class_ownercheck(rows[i].relid, caller);
		shown[i] = owner[i] || dpk_store_has_reader_grant(rows[i].relid, caller);
		if (!shown[i])
			continue;
		nh = dpk_store_ledger_read(rows[i].relid, callerctx, &hist);
		e = palloc((nh + 1) * sizeof(DpkLedgerEntry));
		for (h = 0; h < nh; h++)
			e[h] = hist[h].entry;
		dpk_ledger_totals(e, nh, &spent[i]);
	}
	dpk_store_end(&sw);
	for (i = 0; i < n; i++)
		if (shown[i])
			tables_row(rsinfo, &rows[i], owner[i], &spent[i]);
	return (Datum) 0;
}
