/*
 * shard.c
 *		The coordinator's side of the shard protocol: attach, detach and
 *		verify the capture of every foreign partition's table on its server,
 *		gather the shards' states for a release, the versioned jsonb
 *		configuration a shard attaches with, and the fingerprint both sides
 *		must agree on.  The connections are in shard_conn.c.
 *
 * Attach and detach run in a remote transaction per shard that commits
 * just before the local transaction (and rolls back with it), so a failed
 * dp_attach leaves no shard attached; dp_shard_attach accepts a table
 * already attached with the same configuration, so a retry after a failure
 * between two remote commits goes through.  A release gathers each shard's
 * folded true state in one round trip per shard, the queries of every shard
 * running at once; any failure fails the release before anything is noised
 * or stored.
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"

#include "capture.h"
#include "shard.h"
#include "shard_int.h"
#include "store.h"

/* A text[] literal of names. */
static char *
text_array_literal(char **names, int n)
{
	StringInfoData s;
	int			i;
	const char *p;

	initStringInfo(&s);
	appendStringInfoChar(&s, '{');
	for (i = 0; i < n; i++)
	{
		appendStringInfoString(&s, i ? ",\"" : "\"");
		for (p = names[i]; *p; p++)
		{
			if (*p == '"' || *p == '\\')
				appendStringInfoChar(&s, '\\');
			appendStringInfoChar(&s, *p);
		}
		appendStringInfoChar(&s, '"');
	}
	appendStringInfoChar(&s, '}');
	return s.data;
}

/* A float8[] literal, round-trip exact. */
static char *
float_array_literal(const double *v, int n)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	appendStringInfoChar(&s, '{');
	for (i = 0; i < n; i++)
		appendStringInfo(&s, "%s%.17g", i ? "," : "", v[i]);
	appendStringInfoChar(&s, '}');
	return s.data;
}

/*
 * The quoted schema of dpkmeans on a shard, or ERROR naming the shard when
 * it lacks dpkmeans or has a version without shards.
 */
static char *
remote_extension_schema(DpkShard *sh)
{
	PGresult   *res = dpk_shard_exec(sh,
								 "SELECT pg_catalog.quote_ident(n.nspname), e.extversion, "
								 "pg_catalog.to_regprocedure(pg_catalog.quote_ident(n.nspname) "
								 "|| '.dp_shard_state(pg_catalog.regclass, pg_catalog.text)') IS NOT NULL "
								 "FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n "
								 "ON n.oid = e.extnamespace WHERE e.extname = 'dpkmeans'",
								 0, NULL, PGRES_TUPLES_OK);
	char	   *schema;
	char	   *version;
	bool		has_shards;

	if (PQntuples(res) == 0)
	{
		PQclear(res);
		dpk_shard_close(sh);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("server \"%s\" of foreign partition \"%s\" does not have dpkmeans",
						sh->server_name, sh->partname),
				 errdetail("Each shard captures the rows it stores with dpkmeans' triggers."),
				 errhint("Run CREATE EXTENSION dpkmeans in the shard's database, then dp_attach again.")));
	}
	schema = pstrdup(PQgetvalue(res, 0, 0));
	version = pstrdup(PQgetvalue(res, 0, 1));
	has_shards = strcmp(PQgetvalue(res, 0, 2), "t") == 0;
	PQclear(res);
	if (!has_shards)
	{
		dpk_shard_close(sh);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpkmeans %s on server \"%s\" of foreign partition \"%s\" has no shards",
						version, sh->server_name, sh->partname),
				 errhint("Run ALTER EXTENSION dpkmeans UPDATE on the shard.")));
	}
	return schema;
}

/*
 * ERROR naming the shard unless its dpkmeans' dp_shard_attach takes `nargs`
 * arguments: 16 for a norm bound, 17 for a delta (the unit of the squared
 * norms); both 0.5 on, whose last arguments have defaults.
 */
