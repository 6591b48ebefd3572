/*
 * oneshot.c
 *		dp_kmeans: one-shot epsilon-DP k-means of a query's result.
 *
 * The query runs read-only with the caller's rights; its points are copied
 * into memory up to work_mem and the rest to a temporary file (below 6
 * columns with a public n: none kept), then the plain-C pipeline of lowd.c
 * (d < 6) or highd.c produces the centres.
 * Nothing is stored: every call spends its epsilon afresh.
 */
#include "postgres.h"

#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "access/xact.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/tuplestore.h"

#include "lowd.h"
#include "highd.h"
#include "capture.h"
#include "pgutil.h"
#include "slotread.h"
#include "tempfile.h"

/* Positions of dp_kmeans's delta, objective and norm_bound arguments (0-based). */
#define DP_KMEANS_ARG_DELTA 6
#define DP_KMEANS_ARG_OBJECTIVE 7
#define DP_KMEANS_ARG_NORM_BOUND 8

/*
 * Refuse anything but one plain SELECT: no data-modifying CTE, no row locks,
 * no utility command.  Decided from the parse tree alone.
 */
static void
check_read_only_select(SPIPlanPtr plan)
{
	List	   *sources = SPI_plan_get_plan_sources(plan);
	ListCell   *lc;

	if (list_length(sources) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("dp_kmeans query must be a single SELECT statement"),
				 errhint("Pass one read-only SELECT without a trailing statement.")));
	foreach(lc, sources)
	{
		CachedPlanSource *src = (CachedPlanSource *) lfirst(lc);
		ListCell   *lq;

		foreach(lq, src->query_list)
		{
			Query	   *q = lfirst_node(Query, lq);

			if (q->commandType != CMD_SELECT || q->utilityStmt != NULL ||
				q->hasModifyingCTE || q->rowMarks != NIL)
				ereport(ERROR,
						(errcode(ERRCODE_WRONG_OBJECT_TYPE),
						 errmsg("dp_kmeans query must be a read-only SELECT"),
						 errdetail("Data-modifying statements, SELECT INTO and FOR UPDATE/SHARE are not allowed.")));
		}
	}
}

/*
 * Points read from the query: as many as work_mem holds, each time that is
 * full written to a temporary file, as sorts and hashes spill, and read
 * back in batches once the noisy N is drawn (low d) or by every pass (high
 * d); or (a low-d one-shot of public N) one batch at a time, counted into
 * the histogram when full and not kept.
 */
typedef struct PointBuffer
{
	double	   *x;
	size_t		n;				/* points in x */
	size_t		cap;
	size_t		populated;		/* bytes from x on whose pages are mapped */
	int			d;
	DpkLowdHist *counted;		/* non-NULL: batches are counted here */
	const DpkBox *box;			/* the box they are clamped to */
	size_t		limit;			/* > 0: x holds at most this many points... */
	File		spill;			/* ... and the earlier ones are here (0: none) */
	uint64		spilled;		/* points in spill, before those in x */
} PointBuffer;

/* Points a counted one-shot holds at a time. */
#define ONESHOT_BATCH_POINTS 8192

/*
 * The buffer's pages are mapped this many bytes at a time ahead of the
 * rows written (one madvise instead of a page fault every 4 kB: a third
 * less time to fill 128 MB of fresh memory; doc/decisions/049).
 */
#define DPK_BUFFER_POPULATE (2 * 1024 * 1024)

/*
 * A full buffer of b->limit points: written to the end of the temporary
 * file (made the first time, in temp_tablespaces) in one piece, not
 * through a BufFile's 8 kB blocks, and emptied (doc/decisions/077).
 */
static void
buffer_spill(PointBuffer *b)
{
	size_t		width = b->d * sizeof(double);

	if (b->spill == 0)
		b->spill = dpk_pg_temp_open();
	dpk_pg_temp_write(b->spill, (off_t) (b->spilled * width), b->x, b->n * width);
	b->spilled += b->n;
	b->n = 0;
}

/*
 * A full buffer: doubled (allocated in ctx the first time) up to b->limit
 * points if there is one, then spilled; or its batch counted and emptied.
 */
