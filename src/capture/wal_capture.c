/*
 * wal_capture.c
 *		Capture of an attached table's changes by logical decoding of the
 *		WAL (dp_attach(..., capture => 'wal')): writers run no dpkmeans code.
 *
 * The output plugin (_PG_output_plugin_init; slots name "dpkmeans" as their
 * plugin, i.e. this library) does not write a stream: it is driven only by
 * dpk_wal_sync, in the same backend, which points it at a sink and decodes
 * the table's slot itself.  Every committed transaction's rows of the table
 * are counted per cell through the same shape as the capture triggers
 * (sign +1 for a new row, -1 for an old one: REPLICA IDENTITY FULL puts the
 * old rows of UPDATE and DELETE in the WAL); a TRUNCATE of the table, in its
 * place in the commit order, removes every row counted so far.  Aborted
 * transactions and rolled-back subtransactions are never decoded.
 *
 * Exactly once: wal_capture.lsn is the WAL position up to which every
 * committed transaction is counted.  A sync decodes from the slot's restart
 * point to the current end of the flushed WAL, skips transactions whose
 * commit record ends at or before the stored position, appends the rest as
 * one delta and stores the new position in the same transaction.  The slot
 * is confirmed only up to a position already committed in wal_capture, so a
 * crash or a rolled-back sync decodes the same transactions again and the
 * stored position skips those already counted.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogutils.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "commands/event_trigger.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "replication/decode.h"
#include "replication/logical.h"
#include "replication/message.h"
#include "replication/output_plugin.h"
#include "replication/reorderbuffer.h"
#include "replication/slot.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_lsn.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "capture.h"
#include "store.h"
#include "wal_capture.h"

PGDLLEXPORT void _PG_output_plugin_init(OutputPluginCallbacks *cb);

/* Where the decoded rows of one table go during a sync. */
typedef struct WalSink
{
	const DpkTracked *tr;
	XLogRecPtr	from;			/* counted through here already */
	DpkShape	shape;
	bool		shape_built;
	bool		bound;			/* shape bound to a descriptor of the table */
	TupleTableSlot *slot;		/* virtual slot of that descriptor */
	bool		skip;			/* the current transaction is counted already */
	DpkCellMap	base;			/* state + pending deltas: what TRUNCATE removes */
	DpkCellMap	acc;			/* the change found by this sync */
	bool		truncated;
	uint64		rows;			/* rows of the table decoded and counted */
	MemoryContext ctx;			/* outlives the decoding context */
	MemoryContext rowctx;
} WalSink;

static WalSink *active_sink = NULL;

/* ---------------------------------------------------------------------
 * The output plugin
 * --------------------------------------------------------------------- */

/* Binary, driven by dpk_wal_sync only (slot creation excepted). */
static void
wal_startup(LogicalDecodingContext *ctx, OutputPluginOptions *opt, bool is_init)
{
	opt->output_type = OUTPUT_PLUGIN_BINARY_OUTPUT;
	opt->receive_rewrites = false;
	if (!is_init && active_sink == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("replication slot \"%s\" belongs to dpkmeans",
						NameStr(MyReplicationSlot->data.name)),
				 errdetail("Its changes are counted into a table's state and never streamed."),
				 errhint("Run dp_capture_sync(table); the slot is dropped by dp_detach.")));
	ctx->output_plugin_private = active_sink;
}

/* A transaction: skipped when its commit is counted already. */
static void
wal_begin(LogicalDecodingContext *ctx, ReorderBufferTXN *txn)
{
	WalSink    *sink = ctx->output_plugin_private;

	sink->skip = txn->end_lsn <= sink->from;
}

/*
 * Whether rows of layout b read the same through layout a: the physical
 * attributes only (a slot's descriptor, a copy, has no constraints or
 * defaults; names do not matter, columns are read by number).
 */
