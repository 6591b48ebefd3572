/*
 * partition.c
 *		Partitioned tables: one attached root, capture on every table of its
 *		partition tree, and the partition DDL that adds or removes rows.
 *
 * A statement trigger fires only on the table a statement names, and the
 * transition tables of a partitioned table's statement trigger hold the rows
 * of every partition the statement touched.  So the capture triggers go on
 * the root and on every partition at every depth: each writing statement
 * names exactly one table of the tree and is counted once, into the root's
 * counters.  TRUNCATE fires the truncate triggers of every table it empties,
 * so each leaf counts its own rows before they go and partitioned tables,
 * which hold none, have no truncate trigger.
 *
 * DDL that changes which rows belong to the tree is counted like a write:
 * ATTACH PARTITION adds the partition's rows; DETACH PARTITION (also
 * CONCURRENTLY, at its end) and DROP TABLE of a partition remove them, and
 * tables attached in insert_only mode refuse these two.  CREATE TABLE ...
 * PARTITION OF adds an empty partition: it only gets the triggers.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "commands/event_trigger.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "capture.h"
#include "store.h"

/*
 * The root of relid's partition tree (relid itself when not a partition).
 * A partition whose DETACH CONCURRENTLY has not finished still belongs to
 * its parent's counters: its rows leave them when the detach ends.
 */
static Oid
tree_root(Oid relid)
{
	while (get_rel_relispartition(relid))
		relid = get_partition_parent(relid, true);
	return relid;
}

/* The table whose counters a write into rel feeds (see capture.h). */
Oid
dpk_capture_root(Relation rel)
{
	if (!rel->rd_rel->relispartition)
		return RelationGetRelid(rel);
	return tree_root(RelationGetRelid(rel));
}

/* Whether relid is attached (the store is closed around the check). */
static bool
is_attached(Oid relid)
{
	DpkOwnerSwitch sw;
	bool		attached;

	dpk_store_begin(&sw);
	attached = dpk_store_is_attached(relid);
	dpk_store_end(&sw);
	return attached;
}

/* The attached root whose capture covers relid (see capture.h). */
Oid
dpk_attached_root(Oid relid)
{
	Oid			root;

	if (!OidIsValid(relid))
		return InvalidOid;
	root = tree_root(relid);
	return is_attached(root) ? root : InvalidOid;
}

/*
 * Tables of the tree under relid, relid first, each locked (see capture.h).
 * With a partition whose DETACH CONCURRENTLY has not finished (cancelled,
 * or waiting): it still belongs to the counters (tree_root), so it is in
 * the recount, gets the capture and loses it at dp_detach.
 */
List *
dpk_partition_relids(Oid relid, LOCKMODE lockmode)
{
	List	   *tree;
	ListCell   *lc;

	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
	{
		if (lockmode != NoLock)
			LockRelationOid(relid, lockmode);
		return list_make1_oid(relid);
	}
	/* as find_all_inheritors, which leaves out detach-pending partitions */
	tree = list_make1_oid(relid);
	foreach(lc, tree)
	{
		Oid			parent = lfirst_oid(lc);

		if (get_rel_relkind(parent) == RELKIND_PARTITIONED_TABLE)
			tree = list_concat(tree, find_inheritance_children_extended(parent, false, lockmode,
																		NULL, NULL));
	}
	return tree;
}

/* ERROR unless every table of the tree under relid can be captured. */
void
dpk_partition_check_tree(Oid relid)
{
	ListCell   *lc;

	foreach(lc, dpk_partition_relids(relid, NoLock))
	{
		Oid			part = lfirst_oid(lc);

		if (get_rel_relkind(part) == RELKIND_FOREIGN_TABLE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("partition \"%s\" is a foreign table", get_rel_name(part)),
					 errdetail("dpkmeans counts rows with triggers on the tables that store them; a foreign table stores its rows elsewhere."),
					 errhint("Attach the tables that hold the rows, on their own servers.")));
	}
	dpk_refuse_unlogged(dpk_partition_relids(relid, NoLock));
	dpk_check_no_detaching(dpk_partition_relids(relid, NoLock));
}

/* ERROR if a table of tree is a partition being detached (see capture.h). */
void
dpk_check_no_detaching(List *tree)
{
	ListCell   *lc;

	foreach(lc, tree)
	{
		Oid			part = lfirst_oid(lc);

		if (get_rel_relispartition(part) && PartitionHasPendingDetach(part))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("partition \"%s\" is being detached", get_rel_name(part)),
					 errdetail("Its DETACH PARTITION ... CONCURRENTLY has not finished, and the server no longer gives it the row triggers of its parent."),
					 errhint("Run ALTER TABLE %s DETACH PARTITION %s FINALIZE first.",
							 get_rel_name(get_partition_parent(part, true)), get_rel_name(part))));
	}
}

