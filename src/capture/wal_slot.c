/*
 * wal_slot.c
 *		The replication slots of tables captured from the WAL, and the SQL
 *		functions around them: dp_capture_sync, dp_capture_resync and the
 *		clean-up hooks.
 *
 * A slot keeps WAL (and catalog rows) from being removed until it is
 * confirmed, so every way a table stops being captured drops it: dp_detach,
 * DROP TABLE (sql_drop event trigger) and DROP EXTENSION dpkmeans
 * (ddl_command_start event trigger).  Slots are not transactional, so these
 * drops happen when the transaction commits, and a slot created by
 * dp_attach is ephemeral (dropped on error or abort) until its transaction
 * commits.  A slot left by a crash between the two is dropped by the next
 * dp_attach of the same table; doc/user-guide.md says how to monitor them.
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogutils.h"
#include "catalog/pg_class.h"
#include "commands/event_trigger.h"
#include "commands/tablecmds.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "replication/logical.h"
#include "replication/message.h"
#include "replication/slot.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_lsn.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "capture.h"
#include "store.h"
#include "wal_capture.h"

/* A slot to drop at commit, with the subtransaction that asked for it. */
typedef struct PendingDrop
{
	char		name[NAMEDATALEN];
	SubTransactionId subid;
} PendingDrop;

static List *pending_drops = NIL;	/* in TopMemoryContext */
static bool slot_pending = false;	/* MyReplicationSlot is ours, ephemeral */
static SubTransactionId slot_subid = InvalidSubTransactionId;
static bool callbacks_registered = false;

/* The slot name of a table (see wal_capture.h). */
void
dpk_wal_slot_name(Oid relid, char *name)
{
	snprintf(name, NAMEDATALEN, "dpkmeans_%u_%u", MyDatabaseId, relid);
}

/* Drop the pending slots, after the commit: never an ERROR here. */
static void
drop_pending(void)
{
	ListCell   *lc;
	MemoryContext ctx = CurrentMemoryContext;

	foreach(lc, pending_drops)
	{
		PendingDrop *p = lfirst(lc);

		PG_TRY();
		{
			ReplicationSlot *slot = SearchNamedReplicationSlot(p->name, true);

			/*
			 * A copy restored into another database of this cluster names
			 * the original's slot: that one is not this table's to drop.
			 */
			if (slot != NULL && slot->data.database == MyDatabaseId)
				ReplicationSlotDrop(p->name, true);
		}
		PG_CATCH();
		{
			ErrorData  *e;

			MemoryContextSwitchTo(ctx);
			e = CopyErrorData();
			FlushErrorState();
			ereport(WARNING,
					(errmsg("could not drop replication slot \"%s\" of dpkmeans: %s",
							p->name, e->message),
					 errhint("Drop it with pg_drop_replication_slot('%s'): until then it keeps WAL from being removed.",
							 p->name)));
			FreeErrorData(e);
		}
		PG_END_TRY();
	}
	list_free_deep(pending_drops);
	pending_drops = NIL;
}

/*
 * End of a transaction: a slot created by dp_attach becomes persistent with
 * the commit (just before it) or goes with the abort; slots of detached or
 * dropped tables are dropped once the commit is done.
 */
static void
wal_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
			if (slot_pending && MyReplicationSlot != NULL)
			{
				ReplicationSlotPersist();
				ReplicationSlotRelease();
			}
			slot_pending = false;
			break;
		case XACT_EVENT_PRE_PREPARE:
			if (slot_pending || pending_drops != NIL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that attached or detached a table captured from the WAL"),
						 errhint("Commit it directly: replication slots are not transactional.")));
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
			if (pending_drops != NIL)
				drop_pending();
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			/* an ephemeral slot is dropped by its release */
			if (slot_pending && MyReplicationSlot != NULL)
				ReplicationSlotRelease();
			slot_pending = false;
			list_free_deep(pending_drops);
			pending_drops = NIL;
			break;
		default:
			break;
	}
}

