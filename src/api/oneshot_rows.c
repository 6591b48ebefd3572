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

/* A kept buffer (see oneshot_rows.h). */
void
dpk_points_init_kept(DpkPointBuffer *b, int d, bool codes, double ball, MemoryContext ctx)
{
	memset(b, 0, sizeof(*b));
	b->d = d;
	b->codes = codes;
	b->ball = ball;
	b->width = d * (codes ? sizeof(uint16) : sizeof(double));
	b->ctx = ctx;
	b->limit = Max((size_t) work_mem * 1024 / b->width, 1);
}

/* A counted buffer (see oneshot_rows.h). */
void
dpk_points_init_counted(DpkPointBuffer *b, int d, const DpkBox *box, DpkLowdHist *counted,
						MemoryContext ctx)
{
	memset(b, 0, sizeof(*b));
	b->d = d;
	b->width = d * sizeof(double);
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
 * Every point counted (see oneshot_rows.h), the file's read back into the
 * buffer a full buffer at a time (the histogram's counts and fixed-point
 * sums are integers: any batching and order give the same one).
 */
void
dpk_points_count(DpkPointBuffer *b, const DpkBox *box, DpkLowdHist *lh)
{
	uint64		done;

	Assert(!b->codes);
	dpk_lowd_stream_add(box, lh, (const double *) b->x, b->n);
	if (b->spill == 0)
		return;
	for (done = 0; done < b->spilled;)
	{
		size_t		rows = Min(b->spilled - done, (uint64) b->cap);

		dpk_pg_temp_read(b->spill, (off_t) (done * b->width), b->x, rows * b->width);
		dpk_lowd_stream_add(box, lh, (const double *) b->x, rows);
		done += rows;
	}
	dpk_points_close(b);
}

/* Metric positions of rows from .. from + rows - 1 (see oneshot_rows.h). */
void
dpk_points_read(void *arg, size_t from, size_t rows, double *out)
{
	DpkPointBuffer *b = (DpkPointBuffer *) arg;

	Assert(b->codes);
	if (from < b->spilled)
	{
		size_t		r = Min((uint64) rows, b->spilled - from);

		if (r > b->scratch_rows)
		{
			if (b->scratch)
				pfree(b->scratch);
			b->scratch = MemoryContextAlloc(b->ctx, r * b->width);
			b->scratch_rows = r;
		}
		dpk_pg_temp_read(b->spill, (off_t) (from * b->width), b->scratch, r * b->width);
		dpk_row_codes_unpack(b->scratch, r, b->d, b->ball, out);
		from += r;
		rows -= r;
		out += r * b->d;
	}
	if (rows > 0)
		dpk_row_codes_unpack((const uint16 *) (b->x + (from - b->spilled) * b->width), rows,
							 b->d, b->ball, out);
}

/* The file removed (see oneshot_rows.h). */
void
dpk_points_close(DpkPointBuffer *b)
{
	if (b->spill != 0)
		FileClose(b->spill);
	b->spill = 0;
}