static void
check_remote_shard_attach(DpkShard *sh, int nargs, int norm_shift)
{
	const char *params[2] = {sh->remote_schema, psprintf("%d", nargs)};
	PGresult   *res = dpk_shard_exec(sh,
								 "SELECT EXISTS (SELECT FROM pg_catalog.pg_proc p "
								 "JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
								 "WHERE pg_catalog.quote_ident(n.nspname) = $1 "
								 "AND p.proname = 'dp_shard_attach' "
								 "AND p.pronargs >= $2::int)",
								 2, params, PGRES_TUPLES_OK);
	bool		ok = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "t") == 0;

	PQclear(res);
	if (ok)
		return;
	dpk_shard_close(sh);
	if (nargs > 16)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpkmeans on server \"%s\" of foreign partition \"%s\" cannot count squared norms in units of 2^%d",
						sh->server_name, sh->partname, norm_shift),
				 errdetail("Shards of a Gaussian table whose norm counter needs a coarser unit need dpkmeans 0.5 or later."),
				 errhint("Run ALTER EXTENSION dpkmeans UPDATE on the shard, or attach with a norm bound, a larger epsilon or delta => 0.")));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("dpkmeans on server \"%s\" of foreign partition \"%s\" cannot apply a norm bound",
					sh->server_name, sh->partname),
			 errdetail("Shards of a table with norm_bound need dpkmeans 0.5 or later."),
			 errhint("Run ALTER EXTENSION dpkmeans UPDATE on the shard, or attach without norm_bound.")));
}

/*
 * Whether the shard's dpkmeans takes the configuration as one versioned
 * jsonb (dp_shard_attach(regclass, jsonb), 0.8 on).
 */
static bool
remote_has_config_attach(DpkShard *sh)
{
	const char *params[1] = {sh->remote_schema};
	PGresult   *res = dpk_shard_exec(sh,
								 "SELECT EXISTS (SELECT FROM pg_catalog.pg_proc p "
								 "JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
								 "WHERE pg_catalog.quote_ident(n.nspname) = $1 "
								 "AND p.proname = 'dp_shard_attach' AND p.pronargs = 2 "
								 "AND p.proargtypes[1] = 'pg_catalog.jsonb'::pg_catalog.regtype)",
								 1, params, PGRES_TUPLES_OK);
	bool		has = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "t") == 0;

	PQclear(res);
	return has;
}

/* tr's configuration as shard protocol DPK_SHARD_PROTOCOL's jsonb (see shard.h). */
static char *
shard_config_json(const DpkTracked *tr)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	appendStringInfo(&s, "{\"protocol\": %d, \"columns\": [", DPK_SHARD_PROTOCOL);
	for (i = 0; i < tr->ncols; i++)
	{
		if (i > 0)
			appendStringInfoString(&s, ", ");
		escape_json(&s, tr->colnames[i]);
	}
	appendStringInfo(&s, "], \"k\": %d, \"epsilon\": %.17g, \"lower\": [", tr->k, tr->epsilon);
	for (i = 0; i < tr->d; i++)
		appendStringInfo(&s, "%s%.17g", i ? ", " : "", tr->lower[i]);
	appendStringInfoString(&s, "], \"upper\": [");
	for (i = 0; i < tr->d; i++)
		appendStringInfo(&s, "%s%.17g", i ? ", " : "", tr->upper[i]);
	appendStringInfo(&s, "], \"horizon\": %d, \"mode\": \"%s\", \"size_hint\": %.17g, "
					 "\"level\": %d, \"sum_share\": %.17g, \"dhat\": %d, \"copies\": %d, "
					 "\"proj_seed\": " INT64_FORMAT ", \"norm_share\": %.17g, "
					 "\"norm_bound\": %.17g, \"delta\": %.17g}",
					 tr->horizon, tr->insert_only ? "insert_only" : "insert_delete",
					 tr->size_hint, tr->level, tr->sum_share, tr->dhat, tr->copies,
					 (int64) tr->proj_seed, tr->norm_share, tr->norm_bound, tr->delta);
	return s.data;
}

