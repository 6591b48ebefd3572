/*
 * lift.c
 *		Lifting centres back to the original space from noisy counts and
 *		sums: quantization, plain and heaviest-cell lifting, the private
 *		cost score (see lift.h).
 */
#include "lift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dpk_mem.h"

/* Centred fixed-point contribution of a point (see lift.h). */
int64_t
dpk_lift_quantize(int d, const double *u, int64_t *q)
{
	int64_t		norm = 0;
	int			j;

	for (j = 0; j < d; j++)
	{
		int64_t		r = dpk_lift_quantize_one(u[j]);

		q[j] = r;
		norm += r * r;
	}
	return norm;
}

/* One point's l2 bound in lifting units (see lift.h). */
double
dpk_lift_point_l2(int d, double ball)
{
	double		cube = sqrt((double) d) * (DPK_LIFT_UNITS / 2.0);

	if (!(ball > 0.0))
		return cube;
	return fmin((ball * DPK_LIFT_UNITS + 0.5 * sqrt((double) d)) * (1.0 + 1e-9), cube);
}

/* Smallest count whose lifted mean we trust over the fallback (see lift.h). */
double
dpk_lift_min_count(double count_var, double sum_var_norm)
{
	double		mc = 3.0 * sqrt(count_var);

	/* the mean's noise per coordinate, sd_sum / count, below 1/4 box */
	if (4.0 * sqrt(sum_var_norm) > mc)
		mc = 4.0 * sqrt(sum_var_norm);
	return mc > 1.0 ? mc : 1.0;
}

/* Per-centre totals of cell statistics. */
static void
lift_totals(int d, int k, size_t ncells, const double *count, const double *sum,
			const double *sumnorm, const int *assign, double *cnt, double *tot,
			double *norm, double *cells)
{
	size_t		c;
	int			j;

	memset(cnt, 0, sizeof(double) * k);
	memset(tot, 0, sizeof(double) * (size_t) k * d);
	if (norm)
		memset(norm, 0, sizeof(double) * k);
	if (cells)
		memset(cells, 0, sizeof(double) * k);
	for (c = 0; c < ncells; c++)
	{
		int			a = assign[c];

		if (a < 0 || a >= k)
			continue;
		cnt[a] += count[c];
		for (j = 0; j < d; j++)
			tot[(size_t) a * d + j] += sum[c * d + j];
		if (norm && sumnorm)
			norm[a] += sumnorm[c];
		if (cells)
			cells[a] += 1.0;
	}
}

/* Lift centres (see lift.h). */
void
dpk_lift_centers(const DpkLiftCells *cells, const DpkLiftRule *rule,
				 double *centers, double *sizes)
{
	int			d = cells->d;
	int			k = cells->k;
	size_t		ncells = cells->ncells;
	const double *count = cells->count;
	const double *sum = cells->sum;
	const int  *assign = cells->assign;
	double		min_count = rule->min_count;
	const double *fallback = rule->fallback;
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *tot = dpk_alloc(sizeof(double) * (size_t) k * d);
	int			a,
				j;

	lift_totals(d, k, ncells, count, sum, NULL, assign, cnt, tot, NULL, NULL);
	for (a = 0; a < k; a++)
	{
		double	   *c = centers + (size_t) a * d;

		if (cnt[a] >= min_count && cnt[a] > 0.0)
			for (j = 0; j < d; j++)
			{
				double		v = 0.5 + tot[(size_t) a * d + j] / cnt[a];

				c[j] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
			}
		else
			for (j = 0; j < d; j++)
				c[j] = fallback ? fallback[(size_t) a * d + j] : 0.5;
		if (sizes)
			sizes[a] = cnt[a] > 0.0 ? cnt[a] : 0.0;
	}
	dpk_free(cnt);
	dpk_free(tot);
}

/* The counts heavier_first orders by (qsort passes no context). */
static const double *heavy_counts;

