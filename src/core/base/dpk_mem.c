/*
 * dpk_mem.c
 *		Default allocation hooks of the plain-C core (malloc/free).
 */
#include "dpk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Default allocator: malloc, aborting on exhaustion (unit tests only). */
static void *
dpk_default_alloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
	{
		fprintf(stderr, "dpkmeans: out of memory allocating %zu bytes\n", size);
		abort();
	}
	return p;
}

dpk_alloc_fn dpk_alloc_hook = dpk_default_alloc;
dpk_free_fn dpk_free_hook = free;
dpk_interrupt_fn dpk_interrupt_hook = NULL;
dpk_fail_fn dpk_fail_hook = NULL;

/* Allocate through the current hook. */
void *
dpk_alloc(size_t size)
{
	return dpk_alloc_hook(size);
}

/* Allocate zeroed memory through the current hook. */
void *
dpk_alloc0(size_t size)
{
	void	   *p = dpk_alloc_hook(size);

	memset(p, 0, size);
	return p;
}

/* Free through the current hook. */
void
dpk_free(void *ptr)
{
	if (ptr)
		dpk_free_hook(ptr);
}

/* Report through the hook; without one (unit tests), print and abort. */
void
dpk_fail(const char *what)
{
	if (dpk_fail_hook)
		dpk_fail_hook(what);
	fprintf(stderr, "dpkmeans: %s\n", what);
	abort();
}