static pg_noinline void
buffer_grow(PointBuffer *b, MemoryContext ctx)
{
	if (b->counted)
	{
		if (b->x == NULL)
		{
			b->cap = ONESHOT_BATCH_POINTS;
			b->x = MemoryContextAlloc(ctx, b->cap * b->d * sizeof(double));
		}
		dpk_lowd_stream_add(b->box, b->counted, b->x, b->n);
		b->n = 0;
		return;
	}
	if (b->limit > 0 && b->cap >= b->limit)
	{
		buffer_spill(b);
		return;
	}
	b->cap = b->cap ? b->cap * 2 : 65536;
	if (b->limit > 0)
		b->cap = Min(b->cap, b->limit);
	b->x = b->x ? repalloc_huge(b->x, b->cap * b->d * sizeof(double))
		: MemoryContextAllocExtended(ctx, b->cap * b->d * sizeof(double), MCXT_ALLOC_HUGE);
	/* a copy, if the allocator made one, mapped what it wrote */
	b->populated = Min(b->populated, b->n * b->d * sizeof(double));
}

/*
 * Map the pages of the next DPK_BUFFER_POPULATE bytes of the buffer from
 * the end of the row being written (within its capacity), where the kernel
 * can (MADV_POPULATE_WRITE, Linux 5.14); else the writes fault them in.
 */
static pg_noinline void
buffer_populate(PointBuffer *b)
{
	size_t		end = Min(b->cap * b->d * sizeof(double),
						  (b->n + 1) * b->d * sizeof(double) + DPK_BUFFER_POPULATE);
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
 * Room for one more point at the end of the buffer, grown when full; the
 * caller fills it and counts it with b->n++.
 */
static inline double *
buffer_slot(PointBuffer *b, MemoryContext ctx)
{
	if (unlikely(b->n == b->cap))
		buffer_grow(b, ctx);
	if (unlikely((b->n + 1) * b->d * sizeof(double) > b->populated))
		buffer_populate(b);
	return b->x + b->n * b->d;
}

/*
 * A DestReceiver that copies each row's point straight from the executor's
 * slot into the buffer: no tuple is copied or kept.
 */
typedef struct PointReceiver
{
	DestReceiver pub;
	MemoryContext callerctx;	/* the buffer, reader and names live here */
	MemoryContext rowctx;		/* a row's detoasted values, reset per row */
	PointBuffer *buf;
	DpkClampCount *cc;
	const double *lo;
	const double *hi;
	double	   *x;
	DpkPointReader reader;
	bool		float8_columns; /* d float8 columns: read from the slot in place */
	DpkSlotFloat8s heap;		/* ... or from its heap tuple, without deforming it */
	bool		float8_array;	/* one float8[] column: read from the array in place */
	const DpkHighdMetricMap *metric;	/* not NULL: rows stored as metric positions */
	char	 ***names;
	int		   *ncols;
	uint64		rows;
} PointReceiver;

/* Executor start: read the query's columns (once) for the point reader. */
static void
point_receiver_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	PointReceiver *pr = (PointReceiver *) self;
	MemoryContext old = MemoryContextSwitchTo(pr->callerctx);
	AttrNumber *attnums = palloc(typeinfo->natts * sizeof(AttrNumber));
	int			i;

	for (i = 0; i < typeinfo->natts; i++)
		attnums[i] = i + 1;
	dpk_pg_point_reader_init(&pr->reader, typeinfo, attnums, typeinfo->natts,
							 pr->buf->d, "the query result");
	pr->float8_columns = pr->reader.source == DPK_POINT_COLUMNS;
	for (i = 0; i < pr->reader.ncols; i++)
		pr->float8_columns = pr->float8_columns && pr->reader.types[i] == FLOAT8OID;
	dpk_pg_slot_float8s_init(&pr->heap, pr->buf->d);
	pr->float8_array = pr->reader.source == DPK_POINT_FLOAT8_ARRAY;
	*pr->ncols = typeinfo->natts;
	*pr->names = palloc(typeinfo->natts * sizeof(char *));
	for (i = 0; i < typeinfo->natts; i++)
		(*pr->names)[i] = pstrdup(NameStr(TupleDescAttr(typeinfo, i)->attname));
	MemoryContextSwitchTo(old);
}

/*
 * A row's d doubles into the buffer's next slot, counted as a point unless
 * one is NaN (the row is then skipped); points outside the box go to the
 * clamp count.  With a metric map the slot holds the row's metric position
 * instead (dpk_highd_metric_take), made while the row is in the cache.
 */
