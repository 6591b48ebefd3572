/*
 * ddl_guard.c
 *		DDL that would let writes of an attached table bypass its capture
 *		triggers, or break how its tracked columns are found, is refused.
 *
 * The capture triggers fire ALWAYS (also under session_replication_role =
 * replica).  An event trigger at ddl_command_start refuses, on an attached
 * table: disabling its triggers (by name, ALL or USER) or setting them back
 * to fire on origin or replica only, dropping or renaming them, changing the
 * type of a tracked column (a rewrite with USING would change values without
 * any trigger firing) and renaming a tracked column (columns are resolved by
 * name).  Dropping a tracked column is refused by the sql_drop event trigger
 * of the install script.  Detach first to do any of these.  The same holds
 * for every partition of an attached partitioned table, whose partition DDL
 * is checked and counted by src/capture/partition.c; a new inheritance child of an
 * attached table is refused (statements on the parent would write its rows
 * without its triggers).  The row trigger for logical replication fires on
 * REPLICA (or ALWAYS): only disabling it is refused.  A table captured from
 * the WAL keeps REPLICA IDENTITY FULL.  Every attached table, and each of
 * its partitions, stays logged (0.7): a crash empties an unlogged table
 * while its counters, in logged tables, keep counting its rows.
 * ALTER TYPE ... CASCADE reaches the columns of tables typed by it: a
 * tracked one is neither retyped nor renamed that way either; and CREATE
 * SCHEMA may not create a partition or child of an attached table (its
 * elements fire no event trigger of their own).  The event triggers fire
 * ALWAYS too (0.6).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/event_trigger.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "capture.h"
#include "store.h"

/* Whether a trigger name is one of the capture or refusal triggers. */
static bool
is_dpk_trigger(const char *name)
{
	return name != NULL && strncmp(name, "dpkmeans_", 9) == 0;
}

/*
 * The configuration of the attached table covering relid (relid itself or
 * the root of its partition tree), or NULL when there is none.
 */
static DpkTracked *
attached_config(Oid relid)
{
	DpkOwnerSwitch sw;
	DpkTracked *tr;
	bool		attached;

	relid = dpk_attached_root(relid);
	if (!OidIsValid(relid))
		return NULL;
	tr = palloc0(sizeof(DpkTracked));
	dpk_store_begin(&sw);
	attached = dpk_store_read_config(relid, CurrentMemoryContext, tr);
	dpk_store_end(&sw);
	return attached ? tr : NULL;
}

/* Whether name is a tracked column of tr. */
static bool
is_tracked_column(const DpkTracked *tr, const char *name)
{
	int			i;

	for (i = 0; name != NULL && i < tr->ncols; i++)
		if (strcmp(tr->colnames[i], name) == 0)
			return true;
	return false;
}

/* ERROR: a DDL on an attached table (or one of its partitions) that dpkmeans refuses. */
static void
refuse(Oid relid, const char *what)
{
	Oid			root = dpk_attached_root(relid);

	if (OidIsValid(root) && root != relid)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot %s: table \"%s\" is a partition of \"%s\", attached to dpkmeans",
						what, get_rel_name(relid), get_rel_name(root)),
				 errdetail("Its capture (triggers, or the WAL) must see every write, and its tracked columns are found by name."),
				 errhint("Run dp_detach on \"%s\" first (its releases are then removed).",
						 get_rel_name(root))));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("cannot %s: table \"%s\" is attached to dpkmeans", what, get_rel_name(relid)),
			 errdetail("Its capture (triggers, or the WAL) must see every write, and its tracked columns are found by name."),
			 errhint("Run dp_detach on the table first (its releases are then removed).")));
}

/*
 * The tables typed by the composite type whose own pg_class row is typrel
 * (CREATE TABLE ... OF type): ALTER TYPE ... CASCADE alters and renames
 * their columns too.
 */
static List *
typed_tables(Oid typrel)
{
	Oid			typid = get_rel_type_id(typrel);
	List	   *tables = NIL;
	Relation	cls;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	if (!OidIsValid(typid))
		return NIL;
	cls = table_open(RelationRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_class_reloftype, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(typid));
	scan = systable_beginscan(cls, InvalidOid, false, NULL, 1, &key);
	while ((tup = systable_getnext(scan)) != NULL)
		tables = lappend_oid(tables, ((Form_pg_class) GETSTRUCT(tup))->oid);
	systable_endscan(scan);
	table_close(cls, AccessShareLock);
	return tables;
}

/* ALTER TYPE ... ALTER ATTRIBUTE ... TYPE of a tracked column of a typed table. */
static void
guard_alter_type(AlterTableStmt *stmt)
{
	Oid			typrel = RangeVarGetRelid(stmt->relation, NoLock, true);
	ListCell   *tc;

	if (!OidIsValid(typrel))
		return;
	foreach(tc, typed_tables(typrel))
	{
		Oid			relid = lfirst_oid(tc);
		DpkTracked *tr = attached_config(relid);
		ListCell   *lc;

		if (tr == NULL)
			continue;
		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

			if (cmd->subtype == AT_AlterColumnType && is_tracked_column(tr, cmd->name))
				refuse(relid, psprintf("change the type of tracked column \"%s\" through its type",
									   cmd->name));
		}
	}
}

