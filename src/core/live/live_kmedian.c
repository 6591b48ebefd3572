/*
 * live_kmedian.c
 *		A live release's arrays, and its k-median centres and cost curve.
 *
 * k-median is post-processing of a release: the same noisy counted level,
 * the level dpk_live_cluster chose from it and the same coreset, clustered
 * for the sum of distances instead of the sum of squares.  It costs no
 * privacy and draws no noise; the release stores its answer beside the
 * k-means one, so every read of a release number returns the same centres.
 */
#include "live_core.h"

#include <math.h>
#include <string.h>

#include "coreset.h"
#include "dpk_mem.h"
#include "kmedian.h"
#include "kmedian_lifted.h"
#include "lift.h"

/*
 * Sub-points per dimension a coreset point is spread over: 6 at d <= 2, 4 at
 * d = 3 (64 per cell already), 1 from d = 4 on.
 */
#define DPK_KMEDIAN_SPREAD 6
#define DPK_KMEDIAN_SPREAD_3D 4

/* Sub-points per dimension of a spread coreset point at dimension d. */
static int
kmedian_spread_side(int d)
{
	return d <= 2 ? DPK_KMEDIAN_SPREAD : (d == 3 ? DPK_KMEDIAN_SPREAD_3D : 1);
}

/* Allocate a release's arrays (see live_core.h). */
void
dpk_live_release_alloc(DpkLiveRelease *rel, int k, int d)
{
	rel->centers = dpk_alloc((size_t) dpk_live_block(k + 1) * d * sizeof(double));
	rel->sizes = dpk_alloc((size_t) dpk_live_block(k + 1) * sizeof(double));
	rel->costs = dpk_alloc((size_t) k * sizeof(double));
	rel->kmed_centers = rel->kmed_sizes = rel->kmed_costs = NULL;
	rel->guard_fired = 0;
}

/* Free a release. */
void
dpk_live_release_free(DpkLiveRelease *rel)
{
	dpk_free(rel->centers);
	dpk_free(rel->sizes);
	dpk_free(rel->costs);
	dpk_free(rel->kmed_centers);
	dpk_free(rel->kmed_sizes);
	dpk_free(rel->kmed_costs);
	rel->centers = rel->sizes = rel->costs = NULL;
	rel->kmed_centers = rel->kmed_sizes = rel->kmed_costs = NULL;
}

/*
 * Spread every coreset point over its cell (see live_core.h): s^d points of
 * weight w / s^d on a regular sub-grid centred on the point, reaching in
 * each dimension as far as the nearer edge of its cell (half-width
 * min(p - lo, hi - p)).  A geometric median of few heavy points snaps onto
 * one of them (Vardi-Zhang: a point outweighing the pull of the rest is the
 * median), so on a coreset of cell means every centre would sit on a cell
 * mean; points spread like the rows of a cell let it move inside the cell.
 * The point is the cell's shrunk noisy mean, so the sub-grid keeps that
 * mean and stays inside the cell: a mean near an edge says the rows are
 * bunched there (a cluster reaching into the cell), and a spread of the
 * full width would put weight where they are not.  Post-processing only:
 * a function of the noisy point, its level and the public box.
 */
void
dpk_live_kmedian_spread(const DpkCoreset *cs, const DpkBox *box, int level,
						DpkCoreset *out)
{
	int			d = cs->d,
				s = kmedian_spread_side(d),
				sd = 1,
				i,
				j,
				q;
	double		cells = (double) (1 << level);

	for (j = 0; j < d; j++)
		sd *= s;
	out->d = d;
	out->n = cs->n * sd;
	out->points = dpk_alloc((size_t) (out->n ? out->n : 1) * d * sizeof(double));
	out->weights = dpk_alloc((size_t) (out->n ? out->n : 1) * sizeof(double));
	for (i = 0; i < cs->n; i++)
		for (q = 0; q < sd; q++)
		{
			double	   *p = out->points + ((size_t) i * sd + q) * d;
			int			r = q;

			for (j = 0; j < d; j++)
			{
				double		w = (box->upper[j] - box->lower[j]) / cells;
				double		c = cs->points[(size_t) i * d + j];
				double		idx = w > 0.0 ? floor((c - box->lower[j]) / w) : 0.0;
				double		lo,
							h;

				/* a mean on a cell edge has h = 0 from either side */
				idx = fmin(fmax(idx, 0.0), cells - 1.0);
				lo = box->lower[j] + idx * w;
				h = fmax(0.0, fmin(c - lo, lo + w - c));
				p[j] = c + 2.0 * h * (((r % s) + 0.5) / s - 0.5);
				r /= s;
			}
			out->weights[(size_t) i * sd + q] = cs->weights[i] / sd;
		}
}