/*
 * Count every row stored in the tree under relid into map with the shape of
 * tr (columns found by name in each partition).  The caller holds locks that
 * keep writers out.
 */
void
dpk_partition_scan(const DpkTracked *tr, Oid relid, DpkCellMap *map, bool progress)
{
	dpk_partition_scan_clamped(tr, relid, map, progress, NULL, false);
}

/* The same, counting the points outside the box (see capture.h). */
void
dpk_partition_scan_clamped(const DpkTracked *tr, Oid relid, DpkCellMap *map, bool progress,
						   DpkClampCount *clamp, bool parallel)
{
	ListCell   *lc;
	bool		first = true;
	DpkShape	shape;

	foreach(lc, dpk_partition_relids(relid, NoLock))
	{
		Relation	rel;

		if (get_rel_relkind(lfirst_oid(lc)) != RELKIND_RELATION)
			continue;
		rel = table_open(lfirst_oid(lc), NoLock);
		if (first)
		{
			AttrNumber *attnums = dpk_resolve_columns(rel, tr->colnames, tr->ncols);

			dpk_shape_init(&shape, rel, tr->d, tr->level, attnums, tr->ncols,
						   tr->lower, tr->upper);
			dpk_shape_set_tracked_lift(&shape, tr);
			/* counted as the WAL capture counts (src/capture/wal_capture.c) */
			shape.lenient = tr->capture_wal;
			shape.clamp = clamp;
			shape.parallel = parallel;
			first = false;
		}
		else
			dpk_shape_bind(&shape, rel, tr->colnames);
		dpk_scan_table(rel, &shape, map, progress);
		table_close(rel, NoLock);
	}
}

/*
 * Append to root's deltas the rows stored under sub with the given sign
 * (+1: they joined the tree, -1: they leave it), padded like any change of
 * that many rows.  Reads under a fresh snapshot: the caller's locks keep
 * writers out, and rows committed before them must all be seen.
 */
void
dpk_partition_count(Oid root, Oid sub, int sign)
{
	DpkOwnerSwitch sw;
	DpkTracked	tr;
	DpkCellMap	rows,
				change;
	DpkLiveConfig cfg;
	MemoryContext callerctx = CurrentMemoryContext;

	dpk_store_begin(&sw);
	if (!dpk_store_read_config(root, callerctx, &tr))
		dpk_store_not_attached(root);
	dpk_store_end(&sw);
	dpk_tracked_config(&tr, &cfg);

	PushActiveSnapshot(GetLatestSnapshot());
	dpk_cellmap_init(&rows, tr.d);
	dpk_partition_scan(&tr, sub, &rows, false);
	PopActiveSnapshot();
	dpk_cellmap_init(&change, tr.d);
	dpk_cellmap_merge(&change, &rows, sign);

	dpk_store_begin(&sw);
	dpk_store_append_delta(root, &change, dpk_pad_cells(&cfg, dpk_state_rows(&cfg, &rows)));
	dpk_store_end(&sw);
}

/* ERROR: DDL that would delete rows of a table attached in insert_only mode. */
static void
refuse_insert_only(Oid root, Oid part, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot %s \"%s\": table \"%s\" is attached to dpkmeans in insert_only mode",
					what, get_rel_name(part), get_rel_name(root)),
			 errdetail("Its rows would be deleted from the table's counters, whose privacy accounting covers insertions only."),
			 errhint("Run dp_detach on the table and dp_attach it again in insert_delete mode to allow deletions.")));
}

/* Whether tr was attached in insert_only mode. */
static bool
root_insert_only(Oid root)
{
	DpkOwnerSwitch sw;
	DpkTracked	tr;
	bool		insert_only;

	dpk_store_begin(&sw);
	if (!dpk_store_read_config(root, CurrentMemoryContext, &tr))
		dpk_store_not_attached(root);
	insert_only = tr.insert_only;
	dpk_store_end(&sw);
	return insert_only;
}

/*
 * Partitions whose rows dpk_partition_before_drop counted, as "schema.name",
 * for the sql_drop check of the same transaction (identified by its local
 * transaction id): a partition dropped without being counted (a DROP
 * SCHEMA ... CASCADE, say) is refused there.
 */
static List *counted_drops = NIL;
static LocalTransactionId counted_drops_lxid = InvalidLocalTransactionId;

