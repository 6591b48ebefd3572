/*
 * dpk_mem.h
 *		Allocation and interrupt hooks shared by the plain-C core.
 *
 * The math files never include PostgreSQL headers.  Inside a backend the glue
 * points these hooks at palloc/pfree, CHECK_FOR_INTERRUPTS and ereport, so an error
 * raised mid-computation releases memory with its memory context; in the unit
 * tests they default to malloc/free and a no-op.
 */
#ifndef DPK_MEM_H
#define DPK_MEM_H

#include <stddef.h>

typedef void *(*dpk_alloc_fn) (size_t size);
typedef void (*dpk_free_fn) (void *ptr);
typedef void (*dpk_interrupt_fn) (void);
typedef void (*dpk_fail_fn) (const char *what);

extern dpk_alloc_fn dpk_alloc_hook;
extern dpk_free_fn dpk_free_hook;
extern dpk_interrupt_fn dpk_interrupt_hook;
extern dpk_fail_fn dpk_fail_hook;

/* Allocate size bytes (never returns NULL: the hook aborts or raises). */
void	   *dpk_alloc(size_t size);

/* Allocate size bytes set to zero. */
void	   *dpk_alloc0(size_t size);

/* Release memory from dpk_alloc; NULL is allowed. */
void		dpk_free(void *ptr);

/*
 * Stop a computation that cannot go on safely (e.g. a noise scale that has no
 * exact representation): the backend raises an ERROR, the unit tests' default
 * aborts.  Never returns.
 */
void		dpk_fail(const char *what) __attribute__((noreturn));

/*
 * Core assertions: invariants that no input can break, checked where the
 * build defines DPK_ASSERTIONS (the unit tests, the privacy test and the
 * benchmarks do; the extension does not), failing through dpk_fail.
 */
#ifdef DPK_ASSERTIONS
#define DPK_ASSERT(cond) \
	do { \
		if (!(cond)) \
			dpk_fail("assertion failed: " #cond " (" __FILE__ ")"); \
	} while (0)
#else
#define DPK_ASSERT(cond) ((void) 0)
#endif

/* Give the host a chance to cancel a long loop. */
static inline void
dpk_check_interrupts(void)
{
	if (dpk_interrupt_hook)
		dpk_interrupt_hook();
}

#endif
