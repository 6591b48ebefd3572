/*
 * live_regions.c
 *		Lifting sums keyed by public regions (see live_regions.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "dgauss.h"
#include "dpk_mem.h"
#include "grid.h"
#include "highd.h"
#include "kmeans.h"
#include "lift.h"
#include "live_regions.h"
#include "live_regions_int.h"
#include "tree_estimator.h"


/*
 * Serialized state: magic, then version.  Version 1: complete nodes at every
 * release; version 2 adds the signed_digits flag.
 */
#define REGIONS_MAGIC 0x52504b44u	/* "DKPR" */
#define REGIONS_VERSION_COMPLETE 1u
#define REGIONS_VERSION 2u

/* Whether a configuration can lift by regions (see live_regions.h). */
bool
dpk_regions_supported(const DpkLiveConfig *cfg)
{
	return cfg->dhat > 0 && cfg->delta <= 0.0 && cfg->copies == 1 && cfg->arity >= 3 &&
		cfg->k >= 1 && cfg->k <= 255;
}

/* The switch of new tables (see live_regions.h). */
bool
dpk_live_use_regions(const DpkLiveConfig *cfg)
{
	/*
	 * Tables with deletions too, from a larger noise: a deleted row is keyed
	 * by the map of its deletion's node, not its insertion's, and the two
	 * cancel only where both regions go to the same centre.  With complete
	 * nodes only (format 1) the d = 64 window at horizon 1024 lost 4 %; with
	 * the signed digits of format 2 it gains 10 % (doc/decisions/015-lift-by-regions.md).  One cell a copy (the mean only,
	 * DPK_LIVE_MEAN_ONLY_SD) has no regions to key.
	 */
	if (!dpk_regions_supported(cfg) || cfg->level == 0)
		return false;
	if (cfg->insert_only)
		return dpk_live_level_sum_sd(cfg) >= DPK_LIVE_REGIONS_SUM_SD;
	return dpk_live_level_sum_sd(cfg) * sqrt((double) cfg->d) >= DPK_LIVE_REGIONS_DELETE_SUM_NORM;
}

/* The regions' sum configuration (see live_regions.h). */
void
dpk_regions_sum_config(const DpkLiveConfig *cfg, DpkLiveConfig *wide)
{
	*wide = *cfg;
	if (wide->sum_l1 > 0.0)
		wide->sum_l1 += DPK_LIFT_UNITS / 2.0;
}

/* Steps a node of `level` spans. */
uint64_t
dpk_regions_level_span(int arity, int level)
{
	uint64_t	span = 1;

	while (level-- > 0)
		span *= (uint64_t) arity;
	return span;
}

/* The top-level node (level h - 1) holding step `step`. */
uint32_t
dpk_regions_top_block(int arity, int h, uint64_t step)
{
	return (uint32_t) ((step - 1) / dpk_regions_level_span(arity, h - 1) + 1);
}

/*
 * A release t' uses at level l only nodes within one level-(l + 1) span
 * of t' (the digits above l leave a prefix within span_{l+1} of t', and
 * the level-l nodes lie between it and t', for the complete and the signed
 * digits alike).  So a node ending two level-(l+1) spans before t' is
 * never used again.  With signed digits a release past the first
 * top-level node uses below the top level only nodes of the top-level
 * node holding it, so the nodes of earlier top-level nodes are dead too;
 * the top level's complete nodes stay.  test_live_regions checks this over
 * whole horizons.
 */
bool
dpk_regions_node_live(int arity, int h, bool signed_digits, int level, uint32_t index,
					  uint32_t t)
{
	uint64_t	end = (uint64_t) index * dpk_regions_level_span(arity, level);

	if (signed_digits && level < h - 1 && t > dpk_regions_level_span(arity, h - 1) &&
		dpk_regions_top_block(arity, h, end) < dpk_regions_top_block(arity, h, t))
		return false;
	return end + 2 * dpk_regions_level_span(arity, level + 1) > (uint64_t) t;
}

/*
 * The complete nodes of [1, t] (see live_regions.h): t's base-arity digits
 * from the top level down, digit a_l taking a_l adjacent level-l nodes.
 */
