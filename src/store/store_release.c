/*
 * store_release.c
 *		What a release leaves for its readers in the internal tables: the
 *		centres and cost curves of every k' and objective, the noisy
 *		histogram of every release, and the readers' queries of them.
 *
 * Everything here is noisy (post-processing of a release); the sizes of what
 * is stored depend on k, d, the counted level and the number of releases.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "store.h"
#include "store_int.h"

/* Coordinates of centres one statement stores at most (8 MB of float8). */
#define DPK_STORE_CHUNK_VALUES (1 << 20)

/* An int4[] Datum from n ints. */
static Datum
int4_datum(const int32 *v, int n)
{
	Datum	   *elems = palloc(n * sizeof(Datum));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = Int32GetDatum(v[i]);
	return PointerGetDatum(construct_array(elems, n, INT4OID, sizeof(int32), true,
										   TYPALIGN_INT));
}

/*
 * The cost curve and centres of one objective of a release; values[0..1]
 * hold relid and t.  objective NULL: the rows of a schema without the
 * objective column (before 0.3), which are k-means rows.  One statement
 * for the costs and one for every 2^20 coordinates of centres, whatever k
 * is: the k(k+1)/2 centres of k' = 1..k lie one after the other
 * (dpk_live_block), passed as arrays.
 */
static void
save_objective(const DpkTracked *tr, const double *costs, const double *centers,
			   const double *sizes, const char *objective, Oid *types, Datum *values)
{
	char	   *cost_sql = psprintf("INSERT INTO dpkmeans_internal.costs (relid, t, k, noisy_cost%s) "
									"SELECT $1::oid::regclass, $2, u.k, u.cost%s "
									"FROM unnest($3::int4[], $4::float8[]) AS u(k, cost)",
									objective ? ", objective" : "",
									objective ? psprintf(", '%s'", objective) : "");
	char	   *center_sql = psprintf("INSERT INTO dpkmeans_internal.centers (relid, t, k, cluster, "
									  "center, noisy_size%s) SELECT $1::oid::regclass, $2, u.k, "
									  "u.cluster, $5[(u.o - 1) * $6 + 1 : u.o * $6], u.size%s "
									  "FROM unnest($3::int4[], $4::int4[], $7::float8[]) "
									  "WITH ORDINALITY AS u(k, cluster, size, o)",
									  objective ? ", objective" : "",
									  objective ? psprintf(", '%s'", objective) : "");
	int			ncenters = dpk_live_block(tr->k + 1),
				chunk = Max(1, DPK_STORE_CHUNK_VALUES / tr->d),
				from,
				kp,
				c;
	int32	   *ks = palloc(Max(ncenters, tr->k) * sizeof(int32));
	int32	   *clusters = palloc(ncenters * sizeof(int32));

	for (kp = 1; kp <= tr->k; kp++)
		ks[kp - 1] = kp;
	types[2] = INT4ARRAYOID;
	values[2] = int4_datum(ks, tr->k);
	types[3] = FLOAT8ARRAYOID;
	values[3] = dpk_store_float8_datum(costs, tr->k);
	dpk_store_exec(cost_sql, 4, types, values, false, SPI_OK_INSERT);

	for (kp = 1; kp <= tr->k; kp++)
		for (c = 0; c < kp; c++)
		{
			ks[dpk_live_block(kp) + c] = kp;
			clusters[dpk_live_block(kp) + c] = c + 1;
		}
	/* in slices of at most DPK_STORE_CHUNK_VALUES coordinates */
	for (from = 0; from < ncenters; from += chunk)
	{
		int			n = Min(chunk, ncenters - from);

		types[2] = INT4ARRAYOID;
		values[2] = int4_datum(ks + from, n);
		types[3] = INT4ARRAYOID;
		values[3] = int4_datum(clusters + from, n);
		types[4] = FLOAT8ARRAYOID;
		values[4] = dpk_store_float8_datum(centers + (size_t) from * tr->d, n * tr->d);
		types[5] = INT4OID;
		values[5] = Int32GetDatum(tr->d);
		types[6] = FLOAT8ARRAYOID;
		values[6] = dpk_store_float8_datum(sizes + from, n);
		dpk_store_exec(center_sql, 7, types, values, false, SPI_OK_INSERT);
		pfree(DatumGetPointer(values[2]));
		pfree(DatumGetPointer(values[3]));
		pfree(DatumGetPointer(values[4]));
		pfree(DatumGetPointer(values[6]));
	}
	pfree(ks);
	pfree(clusters);
}

