/*
 * highd.c
 *		The high-dimensional one-shot pipeline: projected histograms and
 *		their grid k-means, the joint mode and refinement
 *		(see highd.h; configuration in highd_config.c, the plan and the
 *		published result in highd_plan.c, partitions and cell-mode
 *		clustering in highd_cluster.c).
 */
#include "highd.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "highd_int.h"
#include "kmeans.h"
#include "kmedian_lifted.h"
#include "mean_guard.h"
#include "rugnik.h"

/* ---- histograms and grids ---- */

/*
 * Points ahead of the one counted whose count's line is fetched: a count
 * is a few instructions, so the fetch must start a few dozen counts early
 * to arrive in time (8 waited on most of them).
 */
#define DPK_COUNT_PREFETCH 32

/*
 * Rows of chunk `done` of the input, clamped into the box, in metric
 * positions (dpk_box_to_metric: k-means in the columns' units), computed
 * into u; or, when they already are (cfg->points_metric), read in place.
 * With pl->rows the chunk is read into u first and computed there.
 * Returns the rows, their count in *rows (see highd_int.h).
 */
const double *
dpk_highd_load_chunk(const DpkHighdPlan *pl, size_t done, double *u, size_t *rows)
{
	size_t		i;

	const double *x;

	*rows = pl->n - done < DPK_PROJ_CHUNK ? pl->n - done : DPK_PROJ_CHUNK;
	dpk_check_interrupts();
	if (pl->rows)
	{
		pl->rows->read(pl->rows->arg, done, *rows, u);
		if (pl->cfg->points_metric)
			return u;
		/* computed in place: each coordinate is read before it is written */
		x = u;
	}
	else if (pl->cfg->points_metric)
		return pl->points + done * pl->d;
	else
		x = pl->points + done * pl->d;
	for (i = 0; i < *rows; i++)
	{
		dpk_box_normalize(pl->box, x + i * pl->d, u + i * pl->d);
		dpk_box_to_metric(pl->box, u + i * pl->d);
		dpk_box_ball_clamp(pl->d, pl->cfg->ball, u + i * pl->d);
	}
	return u;
}

/* A grid cell's count while the rows are counted, then its noisy count. */
typedef union HistCell
{
	int64_t		count;
	double		noisy;
} HistCell;

_Static_assert(sizeof(HistCell) == sizeof(double), "a noisy grid is an array of doubles");

/* Every cell's count plus its noise, over the count; the noisy grid. */
static double *
grid_noise(const DpkHighdPlan *pl, DpkStream *s, HistCell *cell, uint64_t ncells)
{
	uint64_t	c;

	for (c = 0; c < ncells; c++)
	{
		if ((c & 4095) == 0)
			dpk_check_interrupts();
		cell[c].noisy = (double) (cell[c].count + dpk_noise_draw(s, &pl->count_scale));
	}
	return &cell[0].noisy;
}

/* n points counted into their cells, each count's line fetched ahead. */
static inline void
grid_count(HistCell *cell, const uint64_t *cells, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		if (i + DPK_COUNT_PREFETCH < n)
			__builtin_prefetch(cell + cells[i + DPK_COUNT_PREFETCH], 1);
		cell[cells[i]].count++;
	}
}

/*
 * One copy's noisy projected grid; with keep, every point's projection is
 * stored there (a column of dhat doubles a row) as well.  The cells of a
 * chunk are found first and counted after, each count's cache line fetched
 * DPK_COUNT_PREFETCH points ahead: the grid is larger than the caches.
 */
