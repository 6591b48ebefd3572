/*
 * release.c
 *		SQL functions of live tables: attach, detach, release, the readers of
 *		stored snapshots, the privacy report and verification.
 *
 * Internal state is reached only through dpk_pg_owner_begin(), after the
 * caller's own checks; every SQL text here is a constant with parameters,
 * and tables are passed as regclass (oid) values, never as interpolated names.
 */
#include "postgres.h"

#include <math.h>

#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_class.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "continual.h"
#include "coreset.h"
#include "dpk_mem.h"
#include "live.h"

#define DEFAULT_SIZE_HINT 100000.0
#define MAX_HORIZON (1 << 20)

static const char *const trigger_names[] = {
	"dpkmeans_capture_insert", "dpkmeans_capture_update", "dpkmeans_capture_delete",
	"dpkmeans_capture_truncate", "dpkmeans_refuse_delete", "dpkmeans_refuse_update",
	"dpkmeans_refuse_truncate"
};

/* The configuration of an attached table, as stored in tracked. */
typedef struct Tracked
{
	Oid			relid;
	int			d;
	int			k;
	double		epsilon;
	double	   *lower;
	double	   *upper;
	int			horizon;
	bool		insert_only;
	double		size_hint;
	int			level;
	double		sum_share;
	int			dhat;
	int			copies;
	uint64		proj_seed;
	double		norm_share;
	int			releases;
	int			ncols;
	AttrNumber *attnums;
	char	   *columns;		/* for the report */
	DpkCellMap	state;
} Tracked;

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
static Datum
make_float8_array(const double *v, int n)
{
	Datum	   *elems = palloc(n * sizeof(Datum));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = Float8GetDatum(v[i]);
	return PointerGetDatum(construct_array(elems, n, FLOAT8OID, sizeof(float8),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* A bytea Datum holding a serialised cell map. */
static Datum
map_to_bytea(const DpkCellMap *m)
{
	size_t		len;
	uint8_t    *buf = dpk_cellmap_serialize(m, &len);
	bytea	   *b = palloc(VARHDRSZ + len);

	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), buf, len);
	return PointerGetDatum(b);
}

/* Merge a bytea cell map into m, or ERROR on corruption. */
static void
merge_bytea(DpkCellMap *m, Datum d, int sign)
{
	bytea	   *b = DatumGetByteaPP(d);

	if (!dpk_cellmap_merge_serialized(m, (uint8_t *) VARDATA_ANY(b),
									  VARSIZE_ANY_EXHDR(b), sign))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("dpkmeans state is corrupt")));
}

/* ERROR for a table that is not attached. */
static void
not_attached(Oid relid)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("table \"%s\" is not attached to dpkmeans",
					get_rel_name(relid) ? get_rel_name(relid) : "?"),
			 errhint("Its owner attaches it with dp_attach(table, columns, k, epsilon, lower, upper).")));
}

/*
 * Read a table's configuration (inside SPI, as the extension owner).
 * lock: take the row lock that serialises releases of this table.
 * Values are copied into ctx.  Returns false if the table is not attached.
 */
static bool
read_tracked(Oid relid, bool lock, MemoryContext ctx, Tracked *tr)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	HeapTuple	tup;
	TupleDesc	desc;
	bool		isnull;
	MemoryContext old;
	int			n;
	ArrayType  *att;

	if (SPI_execute_with_args(lock
							  ? "SELECT d, k, epsilon, lower, upper, horizon, mode, size_hint, level, "
							  "sum_share, releases, attnums, array_to_string(columns, ', '), state, "
							  "dhat, copies, proj_seed, norm_share "
							  "FROM dpkmeans_internal.tracked WHERE relid = $1::oid::regclass "
							  "FOR NO KEY UPDATE"
							  : "SELECT d, k, epsilon, lower, upper, horizon, mode, size_hint, level, "
							  "sum_share, releases, attnums, array_to_string(columns, ', '), state, "
							  "dhat, copies, proj_seed, norm_share "
							  "FROM dpkmeans_internal.tracked WHERE relid = $1::oid::regclass",
							  1, types, values, NULL, !lock, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read dpkmeans configuration");
	if (SPI_processed == 0)
		return false;
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	old = MemoryContextSwitchTo(ctx);
	tr->relid = relid;
	tr->d = DatumGetInt32(SPI_getbinval(tup, desc, 1, &isnull));
	tr->k = DatumGetInt32(SPI_getbinval(tup, desc, 2, &isnull));
	tr->epsilon = DatumGetFloat8(SPI_getbinval(tup, desc, 3, &isnull));
	tr->lower = float8_array(SPI_getbinval(tup, desc, 4, &isnull), &n);
	tr->upper = float8_array(SPI_getbinval(tup, desc, 5, &isnull), &n);
	tr->horizon = DatumGetInt32(SPI_getbinval(tup, desc, 6, &isnull));
	tr->insert_only = strcmp(TextDatumGetCString(SPI_getbinval(tup, desc, 7, &isnull)),
							 "insert_only") == 0;
	tr->size_hint = DatumGetFloat8(SPI_getbinval(tup, desc, 8, &isnull));
	tr->level = DatumGetInt32(SPI_getbinval(tup, desc, 9, &isnull));
	tr->sum_share = DatumGetFloat8(SPI_getbinval(tup, desc, 10, &isnull));
	tr->releases = DatumGetInt32(SPI_getbinval(tup, desc, 11, &isnull));
	att = DatumGetArrayTypeP(SPI_getbinval(tup, desc, 12, &isnull));
	{
		Datum	   *elems;
		bool	   *nulls;
		int			i;

		deconstruct_array(att, INT2OID, 2, true, TYPALIGN_SHORT, &elems, &nulls, &tr->ncols);
		tr->attnums = palloc(tr->ncols * sizeof(AttrNumber));
		for (i = 0; i < tr->ncols; i++)
			tr->attnums[i] = DatumGetInt16(elems[i]);
	}
	tr->columns = TextDatumGetCString(SPI_getbinval(tup, desc, 13, &isnull));
	tr->dhat = DatumGetInt32(SPI_getbinval(tup, desc, 15, &isnull));
	tr->copies = DatumGetInt32(SPI_getbinval(tup, desc, 16, &isnull));
	tr->proj_seed = (uint64) DatumGetInt64(SPI_getbinval(tup, desc, 17, &isnull));
	tr->norm_share = DatumGetFloat8(SPI_getbinval(tup, desc, 18, &isnull));
	dpk_cellmap_init(&tr->state, tr->d);
	merge_bytea(&tr->state, SPI_getbinval(tup, desc, 14, &isnull), +1);
	MemoryContextSwitchTo(old);
	return true;
}

/* The continual configuration of a tracked table. */
static void
live_config(const Tracked *tr, DpkLiveConfig *cfg)
{
	dpk_live_defaults(cfg, tr->d, tr->k, tr->epsilon, (uint32_t) tr->horizon,
					  tr->insert_only);
	cfg->level = tr->level;
	cfg->sum_share = tr->sum_share;
	if (tr->dhat > 0)
	{
		dpk_live_use_projection(cfg, tr->proj_seed);
		cfg->dhat = tr->dhat;
		cfg->copies = tr->copies;
		cfg->sum_share = tr->sum_share;
		cfg->norm_share = tr->norm_share;
	}
}

/* Run a parameterised statement inside SPI, or ERROR. */
static void
spi_exec(const char *sql, int nargs, Oid *types, Datum *values, int expect)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0);

	if (rc != expect)
		elog(ERROR, "dpkmeans internal statement failed (%s): %s",
			 SPI_result_code_string(rc), sql);
}