int
dpk_regions_decompose(int arity, uint32_t t, int *node_level, uint32_t *node_index)
{
	int			top = 0,
				n = 0,
				l;
	uint64_t	pos = 0;

	while (dpk_regions_level_span(arity, top + 1) <= t)
		top++;
	for (l = top; l >= 0; l--)
	{
		uint64_t	span = dpk_regions_level_span(arity, l);

		while (pos + span <= t)
		{
			if (n == DPK_TREE_MAX_SIGNED)
				dpk_fail("lifting by regions: too many tree nodes");
			node_level[n] = l;
			node_index[n] = (uint32_t) (pos / span + 1);
			pos += span;
			n++;
		}
	}
	return n;
}

/* The nodes release t sums (see live_regions.h). */
int
dpk_regions_nodes(int arity, int h, bool signed_digits, uint32_t t, int *node_level,
				  uint32_t *node_index, int *node_sign)
{
	int			n,
				a;

	if (signed_digits && t > dpk_regions_level_span(arity, h - 1))
		return dpk_tree_signed_decompose(arity, t, node_level, node_index, node_sign);
	n = dpk_regions_decompose(arity, t, node_level, node_index);
	for (a = 0; a < n; a++)
		node_sign[a] = 1;
	return n;
}

/* An empty state (see live_regions.h). */
void
dpk_regions_init(DpkRegions *rs, const DpkLiveConfig *cfg)
{
	if (!dpk_regions_supported(cfg))
		dpk_fail("lifting by regions needs a pure projected table with one copy");
	memset(rs, 0, sizeof(*rs));
	rs->d = cfg->d;
	rs->k = cfg->k;
	rs->dhat = cfg->dhat;
	rs->m = 1 << cfg->level;
	rs->arity = cfg->arity;
	rs->h = dpk_live_tree_levels(cfg);
	rs->ncells = dpk_live_copy_cells(cfg);
	rs->pruned_below = dpk_alloc0(sizeof(uint32_t) * rs->h);
	rs->signed_digits = true;
	dpk_cellmap_init(&rs->prev, rs->d);
}

/* Free a state. */
void
dpk_regions_free(DpkRegions *rs)
{
	int			i;

	for (i = 0; i < rs->nnodes; i++)
		dpk_cellmap_free(&rs->nodes[i].sums);
	for (i = 0; i < rs->nmaps; i++)
		dpk_free(rs->maps[i].region);
	if (rs->nodes)
		dpk_free(rs->nodes);
	if (rs->maps)
		dpk_free(rs->maps);
	if (rs->pc)
		dpk_free(rs->pc);
	if (rs->pruned_below)
		dpk_free(rs->pruned_below);
	if (rs->part_map)
		dpk_free(rs->part_map);
	if (rs->part_owner)
		dpk_free(rs->part_owner);
	dpk_cellmap_free(&rs->prev);
	memset(rs, 0, sizeof(*rs));
}

/* The map of release t, or NULL. */
const uint8_t *
dpk_regions_find_map(const DpkRegions *rs, uint32_t t)
{
	int			i;

	for (i = 0; i < rs->nmaps; i++)
		if (rs->maps[i].t == t)
			return rs->maps[i].region;
	return NULL;
}

/* Room for one more element in an array of n of size elem (doubling). */
static void *
grow(void *arr, int n, int *cap, size_t elem)
{
	void	   *bigger;

	if (n < *cap)
		return arr;
	*cap = *cap ? 2 * *cap : 8;
	bigger = dpk_alloc(elem * (size_t) *cap);
	if (n)
		memcpy(bigger, arr, elem * (size_t) n);
	if (arr)
		dpk_free(arr);
	return bigger;
}

/* Add a map (taking `region`). */
void
dpk_regions_add_map(DpkRegions *rs, uint32_t t, uint8_t *region)
{
	rs->maps = grow(rs->maps, rs->nmaps, &rs->cap_maps, sizeof(DpkRegionMap));
	rs->maps[rs->nmaps].t = t;
	rs->maps[rs->nmaps].region = region;
	rs->nmaps++;
}

