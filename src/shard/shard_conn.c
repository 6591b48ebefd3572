/*
 * shard_conn.c
 *		The coordinator's libpq connections to shards: describing the shard
 *		behind a foreign partition, connecting through the foreign server's
 *		options and the acting role's user mapping, sending statements and
 *		waiting for them interruptibly, reporting a shard's failures, and the
 *		remote transactions of attach and detach.
 *
 * A remote transaction commits just before the local transaction (and rolls
 * back with it, or with the subtransaction that began it); every connection
 * closes at the end of the local transaction.
 *
 * As postgres_fdw does, a role that is not a superuser must reach a shard
 * with a password from its user mapping, and the shard must have asked for
 * it (unless a superuser set password_required 'false' on the mapping): the
 * server process must never lend its own credentials (peer, .pgpass,
 * environment) to an ordinary role.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "libpq-fe.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "shard.h"
#include "shard_int.h"

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
remember_conn(DpkShard *sh)
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
DpkShard *
dpk_shard_describe(Oid partition, const char *remote_schema, const char *hint)
{
	ForeignServer *server = GetForeignServer(GetForeignTable(partition)->serverid);
	DpkShard	   *sh = palloc0(sizeof(DpkShard));

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
shard_fail(DpkShard *sh, const char *what)
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
shard_remote_error(DpkShard *sh, PGresult *res)
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
void
dpk_shard_connect(DpkShard *sh, Oid userid)
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
void
dpk_shard_send(DpkShard *sh, const char *sql, int nparams, const char *const *params, bool binary)
{
	if (!PQsendQueryParams(sh->conn, sql, nparams, NULL, params, NULL, NULL, binary ? 1 : 0))
		shard_fail(sh, "send a statement to");
}

/*
 * Wait for the result of the statement sent last, interruptibly.  Returns
 * it (PQclear it) when its status is expect; ERROR naming the shard else.
 */
PGresult *
dpk_shard_wait(DpkShard *sh, ExecStatusType expect)
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

/* Run one statement and wait for it (see dpk_shard_wait). */
PGresult *
dpk_shard_exec(DpkShard *sh, const char *sql, int nparams, const char *const *params,
			   ExecStatusType expect)
{
	dpk_shard_send(sh, sql, nparams, params, false);
	return dpk_shard_wait(sh, expect);
}

/*
 * Open a remote transaction on a connected shard; it commits just before
 * the local transaction and rolls back with it.
 */
void
dpk_shard_begin(DpkShard *sh)
{
	ListCell   *oc;

	PQclear(dpk_shard_exec(sh, "BEGIN", 0, NULL, PGRES_COMMAND_OK));
	foreach(oc, open_conns)
		if (((OpenConn *) lfirst(oc))->conn == sh->conn)
			((OpenConn *) lfirst(oc))->in_xact = true;
}

/* Close a shard's connection now (it was done with). */
void
dpk_shard_close(DpkShard *sh)
{
	if (sh->conn)
		close_conn(sh->conn);
	sh->conn = NULL;
}
