/*
 * share_tree.h
 *		A pure-epsilon continual counter on a tree whose nodes take unequal
 *		shares of the budget: per level, and per top-level node.
 *
 * The tree is clipped at the horizon T: level j's nodes span span[j]
 * releases (span[0] = 1, each span a multiple of the one below), node
 * (j, i) covering releases (i-1) span[j] + 1 .. min(i span[j], T); the top
 * level's nodes are the tree's "blocks".  An event lies in one node per
 * level.  Node v gets the integer share s_v of DPK_SHARE_DEN, and the
 * shares of the nodes holding any one release sum to DPK_SHARE_DEN
 * exactly: top-level node b takes its own share, the levels under it split
 * the rest in fixed proportions.  With a counter budget eps and an event
 * moving each of its nodes by at most Delta, node v's noise is discrete
 * Laplace of scale Delta DPK_SHARE_DEN / (s_v eps) (rounded up), so the
 * nodes holding any position spend exactly eps (the proof of doc/privacy.md,
 * "Signed tree decomposition and adaptive writes", with one scale per node:
 * doc/decisions/040-share-tree-counter.md).
 *
 * Release t publishes the true prefix plus sum_v (num_v / den) eta_v over
 * a node family F(t), with the exact-integer weights of the weighted least
 * squares (node variance proportional to (DPK_SHARE_DEN / s_v)^2) repaired
 * so that, for every position i <= T,
 *
 *	   sum_{v in F(t), i in v} num_v = den 1[i <= t]						(*)
 *
 * exactly in integers: every event carries total weight exactly 1 whether
 * or not its nodes are complete, so the release is the true prefix plus a
 * combination of draws independent of the data (tree_estimator.h, the
 * same identity with equal shares).  F(t) is every node of the clipped
 * tree (small horizons) or the local family: every block, and at each
 * lower level the children of the nodes holding releases t and t + 1.
 *
 * The spans and shares are a function of the horizon only (public): a
 * table of five configurations found by search at T0 = 16, 64, 128, 256
 * and 1024 (doc/decisions/040-share-tree-counter.md,
 * 066-share-tree-early-releases.md), each serving a range of horizons
 * with its spans scaled to T (same number of blocks, same shares).
 * dpk_share_tree_beats_kary says whether that beats the k-ary
 * least-squares counter at T (it does at every horizon from 9 to 1024 but
 * 560-569 and 603-609, record 066).
 *
 * Noise of node (j, i) of one cell is drawn from the table's key by
 * (grid level, cell, 0x60 | j, i): the same draw at every release.
 *
 * Plain C, no PostgreSQL headers.  Pure low-d live tables whose
 * tracked.counter is 'share_tree' count with it (live_noise.c; doc/
 * decisions/053-share-tree-in-tables.md).
 */
#ifndef DPK_SHARE_TREE_H
#define DPK_SHARE_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "counter.h"
#include "noise.h"
#include "tree_estimator.h"

/* Budget shares are integers over this denominator. */
#define DPK_SHARE_DEN 4096

#define DPK_SHARE_MAX_LEVELS 4
#define DPK_SHARE_MAX_BLOCKS 16

/* Largest horizon with a configuration. */
#define DPK_SHARE_MAX_HORIZON 1024

/* The tree of one horizon (all public). */
typedef struct DpkShareTree
{
	uint32_t	horizon;		/* T */
	uint32_t	config;			/* T0 of the configuration clipped at T */
	int			levels;			/* h */
	uint32_t	span[DPK_SHARE_MAX_LEVELS];
	int			blocks;			/* top-level nodes: ceil(T / span[h-1]) */
	bool		every_node;		/* F(t) = every node, else the local family */
	/* share[b][j]: s_v of level j's nodes under block b; rows sum to DEN */
	int			share[DPK_SHARE_MAX_BLOCKS][DPK_SHARE_MAX_LEVELS];
} DpkShareTree;

