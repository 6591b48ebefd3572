/*
 * test_projection.c
 *		Random orthonormal projections: determinism, orthonormal rows, the
 *		dgemm batch against a naive loop, clamping, the pseudo-inverse, and
 *		the row-by-row projection of live captures, the same bits in any batch,
 *		and up to 16 dimensions the batch's own products: a fixed FMA chain,
 *		within rounding of dgemm's.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "blas.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "projection.h"
#include "unit.h"

/* A tiny deterministic generator for test data (not privacy noise). */
static uint64_t test_state = 88172645463325252ULL;

/* Uniform test data in [0, 1). */
static double
test_uniform(void)
{
	return unit_uniform(&test_state);
}

/* Everything a projection promises, at d = 64, dhat = 4. */
static void
test_projection(void)
{
	int			d = 64,
				dhat = 4,
				i,
				ii,
				j;
	DpkProjection a,
				b,
				c;
	size_t		n = 5000;		/* more than one chunk of dpk_project_points */
	double	   *u = dpk_alloc(sizeof(double) * n * d);
	double	   *x = dpk_alloc(sizeof(double) * n * d);
	double	   *t1 = dpk_alloc(sizeof(double) * n * dhat);
	double	   *t2 = dpk_alloc(sizeof(double) * n * dhat);
	double		lo[64],
				hi[64];
	DpkBox		box = {64, lo, hi};
	double		maxdiff = 0.0,
				orth = 0.0;
	int			same = 1,
				differs = 0;
	size_t		r;

	dpk_projection_init(&a, d, dhat, 42, 0.75);
	for (r = 0; r < n * d; r++)
		u[r] = test_uniform();

	/* the matrix depends on (d, dhat, seed) only: projecting data first changes nothing */
	dpk_project_batch(&a, u, n, t1);
	dpk_projection_init(&b, d, dhat, 42, 0.75);
	for (r = 0; r < (size_t) dhat * d; r++)
		if (a.mat[r] != b.mat[r])
			same = 0;
	CHECK(same, "same seed gives the same matrix");
	dpk_projection_init(&c, d, dhat, 43, 0.75);
	for (r = 0; r < (size_t) dhat * d; r++)
		if (a.mat[r] != c.mat[r])
			differs = 1;
	CHECK(differs, "another seed gives another matrix");
	CHECK(dpk_projection_copy_seed(42, 0) != dpk_projection_copy_seed(42, 1) &&
		  dpk_projection_copy_seed(42, 1) == dpk_projection_copy_seed(42, 1),
		  "copy seeds distinct and deterministic");

	/* rows orthonormal */
	for (i = 0; i < dhat; i++)
		for (ii = 0; ii < dhat; ii++)
		{
			double		dot = 0.0;

			for (j = 0; j < d; j++)
				dot += a.mat[i * d + j] * a.mat[ii * d + j];
			orth = fmax(orth, fabs(dot - (i == ii ? 1.0 : 0.0)));
		}
	CHECK(orth < 1e-12, "rows orthonormal (%g)", orth);

	/* the dgemm batch equals a naive loop, clamping included */
	for (r = 0; r < n; r++)
		for (i = 0; i < dhat; i++)
		{
			double		y = 0.0,
						v;

			for (j = 0; j < d; j++)
				y += a.mat[i * d + j] * (u[r * d + j] - 0.5);
			v = (y + 0.75) / 1.5;
			v = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
			maxdiff = fmax(maxdiff, fabs(v - t1[r * dhat + i]));
		}
	CHECK(maxdiff < 1e-12, "dgemm projection equals the naive loop (%g)", maxdiff);

	/* a corner of the cube lands outside the projected box and is clamped */
	{
		double		corner[64],
					tc[4];
		int			clamped = 0;

		for (j = 0; j < d; j++)
			corner[j] = a.mat[j] > 0.0 ? 1.0 : 0.0;	/* maximises row 0 */
		dpk_project_batch(&a, corner, 1, tc);
		for (i = 0; i < dhat; i++)
			if (!(tc[i] >= 0.0 && tc[i] <= 1.0))
				clamped = -1;
		if (clamped == 0 && tc[0] == 1.0)
			clamped = 1;
		CHECK(clamped == 1, "projected box clamps (t0 = %g)", tc[0]);
	}

	/* raw points through the box: same as normalize + batch, over several chunks */
	for (j = 0; j < d; j++)
	{
		lo[j] = -10.0 * (j + 1);
		hi[j] = 10.0 * (j + 1);
	}
	for (r = 0; r < n; r++)
		for (j = 0; j < d; j++)
			x[r * d + j] = lo[j] + (hi[j] - lo[j]) * u[r * d + j];
	x[7 * d + 3] = INFINITY;
	x[9 * d + 5] = -INFINITY;
	u[7 * d + 3] = 1.0;
	u[9 * d + 5] = 0.0;
	dpk_project_batch(&a, u, n, t1);
	dpk_project_points(&a, &box, x, n, t2);
	maxdiff = 0.0;
	for (r = 0; r < n * dhat; r++)
		maxdiff = fmax(maxdiff, fabs(t1[r] - t2[r]));
	CHECK(maxdiff < 1e-12, "dpk_project_points equals normalize + batch (%g)", maxdiff);

	/* back-projection inverts the projection on its row space */
	{
		double		y[4] = {0.1, -0.2, 0.05, 0.15},
					uu[64],
					tt[4],
					back[64],
					err = 0.0;

		for (j = 0; j < d; j++)
		{
			uu[j] = 0.5;
			for (i = 0; i < dhat; i++)
				uu[j] += a.mat[i * d + j] * y[i];
		}
		dpk_project_batch(&a, uu, 1, tt);
		dpk_project_back(&a, tt, back);
		for (j = 0; j < d; j++)
			err = fmax(err, fabs(back[j] - uu[j]));
		CHECK(err < 1e-12, "project_back inverts on the row space (%g)", err);
	}

	dpk_projection_free(&a);
	dpk_projection_free(&b);
	dpk_projection_free(&c);
	dpk_free(u);
	dpk_free(x);
	dpk_free(t1);
	dpk_free(t2);
}

