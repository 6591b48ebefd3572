/*
 * live_regions.h
 *		Lifting sums keyed by public regions: the release of a projected live
 *		table whose lifted means would drown in per-cell sum noise
 *		(doc/design.md, "Lifting sums keyed by public regions").
 *
 * Counts stay per projected cell (the table's state and noise).  The
 * lifting sums are kept per (tree node, region) instead of per cell, so a
 * centre is lifted from one noisy sum per node, as the one-shot lifts it
 * from one, instead of from every cell it covers.  A region is a centre of
 * an earlier release: a node's map (cell -> region) is fixed when the node
 * opens, at the first step it holds, from the latest release before it; a
 * node holding step 1 (before any release) takes the map of the release
 * that completes it.  An event adds its lifting vector to one region of
 * each of the h nodes holding its step, so the sensitivity is the table's;
 * each region also counts its rows as one more coordinate of its sum
 * vector (U / 2 a row: inside the cube noise's l-infinity bound, U / 2 more
 * on an l1 bound).
 *
 * Which nodes a release sums (dpk_regions_nodes).  Within the first node of
 * the top level h - 1 (its first span_{h-1} steps) release t sums the
 * complete nodes of [1, t] (dpk_regions_decompose): those nodes each took
 * their own map, so a node is published only once all of its rows are in
 * it.  Past it, a table of format 2 (signed_digits) sums the signed digits
 * of t, as its counts do (dpk_tree_signed_decompose): the complete top-level
 * nodes before t, then the digits inside the top-level node holding t,
 * whose positive nodes may reach past t and whose negative ones lie past t.
 * Every node below the top level there is keyed by that top-level node's
 * map, fixed when it opens (the release before its first step), so every
 * node reaching past t shares one map and one region -> centre owner, and
 * the steps past t cancel exactly: an event at step s > t moves nodes whose
 * signs sum to zero, all in the same region of the same centre.  Nodes that
 * have not opened yet (all their steps after t) hold no rows; their noise is
 * drawn as for any node.  Tables of format 1 sum the complete nodes at every
 * release.
 *
 * The true part of the state is folded at each release from the table's
 * cumulative cells (copy 0): the events of step t are the change since
 * release t - 1, whatever captured them (triggers, the WAL, shards).
 * Plain C, no PostgreSQL headers.
 */
#ifndef DPK_LIVE_REGIONS_H
#define DPK_LIVE_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cellmap.h"
#include "live_core.h"
#include "noise.h"
#include "projection.h"

/*
 * The switch (public parameters only): a table lifts by regions when a
 * cell's lifting-sum noise at a typical release (dpk_live_level_sum_sd)
 * is at least this.  Measured on mixtures and real data (doc/decisions/015-lift-by-regions.md): regions win from 195 up, lose
 * at 135 and below; again with the signed digits and the pieces' partition
 * ("The pieces' partition in the original space"): four of five insert
 * streams between 73 and 137 lose by regions.
 */
#define DPK_LIVE_REGIONS_SUM_SD 150.0

/*
 * Tables with deletions (whose sum noise counts the factor 2 of deletions)
 * switch on the norm of a cell's sum noise vector instead,
 * dpk_live_level_sum_sd times sqrt(d): a deleted row is keyed by the map
 * of its deletion's node, not its insertion's, which costs where the cells'
 * noise is small against the clusters.  Measured with the signed digits on
 * sliding windows of 100 000 rows (doc/decisions/015-lift-by-regions.md): regions lose at 956 and 1252 (d = 32), win at 1777,
 * 2240, 3097 and 3240 (d = 48 to 128).
 */
#define DPK_LIVE_REGIONS_DELETE_SUM_NORM 1500.0

/* One tree node's sums. */
typedef struct DpkRegionNode
{
	int			level;
	uint32_t	index;			/* 1-based: steps (index - 1) span + 1 ..
								 * index span */
	uint32_t	map;			/* the release whose map keys the sums; 0:
								 * pending, a node holding step 1 before its
								 * first publication (its sums are then the
								 * table's cumulative cells) */
	DpkCellMap	sums;			/* region -> count, d lifting sums */
} DpkRegionNode;

/* One release's map: every cell of copy 0 to its nearest centre. */
typedef struct DpkRegionMap
{
	uint32_t	t;
	uint8_t    *region;			/* ncells bytes */
} DpkRegionMap;

typedef struct DpkRegions
{
	int			d,
				k,
				dhat,
				m,				/* cells a side of the counted level */
				arity,
				h;				/* levels an event touches */
	uint64_t	ncells;			/* cells of copy 0 */
	uint32_t	t;				/* the last release folded, 0: none */
	double	   *pc;				/* release t's K projected centres (k *
								 * dhat), NULL before the first */
	int			nmaps,
				cap_maps;
	DpkRegionMap *maps;			/* the latest release's and every map a
								 * kept node uses */
	int			nnodes,
				cap_nodes;
	DpkRegionNode *nodes;
	uint32_t   *pruned_below;	/* per level: nodes of lower index dropped,
								 * no later release uses them */
	bool		signed_digits;	/* format 2: past the first top-level node,
								 * releases sum the signed digits */
	DpkCellMap	prev;			/* copy 0's cumulative cells at release t */
	/* release t's K centres by piece, not stored (see dpk_regions_release) */
	int			part_nmaps;		/* distinct maps of its summed nodes */
	uint32_t   *part_map;		/* part_nmaps: each map's release */
	int		   *part_owner;		/* part_nmaps * k: each (map, region)'s centre */
	bool		part_space;		/* from the original-space partition */
} DpkRegions;

/*
 * Whether a configuration can lift by regions: pure, projected, one copy,
 * a k-ary tree (arity >= 3), k <= 255.
 */
