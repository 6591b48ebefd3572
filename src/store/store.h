/*
 * store.h
 *		The internal tables of live tables (schema dpkmeans_internal): the only
 *		code that knows their names, columns and formats.
 *
 * Every function here runs inside dpk_store_begin() / dpk_store_end(): SPI
 * connected, acting as the extension's owner with a pinned search_path.
 * Columns are bound by name, tables are passed as regclass values, never as
 * interpolated text.
 */
#ifndef DPK_STORE_H
#define DPK_STORE_H

#include "postgres.h"

#include "access/xlogdefs.h"
#include "datatype/timestamp.h"
#include "funcapi.h"
#include "nodes/pg_list.h"

#include "live_config.h"
#include "live_regions.h"
#include "counter.h"
#include "ledger.h"
#include "pgutil.h"

/*
 * Versions of the persistent formats written by this library.  Stored per
 * table, so an upgrade that changes one can tell old tables apart.
 *	state/deltas: 1 = cell map "DPKCELL1", 2 = padded "DPKCELL2" (both read);
 *	3 = format 2 in a table lifting by regions, whose row in
 *	dpkmeans_internal.regions must exist (a library reading up to 2 refuses
 *	its releases: cell releases of it would publish the lifting sums twice)
 *	trigger arguments: 1 = attribute numbers, 2 = column names, 3 = column
 *	names and, for projected tables, points in metric positions (the box's
 *	own geometry, dpk_box_to_metric); all read.  4 = the triggers of 3, and
 *	a projected pure table's lifting sums get per-coordinate noise at the
 *	box's l1 bound when that is the lower variance (dpk_live_use_sum_l1,
 *	decided again at every release from the box).  5 = the triggers of 4,
 *	and a low-d table's in-cell sums get their noise centred in the cell, at
 *	half the sensitivity (DpkLiveConfig.centred_offsets, grid.h's
 *	DPK_REL_CENTRE)
 */
#define DPK_STATE_FORMAT 2
#define DPK_STATE_FORMAT_REGIONS 3
#define DPK_TRIGGER_FORMAT 5
/* What a table attached under a schema before 0.9 (no tracked.counter) gets. */
#define DPK_TRIGGER_FORMAT_PRE_09 4

/*
 * Where a table's release history lives: the cluster (system identifier),
 * its WAL timeline and the database.  A release refuses to run elsewhere, so
 * a restored dump, a point-in-time recovery or a promoted replica can't make
 * a second history with the same key until the owner says which copy goes on.
 */
typedef struct DpkHome
{
	bool		known;			/* false for tables attached by version 0.1 */
	uint64		system_id;
	int32		timeline;
	Oid			dbid;
} DpkHome;

/* The configuration and true state of an attached table. */
typedef struct DpkTracked
{
	Oid			relid;
	int			d;
	int			k;
	double		epsilon;
	double	   *lower;
	double	   *upper;
	int			horizon;
	bool		insert_only;
	double		size_hint;
	int			level;
	double		sum_share;
	int			dhat;
	int			copies;
	uint64		proj_seed;
	double		norm_share;
	int			releases;
	int			ncols;
	char	  **colnames;		/* tracked columns, by name */
	char	   *columns;		/* the same, comma-separated (reports) */
	int			sampler_version;
	int			state_format;
	int			trigger_format; /* DPK_TRIGGER_FORMAT when attached */
	double		delta;			/* 0: pure epsilon; > 0: discrete Gaussian
								 * (column of 0.3; 0 for older objects) */
	int			tree_arity;		/* arity of the counters' tree (column of
								 * 0.3; 2, the binary tree, for every table
								 * attached before it and older objects) */
	double		norm_bound;		/* > 0: rows moved into the ball of this
								 * radius around the box's middle before they
								 * are counted (column of 0.4; 0, no bound) */
	int			counter;		/* DpkLiveCounter of a Gaussian table (column
								 * of 0.9; the tree for every table before) */
	bool		capture_wal;	/* changes counted from the WAL
								 * (src/capture/wal_capture.c), not by triggers */
	DpkHome		home;
	DpkCellMap	state;
	size_t		state_len;		/* bytes of the stored state state was read
								 * from (0: not read) */
} DpkTracked;

