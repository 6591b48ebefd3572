/*
 * release.c
 *		dp_release: make the next release of a live table, committed and
 *		durable before anyone can read it.
 *
 * Node noise is a function of the table's key and the tree node, so the same
 * release number made twice on different data would publish the exact
 * difference of the two states.  Hence one release number, one data state:
 *  - only dp_release draws noise (readers never do);
 *  - the release is computed and committed by a background worker in its
 *    own transaction, with a synchronous local commit, so no caller's
 *    transaction, savepoint or failing statement can undo it after anyone
 *    (the caller included) has read it, and it never sees the caller's
 *    uncommitted writes;
 *  - a release is refused on a server that is not the table's home (a
 *    restored copy, a point-in-time recovery or a promoted replica) until
 *    the owner runs dp_confirm_history, and under a noise sampler that
 *    would draw an old node's noise differently.
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "live_core.h"
#include "live_reach.h"
#include "coreset.h"
#include "capture.h"
#include "shard.h"
#include "store.h"
#include "dpk_mem.h"
#include "live_regions.h"
#include "release_noise.h"
#include "wal_capture.h"

PGDLLEXPORT void dpk_release_worker_main(Datum arg);

/* Outcome of a release worker, in the dynamic shared memory it shares. */
typedef enum DpkJobStatus
{
	DPK_JOB_PENDING = 0,		/* the worker has not finished */
	DPK_JOB_MADE,				/* release t committed */
	DPK_JOB_AT_HORIZON,			/* nothing made: t is the last release */
	DPK_JOB_FAILED				/* an error; nothing was committed */
} DpkJobStatus;

#define DPK_JOB_TEXT 1024

/* What the caller asks of the worker and what it answers. */
typedef struct DpkReleaseJob
{
	Oid			dbid;
	Oid			userid;			/* the caller, checked as the table's owner */
	Oid			relid;
	DpkJobStatus status;
	int			t;
	int			horizon;
	int			noise_workers;	/* the caller's max_parallel_workers_per_gather */
	int			sqlerrcode;
	char		message[DPK_JOB_TEXT];
	char		detail[DPK_JOB_TEXT];
	char		hint[DPK_JOB_TEXT];
} DpkReleaseJob;

/* ERROR unless the table's stored home is this server (see store.h). */
static void
check_home(DpkTracked *tr)
{
	DpkHome		here;

	dpk_home_current(&here);
	if (!tr->home.known)
	{
		/* attached by version 0.1: this server becomes its home */
		dpk_store_set_home(tr->relid, &here);
		return;
	}
	if (!dpk_home_equal(&tr->home, &here))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has its release history on another server or database",
						get_rel_name(tr->relid)),
				 errdetail("It was attached on system " UINT64_FORMAT ", timeline %d, database %u; "
						   "this is system " UINT64_FORMAT ", timeline %d, database %u "
						   "(a restored dump, a point-in-time recovery or a promoted replica).",
						   tr->home.system_id, tr->home.timeline, tr->home.dbid,
						   here.system_id, here.timeline, here.dbid),
				 errhint("If this copy alone goes on releasing and the other never releases again, "
						 "run dp_confirm_history('%s'); otherwise dp_detach and dp_attach it "
						 "for a new key and a new history.", get_rel_name(tr->relid))));
}

/* ERROR unless this library draws the same noise the table's releases used. */
static void
check_formats(const DpkTracked *tr, const DpkLiveConfig *cfg)
{
	if (!dpk_live_sampler_compatible(cfg, tr->sampler_version))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" was attached under noise sampler version %d, "
						"which this library (version %d) would draw differently",
						get_rel_name(tr->relid), tr->sampler_version, DPK_SAMPLER_VERSION),
				 errdetail("Re-drawing the noise of tree nodes that earlier releases used "
						   "would let the two draws be averaged."),
				 errhint("Detach and re-attach the table to start a new history under this version.")));
	if (tr->state_format > DPK_STATE_FORMAT_REGIONS)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has state format %d; this library reads up to %d",
						get_rel_name(tr->relid), tr->state_format, DPK_STATE_FORMAT_REGIONS),
				 errhint("Install the dpkmeans library that attached it.")));
}

/*
 * Whether a table lifts by regions, its region state in *state (read after
 * the lock on its configuration row: a release or attach committed while
 * this one waited is seen), and the state format its release stores in
 * tr.  ERROR when the format marks it as lifting by regions and no region
 * state is stored: a cell release would publish its lifting sums again.
 * Tables attached by 0.6 before format 3 get the mark at their next release.
 */
