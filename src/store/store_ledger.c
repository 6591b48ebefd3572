/*
 * store_ledger.c
 *		The privacy ledger of tables' rows (dpkmeans_internal.ledger,
 *		version 0.7): one row per history, kept by dp_detach, removed with
 *		the table (see ledger.h for what a history spends).
 *
 * Like store.c, every function runs inside dpk_store_begin() / _end().
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "store.h"

/* Whether the installed objects have the ledger table (0.7). */
bool
dpk_store_has_ledger(void)
{
	Oid			nsp = get_namespace_oid("dpkmeans_internal", true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid("ledger", nsp));
}

/* The int4 in column fno of the first row of the last result. */
static int
result_int(int fno)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, fno, &isnull);

	return isnull ? 0 : DatumGetInt32(d);
}

/* Open a new history (see store.h). */
int
dpk_store_ledger_open(const DpkTracked *tr, bool fresh_budget)
{
	Oid			types[6] = {OIDOID, FLOAT8OID, FLOAT8OID, INT4OID, BOOLOID, INT4OID};
	Datum		values[6];

	dpk_store_ledger_close(tr->relid);
	values[0] = ObjectIdGetDatum(tr->relid);
	dpk_store_exec("SELECT coalesce(max(history), 0) + 1 FROM dpkmeans_internal.ledger "
				   "WHERE relid = $1::oid::regclass", 1, types, values, true, SPI_OK_SELECT);
	values[5] = Int32GetDatum(result_int(1));
	values[1] = Float8GetDatum(tr->epsilon);
	values[2] = Float8GetDatum(tr->delta);
	values[3] = Int32GetDatum(tr->horizon);
	values[4] = BoolGetDatum(fresh_budget);
	dpk_store_exec("INSERT INTO dpkmeans_internal.ledger (relid, history, epsilon, delta, "
				   "horizon, attached_at, fresh_budget) "
				   "VALUES ($1::oid::regclass, $6, $2, $3, $4, now(), $5)",
				   6, types, values, false, SPI_OK_INSERT);
	return DatumGetInt32(values[5]);
}

/* Record release t of the open history (see store.h). */
void
dpk_store_ledger_release(const DpkTracked *tr, int t)
{
	Oid			types[2] = {OIDOID, INT4OID};
	Datum		values[2] = {ObjectIdGetDatum(tr->relid), Int32GetDatum(t)};

	if (!dpk_store_has_ledger())
		return;
	dpk_store_exec("UPDATE dpkmeans_internal.ledger SET releases = $2 "
				   "WHERE relid = $1::oid::regclass AND detached_at IS NULL",
				   2, types, values, false, SPI_OK_UPDATE);
	if (SPI_processed > 0)
		return;
	/* attached while the objects had no ledger: its history from the configuration */
	dpk_store_exec("INSERT INTO dpkmeans_internal.ledger (relid, history, epsilon, delta, "
				   "horizon, releases, attached_at, recorded_at_update) "
				   "SELECT t.relid, (SELECT coalesce(max(history), 0) + 1 "
				   "FROM dpkmeans_internal.ledger WHERE relid = t.relid), t.epsilon, "
				   "t.delta, t.horizon, $2, t.attached_at, true "
				   "FROM dpkmeans_internal.tracked t WHERE t.relid = $1::oid::regclass",
				   2, types, values, false, SPI_OK_INSERT);
}

/* Close the open history (see store.h). */
void
dpk_store_ledger_close(Oid relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	if (!dpk_store_has_ledger())
		return;
	dpk_store_exec("UPDATE dpkmeans_internal.ledger SET detached_at = now() "
				   "WHERE relid = $1::oid::regclass AND detached_at IS NULL",
				   1, types, values, false, SPI_OK_UPDATE);
}

/* Every history of a table (see store.h). */
int
dpk_store_ledger_read(Oid relid, MemoryContext ctx, DpkLedgerRow **rows)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	MemoryContext old;
	uint64		i;
	int			n;

	*rows = NULL;
	if (!dpk_store_has_ledger())
		return 0;
	dpk_store_exec("SELECT history, epsilon, delta, horizon, releases, fresh_budget, "
				   "recorded_at_update, "
				   "to_char(attached_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS \"UTC\"'), "
				   "to_char(detached_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS \"UTC\"') "
				   "FROM dpkmeans_internal.ledger WHERE relid = $1::oid::regclass ORDER BY history",
				   1, types, values, true, SPI_OK_SELECT);
	n = (int) SPI_processed;
	old = MemoryContextSwitchTo(ctx);
	*rows = palloc0(sizeof(DpkLedgerRow) * (n > 0 ? n : 1));
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		DpkLedgerRow *r = &(*rows)[i];
		bool		isnull;

		r->entry.history = DatumGetInt32(SPI_getbinval(tup, desc, 1, &isnull));
		r->entry.epsilon = DatumGetFloat8(SPI_getbinval(tup, desc, 2, &isnull));
		r->entry.delta = DatumGetFloat8(SPI_getbinval(tup, desc, 3, &isnull));
		r->entry.horizon = DatumGetInt32(SPI_getbinval(tup, desc, 4, &isnull));
		r->entry.releases = DatumGetInt32(SPI_getbinval(tup, desc, 5, &isnull));
		r->entry.fresh_budget = DatumGetBool(SPI_getbinval(tup, desc, 6, &isnull));
		r->recorded_at_update = DatumGetBool(SPI_getbinval(tup, desc, 7, &isnull));
		r->attached_at = SPI_getvalue(tup, desc, 8);
		r->detached_at = SPI_getvalue(tup, desc, 9);
		r->entry.open = r->detached_at == NULL;
	}
	MemoryContextSwitchTo(old);
	return n;
}

/* Every history of a table as rows of dp_privacy_ledger (see store.h). */
void
dpk_store_ledger_rows(Oid relid, ReturnSetInfo *rsinfo)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	uint64		i;

	dpk_store_exec("SELECT history, epsilon, delta, horizon, releases, releases > 0 AS spent, "
				   "fresh_budget, attached_at, detached_at, recorded_at_update "
				   "FROM dpkmeans_internal.ledger WHERE relid = $1::oid::regclass ORDER BY history",
				   1, types, values, true, SPI_OK_SELECT);
	for (i = 0; i < SPI_processed; i++)
		tuplestore_puttuple(rsinfo->setResult, SPI_tuptable->vals[i]);
}
