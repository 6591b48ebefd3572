/*
 * live_regions.c
 *		Lifting sums keyed by public regions, a research variant of a
 *		projected live table's release (see live_regions.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "dpk_mem.h"
#include "grid.h"
#include "highd.h"
#include "kmeans.h"
#include "lift.h"
#include "live_regions.h"
#include "tree_estimator.h"

/* The nonce level byte of region noise: no table level or copy reaches it. */
#define REGION_LEVEL_BYTE 200

/* Allocate the per-level node slots of a table's tree. */
void
live_regions_init(LiveRegions *lr, const DpkLiveConfig *cfg)
{
	int			l;
	uint64_t	span = 1;

	memset(lr, 0, sizeof(*lr));
	lr->d = cfg->d;
	lr->k = cfg->k;
	lr->dhat = cfg->dhat;
	lr->m = 1 << cfg->level;
	lr->arity = cfg->arity;
	lr->h = dpk_live_tree_levels(cfg);
	lr->ncells = dpk_live_copy_cells(cfg);
	lr->cur_map = -1;
	lr->cap_maps = (int) cfg->horizon + 1;	/* at most one release a step */
	lr->maps = dpk_alloc0(sizeof(uint8_t *) * lr->cap_maps);
	lr->nnodes = dpk_alloc0(sizeof(uint32_t) * lr->h);
	lr->nodes = dpk_alloc0(sizeof(LiveRegionNode *) * lr->h);
	for (l = 0; l < lr->h; l++)
	{
		/* a negative digit takes up to arity / 2 nodes past t's */
		lr->nnodes[l] = (uint32_t) ((cfg->horizon + span - 1) / span + lr->arity + 2);
		lr->nodes[l] = dpk_alloc0(sizeof(LiveRegionNode) * lr->nnodes[l]);
		for (uint32_t i = 0; i < lr->nnodes[l]; i++)
			lr->nodes[l][i].map = -2;	/* not open */
		span *= (uint64_t) lr->arity;
	}
}

/* Free everything of a state. */
void
live_regions_free(LiveRegions *lr)
{
	int			l,
				i;

	for (l = 0; l < lr->h; l++)
	{
		for (uint32_t n = 0; n < lr->nnodes[l]; n++)
			if (lr->nodes[l][n].map != -2)
				dpk_cellmap_free(&lr->nodes[l][n].sums);
		dpk_free(lr->nodes[l]);
	}
	dpk_free(lr->nodes);
	dpk_free(lr->nnodes);
	for (i = 0; i < lr->nmaps; i++)
		dpk_free(lr->maps[i]);
	dpk_free(lr->maps);
	if (lr->prev_pc)
		dpk_free(lr->prev_pc);
}

/* Count one event in the node of every level holding lr->step. */
void
live_regions_add(LiveRegions *lr, uint64_t cell, const int64_t *q, int sign)
{
	uint64_t	span = 1;
	int			l;

	for (l = 0; l < lr->h; l++)
	{
		uint32_t	idx = (uint32_t) ((lr->step - 1) / span + 1);
		LiveRegionNode *nd = &lr->nodes[l][idx];

		if (nd->map == -2)
		{
			/* the node opens: its map is fixed from now on */
			nd->map = lr->cur_map;
			dpk_cellmap_init(&nd->sums, lr->d);
		}
		dpk_cellmap_add_point(&nd->sums, nd->map < 0 ? cell : lr->maps[nd->map][cell], q,
							  sign);
		span *= (uint64_t) lr->arity;
	}
}

/*
 * A node's sums, kept per cell until now, re-keyed by the regions of `map`.
 */
static void
node_fix_map(LiveRegions *lr, LiveRegionNode *nd, int map)
{
	DpkCellMap	keyed;
	size_t		pos = 0;
	uint64_t	cell;
	const int64_t *vals;

	dpk_cellmap_init(&keyed, lr->d);
	while (dpk_cellmap_next(&nd->sums, &pos, &cell, &vals))
	{
		int64_t    *dst = dpk_cellmap_get(&keyed, lr->maps[map][cell]);

		for (int j = 0; j <= lr->d; j++)
			dst[j] += vals[j];
	}
	dpk_cellmap_free(&nd->sums);
	nd->sums = keyed;
	nd->map = map;
}

