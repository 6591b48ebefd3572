/*
 * capture_install.c
 *		The capture triggers of an attached table: the statement triggers that
 *		count its writes (or refuse them, insert_only), the row trigger that
 *		partitions clone, their arguments (the table's public configuration),
 *		and the functions the upgrade scripts call to add the ones a table
 *		attached by an older version lacks.
 *
 * Triggers are made and dropped as the extension's owner; they fire ALWAYS
 * (also for a replica's apply worker) except the row trigger, which fires
 * on replicas only.
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xlog.h"
#include "replication/message.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_class.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "live_config.h"
#include "capture.h"
#include "dpk_mem.h"
#include "live_regions.h"
#include "store.h"
#include "tree_estimator.h"
#include "wal_capture.h"

/* Names of every trigger dp_attach may create (dp_detach drops them). */
static const char *const trigger_names[] = {
	"dpkmeans_capture_insert", "dpkmeans_capture_update", "dpkmeans_capture_delete",
	"dpkmeans_capture_truncate", "dpkmeans_refuse_delete", "dpkmeans_refuse_update",
	"dpkmeans_refuse_truncate", "dpkmeans_capture_routed", "dpkmeans_capture_flush"
};

/* The row trigger counting what logical replication applies (trigger.c). */
#define ROW_TRIGGER_NAME "dpkmeans_capture_row"

/* The row triggers refusing moved rows and applied deletions in insert_only tables (0.6). */
#define MOVED_TRIGGER_NAME "dpkmeans_refuse_moved"
#define APPLIED_DELETE_TRIGGER_NAME "dpkmeans_refuse_applied_delete"

/* The row triggers dp_attach may create, after trigger_names (dp_detach drops them). */
static const char *const row_trigger_names[] = {
	ROW_TRIGGER_NAME, MOVED_TRIGGER_NAME, APPLIED_DELETE_TRIGGER_NAME
};

/* Create one trigger on relid without any SQL text. */
static void
create_trigger_at(Oid relid, const char *name, const char *func, bool row,
				  int16 timing, int16 events, bool old_table, bool new_table,
				  List *columns, List *args, Node *when)
{
	CreateTrigStmt *st = makeNode(CreateTrigStmt);

	st->replace = false;
	st->isconstraint = false;
	st->trigname = pstrdup(name);
	st->relation = makeRangeVar(get_namespace_name(get_rel_namespace(relid)),
								get_rel_name(relid), -1);
	st->funcname = list_make2(makeString("dpkmeans_internal"), makeString(pstrdup(func)));
	st->args = args;
	st->row = row;
	st->timing = timing;
	st->events = events;
	st->columns = columns;
	st->whenClause = when;
	st->transitionRels = NIL;
	if (old_table)
	{
		TriggerTransition *tt = makeNode(TriggerTransition);

		tt->name = "dpkmeans_old";
		tt->isNew = false;
		tt->isTable = true;
		st->transitionRels = lappend(st->transitionRels, tt);
	}
	if (new_table)
	{
		TriggerTransition *tt = makeNode(TriggerTransition);

		tt->name = "dpkmeans_new";
		tt->isNew = true;
		tt->isTable = true;
		st->transitionRels = lappend(st->transitionRels, tt);
	}
	CreateTrigger(st, "dp_attach", relid, InvalidOid, InvalidOid, InvalidOid,
				  InvalidOid, InvalidOid, NULL, false, false);
	CommandCounterIncrement();
}

/* Create one statement-level trigger on relid. */
static void
create_trigger(Oid relid, const char *name, const char *func, int16 timing,
			   int16 events, bool old_table, bool new_table, List *columns,
			   List *args)
{
	create_trigger_at(relid, name, func, false, timing, events, old_table, new_table,
					  columns, args, NULL);
}

/* Comma-separated %.17g values (round-trip exact). */
static char *
doubles_csv(const double *v, int n)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	for (i = 0; i < n; i++)
		appendStringInfo(&s, "%s%.17g", i ? "," : "", v[i]);
	return s.data;
}


/*
 * The trigger arguments of a table, format 2, a norm bound's or a norm
 * counter unit's (see shape.c).
 */
