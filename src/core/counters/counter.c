/*
 * counter.c
 *		Virtual tree noise of per-cell counters: binary decompositions and
 *		the node draws of a tree of any arity (see counter.h).
 */
#include "counter.h"

#include <string.h>

#include "dpk_mem.h"

/* Signed dyadic decomposition of [1, t] from its non-adjacent form. */
int
dpk_tree_decompose(uint32_t t, int *node_level, uint32_t *node_index, int *node_sign)
{
	int			digit[34];
	int			ndigits = 0,
				n = 0,
				j;
	int64_t		v = t;
	int64_t		p = 0;

	/* NAF digits, least significant first. */
	while (v != 0)
	{
		int			dgt = 0;

		if (v & 1)
		{
			dgt = 2 - (int) (v & 3);	/* +1 if v = 1 mod 4, -1 if 3 mod 4 */
			v -= dgt;
		}
		digit[ndigits++] = dgt;
		v >>= 1;
	}

	/*
	 * From the top digit down the running prefix p is a multiple of 2^(j+2)
	 * when digit j is reached, so (p, p + 2^j] and (p - 2^j, p] are nodes.
	 */
	for (j = ndigits - 1; j >= 0; j--)
	{
		if (digit[j] == 0)
			continue;
		node_level[n] = j;
		node_sign[n] = digit[j];
		if (digit[j] > 0)
		{
			node_index[n] = (uint32_t) (p >> j) + 1;
			p += (int64_t) 1 << j;
		}
		else
		{
			node_index[n] = (uint32_t) (p >> j);
			p -= (int64_t) 1 << j;
		}
		n++;
	}
#ifdef DPK_ASSERTIONS
	{
		int64_t		covered = 0;

		for (j = 0; j < n; j++)
			covered += (int64_t) node_sign[j] * ((int64_t) 1 << node_level[j]);
		DPK_ASSERT(covered == (int64_t) t);
	}
#endif
	return n;
}

/* Nodes used for release t. */
int
dpk_tree_nodes(uint32_t t)
{
	int			l[34],
				s[34];
	uint32_t	i[34];

	return dpk_tree_decompose(t, l, i, s);
}

/* One node per 1 bit of t, highest first: [1, 2^a], then the next 2^b, ... */
int
dpk_tree_decompose_binary(uint32_t t, int *node_level, uint32_t *node_index)
{
	int			n = 0,
				j;
	uint64_t	p = 0;

	for (j = 31; j >= 0; j--)
	{
		if (!((t >> j) & 1))
			continue;
		node_level[n] = j;
		node_index[n] = (uint32_t) (p >> j) + 1;
		p += (uint64_t) 1 << j;
		n++;
	}
	DPK_ASSERT(p == t);
	return n;
}

/* ceil(log2 T) + 1 levels of the tree over releases 1..T. */
int
dpk_tree_height(uint32_t horizon)
{
	int			h = 0;

	while (h < 32 && (1ull << h) < horizon)
		h++;
	return h + 1;
}

/*
 * Nonce of a tree node of one cell: level (1 byte), node height (1 byte),
 * node index (4 bytes), cell id (low 6 bytes).  Distinct nodes of a table
 * never share a nonce as long as cells fit in 48 bits (checked at attach).
 * Nodes of a k-ary tree (k > 2) set the height byte's top bit and carry k in
 * the index's top byte (indices stay below 2^24 for horizons up to 2^20), so
 * they never share a nonce with a binary node or another arity's node; the
 * binary tree's nonces are those of every earlier version.
 */
static void
node_nonce(int level, uint64_t cell, int arity, int node_level, uint32_t node_index,
		   uint8_t nonce[DPK_NONCE_BYTES])
{
	int			i;

	nonce[0] = (uint8_t) level;
	nonce[1] = (uint8_t) node_level;
	for (i = 0; i < 4; i++)
		nonce[2 + i] = (uint8_t) (node_index >> (8 * i));
	if (arity > 2)
	{
		if (node_index >= (1u << 24) || node_level >= 128)
			dpk_fail("k-ary tree node out of the nonce's range");
		nonce[1] = (uint8_t) (0x80 | node_level);
		nonce[5] = (uint8_t) arity;
	}
	for (i = 0; i < 6; i++)
		nonce[6 + i] = (uint8_t) (cell >> (8 * i));
}

/* One tree node's noise of one cell (see counter.h). */
void
dpk_node_noise(DpkStream *s, const DpkCellKey *ck, const DpkTreeNode *node,
			   const DpkCellScales *sc, int64_t *out)
{
	uint8_t		nonce[DPK_NONCE_BYTES];
	int			sign = node->sign;

	node_nonce(ck->level, ck->cell, node->arity, node->level, node->index, nonce);
	dpk_stream_reseed(s, ck->key, nonce);
	out[0] += sign * dpk_discrete_laplace(s, sc->count);
	if (sc->sums == DPK_SUMS_VECTOR)
		dpk_vector_noise(s, sc->sum, sc->d, sign, out + 1);
	else if (sc->sums == DPK_SUMS_COORDS)
	{
		int			j;

		for (j = 0; j < sc->d; j++)
			out[1 + j] += sign * dpk_discrete_laplace(s, sc->sum);
	}
}

/* Continual noise of one cell at release t (see counter.h). */
void
dpk_cell_noise(DpkStream *s, const DpkCellKey *ck, uint32_t t,
			   const DpkCellScales *sc, int64_t *out)
{
	int			node_level[34],
				node_sign[34];
	uint32_t	node_index[34];
	int			nodes = dpk_tree_decompose(t, node_level, node_index, node_sign);
	int			a;

	memset(out, 0, (1 + sc->d) * sizeof(int64_t));
	for (a = 0; a < nodes; a++)
		dpk_node_noise(s, ck, &(DpkTreeNode) {2, node_level[a], node_index[a], node_sign[a]},
					   sc, out);
}

/* Gaussian continual noise of one cell at release t (see counter.h). */
void
dpk_cell_noise_gauss(DpkStream *s, const DpkCellKey *ck, uint32_t t,
					 const DpkCellVars *vars, int64_t *out)
{
	int			node_level[34];
	uint32_t	node_index[34];
	int			nodes = dpk_tree_decompose_binary(t, node_level, node_index);
	int			a;

	memset(out, 0, (1 + vars->d) * sizeof(int64_t));
	for (a = 0; a < nodes; a++)
	{
		uint8_t		nonce[DPK_NONCE_BYTES];

		node_nonce(ck->level, ck->cell, 2, node_level[a], node_index[a], nonce);
		dpk_stream_reseed(s, ck->key, nonce);
		out[0] += dpk_discrete_gaussian(s, vars->count);
		if (vars->sums == DPK_SUMS_VECTOR)
			dpk_gauss_vector_noise(s, vars->sum, vars->d, 1, out + 1);
	}
}

/* One binary node's Gaussian noise of one cell (see counter.h). */
void
dpk_node_noise_gauss(DpkStream *s, const DpkCellKey *ck, int node_level, uint32_t node_index,
					 const DpkCellVars *vars, int64_t *out)
{
	uint8_t		nonce[DPK_NONCE_BYTES];

	memset(out, 0, (1 + vars->d) * sizeof(int64_t));
	node_nonce(ck->level, ck->cell, 2, node_level, node_index, nonce);
	dpk_stream_reseed(s, ck->key, nonce);
	out[0] = dpk_discrete_gaussian(s, vars->count);
	if (vars->sums == DPK_SUMS_VECTOR)
		dpk_gauss_vector_noise(s, vars->sum, vars->d, 1, out + 1);
}
