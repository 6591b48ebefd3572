/*
 * shard.h
 *		A partitioned table whose partitions are postgres_fdw foreign tables
 *		on other servers ("shards"), released as one.
 *
 * Each shard captures the rows it stores (dp_shard_attach, no key and no
 * release there); the coordinator's release gathers every shard's folded
 * true state in one round trip per shard, merges it with its own local
 * partitions' state and adds the noise once (src/shard/shard.c).  See
 * doc/scale-out.md.
 */
#ifndef DPK_SHARD_H
#define DPK_SHARD_H

#include "postgres.h"


#include "cellmap.h"

struct DpkTracked;

/*
 * ERROR unless every table of the tree under relid can be captured at
 * dp_attach: foreign tables must be postgres_fdw's (their servers capture
 * their rows); a Citus table is refused (src/api/shard_side.c).
 */
void		dpk_shard_check_tree(Oid relid);

/*
 * The shard table behind foreign partition `partition`: its schema_name and
 * table_name options (postgres_fdw's defaults: the partition's own),
 * quoted and schema-qualified.
 */
char	   *dpk_shard_remote_table(Oid partition);

/*
 * Coordinator (src/shard/shard.c).  Attach: capture on each foreign partition's
 * table on its server, in a remote transaction committed with the local
 * one, and record the shards.  Detach: remove it.  Verify: every shard's
 * own recount.  All reach a shard through the foreign server's options and
 * the current user's user mapping.
 *
 * The coordinator sends a shard its table's configuration as one jsonb
 * object, {"protocol": DPK_SHARD_PROTOCOL, "columns": [...], "k": ...,
 * "delta": ...}, to dp_shard_attach(tbl, config) (0.8 on): a field added
 * later makes a new protocol version, which an older shard refuses by name
 * (0A000) instead of misreading.  Shards before 0.8 get the positional call
 * of 0.5 (0.3 for tables without a norm bound or a coarser unit).
 */
#define DPK_SHARD_PROTOCOL 1

void		dpk_shard_attach_all(const struct DpkTracked *tr);
void		dpk_shard_detach_all(Oid relid);
bool		dpk_shard_verify_all(Oid relid);

/*
 * The state a release of tr noises: tr's folded local state plus every
 * shard's folded true state, gathered for role userid (the caller of
 * dp_release).  Returns &tr->state itself when the table has no shard.
 * ERROR naming the shard when one cannot be reached or fails.  Runs between
 * dpk_store_begin and dpk_store_end.
 */
DpkCellMap *dpk_shard_merged_state(struct DpkTracked *tr, Oid userid);

/*
 * Shard side: ERROR when relid is a shard table (its releases are made by
 * its coordinator).  Runs between dpk_store_begin and dpk_store_end.
 */
void		dpk_shard_refuse_release(Oid relid);

/* The public configuration both sides must agree on, as one string. */
char	   *dpk_shard_fingerprint(const struct DpkTracked *tr);

/*
 * Internal tables of shards (src/shard/store_shard.c), between dpk_store_begin
 * and dpk_store_end.  Coordinator: the shards of an attached table.  Shard:
 * the mark of a shard table and its state.
 */
typedef struct DpkShardRow
{
	Oid			partition;
	char	   *remote_schema;
} DpkShardRow;

void		dpk_store_shard_add(Oid relid, Oid partition, const char *remote_schema);
List	   *dpk_store_shard_list(Oid relid);	/* of DpkShardRow * */
void		dpk_store_shard_delete(Oid relid);
void		dpk_store_shard_mark(Oid relid);
bool		dpk_store_shard_is_marked(Oid relid);
void		dpk_store_shard_unmark(Oid relid);
void		dpk_store_set_state(Oid relid, const DpkCellMap *state, uint64 pad_to);

#endif
