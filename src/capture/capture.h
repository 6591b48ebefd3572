/*
 * capture.h
 *		The capture of a live table's rows: shapes of changes, triggers and
 *		their installation, the partition tree, the box's clamp counts.
 */
#ifndef DPK_CAPTURE_H
#define DPK_CAPTURE_H

#include "postgres.h"

#include "executor/tuptable.h"
#include "nodes/parsenodes.h"
#include "storage/lockdefs.h"
#include "utils/relcache.h"

#include "live_config.h"
#include "counter.h"
#include "highd.h"
#include "lift.h"
#include "projection.h"
#include "pgutil.h"

/* Projected box half-width of live tables. */
#define DPK_LIVE_HALF_WIDTH DPK_PROJ_HALF_WIDTH

/*
 * Points outside the declared box, per coordinate and side: true counts,
 * for the owner's checks only (dp_attach's backfill, dp_bounds_check) and
 * for the caller of dp_kmeans, who ran the query; never the triggers.
 */
typedef struct DpkClampCount
{
	int			d;
	int64		points;			/* rows that are points */
	int64		outside;		/* of them, outside the box in some coordinate */
	int64	   *below;			/* d: below lower */
	int64	   *above;			/* d: above upper */
} DpkClampCount;

/* The name of coordinate j: a column, or an element of the one array column. */
char	   *dpk_clamp_coord_name(char **names, int ncols, int d, int j);

/* clamp.c: zero counts for d coordinates. */
void		dpk_clamp_init(DpkClampCount *cc, int d);

/* Count one point x (d coordinates, NaN-free) against the box. */
void		dpk_clamp_add(DpkClampCount *cc, const double *lower, const double *upper,
						  const double *x);

/*
 * Tell the caller how many points were clamped (nothing when none): a
 * WARNING when a side of a coordinate holds more than
 * DPK_CLAMP_WARN_SHARE of the points or every point lies outside the box,
 * else a NOTICE.  what names the data ("table \"t\"", "the query result");
 * names: the tracked columns (ncols of them: d numeric columns, or one
 * array column); hint: what the caller can do.  Said only when the role
 * that called from outside any SECURITY DEFINER function has the
 * privileges of the role reading the rows.
 */
void		dpk_clamp_report(const DpkClampCount *cc, const char *what, char **names,
							 int ncols, const char *hint);

/* How a tracked table's rows map to cells of its counted level. */
typedef struct DpkShape
{
	int			d;
	int			level;
	int			ncols;
	AttrNumber *attnums;
	double	   *lower;
	double	   *upper;
	DpkPointReader reader;
	double	   *x;				/* scratch: one point */
	double	   *u;				/* scratch: its normalized position */
	int64_t    *idx;			/* scratch */
	int64_t    *rel;			/* scratch */
	MemoryContext mapctx;		/* where cell maps fed by this shape grow */
	DpkClampCount *clamp;		/* NULL, or where new rows outside the box
								 * are counted (attach's backfill only) */
	Oid			capture_root;	/* whose counters the trigger's writes feed
								 * (dpk_capture_root), set from a trigger */
	bool		parallel;		/* dpk_scan_table may use parallel workers
								 * (src/capture/parallel_scan.c) */
	bool		lenient;		/* a new row that is not a valid point (NaN,
								 * malformed array) is skipped like NULL
								 * instead of refused: a capture from the WAL
								 * cannot refuse a committed write */
	/* High dimensions: projected copies, rows buffered for one dgemm. */
	DpkLiveConfig live;			/* d, level, dhat, copies, seed, half_width */
	DpkProjection *proj;		/* copies of them, or NULL */
	double		norm_bound;		/* the norm bound they were set with (0: none) */
	int			nbuf;
	int			capbuf;
	double	   *ubuf;			/* capbuf * d normalized points */
	int		   *sbuf;			/* their signs */
	double	   *tbuf;			/* capbuf * dhat projected, one copy */
	double	   *tall;			/* copies * dhat, one point */
} DpkShape;

