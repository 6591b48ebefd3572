/*
 * test_noise.c
 *		Unit tests of the ChaCha20 stream and the exact discrete Laplace sampler.
 *
 * Every statistical test runs at a fixed key and nonce, so the outcome is
 * deterministic; the thresholds (5 standard errors, chi-square at p = 0.001)
 * are loose enough that a correct sampler passes at essentially any seed and
 * tight enough that a wrong scale, a wrong sign rule or a modulo bias fails.
 */
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include "dpk_mem.h"
#include "noise.h"
#include "unit.h"

/* Upper 0.001 quantile of the standard normal. */
#define Z_999	3.090232306167813

/* Number of standard errors tolerated by the moment and frequency tests. */
#define N_SIGMA 5.0

/* Maximum number of bins of a chi-square test. */
#define MAX_BINS 512

/* A nonce whose last bytes are the given 32-bit tag (little-endian). */
static void
make_nonce(uint32_t tag, uint8_t nonce[DPK_NONCE_BYTES])
{
	int			i;

	memset(nonce, 0, DPK_NONCE_BYTES);
	for (i = 0; i < 4; i++)
		nonce[8 + i] = (uint8_t) (tag >> (8 * i));
}

/* Open a stream on the seed-derived key and the tagged nonce; CHECK success. */
static void
open_seeded(DpkStream *s, uint64_t seed, uint32_t tag)
{
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES];

	dpk_key_from_seed(seed, key);
	make_nonce(tag, nonce);
	CHECK(dpk_stream_open(s, key, nonce), "dpk_stream_open failed");
}

/*
 * Chi-square critical value at upper tail probability 0.001 for df degrees
 * of freedom, by the Wilson-Hilferty cube approximation.
 */
static double
chi2_critical(int df)
{
	double		k = (double) df;
	double		c = 2.0 / (9.0 * k);
	double		v = 1.0 - c + Z_999 * sqrt(c);

	return k * v * v * v;
}

/* Pearson chi-square statistic of observed counts against probabilities. */
static double
chi2_stat(const long *obs, const double *prob, int nbins, long n)
{
	double		stat = 0.0;
	int			i;

	for (i = 0; i < nbins; i++)
	{
		double		e = prob[i] * (double) n;
		double		d = (double) obs[i] - e;

		stat += d * d / e;
	}
	return stat;
}

/* |observed frequency - p| in units of the binomial standard error. */
static double
binom_z(long hits, long n, double p)
{
	double		se = sqrt(p * (1.0 - p) / (double) n);

	if (se == 0.0)
		return ((double) hits == p * (double) n) ? 0.0 : INFINITY;
	return fabs((double) hits / (double) n - p) / se;
}

/*
 * Known-answer tests against RFC 8439: block 0 of the all-zero key and nonce
 * (A.1, test vector 1) and block 1 of the section 2.3.2 key and nonce.  They
 * pin down the IV layout (counter first, then nonce).
 */
static void
test_known_answer(void)
{
	static const uint8_t kat0[32] = {
		0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90,
		0x40, 0x5d, 0x6a, 0xe5, 0x53, 0x86, 0xbd, 0x28,
		0xbd, 0xd2, 0x19, 0xb8, 0xa0, 0x8d, 0xed, 0x1a,
		0xa8, 0x36, 0xef, 0xcc, 0x8b, 0x77, 0x0d, 0xc7
	};
	static const uint8_t kat1[16] = {
		0x10, 0xf1, 0xe7, 0xe4, 0xd1, 0x3b, 0x59, 0x15,
		0x50, 0x0f, 0xdd, 0x1f, 0xa3, 0x20, 0x71, 0xc4
	};
	static const uint8_t nonce1[DPK_NONCE_BYTES] = {
		0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x4a, 0x00, 0x00, 0x00, 0x00
	};
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES];
	uint8_t		out[128];
	DpkStream	s;
	int			i;

	memset(&s, 0, sizeof(s));
	memset(key, 0, sizeof(key));
	memset(nonce, 0, sizeof(nonce));
	CHECK(dpk_stream_open(&s, key, nonce), "open on zero key failed");
	dpk_stream_bytes(&s, out, 32);
	CHECK(memcmp(out, kat0, sizeof(kat0)) == 0,
		  "RFC 8439 A.1 keystream mismatch");

	for (i = 0; i < DPK_KEY_BYTES; i++)
		key[i] = (uint8_t) i;
	CHECK(dpk_stream_reseed(&s, key, nonce1), "reseed failed");
	dpk_stream_bytes(&s, out, sizeof(out));
	CHECK(memcmp(out + 64, kat1, sizeof(kat1)) == 0,
		  "RFC 8439 2.3.2 keystream (block 1) mismatch");
	dpk_stream_close(&s);
}

