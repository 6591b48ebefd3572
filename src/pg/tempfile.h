/*
 * tempfile.h
 *		Unbuffered temporary files (in temp_tablespaces) for the points a
 *		one-shot keeps beyond work_mem and, behind the core's
 *		DpkHighdSpill, for the per-row values its passes keep.
 */
#ifndef DPK_TEMPFILE_H
#define DPK_TEMPFILE_H

#include "postgres.h"

#include "storage/fd.h"

#include "highd_column.h"

/*
 * A spill whose files are unbuffered temporary files (dpk_pg_temp_open)
 * made at their first use, each column kept in memory up to work_mem.  The
 * files go at the end of the transaction if an error leaves them open.
 */
void		dpk_pg_spill_init(DpkHighdSpill *spill);

/*
 * A temporary file (in temp_tablespaces, removed when closed or at the end
 * of the transaction) written and read at byte offsets with no buffer of
 * its own: one system call per call up to a gigabyte, for callers that
 * move whole chunks or buffers.
 */
File		dpk_pg_temp_open(void);
void		dpk_pg_temp_write(File file, off_t offset, const void *data, size_t bytes);
void		dpk_pg_temp_read(File file, off_t offset, void *data, size_t bytes);

#endif							/* DPK_TEMPFILE_H */
