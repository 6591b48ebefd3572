/*
 * live_regions.h
 *		Research variant of a projected live table's lifting, compiled only
 *		into bench_highd_live (never into the extension): lifting sums keyed
 *		by public regions, as doc/design.md ("Not built: lifting sums keyed
 *		by public regions") sketches it.
 *
 * Counts stay per projected cell (the table's own state and noise).  The
 * lifting sums are kept per (tree node, region) instead of per cell: a
 * node's region map is fixed when the node receives its first event, from
 * the latest release before it (every cell to the projected centre of that
 * release nearest its middle).  An event adds its lifting vector to one
 * region of each of the h nodes holding its step, so the sensitivity is
 * the table's.
 *
 * A node open before any release keeps its sums per cell until its first
 * publication, when its map becomes that release's; a node published
 * before it opens (a negative digit's) takes the map of that release too.
 * Either way a node's map is fixed before any of its noise is published
 * and never changes.  Each region also counts its rows, as one more
 * coordinate of its sum vector, a row adding U/2 there: inside the cube
 * noise's l-infinity bound, U/2 more on an l1 bound (sum_l1).
 *
 * Release t: the projected grid's k-means on the noisy cell counts (as the
 * table's release), against the previous release's projected centres
 * refined by Lloyd on the same coreset (the lower coreset cost wins);
 * every cell to its nearest projected centre; each region of each node of
 * the signed decomposition of t to the centre holding most of its cells'
 * noisy count; centre c's noisy sum and count are the signed sums of its
 * regions' true values and node noise, the centre their ratio.  Pure
 * tables, one copy, the K centres only (no copies, no guard, no cost
 * estimates).
 */
#ifndef LIVE_REGIONS_H
#define LIVE_REGIONS_H

#include <stdint.h>

#include "cellmap.h"
#include "live_core.h"
#include "noise.h"
#include "projection.h"

typedef struct LiveRegionNode
{
	int			map;			/* -1: identity, else an index of maps */
	DpkCellMap	sums;			/* region -> (count, d lifting sums) */
} LiveRegionNode;

typedef struct LiveRegions
{
	int			d,
				k,
				dhat,
				m,				/* cells a side of the counted level */
				arity,
				h;				/* levels an event touches */
	uint64_t	ncells;
	uint32_t	step;			/* the step events are counted at */
	int			nmaps,
				cap_maps;		/* horizon + 1: a release a step at most */
	uint8_t   **maps;			/* ncells bytes each: cell -> region, one
								 * per release */
	int			cur_map;		/* the map of nodes opening from now on */
	double	   *prev_pc;		/* the latest release's projected centres
								 * (k * dhat), NULL before the first */
	uint32_t   *nnodes;			/* per level */
	LiveRegionNode **nodes;		/* per level, nnodes[level] slots (NULL:
								 * not open) */
} LiveRegions;

/* An empty state for table cfg (pure, one copy). */
void		live_regions_init(LiveRegions *lr, const DpkLiveConfig *cfg);
void		live_regions_free(LiveRegions *lr);

/*
 * Count one event at lr->step: the lifting contribution q (d values,
 * dpk_lift_quantize) of a point in projected cell `cell`, sign +1 or -1.
 */
void		live_regions_add(LiveRegions *lr, uint64_t cell, const int64_t *q, int sign);

/*
 * Release t: the k centres (box coordinates, k * d) from the table's noisy
 * cell counts `count` (unreachable cells zero; threshold_cells of them
 * reachable, 0: all) and the regions' sums, counts and node noise; then
 * the release's map becomes that of nodes opening from now on.  *rows
 * gets the true rows the signed nodes hold (the rows in the table at t
 * when the layout is right: a check for the benchmark, never published).
 * Returns the coreset size.
 */
int			live_regions_release(LiveRegions *lr, const DpkLiveConfig *cfg,
								 const DpkBox *box, const DpkProjection *proj,
								 const uint8_t key[DPK_KEY_BYTES], uint32_t t,
								 const double *count, double threshold_cells,
								 uint64_t seed, double *centers, int64_t *rows);

#endif
