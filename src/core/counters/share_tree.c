/*
 * share_tree.c
 *		The share-tree counter: configurations, exact least-squares weights
 *		and the noise of one cell (see share_tree.h).
 */
#include "share_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dpk_mem.h"

/*
 * The configurations: spans, the per-level shares (the proportions the
 * levels under a block split its rest in; the top level's entry unused)
 * and each block's own share, found at T0 by a coordinate search on the
 * mean over [T0/4, T0] of variance / t^2 (the early releases, where an
 * insert stream holds the fewest rows), with the mean and the worst t at
 * or below the optimised per-level row (doc/decisions/066; the 1024 row
 * is record 040's).  Each serves the horizons from its "from" up to the
 * next one's, its spans scaled to T: the ranges where it beat the others
 * (record 066).
 */
typedef struct ShareConfig
{
	uint32_t	T0;
	uint32_t	from;
	int			levels;
	uint32_t	span[DPK_SHARE_MAX_LEVELS];
	double		level_share[DPK_SHARE_MAX_LEVELS];
	double		block_share[DPK_SHARE_MAX_BLOCKS];
	bool		every_node;
} ShareConfig;

static const ShareConfig share_configs[] = {
	{16, 1, 2, {1, 5}, {0.5, 0.5}, {0.623, 0.562, 0.400, 0.006}, true},
	{64, 29, 2, {1, 17}, {0.5, 0.5}, {0.580, 0.406, 0.400, 0.267}, false},
	{128, 128, 2, {1, 17}, {0.5, 0.5}, {0.659, 0.648, 0.444, 0.456, 0.466, 0.475, 0.400, 0.286},
	false},
	{256, 256, 3, {1, 11, 77}, {0.443, 0.333, 0.224}, {0.416, 0.303, 0.244, 0.006}, false},
	{1024, 1024, 3, {1, 13, 169}, {0.3300, 0.3001, 0.3699},
	{0.526, 0.439, 0.364, 0.332, 0.289, 0.189, 0.023}, false},
};

/* The configuration serving horizon T: the last whose "from" is at most T. */
static const ShareConfig *
serving_config(uint32_t horizon)
{
	const ShareConfig *c = &share_configs[0];

	for (size_t i = 1; i < sizeof(share_configs) / sizeof(share_configs[0]); i++)
		if (share_configs[i].from <= horizon)
			c = &share_configs[i];
	return c;
}

/*
 * The tree of horizon T (see share_tree.h): the configuration serving T
 * (T0), its level-1 span scaled by (T / T0)^(1 / (h - 1)) and rounded
 * (at least 2; raised until the blocks fit the configuration's), each
 * higher level keeping its ratio to the level below; at T = T0 the
 * configuration itself.
 */
bool
dpk_share_tree_init(DpkShareTree *st, uint32_t horizon)
{
	const ShareConfig *c;
	int			top,
				nblocks = 0;
	double		r;

	if (horizon < 1 || horizon > DPK_SHARE_MAX_HORIZON)
		return false;
	c = serving_config(horizon);
	memset(st, 0, sizeof(*st));
	st->horizon = horizon;
	st->config = c->T0;
	st->levels = c->levels;
	st->every_node = c->every_node;
	top = c->levels - 1;
	while (nblocks < DPK_SHARE_MAX_BLOCKS && c->block_share[nblocks] > 0.0)
		nblocks++;
	r = pow((double) horizon / c->T0, 1.0 / top);
	st->span[0] = 1;
	st->span[1] = (uint32_t) lround(c->span[1] * r);
	if (horizon == c->T0)
		st->span[1] = c->span[1];
	if (st->span[1] < 2)
		st->span[1] = 2;
	for (;;)
	{
		for (int j = 2; j <= top; j++)
			st->span[j] = st->span[j - 1] * (c->span[j] / c->span[j - 1]);
		if ((horizon + st->span[top] - 1) / st->span[top] <= (uint32_t) nblocks)
			break;
		st->span[1]++;
	}
	st->blocks = (int) ((horizon + st->span[top] - 1) / st->span[top]);
	for (int b = 0; b < st->blocks; b++)
	{
		double		lower = 0.0;
		int			top_share = (int) lround(c->block_share[b] * DPK_SHARE_DEN),
					left;

		if (top_share < 1 || top_share >= DPK_SHARE_DEN)
			dpk_fail("share tree: a block share out of range");
		for (int j = 0; j < top; j++)
			lower += c->level_share[j];
		/* the levels under the block split the rest; level 0 takes what rounding left */
		left = DPK_SHARE_DEN - top_share;
		st->share[b][top] = top_share;
		for (int j = 1; j < top; j++)
		{
			st->share[b][j] = (int) lround(c->level_share[j] / lower *
										   (DPK_SHARE_DEN - top_share));
			left -= st->share[b][j];
		}
		st->share[b][0] = left;
		for (int j = 0; j <= top; j++)
			if (st->share[b][j] < 1)
				dpk_fail("share tree: a node without budget");
	}
	return true;
}

