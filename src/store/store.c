/*
 * store.c
 *		The internal tables of live tables (see store.h).
 *
 * Tables (schema dpkmeans_internal, created by sql/dpkmeans--*.sql):
 *	tracked    one row per attached table: configuration, folded true state,
 *			   release count, format versions, home (cluster/timeline/db)
 *	keys       the secret PRF key of each table
 *	delta      one row per writing statement, folded at the next release
 *	releases, centers, costs, histogram   the stored snapshots
 *	readers    roles granted reading of a table's releases (0.2)
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "store.h"
#include "store_int.h"

/* Set by dpk_store_begin: the installed SQL objects are 0.1's. */
static bool store_v01 = false;

/* Set by dpk_store_begin: centers and costs have an objective column (0.3). */
static bool store_objectives = false;

/* Set by dpk_store_begin: the objects are 0.3's or newer (tracked.delta). */
static bool store_has_delta = false;

/* Set by dpk_store_begin: tracked has tree_arity (0.3's k-ary trees). */
static bool store_has_arity = false;

/* Set by dpk_store_begin: tracked has norm_bound (0.4). */
static bool store_has_norm_bound = false;

/* Set by dpk_store_begin: tracked has counter (0.9). */
static bool store_has_counter = false;

/*
 * Whether tracked has a column (delta, tree_arity: 0.3): asked of the
 * catalog caches, not of the version, since the install scripts of older
 * versions run under the new version number.
 */
static bool
store_tracked_has(const char *column)
{
	Oid			nsp = get_namespace_oid("dpkmeans_internal", true);
	Oid			rel = OidIsValid(nsp) ? get_relname_relid("tracked", nsp) : InvalidOid;

	return OidIsValid(rel) && get_attnum(rel, column) != InvalidAttrNumber;
}

/* Whether tracked has the tree_arity column (see store.h). */
bool
dpk_store_has_tree_arity(void)
{
	return store_tracked_has("tree_arity");
}

/* Whether tracked has the counter column (see store.h). */
bool
dpk_store_has_counter(void)
{
	return store_tracked_has("counter");
}

/* Begin work on the internal tables (see store.h). */
void
dpk_store_begin(DpkOwnerSwitch *sw)
{
	Oid			owner;
	char	   *version;

	/* one catalog read per statement of a writer: owner and version */
	dpk_pg_extension_row(&owner, &version);
	store_v01 = strcmp(version, "0.1") == 0;
	store_objectives = !store_v01 && strcmp(version, "0.2") != 0;
	store_has_delta = !store_v01 && store_tracked_has("delta");
	store_has_arity = store_has_delta && store_tracked_has("tree_arity");
	store_has_norm_bound = store_has_arity && store_tracked_has("norm_bound");
	store_has_counter = store_has_norm_bound && store_tracked_has("counter");
	dpk_pg_owner_begin_as(sw, owner);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
}

/* End work on the internal tables. */
void
dpk_store_end(DpkOwnerSwitch *sw)
{
	SPI_finish();
	dpk_pg_owner_end(sw);
}

/* Whether centers and costs have an objective column (0.3; after dpk_store_begin). */
bool
dpk_store_has_objectives(void)
{
	return store_objectives;
}

/* Whether the installed objects are 0.1's (valid after dpk_store_begin). */
bool
dpk_store_is_v01(void)
{
	return store_v01;
}

/* ERROR for a table that is not attached. */
void
dpk_store_not_attached(Oid relid)
{
	char	   *name = get_rel_name(relid);

	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("table \"%s\" is not attached to dpkmeans", name ? name : "?"),
			 errhint("Its owner attaches it with dp_attach(table, columns, k, epsilon, lower, upper).")));
}

/*
 * Run a parameterised statement, or ERROR naming it.  SPI returns in its own
 * procedure context (freed by SPI_finish); the caller's context is restored
 * so that what callers build after a statement outlives the store.
 */
