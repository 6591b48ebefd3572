/*
 * highd_cluster.c
 *		One copy's partitions and their noisy statistics, and its cell-mode
 *		clustering from per-cell statistics (see highd.h).
 */
#include "highd.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "highd_int.h"
#include "kmeans.h"

/* Index of the nearest of k points (see highd.h). */
int
dpk_highd_nearest(const double *t, const double *pc, int k, int dhat)
{
	int			best = 0,
				j,
				i;
	double		bd = INFINITY;

	for (j = 0; j < k; j++)
	{
		double		s = 0.0;

		for (i = 0; i < dhat; i++)
		{
			double		diff = t[i] - pc[(size_t) j * dhat + i];

			s += diff * diff;
		}
		if (s < bd)
		{
			bd = s;
			best = j;
		}
	}
	return best;
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define DPK_NEAREST_X86 1
#include <immintrin.h>
#endif

/* The most centres the vector search of dpk_highd_nearest_append holds. */
#define DPK_NEAREST_VEC_K 64

#ifdef DPK_NEAREST_X86
/*
 * dpk_highd_nearest_append for dim = 4 on AVX: the squared distances to
 * four centres at a time, each lane summing ((d0^2 + d1^2) + d2^2) + d3^2
 * with every product and sum rounded as the scalar loop does (no FMA is
 * enabled here, so none is fused), then the lowest index of the least,
 * as the scalar loop's strict comparison in index order keeps it: the
 * least by a tree of MINPD (exact, so in any order), then the first lane
 * equal to it, instead of a chain of k dependent comparisons.
 */
__attribute__((target("avx"))) static void
nearest4_append(const double *x, size_t n, const double *c, int k, int *labels)
{
	int			kp = (k + 3) & ~3,
				j,
				i;
	double		ct[4][DPK_NEAREST_VEC_K];
	double		dist[DPK_NEAREST_VEC_K];
	size_t		r;

	/* the centres by coordinate; the padding lanes' distances are NaN */
	for (j = 0; j < kp; j++)
		for (i = 0; i < 4; i++)
			ct[i][j] = j < k ? c[(size_t) j * 4 + i] : NAN;
	for (r = 0; r < n; r++)
	{
		const double *t = x + r * 4;
		__m256d		t0 = _mm256_set1_pd(t[0]),
					t1 = _mm256_set1_pd(t[1]),
					t2 = _mm256_set1_pd(t[2]),
					t3 = _mm256_set1_pd(t[3]);
		__m256d		least = _mm256_set1_pd(INFINITY);
		double		bd;
		uint64_t	bits;
		int			best;

		if (r + 16 < n && r % 2 == 0)
			__builtin_prefetch(t + 16 * 4);
		for (j = 0; j < kp; j += 4)
		{
			__m256d		e0 = _mm256_sub_pd(t0, _mm256_loadu_pd(ct[0] + j)),
						e1 = _mm256_sub_pd(t1, _mm256_loadu_pd(ct[1] + j)),
						e2 = _mm256_sub_pd(t2, _mm256_loadu_pd(ct[2] + j)),
						e3 = _mm256_sub_pd(t3, _mm256_loadu_pd(ct[3] + j));
			__m256d		sv = _mm256_mul_pd(e0, e0);

			sv = _mm256_add_pd(sv, _mm256_mul_pd(e1, e1));
			sv = _mm256_add_pd(sv, _mm256_mul_pd(e2, e2));
			sv = _mm256_add_pd(sv, _mm256_mul_pd(e3, e3));
			_mm256_storeu_pd(dist + j, sv);
			/* sv first: a NaN lane leaves the least as it was */
			least = _mm256_min_pd(sv, least);
		}
		least = _mm256_min_pd(least, _mm256_permute2f128_pd(least, least, 1));
		least = _mm256_min_pd(least, _mm256_permute_pd(least, 5));
		bd = _mm256_cvtsd_f64(least);
		/*
		 * the first distance equal to the least (never -0: sums of
		 * squares), from a bit per centre: no branch on where it lies
		 */
		bits = 0;
		for (j = 0; j < kp; j += 4)
			bits |= (uint64_t) _mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(dist + j),
																least, _CMP_EQ_OQ)) << j;
		if (bits != 0 && bd < INFINITY)
			best = __builtin_ctzll(bits);
		else
		{
			/* no finite distance: the scalar loop's strict scan */
			bd = INFINITY;
			best = 0;
			for (j = 0; j < k; j++)
				if (dist[j] < bd)
				{
					bd = dist[j];
					best = j;
				}
		}
		labels[r] = labels[r] * k + best;
	}
}
#endif

