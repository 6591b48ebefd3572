/*
 * prng.h
 *		A plain seeded generator (xoshiro256** expanded by splitmix64).
 *
 * Only for what is public or post-processing: k-means++ seeding on noisy
 * coresets and projection matrices drawn from a public seed.  Noise on data
 * never comes from here (see noise.h).
 */
#ifndef DPK_PRNG_H
#define DPK_PRNG_H

#include <stdint.h>

typedef struct DpkPrng
{
	uint64_t	s[4];
} DpkPrng;

/* One splitmix64 step: advances *state and returns a well-mixed word. */
static inline uint64_t
dpk_splitmix64(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Expand a splitmix64 state into a generator (never the all-zero state). */
static inline void
dpk_prng_seed(DpkPrng *r, uint64_t splitmix_state)
{
	int			i;

	for (i = 0; i < 4; i++)
		r->s[i] = dpk_splitmix64(&splitmix_state);
	if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
		r->s[0] = 1;
}

/* Rotate left. */
static inline uint64_t
dpk_prng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Next 64-bit output of xoshiro256**. */
static inline uint64_t
dpk_prng_next(DpkPrng *r)
{
	uint64_t   *s = r->s;
	uint64_t	result = dpk_prng_rotl(s[1] * 5, 7) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = dpk_prng_rotl(s[3], 45);
	return result;
}

/* 53 random bits as a double in [0, 2^53). */
static inline double
dpk_prng_bits53(DpkPrng *r)
{
	return (double) (dpk_prng_next(r) >> 11);
}

#endif
