/*
 * tempfile.h
 *		Temporary files (BufFile, in temp_tablespaces) behind the core's
 *		DpkHighdSpill, for the per-row values a one-shot keeps beyond
 *		work_mem; and unbuffered ones for its points.
 */
#ifndef DPK_TEMPFILE_H
#define DPK_TEMPFILE_H

#include "postgres.h"

#include "storage/fd.h"

#include "highd_column.h"

/*
 * A spill whose files are BufFiles made in the current memory context at
 * their first use, each column kept in memory up to work_mem.  The files
 * go at the end of the transaction if an error leaves them open.
 */
void		dpk_pg_spill_init(DpkHighdSpill *spill);

/*
 * A temporary file (in temp_tablespaces, removed when closed or at the end
 * of the transaction) written and read at byte offsets with no buffer of
 * its own: one system call per gigabyte, for callers that move megabytes.
 */
File		dpk_pg_temp_open(void);
void		dpk_pg_temp_write(File file, off_t offset, const void *data, size_t bytes);
void		dpk_pg_temp_read(File file, off_t offset, void *data, size_t bytes);

#endif							/* DPK_TEMPFILE_H */
