/*
 * oneshot_rows.c
 *		The points dp_kmeans keeps: in memory up to work_mem, then in a
 *		temporary file (see oneshot_rows.h).
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "oneshot_rows.h"
#include "row_codes.h"
#include "tempfile.h"

/* Points a counted one-shot holds at a time. */
#define ONESHOT_BATCH_POINTS 8192

/*
 * The buffer's pages are mapped this many bytes at a time ahead of the
 * rows written (one madvise instead of a page fault every 4 kB: a third
 * less time to fill 128 MB of fresh memory; doc/decisions/049).
 */
#define DPK_BUFFER_POPULATE (2 * 1024 * 1024)

/* Rows a kept buffer decodes at a time when its points are counted. */
#define DPK_POINTS_DECODE_ROWS 8192

/* A kept buffer (see oneshot_rows.h). */
void
dpk_points_init_kept(DpkPointBuffer *b, const DpkBox *box, DpkPointForm form, double ball,
					 MemoryContext ctx)
{
	memset(b, 0, sizeof(*b));
	b->d = box->d;
	b->box = box;
	b->form = form;
	b->ball = ball;
	b->width = b->d * (form == DPK_POINTS_METRIC_CODES ? sizeof(uint16) : sizeof(uint32));
	if (form == DPK_POINTS_BOX_CODES)
		dpk_box_coder_init(&b->coder, box);
	b->ctx = ctx;
	b->limit = Max((size_t) work_mem * 1024 / b->width, 1);
}

/* A counted buffer (see oneshot_rows.h). */
void
dpk_points_init_counted(DpkPointBuffer *b, const DpkBox *box, DpkLowdHist *counted,
						MemoryContext ctx)
{
	memset(b, 0, sizeof(*b));
	b->d = box->d;
	b->form = DPK_POINTS_DOUBLES;
	b->width = b->d * sizeof(double);
	b->ctx = ctx;
	b->box = box;
	b->counted = counted;
}

/*
 * A full buffer of b->limit points: written to the end of the temporary
 * file (made the first time, in temp_tablespaces) in one piece, not
 * through a BufFile's 8 kB blocks, and emptied (doc/decisions/077).
 */
static void
points_spill(DpkPointBuffer *b)
{
	if (b->spill == 0)
		b->spill = dpk_pg_temp_open();
	dpk_pg_temp_write(b->spill, (off_t) (b->spilled * b->width), b->x, b->n * b->width);
	b->spilled += b->n;
	b->n = 0;
}

/*
 * A full buffer: doubled (allocated the first time) up to b->limit points
 * if there is one, then spilled; or its batch counted and emptied.
 */
pg_noinline void
dpk_points_grow(DpkPointBuffer *b)
{
	if (b->counted)
	{
		if (b->x == NULL)
		{
			b->cap = ONESHOT_BATCH_POINTS;
			b->x = MemoryContextAlloc(b->ctx, b->cap * b->width);
		}
		dpk_lowd_stream_add(b->box, b->counted, (const double *) b->x, b->n);
		b->n = 0;
		return;
	}
	if (b->limit > 0 && b->cap >= b->limit)
	{
		points_spill(b);
		return;
	}
	b->cap = b->cap ? b->cap * 2 : 65536;
	if (b->limit > 0)
		b->cap = Min(b->cap, b->limit);
	b->x = b->x ? repalloc_huge(b->x, b->cap * b->width)
		: MemoryContextAllocExtended(b->ctx, b->cap * b->width, MCXT_ALLOC_HUGE);
	/* a copy, if the allocator made one, mapped what it wrote */
	b->populated = Min(b->populated, b->n * b->width);
}

/*
 * Map the pages of the next DPK_BUFFER_POPULATE bytes of the buffer from
 * the end of the row being written (within its capacity), where the kernel
 * can (MADV_POPULATE_WRITE, Linux 5.14); else the writes fault them in.
 */
pg_noinline void
dpk_points_populate(DpkPointBuffer *b)
{
	size_t		end = Min(b->cap * b->width, (b->n + 1) * b->width + DPK_BUFFER_POPULATE);
#ifdef MADV_POPULATE_WRITE
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE),
				from = ((uintptr_t) b->x + b->populated + page - 1) & ~(page - 1),
				to = ((uintptr_t) b->x + end) & ~(page - 1);

	if (to > from)
		(void) madvise((void *) from, to - from, MADV_POPULATE_WRITE);
#endif
	b->populated = end;
}

/*
 * Codes of rows from .. from + rows - 1 (at most scratch_rows): a pointer
 * into the buffer when they are in memory, else read from the file into
 * the scratch (made the first time).
 */
static const char *
points_codes(DpkPointBuffer *b, uint64 from, size_t rows)
{
	if (from >= b->spilled)
		return b->x + (from - b->spilled) * b->width;
	if (rows > b->scratch_rows)
	{
		if (b->scratch)
			pfree(b->scratch);
		b->scratch = MemoryContextAlloc(b->ctx, rows * b->width);
		b->scratch_rows = rows;
	}
	dpk_pg_temp_read(b->spill, (off_t) (from * b->width), b->scratch, rows * b->width);
	return b->scratch;
}

/*
 * Every point counted (see oneshot_rows.h), decoded a batch at a time (the
 * histogram's counts and fixed-point sums are integers: any batching and
 * order give the same one).
 */
void
dpk_points_count(DpkPointBuffer *b, DpkLowdHist *lh)
{
	double	   *x = MemoryContextAlloc(b->ctx, DPK_POINTS_DECODE_ROWS * b->d * sizeof(double));
	uint64		total = dpk_points_total(b),
				done;

	Assert(b->form == DPK_POINTS_BOX_CODES);
	for (done = 0; done < total;)
	{
		/* a batch lies in the file or in memory, not across */
		uint64		end = done < b->spilled ? b->spilled : total;
		size_t		rows = Min(end - done, (uint64) DPK_POINTS_DECODE_ROWS);

		dpk_row_codes_unpack_box(&b->coder, (const uint32 *) points_codes(b, done, rows), rows,
								 x);
		dpk_lowd_stream_add(b->box, lh, x, rows);
		done += rows;
	}
	pfree(x);
	dpk_points_close(b);
}

/* Metric positions of rows from .. from + rows - 1 (see oneshot_rows.h). */
void
dpk_points_read(void *arg, size_t from, size_t rows, double *out)
{
	DpkPointBuffer *b = (DpkPointBuffer *) arg;

	Assert(b->form == DPK_POINTS_METRIC_CODES);
	while (rows > 0)
	{
		/* the rows in the file, then those in memory */
		size_t		r = from < b->spilled ? Min((uint64) rows, b->spilled - from) : rows;

		dpk_row_codes_unpack((const uint16 *) points_codes(b, from, r), r, b->d, b->ball, out);
		from += r;
		rows -= r;
		out += r * b->d;
	}
}

/* The file removed (see oneshot_rows.h). */
void
dpk_points_close(DpkPointBuffer *b)
{
	if (b->spill != 0)
		FileClose(b->spill);
	b->spill = 0;
}