/* Node (level, index), or NULL when not open. */
DpkRegionNode *
dpk_regions_find_node(DpkRegions *rs, int level, uint32_t index)
{
	int			i;

	for (i = 0; i < rs->nnodes; i++)
		if (rs->nodes[i].level == level && rs->nodes[i].index == index)
			return &rs->nodes[i];
	return NULL;
}

/* Open node (level, index) keyed by map `map` (0: pending). */
DpkRegionNode *
dpk_regions_open_node(DpkRegions *rs, int level, uint32_t index, uint32_t map)
{
	DpkRegionNode *nd;

	if (index < rs->pruned_below[level])
		dpk_fail("lifting by regions: a release needs a node already dropped");
	rs->nodes = grow(rs->nodes, rs->nnodes, &rs->cap_nodes, sizeof(DpkRegionNode));
	nd = &rs->nodes[rs->nnodes++];
	nd->level = level;
	nd->index = index;
	nd->map = map;
	dpk_cellmap_init(&nd->sums, rs->d);
	return nd;
}

/* Add copy 0's cells of `delta` (sign +1 or -1) to a node, keyed by `map`. */
void
dpk_regions_node_add_cells(DpkRegions *rs, DpkRegionNode *nd, const uint8_t *map, const DpkCellMap *delta,
			   int sign)
{
	size_t		pos = 0;
	uint64_t	cell;
	const int64_t *vals;
	int			j;

	while (dpk_cellmap_next(delta, &pos, &cell, &vals))
	{
		int64_t    *dst;

		if (cell >= rs->ncells)
			continue;			/* other copies, the norm counter */
		dst = dpk_cellmap_get(&nd->sums, map[cell]);
		for (j = 0; j <= rs->d; j++)
			dst[j] += sign * vals[j];
	}
}

/*
 * Fold the events of step t: copy 0's cells of `state` minus rs->prev, into
 * the node of every level holding step t; rs->prev becomes copy 0's cells
 * of state.  A node opens with the latest map (pending at step 1), except
 * that with signed digits a node below the top level, past the first
 * top-level node, takes the map of the top-level node holding it (opened
 * first, top down): see live_regions.h.
 */
void
dpk_regions_fold_step(DpkRegions *rs, uint32_t t, const DpkCellMap *state)
{
	DpkCellMap	cur;
	size_t		pos = 0;
	uint64_t	cell;
	const int64_t *vals;
	int			l,
				j;

	dpk_cellmap_init(&cur, rs->d);
	while (dpk_cellmap_next(state, &pos, &cell, &vals))
		if (cell < rs->ncells)
		{
			int64_t    *dst = dpk_cellmap_get(&cur, cell);

			for (j = 0; j <= rs->d; j++)
				dst[j] = vals[j];
		}
	for (l = rs->h - 1; l >= 0; l--)
	{
		uint32_t	index = (uint32_t) ((t - 1) / dpk_regions_level_span(rs->arity, l) + 1);
		DpkRegionNode *nd = dpk_regions_find_node(rs, l, index);

		if (nd == NULL)
		{
			uint32_t	map = t == 1 ? 0 : rs->t,
						top = dpk_regions_top_block(rs->arity, rs->h, t);

			if (rs->signed_digits && l < rs->h - 1 && top > 1)
				map = dpk_regions_find_node(rs, rs->h - 1, top)->map;
			nd = dpk_regions_open_node(rs, l, index, map);
		}
		if (nd->map == 0)
			continue;			/* pending: the cumulative cells at completion */
		dpk_regions_node_add_cells(rs, nd, dpk_regions_find_map(rs, nd->map), &cur, +1);
		dpk_regions_node_add_cells(rs, nd, dpk_regions_find_map(rs, nd->map), &rs->prev, -1);
	}
	dpk_cellmap_free(&rs->prev);
	rs->prev = cur;
}