/* Check the subcommands of ALTER TABLE on an attached table. */
static void
guard_alter_table(AlterTableStmt *stmt)
{
	Oid			relid;
	DpkTracked *tr;
	ListCell   *lc;

	if (stmt->objtype == OBJECT_TYPE)
	{
		guard_alter_type(stmt);
		return;
	}
	if (stmt->objtype != OBJECT_TABLE && stmt->objtype != OBJECT_FOREIGN_TABLE)
		return;
	relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

		if (cmd->subtype == AT_AddInherit)
		{
			Oid			parent = RangeVarGetRelid((RangeVar *) cmd->def, NoLock, true);

			if (attached_config(parent) != NULL)
				refuse(parent, psprintf("make \"%s\" an inheritance child", get_rel_name(relid)));
		}
	}
	dpk_partition_check_alter(stmt);
	tr = attached_config(relid);
	if (tr == NULL)
		return;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

		switch (cmd->subtype)
		{
			case AT_AddInherit:
				refuse(relid, "make it an inheritance child");
				break;
			case AT_AlterColumnType:
				if (is_tracked_column(tr, cmd->name))
					refuse(relid, psprintf("change the type of tracked column \"%s\"", cmd->name));
				break;
			case AT_DropColumn:
				/* before PostgreSQL's own check, whose hint (CASCADE) leads nowhere */
				if (is_tracked_column(tr, cmd->name))
					refuse(relid, psprintf("drop tracked column \"%s\"", cmd->name));
				break;
			case AT_ReplicaIdentity:
				/* the WAL capture reads the old rows REPLICA IDENTITY FULL logs */
				if (tr->capture_wal)
					refuse(relid, "change its replica identity");
				break;
			case AT_SetUnLogged:
				/* a crash empties an unlogged table; its counters would keep the rows */
				refuse(relid, tr->capture_wal ? "make it unlogged (its changes are counted from the WAL)"
					   : "make it unlogged (a crash would empty it while its counters keep its rows)");
				break;
			case AT_DisableTrigAll:
			case AT_DisableTrigUser:
				refuse(relid, "disable its triggers");
				break;
			case AT_EnableTrigAll:
			case AT_EnableTrigUser:
				refuse(relid, "make its triggers fire on origin only");
				break;
			case AT_EnableReplicaTrig:
				/* how the row trigger is created, and how pg_dump restores it */
				if (cmd->name != NULL && (strcmp(cmd->name, "dpkmeans_capture_row") == 0 ||
										  strcmp(cmd->name, "dpkmeans_refuse_applied_delete") == 0))
					break;
				/* FALLTHROUGH */
			case AT_DisableTrig:
			case AT_EnableTrig:
				if (is_dpk_trigger(cmd->name))
					refuse(relid, psprintf("change when trigger \"%s\" fires", cmd->name));
				break;
			default:
				break;
		}
	}
}

/* DROP TRIGGER dpkmeans_... ON an attached table. */
static void
guard_drop_trigger(DropStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->objects)
	{
		List	   *name = (List *) lfirst(lc);
		char	   *trigname = strVal(llast(name));
		Oid			relid;

		if (!is_dpk_trigger(trigname) || list_length(name) < 2)
			continue;
		relid = RangeVarGetRelid(makeRangeVarFromNameList(list_truncate(list_copy(name),
																		list_length(name) - 1)),
								 NoLock, true);
		if (attached_config(relid) != NULL)
			refuse(relid, psprintf("drop trigger \"%s\"", trigname));
	}
}

/* ALTER TABLE ... RENAME of a tracked column or of a dpkmeans trigger. */
static void
guard_rename(RenameStmt *stmt)
{
	Oid			relid;
	DpkTracked *tr;

	if (stmt->renameType == OBJECT_ATTRIBUTE)
	{
		/* ALTER TYPE ... RENAME ATTRIBUTE: the columns of its typed tables */
		Oid			typrel = RangeVarGetRelid(stmt->relation, NoLock, true);
		ListCell   *tc;

		if (!OidIsValid(typrel))
			return;
		foreach(tc, typed_tables(typrel))
		{
			tr = attached_config(lfirst_oid(tc));
			if (tr != NULL && is_tracked_column(tr, stmt->subname))
				refuse(lfirst_oid(tc), psprintf("rename tracked column \"%s\" through its type",
												stmt->subname));
		}
		return;
	}
	if (stmt->renameType != OBJECT_COLUMN && stmt->renameType != OBJECT_TRIGGER)
		return;
	relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	tr = attached_config(relid);
	if (tr == NULL)
		return;
	if (stmt->renameType == OBJECT_COLUMN && is_tracked_column(tr, stmt->subname))
		refuse(relid, psprintf("rename tracked column \"%s\"", stmt->subname));
	if (stmt->renameType == OBJECT_TRIGGER && is_dpk_trigger(stmt->subname))
		refuse(relid, psprintf("rename trigger \"%s\"", stmt->subname));
}

