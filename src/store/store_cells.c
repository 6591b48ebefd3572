/*
 * store_cells.c
 *		Cell maps as stored values (true state, deltas, noisy histograms):
 *		written straight into the bytea that is stored, read back in slices
 *		of the stored value rather than detoasted whole.
 *
 * A d = 1536 table's state and histogram are padded to every cell of its
 * grid, 50 MB each; a detoasted copy or a second serialised copy of either
 * was most of a release's memory (doc/decisions/036-highd-release-memory.md).
 */
#include "postgres.h"

#include "access/detoast.h"
#include "executor/spi.h"
#include "nodes/parsenodes.h"
#include "miscadmin.h"

#include "store.h"
#include "store_int.h"

/* Bytes of a stored cell map read per slice (whole entries, at least one). */
#define DPK_STORE_SLICE_BYTES (1 << 20)

/* A bytea of a cell map (see store.h). */
bytea *
dpk_store_map_bytea(const DpkCellMap *m, uint64 pad_to)
{
	size_t		len = dpk_cellmap_serialized_len(m, pad_to > 0, pad_to);
	bytea	   *b = palloc_extended(VARHDRSZ + len, MCXT_ALLOC_HUGE);

	SET_VARSIZE(b, VARHDRSZ + len);
	dpk_cellmap_serialize_to(m, pad_to > 0, pad_to, (uint8_t *) VARDATA(b));
	return b;
}

/* A bytea of a dense histogram (see store.h). */
bytea *
dpk_store_dense_bytea(const DpkDenseCells *h, bool padded)
{
	size_t		len = dpk_cellmap_dense_len(h, padded);
	bytea	   *b = palloc_extended(VARHDRSZ + len, MCXT_ALLOC_HUGE);

	SET_VARSIZE(b, VARHDRSZ + len);
	dpk_cellmap_dense_serialize_to(h, padded, (uint8_t *) VARDATA(b));
	return b;
}

/*
 * Run a writing statement with a large parameter (see store_int.h): a
 * generic plan keeps the parameters as such, where SPI's one-shot plan
 * would copy each into a constant before the executor copies it into the
 * new tuple.
 */
void
dpk_store_exec_large(const char *sql, int nargs, Oid *types, Datum *values, int expect)
{
	MemoryContext caller = CurrentMemoryContext;
	SPIPlanPtr	plan = SPI_prepare_cursor(sql, nargs, types, CURSOR_OPT_GENERIC_PLAN);
	int			rc;

	if (plan == NULL)
		elog(ERROR, "dpkmeans internal statement failed (%s): %s",
			 SPI_result_code_string(SPI_result), sql);
	rc = SPI_execute_plan(plan, values, NULL, false, 0);
	MemoryContextSwitchTo(caller);
	if (rc != expect)
		elog(ERROR, "dpkmeans internal statement failed (%s): %s",
			 SPI_result_code_string(rc), sql);
	SPI_freeplan(plan);
}

/* ERROR: a stored cell map cannot be read. */
static void
cells_corrupt(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("dpkmeans state is corrupt"),
			 errdetail("A stored cell map is malformed or has another dimension.")));
}

/* Merge a serialised cell map, or ERROR on corruption (see store.h). */
void
dpk_store_merge_bytea(DpkCellMap *m, bytea *b, int sign)
{
	if (!dpk_cellmap_merge_serialized(m, (uint8_t *) VARDATA_ANY(b),
									  VARSIZE_ANY_EXHDR(b), sign))
		cells_corrupt();
}

/*
 * Merge a stored cell map (see store.h).  An out-of-line uncompressed value
 * (the internal tables store them EXTERNAL) is read header first, then its
 * cells in slices of about DPK_STORE_SLICE_BYTES; its padding is never
 * fetched.  Any other value is detoasted whole, the copy freed after.
 */
size_t
dpk_store_merge_stored(DpkCellMap *m, Datum value, int sign)
{
	struct varlena *attr = (struct varlena *) DatumGetPointer(value);
	struct varatt_external ext;
	size_t		len,
				head,
				entry = (size_t) (2 + m->d) * 8,
				per;
	uint64		n,
				i;
	struct varlena *slice;

	if (VARATT_IS_EXTERNAL_ONDISK(attr))
		VARATT_EXTERNAL_GET_POINTER(ext, attr);
	if (!VARATT_IS_EXTERNAL_ONDISK(attr) || VARATT_EXTERNAL_IS_COMPRESSED(ext))
	{
		bytea	   *b = DatumGetByteaPP(value);

		len = VARSIZE_ANY_EXHDR(b);
		dpk_store_merge_bytea(m, b, sign);
		if ((Pointer) b != DatumGetPointer(value))
			pfree(b);
		return len;
	}
	len = toast_raw_datum_size(value) - VARHDRSZ;
	slice = detoast_attr_slice(attr, 0, (int32) Min(len, 32));
	if (!dpk_cellmap_serialized_header((uint8_t *) VARDATA_ANY(slice), VARSIZE_ANY_EXHDR(slice),
									   len, m->d, &head, &n))
		cells_corrupt();
	pfree(slice);
	dpk_cellmap_reserve(m, Max(m->n, n));
	per = Max(1, DPK_STORE_SLICE_BYTES / entry);
	for (i = 0; i < n; i += per)
	{
		uint64		cnt = Min(per, n - i);

		CHECK_FOR_INTERRUPTS();
		slice = detoast_attr_slice(attr, (int32) (head + i * entry), (int32) (cnt * entry));
		if (VARSIZE_ANY_EXHDR(slice) != cnt * entry)
			cells_corrupt();
		dpk_cellmap_merge_entries(m, (uint8_t *) VARDATA_ANY(slice), cnt, sign);
		pfree(slice);
	}
	return len;
}
