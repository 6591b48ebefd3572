/*
 * readers_box.c
 *		dp_box: the box a live table was attached with, for its readers
 *		(the cells of dp_histogram as rectangles, e.g. map polygons).
 *
 * The box is public configuration (it was declared, not measured); it is
 * shown only to those who may read the table's releases, like the rest of
 * its configuration.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/tuplestore.h"

#include "capture.h"
#include "readers.h"
#include "store.h"

/* A float8[] Datum from n doubles. */
static Datum
float8_array(const double *v, int n)
{
	Datum	   *elems = palloc(n * sizeof(Datum));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = Float8GetDatum(v[i]);
	return PointerGetDatum(construct_array(elems, n, FLOAT8OID, sizeof(float8),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * dp_box(tbl) -> (lower float8[], upper float8[]): the attached box; before
 * the first release too (it depends on no data).
 */
PG_FUNCTION_INFO_V1(dp_box);
Datum
dp_box(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = dpk_pg_table_arg(fcinfo);
	MemoryContext callerctx = CurrentMemoryContext;
	DpkTracked	tr;
	DpkOwnerSwitch sw;
	Datum		out[2];
	bool		nulls[2] = {false, false};

	InitMaterializedSRF(fcinfo, 0);
	dpk_reader_begin(relid, false, callerctx, &tr, &sw);
	dpk_store_end(&sw);
	out[0] = float8_array(tr.lower, tr.d);
	out[1] = float8_array(tr.upper, tr.d);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
	return (Datum) 0;
}
