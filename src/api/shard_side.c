/*
 * shard_side.c
 *		What runs on a shard (dp_shard_attach, dp_shard_state,
 *		dp_shard_detach), the checks of a coordinator's tree at dp_attach
 *		(postgres_fdw partitions accepted, Citus refused) and the filter that
 *		leaves rows routed to foreign partitions to their shards.
 *
 * A shard table has a configuration and a true state like any attached
 * table (dpkmeans_internal.tracked, the same capture triggers and deltas),
 * a mark in dpkmeans_internal.shard_tables, and no key: it never draws
 * noise and never makes a release.  dp_shard_state returns its true state,
 * un-noised, so it is callable only by roles that may read every tracked
 * column of the table anyway (SELECT on the table or on those columns).
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"

#include "attach.h"
#include "shard_side_int.h"
#include "capture.h"
#include "shard.h"
#include "store.h"


/*
 * What two fingerprints disagree on, as "key: shard X, coordinator Y" items
 * (at most five, then how many more): a fingerprint at d = 384 runs to
 * thousands of characters, beyond what an error relayed by the release
 * worker keeps.  Tokens are "key=value" separated by spaces; a token on one
 * side only is paired with the first unpaired one of the same key on the
 * other side, or shown against "none".  The same items in another order can
 * only be the columns (the others are named once each).
 */
static char *
fingerprint_difference(const char *shard, const char *coordinator)
{
	List	   *side[2] = {NIL, NIL};
	StringInfoData out;
	int			shown = 0,
				more = 0,
				w;
	ListCell   *lc;

	for (w = 0; w < 2; w++)
	{
		char	   *copy = pstrdup(w == 0 ? shard : coordinator);
		char	   *save = NULL;
		char	   *tok;

		for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			side[w] = lappend(side[w], tok);
	}
	/* drop the tokens both sides hold (each pairing used once) */
	foreach(lc, side[0])
	{
		ListCell   *oc;

		foreach(oc, side[1])
			if (lfirst(oc) != NULL && strcmp(lfirst(lc), lfirst(oc)) == 0)
			{
				lfirst(lc) = NULL;
				lfirst(oc) = NULL;
				break;
			}
	}
	initStringInfo(&out);
	for (w = 0; w < 2; w++)
		foreach(lc, side[w])
		{
			const char *tok = lfirst(lc);
			const char *eq;
			const char *other = "none";
			ListCell   *oc;
			int			keylen;

			if (tok == NULL)
				continue;
			eq = strchr(tok, '=');
			keylen = eq ? (int) (eq - tok) : (int) strlen(tok);
			foreach(oc, side[1 - w])
			{
				const char *cand = lfirst(oc);

				if (cand != NULL && strncmp(cand, tok, keylen) == 0 && cand[keylen] == '=')
				{
					other = pstrdup(cand + keylen + 1);
					lfirst(oc) = NULL;
					break;
				}
			}
			if (shown == 5)
			{
				more++;
				continue;
			}
			appendStringInfo(&out, "%s%.*s: shard %s, coordinator %s", shown ? "; " : "",
							 keylen, tok, w == 0 ? (eq ? eq + 1 : "") : other,
							 w == 0 ? other : (eq ? eq + 1 : ""));
			shown++;
		}
	if (more > 0)
		appendStringInfo(&out, "; and %d more", more);
	if (shown == 0)
		appendStringInfoString(&out, "the order of their items (columns)");
	return out.data;
}

/* The tracked column names of a dp_shard_attach call, resolved in relid. */
static char **
shard_columns(Oid relid, ArrayType *columns, int *ncols, AttrNumber **attnums)
{
	Datum	   *elems;
	bool	   *nulls;
	char	  **names;
	int			n,
				i;

	deconstruct_array(columns, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("columns must name at least one column")));
	names = palloc(n * sizeof(char *));
	*attnums = palloc(n * sizeof(AttrNumber));
	for (i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("columns must not contain NULL")));
		names[i] = TextDatumGetCString(elems[i]);
		(*attnums)[i] = get_attnum(relid, names[i]);
		if ((*attnums)[i] <= InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of shard table \"%s\" does not exist", names[i],
							get_rel_name(relid)),
					 errdetail("The coordinator's table tracks this column; every shard's table must have it, with a numeric type."),
					 errhint("Give the shard's table the same tracked columns as the coordinator's table.")));
	}
	*ncols = n;
	return names;
}