/* Nearest-centre labels appended to a batch of rows (see highd.h). */
void
dpk_highd_nearest_append(const double *x, size_t n, const double *c, int k, int dim,
						 int *labels)
{
	size_t		r;

#ifdef DPK_NEAREST_X86
	__builtin_cpu_init();
	if (dim == 4 && k <= DPK_NEAREST_VEC_K && __builtin_cpu_supports("avx"))
	{
		nearest4_append(x, n, c, k, labels);
		return;
	}
#endif
	for (r = 0; r < n; r++)
		labels[r] = labels[r] * k + dpk_highd_nearest(x + r * dim, c, k, dim);
}

/* Rows ahead of the one summed whose lines the lifting pass fetches. */
#define DPK_ROW_PREFETCH 8

/* Labels of one chunk of normalized points under a partition. */
static void
partition_labels(const DpkHighdPlan *pl, const DpkHighdPartition *pt, size_t done,
				 const double *u, size_t rows, double *t, int *label)
{
	int			k = pl->k,
				dhat = pl->dhat,
				r;
	size_t		i;

	if (pt->centers)
	{
		dpk_kmeans_cost(u, NULL, (int) rows, pl->d, pt->centers, k, label);
		return;
	}
	memset(label, 0, sizeof(int) * rows);
	for (r = 0; r < pt->copies && !pt->row_labels && !pt->label_col; r++)
	{
		dpk_project_batch(&pt->proj[r], u, rows, t);
		for (i = 0; i < rows; i++)
			label[i] = label[i] * k +
				dpk_highd_nearest(t + i * dhat, pt->pcenters + (size_t) r * k * dhat, k, dhat);
	}
	if (pt->row_labels)
		memcpy(label, pt->row_labels + done, sizeof(int) * rows);
	else if (pt->label_col)
	{
		const int  *lc = dpk_highd_column_get(pt->label_col, done, rows, label);

		if (lc != label)
			memcpy(label, lc, sizeof(int) * rows);
	}
	if (pt->map)
		for (i = 0; i < rows; i++)
			label[i] = pt->map[label[i]];
}

/* Rows counted (and summed) into their labels' parts (see highd_int.h). */
void
dpk_highd_rows_add(int d, const double *uc, size_t rows, const int *label, int64_t *gc,
				   int64_t *gs)
{
	size_t		i;
	int			j;

	for (i = 0; i < rows; i++)
	{
		gc[label[i]]++;
		if (gs)
		{
			/* dpk_lift_quantize's coordinates, inlined */
			int64_t    *gsg = gs + (size_t) label[i] * d;
			const double *ui = uc + i * d;

			/*
			 * the rows a few ahead fetched: the loop is long enough per
			 * byte that the CPU alone would wait for each line
			 */
			if (i + DPK_ROW_PREFETCH < rows)
				for (j = 0; j < d; j += 8)
					__builtin_prefetch(ui + DPK_ROW_PREFETCH * d + j);
			dpk_lift_quantize_add(ui, d, gsg);
		}
	}
}

/*
 * Every part's count plus its noise, and with gs its fixed-point sums plus
 * theirs, in normalized units (see highd_int.h).  gs gets the noise.
 */
void
dpk_highd_partition_noise(int d, int nlabels, const int64_t *gc, int64_t *gs,
						  const DpkNoise *count_noise, const DpkNoise *sum_noise,
						  DpkStream *s, double *cnt, double *sum)
{
	int			g,
				j;

	for (g = 0; g < nlabels; g++)
	{
		if ((g & 255) == 0)
			dpk_check_interrupts();
		cnt[g] = (double) (gc[g] + dpk_noise_draw(s, count_noise));
		if (gs)
		{
			dpk_noise_add_vector(s, sum_noise, d, 1, gs + (size_t) g * d);
			for (j = 0; j < d; j++)
				sum[(size_t) g * d + j] = (double) gs[(size_t) g * d + j] / DPK_LIFT_UNITS;
		}
	}
}