/*
 * Region -> centre under map `map`: each region to the centre holding most
 * of its cells' noisy count, a region without positive votes to the centre
 * of its first cell.
 */
static void
region_owner(const LiveRegions *lr, int map, const int *assign, const double *count,
			 int *owner)
{
	uint64_t	x;
	int			k = lr->k,
				r,
				a;
	double	   *vote;

	vote = dpk_alloc0(sizeof(double) * k * k);
	for (r = 0; r < k; r++)
		owner[r] = -1;
	for (x = 0; x < lr->ncells; x++)
	{
		r = lr->maps[map][x];
		vote[r * k + assign[x]] += count[x];
		if (owner[r] < 0)
			owner[r] = assign[x];
	}
	for (r = 0; r < k; r++)
	{
		double		best = 0.0;

		for (a = 0; a < k; a++)
			if (vote[r * k + a] > best)
			{
				best = vote[r * k + a];
				owner[r] = a;
			}
		if (owner[r] < 0)
			owner[r] = r;
	}
	dpk_free(vote);
}

/*
 * Weighted Lloyd steps (iters, 0: none) on the coreset of the noisy counts
 * (cells above threshold at their middles) from the centres pc, which it
 * updates; returns the coreset's cost at the final centres.
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

/* Release t of the research variant (see live_regions.h). */
int
live_regions_release(LiveRegions *lr, const DpkLiveConfig *cfg, const DpkBox *box,
					 const DpkProjection *proj, const uint8_t key[DPK_KEY_BYTES],
					 uint32_t t, const double *count, double threshold_cells,
					 uint64_t seed, double *centers, int64_t *rows)
{
	int			d = lr->d,
				k = lr->k,
				dhat = lr->dhat,
				csz = 0,
				newmap,
				nodes,
				a,
				j;
	int			node_level[DPK_TREE_MAX_SIGNED],
				node_sign[DPK_TREE_MAX_SIGNED];
	uint32_t	node_index[DPK_TREE_MAX_SIGNED];
	double	   *pc = dpk_alloc(sizeof(double) * k * dhat);
	double	   *tc = dpk_alloc(sizeof(double) * dhat);
	double	   *csum = dpk_alloc0(sizeof(double) * k * d);
	double	   *ccount = dpk_alloc0(sizeof(double) * k);
	double	   *u = dpk_alloc(sizeof(double) * d);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
	int64_t    *noise = dpk_alloc(sizeof(int64_t) * (2 + d));
	DpkLiveConfig wide = *cfg;
	int		   *assign = dpk_alloc(sizeof(int) * lr->ncells);
	int		   *owner = dpk_alloc(sizeof(int) * lr->ncells);
	DpkNoise	cs,
				ss;
	DpkSumNoise sums;
	uint8_t		nonce[DPK_NONCE_BYTES] = {0x72};
	double		threshold;
	DpkStream	s = {0};
	uint64_t	x;

	/*
	 * Each region's count rides in its sum vector as coordinate d, a row
	 * adding U/2 there: inside the l-infinity bound of the cube noise, and
	 * U/2 more on an l1 bound.
	 */
	if (wide.sum_l1 > 0.0)
		wide.sum_l1 += DPK_LIFT_UNITS / 2.0;
	cs = dpk_live_count_noise(&wide);
	ss = dpk_live_sum_noise(&wide);
	sums = ss.coords ? DPK_SUMS_COORDS : DPK_SUMS_VECTOR;
	dpk_stream_open(&s, key, nonce);
	*rows = 0;
	threshold = dpk_highd_grid_kmeans_cells(dhat, lr->m, count,
											dpk_live_projected_count_var(cfg, t),
											cfg->threshold_sigmas, threshold_cells, k,
											cfg->restarts, cfg->max_iter, seed, pc, &csz);
	if (lr->prev_pc)
	{
		/*
		 * The previous release's centres, refined by Lloyd on this coreset,
		 * compete with the restarts on its cost: a partition that still
		 * fits is kept rather than swapped for a local optimum of this
		 * release's noise (post-processing of noisy counts).
		 */
		double	   *warm = dpk_alloc(sizeof(double) * k * dhat);

		memcpy(warm, lr->prev_pc, sizeof(double) * k * dhat);
		if (coreset_lloyd(dhat, lr->m, count, threshold, k, cfg->max_iter, warm) <
			coreset_lloyd(dhat, lr->m, count, threshold, k, 0, pc))
			memcpy(pc, warm, sizeof(double) * k * dhat);
		dpk_free(warm);
	}
	if (!lr->prev_pc)
		lr->prev_pc = dpk_alloc(sizeof(double) * k * dhat);
	memcpy(lr->prev_pc, pc, sizeof(double) * k * dhat);
	for (x = 0; x < lr->ncells; x++)
	{
		dpk_grid_cell_coords(dhat, lr->m, x, idx);
		for (j = 0; j < dhat; j++)
			tc[j] = ((double) idx[j] + 0.5) / lr->m;
		assign[x] = dpk_highd_nearest(tc, pc, k, dhat);
	}

	/* this release's map: every cell to its nearest projected centre */
	newmap = lr->nmaps++;
	lr->maps[newmap] = dpk_alloc(lr->ncells);
	for (x = 0; x < lr->ncells; x++)
		lr->maps[newmap][x] = (uint8_t) assign[x];

	nodes = dpk_tree_signed_decompose(lr->arity, t, node_level, node_index, node_sign);
	for (a = 0; a < nodes; a++)
	{
		LiveRegionNode *nd = &lr->nodes[node_level[a]][node_index[a]];
		uint64_t	r;
		size_t		pos = 0;
		uint64_t	region;
		const int64_t *vals;

		/*
		 * A node's map is fixed at its first publication at the latest: a
		 * node not yet open, or open before any release (kept per cell),
		 * takes this release's.
		 */
		if (nd->map == -2)
		{
			nd->map = newmap;
			dpk_cellmap_init(&nd->sums, d);
		}
		else if (nd->map == -1)
			node_fix_map(lr, nd, newmap);
		region_owner(lr, nd->map, assign, count, owner);
		while (dpk_cellmap_next(&nd->sums, &pos, &region, &vals))
		{
			*rows += node_sign[a] * vals[0];
			for (j = 0; j < d; j++)
				csum[owner[region] * d + j] += node_sign[a] * (double) vals[1 + j];
			ccount[owner[region]] += node_sign[a] * (double) vals[0];
		}
		for (r = 0; r < (uint64_t) k; r++)
		{
			memset(noise, 0, sizeof(int64_t) * (2 + d));
			dpk_node_noise(&s, key, REGION_LEVEL_BYTE, r, lr->arity, node_level[a],
						   node_index[a], d + 1, cs.lap, ss.lap, sums, node_sign[a], noise);
			ccount[owner[r]] += (double) noise[1 + d] / (DPK_LIFT_UNITS / 2.0);
			for (j = 0; j < d; j++)
				csum[owner[r] * d + j] += (double) noise[1 + j];
		}
	}

	for (a = 0; a < k; a++)
	{
		if (ccount[a] >= 1.0)
			for (j = 0; j < d; j++)
				u[j] = fmin(1.0, fmax(0.0, 0.5 + csum[a * d + j] /
									  (DPK_LIFT_UNITS * ccount[a])));
		else
			dpk_project_back(proj, pc + (size_t) a * dhat, u);
		dpk_box_ball_clamp(d, cfg->ball, u);
		dpk_box_from_position(box, cfg->box_metric, u, centers + (size_t) a * d);
	}

	/* nodes opening from now on key their sums by this release's map */
	lr->cur_map = newmap;

	dpk_stream_close(&s);
	dpk_free(pc);
	dpk_free(tc);
	dpk_free(csum);
	dpk_free(ccount);
	dpk_free(u);
	dpk_free(idx);
	dpk_free(noise);
	dpk_free(assign);
	dpk_free(owner);
	return csz;
}
