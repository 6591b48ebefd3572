/*
 * cellmap.h
 *		The true per-cell counters of a live table: a sparse map
 *		cell -> (count, sums[d]) and its serialised forms (stored state and
 *		deltas).
 */
#ifndef DPK_CELLMAP_H
#define DPK_CELLMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * Make room for n cells, so that the map holds n without growing; never
 * shrinks.  Merging a map of n cells into m holds at least max(m->n, n).
 */
void		dpk_cellmap_reserve(DpkCellMap *m, size_t n);

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
 * The same written into a caller's buffer of dpk_cellmap_serialized_len
 * bytes (padded: the padded form up to pad_to entries; else the plain one),
 * so a stored value needs no second copy.
 */
size_t		dpk_cellmap_serialized_len(const DpkCellMap *m, bool padded, uint64_t pad_to);
void		dpk_cellmap_serialize_to(const DpkCellMap *m, bool padded, uint64_t pad_to,
									 uint8_t *buf);

/*
 * A dense histogram of cells 0 .. ncells - 1: count[c] and sum[c * d + j]
 * (NULL: every sum zero), doubles holding integers (noisy counters).
 */
typedef struct DpkDenseCells
{
	int			d;
	uint64_t	ncells;
	const double *count;
	const double *sum;
} DpkDenseCells;

/*
 * Its serialised form, byte for byte that of the map holding every cell
 * (each counter cast to int64) padded to ncells entries (padded), or the
 * plain form: cells with every counter zero are left out (become padding).
 * No map of d-wide cells is built.
 */
size_t		dpk_cellmap_dense_len(const DpkDenseCells *h, bool padded);
void		dpk_cellmap_dense_serialize_to(const DpkDenseCells *h, bool padded, uint8_t *buf);

/*
 * Reading a serialised map in pieces: its header from the first avail
 * bytes (at least 32, or all of it), len the whole length; false when
 * malformed or of another dimension than d, else the header's length in
 * *head and the number of cells in *n (the n entries follow the header,
 * each 8 (2 + d) bytes; the padding after them is never read).  Then
 * dpk_cellmap_merge_entries adds entries to m, times sign.
 */
bool		dpk_cellmap_serialized_header(const uint8_t *buf, size_t avail, size_t len,
										  int d, size_t *head, uint64_t *n);
void		dpk_cellmap_merge_entries(DpkCellMap *m, const uint8_t *p, uint64_t n, int sign);

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

#endif