/* Attach capture on every foreign partition's table (see shard.h). */
void
dpk_shard_attach_all(const DpkTracked *tr)
{
	const char *hint = "Nothing was attached on the coordinator or on any shard.";
	ListCell   *lc;
	char	   *params[17];
	int			norm_shift = dpk_tracked_norm_shift(tr);
	/* the bound and delta only when needed: older shards serve the rest */
	int			nparams = norm_shift > 0 ? 17 : tr->norm_bound > 0.0 ? 16 : 15;
	char	   *config_json = shard_config_json(tr);

	params[1] = text_array_literal(tr->colnames, tr->ncols);
	params[2] = psprintf("%d", tr->k);
	params[3] = psprintf("%.17g", tr->epsilon);
	params[4] = float_array_literal(tr->lower, tr->d);
	params[5] = float_array_literal(tr->upper, tr->d);
	params[6] = psprintf("%d", tr->horizon);
	params[7] = tr->insert_only ? "insert_only" : "insert_delete";
	params[8] = psprintf("%.17g", tr->size_hint);
	params[9] = psprintf("%d", tr->level);
	params[10] = psprintf("%.17g", tr->sum_share);
	params[11] = psprintf("%d", tr->dhat);
	params[12] = psprintf("%d", tr->copies);
	params[13] = psprintf(INT64_FORMAT, (int64) tr->proj_seed);
	params[14] = psprintf("%.17g", tr->norm_share);
	params[15] = psprintf("%.17g", tr->norm_bound);
	/* the shard derives the unit of the squared norms from it */
	params[16] = psprintf("%.17g", tr->delta);
	foreach(lc, dpk_partition_relids(tr->relid, NoLock))
	{
		Oid			part = lfirst_oid(lc);
		DpkShard	   *sh;
		PGresult   *res;
		DpkOwnerSwitch sw;
		bool		config;

		if (get_rel_relkind(part) != RELKIND_FOREIGN_TABLE)
			continue;
		sh = dpk_shard_describe(part, NULL, hint);
		dpk_shard_connect(sh, GetUserId());
		sh->remote_schema = remote_extension_schema(sh);
		config = remote_has_config_attach(sh);
		if (!config && nparams > 15)
			check_remote_shard_attach(sh, nparams, norm_shift);
		dpk_shard_begin(sh);
		params[0] = sh->remote_table;
		if (config)
		{
			const char *cparams[2] = {sh->remote_table, config_json};

			res = dpk_shard_exec(sh, psprintf("SELECT %s.dp_shard_attach($1::pg_catalog.regclass, "
										  "$2::pg_catalog.jsonb)", sh->remote_schema),
							 2, cparams, PGRES_TUPLES_OK);
		}
		else
			res = dpk_shard_exec(sh, psprintf("SELECT %s.dp_shard_attach($1::pg_catalog.regclass, "
										  "$2::pg_catalog.text[], $3::int, $4::float8, $5::float8[], "
										  "$6::float8[], $7::int, $8, $9::float8, $10::int, "
										  "$11::float8, $12::int, $13::int, $14::bigint, $15::float8%s%s)",
										  sh->remote_schema, nparams > 15 ? ", $16::float8" : "",
										  nparams > 16 ? ", $17::float8" : ""),
							 nparams, (const char *const *) params, PGRES_TUPLES_OK);
		PQclear(res);
		dpk_store_begin(&sw);
		dpk_store_shard_add(tr->relid, part, sh->remote_schema);
		dpk_store_end(&sw);
	}
}