/* ERROR unless relid can be a shard table (an ordinary or partitioned root). */
static void
check_shard_relation(Oid relid)
{
	char		relkind = get_rel_relkind(relid);

	if ((relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE) ||
		get_rel_relispartition(relid) ||
		(relkind == RELKIND_RELATION && (has_subclass(relid) || has_superclass(relid))))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" cannot be a shard table", get_rel_name(relid)),
				 errdetail("A shard table is an ordinary table without inheritance, or the root of a partitioned table, that stores its rows on this server."),
				 errhint("Point the coordinator's foreign partition at such a table.")));
}

/*
 * The table's owner (the coordinator's user mapping role) captures its rows
 * for a coordinator with req's configuration.  Existing rows are a pending
 * delta.  True when attached now, false when it already was with the same
 * configuration (a coordinator attaching again after a failed attempt).
 */
static bool
shard_attach(const DpkShardAttachRequest *req)
{
	DpkTracked	tr;
	DpkLiveConfig cfg;
	DpkOwnerSwitch sw;
	DpkCellMap	backfill;
	AttrNumber *attnums;
	Relation	rel;
	DpkShape	shape;
	List	   *tree;
	ListCell   *lc;
	bool		attached;

	memset(&tr, 0, sizeof(tr));
	tr.relid = req->relid;
	dpk_pg_check_table_owner(tr.relid, "attach it as a shard");
	dpk_pg_refuse_in_recovery("dp_shard_attach");
	check_shard_relation(tr.relid);
	tr.k = req->k;
	tr.epsilon = req->epsilon;
	dpk_pg_check_k(tr.k, 0);
	dpk_pg_check_epsilon(tr.epsilon, "epsilon");
	dpk_pg_check_box(req->lower, req->upper, &tr.lower, &tr.upper, &tr.d);
	tr.horizon = req->horizon;
	if (strcmp(req->mode, "insert_only") != 0 && strcmp(req->mode, "insert_delete") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mode \"%s\"", req->mode)));
	tr.insert_only = strcmp(req->mode, "insert_only") == 0;
	tr.size_hint = req->size_hint;
	tr.level = req->level;
	tr.sum_share = req->sum_share;
	tr.dhat = req->dhat;
	tr.copies = req->copies;
	tr.proj_seed = (uint64) req->proj_seed;
	tr.norm_share = req->norm_share;
	if (tr.level < 0 || tr.level > 30 || tr.dhat < 0 || tr.copies < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid shard configuration (level %d, dhat %d, copies %d)",
						tr.level, tr.dhat, tr.copies)));
	/* 0 is no bound; else the checks of dp_attach, and a projected table */
	if (req->norm_bound != 0.0)
	{
		tr.norm_bound = dpk_pg_check_norm_bound(req->norm_bound, tr.d);
		if (tr.dhat == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid shard configuration (norm bound %g without projected dimensions)",
							tr.norm_bound)));
	}
	/* a Gaussian table's delta: only the unit of its squared norms uses it */
	tr.delta = dpk_pg_check_delta(req->delta);
	tr.sampler_version = DPK_SAMPLER_VERSION;
	tr.state_format = DPK_STATE_FORMAT;
	tr.trigger_format = DPK_TRIGGER_FORMAT;
	/* a shard draws no noise: the coordinator's row carries the tree */
	tr.tree_arity = 2;
	dpk_home_current(&tr.home);
	tr.colnames = shard_columns(tr.relid, req->columns, &tr.ncols, &attnums);

	/* No write may slip between the backfill scan and the triggers. */
	rel = table_open(tr.relid, ShareRowExclusiveLock);
	tree = dpk_partition_relids(tr.relid, ShareRowExclusiveLock);
	dpk_partition_check_tree(tr.relid);
	dpk_shape_init(&shape, rel, tr.d, tr.level, attnums, tr.ncols, tr.lower, tr.upper);

	dpk_store_begin(&sw);
	attached = dpk_store_is_attached(tr.relid);
	if (attached)
	{
		DpkTracked	old;
		bool		same;

		same = dpk_store_shard_is_marked(tr.relid) &&
			dpk_store_read_tracked(tr.relid, false, CurrentMemoryContext, &old) &&
			strcmp(dpk_shard_fingerprint(&old), dpk_shard_fingerprint(&tr)) == 0;
		dpk_store_end(&sw);
		if (!same)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_OBJECT),
					 errmsg("table \"%s\" is already attached to dpkmeans with another configuration",
							get_rel_name(tr.relid)),
					 errhint("Run dp_detach (or dp_shard_detach) on it on this server first.")));
		table_close(rel, NoLock);
		return false;
	}
	dpk_store_end(&sw);

	dpk_cellmap_init(&backfill, tr.d);
	dpk_partition_scan_clamped(&tr, tr.relid, &backfill, true, NULL, true);
	dpk_tracked_config(&tr, &cfg);

	dpk_store_begin(&sw);
	dpk_store_insert_tracked(&tr, req->mode, attnums, NULL);
	dpk_store_shard_mark(tr.relid);
	foreach(lc, tree)
		dpk_install_capture(&tr, lfirst_oid(lc));
	dpk_store_append_delta(tr.relid, &backfill,
						   dpk_pad_cells(&cfg, dpk_state_rows(&cfg, &backfill)));
	dpk_store_end(&sw);
	table_close(rel, NoLock);
	return true;
}