static List *
trigger_args(const DpkTracked *tr)
{
	List	   *args = NIL;
	int			shift = dpk_tracked_norm_shift(tr);
	int			i;

	args = lappend(args, makeString(shift > 0 ? DPK_TRIGGER_TAG_SHIFT
									: tr->norm_bound > 0.0 ? DPK_TRIGGER_TAG_BALL
									: tr->trigger_format >= 3 ? DPK_TRIGGER_TAG_METRIC
									: DPK_TRIGGER_TAG));
	args = lappend(args, makeString(psprintf("%d", tr->d)));
	args = lappend(args, makeString(psprintf("%d", tr->level)));
	args = lappend(args, makeString(doubles_csv(tr->lower, tr->d)));
	args = lappend(args, makeString(doubles_csv(tr->upper, tr->d)));
	args = lappend(args, makeString(psprintf("%d", tr->dhat)));
	args = lappend(args, makeString(psprintf("%d", tr->copies)));
	args = lappend(args, makeString(psprintf(UINT64_FORMAT, tr->proj_seed)));
	if (tr->norm_bound > 0.0 || shift > 0)
		args = lappend(args, makeString(doubles_csv(&tr->norm_bound, 1)));
	if (shift > 0)
		args = lappend(args, makeString(psprintf("%d", shift)));
	for (i = 0; i < tr->ncols; i++)
		args = lappend(args, makeString(tr->colnames[i]));
	return args;
}

/*
 * Make a trigger fire ALWAYS (statement triggers: also for writes under
 * session_replication_role = replica, which would otherwise bypass them) or
 * on REPLICA only (the row trigger, for logical replication workers).
 * src/capture/ddl_guard.c keeps them so.
 */
static void
set_firing(Oid relid, const char *name, char fires)
{
	Relation	rel = table_open(relid, NoLock);

	EnableDisableTrigger(rel, name, fires, false, ShareRowExclusiveLock);
	CommandCounterIncrement();
	table_close(rel, NoLock);
}

/*
 * Whether the installed SQL definitions (the extension's version, which may
 * be older than this library) have dpkmeans_internal.name().  Looked up as
 * the extension's owner: the caller (a table owner that is not a
 * superuser) has no USAGE on the internal schema.
 */
bool
dpk_have_internal_function(const char *name)
{
	DpkOwnerSwitch sw;
	bool		found;

	dpk_pg_owner_begin(&sw);
	found = OidIsValid(LookupFuncName(list_make2(makeString("dpkmeans_internal"),
												 makeString(pstrdup(name))),
									  0, NULL, true));
	dpk_pg_owner_end(&sw);
	return found;
}

/*
 * insert_only's refusals on relid: DELETE, UPDATE of a tracked column and
 * TRUNCATE would delete rows, whatever captures the table's changes.
 */
static void
install_refusals(Oid relid, List *colnames)
{
	create_trigger(relid, trigger_names[4], "refuse", TRIGGER_TYPE_BEFORE,
				   TRIGGER_TYPE_DELETE, false, false, NIL, NIL);
	create_trigger(relid, trigger_names[5], "refuse", TRIGGER_TYPE_BEFORE,
				   TRIGGER_TYPE_UPDATE, false, false, colnames, NIL);
	create_trigger(relid, trigger_names[6], "refuse", TRIGGER_TYPE_BEFORE,
				   TRIGGER_TYPE_TRUNCATE, false, false, NIL, NIL);
}

/*
 * In an insert_only table, refuse an UPDATE that leaves a row with other
 * tracked values although the statement set none of them (a BEFORE trigger
 * or a rule changed them): the statement refusal sees the SET list only,
 * and the counters would miss the move (or, captured from the WAL, count a
 * deletion the accounting has no room for).  A row trigger on the root,
 * which the server clones to every partition, present and future; its WHEN
 * clause, OLD.c IS DISTINCT FROM NEW.c for a tracked column c, keeps every
 * other row from calling it.  In a tree with foreign partitions it goes
 * on each local table instead (their shards refuse for theirs): a row
 * trigger on a foreign table would stop postgres_fdw batching.
 *
 * Also a BEFORE DELETE row trigger firing on REPLICA only: a logical
 * replication worker fires no statement trigger, so the statement refusal
 * never sees the deletions it applies, which capture_row would count.
 */