/* Integer share of node (level, index) (see share_tree.h). */
int
dpk_share_tree_node_share(const DpkShareTree *st, int level, uint32_t index)
{
	uint32_t	first = (index - 1) * st->span[level];	/* 0-based first position */
	uint32_t	block = first / st->span[st->levels - 1];

	if (level < 0 || level >= st->levels || index < 1 || first >= st->horizon)
		dpk_fail("share tree: node out of the tree");
	return st->share[block][level];
}

/* Room for the nodes of any F(t): every block, two parents' children a level. */
static int
family_room(const DpkShareTree *st)
{
	int			maxn = st->blocks;

	for (int j = 0; j < st->levels - 1; j++)
		maxn += st->every_node ? (int) ((st->horizon + st->span[j] - 1) / st->span[j])
			: 2 * (int) (st->span[j + 1] / st->span[j]);
	return maxn;
}

/*
 * Most nodes any release reads (see share_tree.h): the largest number of
 * nonzero weights over t, from the weights themselves (tens of
 * milliseconds at T = 1024).
 */
int
dpk_share_tree_max_nodes(const DpkShareTree *st)
{
	int			most = 0;

	for (uint32_t t = 1; t <= st->horizon; t++)
	{
		int			n;

		dpk_share_tree_release_units(st, t, &n);
		if (n > most)
			most = n;
	}
	return most;
}

/* A node of F(t): level, 1-based index, positions (start, end], share. */
typedef struct ShareNode
{
	int			level;
	uint32_t	index;
	uint32_t	start,
				end;
	int			share;
} ShareNode;

/* Append node (level, index) of the clipped tree to nodes (no duplicates). */
static void
add_node(const DpkShareTree *st, ShareNode *nodes, int *n, int level, uint32_t index)
{
	uint32_t	start = (index - 1) * st->span[level];

	if (start >= st->horizon)
		return;
	for (int a = 0; a < *n; a++)
		if (nodes[a].level == level && nodes[a].index == index)
			return;
	nodes[*n].level = level;
	nodes[*n].index = index;
	nodes[*n].start = start;
	nodes[*n].end = start + st->span[level] < st->horizon ? start + st->span[level] : st->horizon;
	nodes[*n].share = dpk_share_tree_node_share(st, level, index);
	(*n)++;
}

/* Solve G x = b in place (G n x n symmetric positive definite, Cholesky). */
static void
share_cholesky_solve(double *G, double *b, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j <= i; j++)
		{
			double		s = G[i * n + j];

			for (int r = 0; r < j; r++)
				s -= G[i * n + r] * G[j * n + r];
			if (i == j)
			{
				if (!(s > 0.0))
					dpk_fail("share tree: singular normal equations");
				G[i * n + i] = sqrt(s);
			}
			else
				G[i * n + j] = s / G[j * n + j];
		}
	for (int i = 0; i < n; i++)
	{
		for (int r = 0; r < i; r++)
			b[i] -= G[i * n + r] * b[r];
		b[i] /= G[i * n + i];
	}
	for (int i = n - 1; i >= 0; i--)
	{
		for (int r = i + 1; r < n; r++)
			b[i] -= G[r * n + i] * b[r];
		b[i] /= G[i * n + i];
	}
}

/* Whether node x lies inside node y. */
static inline bool
inside(const ShareNode *x, const ShareNode *y)
{
	return y->start <= x->start && x->end <= y->end;
}

/*
 * The weights of release t (see share_tree.h).  F(t) is laminar and covers
 * every position (every block is in it), so positions with the same
 * smallest enclosing node (an "atom") lie in the same nodes; (*) is one
 * equation per atom, C^T w = q, and the minimum-variance solution is
 * w = P C (C^T P C)^-1 q with P the node precisions (s_v / DEN)^2.  The
 * nodes are kept in ascending level order.
 */