/* Remember that part's rows were counted before its DROP. */
static void
note_counted_drop(Oid part)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	if (counted_drops_lxid != MyProc->lxid)
	{
		list_free_deep(counted_drops);
		counted_drops = NIL;
		counted_drops_lxid = MyProc->lxid;
	}
	counted_drops = lappend(counted_drops,
							psprintf("%s.%s", get_namespace_name(get_rel_namespace(part)),
									 get_rel_name(part)));
	MemoryContextSwitchTo(old);
}

/*
 * dpkmeans_internal.partition_drop_counted(schema, name): whether a table
 * dropped in this transaction had its rows counted first (see above), or
 * still exists (only a trigger of it was dropped).
 */
PG_FUNCTION_INFO_V1(dpk_partition_drop_counted);
Datum
dpk_partition_drop_counted(PG_FUNCTION_ARGS)
{
	char	   *name = psprintf("%s.%s", text_to_cstring(PG_GETARG_TEXT_PP(0)),
								text_to_cstring(PG_GETARG_TEXT_PP(1)));
	ListCell   *lc;

	/* a trigger dropped alone (its table stays): no rows leave */
	if (OidIsValid(RangeVarGetRelid(makeRangeVar(text_to_cstring(PG_GETARG_TEXT_PP(0)),
												 text_to_cstring(PG_GETARG_TEXT_PP(1)), -1),
									NoLock, true)))
		PG_RETURN_BOOL(true);
	if (counted_drops_lxid != MyProc->lxid)
		PG_RETURN_BOOL(false);
	foreach(lc, counted_drops)
		if (strcmp((char *) lfirst(lc), name) == 0)
			PG_RETURN_BOOL(true);
	PG_RETURN_BOOL(false);
}

/*
 * ddl_command_start of DROP TABLE: a dropped partition of an attached tree
 * takes its rows with it, so they are counted as deletions now, while they
 * can still be read (a failed DROP rolls the delta back with it).  Each
 * leaf is counted once even when several names cover it.
 */
void
dpk_partition_before_drop(DropStmt *stmt)
{
	List	   *counted = NIL;
	List	   *dropped = NIL;
	ListCell   *lc;

	foreach(lc, stmt->objects)
	{
		RangeVar   *rv = makeRangeVarFromNameList((List *) lfirst(lc));
		Oid			relid = RangeVarGetRelid(rv, NoLock, true);

		if (OidIsValid(relid))
			dropped = lappend_oid(dropped, relid);
	}
	foreach(lc, dropped)
	{
		Oid			part = lfirst_oid(lc);
		Oid			root;
		ListCell   *lc2;

		root = dpk_attached_root(part);
		/*
		 * Not in an attached tree: no rows to count.  Noted all the same, so
		 * that a dpkmeans trigger left on it (a table restored without its
		 * dpkmeans state) goes with it.
		 */
		if (!OidIsValid(root))
		{
			note_counted_drop(part);
			continue;
		}
		if (!get_rel_relispartition(part) || list_member_oid(dropped, root))
			continue;
		if (root_insert_only(root))
			refuse_insert_only(root, part, "drop partition");
		foreach(lc2, dpk_partition_relids(part, AccessExclusiveLock))
		{
			Oid			leaf = lfirst_oid(lc2);

			if (list_member_oid(counted, leaf))
				continue;
			counted = lappend_oid(counted, leaf);
			note_counted_drop(leaf);
			if (get_rel_relkind(leaf) == RELKIND_RELATION)
				dpk_partition_count(root, leaf, -1);
		}
	}
}

/*
 * ddl_command_start of ALTER TABLE: checks of ATTACH and DETACH PARTITION
 * against the tree of stmt's table (the counting happens at the end).
 */
void
dpk_partition_check_alter(AlterTableStmt *stmt)
{
	Oid			parent,
				root;
	ListCell   *lc;

	if (stmt->objtype != OBJECT_TABLE)
		return;
	parent = RangeVarGetRelid(stmt->relation, NoLock, true);
	root = dpk_attached_root(parent);
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);
		Oid			part;

		if (cmd->subtype != AT_AttachPartition && cmd->subtype != AT_DetachPartition &&
			cmd->subtype != AT_DetachPartitionFinalize)
			continue;
		part = RangeVarGetRelid(((PartitionCmd *) cmd->def)->name, NoLock, true);
		if (!OidIsValid(part))
			continue;
		if (cmd->subtype == AT_AttachPartition && is_attached(part))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot attach \"%s\" as a partition: it is attached to dpkmeans",
							get_rel_name(part)),
					 errdetail("Writes through its new parent would bypass its capture."),
					 errhint("Run dp_detach on it first, and attach the root of the partitioned table instead.")));
		if (!OidIsValid(root))
			continue;
		if (cmd->subtype == AT_AttachPartition)
			dpk_partition_check_tree(part);
		else if (root_insert_only(root))
			refuse_insert_only(root, part, "detach partition");
	}
}

