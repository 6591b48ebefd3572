/*
 * tempfile.c
 *		Unbuffered temporary files, and DpkHighdSpill on them (see
 *		tempfile.h).
 */
#include "tempfile.h"

#include "commands/tablespace.h"
#include "miscadmin.h"
#include "pgstat.h"

/* The most bytes one FileWrite or FileRead moves (its length is an int). */
#define DPK_TEMP_IO_MAX ((size_t) 1 << 30)

/*
 * A DpkHighdSpill's file handle: the File of an unbuffered temporary file
 * (a File is > 0, so never NULL).
 */
#define SPILL_FILE(p) ((File) (intptr_t) (p))

/* open of a DpkHighdSpill: an empty unbuffered file in temp_tablespaces. */
static void *
spill_open(void *arg)
{
	(void) arg;
	return (void *) (intptr_t) dpk_pg_temp_open();
}

/* write of a DpkHighdSpill: a chunk's bytes in one write. */
static void
spill_write(void *file, uint64_t offset, const void *data, size_t bytes)
{
	dpk_pg_temp_write(SPILL_FILE(file), (off_t) offset, data, bytes);
}

/* read of a DpkHighdSpill: bytes written before, all of them. */
static void
spill_read(void *file, uint64_t offset, void *data, size_t bytes)
{
	dpk_pg_temp_read(SPILL_FILE(file), (off_t) offset, data, bytes);
}

/* close of a DpkHighdSpill: the file removed. */
static void
spill_close(void *file)
{
	FileClose(SPILL_FILE(file));
}

/* Unbuffered files, columns kept in memory up to work_mem (see tempfile.h). */
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

/* An empty unbuffered temporary file (see tempfile.h). */
File
dpk_pg_temp_open(void)
{
	PrepareTempTablespaces();
	return OpenTemporaryFile(false);
}

/* bytes of data written at offset, a gigabyte at most per call. */
void
dpk_pg_temp_write(File file, off_t offset, const void *data, size_t bytes)
{
	while (bytes > 0)
	{
		int			put = FileWrite(file, unconstify(void *, data),
									(int) Min(bytes, DPK_TEMP_IO_MAX), offset,
									WAIT_EVENT_BUFFILE_WRITE);

		if (put <= 0)
		{
			/* a write that wrote nothing and set no error: out of space */
			if (put == 0)
				errno = ENOSPC;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write the temporary file of dp_kmeans: %m")));
		}
		data = (const char *) data + put;
		offset += put;
		bytes -= put;
	}
}

/* bytes written before at offset read into data, all of them. */
void
dpk_pg_temp_read(File file, off_t offset, void *data, size_t bytes)
{
	CHECK_FOR_INTERRUPTS();
	while (bytes > 0)
	{
		int			got = FileRead(file, data, (int) Min(bytes, DPK_TEMP_IO_MAX), offset,
								   WAIT_EVENT_BUFFILE_READ);

		if (got < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read the temporary file of dp_kmeans: %m")));
		if (got == 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read the temporary file of dp_kmeans: %zu bytes missing",
							bytes)));
		data = (char *) data + got;
		offset += got;
		bytes -= got;
	}
}
