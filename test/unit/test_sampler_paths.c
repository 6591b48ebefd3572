/*
 * test_sampler_paths.c
 *		The exact samplers' fast paths draw what the plain algorithms draw.
 *
 * noise.c and dgauss.c skip divisions whose result is known (a power-of-two
 * range, a rejection threshold only needed below n, a quotient by 1) and
 * write Bernoulli(exp(-1)) out.  Tables re-derive their node noise at every
 * release, so a fast path that drew one different value would change
 * published releases.  Each sampler here is CKS (Canonne, Kamath, Steinke
 * 2020) Algorithms 1-3 written plainly on dpk_stream_u64, with every
 * division done; two streams on the same key and nonce must give the same
 * values, draw for draw, and end at the same place in the keystream.  The
 * stream's buffer grows after each reseed (noise.h): its bytes must not
 * depend on that.
 */
#include <string.h>

#include "dgauss.h"
#include "noise.h"
#include "unit.h"

typedef unsigned __int128 u128;

/* Uniform on [0, n): rejection below 2^64 mod n, always computed. */
static uint64_t
ref_uniform(DpkStream *s, uint64_t n)
{
	uint64_t	threshold,
				x;

	if (n <= 1)
		return 0;
	threshold = (0 - n) % n;
	do
		x = dpk_stream_u64(s);
	while (x < threshold);
	return x % n;
}

/* Bernoulli(num/den). */
static bool
ref_bernoulli(DpkStream *s, uint64_t num, uint64_t den)
{
	if (num == 0)
		return false;
	if (num >= den)
		return true;
	return ref_uniform(s, den) < num;
}

/* Bernoulli(exp(-num/den)), num <= den: CKS Algorithm 1. */
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

/* Bernoulli(exp(-num/den)) for any num: exp(-1)^floor times the fraction. */
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

/* Geometric of scale num/den: the first half of CKS Algorithm 2. */
static int64_t
ref_geometric(DpkStream *s, DpkScale sc)
{
	for (;;)
	{
		uint64_t	u = ref_uniform(s, sc.num),
					v = 0;
		u128		y;

		if (!ref_bernoulli_exp(s, u, sc.num))
			continue;
		while (ref_bernoulli_exp(s, 1, 1))
			v++;
		y = ((u128) u + (u128) sc.num * v) / sc.den;
		if (y > (u128) INT64_MAX)
			continue;
		return (int64_t) y;
	}
}

/* Discrete Laplace: CKS Algorithm 2. */
static int64_t
ref_laplace(DpkStream *s, DpkScale sc)
{
	for (;;)
	{
		int64_t		y = ref_geometric(s, sc);
		bool		negative = ref_bernoulli(s, 1, 2);

		if (negative && y == 0)
			continue;
		return negative ? -y : y;
	}
}

/* Uniform on [0, n) on 128 bits, threshold always computed. */
static u128
ref_uniform128(DpkStream *s, u128 n)
{
	u128		threshold = (0 - n) % n,
				x;

	do
	{
		u128		lo = dpk_stream_u64(s);
		u128		hi = dpk_stream_u64(s);

		x = (hi << 64) | lo;
	} while (x < threshold);
	return x % n;
}

/* Bernoulli(exp(-N/D)) for a 256-bit N and a 128-bit D. */
static bool
ref_bernoulli_exp_wide(DpkStream *s, const uint64_t n[4], u128 d)
{
	uint64_t	q[4];
	u128		r;
	uint64_t	k = 1;
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
	u128		dd;

	/* t = floor(sqrt(num / den)) + 1, corrected to the exact integer root */
	while (t > 0 && (u128) t * t > q)
		t--;
	while ((u128) (t + 1) * (t + 1) <= q)
		t++;
	t++;
	dd = (u128) 2 * v.num * v.den * ((u128) t * t);
	for (;;)
	{
		int64_t		y = ref_laplace(s, (DpkScale) {t, 1});
		u128		x = (u128) (y < 0 ? -(uint64_t) y : (uint64_t) y) * t * v.den;
		u128		u = x >= v.num ? x - v.num : v.num - x;
		uint64_t	lo = (uint64_t) u,
					hi = (uint64_t) (u >> 64),
					n[4];
		u128		ll = (u128) lo * lo,
					lh = (u128) lo * hi,
					hh = (u128) hi * hi,
					mid;

		/* u^2 = hh 2^128 + 2 lh 2^64 + ll, limb by limb */
		n[0] = (uint64_t) ll;
		mid = (ll >> 64) + (u128) (uint64_t) lh * 2;
		n[1] = (uint64_t) mid;
		mid = (mid >> 64) + (lh >> 64) * 2 + (uint64_t) hh;
		n[2] = (uint64_t) mid;
		n[3] = (uint64_t) ((mid >> 64) + (uint64_t) (hh >> 64));
		if (ref_bernoulli_exp_wide(s, n, dd))
			return y;
	}
}

