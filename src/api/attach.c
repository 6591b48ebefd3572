/*
 * attach.c
 *		Owner-side SQL functions that start and end a live table's history:
 *		dp_attach, dp_detach and dp_confirm_history.
 *
 * Attaching makes the table's secret key, counts the existing rows as events
 * of release 1 (a pending delta) and installs statement-level triggers.  No
 * release is made here: releases are made by dp_release only, so nothing is
 * ever drawn inside a transaction that may still roll back.
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xlog.h"
#include "replication/message.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_class.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "attach.h"
#include "live_config.h"
#include "share_tree.h"
#include "capture.h"
#include "dpk_mem.h"
#include "live_regions.h"
#include "shard.h"
#include "store.h"
#include "tree_estimator.h"
#include "wal_capture.h"

#define DEFAULT_SIZE_HINT 100000.0
#define MAX_HORIZON (1 << 20)

/*
 * Validate the tracked column names (non-empty, no NULL, existing user
 * columns, no duplicates); returns them and their current attribute numbers.
 */
static char **
check_columns(Oid relid, ArrayType *columns, int *ncols, AttrNumber **attnums)
{
	Datum	   *elems;
	bool	   *nulls;
	char	  **names;
	AttrNumber *att;
	int			n,
				i,
				j;

	if (ARR_NDIM(columns) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("columns must be a one-dimensional array")));
	deconstruct_array(columns, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("columns must name at least one column"),
				 errhint("Give d numeric columns or one float8[]/float4[] column.")));
	names = palloc(n * sizeof(char *));
	att = palloc(n * sizeof(AttrNumber));
	for (i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("columns must not contain NULL"),
					 errhint("Name every tracked column.")));
		names[i] = TextDatumGetCString(elems[i]);
		att[i] = get_attnum(relid, names[i]);
		if (att[i] == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of table \"%s\" does not exist", names[i],
							get_rel_name(relid)),
					 errdetail("Column names are case-sensitive here, as in quoted identifiers.")));
		if (att[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_COLUMN_REFERENCE),
					 errmsg("system column \"%s\" cannot be tracked", names[i]),
					 errhint("Track user columns holding the point's coordinates.")));
		for (j = 0; j < i; j++)
			if (att[j] == att[i])
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("column \"%s\" is listed twice", names[i]),
						 errhint("Each tracked column is one dimension; list it once.")));
	}
	*ncols = n;
	*attnums = att;
	return names;
}
/*
 * ERROR unless relid can be attached: an ordinary table that neither has nor
 * is an inheritance child, or the root of a partitioned table (writes into a
 * partition or a child would bypass the capture of a table attached alone).
 */
static void
check_relation(Oid relid)
{
	char		relkind = get_rel_relkind(relid);
	const char *name = get_rel_name(relid);

	if (relkind == RELKIND_PARTITIONED_TABLE || relkind == RELKIND_RELATION)
	{
		if (get_rel_relispartition(relid))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("\"%s\" is a partition of \"%s\"", name,
							get_rel_name(get_partition_parent(relid, true))),
					 errdetail("Writes through its parent would bypass the capture of a partition attached alone."),
					 errhint("Attach the partitioned table at the root of its tree: it covers every partition.")));
		if (relkind == RELKIND_RELATION && (has_subclass(relid) || has_superclass(relid)))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("\"%s\" has inheritance parents or children", name),
					 errdetail("Statements on an inheritance parent write its children's rows without their triggers."),
					 errhint("Use declarative partitioning (dp_attach the partitioned table), or a table without inheritance.")));
		return;
	}
	if (relkind == RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a foreign table", name),
				 errdetail("dpkmeans counts rows with triggers on the table that stores them."),
				 errhint("Attach the table on the server that stores its rows.")));
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("\"%s\" is not a table", name),
			 errdetail("dpkmeans attaches to ordinary and partitioned tables (not views or materialized views).")));
}

/* ERROR unless every node scale of cfg has an exact representation. */
static void
check_scales(const DpkLiveConfig *cfg)
{
	double		largest;

	if (!dpk_live_scales_representable(cfg, &largest))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon %g is too small for this table's configuration", cfg->epsilon),
				 errdetail(cfg->delta > 0.0 ? "A node's noise variance would be %g; exact sampling represents variances below 2^62." : "A node's noise scale would be %g; exact sampling represents scales below 2^62.",
						   largest),
				 errhint("Use a larger epsilon, fewer dimensions or a smaller horizon.")));
}

