/*
 * grid.c
 *		Box normalisation, cell numbering and dense noisy histograms.
 */
#include "grid.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"

/* Normalize x into [0,1]^d; +-Inf and outside points are clamped, not refused. */
void
dpk_box_normalize(const DpkBox *box, const double *x, double *u)
{
	int			j;

	for (j = 0; j < box->d; j++)
	{
		double		v = (x[j] - box->lower[j]) / (box->upper[j] - box->lower[j]);

		u[j] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
	}
}

/* Map a normalized position back into the box. */
void
dpk_box_denormalize(const DpkBox *box, const double *u, double *x)
{
	int			j;

	for (j = 0; j < box->d; j++)
		x[j] = box->lower[j] + u[j] * (box->upper[j] - box->lower[j]);
}

/* The widest side (see grid.h). */
double
dpk_box_max_width(const DpkBox *box)
{
	double		w = 0.0;
	int			j;

	for (j = 0; j < box->d; j++)
		w = fmax(w, box->upper[j] - box->lower[j]);
	return w;
}

/* Root mean square of the sides over the widest (see grid.h). */
double
dpk_box_metric_spread(const DpkBox *box)
{
	double		wmax = dpk_box_max_width(box),
				s = 0.0;
	int			j;

	for (j = 0; j < box->d; j++)
	{
		double		r = (box->upper[j] - box->lower[j]) / wmax;

		s += r * r;
	}
	return sqrt(s / box->d);
}

/* Normalized position to metric position, in place (see grid.h). */
void
dpk_box_to_metric(const DpkBox *box, double *u)
{
	double		wmax = dpk_box_max_width(box);
	int			j;

	for (j = 0; j < box->d; j++)
	{
		double		w = box->upper[j] - box->lower[j];

		/* sides as wide as the widest keep u exactly */
		if (w < wmax)
			u[j] = 0.5 + (u[j] - 0.5) * (w / wmax);
	}
}

/* Move a metric position into the ball around the box's middle (see grid.h). */
void
dpk_box_ball_clamp(int d, double radius, double *v)
{
	double		s = 0.0;
	int			j;

	if (!(radius > 0.0))
		return;
	for (j = 0; j < d; j++)
		s += (v[j] - 0.5) * (v[j] - 0.5);
	if (s <= radius * radius)
		return;
	s = radius / sqrt(s);
	for (j = 0; j < d; j++)
		v[j] = 0.5 + (v[j] - 0.5) * s;
}

/* A norm bound's radius in metric positions, or 0 (see grid.h). */
double
dpk_box_ball_radius(const DpkBox *box, double norm_bound)
{
	double		wmax = dpk_box_max_width(box),
				r = norm_bound / wmax,
				half_diag = 0.0;
	int			j;

	for (j = 0; j < box->d; j++)
	{
		double		h = 0.5 * (box->upper[j] - box->lower[j]) / wmax;

		half_diag += h * h;
	}
	return r > 0.0 && r < sqrt(half_diag) ? r : 0.0;
}

/* Metric position to a point of the box (see grid.h). */
void
dpk_box_from_metric(const DpkBox *box, const double *v, double *x)
{
	double		wmax = dpk_box_max_width(box);
	int			j;

	dpk_box_denormalize(box, v, x);
	for (j = 0; j < box->d; j++)
		if (box->upper[j] - box->lower[j] < wmax)
			x[j] = fmin(fmax(0.5 * (box->lower[j] + box->upper[j]) + (v[j] - 0.5) * wmax,
							 box->lower[j]), box->upper[j]);
}

/* A position as a point of the box, metric or normalized (see grid.h). */
void
dpk_box_from_position(const DpkBox *box, bool metric, const double *u, double *x)
{
	if (metric)
		dpk_box_from_metric(box, u, x);
	else
		dpk_box_denormalize(box, u, x);
}

/*
 * floor() as an integer: a cast truncates toward zero, which is the floor
 * for p >= 0 (every normalized position), without a libm call per
 * coordinate on the writers' path; the same value as (int64_t) floor(p).
 */
static inline int64_t
floor_int(double p)
{
	return p >= 0.0 ? (int64_t) p : (int64_t) floor(p);
}

/*
 * Cell number, coordinates and fixed-point in-cell offsets of u; inlined
 * into dpk_hist_add_points, whose loop over the rows calls nothing per row.
 */
static inline __attribute__((always_inline)) uint64_t
grid_cell(int d, int m, const double *u, int64_t *idx, int64_t *rel)
{
	uint64_t	cell = 0;
	int			j;

	for (j = 0; j < d; j++)
	{
		double		p = u[j] * m;
		int64_t		i = floor_int(p);
		int64_t		r;

		if (i >= m)
			i = m - 1;
		if (i < 0)
			i = 0;
		r = floor_int((p - (double) i) * DPK_REL_UNITS);
		if (r >= DPK_REL_UNITS)
			r = DPK_REL_UNITS - 1;
		if (r < 0)
			r = 0;
		if (idx)
			idx[j] = i;
		if (rel)
			rel[j] = r;
		cell = cell * (uint64_t) m + (uint64_t) i;
	}
	return cell;
}