/* Drop the nodes no release after t uses and the maps no node uses. */
void
dpk_regions_prune(DpkRegions *rs, uint32_t t)
{
	int			i,
				kept = 0;

	for (i = 0; i < rs->nnodes; i++)
	{
		DpkRegionNode *nd = &rs->nodes[i];

		if (dpk_regions_node_live(rs->arity, rs->h, rs->signed_digits, nd->level, nd->index, t))
			rs->nodes[kept++] = *nd;
		else
		{
			if (nd->index + 1 > rs->pruned_below[nd->level])
				rs->pruned_below[nd->level] = nd->index + 1;
			dpk_cellmap_free(&nd->sums);
		}
	}
	rs->nnodes = kept;
	kept = 0;
	for (i = 0; i < rs->nmaps; i++)
	{
		bool		used = rs->maps[i].t == t;
		int			n;

		for (n = 0; n < rs->nnodes && !used; n++)
			used = rs->nodes[n].map == rs->maps[i].t;
		if (used)
			rs->maps[kept++] = rs->maps[i];
		else
			dpk_free(rs->maps[i].region);
	}
	rs->nmaps = kept;
}

/* Bytes written and read in native order, one field at a time. */
typedef struct Buf
{
	uint8_t    *p;
	size_t		len,
				cap,
				pos;
	bool		bad;
} Buf;

/*
 * Room for n more bytes: the capacity doubled, or exactly what is needed
 * when that is more (a padded map of cells x coordinates is written once,
 * not doubled into).
 */
static void
reserve(Buf *b, size_t n)
{
	if (b->len + n > b->cap)
	{
		size_t		cap = b->cap ? 2 * b->cap : 256;
		uint8_t    *p;

		if (cap < b->len + n)
			cap = b->len + n;
		p = dpk_alloc(cap);
		if (b->len)
			memcpy(p, b->p, b->len);
		if (b->p)
			dpk_free(b->p);
		b->p = p;
		b->cap = cap;
	}
}

