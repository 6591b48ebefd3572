/*
 * projection.c
 *		Random orthonormal projections: the public matrices, batch projection
 *		on BLAS and the pseudo-inverse (see projection.h).
 */
#include "projection.h"

#include <math.h>

#include "blas.h"
#include "dpk_mem.h"
#include "prng.h"

/* ---- a plain seeded generator for the public projection matrices ---- */

/* Box-Muller normals from the shared xoshiro generator, one value kept. */
typedef struct ProjRng
{
	DpkPrng		g;
	double		spare;
	int			have_spare;
} ProjRng;

/* Seed from a 64-bit (public) seed. */
static void
proj_rng_init(ProjRng *r, uint64_t seed)
{
	dpk_prng_seed(&r->g, seed ^ UINT64_C(0x70726F6A65637421));
	r->have_spare = 0;
	r->spare = 0.0;
}

/* Uniform in (0, 1): 53 random bits, offset by half a step so never 0. */
static double
proj_rng_uniform(ProjRng *r)
{
	return (dpk_prng_bits53(&r->g) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal by Box-Muller (both values used). */
static double
proj_rng_normal(ProjRng *r)
{
	double		u1,
				u2,
				rad;

	if (r->have_spare)
	{
		r->have_spare = 0;
		return r->spare;
	}
	u1 = proj_rng_uniform(r);
	u2 = proj_rng_uniform(r);
	rad = sqrt(-2.0 * log(u1));
	r->spare = rad * sin(2.0 * M_PI * u2);
	r->have_spare = 1;
	return rad * cos(2.0 * M_PI * u2);
}

/* ---- projections ---- */

/* Draw and orthonormalise the matrix of seed (see projection.h). */
void
dpk_projection_init(DpkProjection *p, int d, int dhat, uint64_t seed,
					double half_width)
{
	ProjRng		rng;
	int			i,
				ii,
				j;

	p->d = d;
	p->dhat = dhat;
	p->seed = seed;
	p->half_width = half_width;
	p->mat = dpk_alloc(sizeof(double) * (size_t) dhat * d);
	p->offset = dpk_alloc(sizeof(double) * (size_t) dhat);

	proj_rng_init(&rng, seed);
	for (i = 0; i < dhat; i++)
	{
		double	   *row = p->mat + (size_t) i * d;
		int			attempt;

		for (attempt = 0; attempt < 16; attempt++)
		{
			double		norm = 0.0;

			for (j = 0; j < d; j++)
				row[j] = proj_rng_normal(&rng);
			/* modified Gram-Schmidt against the rows before, while rank allows */
			if (i < d)
				for (ii = 0; ii < i; ii++)
				{
					const double *prev = p->mat + (size_t) ii * d;
					double		dot = 0.0;

					for (j = 0; j < d; j++)
						dot += row[j] * prev[j];
					for (j = 0; j < d; j++)
						row[j] -= dot * prev[j];
				}
			for (j = 0; j < d; j++)
				norm += row[j] * row[j];
			norm = sqrt(norm);
			if (norm > 1e-6)
			{
				for (j = 0; j < d; j++)
					row[j] /= norm;
				break;
			}
			/* a degenerate draw (probability ~0): draw the row again */
		}
	}
	p->cols = dpk_alloc(sizeof(double) * (size_t) dhat * d);
	for (i = 0; i < dhat; i++)
		for (j = 0; j < d; j++)
			p->cols[(size_t) j * dhat + i] = p->mat[(size_t) i * d + j];
	for (i = 0; i < dhat; i++)
	{
		double		o = 0.0;

		for (j = 0; j < d; j++)
			o += p->mat[(size_t) i * d + j];
		p->offset[i] = 0.5 * o;
	}
}

/* Free a projection. */
void
dpk_projection_free(DpkProjection *p)
{
	dpk_free(p->mat);
	dpk_free(p->cols);
	dpk_free(p->offset);
	p->mat = NULL;
	p->cols = NULL;
	p->offset = NULL;
}

/* Seed of copy r (see projection.h). */
uint64_t
dpk_projection_copy_seed(uint64_t seed, int r)
{
	uint64_t	st = seed ^ (UINT64_C(0xC2B2AE3D27D4EB4F) * (uint64_t) (r + 1));

	return dpk_splitmix64(&st);
}

/*
 * Projected coordinate k of a point whose image along row k is y (u P^T, u
 * not centred): centred by the offset, scaled into [0,1] across the projected
 * box [-w, w] and clamped onto its faces.
 */
static inline double
projected_coordinate(const DpkProjection *p, int k, double y)
{
	double		w = p->half_width,
				v = (y - p->offset[k] + w) * (1.0 / (2.0 * w));

	return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define DPK_PROJ_X86 1
#include <immintrin.h>
#endif

/* Which of the exact products the CPU runs: 0 plain, 1 FMA, 2 FMA on AVX2. */
static int
proj_cpu_kind(void)
{
	static int	kind = -1;

	if (kind < 0)
	{
#ifdef DPK_PROJ_X86
		__builtin_cpu_init();
		kind = !__builtin_cpu_supports("fma") ? 0 : (__builtin_cpu_supports("avx2") ? 2 : 1);
#else
		kind = 0;
#endif
	}
	return kind;
}

/* dgemm's dot products without FMA: products and sums rounded one by one. */
static void
project_plain(const DpkProjection *p, const double *u, size_t n, double *t)
{
	int			d = p->d,
				dhat = p->dhat,
				j,
				k;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		const double *x = u + i * d;

		for (k = 0; k < dhat; k++)
		{
			const double *m = p->mat + (size_t) k * d;
			double		s = x[0] * m[0];

			for (j = 1; j < d; j++)
				s += x[j] * m[j];
			t[i * dhat + k] = projected_coordinate(p, k, s);
		}
	}
}

#ifdef DPK_PROJ_X86
/* The same with FMA: the first product rounded, then fused multiply-adds. */
__attribute__((target("fma"))) static void
project_fma(const DpkProjection *p, const double *u, size_t n, double *t)
{
	int			d = p->d,
				dhat = p->dhat,
				j,
				k;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		const double *x = u + i * d;

		for (k = 0; k < dhat; k++)
		{
			const double *m = p->mat + (size_t) k * d;
			double		s = x[0] * m[0];

			for (j = 1; j < d; j++)
				s = __builtin_fma(x[j], m[j], s);
			t[i * dhat + k] = projected_coordinate(p, k, s);
		}
	}
}

/*
 * The projected coordinates of one row's four images (projected_coordinate
 * lane by lane: the same subtraction, addition and product, the clamp by
 * comparisons and blends, so -0 stays -0), stored at out.
 */
__attribute__((target("avx2,fma"))) static inline void
project_finish4(__m256d y, __m256d off, __m256d w, __m256d scale, double *out)
{
	__m256d		zero = _mm256_setzero_pd(),
				one = _mm256_set1_pd(1.0),
				v = _mm256_mul_pd(_mm256_add_pd(_mm256_sub_pd(y, off), w), scale);

	v = _mm256_blendv_pd(v, zero, _mm256_cmp_pd(v, zero, _CMP_LT_OQ));
	v = _mm256_blendv_pd(v, one, _mm256_cmp_pd(v, one, _CMP_GT_OQ));
	_mm256_storeu_pd(out, v);
}

/*
 * The same for dhat = 4: a row's four chains in the lanes of one vector
 * (each lane the same operations in the same order), four rows at a time
 * so that their chains overlap.
 */
__attribute__((target("avx2,fma"))) static void
project_fma4(const DpkProjection *p, const double *u, size_t n, double *t)
{
	int			d = p->d,
				j;
	size_t		i = 0;
	const double *c = p->cols;
	__m256d		off = _mm256_loadu_pd(p->offset),
				w = _mm256_set1_pd(p->half_width),
				scale = _mm256_set1_pd(1.0 / (2.0 * p->half_width));

	for (; i + 4 <= n; i += 4)
	{
		const double *x = u + i * d;
		__m256d		c0 = _mm256_loadu_pd(c);
		__m256d		a0 = _mm256_mul_pd(_mm256_set1_pd(x[0]), c0),
					a1 = _mm256_mul_pd(_mm256_set1_pd(x[d]), c0),
					a2 = _mm256_mul_pd(_mm256_set1_pd(x[2 * d]), c0),
					a3 = _mm256_mul_pd(_mm256_set1_pd(x[3 * d]), c0);

		/* the next rows' lines fetched while these four are summed */
		if (i + 12 <= n)
			for (j = 0; j < 4 * d; j += 8)
				__builtin_prefetch(x + 8 * d + j);

		for (j = 1; j < d; j++)
		{
			__m256d		cj = _mm256_loadu_pd(c + (size_t) j * 4);

			a0 = _mm256_fmadd_pd(_mm256_set1_pd(x[j]), cj, a0);
			a1 = _mm256_fmadd_pd(_mm256_set1_pd(x[d + j]), cj, a1);
			a2 = _mm256_fmadd_pd(_mm256_set1_pd(x[2 * d + j]), cj, a2);
			a3 = _mm256_fmadd_pd(_mm256_set1_pd(x[3 * d + j]), cj, a3);
		}
		project_finish4(a0, off, w, scale, t + i * 4);
		project_finish4(a1, off, w, scale, t + i * 4 + 4);
		project_finish4(a2, off, w, scale, t + i * 4 + 8);
		project_finish4(a3, off, w, scale, t + i * 4 + 12);
	}
	for (; i < n; i++)
	{
		const double *x = u + i * d;
		__m256d		a0 = _mm256_mul_pd(_mm256_set1_pd(x[0]), _mm256_loadu_pd(c));

		for (j = 1; j < d; j++)
			a0 = _mm256_fmadd_pd(_mm256_set1_pd(x[j]), _mm256_loadu_pd(c + (size_t) j * 4), a0);
		project_finish4(a0, off, w, scale, t + i * 4);
	}
}
#endif

/*
 * Project normalized points (see projection.h): up to DPK_PROJ_EXACT_MAX_D
 * dimensions a fixed chain of products computed here (no BLAS loaded),
 * above them dgemm.
 */
void
dpk_project_batch(const DpkProjection *p, const double *u, size_t n, double *t)
{
	int			d = p->d,
				dhat = p->dhat;
	size_t		done = 0;

	if (d <= DPK_PROJ_EXACT_MAX_D)
	{
		while (done < n)
		{
			size_t		rows = n - done < DPK_PROJ_CHUNK ? n - done : DPK_PROJ_CHUNK;
			int			kind = proj_cpu_kind();

			dpk_check_interrupts();
#ifdef DPK_PROJ_X86
			if (kind == 2 && dhat == 4)
				project_fma4(p, u + done * d, rows, t + done * dhat);
			else if (kind >= 1)
				project_fma(p, u + done * d, rows, t + done * dhat);
			else
#endif
				project_plain(p, u + done * d, rows, t + done * dhat);
			done += rows;
		}
		return;
	}
	while (done < n)
	{
		size_t		rows = n - done;
		size_t		i;
		int			j;
		double	   *out = t + done * dhat;

		if (rows > (size_t) (1 << 20))
			rows = (size_t) (1 << 20);
		dpk_check_interrupts();
		/* out = u P^T: (rows x d) times (d x dhat) */
		dpk_dgemm_nt((int) rows, dhat, d, 1.0, u + done * d, d, p->mat, d, out, dhat);
		for (i = 0; i < rows; i++)
			for (j = 0; j < dhat; j++)
				out[i * dhat + j] = projected_coordinate(p, j, out[i * dhat + j]);
		done += rows;
	}
}

/*
 * Project normalized points one row at a time (see projection.h).  Each
 * projected coordinate is two dot products, over the even and the odd j in
 * increasing order, then added: an order fixed by (d, dhat) alone.  The
 * accumulators are independent, so the inner loop runs across them (and may
 * use SIMD lanes) without reordering any one sum.
 */
void
dpk_project_rows(const DpkProjection *p, const double *u, size_t n, double *t)
{
	int			d = p->d,
				dhat = p->dhat;
	double	   *acc = dpk_alloc(sizeof(double) * 2 * dhat);
	size_t		i;
	int			j,
				k;

	for (i = 0; i < n; i++)
	{
		const double *x = u + i * d;
		double	   *out = t + i * dhat;

		if ((i & 4095) == 4095)
			dpk_check_interrupts();
		for (k = 0; k < 2 * dhat; k++)
			acc[k] = 0.0;
		/* even and odd j in two fixed chains, half the latency of one */
		for (j = 0; j + 1 < d; j += 2)
		{
			const double *c0 = p->cols + (size_t) j * dhat;
			const double *c1 = c0 + dhat;
			double		x0 = x[j],
						x1 = x[j + 1];

			for (k = 0; k < dhat; k++)
			{
				acc[k] += c0[k] * x0;
				acc[dhat + k] += c1[k] * x1;
			}
		}
		if (j < d)
			for (k = 0; k < dhat; k++)
				acc[k] += p->cols[(size_t) j * dhat + k] * x[j];
		for (k = 0; k < dhat; k++)
			out[k] = projected_coordinate(p, k, acc[k] + acc[dhat + k]);
	}
	dpk_free(acc);
}

/* Normalize then project raw points through a bounded scratch. */
void
dpk_project_points(const DpkProjection *p, const DpkBox *box, const double *x,
				   size_t n, double *t)
{
	int			d = p->d;
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	size_t		done = 0;

	while (done < n)
	{
		size_t		rows = n - done < DPK_PROJ_CHUNK ? n - done : DPK_PROJ_CHUNK;
		size_t		i;

		for (i = 0; i < rows; i++)
			dpk_box_normalize(box, x + (done + i) * d, u + i * d);
		dpk_project_batch(p, u, rows, t + done * p->dhat);
		done += rows;
	}
	dpk_free(u);
}

/* Pseudo-inverse of the projection, clamped into the unit cube. */
void
dpk_project_back(const DpkProjection *p, const double *t, double *u)
{
	int			d = p->d,
				dhat = p->dhat,
				i,
				j;
	double		w = p->half_width;

	for (j = 0; j < d; j++)
		u[j] = 0.5;
	for (i = 0; i < dhat; i++)
	{
		double		y = (2.0 * t[i] - 1.0) * w;

		for (j = 0; j < d; j++)
			u[j] += p->mat[(size_t) i * d + j] * y;
	}
	for (j = 0; j < d; j++)
		u[j] = u[j] < 0.0 ? 0.0 : (u[j] > 1.0 ? 1.0 : u[j]);
}