/*
 * Most per-cell coordinate sums (doubles) a release of a projected table may
 * hold: 2 GB.  A release keeps a d-vector for every cell of every copy, so
 * its memory is copies x cells x d x 8 bytes, about twice that at its peak:
 * a 1 536-d table at level 3 (262 144 cells, any size_hint from 5 x 10^5
 * on) took 86 s and 6 GB per release of 10 rows, and 4 096 columns would
 * ask for 17 GB.
 */
#define DPK_MAX_RELEASE_SUMS ((double) (1 << 28))

/*
 * ERROR when a release of cfg (d columns) would hold more per-cell sums
 * than DPK_MAX_RELEASE_SUMS: a function of the public configuration.
 */
static void
check_release_size(const DpkLiveConfig *cfg, int d)
{
	double		sums;

	if (cfg->dhat <= 0)
		return;
	sums = (double) cfg->copies * (double) dpk_live_copy_cells(cfg) * d;
	if (sums > DPK_MAX_RELEASE_SUMS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a release of this configuration would hold %.0f MB of per-cell sums, more than %.0f MB",
						sums * sizeof(double) / 1048576.0, DPK_MAX_RELEASE_SUMS * sizeof(double) / 1048576.0),
				 errdetail("Level %d of %d projected dimensions has " UINT64_FORMAT " cells in each of %d copies, each cell a sum of %d coordinates.",
						   cfg->level, cfg->dhat, dpk_live_copy_cells(cfg), cfg->copies, d),
				 errhint("Give a smaller size_hint (it sets the level), or reduce the dimension before attaching.")));
}

/*
 * The counter of a new Gaussian table (dpkmeans.gaussian_counter), after
 * its level was chosen for the binary tree: dpk_live_use_counter, once what
 * a forced square root cannot do is refused.
 */
static void
choose_counter(DpkLiveConfig *cfg, const DpkBox *box, double size_hint)
{
	bool		forced = dpk_gaussian_counter == DPK_GAUSSIAN_COUNTER_SQRT;

	cfg->counter = DPK_LIVE_COUNTER_TREE;
	if (cfg->delta <= 0.0 || dpk_gaussian_counter == DPK_GAUSSIAN_COUNTER_TREE)
		return;
	if (!dpk_store_has_counter())
	{
		if (forced)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the square-root counter needs dpkmeans 0.9"),
					 errhint("Run ALTER EXTENSION dpkmeans UPDATE.")));
		return;
	}
	if (forced && cfg->horizon > DPK_LIVE_SQRT_MAX_HORIZON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the square-root counter takes a horizon of at most %d releases",
						DPK_LIVE_SQRT_MAX_HORIZON),
				 errhint("Use a smaller horizon, or SET dpkmeans.gaussian_counter = 'auto'.")));
	dpk_live_use_counter(cfg, box, size_hint, dpk_max_cells, forced);
}

/*
 * The counter of a new pure table (dpkmeans.pure_counter), after its level
 * was chosen for the k-ary tree.  'share_tree': the share tree where
 * dpk_live_use_share_tree gives it (low-d tables), else the k-ary tree with
 * a NOTICE.  'auto' (the default): the same from a horizon of
 * DPK_LIVE_SHARE_AUTO_MIN_HORIZON on 0.9's objects, quietly the k-ary tree
 * otherwise.
 */