/* Subtransactions: what an aborted one asked for is forgotten. */
static void
wal_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					 SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		if (slot_pending && slot_subid == mySubid)
		{
			if (MyReplicationSlot != NULL)
				ReplicationSlotRelease();
			slot_pending = false;
		}
		foreach(lc, pending_drops)
		{
			PendingDrop *p = lfirst(lc);

			if (p->subid == mySubid)
			{
				pending_drops = foreach_delete_current(pending_drops, lc);
				pfree(p);
			}
		}
	}
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		if (slot_pending && slot_subid == mySubid)
			slot_subid = parentSubid;
		foreach(lc, pending_drops)
		{
			PendingDrop *p = lfirst(lc);

			if (p->subid == mySubid)
				p->subid = parentSubid;
		}
	}
}

/* Register the transaction callbacks once per backend. */
static void
register_callbacks(void)
{
	if (!callbacks_registered)
	{
		RegisterXactCallback(wal_xact_callback, NULL);
		RegisterSubXactCallback(wal_subxact_callback, NULL);
		callbacks_registered = true;
	}
}

/* Whether slot is relid's own, the name it would get here (see wal_capture.h). */
bool
dpk_wal_slot_is_tables(Oid relid, const char *slot)
{
	char		name[NAMEDATALEN];

	dpk_wal_slot_name(relid, name);
	return strcmp(name, slot) == 0;
}

/* Drop relid's slot when the transaction commits (see wal_capture.h). */
void
dpk_wal_drop_at_commit(Oid relid, const char *slot)
{
	PendingDrop *p;
	MemoryContext old;

	if (!dpk_wal_slot_is_tables(relid, slot))
		return;
	p = MemoryContextAlloc(TopMemoryContext, sizeof(PendingDrop));
	register_callbacks();
	strlcpy(p->name, slot, sizeof(p->name));
	p->subid = GetCurrentSubTransactionId();
	old = MemoryContextSwitchTo(TopMemoryContext);
	pending_drops = lappend(pending_drops, p);
	MemoryContextSwitchTo(old);
}

/*
 * ERROR unless `call` may create a replication slot here: only before its
 * transaction writes, and one slot per transaction.
 */
static void
check_slot_creatable(const char *call)
{
	if (TransactionIdIsValid(GetTopTransactionIdIfAny()))
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("%s must run in a transaction that has not written yet", call),
				 errdetail("Its replication slot can only be created before the transaction writes."),
				 errhint("Call %s in its own transaction.", call)));
	if (MyReplicationSlot != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this session already holds replication slot \"%s\"",
						NameStr(MyReplicationSlot->data.name)),
				 errhint("Create one slot per transaction: commit the one holding it first.")));
}

/* ERROR unless relid can be captured from the WAL (see wal_capture.h). */
void
dpk_wal_check_attach(Oid relid)
{
	if (wal_level < WAL_LEVEL_LOGICAL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("capture => 'wal' needs wal_level = logical"),
				 errdetail("This server runs with wal_level = %s: the WAL does not hold the rows logical decoding reads.",
						   wal_level == WAL_LEVEL_MINIMAL ? "minimal" : "replica"),
				 errhint("Set wal_level = logical (and max_replication_slots > 0) and restart the server, or attach with capture => 'trigger'.")));
	if (max_replication_slots == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("capture => 'wal' needs a replication slot, and max_replication_slots = 0"),
				 errhint("Raise max_replication_slots (one slot per table captured from the WAL) and restart the server.")));
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("capture => 'wal' cannot be set up on a standby"),
				 errhint("Attach the table on the primary.")));
	if (get_rel_relkind(relid) != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("capture => 'wal' covers ordinary tables; \"%s\" is partitioned",
						get_rel_name(relid)),
				 errhint("Attach a partitioned table with capture => 'trigger' (the default).")));
	if (get_rel_persistence(relid) != RELPERSISTENCE_PERMANENT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("capture => 'wal' needs a logged table; \"%s\" is unlogged or temporary",
						get_rel_name(relid)),
				 errdetail("Its writes are not in the WAL."),
				 errhint("Attach it with capture => 'trigger' (the default).")));
	check_slot_creatable("dp_attach(capture => 'wal')");
}