/* Same (key, nonce) gives the same bytes; another nonce or key does not. */
static void
test_stream_determinism(void)
{
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		key2[DPK_KEY_BYTES];
	uint8_t		nonce_a[DPK_NONCE_BYTES];
	uint8_t		nonce_b[DPK_NONCE_BYTES];
	uint8_t		a[3000];
	uint8_t		b[3000];
	uint8_t		c[3000];
	DpkStream	s1;
	DpkStream	s2;
	size_t		off;
	size_t		chunk;
	uint64_t	w1;
	uint64_t	w2;
	int			i;

	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	dpk_key_from_seed(42, key);
	dpk_key_from_seed(42, key2);
	CHECK(memcmp(key, key2, sizeof(key)) == 0, "key_from_seed not deterministic");
	dpk_key_from_seed(43, key2);
	CHECK(memcmp(key, key2, sizeof(key)) != 0, "seeds 42 and 43 give one key");

	make_nonce(1, nonce_a);
	make_nonce(2, nonce_b);

	/* Read once in ragged chunks crossing buffer boundaries, once whole. */
	CHECK(dpk_stream_open(&s1, key, nonce_a), "open failed");
	for (off = 0, chunk = 1; off < sizeof(a); off += chunk, chunk = chunk * 3 + 1)
	{
		if (chunk > sizeof(a) - off)
			chunk = sizeof(a) - off;
		dpk_stream_bytes(&s1, a + off, chunk);
	}
	CHECK(dpk_stream_open(&s2, key, nonce_a), "open failed");
	dpk_stream_bytes(&s2, b, sizeof(b));
	CHECK(memcmp(a, b, sizeof(a)) == 0, "same key and nonce, different bytes");
	dpk_stream_close(&s2);

	CHECK(dpk_stream_open(&s2, key, nonce_b), "open failed");
	dpk_stream_bytes(&s2, c, sizeof(c));
	CHECK(memcmp(a, c, sizeof(a)) != 0, "different nonce, same bytes");
	dpk_stream_close(&s2);

	CHECK(dpk_stream_open(&s2, key2, nonce_a), "open failed");
	dpk_stream_bytes(&s2, c, sizeof(c));
	CHECK(memcmp(a, c, sizeof(a)) != 0, "different key, same bytes");

	/* Reseeding mid-buffer restarts the keystream from its beginning. */
	CHECK(dpk_stream_reseed(&s2, key, nonce_a), "reseed failed");
	dpk_stream_bytes(&s2, c, sizeof(c));
	CHECK(memcmp(a, c, sizeof(a)) == 0, "reseed does not reproduce the open");
	dpk_stream_bytes(&s2, c, 5);
	CHECK(dpk_stream_reseed(&s2, key, nonce_b), "reseed failed");
	dpk_stream_bytes(&s2, b, sizeof(b));
	dpk_stream_close(&s1);
	CHECK(dpk_stream_open(&s1, key, nonce_b), "open failed");
	dpk_stream_bytes(&s1, c, sizeof(c));
	CHECK(memcmp(b, c, sizeof(b)) == 0, "reseed to another nonce mid-buffer "
		  "does not match a fresh open");
	dpk_stream_close(&s1);

	/* u64 is the little-endian reading of the byte stream. */
	CHECK(dpk_stream_open(&s1, key, nonce_a), "open failed");
	w1 = dpk_stream_u64(&s1);
	w2 = 0;
	for (i = 7; i >= 0; i--)
		w2 = (w2 << 8) | a[i];
	CHECK(w1 == w2, "dpk_stream_u64 is not little-endian");

	/*
	 * Every later word too, across buffer refills, aligned and (after 3
	 * bytes) straddling them, and the bytes after the words follow on.
	 */
	for (off = 0; off <= 3; off += 3)
	{
		DpkStream	s3;
		int			wrong = 0;
		size_t		pos = off + 8;

		CHECK(dpk_stream_open(&s3, key, nonce_a), "open failed");
		dpk_stream_bytes(&s3, c, off + 8);
		for (i = 0; i < 300; i++, pos += 8)
		{
			int			j;

			w1 = dpk_stream_u64(&s3);
			w2 = 0;
			for (j = 7; j >= 0; j--)
				w2 = (w2 << 8) | a[pos + j];
			wrong += w1 != w2;
		}
		dpk_stream_bytes(&s3, c, 16);
		CHECK(wrong == 0 && memcmp(c, a + pos, 16) == 0,
			  "dpk_stream_u64 at offset %zu: %d words differ from the byte stream",
			  off, wrong);
		dpk_stream_close(&s3);
	}

	/* Laplace draws are reproducible as well. */
	CHECK(dpk_stream_reseed(&s1, key, nonce_b), "reseed failed");
	CHECK(dpk_stream_reseed(&s2, key, nonce_b), "reseed failed");
	{
		DpkScale	sc = dpk_scale_from_double(3.7);
		int			same = 1;

		for (i = 0; i < 1000; i++)
			if (dpk_discrete_laplace(&s1, sc) != dpk_discrete_laplace(&s2, sc))
				same = 0;
		CHECK(same, "laplace draws differ on the same stream");
	}

	dpk_stream_close(&s1);
	dpk_stream_close(&s2);
	dpk_stream_close(&s2);		/* idempotent */
	CHECK(s2.ctx == NULL, "close does not clear ctx");
}