/* Two streams on one key and nonce: the library's and the reference's. */
typedef struct Pair
{
	DpkStream	lib;
	DpkStream	ref;
} Pair;

static void
pair_open(Pair *p, uint64_t seed)
{
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES];

	memset(p, 0, sizeof(*p));
	memset(nonce, 0, sizeof(nonce));
	dpk_key_from_seed(seed, key);
	CHECK(dpk_stream_open(&p->lib, key, nonce) && dpk_stream_open(&p->ref, key, nonce),
		  "open failed");
}

/* Both streams must be at the same place: their next words agree. */
static void
pair_close(Pair *p, const char *what)
{
	CHECK(dpk_stream_u64(&p->lib) == dpk_stream_u64(&p->ref),
		  "%s: the streams read different amounts", what);
	dpk_stream_close(&p->lib);
	dpk_stream_close(&p->ref);
}

/* Ranges with and without fast paths: powers of two, near 2^64, odd. */
static const uint64_t ranges[] = {
	1, 2, 3, 4, 5, 7, 8, 10, 64, 100, 1000, 1024, 4096, 12345, 65536,
	(uint64_t) 1 << 20, 999983, (uint64_t) 3 << 40, (uint64_t) 1 << 62,
	((uint64_t) 1 << 63) + 1, (uint64_t) 1 << 63, UINT64_MAX - 1, UINT64_MAX
};
#define NRANGES (sizeof(ranges) / sizeof(ranges[0]))

static void
test_uniform_and_bernoulli(void)
{
	Pair		p;
	size_t		a,
				b;
	int			j,
				bad = 0;

	pair_open(&p, 1);
	for (a = 0; a < NRANGES; a++)
		for (j = 0; j < 2000; j++)
			bad += dpk_uniform(&p.lib, ranges[a]) != ref_uniform(&p.ref, ranges[a]);
	CHECK(bad == 0, "dpk_uniform: %d draws differ", bad);
	bad = 0;
	for (a = 0; a < NRANGES; a++)
		for (b = 0; b < NRANGES; b++)
			for (j = 0; j < 50; j++)
				bad += dpk_bernoulli(&p.lib, ranges[a], ranges[b]) !=
					ref_bernoulli(&p.ref, ranges[a], ranges[b]);
	CHECK(bad == 0, "dpk_bernoulli: %d draws differ", bad);
	pair_close(&p, "uniform and Bernoulli");
}

static void
test_bernoulli_exp(void)
{
	Pair		p;
	size_t		a,
				b;
	int			j,
				bad = 0;

	pair_open(&p, 2);
	for (a = 0; a < NRANGES; a++)
		for (b = 0; b < NRANGES; b++)
		{
			/* gamma up to a few units: above that almost every draw stops at once */
			if (ranges[b] > 0 && ranges[a] / ranges[b] > 8)
				continue;
			for (j = 0; j < 100; j++)
				bad += dpk_bernoulli_exp(&p.lib, ranges[a], ranges[b]) !=
					ref_bernoulli_exp(&p.ref, ranges[a], ranges[b]);
		}
	/* num == den (exp(-1)) with den 1 and above */
	for (a = 0; a < NRANGES; a++)
		for (j = 0; j < 200; j++)
			bad += dpk_bernoulli_exp(&p.lib, ranges[a], ranges[a]) !=
				ref_bernoulli_exp(&p.ref, ranges[a], ranges[a]);
	CHECK(bad == 0, "dpk_bernoulli_exp: %d draws differ", bad);
	pair_close(&p, "Bernoulli(exp)");
}

static void
test_laplace_family(void)
{
	static const DpkScale scales[] = {
		{1, 1}, {1, 2}, {2, 1}, {3, 7}, {1000, 1}, {1000, 1024}, {12345, 1 << 20},
		{(uint64_t) 1 << 20, 1}, {(uint64_t) 3 << 40, 1 << 20}, {999983, 3},
		{((uint64_t) 1 << 62) - 1, 1 << 20}
	};
	Pair		p;
	size_t		a;
	int			j,
				bad_geo = 0,
				bad_lap = 0;

	pair_open(&p, 3);
	for (a = 0; a < sizeof(scales) / sizeof(scales[0]); a++)
		for (j = 0; j < 3000; j++)
		{
			bad_geo += dpk_geometric(&p.lib, scales[a]) != ref_geometric(&p.ref, scales[a]);
			bad_lap += dpk_discrete_laplace(&p.lib, scales[a]) != ref_laplace(&p.ref, scales[a]);
		}
	CHECK(bad_geo == 0, "dpk_geometric: %d draws differ", bad_geo);
	CHECK(bad_lap == 0, "dpk_discrete_laplace: %d draws differ", bad_lap);
	pair_close(&p, "Laplace");
}

