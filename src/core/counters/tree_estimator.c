/*
 * tree_estimator.c
 *		Signed decompositions of trees of any arity and the least-squares
 *		weights over a local node set (see tree_estimator.h).
 */
#include "tree_estimator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "dpk_mem.h"

/* Largest digit magnitude on the positive side for arity k > 2. */
static int
digit_max(int k)
{
	return (k & 1) ? (k - 1) / 2 : k / 2;
}

/* Levels of the tree of arity k for horizon T (see tree_estimator.h). */
int
dpk_tree_shape_height(int k, uint32_t T)
{
	uint64_t	reach = 0,
				pw = 1;
	int			levels = 0;

	if (k <= 2)
		return dpk_tree_height(T);
	/* digits in levels 0..L-1 reach up to digit_max * (k^L - 1) / (k - 1) */
	while (reach < T && levels < 32)
	{
		reach += (uint64_t) digit_max(k) * pw;
		pw *= (uint64_t) k;
		levels++;
	}
	return levels < 1 ? 1 : levels;
}

/* Balanced base-k decomposition (see tree_estimator.h). */
int
dpk_tree_signed_decompose(int k, uint32_t t, int *node_level, uint32_t *node_index,
						  int *node_sign)
{
	int			digit[34];
	int			ndigits = 0,
				n = 0,
				j,
				a;
	int64_t		v = t,
				p = 0;

	if (k <= 2)
		return dpk_tree_decompose(t, node_level, node_index, node_sign);
	while (v != 0)
	{
		int			dgt = (int) (v % k);

		if (dgt > digit_max(k))
			dgt -= k;
		digit[ndigits++] = dgt;
		v = (v - dgt) / k;
	}
	/*
	 * From the top digit down the running prefix p is a multiple of k^(j+1),
	 * so |a| adjacent level-j nodes start or end at p.
	 */
	for (j = ndigits - 1; j >= 0; j--)
	{
		int64_t		w = 1,
					base;

		for (a = 0; a < j; a++)
			w *= k;
		base = p / w;
		for (a = 0; a < abs(digit[j]); a++)
		{
			node_level[n] = j;
			node_sign[n] = digit[j] > 0 ? 1 : -1;
			node_index[n] = (uint32_t) (digit[j] > 0 ? base + 1 + a : base - a);
			n++;
		}
		p += (int64_t) digit[j] * w;
	}
#ifdef DPK_ASSERTIONS
	{
		int64_t		covered = 0;

		for (a = 0; a < n; a++)
		{
			int64_t		w = 1;

			for (j = 0; j < node_level[a]; j++)
				w *= k;
			covered += node_sign[a] * w;
		}
		DPK_ASSERT(covered == (int64_t) t);
	}
#endif
	return n;
}

/* Node count of the signed decomposition. */
int
dpk_tree_signed_nodes(int k, uint32_t t)
{
	int			l[DPK_TREE_MAX_SIGNED],
				s[DPK_TREE_MAX_SIGNED];
	uint32_t	i[DPK_TREE_MAX_SIGNED];

	return dpk_tree_signed_decompose(k, t, l, i, s);
}

/* A node of the local set with its interval (start, end]. */
typedef struct LocalNode
{
	int			level;
	uint32_t	index;
	int64_t		start,
				end;
} LocalNode;

/* Order nodes by level, then index (so duplicates are adjacent). */
static int
node_cmp(const void *a, const void *b)
{
	const LocalNode *x = a,
			   *y = b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return x->index < y->index ? -1 : (x->index > y->index ? 1 : 0);
}

