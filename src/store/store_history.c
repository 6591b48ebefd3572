/*
 * store_history.c
 *		The release history of live tables as readers and the operator's list
 *		see it (dpkmeans_internal.releases and tracked, version 0.7): release
 *		times, and the public configuration of every attached table.
 *
 * Like store.c, every function runs inside dpk_store_begin() / _end().
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "store.h"

/*
 * Whether the histogram's key is (relid, t), as the 0.7 script makes it:
 * asked of the catalog caches, since older objects run under a newer
 * library.
 */
bool
dpk_store_keeps_history(void)
{
	Oid			nsp = get_namespace_oid("dpkmeans_internal", true);
	Oid			idx = OidIsValid(nsp) ? get_relname_relid("histogram_pkey", nsp) : InvalidOid;
	HeapTuple	tup;
	bool		two;

	if (!OidIsValid(idx))
		return false;
	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(idx));
	if (!HeapTupleIsValid(tup))
		return false;
	two = ((Form_pg_index) GETSTRUCT(tup))->indnkeyatts == 2;
	ReleaseSysCache(tup);
	return two;
}

/* Release t's time (see store.h). */
bool
dpk_store_release_time(Oid relid, int t, TimestampTz *at)
{
	Oid			types[2] = {OIDOID, INT4OID};
	Datum		values[2] = {ObjectIdGetDatum(relid), Int32GetDatum(t)};
	bool		isnull;

	dpk_store_exec("SELECT made_at FROM dpkmeans_internal.releases "
				   "WHERE relid = $1::oid::regclass AND t = $2",
				   2, types, values, true, SPI_OK_SELECT);
	if (SPI_processed != 1)
		return false;
	*at = DatumGetTimestampTz(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
											&isnull));
	return !isnull;
}

/* The value of column fno (1-based) of row i of the last result. */
static Datum
row_value(uint64 i, int fno, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, fno, isnull);
}

/* Every attached table but a shard's (see store.h). */
DpkTableRow *
dpk_store_table_rows(MemoryContext ctx, int *n)
{
	DpkTableRow *rows;
	MemoryContext old;
	uint64		i;

	dpk_store_exec("SELECT t.relid::oid, t.columns, t.k, t.epsilon, t.delta, t.horizon, "
				   "t.releases, r.made_at, w.relid IS NOT NULL, t.mode = 'insert_only', "
				   "t.attached_at, "
				   "(SELECT array_agg(g.reader::text ORDER BY g.reader::text) "
				   " FROM dpkmeans_internal.readers g WHERE g.relid = t.relid) "
				   "FROM dpkmeans_internal.tracked t "
				   "LEFT JOIN dpkmeans_internal.releases r ON r.relid = t.relid AND r.t = t.releases "
				   "LEFT JOIN dpkmeans_internal.wal_capture w ON w.relid = t.relid "
				   "WHERE NOT EXISTS (SELECT 1 FROM dpkmeans_internal.shard_tables s "
				   "                  WHERE s.relid = t.relid) "
				   "ORDER BY t.relid::text", 0, NULL, NULL, true, SPI_OK_SELECT);
	old = MemoryContextSwitchTo(ctx);
	rows = palloc0((SPI_processed + 1) * sizeof(DpkTableRow));
	for (i = 0; i < SPI_processed; i++)
	{
		DpkTableRow *r = &rows[i];
		bool		isnull;
		Datum		v;

		r->relid = DatumGetObjectId(row_value(i, 1, &isnull));
		r->columns = datumCopy(row_value(i, 2, &isnull), false, -1);
		r->k = DatumGetInt32(row_value(i, 3, &isnull));
		r->epsilon = DatumGetFloat8(row_value(i, 4, &isnull));
		r->delta = DatumGetFloat8(row_value(i, 5, &isnull));
		r->horizon = DatumGetInt32(row_value(i, 6, &isnull));
		r->releases = DatumGetInt32(row_value(i, 7, &isnull));
		v = row_value(i, 8, &isnull);
		r->has_release_time = !isnull;
		if (!isnull)
			r->last_release_at = DatumGetTimestampTz(v);
		r->capture_wal = DatumGetBool(row_value(i, 9, &isnull));
		r->insert_only = DatumGetBool(row_value(i, 10, &isnull));
		r->attached_at = DatumGetTimestampTz(row_value(i, 11, &isnull));
		v = row_value(i, 12, &isnull);
		r->readers = isnull ? (Datum) 0 : datumCopy(v, false, -1);
	}
	*n = (int) SPI_processed;
	MemoryContextSwitchTo(old);
	return rows;
}
