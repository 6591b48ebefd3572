/*
 * parallel_scan.c
 *		Counting a large table's rows with parallel workers: the backfill of
 *		dp_attach reads the whole table once, and on a table of millions of
 *		rows that read is most of the attach.
 *
 * The leader and up to max_parallel_maintenance_workers workers share one
 * parallel heap scan under the caller's active snapshot, as a parallel
 * index build does.  Each worker counts its rows into a cell map of its own
 * with the same shape (columns, box, grid level, projections) and sends the
 * map, with its count of rows outside the box, to the leader through a
 * message queue; the leader adds every map into the caller's.  Counts and
 * sums are integers, so the merged map is the serial scan's exactly,
 * whatever rows each process read.  A worker's error (a NaN coordinate, a
 * malformed array) ends the scan with that error in the leader.
 */
#include "postgres.h"

#include <math.h>

#include "access/parallel.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "port/atomics.h"
#include "storage/bufmgr.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "capture.h"

/* Keys of the shared memory's table of contents. */
#define SCAN_KEY_SHARED		UINT64CONST(0xD9C0000000000001)
#define SCAN_KEY_ATTNUMS	UINT64CONST(0xD9C0000000000002)
#define SCAN_KEY_BOUNDS		UINT64CONST(0xD9C0000000000003)
#define SCAN_KEY_TABLESCAN	UINT64CONST(0xD9C0000000000004)
#define SCAN_KEY_QUEUES		UINT64CONST(0xD9C0000000000005)

/* Bytes of each worker's queue to the leader. */
#define SCAN_QUEUE_BYTES	(256 * 1024)

/* Cells a message carries (each 2 + d int64: cell, count, sums). */
#define SCAN_MESSAGE_CELLS	4096

/* Rows a process counts between two updates of the shared row count. */
#define SCAN_PROGRESS_STEP	65536

/* What every process needs to count a row as the leader does. */
typedef struct ScanShared
{
	Oid			relid;
	int			d;
	int			level;
	int			ncols;
	int			dhat;			/* 0: no projection */
	int			copies;
	uint64		proj_seed;
	bool		box_metric;
	double		norm_bound;
	int			norm_shift;
	bool		lenient;
	bool		clamp;			/* count the points outside the box */
	pg_atomic_uint64 rows;		/* rows counted so far, every process */
} ScanShared;

PGDLLEXPORT void dpk_scan_worker_main(dsm_segment *seg, shm_toc *toc);

/*
 * Workers for a scan of rel: none for a small table (below
 * min_parallel_table_scan_size), a temporary one (its buffers are the
 * session's), or where a parallel context cannot start (already in
 * parallel mode, a worker, a standalone backend); else one, and one more
 * for every tripling of the size, as PostgreSQL sizes a parallel heap scan,
 * or the table's parallel_workers option, within
 * max_parallel_maintenance_workers.  Every process keeps a cell map of its
 * own, as large as the shape's cells allow (a projected shape's: d + 1
 * counters for each cell of every copy), so the processes' maps must fit
 * maintenance_work_mem together, as a parallel index build's sorts do.
 */
static int
scan_workers(Relation rel, const DpkShape *shape)
{
	BlockNumber pages;
	double		threshold,
				cells,
				map_bytes;
	int			workers;

	if (!IsUnderPostmaster || IsInParallelMode() || IsParallelWorker() ||
		max_parallel_maintenance_workers <= 0 || RelationUsesLocalBuffers(rel))
		return 0;
	pages = RelationGetNumberOfBlocks(rel);
	workers = RelationGetParallelWorkers(rel, -1);
	if (workers < 0)
	{
		if ((double) pages < (double) min_parallel_table_scan_size)
			return 0;
		threshold = Max(min_parallel_table_scan_size, 1);
		workers = 1;
		while ((double) pages >= threshold * 3.0 && workers < INT_MAX / 2)
		{
			workers++;
			threshold *= 3.0;
		}
	}
	workers = Min(workers, max_parallel_maintenance_workers);

	/* a hash map of occupied cells: key and counters, at most 3/4 full */
	cells = shape->proj != NULL
		? (double) shape->live.copies * (double) dpk_live_copy_cells(&shape->live)
		: pow(2.0, (double) shape->level * shape->d);
	map_bytes = cells * (2.0 + shape->d) * sizeof(int64) * 4.0 / 3.0;
	while (workers > 0 && map_bytes * (workers + 1) > (double) maintenance_work_mem * 1024.0)
		workers--;
	return workers;
}