static double *
histogram_pass(const DpkHighdPlan *pl, const DpkProjection *proj, DpkStream *s,
			   DpkHighdVisit visit, void *arg, DpkHighdColumn *keep)
{
	int			d = pl->d,
				dhat = pl->dhat;
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, pl->m));
	/* each cell's count, then in the same place its noisy count */
	HistCell   *cell = dpk_alloc0(sizeof(HistCell) * ncells);
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	double	   *t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * dhat);
	uint64_t   *cells = dpk_alloc(sizeof(uint64_t) * DPK_PROJ_CHUNK);
	size_t		done,
				i;

	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows;
		const double *uc = dpk_highd_load_chunk(pl, done, u, &rows);
		double	   *tc = keep ? dpk_highd_column_slot(keep, done, rows, t) : t;

		dpk_project_batch(proj, uc, rows, tc);
		dpk_grid_cell_batch(dhat, pl->m, tc, rows, cells);
		grid_count(cell, cells, rows);
		for (i = 0; visit && i < rows; i++)
			visit(arg, uc + i * d, tc + i * dhat, cells[i]);
		if (keep)
			dpk_highd_column_put(keep, done, rows, tc);
	}
	dpk_free(u);
	dpk_free(t);
	dpk_free(cells);
	return grid_noise(pl, s, cell, ncells);
}

/* One copy's noisy projected grid (see highd.h). */
double *
dpk_highd_histogram(const DpkHighdPlan *pl, const DpkProjection *proj, DpkStream *s,
					DpkHighdVisit visit, void *arg)
{
	return histogram_pass(pl, proj, s, visit, arg, NULL);
}

/* Coreset and weighted k-means of a noisy projected grid (see highd.h). */
double
dpk_highd_grid_kmeans(const DpkNoisyGrid *grid, double threshold_sigmas,
					  const DpkClusterOpts *opt, double *pcenters, int *coreset_size)
{
	return dpk_highd_grid_kmeans_cells(grid, threshold_sigmas, 0.0, opt, pcenters,
									   coreset_size);
}

/* The coreset threshold of a noisy grid for k centres (see highd.h). */
double
dpk_highd_grid_threshold(const DpkNoisyGrid *grid, double threshold_sigmas, double cells,
						 int k)
{
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(grid->dhat, grid->m)),
				c;
	double		sd = sqrt(grid->count_var),
				n = cells > 0.0 ? cells : (double) ncells,
				threshold = dpk_coreset_threshold(sd, threshold_sigmas, n);
	int			above = 0;

	if (!grid->gauss_tail)
		return threshold;
	for (c = 0; c < ncells && above < k; c++)
		above += grid->count[c] > threshold;
	return above < k ? dpk_coreset_threshold_gauss(sd, threshold_sigmas, n) : threshold;
}

/* The same with the threshold of `cells` cells (see highd.h). */
double
dpk_highd_grid_kmeans_cells(const DpkNoisyGrid *grid, double threshold_sigmas,
							double cells, const DpkClusterOpts *opt, double *pcenters,
							int *coreset_size)
{
	int			dhat = grid->dhat,
				m = grid->m;
	const double *count = grid->count;
	double		threshold = dpk_highd_grid_threshold(grid, threshold_sigmas, cells, opt->k);
	double	   *pts;
	double	   *w;
	int			n = dpk_highd_coreset_cells(dhat, m, count, threshold, &pts, &w),
				j;

	*coreset_size = n;
	if (n > 0)
		dpk_kmeans(&(DpkPoints) {pts, w, n, dhat}, opt,
				   &(DpkClusterOut) {pcenters, NULL});
	else
		for (j = 0; j < opt->k * dhat; j++)
			pcenters[j] = 0.5;
	dpk_free(pts);
	dpk_free(w);
	return threshold;
}

/* The cells of a noisy grid above a threshold, weighted (see highd.h). */
int
dpk_highd_coreset_cells(int dhat, int m, const double *count, double threshold,
						double **pts, double **w)
{
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, m));
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
	uint64_t	c;
	int			n = 0,
				j;

	for (c = 0; c < ncells; c++)
		if (count[c] > threshold)
			n++;
	*pts = dpk_alloc(sizeof(double) * (size_t) (n ? n : 1) * dhat);
	*w = dpk_alloc(sizeof(double) * (n ? n : 1));
	n = 0;
	for (c = 0; c < ncells; c++)
	{
		if (!(count[c] > threshold))
			continue;
		dpk_grid_cell_coords(dhat, m, c, idx);
		for (j = 0; j < dhat; j++)
			(*pts)[(size_t) n * dhat + j] = ((double) idx[j] + 0.5) / m;
		(*w)[n++] = count[c];
	}
	dpk_free(idx);
	return n;
}

