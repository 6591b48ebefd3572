/*
 * shard.c
 *		The coordinator's side of shards: it reaches each foreign partition's
 *		server with libpq, through the foreign server's options and the user
 *		mapping of the role that acts (the table's owner), to attach, gather,
 *		verify and detach the capture of the shard's table.
 *
 * Attach and detach run in a remote transaction per shard that commits
 * just before the local transaction (and rolls back with it), so a failed
 * dp_attach leaves no shard attached; dp_shard_attach accepts a table
 * already attached with the same configuration, so a retry after a failure
 * between two remote commits goes through.  A release gathers each shard's
 * folded true state in one round trip per shard, the queries of every shard
 * running at once; any failure fails the release before anything is noised
 * or stored.
 *
 * As postgres_fdw does, a role that is not a superuser must reach a shard
 * with a password from its user mapping, and the shard must have asked for
 * it (unless a superuser set password_required 'false' on the mapping): the
 * server process must never lend its own credentials (peer, .pgpass,
 * environment) to an ordinary role.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "libpq-fe.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "capture.h"
#include "shard.h"
#include "store.h"

/* One shard as the coordinator reaches it. */
typedef struct Shard
{
	Oid			partition;		/* the foreign partition on this server */
	char	   *partname;
	Oid			serverid;
	char	   *server_name;
	char	   *remote_table;	/* quoted, schema-qualified name on the shard */
	char	   *remote_schema;	/* quoted schema of dpkmeans on the shard */
	PGconn	   *conn;
	const char *hint;			/* what a failure means for the caller */
} Shard;

/*
 * Open connections (TopMemoryContext): closed at the end of the local
 * transaction, after COMMIT was sent to those holding a remote transaction.
 */
typedef struct OpenConn
{
	PGconn	   *conn;
	bool		in_xact;
	int			nest;			/* local (sub)transaction level of BEGIN */
	char	   *what;			/* "shard "p" (server "s")" */
} OpenConn;

static List *open_conns = NIL;
static bool callbacks_registered = false;

/* Forget and close one open connection. */
static void
close_conn(PGconn *conn)
{
	ListCell   *lc;

	foreach(lc, open_conns)
	{
		OpenConn   *oc = lfirst(lc);

		if (oc->conn == conn)
		{
			open_conns = foreach_delete_current(open_conns, lc);
			pfree(oc->what);
			pfree(oc);
			break;
		}
	}
	PQfinish(conn);
}

/* Close every open connection (a remote transaction left open rolls back). */
static void
close_all(void)
{
	while (open_conns != NIL)
		close_conn(((OpenConn *) linitial(open_conns))->conn);
}

/*
 * End of the local transaction: commit the remote transactions of attach
 * and detach just before it (an error there aborts it), close everything.
 */
static void
shard_xact_callback(XactEvent event, void *arg)
{
	ListCell   *lc;

	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
			foreach(lc, open_conns)
			{
				OpenConn   *oc = lfirst(lc);
				PGresult   *res;

				if (!oc->in_xact)
					continue;
				oc->in_xact = false;
				res = PQexec(oc->conn, "COMMIT");
				if (PQresultStatus(res) != PGRES_COMMAND_OK)
				{
					char	   *what = pstrdup(oc->what);
					char	   *msg = pstrdup(PQerrorMessage(oc->conn));

					PQclear(res);
					close_all();
					ereport(ERROR,
							(errcode(ERRCODE_CONNECTION_FAILURE),
							 errmsg("could not commit on %s", what),
							 errdetail("%s", msg),
							 errhint("Shards committed before it stay attached or detached; run the same command again.")));
				}
				PQclear(res);
			}
			close_all();
			break;
		case XACT_EVENT_PRE_PREPARE:
			if (open_conns != NIL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot prepare a transaction that attached or detached shards")));
			break;
		default:
			close_all();
			break;
	}
}

/* A rolled back subtransaction rolls back the remote work it started. */
static void
shard_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	int			level = GetCurrentTransactionNestLevel();
	ListCell   *lc;

	if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		foreach(lc, open_conns)
			if (((OpenConn *) lfirst(lc))->nest >= level)
				((OpenConn *) lfirst(lc))->nest = level - 1;
	}
	else if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		foreach(lc, open_conns)
		{
			OpenConn   *oc = lfirst(lc);

			if (oc->nest >= level)
			{
				open_conns = foreach_delete_current(open_conns, lc);
				PQfinish(oc->conn);
				pfree(oc->what);
				pfree(oc);
			}
		}
	}
}