/*
 * Make release t+1 of a table (inside SPI, as the extension owner): lock its
 * configuration row, fold the pending deltas into the true state, add the
 * tree noise of release t+1 to every cell, cluster for every k' and store
 * the snapshot.  At the horizon nothing is made.  With only_first, a release
 * is made only if there is none yet (readers asking before any release).
 */
static int
make_release(Oid relid, bool only_first)
{
	MemoryContext ctx = AllocSetContextCreate(CurrentMemoryContext, "dpkmeans release",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(ctx);
	Tracked		tr;
	DpkLiveConfig cfg;
	DpkBox		box;
	DpkDenseHist noisy;
	DpkLiveRelease rel;
	DpkCellMap	noisy_map;
	DpkStream  *stream;
	uint8		key[DPK_KEY_BYTES];
	uint8		nonce[DPK_NONCE_BYTES] = {0};
	Oid			types[6];
	Datum		values[6];
	uint32		t;
	uint64		i;
	int			kp,
				c;

	if (!read_tracked(relid, true, ctx, &tr))
		not_attached(relid);
	if (only_first && tr.releases > 0)
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(ctx);
		return tr.releases;
	}
	if (tr.releases >= tr.horizon)
	{
		ereport(NOTICE,
				(errmsg("table \"%s\" reached its horizon of %d releases; no new release is made",
						get_rel_name(relid), tr.horizon),
				 errhint("Readers keep getting release %d.", tr.releases)));
		MemoryContextSwitchTo(old);
		MemoryContextDelete(ctx);
		return tr.releases;
	}
	t = (uint32) tr.releases + 1;
	types[0] = OIDOID;
	values[0] = ObjectIdGetDatum(relid);

	/* Fold: one statement, so no delta can slip between read and delete. */
	spi_exec("DELETE FROM dpkmeans_internal.delta WHERE relid = $1::oid::regclass RETURNING payload",
			 1, types, values, SPI_OK_DELETE_RETURNING);
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		merge_bytea(&tr.state, SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
											 1, &isnull), +1);
	}

	spi_exec("SELECT key FROM dpkmeans_internal.keys WHERE relid = $1::oid::regclass",
			 1, types, values, SPI_OK_SELECT);
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the secret key of table \"%s\" is missing", get_rel_name(relid))));
	{
		bool		isnull;
		bytea	   *kb = DatumGetByteaPP(SPI_getbinval(SPI_tuptable->vals[0],
													   SPI_tuptable->tupdesc, 1, &isnull));

		if (VARSIZE_ANY_EXHDR(kb) != DPK_KEY_BYTES)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("the secret key of table \"%s\" is malformed", get_rel_name(relid))));
		memcpy(key, VARDATA_ANY(kb), DPK_KEY_BYTES);
	}

	live_config(&tr, &cfg);
	box.d = tr.d;
	box.lower = tr.lower;
	box.upper = tr.upper;
	stream = palloc0(sizeof(DpkStream));
	dpk_pg_stream_open(stream, key, nonce);
	dpk_cellmap_init(&noisy_map, tr.d);
	if (cfg.dhat > 0)
	{
		/* Projected copies: noisy counts and lifting sums of every copy. */
		uint64		total = (uint64) cfg.copies * dpk_live_copy_cells(&cfg);
		double	   *pcount = palloc_extended(total * sizeof(double), MCXT_ALLOC_HUGE);
		double	   *psum = palloc_extended(total * tr.d * sizeof(double), MCXT_ALLOC_HUGE);
		double		psumnorm;

		dpk_live_noisy_projected(&cfg, key, &tr.state, t, stream, pcount, psum, &psumnorm);
		explicit_bzero(key, sizeof(key));
		dpk_live_cluster_projected(&cfg, &box, pcount, psum, psumnorm, t,
								   dpk_stream_u64(stream), &rel);
		for (i = 0; i < total; i++)
		{
			int64_t    *v = dpk_cellmap_get(&noisy_map, i);
			int			j;

			v[0] = (int64_t) pcount[i];
			for (j = 0; j < tr.d; j++)
				v[1 + j] = (int64_t) psum[i * tr.d + j];
		}
		noisy.ncells = 0;
	}
	else
	{
		dpk_live_noisy_histogram(&cfg, key, &tr.state, t, stream, &noisy);
		explicit_bzero(key, sizeof(key));
		dpk_live_cluster(&cfg, &box, &noisy, t, dpk_stream_u64(stream), &rel);
	}

	/* The new true state and the release number. */
	types[1] = BYTEAOID;
	values[1] = map_to_bytea(&tr.state);
	types[2] = INT4OID;
	values[2] = Int32GetDatum((int32) t);
	spi_exec("UPDATE dpkmeans_internal.tracked SET state = $2, releases = $3 "
			 "WHERE relid = $1::oid::regclass", 3, types, values, SPI_OK_UPDATE);

	/* The snapshot. */
	types[1] = INT4OID;
	values[1] = Int32GetDatum((int32) t);
	types[2] = INT4OID;
	values[2] = Int32GetDatum(rel.level);
	types[3] = FLOAT8OID;
	values[3] = Float8GetDatum(rel.noisy_n);
	spi_exec("INSERT INTO dpkmeans_internal.releases (relid, t, made_at, level, noisy_n) "
			 "VALUES ($1::oid::regclass, $2, now(), $3, $4)", 4, types, values, SPI_OK_INSERT);

	for (kp = 1; kp <= tr.k; kp++)
	{
		types[2] = INT4OID;
		values[2] = Int32GetDatum(kp);
		types[3] = FLOAT8OID;
		values[3] = Float8GetDatum(rel.costs[kp - 1]);
		spi_exec("INSERT INTO dpkmeans_internal.costs (relid, t, k, noisy_cost) "
				 "VALUES ($1::oid::regclass, $2, $3, $4)", 4, types, values, SPI_OK_INSERT);
		for (c = 0; c < kp; c++)
		{
			int			b = dpk_live_block(kp) + c;

			types[3] = INT4OID;
			values[3] = Int32GetDatum(c + 1);
			types[4] = FLOAT8ARRAYOID;
			values[4] = make_float8_array(rel.centers + (size_t) b * tr.d, tr.d);
			types[5] = FLOAT8OID;
			values[5] = Float8GetDatum(rel.sizes[b]);
			spi_exec("INSERT INTO dpkmeans_internal.centers (relid, t, k, cluster, center, noisy_size) "
					 "VALUES ($1::oid::regclass, $2, $3, $4, $5, $6)", 6, types, values, SPI_OK_INSERT);
		}
	}

	/* The noisy counted level, for dp_histogram at any level. */
	for (i = 0; i < noisy.ncells; i++)
	{
		int64_t    *v = dpk_cellmap_get(&noisy_map, i);
		int			j;

		v[0] = noisy.count[i];
		if (noisy.sum)
			for (j = 0; j < tr.d; j++)
				v[1 + j] = noisy.sum[i * tr.d + j];
	}
	types[2] = BYTEAOID;
	values[2] = map_to_bytea(&noisy_map);
	spi_exec("INSERT INTO dpkmeans_internal.histogram (relid, t, payload) "
			 "VALUES ($1::oid::regclass, $2, $3) ON CONFLICT (relid) "
			 "DO UPDATE SET t = excluded.t, payload = excluded.payload",
			 3, types, values, SPI_OK_INSERT);

	MemoryContextSwitchTo(old);
	MemoryContextDelete(ctx);
	return (int) t;
}

