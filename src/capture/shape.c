/*
 * shape.c
 *		The shape of a tracked table's changes: which columns are its point,
 *		which cells a point is counted in (grid, projections, lifting sums),
 *		and the rows of a table or a trigger's arguments read into cell
 *		counts.  Every capture path (triggers, WAL, partitions, shards,
 *		dp_verify and the attach backfill) counts through these functions.
 */
#include "postgres.h"

#include <math.h>

#include "access/tableam.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "replication/logicalworker.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "capture_cache.h"
#include "dpk_mem.h"
#include "grid.h"
#include "capture.h"
#include "store.h"

/* Build a shape (see capture.h). */
void
dpk_shape_init(DpkShape *shape, Relation rel, int d, int level,
			   const AttrNumber *attnums, int ncols, const double *lower,
			   const double *upper)
{
	char	   *what = psprintf("table \"%s\"", RelationGetRelationName(rel));
	int			i;

	for (i = 0; i < ncols; i++)
		if (attnums[i] < 1 || attnums[i] > RelationGetDescr(rel)->natts ||
			TupleDescAttr(RelationGetDescr(rel), attnums[i] - 1)->attisdropped)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("a tracked column of %s no longer exists", what),
					 errhint("Detach and re-attach the table with its current columns.")));
	shape->d = d;
	shape->level = level;
	shape->ncols = ncols;
	shape->attnums = palloc(ncols * sizeof(AttrNumber));
	memcpy(shape->attnums, attnums, ncols * sizeof(AttrNumber));
	shape->lower = palloc(d * sizeof(double));
	shape->upper = palloc(d * sizeof(double));
	memcpy(shape->lower, lower, d * sizeof(double));
	memcpy(shape->upper, upper, d * sizeof(double));
	dpk_pg_point_reader_init(&shape->reader, RelationGetDescr(rel), attnums, ncols,
							 d, what);
	shape->x = palloc(d * sizeof(double));
	shape->u = palloc(d * sizeof(double));
	shape->idx = palloc(d * sizeof(int64_t));
	shape->rel = palloc(d * sizeof(int64_t));
	shape->mapctx = CurrentMemoryContext;
	shape->clamp = NULL;
	shape->capture_root = InvalidOid;
	shape->lenient = false;
	shape->parallel = false;
	shape->proj = NULL;
	shape->norm_bound = 0.0;
	shape->nbuf = shape->capbuf = 0;
	dpk_live_defaults(&shape->live, d, 1, 1.0, 1, false);
	shape->live.level = level;
}

/* Read the tracked columns of another table of the same tree (see capture.h). */
void
dpk_shape_bind(DpkShape *shape, Relation rel, char **colnames)
{
	AttrNumber *attnums = dpk_resolve_columns(rel, colnames, shape->ncols);

	memcpy(shape->attnums, attnums, shape->ncols * sizeof(AttrNumber));
	dpk_pg_point_reader_init(&shape->reader, RelationGetDescr(rel), shape->attnums,
							 shape->ncols, shape->d,
							 psprintf("table \"%s\"", RelationGetRelationName(rel)));
}

/* Projected cells for a high-dimensional table (see capture.h). */
void
dpk_shape_set_projection(DpkShape *shape, int dhat, int copies, uint64_t seed,
						 bool box_metric, double norm_bound)
{
	DpkBox		box = {shape->d, shape->lower, shape->upper};
	int			r;

	shape->live.level = shape->level;
	shape->live.box_metric = box_metric;
	shape->live.dhat = dhat;
	shape->live.copies = copies;
	shape->live.proj_seed = seed;
	shape->live.half_width = DPK_LIVE_HALF_WIDTH;
	dpk_live_use_ball(&shape->live, &box, norm_bound);
	shape->norm_bound = norm_bound;
	shape->proj = palloc(copies * sizeof(DpkProjection));
	for (r = 0; r < copies; r++)
		dpk_live_projection(&shape->live, r, &shape->proj[r]);
	shape->capbuf = 2048;
	shape->ubuf = palloc((size_t) shape->capbuf * shape->d * sizeof(double));
	shape->sbuf = palloc(shape->capbuf * sizeof(int));
	shape->tbuf = palloc((size_t) shape->capbuf * dhat * copies * sizeof(double));
	shape->tall = palloc((size_t) dhat * copies * sizeof(double));
}

