/*
 * capture_cache.c
 *		The cheap path of the capture triggers: per-backend caches and the
 *		direct insertion of a statement's delta.
 *
 * A writing statement used to parse its trigger's arguments, resolve the
 * tracked columns, read pg_extension, switch to the extension's owner and
 * parse, plan and run an INSERT through SPI; for a single-row INSERT that was
 * most of the capture's cost (doc/decisions/022-write-capture.md).  Here:
 *	- the shape of an attached table (parsed arguments, resolved columns,
 *	  point reader, projection buffers) is built once per backend and
 *	  trigger, and forgotten on any relcache invalidation of the table
 *	  (ALTER TABLE, trigger changes, detach);
 *	- the delta is one pre-formed heap tuple inserted into
 *	  dpkmeans_internal.delta with simple_heap_insert (plus any index the
 *	  table has), the table's OID and layout cached until its relcache entry
 *	  is invalidated.  The insertion is WAL-logged and transactional like the
 *	  SQL INSERT it replaces: an aborted writer leaves nothing, a committed
 *	  one survives a crash, and writers take only RowExclusiveLock, so they
 *	  never block each other.  A delta table of another layout (objects of
 *	  version 0.1 or 0.2 not yet updated) takes the SPI path as before.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "capture_cache.h"
#include "store.h"

/* A cached shape, keyed by the capture trigger's OID. */
typedef struct ShapeEntry
{
	Oid			tgoid;			/* hash key */
	Oid			relid;			/* the table the trigger is on */
	bool		valid;			/* false once the table's relcache entry changed */
	MemoryContext ctx;			/* holds the shape; NULL before the first build */
	DpkShape	shape;
} ShapeEntry;

static HTAB *shape_cache = NULL;

/* The delta table as the direct path last saw it (InvalidOid: look it up). */
static Oid	delta_oid = InvalidOid;
static Oid	delta_checked = InvalidOid; /* the table delta_direct was found for */
static bool delta_direct = false;	/* its layout allows the direct path */

static bool callback_registered = false;

/*
 * Relcache invalidation: mark the shapes of the table stale (never free them
 * here: a capture may be using one while it takes a lock) and forget the
 * delta table when it is the one invalidated.
 */
static void
capture_relcache_callback(Datum arg, Oid relid)
{
	if (shape_cache != NULL)
	{
		HASH_SEQ_STATUS st;
		ShapeEntry *e;

		hash_seq_init(&st, shape_cache);
		while ((e = hash_seq_search(&st)) != NULL)
			if (relid == InvalidOid || e->relid == relid)
				e->valid = false;
	}
	if (relid == InvalidOid || relid == delta_oid || relid == delta_checked)
		delta_oid = delta_checked = InvalidOid;
}

/* Register the callback once per backend. */
static void
capture_cache_register(void)
{
	if (!callback_registered)
	{
		CacheRegisterRelcacheCallback(capture_relcache_callback, (Datum) 0);
		callback_registered = true;
	}
}

/*
 * Free the stale shapes of other triggers (a detached table's, a dropped
 * trigger's), so attach/detach cycles in a long session don't pile them up.
 * Called only when a capture starts: captures never nest (they run no user
 * code), so no stale shape is in use then.
 */
static void
shape_cache_sweep(Oid keep)
{
	HASH_SEQ_STATUS st;
	ShapeEntry *e;

	hash_seq_init(&st, shape_cache);
	while ((e = hash_seq_search(&st)) != NULL)
		if (!e->valid && e->tgoid != keep)
		{
			if (e->ctx != NULL)
				MemoryContextDelete(e->ctx);
			/* removing the element just returned is allowed during a scan */
			hash_search(shape_cache, &e->tgoid, HASH_REMOVE, NULL);
		}
}

/* The shape of a capture trigger's table, cached (see capture_cache.h). */
DpkShape *
dpk_shape_cache_get(TriggerData *td, void (*build) (DpkShape *shape, TriggerData *td))
{
	Oid			tgoid = td->tg_trigger->tgoid;
	ShapeEntry *e;
	bool		found;
	MemoryContext old;

	capture_cache_register();
	if (shape_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(ShapeEntry);
		ctl.hcxt = CacheMemoryContext;
		shape_cache = hash_create("dpkmeans shapes", 16, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	shape_cache_sweep(tgoid);
	e = hash_search(shape_cache, &tgoid, HASH_ENTER, &found);
	if (!found)
	{
		e->ctx = NULL;
		e->valid = false;
	}
	if (!e->valid || e->relid != RelationGetRelid(td->tg_relation))
	{
		/* Stale or never built: build anew (an ERROR leaves it invalid). */
		e->valid = false;
		if (e->ctx != NULL)
			MemoryContextDelete(e->ctx);
		e->ctx = AllocSetContextCreate(CacheMemoryContext, "dpkmeans shape",
									   ALLOCSET_SMALL_SIZES);
		e->relid = RelationGetRelid(td->tg_relation);
		old = MemoryContextSwitchTo(e->ctx);
		build(&e->shape, td);
		MemoryContextSwitchTo(old);
		e->valid = true;
	}
	/* Per use: maps grow in the caller's context; no buffered rows. */
	e->shape.mapctx = CurrentMemoryContext;
	e->shape.nbuf = 0;
	return &e->shape;
}

/*
 * Whether the delta table's layout allows a direct insertion: a plain table
 * whose live columns are exactly relid (regclass) and payload (bytea), no
 * trigger, check constraint or row security, and only plain column indexes
 * (what an INSERT would do besides the heap insertion is then just their
 * index insertion).
 */
static bool
delta_layout_direct(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	bool		has_relid = false,
				has_payload = false;
	List	   *indexes;
	ListCell   *lc;
	int			i;

	if (rel->rd_rel->relkind != RELKIND_RELATION || rel->trigdesc != NULL ||
		rel->rd_rel->relrowsecurity ||
		(desc->constr != NULL && desc->constr->num_check > 0))
		return false;
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, i);

		if (a->attisdropped)
			continue;
		if (strcmp(NameStr(a->attname), "relid") == 0 && a->atttypid == REGCLASSOID)
			has_relid = true;
		else if (strcmp(NameStr(a->attname), "payload") == 0 && a->atttypid == BYTEAOID)
			has_payload = true;
		else
			return false;
	}
	if (!has_relid || !has_payload)
		return false;
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Relation	idx = index_open(lfirst_oid(lc), AccessShareLock);
		Form_pg_index ix = idx->rd_index;
		bool		plain = ix->indimmediate && !ix->indisexclusion &&
			RelationGetIndexExpressions(idx) == NIL &&
			RelationGetIndexPredicate(idx) == NIL;

		index_close(idx, AccessShareLock);
		if (!plain)
			return false;
	}
	list_free(indexes);
	return true;
}

