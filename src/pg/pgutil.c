/*
 * pgutil.c
 *		Argument checks, point extraction and backend hooks for the core.
 */
#include "postgres.h"

#include <math.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "access/genam.h"
#include "access/xlog.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "catalog/pg_class.h"
#include "catalog/dependency.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "dpk_mem.h"
#include "gserialized.h"
#include "highd.h"
#include "pgutil.h"

double		dpk_max_cells = DPK_DEFAULT_MAX_CELLS;
int			dpk_progress_rows = 1000000;
int			dpk_max_k_live = DPK_MAX_K_LIVE;
int			dpk_counter_estimator = 1;	/* DPK_TREE_LOCAL_BLUE */
int			dpk_gaussian_counter = 0;	/* DPK_GAUSSIAN_COUNTER_AUTO */
int			dpk_pure_counter = 0;	/* DPK_PURE_COUNTER_AUTO */

/* palloc in the current context; huge allocations allowed. */
static void *
dpk_pg_alloc(size_t size)
{
	return palloc_extended(size ? size : 1, MCXT_ALLOC_HUGE);
}

/* pfree for the core. */
static void
dpk_pg_free(void *ptr)
{
	pfree(ptr);
}

/* CHECK_FOR_INTERRUPTS for the core's long loops. */
static void
dpk_pg_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

/* The core cannot go on safely (dpk_fail): an ERROR aborts the statement. */
static void
dpk_pg_fail(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dpkmeans: %s", what),
			 errhint("Use a larger epsilon, fewer dimensions or a smaller horizon.")));
}

/* Route the core's memory, interrupt checks and failures through the backend. */
void
dpk_pg_install_hooks(void)
{
	dpk_alloc_hook = dpk_pg_alloc;
	dpk_free_hook = dpk_pg_free;
	dpk_interrupt_hook = dpk_pg_interrupts;
	dpk_fail_hook = dpk_pg_fail;
}

/*
 * From a session's first one-shot on, keep the memory it frees (glibc):
 * palloc gives every chunk above 8 kB its own malloc, and glibc's starting
 * thresholds (chunks from 128 kB mapped apart, a heap top above 128 kB
 * returned) send most of a one-shot's scratch back to the kernel when it is
 * freed, so each call faulted about 2 500 fresh pages in again, a quarter of
 * its CPU (doc/decisions/079-oneshot-keep-freed-memory.md).  Only backends
 * that call dp_kmeans: writers, whose triggers load the library, and release
 * workers keep glibc's defaults.  The values are within glibc's own range:
 * its dynamic rule raises them to a freed mapped chunk's size (up to 32 MB)
 * and twice that.
 */
void
dpk_pg_keep_freed_memory(void)
{
#ifdef __GLIBC__
	static bool done = false;

	if (!done)
	{
		mallopt(M_MMAP_THRESHOLD, DPK_PG_MMAP_THRESHOLD);
		mallopt(M_TRIM_THRESHOLD, DPK_PG_TRIM_THRESHOLD);
		done = true;
	}
#endif
}

/* epsilon must be a positive finite number. */
void
dpk_pg_check_epsilon(double epsilon, const char *argname)
{
	if (isnan(epsilon) || isinf(epsilon) || epsilon <= 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a positive finite number, got %g", argname, epsilon),
				 errdetail("epsilon is the privacy budget, e.g. 0.1 to 2.")));
}

/* The norm_bound argument (see pgutil.h). */
double
dpk_pg_norm_bound_arg(FunctionCallInfo fcinfo, int argno, int d)
{
	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return 0.0;
	return dpk_pg_check_norm_bound(PG_GETARG_FLOAT8(argno), d);
}

