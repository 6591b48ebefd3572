/*
 * bounds.c
 *		The owner's feedback on the declared box: how many points lie outside
 *		it (clamped onto its faces when counted), per coordinate and side.
 *
 * These are true counts.  They reach only roles that can read the rows
 * themselves: the owner of an attached table (dp_attach's backfill,
 * dp_bounds_check) and the caller of dp_kmeans, who ran the query.  Nothing
 * of them is stored, so no reader and no internal table can see them.
 */
#include "postgres.h"

#include <math.h>

#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"

#include "live.h"
#include "store.h"

/*
 * Share of the points on one side of one coordinate above which the caller
 * is warned: rows clamped onto a face gather at the box's edge, where from
 * about 0.25 % on they make a centre of their own
 * (doc/decisions/026-bounds-warning.md).
 */
#define DPK_CLAMP_WARN_SHARE 0.001

/* Coordinates listed in a message; the rest are summed up. */
#define DPK_CLAMP_LISTED 8

/* Zero counts (see live.h). */
void
dpk_clamp_init(DpkClampCount *cc, int d)
{
	cc->d = d;
	cc->points = 0;
	cc->outside = 0;
	cc->below = palloc0(d * sizeof(int64));
	cc->above = palloc0(d * sizeof(int64));
}

/* Count one point (see live.h). */
void
dpk_clamp_add(DpkClampCount *cc, const double *lower, const double *upper, const double *x)
{
	bool		out = false;
	int			j;

	for (j = 0; j < cc->d; j++)
	{
		if (x[j] < lower[j])
		{
			cc->below[j]++;
			out = true;
		}
		else if (x[j] > upper[j])
		{
			cc->above[j]++;
			out = true;
		}
	}
	cc->points++;
	if (out)
		cc->outside++;
}

/* The name of coordinate j: a column, or an element of the one array column. */
static char *
coord_name(char **names, int ncols, int d, int j)
{
	if (ncols == d)
		return names[j];
	return psprintf("%s[%d]", names[0], j + 1);
}

/* A share of the points in percent, for messages. */
static double
percent(const DpkClampCount *cc, int64 n)
{
	return cc->points > 0 ? 100.0 * (double) n / (double) cc->points : 0.0;
}

/* Whether every point lies outside the box in every coordinate (a corner). */
static bool
all_in_corner(const DpkClampCount *cc)
{
	int			j;

	if (cc->points == 0)
		return false;
	for (j = 0; j < cc->d; j++)
		if (cc->below[j] != cc->points && cc->above[j] != cc->points)
			return false;
	return true;
}

/* Tell the caller how many points were clamped (see live.h). */
void
dpk_clamp_report(const DpkClampCount *cc, const char *what, char **names, int ncols,
				 const char *hint)
{
	StringInfoData detail;
	bool		large = false;
	int			listed = 0,
				more = 0,
				j;

	if (cc->outside == 0)
		return;
	/* true counts: only for a role that can read the rows itself */
	if (!has_privs_of_role(GetOuterUserId(), GetUserId()))
		return;
	initStringInfo(&detail);
	for (j = 0; j < cc->d; j++)
	{
		if (cc->below[j] == 0 && cc->above[j] == 0)
			continue;
		if ((double) cc->below[j] > DPK_CLAMP_WARN_SHARE * (double) cc->points ||
			(double) cc->above[j] > DPK_CLAMP_WARN_SHARE * (double) cc->points)
			large = true;
		if (listed == DPK_CLAMP_LISTED)
		{
			more++;
			continue;
		}
		appendStringInfo(&detail, "%s%s: " INT64_FORMAT " below lower (%.2f%%), "
						 INT64_FORMAT " above upper (%.2f%%)",
						 listed > 0 ? "; " : "", coord_name(names, ncols, cc->d, j),
						 cc->below[j], percent(cc, cc->below[j]),
						 cc->above[j], percent(cc, cc->above[j]));
		listed++;
	}
	if (more > 0)
		appendStringInfo(&detail, "; and %d more coordinates", more);
	appendStringInfoChar(&detail, '.');
	if (all_in_corner(cc))
		ereport(WARNING,
				(errmsg("every point of %s lies outside the declared box", what),
				 errdetail("They are all clamped onto one corner of the box: %s", detail.data),
				 errhint("Check that lower and upper follow the order of the columns and their units (a swapped or wrong box).")));
	else
		ereport(large ? WARNING : NOTICE,
				(errmsg(INT64_FORMAT " of " INT64_FORMAT " points of %s (%.2f%%) lie outside the declared box and are clamped onto it",
						cc->outside, cc->points, what, percent(cc, cc->outside)),
				 errdetail("%s", detail.data),
				 errhint("%s", hint)));
}