/* Order cell numbers by decreasing noisy count, ties by cell number. */
static int
heavier_first(const void *a, const void *b)
{
	size_t		i = *(const size_t *) a,
				j = *(const size_t *) b;
	double		x = heavy_counts[i],
				y = heavy_counts[j];

	/* ties by cell number, so every platform sorts alike */
	if (x != y)
		return x > y ? -1 : 1;
	return i < j ? -1 : (i > j ? 1 : 0);
}

/*
 * The number of heaviest cells (order[0 .. m), by decreasing noisy count) a
 * centre is lifted from: the prefix p whose lifted mean has the least
 * estimated squared error against the mean of all m cells,
 *
 *	   d p sum_var / C_p^2  +  max(0, ||S_p / C_p - S / C||^2 - d v_p),
 *
 * S_p, C_p the noisy sums and count of the prefix, S, C those of all cells,
 * v_p = p sum_var (1/C_p - 1/C)^2 + (m - p) sum_var / C^2 the noise variance
 * per coordinate of the difference.  The first term alone (the lifted mean's
 * noise) drops light cells holding pure noise, but also a whole cluster
 * split over several light cells, moving a k = 1 centre halfway to the
 * other clusters; the second term, the debiased squared shift from the mean
 * of all the centre's cells, keeps such cells.  Noisy values and sum_var
 * only, so post-processing.  tot, all_tot: d scratch doubles.
 */
static size_t
heavy_prefix(int d, const size_t *order, size_t m, const double *count,
			 const double *sum, double sum_var, double *tot, double *all_tot)
{
	double		cum = 0.0,
				all = 0.0,
				crit = INFINITY;
	size_t		i,
				best = 0;
	int			j;

	if (!(sum_var > 0.0))
		return m;				/* exact sums: every cell */
	memset(all_tot, 0, sizeof(double) * d);
	for (i = 0; i < m; i++)
	{
		all += count[order[i]];
		for (j = 0; j < d; j++)
			all_tot[j] += sum[order[i] * d + j];
	}
	memset(tot, 0, sizeof(double) * d);
	for (i = 0; i < m; i++)
	{
		double		p = (double) (i + 1),
					err,
					shift2 = 0.0;

		cum += count[order[i]];
		for (j = 0; j < d; j++)
			tot[j] += sum[order[i] * d + j];
		if (!(cum > 0.0))
			continue;
		err = d * p * sum_var / (cum * cum);
		if (all > 0.0)
		{
			double		inv = 1.0 / cum - 1.0 / all,
						v = p * sum_var * inv * inv + (double) (m - i - 1) * sum_var / (all * all);

			for (j = 0; j < d; j++)
			{
				double		e = tot[j] / cum - all_tot[j] / all;

				shift2 += e * e;
			}
			err += fmax(0.0, shift2 - d * v);
		}
		if (err < crit)
		{
			crit = err;
			best = i + 1;
		}
	}
	return best;
}

/*
 * A lifted centre c (d, normalized) from its cells' summed offsets tot over
 * den: positive-part James-Stein toward its fallback row fb (NULL: the
 * box's middle), the mean's noise having variance v per coordinate, so
 * shrunk by 1 - (n - 2) v / ||mean - fallback||^2 over its n noisy
 * directions; clamped into [0,1].  With a plane (and a fallback) the mean's
 * image in the plane's row space (dhat directions) is combined with a second
 * estimate of the centre's, y (NULL: the fallback's image), whose error
 * variance is plane->var: y + var / (var + v) (P (mean - 1/2) - y), the
 * inverse-variance combination; only the rest (d - dhat directions) is
 * shrunk as above.  Returns the shrink factor; *row_risk (may be NULL) gets
 * the row-space part's expected squared error, dhat v var / (v + var), and
 * *dims the number of shrunk directions.
 */