/* The stored form of a release's histogram from a noisy map (see store.h). */
bytea *
dpk_store_histogram_bytea(const DpkCellMap *noisy_map)
{
	return dpk_store_map_bytea(noisy_map, dpk_store_is_v01() ? 0 : noisy_map->n);
}

/* The same from a dense histogram (see store.h). */
bytea *
dpk_store_histogram_dense(const DpkDenseCells *h)
{
	return dpk_store_dense_bytea(h, !dpk_store_is_v01());
}

/* Store release t (see store.h). */
void
dpk_store_save_release(const DpkTracked *tr, uint32 t, uint64 state_pad, bool state_changed,
					   const DpkLiveRelease *rel, bytea *histogram)
{
	Oid			types[7];
	Datum		values[7];
	uint64		pad_to = dpk_store_is_v01() ? 0 : state_pad;

	/*
	 * Every cell of the released level, zeros included (padded): the stored
	 * size, which an aborted attempt leaves in the statistics, is public.
	 */
	types[0] = OIDOID;
	values[0] = ObjectIdGetDatum(tr->relid);
	types[1] = INT4OID;
	values[1] = Int32GetDatum((int32) t);
	types[2] = BYTEAOID;
	values[2] = PointerGetDatum(histogram);
	if (dpk_store_keeps_history())
		dpk_store_exec_large("INSERT INTO dpkmeans_internal.histogram (relid, t, payload) "
							 "VALUES ($1::oid::regclass, $2, $3)", 3, types, values,
							 SPI_OK_INSERT);
	else
		dpk_store_exec_large("INSERT INTO dpkmeans_internal.histogram (relid, t, payload) "
							 "VALUES ($1::oid::regclass, $2, $3) ON CONFLICT (relid) "
							 "DO UPDATE SET t = excluded.t, payload = excluded.payload",
							 3, types, values, SPI_OK_INSERT);
	pfree(histogram);

	/*
	 * The state is its stored bytes again when nothing was folded into it
	 * and its padded length is the same (the serialised form is a function
	 * of the counters and the padding alone): then it is not written.
	 */
	types[2] = INT4OID;
	values[2] = Int32GetDatum((int32) t);
	types[3] = INT4OID;
	values[3] = Int32GetDatum(tr->state_format);
	if (state_changed ||
		tr->state_len != dpk_cellmap_serialized_len(&tr->state, pad_to > 0, pad_to))
	{
		types[1] = BYTEAOID;
		values[1] = PointerGetDatum(dpk_store_map_bytea(&tr->state, pad_to));
		if (dpk_store_is_v01())
			dpk_store_exec_large("UPDATE dpkmeans_internal.tracked SET state = $2, releases = $3 "
								 "WHERE relid = $1::oid::regclass", 3, types, values,
								 SPI_OK_UPDATE);
		else
			dpk_store_exec_large("UPDATE dpkmeans_internal.tracked SET state = $2, releases = $3, "
								 "state_format = $4 WHERE relid = $1::oid::regclass",
								 4, types, values, SPI_OK_UPDATE);
		pfree(DatumGetPointer(values[1]));
	}
	else
	{
		Oid			ut[3] = {OIDOID, INT4OID, INT4OID};
		Datum		uv[3] = {values[0], values[2], values[3]};

		dpk_store_exec(dpk_store_is_v01()
					   ? "UPDATE dpkmeans_internal.tracked SET releases = $2 "
					   "WHERE relid = $1::oid::regclass"
					   : "UPDATE dpkmeans_internal.tracked SET releases = $2, state_format = $3 "
					   "WHERE relid = $1::oid::regclass",
					   dpk_store_is_v01() ? 2 : 3, ut, uv, false, SPI_OK_UPDATE);
	}

	types[1] = INT4OID;
	values[1] = Int32GetDatum((int32) t);
	types[2] = INT4OID;
	values[2] = Int32GetDatum(rel->level);
	types[3] = FLOAT8OID;
	values[3] = Float8GetDatum(rel->noisy_n);
	dpk_store_exec("INSERT INTO dpkmeans_internal.releases (relid, t, made_at, level, noisy_n) "
			   "VALUES ($1::oid::regclass, $2, now(), $3, $4)", 4, types, values, false,
			   SPI_OK_INSERT);

	save_objective(tr, rel->costs, rel->centers, rel->sizes, NULL, types, values);
	if (rel->kmed_centers && dpk_store_has_objectives())
		save_objective(tr, rel->kmed_costs, rel->kmed_centers, rel->kmed_sizes, "kmedian",
					   types, values);
}