static int
i64_cmp(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/* Solve G x = b in place (G n x n symmetric positive definite, Cholesky). */
static void
cholesky_solve(double *G, double *b, int n)
{
	int			i,
				j,
				r;

	for (i = 0; i < n; i++)
		for (j = 0; j <= i; j++)
		{
			double		s = G[i * n + j];

			for (r = 0; r < j; r++)
				s -= G[i * n + r] * G[j * n + r];
			if (i == j)
			{
				if (!(s > 0.0))
					dpk_fail("tree estimator: singular normal equations");
				G[i * n + i] = sqrt(s);
			}
			else
				G[i * n + j] = s / G[j * n + j];
		}
	for (i = 0; i < n; i++)
	{
		for (r = 0; r < i; r++)
			b[i] -= G[i * n + r] * b[r];
		b[i] /= G[i * n + i];
	}
	for (i = n - 1; i >= 0; i--)
	{
		for (r = i + 1; r < n; r++)
			b[i] -= G[r * n + i] * b[r];
		b[i] /= G[i * n + i];
	}
}

/*
 * Least-norm weights over the local set (see tree_estimator.h).  The nodes
 * form a laminar family, so positions with the same smallest enclosing node
 * (an "atom") lie in exactly the same nodes; (*) is one equation per atom,
 * C^T w = q with C the node-by-atom incidence, whose least-norm solution is
 * w = C (C^T C)^-1 q.  Atoms are linearly independent rows (each is the
 * only one whose smallest node is its own), so C^T C is positive definite.
 */
void
dpk_tree_weights(int k, uint32_t horizon, int depth, bool family, uint32_t t,
				 DpkTreeWeights *out)
{
	int			sl[DPK_TREE_MAX_SIGNED],
				ss[DPK_TREE_MAX_SIGNED];
	uint32_t	si[DPK_TREE_MAX_SIGNED];
	int			ns = dpk_tree_signed_decompose(k, t, sl, si, ss);
	int			cap,
				nn = 0,
				nb = 0,
				na = 0,
				a,
				b,
				m;
	LocalNode  *nodes;
	int64_t    *bound;
	int		   *seg_node,
			   *atom_node,
			   *node_atom;
	double	   *G,
			   *q;
	int64_t		kd = 1;
	int64_t    *num;
	bool	   *q_one;

	int			h = dpk_tree_shape_height(k, horizon);

	if (depth < 0)
		depth = 0;
	if (depth == 0 && !family)
	{
		/* the signed decomposition itself: exact +-1 weights */
		out->arity = k;
		out->n = ns;
		out->signs = true;
		out->level = dpk_alloc((size_t) (ns + 1) * sizeof(int));
		out->index = dpk_alloc((size_t) (ns + 1) * sizeof(uint32_t));
		out->weight = dpk_alloc((size_t) (ns + 1) * sizeof(double));
		out->num = dpk_alloc((size_t) (ns + 1) * sizeof(int64_t));
		out->den = 1;
		for (a = 0; a < ns; a++)
		{
			out->level[a] = sl[a];
			out->index[a] = si[a];
			out->weight[a] = ss[a];
			out->num[a] = ss[a];
		}
		return;
	}
	for (a = 0; a < depth; a++)
		kd *= k;
	/* nodes per signed node: 1 + k + ... + k^depth, and its ancestors' children */
	cap = ns * (int) ((kd * k - 1) / (k - 1)) + (family ? ns * h * k : 0);
	nodes = dpk_alloc((size_t) cap * sizeof(LocalNode));
	if (family)
		for (a = 0; a < ns; a++)
		{
			int			j;
			uint32_t	idx = si[a];

			for (j = sl[a] + 1; j < h; j++)
			{
				int			c;

				idx = (idx - 1) / k + 1;
				for (c = 0; c < k; c++)
				{
					nodes[nn].level = j - 1;
					nodes[nn].index = (idx - 1) * k + c + 1;
					nn++;
				}
			}
		}
	for (a = 0; a < ns; a++)
	{
		int			j;
		int64_t		span = 1;

		for (j = 0; j <= depth && j <= sl[a]; j++)
		{
			int64_t		c;

			for (c = 0; c < span; c++)
			{
				nodes[nn].level = sl[a] - j;
				nodes[nn].index = (uint32_t) (((int64_t) si[a] - 1) * span + c + 1);
				nn++;
			}
			span *= k;
		}
	}
	qsort(nodes, nn, sizeof(LocalNode), node_cmp);
	for (a = 0, b = 0; a < nn; a++)
		if (b == 0 || node_cmp(&nodes[a], &nodes[b - 1]) != 0)
			nodes[b++] = nodes[a];
	nn = b;

	bound = dpk_alloc((size_t) (2 * nn + 1) * sizeof(int64_t));
	for (a = 0; a < nn; a++)
	{
		int64_t		w = 1;

		for (b = 0; b < nodes[a].level; b++)
			w *= k;
		nodes[a].start = ((int64_t) nodes[a].index - 1) * w;
		nodes[a].end = (int64_t) nodes[a].index * w;
		bound[nb++] = nodes[a].start;
		bound[nb++] = nodes[a].end;
	}
	bound[nb++] = t;
	qsort(bound, nb, sizeof(int64_t), i64_cmp);
	for (a = 0, b = 0; a < nb; a++)
		if (b == 0 || bound[a] != bound[b - 1])
			bound[b++] = bound[a];
	nb = b;

	/* Smallest enclosing node of each segment (bound[m], bound[m+1]]. */
	seg_node = dpk_alloc((size_t) nb * sizeof(int));
	for (m = 0; m + 1 < nb; m++)
	{
		seg_node[m] = -1;
		for (a = 0; a < nn && seg_node[m] < 0; a++)	/* level ascending */
			if (nodes[a].start <= bound[m] && bound[m + 1] <= nodes[a].end)
				seg_node[m] = a;
	}
	node_atom = dpk_alloc((size_t) nn * sizeof(int));
	atom_node = dpk_alloc((size_t) nn * sizeof(int));
	q = dpk_alloc0((size_t) nn * sizeof(double));
	q_one = dpk_alloc0((size_t) nn * sizeof(bool));
	for (a = 0; a < nn; a++)
		node_atom[a] = -1;
	for (m = 0; m + 1 < nb; m++)
	{
		int			v = seg_node[m];

		if (v < 0)
		{
			if (bound[m + 1] <= (int64_t) t)
				dpk_fail("tree estimator: a position of [1, t] outside every node");
			continue;
		}
		if (node_atom[v] < 0)
		{
			node_atom[v] = na;
			atom_node[na] = v;
			q[na] = bound[m + 1] <= (int64_t) t ? 1.0 : 0.0;
			q_one[na] = bound[m + 1] <= (int64_t) t;
			na++;
		}
		else if (q[node_atom[v]] != (bound[m + 1] <= (int64_t) t ? 1.0 : 0.0))
			dpk_fail("tree estimator: the node set cannot express [1, t]");
	}

	/* G[a][b] = nodes containing both atoms' smallest nodes. */
	G = dpk_alloc0((size_t) na * na * sizeof(double));
	for (m = 0; m < nn; m++)
		for (a = 0; a < na; a++)
		{
			const LocalNode *x = &nodes[atom_node[a]];

			if (!(nodes[m].start <= x->start && x->end <= nodes[m].end))
				continue;
			for (b = 0; b <= a; b++)
			{
				const LocalNode *y = &nodes[atom_node[b]];

				if (nodes[m].start <= y->start && y->end <= nodes[m].end)
					G[a * na + b] += 1.0;
			}
		}
	for (a = 0; a < na; a++)
		for (b = 0; b < a; b++)
			G[b * na + a] = G[a * na + b];
	cholesky_solve(G, q, na);

	/*
	 * Exact weights num[m] / DPK_TREE_WEIGHT_DEN: the least squares
	 * rounded, then each atom's equation of (*) made exact by its own node
	 * (the smallest node holding it).  An atom's equation sums its own node
	 * and the nodes containing it (the family is laminar).  Going down the
	 * levels, settling an atom by its own node leaves every equation
	 * settled before intact: their nodes contain their own atoms' nodes,
	 * which are above this one or disjoint from it.
	 */
	num = dpk_alloc((size_t) nn * sizeof(int64_t));
	for (m = 0; m < nn; m++)
	{
		double		w = 0.0;

		for (a = 0; a < na; a++)
		{
			const LocalNode *x = &nodes[atom_node[a]];

			if (nodes[m].start <= x->start && x->end <= nodes[m].end)
				w += q[a];
		}
		if (!(fabs(w) < 64.0))
			dpk_fail("tree estimator: a least-squares weight out of range");
		num[m] = llround(w * (double) DPK_TREE_WEIGHT_DEN);
	}
	for (m = nn - 1; m >= 0; m--)	/* level descending */
	{
		int64_t		above = 0,
					want;
		int			v;

		if (node_atom[m] < 0)
			continue;
		for (v = 0; v < nn; v++)
			if (v != m && nodes[v].start <= nodes[m].start && nodes[m].end <= nodes[v].end)
				above += num[v];
		want = (q_one[node_atom[m]] ? DPK_TREE_WEIGHT_DEN : 0) - above;
		/* the repair moves a weight by a few units of 2^-32, never more */
		if (llabs(want - num[m]) > ((int64_t) 1 << 16))
			dpk_fail("tree estimator: exact weights far from the least squares");
		num[m] = want;
	}
	/* (*) exactly, atom by atom */
	for (a = 0; a < na; a++)
	{
		const LocalNode *x = &nodes[atom_node[a]];
		int64_t		sum = 0;

		for (m = 0; m < nn; m++)
			if (nodes[m].start <= x->start && x->end <= nodes[m].end)
				sum += num[m];
		if (sum != (q_one[a] ? DPK_TREE_WEIGHT_DEN : 0))
			dpk_fail("tree estimator: exact weights miss the identity");
	}

	out->arity = k;
	out->n = 0;
	out->signs = false;
	out->den = DPK_TREE_WEIGHT_DEN;
	out->level = dpk_alloc((size_t) nn * sizeof(int));
	out->index = dpk_alloc((size_t) nn * sizeof(uint32_t));
	out->weight = dpk_alloc((size_t) nn * sizeof(double));
	out->num = dpk_alloc((size_t) nn * sizeof(int64_t));
	for (m = 0; m < nn; m++)
	{
		if (num[m] == 0)
			continue;
		out->level[out->n] = nodes[m].level;
		out->index[out->n] = nodes[m].index;
		out->num[out->n] = num[m];
		out->weight[out->n] = (double) num[m] / (double) DPK_TREE_WEIGHT_DEN;
		out->n++;
	}
	dpk_free(num);
	dpk_free(q_one);
	dpk_free(nodes);
	dpk_free(bound);
	dpk_free(seg_node);
	dpk_free(node_atom);
	dpk_free(atom_node);
	dpk_free(q);
	dpk_free(G);
}

/* Squared norm of the weights. */
double
dpk_tree_weights_norm2(const DpkTreeWeights *w)
{
	double		s = 0.0;
	int			a;

	for (a = 0; a < w->n; a++)
		s += w->weight[a] * w->weight[a];
	return s;
}

/* Free a weight list. */
void
dpk_tree_weights_free(DpkTreeWeights *w)
{
	dpk_free(w->level);
	dpk_free(w->index);
	dpk_free(w->weight);
	dpk_free(w->num);
	w->level = NULL;
	w->index = NULL;
	w->weight = NULL;
	w->num = NULL;
	w->n = 0;
}

/* Release weights of the arity-k tree under an estimator. */
void
dpk_tree_release_weights(DpkTreeEstimator est, int k, uint32_t horizon, uint32_t t,
						 DpkTreeWeights *out)
{
	bool		blue = est == DPK_TREE_LOCAL_BLUE;

	if (k <= DPK_TREE_ARITY_BINARY)
		dpk_tree_weights(2, horizon, blue ? 1 : 0, blue, t, out);
	else
		dpk_tree_weights(k, horizon, 0, blue, t, out);
}

/* Variance of release t in node variances. */
double
dpk_tree_release_norm2(DpkTreeEstimator est, int k, uint32_t horizon, uint32_t t)
{
	DpkTreeWeights w;
	double		v;

	if (est == DPK_TREE_SIGNED)
		return (double) dpk_tree_signed_nodes(k, t);
	dpk_tree_release_weights(est, k, horizon, t, &w);
	v = dpk_tree_weights_norm2(&w);
	dpk_tree_weights_free(&w);
	return v;
}

/* Mean variance over `samples` releases evenly spaced in T/4 .. T. */
static double
mean_norm2(DpkTreeEstimator est, int k, uint32_t horizon, int samples)
{
	double		sum = 0.0;
	uint32_t	lo = (horizon + 3) / 4;
	int			i;

	if (lo < 1)
		lo = 1;
	for (i = 0; i < samples; i++)
		sum += dpk_tree_release_norm2(est, k, horizon,
									  lo + (uint32_t) (((uint64_t) (horizon - lo) * i) /
													   (samples - 1)));
	return sum / samples;
}

/* Typical variance of a release from T/4 on (see tree_estimator.h). */
double
dpk_tree_typical_norm2(DpkTreeEstimator est, int k, uint32_t horizon)
{
	return mean_norm2(est, k, horizon, 33);
}

/* Arity of a new pure table's tree, computed (see tree_estimator.h). */
int
dpk_tree_compute_arity(uint32_t horizon)
{
	double		best = HUGE_VAL;
	int			k,
				arity = DPK_TREE_ARITY_BINARY;

	if (horizon < 1)
		horizon = 1;
	for (k = DPK_TREE_ARITY_BINARY; k <= DPK_TREE_ARITY_MAX; k++)
	{
		double		h = dpk_tree_shape_height(k, horizon),
					v = h * h * mean_norm2(DPK_TREE_LOCAL_BLUE, k, horizon, 129);

		if (v < best * (1.0 - 1e-9))
		{
			best = v;
			arity = k;
		}
	}
	return arity;
}

/*
 * dpk_tree_compute_arity at the horizons 2^0 .. 2^20 (the default 1024
 * among them), which takes 10-200 ms each; test_tree_estimator checks
 * every entry against the computation.
 */
const int	dpk_tree_arity_pow2[DPK_TREE_ARITY_POW2] = {
	2, 4, 8, 16, 7, 10, 15, 16, 11, 13, 13, 16, 11, 16, 16, 8, 8, 16, 16, 8, 8
};

/* Arity of a new pure table's tree (see tree_estimator.h). */
int
dpk_tree_choose_arity(uint32_t horizon)
{
	/* releases ask for it often; the last answer is kept */
	static uint32_t last_horizon = 0;
	static int	last_arity = 0;

	if (horizon < 1)
		horizon = 1;
	if ((horizon & (horizon - 1)) == 0 && horizon < (UINT32_C(1) << DPK_TREE_ARITY_POW2))
	{
		int			e = 0;

		while ((UINT32_C(1) << e) < horizon)
			e++;
		return dpk_tree_arity_pow2[e];
	}
	if (horizon == last_horizon)
		return last_arity;
	last_arity = dpk_tree_compute_arity(horizon);
	last_horizon = horizon;
	return last_arity;
}

/* Nearest integer of base + num / den, ties to even (see tree_estimator.h). */
bool
dpk_round_exact(int64_t base, __int128 num, int64_t den, int64_t *out)
{
	__int128	x = (__int128) base * den + num,
				q = x / den,
				r = x % den;

	if (r < 0)					/* floor: q den <= x < (q + 1) den */
	{
		q -= 1;
		r += den;
	}
	if (2 * r > (__int128) den || (2 * r == (__int128) den && (q & 1) != 0))
		q += 1;
	if (q > (__int128) INT64_MAX || q < (__int128) INT64_MIN)
		return false;
	*out = (int64_t) q;
	return true;
}

/*
 * Published counters of one cell (see tree_estimator.h).  |num| < 2^38 and
 * |eta| < 2^63, so each product is below 2^101 and a sum of fewer than 2^20
 * of them fits the 128-bit accumulator.
 */
void
dpk_cell_noise_weighted(DpkStream *s, const DpkCellKey *ck, const DpkTreeWeights *w,
						const DpkCellScales *sc, const int64_t *truth, int64_t *out,
						const DpkNoiseScratch *scratch)
{
	int			d = sc->d;
	int			dd = sc->sums != DPK_SUMS_NONE ? d : 0;
	int64_t    *tmp = scratch->tmp;
	__int128   *acc = scratch->acc;
	int			a,
				j;

	if (truth)
		memcpy(out, truth, (1 + d) * sizeof(int64_t));
	else
		memset(out, 0, (1 + d) * sizeof(int64_t));
	if (w->signs)
	{
		for (a = 0; a < w->n; a++)
			dpk_node_noise(s, ck,
						   &(DpkTreeNode) {w->arity, w->level[a], w->index[a], (int) w->num[a]},
						   sc, out);
		return;
	}
	memset(acc, 0, (1 + dd) * sizeof(__int128));
	for (a = 0; a < w->n; a++)
	{
		memset(tmp, 0, (1 + dd) * sizeof(int64_t));
		dpk_node_noise(s, ck, &(DpkTreeNode) {w->arity, w->level[a], w->index[a], 1},
					   sc, tmp);
		for (j = 0; j <= dd; j++)
			acc[j] += (__int128) w->num[a] * tmp[j];
	}
	for (j = 0; j <= dd; j++)
		if (!dpk_round_exact(out[j], acc[j], w->den, &out[j]))
			dpk_fail("continual release: a noisy counter beyond 64 bits");
}