static double
lift_shrunk_mean(int d, const double *tot, double den, double v, const double *fb,
				 const DpkLiftPlane *plane, const double *y, double *c, double *row_risk,
				 int *dims)
{
	double		dist2 = 0.0,
				keep = 1.0,
				w;
	double	   *e = dpk_alloc(sizeof(double) * d);
	double	   *row = dpk_alloc0(sizeof(double) * d);
	double	   *moved = dpk_alloc0(sizeof(double) * d);
	int			n = d,
				i,
				j;

	for (j = 0; j < d; j++)
		e[j] = tot[j] / den - (fb ? fb[j] - 0.5 : 0.0);
	if (plane && fb && plane->dhat < d)
	{
		keep = (plane->var + v) > 0.0 ? plane->var / (plane->var + v) : 0.0;
		for (i = 0; i < plane->dhat; i++)
		{
			const double *pi = plane->mat + (size_t) i * d;
			double		pe = 0.0,
						shift = 0.0;

			for (j = 0; j < d; j++)
				pe += pi[j] * e[j];
			if (y)
			{
				/* the target's offset from the fallback's image */
				shift = y[i];
				for (j = 0; j < d; j++)
					shift -= pi[j] * (fb[j] - 0.5);
			}
			for (j = 0; j < d; j++)
			{
				row[j] += pe * pi[j];
				moved[j] += (shift + keep * (pe - shift)) * pi[j];
			}
		}
		n = d - plane->dhat;
		if (row_risk)
			*row_risk = plane->dhat * v * keep;
	}
	else if (row_risk)
		*row_risk = 0.0;
	for (j = 0; j < d; j++)
		dist2 += (e[j] - row[j]) * (e[j] - row[j]);
	w = (n > 2 && dist2 > 0.0 && v > 0.0) ? fmax(0.0, 1.0 - (n - 2) * v / dist2) : 1.0;
	for (j = 0; j < d; j++)
	{
		double		f = fb ? fb[j] - 0.5 : 0.0,
					x = 0.5 + f + moved[j] + w * (e[j] - row[j]);

		c[j] = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
	}
	if (dims)
		*dims = n;
	dpk_free(e);
	dpk_free(row);
	dpk_free(moved);
	return w;
}

/* Centre a's target in the plane's rows, or NULL (the fallback's image). */
static const double *
plane_target(const DpkLiftPlane *plane, int a)
{
	return plane && plane->target ? plane->target + (size_t) a * plane->dhat : NULL;
}

/* Lift centres from their heaviest cells, shrunk (see lift.h). */
void
dpk_lift_centers_heavy(const DpkLiftCells *cells, const DpkLiftRule *rule,
					   double *centers, double *sizes)
{
	int			d = cells->d;
	int			k = cells->k;
	size_t		ncells = cells->ncells;
	const double *count = cells->count;
	const double *sum = cells->sum;
	const int  *assign = cells->assign;
	double		sum_var = rule->sum_var;
	double		min_count = rule->min_count;
	const double *fallback = rule->fallback;
	const DpkLiftPlane *plane = rule->plane;
	size_t	   *order = dpk_alloc(sizeof(size_t) * (ncells ? ncells : 1));
	double	   *tot = dpk_alloc(sizeof(double) * d);
	double	   *all_tot = dpk_alloc(sizeof(double) * d);
	int			a,
				j;

	for (a = 0; a < k; a++)
	{
		double	   *c = centers + (size_t) a * d;
		size_t		m = 0,
					i,
					best = 0;
		double		all = 0.0,
					cnt;

		for (i = 0; i < ncells; i++)
			if (assign[i] == a)
			{
				order[m++] = i;
				all += count[i];
			}
		heavy_counts = count;
		qsort(order, m, sizeof(size_t), heavier_first);

		best = heavy_prefix(d, order, m, count, sum, sum_var, tot, all_tot);
		cnt = 0.0;
		memset(tot, 0, sizeof(double) * d);
		for (i = 0; i < best; i++)
		{
			cnt += count[order[i]];
			for (j = 0; j < d; j++)
				tot[j] += sum[order[i] * d + j];
		}
		if (cnt >= min_count && cnt > 0.0)
		{
			/*
			 * Positive-part James-Stein toward the fallback: the mean's
			 * noise has variance v per coordinate, so shrink by
			 * 1 - (d - 2) v / ||mean - fallback||^2.
			 */
			lift_shrunk_mean(d, tot, cnt, (double) best * sum_var / (cnt * cnt),
							 fallback ? fallback + (size_t) a * d : NULL, plane,
							 plane_target(plane, a), c, NULL, NULL);
		}
		else
			for (j = 0; j < d; j++)
				c[j] = fallback ? fallback[(size_t) a * d + j] : 0.5;
		if (sizes)
			sizes[a] = all > 0.0 ? all : 0.0;
	}
	dpk_free(order);
	dpk_free(tot);
	dpk_free(all_tot);
}