/* Chi-square of dpk_uniform(n) against uniform for small n. */
static void
test_uniform_small(uint64_t n, long draws, uint32_t tag)
{
	long		obs[16];
	double		prob[16];
	DpkStream	s;
	long		i;
	int			inrange = 1;
	double		stat;
	double		crit;

	memset(&s, 0, sizeof(s));
	memset(obs, 0, sizeof(obs));
	open_seeded(&s, 7, tag);
	for (i = 0; i < draws; i++)
	{
		uint64_t	u = dpk_uniform(&s, n);

		if (u >= n)
			inrange = 0;
		else
			obs[u]++;
	}
	dpk_stream_close(&s);
	for (i = 0; i < (long) n; i++)
		prob[i] = 1.0 / (double) n;
	stat = chi2_stat(obs, prob, (int) n, draws);
	crit = chi2_critical((int) n - 1);
	printf("  uniform(%llu): chi2 = %.2f (df %d, crit %.2f)\n",
		   (unsigned long long) n, stat, (int) n - 1, crit);
	CHECK(inrange, "uniform(%llu) out of range", (unsigned long long) n);
	CHECK(stat < crit, "uniform(%llu) chi2 %.2f >= %.2f",
		  (unsigned long long) n, stat, crit);
}

/*
 * uniform(3 * 2^62): a plain x mod n would put the bottom third at twice the
 * probability of the others, so this catches a missing rejection step.
 */