static void
install_moved_refusal(Oid relid, List *colnames)
{
	List	   *moved = NIL;
	ListCell   *lc;

	foreach(lc, colnames)
	{
		char	   *col = strVal(lfirst(lc));
		ColumnRef  *o = makeNode(ColumnRef),
				   *n = makeNode(ColumnRef);

		o->fields = list_make2(makeString("old"), makeString(col));
		o->location = -1;
		n->fields = list_make2(makeString("new"), makeString(col));
		n->location = -1;
		moved = lappend(moved, makeSimpleA_Expr(AEXPR_DISTINCT, "=", (Node *) o,
												(Node *) n, -1));
	}
	create_trigger_at(relid, MOVED_TRIGGER_NAME, "refuse", true, TRIGGER_TYPE_AFTER,
					  TRIGGER_TYPE_UPDATE, false, false, NIL, NIL,
					  list_length(moved) == 1 ? linitial(moved)
					  : (Node *) makeBoolExpr(OR_EXPR, moved, -1));
	set_firing(relid, MOVED_TRIGGER_NAME, TRIGGER_FIRES_ALWAYS);
	create_trigger_at(relid, APPLIED_DELETE_TRIGGER_NAME, "refuse", true, TRIGGER_TYPE_BEFORE,
					  TRIGGER_TYPE_DELETE, false, false, NIL, NIL, NULL);
	set_firing(relid, APPLIED_DELETE_TRIGGER_NAME, TRIGGER_FIRES_ON_REPLICA);
}

/*
 * Whether trigger trigoid is a clone of its parent table's (created by the
 * server on a partition; it goes with the parent's).
 */
static bool
trigger_is_clone(Oid trigoid)
{
	Relation	rel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		clone = false;

	ScanKeyInit(&key, Anum_pg_trigger_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(trigoid));
	scan = systable_beginscan(rel, TriggerOidIndexId, true, NULL, 1, &key);
	if ((tup = systable_getnext(scan)) != NULL)
		clone = OidIsValid(((Form_pg_trigger) GETSTRUCT(tup))->tgparentid);
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return clone;
}

/* Every dpkmeans statement trigger relid has fires ALWAYS (also for replicas' roles). */
static void
set_firing_always(Oid relid)
{
	int			i;

	for (i = 0; i < (int) lengthof(trigger_names); i++)
		if (OidIsValid(get_trigger_oid(relid, trigger_names[i], true)))
			set_firing(relid, trigger_names[i], TRIGGER_FIRES_ALWAYS);
}

/*
 * Install the capture (or refusal) triggers of tr on relid, tr's table or a
 * table of its partition tree, as the extension's owner (see capture.h and
 * src/capture/partition.c for which table gets which).
 */
void
dpk_install_capture(const DpkTracked *tr, Oid relid)
{
	List	   *args = trigger_args(tr);
	List	   *colnames = NIL;
	char		relkind = get_rel_relkind(relid);
	bool		is_root = relid == tr->relid;
	bool		sharded;
	int			i;

	/*
	 * A foreign partition's rows are captured by its shard (src/shard/shard.c),
	 * with the table's norm bound.
	 */
	if (relkind == RELKIND_FOREIGN_TABLE)
		return;
	for (i = 0; i < tr->ncols; i++)
		colnames = lappend(colnames, makeString(tr->colnames[i]));
	/* changes counted from the WAL: only insert_only's refusals */
	if (tr->capture_wal)
	{
		if (tr->insert_only)
		{
			install_refusals(relid, colnames);
			install_moved_refusal(relid, colnames);
		}
		set_firing_always(relid);
		return;
	}
	/* a tree with foreign partitions has no transition tables (shard.h) */
	sharded = dpk_shard_tree_has_foreign(tr->relid);
	if (sharded)
		dpk_shard_install_capture(tr, relid);
	else
		create_trigger(relid, trigger_names[0], "capture", TRIGGER_TYPE_AFTER,
					   TRIGGER_TYPE_INSERT, false, true, NIL, args);
	if (tr->insert_only)
	{
		install_refusals(relid, colnames);
		/* on the root, cloned; with foreign partitions, on each local table */
		if (sharded ? relkind == RELKIND_RELATION : is_root)
			install_moved_refusal(relid, colnames);
	}
	else
	{
		if (!sharded)
		{
			create_trigger(relid, trigger_names[1], "capture", TRIGGER_TYPE_AFTER,
						   TRIGGER_TYPE_UPDATE, true, true, NIL, args);
			create_trigger(relid, trigger_names[2], "capture", TRIGGER_TYPE_AFTER,
						   TRIGGER_TYPE_DELETE, true, false, NIL, args);
		}
		/* a whole table negates its counters; a leaf partition counts its rows */
		if (relkind == RELKIND_RELATION)
			create_trigger(relid, trigger_names[3], "capture_truncate",
						   is_root ? TRIGGER_TYPE_AFTER : TRIGGER_TYPE_BEFORE,
						   TRIGGER_TYPE_TRUNCATE, false, false, NIL, args);
	}
	set_firing_always(relid);
	/*
	 * Partitions get a clone of the root's row trigger from the server (not
	 * in a tree with foreign partitions: a row trigger on a foreign table
	 * would stop postgres_fdw from batching and pushing down writes).
	 */
	if (is_root && !sharded && dpk_have_internal_function("capture_row"))
	{
		create_trigger_at(relid, ROW_TRIGGER_NAME, "capture_row", true, TRIGGER_TYPE_AFTER,
						  TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE,
						  false, false, NIL, args, NULL);
		set_firing(relid, ROW_TRIGGER_NAME, TRIGGER_FIRES_ON_REPLICA);
	}
}