static bool
same_layout(TupleDesc a, TupleDesc b)
{
	int			i;

	if (a->natts != b->natts)
		return false;
	for (i = 0; i < a->natts; i++)
	{
		Form_pg_attribute x = TupleDescAttr(a, i),
					y = TupleDescAttr(b, i);

		if (x->atttypid != y->atttypid || x->atttypmod != y->atttypmod ||
			x->attlen != y->attlen || x->attbyval != y->attbyval ||
			x->attalign != y->attalign || x->attstorage != y->attstorage ||
			x->attisdropped != y->attisdropped)
			return false;
	}
	return true;
}

/*
 * Read the tracked columns through the table descriptor of the change at
 * hand.  Bound again only when the descriptor differs from the bound one (a
 * rewrite in the middle of a transaction changes it from one row to the
 * next), so binding costs nothing per transaction.
 */
static void
sink_bind(WalSink *sink, Relation rel)
{
	MemoryContext old = MemoryContextSwitchTo(sink->ctx);
	const DpkTracked *tr = sink->tr;

	if (!sink->shape_built)
	{
		AttrNumber *attnums = dpk_resolve_columns(rel, tr->colnames, tr->ncols);

		dpk_shape_init(&sink->shape, rel, tr->d, tr->level, attnums, tr->ncols,
					   tr->lower, tr->upper);
		dpk_shape_set_tracked_lift(&sink->shape, tr);
		sink->shape.lenient = true;
		sink->shape_built = true;
	}
	else
		dpk_shape_bind(&sink->shape, rel, tr->colnames);
	sink->shape.mapctx = sink->ctx;
	if (sink->slot != NULL)
	{
		TupleDesc	desc = sink->slot->tts_tupleDescriptor;

		ExecDropSingleTupleTableSlot(sink->slot);
		FreeTupleDesc(desc);
	}
	sink->slot = MakeSingleTupleTableSlot(CreateTupleDescCopy(RelationGetDescr(rel)),
										  &TTSOpsVirtual);
	sink->bound = true;
	MemoryContextSwitchTo(old);
	elog(DEBUG1, "dpkmeans WAL capture of \"%s\": rows read with a new table layout",
		 RelationGetRelationName(rel));
}

/*
 * Count one decoded row.  A new row of an UPDATE may carry a TOASTed value
 * that did not change as a placeholder (its chunks are not in the WAL): the
 * old row, logged whole under REPLICA IDENTITY FULL, has it.
 */
static void
sink_add(WalSink *sink, HeapTuple tup, HeapTuple old_tup, int sign)
{
	TupleTableSlot *slot = sink->slot;
	TupleDesc	desc = slot->tts_tupleDescriptor;
	int			i;

	ExecClearTuple(slot);
	heap_deform_tuple(tup, desc, slot->tts_values, slot->tts_isnull);
	if (old_tup != NULL)
	{
		Datum	   *ov = NULL;
		bool	   *on = NULL;

		for (i = 0; i < sink->shape.ncols; i++)
		{
			int			a = sink->shape.attnums[i] - 1;

			if (TupleDescAttr(desc, a)->attlen == -1 && !slot->tts_isnull[a] &&
				VARATT_IS_EXTERNAL_ONDISK(DatumGetPointer(slot->tts_values[a])))
			{
				if (ov == NULL)
				{
					ov = palloc(desc->natts * sizeof(Datum));
					on = palloc(desc->natts * sizeof(bool));
					heap_deform_tuple(old_tup, desc, ov, on);
				}
				slot->tts_values[a] = ov[a];
				slot->tts_isnull[a] = on[a];
			}
		}
	}
	ExecStoreVirtualTuple(slot);
	dpk_shape_add_slot(&sink->shape, &sink->acc, slot, sign);
	sink->rows++;
}

/* ERROR: an old row is missing (the replica identity was changed). */
static void
missing_old_row(Relation rel)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("the WAL has no old row for a change of table \"%s\"",
					RelationGetRelationName(rel)),
			 errdetail("Counting UPDATE and DELETE from the WAL needs REPLICA IDENTITY FULL."),
			 errhint("Detach and re-attach the table; do not change its replica identity while attached.")));
}