/*
 * The points the private k-median cost is measured on: every counted cell
 * of `fine` at its shrunk noisy mean (ref, from dpk_live_cell_refs),
 * weighted by its raw noisy count (zero-mean noise: unbiased, and the same
 * noise for every candidate), spread over its cell as the coreset is
 * (dpk_live_kmedian_spread).  Measuring candidates on the same in-cell
 * model they were fitted to ranks them better than one point per cell
 * with a uniform cell's spread added (doc/decisions/008-live-kmedian.md).
 * Cells the coreset drops (tails below the noise threshold) count too.
 */
static void
kmedian_proxy_points(const DpkDenseHist *fine, const DpkBox *box, int level,
					 const double *ref, DpkCoreset *out)
{
	DpkCoreset	cells;
	int			d = fine->d;
	uint64_t	c;

	cells.d = d;
	cells.n = 0;
	cells.points = dpk_alloc((size_t) (fine->ncells ? fine->ncells : 1) * d * sizeof(double));
	cells.weights = dpk_alloc((size_t) (fine->ncells ? fine->ncells : 1) * sizeof(double));
	for (c = 0; c < fine->ncells; c++)
	{
		if (fine->count[c] == 0)
			continue;
		memcpy(cells.points + (size_t) cells.n * d, ref + c * d, d * sizeof(double));
		cells.weights[cells.n++] = (double) fine->count[c];
	}
	dpk_live_kmedian_spread(&cells, box, level, out);
	dpk_coreset_free(&cells);
}

/*
 * The private cost of k-median centres (k * d): the weighted sum of
 * distances from the points of kmedian_proxy_points to their nearest
 * centre.  From d = 4 on the points are not spread and each distance D
 * becomes sqrt(D^2 + s^2), s^2 the spread of uniform points in a cell of
 * the counted level (m per dimension).  Clipped at 0 (negative noisy
 * counts).
 */
static double
kmedian_proxy(const DpkCoreset *pts, const DpkBox *box, int m, const double *centers, int k)
{
	double		proxy = 0.0,
				spread2 = 0.0;
	int			d = pts->d,
				q;

	if (kmedian_spread_side(d) == 1)
		for (q = 0; q < d; q++)
		{
			double		w = (box->upper[q] - box->lower[q]) / m;

			spread2 += w * w / 12.0;
		}

	for (q = 0; q < pts->n; q++)
	{
		const double *p = pts->points + (size_t) q * d;
		double		best = INFINITY;
		int			i,
					j;

		for (i = 0; i < k; i++)
		{
			double		s2 = 0.0;

			for (j = 0; j < d; j++)
			{
				double		diff = p[j] - centers[(size_t) i * d + j];

				s2 += diff * diff;
			}
			/* fmin's result (s2 >= 0, a NaN never wins) without its call */
			if (s2 < best)
				best = s2;
		}
		proxy += pts->weights[q] * sqrt(best + spread2);
	}
	return fmax(0.0, proxy);
}

/*
 * The level of the k-median coreset.  A median sits on the heaviest of few
 * weighted points, so the coarse grids that suit k-means (the level of
 * rel) bias it toward cell means; each level from one below the k-means one
 * up to the counted one gives k-median centres for k, and the level whose
 * centres have the lowest proxy cost on the whole counted level wins.
 */
static int
kmedian_level(const DpkLiveConfig *cfg, const DpkBox *box, const DpkDenseHist *fine,
			  const DpkCoreset *proxy_pts, uint32_t t, uint64_t seed, int kmeans_level)
{
	int			lo = kmeans_level > 0 ? kmeans_level - 1 : 0,
				level,
				chosen = kmeans_level;
	double	   *cand = dpk_alloc((size_t) cfg->k * cfg->d * sizeof(double));
	double		best = INFINITY;

	for (level = lo; level <= cfg->level; level++)
	{
		DpkCoreset	cs,
					raw;
		double		proxy;

		dpk_live_level_coreset(cfg, box, fine, level, t, &raw);
		dpk_live_kmedian_spread(&raw, box, level, &cs);
		dpk_coreset_free(&raw);
		if (cs.n > 0)
		{
			dpk_kmedian(&(DpkPoints) {cs.points, cs.weights, cs.n, cfg->d},
						&(DpkClusterOpts) {cfg->k, cfg->restarts, cfg->max_iter, seed},
						&(DpkClusterOut) {cand, NULL});
			proxy = kmedian_proxy(proxy_pts, box, fine->m, cand, cfg->k);
			if (proxy < best)
			{
				best = proxy;
				chosen = level;
			}
		}
		dpk_coreset_free(&cs);
	}
	dpk_free(cand);
	return chosen;
}

