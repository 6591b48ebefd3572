/*
 * store_wal.c
 *		The internal table of tables captured from the WAL
 *		(dpkmeans_internal.wal_capture): their replication slot, the WAL
 *		position up to which their changes are counted, and the replica
 *		identity dp_detach restores.
 *
 * Like store.c, every function runs inside dpk_store_begin() / _end().
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_lsn.h"

#include "store.h"

/* Whether the installed objects have the wal_capture table (0.3). */
bool
dpk_store_has_wal(void)
{
	Oid			nsp = get_namespace_oid("dpkmeans_internal", true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid("wal_capture", nsp));
}

/* A table's WAL capture (see store.h); false for a table captured by triggers. */
bool
dpk_store_wal_read(Oid relid, DpkWalCapture *wc)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		isnull;
	char	   *s;

	if (!dpk_store_has_wal())
		return false;
	dpk_store_exec("SELECT slot_name::text, lsn, prev_identity, prev_index::oid, xmin "
			 "FROM dpkmeans_internal.wal_capture WHERE relid = $1::oid::regclass",
			 1, types, values, true, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return false;
	s = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	strlcpy(wc->slot, s, sizeof(wc->slot));
	wc->lsn = DatumGetLSN(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2,
										&isnull));
	wc->prev_identity = DatumGetChar(SPI_getbinval(SPI_tuptable->vals[0],
												   SPI_tuptable->tupdesc, 3, &isnull));
	wc->prev_index = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0],
													SPI_tuptable->tupdesc, 4, &isnull));
	if (isnull)
		wc->prev_index = InvalidOid;
	/* a sync earlier in this transaction: its position may yet roll back */
	wc->lsn_committed = !TransactionIdIsCurrentTransactionId(
		DatumGetTransactionId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 5,
											&isnull)));
	return true;
}

/* Record a new table's WAL capture (see store.h). */
void
dpk_store_wal_insert(Oid relid, const DpkWalCapture *wc)
{
	Oid			types[5] = {OIDOID, TEXTOID, PG_LSNOID, CHAROID, OIDOID};
	Datum		values[5];
	char		nulls[5] = {' ', ' ', ' ', ' ', ' '};
	MemoryContext caller = CurrentMemoryContext;
	int			rc;

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(wc->slot);
	values[2] = LSNGetDatum(wc->lsn);
	values[3] = CharGetDatum(wc->prev_identity);
	values[4] = ObjectIdGetDatum(wc->prev_index);
	if (!OidIsValid(wc->prev_index))
		nulls[4] = 'n';
	rc = SPI_execute_with_args("INSERT INTO dpkmeans_internal.wal_capture "
							   "(relid, slot_name, lsn, prev_identity, prev_index) "
							   "VALUES ($1::oid::regclass, $2, $3, $4, $5::oid::regclass)",
							   5, types, values, nulls, false, 0);
	MemoryContextSwitchTo(caller);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "dpkmeans internal statement failed (%s): INSERT INTO wal_capture",
			 SPI_result_code_string(rc));
}

/* Move a table's counted WAL position (see store.h). */
void
dpk_store_wal_set_lsn(Oid relid, XLogRecPtr lsn)
{
	Oid			types[2] = {OIDOID, PG_LSNOID};
	Datum		values[2] = {ObjectIdGetDatum(relid), LSNGetDatum(lsn)};

	dpk_store_exec("UPDATE dpkmeans_internal.wal_capture SET lsn = $2 "
			 "WHERE relid = $1::oid::regclass", 2, types, values, false, SPI_OK_UPDATE);
}

/* Point a table's WAL capture at a new slot and position (see store.h). */
void
dpk_store_wal_reset(Oid relid, const char *slot, XLogRecPtr lsn)
{
	Oid			types[3] = {OIDOID, TEXTOID, PG_LSNOID};
	Datum		values[3] = {ObjectIdGetDatum(relid), CStringGetTextDatum(slot), LSNGetDatum(lsn)};

	dpk_store_exec("UPDATE dpkmeans_internal.wal_capture SET slot_name = $2, lsn = $3 "
			 "WHERE relid = $1::oid::regclass", 3, types, values, false, SPI_OK_UPDATE);
}

/* Forget a table's WAL capture (see store.h). */
void
dpk_store_wal_delete(Oid relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	if (dpk_store_has_wal())
		dpk_store_exec("DELETE FROM dpkmeans_internal.wal_capture WHERE relid = $1::oid::regclass",
				 1, types, values, false, SPI_OK_DELETE);
}

/* Every table captured from the WAL (see store.h). */
List *
dpk_store_wal_relids(void)
{
	List	   *out = NIL;
	uint64		i;
	bool		isnull;

	if (!dpk_store_has_wal())
		return NIL;
	dpk_store_exec("SELECT relid::oid FROM dpkmeans_internal.wal_capture", 0, NULL, NULL,
			 true, SPI_OK_SELECT);
	for (i = 0; i < SPI_processed; i++)
		out = lappend_oid(out, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
															   SPI_tuptable->tupdesc, 1,
															   &isnull)));
	return out;
}