/* Noisy counts (and sums) of every part of a partition (see highd.h). */
void
dpk_highd_partition_stats(const DpkHighdPlan *pl, const DpkHighdPartition *pt,
						  const DpkNoise *count_noise, const DpkNoise *sum_noise, DpkStream *s,
						  double *cnt, double *sum)
{
	int			d = pl->d;
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	double	   *t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * pl->dhat);
	int		   *label = dpk_alloc0(sizeof(int) * DPK_PROJ_CHUNK);
	int64_t    *gc = dpk_alloc0(sizeof(int64_t) * pt->nlabels);
	int64_t    *gs = sum ? dpk_alloc0(sizeof(int64_t) * (size_t) pt->nlabels * d) : NULL;
	size_t		done;

	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows = pl->n - done < DPK_PROJ_CHUNK ? pl->n - done : DPK_PROJ_CHUNK;
		/* labels computed before need the rows only for sums */
		const double *uc = (pt->row_labels || pt->label_col) && !gs ? NULL
			: dpk_highd_load_chunk(pl, done, u, &rows);

		if (!uc)
			dpk_check_interrupts();
		partition_labels(pl, pt, done, uc, rows, t, label);
		dpk_highd_rows_add(d, uc, rows, label, gc, gs);
	}
	dpk_highd_partition_noise(d, pt->nlabels, gc, gs, count_noise, sum_noise, s, cnt, sum);
	dpk_free(u);
	dpk_free(t);
	dpk_free(label);
	dpk_free(gc);
	dpk_free(gs);
}

/* ---- one copy from per-cell statistics ---- */

/*
 * Every lifting cell above lthreshold to the centre holding most of the
 * noisy mass of its coreset cells (counts above threshold), else to the
 * centre nearest its middle; -1 below lthreshold.
 */
static void
cells_assign(int dhat, const DpkHighdCells *hc, int lm, const double *lcount,
			 double threshold, double lthreshold, const double *pc, int k, int *assign)
{
	uint64_t	ncells = (uint64_t) llround(dpk_grid_cells(dhat, hc->m));
	uint64_t	nl = (uint64_t) llround(dpk_grid_cells(dhat, lm));
	double	   *vote = dpk_alloc0(sizeof(double) * nl * k);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
	double	   *tc = dpk_alloc(sizeof(double) * dhat);
	uint64_t	c;
	int			j;

	/* every coreset cell votes, with its noisy count, for its centre */
	for (c = 0; c < ncells; c++)
	{
		uint64_t	lc;

		if (!(hc->count[c] > threshold))
			continue;
		dpk_grid_cell_coords(dhat, hc->m, c, idx);
		for (j = 0; j < dhat; j++)
			tc[j] = ((double) idx[j] + 0.5) / hc->m;
		lc = lm == hc->m ? c : dpk_grid_cell(dhat, lm, tc, NULL, NULL);
		vote[lc * k + dpk_highd_nearest(tc, pc, k, dhat)] += hc->count[c];
	}
	for (c = 0; c < nl; c++)
	{
		double		bv = 0.0;
		int			a;

		assign[c] = -1;
		if (!(lcount[c] > lthreshold))
			continue;
		for (a = 0; a < k; a++)
			if (vote[c * k + a] > bv)
			{
				bv = vote[c * k + a];
				assign[c] = a;
			}
		if (assign[c] < 0)
		{
			dpk_grid_cell_coords(dhat, lm, c, idx);
			for (j = 0; j < dhat; j++)
				tc[j] = ((double) idx[j] + 0.5) / lm;
			assign[c] = dpk_highd_nearest(tc, pc, k, dhat);
		}
	}
	dpk_free(vote);
	dpk_free(idx);
	dpk_free(tc);
}

