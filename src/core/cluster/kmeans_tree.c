/*
 * kmeans_tree.c
 *		The kd-tree of Lloyd's filtering algorithm (kmeans_filter.c): built
 *		once per weighted point set, each node with its points' box, weight,
 *		mean and spread.
 *
 * The points are sorted by Morton key (their positions in the set's box
 * quantized and the bits interleaved), and a node splits where the
 * highest bit in which its keys differ turns to 1: each split halves a
 * cell of the box across one side, so the nodes are the non-empty cells
 * of a binary subdivision of the box, down to leaves of at most
 * DPK_KM_LEAF points (or of one finest cell).  Each node keeps the tight
 * box of its points; the statistics are combined from the leaves up, so
 * the build costs a radix sort and a pass over the points and nodes
 * (doc/decisions/071-kmeans-filter.md).
 */
#include "kmeans_int.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dpk_mem.h"

/* Points per leaf: above this a node is split. */
#define DPK_KM_LEAF 8

/* The 32 low bits of v spread to the even bits (bit b to bit 2b). */
static inline uint64_t
km_spread2(uint64_t v)
{
	v &= UINT64_C(0xFFFFFFFF);
	v = (v | (v << 16)) & UINT64_C(0x0000FFFF0000FFFF);
	v = (v | (v << 8)) & UINT64_C(0x00FF00FF00FF00FF);
	v = (v | (v << 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
	v = (v | (v << 2)) & UINT64_C(0x3333333333333333);
	return (v | (v << 1)) & UINT64_C(0x5555555555555555);
}

/*
 * The Morton key of point x: each coordinate's position in the box [lo,
 * lo + width] quantized to bits bits, the bits interleaved from the
 * highest.  Sorted by key, the points of any cell of the box's binary
 * subdivision are contiguous.
 */
static uint64_t
km_morton(const double *x, const double *lo, const double *width, int d, int bits)
{
	uint64_t	q[DPK_KM_FILTER_MAX_D],
				key = 0;
	double		top = (double) ((UINT64_C(1) << bits) - 1);
	int			b,
				s;

	for (s = 0; s < d; s++)
	{
		double		u = width[s] > 0.0 ? (x[s] - lo[s]) / width[s] * top : 0.0;

		q[s] = u > 0.0 ? (u < top ? (uint64_t) u : (uint64_t) top) : 0;
	}
	if (d == 1)
		return q[0];
	if (d == 2)
		return (km_spread2(q[0]) << 1) | km_spread2(q[1]);
	for (b = bits - 1; b >= 0; b--)
		for (s = 0; s < d; s++)
			key = (key << 1) | ((q[s] >> b) & 1);
	return key;
}

/*
 * Sort the n keys (and their points' indices idx alike) by LSD radix, a
 * byte at a time, skipping the bytes every key shares.  tmpk and tmpi are
 * scratch of n each.
 */
static void
km_radix_sort(uint64_t *key, int *idx, int n, uint64_t *tmpk, int *tmpi)
{
	int			shift,
				i;

	for (shift = 0; shift < 64; shift += 8)
	{
		int			count[257] = {0};

		for (i = 0; i < n; i++)
			count[((key[i] >> shift) & 255) + 1]++;
		for (i = 0; i < 256; i++)
			if (count[i + 1] == n)
				break;
		if (i < 256)
			continue;			/* one bucket: this byte orders nothing */
		for (i = 0; i < 256; i++)
			count[i + 1] += count[i];
		for (i = 0; i < n; i++)
		{
			int			to = count[(key[i] >> shift) & 255]++;

			tmpk[to] = key[i];
			tmpi[to] = idx[i];
		}
		memcpy(key, tmpk, sizeof(uint64_t) * (size_t) n);
		memcpy(idx, tmpi, sizeof(int) * (size_t) n);
	}
}

/*
 * Lay out the subtree of tree positions [b, e) (keys sorted) as node
 * t->nnodes at level lev: split where the highest bit in which its keys
 * differ turns to 1, i.e. a cell of the box halved across one side.
 */
static void
km_build_node(KmTree *t, const uint64_t *key, int b, int e, int lev)
{
	int			v = t->nnodes++;
	uint64_t	diff = key[b] ^ key[e - 1],
				bit;
	int			lo,
				hi;

	t->begin[v] = b;
	t->end[v] = e;
	t->right[v] = -1;
	t->owner[v] = -1;
	if (lev > t->depth)
		t->depth = lev;
	if (e - b <= DPK_KM_LEAF || diff == 0)
	{
		if (e - b > t->maxleaf)
			t->maxleaf = e - b;
		return;
	}					/* small, or one cell of the finest grid */
	bit = UINT64_C(1) << (63 - __builtin_clzll(diff));
	/* the first position whose key has that bit set */
	lo = b;
	hi = e - 1;
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (key[mid] & bit)
			hi = mid;
		else
			lo = mid + 1;
	}
	km_build_node(t, key, b, lo, lev + 1);
	t->right[v] = t->nnodes;
	km_build_node(t, key, lo, e, lev + 1);
}

/*
 * The statistics of leaf v from its points: box, weight, mean (from its
 * first point of positive weight, so identical points give exactly their
 * own coordinates), the mean's residual and the spread.
 */
static void
km_leaf_stats(KmTree *t, int v)
{
	int			d = t->d,
				b = t->begin[v],
				e = t->end[v],
				i,
				s;
	double	   *lo = t->lo + (size_t) v * d,
			   *hi = t->hi + (size_t) v * d,
			   *mean = t->mean + (size_t) v * d,
			   *res = t->res + (size_t) v * d;
	double		W = 0.0,
				m2 = 0.0,
				xnmax = 0.0;
	int			o = -1;

	for (s = 0; s < d; s++)
	{
		lo[s] = hi[s] = t->x[(size_t) b * d + s];
		mean[s] = res[s] = 0.0;
	}
	for (i = b; i < e; i++)
	{
		const double *xi = t->x + (size_t) i * d;

		for (s = 0; s < d; s++)
		{
			lo[s] = xi[s] < lo[s] ? xi[s] : lo[s];
			hi[s] = xi[s] > hi[s] ? xi[s] : hi[s];
		}
		xnmax = t->xn[i] > xnmax ? t->xn[i] : xnmax;
		if (t->w[i] > 0.0)
		{
			if (o < 0)
				o = i;
			for (s = 0; s < d; s++)
				mean[s] += t->w[i] * (xi[s] - t->x[(size_t) o * d + s]);
			W += t->w[i];
		}
	}
	for (s = 0; s < d; s++)
		mean[s] = o >= 0 ? t->x[(size_t) o * d + s] + mean[s] / W : 0.5 * (lo[s] + hi[s]);
	for (i = b; i < e && o >= 0; i++)
	{
		const double *xi = t->x + (size_t) i * d;

		if (!(t->w[i] > 0.0))
			continue;
		for (s = 0; s < d; s++)
		{
			double		diff = xi[s] - mean[s];

			res[s] += t->w[i] * diff;
			m2 += t->w[i] * diff * diff;
		}
	}
	t->wsum[v] = W;
	t->m2[v] = m2;
	t->xnmax[v] = xnmax;
	t->origin[v] = o;
}

/*
 * The statistics of inner node v from its children's: the union of their
 * boxes, and weight, mean, residual and spread combined exactly (the
 * spread about a point m of a child of mean mc, residual rc, weight wc
 * and spread sc is sc + 2 (mc - m).rc + wc ||mc - m||^2).
 */
static void
km_inner_stats(KmTree *t, int v)
{
	int			d = t->d,
				ch[2] = {v + 1, t->right[v]},
				q,
				s;
	double	   *lo = t->lo + (size_t) v * d,
			   *hi = t->hi + (size_t) v * d,
			   *mean = t->mean + (size_t) v * d,
			   *res = t->res + (size_t) v * d;
	int			o = t->origin[ch[0]] >= 0 ? t->origin[ch[0]] : t->origin[ch[1]];
	double		W = t->wsum[ch[0]] + t->wsum[ch[1]],
				m2 = 0.0;

	for (s = 0; s < d; s++)
	{
		double		l0 = t->lo[(size_t) ch[0] * d + s],
					l1 = t->lo[(size_t) ch[1] * d + s],
					h0 = t->hi[(size_t) ch[0] * d + s],
					h1 = t->hi[(size_t) ch[1] * d + s];

		lo[s] = l0 < l1 ? l0 : l1;
		hi[s] = h0 > h1 ? h0 : h1;
		mean[s] = o >= 0 ? 0.0 : 0.5 * (lo[s] + hi[s]);
		res[s] = 0.0;
	}
	for (q = 0; q < 2 && o >= 0; q++)
		if (t->wsum[ch[q]] > 0.0)
			for (s = 0; s < d; s++)
				mean[s] += t->wsum[ch[q]] * (t->mean[(size_t) ch[q] * d + s] -
											 t->x[(size_t) o * d + s]);
	for (s = 0; s < d && o >= 0; s++)
		mean[s] = t->x[(size_t) o * d + s] + mean[s] / W;
	for (q = 0; q < 2 && o >= 0; q++)
	{
		double		wc = t->wsum[ch[q]];

		if (!(wc > 0.0))
			continue;
		m2 += t->m2[ch[q]];
		for (s = 0; s < d; s++)
		{
			double		diff = t->mean[(size_t) ch[q] * d + s] - mean[s],
						rc = t->res[(size_t) ch[q] * d + s];

			res[s] += rc + wc * diff;
			m2 += 2.0 * diff * rc + wc * diff * diff;
		}
	}
	t->wsum[v] = W;
	t->m2[v] = m2;
	t->xnmax[v] = t->xnmax[ch[0]] > t->xnmax[ch[1]] ? t->xnmax[ch[0]] : t->xnmax[ch[1]];
	t->origin[v] = o;
}

/* The kd-tree of a weighted point set (see kmeans_int.h). */
KmTree *
dpk_km_tree_build(const double *x, const double *sw, const double *xnorm, int n, int d, int k)
{
	KmTree	   *t;
	int			maxnodes = 2 * n,
				bits = d == 1 ? 32 : d <= 4 ? 16 : 12,
				i,
				s;
	size_t		nd;
	double		lo[DPK_KM_FILTER_MAX_D],
				width[DPK_KM_FILTER_MAX_D];
	uint64_t   *key,
			   *tmpk;
	int		   *tmpi;

	if (n < 1 || d < 1 || d > DPK_KM_FILTER_MAX_D)
		return NULL;
	/* the box of the points; none without finite coordinates */
	for (s = 0; s < d; s++)
	{
		double		hi = x[s];

		lo[s] = x[s];
		for (i = 1; i < n; i++)
		{
			double		xv = x[(size_t) i * d + s];

			lo[s] = xv < lo[s] ? xv : lo[s];
			hi = xv > hi ? xv : hi;
		}
		width[s] = hi - lo[s];
		if (!isfinite(width[s]))
			return NULL;		/* an infinite coordinate, or a NaN at the ends */
		for (i = 0; i < n; i++)
			if (isnan(x[(size_t) i * d + s]))
				return NULL;
	}

	t = dpk_alloc(sizeof(KmTree));
	t->n = n;
	t->d = d;
	t->k = k;
	t->nnodes = 0;
	t->depth = 0;
	t->maxleaf = 1;
	t->x = dpk_alloc(sizeof(double) * (size_t) n * d);
	t->w = dpk_alloc(sizeof(double) * (size_t) n);
	t->xn = dpk_alloc(sizeof(double) * (size_t) n);
	t->perm = dpk_alloc(sizeof(int) * (size_t) n);
	t->label = dpk_alloc(sizeof(int) * (size_t) n);
	t->begin = dpk_alloc(sizeof(int) * (size_t) maxnodes);
	t->end = dpk_alloc(sizeof(int) * (size_t) maxnodes);
	t->right = dpk_alloc(sizeof(int) * (size_t) maxnodes);
	t->origin = dpk_alloc(sizeof(int) * (size_t) maxnodes);
	t->owner = dpk_alloc(sizeof(int) * (size_t) maxnodes);
	t->refx = dpk_alloc(sizeof(double) * (size_t) k * d);
	t->has_ref = dpk_alloc(sizeof(bool) * (size_t) k);

	key = dpk_alloc(sizeof(uint64_t) * (size_t) n);
	tmpk = dpk_alloc(sizeof(uint64_t) * (size_t) n);
	tmpi = dpk_alloc(sizeof(int) * (size_t) n);
	for (i = 0; i < n; i++)
	{
		t->perm[i] = i;
		key[i] = km_morton(x + (size_t) i * d, lo, width, d, bits);
	}
	km_radix_sort(key, t->perm, n, tmpk, tmpi);
	km_build_node(t, key, 0, n, 0);
	dpk_free(key);
	dpk_free(tmpk);
	dpk_free(tmpi);
	nd = (size_t) t->nnodes * d;
	t->lo = dpk_alloc(sizeof(double) * nd);
	t->hi = dpk_alloc(sizeof(double) * nd);
	t->mean = dpk_alloc(sizeof(double) * nd);
	t->res = dpk_alloc(sizeof(double) * nd);
	t->wsum = dpk_alloc(sizeof(double) * (size_t) t->nnodes);
	t->m2 = dpk_alloc(sizeof(double) * (size_t) t->nnodes);
	t->xnmax = dpk_alloc(sizeof(double) * (size_t) t->nnodes);

	for (i = 0; i < n; i++)
	{
		memcpy(t->x + (size_t) i * d, x + (size_t) t->perm[i] * d, sizeof(double) * d);
		t->w[i] = km_weight(sw, t->perm[i]);
		t->xn[i] = xnorm[t->perm[i]];
		t->label[i] = -1;
	}
	/* children come after their parent in preorder */
	for (i = t->nnodes - 1; i >= 0; i--)
	{
		if (t->right[i] < 0)
			km_leaf_stats(t, i);
		else
			km_inner_stats(t, i);
	}
	t->cand = dpk_alloc(sizeof(int) * (size_t) (t->depth + 2) * k);
	t->g = dpk_alloc(sizeof(double) * (size_t) t->maxleaf * k);
	return t;
}

/* Free a kd-tree. */
void
dpk_km_tree_free(KmTree *t)
{
	if (t == NULL)
		return;
	dpk_free(t->x);
	dpk_free(t->w);
	dpk_free(t->xn);
	dpk_free(t->perm);
	dpk_free(t->label);
	dpk_free(t->begin);
	dpk_free(t->end);
	dpk_free(t->right);
	dpk_free(t->origin);
	dpk_free(t->owner);
	dpk_free(t->lo);
	dpk_free(t->hi);
	dpk_free(t->mean);
	dpk_free(t->res);
	dpk_free(t->wsum);
	dpk_free(t->m2);
	dpk_free(t->xnmax);
	dpk_free(t->g);
	dpk_free(t->refx);
	dpk_free(t->has_ref);
	dpk_free(t->cand);
	dpk_free(t);
}

/* Forget the last assignment: the next pass counts as a change. */
void
dpk_km_tree_reset(KmTree *t)
{
	int			i;

	for (i = 0; i < t->nnodes; i++)
		t->owner[i] = -1;
	for (i = 0; i < t->n; i++)
		t->label[i] = -1;
}

/* The centre of every point at the last pass, in the original order. */
static void
km_tree_labels(const KmTree *t, int v, int old, int *assign)
{
	int			i;

	if (old < 0)
		old = t->owner[v];
	if (old >= 0 || t->right[v] < 0)
	{
		for (i = t->begin[v]; i < t->end[v]; i++)
			assign[t->perm[i]] = old >= 0 ? old : t->label[i];
		return;
	}
	km_tree_labels(t, v + 1, old, assign);
	km_tree_labels(t, t->right[v], old, assign);
}

/* The last pass's assignment in the original order (see kmeans_int.h). */
void
dpk_km_tree_assign(const KmTree *t, int *assign)
{
	if (t->n > 0)
		km_tree_labels(t, 0, -1, assign);
}

/* The reference point of cluster j at the last pass (see kmeans_int.h). */
const double *
dpk_km_tree_ref(const KmTree *t, int j)
{
	return t->has_ref[j] ? t->refx + (size_t) j * t->d : NULL;
}