void
dpk_store_exec(const char *sql, int nargs, Oid *types, Datum *values, bool read_only,
			   int expect)
{
	MemoryContext caller = CurrentMemoryContext;
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL, read_only, 0);

	MemoryContextSwitchTo(caller);

	if (rc != expect)
		elog(ERROR, "dpkmeans internal statement failed (%s): %s",
			 SPI_result_code_string(rc), sql);
}

/* Run a statement whose only parameter is the table. */
static void
store_exec_rel(const char *sql, Oid relid, bool read_only, int expect)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	dpk_store_exec(sql, 1, types, values, read_only, expect);
}

/* The value of column `name` of row `row` of the last result. */
static Datum
col(uint64 row, const char *name, bool *isnull)
{
	int			fno = SPI_fnumber(SPI_tuptable->tupdesc, name);

	if (fno <= 0)
		elog(ERROR, "dpkmeans internal column \"%s\" is missing", name);
	return SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, fno, isnull);
}

/* The same for a column that must not be NULL. */
Datum
dpk_store_col_nn(uint64 row, const char *name)
{
	bool		isnull;
	Datum		v = col(row, name, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("dpkmeans state is corrupt"),
				 errdetail("Column \"%s\" of an internal table is NULL.", name)));
	return v;
}

/* Copy a float8[] Datum into a C array of n doubles. */
static double *
float8_array(Datum d, int *n)
{
	ArrayType  *a = DatumGetArrayTypeP(d);
	Datum	   *elems;
	bool	   *nulls;
	double	   *out;
	int			i;

	deconstruct_array(a, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, n);
	out = palloc(*n * sizeof(double));
	for (i = 0; i < *n; i++)
		out[i] = DatumGetFloat8(elems[i]);
	return out;
}