static void
choose_pure_counter(DpkLiveConfig *cfg, const DpkBox *box, double size_hint)
{
	if (cfg->delta > 0.0 || dpk_pure_counter == DPK_PURE_COUNTER_TREE)
		return;
	if (dpk_pure_counter == DPK_PURE_COUNTER_AUTO)
	{
		if (dpk_live_share_tree_by_default(cfg) && dpk_store_has_counter())
			dpk_live_use_share_tree(cfg, box, size_hint, dpk_max_cells);
		return;
	}
	if (cfg->dhat == 0 && !dpk_store_has_counter())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the share-tree counter needs dpkmeans 0.9"),
				 errhint("Run ALTER EXTENSION dpkmeans UPDATE.")));
	dpk_live_use_share_tree(cfg, box, size_hint, dpk_max_cells);
	if (cfg->counter != DPK_LIVE_COUNTER_SHARE)
		ereport(NOTICE,
				(errmsg("the table counts with the k-ary tree, not the share tree"),
				 errdetail("The share tree applies to pure tables with fewer than %d columns and "
						   "a horizon of at most %d releases where it beats the k-ary tree, "
						   "whose releases read at most %.0f noise draws.",
						   DPK_HIGHD_MIN_D, DPK_SHARE_MAX_HORIZON, DPK_LIVE_SHARE_MAX_DRAWS)));
}

/*
 * Whether a new table lifts by regions (dpk_live_use_regions, public
 * parameters only): not on objects older than 0.6, and only when the
 * regions' sum noise (one more coordinate) has exact scales too.
 */
static bool
use_regions(const DpkLiveConfig *cfg)
{
	DpkLiveConfig wide;
	double		largest;
	DpkOwnerSwitch sw;
	bool		has;

	if (!dpk_live_use_regions(cfg))
		return false;
	dpk_regions_sum_config(cfg, &wide);
	if (!dpk_live_scales_representable(&wide, &largest))
		return false;
	dpk_store_begin(&sw);
	has = dpk_store_has_regions();
	dpk_store_end(&sw);
	return has;
}

/*
 * Check the horizon, the mode and the optional size hint of dp_attach and
 * store them in tr (size_hint NULL: the default).
 */
static void
check_options(DpkTracked *tr, const char *mode, const double *size_hint)
{
	if (tr->horizon < 1 || tr->horizon > MAX_HORIZON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("horizon must be between 1 and %d, got %d", MAX_HORIZON, tr->horizon),
				 errdetail("The horizon is the maximum number of releases; the noise grows with its logarithm.")));
	if (strcmp(mode, "insert_delete") == 0)
		tr->insert_only = false;
	else if (strcmp(mode, "insert_only") == 0)
		tr->insert_only = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mode \"%s\"", mode),
				 errhint("Use 'insert_delete' (the default) or 'insert_only'.")));
	if (size_hint != NULL)
	{
		tr->size_hint = *size_hint;
		if (isnan(tr->size_hint) || isinf(tr->size_hint) || tr->size_hint < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("size_hint must be a finite number >= 1, got %g", tr->size_hint),
					 errdetail("size_hint is a public guess of the row count; it sizes the grid.")));
	}
}

/*
 * The capture argument of dp_attach (absent before 0.3: 'trigger'): true
 * for 'wal', changes counted from the WAL by logical decoding.
 */
static bool
capture_arg(FunctionCallInfo fcinfo, int argno)
{
	char	   *capture;

	if (PG_NARGS() <= argno)
		return false;
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("capture must not be NULL"),
				 errhint("Use 'trigger' (the default) or 'wal'.")));
	capture = text_to_cstring(PG_GETARG_TEXT_PP(argno));
	if (strcmp(capture, "wal") == 0)
		return true;
	if (strcmp(capture, "trigger") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown capture \"%s\"", capture),
				 errhint("Use 'trigger' (the default: writers count their changes) or 'wal' (changes counted from the WAL by logical decoding).")));
	return false;
}

/*
 * The fresh_budget argument of dp_attach (absent before 0.7: false).  A
 * fresh budget needs the ledger (0.7 objects) to be recorded at all.
 */
static bool
fresh_budget_arg(FunctionCallInfo fcinfo, int argno)
{
	bool		fresh;

	if (PG_NARGS() <= argno)
		return false;
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("fresh_budget must not be NULL"),
				 errhint("Use false (the default: the ledger adds this history to the earlier ones) or true.")));
	fresh = PG_GETARG_BOOL(argno);
	if (fresh && !dpk_store_has_ledger())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("fresh_budget needs dpkmeans 0.7"),
				 errhint("Run ALTER EXTENSION dpkmeans UPDATE.")));
	return fresh;
}

/*
 * Open the new history of tr's table in its ledger (inside the store) and
 * say what the earlier histories spent: the owner learns at attach what the
 * rows already carry, and that a fresh budget is an explicit choice.
 */