static void
put(Buf *b, const void *v, size_t n)
{
	reserve(b, n);
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void
put_u32(Buf *b, uint32_t v)
{
	put(b, &v, sizeof(v));
}

/*
 * A map padded to pad_to entries: the stored size must depend on public
 * bounds only, never on how many regions or cells hold rows (cellmap.h).
 * Serialised in place, without a copy of its own.
 */
static void
put_map(Buf *b, const DpkCellMap *m, uint64_t pad_to)
{
	uint64_t	n = dpk_cellmap_serialized_len(m, true, pad_to);

	put(b, &n, sizeof(n));
	reserve(b, (size_t) n);
	dpk_cellmap_serialize_to(m, true, pad_to, b->p + b->len);
	b->len += (size_t) n;
}

static void
get(Buf *b, void *v, size_t n)
{
	if (b->bad || b->pos + n > b->len)
	{
		b->bad = true;
		memset(v, 0, n);
		return;
	}
	memcpy(v, b->p + b->pos, n);
	b->pos += n;
}

static uint32_t
get_u32(Buf *b)
{
	uint32_t	v;

	get(b, &v, sizeof(v));
	return v;
}

static void
get_map(Buf *b, DpkCellMap *m, int d)
{
	uint64_t	n;

	dpk_cellmap_free(m);
	dpk_cellmap_init(m, d);
	get(b, &n, sizeof(n));
	if (b->bad || n > b->len - b->pos ||
		!dpk_cellmap_merge_serialized(m, b->p + b->pos, (size_t) n, +1))
	{
		b->bad = true;
		return;
	}
	b->pos += n;
}

/* The state as bytes (see live_regions.h). */
uint8_t *
dpk_regions_serialize(const DpkRegions *rs, uint64_t prev_pad, size_t *len)
{
	Buf			b = {0};
	int			i;

	put_u32(&b, REGIONS_MAGIC);
	put_u32(&b, REGIONS_VERSION);
	put_u32(&b, (uint32_t) rs->d);
	put_u32(&b, (uint32_t) rs->k);
	put_u32(&b, (uint32_t) rs->dhat);
	put_u32(&b, (uint32_t) rs->m);
	put_u32(&b, (uint32_t) rs->arity);
	put_u32(&b, (uint32_t) rs->h);
	put_u32(&b, rs->signed_digits ? 1u : 0u);
	put(&b, &rs->ncells, sizeof(rs->ncells));
	put_u32(&b, rs->t);
	put_u32(&b, rs->pc != NULL);
	if (rs->pc)
		put(&b, rs->pc, sizeof(double) * rs->k * rs->dhat);
	for (i = 0; i < rs->h; i++)
		put_u32(&b, rs->pruned_below[i]);
	put_u32(&b, (uint32_t) rs->nmaps);
	for (i = 0; i < rs->nmaps; i++)
	{
		put_u32(&b, rs->maps[i].t);
		put(&b, rs->maps[i].region, rs->ncells);
	}
	put_u32(&b, (uint32_t) rs->nnodes);
	for (i = 0; i < rs->nnodes; i++)
	{
		put_u32(&b, (uint32_t) rs->nodes[i].level);
		put_u32(&b, rs->nodes[i].index);
		put_u32(&b, rs->nodes[i].map);
		put_map(&b, &rs->nodes[i].sums, (uint64_t) rs->k);
	}
	put_map(&b, &rs->prev, prev_pad);
	*len = b.len;
	return b.p;
}

/* The state from bytes (see live_regions.h). */
bool
dpk_regions_deserialize(DpkRegions *rs, const DpkLiveConfig *cfg, const uint8_t *buf,
						size_t len)
{
	Buf			b = {(uint8_t *) buf, len, len, 0, false};
	uint64_t	ncells;
	uint32_t	n,
				i,
				version;
	bool		ok;

	dpk_regions_init(rs, cfg);
	ok = get_u32(&b) == REGIONS_MAGIC;
	version = get_u32(&b);
	ok = ok && (version == REGIONS_VERSION || version == REGIONS_VERSION_COMPLETE) &&
		get_u32(&b) == (uint32_t) rs->d && get_u32(&b) == (uint32_t) rs->k &&
		get_u32(&b) == (uint32_t) rs->dhat && get_u32(&b) == (uint32_t) rs->m &&
		get_u32(&b) == (uint32_t) rs->arity && get_u32(&b) == (uint32_t) rs->h;
	if (ok && version == REGIONS_VERSION)
	{
		uint32_t	flag = get_u32(&b);

		ok = flag <= 1;
		rs->signed_digits = flag == 1;
	}
	else
		rs->signed_digits = false;
	get(&b, &ncells, sizeof(ncells));
	if (!ok || b.bad || ncells != rs->ncells)
		goto bad;
	rs->t = get_u32(&b);
	if (get_u32(&b))
	{
		rs->pc = dpk_alloc(sizeof(double) * rs->k * rs->dhat);
		get(&b, rs->pc, sizeof(double) * rs->k * rs->dhat);
	}
	for (i = 0; i < (uint32_t) rs->h; i++)
		rs->pruned_below[i] = get_u32(&b);
	n = get_u32(&b);
	for (i = 0; i < n && !b.bad; i++)
	{
		uint32_t	t = get_u32(&b);
		uint8_t    *region;
		uint64_t	x;

		if (b.bad || rs->ncells > b.len - b.pos)
			goto bad;
		region = dpk_alloc(rs->ncells);
		get(&b, region, rs->ncells);
		dpk_regions_add_map(rs, t, region);
		for (x = 0; x < rs->ncells; x++)
			if (region[x] >= rs->k)
				goto bad;
	}
	n = get_u32(&b);
	for (i = 0; i < n && !b.bad; i++)
	{
		int			level = (int) get_u32(&b);
		uint32_t	index = get_u32(&b);
		uint32_t	map = get_u32(&b);
		DpkRegionNode *nd;

		if (b.bad || level < 0 || level >= rs->h || index < rs->pruned_below[level] ||
			(map != 0 && dpk_regions_find_map(rs, map) == NULL) || dpk_regions_find_node(rs, level, index))
			goto bad;
		nd = dpk_regions_open_node(rs, level, index, map);
		get_map(&b, &nd->sums, rs->d);
		if (!b.bad)
		{
			size_t		pos = 0;
			uint64_t	region;
			const int64_t *vals;

			while (dpk_cellmap_next(&nd->sums, &pos, &region, &vals))
				if (region >= (uint64_t) rs->k)
					goto bad;
		}
	}
	get_map(&b, &rs->prev, rs->d);
	if (!b.bad && b.pos == b.len)
		return true;
bad:
	dpk_regions_free(rs);
	return false;
}