/* A float8[] Datum from n doubles. */
Datum
dpk_store_float8_datum(const double *v, int n)
{
	Datum	   *elems = palloc(n * sizeof(Datum));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = Float8GetDatum(v[i]);
	return PointerGetDatum(construct_array(elems, n, FLOAT8OID, sizeof(float8),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * The tracked columns read by dpk_store_read_tracked, by version; %s is the
 * state column or its stand-in.
 */
#define TRACKED_COLUMNS_01 \
	"d, k, epsilon, lower, upper, horizon, mode, size_hint, level, sum_share, " \
	"releases, columns, %s dhat, copies, proj_seed, norm_share, " \
	"1 AS sampler_version, 1 AS state_format, NULL::bigint AS home_system_id, " \
	"NULL::int AS home_timeline, NULL::oid AS home_database, 0::float8 AS delta, " \
	"1 AS trigger_format, 2 AS tree_arity "
#define TRACKED_COLUMNS_02 \
	"d, k, epsilon, lower, upper, horizon, mode, size_hint, level, sum_share, " \
	"releases, columns, %s dhat, copies, proj_seed, norm_share, " \
	"sampler_version, state_format, home_system_id, home_timeline, home_database, " \
	"0::float8 AS delta, trigger_format, 2 AS tree_arity "
#define TRACKED_COLUMNS_03 \
	"d, k, epsilon, lower, upper, horizon, mode, size_hint, level, sum_share, " \
	"releases, columns, %s dhat, copies, proj_seed, norm_share, " \
	"sampler_version, state_format, home_system_id, home_timeline, home_database, delta, " \
	"trigger_format, "
#define TRACKED_ARITY "tree_arity "
#define TRACKED_ARITY_NORM "tree_arity, norm_bound "
#define TRACKED_ARITY_NORM_COUNTER "tree_arity, norm_bound, counter "
#define TRACKED_NO_ARITY "2 AS tree_arity "
#define TRACKED_SELECT(columns) \
	"SELECT " columns "FROM dpkmeans_internal.tracked WHERE relid = $1::oid::regclass"

static bool read_tracked(Oid relid, bool lock, bool with_state, MemoryContext ctx,
						 DpkTracked *tr);

/* Read a table's configuration and state (see store.h). */
bool
dpk_store_read_tracked(Oid relid, bool lock, MemoryContext ctx, DpkTracked *tr)
{
	return read_tracked(relid, lock, true, ctx, tr);
}

/* Read a table's configuration alone (see store.h). */
bool
dpk_store_read_config(Oid relid, MemoryContext ctx, DpkTracked *tr)
{
	return read_tracked(relid, false, false, ctx, tr);
}

/*
 * Read a table's configuration; with_state, its true state too, else an
 * empty one.  Without it the out-of-line state is not fetched at all, so
 * what the read costs (buffers, time) does not grow with the table.
 */
static bool
read_tracked(Oid relid, bool lock, bool with_state, MemoryContext ctx, DpkTracked *tr)
{
	const char *sql;
	MemoryContext old;
	Datum	   *elems;
	bool	   *nulls;
	bool		isnull;
	int			n,
				i;
	StringInfoData names;

	/* the columns the installed objects have, newest last */
	if (store_v01)
		sql = TRACKED_SELECT(TRACKED_COLUMNS_01);
	else if (!store_has_delta)
		sql = TRACKED_SELECT(TRACKED_COLUMNS_02);
	else if (!store_has_arity)
		sql = TRACKED_SELECT(TRACKED_COLUMNS_03 TRACKED_NO_ARITY);
	else if (!store_has_norm_bound)
		sql = TRACKED_SELECT(TRACKED_COLUMNS_03 TRACKED_ARITY);
	else if (!store_has_counter)
		sql = TRACKED_SELECT(TRACKED_COLUMNS_03 TRACKED_ARITY_NORM);
	else
		sql = TRACKED_SELECT(TRACKED_COLUMNS_03 TRACKED_ARITY_NORM_COUNTER);
	sql = psprintf(sql, with_state ? "state, " : "NULL::bytea AS state, ");
	if (lock)
		sql = psprintf("%s FOR NO KEY UPDATE", sql);
	store_exec_rel(sql, relid, !lock, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return false;

	old = MemoryContextSwitchTo(ctx);
	tr->relid = relid;
	tr->d = DatumGetInt32(dpk_store_col_nn(0, "d"));
	tr->k = DatumGetInt32(dpk_store_col_nn(0, "k"));
	tr->epsilon = DatumGetFloat8(dpk_store_col_nn(0, "epsilon"));
	tr->lower = float8_array(dpk_store_col_nn(0, "lower"), &n);
	tr->upper = float8_array(dpk_store_col_nn(0, "upper"), &n);
	tr->horizon = DatumGetInt32(dpk_store_col_nn(0, "horizon"));
	tr->insert_only = strcmp(TextDatumGetCString(dpk_store_col_nn(0, "mode")), "insert_only") == 0;
	tr->size_hint = DatumGetFloat8(dpk_store_col_nn(0, "size_hint"));
	tr->level = DatumGetInt32(dpk_store_col_nn(0, "level"));
	tr->sum_share = DatumGetFloat8(dpk_store_col_nn(0, "sum_share"));
	tr->releases = DatumGetInt32(dpk_store_col_nn(0, "releases"));
	tr->dhat = DatumGetInt32(dpk_store_col_nn(0, "dhat"));
	tr->copies = DatumGetInt32(dpk_store_col_nn(0, "copies"));
	tr->proj_seed = (uint64) DatumGetInt64(dpk_store_col_nn(0, "proj_seed"));
	tr->norm_share = DatumGetFloat8(dpk_store_col_nn(0, "norm_share"));
	tr->sampler_version = DatumGetInt32(dpk_store_col_nn(0, "sampler_version"));
	tr->state_format = DatumGetInt32(dpk_store_col_nn(0, "state_format"));
	tr->delta = DatumGetFloat8(dpk_store_col_nn(0, "delta"));
	tr->trigger_format = DatumGetInt32(dpk_store_col_nn(0, "trigger_format"));
	tr->tree_arity = DatumGetInt32(dpk_store_col_nn(0, "tree_arity"));
	tr->norm_bound = store_has_norm_bound ? DatumGetFloat8(dpk_store_col_nn(0, "norm_bound")) : 0.0;
	tr->counter = DPK_LIVE_COUNTER_TREE;
	if (store_has_counter)
	{
		char	   *counter = TextDatumGetCString(dpk_store_col_nn(0, "counter"));

		if (strcmp(counter, "square_root") == 0)
			tr->counter = DPK_LIVE_COUNTER_SQRT;
		else if (strcmp(counter, "share_tree") == 0)
			tr->counter = DPK_LIVE_COUNTER_SHARE;
		else if (strcmp(counter, "square_root_sums") == 0)
			tr->counter = DPK_LIVE_COUNTER_SQRT_SUMS;
		else if (strcmp(counter, "square_root_lifted") == 0)
			tr->counter = DPK_LIVE_COUNTER_SQRT_LIFTED;
		else if (strcmp(counter, "tree") != 0)
			elog(ERROR, "unknown counter \"%s\" in dpkmeans_internal.tracked", counter);
	}

	deconstruct_array(DatumGetArrayTypeP(dpk_store_col_nn(0, "columns")), TEXTOID, -1, false,
					  TYPALIGN_INT, &elems, &nulls, &tr->ncols);
	tr->colnames = palloc(tr->ncols * sizeof(char *));
	initStringInfo(&names);
	for (i = 0; i < tr->ncols; i++)
	{
		tr->colnames[i] = TextDatumGetCString(elems[i]);
		appendStringInfo(&names, "%s%s", i ? ", " : "", tr->colnames[i]);
	}
	tr->columns = names.data;

	tr->home.system_id = (uint64) DatumGetInt64(col(0, "home_system_id", &isnull));
	tr->home.known = !isnull;
	if (tr->home.known)
	{
		tr->home.timeline = DatumGetInt32(dpk_store_col_nn(0, "home_timeline"));
		tr->home.dbid = DatumGetObjectId(dpk_store_col_nn(0, "home_database"));
	}
	dpk_cellmap_init(&tr->state, tr->d);
	tr->state_len = 0;
	if (with_state)
		tr->state_len = dpk_store_merge_stored(&tr->state, dpk_store_col_nn(0, "state"), +1);
	MemoryContextSwitchTo(old);
	{
		DpkWalCapture wc;

		tr->capture_wal = dpk_store_wal_read(relid, &wc);
	}
	return true;
}

/* Whether the table is attached. */
bool
dpk_store_is_attached(Oid relid)
{
	store_exec_rel("SELECT 1 FROM dpkmeans_internal.tracked WHERE relid = $1::oid::regclass",
				   relid, true, SPI_OK_SELECT);
	return SPI_processed > 0;
}

/*
 * The same as committed now (a snapshot of its own, in READ COMMITTED): an
 * attach or detach asks this after taking the table's lock, which it may
 * have waited for while another one committed; its statement's snapshot
 * predates that commit.
 */
bool
dpk_store_is_attached_now(Oid relid)
{
	store_exec_rel("SELECT 1 FROM dpkmeans_internal.tracked WHERE relid = $1::oid::regclass",
				   relid, false, SPI_OK_SELECT);
	return SPI_processed > 0;
}

/* Store a new table (see store.h). */
void
dpk_store_insert_tracked(const DpkTracked *tr, const char *mode,
						 const AttrNumber *attnums, const uint8 *key)
{
	Oid			types[26];
	Datum		values[26];
	Datum	   *names = palloc(tr->ncols * sizeof(Datum));
	Datum	   *atts = palloc(tr->ncols * sizeof(Datum));
	bytea	   *keyb = palloc(VARHDRSZ + DPK_KEY_BYTES);
	DpkCellMap	empty;
	int			i;

	for (i = 0; i < tr->ncols; i++)
	{
		names[i] = CStringGetTextDatum(tr->colnames[i]);
		atts[i] = Int16GetDatum(attnums[i]);
	}
	dpk_cellmap_init(&empty, tr->d);
	types[0] = OIDOID;
	values[0] = ObjectIdGetDatum(tr->relid);
	types[1] = TEXTARRAYOID;
	values[1] = PointerGetDatum(construct_array(names, tr->ncols, TEXTOID, -1, false, TYPALIGN_INT));
	/* $3, attribute numbers: 0.1 only (0.2 resolves columns by name) */
	types[2] = INT2ARRAYOID;
	values[2] = PointerGetDatum(construct_array(atts, tr->ncols, INT2OID, 2, true, TYPALIGN_SHORT));
	types[3] = INT4OID;
	values[3] = Int32GetDatum(tr->d);
	types[4] = INT4OID;
	values[4] = Int32GetDatum(tr->k);
	types[5] = FLOAT8OID;
	values[5] = Float8GetDatum(tr->epsilon);
	types[6] = FLOAT8ARRAYOID;
	values[6] = dpk_store_float8_datum(tr->lower, tr->d);
	types[7] = FLOAT8ARRAYOID;
	values[7] = dpk_store_float8_datum(tr->upper, tr->d);
	types[8] = INT4OID;
	values[8] = Int32GetDatum(tr->horizon);
	types[9] = TEXTOID;
	values[9] = CStringGetTextDatum(mode);
	types[10] = FLOAT8OID;
	values[10] = Float8GetDatum(tr->size_hint);
	types[11] = INT4OID;
	values[11] = Int32GetDatum(tr->level);
	types[12] = FLOAT8OID;
	values[12] = Float8GetDatum(tr->sum_share);
	types[13] = BYTEAOID;
	values[13] = PointerGetDatum(dpk_store_map_bytea(&empty, store_v01 ? 0 : 1));
	types[14] = INT4OID;
	values[14] = Int32GetDatum(tr->dhat);
	types[15] = INT4OID;
	values[15] = Int32GetDatum(tr->copies);
	types[16] = INT8OID;
	values[16] = Int64GetDatum((int64) tr->proj_seed);
	types[17] = FLOAT8OID;
	values[17] = Float8GetDatum(tr->norm_share);
	types[18] = INT4OID;
	values[18] = Int32GetDatum(tr->sampler_version);
	types[19] = INT4OID;
	values[19] = Int32GetDatum(tr->state_format);
	types[20] = INT8OID;
	values[20] = Int64GetDatum((int64) tr->home.system_id);
	types[21] = INT4OID;
	values[21] = Int32GetDatum(tr->home.timeline);
	types[22] = OIDOID;
	values[22] = ObjectIdGetDatum(tr->home.dbid);
	types[23] = FLOAT8OID;
	values[23] = Float8GetDatum(tr->delta);
	types[24] = INT4OID;
	values[24] = Int32GetDatum(tr->tree_arity);
	types[25] = INT4OID;
	values[25] = Int32GetDatum(tr->trigger_format);
	if (!store_has_delta && tr->delta != 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("delta needs dpkmeans 0.3"),
				 errhint("Run ALTER EXTENSION dpkmeans UPDATE.")));
	/* attach picks the binary tree when the column is missing */
	if (!store_has_arity && tr->tree_arity > 2)
		elog(ERROR, "a k-ary counter tree needs the tree_arity column of dpkmeans 0.3");
	if (store_v01)
		dpk_store_exec("INSERT INTO dpkmeans_internal.tracked (relid, columns, attnums, d, k, "
				   "epsilon, lower, upper, horizon, mode, size_hint, level, sum_share, state, "
				   "dhat, copies, proj_seed, norm_share) VALUES ($1::oid::regclass, $2, $3, "
				   "$4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
				   18, types, values, false, SPI_OK_INSERT);
	else if (store_has_arity)
		dpk_store_exec("INSERT INTO dpkmeans_internal.tracked (relid, columns, d, k, "
				   "epsilon, lower, upper, horizon, mode, size_hint, level, sum_share, state, "
				   "dhat, copies, proj_seed, norm_share, sampler_version, state_format, "
				   "trigger_format, home_system_id, home_timeline, home_database, delta, "
				   "tree_arity) VALUES "
				   "($1::oid::regclass, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, "
				   "$14, $15, $16, $17, $18, $19, $20, $26, $21, $22, $23, $24, $25)",
				   26, types, values, false, SPI_OK_INSERT);
	else
		dpk_store_exec(store_has_delta
				   ? "INSERT INTO dpkmeans_internal.tracked (relid, columns, d, k, "
				   "epsilon, lower, upper, horizon, mode, size_hint, level, sum_share, state, "
				   "dhat, copies, proj_seed, norm_share, sampler_version, state_format, "
				   "trigger_format, home_system_id, home_timeline, home_database, delta) VALUES "
				   "($1::oid::regclass, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, "
				   "$14, $15, $16, $17, $18, $19, $20, $26, $21, $22, $23, $24)"
				   : "INSERT INTO dpkmeans_internal.tracked (relid, columns, d, k, "
				   "epsilon, lower, upper, horizon, mode, size_hint, level, sum_share, state, "
				   "dhat, copies, proj_seed, norm_share, sampler_version, state_format, "
				   "trigger_format, home_system_id, home_timeline, home_database) VALUES "
				   "($1::oid::regclass, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, "
				   "$14, $15, $16, $17, $18, $19, $20, $26, $21, $22, $23)",
				   26, types, values, false, SPI_OK_INSERT);

	if (tr->norm_bound > 0.0)
	{
		if (!store_has_norm_bound)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("norm_bound needs dpkmeans 0.4"),
					 errhint("Run ALTER EXTENSION dpkmeans UPDATE.")));
		types[1] = FLOAT8OID;
		values[1] = Float8GetDatum(tr->norm_bound);
		dpk_store_exec("UPDATE dpkmeans_internal.tracked SET norm_bound = $2 "
					   "WHERE relid = $1::oid::regclass", 2, types, values, false,
					   SPI_OK_UPDATE);
	}

	if (tr->counter != DPK_LIVE_COUNTER_TREE)
	{
		if (!store_has_counter)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the %s counter needs dpkmeans 0.9",
							tr->counter == DPK_LIVE_COUNTER_SHARE ? "share-tree" : "square-root"),
					 errhint("Run ALTER EXTENSION dpkmeans UPDATE.")));
		types[1] = TEXTOID;
		values[1] = CStringGetTextDatum(dpk_live_counter_name(tr->counter));
		dpk_store_exec("UPDATE dpkmeans_internal.tracked SET counter = $2 "
					   "WHERE relid = $1::oid::regclass", 2, types, values, false,
					   SPI_OK_UPDATE);
	}

	dpk_store_attach_objectives(tr->relid);

	if (key == NULL)
		return;					/* a shard table: no key, no release */
	SET_VARSIZE(keyb, VARHDRSZ + DPK_KEY_BYTES);
	memcpy(VARDATA(keyb), key, DPK_KEY_BYTES);
	types[1] = BYTEAOID;
	values[1] = PointerGetDatum(keyb);
	dpk_store_exec("INSERT INTO dpkmeans_internal.keys (relid, key) VALUES ($1::oid::regclass, $2)",
			   2, types, values, false, SPI_OK_INSERT);
	explicit_bzero(VARDATA(keyb), DPK_KEY_BYTES);
}

