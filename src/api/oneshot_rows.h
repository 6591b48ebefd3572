/*
 * oneshot_rows.h
 *		The points dp_kmeans reads from its query, kept until its pipeline
 *		has read them.
 *
 * As many as work_mem holds stay in memory; each time that is full they are
 * written to a temporary file, as sorts and hashes spill, and read back in
 * batches once the noisy N is drawn (low d, as 32-bit codes of their
 * positions in the box) or by every pass (high d, as 16-bit codes of their
 * metric positions; row_codes.h); or (a low-d one-shot of public N) one
 * batch at a time is counted into the histogram when full and not kept.
 */
#ifndef DPK_ONESHOT_ROWS_H
#define DPK_ONESHOT_ROWS_H

#include "postgres.h"

#include "storage/fd.h"

#include "lowd.h"
#include "row_codes.h"

/* How a buffer holds its points (row_codes.h). */
typedef enum DpkPointForm
{
	DPK_POINTS_DOUBLES,			/* as read (a counted buffer's batch) */
	DPK_POINTS_BOX_CODES,		/* 32-bit codes of their positions in the box */
	DPK_POINTS_METRIC_CODES		/* 16-bit codes of their metric positions */
} DpkPointForm;

typedef struct DpkPointBuffer
{
	char	   *x;				/* the points in memory, width bytes each */
	size_t		width;
	size_t		n;				/* points in x */
	size_t		cap;
	size_t		populated;		/* bytes from x on whose pages are mapped */
	int			d;
	DpkPointForm form;
	DpkBoxCoder coder;			/* box codes: the box's sides */
	double		ball;			/* metric codes: the ball they are read into */
	MemoryContext ctx;			/* x and the scratch live here */
	char	   *scratch;		/* codes read back from the file */
	size_t		scratch_rows;
	DpkLowdHist *counted;		/* non-NULL: batches are counted here */
	const DpkBox *box;			/* the box they are clamped to */
	size_t		limit;			/* > 0: x holds at most this many points... */
	File		spill;			/* ... and the earlier ones are here (0: none) */
	uint64		spilled;		/* points in spill, before those in x */
} DpkPointBuffer;

/*
 * A buffer of points of box allocated in ctx, kept up to work_mem and then
 * spilled: their box codes, or (form DPK_POINTS_METRIC_CODES) the codes of
 * their metric positions, read back into the ball of radius ball.
 */
void		dpk_points_init_kept(DpkPointBuffer *b, const DpkBox *box, DpkPointForm form,
								 double ball, MemoryContext ctx);

/* A buffer whose batches of points are counted into counted and not kept. */
void		dpk_points_init_counted(DpkPointBuffer *b, const DpkBox *box, DpkLowdHist *counted,
									MemoryContext ctx);

/* The points the buffer has taken, spilled or in memory. */
static inline uint64
dpk_points_total(const DpkPointBuffer *b)
{
	return b->spilled + b->n;
}

void		dpk_points_grow(DpkPointBuffer *b);
void		dpk_points_populate(DpkPointBuffer *b);

/*
 * Room for one more point at the end of the buffer (width bytes), grown
 * when full; the caller fills it and counts it with b->n++.
 */
static inline void *
dpk_points_slot(DpkPointBuffer *b)
{
	if (unlikely(b->n == b->cap))
		dpk_points_grow(b);
	if (unlikely((b->n + 1) * b->width > b->populated))
		dpk_points_populate(b);
	return b->x + b->n * b->width;
}

/*
 * Every point of a kept buffer of box codes counted into lh: those of the
 * file, then those in memory.  Closes the file.
 */
void		dpk_points_count(DpkPointBuffer *b, DpkLowdHist *lh);

/*
 * read of a DpkHighdRows (arg: a kept buffer of metric codes): the metric
 * positions of points from .. from + rows - 1 into out, those of the file
 * first, then those in memory.
 */
void		dpk_points_read(void *arg, size_t from, size_t rows, double *out);

/* Remove the buffer's file, if it has one. */
void		dpk_points_close(DpkPointBuffer *b);

#endif							/* DPK_ONESHOT_ROWS_H */