void
dpk_highd_out_init(DpkHighdOut *o, int k, int d)
{
	o->centers = dpk_alloc(sizeof(double) * (size_t) k * d);
	o->sizes = dpk_alloc0(sizeof(double) * k);
	o->coreset_size = 0;
	o->tree_leaves = 0;
	o->guard_fired = false;
}

/* Free an output (see highd.h). */
void
dpk_highd_out_free(DpkHighdOut *o)
{
	dpk_free(o->centers);
	dpk_free(o->sizes);
}

/*
 * Joint mode, first stage: every copy's projection, noisy grid and k
 * projected centres (pc: copies * k * dhat); out gets the largest coreset.
 * labels (a column of n ints) gets every point's tuple of nearest
 * projected centres, read in base k (the joint partition's label), from
 * the projections the histogram pass kept: the later passes need not
 * project again.  Returns the number of groups, k^copies.
 */
static int
joint_copies(const DpkHighdPlan *pl, DpkStream *s, DpkProjection *proj, double *pc,
			 DpkHighdColumn *labels, DpkHighdOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			k = pl->k,
				dhat = pl->dhat,
				r,
				ngroups = 1;
	DpkHighdColumn kept;
	double	   *tbuf = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * dhat);
	int		   *lbuf = dpk_alloc(sizeof(int) * DPK_PROJ_CHUNK);
	size_t		i;

	dpk_highd_column_init(&kept, pl->n, sizeof(double) * dhat, dpk_highd_plan_spill(pl));
	for (r = 0; r < pl->copies; r++)
	{
		double	   *count;
		const double *pcr = pc + (size_t) r * k * dhat;
		int			csz;

		dpk_projection_init(&proj[r], pl->d, dhat,
							dpk_projection_copy_seed(cfg->proj_seed, r), cfg->half_width);
		count = histogram_pass(pl, &proj[r], s, NULL, NULL, &kept);
		dpk_highd_grid_kmeans(&(DpkNoisyGrid) {dhat, pl->m, count, pl->count_var, false},
							  cfg->threshold_sigmas,
							  &(DpkClusterOpts) {k, cfg->restarts, cfg->max_iter,
												 dpk_stream_u64(s)},
							  pc + (size_t) r * k * dhat, &csz);
		dpk_free(count);
		for (i = 0; i < pl->n; i += DPK_PROJ_CHUNK)
		{
			size_t		rows = pl->n - i < DPK_PROJ_CHUNK ? pl->n - i : DPK_PROJ_CHUNK;
			const double *t = dpk_highd_column_get(&kept, i, rows, tbuf);
			int		   *lab = r == 0 ? dpk_highd_column_slot(labels, i, rows, lbuf)
				: dpk_highd_column_get(labels, i, rows, lbuf);

			dpk_check_interrupts();
			if (r == 0)
				memset(lab, 0, sizeof(int) * rows);
			dpk_highd_nearest_append(t, rows, pcr, k, dhat, lab);
			dpk_highd_column_put(labels, i, rows, lab);
		}
		if (r == 0 || csz > out->coreset_size)
			out->coreset_size = csz;
		ngroups *= k;
	}
	dpk_highd_column_free(&kept);
	dpk_free(tbuf);
	dpk_free(lbuf);
	return ngroups;
}

/*
 * Joint mode, second stage: one noisy count per group; groups embedded at
 * the concatenation of their projected centres; weighted k-means (ec: k
 * centres of dimension copies * dhat) of the groups above the noise, then
 * every group to its nearest centre (map).  The groups' counts are made
 * from labels, or were counted before (counted not NULL).  Returns how many
 * groups were kept (0: map is g mod k and ec unset).
 */
