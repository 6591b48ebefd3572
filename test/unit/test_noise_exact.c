/*
 * test_noise_exact.c
 *		The samplers' fast paths draw what the plain ones drew.
 *
 * The discrete Laplace, geometric and Bernoulli samplers avoid divisions
 * where an exact cheaper way gives the same integer (a mask or a shift for
 * powers of two, constant divisors, an overflow test instead of a quotient)
 * and are inlined into one another.  A published value depends on every
 * byte the stream gives and on every draw it becomes, so this test compares
 * them, draw by draw and byte position by byte position, with the plain
 * algorithm (CKS 2020, Algorithms 1 and 2, as written before the fast
 * paths) kept here as the reference.  The stream computes its keystream
 * ahead in chunks of two sizes; what it gives is compared with ChaCha20's
 * keystream computed in one piece.  And the draws themselves, at the scales
 * tables release with, hash to what sampler version 2 has always published.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <openssl/evp.h>

#include "counter.h"
#include "dgauss.h"
#include "noise.h"
#include "unit.h"

/* The hash of test_golden_hash's draws under sampler version 2. */
#define DPK_GOLDEN_HASH 0x47c490c44dcdfb7fULL

/* ---- the reference: every remainder and quotient by division ---- */

static uint64_t
ref_uniform(DpkStream *s, uint64_t n)
{
	uint64_t	threshold,
				x;

	if (n <= 1)
		return 0;
	do
	{
		x = dpk_stream_u64(s);
		threshold = x < n ? (0 - n) % n : 0;
	} while (x < threshold);
	return x % n;
}

static bool
ref_bernoulli(DpkStream *s, uint64_t num, uint64_t den)
{
	if (num == 0)
		return false;
	if (num >= den)
		return true;
	return ref_uniform(s, den) < num;
}

static bool
ref_bernoulli_exp_unit(DpkStream *s, uint64_t num, uint64_t den)
{
	uint64_t	k = 1;

	for (;;)
	{
		bool		a;

		if (den <= UINT64_MAX / k)
			a = ref_bernoulli(s, num, den * k);
		else
			a = ref_bernoulli(s, num, den) && ref_bernoulli(s, 1, k);
		if (!a)
			break;
		k++;
	}
	return (k & 1) != 0;
}

static bool
ref_bernoulli_exp(DpkStream *s, uint64_t num, uint64_t den)
{
	uint64_t	i;

	if (den == 0)
		return false;
	if (num == 0)
		return true;
	if (num <= den)
		return ref_bernoulli_exp_unit(s, num, den);
	for (i = 0; i < num / den; i++)
		if (!ref_bernoulli_exp_unit(s, 1, 1))
			return false;
	return ref_bernoulli_exp_unit(s, num % den, den);
}

static int64_t
ref_geometric(DpkStream *s, DpkScale scale)
{
	uint64_t	t = scale.num,
				sd = scale.den;

	if (t == 0 || sd == 0)
		return 0;
	for (;;)
	{
		uint64_t	u,
					v = 0;
		unsigned __int128 y;

		u = ref_uniform(s, t);
		if (!ref_bernoulli_exp(s, u, t))
			continue;
		while (ref_bernoulli_exp(s, 1, 1))
			v++;
		y = ((unsigned __int128) u + (unsigned __int128) t * v) / sd;
		if (y > (unsigned __int128) INT64_MAX)
			continue;
		return (int64_t) y;
	}
}

static int64_t
ref_discrete_laplace(DpkStream *s, DpkScale scale)
{
	if (scale.num == 0 || scale.den == 0)
		return 0;
	for (;;)
	{
		int64_t		y = ref_geometric(s, scale);
		bool		negative = ref_bernoulli(s, 1, 2);

		if (negative && y == 0)
			continue;
		return negative ? -y : y;
	}
}

/* Uniform on [0, n) on 128 bits, the threshold 2^128 mod n always computed. */
static unsigned __int128
ref_uniform128(DpkStream *s, unsigned __int128 n)
{
	unsigned __int128 threshold = (0 - n) % n,
				x;

	do
	{
		unsigned __int128 lo = dpk_stream_u64(s);
		unsigned __int128 hi = dpk_stream_u64(s);

		x = (hi << 64) | lo;
	} while (x < threshold);
	return x % n;
}

