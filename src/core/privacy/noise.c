/*
 * noise.c
 *		ChaCha20 random stream and exact discrete Laplace sampling.
 *
 * The stream encrypts zero bytes with ChaCha20 (OpenSSL 3 EVP), so its output
 * is the raw keystream of (key, nonce): reproducible, and indistinguishable
 * from uniform without the key.  Everything above the stream uses integer
 * arithmetic only, following Canonne, Kamath and Steinke (2020), "The Discrete
 * Gaussian for Differential Privacy" (CKS), Algorithms 1 and 2.  No
 * floating-point value ever decides a sample, so the noise has exactly the
 * distribution the privacy proof assumes (cf. Mironov 2012 on the attack
 * against floating-point Laplace).  The double-valued helpers at the end are
 * for reporting and tests only.
 */
#include "noise.h"

#include "dpk_mem.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#define likely_(x) __builtin_expect(!!(x), 1)
#define unlikely_(x) __builtin_expect(!!(x), 0)

/*
 * Largest denominator of a scale made by dpk_scale_from_double, as a power of
 * two (which keeps b * den exact in double arithmetic); 2^-20 is far below
 * any scale a caller will ask for, so rounding up costs nothing measurable.
 */
#define DPK_SCALE_DEN_BITS 20

/* Largest numerator dpk_scale_from_double returns (keeps U + t*V small). */
#define DPK_SCALE_NUM_MAX	(((uint64_t) 1 << 62) - 1)

/* Numerators must stay below this (2^62, exact as a double). */
#define DPK_SCALE_LIMIT		4611686018427387904.0

/* Domain separation string of dpk_key_from_seed. */
#define DPK_SEED_DOMAIN "dpkmeans/noise/key-from-seed/v1"

/* Plaintext the keystream is obtained from: ChaCha20(0) = keystream. */
static const uint8_t dpk_zero_block[DPK_STREAM_BUF];

/*
 * A libcrypto failure after a stream was opened successfully.  There is no
 * safe way to continue: returning predictable bytes would silently remove the
 * noise, so stop instead.  ChaCha20 on an initialised context cannot fail in
 * practice, so this is not expected to be reached.
 */
static void
dpk_noise_fatal(const char *what)
{
	fprintf(stderr, "dpkmeans: libcrypto failure in %s\n", what);
	abort();
}

/*
 * Build the 16-byte EVP ChaCha20 IV: a 32-bit little-endian block counter
 * (always 0, so every stream starts at the beginning of its keystream)
 * followed by the 96-bit nonce, as in RFC 8439.
 */
static void
dpk_make_iv(const uint8_t nonce[DPK_NONCE_BYTES], uint8_t iv[16])
{
	memset(iv, 0, 4);
	memcpy(iv + 4, nonce, DPK_NONCE_BYTES);
}

/*
 * Open a stream on (key, nonce).  The buffer starts empty, so the first read
 * produces the first keystream block.  s must not be open already (that
 * context would leak; use dpk_stream_reseed).  On failure s->ctx is left NULL,
 * which makes dpk_stream_close safe to call either way.
 */
bool
dpk_stream_open(DpkStream *s, const uint8_t key[DPK_KEY_BYTES],
				const uint8_t nonce[DPK_NONCE_BYTES])
{
	EVP_CIPHER_CTX *ctx;
	uint8_t		iv[16];

	s->ctx = NULL;
	s->pos = s->fill = 0;

	ctx = EVP_CIPHER_CTX_new();
	if (ctx == NULL)
		return false;

	dpk_make_iv(nonce, iv);
	if (EVP_EncryptInit_ex(ctx, EVP_chacha20(), NULL, key, iv) != 1)
	{
		EVP_CIPHER_CTX_free(ctx);
		return false;
	}

	s->ctx = ctx;
	return true;
}

/*
 * Restart an open stream at the beginning of the keystream of (key, nonce),
 * reusing its libcrypto context (cheaper than close + open when a counter
 * re-derives the noise of many tree nodes).  Buffered bytes of the previous
 * keystream are discarded.  A stream that is not open is simply opened.
 */