/* A norm bound given for d columns (see pgutil.h). */
double
dpk_pg_check_norm_bound(double r, int d)
{
	if (!(r > 0.0) || isinf(r))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("norm_bound must be a finite number greater than 0"),
				 errhint("Give the largest distance of a row from the box's middle in the columns' units (1 for unit-norm embeddings in [-1, 1]), or omit it.")));
	if (d < DPK_HIGHD_MIN_D)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("norm_bound applies to at least %d columns", DPK_HIGHD_MIN_D),
				 errdetail("There are %d columns; their cells are counted in the box, where a norm bound changes no noise.", d),
				 errhint("Omit norm_bound.")));
	return r;
}

/* delta: exactly 0 (pure epsilon) or strictly between 0 and 1 (see pgutil.h). */
double
dpk_pg_delta_arg(FunctionCallInfo fcinfo, int argno)
{
	if (PG_NARGS() <= argno)
		return 0.0;
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must not be NULL"),
				 errhint("Give 0 for pure epsilon-DP or a delta between 0 and 1 (e.g. 1e-6) for (epsilon, delta)-DP with discrete Gaussian noise.")));
	return dpk_pg_check_delta(PG_GETARG_FLOAT8(argno));
}

/* A delta given as a value (see pgutil.h). */
double
dpk_pg_check_delta(double delta)
{
	if (!(delta == 0.0 || (delta > 0.0 && delta < 1.0)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must be 0 or strictly between 0 and 1, got %g", delta),
				 errhint("Give 0 for pure epsilon-DP or a small delta such as 1e-6 (well below 1 / rows) for (epsilon, delta)-DP.")));
	return delta;
}

/* k must be at least 1, and at most kmax when given. */
void
dpk_pg_check_k(int k, int kmax)
{
	if (k < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k must be at least 1, got %d", k),
				 errdetail("k is the number of clusters to release.")));
	if (kmax > 0 && k > kmax)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k must be at most %d, got %d", kmax, k),
				 errdetail("k may not exceed the k given when the table was attached.")));
}

/* ERROR above the largest k of a function (see pgutil.h). */
void
dpk_pg_check_k_max(int k, int kmax, const char *function, bool live)
{
	if (k > kmax && live)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k must be at most %d for %s, got %d", kmax, function, k),
				 errdetail("Every release of a live table clusters and stores its centres for every k' from 1 to k."),
				 errhint("Attach with a smaller k; a superuser may raise dpkmeans.max_k up to %d, and dp_kmeans clusters a query once for up to %d centres.",
						 DPK_MAX_K_LIVE_CAP, DPK_MAX_K_ONESHOT)));
	if (k > kmax)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k must be at most %d for %s, got %d", kmax, function, k),
				 errdetail("A release returns at most as many centres as cells rise above its noise."),
				 errhint("Ask for fewer centres.")));
}

/* The objective argument of a function (see pgutil.h). */
DpkObjective
dpk_pg_objective_arg(FunctionCallInfo fcinfo, int argno)
{
	DpkObjective obj;
	char	   *name;

	/* SQL objects of an older version call without it: their k-means */
	if (argno >= PG_NARGS())
		return DPK_OBJECTIVE_KMEANS;
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("objective must not be NULL"),
				 errhint("Valid objectives are " DPK_OBJECTIVE_NAMES ".")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(argno));
	if (!dpk_objective_parse(name, &obj))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown objective \"%s\"", name),
				 errhint("Valid objectives are " DPK_OBJECTIVE_NAMES ".")));
	return obj;
}

/* Copy a float8[] box bound into a C array, rejecting NULLs and non-finite values. */
static double *
box_bound(ArrayType *a, const char *name, int *len)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;
	double	   *out;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", name)));
	deconstruct_array(a, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be empty", name),
				 errhint("Give one bound per dimension.")));
	out = palloc(n * sizeof(double));
	for (i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not contain NULL (element %d)", name, i + 1),
					 errhint("Give a finite bound for every dimension.")));
		out[i] = DatumGetFloat8(elems[i]);
		if (isnan(out[i]) || isinf(out[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s must be finite (element %d is %g)", name, i + 1, out[i]),
					 errhint("The box bounds the data; give finite numbers.")));
	}
	*len = n;
	return out;
}