/*
 * Each centre's projected estimate for lifting against the plane (P (u -
 * 1/2) units): the mean of its lifting cells' midpoints weighted by their
 * noisy counts (negative ones as 0), or its fallback's image when they
 * weigh nothing.  Noisy counts and public cell positions only.
 */
static void
cells_plane_target(const DpkProjection *p, int lm, uint64_t nl, const double *lcount,
				   const int *assign, const double *fallback, int k, double *target)
{
	int			dhat = p->dhat,
				d = p->d,
				a,
				i,
				j;
	double	   *wsum = dpk_alloc0(sizeof(double) * k);
	int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
	uint64_t	c;

	memset(target, 0, sizeof(double) * (size_t) k * dhat);
	for (c = 0; c < nl; c++)
	{
		double		w;

		if (assign[c] < 0 || !(lcount[c] > 0.0))
			continue;
		w = lcount[c];
		dpk_grid_cell_coords(dhat, lm, c, idx);
		for (i = 0; i < dhat; i++)
			target[(size_t) assign[c] * dhat + i] +=
				w * (2.0 * p->half_width * ((double) idx[i] + 0.5) / lm - p->half_width);
		wsum[assign[c]] += w;
	}
	for (a = 0; a < k; a++)
		for (i = 0; i < dhat; i++)
		{
			double	   *ti = target + (size_t) a * dhat + i;

			if (wsum[a] > 0.0)
				*ti /= wsum[a];
			else
			{
				*ti = 0.0;
				for (j = 0; j < d; j++)
					*ti += p->mat[(size_t) i * d + j] * (fallback[(size_t) a * d + j] - 0.5);
			}
		}
	dpk_free(wsum);
	dpk_free(idx);
}

/*
 * Each fallback row's part outside the projection's row space moved toward
 * the other centres' noisy mean there (dpk_lift_rest_mean), from the
 * count-weighted totals of each centre's lifting cells (w_c its noisy
 * count, negative ones as 0, as dpk_lift_centers_weighted).  Noisy counts
 * and sums only (see highd_int.h).
 */
void
dpk_highd_cells_rest_mean(const DpkProjection *p, uint64_t nl, const double *lcount,
						  const double *sum, double sum_var, const int *assign, int k,
						  double *fallback)
{
	int			d = p->d,
				j;
	double	   *tot = dpk_alloc0(sizeof(double) * (size_t) k * d);
	double	   *ww = dpk_alloc0(sizeof(double) * k);
	uint64_t	c;

	for (c = 0; c < nl; c++)
	{
		double		w = lcount[c];

		if (assign[c] < 0 || !(w > 0.0))
			continue;
		ww[assign[c]] += w * w;
		for (j = 0; j < d; j++)
			tot[(size_t) assign[c] * d + j] += w * sum[c * d + j];
	}
	dpk_lift_rest_mean(d, k, tot, ww, sum_var, p->mat, p->dhat, fallback);
	dpk_free(tot);
	dpk_free(ww);
}