bool
dpk_stream_reseed(DpkStream *s, const uint8_t key[DPK_KEY_BYTES],
				  const uint8_t nonce[DPK_NONCE_BYTES])
{
	uint8_t		iv[16];

	if (s->ctx == NULL)
		return dpk_stream_open(s, key, nonce);

	/* bytes read were wiped as they were read */
	OPENSSL_cleanse(s->buf + s->pos, s->fill - s->pos);
	s->pos = s->fill = 0;

	dpk_make_iv(nonce, iv);
	if (EVP_EncryptInit_ex((EVP_CIPHER_CTX *) s->ctx, NULL, NULL, key, iv) != 1)
	{
		dpk_stream_close(s);
		return false;
	}
	return true;
}

/*
 * Free the libcrypto context and wipe buffered keystream.  Idempotent; a
 * stream that was never opened must have been zero-initialised.
 */
void
dpk_stream_close(DpkStream *s)
{
	if (s->ctx != NULL)
	{
		EVP_CIPHER_CTX_free((EVP_CIPHER_CTX *) s->ctx);
		s->ctx = NULL;
	}
	OPENSSL_cleanse(s->buf, sizeof(s->buf));
	s->pos = s->fill = 0;
}

/*
 * Derive a key deterministically from a 64-bit seed:
 * SHA-256(domain string || seed as 8 little-endian bytes).  Meant for unit
 * tests and benchmarks, where a reproducible key is wanted; a real key must
 * come from a cryptographic source.
 */
void
dpk_key_from_seed(uint64_t seed, uint8_t key[DPK_KEY_BYTES])
{
	uint8_t		msg[sizeof(DPK_SEED_DOMAIN) - 1 + 8];
	unsigned int len = 0;
	int			i;

	memcpy(msg, DPK_SEED_DOMAIN, sizeof(DPK_SEED_DOMAIN) - 1);
	for (i = 0; i < 8; i++)
		msg[sizeof(DPK_SEED_DOMAIN) - 1 + i] = (uint8_t) (seed >> (8 * i));

	if (EVP_Digest(msg, sizeof(msg), key, &len, EVP_sha256(), NULL) != 1 ||
		len != DPK_KEY_BYTES)
		dpk_noise_fatal("dpk_key_from_seed");
}

/*
 * Refill the buffer with the next bytes of keystream: DPK_STREAM_FIRST
 * after the stream was positioned, then twice the last refill, up to
 * DPK_STREAM_BUF.
 */
static void
dpk_stream_refill(DpkStream *s)
{
	int			outl = 0,
				len = s->fill == 0 ? DPK_STREAM_FIRST
		: s->fill >= DPK_STREAM_BUF / 2 ? DPK_STREAM_BUF : 2 * (int) s->fill;

	if (s->ctx == NULL)
		dpk_noise_fatal("dpk_stream_refill (stream not open)");
	if (EVP_EncryptUpdate((EVP_CIPHER_CTX *) s->ctx, s->buf, &outl,
						  dpk_zero_block, len) != 1 ||
		outl != len)
		dpk_noise_fatal("dpk_stream_refill");
	s->pos = 0;
	s->fill = (size_t) len;
}

/*
 * Copy the next n keystream bytes to out.  Consumed bytes are wiped from the
 * buffer so that they do not linger in memory.
 */
void
dpk_stream_bytes(DpkStream *s, void *out, size_t n)
{
	uint8_t    *dst = (uint8_t *) out;

	while (n > 0)
	{
		size_t		avail;
		size_t		take;

		if (s->pos >= s->fill)
			dpk_stream_refill(s);
		avail = s->fill - s->pos;
		take = n < avail ? n : avail;
		memcpy(dst, s->buf + s->pos, take);
		memset(s->buf + s->pos, 0, take);
		s->pos += take;
		dst += take;
		n -= take;
	}
}

/*
 * A uniform 64-bit word: the next 8 keystream bytes read little-endian, so the
 * value does not depend on the host byte order.  Inlined into the samplers
 * below (dpk_stream_u64 is its exported form).
 */