/* Bernoulli(exp(-N/D)) for a 256-bit N and a 128-bit D (dgauss.h). */
static bool
ref_bernoulli_exp_wide(DpkStream *s, const uint64_t n[4], unsigned __int128 d)
{
	uint64_t	q[4],
				k = 1;
	unsigned __int128 r;
	int			i;

	dpk_divide_256_128(n, d, q, &r);
	while (q[0] | q[1] | q[2] | q[3])
	{
		if (!ref_bernoulli_exp(s, 1, 1))
			return false;
		for (i = 0; i < 4; i++)
			if (q[i]-- != 0)
				break;
	}
	if (d <= UINT64_MAX)
		return ref_bernoulli_exp(s, (uint64_t) r, (uint64_t) d);
	for (;;)
	{
		bool		a = r == 0 ? false : r >= d ? true : ref_uniform128(s, d) < r;

		if (!(a && ref_bernoulli(s, 1, k)))
			break;
		k++;
	}
	return (k & 1) != 0;
}

/* Discrete Gaussian N_Z(0, a/b): CKS Algorithm 3, as dgauss.c states it. */
static int64_t
ref_gaussian(DpkStream *s, DpkGaussScale v)
{
	uint64_t	q = v.num / v.den,
				t = (uint64_t) sqrt((double) q);
	unsigned __int128 dd;

	/* t = floor(sqrt(num / den)) + 1, the integer root made exact */
	while (t > 0 && (unsigned __int128) t * t > q)
		t--;
	while ((unsigned __int128) (t + 1) * (t + 1) <= q)
		t++;
	t++;
	dd = (unsigned __int128) 2 * v.num * v.den * ((unsigned __int128) t * t);
	for (;;)
	{
		int64_t		y = ref_discrete_laplace(s, (DpkScale) {t, 1});
		unsigned __int128 x = (unsigned __int128) (y < 0 ? -(uint64_t) y : (uint64_t) y) * t * v.den;
		unsigned __int128 u = x >= v.num ? x - v.num : v.num - x;
		uint64_t	lo = (uint64_t) u,
					hi = (uint64_t) (u >> 64),
					n[4];
		unsigned __int128 ll = (unsigned __int128) lo * lo,
					lh = (unsigned __int128) lo * hi,
					hh = (unsigned __int128) hi * hi,
					mid;

		/* u^2 = hh 2^128 + 2 lh 2^64 + ll, limb by limb */
		n[0] = (uint64_t) ll;
		mid = (ll >> 64) + (unsigned __int128) (uint64_t) lh * 2;
		n[1] = (uint64_t) mid;
		mid = (mid >> 64) + (lh >> 64) * 2 + (uint64_t) hh;
		n[2] = (uint64_t) mid;
		n[3] = (uint64_t) ((mid >> 64) + (uint64_t) (hh >> 64));
		if (ref_bernoulli_exp_wide(s, n, dd))
			return y;
	}
}

/* ---- helpers ---- */

static void
open_pair(DpkStream *a, DpkStream *b, uint64_t seed)
{
	uint8_t		key[DPK_KEY_BYTES],
				nonce[DPK_NONCE_BYTES] = {0};

	dpk_key_from_seed(seed, key);
	CHECK(dpk_stream_open(a, key, nonce) && dpk_stream_open(b, key, nonce), "open");
}

/* Both streams at the same position: their next words agree. */
static bool
same_position(DpkStream *a, DpkStream *b)
{
	return dpk_stream_u64(a) == dpk_stream_u64(b);
}

/* ---- tests ---- */