/*
 * Add rows one process counted to the shared count; with progress (the
 * leader), a NOTICE when the total passes a multiple of
 * dpkmeans.progress_rows (the highest, when it passed several).
 */
static void
scan_progress(ScanShared *shared, uint64 rows, bool progress, uint64 *reported,
			  Relation rel)
{
	uint64		total = pg_atomic_add_fetch_u64(&shared->rows, rows);

	if (progress && dpk_progress_rows > 0 &&
		total / (uint64) dpk_progress_rows > *reported)
	{
		*reported = total / (uint64) dpk_progress_rows;
		ereport(NOTICE,
				(errmsg("dpkmeans: %llu rows of \"%s\" counted",
						(unsigned long long) (*reported * (uint64) dpk_progress_rows),
						RelationGetRelationName(rel))));
	}
}

/* What a process's ticks need (scan_tick). */
typedef struct ScanTicks
{
	ScanShared *shared;
	bool		progress;
	uint64	   *reported;
	Relation	rel;
} ScanTicks;

/* Every SCAN_PROGRESS_STEP rows of a process (dpk_scan_rows' tick). */
static void
scan_tick(void *arg, uint64 rows)
{
	ScanTicks  *st = arg;

	scan_progress(st->shared, rows, st->progress, st->reported, st->rel);
}

/*
 * Count this process's share of the parallel scan into map.  The leader
 * (progress true when asked) reports progress over every process's rows,
 * *reported the multiples of dpkmeans.progress_rows it has reported.
 */
static void
scan_share(Relation rel, ParallelTableScanDesc pscan, ScanShared *shared,
		   DpkShape *shape, DpkCellMap *map, bool progress, uint64 *reported)
{
	TableScanDesc scan = table_beginscan_parallel(rel, pscan);
	ScanTicks	ticks = {shared, progress, reported, rel};
	uint64		rest = dpk_scan_rows(scan, rel, shape, map, SCAN_PROGRESS_STEP, scan_tick, &ticks);

	scan_progress(shared, rest, false, reported, rel);
	table_endscan(scan);
}

/*
 * Send a worker's counts to the leader: first its clamp counts (points,
 * outside, below[d], above[d]), then its cells, SCAN_MESSAGE_CELLS at a
 * time, each as (cell, count, sums).
 */
static void
scan_send(shm_mq_handle *mqh, const DpkCellMap *map, const DpkClampCount *clamp, int d)
{
	int			w = 1 + d,
				entry = 1 + w,
				j;
	int64	   *msg = palloc((size_t) SCAN_MESSAGE_CELLS * entry * sizeof(int64));
	size_t		i,
				n = 0;

	msg[0] = clamp ? clamp->points : 0;
	msg[1] = clamp ? clamp->outside : 0;
	for (j = 0; j < d; j++)
	{
		msg[2 + j] = clamp ? clamp->below[j] : 0;
		msg[2 + d + j] = clamp ? clamp->above[j] : 0;
	}
	if (shm_mq_send(mqh, (2 + 2 * (Size) d) * sizeof(int64), msg, false, true) != SHM_MQ_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("dpkmeans: lost the leader of a parallel scan")));
	for (i = 0; i < map->cap; i++)
	{
		if (map->keys[i] == 0)
			continue;
		msg[n * entry] = (int64) (map->keys[i] - 1);
		memcpy(msg + n * entry + 1, map->vals + i * w, w * sizeof(int64));
		if (++n == SCAN_MESSAGE_CELLS)
		{
			if (shm_mq_send(mqh, n * entry * sizeof(int64), msg, false, true) != SHM_MQ_SUCCESS)
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("dpkmeans: lost the leader of a parallel scan")));
			n = 0;
		}
	}
	if (n > 0 &&
		shm_mq_send(mqh, n * entry * sizeof(int64), msg, false, true) != SHM_MQ_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("dpkmeans: lost the leader of a parallel scan")));
	pfree(msg);
}

/*
 * Add one worker's counts to the leader's map and clamp counts.  A worker
 * that never started, or that failed, detaches without sending; a failure's
 * error reaches the leader when it waits for the workers.
 */