/* Validate lower/upper and return them (see pgutil.h). */
void
dpk_pg_check_box(ArrayType *lower, ArrayType *upper, double **lo, double **hi, int *d)
{
	int			nl,
				nu,
				j;

	if (lower == NULL || upper == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("lower and upper must not be NULL"),
				 errhint("Declare the data box, one bound per dimension; it must not come from the data.")));
	*lo = box_bound(lower, "lower", &nl);
	*hi = box_bound(upper, "upper", &nu);
	if (nl != nu)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("lower and upper must have the same length, got %d and %d", nl, nu),
				 errdetail("The box has one lower and one upper bound per dimension.")));
	if (nl > DPK_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the box has %d dimensions, more than the %d dpkmeans supports", nl, DPK_MAX_D),
				 errdetail("Memory and time grow with the number of dimensions times k."),
				 errhint("Reduce the dimension first, e.g. with a random projection of the points.")));
	for (j = 0; j < nl; j++)
	{
		if (!((*lo)[j] < (*hi)[j]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("lower must be below upper in every dimension (dimension %d: %g >= %g)",
							j + 1, (*lo)[j], (*hi)[j]),
					 errdetail("The box must have a positive width in every dimension."),
					 errhint("Give each dimension's smaller bound in lower and its larger in upper.")));
		if (isinf((*hi)[j] - (*lo)[j]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the box is too wide in dimension %d", j + 1),
					 errdetail("upper - lower must be a finite number.")));
	}
	*d = nl;
}

/* Accepted scalar types: integers, float4/8, numeric, and domains over them. */
bool
dpk_pg_is_numeric_type(Oid typid)
{
	switch (getBaseType(typid))
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
			return true;
		default:
			return false;
	}
}

/* PostGIS's geometry or geography type (see pgutil.h). */
bool
dpk_pg_is_postgis_type(Oid typid, bool *geodetic)
{
	Oid			base = getBaseType(typid);
	HeapTuple	tup;
	char		name[NAMEDATALEN];
	Oid			extoid;
	char	   *ext;

	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(base));
	if (!HeapTupleIsValid(tup))
		return false;
	strlcpy(name, NameStr(((Form_pg_type) GETSTRUCT(tup))->typname), NAMEDATALEN);
	ReleaseSysCache(tup);
	if (strcmp(name, "geometry") != 0 && strcmp(name, "geography") != 0)
		return false;
	extoid = getExtensionOfObject(TypeRelationId, base);
	if (!OidIsValid(extoid))
		return false;
	ext = get_extension_name(extoid);
	if (ext == NULL || strcmp(ext, "postgis") != 0)
		return false;
	if (geodetic != NULL)
		*geodetic = strcmp(name, "geography") == 0;
	return true;
}

/*
 * A PostGIS point column: one column, d = 2, a type modifier that allows
 * plain 2-D points in one SRID (geography's default, 4326, when it gives
 * none).  Unconstrained geometry columns are refused: their SRID would vary
 * from row to row.
 */