/* Create a capture trigger with tr's arguments on relid (see shard.h). */
void
dpk_attach_capture_trigger(const DpkTracked *tr, Oid relid, const char *name,
						   const char *func, bool row, int16 timing, int16 events)
{
	create_trigger_at(relid, name, func, row, timing, events, false, false, NIL,
					  trigger_args(tr), NULL);
}

/* Drop the capture triggers of relid (see capture.h). */
void
dpk_drop_capture(Oid relid)
{
	size_t		i;

	for (i = 0; i < lengthof(trigger_names) + lengthof(row_trigger_names); i++)
	{
		const char *name = i < lengthof(trigger_names) ? trigger_names[i]
			: row_trigger_names[i - lengthof(trigger_names)];
		Oid			trigoid = get_trigger_oid(relid, name, true);

		/* a partition's cloned row triggers go with the root's */
		if (OidIsValid(trigoid) && !(get_rel_relispartition(relid) && trigger_is_clone(trigoid)))
		{
			ObjectAddress obj;

			ObjectAddressSet(obj, TriggerRelationId, trigoid);
			performDeletion(&obj, DROP_RESTRICT, 0);
		}
	}
}

/*
 * dpkmeans_internal.add_moved_refusal(tbl): the moved-row and applied
 * deletion refusals of an insert_only table attached before they existed
 * (the 0.5 -> 0.6 upgrade).  Does nothing for an insert_delete table or
 * where they are.
 */
PG_FUNCTION_INFO_V1(dpk_add_moved_refusal);
Datum
dpk_add_moved_refusal(PG_FUNCTION_ARGS)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);
	DpkOwnerSwitch sw;
	DpkTracked	tr;

	LockRelationOid(relid, ShareRowExclusiveLock);
	dpk_store_begin(&sw);
	if (!dpk_store_read_config(relid, CurrentMemoryContext, &tr))
		dpk_store_not_attached(relid);
	if (tr.insert_only)
	{
		List	   *colnames = NIL;
		bool		sharded = dpk_shard_tree_has_foreign(relid);
		ListCell   *lc;
		int			i;

		for (i = 0; i < tr.ncols; i++)
			colnames = lappend(colnames, makeString(tr.colnames[i]));
		/* where dpk_install_capture puts them */
		foreach(lc, dpk_partition_relids(relid, ShareRowExclusiveLock))
		{
			Oid			rel = lfirst_oid(lc);

			if ((sharded ? get_rel_relkind(rel) == RELKIND_RELATION : rel == relid) &&
				!OidIsValid(get_trigger_oid(rel, MOVED_TRIGGER_NAME, true)))
				install_moved_refusal(rel, colnames);
		}
	}
	dpk_store_end(&sw);
	PG_RETURN_VOID();
}

/*
 * dpkmeans_internal.add_row_capture(tbl): the row trigger for logical
 * replication on a table attached before it existed (the 0.2 -> 0.3
 * upgrade).  Does nothing when the table has it.
 */
PG_FUNCTION_INFO_V1(dpk_add_row_capture);
Datum
dpk_add_row_capture(PG_FUNCTION_ARGS)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);
	DpkOwnerSwitch sw;
	DpkTracked	tr;

	LockRelationOid(relid, ShareRowExclusiveLock);
	dpk_store_begin(&sw);
	if (!dpk_store_read_tracked(relid, false, CurrentMemoryContext, &tr))
		dpk_store_not_attached(relid);
	if (!OidIsValid(get_trigger_oid(relid, ROW_TRIGGER_NAME, true)))
	{
		create_trigger_at(relid, ROW_TRIGGER_NAME, "capture_row", true, TRIGGER_TYPE_AFTER,
						  TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE,
						  false, false, NIL, trigger_args(&tr), NULL);
		set_firing(relid, ROW_TRIGGER_NAME, TRIGGER_FIRES_ON_REPLICA);
	}
	dpk_store_end(&sw);
	PG_RETURN_VOID();
}