static void
test_gaussian(void)
{
	static const double sigma2[] = {0.3, 1.0, 2.5, 100.0, 1e4, 12345.678, 1e6, 1e10, 1e14, 4e18};
	Pair		p;
	size_t		a;
	int			j,
				bad = 0;

	pair_open(&p, 4);
	for (a = 0; a < sizeof(sigma2) / sizeof(sigma2[0]); a++)
	{
		DpkGaussScale v = dpk_gauss_scale_from_double(sigma2[a]);

		for (j = 0; j < 3000; j++)
			bad += dpk_discrete_gaussian(&p.lib, v) != ref_gaussian(&p.ref, v);
	}
	/* a non-power-of-two denominator */
	for (j = 0; j < 3000; j++)
		bad += dpk_discrete_gaussian(&p.lib, (DpkGaussScale) {5, 3}) !=
			ref_gaussian(&p.ref, (DpkGaussScale) {5, 3});
	CHECK(bad == 0, "dpk_discrete_gaussian: %d draws differ", bad);
	pair_close(&p, "Gaussian");
}

/*
 * The keystream does not depend on how it is read: words and odd-sized
 * reads across refills of growing size give the bytes of one long read; a
 * reseed starts the new nonce's keystream and leaves no keystream byte of
 * the old one in the buffer.
 */
static void
test_keystream_chunking(void)
{
	enum
	{
		N = 3 * DPK_STREAM_BUF + 1000
	};
	static uint8_t whole[N],
				pieces[N];
	uint8_t		key[DPK_KEY_BYTES],
				nonce[DPK_NONCE_BYTES],
				nonce2[DPK_NONCE_BYTES];
	DpkStream	a,
				b;
	size_t		at = 0,
				step = 1,
				i;
	bool		wiped = true;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(nonce, 0, sizeof(nonce));
	memset(nonce2, 7, sizeof(nonce2));
	dpk_key_from_seed(5, key);
	CHECK(dpk_stream_open(&a, key, nonce) && dpk_stream_open(&b, key, nonce), "open failed");
	dpk_stream_bytes(&a, whole, N);
	while (at < N)
	{
		if (step % 3 != 0 && at + 8 <= N)
		{
			uint64_t	w = dpk_stream_u64(&b);

			for (i = 0; i < 8; i++)
				pieces[at + i] = (uint8_t) (w >> (8 * i));
			at += 8;
		}
		else
		{
			size_t		n = step % 97 < N - at ? step % 97 : N - at;

			dpk_stream_bytes(&b, pieces + at, n);
			at += n;
		}
		step++;
	}
	CHECK(memcmp(whole, pieces, N) == 0, "the keystream depends on how it is read");

	/* mid-buffer reseed: the new nonce's keystream, the old bytes gone */
	(void) dpk_stream_u64(&b);
	CHECK(dpk_stream_reseed(&b, key, nonce2), "reseed failed");
	for (i = 0; i < sizeof(b.buf); i++)
		wiped &= b.buf[i] == 0;
	CHECK(wiped, "keystream bytes left in the buffer after a reseed");
	CHECK(dpk_stream_reseed(&a, key, nonce2), "reseed failed");
	dpk_stream_bytes(&a, whole, 2 * DPK_STREAM_BUF);
	for (i = 0; i < 2 * DPK_STREAM_BUF; i += 8)
	{
		uint64_t	w = dpk_stream_u64(&b);

		memcpy(pieces + i, &w, 8);
	}
	/* dpk_stream_u64 is little-endian: compare word by word */
	for (i = 0; i < 2 * DPK_STREAM_BUF; i += 8)
	{
		uint64_t	w = 0;
		int			j;

		for (j = 7; j >= 0; j--)
			w = (w << 8) | whole[i + j];
		if (memcmp(&w, pieces + i, 8) != 0)
			break;
	}
	CHECK(i == 2 * DPK_STREAM_BUF, "a reseeded stream reads another keystream");
	dpk_stream_close(&a);
	dpk_stream_close(&b);
}

int
main(void)
{
	printf("test_sampler_paths:\n");
	test_keystream_chunking();
	test_uniform_and_bernoulli();
	test_bernoulli_exp();
	test_laplace_family();
	test_gaussian();
	UNIT_DONE("test_sampler_paths");
}