static inline void
receive_doubles(PointReceiver *pr, const double *v)
{
	int			d = pr->buf->d,
				j;
	double	   *x = buffer_slot(pr->buf, pr->callerctx);
	bool		inside = true;

	if (pr->metric)
	{
		/* v read once, straight into its metric position */
		int			r = dpk_highd_metric_take(pr->metric, v, x);

		if (r == DPK_METRIC_NAN)
			return;
		pr->buf->n++;
		if (r == DPK_METRIC_INSIDE)
			pr->cc->points++;
		else
			dpk_clamp_add(pr->cc, pr->lo, pr->hi, v);
		return;
	}
	for (j = 0; j < d; j++)
	{
		x[j] = v[j];
		if (isnan(x[j]))
			return;
		inside &= x[j] >= pr->lo[j] && x[j] <= pr->hi[j];
	}
	pr->buf->n++;
	/* a point inside the box only counts as a point */
	if (inside)
		pr->cc->points++;
	else
		dpk_clamp_add(pr->cc, pr->lo, pr->hi, x);
}

/*
 * One row: its point into the buffer (rows that are not points skipped).
 * Plain float8 columns are copied from the slot's heap tuple when it has
 * no null (dpk_pg_slot_float8s), else from the slot's values, and a float8[]
 * stored plainly (not compressed or out of line: every row of a few dozen
 * coordinates) from the array's data, straight into the buffer, with
 * nothing allocated; other columns go through the point reader, whose
 * detoasted values live in rowctx until the next row.
 */
static bool
point_receiver_receive(TupleTableSlot *slot, DestReceiver *self)
{
	PointReceiver *pr = (PointReceiver *) self;
	int			d = pr->buf->d;

	if ((++pr->rows & 65535) == 0)
		CHECK_FOR_INTERRUPTS();
	if (pr->float8_columns)
	{
		double		v[DPK_MAX_TRACKED_COLUMNS];
		const double *in = dpk_pg_slot_float8s(&pr->heap, slot);
		int			j;

		if (in)
		{
			/* a heap tuple without nulls: its doubles where they are */
			receive_doubles(pr, in);
			return true;
		}
		slot_getsomeattrs(slot, d);
		for (j = 0; j < d; j++)
			if (slot->tts_isnull[j])
				return true;
#if FLOAT8PASSBYVAL
		/*
		 * a float8 Datum holds the double's bits: the values read in place
		 * (a copy by scalar stores stalled the vector loads that read it)
		 */
		StaticAssertStmt(sizeof(Datum) == sizeof(double), "a Datum holds a float8");
		if (pr->metric)
		{
			receive_doubles(pr, (const double *) slot->tts_values);
			return true;
		}
#endif
		for (j = 0; j < d; j++)
			v[j] = DatumGetFloat8(slot->tts_values[j]);
		receive_doubles(pr, v);
		return true;
	}
	if (pr->float8_array)
	{
		bool		isnull;
		Datum		a = slot_getattr(slot, 1, &isnull);

		if (isnull)
			return true;
		if (!VARATT_IS_EXTENDED(DatumGetPointer(a)))
		{
			ArrayType  *arr = (ArrayType *) DatumGetPointer(a);

			/* what the point reader refuses, skipped as it skips it */
			if (ARR_NDIM(arr) == 1 && ARR_DIMS(arr)[0] == d && !ARR_HASNULL(arr))
				receive_doubles(pr, (const double *) ARR_DATA_PTR(arr));
			return true;
		}
	}
	{
		MemoryContext old = MemoryContextSwitchTo(pr->rowctx);
		bool		ok = dpk_pg_read_point_slot(&pr->reader, slot, pr->x) == DPK_POINT_OK;

		MemoryContextSwitchTo(old);
		if (ok)
		{
			double	   *x = buffer_slot(pr->buf, pr->callerctx);

			memcpy(x, pr->x, d * sizeof(double));
			pr->buf->n++;
			dpk_clamp_add(pr->cc, pr->lo, pr->hi, pr->x);
			if (pr->metric)
				dpk_highd_metric_row(pr->metric, x);
		}
		MemoryContextReset(pr->rowctx);
	}
	return true;
}

/* Executor end: nothing to release (the contexts are the caller's). */
static void
point_receiver_shutdown(DestReceiver *self)
{
}

/* The receiver is on the caller's stack. */
static void
point_receiver_destroy(DestReceiver *self)
{
}