/* The remainder against the hardware's, on divisors of every kind. */
static void
test_mod(void)
{
	static const uint64_t fixed[] = {
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 17, 1023, 1024, 1025,
		(UINT64_C(1) << 20), 10 * (UINT64_C(1) << 20) + 1, 3 * (UINT64_C(1) << 20),
		(UINT64_C(1) << 32) - 1, (UINT64_C(1) << 32), (UINT64_C(1) << 32) + 1,
		(UINT64_C(1) << 62) - 1, (UINT64_C(1) << 62), (UINT64_C(1) << 63) - 1,
		(UINT64_C(1) << 63), (UINT64_C(1) << 63) + 1, UINT64_MAX - 1, UINT64_MAX
	};
	uint64_t	st = 0x1234567u;
	int			bad = 0,
				i,
				j;

	for (i = 0; i < (int) (sizeof(fixed) / sizeof(fixed[0])); i++)
		for (j = 0; j < 20000; j++)
		{
			uint64_t	x;

			st ^= st << 13;
			st ^= st >> 7;
			st ^= st << 17;
			x = j < 4 ? (uint64_t[]) {0, 1, UINT64_MAX, fixed[i] - 1}[j] : st;
			bad += dpk_noise_mod(x, fixed[i]) != x % fixed[i];
		}
	for (j = 0; j < 200000; j++)
	{
		uint64_t	n,
					x;

		st ^= st << 13;
		st ^= st >> 7;
		st ^= st << 17;
		n = (st >> (st & 63)) | 1;
		n += j & 1;
		x = st * UINT64_C(0x9E3779B97F4A7C15);
		bad += dpk_noise_mod(x, n) != x % n;
	}
	CHECK(bad == 0, "%d remainders differ from the division's", bad);
}

/* Uniform, Bernoulli and Bernoulli(exp) draws against the reference. */
static void
test_small_draws(void)
{
	DpkStream	a,
				b;
	uint64_t	st = 99;
	int			bad = 0,
				i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	open_pair(&a, &b, 11);
	for (i = 0; i < 60000; i++)
	{
		uint64_t	n,
					num;

		st ^= st << 13;
		st ^= st >> 7;
		st ^= st << 17;
		n = i % 3 == 0 ? (uint64_t) (i % 40) + 1 : (st >> (st & 63)) | 1;
		num = st % (n + 1);
		bad += dpk_uniform(&a, n) != ref_uniform(&b, n);
		bad += dpk_bernoulli(&a, num, n) != ref_bernoulli(&b, num, n);
		bad += dpk_bernoulli_exp(&a, num * (i % 4 + 1), n) !=
			ref_bernoulli_exp(&b, num * (i % 4 + 1), n);
	}
	CHECK(bad == 0 && same_position(&a, &b), "%d small draws differ", bad);
	dpk_stream_close(&a);
	dpk_stream_close(&b);
}

/*
 * Geometric and discrete Laplace draws at the scales releases use (den 2^20
 * from dpk_scale_from_double) and at others (odd denominators, huge and
 * tiny scales), and the cube noise built on them.
 */
static void
test_laplace_draws(void)
{
	static const double bs[] = {0.05, 0.5, 1.0, 2.0, 7.3, 10.0, 40.0, 1e3, 1e6, 3e12};
	static const DpkScale raw[] = {{3, 7}, {1, 1}, {5, 3}, {UINT64_C(1) << 40, 3},
	{1000003, 1 << 10}};
	DpkStream	a,
				b;
	int			bad = 0,
				i,
				j;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	open_pair(&a, &b, 12);
	for (i = 0; i < (int) (sizeof(bs) / sizeof(bs[0])) + 5; i++)
	{
		DpkScale	sc = i < 10 ? dpk_scale_from_double(bs[i]) : raw[i - 10];

		for (j = 0; j < 20000; j++)
		{
			bad += dpk_discrete_laplace(&a, sc) != ref_discrete_laplace(&b, sc);
			if (j % 4 == 0)
				bad += dpk_geometric(&a, sc) != ref_geometric(&b, sc);
		}
	}
	CHECK(bad == 0 && same_position(&a, &b), "%d Laplace or geometric draws differ", bad);
	dpk_stream_close(&a);
	dpk_stream_close(&b);
}

/*
 * Discrete Gaussians (dgauss.c: the 128-bit rejection threshold only for a
 * word below n) against CKS Algorithm 3 on the reference draws, sigma^2
 * from 0.3 to 4e18 and a non-power-of-two denominator.
 */
