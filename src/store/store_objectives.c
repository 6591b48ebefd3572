/*
 * store_objectives.c
 *		Which objectives a table's releases compute: k-means always, k-median
 *		only for tables whose owner asks for it (dp_set_objectives).
 *
 * k-median centres are post-processing of the same noisy release, but
 * computing them for every k' costs many times the rest of a release.  A
 * release computes and stores them only when the table asks: tables
 * attached by 0.7 or later start with k-means alone, tables attached before
 * (objectives NULL) keep both, as their readers expect.  The setting is
 * public configuration; it changes what later releases store, never a
 * stored release.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pgutil.h"
#include "store.h"

/* Whether tracked has the objectives column (0.7). */
static bool
has_objectives_column(void)
{
	Oid			nsp = get_namespace_oid("dpkmeans_internal", true);
	Oid			rel = OidIsValid(nsp) ? get_relname_relid("tracked", nsp) : InvalidOid;

	return OidIsValid(rel) && get_attnum(rel, "objectives") != InvalidAttrNumber;
}

/* Whether a table's releases compute k-median (see store.h). */
bool
dpk_store_kmedian_wanted(Oid relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		isnull;
	Datum		v;

	if (!has_objectives_column())
		return true;			/* objects older than 0.7: every release has it */
	dpk_store_exec("SELECT 'kmedian' = ANY (objectives) AS kmedian FROM dpkmeans_internal.tracked "
				   "WHERE relid = $1::oid::regclass", 1, types, values, true, SPI_OK_SELECT);
	if (SPI_processed != 1)
		return true;
	v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	/* NULL: attached before 0.7, k-median kept */
	return isnull || DatumGetBool(v);
}

/* Store a table's objectives (see store.h). */
void
dpk_store_set_kmedian(Oid relid, bool kmedian)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2] = {ObjectIdGetDatum(relid),
	CStringGetTextDatum(kmedian ? "{kmeans,kmedian}" : "{kmeans}")};

	if (!has_objectives_column())
	{
		if (kmedian)
			return;				/* what objects older than 0.7 do anyway */
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("choosing the objectives of a table needs dpkmeans 0.7"),
				 errhint("Run ALTER EXTENSION dpkmeans UPDATE.")));
	}
	dpk_store_exec("UPDATE dpkmeans_internal.tracked SET objectives = $2::text[] "
				   "WHERE relid = $1::oid::regclass", 2, types, values, false, SPI_OK_UPDATE);
}

/* A newly attached table's objectives: k-means alone (see store.h). */
void
dpk_store_attach_objectives(Oid relid)
{
	if (has_objectives_column())
		dpk_store_set_kmedian(relid, false);
}

/*
 * Whether an objectives argument asks for k-median: ERROR unless it is a
 * non-empty array of 'kmeans' and 'kmedian' that holds 'kmeans'.
 */
static bool
objectives_arg(FunctionCallInfo fcinfo, int argno)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;
	bool		kmeans = false,
				kmedian = false;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("objectives must not be NULL"),
				 errhint("Give ARRAY['kmeans'] or ARRAY['kmeans', 'kmedian'].")));
	arr = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("objectives must be a one-dimensional array"),
				 errhint("Give ARRAY['kmeans'] or ARRAY['kmeans', 'kmedian'].")));
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (i = 0; i < n; i++)
	{
		char	   *name = nulls[i] ? NULL : TextDatumGetCString(elems[i]);

		if (name && strcmp(name, "kmeans") == 0)
			kmeans = true;
		else if (name && strcmp(name, "kmedian") == 0)
			kmedian = true;
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid objective: %s", name ? quote_literal_cstr(name) : "NULL"),
					 errhint("Objectives are 'kmeans' and 'kmedian'.")));
	}
	if (!kmeans)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("objectives must include 'kmeans'"),
				 errdetail("Every release computes its k-means centres and cost curve; "
						   "k-median is the optional one."),
				 errhint("Give ARRAY['kmeans'] or ARRAY['kmeans', 'kmedian'].")));
	return kmedian;
}

/*
 * dp_set_objectives(tbl, objectives): the owner chooses whether the next
 * releases also compute and store k-median centres and costs.
 */
PG_FUNCTION_INFO_V1(dp_set_objectives);
Datum
dp_set_objectives(PG_FUNCTION_ARGS)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);
	bool		kmedian;
	DpkOwnerSwitch sw;

	dpk_pg_check_table_owner(relid, "choose its objectives");
	kmedian = objectives_arg(fcinfo, 1);
	dpk_pg_refuse_in_recovery("dp_set_objectives");
	dpk_store_begin(&sw);
	if (!dpk_store_is_attached(relid))
		dpk_store_not_attached(relid);
	dpk_store_set_kmedian(relid, kmedian);
	dpk_store_end(&sw);
	PG_RETURN_VOID();
}