/*
 * dp_shard_attach(tbl, columns, k, epsilon, lower, upper, horizon, mode,
 * size_hint, level, sum_share, dhat, copies, proj_seed, norm_share
 * [, norm_bound [, delta]]): the positional entry point of coordinators at
 * 0.3 to 0.7 (15 arguments up to 0.4, 17 from 0.5), kept for a rolling
 * upgrade; a coordinator at 0.8 or later sends shard protocol 1's jsonb to
 * dp_shard_attach(tbl, config) instead.
 */
PG_FUNCTION_INFO_V1(dp_shard_attach);
Datum
dp_shard_attach(PG_FUNCTION_ARGS)
{
	DpkShardAttachRequest req;
	int			i;

	for (i = 0; i < PG_NARGS(); i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dp_shard_attach argument %d must not be NULL", i + 1)));
	req.relid = PG_GETARG_OID(0);
	req.columns = PG_GETARG_ARRAYTYPE_P(1);
	req.k = PG_GETARG_INT32(2);
	req.epsilon = PG_GETARG_FLOAT8(3);
	req.lower = PG_GETARG_ARRAYTYPE_P(4);
	req.upper = PG_GETARG_ARRAYTYPE_P(5);
	req.horizon = PG_GETARG_INT32(6);
	req.mode = text_to_cstring(PG_GETARG_TEXT_PP(7));
	req.size_hint = PG_GETARG_FLOAT8(8);
	req.level = PG_GETARG_INT32(9);
	req.sum_share = PG_GETARG_FLOAT8(10);
	req.dhat = PG_GETARG_INT32(11);
	req.copies = PG_GETARG_INT32(12);
	req.proj_seed = PG_GETARG_INT64(13);
	req.norm_share = PG_GETARG_FLOAT8(14);
	req.norm_bound = PG_NARGS() > 15 ? PG_GETARG_FLOAT8(15) : 0.0;
	req.delta = PG_NARGS() > 16 ? PG_GETARG_FLOAT8(16) : 0.0;
	PG_RETURN_BOOL(shard_attach(&req));
}

/*
 * dp_shard_attach(tbl, config jsonb): the same as the positional entry
 * point, with the coordinator's configuration as one object of a versioned
 * shard protocol (see shard.h): a field added later makes a new protocol
 * version, which a shard that does not speak it refuses by name.
 */
PG_FUNCTION_INFO_V1(dp_shard_attach_config);
Datum
dp_shard_attach_config(PG_FUNCTION_ARGS)
{
	DpkShardAttachRequest req;
	Jsonb	   *config;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_shard_attach argument %d must not be NULL", PG_ARGISNULL(0) ? 1 : 2)));
	config = PG_GETARG_JSONB_P(1);
	dpk_shard_config_read(config, PG_GETARG_OID(0), &req);
	PG_RETURN_BOOL(shard_attach(&req));
}

/*
 * ERROR unless the current user may read every row of tr's table in every
 * tracked column: the state counts all rows, un-noised, so a role that
 * row-level security confines to some rows must not get it.
 */
static void
check_state_privileges(const DpkTracked *tr)
{
	Oid			user = GetUserId();
	int			i;

	if (check_enable_rls(tr->relid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read the true state of shard table \"%s\"",
						get_rel_name(tr->relid)),
				 errdetail("Row-level security limits the rows this role may read; the state counts every row, un-noised."),
				 errhint("Map the coordinator's user to the role that owns the shard's table.")));
	if (pg_class_aclcheck(tr->relid, user, ACL_SELECT) == ACLCHECK_OK)
		return;
	for (i = 0; i < tr->ncols; i++)
	{
		AttrNumber	att = get_attnum(tr->relid, tr->colnames[i]);

		if (att == InvalidAttrNumber ||
			pg_attribute_aclcheck(tr->relid, att, user, ACL_SELECT) != ACLCHECK_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied to read the true state of shard table \"%s\"",
							get_rel_name(tr->relid)),
					 errdetail("The state is un-noised: only roles that may SELECT every tracked column may read it."),
					 errhint("Map the coordinator's user to the role that owns the shard's table.")));
	}
}

