/*
 * noise.h
 *		Cryptographic random stream and exact discrete Laplace noise.
 *
 * The stream is ChaCha20 from libcrypto (EVP).  A stream is identified by a
 * 32-byte key and a 12-byte nonce; the same (key, nonce) always yields the same
 * bytes, which is what lets a continual counter re-derive the noise of a tree
 * node instead of storing it (doc/design.md, section "Continual counters").
 *
 * The discrete Laplace sampler follows Canonne, Kamath and Steinke (2020),
 * "The Discrete Gaussian for Differential Privacy", Algorithms 1-2: only
 * integer arithmetic and uniform integers drawn by rejection, never a
 * floating-point inversion (Mironov 2012).
 */
#ifndef DPK_NOISE_H
#define DPK_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DPK_KEY_BYTES	32
#define DPK_NONCE_BYTES 12
/*
 * Keystream computed ahead: DPK_STREAM_FIRST bytes after the stream is
 * (re)positioned, where a low-d counter's node reads a few dozen words, then
 * twice the last refill each time, up to DPK_STREAM_BUF (fewer calls into
 * libcrypto for a 384-d node's thousands of words).  The bytes read are the
 * keystream in order whatever the sizes.
 */
#define DPK_STREAM_BUF	4096
#define DPK_STREAM_FIRST 256

/*
 * Version of the noise draws: which bytes of the stream become which noise.
 * Stored per live table at attach; a release refuses a table whose draws
 * would differ from the ones its earlier releases used.  1: scales with a
 * fixed denominator 2^20 (capped, which could round a huge scale down);
 * 2: adaptive denominators (dpk_scale_from_double), equal to 1 wherever 1
 * was exact.
 */
#define DPK_SAMPLER_VERSION 2

typedef struct DpkStream
{
	void	   *ctx;			/* EVP_CIPHER_CTX * */
	uint8_t		buf[DPK_STREAM_BUF];
	size_t		pos;			/* next unread byte of buf */
	size_t		fill;			/* bytes of buf computed (0: none since positioned) */
} DpkStream;

/*
 * A noise scale b = num/den > 0, kept as a rational so the sampler stays exact.
 * P[X = x] is proportional to exp(-|x| / b).
 */
typedef struct DpkScale
{
	uint64_t	num;
	uint64_t	den;
} DpkScale;

/* Open a stream on (key, nonce).  Returns false if libcrypto fails. */
bool		dpk_stream_open(DpkStream *s, const uint8_t key[DPK_KEY_BYTES],
							const uint8_t nonce[DPK_NONCE_BYTES]);

/* Re-position an open stream at the start of another nonce (same key). */
bool		dpk_stream_reseed(DpkStream *s, const uint8_t key[DPK_KEY_BYTES],
							  const uint8_t nonce[DPK_NONCE_BYTES]);

/* Release the libcrypto context; safe on a stream never opened or closed twice. */
void		dpk_stream_close(DpkStream *s);

/* Derive a 32-byte key from a 64-bit seed (unit tests and benchmarks only). */
void		dpk_key_from_seed(uint64_t seed, uint8_t key[DPK_KEY_BYTES]);

/* Copy n pseudo-random bytes out of the stream. */
void		dpk_stream_bytes(DpkStream *s, void *out, size_t n);

/* A uniform 64-bit word. */
uint64_t	dpk_stream_u64(DpkStream *s);

/*
 * x mod n, n >= 1, as the samplers compute it (without a hardware division
 * where a cheaper exact way exists); for tests.
 */
uint64_t	dpk_noise_mod(uint64_t x, uint64_t n);

/* A uniform integer in [0, n), n >= 1, by rejection (no modulo bias). */
uint64_t	dpk_uniform(DpkStream *s, uint64_t n);

/* Exact Bernoulli(num/den), 0 <= num <= den, den >= 1. */
bool		dpk_bernoulli(DpkStream *s, uint64_t num, uint64_t den);

/* Exact Bernoulli(exp(-num/den)), num >= 0, den >= 1 (CKS Algorithm 1). */
bool		dpk_bernoulli_exp(DpkStream *s, uint64_t num, uint64_t den);

/* Exact geometric, P[Y = y] proportional to exp(-y den/num), y >= 0. */
int64_t		dpk_geometric(DpkStream *s, DpkScale scale);

/* Exact discrete Laplace with scale num/den (CKS Algorithm 2). */
int64_t		dpk_discrete_laplace(DpkStream *s, DpkScale scale);

/*
 * Noise for a d-vector sum whose change per event is at most Delta in every
 * coordinate, with scale b = Delta / epsilon (an l-infinity scale):
 * P[z] proportional to exp(-||z||_inf / b) on Z^d when b >= d / 4 (exact
 * cube sampler), else discrete Laplace of scale d b on each coordinate.
 * Adds sign * z to out[0..d-1].
 */
void		dpk_vector_noise(DpkStream *s, DpkScale scale, int d, int sign, int64_t *out);

/* Whether dpk_vector_noise uses the cube sampler for this scale and d. */
bool		dpk_cube_noise_usable(DpkScale scale, int d);

/* The per-coordinate Laplace scale of dpk_vector_noise's fallback (d b). */
DpkScale	dpk_vector_l1_scale(DpkScale scale, int d);

/* Variance of one coordinate of dpk_vector_noise. */
double		dpk_vector_noise_variance(DpkScale scale, int d);

/*
 * The rational scale used for a real scale b > 0: den is a power of two (2^20
 * unless b is huge) and num is rounded UP, so the noise is never smaller than
 * asked for.  A b without representation calls dpk_fail (never returns).
 */
DpkScale	dpk_scale_from_double(double b);

/* Whether b is finite, > 0 and below 2^62, so dpk_scale_from_double takes it. */
bool		dpk_scale_representable(double b);

/* Whether b gets the same rational under sampler versions 1 and 2. */
bool		dpk_scale_same_in_v1(double b);

/* The real value num/den of a scale. */
double		dpk_scale_value(DpkScale scale);

/* Variance of the discrete Laplace with this scale: 2 e^{-1/b} / (1 - e^{-1/b})^2. */
double		dpk_discrete_laplace_variance(DpkScale scale);

/* P[X = x] of the discrete Laplace with this scale (for tests and reports). */
double		dpk_discrete_laplace_pmf(DpkScale scale, int64_t x);

#endif