/* The shards of relid with their descriptions (store opened here). */
static List *
registered_shards(Oid relid, const char *hint)
{
	DpkOwnerSwitch sw;
	List	   *rows,
			   *out = NIL;
	ListCell   *lc;

	dpk_store_begin(&sw);
	rows = dpk_store_shard_list(relid);
	dpk_store_end(&sw);
	foreach(lc, rows)
	{
		DpkShardRow *row = lfirst(lc);

		if (get_rel_name(row->partition) == NULL ||
			get_rel_relkind(row->partition) != RELKIND_FOREIGN_TABLE)
		{
			ereport(WARNING,
					(errmsg("shard partition with OID %u of table \"%s\" no longer exists",
							row->partition, get_rel_name(relid)),
					 errdetail("Its server keeps capturing the table's rows."),
					 errhint("Run dp_shard_detach on that server's table.")));
			continue;
		}
		out = lappend(out, dpk_shard_describe(row->partition, row->remote_schema, hint));
	}
	return out;
}

/*
 * ERROR unless the registered shards are exactly the foreign partitions of
 * the tree (a foreign partition detached, dropped or added since dp_attach
 * would be counted wrongly).
 */
static void
check_registry(Oid relid, List *shards)
{
	ListCell   *lc;
	int			nforeign = 0;

	foreach(lc, dpk_partition_relids(relid, NoLock))
	{
		Oid			part = lfirst_oid(lc);
		ListCell   *lc2;
		bool		found = false;

		if (get_rel_relkind(part) != RELKIND_FOREIGN_TABLE)
			continue;
		nforeign++;
		foreach(lc2, shards)
			found = found || ((DpkShard *) lfirst(lc2))->partition == part;
		if (!found)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("foreign partition \"%s\" of table \"%s\" is not one of its shards",
							get_rel_name(part), get_rel_name(relid)),
					 errhint("Run dp_detach and dp_attach on the table to capture its rows.")));
	}
	if (nforeign != list_length(shards))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("a shard of table \"%s\" is no longer one of its partitions",
						get_rel_name(relid)),
				 errhint("Run dp_detach and dp_attach on the table.")));
}

/* Remove the capture on every shard (see shard.h). */
void
dpk_shard_detach_all(Oid relid)
{
	const char *hint = "Nothing was detached; make the shard reachable and run dp_detach again.";
	List	   *shards = registered_shards(relid, hint);
	ListCell   *lc;

	foreach(lc, shards)
	{
		DpkShard	   *sh = lfirst(lc);
		const char *params[1] = {sh->remote_table};

		dpk_shard_connect(sh, GetUserId());
		dpk_shard_begin(sh);
		PQclear(dpk_shard_exec(sh, psprintf("SELECT %s.dp_shard_detach($1::pg_catalog.regclass)",
										sh->remote_schema),
						   1, params, PGRES_TUPLES_OK));
	}
}

/* Every shard's own recount against its state (see shard.h). */
bool
dpk_shard_verify_all(Oid relid)
{
	List	   *shards = registered_shards(relid, "The recount was not finished.");
	ListCell   *lc;
	bool		same = true;

	check_registry(relid, shards);
	foreach(lc, shards)
		dpk_shard_connect((DpkShard *) lfirst(lc), GetUserId());
	foreach(lc, shards)
	{
		DpkShard	   *sh = lfirst(lc);
		const char *params[1] = {sh->remote_table};

		dpk_shard_send(sh, psprintf("SELECT %s.dp_verify($1::pg_catalog.regclass)", sh->remote_schema),
				   1, params, false);
	}
	foreach(lc, shards)
	{
		DpkShard	   *sh = lfirst(lc);
		PGresult   *res = dpk_shard_wait(sh, PGRES_TUPLES_OK);
		bool		ok = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "t") == 0;

		PQclear(res);
		dpk_shard_close(sh);
		if (!ok)
			ereport(NOTICE,
					(errmsg("the state of shard \"%s\" (server \"%s\") differs from a recount of its rows",
							sh->partname, sh->server_name)));
		same = same && ok;
	}
	return same;
}