/* Remember an open connection until the end of the transaction. */
static void
remember_conn(Shard *sh)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	OpenConn   *oc = palloc0(sizeof(OpenConn));

	if (!callbacks_registered)
	{
		RegisterXactCallback(shard_xact_callback, NULL);
		RegisterSubXactCallback(shard_subxact_callback, NULL);
		callbacks_registered = true;
	}
	oc->conn = sh->conn;
	oc->nest = GetCurrentTransactionNestLevel();
	oc->what = psprintf("shard \"%s\" (server \"%s\")", sh->partname, sh->server_name);
	open_conns = lappend(open_conns, oc);
	MemoryContextSwitchTo(old);
}

/* The shard table of a foreign partition (see shard.h). */
char *
dpk_shard_remote_table(Oid partition)
{
	ForeignTable *ft = GetForeignTable(partition);
	const char *nspname = get_namespace_name(get_rel_namespace(partition));
	const char *relname = get_rel_name(partition);
	ListCell   *lc;

	foreach(lc, ft->options)
	{
		DefElem    *opt = lfirst(lc);

		if (strcmp(opt->defname, "schema_name") == 0)
			nspname = defGetString(opt);
		else if (strcmp(opt->defname, "table_name") == 0)
			relname = defGetString(opt);
	}
	return psprintf("%s.%s", quote_identifier(nspname), quote_identifier(relname));
}

/* Describe the shard behind a foreign partition. */
static Shard *
shard_describe(Oid partition, const char *remote_schema, const char *hint)
{
	ForeignServer *server = GetForeignServer(GetForeignTable(partition)->serverid);
	Shard	   *sh = palloc0(sizeof(Shard));

	sh->partition = partition;
	sh->partname = get_rel_name(partition);
	sh->serverid = server->serverid;
	sh->server_name = server->servername;
	sh->remote_table = dpk_shard_remote_table(partition);
	sh->remote_schema = remote_schema ? pstrdup(remote_schema) : NULL;
	sh->hint = hint;
	return sh;
}

/* ERROR naming the shard, with libpq's message (the connection is closed). */
static void
shard_fail(Shard *sh, const char *what)
{
	char	   *msg = pstrdup(sh->conn ? PQerrorMessage(sh->conn) : "out of memory");

	if (sh->conn)
		close_conn(sh->conn);
	sh->conn = NULL;
	ereport(ERROR,
			(errcode(ERRCODE_CONNECTION_FAILURE),
			 errmsg("could not %s shard \"%s\" (server \"%s\")", what, sh->partname,
					sh->server_name),
			 errdetail("%s", msg),
			 errhint("%s", sh->hint)));
}

/* ERROR with the shard's own error, naming the shard. */
static void
shard_remote_error(Shard *sh, PGresult *res)
{
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	char	   *msg = pstrdup(PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) ?
							  PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) :
							  PQerrorMessage(sh->conn));
	char	   *detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) ?
		pstrdup(PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL)) : NULL;
	char	   *hint = PQresultErrorField(res, PG_DIAG_MESSAGE_HINT) ?
		pstrdup(PQresultErrorField(res, PG_DIAG_MESSAGE_HINT)) : NULL;
	int			code = ERRCODE_CONNECTION_FAILURE;

	if (state != NULL && strlen(state) == 5)
		code = MAKE_SQLSTATE(state[0], state[1], state[2], state[3], state[4]);
	PQclear(res);
	close_conn(sh->conn);
	sh->conn = NULL;
	ereport(ERROR,
			(errcode(code),
			 errmsg("shard \"%s\" (server \"%s\"): %s", sh->partname, sh->server_name, msg),
			 detail ? errdetail("%s", detail) : 0,
			 errhint("%s%s%s", hint ? hint : "", hint ? " " : "", sh->hint)));
}

/* Whether a keyword is one libpq takes in a connection (not a debug option). */
static bool
is_libpq_keyword(PQconninfoOption *defs, const char *name)
{
	PQconninfoOption *o;

	if (strcmp(name, "fallback_application_name") == 0 ||
		strcmp(name, "client_encoding") == 0 || strcmp(name, "replication") == 0)
		return false;
	for (o = defs; o->keyword; o++)
		if (strcmp(o->keyword, name) == 0)
			return strchr(o->dispchar, 'D') == NULL;
	return false;
}