/*
 * A table whose changes are counted from the WAL by logical decoding
 * (dpkmeans_internal.wal_capture, version 0.3): its slot, the WAL position
 * up to which every committed transaction is counted (stored in the same
 * transaction as the counts), and the replica identity it had before.
 */
typedef struct DpkWalCapture
{
	char		slot[NAMEDATALEN];
	XLogRecPtr	lsn;
	char		prev_identity;	/* pg_class.relreplident before dp_attach */
	Oid			prev_index;		/* its index when it was 'i' */
	bool		lsn_committed;	/* lsn was not set by the current transaction
								 * (read only by dpk_store_wal_read) */
} DpkWalCapture;

/* src/store/store_wal.c: whether wal_capture exists (0.3 objects). */
bool		dpk_store_has_wal(void);

/* A table's WAL capture; false when its changes are counted by triggers. */
bool		dpk_store_wal_read(Oid relid, DpkWalCapture *wc);

/* Record a new table's WAL capture. */
void		dpk_store_wal_insert(Oid relid, const DpkWalCapture *wc);

/* Store the WAL position up to which a table's changes are counted. */
void		dpk_store_wal_set_lsn(Oid relid, XLogRecPtr lsn);

/* After a lost slot: the table's new slot and the position counted to. */
void		dpk_store_wal_reset(Oid relid, const char *slot, XLogRecPtr lsn);

/* Forget a table's WAL capture (detach, drop). */
void		dpk_store_wal_delete(Oid relid);

/* The relids (an OID list) of every table captured from the WAL. */
List	   *dpk_store_wal_relids(void);

/* src/store/store_regions.c: whether the regions table exists (0.6 objects). */
bool		dpk_store_has_regions(void);

/*
 * Whether a table lifts by regions (src/core/live/live_regions.c); when state is not
 * NULL, its stored state, copied into ctx.  latest: read under a new
 * snapshot (a release, after locking the table's configuration row, so as
 * of the last committed release or attach), not the statement's.
 */
bool		dpk_store_regions_read(Oid relid, bool latest, MemoryContext ctx, bytea **state);

/*
 * A table's region state bytes (from dpk_store_regions_read) read into rs,
 * to be freed with dpk_regions_free; ERROR (data corrupted) when they
 * cannot be read for cfg.
 */
void		dpk_store_regions_parse(Oid relid, const DpkLiveConfig *cfg, const bytea *state,
									DpkRegions *rs);

/*
 * Store a table's region state (a new row or over its old one); buf, from
 * dpk_alloc (dpk_regions_serialize), is freed.
 */
void		dpk_store_regions_write(Oid relid, uint8 *buf, size_t len);

/* Forget a table's region state, if any (detach). */
void		dpk_store_regions_delete(Oid relid);

/* src/store/store_ledger.c: whether the ledger table exists (0.7 objects). */
bool		dpk_store_has_ledger(void);

/* One history of a table's ledger, with its times (for the report). */
typedef struct DpkLedgerRow
{
	DpkLedgerEntry entry;
	bool		recorded_at_update; /* open at the update to 0.7: earlier
									 * histories are not recorded */
	char	   *attached_at;
	char	   *detached_at;	/* NULL while attached */
} DpkLedgerRow;

/*
 * Open a new history of tr's table (dp_attach): closes any history left
 * open, records tr's epsilon, delta and horizon and whether the owner
 * starts a fresh budget here.  Returns its number.
 */
int			dpk_store_ledger_open(const DpkTracked *tr, bool fresh_budget);

/*
 * Record that the open history of tr's table made release t (a history
 * missing from the ledger is opened from the configuration row).
 */
void		dpk_store_ledger_release(const DpkTracked *tr, int t);

/* Close the open history of a table (dp_detach). */
void		dpk_store_ledger_close(Oid relid);

/* Every history of a table in order, into ctx; returns how many. */
int			dpk_store_ledger_read(Oid relid, MemoryContext ctx, DpkLedgerRow **rows);

