/*
 * capture_cache.h
 *		The cheap path of the capture triggers (see capture_cache.c).
 */
#ifndef DPK_CAPTURE_CACHE_H
#define DPK_CAPTURE_CACHE_H

#include "postgres.h"

#include "commands/trigger.h"

#include "capture.h"

/*
 * The shape of the table a capture trigger fires on, built by `build` on
 * first use and again after any relcache invalidation of the table; valid
 * until the next call for the same trigger.  Cell maps fed by it grow in the
 * caller's current memory context.
 */
DpkShape   *dpk_shape_cache_get(TriggerData *td,
								void (*build) (DpkShape *shape, TriggerData *td));

/*
 * Append one statement's change of `rows` rows to the pending deltas, padded
 * for cfg: a direct heap insertion when the delta table has the layout of
 * version 0.3, else through SPI as the extension's owner.
 */
void		dpk_capture_append(Oid relid, const DpkCellMap *map,
							   const DpkLiveConfig *cfg, uint64 rows);

#endif