void
dpk_share_tree_weights(const DpkShareTree *st, uint32_t t, DpkShareWeights *out)
{
	int			top = st->levels - 1,
				maxn,
				n = 0,
				na = 0;
	ShareNode  *nodes,
				tmpn;
	int		   *own,
			   *atom_node;
	bool	   *one;
	double	   *G,
			   *q,
			   *prec;
	int64_t    *num;

	if (t < 1 || t > st->horizon)
		dpk_fail("share tree: release out of the horizon");
	maxn = family_room(st);
	nodes = dpk_alloc((size_t) maxn * sizeof(ShareNode));

	/* F(t), top level first */
	for (uint32_t b = 1; b <= (uint32_t) st->blocks; b++)
		add_node(st, nodes, &n, top, b);
	for (int j = top - 1; j >= 0; j--)
	{
		uint32_t	ratio = st->span[j + 1] / st->span[j];

		if (st->every_node)
		{
			for (uint32_t i = 1; (i - 1) * st->span[j] < st->horizon; i++)
				add_node(st, nodes, &n, j, i);
			continue;
		}
		/* the children of the level j+1 nodes holding releases t and t + 1 */
		for (uint32_t p = t - 1; p <= t && p < st->horizon; p++)
		{
			uint32_t	parent = p / st->span[j + 1];

			for (uint32_t c = 0; c < ratio; c++)
				add_node(st, nodes, &n, j, parent * ratio + c + 1);
		}
	}
	if (n > maxn)
		dpk_fail("share tree: node family overflow");
	/* ascending level (stable enough: insertion sort on a few dozen nodes) */
	for (int a = 1; a < n; a++)
		for (int b = a; b > 0 && nodes[b].level < nodes[b - 1].level; b--)
		{
			tmpn = nodes[b];
			nodes[b] = nodes[b - 1];
			nodes[b - 1] = tmpn;
		}

	/* atoms: each node owning some position (smallest node holding it) */
	own = dpk_alloc((size_t) n * sizeof(int));
	atom_node = dpk_alloc((size_t) n * sizeof(int));
	one = dpk_alloc0((size_t) n * sizeof(bool));
	for (int a = 0; a < n; a++)
		own[a] = -1;
	for (uint32_t p = 0; p < st->horizon; p++)
	{
		int			v = -1;
		bool		in = p < t;

		for (int a = 0; a < n && v < 0; a++)
			if (nodes[a].start <= p && p < nodes[a].end)
				v = a;
		if (v < 0)
			dpk_fail("share tree: a position outside every node");
		if (own[v] < 0)
		{
			own[v] = na;
			atom_node[na] = v;
			one[na] = in;
			na++;
		}
		else if (one[own[v]] != in)
			dpk_fail("share tree: the node family cannot express [1, t]");
	}

	prec = dpk_alloc((size_t) n * sizeof(double));
	for (int v = 0; v < n; v++)
	{
		double		f = (double) nodes[v].share / DPK_SHARE_DEN;

		prec[v] = f * f;
	}
	G = dpk_alloc0((size_t) na * na * sizeof(double));
	q = dpk_alloc((size_t) na * sizeof(double));
	for (int v = 0; v < n; v++)
		for (int a = 0; a < na; a++)
		{
			if (!inside(&nodes[atom_node[a]], &nodes[v]))
				continue;
			for (int b = 0; b <= a; b++)
				if (inside(&nodes[atom_node[b]], &nodes[v]))
					G[a * na + b] += prec[v];
		}
	for (int a = 0; a < na; a++)
	{
		q[a] = one[a] ? 1.0 : 0.0;
		for (int b = 0; b < a; b++)
			G[b * na + a] = G[a * na + b];
	}
	share_cholesky_solve(G, q, na);

	/*
	 * Exact weights num / DPK_TREE_WEIGHT_DEN: the least squares rounded,
	 * then each atom's equation made exact by its own node, levels
	 * descending (an atom's equation sums its own node and the nodes
	 * containing it, all settled before it; tree_estimator.c does the same).
	 */
	num = dpk_alloc((size_t) n * sizeof(int64_t));
	for (int v = 0; v < n; v++)
	{
		double		w = 0.0;

		for (int a = 0; a < na; a++)
			if (inside(&nodes[atom_node[a]], &nodes[v]))
				w += q[a];
		w *= prec[v];
		if (!(fabs(w) < 64.0))
			dpk_fail("share tree: a least-squares weight out of range");
		num[v] = llround(w * (double) DPK_TREE_WEIGHT_DEN);
	}
	for (int v = n - 1; v >= 0; v--)
	{
		int64_t		above = 0,
					want;

		if (own[v] < 0)
			continue;
		for (int u = 0; u < n; u++)
			if (u != v && inside(&nodes[v], &nodes[u]))
				above += num[u];
		want = (one[own[v]] ? DPK_TREE_WEIGHT_DEN : 0) - above;
		if (llabs(want - num[v]) > ((int64_t) 1 << 16))
			dpk_fail("share tree: exact weights far from the least squares");
		num[v] = want;
	}
	/* (*) exactly, atom by atom */
	for (int a = 0; a < na; a++)
	{
		int64_t		sum = 0;

		for (int v = 0; v < n; v++)
			if (inside(&nodes[atom_node[a]], &nodes[v]))
				sum += num[v];
		if (sum != (one[a] ? DPK_TREE_WEIGHT_DEN : 0))
			dpk_fail("share tree: exact weights miss the identity");
	}

	out->n = 0;
	out->den = DPK_TREE_WEIGHT_DEN;
	out->level = dpk_alloc((size_t) n * sizeof(int));
	out->index = dpk_alloc((size_t) n * sizeof(uint32_t));
	out->share = dpk_alloc((size_t) n * sizeof(int));
	out->num = dpk_alloc((size_t) n * sizeof(int64_t));
	out->weight = dpk_alloc((size_t) n * sizeof(double));
	for (int v = 0; v < n; v++)
	{
		if (num[v] == 0)
			continue;
		out->level[out->n] = nodes[v].level;
		out->index[out->n] = nodes[v].index;
		out->share[out->n] = nodes[v].share;
		out->num[out->n] = num[v];
		out->weight[out->n] = (double) num[v] / (double) DPK_TREE_WEIGHT_DEN;
		out->n++;
	}
	dpk_free(nodes);
	dpk_free(own);
	dpk_free(atom_node);
	dpk_free(one);
	dpk_free(prec);
	dpk_free(G);
	dpk_free(q);
	dpk_free(num);
}