static void
test_gaussian_draws(void)
{
	static const double sigma2[] = {0.3, 1.0, 2.5, 100.0, 1e4, 12345.678, 1e6, 1e10, 1e14, 4e18};
	DpkStream	a,
				b;
	int			bad = 0,
				j;
	size_t		i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	open_pair(&a, &b, 13);
	for (i = 0; i < sizeof(sigma2) / sizeof(sigma2[0]); i++)
	{
		DpkGaussScale v = dpk_gauss_scale_from_double(sigma2[i]);

		for (j = 0; j < 3000; j++)
			bad += dpk_discrete_gaussian(&a, v) != ref_gaussian(&b, v);
	}
	for (j = 0; j < 3000; j++)
		bad += dpk_discrete_gaussian(&a, (DpkGaussScale) {5, 3}) !=
			ref_gaussian(&b, (DpkGaussScale) {5, 3});
	CHECK(bad == 0 && same_position(&a, &b), "%d Gaussian draws differ", bad);
	dpk_stream_close(&a);
	dpk_stream_close(&b);
}

/*
 * The stream's bytes, read as words, odd-sized pieces and single bytes,
 * across many refills and after repositioning (dpk_stream_reseed, with
 * keystream left unread), are ChaCha20's keystream of (key, nonce) from its
 * start, computed here in one call.
 */
static void
test_stream_chunks(void)
{
	enum
	{
		LEN = 3 * DPK_STREAM_BUF + 1003
	};
	static uint8_t ref[LEN],
				got[LEN],
				zero[LEN];
	uint8_t		key[DPK_KEY_BYTES],
				nonce[DPK_NONCE_BYTES] = {0},
				iv[16] = {0};
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	DpkStream	s;
	int			outl = 0,
				round,
				bad = 0;

	dpk_key_from_seed(77, key);
	nonce[3] = 9;
	memcpy(iv + 4, nonce, DPK_NONCE_BYTES);
	CHECK(ctx && EVP_EncryptInit_ex(ctx, EVP_chacha20(), NULL, key, iv) == 1 &&
		  EVP_EncryptUpdate(ctx, ref, &outl, zero, LEN) == 1 && outl == LEN, "reference");
	EVP_CIPHER_CTX_free(ctx);
	memset(&s, 0, sizeof(s));
	CHECK(dpk_stream_open(&s, key, nonce), "open");
	for (round = 0; round < 3; round++)
	{
		size_t		at = 0,
					piece = 1;

		while (at < LEN)
		{
			/* all words; words after 5 bytes (straddling each refill); mixed */
			size_t		take = round == 0 ? 8 : round == 1 ? (piece % 2 ? 5 : 8)
				: (piece % 7 == 0 ? 8 : piece % 61);

			if (take == 8 && at + 8 > LEN)
				take = 1;

			if (take > LEN - at)
				take = LEN - at;
			if (take == 8)
			{
				uint64_t	w = dpk_stream_u64(&s);
				int			i;

				for (i = 0; i < 8; i++)
					got[at + i] = (uint8_t) (w >> (8 * i));
			}
			else
				dpk_stream_bytes(&s, got + at, take);
			at += take;
			piece += round == 2 ? 3 : 1;
		}
		bad += memcmp(got, ref, LEN) != 0;
		/* read a little, then start again at the same nonce */
		dpk_stream_bytes(&s, got, (size_t) (round * 300 + 5));
		CHECK(dpk_stream_reseed(&s, key, nonce), "reseed");
		/* read bytes are wiped as read, the unread ones by the reseed */
		CHECK(memcmp(s.buf, zero, sizeof(s.buf)) == 0,
			  "keystream left in the buffer after a reseed");
	}
	CHECK(bad == 0, "%d of 3 reads differ from the keystream", bad);
	dpk_stream_close(&s);
}

/* ---- the published draws, pinned ---- */

/* FNV-1a, 64 bits, over the bytes of a signed draw (little-endian). */
static uint64_t
hash_draw(uint64_t h, int64_t v)
{
	int			i;

	for (i = 0; i < 8; i++)
	{
		h ^= (uint8_t) ((uint64_t) v >> (8 * i));
		h *= 1099511628211ULL;
	}
	return h;
}