/* Create one statement-level trigger on relid without any SQL text. */
static void
create_trigger(Oid relid, const char *name, const char *func, int16 timing,
			   int16 events, bool old_table, bool new_table, List *columns,
			   List *args)
{
	CreateTrigStmt *st = makeNode(CreateTrigStmt);

	st->replace = false;
	st->isconstraint = false;
	st->trigname = pstrdup(name);
	st->relation = makeRangeVar(get_namespace_name(get_rel_namespace(relid)),
								get_rel_name(relid), -1);
	st->funcname = list_make2(makeString("dpkmeans_internal"), makeString(pstrdup(func)));
	st->args = args;
	st->row = false;
	st->timing = timing;
	st->events = events;
	st->columns = columns;
	st->whenClause = NULL;
	st->transitionRels = NIL;
	if (old_table)
	{
		TriggerTransition *tt = makeNode(TriggerTransition);

		tt->name = "dpkmeans_old";
		tt->isNew = false;
		tt->isTable = true;
		st->transitionRels = lappend(st->transitionRels, tt);
	}
	if (new_table)
	{
		TriggerTransition *tt = makeNode(TriggerTransition);

		tt->name = "dpkmeans_new";
		tt->isNew = true;
		tt->isTable = true;
		st->transitionRels = lappend(st->transitionRels, tt);
	}
	CreateTrigger(st, "dp_attach", relid, InvalidOid, InvalidOid, InvalidOid,
				  InvalidOid, InvalidOid, NULL, false, false);
	CommandCounterIncrement();
}

/* Comma-separated %.17g values (round-trip exact). */
static char *
doubles_csv(const double *v, int n)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	for (i = 0; i < n; i++)
		appendStringInfo(&s, "%s%.17g", i ? "," : "", v[i]);
	return s.data;
}

/* Validate and resolve the tracked column names to attribute numbers. */
static AttrNumber *
resolve_columns(Oid relid, ArrayType *columns, int *ncols, List **names)
{
	Datum	   *elems;
	bool	   *nulls;
	AttrNumber *att;
	int			n,
				i,
				j;

	if (ARR_NDIM(columns) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("columns must be a one-dimensional array")));
	deconstruct_array(columns, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("columns must name at least one column"),
				 errhint("Give d numeric columns or one float8[]/float4[] column.")));
	att = palloc(n * sizeof(AttrNumber));
	*names = NIL;
	for (i = 0; i < n; i++)
	{
		char	   *name;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("columns must not contain NULL"),
					 errhint("Name every tracked column.")));
		name = TextDatumGetCString(elems[i]);
		att[i] = get_attnum(relid, name);
		if (att[i] == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of table \"%s\" does not exist", name, get_rel_name(relid)),
					 errhint("Column names are case-sensitive here, as in quoted identifiers.")));
		if (att[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_COLUMN_REFERENCE),
					 errmsg("system column \"%s\" cannot be tracked", name),
					 errhint("Track user columns holding the point's coordinates.")));
		for (j = 0; j < i; j++)
			if (att[j] == att[i])
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("column \"%s\" is listed twice", name),
						 errhint("Each tracked column is one dimension; list it once.")));
		*names = lappend(*names, makeString(name));
	}
	*ncols = n;
	return att;
}

/*
 * dp_attach(tbl, columns, k, epsilon, lower, upper, horizon, mode, size_hint)
 */