/*
 * Run the query read-only and collect its points into buf (allocated in the
 * caller's context).  Rows that are not points (NULL, NaN, bad arrays) are
 * skipped silently.  Points outside the box [lo, hi] are counted into cc,
 * and the query's column names returned in *names (*ncols of them), for
 * the caller, who ran the query and may read its rows.  The rows go from
 * the executor's slots into buf through a DestReceiver; the query runs
 * once to completion, so the planner may give it parallel workers.
 */
static void
read_query_points(const char *query, int d, const double *lo, const double *hi,
				  const DpkHighdMetricMap *metric, PointBuffer *buf, DpkClampCount *cc,
				  char ***names, int *ncols)
{
	MemoryContext callerctx = CurrentMemoryContext;
	SPIPlanPtr	plan;
	SPIExecuteOptions opts;
	PointReceiver pr;
	bool		save_read_only = XactReadOnly;
	int			rc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	plan = SPI_prepare_cursor(query, 0, NULL, CURSOR_OPT_PARALLEL_OK);
	if (plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("could not prepare dp_kmeans query: %s",
						SPI_result_code_string(SPI_result))));
	check_read_only_select(plan);

	memset(&pr, 0, sizeof(pr));
	pr.pub.receiveSlot = point_receiver_receive;
	pr.pub.rStartup = point_receiver_startup;
	pr.pub.rShutdown = point_receiver_shutdown;
	pr.pub.rDestroy = point_receiver_destroy;
	pr.pub.mydest = DestNone;
	pr.callerctx = callerctx;
	pr.rowctx = AllocSetContextCreate(callerctx, "dp_kmeans row",
									  ALLOCSET_SMALL_SIZES);
	pr.buf = buf;
	pr.cc = cc;
	pr.lo = lo;
	pr.hi = hi;
	pr.metric = metric;
	pr.x = MemoryContextAlloc(callerctx, d * sizeof(double));
	pr.names = names;
	pr.ncols = ncols;

	memset(&opts, 0, sizeof(opts));
	opts.read_only = true;
	opts.dest = &pr.pub;

	/* Any write attempted by a function the query calls fails. */
	XactReadOnly = true;
	PG_TRY();
	{
		rc = SPI_execute_plan_extended(plan, &opts);
		if (rc < 0)
			elog(ERROR, "dp_kmeans query failed: %s", SPI_result_code_string(rc));
	}
	PG_FINALLY();
	{
		XactReadOnly = save_read_only;
	}
	PG_END_TRY();

	MemoryContextDelete(pr.rowctx);
	SPI_finish();
}

/*
 * Every point of a buffer kept up to work_mem counted into lh: those still
 * in memory, then those of the temporary file, read back into the buffer a
 * full buffer at a time (the histogram's counts and fixed-point sums are
 * integers: any batching and order give the same one).  Closes the file.
 */
static void
buffer_count(PointBuffer *b, const DpkBox *box, DpkLowdHist *lh)
{
	uint64		done;

	dpk_lowd_stream_add(box, lh, b->x, b->n);
	if (b->spill == 0)
		return;
	for (done = 0; done < b->spilled;)
	{
		size_t		rows = Min(b->spilled - done, (uint64) b->cap),
					width = b->d * sizeof(double);

		dpk_pg_temp_read(b->spill, (off_t) (done * width), b->x, rows * width);
		dpk_lowd_stream_add(box, lh, b->x, rows);
		done += rows;
	}
	FileClose(b->spill);
	b->spill = 0;
}

/*
 * read of a DpkHighdRows (arg: a spilled PointBuffer): points from ..
 * from + rows - 1 into out, those of the temporary file first, then those
 * still in memory.
 */
static void
spill_rows_read(void *arg, size_t from, size_t rows, double *out)
{
	PointBuffer *b = (PointBuffer *) arg;
	size_t		width = b->d * sizeof(double);

	if (from < b->spilled)
	{
		size_t		r = Min((uint64) rows, b->spilled - from);

		dpk_pg_temp_read(b->spill, (off_t) (from * width), out, r * width);
		from += r;
		rows -= r;
		out += r * b->d;
	}
	if (rows > 0)
		memcpy(out, b->x + (from - b->spilled) * b->d, rows * width);
}