/* The table's secret key (see store.h). */
void
dpk_store_read_key(Oid relid, uint8 *key)
{
	bytea	   *kb;

	store_exec_rel("SELECT key FROM dpkmeans_internal.keys WHERE relid = $1::oid::regclass",
				   relid, false, SPI_OK_SELECT);
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the secret key of table \"%s\" is missing", get_rel_name(relid))));
	kb = DatumGetByteaPP(dpk_store_col_nn(0, "key"));
	if (VARSIZE_ANY_EXHDR(kb) != DPK_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the secret key of table \"%s\" is malformed", get_rel_name(relid))));
	memcpy(key, VARDATA_ANY(kb), DPK_KEY_BYTES);
}

/* Merge every payload of the last result into state; returns how many. */
static uint64
merge_payloads(DpkCellMap *state)
{
	uint64		i,
				n = SPI_processed;

	for (i = 0; i < n; i++)
		(void) dpk_store_merge_stored(state, dpk_store_col_nn(i, "payload"), +1);
	return n;
}

/* Fold the pending deltas (see store.h). */
uint64
dpk_store_fold_deltas(Oid relid, DpkCellMap *state)
{
	/* One statement, so no delta can slip between read and delete. */
	store_exec_rel("DELETE FROM dpkmeans_internal.delta WHERE relid = $1::oid::regclass "
				   "RETURNING payload", relid, false, SPI_OK_DELETE_RETURNING);
	return merge_payloads(state);
}

