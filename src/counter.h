/*
 * counter.h
 *		Per-cell counters and their continual noise over releases.
 *
 * A cell's counters are its count and its d in-cell coordinate sums (fixed
 * point, see grid.h).  The true values live in a sparse map; the noise added
 * at release t is the binary tree mechanism with the tree kept virtual
 * (DESIGN §4; paper 000 uses it as its continual counter): the sum, over the
 * dyadic intervals I of the decomposition of [1, t], of noise(cell, I), where
 * noise(cell, I) is drawn from a ChaCha20 stream keyed by the table's secret
 * key and identified by (level, cell, I).  The same node therefore always
 * carries the same noise, across releases, restarts and dump/restore.
 */
#ifndef DPK_COUNTER_H
#define DPK_COUNTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "noise.h"

/* A sparse map cell -> (count, sums[d]); open addressing on 64-bit cell ids. */
typedef struct DpkCellMap
{
	int			d;
	size_t		n;				/* occupied slots */
	size_t		cap;			/* power of two */
	uint64_t   *keys;			/* cell id + 1; 0 = empty slot */
	int64_t    *vals;			/* cap * (1 + d): count, then sums */
} DpkCellMap;

/* An empty map for d-dimensional cells. */
void		dpk_cellmap_init(DpkCellMap *m, int d);

/* Free a map's arrays. */
void		dpk_cellmap_free(DpkCellMap *m);

/* The counters of a cell, created zeroed if absent (1 + d values). */
int64_t    *dpk_cellmap_get(DpkCellMap *m, uint64_t cell);

/* The counters of a cell or NULL if absent. */
const int64_t *dpk_cellmap_find(const DpkCellMap *m, uint64_t cell);

/* Add sign * (1, rel[0..d-1]) to a cell: one point inserted (+1) or deleted (-1). */
void		dpk_cellmap_add_point(DpkCellMap *m, uint64_t cell, const int64_t *rel,
								  int sign);

/* Add every counter of src into dst (same d), times sign. */
void		dpk_cellmap_merge(DpkCellMap *dst, const DpkCellMap *src, int sign);

/* True when every counter of both maps agrees (cells at zero count as absent). */
bool		dpk_cellmap_equal(const DpkCellMap *a, const DpkCellMap *b);

/*
 * Serialised form: a 16-byte header (magic, d, number of cells) then, per
 * cell with a non-zero counter, its id and 1 + d counters, all little-endian
 * 64-bit.  Returns a dpk_alloc'd buffer and its length.
 */
uint8_t    *dpk_cellmap_serialize(const DpkCellMap *m, size_t *len);

/*
 * The padded form (format 2): a 32-byte header (magic "DPKCELL2", d, number
 * of cells n, number of padding entries) then the n cells as above, then
 * zero entries up to pad_to entries in all.  Stored state and deltas use it
 * so their size depends on a public bound (rows written, cells of the grid)
 * rather than on how many distinct cells the rows fall into, which anyone can
 * read off the internal tables' sizes in pg_class and the statistics views.
 */
uint8_t    *dpk_cellmap_serialize_padded(const DpkCellMap *m, uint64_t pad_to,
										 size_t *len);

/*
 * Add the counters of a serialised map (either form) into m, times sign.
 * Returns false on a malformed buffer or a different dimension (m is then
 * unchanged in part).
 */
bool		dpk_cellmap_merge_serialized(DpkCellMap *m, const uint8_t *buf, size_t len,
										 int sign);

/* Iterate: first call with *pos = 0; returns false at the end. */
bool		dpk_cellmap_next(const DpkCellMap *m, size_t *pos, uint64_t *cell,
							 const int64_t **vals);

/*
 * Tree nodes whose signed sum is the prefix [1, t]: node (j, i) covers
 * releases (i-1) 2^j + 1 .. i 2^j and enters with node_sign +1 or -1.  The
 * decomposition follows the non-adjacent form of t (signed binary digits, no
 * two adjacent non-zero), e.g. [1, 1023] = [1, 1024] - [1024, 1024]: at most
 * ceil((log2 t + 1) / 2) nodes instead of popcount(t), which removes the
 * binary tree's error peak at t = 2^k - 1.  Every node still lies in the
 * tree of height dpk_tree_height(t), so sensitivities are unchanged, and the
 * release is a fixed linear function of the final noisy node sums.
 * Returns the number of nodes.
 */
int			dpk_tree_decompose(uint32_t t, int *node_level, uint32_t *node_index,
							   int *node_sign);

/* Number of nodes dpk_tree_decompose uses for t (the NAF weight of t). */
int			dpk_tree_nodes(uint32_t t);

/* Number of tree levels an event touches with horizon T: ceil(log2 T) + 1. */
int			dpk_tree_height(uint32_t horizon);

/* Which noise a cell's d sums get in dpk_cell_noise. */
typedef enum DpkSumNoise
{
	DPK_SUMS_NONE = 0,			/* count only */
	DPK_SUMS_VECTOR				/* dpk_vector_noise, an l-infinity scale */
} DpkSumNoise;

/*
 * The continual noise of one cell at release t: out[0] gets the count noise
 * (discrete Laplace), out[1..d] the sum noise (one vector draw), each the
 * signed sum of one draw per node of the decomposition of t at the given
 * scales.  The stream is re-keyed per node.
 */
void		dpk_cell_noise(DpkStream *s, const uint8_t key[DPK_KEY_BYTES],
						   int level, uint64_t cell, uint32_t t, int d,
						   DpkScale count_scale, DpkScale sum_scale,
						   DpkSumNoise sums, int64_t *out);

#endif
