/*
 * release_noise.c
 *		A release's Gaussian noise drawn by parallel workers.
 *
 * The noise of an (epsilon, delta) table with many columns is most of its
 * release: every cell of every copy draws its count and d sums at each tree
 * node of t (about 0.3 s a node at d = 384 and 4 096 cells).  Each cell's
 * draws come from its own nonces, so a range of cells gives the same values
 * in any process: the release's worker draws the first cells itself while
 * parallel workers draw the rest into shared memory, and the release adds
 * them to the true values as before (dpk_live_noise_split, live_reach.h).
 * The published values are the serial release's, bit for bit.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/shm_toc.h"

#include "live_reach.h"
#include "release_noise.h"

/* Keys of the shared memory's table of contents. */
#define NOISE_KEY_JOB	UINT64CONST(0xD9C0000000000101)
#define NOISE_KEY_REACH UINT64CONST(0xD9C0000000000102)
#define NOISE_KEY_OUT	UINT64CONST(0xD9C0000000000103)

/*
 * Fewest noise draws (the cells the mask keeps x dpk_live_cell_draws:
 * coordinates x the tree nodes of t, or x 2 t for a family on the square
 * root) a release hands to workers: below, about a tenth of a second,
 * starting them costs more than it saves.
 */
#define DPK_NOISE_SPLIT_MIN_DRAWS 1048576.0

/*
 * Most bytes of noise the workers hand back: the release reads them on top
 * of its own arrays while it draws.  A release of 1 536 columns at 4 096
 * cells hands back 34 MB, its peak memory is later, when it stores its
 * histogram and state, and the shared memory is gone by then
 * (doc/decisions/057-parallel-release-noise.md, 070-highd-release-cost.md).
 */
#define DPK_NOISE_SPLIT_MAX_BYTES (64.0 * 1024 * 1024)

/* What the workers draw. */
typedef struct NoiseJob
{
	DpkLiveConfig cfg;
	uint8_t		key[DPK_KEY_BYTES];
	uint32_t	t;
	bool		sums;
	bool		has_reach;
	uint64_t	total;			/* cells of every copy */
	uint64_t	split;			/* the workers draw cells split .. total - 1 */
	int			ranges;			/* in this many equal ranges, one a worker */
} NoiseJob;

/* A split in progress. */
typedef struct NoiseSplit
{
	ParallelContext *pcxt;
	NoiseJob   *job;
	const uint8_t *reach;
	int64_t    *out;
	bool		finished;
} NoiseSplit;

/* Workers a release may use (see release_noise.h). */
int			dpk_release_noise_workers = 0;

PGDLLEXPORT void dpk_noise_worker_main(dsm_segment *seg, shm_toc *toc);

/* Coordinates a cell's noise carries: the count, then the sums if drawn. */
static int
job_width(const NoiseJob *job)
{
	return 1 + (job->sums ? job->cfg.d : 0);
}

/* Cells of range r of a job: [*c0, *c1). */
static void
job_range(const NoiseJob *job, int r, uint64_t *c0, uint64_t *c1)
{
	uint64_t	n = job->total - job->split,
				per = (n + job->ranges - 1) / job->ranges;

	*c0 = Min(job->split + (uint64_t) r * per, job->total);
	*c1 = Min(*c0 + per, job->total);
}

/* Draw range r of a job into the shared output. */
static void
draw_range(const NoiseJob *job, const uint8_t *reach, int64_t *out, int r)
{
	uint64_t	c0,
				c1;

	job_range(job, r, &c0, &c1);
	if (c1 > c0)
		dpk_live_projected_noise_range(&job->cfg, reach, job->key, job->t, job->sums, c0, c1,
									   out + (c0 - job->split) * job_width(job));
}

/*
 * Start the workers (DpkNoiseSplit.begin): NULL, nothing split, for a pure
 * table, a release of few draws, noise too large to hand back, outside a
 * transaction or where no worker may start; else the workers draw the
 * cells from *split on, the release's worker the first 1 / (workers + 1).
 */