/*
 * Every draw a table publishes under sampler version 2 is a function of its
 * key and its nodes that must never change (a table re-derives its nodes'
 * noise at every release): a hash of draws of every sampler, at the
 * variances of a 384-d (epsilon, delta) table's sums, counts and norm
 * counter and at low-d scales, and of a whole cell's noise at release 15
 * (four nodes: nonces, decomposition, count then sums), against the value
 * the samplers gave when this test was written (release 0.9, the same as
 * 0.8's).  A faster sampler, a different keystream or another order of the
 * draws changes it.
 */
static void
test_golden_hash(void)
{
	static const double sigma2[] = {2.29611272e10, 2.67806821e10, 2.60026069e18,
	1e4, 1.0, 0.3};
	static const double lap[] = {1000.0, 0.7, 151530.0, 3.5e9};
	uint8_t		key[DPK_KEY_BYTES],
				nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s;
	uint64_t	h = 14695981039346656037ULL;
	int64_t		cell[1 + 384];
	unsigned	i;
	int			j;

	dpk_key_from_seed(49, key);
	memset(&s, 0, sizeof(s));
	CHECK(dpk_stream_open(&s, key, nonce), "open");
	for (i = 0; i < sizeof(sigma2) / sizeof(sigma2[0]); i++)
	{
		DpkGaussScale v = dpk_gauss_scale_from_double(sigma2[i]);

		nonce[0] = (uint8_t) (1 + i);
		CHECK(dpk_stream_reseed(&s, key, nonce), "reseed");
		for (j = 0; j < 3000; j++)
			h = hash_draw(h, dpk_discrete_gaussian(&s, v));
	}
	nonce[0] = 20;
	CHECK(dpk_stream_reseed(&s, key, nonce), "reseed");
	for (j = 0; j < 3000; j++)
		h = hash_draw(h, dpk_discrete_gaussian(&s, (DpkGaussScale) {5, 3}));
	for (i = 0; i < sizeof(lap) / sizeof(lap[0]); i++)
	{
		DpkScale	b = dpk_scale_from_double(lap[i]);

		nonce[0] = (uint8_t) (30 + i);
		CHECK(dpk_stream_reseed(&s, key, nonce), "reseed");
		for (j = 0; j < 3000; j++)
		{
			h = hash_draw(h, dpk_discrete_laplace(&s, b));
			h = hash_draw(h, dpk_geometric(&s, b));
		}
	}
	nonce[0] = 40;
	CHECK(dpk_stream_reseed(&s, key, nonce), "reseed");
	for (j = 0; j < 200; j++)
	{
		int64_t		v[16] = {0};
		int			k;

		dpk_vector_noise(&s, dpk_scale_from_double(100.0), 8, 1, v);	/* cube */
		dpk_vector_noise(&s, dpk_scale_from_double(0.5), 16, -1, v);	/* Laplace */
		for (k = 0; k < 16; k++)
			h = hash_draw(h, v[k]);
	}
	for (i = 0; i < 4; i++)
	{
		dpk_cell_noise_gauss(&s, &(DpkCellKey) {key, 34, 1000 + i}, 15,
							 &(DpkCellVars) {384, dpk_gauss_scale_from_double(2.67806821e10),
							 dpk_gauss_scale_from_double(2.29611272e10), DPK_SUMS_VECTOR},
							 cell);
		for (j = 0; j <= 384; j++)
			h = hash_draw(h, cell[j]);
	}
	CHECK(h == DPK_GOLDEN_HASH, "the draws hash to %016llx, not %016llx",
		  (unsigned long long) h, (unsigned long long) DPK_GOLDEN_HASH);
	dpk_stream_close(&s);
}

int
main(void)
{
	printf("test_noise_exact:\n");
	test_stream_chunks();
	test_mod();
	test_small_draws();
	test_laplace_draws();
	test_gaussian_draws();
	test_golden_hash();
	UNIT_DONE("test_noise_exact");
}
