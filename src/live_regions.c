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
#include "tree_estimator.h"

/* The nonce level byte of region noise: no counted level or copy reaches it. */
#define REGION_LEVEL_BYTE 200

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
static uint64_t
level_span(int arity, int level)
{
	uint64_t	span = 1;

	while (level-- > 0)
		span *= (uint64_t) arity;
	return span;
}

/* The top-level node (level h - 1) holding step `step`. */
static uint32_t
top_block(int arity, int h, uint64_t step)
{
	return (uint32_t) ((step - 1) / level_span(arity, h - 1) + 1);
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
	uint64_t	end = (uint64_t) index * level_span(arity, level);

	if (signed_digits && level < h - 1 && t > level_span(arity, h - 1) &&
		top_block(arity, h, end) < top_block(arity, h, t))
		return false;
	return end + 2 * level_span(arity, level + 1) > (uint64_t) t;
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

	while (level_span(arity, top + 1) <= t)
		top++;
	for (l = top; l >= 0; l--)
	{
		uint64_t	span = level_span(arity, l);

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

	if (signed_digits && t > level_span(arity, h - 1))
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
static const uint8_t *
find_map(const DpkRegions *rs, uint32_t t)
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
static void
add_map(DpkRegions *rs, uint32_t t, uint8_t *region)
{
	rs->maps = grow(rs->maps, rs->nmaps, &rs->cap_maps, sizeof(DpkRegionMap));
	rs->maps[rs->nmaps].t = t;
	rs->maps[rs->nmaps].region = region;
	rs->nmaps++;
}

/* Node (level, index), or NULL when not open. */
static DpkRegionNode *
find_node(DpkRegions *rs, int level, uint32_t index)
{
	int			i;

	for (i = 0; i < rs->nnodes; i++)
		if (rs->nodes[i].level == level && rs->nodes[i].index == index)
			return &rs->nodes[i];
	return NULL;
}

/* Open node (level, index) keyed by map `map` (0: pending). */
static DpkRegionNode *
open_node(DpkRegions *rs, int level, uint32_t index, uint32_t map)
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
static void
node_add_cells(DpkRegions *rs, DpkRegionNode *nd, const uint8_t *map, const DpkCellMap *delta,
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
static void
fold_step(DpkRegions *rs, uint32_t t, const DpkCellMap *state)
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
		uint32_t	index = (uint32_t) ((t - 1) / level_span(rs->arity, l) + 1);
		DpkRegionNode *nd = find_node(rs, l, index);

		if (nd == NULL)
		{
			uint32_t	map = t == 1 ? 0 : rs->t,
						top = top_block(rs->arity, rs->h, t);

			if (rs->signed_digits && l < rs->h - 1 && top > 1)
				map = find_node(rs, rs->h - 1, top)->map;
			nd = open_node(rs, l, index, map);
		}
		if (nd->map == 0)
			continue;			/* pending: the cumulative cells at completion */
		node_add_cells(rs, nd, find_map(rs, nd->map), &cur, +1);
		node_add_cells(rs, nd, find_map(rs, nd->map), &rs->prev, -1);
	}
	dpk_cellmap_free(&rs->prev);
	rs->prev = cur;
}

/*
 * Region -> centre under a map: each region to the centre holding most of
 * its cells' noisy count, a region without positive votes to the centre of
 * its first cell, one without cells to centre 0 (k each).
 */
static void
region_owner(const DpkRegions *rs, const uint8_t *map, int kp, const int *assign,
			 const double *count, int *owner)
{
	uint64_t	x;
	int			r,
				a;
	double	   *vote = dpk_alloc0(sizeof(double) * rs->k * kp);

	for (r = 0; r < rs->k; r++)
		owner[r] = -1;
	for (x = 0; x < rs->ncells; x++)
	{
		r = map[x];
		vote[r * kp + assign[x]] += count[x];
		if (owner[r] < 0)
			owner[r] = assign[x];
	}
	for (r = 0; r < rs->k; r++)
	{
		double		best = 0.0;

		for (a = 0; a < kp; a++)
			if (vote[r * kp + a] > best)
			{
				best = vote[r * kp + a];
				owner[r] = a;
			}
		if (owner[r] < 0)
			owner[r] = r < kp ? r : 0;
	}
	dpk_free(vote);
}

/*
 * Each region's noisy count under a map and its counted cells (non-zero:
 * unreachable cells are zero and carry no noise), k each.
 */
static void
region_counts(const DpkRegions *rs, const uint8_t *map, const double *count, double *rcount,
			  double *rcells)
{
	uint64_t	x;

	memset(rcount, 0, sizeof(double) * rs->k);
	memset(rcells, 0, sizeof(double) * rs->k);
	for (x = 0; x < rs->ncells; x++)
		if (count[x] != 0.0)
		{
			rcount[map[x]] += count[x];
			rcells[map[x]] += 1.0;
		}
}

/*
 * Weighted Lloyd steps (iters, 0: none) on the coreset of the noisy counts
 * (cells above threshold at their middles) from the centres pc, which it
 * updates, keeping a centre that loses every cell; returns the coreset's
 * cost at the final centres.
 */
static double
coreset_lloyd(int dhat, int m, const double *count, double threshold, int k, int iters,
			  double *pc)
{
	double	   *pts;
	double	   *w;
	int			n = dpk_highd_coreset_cells(dhat, m, count, threshold, &pts, &w);
	int		   *assign = dpk_alloc(sizeof(int) * (n ? n : 1));
	double	   *acc = dpk_alloc(sizeof(double) * k * (dhat + 1));
	double		cost;
	int			it,
				i,
				j;

	cost = dpk_kmeans_cost(pts, w, n, dhat, pc, k, assign);
	for (it = 0; it < iters && n > 0; it++)
	{
		dpk_check_interrupts();
		memset(acc, 0, sizeof(double) * k * (dhat + 1));
		for (i = 0; i < n; i++)
		{
			for (j = 0; j < dhat; j++)
				acc[assign[i] * (dhat + 1) + j] += w[i] * pts[(size_t) i * dhat + j];
			acc[assign[i] * (dhat + 1) + dhat] += w[i];
		}
		for (i = 0; i < k; i++)
			if (acc[i * (dhat + 1) + dhat] > 0.0)
				for (j = 0; j < dhat; j++)
					pc[i * dhat + j] = acc[i * (dhat + 1) + j] / acc[i * (dhat + 1) + dhat];
		cost = dpk_kmeans_cost(pts, w, n, dhat, pc, k, assign);
	}
	dpk_free(pts);
	dpk_free(w);
	dpk_free(assign);
	dpk_free(acc);
	return cost;
}

/* Every cell of copy 0 to its nearest of kp projected centres. */
static void
assign_cells(const DpkRegions *rs, const double *pc, int kp, int *assign)
{
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * rs->dhat);
	double	   *tc = dpk_alloc(sizeof(double) * rs->dhat);
	uint64_t	x;
	int			j;

	for (x = 0; x < rs->ncells; x++)
	{
		dpk_grid_cell_coords(rs->dhat, rs->m, x, idx);
		for (j = 0; j < rs->dhat; j++)
			tc[j] = ((double) idx[j] + 0.5) / rs->m;
		assign[x] = dpk_highd_nearest(tc, pc, kp, rs->dhat);
	}
	dpk_free(idx);
	dpk_free(tc);
}

