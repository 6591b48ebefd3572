/*
 * pgutil.h
 *		PostgreSQL glue shared by the SQL-callable functions: argument checks,
 *		point extraction from tuples, and the backend's random stream.
 */
#ifndef DPK_PGUTIL_H
#define DPK_PGUTIL_H

#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "fmgr.h"
#include "executor/tuptable.h"
#include "utils/array.h"

#include "kmedian.h"
#include "noise.h"

/* Most scalar columns one point may span (arrays have no such limit). */
#define DPK_MAX_TRACKED_COLUMNS 1024

/* GUCs (dpkmeans.*) */
extern double dpk_max_cells;
/* dpkmeans.progress_rows: a backfill's NOTICE every this many rows (0: none). */
extern int	dpk_progress_rows;

/* dpkmeans.counter_estimator: a DpkTreeEstimator (see tree_estimator.h). */
extern int	dpk_counter_estimator;

/* dpkmeans.gaussian_counter: the counter dp_attach gives a Gaussian table. */
typedef enum DpkGaussianCounterChoice
{
	DPK_GAUSSIAN_COUNTER_AUTO = 0,
	DPK_GAUSSIAN_COUNTER_TREE,
	DPK_GAUSSIAN_COUNTER_SQRT
} DpkGaussianCounterChoice;
extern int	dpk_gaussian_counter;

/* dpkmeans.pure_counter: the counter dp_attach gives a pure low-d table. */
typedef enum DpkPureCounterChoice
{
	DPK_PURE_COUNTER_AUTO = 0,
	DPK_PURE_COUNTER_TREE,
	DPK_PURE_COUNTER_SHARE
} DpkPureCounterChoice;
extern int	dpk_pure_counter;

/*
 * glibc's malloc in a backend that ran a one-shot: chunks from this size
 * are mapped apart (the one-shot's work_mem buffer of 4 MB stays below),
 * and a free heap top is returned to the kernel from this size
 * (doc/decisions/079-oneshot-keep-freed-memory.md).
 */
#define DPK_PG_MMAP_THRESHOLD (8 * 1024 * 1024)
#define DPK_PG_TRIM_THRESHOLD (32 * 1024 * 1024)

/* Point the core's allocation and interrupt hooks at the backend. */
void		dpk_pg_install_hooks(void);

/* Keep freed memory in this backend from now on (glibc; once per backend). */
void		dpk_pg_keep_freed_memory(void);

/* ERROR unless epsilon is finite and > 0 (argname names it in the message). */
void		dpk_pg_check_epsilon(double epsilon, const char *argname);

/*
 * The delta argument number argno: 0 when the SQL signature has none (an
 * older definition); NULL, NaN, negative or >= 1 ERROR (22023).
 */
double		dpk_pg_delta_arg(FunctionCallInfo fcinfo, int argno);
/* The same checks of a delta given as a value: returns it, or ERROR. */
double		dpk_pg_check_delta(double delta);

/*
 * The norm_bound argument number argno (0.4): 0 (no bound) when NULL or
 * when the SQL signature has none; else a finite radius > 0 for at least
 * DPK_HIGHD_MIN_D columns (projected: only their lifting sums gain from
 * it), or ERROR (22023, or 0A000 below that many columns).
 */
double		dpk_pg_norm_bound_arg(FunctionCallInfo fcinfo, int argno, int d);
/* The same checks of a radius r given for d columns: returns it, or ERROR. */
double		dpk_pg_check_norm_bound(double r, int d);

/* ERROR unless k >= 1 (and <= kmax when kmax > 0). */
void		dpk_pg_check_k(int k, int kmax);

/*
 * Largest k of dp_attach: every release clusters and stores every k' <= k,
 * k (k + 1) / 2 centres per objective (doc/decisions/027-k-limits.md).  The
 * default of the superuser setting dpkmeans.max_k; DPK_MAX_K_LIVE_CAP is the
 * most it may be raised to.
 */
#define DPK_MAX_K_LIVE 100
#define DPK_MAX_K_LIVE_CAP 1000
extern int	dpk_max_k_live;
/* Largest k of dp_kmeans: one clustering of one coreset. */
#define DPK_MAX_K_ONESHOT 1000

/*
 * Most dimensions (box bounds) any function accepts.  A one-shot's memory
 * grows with d times k and with d times its 4 096-point projection chunk
 * (550 MB measured at d = 16 384, k = 1 000; 32 GB asked for at d = 10^6),
 * and dp_kmeans is callable by every role.
 */
#define DPK_MAX_D 16384

/* ERROR unless k <= kmax, the documented largest k of `function`. */
void		dpk_pg_check_k_max(int k, int kmax, const char *function, bool live);

/*
 * The objective argument `argno` of a function: 'kmeans' or 'kmedian';
 * NULL or any other value is refused (22023) with a hint naming both.
 * k-means when the call has no such argument (SQL objects of version 0.2).
 */
DpkObjective dpk_pg_objective_arg(FunctionCallInfo fcinfo, int argno);