/* Cell-mode clustering of one copy (see highd.h). */
double
dpk_highd_cells_cluster(const DpkProjection *p, const DpkHighdCells *hc,
						double threshold_sigmas, const DpkClusterOpts *opt,
						const DpkClusterOut *out, int *coreset_size)
{
	int			k = opt->k,
				restarts = opt->restarts,
				max_iter = opt->max_iter;
	uint64_t	seed = opt->seed;
	double	   *centers = out->centers,
			   *sizes = out->sizes;
	int			d = p->d,
				dhat = p->dhat,
				lm = hc->lift_m > 0 ? hc->lift_m : hc->m,
				j;
	uint64_t	nl = (uint64_t) llround(dpk_grid_cells(dhat, lm));
	const double *lcount = (lm != hc->m && hc->lift_count) ? hc->lift_count : hc->count;
	double		lcount_var = lcount == hc->count ? hc->count_var : hc->lift_count_var;
	double	   *pc = dpk_alloc(sizeof(double) * (size_t) k * dhat);
	double	   *fallback = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *assign = dpk_alloc(sizeof(int) * nl);
	double		threshold,
				lthreshold,
				min_count,
				score;
	int			csz;
	DpkLiftPlane plane = {0, NULL, 0.0, NULL};
	double	   *target = NULL;

	threshold = dpk_highd_grid_kmeans_cells(&(DpkNoisyGrid) {dhat, hc->m, hc->count,
															 hc->count_var, hc->gauss_tail},
											threshold_sigmas, hc->threshold_cells,
											opt, pc, &csz);
	if (coreset_size)
		*coreset_size = csz;
	for (j = 0; j < k; j++)
		dpk_project_back(p, pc + (size_t) j * dhat, fallback + (size_t) j * d);
	lthreshold = lcount == hc->count ? threshold
		: dpk_highd_grid_threshold(&(DpkNoisyGrid) {dhat, lm, lcount, lcount_var, hc->gauss_tail},
								   threshold_sigmas, (double) nl, k);
	min_count = dpk_lift_min_count(lcount_var, hc->sum_var);

	cells_assign(dhat, hc, lm, lcount, threshold, lthreshold, pc, k, assign);
	if (hc->rest_mean)
		dpk_highd_cells_rest_mean(p, nl, lcount, hc->sum, hc->sum_var, assign, k, fallback);
	score = dpk_lift_cost(d, k, nl, lcount, hc->sum, hc->sumnorm, assign,
						  hc->sum_var, min_count);
	if (hc->space_noise2 > 0.0 && lm == hc->m)
	{
		/*
		 * The original-space partition competes with the projected one on
		 * the same private score (both cover the same cells).  It is fitted
		 * to the noisy sums that score it, so it scores better than it is;
		 * the projected one, from the counts alone, does not.  It pays its
		 * cells' sum noise twice (DPK_HIGHD_SPACE_NOISE_CHARGE).
		 */
		int		   *sassign = dpk_alloc(sizeof(int) * nl);
		double	   *scent = dpk_alloc(sizeof(double) * (size_t) k * d);
		double		sscore;

		memcpy(sassign, assign, sizeof(int) * nl);
		if (dpk_highd_cells_space(p, hc->m, lcount, hc->sum,
								  dpk_highd_point_count(d, hc->sum_var, hc->space_noise2,
														min_count),
								  &(DpkClusterOpts) {k, hc->space_restarts > 0
													 ? hc->space_restarts : restarts,
													 max_iter, seed ^ UINT64_C(0x5eed)},
								  scent, sassign) >= k &&
			(sscore = dpk_lift_cost(d, k, nl, lcount, hc->sum, hc->sumnorm, sassign,
									DPK_HIGHD_SPACE_NOISE_CHARGE * hc->sum_var, min_count)) < score)
		{
			score = sscore;
			memcpy(assign, sassign, sizeof(int) * nl);
			memcpy(fallback, scent, sizeof(double) * (size_t) k * d);
		}
		dpk_free(sassign);
		dpk_free(scent);
	}
	if (hc->plane_cells >= 0.0)
	{
		/* a cell's quantization variance in P (u - 1/2) units, times plane_cells */
		double		cw = 2.0 * p->half_width / lm;

		plane.dhat = dhat;
		plane.mat = p->mat;
		plane.var = hc->plane_cells * cw * cw / 12.0;
		target = dpk_alloc(sizeof(double) * (size_t) k * dhat);
		cells_plane_target(p, lm, nl, lcount, assign, fallback, k, target);
		plane.target = target;
	}
	if (hc->lift_weighted)
		score += dpk_lift_centers_weighted(&(DpkLiftCells) {d, k, nl, lcount, hc->sum, assign},
										   &(DpkLiftRule) {hc->sum_var, min_count, fallback, plane.mat ? &plane : NULL},
										   centers, sizes);
	else
		dpk_lift_centers_heavy(&(DpkLiftCells) {d, k, nl, lcount, hc->sum, assign},
							   &(DpkLiftRule) {hc->sum_var, min_count, fallback, plane.mat ? &plane : NULL},
							   centers, sizes);
	if (target)
		dpk_free(target);
	dpk_free(pc);
	dpk_free(fallback);
	dpk_free(assign);
	return score;
}

/* ---- the joint mode ---- */

/* Allocate an output (see highd.h). */