/* A tracked table's projection, ball and norm unit (see capture.h). */
void
dpk_shape_set_tracked_lift(DpkShape *shape, const DpkTracked *tr)
{
	if (tr->dhat <= 0)
		return;
	dpk_shape_set_projection(shape, tr->dhat, tr->copies, tr->proj_seed,
							 tr->trigger_format >= 3, tr->norm_bound);
	shape->live.norm_shift = dpk_tracked_norm_shift(tr);
}

/*
 * Project the buffered points, all copies, and count them (see capture.h); row
 * by row, so a row's cell does not depend on the statement it came in.
 */
void
dpk_shape_flush(DpkShape *shape, DpkCellMap *map)
{
	int			dhat = shape->live.dhat,
				copies = shape->live.copies,
				i,
				r;
	MemoryContext old;

	if (shape->proj == NULL || shape->nbuf == 0)
		return;
	for (r = 0; r < copies; r++)
		dpk_project_rows(&shape->proj[r], shape->ubuf, shape->nbuf,
						 shape->tbuf + (size_t) r * shape->capbuf * dhat);
	old = MemoryContextSwitchTo(shape->mapctx);
	for (i = 0; i < shape->nbuf; i++)
	{
		for (r = 0; r < copies; r++)
			memcpy(shape->tall + (size_t) r * dhat,
				   shape->tbuf + ((size_t) r * shape->capbuf + i) * dhat,
				   dhat * sizeof(double));
		dpk_live_add_projected(&shape->live, map, shape->ubuf + (size_t) i * shape->d,
							   shape->tall, shape->sbuf[i]);
	}
	MemoryContextSwitchTo(old);
	shape->nbuf = 0;
}

/* Add one row's point to the map (see capture.h). */
void
dpk_shape_add_slot(DpkShape *shape, DpkCellMap *map, TupleTableSlot *slot, int sign)
{
	DpkPointStatus st = dpk_pg_read_point_slot(&shape->reader, slot, shape->x);
	DpkBox		box = {shape->d, shape->lower, shape->upper};
	uint64_t	cell;

	if (st != DPK_POINT_OK)
	{
		if (st == DPK_POINT_NULL || sign < 0 || shape->lenient)
			return;
		if (st == DPK_POINT_NAN)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a tracked coordinate is NaN"),
					 errhint("dpkmeans refuses NaN in tracked columns; store NULL for a row that is not a point.")));
		if (st == DPK_POINT_NOT_POINT)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("a tracked geometry is not a point"),
					 errhint("dpkmeans counts points; store a point (e.g. ST_Centroid(...)), or NULL for a row that is not one.")));
		if (st == DPK_POINT_EMPTY)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a tracked point is empty"),
					 errhint("Store NULL for a row that is not a point.")));
		if (st == DPK_POINT_SRID)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a tracked point is not in SRID %d", shape->reader.srid),
					 errhint("The table was attached with points in SRID %d; use ST_Transform(..., %d) or ST_SetSRID.",
							 shape->reader.srid, shape->reader.srid)));
		if (st == DPK_POINT_ZM)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a tracked point has Z or M coordinates"),
					 errhint("dpkmeans counts 2-D points; use ST_Force2D(...).")));
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("a tracked array must be one-dimensional with %d non-NULL elements",
						shape->d),
				 errhint("The table was attached with %d dimensions; store NULL for a row that is not a point.",
						 shape->d)));
	}
	if (shape->clamp != NULL && sign > 0)
		dpk_clamp_add(shape->clamp, shape->lower, shape->upper, shape->x);
	if (shape->proj != NULL)
	{
		/* Buffered: projected a batch at a time. */
		dpk_box_normalize(&box, shape->x, shape->ubuf + (size_t) shape->nbuf * shape->d);
		if (shape->live.box_metric)
		{
			dpk_box_to_metric(&box, shape->ubuf + (size_t) shape->nbuf * shape->d);
			dpk_box_ball_clamp(shape->d, shape->live.ball,
							   shape->ubuf + (size_t) shape->nbuf * shape->d);
		}
		shape->sbuf[shape->nbuf++] = sign;
		if (shape->nbuf == shape->capbuf)
			dpk_shape_flush(shape, map);
		return;
	}
	dpk_box_normalize(&box, shape->x, shape->u);
	cell = dpk_grid_cell(shape->d, 1 << shape->level, shape->u, shape->idx, shape->rel);
	{
		/* Rows are read in a per-row context; the map must outlive it. */
		MemoryContext old = MemoryContextSwitchTo(shape->mapctx);

		dpk_cellmap_add_point(map, cell, shape->rel, sign);
		MemoryContextSwitchTo(old);
	}
}