/* Connect to a shard as role userid's user mapping says (see file header). */
static void
shard_connect(Shard *sh, Oid userid)
{
	UserMapping *um;
	PQconninfoOption *defs;
	List	   *opts;
	ListCell   *lc;
	const char **kw,
			  **val;
	int			n = 0;
	bool		has_password = false,
				password_required = true;
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;

	if (!SearchSysCacheExists2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(userid),
							   ObjectIdGetDatum(sh->serverid)) &&
		!SearchSysCacheExists2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(InvalidOid),
							   ObjectIdGetDatum(sh->serverid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("no user mapping for role \"%s\" on server \"%s\" of shard \"%s\"",
						GetUserNameFromId(userid, false), sh->server_name, sh->partname),
				 errhint("CREATE USER MAPPING FOR the table's owner SERVER %s with the shard's role. %s",
						 quote_identifier(sh->server_name), sh->hint)));
	um = GetUserMapping(userid, sh->serverid);
	defs = PQconndefaults();
	if (defs == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	opts = list_concat(list_copy(GetForeignServer(sh->serverid)->options), um->options);
	kw = palloc((list_length(opts) + 3) * sizeof(char *));
	val = palloc((list_length(opts) + 3) * sizeof(char *));
	foreach(lc, opts)
	{
		DefElem    *opt = lfirst(lc);

		if (strcmp(opt->defname, "password_required") == 0)
			password_required = defGetBoolean(opt);
		if (!is_libpq_keyword(defs, opt->defname))
			continue;
		if (strcmp(opt->defname, "password") == 0 && defGetString(opt)[0] != '\0')
			has_password = true;
		kw[n] = opt->defname;
		val[n++] = defGetString(opt);
	}
	PQconninfoFree(defs);
	kw[n] = "fallback_application_name";
	val[n++] = "dpkmeans";
	kw[n] = "client_encoding";
	val[n++] = GetDatabaseEncodingName();
	kw[n] = NULL;
	val[n] = NULL;
	if (!superuser_arg(userid) && password_required && !has_password)
		ereport(ERROR,
				(errcode(ERRCODE_S_R_E_PROHIBITED_SQL_STATEMENT_ATTEMPTED),
				 errmsg("the user mapping of role \"%s\" on server \"%s\" has no password",
						GetUserNameFromId(userid, false), sh->server_name),
				 errdetail("A role that is not a superuser must reach a shard with a password of its own."),
				 errhint("Add OPTIONS (password '...') to the user mapping.")));

	sh->conn = PQconnectStartParams(kw, val, false);
	if (sh->conn == NULL)
		shard_fail(sh, "connect to");
	remember_conn(sh);
	if (PQstatus(sh->conn) == CONNECTION_BAD)
		shard_fail(sh, "connect to");
	while (st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED)
	{
		int			ev = st == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
		int			rc = WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | ev,
										   PQsocket(sh->conn), -1L, PG_WAIT_EXTENSION);

		if (rc & WL_LATCH_SET)
		{
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
		if (rc & ev)
			st = PQconnectPoll(sh->conn);
	}
	if (st == PGRES_POLLING_FAILED)
		shard_fail(sh, "connect to");
	if (!superuser_arg(userid) && password_required && !PQconnectionUsedPassword(sh->conn))
	{
		close_conn(sh->conn);
		sh->conn = NULL;
		ereport(ERROR,
				(errcode(ERRCODE_S_R_E_PROHIBITED_SQL_STATEMENT_ATTEMPTED),
				 errmsg("server \"%s\" of shard \"%s\" did not ask for a password",
						sh->server_name, sh->partname),
				 errdetail("A role that is not a superuser must be authenticated by the shard with its mapping's password."),
				 errhint("Use password authentication for the shard's role, or let a superuser set password_required 'false' on the user mapping.")));
	}
}

/* Send a statement (text parameters; binary results when binary). */
static void
shard_send(Shard *sh, const char *sql, int nparams, const char *const *params, bool binary)
{
	if (!PQsendQueryParams(sh->conn, sql, nparams, NULL, params, NULL, NULL, binary ? 1 : 0))
		shard_fail(sh, "send a statement to");
}

/*
 * Wait for the result of the statement sent last, interruptibly.  Returns
 * it (PQclear it) when its status is expect; ERROR naming the shard else.
 */
static PGresult *
shard_wait(Shard *sh, ExecStatusType expect)
{
	PGresult   *last = NULL,
			   *res;

	for (;;)
	{
		while (PQisBusy(sh->conn))
		{
			int			rc = WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_SOCKET_READABLE |
											   WL_EXIT_ON_PM_DEATH, PQsocket(sh->conn), -1L,
											   PG_WAIT_EXTENSION);

			if (rc & WL_LATCH_SET)
			{
				ResetLatch(MyLatch);
				CHECK_FOR_INTERRUPTS();
			}
			if ((rc & WL_SOCKET_READABLE) && !PQconsumeInput(sh->conn))
			{
				PQclear(last);
				shard_fail(sh, "read from");
			}
		}
		res = PQgetResult(sh->conn);
		if (res == NULL)
			break;
		PQclear(last);
		last = res;
	}
	if (last == NULL)
		shard_fail(sh, "read from");
	if (PQresultStatus(last) != expect)
		shard_remote_error(sh, last);
	return last;
}

/* Run one statement and wait for it (see shard_wait). */
static PGresult *
shard_exec(Shard *sh, const char *sql, int nparams, const char *const *params,
		   ExecStatusType expect)
{
	shard_send(sh, sql, nparams, params, false);
	return shard_wait(sh, expect);
}