static inline uint64_t
stream_u64(DpkStream *s)
{
	uint8_t		b[8];
	const uint8_t *p = b;
	uint64_t	v = 0;

	/*
	 * Most words lie whole in the buffer: read and wipe them in place with
	 * fixed-size accesses (a variable-size copy costs more than the cipher).
	 */
	if (likely_(s->pos + sizeof(b) <= s->fill))
		p = s->buf + s->pos;
	else
		dpk_stream_bytes(s, b, sizeof(b));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&v, p, sizeof(v));
#else
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
#endif
	if (p != b)
	{
		memset(s->buf + s->pos, 0, sizeof(b));
		s->pos += sizeof(b);
	}
	return v;
}

/* A uniform 64-bit word (see noise.h). */
uint64_t
dpk_stream_u64(DpkStream *s)
{
	return stream_u64(s);
}

/*
 * x mod n, n >= 1: a mask for a power of two and the compiler's
 * multiplications for the small divisors Bernoulli(1/k) draws most, the
 * hardware's division otherwise.  The same integer in every case.
 */
static inline uint64_t
mod_u64(uint64_t x, uint64_t n)
{
	if ((n & (n - 1)) == 0)
		return x & (n - 1);
	switch (n)
	{
		case 3:
			return x % 3;
		case 5:
			return x % 5;
		case 6:
			return x % 6;
		case 7:
			return x % 7;
		default:
			return x % n;
	}
}

/* x mod n for tests: the remainder the samplers use (see noise.h). */
uint64_t
dpk_noise_mod(uint64_t x, uint64_t n)
{
	return mod_u64(x, n);
}

/*
 * A uniform integer in [0, n) by rejection on 64-bit words: words below
 * 2^64 mod n are redrawn, leaving a range whose size is a multiple of n, so
 * the reduction x mod n is exactly uniform (no modulo bias).  The rejection
 * probability is below n / 2^64.  n == 1 returns 0 without reading the
 * stream; n == 0 is a caller error and also returns 0.
 */
static inline uint64_t
uniform_below(DpkStream *s, uint64_t n)
{
	uint64_t	threshold;
	uint64_t	x;

	if (n <= 1)
		return 0;

	/*
	 * 2^64 mod n is below n, so a word of at least n is never rejected and
	 * the threshold (a division) is needed only for the rare smaller one.
	 */
	do
	{
		x = stream_u64(s);
		threshold = unlikely_(x < n) ? (0 - n) % n : 0;	/* 2^64 mod n */
	} while (x < threshold);
	return mod_u64(x, n);
}

/* A uniform integer in [0, n) (see noise.h). */
uint64_t
dpk_uniform(DpkStream *s, uint64_t n)
{
	return uniform_below(s, n);
}

/* Exact Bernoulli(num/den): true iff a uniform draw from [0, den) is < num. */
static inline bool
bernoulli(DpkStream *s, uint64_t num, uint64_t den)
{
	if (num == 0)
		return false;
	if (num >= den)
		return true;
	return uniform_below(s, den) < num;
}

/* Exact Bernoulli(num/den) (see noise.h). */
bool
dpk_bernoulli(DpkStream *s, uint64_t num, uint64_t den)
{
	return bernoulli(s, num, den);
}

/*
 * Bernoulli(exp(-gamma)) for gamma = num/den in [0, 1], CKS Algorithm 1:
 * draw A_k ~ Bernoulli(gamma/k) for k = 1, 2, ... until the first failure at
 * k = K; then P[K odd] = exp(-gamma).  When den * k would overflow 64 bits,
 * Bernoulli(gamma/k) is drawn as Bernoulli(gamma) AND Bernoulli(1/k), which is
 * exact because the two draws are independent.
 */
static bool
bernoulli_exp_unit(DpkStream *s, uint64_t num, uint64_t den)
{
	uint64_t	k = 1;

	for (;;)
	{
		bool		a;
		uint64_t	dk;

		/* den * k fits exactly when den <= UINT64_MAX / k */
		if (!__builtin_mul_overflow(den, k, &dk))
			a = bernoulli(s, num, dk);
		else
			a = bernoulli(s, num, den) && bernoulli(s, 1, k);
		if (!a)
			break;
		k++;
	}
	return (k & 1) != 0;
}