static void
ledger_attach(const DpkTracked *tr, bool fresh_budget)
{
	DpkLedgerRow *rows;
	DpkLedgerEntry *past;
	DpkLedgerTotals tot;
	int			n,
				i,
				history;
	const char *name = get_rel_name(tr->relid);

	if (!dpk_store_has_ledger())
		return;
	n = dpk_store_ledger_read(tr->relid, CurrentMemoryContext, &rows);
	past = palloc(sizeof(DpkLedgerEntry) * (n > 0 ? n : 1));
	for (i = 0; i < n; i++)
		past[i] = rows[i].entry;
	dpk_ledger_totals(past, n, &tot);
	history = dpk_store_ledger_open(tr, fresh_budget);
	if (fresh_budget && tot.histories > 0)
		ereport(NOTICE,
				(errmsg("a fresh privacy budget starts with history %d of table \"%s\"",
						history, name),
				 errdetail_plural("Its %d earlier history spent epsilon = %g, delta = %g on the table's rows; "
								  "it stays in the ledger and in dp_privacy_report's total.",
								  "Its %d earlier histories spent epsilon = %g, delta = %g on the table's rows; "
								  "they stay in the ledger and in dp_privacy_report's total.",
								  tot.histories, tot.histories, tot.epsilon, tot.delta)));
	else if (!fresh_budget && tot.spent > 0)
		ereport(NOTICE,
				(errmsg_plural("the rows of table \"%s\" have spent epsilon = %g, delta = %g in %d earlier history",
							   "the rows of table \"%s\" have spent epsilon = %g, delta = %g in %d earlier histories",
							   tot.spent, name, tot.epsilon, tot.delta, tot.spent),
				 errdetail("This history (number %d) adds epsilon = %g, delta = %g to the budget counted "
						   "since history %d once its first release is made: epsilon = %g, delta = %g in all.",
						   history, tr->epsilon, tr->delta, tot.budget_from,
						   tot.budget_epsilon + tr->epsilon, tot.budget_delta + tr->delta),
				 errhint("dp_privacy_report shows the ledger; dp_attach(..., fresh_budget => true) "
						 "starts a new budget instead, the earlier histories staying listed.")));
}

/*
 * dp_attach(tbl, columns, k, epsilon, lower, upper, horizon, mode, size_hint,
 * delta, capture, norm_bound, fresh_budget)
 */