/*
 * A release's pieces: one per (map, region) of its summed nodes, the signed
 * sum of those nodes' noisy sum vectors (d values, then the count
 * coordinate in rows), its number of draws, and the cells' count of the
 * same rows with its number of counted cells (each node's share of steps).
 * A centre is the union of the pieces it owns.
 */
typedef struct DpkPieces
{
	int			nmaps;			/* distinct maps of the summed nodes */
	uint32_t   *map;			/* nmaps: each map's release */
	double	   *sum;			/* nmaps * k * (d + 1) */
	double	   *draws;			/* nmaps * k */
	double	   *celln;
	double	   *cellk;
} DpkPieces;

/*
 * Rows of a union of pieces, a centre's size: the regions' count
 * coordinate (sum_r: their exact rows, but a sum coordinate's noise at U/2
 * a row, 4 node_var a draw, the cube's at large d) and the cells' count
 * (celln over cellk counted cells of count_var each, most of them empty)
 * weighted by their inverse variances.  Post-processing of noisy values.
 */
static double
pieces_rows(double sum_r, double draws, double celln, double cellk, double node_var,
			double count_var)
{
	double		var_r = draws * 4.0 * node_var,
				var_c = cellk * count_var;

	return var_r + var_c > 0.0 ? (sum_r * var_c + celln * var_r) / (var_r + var_c) : sum_r;
}

