/*
 * projection.h
 *		Data-independent random projections R^d -> R^dhat.
 *
 * A point x of the box is first normalized to u in [0,1]^d
 * (dpk_box_normalize: +-Inf and outside values clamped).  Copy r projects the
 * centred point v = u - 1/2 with a matrix P_r (dhat x d) drawn from a public
 * seed: Gaussian entries, rows orthonormalised (so ||P_r v|| <= ||v|| and the
 * image of uniform data has the same spread 1/sqrt(12) on every axis).  The
 * projected box is the fixed public cube [-w, w]^dhat, w = half_width (the
 * rows have unit norm, so w is in units of the row norm); images outside it
 * are clamped onto its faces, which is data-independent.  Projected
 * normalized coordinates are t = (P_r v + w) / (2 w) in [0,1]^dhat.
 *
 * The dimension reduction is that of "Differential Privacy for Clustering
 * Under Continual Observation" (doc/design.md, section "High dimensions").
 * Everything here is plain C on dpk_alloc; no PostgreSQL headers.
 */
#ifndef DPK_PROJECTION_H
#define DPK_PROJECTION_H

#include <stddef.h>
#include <stdint.h>

#include "grid.h"

/* Rows normalized and projected per chunk (bounds the scratch memory). */
#define DPK_PROJ_CHUNK 4096

/*
 * Up to this dimension dpk_project_batch computes its dot products itself
 * (doc/decisions/030-exact-speedups.md): with FMA the first product rounded
 * and then one fused multiply-add per further coordinate in index order,
 * without FMA products and sums rounded one by one.  That is the order of
 * OpenBLAS's Haswell kernel on the CPUs it was taken from; other CPUs'
 * kernels sum otherwise (on some, in an order that depends on the batch's
 * size), so the images equal dgemm's within rounding, and the chain is the
 * same whatever the CPU's BLAS.  test_projection checks both.
 */
#define DPK_PROJ_EXACT_MAX_D 16

/* One data-independent projection R^d -> R^d_hat. */
/*
 * Default half-width of the projected box: projected unit-cube points rarely
 * fall beyond it, and wider cubes waste cells (doc/decisions/009-projected-dims-copies-level.md).
 */
#define DPK_PROJ_HALF_WIDTH 0.75

typedef struct DpkProjection
{
	int			d;
	int			dhat;
	uint64_t	seed;			/* public */
	double		half_width;		/* projected box [-w, w]^dhat */
	double	   *mat;			/* dhat * d, row-major, orthonormal rows */
	double	   *cols;			/* d * dhat: mat transposed (dpk_project_rows) */
	double	   *offset;			/* dhat: P (1/2, ..., 1/2), to centre u */
} DpkProjection;

/*
 * Draw the projection of seed: Gaussian entries from a plain seeded
 * generator (the seed is public), rows orthonormalised by modified
 * Gram-Schmidt when dhat <= d (else only normalised).  Deterministic in
 * (d, dhat, seed); never looks at data.
 */
void		dpk_projection_init(DpkProjection *p, int d, int dhat, uint64_t seed,
								double half_width);

/* Free a projection's arrays. */
void		dpk_projection_free(DpkProjection *p);

/*
 * The public seed of copy r of a pipeline whose projection seed is `seed`
 * (copies get unrelated matrices).
 */
uint64_t	dpk_projection_copy_seed(uint64_t seed, int r);

/*
 * Project a batch of normalized points: u is n * d in [0,1], t receives
 * n * dhat projected normalized coordinates in [0,1] (clamped onto the
 * projected box).  Above 16 dimensions one dgemm (n x d times d x dhat,
 * blas.h) per chunk of rows; up to 16 the products computed here without
 * BLAS, in a fixed order (within rounding of dgemm's).  u is used in place
 * (the centring is folded into an offset).
 */
void		dpk_project_batch(const DpkProjection *p, const double *u, size_t n,
							  double *t);

/*
 * The same images as dpk_project_batch up to rounding, but a row's image is
 * bit for bit the same whatever batch it comes in and wherever it sits in it
 * (a fixed-order dot product per coordinate; above 16 dimensions dgemm's
 * kernels sum in an order that depends on the batch's size and the row's
 * place).  Live captures use
 * it: a row's insertion and its deletion, projected in different statements,
 * must land in the same cell, or the row would touch more tree nodes than
 * the sensitivity counts and dp_verify would see drift.
 */
void		dpk_project_rows(const DpkProjection *p, const double *u, size_t n,
							 double *t);

/*
 * Normalize raw points x (n * d, NaN-free, +-Inf allowed) in the box and
 * project them: t as in dpk_project_batch.  Works through a bounded scratch.
 */
void		dpk_project_points(const DpkProjection *p, const DpkBox *box,
							   const double *x, size_t n, double *t);

/*
 * Map projected normalized coordinates t (dhat) back to a normalized point
 * of the original space by the pseudo-inverse: u = 1/2 + P^T (2 w t - w),
 * clamped into [0,1].  Used where a cluster has no mass to lift.
 */
void		dpk_project_back(const DpkProjection *p, const double *t, double *u);

#endif