static int
joint_group_map(const DpkHighdPlan *pl, DpkStream *s, const DpkProjection *proj,
				const double *pc, DpkHighdColumn *labels, const int64_t *counted,
				int ngroups, double *ec, int *map)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			k = pl->k,
				dhat = pl->dhat,
				R = pl->copies,
				e = pl->copies * pl->dhat,
				g,
				r,
				nkept = 0;
	double	   *gcnt = dpk_alloc(sizeof(double) * ngroups);
	double	   *emb = dpk_alloc(sizeof(double) * (size_t) ngroups * e);
	double	   *kept = dpk_alloc(sizeof(double) * (size_t) ngroups * e);
	double	   *w = dpk_alloc(sizeof(double) * ngroups);
	double		threshold;
	DpkHighdPartition pt = {ngroups, R, proj, pc, NULL, NULL, NULL, labels};

	if (counted)
		dpk_highd_partition_noise(pl->d, ngroups, counted, NULL, &pl->group_scale,
								  &pl->group_scale, s, gcnt, NULL);
	else
		dpk_highd_partition_stats(pl, &pt, &pl->group_scale, &pl->group_scale, s, gcnt, NULL);
	threshold = dpk_coreset_threshold(sqrt(pl->group_var), cfg->threshold_sigmas,
									  (double) ngroups);
	for (g = 0; g < ngroups; g++)
	{
		int			rest = g;

		for (r = R - 1; r >= 0; r--)
		{
			int			a = rest % k;

			rest /= k;
			memcpy(emb + (size_t) g * e + (size_t) r * dhat,
				   pc + ((size_t) r * k + a) * dhat, sizeof(double) * dhat);
		}
		if (gcnt[g] > threshold)
		{
			memcpy(kept + (size_t) nkept * e, emb + (size_t) g * e, sizeof(double) * e);
			w[nkept++] = gcnt[g];
		}
	}
	if (nkept > 0)
	{
		dpk_kmeans(&(DpkPoints) {kept, w, nkept, e},
				   &(DpkClusterOpts) {k, cfg->restarts, cfg->max_iter, dpk_stream_u64(s)},
				   &(DpkClusterOut) {ec, NULL});
		/* every group, kept or not, to its nearest centre */
		dpk_kmeans_cost(emb, NULL, ngroups, e, ec, k, map);
	}
	else
		for (g = 0; g < ngroups; g++)
			map[g] = g % k;
	dpk_free(gcnt);
	dpk_free(emb);
	dpk_free(kept);
	dpk_free(w);
	return nkept;
}

/*
 * Joint mode, last stage: one noisy (count, sum) per part of the map, each
 * part lifted; fallback the pseudo-inverse of the first block of its
 * embedded centre (or of copy 0's projected centre when no group was kept).
 * The parts' counts and sums are made from the rows and labels, or from
 * the groups' (gc, gs; ngroups of them): a part's integers are its groups'
 * added, the same integers.
 */