/*
 * CREATE SCHEMA ... CREATE TABLE ... PARTITION OF or INHERITS an attached
 * table: the sub-commands of CREATE SCHEMA fire no event trigger of their
 * own, so the new partition would get no capture.  Refused; a CREATE TABLE
 * of its own is welcome.
 */
static void
guard_create_schema(CreateSchemaStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->schemaElts)
	{
		CreateStmt *cs = (CreateStmt *) lfirst(lc);
		ListCell   *pc;

		if (!IsA(cs, CreateStmt))
			continue;
		foreach(pc, cs->inhRelations)
		{
			Oid			parent = RangeVarGetRelid((RangeVar *) lfirst(pc), NoLock, true);

			if (attached_config(parent) != NULL)
				refuse(parent, psprintf("create \"%s\" as its %s inside CREATE SCHEMA (use a CREATE TABLE statement of its own)",
										cs->relation->relname,
										cs->partbound != NULL ? "partition" : "inheritance child"));
		}
	}
}

/*
 * ERROR unless every table of tree (relids) is logged: a crash empties an
 * unlogged table and a temporary one goes with its session, while the
 * counters, stored in logged tables, would keep their rows.
 */
void
dpk_refuse_unlogged(List *tree)
{
	ListCell   *lc;

	foreach(lc, tree)
	{
		Oid			relid = lfirst_oid(lc);
		char		persistence = get_rel_persistence(relid);

		if (persistence != RELPERSISTENCE_PERMANENT)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("dpkmeans needs a logged table; \"%s\" is %s", get_rel_name(relid),
							persistence == RELPERSISTENCE_UNLOGGED ? "unlogged" : "temporary"),
					 errdetail("A crash empties an unlogged table and a temporary one ends with its session, "
							   "while the counters of an attached table keep every row."),
					 errhint(persistence == RELPERSISTENCE_UNLOGGED
							 ? "Run ALTER TABLE \"%s\" SET LOGGED first." : "Use a permanent table.",
							 get_rel_name(relid))));
	}
}

/*
 * CREATE TABLE ... INHERITS an attached table (partitions are welcome,
 * unless unlogged).
 */
static void
guard_create_child(CreateStmt *stmt)
{
	ListCell   *lc;

	if (stmt->partbound != NULL)
	{
		Oid			parent;

		if (stmt->relation->relpersistence == RELPERSISTENCE_PERMANENT ||
			list_length(stmt->inhRelations) != 1)
			return;
		parent = RangeVarGetRelid(linitial_node(RangeVar, stmt->inhRelations), NoLock, true);
		if (attached_config(parent) != NULL)
			refuse(parent, psprintf("create \"%s\" as its unlogged partition (a crash would empty it "
									"while the counters keep its rows)", stmt->relation->relname));
		return;
	}
	foreach(lc, stmt->inhRelations)
	{
		Oid			parent = RangeVarGetRelid((RangeVar *) lfirst(lc), NoLock, true);

		if (attached_config(parent) != NULL)
			refuse(parent, psprintf("create \"%s\" as its inheritance child",
									stmt->relation->relname));
	}
}

/*
 * dpkmeans_internal.guard_ddl(): the ddl_command_start event trigger for
 * ALTER TABLE, ALTER TRIGGER, DROP TRIGGER, CREATE TABLE, CREATE FOREIGN
 * TABLE, DROP TABLE, and from 0.6 ALTER TYPE and CREATE SCHEMA (see the
 * file header).
 */
PG_FUNCTION_INFO_V1(dpk_guard_ddl);
Datum
dpk_guard_ddl(PG_FUNCTION_ARGS)
{
	Node	   *tree;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("dpkmeans_internal.guard_ddl must be called as an event trigger")));
	tree = ((EventTriggerData *) fcinfo->context)->parsetree;
	if (IsA(tree, AlterTableStmt))
		guard_alter_table((AlterTableStmt *) tree);
	else if (IsA(tree, DropStmt) && ((DropStmt *) tree)->removeType == OBJECT_TRIGGER)
		guard_drop_trigger((DropStmt *) tree);
	else if (IsA(tree, DropStmt) && ((DropStmt *) tree)->removeType == OBJECT_TABLE)
		dpk_partition_before_drop((DropStmt *) tree);
	else if (IsA(tree, CreateStmt))
		guard_create_child((CreateStmt *) tree);
	else if (IsA(tree, CreateForeignTableStmt))
		dpk_partition_check_create_foreign((CreateForeignTableStmt *) tree);
	else if (IsA(tree, RenameStmt))
		guard_rename((RenameStmt *) tree);
	else if (IsA(tree, CreateSchemaStmt))
		guard_create_schema((CreateSchemaStmt *) tree);
	PG_RETURN_VOID();
}