PG_FUNCTION_INFO_V1(dp_attach);
Datum
dp_attach(PG_FUNCTION_ARGS)
{
	DpkTracked	tr;
	char	   *mode;
	AttrNumber *attnums;
	Relation	rel;
	DpkShape	shape;
	DpkLiveConfig cfg;
	DpkCellMap	backfill;
	DpkClampCount clamped;
	DpkOwnerSwitch sw;
	uint8		key[DPK_KEY_BYTES];
	int			i;
	bool		attached,
				regions,
				fresh_budget;
	DpkWalCapture wc;
	double		size_hint_arg;
	List	   *tree;
	ListCell   *lc;

	for (i = 0; i < 8; i++)
		if (PG_ARGISNULL(i) && i != 4 && i != 5)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dp_attach argument %d must not be NULL", i + 1),
					 errdetail("Only size_hint may be NULL.")));
	memset(&tr, 0, sizeof(tr));
	tr.relid = PG_GETARG_OID(0);
	tr.k = PG_GETARG_INT32(2);
	tr.epsilon = PG_GETARG_FLOAT8(3);
	tr.horizon = PG_GETARG_INT32(6);
	tr.size_hint = DEFAULT_SIZE_HINT;
	mode = text_to_cstring(PG_GETARG_TEXT_PP(7));
	size_hint_arg = PG_ARGISNULL(8) ? 0.0 : PG_GETARG_FLOAT8(8);

	dpk_pg_check_table_owner(tr.relid, "attach it");
	dpk_pg_refuse_in_recovery("dp_attach");
	check_relation(tr.relid);
	if (get_rel_relkind(tr.relid) == RELKIND_PARTITIONED_TABLE &&
		!dpk_have_internal_function("partition_ddl_end"))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("partitioned tables need dpkmeans 0.3"),
				 errhint("Run ALTER EXTENSION dpkmeans UPDATE.")));
	dpk_pg_check_k(tr.k, 0);
	dpk_pg_check_k_max(tr.k, dpk_max_k_live, "dp_attach", true);
	dpk_pg_check_epsilon(tr.epsilon, "epsilon");
	dpk_pg_check_box(PG_ARGISNULL(4) ? NULL : PG_GETARG_ARRAYTYPE_P(4),
					 PG_ARGISNULL(5) ? NULL : PG_GETARG_ARRAYTYPE_P(5),
					 &tr.lower, &tr.upper, &tr.d);
	check_options(&tr, mode, PG_ARGISNULL(8) ? NULL : &size_hint_arg);
	tr.delta = dpk_pg_delta_arg(fcinfo, 9);
	tr.colnames = check_columns(tr.relid, PG_GETARG_ARRAYTYPE_P(1), &tr.ncols, &attnums);
	tr.capture_wal = capture_arg(fcinfo, 10);
	tr.norm_bound = dpk_pg_norm_bound_arg(fcinfo, 11, tr.d);
	fresh_budget = fresh_budget_arg(fcinfo, 12);
	if (tr.capture_wal)
	{
		/* the slot first: it can only be created before this transaction writes */
		dpk_wal_check_attach(tr.relid);
		dpk_store_begin(&sw);
		attached = dpk_store_is_attached(tr.relid);
		dpk_store_end(&sw);
		if (!attached)
			dpk_wal_create_slot(tr.relid);
	}

	/* No write may slip between the backfill scan and the triggers. */
	rel = table_open(tr.relid, ShareRowExclusiveLock);
	tree = dpk_partition_relids(tr.relid, ShareRowExclusiveLock);
	dpk_refuse_unlogged(tree);
	dpk_check_no_detaching(tree);
	dpk_shard_check_tree(tr.relid);
	dpk_shape_init(&shape, rel, tr.d, 0, attnums, tr.ncols, tr.lower, tr.upper);

	dpk_live_defaults(&cfg, tr.d, tr.k, tr.epsilon, (uint32_t) tr.horizon, tr.insert_only);
	/* a schema before 0.9 keeps its in-cell sums' noise from the cell's corner */
	tr.trigger_format = dpk_store_has_counter() ? DPK_TRIGGER_FORMAT : DPK_TRIGGER_FORMAT_PRE_09;
	cfg.centred_offsets = tr.trigger_format > DPK_TRIGGER_FORMAT_PRE_09;
	if (tr.d >= DPK_HIGHD_MIN_D)
	{
		/* High dimension: projected copies; their seed is public. */
		uint64		seed;

		dpk_pg_strong_random(&seed, sizeof(seed));
		dpk_live_use_projection(&cfg, seed & INT64CONST(0x7fffffffffffffff));
	}
	dpk_live_use_delta(&cfg, tr.delta);
	{
		DpkBox		box = {tr.d, tr.lower, tr.upper};

		/* trigger format 3: projected points in metric positions */
		dpk_live_use_few_sides(&cfg, &box, tr.size_hint);
		dpk_live_use_ball(&cfg, &box, tr.norm_bound);
		if (cfg.ball == 0.0)
			tr.norm_bound = 0.0;	/* the box bounds more: nothing to store */
		dpk_live_use_ball_dims(&cfg, &box, tr.size_hint, dpk_max_cells);
		dpk_live_use_box(&cfg, &box);
		/* objects older than 0.3 cannot record another tree than the binary one */
		if (!dpk_store_has_tree_arity())
			cfg.arity = DPK_TREE_ARITY_BINARY;
		tr.tree_arity = cfg.arity;
		cfg.level = dpk_live_choose_level_box(&cfg, &box, tr.size_hint, dpk_max_cells);
		choose_counter(&cfg, &box, tr.size_hint);
		choose_pure_counter(&cfg, &box, tr.size_hint);
		/* insert-only 64-column Gaussian tables on square_root_sums: sign cells (doc/decisions/074) */
		dpk_live_use_sign_cells(&cfg);
	}
	dpk_live_use_norm_shift(&cfg);
	check_scales(&cfg);
	check_release_size(&cfg, tr.d);
	regions = use_regions(&cfg);
	tr.level = cfg.level;
	tr.counter = cfg.counter;
	tr.sum_share = cfg.sum_share;
	tr.dhat = cfg.dhat;
	tr.copies = cfg.copies;
	tr.proj_seed = cfg.proj_seed;
	tr.norm_share = cfg.norm_share;
	tr.sampler_version = DPK_SAMPLER_VERSION;
	tr.state_format = regions ? DPK_STATE_FORMAT_REGIONS : DPK_STATE_FORMAT;
	dpk_home_current(&tr.home);
	shape.level = cfg.level;
	if (cfg.dhat > 0)
	{
		dpk_shape_set_projection(&shape, cfg.dhat, cfg.copies, cfg.proj_seed, true,
								 tr.norm_bound);
		shape.live.norm_shift = cfg.norm_shift;
	}

	dpk_store_begin(&sw);
	attached = dpk_store_is_attached_now(tr.relid);
	dpk_store_end(&sw);
	if (attached)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("table \"%s\" is already attached to dpkmeans", get_rel_name(tr.relid)),
				 errhint("Run dp_detach first to attach it again with another configuration.")));

	if (tr.capture_wal)
	{
		/*
		 * Old rows of UPDATE and DELETE in the WAL.  Under the lock no writer
		 * of the table is in progress: every one that committed did so
		 * before this WAL position and is in a snapshot taken now, and every
		 * later one commits after this transaction.  The backfill counts the
		 * first, the WAL capture the transactions committed past wc.lsn.
		 */
		wc.prev_identity = dpk_wal_set_identity(tr.relid, REPLICA_IDENTITY_FULL,
												InvalidOid, &wc.prev_index);
		dpk_wal_slot_name(tr.relid, wc.slot);
		/* the end of a record inserted now (ignored by the plugin) */
		wc.lsn = LogLogicalMessage("dpkmeans", "", 0, false);
		PushActiveSnapshot(GetLatestSnapshot());
	}

	/* Backfill: the existing rows are events of release 1. */
	dpk_cellmap_init(&backfill, tr.d);
	dpk_clamp_init(&clamped, tr.d);
	dpk_partition_scan_clamped(&tr, tr.relid, &backfill, true, &clamped, true);
	if (tr.capture_wal)
		PopActiveSnapshot();
	/* the owner is told how many rows the box clamps (true counts) */
	dpk_clamp_report(&clamped, psprintf("table \"%s\"", get_rel_name(tr.relid)),
					 tr.colnames, tr.ncols,
					 psprintf("Rows clamped onto a face of the box count at its edge; check lower and "
							  "upper, and dp_bounds_check('%s') counts them again later.",
							  get_rel_name(tr.relid)));

	dpk_pg_strong_random(key, sizeof(key));
	dpk_store_begin(&sw);
	/*
	 * A table restored without its dpkmeans state (pg_dump -t) may carry
	 * capture triggers and the deltas they appended: the backfill counts
	 * its rows, so both go.
	 */
	foreach(lc, tree)
		dpk_drop_capture(lfirst_oid(lc));
	dpk_store_drop_deltas(tr.relid);
	dpk_store_insert_tracked(&tr, mode, attnums, key);
	explicit_bzero(key, sizeof(key));
	ledger_attach(&tr, fresh_budget);
	if (tr.capture_wal)
		dpk_store_wal_insert(tr.relid, &wc);
	if (regions)
	{
		DpkRegions	rs;
		uint8	   *bytes;
		size_t		len;

		dpk_regions_init(&rs, &cfg);
		bytes = dpk_regions_serialize(&rs, 0, &len);
		dpk_store_regions_write(tr.relid, bytes, len);
		dpk_regions_free(&rs);
	}
	/* Triggers, created as the extension owner (their functions are not public). */
	foreach(lc, tree)
		dpk_install_capture(&tr, lfirst_oid(lc));
	/* The backfill as the first delta: release 1 folds it. */
	dpk_store_append_delta(tr.relid, &backfill,
						   dpk_store_is_v01() ? 0
						   : dpk_pad_cells(&cfg, dpk_state_rows(&cfg, &backfill)));
	dpk_store_end(&sw);
	/* foreign partitions: capture on their servers, committed with this */
	dpk_shard_attach_all(&tr);
	table_close(rel, NoLock);
	PG_RETURN_VOID();
}

