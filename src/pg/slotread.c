/*
 * slotread.c
 *		Plain float8 columns read in place from a slot's heap tuple (see
 *		slotread.h).
 */
#include "slotread.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "catalog/pg_type.h"

/* Nothing checked yet: the first slot's descriptor is. */
void
dpk_pg_slot_float8s_init(DpkSlotFloat8s *sf, int d)
{
	sf->desc = NULL;
	sf->fixed = false;
	sf->d = d;
}

/*
 * Whether the first d attributes of desc are float8 columns present in
 * every tuple's layout (none dropped), each 8 bytes aligned on 8: then in
 * a tuple without nulls attribute j + 1 starts 8 j bytes into its data.
 */
static bool
desc_fixed_float8s(TupleDesc desc, int d)
{
	int			j;

	if (desc == NULL || desc->natts < d)
		return false;
	for (j = 0; j < d; j++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, j);

		if (att->atttypid != FLOAT8OID || att->attisdropped || att->attlen != 8 ||
			att->attalign != TYPALIGN_DOUBLE)
			return false;
	}
	return true;
}

/*
 * The first d attribute values of the slot's tuple, in place: the same
 * doubles slot_getsomeattrs would give, read without deforming the tuple.
 * NULL (the caller deforms the slot) unless the slot holds a heap tuple
 * (of a buffer or its own) with no null and at least d attributes stored,
 * whose descriptor's first d attributes are plain float8.  The descriptor
 * is checked once for as long as the slots keep it.
 */
const double *
dpk_pg_slot_float8s(DpkSlotFloat8s *sf, TupleTableSlot *slot)
{
	HeapTuple	tuple;

	if (slot->tts_ops != &TTSOpsBufferHeapTuple && slot->tts_ops != &TTSOpsHeapTuple)
		return NULL;
	if (unlikely(slot->tts_tupleDescriptor != sf->desc))
	{
		sf->desc = slot->tts_tupleDescriptor;
		sf->fixed = desc_fixed_float8s(sf->desc, sf->d);
	}
	tuple = ((HeapTupleTableSlot *) slot)->tuple;
	if (!sf->fixed || tuple == NULL || HeapTupleHasNulls(tuple) ||
		HeapTupleHeaderGetNatts(tuple->t_data) < sf->d)
		return NULL;
	return (const double *) ((const char *) tuple->t_data + tuple->t_data->t_hoff);
}
