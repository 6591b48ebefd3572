/*
 * shard_capture.c
 *		Capture on the coordinator's own tables of a partitioned table that
 *		has foreign partitions (shards).
 *
 * PostgreSQL refuses to route a row to a foreign partition while a
 * statement collects transition tables ("cannot collect transition tuples
 * from child foreign tables"), so such a tree cannot use the statement
 * triggers with transition tables of src/capture/trigger.c.  Instead:
 *  - each local leaf partition has a row trigger (capture_routed) that adds
 *    its rows to a map kept for the statement, per leaf;
 *  - every local table of the tree (partitioned ones included) has an AFTER
 *    statement trigger without transition tables (capture_flush) that writes
 *    the maps of its tree's root as one delta, padded like any change of
 *    that many rows;
 *  - foreign partitions have no trigger: their shard counts their rows.
 * A statement naming any table of the tree fires the row triggers of the
 * leaves it writes, then the statement trigger of the table it names, so
 * each row is counted once.  Maps of a failed (sub)transaction are dropped
 * with it.  TRUNCATE keeps the leaves' truncate triggers (src/capture/partition.c).
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "replication/logicalworker.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "capture.h"
#include "store.h"

/* The rows one leaf received in the current statement. */
typedef struct Pending
{
	Oid			leaf;
	Oid			root;
	SubTransactionId subid;
	DpkShape	shape;
	DpkCellMap	map;
	uint64		rows;
} Pending;

/* Pending maps (TopTransactionContext; forgotten at the end of the transaction). */
static List *pending = NIL;
static bool callbacks_registered = false;

/* End of the transaction: the maps went with its memory. */
static void
pending_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_PREPARE)
		pending = NIL;
}

/* A failed subtransaction drops its rows; a committed one hands them up. */
static void
pending_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						 SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	foreach(lc, pending)
	{
		Pending    *p = lfirst(lc);

		if (p->subid != mySubid)
			continue;
		if (event == SUBXACT_EVENT_ABORT_SUB)
			pending = foreach_delete_current(pending, lc);
		else if (event == SUBXACT_EVENT_COMMIT_SUB)
			p->subid = parentSubid;
	}
}

/* The map of the current statement for the trigger's leaf, made on first use. */
static Pending *
pending_for(TriggerData *td)
{
	Oid			leaf = RelationGetRelid(td->tg_relation);
	SubTransactionId subid = GetCurrentSubTransactionId();
	MemoryContext old;
	Pending    *p;
	ListCell   *lc;

	foreach(lc, pending)
	{
		p = lfirst(lc);
		if (p->leaf == leaf && p->subid == subid)
			return p;
	}
	if (!callbacks_registered)
	{
		RegisterXactCallback(pending_xact_callback, NULL);
		RegisterSubXactCallback(pending_subxact_callback, NULL);
		callbacks_registered = true;
	}
	old = MemoryContextSwitchTo(TopTransactionContext);
	p = palloc0(sizeof(Pending));
	p->leaf = leaf;
	p->subid = subid;
	/* the arguments every capture trigger has (src/capture/shape.c) */
	dpk_shape_from_trigger(&p->shape, td);
	p->root = p->shape.capture_root;
	dpk_cellmap_init(&p->map, p->shape.d);
	pending = lappend(pending, p);
	MemoryContextSwitchTo(old);
	return p;
}

/*
 * dpkmeans_internal.capture_routed(): AFTER INSERT OR UPDATE OR DELETE FOR
 * EACH ROW on a local leaf of a tree with shards (see the file header).
 * UPDATE = delete of the old row + insert of the new one.
 */
PG_FUNCTION_INFO_V1(dpk_capture_routed);
Datum
dpk_capture_routed(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Pending    *p;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		!TRIGGER_FIRED_AFTER(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("dpkmeans_internal.capture_routed must be an AFTER ... FOR EACH ROW trigger")));
	/* rows applied by logical replication are counted by capture_row */
	if (IsLogicalWorker())
		return PointerGetDatum(NULL);
	p = pending_for(td);
	if (TRIGGER_FIRED_BY_DELETE(td->tg_event) || TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		dpk_shape_add_slot(&p->shape, &p->map, td->tg_trigslot, -1);
		p->rows++;
	}
	if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
	{
		dpk_shape_add_slot(&p->shape, &p->map, td->tg_trigslot, +1);
		p->rows++;
	}
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		dpk_shape_add_slot(&p->shape, &p->map, td->tg_newslot, +1);
		p->rows++;
	}
	return PointerGetDatum(NULL);
}

/*
 * dpkmeans_internal.capture_flush(): AFTER INSERT OR UPDATE OR DELETE FOR
 * EACH STATEMENT on every local table of a tree with shards: the rows its
 * leaves received, as one delta of the root.
 */
PG_FUNCTION_INFO_V1(dpk_capture_flush);
Datum
dpk_capture_flush(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Oid			root;
	DpkCellMap	map;
	DpkLiveConfig live;
	uint64		rows = 0;
	bool		first = true;
	ListCell   *lc;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_STATEMENT(td->tg_event) ||
		!TRIGGER_FIRED_AFTER(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("dpkmeans_internal.capture_flush must be an AFTER ... FOR EACH STATEMENT trigger")));
	root = dpk_capture_root(td->tg_relation);
	foreach(lc, pending)
	{
		Pending    *p = lfirst(lc);
		MemoryContext old;

		if (p->root != root)
			continue;
		old = MemoryContextSwitchTo(TopTransactionContext);
		dpk_shape_flush(&p->shape, &p->map);
		MemoryContextSwitchTo(old);
		if (first)
		{
			first = false;
			live = p->shape.live;
			dpk_cellmap_init(&map, p->shape.d);
		}
		dpk_cellmap_merge(&map, &p->map, +1);
		rows += p->rows;
		pending = foreach_delete_current(pending, lc);
	}
	if (rows > 0)
	{
		DpkOwnerSwitch sw;

		dpk_store_begin(&sw);
		dpk_store_append_delta(root, &map, dpk_pad_cells(&live, rows));
		dpk_store_end(&sw);
	}
	return PointerGetDatum(NULL);
}

/* Capture triggers of a table in a tree with shards (see shard.h). */
void
dpk_shard_install_capture(const DpkTracked *tr, Oid relid)
{
	int16		events = TRIGGER_TYPE_INSERT;

	if (!tr->insert_only)
		events |= TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE;
	if (get_rel_relkind(relid) == RELKIND_RELATION)
		dpk_attach_capture_trigger(tr, relid, "dpkmeans_capture_routed", "capture_routed",
								   true, TRIGGER_TYPE_AFTER, events);
	dpk_attach_capture_trigger(tr, relid, "dpkmeans_capture_flush", "capture_flush", false,
							   TRIGGER_TYPE_AFTER, events);
}
