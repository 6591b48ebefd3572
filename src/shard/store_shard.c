/*
 * store_shard.c
 *		The internal tables of shards (see shard.h): on a coordinator, which
 *		foreign partitions of an attached table are shards; on a shard, which
 *		tables are attached for a coordinator, and their folded state.
 *
 * Like store.c, every function runs between dpk_store_begin() and
 * dpk_store_end() and binds tables as regclass parameters.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "utils/lsyscache.h"
#include "utils/builtins.h"

#include "shard.h"
#include "store.h"

/* Run a statement whose only parameter is a table. */
static void
exec_rel(const char *sql, Oid relid, bool read_only, int expect)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	dpk_store_exec(sql, 1, types, values, read_only, expect);
}

/*
 * Whether the installed SQL objects have an internal table (those of shards
 * came with 0.3; an older schema under this library has no shard).
 */
static bool
have_table(const char *name)
{
	Oid			nsp = get_namespace_oid("dpkmeans_internal", true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid(name, nsp));
}

/* Record a shard of an attached table. */
void
dpk_store_shard_add(Oid relid, Oid partition, const char *remote_schema)
{
	Oid			types[3] = {OIDOID, OIDOID, TEXTOID};
	Datum		values[3] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(partition),
	CStringGetTextDatum(remote_schema)};

	dpk_store_exec("INSERT INTO dpkmeans_internal.shards (relid, partition, remote_schema) "
		 "VALUES ($1::oid::regclass, $2::oid::regclass, $3)", 3, types, values, false,
		 SPI_OK_INSERT);
}

/* The shards of an attached table, in partition order (a list of DpkShardRow *). */
List *
dpk_store_shard_list(Oid relid)
{
	List	   *out = NIL;
	uint64		i;

	if (!have_table("shards"))
		return NIL;
	exec_rel("SELECT partition::oid, remote_schema FROM dpkmeans_internal.shards "
			 "WHERE relid = $1::oid::regclass ORDER BY partition::oid", relid, true,
			 SPI_OK_SELECT);
	for (i = 0; i < SPI_processed; i++)
	{
		DpkShardRow *row = palloc(sizeof(DpkShardRow));
		bool		isnull;

		row->partition = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
														SPI_tuptable->tupdesc, 1, &isnull));
		row->remote_schema = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[i],
															   SPI_tuptable->tupdesc, 2,
															   &isnull));
		out = lappend(out, row);
	}
	return out;
}

/* Forget the shards of a table (dp_detach). */
void
dpk_store_shard_delete(Oid relid)
{
	if (!have_table("shards"))
		return;
	exec_rel("DELETE FROM dpkmeans_internal.shards WHERE relid = $1::oid::regclass",
			 relid, false, SPI_OK_DELETE);
}

/* Mark a table of this server as a shard table. */
void
dpk_store_shard_mark(Oid relid)
{
	exec_rel("INSERT INTO dpkmeans_internal.shard_tables (relid) VALUES ($1::oid::regclass)",
			 relid, false, SPI_OK_INSERT);
}

/* Whether a table of this server is a shard table. */
bool
dpk_store_shard_is_marked(Oid relid)
{
	if (!have_table("shard_tables"))
		return false;
	exec_rel("SELECT 1 FROM dpkmeans_internal.shard_tables WHERE relid = $1::oid::regclass",
			 relid, true, SPI_OK_SELECT);
	return SPI_processed > 0;
}

/* Remove a shard table's mark. */
void
dpk_store_shard_unmark(Oid relid)
{
	exec_rel("DELETE FROM dpkmeans_internal.shard_tables WHERE relid = $1::oid::regclass",
			 relid, false, SPI_OK_DELETE);
}

/* Store a shard table's folded true state (padded to pad_to cells). */
void
dpk_store_set_state(Oid relid, const DpkCellMap *state, uint64 pad_to)
{
	Oid			types[2] = {OIDOID, BYTEAOID};
	Datum		values[2] = {ObjectIdGetDatum(relid),
	PointerGetDatum(dpk_store_map_bytea(state, pad_to))};

	dpk_store_exec("UPDATE dpkmeans_internal.tracked SET state = $2 WHERE relid = $1::oid::regclass",
		 2, types, values, false, SPI_OK_UPDATE);
}