/* Close a shard's connection now (it was done with). */
static void
shard_close(Shard *sh)
{
	if (sh->conn)
		close_conn(sh->conn);
	sh->conn = NULL;
}

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
remote_extension_schema(Shard *sh)
{
	PGresult   *res = shard_exec(sh,
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
		shard_close(sh);
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
		shard_close(sh);
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
check_remote_shard_attach(Shard *sh, int nargs, int norm_shift)
{
	const char *params[2] = {sh->remote_schema, psprintf("%d", nargs)};
	PGresult   *res = shard_exec(sh,
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
	shard_close(sh);
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
remote_has_config_attach(Shard *sh)
{
	const char *params[1] = {sh->remote_schema};
	PGresult   *res = shard_exec(sh,
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
		Shard	   *sh;
		PGresult   *res;
		DpkOwnerSwitch sw;
		ListCell   *oc;
		bool		config;

		if (get_rel_relkind(part) != RELKIND_FOREIGN_TABLE)
			continue;
		sh = shard_describe(part, NULL, hint);
		shard_connect(sh, GetUserId());
		sh->remote_schema = remote_extension_schema(sh);
		config = remote_has_config_attach(sh);
		if (!config && nparams > 15)
			check_remote_shard_attach(sh, nparams, norm_shift);
		PQclear(shard_exec(sh, "BEGIN", 0, NULL, PGRES_COMMAND_OK));
		foreach(oc, open_conns)
			if (((OpenConn *) lfirst(oc))->conn == sh->conn)
				((OpenConn *) lfirst(oc))->in_xact = true;
		params[0] = sh->remote_table;
		if (config)
		{
			const char *cparams[2] = {sh->remote_table, config_json};

			res = shard_exec(sh, psprintf("SELECT %s.dp_shard_attach($1::pg_catalog.regclass, "
										  "$2::pg_catalog.jsonb)", sh->remote_schema),
							 2, cparams, PGRES_TUPLES_OK);
		}
		else
			res = shard_exec(sh, psprintf("SELECT %s.dp_shard_attach($1::pg_catalog.regclass, "
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
		out = lappend(out, shard_describe(row->partition, row->remote_schema, hint));
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
			found = found || ((Shard *) lfirst(lc2))->partition == part;
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
		Shard	   *sh = lfirst(lc);
		const char *params[1] = {sh->remote_table};
		ListCell   *oc;

		shard_connect(sh, GetUserId());
		PQclear(shard_exec(sh, "BEGIN", 0, NULL, PGRES_COMMAND_OK));
		foreach(oc, open_conns)
			if (((OpenConn *) lfirst(oc))->conn == sh->conn)
				((OpenConn *) lfirst(oc))->in_xact = true;
		PQclear(shard_exec(sh, psprintf("SELECT %s.dp_shard_detach($1::pg_catalog.regclass)",
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
		shard_connect((Shard *) lfirst(lc), GetUserId());
	foreach(lc, shards)
	{
		Shard	   *sh = lfirst(lc);
		const char *params[1] = {sh->remote_table};

		shard_send(sh, psprintf("SELECT %s.dp_verify($1::pg_catalog.regclass)", sh->remote_schema),
				   1, params, false);
	}
	foreach(lc, shards)
	{
		Shard	   *sh = lfirst(lc);
		PGresult   *res = shard_wait(sh, PGRES_TUPLES_OK);
		bool		ok = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "t") == 0;

		PQclear(res);
		shard_close(sh);
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
		shards = lappend(shards, shard_describe(row->partition, row->remote_schema, hint));
	}
	check_registry(tr->relid, shards);
	fingerprint = dpk_shard_fingerprint(tr);

	/* connect to all, then let every shard fold at once */
	foreach(lc, shards)
		shard_connect((Shard *) lfirst(lc), userid);
	foreach(lc, shards)
	{
		Shard	   *sh = lfirst(lc);
		const char *params[2] = {sh->remote_table, fingerprint};

		shard_send(sh, psprintf("SELECT %s.dp_shard_state($1::pg_catalog.regclass, $2)",
								sh->remote_schema), 2, params, true);
	}
	merged = palloc(sizeof(DpkCellMap));
	dpk_cellmap_init(merged, tr->d);
	dpk_cellmap_merge(merged, &tr->state, +1);
	foreach(lc, shards)
	{
		Shard	   *sh = lfirst(lc);
		PGresult   *res = shard_wait(sh, PGRES_TUPLES_OK);
		bool		ok = PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) &&
			dpk_cellmap_merge_serialized(merged, (const uint8_t *) PQgetvalue(res, 0, 0),
										 PQgetlength(res, 0, 0), +1);

		PQclear(res);
		shard_close(sh);
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