static bool
read_regions(DpkTracked *tr, const DpkLiveConfig *cfg, MemoryContext ctx, bytea **state)
{
	bool		regions = cfg->dhat > 0 && dpk_store_regions_read(tr->relid, true, ctx, state);

	if (tr->state_format == DPK_STATE_FORMAT_REGIONS && !regions)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("dpkmeans state is corrupt"),
				 errdetail("Table \"%s\" lifts by regions, but its region state is missing.",
						   get_rel_name(tr->relid)),
				 errhint("Run dp_detach and dp_attach for a new key and a new history.")));
	tr->state_format = regions ? DPK_STATE_FORMAT_REGIONS : DPK_STATE_FORMAT;
	return regions;
}

/*
 * The entries the region state's copy of the released cells is padded to
 * (dpk_regions_serialize).  A table without shards pads by its rows, which
 * its own statistics show, as its stored state is.  A table with shards
 * releases their rows too, which no statistics on this server show: it pads
 * to every cell of the projected grid, a public bound that the copy (copy
 * 0's cells) never exceeds, so the stored size is the same whatever the
 * shards hold.
 */
static uint64
regions_prev_pad(const DpkLiveConfig *cfg, const DpkCellMap *released, bool sharded)
{
	return sharded ? dpk_live_copy_cells(cfg) : dpk_pad_cells(cfg, dpk_state_rows(cfg, released));
}

/*
 * The release of a table lifting by regions (src/core/live/live_regions.c): its
 * centres, cost curve and the histogram's cell sums from the noisy cell
 * counts and the region sums, the region state stored for the next release
 * (sharded: `released` holds the shards' rows too).  The summed tree nodes
 * must hold exactly the rows of the released state.
 */
static void
release_regions(const DpkTracked *tr, const DpkLiveConfig *cfg, const DpkBox *box,
				const uint8 *key, uint32 t, const DpkCellMap *released, bool sharded,
				bytea *region_state, const double *pcount, double psumnorm, uint64 seed,
				DpkLiveRelease *rel, double *psum)
{
	uint64		ncells = dpk_live_copy_cells(cfg);
	double	   *count = palloc_extended(ncells * sizeof(double), MCXT_ALLOC_HUGE);
	DpkRegions	rs;
	DpkProjection proj;
	double		cells;
	int64		rows,
				table_rows = 0;
	size_t		pos = 0,
				len;
	uint64		cell;
	const int64_t *v;
	uint8	   *bytes;

	dpk_store_regions_parse(tr->relid, cfg, region_state, &rs);
	/* the histogram keeps every cell's noisy count: zero the copy */
	memcpy(count, pcount, ncells * sizeof(double));
	dpk_live_projection(cfg, 0, &proj);
	cells = dpk_live_zero_unreachable(cfg, box, &proj, count, psum);
	dpk_regions_release(&rs, &(DpkRegionsTable) {cfg, box, &proj, key},
						&(DpkRegionsInput) {t, released, count, cells, psumnorm, seed},
						&(DpkRegionsOut) {rel, psum, &rows});
	dpk_projection_free(&proj);
	while (dpk_cellmap_next(released, &pos, &cell, &v))
		if (cell < ncells)
			table_rows += v[0];
	if (rows != table_rows)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("dpkmeans state is corrupt"),
				 errdetail("The region state of \"%s\" does not hold the rows of its cells.",
						   get_rel_name(tr->relid)),
				 errhint("Run dp_detach and dp_attach on the table.")));
	bytes = dpk_regions_serialize(&rs, regions_prev_pad(cfg, released, sharded), &len);
	dpk_store_regions_write(tr->relid, bytes, len);
	dpk_regions_free(&rs);
	pfree(count);
}

/*
 * Make release t+1 of a table (inside dpk_store_begin): lock its
 * configuration row, fold the pending deltas into the true state, add the
 * tree noise of release t+1 to every cell, cluster for every k' (k-median
 * too when the table asks for it) and store the snapshot.  At the horizon
 * nothing is made and *at_horizon is set.
 * A table with shards noises its local state merged with every shard's,
 * gathered for role userid (src/shard/shard.c), and stores its local state only.
 * Returns the number of the latest release.
 */