/* The state a release noises (see shard.h). */
DpkCellMap *
dpk_shard_merged_state(DpkTracked *tr, Oid userid)
{
	List	   *rows = dpk_store_shard_list(tr->relid);
	List	   *shards = NIL;
	ListCell   *lc;
	DpkCellMap *merged;
	char	   *hint;
	char	   *fingerprint;

	if (rows == NIL && !dpk_shard_tree_has_foreign(tr->relid))
		return &tr->state;
	hint = psprintf("No release was made; the next successful release of \"%s\" will be number %d.",
					get_rel_name(tr->relid), tr->releases + 1);
	foreach(lc, rows)
	{
		DpkShardRow *row = lfirst(lc);

		if (get_rel_relkind(row->partition) != RELKIND_FOREIGN_TABLE)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("a shard of table \"%s\" no longer exists", get_rel_name(tr->relid)),
					 errhint("Run dp_detach and dp_attach on the table.")));
		shards = lappend(shards, dpk_shard_describe(row->partition, row->remote_schema, hint));
	}
	check_registry(tr->relid, shards);
	fingerprint = dpk_shard_fingerprint(tr);

	/* connect to all, then let every shard fold at once */
	foreach(lc, shards)
		dpk_shard_connect((DpkShard *) lfirst(lc), userid);
	foreach(lc, shards)
	{
		DpkShard	   *sh = lfirst(lc);
		const char *params[2] = {sh->remote_table, fingerprint};

		dpk_shard_send(sh, psprintf("SELECT %s.dp_shard_state($1::pg_catalog.regclass, $2)",
								sh->remote_schema), 2, params, true);
	}
	merged = palloc(sizeof(DpkCellMap));
	dpk_cellmap_init(merged, tr->d);
	dpk_cellmap_merge(merged, &tr->state, +1);
	foreach(lc, shards)
	{
		DpkShard	   *sh = lfirst(lc);
		PGresult   *res = dpk_shard_wait(sh, PGRES_TUPLES_OK);
		bool		ok = PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) &&
			dpk_cellmap_merge_serialized(merged, (const uint8_t *) PQgetvalue(res, 0, 0),
										 PQgetlength(res, 0, 0), +1);

		PQclear(res);
		dpk_shard_close(sh);
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("shard \"%s\" (server \"%s\") returned a state this library cannot read",
							sh->partname, sh->server_name),
					 errhint("Install the same dpkmeans version on the coordinator and the shards. %s",
							 hint)));
	}
	return merged;
}

/* The public configuration both sides must agree on (see shard.h). */
char *
dpk_shard_fingerprint(const DpkTracked *tr)
{
	StringInfoData s;
	int			norm_shift = dpk_tracked_norm_shift(tr);
	int			i;

	initStringInfo(&s);
	appendStringInfo(&s, "d=%d level=%d dhat=%d copies=%d seed=" UINT64_FORMAT " mode=%s",
					 tr->d, tr->level, tr->dhat, tr->copies, tr->proj_seed,
					 tr->insert_only ? "insert_only" : "insert_delete");
	/* projected tables: normalized or metric positions (trigger format 3) */
	if (tr->dhat > 0)
		appendStringInfo(&s, " metric=%d", tr->trigger_format >= 3);
	/* only when set, so that tables without a bound keep 0.4's fingerprint */
	if (tr->norm_bound > 0.0)
		appendStringInfo(&s, " norm_bound=%.17g", tr->norm_bound);
	/* the unit of the squared norms, derived on each side (only when > 0) */
	if (norm_shift > 0)
		appendStringInfo(&s, " norm_shift=%d", norm_shift);
	for (i = 0; i < tr->d; i++)
		appendStringInfo(&s, " box%d=%.17g:%.17g", i, tr->lower[i], tr->upper[i]);
	for (i = 0; i < tr->ncols; i++)
		appendStringInfo(&s, " col=%s", quote_identifier(tr->colnames[i]));
	return s.data;
}