/*
 * kp centres from the pieces, piece p to centre owner[p]: positions u
 * (kp * d, normalized) and sizes.  A centre of at least one row is its
 * lifted mean (with lift_weighted, shrunk toward fallback, its projected
 * centre's image); a lighter one is fallback.  Returns the centres' gain
 * over the box's middle, each centre's noise terms times charge (u and
 * sizes do not depend on charge).
 */
static double
lift_pieces(const DpkRegions *rs, const DpkLiveConfig *cfg, const DpkPieces *pp,
			const int *owner, int kp, const double *fallback, double node_var, double count_var,
			double charge, double *u, double *sizes)
{
	int			d = rs->d,
				np = pp->nmaps * rs->k,
				a,
				p,
				j;
	double	   *csum = dpk_alloc0(sizeof(double) * kp * (d + 1));
	double	   *cnoises = dpk_alloc0(sizeof(double) * kp);
	double	   *celln = dpk_alloc0(sizeof(double) * kp);
	double	   *cellk = dpk_alloc0(sizeof(double) * kp);
	double		gain = 0.0;

	for (p = 0; p < np; p++)
	{
		for (j = 0; j <= d; j++)
			csum[owner[p] * (d + 1) + j] += pp->sum[(size_t) p * (d + 1) + j];
		cnoises[owner[p]] += pp->draws[p];
		celln[owner[p]] += pp->celln[p];
		cellk[owner[p]] += pp->cellk[p];
	}
	for (a = 0; a < kp; a++)
	{
		double	   *ua = u + (size_t) a * d;
		const double *u0 = fallback + (size_t) a * d;
		const double *sa = csum + (size_t) a * (d + 1);
		double		rows = pieces_rows(sa[d], cnoises[a], celln[a], cellk[a], node_var,
									   count_var);

		sizes[a] = rows;
		if (rows >= 1.0)
		{
			double		s2 = 0.0,
						var_s = cnoises[a] * node_var,	/* of a sum coordinate */
						v = var_s / (rows * rows),	/* of the mean's */
						vc = charge * v,
						off2 = 0.0,
						shrink = 1.0;

			for (j = 0; j < d; j++)
			{
				double		m = sa[j] / DPK_LIFT_UNITS;

				s2 += m * m;
				ua[j] = 0.5 + m / rows;
				off2 += (ua[j] - u0[j]) * (ua[j] - u0[j]);
			}

			/*
			 * n ||mean - 1/2||^2, estimated by (||S~||^2 - d var) / n,
			 * less n times the centre's expected squared error: d v for
			 * the noisy mean, or with lift_weighted the positive-part
			 * James-Stein shrinkage toward the projected centre's image
			 * and Stein's unbiased estimate of its risk (as the cells'
			 * dpk_lift_centers_weighted shrinks).  A noisy enough centre
			 * gains less than nothing.
			 */
			gain += (s2 - d * charge * var_s) / rows;
			if (cfg->lift_weighted && off2 > 0.0)
			{
				double		shrink_c = fmax(0.0, 1.0 - (d - 2) * vc / off2);

				shrink = fmax(0.0, 1.0 - (d - 2) * v / off2);
				gain -= rows * (shrink_c > 0.0
								? d * vc - (d - 2) * (d - 2) * vc * vc / off2
								: off2 - d * vc);
			}
			else
				gain -= rows * d * vc;
			for (j = 0; j < d; j++)
				ua[j] = fmin(1.0, fmax(0.0, u0[j] + shrink * (ua[j] - u0[j])));
		}
		else
			memcpy(ua, u0, sizeof(double) * d);
	}
	dpk_free(csum);
	dpk_free(cnoises);
	dpk_free(celln);
	dpk_free(cellk);
	return gain;
}