/*
 * bernoulli_exp_unit(s, 1, 1), Bernoulli(exp(-1)), drawn for the whole part
 * of gamma and by the geometric: A_1 = Bernoulli(1) needs no draw, then A_k =
 * Bernoulli(1/k) for k = 2, 3, ... is a uniform draw from [0, k) being 0,
 * until the first failure at K; true iff K is odd.  The same draws.
 */
static inline bool
bernoulli_exp_one(DpkStream *s)
{
	uint64_t	k = 2;

	while (uniform_below(s, k) == 0)
		k++;
	return (k & 1) != 0;
}

/*
 * Exact Bernoulli(exp(-num/den)) for any num >= 0, den >= 1, CKS Algorithm 1.
 * For gamma > 1 it uses exp(-gamma) = exp(-1)^floor(gamma) * exp(-frac(gamma))
 * with independent draws, stopping at the first failure, so the expected
 * number of exp(-1) draws is below 1 / (1 - e^-1) whatever gamma is.
 */
static inline bool
bernoulli_exp(DpkStream *s, uint64_t num, uint64_t den)
{
	uint64_t	whole;
	uint64_t	i;

	if (den == 0)
		return false;			/* caller error: treat gamma as infinite */
	if (num == 0)
		return true;
	if (num <= den)
		return bernoulli_exp_unit(s, num, den);

	whole = num / den;
	for (i = 0; i < whole; i++)
	{
		if (!bernoulli_exp_one(s))
			return false;
	}
	return bernoulli_exp_unit(s, num % den, den);
}

/* Exact Bernoulli(exp(-num/den)) (see noise.h). */
bool
dpk_bernoulli_exp(DpkStream *s, uint64_t num, uint64_t den)
{
	return bernoulli_exp(s, num, den);
}

/*
 * Exact geometric, P[Y = y] proportional to exp(-y * den / num), y >= 0:
 * the first half of CKS Algorithm 2.  In the paper's notation the scale is
 * t/s, so here t = scale.num and s = scale.den:
 *
 *	 U ~ Uniform{0..t-1}, accepted with probability exp(-U/t); V ~ Geometric
 *	 with P[V = v] proportional to exp(-v); then X = U + t*V has
 *	 P[X = x] proportional to exp(-x/t), and Y = floor(X/s) has
 *	 P[Y = y] proportional to exp(-y*s/t).
 *
 * X is computed in 128 bits; a Y beyond the int64 range (requires V above
 * about 2^21 for a scale with den <= 2^20 whose num fits 62 bits, probability
 * exp(-2^21)) is rejected rather than wrapped.  The expected number of
 * rounds is about 1 / (1 - e^-1) for large t.  A power-of-two s (every
 * scale of dpk_scale_from_double) divides by a shift.
 */
static inline int64_t
geometric(DpkStream *s, DpkScale scale)
{
	uint64_t	t = scale.num;
	uint64_t	sd = scale.den;
	int			shift = sd != 0 && (sd & (sd - 1)) == 0 ? __builtin_ctzll(sd) : -1;

	if (t == 0 || sd == 0)
		return 0;				/* caller error: no valid scale */

	for (;;)
	{
		uint64_t	u;
		uint64_t	v = 0;
		unsigned __int128 x;
		unsigned __int128 y;

		dpk_check_interrupts();

		u = uniform_below(s, t);
		if (!bernoulli_exp(s, u, t))
			continue;

		while (bernoulli_exp_one(s))
			v++;

		x = (unsigned __int128) u + (unsigned __int128) t * v;
		y = shift >= 0 ? x >> shift : x / sd;
		if (y > (unsigned __int128) INT64_MAX)
			continue;
		return (int64_t) y;
	}
}

/* Exact geometric (see noise.h). */
int64_t
dpk_geometric(DpkStream *s, DpkScale scale)
{
	return geometric(s, scale);
}

/*
 * Exact discrete Laplace, P[Y = y] proportional to exp(-|y| * den / num),
 * CKS Algorithm 2: a geometric magnitude with a fair sign, (negative, 0)
 * rejected so that zero is not counted twice.
 */