/* Remove a table's deltas unread (see store.h). */
void
dpk_store_drop_deltas(Oid relid)
{
	store_exec_rel("DELETE FROM dpkmeans_internal.delta WHERE relid = $1::oid::regclass",
				   relid, false, SPI_OK_DELETE);
}

/* Add the pending deltas without removing them (see store.h). */
void
dpk_store_add_deltas(Oid relid, DpkCellMap *state)
{
	store_exec_rel("SELECT payload FROM dpkmeans_internal.delta WHERE relid = $1::oid::regclass",
				   relid, true, SPI_OK_SELECT);
	(void) merge_payloads(state);
}

/* Append one statement's change (see store.h). */
void
dpk_store_append_delta(Oid relid, const DpkCellMap *map, uint64 pad_to)
{
	Oid			types[2] = {OIDOID, BYTEAOID};
	Datum		values[2];

	values[0] = ObjectIdGetDatum(relid);
	values[1] = PointerGetDatum(dpk_store_map_bytea(map, pad_to));
	dpk_store_exec("INSERT INTO dpkmeans_internal.delta (relid, payload) "
			   "VALUES ($1::oid::regclass, $2)", 2, types, values, false, SPI_OK_INSERT);
}

/* Record the table's home (see store.h); 0.1 has no place for it. */
void
dpk_store_set_home(Oid relid, const DpkHome *home)
{
	Oid			types[4] = {OIDOID, INT8OID, INT4OID, OIDOID};
	Datum		values[4];

	if (store_v01)
		return;
	values[0] = ObjectIdGetDatum(relid);
	values[1] = Int64GetDatum((int64) home->system_id);
	values[2] = Int32GetDatum(home->timeline);
	values[3] = ObjectIdGetDatum(home->dbid);
	dpk_store_exec("UPDATE dpkmeans_internal.tracked SET home_system_id = $2, home_timeline = $3, "
			   "home_database = $4 WHERE relid = $1::oid::regclass",
			   4, types, values, false, SPI_OK_UPDATE);
}