/* Create the table's slot, ephemeral until commit (see wal_capture.h). */
void
dpk_wal_create_slot(Oid relid)
{
	char		name[NAMEDATALEN];
	LogicalDecodingContext *ctx;

	dpk_wal_slot_name(relid, name);
	CheckLogicalDecodingRequirements();
	register_callbacks();
	/* the caller checked the table is not attached: a crash's leftover */
	if (SearchNamedReplicationSlot(name, true) != NULL)
		ReplicationSlotDrop(name, true);
	ReplicationSlotCreate(name, true, RS_EPHEMERAL, false);
	slot_pending = true;
	slot_subid = GetCurrentSubTransactionId();
	/* waits for the transactions running now to end: a consistent start */
	ctx = CreateInitDecodingContext("dpkmeans", NIL, false, InvalidXLogRecPtr,
									XL_ROUTINE(.page_read = read_local_xlog_page,
											   .segment_open = wal_segment_open,
											   .segment_close = wal_segment_close),
									NULL, NULL, NULL);
	DecodingContextFindStartpoint(ctx);
	FreeDecodingContext(ctx);
}

/* Set the replica identity of relid (see wal_capture.h). */
char
dpk_wal_set_identity(Oid relid, char identity, Oid index, Oid *prev_index)
{
	Relation	rel = relation_open(relid, NoLock);
	char		prev = rel->rd_rel->relreplident;
	ReplicaIdentityStmt *ri = makeNode(ReplicaIdentityStmt);
	AlterTableCmd *cmd = makeNode(AlterTableCmd);

	*prev_index = prev == REPLICA_IDENTITY_INDEX ? RelationGetReplicaIndex(rel) : InvalidOid;
	relation_close(rel, NoLock);
	/* an index that is gone since: the default identity */
	if (identity == REPLICA_IDENTITY_INDEX &&
		(!OidIsValid(index) || get_rel_name(index) == NULL))
		identity = REPLICA_IDENTITY_DEFAULT;
	ri->identity_type = identity;
	ri->name = identity == REPLICA_IDENTITY_INDEX ? get_rel_name(index) : NULL;
	cmd->subtype = AT_ReplicaIdentity;
	cmd->def = (Node *) ri;
	AlterTableInternal(relid, list_make1(cmd), false);
	CommandCounterIncrement();
	return prev;
}

/*
 * dp_capture_sync(tbl): owner only; count the committed changes of a table
 * captured from the WAL into its pending deltas, and return the WAL position
 * they are counted to (releases and dp_verify do the same first).
 */
PG_FUNCTION_INFO_V1(dp_capture_sync);
Datum
dp_capture_sync(PG_FUNCTION_ARGS)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);
	DpkOwnerSwitch sw;
	DpkTracked	tr;
	XLogRecPtr	lsn = InvalidXLogRecPtr;

	dpk_pg_check_table_owner(relid, "count its changes");
	dpk_pg_refuse_in_recovery("dp_capture_sync");
	dpk_store_begin(&sw);
	if (!dpk_store_read_tracked(relid, true, CurrentMemoryContext, &tr))
		dpk_store_not_attached(relid);
	if (!dpk_wal_sync(&tr, &lsn))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("table \"%s\" is captured by triggers", get_rel_name(relid)),
				 errdetail("Its writers count their own changes; there is nothing to sync."),
				 errhint("dp_capture_sync is for tables attached with capture => 'wal'.")));
	dpk_store_end(&sw);
	PG_RETURN_LSN(lsn);
}

