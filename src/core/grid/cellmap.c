/*
 * cellmap.c
 *		Sparse per-cell counters: open addressing on 64-bit cell ids, merge,
 *		serialised forms (see cellmap.h).
 */
#include "cellmap.h"

#include <stdlib.h>
#include <string.h>

#include "dpk_mem.h"

#define CELLMAP_MAGIC 0x44504b43454c4c31ULL	/* "DPKCELL1" */
#define CELLMAP_MAGIC_PADDED 0x44504b43454c4c32ULL	/* "DPKCELL2" */

/* Mix a cell id into a slot hash (splitmix64 finaliser). */
static inline uint64_t
cell_hash(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Allocate empty slot arrays of the given capacity. */
static void
cellmap_alloc(DpkCellMap *m, size_t cap)
{
	m->cap = cap;
	m->n = 0;
	m->keys = dpk_alloc0(cap * sizeof(uint64_t));
	/* a slot's counters are zeroed when its cell is created (dpk_cellmap_get) */
	m->vals = dpk_alloc(cap * (1 + m->d) * sizeof(int64_t));
}

/* An empty map (see cellmap.h). */
void
dpk_cellmap_init(DpkCellMap *m, int d)
{
	m->d = d;
	cellmap_alloc(m, 64);
}

/* Free the map. */
void
dpk_cellmap_free(DpkCellMap *m)
{
	dpk_free(m->keys);
	dpk_free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->n = m->cap = 0;
}

/* Slot of a cell: its own, or the empty one where it would go. */
static size_t
cellmap_slot(const DpkCellMap *m, uint64_t cell)
{
	size_t		mask = m->cap - 1;
	size_t		i = (size_t) cell_hash(cell) & mask;

	while (m->keys[i] != 0 && m->keys[i] != cell + 1)
		i = (i + 1) & mask;
	return i;
}

/* Move every cell into new arrays of capacity cap (a power of two). */
static void
cellmap_resize(DpkCellMap *m, size_t cap)
{
	DpkCellMap	old = *m;
	size_t		i;
	int			w = 1 + m->d;

	cellmap_alloc(m, cap);
	for (i = 0; i < old.cap; i++)
		if (old.keys[i] != 0)
		{
			size_t		s = cellmap_slot(m, old.keys[i] - 1);

			m->keys[s] = old.keys[i];
			memcpy(m->vals + s * w, old.vals + i * w, w * sizeof(int64_t));
			m->n++;
		}
	dpk_free(old.keys);
	dpk_free(old.vals);
}

/* Double the capacity. */
static void
cellmap_grow(DpkCellMap *m)
{
	cellmap_resize(m, m->cap * 2);
}

/*
 * Room for n cells without growing (see cellmap.h): one allocation instead
 * of doubling from 64, each doubling zeroing and copying (1 + d) values a
 * slot, which dominated reading a stored map of many columns.
 */
void
dpk_cellmap_reserve(DpkCellMap *m, size_t n)
{
	size_t		cap = m->cap;

	while ((n + 1) * 4 > cap * 3)
		cap *= 2;
	if (cap != m->cap)
		cellmap_resize(m, cap);
}

/* The counters of a cell, created if absent. */
int64_t *
dpk_cellmap_get(DpkCellMap *m, uint64_t cell)
{
	size_t		s;

	if ((m->n + 1) * 4 > m->cap * 3)
		cellmap_grow(m);
	s = cellmap_slot(m, cell);
	if (m->keys[s] == 0)
	{
		m->keys[s] = cell + 1;
		m->n++;
		memset(m->vals + s * (1 + m->d), 0, (1 + m->d) * sizeof(int64_t));
	}
	DPK_ASSERT(m->n < m->cap && m->keys[s] == cell + 1);
	return m->vals + s * (1 + m->d);
}

/* The counters of a cell, or NULL. */
const int64_t *
dpk_cellmap_find(const DpkCellMap *m, uint64_t cell)
{
	size_t		s = cellmap_slot(m, cell);

	return m->keys[s] == 0 ? NULL : m->vals + s * (1 + m->d);
}

/* One point in (+1) or out (-1) of a cell. */
void
dpk_cellmap_add_point(DpkCellMap *m, uint64_t cell, const int64_t *rel, int sign)
{
	int64_t    *v = dpk_cellmap_get(m, cell);
	int			j;

	v[0] += sign;
	for (j = 0; j < m->d; j++)
		v[1 + j] += sign * rel[j];
}

/* dst += sign * src. */
void
dpk_cellmap_merge(DpkCellMap *dst, const DpkCellMap *src, int sign)
{
	size_t		i;
	int			j,
				w = 1 + src->d;

	for (i = 0; i < src->cap; i++)
		if (src->keys[i] != 0)
		{
			int64_t    *v = dpk_cellmap_get(dst, src->keys[i] - 1);

			for (j = 0; j < w; j++)
				v[j] += sign * src->vals[i * w + j];
		}
}

/* Are all counters of a zero? */
static bool
all_zero(const int64_t *v, int w)
{
	int			j;

	for (j = 0; j < w; j++)
		if (v[j] != 0)
			return false;
	return true;
}

/* Every cell of a is matched in b (absent = all zero). */
static bool
cellmap_covered(const DpkCellMap *a, const DpkCellMap *b)
{
	size_t		i;
	int			w = 1 + a->d;

	for (i = 0; i < a->cap; i++)
		if (a->keys[i] != 0)
		{
			const int64_t *o = dpk_cellmap_find(b, a->keys[i] - 1);

			if (o == NULL ? !all_zero(a->vals + i * w, w)
				: memcmp(o, a->vals + i * w, w * sizeof(int64_t)) != 0)
				return false;
		}
	return true;
}

/* Equality of two maps, cells at zero counting as absent. */
bool
dpk_cellmap_equal(const DpkCellMap *a, const DpkCellMap *b)
{
	return a->d == b->d && cellmap_covered(a, b) && cellmap_covered(b, a);
}

/* Write a 64-bit word little-endian. */
static inline void
put64(uint8_t *p, uint64_t v)
{
	int			i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

/* Read a little-endian 64-bit word. */
static inline uint64_t
get64(const uint8_t *p)
{
	uint64_t	v = 0;
	int			i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Number of cells of m with a non-zero counter. */
static size_t
nonzero_cells(const DpkCellMap *m)
{
	int			w = 1 + m->d;
	size_t		n = 0,
				i;

	for (i = 0; i < m->cap; i++)
		if (m->keys[i] != 0 && !all_zero(m->vals + i * w, w))
			n++;
	return n;
}

/* A cell of a map and its slot, for writing cells in key order. */
typedef struct CellSlot
{
	uint64_t	key;
	size_t		slot;
} CellSlot;

/* qsort order of CellSlot: ascending key. */
static int
cmp_cell_slot(const void *a, const void *b)
{
	uint64_t	ka = ((const CellSlot *) a)->key,
				kb = ((const CellSlot *) b)->key;

	return ka < kb ? -1 : ka > kb;
}

/*
 * Write the non-zero cells of m at p (n of them) in ascending cell order;
 * returns the end.  The order makes the bytes a function of the counters
 * alone: equal states serialise equally whatever history built them (the
 * hash slots would reflect the order of insertions and growths).
 */
static uint8_t *
put_cells(const DpkCellMap *m, uint8_t *p)
{
	int			w = 1 + m->d;
	size_t		i,
				n = 0;
	int			j;
	CellSlot   *order = dpk_alloc((nonzero_cells(m) + 1) * sizeof(CellSlot));

	for (i = 0; i < m->cap; i++)
		if (m->keys[i] != 0 && !all_zero(m->vals + i * w, w))
		{
			order[n].key = m->keys[i];
			order[n++].slot = i;
		}
	qsort(order, n, sizeof(CellSlot), cmp_cell_slot);
	for (i = 0; i < n; i++)
	{
		put64(p, order[i].key - 1);
		p += 8;
		for (j = 0; j < w; j++, p += 8)
			put64(p, (uint64_t) m->vals[order[i].slot * w + j]);
	}
	dpk_free(order);
	return p;
}

/* Length of the serialised form (see cellmap.h). */
size_t
dpk_cellmap_serialized_len(const DpkCellMap *m, bool padded, uint64_t pad_to)
{
	size_t		n = nonzero_cells(m),
				entry = (size_t) (2 + m->d) * 8;

	if (!padded)
		return 24 + n * entry;
	return 32 + (pad_to > n ? (size_t) pad_to : n) * entry;
}

/* Write the serialised form into buf (see cellmap.h). */
void
dpk_cellmap_serialize_to(const DpkCellMap *m, bool padded, uint64_t pad_to, uint8_t *buf)
{
	size_t		n = nonzero_cells(m),
				npad = padded && pad_to > n ? (size_t) (pad_to - n) : 0,
				entry = (size_t) (2 + m->d) * 8;
	uint8_t    *p;

	put64(buf, padded ? CELLMAP_MAGIC_PADDED : CELLMAP_MAGIC);
	put64(buf + 8, (uint64_t) m->d);
	put64(buf + 16, (uint64_t) n);
	if (padded)
		put64(buf + 24, (uint64_t) npad);
	p = put_cells(m, buf + (padded ? 32 : 24));
	memset(p, 0, npad * entry);
}

/* Serialise the non-zero cells (see cellmap.h). */
uint8_t *
dpk_cellmap_serialize(const DpkCellMap *m, size_t *len)
{
	uint8_t    *buf;

	*len = dpk_cellmap_serialized_len(m, false, 0);
	buf = dpk_alloc(*len);
	dpk_cellmap_serialize_to(m, false, 0, buf);
	return buf;
}

/* Serialise with zero padding up to pad_to entries (see cellmap.h). */
uint8_t *
dpk_cellmap_serialize_padded(const DpkCellMap *m, uint64_t pad_to, size_t *len)
{
	uint8_t    *buf;

	*len = dpk_cellmap_serialized_len(m, true, pad_to);
	buf = dpk_alloc(*len);
	dpk_cellmap_serialize_to(m, true, pad_to, buf);
	return buf;
}

/* Whether every counter of dense cell c is zero (as an int64). */
static bool
dense_zero(const DpkDenseCells *h, uint64_t c)
{
	int			j;

	if ((int64_t) h->count[c] != 0)
		return false;
	for (j = 0; h->sum && j < h->d; j++)
		if ((int64_t) h->sum[c * h->d + j] != 0)
			return false;
	return true;
}

/*
 * Length of a dense histogram's serialised form (see cellmap.h): every
 * entry in the padded form, else the cells with a non-zero counter.
 */
size_t
dpk_cellmap_dense_len(const DpkDenseCells *h, bool padded)
{
	size_t		entry = (size_t) (2 + h->d) * 8,
				n = 0;
	uint64_t	c;

	if (padded)
		return 32 + (size_t) h->ncells * entry;
	for (c = 0; c < h->ncells; c++)
		n += !dense_zero(h, c);
	return 24 + n * entry;
}

/*
 * Write a dense histogram's serialised form into buf (see cellmap.h): the
 * non-zero cells in ascending order, then the padding.
 */
void
dpk_cellmap_dense_serialize_to(const DpkDenseCells *h, bool padded, uint8_t *buf)
{
	int			d = h->d,
				j;
	size_t		entry = (size_t) (2 + d) * 8,
				n = 0;
	uint8_t    *p = buf + (padded ? 32 : 24);
	uint64_t	c;

	for (c = 0; c < h->ncells; c++)
	{
		if (dense_zero(h, c))
			continue;
		put64(p, c);
		put64(p + 8, (uint64_t) (int64_t) h->count[c]);
		for (j = 0; j < d; j++)
			put64(p + 16 + (size_t) j * 8,
				  (uint64_t) (h->sum ? (int64_t) h->sum[c * d + j] : 0));
		p += entry;
		n++;
	}
	put64(buf, padded ? CELLMAP_MAGIC_PADDED : CELLMAP_MAGIC);
	put64(buf + 8, (uint64_t) d);
	put64(buf + 16, (uint64_t) n);
	if (padded)
	{
		put64(buf + 24, (uint64_t) (h->ncells - n));
		memset(p, 0, (h->ncells - n) * entry);
	}
}

/*
 * The header of a serialised map (see cellmap.h): avail bytes of it at buf
 * (at least 32 or all of len), len the whole form's length.
 */
bool
dpk_cellmap_serialized_header(const uint8_t *buf, size_t avail, size_t len, int d,
							  size_t *head, uint64_t *n)
{
	size_t		entry = (size_t) (2 + d) * 8;
	uint64_t	npad = 0;

	if (len < 24 || avail < 24 || get64(buf + 8) != (uint64_t) d)
		return false;
	if (get64(buf) == CELLMAP_MAGIC)
		*head = 24;
	else if (get64(buf) == CELLMAP_MAGIC_PADDED && len >= 32 && avail >= 32)
	{
		*head = 32;
		npad = get64(buf + 24);
	}
	else
		return false;
	*n = get64(buf + 16);
	return *n <= (len - *head) / entry && npad <= (len - *head) / entry - *n &&
		len == *head + (*n + npad) * entry;
}

/* Add n serialised entries at p into m, times sign (see cellmap.h). */
void
dpk_cellmap_merge_entries(DpkCellMap *m, const uint8_t *p, uint64_t n, int sign)
{
	int			w = 1 + m->d,
				j;
	uint64_t	i;

	for (i = 0; i < n; i++)
	{
		int64_t    *v = dpk_cellmap_get(m, get64(p));

		p += 8;
		for (j = 0; j < w; j++, p += 8)
			v[j] += sign * (int64_t) get64(p);
	}
}

/* m += sign * (serialised map), either form. */
bool
dpk_cellmap_merge_serialized(DpkCellMap *m, const uint8_t *buf, size_t len, int sign)
{
	size_t		head;
	uint64_t	n;

	if (!dpk_cellmap_serialized_header(buf, len, len, m->d, &head, &n))
		return false;
	dpk_cellmap_reserve(m, m->n > n ? m->n : (size_t) n);
	dpk_cellmap_merge_entries(m, buf + head, n, sign);
	return true;
}

/* Iterate over occupied slots. */
bool
dpk_cellmap_next(const DpkCellMap *m, size_t *pos, uint64_t *cell, const int64_t **vals)
{
	while (*pos < m->cap)
	{
		size_t		i = (*pos)++;

		if (m->keys[i] != 0)
		{
			*cell = m->keys[i] - 1;
			*vals = m->vals + i * (1 + m->d);
			return true;
		}
	}
	return false;
}
