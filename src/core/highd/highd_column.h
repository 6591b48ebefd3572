/*
 * highd_column.h
 *		Per-row values a high-dimensional one-shot keeps between its passes
 *		(projections, labels, sign patterns), held in memory up to a budget
 *		and beyond it in a temporary file the caller provides.
 *
 * The rows themselves may be read through a DpkHighdRows (highd.h); what
 * the passes derive from them is as large as the rows times a constant, so
 * it too stays in memory only up to DpkHighdSpill's budget
 * (doc/decisions/069-oneshot-row-state-beyond-work-mem.md).  A column's
 * first rows (a whole number of DPK_PROJ_CHUNK) are in memory, the others
 * in the file in row order; the values read back are the bytes written.
 *
 * Plain C on dpk_alloc; the file is behind callbacks (dp_kmeans gives an
 * unbuffered PostgreSQL temporary file, src/pg/tempfile.c).
 */
#ifndef DPK_HIGHD_COLUMN_H
#define DPK_HIGHD_COLUMN_H

#include <stddef.h>
#include <stdint.h>

/*
 * Where a column's rows beyond the budget go: open makes an empty
 * temporary file, write and read move bytes at a byte offset of it (a read
 * only of bytes written before; errors do not return), close removes it.
 */
typedef struct DpkHighdSpill
{
	void	   *(*open) (void *arg);
	void		(*write) (void *file, uint64_t offset, const void *data, size_t bytes);
	void		(*read) (void *file, uint64_t offset, void *data, size_t bytes);
	void		(*close) (void *file);
	void	   *arg;
	size_t		mem_bytes;		/* bytes of one column kept in memory */
} DpkHighdSpill;

/* n rows of `width` bytes each. */
typedef struct DpkHighdColumn
{
	size_t		n;
	size_t		width;
	size_t		in_mem;			/* rows 0 .. in_mem - 1 are in mem */
	unsigned char *mem;
	const DpkHighdSpill *spill;
	void	   *file;			/* opened at the first row beyond in_mem */
} DpkHighdColumn;

/*
 * A column of n rows of width bytes; spill NULL: all in memory, else the
 * first rows that fit mem_bytes (a multiple of DPK_PROJ_CHUNK rows).
 */
void		dpk_highd_column_init(DpkHighdColumn *c, size_t n, size_t width,
								  const DpkHighdSpill *spill);

/* Free the memory and remove the file. */
void		dpk_highd_column_free(DpkHighdColumn *c);

/*
 * Where rows from .. from + rows - 1 are to be written: in the column's
 * memory when they all lie there, else buf (rows * width bytes); then
 * dpk_highd_column_put them.
 */
void	   *dpk_highd_column_slot(DpkHighdColumn *c, size_t from, size_t rows, void *buf);

/*
 * Rows from .. from + rows - 1 as written: a pointer into the column's
 * memory when they all lie there, else read into buf.  Changed in place and
 * put back, they are the column's new values.
 */
void	   *dpk_highd_column_get(DpkHighdColumn *c, size_t from, size_t rows, void *buf);

/* Store rows from .. from + rows - 1 (data from slot or get, or any buffer). */
void		dpk_highd_column_put(DpkHighdColumn *c, size_t from, size_t rows,
								 const void *data);

#endif							/* DPK_HIGHD_COLUMN_H */