static void revoke_unused_reader_grants(void);

/* Remove every stored row of the table. */
void
dpk_store_delete_table(Oid relid)
{
	static const char *const sql[] = {
		"DELETE FROM dpkmeans_internal.tracked WHERE relid = $1::oid::regclass",
		"DELETE FROM dpkmeans_internal.keys WHERE relid = $1::oid::regclass",
		"DELETE FROM dpkmeans_internal.delta WHERE relid = $1::oid::regclass",
		"DELETE FROM dpkmeans_internal.releases WHERE relid = $1::oid::regclass",
		"DELETE FROM dpkmeans_internal.centers WHERE relid = $1::oid::regclass",
		"DELETE FROM dpkmeans_internal.costs WHERE relid = $1::oid::regclass",
		"DELETE FROM dpkmeans_internal.histogram WHERE relid = $1::oid::regclass",
		"DELETE FROM dpkmeans_internal.readers WHERE relid = $1::oid::regclass"
	};
	size_t		i;

	for (i = 0; i < lengthof(sql) - (store_v01 ? 1 : 0); i++)
		store_exec_rel(sql[i], relid, false, SPI_OK_DELETE);
	dpk_store_regions_delete(relid);
	revoke_unused_reader_grants();
}

/*
 * A grant row counts only while its role holds USAGE on the domain
 * dpkmeans_internal.reader_grants (0.7), so that DROP ROLE is refused while
 * it reads a table and DROP OWNED BY ends its reading (objects older than
 * 0.7 have no domain: every row counts).
 */