int64_t
dpk_discrete_laplace(DpkStream *s, DpkScale scale)
{
	if (scale.num == 0 || scale.den == 0)
		return 0;				/* caller error: no valid scale */

	for (;;)
	{
		int64_t		y = geometric(s, scale);
		bool		negative = bernoulli(s, 1, 2);

		if (negative && y == 0)
			continue;
		return negative ? -y : y;
	}
}

/* The cube sampler needs b >= d / 4 to accept often (see dpk_vector_noise). */
bool
dpk_cube_noise_usable(DpkScale scale, int d)
{
	return d >= 1 && 4.0 * dpk_scale_value(scale) >= (double) d;
}

/*
 * Exact discrete cube noise (the l-infinity K-norm mechanism of Hardt and
 * Talwar on Z^d): P[z] proportional to q^||z||_inf, q = exp(-1/b).
 *
 * Since q^s = (1 - q) sum_{r >= s} q^r, that law is a mixture over r of the
 * uniform law on the cube {||z||_inf <= r}, with weights proportional to
 * (2r + 1)^d q^r.  The radius R is drawn by rejection from the negative
 * binomial NB(d + 1, q) (a sum of d + 1 exact geometrics, weights
 * C(r + d, d) q^r): the ratio of the two weights, d! prod_i (2r + 1)/(r + i),
 * increases to its supremum 2^d d!, so R = r is accepted with probability
 * prod_{i=1..d} (2r + 1) / (2r + 2i), one exact Bernoulli per factor.  Then
 * each coordinate is uniform on {-R, .., R}.  Acceptance is about
 * exp(-d / (2b)), hence the usability bound b >= d / 4.
 */
static void
cube_noise(DpkStream *s, DpkScale scale, int d, int sign, int64_t *out)
{
	uint64_t	r;
	int			i;

	for (;;)
	{
		bool		accept = true;

		dpk_check_interrupts();
		r = 0;
		for (i = 0; i <= d && accept; i++)
		{
			int64_t		g = geometric(s, scale);

			if ((uint64_t) g > ((uint64_t) 1 << 60) - r)
				accept = false; /* beyond any practical scale: draw again */
			else
				r += (uint64_t) g;
		}
		for (i = 1; i <= d && accept; i++)
			accept = bernoulli(s, 2 * r + 1, 2 * r + 2 * (uint64_t) i);
		if (accept)
			break;
	}
	for (i = 0; i < d; i++)
		out[i] += sign * ((int64_t) uniform_below(s, 2 * r + 1) - (int64_t) r);
}

/*
 * Noise for a d-vector whose change per event has l-infinity norm at most
 * Delta, scale = Delta / epsilon: the cube noise when it samples fast, else
 * independent discrete Laplace of scale d * b per coordinate (the l1 bound
 * d * Delta).  Either is epsilon-DP; the cube's variance per coordinate is
 * about b^2 (d + 1)(d + 2) / 3 against 2 d^2 b^2, 5-6 times smaller for
 * large d.  Adds sign * z to out[0..d-1].
 */
void
dpk_vector_noise(DpkStream *s, DpkScale scale, int d, int sign, int64_t *out)
{
	DpkScale	l1;
	int			j;

	if (dpk_cube_noise_usable(scale, d))
	{
		cube_noise(s, scale, d, sign, out);
		return;
	}
	l1 = dpk_vector_l1_scale(scale, d);
	for (j = 0; j < d; j++)
		out[j] += sign * dpk_discrete_laplace(s, l1);
}

/*
 * The per-coordinate Laplace scale d * b of the fallback, never below it:
 * num * d, or when that would overflow num / floor(den / d).
 */
DpkScale
dpk_vector_l1_scale(DpkScale scale, int d)
{
	DpkScale	l1 = scale;

	if (d <= 1)
		return l1;
	if (scale.num <= DPK_SCALE_NUM_MAX / (uint64_t) d)
		l1.num = scale.num * (uint64_t) d;
	else if (scale.den >= (uint64_t) d)
		l1.den = scale.den / (uint64_t) d;
	else
	{
		/* den < d and num * d overflows: only for b above 2^62 / d, far beyond
		 * the small scales (b < d / 4) that take this fallback */
		l1.num = DPK_SCALE_NUM_MAX;
		l1.den = 1;
	}
	return l1;
}