/*
 * ddl_command_start of CREATE FOREIGN TABLE ... PARTITION OF an attached
 * tree: refused (a foreign partition's rows are written where no trigger of
 * this server sees them).
 */
void
dpk_partition_check_create_foreign(CreateForeignTableStmt *stmt)
{
	Oid			parent;

	if (stmt->base.partbound == NULL || stmt->base.inhRelations == NIL)
		return;
	parent = RangeVarGetRelid(linitial_node(RangeVar, stmt->base.inhRelations), NoLock, true);
	if (OidIsValid(dpk_attached_root(parent)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot create foreign table \"%s\" as a partition of \"%s\"",
						stmt->base.relation->relname, get_rel_name(parent)),
				 errdetail("Its table is attached to dpkmeans, which counts rows with triggers on the tables that store them."),
				 errhint("Partition it with ordinary tables.")));
}

/* Capture on a table that joined root's tree (and on its own partitions). */
static void
join_tree(Oid root, Oid part, bool count_rows)
{
	DpkOwnerSwitch sw;
	DpkTracked	tr;
	ListCell   *lc;

	dpk_partition_check_tree(part);
	dpk_store_begin(&sw);
	if (!dpk_store_read_config(root, CurrentMemoryContext, &tr))
		dpk_store_not_attached(root);
	foreach(lc, dpk_partition_relids(part, ShareRowExclusiveLock))
		dpk_install_capture(&tr, lfirst_oid(lc));
	dpk_store_end(&sw);
	if (count_rows)
		dpk_partition_count(root, part, +1);
}

/* Capture removed from a table that left root's tree, with its rows. */
static void
leave_tree(Oid root, Oid part)
{
	ListCell   *lc;
	DpkOwnerSwitch sw;

	/* writers are kept out until the end of the transaction */
	(void) dpk_partition_relids(part, ShareRowExclusiveLock);
	dpk_partition_count(root, part, -1);
	dpk_store_begin(&sw);
	foreach(lc, dpk_partition_relids(part, NoLock))
		dpk_drop_capture(lfirst_oid(lc));
	dpk_store_end(&sw);
}

/*
 * dpkmeans_internal.partition_ddl_end(): the ddl_command_end event trigger
 * for CREATE TABLE and ALTER TABLE (see the file header).
 */
PG_FUNCTION_INFO_V1(dpk_partition_ddl_end);
Datum
dpk_partition_ddl_end(PG_FUNCTION_ARGS)
{
	Node	   *tree;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("dpkmeans_internal.partition_ddl_end must be called as an event trigger")));
	tree = ((EventTriggerData *) fcinfo->context)->parsetree;
	if (IsA(tree, CreateStmt) && ((CreateStmt *) tree)->partbound != NULL)
	{
		Oid			part = RangeVarGetRelid(((CreateStmt *) tree)->relation, NoLock, true);
		Oid			root = OidIsValid(part) ? dpk_attached_root(part) : InvalidOid;

		if (OidIsValid(root) && root != part)
			join_tree(root, part, false);
	}
	else if (IsA(tree, AlterTableStmt) && ((AlterTableStmt *) tree)->objtype == OBJECT_TABLE)
	{
		AlterTableStmt *stmt = (AlterTableStmt *) tree;
		Oid			parent = RangeVarGetRelid(stmt->relation, NoLock, true);
		Oid			root = dpk_attached_root(parent);
		ListCell   *lc;

		if (!OidIsValid(root))
			PG_RETURN_VOID();
		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);
			Oid			part;

			if (cmd->subtype != AT_AttachPartition && cmd->subtype != AT_DetachPartition &&
				cmd->subtype != AT_DetachPartitionFinalize)
				continue;
			part = RangeVarGetRelid(((PartitionCmd *) cmd->def)->name, NoLock, false);
			if (cmd->subtype == AT_AttachPartition)
				join_tree(root, part, true);
			else
				leave_tree(root, part);
		}
	}
	PG_RETURN_VOID();
}

/* Whether the tree under relid holds a foreign table (see capture.h). */
bool
dpk_shard_tree_has_foreign(Oid relid)
{
	ListCell   *lc;

	foreach(lc, dpk_partition_relids(relid, NoLock))
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			return true;
	return false;
}
