/*
 * slotread.h
 *		Plain float8 columns read in place from the heap tuple an
 *		executor slot holds, without deforming it.
 */
#ifndef DPK_SLOTREAD_H
#define DPK_SLOTREAD_H

#include "postgres.h"

#include "executor/tuptable.h"

/* Which tuple descriptor was last checked, and whether it qualifies. */
typedef struct DpkSlotFloat8s
{
	TupleDesc	desc;			/* the last slot descriptor looked at */
	bool		fixed;			/* its first d attributes are plain float8 */
	int			d;
} DpkSlotFloat8s;

void		dpk_pg_slot_float8s_init(DpkSlotFloat8s *sf, int d);
const double *dpk_pg_slot_float8s(DpkSlotFloat8s *sf, TupleTableSlot *slot);

#endif							/* DPK_SLOTREAD_H */
