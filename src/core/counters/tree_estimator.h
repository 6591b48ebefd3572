/*
 * tree_estimator.h
 *		Which tree nodes a continual release combines, and with which weights.
 *
 * A counter's release at t is its true prefix count plus sum_v w_v eta_v over
 * tree nodes v, eta_v the node's noise (re-derived from the table's key, so a
 * node's noise is the same draw at every release).  Any weights with
 *
 *	   sum_v w_v 1[i in v] = 1[i <= t]	 for every position i >= 1		(*)
 *
 * give a release with exactly the privacy of the tree (doc/privacy.md,
 * "Signed tree decomposition and adaptive writes"): the weights only decide
 * the error.  The signed decomposition (the non-adjacent form, counter.h) is
 * one such choice with weights +-1; this file also computes the least-squares
 * (BLUE) weights of Honaker ("Efficient use of differentially private binary
 * trees", 2015) restricted to a small node set: the signed nodes and their
 * descendants `depth` levels down, which keeps the nodes drawn per cell
 * bounded while recovering most of the gain of the BLUE over the whole tree
 * (doc/decisions/004-counter-estimator.md).  The weights depend on (arity,
 * horizon, depth, t) only, all public, so they are computed once per release
 * and applied to every cell.
 *
 * Trees of arity k: node (j, i) covers releases (i-1) k^j + 1 .. i k^j.
 */
#ifndef DPK_TREE_ESTIMATOR_H
#define DPK_TREE_ESTIMATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "counter.h"
#include "noise.h"

/* Most nodes a signed decomposition of any t < 2^32 can use. */
#define DPK_TREE_MAX_SIGNED 640

/*
 * Tree arities.  2 is the binary tree of every table attached before the
 * k-ary trees (tracked.tree_arity 2, its nonces unchanged) and of Gaussian
 * tables; a new pure table gets dpk_tree_choose_arity(horizon), at most
 * DPK_TREE_ARITY_MAX.
 */
#define DPK_TREE_ARITY_BINARY 2
#define DPK_TREE_ARITY_MAX 16

/*
 * Levels h an event touches with horizon T in the tree of arity k: every
 * t <= T has a signed decomposition inside levels 0 .. h-1.  For k = 2 this
 * is dpk_tree_height(T).
 */
int			dpk_tree_shape_height(int k, uint32_t T);

/*
 * The signed decomposition of [1, t] in the tree of arity k: for k = 2 the
 * non-adjacent form (dpk_tree_decompose); for k > 2 the balanced base-k
 * digits (in [-(k-1)/2, (k-1)/2] for odd k, in [-k/2 + 1, k/2] for even k),
 * digit a at level j taking |a| adjacent nodes of that level with sign
 * sign(a) ("Count on your elders", Andersson, Pagh, Steiner and Torkamani).
 * Returns the number of nodes (at most DPK_TREE_MAX_SIGNED).
 */
int			dpk_tree_signed_decompose(int k, uint32_t t, int *node_level,
									  uint32_t *node_index, int *node_sign);

/* Number of nodes of dpk_tree_signed_decompose(k, t). */
int			dpk_tree_signed_nodes(int k, uint32_t t);

/*
 * Least-squares weights are kept exactly as integers over this common
 * denominator (doc/privacy.md, "Exact rounding").  It is odd, so a weighted
 * sum of integer draws is never a half-integer and the nearest integer
 * needs no tie rule; and 2^32 - 1 = 3 * 5 * 17 * 257 * 65537 keeps the
 * least-squares weights in thirds, fifths, ... exact.
 */
#define DPK_TREE_WEIGHT_DEN INT64_C(4294967295)

/*
 * A weighted node list: release noise = sum weight[a] * noise(node a), the
 * weights exactly num[a] / den (den 1 for the signed digits, else
 * DPK_TREE_WEIGHT_DEN), and weight[a] the nearest double.
 */
typedef struct DpkTreeWeights
{
	int			arity;			/* of the tree the nodes belong to */
	int			n;
	bool		signs;			/* every weight is +1 or -1 exactly */
	int		   *level;
	uint32_t   *index;
	double	   *weight;
	int64_t    *num;
	int64_t		den;
} DpkTreeWeights;

