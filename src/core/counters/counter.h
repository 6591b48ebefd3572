/*
 * counter.h
 *		The continual noise of per-cell counters over releases.
 *
 * A cell's counters are its count and its d in-cell coordinate sums (fixed
 * point, see grid.h).  The true values live in a sparse map (cellmap.h); the
 * noise added at release t is the tree mechanism with the tree kept virtual
 * (doc/design.md, section "Continual counters"; "Differential Privacy for
 * Clustering Under Continual Observation" uses the binary one as its
 * continual counter): a fixed combination, over the intervals I of the
 * tree's decomposition of [1, t], of noise(cell, I), where noise(cell, I)
 * is drawn from a ChaCha20 stream keyed by the table's secret key and
 * identified by (level, cell, tree arity, I).  The same node therefore
 * always carries the same noise, across releases, restarts and
 * dump/restore.  This file has the binary decompositions; the k-ary trees
 * of new pure tables are in tree_estimator.h.
 */
#ifndef DPK_COUNTER_H
#define DPK_COUNTER_H

#include <stdint.h>

#include "dgauss.h"
#include "noise.h"

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

/*
 * The plain binary decomposition of [1, t]: one node per 1 bit of t, every
 * node inside [1, t] (popcount(t) nodes, all with sign +1).  The Gaussian
 * counters use it: a node's noise is then first published once its interval
 * is complete, so no later event falls into a node already seen, and the
 * tree is an adaptive composition of Gaussian mechanisms (zcdp.h).
 */
int			dpk_tree_decompose_binary(uint32_t t, int *node_level, uint32_t *node_index);

/* Number of tree levels an event touches with horizon T: ceil(log2 T) + 1. */
int			dpk_tree_height(uint32_t horizon);

/* Which noise a cell's d sums get in dpk_cell_noise. */
typedef enum DpkSumNoise
{
	DPK_SUMS_NONE = 0,			/* count only */
	DPK_SUMS_VECTOR,			/* dpk_vector_noise, an l-infinity scale */
	DPK_SUMS_COORDS				/* one discrete Laplace per coordinate at the
								 * scale, an l1 scale (sums whose per-event
								 * change has a small l1 norm, live_core.h
								 * sum_l1) */
} DpkSumNoise;

/* The key of a cell's noise: what its stream is keyed and identified by. */
typedef struct DpkCellKey
{
	const uint8_t *key;			/* the table's secret key, DPK_KEY_BYTES */
	int			level;			/* the cell's grid level (nonce byte) */
	uint64_t	cell;			/* the cell's index at that level */
} DpkCellKey;

/* One node of a counter tree and the sign it enters the release with. */
typedef struct DpkTreeNode
{
	int			arity;			/* the tree's arity; 2 = the binary tree */
	int			level;			/* the node's level, 0 = leaves */
	uint32_t	index;			/* the node's 1-based index on its level */
	int			sign;			/* factor of its draws in the release */
} DpkTreeNode;

/* The discrete Laplace laws of a cell's counters (a pure table). */
typedef struct DpkCellScales
{
	int			d;				/* number of sums after the count */
	DpkScale	count;			/* scale of the count */
	DpkScale	sum;			/* scale of each sum draw */
	DpkSumNoise sums;			/* which noise the sums get */
} DpkCellScales;

/* The discrete Gaussian laws of a cell's counters (an (epsilon, delta) table). */
typedef struct DpkCellVars
{
	int			d;				/* number of sums after the count */
	DpkGaussScale count;		/* variance sigma^2 of the count */
	DpkGaussScale sum;			/* variance of each sum coordinate */
	DpkSumNoise sums;			/* which noise the sums get */
} DpkCellVars;

/*
 * One node's noise of one cell, times node->sign, added to out[0] (count,
 * discrete Laplace) and out[1..d] (sums, one vector draw when sc->sums is
 * DPK_SUMS_VECTOR).  The stream is re-keyed by (level, cell, tree arity,
 * node), so the node carries the same noise at every release that uses it;
 * arity 2 is the binary tree (tree_estimator.h for arities above 2).
 */
void		dpk_node_noise(DpkStream *s, const DpkCellKey *ck, const DpkTreeNode *node,
						   const DpkCellScales *sc, int64_t *out);

/*
 * The continual noise of one cell at release t: out[0] gets the count noise
 * (discrete Laplace), out[1..d] the sum noise (one vector draw), each the
 * signed sum of one draw per node of the decomposition of t at the scales
 * sc.  The stream is re-keyed per node.
 */
void		dpk_cell_noise(DpkStream *s, const DpkCellKey *ck, uint32_t t,
						   const DpkCellScales *sc, int64_t *out);

/*
 * The same for a Gaussian table: the nodes of dpk_tree_decompose_binary,
 * count noise N_Z(0, vars->count) and d independent N_Z(0, vars->sum) on
 * the sums per node (the nonces are those of dpk_cell_noise).
 */
void		dpk_cell_noise_gauss(DpkStream *s, const DpkCellKey *ck, uint32_t t,
								 const DpkCellVars *vars, int64_t *out);

/*
 * The draws of one node (node_level, node_index) of the binary tree of one
 * cell of a Gaussian table, as dpk_cell_noise_gauss draws them: out[0] its
 * count noise, out[1..d] its sums' noise (set, not added).  Any complete
 * node's draw, read by a release that may read it (counters/
 * tree_estimator.h, condition (*)), keeps the tree's privacy.
 */
void		dpk_node_noise_gauss(DpkStream *s, const DpkCellKey *ck, int node_level,
								 uint32_t node_index, const DpkCellVars *vars, int64_t *out);

#endif