static int
make_release(Oid relid, Oid userid, int *horizon, bool *at_horizon)
{
	MemoryContext ctx = AllocSetContextCreate(CurrentMemoryContext, "dpkmeans release",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(ctx);
	DpkTracked	tr;
	DpkLiveConfig cfg;
	DpkBox		box;
	DpkDenseHist noisy;
	DpkLiveRelease rel;
	DpkStream  *stream;
	DpkCellMap *released;
	uint8		key[DPK_KEY_BYTES];
	uint8		nonce[DPK_NONCE_BYTES] = {0};
	uint32		t;
	uint64		i;
	bytea	   *region_state = NULL,
			   *histogram;
	bool		regions,
				kmedian,
				state_changed;

	if (!dpk_store_read_tracked(relid, true, ctx, &tr))
		dpk_store_not_attached(relid);
	dpk_shard_refuse_release(relid);
	*horizon = tr.horizon;
	*at_horizon = tr.releases >= tr.horizon;
	if (*at_horizon)
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(ctx);
		return tr.releases;
	}
	dpk_tracked_config(&tr, &cfg);
	check_formats(&tr, &cfg);
	check_home(&tr);
	t = (uint32) tr.releases + 1;

	/* a table captured from the WAL: its changes committed so far first */
	(void) dpk_wal_sync(&tr, NULL);
	state_changed = dpk_store_fold_deltas(relid, &tr.state) > 0;
	released = dpk_shard_merged_state(&tr, userid);
	dpk_store_read_key(relid, key);

	box.d = tr.d;
	box.lower = tr.lower;
	box.upper = tr.upper;
	stream = palloc0(sizeof(DpkStream));
	dpk_pg_stream_open(stream, key, nonce);
	regions = read_regions(&tr, &cfg, ctx, &region_state);
	kmedian = dpk_store_kmedian_wanted(relid);
	if (cfg.dhat > 0)
	{
		/* Projected copies: noisy counts and lifting sums of every copy. */
		uint64		total = (uint64) cfg.copies * dpk_live_copy_cells(&cfg);
		double	   *pcount = palloc_extended(total * sizeof(double), MCXT_ALLOC_HUGE);
		double	   *psum = palloc_extended(total * tr.d * sizeof(double), MCXT_ALLOC_HUGE);
		double		psumnorm;
		uint64		seed;

		/* lifting by regions: the cells' counts alone (no per-cell sums) */
		dpk_live_noisy_projected_box(&cfg, &box, key, released, t, stream, pcount,
									 regions ? NULL : psum, &psumnorm);
		seed = dpk_stream_u64(stream);
		if (regions)
		{
			/*
			 * psum gets each cell's count times its centre's noisy mean
			 * (post-processing) for the histogram and k-median.
			 */
			/* a merged state (not the table's own) holds shards' rows */
			release_regions(&tr, &cfg, &box, key, t, released, released != &tr.state,
							region_state, pcount, psumnorm, seed, &rel, psum);
			explicit_bzero(key, sizeof(key));
		}
		else
		{
			explicit_bzero(key, sizeof(key));
			/* no copy of psum: scaled in place and given back exactly */
			dpk_live_cluster_projected_inplace(&cfg, &box, pcount, psum, psumnorm, t, seed,
											   &rel);
		}
		/* k-median of the same lifted cells when asked: post-processing */
		if (kmedian)
			dpk_live_kmedian_projected(&cfg, &box, pcount, psum, psumnorm, t, seed, &rel);
		/* the stored histogram straight from the noisy arrays, then them freed */
		histogram = dpk_store_histogram_dense(&(DpkDenseCells) {tr.d, total, pcount, psum});
		pfree(psum);
		pfree(pcount);
	}
	else
	{
		DpkCellMap	noisy_map;
		uint64		seed;

		dpk_live_noisy_histogram(&cfg, key, released, t, stream, &noisy);
		explicit_bzero(key, sizeof(key));
		seed = dpk_stream_u64(stream);
		dpk_live_cluster(&cfg, &box, &noisy, t, seed, &rel);
		/* k-median of the same noisy histogram when asked: post-processing */
		if (kmedian)
			dpk_live_kmedian(&cfg, &box, &noisy, t, seed, &rel);
		dpk_cellmap_init(&noisy_map, tr.d);
		for (i = 0; i < noisy.ncells; i++)
		{
			int64_t    *v = dpk_cellmap_get(&noisy_map, i);
			int			j;

			v[0] = noisy.count[i];
			if (noisy.sum)
				for (j = 0; j < tr.d; j++)
					v[1 + j] = noisy.sum[i * tr.d + j];
		}
		histogram = dpk_store_histogram_bytea(&noisy_map);
		dpk_cellmap_free(&noisy_map);
	}

	dpk_store_save_release(&tr, t, dpk_pad_cells(&cfg, dpk_state_rows(&cfg, &tr.state)),
						   state_changed, &rel, histogram);
	/* the history has spent its budget from its first release on (ledger.h) */
	dpk_store_ledger_release(&tr, (int) t);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(ctx);
	return (int) t;
}