/*
 * Every row of the last result into a materialised set: its first columns
 * when the set has fewer (the readers of SQL objects before 0.7 have no
 * release and released_at columns).
 */
static void
result_to_set(ReturnSetInfo *rsinfo)
{
	TupleDesc	desc = SPI_tuptable->tupdesc;
	Datum	   *values = palloc(desc->natts * sizeof(Datum));
	bool	   *nulls = palloc(desc->natts * sizeof(bool));
	uint64		i;

	if (rsinfo->setDesc->natts > desc->natts)
		elog(ERROR, "dpkmeans reader returns %d columns, not %d",
			 desc->natts, rsinfo->setDesc->natts);
	for (i = 0; i < SPI_processed; i++)
	{
		heap_deform_tuple(SPI_tuptable->vals[i], desc, values, nulls);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * ERROR when release t has no k-median rows: the table's releases compute
 * k-means only (dp_set_objectives), or it was made by a library before
 * k-median.
 */
static void
require_kmedian(Oid relid, int t)
{
	if (SPI_processed > 0)
		return;
	if (!dpk_store_kmedian_wanted(relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("release %d of table \"%s\" has no k-median centres", t,
						get_rel_name(relid)),
				 errdetail("The table's releases compute k-means only."),
				 errhint("Its owner asks for k-median with dp_set_objectives('%s', "
						 "ARRAY['kmeans', 'kmedian']); releases made from then on store it.",
						 get_rel_name(relid))));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("release %d of table \"%s\" has no k-median centres", t,
					get_rel_name(relid)),
			 errdetail("It was made before dpkmeans 0.3 or before the table's objectives included k-median."),
			 errhint("The next dp_release('%s') stores them.", get_rel_name(relid))));
}

/* Release t's centres for k (see store.h). */
void
dpk_store_centers(Oid relid, int t, int k, DpkObjective obj, ReturnSetInfo *rsinfo)
{
	Oid			types[4] = {OIDOID, INT4OID, INT4OID, TEXTOID};
	Datum		values[4] = {ObjectIdGetDatum(relid), Int32GetDatum(t), Int32GetDatum(k),
	CStringGetTextDatum(dpk_objective_name(obj))};

	if (!dpk_store_has_objectives())
		dpk_store_exec("SELECT cluster, center, greatest(noisy_size, 0) AS noisy_size "
				   "FROM dpkmeans_internal.centers "
				   "WHERE relid = $1::oid::regclass AND t = $2 AND k = $3 ORDER BY cluster",
				   3, types, values, true, SPI_OK_SELECT);
	else if (!dpk_store_keeps_history())
	{
		dpk_store_exec("SELECT cluster, center, greatest(noisy_size, 0) AS noisy_size "
				   "FROM dpkmeans_internal.centers "
				   "WHERE relid = $1::oid::regclass AND t = $2 AND k = $3 AND objective = $4 "
				   "ORDER BY cluster", 4, types, values, true, SPI_OK_SELECT);
		if (obj == DPK_OBJECTIVE_KMEDIAN)
			require_kmedian(relid, t);
	}
	else
	{
		/*
		 * Only the centres the release supports: those that gather a
		 * weighted point (their noisy size, a sum of the noisy counts
		 * nearest to them, is not exactly 0), at least the largest one;
		 * the others are duplicates of size 0.  Numbered again in their
		 * order; sizes clamped at 0 (a sum of noisy counts can be
		 * negative).
		 */
		dpk_store_exec("SELECT (row_number() OVER (ORDER BY c.cluster))::int AS cluster, "
				   "c.center, greatest(c.noisy_size, 0) AS noisy_size, r.t AS release, "
				   "r.made_at AS released_at "
				   "FROM dpkmeans_internal.releases r JOIN ("
				   "  SELECT relid, t, cluster, center, noisy_size, "
				   "         row_number() OVER (ORDER BY noisy_size DESC, cluster) AS rank "
				   "  FROM dpkmeans_internal.centers "
				   "  WHERE relid = $1::oid::regclass AND t = $2 AND k = $3 AND objective = $4) c "
				   "ON c.relid = r.relid AND c.t = r.t "
				   "WHERE c.noisy_size <> 0 OR c.rank = 1 ORDER BY c.cluster",
				   4, types, values, true, SPI_OK_SELECT);
		if (obj == DPK_OBJECTIVE_KMEDIAN)
			require_kmedian(relid, t);
	}
	result_to_set(rsinfo);
}