/*
 * Validate the box arrays (non-NULL, one-dimensional, same length, at most
 * DPK_MAX_D, no NULL, finite, lower < upper with a finite width) and return their values in
 * palloc'd arrays; the dimension goes to *d.
 */
void		dpk_pg_check_box(ArrayType *lower, ArrayType *upper,
							 double **lo, double **hi, int *d);

/* How a set of columns yields a point. */
typedef enum DpkPointSource
{
	DPK_POINT_COLUMNS,			/* d numeric scalar columns */
	DPK_POINT_FLOAT8_ARRAY,		/* one float8[] column of length d */
	DPK_POINT_FLOAT4_ARRAY,		/* one float4[] column of length d */
	DPK_POINT_POSTGIS			/* one PostGIS geometry/geography point
								 * column: d = 2, X and Y */
} DpkPointSource;

/* A compiled recipe to read points out of tuples of a fixed descriptor. */
typedef struct DpkPointReader
{
	DpkPointSource source;
	int			d;
	int			ncols;
	AttrNumber *attnums;		/* 1-based attribute numbers, ncols of them */
	Oid		   *types;			/* base type of each column */
	int32		srid;			/* DPK_POINT_POSTGIS: the column's SRID */
} DpkPointReader;

/*
 * True if typid (or its base type) is PostGIS's geometry or geography,
 * recognised by name and by the extension that owns it; *geodetic tells
 * which.  False when PostGIS is not installed.
 */
bool		dpk_pg_is_postgis_type(Oid typid, bool *geodetic);

/* True if typid (or its base type) is a numeric scalar we accept. */
bool		dpk_pg_is_numeric_type(Oid typid);

/*
 * Build a reader for attributes attnums[0..ncols-1] of tupdesc, d being the
 * expected dimension; ERROR with a precise errcode when the column types or
 * count cannot give d-dimensional points.  `what` names the source in errors
 * ("query result", "table \"t\"").
 */
void		dpk_pg_point_reader_init(DpkPointReader *r, TupleDesc tupdesc,
									 const AttrNumber *attnums, int ncols,
									 int d, const char *what);

/* What a row holds in the tracked columns. */
typedef enum DpkPointStatus
{
	DPK_POINT_OK,				/* a point (+-Inf allowed: the box clamps it) */
	DPK_POINT_NULL,				/* a NULL value or NULL array: not a point */
	DPK_POINT_NAN,				/* a NaN coordinate */
	DPK_POINT_BAD_ARRAY,		/* wrong length, not 1-D, or NULL elements */
	DPK_POINT_NOT_POINT,		/* a PostGIS value that is not a point */
	DPK_POINT_EMPTY,			/* POINT EMPTY */
	DPK_POINT_SRID,				/* a point in another SRID than the column's */
	DPK_POINT_ZM				/* a point with Z or M */
} DpkPointStatus;

/*
 * Read the point of a row (attribute values fetched by getattr) into x.
 * Never raises on row values: callers decide what a non-point means.
 */
DpkPointStatus dpk_pg_read_point(const DpkPointReader *r, HeapTuple tuple,
								 TupleDesc tupdesc, double *x);

/* The same for a tuple in a slot (transition tables, table scans). */
DpkPointStatus dpk_pg_read_point_slot(const DpkPointReader *r,
									  TupleTableSlot *slot, double *x);

/*
 * Open a stream whose libcrypto context is freed with the current memory
 * context, so an error mid-computation leaks nothing.
 */
void		dpk_pg_stream_open(DpkStream *s, const uint8 *key, const uint8 *nonce);

/* Fill buf with len bytes from pg_strong_random(), or ERROR. */
void		dpk_pg_strong_random(void *buf, size_t len);


/* Saved identity while working as the extension's owner. */
typedef struct DpkOwnerSwitch
{
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel;
} DpkOwnerSwitch;

/*
 * Act as the extension's owner on its internal schema, with search_path
 * pinned to pg_catalog, pg_temp.  Callers do their permission checks first.
 * An error in between restores the identity with the transaction's abort.
 */
void		dpk_pg_owner_begin(DpkOwnerSwitch *sw);

/* The same when the extension's owner is already known. */
void		dpk_pg_owner_begin_as(DpkOwnerSwitch *sw, Oid owner);

/* The extension's owner and installed version, from one catalog read. */
void		dpk_pg_extension_row(Oid *owner, char **version);

/* Return to the caller's identity and search_path. */
void		dpk_pg_owner_end(DpkOwnerSwitch *sw);

/* The table argument (argument 0) of a SQL function: NULL or a dropped table is refused. */
Oid			dpk_pg_table_arg(FunctionCallInfo fcinfo);

/* The owner of a relation (InvalidOid if it does not exist). */
Oid			dpk_pg_rel_owner(Oid relid);

/* ERROR unless the current user owns the table (owner-only functions). */
void		dpk_pg_check_table_owner(Oid relid, const char *action);

/* ERROR on a standby: function (its SQL name) writes dpkmeans's state. */
void		dpk_pg_refuse_in_recovery(const char *function);

#endif
