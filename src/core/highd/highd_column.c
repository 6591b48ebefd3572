/*
 * highd_column.c
 *		Per-row values of a high-dimensional one-shot in memory up to a
 *		budget, the rest in a temporary file (see highd_column.h).
 */
#include "highd_column.h"

#include <string.h>

#include "dpk_mem.h"
#include "projection.h"

/* A column of n rows: in memory up to the spill's budget (see highd_column.h). */
void
dpk_highd_column_init(DpkHighdColumn *c, size_t n, size_t width, const DpkHighdSpill *spill)
{
	size_t		fit;

	c->n = n;
	c->width = width;
	c->spill = spill;
	c->file = NULL;
	if (spill == NULL)
		c->in_mem = n;
	else
	{
		/* whole chunks, so that a pass's chunk is in memory or in the file */
		fit = spill->mem_bytes / width / DPK_PROJ_CHUNK * DPK_PROJ_CHUNK;
		c->in_mem = n < fit ? n : fit;
	}
	c->mem = dpk_alloc(c->in_mem ? c->in_mem * width : 1);
}

/* Free a column and remove its file (see highd_column.h). */
void
dpk_highd_column_free(DpkHighdColumn *c)
{
	dpk_free(c->mem);
	c->mem = NULL;
	if (c->file)
		c->spill->close(c->file);
	c->file = NULL;
}

/* Where rows are to be written (see highd_column.h). */
void *
dpk_highd_column_slot(DpkHighdColumn *c, size_t from, size_t rows, void *buf)
{
	if (from + rows <= c->in_mem)
		return c->mem + from * c->width;
	return buf;
}

/* Rows as written, in memory or read into buf (see highd_column.h). */
void *
dpk_highd_column_get(DpkHighdColumn *c, size_t from, size_t rows, void *buf)
{
	unsigned char *out = buf;
	size_t		r;

	if (from + rows > c->n)
		dpk_fail("a one-shot's per-row column was read past its last row");
	if (from + rows <= c->in_mem)
		return c->mem + from * c->width;
	if (from < c->in_mem)
	{
		r = c->in_mem - from;
		memcpy(out, c->mem + from * c->width, r * c->width);
		out += r * c->width;
		from += r;
		rows -= r;
	}
	if (c->file == NULL)
		dpk_fail("a one-shot's per-row column was read before it was written");
	c->spill->read(c->file, (uint64_t) (from - c->in_mem) * c->width, out, rows * c->width);
	return buf;
}

/* Store rows (see highd_column.h). */
void
dpk_highd_column_put(DpkHighdColumn *c, size_t from, size_t rows, const void *data)
{
	const unsigned char *in = data;
	size_t		r;

	if (from + rows > c->n)
		dpk_fail("a one-shot's per-row column was written past its last row");
	if (from < c->in_mem)
	{
		r = c->in_mem - from < rows ? c->in_mem - from : rows;
		/* a slot or get in memory is already there */
		if (in != c->mem + from * c->width)
			memcpy(c->mem + from * c->width, in, r * c->width);
		in += r * c->width;
		from += r;
		rows -= r;
	}
	if (rows == 0)
		return;
	if (c->file == NULL)
		c->file = c->spill->open(c->spill->arg);
	c->spill->write(c->file, (uint64_t) (from - c->in_mem) * c->width, in, rows * c->width);
}