static void
joint_lift(const DpkHighdPlan *pl, DpkStream *s, const DpkProjection *proj,
		   const double *pc, DpkHighdColumn *labels, const int *map, const double *ec,
		   int nkept, const int64_t *gc, const int64_t *gs, int ngroups, DpkHighdOut *out)
{
	int			d = pl->d,
				k = pl->k,
				e = pl->copies * pl->dhat,
				j;
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *sum = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *fallback = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *ident = dpk_alloc(sizeof(int) * k);
	double		sum_var_norm = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
	DpkHighdPartition pt = {k, pl->copies, proj, pc, map, NULL, NULL, labels};

	for (j = 0; j < k; j++)
	{
		dpk_project_back(&proj[0], nkept > 0 ? ec + (size_t) j * e : pc + (size_t) j * pl->dhat,
						 fallback + (size_t) j * d);
		ident[j] = j;
	}
	if (gc)
	{
		int64_t    *pcnt = dpk_alloc0(sizeof(int64_t) * k);
		int64_t    *psum = dpk_alloc0(sizeof(int64_t) * (size_t) k * d);
		int			g,
					c;

		for (g = 0; g < ngroups; g++)
		{
			pcnt[map[g]] += gc[g];
			for (c = 0; c < d; c++)
				psum[(size_t) map[g] * d + c] += gs[(size_t) g * d + c];
		}
		dpk_highd_partition_noise(d, k, pcnt, psum, &pl->lift_count_scale, &pl->sum_scale, s,
								  cnt, sum);
		dpk_free(pcnt);
		dpk_free(psum);
	}
	else
		dpk_highd_partition_stats(pl, &pt, &pl->lift_count_scale, &pl->sum_scale, s, cnt, sum);
	if (pl->cfg->lift_shrink)
	{
		/* each part one cell of its own, weighed by its noisy count */
		dpk_highd_cells_rest_mean(&proj[0], (uint64_t) k, cnt, sum, sum_var_norm, ident, k, fallback);
		dpk_lift_centers_weighted(&(DpkLiftCells) {d, k, (size_t) k, cnt, sum, ident},
								  &(DpkLiftRule) {sum_var_norm, dpk_lift_min_count(pl->lift_count_var, sum_var_norm), fallback, NULL},
								  out->centers, out->sizes);
	}
	else
		dpk_lift_centers(&(DpkLiftCells) {d, k, (size_t) k, cnt, sum, ident},
						 &(DpkLiftRule) {0.0, dpk_lift_min_count(pl->lift_count_var, sum_var_norm), fallback, NULL},
						 out->centers, out->sizes);
	/* never dearer, by the same statistics' estimate, than their noisy mean
	 * (with refinement steps, after the last of them) */
	if (pl->cfg->mean_guard && pl->eps.eps_refine <= 0.0)
		out->guard_fired = dpk_mean_guard(d, k, cnt, sum, sum_var_norm,
										  dpk_lift_min_count(pl->lift_count_var, sum_var_norm),
										  fallback, out->centers, out->sizes);
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(fallback);
	dpk_free(ident);
}

/* The joint mode's copies and groups, as both of its users need them. */
typedef struct JointGroups
{
	DpkProjection *proj;		/* the copies' projections */
	double	   *pc,				/* copies' projected centres */
			   *ec;
	int		   *map;			/* group -> kept part */
	int			nkept;
} JointGroups;

/*
 * The copies' projections and labels (each row's group, into labels) and the
 * groups' map to the kept parts: joint_copies then joint_group_map, their
 * draws in that order.
 */
static void
joint_groups_make(const DpkHighdPlan *pl, DpkStream *s, DpkHighdColumn *labels,
				  DpkHighdOut *out, JointGroups *jg)
{
	int			R = pl->copies,
				ngroups;

	jg->proj = dpk_alloc(sizeof(DpkProjection) * R);
	jg->pc = dpk_alloc(sizeof(double) * (size_t) R * pl->k * pl->dhat);
	jg->ec = dpk_alloc(sizeof(double) * (size_t) pl->k * R * pl->dhat);
	ngroups = joint_copies(pl, s, jg->proj, jg->pc, labels, out);
	jg->map = dpk_alloc(sizeof(int) * ngroups);
	jg->nkept = joint_group_map(pl, s, jg->proj, jg->pc, labels, NULL, ngroups, jg->ec,
								jg->map);
}

/* Free what joint_groups_make made. */
static void
joint_groups_free(const DpkHighdPlan *pl, JointGroups *jg)
{
	int			r;

	for (r = 0; r < pl->copies; r++)
		dpk_projection_free(&jg->proj[r]);
	dpk_free(jg->proj);
	dpk_free(jg->pc);
	dpk_free(jg->ec);
	dpk_free(jg->map);
}

/* The joint mode's groups: k^copies. */
static int
joint_ngroups(const DpkHighdPlan *pl)
{
	int			r,
				ngroups = 1;

	for (r = 0; r < pl->copies; r++)
		ngroups *= pl->k;
	return ngroups;
}