/*
 * k-median for every k' of a low-d release (see live_core.h).  The seed is
 * the release's k-means seed; kmedian.c mixes its restarts apart from
 * k-means ones.  Two candidates for each k': k-median from its own seedings
 * on the spread coreset, and the same alternation started from the
 * release's k-means centres for k' (the k-means answer is a good start on
 * skewed data, where few noisy cells mislead the seeding); the lower proxy
 * cost wins.  An empty coreset puts every centre at the middle of the box
 * with cost 0, as the k-means path does.
 */
void
dpk_live_kmedian(const DpkLiveConfig *cfg, const DpkBox *box, const DpkDenseHist *fine,
				 uint32_t t, uint64_t seed, DpkLiveRelease *rel)
{
	int			d = cfg->d,
				k = cfg->k,
				level,
				kp,
				i,
				j;
	double	   *u = dpk_alloc(d * sizeof(double));
	double	   *ref = dpk_live_cell_refs(cfg, box, fine, t);
	double	   *from = dpk_alloc((size_t) k * d * sizeof(double));
	double	   *from_sizes = dpk_alloc((size_t) k * sizeof(double));
	DpkCoreset	cs,
				raw,
				proxy_pts;

	kmedian_proxy_points(fine, box, cfg->level, ref, &proxy_pts);
	level = kmedian_level(cfg, box, fine, &proxy_pts, t, seed, rel->level);
	dpk_live_level_coreset(cfg, box, fine, level, t, &raw);
	dpk_live_kmedian_spread(&raw, box, level, &cs);
	dpk_coreset_free(&raw);
	dpk_free(rel->kmed_centers);
	dpk_free(rel->kmed_sizes);
	dpk_free(rel->kmed_costs);
	rel->kmed_centers = dpk_alloc((size_t) dpk_live_block(k + 1) * d * sizeof(double));
	rel->kmed_sizes = dpk_alloc((size_t) dpk_live_block(k + 1) * sizeof(double));
	rel->kmed_costs = dpk_alloc((size_t) k * sizeof(double));
	for (kp = 1; kp <= k; kp++)
	{
		double	   *centers = rel->kmed_centers + (size_t) dpk_live_block(kp) * d;
		double	   *sizes = rel->kmed_sizes + dpk_live_block(kp);

		if (cs.n > 0)
		{
			double		proxy;

			dpk_kmedian(&(DpkPoints) {cs.points, cs.weights, cs.n, d},
						&(DpkClusterOpts) {kp, cfg->restarts, cfg->max_iter, seed + (uint64_t) kp},
						&(DpkClusterOut) {centers, sizes});
			rel->kmed_costs[kp - 1] = kmedian_proxy(&proxy_pts, box, fine->m, centers, kp);
			memcpy(from, rel->centers + (size_t) dpk_live_block(kp) * d,
				   (size_t) kp * d * sizeof(double));
			dpk_kmedian_from(cs.points, cs.weights, cs.n, d, kp, cfg->max_iter, from,
							 from_sizes);
			proxy = kmedian_proxy(&proxy_pts, box, fine->m, from, kp);
			if (proxy < rel->kmed_costs[kp - 1])
			{
				memcpy(centers, from, (size_t) kp * d * sizeof(double));
				memcpy(sizes, from_sizes, (size_t) kp * sizeof(double));
				rel->kmed_costs[kp - 1] = proxy;
			}
			continue;
		}
		for (i = 0; i < kp; i++)
		{
			for (j = 0; j < d; j++)
				u[j] = 0.5;
			dpk_box_denormalize(box, u, centers + (size_t) i * d);
			sizes[i] = 0.0;
		}
		rel->kmed_costs[kp - 1] = 0.0;
	}
	dpk_coreset_free(&cs);
	dpk_coreset_free(&proxy_pts);
	dpk_free(u);
	dpk_free(ref);
	dpk_free(from);
	dpk_free(from_sizes);
}