/*
 * Per-coordinate variance of dpk_vector_noise.  Cube: E[R (R + 1)] / 3 with
 * R + 1/2 close to a Gamma(d + 1, b) variable for the scales it is used at,
 * so (b^2 (d + 1)(d + 2) - 1/4) / 3; Laplace: its exact variance.
 */
double
dpk_vector_noise_variance(DpkScale scale, int d)
{
	double		b = dpk_scale_value(scale);

	if (dpk_cube_noise_usable(scale, d))
		return fmax(0.0, (b * b * (d + 1.0) * (d + 2.0) - 0.25) / 3.0);
	return dpk_discrete_laplace_variance(dpk_vector_l1_scale(scale, d));
}

/*
 * The rational scale used for a real scale b (sampler version 2): the
 * largest power-of-two denominator den <= 2^20 for which num = ceil(b den)
 * is at most DPK_SCALE_NUM_MAX, so num/den >= b and exceeds it by less than
 * 1/den.  b den is exact in double arithmetic (den is a power of two), so the
 * rounding is only the ceil.  Every b with b 2^20 < 2^62 (about 4.4e12) gets
 * den = 2^20, exactly as sampler version 1 did; larger b used to be capped at
 * 4.4e12, i.e. rounded DOWN, which broke the guarantee.  A b that has no
 * representation at all (not finite, <= 0, or >= 2^62) stops the computation
 * through dpk_fail: less noise than asked for is never an option.
 */
DpkScale
dpk_scale_from_double(double b)
{
	DpkScale	scale;
	int			k;

	if (!dpk_scale_representable(b))
		dpk_fail("a noise scale has no exact representation (epsilon too small for this configuration)");
	for (k = DPK_SCALE_DEN_BITS; k >= 0; k--)
	{
		double		x = ceil(ldexp(b, k));

		if (x < DPK_SCALE_LIMIT)
		{
			scale.num = x < 1.0 ? 1 : (uint64_t) x;
			scale.den = (uint64_t) 1 << k;
			DPK_ASSERT((long double) scale.num >= (long double) b * (long double) scale.den);
			return scale;
		}
	}
	dpk_fail("a noise scale has no exact representation");
}

/* Whether dpk_scale_from_double can represent b (see there). */
bool
dpk_scale_representable(double b)
{
	return isfinite(b) && b > 0.0 && ceil(b) < DPK_SCALE_LIMIT;
}

/* Whether b gets the same rational under sampler versions 1 and 2. */
bool
dpk_scale_same_in_v1(double b)
{
	return dpk_scale_representable(b) && ceil(ldexp(b, DPK_SCALE_DEN_BITS)) < DPK_SCALE_LIMIT;
}

/* The real value num/den of a scale (for reports and accounting). */
double
dpk_scale_value(DpkScale scale)
{
	return (double) scale.num / (double) scale.den;
}

/*
 * Variance of the discrete Laplace with scale b: with a = 1/b and
 * p = exp(-a), Var = 2p / (1-p)^2, which equals 1 / (2 sinh^2(a/2)); the
 * sinh form keeps full relative accuracy for both small and large b.
 */
double
dpk_discrete_laplace_variance(DpkScale scale)
{
	double		a = (double) scale.den / (double) scale.num;
	double		sh = sinh(a / 2.0);

	return 1.0 / (2.0 * sh * sh);
}

/*
 * P[X = x] of the discrete Laplace with scale b: with a = 1/b and
 * p = exp(-a), it is (1-p)/(1+p) * p^|x| = tanh(a/2) * exp(-a|x|), computed
 * in the second form for accuracy.
 */
double
dpk_discrete_laplace_pmf(DpkScale scale, int64_t x)
{
	double		a = (double) scale.den / (double) scale.num;
	double		ax = x < 0 ? -(double) x : (double) x;

	return tanh(a / 2.0) * exp(-a * ax);
}