PG_FUNCTION_INFO_V1(dp_attach);
Datum
dp_attach(PG_FUNCTION_ARGS)
{
	Oid			relid;
	int			k,
				horizon,
				d,
				ncols,
				i;
	double		eps,
				size_hint = DEFAULT_SIZE_HINT;
	double	   *lo,
			   *hi;
	char	   *mode;
	bool		insert_only;
	AttrNumber *attnums;
	List	   *colnames;
	Relation	rel;
	DpkShape	shape;
	DpkLiveConfig cfg;
	DpkCellMap	backfill,
				empty;
	DpkOwnerSwitch sw;
	uint8		key[DPK_KEY_BYTES];
	List	   *args;
	StringInfoData attcsv;
	Datum	   *attdatums;
	Oid			types[18];
	Datum		values[18];
	bytea	   *keyb;

	for (i = 0; i < 8; i++)
		if (PG_ARGISNULL(i) && i != 4 && i != 5)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dp_attach argument %d must not be NULL", i + 1),
					 errhint("Only size_hint may be NULL.")));
	relid = PG_GETARG_OID(0);
	k = PG_GETARG_INT32(2);
	eps = PG_GETARG_FLOAT8(3);
	horizon = PG_GETARG_INT32(6);
	mode = text_to_cstring(PG_GETARG_TEXT_PP(7));

	dpk_pg_check_table_owner(relid, "attach it");
	if (get_rel_relkind(relid) != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an ordinary table", get_rel_name(relid)),
				 errhint("dpkmeans attaches to ordinary tables (not views, partitioned or foreign tables).")));
	dpk_pg_check_k(k, 0);
	dpk_pg_check_epsilon(eps, "epsilon");
	dpk_pg_check_box(PG_ARGISNULL(4) ? NULL : PG_GETARG_ARRAYTYPE_P(4),
					 PG_ARGISNULL(5) ? NULL : PG_GETARG_ARRAYTYPE_P(5), &lo, &hi, &d);
	if (horizon < 1 || horizon > MAX_HORIZON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("horizon must be between 1 and %d, got %d", MAX_HORIZON, horizon),
				 errhint("The horizon is the maximum number of releases; the noise grows with its logarithm.")));
	if (strcmp(mode, "insert_delete") == 0)
		insert_only = false;
	else if (strcmp(mode, "insert_only") == 0)
		insert_only = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mode \"%s\"", mode),
				 errhint("Use 'insert_delete' (the default) or 'insert_only'.")));
	if (!PG_ARGISNULL(8))
	{
		size_hint = PG_GETARG_FLOAT8(8);
		if (isnan(size_hint) || isinf(size_hint) || size_hint < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("size_hint must be a finite number >= 1, got %g", size_hint),
					 errhint("size_hint is a public guess of the row count; it sizes the grid.")));
	}
	attnums = resolve_columns(relid, PG_GETARG_ARRAYTYPE_P(1), &ncols, &colnames);

	/* No write may slip between the backfill scan and the triggers. */
	rel = table_open(relid, ShareRowExclusiveLock);
	dpk_shape_init(&shape, rel, d, 0, attnums, ncols, lo, hi);

	dpk_live_defaults(&cfg, d, k, eps, (uint32_t) horizon, insert_only);
	if (d >= DPK_HIGHD_MIN_D)
	{
		/* High dimension: projected copies; their seed is public. */
		uint64		seed;

		dpk_pg_strong_random(&seed, sizeof(seed));
		dpk_live_use_projection(&cfg, seed & INT64CONST(0x7fffffffffffffff));
	}
	cfg.level = dpk_live_choose_level(&cfg, size_hint, dpk_max_cells);
	shape.level = cfg.level;
	if (cfg.dhat > 0)
		dpk_shape_set_projection(&shape, cfg.dhat, cfg.copies, cfg.proj_seed,
								 DPK_LIVE_HALF_WIDTH);

	dpk_pg_owner_begin(&sw);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	types[0] = OIDOID;
	values[0] = ObjectIdGetDatum(relid);
	spi_exec("SELECT 1 FROM dpkmeans_internal.tracked WHERE relid = $1::oid::regclass",
			 1, types, values, SPI_OK_SELECT);
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("table \"%s\" is already attached to dpkmeans", get_rel_name(relid)),
				 errhint("Run dp_detach first to attach it again with another configuration.")));
	SPI_finish();
	dpk_pg_owner_end(&sw);

	/* Backfill: the existing rows are events of release 1. */
	dpk_cellmap_init(&backfill, d);
	dpk_scan_table(rel, &shape, &backfill, true);

	dpk_pg_strong_random(key, sizeof(key));
	keyb = palloc(VARHDRSZ + DPK_KEY_BYTES);
	SET_VARSIZE(keyb, VARHDRSZ + DPK_KEY_BYTES);
	memcpy(VARDATA(keyb), key, DPK_KEY_BYTES);
	explicit_bzero(key, sizeof(key));

	dpk_cellmap_init(&empty, d);
	attdatums = palloc(ncols * sizeof(Datum));
	initStringInfo(&attcsv);
	for (i = 0; i < ncols; i++)
	{
		attdatums[i] = Int16GetDatum(attnums[i]);
		appendStringInfo(&attcsv, "%s%d", i ? "," : "", attnums[i]);
	}

	dpk_pg_owner_begin(&sw);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	{
		Datum	   *names = palloc(ncols * sizeof(Datum));
		ListCell   *lc;

		i = 0;
		foreach(lc, colnames)
			names[i++] = CStringGetTextDatum(strVal(lfirst(lc)));
		types[1] = TEXTARRAYOID;
		values[1] = PointerGetDatum(construct_array(names, ncols, TEXTOID, -1, false, TYPALIGN_INT));
	}
	types[2] = INT2ARRAYOID;
	values[2] = PointerGetDatum(construct_array(attdatums, ncols, INT2OID, 2, true, TYPALIGN_SHORT));
	types[3] = INT4OID;
	values[3] = Int32GetDatum(d);
	types[4] = INT4OID;
	values[4] = Int32GetDatum(k);
	types[5] = FLOAT8OID;
	values[5] = Float8GetDatum(eps);
	types[6] = FLOAT8ARRAYOID;
	values[6] = make_float8_array(lo, d);
	types[7] = FLOAT8ARRAYOID;
	values[7] = make_float8_array(hi, d);
	types[8] = INT4OID;
	values[8] = Int32GetDatum(horizon);
	types[9] = TEXTOID;
	values[9] = CStringGetTextDatum(mode);
	types[10] = FLOAT8OID;
	values[10] = Float8GetDatum(size_hint);
	types[11] = INT4OID;
	values[11] = Int32GetDatum(cfg.level);
	types[12] = FLOAT8OID;
	values[12] = Float8GetDatum(cfg.sum_share);
	types[13] = BYTEAOID;
	values[13] = map_to_bytea(&empty);
	types[14] = INT4OID;
	values[14] = Int32GetDatum(cfg.dhat);
	types[15] = INT4OID;
	values[15] = Int32GetDatum(cfg.copies);
	types[16] = INT8OID;
	values[16] = Int64GetDatum((int64) cfg.proj_seed);
	types[17] = FLOAT8OID;
	values[17] = Float8GetDatum(cfg.norm_share);
	spi_exec("INSERT INTO dpkmeans_internal.tracked (relid, columns, attnums, d, k, epsilon, "
			 "lower, upper, horizon, mode, size_hint, level, sum_share, state, "
			 "dhat, copies, proj_seed, norm_share) VALUES "
			 "($1::oid::regclass, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, "
			 "$15, $16, $17, $18)",
			 18, types, values, SPI_OK_INSERT);
	types[1] = BYTEAOID;
	values[1] = PointerGetDatum(keyb);
	spi_exec("INSERT INTO dpkmeans_internal.keys (relid, key) VALUES ($1::oid::regclass, $2)",
			 2, types, values, SPI_OK_INSERT);
	SPI_finish();

	/* Triggers, created as the extension owner (their functions are not public). */
	args = list_make5(makeString(psprintf("%d", d)), makeString(psprintf("%d", cfg.level)),
					  makeString(attcsv.data), makeString(doubles_csv(lo, d)),
					  makeString(doubles_csv(hi, d)));
	args = lappend(args, makeString(psprintf("%d", cfg.dhat)));
	args = lappend(args, makeString(psprintf("%d", cfg.copies)));
	args = lappend(args, makeString(psprintf(UINT64_FORMAT, cfg.proj_seed)));
	create_trigger(relid, trigger_names[0], "capture", TRIGGER_TYPE_AFTER,
				   TRIGGER_TYPE_INSERT, false, true, NIL, args);
	if (insert_only)
	{
		create_trigger(relid, trigger_names[4], "refuse", TRIGGER_TYPE_BEFORE,
					   TRIGGER_TYPE_DELETE, false, false, NIL, NIL);
		create_trigger(relid, trigger_names[5], "refuse", TRIGGER_TYPE_BEFORE,
					   TRIGGER_TYPE_UPDATE, false, false, colnames, NIL);
		create_trigger(relid, trigger_names[6], "refuse", TRIGGER_TYPE_BEFORE,
					   TRIGGER_TYPE_TRUNCATE, false, false, NIL, NIL);
	}
	else
	{
		create_trigger(relid, trigger_names[1], "capture", TRIGGER_TYPE_AFTER,
					   TRIGGER_TYPE_UPDATE, true, true, NIL, args);
		create_trigger(relid, trigger_names[2], "capture", TRIGGER_TYPE_AFTER,
					   TRIGGER_TYPE_DELETE, true, false, NIL, args);
		create_trigger(relid, trigger_names[3], "capture_truncate", TRIGGER_TYPE_AFTER,
					   TRIGGER_TYPE_TRUNCATE, false, false, NIL, args);
	}
	dpk_pg_owner_end(&sw);

	/* The backfill as the first delta: release 1 folds it. */
	dpk_append_delta(relid, &backfill);
	table_close(rel, NoLock);
	PG_RETURN_VOID();
}