/*
 * dp_capture_resync(tbl): owner only; a table captured from the WAL whose
 * slot is gone (a promoted standby: PostgreSQL 15 does not copy slots to
 * standbys; a restored copy; a dropped slot), was invalidated or was moved
 * past the changes counted so far gets a new slot, and the difference
 * between a recount of the table and its stored state plus pending deltas
 * becomes one pending delta, folded by the next release like any sync's.  Each row changed
 * since the last sync enters that delta once, with the sign a sync would
 * have given it (its net change), so the tree's sensitivities hold
 * (doc/privacy.md, "Capture from the WAL").  Returns the new counted
 * position.
 */
PG_FUNCTION_INFO_V1(dp_capture_resync);
Datum
dp_capture_resync(PG_FUNCTION_ARGS)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);
	MemoryContext callerctx = CurrentMemoryContext;
	DpkOwnerSwitch sw;
	DpkTracked	tr;
	DpkWalCapture wc;
	DpkLiveConfig cfg;
	DpkCellMap	recount,
				delta;
	ReplicationSlot *slot;
	Relation	rel;
	XLogRecPtr	lsn;
	char		name[NAMEDATALEN];
	bool		wal;
	size_t		pos = 0;
	uint64_t	cell;
	const int64_t *v;

	dpk_pg_check_table_owner(relid, "count its changes anew");
	dpk_pg_refuse_in_recovery("dp_capture_resync");
	dpk_store_begin(&sw);
	if (!dpk_store_is_attached(relid))
		dpk_store_not_attached(relid);
	wal = dpk_store_wal_read(relid, &wc);
	dpk_store_end(&sw);
	if (!wal)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("table \"%s\" is captured by triggers", get_rel_name(relid)),
				 errdetail("Its writers count their own changes; it has no slot to replace."),
				 errhint("dp_capture_resync is for tables attached with capture => 'wal'.")));
	/* a restored copy names the original's slot: never this table's */
	slot = dpk_wal_slot_is_tables(relid, wc.slot) ? SearchNamedReplicationSlot(wc.slot, true) : NULL;
	if (slot != NULL && !XLogRecPtrIsInvalid(slot->data.restart_lsn) &&
		slot->data.confirmed_flush <= wc.lsn)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("replication slot \"%s\" of table \"%s\" still holds every change not counted yet",
						wc.slot, get_rel_name(relid)),
				 errhint("Run dp_capture_sync('%s') to count them.", get_rel_name(relid))));
	check_slot_creatable("dp_capture_resync");

	/*
	 * As dp_attach: the slot before the lock, then no writer in progress.
	 * A moved or invalidated slot (of the same name) is replaced at once.
	 */
	dpk_wal_slot_name(relid, name);
	dpk_wal_create_slot(relid);
	rel = table_open(relid, ShareRowExclusiveLock);
	lsn = LogLogicalMessage("dpkmeans", "", 0, false);

	dpk_store_begin(&sw);
	if (!dpk_store_read_tracked(relid, true, callerctx, &tr))
		dpk_store_not_attached(relid);
	{
		MemoryContext old = MemoryContextSwitchTo(callerctx);

		dpk_store_add_deltas(relid, &tr.state);
		MemoryContextSwitchTo(old);
	}
	dpk_store_end(&sw);

	PushActiveSnapshot(GetLatestSnapshot());
	dpk_cellmap_init(&recount, tr.d);
	dpk_partition_scan(&tr, relid, &recount, true);
	PopActiveSnapshot();
	dpk_cellmap_init(&delta, tr.d);
	dpk_cellmap_merge(&delta, &recount, +1);
	dpk_cellmap_merge(&delta, &tr.state, -1);
	if (tr.insert_only)
		while (dpk_cellmap_next(&delta, &pos, &cell, &v))
			if (v[0] < 0)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("table \"%s\" is insert_only but holds fewer rows than counted",
								get_rel_name(relid)),
						 errdetail("Rows were deleted or moved while its changes were not captured."),
						 errhint("Detach and re-attach the table to count it anew.")));

	dpk_tracked_config(&tr, &cfg);
	dpk_store_begin(&sw);
	/* padded by the rows it may count, like every delta */
	dpk_store_append_delta(relid, &delta,
						   dpk_pad_cells(&cfg, dpk_state_rows(&cfg, &recount) +
										 dpk_state_rows(&cfg, &tr.state)));
	dpk_store_wal_reset(relid, name, lsn);
	dpk_store_end(&sw);
	table_close(rel, NoLock);
	PG_RETURN_LSN(lsn);
}