static void
postgis_reader_init(DpkPointReader *r, Form_pg_attribute att, bool geodetic,
					int ncols, int d, const char *what)
{
	int32		typmod = att->atttypmod;
	int32		srid;
	int			geomtype,
				has_z,
				has_m;

	(void) getBaseTypeAndTypmod(att->atttypid, &typmod);
	if (typmod < 0)
		typmod = att->atttypmod;
	if (ncols != 1 || d != 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("a PostGIS column of %s is tracked alone, with a box of 2 dimensions (got %d column(s), %d dimension(s))",
						what, ncols, d),
				 errhint("Track the point column \"%s\" alone; its X and Y are the two dimensions.",
						 NameStr(att->attname))));
	dpk_gser_typmod(typmod, &srid, &geomtype, &has_z, &has_m);
	if (geomtype != 0 && geomtype != 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of %s has type %s, which does not hold points",
						NameStr(att->attname), what, format_type_with_typemod(att->atttypid, att->atttypmod)),
				 errhint("Track a column of points, e.g. geometry(Point, 3857), or an expression making one (a generated column).")));
	if (has_z || has_m)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of %s has type %s: points with Z or M cannot be tracked",
						NameStr(att->attname), what, format_type_with_typemod(att->atttypid, att->atttypmod)),
				 errhint("Track 2-D points, e.g. a generated column geometry(Point, srid) GENERATED ALWAYS AS (ST_Force2D(...)) STORED.")));
	if (srid == 0 && geodetic)
		srid = 4326;
	if (srid == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of %s has type %s, which fixes no SRID",
						NameStr(att->attname), what, format_type_with_typemod(att->atttypid, att->atttypmod)),
				 errhint("Declare the column with its SRID, e.g. ALTER TABLE ... ALTER COLUMN %s TYPE geometry(Point, 4326) USING ST_SetSRID(%s, 4326).",
						 NameStr(att->attname), NameStr(att->attname))));
	r->srid = srid;
	r->source = DPK_POINT_POSTGIS;
}

/* Compile a point reader for the given columns (see pgutil.h). */
void
dpk_pg_point_reader_init(DpkPointReader *r, TupleDesc tupdesc,
						 const AttrNumber *attnums, int ncols, int d,
						 const char *what)
{
	int			i;

	if (ncols > DPK_MAX_TRACKED_COLUMNS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s has %d columns; at most %d can be tracked",
						what, ncols, DPK_MAX_TRACKED_COLUMNS),
				 errhint("Use one float8[] column for high-dimensional points.")));
	r->d = d;
	r->ncols = ncols;
	r->attnums = palloc(ncols * sizeof(AttrNumber));
	r->types = palloc(ncols * sizeof(Oid));
	for (i = 0; i < ncols; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, attnums[i] - 1);

		r->attnums[i] = attnums[i];
		r->types[i] = getBaseType(att->atttypid);
	}

	if (ncols == 1 && (r->types[0] == FLOAT8ARRAYOID || r->types[0] == FLOAT4ARRAYOID))
	{
		r->source = r->types[0] == FLOAT8ARRAYOID
			? DPK_POINT_FLOAT8_ARRAY : DPK_POINT_FLOAT4_ARRAY;
		return;
	}
	for (i = 0; i < ncols; i++)
	{
		bool		geodetic = false;

		if (!dpk_pg_is_numeric_type(r->types[i]) &&
			dpk_pg_is_postgis_type(r->types[i], &geodetic))
		{
			postgis_reader_init(r, TupleDescAttr(tupdesc, attnums[i] - 1), geodetic,
								ncols, d, what);
			return;
		}
	}

	for (i = 0; i < ncols; i++)
		if (!dpk_pg_is_numeric_type(r->types[i]))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" of %s has type %s, which is not numeric",
							NameStr(TupleDescAttr(tupdesc, attnums[i] - 1)->attname),
							what, format_type_be(r->types[i])),
					 errhint("Use d numeric columns (smallint, integer, bigint, real, double precision, numeric) or one float8[]/float4[] column.")));
	if (ncols != d)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s has %d column(s) but the box has %d dimension(s)",
						what, ncols, d),
				 errhint("Give one column per dimension of lower/upper, or one float8[] column.")));
	r->source = DPK_POINT_COLUMNS;
}

/* One scalar Datum as a double; numeric never raises (overflow gives +-Inf). */
static double
scalar_to_double(Datum v, Oid typid)
{
	switch (typid)
	{
		case INT2OID:
			return (double) DatumGetInt16(v);
		case INT4OID:
			return (double) DatumGetInt32(v);
		case INT8OID:
			return (double) DatumGetInt64(v);
		case FLOAT4OID:
			return (double) DatumGetFloat4(v);
		case FLOAT8OID:
			return DatumGetFloat8(v);
		default:
			return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, v));
	}
}