/*
 * Every history of a table as rows (history, epsilon, delta, horizon,
 * releases, spent, fresh_budget, attached_at, detached_at,
 * recorded_at_update) into rsinfo.
 */
void		dpk_store_ledger_rows(Oid relid, ReturnSetInfo *rsinfo);

/* Begin / end work on the internal tables (owner switch + SPI). */
void		dpk_store_begin(DpkOwnerSwitch *sw);

/*
 * Run a parameterised internal statement (inside dpk_store_begin), or ERROR
 * naming it; the caller's memory context is kept.
 */
void		dpk_store_exec(const char *sql, int nargs, Oid *types, Datum *values,
						   bool read_only, int expect);
void		dpk_store_end(DpkOwnerSwitch *sw);

/*
 * Whether tracked has the tree_arity column (0.3), from the catalog caches:
 * without it a new table gets the binary tree.
 */
bool		dpk_store_has_tree_arity(void);

/* Whether dpkmeans_internal.tracked has the counter column (0.9). */
bool		dpk_store_has_counter(void);

/* Whether the installed SQL objects are version 0.1's (no readers, no home). */
bool		dpk_store_is_v01(void);

/* ERROR for a table that is not attached. */
void		dpk_store_not_attached(Oid relid) pg_attribute_noreturn();

/*
 * Read a table's configuration and folded state into ctx.  lock: take the
 * row lock that serialises releases of the table.  False if not attached.
 */
bool		dpk_store_read_tracked(Oid relid, bool lock, MemoryContext ctx,
								   DpkTracked *tr);

/*
 * The same without the state (tr->state empty) and without a lock: for
 * readers and DDL guards, whose cost must not depend on the true state.
 */
bool		dpk_store_read_config(Oid relid, MemoryContext ctx, DpkTracked *tr);

/* Whether the table is attached (no lock). */
bool		dpk_store_is_attached(Oid relid);

/* The same in a fresh snapshot: for attach and detach, after their lock. */
bool		dpk_store_is_attached_now(Oid relid);

/*
 * Store a new table's configuration (empty state), its key and its home;
 * key NULL: a shard table, which has none (src/api/shard_side.c).
 */
void		dpk_store_insert_tracked(const DpkTracked *tr, const char *mode,
									 const AttrNumber *attnums,
									 const uint8 *key);

/* The table's secret key (ERROR when missing or malformed). */
void		dpk_store_read_key(Oid relid, uint8 *key);

/*
 * Fold: delete the pending deltas and add them into state, in one
 * statement; returns how many there were.
 */
uint64		dpk_store_fold_deltas(Oid relid, DpkCellMap *state);

/* Delete a table's deltas without reading them (stray ones, before attach). */
void		dpk_store_drop_deltas(Oid relid);

/* Add the pending deltas into state without removing them (verify, TRUNCATE). */
void		dpk_store_add_deltas(Oid relid, DpkCellMap *state);

/* Append one statement's change (serialised, padded to pad_to cells). */
void		dpk_store_append_delta(Oid relid, const DpkCellMap *map, uint64 pad_to);

/*
 * Store release t: its noisy counted level (histogram, from
 * dpk_store_histogram_bytea or _dense; stored first and freed, so that a
 * large one is not held beside the state's), the new true state padded to
 * state_pad cells, the release number, the release row and the centres and
 * costs for every k'.  The state is written only when state_changed or
 * when its stored form would differ from the one read (tr->state_len): an
 * unchanged state keeps its stored value.
 */
void		dpk_store_save_release(const DpkTracked *tr, uint32 t, uint64 state_pad,
								   bool state_changed, const DpkLiveRelease *rel,
								   bytea *histogram);

/*
 * The stored form of a release's noisy counted level: every cell of it,
 * zeros included (padded), but in the plain form for 0.1's objects.
 */
bytea	   *dpk_store_histogram_bytea(const DpkCellMap *noisy_map);
bytea	   *dpk_store_histogram_dense(const DpkDenseCells *h);

/* Record the current cluster, timeline and database as the table's home. */
void		dpk_store_set_home(Oid relid, const DpkHome *home);