/*
 * dpk_project_rows: every row's image is bit for bit the same projected
 * alone, in a batch of 2 048, or in batches of other sizes at other offsets
 * (a row inserted by one statement and deleted by another lands in the same
 * cell), and equals dpk_project_batch up to rounding.  At the shapes of live
 * tables, d = 16 .. 384 with dhat = 6.  Identical rows anywhere in any
 * batches then project to the same bits too (each equals its image alone),
 * so that needs no check of its own: one passed with dgemm as well.
 */
static void
test_project_rows(void)
{
	static const int dims[] = {16, 64, 100, 384};
	static const size_t sizes[] = {1, 2, 3, 5, 7, 64, 100, 2048};
	size_t		n = 2048;
	int			dd;

	for (dd = 0; dd < (int) (sizeof(dims) / sizeof(dims[0])); dd++)
	{
		int			d = dims[dd],
					dhat = 6;
		DpkProjection p;
		double	   *u = dpk_alloc(sizeof(double) * n * d);
		double	   *alone = dpk_alloc(sizeof(double) * n * dhat);
		double	   *batch = dpk_alloc(sizeof(double) * n * dhat);
		double	   *gemm = dpk_alloc(sizeof(double) * n * dhat);
		size_t		r,
					s,
					bits = 0;
		double		maxdiff = 0.0;

		dpk_projection_init(&p, d, dhat, 7 + (uint64_t) d, 0.75);
		for (r = 0; r < n * d; r++)
			u[r] = test_uniform();
		for (r = 0; r < n; r++)
			dpk_project_rows(&p, u + r * d, 1, alone + r * dhat);
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		{
			size_t		from;

			for (from = 0; from < n; from += sizes[s])
			{
				size_t		m = n - from < sizes[s] ? n - from : sizes[s];

				dpk_project_rows(&p, u + from * d, m, batch + from * dhat);
			}
			if (memcmp(alone, batch, sizeof(double) * n * dhat) != 0)
				bits++;
		}
		CHECK(bits == 0, "d = %d: rows project to the same bits in every batch size (%zu sizes differ)",
			  d, bits);
		dpk_project_batch(&p, u, n, gemm);
		for (r = 0; r < n * dhat; r++)
			maxdiff = fmax(maxdiff, fabs(gemm[r] - alone[r]));
		CHECK(maxdiff < 1e-12, "d = %d: row-by-row equals the dgemm batch up to rounding (%g)",
			  d, maxdiff);
		dpk_projection_free(&p);
		dpk_free(u);
		dpk_free(alone);
		dpk_free(batch);
		dpk_free(gemm);
	}
}

/*
 * dgemm's image of the rows of u, as dpk_project_batch computed it before
 * it took its own products up to 16 dimensions: one dgemm, then each
 * coordinate centred, scaled into the projected box and clamped.
 */
static void
project_by_dgemm(const DpkProjection *p, const double *u, size_t n, double *t)
{
	double		w = p->half_width;
	size_t		i;
	int			j;

	dpk_dgemm_nt((int) n, p->dhat, p->d, 1.0, u, p->d, p->mat, p->d, t, p->dhat);
	for (i = 0; i < n; i++)
		for (j = 0; j < p->dhat; j++)
		{
			double		v = (t[i * p->dhat + j] - p->offset[j] + w) * (1.0 / (2.0 * w));

			t[i * p->dhat + j] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
		}
}

/*
 * The image dpk_project_batch promises up to 16 dimensions: per coordinate
 * the first product rounded, then one fused multiply-add per further
 * coordinate in index order (products and sums rounded one by one on a CPU
 * without FMA), centred, scaled into the projected box and clamped.
 */