bool		dpk_regions_supported(const DpkLiveConfig *cfg);

/*
 * Whether a new table lifts by regions: the switches above (insert-only
 * tables, tables with deletions), on tables whose counted level (chosen)
 * is above 0.
 */
bool		dpk_live_use_regions(const DpkLiveConfig *cfg);

/*
 * The configuration whose sum noise the regions' sum vectors get: the
 * table's, with the count coordinate's U / 2 added to an l1 bound.
 */
void		dpk_regions_sum_config(const DpkLiveConfig *cfg, DpkLiveConfig *wide);

/* An empty state for cfg (dpk_regions_supported), format 2 (signed digits). */
void		dpk_regions_init(DpkRegions *rs, const DpkLiveConfig *cfg);
void		dpk_regions_free(DpkRegions *rs);

/*
 * The state as bytes (dpk_alloc'd) and back; false on malformed bytes.  The
 * size depends on public values only: every node's regions padded to k,
 * rs->prev to prev_pad cells (dpk_pad_cells of the table's rows, as its
 * stored state).  Bytes of format 1 (complete nodes only, stored before
 * format 2) read back as that format.
 */
uint8_t    *dpk_regions_serialize(const DpkRegions *rs, uint64_t prev_pad, size_t *len);
bool		dpk_regions_deserialize(DpkRegions *rs, const DpkLiveConfig *cfg,
									const uint8_t *buf, size_t len);

/* The table a release by regions is of: fixed from one release to the next. */
typedef struct DpkRegionsTable
{
	const DpkLiveConfig *cfg;	/* the table's configuration */
	const DpkBox *box;			/* its box */
	const DpkProjection *proj;	/* copy 0's projection */
	const uint8_t *key;			/* the table's secret key, DPK_KEY_BYTES */
} DpkRegionsTable;

/* What release t by regions reads beyond the table. */
typedef struct DpkRegionsInput
{
	uint32_t	t;				/* the release, rs->t + 1 */
	const DpkCellMap *state;	/* the table's cumulative cells at t */
	const double *count;		/* copy 0's noisy cell counts */
	double		threshold_cells;	/* reachable cells of count */
	double		sumnorm;		/* the norm counter's noisy value */
	uint64_t	seed;			/* seed of the post-processing k-means */
} DpkRegionsInput;

/* Where release t by regions writes. */
typedef struct DpkRegionsOut
{
	DpkLiveRelease *rel;		/* the release: centres, sizes, costs of every k' */
	double	   *sum;			/* ncells * d histogram sums, or NULL */
	int64_t    *rows;			/* the true rows the summed nodes hold (a check) */
} DpkRegionsOut;

/*
 * Release t (= rs->t + 1) of a table lifting by regions: fold the events
 * of step t (copy 0's cells of `state`, the table's cumulative state, minus
 * rs->prev), then for every k' <= k: the projected grid's k-means on the
 * noisy cell counts `count` (copy 0, unreachable cells zero, threshold_cells
 * of them reachable), for k' = k against release t - 1's projected centres
 * refined by Lloyd (the lower coreset cost wins); every region of every
 * node of t's decomposition (dpk_regions_nodes, signed) to the centre holding
 * most of its cells' noisy count.  The nodes' regions gathered by map are
 * the release's pieces (a piece: one region of one map, its noisy sum
 * vector summed over the nodes that map keys); a second partition of the
 * pieces, k-means of their lifted means in the original space, replaces
 * the projected one where its private gain, charged its noise twice, is
 * higher (post-processing of the pieces' noisy sums).  Centre c's noisy
 * sum is the sum of its pieces' true values and node noise, its size the
 * regions' count coordinate and the cells' noisy counts of the same rows
 * weighted by their inverse variances; the cost estimate from the norm
 * counter (sumnorm) and those sums; the guard (dpk_live_uses_guard).
 * rs->part_* record the k-block's owners of the pieces (for tests).
 * Nodes no later release uses are dropped.  sum, when not NULL (ncells * d),
 * gets each cell's noisy count times its k-centre's lifted mean (the
 * histogram's sums, post-processing).  *rows gets the true rows the summed
 * nodes hold, the table's rows when the state is sound (a check, never to
 * be published).  Fails (dpk_fail) on a state that is not at t - 1.
 */
void		dpk_regions_release(DpkRegions *rs, const DpkRegionsTable *tbl,
								const DpkRegionsInput *in, const DpkRegionsOut *out);

/*
 * The complete nodes of [1, t]: t's base-arity digits (all signs +1, every
 * node ends at or before t).  A node reaching past t may be summed only
 * where every node reaching past t shares its map (dpk_regions_nodes);
 * with maps that differ between nodes a centre's sum would not telescope
 * (doc/privacy.md, "Lifting sums keyed by regions").  Returns the number
 * of nodes (at most DPK_TREE_MAX_SIGNED).
 */
int			dpk_regions_decompose(int arity, uint32_t t, int *node_level,
								  uint32_t *node_index);

/*
 * The nodes release t of a table with h levels sums, with their signs (see
 * the top of this file): dpk_regions_decompose (signs +1) while t is within
 * the first top-level node or without signed_digits, else the signed
 * digits of t (dpk_tree_signed_decompose).  Returns the number of nodes.
 */
int			dpk_regions_nodes(int arity, int h, bool signed_digits, uint32_t t,
							  int *node_level, uint32_t *node_index, int *node_sign);

/*
 * Whether some release after t can use node (level, index) of a table with
 * this arity, h levels and format (conservative: true for every node it
 * may use).
 */
bool		dpk_regions_node_live(int arity, int h, bool signed_digits, int level,
								  uint32_t index, uint32_t t);

#endif
