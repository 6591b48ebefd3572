/*
 * tempfile.c
 *		BufFile temporary files behind DpkHighdSpill (see tempfile.h).
 */
#include "tempfile.h"

#include "commands/tablespace.h"
#include "miscadmin.h"
#include "storage/buffile.h"

/* open of a DpkHighdSpill: an empty BufFile in temp_tablespaces. */
static void *
spill_open(void *arg)
{
	(void) arg;
	PrepareTempTablespaces();
	return BufFileCreateTemp(false);
}

/* Position a file at a byte offset. */
static void
spill_seek(BufFile *file, uint64_t offset)
{
	if (BufFileSeek(file, 0, (off_t) offset, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in the temporary file of dp_kmeans: %m")));
}

/* write of a DpkHighdSpill. */
static void
spill_write(void *file, uint64_t offset, const void *data, size_t bytes)
{
	spill_seek(file, offset);
	BufFileWrite(file, unconstify(void *, data), bytes);
}

/* read of a DpkHighdSpill: bytes written before, all of them. */
static void
spill_read(void *file, uint64_t offset, void *data, size_t bytes)
{
	size_t		got;

	CHECK_FOR_INTERRUPTS();
	spill_seek(file, offset);
	got = BufFileRead(file, data, bytes);
	if (got != bytes)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read the temporary file of dp_kmeans: read only %zu of %zu bytes",
						got, bytes)));
}

/* close of a DpkHighdSpill: the file removed. */
static void
spill_close(void *file)
{
	BufFileClose(file);
}

/* BufFiles kept in memory up to work_mem (see tempfile.h). */
void
dpk_pg_spill_init(DpkHighdSpill *spill)
{
	spill->open = spill_open;
	spill->write = spill_write;
	spill->read = spill_read;
	spill->close = spill_close;
	spill->arg = NULL;
	spill->mem_bytes = (size_t) work_mem * 1024;
}