static void *
split_begin(const DpkLiveConfig *cfg, const uint8_t *reach, const uint8_t key[DPK_KEY_BYTES],
			uint32_t t, bool sums, uint64_t total, uint64_t *split)
{
	int			width = 1 + (sums ? cfg->d : 0),
				workers = dpk_release_noise_workers;
	double		cells = (double) total,
				draws;
	uint64_t	first,
				c;
	NoiseSplit *ns;
	NoiseJob   *job;
	Size		out_bytes;

	/* a masked cell draws nothing */
	if (reach)
		for (c = 0, cells = 0.0; c < total; c++)
			cells += reach[c] != 0;
	draws = cells * dpk_live_cell_draws(cfg, t, sums);
	if (cfg->delta <= 0.0 || workers <= 0 || draws < DPK_NOISE_SPLIT_MIN_DRAWS ||
		!IsTransactionState() || IsInParallelMode() || total < 2)
		return NULL;
	first = total / (uint64_t) (workers + 1);
	out_bytes = (Size) (total - first) * width * sizeof(int64_t);
	if ((double) out_bytes > DPK_NOISE_SPLIT_MAX_BYTES)
		return NULL;

	ns = palloc0(sizeof(NoiseSplit));
	EnterParallelMode();
	ns->pcxt = CreateParallelContext("dpkmeans", "dpk_noise_worker_main", workers);
	shm_toc_estimate_chunk(&ns->pcxt->estimator, sizeof(NoiseJob));
	if (reach)
		shm_toc_estimate_chunk(&ns->pcxt->estimator, total);
	shm_toc_estimate_chunk(&ns->pcxt->estimator, out_bytes);
	shm_toc_estimate_keys(&ns->pcxt->estimator, 3);
	InitializeParallelDSM(ns->pcxt);
	if (ns->pcxt->seg == NULL)
	{
		/* no dynamic shared memory left: drawn here */
		DestroyParallelContext(ns->pcxt);
		ExitParallelMode();
		pfree(ns);
		return NULL;
	}

	job = shm_toc_allocate(ns->pcxt->toc, sizeof(NoiseJob));
	job->cfg = *cfg;
	memcpy(job->key, key, DPK_KEY_BYTES);
	job->t = t;
	job->sums = sums;
	job->has_reach = reach != NULL;
	job->total = total;
	job->split = first;
	job->ranges = workers;
	shm_toc_insert(ns->pcxt->toc, NOISE_KEY_JOB, job);
	if (reach)
	{
		uint8_t    *r = shm_toc_allocate(ns->pcxt->toc, total);

		memcpy(r, reach, total);
		shm_toc_insert(ns->pcxt->toc, NOISE_KEY_REACH, r);
		ns->reach = r;
	}
	ns->out = shm_toc_allocate(ns->pcxt->toc, out_bytes);
	shm_toc_insert(ns->pcxt->toc, NOISE_KEY_OUT, ns->out);
	ns->job = job;

	LaunchParallelWorkers(ns->pcxt);
	ereport(DEBUG1,
			(errmsg_internal("dpkmeans: noise of cells %llu to %llu of %llu drawn by %d parallel workers",
							 (unsigned long long) first, (unsigned long long) total - 1,
							 (unsigned long long) total, ns->pcxt->nworkers_launched)));
	*split = first;
	return ns;
}

/*
 * Wait for the workers (DpkNoiseSplit.finish); the ranges of workers that
 * did not start are drawn here.  Their errors are raised here.
 */
static const int64_t *
split_finish(void *handle)
{
	NoiseSplit *ns = handle;
	int			r;

	if (!ns->finished)
	{
		for (r = ns->pcxt->nworkers_launched; r < ns->job->ranges; r++)
			draw_range(ns->job, ns->reach, ns->out, r);
		WaitForParallelWorkersToFinish(ns->pcxt);
		ns->finished = true;
	}
	return ns->out;
}

/* Wipe the key and noise, end the workers (DpkNoiseSplit.end). */
static void
split_end(void *handle)
{
	NoiseSplit *ns = handle;

	(void) split_finish(ns);
	memset(ns->job->key, 0, DPK_KEY_BYTES);
	DestroyParallelContext(ns->pcxt);
	ExitParallelMode();
	pfree(ns);
}

const DpkNoiseSplit dpk_release_noise_split = {split_begin, split_finish, split_end};

/* A worker: its range of the job's cells drawn into the shared output. */
void
dpk_noise_worker_main(dsm_segment *seg, shm_toc *toc)
{
	NoiseJob   *job = shm_toc_lookup(toc, NOISE_KEY_JOB, false);
	const uint8_t *reach = job->has_reach ? shm_toc_lookup(toc, NOISE_KEY_REACH, false) : NULL;
	int64_t    *out = shm_toc_lookup(toc, NOISE_KEY_OUT, false);

	(void) seg;
	draw_range(job, reach, out, ParallelWorkerNumber);
}
