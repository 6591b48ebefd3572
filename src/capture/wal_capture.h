/*
 * wal_capture.h
 *		Tables whose changes are counted from the WAL by logical decoding
 *		(src/capture/wal_capture.c: the output plugin and the sync; src/capture/wal_slot.c:
 *		their replication slots and the SQL functions).
 */
#ifndef DPK_WAL_CAPTURE_H
#define DPK_WAL_CAPTURE_H

#include "postgres.h"

#include "access/xlogdefs.h"

#include "store.h"

/*
 * Count the committed changes of tr's table that are not counted yet, as
 * one delta, and store the WAL position they are counted to, in the
 * caller's transaction.  False (nothing done) for a table captured by
 * triggers.  Inside dpk_store_begin; tr read with its row lock.
 */
bool		dpk_wal_sync(const DpkTracked *tr, XLogRecPtr *counted_to);

/* The slot name of a table: dpkmeans_<database oid>_<table oid>. */
void		dpk_wal_slot_name(Oid relid, char *name);

/*
 * ERROR unless relid can be captured from the WAL: wal_level = logical, an
 * ordinary permanent table, and (checked first, with a hint) a transaction
 * that has not written yet.
 */
void		dpk_wal_check_attach(Oid relid);

/*
 * Create the table's slot, kept by this session until the transaction ends:
 * made persistent when it commits, dropped when it (or the subtransaction
 * that created it) aborts.  Called before the table is locked.
 */
void		dpk_wal_create_slot(Oid relid);

/* Set the table's replica identity; returns the previous one (and index). */
char		dpk_wal_set_identity(Oid relid, char identity, Oid index, Oid *prev_index);

/*
 * Whether slot is relid's own: the name dpk_wal_slot_name gives it in this
 * database.  A copy restored elsewhere stores the original's slot name,
 * which is another table's (or nobody's) there.
 */
bool		dpk_wal_slot_is_tables(Oid relid, const char *slot);

/*
 * Drop relid's slot when the transaction commits (detach, DROP TABLE, DROP
 * EXTENSION); nothing when slot is not relid's own.
 */
void		dpk_wal_drop_at_commit(Oid relid, const char *slot);

#endif