/*
 * Lift centres by count-weighted cell sums, shrunk (see lift.h).  With the
 * points of a cell scattered about their centre's mean, S_c ~ C_c mu +
 * noise, and the least-squares mean over the cells, sum C_c S_c / sum C_c^2,
 * has noise variance sum_var / sum C_c^2 per coordinate: never more than
 * the plain mean's m sum_var / (sum C_c)^2 (Cauchy-Schwarz), much less when
 * one cell holds most of the cluster.  Its bias, the cells' conditional
 * means, lies in the dhat projected directions only: small against the d
 * noisy ones when d is large.  The returned risk estimates what the
 * centres' errors add to the k-means cost: each centre's count times its
 * shrunk mean's expected squared error (d v times the James-Stein factor),
 * or for a fallback centre its debiased squared distance from the noisy
 * mean.  Noisy values and sum_var only.
 */
double
dpk_lift_centers_weighted(const DpkLiftCells *cells, const DpkLiftRule *rule,
						  double *centers, double *sizes)
{
	int			d = cells->d;
	int			k = cells->k;
	size_t		ncells = cells->ncells;
	const double *count = cells->count;
	const double *sum = cells->sum;
	const int  *assign = cells->assign;
	double		sum_var = rule->sum_var;
	double		min_count = rule->min_count;
	const double *fallback = rule->fallback;
	const DpkLiftPlane *plane = rule->plane;
	double	   *tot = dpk_alloc(sizeof(double) * d);
	double		risk = 0.0;
	int			a,
				j;
	size_t		i;

	for (a = 0; a < k; a++)
	{
		double	   *c = centers + (size_t) a * d;
		double		all = 0.0,
					wc = 0.0,
					ww = 0.0;

		memset(tot, 0, sizeof(double) * d);
		for (i = 0; i < ncells; i++)
		{
			double		w;

			if (assign[i] != a)
				continue;
			all += count[i];
			w = count[i] > 0.0 ? count[i] : 0.0;
			wc += w * count[i];
			ww += w * w;
			for (j = 0; j < d; j++)
				tot[j] += w * sum[i * d + j];
		}
		if (all >= min_count && wc > 0.0)
		{
			/* positive-part James-Stein toward the fallback, as the heavy lift */
			double		v = sum_var * ww / (wc * wc),
						row_risk,
						sh;
			int			dims;

			sh = lift_shrunk_mean(d, tot, wc, v, fallback ? fallback + (size_t) a * d : NULL,
								  plane, plane_target(plane, a), c, &row_risk, &dims);
			/* the mean's squared error, about dims v sh + row_risk, for each point */
			risk += all * (dims * v * sh + row_risk);
		}
		else
		{
			for (j = 0; j < d; j++)
				c[j] = fallback ? fallback[(size_t) a * d + j] : 0.5;
			if (wc > 0.0 && all > 0.0)
			{
				/* the fallback's debiased squared distance from the noisy mean */
				double		dist2 = 0.0;

				for (j = 0; j < d; j++)
				{
					double		e = tot[j] / wc - (c[j] - 0.5);

					dist2 += e * e;
				}
				risk += all * fmax(0.0, dist2 - d * sum_var * ww / (wc * wc));
			}
		}
		if (sizes)
			sizes[a] = all > 0.0 ? all : 0.0;
	}
	dpk_free(tot);
	return risk;
}