/* Cell number, coordinates and fixed-point in-cell offsets of u. */
uint64_t
dpk_grid_cell(int d, int m, const double *u, int64_t *idx, int64_t *rel)
{
	return grid_cell(d, m, u, idx, rel);
}

/* Cell numbers of a batch of points (see grid.h): grid_cell inlined per row. */
void
dpk_grid_cell_batch(int d, int m, const double *u, size_t n, uint64_t *cells)
{
	size_t		i;

	if (d == 4)
		for (i = 0; i < n; i++)
			cells[i] = grid_cell(4, m, u + i * 4, NULL, NULL);
	else
		for (i = 0; i < n; i++)
			cells[i] = grid_cell(d, m, u + i * d, NULL, NULL);
}

/* Inverse of the row-major numbering used by dpk_grid_cell. */
void
dpk_grid_cell_coords(int d, int m, uint64_t cell, int64_t *idx)
{
	int			j;

	for (j = d - 1; j >= 0; j--)
	{
		idx[j] = (int64_t) (cell % (uint64_t) m);
		cell /= (uint64_t) m;
	}
}

/* Number of cells of the grid, as a double so huge grids don't overflow. */
double
dpk_grid_cells(int d, int m)
{
	return pow((double) m, (double) d);
}

/* Allocate a zeroed dense histogram. */
void
dpk_hist_init(DpkDenseHist *h, int d, int m, bool with_sums)
{
	h->d = d;
	h->m = m;
	h->ncells = (uint64_t) llround(dpk_grid_cells(d, m));
	h->units = DPK_REL_UNITS;
	h->count = dpk_alloc0(h->ncells * sizeof(int64_t));
	h->sum = with_sums ? dpk_alloc0(h->ncells * d * sizeof(int64_t)) : NULL;
}

/* Free a dense histogram. */
void
dpk_hist_free(DpkDenseHist *h)
{
	dpk_free(h->count);
	dpk_free(h->sum);
	h->count = NULL;
	h->sum = NULL;
}

/* Count one point and add its in-cell offsets to the cell's sums. */
void
dpk_hist_add(DpkDenseHist *h, const double *u)
{
	int64_t		rel[64];
	int64_t    *relp = h->d <= 64 ? rel : dpk_alloc(h->d * sizeof(int64_t));
	uint64_t	cell = dpk_grid_cell(h->d, h->m, u, NULL, relp);
	int			j;

	h->count[cell]++;
	if (h->sum)
		for (j = 0; j < h->d; j++)
			h->sum[cell * h->d + j] += relp[j];
	if (relp != rel)
		dpk_free(relp);
}

/* Points hist_add_rows_d places before it counts them (a block). */
#define HIST_BLOCK 256

/*
 * Count n points of the box (d <= 64) with every operation of
 * dpk_hist_add_points; compiled apart for d = 2, with the box's corners,
 * widths and the arrays in locals, since stores to the counts could
 * otherwise alias them and force reloads on every row.  A block of points
 * is placed first, coordinate by coordinate and without a branch (the
 * points are independent: their divisions and conversions overlap), then
 * counted: the same cells and offsets as grid_cell's, since a clamped
 * position u * m is >= 0 or NaN, where floor_int is the plain cast, and
 * cell and offset fit an int32 (doc/decisions/077).
 */
static inline __attribute__((always_inline)) void
hist_add_rows_d(DpkDenseHist *h, const DpkBox *box, const double *points, size_t n, int d)
{
	double		lower[64],
				width[64];
	uint64_t	cell[HIST_BLOCK];
	int32_t		rel[64 * HIST_BLOCK];
	int64_t    *count = h->count;
	int64_t    *sum = h->sum;
	int			m = h->m;
	double		md = (double) m;
	size_t		from;
	int			j;

	for (j = 0; j < d; j++)
	{
		lower[j] = box->lower[j];
		width[j] = box->upper[j] - box->lower[j];
	}
	for (from = 0; from < n; from += HIST_BLOCK)
	{
		const double *x = points + from * d;
		int			rows = n - from < HIST_BLOCK ? (int) (n - from) : HIST_BLOCK,
					i;

		if ((from & 65535) == 0)
			dpk_check_interrupts();
		for (i = 0; i < rows; i++)
			cell[i] = 0;
		for (j = 0; j < d; j++)
		{
			int32_t    *rj = rel + j * HIST_BLOCK;

			for (i = 0; i < rows; i++)
			{
				double		v = (x[i * d + j] - lower[j]) / width[j],
							u = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v),
							p = u * md;
				int32_t		c = (int32_t) p,
							r;

				c = c > m - 1 ? m - 1 : c;
				c = c < 0 ? 0 : c;
				r = (int32_t) ((p - (double) c) * DPK_REL_UNITS);
				r = r > DPK_REL_UNITS - 1 ? DPK_REL_UNITS - 1 : r;
				r = r < 0 ? 0 : r;
				rj[i] = r;
				cell[i] = cell[i] * (uint64_t) m + (uint64_t) c;
			}
		}
		for (i = 0; i < rows; i++)
		{
			count[cell[i]]++;
			if (sum)
				for (j = 0; j < d; j++)
					sum[cell[i] * d + j] += rel[j * HIST_BLOCK + i];
		}
	}
}