/* Remove an attached table's capture and stored rows (see attach.h). */
void
dpk_detach_table(Oid relid)
{
	DpkOwnerSwitch sw;
	Relation	rel;
	ListCell   *lc;
	DpkWalCapture wc;
	bool		wal;

	rel = table_open(relid, ShareRowExclusiveLock);
	dpk_store_begin(&sw);
	if (!dpk_store_is_attached_now(relid))
		dpk_store_not_attached(relid);
	wal = dpk_store_wal_read(relid, &wc);
	if (wal)
	{
		/* the slot goes when this commits; the replica identity comes back */
		dpk_wal_drop_at_commit(relid, wc.slot);
		dpk_store_wal_delete(relid);
	}
	dpk_store_end(&sw);
	if (wal)
	{
		Oid			unused;

		(void) dpk_wal_set_identity(relid, wc.prev_identity, wc.prev_index, &unused);
	}
	/* shards first, as the caller (their user mappings are the caller's) */
	dpk_shard_detach_all(relid);
	dpk_store_begin(&sw);
	dpk_store_shard_delete(relid);
	/* the ledger keeps the history: a later attach adds to it */
	dpk_store_ledger_close(relid);
	/* root first: its row trigger takes the partitions' clones with it */
	foreach(lc, dpk_partition_relids(relid, ShareRowExclusiveLock))
		dpk_drop_capture(lfirst_oid(lc));
	dpk_store_delete_table(relid);
	dpk_store_end(&sw);
	table_close(rel, NoLock);
}