/*
 * The joint k-means in two passes over the rows instead of copies + 1, and
 * no per-row column: the first counts every copy's grid (the projections
 * are public: no copy waits for another's result), then each copy's noise
 * and centres as joint_copies draws them; the second projects the rows
 * again for their groups (above DPK_PROJ_EXACT_MAX_D, where a projection
 * costs more than reading it back, and wherever they all fit the spill's
 * memory, the first pass's are kept in a column instead) and adds each row
 * to its group's count and fixed-point sum.  The groups' counts, map and lift then follow from
 * those integers, in joint_groups_make and joint_lift's order of draws
 * (doc/decisions/080).
 */
static void
joint_two_passes(const DpkHighdPlan *pl, DpkStream *s, DpkHighdOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			k = pl->k,
				d = pl->d,
				dhat = pl->dhat,
				R = pl->copies,
				ngroups = joint_ngroups(pl),
				r,
				csz;
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, pl->m));
	HistCell  **cell = dpk_alloc(sizeof(HistCell *) * R);
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	double	   *t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * R * dhat);
	uint64_t   *cells = dpk_alloc(sizeof(uint64_t) * DPK_PROJ_CHUNK);
	int		   *lab = dpk_alloc(sizeof(int) * DPK_PROJ_CHUNK);
	int64_t    *gc = dpk_alloc0(sizeof(int64_t) * ngroups);
	int64_t    *gs = dpk_alloc0(sizeof(int64_t) * (size_t) ngroups * d);
	const DpkHighdSpill *spill = dpk_highd_plan_spill(pl);
	/* projections kept above the exact kernel or when all stay in memory */
	bool		keep = d > DPK_PROJ_EXACT_MAX_D || spill == NULL ||
		(double) pl->n * R * dhat * sizeof(double) <= (double) spill->mem_bytes;
	DpkHighdColumn kept;
	JointGroups jg;
	size_t		done,
				rows;

	jg.proj = dpk_alloc(sizeof(DpkProjection) * R);
	jg.pc = dpk_alloc(sizeof(double) * (size_t) R * k * dhat);
	jg.ec = dpk_alloc(sizeof(double) * (size_t) k * R * dhat);
	jg.map = dpk_alloc(sizeof(int) * ngroups);
	for (r = 0; r < R; r++)
	{
		dpk_projection_init(&jg.proj[r], d, dhat, dpk_projection_copy_seed(cfg->proj_seed, r),
							cfg->half_width);
		cell[r] = dpk_alloc0(sizeof(HistCell) * ncells);
	}
	if (keep)
		dpk_highd_column_init(&kept, pl->n, sizeof(double) * R * dhat, spill);
	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		const double *uc = dpk_highd_load_chunk(pl, done, u, &rows);
		/* a chunk's projections copy after copy */
		double	   *tc = keep ? dpk_highd_column_slot(&kept, done, rows, t) : t;

		for (r = 0; r < R; r++)
		{
			dpk_project_batch(&jg.proj[r], uc, rows, tc + (size_t) r * rows * dhat);
			dpk_grid_cell_batch(dhat, pl->m, tc + (size_t) r * rows * dhat, rows, cells);
			grid_count(cell[r], cells, rows);
		}
		if (keep)
			dpk_highd_column_put(&kept, done, rows, tc);
	}
	for (r = 0; r < R; r++)
	{
		double	   *count = grid_noise(pl, s, cell[r], ncells);

		dpk_highd_grid_kmeans(&(DpkNoisyGrid) {dhat, pl->m, count, pl->count_var, false},
							  cfg->threshold_sigmas,
							  &(DpkClusterOpts) {k, cfg->restarts, cfg->max_iter,
												 dpk_stream_u64(s)},
							  jg.pc + (size_t) r * k * dhat, &csz);
		dpk_free(count);
		if (r == 0 || csz > out->coreset_size)
			out->coreset_size = csz;
	}
	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		const double *uc = dpk_highd_load_chunk(pl, done, u, &rows);
		double	   *tc = keep ? dpk_highd_column_get(&kept, done, rows, t) : t;

		memset(lab, 0, sizeof(int) * rows);
		for (r = 0; r < R; r++)
		{
			if (!keep)
				dpk_project_batch(&jg.proj[r], uc, rows, tc + (size_t) r * rows * dhat);
			dpk_highd_nearest_append(tc + (size_t) r * rows * dhat, rows,
									 jg.pc + (size_t) r * k * dhat, k, dhat, lab);
		}
		dpk_highd_rows_add(d, uc, rows, lab, gc, gs);
	}
	if (keep)
		dpk_highd_column_free(&kept);
	jg.nkept = joint_group_map(pl, s, jg.proj, jg.pc, NULL, gc, ngroups, jg.ec, jg.map);
	joint_lift(pl, s, jg.proj, jg.pc, NULL, jg.map, jg.ec, jg.nkept, gc, gs, ngroups, out);
	joint_groups_free(pl, &jg);
	dpk_free(cell);
	dpk_free(u);
	dpk_free(t);
	dpk_free(cells);
	dpk_free(lab);
	dpk_free(gc);
	dpk_free(gs);
}