/* Release t's cost curve (see store.h). */
void
dpk_store_costs(Oid relid, int t, DpkObjective obj, ReturnSetInfo *rsinfo)
{
	Oid			types[3] = {OIDOID, INT4OID, TEXTOID};
	Datum		values[3] = {ObjectIdGetDatum(relid), Int32GetDatum(t),
	CStringGetTextDatum(dpk_objective_name(obj))};

	if (!dpk_store_has_objectives())
		dpk_store_exec("SELECT k, noisy_cost FROM dpkmeans_internal.costs "
				   "WHERE relid = $1::oid::regclass AND t = $2 ORDER BY k",
				   2, types, values, true, SPI_OK_SELECT);
	else
	{
		dpk_store_exec("SELECT c.k, c.noisy_cost, r.t AS release, r.made_at AS released_at "
				   "FROM dpkmeans_internal.costs c JOIN dpkmeans_internal.releases r "
				   "ON r.relid = c.relid AND r.t = c.t "
				   "WHERE c.relid = $1::oid::regclass AND c.t = $2 AND c.objective = $3 "
				   "ORDER BY c.k", 3, types, values, true, SPI_OK_SELECT);
		if (obj == DPK_OBJECTIVE_KMEDIAN)
			require_kmedian(relid, t);
	}
	result_to_set(rsinfo);
}

/* Release t's noisy counted level (see store.h). */
void
dpk_store_histogram(Oid relid, int t, int latest, int d, MemoryContext ctx,
					DpkCellMap *noisy, int *level)
{
	Oid			types[2] = {OIDOID, INT4OID};
	Datum		values[2] = {ObjectIdGetDatum(relid), Int32GetDatum(t)};
	MemoryContext old;

	dpk_store_exec("SELECT h.payload, r.level FROM dpkmeans_internal.histogram h "
			   "JOIN dpkmeans_internal.releases r ON r.relid = h.relid AND r.t = h.t "
			   "WHERE h.relid = $1::oid::regclass AND h.t = $2",
			   2, types, values, true, SPI_OK_SELECT);
	if (SPI_processed == 0 && t < latest)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the histogram of release %d of table \"%s\" was not kept",
						t, get_rel_name(relid)),
				 errdetail("Releases made before dpkmeans 0.7 keep only the latest histogram; "
						   "their centres and cost curves are kept."),
				 errhint("Read its centres with dp_centers(..., release => %d).", t)));
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("dpkmeans state is corrupt"),
				 errdetail("The histogram of release %d of \"%s\" is missing.",
						   t, get_rel_name(relid))));
	old = MemoryContextSwitchTo(ctx);
	dpk_cellmap_init(noisy, d);
	(void) dpk_store_merge_stored(noisy, dpk_store_col_nn(0, "payload"), +1);
	*level = DatumGetInt32(dpk_store_col_nn(0, "level"));
	MemoryContextSwitchTo(old);
}
