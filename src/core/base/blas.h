/*
 * blas.h
 *		The one BLAS routine the core uses (a matrix times a transposed
 *		matrix), from OpenBLAS loaded on first use.
 *
 * Linking OpenBLAS would make every process that loads dpkmeans resolve its
 * sixteen thousand symbols, a release's worker included, though only
 * projected (high-d) tables and k-means above 16 dimensions multiply
 * matrices.  So the library is opened the first time a product is asked
 * for, limited to one thread (each backend is its own process), and kept.
 */
#ifndef DPK_BLAS_H
#define DPK_BLAS_H

/*
 * C = alpha * A * B^T, row-major: A is m x k (row stride lda), B is n x k
 * (row stride ldb), C is m x n (row stride ldc).  The first call loads
 * OpenBLAS; when it cannot be loaded, fails through dpk_fail.
 */
void		dpk_dgemm_nt(int m, int n, int k, double alpha, const double *a, int lda,
						 const double *b, int ldb, double *c, int ldc);

/* Whether OpenBLAS has been loaded in this process (for tests). */
int			dpk_blas_loaded(void);

#endif