/* Count every row a scan returns (see capture.h). */
uint64
dpk_scan_rows(TableScanDesc scan, Relation rel, DpkShape *shape, DpkCellMap *map,
			  uint64 every, void (*tick) (void *arg, uint64 rows), void *arg)
{
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	MemoryContext rowctx = AllocSetContextCreate(CurrentMemoryContext, "dpkmeans row",
												 ALLOCSET_SMALL_SIZES);
	MemoryContext old;
	uint64		rows = 0,
				since = 0;

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		old = MemoryContextSwitchTo(rowctx);
		dpk_shape_add_slot(shape, map, slot, +1);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowctx);
		if ((++rows & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		if (every > 0 && ++since == every)
		{
			tick(arg, since);
			since = 0;
		}
	}
	ExecDropSingleTupleTableSlot(slot);
	MemoryContextDelete(rowctx);
	dpk_shape_flush(shape, map);
	return since;
}

/* The progress of a serial scan: the table and its rows counted so far. */
typedef struct ScanNotices
{
	Relation	rel;
	uint64		rows;
} ScanNotices;

/* A NOTICE every dpkmeans.progress_rows rows of a serial scan. */
static void
scan_notice(void *arg, uint64 rows)
{
	ScanNotices *sn = arg;

	sn->rows += rows;
	ereport(NOTICE,
			(errmsg("dpkmeans: %llu rows of \"%s\" counted",
					(unsigned long long) sn->rows, RelationGetRelationName(sn->rel))));
}

/* Scan every row of rel under the active snapshot (see capture.h). */
void
dpk_scan_table(Relation rel, DpkShape *shape, DpkCellMap *map, bool progress)
{
	TableScanDesc scan;
	ScanNotices notices = {rel, 0};

	if (shape->parallel && dpk_scan_table_parallel(rel, shape, map, progress))
		return;
	scan = table_beginscan(rel, GetActiveSnapshot(), 0, NULL);
	(void) dpk_scan_rows(scan, rel, shape, map,
						 progress && dpk_progress_rows > 0 ? (uint64) dpk_progress_rows : 0,
						 scan_notice, &notices);
	table_endscan(scan);
}

/* Parse a comma-separated list of doubles from a trigger argument. */
static double *
parse_doubles(const char *s, int n)
{
	double	   *out = palloc(n * sizeof(double));
	char	   *end;
	int			i;

	for (i = 0; i < n; i++)
	{
		out[i] = strtod(s, &end);
		if (end == s)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("a dpkmeans trigger has malformed arguments"),
					 errdetail("\"%s\" is not a list of %d numbers.", s, n),
					 errhint("Detach and re-attach the table.")));
		s = (*end == ',') ? end + 1 : end;
	}
	return out;
}

/*
 * The tracked columns' attribute numbers in rel, resolved by name (see
 * capture.h): a dump and restore renumbers columns after a dropped one, so
 * numbers stored at attach would point at the wrong columns or none.
 */
AttrNumber *
dpk_resolve_columns(Relation rel, char **names, int ncols)
{
	AttrNumber *att = palloc(ncols * sizeof(AttrNumber));
	int			i;

	for (i = 0; i < ncols; i++)
	{
		att[i] = get_attnum(RelationGetRelid(rel), names[i]);
		if (att[i] == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("tracked column \"%s\" of table \"%s\" no longer exists",
							names[i], RelationGetRelationName(rel)),
					 errhint("Detach and re-attach the table with its current columns.")));
	}
	return att;
}

/*
 * The shape of a table from its trigger's arguments (written by dp_attach).
 * Format 2: "dpkmeans:2", d, level, lower, upper, dhat, copies, seed, then
 * one argument per tracked column name; format 3: the same with
 * "dpkmeans:3" (a projected table's points in metric positions); "dpkmeans:4"
 * adds the norm bound before the columns, "dpkmeans:5" the norm bound (0:
 * none) and the norm counter's unit shift.  Format 1
 * (version 0.1): d, level, attribute numbers, lower, upper[, dhat, copies,
 * seed].
 */
