/*
 * readers.h
 *		The access checks every reader of a table's releases passes.
 */
#ifndef DPK_READERS_H
#define DPK_READERS_H

#include "postgres.h"

#include "utils/palloc.h"

#include "store.h"

/*
 * Start a reader of a table's releases: ERROR (42501) unless the caller is
 * the owner, a superuser or has a granted reader's privileges; ERROR if the
 * table is not attached or, with need_release, has no release yet.  Reads the
 * configuration into ctx and leaves the store open (dpk_store_end after).
 */
void		dpk_reader_begin(Oid relid, bool need_release, MemoryContext ctx,
							 struct DpkTracked *tr, DpkOwnerSwitch *sw);

/* ERROR when a table has no release yet (readers never make one). */
void		dpk_reader_require_release(const struct DpkTracked *tr);

/*
 * 42501 unless `caller` may read relid's `what` (inside dpk_store_begin;
 * caller taken before it, which switches to the extension's owner).
 */
void		dpk_reader_check_access(Oid relid, Oid caller, const char *what, const char *them);

#endif