static void
scan_receive(shm_mq_handle *mqh, DpkShape *shape, DpkCellMap *map)
{
	int			d = shape->d,
				w = 1 + d,
				entry = 1 + w,
				j;
	bool		first = true;

	for (;;)
	{
		Size		len;
		void	   *data;
		MemoryContext old;
		const int64 *msg;
		size_t		i,
					n;

		if (shm_mq_receive(mqh, &len, &data, false) != SHM_MQ_SUCCESS)
			return;
		msg = (const int64 *) data;
		if (first)
		{
			if (len != (2 + 2 * (Size) d) * sizeof(int64))
				elog(ERROR, "dpkmeans: malformed message from a parallel scan");
			if (shape->clamp != NULL)
			{
				shape->clamp->points += msg[0];
				shape->clamp->outside += msg[1];
				for (j = 0; j < d; j++)
				{
					shape->clamp->below[j] += msg[2 + j];
					shape->clamp->above[j] += msg[2 + d + j];
				}
			}
			first = false;
			continue;
		}
		if (len % (entry * sizeof(int64)) != 0)
			elog(ERROR, "dpkmeans: malformed message from a parallel scan");
		n = len / (entry * sizeof(int64));
		/* the map grows where the caller's map grows */
		old = MemoryContextSwitchTo(shape->mapctx);
		for (i = 0; i < n; i++)
		{
			int64_t    *v = dpk_cellmap_get(map, (uint64_t) msg[i * entry]);

			for (j = 0; j < w; j++)
				v[j] += msg[i * entry + 1 + j];
		}
		MemoryContextSwitchTo(old);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Count every row of rel into map with parallel workers (see capture.h);
 * false, having read nothing, when rel is not worth or not fit for them.
 */
bool
dpk_scan_table_parallel(Relation rel, DpkShape *shape, DpkCellMap *map, bool progress)
{
	int			nworkers = scan_workers(rel, shape),
				i;
	ParallelContext *pcxt;
	ScanShared *shared;
	AttrNumber *attnums;
	double	   *bounds;
	ParallelTableScanDesc pscan;
	Size		pscan_len;
	char	   *queues;
	shm_mq_handle **mqh;
	Snapshot	snapshot = GetActiveSnapshot();
	uint64		reported = 0;

	if (nworkers <= 0 || snapshot == NULL || !IsMVCCSnapshot(snapshot))
		return false;

	EnterParallelMode();
	pcxt = CreateParallelContext("dpkmeans", "dpk_scan_worker_main", nworkers);
	pscan_len = table_parallelscan_estimate(rel, snapshot);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(ScanShared));
	shm_toc_estimate_chunk(&pcxt->estimator, shape->ncols * sizeof(AttrNumber));
	shm_toc_estimate_chunk(&pcxt->estimator, 2 * shape->d * sizeof(double));
	shm_toc_estimate_chunk(&pcxt->estimator, pscan_len);
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(SCAN_QUEUE_BYTES, nworkers));
	shm_toc_estimate_keys(&pcxt->estimator, 5);
	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		/* no dynamic shared memory left: the serial scan */
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return false;
	}

	shared = shm_toc_allocate(pcxt->toc, sizeof(ScanShared));
	shared->relid = RelationGetRelid(rel);
	shared->d = shape->d;
	shared->level = shape->level;
	shared->ncols = shape->ncols;
	shared->dhat = shape->proj != NULL ? shape->live.dhat : 0;
	shared->copies = shape->live.copies;
	shared->proj_seed = shape->live.proj_seed;
	shared->box_metric = shape->live.box_metric;
	shared->norm_bound = shape->norm_bound;
	shared->norm_shift = shape->live.norm_shift;
	shared->lenient = shape->lenient;
	shared->clamp = shape->clamp != NULL;
	pg_atomic_init_u64(&shared->rows, 0);
	shm_toc_insert(pcxt->toc, SCAN_KEY_SHARED, shared);

	attnums = shm_toc_allocate(pcxt->toc, shape->ncols * sizeof(AttrNumber));
	memcpy(attnums, shape->attnums, shape->ncols * sizeof(AttrNumber));
	shm_toc_insert(pcxt->toc, SCAN_KEY_ATTNUMS, attnums);
	bounds = shm_toc_allocate(pcxt->toc, 2 * shape->d * sizeof(double));
	memcpy(bounds, shape->lower, shape->d * sizeof(double));
	memcpy(bounds + shape->d, shape->upper, shape->d * sizeof(double));
	shm_toc_insert(pcxt->toc, SCAN_KEY_BOUNDS, bounds);

	pscan = shm_toc_allocate(pcxt->toc, pscan_len);
	table_parallelscan_initialize(rel, pscan, snapshot);
	shm_toc_insert(pcxt->toc, SCAN_KEY_TABLESCAN, pscan);

	queues = shm_toc_allocate(pcxt->toc, mul_size(SCAN_QUEUE_BYTES, nworkers));
	for (i = 0; i < nworkers; i++)
	{
		shm_mq	   *mq = shm_mq_create(queues + (Size) i * SCAN_QUEUE_BYTES, SCAN_QUEUE_BYTES);

		shm_mq_set_receiver(mq, MyProc);
	}
	shm_toc_insert(pcxt->toc, SCAN_KEY_QUEUES, queues);

	LaunchParallelWorkers(pcxt);
	mqh = palloc0(Max(pcxt->nworkers_launched, 1) * sizeof(shm_mq_handle *));
	for (i = 0; i < pcxt->nworkers_launched; i++)
	{
		shm_mq	   *mq = (shm_mq *) (queues + (Size) i * SCAN_QUEUE_BYTES);

		mqh[i] = shm_mq_attach(mq, pcxt->seg, NULL);
		shm_mq_set_handle(mqh[i], pcxt->worker[i].bgwhandle);
	}

	/* The leader reads too unless told not to and a worker does. */
	if (parallel_leader_participation || pcxt->nworkers_launched == 0)
		scan_share(rel, pscan, shared, shape, map, progress, &reported);
	for (i = 0; i < pcxt->nworkers_launched; i++)
		scan_receive(mqh[i], shape, map);
	WaitForParallelWorkersToFinish(pcxt);
	/* the multiples the workers passed after the leader's last report */
	scan_progress(shared, 0, progress, &reported, rel);

	DestroyParallelContext(pcxt);
	ExitParallelMode();
	return true;
}