/* dp_detach(tbl): remove the triggers and every stored row of the table. */
PG_FUNCTION_INFO_V1(dp_detach);
Datum
dp_detach(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	DpkOwnerSwitch sw;
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	Relation	rel;
	size_t		i;
	static const char *const tables[] = {"tracked", "keys", "delta", "releases",
	"centers", "costs", "histogram"};

	dpk_pg_check_table_owner(relid, "detach it");
	rel = table_open(relid, ShareRowExclusiveLock);
	dpk_pg_owner_begin(&sw);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	spi_exec("SELECT 1 FROM dpkmeans_internal.tracked WHERE relid = $1::oid::regclass",
			 1, types, values, SPI_OK_SELECT);
	if (SPI_processed == 0)
		not_attached(relid);
	for (i = 0; i < lengthof(trigger_names); i++)
	{
		Oid			trigoid = get_trigger_oid(relid, trigger_names[i], true);

		if (OidIsValid(trigoid))
		{
			ObjectAddress obj;

			ObjectAddressSet(obj, TriggerRelationId, trigoid);
			performDeletion(&obj, DROP_RESTRICT, 0);
		}
	}
	for (i = 0; i < lengthof(tables); i++)
		spi_exec(psprintf("DELETE FROM dpkmeans_internal.%s WHERE relid = $1::oid::regclass",
						  tables[i]), 1, types, values, SPI_OK_DELETE);
	SPI_finish();
	dpk_pg_owner_end(&sw);
	table_close(rel, NoLock);
	PG_RETURN_VOID();
}

/* dp_release(tbl): the owner makes a new snapshot; returns its number. */
PG_FUNCTION_INFO_V1(dp_release);
Datum
dp_release(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	DpkOwnerSwitch sw;
	int			t;

	dpk_pg_check_table_owner(relid, "make a release");
	dpk_pg_owner_begin(&sw);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	t = make_release(relid, false);
	SPI_finish();
	dpk_pg_owner_end(&sw);
	PG_RETURN_INT32(t);
}

/*
 * Common start of the readers: read the configuration, check k against it
 * unless k is 0, and make release 1 if there is none (as DESIGN §3 allows: a
 * release depends on calls, not data).  Leaves SPI connected and the owner
 * switch active.
 */
static void
reader_begin(FunctionCallInfo fcinfo, Oid relid, int k, Tracked *tr, DpkOwnerSwitch *sw)
{
	dpk_pg_owner_begin(sw);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!read_tracked(relid, false, fcinfo->flinfo->fn_mcxt, tr))
		not_attached(relid);
	if (k != 0)
		dpk_pg_check_k(k, tr->k);
	if (tr->releases == 0)
	{
		tr->releases = make_release(relid, true);
		CommandCounterIncrement();
	}
}