/*
 * Switch a shape to projected cells (dhat > 0), `copies` copies of the
 * projection of `seed` (dpk_live_projection): with box_metric (trigger
 * format 3) points in metric positions (dpk_box_to_metric); with a norm
 * bound (norm_bound > 0, in the columns' units) moved into the ball of that
 * radius around the box's middle before they are projected and counted
 * (dpk_box_ball_clamp, radius dpk_live_use_ball's), the projected box then
 * the ball's narrower one.  Points are buffered and projected a batch at a
 * time, each row on its own (dpk_project_rows).
 */
void		dpk_shape_set_projection(DpkShape *shape, int dhat, int copies,
									 uint64_t seed, bool box_metric, double norm_bound);

/*
 * A projected tracked table's projection, norm bound and norm counter unit
 * from its stored configuration, as its triggers carry them (the scans of
 * dp_verify and the backfill, the WAL capture).  Nothing when tr->dhat is 0.
 */
struct DpkTracked;
void		dpk_shape_set_tracked_lift(DpkShape *shape, const struct DpkTracked *tr);

/* Count the buffered points of a projected shape into map. */
void		dpk_shape_flush(DpkShape *shape, DpkCellMap *map);

/* Build a shape for rel from its configuration; checks the column types. */
void		dpk_shape_init(DpkShape *shape, Relation rel, int d, int level,
						   const AttrNumber *attnums, int ncols,
						   const double *lower, const double *upper);

/*
 * Add the point of a slot's row to map with sign +1 (a new row) or -1 (an
 * old row).  A NULL value means no point.  A new row with a NaN coordinate
 * or a malformed array is refused with an error (it only concerns the
 * writer's own statement), or skipped by a lenient shape; an old row that is
 * not a point was never counted and is skipped.
 */
void		dpk_shape_add_slot(DpkShape *shape, DpkCellMap *map,
							   TupleTableSlot *slot, int sign);

/*
 * Count every row of the table into map (attach backfill, dp_verify), with
 * parallel workers when the shape allows them (dpk_scan_table_parallel).
 */
void		dpk_scan_table(Relation rel, DpkShape *shape, DpkCellMap *map,
						   bool progress);

/*
 * Count every row scan returns into map with the shape: each row read in a
 * scratch context reset after it, interrupts checked every 65 536 rows,
 * tick(arg, rows) called every `every` rows (0: never) with the rows since
 * its last call, the projected rows still buffered counted at the end.
 * Returns the rows since the last tick.  The caller begins and ends scan.
 */
struct TableScanDescData;
uint64		dpk_scan_rows(struct TableScanDescData *scan, Relation rel, DpkShape *shape, DpkCellMap *map,
						  uint64 every, void (*tick) (void *arg, uint64 rows), void *arg);

/*
 * Count every row of rel into map as dpk_scan_table does, with parallel
 * workers sharing the scan under the active snapshot: the same counts, the
 * points outside the box added into shape->clamp, a worker's error raised
 * here.  False, having read nothing, when the table is too small for
 * workers (min_parallel_table_scan_size), temporary, or none may start
 * (max_parallel_maintenance_workers is 0, already in parallel mode).
 */
bool		dpk_scan_table_parallel(Relation rel, DpkShape *shape, DpkCellMap *map,
									bool progress);

struct DpkTracked;

/* Read the tracked columns (by name) of another table of the same tree. */
void		dpk_shape_bind(DpkShape *shape, Relation rel, char **colnames);

/*
 * Partitioned tables (src/capture/partition.c).  dpk_capture_root: the table whose
 * counters a write into rel feeds (rel itself, or the root of its partition
 * tree).  dpk_attached_root: that root when it is attached, else InvalidOid.
 * dpk_partition_relids: relid and, for a partitioned table, every partition under
 * it at any depth, relid first, locked in lockmode.
 */
Oid			dpk_capture_root(Relation rel);
Oid			dpk_attached_root(Oid relid);
List	   *dpk_partition_relids(Oid relid, LOCKMODE lockmode);

/* ERROR if a table of the tree under relid is a foreign table or not logged. */
void		dpk_partition_check_tree(Oid relid);

/* ERROR unless every table of tree (relids) is logged (src/capture/ddl_guard.c). */
void		dpk_refuse_unlogged(List *tree);

