/*
 * live_regions_release.c
 *		A release of a table lifting by regions (see live_regions.h): the
 *		pieces of every (map, region) from the noisy node sums, their
 *		partition in the projected space or, where its charged gain is
 *		higher, in the original space, and the lifted centres of every k'.
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
		dpk_kmeans(&(DpkPoints) {pts, w, n, d},
				   &(DpkClusterOpts) {kp, cfg->restarts, cfg->max_iter, seed ^ UINT64_C(0x5eed)},
				   &(DpkClusterOut) {scent, NULL});
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

/* Release t of a table lifting by regions (see live_regions.h). */
void
dpk_regions_release(DpkRegions *rs, const DpkRegionsTable *tbl,
					const DpkRegionsInput *in, const DpkRegionsOut *out)
{
	const DpkLiveConfig *cfg = tbl->cfg;
	const DpkBox *box = tbl->box;
	const DpkProjection *proj = tbl->proj;
	const uint8_t *key = tbl->key;
	uint32_t	t = in->t;
	const DpkCellMap *state = in->state;
	const double *count = in->count;
	double		threshold_cells = in->threshold_cells;
	double		sumnorm = in->sumnorm;
	uint64_t	seed = in->seed;
	DpkLiveRelease *rel = out->rel;
	double	   *sum = out->sum;
	int64_t    *rows = out->rows;
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

	dpk_regions_fold_step(rs, t, state);

	/* the k centres: restarts against the previous release's, refined */
	threshold = dpk_highd_grid_kmeans_cells(&(DpkNoisyGrid) {dhat, rs->m, count, count_var, false},
											cfg->threshold_sigmas, threshold_cells,
											&(DpkClusterOpts) {k, cfg->restarts,
															   cfg->max_iter, seed},
											pck, &csz);
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
	dpk_regions_add_map(rs, t, newmap);

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
		DpkRegionNode *nd = dpk_regions_find_node(rs, node_level[a], node_index[a]);
		size_t		pos = 0;
		uint64_t	region;
		const int64_t *vals;
		uint64_t	start = (uint64_t) (node_index[a] - 1) * dpk_regions_level_span(rs->arity, node_level[a]);

		if (node_level[a] >= rs->h)
			dpk_fail("lifting by regions: a node above the table's levels");
		if (nd == NULL)
		{
			DpkRegionNode *top = dpk_regions_find_node(rs, rs->h - 1, dpk_regions_top_block(rs->arity, rs->h, t));

			if (!rs->signed_digits || start < t || top == NULL || top->map == 0 ||
				dpk_regions_top_block(rs->arity, rs->h, start + 1) != top->index)
				dpk_fail("lifting by regions: a release needs a node that never opened");
			node_map[a] = top->map;
		}
		else if (nd->map == 0)
		{
			if ((uint64_t) nd->index * dpk_regions_level_span(rs->arity, nd->level) != t)
				dpk_fail("lifting by regions: a pending node published past its end");
			nd->map = t;
			dpk_regions_node_add_cells(rs, nd, newmap, &rs->prev, +1);
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
			dpk_node_noise(&s,
						   &(DpkCellKey) {key, DPK_REGION_LEVEL_BYTE, (uint64_t) r},
						   &(DpkTreeNode) {rs->arity, node_level[a], node_index[a], node_sign[a]},
						   &(DpkCellScales) {d + 1, cs.lap, ss.lap, sums},
						   noise);
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
		uint64_t	span = dpk_regions_level_span(rs->arity, node_level[a]),
					start = (uint64_t) (node_index[a] - 1) * span,
					held = start >= t ? 0 : (start + span <= t ? span : t - start);
		double		share = node_sign[a] * (double) held / t;

		region_counts(rs, dpk_regions_find_map(rs, node_map[a]), count, rcount, rcells);
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

			dpk_highd_grid_kmeans_cells(&(DpkNoisyGrid) {dhat, rs->m, count, count_var, false},
										cfg->threshold_sigmas, threshold_cells,
										&(DpkClusterOpts) {kp, cfg->restarts, cfg->max_iter,
														   seed + (uint64_t) kp},
										pc, &unused);
			assign_cells(rs, pc, kp, assign);
		}
		for (a = 0; a < kp; a++)
			dpk_project_back(proj, pc + (size_t) a * dhat, fallback + (size_t) a * d);
		for (a = 0; a < pp.nmaps; a++)
			region_owner(rs, dpk_regions_find_map(rs, pp.map[a]), kp, assign, count, owner + (size_t) a * k);
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
	dpk_regions_prune(rs, t);

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
