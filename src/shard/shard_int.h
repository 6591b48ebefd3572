/*
 * shard_int.h
 *		The private part of the coordinator's side of shards (shard.h): the
 *		shard as the coordinator reaches it and the libpq connection handling
 *		(shard_conn.c) that the shard protocol's operations (shard.c) use.
 */
#ifndef DPK_SHARD_INT_H
#define DPK_SHARD_INT_H

#include "postgres.h"

#include "libpq-fe.h"

/* One shard as the coordinator reaches it. */
typedef struct DpkShard
{
	Oid			partition;		/* the foreign partition on this server */
	char	   *partname;
	Oid			serverid;
	char	   *server_name;
	char	   *remote_table;	/* quoted, schema-qualified name on the shard */
	char	   *remote_schema;	/* quoted schema of dpkmeans on the shard */
	PGconn	   *conn;
	const char *hint;			/* what a failure means for the caller */
} DpkShard;

/* Describe the shard behind a foreign partition (not yet connected). */
DpkShard   *dpk_shard_describe(Oid partition, const char *remote_schema, const char *hint);

/* Connect to a shard as role userid's user mapping says (see shard_conn.c). */
void		dpk_shard_connect(DpkShard *sh, Oid userid);

/* Send a statement (text parameters; binary results when binary). */
void		dpk_shard_send(DpkShard *sh, const char *sql, int nparams,
						   const char *const *params, bool binary);

/*
 * Wait for the result of the statement sent last, interruptibly.  Returns
 * it (PQclear it) when its status is expect; ERROR naming the shard else.
 */
PGresult   *dpk_shard_wait(DpkShard *sh, ExecStatusType expect);

/* Run one statement and wait for it (see dpk_shard_wait). */
PGresult   *dpk_shard_exec(DpkShard *sh, const char *sql, int nparams,
						   const char *const *params, ExecStatusType expect);

/*
 * Open a remote transaction on a connected shard; it commits just before
 * the local transaction and rolls back with it.
 */
void		dpk_shard_begin(DpkShard *sh);

/* Close a shard's connection now (it was done with). */
void		dpk_shard_close(DpkShard *sh);

#endif							/* DPK_SHARD_INT_H */