/* Return every row of the last SPI query as the function's result set. */
static void
spi_result_to_set(ReturnSetInfo *rsinfo)
{
	uint64		i;

	for (i = 0; i < SPI_processed; i++)
		tuplestore_puttuple(rsinfo->setResult, SPI_tuptable->vals[i]);
}

/* End of a reader. */
static void
reader_end(DpkOwnerSwitch *sw)
{
	SPI_finish();
	dpk_pg_owner_end(sw);
}

/* The table argument of a reader, refused when NULL. */
static Oid
table_arg(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table must not be NULL"),
				 errhint("Give an attached table.")));
	return PG_GETARG_OID(0);
}

/*
 * Return the rows of one query on the latest release as the caller's result
 * set: $1 = the table, $2 = its latest release, $3 = k when k > 0 (which
 * reader_begin has checked against the attached k).
 */
static void
latest_release_rows(FunctionCallInfo fcinfo, Oid relid, int k, const char *sql)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Tracked		tr;
	DpkOwnerSwitch sw;
	Oid			types[3] = {OIDOID, INT4OID, INT4OID};
	Datum		values[3];

	InitMaterializedSRF(fcinfo, 0);
	reader_begin(fcinfo, relid, k, &tr, &sw);
	values[0] = ObjectIdGetDatum(relid);
	values[1] = Int32GetDatum(tr.releases);
	values[2] = Int32GetDatum(k);
	spi_exec(sql, k > 0 ? 3 : 2, types, values, SPI_OK_SELECT);
	spi_result_to_set(rsinfo);
	reader_end(&sw);
}

/* dp_centers(tbl, k): the latest release's centres for k' = k. */
PG_FUNCTION_INFO_V1(dp_centers);
Datum
dp_centers(PG_FUNCTION_ARGS)
{
	Oid			relid;
	int			k;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_centers arguments must not be NULL"),
				 errhint("Give the attached table and a k between 1 and its attached k.")));
	relid = PG_GETARG_OID(0);
	k = PG_GETARG_INT32(1);
	if (k == 0)
		dpk_pg_check_k(k, 0);	/* 0 means "no k" to reader_begin */
	latest_release_rows(fcinfo, relid, k,
						"SELECT cluster, center, noisy_size FROM dpkmeans_internal.centers "
						"WHERE relid = $1::oid::regclass AND t = $2 AND k = $3 ORDER BY cluster");
	return (Datum) 0;
}

/* dp_cost_curve(tbl): the latest release's cost estimate for k' = 1..k. */
PG_FUNCTION_INFO_V1(dp_cost_curve);
Datum
dp_cost_curve(PG_FUNCTION_ARGS)
{
	latest_release_rows(fcinfo, table_arg(fcinfo), 0,
						"SELECT k, noisy_cost FROM dpkmeans_internal.costs "
						"WHERE relid = $1::oid::regclass AND t = $2 ORDER BY k");
	return (Datum) 0;
}