static void
test_uniform_large(void)
{
	const uint64_t n = (uint64_t) 3 << 62;
	const uint64_t third = (uint64_t) 1 << 62;
	const long	draws = 60000;
	long		obs[3] = {0, 0, 0};
	double		prob[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
	DpkStream	s;
	long		i;
	int			inrange = 1;
	double		stat;

	memset(&s, 0, sizeof(s));
	open_seeded(&s, 7, 100);
	for (i = 0; i < draws; i++)
	{
		uint64_t	u = dpk_uniform(&s, n);

		if (u >= n)
			inrange = 0;
		else
			obs[u / third]++;
	}
	CHECK(dpk_uniform(&s, 1) == 0, "uniform(1) != 0");
	dpk_stream_close(&s);
	stat = chi2_stat(obs, prob, 3, draws);
	printf("  uniform(3*2^62) thirds: chi2 = %.2f (df 2, crit %.2f)\n",
		   stat, chi2_critical(2));
	CHECK(inrange, "uniform(3*2^62) out of range");
	CHECK(stat < chi2_critical(2), "uniform(3*2^62) biased: chi2 %.2f", stat);
}

/* Frequency of dpk_bernoulli_exp(num, den) against exp(-num/den). */
static void
test_bernoulli_exp_one(uint64_t num, uint64_t den, long draws, uint32_t tag)
{
	DpkStream	s;
	long		hits = 0;
	long		i;
	double		p = exp(-(double) num / (double) den);
	double		z;

	memset(&s, 0, sizeof(s));
	open_seeded(&s, 11, tag);
	for (i = 0; i < draws; i++)
		hits += dpk_bernoulli_exp(&s, num, den) ? 1 : 0;
	dpk_stream_close(&s);
	z = binom_z(hits, draws, p);
	printf("  bernoulli_exp(%llu/%llu): freq %.5f, exp %.5f, z = %.2f\n",
		   (unsigned long long) num, (unsigned long long) den,
		   (double) hits / (double) draws, p, z);
	CHECK(z < N_SIGMA, "bernoulli_exp(%llu/%llu): z = %.2f",
		  (unsigned long long) num, (unsigned long long) den, z);
}

static void
test_bernoulli(void)
{
	DpkStream	s;
	long		hits = 0;
	long		i;
	double		z;

	memset(&s, 0, sizeof(s));
	open_seeded(&s, 11, 200);
	for (i = 0; i < 200000; i++)
		hits += dpk_bernoulli(&s, 1, 3) ? 1 : 0;
	CHECK(dpk_bernoulli(&s, 0, 5) == false, "bernoulli(0/5) true");
	CHECK(dpk_bernoulli(&s, 5, 5) == true, "bernoulli(5/5) false");
	dpk_stream_close(&s);
	z = binom_z(hits, 200000, 1.0 / 3.0);
	CHECK(z < N_SIGMA, "bernoulli(1/3): z = %.2f", z);

	test_bernoulli_exp_one(0, 1, 1000, 201);	/* gamma 0: always true */
	test_bernoulli_exp_one(3, 10, 200000, 202);
	test_bernoulli_exp_one(1, 1, 200000, 203);
	test_bernoulli_exp_one(5, 2, 200000, 204);
	test_bernoulli_exp_one(700001, 1 << 20, 200000, 205);
	/* den * k overflows 64 bits from k = 4 on: exercises the split draw */
	test_bernoulli_exp_one(((uint64_t) 1 << 62) - 12345,
						   (uint64_t) 1 << 62, 200000, 206);
	test_bernoulli_exp_one(7, 1, 400000, 207);
}

/*
 * Goodness of fit of dpk_discrete_laplace at one scale.  The bins are {0}
 * plus mirrored runs of consecutive integers on each side, each run grown
 * until its exact probability (summed from the pmf) reaches a target, with
 * the outermost run of each side extended to infinity (closed-form tail
 * P[X >= k] = p^k / (1 + p)).  Also checks the mean, the variance and the
 * balance between positive and negative draws.
 */
static void
test_laplace_scale(DpkScale sc, long draws, uint32_t tag)
{
	static long obs[MAX_BINS];
	static double prob[MAX_BINS];
	static int64_t start[MAX_BINS];	/* positive-side run starts */
	static double mass[MAX_BINS];	/* positive-side run masses */
	double		b = dpk_scale_value(sc);
	double		a = (double) sc.den / (double) sc.num;
	double		p = exp(-a);
	double		target = fmax(10.0 / (double) draws, 1.0 / 150.0);
	double		var_exact = dpk_discrete_laplace_variance(sc);
	double		m4 = 0.0;
	double		sum = 0.0;
	double		sumsq = 0.0;
	double		mean;
	double		var;
	double		stat;
	double		crit;
	double		total;
	double		z;
	long		npos = 0;
	long		nneg = 0;
	int			m = 0;
	int			nbins;
	int			i;
	int64_t		x;
	long		k;
	DpkStream	s;

	/* Positive-side runs: start[j] .. start[j+1]-1; the last is open-ended. */
	x = 1;
	for (;;)
	{
		double		tail = exp(-a * (double) x) / (1.0 + p);
		double		acc = 0.0;
		int64_t		y = x;

		if (tail < 2.0 * target || m == MAX_BINS / 2 - 2)
		{
			start[m] = x;
			mass[m] = tail;
			m++;
			break;
		}
		while (acc < target)
			acc += dpk_discrete_laplace_pmf(sc, y++);
		start[m] = x;
		mass[m] = acc;
		m++;
		x = y;
	}
	nbins = 2 * m + 1;
	prob[m] = dpk_discrete_laplace_pmf(sc, 0);
	for (i = 0; i < m; i++)
	{
		prob[m + 1 + i] = mass[i];
		prob[m - 1 - i] = mass[i];
	}
	total = 0.0;
	for (i = 0; i < nbins; i++)
		total += prob[i];
	CHECK(fabs(total - 1.0) < 1e-9, "bin masses sum to %.12f", total);

	/* Exact fourth moment, for the standard error of the sample variance. */
	for (x = 1; x < (int64_t) (80.0 * b) + 80; x++)
	{
		double		xd = (double) x;

		m4 += 2.0 * dpk_discrete_laplace_pmf(sc, x) * xd * xd * xd * xd;
	}

	memset(obs, 0, sizeof(obs));
	memset(&s, 0, sizeof(s));
	open_seeded(&s, 1234, tag);
	for (k = 0; k < draws; k++)
	{
		int64_t		v = dpk_discrete_laplace(&s, sc);
		int64_t		av = v < 0 ? -v : v;
		int			lo;
		int			hi;

		sum += (double) v;
		sumsq += (double) v * (double) v;
		if (v > 0)
			npos++;
		else if (v < 0)
			nneg++;

		if (v == 0)
		{
			obs[m]++;
			continue;
		}
		/* last run whose start is <= |v| */
		lo = 0;
		hi = m - 1;
		while (lo < hi)
		{
			int			mid = (lo + hi + 1) / 2;

			if (start[mid] <= av)
				lo = mid;
			else
				hi = mid - 1;
		}
		if (v > 0)
			obs[m + 1 + lo]++;
		else
			obs[m - 1 - lo]++;
	}
	dpk_stream_close(&s);

	stat = chi2_stat(obs, prob, nbins, draws);
	crit = chi2_critical(nbins - 1);
	mean = sum / (double) draws;
	var = sumsq / (double) draws - mean * mean;
	printf("  laplace b=%.6g (%llu/%llu): %d bins, chi2 = %.2f (crit %.2f), "
		   "mean %.4f, var %.4g (exact %.4g)\n",
		   b, (unsigned long long) sc.num, (unsigned long long) sc.den,
		   nbins, stat, crit, mean, var, var_exact);
	CHECK(nbins >= 3, "b=%g: too few bins", b);
	CHECK(stat < crit, "b=%g: chi2 %.2f >= %.2f (df %d)", b, stat, crit,
		  nbins - 1);

	z = fabs(mean) / sqrt(var_exact / (double) draws);
	CHECK(z < N_SIGMA, "b=%g: mean %.5f is %.2f standard errors from 0",
		  b, mean, z);
	z = fabs(var - var_exact) /
		sqrt((m4 - var_exact * var_exact) / (double) draws);
	CHECK(z < N_SIGMA, "b=%g: variance %.5g vs %.5g (%.2f standard errors)",
		  b, var, var_exact, z);
	if (npos + nneg > 0)
	{
		z = binom_z(npos, npos + nneg, 0.5);
		CHECK(z < N_SIGMA, "b=%g: %ld positive vs %ld negative draws",
			  b, npos, nneg);
	}
}

static void
test_laplace(void)
{
	DpkScale	r;

	test_laplace_scale(dpk_scale_from_double(0.5), 200000, 300);
	test_laplace_scale(dpk_scale_from_double(1.0), 200000, 301);
	test_laplace_scale(dpk_scale_from_double(2.5), 200000, 302);
	test_laplace_scale(dpk_scale_from_double(40.0), 200000, 303);
	test_laplace_scale(dpk_scale_from_double(1000.0), 200000, 304);
	/* small rationals: t and s far from 2^20, D accepted less often */
	r.num = 7;
	r.den = 3;
	test_laplace_scale(r, 100000, 305);
	r.num = 1;
	r.den = 1;
	test_laplace_scale(r, 100000, 306);
}

/* Consistency of the closed-form pmf and variance with direct sums. */
static void
test_pmf_variance(void)
{
	static const double bs[] = {0.05, 0.5, 1.0, 2.5, 40.0, 1000.0};
	size_t		i;

	for (i = 0; i < sizeof(bs) / sizeof(bs[0]); i++)
	{
		DpkScale	sc = dpk_scale_from_double(bs[i]);
		double		b = dpk_scale_value(sc);
		double		tot = dpk_discrete_laplace_pmf(sc, 0);
		double		v = 0.0;
		double		ve = dpk_discrete_laplace_variance(sc);
		int64_t		x;
		int			symmetric = 1;

		for (x = 1; x < (int64_t) (80.0 * b) + 80; x++)
		{
			double		px = dpk_discrete_laplace_pmf(sc, x);

			if (px != dpk_discrete_laplace_pmf(sc, -x))
				symmetric = 0;
			tot += 2.0 * px;
			v += 2.0 * px * (double) x * (double) x;
		}
		CHECK(symmetric, "b=%g: pmf not symmetric", b);
		CHECK(fabs(tot - 1.0) < 1e-9, "b=%g: pmf sums to %.12f", b, tot);
		CHECK(fabs(v - ve) <= 1e-9 * fmax(ve, 1e-300) + 1e-300,
			  "b=%g: variance %.12g vs summed %.12g", b, ve, v);
		/* continuous-Laplace limit 2b^2 for large b */
		if (b >= 40.0)
			CHECK(fabs(ve / (2.0 * b * b) - 1.0) < 1e-3,
				  "b=%g: variance %.6g far from 2b^2", b, ve);
	}
}

static jmp_buf scale_fail_jump;

/* A dpk_fail hook that returns to scale_fails. */
static void
scale_fail_catch(const char *what)
{
	(void) what;
	longjmp(scale_fail_jump, 1);
}

/* Whether dpk_scale_from_double(b) stops through dpk_fail. */
static bool
scale_fails(double b)
{
	volatile bool failed = false;

	dpk_fail_hook = scale_fail_catch;
	if (setjmp(scale_fail_jump) == 0)
		(void) dpk_scale_from_double(b);
	else
		failed = true;
	dpk_fail_hook = NULL;
	return failed;
}

/* dpk_scale_from_double rounds up by less than one unit of 1/den. */
static void
test_scale_rounding(void)
{
	static const double bs[] = {
		0.5, 1.0, 2.5, 40.0, 1000.0, 1.0 / 3.0, 0.1, 1e-7, 3.14159265358979,
		12345.6789, 1e6 + 1e-9, 0.999999999
	};
	size_t		i;
	DpkScale	sc;

	for (i = 0; i < sizeof(bs) / sizeof(bs[0]); i++)
	{
		double		v;

		sc = dpk_scale_from_double(bs[i]);
		v = dpk_scale_value(sc);
		CHECK(sc.num >= 1 && sc.den >= 1, "b=%g: bad scale", bs[i]);
		CHECK(v >= bs[i], "b=%.17g rounded down to %.17g", bs[i], v);
		CHECK(v - bs[i] <= 1.0 / (double) sc.den,
			  "b=%.17g rounded up too far to %.17g", bs[i], v);
	}
	sc = dpk_scale_from_double(2.5);
	CHECK(sc.num * 2 == sc.den * 5, "2.5 not represented exactly");

	/* no exact scale: dpk_fail, never a smaller scale */
	CHECK(scale_fails(NAN), "NaN scale accepted");
	CHECK(scale_fails(INFINITY), "inf scale accepted");
	CHECK(scale_fails(0.0), "zero scale accepted");
	CHECK(scale_fails(-1.0), "negative scale accepted");
	CHECK(scale_fails(ldexp(1.0, 62)), "scale 2^62 accepted");
	CHECK(!dpk_scale_representable(ldexp(1.0, 62)), "2^62 representable");
	CHECK(dpk_scale_representable(ldexp(1.0, 61)), "2^61 not representable");
}

/*
 * Scales above 2^62 / 2^20 (about 4.4e12) used to be capped there, i.e.
 * rounded down: the d = 64, epsilon = 0.001 norm counter asked 7.38e12 and got
 * 4.398e12.  Now the denominator shrinks instead, so every b up to 2^61 is
 * represented at or above b, and below 4.4e12 the rational is unchanged
 * (sampler version 1 draws).
 */
static void
test_scale_extreme(void)
{
	static const double bs[] = {
		4.0e12, 4.39e12, 4.4e12, 7.38e12, 1e13, 3.3e14, 1e16, 1e18, 2.3e18,
		ldexp(1.0, 61), ldexp(1.0, 62) - 1024.0
	};
	size_t		i;

	for (i = 0; i < sizeof(bs) / sizeof(bs[0]); i++)
	{
		DpkScale	sc = dpk_scale_from_double(bs[i]);
		long double v = (long double) sc.num / (long double) sc.den;

		CHECK(sc.num >= 1 && sc.num < ((uint64_t) 1 << 62) && sc.den >= 1,
			  "b=%g: bad rational %llu/%llu", bs[i], (unsigned long long) sc.num,
			  (unsigned long long) sc.den);
		CHECK(v >= (long double) bs[i], "b=%.17g rounded down to %.17Lg", bs[i], v);
		CHECK(v - (long double) bs[i] <= 1.0L / (long double) sc.den,
			  "b=%.17g rounded up too far", bs[i]);
		CHECK(dpk_scale_same_in_v1(bs[i]) == (sc.den == ((uint64_t) 1 << 20)),
			  "b=%g: version-1 compatibility misreported", bs[i]);
	}
	CHECK(dpk_scale_same_in_v1(4.0e12), "4e12 should be unchanged from version 1");
	CHECK(!dpk_scale_same_in_v1(7.38e12), "7.38e12 was capped in version 1");
	/* a huge scale still samples (128-bit arithmetic in the geometric) */
	{
		uint8_t		key[DPK_KEY_BYTES];
		uint8_t		nonce[DPK_NONCE_BYTES] = {0};
		DpkStream	s;
		double		mean_abs = 0.0;
		int			n = 2000,
					j;
		DpkScale	sc = dpk_scale_from_double(1e15);

		dpk_key_from_seed(99, key);
		dpk_stream_open(&s, key, nonce);
		for (j = 0; j < n; j++)
			mean_abs += fabs((double) dpk_discrete_laplace(&s, sc)) / n;
		dpk_stream_close(&s);
		/* E|X| = b for a Laplace of scale b: within 10 % at n = 2000 */
		CHECK(fabs(mean_abs / 1e15 - 1.0) < 0.1, "scale 1e15: mean |X| = %g", mean_abs);
	}
}

/*
 * Log of the cube law's radius weights: P[||z||_inf = r] is proportional to
 * ((2r+1)^d - (2r-1)^d) q^r (points on the cube's surface), 1 at r = 0.
 */
static double
cube_radius_logw(int d, double a, long r)
{
	double		rd = (double) r;

	if (r == 0)
		return 0.0;
	return d * log(2.0 * rd + 1.0) +
		log1p(-pow((2.0 * rd - 1.0) / (2.0 * rd + 1.0), d)) - a * rd;
}

/*
 * Cube noise against its exact law.  d = 1 is the discrete Laplace itself;
 * d = 2 is tested point by point on [-6, 6]^2 plus the tail; d = 16 on the
 * law of ||z||_inf, with mean 0 and the variance formula per coordinate.
 */
static void
test_cube_noise(void)
{
	static long obs[MAX_BINS];
	static double prob[MAX_BINS];
	DpkStream	s;
	DpkScale	sc;
	double		stat,
				crit;
	long		k;
	int			i;

	/* d = 1: the same law as dpk_discrete_laplace of the same scale */
	{
		const int	C = 12;
		int64_t		z = 0;

		sc = dpk_scale_from_double(3.0);
		CHECK(dpk_cube_noise_usable(sc, 1), "cube not usable at d = 1, b = 3");
		memset(obs, 0, sizeof(obs));
		for (i = -C; i <= C; i++)
			prob[i + C] = dpk_discrete_laplace_pmf(sc, i);
		prob[2 * C + 1] = 0.0;
		for (i = 0; i < 2 * C + 1; i++)
			prob[2 * C + 1] += prob[i];
		prob[2 * C + 1] = 1.0 - prob[2 * C + 1];
		memset(&s, 0, sizeof(s));
		open_seeded(&s, 4321, 70);
		for (k = 0; k < 200000; k++)
		{
			z = 0;
			dpk_vector_noise(&s, sc, 1, 1, &z);
			if (z >= -C && z <= C)
				obs[z + C]++;
			else
				obs[2 * C + 1]++;
		}
		dpk_stream_close(&s);
		stat = chi2_stat(obs, prob, 2 * C + 2, 200000);
		crit = chi2_critical(2 * C + 1);
		printf("  cube d=1 b=3 vs laplace pmf: chi2 = %.2f (crit %.2f)\n", stat, crit);
		CHECK(stat < crit, "cube d=1: chi2 %.2f >= %.2f", stat, crit);
	}

	/* d = 2, b = 1.5: every point of [-6, 6]^2, one bin for the rest */
	{
		const int	C = 6;
		const long	draws = 300000;
		double		a,
					norm = 0.0,
					inside = 0.0;
		int			nb = (2 * C + 1) * (2 * C + 1);
		long		r;

		sc = dpk_scale_from_double(1.5);
		a = (double) sc.den / (double) sc.num;
		for (r = 0; r < 400; r++)
			norm += exp(cube_radius_logw(2, a, r));
		for (i = 0; i < nb; i++)
		{
			int			x = i / (2 * C + 1) - C,
						y = i % (2 * C + 1) - C;
			int			m = abs(x) > abs(y) ? abs(x) : abs(y);

			prob[i] = exp(-a * m) / norm;
			inside += prob[i];
		}
		prob[nb] = 1.0 - inside;
		memset(obs, 0, sizeof(obs));
		memset(&s, 0, sizeof(s));
		open_seeded(&s, 4321, 71);
		for (k = 0; k < draws; k++)
		{
			int64_t		z[2] = {0, 0};

			dpk_vector_noise(&s, sc, 2, 1, z);
			if (llabs(z[0]) <= C && llabs(z[1]) <= C)
				obs[(z[0] + C) * (2 * C + 1) + (z[1] + C)]++;
			else
				obs[nb]++;
		}
		dpk_stream_close(&s);
		stat = chi2_stat(obs, prob, nb + 1, draws);
		crit = chi2_critical(nb);
		printf("  cube d=2 b=1.5 point by point: chi2 = %.2f (df %d, crit %.2f)\n",
			   stat, nb, crit);
		CHECK(stat < crit, "cube d=2: chi2 %.2f >= %.2f", stat, crit);
	}

	/* d = 16, b = 40: the radius law, mean, variance of one coordinate */
	{
		const int	d = 16;
		const long	draws = 60000;
		static double lw[4096];
		static long rstart[MAX_BINS];
		double		a,
					mx = -INFINITY,
					norm = 0.0,
					acc = 0.0,
					mix = 0.0,
					mixnorm = 0.0,
					var_exact,
					var_formula,
					sum = 0.0,
					sumsq = 0.0,
					m4 = 0.0,
					mean,
					var,
					z;
		int			nb = 0;
		long		r;

		sc = dpk_scale_from_double(40.0);
		a = (double) sc.den / (double) sc.num;
		CHECK(dpk_cube_noise_usable(sc, d), "cube not usable at d = 16, b = 40");
		for (r = 0; r < 4096; r++)
		{
			lw[r] = cube_radius_logw(d, a, r);
			if (lw[r] > mx)
				mx = lw[r];
		}
		for (r = 0; r < 4096; r++)
			norm += exp(lw[r] - mx);
		/* runs of radii of mass >= 1/100 each */
		rstart[0] = 0;
		for (r = 0; r < 4096; r++)
		{
			acc += exp(lw[r] - mx) / norm;
			if (acc >= 0.01 && nb < MAX_BINS - 2)
			{
				prob[nb++] = acc;
				rstart[nb] = r + 1;
				acc = 0.0;
			}
		}
		prob[nb - 1] += acc;	/* the far tail joins the last run */
		/* exact E[R (R + 1)] / 3 of the mixture radius, weights (2r+1)^d q^r */
		for (r = 0; r < 4096; r++)
		{
			double		w = exp(d * log(2.0 * r + 1.0) - a * r - mx - 40.0);

			mix += w * r * (r + 1.0);
			mixnorm += w;
		}
		var_exact = mix / mixnorm / 3.0;
		var_formula = dpk_vector_noise_variance(sc, d);
		printf("  cube d=16 b=40: variance formula %.2f, exact %.2f\n",
			   var_formula, var_exact);
		CHECK(fabs(var_formula / var_exact - 1.0) < 0.01,
			  "cube variance formula %.3f vs exact %.3f", var_formula, var_exact);

		memset(obs, 0, sizeof(obs));
		memset(&s, 0, sizeof(s));
		open_seeded(&s, 4321, 72);
		for (k = 0; k < draws; k++)
		{
			int64_t		zz[16];
			int64_t		mr = 0;
			int			lo = 0,
						hi = nb - 1;

			memset(zz, 0, sizeof(zz));
			dpk_vector_noise(&s, sc, d, 1, zz);
			for (i = 0; i < d; i++)
				if (llabs(zz[i]) > mr)
					mr = llabs(zz[i]);
			sum += (double) zz[k % d];
			sumsq += (double) zz[k % d] * (double) zz[k % d];
			m4 += pow((double) zz[k % d], 4.0);
			while (lo < hi)
			{
				int			mid = (lo + hi + 1) / 2;

				if (rstart[mid] <= mr)
					lo = mid;
				else
					hi = mid - 1;
			}
			obs[lo]++;
		}
		dpk_stream_close(&s);
		stat = chi2_stat(obs, prob, nb, draws);
		crit = chi2_critical(nb - 1);
		mean = sum / draws;
		var = sumsq / draws - mean * mean;
		m4 /= draws;
		printf("  cube d=16 b=40 radius: %d bins, chi2 = %.2f (crit %.2f), "
			   "coordinate mean %.3f, var %.1f\n", nb, stat, crit, mean, var);
		CHECK(stat < crit, "cube d=16 radius: chi2 %.2f >= %.2f", stat, crit);
		z = fabs(mean) / sqrt(var_exact / draws);
		CHECK(z < N_SIGMA, "cube d=16: mean %.3f is %.2f standard errors from 0", mean, z);
		z = fabs(var - var_exact) / sqrt((m4 - var * var) / draws);
		CHECK(z < N_SIGMA, "cube d=16: variance %.1f vs %.1f (%.2f standard errors)",
			  var, var_exact, z);
		/* 5-6 times less variance than the l1 Laplace it replaces */
		CHECK(var_exact < 0.25 * dpk_discrete_laplace_variance(dpk_vector_l1_scale(sc, d)),
			  "cube variance %.1f not well below the Laplace's", var_exact);
	}

	/* below b = d / 4 the fallback: Laplace of scale d b per coordinate */
	{
		const int	d = 16;
		const long	draws = 40000;
		double		sumsq = 0.0,
					var_exact;
		DpkScale	l1;

		sc = dpk_scale_from_double(2.0);
		l1 = dpk_vector_l1_scale(sc, d);
		CHECK(!dpk_cube_noise_usable(sc, d), "cube used at d = 16, b = 2");
		CHECK(l1.num == 16 * sc.num && l1.den == sc.den, "fallback scale is not 16 b");
		var_exact = dpk_discrete_laplace_variance(l1);
		CHECK(dpk_vector_noise_variance(sc, d) == var_exact, "fallback variance");
		memset(&s, 0, sizeof(s));
		open_seeded(&s, 4321, 73);
		for (k = 0; k < draws; k++)
		{
			int64_t		zz[16];

			memset(zz, 0, sizeof(zz));
			dpk_vector_noise(&s, sc, d, -1, zz);
			sumsq += (double) zz[k % d] * (double) zz[k % d];
		}
		dpk_stream_close(&s);
		/* Laplace fourth moment is 6 var^2 + O(var), so sd(var^) ~ sqrt(5) var */
		{
			double		var = sumsq / draws;
			double		z = fabs(var - var_exact) / (sqrt(5.0) * var_exact / sqrt((double) draws));

			printf("  vector fallback d=16 b=2: var %.1f (exact %.1f)\n", var, var_exact);
			CHECK(z < N_SIGMA, "fallback variance %.1f vs %.1f", var, var_exact);
		}
	}
}

int
main(void)
{
	printf("test_noise:\n");
	test_known_answer();
	test_stream_determinism();
	test_uniform_small(3, 300000, 10);
	test_uniform_small(10, 300000, 11);
	test_uniform_large();
	test_bernoulli();
	test_laplace();
	test_cube_noise();
	test_pmf_variance();
	test_scale_rounding();
	test_scale_extreme();
	UNIT_DONE("test_noise");
}