/*
 * dp_shard_state(tbl, fingerprint): the shard table's state plus its
 * pending deltas, un-noised.  The table's owner (the role the coordinator's
 * user maps to) also folds the deltas into the state, committed with its
 * transaction (folding never changes state + deltas), under the lock on the
 * configuration row; any other reader of the tracked columns reads both
 * under its statement's snapshot and takes no lock, so an open transaction
 * of its own cannot hold up the coordinator's releases.  The caller's
 * configuration fingerprint must match the shard's.
 */
PG_FUNCTION_INFO_V1(dp_shard_state);
Datum
dp_shard_state(PG_FUNCTION_ARGS)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);
	char	   *fingerprint;
	DpkTracked	tr;
	DpkLiveConfig cfg;
	DpkOwnerSwitch sw;
	bytea	   *out;
	MemoryContext callerctx = CurrentMemoryContext;
	bool		marked;
	bool		owner = pg_class_ownercheck(relid, GetUserId());

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("fingerprint must not be NULL")));
	fingerprint = text_to_cstring(PG_GETARG_TEXT_PP(1));
	dpk_store_begin(&sw);
	marked = dpk_store_shard_is_marked(relid);
	/* the configuration alone until the caller may read the state */
	if (marked && !dpk_store_read_config(relid, callerctx, &tr))
		marked = false;
	dpk_store_end(&sw);
	if (!marked)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" is not attached as a shard", get_rel_name(relid)),
				 errhint("dp_attach on the coordinator attaches its foreign partitions' tables.")));
	check_state_privileges(&tr);
	if (strcmp(fingerprint, dpk_shard_fingerprint(&tr)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("shard table \"%s\" is attached with another configuration than the coordinator's",
						get_rel_name(relid)),
				 errdetail("They differ in %s.",
						   fingerprint_difference(dpk_shard_fingerprint(&tr), fingerprint)),
				 errhint("Run dp_detach on the coordinator's table and dp_attach it again.")));
	dpk_tracked_config(&tr, &cfg);
	dpk_store_begin(&sw);
	if (!dpk_store_read_tracked(relid, owner, callerctx, &tr))
		dpk_store_not_attached(relid);
	{
		MemoryContext old = MemoryContextSwitchTo(callerctx);

		if (owner)
			dpk_store_fold_deltas(relid, &tr.state);
		else
			dpk_store_add_deltas(relid, &tr.state);
		MemoryContextSwitchTo(old);
	}
	if (owner)
		dpk_store_set_state(relid, &tr.state,
							dpk_pad_cells(&cfg, dpk_state_rows(&cfg, &tr.state)));
	dpk_store_end(&sw);
	out = dpk_store_map_bytea(&tr.state, 0);
	PG_RETURN_BYTEA_P(out);
}

/* dp_shard_detach(tbl): the owner removes a shard table's capture. */
PG_FUNCTION_INFO_V1(dp_shard_detach);
Datum
dp_shard_detach(PG_FUNCTION_ARGS)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);
	DpkOwnerSwitch sw;
	bool		marked;

	dpk_pg_check_table_owner(relid, "detach it");
	dpk_pg_refuse_in_recovery("dp_shard_detach");
	dpk_store_begin(&sw);
	marked = dpk_store_shard_is_marked(relid);
	dpk_store_end(&sw);
	if (!marked)
		PG_RETURN_BOOL(false);
	dpk_detach_table(relid);
	dpk_store_begin(&sw);
	dpk_store_shard_unmark(relid);
	dpk_store_end(&sw);
	PG_RETURN_BOOL(true);
}

