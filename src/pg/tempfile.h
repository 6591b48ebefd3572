/*
 * tempfile.h
 *		Temporary files (BufFile, in temp_tablespaces) behind the core's
 *		DpkHighdSpill, for the per-row values a one-shot keeps beyond
 *		work_mem.
 */
#ifndef DPK_TEMPFILE_H
#define DPK_TEMPFILE_H

#include "postgres.h"

#include "highd_column.h"

/*
 * A spill whose files are BufFiles made in the current memory context at
 * their first use, each column kept in memory up to work_mem.  The files
 * go at the end of the transaction if an error leaves them open.
 */
void		dpk_pg_spill_init(DpkHighdSpill *spill);

#endif							/* DPK_TEMPFILE_H */
