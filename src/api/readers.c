/*
 * readers.c
 *		Analyst-side SQL functions: the stored releases of a live table
 *		(dp_centers, dp_cost_curve, dp_histogram) and who may read them
 *		(dp_grant_reader, dp_revoke_reader).
 *
 * Readers only read committed releases: they never draw noise and never make
 * a release, so what they return is the same in every transaction and no
 * rollback can make a release number meet two data states.  A role reads a
 * table's releases only if it is the table's owner (or a member of it), a
 * superuser, or has the privileges of a role the owner granted reading to.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "live_core.h"
#include "coreset.h"
#include "capture.h"
#include "readers.h"
#include "store.h"

/* A float8[] Datum from n doubles. */
static Datum
make_float8_array(const double *v, int n)
{
	Datum	   *elems = palloc(n * sizeof(Datum));
	ArrayType  *a;
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = Float8GetDatum(v[i]);
	a = construct_array(elems, n, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	pfree(elems);
	return PointerGetDatum(a);
}

/*
 * Read a table's configuration for a reader (see readers.c's header): ERROR
 * 42501 unless the caller may read it, ERROR when it is not attached or, if
 * need_release, has no release yet.  Leaves the store open (dpk_store_begin).
 */
void
dpk_reader_begin(Oid relid, bool need_release, MemoryContext ctx, DpkTracked *tr,
				 DpkOwnerSwitch *sw)
{
	Oid			caller = GetUserId();	/* before the switch to the extension's owner */

	dpk_store_begin(sw);
	dpk_reader_check_access(relid, caller, "the releases", "them");
	if (!dpk_store_read_config(relid, ctx, tr))
		dpk_store_not_attached(relid);
	if (need_release)
		dpk_reader_require_release(tr);
}

/*
 * 42501 unless `caller` (taken before dpk_store_begin switched to the
 * extension's owner) owns relid or was granted reading it (see readers.h);
 * `what` names what is read, `them` refers to it in the detail.
 */
void
dpk_reader_check_access(Oid relid, Oid caller, const char *what, const char *them)
{
	if (pg_class_ownercheck(relid, caller) || dpk_store_has_reader_grant(relid, caller))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to read %s of table %s", what, get_rel_name(relid)),
			 errdetail("Only the table's owner, superusers and roles granted reading may read %s.", them),
			 errhint("The table's owner grants reading with dp_grant_reader('%s', role).",
					 get_rel_name(relid))));
}

/* ERROR when the table has no release yet (see readers.h). */
void
dpk_reader_require_release(const DpkTracked *tr)
{
	if (tr->releases == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has no release yet", get_rel_name(tr->relid)),
				 errdetail("Releases are made by dp_release only; readers never make one."),
				 errhint("Its owner makes the first release with SELECT dp_release('%s').",
						 get_rel_name(tr->relid))));
}

/*
 * The release argument of a reader (argument argno, absent from SQL objects
 * before 0.7): NULL or absent, the latest release; else a release the table
 * has made, or ERROR.
 */
static int
release_arg(FunctionCallInfo fcinfo, int argno, const DpkTracked *tr)
{
	int			t;

	if (argno >= PG_NARGS() || PG_ARGISNULL(argno))
		return tr->releases;
	t = PG_GETARG_INT32(argno);
	if (t < 1 || t > tr->releases)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" has no release %d", get_rel_name(tr->relid), t),
				 errdetail("Its releases are numbered 1 to %d.", tr->releases),
				 errhint("Leave release NULL to read the latest; dp_tables() lists each table's last release.")));
	return t;
}

/*
 * dp_centers(tbl, k, objective, release): a release's centres for k' = k
 * (the latest when release is NULL), with its number and time.
 */
PG_FUNCTION_INFO_V1(dp_centers);
Datum
dp_centers(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	int			k;
	DpkObjective obj;
	DpkTracked	tr;
	DpkOwnerSwitch sw;

	relid = dpk_pg_table_arg(fcinfo);
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("k must not be NULL"),
				 errhint("Give a k between 1 and the table's attached k.")));
	k = PG_GETARG_INT32(1);
	obj = dpk_pg_objective_arg(fcinfo, 2);
	InitMaterializedSRF(fcinfo, 0);
	dpk_reader_begin(relid, false, CurrentMemoryContext, &tr, &sw);
	dpk_pg_check_k(k, tr.k);
	dpk_reader_require_release(&tr);
	dpk_store_centers(relid, release_arg(fcinfo, 3, &tr), k, obj, rsinfo);
	dpk_store_end(&sw);
	return (Datum) 0;
}

