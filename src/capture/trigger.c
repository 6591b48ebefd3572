/*
 * trigger.c
 *		Statement-level capture of changes to attached tables.
 *
 * AFTER INSERT/UPDATE/DELETE triggers read the statement's transition
 * tables, aggregate the change per cell in memory and append ONE delta row
 * for the whole statement, so a bulk COPY costs one extra row.  Concurrent
 * writers only ever append, never update shared rows, so they never block
 * each other; the deltas are folded into the state at the next release.
 *
 * Changes are counted into the attached table's counters: the table itself,
 * or the root of its partition tree (src/capture/partition.c).  Logical replication
 * workers fire row triggers only (and their initial copy fires both), so
 * there the statement triggers stand aside and dpkmeans_internal.capture_row
 * counts each applied row.
 */
#include "postgres.h"

#include <math.h>

#include "access/tableam.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "replication/logicalworker.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "capture_cache.h"
#include "dpk_mem.h"
#include "grid.h"
#include "capture.h"
#include "store.h"

/* Add every row of a transition table with the given sign; returns the rows. */
static uint64
add_transition_table(DpkShape *shape, DpkCellMap *map, Tuplestorestate *ts,
					 TupleDesc tupdesc, int sign)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(tupdesc, &TTSOpsMinimalTuple);
	MemoryContext rowctx = AllocSetContextCreate(CurrentMemoryContext, "dpkmeans row",
												 ALLOCSET_SMALL_SIZES);
	MemoryContext old;
	uint64		rows = 0;

	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, slot))
	{
		old = MemoryContextSwitchTo(rowctx);
		dpk_shape_add_slot(shape, map, slot, sign);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowctx);
		if ((++rows & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	ExecDropSingleTupleTableSlot(slot);
	MemoryContextDelete(rowctx);
	dpk_shape_flush(shape, map);
	return rows;
}

/*
 * dpkmeans_internal.capture(): AFTER INSERT / UPDATE / DELETE FOR EACH
 * STATEMENT with transition tables.  UPDATE = delete of the old rows plus
 * insert of the new ones; rows whose tracked values did not change cancel
 * exactly in the integer counters.
 */
PG_FUNCTION_INFO_V1(dpk_capture);
Datum
dpk_capture(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	MemoryContext ctx,
				old;
	DpkShape   *shape;
	DpkCellMap	map;
	TupleDesc	tupdesc;
	uint64		rows = 0;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_STATEMENT(td->tg_event) ||
		!TRIGGER_FIRED_AFTER(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("dpkmeans_internal.capture must be an AFTER ... FOR EACH STATEMENT trigger")));
	/* Rows a logical replication worker writes are counted row by row. */
	if (IsLogicalWorker())
		return PointerGetDatum(NULL);

	ctx = AllocSetContextCreate(CurrentMemoryContext, "dpkmeans capture",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(ctx);
	tupdesc = RelationGetDescr(td->tg_relation);
	/* parsed arguments and resolved columns, kept per backend */
	shape = dpk_shape_cache_get(td, dpk_shape_from_trigger);
	dpk_cellmap_init(&map, shape->d);
	if (td->tg_oldtable)
		rows += add_transition_table(shape, &map, td->tg_oldtable, tupdesc, -1);
	if (td->tg_newtable)
		rows += add_transition_table(shape, &map, td->tg_newtable, tupdesc, +1);

	/*
	 * One delta per statement that wrote rows, even when they cancel (an
	 * UPDATE that moved nothing), padded to a size set by the row count:
	 * whether a statement changed any counter, and how many cells it
	 * touched, must not show in the delta table's statistics.
	 */
	if (rows > 0)
		dpk_capture_append(shape->capture_root, &map, &shape->live, rows);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(ctx);
	return PointerGetDatum(NULL);
}

/*
 * dpkmeans_internal.capture_truncate(): AFTER TRUNCATE on an attached
 * ordinary table, BEFORE TRUNCATE on each leaf partition of an attached
 * partitioned table.  TRUNCATE deletes every row.  For a whole table, its
 * current counters are the folded state plus the pending deltas (TRUNCATE's
 * exclusive lock means none is in flight once it is held), so the change is
 * their negation.
 * A leaf partition holds only part of them: its rows are counted before they
 * go (src/capture/partition.c).
 */
PG_FUNCTION_INFO_V1(dpk_capture_truncate);
Datum
dpk_capture_truncate(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Oid			relid;
	DpkOwnerSwitch sw;
	DpkShape	shape;
	DpkCellMap	map;
	DpkTracked	tr;
	MemoryContext callerctx = CurrentMemoryContext;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("dpkmeans_internal.capture_truncate must be a TRUNCATE trigger")));
	if (TRIGGER_FIRED_BEFORE(td->tg_event))
	{
		dpk_partition_count(dpk_capture_root(td->tg_relation),
							RelationGetRelid(td->tg_relation), -1);
		return PointerGetDatum(NULL);
	}
	relid = RelationGetRelid(td->tg_relation);
	dpk_shape_from_trigger(&shape, td);
	dpk_store_begin(&sw);

	/*
	 * Read the state and deltas as of now, not as of the statement's
	 * snapshot: that was taken before TRUNCATE waited for its lock, and a
	 * writer that committed meanwhile has rows TRUNCATE removes and deltas
	 * that snapshot does not see (or, in REPEATABLE READ, the transaction's
	 * older snapshot).
	 */
	PushActiveSnapshot(GetLatestSnapshot());
	if (!dpk_store_read_tracked(relid, false, callerctx, &tr))
		dpk_store_not_attached(relid);
	{
		MemoryContext old = MemoryContextSwitchTo(callerctx);

		dpk_store_add_deltas(relid, &tr.state);
		dpk_cellmap_init(&map, tr.d);
		dpk_cellmap_merge(&map, &tr.state, -1);
		MemoryContextSwitchTo(old);
	}
	PopActiveSnapshot();
	/* padded like the state it negates: its size tells the row count only */
	dpk_store_append_delta(relid, &map,
						   dpk_store_is_v01() ? 0
						   : dpk_pad_cells(&shape.live, dpk_state_rows(&shape.live, &tr.state)));
	dpk_store_end(&sw);
	return PointerGetDatum(NULL);
}

