/*
 * store_int.h
 *		The private part of the internal tables' module (store.h): helpers
 *		the store_*.c files share, valid between dpk_store_begin and _end.
 */
#ifndef DPK_STORE_INT_H
#define DPK_STORE_INT_H

#include "postgres.h"

/* Column `name` of row `row` of the last SPI result; ERROR when NULL. */
Datum		dpk_store_col_nn(uint64 row, const char *name);

/*
 * dpk_store_exec for a statement with a large parameter (a state or a
 * histogram): planned without folding the parameters into constants, which
 * copies each value once more (src/store/store_cells.c).
 */
void		dpk_store_exec_large(const char *sql, int nargs, Oid *types, Datum *values,
								 int expect);

/* A float8[] Datum from n doubles. */
Datum		dpk_store_float8_datum(const double *v, int n);

/* Whether centers and costs have an objective column (objects of 0.3 on). */
bool		dpk_store_has_objectives(void);

#endif