/*
 * The tree of horizon T (1 .. DPK_SHARE_MAX_HORIZON).  False (and *st
 * untouched) outside.
 */
bool		dpk_share_tree_init(DpkShareTree *st, uint32_t horizon);

/* Integer share of node (level, index) (index 1-based). */
int			dpk_share_tree_node_share(const DpkShareTree *st, int level, uint32_t index);

/*
 * The weights of release t (1 .. T): level, index, share, num over den
 * (DPK_TREE_WEIGHT_DEN, odd) and the nearest double, nodes with weight 0
 * dropped.  (*) is checked exactly before returning.
 */
typedef struct DpkShareWeights
{
	int			n;
	int		   *level;
	uint32_t   *index;
	int		   *share;
	int64_t    *num;
	double	   *weight;
	int64_t		den;
} DpkShareWeights;

void		dpk_share_tree_weights(const DpkShareTree *st, uint32_t t, DpkShareWeights *out);
void		dpk_share_weights_free(DpkShareWeights *w);

/*
 * Variance of release t in units of one full-budget release (continuous
 * Laplace: sum_v w_v^2 (DEN / s_v)^2); with draws, the nodes it reads.
 */
double		dpk_share_tree_release_units(const DpkShareTree *st, uint32_t t, int *draws);

/* Mean of dpk_share_tree_release_units over t in [T/4, T] (every t). */
double		dpk_share_tree_typical_units(const DpkShareTree *st);

/*
 * Mean of dpk_share_tree_release_units over the 33 releases evenly spaced
 * in [T/4, T] of dpk_share_tree_beats_kary (what a table's level choice
 * reads; a few weight computations, not T of them).
 */
double		dpk_share_tree_sampled_units(const DpkShareTree *st);

/*
 * Most nodes any release of the tree reads (nonzero weights, the largest
 * over t; a function of the horizon only).
 */
int			dpk_share_tree_max_nodes(const DpkShareTree *st);

/*
 * Whether the share tree of horizon T has a lower mean variance over 33
 * releases evenly spaced in [T/4, T] than the k-ary least-squares counter
 * of new pure tables (dpk_tree_choose_arity(T), h^2 ||w_t||^2 in the same
 * units), and a lower mean of variance / t^2 there (an insert stream's
 * release t holds about t batches, so a variance weighs on its cost about
 * as 1 / t^2: the early releases of small tables); false above
 * DPK_SHARE_MAX_HORIZON.  A function of the horizon only; tens of
 * milliseconds at T = 1024.
 */
bool		dpk_share_tree_beats_kary(uint32_t horizon);

/*
 * The Laplace scales of node v of a table whose full-budget scales (one
 * node holding the whole counter budget: Delta / eps) are count_b and
 * sum_b: b DPK_SHARE_DEN / s_v, rounded up (dpk_scale_from_double).
 * out[a] for each node of w, d and sums copied into each.
 */
void		dpk_share_node_scales(const DpkShareWeights *w, double count_b, double sum_b,
								  int d, DpkSumNoise sums, DpkCellScales *out);

/*
 * The published counters of one cell at the weights w: out[j] = the
 * nearest integer to truth[j] + sum_a (num[a] / den) eta_a[j], eta_a node
 * a's draws at scales[a] (count discrete Laplace; sums as
 * dpk_node_noise), exactly in integers; truth NULL for zeros.
 */
void		dpk_cell_noise_share(DpkStream *s, const DpkCellKey *ck, const DpkShareWeights *w,
								 const DpkCellScales *scales, const int64_t *truth, int64_t *out,
								 const DpkNoiseScratch *scratch);

/* Node (level, index)'s draws of one cell (count, then d sums), added to out. */
void		dpk_share_node_noise(DpkStream *s, const DpkCellKey *ck, int level, uint32_t index,
								 const DpkCellScales *sc, int64_t *out);

#endif