#define READER_GRANT_HELD \
	"(to_regtype('dpkmeans_internal.reader_grants') IS NULL OR EXISTS (" \
	"SELECT 1 FROM pg_catalog.pg_type t, pg_catalog.aclexplode(t.typacl) a " \
	"WHERE t.oid = to_regtype('dpkmeans_internal.reader_grants') AND a.grantee = g.reader::oid))"

/* Whether the installed objects keep reader grants as privileges (0.7). */
static bool
has_reader_privileges(void)
{
	dpk_store_exec("SELECT to_regtype('dpkmeans_internal.reader_grants') IS NOT NULL AS has",
				   0, NULL, NULL, true, SPI_OK_SELECT);
	return DatumGetBool(dpk_store_col_nn(0, "has"));
}

/* Revoke the reader privilege of roles that read no table any more (0.7). */
static void
revoke_unused_reader_grants(void)
{
	if (!store_v01 && has_reader_privileges())
		dpk_store_exec("SELECT dpkmeans_internal.revoke_unused_reader_grants()",
					   0, NULL, NULL, false, SPI_OK_SELECT);
}

/* Whether member has the privileges of a granted reader (see store.h). */
bool
dpk_store_has_reader_grant(Oid relid, Oid member)
{
	uint64		i;

	if (store_v01)
		return false;
	store_exec_rel("SELECT reader::oid AS reader FROM dpkmeans_internal.readers g "
				   "WHERE relid = $1::oid::regclass AND " READER_GRANT_HELD,
				   relid, true, SPI_OK_SELECT);
	for (i = 0; i < SPI_processed; i++)
		if (has_privs_of_role(member, DatumGetObjectId(dpk_store_col_nn(i, "reader"))))
			return true;
	return false;
}