void
dpk_share_weights_free(DpkShareWeights *w)
{
	dpk_free(w->level);
	dpk_free(w->index);
	dpk_free(w->share);
	dpk_free(w->num);
	dpk_free(w->weight);
	memset(w, 0, sizeof(*w));
}

/* Variance of release t in full-budget release units (see share_tree.h). */
double
dpk_share_tree_release_units(const DpkShareTree *st, uint32_t t, int *draws)
{
	DpkShareWeights w;
	double		v = 0.0;

	dpk_share_tree_weights(st, t, &w);
	for (int a = 0; a < w.n; a++)
	{
		double		r = w.weight[a] * DPK_SHARE_DEN / w.share[a];

		v += r * r;
	}
	if (draws)
		*draws = w.n;
	dpk_share_weights_free(&w);
	return v;
}

/* Mean over t in [T/4, T] (see share_tree.h). */
double
dpk_share_tree_typical_units(const DpkShareTree *st)
{
	double		sum = 0.0;
	int			n = 0;

	for (uint32_t t = 1; t <= st->horizon; t++)
		if (4 * (uint64_t) t >= st->horizon)
		{
			sum += dpk_share_tree_release_units(st, t, NULL);
			n++;
		}
	return sum / n;
}

/* The i-th (0 .. 32) of 33 releases evenly spaced in [T/4, T]. */
static uint32_t
sampled_release(uint32_t horizon, int i)
{
	uint32_t	lo = (horizon + 3) / 4;

	return lo + (uint32_t) (((uint64_t) (horizon - lo) * i) / 32);
}

/* Mean over 33 releases in [T/4, T] (see share_tree.h). */
double
dpk_share_tree_sampled_units(const DpkShareTree *st)
{
	double		sum = 0.0;

	for (int i = 0; i < 33; i++)
		sum += dpk_share_tree_release_units(st, sampled_release(st->horizon, i), NULL);
	return sum / 33.0;
}

/* Whether the share tree beats the k-ary counter at T (see share_tree.h). */
bool
dpk_share_tree_beats_kary(uint32_t horizon)
{
	DpkShareTree st;
	int			k,
				h;
	double		share = 0.0,
				kary = 0.0,
				share_early = 0.0,
				kary_early = 0.0;

	if (!dpk_share_tree_init(&st, horizon))
		return false;
	k = dpk_tree_choose_arity(horizon);
	h = dpk_tree_shape_height(k, horizon);
	/* the 33 releases evenly spaced in T/4 .. T of dpk_tree_typical_norm2 */
	for (int i = 0; i < 33; i++)
	{
		uint32_t	t = sampled_release(horizon, i);
		double		vs = dpk_share_tree_release_units(&st, t, NULL),
					vk = (double) h * h * dpk_tree_release_norm2(DPK_TREE_LOCAL_BLUE, k, horizon, t);

		share += vs;
		kary += vk;
		/* relative to the t batches an insert stream holds at t */
		share_early += vs / ((double) t * t);
		kary_early += vk / ((double) t * t);
	}
	return share < kary && share_early < kary_early;
}

