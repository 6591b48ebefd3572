/*
 * blas.c
 *		OpenBLAS's dgemm, opened on first use (see blas.h).
 */
#include "blas.h"

#include <dlfcn.h>
#include <stdio.h>

#include "dpk_mem.h"

/* The CBLAS enumerations' values (cblas.h), fixed by the standard. */
#define DPK_CBLAS_ROW_MAJOR 101
#define DPK_CBLAS_NO_TRANS	111
#define DPK_CBLAS_TRANS		112

/* The soname of Debian's (and upstream's) OpenBLAS. */
#define DPK_OPENBLAS_SONAME "libopenblas.so.0"

typedef void (*dpk_cblas_dgemm_fn) (int order, int transa, int transb, int m, int n,
									int k, double alpha, const double *a, int lda,
									const double *b, int ldb, double beta, double *c,
									int ldc);

static dpk_cblas_dgemm_fn blas_dgemm = NULL;

/*
 * Open OpenBLAS and keep its dgemm.  One thread: the pool its loading
 * started would spin for a while in every process, so it is stopped (builds
 * without threads lack the symbol).
 */
static void
blas_load(void)
{
	void	   *lib = dlopen(DPK_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
	void		(*set_threads) (int);
	int			(*shutdown) (void);
	char		msg[512];

	if (lib == NULL)
	{
		snprintf(msg, sizeof(msg),
				 "could not load OpenBLAS (%s): %s; install the libopenblas0 package",
				 DPK_OPENBLAS_SONAME, dlerror());
		dpk_fail(msg);
	}
	*(void **) (&set_threads) = dlsym(lib, "openblas_set_num_threads");
	*(void **) (&shutdown) = dlsym(lib, "blas_thread_shutdown_");
	*(void **) (&blas_dgemm) = dlsym(lib, "cblas_dgemm");
	if (blas_dgemm == NULL)
		dpk_fail("OpenBLAS has no cblas_dgemm");
	if (set_threads)
		set_threads(1);
	if (shutdown)
		shutdown();
}

/* C = alpha A B^T (see blas.h). */
void
dpk_dgemm_nt(int m, int n, int k, double alpha, const double *a, int lda,
			 const double *b, int ldb, double *c, int ldc)
{
	if (blas_dgemm == NULL)
		blas_load();
	blas_dgemm(DPK_CBLAS_ROW_MAJOR, DPK_CBLAS_NO_TRANS, DPK_CBLAS_TRANS, m, n, k, alpha,
			   a, lda, b, ldb, 0.0, c, ldc);
}

/* Whether OpenBLAS is loaded (see blas.h). */
int
dpk_blas_loaded(void)
{
	return blas_dgemm != NULL;
}