/*
 * A worker of dpk_scan_table_parallel: its share of the rows counted with
 * the leader's shape and sent to the leader.
 */
void
dpk_scan_worker_main(dsm_segment *seg, shm_toc *toc)
{
	ScanShared *shared = shm_toc_lookup(toc, SCAN_KEY_SHARED, false);
	AttrNumber *attnums = shm_toc_lookup(toc, SCAN_KEY_ATTNUMS, false);
	double	   *bounds = shm_toc_lookup(toc, SCAN_KEY_BOUNDS, false);
	ParallelTableScanDesc pscan = shm_toc_lookup(toc, SCAN_KEY_TABLESCAN, false);
	char	   *queues = shm_toc_lookup(toc, SCAN_KEY_QUEUES, false);
	shm_mq	   *mq = (shm_mq *) (queues + (Size) ParallelWorkerNumber * SCAN_QUEUE_BYTES);
	shm_mq_handle *mqh;
	Relation	rel;
	DpkShape	shape;
	DpkCellMap	map;
	DpkClampCount clamp;
	uint64		reported = 0;

	shm_mq_set_sender(mq, MyProc);
	mqh = shm_mq_attach(mq, seg, NULL);

	/* the leader holds the lock that keeps writers out; this joins its group */
	rel = table_open(shared->relid, AccessShareLock);
	dpk_shape_init(&shape, rel, shared->d, shared->level, attnums, shared->ncols,
				   bounds, bounds + shared->d);
	if (shared->dhat > 0)
	{
		dpk_shape_set_projection(&shape, shared->dhat, shared->copies, shared->proj_seed,
								 shared->box_metric, shared->norm_bound);
		shape.live.norm_shift = shared->norm_shift;
	}
	shape.lenient = shared->lenient;
	if (shared->clamp)
	{
		dpk_clamp_init(&clamp, shared->d);
		shape.clamp = &clamp;
	}
	dpk_cellmap_init(&map, shared->d);
	scan_share(rel, pscan, shared, &shape, &map, false, &reported);
	scan_send(mqh, &map, shape.clamp, shared->d);
	table_close(rel, AccessShareLock);
}
