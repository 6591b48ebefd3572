/*
 * store_regions.c
 *		The internal table of tables lifting by regions
 *		(dpkmeans_internal.regions, version 0.6): their region state
 *		(src/core/live/live_regions.c), true values never read outside a release.
 *
 * Like store.c, every function runs inside dpk_store_begin() / _end().
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "dpk_mem.h"
#include "store.h"
#include "store_int.h"

/* Whether the installed objects have the regions table (0.6). */
bool
dpk_store_has_regions(void)
{
	Oid			nsp = get_namespace_oid("dpkmeans_internal", true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid("regions", nsp));
}

/* A table's region state bytes read into rs, or ERROR (see store.h). */
void
dpk_store_regions_parse(Oid relid, const DpkLiveConfig *cfg, const bytea *state, DpkRegions *rs)
{
	if (!dpk_regions_supported(cfg) ||
		!dpk_regions_deserialize(rs, cfg, (const uint8_t *) VARDATA_ANY(state),
								 VARSIZE_ANY_EXHDR(state)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("dpkmeans state is corrupt"),
				 errdetail("The region state of \"%s\" cannot be read.", get_rel_name(relid)),
				 errhint("Run dp_detach and dp_attach on the table.")));
}

/* Whether a table lifts by regions, its state copied into ctx (see store.h). */
bool
dpk_store_regions_read(Oid relid, bool latest, MemoryContext ctx, bytea **state)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		isnull;
	Datum		d;
	MemoryContext old;

	if (!dpk_store_has_regions())
		return false;
	dpk_store_exec("SELECT state FROM dpkmeans_internal.regions WHERE relid = $1::oid::regclass",
				   1, types, values, !latest, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return false;
	if (state == NULL)
		return true;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("dpkmeans state is corrupt"),
				 errdetail("The region state of \"%s\" is NULL.", get_rel_name(relid))));
	old = MemoryContextSwitchTo(ctx);
	*state = DatumGetByteaPCopy(d);
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * Store a table's region state, a new row or over the old one (see
 * store.h); buf is freed once copied, before the statement runs, which
 * keeps its parameter as such (a generic plan) rather than copying it into
 * a constant.
 */
void
dpk_store_regions_write(Oid relid, uint8 *buf, size_t len)
{
	Oid			types[2] = {OIDOID, BYTEAOID};
	Datum		values[2];
	bytea	   *b = palloc_extended(VARHDRSZ + len, MCXT_ALLOC_HUGE);

	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), buf, len);
	dpk_free(buf);
	values[0] = ObjectIdGetDatum(relid);
	values[1] = PointerGetDatum(b);
	dpk_store_exec_large("INSERT INTO dpkmeans_internal.regions (relid, state) "
						 "VALUES ($1::oid::regclass, $2) "
						 "ON CONFLICT (relid) DO UPDATE SET state = excluded.state",
						 2, types, values, SPI_OK_INSERT);
	pfree(b);
}

/* Remove a table's region state, if any. */
void
dpk_store_regions_delete(Oid relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	if (!dpk_store_has_regions())
		return;
	dpk_store_exec("DELETE FROM dpkmeans_internal.regions WHERE relid = $1::oid::regclass",
				   1, types, values, false, SPI_OK_DELETE);
}
