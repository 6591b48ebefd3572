/*
 * unit.h
 *		A minimal test harness for the plain-C core.
 *
 * Each CHECK counts one assertion; a test program ends with UNIT_DONE(), which
 * prints "<program>: N passed, M failed" and exits non-zero on any failure.
 */
#ifndef DPK_UNIT_H
#define DPK_UNIT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int	unit_passed = 0;
static int	unit_failed = 0;

#define CHECK(cond, ...) \
	do { \
		if (cond) \
			unit_passed++; \
		else \
		{ \
			unit_failed++; \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
		} \
	} while (0)

/* Test data (not privacy noise): the next xorshift64 uniform in [0, 1). */
static inline double
unit_uniform(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (double) (*state >> 11) * (1.0 / 9007199254740992.0);
}

/* Test data: a standard normal by Box-Muller on unit_uniform. */
static inline double
unit_normal(uint64_t *state)
{
	double		u1 = unit_uniform(state) + 1e-300;
	double		u2 = unit_uniform(state);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

#define UNIT_DONE(name) \
	do { \
		printf("%s: %d passed, %d failed\n", (name), unit_passed, unit_failed); \
		return unit_failed ? 1 : 0; \
	} while (0)

#endif