/*
 * The job whose transaction is committing, and the status it gets once the
 * commit is done.  The commit's record is flushed before a synchronous
 * replication wait; a worker terminated there leaves the wait with its
 * release made and exits at its next interrupt check, possibly before the
 * code after the commit runs.  This callback runs inside the commit, after
 * the wait, so the caller learns the release exists either way.
 */
static DpkReleaseJob *committing_job = NULL;
static DpkJobStatus committing_status;

/* XactCallback of the release worker: the release is committed. */
static void
release_committed(XactEvent event, void *arg)
{
	(void) arg;
	if (event == XACT_EVENT_COMMIT && committing_job != NULL)
		committing_job->status = committing_status;
}

/* Copy an error's text into a job field (truncated, always terminated). */
static void
job_text(char *dst, const char *src)
{
	strlcpy(dst, src ? src : "", DPK_JOB_TEXT);
}

/*
 * The release worker: connects to the caller's database, checks that the
 * caller owns the table, makes the release in its own transaction and
 * commits it with at least a local synchronous commit.  Its answer (or its
 * error) goes back through the job's shared memory.
 */
void
dpk_release_worker_main(Datum arg)
{
	dsm_segment *seg;
	DpkReleaseJob *job;
	MemoryContext workctx;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	CurrentResourceOwner = ResourceOwnerCreate(NULL, "dpkmeans release worker");
	seg = dsm_attach(DatumGetUInt32(arg));
	if (seg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpkmeans release worker could not reach its caller")));
	job = (DpkReleaseJob *) dsm_segment_address(seg);
	/* Connect as the bootstrap superuser: the caller's role may not log in. */
	BackgroundWorkerInitializeConnectionByOid(job->dbid, InvalidOid, 0);
	workctx = AllocSetContextCreate(TopMemoryContext, "dpkmeans release worker",
									ALLOCSET_DEFAULT_SIZES);
	/* an (epsilon, delta) table's noise may be drawn by parallel workers too */
	dpk_release_noise_workers = job->noise_workers;
	dpk_live_noise_split = &dpk_release_noise_split;

	PG_TRY();
	{
		DpkOwnerSwitch sw;
		bool		at_horizon;

		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		pgstat_report_activity(STATE_RUNNING, "dpkmeans release");
		if (synchronous_commit < SYNCHRONOUS_COMMIT_LOCAL_FLUSH)
			SetConfigOption("synchronous_commit", "local", PGC_SUSET, PGC_S_OVERRIDE);
		if (get_rel_name(job->relid) == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("table with OID %u does not exist", job->relid)));
		if (!pg_class_ownercheck(job->relid, job->userid))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("must be owner of table %s to make a release",
							get_rel_name(job->relid))));
		dpk_store_begin(&sw);
		job->t = make_release(job->relid, job->userid, &job->horizon, &at_horizon);
		dpk_store_end(&sw);
		PopActiveSnapshot();
		committing_status = at_horizon ? DPK_JOB_AT_HORIZON : DPK_JOB_MADE;
		committing_job = job;
		RegisterXactCallback(release_committed, NULL);
		CommitTransactionCommand();
		committing_job = NULL;
		pgstat_report_activity(STATE_IDLE, NULL);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(workctx);
		edata = CopyErrorData();
		job->sqlerrcode = edata->sqlerrcode;
		job_text(job->message, edata->message);
		job_text(job->detail, edata->detail);
		job_text(job->hint, edata->hint);
		job->status = DPK_JOB_FAILED;
		PG_RE_THROW();
	}
	PG_END_TRY();
	dsm_detach(seg);
	proc_exit(0);
}

/*
 * ERROR unless dp_release may run here: not inside a transaction block or a
 * subtransaction, with nothing written yet by the calling transaction (so it
 * holds no row lock the worker could wait for), and not on a standby.
 */
static void
check_release_context(void)
{
	if (IsTransactionBlock() || IsSubTransaction())
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("dp_release cannot run inside a transaction block"),
				 errdetail("A release is committed on its own, before dp_release returns, "
						   "so that no rollback can undo a release someone has read."),
				 errhint("Call SELECT dp_release(...) on its own, in autocommit mode.")));
	if (TransactionIdIsValid(GetTopTransactionIdIfAny()))
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("dp_release cannot run in a statement that also writes"),
				 errhint("Call SELECT dp_release(...) in a statement of its own.")));
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("dp_release cannot run during recovery"),
				 errhint("Make releases on the primary.")));
}