/* Per-node Laplace scales (see share_tree.h). */
void
dpk_share_node_scales(const DpkShareWeights *w, double count_b, double sum_b, int d,
					  DpkSumNoise sums, DpkCellScales *out)
{
	for (int a = 0; a < w->n; a++)
	{
		double		f = (double) DPK_SHARE_DEN / w->share[a];

		out[a].d = d;
		out[a].sums = sums;
		out[a].count = dpk_scale_from_double(count_b * f);
		if (sums != DPK_SUMS_NONE)
			out[a].sum = dpk_scale_from_double(sum_b * f);
		else
			out[a].sum = out[a].count;
	}
}

/*
 * Nonce of node (j, i) of one cell: grid level, 0x60 | j, i, cell.  The
 * binary tree's heights stay below 0x40, the square-root counter uses 0x40
 * and 0x41, the k-ary trees 0x80 | j: no other counter's node shares it.
 */
static void
share_nonce(int level, uint64_t cell, int node_level, uint32_t index,
			uint8_t nonce[DPK_NONCE_BYTES])
{
	if (node_level < 0 || node_level >= 16)
		dpk_fail("share tree: node level out of the nonce's range");
	nonce[0] = (uint8_t) level;
	nonce[1] = (uint8_t) (0x60 | node_level);
	for (int i = 0; i < 4; i++)
		nonce[2 + i] = (uint8_t) (index >> (8 * i));
	for (int i = 0; i < 6; i++)
		nonce[6 + i] = (uint8_t) (cell >> (8 * i));
}

/* One node's draws of one cell, added to out (see share_tree.h). */
void
dpk_share_node_noise(DpkStream *s, const DpkCellKey *ck, int level, uint32_t index,
					 const DpkCellScales *sc, int64_t *out)
{
	uint8_t		nonce[DPK_NONCE_BYTES];

	share_nonce(ck->level, ck->cell, level, index, nonce);
	dpk_stream_reseed(s, ck->key, nonce);
	out[0] += dpk_discrete_laplace(s, sc->count);
	if (sc->sums == DPK_SUMS_VECTOR)
		dpk_vector_noise(s, sc->sum, sc->d, 1, out + 1);
	else if (sc->sums == DPK_SUMS_COORDS)
		for (int j = 0; j < sc->d; j++)
			out[1 + j] += dpk_discrete_laplace(s, sc->sum);
}

/*
 * Published counters of one cell (see share_tree.h).  |num| < 2^38 and
 * |eta| < 2^63, so each product is below 2^101 and a sum of fewer than
 * 2^20 of them fits the 128-bit accumulator.
 */
void
dpk_cell_noise_share(DpkStream *s, const DpkCellKey *ck, const DpkShareWeights *w,
					 const DpkCellScales *scales, const int64_t *truth, int64_t *out,
					 const DpkNoiseScratch *scratch)
{
	int			d,
				dd;
	int64_t    *tmp = scratch->tmp;
	__int128   *acc = scratch->acc;

	if (w->n < 1)
		dpk_fail("share tree: a release without nodes");
	d = scales[0].d;
	dd = scales[0].sums != DPK_SUMS_NONE ? d : 0;
	if (truth)
		memcpy(out, truth, (1 + d) * sizeof(int64_t));
	else
		memset(out, 0, (1 + d) * sizeof(int64_t));
	memset(acc, 0, (1 + dd) * sizeof(__int128));
	for (int a = 0; a < w->n; a++)
	{
		memset(tmp, 0, (1 + dd) * sizeof(int64_t));
		dpk_share_node_noise(s, ck, w->level[a], w->index[a], &scales[a], tmp);
		for (int j = 0; j <= dd; j++)
			acc[j] += (__int128) w->num[a] * tmp[j];
	}
	for (int j = 0; j <= dd; j++)
		if (!dpk_round_exact(out[j], acc[j], w->den, &out[j]))
			dpk_fail("continual release: a noisy counter beyond 64 bits");
}