/*
 * The pieces clustered in the original space: the pieces whose mean's noise
 * (d var / rows^2) is at most DPK_LIVE_SPACE_NOISE2 become points at their
 * lifted means weighted by their rows; kp centres of them by weighted
 * k-means (scent, normalized), each such piece to the nearest, a lighter
 * one to the centre nearest its projected owner's image (fallback of
 * powner).  False (nothing written) with fewer than kp such pieces.
 */
static bool
space_partition(const DpkRegions *rs, const DpkLiveConfig *cfg, const DpkPieces *pp, int kp,
				const double *fallback, const int *powner, double node_var, double count_var,
				uint64_t seed, double *scent, int *sowner)
{
	int			d = rs->d,
				np = pp->nmaps * rs->k,
				n = 0,
				p,
				j;
	double	   *pts = dpk_alloc(sizeof(double) * (size_t) np * d);
	double	   *w = dpk_alloc(sizeof(double) * np);
	int		   *point = dpk_alloc(sizeof(int) * np);

	for (p = 0; p < np; p++)
	{
		const double *s = pp->sum + (size_t) p * (d + 1);
		double		rows = pieces_rows(s[d], pp->draws[p], pp->celln[p], pp->cellk[p],
									   node_var, count_var);

		point[p] = -1;
		if (rows < 1.0 ||
			rows < dpk_highd_point_count(d, pp->draws[p] * node_var, DPK_LIVE_SPACE_NOISE2, 1.0))
			continue;
		for (j = 0; j < d; j++)
			pts[(size_t) n * d + j] = fmin(1.0, fmax(0.0, 0.5 + s[j] / DPK_LIFT_UNITS / rows));
		w[n] = rows;
		point[p] = n++;
	}
	if (n >= kp)
	{
		dpk_kmeans(pts, w, n, d, kp, cfg->restarts, cfg->max_iter, seed ^ UINT64_C(0x5eed),
				   scent, NULL);
		for (p = 0; p < np; p++)
			sowner[p] = point[p] >= 0
				? dpk_highd_nearest(pts + (size_t) point[p] * d, scent, kp, d)
				: dpk_highd_nearest(fallback + (size_t) powner[p] * d, scent, kp, d);
	}
	dpk_free(pts);
	dpk_free(w);
	dpk_free(point);
	return n >= kp;
}

/* Drop the nodes no release after t uses and the maps no node uses. */
static void
prune(DpkRegions *rs, uint32_t t)
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