/*
 * Grant or revoke reading (see store.h).  A grant gives the role the reader
 * privilege first; a revocation takes it back from a role that reads no
 * other table.
 */
bool
dpk_store_set_reader(Oid relid, Oid role, bool grant)
{
	Oid			types[2] = {OIDOID, OIDOID};
	Datum		values[2] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(role)};
	bool		changed;

	if (grant)
	{
		if (has_reader_privileges())
			dpk_store_exec(psprintf("GRANT USAGE ON TYPE dpkmeans_internal.reader_grants TO %s",
									quote_identifier(GetUserNameFromId(role, false))),
						   0, NULL, NULL, false, SPI_OK_UTILITY);
		dpk_store_exec("INSERT INTO dpkmeans_internal.readers (relid, reader) "
				   "VALUES ($1::oid::regclass, $2::oid::regrole) ON CONFLICT DO NOTHING",
				   2, types, values, false, SPI_OK_INSERT);
		return SPI_processed > 0;
	}
	/* by OID: a row of a role dropped under an older version goes too */
	dpk_store_exec("DELETE FROM dpkmeans_internal.readers "
			   "WHERE relid = $1::oid::regclass AND reader::oid = $2",
			   2, types, values, false, SPI_OK_DELETE);
	changed = SPI_processed > 0;
	revoke_unused_reader_grants();
	return changed;
}

/* The granted readers, comma-separated (see store.h). */
char *
dpk_store_reader_names(Oid relid)
{
	if (store_v01)
		return "";
	store_exec_rel("SELECT coalesce(string_agg(reader::text, ', ' ORDER BY reader::text), '') "
				   "AS names FROM dpkmeans_internal.readers g WHERE relid = $1::oid::regclass "
				   "AND " READER_GRANT_HELD,
				   relid, true, SPI_OK_SELECT);
	return TextDatumGetCString(dpk_store_col_nn(0, "names"));
}