/* k-median of a projected live release (see kmedian_lifted.h). */
void
dpk_live_kmedian_projected(const DpkLiveConfig *cfg, const DpkBox *box, const double *count,
						   const double *sum, double sumnorm, uint32_t t, uint64_t seed,
						   DpkLiveRelease *rel)
{
	int			d = cfg->d,
				k = cfg->k,
				r,
				kp,
				j;
	uint64_t	ncells = dpk_live_copy_cells(cfg);
	double		count_var = dpk_live_projected_count_var(cfg, t),
				sum_var = dpk_live_projected_sum_var(cfg, t);
	double		threshold = dpk_coreset_threshold(sqrt(count_var), cfg->threshold_sigmas,
												  (double) ncells);
	double		min_count = dpk_lift_min_count(count_var, sum_var);
	double		width2 = 0.0;
	double	   *x = dpk_alloc(sizeof(double) * (size_t) ncells * d);
	double	   *w = dpk_alloc(sizeof(double) * (size_t) ncells);
	double	   *nsum = dpk_alloc(sizeof(double) * (size_t) ncells * d);
	double	   *cent = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *sizes = dpk_alloc(sizeof(double) * (size_t) k);
	double	   *best = dpk_alloc(sizeof(double) * (size_t) k);
	uint64_t	c;

	width2 = dpk_live_width2(cfg, box);
	rel->kmed_centers = dpk_alloc((size_t) dpk_live_block(k + 1) * d * sizeof(double));
	rel->kmed_sizes = dpk_alloc((size_t) dpk_live_block(k + 1) * sizeof(double));
	rel->kmed_costs = dpk_alloc((size_t) k * sizeof(double));
	for (kp = 0; kp < k; kp++)
		best[kp] = INFINITY;

	for (r = 0; r < cfg->copies; r++)
	{
		double		heavy,
					between,
					total = 0.0,
					spread2,
					scale;
		int			n;

		for (c = 0; c < ncells * d; c++)
			nsum[c] = sum[(size_t) r * ncells * d + c] / DPK_LIFT_UNITS;
		for (c = 0; c < ncells; c++)
			total += count[(size_t) r * ncells + c];
		n = dpk_kmedian_copy_lifted(&(DpkCopyCells) {box, cfg->box_metric, ncells, count + (size_t) r * ncells, nsum},
									&(DpkLiftedCut) {threshold, min_count, sum_var},
									&(DpkLiftedPoints) {x, w, &heavy, &between});

		/*
		 * Mean squared distance of a point to its cell's mean: all points'
		 * squared norms (noisy counter) minus the squared norms of their
		 * cells' means, the light cells' points taken to lie like the
		 * lifted ones (their own means are mostly noise), per point of the
		 * copy (its noisy N, unclipped); in box units by the mean squared
		 * width.
		 */
		spread2 = total > 0.0 && heavy > 0.0
			? fmax(0.0, sumnorm / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS) -
				   between * total / heavy) / total * width2
			: 0.0;
		scale = heavy > 0.0 ? fmax(1.0, total / heavy) : 1.0;
		for (kp = 1; kp <= k; kp++)
		{
			const double *start = rel->centers + (size_t) dpk_live_block(kp) * d;
			double		cost = dpk_kmedian_lifted(&(DpkPoints) {x, w, n, d},
												  &(DpkClusterOpts) {kp, cfg->restarts, cfg->max_iter, seed + (uint64_t) kp},
												  start, spread2,
												  &(DpkClusterOut) {cent, sizes}) * scale;

			if (n > 0 && cost < best[kp - 1])
			{
				best[kp - 1] = cost;
				memcpy(rel->kmed_centers + (size_t) dpk_live_block(kp) * d, cent,
					   sizeof(double) * (size_t) kp * d);
				for (j = 0; j < kp; j++)
					rel->kmed_sizes[dpk_live_block(kp) + j] = sizes[j] * scale;
			}
		}
	}
	for (kp = 1; kp <= k; kp++)
	{
		if (isfinite(best[kp - 1]))
			rel->kmed_costs[kp - 1] = best[kp - 1];
		else
		{
			/* no copy lifted a cell: the k-means answer, cost unknown (0) */
			memcpy(rel->kmed_centers + (size_t) dpk_live_block(kp) * d,
				   rel->centers + (size_t) dpk_live_block(kp) * d,
				   sizeof(double) * (size_t) kp * d);
			memcpy(rel->kmed_sizes + dpk_live_block(kp), rel->sizes + dpk_live_block(kp),
				   sizeof(double) * (size_t) kp);
			rel->kmed_costs[kp - 1] = 0.0;
		}
	}
	dpk_free(x);
	dpk_free(w);
	dpk_free(nsum);
	dpk_free(cent);
	dpk_free(sizes);
	dpk_free(best);
}