/* Release t of a table lifting by regions (see live_regions.h). */
void
dpk_regions_release(DpkRegions *rs, const DpkLiveConfig *cfg, const DpkBox *box,
					const DpkProjection *proj, const uint8_t key[DPK_KEY_BYTES], uint32_t t,
					const DpkCellMap *state, const double *count, double threshold_cells,
					double sumnorm, uint64_t seed, DpkLiveRelease *rel, double *sum,
					int64_t *rows)
{
	int			d = rs->d,
				k = rs->k,
				dhat = rs->dhat,
				csz = 0,
				nodes,
				a,
				r,
				j,
				kp;
	int			node_level[DPK_TREE_MAX_SIGNED],
				node_sign[DPK_TREE_MAX_SIGNED];
	uint32_t	node_index[DPK_TREE_MAX_SIGNED];
	/* each summed node's map: indices, since open_node may move the nodes */
	uint32_t   *node_map = dpk_alloc(sizeof(uint32_t) * DPK_TREE_MAX_SIGNED);
	double	   *pc = dpk_alloc(sizeof(double) * k * dhat);
	double	   *pck = dpk_alloc(sizeof(double) * k * dhat);
	double	   *rcount = dpk_alloc(sizeof(double) * k);
	double	   *rcells = dpk_alloc(sizeof(double) * k);
	double	   *u = dpk_alloc(sizeof(double) * k * d);
	double	   *us = dpk_alloc(sizeof(double) * k * d);
	double	   *uk = dpk_alloc(sizeof(double) * k * d);
	double	   *fallback = dpk_alloc(sizeof(double) * k * d);
	double	   *scent = dpk_alloc(sizeof(double) * k * d);
	double	   *sizes = dpk_alloc(sizeof(double) * k);
	double	   *ssizes = dpk_alloc(sizeof(double) * k);
	double	   *nsum;			/* per summed node and region: d + 1 values */
	int64_t    *noise = dpk_alloc(sizeof(int64_t) * (2 + d));
	int		   *assign = dpk_alloc(sizeof(int) * rs->ncells);
	int		   *assignk = dpk_alloc(sizeof(int) * rs->ncells);
	int		   *node_piece = dpk_alloc(sizeof(int) * DPK_TREE_MAX_SIGNED);
	int		   *owner,			/* per piece: the projected partition's */
			   *sowner;			/* the original-space partition's */
	DpkPieces	pp;
	uint8_t    *newmap;
	DpkLiveConfig wide;
	DpkNoise	cs,
				ss;
	DpkSumNoise sums;
	uint8_t		nonce[DPK_NONCE_BYTES] = {0x72};
	DpkStream	s;
	double		count_var = dpk_live_projected_count_var(cfg, t),
				threshold,
				noisy_n = 0.0,
				node_var,
				width2 = dpk_live_width2(cfg, box);
	uint64_t	x;

	if (t != rs->t + 1 || rs->d != cfg->d || rs->k != cfg->k || rs->dhat != cfg->dhat ||
		rs->ncells != dpk_live_copy_cells(cfg))
		dpk_fail("lifting by regions: the state is not at the release before this one");

	/*
	 * Each region's count rides in its sum vector as coordinate d, a row
	 * adding U/2 there: inside the l-infinity bound of the cube noise, and
	 * U/2 more on an l1 bound.
	 */
	dpk_regions_sum_config(cfg, &wide);
	cs = dpk_live_count_noise(&wide);
	ss = dpk_live_sum_noise(&wide);
	sums = ss.coords ? DPK_SUMS_COORDS : DPK_SUMS_VECTOR;
	node_var = dpk_noise_variance(&ss, d + 1) / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);

	fold_step(rs, t, state);

	/* the k centres: restarts against the previous release's, refined */
	threshold = dpk_highd_grid_kmeans_cells(dhat, rs->m, count, count_var,
											cfg->threshold_sigmas, threshold_cells, k,
											cfg->restarts, cfg->max_iter, seed, pck, &csz);
	if (rs->pc)
	{
		/*
		 * A partition that still fits is kept rather than swapped for a
		 * local optimum of this release's noise (post-processing of noisy
		 * counts).
		 */
		memcpy(pc, rs->pc, sizeof(double) * k * dhat);
		if (coreset_lloyd(dhat, rs->m, count, threshold, k, cfg->max_iter, pc) <
			coreset_lloyd(dhat, rs->m, count, threshold, k, 0, pck))
			memcpy(pck, pc, sizeof(double) * k * dhat);
	}
	else
		rs->pc = dpk_alloc(sizeof(double) * k * dhat);
	memcpy(rs->pc, pck, sizeof(double) * k * dhat);
	assign_cells(rs, pck, k, assignk);

	/* this release's map: every cell to its nearest projected centre */
	newmap = dpk_alloc(rs->ncells);
	for (x = 0; x < rs->ncells; x++)
		newmap[x] = (uint8_t) assignk[x];
	add_map(rs, t, newmap);

	/*
	 * The nodes of t (dpk_regions_nodes): a node pending since step 1 (its
	 * true sums are the cumulative cells, all of its steps) takes this
	 * release's map at its completion; a node not yet open (signed digits:
	 * all its steps after t) holds no rows and the map of the top-level
	 * node holding it.  Then every region's noisy sum vector, one draw per
	 * (node, region), the same for every k', times the node's sign.
	 */
	nodes = dpk_regions_nodes(rs->arity, rs->h, rs->signed_digits, t, node_level, node_index,
							  node_sign);
	nsum = dpk_alloc0(sizeof(double) * (size_t) (nodes > 0 ? nodes : 1) * k * (d + 1));
	if (rows)
		*rows = 0;
	dpk_stream_open(&s, key, nonce);
	for (a = 0; a < nodes; a++)
	{
		DpkRegionNode *nd = find_node(rs, node_level[a], node_index[a]);
		size_t		pos = 0;
		uint64_t	region;
		const int64_t *vals;
		uint64_t	start = (uint64_t) (node_index[a] - 1) * level_span(rs->arity, node_level[a]);

		if (node_level[a] >= rs->h)
			dpk_fail("lifting by regions: a node above the table's levels");
		if (nd == NULL)
		{
			DpkRegionNode *top = find_node(rs, rs->h - 1, top_block(rs->arity, rs->h, t));

			if (!rs->signed_digits || start < t || top == NULL || top->map == 0 ||
				top_block(rs->arity, rs->h, start + 1) != top->index)
				dpk_fail("lifting by regions: a release needs a node that never opened");
			node_map[a] = top->map;
		}
		else if (nd->map == 0)
		{
			if ((uint64_t) nd->index * level_span(rs->arity, nd->level) != t)
				dpk_fail("lifting by regions: a pending node published past its end");
			nd->map = t;
			node_add_cells(rs, nd, newmap, &rs->prev, +1);
		}
		if (nd != NULL)
		{
			node_map[a] = nd->map;
			while (dpk_cellmap_next(&nd->sums, &pos, &region, &vals))
			{
				double	   *v = nsum + ((size_t) a * k + region) * (d + 1);

				if (rows)
					*rows += node_sign[a] * vals[0];
				for (j = 0; j < d; j++)
					v[j] += (double) (node_sign[a] * vals[1 + j]);
				v[d] += (double) (node_sign[a] * vals[0]);
			}
		}
		for (r = 0; r < k; r++)
		{
			double	   *v = nsum + ((size_t) a * k + r) * (d + 1);

			memset(noise, 0, sizeof(int64_t) * (2 + d));
			dpk_node_noise(&s, key, REGION_LEVEL_BYTE, (uint64_t) r, rs->arity, node_level[a],
						   node_index[a], d + 1, cs.lap, ss.lap, sums, node_sign[a], noise);
			for (j = 0; j < d; j++)
				v[j] += (double) noise[1 + j];
			v[d] += (double) noise[1 + d] / (DPK_LIFT_UNITS / 2.0);
		}
	}
	dpk_stream_close(&s);

	/*
	 * The pieces: the nodes' region sums gathered by map (the nodes of one
	 * top-level node share its map), with the cells' count of the same rows,
	 * each node's share of steps up to t, signed: the shares of [1, t] sum
	 * to 1 (exact where the nodes' maps agree).
	 */
	pp.nmaps = 0;
	pp.map = dpk_alloc(sizeof(uint32_t) * (nodes > 0 ? nodes : 1));
	for (a = 0; a < nodes; a++)
	{
		for (r = 0; r < pp.nmaps && pp.map[r] != node_map[a]; r++)
			;
		if (r == pp.nmaps)
			pp.map[pp.nmaps++] = node_map[a];
		node_piece[a] = r;
	}
	pp.sum = dpk_alloc0(sizeof(double) * (size_t) (pp.nmaps > 0 ? pp.nmaps : 1) * k * (d + 1));
	pp.draws = dpk_alloc0(sizeof(double) * (pp.nmaps > 0 ? pp.nmaps : 1) * k);
	pp.celln = dpk_alloc0(sizeof(double) * (pp.nmaps > 0 ? pp.nmaps : 1) * k);
	pp.cellk = dpk_alloc0(sizeof(double) * (pp.nmaps > 0 ? pp.nmaps : 1) * k);
	for (a = 0; a < nodes; a++)
	{
		uint64_t	span = level_span(rs->arity, node_level[a]),
					start = (uint64_t) (node_index[a] - 1) * span,
					held = start >= t ? 0 : (start + span <= t ? span : t - start);
		double		share = node_sign[a] * (double) held / t;

		region_counts(rs, find_map(rs, node_map[a]), count, rcount, rcells);
		for (r = 0; r < k; r++)
		{
			size_t		p = (size_t) node_piece[a] * k + r;

			for (j = 0; j <= d; j++)
				pp.sum[p * (d + 1) + j] += nsum[((size_t) a * k + r) * (d + 1) + j];
			pp.draws[p] += 1.0;
			pp.celln[p] += share * rcount[r];
			pp.cellk[p] += share * rcells[r];
		}
	}
	owner = dpk_alloc(sizeof(int) * (pp.nmaps > 0 ? pp.nmaps : 1) * k);
	sowner = dpk_alloc(sizeof(int) * (pp.nmaps > 0 ? pp.nmaps : 1) * k);

	for (x = 0; x < rs->ncells; x++)
		noisy_n += count[x];
	rel->level = cfg->level;
	rel->noisy_n = noisy_n < 1.0 ? 1.0 : noisy_n;
	rel->coreset_size = csz;
	dpk_live_release_alloc(rel, k, d);

	for (kp = 1; kp <= k; kp++)
	{
		double		gain;
		bool		space = false;

		dpk_check_interrupts();
		if (kp == k)
		{
			memcpy(pc, pck, sizeof(double) * k * dhat);
			memcpy(assign, assignk, sizeof(int) * rs->ncells);
		}
		else
		{
			int			unused;

			dpk_highd_grid_kmeans_cells(dhat, rs->m, count, count_var, cfg->threshold_sigmas,
										threshold_cells, kp, cfg->restarts, cfg->max_iter,
										seed + (uint64_t) kp, pc, &unused);
			assign_cells(rs, pc, kp, assign);
		}
		for (a = 0; a < kp; a++)
			dpk_project_back(proj, pc + (size_t) a * dhat, fallback + (size_t) a * d);
		for (a = 0; a < pp.nmaps; a++)
			region_owner(rs, find_map(rs, pp.map[a]), kp, assign, count, owner + (size_t) a * k);
		gain = lift_pieces(rs, cfg, &pp, owner, kp, fallback, node_var, count_var, 1.0, u,
						   sizes);

		/*
		 * The pieces' own partition in the original space competes on the
		 * same private gain.  Fitted to the noisy sums that score it, it
		 * pays their noise twice (as the cells' does, highd.c), and that
		 * gain is its cost estimate: the guard compares the k' blocks by
		 * it.
		 */
		if (space_partition(rs, cfg, &pp, kp, fallback, owner, node_var, count_var,
							seed + (uint64_t) kp, scent, sowner))
		{
			double		sgain = lift_pieces(rs, cfg, &pp, sowner, kp, scent, node_var,
											count_var, DPK_HIGHD_SPACE_NOISE_CHARGE, us,
											ssizes);

			if (sgain > gain)
			{
				gain = sgain;
				memcpy(u, us, sizeof(double) * kp * d);
				memcpy(sizes, ssizes, sizeof(double) * kp);
				space = true;
			}
		}
		for (a = 0; a < kp; a++)
		{
			double	   *ua = u + (size_t) a * d;

			dpk_box_ball_clamp(d, cfg->ball, ua);
			dpk_box_from_position(box, cfg->box_metric, ua,
								  rel->centers + ((size_t) dpk_live_block(kp) + a) * d);
			rel->sizes[dpk_live_block(kp) + a] = sizes[a];
		}
		if (kp == k)
		{
			memcpy(uk, u, sizeof(double) * k * d);
			if (rs->part_map)
				dpk_free(rs->part_map);
			if (rs->part_owner)
				dpk_free(rs->part_owner);
			rs->part_nmaps = pp.nmaps;
			rs->part_map = pp.map;
			rs->part_owner = space ? sowner : owner;
			rs->part_space = space;
			pp.map = NULL;
			if (space)
				sowner = NULL;
			else
				owner = NULL;
			/* the histogram's cells: to the centre whose image is nearest */
			if (space)
			{
				dpk_project_batch(proj, uk, (size_t) k, pc);
				assign_cells(rs, pc, k, assignk);
			}
		}

		/*
		 * Cost estimate: the sum of ||u - 1/2||^2 over all rows (the norm
		 * counter) less each centre's gain over the box's middle, in
		 * normalized units, scaled as the cells' release scales it
		 * (dpk_live_width2).
		 */
		rel->costs[kp - 1] =
			fmax(0.0, sumnorm / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS) - gain) * width2;
	}
	if (dpk_live_uses_guard(cfg))
		dpk_live_guard_blocks(d, k, rel->centers, rel->sizes, rel->costs);

	if (sum)
		for (x = 0; x < rs->ncells; x++)
			for (j = 0; j < d; j++)
				sum[x * d + j] = nearbyint(count[x] * DPK_LIFT_UNITS *
										   (uk[(size_t) assignk[x] * d + j] - 0.5));

	rs->t = t;
	prune(rs, t);

	dpk_free(node_map);
	dpk_free(pc);
	dpk_free(pck);
	dpk_free(rcount);
	dpk_free(rcells);
	dpk_free(u);
	dpk_free(us);
	dpk_free(uk);
	dpk_free(fallback);
	dpk_free(scent);
	dpk_free(sizes);
	dpk_free(ssizes);
	dpk_free(nsum);
	dpk_free(noise);
	dpk_free(assign);
	dpk_free(assignk);
	dpk_free(node_piece);
	if (owner)
		dpk_free(owner);
	if (sowner)
		dpk_free(sowner);
	if (pp.map)
		dpk_free(pp.map);
	dpk_free(pp.sum);
	dpk_free(pp.draws);
	dpk_free(pp.celln);
	dpk_free(pp.cellk);
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

static void
put(Buf *b, const void *v, size_t n)
{
	if (b->len + n > b->cap)
	{
		size_t		cap = b->cap ? b->cap : 256;
		uint8_t    *p;

		while (cap < b->len + n)
			cap *= 2;
		p = dpk_alloc(cap);
		if (b->len)
			memcpy(p, b->p, b->len);
		if (b->p)
			dpk_free(b->p);
		b->p = p;
		b->cap = cap;
	}
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
 */
static void
put_map(Buf *b, const DpkCellMap *m, uint64_t pad_to)
{
	size_t		len;
	uint8_t    *bytes = dpk_cellmap_serialize_padded(m, pad_to, &len);
	uint64_t	n = len;

	put(b, &n, sizeof(n));
	put(b, bytes, len);
	dpk_free(bytes);
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
		add_map(rs, t, region);
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
			(map != 0 && find_map(rs, map) == NULL) || find_node(rs, level, index))
			goto bad;
		nd = open_node(rs, level, index, map);
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