void
dpk_shape_from_trigger(DpkShape *shape, TriggerData *td)
{
	Trigger    *tg = td->tg_trigger;
	char	  **a = tg->tgargs;
	int			d,
				level,
				ncols,
				dhat = 0,
				copies = 0,
				i;
	uint64		seed = 0;
	double	   *lo,
			   *hi;
	AttrNumber *attnums;
	bool		shifted = tg->tgnargs >= 11 && strcmp(a[0], DPK_TRIGGER_TAG_SHIFT) == 0;
	bool		ball = shifted ||
		(tg->tgnargs >= 10 && strcmp(a[0], DPK_TRIGGER_TAG_BALL) == 0);
	bool		metric = ball ||
		(tg->tgnargs >= 9 && strcmp(a[0], DPK_TRIGGER_TAG_METRIC) == 0);
	double		norm_bound = 0.0;
	int			norm_shift = 0;

	if (tg->tgnargs >= 9 && (metric || strcmp(a[0], DPK_TRIGGER_TAG) == 0))
	{
		int			first = shifted ? 10 : ball ? 9 : 8;

		d = atoi(a[1]);
		level = atoi(a[2]);
		lo = parse_doubles(a[3], d);
		hi = parse_doubles(a[4], d);
		dhat = atoi(a[5]);
		copies = atoi(a[6]);
		seed = strtoull(a[7], NULL, 10);
		if (ball)
			norm_bound = parse_doubles(a[8], 1)[0];
		if (shifted)
		{
			norm_shift = atoi(a[9]);
			if (norm_shift < 1 || norm_shift > DPK_LIVE_NORM_SHIFT_MAX)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("a dpkmeans trigger has a malformed norm unit \"%s\"", a[9]),
						 errdetail("Trigger \"%s\" carries a shift outside 1 .. %d.", tg->tgname,
								   DPK_LIVE_NORM_SHIFT_MAX),
						 errhint("Detach and re-attach the table.")));
		}
		ncols = tg->tgnargs - first;
		attnums = dpk_resolve_columns(td->tg_relation, a + first, ncols);
	}
	else if (tg->tgnargs == 5 || tg->tgnargs == 8)
	{
		const char *p;
		double	   *att;

		d = atoi(a[0]);
		level = atoi(a[1]);
		for (p = a[2], ncols = 1; *p; p++)
			if (*p == ',')
				ncols++;
		att = parse_doubles(a[2], ncols);
		attnums = palloc(ncols * sizeof(AttrNumber));
		for (i = 0; i < ncols; i++)
			attnums[i] = (AttrNumber) att[i];
		lo = parse_doubles(a[3], d);
		hi = parse_doubles(a[4], d);
		if (tg->tgnargs == 8)
		{
			dhat = atoi(a[5]);
			copies = atoi(a[6]);
			seed = strtoull(a[7], NULL, 10);
		}
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a dpkmeans trigger has malformed arguments"),
				 errdetail("Trigger \"%s\" has %d arguments.", tg->tgname, tg->tgnargs),
				 errhint("Detach and re-attach the table.")));
	dpk_shape_init(shape, td->tg_relation, d, level, attnums, ncols, lo, hi);
	if (dhat > 0)
	{
		dpk_shape_set_projection(shape, dhat, copies, seed, metric, norm_bound);
		shape->live.norm_shift = norm_shift;
	}
	/* kept with the cached shape: a partition's root is found once */
	shape->capture_root = dpk_capture_root(td->tg_relation);
}

/*
 * Cells a serialised change is padded to: rows written times the cells one
 * row touches, capped by the cells of the configuration (see counter.h).
 */
uint64
dpk_pad_cells(const DpkLiveConfig *cfg, uint64 rows)
{
	double		total,
				per_row;

	if (cfg->dhat > 0)
	{
		total = (double) cfg->copies * (double) dpk_live_copy_cells(cfg) + 1.0;
		per_row = cfg->copies + 1.0;
	}
	else
	{
		total = pow(2.0, (double) cfg->level * cfg->d);
		per_row = 1.0;
	}
	return (uint64) fmin(total, (double) rows * per_row);
}

/* Rows a state holds (its count total; every copy counts a row once). */
uint64
dpk_state_rows(const DpkLiveConfig *cfg, const DpkCellMap *state)
{
	size_t		pos = 0;
	uint64_t	cell;
	const int64_t *v;
	uint64		total = 0;

	while (dpk_cellmap_next(state, &pos, &cell, &v))
		if (cfg->dhat == 0 || cell != DPK_LIVE_NORM_CELL(cfg))
			total += (uint64) (v[0] < 0 ? -v[0] : v[0]);
	if (cfg->dhat > 0)
		total = total / (uint64) cfg->copies + 1;
	return total;
}