/*
 * The minimum-variance weights satisfying (*) over a local node set of t in
 * the arity-k tree of `horizon`: the signed nodes, their descendants down to
 * `depth` levels below each, and with `family` every child of every ancestor
 * of a signed node (the siblings along the paths to the root, which carry
 * most of the top-down information of the full least-squares estimate).
 * depth 0 without family: the signed weights themselves.  Equal node
 * variances assumed, as every node of a counter family has the same scale.
 * The least-squares solution (floating point) is rounded to multiples of
 * 1 / DPK_TREE_WEIGHT_DEN and repaired so that (*) holds exactly in
 * integers: the release's privacy rests on (*) alone, its accuracy on the
 * weights being within a few 2^-32 of the least squares.
 */
void		dpk_tree_weights(int k, uint32_t horizon, int depth, bool family,
							 uint32_t t, DpkTreeWeights *out);

/* How a release combines the tree's nodes. */
typedef enum DpkTreeEstimator
{
	DPK_TREE_SIGNED = 0,		/* the signed digits (the non-adjacent form
								 * for arity 2), weights +-1 */
	DPK_TREE_LOCAL_BLUE = 1		/* least squares over the signed nodes (and,
								 * arity 2, their children) and the
								 * ancestors' children */
} DpkTreeEstimator;

/*
 * The weights of release t of the arity-k tree of `horizon` under `est`:
 * for k = 2 the signed nodes, or dpk_tree_weights(2, .., depth 1, family);
 * for k > 2 the balanced digits, or dpk_tree_weights(k, .., depth 0,
 * family) (doc/decisions/004-counter-estimator.md: depth 1 costs 2.5x the
 * draws for 5-8 % less variance there).
 */
void		dpk_tree_release_weights(DpkTreeEstimator est, int k, uint32_t horizon,
									 uint32_t t, DpkTreeWeights *out);

/*
 * Variance of release t under `est` in node variances (the squared norm of
 * its weights; the rounding of dpk_cell_noise_weighted adds at most 1/4).
 */
double		dpk_tree_release_norm2(DpkTreeEstimator est, int k, uint32_t horizon,
								   uint32_t t);

/* Mean of dpk_tree_release_norm2 over releases T/4 .. T (33 evenly spaced). */
double		dpk_tree_typical_norm2(DpkTreeEstimator est, int k, uint32_t horizon);

/*
 * The arity of a new pure table's tree: the k in 2 .. DPK_TREE_ARITY_MAX
 * minimizing h_k^2 times the least-squares release variance (node variance
 * is proportional to h_k^2, the levels an event touches) averaged over 129
 * releases evenly spaced in T/4 .. T; ties to the smaller k.  A function of
 * the public horizon only.
 */
int			dpk_tree_choose_arity(uint32_t horizon);

/*
 * The same, always computed; dpk_tree_choose_arity answers from
 * dpk_tree_arity_pow2 at the powers of two 2^0 .. 2^(DPK_TREE_ARITY_POW2 - 1).
 */
int			dpk_tree_compute_arity(uint32_t horizon);
#define DPK_TREE_ARITY_POW2 21
extern const int dpk_tree_arity_pow2[DPK_TREE_ARITY_POW2];

/*
 * Scratch of dpk_cell_noise_weighted, allocated by the caller once for
 * many cells.
 */
typedef struct DpkNoiseScratch
{
	int64_t    *tmp;			/* 1 + d integers: one node's draws */
	__int128   *acc;			/* 1 + d 128-bit integers: the weighted sum */
} DpkNoiseScratch;

/*
 * The published counters of one cell under weights w: out[j] = the nearest
 * integer to truth[j] + S_j, S_j = sum_a (num[a] / den) eta_a[j] the
 * weighted sum of the nodes' draws (dpk_node_noise), computed exactly in
 * integers (doc/privacy.md, "Exact rounding"; den is odd, so there is no
 * tie); j = 0 the count, 1..d the sums (when sc->sums is not
 * DPK_SUMS_NONE; else out[1..d] = truth).  truth: the cell's 1 + d true
 * counters, NULL for zeros.  With w->signs S is an integer and out = truth
 * + S.
 */
void		dpk_cell_noise_weighted(DpkStream *s, const DpkCellKey *ck,
									const DpkTreeWeights *w, const DpkCellScales *sc,
									const int64_t *truth, int64_t *out,
									const DpkNoiseScratch *scratch);

/*
 * The nearest integer to base + num / den, ties to even (for odd den there
 * are none); den > 0.  False when it does not fit in 64 bits.
 */
bool		dpk_round_exact(int64_t base, __int128 num, int64_t den, int64_t *out);

/* Sum of the squared weights: the release's variance in node variances. */
double		dpk_tree_weights_norm2(const DpkTreeWeights *w);

void		dpk_tree_weights_free(DpkTreeWeights *w);

#endif