/*
 * WARNING once release t uses 90 % of the horizon or more: past the horizon
 * dp_release fails, and an owner whose releases run on a schedule should
 * know before.
 */
static void
warn_near_horizon(const char *relname, int t, int horizon)
{
	if ((int64) t * 10 < (int64) horizon * 9)
		return;
	if (t >= horizon)
		ereport(WARNING,
				(errmsg("table \"%s\" made release %d, the last of its horizon", relname, t),
				 errdetail("A further dp_release fails; readers keep getting release %d.", t),
				 errhint("Unschedule its releases. dp_detach and dp_attach start a new history, whose epsilon the table's privacy ledger adds to what its rows have spent.")));
	else
		ereport(WARNING,
				(errmsg("table \"%s\" made release %d of its horizon of %d; %d left",
						relname, t, horizon, horizon - t),
				 errdetail("Past the horizon dp_release fails and readers keep getting release %d.",
						   horizon)));
}

/* dp_release(tbl): the owner makes a new snapshot; returns its number. */
PG_FUNCTION_INFO_V1(dp_release);
Datum
dp_release(PG_FUNCTION_ARGS)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);
	dsm_segment *seg;
	DpkReleaseJob *job;
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	BgwHandleStatus status;
	int			t;
	MemoryContext caller = CurrentMemoryContext;
	char	   *relname;

	dpk_pg_check_table_owner(relid, "make a release");
	relname = get_rel_name(relid);
	check_release_context();

	seg = dsm_create(sizeof(DpkReleaseJob), 0);
	job = (DpkReleaseJob *) dsm_segment_address(seg);
	memset(job, 0, sizeof(*job));
	job->dbid = MyDatabaseId;
	job->userid = GetUserId();
	job->noise_workers = max_parallel_workers_per_gather;
	job->relid = relid;
	job->status = DPK_JOB_PENDING;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "dpkmeans");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "dpk_release_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "dpkmeans release of table %u", relid);
	snprintf(worker.bgw_type, BGW_MAXLEN, "dpkmeans release");
	worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	worker.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start a dpkmeans release worker"),
				 errhint("Raise max_worker_processes, or retry when fewer background workers run.")));

	/*
	 * A cancelled caller stops the worker and waits for it to exit: an
	 * unfinished release is not made, and one that was committing may be
	 * (doc/privacy.md).  The cancel's error then says which.
	 */
	PG_TRY();
	{
		status = WaitForBackgroundWorkerShutdown(handle);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(caller);
		edata = CopyErrorData();
		FlushErrorState();
		HOLD_INTERRUPTS();
		TerminateBackgroundWorker(handle);
		(void) WaitForBackgroundWorkerShutdown(handle);
		RESUME_INTERRUPTS();
		if (job->status == DPK_JOB_MADE && edata->detail == NULL)
			edata->detail = psprintf("Release %d of table \"%s\" was made: its worker had committed it when the statement was cancelled.",
									 job->t, relname);
		ReThrowError(edata);
	}
	PG_END_TRY();
	if (status == BGWH_POSTMASTER_DIED)
		ereport(FATAL,
				(errcode(ERRCODE_ADMIN_SHUTDOWN),
				 errmsg("postmaster exited during a dpkmeans release")));

	switch (job->status)
	{
		case DPK_JOB_MADE:
			warn_near_horizon(relname, job->t, job->horizon);
			break;
		case DPK_JOB_AT_HORIZON:
			/* an ERROR, so that a scheduler shows the job failed */
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("table \"%s\" reached its horizon of %d releases; no new release is made",
							relname, job->horizon),
					 errdetail("Readers keep getting release %d.", job->t),
					 errhint("Unschedule its releases. dp_detach and dp_attach start a new history, whose epsilon the table's privacy ledger adds to what its rows have spent.")));
			break;
		case DPK_JOB_FAILED:
			ereport(ERROR,
					(errcode(job->sqlerrcode),
					 errmsg("%s", job->message),
					 job->detail[0] ? errdetail("%s", job->detail) : 0,
					 job->hint[0] ? errhint("%s", job->hint) : 0));
			break;
		case DPK_JOB_PENDING:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("the dpkmeans release worker stopped before finishing"),
					 errdetail("No release was made."),
					 errhint("See the server log.")));
			break;
	}
	t = job->t;
	dsm_detach(seg);
	PG_RETURN_INT32(t);
}