/* ERROR on a shard table: releases are made by its coordinator (see shard.h). */
void
dpk_shard_refuse_release(Oid relid)
{
	if (dpk_store_shard_is_marked(relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" is a shard of a coordinator's table", get_rel_name(relid)),
				 errdetail("A shard keeps its true state only: no key, no noise, no release."),
				 errhint("Run dp_release on the coordinator's partitioned table.")));
}

/*
 * ERROR when relid is a Citus table: Citus does not propagate triggers
 * created from C to its shard placements, so nothing would be counted.
 */
static void
refuse_citus(Oid relid)
{
	bool		citus = OidIsValid(get_extension_oid("citus", true));
	Oid			meta = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		distributed;

	if (!OidIsValid(meta))
		return;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT 1 FROM pg_catalog.pg_dist_partition "
							  "WHERE logicalrelid::oid = $1", 1, types, values, NULL,
							  true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read pg_catalog.pg_dist_partition");
	distributed = SPI_processed > 0;
	SPI_finish();
	if (distributed)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is managed by Citus", get_rel_name(relid)),
				 errdetail("%s its rows live in shard placements on worker nodes, where the "
						   "capture triggers of dpkmeans would not be created, so nothing would be counted.",
						   citus ? "The citus extension is installed and lists it in pg_dist_partition:"
						   : "pg_dist_partition lists it:"),
				 errhint("Use a partitioned table with postgres_fdw foreign partitions as shards "
						 "(doc/scale-out.md, which also sketches the untested mapping onto Citus).")));
}

/*
 * Where a foreign partition's rows are stored, as far as this server can
 * tell: its server's host, port and database and the remote table (the
 * same defaults as postgres_fdw: the local schema and name).
 */
static char *
shard_table_identity(Oid part, ForeignServer *server)
{
	const char *opts[3] = {"", "", ""};
	ListCell   *lc;

	foreach(lc, server->options)
	{
		DefElem    *opt = lfirst(lc);

		if (strcmp(opt->defname, "host") == 0)
			opts[0] = defGetString(opt);
		else if (strcmp(opt->defname, "port") == 0)
			opts[1] = defGetString(opt);
		else if (strcmp(opt->defname, "dbname") == 0)
			opts[2] = defGetString(opt);
	}
	return psprintf("host=%s port=%s dbname=%s table=%s", opts[0], opts[1], opts[2],
					dpk_shard_remote_table(part));
}

/* ERROR unless the tree under relid can be attached (see shard.h). */
void
dpk_shard_check_tree(Oid relid)
{
	ListCell   *lc;
	List	   *seen = NIL;		/* identities, then partition names */

	foreach(lc, dpk_partition_relids(relid, NoLock))
	{
		Oid			part = lfirst_oid(lc);
		ForeignServer *server;
		ForeignDataWrapper *fdw;
		char	   *identity;
		ListCell   *sc;

		refuse_citus(part);
		if (get_rel_relkind(part) != RELKIND_FOREIGN_TABLE)
			continue;
		server = GetForeignServer(GetForeignTable(part)->serverid);
		fdw = GetForeignDataWrapper(server->fdwid);
		if (strcmp(fdw->fdwname, "postgres_fdw") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("partition \"%s\" is a foreign table of wrapper \"%s\"",
							get_rel_name(part), fdw->fdwname),
					 errdetail("dpkmeans counts rows with triggers on the tables that store them; "
							   "only postgres_fdw partitions can be shards, on servers with dpkmeans."),
					 errhint("Attach the tables that hold the rows, on their own servers.")));
		/* one shard table, one partition: else its attach waits on itself */
		identity = shard_table_identity(part, server);
		for (sc = list_head(seen); sc != NULL; sc = lnext(seen, lnext(seen, sc)))
			if (strcmp((char *) lfirst(sc), identity) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("partitions \"%s\" and \"%s\" store their rows in the same shard table",
								(char *) lfirst(lnext(seen, sc)), get_rel_name(part)),
						 errdetail("Both name %s.", identity),
						 errhint("Give each foreign partition a shard table of its own.")));
		seen = lappend(lappend(seen, identity), get_rel_name(part));
	}
}