/* Insert the index entries of a freshly inserted delta tuple. */
static void
delta_insert_indexes(Relation rel, HeapTuple tup)
{
	List	   *indexes = RelationGetIndexList(rel);
	TupleTableSlot *slot;
	ListCell   *lc;

	if (indexes == NIL)
		return;
	slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
	ExecStoreHeapTuple(tup, slot, false);
	foreach(lc, indexes)
	{
		Relation	idx = index_open(lfirst_oid(lc), RowExclusiveLock);
		IndexInfo  *ii = BuildIndexInfo(idx);
		Datum		values[INDEX_MAX_KEYS];
		bool		isnull[INDEX_MAX_KEYS];

		if (ii->ii_ReadyForInserts)
		{
			/* plain column indexes only (delta_layout_direct): no EState needed */
			FormIndexDatum(ii, slot, NULL, values, isnull);
			index_insert(idx, values, isnull, &tup->t_self, rel,
						 idx->rd_index->indisunique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO,
						 false, ii);
		}
		index_close(idx, RowExclusiveLock);
	}
	ExecDropSingleTupleTableSlot(slot);
	list_free(indexes);
}

/*
 * Append one statement's delta by a direct heap insertion; false (nothing
 * done) when the installed delta table is missing or of another layout.
 */
static bool
delta_append_direct(Oid relid, const DpkCellMap *map, uint64 pad_to)
{
	Relation	rel;
	TupleDesc	desc;
	Datum	   *values;
	bool	   *nulls;
	HeapTuple	tup;
	Oid			oid;
	int			i;

	capture_cache_register();
	oid = delta_oid;
	if (!OidIsValid(oid))
	{
		Oid			nsp = get_namespace_oid("dpkmeans_internal", true);

		if (!OidIsValid(nsp))
			return false;
		oid = get_relname_relid("delta", nsp);
		if (!OidIsValid(oid))
			return false;
	}
	rel = table_open(oid, RowExclusiveLock);
	/*
	 * Check the layout once per relcache generation of the table (the lock
	 * just taken may have processed an invalidation of it); under the lock
	 * no ALTER TABLE or CREATE INDEX can change it.
	 */
	if (delta_checked != oid)
	{
		delta_direct = delta_layout_direct(rel);
		delta_checked = oid;
	}
	delta_oid = oid;
	if (!delta_direct)
	{
		table_close(rel, NoLock);
		return false;
	}
	desc = RelationGetDescr(rel);
	values = palloc0(desc->natts * sizeof(Datum));
	nulls = palloc(desc->natts * sizeof(bool));
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, i);

		nulls[i] = true;
		if (a->attisdropped)
			continue;
		if (strcmp(NameStr(a->attname), "relid") == 0)
			values[i] = ObjectIdGetDatum(relid);
		else
			values[i] = PointerGetDatum(dpk_store_map_bytea(map, pad_to));
		nulls[i] = false;
	}
	tup = heap_form_tuple(desc, values, nulls);
	/* toasts the padded payload when it is large, like an INSERT */
	simple_heap_insert(rel, tup);
	delta_insert_indexes(rel, tup);
	table_close(rel, NoLock);
	/* later commands of the transaction (a release) see it, as after SPI */
	CommandCounterIncrement();
	return true;
}

/* Append one statement's change of `rows` rows (see capture_cache.h). */
void
dpk_capture_append(Oid relid, const DpkCellMap *map, const DpkLiveConfig *cfg,
				   uint64 rows)
{
	DpkOwnerSwitch sw;

	if (delta_append_direct(relid, map, dpk_pad_cells(cfg, rows)))
		return;
	dpk_store_begin(&sw);
	dpk_store_append_delta(relid, map, dpk_store_is_v01() ? 0 : dpk_pad_cells(cfg, rows));
	dpk_store_end(&sw);
}