/*
 * dpkmeans_internal.capture_row(): AFTER INSERT OR UPDATE OR DELETE FOR EACH
 * ROW, enabled for replica sessions only.  Logical replication workers fire
 * row triggers only, so this counts what they apply (the initial table copy
 * included), one padded delta per row; in any other session the statement
 * triggers count and this does nothing.
 */
PG_FUNCTION_INFO_V1(dpk_capture_row);
Datum
dpk_capture_row(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	MemoryContext ctx,
				old;
	DpkShape	shape;
	DpkCellMap	map;
	DpkOwnerSwitch sw;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		!TRIGGER_FIRED_AFTER(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("dpkmeans_internal.capture_row must be an AFTER ... FOR EACH ROW trigger")));
	if (!IsLogicalWorker())
		return PointerGetDatum(NULL);

	ctx = AllocSetContextCreate(CurrentMemoryContext, "dpkmeans capture row",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(ctx);
	dpk_shape_from_trigger(&shape, td);
	dpk_cellmap_init(&map, shape.d);
	if (TRIGGER_FIRED_BY_DELETE(td->tg_event) || TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		dpk_shape_add_slot(&shape, &map, td->tg_trigslot, -1);
	if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
		dpk_shape_add_slot(&shape, &map, td->tg_trigslot, +1);
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		dpk_shape_add_slot(&shape, &map, td->tg_newslot, +1);
	dpk_shape_flush(&shape, &map);
	dpk_store_begin(&sw);
	/* an UPDATE is two rows: padded alike whether or not it moved the point */
	dpk_store_append_delta(shape.capture_root, &map,
						   dpk_pad_cells(&shape.live,
										 TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? 2 : 1));
	dpk_store_end(&sw);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(ctx);
	return PointerGetDatum(NULL);
}

/*
 * dpkmeans_internal.refuse(): BEFORE DELETE / UPDATE OF tracked columns /
 * TRUNCATE on a table attached in insert_only mode, whose accounting has no
 * room for deletions; these depend on the statement only, never on rows.
 * Also AFTER UPDATE FOR EACH ROW, called only for a row whose tracked
 * values changed although the statement set none of them (a trigger or a
 * rule did): its writer sees the refusal, as it sees its own row counts;
 * and BEFORE DELETE FOR EACH ROW on REPLICA, for the deletions a logical
 * replication worker applies (it fires no statement trigger).
 */
PG_FUNCTION_INFO_V1(dpk_refuse);
Datum
dpk_refuse(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	const char *what = "DELETE",
			   *detail = NULL,
			   *hint = "Its privacy accounting covers insertions only; detach and re-attach in insert_delete mode to allow deletions.";

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("dpkmeans_internal.refuse must be called as a trigger")));
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		what = "UPDATE of a tracked column";
	else if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		what = "TRUNCATE";
	/* the row triggers: a moved row, a deletion applied by replication */
	if (TRIGGER_FIRED_FOR_ROW(td->tg_event) && TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		detail = "A trigger or a rule changed a tracked column that the statement did not set, or logical replication applied a change of one.";
		hint = "Its privacy accounting covers insertions only; detach and re-attach in insert_delete mode to allow moving rows.";
	}
	else if (TRIGGER_FIRED_FOR_ROW(td->tg_event))
	{
		detail = "A deletion applied by logical replication is refused like any other; the subscription stops until it is skipped.";
		hint = "Attach a subscriber's table in insert_delete mode unless its publisher only inserts.";
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s is not allowed on \"%s\": it is attached to dpkmeans in insert_only mode",
					what, RelationGetRelationName(td->tg_relation)),
			 detail ? errdetail("%s", detail) : 0,
			 errhint("%s", hint)));
	return PointerGetDatum(NULL);
}