/* Count the points of every table of the tree under tr's table. */
static void
count_tree(const DpkTracked *tr, DpkClampCount *cc)
{
	ListCell   *lc;
	double	   *x = palloc(tr->d * sizeof(double));
	MemoryContext rowctx = AllocSetContextCreate(CurrentMemoryContext, "dpkmeans bounds row",
												 ALLOCSET_SMALL_SIZES);

	foreach(lc, dpk_tree_relids(tr->relid, NoLock))
	{
		Relation	rel;
		AttrNumber *attnums;
		DpkPointReader reader;
		TableScanDesc scan;
		TupleTableSlot *slot;
		uint64		rows = 0;

		if (get_rel_relkind(lfirst_oid(lc)) != RELKIND_RELATION)
			continue;
		rel = table_open(lfirst_oid(lc), NoLock);
		attnums = dpk_resolve_columns(rel, tr->colnames, tr->ncols);
		dpk_pg_point_reader_init(&reader, RelationGetDescr(rel), attnums, tr->ncols, tr->d,
								 psprintf("table \"%s\"", RelationGetRelationName(rel)));
		scan = table_beginscan(rel, GetActiveSnapshot(), 0, NULL);
		slot = table_slot_create(rel, NULL);
		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			/* a row's detoasted values are freed with it */
			MemoryContext old = MemoryContextSwitchTo(rowctx);

			/* rows that are not points are not counted, as by the capture */
			if (dpk_pg_read_point_slot(&reader, slot, x) == DPK_POINT_OK)
				dpk_clamp_add(cc, tr->lower, tr->upper, x);
			MemoryContextSwitchTo(old);
			MemoryContextReset(rowctx);
			if ((++rows & 65535) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		ExecDropSingleTupleTableSlot(slot);
		table_endscan(scan);
		table_close(rel, NoLock);
	}
	MemoryContextDelete(rowctx);
}

/*
 * dp_bounds_check(tbl): per tracked coordinate, the points below lower and
 * above upper and their shares, from a scan of the table as its owner; the
 * message of dp_attach when some are clamped.
 */
PG_FUNCTION_INFO_V1(dp_bounds_check);
Datum
dp_bounds_check(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = dpk_pg_table_arg(fcinfo);
	MemoryContext callerctx = CurrentMemoryContext;
	DpkTracked	tr;
	DpkOwnerSwitch sw;
	DpkClampCount cc;
	Relation	rel;
	int			j;

	dpk_pg_check_table_owner(relid, "check its bounds");
	InitMaterializedSRF(fcinfo, 0);
	rel = table_open(relid, AccessShareLock);
	(void) dpk_tree_relids(relid, AccessShareLock);
	dpk_store_begin(&sw);
	if (!dpk_store_read_config(relid, callerctx, &tr))
		dpk_store_not_attached(relid);
	dpk_store_end(&sw);

	dpk_clamp_init(&cc, tr.d);
	count_tree(&tr, &cc);
	table_close(rel, AccessShareLock);
	dpk_clamp_report(&cc, psprintf("table \"%s\"", get_rel_name(relid)), tr.colnames, tr.ncols,
					 "Rows clamped onto a face of the box count at its edge; fix the rows, or "
					 "detach and attach the table with a box that holds them.");
	for (j = 0; j < tr.d; j++)
	{
		Datum		out[8];
		bool		nulls[8] = {false, false, false, false, false, false, false, false};

		out[0] = CStringGetTextDatum(coord_name(tr.colnames, tr.ncols, tr.d, j));
		out[1] = Float8GetDatum(tr.lower[j]);
		out[2] = Float8GetDatum(tr.upper[j]);
		out[3] = Int64GetDatum(cc.points);
		out[4] = Int64GetDatum(cc.below[j]);
		out[5] = Int64GetDatum(cc.above[j]);
		out[6] = Float8GetDatum(cc.points > 0 ? (double) cc.below[j] / cc.points : 0.0);
		out[7] = Float8GetDatum(cc.points > 0 ? (double) cc.above[j] / cc.points : 0.0);
		nulls[6] = nulls[7] = cc.points == 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
	}
	return (Datum) 0;
}