/* dp_histogram(tbl, level): the latest noisy histogram at a level. */
PG_FUNCTION_INFO_V1(dp_histogram);
Datum
dp_histogram(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	Tracked		tr;
	DpkOwnerSwitch sw;
	Oid			types[2] = {OIDOID, INT4OID};
	Datum		values[2];
	int			level = -1;
	DpkCellMap	noisy;
	DpkDenseHist fine,
				coarse;
	const DpkDenseHist *h;
	bool		isnull;
	uint64		c;
	int			j;
	int64_t    *idx;
	MemoryContext callerctx = CurrentMemoryContext;

	relid = table_arg(fcinfo);
	InitMaterializedSRF(fcinfo, 0);
	reader_begin(fcinfo, relid, 0, &tr, &sw);
	if (!PG_ARGISNULL(1))
	{
		level = PG_GETARG_INT32(1);
		if (level < 0 || level > tr.level)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("level must be between 0 and %d for table \"%s\", got %d",
							tr.level, get_rel_name(relid), level),
					 errhint("Level l has 2^l cells per dimension; NULL picks the level of the latest release.")));
	}
	values[0] = ObjectIdGetDatum(relid);
	values[1] = Int32GetDatum(tr.releases);
	spi_exec("SELECT h.payload, r.level FROM dpkmeans_internal.histogram h "
			 "JOIN dpkmeans_internal.releases r ON r.relid = h.relid AND r.t = h.t "
			 "WHERE h.relid = $1::oid::regclass AND h.t = $2",
			 2, types, values, SPI_OK_SELECT);
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the histogram of release %d of \"%s\" is missing",
						tr.releases, get_rel_name(relid))));
	{
		MemoryContext old = MemoryContextSwitchTo(callerctx);

		dpk_cellmap_init(&noisy, tr.d);
		merge_bytea(&noisy, SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull), +1);
		if (level < 0)
			level = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
		MemoryContextSwitchTo(old);
	}
	reader_end(&sw);

	if (tr.dhat > 0)
	{
		/*
		 * Projected: the cells of copy 0 in the projected space, counts
		 * summed up to the level asked, each with its lifted centre (the
		 * noisy mean of its points in the original space).
		 */
		DpkLiveConfig cfg;
		DpkProjection proj;
		int			shift = tr.level - level;
		int			m = 1 << level;
		uint64		ncells = (uint64) llround(pow((double) m, tr.dhat));
		double	   *cnt,
				   *sums,
				   *u = palloc(tr.d * sizeof(double)),
				   *tt = palloc(tr.dhat * sizeof(double)),
				   *ctr = palloc(tr.d * sizeof(double));
		int64_t    *fidx = palloc(tr.dhat * sizeof(int64_t));
		size_t		pos = 0;
		uint64_t	cell;
		const int64_t *v;

		live_config(&tr, &cfg);
		dpk_projection_init(&proj, tr.d, tr.dhat, dpk_projection_copy_seed(tr.proj_seed, 0),
							DPK_LIVE_HALF_WIDTH);
		cnt = palloc_extended(ncells * sizeof(double), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		sums = palloc_extended(ncells * tr.d * sizeof(double), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		while (dpk_cellmap_next(&noisy, &pos, &cell, &v))
		{
			uint64		coarse = 0;

			if (cell >= dpk_live_copy_cells(&cfg))
				continue;		/* other copies */
			dpk_grid_cell_coords(tr.dhat, 1 << tr.level, cell, fidx);
			for (j = 0; j < tr.dhat; j++)
				coarse = coarse * m + (uint64) (fidx[j] >> shift);
			cnt[coarse] += (double) v[0];
			for (j = 0; j < tr.d; j++)
				sums[coarse * tr.d + j] += (double) v[1 + j];
		}
		idx = palloc(tr.dhat * sizeof(int64_t));
		for (c = 0; c < ncells; c++)
		{
			Datum		out[4];
			bool		nulls[4] = {false, false, false, false};
			Datum	   *cellv = palloc(tr.dhat * sizeof(Datum));

			dpk_grid_cell_coords(tr.dhat, m, c, idx);
			for (j = 0; j < tr.dhat; j++)
			{
				cellv[j] = Int32GetDatum((int32) idx[j]);
				tt[j] = (idx[j] + 0.5) / m;
			}
			if (cnt[c] >= 1.0)
				for (j = 0; j < tr.d; j++)
					u[j] = fmin(1.0, fmax(0.0, 0.5 + sums[c * tr.d + j] / (DPK_LIFT_UNITS * cnt[c])));
			else
				dpk_project_back(&proj, tt, u);
			for (j = 0; j < tr.d; j++)
				ctr[j] = tr.lower[j] + u[j] * (tr.upper[j] - tr.lower[j]);
			out[0] = Int32GetDatum(level);
			out[1] = PointerGetDatum(construct_array(cellv, tr.dhat, INT4OID, 4, true, TYPALIGN_INT));
			out[2] = make_float8_array(ctr, tr.d);
			out[3] = Float8GetDatum(cnt[c]);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
			pfree(cellv);
			if ((c & 4095) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		dpk_projection_free(&proj);
		return (Datum) 0;
	}

	/* Rebuild the dense counted level and sum it up to the level asked. */
	dpk_hist_init(&fine, tr.d, 1 << tr.level, tr.sum_share > 0.0);
	{
		size_t		pos = 0;
		uint64_t	cell;
		const int64_t *v;

		while (dpk_cellmap_next(&noisy, &pos, &cell, &v))
			if (cell < fine.ncells)
			{
				fine.count[cell] = v[0];
				if (fine.sum)
					for (j = 0; j < tr.d; j++)
						fine.sum[cell * tr.d + j] = v[1 + j];
			}
	}
	h = &fine;
	if (level < tr.level)
	{
		dpk_live_aggregate(&fine, tr.level, level, &coarse);
		h = &coarse;
	}
	idx = palloc(tr.d * sizeof(int64_t));
	for (c = 0; c < h->ncells; c++)
	{
		Datum		out[4];
		bool		nulls[4] = {false, false, false, false};
		Datum	   *cellv = palloc(tr.d * sizeof(Datum));
		double	   *ctr = palloc(tr.d * sizeof(double));

		dpk_grid_cell_coords(tr.d, h->m, c, idx);
		for (j = 0; j < tr.d; j++)
		{
			cellv[j] = Int32GetDatum((int32) idx[j]);
			ctr[j] = tr.lower[j] + (idx[j] + 0.5) * (tr.upper[j] - tr.lower[j]) / h->m;
		}
		out[0] = Int32GetDatum(level);
		out[1] = PointerGetDatum(construct_array(cellv, tr.d, INT4OID, 4, true, TYPALIGN_INT));
		out[2] = make_float8_array(ctr, tr.d);
		out[3] = Float8GetDatum((double) h->count[c]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
		pfree(cellv);
		pfree(ctr);
		if ((c & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return (Datum) 0;
}

/* Append one (item, value) row to the report. */
static void
report_row(ReturnSetInfo *rsinfo, const char *item, const char *value)
{
	Datum		out[2] = {CStringGetTextDatum(item), CStringGetTextDatum(value)};
	bool		nulls[2] = {false, false};

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
}

/* dp_privacy_report(tbl): the accounting of an attached table, for an auditor. */
PG_FUNCTION_INFO_V1(dp_privacy_report);
Datum
dp_privacy_report(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	Tracked		tr;
	DpkOwnerSwitch sw;
	DpkLiveConfig cfg;
	DpkScale	cs,
				ss;
	int			h;
	char	   *units;

	relid = table_arg(fcinfo);
	InitMaterializedSRF(fcinfo, 0);
	dpk_pg_owner_begin(&sw);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!read_tracked(relid, false, CurrentMemoryContext, &tr))
		not_attached(relid);
	SPI_finish();
	dpk_pg_owner_end(&sw);

	live_config(&tr, &cfg);
	cs = dpk_live_count_scale(&cfg);
	ss = dpk_live_sum_scale(&cfg);
	h = dpk_tree_height((uint32_t) tr.horizon);
	report_row(rsinfo, "table", get_rel_name(relid) ? get_rel_name(relid) : "?");
	report_row(rsinfo, "tracked columns", tr.columns);
	report_row(rsinfo, "unit of privacy",
			   "one row version: an insertion at one release and possibly its later deletion (event-level, continual observation)");
	report_row(rsinfo, "guarantee", psprintf("pure epsilon-DP, epsilon = %g, over every release ever made", tr.epsilon));
	report_row(rsinfo, "mode", tr.insert_only ? "insert_only (DELETE, UPDATE of tracked columns and TRUNCATE refused)"
			   : "insert_delete (UPDATE = delete + insert, TRUNCATE = delete of every row)");
	report_row(rsinfo, "epsilon on counts",
			   psprintf("%g", tr.epsilon * (1.0 - tr.sum_share - tr.norm_share)));
	report_row(rsinfo, tr.dhat > 0 ? "epsilon on the lifting sums" : "epsilon on in-cell coordinate sums",
			   psprintf("%g", tr.epsilon * tr.sum_share));
	report_row(rsinfo, "levels with counters",
			   psprintf("1 (level %d: %d cells per %sdimension, %.0f cells%s); coarser levels are sums of its cells",
						tr.level, 1 << tr.level, tr.dhat > 0 ? "projected " : "",
						pow(2.0, (double) tr.level * (tr.dhat > 0 ? tr.dhat : tr.d)),
						tr.dhat > 0 ? " per copy" : ""));
	if (tr.dhat > 0)
	{
		report_row(rsinfo, "projection",
				   psprintf("random orthonormal %d x %d, public seed " UINT64_FORMAT
							", projected box +-%g; %d copies, each point counted in every copy",
							tr.dhat, tr.d, tr.proj_seed, DPK_LIVE_HALF_WIDTH, tr.copies));
		report_row(rsinfo, "copies", psprintf("%d (sensitivities include the factor %d)",
											  tr.copies, tr.copies));
		report_row(rsinfo, "epsilon on the sum of squared norms",
				   psprintf("%g (one counter, for the cost curve)", tr.epsilon * tr.norm_share));
		report_row(rsinfo, "sum of squared norms noise per tree node",
				   psprintf("discrete Laplace, scale %.6g (sensitivity %g)",
							dpk_scale_value(dpk_live_norm_scale(&cfg)),
							dpk_live_norm_sensitivity(&cfg)));
	}
	else
		report_row(rsinfo, "copies", "1 (no projection)");
	report_row(rsinfo, "size hint (public)", psprintf("%g", tr.size_hint));
	report_row(rsinfo, "horizon T (releases)", psprintf("%d", tr.horizon));
	report_row(rsinfo, "tree height h = ceil(log2 T) + 1", psprintf("%d", h));
	report_row(rsinfo, "deletion factor", tr.insert_only ? "1" : "2");
	report_row(rsinfo, "count sensitivity (L1, one event)",
			   psprintf("%g = h x %s%s", dpk_live_count_sensitivity(&cfg), tr.insert_only ? "1" : "2",
						tr.dhat > 0 ? " x copies" : ""));
	report_row(rsinfo, "sum sensitivity (l-infinity, one event, fixed-point units)",
			   tr.dhat > 0
			   ? psprintf("%g = h x copies x %d%s per coordinate (centred lifting sums, d = %d)",
						  dpk_live_sum_sensitivity(&cfg), DPK_LIFT_UNITS / 2,
						  tr.insert_only ? "" : " x 2", tr.d)
			   : psprintf("%g = h x %d%s per coordinate (in-cell offsets, d = %d)",
						  dpk_live_sum_sensitivity(&cfg), DPK_REL_UNITS,
						  tr.insert_only ? "" : " x 2", tr.d));
	report_row(rsinfo, "count noise per tree node",
			   psprintf("discrete Laplace, scale %.6g (variance %.6g)", dpk_scale_value(cs),
						dpk_discrete_laplace_variance(cs)));
	units = tr.dhat > 0 ? psprintf("%d units per box width", DPK_LIFT_UNITS)
		: psprintf("%d units per cell width", DPK_REL_UNITS);
	if (tr.sum_share <= 0)
		report_row(rsinfo, "sum noise per tree node", "none");
	else if (dpk_cube_noise_usable(ss, tr.d))
		report_row(rsinfo, "sum noise per tree node",
				   psprintf("cube noise on the d-vector, P(z) ~ exp(-max|z_j| / %.6g) (variance %.6g per coordinate; %s)",
							dpk_scale_value(ss), dpk_vector_noise_variance(ss, tr.d), units));
	else
		report_row(rsinfo, "sum noise per tree node",
				   psprintf("discrete Laplace per coordinate, scale %.6g = d x %.6g (%s)",
							dpk_scale_value(dpk_vector_l1_scale(ss, tr.d)), dpk_scale_value(ss),
							units));
	report_row(rsinfo, "noise source",
			   "ChaCha20 keyed per table (pg_strong_random key), exact discrete Laplace (Canonne-Kamath-Steinke 2020), "
			   "exact cube sampler (negative binomial radius by rejection, uniform coordinates)");
	report_row(rsinfo, "releases used", psprintf("%d", tr.releases));
	report_row(rsinfo, "releases left", psprintf("%d", tr.horizon - tr.releases));
	report_row(rsinfo, "post-processing",
			   tr.dhat > 0
			   ? psprintf("per copy: projected cells above max(%g sd, sd / sqrt(2) x ln(cells)), "
						  "weighted k-means in the projected space, each centre lifted by the noisy sums "
						  "of its heaviest cells and shrunk toward its projected-back centre; "
						  "for each k' = 1..%d the copy with the lowest noisy cost estimate",
						  cfg.threshold_sigmas, tr.k)
			   : psprintf("cells with noisy count above max(%g sd, sd / sqrt(2) x ln(cells)) kept; "
						"level chosen among RUGNIK's and its neighbours by a noisy cost estimate; "
						"weighted k-means for k' = 1..%d; costs estimated from noisy quantities",
						cfg.threshold_sigmas, tr.k));
	return (Datum) 0;
}

/* dp_verify(tbl): owner only; stored true state + pending deltas = a recount. */
PG_FUNCTION_INFO_V1(dp_verify);
Datum
dp_verify(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Tracked		tr;
	DpkOwnerSwitch sw;
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	DpkCellMap	recount;
	DpkShape	shape;
	Relation	rel;
	uint64		i;
	bool		same;
	MemoryContext callerctx = CurrentMemoryContext;

	dpk_pg_check_table_owner(relid, "verify it");
	rel = table_open(relid, AccessShareLock);
	dpk_pg_owner_begin(&sw);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!read_tracked(relid, false, callerctx, &tr))
		not_attached(relid);
	if (SPI_execute_with_args("SELECT payload FROM dpkmeans_internal.delta WHERE relid = $1::oid::regclass",
							  1, types, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read dpkmeans deltas");
	{
		MemoryContext old = MemoryContextSwitchTo(callerctx);

		for (i = 0; i < SPI_processed; i++)
		{
			bool		isnull;

			merge_bytea(&tr.state, SPI_getbinval(SPI_tuptable->vals[i],
												 SPI_tuptable->tupdesc, 1, &isnull), +1);
		}
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	dpk_pg_owner_end(&sw);

	dpk_shape_init(&shape, rel, tr.d, tr.level, tr.attnums, tr.ncols, tr.lower, tr.upper);
	if (tr.dhat > 0)
		dpk_shape_set_projection(&shape, tr.dhat, tr.copies, tr.proj_seed, DPK_LIVE_HALF_WIDTH);
	dpk_cellmap_init(&recount, tr.d);
	dpk_scan_table(rel, &shape, &recount, false);
	same = dpk_cellmap_equal(&recount, &tr.state);
	table_close(rel, AccessShareLock);
	PG_RETURN_BOOL(same);
}