static void
project_by_chain(const DpkProjection *p, const double *u, size_t n, int fma, double *t)
{
	double		w = p->half_width;
	size_t		i;
	int			j,
				k;

	for (i = 0; i < n; i++)
		for (k = 0; k < p->dhat; k++)
		{
			const double *x = u + i * p->d;
			const double *m = p->mat + (size_t) k * p->d;
			double		s = x[0] * m[0],
						v;

			for (j = 1; j < p->d; j++)
				s = fma ? __builtin_fma(x[j], m[j], s) : s + x[j] * m[j];
			v = (s - p->offset[k] + w) * (1.0 / (2.0 * w));
			t[i * p->dhat + k] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
		}
}

/* Whether dpk_project_batch runs its FMA kernels on this CPU. */
static int
cpu_has_fma(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
	__builtin_cpu_init();
	return __builtin_cpu_supports("fma");
#else
	return 0;
#endif
}

/*
 * Up to 16 dimensions dpk_project_batch computes its products itself: the
 * chain above bit for bit for every d = 1 .. 16, dhat = 1 .. 6, in batches
 * of every size (its 4-row blocks and their remainders) and row by row, on
 * rows with coordinates at 0, 1 and 1/2 as well as anywhere between;
 * within rounding of dgemm's image (whose order of summation depends on the
 * OpenBLAS kernel the CPU gets, and on some CPUs on the batch's size); and
 * without loading BLAS.  Runs first, before any test loads it.
 */
static void
test_batch_exact(void)
{
	static const size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 64, 4101};
	size_t		nmax = 4101;
	int			d,
				dhat,
				fma = cpu_has_fma() != 0,
				bad = 0,
				far = 0,
				cases = 0;
	int			loaded;
	double		worst = 0.0;

	for (d = 1; d <= 16; d++)
		for (dhat = 1; dhat <= 6; dhat++)
		{
			DpkProjection p;
			double	   *u = dpk_alloc(sizeof(double) * nmax * d);
			double	   *mine = dpk_alloc(sizeof(double) * nmax * dhat);
			double	   *ref = dpk_alloc(sizeof(double) * nmax * dhat);
			size_t		r,
						s;

			dpk_projection_init(&p, d, dhat, 1000 + (uint64_t) (d * 8 + dhat), 0.75);
			for (r = 0; r < nmax * d; r++)
				u[r] = r % 97 == 0 ? 0.0 : (r % 89 == 0 ? 1.0 : (r % 83 == 0 ? 0.5 : test_uniform()));
			for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			{
				size_t		n = sizes[s],
							off = (s * 37) % (nmax - n + 1);

				dpk_project_batch(&p, u + off * d, n, mine);
				project_by_chain(&p, u + off * d, n, fma, ref);
				bad += memcmp(mine, ref, sizeof(double) * n * dhat) != 0;
				cases++;
			}
			/* every row alone: the batch's bits again */
			dpk_project_batch(&p, u, 64, ref);
			for (r = 0; r < 64; r++)
			{
				dpk_project_batch(&p, u + r * d, 1, mine);
				bad += memcmp(mine, ref + r * dhat, sizeof(double) * dhat) != 0;
				cases++;
			}
			dpk_projection_free(&p);
			dpk_free(u);
			dpk_free(mine);
			dpk_free(ref);
		}
	loaded = dpk_blas_loaded();
	CHECK(!loaded, "projections up to 16 dimensions load no BLAS");
	CHECK(bad == 0, "%d of %d batches project to other bits than the FMA chain (fma %d)", bad,
		  cases, fma);

	/* dgemm (BLAS loaded from here on): the same images up to rounding */
	for (d = 1; d <= 16; d++)
		for (dhat = 1; dhat <= 6; dhat++)
		{
			DpkProjection p;
			size_t		n = 517,
						r;
			double	   *u = dpk_alloc(sizeof(double) * n * d);
			double	   *mine = dpk_alloc(sizeof(double) * n * dhat);
			double	   *ref = dpk_alloc(sizeof(double) * n * dhat);

			dpk_projection_init(&p, d, dhat, 2000 + (uint64_t) (d * 8 + dhat), 0.75);
			for (r = 0; r < n * d; r++)
				u[r] = test_uniform();
			dpk_project_batch(&p, u, n, mine);
			project_by_dgemm(&p, u, n, ref);
			for (r = 0; r < n * dhat; r++)
			{
				double		e = fabs(mine[r] - ref[r]);

				worst = e > worst ? e : worst;
				far += e > 1e-13;
			}
			dpk_projection_free(&p);
			dpk_free(u);
			dpk_free(mine);
			dpk_free(ref);
		}
	CHECK(far == 0, "%d coordinates differ from dgemm's by more than 1e-13 (worst %g)", far, worst);
}

int
main(void)
{
	test_batch_exact();
	test_projection();
	test_project_rows();
	UNIT_DONE("test_projection");
}