/* dp_detach(tbl): remove the triggers and every stored row of the table. */
PG_FUNCTION_INFO_V1(dp_detach);
Datum
dp_detach(PG_FUNCTION_ARGS)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);

	dpk_pg_check_table_owner(relid, "detach it");
	dpk_pg_refuse_in_recovery("dp_detach");
	dpk_detach_table(relid);
	PG_RETURN_VOID();
}

/*
 * dp_confirm_history(tbl): the owner states that this copy of the table is
 * the one that goes on releasing (after a restore into another cluster or
 * database, a point-in-time recovery or a failover), and that any other copy
 * of its key never releases again.  Records this server as the table's home.
 */
PG_FUNCTION_INFO_V1(dp_confirm_history);
Datum
dp_confirm_history(PG_FUNCTION_ARGS)
{
	Oid			relid;
	DpkOwnerSwitch sw;
	DpkHome		home;
	DpkTracked	tr;

	relid = dpk_pg_table_arg(fcinfo);
	dpk_pg_check_table_owner(relid, "confirm its release history");
	dpk_pg_refuse_in_recovery("dp_confirm_history");
	dpk_home_current(&home);
	dpk_store_begin(&sw);
	if (!dpk_store_read_tracked(relid, true, CurrentMemoryContext, &tr))
		dpk_store_not_attached(relid);
	if (dpk_store_is_v01())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp_confirm_history needs dpkmeans 0.2"),
				 errhint("Run ALTER EXTENSION dpkmeans UPDATE.")));
	dpk_store_set_home(relid, &home);
	dpk_store_end(&sw);
	PG_RETURN_VOID();
}

/*
 * dpkmeans_internal.record_home(tbl): record this server as the home of a
 * table whose home is not recorded (attached by 0.1 and not released since
 * the update to 0.2), at the update to 0.6: a dump of the updated database
 * restored elsewhere then refuses to release until dp_confirm_history,
 * where its first release would otherwise have made it its home too.
 */
PG_FUNCTION_INFO_V1(dpk_record_home);
Datum
dpk_record_home(PG_FUNCTION_ARGS)
{
	Oid			relid = dpk_pg_table_arg(fcinfo);
	DpkOwnerSwitch sw;
	DpkTracked	tr;
	DpkHome		home;

	dpk_home_current(&home);
	dpk_store_begin(&sw);
	if (!dpk_store_read_config(relid, CurrentMemoryContext, &tr))
		dpk_store_not_attached(relid);
	if (!tr.home.known)
		dpk_store_set_home(relid, &home);
	dpk_store_end(&sw);
	PG_RETURN_VOID();
}