/*
 * ERROR if a table of tree (dpk_partition_relids) is a partition whose DETACH
 * ... CONCURRENTLY has begun and not ended: the server gives it no clone
 * of its parent's row triggers, so a capture installed now would miss them.
 */
void		dpk_check_no_detaching(List *tree);

/* Count every row stored under relid into map (tr's shape, by column name). */
void		dpk_partition_scan(const struct DpkTracked *tr, Oid relid, DpkCellMap *map,
						  bool progress);

/*
 * The same, counting the points outside the box into clamp (or NULL), with
 * parallel workers for large tables when parallel is true (the backfills).
 */
void		dpk_partition_scan_clamped(const struct DpkTracked *tr, Oid relid, DpkCellMap *map,
									   bool progress, DpkClampCount *clamp, bool parallel);

/* Append to root's deltas the rows stored under sub with sign +1 or -1. */
void		dpk_partition_count(Oid root, Oid sub, int sign);

/* Checks and counting at ddl_command_start (called by src/capture/ddl_guard.c). */
void		dpk_partition_before_drop(DropStmt *stmt);
void		dpk_partition_check_alter(AlterTableStmt *stmt);
void		dpk_partition_check_create_foreign(CreateForeignTableStmt *stmt);

/*
 * Capture triggers of tr's table on relid (tr's table or a partition under
 * it): statement triggers on every table, the truncate trigger on tables
 * with storage, the row trigger for logical replication on the root only
 * (partitions get clones).  dpk_drop_capture removes them from one table.
 * Both run as the extension's owner (between dpk_store_begin and _end).
 */
void		dpk_install_capture(const struct DpkTracked *tr, Oid relid);
void		dpk_drop_capture(Oid relid);

/* Whether the tree under relid holds a foreign table. */
bool		dpk_shard_tree_has_foreign(Oid relid);

/*
 * Capture on a table of a tree that holds foreign partitions
 * (shard_capture.c).  PostgreSQL collects no transition tables for rows
 * routed to foreign partitions, so there the local leaves count their rows
 * with a row trigger into a per-statement map, and a statement trigger (no
 * transition table) on every local table writes it as one delta.
 */
void		dpk_shard_install_capture(const struct DpkTracked *tr, Oid relid);

/* Create a capture trigger with tr's arguments on relid (capture_install.c). */
void		dpk_attach_capture_trigger(const struct DpkTracked *tr, Oid relid,
									   const char *name, const char *func, bool row,
									   int16 timing, int16 events);

/* Whether dpkmeans_internal has a C function of that name (objects of this version). */
bool		dpk_have_internal_function(const char *name);

/*
 * First argument of a capture trigger of format 2 and of format 3 (the same
 * arguments; projected tables' points in metric positions), see shape.c.
 */
#define DPK_TRIGGER_TAG "dpkmeans:2"
#define DPK_TRIGGER_TAG_METRIC "dpkmeans:3"
/* metric positions and a norm bound: one more argument before the columns */
#define DPK_TRIGGER_TAG_BALL "dpkmeans:4"
/*
 * As "dpkmeans:4" (norm bound 0: none) and then the norm counter's unit
 * shift (dpk_live_use_norm_shift): written only for tables whose shift is
 * not 0, so every other trigger keeps its format.
 */
#define DPK_TRIGGER_TAG_SHIFT "dpkmeans:5"

/* The shape of a capture trigger's table, from its arguments (see shape.c). */
struct TriggerData;
void		dpk_shape_from_trigger(DpkShape *shape, struct TriggerData *td);

/*
 * Attribute numbers of the tracked columns in rel, resolved by name; ERROR
 * naming a column that no longer exists.
 */
AttrNumber *dpk_resolve_columns(Relation rel, char **names, int ncols);

/*
 * Cells a serialised change of `rows` rows is padded to (rows times the cells
 * one row touches, at most the configuration's cells), so stored sizes
 * reveal only the row count.
 */
uint64		dpk_pad_cells(const DpkLiveConfig *cfg, uint64 rows);

/* Rows a true state holds (for padding the stored state). */
uint64		dpk_state_rows(const DpkLiveConfig *cfg, const DpkCellMap *state);

#endif