#ifdef __SSE2__
#include <emmintrin.h>

/* The lanes of a (int32 lanes) above the same lanes of max, made max. */
static inline __m128i
hist_min_epi32(__m128i a, __m128i max)
{
	__m128i		above = _mm_cmpgt_epi32(a, max);

	return _mm_or_si128(_mm_and_si128(above, max), _mm_andnot_si128(above, a));
}

/*
 * hist_add_rows_d at d = 2 with both coordinates of a point in one SSE2
 * register: one division for the two, and the same cells and offsets.
 * max(v, 0) then min(., 1) is the clamp v < 0 ? 0 : (v > 1 ? 1 : v) but
 * for -0 and NaN, which it makes +0: a position 0 either way, and NaN
 * fell to cell 0, offset 0 through the integer clamps (x86's conversion of
 * NaN is the most negative integer).  Then u * m >= 0: the conversions
 * truncate toward zero as floor_int does, and only the upper clamps act.
 */
static void
hist_add_rows_2(DpkDenseHist *h, const DpkBox *box, const double *points, size_t n)
{
	__m128d		lower = _mm_set_pd(box->lower[1], box->lower[0]),
				width = _mm_set_pd(box->upper[1] - box->lower[1], box->upper[0] - box->lower[0]),
				zero = _mm_setzero_pd(),
				one = _mm_set1_pd(1.0),
				md = _mm_set1_pd((double) h->m),
				units = _mm_set1_pd((double) DPK_REL_UNITS);
	__m128i		last_cell = _mm_set1_epi32(h->m - 1),
				last_rel = _mm_set1_epi32(DPK_REL_UNITS - 1);
	uint64_t	cell[HIST_BLOCK];
	int32_t		rel[2 * HIST_BLOCK];
	int64_t    *count = h->count;
	int64_t    *sum = h->sum;
	uint64_t	m = (uint64_t) h->m;
	size_t		from;

	for (from = 0; from < n; from += HIST_BLOCK)
	{
		const double *x = points + from * 2;
		int			rows = n - from < HIST_BLOCK ? (int) (n - from) : HIST_BLOCK,
					i;

		if ((from & 65535) == 0)
			dpk_check_interrupts();
		for (i = 0; i < rows; i++)
		{
			__m128d		v = _mm_div_pd(_mm_sub_pd(_mm_loadu_pd(x + 2 * i), lower), width),
						p = _mm_mul_pd(_mm_min_pd(_mm_max_pd(v, zero), one), md);
			__m128i		c = hist_min_epi32(_mm_cvttpd_epi32(p), last_cell),
						r = _mm_cvttpd_epi32(_mm_mul_pd(_mm_sub_pd(p, _mm_cvtepi32_pd(c)), units));

			r = hist_min_epi32(r, last_rel);
			cell[i] = (uint64_t) _mm_cvtsi128_si32(c) * m +
				(uint64_t) _mm_cvtsi128_si32(_mm_shuffle_epi32(c, 1));
			_mm_storel_epi64((__m128i *) (rel + 2 * i), r);
		}
		for (i = 0; i < rows; i++)
		{
			count[cell[i]]++;
			if (sum)
			{
				sum[cell[i] * 2] += rel[2 * i];
				sum[cell[i] * 2 + 1] += rel[2 * i + 1];
			}
		}
	}
}
#endif

/* Count n points of the box, normalized one by one (see grid.h). */
void
dpk_hist_add_points(DpkDenseHist *h, const DpkBox *box, const double *points, size_t n)
{
	int			d = h->d;
	size_t		i;

	if (d > 64)
	{
		double	   *ub = dpk_alloc(d * sizeof(double));

		for (i = 0; i < n; i++)
		{
			if ((i & 65535) == 0)
				dpk_check_interrupts();
			dpk_box_normalize(box, points + i * d, ub);
			dpk_hist_add(h, ub);
		}
		dpk_free(ub);
	}
	else if (d == 2)
#ifdef __SSE2__
		hist_add_rows_2(h, box, points, n);
#else
		hist_add_rows_d(h, box, points, n, 2);
#endif
	else if (d == 3)
		hist_add_rows_d(h, box, points, n, 3);
	else if (d == 5)
		hist_add_rows_d(h, box, points, n, 5);
	else
		hist_add_rows_d(h, box, points, n, d);
}

/* Noise every cell of the histogram (see grid.h). */
void
dpk_hist_add_noise(DpkDenseHist *h, DpkStream *s, DpkScale count_scale,
				   DpkScale sum_scale)
{
	uint64_t	c;

	for (c = 0; c < h->ncells; c++)
	{
		if ((c & 4095) == 0)
			dpk_check_interrupts();
		h->count[c] += dpk_discrete_laplace(s, count_scale);
		if (h->sum)
			dpk_vector_noise(s, sum_scale, h->d, 1, h->sum + c * h->d);
	}
}