/*
 * A PostGIS value's point, read in place (no copy unless it is compressed
 * or stored out of line, which a point never is in practice).
 */
static DpkPointStatus
postgis_to_point(const DpkPointReader *r, Datum v, double *x)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(v);
	struct varlena *p = VARATT_IS_EXTENDED(raw) && !VARATT_IS_SHORT(raw)
		? pg_detoast_datum_packed(raw) : raw;
	int32		srid;
	DpkGserStatus st = dpk_gser_point((const uint8 *) VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p),
									  &srid, &x[0], &x[1]);

	if (p != raw)
		pfree(p);
	switch (st)
	{
		case DPK_GSER_POINT:
			break;
		case DPK_GSER_EMPTY:
			return DPK_POINT_EMPTY;
		case DPK_GSER_ZM:
			return DPK_POINT_ZM;
		default:
			return DPK_POINT_NOT_POINT;
	}
	if (srid != r->srid)
		return DPK_POINT_SRID;
	if (isnan(x[0]) || isnan(x[1]))
		return DPK_POINT_NAN;
	return DPK_POINT_OK;
}

/* Convert the tracked values (value/isnull per column) into a point. */
static DpkPointStatus
values_to_point(const DpkPointReader *r, const Datum *v, const bool *isnull, double *x)
{
	int			j;

	if (r->source == DPK_POINT_POSTGIS)
		return isnull[0] ? DPK_POINT_NULL : postgis_to_point(r, v[0], x);
	if (r->source == DPK_POINT_COLUMNS)
	{
		for (j = 0; j < r->d; j++)
		{
			if (isnull[j])
				return DPK_POINT_NULL;
			x[j] = scalar_to_double(v[j], r->types[j]);
		}
	}
	else
	{
		ArrayType  *a;
		bool		is8 = r->source == DPK_POINT_FLOAT8_ARRAY;
		bool		bad;

		if (isnull[0])
			return DPK_POINT_NULL;
		a = DatumGetArrayTypeP(v[0]);
		bad = ARR_NDIM(a) != 1 || ARR_DIMS(a)[0] != r->d || ARR_HASNULL(a);
		if (!bad)
			for (j = 0; j < r->d; j++)
				x[j] = is8 ? ((float8 *) ARR_DATA_PTR(a))[j]
					: (double) ((float4 *) ARR_DATA_PTR(a))[j];
		if ((Pointer) a != DatumGetPointer(v[0]))
			pfree(a);
		if (bad)
			return DPK_POINT_BAD_ARRAY;
	}
	for (j = 0; j < r->d; j++)
		if (isnan(x[j]))
			return DPK_POINT_NAN;
	return DPK_POINT_OK;
}

/* Read one heap tuple's point (see pgutil.h). */
DpkPointStatus
dpk_pg_read_point(const DpkPointReader *r, HeapTuple tuple, TupleDesc tupdesc,
				  double *x)
{
	Datum		v[DPK_MAX_TRACKED_COLUMNS];
	bool		isnull[DPK_MAX_TRACKED_COLUMNS];
	int			i;

	for (i = 0; i < r->ncols; i++)
		v[i] = heap_getattr(tuple, r->attnums[i], tupdesc, &isnull[i]);
	return values_to_point(r, v, isnull, x);
}

/* Read the point of a slot's tuple (see pgutil.h). */
DpkPointStatus
dpk_pg_read_point_slot(const DpkPointReader *r, TupleTableSlot *slot, double *x)
{
	Datum		v[DPK_MAX_TRACKED_COLUMNS];
	bool		isnull[DPK_MAX_TRACKED_COLUMNS];
	int			i;

	for (i = 0; i < r->ncols; i++)
		v[i] = slot_getattr(slot, r->attnums[i], &isnull[i]);
	return values_to_point(r, v, isnull, x);
}