/*
 * Which of the k centres of res are returned: those the release supports,
 * that gather a weighted point (their noisy size is not exactly 0) and at
 * least the noisy mass a cell needs to enter the coreset (res->min_size),
 * and at least the largest one (the first of the largest); the others are
 * duplicates of size 0 or noise.  A centre equal to an earlier one in
 * every coordinate is the same cluster: its noisy size is added to the
 * earlier one's and it is not returned again.  Post-processing of the
 * released centres and noisy sizes only.
 */
static bool *
oneshot_supported(DpkOneshotResult *res, int k, int d)
{
	bool	   *keep = palloc(k * sizeof(bool));
	bool		any = false;
	int			largest = -1,
				c,
				e,
				j;

	for (c = 0; c < k; c++)
	{
		const double *x = res->centers + (size_t) c * d;

		keep[c] = true;
		for (e = 0; e < c && keep[c]; e++)
		{
			const double *y = res->centers + (size_t) e * d;

			if (!keep[e])
				continue;
			for (j = 0; j < d && x[j] == y[j]; j++)
				;
			if (j == d)
			{
				res->sizes[e] += res->sizes[c];
				res->sizes[c] = 0.0;
				keep[c] = false;
			}
		}
	}
	for (c = 0; c < k; c++)
	{
		if (!keep[c])
			continue;			/* a repeated centre */
		if (largest < 0 || res->sizes[c] > res->sizes[largest])
			largest = c;
		keep[c] = res->sizes[c] != 0.0 && res->sizes[c] >= res->min_size;
		any = any || keep[c];
	}
	if (!any)
		keep[largest] = true;
	return keep;
}

/*
 * dp_kmeans(query, k, epsilon, lower, upper, n, delta, objective, norm_bound) ->
 *		SETOF (cluster int, center float8[], noisy_size float8)
 *
 * objective 'kmedian' clusters the same coreset for the sum of distances
 * (post-processing: the same epsilon buys the same noisy histogram); from
 * DPK_HIGHD_MIN_D columns on, the joint mode lifts its groups instead of its
 * k parts and clusters the lifted group means (kmedian_lifted.h).
 */