/* x minus its part in the span of nrows orthonormal rows. */
static void
rows_remove(int d, const double *rows, int nrows, double *x)
{
	int			i,
				j;

	for (i = 0; i < nrows; i++)
	{
		const double *ri = rows + (size_t) i * d;
		double		rx = 0.0;

		for (j = 0; j < d; j++)
			rx += ri[j] * x[j];
		for (j = 0; j < d; j++)
			x[j] -= rx * ri[j];
	}
}

/*
 * Fallbacks moved toward the other centres' noisy mean outside a plane (see
 * lift.h).  g_a misses centre a's mean by the centres' own spread t2 per
 * coordinate plus t2 / (k - 1) + its noise, the middle by t2 plus the
 * squared offset of the centres' mean from the middle; so f = 1 - (n - 2)
 * (t2 / (k - 1) + v_g) / ||g_a||^2 weighs g_a by how far it sits from the
 * middle beyond what its own error explains.  t2 is the spread of the
 * centres' lifted means, their noise removed.
 */
void
dpk_lift_rest_mean(int d, int k, const double *tot, const double *ww, double sum_var,
				   const double *rows, int nrows, double *fallback)
{
	int			n = d - nrows,
				used = 0,
				a,
				j;
	double	   *out = dpk_alloc0(sizeof(double) * (size_t) (k + 1) * d);
	double	   *bar = dpk_alloc0(sizeof(double) * d);
	double	   *g = dpk_alloc(sizeof(double) * d);
	double		all = 0.0,
				spread = 0.0,
				noise = 0.0,
				t2;

	/* the sums outside the plane: each centre's in rows 0..k-1, all in row k */
	for (a = 0; a < k; a++)
	{
		double	   *oa = out + (size_t) a * d;

		memcpy(oa, tot + (size_t) a * d, sizeof(double) * d);
		rows_remove(d, rows, nrows, oa);
		if (!(ww[a] > 0.0))
			continue;
		for (j = 0; j < d; j++)
		{
			out[(size_t) k * d + j] += oa[j];
			bar[j] += oa[j] / ww[a];
		}
		all += ww[a];
		noise += sum_var / ww[a];
		used++;
	}
	if (k < 2 || n <= 2 || used < 2)
		goto done;
	for (a = 0; a < k; a++)
		if (ww[a] > 0.0)
			for (j = 0; j < d; j++)
			{
				double		e = out[(size_t) a * d + j] / ww[a] - bar[j] / used;

				spread += e * e;
			}
	t2 = fmax(0.0, spread / ((double) (used - 1) * n) - noise / used);

	for (a = 0; a < k; a++)
	{
		double		rest = all - (ww[a] > 0.0 ? ww[a] : 0.0),
					g2 = 0.0,
					f;

		if (!(rest > 1e-9 * all))
			continue;
		for (j = 0; j < d; j++)
		{
			g[j] = (out[(size_t) k * d + j] - (ww[a] > 0.0 ? out[(size_t) a * d + j] : 0.0)) / rest;
			g2 += g[j] * g[j];
		}
		f = g2 > 0.0 ? fmax(0.0, 1.0 - (n - 2) * (t2 / (k - 1) + sum_var / rest) / g2) : 0.0;
		for (j = 0; j < d; j++)
		{
			double	   *fb = fallback + (size_t) a * d + j;
			double		x = *fb + f * g[j];

			*fb = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
		}
	}
done:
	dpk_free(out);
	dpk_free(bar);
	dpk_free(g);
}