/* A change of any table: count those of the sink's table. */
static void
wal_change(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, Relation rel,
		   ReorderBufferChange *change)
{
	WalSink    *sink = ctx->output_plugin_private;
	MemoryContext old;
	HeapTuple	oldt,
				newt;

	if (sink->skip || RelationGetRelid(rel) != sink->tr->relid)
		return;
	if (!sink->bound || !same_layout(sink->slot->tts_tupleDescriptor, RelationGetDescr(rel)))
		sink_bind(sink, rel);
	oldt = change->data.tp.oldtuple ? &change->data.tp.oldtuple->tuple : NULL;
	newt = change->data.tp.newtuple ? &change->data.tp.newtuple->tuple : NULL;
	old = MemoryContextSwitchTo(sink->rowctx);
	switch (change->action)
	{
		case REORDER_BUFFER_CHANGE_INSERT:
			if (newt != NULL)
				sink_add(sink, newt, NULL, +1);
			break;
		case REORDER_BUFFER_CHANGE_UPDATE:
			if (oldt == NULL)
				missing_old_row(rel);
			sink_add(sink, oldt, NULL, -1);
			if (newt != NULL)
				sink_add(sink, newt, oldt, +1);
			break;
		case REORDER_BUFFER_CHANGE_DELETE:
			if (oldt == NULL)
				missing_old_row(rel);
			sink_add(sink, oldt, NULL, -1);
			break;
		default:
			break;
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(sink->rowctx);
}

/*
 * TRUNCATE of the table: every row counted so far goes (its rows are not in
 * the WAL, but TRUNCATE's exclusive lock means they are exactly the state,
 * the pending deltas and what this sync counted before it).
 */
static void
wal_truncate(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, int nrelations,
			 Relation relations[], ReorderBufferChange *change)
{
	WalSink    *sink = ctx->output_plugin_private;
	MemoryContext old;
	int			i;

	if (sink->skip)
		return;
	for (i = 0; i < nrelations; i++)
		if (RelationGetRelid(relations[i]) == sink->tr->relid)
		{
			if (sink->shape_built)
				dpk_shape_flush(&sink->shape, &sink->acc);
			old = MemoryContextSwitchTo(sink->ctx);
			dpk_cellmap_free(&sink->acc);
			dpk_cellmap_init(&sink->acc, sink->tr->d);
			dpk_cellmap_merge(&sink->acc, &sink->base, -1);
			MemoryContextSwitchTo(old);
			sink->truncated = true;
		}
}

/* Nothing to do at commit: the transaction's rows are counted. */
static void
wal_commit(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, XLogRecPtr commit_lsn)
{
}

/* The callbacks of the "dpkmeans" output plugin. */
void
_PG_output_plugin_init(OutputPluginCallbacks *cb)
{
	cb->startup_cb = wal_startup;
	cb->begin_cb = wal_begin;
	cb->change_cb = wal_change;
	cb->truncate_cb = wal_truncate;
	cb->commit_cb = wal_commit;
}

/* The plugin never writes; decoding contexts still want these. */
static void
no_prepare_write(LogicalDecodingContext *ctx, XLogRecPtr lsn, TransactionId xid, bool last)
{
}

static void
no_write(LogicalDecodingContext *ctx, XLogRecPtr lsn, TransactionId xid, bool last)
{
}

/* ---------------------------------------------------------------------
 * The consumer
 * --------------------------------------------------------------------- */

/*
 * Count the table's committed changes not counted yet (see wal_capture.h).
 * Caller: inside dpk_store_begin, tr read with its row lock (concurrent
 * syncs and releases of the table wait for each other).
 */
bool
dpk_wal_sync(const DpkTracked *tr, XLogRecPtr *counted_to)
{
	DpkWalCapture wc;
	bool		wal;
	WalSink		sink;
	XLogRecPtr	end_of_wal,
				end;
	LogicalDecodingContext *ctx = NULL;
	MemoryContext old;
	ResourceOwner owner;
	ReplicationSlot *slot;
	int			guc_level;

	/*
	 * Under the row lock, the latest committed position and deltas: a sync
	 * that committed while this one waited for the lock is not counted
	 * again (read-only statements would see the caller's older snapshot).
	 */
	PushActiveSnapshot(GetLatestSnapshot());
	wal = dpk_store_wal_read(tr->relid, &wc);
	PopActiveSnapshot();
	if (!wal)
		return false;
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" is captured from the WAL; a standby cannot count its changes",
						get_rel_name(tr->relid)),
				 errhint("Run releases and dp_capture_sync on the primary.")));
	if (MyReplicationSlot != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this session holds replication slot \"%s\"",
						NameStr(MyReplicationSlot->data.name)),
				 errhint("Commit the transaction that ran dp_attach(capture => 'wal') first.")));
	CheckLogicalDecodingRequirements();
	/* a restored copy names the original's slot (another table's, here) */
	if (!dpk_wal_slot_is_tables(tr->relid, wc.slot))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has no replication slot of its own", get_rel_name(tr->relid)),
				 errdetail("It is a restored copy: its stored slot \"%s\" is the original table's.",
						   wc.slot),
				 errhint("Run dp_capture_resync('%s') to give this copy a slot of its own.",
						 get_rel_name(tr->relid))));
	slot = SearchNamedReplicationSlot(wc.slot, true);
	if (slot != NULL && XLogRecPtrIsInvalid(slot->data.restart_lsn))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("replication slot \"%s\" of table \"%s\" was invalidated",
						wc.slot, get_rel_name(tr->relid)),
				 errdetail("The WAL it kept for the changes not counted yet was removed (max_slot_wal_keep_size)."),
				 errhint("Run dp_capture_resync('%s') to count them from a recount of the table.",
						 get_rel_name(tr->relid))));
	if (slot == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("replication slot \"%s\" of table \"%s\" does not exist",
						wc.slot, get_rel_name(tr->relid)),
				 errdetail("Changes since the last sync cannot be decoded (a promoted standby, a restored copy, or the slot was dropped)."),
				 errhint("Run dp_capture_resync('%s') to count them from a recount of the table.",
						 get_rel_name(tr->relid))));

	/*
	 * Every transaction committed so far in the flushed WAL (also those
	 * committed with synchronous_commit = off): flush up to the end of a
	 * record inserted now (the insert position itself may point past a page
	 * header not written yet).  The record is a non-transactional logical
	 * message the plugin ignores.
	 */
	XLogFlush(LogLogicalMessage("dpkmeans", "", 0, false));
	end_of_wal = GetFlushRecPtr(NULL);

	memset(&sink, 0, sizeof(sink));
	sink.tr = tr;
	sink.from = wc.lsn;
	sink.ctx = AllocSetContextCreate(CurrentMemoryContext, "dpkmeans wal sync",
									 ALLOCSET_DEFAULT_SIZES);
	sink.rowctx = AllocSetContextCreate(sink.ctx, "dpkmeans wal row", ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(sink.ctx);
	dpk_cellmap_init(&sink.acc, tr->d);
	dpk_cellmap_init(&sink.base, tr->d);
	dpk_cellmap_merge(&sink.base, &tr->state, +1);
	PushActiveSnapshot(GetLatestSnapshot());
	dpk_store_add_deltas(tr->relid, &sink.base);
	PopActiveSnapshot();
	MemoryContextSwitchTo(old);

	/*
	 * A transaction's changes spill to disk past logical_decoding_work_mem
	 * (64 MB by default, about 0.5M rows): the sync may use as much as
	 * maintenance work does (restored at the end).
	 */
	guc_level = NewGUCNestLevel();
	if (maintenance_work_mem > logical_decoding_work_mem)
		(void) set_config_option("logical_decoding_work_mem",
								 psprintf("%d", maintenance_work_mem), PGC_USERSET,
								 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	owner = CurrentResourceOwner;
	ReplicationSlotAcquire(wc.slot, true);
	active_sink = &sink;
	PG_TRY();
	{
		/*
		 * Let the slot go up to the position committed by the previous sync:
		 * decoding then skips the transactions counted already without
		 * replaying them, and the WAL before them can be removed.  This
		 * sync's position is confirmed by the next one, after its commit.
		 * Not a position this transaction stored (a second sync in one
		 * transaction): a rollback would undo it but not the slot's move,
		 * and the changes counted in between would be lost.  The sink
		 * skips them by `from` all the same.
		 */
		if (MyReplicationSlot->data.confirmed_flush > wc.lsn)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("replication slot \"%s\" of table \"%s\" was moved past the changes counted so far",
							wc.slot, get_rel_name(tr->relid)),
					 errdetail("Counted through %X/%X, the slot is at %X/%X: the changes in between "
							   "cannot be decoded (pg_replication_slot_advance, or another consumer).",
							   LSN_FORMAT_ARGS(wc.lsn),
							   LSN_FORMAT_ARGS(MyReplicationSlot->data.confirmed_flush)),
					 errhint("Run dp_capture_resync('%s') to count them from a recount of the table; only dpkmeans may move its slots.",
							 get_rel_name(tr->relid))));
		if (wc.lsn_committed && wc.lsn > MyReplicationSlot->data.confirmed_flush)
		{
			LogicalConfirmReceivedLocation(wc.lsn);
			ReplicationSlotMarkDirty();
		}
		ctx = CreateDecodingContext(InvalidXLogRecPtr, NIL, false,
									XL_ROUTINE(.page_read = read_local_xlog_page,
											   .segment_open = wal_segment_open,
											   .segment_close = wal_segment_close),
									no_prepare_write, no_write, NULL);
		XLogBeginRead(ctx->reader, MyReplicationSlot->data.restart_lsn);
		InvalidateSystemCaches();
		while (ctx->reader->EndRecPtr < end_of_wal)
		{
			char	   *errm = NULL;
			XLogRecord *record = XLogReadRecord(ctx->reader, &errm);

			if (errm)
				elog(ERROR, "could not read the WAL for dpkmeans: %s", errm);
			if (record != NULL)
			{
				LogicalDecodingProcessRecord(ctx, ctx->reader);
				/* replaying a transaction ends an internal subtransaction,
				 * which leaves the top transaction's resource owner current */
				CurrentResourceOwner = owner;
			}
			CHECK_FOR_INTERRUPTS();
		}
		end = Max(ctx->reader->EndRecPtr, wc.lsn);
		FreeDecodingContext(ctx);
		ReplicationSlotRelease();
		active_sink = NULL;
		InvalidateSystemCaches();
	}
	PG_CATCH();
	{
		CurrentResourceOwner = owner;
		active_sink = NULL;
		InvalidateSystemCaches();
		if (MyReplicationSlot != NULL)
			ReplicationSlotRelease();
		PG_RE_THROW();
	}
	PG_END_TRY();
	AtEOXact_GUC(false, guc_level);

	if (sink.shape_built)
		dpk_shape_flush(&sink.shape, &sink.acc);
	if (sink.rows > 0 || sink.truncated)
	{
		DpkLiveConfig cfg;
		uint64		rows = sink.rows;

		dpk_tracked_config(tr, &cfg);
		if (sink.truncated)
			rows += dpk_state_rows(&cfg, &sink.base);
		/* padded by the rows it counts, like the triggers' deltas */
		dpk_store_append_delta(tr->relid, &sink.acc, dpk_pad_cells(&cfg, rows));
	}
	if (end != wc.lsn)
		dpk_store_wal_set_lsn(tr->relid, end);
	MemoryContextDelete(sink.ctx);
	if (counted_to != NULL)
		*counted_to = end;
	return true;
}