/*
 * The joint mode (see highd.h).  Two clusters merged by one projection stay
 * apart as long as another separates them.
 */
void
dpk_highd_run_joint(const DpkHighdPlan *pl, DpkStream *s, DpkHighdOut *out)
{
	JointGroups jg;
	DpkHighdColumn labels;
	int			r;

	if (!(pl->have_lift && pl->eps.eps_group > 0.0))
	{
		/* a configuration without lifting budget: centres at the middle */
		for (r = 0; r < pl->k * pl->d; r++)
			out->centers[r] = 0.5;
		return;
	}
	if (pl->cfg->objective == DPK_OBJECTIVE_KMEANS &&
		(double) joint_ngroups(pl) * (pl->d + 1) * sizeof(int64_t) <= pl->cfg->joint_group_bytes)
	{
		joint_two_passes(pl, s, out);
		return;
	}
	dpk_highd_column_init(&labels, pl->n, sizeof(int), dpk_highd_plan_spill(pl));
	joint_groups_make(pl, s, &labels, out, &jg);
	if (pl->cfg->objective == DPK_OBJECTIVE_KMEDIAN)
		dpk_highd_joint_kmedian(pl, s, &jg.proj[0], out);
	else
		joint_lift(pl, s, jg.proj, jg.pc, &labels, jg.map, jg.ec, jg.nkept, NULL, NULL, 0, out);
	dpk_highd_column_free(&labels);
	joint_groups_free(pl, &jg);
}

/* The joint mode's partition without its lift (see highd.h). */
void
dpk_highd_joint_parts(const DpkHighdPlan *pl, DpkStream *s, DpkHighdColumn *part,
					  DpkHighdOut *out)
{
	JointGroups jg;
	int		   *buf = dpk_alloc(sizeof(int) * DPK_PROJ_CHUNK);
	bool		none = !(pl->eps.eps_group > 0.0) || pl->copies < 1;
	size_t		done,
				i;

	if (!none)
		joint_groups_make(pl, s, part, out, &jg);
	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows = pl->n - done < DPK_PROJ_CHUNK ? pl->n - done : DPK_PROJ_CHUNK;
		int		   *p = none ? dpk_highd_column_slot(part, done, rows, buf)
			: dpk_highd_column_get(part, done, rows, buf);

		dpk_check_interrupts();
		for (i = 0; i < rows; i++)
			p[i] = none ? 0 : jg.map[p[i]];
		dpk_highd_column_put(part, done, rows, p);
	}
	if (!none)
		joint_groups_free(pl, &jg);
	dpk_free(buf);
}

/*
 * One private Lloyd step in the original space (see highd.h): every row to
 * its nearest centre, one noisy (count, sum) per centre at the refinement's
 * scales, each centre lifted from its part (shrunk toward where it was, as
 * the joint lift), then with guard the mean guard on those statistics.
 */
