/*
 * bounds.c
 *		dp_bounds_check: the owner's feedback on the declared box, recounted
 *		from the rows (the counting and its message are clamp.c's).
 *
 * These are true counts; they reach only the table's owner and are never
 * stored (see clamp.c).
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

#include "capture.h"
#include "store.h"

/* Count the points of every table of the tree under tr's table. */
static void
count_tree(const DpkTracked *tr, DpkClampCount *cc)
{
	ListCell   *lc;
	double	   *x = palloc(tr->d * sizeof(double));
	MemoryContext rowctx = AllocSetContextCreate(CurrentMemoryContext, "dpkmeans bounds row",
												 ALLOCSET_SMALL_SIZES);

	foreach(lc, dpk_partition_relids(tr->relid, NoLock))
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
	(void) dpk_partition_relids(relid, AccessShareLock);
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

		out[0] = CStringGetTextDatum(dpk_clamp_coord_name(tr.colnames, tr.ncols, tr.d, j));
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