/* Remove every stored row of the table (detach). */
void		dpk_store_delete_table(Oid relid);

/* Whether role `member` has the privileges of a granted reader of relid. */
bool		dpk_store_has_reader_grant(Oid relid, Oid member);

/* Grant (true) or revoke reading to role; returns whether anything changed. */
bool		dpk_store_set_reader(Oid relid, Oid role, bool grant);

/* The granted reader roles of a table, comma-separated ("" when none). */
char	   *dpk_store_reader_names(Oid relid);

/*
 * Rows of release t's centres for k and objective (cluster, center,
 * noisy_size) into rsinfo; ERROR for k-median on a release made before 0.3.
 */
void		dpk_store_centers(Oid relid, int t, int k, DpkObjective obj,
							  ReturnSetInfo *rsinfo);

/* Rows of release t's cost curve (k, noisy_cost) for objective into rsinfo. */
void		dpk_store_costs(Oid relid, int t, DpkObjective obj, ReturnSetInfo *rsinfo);

/*
 * Release t's noisy counted level (into ctx) and the level it used; latest
 * is the table's last release (an earlier one made before 0.7 has none).
 */
void		dpk_store_histogram(Oid relid, int t, int latest, int d, MemoryContext ctx,
								DpkCellMap *noisy, int *level);

/*
 * src/store/store_history.c: whether every release keeps its histogram (0.7
 * objects), read from the catalog caches.
 */
bool		dpk_store_keeps_history(void);

/* Release t's time; false when the table has no release t. */
bool		dpk_store_release_time(Oid relid, int t, TimestampTz *at);

/* One attached table as dp_tables lists it (public configuration only). */
typedef struct DpkTableRow
{
	Oid			relid;
	Datum		columns;		/* text[] */
	int			k;
	double		epsilon;
	double		delta;
	int			horizon;
	int			releases;
	bool		has_release_time;
	TimestampTz last_release_at;
	bool		capture_wal;
	bool		insert_only;
	TimestampTz attached_at;
	Datum		readers;		/* text[]; (Datum) 0 when none */
} DpkTableRow;

/*
 * Every attached table but a shard's (a shard table has no release), in
 * ctx, ordered by name; *n rows.
 */
DpkTableRow *dpk_store_table_rows(MemoryContext ctx, int *n);

/* The live configuration of a tracked table. */
void		dpk_tracked_config(const DpkTracked *tr, DpkLiveConfig *cfg);

/*
 * Its norm counter's unit 2^s, s from dpk_live_use_norm_shift: 0 for tables
 * without projected dimensions or without delta.
 */
int			dpk_tracked_norm_shift(const DpkTracked *tr);

/* This server's cluster (system identifier), WAL timeline and database. */
void		dpk_home_current(DpkHome *home);

/* Whether two homes are known and the same history. */
bool		dpk_home_equal(const DpkHome *a, const DpkHome *b);

/*
 * Objectives (src/store/store_objectives.c): whether a table's releases compute
 * k-median (true for tables attached before 0.7 and for objects older than
 * 0.7), setting it, and a new table's setting (k-means alone).
 */
bool		dpk_store_kmedian_wanted(Oid relid);
void		dpk_store_set_kmedian(Oid relid, bool kmedian);
void		dpk_store_attach_objectives(Oid relid);

/* A bytea of a cell map (padded form when pad_to > 0, else the plain form). */
bytea	   *dpk_store_map_bytea(const DpkCellMap *m, uint64 pad_to);

/* src/store/store_cells.c: a bytea of a dense histogram (padded or plain form). */
bytea	   *dpk_store_dense_bytea(const DpkDenseCells *h, bool padded);

/* Merge a serialised cell map into m with sign, or ERROR on corruption. */
void		dpk_store_merge_bytea(DpkCellMap *m, bytea *b, int sign);

/*
 * The same from a stored value (a column of the last SPI result), read in
 * slices without its padding when out of line; returns its length in bytes.
 */
size_t		dpk_store_merge_stored(DpkCellMap *m, Datum value, int sign);

#endif