PG_FUNCTION_INFO_V1(dp_kmeans);
Datum
dp_kmeans(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext workctx,
				old;
	char	   *query;
	int			k,
				d,
				c,
				i;
	double		eps,
				norm_bound;
	double	   *lo,
			   *hi;
	DpkBox		box;
	DpkLowdConfig cfg;
	DpkHighdConfig hcfg;
	DpkHighdMetricMap metric;
	DpkOneshotResult res = {0};
	PointBuffer buf = {0};
	DpkLowdHist counted;
	DpkStream  *stream;
	uint8		key[DPK_KEY_BYTES];
	uint8		nonce[DPK_NONCE_BYTES] = {0};
	DpkClampCount clamped;
	char	  **names = NULL;
	int			ncols = 0;
	bool	   *keep;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("query must not be NULL"),
				 errhint("Give a SELECT returning d numeric columns or one float8[] column.")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("k must not be NULL"),
				 errdetail("k is the number of clusters to release.")));
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("epsilon must not be NULL"),
				 errdetail("epsilon is the privacy budget this call spends.")));
	query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	k = PG_GETARG_INT32(1);
	eps = PG_GETARG_FLOAT8(2);
	dpk_pg_check_k(k, 0);
	dpk_pg_check_k_max(k, DPK_MAX_K_ONESHOT, "dp_kmeans", false);
	dpk_pg_check_epsilon(eps, "epsilon");
	dpk_pg_keep_freed_memory();
	dpk_pg_check_box(PG_ARGISNULL(3) ? NULL : PG_GETARG_ARRAYTYPE_P(3),
					 PG_ARGISNULL(4) ? NULL : PG_GETARG_ARRAYTYPE_P(4),
					 &lo, &hi, &d);
	norm_bound = dpk_pg_norm_bound_arg(fcinfo, DP_KMEANS_ARG_NORM_BOUND, d);

	dpk_lowd_defaults(&cfg, eps, k);
	dpk_lowd_use_delta(&cfg, dpk_pg_delta_arg(fcinfo, DP_KMEANS_ARG_DELTA));
	cfg.max_cells = dpk_max_cells;
	cfg.objective = dpk_pg_objective_arg(fcinfo, DP_KMEANS_ARG_OBJECTIVE);
	if (!PG_ARGISNULL(5))
	{
		double		n = PG_GETARG_FLOAT8(5);

		if (isnan(n) || isinf(n) || n < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("n must be a finite number >= 0, got %g", n),
					 errhint("n is a public row count; leave it NULL to spend a small share of epsilon on a noisy count.")));
		cfg.public_n = n;
	}

	InitMaterializedSRF(fcinfo, 0);

	workctx = AllocSetContextCreate(CurrentMemoryContext, "dp_kmeans",
									ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(workctx);

	box.d = d;
	box.lower = lo;
	box.upper = hi;
	if (d >= DPK_HIGHD_MIN_D)
	{
		/* High dimension: projected grids, lifting by noisy sums (highd.c) */
		dpk_highd_defaults(&hcfg, eps, k);
		dpk_highd_use_delta(&hcfg, cfg.delta);
		hcfg.public_n = cfg.public_n;
		hcfg.max_cells = cfg.max_cells;
		hcfg.objective = cfg.objective;
		dpk_highd_use_ball(&hcfg, &box, norm_bound);
		/* every row stored as its metric position as it arrives */
		dpk_highd_metric_map_init(&metric, &box, &hcfg);
	}

	buf.d = d;
	if (d < DPK_HIGHD_MIN_D && cfg.public_n >= 0.0)
	{
		/* the grid is known before the rows: count them as they arrive */
		dpk_lowd_stream_begin(&box, &cfg, &counted);
		buf.counted = &counted;
		buf.box = &box;
	}
	else
	{
		/*
		 * the grid waits for the noisy N, or the passes read every point
		 * several times: points beyond work_mem spill
		 */
		buf.limit = Max((size_t) work_mem * 1024 / (d * sizeof(double)), 1);
	}
	dpk_clamp_init(&clamped, d);
	read_query_points(query, d, lo, hi, d >= DPK_HIGHD_MIN_D ? &metric : NULL, &buf,
					  &clamped, &names, &ncols);
	if (buf.counted && buf.n > 0)
		dpk_lowd_stream_add(&box, &counted, buf.x, buf.n);
	dpk_clamp_report(&clamped, "the query result", names, ncols,
					 "Points clamped onto a face of the box count at its edge; check lower and upper, "
					 "or leave such rows out of the query.");

	dpk_pg_strong_random(key, sizeof(key));
	stream = palloc0(sizeof(DpkStream));
	dpk_pg_stream_open(stream, key, nonce);
	explicit_bzero(key, sizeof(key));
	if (d >= DPK_HIGHD_MIN_D)
	{
		/* the rows are metric positions (dpk_highd_metric_points's) */
		hcfg.points_metric = true;
		if (buf.spill == 0)
			dpk_highd_oneshot_cluster(&box, buf.x, buf.n, &hcfg, stream, &res);
		else
		{
			DpkHighdSpill spill;
			DpkHighdRows rows = {spill_rows_read, &buf, &spill};

			/* what the passes keep per row, beyond work_mem, in files too */
			dpk_pg_spill_init(&spill);

			dpk_highd_oneshot_cluster_rows(&box, &rows, (size_t) (buf.spilled + buf.n), &hcfg,
										   stream, &res);
			FileClose(buf.spill);
			buf.spill = 0;
		}
	}
	else
	{
		if (!buf.counted)
		{
			/* the noisy N of every point, then the points in batches */
			dpk_lowd_stream_begin_counted(&box, &cfg, (size_t) (buf.spilled + buf.n), stream,
										  &counted);
			buffer_count(&buf, &box, &counted);
		}
		dpk_lowd_stream_finish(&box, &cfg, &counted, stream, &res);
	}

	MemoryContextSwitchTo(old);
	keep = oneshot_supported(&res, k, d);
	for (c = 0, i = 0; c < k; c++)
	{
		Datum	   *elems;
		Datum		values[3];
		bool		nulls[3] = {false, false, false};
		int			j;

		if (!keep[c])
			continue;
		elems = palloc(d * sizeof(Datum));
		for (j = 0; j < d; j++)
			elems[j] = Float8GetDatum(res.centers[(size_t) c * d + j]);
		values[0] = Int32GetDatum(++i);
		values[1] = PointerGetDatum(construct_array(elems, d, FLOAT8OID, sizeof(float8),
													FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		/* a sum of noisy counts can be negative: clamped (post-processing) */
		values[2] = Float8GetDatum(Max(res.sizes[c], 0.0));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	MemoryContextDelete(workctx);
	return (Datum) 0;
}