/*
 * dpkmeans_internal.wal_forget(relid): a table captured from the WAL was
 * dropped (sql_drop event trigger): forget it and drop its slot at commit.
 */
PG_FUNCTION_INFO_V1(dpk_wal_forget);
Datum
dpk_wal_forget(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	DpkOwnerSwitch sw;
	DpkWalCapture wc;

	dpk_store_begin(&sw);
	if (dpk_store_wal_read(relid, &wc))
	{
		dpk_wal_drop_at_commit(relid, wc.slot);
		dpk_store_wal_delete(relid);
	}
	dpk_store_end(&sw);
	PG_RETURN_VOID();
}

/*
 * Give each table of relids its replica identity from before dp_attach
 * (identities: their DpkWalCapture, in the same order), as the caller,
 * outside the store.  Inside a DROP EXTENSION's event trigger the ALTER
 * must not report itself to the event trigger state, which is collecting
 * no ALTER TABLE command.
 */
static void
restore_identities(List *relids, List *identities)
{
	EventTriggerInhibitCommandCollection();
	PG_TRY();
	{
		ListCell   *lr,
				   *li;

		forboth(lr, relids, li, identities)
		{
			DpkWalCapture *wc = lfirst(li);
			Oid			unused;

			LockRelationOid(lfirst_oid(lr), ShareRowExclusiveLock);
			if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(lfirst_oid(lr))))
				continue;
			(void) dpk_wal_set_identity(lfirst_oid(lr), wc->prev_identity, wc->prev_index,
										&unused);
		}
	}
	PG_FINALLY();
	{
		EventTriggerUndoInhibitCommandCollection();
	}
	PG_END_TRY();
}

/*
 * dpkmeans_internal.wal_drop_extension(): ddl_command_start of DROP
 * EXTENSION: when dpkmeans goes, every slot of its tables goes at commit and
 * every such table gets back the replica identity it had before dp_attach,
 * as dp_detach gives it.  Both roll back with a DROP that fails (no CASCADE).
 */
PG_FUNCTION_INFO_V1(dpk_wal_drop_extension);
Datum
dpk_wal_drop_extension(PG_FUNCTION_ARGS)
{
	DropStmt   *stmt;
	ListCell   *lc;
	bool		ours = false;
	MemoryContext caller = CurrentMemoryContext;
	List	   *relids = NIL;
	List	   *identities = NIL;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("dpkmeans_internal.wal_drop_extension must be called as an event trigger")));
	stmt = (DropStmt *) ((EventTriggerData *) fcinfo->context)->parsetree;
	if (!IsA(stmt, DropStmt) || stmt->removeType != OBJECT_EXTENSION)
		PG_RETURN_VOID();
	foreach(lc, stmt->objects)
		if (strcmp(strVal(lfirst(lc)), "dpkmeans") == 0)
			ours = true;
	if (!ours)
		PG_RETURN_VOID();
	{
		DpkOwnerSwitch sw;

		dpk_store_begin(&sw);
		foreach(lc, dpk_store_wal_relids())
		{
			DpkWalCapture wc;
			MemoryContext spi;

			if (!dpk_store_wal_read(lfirst_oid(lc), &wc))
				continue;
			dpk_wal_drop_at_commit(lfirst_oid(lc), wc.slot);
			spi = MemoryContextSwitchTo(caller);
			relids = lappend_oid(relids, lfirst_oid(lc));
			identities = lappend(identities, palloc(sizeof(DpkWalCapture)));
			memcpy(llast(identities), &wc, sizeof(DpkWalCapture));
			MemoryContextSwitchTo(spi);
		}
		dpk_store_end(&sw);
	}

	restore_identities(relids, identities);
	PG_RETURN_VOID();
}
