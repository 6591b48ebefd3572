/*
 * live_regions_int.h
 *		The private part of lifting by regions (live_regions.h): the node and
 *		map bookkeeping that a release (live_regions_release.c) shares with
 *		the state's folding and stored form (live_regions.c).
 */
#ifndef DPK_LIVE_REGIONS_INT_H
#define DPK_LIVE_REGIONS_INT_H

#include "live_regions.h"

/* The nonce level byte of region noise: no counted level or copy reaches it. */
#define DPK_REGION_LEVEL_BYTE 200

/* Steps a node of `level` spans. */
uint64_t dpk_regions_level_span(int arity, int level);

/* The top-level node (level h - 1) holding step `step`. */
uint32_t dpk_regions_top_block(int arity, int h, uint64_t step);

/* The map of release t, or NULL. */
const uint8_t *dpk_regions_find_map(const DpkRegions *rs, uint32_t t);

/* Add a map (taking `region`). */
void dpk_regions_add_map(DpkRegions *rs, uint32_t t, uint8_t *region);

/* Node (level, index), or NULL when not open. */
DpkRegionNode *dpk_regions_find_node(DpkRegions *rs, int level, uint32_t index);

/* Open node (level, index) keyed by map `map` (0: pending). */
DpkRegionNode *dpk_regions_open_node(DpkRegions *rs, int level, uint32_t index, uint32_t map);

/* Add copy 0's cells of `delta` (sign +1 or -1) to a node, keyed by `map`. */
void dpk_regions_node_add_cells(DpkRegions *rs, DpkRegionNode *nd, const uint8_t *map, const DpkCellMap *delta,
			   int sign);

/*
 * Fold the events of step t: copy 0's cells of `state` minus rs->prev, into
 * the node of every level holding step t; rs->prev becomes copy 0's cells
 * of state.  A node opens with the latest map (pending at step 1), except
 * that with signed digits a node below the top level, past the first
 * top-level node, takes the map of the top-level node holding it (opened
 * first, top down): see live_regions.h.
 */
void dpk_regions_fold_step(DpkRegions *rs, uint32_t t, const DpkCellMap *state);

/* Drop the nodes no release after t uses and the maps no node uses. */
void dpk_regions_prune(DpkRegions *rs, uint32_t t);

#endif
