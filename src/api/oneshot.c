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
#include "oneshot_rows.h"
#include "row_codes.h"
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
 * A DestReceiver that copies each row's point straight from the executor's
 * slot into the buffer: no tuple is copied or kept.
 */
typedef struct PointReceiver
{
	DestReceiver pub;
	MemoryContext callerctx;	/* the buffer, reader and names live here */
	MemoryContext rowctx;		/* a row's detoasted values, reset per row */
	DpkPointBuffer *buf;
	DpkClampCount *cc;
	const double *lo;
	const double *hi;
	double	   *x;				/* a row read, before it is kept */
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

/* A point (not NaN) into the buffer's next slot, in the buffer's form. */
static inline void
receive_point(DpkPointBuffer *b, const double *v)
{
	void	   *slot = dpk_points_slot(b);

	if (b->form == DPK_POINTS_BOX_CODES)
		dpk_row_codes_pack_box(&b->coder, v, 1, slot);
	else
		memcpy(slot, v, b->d * sizeof(double));
	b->n++;
}

/*
 * A row's d doubles into the buffer's next slot, as the buffer keeps them
 * (oneshot_rows.h), counted as a point unless one is NaN (the row is then
 * skipped); points outside the box go to the clamp count.  With a metric
 * map the slot holds the codes of the row's metric position
 * (dpk_highd_metric_take, then row_codes.h), made while the row is in the
 * cache.
 */
static inline void
receive_doubles(PointReceiver *pr, const double *v)
{
	int			d = pr->buf->d,
				j;
	bool		inside = true;

	if (pr->metric)
	{
		/* v read once, straight into its metric position */
		int			r = dpk_highd_metric_take(pr->metric, v, pr->x);

		if (r == DPK_METRIC_NAN)
			return;
		dpk_row_codes_pack(pr->x, 1, d, dpk_points_slot(pr->buf));
		pr->buf->n++;
		if (r == DPK_METRIC_INSIDE)
			pr->cc->points++;
		else
			dpk_clamp_add(pr->cc, pr->lo, pr->hi, v);
		return;
	}
	for (j = 0; j < d; j++)
	{
		if (isnan(v[j]))
			return;
		inside &= v[j] >= pr->lo[j] && v[j] <= pr->hi[j];
	}
	receive_point(pr->buf, v);
	/* a point inside the box only counts as a point */
	if (inside)
		pr->cc->points++;
	else
		dpk_clamp_add(pr->cc, pr->lo, pr->hi, v);
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
			dpk_clamp_add(pr->cc, pr->lo, pr->hi, pr->x);
			if (pr->metric)
			{
				dpk_highd_metric_row(pr->metric, pr->x);
				dpk_row_codes_pack(pr->x, 1, d, dpk_points_slot(pr->buf));
				pr->buf->n++;
			}
			else
				receive_point(pr->buf, pr->x);
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
				  const DpkHighdMetricMap *metric, DpkPointBuffer *buf, DpkClampCount *cc,
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
	DpkPointBuffer buf;
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
		/*
		 * each projected grid within the core's cap (a million cells) or the
		 * setting's, whichever is lower: finer ones cost time and fresh
		 * memory at 10^7 rows and nothing in accuracy (doc/decisions/089)
		 */
		hcfg.max_cells = Min(hcfg.max_cells, cfg.max_cells);
		hcfg.objective = cfg.objective;
		dpk_highd_use_ball(&hcfg, &box, norm_bound);
		/*
		 * every row kept as the codes of its metric position as it arrives;
		 * every pass reads them (beyond work_mem from a temporary file)
		 */
		dpk_highd_metric_map_init(&metric, &box, &hcfg);
		dpk_points_init_kept(&buf, &box, DPK_POINTS_METRIC_CODES, hcfg.ball, workctx);
	}
	else if (cfg.public_n >= 0.0)
	{
		/* the grid is known before the rows: count them as they arrive */
		dpk_lowd_stream_begin(&box, &cfg, &counted);
		dpk_points_init_counted(&buf, &box, &counted, workctx);
	}
	else
		/*
		 * the grid waits for the noisy N: every point kept as the codes of
		 * its position in the box, beyond work_mem in a temporary file
		 */
		dpk_points_init_kept(&buf, &box, DPK_POINTS_BOX_CODES, 0.0, workctx);
	dpk_clamp_init(&clamped, d);
	read_query_points(query, d, lo, hi, d >= DPK_HIGHD_MIN_D ? &metric : NULL, &buf,
					  &clamped, &names, &ncols);
	if (buf.counted && buf.n > 0)
		dpk_lowd_stream_add(&box, &counted, (const double *) buf.x, buf.n);
	dpk_clamp_report(&clamped, "the query result", names, ncols,
					 "Points clamped onto a face of the box count at its edge; check lower and upper, "
					 "or leave such rows out of the query.");

	dpk_pg_strong_random(key, sizeof(key));
	stream = palloc0(sizeof(DpkStream));
	dpk_pg_stream_open(stream, key, nonce);
	explicit_bzero(key, sizeof(key));
	if (d >= DPK_HIGHD_MIN_D)
	{
		DpkHighdSpill spill;
		DpkHighdRows rows = {dpk_points_read, &buf, &spill};

		/* the rows read back are metric positions (dpk_highd_metric_points's) */
		hcfg.points_metric = true;
		/* what the passes keep per row, beyond work_mem, in files too */
		dpk_pg_spill_init(&spill);
		dpk_highd_oneshot_cluster_rows(&box, &rows, (size_t) dpk_points_total(&buf), &hcfg,
									   stream, &res);
		dpk_points_close(&buf);
	}
	else
	{
		if (!buf.counted)
		{
			/* the noisy N of every point, then the points in batches */
			dpk_lowd_stream_begin_counted(&box, &cfg, (size_t) dpk_points_total(&buf), stream,
										  &counted);
			dpk_points_count(&buf, &counted);
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