/*
 * dp_cost_curve(tbl, objective, release): a release's cost estimate for
 * k' = 1..k (private sums of squared distances, or of distances), the
 * latest when release is NULL.
 */
PG_FUNCTION_INFO_V1(dp_cost_curve);
Datum
dp_cost_curve(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = dpk_pg_table_arg(fcinfo);
	DpkObjective obj = dpk_pg_objective_arg(fcinfo, 1);
	DpkTracked	tr;
	DpkOwnerSwitch sw;

	InitMaterializedSRF(fcinfo, 0);
	dpk_reader_begin(relid, false, CurrentMemoryContext, &tr, &sw);
	dpk_reader_require_release(&tr);
	dpk_store_costs(relid, release_arg(fcinfo, 2, &tr), obj, rsinfo);
	dpk_store_end(&sw);
	return (Datum) 0;
}

/* The release a histogram is read from: its number and time. */
typedef struct HistRelease
{
	int			t;
	TimestampTz made_at;
} HistRelease;

/*
 * One dp_histogram row: level, cell coordinates, centre in data units,
 * count, and (SQL objects of 0.7) the release and its time.
 */
static void
histogram_row(ReturnSetInfo *rsinfo, const DpkTracked *tr, const HistRelease *hr, int level,
			  int ncoords, const int64_t *idx, const double *ctr, double count)
{
	Datum		out[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	Datum	   *cellv = palloc(ncoords * sizeof(Datum));
	int			j;

	for (j = 0; j < ncoords; j++)
		cellv[j] = Int32GetDatum((int32) idx[j]);
	out[0] = Int32GetDatum(level);
	out[1] = PointerGetDatum(construct_array(cellv, ncoords, INT4OID, 4, true, TYPALIGN_INT));
	out[2] = make_float8_array(ctr, tr->d);
	out[3] = Float8GetDatum(count);
	out[4] = Int32GetDatum(hr->t);
	out[5] = TimestampTzGetDatum(hr->made_at);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
	/* the tuplestore keeps its own copy: reuse the memory for the next row */
	pfree(cellv);
	pfree(DatumGetPointer(out[1]));
	pfree(DatumGetPointer(out[2]));
}

/*
 * A projected table's histogram: the cells of copy 0 in the projected space
 * at `level`, each with its lifted centre in the original space.
 */
static void
histogram_projected(ReturnSetInfo *rsinfo, const DpkTracked *tr, const HistRelease *hr,
					const DpkCellMap *noisy, int level)
{
	DpkLiveConfig cfg;
	DpkProjection proj;
	int			m = 1 << level;
	uint64		ncells = (uint64) llround(pow((double) m, tr->dhat));
	double	   *cnt = palloc_extended(ncells * sizeof(double), MCXT_ALLOC_HUGE);
	double	   *sums = palloc_extended(ncells * tr->d * sizeof(double), MCXT_ALLOC_HUGE);
	double	   *u = palloc(tr->d * sizeof(double));
	double	   *ctr = palloc(tr->d * sizeof(double));
	int64_t    *idx = palloc(tr->dhat * sizeof(int64_t));
	DpkBox		box = {tr->d, tr->lower, tr->upper};
	uint64		c;

	dpk_tracked_config(tr, &cfg);
	/* the table's projected box: a norm bound narrows it */
	dpk_live_projection(&cfg, 0, &proj);
	dpk_live_projected_level(&cfg, noisy, level, cnt, sums);
	for (c = 0; c < ncells; c++)
	{
		dpk_grid_cell_coords(tr->dhat, m, c, idx);
		dpk_live_projected_cell_centre(&cfg, &proj, level, c, cnt[c], sums + c * tr->d, u);
		dpk_box_from_position(&box, cfg.box_metric, u, ctr);
		histogram_row(rsinfo, tr, hr, level, tr->dhat, idx, ctr, cnt[c]);
		if ((c & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	dpk_projection_free(&proj);
}

/* A low-d table's histogram at `level`: the counted level summed up to it. */
static void
histogram_grid(ReturnSetInfo *rsinfo, const DpkTracked *tr, const HistRelease *hr,
			   const DpkCellMap *noisy, int level)
{
	DpkDenseHist fine,
				coarse;
	const DpkDenseHist *h = &fine;
	size_t		pos = 0;
	uint64_t	cell;
	const int64_t *v;
	int64_t    *idx = palloc(tr->d * sizeof(int64_t));
	double	   *ctr = palloc(tr->d * sizeof(double));
	uint64		c;
	int			j;

	dpk_hist_init(&fine, tr->d, 1 << tr->level, tr->sum_share > 0.0);
	while (dpk_cellmap_next(noisy, &pos, &cell, &v))
		if (cell < fine.ncells)
		{
			fine.count[cell] = v[0];
			if (fine.sum)
				for (j = 0; j < tr->d; j++)
					fine.sum[cell * tr->d + j] = v[1 + j];
		}
	if (level < tr->level)
	{
		dpk_live_aggregate(&fine, tr->level, level, &coarse);
		h = &coarse;
	}
	for (c = 0; c < h->ncells; c++)
	{
		dpk_grid_cell_coords(tr->d, h->m, c, idx);
		for (j = 0; j < tr->d; j++)
			ctr[j] = tr->lower[j] + (idx[j] + 0.5) * (tr->upper[j] - tr->lower[j]) / h->m;
		histogram_row(rsinfo, tr, hr, level, tr->d, idx, ctr, (double) h->count[c]);
		if ((c & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * dp_histogram(tbl, level, release): a release's noisy histogram at a level
 * (the latest when release is NULL), with its number and time.
 */
PG_FUNCTION_INFO_V1(dp_histogram);
Datum
dp_histogram(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = dpk_pg_table_arg(fcinfo);
	DpkTracked	tr;
	DpkOwnerSwitch sw;
	int			level = -1,
				stored_level;
	DpkCellMap	noisy;
	MemoryContext callerctx = CurrentMemoryContext;
	HistRelease hr;

	InitMaterializedSRF(fcinfo, 0);
	dpk_reader_begin(relid, false, callerctx, &tr, &sw);
	if (!PG_ARGISNULL(1))
	{
		level = PG_GETARG_INT32(1);
		if (level < 0 || level > tr.level)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("level must be between 0 and %d for table \"%s\", got %d",
							tr.level, get_rel_name(relid), level),
					 errdetail("Level l has 2^l cells per dimension; NULL picks the level of the latest release.")));
	}
	dpk_reader_require_release(&tr);
	hr.t = release_arg(fcinfo, 2, &tr);
	dpk_store_histogram(relid, hr.t, tr.releases, tr.d, callerctx, &noisy, &stored_level);
	if (!dpk_store_release_time(relid, hr.t, &hr.made_at))
		hr.made_at = 0;
	if (level < 0)
		level = stored_level;
	dpk_store_end(&sw);

	if (tr.dhat > 0)
		histogram_projected(rsinfo, &tr, &hr, &noisy, level);
	else
		histogram_grid(rsinfo, &tr, &hr, &noisy, level);
	return (Datum) 0;
}

/* The role argument of dp_grant_reader / dp_revoke_reader. */
static Oid
role_arg(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("role must not be NULL"),
				 errhint("Give the role that may read the table's releases.")));
	return PG_GETARG_OID(1);
}

/* Grant or revoke reading of an attached table (owner only). */
static bool
set_reader(FunctionCallInfo fcinfo, bool grant)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);
	Oid			role = role_arg(fcinfo);
	DpkOwnerSwitch sw;
	bool		changed,
				exists;

	dpk_pg_check_table_owner(relid, grant ? "grant reading" : "revoke reading");
	dpk_pg_refuse_in_recovery(grant ? "dp_grant_reader" : "dp_revoke_reader");
	exists = OidIsValid(role) && GetUserNameFromId(role, true) != NULL;
	if (!exists && grant)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", role)));
	dpk_store_begin(&sw);
	if (!dpk_store_is_attached(relid))
		dpk_store_not_attached(relid);
	changed = dpk_store_set_reader(relid, role, grant);
	dpk_store_end(&sw);
	/* the grant of a role dropped under an older version is revoked by its OID */
	if (!exists && !changed)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", role)));
	return changed;
}

/* dp_grant_reader(tbl, role): role may read tbl's releases; false if it could already. */
PG_FUNCTION_INFO_V1(dp_grant_reader);
Datum
dp_grant_reader(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(set_reader(fcinfo, true));
}

/* dp_revoke_reader(tbl, role): role no longer reads tbl's releases; false if it did not. */
PG_FUNCTION_INFO_V1(dp_revoke_reader);
Datum
dp_revoke_reader(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(set_reader(fcinfo, false));
}