/* Memory context callback: free a stream's libcrypto context. */
static void
stream_reset_callback(void *arg)
{
	dpk_stream_close((DpkStream *) arg);
}

/* Open a stream tied to the current memory context (see pgutil.h). */
void
dpk_pg_stream_open(DpkStream *s, const uint8 *key, const uint8 *nonce)
{
	MemoryContextCallback *cb;

	if (!dpk_stream_open(s, key, nonce))
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("could not initialise the ChaCha20 stream")));
	cb = palloc(sizeof(MemoryContextCallback));
	cb->func = stream_reset_callback;
	cb->arg = s;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
}

/* Bytes from the OS's strong random source. */
void
dpk_pg_strong_random(void *buf, size_t len)
{
	if (!pg_strong_random(buf, len))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate random bytes")));
}

/* The pg_extension row of dpkmeans: its owner and (palloc'd) version. */
void
dpk_pg_extension_row(Oid *owner, char **version)
{
	Oid			extoid = get_extension_oid("dpkmeans", false);
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Datum		v;
	bool		isnull;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extoid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "could not find extension dpkmeans");
	*owner = ((Form_pg_extension) GETSTRUCT(tup))->extowner;
	v = heap_getattr(tup, Anum_pg_extension_extversion, RelationGetDescr(rel), &isnull);
	*version = isnull ? pstrdup("") : TextDatumGetCString(v);
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
}

/* The owner of the dpkmeans extension. */
static Oid
extension_owner(void)
{
	Oid			owner;
	char	   *version;

	dpk_pg_extension_row(&owner, &version);
	return owner;
}

/* The owner of a relation (InvalidOid if it does not exist). */
Oid
dpk_pg_rel_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/* Switch to the extension owner with a pinned search_path (see pgutil.h). */
void
dpk_pg_owner_begin(DpkOwnerSwitch *sw)
{
	dpk_pg_owner_begin_as(sw, extension_owner());
}

/* The same with the owner already known (see pgutil.h). */
void
dpk_pg_owner_begin_as(DpkOwnerSwitch *sw, Oid owner)
{
	GetUserIdAndSecContext(&sw->save_userid, &sw->save_sec_context);
	SetUserIdAndSecContext(owner, sw->save_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	sw->save_nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
							 true, 0, false);
}

/* Back to the caller (see pgutil.h). */
void
dpk_pg_owner_end(DpkOwnerSwitch *sw)
{
	AtEOXact_GUC(false, sw->save_nestlevel);
	SetUserIdAndSecContext(sw->save_userid, sw->save_sec_context);
}

/*
 * Functions that write dpkmeans's state refuse a standby with their own
 * message, before the first write or lock reports a less clear one.
 */
void
dpk_pg_refuse_in_recovery(const char *function)
{
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("%s cannot run during recovery", function),
				 errdetail("It writes the table's dpkmeans state, which a standby replays from its primary."),
				 errhint("Run %s on the primary; readers (dp_centers, dp_histogram, dp_cost_curve, "
						 "dp_privacy_report) work on a standby.", function)));
}

/* Owner-only functions refuse everyone else, superusers aside. */
void
dpk_pg_check_table_owner(Oid relid, const char *action)
{
	if (!pg_class_ownercheck(relid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s to %s", get_rel_name(relid), action),
				 errhint("Only the table's owner (a member of its owning role) or a superuser may %s.",
						 action)));
}

/* The table argument (argument 0) of a SQL function: NULL or a dropped table is refused. */
Oid
dpk_pg_table_arg(FunctionCallInfo fcinfo)
{
	Oid			relid;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table must not be NULL"),
				 errhint("Give an attached table.")));
	relid = PG_GETARG_OID(0);
	if (get_rel_name(relid) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table with OID %u does not exist", relid)));
	return relid;
}