/* Private cost score of a partition (see lift.h). */
double
dpk_lift_cost(int d, int k, size_t ncells, const double *count, const double *sum,
			  const double *sumnorm, const int *assign, double sum_var,
			  double min_count)
{
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *tot = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *norm = dpk_alloc(sizeof(double) * k);
	double	   *cells = dpk_alloc(sizeof(double) * k);
	double		cost = 0.0;
	int			a,
				j;

	lift_totals(d, k, ncells, count, sum, sumnorm, assign, cnt, tot, norm, cells);
	for (a = 0; a < k; a++)
	{
		double		s2 = 0.0;

		if (!(cnt[a] >= min_count && cnt[a] > 0.0))
			continue;
		for (j = 0; j < d; j++)
			s2 += tot[(size_t) a * d + j] * tot[(size_t) a * d + j];
		s2 -= d * sum_var * cells[a];
		if (s2 < 0.0)
			s2 = 0.0;
		cost += (sumnorm ? norm[a] : 0.0) - s2 / cnt[a];
	}
	dpk_free(cnt);
	dpk_free(tot);
	dpk_free(norm);
	dpk_free(cells);
	return cost;
}


#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

#include "cpu.h"

/*
 * Four lanes of dpk_lift_quantize_one added to sum: the clamp by
 * comparisons and blends (NaN lanes are refused by the caller), x = (v -
 * 1/2) U as the scalar form, its truncation (|x| <= U / 2 fits 32 bits), the
 * dropped part x - r and the step of one where it is at least one half.
 */
__attribute__((target("avx2"))) static void
quantize_add4(const double *u, int64_t *sum)
{
	__m256d		v = _mm256_loadu_pd(u),
				zero = _mm256_setzero_pd(),
				one = _mm256_set1_pd(1.0),
				x,
				f;
	__m128i		r,
				up,
				down,
				q;

	v = _mm256_blendv_pd(v, zero, _mm256_cmp_pd(v, zero, _CMP_LT_OQ));
	v = _mm256_blendv_pd(v, one, _mm256_cmp_pd(v, one, _CMP_GT_OQ));
	x = _mm256_mul_pd(_mm256_sub_pd(v, _mm256_set1_pd(0.5)), _mm256_set1_pd(DPK_LIFT_UNITS));
	r = _mm256_cvttpd_epi32(x);
	f = _mm256_sub_pd(x, _mm256_cvtepi32_pd(r));
	/* comparison masks are -1 where true: r - (f >= 1/2) + (f <= -1/2) */
	up = _mm256_cvtpd_epi32(_mm256_and_pd(_mm256_cmp_pd(f, _mm256_set1_pd(0.5), _CMP_GE_OQ), one));
	down = _mm256_cvtpd_epi32(_mm256_and_pd(_mm256_cmp_pd(f, _mm256_set1_pd(-0.5), _CMP_LE_OQ), one));
	q = _mm_sub_epi32(_mm_add_epi32(r, up), down);
	_mm256_storeu_si256((__m256i *) sum,
						_mm256_add_epi64(_mm256_loadu_si256((const __m256i *) sum),
										 _mm256_cvtepi32_epi64(q)));
}

/* Whether four coordinates are all numbers (not NaN). */
__attribute__((target("avx2"))) static int
ordered4(const double *u)
{
	__m256d		v = _mm256_loadu_pd(u);

	return _mm256_movemask_pd(_mm256_cmp_pd(v, v, _CMP_ORD_Q)) == 0xF;
}
#endif

/* Quantized coordinates added to a sum (see lift.h). */
void
dpk_lift_quantize_add(const double *u, int d, int64_t *sum)
{
	int			j = 0;

#if defined(__GNUC__) && defined(__x86_64__)
	if (dpk_cpu_has_avx2())
		for (; j + 4 <= d && ordered4(u + j); j += 4)
			quantize_add4(u + j, sum + j);
#endif
	for (; j < d; j++)
		sum[j] += dpk_lift_quantize_one(u[j]);
}