void
dpk_highd_refine_step(const DpkHighdPlan *pl, DpkStream *s, double *centers, double *sizes,
					  bool guard, bool *fired)
{
	int			d = pl->d,
				k = pl->k,
				j;
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *sum = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *prev = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *ident = dpk_alloc(sizeof(int) * k);
	double		sum_var_norm = pl->refine_sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS),
				min_count = dpk_lift_min_count(pl->refine_count_var, sum_var_norm);
	DpkHighdPartition pt = {k, 0, NULL, NULL, NULL, centers, NULL, NULL};

	dpk_highd_partition_stats(pl, &pt, &pl->refine_count_scale, &pl->refine_sum_scale, s,
							  cnt, sum);
	for (j = 0; j < k; j++)
		ident[j] = j;
	memcpy(prev, centers, sizeof(double) * (size_t) k * d);
	if (pl->cfg->lift_shrink)
		dpk_lift_centers_weighted(&(DpkLiftCells) {d, k, (size_t) k, cnt, sum, ident},
								  &(DpkLiftRule) {sum_var_norm, min_count, prev, NULL},
								  centers, sizes);
	else
		dpk_lift_centers(&(DpkLiftCells) {d, k, (size_t) k, cnt, sum, ident},
						 &(DpkLiftRule) {0.0, min_count, prev, NULL}, centers,
						 sizes);
	if (guard)
	{
		bool		f = dpk_mean_guard(d, k, cnt, sum, sum_var_norm, min_count, prev, centers,
									   sizes);

		if (fired)
			*fired = f;
	}
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(prev);
	dpk_free(ident);
}

/*
 * The stages of a one-shot (see highd.h) on the n points of an array, or
 * of rows read a chunk at a time.
 */
static void
oneshot_run(const DpkBox *box, const double *points, const DpkHighdRows *rows, size_t n,
			const DpkHighdConfig *cfg, DpkStream *s, DpkOneshotResult *res,
			DpkHighdInfo *info)
{
	DpkHighdPlan pl;
	DpkHighdOut out;
	int			j;

	if (cfg->refine_steps > 0 && cfg->objective != DPK_OBJECTIVE_KMEANS)
		dpk_fail("refinement steps of a high-dimensional release refine only k-means");
	dpk_highd_plan(&pl, box, points, n, cfg, s);
	pl.rows = rows;
	dpk_highd_out_init(&out, pl.k, pl.d);
	if (pl.eps.tree_levels > 0)
		dpk_highd_tree_seed(&pl, s, &out);
	else
		dpk_highd_run_joint(&pl, s, &out);
	for (j = 0; j < cfg->refine_steps && pl.eps.eps_refine > 0.0 && pl.have_lift; j++)
		dpk_highd_refine_step(&pl, s, out.centers, out.sizes,
							  cfg->mean_guard && j == cfg->refine_steps - 1, &out.guard_fired);
	dpk_highd_finish(&pl, &out, res, info);
	dpk_highd_out_free(&out);
}

/* One-shot high-d k-means (see highd.h). */
void
dpk_highd_oneshot_cluster(const DpkBox *box, const double *points, size_t n,
						  const DpkHighdConfig *cfg, DpkStream *s, DpkOneshotResult *res)
{
	oneshot_run(box, points, NULL, n, cfg, s, res, NULL);
}

/* The same of rows read a chunk at a time (see highd.h). */
void
dpk_highd_oneshot_cluster_rows(const DpkBox *box, const DpkHighdRows *rows, size_t n,
							   const DpkHighdConfig *cfg, DpkStream *s, DpkOneshotResult *res)
{
	oneshot_run(box, NULL, rows, n, cfg, s, res, NULL);
}

/* One-shot high-d k-means with details (see highd.h). */
void
dpk_highd_oneshot_cluster_info(const DpkBox *box, const double *points, size_t n,
							   const DpkHighdConfig *cfg, DpkStream *s,
							   DpkOneshotResult *res, DpkHighdInfo *info)
{
	oneshot_run(box, points, NULL, n, cfg, s, res, info);
}
